//! The JS boundary: argument checks, conversions, and nothing else.
//!
//! JSONL text goes into the core as a Rust string; what comes back is built
//! with one `JSON.parse` of text the core sliced from the input, so values are
//! exactly what `JSON.parse` makes of the same lines. Entry arrays are read
//! property by property (only the fields the core needs) and answered with the
//! caller's own objects. Every failure is a thrown JS error: nothing here
//! panics, so the module stays usable after any error.

use std::cell::RefCell;
use std::collections::HashSet;

use js_sys::{Array, Date, Function, JsString, Object, Reflect, RegExp, Uint8Array, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::ascii;
use crate::context::{self, Emit, Fixup, Leaf, ModelFrom, Plan, Slot};
use crate::diagnostics;
use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::json;
use crate::migrate::{self, Edit};
use crate::parse;
use crate::scan;
use crate::session::{self, Document};
use crate::time::DateParser;
use crate::tree::{self, SiblingSort};

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Test builds only (`--features test-trap`): traps, to test the recovery.
#[cfg(feature = "test-trap")]
#[wasm_bindgen(js_name = __forceTrap, skip_typescript)]
pub fn force_trap() {
    panic!("a trap forced by a test");
}

/// JS's own `Date`, for every timestamp form the core does not settle itself.
struct JsDates;

impl DateParser for JsDates {
    fn parse(&self, s: &str) -> f64 {
        Date::parse(s)
    }
    fn parse_json(&self, raw: &str) -> f64 {
        JSON::parse(raw).map_or(f64::NAN, |v| Date::new(&v).get_time())
    }
}

/// JS's own `Array.prototype.sort`, for sibling lists the core cannot order alone.
struct JsSort;

impl SiblingSort for JsSort {
    fn sort(&self, items: &mut [usize], times: &[f64]) {
        let array: Array = items.iter().map(|&i| JsValue::from(i as u32)).collect();
        let times = times.to_vec();
        let compare =
            Closure::<dyn Fn(JsValue, JsValue) -> f64>::new(move |a: JsValue, b: JsValue| {
                let t = |v: JsValue| {
                    v.as_f64()
                        .and_then(|i| times.get(i as usize).copied())
                        .unwrap_or(f64::NAN)
                };
                t(a) - t(b)
            });
        let sort: Option<Function> = Reflect::get(&array, &"sort".into())
            .ok()
            .and_then(|f| f.dyn_into().ok());
        if let Some(sort) = sort {
            if sort.call1(&array, compare.as_ref()).is_ok() {
                for (slot, v) in items.iter_mut().zip(array.iter()) {
                    *slot = v.as_f64().map_or(*slot, |i| i as usize);
                }
            }
        }
    }
}

/// What a `source` argument turned out to be.
enum Source {
    Text(String),
    Entries(Array),
}

fn type_error(message: String) -> JsValue {
    js_sys::TypeError::new(&message).into()
}

fn error(message: String) -> JsValue {
    js_sys::Error::new(&message).into()
}

fn describe(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if is_array(v).unwrap_or(false) {
        "an array".into()
    } else {
        v.js_typeof()
            .as_string()
            .unwrap_or_else(|| "unknown".into())
    }
}

/// [`read_source`] with a space added on either side of the text (which
/// `trim()` drops): room to turn the text itself into a JSON array.
fn read_padded(v: &JsValue, function: &str, max_bytes: f64) -> Result<Source, JsValue> {
    read_source_checked(v, function, true, max_bytes, true).map(|(s, _)| s)
}

/// Reads a `source` argument: JSONL as a string or bytes, or (if `arrays`) an
/// entry array. Text longer than `max_bytes` is refused before any work.
fn read_source(
    v: &JsValue,
    function: &str,
    arrays: bool,
    max_bytes: f64,
) -> Result<Source, JsValue> {
    read_source_checked(v, function, arrays, max_bytes, false).map(|(s, _)| s)
}

/// [`read_source`], also saying whether bytes had invalid UTF-8; `pad` adds a
/// space on either side of the text.
fn read_source_checked(
    v: &JsValue,
    function: &str,
    arrays: bool,
    max_bytes: f64,
    pad: bool,
) -> Result<(Source, bool), JsValue> {
    if let Some(s) = v.dyn_ref::<JsString>() {
        check_string_size(function, s, max_bytes)?;
        let text = string_text(s);
        return Ok((
            Source::Text(if pad {
                let mut padded = String::with_capacity(text.len() + 2 + spare(text.len()));
                padded.push(' ');
                padded.push_str(&text);
                padded.push(' ');
                padded
            } else {
                text
            }),
            false,
        ));
    }
    if is_bytes(v)? {
        let bytes: &Uint8Array = v.unchecked_ref();
        check_size(function, f64::from(bytes.length()), max_bytes)?;
        // Valid UTF-8 becomes the text in place, without a second copy.
        let bytes = bytes_of(bytes, pad);
        return Ok(if scan::is_utf8(&bytes) {
            // SAFETY: just checked to be UTF-8 (std's check, with ASCII blocks skipped).
            (
                Source::Text(unsafe { String::from_utf8_unchecked(bytes) }),
                false,
            )
        } else {
            (Source::Text(parse::decode(&bytes).into_owned()), true)
        });
    }
    if arrays && is_array(v)? {
        return Ok((Source::Entries(snapshot(v)?), false));
    }
    let expected = if arrays {
        "a JSONL string, a Uint8Array or an array of entries"
    } else {
        "a JSONL string or a Uint8Array"
    };
    Err(type_error(format!(
        "{function}: source must be {expected}, got {}",
        describe(v)
    )))
}

/// The bytes of a view, copied into wasm, with a space on either side if
/// `pad`. An empty view is not read at all: the copy of a detached one would
/// throw through wasm.
fn bytes_of(bytes: &Uint8Array, pad: bool) -> Vec<u8> {
    let n = bytes.length() as usize;
    let mut out = Vec::with_capacity(n + if pad { 2 + spare(n) } else { 0 });
    if pad {
        out.push(b' ');
    }
    append_bytes(&mut out, bytes);
    if pad {
        out.push(b' ');
    }
    out
}

/// Appends the bytes of a view to `buf`, copying into uninitialized capacity.
fn append_bytes(buf: &mut Vec<u8>, bytes: &Uint8Array) {
    let n = bytes.length() as usize;
    if n == 0 {
        return;
    }
    buf.reserve(n);
    let len = buf.len();
    bytes.copy_to_uninit(&mut buf.spare_capacity_mut()[..n]);
    // SAFETY: the n bytes after `len` were just written by the copy.
    unsafe { buf.set_len(len + n) };
}

/// Room left after a padded text: it becomes JSON for JS, and escaping its
/// few non-ASCII characters then grows it in place instead of copying it.
fn spare(n: usize) -> usize {
    n / 64 + 64
}

/// The default input limit. Working on a text takes about four times its size
/// in wasm's 4 GiB address space; bigger inputs fail up front, not with a trap.
const DEFAULT_MAX_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// [`check_size`] for a string, in UTF-8 bytes: at least one per UTF-16 unit
/// and at most three, so only a string near the limit is measured exactly.
fn check_string_size(function: &str, s: &JsString, max_bytes: f64) -> Result<(), JsValue> {
    let units = f64::from(s.length());
    check_size(function, units, max_bytes)?;
    if units * 3.0 > max_bytes {
        check_size(function, utf8_length(s), max_bytes)?;
    }
    Ok(())
}

fn check_size(function: &str, bytes: f64, max_bytes: f64) -> Result<(), JsValue> {
    if bytes <= max_bytes {
        return Ok(());
    }
    let limit = if max_bytes == DEFAULT_MAX_BYTES {
        "the 1 GiB that fits in WebAssembly's 4 GiB memory (options.maxBytes can lower it)"
            .to_owned()
    } else {
        format!("options.maxBytes ({max_bytes} bytes)")
    };
    Err(js_sys::RangeError::new(&format!(
        "{function}: the input is {bytes} bytes, more than {limit}; nothing was read"
    ))
    .into())
}

/// The options every function takes; unknown keys are ignored.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Options {
    #[serde(default)]
    strict: Option<bool>,
    #[serde(default)]
    max_bytes: Option<f64>,
}

impl Options {
    fn max_bytes(&self) -> f64 {
        self.max_bytes
            .unwrap_or(DEFAULT_MAX_BYTES)
            .min(DEFAULT_MAX_BYTES)
    }
}

fn read_options(options: &JsValue, function: &str) -> Result<Options, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options::default());
    }
    if !options.is_object() {
        return Err(type_error(format!(
            "{function}: options must be an object, got {}",
            describe(options)
        )));
    }
    let parsed: Options = serde_wasm_bindgen::from_value(options.clone()).map_err(|_| {
        let strict = get(options, "strict");
        if !strict.is_undefined() && strict.as_bool().is_none() {
            type_error(format!(
                "{function}: options.strict must be a boolean, got {}",
                describe(&strict)
            ))
        } else {
            type_error(format!(
                "{function}: options.maxBytes must be a number, got {}",
                describe(&get(options, "maxBytes"))
            ))
        }
    })?;
    if parsed.max_bytes.is_some_and(|m| m.is_nan() || m < 0.0) {
        return Err(js_sys::RangeError::new(&format!(
            "{function}: options.maxBytes must be a number of bytes, at least 0"
        ))
        .into());
    }
    Ok(parsed)
}

/// The text of a JS string. A lone surrogate cannot cross into UTF-8; written as
/// a `\uXXXX` escape it means the same inside a JSON string, where `JSON.parse`
/// keeps it, and a line with one elsewhere is malformed either way.
fn string_text(s: &JsString) -> String {
    if s.is_valid_utf16() {
        return String::from(s);
    }
    let escape = Closure::<dyn Fn(JsString) -> JsString>::new(|m: JsString| {
        JsString::from(format!("\\u{:04x}", m.char_code_at(0) as u32))
    });
    let surrogate = RegExp::new("\\p{Cs}", "gu");
    let fixed = s.replace_by_pattern_with_function(&surrogate, escape.as_ref().unchecked_ref());
    String::from(fixed)
}

fn get(target: &JsValue, key: &str) -> JsValue {
    if !target.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &JsValue::from_str(key), value).map(drop)
}

/// A field value as a core [`Key`] (equal keys are SameValueZero-equal in JS).
fn key_of(v: &JsValue, unique: &mut u32) -> Key {
    if v.is_undefined() {
        Key::Undefined
    } else if v.is_null() {
        Key::Null
    } else if let Some(b) = v.as_bool() {
        Key::Bool(b)
    } else if let Some(n) = v.as_f64() {
        Key::number(n)
    } else if let Some(s) = v.dyn_ref::<JsString>() {
        if s.is_valid_utf16() {
            Key::Str(String::from(s).into())
        } else {
            Key::Utf16(s.iter().collect::<Vec<u16>>().into())
        }
    } else {
        *unique += 1;
        Key::Unique(*unique)
    }
}

/// `header.version ?? 1` as a number, the way JS's `>=` and `<` read it.
fn version_of(v: &JsValue) -> Option<f64> {
    if v.is_null() || v.is_undefined() {
        None
    } else if let Some(n) = v.as_f64() {
        Some(n)
    } else if v.is_symbol() || v.is_bigint() {
        Some(f64::NAN)
    } else {
        Some(to_number(v).unwrap_or(f64::NAN))
    }
}

/// The facts the core needs from one entry object.
fn entry_of(v: &JsValue, unique: &mut u32) -> Entry {
    if !v.is_object() || is_array(v).unwrap_or(true) {
        return Entry::blank();
    }
    let kind = get(v, "type")
        .as_string()
        .map_or(EntryType::Other, |t| EntryType::from_name(&t));
    let detail = match kind {
        EntryType::Session => Detail::Header {
            version: version_of(&get(v, "version")),
        },
        EntryType::Message => {
            let message = get(v, "message");
            let role = if message.is_object() {
                match get(&message, "role").as_string().as_deref() {
                    Some("assistant") => Role::Assistant,
                    Some("hookMessage") => Role::HookMessage,
                    _ => Role::Other,
                }
            } else {
                Role::NoMessage
            };
            Detail::Message { role }
        }
        EntryType::Compaction => Detail::Compaction {
            first_kept_entry_id: key_of(&get(v, "firstKeptEntryId"), unique),
            first_kept_entry_index: get(v, "firstKeptEntryIndex").as_f64(),
        },
        EntryType::BranchSummary => Detail::BranchSummary {
            has_summary: get(v, "summary").is_truthy(),
            from_id: key_of(&get(v, "fromId"), unique),
        },
        EntryType::Label => Detail::Label {
            target_id: key_of(&get(v, "targetId"), unique),
            has_label: get(v, "label").is_truthy(),
        },
        _ => Detail::None,
    };
    Entry {
        is_object: true,
        kind,
        id: key_of(&get(v, "id"), unique),
        parent_id: key_of(&get(v, "parentId"), unique),
        time: time_of(&get(v, "timestamp")).unwrap_or(f64::NAN),
        detail,
    }
}

fn entries_of(array: &Array) -> Vec<Entry> {
    let mut unique = 0;
    array.iter().map(|v| entry_of(&v, &mut unique)).collect()
}

/// An id source for migration that remembers the first failure of the crypto source.
fn id_source(
    failure: &RefCell<Option<getrandom::Error>>,
) -> impl FnMut(&HashSet<String>) -> String + '_ {
    move |taken| match session::random_id(taken) {
        Ok(id) => id,
        Err(e) => {
            failure.borrow_mut().get_or_insert(e);
            String::new()
        }
    }
}

fn check_ids(function: &str, failure: RefCell<Option<getrandom::Error>>) -> Result<(), JsValue> {
    match failure.into_inner() {
        Some(e) => Err(error(format!(
            "{function}: no cryptographic random source for new ids ({e})"
        ))),
        None => Ok(()),
    }
}

/// A JSONL text parsed and migrated in memory, as pi does when opening a file.
fn open_text(text: String, function: &str) -> Result<Document, JsValue> {
    let failure = RefCell::new(None);
    let doc = Document::parse_with(text, &JsDates).migrated(&JsDates, &mut id_source(&failure));
    check_ids(function, failure)?;
    Ok(doc)
}

/// `JSON.parse` of a JSON text built here, its non-ASCII characters escaped
/// first: the text then crosses into JS as ASCII, the fastest decode there is.
fn parse_json(mut json: String) -> Result<JsValue, JsValue> {
    ascii::escape_non_ascii(&mut json);
    JSON::parse(&json)
}

/// `JSON.parse` of a JSON array text built from lines the core validated; if it
/// ever disagrees with that validation, each element is parsed on its own.
fn parse_array(mut json: String) -> Array {
    ascii::escape_non_ascii(&mut json);
    if let Ok(v) = JSON::parse(&json) {
        if let Ok(a) = v.dyn_into::<Array>() {
            return a;
        }
    }
    json::elements(&json, json::Span::new(0, json.len()))
        .iter()
        .filter_map(|e| JSON::parse(e.value.of(&json)).ok())
        .collect()
}

/// Parses JSONL as pi's `parseSessionEntries` does: blank and malformed lines
/// are skipped, or with `{ strict: true }` the first malformed line throws.
#[wasm_bindgen(js_name = parseSession, skip_typescript)]
pub fn parse_session(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let options = read_options(&options, "parseSession")?;
    let strict = options.strict.unwrap_or(false);
    // A space on either side (which `trim()` drops) leaves room to turn the
    // text itself into one JSON array for `JSON.parse`, without a copy.
    let text = match read_padded(&source, "parseSession", options.max_bytes())? {
        Source::Text(text) => text,
        Source::Entries(array) => return Ok(array.slice(0, array.length()).into()),
    };
    let (spans, first_error) = parse::value_spans(&text);
    if let Some(e) = first_error.filter(|_| strict) {
        let err = js_sys::SyntaxError::new(&format!("parseSession: {e}"));
        set(&err, "line", &JsValue::from(e.line as u32))?;
        set(&err, "column", &JsValue::from(e.column as u32))?;
        return Err(err.into());
    }
    Ok(values_array(text, &spans).into())
}

/// The values at `spans` of `text` as one JS array, from one `JSON.parse`: of
/// the text itself turned into an array in place when it allows that, else of
/// a copy holding just the values.
fn values_array(text: String, spans: &[json::Span]) -> Array {
    let json = parse::into_json_array(text, spans).unwrap_or_else(|text| {
        let mut json = String::with_capacity(text.len() + 2);
        json.push('[');
        for span in spans {
            if json.len() > 1 {
                json.push(',');
            }
            json.push_str(span.of(&text));
        }
        json.push(']');
        json
    });
    parse_array(json)
}

/// Migrates to v3. An entry array is changed in place (returns whether anything
/// was migrated); JSONL comes back migrated in the form it came in: a string as
/// a string, bytes as bytes (which a host stores without a decode and an
/// encode). A current file comes back unchanged.
#[wasm_bindgen(js_name = migrate, skip_typescript)]
pub fn migrate(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let max_bytes = read_options(&options, "migrate")?.max_bytes();
    if let Some(current) = current_text(&source, max_bytes)? {
        return Ok(current);
    }
    let failure = RefCell::new(None);
    match read_source(&source, "migrate", true, max_bytes)? {
        Source::Text(text) => {
            // The same form as the source: a string, or UTF-8 bytes.
            let same_form = |out: String| -> JsValue {
                match source.is_string() {
                    true => out.into(),
                    false => Uint8Array::from(out.as_bytes()).into(),
                }
            };
            let mut draw = || {
                session::random_word().unwrap_or_else(|e| {
                    failure.borrow_mut().get_or_insert(e);
                    [0; 4]
                })
            };
            if let Some(out) = migrate::migrate_in_one_pass(&text, &mut draw) {
                check_ids("migrate", failure)?;
                return Ok(same_form(out));
            }
            let doc = Document::parse_with(text, &JsDates);
            let edits = doc.migration(&mut id_source(&failure));
            check_ids("migrate", failure)?;
            Ok(match edits {
                Some(edits) => same_form(migrate::apply_to_text(&doc.text, &doc.lines, &edits)),
                // A string comes back as the very same string; bytes as a copy
                // of themselves, even bytes that are not UTF-8.
                None if source.is_string() => source,
                None => copy_bytes(&source)?.into(),
            })
        }
        Source::Entries(array) => {
            let entries = entries_of(&array);
            let edits = migrate::plan(&entries, &mut id_source(&failure));
            check_ids("migrate", failure)?;
            let Some(edits) = edits else {
                return Ok(false.into());
            };
            for edit in &edits {
                let target = array.get(edit.entry() as u32);
                match edit {
                    Edit::SetVersion { .. } => set(&target, "version", &3.into())?,
                    Edit::SetId { id, .. } => set(&target, "id", &id.into())?,
                    Edit::SetParentId { parent, .. } => set(
                        &target,
                        "parentId",
                        &parent.as_deref().map_or(JsValue::NULL, JsValue::from_str),
                    )?,
                    Edit::SetFirstKeptEntryId { id, .. } => set(
                        &target,
                        "firstKeptEntryId",
                        &id.as_deref().map_or(JsValue::UNDEFINED, JsValue::from_str),
                    )?,
                    Edit::DeleteFirstKeptEntryIndex { .. } => {
                        Reflect::delete_property(
                            target.unchecked_ref::<Object>(),
                            &"firstKeptEntryIndex".into(),
                        )?;
                    }
                    Edit::RenameHookMessage { .. } => {
                        set(&get(&target, "message"), "role", &"custom".into())?
                    }
                }
            }
            Ok(true.into())
        }
    }
}

/// A current (v3) session as it is, when its first line says so: the common
/// case of `migrate` needs no parsing and, for bytes, no copy into wasm.
fn current_text(source: &JsValue, max_bytes: f64) -> Result<Option<JsValue>, JsValue> {
    // The first line, read from at most this much of the start.
    const HEAD: u32 = 1 << 16;
    let first_line = if let Some(s) = source.dyn_ref::<JsString>() {
        check_string_size("migrate", s, max_bytes)?;
        let end = s.index_of("\n", 0);
        if end < 0 {
            return Ok(None);
        }
        String::from(s.slice(0, end as u32))
    } else if is_bytes(source)? {
        let bytes: &Uint8Array = source.unchecked_ref();
        check_size("migrate", f64::from(bytes.length()), max_bytes)?;
        let head = bytes_of(&bytes.subarray(0, bytes.length().min(HEAD)), false);
        match head.iter().position(|&b| b == b'\n') {
            Some(end) => parse::decode(&head[..end]).into_owned(),
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    if !migrate::first_line_is_current_header(&first_line) {
        return Ok(None);
    }
    // The string itself, or a copy of the bytes as they are (even bytes that
    // are not UTF-8 come back untouched: a current file is not rewritten).
    Ok(Some(match source.is_string() {
        true => source.clone(),
        false => copy_bytes(source)?.into(),
    }))
}

/// The session as a tree of `{ entry, children, label, labelTimestamp }` nodes,
/// as pi's `SessionManager.getTree()` gives it. From text, each node's `entry`
/// is decoded and parsed when it is first read: a tree is mostly walked for
/// its shape, and the entries a caller never reads cost nothing.
#[wasm_bindgen(js_name = getTree, skip_typescript)]
pub fn get_tree(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let max_bytes = read_options(&options, "getTree")?.max_bytes();
    match read_padded(&source, "getTree", max_bytes)? {
        Source::Text(text) => {
            let doc = open_text(text, "getTree")?;
            let tree = tree::build(&doc.entries, &JsSort);
            let offsets: Vec<u32> = doc
                .spans
                .iter()
                .flat_map(|s| [s.start as u32, s.end as u32])
                .collect();
            let shape = TreeShape::of(&doc.entries, &tree);
            build_lazy_tree(
                doc.text.as_bytes(),
                &offsets,
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

/// A tree as index arrays, for JS to make the nodes in one call (one object
/// per node, no crossing per property): `nodes` are the entries that are
/// nodes, `labels[i]` the label entry of entry `i` (or -1), `children` runs of
/// `parent, count, child...`, `roots` the roots.
struct TreeShape {
    nodes: Vec<u32>,
    labels: Vec<i32>,
    children: Vec<u32>,
    roots: Vec<u32>,
}

impl TreeShape {
    fn of(entries: &[Entry], tree: &tree::Tree) -> TreeShape {
        let nodes = (0..entries.len())
            .filter(|&i| !entries[i].is_header())
            .map(|i| i as u32)
            .collect();
        let labels = tree
            .label
            .iter()
            .map(|l| l.map_or(-1, |l| l as i32))
            .collect();
        let mut children = Vec::with_capacity(entries.len() + 2 * tree.roots.len());
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
fn tree_nodes(entries: &[Entry], objects: &Array, tree: &tree::Tree) -> Result<JsValue, JsValue> {
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

/// What the model sees at `leafId`, as pi's `buildSessionContext` computes it.
#[wasm_bindgen(js_name = buildSessionContext, skip_typescript)]
pub fn build_session_context(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let max_bytes = read_options(&options, "buildSessionContext")?.max_bytes();
    let leaf_key = if leaf_id.is_undefined() || leaf_id.is_null() {
        None
    } else if leaf_id.is_string() {
        Some(key_of(&leaf_id, &mut 0)).filter(Key::truthy)
    } else {
        return Err(type_error(format!(
            "buildSessionContext: leafId must be a string, null or undefined, got {}",
            describe(&leaf_id)
        )));
    };
    let leaf = match &leaf_key {
        _ if leaf_id.is_null() => Leaf::None,
        Some(k) => Leaf::Id(k),
        None => Leaf::Last,
    };
    match read_source(&source, "buildSessionContext", true, max_bytes)? {
        Source::Text(text) => {
            let doc = open_text(text, "buildSessionContext")?;
            let by_id = context::index(&doc.entries);
            let plan = context::plan(&doc.entries, &|k| by_id.get(k).copied(), leaf);
            context_value(context::render(
                &doc.text,
                &|i| doc.members(i),
                &doc.entries,
                &plan,
            ))
        }
        Source::Entries(array) => {
            let entries = entries_of(&array);
            let by_id = context::index(&entries);
            let plan = context::plan(&entries, &|k| by_id.get(k).copied(), leaf);
            let messages = pick(&array, &message_indices(&plan), "message".into())?;
            context_from_objects(&|i| array.get(i as u32), messages, &entries, &plan)
        }
    }
}

/// The rendered context as JS values: one `JSON.parse`, then the few values JSON cannot hold.
fn context_value(rendered: context::Rendered) -> Result<JsValue, JsValue> {
    let context::Rendered { json, fixups } = rendered;
    let result = parse_json(json).map_err(|_| {
        error("buildSessionContext: the context could not be read back as JSON".into())
    })?;
    apply_fixups(&result, &fixups)?;
    Ok(result)
}

fn apply_fixups(result: &JsValue, fixups: &[Fixup]) -> Result<(), JsValue> {
    let messages = get(result, "messages");
    for fixup in fixups {
        let (slot, value) = match fixup {
            Fixup::Undefined(slot) => (slot, JsValue::UNDEFINED),
            Fixup::NaN(slot) => (slot, JsValue::from(f64::NAN)),
        };
        match slot {
            Slot::Message(n) => Reflect::set_u32(&messages, *n as u32, &value).map(drop)?,
            Slot::MessageField(n, field) => {
                set(&Reflect::get_u32(&messages, *n as u32)?, field, &value)?
            }
            Slot::ThinkingLevel => set(result, "thinkingLevel", &value)?,
            Slot::ModelField(field) => set(&get(result, "model"), field, &value)?,
        }
    }
    Ok(())
}

/// Builds the context from the caller's own objects: `message` entries give
/// their very `message` object; summaries and custom messages are new objects
/// with pi's keys in pi's order.
// JS that the bindings call. Whatever touches a caller's values goes through
// here with `catch`: a throwing getter or a revoked Proxy then comes back as an
// error value instead of unwinding through wasm (which would leave its stack
// and borrow flags behind). `pick` gathers a whole list of messages in one
// boundary crossing instead of one per message.
#[wasm_bindgen(inline_js = "
export function pick(source, indices, key) {
  const out = [];
  for (const i of indices) {
    if (i === 0xffffffff) out.push(undefined);
    else if (key === undefined) out.push(source[i]);
    else out.push(source[i] == null ? undefined : source[i][key]);
  }
  return out;
}
export function buildTree(objects, nodes, labels, children, roots) {
  const made = new Array(objects.length);
  for (const i of nodes) {
    const l = labels[i];
    const from = l < 0 ? undefined : objects[l];
    made[i] = { entry: objects[i], children: [], label: from?.label, labelTimestamp: from?.timestamp };
  }
  return link(made, children, roots);
}
// Fills in the children (runs of `parent, count, child...`) and gives the roots.
function link(made, children, roots) {
  for (let k = 0; k < children.length; ) {
    const list = made[children[k++]].children;
    for (let n = children[k++]; n > 0; n--) list.push(made[children[k++]]);
  }
  return Array.from(roots, (r) => made[r]);
}
export function buildLazyTree(text, offsets, nodes, labels, children, roots) {
  const entryAt = entryReader(text, offsets);
  const made = new Array(offsets.length >> 1);
  const labelEntries = new Map();
  for (const i of nodes) {
    const l = labels[i];
    let from;
    if (l >= 0) {
      from = labelEntries.get(l);
      if (from === undefined) labelEntries.set(l, (from = entryAt(l)));
    }
    made[i] = lazyNode(entryAt, i, from?.label, from?.timestamp);
  }
  return link(made, children, roots);
}
const utf8 = new TextDecoder();
// Entry `i`, decoded and parsed. Its own scope holds only copies of the bytes
// and offsets (the views given point into wasm memory, which the next call
// reuses): an engine that keeps a getter alive, say in a cache, keeps these
// and not the whole tree with every entry parsed so far.
function entryReader(text, offsets) {
  const bytes = text.slice();
  const at = offsets.slice();
  return (i) => JSON.parse(utf8.decode(bytes.subarray(at[2 * i], at[2 * i + 1])));
}
// `entry` is an own, enumerable accessor until first read (or written), then a
// plain data property: JSON.stringify, structuredClone and deep equality see
// the parsed entry.
function lazyNode(entryAt, i, label, labelTimestamp) {
  return {
    get entry() { return settle(this, entryAt(i)); },
    set entry(value) { settle(this, value); },
    children: [], label, labelTimestamp,
  };
}
function settle(node, value) {
  Object.defineProperty(node, 'entry', { value, writable: true, enumerable: true, configurable: true });
  return value;
}
export function isArray(value) { return Array.isArray(value); }
export function isBytes(value) { return value instanceof Uint8Array && Object.prototype.toString.call(value) === '[object Uint8Array]'; }
export function snapshot(array) { return Array.from(array); }
export function copyBytes(view) { return new Uint8Array(view); }
export function timeOf(value) { return new Date(value).getTime(); }
export function toNumber(value) { return +value; }
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else if ((c & 0xf800) === 0xd800) n += 6;
    else n += 3;
  }
  return n;
}
")]
extern "C" {
    /// `indices.map(i => key === undefined ? source[i] : source[i][key])`, with `u32::MAX` as a gap.
    #[wasm_bindgen(catch)]
    fn pick(source: &JsValue, indices: &[u32], key: JsValue) -> Result<Array, JsValue>;
    /// pi's tree nodes from index arrays (see [`tree_nodes`]).
    #[wasm_bindgen(catch, js_name = buildTree)]
    fn build_tree(
        objects: &Array,
        nodes: &[u32],
        labels: &[i32],
        children: &[u32],
        roots: &[u32],
    ) -> Result<Array, JsValue>;
    /// pi's tree nodes whose entries are parsed from (a copy of) the UTF-8
    /// `text` when first read: entry `i` is `text[offsets[2i]..offsets[2i + 1]]`.
    #[wasm_bindgen(catch, js_name = buildLazyTree)]
    fn build_lazy_tree(
        text: &[u8],
        offsets: &[u32],
        nodes: &[u32],
        labels: &[i32],
        children: &[u32],
        roots: &[u32],
    ) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = isBytes)]
    fn is_bytes(value: &JsValue) -> Result<bool, JsValue>;
    /// A plain copy of an array (or a Proxy of one): indexing it can no longer throw.
    #[wasm_bindgen(catch)]
    fn snapshot(array: &JsValue) -> Result<Array, JsValue>;
    /// A plain `Uint8Array` copy of a view (a `Buffer`'s `slice` would share memory).
    #[wasm_bindgen(catch, js_name = copyBytes)]
    fn copy_bytes(view: &JsValue) -> Result<Uint8Array, JsValue>;
    /// `new Date(value).getTime()`.
    #[wasm_bindgen(catch, js_name = timeOf)]
    fn time_of(value: &JsValue) -> Result<f64, JsValue>;
    /// `+value`, as JS's `>=` reads a header version.
    #[wasm_bindgen(catch, js_name = toNumber)]
    fn to_number(value: &JsValue) -> Result<f64, JsValue>;
    /// The length of a string as this module's text (lone surrogates as `\uXXXX`).
    #[wasm_bindgen(js_name = utf8Length)]
    fn utf8_length(s: &JsString) -> f64;
}

/// The messages of `plan`, as `pick` finds them: `message` entries' messages
/// come from `source` in one batch; the gaps are filled by the caller.
fn message_indices(plan: &Plan) -> Vec<u32> {
    plan.messages
        .iter()
        .map(|e| {
            if let Emit::Message(i) = e {
                *i as u32
            } else {
                u32::MAX
            }
        })
        .collect()
}

fn context_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    messages: Array,
    entries: &[Entry],
    plan: &Plan,
) -> Result<JsValue, JsValue> {
    let made = |pairs: &[(&str, JsValue)]| -> Result<JsValue, JsValue> {
        let o = Object::new();
        for (k, v) in pairs {
            set(&o, k, v)?;
        }
        Ok(o.into())
    };
    for (k, emit) in plan.messages.iter().enumerate() {
        let Some((role, names)) = emit.synthesized() else {
            continue;
        };
        let i = emit.entry();
        let e = object(i);
        let m = Object::new();
        set(&m, "role", &role.into())?;
        for &name in names {
            set(&m, name, &get(&e, name))?;
        }
        set(&m, "timestamp", &entries[i].time.into())?;
        messages.set(k as u32, m.into());
    }
    let thinking_level = plan
        .thinking_level
        .map_or_else(|| "off".into(), |i| get(&object(i), "thinkingLevel"));
    let model = match plan.model {
        None => JsValue::NULL,
        Some(ModelFrom::ModelChange(i)) => {
            let e = object(i);
            made(&[
                ("provider", get(&e, "provider")),
                ("modelId", get(&e, "modelId")),
            ])?
        }
        Some(ModelFrom::Assistant(i)) => {
            let m = get(&object(i), "message");
            made(&[
                ("provider", get(&m, "provider")),
                ("modelId", get(&m, "model")),
            ])?
        }
    };
    made(&[
        ("messages", messages.into()),
        ("thinkingLevel", thinking_level),
        ("model", model),
    ])
}

/// How many lines of the text `JSON.parse` accepts (`parseSession(source).length`),
/// without building any of them.
#[wasm_bindgen(js_name = countEntries, skip_typescript)]
pub fn count_entries(source: JsValue, options: JsValue) -> Result<u32, JsValue> {
    let max_bytes = read_options(&options, "countEntries")?.max_bytes();
    Ok(if is_bytes(&source)? {
        // Bytes are counted as they come: no decoding pass, no text.
        let bytes: &Uint8Array = source.unchecked_ref();
        check_size("countEntries", f64::from(bytes.length()), max_bytes)?;
        // In pieces that stay in cache from their copy to their scan.
        let mut read = |from: usize, to: usize, buf: &mut Vec<u8>| {
            append_bytes(buf, &bytes.subarray(from as u32, to as u32))
        };
        parse::count_values_in_pieces(bytes.length() as usize, 1 << 20, &mut read) as u32
    } else {
        match read_source(&source, "countEntries", true, max_bytes)? {
            Source::Text(text) => parse::count_values(&text) as u32,
            Source::Entries(array) => array.length(),
        }
    })
}

/// Everything wrong with a session: `{ kind, line?, entryId?, message }` per problem.
#[wasm_bindgen(js_name = inspectSession, skip_typescript)]
pub fn inspect_session(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let max_bytes = read_options(&options, "inspectSession")?.max_bytes();
    let found = match read_source_checked(&source, "inspectSession", true, max_bytes, false)? {
        (Source::Text(text), lossy) => {
            diagnostics::inspect(&Document::parse_with(text, &JsDates), lossy)
        }
        (Source::Entries(array), _) => diagnostics::inspect_entries(&entries_of(&array), |_| None),
    };
    let out = Array::new();
    for d in found {
        let o = Object::new();
        set(&o, "kind", &d.problem.as_str().into())?;
        if let Some(line) = d.line {
            set(&o, "line", &JsValue::from(line as u32))?;
        }
        if let Some(id) = &d.entry_id {
            set(&o, "entryId", &id.into())?;
        }
        set(&o, "message", &d.message.into())?;
        out.push(&o);
    }
    Ok(out.into())
}

/// The size of the module's linear memory in bytes, for benchmarks and
/// memory checks (not part of the documented API).
#[wasm_bindgen(js_name = wasmMemoryBytes, skip_typescript)]
pub fn wasm_memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64
}

// --- Session ------------------------------------------------------------------

/// `JSON.stringify(value)`: `None` where JSON has no text for it (`undefined`).
fn stringify(value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    Ok(JsValue::from(JSON::stringify(value)?).as_string())
}

fn now_iso() -> String {
    String::from(Date::new_0().to_iso_string())
}

/// An id argument as a [`Key`] (a string with a lone surrogate stays exact).
fn id_arg(v: &JsValue, what: &str) -> Result<Key, JsValue> {
    if v.is_string() {
        Ok(key_of(v, &mut 0))
    } else {
        Err(type_error(format!(
            "{what} must be a string, got {}",
            describe(v)
        )))
    }
}

/// An optional id argument: `None` for anything but a string.
fn id_of(v: &JsValue) -> Option<Key> {
    v.is_string().then(|| key_of(v, &mut 0))
}

fn string_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    v.as_string()
        .ok_or_else(|| type_error(format!("{what} must be a string, got {}", describe(v))))
}

fn session_error(function: &str, e: session::SessionError) -> JsValue {
    match e {
        session::SessionError::NotFound(_) => error(e.to_string()),
        session::SessionError::Random(_) => error(format!("{function}: {e}")),
    }
}

/// A session header line: `{type, version, id, timestamp, cwd, parentSession}`.
fn header_line(id: &str, cwd: &JsValue, parent_session: &JsValue) -> Result<String, JsValue> {
    let mut line = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":{},\"timestamp\":{}",
        migrate::json_string(id),
        migrate::json_string(&now_iso())
    );
    for (key, value) in [("cwd", cwd), ("parentSession", parent_session)] {
        if let Some(json) = stringify(value)? {
            line.push_str(&format!(",\"{key}\":{json}"));
        }
    }
    line.push('}');
    Ok(line)
}

fn new_session_id(function: &str) -> Result<String, JsValue> {
    session::uuid_v7(Date::now() as u64).map_err(|e| error(format!("{function}: {e}")))
}

/// An open session that the host stores: pi's `SessionManager` without the
/// file system. See the README for the whole API.
#[wasm_bindgen(js_name = Session, skip_typescript)]
pub struct JsSession {
    inner: session::Session,
    /// Entry objects already handed out, by entry index: every call returns
    /// the same objects (as pi's manager does), and a context rebuild only
    /// parses what no earlier call did.
    objects: Array,
    /// The `message` of each message entry handed out in a context.
    messages: Array,
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    /// Not for direct use: `Session.open` and `Session.create` make sessions.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<JsSession, JsValue> {
        Err(type_error(
            "Session: use Session.open(source) or Session.create({ cwd })".into(),
        ))
    }

    /// Parses, migrates in memory and indexes a session (JSONL text or bytes, or entries).
    pub fn open(source: JsValue, options: JsValue) -> Result<JsSession, JsValue> {
        let max_bytes = read_options(&options, "Session.open")?.max_bytes();
        let text = match read_source(&source, "Session.open", true, max_bytes)? {
            Source::Text(text) => text,
            Source::Entries(array) => {
                let mut text = String::new();
                for v in array.iter() {
                    match stringify(&v)? {
                        Some(line) => text.push_str(&line),
                        None => text.push_str("null"),
                    }
                    text.push('\n');
                }
                text
            }
        };
        let inner =
            session::Session::open(text, &JsDates).map_err(|e| session_error("Session.open", e))?;
        Ok(JsSession {
            inner,
            objects: Array::new(),
            messages: Array::new(),
        })
    }

    /// A new, empty session: `{ cwd, id?, parentSession? }`.
    pub fn create(options: JsValue) -> Result<JsSession, JsValue> {
        if !options.is_object() {
            return Err(type_error(format!(
                "Session.create: options must be an object with a cwd, got {}",
                describe(&options)
            )));
        }
        let cwd = get(&options, "cwd");
        string_arg(&cwd, "Session.create: options.cwd")?;
        let id = match get(&options, "id") {
            v if v.is_undefined() => new_session_id("Session.create")?,
            v => string_arg(&v, "Session.create: options.id")?,
        };
        let header = header_line(&id, &cwd, &get(&options, "parentSession"))?;
        Ok(JsSession {
            inner: session::Session::create(&header, &JsDates),
            objects: Array::new(),
            messages: Array::new(),
        })
    }

    /// The header entry, or `null` if the file has none.
    #[wasm_bindgen(getter)]
    pub fn header(&self) -> Result<JsValue, JsValue> {
        match self.inner.header() {
            Some(i) => JSON::parse(self.inner.entry_json(i)),
            None => Ok(JsValue::NULL),
        }
    }

    /// The current leaf's id, or `null` before the first entry.
    #[wasm_bindgen(getter, js_name = leafId)]
    pub fn leaf_id(&self) -> Result<JsValue, JsValue> {
        match self.inner.leaf() {
            Some(i) => self.field(i, "id"),
            None => Ok(JsValue::NULL),
        }
    }

    /// Whether opening migrated the text (store `toJsonl()` to keep the upgrade).
    #[wasm_bindgen(getter)]
    pub fn migrated(&self) -> bool {
        self.inner.migrated()
    }

    fn entry(&self, i: usize) -> Result<JsValue, JsValue> {
        let cached = self.objects.get(i as u32);
        if !cached.is_undefined() {
            return Ok(cached);
        }
        let parsed = JSON::parse(self.inner.entry_json(i))?;
        self.objects.set(i as u32, parsed.clone());
        Ok(parsed)
    }

    fn field(&self, i: usize, name: &str) -> Result<JsValue, JsValue> {
        Ok(get(&self.entry(i)?, name))
    }

    fn entries(&self, list: impl IntoIterator<Item = usize>) -> Result<JsValue, JsValue> {
        let list: Vec<usize> = list.into_iter().collect();
        // Whatever is not cached yet is parsed in one batch.
        let missing: Vec<usize> = list
            .iter()
            .copied()
            .filter(|&i| self.objects.get(i as u32).is_undefined())
            .collect();
        if missing.len() > 1 {
            let mut json = String::from("[");
            for &i in &missing {
                if json.len() > 1 {
                    json.push(',');
                }
                json.push_str(self.inner.entry_json(i));
            }
            json.push(']');
            let parsed: Array = parse_json(json)?.unchecked_into();
            for (k, &i) in missing.iter().enumerate() {
                self.objects.set(i as u32, parsed.get(k as u32));
            }
        }
        list.iter()
            .map(|&i| self.entry(i))
            .collect::<Result<Array, JsValue>>()
            .map(JsValue::from)
    }

    #[wasm_bindgen(js_name = getEntry)]
    pub fn get_entry(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match id_of(&id).and_then(|id| self.inner.find(&id)) {
            Some(i) => self.entry(i),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    #[wasm_bindgen(js_name = getLeafEntry)]
    pub fn get_leaf_entry(&self) -> Result<JsValue, JsValue> {
        match self.inner.leaf() {
            Some(i) => self.entry(i),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The entries whose parent is `id`.
    #[wasm_bindgen(js_name = getChildren)]
    pub fn get_children(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match id_of(&id) {
            Some(id) => self.entries(self.inner.children_of(&id)),
            None => Ok(Array::new().into()),
        }
    }

    #[wasm_bindgen(js_name = getLabel)]
    pub fn get_label(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match id_of(&id).and_then(|id| self.inner.label_of(&id)) {
            Some(l) => self.field(l, "label"),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The entries from the root to `fromId` (default: the leaf).
    #[wasm_bindgen(js_name = getBranch)]
    pub fn get_branch(&self, from_id: JsValue) -> Result<JsValue, JsValue> {
        let start = if from_id.is_undefined() || from_id.is_null() {
            self.inner.leaf()
        } else {
            id_of(&from_id).and_then(|id| self.inner.find(&id))
        };
        self.entries(self.inner.branch_path(start))
    }

    /// Every entry but the header, in file order.
    #[wasm_bindgen(js_name = getEntries)]
    pub fn get_entries(&self) -> Result<JsValue, JsValue> {
        let entries = self.inner.entries();
        self.entries((0..entries.len()).filter(|&i| !entries[i].is_header()))
    }

    #[wasm_bindgen(js_name = getTree)]
    pub fn get_tree(&self) -> Result<JsValue, JsValue> {
        let all: Array = self
            .entries(0..self.inner.entries().len())?
            .unchecked_into();
        tree_nodes(self.inner.entries(), &all, &self.inner.tree(&JsSort))
    }

    #[wasm_bindgen(js_name = getSessionName)]
    pub fn get_session_name(&self) -> JsValue {
        self.inner.name().map_or(JsValue::UNDEFINED, |n| n.into())
    }

    /// The context at `leafId` (default: the session's leaf; `null`: empty).
    #[wasm_bindgen(js_name = buildSessionContext)]
    pub fn build_session_context(&self, leaf_id: JsValue) -> Result<JsValue, JsValue> {
        let leaf = if leaf_id.is_undefined() {
            None
        } else if leaf_id.is_null() {
            Some(None)
        } else {
            Some(Some(id_arg(&leaf_id, "buildSessionContext: leafId")?))
        };
        let plan = self.inner.context_plan(leaf.as_ref().map(|l| l.as_ref()));
        // Messages come from their own cache, so a rebuild touches no entry twice.
        for emit in &plan.messages {
            if let Emit::Message(i) = *emit {
                if self.messages.get(i as u32).is_undefined()
                    && !self.inner.entries()[i].is_header()
                {
                    self.messages.set(i as u32, get(&self.entry(i)?, "message"));
                }
            }
        }
        let messages = pick(&self.messages, &message_indices(&plan), JsValue::UNDEFINED)?;
        let object = |i: usize| self.entry(i).unwrap_or(JsValue::UNDEFINED);
        context_from_objects(&object, messages, self.inner.entries(), &plan)
    }

    /// `inspectSession` of the session as it stands.
    pub fn diagnostics(&self) -> Result<JsValue, JsValue> {
        inspect_session(JsValue::from_str(&self.inner.text()), JsValue::UNDEFINED)
    }

    #[wasm_bindgen(js_name = appendMessage)]
    pub fn append_message(&mut self, message: JsValue) -> Result<String, JsValue> {
        let message = stringify(&message)?;
        self.inner
            .append_message(message.as_deref(), &now_iso(), &JsDates)
            .map_err(|e| session_error("appendMessage", e))
    }

    #[wasm_bindgen(js_name = appendThinkingLevelChange)]
    pub fn append_thinking_level_change(&mut self, level: JsValue) -> Result<String, JsValue> {
        let level = stringify(&level)?;
        self.inner
            .append_thinking_level_change(level.as_deref(), &now_iso(), &JsDates)
            .map_err(|e| session_error("appendThinkingLevelChange", e))
    }

    #[wasm_bindgen(js_name = appendModelChange)]
    pub fn append_model_change(
        &mut self,
        provider: JsValue,
        model_id: JsValue,
    ) -> Result<String, JsValue> {
        let (p, m) = (stringify(&provider)?, stringify(&model_id)?);
        self.inner
            .append_model_change(p.as_deref(), m.as_deref(), &now_iso(), &JsDates)
            .map_err(|e| session_error("appendModelChange", e))
    }

    #[wasm_bindgen(js_name = appendCompaction)]
    pub fn append_compaction(
        &mut self,
        summary: JsValue,
        first_kept_entry_id: JsValue,
        tokens_before: JsValue,
        details: JsValue,
        from_hook: JsValue,
    ) -> Result<String, JsValue> {
        let v = [
            summary,
            first_kept_entry_id,
            tokens_before,
            details,
            from_hook,
        ]
        .iter()
        .map(stringify)
        .collect::<Result<Vec<_>, _>>()?;
        self.inner
            .append_compaction(
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                v[3].as_deref(),
                v[4].as_deref(),
                &now_iso(),
                &JsDates,
            )
            .map_err(|e| session_error("appendCompaction", e))
    }

    #[wasm_bindgen(js_name = appendCustomEntry)]
    pub fn append_custom_entry(
        &mut self,
        custom_type: JsValue,
        data: JsValue,
    ) -> Result<String, JsValue> {
        let (t, d) = (stringify(&custom_type)?, stringify(&data)?);
        self.inner
            .append_custom_entry(t.as_deref(), d.as_deref(), &now_iso(), &JsDates)
            .map_err(|e| session_error("appendCustomEntry", e))
    }

    #[wasm_bindgen(js_name = appendSessionInfo)]
    pub fn append_session_info(&mut self, name: JsValue) -> Result<String, JsValue> {
        let name = string_arg(&name, "appendSessionInfo: name")?;
        self.inner
            .append_session_info(&name, &now_iso(), &JsDates)
            .map_err(|e| session_error("appendSessionInfo", e))
    }

    #[wasm_bindgen(js_name = appendCustomMessageEntry)]
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: JsValue,
        content: JsValue,
        display: JsValue,
        details: JsValue,
    ) -> Result<String, JsValue> {
        let v = [custom_type, content, display, details]
            .iter()
            .map(stringify)
            .collect::<Result<Vec<_>, _>>()?;
        self.inner
            .append_custom_message_entry(
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                v[3].as_deref(),
                &now_iso(),
                &JsDates,
            )
            .map_err(|e| session_error("appendCustomMessageEntry", e))
    }

    /// Sets (`label` a non-empty string) or clears (`undefined` or `""`) a label.
    #[wasm_bindgen(js_name = appendLabelChange)]
    pub fn append_label_change(
        &mut self,
        target_id: JsValue,
        label: JsValue,
    ) -> Result<String, JsValue> {
        let target = id_arg(&target_id, "appendLabelChange: targetId")?;
        let label = stringify(&label)?;
        self.inner
            .append_label_change(&target, label.as_deref(), &now_iso(), &JsDates)
            .map_err(|e| session_error("appendLabelChange", e))
    }

    /// Moves the leaf to `id`; the next append starts a branch there.
    pub fn branch(&mut self, id: JsValue) -> Result<(), JsValue> {
        let id = id_arg(&id, "branch: id")?;
        self.inner
            .branch(&id)
            .map_err(|e| session_error("branch", e))
    }

    /// Moves the leaf before the first entry; the next append is a new root.
    #[wasm_bindgen(js_name = resetLeaf)]
    pub fn reset_leaf(&mut self) {
        self.inner.reset_leaf();
    }

    /// Branches at `id` (or the root, for `null`) with a summary of the path left.
    #[wasm_bindgen(js_name = branchWithSummary)]
    pub fn branch_with_summary(
        &mut self,
        id: JsValue,
        summary: JsValue,
        details: JsValue,
        from_hook: JsValue,
    ) -> Result<String, JsValue> {
        let from = if id.is_null() {
            None
        } else {
            Some(id_arg(&id, "branchWithSummary: id")?)
        };
        let v = [summary, details, from_hook]
            .iter()
            .map(stringify)
            .collect::<Result<Vec<_>, _>>()?;
        self.inner
            .branch_with_summary(
                from.as_ref(),
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                &now_iso(),
                &JsDates,
            )
            .map_err(|e| session_error("branchWithSummary", e))
    }

    /// Lines appended since the last call, for the host to store (none until
    /// the session has an assistant message; then the header too, if new).
    #[wasm_bindgen(js_name = takePendingLines)]
    pub fn take_pending_lines(&mut self) -> Array {
        self.inner
            .take_pending_lines()
            .into_iter()
            .map(JsValue::from)
            .collect()
    }

    /// The whole session as JSONL.
    #[wasm_bindgen(js_name = toJsonl)]
    pub fn to_jsonl(&self) -> String {
        self.inner.text().into_owned()
    }

    /// Ingests bytes another writer appended to the file; a chunk may end mid-line.
    #[wasm_bindgen(js_name = appendJsonl)]
    pub fn append_jsonl(&mut self, chunk: JsValue) -> Result<(), JsValue> {
        // Bytes stay bytes: a chunk may end inside a UTF-8 character.
        let bytes = if is_bytes(&chunk)? {
            bytes_of(chunk.unchecked_ref::<Uint8Array>(), false)
        } else if let Some(s) = chunk.dyn_ref::<JsString>() {
            string_text(s).into_bytes()
        } else {
            return Err(type_error(format!(
                "appendJsonl: chunk must be a string or a Uint8Array, got {}",
                describe(&chunk)
            )));
        };
        self.inner.append_jsonl(&bytes, &JsDates);
        Ok(())
    }

    /// The path to `leafId` as a new session's JSONL (pi's `createBranchedSession`).
    #[wasm_bindgen(js_name = createBranchedSession)]
    pub fn create_branched_session(
        &self,
        leaf_id: JsValue,
        options: JsValue,
    ) -> Result<String, JsValue> {
        // As pi: no leaf id means the current leaf.
        let leaf = match (leaf_id.is_undefined(), self.inner.leaf()) {
            (true, Some(i)) => self.inner.entries()[i].id.clone(),
            _ => id_arg(&leaf_id, "createBranchedSession: leafId")?,
        };
        let header = self.new_header("createBranchedSession", &options)?;
        self.inner
            .branched_jsonl(&leaf, &header)
            .map_err(|e| session_error("createBranchedSession", e))
    }

    /// Every entry under a new header (pi's `forkFrom`), as JSONL.
    #[wasm_bindgen(js_name = fork)]
    pub fn fork(&self, options: JsValue) -> Result<String, JsValue> {
        let header = self.new_header("fork", &options)?;
        Ok(self.inner.forked_jsonl(&header))
    }

    /// `{ cwd?, id?, parentSession? }` → a header line; cwd defaults to this session's.
    fn new_header(&self, function: &str, options: &JsValue) -> Result<String, JsValue> {
        let options = if options.is_undefined() {
            Object::new().into()
        } else {
            options.clone()
        };
        if !options.is_object() {
            return Err(type_error(format!(
                "{function}: options must be an object, got {}",
                describe(&options)
            )));
        }
        let cwd = match get(&options, "cwd") {
            v if v.is_undefined() => self.header().map(|h| get(&h, "cwd"))?,
            v => v,
        };
        let id = match get(&options, "id") {
            v if v.is_undefined() => new_session_id(function)?,
            v => string_arg(&v, &format!("{function}: options.id"))?,
        };
        header_line(&id, &cwd, &get(&options, "parentSession"))
    }
}

/// What pi's session list shows for a file: `null` if its first line is not a header.
#[wasm_bindgen(js_name = sessionInfo, skip_typescript)]
pub fn session_info(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let max_bytes = read_options(&options, "sessionInfo")?.max_bytes();
    let text = match read_source(&source, "sessionInfo", false, max_bytes)? {
        Source::Text(text) => text,
        Source::Entries(_) => String::new(),
    };
    let Some(info) = session::session_info(&text, &JsDates) else {
        return Ok(JsValue::NULL);
    };
    let parse = |raw: &Option<String>| raw.as_deref().map_or(Ok(JsValue::UNDEFINED), JSON::parse);
    let created = parse(&info.created)?;
    let modified: JsValue = match (info.last_activity, info.header_time) {
        (Some(t), _) | (None, Some(t)) => Date::new(&t.into()).into(),
        _ => get(&options, "mtime"),
    };
    let o = Object::new();
    set(&o, "id", &parse(&Some(info.id))?)?;
    set(&o, "cwd", &info.cwd.into())?;
    set(
        &o,
        "name",
        &info.name.map_or(JsValue::UNDEFINED, JsValue::from),
    )?;
    set(&o, "parentSession", &parse(&info.parent_session)?)?;
    set(&o, "created", &Date::new(&created).into())?;
    set(&o, "modified", &modified)?;
    set(&o, "messageCount", &(info.message_count as u32).into())?;
    let first = if info.first_message.is_empty() {
        JsValue::from_str("(no messages)")
    } else {
        JSON::parse(&info.first_message)?
    };
    set(&o, "firstMessage", &first)?;
    Ok(o.into())
}
