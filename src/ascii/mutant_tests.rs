//! Tests written against mutants of `ascii` (docs/mutation-log.md):
//! each fast path compared with the obvious way, a character at a time
//! (`char::encode_utf16`, `\uXXXX` written a hex digit at a time), over code
//! points of every length and bit, generated texts and hand-picked edges
//! (chunk boundaries, four-byte characters, U+0800 and U+10000, the growth
//! threshold of `crossing`).

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

/// A character as `JSON.stringify` escapes it: itself when ASCII, else one
/// `\uXXXX` (lower-case hex) per UTF-16 unit.
fn reference_escape(c: char) -> String {
    if c.is_ascii() {
        c.to_string()
    } else {
        let mut out = String::new();
        for u in c.encode_utf16(&mut [0; 2]) {
            out.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                out.push(char::from_digit(u32::from(*u >> shift) & 0xf, 16).unwrap());
            }
        }
        out
    }
}

fn reference_escaped(s: &str) -> String {
    s.chars().map(reference_escape).collect()
}

/// Characters from U+0000 to U+10FFFF: every one below U+1000, then every
/// 61st (each bit of a code point both ways), and the last.
fn every_char() -> String {
    (0..0x1000u32)
        .chain((0x1000..=0x10_ffff).step_by(61))
        .chain([0x10_ffff])
        .filter_map(char::from_u32)
        .collect()
}

/// Characters of each UTF-8 length and at each length's edges, among ASCII.
const SAMPLE: [char; 14] = [
    'a',
    '"',
    '\u{7f}',
    '\u{80}',
    'é',
    '\u{7ff}',
    '\u{800}',
    '€',
    '漢',
    '\u{ffff}',
    '\u{10000}',
    '😀',
    '\u{10ffff}',
    ' ',
];

/// Generated texts: runs of ASCII of every length between the sampled
/// characters, so that each kind lands at every offset of a word and block.
fn texts() -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = vec![
        String::new(),
        "x".repeat(200),
        "漢".repeat(50),
        "😀".repeat(40),
    ];
    for _ in 0..150 {
        let mut s = String::new();
        for _ in 0..rng.below(12) {
            s.extend(std::iter::repeat_n('x', rng.below(70)));
            for _ in 0..rng.below(4) {
                s.push(SAMPLE[rng.below(SAMPLE.len())]);
            }
        }
        out.push(s);
    }
    out
}

#[test]
fn characters_of_every_length_escape_and_widen_as_one_at_a_time() {
    let all = every_char();
    let mut out = Vec::new();
    push_escaped(&mut out, all.as_bytes());
    assert!(out == reference_escaped(&all).as_bytes(), "push_escaped");
    let mut units = Vec::new();
    push_utf16(&mut units, all.as_bytes());
    assert!(
        units == all.encode_utf16().collect::<Vec<_>>(),
        "push_utf16"
    );
    // One by one, after ASCII (the fast loop's word read) and alone (the tail).
    for c in all.chars().step_by(7).chain(SAMPLE) {
        for pad in [0, 16, 21] {
            let s = format!("{}{c}", "y".repeat(pad));
            let mut units = Vec::new();
            push_utf16(&mut units, s.as_bytes());
            assert_eq!(units, s.encode_utf16().collect::<Vec<_>>(), "{c:?}");
            let mut out = Vec::new();
            push_escaped(&mut out, s.as_bytes());
            assert_eq!(out, reference_escaped(&s).as_bytes(), "{c:?}");
        }
    }
}

#[test]
fn first_non_ascii_is_the_first_byte_past_0x7f() {
    for s in texts() {
        let b = s.as_bytes();
        for from in 0..=b.len() {
            let want = b[from..].iter().position(|&c| c >= 0x80).map(|p| from + p);
            assert_eq!(first_non_ascii(b, from), want, "{s:?} from {from}");
        }
    }
}

/// The pieces `escape_in_chunks` must give: the characters escaped one at a
/// time into a buffer that is handed over once it holds `chunk` bytes.
fn reference_escape_pieces(s: &str, chunk: usize) -> Vec<String> {
    let chunk = chunk.max(16);
    let (mut pieces, mut buf) = (Vec::new(), String::new());
    for c in s.chars() {
        buf.push_str(&reference_escape(c));
        if buf.len() >= chunk {
            pieces.push(std::mem::take(&mut buf));
        }
    }
    if !buf.is_empty() {
        pieces.push(buf);
    }
    pieces
}

#[test]
fn escape_in_chunks_hands_over_full_buffers_of_whole_escapes() {
    for s in texts() {
        for chunk in (0..=40).chain([63, 64, 65, 100, 1000]) {
            let mut pieces = Vec::new();
            escape_in_chunks(&s, chunk, |p| {
                pieces.push(String::from_utf8(p.to_vec()).unwrap())
            });
            assert_eq!(pieces, reference_escape_pieces(&s, chunk), "{s:?} {chunk}");
        }
    }
}

/// The pieces `utf16_in_chunks` must give: the longest runs of whole
/// characters of at most `chunk` bytes, as UTF-16.
fn reference_utf16_pieces(s: &str, chunk: usize) -> Vec<Vec<u16>> {
    let chunk = chunk.max(16);
    let (mut pieces, mut piece, mut bytes) = (Vec::new(), String::new(), 0);
    for c in s.chars() {
        if bytes + c.len_utf8() > chunk {
            pieces.push(piece.encode_utf16().collect());
            piece.clear();
            bytes = 0;
        }
        piece.push(c);
        bytes += c.len_utf8();
    }
    if !piece.is_empty() {
        pieces.push(piece.encode_utf16().collect());
    }
    pieces
}

#[test]
fn utf16_in_chunks_cuts_at_the_last_character_that_fits() {
    for s in texts() {
        for chunk in [0, 16, 17, 18, 19, 20, 33, 64, 1000] {
            let mut pieces = Vec::new();
            utf16_in_chunks(&s, chunk, |p| pieces.push(p.to_vec()));
            assert_eq!(pieces, reference_utf16_pieces(&s, chunk), "{s:?} {chunk}");
        }
    }
}

/// `crossing` as its doc says, from the escaped text's own length.
fn reference_crossing(s: &str) -> Crossing {
    let growth = reference_escaped(s).len() - s.len();
    if s.is_ascii() {
        Crossing::Ascii
    } else if growth > s.len() / 4 {
        Crossing::Utf16
    } else {
        Crossing::Escaped
    }
}

#[test]
fn crossing_picks_utf16_past_a_quarter_of_growth() {
    // Each kind of character, and mixes, with as much ASCII as puts the
    // growth on either side of a quarter of the length and right on it.
    let kinds = ["é", "€", "😀", "é😀", "€€é", "漢😀😀", "\u{800}\u{10000}"];
    for k in kinds {
        for n in 1..4 {
            let chars = k.repeat(n);
            let growth = reference_escaped(&chars).len() - chars.len();
            for pad in 0..(4 * growth + 12) {
                for at in [0, pad / 2, pad] {
                    let s = format!("{}{chars}{}", "a".repeat(at), "a".repeat(pad - at));
                    assert_eq!(crossing(&s), reference_crossing(&s), "{s:?}");
                }
            }
        }
    }
    for s in texts() {
        assert_eq!(crossing(&s), reference_crossing(&s), "{s:?}");
    }
    assert_eq!(crossing(""), Crossing::Ascii);
}

#[test]
fn counts_are_the_lead_continuation_and_four_byte_lead_bytes() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..3000 {
        let len = round % 300;
        // Mostly ASCII, with runs of any byte: blocks of each kind.
        let b: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(4) == 0 {
                    (rng.next() >> 24) as u8
                } else {
                    b'a'
                }
            })
            .collect();
        let want = (
            b.iter().filter(|&&c| c >= 0xc0).count(),
            b.iter().filter(|&&c| (0x80..0xc0).contains(&c)).count(),
            b.iter().filter(|&&c| c >= 0xf0).count(),
        );
        assert_eq!(counts(&b), want, "{b:x?}");
    }
}

/// The values of `pieces` (each one JSON array) in order.
fn values_of(pieces: &[String]) -> Vec<serde_json::Value> {
    pieces
        .iter()
        .flat_map(|p| serde_json::from_str::<Vec<serde_json::Value>>(p).expect(p))
        .collect()
}

/// Pieces close after the value that fills them: within a piece every value
/// but the last ends before `chunk` units, and the last of a piece that is
/// not the last piece ends at or past it.
fn check_places(at: &[u32], chunk: usize, what: &str) {
    let chunk = chunk.max(16) as u32;
    let count = at.len() / 3;
    for k in 0..count {
        let (piece, end) = (at[3 * k], at[3 * k + 2]);
        let last_of_piece = k + 1 == count || at[3 * (k + 1)] != piece;
        if !last_of_piece {
            assert!(end < chunk, "{what}: value {k} ends at {end}, past {chunk}");
        } else if k + 1 < count {
            assert!(end >= chunk, "{what}: piece {piece} closed early at {end}");
            assert_eq!(at[3 * (k + 1)], piece + 1, "{what}");
        }
    }
}

/// Values as JSON texts: short and long, ASCII and not.
fn json_values(rng: &mut Rng) -> Vec<String> {
    let n = rng.below(9);
    (0..n)
        .map(|_| match rng.below(5) {
            0 => format!("{}", rng.below(100_000)),
            1 => format!("\"{}\"", "x".repeat(rng.below(40))),
            2 => {
                let c = SAMPLE[rng.below(SAMPLE.len())];
                format!("[{},{}]", rng.below(9), serde_json::to_string(&c).unwrap())
            }
            3 => format!("{{\"k\":\"{}\"}}", "é😀".repeat(rng.below(6))),
            _ => "null".to_owned(),
        })
        .collect()
}

#[test]
fn array_pieces_close_after_the_value_that_fills_them() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    for _ in 0..300 {
        let values = json_values(&mut rng);
        let text = values.join("\n");
        let mut ranges = Vec::new();
        let mut start = 0;
        for v in &values {
            ranges.push(start..start + v.len());
            start += v.len() + 1;
        }
        let want: Vec<serde_json::Value> = values
            .iter()
            .map(|v| serde_json::from_str(v).unwrap())
            .collect();
        for how in [Crossing::Ascii, Crossing::Escaped, Crossing::Utf16] {
            if how == Crossing::Ascii && !text.is_ascii() {
                continue;
            }
            for chunk in [0, 16, 17, 20, 25, 31, 40, 64] {
                let mut pieces = Vec::new();
                let at = array_pieces(&text, ranges.clone(), how, chunk, |p| {
                    pieces.push(match p {
                        Piece::Ascii(b) => String::from_utf8(b.to_vec()).unwrap(),
                        Piece::Utf16(u) => String::from_utf16(u).unwrap(),
                    })
                });
                let what = format!("{values:?} {how:?} {chunk}");
                assert_eq!(values_of(&pieces), want, "{what}");
                assert_eq!(at.len(), 3 * values.len(), "{what}");
                check_places(&at, chunk, &what);
                // Each place holds its value, in units of its piece.
                for (k, v) in values.iter().enumerate() {
                    let units: Vec<u16> = pieces[at[3 * k] as usize].encode_utf16().collect();
                    let got =
                        String::from_utf16(&units[at[3 * k + 1] as usize..at[3 * k + 2] as usize])
                            .unwrap();
                    let want_text = match how {
                        Crossing::Escaped => reference_escaped(v),
                        _ => v.clone(),
                    };
                    assert_eq!(got, want_text, "{what}");
                }
                let last = at.len().checked_sub(3).map_or(0, |k| at[k] + 1);
                assert_eq!(pieces.len() as u32, last.max(1), "{what}: no empty piece");
            }
        }
    }
}

#[test]
fn array_pieces_of_one_character_values() {
    // The smallest JSON values, each alone and first in its piece: a piece
    // of one takes three units, `[`, the value and `]`, however it crosses.
    for how in [Crossing::Ascii, Crossing::Escaped, Crossing::Utf16] {
        for text in ["7", "7\n8\n9"] {
            let ranges: Vec<_> = (0..text.len()).step_by(2).map(|i| i..i + 1).collect();
            let mut pieces = Vec::new();
            let at = array_pieces(text, ranges.clone(), how, 0, |p| {
                pieces.push(match p {
                    Piece::Ascii(b) => String::from_utf8(b.to_vec()).unwrap(),
                    Piece::Utf16(u) => String::from_utf16(u).unwrap(),
                })
            });
            let want = if text == "7" { "[7]" } else { "[7,8,9]" };
            assert_eq!(pieces, [want], "{how:?} {text:?}");
            let places: Vec<u32> = (0..ranges.len() as u32)
                .flat_map(|k| [0, 2 * k + 1, 2 * k + 2])
                .collect();
            assert_eq!(at, places, "{how:?} {text:?}");
        }
    }
}

#[test]
fn is_ascii_is_no_byte_past_0x7f() {
    for s in texts() {
        let b = s.as_bytes();
        for from in (0..b.len()).step_by(7) {
            assert_eq!(is_ascii(&b[from..]), b[from..].iter().all(|&c| c < 0x80));
        }
    }
}
