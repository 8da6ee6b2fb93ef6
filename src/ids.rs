//! Entry ids and session ids: hex digits, fresh random ids, version 7 UUIDs.
//!
//! New entry ids are eight lowercase hex digits from the platform's
//! cryptographic source, as pi makes them; session ids are UUIDs (version 7,
//! time-ordered). The bytes come from one pool refilled in bulk.

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

thread_local! {
    /// Bytes drawn from the cryptographic source in bulk, each used once: one
    /// call to the platform per few hundred ids instead of one per id (in wasm,
    /// each call is a trip to JS's `crypto`).
    static RANDOM: std::cell::RefCell<(Vec<u8>, usize)> = const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// A faster way to the platform's cryptographic source that the host may
/// install ([`set_random_source`]): it fills the bytes, or says it could not.
pub type RandomSource = fn(&mut [u8]) -> bool;

static RANDOM_SOURCE: std::sync::OnceLock<RandomSource> = std::sync::OnceLock::new();

/// Installs the host's random source, tried before getrandom; the first call
/// wins. (The wasm bindings fill a whole refill with one call to JS's
/// `crypto`, where getrandom makes one per 256 bytes.)
pub fn set_random_source(source: RandomSource) {
    let _ = RANDOM_SOURCE.set(source);
}

/// Fills `bytes` from the host's source, or getrandom where there is none or
/// it could not (getrandom then says why).
fn fill(bytes: &mut [u8]) -> Result<(), getrandom::Error> {
    match RANDOM_SOURCE.get() {
        Some(source) if source(bytes) => Ok(()),
        _ => getrandom::getrandom(bytes),
    }
}

/// Fills `out` from the pool, refilling it from the platform when it runs low.
/// No borrow of the pool is held while the platform fills it: the host's
/// source may be the caller's code (a JS `crypto.getRandomValues` replaced by
/// a test or a polyfill) that draws ids itself, and a second borrow would
/// panic. Such a nested draw refills a pool of its own, which the outer one
/// then replaces: no byte is given out twice.
fn random_bytes(out: &mut [u8]) -> Result<(), getrandom::Error> {
    RANDOM.with(|pool| {
        let mut bytes = {
            let mut pool = pool.borrow_mut();
            let (bytes, used) = &mut *pool;
            if let Some(have) = bytes.get(*used..*used + out.len()) {
                out.copy_from_slice(have);
                *used += out.len();
                return Ok(());
            }
            std::mem::take(bytes)
        };
        bytes.resize(4096.max(out.len()), 0);
        fill(&mut bytes)?;
        out.copy_from_slice(&bytes[..out.len()]);
        *pool.borrow_mut() = (bytes, out.len());
        Ok(())
    })
}

/// A fresh 8-hex-digit id from the platform's cryptographic source, not in `taken`.
pub fn random_id(taken: &Taken) -> Result<String, getrandom::Error> {
    random_id_where(&|id| taken.contains(id))
}

/// A fresh 8-hex-digit id for which `is_taken` says no.
pub fn random_id_where(is_taken: &dyn Fn(&str) -> bool) -> Result<String, getrandom::Error> {
    // Eight hex digits give 2^32 ids; on the rare collision draw again, and
    // grow the id only if a session somehow holds most of that space.
    let mut attempt = 0u32;
    loop {
        let mut bytes = [0u8; 8];
        let len = if attempt < 100 { 4 } else { 8 };
        random_bytes(&mut bytes[..len])?;
        let id = hex(&bytes[..len]);
        if !is_taken(&id) {
            return Ok(id);
        }
        attempt = attempt.saturating_add(1);
    }
}

/// Random words that can be drawn again: a pass that gives up half-way
/// ([`crate::migrate::migrate_in_one_pass`]) hands the words it drew to the
/// pass that takes over, so the ids a file gets depend on the words drawn,
/// not on which pass gave them (a migration read by piece, which has no such
/// first pass, gives the same ids).
#[derive(Default)]
pub struct Replay {
    drawn: Vec<[u8; 4]>,
    next: usize,
    recording: bool,
}

impl Replay {
    /// Words from the cryptographic source, each noted for [`Replay::rewind`].
    pub fn recording() -> Replay {
        Replay {
            recording: true,
            ..Replay::default()
        }
    }

    /// The next word: one drawn before the rewind, else a new one.
    pub fn word(&mut self) -> Result<[u8; 4], getrandom::Error> {
        self.word_from(&mut random_word)
    }

    /// [`Replay::word`], new words coming from `fresh`.
    pub fn word_from<E>(
        &mut self,
        fresh: &mut dyn FnMut() -> Result<[u8; 4], E>,
    ) -> Result<[u8; 4], E> {
        if let Some(&w) = self.drawn.get(self.next) {
            self.next += 1;
            return Ok(w);
        }
        let w = fresh()?;
        if self.recording {
            self.drawn.push(w);
            self.next += 1;
        }
        Ok(w)
    }

    /// The words drawn so far come again, in order; no more are noted.
    pub fn rewind(&mut self) {
        self.next = 0;
        self.recording = false;
    }

    /// [`random_id`] from these words: a word's hex digits, drawn again on a
    /// collision (and, as there, eight random bytes after a hundred).
    pub fn id(&mut self, taken: &Taken) -> Result<String, getrandom::Error> {
        match self.id_from(taken, &mut random_word)? {
            Some(id) => Ok(id),
            None => loop {
                let mut bytes = [0u8; 8];
                random_bytes(&mut bytes)?;
                let id = hex(&bytes);
                if !taken.contains(&id) {
                    return Ok(id);
                }
            },
        }
    }

    /// A word's hex digits not in `taken`, new words coming from `fresh`;
    /// `None` after a hundred collisions.
    pub fn id_from<E>(
        &mut self,
        taken: &Taken,
        fresh: &mut dyn FnMut() -> Result<[u8; 4], E>,
    ) -> Result<Option<String>, E> {
        for _ in 0..100 {
            let id = hex(&self.word_from(fresh)?);
            if !taken.contains(&id) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }
}

/// `bytes` as lowercase hex digits, two a byte, appended to `out`.
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
}

/// `bytes` as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    push_hex(&mut s, bytes);
    s
}

/// Four bytes from the cryptographic source: a new id's eight hex digits.
pub fn random_word() -> Result<[u8; 4], getrandom::Error> {
    let mut bytes = [0u8; 4];
    random_bytes(&mut bytes)?;
    Ok(bytes)
}

/// A version 7 UUID (time-ordered, as pi names sessions) for `unix_ms`.
pub fn uuid_v7(unix_ms: u64) -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    random_bytes(&mut b[6..])?;
    b[..6].copy_from_slice(&unix_ms.to_be_bytes()[2..]);
    // The version (7) and variant (binary 10) bits over the random ones:
    // added, since they share no bit (`|` and `^` would be the same).
    b[6] = 0x70 + (b[6] & 0x0f);
    b[8] = 0x80 + (b[8] & 0x3f);
    let hex = hex(&b);
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

/// Whether `id` is a session id pi accepts from a caller: ASCII letters and
/// digits, with `.`, `_` and `-` allowed inside but not first or last.
pub fn valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-');
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() && b.iter().all(inner)
        }
        _ => false,
    }
}

/// What pi throws for a session id [`valid_session_id`] refuses.
pub const INVALID_SESSION_ID: &str = "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

/// The word whose hex digits an id is, if it is eight lowercase ones.
pub fn hex_word(id: &str) -> Option<u32> {
    let digits = id.len() == 8 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    digits.then(|| u32::from_str_radix(id, 16).ok()).flatten()
}

/// A set of id words (the four bytes whose hex digits an id is).
pub type Words = HashSet<u32, BuildHasherDefault<WordHasher>>;

/// The ids a new id must not be (a file's, or a branch copy's), hashed with
/// [`IdHash`] like every other id map.
pub type Taken = HashSet<String, IdHash>;

/// A new id not in `taken` (which then holds it), or `None` if the draws keep
/// colliding: a session that full needs longer ids (the two-step migration
/// makes those).
pub fn fresh_word<E>(
    taken: &mut Words,
    draw: &mut dyn FnMut() -> Result<[u8; 4], E>,
) -> Result<Option<u32>, E> {
    for _ in 0..100 {
        let id = u32::from_be_bytes(draw()?);
        if taken.insert(id) {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Hashes the random words of new ids: they are already uniform, so one
/// multiplication spreads them over the table's buckets.
#[derive(Default)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b) ^ (self.0 as u32).rotate_left(8));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ self.0 >> 32
    }
}

/// The hash of maps keyed by entry ids, which come from files: a multiply
/// and a shift per eight bytes (several times faster than std's SipHash over
/// short ids), keyed per process from the random pool so that no file can be
/// made to collide in advance (and so to make lookups slow).
#[derive(Clone, Copy)]
pub struct IdHash {
    key: u64,
}

impl Default for IdHash {
    // One copy for the many maps made with it (each inlined copy brought
    // the thread-local key's lookup with it).
    #[inline(never)]
    fn default() -> IdHash {
        thread_local! {
            static KEY: u64 = {
                let mut bytes = [0u8; 8];
                // Without a random source, a fixed key: still a fast hash.
                match random_bytes(&mut bytes) {
                    Ok(()) => u64::from_le_bytes(bytes),
                    Err(_) => 0x2d35_8dcc_aa6c_78a5,
                }
            };
        }
        IdHash {
            key: KEY.with(|k| *k),
        }
    }
}

impl BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(self.key)
    }
}

pub struct IdHasher(u64);

impl IdHasher {
    /// The multiply carries each bit only upward: the rotation brings the
    /// well-mixed top bits down, where the next word's multiply (or the
    /// table's index) reads them. Each step is a bijection of the state.
    fn mix(&mut self, word: u64) {
        self.0 = (self.0 ^ word)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let words = bytes.chunks_exact(8);
        let rest = words.remainder();
        for w in words {
            self.mix(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        }
        // At most 7 bytes are left; the length, in the eighth, keeps "a"
        // apart from "a\0".
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        last[7] = rest.len() as u8;
        self.mix(u64::from_le_bytes(last));
    }
    // The enum tag and the end mark of a str: mixed in without a multiply of
    // their own (the next word's or `finish`'s does it).
    fn write_u8(&mut self, n: u8) {
        self.0 = self.0.rotate_left(8) ^ u64::from(n);
    }
    fn write_isize(&mut self, n: isize) {
        self.0 = self.0.rotate_left(8) ^ n as u64;
    }
    /// The table takes its index from the low bits and a tag from the top
    /// ones: the halves are swapped so that the index comes from the
    /// multiply's best-mixed bits.
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0xA076_1D64_78BD_642F).rotate_left(32)
    }
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_hashes_spread_ids_over_buckets() {
        let build = IdHash::default();
        let hash = |s: &str| build.hash_one(s);
        assert_eq!(hash("a1b2c3d4"), hash("a1b2c3d4"));
        assert_ne!(hash("a"), hash("a\0"));
        assert_ne!(hash(""), hash("\0"));
        // Sequential and random-looking ids fill a power-of-two table evenly:
        // no bucket of 1024 gets more than a few times its share.
        for make in [|i: u32| format!("{i:08x}"), |i: u32| format!("entry-{i}")] {
            let mut buckets = vec![0u32; 1024];
            for i in 0..16_384 {
                buckets[(hash(&make(i)) & 1023) as usize] += 1;
                buckets[(hash(&make(i)) >> 54) as usize] += 1;
            }
            assert!(buckets.iter().all(|&n| n < 4 * 32), "{buckets:?}");
        }
    }

    #[test]
    fn session_ids_as_pi_checks_them() {
        for ok in ["a", "9", "a.b", "a..b", "A_b-C.9", "ab"] {
            assert!(valid_session_id(ok), "{ok}");
        }
        for bad in [
            "", "-a", "a-", ".a", "a.", "_", "a b", "é", "ab\n", "a/b", "ａ",
        ] {
            assert!(!valid_session_id(bad), "{bad:?}");
        }
    }
}
