//! Tests written against mutants of `parse` that `cargo test` did not catch
//! (docs/mutation-log.md). Each asserts pi's behaviour: its reader does
//! `content.trim().split("\n")` and numbers lines as the file does.

use super::*;
#[cfg(test)]
use crate::pieces::read_lines;

/// The (number, value text) of each valid line, read from `b` in pieces as a
/// host holding the file reads it.
fn read_in_pieces(b: &[u8], piece: usize) -> Vec<(usize, Option<String>)> {
    let mut seen = Vec::new();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    read_lines(b.len() as u64, piece, &mut read, &mut |l| {
        let value = l.parsed.as_ref().ok().map(|v| v.span.of(l.text).to_owned());
        seen.push((l.number, value));
    })
    .unwrap();
    seen
}

/// `text` split as pi splits it: the 1-based number of each non-blank line
/// of `text.trim()`, counted in the file, and its value when it is JSON.
fn pi_lines(text: &str) -> Vec<(usize, Option<String>)> {
    let lead = text.len() - text.trim_start_matches(is_js_space).len();
    let before = text[..lead].matches('\n').count();
    text.trim_matches(is_js_space)
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_matches(is_js_space).is_empty())
        .map(|(i, l)| {
            let ok = serde_json::from_str::<serde_json::Value>(l).is_ok();
            (
                before + i + 1,
                ok.then(|| l.trim_matches([' ', '\t', '\r']).to_owned()),
            )
        })
        .collect()
}

#[test]
fn a_blank_line_after_a_run_of_whole_lines_still_counts() {
    // A piece whose whole lines end in a blank one: the blank line is line 2,
    // so the next line read is line 3, however the text is cut.
    for text in ["{}\n\n{\"a\":1}", "{x\n\n{\"a\":1}", "[1]\n\n\n{x\n\n[2]"] {
        let expected = pi_lines(text);
        for piece in [1, 2, 3, 4, 5, 100] {
            assert_eq!(
                read_in_pieces(text.as_bytes(), piece),
                expected,
                "{text:?} in {piece}"
            );
        }
    }
    // The same through the reader itself: a text of whole lines given as one
    // run ends in a blank line, and that blank line is counted.
    for (run, lines) in [("{}\n", 2), ("{x\n", 2), ("{}\n\n", 3), ("", 1)] {
        let mut reader = LineReader::<true>::within(run, 10);
        while reader.next().is_some() {}
        assert_eq!(reader.number(), 10 + lines, "{run:?}");
    }
}

#[test]
fn whitespace_longer_than_a_window_is_trimmed_whole() {
    let nbsp = "\u{a0}";
    // JS whitespace that JSON does not allow: a trim stopped short of its end
    // would leave it on the line and make the line malformed.
    for lead in [
        nbsp.repeat(3000),
        "\n".repeat(5000),
        format!("{nbsp}\n").repeat(4000),
    ] {
        for tail in [String::new(), nbsp.repeat(3000), "\n \n".repeat(2000)] {
            let text = format!("{lead}{{\"a\":1}}\n[2]{tail}");
            let expected = pi_lines(&text);
            assert_eq!(expected.len(), 2);
            assert_eq!(count_values_in_bytes(text.as_bytes()), 2);
            for piece in [1000, 1 << 20] {
                assert_eq!(
                    read_in_pieces(text.as_bytes(), piece),
                    expected,
                    "piece {piece}"
                );
                let b = text.as_bytes();
                let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                    buf.extend_from_slice(&b[from as usize..to as usize]);
                    Ok::<(), ()>(())
                };
                assert_eq!(
                    count_values_in_pieces(b.len() as u64, piece, &mut read),
                    Ok(2)
                );
            }
        }
    }
}

/// Every `(from, to)` that [`trimmed_range`] asks for, on a text of `len`
/// bytes: `lead` spaces, then `x`s, then `tail` spaces.
fn reads_to_trim(len: usize, lead: usize, tail: usize) -> ((u64, u64, usize), Vec<(u64, u64)>) {
    let text: Vec<u8> = (0..len)
        .map(|i| {
            if i < lead || i >= len - tail {
                b' '
            } else {
                b'x'
            }
        })
        .collect();
    let mut reads = Vec::new();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        reads.push((from, to));
        buf.extend_from_slice(&text[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let range = trimmed_range(len as u64, &mut read).unwrap();
    (range, reads)
}

#[test]
fn trimming_a_big_text_reads_only_near_its_ends() {
    // The windows start at 4 KiB and grow fourfold (see `trimmed_range`): a
    // host never has to hand over the middle of a big file to trim it.
    let mib = 1 << 20;
    let (range, reads) = reads_to_trim(mib, 2000, 2000);
    assert_eq!(range, (2000, (mib - 2000) as u64, 0));
    assert_eq!(reads, [(0, 4096), ((mib - 4096) as u64, mib as u64)]);

    let (range, reads) = reads_to_trim(mib, 5000, 5000);
    assert_eq!(range, (5000, (mib - 5000) as u64, 0));
    let m = mib as u64;
    assert_eq!(
        reads,
        [(0, 4096), (0, 16384), (m - 4096, m), (m - 16384, m)]
    );
}

#[test]
fn short_byte_strings_count_as_their_decoded_text() {
    // Every string of up to five bytes from pieces of JSON, of JS whitespace
    // (NBSP c2 a0, U+3000 e3 80 80) and of broken UTF-8: the count of the
    // bytes is that of the text `TextDecoder` makes of them, and trimming
    // from the ends stays inside them.
    let alphabet: [u8; 10] = [b'1', b' ', b'\n', b'"', 0x80, 0xa0, 0xc2, 0xe3, 0xf0, 0xff];
    let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
    let mut last = vec![Vec::new()];
    for _ in 0..5 {
        last = last
            .iter()
            .flat_map(|t: &Vec<u8>| alphabet.iter().map(move |&b| [&t[..], &[b]].concat()))
            .collect();
        texts.extend(last.iter().cloned());
    }
    for b in &texts {
        let text = decode(b);
        let parsed = lines(&text)
            .iter()
            .filter(|l| matches!(l.content, LineContent::Value(_)))
            .count();
        assert_eq!(count_values_in_bytes(b), parsed, "{b:x?}");
        let (start, end) = (trim_start(b), trim_end(b));
        assert!(start <= b.len() && end <= b.len(), "{b:x?}");
    }
}

#[test]
fn whole_lines_end_at_the_last_newline() {
    // What a piece-by-piece read keeps back: the bytes after the last `\n`.
    let runs_of = |held: &[u8], piece: &[u8]| {
        let mut runs = LineRuns::holding(held.to_vec());
        let mut out: Vec<Vec<u8>> = Vec::new();
        runs.push(piece, &mut |r| out.push(r.to_vec()));
        (out, runs.into_held())
    };
    let v = |runs: &[&[u8]]| runs.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    assert_eq!(
        runs_of(b"", b"{}\n[1]\n{\"a\""),
        (v(&[b"{}\n[1]"]), b"{\"a\"".to_vec())
    );
    assert_eq!(runs_of(b"", b"\n\n{}"), (v(&[b"\n"]), b"{}".to_vec()));
    assert_eq!(runs_of(b"", b"\n"), (v(&[b""]), Vec::new()));
    assert_eq!(runs_of(b"", b"{}"), (v(&[]), b"{}".to_vec()));
    // A line held from earlier pieces, ended by the new bytes.
    assert_eq!(
        runs_of(b"{\"a\"", b":1}\n["),
        (v(&[b"{\"a\":1}"]), b"[".to_vec())
    );
    assert_eq!(
        runs_of(b"{\"a\"", b":1}\n\n[]\n\n["),
        (v(&[b"{\"a\":1}", b"\n[]\n"]), b"[".to_vec())
    );
    assert_eq!(runs_of(b"{\"a\"", b":1"), (v(&[]), b"{\"a\":1".to_vec()));
    assert_eq!(runs_of(b"{", b"\n"), (v(&[b"{"]), Vec::new()));
    // Pieces of one byte of a text with blank lines inside.
    let b = b"{}\n\n\n[1]\n\n{x\n\n\"s\"";
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    assert_eq!(count_values_in_pieces(b.len() as u64, 1, &mut read), Ok(3));
}

#[test]
fn strict_mode_reports_the_first_malformed_line() {
    let (spans, error) = value_spans("{x\n{}\n[y\n{z");
    assert_eq!(spans.len(), 1);
    let error = error.unwrap();
    assert_eq!((error.line, error.column), (1, 2));
}
