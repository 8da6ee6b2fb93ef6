//! `getTree`: pi's tree nodes, made in JS from index arrays in one call.

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{entries_of, tree_parts};
use super::error::Api;
use super::host::{index_with_preview, open_entries, JsSort};
use super::js::{build_lazy_tree, build_source_tree, build_tree, numbers_of, parse_pieces};
use super::read::{Accept, ByteSource, Reader, Source};
use crate::entry::Entry;
use crate::json;
use crate::parse;
use crate::preview::{self, Fields, Picked};
use crate::tree::{self, Tree};

/// The session as a tree of `{ entry, children, label, labelTimestamp }` nodes,
/// as pi's `SessionManager.getTree()` gives it. From text, each node's `entry`
/// is parsed when it is first read: a tree is mostly walked for its shape, and
/// the entries a caller never reads cost little. The entries cross into JS as
/// JSON array texts of 64 KB each, or about 2 MB of UTF-16 for a large text far
/// from ASCII (see [`tree_parts`]); the first few
/// reads parse just their entry, and once they add up to a 32nd of the text,
/// a read parses the whole array its entry is in, as fast as pi's parse.
#[wasm_bindgen(js_name = getTree, skip_typescript)]
pub fn get_tree(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("getTree");
    let reader = Reader::new(api, &options)?;
    if let Some(pieces) = reader.pieces(&source)? {
        if let Some(tree) = source_tree(
            api,
            &pieces,
            reader.options.preview.as_ref(),
            reader.options.detail.as_ref(),
        )? {
            return Ok(tree);
        }
    }
    match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => {
            let doc = open_entries(api, text)?;
            let tree = tree::build(&doc.entries, &JsSort);
            let shape = TreeShape::of(&doc.entries[..], &tree);
            let (parts, at) = tree_parts(&doc.text, &doc.spans);
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

/// The previews (`options.preview`, as [`get_tree`] takes it) of the entries
/// at `ranges` of a byte source: `[offset, length]` pairs one after the other,
/// as the nodes' `range`s of a tree read with previews give them. Ranges that
/// follow each other closely are read together (a read of a file costs two
/// system calls, more than a few KB of copying); nothing of them is kept but
/// the previews: a reader that describes the nodes a batch at a time holds
/// one batch's previews. A range
/// past the source's end is a `RangeError`; bytes that are not one JSON text
/// (the source changed) an `Error` naming the source.
#[wasm_bindgen(js_name = previewEntries, skip_typescript)]
pub fn preview_entries(
    source: JsValue,
    ranges: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("previewEntries");
    let reader = Reader::new(api, &options)?;
    let Some(fields) = reader.options.preview.as_ref() else {
        return Err(api.type_error("options.preview must be an array of field paths"));
    };
    let Some(source) = reader.pieces(&source)? else {
        return Err(api.must_be("source", "a byte source", &source));
    };
    // Read into wasm by the helper, not by the glue, which would run a
    // valueOf of the caller's with the module's memory half-written.
    let ranges = numbers_of(&ranges)?
        .dyn_into::<js_sys::Float64Array>()
        .map_err(|_| {
            api.must_be(
                "ranges",
                "an array of numbers ([offset, length] pairs one after the other)",
                &ranges,
            )
        })?
        .to_vec();
    if ranges.len() % 2 != 0 {
        return Err(api.type_error(format_args!(
            "ranges must be [offset, length] pairs one after the other, got {} numbers",
            ranges.len()
        )));
    }
    const PART: usize = 64 << 20;
    // Ranges at most GAP bytes apart are read in one span of at most SPAN.
    const GAP: u64 = 64 << 10;
    const SPAN: u64 = 8 << 20;
    let whole = |n: f64| n >= 0.0 && n.fract() == 0.0;
    let mut pairs = Vec::with_capacity(ranges.len() / 2);
    for pair in ranges.chunks_exact(2) {
        let (offset, length) = (pair[0], pair[1]);
        if !whole(offset) || !whole(length) || offset + length > source.size as f64 {
            // Written as JS writes numbers: `{}` of an f64 would bring in
            // core's float formatter, 6 KB of the gzipped module.
            return Err(api.range_error(format_args!(
                "[{}, {}] is not a range of {}'s {} bytes",
                json::number_text(offset),
                json::number_text(length),
                source.name,
                source.size
            )));
        }
        pairs.push((offset as u64, (offset + length) as u64));
    }
    let parts = Array::new();
    let mut out = String::from("[");
    let mut buf = Vec::new();
    // `buf` holds bytes `span.0..span.1` of the source.
    let mut span = (0, 0);
    for (k, &(from, to)) in pairs.iter().enumerate() {
        if from < span.0 || to > span.1 {
            let mut end = to;
            for &(f, t) in &pairs[k + 1..] {
                if f < end || f - end > GAP || t - from > SPAN {
                    break;
                }
                end = t;
            }
            buf.clear();
            source.read(from, end, &mut buf)?;
            span = (from, end);
        }
        let bytes = &buf[(from - span.0) as usize..(to - span.0) as usize];
        let text = parse::decode(bytes);
        let value = json::parse(&text, json::Span::new(0, text.len())).map_err(|_| {
            source.changed(format_args!("bytes {from} to {to} are no longer one entry"))
        })?;
        if out.len() > PART {
            out.push(']');
            parts.push(&JsValue::from_str(&out));
            out = String::from("[");
        } else if out.len() > 1 {
            out.push(',');
        }
        preview::write(&text, &value, fields, &mut out);
    }
    out.push(']');
    parts.push(&JsValue::from_str(&out));
    parse_pieces(&parts).map(JsValue::from)
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
    detail: Option<&(Picked, JsValue)>,
) -> Result<Option<JsValue>, JsValue> {
    let (index, previews, details) = index_with_preview(api, source, preview, detail)?;
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
        &previews.map_or(JsValue::UNDEFINED, JsValue::from),
        &details.map_or(JsValue::UNDEFINED, JsValue::from),
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
