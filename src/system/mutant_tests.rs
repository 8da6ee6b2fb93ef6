//! Tests written against mutants of `system` that `cargo test` did not catch
//! (README, "Mutation testing"). The expected results are pi-ai 1.6.0's
//! `getCurrentSystemMessage` on the same messages, run in Node.

use super::tests::replay_lines;

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
