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

    /// The slot to start at for `hash`, and the tag of `hash`.
    fn place(&self, hash: u64) -> (usize, u8) {
        let mask = self.tags.len() - 1;
        ((hash as usize) & mask, 1 | (hash >> 57) as u8)
    }

    /// The slot holding `key`'s number, or else the empty slot where it goes.
    fn probe<'k>(&self, key: &Key, key_of: &dyn Fn(u32) -> &'k Key) -> Result<usize, usize> {
        let (mut at, tag) = self.place(self.hash.hash_one(key));
        let mask = self.tags.len() - 1;
        loop {
            match self.tags[at] {
                0 => return Err(at),
                t if t == tag && key_of(self.numbers[at]) == key => return Ok(at),
                _ => at = (at + 1) & mask,
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
        let cap = (cap * 2).max(8);
        let numbers = std::mem::replace(&mut self.numbers, vec![0; cap]);
        let tags = std::mem::replace(&mut self.tags, vec![0; cap]);
        let mask = cap - 1;
        for (n, t) in numbers.into_iter().zip(tags) {
            if t == 0 {
                continue;
            }
            let (mut at, tag) = self.place(self.hash.hash_one(key_of(n)));
            while self.tags[at] != 0 {
                at = (at + 1) & mask;
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
}
