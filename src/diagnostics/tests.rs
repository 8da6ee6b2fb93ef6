//! `inspect`'s checks on hand-built sessions.

use super::*;

pub(super) fn kinds(text: &str) -> Vec<(&'static str, Option<usize>)> {
    inspect(&Document::parse(text), false)
        .iter()
        .map(|d| (d.problem.as_str(), d.line))
        .collect()
}

fn e(id: &str, parent: &str) -> String {
    format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"user\"}}}}\n")
}
const HEADER: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";

#[test]
fn a_clean_file_has_nothing_to_say() {
    assert!(kinds(&[HEADER, &e("a", "null"), &e("b", "\"a\"")].concat()).is_empty());
}

#[test]
fn line_level_problems() {
    let text = format!(
        "\u{feff}{HEADER}\n{}not json\n42\n{{\"type\":\"message\",\"id\":\"c\",\"parentId\":\"a\"",
        e("a", "null")
    );
    assert_eq!(
        kinds(&text),
        [
            ("bom", Some(1)),
            ("blank-line", Some(2)),
            ("malformed-line", Some(4)),
            ("not-an-object", Some(5)),
            ("malformed-line", Some(6)),
            ("truncated-last-line", Some(6)),
        ]
    );
}

#[test]
fn falsy_lines_are_not_objects_and_no_entries() {
    let text = format!("null\n{HEADER}0\n{}\"\"\nfalse\n", e("a", "null"));
    assert_eq!(
        kinds(&text),
        [
            ("not-an-object", Some(1)),
            ("not-an-object", Some(3)),
            ("not-an-object", Some(5)),
            ("not-an-object", Some(6)),
        ]
    );
    let found = inspect(&Document::parse(&text), false);
    assert!(
        found[0].message.starts_with("line 1 is null,"),
        "{}",
        found[0].message
    );
}

#[test]
fn tree_problems() {
    let text = [
        &e("a", "null"),
        HEADER,
        HEADER,
        &e("a", "null"),
        &e("o", "\"gone\""),
        &e("s", "\"s\""),
        &e("x", "\"y\""),
        &e("y", "\"x\""),
        "{\"type\":\"label\",\"id\":\"l\",\"parentId\":\"a\",\"targetId\":\"nope\",\"label\":\"t\"}\n",
        "{\"type\":\"branch_summary\",\"id\":\"b\",\"parentId\":\"a\",\"fromId\":\"zz\",\"summary\":\"s\"}\n",
        "{\"type\":\"branch_summary\",\"id\":\"r\",\"parentId\":null,\"fromId\":\"root\",\"summary\":\"s\"}\n",
        "{\"type\":\"compaction\",\"id\":\"k\",\"parentId\":\"a\",\"firstKeptEntryId\":\"o\",\"summary\":\"s\"}\n",
        "{\"type\":\"compaction\",\"id\":\"k2\",\"parentId\":\"a\",\"firstKeptEntryId\":\"gone\",\"summary\":\"s\"}\n",
        "{\"type\":\"weird\",\"id\":\"w\",\"parentId\":\"a\"}\n",
        "{\"type\":\"message\",\"parentId\":\"a\"}\n",
    ]
    .concat();
    let found = kinds(&text);
    let expect = [
        ("before-header", Some(1)),
        ("misplaced-header", Some(2)),
        ("duplicate-header", Some(3)),
        ("duplicate-id", Some(4)),
        ("orphan", Some(5)),
        ("self-parent", Some(6)),
        ("cycle", Some(8)),
        ("missing-label-target", Some(9)),
        ("missing-branch-source", Some(10)),
        ("kept-entry-off-path", Some(12)),
        ("missing-first-kept-entry", Some(13)),
        ("unknown-entry-type", Some(14)),
        ("missing-id", Some(15)),
    ];
    for x in expect {
        assert!(found.contains(&x), "{x:?} not in {found:?}");
    }
    assert_eq!(found.len(), expect.len(), "{found:?}");
}

/// A string with a lone surrogate escape is a string to JS, so an id, a
/// source or a kept entry: a clean entry says nothing, and the checks on
/// strings run on it as on any other.
#[test]
fn lone_surrogate_ids_are_strings() {
    let clean = [HEADER, &e("a\\ud800", "null"), &e("b", "\"a\\ud800\"")].concat();
    assert_eq!(kinds(&clean), []);
    let text = [
        HEADER,
        &e("a\\ud800", "null"),
        &e("a\\ud800", "null"),
        "{\"type\":\"branch_summary\",\"id\":\"b\",\"parentId\":null,\"fromId\":\"gone\\udc00\",\"summary\":\"s\"}\n",
        "{\"type\":\"compaction\",\"id\":\"k\",\"parentId\":null,\"firstKeptEntryId\":\"gone\\udc00\",\"summary\":\"s\"}\n",
    ]
    .concat();
    assert_eq!(
        kinds(&text),
        [
            ("duplicate-id", Some(3)),
            ("missing-branch-source", Some(4)),
            ("missing-first-kept-entry", Some(5)),
        ]
    );
}

/// A line of a v3 session: `{"type":ty,"id":id,"parentId":parent, rest}`.
pub(super) fn line(ty: &str, id: &str, parent: &str, rest: &str) -> String {
    format!("{{\"type\":\"{ty}\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-11-20T10:00:00.000Z\"{rest}}}\n")
}

pub(super) fn msg(id: &str, parent: &str, role: &str) -> String {
    line(
        "message",
        id,
        parent,
        &format!(",\"message\":{{\"role\":\"{role}\",\"content\":\"x\",\"timestamp\":1}}"),
    )
}

#[test]
fn the_eleven_entry_types_are_known() {
    let usage =
        ",\"kind\":\"cache_warm\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":0}";
    let text = [
        HEADER,
        &msg("s1", "null", "system"),
        &msg("u1", "\"s1\"", "user"),
        &line("usage", "g1", "\"u1\"", usage),
        &line("context_edit", "e1", "\"g1\"", ",\"targetId\":\"u1\",\"replacement\":null"),
        &line(
            "context_edit",
            "e2",
            "\"e1\"",
            ",\"targetId\":\"u1\",\"replacement\":{\"content\":[{\"type\":\"text\",\"text\":\"y\"}]}",
        ),
    ]
    .concat();
    assert_eq!(kinds(&text), []);
}

#[test]
fn context_edit_problems() {
    let edit = |id: &str, parent: &str, target: &str, replacement: &str| {
        let replacement = if replacement.is_empty() {
            String::new()
        } else {
            format!(",\"replacement\":{replacement}")
        };
        line(
            "context_edit",
            id,
            parent,
            &format!(",\"targetId\":\"{target}\"{replacement}"),
        )
    };
    let text = [
        HEADER,
        &msg("s1", "null", "system"),                        // 2
        &msg("u1", "\"s1\"", "user"),                        // 3
        &msg("a1", "\"u1\"", "assistant"),                   // 4
        &msg("b1", "\"u1\"", "bashExecution"),               // 5: a sibling branch of a1
        &msg("t1", "\"a1\"", "toolResult"),                  // 6
        &edit("e1", "\"t1\"", "gone", "null"),               // 7
        &edit("e2", "\"e1\"", "s1", "null"),                 // 8
        &edit("e3", "\"e2\"", "b1", "{\"content\":\"z\"}"),  // 9: off path, and bashExecution
        &edit("e4", "\"e3\"", "u1", ""),                     // 10
        &edit("e5", "\"e4\"", "a1", "{\"content\":5}"),      // 11
        &edit("e6", "\"e5\"", "a1", "\"str\""),              // 12
        &edit("e7", "\"e6\"", "a1", "{}"),                   // 13
        &edit("e8", "\"u1\"", "m1", "{\"content\":\"ok\"}"), // 14: before its target: applies
        &msg("m1", "\"e8\"", "user"),                        // 15
        &edit("e9", "\"m1\"", "e8", "null"),                 // 16: an edit of an edit
    ]
    .concat();
    assert_eq!(
        kinds(&text),
        [
            ("missing-edit-target", Some(7)),
            ("uneditable-edit-target", Some(8)),
            ("uneditable-edit-target", Some(9)),
            ("edit-target-off-path", Some(9)),
            ("invalid-edit-replacement", Some(10)),
            ("invalid-edit-replacement", Some(11)),
            ("invalid-edit-replacement", Some(12)),
            ("invalid-edit-replacement", Some(13)),
            ("uneditable-edit-target", Some(16)),
        ]
    );
    let found = inspect(&Document::parse(&text), false);
    let missing = &found[0];
    assert_eq!(missing.entry_id.as_deref(), Some("e1"));
    assert!(
        missing.message.contains("\"gone\" not found"),
        "{}",
        missing.message
    );
    assert!(
        found[4].message.contains("no replacement"),
        "{}",
        found[4].message
    );
}

#[test]
fn system_messages_a_compaction_without_checkpoint_drops() {
    let compaction = |id: &str, parent: &str, kept: &str, checkpoint: bool| {
        let sys = if checkpoint {
            ",\"systemMessage\":{\"role\":\"system\",\"content\":\"CKPT\",\"timestamp\":5}"
        } else {
            ""
        };
        line(
            "compaction",
            id,
            parent,
            &format!(",\"summary\":\"s\",\"firstKeptEntryId\":\"{kept}\",\"tokensBefore\":1{sys}"),
        )
    };
    let text = [
        HEADER,
        &msg("s0", "null", "system"), // 2: summarized, not in a kept range
        &msg("u1", "\"s0\"", "user"), // 3
        &msg("s1", "\"u1\"", "system"), // 4
        &msg("s2", "\"s1\"", "system"), // 5
        &compaction("c1", "\"s2\"", "u1", false), // 6: loses s1 and s2
        &compaction("c2", "\"s2\"", "u1", true), // 7: has a checkpoint
        &compaction("c3", "\"s2\"", "s1", false), // 8: the kept entry is a system message
        &compaction("c4", "\"s2\"", "c4", false), // 9: retains nothing
        &msg("s3", "\"c1\"", "system"), // 10: after the compaction: kept
        &compaction("c5", "\"s3\"", "s3", false), // 11
        &compaction("c6", "\"u1\"", "u1", false), // 12: no system message in range
    ]
    .concat();
    let found = inspect(&Document::parse(&text), false);
    let got: Vec<_> = found
        .iter()
        .map(|d| {
            (
                d.problem.as_str(),
                d.line,
                d.message.split(" system").next().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("lost-system-messages", Some(6), "line 6: 2"),
            ("lost-system-messages", Some(8), "line 8: 2"),
            ("lost-system-messages", Some(11), "line 11: 1"),
        ]
    );
    assert_eq!(found[0].entry_id.as_deref(), Some("c1"));
}

#[test]
fn header_problems() {
    assert_eq!(kinds(&e("a", "null")), [("missing-header", Some(1))]);
    assert_eq!(
        kinds("{\"type\":\"session\",\"version\":7}\n"),
        [("unknown-version", Some(1))]
    );
    // v1: no ids expected; a kept index pointing nowhere is reported.
    let v1 = "{\"type\":\"session\"}\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":0}\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":1}\n";
    assert_eq!(kinds(v1), [("missing-first-kept-entry", Some(2))]);
}

#[test]
fn lines_before_the_header_are_reported_once_each() {
    let title = "{\"type\":\"title\",\"v\":1,\"title\":\"T\",\"pad\":\"  \"}\n";
    // oh-my-pi's title: one report for the line, none of the checks of an entry.
    assert_eq!(
        kinds(&[title, HEADER, &e("a", "null")].concat()),
        [("before-header", Some(1)), ("misplaced-header", Some(2))]
    );
    let found = inspect(&Document::parse(&[title, HEADER].concat()), false);
    assert_eq!(
        found[0].message,
        "line 1 comes before the session header on line 2 (as oh-my-pi's title line does); it is kept, and read as an entry"
    );
    // An entry of pi's kinds there is still checked as an entry.
    assert_eq!(
        kinds(&[title, &e("a", "\"gone\""), HEADER].concat()),
        [
            ("before-header", Some(1)),
            ("before-header", Some(2)),
            ("orphan", Some(2)),
            ("misplaced-header", Some(3)),
        ]
    );
    // Without a header (so version 1, no ids expected), a title is just a
    // line of no known type.
    assert_eq!(
        kinds(&[title, &e("a", "null")].concat()),
        [("missing-header", Some(1)), ("unknown-entry-type", Some(1))]
    );
}

/// `inspect` of `bytes` read whole (decoded as `TextDecoder` does) and read
/// in pieces of every size given: the same diagnostics, line numbers included.
fn same_in_pieces(bytes: &[u8], pieces: &[usize]) {
    let text = crate::parse::decode(bytes);
    let lossy = matches!(text, std::borrow::Cow::Owned(_));
    let expected = inspect(&Document::parse(&text), lossy);
    for &piece in pieces {
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&bytes[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let got =
            inspect_in_pieces(bytes.len() as u64, piece, &mut read, &crate::time::IsoOnly).unwrap();
        assert_eq!(got, expected, "{text:?} in pieces of {piece}");
    }
}

#[test]
fn in_pieces_the_diagnostics_are_the_whole_texts() {
    let texts: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\n".to_vec(),
        b" \n\r\n \xc2\xa0".to_vec(),
        format!(
            "\u{feff}{HEADER}\n{}not json\n42\nnull\n\n{{\"type\":\"message\",\"id\":\"c\",\"parentId\":\"a\"",
            e("a", "null")
        )
        .into_bytes(),
        format!("\n\n{}{HEADER}{}{}\n \n", e("a", "null"), e("a", "\"zz\""), e("b", "\"b\"")).into_bytes(),
        format!("{HEADER}{}{{\"type\":\"compaction\",\"id\":\"k\",\"parentId\":\"a\",\"firstKeptEntryId\":\"q\"}}\n[1]\n\"s\"\n", e("a", "null")).into_bytes(),
        // v1, with a kept entry index
        b"{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\"}\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":5}\n".to_vec(),
        // invalid UTF-8 in an entry, in a malformed line, and torn at the end
        b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"\xff\",\"parentId\":null}\n\xf0\x9f x\n{\"a\":\"\xc3".to_vec(),
        // a malformed line that is not the last, without a final newline after it
        format!("{HEADER}{{bad\n{}", e("a", "null").trim_end()).into_bytes(),
        format!("{HEADER}{{\"é\":\"{}\" bad\n", "ü".repeat(500)).into_bytes(),
    ];
    for bytes in &texts {
        same_in_pieces(bytes, &[1, 2, 3, 5, 7, 64, 4096, 1 << 20]);
    }
}
