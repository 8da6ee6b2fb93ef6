//! Tests written against mutants of `diagnostics` that no test caught
//! (docs/mutation-log.md). Each case is a session whose problems
//! follow from pi 1.6.0's rules (PI-CURRENT.md): which versions it migrates,
//! which entries its context walk reaches, which ids its maps find.

use super::*;

use super::tests::{kinds as found, line, msg};

fn compaction(id: &str, parent: &str, kept: &str) -> String {
    line(
        "compaction",
        id,
        parent,
        &format!(",\"summary\":\"s\",\"firstKeptEntryId\":\"{kept}\",\"tokensBefore\":1"),
    )
}

const V3: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";

#[test]
fn an_empty_file_has_no_entries_to_miss_a_header() {
    assert_eq!(found(""), []);
    // Blank lines are reported as such, and are no entries either.
    assert_eq!(
        found("\n \n"),
        [("blank-line", Some(1)), ("blank-line", Some(2))]
    );
}

#[test]
fn the_three_versions_pi_reads_are_known_and_no_other() {
    // pi migrates versions 1 and 2 and reads 3; anything else is unknown.
    for v in ["1", "2", "3", "1.0", "3e0"] {
        let text = format!("{{\"type\":\"session\",\"version\":{v},\"id\":\"s\"}}\n");
        assert_eq!(found(&text), [], "version {v}");
    }
    for v in ["0", "4", "2.5", "-3"] {
        let text = format!("{{\"type\":\"session\",\"version\":{v},\"id\":\"s\"}}\n");
        assert_eq!(found(&text), [("unknown-version", Some(1))], "version {v}");
    }
}

#[test]
fn a_v2_compaction_is_checked_by_its_kept_id() {
    // Version 2 has ids (pi's v1-to-v2 step added them): the kept entry is
    // named by `firstKeptEntryId`, and one that names nothing is reported.
    let text = [
        "{\"type\":\"session\",\"version\":2,\"id\":\"s\"}\n",
        &msg("u", "null", "user"),
        &compaction("c", "\"u\"", "gone"),
        &compaction("d", "\"c\"", "u"),
    ]
    .concat();
    assert_eq!(found(&text), [("missing-first-kept-entry", Some(3))]);
}

#[test]
fn a_label_of_an_entry_that_is_there_is_fine() {
    let label = |id: &str, target: &str| {
        line(
            "label",
            id,
            "\"u\"",
            &format!(",\"targetId\":\"{target}\",\"label\":\"x\""),
        )
    };
    let text = [
        V3,
        &msg("u", "null", "user"),
        &label("l1", "u"),
        &label("l2", "l1"),
    ]
    .concat();
    assert_eq!(found(&text), []);
    let text = [V3, &msg("u", "null", "user"), &label("l1", "nope")].concat();
    assert_eq!(found(&text), [("missing-label-target", Some(3))]);
}

#[test]
fn a_v1_kept_index_must_be_a_whole_index_of_an_entry() {
    // v1 compactions name the kept entry by its index in the file's entries
    // (the header is index 0); the entries here are indexes 0 to 3.
    let text = |index: &str| {
        format!(
            "{{\"type\":\"session\"}}\n{{\"type\":\"message\",\"message\":{{\"role\":\"user\"}}}}\n{{\"type\":\"message\",\"message\":{{\"role\":\"user\"}}}}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":{index}}}\n"
        )
    };
    for ok in ["1", "2", "3", "2.0"] {
        assert_eq!(found(&text(ok)), [], "index {ok}");
    }
    for bad in ["0", "1.5", "4", "9", "-1", "-0.5", "1e300"] {
        assert_eq!(
            found(&text(bad)),
            [("missing-first-kept-entry", Some(4))],
            "index {bad}"
        );
    }
    let d = &inspect(&Document::parse(&text("1.5")), false)[0];
    assert_eq!(d.message, "line 4: firstKeptEntryIndex 1.5 names no entry");
}

#[test]
fn a_kept_entry_on_a_sibling_branch_is_off_the_path() {
    // u → x and u → c: the compaction c keeps x, which its context walk from
    // c (c, u) never reaches, however the tree orders the siblings.
    for (first, second) in [
        (msg("x", "\"u\"", "user"), compaction("c", "\"u\"", "x")),
        (compaction("c", "\"u\"", "x"), msg("x", "\"u\"", "user")),
    ] {
        let text = [V3, &msg("u", "null", "user"), &first, &second].concat();
        let at = if first.contains("\"c\"") { 3 } else { 4 };
        assert_eq!(found(&text), [("kept-entry-off-path", Some(at))], "{text}");
    }
    // A kept entry at the end of an earlier root's subtree, too.
    let text = [
        V3,
        &msg("r1", "null", "user"),
        &msg("r1a", "\"r1\"", "user"),
        &msg("r2", "null", "user"),
        &compaction("c", "\"r2\"", "r1a"),
    ]
    .concat();
    assert_eq!(found(&text), [("kept-entry-off-path", Some(5))]);
}

#[test]
fn an_off_path_kept_entry_loses_no_system_message() {
    // The kept entry x is on another branch, under two system messages; the
    // compaction's own path has none. pi keeps nothing before the compaction
    // (nothing is "kept"), so no system message of a kept range is lost.
    let text = [
        V3,
        &msg("s0", "null", "system"),
        &msg("s1", "\"s0\"", "system"),
        &msg("x", "\"s1\"", "user"),
        &msg("u", "null", "user"),
        &compaction("c", "\"u\"", "x"),
    ]
    .concat();
    assert_eq!(found(&text), [("kept-entry-off-path", Some(6))]);
}

#[test]
fn one_lost_system_message_is_said_in_the_singular() {
    let text = [
        V3,
        &msg("u", "null", "user"),
        &msg("s1", "\"u\"", "system"),
        &compaction("c1", "\"s1\"", "u"),
        &msg("s2", "\"c1\"", "system"),
        &compaction("c2", "\"s2\"", "c1"),
    ]
    .concat();
    let messages: Vec<String> = inspect(&Document::parse(&text), false)
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert_eq!(
        messages,
        [
            "line 4: 1 system message between the kept entry \"u\" and the compaction leave the context, and the compaction has no systemMessage checkpoint to keep the prompt",
            "line 6: 1 system message between the kept entry \"c1\" and the compaction leave the context, and the compaction has no systemMessage checkpoint to keep the prompt",
        ]
    );
}

#[test]
fn a_custom_message_is_an_edit_target_pi_accepts() {
    // pi's appendContextEdit lets an edit change a custom_message's content.
    let text = [
        V3,
        &line(
            "custom_message",
            "m",
            "null",
            ",\"customType\":\"x\",\"content\":\"c\",\"display\":true",
        ),
        &line(
            "context_edit",
            "e",
            "\"m\"",
            ",\"targetId\":\"m\",\"replacement\":null",
        ),
    ]
    .concat();
    assert_eq!(found(&text), []);
}

#[test]
fn ids_in_messages_are_written_as_js_writes_them() {
    // A parentId that is not a string names no entry; the message shows it
    // as JS would.
    let cases = [
        ("5", "parent 5 not found"),
        ("1.5", "parent 1.5 not found"),
        ("true", "parent true not found"),
        ("{}", "parent (an object) not found"),
        (
            "\"\\ud800\"",
            "parent (a string with a lone surrogate) not found",
        ),
    ];
    for (parent, says) in cases {
        let text = [V3, &msg("a", parent, "user")].concat();
        let d = inspect(&Document::parse(&text), false);
        assert_eq!(d.len(), 1, "{parent}");
        assert_eq!(d[0].message, format!("line 2: {says}; it becomes a root"));
    }
}
