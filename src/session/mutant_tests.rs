//! Tests written against mutants of `session` that `cargo test` did not catch
//! (README, "Mutation testing"), from pi 1.6.0's behaviour.

use super::*;
use crate::time::IsoOnly;

#[test]
fn a_fork_copies_every_entry_but_the_headers() {
    // pi's `forkFrom`: the new header, then `JSON.stringify` of each loaded
    // entry whose type is not "session", in file order.
    let m1 =
        r#"{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"a"}}"#;
    let m2 = r#"{"type":"label","id":"m2","parentId":"m1","targetId":"m1","label":"x"}"#;
    let text = format!(
        "{}\n{m1}\n{}\n{m2}\n",
        r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
        r#"{"type":"session","version":3,"id":"t","cwd":"/t"}"#
    );
    let s = Session::open(text, &IsoOnly).unwrap();
    let header = r#"{"type":"session","version":3,"id":"new","cwd":"/n"}"#;
    assert_eq!(s.forked_jsonl(header), format!("{header}\n{m1}\n{m2}\n"));
}

use super::tests::{k, line, session, user, NOW};

#[test]
fn custom_and_usage_entries_keep_pi_key_order() {
    // pi 1.6.0's appendCustomEntry, appendCustomMessageEntry and appendUsage:
    // the fields in these orders, a missing value (undefined) left out by
    // JSON.stringify, and each entry the child of the one before.
    let mut s = session();
    let u = user(&mut s, "hi");
    let c = s
        .append_custom_entry(Some(r#""ext""#), Some(r#"{"n":1}"#), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(
        line(&s, &c),
        format!(
            r#"{{"type":"custom","customType":"ext","data":{{"n":1}},"id":"{c}","parentId":"{u}","timestamp":"{NOW}"}}"#
        )
    );
    let m = s
        .append_custom_message_entry(
            Some(r#""ext""#),
            Some(r#""text""#),
            Some("true"),
            None,
            NOW,
            &IsoOnly,
        )
        .unwrap();
    assert_eq!(
        line(&s, &m),
        format!(
            r#"{{"type":"custom_message","customType":"ext","content":"text","display":true,"id":"{m}","parentId":"{c}","timestamp":"{NOW}"}}"#
        )
    );
    let usage = r#"{"input":1,"output":2}"#;
    let g = s
        .append_usage(
            Some(r#""compaction""#),
            Some(r#""p""#),
            Some(r#""m""#),
            Some(usage),
            Some(r#""why""#),
            NOW,
            &IsoOnly,
        )
        .unwrap();
    assert_eq!(
        line(&s, &g),
        format!(
            r#"{{"type":"usage","id":"{g}","parentId":"{m}","timestamp":"{NOW}","kind":"compaction","provider":"p","model":"m","usage":{usage},"note":"why"}}"#
        )
    );
    assert_eq!(s.leaf(), s.find(&k(&g)));
    // Four distinct ids: the header has none.
    assert_eq!(s.entry_count(), 4);
}

#[test]
fn a_repeated_id_counts_once() {
    // pi's getEntryCount is the size of its id map.
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
        "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n",
        "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n",
        "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{}}\n",
    );
    assert_eq!(
        Session::open(text.into(), &IsoOnly).unwrap().entry_count(),
        2
    );
}
