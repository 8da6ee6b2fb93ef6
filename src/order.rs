//! One stable sort for the cold paths.
//!
//! Each `sort_by_key` on a new element type instantiates the whole of std's
//! stable sort again (5 to 7 KB of wasm each). Migration, branch copies, the
//! system message's sections and diagnostics sort rarely and little, so they
//! share this one small non-generic sort of `u64` keys instead. The hot sibling sort
//! (`tree`) keeps its own.

/// `items` in ascending `key` order; equal keys keep their order (stable).
pub fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> u64) -> Vec<T> {
    let keys: Vec<u64> = items.iter().map(key).collect();
    let order = stable_order(&keys);
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// `items` in the order `cmp` gives; equal items keep their order (stable).
pub fn sorted_by<T>(items: Vec<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    let order = stable_order_by(items.len(), &|a, b| cmp(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The indices of `keys` in ascending key order, equal keys in index order.
pub fn stable_order(keys: &[u64]) -> Vec<usize> {
    stable_order_by(keys.len(), &|a, b| keys[a].cmp(&keys[b]))
}

/// The indices `0..n` in the order `cmp` (of two indices) gives, equal ones
/// in index order: a bottom-up merge sort, a few hundred bytes of wasm, one
/// copy for every caller, where each use of std's sort adds several KB.
#[inline(never)]
pub fn stable_order_by(n: usize, cmp: &dyn Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = vec![0; n];
    // ceil(log2 n) passes, each merging sorted runs of `width` into runs of
    // twice that; the last pass leaves one run.
    for pass in 0..n.next_power_of_two().trailing_zeros() {
        let width = 1 << pass;
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut a, mut b) = (start, mid);
            for slot in &mut to[start..end] {
                // Left first on ties: that keeps the sort stable.
                if b >= end || (a < mid && cmp(from[a], from[b]).is_le()) {
                    *slot = from[a];
                    a += 1;
                } else {
                    *slot = from[b];
                    b += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
    }
    from
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
        // Against std's stable sort, on lengths around the merge widths.
        let mut seed = 7u64;
        for n in 0..70 {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (seed >> 60) % 5
                })
                .collect();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&i| keys[i]);
            assert_eq!(stable_order(&keys), want, "{keys:?}");
            let strings: Vec<String> = keys.iter().map(|k| format!("k{k}")).collect();
            let sorted = sorted_by(strings.clone(), |a, b| b.cmp(a));
            let mut by_std = strings;
            by_std.sort_by(|a, b| b.cmp(a));
            assert_eq!(sorted, by_std);
        }
    }
}
