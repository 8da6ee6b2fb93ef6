//! Properties of the core over generated, mutated and arbitrary inputs.
//!
//! Bounded by default (proptest's 256 cases per property, small inputs) so that
//! `cargo test` stays quick; `PROPTEST_CASES=20000 cargo test --lib tests::properties`
//! runs longer. A failure prints a shrunk input and its seed file entry.
//!
//! Properties:
//! - nothing panics on any byte string: parse, inspect, migration plan and
//!   apply, tree, context plan and render (at the default leaf and at every id);
//! - migration is idempotent on the text form: `migrate(migrate(x)) == migrate(x)`;
//! - migration keeps every input line in its place: unchanged, or (for a line
//!   that parsed) rewritten as a JSON object; a current (v3+) file is unchanged;
//! - the tree holds every non-header entry exactly once; the context path never
//!   repeats an entry;
//! - the rendered context is valid JSON, for this crate's `JSON.parse` grammar
//!   and for serde_json (which may only refuse numbers beyond f64 and lone
//!   surrogates, both of which `JSON.parse` accepts).

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::json;

use crate::context::{self, Leaf};
use crate::diagnostics;
use crate::entry::Key;
use crate::json::{self as js, Span};
use crate::migrate;
use crate::parse::{self, LineContent};
use crate::time::IsoOnly;
use crate::tree;
use crate::Document;

// --- helpers ----------------------------------------------------------------

/// A deterministic id source: 8 hex digits counting up, skipping taken ids.
fn counter() -> impl FnMut(&crate::ids::Taken) -> String {
    let mut n: u32 = 0;
    move |taken: &crate::ids::Taken| loop {
        n = n.wrapping_add(1);
        let id = format!("{n:08x}");
        if !taken.contains(&id) {
            return id;
        }
    }
}

/// `text`'s non-blank lines, each parsed: the plain reading the one-pass
/// readers (`value_spans`, `count_values`, `Document`) are checked against.
fn all_lines(text: &str) -> Vec<parse::Line> {
    let mut reader = parse::LineReader::<true>::new(text);
    let mut out = Vec::new();
    while let Some((number, span, parsed)) = reader.next() {
        let content = match parsed {
            Ok(()) => LineContent::Value(std::mem::take(&mut reader.value)),
            Err(e) => LineContent::Malformed(e),
        };
        out.push(parse::Line {
            number,
            span,
            content,
        });
    }
    out
}

/// The first malformed line of `lines` as an error (what strict mode reports).
fn first_line_error(text: &str, lines: &[parse::Line]) -> Option<crate::ParseError> {
    lines.iter().find_map(|line| parse::line_error(text, line))
}

/// The text form of `migrate`: the input itself when the file is current.
fn migrate_text(text: &str) -> String {
    let doc = Document::parse(text);
    match migrate::plan(&doc.entries, &mut counter()) {
        Some(edits) => migrate::apply_to_text(&doc.text, &doc.lines, &edits),
        None => text.to_owned(),
    }
}

/// `lines` with only the nested members a `Document` keeps (named `role`).
fn roles_only(text: &str, mut lines: Vec<parse::Line>) -> Vec<parse::Line> {
    for line in &mut lines {
        if let LineContent::Value(v) = &mut line.content {
            v.nested.retain(|(_, m)| js::key_is(text, m.key, "role"));
        }
    }
    lines
}

/// Physical lines: split on `\n`, the empty piece after a final `\n` dropped.
fn physical_lines(text: &str) -> Vec<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    }
}

/// Runs every operation of the core over `text`; returns nothing, must not panic,
/// and checks the structural invariants that hold for any input.
fn exercise(text: &str, lossy: bool) {
    let doc = Document::parse(text);
    let _ = first_line_error(&doc.text, &doc.lines);
    let found = diagnostics::inspect(&doc, lossy);
    for d in &found {
        assert!(!d.message.is_empty());
        if let Some(line) = d.line {
            assert!(line >= 1 && line <= text.split('\n').count(), "{d:?}");
        }
    }
    let plan = migrate::plan(&doc.entries, &mut counter());
    if let Some(edits) = &plan {
        let _ = migrate::apply_to_text(&doc.text, &doc.lines, edits);
    }
    check_tree_and_context(&doc);
    // What the bindings do: migrate in memory, then tree and context.
    let migrated = Document::parse(text).migrated(&IsoOnly, &mut counter());
    check_tree_and_context(&migrated);
    let _ = diagnostics::inspect(&migrated, lossy);
}

fn check_tree_and_context(doc: &Document) {
    let entries = &doc.entries;
    let t = tree::build(entries, &tree::NativeSort);
    let order = t.preorder();
    let nodes = entries.iter().filter(|e| !e.is_header()).count();
    assert_eq!(order.len(), nodes, "every non-header entry is one node");
    let distinct: HashSet<usize> = order.iter().copied().collect();
    assert_eq!(distinct.len(), nodes, "no node twice");
    assert!(order.iter().all(|&i| !entries[i].is_header()));

    let by_id = context::index(entries);
    let find = |k: &Key| by_id.get(k).copied();
    let mut leaves: Vec<Leaf> = vec![Leaf::Last, Leaf::None];
    // Every id as a leaf, bounded so that large inputs stay linear overall.
    leaves.extend(entries.iter().take(64).map(|e| Leaf::Id(&e.id)));
    for leaf in leaves {
        let plan = context::plan(entries, &find, leaf);
        let distinct: HashSet<usize> = plan.path.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            plan.path.len(),
            "a path never repeats an entry"
        );
        let rendered = context::render(&doc.text, &|i| doc.members(i), entries, &plan);
        let whole = Span::new(0, rendered.json.len());
        if let Err(e) = js::parse(&rendered.json, whole) {
            panic!(
                "rendered context is not JSON ({e}): {}",
                clip(&rendered.json)
            );
        }
        if let Err(e) = serde_json::from_str::<serde_json::Value>(&rendered.json) {
            let why = e.to_string();
            assert!(
                why.contains("number out of range")
                    || why.contains("surrogate")
                    || why.contains("hex escape")
                    || why.contains("recursion limit"),
                "serde_json rejects the rendered context ({why}): {}",
                clip(&rendered.json)
            );
        }
    }
}

/// At most 2,000 characters of `s`, for failure messages.
fn clip(s: &str) -> String {
    let mut end = s.len().min(2000);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{}", &s[..end], if end < s.len() { "…" } else { "" })
}

// --- realistic sessions -------------------------------------------------------

const TYPES: &[&str] = &[
    "message",
    "message",
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "session",
    "mystery",
];

#[derive(Clone, Debug)]
enum Ref {
    Missing,
    Null,
    Pool(u8),
    Number(i32),
}

#[derive(Clone, Debug)]
enum Stamp {
    Iso(u32),
    Missing,
    Garbage(String),
    Number(i64),
    Local(u32),
}

#[derive(Clone, Debug)]
struct GenEntry {
    kind: usize,
    id: Option<u8>,
    parent: Ref,
    stamp: Stamp,
    role: u8,
    text: String,
    target: Ref,
}

fn ref_strategy() -> impl Strategy<Value = Ref> {
    prop_oneof![
        1 => Just(Ref::Missing),
        2 => Just(Ref::Null),
        8 => (0u8..12).prop_map(Ref::Pool),
        1 => any::<i32>().prop_map(Ref::Number),
    ]
}

fn stamp_strategy() -> impl Strategy<Value = Stamp> {
    prop_oneof![
        8 => (0u32..100_000).prop_map(Stamp::Iso),
        1 => Just(Stamp::Missing),
        1 => ".{0,12}".prop_map(Stamp::Garbage),
        1 => any::<i64>().prop_map(Stamp::Number),
        1 => (0u32..100_000).prop_map(Stamp::Local),
    ]
}

fn entry_strategy() -> impl Strategy<Value = GenEntry> {
    (
        0..TYPES.len(),
        prop::option::weighted(0.85, 0u8..12),
        ref_strategy(),
        stamp_strategy(),
        0u8..4,
        ".{0,16}",
        ref_strategy(),
    )
        .prop_map(|(kind, id, parent, stamp, role, text, target)| GenEntry {
            kind,
            id,
            parent,
            stamp,
            role,
            text,
            target,
        })
}

fn ref_json(r: &Ref) -> Option<serde_json::Value> {
    match r {
        Ref::Missing => None,
        Ref::Null => Some(serde_json::Value::Null),
        Ref::Pool(n) => Some(json!(format!("{n:08x}"))),
        Ref::Number(n) => Some(json!(n)),
    }
}

fn iso(seconds: u32) -> String {
    // 2025-01-01T00:00:00.000Z plus `seconds`, in pi's toISOString form.
    let s = seconds % 60;
    let m = (seconds / 60) % 60;
    let h = (seconds / 3600) % 24;
    let d = 1 + (seconds / 86_400) % 28;
    format!("2025-01-{d:02}T{h:02}:{m:02}:{s:02}.000Z")
}

fn entry_json(e: &GenEntry) -> serde_json::Value {
    let kind = TYPES[e.kind];
    let mut o = serde_json::Map::new();
    o.insert("type".into(), json!(kind));
    if let Some(id) = e.id {
        o.insert("id".into(), json!(format!("{id:08x}")));
    }
    if let Some(p) = ref_json(&e.parent) {
        o.insert("parentId".into(), p);
    }
    match &e.stamp {
        Stamp::Iso(s) => {
            o.insert("timestamp".into(), json!(iso(*s)));
        }
        Stamp::Missing => {}
        Stamp::Garbage(g) => {
            o.insert("timestamp".into(), json!(g));
        }
        Stamp::Number(n) => {
            o.insert("timestamp".into(), json!(n));
        }
        Stamp::Local(s) => {
            o.insert(
                "timestamp".into(),
                json!(iso(*s).replace('T', " ").replace(".000Z", "")),
            );
        }
    }
    let text = json!(e.text);
    match kind {
        "session" => {
            o.insert("version".into(), json!([1, 2, 3, 7][e.role as usize]));
            o.insert("cwd".into(), json!("/tmp"));
        }
        "message" => {
            let role = ["user", "assistant", "hookMessage", "toolResult"][e.role as usize];
            let mut m = json!({ "role": role, "content": text, "timestamp": 1735689600000u64 });
            if role == "assistant" {
                m["provider"] = json!("anthropic");
                m["model"] = json!("claude");
                m["content"] = json!([{ "type": "text", "text": e.text }]);
            }
            if e.role == 3 && e.text.len() % 2 == 1 {
                m = json!(e.text); // a message that is not an object
            }
            o.insert("message".into(), m);
        }
        "thinking_level_change" => {
            o.insert(
                "thinkingLevel".into(),
                json!(["off", "low", "high", "max"][e.role as usize]),
            );
        }
        "model_change" => {
            o.insert("provider".into(), json!("openai"));
            o.insert("modelId".into(), text);
        }
        "compaction" => {
            o.insert("summary".into(), text);
            if e.role == 0 {
                o.insert("firstKeptEntryIndex".into(), json!(e.text.len() % 6));
            } else if let Some(t) = ref_json(&e.target) {
                o.insert("firstKeptEntryId".into(), t);
            }
            o.insert("tokensBefore".into(), json!(1234));
        }
        "branch_summary" => {
            if e.role != 0 {
                o.insert("summary".into(), text);
            }
            o.insert(
                "fromId".into(),
                ref_json(&e.target).unwrap_or(json!("root")),
            );
        }
        "custom" | "mystery" => {
            o.insert("customType".into(), json!("ext"));
            o.insert("data".into(), json!({ "x": [1, 2, { "y": e.text }] }));
        }
        "custom_message" => {
            o.insert("customType".into(), json!("ext"));
            o.insert("content".into(), text);
            o.insert("display".into(), json!(e.role % 2 == 0));
            if e.role == 1 {
                o.insert("details".into(), json!({ "d": 1 }));
            }
        }
        "label" => {
            if let Some(t) = ref_json(&e.target) {
                o.insert("targetId".into(), t);
            }
            if e.role != 0 {
                o.insert("label".into(), text);
            }
        }
        "session_info" => {
            o.insert("name".into(), text);
        }
        _ => {}
    }
    serde_json::Value::Object(o)
}

#[derive(Clone, Debug)]
pub(super) struct GenSession {
    /// `None`: no header line; `Some(v)`: a header first, `version` v (0: no version key).
    header: Option<u8>,
    entries: Vec<GenEntry>,
    crlf: bool,
    final_newline: bool,
}

pub(super) fn session_strategy() -> impl Strategy<Value = GenSession> {
    (
        prop::option::weighted(0.9, 0u8..5),
        prop::collection::vec(entry_strategy(), 0..24),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(header, entries, crlf, final_newline)| GenSession {
            header,
            entries,
            crlf,
            final_newline,
        })
}

pub(super) fn session_text(s: &GenSession) -> String {
    let mut lines = Vec::new();
    if let Some(v) = s.header {
        let mut h = json!({ "type": "session", "id": "0193f2a4-0000-7000-8000-000000000001",
            "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/home/u" });
        match v {
            0 => {}
            1..=3 => h["version"] = json!(v),
            _ => h["version"] = json!("three"),
        }
        lines.push(h.to_string());
    }
    lines.extend(s.entries.iter().map(|e| entry_json(e).to_string()));
    let sep = if s.crlf { "\r\n" } else { "\n" };
    let mut text = lines.join(sep);
    if s.final_newline && !text.is_empty() {
        text.push_str(sep);
    }
    text
}

// --- mutations ------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    FlipByte(Index, u8),
    DeleteLine(Index),
    DuplicateLine(Index),
    SwapLines(Index, Index),
    Truncate(Index),
    Insert(Index, &'static [u8]),
}

const INSERTS: &[&[u8]] = &[
    b"{",
    b"}",
    b"\"",
    b"\\",
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b",",
    b"[",
    b"\\u",
    b"\\ud800",
    b" ",
    b"\n\n",
    b"1e400",
    b"-0",
    b"\xe2\x80\xa8",
    b"\xc2\xa0",
];

fn mutation_strategy() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), 1u8..=255).prop_map(|(i, x)| Mutation::FlipByte(i, x)),
        2 => any::<Index>().prop_map(Mutation::DeleteLine),
        2 => any::<Index>().prop_map(Mutation::DuplicateLine),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        4 => (any::<Index>(), prop::sample::select(INSERTS)).prop_map(|(i, b)| Mutation::Insert(i, b)),
    ]
}

fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        match m {
            Mutation::FlipByte(i, x) if !bytes.is_empty() => {
                let at = i.index(bytes.len());
                bytes[at] ^= x;
            }
            Mutation::Truncate(i) if !bytes.is_empty() => {
                let at = i.index(bytes.len());
                bytes.truncate(at);
            }
            Mutation::Insert(i, ins) => {
                let at = i.index(bytes.len() + 1);
                bytes.splice(at..at, ins.iter().copied());
            }
            Mutation::DeleteLine(i) | Mutation::DuplicateLine(i) => {
                let mut lines = split_lines(&bytes);
                let at = i.index(lines.len());
                if matches!(m, Mutation::DeleteLine(_)) {
                    lines.remove(at);
                } else {
                    let copy = lines[at].clone();
                    lines.insert(at, copy);
                }
                bytes = lines.join(&b'\n');
            }
            Mutation::SwapLines(a, b) => {
                let mut lines = split_lines(&bytes);
                let (a, b) = (a.index(lines.len()), b.index(lines.len()));
                lines.swap(a, b);
                bytes = lines.join(&b'\n');
            }
            _ => {}
        }
    }
    bytes
}

fn mutated_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        session_strategy(),
        prop::collection::vec(mutation_strategy(), 0..6),
    )
        .prop_map(|(s, ms)| mutate(session_text(&s).into_bytes(), &ms))
}

/// Arbitrary bytes biased towards JSON's structural characters.
fn jsonish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => prop::sample::select(b"{}[]\":,\\\n\r 0123456789-+.eEtrufalsn\tu".to_vec()),
        1 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..400)
}

// --- properties -----------------------------------------------------------------

fn check_migration(text: &str) -> Result<(), TestCaseError> {
    let once = migrate_text(text);
    // The lines the migration carries over are the lines of its text.
    let doc = Document::parse(text);
    if let Some(edits) = migrate::plan(&doc.entries, &mut counter()) {
        let (migrated, lines) = migrate::apply_with_lines(&doc.text, doc.lines.clone(), &edits);
        prop_assert_eq!(&migrated, &once);
        prop_assert_eq!(
            roles_only(&migrated, lines),
            roles_only(&migrated, all_lines(&migrated)),
            "carried lines differ from a parse"
        );
    }
    // The one-pass migration, where it takes the file on, writes the same text
    // (with the same ids: both count up from 1, skipping taken ones).
    let mut n: u32 = 0;
    let mut draw = || {
        n = n.wrapping_add(1);
        n.to_be_bytes()
    };
    if let Some(one_pass) = migrate::migrate_in_one_pass(text, &mut draw) {
        prop_assert_eq!(&one_pass, &once, "the one-pass migration differs");
    }
    // Where it does, the entries it reads on the way are those of its text.
    let mut n: u32 = 0;
    let mut draw = || {
        n = n.wrapping_add(1);
        Ok::<_, ()>(n.to_be_bytes())
    };
    let migrated = crate::document::Entries::migrated_in_one_pass(text, &mut draw, &IsoOnly);
    if let Ok(Some(migrated)) = migrated {
        prop_assert_eq!(&migrated.text, &once);
        let read = Document::parse(&once);
        prop_assert_eq!(
            format!("{:?}", migrated.entries),
            format!("{:?}", read.entries)
        );
        prop_assert_eq!(migrated.spans, read.spans);
    }
    let twice = migrate_text(&once);
    prop_assert_eq!(&twice, &once, "migrate is not idempotent");

    let doc = Document::parse(text);
    if migrate::plan(&doc.entries, &mut counter()).is_none() {
        prop_assert_eq!(&once, text, "a current file must come back unchanged");
        return Ok(());
    }
    // Every line in its place: same count; a changed line was a value and is an object now.
    let (ins, outs) = (physical_lines(text), physical_lines(&once));
    prop_assert_eq!(
        ins.len(),
        outs.len(),
        "line count changed:\n{:?}\n{:?}",
        text,
        once
    );
    let values: HashSet<usize> = doc
        .lines
        .iter()
        .filter(|l| matches!(l.content, LineContent::Value(_)))
        .map(|l| l.number)
        .collect();
    for (n, (a, b)) in ins.iter().zip(&outs).enumerate() {
        if a != b {
            prop_assert!(
                values.contains(&(n + 1)),
                "line {} changed but was not an entry: {:?} -> {:?}",
                n + 1,
                a,
                b
            );
            // The text's own trim() may have cut JS-only whitespace (U+2028, NBSP) around it.
            let b = b.trim_matches(crate::scan::is_js_space);
            let v = js::parse(b, Span::new(0, b.len()));
            prop_assert!(
                matches!(v, Ok(ref v) if v.kind == js::Kind::Object),
                "line {} rewritten to a non-object: {:?}",
                n + 1,
                b
            );
        }
    }
    // The migrated file is current, and every entry has a string id and a parentId.
    let after = Document::parse(&once);
    prop_assert!(migrate::plan(&after.entries, &mut counter()).is_none_or(|e| e.is_empty()));
    Ok(())
}

proptest! {
    // ProptestConfig::default() reads PROPTEST_CASES (256 when unset).
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, matches!(text, std::borrow::Cow::Owned(_)));
    }

    #[test]
    fn counting_raw_bytes_equals_counting_their_decoded_lines(bytes in prop_oneof![jsonish_bytes(), mutated_strategy()]) {
        let text = crate::parse::decode(&bytes);
        let parsed = all_lines(&text)
            .iter()
            .filter(|l| matches!(l.content, crate::parse::LineContent::Value(_)))
            .count();
        prop_assert_eq!(crate::parse::count_values_in_bytes(&bytes), parsed);
        prop_assert_eq!(crate::parse::count_values(&text), parsed);
    }

    #[test]
    fn value_spans_are_the_lines_that_parse(bytes in prop_oneof![jsonish_bytes(), mutated_strategy()]) {
        let text = crate::parse::decode(&bytes);
        let lines = all_lines(&text);
        let values: Vec<&str> = lines
            .iter()
            .filter_map(|l| match &l.content {
                LineContent::Value(v) => Some(v.span.of(&text)),
                LineContent::Malformed(_) => None,
            })
            .collect();
        let (spans, first_error) = crate::parse::value_spans(&text);
        let found: Vec<&str> = spans.iter().map(|s| s.of(&text).trim_matches([' ', '\t', '\r'])).collect();
        prop_assert_eq!(found, values);
        prop_assert_eq!(first_error, first_line_error(&text, &lines));
    }

    #[test]
    fn a_document_keeps_the_facts_of_every_value_line(bytes in prop_oneof![jsonish_bytes(), mutated_strategy()]) {
        let text = crate::parse::decode(&bytes);
        let mut unique = 0;
        let full: Vec<crate::entry::Entry> = all_lines(&text)
            .iter()
            .filter_map(|l| match &l.content {
                // Falsy values are no entries, as pi 1.6's file loader reads them.
                LineContent::Value(v) if crate::parse::is_kept(&text, v) => {
                    Some(crate::entry::Entry::from_json(&text, v, Some(&IsoOnly), &mut unique))
                }
                _ => None,
            })
            .collect();
        // As text: NaN (a time, a version) is not equal to itself.
        let doc = Document::parse(&text);
        prop_assert_eq!(format!("{:?}", doc.entries), format!("{full:?}"));
        // The one pass for a tree reads the same entries at the same places,
        // or hands back a text that needs migrating.
        match crate::document::Entries::read(text.clone().into_owned(), &IsoOnly) {
            Ok(read) => {
                prop_assert!(crate::migrate::is_current(&doc.entries));
                prop_assert_eq!(format!("{:?}", read.entries), format!("{full:?}"));
                prop_assert_eq!(read.spans, doc.spans);
                prop_assert_eq!(read.text, text.as_ref());
            }
            Err(back) => {
                prop_assert!(!crate::migrate::is_current(&doc.entries));
                prop_assert_eq!(back, text.as_ref());
            }
        }
    }

    #[test]
    fn counting_in_pieces_equals_counting_the_whole(bytes in prop_oneof![jsonish_bytes(), mutated_strategy()], piece in 1usize..300) {
        let whole = crate::parse::count_values_in_bytes(&bytes);
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&bytes[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        prop_assert_eq!(crate::parse::count_values_in_pieces(bytes.len() as u64, piece, &mut read), Ok(whole));
    }

    #[test]
    fn an_index_read_in_pieces_gives_the_tree_of_the_document(bytes in prop_oneof![jsonish_bytes(), mutated_strategy(), session_strategy().prop_map(|s| session_text(&s).into_bytes())], piece in 1usize..300) {
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&bytes[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let index = crate::index::Index::read(bytes.len() as u64, piece, &mut read, &IsoOnly).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let doc = Document::parse(&text);
        prop_assert_eq!(index.len(), doc.entries.len());
        prop_assert_eq!(index.is_current(), crate::migrate::is_current(&doc.entries));
        prop_assert_eq!(index.lossy, std::str::from_utf8(&bytes).is_err());
        let info = crate::session_info::session_info_in_pieces(bytes.len() as u64, piece, &mut read, &IsoOnly);
        prop_assert_eq!(info, Ok(crate::session_info::session_info(&text, &IsoOnly)));
        let sort = crate::tree::NativeSort;
        prop_assert_eq!(index.tree(&sort), crate::tree::build(&doc.entries, &sort));
        for i in 0..index.len() {
            let r = index.range(i);
            let line = String::from_utf8_lossy(&bytes[r.start as usize..r.end as usize]).into_owned();
            prop_assert_eq!(line.trim_matches([' ', '\t', '\r']), doc.spans[i].of(&text));
            prop_assert_eq!(index.entry_id(i), doc.entries[i].id.clone());
        }
    }

    #[test]
    fn a_context_through_the_index_is_the_context_of_the_document(
        bytes in prop_oneof![mutated_strategy(), session_strategy().prop_map(|s| session_text(&s).into_bytes())],
        piece in 1usize..300,
        pick in any::<Index>(),
    ) {
        // Current files only: an old one through a source is read whole.
        let text = migrate_text(&String::from_utf8_lossy(&bytes));
        let bytes = text.as_bytes();
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&bytes[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let index = crate::index::Index::read(bytes.len() as u64, piece, &mut read, &IsoOnly).unwrap();
        prop_assume!(index.is_current());
        let doc = Document::parse(&text);
        let by_id = context::index(&doc.entries);
        let some_id = (!doc.entries.is_empty()).then(|| doc.entries[pick.index(doc.entries.len())].id.clone());
        let missing = Key::Str("no such id".into());
        let mut leaves = vec![Leaf::Last, Leaf::None, Leaf::Id(&missing)];
        if let Some(id) = some_id.as_ref().filter(|k| k.truthy()) {
            leaves.push(Leaf::Id(id));
        }
        for leaf in leaves {
            let plan = context::plan(&doc.entries, &|k| by_id.get(k).copied(), leaf);
            let whole = context::render(&doc.text, &|i| doc.members(i), &doc.entries, &plan);
            let whole_entries = context::render_entries(&doc.text, &doc.spans, &plan);
            let (part, part_plan) = index.context(leaf, u64::MAX, &mut read, &IsoOnly).unwrap();
            let got = context::render(&part.text, &|i| part.members(i), &part.entries, &part_plan);
            prop_assert_eq!(&got.json, &whole.json, "leaf {:?}", leaf);
            prop_assert_eq!(format!("{:?}", got.fixups), format!("{:?}", whole.fixups));
            prop_assert_eq!(context::render_entries(&part.text, &part.spans, &part_plan), whole_entries);
        }
        // A path over the limit is refused before it is read.
        if doc.entries.iter().any(|e| !e.is_header()) {
            let refused = index.context(Leaf::Last, 0, &mut read, &IsoOnly);
            let too_large = matches!(refused, Err(crate::index::IndexError::PathTooLarge { .. }));
            prop_assert!(too_large);
        }
    }

    #[test]
    fn no_panic_on_jsonish_bytes(bytes in jsonish_bytes()) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, false);
        check_migration(&text)?;
    }

    #[test]
    fn no_panic_on_mutated_sessions(bytes in mutated_strategy()) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, matches!(text, std::borrow::Cow::Owned(_)));
    }

    #[test]
    fn generated_sessions_are_clean_of_panics(s in session_strategy()) {
        exercise(&session_text(&s), false);
    }

    #[test]
    fn migration_is_idempotent_and_keeps_lines_on_generated(s in session_strategy()) {
        check_migration(&session_text(&s))?;
    }

    #[test]
    fn migration_is_idempotent_and_keeps_lines_on_v1_shaped(s in session_strategy()) {
        // As pi's older versions wrote them: a header first, entries without ids.
        let entries = s.entries.into_iter().map(|e| GenEntry { id: None, ..e }).collect();
        let v1 = GenSession { header: Some(s.header.unwrap_or(0) % 3), entries, ..s };
        check_migration(&session_text(&v1))?;
    }

    #[test]
    fn migration_is_idempotent_and_keeps_lines_on_mutated(bytes in mutated_strategy()) {
        check_migration(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn migration_is_idempotent_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        check_migration(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn v3_files_are_returned_unchanged(s in session_strategy(), ms in prop::collection::vec(mutation_strategy(), 0..4)) {
        // A v3 header first, then anything: the file is current.
        let mut bytes = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".to_vec();
        let body = mutate(session_text(&GenSession { header: None, ..s }).into_bytes(), &ms);
        bytes.extend(body);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let doc = Document::parse(&text);
        // Only if the mutations left the first header in place with version 3.
        if migrate::declared_version(&doc.entries) >= 3.0 {
            prop_assert!(migrate::plan(&doc.entries, &mut counter()).is_none());
            prop_assert_eq!(migrate_text(&text), text);
        }
    }
}

/// Fixed cases that once were (or could plausibly be) edge cases.
#[test]
fn edge_cases_do_not_panic() {
    let deep_open = "[".repeat(100_000);
    let deep_pair = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let deep_obj = format!(
        "{{\"type\":\"message\",\"id\":\"a\",\"message\":{}1{}}}",
        "{\"a\":".repeat(20_000),
        "}".repeat(20_000)
    );
    let cases: Vec<String> = vec![
        String::new(),
        "\n".into(),
        "\u{feff}".into(),
        "\u{feff}\n\u{feff}".into(),
        "\r".into(),
        "\0".into(),
        "\"".into(),
        "\\".into(),
        "{".into(),
        "{\"".into(),
        "{\"a\":\"\\u".into(),
        "{\"a\":\"\\ud800\"}".into(),
        "{\"type\":\"session\",\"version\":1e400}".into(),
        "{\"type\":\"session\",\"version\":-0}\n{\"type\":\"message\"}".into(),
        "{\"type\":\"session\",\"version\":\"2\"}\n{\"type\":\"message\",\"message\":{\"role\":\"hookMessage\"}}".into(),
        "{\"type\":\"compaction\",\"firstKeptEntryIndex\":1e400}".into(),
        "{\"type\":\"compaction\",\"firstKeptEntryIndex\":-0}".into(),
        "{\"type\":\"compaction\",\"firstKeptEntryIndex\":18446744073709551617}".into(),
        "{\"type\":\"message\",\"timestamp\":\"+275760-09-13T00:00:00.001Z\"}".into(),
        "{\"type\":\"message\",\"timestamp\":\"9999-99-99T99:99:99.999Z\"}".into(),
        "{\"type\":\"message\",\"timestamp\":[\"2025-01-01T00:00:00.000Z\"]}".into(),
        "{\"type\":\"message\",\"timestamp\":[\"\\ud800\"]}".into(),
        "{\"type\":\"message\",\"timestamp\":[[[[\"x\"]]]]}".into(),
        "{\"type\":\"message\",\"timestamp\":1e400}".into(),
        "{\"type\":\"message\",\"timestamp\":-1e400}".into(),
        "{\"type\":\"message\",\"id\":\"\\u0000\",\"parentId\":\"\\u0000\"}".into(),
        "{\"type\":\"label\",\"targetId\":{},\"label\":1}".into(),
        "\u{2028}{}\u{2029}".into(),
        deep_open,
        deep_pair,
        deep_obj,
    ];
    for c in &cases {
        exercise(c, false);
        let _ = migrate_text(c);
    }
}
