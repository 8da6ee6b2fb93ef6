//! Finding the bytes that matter, many bytes at a time.
//!
//! Most of a session is string content (message text, tool output), and inside
//! a string only three kinds of byte need a look: `"`, `\` and control
//! characters. [`plain_run`] skips everything else 16 bytes a step with wasm
//! SIMD (when built with `simd128`) or 8 bytes a step with word arithmetic.
//! [`skip_value`] steps over a value already known to be valid JSON.

/// The index of the first byte in `b[from..end]` that is `"`, `\` or below
/// 0x20, or `end` if there is none.
#[inline]
pub fn plain_run(b: &[u8], from: usize, end: usize) -> usize {
    let end = end.min(b.len());
    let mut i = from;
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        i = simd::plain_run(b, i, end);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        i = words::plain_run(b, i, end);
    }
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
#[inline]
pub fn string_body(b: &[u8], from: usize, end: usize) -> Result<usize, StringFault> {
    let end = end.min(b.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::string_body(b, from, end)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let mut i = from;
        loop {
            i = plain_run(b, i, end);
            match special(b, i, end)? {
                Err(after) => return Ok(after),
                Ok(next) => i = next,
            }
        }
    }
}

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

/// The index of the first `\n` in `b[from..]`, or `b.len()`.
#[inline]
pub fn newline(b: &[u8], from: usize) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut i = simd::newline(b, from);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut i = words::newline(b, from);
    while i < b.len() {
        if b[i] == b'\n' {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The end of the valid JSON value starting at `b[i]`.
pub fn skip_value(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = i;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = skip_string(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            b.len()
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

    pub fn plain_run(b: &[u8], mut i: usize, end: usize) -> usize {
        while i + 8 <= end {
            let x = load(b, i);
            let special = zero_bytes(x ^ (ONES * u64::from(b'"')))
                | zero_bytes(x ^ (ONES * u64::from(b'\\')))
                | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS);
            if special != 0 {
                return i + (special.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        i
    }

    pub fn newline(b: &[u8], mut i: usize) -> usize {
        while i + 8 <= b.len() {
            let hits = zero_bytes(load(b, i) ^ (ONES * u64::from(b'\n')));
            if hits != 0 {
                return i + (hits.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        i
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    #[inline]
    fn load(b: &[u8], i: usize) -> v128 {
        // SAFETY: the callers keep `i + 16 <= b.len()`; v128_load allows unaligned reads.
        unsafe { v128_load(b.as_ptr().add(i) as *const v128) }
    }

    pub fn plain_run(b: &[u8], mut i: usize, end: usize) -> usize {
        let (quote, backslash, space) = (u8x16_splat(b'"'), u8x16_splat(b'\\'), u8x16_splat(0x20));
        while i + 16 <= end {
            let x = load(b, i);
            let special = v128_or(
                v128_or(i8x16_eq(x, quote), i8x16_eq(x, backslash)),
                u8x16_lt(x, space),
            );
            let mask = i8x16_bitmask(special);
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        i
    }

    /// [`super::string_body`], handling every special byte of a 16-byte block
    /// from one bit mask: escapes are frequent in tool output.
    pub fn string_body(b: &[u8], mut i: usize, end: usize) -> Result<usize, super::StringFault> {
        let (quote, backslash, space) = (u8x16_splat(b'"'), u8x16_splat(b'\\'), u8x16_splat(0x20));
        'blocks: while i + 16 <= end {
            let x = load(b, i);
            let special = v128_or(
                v128_or(i8x16_eq(x, quote), i8x16_eq(x, backslash)),
                u8x16_lt(x, space),
            );
            let mut mask = i8x16_bitmask(special) as u32;
            while mask != 0 {
                let p = i + mask.trailing_zeros() as usize;
                match super::special(b, p, end)? {
                    Err(after) => return Ok(after),
                    Ok(next) if next >= i + 16 => {
                        i = next;
                        continue 'blocks;
                    }
                    Ok(next) => mask &= !((1u32 << (next - i)) - 1),
                }
            }
            i += 16;
        }
        loop {
            i = super::plain_run(b, i, end);
            match super::special(b, i, end)? {
                Err(after) => return Ok(after),
                Ok(next) => i = next,
            }
        }
    }

    pub fn newline(b: &[u8], mut i: usize) -> usize {
        let nl = u8x16_splat(b'\n');
        while i + 16 <= b.len() {
            let mask = i8x16_bitmask(i8x16_eq(load(b, i), nl));
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn skips_valid_values() {
        let s = br#"{"a":"x\"}","b":[1,{"c":"]"}]} , 5"#;
        assert_eq!(skip_value(s, 0), 30);
        assert_eq!(skip_value(b"123 ,", 0), 3);
        assert_eq!(skip_value(b"\"a\\\\\"x", 0), 5);
        assert_eq!(skip_value(b"true}", 0), 4);
    }
}
