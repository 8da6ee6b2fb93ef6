//! The JavaScript the bindings call, in `helpers.js`. Whatever touches a
//! caller's values goes through there with `catch`: a throwing getter or a
//! revoked Proxy then comes back as an error value instead of unwinding
//! through wasm (which would leave its stack and borrow flags behind).

use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/wasm/helpers.js")]
extern "C" {
    /// Whether `s` has no lone surrogate (js-sys's `is_valid_utf16` calls
    /// into JS once per code unit).
    #[wasm_bindgen(js_name = wellFormed)]
    pub(super) fn well_formed(s: &JsString) -> bool;
    /// `indices.map(i => key === undefined ? source[i] : source[i][key])`, with
    /// `u32::MAX` as a gap: a whole list of messages in one boundary crossing.
    #[wasm_bindgen(catch)]
    pub(super) fn pick(source: &JsValue, indices: &[u32], key: JsValue) -> Result<Array, JsValue>;
    /// The `indices` whose slot in `source` is undefined.
    #[wasm_bindgen(js_name = unsetOf)]
    pub(super) fn unset_of(source: &Array, indices: &[u32]) -> Vec<u32>;
    /// pi's tree nodes from index arrays (see [`super::tree::TreeShape`]).
    #[wasm_bindgen(catch, js_name = buildTree)]
    pub(super) fn build_tree(
        objects: &Array,
        nodes: &[u32],
        labels: &[i32],
        children: &[u32],
        roots: &[u32],
    ) -> Result<Array, JsValue>;
    /// pi's tree nodes whose entries are parsed when first read from `parts`,
    /// JSON array texts (see [`super::convert::array_parts`]): entry `i` is
    /// `parts[at[3i]].slice(at[3i + 1], at[3i + 2])`.
    #[wasm_bindgen(catch, js_name = buildLazyTree)]
    pub(super) fn build_lazy_tree(
        parts: &Array,
        at: &[u32],
        nodes: &[u32],
        labels: &[i32],
        children: &[u32],
        roots: &[u32],
    ) -> Result<Array, JsValue>;
    /// The string of eight ASCII bytes, given as two little-endian words
    /// (an appended entry's id: see `JsSession::append`).
    #[wasm_bindgen(js_name = idText)]
    pub(super) fn id_text(a: u32, b: u32) -> JsValue;
    /// `Number(raw)`: a checked decimal literal as JS reads it.
    #[wasm_bindgen(js_name = decimalOf)]
    pub(super) fn decimal_of(raw: &str) -> f64;
    /// `String(n)`: a number as JS writes it.
    #[wasm_bindgen(js_name = numberText)]
    pub(super) fn number_text(n: f64) -> String;
    /// Appends the ASCII `bytes`, as a string, to `parts`.
    #[wasm_bindgen(js_name = pushAscii)]
    pub(super) fn push_ascii(parts: &Array, bytes: &[u8]);
    /// Appends the UTF-16 `units`, as a string, to `parts`.
    #[wasm_bindgen(js_name = pushUtf16)]
    pub(super) fn push_utf16(parts: &Array, units: &[u16]);
    /// `JSON.parse(parts.join(""))`.
    #[wasm_bindgen(catch, js_name = parseJoined)]
    pub(super) fn parse_joined(parts: &Array) -> Result<JsValue, JsValue>;
    /// Appends the values of the JSON array text `part` to `kept`.
    #[wasm_bindgen(catch, js_name = pushPreviews)]
    pub(super) fn push_previews(kept: &Array, part: &str) -> Result<(), JsValue>;
    /// Appends the lines of `part` (each ended by `\n`) to `kept`: an
    /// empty one as undefined, any other as it is or, with a function
    /// `map`, as `map(line)`.
    #[wasm_bindgen(catch, js_name = pushLines)]
    pub(super) fn push_lines(kept: &Array, part: &str, map: &JsValue) -> Result<(), JsValue>;
    /// The values of the JSON array texts `parts`, in order, as one array.
    #[wasm_bindgen(catch, js_name = parsePieces)]
    pub(super) fn parse_pieces(parts: &Array) -> Result<Array, JsValue>;
    /// `{ ...message, content }`: `content` keeps its place, or comes last.
    #[wasm_bindgen(catch, js_name = withContent)]
    pub(super) fn with_content(message: &JsValue, content: &JsValue) -> Result<JsValue, JsValue>;
    /// `replacement.content`, a string wrapped as a text block when `wrap`.
    #[wasm_bindgen(catch, js_name = editedContent)]
    pub(super) fn edited_content(replacement: &JsValue, wrap: bool) -> Result<JsValue, JsValue>;
    /// `entries.flatMap((e) => e.messages)`.
    #[wasm_bindgen(catch, js_name = flatMessages)]
    pub(super) fn flat_messages(entries: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_name = isArray)]
    pub(super) fn is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = isBytes)]
    pub(super) fn is_bytes(value: &JsValue) -> Result<bool, JsValue>;
    /// `{ size, read }` with `read` a function: a byte source.
    #[wasm_bindgen(catch, js_name = isByteSource)]
    pub(super) fn is_byte_source(value: &JsValue) -> Result<bool, JsValue>;
    /// The numbers of an array-like as a `Float64Array`, or undefined when
    /// it is not one of numbers.
    #[wasm_bindgen(catch, js_name = numbersOf)]
    pub(super) fn numbers_of(value: &JsValue) -> Result<JsValue, JsValue>;
    /// Whether `value` has a `then` method (a promise).
    #[wasm_bindgen(catch, js_name = isThenable)]
    pub(super) fn is_thenable(value: &JsValue) -> Result<bool, JsValue>;
    /// `source.read(offset, length)`.
    #[wasm_bindgen(catch, js_name = readSource)]
    pub(super) fn read_source(
        source: &JsValue,
        offset: f64,
        length: f64,
    ) -> Result<JsValue, JsValue>;
    /// pi's tree nodes whose entries are read from `source` when first
    /// asked: entry `i` is the JSON of bytes `starts[i]` on, `lengths[i]` long.
    /// `previews`, unless undefined, holds the entries' previews, entry `i`'s
    /// at `i`.
    #[wasm_bindgen(catch, js_name = buildSourceTree)]
    pub(super) fn build_source_tree(
        source: &JsValue,
        name: &str,
        starts: &[f64],
        lengths: &[u32],
        nodes: &[u32],
        labels: &[i32],
        children: &[u32],
        roots: &[u32],
        previews: &JsValue,
        details: &JsValue,
    ) -> Result<Array, JsValue>;
    /// A plain copy of an array (or a Proxy of one): indexing it can no longer throw.
    #[wasm_bindgen(catch)]
    pub(super) fn snapshot(array: &JsValue) -> Result<Array, JsValue>;
    /// A plain `Uint8Array` copy of a view (a `Buffer`'s `slice` would share memory).
    #[wasm_bindgen(catch, js_name = copyBytes)]
    pub(super) fn copy_bytes(view: &JsValue) -> Result<Uint8Array, JsValue>;
    /// `new Date(value).getTime()`.
    #[wasm_bindgen(catch, js_name = timeOf)]
    pub(super) fn time_of(value: &JsValue) -> Result<f64, JsValue>;
    /// `+value`, as JS's `>=` reads a header version.
    #[wasm_bindgen(catch, js_name = toNumber)]
    pub(super) fn to_number(value: &JsValue) -> Result<f64, JsValue>;
    /// Minutes to add to UTC at `ms` for the wall clock of `time_zone` (an
    /// IANA name; `undefined`: the local zone). Throws a RangeError for a zone
    /// `Intl` does not know.
    #[wasm_bindgen(catch, js_name = zoneOffset)]
    pub(super) fn zone_offset(time_zone: &JsValue, ms: f64) -> Result<f64, JsValue>;
    /// `JSON.stringify(value)` as UTF-8 into the `room` bytes at `ptr` of
    /// `memory`: the bytes written; -1 for no text; or, for a text that may
    /// not fit, -2 minus its length in bytes, kept for [`write_held`].
    #[wasm_bindgen(catch, js_name = stringifyInto)]
    pub(super) fn stringify_into(
        value: &JsValue,
        memory: &JsValue,
        ptr: u32,
        room: u32,
    ) -> Result<f64, JsValue>;
    /// Writes the text [`stringify_into`] kept into the `room` bytes at `ptr`.
    #[wasm_bindgen(js_name = writeHeld)]
    pub(super) fn write_held(memory: &JsValue, ptr: u32, room: u32) -> f64;
    /// The length of a string as this module's text (lone surrogates as `\uXXXX`).
    #[wasm_bindgen(js_name = utf8Length)]
    pub(super) fn utf8_length(s: &JsString) -> f64;
}
