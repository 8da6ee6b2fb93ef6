//! `inspectSession` and `sessionInfo`: what is wrong with a session, and what
//! pi's session list shows for it. Also the memory size, for benchmarks.

use js_sys::{Array, Date, Object, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{entries_of, get, set};
use super::error::Api;
use super::host::JsDates;
use super::read::{Accept, Input, Reader, Source};
use crate::diagnostics;
use crate::document::Document;
use crate::session_info;

/// Everything wrong with a session: `{ kind, line?, entryId?, message }` per problem.
#[wasm_bindgen(js_name = inspectSession, skip_typescript)]
pub fn inspect_session(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let reader = Reader::new(Api("inspectSession"), &options)?;
    let found = match reader.source(&source, Accept::ANY)? {
        Input {
            source: Source::Text(text),
            lossy,
        } => diagnostics::inspect(&Document::parse_with(text, &JsDates), lossy),
        Input {
            source: Source::Entries(array),
            ..
        } => diagnostics::inspect_entries(&entries_of(&array), |_| None),
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

/// What pi's session list shows for a file: `null` if its first line is not a header.
#[wasm_bindgen(js_name = sessionInfo, skip_typescript)]
pub fn session_info(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let reader = Reader::new(Api("sessionInfo"), &options)?;
    let text = match reader.source(&source, Accept::TEXT)?.source {
        Source::Text(text) => text,
        Source::Entries(_) => String::new(),
    };
    let Some(info) = session_info::session_info(&text, &JsDates) else {
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
    set(&o, "cwd", &JSON::parse(&info.cwd)?)?;
    set(&o, "name", &parse(&info.name)?)?;
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
