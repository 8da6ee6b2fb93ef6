//! The one reader of arguments: `options`, then `source` as JSONL text (a
//! string or bytes), an entry array, or a byte source
//! (`{ size, read(offset, length) }`) read a piece at a time; text refused up
//! front when too big.

use js_sys::{Array, JsString, Reflect, RegExp, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::Api;
use super::js::{
    is_array, is_byte_source, is_bytes, read_source, snapshot, utf8_length, well_formed,
};
use crate::parse;

/// The default input limit. Working on a text takes about four times its size
/// in wasm's 4 GiB address space; bigger inputs fail up front, not with a trap.
const DEFAULT_MAX_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// How many bytes of a byte source are read at a time, unless
/// `options.pieceSize` says otherwise (tests make it tiny, so that piece
/// boundaries fall everywhere).
const DEFAULT_PIECE: usize = 1 << 20;

/// The options every function takes; unknown keys are ignored.
#[derive(Default)]
pub(super) struct Options {
    pub strict: Option<bool>,
    max_bytes: Option<f64>,
    piece_size: Option<usize>,
    /// `options.preview`: the fields of each entry's preview, for a tree
    /// read by range (see [`crate::preview`]).
    pub preview: Option<crate::preview::Fields>,
    /// `options.detail`: `{ preview, where, map }`, a second preview of the
    /// entries `where` picks, as text (see [`crate::preview::Picked`]), and
    /// the function (or undefined) each text is handed to.
    pub detail: Option<(crate::preview::Picked, JsValue)>,
}

/// What a `source` argument turned out to be.
pub(super) enum Source {
    Text(String),
    Entries(Array),
}

/// What a function accepts as its `source`, and how it wants the text.
#[derive(Clone, Copy)]
pub(super) struct Accept {
    /// An entry array too, not only JSONL.
    pub entries: bool,
}

impl Accept {
    /// JSONL only.
    pub const TEXT: Accept = Accept { entries: false };
    /// JSONL or an entry array.
    pub const ANY: Accept = Accept { entries: true };
}

/// A caller's `{ size, read(offset, length) }`: bytes read by range, never
/// written. Each read must give exactly the bytes asked for; anything else
/// means the source changed under the reader, which is an error naming it.
pub(super) struct ByteSource {
    pub object: JsValue,
    pub size: u64,
    /// Its `name` (a file source's path), for errors.
    pub name: String,
    pub piece: usize,
    /// The call its errors are named for.
    pub api: Api,
}

impl ByteSource {
    /// Appends bytes `from..to` to `buf`.
    pub fn read(&self, from: u64, to: u64, buf: &mut Vec<u8>) -> Result<(), JsValue> {
        if to <= from {
            return Ok(());
        }
        let bytes = read_source(&self.object, from as f64, (to - from) as f64)?;
        if !is_bytes(&bytes)? {
            return Err(self.api.must_be(
                &format!("{}.read(…)", self.name),
                "a Uint8Array",
                &bytes,
            ));
        }
        let bytes: &Uint8Array = bytes.unchecked_ref();
        if u64::from(bytes.length()) != to - from {
            return Err(self.changed(format_args!(
                "it gave {} bytes at offset {from} where {} were asked",
                bytes.length(),
                to - from
            )));
        }
        append_bytes(buf, bytes);
        Ok(())
    }

    /// The text of the entry the index found at `from..to`, read again.
    /// Bytes there that are no longer one JSON text mean the source changed
    /// since (a size check cannot see a rewrite of the same length).
    pub fn entry_text(&self, from: u64, to: u64) -> Result<String, JsValue> {
        let mut bytes = Vec::new();
        self.read(from, to, &mut bytes)?;
        if crate::json::validate_line(&bytes, 0, bytes.len()).is_none() {
            return Err(self.changed(format_args!("bytes {from} to {to} are no longer one entry")));
        }
        Ok(parse::decode(&bytes).into_owned())
    }

    /// The source changed while it was read: nothing read from it is used.
    pub fn changed(&self, how: impl std::fmt::Display) -> JsValue {
        self.api.error(format_args!(
            "{} changed while it was read ({how}); nothing read from it was used",
            self.name
        ))
    }

    /// The whole source, read a piece at a time, refused over `max_bytes`.
    pub fn read_whole(&self, reader: &Reader) -> Result<Vec<u8>, JsValue> {
        reader.check_size(self.size as f64)?;
        let mut out = Vec::with_capacity(self.size as usize);
        let mut at = 0;
        while at < self.size {
            let to = self.size.min(at + self.piece as u64);
            self.read(at, to, &mut out)?;
            at = to;
        }
        Ok(out)
    }
}

/// A source as read: `lossy` if its bytes had invalid UTF-8 (replaced).
pub(super) struct Input {
    pub source: Source,
    pub lossy: bool,
}

/// The arguments of one call: its function, options and size limit.
pub(super) struct Reader {
    api: Api,
    pub options: Options,
}

impl Reader {
    /// Reads `options` (`undefined` and `null` mean none).
    pub fn new(api: Api, options: &JsValue) -> Result<Reader, JsValue> {
        Ok(Reader {
            api,
            options: read_options(api, options)?,
        })
    }

    /// `options.maxBytes`, at most the default limit.
    pub fn max_bytes(&self) -> f64 {
        self.options
            .max_bytes
            .unwrap_or(DEFAULT_MAX_BYTES)
            .min(DEFAULT_MAX_BYTES)
    }

    /// Reads a `source` argument as `accept` says. Text longer than the limit
    /// is refused before any work.
    pub fn source(&self, v: &JsValue, accept: Accept) -> Result<Input, JsValue> {
        let text = |text| Input {
            source: Source::Text(text),
            lossy: false,
        };
        if let Some(s) = v.dyn_ref::<JsString>() {
            self.check_string(s)?;
            return Ok(text(string_text(s)));
        }
        if let Some(bytes) = self.bytes(v)? {
            let (text, lossy) = parse::into_text(bytes);
            return Ok(Input {
                source: Source::Text(text),
                lossy,
            });
        }
        if accept.entries && is_array(v)? {
            return Ok(Input {
                source: Source::Entries(snapshot(v)?),
                lossy: false,
            });
        }
        let expected = if accept.entries {
            "a JSONL string, a Uint8Array, a byte source or an array of entries"
        } else {
            "a JSONL string, a Uint8Array or a byte source"
        };
        Err(self.api.must_be("source", expected, v))
    }

    /// The bytes of a `Uint8Array` or of a whole byte source (checked against
    /// the limit); `None` for any other value.
    pub fn bytes(&self, v: &JsValue) -> Result<Option<Vec<u8>>, JsValue> {
        if is_bytes(v)? {
            let bytes: &Uint8Array = v.unchecked_ref();
            self.check_bytes(bytes)?;
            Ok(Some(bytes_of(bytes)))
        } else if let Some(source) = self.pieces(v)? {
            // A function that does not read by piece reads a source whole.
            Ok(Some(source.read_whole(self)?))
        } else {
            Ok(None)
        }
    }

    /// A `source` argument that is a byte source, for a function that reads
    /// one a piece at a time (its size and name checked); `None` for any
    /// other value, which [`Reader::source`] then reads.
    pub fn pieces(&self, v: &JsValue) -> Result<Option<ByteSource>, JsValue> {
        if !is_byte_source(v)? {
            return Ok(None);
        }
        let size = Reflect::get(v, &JsValue::from_str("size"))?;
        let size = size
            .as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n <= 9_007_199_254_740_991.0)
            .ok_or_else(|| self.api.must_be("source.size", "a number of bytes", &size))?;
        let name = Reflect::get(v, &JsValue::from_str("name"))?
            .as_string()
            .unwrap_or_else(|| "the byte source".into());
        Ok(Some(ByteSource {
            object: v.clone(),
            size: size as u64,
            name,
            piece: self.options.piece_size.unwrap_or(DEFAULT_PIECE),
            api: self.api,
        }))
    }

    /// Refuses bytes over the limit.
    pub fn check_bytes(&self, bytes: &Uint8Array) -> Result<(), JsValue> {
        self.check_size(f64::from(bytes.length()))
    }

    /// Refuses a string over the limit, in UTF-8 bytes: at least one per
    /// UTF-16 unit and at most three, so only a string near the limit is
    /// measured exactly.
    pub fn check_string(&self, s: &JsString) -> Result<(), JsValue> {
        let units = f64::from(s.length());
        self.check_size(units)?;
        if units * 3.0 > self.max_bytes() {
            self.check_size(utf8_length(s))?;
        }
        Ok(())
    }

    pub fn check_size(&self, bytes: f64) -> Result<(), JsValue> {
        let max_bytes = self.max_bytes();
        if bytes <= max_bytes {
            return Ok(());
        }
        let limit = if max_bytes == DEFAULT_MAX_BYTES {
            "the 1 GiB that fits in WebAssembly's 4 GiB memory (options.maxBytes can lower it)"
                .to_owned()
        } else {
            format!(
                "options.maxBytes ({} bytes)",
                crate::json::number_text(max_bytes)
            )
        };
        Err(self.api.range_error(format_args!(
            "the input is {} bytes, more than {limit}; nothing was read",
            crate::json::number_text(bytes)
        )))
    }
}

/// `options[name]`, a function one function takes (`migrate`'s `write`):
/// `None` when absent (`undefined`, `null`, or no options), a `TypeError`
/// when not a function.
pub(super) fn function_option(
    api: Api,
    options: &JsValue,
    name: &str,
) -> Result<Option<js_sys::Function>, JsValue> {
    if !options.is_object() {
        return Ok(None);
    }
    let f = Reflect::get(options, &JsValue::from_str(name))?;
    if f.is_undefined() || f.is_null() {
        return Ok(None);
    }
    f.dyn_ref::<js_sys::Function>()
        .cloned()
        .map(Some)
        .ok_or_else(|| api.must_be(&format!("options.{name}"), "a function", &f))
}

fn read_options(api: Api, options: &JsValue) -> Result<Options, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options::default());
    }
    if !options.is_object() {
        return Err(api.must_be("options", "an object", options));
    }
    // `null` and `undefined` mean the default; a getter that throws throws here.
    let strict = Reflect::get(options, &JsValue::from_str("strict"))?;
    let strict = if strict.is_undefined() || strict.is_null() {
        None
    } else {
        Some(
            strict
                .as_bool()
                .ok_or_else(|| api.must_be("options.strict", "a boolean", &strict))?,
        )
    };
    let max_bytes = Reflect::get(options, &JsValue::from_str("maxBytes"))?;
    let max_bytes = if max_bytes.is_undefined() || max_bytes.is_null() {
        None
    } else {
        Some(
            max_bytes
                .as_f64()
                .ok_or_else(|| api.must_be("options.maxBytes", "a number", &max_bytes))?,
        )
    };
    let piece_size = Reflect::get(options, &JsValue::from_str("pieceSize"))?;
    let piece_size = if piece_size.is_undefined() || piece_size.is_null() {
        None
    } else {
        Some(
            piece_size
                .as_f64()
                .filter(|n| *n >= 1.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
                .ok_or_else(|| {
                    api.must_be(
                        "options.pieceSize",
                        "a whole number of bytes, at least 1",
                        &piece_size,
                    )
                })? as usize,
        )
    };
    let preview = Reflect::get(options, &JsValue::from_str("preview"))?;
    let preview = if preview.is_undefined() || preview.is_null() {
        None
    } else {
        Some(crate::preview::Fields::new(strings_of(
            api,
            "options.preview",
            "an array of field paths (strings such as \"message.role\")",
            &preview,
        )?))
    };
    let detail = Reflect::get(options, &JsValue::from_str("detail"))?;
    let detail = if detail.is_undefined() || detail.is_null() {
        None
    } else {
        Some(detail_of(api, &detail)?)
    };
    let parsed = Options {
        strict,
        max_bytes,
        piece_size,
        preview,
        detail,
    };
    if parsed.max_bytes.is_some_and(|m| m.is_nan() || m < 0.0) {
        return Err(api.range_error("options.maxBytes must be a number of bytes, at least 0"));
    }
    Ok(parsed)
}

/// The text of a JS string. A lone surrogate cannot cross into UTF-8; written as
/// a `\uXXXX` escape it means the same inside a JSON string, where `JSON.parse`
/// keeps it, and a line with one elsewhere is malformed either way.
pub(super) fn string_text(s: &JsString) -> String {
    if well_formed(s) {
        return String::from(s);
    }
    let escape = Closure::<dyn Fn(JsString) -> JsString>::new(|m: JsString| {
        JsString::from(format!("\\u{:04x}", m.char_code_at(0) as u32))
    });
    let surrogate = RegExp::new("\\p{Cs}", "gu");
    let fixed = s.replace_by_pattern_with_function(&surrogate, escape.as_ref().unchecked_ref());
    String::from(fixed)
}

/// The lines of JS strings that held lone surrogates, by their number in a
/// text (from 0, lines split at `\n`). The core has such a line as
/// [`string_text`] made it, with `\uXXXX` escapes: the same inside a JSON
/// string, but a line kept as given must come back as the string's own code
/// units. [`GivenLines::restore`] gives them back, in every export that returns
/// text a string brought in.
#[derive(Default)]
pub(super) struct GivenLines {
    /// (line number, the line as given), in order of line number.
    lines: Vec<(usize, JsString)>,
}

impl GivenLines {
    /// Records the lines of `s` that hold lone surrogates, its first line
    /// being line `first` of the text; the last piece (after the last `\n`) too
    /// if `last` is set. Returns the last piece.
    pub fn record(&mut self, s: &JsString, first: usize, last: bool) -> JsString {
        let pieces = s.split("\n");
        let n = pieces.length();
        for i in 0..n {
            let piece: JsString = pieces.get(i).unchecked_into();
            if (i + 1 < n || last) && !well_formed(&piece) {
                self.lines.push((first + i as usize, piece));
            }
        }
        pieces.get(n - 1).unchecked_into()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `number` (from 1) as given, if it is one recorded.
    fn line(&self, number: usize) -> Option<&JsString> {
        let n = number.checked_sub(1)?;
        let i = self.lines.binary_search_by_key(&n, |(k, _)| *k).ok()?;
        Some(&self.lines[i].1)
    }

    /// A syntax error's column and reason (see [`parse::ParseError`]) on
    /// line `number`, told of the line as given (see [`Self::message`]).
    pub fn error(&self, number: usize, column: usize, reason: &str) -> (usize, String) {
        match self.line(number) {
            Some(given) => error_place(given, column, reason),
            None => (column, reason.to_owned()),
        }
    }

    /// The lines of `s` that hold lone surrogates (none if it is well formed).
    pub fn of(s: &JsString) -> GivenLines {
        let mut given = GivenLines::default();
        if !well_formed(s) {
            given.record(s, 0, true);
        }
        given
    }

    /// A message of the core's about line `number` (from 1) of the text,
    /// told of the line as given: a column in it counts a lone surrogate as
    /// one character (as a pair is one), and an unexpected character that
    /// is one is named (see [`Self::error`]).
    pub fn message(&self, number: usize, message: &str) -> JsValue {
        let Some(given) = self.line(number) else {
            return message.into();
        };
        let prefix = format!("line {number}, column ");
        let place = message.strip_prefix(&prefix).and_then(|rest| {
            let (column, reason) = rest.split_once(": ")?;
            Some((column.parse::<usize>().ok()?, reason))
        });
        if let Some((column, reason)) = place {
            let (column, reason) = error_place(given, column, reason);
            return format!("{prefix}{column}: {reason}").into();
        }
        message.into()
    }

    /// `out`, a text whose line `n` is the core's form of recorded line `n`
    /// (or a line the core rewrote), as a JS string: each recorded line that
    /// the core kept (its [`string_text`] is `out`'s line) is the line as
    /// given. `open`, the line `out` ends with if it has no `\n`, as given.
    pub fn restore(&self, out: &str, open: Option<&JsString>) -> JsValue {
        if self.lines.is_empty() && open.is_none() {
            return out.into();
        }
        let parts = Array::new();
        // `out[from..]` is not yet in `parts`.
        let mut from = 0;
        let mut put = |at: usize, end: usize, given: &JsString, parts: &Array| {
            // (A line given twice is put once.)
            if at >= from && string_text(given) == out[at..end] {
                parts.push(&JsValue::from_str(&out[from..at]));
                parts.push(given);
                from = end;
            }
        };
        let mut recorded = self.lines.iter().peekable();
        let mut at = 0;
        for (n, line) in out.split('\n').enumerate() {
            let end = at + line.len();
            while let Some((k, given)) = recorded.next_if(|(k, _)| *k <= n) {
                if *k == n {
                    put(at, end, given, &parts);
                }
            }
            if end == out.len() {
                if let Some(given) = open {
                    put(at, end, given, &parts);
                }
            }
            at = end + 1;
        }
        parts.push(&JsValue::from_str(&out[from..]));
        parts.join("").into()
    }
}

/// The column (from 1) on the line as `given` of the core's error at
/// `column` of its escaped form, and the reason with the unexpected
/// character named when it is a lone surrogate (the core saw the `\` of its
/// escape). A lone surrogate is one character, as a pair is one.
fn error_place(given: &JsString, column: usize, reason: &str) -> (usize, String) {
    // The escaped line's characters before the column, walked on the given
    // line: a lone surrogate is six of them (`\uXXXX`).
    let units: Vec<u16> = given.iter().collect();
    let surrogate = |u: &u16| (0xd800..0xe000).contains(u);
    let (mut seen, mut at, mut chars) = (0, 0, 0);
    while at < units.len() && seen + 1 < column {
        let pair = (0xd800..0xdc00).contains(&units[at])
            && units
                .get(at + 1)
                .is_some_and(|u| (0xdc00..0xe000).contains(u));
        let lone = !pair && surrogate(&units[at]);
        seen += if lone { 6 } else { 1 };
        at += if pair { 2 } else { 1 };
        chars += 1;
    }
    let mut reason = reason.to_owned();
    if let Some(&u) = units.get(at).filter(|u| surrogate(u)) {
        if let Some(rest) = reason.strip_prefix("unexpected '\\'") {
            reason = format!("unexpected character U+{u:04X}{rest}");
        }
    }
    (chars + 1, reason)
}

/// The bytes of a view, copied into wasm. An empty view is not read at all: the copy of a detached one would
/// throw through wasm.
pub(super) fn bytes_of(bytes: &Uint8Array) -> Vec<u8> {
    let mut out = Vec::new();
    append_bytes(&mut out, bytes);
    out
}

/// Appends the bytes of a view to `buf`, copying into uninitialized capacity.
pub(super) fn append_bytes(buf: &mut Vec<u8>, bytes: &Uint8Array) {
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

/// The strings of the array `value`, or an error saying it must be `what`.
fn strings_of(api: Api, name: &str, what: &str, value: &JsValue) -> Result<Vec<String>, JsValue> {
    let array = is_array(value)?;
    let items = if array {
        snapshot(value)?
    } else {
        Array::new()
    };
    if !array || !items.iter().all(|p| p.is_string()) {
        return Err(api.must_be(name, what, value));
    }
    Ok(items.iter().filter_map(|p| p.as_string()).collect())
}

/// `options.detail`: `{ preview: paths, where: { path: [strings] } }`.
fn detail_of(api: Api, detail: &JsValue) -> Result<(crate::preview::Picked, JsValue), JsValue> {
    const WHAT: &str =
        "{ preview: field paths, where: { path: [strings] }, cap?: number, map?: function }";
    if !detail.is_object() {
        return Err(api.must_be("options.detail", WHAT, detail));
    }
    let fields = strings_of(
        api,
        "options.detail.preview",
        "an array of field paths (strings such as \"message.content\")",
        &Reflect::get(detail, &JsValue::from_str("preview"))?,
    )?;
    let on = Reflect::get(detail, &JsValue::from_str("where"))?;
    if !on.is_object() || is_array(&on)? {
        return Err(api.must_be(
            "options.detail.where",
            "an object of field paths and the strings each may be",
            &on,
        ));
    }
    let mut when = Vec::new();
    for key in Reflect::own_keys(&on)?.iter() {
        let Some(path) = key.as_string() else {
            continue;
        };
        let values = strings_of(
            api,
            &format!("options.detail.where[\"{path}\"]"),
            "an array of strings",
            &Reflect::get(&on, &key)?,
        )?;
        when.push((path, values));
    }
    let cap = Reflect::get(detail, &JsValue::from_str("cap"))?;
    let cap = if cap.is_undefined() {
        crate::preview::TEXT_CAP
    } else {
        cap.as_f64()
            .filter(|n| *n >= 1.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
            .ok_or_else(|| {
                api.must_be(
                    "options.detail.cap",
                    "a whole number of UTF-16 units, at least 1",
                    &cap,
                )
            })? as usize
    };
    let map = Reflect::get(detail, &JsValue::from_str("map"))?;
    if !map.is_undefined() && !map.is_function() {
        return Err(api.must_be("options.detail.map", "a function", &map));
    }
    let fields = crate::preview::Fields::new(fields).with_cap(cap);
    let picked = crate::preview::Picked::new(fields, when);
    Ok((picked, map))
}
