//! The wasm SIMD paths of [`super`] (built with `simd128`, as the npm package
//! is); natively the word-at-a-time paths run instead.

use core::arch::wasm32::*;

/// From `i`, 16 bytes a step: the index of the first byte that is not
/// ASCII, or where fewer than 16 bytes are left.
#[inline]
pub fn ascii_run(b: &[u8], mut i: usize) -> usize {
    while i + 16 <= b.len() {
        // SAFETY: in bounds (the loop condition); v128_load allows unaligned addresses.
        let mask = u8x16_bitmask(unsafe { v128_load(b.as_ptr().add(i) as *const v128) });
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// Whether every byte of `b` is ASCII: 64 bytes a step, then std's check.
#[inline]
pub fn is_ascii(b: &[u8]) -> bool {
    let blocks = b.len() / 64 * 64;
    ascii_blocks(&b[..blocks]) && b[blocks..].is_ascii()
}

/// Whether `b` (a multiple of 64 bytes long) is all ASCII.
#[inline]
pub fn ascii_blocks(b: &[u8]) -> bool {
    assert!(b.len() % 64 == 0);
    let p = b.as_ptr() as *const v128;
    for k in (0..b.len() / 16).step_by(4) {
        // SAFETY: the assert keeps the four 16-byte loads in bounds;
        // v128_load allows unaligned addresses.
        let any = unsafe {
            v128_or(
                v128_or(v128_load(p.add(k)), v128_load(p.add(k + 1))),
                v128_or(v128_load(p.add(k + 2)), v128_load(p.add(k + 3))),
            )
        };
        if u8x16_bitmask(any) != 0 {
            return false;
        }
    }
    true
}

/// Widens the sixteen bytes at `b[i..]` into `dst[n..]` and says how many
/// of them, from the first, are ASCII (the caller keeps `i + 16 <= b.len()`
/// and `n + 16 <= dst.len()`, and uses only that many units).
#[inline]
pub fn widen_ascii16(b: &[u8], i: usize, dst: &mut [u16], n: usize) -> usize {
    assert!(i + 16 <= b.len() && n + 16 <= dst.len());
    // SAFETY: the assert keeps the 16 bytes read and the 32 written in
    // bounds; v128_load and v128_store allow unaligned addresses.
    unsafe {
        let v = v128_load(b.as_ptr().add(i) as *const v128);
        let out = dst.as_mut_ptr().add(n) as *mut v128;
        v128_store(out, u16x8_extend_low_u8x16(v));
        v128_store(out.add(1), u16x8_extend_high_u8x16(v));
        u8x16_bitmask(v).trailing_zeros().min(16) as usize
    }
}
