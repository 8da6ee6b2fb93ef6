//! JSON text with every non-ASCII character written as a `\uXXXX` escape.
//!
//! Handing text to JS costs a UTF-8 decode, and engines decode pure ASCII
//! several times faster than text with a few accented letters or emoji in it
//! (Node 20: 3 ms against 14 ms for a 4.5 MB session with 0.1% non-ASCII), and
//! store it as one byte per character. In valid JSON a non-ASCII character can
//! only be inside a string, where `\uXXXX` means the same to `JSON.parse`.

/// Escapes, in place, every non-ASCII character of `json`: a valid JSON text
/// (or several joined by ASCII). Text that would grow by more than a quarter
/// (mostly non-Latin script) is left as it is, to bound the memory it takes.
pub fn escape_non_ascii(json: &mut String) {
    let b = json.as_bytes();
    // Each character's escape is 6 bytes per UTF-16 unit, in place of its
    // 2, 3 or 4 bytes of UTF-8: the growth is known from the lead bytes.
    let mut growth = 0usize;
    let mut i = 0;
    while let Some(p) = first_non_ascii(b, i) {
        growth += match b[p] {
            0x80..=0xbf => 0,
            0xc0..=0xdf => 4,
            0xe0..=0xef => 3,
            _ => 8,
        };
        i = p + 1;
    }
    if growth == 0 || growth > b.len() / 4 {
        return;
    }
    // From the end: move the text after each character to its final place,
    // and write the character's escape in front of it.
    let old_len = b.len();
    let mut bytes = std::mem::take(json).into_bytes();
    bytes.resize(old_len + growth, 0);
    let (mut src_end, mut dst_end) = (old_len, old_len + growth);
    while let Some(last) = last_non_ascii(&bytes[..src_end]) {
        let mut start = last;
        while bytes[start] & 0xc0 == 0x80 {
            start -= 1;
        }
        let c = std::str::from_utf8(&bytes[start..=last])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('\u{FFFD}');
        let run = src_end - (last + 1);
        bytes.copy_within(last + 1..src_end, dst_end - run);
        dst_end -= run;
        let mut units = [0u16; 2];
        for &unit in c.encode_utf16(&mut units).iter().rev() {
            dst_end -= 6;
            write_escape(&mut bytes[dst_end..dst_end + 6], unit);
        }
        src_end = start;
    }
    debug_assert_eq!(src_end, dst_end);
    // Every byte written is ASCII and the untouched ones were valid UTF-8.
    *json = String::from_utf8(bytes).unwrap_or_default();
}

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
            let c = b[i];
            let (cp, len) = if c < 0xe0 {
                ((u32::from(c & 0x1f) << 6) | u32::from(b[i + 1] & 0x3f), 2)
            } else if c < 0xf0 {
                (
                    (u32::from(c & 0x0f) << 12)
                        | (u32::from(b[i + 1] & 0x3f) << 6)
                        | u32::from(b[i + 2] & 0x3f),
                    3,
                )
            } else {
                (
                    (u32::from(c & 0x07) << 18)
                        | (u32::from(b[i + 1] & 0x3f) << 12)
                        | (u32::from(b[i + 2] & 0x3f) << 6)
                        | u32::from(b[i + 3] & 0x3f),
                    4,
                )
            };
            let n = buf.len();
            if cp < 0x1_0000 {
                buf.resize(n + 6, 0);
                write_escape(&mut buf[n..n + 6], cp as u16);
            } else {
                let v = cp - 0x1_0000;
                buf.resize(n + 12, 0);
                write_escape(&mut buf[n..n + 6], 0xd800 | (v >> 10) as u16);
                write_escape(&mut buf[n + 6..n + 12], 0xdc00 | (v & 0x3ff) as u16);
            }
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

/// In `b`: the bytes that start a non-ASCII character, the continuation
/// bytes, and the bytes that start a four-byte character; eight bytes a step.
fn counts(b: &[u8]) -> (usize, usize, usize) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (mut leads, mut conts, mut fours) = (0u32, 0u32, 0u32);
    let words = b.chunks_exact(8);
    let rest = words.remainder();
    let mut add = |w: u64| {
        let hi = w & HIGH;
        if hi != 0 {
            let b6 = (w << 1) & HIGH;
            leads += (hi & b6).count_ones();
            conts += (hi & !b6).count_ones();
            fours += (w & (w << 1) & (w << 2) & (w << 3) & HIGH).count_ones();
        }
    };
    for w in words {
        add(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
    }
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    add(u64::from_le_bytes(last));
    (leads as usize, conts as usize, fours as usize)
}

/// `text` as UTF-16 code units, handed to `emit` about `chunk` units at a
/// time from one reused buffer (each piece ends on a character boundary).
pub fn utf16_in_chunks(text: &str, chunk: usize, mut emit: impl FnMut(&[u16])) {
    let b = text.as_bytes();
    let chunk = chunk.max(16);
    // Room for a whole step (8 ASCII bytes, or one character) past `chunk`.
    let mut buf = vec![0u16; chunk.min(b.len()) + 8];
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        if i + 8 <= b.len() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            if u64::from_le_bytes(w) & 0x8080_8080_8080_8080 == 0 {
                for (slot, &c) in buf[n..n + 8].iter_mut().zip(&w) {
                    *slot = u16::from(c);
                }
                n += 8;
                i += 8;
                if n >= chunk {
                    emit(&buf[..n]);
                    n = 0;
                }
                continue;
            }
        }
        let c = b[i];
        if c < 0x80 {
            buf[n] = u16::from(c);
            n += 1;
            i += 1;
        } else if c < 0xe0 {
            buf[n] = (u16::from(c & 0x1f) << 6) | u16::from(b[i + 1] & 0x3f);
            n += 1;
            i += 2;
        } else if c < 0xf0 {
            buf[n] = (u16::from(c & 0x0f) << 12)
                | (u16::from(b[i + 1] & 0x3f) << 6)
                | u16::from(b[i + 2] & 0x3f);
            n += 1;
            i += 3;
        } else {
            let cp = (u32::from(c & 0x07) << 18)
                | (u32::from(b[i + 1] & 0x3f) << 12)
                | (u32::from(b[i + 2] & 0x3f) << 6)
                | u32::from(b[i + 3] & 0x3f);
            let v = cp - 0x1_0000;
            buf[n] = 0xd800 | (v >> 10) as u16;
            buf[n + 1] = 0xdc00 | (v & 0x3ff) as u16;
            n += 2;
            i += 4;
        }
        if n >= chunk {
            emit(&buf[..n]);
            n = 0;
        }
    }
    if n > 0 {
        emit(&buf[..n]);
    }
}

/// Where byte `positions` of `json` (increasing, on character boundaries)
/// land once it crosses as `how` ([`escape_in_chunks`] or
/// [`utf16_in_chunks`]): offsets in the JS string, in UTF-16 units.
pub fn crossed_positions(
    json: &str,
    how: Crossing,
    positions: impl IntoIterator<Item = usize>,
) -> Vec<u32> {
    let b = json.as_bytes();
    let (mut byte, mut out) = (0usize, 0usize);
    positions
        .into_iter()
        .map(|p| {
            let seg = &b[byte..p];
            out += match how {
                Crossing::Ascii => seg.len(),
                _ => {
                    let (leads, conts, fours) = counts(seg);
                    match how {
                        // units = bytes - continuations + a second unit per four-byte character
                        Crossing::Utf16 => seg.len() - conts + fours,
                        // six bytes per unit in place of each character's bytes
                        _ => seg.len() + 5 * leads + 6 * fours - conts,
                    }
                }
            };
            byte = p;
            out as u32
        })
        .collect()
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
    let mut i = from;
    // Eight bytes a step: a high bit anywhere in the word means non-ASCII.
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        if u64::from_le_bytes(w) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    b[i.min(b.len())..]
        .iter()
        .position(|&c| c >= 0x80)
        .map(|p| i + p)
}

/// The index of the last byte of `b` that is not ASCII.
fn last_non_ascii(b: &[u8]) -> Option<usize> {
    let mut end = b.len();
    while end >= 8 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[end - 8..end]);
        if u64::from_le_bytes(w) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        end -= 8;
    }
    b[..end].iter().rposition(|&c| c >= 0x80)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str) -> String {
        let mut t = s.to_owned();
        escape_non_ascii(&mut t);
        t
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
    fn leaves_ascii_and_mostly_non_latin_text_alone() {
        assert_eq!(
            escaped(r#"{"a":"plain \n text"}"#),
            r#"{"a":"plain \n text"}"#
        );
        assert_eq!(escaped(""), "");
        let cjk = format!(r#"["{}"]"#, "漢字".repeat(100));
        assert_eq!(escaped(&cjk), cjk);
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

    #[test]
    fn crossed_positions_find_each_piece() {
        let s = format!(
            "[\"a\",\"é{}\",\"漢😀\",{{\"x\":\"€\"}},\"{}\"]",
            "z".repeat(20),
            "y".repeat(9)
        );
        // The pieces between commas, as byte spans.
        let mut bounds = Vec::new();
        let mut start = 1;
        for (i, c) in s.char_indices() {
            if c == ',' || i == s.len() - 1 {
                bounds.push((start, i));
                start = i + 1;
            }
        }
        for how in [Crossing::Escaped, Crossing::Utf16] {
            let crossed: Vec<u16> = match how {
                Crossing::Utf16 => s.encode_utf16().collect(),
                _ => {
                    let mut out = Vec::new();
                    escape_in_chunks(&s, 64, |p| out.extend(p.iter().map(|&c| u16::from(c))));
                    out
                }
            };
            let at = crossed_positions(&s, how, bounds.iter().flat_map(|&(a, b)| [a, b]));
            for (k, &(a, b)) in bounds.iter().enumerate() {
                let piece = &crossed[at[2 * k] as usize..at[2 * k + 1] as usize];
                let want: Vec<u16> = match how {
                    Crossing::Utf16 => s[a..b].encode_utf16().collect(),
                    _ => {
                        let mut out = Vec::new();
                        escape_in_chunks(&s[a..b], 64, |p| {
                            out.extend(p.iter().map(|&c| u16::from(c)))
                        });
                        out
                    }
                };
                assert_eq!(piece, &want[..], "{how:?} {k}");
            }
        }
        assert_eq!(crossed_positions("abc", Crossing::Ascii, [1, 3]), [1, 3]);
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
