//! The four readers of a text in pieces (a count, the session list's info,
//! lines with their ranges, a session tailing its file), all built on
//! `parse::LineRuns`, against their whole-text forms: pieces of every size
//! over texts that CRLF, a lone `\r`, blank lines, invalid UTF-8, characters
//! cut in two, a line longer than many pieces or a missing final newline
//! could make read differently.

use crate::parse::{self, LineContent};
use crate::pieces;
use crate::session::Session;
use crate::session_info::{session_info, session_info_in_pieces};
use crate::time::IsoOnly;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/w"}"#;

/// A user message entry whose content is the JSON string body `content`.
fn user(id: &str, parent: &str, content: &[u8]) -> Vec<u8> {
    let mut line = format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-03-02T00:00:00.000Z","message":{{"role":"user","content":""#
    )
    .into_bytes();
    line.extend_from_slice(content);
    line.extend_from_slice(br#""}}"#);
    line
}

/// Session texts, each the header line and then what a writer appended.
fn texts() -> Vec<(Vec<u8>, Vec<u8>)> {
    let a = user("a", "null", "h\u{e9}llo \u{1f642}".as_bytes());
    let b = user("b", "\"a\"", b"x");
    let bad = user("c", "\"b\"", b"\xff\xe2\x82 \xf0\x9f");
    let long = user("d", "\"a\"", "\u{e9}\u{1f642}x".repeat(100).as_bytes());
    let name = br#"{"type":"session_info","id":"n","parentId":"a","name":" n\u00e9 "}"#;
    let cat = |parts: &[&[u8]]| parts.concat();
    vec![
        (
            format!("\u{feff}{HEADER}\r\n").into_bytes(),
            cat(&[&a, b"\r\n\r\n", &b, b"\r\n"]),
        ),
        (
            format!("{HEADER}\n").into_bytes(),
            cat(&[&a, b"\r", &b, b"\r\r", &b, b"\n\r"]),
        ),
        (
            format!("{HEADER}\n").into_bytes(),
            cat(&[&a, b"\n", &bad, b"\n", &b]),
        ),
        (
            format!("{HEADER}\n").into_bytes(),
            cat(&[&long, b"\n\n{bad\n", &b, b"\n", &long]),
        ),
        (
            format!(" \n\n{HEADER}\n").into_bytes(),
            cat(&[&a, b"\n\xc2\xa0\n", name, b"\n", &b, b"\n{\"type\":\"mess"]),
        ),
        (
            format!("{HEADER}\n").into_bytes(),
            cat(&[&a, "\n\u{a0}".as_bytes()]),
        ),
        (format!("{HEADER}\n").into_bytes(), b"\n".to_vec()),
        (Vec::new(), Vec::new()),
    ]
}

/// Reads `b` as a source held elsewhere.
fn source(b: &[u8]) -> impl FnMut(u64, u64, &mut Vec<u8>) -> Result<(), ()> + '_ {
    |from, to, buf| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok(())
    }
}

/// Every piece size from 1 to past the whole text.
fn sizes(b: &[u8]) -> std::ops::RangeInclusive<usize> {
    1..=b.len() + 1
}

#[test]
fn a_count_in_pieces_is_the_count_of_the_whole() {
    for (head, rest) in texts() {
        let b = [head, rest].concat();
        let whole = parse::count_values_in_bytes(&b);
        for piece in sizes(&b) {
            let got = parse::count_values_in_pieces(b.len() as u64, piece, &mut source(&b));
            assert_eq!(got, Ok(whole), "{b:?} in pieces of {piece}");
        }
    }
}

#[test]
fn session_info_in_pieces_is_that_of_the_whole() {
    for (head, rest) in texts() {
        let b = [head, rest].concat();
        let whole = session_info(&parse::decode(&b), &IsoOnly);
        for piece in sizes(&b) {
            let got = session_info_in_pieces(b.len() as u64, piece, &mut source(&b), &IsoOnly);
            assert_eq!(got, Ok(whole.clone()), "{b:?} in pieces of {piece}");
        }
    }
}

#[test]
fn lines_in_pieces_are_the_lines_of_the_whole() {
    // (number, value text or None, the line's bytes when decoding kept them).
    type Seen = Vec<(usize, Option<String>, Vec<u8>)>;
    for (head, rest) in texts() {
        let b = [head, rest].concat();
        let text = parse::decode(&b);
        let whole: Seen = parse::lines(&text)
            .into_iter()
            .map(|l| {
                let value = match &l.content {
                    LineContent::Value(v) => Some(v.span.of(&text).to_owned()),
                    LineContent::Malformed(_) => None,
                };
                (l.number, value, l.span.of(&text).as_bytes().to_vec())
            })
            .collect();
        for piece in sizes(&b) {
            let mut got: Seen = Vec::new();
            pieces::read_lines(b.len() as u64, piece, &mut source(&b), &mut |l| {
                let value = l.parsed.as_ref().ok().map(|v| v.span.of(l.text).to_owned());
                // A line that is not UTF-8 is compared as its decoded text.
                let bytes = &b[l.range.start as usize..l.range.end as usize];
                let bytes = parse::decode(bytes).into_owned().into_bytes();
                got.push((l.number, value, bytes));
            })
            .unwrap();
            assert_eq!(got, whole, "{b:?} in pieces of {piece}");
        }
    }
}

/// What a session that tails its file shows of it.
fn facts(s: &mut Session) -> String {
    let seen = format!(
        "{:?}\n{:?}\n{:?}\n{}\n{:?}",
        s.text(),
        s.open_line(),
        s.entries(),
        s.line_count(),
        s.leaf(),
    );
    format!("{seen}\n{:?}", s.take_pending_lines())
}

#[test]
fn a_session_fed_in_pieces_is_one_fed_at_once() {
    for (head, rest) in texts() {
        let Ok(head) = String::from_utf8(head) else {
            continue;
        };
        if head.is_empty() {
            continue;
        }
        let open = || Session::open(head.clone(), &IsoOnly).unwrap();
        let mut whole = open();
        whole.append_jsonl(&rest, &IsoOnly);
        let whole = facts(&mut whole);
        for piece in sizes(&rest) {
            let mut s = open();
            for p in rest.chunks(piece) {
                s.append_jsonl(p, &IsoOnly);
            }
            assert_eq!(facts(&mut s), whole, "{rest:?} in pieces of {piece}");
        }
    }
}
