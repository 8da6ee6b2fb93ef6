//! Tests written against mutants of `entry` (docs/mutation-log.md).
//! Type and role names are pi's (PI-CURRENT.md); numbers and truthiness are
//! JS's, computed in Node 20 (`Number(s)`, `!!v`, `JSON.stringify(v)`) and
//! written here as literals.

use super::*;
use crate::time::IsoOnly;

fn entry(s: &str) -> Entry {
    let v = json::parse(s, Span::new(0, s.len())).unwrap();
    Entry::from_json(s, &v, Some(&IsoOnly), &mut 0)
}

#[test]
fn strings_read_as_js_number_reads_them() {
    // `Number(s)` in Node.
    for (s, n) in [
        ("0x1f", 31.0),
        ("0X1F", 31.0),
        ("0o17", 15.0),
        ("0O17", 15.0),
        ("0b101", 5.0),
        ("0B11", 3.0),
        ("Infinity", f64::INFINITY),
        ("+Infinity", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        (".5", 0.5),
        ("5.", 5.0),
        (" 12 ", 12.0),
        ("\u{a0}12\u{2028}", 12.0),
        ("+5", 5.0),
        ("-5", -5.0),
        ("1e3", 1000.0),
        ("1e+3", 1000.0),
        ("1E-3", 0.001),
        ("1.5e2", 150.0),
        ("007", 7.0),
        ("+.5", 0.5),
        ("-.5e1", -5.0),
        ("  ", 0.0),
        ("", 0.0),
    ] {
        assert_eq!(string_to_number(s), n, "{s:?}");
    }
    for s in [
        "0x", "0xg", "0o8", "0b2", "0b", "0o", "infinity", ".", "1 2", "--5", "+-5", "1e", "1.5e+",
        "e3", "-0x10", "12abc", "1_000",
    ] {
        assert!(string_to_number(s).is_nan(), "{s:?}");
    }
}

#[test]
fn versions_in_arrays_read_as_their_string() {
    // `Number(String(a))` in Node.
    let v = |s: &str| {
        let text = format!("{{\"version\":{s}}}");
        let value = json::parse(&text, Span::new(0, text.len())).unwrap();
        version_number(&text, &value.members[0])
    };
    for (a, n) in [
        ("[\" 3 \"]", 3.0),
        ("[ 3 ]", 3.0),
        ("[\n3.5\t]", 3.5),
        ("[-2]", -2.0),
        ("[null]", 0.0),
        ("[[]]", 0.0),
        ("[ ]", 0.0),
        ("false", 0.0),
    ] {
        assert_eq!(v(a), Some(n), "{a}");
    }
    for a in ["[\"x\"]", "[false]", "[{}]", "[1, 2]"] {
        assert!(v(a).is_some_and(f64::is_nan), "{a}");
    }
    // A missing version is no version (pi reads it as 1 later).
    assert_eq!(
        entry(r#"{"type":"session"}"#).detail,
        Detail::Header {
            version: Box::new(None)
        }
    );
}

#[test]
fn every_type_and_role_name_of_pi() {
    for (name, ty) in [
        ("session", EntryType::Session),
        ("message", EntryType::Message),
        ("thinking_level_change", EntryType::ThinkingLevelChange),
        ("model_change", EntryType::ModelChange),
        ("compaction", EntryType::Compaction),
        ("branch_summary", EntryType::BranchSummary),
        ("custom", EntryType::Custom),
        ("custom_message", EntryType::CustomMessage),
        ("label", EntryType::Label),
        ("session_info", EntryType::SessionInfo),
        ("usage", EntryType::Usage),
        ("context_edit", EntryType::ContextEdit),
        ("Session", EntryType::Other),
        ("", EntryType::Other),
    ] {
        assert_eq!(EntryType::from_name(name), ty, "{name}");
        let e = entry(&format!("{{\"type\":\"{name}\"}}"));
        assert_eq!(e.kind(), ty, "{name}");
        assert_eq!(e.is_header(), name == "session", "{name}");
    }
    for (name, role) in [
        ("user", Role::User),
        ("assistant", Role::Assistant),
        ("toolResult", Role::ToolResult),
        ("system", Role::System),
        ("custom", Role::Custom),
        ("hookMessage", Role::HookMessage),
        ("bashExecution", Role::Other),
        ("User", Role::Other),
    ] {
        assert_eq!(Role::from_name(name), role, "{name}");
    }
    // A `type` or `role` that is not a string names nothing.
    assert_eq!(entry(r#"{"type":["message"]}"#).kind(), EntryType::Other);
    assert_eq!(
        entry(r#"{"type":"message","message":{"role":["user"],"content":"x"}}"#).detail,
        Detail::Message {
            role: Role::Other,
            content: Content::Text
        }
    );
}

#[test]
fn content_kinds_and_what_counts_as_nullish() {
    assert_eq!(Content::of_kind(None), Content::Missing);
    assert_eq!(Content::of_kind(Some(Kind::Null)), Content::Null);
    assert_eq!(Content::of_kind(Some(Kind::String)), Content::Text);
    assert_eq!(Content::of_kind(Some(Kind::Array)), Content::Blocks);
    for k in [Kind::Number, Kind::True, Kind::False, Kind::Object] {
        assert_eq!(Content::of_kind(Some(k)), Content::Other);
    }
    // pi 1.6 normalizes `content ?? …`: only null and undefined.
    assert!(Content::Missing.is_nullish() && Content::Null.is_nullish());
    for c in [Content::Text, Content::Blocks, Content::Other] {
        assert!(!c.is_nullish(), "{c:?}");
    }
    // What pi writes as a replacement: null, or content a string or blocks.
    for (r, valid) in [
        (Replacement::Null, true),
        (Replacement::Object(Content::Text), true),
        (Replacement::Object(Content::Blocks), true),
        (Replacement::Missing, false),
        (Replacement::NotObject, false),
        (Replacement::Object(Content::Missing), false),
        (Replacement::Object(Content::Null), false),
    ] {
        assert_eq!(r.is_valid(), valid, "{r:?}");
    }
    // The last `content` of a replacement is the one JSON.parse keeps.
    let e = entry(
        r#"{"type":"context_edit","targetId":"t","replacement":{"content":"s","content":null}}"#,
    );
    assert_eq!(
        e.detail,
        Detail::ContextEdit {
            target_id: Box::new(Key::from("t")),
            replacement: Replacement::Object(Content::Null)
        }
    );
}

#[test]
fn truthiness_and_json_of_keys_as_js() {
    // `!!v` in JS.
    for (k, t) in [
        (Key::Undefined, false),
        (Key::Null, false),
        (Key::Bool(true), true),
        (Key::Bool(false), false),
        (Key::number(0.0), false),
        (Key::number(-0.0), false),
        (Key::number(f64::NAN), false),
        (Key::number(2.0), true),
        (Key::number(-1.0), true),
        (Key::from(""), false),
        (Key::from("0"), true),
        (Key::Utf16(vec![0xd800].into()), true),
        (Key::Utf16(Vec::new().into()), false),
        (Key::Unique(1), true),
    ] {
        assert_eq!(k.truthy(), t, "{k:?}");
    }
    // `JSON.stringify(v)` in JS (undefined and objects as this crate writes
    // them in place of a key: null, and `{}`).
    for (k, j) in [
        (Key::Null, "null"),
        (Key::Bool(true), "true"),
        (Key::Bool(false), "false"),
        (Key::number(1.5), "1.5"),
        (Key::number(f64::INFINITY), "null"),
        (Key::from("a\"b"), r#""a\"b""#),
        (
            Key::Utf16(vec![0x61, 0xd800, 0x0a].into()),
            r#""a\ud800\n""#,
        ),
        (Key::Unique(3), "{}"),
    ] {
        assert_eq!(k.to_json(), j, "{k:?}");
    }
    // `${v}` in JS, as pi's "Entry … not found" writes an id.
    for (k, s) in [
        (Key::Undefined, "undefined"),
        (Key::Null, "null"),
        (Key::Bool(true), "true"),
        (Key::number(-0.0), "0"),
        (Key::number(-2.5), "-2.5"),
        (Key::from("x y"), "x y"),
        (Key::Unique(1), "[object Object]"),
    ] {
        assert_eq!(k.to_string(), s, "{k:?}");
    }
    assert_eq!(Key::from("s").as_str().as_deref(), Some("s"));
    assert_eq!(Key::Null.as_str(), None);
}

#[test]
fn checkpoints_summaries_and_labels_read_their_fields() {
    let e = entry(
        r#"{"type":"compaction","id":"c","firstKeptEntryId":"k","firstKeptEntryIndex":4,"systemMessage":""}"#,
    );
    assert_eq!(
        e.detail,
        Detail::Compaction {
            kept: Box::new(Kept {
                id: Key::from("k"),
                index: Some(4.0),
            }),
            has_system_message: false,
        }
    );
    let e = entry(r#"{"type":"compaction","firstKeptEntryIndex":"4"}"#);
    assert_eq!(
        e.detail,
        Detail::Compaction {
            kept: Box::new(Kept {
                id: Key::Undefined,
                index: None,
            }),
            has_system_message: false,
        }
    );
    let e = entry(r#"{"type":"branch_summary","summary":"s","fromId":"f"}"#);
    assert_eq!(
        e.detail,
        Detail::BranchSummary {
            has_summary: true,
            from_id: Box::new(Key::from("f"))
        }
    );
    let e = entry(r#"{"type":"branch_summary","summary":""}"#);
    assert_eq!(
        e.detail,
        Detail::BranchSummary {
            has_summary: false,
            from_id: Box::new(Key::Undefined)
        }
    );
    let e = entry(r#"{"type":"label","targetId":"t","label":""}"#);
    assert_eq!(
        e.detail,
        Detail::Label {
            target_id: Box::new(Key::from("t")),
            has_label: false
        }
    );
    // Other types keep no details, and a value that is no object no fields.
    assert_eq!(
        entry(r#"{"type":"custom","summary":"s"}"#).detail,
        Detail::Plain(EntryType::Custom)
    );
    for line in ["42", "\"x\"", "true"] {
        let e = entry(line);
        assert!(!e.is_object() && e.kind() == EntryType::Other, "{line}");
        assert_eq!(
            (e.id, e.detail),
            (Key::Undefined, Detail::NotObject),
            "{line}"
        );
    }
    // Without a date parser no time is read.
    let s = r#"{"type":"custom","timestamp":"1970-01-01T00:00:01.000Z"}"#;
    let v = json::parse(s, Span::new(0, s.len())).unwrap();
    assert!(Entry::from_json(s, &v, None, &mut 0).time.is_nan());
    assert_eq!(Entry::from_json(s, &v, Some(&IsoOnly), &mut 0).time, 1000.0);
}

#[test]
fn objects_as_ids_are_each_their_own_key() {
    let mut unique = 0;
    let s = r#"{"id":{},"parentId":[],"targetId":{}}"#;
    let v = json::parse(s, Span::new(0, s.len())).unwrap();
    let a = Entry::from_json(s, &v, None, &mut unique);
    let b = Entry::from_json(s, &v, None, &mut unique);
    assert_ne!(a.id, b.id);
    assert_ne!(a.id, a.parent_id);
    assert_eq!(unique, 4);
}

#[test]
fn later_duplicate_ids_win_the_index() {
    let entries = [
        entry(r#"{"id":"a"}"#),
        entry(r#"{"id":"b"}"#),
        entry(r#"{"id":"a"}"#),
    ];
    let by_id = index_by_id(entries.iter().enumerate());
    assert_eq!(by_id.len(), 2);
    assert_eq!(by_id.get(&Key::from("a")), Some(&2));
    assert_eq!(by_id.get(&Key::from("b")), Some(&1));
}
