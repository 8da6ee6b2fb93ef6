//! The wasm SIMD paths of [`super`] (built with `simd128`, as the npm package
//! is); natively the word-at-a-time paths of `words` run instead.

use core::arch::wasm32::*;

#[inline]
fn load(b: &[u8], i: usize) -> v128 {
    // SAFETY: the callers keep `i + 16 <= b.len()`; v128_load allows unaligned reads.
    unsafe { v128_load(b.as_ptr().add(i) as *const v128) }
}

// The error classes of the UTF-8 check: each table gives, for a nibble of
// the previous or the current byte, the classes it allows; a class set in
// all three is an error.
const TOO_SHORT: u8 = 1 << 0;
const TOO_LONG: u8 = 1 << 1;
const OVERLONG_3: u8 = 1 << 2;
const TOO_LARGE: u8 = 1 << 3;
const SURROGATE: u8 = 1 << 4;
const OVERLONG_2: u8 = 1 << 5;
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
const TWO_CONTS: u8 = 1 << 7;
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

const BYTE_1_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];
const BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];
const BYTE_2_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

fn table(t: &[u8; 16]) -> v128 {
    // SAFETY: a 16-byte array is a whole v128; v128_load allows unaligned reads.
    unsafe { v128_load(t.as_ptr() as *const v128) }
}

/// [`super::is_utf8`], 16 bytes a step; the last piece is padded with
/// zeros (ASCII), and a character cut off at the end is an error.
pub fn is_utf8(b: &[u8]) -> bool {
    let (t1h, t1l, t2h) = (table(&BYTE_1_HIGH), table(&BYTE_1_LOW), table(&BYTE_2_HIGH));
    let low = u8x16_splat(0x0f);
    // A byte of the last three that starts a character longer than what follows.
    let max = u8x16(
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xef, 0xdf, 0xbf,
    );
    let mut prev = u8x16_splat(0);
    let mut prev_incomplete = u8x16_splat(0);
    let mut error = u8x16_splat(0);
    let mut i = 0;
    let mut tail = [0u8; 16];
    while i < b.len() {
        // Sixty-four ASCII bytes at once (most text), as four steps below would take them.
        if i + 64 <= b.len() {
            let any = v128_or(
                v128_or(load(b, i), load(b, i + 16)),
                v128_or(load(b, i + 32), load(b, i + 48)),
            );
            if i8x16_bitmask(any) == 0 {
                error = v128_or(error, prev_incomplete);
                prev_incomplete = u8x16_splat(0);
                prev = load(b, i + 48);
                i += 64;
                continue;
            }
        }
        let input = if i + 16 <= b.len() {
            load(b, i)
        } else {
            tail[..b.len() - i].copy_from_slice(&b[i..]);
            load(&tail, 0)
        };
        i += 16;
        if i8x16_bitmask(input) == 0 {
            // ASCII: fine unless the piece before ended inside a character.
            error = v128_or(error, prev_incomplete);
            prev_incomplete = u8x16_splat(0);
            prev = input;
            continue;
        }
        let prev1 = i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(
            prev, input,
        );
        let prev2 = i8x16_shuffle::<14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29>(
            prev, input,
        );
        let prev3 = i8x16_shuffle::<13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28>(
            prev, input,
        );
        let special = v128_and(
            v128_and(
                u8x16_swizzle(t1h, u8x16_shr(prev1, 4)),
                u8x16_swizzle(t1l, v128_and(prev1, low)),
            ),
            u8x16_swizzle(t2h, u8x16_shr(input, 4)),
        );
        // Only a third or fourth byte of a character has 0x80 here.
        let must23 = v128_and(
            v128_or(
                u8x16_sub_sat(prev2, u8x16_splat(0xe0 - 0x80)),
                u8x16_sub_sat(prev3, u8x16_splat(0xf0 - 0x80)),
            ),
            u8x16_splat(0x80),
        );
        error = v128_or(error, v128_xor(must23, special));
        prev_incomplete = u8x16_sub_sat(input, max);
        prev = input;
    }
    !v128_any_true(v128_or(error, prev_incomplete))
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

/// The bytes of `x` below those of `limit` (one above 0): `min(x, limit - 1) == x`,
/// two instructions where an unsigned `<` takes four on x86.
#[inline(always)]
fn below(x: v128, limit: v128) -> v128 {
    i8x16_eq(u8x16_min(x, u8x16_sub(limit, u8x16_splat(1))), x)
}

impl super::Block {
    #[inline(always)]
    pub(super) fn at(b: &[u8], i: usize) -> super::Block {
        assert!(i + 64 <= b.len());
        let (quote, backslash, space) = (u8x16_splat(b'"'), u8x16_splat(b'\\'), u8x16_splat(0x20));
        let mut m = super::Block {
            quote: 0,
            backslash: 0,
            control: 0,
        };
        for k in 0..4 {
            let x = load(b, i + 16 * k);
            m.quote |= u64::from(i8x16_bitmask(i8x16_eq(x, quote))) << (16 * k);
            m.backslash |= u64::from(i8x16_bitmask(i8x16_eq(x, backslash))) << (16 * k);
            m.control |= u64::from(i8x16_bitmask(below(x, space))) << (16 * k);
        }
        m
    }
}

/// The bytes of the 64 at `b[i]` that may follow a backslash as a one-byte
/// escape (`"\/bfnrt`), found by table lookups on their two nibbles.
#[inline(always)]
pub(super) fn escapable(b: &[u8], i: usize) -> u64 {
    assert!(i + 64 <= b.len());
    // High nibble 2, 5, 6, 7 -> class bit 1, 2, 4, 8; low nibbles of each class.
    let high = u8x16(0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0);
    let low = u8x16(0, 0, 1 | 4 | 8, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1);
    let nibble = u8x16_splat(0x0f);
    let mut mask = 0u64;
    for k in 0..4 {
        let x = load(b, i + 16 * k);
        let classes = v128_and(
            u8x16_swizzle(high, u8x16_shr(x, 4)),
            u8x16_swizzle(low, v128_and(x, nibble)),
        );
        let hit = v128_not(i8x16_eq(classes, u8x16_splat(0)));
        mask |= u64::from(i8x16_bitmask(hit)) << (16 * k);
    }
    mask
}

/// The mask of `"`, `\` and bytes below 0x20 in the 16 bytes at `b[i]`.
#[inline(always)]
pub(super) fn special16(b: &[u8], i: usize) -> u32 {
    assert!(i + 16 <= b.len());
    let x = load(b, i);
    let special = v128_or(
        v128_or(
            i8x16_eq(x, u8x16_splat(b'"')),
            i8x16_eq(x, u8x16_splat(b'\\')),
        ),
        below(x, u8x16_splat(0x20)),
    );
    u32::from(i8x16_bitmask(special))
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

pub fn line_break(b: &[u8], mut i: usize, end: usize) -> usize {
    let (nl, cr) = (u8x16_splat(b'\n'), u8x16_splat(b'\r'));
    while i + 16 <= end {
        let x = load(b, i);
        let mask = i8x16_bitmask(v128_or(i8x16_eq(x, nl), i8x16_eq(x, cr)));
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// [`super::structural`], 16 bytes a step (a byte or'd with 0x20 is `{` only
/// for `[` and `{`, `}` only for `]` and `}`).
pub fn structural(b: &[u8], mut i: usize) -> usize {
    let (quote, open, close, case) = (
        u8x16_splat(b'"'),
        u8x16_splat(b'{'),
        u8x16_splat(b'}'),
        u8x16_splat(0x20),
    );
    while i + 16 <= b.len() {
        let x = load(b, i);
        let folded = v128_or(x, case);
        let hits = v128_or(
            i8x16_eq(x, quote),
            v128_or(i8x16_eq(folded, open), i8x16_eq(folded, close)),
        );
        let mask = i8x16_bitmask(hits);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}
