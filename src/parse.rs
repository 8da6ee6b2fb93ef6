//! JSONL session text into lines, as pi's `parseSessionEntries` reads it.
//!
//! pi does `content.trim().split("\n")`, skips lines that `trim()` empties and
//! `JSON.parse`s the rest, dropping those that throw. The same happens here, with
//! JS's notion of whitespace for `trim()` and JSON's for the lines themselves,
//! and each line keeps its number in the file so errors can point at it.

use std::borrow::Cow;
use std::fmt;

use crate::json::{self, Span, SyntaxError, Value};
use crate::scan::is_js_space;

/// A line that is not JSON: where, and why (`JSON.parse` would throw on it).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.reason
        )
    }
}

impl std::error::Error for ParseError {}

/// Decodes bytes as `TextDecoder` (and Node's `utf8` decoding) does: each
/// invalid sequence becomes U+FFFD. A leading BOM is kept; `trim()` drops it.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// [`decode`] of owned bytes: valid UTF-8 becomes the text in place, without
/// a second copy. Also says whether anything was replaced.
pub fn into_text(bytes: Vec<u8>) -> (String, bool) {
    // The core's check (SIMD in wasm, ASCII blocks skipped), not std's.
    if crate::scan::is_utf8(&bytes) {
        // SAFETY: `is_utf8` just said `bytes` is UTF-8, as `from_utf8` would.
        (unsafe { String::from_utf8_unchecked(bytes) }, false)
    } else {
        (decode(&bytes).into_owned(), true)
    }
}

/// Whether pi 1.6's file loader keeps a line's value as an entry: it skips
/// the falsy ones (`null`, `false`, `0`, `""`), which its string parser
/// `parseSessionEntries` (and so [`value_spans`]) keeps.
pub fn is_kept(text: &str, value: &Value) -> bool {
    if value.kind == json::Kind::Object {
        return true;
    }
    let raw = value
        .span
        .of(text)
        .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    json::truthy(value.kind, raw)
}

/// What one line of the file holds.
#[derive(Clone, Debug, PartialEq)]
pub enum LineContent {
    /// A JSON value: an entry (or, in a broken file, something else).
    Value(json::Value),
    Malformed(SyntaxError),
}

/// A non-blank line inside the trimmed text.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// 1-based line number in the file as given.
    pub number: usize,
    /// The text `JSON.parse` sees for this line.
    pub span: Span,
    pub content: LineContent,
}

impl Line {
    /// Moves the line `by` bytes later in its text.
    pub fn shift(&mut self, by: isize) {
        self.span = self.span.shifted(by);
        match &mut self.content {
            LineContent::Value(v) => v.shift(by),
            LineContent::Malformed(e) => e.offset = e.offset.wrapping_add_signed(by),
        }
    }
}

/// Splits `text` into its non-blank lines and parses each: the plain form of
/// [`LineReader`] that the tests check the one-pass readers against (the
/// crate itself reads lines only through [`LineReader`]).
#[cfg(test)]
pub fn lines(text: &str) -> Vec<Line> {
    let mut reader = LineReader::<true>::new(text);
    let mut out = Vec::new();
    while let Some((number, span, parsed)) = reader.next() {
        let content = match parsed {
            Ok(()) => LineContent::Value(std::mem::take(&mut reader.value)),
            Err(e) => LineContent::Malformed(e),
        };
        out.push(Line {
            number,
            span,
            content,
        });
    }
    out
}

/// The non-blank lines of a text, read one at a time into one [`Value`] that
/// is reused, for a pass that needs each line only while it reads it. With `RECORD` off, lines are only validated (the
/// value stays empty) and a valid line's span may hold JSON whitespace
/// around its value.
///
/// One pass per line: [`json::parse_line_into`] (or [`json::validate_line`])
/// finds a valid line's end as it reads it. Only a line that is not one JSON
/// text is looked at again: its end found by [`crate::scan::newline`], and
/// [`json::parse`] of its span giving the error (or nothing, for a blank line).
pub struct LineReader<'t, const RECORD: bool> {
    text: &'t str,
    start: usize,
    end: usize,
    number: usize,
    done: bool,
    /// The value of the line last read, when it was one JSON text.
    pub value: Value,
}

impl<'t, const RECORD: bool> LineReader<'t, RECORD> {
    pub fn new(text: &'t str) -> Self {
        let (start, end) = trimmed(text);
        let number = text.as_bytes()[..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        LineReader {
            text,
            start,
            end,
            number,
            done: start >= end,
            value: Value::default(),
        }
    }

    /// [`LineReader::new`] of a text that more follows (an unfinished line
    /// held apart from it): its start is trimmed as `trim()` trims the whole
    /// text's, its end is not, for its last line is not the whole text's
    /// last (a line ending in U+2028 there is malformed, as in the middle).
    pub fn open_ended(text: &'t str) -> Self {
        let mut reader = Self::new(text);
        reader.end = text.len();
        reader.done = reader.start >= reader.end;
        reader
    }

    /// The lines of `text`, a run of whole lines from inside a trimmed text
    /// (see [`crate::pieces`]): nothing is trimmed, and the first line is
    /// numbered `before + 1`. An empty `text` is one blank line.
    pub fn within(text: &'t str, before: usize) -> Self {
        LineReader {
            text,
            start: 0,
            end: text.len(),
            number: before,
            done: false,
            value: Value::default(),
        }
    }

    /// The number of the line last read (lines before the first: the
    /// `before` given).
    pub fn number(&self) -> usize {
        self.number
    }

    /// The next non-blank line: its 1-based number, its span, and `Ok` when
    /// it is one JSON text (then in [`LineReader::value`]), else why not.
    #[allow(clippy::should_implement_trait)] // it lends `value`: not an Iterator
    pub fn next(&mut self) -> Option<(usize, Span, Result<(), SyntaxError>)> {
        let text = self.text;
        while !self.done {
            self.number += 1;
            let start = self.start;
            let valid = if RECORD {
                json::parse_line_into(text, start, self.end, &mut self.value)
            } else {
                json::validate_line(text.as_bytes(), start, self.end)
            };
            if let Some(end) = valid {
                self.start = end + 1;
                self.done = self.start > self.end;
                return Some((self.number, Span::new(start, end), Ok(())));
            }
            let end = crate::scan::newline(text.as_bytes(), start).min(self.end);
            self.start = end + 1;
            self.done = self.start > self.end;
            let span = Span::new(start, end);
            if !span.of(text).trim_matches(is_js_space).is_empty() {
                let parsed = json::parse(text, span).map(|v| {
                    if RECORD {
                        self.value = v;
                    }
                });
                return Some((self.number, span, parsed));
            }
        }
        None
    }
}

/// How many lines `JSON.parse` accepts, building nothing.
pub fn count_values(text: &str) -> usize {
    count_values_in_bytes(text.as_bytes())
}

/// [`count_values`] on bytes as they come, without decoding them first: the
/// count is that of their decoded text (see [`json::validate_line`]). Only
/// the ends of the text are decoded, for `trim()`; a blank line is never valid
/// JSON, so it needs no test of its own.
pub fn count_values_in_bytes(b: &[u8]) -> usize {
    // An all-blank text trims to nothing: its start is then past its end.
    b.get(trim_start(b)..trim_end(b)).map_or(0, count_lines)
}

/// Reads bytes `from..to` of a text held elsewhere (a file, a JS source),
/// appending them to the buffer; fails as the source does.
pub type ReadAt<'r, E> = dyn FnMut(u64, u64, &mut Vec<u8>) -> Result<(), E> + 'r;

/// Where `trim()` starts and ends a text of `len` bytes held elsewhere, and
/// how many `\n` come before its start, read from windows at either end that
/// grow until the trimming stops well inside one.
pub fn trimmed_range<E>(len: u64, read: &mut ReadAt<'_, E>) -> Result<(u64, u64, usize), E> {
    let mut buf = Vec::new();
    let mut window: u64 = 4096;
    let (start, before) = loop {
        buf.clear();
        read(0, window.min(len), &mut buf)?;
        let start = trim_start(&buf);
        if start + 4 <= buf.len() || buf.len() as u64 == len {
            let before = buf[..start].iter().filter(|&&b| b == b'\n').count();
            break (start as u64, before);
        }
        window *= 4;
    };
    window = 4096;
    let end = loop {
        let from = len - window.min(len);
        buf.clear();
        read(from, len, &mut buf)?;
        let end = trim_end(&buf);
        if end >= 4 || from == 0 {
            break from + end as u64;
        }
        window *= 4;
    };
    Ok((start, end.max(start), before))
}

/// [`count_values_in_bytes`] of a text of `len` bytes held elsewhere, read
/// a piece of about `piece` bytes at a time. A piece stays in the processor's
/// cache between its copy and its scan, and memory use stays near `piece`
/// plus the longest line.
pub fn count_values_in_pieces<E>(
    len: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
) -> Result<usize, E> {
    let (start, end, _) = trimmed_range(len, read)?;
    let mut count = 0;
    read_runs(start, end, piece, read, &mut |run| {
        count += count_lines(run)
    })?;
    Ok(count)
}

/// A text that comes in pieces cut anywhere (mid-line, mid-character),
/// handed out as runs of whole lines: pi's lines end at `\n`, and `\n` is
/// never inside a UTF-8 sequence, so a run decodes, splits and parses as its
/// part of the whole text does. The torn last line is held until a `\n`
/// ends it.
///
/// A run is handed out without the `\n` that ends it, and every run but the
/// last of a text is followed by exactly one `\n`: a reader that counts
/// lines or bytes goes on from `run.len() + 1`. A run may be empty (a blank
/// line) and may hold several lines.
#[derive(Debug, Default)]
pub struct LineRuns {
    /// The torn last line: the bytes since the last `\n` (none is one).
    torn: Vec<u8>,
    /// How many bytes at the start of `torn` are known to be JS whitespace
    /// (whole characters; see [`LineRuns::may_be_blank`]).
    blank: usize,
}

impl LineRuns {
    /// Runs of a text whose torn last line so far is `torn` (bytes after the
    /// last `\n`, which may end inside a character).
    pub fn holding(torn: Vec<u8>) -> LineRuns {
        LineRuns { torn, blank: 0 }
    }

    /// [`may_be_blank`] of the torn line held. The whitespace at its start
    /// is scanned once as the line grows, not again after every piece: a
    /// blank line held over many pieces costs time linear in its length.
    pub fn may_be_blank(&mut self) -> bool {
        self.blank += trim_start(&self.torn[self.blank..]);
        may_be_blank(&self.torn[self.blank..])
    }

    /// The torn last line held: what came after the last `\n`.
    pub fn held(&self) -> &[u8] {
        &self.torn
    }

    /// The torn last line, taken: at the end of a text, its last run.
    pub fn into_held(self) -> Vec<u8> {
        self.torn
    }

    /// Takes the next piece; hands `visit` every run of lines it completes.
    ///
    /// Only the new bytes are searched for `\n` (what is held has none), so
    /// a line over many pieces costs time linear in its length. Only the
    /// torn line is copied: its end up to the piece's first `\n` is one run,
    /// the whole lines after it another, handed out from the piece itself.
    pub fn push(&mut self, piece: &[u8], visit: &mut dyn FnMut(&[u8])) {
        let mut rest = piece;
        if !self.torn.is_empty() {
            let end = crate::scan::newline(piece, 0);
            self.torn.extend_from_slice(&piece[..end]);
            let Some(after) = piece.get(end + 1..) else {
                return;
            };
            visit(&self.torn);
            // The buffer is kept for the next torn line.
            self.torn.clear();
            self.blank = 0;
            rest = after;
        }
        match rest.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                visit(&rest[..last]);
                self.torn.extend_from_slice(&rest[last + 1..]);
            }
            None => self.torn.extend_from_slice(rest),
        }
    }
}

/// Reads bytes `from..to` of a text held elsewhere, `piece` bytes at a time
/// (at least one), handing each piece to `visit` (in one buffer, reused).
pub fn read_pieces<E>(
    from: u64,
    to: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    visit: &mut dyn FnMut(&[u8]),
) -> Result<(), E> {
    let piece = piece.max(1);
    let mut buf = Vec::with_capacity(piece.min(1 << 24));
    let mut at = from;
    while at < to {
        let end = to.min(at.saturating_add(piece as u64));
        buf.clear();
        read(at, end, &mut buf)?;
        visit(&buf);
        at = end;
    }
    Ok(())
}

/// The runs of whole lines (see [`LineRuns`]) of a text that is bytes
/// `from..to` of a source held elsewhere, read `piece` bytes at a time:
/// what is held at `to` is the text's last line, handed out last (empty
/// after a final `\n`, or for an empty text).
pub fn read_runs<E>(
    from: u64,
    to: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    visit: &mut dyn FnMut(&[u8]),
) -> Result<(), E> {
    let mut runs = LineRuns::default();
    read_pieces(from, to, piece, read, &mut |p| runs.push(p, visit))?;
    visit(&runs.into_held());
    Ok(())
}

/// How many bytes at the start of `b` `trim()` drops (JS whitespace).
pub fn trim_start(b: &[u8]) -> usize {
    let mut start = 0;
    while let Some((c, len)) = char_at(b, start) {
        if !is_js_space(c) {
            break;
        }
        start += len;
    }
    start
}

/// Whether `trim()` may leave nothing of `b`, a line still being written:
/// it is whitespace but for, at most, a last character cut short (whose
/// rest may make it whitespace too: U+2028 comes in three bytes).
pub fn may_be_blank(b: &[u8]) -> bool {
    let rest = &b[trim_start(b)..];
    // A character cut short is at most 3 bytes: only those are checked, so
    // a long line costs no more than its whitespace (this runs after every
    // append, on the line being written).
    rest.len() < 4
        && match std::str::from_utf8(rest) {
            Ok(s) => s.is_empty(),
            Err(e) => e.valid_up_to() == 0 && e.error_len().is_none(),
        }
}

/// Where `trim()` ends `b`: its length without trailing JS whitespace.
pub fn trim_end(b: &[u8]) -> usize {
    let mut end = b.len();
    // The last character starts at the last byte before `end` that is not a
    // continuation byte (10xxxxxx), at most four bytes back.
    while let Some(from) = (end.saturating_sub(4)..end)
        .rev()
        .find(|&i| b[i] & 0xc0 != 0x80)
    {
        match char_at(&b[..end], from) {
            Some((c, len)) if from + len == end && is_js_space(c) => end = from,
            _ => break,
        }
    }
    end
}

/// How many lines of `b` (already trimmed as a whole) are JSON: one pass per
/// valid line (see [`LineReader`]); a line that is not JSON is skipped to its newline.
pub fn count_lines(b: &[u8]) -> usize {
    let mut count = 0;
    let mut at = 0;
    // Up to the end of `b`: past a last line without a newline, `get` gives
    // nothing (and an empty rest, after a last newline, is no line).
    while b.get(at..).is_some_and(|rest| !rest.is_empty()) {
        let line_end = json::validate_line(b, at, b.len());
        count += usize::from(line_end.is_some());
        at = line_end.unwrap_or_else(|| crate::scan::newline(b, at)) + 1;
    }
    count
}

/// The character starting at `b[i]` and its length in bytes, if valid UTF-8
/// of at most three bytes: every JS whitespace character is in the Basic
/// Multilingual Plane, so a four-byte character (never trimmed) reads as none.
fn char_at(b: &[u8], i: usize) -> Option<(char, usize)> {
    let len = match *b.get(i)? {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => return None,
    };
    let s = std::str::from_utf8(b.get(i..i + len)?).ok()?;
    s.chars().next().map(|c| (c, len))
}

/// Where `text.trim()` starts and ends.
fn trimmed(text: &str) -> (usize, usize) {
    let b = text.as_bytes();
    let start = trim_start(b);
    (start, trim_end(b).max(start))
}

/// Where the valid lines of `text` are (each span may hold JSON whitespace
/// around its value), and the first line that is not blank and not valid, as
/// [`line_error`] gives it: what handing the values to JS needs, found
/// without recording any member or keeping the lines.
pub fn value_spans(text: &str) -> (Vec<Span>, Option<ParseError>) {
    let mut reader = LineReader::<false>::new(text);
    let mut spans = Vec::new();
    let mut first_error = None;
    while let Some((number, span, parsed)) = reader.next() {
        match parsed {
            Ok(()) => spans.push(span),
            Err(e) if first_error.is_none() => {
                let content = LineContent::Malformed(e);
                first_error = line_error(
                    text,
                    &Line {
                        number,
                        span,
                        content,
                    },
                );
            }
            Err(_) => {}
        }
    }
    (spans, first_error)
}

/// The first malformed line as an error, for strict mode: what the tests
/// check [`value_spans`] against.
#[cfg(test)]
pub fn first_error(text: &str, lines: &[Line]) -> Option<ParseError> {
    lines.iter().find_map(|line| line_error(text, line))
}

/// A malformed line's error with its line and column (in characters).
pub fn line_error(text: &str, line: &Line) -> Option<ParseError> {
    let LineContent::Malformed(e) = &line.content else {
        return None;
    };
    let before = text
        .get(line.span.start..e.offset.min(line.span.end))
        .unwrap_or("");
    Some(ParseError {
        line: line.number,
        column: before.chars().count() + 1,
        reason: e.reason.clone(),
    })
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_in_pieces_counts_as_a_whole() {
        let nbsp = "\u{a0}";
        let texts = [
            String::new(),
            "  \n \n".into(),
            format!("{nbsp}\u{feff}{{\"a\":1}}\n{{\"b\":2}}{nbsp}"),
            format!("{{\"a\":1}}{nbsp}\n\n  \n{nbsp}"),
            format!(
                "\n\n{{\"a\":\"é{}\"}}\r\n{{bad\n[1]\n\"s\"\n{{\"c\":[1,2,{{}}]}}",
                "x".repeat(300)
            ),
            format!("{}{{\"a\":1}}", " ".repeat(5000)),
            format!("{{\"a\":1}}{}", format!("{nbsp}\n").repeat(3000)),
        ];
        for t in &texts {
            let b = t.as_bytes();
            let whole = count_values_in_bytes(b);
            for piece in (1..=64).chain([1000, 1 << 20]) {
                let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                    buf.extend_from_slice(&b[from as usize..to as usize]);
                    Ok::<(), ()>(())
                };
                assert_eq!(
                    count_values_in_pieces(b.len() as u64, piece, &mut read),
                    Ok(whole),
                    "{t:?} in pieces of {piece}"
                );
            }
        }
    }

    /// Texts whose lines a reader in pieces can get wrong: CRLF, a lone
    /// `\r`, blank lines, invalid UTF-8 and multi-byte characters (cut by
    /// small pieces), a line longer than many pieces, no final newline.
    fn torn_texts() -> Vec<Vec<u8>> {
        let long = format!("{{\"a\":\"{}\"}}", "é🙂x".repeat(40));
        vec![
            b"".to_vec(),
            b"\n".to_vec(),
            b"\n\n\r\n".to_vec(),
            b"{}".to_vec(),
            b"{}\r\n[1]\r\n".to_vec(),
            b"{}\r[1]\r\r{\"b\":2}\n\r".to_vec(),
            b"{\"a\":\"\xff\xe2\x82\"}\n\xf0\x9f\n\n\xc3\xa9\xc3".to_vec(),
            format!("{long}\n\n{{\"é\":\"\u{3000}\"}}\r\n{long}").into_bytes(),
            format!("\u{feff}{long}{long}\n").into_bytes(),
        ]
    }

    /// `text` pushed `piece` bytes at a time: each run handed out, and what
    /// is held at the end. Checks along the way that what is held is the
    /// torn line (the bytes since the last `\n`), and that whole lines after
    /// the torn one are handed out from the piece itself, not a copy.
    fn pushed(text: &[u8], piece: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
        let mut runs = LineRuns::default();
        let mut out = Vec::new();
        for (i, p) in text.chunks(piece).enumerate() {
            let range = p.as_ptr_range();
            let held = runs.held().len();
            let mut copies = 0;
            runs.push(p, &mut |run| {
                if !run.is_empty() && !range.contains(&run.as_ptr()) {
                    // A copy: only of the line that was torn.
                    assert!(!run.contains(&b'\n'), "{run:?} copied");
                    copies += 1;
                }
                out.push(run.to_vec());
            });
            assert!(copies <= usize::from(held > 0), "{copies} copies");
            let so_far = &text[..(i * piece + p.len()).min(text.len())];
            let torn = so_far
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |n| n + 1);
            assert_eq!(runs.held(), &so_far[torn..], "held, in pieces of {piece}");
        }
        (out, runs.into_held())
    }

    #[test]
    fn line_runs_in_pieces_of_any_size_are_the_lines_of_the_whole() {
        for text in torn_texts() {
            let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
            for piece in 1..=text.len() + 1 {
                let (runs, last) = pushed(&text, piece);
                // The runs and the held line are the text cut at some of its
                // `\n`s: its lines, each whole in one run, none lost.
                let mut got: Vec<&[u8]> = Vec::new();
                for run in runs.iter().chain([&last]) {
                    got.extend(run.split(|&b| b == b'\n'));
                }
                assert_eq!(got, lines, "{text:?} in pieces of {piece}");
                // Decoded run by run, the text is decoded as a whole is.
                let decoded: Vec<String> = runs
                    .iter()
                    .chain([&last])
                    .map(|r| decode(r).into_owned())
                    .collect();
                assert_eq!(decoded.join("\n"), decode(&text), "{text:?} in {piece}");
            }
        }
    }

    #[test]
    fn a_line_over_many_pieces_is_one_run() {
        let line = "é🙂".repeat(5000);
        let text = format!("[1]\n{line}\n{line}");
        let mut runs = LineRuns::holding(b"{\"a\":".to_vec());
        let mut seen = Vec::new();
        for p in text.as_bytes().chunks(3) {
            runs.push(p, &mut |run| seen.push(run.to_vec()));
        }
        let want: [&[u8]; 2] = [b"{\"a\":[1]", line.as_bytes()];
        assert_eq!(seen, want);
        assert_eq!(runs.into_held(), line.as_bytes());
    }

    #[test]
    fn may_be_blank_of_a_line_in_pieces_is_that_of_the_line_so_far() {
        // Whitespace JS trims (NBSP, U+2028, U+3000) cut anywhere, then a
        // character that is not: after every piece, the held line's answer
        // is the one the whole line so far gives, which is worked out here
        // from `str::trim` (for these characters, what JS's `trim()` takes)
        // and whether the bytes so far end inside a character.
        let line = " \u{a0}\t\u{2028}\u{3000} \u{2028}x\u{2028}";
        let b = line.as_bytes();
        for piece in 1..=4 {
            let mut runs = LineRuns::default();
            let mut at = 0;
            for p in b.chunks(piece) {
                runs.push(p, &mut |_| panic!("no line ends"));
                at += p.len();
                let so_far = &b[..at];
                let whole_chars = (0..=so_far.len())
                    .rev()
                    .find(|&n| std::str::from_utf8(&so_far[..n]).is_ok())
                    .unwrap();
                let blank = std::str::from_utf8(&so_far[..whole_chars])
                    .unwrap()
                    .trim()
                    .is_empty();
                assert_eq!(
                    runs.may_be_blank(),
                    blank,
                    "{at} bytes in pieces of {piece}"
                );
                assert_eq!(may_be_blank(so_far), blank, "{at} bytes, whole");
            }
            // A line end starts the next line: what was known blank of the
            // last one says nothing of it.
            runs.push(b"\nab", &mut |_| {});
            assert!(!runs.may_be_blank(), "the next line, in pieces of {piece}");
        }
        let mut runs = LineRuns::default();
        runs.push(b"    ", &mut |_| {});
        assert!(runs.may_be_blank());
        // What is known blank is not scanned again: the next piece's answer
        // starts from there (a line of whitespace held over many pieces
        // would otherwise be scanned once a piece).
        assert_eq!(runs.blank, 4);
        runs.push(" \u{a0}".as_bytes(), &mut |_| {});
        assert!(runs.may_be_blank());
        assert_eq!(runs.blank, 7);
        runs.push(b"\nx", &mut |_| {});
        assert!(
            !runs.may_be_blank(),
            "a short line after a longer blank one"
        );
    }

    #[test]
    fn may_be_blank_is_false_for_a_long_line_whatever_it_holds() {
        // Only a character cut short may follow the whitespace: a line of
        // more (even one whose bytes are not UTF-8) is not blank.
        assert!(!may_be_blank(b"{\"a\":\"\xff"));
        assert!(!may_be_blank(" \u{2028}{}".as_bytes()));
        assert!(may_be_blank(b" \xe2\x80"));
        assert!(!may_be_blank(b" \xe2\x80\x41"));
        assert!(may_be_blank(b""));
    }

    #[test]
    fn read_runs_reads_every_piece_and_hands_out_the_last_line() {
        let b = b"{}\r\n\n[1]\n{\"a\"";
        for piece in [0, 1, 2, 5, 100] {
            let mut runs = Vec::new();
            let mut reads = Vec::new();
            let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                reads.push((from, to, buf.len()));
                buf.extend_from_slice(&b[from as usize..to as usize]);
                Ok::<(), ()>(())
            };
            read_runs(1, b.len() as u64, piece, &mut read, &mut |r| {
                runs.push(r.to_vec())
            })
            .unwrap();
            let joined = runs.join(&b'\n');
            assert_eq!(joined, &b[1..], "pieces of {piece}");
            assert_eq!(runs.last().unwrap(), b"{\"a\"");
            // Each read asks for the next piece, into an emptied buffer.
            let step = piece.max(1) as u64;
            let want: Vec<(u64, u64, usize)> = (1..b.len() as u64)
                .step_by(step as usize)
                .map(|from| (from, (from + step).min(b.len() as u64), 0))
                .collect();
            assert_eq!(reads, want, "pieces of {piece}");
        }
        // An empty text is one empty run, as `"".split("\n")` is one line.
        let mut runs = Vec::new();
        let mut read = |_: u64, _: u64, _: &mut Vec<u8>| Err::<(), _>("no read");
        read_runs(3, 3, 8, &mut read, &mut |r| runs.push(r.to_vec())).unwrap();
        assert_eq!(runs, [Vec::<u8>::new()]);
        // A failed read is the caller's error.
        assert_eq!(read_runs(0, 3, 8, &mut read, &mut |_| {}), Err("no read"));
    }

    fn values(text: &str) -> Vec<(usize, &str)> {
        lines(text)
            .into_iter()
            .filter_map(|l| match l.content {
                LineContent::Value(v) => Some((l.number, v.span.of(text))),
                LineContent::Malformed(_) => None,
            })
            .collect()
    }

    #[test]
    fn skips_blank_and_malformed_lines() {
        let t = "\n\n{\"a\":1}\n  \n{oops\n[2]\r\n\u{a0}\n3";
        assert_eq!(values(t), vec![(3, "{\"a\":1}"), (6, "[2]"), (8, "3")]);
        let bad = first_error(t, &lines(t)).unwrap();
        assert_eq!((bad.line, bad.column), (5, 2));
        assert_eq!(
            bad.to_string(),
            "line 5, column 2: unexpected 'o', expected a string key"
        );
    }

    #[test]
    fn trims_the_whole_text_as_js_does() {
        // A BOM and a no-break space before the first line are trimmed away, as
        // `content.trim()` does; inside the text they make a line malformed.
        let t = "\u{feff}\u{a0}{}\n\u{feff}{}\n{}\u{3000}";
        assert_eq!(values(t), vec![(1, "{}"), (3, "{}")]);
        assert!(lines("").is_empty());
        assert!(lines(" \n\r\n ").is_empty());
    }

    #[test]
    fn counts_what_it_would_parse() {
        for t in [
            "",
            "\n\n",
            "{}\n{x\n[1]\r\n\n 2 \n",
            "\u{feff}{}\n\u{a0}\n\"a\"",
            "{\"a\":[1,{\"b\":null}]}",
            "\u{a0}\u{3000}{}\u{2028}",
            "{}\u{a0}\n{}",
            " \u{feff}\n",
            "\"é\"\n\u{85}{}",
        ] {
            let parsed = lines(t)
                .iter()
                .filter(|l| matches!(l.content, LineContent::Value(_)))
                .count();
            assert_eq!(count_values(t), parsed, "{t:?}");
            assert_eq!(count_values_in_bytes(t.as_bytes()), parsed, "bytes {t:?}");
        }
        // Invalid UTF-8 counts as its decoded text does.
        for b in [
            &b"{\"a\":\"\xff\"}\n\xff\n{}\xc3"[..],
            b"\xe2\x80\n[]",
            b"\xc2\xa0{}\xc2\xa0",
        ] {
            let t = decode(b);
            let parsed = lines(&t)
                .iter()
                .filter(|l| matches!(l.content, LineContent::Value(_)))
                .count();
            assert_eq!(count_values_in_bytes(b), parsed, "{b:?}");
        }
    }

    #[test]
    fn value_spans_are_the_values_of_the_valid_lines() {
        let t = " \u{feff}{\"a\":1}\r\n\n\u{a0}\n[2] \n\"é\" ";
        let (spans, error) = value_spans(t);
        assert_eq!(error, None);
        // A span may keep the line's trailing white space (JSON allows it).
        let values: Vec<&str> = spans.iter().map(|s| s.of(t).trim_end()).collect();
        assert_eq!(values, ["{\"a\":1}", "[2]", "\"é\""]);
        // A malformed line is skipped, and the first one said where.
        let bad = " {}\n{x \n[ 1 ]\r\n";
        let (spans, error) = value_spans(bad);
        assert_eq!(error.map(|e| (e.line, e.column)), Some((2, 2)));
        let values: Vec<&str> = spans.iter().map(|s| s.of(bad).trim_end()).collect();
        assert_eq!(values, ["{}", "[ 1 ]"]);
        assert!(value_spans("  ").0.is_empty());
    }

    /// The non-blank lines of the trimmed text, with their 1-based numbers.
    fn line_spans(text: &str) -> impl Iterator<Item = (usize, Span)> + '_ {
        let (trimmed_start, trimmed_end) = trimmed(text);
        let mut number = text.as_bytes()[..trimmed_start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let mut start = trimmed_start;
        let mut done = trimmed_start >= trimmed_end;
        std::iter::from_fn(move || {
            while !done {
                let end = crate::scan::newline(text.as_bytes(), start).min(trimmed_end);
                let span = Span::new(start, end);
                number += 1;
                start = end + 1;
                done = start > trimmed_end;
                if !span.of(text).trim_matches(is_js_space).is_empty() {
                    return Some((number, span));
                }
            }
            None
        })
    }

    /// [`lines`] as two passes: spans first, then each span parsed.
    fn lines_in_two_passes(text: &str) -> Vec<Line> {
        line_spans(text)
            .map(|(number, span)| Line {
                number,
                span,
                content: match json::parse(text, span) {
                    Ok(v) => LineContent::Value(v),
                    Err(e) => LineContent::Malformed(e),
                },
            })
            .collect()
    }

    #[test]
    fn one_pass_lines_equal_two_pass_lines() {
        let pieces = [
            "{\"a\":1}",
            "[1, 2]",
            " ",
            "\t",
            "\r",
            "\n",
            "\r\n",
            "\"x\"",
            "\"a\nb\"",
            "\"\\",
            "\\n",
            "\"\\u00",
            "41\"",
            "{\"k\":",
            "\"v\"}",
            "tru",
            "e",
            "nul",
            "l",
            "1",
            ".5e",
            "-",
            "0",
            ",",
            ":",
            "]",
            "}",
            "[",
            "{",
            "\u{a0}",
            "\u{feff}",
            "\u{2028}",
            "é",
            "\u{1}",
            "{\"message\":{\"role\":\"user\"},\"id\":\"a\"}",
        ];
        // Every text of up to three pieces, and longer ones from a simple generator.
        let mut texts: Vec<String> = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut t = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push_str(pieces[(seed >> 32) as usize % pieces.len()]);
                if seed & 0xf == 0 {
                    t.push_str(&"x".repeat((seed >> 8) as usize % 70));
                }
            }
            texts.push(t);
        }
        for t in &texts {
            assert_eq!(lines(t), lines_in_two_passes(t), "{t:?}");
            let parsed = lines_in_two_passes(t)
                .iter()
                .filter(|l| matches!(l.content, LineContent::Value(_)))
                .count();
            assert_eq!(count_values_in_bytes(t.as_bytes()), parsed, "{t:?}");
            let quoted = format!("\"{t}\"");
            assert_eq!(lines(&quoted), lines_in_two_passes(&quoted), "{quoted:?}");
        }
    }

    #[test]
    fn decodes_invalid_utf8_as_text_decoder() {
        assert_eq!(decode(b"a\xffb\xe2\x82"), "a\u{fffd}b\u{fffd}");
    }
}
