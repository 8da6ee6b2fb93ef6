//! The public API on hostile input and odd use: every entry point
//! (`from_str`, `from_bytes`, `from_reader` with readers that lie, `open`,
//! `append_bytes` in pieces) gives the same session for the same bytes, and
//! nothing panics.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::prelude::*;
use session_tree::{OpenOptions, SessionFile, TypedEntry};

/// Everything the API says about a session, as text, each call under
/// `catch_unwind` so that a panic is a difference with its call named.
fn summary(s: &SessionFile, input: &[u8]) -> String {
    let mut out = String::new();
    let mut put = |name: &str, f: &dyn Fn() -> String| {
        let v = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| "PANIC".to_owned());
        out.push_str(name);
        out.push_str(": ");
        out.push_str(&v);
        out.push('\n');
    };
    put("len", &|| format!("{} {}", s.len(), s.is_empty()));
    put("jsonl", &|| s.to_jsonl().into_owned());
    put("migrated", &|| s.migrated().to_string());
    put("header", &|| format!("{:?}", s.header().map(|h| h.json())));
    put("leaf", &|| format!("{:?}", s.leaf().map(|l| l.json())));
    put("entries", &|| {
        s.entries()
            .map(|e| {
                let typed = match e.typed() {
                    TypedEntry::Message(m) => format!(
                        "msg {:?} {:?} {:?} {:?}",
                        m.role(),
                        m.content(),
                        m.usage(),
                        m.text()
                    ),
                    other => format!("{other:?}"),
                };
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {typed}\n",
                    e.kind(),
                    e.id(),
                    e.parent_id(),
                    e.timestamp(),
                    e.usage()
                )
            })
            .collect()
    });
    put("tree", &|| {
        let t = s.tree();
        let roots: Vec<_> = t.roots().iter().map(|n| n.entry().json()).collect();
        let nodes: Vec<_> = t
            .preorder()
            .iter()
            .map(|n| (n.entry().json(), n.children().len(), n.label()))
            .collect();
        format!("{roots:?} {nodes:?}")
    });
    put("branch", &|| {
        format!(
            "{:?}",
            s.branch(None)
                .map(|b| b.iter().map(|e| e.json()).collect::<Vec<_>>())
        )
    });
    put("context", &|| {
        format!(
            "{:?}",
            s.context(None).map(|c| (
                c.json().to_owned(),
                c.messages().len(),
                c.thinking_level().map(|t| t.into_owned()),
                c.model_json().map(str::to_owned)
            ))
        )
    });
    put("context_entries", &|| {
        format!(
            "{:?}",
            s.context_entries(None)
                .map(|v| v.iter().map(|e| e.json()).collect::<Vec<_>>())
        )
    });
    put("projection", &|| {
        format!(
            "{:?}",
            s.projection(None).map(|p| (
                p.json().to_owned(),
                p.entries().len(),
                p.messages().len()
            ))
        )
    });
    put("system", &|| format!("{:?}", s.system_message(None)));
    put("diagnostics", &|| format!("{:?}", s.diagnostics()));
    put("info", &|| format!("{:?}", s.info()));
    put("usage", &|| format!("{:?}", s.usage()));
    // Every id as a leaf.
    put("per-id", &|| {
        let ids: Vec<String> = s
            .entries()
            .filter_map(|e| e.id().map(|i| i.into_owned()))
            .collect();
        let mut out = String::new();
        for id in ids {
            let c = s.context(Some(&id)).map(|c| c.json().len());
            let b = s.branch(Some(&id)).map(|b| b.len());
            let p = s.projection(Some(&id)).map(|p| p.json().len());
            let m = s.system_message(Some(&id)).map(|m| m.map(|m| m.len()));
            let e = s.context_entries(Some(&id)).map(|e| e.len());
            out.push_str(&format!("{id:?} {c:?} {b:?} {p:?} {m:?} {e:?}\n"));
        }
        out
    });
    if s.migrated() {
        // Migration draws random ids: name them by order of appearance.
        let input = String::from_utf8_lossy(input);
        let ids: Vec<String> = s
            .entries()
            .filter_map(|e| e.id().map(|i| i.into_owned()))
            .filter(|i| i.len() == 8 && !input.contains(i.as_str()))
            .collect();
        for (k, id) in ids.iter().enumerate() {
            out = out.replace(id.as_str(), &format!("@{k:06}"));
        }
    }
    out
}

/// A reader that hands out at most `piece` bytes a call (cycling through
/// sizes), and an `Interrupted` error now and then, as a socket may.
struct Stingy<'a> {
    bytes: &'a [u8],
    pieces: Vec<usize>,
    calls: usize,
}

impl Read for Stingy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls % 3 == 0 {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let want = self.pieces[self.calls % self.pieces.len()].max(1);
        let n = want.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn open_all_ways(bytes: &[u8], pieces: &[usize], split: usize) -> Vec<(String, String)> {
    let mut ways = Vec::new();
    let whole = SessionFile::from_bytes(bytes).expect("from_bytes");
    ways.push(("from_bytes".to_owned(), summary(&whole, bytes)));
    let reader = Stingy {
        bytes,
        pieces: pieces.to_vec(),
        calls: 0,
    };
    let read = SessionFile::from_reader(reader, &OpenOptions::default()).expect("from_reader");
    ways.push(("from_reader".to_owned(), summary(&read, bytes)));
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !text.starts_with('\u{feff}') {
            let s = SessionFile::from_str(text).expect("from_str");
            ways.push(("from_str".to_owned(), summary(&s, bytes)));
        }
    }
    // The first `split` bytes opened, the rest appended in pieces. (Lines
    // appended are not migrated: only a current file is compared so.)
    if whole.migrated() {
        return ways;
    }
    let split = split.min(bytes.len());
    let mut tail = SessionFile::from_bytes(&bytes[..split]).expect("from_bytes head");
    if tail.migrated() && !tail.is_empty() {
        return ways; // a head without the file's v3 header
    }
    // A head whose last line is whole JSON without its newline, which the
    // rest goes on with more than whitespace: the open took that line, the
    // whole file has it malformed. (Only a line that is malformed in the
    // end can do this: after a JSON object, a valid line has only
    // whitespace.) A known limit, in docs/hunt-rust-api.md.
    let head_took_its_last_line =
        split > 0 && bytes[split - 1] != b'\n' && tail.to_jsonl().ends_with('\n');
    let goes_on = bytes[split..]
        .iter()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r'))
        .is_some_and(|&c| c != b'\n');
    if head_took_its_last_line && goes_on {
        return ways;
    }
    let mut rest = &bytes[split..];
    let mut k = 0;
    while !rest.is_empty() {
        let n = pieces[k % pieces.len()].clamp(1, rest.len());
        tail.append_bytes(&rest[..n]);
        rest = &rest[n..];
        k += 1;
    }
    // A last line without its newline waits for more in a tail, where
    // `open` takes it when it is JSON: its newline is what a writer adds.
    if !bytes.ends_with(b"\n") && whole.to_jsonl().ends_with('\n') {
        tail.append_bytes(b"\n");
    }
    // (`migrated` is whether opening migrated: it says so of an empty
    // head, as pi's `migrateToCurrentVersion` does of no entries.)
    let same_flag = |s: String| {
        s.replace(
            &format!("migrated: {}\n", tail.migrated()),
            &format!("migrated: {}\n", whole.migrated()),
        )
    };
    ways.push((
        format!("from_bytes(..{split}) + append_bytes"),
        same_flag(summary(&tail, bytes)),
    ));
    ways
}

/// The first line that differs between two summaries.
fn first_difference(a: &str, b: &str) -> String {
    for (x, y) in a.lines().zip(b.lines()) {
        if x != y {
            return format!("\n  {x}\n  {y}");
        }
    }
    format!("(lengths {} {})", a.len(), b.len())
}

fn agree(bytes: &[u8], pieces: &[usize], split: usize) -> Result<(), String> {
    let ways = open_all_ways(bytes, pieces, split);
    let (name0, first) = &ways[0];
    if first.contains("PANIC") {
        return Err(format!("{name0} panicked:\n{first}"));
    }
    for (name, s) in &ways[1..] {
        if s != first {
            return Err(format!("{name} != {name0}: {}", first_difference(first, s)));
        }
    }
    Ok(())
}

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn seeds() -> Vec<Vec<u8>> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut out = vec![
        std::fs::read(format!("{root}/www/sample.jsonl")).unwrap(),
        std::fs::read(format!("{root}/tests/runtimes/fixture.jsonl")).unwrap(),
    ];
    let lines = [
        HEADER,
        r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"héllo \ud800 wörld","timestamp":1}}"#,
        r#"{"type":"message","id":"a","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c","name":"bash","arguments":{"x":1e400}}],"usage":{"input":1e400,"output":-5,"cacheRead":"7","cacheWrite":0,"totalTokens":1,"cost":{"total":1e308}},"stopReason":"toolUse"}}"#,
        r#"{"type":"label","id":"l","parentId":"a","timestamp":"2026-01-01T00:00:03.000Z","targetId":"missing","label":"x"}"#,
        r#"{"type":"compaction","id":"c","parentId":"l","timestamp":"2026-01-01T00:00:04.000Z","summary":"s","firstKeptEntryId":"a","tokensBefore":1e400}"#,
        r#"{"type":"context_edit","id":"e","parentId":"c","timestamp":"2026-01-01T00:00:05.000Z","targetId":"a","replacement":null}"#,
        r#"{"type":"message","id":"u","parentId":"e","timestamp":"9999-12-31T23:59:59.999Z","message":{"role":"user","content":"dup id"}}"#,
        r#"{"type":"branch_summary","id":"b","parentId":"b","timestamp":"x","fromId":"root","summary":"cycle"}"#,
    ];
    out.push(lines.join("\n").into_bytes());
    out.push(lines.join("\r\n").into_bytes());
    // Version 1: no ids.
    out.push(
        [
            r#"{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}"#,
            r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":100}"#,
        ]
        .join("\n")
        .into_bytes(),
    );
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, Vec<u8>),
    Remove(prop::sample::Index, usize),
    SwapLines(prop::sample::Index, prop::sample::Index),
    DuplicateLine(prop::sample::Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fragment = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\0".to_vec()),
        Just(b"\xff".to_vec()),
        Just(b"\xe2\x82".to_vec()),
        Just("\u{feff}".as_bytes().to_vec()),
        Just(b"\\ud800".to_vec()),
        Just(b"\\udc00\\ud800".to_vec()),
        Just(b"1e400".to_vec()),
        Just(b"-0".to_vec()),
        Just(b"[[[[[[[[[[[[[[[[[[[[".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"}".to_vec()),
        Just(b"\"parentId\":\"u\",".to_vec()),
        Just(b"\"id\":\"a\",".to_vec()),
        // Whitespace JS's trim takes and JSON refuses: a line ending in it
        // is an entry only as the text's last (a head's last line, until
        // the rest comes after it).
        Just("\u{2028}".as_bytes().to_vec()),
        Just("\u{a0}\n".as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (any::<prop::sample::Index>(), fragment).prop_map(|(i, f)| Mutation::Insert(i, f)),
        (any::<prop::sample::Index>(), 1usize..20).prop_map(|(i, n)| Mutation::Remove(i, n)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<prop::sample::Index>().prop_map(Mutation::DuplicateLine),
    ]
}

fn apply(mut bytes: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        match m {
            Mutation::Truncate(i) => {
                if !bytes.is_empty() {
                    bytes.truncate(i.index(bytes.len()));
                }
            }
            Mutation::Insert(i, f) => {
                let at = i.index(bytes.len() + 1);
                bytes.splice(at..at, f.iter().copied());
            }
            Mutation::Remove(i, n) => {
                if !bytes.is_empty() {
                    let at = i.index(bytes.len());
                    let end = (at + n).min(bytes.len());
                    bytes.drain(at..end);
                }
            }
            Mutation::SwapLines(a, b) | Mutation::DuplicateLine(a @ b) => {
                let mut lines: Vec<Vec<u8>> =
                    bytes.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let (x, y) = (a.index(lines.len()), b.index(lines.len()));
                if matches!(m, Mutation::DuplicateLine(_)) {
                    let l = lines[x].clone();
                    lines.insert(x, l);
                } else {
                    lines.swap(x, y);
                }
                bytes = lines.join(&b'\n');
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_entry_point_reads_a_mutated_session_alike(
        seed in any::<prop::sample::Index>(),
        ms in prop::collection::vec(mutation(), 0..6),
        pieces in prop::collection::vec(1usize..200, 1..5),
        split in any::<prop::sample::Index>(),
    ) {
        let seeds = seeds();
        let bytes = apply(seeds[seed.index(seeds.len())].clone(), &ms);
        let split = split.index(bytes.len() + 1);
        if let Err(e) = agree(&bytes, &pieces, split) {
            if let Some(dir) = std::env::var_os("HUNT_DUMP") {
                let _ = std::fs::write(std::path::Path::new(&dir).join("fail.jsonl"), &bytes);
                let _ = std::fs::write(std::path::Path::new(&dir).join("fail.txt"), format!("{pieces:?} {split}\n{e}"));
            }
            return Err(TestCaseError::fail(format!("{e}\ninput: {:?}", String::from_utf8_lossy(&bytes))));
        }
    }
}

const USER: &str = r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"café"}}"#;
const REPLY: &str = r#"{"type":"message","id":"a","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}"#;

/// A live file read while a writer is inside a character: the opened head
/// ends with half of `é`, the next read brings the other half.
#[test]
fn a_character_cut_by_the_first_read_is_whole_after_the_next() {
    let file = format!("{HEADER}\n{USER}\n");
    let cut = file.find('é').unwrap() + 1;
    let mut s = SessionFile::from_bytes(&file.as_bytes()[..cut]).unwrap();
    s.append_bytes(&file.as_bytes()[cut..]);
    assert_eq!(s.to_jsonl(), file);
    assert_eq!(s.leaf().unwrap().message().unwrap().text(), "café");
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}

/// Bytes that are not UTF-8 are reported whichever way they came in.
#[test]
fn invalid_utf8_taken_in_by_append_bytes_is_reported() {
    let file = [
        format!("{HEADER}\n").as_bytes(),
        b"{\"type\":\"custom\",\"id\":\"x\xff\",\"parentId\":null,\"timestamp\":\"t\"}\n",
    ]
    .concat();
    let whole = SessionFile::from_bytes(&file).unwrap();
    let problems = |s: &SessionFile| {
        s.diagnostics()
            .iter()
            .map(|d| d.problem)
            .collect::<Vec<_>>()
    };
    assert_eq!(problems(&whole), [session_tree::Problem::InvalidUtf8]);
    let mut tail = SessionFile::from_bytes(format!("{HEADER}\n").as_bytes()).unwrap();
    tail.append_bytes(&file[HEADER.len() + 1..]);
    assert_eq!(problems(&tail), problems(&whole));
    // And a file that is still being read, cut inside a character, is not
    // reported for the cut once the character is complete.
    let mut cut = SessionFile::from_str("").unwrap();
    let ok = format!("{HEADER}\n{USER}\n");
    let at = ok.find('é').unwrap() + 1;
    cut.append_bytes(&ok.as_bytes()[..at]);
    cut.append_bytes(&ok.as_bytes()[at..]);
    assert!(cut.diagnostics().is_empty(), "{:?}", cut.diagnostics());
}

/// A read that stops right after a line's JSON, before its newline: the
/// newline the next read brings ends that line, it is not a blank line.
#[test]
fn a_read_that_stops_before_a_newline_adds_no_blank_line() {
    let file = format!("{HEADER}\n{USER}\n{REPLY}\n");
    let cut = HEADER.len() + 1 + USER.len();
    let mut s = SessionFile::from_bytes(&file.as_bytes()[..cut]).unwrap();
    assert_eq!(s.leaf().unwrap().id().as_deref(), Some("u"));
    s.append_bytes(&file.as_bytes()[cut..]);
    assert_eq!(s.to_jsonl(), file);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    // Whitespace after the JSON and then the newline, in pieces.
    let spaced = format!("{HEADER}\n{USER} \r\n{REPLY}\n");
    let mut s = SessionFile::from_str(&spaced[..cut]).unwrap();
    for piece in [" ", "\r", "\n", &spaced[cut + 3..]] {
        s.append_bytes(piece.as_bytes());
    }
    assert_eq!(s.to_jsonl(), spaced);
    assert_eq!(s.leaf().unwrap().id().as_deref(), Some("a"));
}

/// 100,000 entries that all have one id and name it as parent, opened whole
/// and taken in by pieces. (Each such entry once re-pointed every child of
/// the id at itself: 5·10⁹ steps here. No timer guards that: speed is
/// `make bench`'s; this checks what the shape gives.)
#[test]
fn entries_that_repeat_one_id_open_whole_and_by_pieces() {
    let n = 100_000;
    let line = r#"{"type":"message","id":"x","parentId":"x","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#;
    let text = format!("{HEADER}\n{}", format!("{line}\n").repeat(n));
    let s = SessionFile::from_str(&text).unwrap();
    let branch = s.branch(None).unwrap().len();
    let mut tail = SessionFile::from_str("").unwrap();
    for piece in text.as_bytes().chunks(1 << 16) {
        tail.append_bytes(piece);
    }
    let (len, tail_len) = (s.len(), tail.len());
    assert_eq!((len, tail_len), (n + 1, n + 1));
    // The last "x" is its own parent: the walk stops at it, as pi's does at
    // an entry it has seen.
    assert_eq!(branch, 1);
}

/// Parents follow the last entry with their id, wherever it comes in the
/// file, as pi's `byId` map has it.
#[test]
fn a_repeated_id_moves_its_children_to_its_last_entry() {
    let m = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{id}"}}}}"#
        )
    };
    let text = [
        HEADER.to_owned(),
        m("c", "\"p\""), // a child before any "p"
        m("p", "null"),
        m("q", "null"),
        m("d", "\"p\""),
        m("p", "\"q\""), // a second "p": c and d now hang under it
        m("e", "\"p\""),
    ]
    .join("\n");
    let s = SessionFile::from_str(&text).unwrap();
    let path = |leaf: &str| {
        s.branch(Some(leaf))
            .unwrap()
            .iter()
            .map(|e| e.message().unwrap().text())
            .collect::<Vec<_>>()
    };
    for leaf in ["c", "d", "e"] {
        assert_eq!(path(leaf), ["q", "p", leaf]);
    }
}

/// A message pretty-printed by its caller (`serde_json::to_string_pretty`,
/// a trailing newline) is still one line of the file.
#[test]
fn a_pretty_printed_message_is_appended_as_one_line() {
    let mut s = SessionFile::create("/w").unwrap();
    let pretty = "{\n  \"role\": \"user\",\r\n  \"content\": \"line one\\nline two\"\n}\n";
    let id = s.append_message(pretty).unwrap();
    let lines = s.take_pending_lines();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| !l.contains(['\n', '\r'])), "{lines:?}");
    // The file the host writes reads back with the message, as it was given.
    let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let back = SessionFile::from_str(&file).unwrap();
    assert!(back.diagnostics().is_empty(), "{:?}", back.diagnostics());
    let leaf = back.leaf().unwrap();
    assert_eq!(leaf.id().as_deref(), Some(id.as_str()));
    let given: serde_json::Value = serde_json::from_str(pretty).unwrap();
    let read: serde_json::Value = serde_json::from_str(leaf.message().unwrap().json()).unwrap();
    assert_eq!(read, given);
    assert_eq!(back.to_jsonl(), s.to_jsonl());
}

/// An id that is the string "null" is an id like any other: the view's
/// `parent_id` names it, as the branch walks through it.
#[test]
fn a_parent_named_by_the_string_null_is_a_parent() {
    let m = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":{id},"parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"x"}}}}"#
        )
    };
    let text = [
        HEADER.to_owned(),
        m(r#""null""#, "null"),
        m(r#""c""#, r#""null""#),
    ]
    .join("\n");
    let s = SessionFile::from_str(&text).unwrap();
    let leaf = s.leaf().unwrap();
    assert_eq!(s.branch(None).unwrap().len(), 2);
    assert_eq!(leaf.parent_id().as_deref(), Some("null"));
    let root = s.entry("null").unwrap();
    assert_eq!(root.parent_id(), None);
}
