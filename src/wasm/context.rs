//! `buildSessionContext`: what the model sees at a leaf, as JS values.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{entries_of, get, key_of, parse_json, set};
use super::error::Api;
use super::host::open_text;
use super::js::pick;
use super::read::{Accept, Reader, Source};
use crate::context::{self, Emit, Fixup, Leaf, ModelFrom, Plan, Slot};
use crate::entry::{Entry, Key};

/// What the model sees at `leafId`, as pi's `buildSessionContext` computes it.
#[wasm_bindgen(js_name = buildSessionContext, skip_typescript)]
pub fn build_session_context(
    source: JsValue,
    leaf_id: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let api = Api("buildSessionContext");
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
    match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => {
            let doc = open_text(api, text)?;
            let by_id = context::index(&doc.entries);
            let plan = context::plan(&doc.entries, &|k| by_id.get(k).copied(), leaf);
            let rendered = context::render(&doc.text, &|i| doc.members(i), &doc.entries, &plan);
            context_value(api, rendered)
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
fn context_value(api: Api, rendered: context::Rendered) -> Result<JsValue, JsValue> {
    let context::Rendered { json, fixups } = rendered;
    let result =
        parse_json(json).map_err(|_| api.error("the context could not be read back as JSON"))?;
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

/// The messages of `plan`, as `pick` finds them: `message` entries' messages
/// come from `source` in one batch; the gaps are filled by the caller.
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

/// Builds the context from the caller's own objects: `message` entries give
/// their very `message` object; summaries and custom messages are new objects
/// with pi's keys in pi's order.
pub(super) fn context_from_objects(
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
