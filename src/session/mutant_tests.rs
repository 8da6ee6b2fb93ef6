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
