//! Tests written against mutants of `scan` (docs/mutation-log.md):
//! each fast path compared with the obvious way, one byte at a time, over
//! generated inputs and hand-picked edges (word and block boundaries, escapes
//! and faults at every offset, a backslash that ends a 64-byte block).

use super::*;

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

/// The code points whose `String.fromCodePoint(c).trim()` is `""` in Node
/// 20.20.2 (every one from 0 to 0x10FFFF tried, surrogates left out).
const NODE_TRIMS: [u32; 25] = [
    0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
    0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];

#[test]
fn js_space_is_what_node_trims() {
    for c in (0..=0x10_ffffu32).filter_map(char::from_u32) {
        assert_eq!(is_js_space(c), NODE_TRIMS.contains(&(c as u32)), "{c:?}");
    }
}

/// Bytes with each kind the searches look for, among plain ones: runs of
/// every length, so that each lands at every offset of a word.
fn byte_texts() -> Vec<Vec<u8>> {
    let kinds: [u8; 12] = [
        b'"', b'\\', 0x00, 0x1f, b'\n', b'\r', b' ', b'!', b'#', b']', 0x80, 0xff,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = vec![Vec::new(), vec![b'a'; 40]];
    for _ in 0..400 {
        let mut b = Vec::new();
        for _ in 0..rng.below(6) {
            b.extend(std::iter::repeat_n(b'a', rng.below(20)));
            for _ in 0..1 + rng.below(2) {
                b.push(kinds[rng.below(kinds.len())]);
            }
        }
        b.extend(std::iter::repeat_n(b'a', rng.below(12)));
        out.push(b);
    }
    out
}

/// The first index in `from..end` (the end held to the slice) whose byte
/// `hit` says, or that end.
fn first(b: &[u8], from: usize, end: usize, hit: impl Fn(u8) -> bool) -> usize {
    let end = end.min(b.len());
    (from..end).find(|&i| hit(b[i])).unwrap_or(end.max(from))
}

#[test]
fn searches_find_the_first_byte_as_one_at_a_time() {
    let plain = |c: u8| c == b'"' || c == b'\\' || c < 0x20;
    let nl = |c: u8| c == b'\n';
    let brk = |c: u8| c == b'\n' || c == b'\r';
    for b in byte_texts() {
        let len = b.len();
        for from in 0..=len {
            assert_eq!(newline(&b, from), first(&b, from, len, nl), "{b:x?} {from}");
            // Ends within a word or two of the start, and at or past the text's.
            for end in (from..(from + 18).min(len)).chain([len, len + 1]) {
                let what = format!("{b:x?} {from}..{end}");
                assert_eq!(
                    plain_run(&b, from, end),
                    first(&b, from, end, plain),
                    "{what}"
                );
                assert_eq!(
                    line_break(&b, from, end),
                    first(&b, from, end, brk),
                    "{what}"
                );
            }
        }
    }
}

/// A string body checked one byte at a time, as the JSON grammar reads it.
fn reference_body(b: &[u8], from: usize, end: usize) -> Result<usize, StringFault> {
    let end = end.min(b.len());
    let mut i = from;
    loop {
        if i >= end {
            return Err(StringFault::Unterminated);
        }
        match b[i] {
            b'"' => return Ok(i + 1),
            b'\\' if i + 1 >= end => return Err(StringFault::BadEscape(i)),
            b'\\' => match b[i + 1] {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    if i + 6 <= end && b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) {
                        i += 6;
                    } else {
                        return Err(StringFault::BadUnicode(i));
                    }
                }
                _ => return Err(StringFault::BadEscape(i)),
            },
            c if c < 0x20 => return Err(StringFault::Control(i)),
            _ => i += 1,
        }
    }
}

fn check_body(b: &[u8], from: usize, end: usize) {
    assert_eq!(
        string_body(b, from, end),
        reference_body(b, from, end),
        "{:?} from {from} to {end}",
        String::from_utf8_lossy(b)
    );
}

#[test]
fn string_bodies_as_the_grammar_reads_them() {
    let alphabet: [&[u8]; 22] = [
        b"\"",
        b"\\",
        b"\\\\",
        b"\\\"",
        b"\\n",
        b"\\b",
        b"\\f",
        b"\\r",
        b"\\t",
        b"\\/",
        b"\\u00e9",
        b"\\uABCD",
        b"\\u0g",
        b"\\u12",
        b"\\x",
        b"\\ ",
        b"\\\x01",
        b"\n",
        b"\x01",
        b"\x1f",
        b"\x7f \xc3\xa9",
        b"u",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..8_000 {
        let mut b = vec![b'"'];
        let len = 1 + (round % 260);
        while b.len() < len {
            if rng.below(5) == 0 {
                b.extend_from_slice(alphabet[rng.below(alphabet.len())]);
            } else {
                b.extend(std::iter::repeat_n(b'x', rng.below(40)));
            }
        }
        let n = b.len();
        for from in 0..4.min(n + 1) {
            for end in [
                n,
                n + 3,
                n.saturating_sub(1),
                n.saturating_sub(6),
                rng.below(n + 1),
            ] {
                check_body(&b, from, end);
            }
        }
    }
}

#[test]
fn string_body_faults_and_escapes_at_every_offset() {
    let cases: [&[u8]; 14] = [
        b"\\q", b"\\u12G4", b"\\u004", b"\\u0041", b"\\\"", b"\\\\", b"\\/", b"\x01", b"\x1f",
        b"\\\x00", b"\\\\\\q", b"\\\\\\u", b"\"", b"\\",
    ];
    for case in cases {
        for pad in 0..200 {
            for tail in [
                &b"\""[..],
                b"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"",
            ] {
                let mut b = vec![b'"'];
                b.extend(std::iter::repeat_n(b'x', pad));
                b.extend_from_slice(case);
                b.extend_from_slice(tail);
                check_body(&b, 1, b.len());
                check_body(&b, 1, b.len() - 1);
            }
        }
    }
    // Faults after the closing quote, in its 64-byte block and the next.
    for after in [&b"\x01"[..], b"\\q", b"\\u12", b"\\"] {
        for pad in 30..100 {
            for gap in [0, 1, 20, 70] {
                let mut b = vec![b'"'];
                b.extend(std::iter::repeat_n(b'x', pad));
                b.push(b'"');
                b.extend(std::iter::repeat_n(b'w', gap));
                b.extend_from_slice(after);
                b.extend(std::iter::repeat_n(b'z', 80));
                check_body(&b, 1, b.len());
            }
        }
    }
    // A 64-byte block (the long path starts 32 bytes in) that opens with
    // control bytes, or only escapes, before its closing quote.
    for lead in [&b"\x01"[..], b"\x01\x02\x03", b"\\n", b"\\\\\\n", b"\\q"] {
        for pad in 30..100 {
            let mut b = vec![b'"'];
            b.extend(std::iter::repeat_n(b'x', pad));
            b.extend_from_slice(lead);
            b.extend_from_slice(b"\"");
            b.extend(std::iter::repeat_n(b'z', 80));
            check_body(&b, 1, b.len());
        }
    }
}

/// A string of pieces a JSON reader must step over with care.
fn text(rng: &mut Rng) -> String {
    let strings = [
        "", "a", "}", "]", ",", ":", " ", "\"", "\\", "\\\"", "\n", "é😀", "{[", "x y",
    ];
    (0..rng.below(4))
        .map(|_| strings[rng.below(strings.len())])
        .collect()
}

/// A JSON value of up to `depth` levels, as `serde_json` writes it.
fn value(rng: &mut Rng, depth: usize) -> serde_json::Value {
    use serde_json::Value;
    match if depth == 0 {
        rng.below(4)
    } else {
        rng.below(6)
    } {
        0 => Value::String(text(rng)),
        1 => serde_json::from_str(["-1.5e-7", "0", "12345678901", "-3"][rng.below(4)]).unwrap(),
        2 => [Value::Null, Value::Bool(true), Value::Bool(false)][rng.below(3)].clone(),
        3 => Value::String("x".repeat(rng.below(90))),
        4 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (text(rng), value(rng, depth - 1)))
                .collect(),
        ),
    }
}

#[test]
fn skip_value_ends_where_the_value_does() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let tails = ["", ",1", "}", "]", " x", "\n{}", "\r", "\t", ":", "]}"];
    for _ in 0..3000 {
        let v = value(&mut rng, 3);
        let compact = serde_json::to_string(&v).unwrap();
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        for text in [compact, pretty] {
            for tail in tails {
                for lead in ["", "  ", "[", "{\"k\":"] {
                    let all = format!("{lead}{text}{tail}");
                    let b = all.as_bytes();
                    let want = lead.len() + text.len();
                    assert_eq!(skip_value(b, lead.len()), want, "{all:?}");
                    if text.starts_with('"') {
                        assert_eq!(skip_string(b, lead.len()), want, "{all:?}");
                    }
                }
            }
        }
    }
    // Raw control bytes, which no valid string holds but a malformed line
    // may: stepped over as any byte, up to the first unescaped quote.
    for b in [
        &b"\"a\tb\"x"[..],
        b"\"\n\"",
        b"\"\x00\x1f\\\"\x01\" ,",
        b"\"\x01\x02\x03\x04\x05\x06\x07\x08\x09\"]",
    ] {
        let mut i = 1;
        let want = loop {
            match b.get(i) {
                Some(b'"') => break i + 1,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
                None => break b.len(),
            }
        };
        assert_eq!(skip_string(b, 0), want, "{b:x?}");
        assert_eq!(skip_value(b, 0), want, "{b:x?}");
    }
    // Past the end, and a value the text cuts off, end at the text's end.
    assert_eq!(skip_value(b"[1]", 3), 3);
    assert_eq!(skip_value(b"[1]", 7), 7);
    assert_eq!(skip_value(b"{\"a\":[1,", 0), 8);
    assert_eq!(skip_value(b"\"ab\\", 0), 4);
    assert_eq!(skip_string(b"\"ab", 0), 3);
}

#[test]
fn utf8_is_checked_as_std_checks_it() {
    let kinds: [&[u8]; 12] = [
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        "\u{10ffff}".as_bytes(),
        &[0xff],
        &[0xc3],
        &[0xe2, 0x82],
        &[0xed, 0xa0, 0x80],
        &[0x80],
        &[0xf4, 0x90, 0x80, 0x80],
        &[0xc0, 0xaf],
        &[0xf0, 0x9f, 0x98],
    ];
    let mut rng = Rng(0x6a09_e667_f3bc_c909);
    for _ in 0..4000 {
        // Runs of ASCII of every length around 64, so that whole ASCII
        // blocks fall before, between and after the other bytes.
        let mut b = Vec::new();
        for _ in 0..rng.below(5) {
            b.extend(std::iter::repeat_n(b'a', rng.below(140)));
            b.extend_from_slice(kinds[rng.below(kinds.len())]);
        }
        b.extend(std::iter::repeat_n(b'a', rng.below(140)));
        assert_eq!(is_utf8(&b), std::str::from_utf8(&b).is_ok(), "{b:x?}");
    }
}
