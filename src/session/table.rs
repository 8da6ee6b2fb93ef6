//! A hash set of numbers (entry or group numbers) found by a [`Key`] that
//! each number's entry already holds: the key is read from the entry, not
//! copied into the table. A `HashMap<Key, usize>` held a copy of every id
//! (16 bytes and, for a string, an allocation) and its number in buckets of
//! 24 bytes; here a slot is the number and one byte of its hash, 5 bytes.

use std::hash::BuildHasher;

use crate::entry::Key;
use crate::ids::IdHash;

/// A table of numbers, keyed by `key_of(number)`: the caller passes the same
/// `key_of` to every call (the keys of the numbers in it never change).
pub(super) struct Table {
    /// The numbers, by slot (meaningful where `tags` is not 0).
    numbers: Vec<u32>,
    /// 0: an empty slot; else 1 + 7 bits of the hash of the slot's key, so
    /// that most slots of other keys are passed without reading their key.
    tags: Vec<u8>,
    len: usize,
    hash: IdHash,
}

impl Table {
    pub(super) fn new() -> Table {
        Table {
            numbers: Vec::new(),
            tags: Vec::new(),
            len: 0,
            hash: IdHash::default(),
        }
    }

    /// How many numbers (so distinct keys) the table holds.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The slot to start at for `hash`, and the tag of `hash`. Any number
    /// of slots: the slot is the hash scaled to it (a multiply, no mask),
    /// so a table sized for its numbers is not rounded up to a power of two
    /// (which at a million numbers nearly doubled it). [`IdHasher`]'s last
    /// rotation leaves its best-mixed bits in bits 0 to 28: those are scaled.
    ///
    /// [`IdHasher`]: crate::ids::IdHasher
    fn place(&self, hash: u64) -> (usize, u8) {
        let bits = u64::from((hash as u32) << 3);
        (
            ((bits * self.tags.len() as u64) >> 32) as usize,
            1 | (hash >> 57) as u8,
        )
    }

    /// The slot after `at`, round the end to the first.
    fn next(&self, at: usize) -> usize {
        if at + 1 == self.tags.len() {
            0
        } else {
            at + 1
        }
    }

    /// The slot holding `key`'s number, or else the empty slot where it goes.
    fn probe<'k>(&self, key: &Key, key_of: &dyn Fn(u32) -> &'k Key) -> Result<usize, usize> {
        let (mut at, tag) = self.place(self.hash.hash_one(key));
        loop {
            match self.tags[at] {
                0 => return Err(at),
                t if t == tag && key_of(self.numbers[at]) == key => return Ok(at),
                _ => at = self.next(at),
            }
        }
    }

    /// The number whose key is `key`, if any.
    pub(super) fn get<'k>(&self, key: &Key, key_of: &dyn Fn(u32) -> &'k Key) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        self.probe(key, key_of).ok().map(|at| self.numbers[at])
    }

    /// Puts `number` in, in place of the number with the same key if any.
    pub(super) fn insert<'k>(&mut self, number: u32, key_of: &dyn Fn(u32) -> &'k Key) {
        self.reserve_one(key_of);
        let key = key_of(number);
        match self.probe(key, key_of) {
            Ok(at) => self.numbers[at] = number,
            Err(at) => {
                self.tags[at] = self.place(self.hash.hash_one(key)).1;
                self.numbers[at] = number;
                self.len += 1;
            }
        }
    }

    /// Room for one more number: at most 7/8 of the slots are used (linear
    /// probing stays short, the tags passing most slots unread).
    fn reserve_one<'k>(&mut self, key_of: &dyn Fn(u32) -> &'k Key) {
        let cap = self.tags.len();
        if (self.len + 1) * 8 <= cap * 7 {
            return;
        }
        self.resize((cap * 2).max(8), key_of);
    }

    /// Room for `n` numbers in all without growing again (the caller's
    /// estimate of how many will come: growing by doubling left the table
    /// up to twice the size it needed, and the old one freed behind it).
    pub(super) fn reserve<'k>(&mut self, n: usize, key_of: &dyn Fn(u32) -> &'k Key) {
        let cap = n.max(self.len + 1).saturating_mul(8) / 7 + 1;
        if cap > self.tags.len() {
            self.resize(cap, key_of);
        }
    }

    /// Moves the numbers into a table of `cap` slots.
    fn resize<'k>(&mut self, cap: usize, key_of: &dyn Fn(u32) -> &'k Key) {
        let numbers = std::mem::replace(&mut self.numbers, vec![0; cap]);
        let tags = std::mem::replace(&mut self.tags, vec![0; cap]);
        for (n, t) in numbers.into_iter().zip(tags) {
            if t == 0 {
                continue;
            }
            let (mut at, tag) = self.place(self.hash.hash_one(key_of(n)));
            while self.tags[at] != 0 {
                at = self.next(at);
            }
            self.tags[at] = tag;
            self.numbers[at] = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_found_by_their_keys_and_replaced() {
        // Keys of every kind, hex ids among them, and repeats.
        let mut keys: Vec<Key> = (0..2000u32)
            .map(|n| match n % 5 {
                0 => Key::from(format!("{:08x}", n * 7919).as_str()),
                1 => Key::from(format!("id-{n}").as_str()),
                2 => Key::number(f64::from(n)),
                3 => Key::from(format!("{:08X}", n).as_str()),
                _ => Key::from(format!("{:08x}", n / 10).as_str()),
            })
            .collect();
        keys.push(Key::Null);
        let mut t = Table::new();
        let key_of = |n: u32| &keys[n as usize];
        for n in 0..keys.len() as u32 {
            t.insert(n, &key_of);
        }
        for (n, key) in keys.iter().enumerate() {
            // The last number with an equal key.
            let last = keys.iter().rposition(|k| k == key).unwrap() as u32;
            assert_eq!(t.get(key, &key_of), Some(last), "{key:?} ({n})");
        }
        let distinct = (0..keys.len())
            .filter(|&n| keys.iter().rposition(|k| *k == keys[n]) == Some(n))
            .count();
        assert_eq!(t.len(), distinct);
        assert_eq!(t.get(&Key::from("absent"), &key_of), None);
        assert_eq!(Table::new().get(&Key::Null, &key_of), None);
    }

    #[test]
    fn a_table_reserved_to_any_size_finds_every_number() {
        // Sizes that are no power of two, reserved before and between inserts
        // (probes then wrap round the end at odd places).
        let keys: Vec<Key> = (0..3000u32)
            .map(|n| Key::from(format!("{:08x}", n.wrapping_mul(2_654_435_761)).as_str()))
            .collect();
        let key_of = |n: u32| &keys[n as usize];
        for reserve in [1, 7, 100, 1001, 2999, 5003] {
            let mut t = Table::new();
            t.reserve(reserve, &key_of);
            for n in 0..keys.len() as u32 {
                if n == 500 {
                    t.reserve(reserve + 777, &key_of);
                }
                t.insert(n, &key_of);
            }
            assert_eq!(t.len(), keys.len());
            for (n, key) in keys.iter().enumerate() {
                assert_eq!(t.get(key, &key_of), Some(n as u32), "reserved {reserve}");
            }
            assert_eq!(t.get(&Key::from("absent"), &key_of), None);
        }
    }
}
