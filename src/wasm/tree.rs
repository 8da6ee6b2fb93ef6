//! `getTree`: pi's tree nodes, made in JS from index arrays in one call.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::convert::{array_parts_of, entries_of};
use super::error::Api;
use super::host::{index_with_preview, open_entries, JsSort};
use super::js::{build_lazy_tree, build_source_tree, build_tree};
use super::read::{Accept, ByteSource, Reader, Source};
use crate::entry::Entry;
use crate::preview::Fields;
use crate::tree::{self, Tree};

/// The session as a tree of `{ entry, children, label, labelTimestamp }` nodes,
/// as pi's `SessionManager.getTree()` gives it. From text, each node's `entry`
/// is parsed when it is first read: a tree is mostly walked for its shape, and
/// the entries a caller never reads cost little. The entries cross into JS as
/// JSON array texts of 64 KB to about a MB each (see [`array_parts_of`]); the first few
/// reads parse just their entry, and once they add up to a 32nd of the text,
/// a read parses the whole array its entry is in, as fast as pi's parse.
#[wasm_bindgen(js_name = getTree, skip_typescript)]
pub fn get_tree(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("getTree");
    let reader = Reader::new(api, &options)?;
    if let Some(pieces) = reader.pieces(&source)? {
        if let Some(tree) = source_tree(api, &pieces, reader.options.preview.as_ref())? {
            return Ok(tree);
        }
    }
    match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => {
            let doc = open_entries(api, text)?;
            let tree = tree::build(&doc.entries, &JsSort);
            let shape = TreeShape::of(&doc.entries[..], &tree);
            let (parts, at) = array_parts_of(doc.text, &doc.spans);
            build_lazy_tree(
                &parts,
                &at,
                &shape.nodes,
                &shape.labels,
                &shape.children,
                &shape.roots,
            )
            .map(JsValue::from)
        }
        Source::Entries(array) => {
            let entries = entries_of(&array);
            let tree = tree::build(&entries, &JsSort);
            tree_nodes(&entries, &array, &tree)
        }
    }
}

/// The tree of a current session read from a byte source a piece at a
/// time: its shape from the index, each entry read by its range when its
/// node's `entry` is first read. `None` for an old session, which is read
/// whole and migrated as text is. With `preview`, each node also has its
/// entry's `preview` and `range`, from the same pass.
fn source_tree(
    api: Api,
    source: &ByteSource,
    preview: Option<&Fields>,
) -> Result<Option<JsValue>, JsValue> {
    let (index, previews) = index_with_preview(api, source, preview)?;
    if !index.is_current() {
        return Ok(None);
    }
    let tree = index.tree(&JsSort);
    let shape = TreeShape::of(&index, &tree);
    let (starts, lengths): (Vec<f64>, Vec<u32>) = (0..index.len())
        .map(|i| {
            let r = index.range(i);
            (r.start as f64, (r.end - r.start) as u32)
        })
        .unzip();
    build_source_tree(
        &source.object,
        &source.name,
        &starts,
        &lengths,
        &shape.nodes,
        &shape.labels,
        &shape.children,
        &shape.roots,
        &previews
            .into_iter()
            .map(|part| JsValue::from_str(&part))
            .collect::<Array>(),
    )
    .map(|tree| Some(tree.into()))
}

/// A tree as index arrays, for JS to make the nodes in one call (one object
/// per node, no crossing per property): `nodes` are the entries that are
/// nodes, `labels[i]` the label entry of entry `i` (or -1), `children` runs of
/// `parent, count, child...`, `roots` the roots.
pub(super) struct TreeShape {
    nodes: Vec<u32>,
    labels: Vec<i32>,
    children: Vec<u32>,
    roots: Vec<u32>,
}

impl TreeShape {
    fn of<N: tree::Nodes>(entries: N, tree: &Tree) -> TreeShape {
        let nodes = (0..entries.count())
            .filter(|&i| !entries.is_header(i))
            .map(|i| i as u32)
            .collect();
        let labels = tree
            .label
            .iter()
            .map(|l| l.map_or(-1, |l| l as i32))
            .collect();
        let mut children = Vec::with_capacity(entries.count() + 2 * tree.roots.len());
        for (i, kids) in tree.children.iter().enumerate() {
            if !kids.is_empty() {
                children.push(i as u32);
                children.push(kids.len() as u32);
                children.extend(kids.iter().map(|&k| k as u32));
            }
        }
        let roots = tree.roots.iter().map(|&r| r as u32).collect();
        TreeShape {
            nodes,
            labels,
            children,
            roots,
        }
    }
}

/// pi's nodes over `objects`, where `objects[i]` is entry `i`.
pub(super) fn tree_nodes(
    entries: &[Entry],
    objects: &Array,
    tree: &Tree,
) -> Result<JsValue, JsValue> {
    let shape = TreeShape::of(entries, tree);
    build_tree(
        objects,
        &shape.nodes,
        &shape.labels,
        &shape.children,
        &shape.roots,
    )
    .map(JsValue::from)
}
