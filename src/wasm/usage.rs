//! `sessionUsage` and `Session.usage`: what a session cost, from the core's
//! [`crate::usage`] report, as one plain object; `UsageLedger`: what many
//! files cost, each request counted once.

use wasm_bindgen::prelude::*;

use super::convert::{entries_jsonl, get, id_arg, parse_json};
use super::error::Api;
use super::host::{open_entries, JsDates, JsSort, JsZone};
use super::read::{Accept, Reader, Source};
use crate::entry::Entry;
use crate::json;
use crate::json::Put;
use crate::usage::{self, By, ByKind, Range, Record, Report, Totals};

/// What a session cost: every paid request, the file's total (pi's
/// `getSessionStats`), the path to `options.leafId` (default: the last entry),
/// what lies off it, each fork and each leaf.
#[wasm_bindgen(js_name = sessionUsage, skip_typescript)]
pub fn session_usage(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("sessionUsage");
    let reader = Reader::new(api, &options)?;
    let text = match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => text,
        Source::Entries(array) => entries_jsonl(api, &array)?,
    };
    let leaf_id = get(&options, "leafId");
    let file = open_entries(api, text)?;
    let leaf = leaf_arg(api, &leaf_id, &file.entries, None)?;
    let report = usage::report(&file.text, &file.entries, &file.spans, leaf, &JsSort);
    parse_json(report_json(
        &report,
        &file.entries,
        records_option(api, &options)?,
    ))
}

/// `options.records` (default true): `false` leaves the records out.
pub(super) fn records_option(api: Api, options: &JsValue) -> Result<bool, JsValue> {
    let v = get(options, "records");
    if v.is_undefined() || v.is_null() {
        return Ok(true);
    }
    v.as_bool()
        .ok_or_else(|| api.must_be("options.records", "a boolean", &v))
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
pub(super) fn report_json(r: &Report, entries: &[Entry], with_records: bool) -> String {
    let mut j = String::with_capacity(256 + r.records.len() * 240);
    j.put("{");
    if let Some(h) = &r.header {
        for (key, value) in [
            ("sessionId", &h.id),
            ("cwd", &h.cwd),
            ("parentSession", &h.parent_session),
        ] {
            if let Some(v) = value {
                j.put_fmt(format_args!("\"{key}\":{},", json::stringify(v)));
            }
        }
    }
    j.put("\"leafId\":");
    match r.leaf {
        Some(i) => j.put(&json::stringify(&entries[i].id.to_string())),
        None => j.put("null"),
    }
    j.put(",\"total\":");
    totals(&mut j, &r.total);
    j.put(",\"path\":");
    totals(&mut j, &r.path);
    j.put(",\"byKind\":{\"total\":");
    by_kind(&mut j, &r.total_by_kind);
    j.put(",\"path\":");
    by_kind(&mut j, &r.path_by_kind);
    j.put("}");
    j.put(",\"abandoned\":");
    totals(&mut j, &r.abandoned);
    j.put(",\"forks\":[");
    for (n, fork) in r.forks.iter().enumerate() {
        if n > 0 {
            j.put(",");
        }
        j.put_fmt(format_args!(
            "{{\"entryId\":{},\"sides\":[",
            json::stringify(&fork.id)
        ));
        for (m, side) in fork.sides.iter().enumerate() {
            if m > 0 {
                j.put(",");
            }
            j.put_fmt(format_args!(
                "{{\"entryId\":{},\"leaves\":{},\"usage\":",
                json::stringify(&side.id),
                side.leaves
            ));
            totals(&mut j, &side.totals);
            j.put("}");
        }
        j.put("]}");
    }
    j.put("],\"leaves\":[");
    for (n, leaf) in r.leaves.iter().enumerate() {
        if n > 0 {
            j.put(",");
        }
        j.put_fmt(format_args!(
            "{{\"entryId\":{},\"path\":",
            json::stringify(&leaf.id)
        ));
        totals(&mut j, &leaf.path);
        j.put(",\"own\":");
        totals(&mut j, &leaf.own);
        j.put("}");
    }
    j.put("],\"records\":[");
    let records = if with_records { &r.records[..] } else { &[] };
    for (n, rec) in records.iter().enumerate() {
        if n > 0 {
            j.put(",");
        }
        record(&mut j, rec);
    }
    j.put("]}");
    j
}

/// A number for JSON. Sums of huge values overflow to an infinity, as pi's
/// do: `1e999` is the JSON text that `JSON.parse` reads as `Infinity` (a
/// `null` there made `cost.toFixed` throw in callers that trust the type).
/// NaN (an infinity less another, only in sums of sums) has no JSON number.
#[inline(never)]
fn number(n: f64) -> String {
    if n.is_finite() {
        json::number_text(n)
    } else if n.is_nan() {
        "null".into()
    } else if n > 0.0 {
        "1e999".into()
    } else {
        "-1e999".into()
    }
}

#[inline(never)]
fn totals(j: &mut String, t: &Totals) {
    j.put_fmt(format_args!(
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

/// `{ assistant: totals, … }` for the kinds that have records.
fn by_kind(j: &mut String, b: &ByKind) {
    j.put("{");
    for (n, (kind, t)) in b.present().enumerate() {
        if n > 0 {
            j.put(",");
        }
        j.put_fmt(format_args!("\"{}\":", kind.as_str()));
        totals(j, t);
    }
    j.put("}");
}

fn record(j: &mut String, r: &Record) {
    j.put_fmt(format_args!(
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
            j.put_fmt(format_args!(",\"{key}\":{}", json::stringify(v)));
        }
    }
    j.put_fmt(format_args!(
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

/// What many files cost, each request counted once: files are added one at a
/// time (only their paid requests are kept), then summed by date, model,
/// project or session. Files linked by `parentSession` share their entries
/// and count them once (see [`usage::dedup`]).
#[wasm_bindgen(js_name = UsageLedger, skip_typescript)]
pub struct JsUsageLedger {
    files: Vec<LedgerFile>,
}

struct LedgerFile {
    path: String,
    header: Option<usage::Header>,
    records: Vec<Record>,
}

#[wasm_bindgen(js_class = UsageLedger)]
impl JsUsageLedger {
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsUsageLedger {
        JsUsageLedger { files: Vec::new() }
    }

    /// Adds a file's paid requests under `path` (the path other files'
    /// `parentSession` names it by); returns how many it has.
    pub fn add(
        &mut self,
        path: JsValue,
        source: JsValue,
        options: JsValue,
    ) -> Result<u32, JsValue> {
        let api = Api("UsageLedger.add");
        let path = api.string("path", &path)?;
        let reader = Reader::new(api, &options)?;
        let text = match reader.source(&source, Accept::ANY)?.source {
            Source::Text(text) => text,
            Source::Entries(array) => entries_jsonl(api, &array)?,
        };
        // A current file in one pass; an old one migrated first.
        let (header, records) = match usage::read(text, &JsDates) {
            Ok(read) => read,
            Err(text) => {
                let file = open_entries(api, text)?;
                let records = usage::records(&file.text, &file.entries, &file.spans);
                (
                    usage::header(&file.text, &file.entries, &file.spans),
                    records,
                )
            }
        };
        let count = records.len() as u32;
        self.files.push(LedgerFile {
            path,
            header,
            records,
        });
        Ok(count)
    }

    /// How many files were added.
    #[wasm_bindgen(getter)]
    pub fn files(&self) -> u32 {
        self.files.len() as u32
    }

    /// The requests of all files, each counted once, grouped by `options.by`.
    pub fn summary(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let api = Api("UsageLedger.summary");
        if !(options.is_undefined() || options.is_null() || options.is_object()) {
            return Err(api.must_be("options", "an object", &options));
        }
        let by_name = get(&options, "by");
        let by = if by_name.is_undefined() {
            By::Day
        } else {
            match api.string("options.by", &by_name)?.as_str() {
                "day" => By::Day,
                "week" => By::Week,
                "month" => By::Month,
                "model" => By::Model,
                "project" => By::Project,
                "session" => By::Session,
                other => {
                    return Err(api.range_error(format_args!(
                        "options.by must be \"day\", \"week\", \"month\", \"model\", \"project\" or \"session\", got \"{other}\""
                    )))
                }
            }
        };
        let zone = JsZone::new(api, get(&options, "timeZone"))?;
        let day = |key: &str| -> Result<Option<String>, JsValue> {
            let v = get(&options, key);
            if v.is_undefined() {
                return Ok(None);
            }
            let s = api.string(&format!("options.{key}"), &v)?;
            if !is_date(&s) {
                return Err(api.range_error(format_args!(
                    "options.{key} must be a date as YYYY-MM-DD, got \"{s}\""
                )));
            }
            Ok(Some(s))
        };
        let range = Range {
            since: day("since")?,
            until: day("until")?,
        };
        // Files in path order, whatever order they were added in: sums of
        // floats then come out the same on every run.
        let files =
            crate::order::sorted_by(self.files.iter().collect(), |a, b| a.path.cmp(&b.path));
        let sources: Vec<usage::Source> = files
            .iter()
            .map(|f| usage::Source {
                path: &f.path,
                header: f.header.as_ref(),
                records: &f.records,
            })
            .collect();
        let counted = usage::dedup(&sources);
        let copies = counted.iter().flatten().filter(|c| !**c).count();
        let rows = usage::buckets(&sources, &counted, by, &zone, &range);
        let total = usage::total(&sources, &counted, &zone, &range);
        let mut j = String::from("{\"rows\":[");
        for (n, row) in rows.iter().enumerate() {
            if n > 0 {
                j.put(",");
            }
            j.put_fmt(format_args!(
                "{{\"key\":{},\"usage\":",
                json::stringify(&row.key)
            ));
            totals(&mut j, &row.totals);
            j.put(",\"models\":[");
            for (m, (model, t)) in row.models.iter().enumerate() {
                if m > 0 {
                    j.put(",");
                }
                j.put_fmt(format_args!(
                    "{{\"model\":{},\"usage\":",
                    json::stringify(model)
                ));
                totals(&mut j, t);
                j.put("}");
            }
            j.put("]}");
        }
        j.put("],\"total\":");
        totals(&mut j, &total);
        j.put_fmt(format_args!(
            ",\"files\":{},\"copies\":{copies}}}",
            self.files.len()
        ));
        parse_json(j)
    }
}

impl Default for JsUsageLedger {
    fn default() -> Self {
        JsUsageLedger::new()
    }
}

/// `YYYY-MM-DD` with a month and a day in range.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && b[4] == b'-' && b[7] == b'-' && crate::time::iso_utc(s).is_some()
}
