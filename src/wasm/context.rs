//! `buildSessionContext`, `buildContextEntries`, `buildSessionProjection` and
//! `currentSystemMessage`: what the model sees at a leaf, as JS values.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{entries_of, get, key_of, parse_json, parse_rendered, set, stringify};
use super::error::Api;
use super::host::{index_error, index_of, open_text, JsDates};
use super::js::{edited_content, flat_messages, pick, with_content};
use super::read::{Accept, Reader, Source};
use crate::context::{self, Emit, Fixup, Leaf, ModelFrom, Plan, Slot};
use crate::document::Document;
use crate::entry::{Detail, Entry, Key, Role};
use crate::json::Span;
use crate::system;

/// What the model sees at `leafId`, as pi's `buildSessionContext` computes it.
#[wasm_bindgen(js_name = buildSessionContext, skip_typescript)]
pub fn build_session_context(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("buildSessionContext");
    match with_plan(api, source, leaf_id, options)? {
        Planned::Text(doc, plan) => {
            let rendered = context::render(&doc.text, &|i| doc.members(i), &doc.entries, &plan);
            context_value(api, rendered)
        }
        Planned::Objects(array, entries, plan) => {
            let messages = pick(&array, &message_indices(&plan), "message".into())?;
            context_from_objects(&|i| array.get(i as u32), messages, &entries, &plan)
        }
    }
}

/// The compaction-aware entries at `leafId`, as pi's `buildContextEntries`.
#[wasm_bindgen(js_name = buildContextEntries, skip_typescript)]
pub fn build_context_entries(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("buildContextEntries");
    match with_plan(api, source, leaf_id, options)? {
        Planned::Text(doc, plan) => {
            let json = context::render_entries(&doc.text, &doc.spans, &plan);
            parse_rendered(api, "the context entries", json)
        }
        Planned::Objects(array, _, plan) => {
            Ok(context_entries_from_objects(&|i| array.get(i as u32), &plan).into())
        }
    }
}

/// Each context entry with the messages it gives, as pi's `buildSessionProjection`.
#[wasm_bindgen(js_name = buildSessionProjection, skip_typescript)]
pub fn build_session_projection(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("buildSessionProjection");
    match with_plan(api, source, leaf_id, options)? {
        Planned::Text(doc, plan) => {
            let rendered = context::render_projection(
                &doc.text,
                &doc.spans,
                &|i| doc.members(i),
                &doc.entries,
                &plan,
            );
            projection_value(api, rendered)
        }
        Planned::Objects(array, entries, plan) => {
            let messages = pick(&array, &message_indices(&plan), "message".into())?;
            projection_from_objects(&|i| array.get(i as u32), messages, &entries, &plan)
        }
    }
}

/// The system prompt and tools in force at `leafId`: pi-ai's
/// `getCurrentSystemMessage` over the context messages there.
#[wasm_bindgen(js_name = currentSystemMessage, skip_typescript)]
pub fn current_system_message(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("currentSystemMessage");
    match with_plan(api, source, leaf_id, options)? {
        Planned::Text(doc, plan) => match system::current(&doc.text, &|i| doc.members(i), &plan) {
            Some(json) => parse_json(json)
                .map_err(|_| api.error("the system message could not be read back as JSON")),
            None => Ok(JsValue::UNDEFINED),
        },
        Planned::Objects(array, entries, plan) => {
            let messages = pick(&array, &message_indices(&plan), "message".into())?;
            let messages =
                messages_from_objects(&|i| array.get(i as u32), messages, &entries, &plan)?;
            current_system_from_messages(api, &messages)
        }
    }
}

/// A source read and planned at a leaf.
enum Planned {
    Text(Document, Plan),
    Objects(Array, Vec<Entry>, Plan),
}

/// Reads `options`, `leafId` and `source` as every context function does,
/// plans the context at the leaf. Not generic and never inlined: the four
/// exports share this one copy (it was a large part of the wasm file).
#[inline(never)]
fn with_plan(
    api: Api,
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<Planned, JsValue> {
    let reader = Reader::new(api, &options)?;
    let leaf_key = if leaf_id.is_undefined() || leaf_id.is_null() {
        None
    } else if leaf_id.is_string() {
        Some(key_of(&leaf_id, &mut 0)).filter(Key::truthy)
    } else {
        return Err(api.must_be("leafId", "a string, null or undefined", &leaf_id));
    };
    let leaf = match &leaf_key {
        _ if leaf_id.is_null() => Leaf::None,
        Some(k) => Leaf::Id(k),
        None => Leaf::Last,
    };
    if let Some(pieces) = reader.pieces(&source)? {
        // A current session through a byte source: only the header and the
        // path are read (an old one is read whole below).
        let index = index_of(api, &pieces)?;
        if index.is_current() {
            let mut read = |from, to, buf: &mut Vec<u8>| pieces.read(from, to, buf);
            let (doc, plan) = index
                .context(leaf, reader.max_bytes() as u64, &mut read, &JsDates)
                .map_err(|e| index_error(api, &pieces, e))?;
            return Ok(Planned::Text(doc, plan));
        }
    }
    match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => {
            let doc = open_text(api, text)?;
            let by_id = context::index(&doc.entries);
            let plan = context::plan(&doc.entries, &|k| by_id.get(k).copied(), leaf);
            drop(by_id);
            Ok(Planned::Text(doc, plan))
        }
        Source::Entries(array) => {
            let entries = entries_of(&array);
            let by_id = context::index(&entries);
            let plan = context::plan(&entries, &|k| by_id.get(k).copied(), leaf);
            drop(by_id);
            Ok(Planned::Objects(array, entries, plan))
        }
    }
}

/// The rendered projection as JS values: its `messages` are its entries'
/// messages, the same objects, and the fixups count in that list.
fn projection_value(api: Api, rendered: context::Rendered) -> Result<JsValue, JsValue> {
    let context::Rendered { json, fixups } = rendered;
    let result = parse_rendered(api, "the projection", json)?;
    let entries = get(&result, "entries");
    for fixup in &fixups {
        if let Fixup::Shared { entry, index } = *fixup {
            let e = Reflect::get_u32(&entries, entry as u32)?;
            let message = get(&get(&e, "sourceEntry"), "message");
            Reflect::set_u32(&get(&e, "messages"), index as u32, &message)?;
        }
    }
    set(&result, "messages", &flat_messages(&entries)?.into())?;
    apply_fixups(&result, &fixups)?;
    Ok(result)
}

/// The rendered context as JS values: one `JSON.parse`, then the few values JSON cannot hold.
fn context_value(api: Api, rendered: context::Rendered) -> Result<JsValue, JsValue> {
    let context::Rendered { json, fixups } = rendered;
    let result = parse_rendered(api, "the context", json)?;
    apply_fixups(&result, &fixups)?;
    Ok(result)
}

fn apply_fixups(result: &JsValue, fixups: &[Fixup]) -> Result<(), JsValue> {
    let messages = get(result, "messages");
    for fixup in fixups {
        let (slot, value) = match fixup {
            Fixup::Undefined(slot) => (slot, JsValue::UNDEFINED),
            Fixup::NaN(slot) => (slot, JsValue::from(f64::NAN)),
            Fixup::Shared { .. } => continue,
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

/// The messages of `plan`, as `pick` finds them: `message` entries' messages
/// come from `source` in one batch; the gaps are filled by the caller.
/// Out of line: each of its four callers held its own vectorized copy.
#[inline(never)]
pub(super) fn message_indices(plan: &Plan) -> Vec<u32> {
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

/// The messages of `plan` from the caller's own objects, in `messages`
/// (which holds the `message` entries' messages already, see
/// [`message_indices`]): copies where pi makes one, and new objects with
/// pi's keys in pi's order for summaries and custom messages.
pub(super) fn messages_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    messages: Array,
    entries: &[Entry],
    plan: &Plan,
) -> Result<Array, JsValue> {
    for (k, emit) in plan.messages.iter().enumerate() {
        let i = emit.entry();
        let role = match &entries[i].detail {
            Detail::Message { role, .. } => Some(*role),
            _ => None,
        };
        let made = match *emit {
            Emit::Message(_) => continue,
            Emit::Checkpoint(_) => get(&object(i), "systemMessage"),
            Emit::Filled(_) => {
                let content = if role == Some(Role::System) {
                    JsValue::from_str("")
                } else {
                    Array::new().into()
                };
                with_content(&get(&object(i), "message"), &content)?
            }
            Emit::EditedMessage { edit, .. } => {
                let wrap = matches!(role, Some(Role::Assistant | Role::ToolResult));
                let content = edited_content(&get(&object(edit), "replacement"), wrap)?;
                with_content(&get(&object(i), "message"), &content)?
            }
            Emit::Custom(_)
            | Emit::EditedCustom { .. }
            | Emit::BranchSummary(_)
            | Emit::CompactionSummary(_) => {
                let Some((role, names)) = emit.synthesized() else {
                    continue;
                };
                let e = object(i);
                let m = Object::new();
                set(&m, "role", &role.into())?;
                for &name in names {
                    let value = match (*emit, name) {
                        (Emit::EditedCustom { edit, .. }, "content") => {
                            edited_content(&get(&object(edit), "replacement"), false)?
                        }
                        (_, "content") => {
                            let c = get(&e, name);
                            if c.is_null() || c.is_undefined() {
                                Array::new().into()
                            } else {
                                c
                            }
                        }
                        _ => get(&e, name),
                    };
                    set(&m, name, &value)?;
                }
                set(&m, "timestamp", &entries[i].time.into())?;
                m.into()
            }
        };
        messages.set(k as u32, made);
    }
    Ok(messages)
}

/// `thinkingLevel` and `model` of `plan`, from the caller's own objects.
fn settings_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    plan: &Plan,
) -> Result<(JsValue, JsValue), JsValue> {
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
    Ok((thinking_level, model))
}

/// A new object with these keys, in this order.
fn made(pairs: &[(&str, JsValue)]) -> Result<JsValue, JsValue> {
    let o = Object::new();
    for (k, v) in pairs {
        set(&o, k, v)?;
    }
    Ok(o.into())
}

/// Builds the context from the caller's own objects: `message` entries give
/// their very `message` object (or pi's copy of it); summaries and custom
/// messages are new objects with pi's keys in pi's order.
pub(super) fn context_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    messages: Array,
    entries: &[Entry],
    plan: &Plan,
) -> Result<JsValue, JsValue> {
    let messages = messages_from_objects(object, messages, entries, plan)?;
    let (thinking_level, model) = settings_from_objects(object, plan)?;
    made(&[
        ("messages", messages.into()),
        ("thinkingLevel", thinking_level),
        ("model", model),
    ])
}

/// pi's `buildSessionProjection` from the caller's own objects (`messages`
/// as for [`context_from_objects`]).
pub(super) fn projection_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    messages: Array,
    entries: &[Entry],
    plan: &Plan,
) -> Result<JsValue, JsValue> {
    let messages = messages_from_objects(object, messages, entries, plan)?;
    let list = Array::new();
    for (k, &i) in plan.context.iter().enumerate() {
        let start = if k == 0 { 0 } else { plan.ends[k - 1] };
        let own = messages.slice(start as u32, plan.ends[k] as u32);
        list.push(&made(&[
            ("sourceEntry", object(i)),
            ("messages", own.into()),
        ])?);
    }
    let (thinking_level, model) = settings_from_objects(object, plan)?;
    made(&[
        ("entries", list.into()),
        ("messages", messages.into()),
        ("thinkingLevel", thinking_level),
        ("model", model),
    ])
}

/// pi's `buildContextEntries` from the caller's own objects.
pub(super) fn context_entries_from_objects(
    object: &dyn Fn(usize) -> JsValue,
    plan: &Plan,
) -> Array {
    plan.context.iter().map(|&i| object(i)).collect()
}

/// pi-ai's `getCurrentSystemMessage` over context messages that are JS
/// values: the system ones go to the core as JSON text (so the result's
/// values are copies).
pub(super) fn current_system_from_messages(api: Api, messages: &Array) -> Result<JsValue, JsValue> {
    let mut text = String::new();
    let mut spans = Vec::new();
    for m in messages.iter() {
        if get(&m, "role").as_string().as_deref() != Some("system") {
            continue;
        }
        // A value JSON cannot write (a BigInt, a cycle) adds nothing, as in a file it could not be.
        let Ok(Some(json)) = stringify(&m) else {
            continue;
        };
        let start = text.len();
        text.push_str(&json);
        spans.push(system::Message {
            span: Span::new(start, text.len()),
            empty_content: false,
        });
        text.push('\n');
    }
    match system::replay(&text, &spans) {
        Some(json) => parse_json(json)
            .map_err(|_| api.error("the system message could not be read back as JSON")),
        None => Ok(JsValue::UNDEFINED),
    }
}
