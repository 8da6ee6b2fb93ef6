//! Tests of the crate's Rust API (`SessionFile` and its views) written for
//! cargo-mutants (docs/mutation-log.md). Every expectation is read off
//! the input by hand or follows pi 1.6's rules (`buildSessionContext`,
//! `buildSessionInfo`, `getSessionStats`, `getTree`, `SessionManager.branch`'s
//! error), never our own output.

use super::*;
use crate::diagnostics::Problem;

/// A v3 session: a user message `u1`, an assistant answer `a1` with every
/// kind of content block and a usage of 1 + 2 + 4 + 8 tokens costing 16, a
/// model change, a thinking level change, a label on `u1`, a name, and a
/// second user message `u2` that branches off `u1` (the last entry: the leaf).
const SESSION: &str = concat!(
    r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","parentSession":"/p.jsonl"}"#,
    "\n",
    r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1000}}"#,
    "\n",
    r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"A"},{"type":"thinking","thinking":"T"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}},{"type":"toolCall","id":"c2","name":"ls"},{"type":"image","mimeType":"image/png","data":"AA"},{"type":"audio"},"s",{"type":"text","text":"B"}],"provider":"openai","model":"gpt-5","stopReason":"stop","usage":{"input":1,"output":2,"cacheRead":4,"cacheWrite":8,"totalTokens":15,"cost":{"total":16}},"timestamp":2000}}"#,
    "\n",
    r#"{"type":"model_change","id":"mc","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","provider":"anthropic","modelId":"claude"}"#,
    "\n",
    r#"{"type":"thinking_level_change","id":"tl","parentId":"mc","timestamp":"2026-01-01T00:00:04.000Z","thinkingLevel":"high"}"#,
    "\n",
    r#"{"type":"label","id":"lb","parentId":"tl","timestamp":"2026-01-01T00:00:05.000Z","targetId":"u1","label":"start"}"#,
    "\n",
    r#"{"type":"session_info","id":"si","parentId":"lb","timestamp":"2026-01-01T00:00:06.000Z","name":" named "}"#,
    "\n",
    r#"{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"user","content":"Again","timestamp":3000}}"#,
    "\n",
);

fn ids(views: &[EntryView<'_>]) -> Vec<String> {
    views
        .iter()
        .map(|v| v.id().map(Cow::into_owned).unwrap_or_default())
        .collect()
}

fn texts(messages: &[MessageView<'_>]) -> Vec<String> {
    messages.iter().map(MessageView::text).collect()
}

#[test]
fn errors_say_what_went_wrong_and_name_their_file() {
    let io = Error::Io {
        path: None,
        source: std::io::Error::other("boom"),
    };
    assert_eq!(io.to_string(), "boom");
    assert_eq!(
        std::error::Error::source(&io).map(|e| e.to_string()),
        Some("boom".to_owned())
    );
    let at = Error::Io {
        path: Some(PathBuf::from("/d/f.jsonl")),
        source: std::io::Error::other("boom"),
    };
    assert_eq!(at.to_string(), "/d/f.jsonl: boom");
    let large = Error::TooLarge {
        path: None,
        max_bytes: 5,
    };
    assert_eq!(
        large.to_string(),
        "the session is larger than the 5-byte cap"
    );
    assert!(std::error::Error::source(&large).is_none());
    let large_at = Error::TooLarge {
        path: Some(PathBuf::from("/f")),
        max_bytes: 7,
    };
    assert_eq!(
        large_at.to_string(),
        "/f: the session is larger than the 7-byte cap"
    );
    // pi's `SessionManager.branch`: `Entry ${id} not found`.
    assert_eq!(
        Error::UnknownId("x".into()).to_string(),
        "Entry x not found"
    );
    assert_eq!(Error::InvalidJson("why".into()).to_string(), "why");
    assert_eq!(Error::Session("e".into()).to_string(), "e");
    assert!(std::error::Error::source(&Error::UnknownId("x".into())).is_none());
}

#[test]
fn a_file_is_read_under_a_cap_of_512_mib() {
    assert_eq!(DEFAULT_MAX_BYTES, 512 * 1024 * 1024);
    assert_eq!(OpenOptions::default().max_bytes, 512 * 1024 * 1024);
    let path = std::env::temp_dir().join(format!(
        "session-tree-file-mutant-{}-{}.jsonl",
        std::process::id(),
        now_ms() as u64
    ));
    std::fs::write(&path, SESSION).unwrap();
    let opened = SessionFile::open(&path);
    let capped = SessionFile::open_with(
        &path,
        &OpenOptions {
            max_bytes: SESSION.len() as u64 - 1,
        },
    );
    let exact = SessionFile::open_with(
        &path,
        &OpenOptions {
            max_bytes: SESSION.len() as u64,
        },
    );
    std::fs::remove_file(&path).unwrap();
    let opened = opened.unwrap();
    assert_eq!(opened.len(), 8);
    assert_eq!(opened.to_jsonl(), SESSION);
    assert_eq!(exact.unwrap().len(), 8);
    match capped {
        Err(Error::TooLarge {
            path: Some(p),
            max_bytes,
        }) => assert_eq!((p, max_bytes), (path.clone(), SESSION.len() as u64 - 1)),
        other => panic!("{other:?}"),
    }
    // A reader that fails is an I/O error without a path.
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("no"))
        }
    }
    match SessionFile::from_reader(Failing, &OpenOptions::default()) {
        Err(Error::Io { path: None, source }) => assert_eq!(source.to_string(), "no"),
        other => panic!("{other:?}"),
    }
    let read = SessionFile::from_reader(SESSION.as_bytes(), &OpenOptions::default()).unwrap();
    assert_eq!(read.len(), 8);
    assert_eq!(read.to_jsonl(), SESSION);
}

#[test]
fn read_capped_keeps_an_input_up_to_its_cap() {
    let ok = |b: &[u8], max| read_capped(b, max).ok();
    assert_eq!(ok(b"abc", 3), Some(b"abc".to_vec()));
    assert_eq!(ok(b"abc", 4), Some(b"abc".to_vec()));
    assert_eq!(ok(b"abc", 2), None);
    assert_eq!(ok(b"abc", 0), None);
    assert_eq!(ok(b"", 0), Some(Vec::new()));
    assert_eq!(ok(b"ab", u64::MAX), Some(b"ab".to_vec()));
}

#[test]
fn bytes_that_are_not_utf8_are_decoded_as_text_decoder_does_and_reported() {
    let mut bytes = SESSION.as_bytes().to_vec();
    // `Hi` becomes `H\xff`: one U+FFFD.
    let at = SESSION.find("\"Hi\"").unwrap() + 2;
    bytes[at] = 0xff;
    let s = SessionFile::from_bytes(&bytes).unwrap();
    assert_eq!(
        s.entry("u1").unwrap().message().unwrap().text(),
        "H\u{fffd}"
    );
    let problems: Vec<Problem> = s.diagnostics().into_iter().map(|d| d.problem).collect();
    assert_eq!(problems, [Problem::InvalidUtf8]);
    let clean = SessionFile::from_bytes(SESSION.as_bytes()).unwrap();
    assert!(clean.diagnostics().is_empty());
    assert!(SessionFile::from_str(SESSION)
        .unwrap()
        .diagnostics()
        .is_empty());
    // A dangling parent is reported on its line.
    let dangling = format!(
        "{SESSION}{}\n",
        r#"{"type":"message","id":"d","parentId":"gone","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"user","content":"x"}}"#
    );
    let d = SessionFile::from_str(&dangling).unwrap().diagnostics();
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].line, d[0].entry_id.as_deref()), (Some(9), Some("d")));
}

#[test]
fn entries_header_leaf_and_lookups() {
    let s = SessionFile::from_str(SESSION).unwrap();
    assert_eq!(s.len(), 8);
    assert!(!s.is_empty());
    let all: Vec<EntryView> = s.entries().collect();
    assert_eq!(ids(&all), ["s", "u1", "a1", "mc", "tl", "lb", "si", "u2"]);
    assert_eq!(s.header().unwrap().kind().as_deref(), Some("session"));
    assert_eq!(s.header().unwrap().json(), SESSION.lines().next().unwrap());
    assert_eq!(
        s.entry("mc").unwrap().kind().as_deref(),
        Some("model_change")
    );
    assert!(s.entry("nope").is_none());
    assert_eq!(s.leaf().unwrap().id().as_deref(), Some("u2"));
    let empty = SessionFile::from_str("").unwrap();
    assert_eq!(empty.len(), 0);
    assert!(empty.is_empty());
    assert!(empty.header().is_none());
    assert!(empty.leaf().is_none());
    assert!(empty.info().is_none());
    assert_eq!(empty.entries().count(), 0);
    // No header: the entries are there all the same.
    let headless = SESSION.split_once('\n').unwrap().1;
    let h = SessionFile::from_str(headless).unwrap();
    assert!(h.header().is_none());
    assert_eq!(h.len(), 7);
    assert!(h.info().is_none());
    assert_eq!(
        format!("{s:?}"),
        "SessionFile { entries: 8, migrated: false }"
    );
}

#[test]
fn branches_run_from_the_root_to_a_leaf() {
    let s = SessionFile::from_str(SESSION).unwrap();
    assert_eq!(ids(&s.branch(None).unwrap()), ["u1", "u2"]);
    assert_eq!(
        ids(&s.branch(Some("si")).unwrap()),
        ["u1", "a1", "mc", "tl", "lb", "si"]
    );
    assert_eq!(ids(&s.branch(Some("u1")).unwrap()), ["u1"]);
    match s.branch(Some("nope")) {
        Err(Error::UnknownId(id)) => assert_eq!(id, "nope"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_tree_has_pi_order_and_labels() {
    let s = SessionFile::from_str(SESSION).unwrap();
    let tree = s.tree();
    assert_eq!(format!("{tree:?}"), "Tree { roots: 1 }");
    let roots = tree.roots();
    assert_eq!(roots.len(), 1);
    assert_eq!(format!("{:?}", roots[0]), r#"Node(Some("u1"))"#);
    let root = roots[0];
    assert_eq!(root.entry().id().as_deref(), Some("u1"));
    assert_eq!(root.label().as_deref(), Some("start"));
    let children: Vec<EntryView> = root.children().iter().map(Node::entry).collect();
    assert_eq!(ids(&children), ["a1", "u2"]);
    let a1 = root.children()[0];
    assert!(a1.label().is_none());
    assert_eq!(a1.children().len(), 1);
    assert!(root.children()[1].children().is_empty());
    let pre: Vec<EntryView> = tree.preorder().iter().map(Node::entry).collect();
    assert_eq!(ids(&pre), ["u1", "a1", "mc", "tl", "lb", "si", "u2"]);
    // A second label, on a1, leaves u1's as it was.
    let cleared = format!(
        "{SESSION}{}\n",
        r#"{"type":"label","id":"l2","parentId":"u2","timestamp":"2026-01-01T00:00:08.000Z","targetId":"a1","label":"second"}"#
    );
    let c = SessionFile::from_str(&cleared).unwrap();
    let t = c.tree();
    let a1 = t.roots()[0].children()[0];
    assert_eq!(a1.label().as_deref(), Some("second"));
    assert_eq!(t.roots()[0].label().as_deref(), Some("start"));
}

#[test]
fn the_context_is_pi_build_session_context() {
    let s = SessionFile::from_str(SESSION).unwrap();
    // At the leaf u2: u1 and u2, no level set ("off"), no model on the path.
    let at_leaf = s.context(None).unwrap();
    assert_eq!(texts(&at_leaf.messages()), ["Hi", "Again"]);
    assert_eq!(at_leaf.thinking_level().as_deref(), Some("off"));
    assert_eq!(at_leaf.model_json(), None);
    assert!(at_leaf
        .json()
        .starts_with(r#"{"messages":[{"role":"user","content":"Hi""#));
    assert_eq!(at_leaf, s.context(Some("u2")).unwrap());
    // At si: the model change (after the assistant's model) and the level.
    let at_si = s.context(Some("si")).unwrap();
    assert_eq!(texts(&at_si.messages()), ["Hi", "A\nB"]);
    assert_eq!(at_si.thinking_level().as_deref(), Some("high"));
    assert_eq!(
        at_si.model_json(),
        Some(r#"{"provider":"anthropic","modelId":"claude"}"#)
    );
    // At a1: the assistant's own provider and model.
    let at_a1 = s.context(Some("a1")).unwrap();
    assert_eq!(
        at_a1.model_json(),
        Some(r#"{"provider":"openai","modelId":"gpt-5"}"#)
    );
    assert_ne!(at_a1, at_si);
    match s.context(Some("nope")) {
        Err(Error::UnknownId(id)) => assert_eq!(id, "nope"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn context_entries_and_the_projection_are_the_path() {
    let s = SessionFile::from_str(SESSION).unwrap();
    assert_eq!(ids(&s.context_entries(None).unwrap()), ["u1", "u2"]);
    assert_eq!(
        ids(&s.context_entries(Some("si")).unwrap()),
        ["u1", "a1", "mc", "tl", "lb", "si"]
    );
    assert!(matches!(
        s.context_entries(Some("nope")),
        Err(Error::UnknownId(_))
    ));
    let p = s.projection(Some("si")).unwrap();
    let entries = p.entries();
    let sources: Vec<EntryView> = entries.iter().map(|e| e.entry.clone()).collect();
    assert_eq!(ids(&sources), ["u1", "a1", "mc", "tl", "lb", "si"]);
    let counts: Vec<usize> = entries.iter().map(|e| e.messages.len()).collect();
    assert_eq!(counts, [1, 1, 0, 0, 0, 0]);
    assert_eq!(entries[1].messages[0].text(), "A\nB");
    assert_eq!(texts(&p.messages()), ["Hi", "A\nB"]);
    assert_eq!(p.thinking_level().as_deref(), Some("high"));
    assert_eq!(
        p.model_json(),
        Some(r#"{"provider":"anthropic","modelId":"claude"}"#)
    );
    assert!(p.json().starts_with(r#"{"entries":[{"sourceEntry":"#));
    let at_leaf = s.projection(None).unwrap();
    assert_eq!(texts(&at_leaf.messages()), ["Hi", "Again"]);
    assert_eq!(at_leaf.thinking_level().as_deref(), Some("off"));
    assert_eq!(at_leaf.model_json(), None);
    assert_ne!(at_leaf, p);
}

#[test]
fn projection_and_context_views_of_odd_json() {
    // The views read what is there: no `messages` array, elements that are
    // not objects, an entry without a `sourceEntry` object.
    let c = Context {
        json: r#"{"messages":[1,{"role":"user","content":"x"},"y"],"thinkingLevel":"low","model":{"provider":"p"}}"#.into(),
    };
    assert_eq!(texts(&c.messages()), ["x"]);
    assert_eq!(c.thinking_level().as_deref(), Some("low"));
    assert_eq!(c.model_json(), Some(r#"{"provider":"p"}"#));
    let none = Context {
        json: r#"{"messages":{"role":"user"},"thinkingLevel":1,"model":"m"}"#.into(),
    };
    assert!(none.messages().is_empty());
    assert_eq!(none.thinking_level(), None);
    assert_eq!(none.model_json(), None);
    let p = Projection {
        json: r#"{"entries":[5,{"messages":[]},{"sourceEntry":"s"},{"sourceEntry":{"id":"k"},"messages":[{"role":"user","content":"z"},2]}],"messages":[]}"#.into(),
    };
    let e = p.entries();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].entry.id().as_deref(), Some("k"));
    assert_eq!(texts(&e[0].messages), ["z"]);
    assert!(p.messages().is_empty());
    assert!(Projection { json: "{}".into() }.entries().is_empty());
}

#[test]
fn the_system_message_in_force() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"p","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"system","content":"P","timestamp":5}}"#,
        "\n",
        r#"{"type":"message","id":"u","parentId":"p","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Hi"}}"#,
        "\n",
        r#"{"type":"message","id":"o","parentId":null,"timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Other"}}"#,
        "\n",
    );
    let s = SessionFile::from_str(text).unwrap();
    let prompt = r#"{"role":"system","content":"P","timestamp":5}"#;
    assert_eq!(
        s.system_message(Some("u")).unwrap().as_deref(),
        Some(prompt)
    );
    // The leaf `o` is another root: no system message on its path.
    assert_eq!(s.system_message(None).unwrap(), None);
    assert!(matches!(
        s.system_message(Some("nope")),
        Err(Error::UnknownId(_))
    ));
}

#[test]
fn info_is_pi_build_session_info() {
    let s = SessionFile::from_str(SESSION).unwrap();
    let info = s.info().unwrap();
    assert_eq!(info.id, "s");
    assert_eq!(info.cwd, "/w");
    assert_eq!(info.name.as_deref(), Some("named"));
    assert_eq!(info.parent_session.as_deref(), Some("/p.jsonl"));
    assert_eq!(info.created.as_deref(), Some("2026-01-01T00:00:00.000Z"));
    // The messages' own numeric timestamps; the latest wins.
    assert_eq!(info.last_activity_ms, Some(3000.0));
    assert_eq!(info.message_count, 3);
    assert_eq!(info.first_message, "Hi");
    // Escapes decoded, a lone surrogate as U+FFFD; no user message: empty.
    let odd = concat!(
        r#"{"type":"session","version":3,"id":"s\u0041","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/\ud800"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":"x"}}"#,
        "\n",
    );
    let i = SessionFile::from_str(odd).unwrap().info().unwrap();
    assert_eq!((i.id.as_str(), i.cwd.as_str()), ("sA", "/\u{fffd}"));
    assert_eq!((i.name, i.parent_session), (None, None));
    assert_eq!(i.first_message, "");
    assert_eq!(i.message_count, 1);
    let quoted = SESSION.replace(r#""content":"Hi""#, r#""content":"say \"hi\"\n""#);
    let q = SessionFile::from_str(&quoted).unwrap().info().unwrap();
    assert_eq!(q.first_message, "say \"hi\"\n");
}

#[test]
fn usage_counts_the_paid_request_off_the_current_branch() {
    let s = SessionFile::from_str(SESSION).unwrap();
    let r = s.usage();
    assert_eq!(r.records.len(), 1);
    assert_eq!(
        (
            r.total.input,
            r.total.output,
            r.total.cache_read,
            r.total.cache_write,
            r.total.cost
        ),
        (1.0, 2.0, 4.0, 8.0, 16.0)
    );
    // The leaf is u2, whose path (u1, u2) paid nothing.
    assert_eq!(r.path.records, 0);
    assert_eq!(r.abandoned.cost, 16.0);
    assert_eq!(r.leaf, Some(7));
}

#[test]
fn a_v1_file_is_read_migrated_to_v3() {
    let v1 = concat!(
        r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#,
        "\n",
    );
    let s = SessionFile::from_str(v1).unwrap();
    assert!(s.migrated());
    assert!(s.to_jsonl().contains(r#""version":3"#));
    let leaf = s.leaf().unwrap();
    assert!(leaf.id().is_some_and(|id| !id.is_empty()));
    assert_eq!(leaf.parent_id(), None);
    assert_eq!(leaf.message().unwrap().text(), "Hi");
    let v3 = SessionFile::from_str(SESSION).unwrap();
    assert!(!v3.migrated());
    assert_eq!(v3.to_jsonl(), SESSION);
    assert_eq!(
        format!("{s:?}"),
        "SessionFile { entries: 2, migrated: true }"
    );
}

#[test]
fn a_created_session_is_stamped_now_with_a_uuid_v7() {
    let before = now_ms();
    assert!(before > 1.7e12, "{before}"); // after 2023
    let mut s = SessionFile::create("/w\"q").unwrap();
    let after = now_ms();
    let h = s.header().unwrap();
    let header_json = h.json().to_owned();
    assert_eq!(h.str("cwd").as_deref(), Some("/w\"q"));
    let t = crate::time::iso_utc(&h.timestamp().unwrap()).unwrap();
    assert!(before <= t && t <= after, "{before} {t} {after}");
    // A UUID v7 carries its milliseconds in its first 48 bits.
    let id = h.id().unwrap().replace('-', "");
    drop(h);
    assert_eq!(id.len(), 32);
    assert_eq!(u64::from_str_radix(&id[..12], 16).unwrap() as f64, t);
    assert_eq!(&id[12..13], "7");
    let first = s
        .append_message(r#"{"role":"user","content":"Hi"}"#)
        .unwrap();
    // pi's ids: eight hex digits.
    assert_eq!(first.len(), 8);
    assert!(first.bytes().all(|b| b.is_ascii_hexdigit()));
    let e = s.entry(&first).unwrap();
    let stamped = crate::time::iso_utc(&e.timestamp().unwrap()).unwrap();
    assert!(t <= stamped && stamped <= now_ms());
    let lines = s.take_pending_lines();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0], header_json);
    assert!(s.take_pending_lines().is_empty());
    for bad in ["", "nope", "\"s\"", "null", "{"] {
        match s.append_message(bad) {
            Err(Error::InvalidJson(why)) => {
                assert_eq!(why, format!("a message must be a JSON object: {bad}"))
            }
            other => panic!("{other:?}"),
        }
    }
    let long = format!("[{}]", "1,".repeat(100));
    match s.append_message(&long) {
        Err(Error::InvalidJson(why)) => assert_eq!(
            why,
            format!("a message must be a JSON object: {}", &long[..80])
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.len(), 2);
}

#[test]
fn set_leaf_moves_where_the_next_message_goes() {
    let mut s = SessionFile::from_str(SESSION).unwrap();
    s.set_leaf("a1").unwrap();
    assert_eq!(s.leaf().unwrap().id().as_deref(), Some("a1"));
    let id = s
        .append_message(r#"{"role":"user","content":"More"}"#)
        .unwrap();
    assert_eq!(ids(&s.branch(None).unwrap()), ["u1", "a1", id.as_str()]);
    match s.set_leaf("nope") {
        Err(Error::UnknownId(id)) => assert_eq!(id, "nope"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn appended_bytes_join_the_tree_a_whole_line_at_a_time() {
    let (head, tail) =
        SESSION.split_at(SESSION.find("{\"type\":\"message\",\"id\":\"u2\"").unwrap());
    let mut s = SessionFile::from_str(head).unwrap();
    assert_eq!(s.len(), 7);
    let (a, b) = tail.split_at(20);
    s.append_bytes(a.as_bytes());
    assert_eq!(s.len(), 7);
    s.append_bytes(b.as_bytes());
    assert_eq!(s.len(), 8);
    assert_eq!(s.leaf().unwrap().id().as_deref(), Some("u2"));
    // Lines read from the file are not handed out again.
    assert!(s.take_pending_lines().is_empty());
    assert_eq!(s.to_jsonl(), SESSION);
}

#[test]
fn entry_views_read_the_common_fields() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"custom","id":7,"parentId":null,"timestamp":"t\u0041","customType":"k","data":{"a":1}}"#,
        "\n",
        r#"{"type":"custom","id":"x\ud800","parentId":7,"timestamp":5,"customType":"k"}"#,
        "\n",
        r#"{"type":"custom","id":"c","parentId":"x\ud800","customType":"k"}"#,
        "\n",
    );
    let s = SessionFile::from_str(text).unwrap();
    let e: Vec<EntryView> = s.entries().collect();
    assert_eq!(e[1].id().as_deref(), Some("7"));
    assert_eq!(e[1].parent_id(), None);
    assert_eq!(e[1].timestamp().as_deref(), Some("tA"));
    assert_eq!(e[1].raw("timestamp"), Some(r#""t\u0041""#));
    assert_eq!(e[1].str("customType").as_deref(), Some("k"));
    assert_eq!(e[1].raw("data"), Some(r#"{"a":1}"#));
    assert_eq!(e[1].raw("nope"), None);
    assert_eq!(e[1].str("data"), None);
    assert_eq!(e[1].kind().as_deref(), Some("custom"));
    assert_eq!(e[1].json(), text.lines().nth(1).unwrap());
    assert_eq!(e[2].id().as_deref(), Some("x\u{fffd}"));
    assert_eq!(e[2].parent_id().as_deref(), Some("7"));
    assert_eq!(e[2].timestamp(), None);
    assert_eq!(e[3].parent_id().as_deref(), Some("x\u{fffd}"));
    assert_eq!(e[0].id().as_deref(), Some("s"));
    assert_eq!(e[0].parent_id(), None);
    assert_eq!(
        format!("{:?}", e[1]),
        r#"EntryView { type: Some("custom"), id: Some("7") }"#
    );
    assert!(e[1].message().is_none());
    assert!(e[1].summary().is_none());
    assert!(e[1].usage().is_none());
}

#[test]
fn message_views_read_each_block_and_the_usage() {
    let s = SessionFile::from_str(SESSION).unwrap();
    let a1 = s.entry("a1").unwrap();
    let m = a1.message().unwrap();
    assert_eq!(
        format!("{m:?}"),
        r#"MessageView { role: Some("assistant") }"#
    );
    assert!(m
        .json()
        .starts_with(r#"{"role":"assistant","content":[{"type":"text""#));
    assert!(m.json().ends_with(r#""timestamp":2000}"#));
    assert_eq!(m.role().as_deref(), Some("assistant"));
    assert_eq!(m.provider().as_deref(), Some("openai"));
    assert_eq!(m.model().as_deref(), Some("gpt-5"));
    assert_eq!(m.stop_reason().as_deref(), Some("stop"));
    assert_eq!(m.raw("timestamp"), Some("2000"));
    assert_eq!(m.raw("nope"), None);
    assert_eq!(m.text(), "A\nB");
    assert_eq!(
        m.content(),
        vec![
            Block::Text("A".into()),
            Block::Thinking("T".into()),
            Block::ToolCall {
                id: "c1".into(),
                name: "read".into(),
                arguments: r#"{"path":"x"}"#,
            },
            Block::ToolCall {
                id: "c2".into(),
                name: "ls".into(),
                arguments: "{}",
            },
            Block::Image {
                mime_type: "image/png".into(),
            },
            Block::Other(r#"{"type":"audio"}"#),
            Block::Other(r#""s""#),
            Block::Text("B".into()),
        ]
    );
    assert_eq!(
        m.usage(),
        Some(Usage {
            input: 1.0,
            output: 2.0,
            cache_read: 4.0,
            cache_write: 8.0,
            total_tokens: 15.0,
            cost: 16.0,
        })
    );
    let u1 = s.entry("u1").unwrap().message().unwrap();
    assert_eq!(u1.role().as_deref(), Some("user"));
    assert_eq!(u1.content(), [Block::Text("Hi".into())]);
    assert!(u1.usage().is_none());
    assert!(u1.provider().is_none() && u1.model().is_none() && u1.stop_reason().is_none());
    // Blocks without their fields, a content that is neither string nor array.
    let odd = concat!(
        r#"{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text"},{"type":"thinking"},{"type":"toolCall"},{"type":"image"},{"text":"no type"}]}}"#,
        "\n",
        r#"{"type":"message","id":"n","parentId":"m","timestamp":"t","message":{"role":"user","content":5,"usage":{"input":"1","output":1e999,"cacheRead":-3,"cost":7}}}"#,
        "\n",
        r#"{"type":"message","id":"o","parentId":"n","timestamp":"t","message":{"role":"user","usage":{"totalTokens":9,"cost":{"total":"2"}}}}"#,
        "\n",
    );
    let o = SessionFile::from_str(odd).unwrap();
    let m = o.entry("m").unwrap().message().unwrap();
    assert_eq!(
        m.content(),
        vec![
            Block::Text("".into()),
            Block::Thinking("".into()),
            Block::ToolCall {
                id: "".into(),
                name: "".into(),
                arguments: "{}",
            },
            Block::Image {
                mime_type: "".into()
            },
            Block::Other(r#"{"text":"no type"}"#),
        ]
    );
    assert_eq!(m.text(), "");
    let n = o.entry("n").unwrap().message().unwrap();
    assert!(n.content().is_empty());
    assert_eq!(n.text(), "");
    assert_eq!(
        n.usage(),
        Some(Usage {
            cache_read: -3.0,
            ..Usage::default()
        })
    );
    assert_eq!(
        o.entry("o").unwrap().message().unwrap().usage(),
        Some(Usage {
            total_tokens: 9.0,
            ..Usage::default()
        })
    );
}

#[test]
fn typed_reads_every_kind() {
    let text = concat!(
        r#"{"type":"session","version":"3","id":"s","timestamp":"t","cwd":5}"#,
        "\n",
        r#"{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"user","content":"Hi"}}"#,
        "\n",
        r#"{"type":"branch_summary","id":"b","parentId":"m","timestamp":"t","fromId":"root","summary":"S","details":[1],"usage":{"input":2},"fromHook":false}"#,
        "\n",
        r#"{"type":"label","id":"l","parentId":"b","timestamp":"t","targetId":"m","label":"L"}"#,
        "\n",
        r#"{"type":"session_info","id":"i","parentId":"l","timestamp":"t","name":"N"}"#,
        "\n",
        r#"{"type":"model_change","id":"mc","parentId":"i","timestamp":"t","provider":"P","modelId":"M"}"#,
        "\n",
        r#"{"type":"thinking_level_change","id":"tl","parentId":"mc","timestamp":"t","thinkingLevel":"high"}"#,
        "\n",
        r#"{"type":"custom","id":"cu","parentId":"tl","timestamp":"t","customType":"ct","data":[true]}"#,
        "\n",
        r#"{"type":"custom_message","id":"cm","parentId":"cu","timestamp":"t","customType":"ct","content":"say","display":true,"details":{"d":1}}"#,
        "\n",
        r#"{"type":"context_edit","id":"ce","parentId":"cm","timestamp":"t","targetId":"m","replacement":{"content":[{"type":"text","text":"R"}]}}"#,
        "\n",
        r#"{"type":"context_edit","id":"c2","parentId":"ce","timestamp":"t","targetId":"m","replacement":"x"}"#,
        "\n",
        r#"{"type":"context_edit","id":"c3","parentId":"c2","timestamp":"t","targetId":"m"}"#,
        "\n",
        r#"{"type":"compaction","id":"co","parentId":"c3","timestamp":"t","summary":"C","firstKeptEntryId":"m","tokensBefore":1e999,"usage":{"output":3},"fromHook":"yes","systemMessage":"P"}"#,
        "\n",
        r#"{"type":"usage","id":"us","parentId":"co","timestamp":"t","kind":"cache_warm","provider":"p","model":"m","note":"n"}"#,
        "\n",
        r#"{"type":"custom_message","id":"c4","parentId":"us","timestamp":"t","content":7,"display":false}"#,
        "\n",
        r#"{"type":"other","id":"ot","parentId":"c4","timestamp":"t"}"#,
        "\n",
        r#"{"id":"nt","parentId":"ot","timestamp":"t"}"#,
        "\n",
    );
    let s = SessionFile::from_str(text).unwrap();
    let t = |id: &str| s.entry(id).unwrap().typed();
    let TypedEntry::Header {
        version,
        cwd,
        parent_session,
    } = s.header().unwrap().typed()
    else {
        panic!()
    };
    assert_eq!((version, cwd, parent_session), (None, None, None));
    let TypedEntry::Message(m) = t("m") else {
        panic!()
    };
    assert_eq!(m.text(), "Hi");
    let TypedEntry::BranchSummary {
        from_id,
        summary,
        details,
        usage,
        from_hook,
    } = t("b")
    else {
        panic!()
    };
    assert_eq!(
        (from_id.as_deref(), summary.as_deref(), details, from_hook),
        (Some("root"), Some("S"), Some("[1]"), false)
    );
    assert_eq!(usage.map(|u| u.input), Some(2.0));
    assert_eq!(s.entry("b").unwrap().summary().as_deref(), Some("S"));
    assert_eq!(s.entry("b").unwrap().usage().map(|u| u.input), Some(2.0));
    let TypedEntry::Label { target_id, label } = t("l") else {
        panic!()
    };
    assert_eq!(
        (target_id.as_deref(), label.as_deref()),
        (Some("m"), Some("L"))
    );
    let TypedEntry::SessionInfo { name } = t("i") else {
        panic!()
    };
    assert_eq!(name.as_deref(), Some("N"));
    let TypedEntry::ModelChange { provider, model_id } = t("mc") else {
        panic!()
    };
    assert_eq!(
        (provider.as_deref(), model_id.as_deref()),
        (Some("P"), Some("M"))
    );
    let TypedEntry::ThinkingLevelChange { thinking_level } = t("tl") else {
        panic!()
    };
    assert_eq!(thinking_level.as_deref(), Some("high"));
    let TypedEntry::Custom { custom_type, data } = t("cu") else {
        panic!()
    };
    assert_eq!((custom_type.as_deref(), data), (Some("ct"), Some("[true]")));
    let TypedEntry::CustomMessage {
        custom_type,
        content,
        display,
        details,
    } = t("cm")
    else {
        panic!()
    };
    assert_eq!(custom_type.as_deref(), Some("ct"));
    assert_eq!(content, [Block::Text("say".into())]);
    assert_eq!((display, details), (true, Some(r#"{"d":1}"#)));
    let TypedEntry::CustomMessage {
        custom_type,
        content,
        display,
        ..
    } = t("c4")
    else {
        panic!()
    };
    assert_eq!((custom_type, content, display), (None, vec![], false));
    let replacement = |id: &str| match t(id) {
        TypedEntry::ContextEdit {
            target_id,
            replacement,
        } => {
            assert_eq!(target_id.as_deref(), Some("m"));
            replacement
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        replacement("ce"),
        Some(Replacement::Content(vec![Block::Text("R".into())]))
    );
    assert_eq!(replacement("c2"), None);
    assert_eq!(replacement("c3"), None);
    let TypedEntry::Compaction {
        summary,
        first_kept_entry_id,
        tokens_before,
        details,
        usage,
        from_hook,
        system_message,
    } = t("co")
    else {
        panic!()
    };
    assert_eq!(
        (summary.as_deref(), first_kept_entry_id.as_deref()),
        (Some("C"), Some("m"))
    );
    assert_eq!((tokens_before, details, from_hook), (None, None, false));
    assert_eq!(usage.map(|u| u.output), Some(3.0));
    assert!(system_message.is_none());
    let TypedEntry::Usage {
        kind,
        provider,
        model,
        usage,
        note,
    } = t("us")
    else {
        panic!()
    };
    assert_eq!(
        (
            kind.as_deref(),
            provider.as_deref(),
            model.as_deref(),
            note.as_deref()
        ),
        (Some("cache_warm"), Some("p"), Some("m"), Some("n"))
    );
    assert_eq!(usage, None);
    assert!(matches!(t("ot"), TypedEntry::Other));
    assert!(matches!(t("nt"), TypedEntry::Other));
}

#[test]
fn object_readers_take_only_their_kind() {
    let text = r#"{"n":-2.5,"big":1e999,"s":"x","t":true,"f":false,"z":null,"o":{"a":1},"a":[1]}"#;
    let o = Object::new(text, Span::new(0, text.len()));
    assert_eq!(o.number("n"), Some(-2.5));
    assert_eq!(o.number("big"), None);
    assert_eq!(o.number("s"), None);
    assert_eq!(o.number("nope"), None);
    assert_eq!(
        (o.bool("t"), o.bool("f"), o.bool("z"), o.bool("s")),
        (Some(true), Some(false), None, None)
    );
    assert_eq!(o.bool("nope"), None);
    assert_eq!(o.object("o"), Some(r#"{"a":1}"#));
    assert_eq!(o.object("a"), None);
    assert_eq!(o.str("s").as_deref(), Some("x"));
    assert_eq!(o.str("t"), None);
    assert_eq!(o.raw("z"), Some("null"));
    assert_eq!(o.member("a").map(|m| m.kind), Some(Kind::Array));
    assert!(o.member("nope").is_none());
    assert_eq!(o.blocks("s"), Some(vec![Block::Text("x".into())]));
    assert_eq!(o.blocks("a"), Some(vec![Block::Other("1")]));
    assert_eq!(o.blocks("o"), None);
    assert_eq!(o.blocks("nope"), None);
    assert_eq!(o.usage(), None);
}

#[test]
fn lossy_decodes_a_json_string_literal() {
    assert_eq!(lossy(r#""a\nb""#), "a\nb");
    assert_eq!(lossy(r#""\ud83d\ude00""#), "\u{1f600}");
    assert_eq!(lossy(r#""x\udc00""#), "x\u{fffd}");
    assert_eq!(lossy(r#""plain""#), "plain");
}

#[cfg(feature = "serde")]
#[test]
fn lone_surrogate_escapes_become_ufffd_and_nothing_else_changes() {
    let w = |s: &str| without_lone_surrogates(s).into_owned();
    // Nothing to change: the text itself, borrowed.
    for same in [
        r#""abc""#,
        r#""ab\ud83d\ude00""#,
        r#""\\ud800""#,
        r#""a\nd800""#,
        r#""\"\\""#,
        r#""\ud80""#,
        r#""\u0041""#,
        "",
    ] {
        assert!(
            matches!(without_lone_surrogates(same), Cow::Borrowed(b) if b == same),
            "{same}"
        );
    }
    assert_eq!(w(r#""x\ud800y""#), r#""x\ufffdy""#);
    assert_eq!(w(r#""x\ud800""#), r#""x\ufffd""#);
    assert_eq!(w(r#""\udc00""#), r#""\ufffd""#);
    assert_eq!(w(r#""ab\ud83d\ude00\ud800""#), r#""ab\ud83d\ude00\ufffd""#);
    assert_eq!(
        w(r#""ab\ud83d\ude00 \udc00""#),
        r#""ab\ud83d\ude00 \ufffd""#
    );
    assert_eq!(w(r#""ab\u0041\ud800""#), r#""ab\u0041\ufffd""#);
    assert_eq!(w(r#""a\u0041\udc00""#), r#""a\u0041\ufffd""#);
    assert_eq!(w(r#""ab\udc00\udc00""#), r#""ab\ufffd\ufffd""#);
    assert_eq!(w(r#""\ud800\u0041""#), r#""\ufffd\u0041""#);
    assert_eq!(w(r#""\ud800\ud800\udc00""#), r#""\ufffd\ud800\udc00""#);
    assert_eq!(w(r#""\ud800Xudc00""#), r#""\ufffdXudc00""#);
    assert_eq!(w(r#""\"\ud800""#), r#""\"\ufffd""#);
    assert_eq!(w(r#""\udfff\ud800""#), r#""\ufffd\ufffd""#);
    assert_eq!(w(r#""\ue000\ud7ff""#), r#""\ue000\ud7ff""#);
}

#[cfg(feature = "serde")]
#[test]
fn deserialize_reads_a_lone_surrogate_as_ufffd() {
    let s = SessionFile::from_str(super::tests::LONE_SURROGATE).unwrap();
    let leaf = s.leaf().unwrap();
    let v: serde_json::Value = leaf.deserialize().unwrap();
    assert_eq!(v["message"]["content"], "x\u{fffd}y");
    assert_eq!(v["id"], "a");
    let m: serde_json::Value = leaf.message().unwrap().deserialize().unwrap();
    assert_eq!(
        m,
        serde_json::json!({"role": "user", "content": "x\u{fffd}y"})
    );
}
