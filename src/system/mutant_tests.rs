//! Tests written against mutants of `system` that `cargo test` did not catch
//! (docs/mutation-log.md). The expected results are pi-ai 1.6.0's
//! `getCurrentSystemMessage` on the same messages, run in Node.

use super::tests::replay_lines;
use super::{current, Key};
#[cfg(test)]
use crate::context::{index, plan, Leaf};
#[cfg(test)]
use crate::document::Document;

#[test]
fn text_blocks_join_their_values_as_array_join_does() {
    let got = replay_lines(&[concat!(
        r#"{"role":"system","content":[{"type":"text","text":5},{"type":"text","text":true},"#,
        r#"{"type":"text","text":false},{"type":"text","text":null},{"type":"text","text":{}},"#,
        r#"{"type":"text","text":1e999},{"type":"text","text":-1e999},{"type":"text","text":1.50},"#,
        r#"{"type":"text","text":-0},{"type":"text","text":"s"}],"timestamp":1}"#
    )]);
    assert_eq!(
        got.as_deref(),
        Some(concat!(
            r#"{"role":"system","content":"5\ntrue\nfalse\n\n[object Object]\nInfinity\n"#,
            r#"-Infinity\n1.5\n0\ns","timestamp":1}"#
        ))
    );
}

#[test]
fn array_sections_are_entries_by_index() {
    let got = replay_lines(&[
        r#"{"role":"system","content":"","sections":["A","B"],"timestamp":1}"#,
        r#"{"role":"system","content":"","sections":[null,"C","D"]}"#,
    ]);
    assert_eq!(
        got.as_deref(),
        Some(r#"{"role":"system","content":"","sections":{"1":"C","2":"D"},"timestamp":1}"#)
    );
}

#[test]
fn tools_without_a_name_share_the_undefined_name() {
    let got = replay_lines(&[
        r#"{"role":"system","content":"","toolsAdded":["x",{"v":1}]}"#,
        r#"{"role":"system","content":"","toolsAdded":[{"name":"n"},"y"],"timestamp":3}"#,
    ]);
    assert_eq!(
        got.as_deref(),
        Some(r#"{"role":"system","content":"","toolsAdded":["y",{"name":"n"}],"timestamp":3}"#)
    );
}

#[test]
fn the_first_timestamp_that_is_not_null_wins() {
    let got = replay_lines(&[
        r#"{"role":"system","content":"a","timestamp":null}"#,
        r#"{"role":"system","content":"b","timestamp":2}"#,
        r#"{"role":"system","content":"c","timestamp":4}"#,
    ]);
    assert_eq!(
        got.as_deref(),
        Some(r#"{"role":"system","content":"a\n\nb\n\nc","timestamp":2}"#)
    );
}

#[test]
fn the_current_message_replays_the_context_at_a_leaf() {
    // pi 1.6.0: `getCurrentSystemMessage(buildSessionContext(entries, leaf).messages)`.
    let t = r#""timestamp":"2026-01-01T00:00:00.000Z""#;
    let text = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#.to_owned(),
        format!(r#"{{"type":"message","id":"m1","parentId":null,{t},"message":{{"role":"system","sections":{{"a":"A"}},"timestamp":100}}}}"#),
        format!(r#"{{"type":"message","id":"u1","parentId":"m1",{t},"message":{{"role":"user","content":"hi","timestamp":150}}}}"#),
        format!(r#"{{"type":"compaction","id":"c1","parentId":"u1",{t},"summary":"S","firstKeptEntryId":"u1","tokensBefore":9,"systemMessage":{{"role":"system","content":"CKPT","sections":{{"b":"B"}},"toolsAdded":[{{"name":"t"}}],"timestamp":600}}}}"#),
        format!(r#"{{"type":"message","id":"m2","parentId":"c1",{t},"message":{{"role":"system","sections":{{"c":"C"}},"toolsRemoved":[{{"name":"t"}}],"timestamp":700}}}}"#),
        format!(r#"{{"type":"message","id":"m3","parentId":"m2",{t},"message":{{"role":"system","content":"later","timestamp":800}}}}"#),
    ]
    .join("\n");
    let doc = Document::parse(&text);
    let by_id = index(&doc.entries);
    let at = |leaf: &str| {
        let key = Key::Str(leaf.into());
        let p = plan(&doc.entries, &|k| by_id.get(k).copied(), Leaf::Id(&key));
        current(&doc.text, &|i| doc.members(i), &p)
    };
    let expected = [
        (
            "m1",
            r#"{"role":"system","content":"","sections":{"a":"A"},"timestamp":100}"#,
        ),
        (
            "u1",
            r#"{"role":"system","content":"","sections":{"a":"A"},"timestamp":100}"#,
        ),
        (
            "c1",
            r#"{"role":"system","content":"CKPT","sections":{"b":"B"},"toolsAdded":[{"name":"t"}],"timestamp":600}"#,
        ),
        (
            "m2",
            r#"{"role":"system","content":"CKPT","sections":{"b":"B","c":"C"},"timestamp":600}"#,
        ),
        (
            "m3",
            r#"{"role":"system","content":"CKPT\n\nlater","sections":{"b":"B","c":"C"},"timestamp":600}"#,
        ),
    ];
    for (leaf, json) in expected {
        assert_eq!(at(leaf).as_deref(), Some(json), "at {leaf}");
    }
}
