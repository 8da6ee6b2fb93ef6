//! Tests written against mutants of `ids` that `cargo test` did not catch
//! (docs/mutation-log.md). pi names sessions with version 7 UUIDs
//! (RFC 9562) and entries with eight hex digits of crypto randomness.

use super::*;

#[test]
fn session_ids_are_version_7_uuids_of_their_time() {
    let ms = 0x0123_4567_89ab;
    let mut seen = HashSet::new();
    for _ in 0..64 {
        let id = uuid_v7(ms).unwrap();
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12],
            "{id}"
        );
        assert!(
            id.bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f' | b'-')),
            "{id}"
        );
        // unix_ts_ms (48 bits), then ver 7, then var 10xx.
        assert_eq!(&id[..13], "01234567-89ab", "{id}");
        assert_eq!(&id[14..15], "7", "{id}");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
        seen.insert(id);
    }
    // The other 74 bits are random: 64 draws do not repeat.
    assert_eq!(seen.len(), 64);
}

#[test]
fn random_words_and_ids_vary() {
    let words: HashSet<[u8; 4]> = (0..64).map(|_| random_word().unwrap()).collect();
    assert!(words.len() > 60, "{words:?}");
    let mut taken = crate::ids::Taken::default();
    for _ in 0..64 {
        let id = random_id(&taken).unwrap();
        assert_eq!(id.len(), 8);
        assert_eq!(
            hex_word(&id).map(|w| hex(&w.to_be_bytes())),
            Some(id.clone())
        );
        assert!(taken.insert(id));
    }
}

#[test]
fn the_pool_refills_as_it_runs_out() {
    // Far more than one pool's worth (4 KiB) of words, in one thread.
    let words: HashSet<[u8; 4]> = (0..3000).map(|_| random_word().unwrap()).collect();
    assert!(words.len() > 2990);
}

#[test]
fn an_id_grows_after_a_hundred_collisions() {
    // Every eight-digit id taken: draw again 100 times, then sixteen digits.
    let calls = std::cell::Cell::new(0);
    let id = random_id_where(&|id| {
        calls.set(calls.get() + 1);
        id.len() == 8
    })
    .unwrap();
    assert_eq!(id.len(), 16);
    assert_eq!(calls.get(), 101);
}

#[test]
fn word_hashes_tell_words_and_bytes_apart() {
    // A set of new-id words relies on distinct words hashing apart: 16,384
    // sequential words give 16,384 hashes, spread over a table's buckets.
    let build = BuildHasherDefault::<WordHasher>::default();
    let hashes: HashSet<u64> = (0..16_384u32).map(|w| build.hash_one(w)).collect();
    assert_eq!(hashes.len(), 16_384);
    let mut buckets = vec![0u32; 1024];
    for h in &hashes {
        buckets[(h & 1023) as usize] += 1;
    }
    assert!(buckets.iter().all(|&n| n < 4 * 16), "{buckets:?}");
    // Other keys come as bytes: different bytes, different hashes.
    let strs: HashSet<u64> = ["", "a", "b", "ab", "ba", "abc"]
        .iter()
        .map(|s| build.hash_one(s))
        .collect();
    assert_eq!(strs.len(), 6);
}

/// Every two-byte input, hashed by `hasher` alone.
fn all_two_byte_hashes<H: Hasher>(new: impl Fn() -> H) -> HashSet<u64> {
    (0..=u16::MAX)
        .map(|i| {
            let mut h = new();
            h.write(&i.to_le_bytes());
            h.finish()
        })
        .collect()
}

#[test]
fn word_hashes_are_one_to_one_and_spread_high_bits_too() {
    // Two bytes in, 64 bits out: no two of the 65,536 inputs may collide.
    assert_eq!(all_two_byte_hashes(WordHasher::default).len(), 65_536);
    // Words that differ only in their top bits still spread over a table's
    // buckets (indexed by the low bits): no bucket of 1024 gets 4 times its
    // share of 16,384.
    let build = BuildHasherDefault::<WordHasher>::default();
    let mut buckets = vec![0u32; 1024];
    for i in 0..16_384u32 {
        buckets[(build.hash_one(i << 18) & 1023) as usize] += 1;
    }
    assert!(buckets.iter().all(|&n| n < 4 * 16), "{buckets:?}");
}

/// The shape of `entry::Key`, whose maps use [`IdHash`] (`ids` is below
/// `entry` in the layers, so its tests do not import it): a derived `Hash`
/// writes the variant's tag with `write_isize`, a bool with `write_u8`, a
/// str's bytes and then an end mark with `write_u8`.
#[derive(Hash)]
enum Key {
    Undefined,
    Null,
    Bool(bool),
    Number(u64),
    Str(Box<str>),
    Unique(u32),
}

impl Key {
    fn number(n: f64) -> Key {
        Key::Number(n.to_bits())
    }
    fn from(s: &str) -> Key {
        Key::Str(s.into())
    }
}

#[test]
fn id_hashes_are_one_to_one_on_short_keys_whatever_the_key() {
    // The process key is random; these are the ones where a weak mix shows:
    // all bits clear, all set, alternating.
    let keys = [0, u64::MAX, 0x5555_5555_5555_5555, IdHash::default().key];
    for key in keys {
        let build = IdHash { key };
        // Ids of up to seven bytes (and their length) fit one word: each
        // step of the hash is a bijection, so no two may collide.
        assert_eq!(
            all_two_byte_hashes(|| build.build_hasher()).len(),
            65_536,
            "{key:x}"
        );
        let ids: HashSet<u64> = (0..16_384u32)
            .map(|i| build.hash_one(format!("{i:07x}")))
            .collect();
        assert_eq!(ids.len(), 16_384, "{key:x}");
        // Keys of every kind: the enum's tag and a bool's byte count.
        let kinds = [
            Key::Undefined,
            Key::Null,
            Key::Bool(false),
            Key::Bool(true),
            Key::number(0.0),
            Key::number(1.0),
            Key::from(""),
            Key::from("a"),
            Key::Unique(0),
            Key::Unique(1),
        ];
        let hashes: HashSet<u64> = kinds.iter().map(|k| build.hash_one(k)).collect();
        assert_eq!(hashes.len(), kinds.len(), "{key:x}");
        // Spread: low bits (the index) and top bits (the tag) of sequential
        // ids fill 1024 buckets evenly, each under 4 times its share.
        for take in [|h: u64| h & 1023, |h: u64| h >> 54] {
            let mut buckets = vec![0u32; 1024];
            for i in 0..16_384u32 {
                buckets[take(build.hash_one(format!("{i:08x}"))) as usize] += 1;
                buckets[take(build.hash_one(Key::number(f64::from(i)))) as usize] += 1;
            }
            assert!(buckets.iter().all(|&n| n < 4 * 32), "{key:x} {buckets:?}");
        }
    }
}

#[test]
fn only_eight_lowercase_hex_digits_are_a_word() {
    // pi's entry ids: eight lowercase hex digits.
    assert_eq!(hex_word("a1b2c3d4"), Some(0xa1b2_c3d4));
    assert_eq!(hex_word("00000000"), Some(0));
    for not in [
        "abc",
        "a1b2c3d",
        "a1b2c3d4e",
        "A1B2C3D4",
        "a1b2c3dg",
        "+1b2c3d4",
        "",
    ] {
        assert_eq!(hex_word(not), None, "{not:?}");
    }
}

#[test]
fn a_fresh_word_is_the_first_draw_not_taken() {
    let mut taken: Words = [1, 2].into_iter().collect();
    let mut draws = [1u32, 2, 3, 4].into_iter();
    let mut draw = || Ok::<_, ()>(draws.next().unwrap_or(9).to_be_bytes());
    assert_eq!(fresh_word(&mut taken, &mut draw), Ok(Some(3)));
    assert!(taken.contains(&3));
    // The next draw comes after the 3.
    assert_eq!(fresh_word(&mut taken, &mut draw), Ok(Some(4)));
    // A draw that always collides gives up after 100 tries.
    let calls = std::cell::Cell::new(0);
    let mut same = || {
        calls.set(calls.get() + 1);
        Ok::<_, ()>(1u32.to_be_bytes())
    };
    assert_eq!(fresh_word(&mut taken, &mut same), Ok(None));
    assert_eq!(calls.get(), 100);
    // A failing draw is the caller's error.
    assert_eq!(
        fresh_word(&mut taken, &mut || Err("no source")),
        Err("no source")
    );
}

/// Words 1, 2, 3, ... (big-endian), counting the draws in `calls`.
fn counting(calls: &std::cell::Cell<u32>) -> impl FnMut() -> Result<[u8; 4], ()> + '_ {
    move || {
        calls.set(calls.get() + 1);
        Ok(calls.get().to_be_bytes())
    }
}

#[test]
fn a_recording_replay_gives_its_words_again_after_a_rewind() {
    let calls = std::cell::Cell::new(0);
    let mut fresh = counting(&calls);
    let mut replay = Replay::recording();
    let first: Vec<[u8; 4]> = (0..3)
        .map(|_| replay.word_from(&mut fresh).unwrap())
        .collect();
    assert_eq!(first, [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 3]]);
    replay.rewind();
    // The three again, without a draw; then new words, no longer noted.
    let again: Vec<[u8; 4]> = (0..5)
        .map(|_| replay.word_from(&mut fresh).unwrap())
        .collect();
    assert_eq!(again[..3], first);
    assert_eq!(again[3..], [[0, 0, 0, 4], [0, 0, 0, 5]]);
    assert_eq!(calls.get(), 5);
    replay.rewind();
    assert_eq!(replay.word_from(&mut fresh).unwrap(), [0, 0, 0, 1]);
    // A replay that does not record gives new words after a rewind.
    let mut plain = Replay::default();
    assert_eq!(plain.word_from(&mut fresh).unwrap(), [0, 0, 0, 6]);
    plain.rewind();
    assert_eq!(plain.word_from(&mut fresh).unwrap(), [0, 0, 0, 7]);
    // A failing draw is the caller's error, and notes nothing.
    let mut failing = Replay::recording();
    assert_eq!(
        failing.word_from(&mut || Err::<[u8; 4], _>("no source")),
        Err("no source")
    );
    failing.rewind();
    assert_eq!(failing.word_from(&mut fresh).unwrap(), [0, 0, 0, 8]);
}

#[test]
fn random_words_replay_as_drawn() {
    let mut replay = Replay::recording();
    let drawn: Vec<[u8; 4]> = (0..8).map(|_| replay.word().unwrap()).collect();
    assert!(drawn.iter().collect::<HashSet<_>>().len() > 6, "{drawn:?}");
    replay.rewind();
    let again: Vec<[u8; 4]> = (0..8).map(|_| replay.word().unwrap()).collect();
    assert_eq!(again, drawn);
}

#[test]
fn replayed_ids_skip_taken_ones_and_grow_after_a_hundred() {
    let calls = std::cell::Cell::new(0);
    let mut fresh = counting(&calls);
    let taken: crate::ids::Taken = ["00000001", "00000002"]
        .map(String::from)
        .into_iter()
        .collect();
    let mut replay = Replay::recording();
    assert_eq!(
        replay.id_from(&taken, &mut fresh),
        Ok(Some("00000003".into()))
    );
    // The same draws come again after a rewind, so the same id.
    replay.rewind();
    assert_eq!(
        replay.id_from(&taken, &mut fresh),
        Ok(Some("00000003".into()))
    );
    assert_eq!(calls.get(), 3);
    // Words whose ids are all taken: 100 tries, then none.
    let same = std::cell::Cell::new(0);
    let mut replay = Replay::recording();
    let mut one = || {
        same.set(same.get() + 1);
        Ok::<_, ()>([0, 0, 0, 1])
    };
    assert_eq!(replay.id_from(&taken, &mut one), Ok(None));
    assert_eq!(same.get(), 100);
    // `id` over those 100 replayed words: sixteen random digits instead.
    replay.rewind();
    let id = replay.id(&taken).unwrap();
    assert_eq!(id.len(), 16, "{id}");
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{id}"
    );
    // With words to spare, `id` is a fresh word's eight digits.
    let id = Replay::default().id(&taken).unwrap();
    assert_eq!(hex_word(&id).map(|w| hex(&w.to_be_bytes())), Some(id));
}

thread_local! {
    /// This thread's wish from [`marking_source`]: fail, or mark the bytes.
    static SOURCE_FAILS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static SOURCE_MARKS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A host source for the test below. Installed for the whole test process
/// (the first installation wins), so on every other thread it gives real
/// random bytes, as a host's source would.
fn marking_source(bytes: &mut [u8]) -> bool {
    if SOURCE_FAILS.get() {
        return false;
    }
    if SOURCE_MARKS.get() {
        bytes.fill(0xAB);
        return true;
    }
    getrandom::getrandom(bytes).is_ok()
}

#[test]
fn an_installed_random_source_fills_and_getrandom_stands_in_when_it_cannot() {
    set_random_source(marking_source);
    let mut bytes = [0u8; 64];
    SOURCE_MARKS.set(true);
    fill(&mut bytes).unwrap();
    assert_eq!(bytes, [0xAB; 64], "the installed source's bytes");
    SOURCE_FAILS.set(true);
    fill(&mut bytes).unwrap();
    // getrandom's 64 bytes are not all the mark (a chance of 2^-512).
    assert_ne!(
        bytes, [0xAB; 64],
        "getrandom's bytes where the source failed"
    );
    SOURCE_FAILS.set(false);
    SOURCE_MARKS.set(false);
}

/// The pool hands out its bytes in order, each once: draws after a refill
/// are consecutive slices of it, so a refill serves a thousand ids (one trip
/// to the host's `crypto` in wasm), not a handful.
#[test]
fn the_pool_gives_out_its_bytes_in_order() {
    // From an empty pool: the first draw refills it (4096 bytes), the
    // draws after it read on where it stopped.
    RANDOM.with(|p| *p.borrow_mut() = (Vec::new(), 0));
    let mut first = [0u8; 8];
    random_bytes(&mut first).unwrap();
    let (pool, used) = RANDOM.with(|p| p.borrow().clone());
    let at = used - first.len();
    assert_eq!(&pool[at..used], &first);
    let mut next = [[0u8; 4]; 3];
    for out in &mut next {
        random_bytes(out).unwrap();
    }
    assert_eq!(next.concat(), &pool[used..used + 12]);
    assert_eq!(RANDOM.with(|p| p.borrow().1), used + 12);
}
