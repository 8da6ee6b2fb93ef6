//! Tests written against mutants of `session` that `cargo test` did not catch
//! (docs/mutation-log.md), from pi 1.6.0's behaviour.

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

#[test]
fn errors_say_what_pi_says() {
    // pi 1.6.0's messages (SessionManager's `throw new Error(...)`).
    let said = |e: SessionError| e.to_string();
    assert_eq!(
        said(SessionError::NotFound("zz".into())),
        "Entry zz not found"
    );
    assert_eq!(
        said(SessionError::NotOnBranch("a".into())),
        "Entry a is not on the active branch"
    );
    assert_eq!(
        said(SessionError::NotEditable("s1".into())),
        "Entry s1 does not contribute editable model content"
    );
    assert_eq!(
        said(SessionError::InvalidReplacement),
        "Context edit replacement must be null or contain string/array content"
    );
    assert_eq!(
        said(SessionError::InvalidSessionId),
        crate::ids::INVALID_SESSION_ID
    );
    assert!(said(SessionError::Random("gone".into())).contains("(gone)"));
}

const HEAD: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";

fn message(id: &str, parent: &str, text: &str) -> String {
    format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"{NOW}\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}")
}

#[test]
fn a_torn_last_line_waits_and_the_text_stays_as_given() {
    let a = message("a", "null", "x");
    let b = message("b", "\"a\"", "y");
    let (done, rest) = b.split_at(30);
    let text = format!("{HEAD}{a}\n{done}");
    let mut s = Session::open(text.clone(), &IsoOnly).unwrap();
    assert_eq!(s.text(), text, "the torn line is kept as it is");
    assert_eq!(s.find(&k("b")), None);
    assert_eq!(s.leaf(), s.find(&k("a")));
    s.append_jsonl(format!("{rest}\n").as_bytes(), &IsoOnly);
    assert_eq!(s.text(), format!("{HEAD}{a}\n{b}\n"));
    assert_eq!(s.leaf(), s.find(&k("b")));
    assert_eq!(s.branch_path(s.leaf()).len(), 2);
}

#[test]
fn an_empty_file_gains_lines_from_its_first_byte() {
    let mut s = Session::open(String::new(), &IsoOnly).unwrap();
    assert_eq!(s.text(), "");
    s.append_jsonl(HEAD.as_bytes(), &IsoOnly);
    assert_eq!(s.text(), HEAD);
    let id = user(&mut s, "q");
    assert_eq!(s.text(), format!("{HEAD}{}\n", line(&s, &id)));
}

#[test]
fn a_current_file_is_not_migrated_and_its_header_is_first() {
    let s = Session::open(format!("{HEAD}{}\n", message("a", "null", "x")), &IsoOnly).unwrap();
    assert!(!s.migrated());
    assert_eq!(s.header(), Some(0));
    let old = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n";
    let s = Session::open(old.into(), &IsoOnly).unwrap();
    assert!(s.migrated());
    assert!(
        s.entry_json(0).contains("\"version\":3"),
        "{}",
        s.entry_json(0)
    );
}

#[test]
fn object_ids_never_equal_one_another() {
    // JS compares objects by identity: an object parentId in one line never
    // names an object id of another, however the lines arrive.
    let obj = "{\"type\":\"message\",\"id\":{},\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"o\"}}\n";
    let child = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":{},\"message\":{\"role\":\"user\",\"content\":\"c\"}}\n";
    let text = format!("{HEAD}{obj}");
    let mut s = Session::open(text.clone(), &IsoOnly).unwrap();
    s.append_jsonl(child.as_bytes(), &IsoOnly);
    let b = s.find(&k("b"));
    assert_eq!(s.branch_path(b), [b.unwrap()]);
    let mut s = open_source(&text, 7);
    s.append_jsonl(child.as_bytes(), &IsoOnly);
    let b = s.find(&k("b"));
    assert_eq!(s.branch_path(b), [b.unwrap()]);
}

#[test]
fn a_branch_copy_carries_labels_in_the_order_they_were_first_set() {
    // pi's labelsById is a Map: a label set again keeps its place, one
    // cleared and set again goes last; createBranchedSession writes them in
    // that order.
    let mut s = session();
    let ids: Vec<String> = (0..6).map(|i| user(&mut s, &format!("m{i}"))).collect();
    for (target, label) in [
        (5, "a"),
        (2, "b"),
        (0, "c"),
        (4, "d"),
        (1, "e"),
        (2, "f"),
        (3, "g"),
    ] {
        s.append_label_change(
            &k(&ids[target]),
            Some(&format!("\"{label}\"")),
            NOW,
            &IsoOnly,
        )
        .unwrap();
    }
    s.append_label_change(&k(&ids[0]), None, NOW, &IsoOnly)
        .unwrap();
    s.append_label_change(&k(&ids[0]), Some("\"h\""), NOW, &IsoOnly)
        .unwrap();
    let leaf = s.entries()[s.leaf().unwrap()].id.clone();
    let copy = s.branched_jsonl(&leaf, "{}").unwrap();
    let carried: Vec<(String, String)> = copy
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"label\""))
        .map(|l| {
            let field = |name: &str| {
                let from = l.find(&format!("\"{name}\":\"")).unwrap() + name.len() + 4;
                l[from..from + l[from..].find('"').unwrap()].to_owned()
            };
            (field("targetId"), field("label"))
        })
        .collect();
    let expected: Vec<(String, String)> =
        [(5, "a"), (2, "f"), (4, "d"), (1, "e"), (3, "g"), (0, "h")]
            .iter()
            .map(|&(t, l)| (ids[t].clone(), l.to_owned()))
            .collect();
    assert_eq!(carried, expected);
    // The label entries that set a label now: one per labelled entry.
    let mut now: Vec<&str> = s
        .label_entries()
        .into_iter()
        .map(|l| s.entry_json(l))
        .collect();
    now.sort();
    assert_eq!(now.len(), 6);
    for (t, l) in &expected {
        assert!(
            now.iter()
                .any(|j| j.contains(&format!("\"targetId\":\"{t}\",\"label\":\"{l}\""))),
            "{t} {l}"
        );
    }
}

#[test]
fn the_ids_returned_are_those_of_the_entries_written() {
    // pi's appendThinkingLevelChange, appendModelChange and
    // appendLabelChange: these keys in this order; each returns entry.id.
    let mut s = session();
    let u = user(&mut s, "q");
    let t = s
        .append_thinking_level_change(Some("\"high\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(
        line(&s, &t),
        format!(
            r#"{{"type":"thinking_level_change","id":"{t}","parentId":"{u}","timestamp":"{NOW}","thinkingLevel":"high"}}"#
        )
    );
    let m = s
        .append_model_change(Some("\"p\""), Some("\"m\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(
        line(&s, &m),
        format!(
            r#"{{"type":"model_change","id":"{m}","parentId":"{t}","timestamp":"{NOW}","provider":"p","modelId":"m"}}"#
        )
    );
    let l = s
        .append_label_change(&k(&u), Some("\"x\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(
        line(&s, &l),
        format!(
            r#"{{"type":"label","id":"{l}","parentId":"{m}","timestamp":"{NOW}","targetId":"{u}","label":"x"}}"#
        )
    );
    assert_eq!(s.leaf(), s.find(&k(&l)));
    let all = [&u, &t, &m, &l];
    for (i, a) in all.iter().enumerate() {
        assert!(all[i + 1..].iter().all(|b| a != b), "ids repeat: {all:?}");
    }
}

#[test]
fn a_custom_message_edit_keeps_a_string_content() {
    // pi wraps a string only for assistant and tool result targets; a
    // custom_message's content is given as it came.
    let mut s = session();
    user(&mut s, "q");
    let m = s
        .append_custom_message_entry(
            Some("\"x\""),
            Some("\"c\""),
            Some("true"),
            None,
            NOW,
            &IsoOnly,
        )
        .unwrap();
    let e = s
        .append_context_edit(
            &k(&m),
            Some(r#"{"content":"new"}"#),
            Some("\"new\""),
            NOW,
            &IsoOnly,
        )
        .unwrap();
    assert!(line(&s, &e).ends_with(&format!(
        r#""targetId":"{m}","replacement":{{"content":"new"}}}}"#
    )));
}

#[test]
fn a_falsy_or_unknown_leaf_id_means_the_last_entry() {
    // pi's buildSessionContext: a falsy leafId, or one no entry has, starts
    // from the last entry, even when an entry's id is the empty string.
    let text = format!(
        "{HEAD}{}\n{}\n{}\n",
        message("x", "null", "x"),
        message("", "\"x\"", "empty"),
        message("y", "\"x\"", "y"),
    );
    let s = Session::open(text, &IsoOnly).unwrap();
    let at_y = s.context(Some(Some(&k("y")))).json;
    assert!(
        at_y.contains("\"content\":\"y\"") && !at_y.contains("empty"),
        "{at_y}"
    );
    assert_eq!(s.context(Some(Some(&k("")))).json, at_y);
    assert_eq!(s.context(Some(Some(&Key::Null))).json, at_y);
    assert_eq!(s.context(Some(Some(&k("zz")))).json, at_y);
    // A truthy id that is there: its own path.
    assert!(s
        .context(Some(Some(&k("x"))))
        .json
        .contains("\"content\":\"x\""));
}

#[test]
fn tree_usage_and_name_of_an_open_session() {
    let usage = r#"{"input":3,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":4,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}"#;
    let assistant = |id: &str, parent: &str| {
        format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"{NOW}\",\"message\":{{\"role\":\"assistant\",\"content\":[],\"provider\":\"p\",\"model\":\"m\",\"usage\":{usage},\"timestamp\":1}}}}")
    };
    let text = format!(
        "{HEAD}{}\n{}\n{}\n{}\n",
        message("u", "null", "q"),
        assistant("a1", "u"),
        "{\"type\":\"session_info\",\"id\":\"n\",\"parentId\":\"a1\",\"name\":\" my name \"}",
        assistant("a2", "u"),
    );
    let mut s = Session::open(text, &IsoOnly).unwrap();
    // pi's getSessionStats: every assistant message's usage, summed.
    let report = s.usage(None, &crate::tree::NativeSort);
    assert_eq!(report.total.input, 6.0);
    assert_eq!(report.total.cost, 1.0);
    assert_eq!(report.total.records, 2);
    let tree = s.tree(&crate::tree::NativeSort);
    assert_eq!(tree.roots, [1]);
    assert_eq!(tree.children[1].to_vec(), [2, 4]);
    assert_eq!(tree.children[2].to_vec(), [3]);
    // pi's getSessionName: the latest session_info's name, trimmed.
    assert_eq!(s.name().as_deref(), Some("\"my name\""));
    assert_eq!(s.name_entry(), Some(3));
    user(&mut s, "more");
    assert_eq!(s.name().as_deref(), Some("\"my name\""));
    s.append_session_info("other", NOW, &IsoOnly).unwrap();
    assert_eq!(s.name().as_deref(), Some("\"other\""));
}

/// A session opened from `text` as a source read in pieces of `piece`
/// bytes, with every entry loaded.
fn open_source(text: &str, piece: usize) -> Session {
    let b = text.as_bytes();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let mut s = Session::open_source(b.len() as u64, piece, &mut read, &IsoOnly)
        .unwrap()
        .unwrap();
    for i in 0..s.entries().len() {
        let r = s.unloaded(i).unwrap();
        s.load(i, &text[r.start as usize..r.end as usize]);
    }
    s
}

/// The text a source session stands for: the source's first bytes, then its own.
fn rebuilt(s: &Session, text: &str) -> String {
    let (base, after) = s.source_text().unwrap();
    format!("{}{after}", &text[..base as usize])
}

#[test]
fn lines_appended_to_a_source_session_follow_its_text() {
    for text in [
        format!("{HEAD}{}\n", message("a", "null", "x")),
        format!("{HEAD}{}", message("a", "null", "x")),
        HEAD.trim_end().to_owned(),
    ] {
        for piece in [1, 3, 4096] {
            let mut s = open_source(&text, piece);
            let whole = Session::open(text.clone(), &IsoOnly).unwrap();
            assert_eq!(rebuilt(&s, &text), whole.text(), "{text:?} {piece}");
            let id = user(&mut s, "q");
            let own = s.take_pending_lines();
            assert_eq!(own.len(), 1);
            assert!(own[0].contains(&id));
            assert_eq!(
                rebuilt(&s, &text),
                format!("{}{}\n", whole.text(), own[0]),
                "{text:?} {piece}"
            );
            let tailed = message("t", &format!("\"{id}\""), "t");
            s.append_jsonl(format!("{tailed}\n").as_bytes(), &IsoOnly);
            assert_eq!(
                rebuilt(&s, &text),
                format!("{}{}\n{tailed}\n", whole.text(), own[0])
            );
            assert_eq!(
                s.branch_path(s.leaf()).len(),
                if text.contains("\"a\"") { 3 } else { 2 }
            );
        }
    }
}

#[test]
fn what_is_still_in_the_source_is_known_entry_by_entry() {
    let text = format!(
        "{HEAD}{}\n{}\n",
        message("a", "null", "x"),
        message("b", "\"a\"", "y")
    );
    let b = text.as_bytes();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let mut s = Session::open_source(b.len() as u64, 16, &mut read, &IsoOnly)
        .unwrap()
        .unwrap();
    assert_eq!(s.unloaded_of(0..3), [0, 1, 2]);
    let r = s.unloaded(1).unwrap();
    assert_eq!(
        &text[r.start as usize..r.end as usize],
        message("a", "null", "x")
    );
    s.load(1, &text[r.start as usize..r.end as usize]);
    assert_eq!(s.unloaded_of([2, 1, 0]), [2, 0]);
    assert_eq!(s.unloaded(1), None);
    assert_eq!(s.entry_json(1), message("a", "null", "x"));
}

#[test]
fn the_last_newline_of_a_long_line_is_found_in_few_reads() {
    // A last line of 300 KB without a final newline: the windows read back
    // from the end grow (4 KiB, 16 KiB, ...) up to the piece.
    let long = message("b", "\"a\"", &"z".repeat(300_000));
    let text = format!("{HEAD}{}\n{long}", message("a", "null", "x"));
    let b = text.as_bytes();
    let mut reads = 0;
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        reads += 1;
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let s = Session::open_source(b.len() as u64, 1 << 20, &mut read, &IsoOnly)
        .unwrap()
        .unwrap();
    assert!(reads <= 12, "{reads} reads");
    assert_eq!(
        s.unloaded(2),
        Some((text.len() - long.len()) as u64..text.len() as u64)
    );
    assert_eq!(s.source_text(), Some((text.len() as u64, "\n".to_owned())));
}

/// A line another writer appended is an entry when `JSON.parse` reads all of
/// it as one value, as when the same text is opened: spaces around the value
/// are fine, a second value or anything else after it makes no entry.
#[test]
fn a_followed_line_is_an_entry_only_if_it_is_one_json_text() {
    let a = message("a", "null", "x");
    let lines = [
        format!("{} x", message("b", "\"a\"", "junk after")),
        format!("{}{{}}", message("c", "\"a\"", "two values")),
        format!(" \t{}  ", message("d", "\"a\"", "spaces around")),
        format!("{}]", message("e", "\"d\"", "a stray bracket")),
    ];
    let mut followed = Session::open(format!("{HEAD}{a}\n"), &IsoOnly).unwrap();
    followed.append_jsonl(format!("{}\n", lines.join("\n")).as_bytes(), &IsoOnly);
    let opened = Session::open(followed.text().into_owned(), &IsoOnly).unwrap();
    for s in [&followed, &opened] {
        assert_eq!(s.find(&k("b")), None);
        assert_eq!(s.find(&k("c")), None);
        assert_eq!(s.find(&k("e")), None);
        assert!(s.find(&k("d")).is_some());
        assert_eq!(s.leaf(), s.find(&k("d")));
    }
    assert_eq!(followed.text(), opened.text());
}

/// The parent of an append is written from the id this session appended
/// last, kept as JSON, so no line is read again; a line of this writer that
/// did not become an entry (its value text broken) leaves no id behind to name
/// the entry another writer adds next.
#[test]
fn the_next_parent_is_the_last_entry_whoever_wrote_it() {
    let mut s = Session::open(format!("{HEAD}{}\n", message("a", "null", "x")), &IsoOnly).unwrap();
    let content = Some("{\"role\":\"user\",\"content\":\"q\"}");
    s.append_as("b", "message", &[], &[("message", content)], NOW, &IsoOnly);
    let b = s.find(&k("b")).unwrap();
    assert_eq!(
        s.appended,
        Some((b, "\"b\"".to_owned())),
        "kept for the next append"
    );
    s.append_as(
        "j",
        "message",
        &[],
        &[("message", Some("{"))],
        NOW,
        &IsoOnly,
    );
    assert_eq!(s.find(&k("j")), None, "a broken line is no entry");
    assert_eq!(s.leaf(), Some(b));
    s.append_jsonl(
        format!("{}\n", message("w", "\"b\"", "another writer")).as_bytes(),
        &IsoOnly,
    );
    s.append_as("c", "message", &[], &[("message", content)], NOW, &IsoOnly);
    let c = s.find(&k("c")).unwrap();
    assert_eq!(s.entries[c].parent_id, k("w"));
    assert!(
        line(&s, "c").contains("\"parentId\":\"w\""),
        "{}",
        line(&s, "c")
    );
}

/// pi's `buildSessionContext()` starts at its leaf, wherever `branch` put it:
/// the last entry stands in only for a leaf whose id is falsy.
#[test]
fn the_default_context_starts_at_a_moved_leaf() {
    let text = format!(
        "{}\n{}\n{}\n{}\n",
        r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"a"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"b"}}"#,
        r#"{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":"c"}}"#,
    );
    let mut s = Session::open(text, &IsoOnly).unwrap();
    assert_eq!(s.context_plan(None).path, [1, 3], "at the last entry, c");
    s.branch(&k("b")).unwrap();
    assert_eq!(
        s.context_plan(None).path,
        [1, 2],
        "at b, where the leaf moved"
    );
}
