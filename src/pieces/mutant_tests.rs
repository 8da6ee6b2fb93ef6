//! Tests written against mutants of `pieces` (docs/mutation-log.md):
//! a text read in pieces cut anywhere gives the lines pi reads from the whole
//! text (`text.trim().split("\n")`, blank lines skipped, `JSON.parse` of
//! each), computed here the obvious way, byte by byte, with `serde_json` as
//! the JSON reader.

use super::*;
use crate::scan::is_js_space;

/// What a reader must see of each line: its number, its text (trimmed as
/// `trim()` does), whether it is valid JSON and as which value, and whether
/// its bytes are not UTF-8.
type Line = (usize, String, Option<serde_json::Value>, bool);

/// The lines of `b` as pi reads the whole text: decoded as `TextDecoder`
/// does, `trim()`med, split at `\n`, blank lines skipped.
fn reference(b: &[u8]) -> Vec<Line> {
    // The trimmed text's bytes, found from the ends one character at a time.
    let text = String::from_utf8_lossy(b);
    let trimmed = text.trim_matches(is_js_space);
    let lead = text.len() - text.trim_start_matches(is_js_space).len();
    let before = text[..lead].matches('\n').count();
    // The raw bytes of each line: `\n` is never inside a UTF-8 sequence, so the
    // lines of the source and of the decoded text pair up one to one.
    let raw_start = {
        // Where the trimmed text starts in the source: the bytes of the
        // trimmed prefix are whitespace, valid UTF-8 and so the same length.
        lead
    };
    let raw_lines: Vec<&[u8]> = if trimmed.is_empty() {
        Vec::new()
    } else {
        b[raw_start..].split(|&c| c == b'\n').collect()
    };
    let mut out = Vec::new();
    for (k, line) in trimmed.split('\n').enumerate() {
        let t = line.trim_matches(is_js_space);
        if t.is_empty() {
            continue;
        }
        let value = serde_json::from_str::<serde_json::Value>(line).ok();
        let lossy = std::str::from_utf8(raw_lines[k]).is_err();
        out.push((before + k + 1, t.to_owned(), value, lossy));
    }
    out
}

/// What `SourceLine` says of a line, in the terms of [`reference`]; the text
/// is read back from the source at the line's byte range.
fn seen(source: &[u8], l: &SourceLine<'_>) -> Line {
    let raw = &source[l.range.start as usize..l.range.end as usize];
    let text = String::from_utf8_lossy(raw)
        .trim_matches(is_js_space)
        .to_owned();
    let value = l
        .parsed
        .as_ref()
        .ok()
        .map(|v| serde_json::from_str(v.span.of(l.text)).expect("a value serde reads"));
    // The span is the line in `text`, the decoded form of the range.
    assert_eq!(
        l.span.of(l.text).trim_matches(is_js_space),
        text,
        "the span is the text of the range"
    );
    (l.number, text, value, l.lossy)
}

fn by_read_lines(b: &[u8], piece: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    read_lines(b.len() as u64, piece, &mut read, &mut |l| {
        out.push(seen(b, l))
    })
    .unwrap();
    out
}

/// `Lines` fed pieces of the lengths `cuts` gives, in turn (0 too).
fn by_cuts(b: &[u8], cuts: &mut dyn FnMut() -> usize) -> Vec<Line> {
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let (start, end, before) = parse::trimmed_range(b.len() as u64, &mut read).unwrap();
    let (start, end) = (start as usize, end as usize);
    let mut out = Vec::new();
    let mut lines = Lines::new(start as u64, before);
    let mut at = start;
    while at < end {
        let to = end.min(at + cuts());
        lines.push(&b[at..to], &mut |l| out.push(seen(b, l)));
        at = to;
        // What is held back is the torn line: the bytes since the last `\n`.
        let last_nl = b[start..at].iter().rposition(|&c| c == b'\n');
        let torn = at - last_nl.map_or(start, |p| start + p + 1);
        assert_eq!(lines.held_back(), torn);
    }
    lines.finish(&mut |l| out.push(seen(b, l)));
    out
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 16) as usize % n
    }
}

/// Texts of lines of every kind: values, malformed lines, blank lines, JS
/// whitespace that is not JSON whitespace, CRLF, and bytes that are not UTF-8.
fn texts() -> Vec<Vec<u8>> {
    let parts: [&[u8]; 18] = [
        b"{\"a\":1}",
        b"[2,3]",
        b"\"s\"",
        "{\"k\":\"\u{e9}\u{1f642}\"}".as_bytes(),
        b"{bad",
        b"\n",
        b"\n",
        b"\n",
        b"\r\n",
        b" ",
        "\u{a0}".as_bytes(),
        "\u{feff}".as_bytes(),
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
        b"{\"x\":\"\xf0\x9f\"}",
        b"null",
        b"{\"long\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
    ];
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let mut out = vec![
        b"".to_vec(),
        b"\n\n".to_vec(),
        b"\xff\n\xfe\n{}\n\xc3".to_vec(),
        b"{}\n\xff\n[1]\n\xfe\xfe\n\"\xe9\"\n{\"a\":2}".to_vec(),
    ];
    for _ in 0..120 {
        let mut b = Vec::new();
        for _ in 0..rng.below(30) {
            b.extend_from_slice(parts[rng.below(parts.len())]);
        }
        out.push(b);
    }
    out
}

#[test]
fn lines_read_in_pieces_of_any_size_are_pi_lines_of_the_whole() {
    for b in texts() {
        let want = reference(&b);
        for piece in [1, 2, 3, 4, 7, 16, 100, 1 << 16] {
            assert_eq!(
                by_read_lines(&b, piece),
                want,
                "{b:x?} in pieces of {piece}"
            );
        }
    }
}

#[test]
fn lines_read_in_pieces_cut_anywhere_are_pi_lines_of_the_whole() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for b in texts() {
        let want = reference(&b);
        for _ in 0..6 {
            let scale = [2, 9, 40, 400][rng.below(4)];
            let got = by_cuts(&b, &mut || rng.below(scale));
            assert_eq!(got, want, "{b:x?}");
        }
    }
}

#[test]
fn lines_of_a_run_that_is_not_utf8_keep_their_own_ranges() {
    // One piece holds several lines, some not UTF-8: each line's range is
    // its own bytes, counted on from the lines before it.
    let b: &[u8] = b"{\"a\":1}\n\xff{}\n\n[\"\xc3\"]\n\"ok\"\n\xe2\x82\n{\"z\":3}";
    let mut ranges = Vec::new();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    read_lines(b.len() as u64, 1 << 10, &mut read, &mut |l| {
        ranges.push((l.number, l.range.clone(), l.lossy))
    })
    .unwrap();
    assert_eq!(
        ranges,
        [
            (1, 0..7, false),
            (2, 8..11, true),
            (4, 13..18, true),
            (5, 19..23, false),
            (6, 24..26, true),
            (7, 27..34, false),
        ]
    );
}
