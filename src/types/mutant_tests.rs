//! How the types write: numbers as `JSON.stringify` writes them (each text
//! below printed by Node), and each variant as a map whose length is the
//! number of its entries, for a writer that needs it up front.

use serde::ser::{self, Impossible, Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

use super::*;

/// The text of `key`'s number in `text` (compact JSON).
fn number_text<'a>(text: &'a str, key: &str) -> &'a str {
    let at = text.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let end = text[at..].find([',', '}']).unwrap();
    &text[at..at + end]
}

#[test]
fn numbers_are_written_as_json_stringify_writes_them() {
    // JSON.stringify({t: x}) in Node for each x.
    let cases: [(f64, &str); 10] = [
        (0.0, "0"),
        (-0.0, "0"),
        (5.0, "5"),
        (-3.0, "-3"),
        (1767225600000.0, "1767225600000"),
        (9007199254740992.0, "9007199254740992"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (f64::NAN, "null"),
        (f64::INFINITY, "null"),
    ];
    for (n, want) in cases {
        let line = json!({"type":"compaction","id":"c","parentId":null,"timestamp":"t",
            "summary":"s","firstKeptEntryId":"a","tokensBefore":0});
        let mut entry: FileEntry = serde_json::from_value(line).unwrap();
        let FileEntry::Compaction(c) = &mut entry else {
            panic!()
        };
        c.tokens_before = n;
        let text = serde_json::to_string(&entry).unwrap();
        assert_eq!(number_text(&text, "tokensBefore"), want, "{n}");
    }
    // Integers past 2^53 are written as serde_json writes floats: the same
    // number, in other text than JS's (`9007199254740994.0` and `1e+20`, where
    // JSON.stringify writes `9007199254740994` and `100000000000000000000`).
    for n in [9007199254740994.0, 1e20, -1e300, 2f64.powi(70)] {
        let mut entry: FileEntry = serde_json::from_value(json!({"type":"compaction","id":"c",
            "parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":0}))
        .unwrap();
        let FileEntry::Compaction(c) = &mut entry else {
            panic!()
        };
        c.tokens_before = n;
        let back: Value = serde_json::from_str(&serde_json::to_string(&entry).unwrap()).unwrap();
        assert_eq!(back["tokensBefore"].as_f64(), Some(n), "{n}");
    }
}

/// Records the length a map announces and counts the entries written to it;
/// nothing else is supported.
struct MapLength;

#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Refused(msg.to_string())
    }
}

struct Counting {
    announced: Option<usize>,
    keys: usize,
}

impl SerializeMap for Counting {
    type Ok = (Option<usize>, usize);
    type Error = Refused;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Refused> {
        self.keys += 1;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Refused> {
        Ok(())
    }
    fn end(self) -> Result<Self::Ok, Refused> {
        Ok((self.announced, self.keys))
    }
}

macro_rules! refuse {
    ($($name:ident($($t:ty),*)),* $(,)?) => {
        $(fn $name(self $(, _: $t)*) -> Result<Self::Ok, Refused> {
            Err(Refused(stringify!($name).into()))
        })*
    };
}

impl Serializer for MapLength {
    type Ok = (Option<usize>, usize);
    type Error = Refused;
    type SerializeSeq = Impossible<Self::Ok, Refused>;
    type SerializeTuple = Impossible<Self::Ok, Refused>;
    type SerializeTupleStruct = Impossible<Self::Ok, Refused>;
    type SerializeTupleVariant = Impossible<Self::Ok, Refused>;
    type SerializeMap = Counting;
    type SerializeStruct = Impossible<Self::Ok, Refused>;
    type SerializeStructVariant = Impossible<Self::Ok, Refused>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok, Refused> {
        Err(Refused("some".into()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Refused> {
        Err(Refused("newtype".into()))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Refused> {
        Err(Refused("newtype variant".into()))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Refused> {
        Err(Refused("seq".into()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Refused> {
        Err(Refused("tuple".into()))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Refused> {
        Err(Refused("tuple struct".into()))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Refused> {
        Err(Refused("tuple variant".into()))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Counting, Refused> {
        Ok(Counting {
            announced: len,
            keys: 0,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Refused> {
        Err(Refused("struct".into()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Refused> {
        Err(Refused("struct variant".into()))
    }
}

/// A length-prefixed format (CBOR, MessagePack, bincode) writes the length
/// a map announces: it must be the number of entries, the tag included.
#[test]
fn a_variant_announces_as_many_entries_as_it_writes() {
    let lines = [
        json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}),
        json!({"type":"label","id":"l","parentId":"p","timestamp":"t","targetId":"a","label":"x","more":1}),
    ];
    for line in &lines {
        let entry: FileEntry = serde_json::from_value(line.clone()).unwrap();
        let (announced, keys) = entry.serialize(MapLength).unwrap();
        assert_eq!(keys, line.as_object().unwrap().len(), "{line}");
        assert_eq!(announced, Some(keys), "{line}");
    }
    // A block of one field besides its tag, written by serde_json's writer,
    // which closes a map announced empty at once.
    let block: ContentBlock = serde_json::from_value(json!({"type":"text","text":"hi"})).unwrap();
    assert_eq!(block.serialize(MapLength).unwrap(), (Some(2), 2));
    assert_eq!(
        serde_json::to_string(&block).unwrap(),
        r#"{"type":"text","text":"hi"}"#
    );
}
