//! Finding the bytes that matter, many bytes at a time.
//!
//! Most of a session is string content (message text, tool output), and inside
//! a string only three kinds of byte need a look: `"`, `\` and control
//! characters. [`plain_run`] skips everything else 16 bytes a step with wasm
//! SIMD (when built with `simd128`) or 8 bytes a step with word arithmetic.
//! [`skip_value`] steps over a value already known to be valid JSON.
//! [`is_js_space`] says which characters JS's `trim()` drops, for the
//! readers above that trim lines and strings as pi does.

/// JS `String.prototype.trim` whitespace: WhiteSpace and LineTerminator.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// The index of the first byte in `b[from..end]` that is `"`, `\` or below
/// 0x20, or `end` if there is none.
#[inline]
pub fn plain_run(b: &[u8], from: usize, end: usize) -> usize {
    let end = end.min(b.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::plain_run(b, from, end);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = match words::plain_run(b, from, end) {
        Ok(found) => return found,
        Err(rest) => rest,
    };
    while i < end {
        let c = b[i];
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    end
}

/// Why a string literal is not valid JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringFault {
    /// No closing quote before the end.
    Unterminated,
    /// A control character (below 0x20) at this index.
    Control(usize),
    /// A backslash at this index starts no valid escape.
    BadEscape(usize),
    /// A `\u` at this index is not followed by four hex digits.
    BadUnicode(usize),
}

/// Validates the body of a string literal that starts at `b[from]` (just after
/// the opening quote) and returns the index after its closing quote.
///
/// A short string ends within 16 bytes, seen in one step (each special byte
/// met in the first two such steps is dealt with at once). Longer ones go 64
/// bytes a step: one bit mask each of quotes, backslashes and control bytes,
/// the escaped bytes found from the backslash runs, so a block of text with
/// escapes is checked without a look at each one. Before the closing quote,
/// a control byte or a byte after a backslash that is no one-byte escape is
/// the fault it is, said exactly as a byte-by-byte look would say it; only a
/// `\u` escape is looked at, for its four hex digits (with `special`).
#[inline(always)]
pub fn string_body(b: &[u8], from: usize, end: usize) -> Result<usize, StringFault> {
    let end = end.min(b.len());
    let mut i = from;
    for _ in 0..2 {
        if i + 16 > end {
            break;
        }
        let mask = special16(b, i);
        if mask == 0 {
            i += 16;
            continue;
        }
        // The first special byte: the closing quote (most strings end
        // here, without the call), an escape to step over, or the fault.
        let at = i + mask.trailing_zeros() as usize;
        if b[at] == b'"' {
            return Ok(at + 1);
        }
        match special(b, at, end)? {
            Err(after) => return Ok(after),
            Ok(next) => i = next,
        }
    }
    long_string_body(b, i, end)
}

/// [`string_body`] past its first look, 64 bytes a step.
#[inline(never)]
fn long_string_body(b: &[u8], mut i: usize, end: usize) -> Result<usize, StringFault> {
    while i + 64 <= end {
        let m = Block::at(b, i);
        let (escaped, escape) = escapes(m.backslash);
        let quotes = m.quote & !escaped;
        // The bits before the closing quote (all of them if there is none).
        let before = quotes.wrapping_sub(1) & !quotes;
        // What may be a fault before it: a control byte, or a byte after a
        // backslash that is no one-byte escape (a `u` among them).
        let mut doubt = m.control & !escaped;
        if escaped != 0 {
            doubt |= escaped & !escapable(b, i);
        }
        doubt &= before;
        while doubt != 0 {
            let k = doubt.trailing_zeros() as usize;
            let p = i + k;
            if escaped >> k & 1 == 0 {
                return Err(StringFault::Control(p));
            }
            if b[p] != b'u' {
                return Err(StringFault::BadEscape(p - 1));
            }
            // `\u`: its four hex digits (plain bytes, which leave the masks
            // right), or the fault.
            let _ = special(b, p - 1, end)?;
            doubt &= doubt - 1;
        }
        if quotes != 0 {
            return Ok(i + quotes.trailing_zeros() as usize + 1);
        }
        // A backslash in the last byte escapes the next block's first: it
        // starts that block instead, so no state crosses blocks.
        i += 64 - (escape >> 63) as usize;
    }
    loop {
        i = plain_run(b, i, end);
        match special(b, i, end)? {
            Err(after) => return Ok(after),
            Ok(next) => i = next,
        }
    }
}

/// For a mask of backslashes in a block that no escape enters from before:
/// the bytes they escape, and the backslashes that escape (the odd ones of
/// each run), as simdjson finds them with one subtraction.
#[inline(always)]
fn escapes(backslash: u64) -> (u64, u64) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslash == 0 {
        return (0, 0);
    }
    let escape_and_terminal = ((backslash << 1) | ODD).wrapping_sub(backslash) ^ ODD;
    (
        escape_and_terminal ^ backslash,
        escape_and_terminal & backslash,
    )
}

/// Bit masks of the 64 bytes at `b[i]`.
struct Block {
    quote: u64,
    backslash: u64,
    /// Bytes below 0x20.
    control: u64,
}

/// Whether a byte may follow a backslash as a one-byte escape (`\u` is not
/// here: it needs its four hex digits checked, by [`special`]).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn is_escapable(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl Block {
    #[inline]
    fn at(b: &[u8], i: usize) -> Block {
        let mut m = Block {
            quote: 0,
            backslash: 0,
            control: 0,
        };
        for (k, &c) in b[i..i + 64].iter().enumerate() {
            m.quote |= u64::from(c == b'"') << k;
            m.backslash |= u64::from(c == b'\\') << k;
            m.control |= u64::from(c < 0x20) << k;
        }
        m
    }
}

/// The mask of the bytes at `b[i..i + 64]` that [`is_escapable`].
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
fn escapable(b: &[u8], i: usize) -> u64 {
    b[i..i + 64]
        .iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | u64::from(is_escapable(c)) << k)
}

/// The mask of `"`, `\` and bytes below 0x20 in the 16 bytes at `b[i]`.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
fn special16(b: &[u8], i: usize) -> u32 {
    b[i..i + 16].iter().enumerate().fold(0, |m, (k, &c)| {
        m | u32::from(c == b'"' || c == b'\\' || c < 0x20) << k
    })
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use simd::{escapable, special16};

/// What the special byte at `b[i]` (or the end) means inside a string:
/// `Err(Ok(after))` for the closing quote, `Ok(next)` to go on after an escape.
#[inline]
fn special(b: &[u8], i: usize, end: usize) -> Result<Result<usize, usize>, StringFault> {
    match b.get(i).filter(|_| i < end) {
        None => Err(StringFault::Unterminated),
        Some(b'"') => Ok(Err(i + 1)),
        Some(b'\\') => match b.get(i + 1).filter(|_| i + 1 < end) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(Ok(i + 2)),
            Some(b'u') => {
                let hex = b.get(i + 2..i + 6).filter(|_| i + 6 <= end);
                if hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    Ok(Ok(i + 6))
                } else {
                    Err(StringFault::BadUnicode(i))
                }
            }
            _ => Err(StringFault::BadEscape(i)),
        },
        Some(_) => Err(StringFault::Control(i)),
    }
}

/// Whether `b` is valid UTF-8, as `std::str::from_utf8` says. With SIMD, 16
/// bytes a step by table lookups (the method of Keiser and Lemire, "Validating
/// UTF-8 in less than one instruction per byte", 2021): text far from ASCII
/// is checked as fast as ASCII. Without, 64-byte blocks of ASCII (most of a
/// session) a step and the rest by std: a block of ASCII starts and ends
/// characters, so the runs between such blocks are checked on their own.
pub fn is_utf8(b: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::is_utf8(b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        is_utf8_by_std(b)
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn is_utf8_by_std(b: &[u8]) -> bool {
    let (mut from, mut i) = (0, 0);
    while i + 64 <= b.len() {
        if b[i..i + 64].is_ascii() {
            if std::str::from_utf8(&b[from..i]).is_err() {
                return false;
            }
            from = i + 64;
        }
        i += 64;
    }
    std::str::from_utf8(&b[from..]).is_ok()
}

/// The index of the first `\n` in `b[from..]`, or `b.len()`.
#[inline]
pub fn newline(b: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::newline(b, from);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = match words::newline(b, from) {
        Ok(found) => return found,
        Err(rest) => rest,
    };
    while i < b.len() {
        if b[i] == b'\n' {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The index of the first `\n` or `\r` in `b[from..end]`, or `end` if there
/// is none: where Node's `readline` ends a line.
pub fn line_break(b: &[u8], from: usize, end: usize) -> usize {
    let end = end.min(b.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::line_break(b, from, end);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = match words::line_break(b, from, end) {
        Ok(found) => return found,
        Err(rest) => rest,
    };
    while i < end {
        if matches!(b[i], b'\n' | b'\r') {
            return i;
        }
        i += 1;
    }
    end
}

/// The end of the valid JSON value starting at `b[i]`.
pub fn skip_value(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = i;
            loop {
                // Numbers, literals, `:` and `,` between them are stepped over
                // many bytes at a time.
                i = structural(b, i);
                match b.get(i) {
                    None => return b.len(),
                    Some(b'"') => {
                        i = skip_string(b, i);
                        continue;
                    }
                    Some(b'{' | b'[') => depth += 1,
                    Some(_) => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                }
                i += 1;
            }
        }
        // A number or a literal: up to the next delimiter.
        _ => {
            let rest = &b[i.min(b.len())..];
            i + rest
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len())
        }
    }
}

/// The index of the first `"`, `{`, `}`, `[` or `]` in `b[from..]`, or `b.len()`.
#[inline]
pub fn structural(b: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::structural(b, from);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = match words::structural(b, from) {
        Ok(found) => return found,
        Err(rest) => rest,
    };
    while i < b.len() {
        if matches!(b[i], b'"' | b'{' | b'}' | b'[' | b']') {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The index after the closing quote of the valid string starting at `b[i]`.
#[inline]
pub fn skip_string(b: &[u8], i: usize) -> usize {
    let mut i = i + 1;
    loop {
        i = plain_run(b, i, b.len());
        match b.get(i) {
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
            None => return b.len(),
        }
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod words {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;

    /// A high bit set in each byte of `x` that is zero (exact for the lowest one).
    #[inline]
    fn zero_bytes(x: u64) -> u64 {
        x.wrapping_sub(ONES) & !x & HIGHS
    }

    #[inline]
    fn load(b: &[u8], i: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(w)
    }

    /// Eight bytes a step: `Ok` with the first special byte (the lowest bit
    /// of a word's mask is exact), or `Err` with where fewer than eight are left.
    pub fn plain_run(b: &[u8], mut i: usize, end: usize) -> Result<usize, usize> {
        while i + 8 <= end {
            let x = load(b, i);
            let special = zero_bytes(x ^ (ONES * u64::from(b'"')))
                | zero_bytes(x ^ (ONES * u64::from(b'\\')))
                | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS);
            if special != 0 {
                return Ok(i + (special.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        Err(i)
    }

    /// As [`plain_run`], for `"`, `{`, `}`, `[` and `]` (a byte or'd with
    /// 0x20 is `{` only for `[` and `{`, `}` only for `]` and `}`).
    pub fn structural(b: &[u8], mut i: usize) -> Result<usize, usize> {
        while i + 8 <= b.len() {
            let x = load(b, i);
            let folded = x | (ONES * 0x20);
            let hits = zero_bytes(x ^ (ONES * u64::from(b'"')))
                | zero_bytes(folded ^ (ONES * u64::from(b'{')))
                | zero_bytes(folded ^ (ONES * u64::from(b'}')));
            if hits != 0 {
                return Ok(i + (hits.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        Err(i)
    }

    /// As [`plain_run`], for `\n`.
    pub fn newline(b: &[u8], mut i: usize) -> Result<usize, usize> {
        while i + 8 <= b.len() {
            let hits = zero_bytes(load(b, i) ^ (ONES * u64::from(b'\n')));
            if hits != 0 {
                return Ok(i + (hits.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        Err(i)
    }

    /// As [`plain_run`], for `\n` and `\r`.
    pub fn line_break(b: &[u8], mut i: usize, end: usize) -> Result<usize, usize> {
        while i + 8 <= end {
            let x = load(b, i);
            let hits = zero_bytes(x ^ (ONES * u64::from(b'\n')))
                | zero_bytes(x ^ (ONES * u64::from(b'\r')));
            if hits != 0 {
                return Ok(i + (hits.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        Err(i)
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_checked_as_std_does() {
        // ASCII with a few bytes of every kind at every place, in and across blocks.
        let specials: [&[u8]; 9] = [
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            &[0xff],
            &[0xc3],
            &[0xe2, 0x82],
            &[0xed, 0xa0, 0x80],
            &[0x80],
            &[0xf4, 0x90, 0x80, 0x80],
        ];
        let mut seed = 7u32;
        for len in [0, 1, 63, 64, 65, 127, 128, 200, 300] {
            for special in specials {
                for _ in 0..40 {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let at = if len == 0 {
                        0
                    } else {
                        (seed >> 8) as usize % (len + 1)
                    };
                    let mut b = vec![b'a'; len];
                    b.splice(at..at, special.iter().copied());
                    assert_eq!(
                        is_utf8(&b),
                        std::str::from_utf8(&b).is_ok(),
                        "{special:x?} at {at} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn finds_the_first_special_byte_at_every_offset() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for len in 0..40 {
                for at in 0..len {
                    let mut b = vec![b'a'; len];
                    b[at] = special;
                    if at + 1 < len {
                        b[at + 1] = b'"';
                    }
                    assert_eq!(
                        plain_run(&b, 0, len),
                        at,
                        "byte {special:#x} at {at} of {len}"
                    );
                }
                assert_eq!(
                    plain_run(&vec![0xe2; len], 0, len),
                    len,
                    "non-ASCII is plain"
                );
            }
        }
        let b = b"0123456789abcdef\nxyz";
        assert_eq!(newline(b, 0), 16);
        assert_eq!(newline(b, 17), b.len());
    }

    #[test]
    fn finds_the_first_bracket_or_quote_at_every_offset() {
        // The bytes that fold onto brackets by their 0x20 bit (`;` `=` `{`
        // `}` less it) and everything else of JSON are not structural.
        let others = b"0123456789-+.eE:, \t\r\ntrufalsn\\/;=\x7f\xe2\x02";
        for special in [b'"', b'{', b'}', b'[', b']'] {
            for len in 0..40 {
                for from in 0..3.min(len) {
                    for at in from..len {
                        let mut b: Vec<u8> = (0..len).map(|k| others[k % others.len()]).collect();
                        b[at] = special;
                        if at + 1 < len {
                            b[at + 1] = b'[';
                        }
                        assert_eq!(structural(&b, from), at, "{special:#x} at {at} of {b:x?}");
                    }
                }
                let b: Vec<u8> = (0..len).map(|k| others[k % others.len()]).collect();
                assert_eq!(structural(&b, 0), len, "{b:x?}");
            }
        }
    }

    #[test]
    fn finds_the_first_line_break_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                for (first, second) in [(b'\n', b'\r'), (b'\r', b'\n'), (b'\r', b'\r')] {
                    let mut b = vec![0x0b; len + 3];
                    b[at] = first;
                    b[at + 1] = second;
                    assert_eq!(line_break(&b, 0, len), at, "{first} at {at} of {len}");
                    assert_eq!(line_break(&b, at + 1, len + 3), at + 1);
                }
            }
            assert_eq!(line_break(&vec![0xe2; len], 0, len), len);
            // The end given, not the slice's, bounds the search.
            assert_eq!(line_break(b"aa\n", 0, 2), 2);
        }
    }

    #[test]
    fn validates_string_bodies() {
        let body = |s: &str| string_body(s.as_bytes(), 1, s.len());
        assert_eq!(body(r#""abc""#), Ok(5));
        assert_eq!(body(r#""a\"b\\" tail"#), Ok(8));
        assert_eq!(body(r#""\u00e9\n""#), Ok(10));
        assert_eq!(body(r#""abc"#), Err(StringFault::Unterminated));
        assert_eq!(body("\"a\u{1}\""), Err(StringFault::Control(2)));
        assert_eq!(body(r#""a\x""#), Err(StringFault::BadEscape(2)));
        assert_eq!(body(r#""\u12g4""#), Err(StringFault::BadUnicode(1)));
        assert_eq!(body(r#""\u12"#), Err(StringFault::BadUnicode(1)));
        // Escapes at every offset of long strings, across block boundaries.
        for pad in 0..40 {
            let s = format!(
                "\"{}\\n{}\\\"{}\\u0041x\"!",
                "a".repeat(pad),
                "b".repeat(pad % 7),
                "c".repeat(17)
            );
            assert_eq!(body(&s), Ok(s.len() - 1), "{s}");
            let bad = format!("\"{}\\q\"", "a".repeat(pad));
            assert_eq!(body(&bad), Err(StringFault::BadEscape(pad + 1)), "{bad}");
        }
    }

    /// [`string_body`] one special byte at a time.
    fn string_body_bytewise(b: &[u8], from: usize, end: usize) -> Result<usize, StringFault> {
        let mut i = from;
        loop {
            i = plain_run(b, i, end);
            match special(b, i, end)? {
                Err(after) => return Ok(after),
                Ok(next) => i = next,
            }
        }
    }

    #[test]
    fn escapes_are_the_odd_backslashes_of_each_run() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Dense and sparse backslash masks.
            let backslash = if seed & 1 == 0 {
                seed
            } else {
                seed & seed.rotate_left(7)
            };
            let (mut escaped, mut escape, mut after_escape) = (0u64, 0u64, false);
            for k in 0..64 {
                if after_escape {
                    escaped |= 1 << k;
                    after_escape = false;
                } else if backslash >> k & 1 != 0 {
                    escape |= 1 << k;
                    after_escape = true;
                }
            }
            assert_eq!(escapes(backslash), (escaped, escape), "{backslash:064b}");
        }
    }

    #[test]
    fn string_bodies_as_byte_by_byte() {
        let alphabet: [&[u8]; 14] = [
            b"a",
            b"\"",
            b"\\",
            b"\\\\",
            b"\\\"",
            b"\\n",
            b"\\u00e9",
            b"\\u0g",
            b"n",
            b"\n",
            b"\x01",
            b"\xc3\xa9",
            b"/",
            b"\\/",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..40_000 {
            let mut b = vec![b'"'];
            let len = 1 + (round % 200);
            while b.len() < len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let piece = alphabet[(seed >> 40) as usize % alphabet.len()];
                // Mostly plain text, so that strings get long.
                if seed & 3 == 0 {
                    b.extend_from_slice(piece);
                } else {
                    b.extend(std::iter::repeat_n(b'x', (seed >> 20) as usize % 40));
                }
            }
            for from in 1..4.min(b.len()) {
                for end in [b.len(), b.len().saturating_sub(5).max(from)] {
                    assert_eq!(
                        string_body(&b, from, end),
                        string_body_bytewise(&b, from, end),
                        "{:?} from {from} to {end}",
                        String::from_utf8_lossy(&b)
                    );
                }
            }
        }
    }

    #[test]
    fn skips_valid_values() {
        let s = br#"{"a":"x\"}","b":[1,{"c":"]"}]} , 5"#;
        assert_eq!(skip_value(s, 0), 30);
        assert_eq!(skip_value(b"123 ,", 0), 3);
        assert_eq!(skip_value(b"\"a\\\\\"x", 0), 5);
        assert_eq!(skip_value(b"true}", 0), 4);
    }
}

#[cfg(test)]
mod mutant_tests;
