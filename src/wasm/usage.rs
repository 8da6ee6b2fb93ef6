//! `sessionUsage` and `Session.usage`: what a session cost, from the core's
//! [`crate::usage`] report, as one plain object.

use wasm_bindgen::prelude::*;

use super::convert::{entries_jsonl, get, id_arg, parse_json};
use super::error::Api;
use super::host::{open_entries, JsSort};
use super::read::{Accept, Reader, Source};
use crate::entry::Entry;
use crate::json;
use crate::usage::{self, Record, Report, Totals};

/// What a session cost: every paid request, the file's total (pi's
/// `getSessionStats`), the path to `options.leafId` (default: the last entry),
/// what lies off it, each fork and each leaf.
#[wasm_bindgen(js_name = sessionUsage, skip_typescript)]
pub fn session_usage(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("sessionUsage");
    let reader = Reader::new(api, &options)?;
    let text = match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => text,
        Source::Entries(array) => entries_jsonl(&array)?,
    };
    let leaf_id = get(&options, "leafId");
    let file = open_entries(api, text)?;
    let leaf = leaf_arg(api, &leaf_id, &file.entries, None)?;
    let report = usage::report(&file.text, &file.entries, &file.spans, leaf, &JsSort);
    parse_json(report_json(&report, &file.entries))
}

/// The entry a usage path ends at: `undefined` is `default` (the session's
/// leaf) or else the last entry, `null` is none, and an id must name an entry.
pub(super) fn leaf_arg(
    api: Api,
    leaf_id: &JsValue,
    entries: &[Entry],
    default: Option<Option<usize>>,
) -> Result<Option<usize>, JsValue> {
    if leaf_id.is_undefined() {
        return Ok(default.unwrap_or_else(|| usage::leaf_of(entries, None)));
    }
    if leaf_id.is_null() {
        return Ok(None);
    }
    let id = id_arg(api, "leafId", leaf_id)?;
    match usage::leaf_of(entries, Some(&id)) {
        Some(i) => Ok(Some(i)),
        None => Err(api.error(format_args!("Entry {id} not found"))),
    }
}

/// The report as one JSON text, keys in the order the types list them.
pub(super) fn report_json(r: &Report, entries: &[Entry]) -> String {
    let mut j = String::with_capacity(256 + r.records.len() * 240);
    j.push('{');
    if let Some(h) = &r.header {
        for (key, value) in [
            ("sessionId", &h.id),
            ("cwd", &h.cwd),
            ("parentSession", &h.parent_session),
        ] {
            if let Some(v) = value {
                j.push_str(&format!("\"{key}\":{},", json::stringify(v)));
            }
        }
    }
    j.push_str("\"leafId\":");
    match r.leaf {
        Some(i) => j.push_str(&json::stringify(&entries[i].id.to_string())),
        None => j.push_str("null"),
    }
    j.push_str(",\"total\":");
    totals(&mut j, &r.total);
    j.push_str(",\"path\":");
    totals(&mut j, &r.path);
    j.push_str(",\"abandoned\":");
    totals(&mut j, &r.abandoned);
    j.push_str(",\"forks\":[");
    for (n, fork) in r.forks.iter().enumerate() {
        if n > 0 {
            j.push(',');
        }
        j.push_str(&format!(
            "{{\"entryId\":{},\"sides\":[",
            json::stringify(&fork.id)
        ));
        for (m, side) in fork.sides.iter().enumerate() {
            if m > 0 {
                j.push(',');
            }
            j.push_str(&format!(
                "{{\"entryId\":{},\"leaves\":{},\"usage\":",
                json::stringify(&side.id),
                side.leaves
            ));
            totals(&mut j, &side.totals);
            j.push('}');
        }
        j.push_str("]}");
    }
    j.push_str("],\"leaves\":[");
    for (n, leaf) in r.leaves.iter().enumerate() {
        if n > 0 {
            j.push(',');
        }
        j.push_str(&format!(
            "{{\"entryId\":{},\"path\":",
            json::stringify(&leaf.id)
        ));
        totals(&mut j, &leaf.path);
        j.push_str(",\"own\":");
        totals(&mut j, &leaf.own);
        j.push('}');
    }
    j.push_str("],\"records\":[");
    for (n, rec) in r.records.iter().enumerate() {
        if n > 0 {
            j.push(',');
        }
        record(&mut j, rec);
    }
    j.push_str("]}");
    j
}

/// A number for JSON: sums of huge values can overflow, which JSON cannot hold.
fn number(n: f64) -> String {
    if n.is_finite() {
        json::number_text(n)
    } else {
        "null".into()
    }
}

fn totals(j: &mut String, t: &Totals) {
    j.push_str(&format!(
        "{{\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{},\"totalTokens\":{},\"cost\":{},\"records\":{},\"incomplete\":{}}}",
        number(t.input),
        number(t.output),
        number(t.cache_read),
        number(t.cache_write),
        number(t.total_tokens()),
        number(t.cost),
        t.records,
        t.incomplete
    ));
}

fn record(j: &mut String, r: &Record) {
    j.push_str(&format!(
        "{{\"entryId\":{},\"timestamp\":{},\"time\":{},\"kind\":\"{}\"",
        json::stringify(&r.id),
        json::stringify(&r.timestamp),
        number(r.time),
        r.kind.as_str()
    ));
    for (key, value) in [
        ("usageKind", &r.usage_kind),
        ("provider", &r.provider),
        ("model", &r.model),
    ] {
        if let Some(v) = value {
            j.push_str(&format!(",\"{key}\":{}", json::stringify(v)));
        }
    }
    j.push_str(&format!(
        ",\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{},\"totalTokens\":{},\"cost\":{},\"incomplete\":{}}}",
        number(r.input),
        number(r.output),
        number(r.cache_read),
        number(r.cache_write),
        number(r.total_tokens()),
        number(r.cost),
        r.incomplete
    ));
}
