//! Tests written against mutants of `index` (docs/mutation-log.md).
//! The index must answer as the whole document does: its context at a leaf
//! is compared with [`context::plan`] over the whole file (the planner the
//! pi 1.6 fixtures check), and byte counts are the lines' own lengths.

use super::*;
use crate::time::IsoOnly;

fn read_index(b: &[u8], piece: usize) -> Index {
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    Index::read(b.len() as u64, piece, &mut read, &IsoOnly).unwrap()
}

fn msg(id: &str, parent: &str) -> String {
    format!(
        r#"{{"type":"message","id":{id},"parentId":{parent},"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"user","content":"c"}}}}"#
    )
}

/// The ids of `entries` at `at`, as JSON-ish text (for comparing two documents).
fn ids(entries: &[Entry], at: &[usize]) -> Vec<String> {
    at.iter().map(|&i| format!("{:?}", entries[i].id)).collect()
}

/// What a plan says, in terms that do not depend on entry numbers.
fn plan_facts(doc: &Document, plan: &Plan) -> (Vec<String>, Vec<String>, String, usize) {
    (
        ids(&doc.entries, &plan.path),
        ids(&doc.entries, &plan.context),
        context::render_entries(&doc.text, &doc.spans, plan),
        plan.messages.len(),
    )
}

/// A line before the header, a header, ids of pi's form and not, a
/// duplicate id (the later wins), a branch, a cycle and a second header.
fn lines() -> Vec<String> {
    vec![
        msg("\"0000000a\"", "null"),
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#.to_owned(),
        msg("\"a1b2c3d4\"", "null"),
        msg("\"b\"", "\"a1b2c3d4\""),
        msg("7", "\"b\""),
        msg("\"b\"", "\"a1b2c3d4\""),
        msg("\"d\"", "\"b\""),
        msg("\"x\"", "\"y\""),
        msg("\"y\"", "\"x\""),
        msg("\"e\"", "\"y\""),
        msg("\"f\"", "7"),
        r#"{"type":"session","version":3,"id":"s2"}"#.to_owned(),
    ]
}

#[test]
fn the_context_read_by_range_is_the_documents() {
    let lines = lines();
    let text = lines.join("\n") + "\n";
    let whole = Document::parse(&text);
    let by_id = context::index(&whole.entries);
    let idx = read_index(text.as_bytes(), 16);
    assert!(idx.is_current());
    let keys = [
        Key::from("a1b2c3d4"),
        Key::Str("b".into()),
        Key::number(7.0),
        Key::Str("d".into()),
        Key::Str("e".into()),
        Key::Str("f".into()),
        Key::from("0000000a"),
        Key::Str("nowhere".into()),
        Key::from("0000000b"),
        Key::Null,
        Key::Undefined,
    ];
    let mut leaves = vec![Leaf::None, Leaf::Last];
    leaves.extend(keys.iter().map(Leaf::Id));
    for leaf in leaves {
        let want = context::plan(&whole.entries, &|k| by_id.get(k).copied(), leaf);
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let (doc, plan) = idx.context(leaf, u64::MAX, &mut read, &IsoOnly).unwrap();
        if leaf == Leaf::None {
            assert_eq!(plan, Plan::default());
        }
        assert_eq!(
            plan_facts(&doc, &plan),
            plan_facts(&whole, &want),
            "{leaf:?}"
        );
        // Only the path and the first header were read.
        let read_ids: Vec<String> = ids(&doc.entries, &(0..doc.entries.len()).collect::<Vec<_>>());
        let mut wanted = want.path.clone();
        wanted.push(1);
        wanted.sort_unstable();
        wanted.dedup();
        assert_eq!(read_ids, ids(&whole.entries, &wanted), "{leaf:?}");
    }
    // The default leaf is the last entry that is not a header: f, whose
    // path is a1b2c3d4 → b (the later one) → 7 → f.
    let want = context::plan(&whole.entries, &|k| by_id.get(k).copied(), Leaf::Last);
    assert_eq!(
        ids(&whole.entries, &want.path),
        [
            Key::from("a1b2c3d4"),
            Key::Str("b".into()),
            Key::number(7.0),
            Key::Str("f".into())
        ]
        .map(|k| format!("{k:?}"))
    );
}

#[test]
fn a_path_over_the_limit_is_refused_with_its_size() {
    let lines = lines();
    let text = lines.join("\n") + "\n";
    let idx = read_index(text.as_bytes(), 1 << 20);
    // At e: the header, e, y and x (the walk stops where the cycle repeats),
    // each line and a newline.
    let want: u64 = [1, 7, 8, 9]
        .iter()
        .map(|&i| lines[i].len() as u64 + 1)
        .sum();
    let e = Key::Str("e".into());
    let mut reads = 0;
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        reads += 1;
        buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    assert_eq!(
        idx.context(Leaf::Id(&e), want - 1, &mut read, &IsoOnly)
            .map(|_| ()),
        Err(IndexError::PathTooLarge { bytes: want })
    );
    let (doc, _) = idx
        .context(Leaf::Id(&e), want, &mut read, &IsoOnly)
        .unwrap();
    assert_eq!(doc.entries.len(), 4);
    assert_eq!(doc.text.len() as u64, want);
    assert_eq!(reads, 4, "nothing read for the refused path");
}

#[test]
fn a_failed_read_is_the_sources_error() {
    let text = lines().join("\n");
    let idx = read_index(text.as_bytes(), 64);
    let mut read = |_: u64, _: u64, _: &mut Vec<u8>| Err::<(), &str>("gone");
    assert_eq!(
        idx.context(Leaf::Last, u64::MAX, &mut read, &IsoOnly)
            .map(|_| ()),
        Err(IndexError::Read("gone"))
    );
}

#[test]
fn lossy_lines_are_reported() {
    let good = msg("\"a\"", "null") + "\n";
    assert!(!read_index(good.as_bytes(), 8).lossy);
    // A lone 0xff byte inside a string, between two good lines: not UTF-8.
    let mut bytes = good.clone().into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"b\",\"x\":\"\xff\"}\n");
    bytes.extend_from_slice(good.as_bytes());
    let idx = read_index(&bytes, 8);
    assert!(idx.lossy);
    assert_eq!(idx.len(), 3);
    assert!(!idx.is_empty());
    assert!(read_index(b"", 8).is_empty());
}

#[test]
fn the_memory_is_its_vectors() {
    // Five entries with pi's ids and no label: five facts, nothing else.
    let five: String = (1..=5)
        .map(|n| msg(&format!("\"0000000{n}\""), "null") + "\n")
        .collect();
    let idx = read_index(five.as_bytes(), 64);
    assert_eq!(idx.len(), 5);
    assert_eq!(idx.memory(), 5 * Index::BYTES_PER_ENTRY);
    // Four labels of four interned ids: a label is its entry number, its
    // target and a flag; an interned id is a key in the list and in the
    // map, and 16 bytes of the map's own.
    let labels: String = ["p", "q", "r", "t"]
        .iter()
        .map(|id| {
            format!(
                r#"{{"type":"label","id":"{id}","parentId":null,"targetId":"00000001","label":"l"}}"#
            ) + "\n"
        })
        .collect();
    let idx = read_index((five + &labels).as_bytes(), 64);
    assert_eq!((idx.len(), idx.labels.len(), idx.others.len()), (9, 4, 4));
    assert_eq!((idx.labels.capacity(), idx.others.capacity()), (4, 4));
    let label = std::mem::size_of::<(u32, Id, bool)>();
    let id = 2 * std::mem::size_of::<Key>() + 16;
    assert_eq!(
        idx.memory(),
        9 * Index::BYTES_PER_ENTRY + 4 * label + 4 * id
    );
}

#[test]
fn packed_ids_keep_their_kind_and_number_apart() {
    let mut idx = read_index(b"", 1);
    let hex = idx.id_of(Key::from("00000001"));
    let interned = idx.id_of(Key::Str("x".into()));
    // The first interned id is number 0, pi's id 00000001 is 1: their kinds
    // keep them apart, and each is found by its key.
    assert_ne!(hex, interned);
    assert_eq!(idx.find(&Key::from("00000001")), Some(hex));
    assert_eq!(idx.find(&Key::Str("x".into())), Some(interned));
    assert_eq!(idx.find(&Key::Str("y".into())), None);
    assert_eq!(idx.find(&Key::Null), Some(idx.id_of(Key::Null)));
    assert_eq!(idx.find(&Key::Undefined), Some(idx.id_of(Key::Undefined)));
    assert_ne!(idx.id_of(Key::Null), idx.id_of(Key::Undefined));
    for (key, truthy) in [
        (Key::Undefined, false),
        (Key::Null, false),
        (Key::from("0000ffff"), true),
        (Key::Str("".into()), false),
        (Key::Str("x".into()), true),
        (Key::number(0.0), false),
        (Key::number(2.0), true),
    ] {
        let id = idx.id_of(key.clone());
        assert_eq!(idx.truthy(id), truthy, "{key:?}");
        assert_eq!(idx.truthy(id), key.truthy(), "{key:?}");
    }
}
