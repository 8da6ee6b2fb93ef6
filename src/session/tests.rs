//! The session's unit tests.

use super::*;
use crate::time::IsoOnly;

pub(super) const NOW: &str = "2025-01-01T00:00:00.000Z";

pub(super) fn k(id: &str) -> Key {
    Key::from(id)
}

pub(super) fn user(s: &mut Session, text: &str) -> String {
    s.append_message(
        Some(&format!("{{\"role\":\"user\",\"content\":\"{text}\"}}")),
        NOW,
        &IsoOnly,
    )
    .unwrap()
}

#[test]
fn appends_branches_and_hands_out_lines() {
    let mut s = Session::create(
        r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
        &IsoOnly,
    );
    let a = user(&mut s, "a");
    assert_eq!(
        s.take_pending_lines().len(),
        2,
        "the header and the user message"
    );
    let b = s
        .append_message(
            Some(r#"{"role":"assistant","provider":"p","model":"m"}"#),
            NOW,
            &IsoOnly,
        )
        .unwrap();
    let (a_key, b_key) = (k(&a), k(&b));
    assert_eq!(s.take_pending_lines().len(), 1);
    s.branch(&a_key).unwrap();
    let c = user(&mut s, "c");
    assert_eq!(s.children_of(&a_key).len(), 2);
    assert_eq!(s.branch_path(s.leaf()).len(), 2);
    assert_eq!(
        s.take_pending_lines(),
        [format!(
            r#"{{"type":"message","id":"{c}","parentId":"{a}","timestamp":"{NOW}","message":{{"role":"user","content":"c"}}}}"#
        )]
    );
    assert_eq!(
        s.branch(&Key::Str("zz".into())),
        Err(SessionError::NotFound("zz".into()))
    );
    let ctx = s.context(Some(Some(&b_key)));
    assert!(
        ctx.json
            .ends_with(r#""model":{"provider":"p","modelId":"m"}}"#),
        "{}",
        ctx.json
    );
}

#[test]
fn labels_keep_pi_map_order_and_branch_copies_carry_them() {
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n";
    let mut s = Session::open(text.into(), &IsoOnly).unwrap();
    s.append_label_change(&k("a"), Some("\"x\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(
        s.label_of(&k("a"))
            .map(|l| s.entry_json(l).contains("\"x\"")),
        Some(true)
    );
    let copy = s.branched_jsonl(&k("a"), "{\"type\":\"session\"}").unwrap();
    let lines: Vec<&str> = copy.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[2].starts_with("{\"type\":\"label\",\"id\":\"")
            && lines[2].contains("\"parentId\":\"a\",\"timestamp\":"),
        "{}",
        lines[2]
    );
    s.append_label_change(&k("a"), None, NOW, &IsoOnly).unwrap();
    assert_eq!(s.label_of(&k("a")), None);
}

#[test]
fn tailing_handles_partial_lines_and_characters() {
    let mut s = Session::open(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".into(),
        &IsoOnly,
    )
    .unwrap();
    let line = "{\"type\":\"message\",\"id\":\"é\",\"parentId\":null}\n".as_bytes();
    let cut = line.iter().position(|&b| b == 0xc3).unwrap() + 1;
    s.append_jsonl(&line[..cut], &IsoOnly);
    assert_eq!(s.leaf(), None);
    s.append_jsonl(&line[cut..], &IsoOnly);
    assert_eq!(s.find(&k("é")), Some(1));
}

#[test]
fn bytes_opened_inside_a_character_are_completed_by_the_next_chunk() {
    // A writer stopped inside `é`: the open keeps the cut bytes, not U+FFFD.
    let file = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n\
                {\"type\":\"message\",\"id\":\"é\",\"parentId\":null}\n";
    let cut = file.bytes().position(|b| b == 0xc3).unwrap() + 1;
    let mut s = Session::open_bytes(file.as_bytes()[..cut].to_vec(), &IsoOnly).unwrap();
    assert_eq!(
        s.open_line(),
        &file.as_bytes()[file.find("{\"type\":\"m").unwrap()..cut]
    );
    assert_eq!(s.leaf(), None);
    s.append_jsonl(&file.as_bytes()[cut..], &IsoOnly);
    assert_eq!(s.find(&k("é")), Some(1));
    assert_eq!(s.text(), file);
    // Whole lines open as their text does, invalid UTF-8 decoded as TextDecoder does.
    for b in [
        file.as_bytes().to_vec(),
        b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"id\":\"\xff\"}".to_vec(),
    ] {
        let text = crate::parse::decode(&b).into_owned();
        let by_text = Session::open(text, &IsoOnly).unwrap();
        let by_bytes = Session::open_bytes(b, &IsoOnly).unwrap();
        assert_eq!(by_bytes.text(), by_text.text());
        assert_eq!(by_bytes.entries().len(), by_text.entries().len());
        assert_eq!(by_bytes.open_line(), by_text.open_line());
    }
}

#[test]
fn a_line_written_in_many_chunks_is_one_entry() {
    let mut s = Session::open(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".into(),
        &IsoOnly,
    )
    .unwrap();
    let line = format!(
        "{{\"type\":\"custom\",\"id\":\"a\",\"parentId\":null,\"data\":\"{}\"}}\n",
        "é".repeat(3000)
    );
    // One byte at a time: only the last chunk holds a newline.
    for b in line.as_bytes() {
        s.append_jsonl(std::slice::from_ref(b), &IsoOnly);
    }
    assert_eq!(s.find(&k("a")), Some(1));
    assert_eq!(s.open_line(), b"");
    assert_eq!(s.entry_json(1), line.trim_end());
}

#[test]
fn line_count_and_open_line_split_the_text_at_its_last_newline() {
    // An unfinished last line (no JSON yet) waits for the rest of it: it is
    // the open line, not a line of the text.
    let mut s = Session::open("{\"type\":\"session\"}\n\n{\"type\":".into(), &IsoOnly).unwrap();
    assert_eq!((s.line_count(), s.open_line()), (2, &b"{\"type\":"[..]));
    s.append_jsonl("\"x\"}\nbad\n{".as_bytes(), &IsoOnly);
    assert_eq!((s.line_count(), s.open_line()), (4, &b"{"[..]));
    // A last line that is JSON is a line, its newline added.
    let s = Session::open("{\"type\":\"session\"}\n1".into(), &IsoOnly).unwrap();
    assert_eq!((s.line_count(), s.open_line()), (2, &b""[..]));
}

#[test]
fn tailing_skips_falsy_lines_as_opening_does() {
    let header = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";
    let entry = "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n";
    let mut tailed = Session::open(header.into(), &IsoOnly).unwrap();
    tailed.append_jsonl(entry.as_bytes(), &IsoOnly);
    tailed.append_jsonl(b"null\n0\n", &IsoOnly);
    let opened = Session::open(format!("{header}{entry}null\n0\n"), &IsoOnly).unwrap();
    assert_eq!(tailed.entries().len(), opened.entries().len());
    assert_eq!(tailed.leaf(), tailed.find(&k("a")));
    assert_eq!(tailed.text(), opened.text());
}

pub(super) fn session() -> Session {
    Session::create(
        r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
        &IsoOnly,
    )
}

pub(super) fn line(s: &Session, id: &str) -> String {
    s.entry_json(s.find(&k(id)).unwrap()).to_owned()
}

#[test]
fn a_user_message_releases_the_held_lines() {
    let mut s = session();
    s.append_model_change(Some("\"p\""), Some("\"m\""), NOW, &IsoOnly)
        .unwrap();
    assert!(s.take_pending_lines().is_empty());
    user(&mut s, "a");
    assert_eq!(s.take_pending_lines().len(), 3);
    s.append_thinking_level_change(Some("\"low\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(s.take_pending_lines().len(), 1);
}

#[test]
fn pending_text_is_the_pending_lines_each_ending_in_a_newline() {
    let mut s = session();
    s.append_model_change(Some("\"p\""), Some("\"m\""), NOW, &IsoOnly)
        .unwrap();
    assert_eq!(s.take_pending_text(), "", "held back until a user message");
    let a = user(&mut s, "a");
    let b = user(&mut s, "b");
    // The same session's lines through take_pending_lines, for comparison.
    let text = s.text().into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(s.take_pending_text(), format!("{}\n", lines.join("\n")));
    assert_eq!(s.take_pending_text(), "", "taken once");
    // The next append names the last one as its parent, as its line has it.
    let c = user(&mut s, "c");
    assert_eq!(s.take_pending_text(), format!("{}\n", line(&s, &c)));
    assert!(line(&s, &c).contains(&format!("\"parentId\":\"{b}\"")));
    s.branch(&k(&a)).unwrap();
    let d = user(&mut s, "d");
    assert!(line(&s, &d).contains(&format!("\"parentId\":\"{a}\"")));
    assert_eq!(s.take_pending_lines(), [line(&s, &d)]);
}

#[test]
fn session_names_fold_line_breaks() {
    let mut s = session();
    let id = s
        .append_session_info("  a\r\nb\n\nc\rd \n", NOW, &IsoOnly)
        .unwrap();
    assert!(line(&s, &id).ends_with(r#""name":"a b c d"}"#));
    let id = s.append_session_info("x \n\ty", NOW, &IsoOnly).unwrap();
    assert!(line(&s, &id).ends_with(r#""name":"x  \ty"}"#));
}

#[test]
fn a_compaction_without_a_kept_entry_names_itself() {
    let mut s = session();
    let a = user(&mut s, "a");
    let c = s
        .append_compaction(
            Some("\"s\""),
            None,
            Some("1"),
            None,
            None,
            Some("{}"),
            NOW,
            &IsoOnly,
        )
        .unwrap();
    assert_eq!(
        line(&s, &c),
        format!(
            r#"{{"type":"compaction","id":"{c}","parentId":"{a}","timestamp":"{NOW}","summary":"s","firstKeptEntryId":"{c}","tokensBefore":1,"usage":{{}}}}"#
        )
    );
    let c = s
        .append_compaction(
            Some("\"s\""),
            Some(Some("\"\"")),
            None,
            None,
            Some("true"),
            None,
            NOW,
            &IsoOnly,
        )
        .unwrap();
    assert!(line(&s, &c).ends_with(r#""firstKeptEntryId":"","fromHook":true}"#));
}

#[test]
fn compactions_checkpoint_the_prompt_at_the_leaf() {
    let mut s = session();
    let sys = |s: &mut Session, m: &str| s.append_message(Some(m), NOW, &IsoOnly).unwrap();
    sys(
        &mut s,
        r#"{"role":"system","content":"base","sections":{"a":"1","b":"2"},"toolsAdded":[{"name":"read"}],"timestamp":5}"#,
    );
    let u = user(&mut s, "q");
    let c1 = s
        .append_compaction(
            Some("\"s\""),
            Some(Some(&format!("\"{u}\""))),
            None,
            None,
            None,
            None,
            NOW,
            &IsoOnly,
        )
        .unwrap();
    // 2025-01-01T00:00:00.000Z in milliseconds replaces the replayed timestamp.
    assert!(line(&s, &c1).ends_with(
        r#""systemMessage":{"role":"system","content":"base","sections":{"a":"1","b":"2"},"toolsAdded":[{"name":"read"}],"timestamp":1735689600000}}"#
    ), "{}", line(&s, &c1));
    sys(
        &mut s,
        r#"{"role":"system","content":[{"type":"text","text":"more"}],"sections":{"a":null},"toolsRemoved":[{"name":"read"}]}"#,
    );
    let c2 = s
        .append_compaction(Some("\"t\""), None, None, None, None, None, NOW, &IsoOnly)
        .unwrap();
    // Chained: the first checkpoint, then the new message; the prompt grows, sections patch.
    assert!(line(&s, &c2).ends_with(
        r#""systemMessage":{"role":"system","content":"base\n\nmore","sections":{"b":"2"},"timestamp":1735689600000}}"#
    ), "{}", line(&s, &c2));
    let mut bare = session();
    user(&mut bare, "q");
    let c = bare
        .append_compaction(None, None, None, None, None, None, NOW, &IsoOnly)
        .unwrap();
    assert!(
        !line(&bare, &c).contains("systemMessage"),
        "no system state, no checkpoint"
    );
}

#[test]
fn branch_summaries_name_the_leaf_they_leave() {
    let mut s = session();
    let a = user(&mut s, "a");
    let b = user(&mut s, "b");
    let x = s
        .branch_with_summary(Some(&k(&a)), Some("\"s\""), None, None, None, NOW, &IsoOnly)
        .unwrap();
    assert!(line(&s, &x).contains(&format!(
        r#""parentId":"{a}","timestamp":"{NOW}","fromId":"{b}""#
    )));
    s.reset_leaf();
    let y = s
        .branch_with_summary(None, Some("\"s\""), None, None, None, NOW, &IsoOnly)
        .unwrap();
    assert!(line(&s, &y).contains(r#""fromId":"root""#));
    assert_eq!(
        s.branch_with_summary(Some(&k("zz")), None, None, None, None, NOW, &IsoOnly),
        Err(SessionError::NotFound("zz".into()))
    );
    assert_eq!(s.leaf(), s.find(&k(&y)), "a refused call moves nothing");
}

#[test]
fn context_edits_are_checked_in_pi_order() {
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
        "{\"type\":\"message\",\"id\":\"u\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"q\"}}\n",
        "{\"type\":\"message\",\"id\":\"a\",\"parentId\":\"u\",\"message\":{\"role\":\"assistant\",\"content\":[]}}\n",
        "{\"type\":\"message\",\"id\":\"s1\",\"parentId\":\"a\",\"message\":{\"role\":\"system\",\"content\":\"p\"}}\n",
        "{\"type\":\"message\",\"id\":\"off\",\"parentId\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"q\"}}\n",
    );
    let mut s = Session::open(text.into(), &IsoOnly).unwrap();
    s.branch(&k("s1")).unwrap();
    let edit = |s: &mut Session, id: &str, r: &str, text: Option<&str>| {
        s.append_context_edit(&k(id), Some(r), text, NOW, &IsoOnly)
    };
    assert_eq!(
        edit(&mut s, "zz", "null", None),
        Err(SessionError::NotFound("zz".into()))
    );
    assert_eq!(
        edit(&mut s, "off", "null", None),
        Err(SessionError::NotOnBranch("off".into()))
    );
    assert_eq!(
        edit(&mut s, "s1", "null", None),
        Err(SessionError::NotEditable("s1".into()))
    );
    let id = edit(&mut s, "a", r#"{"content":"x"}"#, Some("\"x\"")).unwrap();
    assert!(line(&s, &id)
        .ends_with(r#""targetId":"a","replacement":{"content":[{"type":"text","text":"x"}]}}"#));
    let id = edit(&mut s, "u", r#"{"content":"x","more":1}"#, Some("\"x\"")).unwrap();
    assert!(line(&s, &id).ends_with(r#""targetId":"u","replacement":{"content":"x","more":1}}"#));
    assert_eq!(
        edit(&mut s, &id, "null", None),
        Err(SessionError::NotEditable(id.clone()))
    );
}

#[test]
fn branched_sessions_chain_around_labels_and_remap_kept_ids() {
    // u0, L1, a0, L2, L3, C(firstKeptEntryId = L2), u1.
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
        "{\"type\":\"message\",\"id\":\"u0\",\"parentId\":null,\"message\":{}}\n",
        "{\"type\":\"label\",\"id\":\"L1\",\"parentId\":\"u0\",\"targetId\":\"u0\",\"label\":\"first\"}\n",
        "{\"type\":\"message\",\"id\":\"a0\",\"parentId\":\"L1\",\"message\":{}}\n",
        "{\"type\":\"label\",\"id\":\"L2\",\"parentId\":\"a0\",\"targetId\":\"a0\",\"label\":\"second\"}\n",
        "{\"type\":\"label\",\"id\":\"L3\",\"parentId\":\"L2\",\"targetId\":\"u0\"}\n",
        "{\"type\":\"compaction\",\"id\":\"C\",\"parentId\":\"L3\",\"summary\":\"s\",\"firstKeptEntryId\":\"L2\",\"tokensBefore\":1}\n",
        "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":\"C\",\"parentId\":\"C\",\"message\":{}}\n",
    );
    let s = Session::open(text.into(), &IsoOnly).unwrap();
    let out = s.branched_jsonl(&k("u1"), "{}").unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        r#"{"type":"message","id":"u0","parentId":null,"message":{}}"#
    );
    assert_eq!(
        lines[2],
        r#"{"type":"message","id":"a0","parentId":"u0","message":{}}"#
    );
    assert_eq!(
        lines[3],
        r#"{"type":"compaction","id":"C","parentId":"a0","summary":"s","firstKeptEntryId":"C","tokensBefore":1}"#
    );
    assert_eq!(
        lines[4],
        r#"{"type":"message","id":"u1","parentId":"C","parentId":"C","message":{}}"#
    );
    assert!(lines[5].contains(r#""parentId":"u1","targetId":"a0","label":"second""#));
    assert_eq!(lines.len(), 6);
    assert_eq!(
        s.branched_jsonl(&k(""), "{}"),
        Err(SessionError::NotFound(String::new()))
    );
}

/// pi chains the re-added labels from `last?.id || null`: a last entry whose
/// id is a string with a lone surrogate, or a number, is their parent too.
#[test]
fn branched_labels_follow_any_truthy_last_id() {
    for id in [r#""b\ud800""#, "7"] {
        let last = format!(r#"{{"type":"message","id":{id},"parentId":"L","message":{{}}}}"#);
        let text = [
            r#"{"type":"session","version":3,"id":"s"}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{}}"#,
            r#"{"type":"label","id":"L","parentId":"a","targetId":"a","label":"x"}"#,
            &last,
            "",
        ]
        .join("\n");
        let s = Session::open(text, &IsoOnly).unwrap();
        let leaf = s.entries[3].id.clone();
        let out = s
            .branched_jsonl(&leaf, "{}")
            .unwrap_or_else(|e| panic!("{id}: {e:?}"));
        let label = out.lines().last().unwrap();
        assert!(
            label.contains(&format!(r#""parentId":{id},"targetId":"a""#)),
            "{id}: {label}"
        );
    }
}

#[test]
fn header_lines_leave_out_what_has_no_json() {
    assert_eq!(
        header_line("a\"b", NOW, Some("\"/w\""), None),
        r#"{"type":"session","version":3,"id":"a\"b","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#
    );
    assert_eq!(
        header_line("s", NOW, None, Some("\"/p.jsonl\"")),
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","parentSession":"/p.jsonl"}"#
    );
}

#[test]
fn a_title_line_before_the_header_is_kept_and_the_header_found() {
    // oh-my-pi's first line, in a v2 file so that opening migrates it.
    let title = r#"{"type":"title","v":1,"title":"T","source":"auto","pad":"   "}"#;
    let text = format!(
        "{title}\n{}\n{}\n",
        r#"{"type":"session","version":2,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"hookMessage","content":"x"}}"#
    );
    let mut s = Session::open(text, &IsoOnly).unwrap();
    assert!(s.migrated());
    assert_eq!(s.header(), Some(1));
    assert!(s.entry_json(1).contains(r#""version":3"#));
    assert_eq!(
        s.leaf().map(|i| s.entry_json(i).contains("\"custom\"")),
        Some(true)
    );
    user(&mut s, "b");
    // The title stays the first line, byte for byte.
    assert!(s.text().starts_with(&format!("{title}\n")), "{}", s.text());
}

/// Entries of the lines this session wrote are read by place, not by name
/// (`written_entry`): each must be what `Entry::from_json` reads from its
/// line, for every kind and message shape, after branches and foreign lines
/// with odd ids, and with timestamps that change between appends.
#[test]
fn written_lines_have_the_facts_from_json_reads() {
    let mut s = session();
    let messages = [
        Some(r#"{"role":"user","content":"a"}"#),
        Some(r#"{"role":"assistant","content":[{"type":"text","text":"b","role":"user"}]}"#),
        Some(r#"{"role":"toolResult","content":null}"#),
        Some(r#"{"role":7,"content":3}"#),
        Some(r#"{"content":"no role"}"#),
        Some(r#"{"role":"user","role":"custom","content":"x","content":[]}"#),
        Some(r#"{"r\u006fle":"assistant","c\u006fntent":{}}"#),
        Some(r#"{"role":"\ud800"}"#),
        Some("{}"),
        Some("null"),
        Some("\"text\""),
        Some("[1,2]"),
        Some("42"),
        None,
    ];
    let stamps = [NOW, NOW, "2025-01-01T00:00:00.001Z", "not a date", NOW];
    for (i, m) in messages.iter().enumerate() {
        s.append_message(*m, stamps[i % stamps.len()], &IsoOnly)
            .unwrap();
    }
    append_the_simple_kinds(&mut s);
    // Parents that are no plain string id: none, a number, an object, missing.
    s.reset_leaf();
    user(&mut s, "root");
    for id in ["42", r#"{"o":1}"#, "null"] {
        s.append_jsonl(
            format!("{{\"type\":\"custom\",\"id\":{id}}}\n").as_bytes(),
            &IsoOnly,
        );
        user(&mut s, "after");
    }
    s.append_jsonl(b"{\"type\":\"custom\"}\n", &IsoOnly);
    user(&mut s, "after a line with no id");
    let first = s
        .entries()
        .iter()
        .position(|e| e.kind() == EntryType::Message)
        .unwrap();
    for i in first..s.entries().len() {
        let value = json::parse(&s.text, s.span(i)).unwrap();
        let mut unique = 0;
        let read = Entry::from_json(&s.text, &value, Some(&IsoOnly), &mut unique);
        let mut read = read;
        let mut written = s.entries()[i].clone();
        // NaN is no NaN's equal: times compare by their bits.
        let times = (written.time.to_bits(), read.time.to_bits());
        (written.time, read.time) = (0.0, 0.0);
        // Object ids are numbered apart, each distinct: only their kind counts.
        for key in [&mut written.id, &mut written.parent_id] {
            if let Key::Unique(_) = key {
                *key = Key::Unique(1);
            }
        }
        assert_eq!(
            (times.0, &written),
            (times.1, &read),
            "line {}",
            s.entry_json(i)
        );
    }
}

/// Children come in file order, the last entry of each repeated id only,
/// whether they arrive before or after their parent; a parent that arrives
/// after its children (or again, under the same id) is the one walks find.
#[test]
fn children_are_chained_in_file_order() {
    let line = |id: &str, parent: &str| {
        format!("{{\"type\":\"custom\",\"id\":{id},\"parentId\":{parent}}}\n")
    };
    let mut s = session();
    let mut text = String::new();
    for (id, parent) in [
        ("\"c1\"", "\"p\""),
        ("\"c2\"", "\"p\""),
        ("\"p\"", "null"),
        ("\"c3\"", "\"p\""),
        ("\"c1\"", "\"p\""),
        ("\"q\"", "null"),
        ("\"c4\"", "\"p\""),
        ("\"d\"", "\"q\""),
        ("\"p\"", "\"q\""),
    ] {
        text.push_str(&line(id, parent));
    }
    s.append_jsonl(text.as_bytes(), &IsoOnly);
    let naive = |id: &Key| -> Vec<usize> {
        (0..s.entries().len())
            .filter(|&i| {
                let e = &s.entries()[i];
                !e.is_header() && e.parent_id == *id && s.find(&e.id) == Some(i)
            })
            .collect()
    };
    for id in ["p", "q", "c1", "nobody"] {
        assert_eq!(s.children_of(&k(id)), naive(&k(id)), "children of {id}");
    }
    assert_eq!(s.children_of(&Key::Null), naive(&Key::Null));
    let ids = |list: Vec<usize>| -> Vec<String> {
        list.iter()
            .map(|&i| s.entries()[i].id.to_string())
            .collect()
    };
    assert_eq!(ids(s.children_of(&k("p"))), ["c2", "c3", "c1", "c4"]);
    // Every child of "p" walks to the last "p", the one after them all.
    let last_p = s.find(&k("p")).unwrap();
    for c in s.children_of(&k("p")) {
        assert_eq!(
            s.branch_path(Some(c))[..2],
            [s.find(&k("q")).unwrap(), last_p]
        );
    }
}

/// The lines the session writes of the common kinds are read by place (the
/// facts `from_json` would find, without looking them up by name); the
/// others are left to `from_json`.
#[test]
fn written_lines_of_the_common_kinds_are_read_by_place() {
    let mut s = session();
    user(&mut s, "q");
    append_the_simple_kinds(&mut s);
    let r = user(&mut s, "r");
    s.append_label_change(&k(&r), Some("lbl"), NOW, &IsoOnly)
        .unwrap();
    for i in 1..s.entries().len() {
        let value = json::parse(&s.text, s.span(i)).unwrap();
        let kind = s.entries()[i].kind();
        let at = value
            .members
            .iter()
            .position(|m| json::key_is(&s.text, m.key, "id"))
            .unwrap();
        let mut unique = 0;
        let read = Entry::from_json(&s.text, &value, Some(&IsoOnly), &mut unique);
        let by_place = s.written_entry(&value, kind, at, &IsoOnly);
        match kind {
            EntryType::Label => assert_eq!(by_place, None, "line {}", s.entry_json(i)),
            _ => assert_eq!(by_place, Some(read), "line {}", s.entry_json(i)),
        }
    }
}

/// One append of each kind whose line holds nothing but its own fields
/// (no entry named, no message): thinking level, model, custom entry and
/// message, session info, usage.
fn append_the_simple_kinds(s: &mut Session) {
    s.append_thinking_level_change(Some("\"high\""), NOW, &IsoOnly)
        .unwrap();
    s.append_model_change(Some("\"p\""), None, NOW, &IsoOnly)
        .unwrap();
    s.append_custom_entry(Some("\"t\""), Some(r#"{"role":"user"}"#), NOW, &IsoOnly)
        .unwrap();
    s.append_custom_message_entry(
        Some("\"t\""),
        Some("\"c\""),
        Some("true"),
        None,
        NOW,
        &IsoOnly,
    )
    .unwrap();
    s.append_session_info("name", NOW, &IsoOnly).unwrap();
    s.append_usage(Some("\"k\""), None, None, Some("{}"), None, NOW, &IsoOnly)
        .unwrap();
}

/// A last entry whose `id` is missing or falsy: pi looks its leaf up only by a
/// truthy id (`getLeafEntry`, `getBranch`), builds the context from the last
/// entry for a falsy one and from none for `null`, and writes the next entry's
/// `parentId` as the leaf's id (none at all when the leaf has no id).
#[test]
fn a_leaf_with_a_falsy_id_is_looked_up_as_pi_does() {
    let head = r#"{"type":"session","version":3,"id":"s","cwd":"/"}
{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}
"#;
    for (id, context_len) in [
        ("", 2),
        (r#","id":"""#, 2),
        (r#","id":0"#, 2),
        (r#","id":null"#, 0),
    ] {
        let text = format!(r#"{head}{{"type":"label","parentId":"a"{id}}}"#) + "\n";
        let mut s = Session::open(text, &IsoOnly).unwrap();
        assert!(s.leaf().is_some(), "{id}");
        assert_eq!(s.leaf_entry(), None, "{id}");
        assert_eq!(s.context_plan(None).path.len(), context_len, "{id}");
        let next = user(&mut s, "next");
        let line = s.take_pending_lines().pop().unwrap();
        let parent = match id {
            "" => String::new(),
            _ => format!(r#""parentId":{},"#, &id[6..]),
        };
        assert_eq!(
            line,
            format!(
                r#"{{"type":"message","id":"{next}",{parent}"timestamp":"{NOW}","message":{{"role":"user","content":"next"}}}}"#
            ),
            "{id}"
        );
        // read by name, so the facts are the line's: no parent for none
        let last = s.entries().len() - 1;
        assert_eq!(s.entries()[last].id, k(&next));
        assert_eq!(s.entries()[last].time, 1735689600000.0);
        assert!(matches!(s.entries()[last].detail, Detail::Message { .. }));
        assert_eq!(s.leaf_entry(), Some(last));
    }
    let s = Session::open(
        format!("{head}{{\"type\":\"label\",\"id\":\"\"}}\n"),
        &IsoOnly,
    )
    .unwrap();
    assert_eq!(s.branch_start(&k("")), None, "an empty id starts no branch");
    assert_eq!(s.branch_start(&k("a")), Some(1));
    assert_eq!(s.find(&k("")), Some(2), "though getEntry finds it");
    // moved to an entry whose id is "": pi's context starts from the last entry, not there
    let mut s = Session::open(
        format!(
            "{head}{{\"type\":\"label\",\"id\":\"\",\"parentId\":null}}\n{{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\"}}\n"
        ),
        &IsoOnly,
    )
    .unwrap();
    s.branch(&k("")).unwrap();
    assert_eq!(s.leaf(), Some(2));
    assert_eq!(s.context_plan(None).path, [1, 3]);
}

#[test]
fn the_newline_after_a_last_line_opened_without_it_adds_no_blank_line() {
    // A writer between a line's JSON and its newline: the open takes the
    // line, and the newline (with spaces before it, in pieces) ends it.
    let head = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}";
    let next = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\"}\n";
    let file = format!("{head} \r\n{next}");
    let b = file.as_bytes();
    let pieces: [&[u8]; 4] = [b" ", b"\r", b"\n", next.as_bytes()];
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let mut source = Session::open_source(head.len() as u64, 7, &mut read, &IsoOnly)
        .unwrap()
        .unwrap();
    let mut text = Session::open(head.to_owned(), &IsoOnly).unwrap();
    for piece in pieces {
        source.append_jsonl(piece, &IsoOnly);
        text.append_jsonl(piece, &IsoOnly);
    }
    assert_eq!(text.text(), file);
    let (base, after) = source.source_text().unwrap();
    assert_eq!(format!("{}{after}", &file[..base as usize]), file);
    for s in [&text, &source] {
        assert_eq!(s.branch_path(s.leaf()).len(), 2);
    }
    // After a line of its own, a newline is a blank line again.
    let mut own = Session::open(head.to_owned(), &IsoOnly).unwrap();
    user(&mut own, "q");
    own.append_jsonl(b"\n", &IsoOnly);
    assert!(own.text().ends_with("}\n\n"), "{:?}", own.text());
}

/// Lines ending in whitespace JS's `trim()` drops but `JSON.parse` refuses
/// (U+2028, NBSP, U+3000, U+FEFF): pi's `parseSessionEntries` trims the
/// whole text, so such a line is an entry only as the text's last. Each
/// file with the ids pi 1.6.0's `parseSessionEntries` gives it (run on
/// these texts; its file loader keeps only `a` of the last five).
const TRIMMED_LAST_LINES: [(&str, &str, &str); 6] = [
    ("in the middle", "\u{2028}\n{b}\n", "b"),
    ("last", "\n{b}\u{2028}\n", "a,b"),
    (
        "last, blank lines after",
        "\n{b}\u{a0}\n  \n\u{2028}\n",
        "a,b",
    ),
    ("last, U+3000 U+FEFF", "\n{b}\u{3000}\u{feff}\n", "a,b"),
    ("last, CR NBSP", "\n{b}\r\u{a0}\n", "a,b"),
    ("first, not last", "\n\u{2028}{b}\n", "a"),
];

fn trimmed_last_line_file(after_a: &str) -> String {
    let m = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{NOW}","message":{{"role":"user","content":"x"}}}}"#
        )
    };
    let after_a = after_a.replace("{b}", &m("b", "\"a\""));
    format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"{NOW}\",\"cwd\":\"/\"}}\n{}{after_a}",
        m("a", "null")
    )
}

fn entry_ids(s: &Session) -> String {
    let ids: Vec<String> = s
        .entries()
        .iter()
        .filter(|e| !e.is_header())
        .map(|e| e.id.as_str().unwrap_or_default().into_owned())
        .collect();
    ids.join(",")
}

/// `None` for a text without a whole v3 header (read from its text instead).
fn from_source(b: &[u8], piece: usize) -> Option<Session> {
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    Session::open_source(b.len() as u64, piece, &mut read, &IsoOnly).unwrap()
}

#[test]
fn a_line_ending_in_js_only_whitespace_is_an_entry_as_the_last_only() {
    for (name, after_a, pi) in TRIMMED_LAST_LINES {
        let file = trimmed_last_line_file(after_a);
        let b = file.as_bytes();
        let whole = [
            Session::open(file.clone(), &IsoOnly).unwrap(),
            Session::open_bytes(b.to_vec(), &IsoOnly).unwrap(),
            from_source(b, 7).unwrap(),
        ];
        for s in &whole {
            assert_eq!(entry_ids(s), pi, "{name}: opened whole");
        }
        // The second message's line starts after the first's newline.
        let b_line = file.match_indices('\n').nth(1).unwrap().0 + 1;
        for cut in 0..=b.len() {
            // In the middle: a cut just after the first message's JSON
            // opens a head whose last line is whole JSON without its
            // newline: an entry (the README's row on a last line without a
            // newline), and the U+2028 that comes then starts a line of its
            // own. That cut aside, the head and the rest are read as the
            // whole file is.
            let a_end = b_line - "\u{2028}\n".len();
            if name == "in the middle" && cut == a_end {
                let s = Session::open_bytes(b[..cut].to_vec(), &IsoOnly).unwrap();
                assert_eq!(entry_ids(&s), "a", "{name}: the head, cut at {cut}");
                continue;
            }
            let (head, rest) = b.split_at(cut);
            let mut opened = vec![
                (
                    "bytes",
                    Session::open_bytes(head.to_vec(), &IsoOnly).unwrap(),
                ),
                (
                    "bytes one by one",
                    Session::open_bytes(head.to_vec(), &IsoOnly).unwrap(),
                ),
            ];
            opened.extend(from_source(head, 5).map(|s| ("source", s)));
            for (how, s) in &mut opened {
                if *how == "bytes one by one" {
                    rest.chunks(1)
                        .for_each(|byte| s.append_jsonl(byte, &IsoOnly));
                } else {
                    s.append_jsonl(rest, &IsoOnly);
                }
            }
            for (how, s) in &opened {
                assert_eq!(entry_ids(s), pi, "{name}: {how}, cut at {cut}");
            }
        }
    }
}

#[test]
fn a_last_line_ending_in_u2028_without_its_newline_is_held_back() {
    // Not JSON as it is: a line still being written, as every such last
    // line (the README's row on a last line without a newline); its
    // newline then makes it the text's last line, which pi keeps.
    let file = trimmed_last_line_file("\n{b}\u{2028}");
    let mut s = Session::open(file.clone(), &IsoOnly).unwrap();
    assert_eq!(entry_ids(&s), "a");
    assert_eq!(s.text(), file);
    s.append_jsonl(b"\n", &IsoOnly);
    assert_eq!(entry_ids(&s), "a,b");
}

#[test]
fn a_line_after_a_provisional_last_entry_takes_its_label_id_and_children_back() {
    // The last line relabels `a`, reuses the id `a` and is the parent of
    // nothing yet; it ends in U+2028, so it is an entry only while last.
    // Once a line follows, every index answers as for the whole text, in
    // which it is malformed: `a`'s label is the first one again, the id `a`
    // the first entry's, and the new line (child of `a`) under that entry.
    let head = format!(
        "{}\n{}\n{}\u{2028}\n",
        trimmed_last_line_file("").trim_end(),
        r#"{"type":"label","id":"l","parentId":"a","timestamp":"2025-01-01T00:00:00.000Z","targetId":"a","label":"first"}"#,
        r#"{"type":"label","id":"a","parentId":"l","timestamp":"2025-01-01T00:00:00.000Z","targetId":"a","label":"second"}"#,
    );
    let next = r#"{"type":"message","id":"c","parentId":"a","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"y"}}"#;
    let whole = Session::open(format!("{head}{next}\n"), &IsoOnly).unwrap();
    assert_eq!(entry_ids(&whole), "a,l,c");
    let b = head.as_bytes();
    for mut s in [
        Session::open(head.clone(), &IsoOnly).unwrap(),
        from_source(b, 16).unwrap(),
    ] {
        assert_eq!(
            entry_ids(&s),
            "a,l,a",
            "the head: its last line is JSON once trimmed"
        );
        s.append_jsonl(next.as_bytes(), &IsoOnly);
        s.append_jsonl(b"\n", &IsoOnly);
        assert_eq!(entry_ids(&s), "a,l,c");
        for w in [&whole, &s] {
            let label = w.label_of(&k("a")).unwrap();
            assert_eq!(w.entries[label].id, k("l"), "the first label");
            assert_eq!(w.find(&k("a")), Some(1));
            assert_eq!(w.children_of(&k("a")).len(), 2, "l and c");
            assert_eq!(w.branch_path(w.leaf()).len(), 2, "a, c");
        }
    }
}

#[test]
fn a_line_begun_after_a_provisional_last_entry_takes_it_back_and_keeps_a_moved_leaf() {
    // The head's last line ends in NBSP: an entry while last. A line begun
    // after it (held, not yet whole) makes it a middle line: taken back at
    // once, as `open` of the same text reads it. A leaf on the entry taken
    // back goes to the last entry left (pi's leaf after reading the whole);
    // a leaf the host moved (here reset, before every entry) stays.
    let head = trimmed_last_line_file("\n{b}\u{a0}\n");
    let more = r#"{"type":"message","id":"c""#;
    let whole = Session::open(format!("{head}{more}"), &IsoOnly).unwrap();
    assert_eq!(entry_ids(&whole), "a");
    let mut left = Session::open(head.clone(), &IsoOnly).unwrap();
    let mut moved = Session::open(head.clone(), &IsoOnly).unwrap();
    moved.reset_leaf();
    for (s, leaf) in [(&mut left, Some(1)), (&mut moved, None)] {
        assert_eq!(entry_ids(s), "a,b");
        s.append_jsonl(more.as_bytes(), &IsoOnly);
        assert_eq!(entry_ids(s), "a");
        assert_eq!(s.leaf(), leaf);
    }
    moved.append_jsonl(b"}\n", &IsoOnly);
    assert_eq!(moved.leaf(), Some(2), "the line now whole moves the leaf");
}
