//! The entries as a tree, as pi's `SessionManager.getTree()` builds it.
//!
//! Every entry but headers is a node. An entry is a root when its `parentId` is
//! null, equals its own id, or names no entry; otherwise it is a child of the
//! entry with that id (the last one, if ids repeat). Children are ordered by
//! `new Date(timestamp)`, oldest first, with V8's sort. Labels come from label
//! entries in file order: the latest wins and an empty label clears.
//!
//! Two cases differ from pi, which hangs or multiplies nodes there: every entry
//! is exactly one node (pi shows the last of several entries with the same id
//! once per duplicate, and the others not at all), and a `parentId` cycle is cut
//! where a walk up from its first entry in file order meets an entry again:
//! the last entry before the repeat becomes a root, just as
//! `buildSessionContext` stops there.

use std::collections::HashMap;

use crate::ids::IdHash;

use crate::entry::{Detail, Entry, EntryType, Key};

/// Orders siblings whose times include NaN in a way this module cannot
/// reproduce alone (see [`sort_siblings`]).
pub trait SiblingSort {
    /// Sorts `items` as `Array.prototype.sort` with `(a, b) => time(a) - time(b)`.
    fn sort(&self, items: &mut [usize], times: &[f64]);
}

/// The forest: `entries` indices throughout.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Tree {
    pub roots: Vec<usize>,
    /// `children[i]`: the children of entry `i`, in order.
    pub children: Children,
    /// `label[i]`: the label entry that currently labels entry `i`.
    pub label: Vec<Option<usize>>,
    /// Entries made roots to cut a `parentId` cycle, one per cycle.
    pub cycle_cuts: Vec<usize>,
}

impl Tree {
    /// Depth-first pre-order of all nodes, without recursion.
    pub fn preorder(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.children.len());
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.children[n].iter().rev());
        }
        out
    }
}

/// What a tree is built from: entries by index, with the few facts the
/// tree reads. Parsed entries ([`Entry`]) are one kind; an index of a file
/// too big to hold (`crate::index`) another.
pub trait Nodes: Copy {
    /// An `id` or `parentId` value, equal exactly when JS's `===` says so.
    type Id: Copy + Eq + std::hash::Hash;
    fn count(self) -> usize;
    fn is_header(self, i: usize) -> bool;
    fn id(self, i: usize) -> Self::Id;
    /// The `parentId` to look up, `None` when it is null or the entry's own
    /// id (a root either way).
    fn parent_id(self, i: usize) -> Option<Self::Id>;
    /// `new Date(timestamp).getTime()`.
    fn time(self, i: usize) -> f64;
    /// For a label entry: its `targetId`, and whether its label is truthy.
    fn label(self, i: usize) -> Option<(Self::Id, bool)>;
}

impl<'a> Nodes for &'a [Entry] {
    type Id = &'a Key;
    fn count(self) -> usize {
        self.len()
    }
    fn is_header(self, i: usize) -> bool {
        self[i].is_header()
    }
    fn id(self, i: usize) -> &'a Key {
        &self[i].id
    }
    fn parent_id(self, i: usize) -> Option<&'a Key> {
        let e = &self[i];
        (e.parent_id != Key::Null && e.parent_id != e.id).then_some(&e.parent_id)
    }
    fn time(self, i: usize) -> f64 {
        self[i].time
    }
    fn label(self, i: usize) -> Option<(&'a Key, bool)> {
        match &self[i].detail {
            Detail::Label {
                target_id,
                has_label,
            } if self[i].kind == EntryType::Label => Some((target_id, *has_label)),
            _ => None,
        }
    }
}

/// The current label of each entry: `label[i]` is the label entry for entry `i`.
pub fn labels<N: Nodes>(entries: N) -> Vec<Option<usize>> {
    let by_target = label_targets(entries);
    (0..entries.count())
        .map(|i| {
            if entries.is_header(i) {
                None
            } else {
                by_target.get(&entries.id(i)).copied()
            }
        })
        .collect()
}

/// [`labels`], given the index of nodes by id and whether their ids are
/// unique: then each target is looked up once, instead of every entry's id.
fn labels_by_id<N: Nodes>(
    entries: N,
    by_id: &HashMap<N::Id, usize, IdHash>,
    unique_ids: bool,
) -> Vec<Option<usize>> {
    if !unique_ids {
        return labels(entries);
    }
    let mut label = vec![None; entries.count()];
    for (target, l) in label_targets(entries) {
        if let Some(&i) = by_id.get(&target) {
            label[i] = Some(l);
        }
    }
    label
}

/// The label entry that currently labels each target id.
fn label_targets<N: Nodes>(entries: N) -> HashMap<N::Id, usize, IdHash> {
    let mut by_target: HashMap<N::Id, usize, IdHash> = HashMap::default();
    for i in 0..entries.count() {
        if let Some((target_id, has_label)) = entries.label(i) {
            if has_label {
                by_target.insert(target_id, i);
            } else {
                by_target.remove(&target_id);
            }
        }
    }
    by_target
}

pub fn build(entries: &[Entry], fallback: &dyn SiblingSort) -> Tree {
    build_from(entries, fallback)
}

/// [`build`] from any [`Nodes`].
pub fn build_from<N: Nodes>(entries: N, fallback: &dyn SiblingSort) -> Tree {
    let n = entries.count();
    let nodes = || (0..n).filter(|&i| !entries.is_header(i));
    let mut by_id: HashMap<N::Id, usize, IdHash> =
        HashMap::with_capacity_and_hasher(n, IdHash::default());
    let mut unique_ids = true;
    for i in nodes() {
        unique_ids &= by_id.insert(entries.id(i), i).is_none();
    }
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for i in nodes() {
        if let Some(p) = entries.parent_id(i) {
            parent[i] = by_id.get(&p).copied();
        }
    }
    let is_header: Vec<bool> = (0..n).map(|i| entries.is_header(i)).collect();
    let cycle_cuts = break_cycles(&is_header, &mut parent);

    let roots = nodes().filter(|&i| parent[i].is_none()).collect();
    let mut children = Children::of(&parent);
    let times: Vec<f64> = (0..n).map(|i| entries.time(i)).collect();
    for i in 0..n {
        sort_siblings(children.of_mut(i), &times, fallback);
    }
    Tree {
        roots,
        children,
        label: labels_by_id(entries, &by_id, unique_ids),
        cycle_cuts,
    }
}

/// The children of every entry in one list, each entry's a range of it (one
/// allocation for the whole tree, not one per parent).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Children {
    /// Entry `i`'s children are `list[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    /// The children of each entry from its parent, in entry order.
    fn of(parent: &[Option<usize>]) -> Children {
        let mut start = vec![0; parent.len() + 1];
        for &p in parent.iter().flatten() {
            start[p + 1] += 1;
        }
        for i in 0..parent.len() {
            start[i + 1] += start[i];
        }
        let mut list = vec![0; start[parent.len()]];
        let mut next = start.clone();
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                list[next[p]] = i;
                next[p] += 1;
            }
        }
        Children { start, list }
    }

    /// How many entries there are (with or without children).
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn of_mut(&mut self, i: usize) -> &mut [usize] {
        &mut self.list[self.start[i]..self.start[i + 1]]
    }

    /// Each entry's children, in entry order.
    pub fn iter(&self) -> impl Iterator<Item = &[usize]> + '_ {
        (0..self.len()).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for Children {
    type Output = [usize];
    fn index(&self, i: usize) -> &[usize] {
        &self.list[self.start[i]..self.start[i + 1]]
    }
}

/// Makes every node reachable from a root by cutting each cycle once; returns
/// the entries that became roots.
fn break_cycles(is_header: &[bool], parent: &mut [Option<usize>]) -> Vec<usize> {
    let mut cuts = Vec::new();
    const UNSEEN: u8 = 0;
    const ON_WALK: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; parent.len()];
    let mut walk = Vec::new();
    for start in 0..parent.len() {
        if is_header[start] || state[start] != UNSEEN {
            continue;
        }
        // Walk up until a root, a settled node, or a node of this walk.
        let mut at = start;
        loop {
            state[at] = ON_WALK;
            walk.push(at);
            match parent[at] {
                None => break,
                Some(p) if state[p] == DONE => break,
                Some(p) if state[p] == ON_WALK => {
                    // `at` is the last entry before the repeat: it becomes a root.
                    parent[at] = None;
                    cuts.push(at);
                    break;
                }
                Some(p) => at = p,
            }
        }
        for &w in &walk {
            state[w] = DONE;
        }
        walk.clear();
    }
    cuts
}

fn compare(times: &[f64], a: usize, b: usize) -> f64 {
    // `a - b` for the comparator; a NaN result counts as 0, as the spec says.
    let d = times[a] - times[b];
    if d.is_nan() {
        0.0
    } else {
        d
    }
}

/// Sorts siblings by time exactly as V8's `Array.prototype.sort` does.
///
/// With valid times the comparison is a consistent order and any stable sort
/// agrees with V8's. With NaN among them it is not, and the result depends on
/// V8's TimSort; below 64 elements that is one run (a leading descending run is
/// reversed) extended by binary insertion, reproduced here. Longer lists with
/// NaN go to `fallback`, which the wasm build answers with JS's own sort.
pub fn sort_siblings(items: &mut [usize], times: &[f64], fallback: &dyn SiblingSort) {
    if items.len() < 2 {
        return;
    }
    if items.iter().all(|&i| !times[i].is_nan()) {
        items.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
        return;
    }
    if items.len() >= 64 {
        fallback.sort(items, times);
        return;
    }
    let run = count_and_make_run(items, times);
    binary_insertion_sort(items, run, times);
}

fn count_and_make_run(items: &mut [usize], times: &[f64]) -> usize {
    let descending = compare(times, items[1], items[0]) < 0.0;
    let mut len = 2;
    while len < items.len() {
        let order = compare(times, items[len], items[len - 1]);
        if (descending && order >= 0.0) || (!descending && order < 0.0) {
            break;
        }
        len += 1;
    }
    if descending {
        items[..len].reverse();
    }
    len
}

fn binary_insertion_sort(items: &mut [usize], sorted: usize, times: &[f64]) {
    for start in sorted..items.len() {
        let pivot = items[start];
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + ((right - left) >> 1);
            if compare(times, pivot, items[mid]) < 0.0 {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        items.copy_within(left..start, left + 1);
        items[left] = pivot;
    }
}

/// The native fallback for long sibling lists with NaN times: binary
/// insertion over the whole list (V8 merges runs instead; only the wasm
/// build, which asks JS, matches it there).
pub struct InsertionSort;

impl SiblingSort for InsertionSort {
    fn sort(&self, items: &mut [usize], times: &[f64]) {
        if items.len() >= 2 {
            let run = count_and_make_run(items, times);
            binary_insertion_sort(items, run, times);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    fn tree(text: &str) -> (Document, Tree) {
        let doc = Document::parse(text);
        let t = build(&doc.entries, &InsertionSort);
        (doc, t)
    }

    fn ids(doc: &Document, list: &[usize]) -> Vec<String> {
        list.iter()
            .map(|&i| doc.entries[i].id.as_str().unwrap_or("?").to_owned())
            .collect()
    }

    fn e(id: &str, parent: Option<&str>, secs: u32) -> String {
        let p = parent.map_or("null".into(), |p| format!("\"{p}\""));
        format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{p},\"timestamp\":\"2025-01-01T00:00:{secs:02}.000Z\"}}\n")
    }

    #[test]
    fn labels_by_id_agree_with_a_lookup_of_every_entry() {
        let label = |id: &str, target: &str, text: &str| {
            format!("{{\"type\":\"label\",\"id\":\"{id}\",\"parentId\":null,\"targetId\":\"{target}\",\"label\":\"{text}\"}}\n")
        };
        let head = "{\"type\":\"session\",\"id\":\"a\",\"version\":3}\n".to_owned();
        // Unique ids; then the same with "b" twice (both copies get its label),
        // and a header whose id is a target (headers get none).
        for dup in [false, true] {
            let mut lines = vec![head.clone(), e("a", None, 0), e("b", Some("a"), 1)];
            if dup {
                lines.push(e("b", Some("a"), 2));
            }
            lines.push(label("l1", "b", "one"));
            lines.push(label("l2", "a", "two"));
            lines.push(label("l3", "a", ""));
            lines.push(label("l4", "missing", "x"));
            let (doc, t) = tree(&lines.concat());
            assert_eq!(t.label, labels(&doc.entries[..]), "dup {dup}");
            let labelled: Vec<usize> = (0..t.label.len())
                .filter(|&i| t.label[i].is_some())
                .collect();
            assert_eq!(
                labelled,
                if dup { vec![2, 3] } else { vec![2] },
                "dup {dup}"
            );
        }
    }

    #[test]
    fn children_sorted_by_time_and_orphans_are_roots() {
        let text = [
            "{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n".to_owned(),
            e("a", None, 0),
            e("c", Some("a"), 5),
            e("b", Some("a"), 3),
            e("d", Some("a"), 3),
            e("o", Some("missing"), 1),
            e("x", Some("x"), 2),
        ]
        .concat();
        let (doc, t) = tree(&text);
        assert_eq!(ids(&doc, &t.roots), ["a", "o", "x"]);
        let a = t.roots[0];
        assert_eq!(ids(&doc, &t.children[a]), ["b", "d", "c"]);
    }

    #[test]
    fn labels_latest_wins_and_empty_clears() {
        let text = [
            e("a", None, 0),
            e("b", Some("a"), 1),
            "{\"type\":\"label\",\"id\":\"l1\",\"targetId\":\"a\",\"label\":\"one\"}\n".into(),
            "{\"type\":\"label\",\"id\":\"l2\",\"targetId\":\"a\",\"label\":\"two\"}\n".into(),
            "{\"type\":\"label\",\"id\":\"l3\",\"targetId\":\"b\",\"label\":\"x\"}\n".into(),
            "{\"type\":\"label\",\"id\":\"l4\",\"targetId\":\"b\",\"label\":\"\"}\n".into(),
        ]
        .concat();
        let (_, t) = tree(&text);
        assert_eq!(t.label[0], Some(3));
        assert_eq!(t.label[1], None);
    }

    #[test]
    fn cycles_are_cut_and_duplicates_are_separate_nodes() {
        let text = [
            e("a", Some("b"), 0),
            e("b", Some("a"), 1),
            e("c", Some("b"), 2),
            e("d", Some("d"), 3),
        ]
        .concat();
        let (doc, t) = tree(&text);
        // The walk from a meets a again after b: b becomes the root.
        assert_eq!(ids(&doc, &t.roots), ["b", "d"]);
        assert_eq!(ids(&doc, &t.preorder()), ["b", "a", "c", "d"]);

        let dup = [e("a", None, 0), e("a", None, 1), e("b", Some("a"), 2)].concat();
        let (doc, t) = tree(&dup);
        assert_eq!(t.roots, [0, 1]);
        assert_eq!(ids(&doc, &t.children[1]), ["b"]);
        assert_eq!(t.preorder().len(), 3);
    }

    #[test]
    fn falsy_lines_are_no_nodes_truthy_values_are_roots() {
        // As pi 1.6's file loader reads a file: `null`, `false`, `0` and `""`
        // lines are skipped; other values that are not objects stay, as roots.
        let text = [
            "null\n".to_owned(),
            e("a", None, 0),
            "0\nfalse\n\"\"\n-0\n".into(),
            e("b", Some("a"), 1),
            "42\n[]\n".into(),
        ]
        .concat();
        let (doc, t) = tree(&text);
        assert_eq!(doc.entries.len(), 4);
        assert_eq!(ids(&doc, &t.roots), ["a", "?", "?"]);
        assert_eq!(ids(&doc, &t.children[t.roots[0]]), ["b"]);
        assert_eq!(doc.line_numbers, [2, 7, 8, 9]);
    }

    #[test]
    fn a_million_deep_chain_needs_no_recursion() {
        let mut text = String::new();
        text.push_str(&e("0", None, 0));
        for i in 1..200_000 {
            text.push_str(&e(&i.to_string(), Some(&(i - 1).to_string()), 1));
        }
        let (_, t) = tree(&text);
        assert_eq!(t.roots, [0]);
        assert_eq!(t.preorder().len(), 200_000);
    }

    #[test]
    fn nan_times_follow_v8_sort() {
        // Reference results from Node 20: [a,b,c,d].sort((x,y)=>t[x]-t[y]).
        let nan = f64::NAN;
        let check = |times: &[f64], expected: &[usize]| {
            let mut items: Vec<usize> = (0..times.len()).collect();
            sort_siblings(&mut items, times, &InsertionSort);
            assert_eq!(items, expected, "times {times:?}");
        };
        check(&[3.0, nan, 1.0], &[0, 1, 2]);
        check(&[3.0, 2.0, nan, 1.0], &[3, 1, 0, 2]);
        check(&[nan, 2.0, 1.0], &[0, 2, 1]);
        check(&[2.0, 1.0, 0.0, nan, 5.0, -1.0], &[5, 2, 1, 0, 3, 4]);
    }
}
