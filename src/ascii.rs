//! JSON text with every non-ASCII character written as a `\uXXXX` escape.
//!
//! Handing text to JS costs a UTF-8 decode, and engines decode pure ASCII
//! several times faster than text with a few accented letters or emoji in it
//! (Node 20: 3 ms against 14 ms for a 4.5 MB session with 0.1% non-ASCII), and
//! store it as one byte per character. In valid JSON a non-ASCII character can
//! only be inside a string, where `\uXXXX` means the same to `JSON.parse`.

use std::ops::Range;

/// The bytes of `json` (valid JSON, or several texts joined by ASCII) with
/// every non-ASCII character escaped, handed to `emit` a piece at a time:
/// pieces of about `chunk` bytes, each ending on a character boundary, from
/// one reused buffer. However much the escapes grow the text, the copy takes
/// no more than `chunk` bytes (plus one character's escape) at once.
pub fn escape_in_chunks(json: &str, chunk: usize, mut emit: impl FnMut(&[u8])) {
    let b = json.as_bytes();
    let chunk = chunk.max(16);
    let mut buf: Vec<u8> = Vec::with_capacity(chunk.min(b.len() + 16) + 12);
    let mut i = 0;
    while i < b.len() {
        let end = first_non_ascii(b, i).unwrap_or(b.len());
        // The ASCII run from i, copied in pieces that fill the buffer.
        let mut at = i;
        while at < end {
            let take = (end - at).min(chunk - buf.len().min(chunk));
            buf.extend_from_slice(&b[at..at + take]);
            at += take;
            if buf.len() >= chunk {
                emit(&buf);
                buf.clear();
            }
        }
        i = end;
        if i < b.len() {
            // A whole character (the text is valid UTF-8), as one or two units.
            let (cp, len) = char_at(b, i);
            push_escape(&mut buf, cp);
            i += len;
            if buf.len() >= chunk {
                emit(&buf);
                buf.clear();
            }
        }
    }
    if !buf.is_empty() {
        emit(&buf);
    }
}

/// How `json` is best handed to JS: as it is when it is ASCII, escaped when a
/// few of its characters are not, or as UTF-16 when escapes would grow it by
/// more than a quarter (mostly non-Latin text, where six bytes per character
/// cost `JSON.parse` more than a two-byte string does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    Ascii,
    Escaped,
    Utf16,
}

pub fn crossing(json: &str) -> Crossing {
    // Most sessions are all ASCII: one quick pass says so.
    if is_ascii(json.as_bytes()) {
        return Crossing::Ascii;
    }
    let (leads, conts, fours) = counts(json.as_bytes());
    let growth = 5 * leads + 6 * fours - conts;
    if leads == 0 {
        Crossing::Ascii
    } else if growth > json.len() / 4 {
        Crossing::Utf16
    } else {
        Crossing::Escaped
    }
}

/// Whether every byte of `b` is ASCII: 64 bytes a step with SIMD, where
/// std's check goes a 32-bit word at a time on wasm32.
pub fn is_ascii(b: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::is_ascii(b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        b.is_ascii()
    }
}

/// In `b`: the bytes that start a non-ASCII character, the continuation
/// bytes, and the bytes that start a four-byte character. 64 bytes a step
/// while they are ASCII (most JSON is), counted eight at a time where not.
fn counts(b: &[u8]) -> (usize, usize, usize) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (mut leads, mut conts, mut fours) = (0u32, 0u32, 0u32);
    let mut add = |w: u64| {
        let hi = w & HIGH;
        if hi != 0 {
            let b6 = (w << 1) & HIGH;
            leads += (hi & b6).count_ones();
            conts += (hi & !b6).count_ones();
            fours += (w & (w << 1) & (w << 2) & (w << 3) & HIGH).count_ones();
        }
    };
    let word = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap_or([0; 8]));
    let blocks = b.chunks_exact(64);
    let rest = blocks.remainder();
    for block in blocks {
        if !is_ascii(block) {
            block.chunks_exact(8).for_each(|w| add(word(w)));
        }
    }
    for piece in rest.chunks(8) {
        let mut last = [0u8; 8];
        last[..piece.len()].copy_from_slice(piece);
        add(u64::from_le_bytes(last));
    }
    (leads as usize, conts as usize, fours as usize)
}

/// `text` as UTF-16 code units, handed to `emit` at most `chunk` units at a
/// time from one reused buffer: the text of up to `chunk` bytes each time,
/// ending on a character boundary (a character never takes more units than
/// bytes).
pub fn utf16_in_chunks(text: &str, chunk: usize, mut emit: impl FnMut(&[u16])) {
    let b = text.as_bytes();
    let chunk = chunk.max(16);
    let mut buf = Vec::with_capacity(chunk.min(b.len()));
    let mut i = 0;
    while i < b.len() {
        let mut end = (i + chunk).min(b.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        buf.clear();
        push_utf16(&mut buf, &b[i..end]);
        emit(&buf);
        i = end;
    }
}

/// One piece of a JSON array crossing to JS (see [`array_pieces`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// ASCII bytes (non-ASCII characters escaped, or none there).
    Ascii(&'a [u8]),
    /// UTF-16 code units.
    Utf16(&'a [u16]),
}

/// The JSON values at `elements` (byte ranges of `text`, on character
/// boundaries) as JSON array texts `[v,v,...]` of about `chunk` units each,
/// encoded as `how` says and handed to `emit` from one reused buffer. A piece
/// closes after the value that fills it (a value bigger than `chunk` makes
/// one piece of its size), so each is a whole array that `JSON.parse` reads
/// on its own: no piece needs joining to another. There is always at least
/// one piece (`[]` for no values).
///
/// Returns where each value went: `[piece, start, end]` for each, in UTF-16
/// units of its piece's string.
pub fn array_pieces(
    text: &str,
    elements: impl IntoIterator<Item = Range<usize>>,
    how: Crossing,
    chunk: usize,
    mut emit: impl FnMut(Piece<'_>),
) -> Vec<u32> {
    let b = text.as_bytes();
    let chunk = chunk.max(16);
    let mut at = Vec::new();
    let mut piece = 0u32;
    if how == Crossing::Utf16 {
        // The open piece is `buf[..len]`: the buffer is zeroed only as it
        // grows, not for each value (as `push_utf16` must).
        let mut buf: Vec<u16> = Vec::new();
        let mut len = 0;
        for r in elements {
            let value = &b[r];
            // The separator, the value (a character never takes more units
            // than bytes) and a closing `]`.
            buf.resize(buf.len().max(len + value.len() + 2), 0);
            buf[len] = if len == 0 { b'[' } else { b',' }.into();
            let start = len + 1;
            len = start + utf16_into(&mut buf[start..], value);
            at.extend([piece, start as u32, len as u32]);
            if len >= chunk {
                buf[len] = b']'.into();
                emit(Piece::Utf16(&buf[..=len]));
                len = 0;
                piece += 1;
            }
        }
        if len > 0 || piece == 0 {
            buf.resize(buf.len().max(2), 0);
            if len == 0 {
                buf[0] = b'['.into();
                len = 1;
            }
            buf[len] = b']'.into();
            emit(Piece::Utf16(&buf[..=len]));
        }
    } else {
        let mut buf: Vec<u8> = Vec::new();
        for r in elements {
            buf.push(if buf.is_empty() { b'[' } else { b',' });
            let start = buf.len() as u32;
            match how {
                Crossing::Ascii => buf.extend_from_slice(&b[r]),
                _ => push_escaped(&mut buf, &b[r]),
            }
            at.extend([piece, start, buf.len() as u32]);
            if buf.len() >= chunk {
                buf.push(b']');
                emit(Piece::Ascii(&buf));
                buf.clear();
                piece += 1;
            }
        }
        if !buf.is_empty() || piece == 0 {
            if buf.is_empty() {
                buf.push(b'[');
            }
            buf.push(b']');
            emit(Piece::Ascii(&buf));
        }
    }
    at
}

/// Appends the UTF-8 `b` (whole characters) with each non-ASCII character
/// written as its `\uXXXX` escape (two for a character outside the BMP).
fn push_escaped(out: &mut Vec<u8>, b: &[u8]) {
    let mut i = 0;
    while i < b.len() {
        let end = first_non_ascii(b, i).unwrap_or(b.len());
        out.extend_from_slice(&b[i..end]);
        i = end;
        if i < b.len() {
            let (cp, len) = char_at(b, i);
            push_escape(out, cp);
            i += len;
        }
    }
}

/// Appends the UTF-8 `b` (whole characters) as UTF-16 code units.
fn push_utf16(out: &mut Vec<u16>, b: &[u8]) {
    // A character never takes more units than bytes.
    let base = out.len();
    out.resize(base + b.len(), 0);
    let n = utf16_into(&mut out[base..], b);
    out.truncate(base + n);
}

/// Writes the UTF-8 `b` (whole characters) as UTF-16 into `dst` (at least as
/// long as `b`); returns how many units. Sixteen bytes a step: the ASCII ones
/// up to the first that is not are widened at once, then the characters that
/// follow are decoded one after another while they are not ASCII (text in
/// CJK or Cyrillic is long runs of them between spaces).
fn utf16_into(dst: &mut [u16], b: &[u8]) -> usize {
    let (mut i, mut n) = (0, 0);
    // `dst` has room for the 16 units: `n <= i`, as a character never takes
    // more units than bytes.
    while i + 16 <= b.len() {
        let ascii = ascii16_into(b, i, dst, n);
        i += ascii;
        n += ascii;
        while i + 4 <= b.len() && !b[i].is_ascii() {
            // char_at's decode from one word read: the hot loop of text far from ASCII.
            let w = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
            let c = w & 0xff;
            let cont = |k: u32| (w >> (8 * k)) & 0x3f;
            let (cp, len) = if c < 0xe0 {
                (((c & 0x1f) << 6) | cont(1), 2)
            } else if c < 0xf0 {
                (((c & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
            } else {
                (
                    ((c & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
                    4,
                )
            };
            n += put_units(dst, n, cp);
            i += len;
        }
    }
    // The last few bytes.
    while i < b.len() {
        if b[i].is_ascii() {
            dst[n] = u16::from(b[i]);
            i += 1;
            n += 1;
            continue;
        }
        let (cp, len) = char_at(b, i);
        n += put_units(dst, n, cp);
        i += len;
    }
    n
}

/// Writes code point `cp` at `dst[n..]` as its UTF-16 unit or surrogate
/// pair; returns how many units.
#[inline(always)]
fn put_units(dst: &mut [u16], n: usize, cp: u32) -> usize {
    if cp < 0x1_0000 {
        dst[n] = cp as u16;
        1
    } else {
        dst[n..n + 2].copy_from_slice(&surrogates(cp));
        2
    }
}

/// Widens the ASCII bytes at the start of `b[i..i + 16]` into `dst[n..]`
/// (the caller keeps both 16 long); returns how many there are (16 when all
/// are). Units past that count may be written too: the caller overwrites them.
#[inline(always)]
fn ascii16_into(b: &[u8], i: usize, dst: &mut [u16], n: usize) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::widen_ascii16(b, i, dst, n)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let run = b[i..i + 16].iter().take_while(|c| c.is_ascii()).count();
        for (slot, &c) in dst[n..n + run].iter_mut().zip(&b[i..i + run]) {
            *slot = u16::from(c);
        }
        run
    }
}

/// Appends code point `cp`'s `\uXXXX` escape (two for a character outside
/// the BMP).
fn push_escape(out: &mut Vec<u8>, cp: u32) {
    let n = out.len();
    if cp < 0x1_0000 {
        out.resize(n + 6, 0);
        write_escape(&mut out[n..n + 6], cp as u16);
    } else {
        let [high, low] = surrogates(cp);
        out.resize(n + 12, 0);
        write_escape(&mut out[n..n + 6], high);
        write_escape(&mut out[n + 6..n + 12], low);
    }
}

/// The UTF-16 surrogate pair of a code point outside the BMP.
#[inline(always)]
fn surrogates(cp: u32) -> [u16; 2] {
    let v = cp - 0x1_0000;
    [0xd800 | (v >> 10) as u16, 0xdc00 | (v & 0x3ff) as u16]
}

/// The code point of the non-ASCII character starting at `b[i]` (valid
/// UTF-8), and its length in bytes.
#[inline]
fn char_at(b: &[u8], i: usize) -> (u32, usize) {
    let c = b[i];
    let cont = |k: usize| u32::from(b[i + k] & 0x3f);
    if c < 0xe0 {
        ((u32::from(c & 0x1f) << 6) | cont(1), 2)
    } else if c < 0xf0 {
        ((u32::from(c & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            (u32::from(c & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

fn write_escape(out: &mut [u8], unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out[0] = b'\\';
    out[1] = b'u';
    for (k, slot) in out[2..6].iter_mut().enumerate() {
        *slot = HEX[usize::from((unit >> (12 - 4 * k)) & 0xf)];
    }
}

/// The index of the first byte at or after `from` that is not ASCII.
fn first_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::ascii_run(b, from);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = from;
    // Eight bytes a step: the lowest high bit of the word is the first
    // byte that is not ASCII.
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let high = u64::from_le_bytes(w) & 0x8080_8080_8080_8080;
        if high != 0 {
            return Some(i + (high.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i.min(b.len())..]
        .iter()
        .position(|c| !c.is_ascii())
        .map(|p| i + p)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd;

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str) -> String {
        let mut out = Vec::new();
        escape_in_chunks(s, 64, |p| out.extend_from_slice(p));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_each_non_ascii_character_as_json_does() {
        let long = "x".repeat(200);
        let s = format!(r#"["{long}é","a€b","😀",{{"ключ":1}},"{long}"]"#);
        let out = escaped(&s);
        assert!(out.is_ascii());
        assert_eq!(
            out,
            format!(
                r#"["{long}\u00e9","a\u20acb","\ud83d\ude00",{{"\u043a\u043b\u044e\u0447":1}},"{long}"]"#
            )
        );
        // The same value for a JSON reader.
        let a: serde_json::Value = serde_json::from_str(&s).unwrap();
        let b: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn escapes_in_chunks_as_in_place() {
        let long = "x".repeat(70);
        let s = format!(
            r#"["{long}é","a€b","😀",{{"ключ":1}},"{long}","{}"]"#,
            "漢字".repeat(30)
        );
        let mut whole = s.clone();
        // The in-place escape leaves mostly non-Latin text alone: compare with
        // each character escaped by hand.
        whole = whole
            .chars()
            .flat_map(|c| {
                if c.is_ascii() {
                    vec![c.to_string()]
                } else {
                    c.encode_utf16(&mut [0; 2])
                        .iter()
                        .map(|u| format!("\\u{u:04x}"))
                        .collect()
                }
            })
            .collect();
        for chunk in [1, 7, 16, 17, 50, 64, 1000] {
            let mut pieces = Vec::new();
            escape_in_chunks(&s, chunk, |p| pieces.push(p.to_vec()));
            assert!(pieces
                .iter()
                .all(|p| !p.is_empty() && p.len() < chunk.max(16) + 12));
            assert_eq!(
                String::from_utf8(pieces.concat()).unwrap(),
                whole,
                "{chunk}"
            );
        }
        let mut none = 0;
        escape_in_chunks("", 10, |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn utf16_in_chunks_gives_every_unit() {
        let s = format!("a{}é€😀{}z", "漢字".repeat(40), "x".repeat(33));
        let want: Vec<u16> = s.encode_utf16().collect();
        for chunk in [1, 16, 17, 50, 1000] {
            let mut pieces = Vec::new();
            utf16_in_chunks(&s, chunk, |p| pieces.push(p.to_vec()));
            assert!(pieces.iter().all(|p| !p.is_empty()));
            assert_eq!(pieces.concat(), want, "{chunk}");
        }
        assert_eq!(crossing("{\"a\":1}"), Crossing::Ascii);
        assert_eq!(
            crossing(&format!("\"{}é\"", "x".repeat(100))),
            Crossing::Escaped
        );
        assert_eq!(
            crossing(&format!("\"{}\"", "漢字".repeat(10))),
            Crossing::Utf16
        );
    }

    fn json_values(values: &[String]) -> Vec<serde_json::Value> {
        values
            .iter()
            .map(|v| serde_json::from_str(v).unwrap())
            .collect()
    }

    #[test]
    fn ascii_is_told_at_every_length_and_offset() {
        let base = "a".repeat(200);
        for len in [0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 200] {
            assert!(is_ascii(&base.as_bytes()[..len]));
            for at in 0..len {
                let mut b = base.as_bytes()[..len].to_vec();
                b[at] = 0x80;
                assert!(!is_ascii(&b), "{len} {at}");
            }
        }
    }

    #[test]
    fn array_pieces_are_whole_arrays_that_locate_each_value() {
        pieces_hold(&[
            r#""a""#.to_owned(),
            r#"{"x":"\\","y":[1,2,{"z":null}]}"#.to_owned(),
            format!(r#""{}""#, "y".repeat(90)),
            "-1.5e3".to_owned(),
        ]);
        pieces_hold(&[
            r#""a""#.to_owned(),
            format!(r#""é{}""#, "z".repeat(20)),
            r#""漢😀""#.to_owned(),
            r#"{"x":"€","y":[1,2]}"#.to_owned(),
            format!(r#""{}""#, "y".repeat(90)),
            "null".to_owned(),
        ]);
    }

    fn pieces_hold(values: &[String]) {
        // The values as lines of a text, and their byte ranges in it.
        let text = values.join("\n");
        let mut ranges = Vec::new();
        let mut at = 0;
        for v in values {
            ranges.push(at..at + v.len());
            at += v.len() + 1;
        }
        // ASCII crossing is only chosen for ASCII text: it copies bytes as they are.
        let ascii_only = values.iter().all(|v| v.is_ascii());
        for how in [Crossing::Ascii, Crossing::Escaped, Crossing::Utf16] {
            if how == Crossing::Ascii && !ascii_only {
                continue;
            }
            for chunk in [1, 16, 40, 100, 10_000] {
                let mut pieces: Vec<Vec<u16>> = Vec::new();
                let at = array_pieces(&text, ranges.clone(), how, chunk, |p| {
                    pieces.push(match p {
                        Piece::Ascii(b) => b.iter().map(|&c| u16::from(c)).collect(),
                        Piece::Utf16(u) => u.to_vec(),
                    })
                });
                // Each piece parses as an array; together they hold every value.
                let mut all = Vec::new();
                for p in &pieces {
                    let piece = String::from_utf16(p).unwrap();
                    assert!(how == Crossing::Utf16 || piece.is_ascii(), "{how:?}");
                    let arr: Vec<serde_json::Value> = serde_json::from_str(&piece).unwrap();
                    assert!(!arr.is_empty(), "{how:?} {chunk}: no empty piece");
                    all.extend(arr);
                }
                let want = json_values(values);
                assert_eq!(all, want, "{how:?} {chunk}");
                // Each value's place: its own text, once decoded.
                for (k, v) in values.iter().enumerate() {
                    let piece = &pieces[at[3 * k] as usize];
                    let units = &piece[at[3 * k + 1] as usize..at[3 * k + 2] as usize];
                    let got: serde_json::Value =
                        serde_json::from_str(&String::from_utf16(units).unwrap()).unwrap();
                    assert_eq!(got, want[k], "{how:?} {chunk} {k}");
                    assert_eq!(
                        String::from_utf16(units).unwrap().len() == v.len(),
                        how == Crossing::Utf16 || v.is_ascii(),
                        "{how:?}: escapes only where not ASCII"
                    );
                }
            }
            // No values: one empty array.
            let mut pieces = Vec::new();
            let at = array_pieces("", std::iter::empty(), how, 10, |p| {
                pieces.push(format!("{p:?}"))
            });
            assert!(at.is_empty());
            assert_eq!(pieces.len(), 1);
        }
    }

    #[test]
    fn non_ascii_at_every_offset() {
        for pad in 0..20 {
            for c in ['é', '€', '😀'] {
                let s = format!("\"{}{c}{}\"", "a".repeat(pad), "b".repeat(40));
                let out = escaped(&s);
                let a: String = serde_json::from_str(&s).unwrap();
                let b: String = serde_json::from_str(&out).unwrap();
                assert_eq!(a, b, "{s}");
                assert!(out.is_ascii());
            }
        }
    }
}

#[cfg(test)]
mod mutant_tests;
