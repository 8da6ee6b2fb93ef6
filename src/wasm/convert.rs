//! Conversions: JS values to the facts the core reads ([`Entry`], [`Key`]),
//! and JSON the core wrote to JS values.

use js_sys::{Array, JsString, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::Api;
use super::js::{
    is_array, parse_joined, parse_pieces, push_ascii, push_utf16, stringify_into, time_of,
    to_number, well_formed, write_held,
};
use crate::ascii;
use crate::entry::{Content, Detail, Entry, EntryType, Kept, Key, Replacement, Role};
use crate::json::{self, Span};

// get, set, stringify, parse_json and id_arg are called from most exports,
// each call a JS round trip: kept out of line, one copy each instead of one
// in every export (about 2 KB of the module gzipped).

/// `target[key]`, or `undefined` when `target` is no object or the read throws.
#[inline(never)]
pub(super) fn get(target: &JsValue, key: &str) -> JsValue {
    if !target.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

#[inline(never)]
pub(super) fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &JsValue::from_str(key), value).map(drop)
}

/// A field value as a core [`Key`] (equal keys are SameValueZero-equal in JS).
pub(super) fn key_of(v: &JsValue, unique: &mut u32) -> Key {
    if v.is_undefined() {
        Key::Undefined
    } else if v.is_null() {
        Key::Null
    } else if let Some(b) = v.as_bool() {
        Key::Bool(b)
    } else if let Some(n) = v.as_f64() {
        Key::number(n)
    } else if let Some(s) = v.dyn_ref::<JsString>() {
        if well_formed(s) {
            Key::string(&String::from(s))
        } else {
            Key::Utf16(s.iter().collect::<Vec<u16>>().into())
        }
    } else {
        *unique += 1;
        Key::Unique(*unique)
    }
}

/// An id a migration edit writes, as the JS string it was read from (a lone
/// surrogate included, which `JsValue::from_str` cannot carry). Edits hold
/// string keys only (`migrate::string_id`, new hex ids).
pub(super) fn key_value(key: &Key) -> JsValue {
    match key {
        Key::Utf16(units) => JsString::from_char_code(units).into(),
        other => JsValue::from_str(&other.as_str().unwrap_or_default()),
    }
}

/// An optional id argument: `None` for anything but a string.
pub(super) fn id_of(v: &JsValue) -> Option<Key> {
    v.is_string().then(|| key_of(v, &mut 0))
}

/// The id a lookup (`getEntry`, `getChildren`, `getLabel`, `getBranch`) asks
/// for: any primitive, as pi's maps and `===` compare it with the ids a file
/// holds (`getChildren(null)` gives the roots, `getEntry(5)` an entry whose id
/// is the number 5). `None` for what equals no id read from text: an
/// object (`Map` keys compare objects by identity), a symbol, a `BigInt`.
/// (`key_of` would make those a `Key::Unique`, numbered from 1 here: equal
/// to the first object id of the file, whose key is numbered the same way.)
pub(super) fn lookup_of(v: &JsValue) -> Option<Key> {
    let json_like = v.is_undefined()
        || v.is_null()
        || v.as_bool().is_some()
        || v.as_f64().is_some()
        || v.is_string();
    json_like.then(|| key_of(v, &mut 0))
}

/// An id argument as a [`Key`] (a string with a lone surrogate stays exact);
/// anything but a string is `api`'s TypeError about `what`.
#[inline(never)]
pub(super) fn id_arg(api: Api, what: &str, v: &JsValue) -> Result<Key, JsValue> {
    id_of(v).ok_or_else(|| api.must_be(what, "a string", v))
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
            version: Box::new(version_of(&get(v, "version"))),
        },
        EntryType::Message => {
            let message = get(v, "message");
            if message.is_object() {
                Detail::Message {
                    role: get(&message, "role")
                        .as_string()
                        .map_or(Role::Other, |r| Role::from_name(&r)),
                    content: content_of(&message),
                }
            } else {
                Detail::Message {
                    role: Role::NoMessage,
                    content: Content::Missing,
                }
            }
        }
        EntryType::Compaction => Detail::Compaction {
            kept: Box::new(Kept {
                id: key_of(&get(v, "firstKeptEntryId"), unique),
                index: get(v, "firstKeptEntryIndex").as_f64(),
            }),
            has_system_message: get(v, "systemMessage").is_truthy(),
        },
        EntryType::ContextEdit => Detail::ContextEdit {
            target_id: Box::new(key_of(&get(v, "targetId"), unique)),
            replacement: replacement_of(v),
        },
        EntryType::BranchSummary => Detail::BranchSummary {
            has_summary: get(v, "summary").is_truthy(),
            from_id: Box::new(key_of(&get(v, "fromId"), unique)),
        },
        EntryType::Label => Detail::Label {
            target_id: Box::new(key_of(&get(v, "targetId"), unique)),
            has_label: get(v, "label").is_truthy(),
        },
        _ => Detail::Plain(kind),
    };
    Entry {
        id: key_of(&get(v, "id"), unique),
        parent_id: key_of(&get(v, "parentId"), unique),
        time: time_of(&get(v, "timestamp")).unwrap_or(f64::NAN),
        detail,
    }
}

/// What `object.content` holds; a missing key and `undefined` read alike.
fn content_of(object: &JsValue) -> Content {
    let c = get(object, "content");
    if c.is_undefined() {
        Content::Missing
    } else if c.is_null() {
        Content::Null
    } else if c.is_string() {
        Content::Text
    } else if is_array(&c).unwrap_or(false) {
        Content::Blocks
    } else {
        Content::Other
    }
}

/// A `context_edit`'s `replacement` (an `undefined` value reads as missing,
/// which is what pi sees too).
fn replacement_of(edit: &JsValue) -> Replacement {
    let r = get(edit, "replacement");
    if r.is_undefined() {
        Replacement::Missing
    } else if r.is_null() {
        Replacement::Null
    } else if !r.is_object() || is_array(&r).unwrap_or(true) {
        Replacement::NotObject
    } else {
        Replacement::Object(content_of(&r))
    }
}

/// The facts of every entry of an array (objects that are no entries are blanks).
pub(super) fn entries_of(array: &Array) -> Vec<Entry> {
    let mut unique = 0;
    array.iter().map(|v| entry_of(&v, &mut unique)).collect()
}

/// `JSON.stringify(value)`: `None` where JSON has no text for it (`undefined`).
/// The text is written as UTF-8 straight into wasm memory (see
/// `stringifyInto` in helpers.js): the glue's copy of a string goes a
/// character at a time, which was a tenth of an append.
#[inline(never)]
pub(super) fn stringify(value: &JsValue) -> Result<Option<String>, JsValue> {
    let mut buf = Vec::new();
    if !stringify_bytes(value, &mut buf)? {
        return Ok(None);
    }
    String::from_utf8(buf).map(Some).map_err(|_| not_utf8())
}

/// [`stringify`] into `buf`, which a caller that stringifies often keeps
/// from one call to the next (no buffer allocated and freed each time).
pub(super) fn stringify_in<'b>(
    value: &JsValue,
    buf: &'b mut Vec<u8>,
) -> Result<Option<&'b str>, JsValue> {
    if !stringify_bytes(value, buf)? {
        return Ok(None);
    }
    std::str::from_utf8(buf).map(Some).map_err(|_| not_utf8())
}

#[cold]
fn not_utf8() -> JsValue {
    Api("JSON.stringify").error("the text did not cross into wasm as UTF-8")
}

thread_local! {
    /// The module's memory object, asked of the glue once (it stays the same
    /// object as the memory grows).
    static MEMORY: JsValue = wasm_bindgen::memory();
}

/// `JSON.stringify(value)`'s UTF-8 in `buf` (cleared first), or false where
/// it has no text.
fn stringify_bytes(value: &JsValue, buf: &mut Vec<u8>) -> Result<bool, JsValue> {
    /// Room for the first try: most texts fit, larger ones take a second call.
    const ROOM: usize = 2048;
    if value.is_undefined() {
        return Ok(false);
    }
    buf.clear();
    buf.reserve(ROOM);
    let room = buf.capacity();
    let written = MEMORY.with(|memory| {
        let got = stringify_into(value, memory, buf.as_mut_ptr() as u32, room as u32)?;
        if got >= 0.0 || got == -1.0 {
            return Ok::<_, JsValue>(got);
        }
        let need = (-2.0 - got) as usize;
        buf.reserve_exact(need);
        Ok(write_held(memory, buf.as_mut_ptr() as u32, need as u32))
    })?;
    if written == -1.0 {
        return Ok(false);
    }
    let n = (written as usize).min(buf.capacity());
    // SAFETY: the first `n` bytes of the buffer's capacity were just written
    // by `stringifyInto` or `writeHeld` (which write at most the room given).
    unsafe { buf.set_len(n) };
    Ok(true)
}

/// An entry array as JSONL: each entry as `JSON.stringify` writes it
/// (`undefined` as `null`), one a line.
pub(super) fn entries_jsonl(api: Api, array: &Array) -> Result<String, JsValue> {
    let mut text = String::new();
    for (i, v) in array.iter().enumerate() {
        let line = stringify(&v)
            .map_err(|e| api.unwritable(&format_args!("entry {i} of the array"), e))?;
        match line {
            Some(line) => text.push_str(&line),
            None => text.push_str("null"),
        }
        text.push('\n');
    }
    Ok(text)
}

/// About how much JSON is handed to JS at a time, in bytes or UTF-16 units:
/// crossing adds at most a few MiB to wasm memory, however much the escapes
/// grow the text. Node makes a string of more than about a MB by one copy to
/// memory of its own, and a smaller one with a slower copy that checks each
/// unit: a piece is a MiB or more (but the last).
const CROSSING_CHUNK: usize = 1 << 20;

/// The size of a tree's pieces (see [`tree_parts`]), in bytes or UTF-16
/// units (a piece closes after the value that fills it), by how the text
/// crosses and how much memory its strings take.
///
/// Bytes (ASCII, escaped or not): 64 KB of string a piece, whatever the size
/// of the text. A string of up to 128 KiB is made in V8's young generation,
/// memory already in use; a bigger one gets pages of its own, which the
/// system faults in and zeroes first (Node 20, making the strings of a 4.6 MB
/// session: 0.2 ms in small pieces against 2 ms in 900 KB ones), and which
/// count towards the old generation from the start: the 69 MB of a large
/// session's pieces brought on a mark-compact while the tree and most of its
/// entries were live. Young pieces that wait for their reading are copied by
/// the scavenges until they are old, which costs less (2026-12-06, every
/// entry read, main-thread CPU time against 900 KB pieces: 5–22% less on a
/// 21 MB session, 2–5% less on a 69 MB one). A piece of bytes stays far from
/// the about a MB at which Node makes a string outside the JS heap: such
/// strings count as external memory, which forces a full mark-compact in the
/// middle of the reading every 64 MB (69 MB session: a fifth more CPU time).
///
/// UTF-16: 32,000 units a piece up to [`YOUNG_TEXT`] of UTF-16 (12 MB of it:
/// 0.5 ms against 3.4 ms in 900,000-unit pieces). Over it, [`EXTERNAL_UNITS`]
/// a piece, a string Node makes outside the JS heap by one copy to memory of
/// its own: it neither faults in fresh heap pages nor is copied by
/// scavenges, and it leaves the old generation small (30 MB session far from
/// ASCII, every entry read: 6–13% less CPU time than in 900,000-unit pieces,
/// which were made in V8's heap).
fn tree_piece(how: ascii::Crossing, text_bytes: usize) -> usize {
    match how {
        // A character never takes more UTF-16 units than bytes.
        ascii::Crossing::Utf16 if text_bytes.saturating_mul(2) > YOUNG_TEXT => EXTERNAL_UNITS,
        ascii::Crossing::Utf16 => 32_000,
        _ => 64_000,
    }
}

/// The most UTF-16 a tree's text takes to cross in small pieces, in bytes:
/// about what V8's young generation holds (its semi-spaces grow to 16 MiB).
const YOUNG_TEXT: usize = 16 << 20;

/// UTF-16 units a piece when they cross outside the JS heap: Node makes a
/// string of more than 1,031,913 (its `EXTERN_APEX`) as an external string.
const EXTERNAL_UNITS: usize = 1_100_000;

/// `json` in JS as pieces of one string, a chunk at a time, each crossing
/// the cheapest way for its engine to decode (see [`ascii::crossing`]): ASCII
/// as it is, a few non-ASCII characters escaped (engines decode UTF-8 with
/// non-ASCII in it several times slower than ASCII), mostly non-Latin text as
/// UTF-16. Crossing adds at most a chunk to wasm memory.
pub(super) fn ascii_parts(json: &str) -> Array {
    let parts = Array::new();
    match ascii::crossing(json) {
        // Already in wasm memory as it is: one string, no copy here.
        ascii::Crossing::Ascii => push_ascii(&parts, json.as_bytes()),
        ascii::Crossing::Escaped => {
            ascii::escape_in_chunks(json, CROSSING_CHUNK, |piece| push_ascii(&parts, piece));
        }
        ascii::Crossing::Utf16 => {
            // Two MiB of text a piece: at least a MiB of UTF-16 however many
            // bytes its characters take (see [`CROSSING_CHUNK`]).
            ascii::utf16_in_chunks(json, 2 * CROSSING_CHUNK, |units| push_utf16(&parts, units));
        }
    }
    parts
}

/// `JSON.parse` of a JSON text built here (see [`ascii_parts`]).
#[inline(never)]
pub(super) fn parse_json(json: String) -> Result<JsValue, JsValue> {
    parse_joined(&ascii_parts(&json))
}

/// The most JSON [`parse_rendered`] crosses as one string: escaped, a byte
/// takes at most three UTF-16 units, which keeps the string well under the
/// longest V8 makes (536,870,888 units).
const WHOLE_JSON: usize = 128 << 20;

/// `JSON.parse` of a result the core rendered: an array, or an object whose
/// largest member is an array (a context's `messages`, a projection's
/// `entries`). Up to [`WHOLE_JSON`] it crosses as one string; past it the
/// array's values cross in pieces, so that a context of any size comes back
/// as long as each value fits in a string (pi's is objects, never a string).
/// On failure, says how large the largest value is.
#[inline(never)]
pub(super) fn parse_rendered(api: Api, what: &str, json: String) -> Result<JsValue, JsValue> {
    if json.len() <= WHOLE_JSON {
        return parse_json(json)
            .map_err(|_| api.error(format_args!("{what} could not be read back as JSON")));
    }
    let whole = Span::new(0, json.len());
    let member = match json.starts_with('[') {
        true => None,
        false => json::members(&json, whole)
            .into_iter()
            .max_by_key(|m| m.value.len()),
    };
    let array = member.as_ref().map_or(whole, |m| m.value);
    let values: Vec<Span> = json::elements(&json, array)
        .iter()
        .map(|e| e.value)
        .collect();
    let failed = |e: JsValue| {
        let largest = values.iter().map(Span::len).max().unwrap_or(0);
        let reason = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()));
        api.range_error(format_args!(
            "{what} could not be read back: {} MB of JSON, its largest value {} MB ({})",
            json.len() >> 20,
            largest >> 20,
            reason.as_deref().unwrap_or("JSON.parse failed"),
        ))
    };
    let items = parse_values_of(&json, &values).map_err(failed)?;
    let Some(member) = member else {
        return Ok(items.into());
    };
    // The rest, with the array left empty, then the array put in its place.
    let mut rest = String::with_capacity(json.len() - array.len() + 2);
    rest.push_str(&json[..array.start]);
    rest.push_str("[]");
    rest.push_str(&json[array.end..]);
    let result = parse_json(rest).map_err(failed)?;
    let key = JSON::parse(member.key.of(&json)).map_err(failed)?;
    Reflect::set(&result, &key, &items).map_err(failed)?;
    Ok(result)
}

/// The values at `spans` of `json` as one JS array. A piece holds whole
/// values, so a value longer than [`WHOLE_JSON`] crosses alone, in pieces of
/// one string joined in JS: wasm memory then grows by a chunk, not by the
/// value again (which could pass the 4 GiB a module can address).
fn parse_values_of(json: &str, spans: &[Span]) -> Result<Array, JsValue> {
    let huge = |s: &Span| s.len() > WHOLE_JSON;
    if !spans.iter().any(huge) {
        return parse_pieces(&array_parts(json, spans).0);
    }
    let items = Array::new();
    for run in spans.split_inclusive(huge) {
        let (last, before) = match run.split_last() {
            Some((last, before)) if huge(last) => (Some(last), before),
            _ => (None, run),
        };
        if !before.is_empty() {
            let values = parse_pieces(&array_parts(json, before).0)?;
            items.push(&values);
        }
        if let Some(last) = last {
            items.push(&Array::of1(&parse_joined(&ascii_parts(last.of(json)))?));
        }
    }
    // One array of every run's values, in order.
    Ok(items.flat(1))
}

/// The JSON values at `spans` of `text` in JS as whole JSON array texts, a
/// chunk of values to each (see [`ascii::array_pieces`]), crossing the
/// cheapest way for the text; and where each value is in them, as
/// `[piece, start, end]` triples.
pub(super) fn array_parts(text: &str, spans: &[Span]) -> (Array, Vec<u32>) {
    pieces_crossing(text, spans, ascii::crossing(text), CROSSING_CHUNK)
}

fn pieces_crossing(
    text: &str,
    spans: &[Span],
    how: ascii::Crossing,
    chunk: usize,
) -> (Array, Vec<u32>) {
    let parts = Array::new();
    let at = ascii::array_pieces(
        text,
        spans.iter().map(|s| s.start..s.end),
        how,
        chunk,
        |piece| match piece {
            ascii::Piece::Ascii(bytes) => push_ascii(&parts, bytes),
            ascii::Piece::Utf16(units) => push_utf16(&parts, units),
        },
    );
    (parts, at)
}

/// [`array_parts`] of a text, for a tree that keeps the pieces (see
/// [`tree_piece`]).
pub(super) fn tree_parts(text: &str, spans: &[Span]) -> (Array, Vec<u32>) {
    let how = ascii::crossing(text);
    pieces_crossing(text, spans, how, tree_piece(how, text.len()))
}

/// The JSON values at `spans` of `text` (lines the core validated) as one JS
/// array, one `JSON.parse` per piece; if that ever disagrees with the
/// validation, each value is parsed on its own.
pub(super) fn parse_values(text: &str, spans: &[Span]) -> Array {
    if let Ok(values) = parse_pieces(&array_parts(text, spans).0) {
        return values;
    }
    spans
        .iter()
        .filter_map(|s| JSON::parse(s.of(text)).ok())
        .collect()
}
