//! Tests written against mutants of `ids` that `cargo test` did not catch
//! (README, "Mutation testing"). pi names sessions with version 7 UUIDs
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
    let mut taken = HashSet::new();
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
