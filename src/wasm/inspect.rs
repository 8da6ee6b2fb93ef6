//! `inspectSession` and `sessionInfo`: what is wrong with a session, and what
//! pi's session list shows for it. Also the memory size, for benchmarks.

use crate::json::Put;
use js_sys::{Array, Date, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{entries_of, get, set};
use super::error::Api;
use super::host::JsDates;
use super::read::{Accept, GivenLines, Input, Reader, Source};
use crate::diagnostics;
use crate::json;
use crate::session_info;

/// Everything wrong with a session: `{ kind, line?, entryId?, message }` per problem.
#[wasm_bindgen(js_name = inspectSession, skip_typescript)]
pub fn inspect_session(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("inspectSession");
    let reader = Reader::new(api, &options)?;
    let found = if let Some(pieces) = reader.pieces(&source)? {
        let mut read = |from, to, buf: &mut Vec<u8>| pieces.read(from, to, buf);
        diagnostics::inspect_in_pieces(pieces.size, pieces.piece, &mut read, &JsDates)?
    } else {
        match reader.source(&source, Accept::ANY)? {
            Input {
                source: Source::Text(text),
                lossy,
            } => {
                // The text read as pieces of itself: one inspection for every
                // source (the same diagnostics as `diagnostics::inspect`).
                let bytes = text.as_bytes();
                let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                    buf.extend_from_slice(
                        bytes.get(from as usize..to as usize).unwrap_or_default(),
                    );
                    Ok::<(), JsValue>(())
                };
                let len = bytes.len() as u64;
                let mut found = diagnostics::inspect_in_pieces(len, 1 << 20, &mut read, &JsDates)?;
                // Decoded already: what the decoding replaced is said here.
                if lossy {
                    found.insert(0, diagnostics::invalid_utf8_file());
                }
                found
            }
            Input {
                source: Source::Entries(array),
                ..
            } => diagnostics::inspect_entries(&entries_of(&array), |_| None),
        }
    };
    // A string's lines with lone surrogates, which the messages tell of.
    let given = source
        .dyn_ref::<js_sys::JsString>()
        .map(GivenLines::of)
        .filter(|g| !g.is_empty());
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
        let message = match (d.line, &given) {
            (Some(line), Some(given)) => given.message(line, &d.message),
            _ => d.message.into(),
        };
        set(&o, "message", &message)?;
        out.push(&o);
    }
    Ok(out.into())
}

/// What pi's session list shows for a file: `null` if its first line is not a header.
#[wasm_bindgen(js_name = sessionInfo, skip_typescript)]
pub fn session_info(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let reader = Reader::new(Api("sessionInfo"), &options)?;
    let info = if let Some(pieces) = reader.pieces(&source)? {
        let mut read = |from, to, buf: &mut Vec<u8>| pieces.read(from, to, buf);
        session_info::session_info_in_pieces(pieces.size, pieces.piece, &mut read, &JsDates)?
    } else {
        let text = match reader.source(&source, Accept::TEXT)?.source {
            Source::Text(text) => text,
            Source::Entries(_) => String::new(),
        };
        session_info::session_info(&text, &JsDates)
    };
    let Some(info) = info else {
        return Ok(JsValue::NULL);
    };
    // `new Date(header.timestamp)`: the time of whatever JSON value it is.
    let created = crate::time::time_of(
        info.created
            .as_deref()
            .map(|raw| (json::Kind::of_first_byte(raw.as_bytes()[0]), raw)),
        &JsDates,
    );
    let modified: JsValue = match (info.last_activity, info.header_time) {
        (Some(t), _) | (None, Some(t)) => Date::new(&t.into()).into(),
        _ => get(&options, "mtime"),
    };
    // One JSON text for the object, keys in their order: the strings stay
    // JSON until JS reads them (a lone surrogate survives), and the object
    // crosses at once. What JSON cannot hold (dates, undefined) is set after
    // on the placeholders, which keeps the keys' order.
    let mut j = String::with_capacity(
        96 + info.id.len()
            + info.cwd.len()
            + info.first_message.len()
            + info.name.as_ref().map_or(0, String::len)
            + info.parent_session.as_ref().map_or(0, String::len),
    );
    for (key, value) in [
        ("{\"id\":", info.id.as_str()),
        (",\"cwd\":", &info.cwd),
        (",\"name\":", info.name.as_deref().unwrap_or("0")),
        (
            ",\"parentSession\":",
            info.parent_session.as_deref().unwrap_or("0"),
        ),
        (
            ",\"created\":0,\"modified\":0,\"messageCount\":",
            &info.message_count.to_string(),
        ),
        (
            ",\"firstMessage\":",
            if info.first_message.is_empty() {
                "\"(no messages)\""
            } else {
                &info.first_message
            },
        ),
    ] {
        j.put(key);
        j.put(value);
    }
    j.put("}");
    let o = JSON::parse(&j)?;
    INFO_KEYS.with(|[name, parent, created_key, modified_key]| {
        if info.name.is_none() {
            Reflect::set(&o, name, &JsValue::UNDEFINED)?;
        }
        if info.parent_session.is_none() {
            Reflect::set(&o, parent, &JsValue::UNDEFINED)?;
        }
        Reflect::set(&o, created_key, &Date::new(&created.into()))?;
        Reflect::set(&o, modified_key, &modified)
    })?;
    Ok(o)
}

thread_local! {
    /// The keys `sessionInfo` sets after its `JSON.parse`, made once.
    static INFO_KEYS: [JsValue; 4] =
        ["name", "parentSession", "created", "modified"].map(JsValue::from_str);
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
