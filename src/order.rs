//! One stable sort for the cold paths.
//!
//! Each `sort_by_key` on a new element type instantiates the whole of std's
//! stable sort again (5 to 7 KB of wasm each). Migration, branch copies, the
//! system message's sections and diagnostics sort rarely and little, so they
//! share this one non-generic sort of `u64` keys instead. The hot sibling sort
//! (`tree`) keeps its own.

/// `items` in ascending `key` order; equal keys keep their order (stable).
pub fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> u64) -> Vec<T> {
    let keys: Vec<u64> = items.iter().map(key).collect();
    let order = stable_order(&keys);
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The indices of `keys` in ascending key order, equal keys in index order.
#[inline(never)]
pub fn stable_order(keys: &[u64]) -> Vec<usize> {
    let mut pairs: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    // (key, index) pairs are all distinct, so an unstable sort is stable here.
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably() {
        let v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        let s = sorted_by_key(v, |&(k, _)| k);
        assert_eq!(s, vec![(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
        assert!(sorted_by_key(Vec::<u8>::new(), |&x| u64::from(x)).is_empty());
    }
}
