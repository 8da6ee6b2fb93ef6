//! What the core asks of the host, answered by JS: dates as `Date` reads them,
//! sibling order as `Array.prototype.sort` gives it, numbers as `Number` reads
//! and `String` writes them, the clock (for timestamps and session ids), and
//! random bytes from `crypto.getRandomValues` in bulk (getrandom, which
//! `crate::ids` falls back on, reads them too, 256 bytes a call).

use js_sys::{Array, Date, Function, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::Api;
use super::read::ByteSource;
use crate::document::{Document, Entries};
use crate::ids::{self, IdHash};
use crate::index::{Index, IndexError};
use crate::migrate;
use crate::preview::{Fields, Part, Picked, Wanted};
use crate::time::DateParser;
use crate::tree::SiblingSort;
use crate::usage::Zone;

/// JS's own `Number` and `String`, for the numbers the core does not settle
/// itself; installed once, by the start hook.
pub(super) fn install_number_host() {
    crate::json::set_number_host(crate::json::NumberHost {
        decimal: |raw| super::js::decimal_of(raw),
        text: |n| super::js::number_text(n),
    });
}

/// Random bytes for `crate::ids`' pool, up to 64 KiB a call to
/// `crypto.getRandomValues`: getrandom asks for 256 bytes a call (each a
/// subarray, the call and a copy back), and Node's `getRandomValues` costs
/// microseconds a call whatever its size. The bytes land in a JS buffer and
/// are copied in, as getrandom does (a shared memory is no `getRandomValues`
/// target). False where there is no `crypto`: getrandom then tries, and
/// says why it cannot. Installed once, by the start hook.
pub(super) fn install_random_source() {
    ids::set_random_source(crypto_fill);
}

fn crypto_fill(bytes: &mut [u8]) -> bool {
    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
        fn get_random_values(buf: &js_sys::Uint8Array) -> Result<JsValue, JsValue>;
    }
    /// The most `getRandomValues` gives at once.
    const MOST: usize = 65536;
    thread_local! {
        static BUF: js_sys::Uint8Array = js_sys::Uint8Array::new_with_length(MOST as u32);
        static IN_USE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    // A `getRandomValues` that is the caller's code may draw ids itself
    // around filling ours: that nested draw gets an array of its own, so
    // that it cannot overwrite the one this draw then copies from.
    let nested = IN_USE.replace(true);
    let buf = if nested {
        js_sys::Uint8Array::new_with_length(MOST as u32)
    } else {
        BUF.with(Clone::clone)
    };
    let filled = bytes.chunks_mut(MOST).all(|chunk| {
        let part = buf.subarray(0, chunk.len() as u32);
        let filled = get_random_values(&part).is_ok();
        if filled {
            part.copy_to(chunk);
        }
        filled
    });
    IN_USE.set(nested);
    filled
}

/// JS's own `Date`, for every timestamp form the core does not settle itself.
pub(super) struct JsDates;

impl DateParser for JsDates {
    fn parse(&self, s: &str) -> f64 {
        Date::parse(s)
    }
    fn parse_json(&self, raw: &str) -> f64 {
        // `new Date` of an array or object throws where its string cannot be
        // made (`{"toString":1}`, arrays nested too deep to join): NaN, as for
        // an entry array's objects, rather than an exception through wasm.
        JSON::parse(raw).map_or(f64::NAN, |v| super::js::time_of(&v).unwrap_or(f64::NAN))
    }
}

/// JS's own `Array.prototype.sort`, for sibling lists the core cannot order alone.
pub(super) struct JsSort;

impl SiblingSort for JsSort {
    fn sort(&self, items: &mut [usize], times: &[f64]) {
        // JS sorts positions in `items`, with their times copied: copying
        // every entry's time for each list made many long lists quadratic.
        let array: Array = (0..items.len()).map(|k| JsValue::from(k as u32)).collect();
        let times: Vec<f64> = items
            .iter()
            .map(|&i| times.get(i).copied().unwrap_or(f64::NAN))
            .collect();
        let picked = items.to_vec();
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
                    if let Some(&i) = v.as_f64().and_then(|k| picked.get(k as usize)) {
                        *slot = i;
                    }
                }
            }
        }
    }
}

/// A time zone as JS's `Intl` (or, for none, `Date`) knows it. Offsets are
/// asked once per quarter hour: zones change theirs only on quarter hours.
pub(super) struct JsZone {
    name: JsValue,
    /// Both maps hash with the core's `IdHash`: std's default hasher would
    /// link SipHash for them.
    known: std::cell::RefCell<std::collections::HashMap<i64, f64, IdHash>>,
    /// Per UTC day: its offset, when the day starts and ends with the same
    /// one (no zone changes its offset twice in a day); NaN when it changes.
    days: std::cell::RefCell<std::collections::HashMap<i64, f64, IdHash>>,
}

impl JsZone {
    /// The zone named `name` (`undefined`: the local zone); a RangeError of
    /// `api` for a name `Intl` does not know.
    pub fn new(api: Api, name: JsValue) -> Result<JsZone, JsValue> {
        if !name.is_undefined() {
            let shown = api.string("options.timeZone", &name)?;
            super::js::zone_offset(&name, 0.0).map_err(|_| {
                api.range_error(format_args!(
                    "options.timeZone must be a time zone such as \"Europe/Paris\" or \"UTC\", got \"{shown}\""
                ))
            })?;
        }
        Ok(JsZone {
            name,
            known: Default::default(),
            days: Default::default(),
        })
    }
}

impl JsZone {
    fn at(&self, utc_ms: f64) -> f64 {
        super::js::zone_offset(&self.name, utc_ms).unwrap_or(0.0)
    }
}

impl Zone for JsZone {
    fn offset_minutes(&self, utc_ms: f64) -> f64 {
        let day = (utc_ms / 86_400_000.0).floor() as i64;
        let whole = *self.days.borrow_mut().entry(day).or_insert_with(|| {
            let start = day as f64 * 86_400_000.0;
            let first = self.at(start);
            if first == self.at(start + 86_400_000.0 - 900_000.0) {
                first
            } else {
                f64::NAN
            }
        });
        if !whole.is_nan() {
            return whole;
        }
        let quarter = (utc_ms / 900_000.0).floor() as i64;
        if let Some(&m) = self.known.borrow().get(&quarter) {
            return m;
        }
        let m = self.at(quarter as f64 * 900_000.0);
        self.known.borrow_mut().insert(quarter, m);
        m
    }
}

/// The clock: now, as the ISO text pi writes in timestamps. `Date.now()`
/// written here (a `Date` and its `toISOString` were a tenth of an append).
pub(super) fn now_iso() -> String {
    let now = Date::now();
    crate::time::iso_string(now).unwrap_or_else(|| Date::new(&now.into()).to_iso_string().into())
}

/// A new session id (a UUID v7 from the clock and the crypto source).
pub(super) fn new_session_id(api: Api) -> Result<String, JsValue> {
    ids::uuid_v7(Date::now() as u64).map_err(|e| api.error(e))
}

/// A JSONL text's entries, migrated in memory as pi does when opening a file:
/// a current file's read in the one pass that keeps nothing else.
pub(super) fn open_entries(api: Api, text: String) -> Result<Entries, JsValue> {
    // The first line tells a current file (most are) without reading the rest;
    // an old one of an unusual shape is read whole as a Document.
    let first = text.split('\n').next().unwrap_or("");
    if !migrate::first_line_is_current_header(first.trim_matches(crate::scan::is_js_space)) {
        // An old file of the usual shape is migrated in one pass over its
        // lines that reads the entries as they come out: no Document, edits
        // or second read.
        let one_pass = Entries::migrated_in_one_pass(&text, &mut ids::random_word, &JsDates)
            .map_err(|e| api.no_random(e))?;
        return match one_pass {
            Some(entries) => Ok(entries),
            None => open_text(api, text).map(Entries::from),
        };
    }
    match Entries::read(text, &JsDates) {
        Ok(entries) => Ok(entries),
        Err(text) => open_text(api, text).map(Entries::from),
    }
}

/// A JSONL text parsed and migrated in memory, as pi does when opening a file.
pub(super) fn open_text(api: Api, text: String) -> Result<Document, JsValue> {
    Document::parse_with(text, &JsDates)
        .try_migrated(&JsDates, &mut ids::random_id)
        .map_err(|e| api.no_random(e))
}

/// The index of a byte source, read a piece at a time.
pub(super) fn index_of(api: Api, source: &ByteSource) -> Result<Index, JsValue> {
    index_with_preview(api, source, None, None).map(|(index, _, _)| index)
}

/// [`index_of`], with each entry's preview of `fields`: a JS array, entry
/// `i`'s at `i`; and with `picked`, each entry's [`Picked`] preview as a JS
/// string, or what the function with it makes of it (undefined if it is not
/// picked), entry `i`'s at `i`. The previews cross
/// as texts of about 4 MiB, each parsed (or split) as it is complete, so the
/// module holds one at a time.
pub(super) fn index_with_preview(
    api: Api,
    source: &ByteSource,
    fields: Option<&Fields>,
    picked: Option<&(Picked, JsValue)>,
) -> Result<(Index, Option<Array>, Option<Array>), JsValue> {
    const PART: usize = 4 << 20;
    let kept = fields.map(|_| Array::new());
    let lines = picked.map(|_| Array::new());
    let mut failed = None;
    let mut read = |from, to, buf: &mut Vec<u8>| source.read(from, to, buf);
    let mut emit = |part: Part| {
        if failed.is_some() {
            return;
        }
        let pushed = match (&part, &kept, &lines) {
            (Part::Previews(p), Some(kept), _) => super::js::push_previews(kept, p),
            (Part::Picked(p), _, Some(lines)) => {
                super::js::push_lines(lines, p, picked.map_or(&JsValue::UNDEFINED, |(_, f)| f))
            }
            _ => Ok(()),
        };
        if let Err(e) = pushed {
            failed = Some(e);
        }
    };
    let wanted = Wanted {
        fields,
        picked: picked.map(|(p, _)| p),
        part: PART,
    };
    let index = Index::read_with_preview_to(
        source.size,
        source.piece,
        &mut read,
        &JsDates,
        &wanted,
        &mut emit,
    )
    .map_err(|e| index_error(api, source, e))?;
    match failed {
        Some(e) => Err(e),
        None => Ok((index, kept, lines)),
    }
}

/// An index's error as a JS error naming the source.
pub(super) fn index_error(api: Api, source: &ByteSource, e: IndexError<JsValue>) -> JsValue {
    match e {
        IndexError::Read(e) => e,
        IndexError::LineTooLong { line } => api.range_error(format_args!(
            "{}: line {line} is longer than 4 GiB, more than any JS engine parses",
            source.name
        )),
        IndexError::PathTooLarge { bytes } => api.range_error(format_args!(
            "{}: the entries on the path to this leaf are {bytes} bytes, more than a context may read (1 GiB, or options.maxBytes); nothing was read",
            source.name
        )),
    }
}
