//! A session's entries as byte ranges of its source, with the few facts its
//! tree needs, and no copy of its text.
//!
//! A file too big to hold is read once, a piece at a time
//! ([`crate::pieces`]); each line that pi keeps as an entry leaves here its
//! byte range and its `type`, `id`, `parentId`, time and (for a label) its
//! target. What a caller then reads of an entry is read again by its range.
//! Ids are packed: pi's ids (eight lowercase hex digits) are stored inside
//! the entry; any other id value is interned once. An entry costs
//! [`Index::BYTES_PER_ENTRY`] bytes here, however long its line.

use std::collections::HashMap;
use std::ops::Range;

use crate::context::{self, Leaf, Plan};
use crate::document::Document;
use crate::entry::{Detail, Entry, EntryType, Key};
use crate::ids::IdHash;
use crate::migrate;
use crate::parse::{self, ReadAt};
use crate::pieces;
use crate::preview;
use crate::time::DateParser;
use crate::tree::{self, SiblingSort, Tree};

/// An `id`, `parentId` or `targetId` value, packed: equal exactly when the
/// [`Key`]s are (so when JS's `===` says so). Its kind (one of the constants
/// below) plus a 32-bit number: pi's id as a word, or an interned id's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Id(u64);

const UNDEFINED: u64 = 0;
const NULL: u64 = 1 << 32;
const HEX: u64 = 2 << 32;
const INTERNED: u64 = 3 << 32;

/// One entry: where it is and what its tree reads.
#[derive(Clone, Copy, Debug)]
struct Fact {
    start: u64,
    len: u32,
    kind: EntryType,
    id: Id,
    parent_id: Id,
    time: f64,
}

// An entry's facts stay small: memory grows with entries, not their text.
const _: () = assert!(std::mem::size_of::<Fact>() <= 40);

/// Why a source cannot be indexed.
#[derive(Debug, PartialEq)]
pub enum IndexError<E> {
    /// The source failed (or changed) while it was read.
    Read(E),
    /// A line longer than 4 GiB: no JS engine could parse it anyway.
    LineTooLong { line: usize },
    /// The entries a context reads add up to more than the limit given.
    PathTooLarge { bytes: u64 },
}

/// The entries of a session read a piece at a time.
pub struct Index {
    facts: Vec<Fact>,
    /// `(entry, targetId, label is truthy)` of each label entry, in order.
    labels: Vec<(u32, Id, bool)>,
    /// The id values that are not pi's eight hex digits, by number.
    others: Vec<Key>,
    interned: HashMap<Key, u32, IdHash>,
    /// The first header, which decides the version, and its entry number.
    header: Option<(usize, Entry)>,
    /// Whether some line was not UTF-8 (read as `TextDecoder` reads it).
    pub lossy: bool,
}

impl Index {
    /// Bytes of memory per entry, besides interned ids and label entries.
    pub const BYTES_PER_ENTRY: usize = std::mem::size_of::<Fact>();

    /// Reads a source of `len` bytes, `piece` bytes at a time, keeping the
    /// lines pi's file loader keeps (valid JSON, not falsy), each with its
    /// byte range.
    pub fn read<E>(
        len: u64,
        piece: usize,
        read: &mut ReadAt<'_, E>,
        dates: &dyn DateParser,
    ) -> Result<Index, IndexError<E>> {
        Index::read_with_preview_to(
            len,
            piece,
            read,
            dates,
            &preview::Wanted::default(),
            &mut |_| {},
        )
    }

    /// [`Index::read`], also writing each entry's [`preview`] of `fields`
    /// in the same pass: JSON array texts which, one after the other, hold
    /// entry `i`'s at `i` (none without `fields`). A reader that shows a row
    /// per entry then reads no entry again to describe it. A text ends once
    /// it passes `part` bytes: a JS string holds at most 2^29 - 24 units, and
    /// the previews of a file of millions of entries are more. (The tests'
    /// view of [`Index::read_with_preview_to`], the texts kept in a list.)
    #[cfg(test)]
    pub fn read_with_preview<E>(
        len: u64,
        piece: usize,
        read: &mut ReadAt<'_, E>,
        dates: &dyn DateParser,
        fields: Option<&preview::Fields>,
        part: usize,
    ) -> Result<(Index, Vec<String>), IndexError<E>> {
        let mut parts = Vec::new();
        let wanted = preview::Wanted {
            fields,
            picked: None,
            part,
        };
        let index = Index::read_with_preview_to(len, piece, read, dates, &wanted, &mut |p| {
            if let preview::Part::Previews(p) = p {
                parts.push(p)
            }
        })?;
        Ok((index, parts))
    }

    /// [`Index::read`], also writing each entry's [`preview`] of `fields` in
    /// the same pass: JSON array texts which, one after the other, hold entry
    /// `i`'s at `i` (none without `fields`), each handed to `emit` as soon as
    /// it is complete, so a reader holds one text at a time. A text ends once
    /// it passes `part` bytes: a JS string holds at most 2^29 - 24 units, and
    /// the previews of a file of millions of entries are more.
    pub fn read_with_preview_to<E>(
        len: u64,
        piece: usize,
        read: &mut ReadAt<'_, E>,
        dates: &dyn DateParser,
        wanted: &preview::Wanted<'_>,
        emit: &mut dyn FnMut(preview::Part),
    ) -> Result<Index, IndexError<E>> {
        let (fields, picked, part) = (wanted.fields, wanted.picked, wanted.part);
        let mut previews = String::new();
        if fields.is_some() {
            previews.push('[');
        }
        let mut lines = String::new();
        let mut index = Index {
            facts: Vec::new(),
            labels: Vec::new(),
            others: Vec::new(),
            interned: HashMap::default(),
            header: None,
            lossy: false,
        };
        let mut unique = 0;
        let mut too_long = None;
        let mut visit = |line: &pieces::SourceLine<'_>| {
            index.lossy |= line.lossy;
            let Ok(value) = line.parsed else { return };
            if !parse::is_kept(line.text, value) {
                return;
            }
            let Ok(len) = u32::try_from(line.range.end - line.range.start) else {
                too_long.get_or_insert(line.number);
                return;
            };
            let entry = Entry::from_json(line.text, value, Some(dates), &mut unique);
            index.add(entry, line.range.start, len);
            if let Some(fields) = fields {
                if previews.len() > part {
                    previews.push(']');
                    emit(preview::Part::Previews(std::mem::replace(
                        &mut previews,
                        "[".to_owned(),
                    )));
                } else if previews.len() > 1 {
                    previews.push(',');
                }
                preview::write(line.text, value, fields, &mut previews);
            }
            if let Some(picked) = picked {
                if lines.len() > part {
                    emit(preview::Part::Picked(std::mem::take(&mut lines)));
                }
                picked.write_line(line.text, value, &mut lines);
            }
        };
        pieces::read_lines(len, piece, read, &mut visit).map_err(IndexError::Read)?;
        if let Some(line) = too_long {
            return Err(IndexError::LineTooLong { line });
        }
        index.facts.shrink_to_fit();
        if fields.is_some() {
            previews.push(']');
            emit(preview::Part::Previews(previews));
        }
        if picked.is_some() {
            emit(preview::Part::Picked(lines));
        }
        Ok(index)
    }

    fn add(&mut self, entry: Entry, start: u64, len: u32) {
        let i = self.facts.len() as u32;
        let id = self.id_of(entry.id.clone());
        let parent_id = self.id_of(entry.parent_id.clone());
        if let (
            EntryType::Label,
            Detail::Label {
                target_id,
                has_label,
            },
        ) = (entry.kind(), &entry.detail)
        {
            let target = self.id_of((**target_id).clone());
            self.labels.push((i, target, *has_label));
        }
        self.facts.push(Fact {
            start,
            len,
            kind: entry.kind(),
            id,
            parent_id,
            time: entry.time,
        });
        if entry.is_header() && self.header.is_none() {
            self.header = Some((i as usize, entry));
        }
    }

    /// The packed form of `key`.
    fn id_of(&mut self, key: Key) -> Id {
        match &key {
            Key::Undefined => return Id(UNDEFINED),
            Key::Null => return Id(NULL),
            Key::Hex(n) => return Id(HEX + u64::from(*n)),
            _ => {}
        }
        let next = self.others.len() as u32;
        let n = *self.interned.entry(key.clone()).or_insert(next);
        if n == next {
            self.others.push(key);
        }
        Id(INTERNED + u64::from(n))
    }

    /// The value an [`Id`] stands for.
    pub fn key(&self, id: Id) -> Key {
        match id.0 & !0xffff_ffff {
            UNDEFINED => Key::Undefined,
            NULL => Key::Null,
            HEX => Key::Hex(id.0 as u32),
            _ => self.others[id.0 as u32 as usize].clone(),
        }
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Entry `i`'s bytes in the source (its line, which `JSON.parse` reads
    /// as the entry: JSON whitespace around the value is all it adds).
    pub fn range(&self, i: usize) -> Range<u64> {
        let f = &self.facts[i];
        f.start..f.start + u64::from(f.len)
    }

    /// Entry `i`'s `id`.
    pub fn entry_id(&self, i: usize) -> Key {
        self.key(self.facts[i].id)
    }

    /// Whether the session is current (v3 or later): its tree then needs no
    /// migration, and the ranges are its entries.
    pub fn is_current(&self) -> bool {
        self.header
            .as_ref()
            .is_some_and(|(_, e)| migrate::is_current(std::slice::from_ref(e)))
    }

    /// The tree, as [`tree::build`] makes it from parsed entries.
    pub fn tree(&self, fallback: &dyn SiblingSort) -> Tree {
        tree::build_from(self, fallback)
    }

    /// The context at `leaf` of a current session, reading only the entries
    /// it needs: the walk from the leaf (as [`context::plan`] walks: pi's
    /// `byId`, later duplicates winning, a cycle ending it) is found in the
    /// index, then those entries and the header are read by range into a
    /// [`Document`] of their own, and planned there. The walk there is the
    /// same one: each entry it meets is the last with its id in the file, so
    /// in the smaller document too.
    /// More than `max_bytes` of entries to read is refused before any is read.
    pub fn context<E>(
        &self,
        leaf: Leaf,
        max_bytes: u64,
        read: &mut ReadAt<'_, E>,
        dates: &dyn DateParser,
    ) -> Result<(Document, Plan), IndexError<E>> {
        let n = self.facts.len();
        let node = |i: &usize| self.facts[*i].kind != EntryType::Session;
        let mut by_id: HashMap<Id, usize, IdHash> = HashMap::default();
        for i in (0..n).filter(node) {
            by_id.insert(self.facts[i].id, i);
        }
        let last = || (0..n).rev().find(node);
        let start = match &leaf {
            Leaf::None => None,
            Leaf::Id(key) => self
                .find(key)
                .and_then(|id| by_id.get(&id).copied())
                .or_else(last),
            Leaf::Last => last(),
        };
        let parent = |i: usize| {
            let p = self.facts[i].parent_id;
            if self.truthy(p) {
                by_id.get(&p).copied()
            } else {
                None
            }
        };
        let mut wanted = context::walk(start, &parent);
        wanted.extend(self.header.as_ref().map(|(i, _)| *i));
        // The small sort of cold paths (`order`): it keeps the wasm small.
        let mut wanted = crate::order::sorted_by_key(wanted, |&i| i as u64);
        wanted.dedup();
        let total: u64 = wanted
            .iter()
            .map(|&i| self.range(i).end - self.range(i).start + 1)
            .sum();
        if total > max_bytes {
            return Err(IndexError::PathTooLarge { bytes: total });
        }
        let mut bytes = Vec::with_capacity(total as usize);
        for &i in &wanted {
            let r = self.range(i);
            read(r.start, r.end, &mut bytes).map_err(IndexError::Read)?;
            bytes.push(b'\n');
        }
        let doc = Document::parse_with(parse::decode(&bytes).into_owned(), dates);
        let by_id = context::index(&doc.entries);
        // No start (`Leaf::None`, or a file of headers alone): an empty plan.
        let start = start.and_then(|s| wanted.binary_search(&s).ok());
        let plan = context::plan_at(&doc.entries, &|k| by_id.get(k).copied(), start);
        drop(by_id);
        Ok((doc, plan))
    }

    /// The packed form of `key`, if some entry has it.
    fn find(&self, key: &Key) -> Option<Id> {
        match key {
            Key::Undefined => Some(Id(UNDEFINED)),
            Key::Null => Some(Id(NULL)),
            Key::Hex(n) => Some(Id(HEX + u64::from(*n))),
            _ => self.interned.get(key).map(|&n| Id(INTERNED + u64::from(n))),
        }
    }

    /// JS truthiness of what an [`Id`] stands for.
    fn truthy(&self, id: Id) -> bool {
        match id.0 & !0xffff_ffff {
            UNDEFINED | NULL => false,
            HEX => true,
            _ => self.others[id.0 as u32 as usize].truthy(),
        }
    }

    /// The memory the index holds, in bytes (its vectors and interned ids).
    pub fn memory(&self) -> usize {
        self.facts.capacity() * Self::BYTES_PER_ENTRY
            + self.labels.capacity() * std::mem::size_of::<(u32, Id, bool)>()
            + self.others.capacity() * (std::mem::size_of::<Key>() * 2 + 16)
    }
}

impl tree::Nodes for &Index {
    type Id = Id;
    fn count(self) -> usize {
        self.facts.len()
    }
    fn is_header(self, i: usize) -> bool {
        self.facts[i].kind == EntryType::Session
    }
    fn id(self, i: usize) -> Id {
        self.facts[i].id
    }
    fn parent_id(self, i: usize) -> Option<Id> {
        let f = &self.facts[i];
        (f.parent_id != Id(NULL) && f.parent_id != f.id).then_some(f.parent_id)
    }
    fn time(self, i: usize) -> f64 {
        self.facts[i].time
    }
    fn label(self, i: usize) -> Option<(Id, bool)> {
        // Label entries are few and in order: a binary search.
        let k = self
            .labels
            .binary_search_by_key(&(i as u32), |l| l.0)
            .ok()?;
        let (_, target, has_label) = self.labels[k];
        Some((target, has_label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::time::IsoOnly;
    use crate::tree::NativeSort;

    fn index(b: &[u8], piece: usize) -> Index {
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        Index::read(b.len() as u64, piece, &mut read, &IsoOnly).unwrap()
    }

    fn e(id: &str, parent: &str, secs: u32) -> String {
        format!("{{\"type\":\"message\",\"id\":{id},\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:{secs:02}.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"é\"}}}}\n")
    }

    #[test]
    fn the_index_gives_the_tree_and_entries_of_the_document() {
        let label = |id: &str, target: &str, text: &str| {
            format!("{{\"type\":\"label\",\"id\":\"{id}\",\"parentId\":null,\"targetId\":{target},\"label\":\"{text}\"}}\n")
        };
        let text = [
            " \u{feff}{\"type\":\"session\",\"version\":3,\"id\":\"0195d6d4-aaaa\"}\n".to_owned(),
            e("\"a1b2c3d4\"", "null", 0),
            e("\"A1B2C3D4\"", "\"a1b2c3d4\"", 3),
            e("\"x\"", "\"a1b2c3d4\"", 1),
            "null\n0\n{broken\n\n[1]\n".into(),
            e("\"x\"", "\"x\"", 2),
            e("7", "\"x\"", 5),
            e("{}", "7", 4),
            e("\"c1\"", "\"c2\"", 6),
            e("\"c2\"", "\"c1\"", 6),
            label("l1", "\"x\"", "one"),
            label("l2", "7", "two"),
            label("l3", "7", ""),
            e("\"deadbeef\"", "\"A1B2C3D4\"", 9),
        ]
        .concat();
        let doc = Document::parse(&text);
        let expected = tree::build(&doc.entries, &NativeSort);
        assert!(!expected.cycle_cuts.is_empty() && !expected.label.iter().all(Option::is_none));
        for piece in [1, 2, 7, 33, 1 << 20] {
            let idx = index(text.as_bytes(), piece);
            assert!(idx.is_current());
            assert_eq!(idx.len(), doc.entries.len(), "pieces of {piece}");
            assert_eq!(idx.tree(&NativeSort), expected, "pieces of {piece}");
            for i in 0..idx.len() {
                let r = idx.range(i);
                let line = &text[r.start as usize..r.end as usize];
                assert_eq!(line.trim_end(), doc.spans[i].of(&text), "entry {i}");
                assert_eq!(idx.entry_id(i), doc.entries[i].id, "entry {i}");
            }
        }
    }

    #[test]
    fn previews_come_from_the_index_pass_whatever_the_pieces() {
        let long = format!("{{\"type\":\"message\",\"id\":\"a1b2c3d4\",\"parentId\":null,\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n", "é \\n🙂".repeat(900));
        let text = [
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".to_owned(),
            e("\"x\"", "null", 1),
            long,
            "[1,{\"type\":2}]\n{broken\n\"s\"\n".into(),
            e("\"y\"", "\"x\"", 2),
        ]
        .concat();
        let fields = preview::Fields::new(["type", "id", "message.content", "message.none"]);
        let doc = Document::parse(&text);
        let mut expected = String::from("[");
        for (i, span) in doc.spans.iter().enumerate() {
            let line = span.of(&text);
            let value = crate::json::parse(line, crate::json::Span::new(0, line.len())).unwrap();
            if i > 0 {
                expected.push(',');
            }
            preview::write(line, &value, &fields, &mut expected);
        }
        expected.push(']');
        assert!(
            expected.len() < text.len() / 2,
            "the long text is cut: {expected}"
        );
        for piece in [1, 5, 64, 1 << 20] {
            let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
                Ok::<(), ()>(())
            };
            let (idx, previews) = Index::read_with_preview(
                text.len() as u64,
                piece,
                &mut read,
                &IsoOnly,
                Some(&fields),
                usize::MAX,
            )
            .unwrap();
            assert_eq!(idx.len(), doc.entries.len());
            assert_eq!(previews, [expected.clone()], "pieces of {piece}");
            // Cut into texts of a few entries each: every text is a JSON
            // array, and together they hold the same previews in order.
            let (_, parts) = Index::read_with_preview(
                text.len() as u64,
                piece,
                &mut read,
                &IsoOnly,
                Some(&fields),
                100,
            )
            .unwrap();
            assert!(parts.len() > 1, "cut into parts: {parts:?}");
            let mut joined = Vec::new();
            for part in &parts {
                let values: Vec<serde_json::Value> = serde_json::from_str(part).unwrap();
                assert!(!values.is_empty(), "{part}");
                joined.extend(values);
            }
            let whole: Vec<serde_json::Value> = serde_json::from_str(&expected).unwrap();
            assert_eq!(joined, whole, "pieces of {piece}");
        }
        assert_eq!(index(text.as_bytes(), 7).len(), doc.entries.len());
    }

    /// A text of previews ends once it passes `part` bytes, not before: each
    /// text but the last is the first that is longer than `part` (without its
    /// closing `]`), and none was long enough before its last preview.
    #[test]
    fn a_text_of_previews_ends_once_it_passes_the_part() {
        let e = |id: &str, content: &str| {
            format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":null,\"message\":{{\"role\":\"user\",\"content\":\"{content}\"}}}}\n")
        };
        let mut text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".to_owned();
        for i in 0..12 {
            text.push_str(&e(&format!("e{i}"), &"ab".repeat(i)));
        }
        let fields = preview::Fields::new(["id", "message.content"]);
        let doc = Document::parse(&text);
        let each: Vec<String> = doc
            .spans
            .iter()
            .map(|span| {
                let line = span.of(&text);
                let value =
                    crate::json::parse(line, crate::json::Span::new(0, line.len())).unwrap();
                let mut one = String::new();
                preview::write(line, &value, &fields, &mut one);
                one
            })
            .collect();
        // Every length a text of the first previews can have, where a cut one
        // byte early or late would show.
        let mut bounds = Vec::new();
        let mut open = String::from("[");
        for p in &each {
            if open.len() > 1 {
                open.push(',');
            }
            open.push_str(p);
            bounds.push(open.len());
        }
        for part in bounds.iter().flat_map(|&b| [b - 1, b, b + 1]) {
            let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
                Ok::<(), ()>(())
            };
            let (_, parts) = Index::read_with_preview(
                text.len() as u64,
                1 << 20,
                &mut read,
                &IsoOnly,
                Some(&fields),
                part,
            )
            .unwrap();
            let mut next = 0;
            for (k, got) in parts.iter().enumerate() {
                let n = serde_json::from_str::<Vec<serde_json::Value>>(got)
                    .unwrap()
                    .len();
                let mine = &each[next..next + n];
                next += n;
                assert_eq!(*got, format!("[{}]", mine.join(",")), "part {part}");
                let before_last = 1 + mine[..n - 1].iter().map(|p| p.len() + 1).sum::<usize>();
                let before_last = before_last - usize::from(n > 1);
                assert!(
                    before_last <= part || n == 1,
                    "part {part}: cut late at text {k}"
                );
                if k + 1 < parts.len() {
                    assert!(got.len() - 1 > part, "part {part}: text {k} cut early");
                }
            }
            assert_eq!(next, each.len(), "part {part}");
        }
    }

    /// With a [`preview::Picked`], the pass also hands over texts of lines,
    /// entry `i`'s the `i`th line of them all: its picked preview or an
    /// empty line; each text ends once it passes `part` bytes, with a whole
    /// line.
    #[test]
    fn picked_previews_come_as_a_line_per_entry() {
        let e = |id: &str, role: &str, content: &str| {
            format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":null,\"message\":{{\"role\":\"{role}\",\"content\":\"{content}\"}}}}\n")
        };
        let mut text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".to_owned();
        let mut expected = vec![String::new()];
        for i in 0..9 {
            let role = ["user", "toolResult", "assistant"][i % 3];
            text.push_str(&e(&format!("e{i}"), role, &"ab".repeat(i)));
            expected.push(if role == "toolResult" {
                String::new()
            } else {
                format!("{{\"message\":{{\"content\":\"{}\"}}}}", "ab".repeat(i))
            });
        }
        text.push_str("{broken\n");
        let fields = preview::Fields::new(["id"]);
        let picked = preview::Picked::new(
            preview::Fields::new(["message.content"]),
            [("message.role", vec!["user", "assistant"])],
        );
        for (piece, part) in [(1, 0), (7, 30), (1 << 20, 30), (1 << 20, usize::MAX)] {
            let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
                Ok::<(), ()>(())
            };
            let wanted = preview::Wanted {
                fields: Some(&fields),
                picked: Some(&picked),
                part,
            };
            let (mut previews, mut lines) = (Vec::new(), Vec::new());
            let idx = Index::read_with_preview_to(
                text.len() as u64,
                piece,
                &mut read,
                &IsoOnly,
                &wanted,
                &mut |p| match p {
                    preview::Part::Previews(p) => previews.push(p),
                    preview::Part::Picked(p) => lines.push(p),
                },
            )
            .unwrap();
            assert_eq!(idx.len(), expected.len());
            let got: Vec<&str> = lines
                .iter()
                .flat_map(|part| {
                    assert!(part.is_empty() || part.ends_with('\n'), "{part:?}");
                    part.split_terminator('\n')
                })
                .collect();
            assert_eq!(got, expected, "pieces of {piece}, parts of {part}");
            for (k, l) in lines.iter().enumerate() {
                if k + 1 < lines.len() {
                    let before_last = l[..l.len() - 1].rfind('\n').map_or(0, |n| n + 1);
                    assert!(l.len() > part && before_last <= part, "part {part}: {l:?}");
                }
            }
            if part == usize::MAX {
                assert_eq!(lines.len(), 1);
            }
            let previews: Vec<serde_json::Value> = previews
                .iter()
                .flat_map(|p| serde_json::from_str::<Vec<serde_json::Value>>(p).unwrap())
                .collect();
            assert_eq!(previews.len(), expected.len());
        }
        // Without a Picked, no line is handed over.
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let mut parts = 0;
        Index::read_with_preview_to(
            text.len() as u64,
            64,
            &mut read,
            &IsoOnly,
            &preview::Wanted::default(),
            &mut |_| parts += 1,
        )
        .unwrap();
        assert_eq!(parts, 0);
    }

    #[test]
    fn old_files_are_not_current() {
        for old in [
            "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\"}\n",
            "{\"type\":\"session\",\"version\":2}\n",
            "{\"type\":\"message\"}\n{\"type\":\"session\",\"version\":3}\n",
            "",
        ] {
            let doc = Document::parse(old);
            assert_eq!(
                index(old.as_bytes(), 3).is_current(),
                migrate::is_current(&doc.entries),
                "{old:?}"
            );
        }
    }

    #[test]
    fn ids_pack_and_come_back() {
        let mut idx = index(b"", 1);
        for key in [
            Key::Undefined,
            Key::Null,
            Key::from("0a1b2c3d"),
            Key::Str("0A1B2C3D".into()),
            Key::from("ffffffff"),
            Key::Str("".into()),
            Key::number(1.0),
            Key::Bool(false),
            Key::Utf16(vec![0xd800].into()),
        ] {
            let id = idx.id_of(key.clone());
            assert_eq!(idx.key(id), key);
            assert_eq!(idx.id_of(key), id);
        }
        assert_ne!(idx.id_of(Key::Unique(1)), idx.id_of(Key::Unique(2)));
    }
}

#[cfg(test)]
mod mutant_tests;
