//! A text's lines read a piece at a time, from a source the host holds.
//!
//! A session too big to hold whole (or to copy into wasm memory) comes in
//! pieces cut anywhere: mid-line, mid-character, mid-string. The lines are
//! still pi's lines, split and parsed by [`parse::LineReader`] (one home for
//! the line rules): the whole text trimmed as `trim()` does, split at `\n`,
//! blank lines skipped. Each line is handed out with its byte range in the
//! source, so its entry can be read again by range later, and with its
//! decoded text and parse only while it is looked at.

use std::ops::Range;

use crate::json::{Span, SyntaxError, Value};
use crate::parse::{self, LineReader, LineRuns, ReadAt};
use crate::scan;

/// One non-blank line, as [`Lines`] hands it out.
pub struct SourceLine<'a> {
    /// 1-based line number in the source.
    pub number: usize,
    /// The line's bytes in the source, without its `\n` (and, for the last
    /// line, without the whitespace `trim()` drops).
    pub range: Range<u64>,
    /// The text the line was parsed from; spans in `parsed` index it.
    pub text: &'a str,
    /// Where the line is in `text` (the bytes `range` is, decoded).
    pub span: Span,
    /// The line's value, or why `JSON.parse` refuses it.
    pub parsed: Result<&'a Value, SyntaxError>,
    /// The line was not UTF-8: `text` is its decoded form.
    pub lossy: bool,
}

/// The lines of a trimmed text given a piece at a time ([`Lines::push`]):
/// each line is handed out once its `\n` has come; a torn line is kept back
/// until the next piece completes it ([`LineRuns`], as `Session::append_jsonl`
/// keeps back an unfinished last line). [`Lines::finish`] says the text ends
/// there: what is kept back is then the last line, read as the whole text's
/// last line is (a valid one is an entry, a torn one is malformed).
pub struct Lines {
    runs: LineRuns,
    /// Where the next run starts in the source (the torn line held, if any).
    at: u64,
    /// Lines before `at`.
    number: usize,
}

impl Lines {
    /// Lines of a text whose trimmed start is byte `start` of the source,
    /// after `before` newlines.
    pub fn new(start: u64, before: usize) -> Lines {
        Lines {
            runs: LineRuns::default(),
            at: start,
            number: before,
        }
    }

    /// How many bytes of a torn line are kept back.
    pub fn held_back(&self) -> usize {
        self.runs.held().len()
    }

    /// Takes the next piece; hands `visit` every line it completes.
    pub fn push(&mut self, piece: &[u8], visit: &mut dyn FnMut(&SourceLine<'_>)) {
        let Lines { runs, at, number } = self;
        runs.push(piece, &mut |run| {
            *number = run_lines(run, *at, *number, visit);
            // The run and the `\n` after it.
            *at += run.len() as u64 + 1;
        });
    }

    /// The text ends here (at its trimmed end): what is kept back is its
    /// last line.
    pub fn finish(self, visit: &mut dyn FnMut(&SourceLine<'_>)) {
        run_lines(&self.runs.into_held(), self.at, self.number, visit);
    }
}

/// Hands out the lines of `b`, whole lines at `at` in the source (the last
/// one without its `\n`), after `before` lines; returns the number of the
/// last.
fn run_lines(b: &[u8], at: u64, before: usize, visit: &mut dyn FnMut(&SourceLine<'_>)) -> usize {
    // The core's check (SIMD in wasm, where std's goes a character at a
    // time through text far from ASCII): it was most of a piece's cost.
    if scan::is_utf8(b) {
        // SAFETY: `is_utf8` just said `b` is UTF-8, as `from_utf8` would.
        let text = unsafe { std::str::from_utf8_unchecked(b) };
        return read_run(text, at, before, None, visit);
    }
    // Invalid UTF-8 decodes as `TextDecoder` does; `\n` is never part of a
    // sequence, so line by line is the same as whole.
    let mut at = at;
    let mut number = before;
    for line in b.split(|&c| c == b'\n') {
        let text = parse::decode(line);
        let range = at..at + line.len() as u64;
        let lossy = matches!(text, std::borrow::Cow::Owned(_));
        number = read_run(&text, at, number, Some((range, lossy)), visit);
        at += line.len() as u64 + 1;
    }
    number
}

/// Reads the lines of `text` (whole lines, at `at` in the source, after
/// `before` lines); a line decoded on its own gives its source range whole,
/// and whether decoding replaced anything. Returns
/// the number of the last line.
fn read_run(
    text: &str,
    at: u64,
    before: usize,
    decoded: Option<(Range<u64>, bool)>,
    visit: &mut dyn FnMut(&SourceLine<'_>),
) -> usize {
    let mut reader = LineReader::<true>::within(text, before);
    while let Some((number, span, parsed)) = reader.next() {
        let (range, lossy) = decoded
            .clone()
            .unwrap_or((at + span.start as u64..at + span.end as u64, false));
        visit(&SourceLine {
            number,
            range,
            text,
            span,
            parsed: parsed.map(|()| &reader.value),
            lossy,
        });
    }
    reader.number()
}

/// Reads every line of a text of `len` bytes held elsewhere, `piece` bytes
/// at a time (at least one), handing each to `visit`.
pub fn read_lines<E>(
    len: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    visit: &mut dyn FnMut(&SourceLine<'_>),
) -> Result<(), E> {
    read_lines_to(len, false, piece, read, visit)
}

/// [`read_lines`], with the end not trimmed when `open_ended`: the whole
/// lines before an unfinished one (see [`parse::LineReader::open_ended`]).
pub fn read_lines_to<E>(
    len: u64,
    open_ended: bool,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    visit: &mut dyn FnMut(&SourceLine<'_>),
) -> Result<(), E> {
    let (start, end, before) = parse::trimmed_range(len, read)?;
    let end = if open_ended { len } else { end };
    let mut lines = Lines::new(start, before);
    parse::read_pieces(start, end, piece, read, &mut |p| lines.push(p, visit))?;
    // An empty text finishes with nothing held: no line.
    lines.finish(visit);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::LineContent;

    /// (number, source bytes of the line, value text or None) of each line.
    type Seen = Vec<(usize, Vec<u8>, Option<String>)>;

    fn in_pieces(b: &[u8], piece: usize) -> Seen {
        let mut seen = Vec::new();
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        read_lines(b.len() as u64, piece, &mut read, &mut |l| {
            let value = l.parsed.as_ref().ok().map(|v| v.span.of(l.text).to_owned());
            seen.push((
                l.number,
                b[l.range.start as usize..l.range.end as usize].to_vec(),
                value,
            ));
        })
        .unwrap();
        seen
    }

    fn whole(b: &[u8]) -> Seen {
        let text = parse::decode(b);
        parse::lines(&text)
            .into_iter()
            .map(|l| {
                let value = match &l.content {
                    LineContent::Value(v) => Some(v.span.of(&text).to_owned()),
                    LineContent::Malformed(_) => None,
                };
                // The line's own bytes: where it is in the decoded text, when
                // decoding kept every length.
                let bytes = if text.len() == b.len() {
                    l.span.of(&text).as_bytes().to_vec()
                } else {
                    Vec::new()
                };
                (l.number, bytes, value)
            })
            .collect()
    }

    #[test]
    fn lines_in_pieces_are_the_lines_of_the_whole() {
        let long = format!("{{\"a\":\"{}\"}}", "é🙂x\\\"".repeat(700));
        let texts: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b" \n \n".to_vec(),
            b"{}".to_vec(),
            "\u{feff}\u{a0}\n\n{\"a\":1}\r\n{bad\n\n[2]\n\u{a0}\n\"s\"\u{a0}\n".into(),
            format!("{long}\n{{\"b\":\"ü\"}}\n{long}").into_bytes(),
            "{\"a\":\"\u{2028}\"}\n\u{a0}{}\n{}\u{3000}\n\u{3000}".into(),
            "{\"torn\":\"é".into(),
            format!("{}{{\"a\":1}}\n{{\"b\"", " \n".repeat(3000)).into_bytes(),
        ];
        for b in &texts {
            let expected = whole(b);
            for piece in [1, 2, 3, 5, 7, 64, 4096, 1 << 20] {
                assert_eq!(in_pieces(b, piece), expected, "{b:?} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn invalid_utf8_reads_as_text_decoder_reads_it() {
        let b: &[u8] = b"{\"a\":\"\xff\xe2\x82\"}\n\xf0\x9f\n[\"\xc3\"]\n{\"b\":\"\xc3\xa9\"}";
        let expected: Vec<(usize, Option<String>)> =
            whole(b).into_iter().map(|(n, _, v)| (n, v)).collect();
        assert_eq!(expected.len(), 4);
        for piece in [1, 2, 3, 4, 9, 100] {
            let got: Vec<(usize, Option<String>)> = in_pieces(b, piece)
                .into_iter()
                .map(|(n, _, v)| (n, v))
                .collect();
            assert_eq!(got, expected, "pieces of {piece}");
        }
        // Each line's range is its own bytes in the source.
        let lines = in_pieces(b, 3);
        assert_eq!(lines[1].1, b"\xf0\x9f");
        assert_eq!(lines[3].1, b"{\"b\":\"\xc3\xa9\"}");
    }

    #[test]
    fn a_torn_line_is_kept_back_until_its_newline_comes() {
        let mut lines = Lines::new(0, 0);
        let mut seen = Vec::new();
        let mut visit = |l: &SourceLine<'_>| seen.push((l.number, l.range.clone()));
        lines.push(b"{\"a\":1}\n{\"b\"", &mut visit);
        assert_eq!(lines.held_back(), 4);
        lines.push(b":2", &mut visit);
        assert_eq!(lines.held_back(), 6);
        lines.push(b"}\n\n{\"c\":", &mut visit);
        assert_eq!(lines.held_back(), 5);
        lines.finish(&mut visit);
        assert_eq!(seen, [(1, 0..7), (2, 8..15), (4, 17..22)]);
    }
}

#[cfg(test)]
mod mutant_tests;
