//! What the core asks of the host, answered by JS: dates as `Date` reads them,
//! sibling order as `Array.prototype.sort` gives it, the clock, and random ids
//! from the crypto source.

use std::cell::RefCell;
use std::collections::HashSet;

use js_sys::{Array, Date, Function, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::Api;
use crate::session::{self, Document};
use crate::time::DateParser;
use crate::tree::SiblingSort;

/// JS's own `Date`, for every timestamp form the core does not settle itself.
pub(super) struct JsDates;

impl DateParser for JsDates {
    fn parse(&self, s: &str) -> f64 {
        Date::parse(s)
    }
    fn parse_json(&self, raw: &str) -> f64 {
        JSON::parse(raw).map_or(f64::NAN, |v| Date::new(&v).get_time())
    }
}

/// JS's own `Array.prototype.sort`, for sibling lists the core cannot order alone.
pub(super) struct JsSort;

impl SiblingSort for JsSort {
    fn sort(&self, items: &mut [usize], times: &[f64]) {
        let array: Array = items.iter().map(|&i| JsValue::from(i as u32)).collect();
        let times = times.to_vec();
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
                    *slot = v.as_f64().map_or(*slot, |i| i as usize);
                }
            }
        }
    }
}

/// The clock: now, as the ISO text pi writes in timestamps.
pub(super) fn now_iso() -> String {
    String::from(Date::new_0().to_iso_string())
}

/// A new session id (a UUID v7 from the clock and the crypto source).
pub(super) fn new_session_id(api: Api) -> Result<String, JsValue> {
    session::uuid_v7(Date::now() as u64).map_err(|e| api.error(e))
}

/// Random ids for a migration. The core's id sources cannot fail, so this one
/// remembers the first failure of the crypto source, for [`Ids::check`] to
/// throw once the core is done.
pub(super) struct Ids {
    failure: RefCell<Option<getrandom::Error>>,
}

impl Ids {
    pub fn new() -> Ids {
        Ids {
            failure: RefCell::new(None),
        }
    }

    fn fail(&self, e: getrandom::Error) {
        self.failure.borrow_mut().get_or_insert(e);
    }

    /// A new id not in `taken` (empty after a failure).
    pub fn source(&self) -> impl FnMut(&HashSet<String>) -> String + '_ {
        move |taken| {
            session::random_id(taken).unwrap_or_else(|e| {
                self.fail(e);
                String::new()
            })
        }
    }

    /// Four random bytes (zeros after a failure).
    pub fn word(&self) -> [u8; 4] {
        session::random_word().unwrap_or_else(|e| {
            self.fail(e);
            [0; 4]
        })
    }

    /// The first failure, if any, as `api`'s error.
    pub fn check(self, api: Api) -> Result<(), JsValue> {
        match self.failure.into_inner() {
            Some(e) => Err(api.no_random(e)),
            None => Ok(()),
        }
    }
}

/// A JSONL text parsed and migrated in memory, as pi does when opening a file.
pub(super) fn open_text(api: Api, text: String) -> Result<Document, JsValue> {
    let ids = Ids::new();
    let doc = Document::parse_with(text, &JsDates).migrated(&JsDates, &mut ids.source());
    ids.check(api)?;
    Ok(doc)
}
