//! The `Session` class: pi's `SessionManager` without the file system.

use crate::json::Put;
use std::borrow::Cow;

use js_sys::{Array, JsString, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::context::{context_from_objects, message_indices, projection_from_objects};
use super::convert::{entries_jsonl, get, id_arg, lookup_of, parse_json, stringify, stringify_in};
use super::error::Api;
use super::host::{new_session_id, now_iso, JsDates, JsSort};
use super::inspect::inspect_session;
use super::js::{is_bytes, pick, unset_of, well_formed};
use super::read::{bytes_of, string_text, Accept, ByteSource, GivenLines, Reader, Source};
use super::tree::tree_nodes;
use crate::context::{Emit, ModelFrom, Plan};
use crate::entry::Key;
use crate::ids;
use crate::parse;
use crate::session::{self, SessionError};
use crate::time::DateParser;
use js_sys::Date;

/// `Date.now()` `ms` as pi's timestamps write it (`toISOString`).
fn now_iso_at(ms: f64) -> String {
    crate::time::iso_string(ms).unwrap_or_else(|| Date::new(&ms.into()).to_iso_string().into())
}

/// The largest buffer an append's JSON crosses into that the session
/// keeps between appends (see [`JsSession::append_message`]).
const KEPT_JSON: usize = 1 << 20;

/// `JSON.stringify` of each argument (see [`stringify`]), given with its
/// name for the error if one cannot be written.
fn stringify_all<const N: usize>(
    api: Api,
    args: [(&str, JsValue); N],
) -> Result<[Option<String>; N], JsValue> {
    let mut out = [const { None }; N];
    for (slot, (name, value)) in out.iter_mut().zip(&args) {
        *slot = stringify(value).map_err(|e| api.unwritable(name, e))?;
    }
    Ok(out)
}

/// A new session's header line; `cwd` and `parent_session` as
/// `JSON.stringify` writes them (left out where it writes nothing).
fn header_line(id: &str, cwd: &JsValue, parent_session: &JsValue) -> Result<String, JsValue> {
    let now = now_iso();
    let (cwd, parent_session) = (stringify(cwd)?, stringify(parent_session)?);
    Ok(session::header_line(
        id,
        &now,
        cwd.as_deref(),
        parent_session.as_deref(),
    ))
}

/// `options.id` checked as pi checks it: `undefined` or `null` draws a new
/// id, a string must be one pi accepts, anything else is refused (ids are
/// strings; pi would store some of those values as they are).
fn session_id(api: Api, v: &JsValue) -> Result<String, JsValue> {
    if v.is_undefined() || v.is_null() {
        return new_session_id(api);
    }
    let id = api.string("options.id", v)?;
    if !ids::valid_session_id(&id) {
        return Err(api.session(SessionError::InvalidSessionId));
    }
    Ok(id)
}

/// Whether `replacement` is one `appendContextEdit` takes: `null`, or an
/// object with a `content` (own or inherited) that is a string or an array.
/// Gives the JSON text of a string content (which the core may wrap).
fn replacement_content(replacement: &JsValue) -> Result<Option<String>, JsValue> {
    let refused = || Api("appendContextEdit").session(SessionError::InvalidReplacement);
    if replacement.is_null() {
        return Ok(None);
    }
    if !replacement.is_object() || !Reflect::has(replacement, &"content".into())? {
        return Err(refused());
    }
    let content = Reflect::get(replacement, &"content".into())?;
    if content.is_string() {
        stringify(&content)
    } else if Array::is_array(&content) {
        Ok(None)
    } else {
        Err(refused())
    }
}

/// An open session that the host stores: pi's `SessionManager` without the
/// file system. See the README for the whole API.
#[wasm_bindgen(js_name = Session, skip_typescript)]
pub struct JsSession {
    inner: session::Session,
    /// Entry objects already handed out, by entry index: every call returns
    /// the same objects (as pi's manager does), and a context rebuild only
    /// parses what no earlier call did.
    objects: Array,
    /// The `message` of each message entry handed out in a context.
    messages: Array,
    /// The byte source it was opened from, which holds the text of the
    /// entries read from it (see [`session::Session::open_source`]).
    source: Option<ByteSource>,
    /// What `takePendingView` hands out, kept for the next call to reuse.
    out: String,
    /// The time (`Date.now()`) of the last append and its ISO text.
    clock: (f64, String),
    /// The buffer a message's JSON crosses into (see [`stringify_in`]).
    json: Vec<u8>,
    /// The lines strings brought in with lone surrogates, which the core
    /// has escaped: the text comes back with them as given.
    given: GivenLines,
    /// The unfinished line the core holds, as the strings gave it, when it
    /// has a lone surrogate.
    open_line: Option<JsString>,
    /// A high surrogate a string chunk ended with, held back for the low
    /// one the next chunk may start with (not yet in the core).
    held: Option<JsString>,
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    /// Not for direct use: `Session.open` and `Session.create` make sessions.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<JsSession, JsValue> {
        Err(Api("Session").type_error("use Session.open(source) or Session.create({ cwd })"))
    }

    /// Parses, migrates in memory and indexes a session (JSONL text or
    /// bytes, or entries). A current session from a byte source is read a
    /// piece at a time and its entries stay there, read by range when asked.
    pub fn open(source: JsValue, options: JsValue) -> Result<JsSession, JsValue> {
        let api = Api("Session.open");
        let reader = Reader::new(api, &options)?;
        if let Some(pieces) = reader.pieces(&source)? {
            let opened = session::Session::open_source(
                pieces.size,
                pieces.piece,
                &mut |from, to, buf| pieces.read(from, to, buf),
                &JsDates,
            )?;
            if let Some(inner) = opened {
                let mut session = JsSession::of(inner);
                // Read again by the session's methods, long after the open.
                let mut pieces = pieces;
                pieces.api = Api("Session");
                session.source = Some(pieces);
                return Ok(session);
            }
        }
        let inner = match reader.bytes(&source)? {
            // Bytes stay bytes up to the open: an unfinished last line may
            // end inside a character.
            Some(bytes) => session::Session::open_bytes(bytes, &JsDates),
            None => match reader.source(&source, Accept::ANY)?.source {
                Source::Text(text) => session::Session::open(text, &JsDates),
                Source::Entries(array) => {
                    session::Session::open(entries_jsonl(api, &array)?, &JsDates)
                }
            },
        };
        let inner = inner.map_err(|e| api.session(e))?;
        let mut session = JsSession::of(inner);
        if let Some(s) = source.dyn_ref::<JsString>().filter(|s| !well_formed(s)) {
            // The last piece is a line unless the core holds it unfinished.
            let open = !session.inner.open_line().is_empty();
            let last = session.given.record(s, 0, !open);
            session.open_line = (open && !well_formed(&last)).then_some(last);
        }
        Ok(session)
    }

    /// [`JsSession::open`] of bytes that `fill(memory, at, length)` writes
    /// straight into the module's memory: into `length` bytes at `at` of
    /// `memory.buffer` (`size + 2`: room to see that a file grew past `size`,
    /// and for a newline). `fill` returns how many it wrote, or a negative
    /// number to open nothing (`undefined` comes back). The file manager
    /// reads a file this way: a 100 MB session read into a `Buffer` and
    /// copied in cost a fifth of its open (the `Buffer`'s fresh pages, the
    /// copy, its collection). `fill` makes its view of `memory.buffer`
    /// itself: one made here could be detached before `fill` runs (handing
    /// it over may allocate, and so grow the memory). `fill` must not call
    /// into the module. Not part of the documented API.
    #[wasm_bindgen(js_name = openFilled, skip_typescript)]
    pub fn open_filled(size: f64, fill: &js_sys::Function) -> Result<Option<JsSession>, JsValue> {
        let api = Api("Session.open");
        let reader = Reader::new(api, &JsValue::UNDEFINED)?;
        if !(size >= 0.0 && size.fract() == 0.0) {
            return Err(api.must_be("size", "a number of bytes", &JsValue::from(size)));
        }
        reader.check_size(size)?;
        let room = size as usize + 2;
        let mut bytes: Vec<u8> = Vec::with_capacity(room);
        let filled = fill.call3(
            &JsValue::UNDEFINED,
            &wasm_bindgen::memory(),
            &JsValue::from(bytes.as_mut_ptr() as usize as f64),
            &JsValue::from(room as f64),
        )?;
        let n = filled
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n <= room as f64)
            .ok_or_else(|| api.must_be("fill's result", "a number of bytes", &filled))?;
        if n < 0.0 {
            return Ok(None);
        }
        reader.check_size(n)?;
        // SAFETY: `fill` wrote the first `n` bytes of the capacity, which
        // nothing else uses.
        unsafe { bytes.set_len(n as usize) };
        let inner = session::Session::open_bytes(bytes, &JsDates).map_err(|e| api.session(e))?;
        Ok(Some(JsSession::of(inner)))
    }

    /// A new, empty session: `{ cwd, id?, parentSession? }`.
    pub fn create(options: JsValue) -> Result<JsSession, JsValue> {
        let api = Api("Session.create");
        if !options.is_object() {
            return Err(api.must_be("options", "an object with a cwd", &options));
        }
        let cwd = get(&options, "cwd");
        api.string("options.cwd", &cwd)?;
        let id = session_id(api, &get(&options, "id"))?;
        let header = header_line(&id, &cwd, &get(&options, "parentSession"))?;
        Ok(JsSession::of(session::Session::create(&header, &JsDates)))
    }

    /// The header entry, or `null` if the file has none.
    #[wasm_bindgen(getter)]
    pub fn header(&self) -> Result<JsValue, JsValue> {
        match self.inner.header() {
            Some(i) => JSON::parse(&self.json_of(i)?),
            None => Ok(JsValue::NULL),
        }
    }

    /// The current leaf's id, or `null` before the first entry.
    #[wasm_bindgen(getter, js_name = leafId)]
    pub fn leaf_id(&self) -> Result<JsValue, JsValue> {
        match self.inner.leaf() {
            Some(i) => self.field(i, "id"),
            None => Ok(JsValue::NULL),
        }
    }

    /// Whether opening migrated the text (store `toJsonl()` to keep the upgrade).
    #[wasm_bindgen(getter)]
    pub fn migrated(&self) -> bool {
        self.inner.migrated()
    }

    #[wasm_bindgen(js_name = getEntry)]
    pub fn get_entry(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match lookup_of(&id).and_then(|id| self.inner.find(&id)) {
            Some(i) => self.entry(i),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    #[wasm_bindgen(js_name = getLeafEntry)]
    pub fn get_leaf_entry(&self) -> Result<JsValue, JsValue> {
        match self.inner.leaf_entry() {
            Some(i) => self.entry(i),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The entries whose parent is `id`.
    #[wasm_bindgen(js_name = getChildren)]
    pub fn get_children(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match lookup_of(&id) {
            Some(id) => self.entries(self.inner.children_of(&id)),
            None => Ok(Array::new().into()),
        }
    }

    #[wasm_bindgen(js_name = getLabel)]
    pub fn get_label(&self, id: JsValue) -> Result<JsValue, JsValue> {
        match lookup_of(&id).and_then(|id| self.inner.label_of(&id)) {
            Some(l) => self.field(l, "label"),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The entries from the root to `fromId` (default: the leaf).
    #[wasm_bindgen(js_name = getBranch)]
    pub fn get_branch(&self, from_id: JsValue) -> Result<JsValue, JsValue> {
        let start = if from_id.is_undefined() || from_id.is_null() {
            self.inner.leaf_entry()
        } else {
            lookup_of(&from_id).and_then(|id| self.inner.branch_start(&id))
        };
        self.entries(self.inner.branch_path(start))
    }

    /// Every entry but the header, in file order.
    #[wasm_bindgen(js_name = getEntries)]
    pub fn get_entries(&self) -> Result<JsValue, JsValue> {
        let entries = self.inner.entries();
        self.entries((0..entries.len()).filter(|&i| !entries[i].is_header()))
    }

    #[wasm_bindgen(js_name = getTree)]
    pub fn get_tree(&self) -> Result<JsValue, JsValue> {
        let all: Array = self
            .entries(0..self.inner.entries().len())?
            .unchecked_into();
        tree_nodes(self.inner.entries(), &all, &self.inner.tree(&JsSort))
    }

    /// How many distinct ids the entries have (a repeated id counts once).
    #[wasm_bindgen(js_name = getEntryCount)]
    pub fn get_entry_count(&self) -> usize {
        self.inner.entry_count()
    }

    #[wasm_bindgen(js_name = getSessionName)]
    pub fn get_session_name(&mut self) -> Result<JsValue, JsValue> {
        self.load(self.inner.name_entry())?;
        self.inner
            .name()
            .map_or(Ok(JsValue::UNDEFINED), |n| js_sys::JSON::parse(&n))
    }

    /// The context at `leafId` (default: the session's leaf; `null`: empty).
    #[wasm_bindgen(js_name = buildSessionContext)]
    pub fn build_session_context(&self, leaf_id: JsValue) -> Result<JsValue, JsValue> {
        let plan = self.plan(Api("buildSessionContext"), &leaf_id)?;
        self.prefetch(&plan)?;
        let messages = self.plan_messages(&plan)?;
        let object = |i: usize| self.entry(i).unwrap_or(JsValue::UNDEFINED);
        context_from_objects(&object, messages, self.inner.entries(), &plan)
    }

    /// The compaction-aware entries at `leafId` (default: the session's
    /// leaf; `null`: none), as `buildContextEntries` gives them.
    #[wasm_bindgen(js_name = buildContextEntries)]
    pub fn build_context_entries(&self, leaf_id: JsValue) -> Result<JsValue, JsValue> {
        let plan = self.plan(Api("buildContextEntries"), &leaf_id)?;
        self.entries(plan.context.iter().copied())
    }

    /// Each context entry with its messages at `leafId` (default: the
    /// session's leaf; `null`: none), as `buildSessionProjection` gives them.
    #[wasm_bindgen(js_name = buildSessionProjection)]
    pub fn build_session_projection(&self, leaf_id: JsValue) -> Result<JsValue, JsValue> {
        let plan = self.plan(Api("buildSessionProjection"), &leaf_id)?;
        self.prefetch(&plan)?;
        let messages = self.plan_messages(&plan)?;
        // One batch for the entries not parsed yet.
        self.entries(plan.context.iter().copied())?;
        let object = |i: usize| self.entry(i).unwrap_or(JsValue::UNDEFINED);
        projection_from_objects(&object, messages, self.inner.entries(), &plan)
    }

    /// The prompt and tools in force at `leafId` (default: the session's
    /// leaf; `null`: none), as `currentSystemMessage` gives them.
    #[wasm_bindgen(js_name = currentSystemMessage)]
    pub fn current_system_message(&mut self, leaf_id: JsValue) -> Result<JsValue, JsValue> {
        let api = Api("currentSystemMessage");
        let leaf = leaf_arg(api, &leaf_id)?;
        self.load_system(leaf.as_ref().map(|l| l.as_ref()))?;
        match self.inner.current_system(leaf.as_ref().map(|l| l.as_ref())) {
            Some(json) => parse_json(json)
                .map_err(|_| api.error("the system message could not be read back as JSON")),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// What the session cost, its path ending at `leafId` (default: the
    /// session's leaf; `null`: none), as `sessionUsage` reports it
    /// (`options.records: false` leaves the records out).
    pub fn usage(&mut self, leaf_id: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let api = Api("usage");
        self.load(0..self.inner.entries().len())?;
        let entries = self.inner.entries();
        let leaf = super::usage::leaf_arg(api, &leaf_id, entries, Some(self.inner.leaf()))?;
        let records = super::usage::records_option(api, &options)?;
        let report = self.inner.usage(leaf, &JsSort);
        parse_json(super::usage::report_json(&report, entries, records))
    }

    /// `inspectSession` of the session as it stands.
    pub fn diagnostics(&self) -> Result<JsValue, JsValue> {
        inspect_session(self.text_as_given()?, JsValue::UNDEFINED)
    }

    #[wasm_bindgen(js_name = appendMessage)]
    pub fn append_message(&mut self, message: JsValue) -> Result<JsValue, JsValue> {
        // The most frequent append: its text crosses into the session's own
        // buffer (see `stringify_in`).
        let mut buf = std::mem::take(&mut self.json);
        let api = Api("appendMessage");
        let result = match stringify_in(&message, &mut buf) {
            Ok(message) => self.append(api, |s, now, dates| s.append_message(message, now, dates)),
            Err(e) => Err(api.unwritable(&"the message", e)),
        };
        // A buffer grown by a very large message is not kept.
        if buf.capacity() <= KEPT_JSON {
            self.json = buf;
        }
        result
    }

    #[wasm_bindgen(js_name = appendThinkingLevelChange)]
    pub fn append_thinking_level_change(&mut self, level: JsValue) -> Result<JsValue, JsValue> {
        let api = Api("appendThinkingLevelChange");
        let [level] = stringify_all(api, [("thinkingLevel", level)])?;
        self.append(api, |s, now, dates| {
            s.append_thinking_level_change(level.as_deref(), now, dates)
        })
    }

    #[wasm_bindgen(js_name = appendModelChange)]
    pub fn append_model_change(
        &mut self,
        provider: JsValue,
        model_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("appendModelChange");
        let [p, m] = stringify_all(api, [("provider", provider), ("modelId", model_id)])?;
        self.append(api, |s, now, dates| {
            s.append_model_change(p.as_deref(), m.as_deref(), now, dates)
        })
    }

    /// `firstKeptEntryId` `null` or `undefined`: the compaction's own id
    /// (nothing before it is kept).
    #[wasm_bindgen(js_name = appendCompaction)]
    pub fn append_compaction(
        &mut self,
        summary: JsValue,
        first_kept_entry_id: JsValue,
        tokens_before: JsValue,
        details: JsValue,
        from_hook: JsValue,
        usage: JsValue,
    ) -> Result<JsValue, JsValue> {
        let own = first_kept_entry_id.is_null() || first_kept_entry_id.is_undefined();
        let api = Api("appendCompaction");
        let v = stringify_all(
            api,
            [
                ("summary", summary),
                ("firstKeptEntryId", first_kept_entry_id),
                ("tokensBefore", tokens_before),
                ("details", details),
                ("fromHook", from_hook),
                ("usage", usage),
            ],
        )?;
        let kept = (!own).then(|| v[1].as_deref());
        // The compaction carries the system message in force at the leaf.
        self.load_system(None)?;
        self.append(api, |s, now, dates| {
            s.append_compaction(
                v[0].as_deref(),
                kept,
                v[2].as_deref(),
                v[3].as_deref(),
                v[4].as_deref(),
                v[5].as_deref(),
                now,
                dates,
            )
        })
    }

    /// Records usage outside the context; returns the new entry itself (pi's
    /// only append that does), not its id.
    #[wasm_bindgen(js_name = appendUsage)]
    pub fn append_usage(
        &mut self,
        kind: JsValue,
        provider: JsValue,
        model: JsValue,
        usage: JsValue,
        note: JsValue,
    ) -> Result<JsValue, JsValue> {
        // pi writes `note` only when it is truthy.
        let note = if note.is_truthy() {
            note
        } else {
            JsValue::UNDEFINED
        };
        let api = Api("appendUsage");
        let v = stringify_all(
            api,
            [
                ("kind", kind),
                ("provider", provider),
                ("model", model),
                ("usage", usage),
                ("note", note),
            ],
        )?;
        self.append(api, |s, now, dates| {
            s.append_usage(
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                v[3].as_deref(),
                v[4].as_deref(),
                now,
                dates,
            )
        })?;
        self.get_leaf_entry()
    }

    /// Replaces (`{ content }`) or omits (`null`) an entry's content in the
    /// context built on this branch; the entry itself is never changed.
    #[wasm_bindgen(js_name = appendContextEdit)]
    pub fn append_context_edit(
        &mut self,
        target_id: JsValue,
        replacement: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("appendContextEdit");
        // As pi: the replacement is checked before the target.
        let string_content = replacement_content(&replacement)?;
        let target = id_arg(api, "targetId", &target_id)?;
        let [replacement] = stringify_all(api, [("replacement", replacement)])?;
        self.append(api, |s, now, dates| {
            s.append_context_edit(
                &target,
                replacement.as_deref(),
                string_content.as_deref(),
                now,
                dates,
            )
        })
    }

    #[wasm_bindgen(js_name = appendCustomEntry)]
    pub fn append_custom_entry(
        &mut self,
        custom_type: JsValue,
        data: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("appendCustomEntry");
        let [t, d] = stringify_all(api, [("customType", custom_type), ("data", data)])?;
        self.append(api, |s, now, dates| {
            s.append_custom_entry(t.as_deref(), d.as_deref(), now, dates)
        })
    }

    #[wasm_bindgen(js_name = appendSessionInfo)]
    pub fn append_session_info(&mut self, name: JsValue) -> Result<JsValue, JsValue> {
        let api = Api("appendSessionInfo");
        let text = api.string("name", &name)?;
        let js: &JsString = name.unchecked_ref();
        if well_formed(js) {
            return self.append(api, |s, now, dates| {
                s.append_session_info(&text, now, dates)
            });
        }
        // A lone surrogate, which a Rust string cannot hold: folded and
        // trimmed by JS, then kept as its `\u` escape (as pi writes it).
        let folded = js
            .replace_by_pattern(&js_sys::RegExp::new("[\\r\\n]+", "g"), " ")
            .trim();
        let literal = JSON::stringify(&folded)?.as_string().unwrap_or_default();
        self.append(api, |s, now, dates| {
            s.append_session_info_literal(&literal, now, dates)
        })
    }

    #[wasm_bindgen(js_name = appendCustomMessageEntry)]
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: JsValue,
        content: JsValue,
        display: JsValue,
        details: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("appendCustomMessageEntry");
        let v = stringify_all(
            api,
            [
                ("customType", custom_type),
                ("content", content),
                ("display", display),
                ("details", details),
            ],
        )?;
        self.append(api, |s, now, dates| {
            s.append_custom_message_entry(
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                v[3].as_deref(),
                now,
                dates,
            )
        })
    }

    /// Sets (`label` a non-empty string) or clears (`undefined` or `""`) a label.
    #[wasm_bindgen(js_name = appendLabelChange)]
    pub fn append_label_change(
        &mut self,
        target_id: JsValue,
        label: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("appendLabelChange");
        let target = id_arg(api, "targetId", &target_id)?;
        self.load(self.inner.find(&target))?;
        let [label] = stringify_all(api, [("label", label)])?;
        self.append(api, |s, now, dates| {
            s.append_label_change(&target, label.as_deref(), now, dates)
        })
    }

    /// Moves the leaf to `id`; the next append starts a branch there.
    pub fn branch(&mut self, id: JsValue) -> Result<(), JsValue> {
        let api = Api("branch");
        let id = id_arg(api, "id", &id)?;
        self.inner.branch(&id).map_err(|e| api.session(e))
    }

    /// Moves the leaf before the first entry; the next append is a new root.
    #[wasm_bindgen(js_name = resetLeaf)]
    pub fn reset_leaf(&mut self) {
        self.inner.reset_leaf();
    }

    /// Branches at `id` (or the root, for `null`) with a summary of the path
    /// left; its `fromId` is the leaf before the call.
    #[wasm_bindgen(js_name = branchWithSummary)]
    pub fn branch_with_summary(
        &mut self,
        id: JsValue,
        summary: JsValue,
        details: JsValue,
        from_hook: JsValue,
        usage: JsValue,
    ) -> Result<JsValue, JsValue> {
        let api = Api("branchWithSummary");
        let from = if id.is_null() {
            None
        } else {
            Some(id_arg(api, "id", &id)?)
        };
        let v = stringify_all(
            api,
            [
                ("summary", summary),
                ("details", details),
                ("fromHook", from_hook),
                ("usage", usage),
            ],
        )?;
        self.append(api, |s, now, dates| {
            s.branch_with_summary(
                from.as_ref(),
                v[0].as_deref(),
                v[1].as_deref(),
                v[2].as_deref(),
                v[3].as_deref(),
                now,
                dates,
            )
        })
    }

    /// Lines appended since the last call, for the host to store (a new
    /// session: none until it has a user or assistant message, then the
    /// header and everything held back).
    #[wasm_bindgen(js_name = takePendingLines)]
    pub fn take_pending_lines(&mut self) -> Array {
        self.inner
            .take_pending_lines()
            .into_iter()
            .map(JsValue::from)
            .collect()
    }

    /// The same lines as `takePendingLines`, as UTF-8 bytes, each ending in
    /// `\n`: what a host appends to its file, with no string made.
    #[wasm_bindgen(js_name = takePendingBytes)]
    pub fn take_pending_bytes(&mut self) -> Uint8Array {
        Uint8Array::from(self.inner.take_pending_text().as_bytes())
    }

    /// `takePendingBytes` for session-tree/node's manager, without a copy:
    /// a view of the session's own buffer in the module's memory, valid only
    /// until the next call into the module (which may reuse the buffer or
    /// grow the memory). Not part of the documented API.
    #[wasm_bindgen(js_name = takePendingView, skip_typescript)]
    pub fn take_pending_view(&mut self) -> Uint8Array {
        self.inner.take_pending_into(&mut self.out);
        // SAFETY: the view is read before anything else runs in the module
        // (the manager writes it to its file at once), so `out` is neither
        // changed nor freed and the memory does not grow while it is used.
        unsafe { Uint8Array::view(self.out.as_bytes()) }
    }

    /// The whole session as JSONL.
    #[wasm_bindgen(js_name = toJsonl)]
    pub fn to_jsonl(&self) -> Result<JsValue, JsValue> {
        self.text_as_given()
    }

    /// Ingests bytes another writer appended to the file; a chunk may end mid-line.
    #[wasm_bindgen(js_name = appendJsonl)]
    pub fn append_jsonl(&mut self, chunk: JsValue) -> Result<(), JsValue> {
        // Bytes stay bytes: a chunk may end inside a UTF-8 character.
        if let Some(s) = chunk.dyn_ref::<JsString>() {
            // And a string chunk inside a surrogate pair: a high surrogate
            // at its end waits for the next chunk.
            let mut s = match self.held.take() {
                Some(high) => high.concat(s),
                None => s.clone(),
            };
            let n = s.length();
            if n > 0 && (0xd800..0xdc00).contains(&(s.char_code_at(n - 1) as u32)) {
                self.held = Some(s.slice(n - 1, n));
                s = s.slice(0, n - 1);
            }
            self.append_string(&s);
            return Ok(());
        }
        if !is_bytes(&chunk)? {
            return Err(Api("appendJsonl").must_be("chunk", "a string or a Uint8Array", &chunk));
        }
        let bytes = bytes_of(chunk.unchecked_ref::<Uint8Array>());
        // What a string left waiting is a lone surrogate after all.
        if let Some(high) = self.held.take() {
            self.append_string(&high);
        }
        if self.open_line.is_some() {
            // The line as given goes on with these bytes (as text: a
            // character cut in two is no longer the line's, which then
            // comes back with its escapes).
            self.track(&JsString::from(parse::decode(&bytes).as_ref()));
        }
        self.inner.append_jsonl(&bytes, &JsDates);
        self.forget_retracted();
        Ok(())
    }

    /// The path to `leafId` as a new session's JSONL (pi's `createBranchedSession`).
    #[wasm_bindgen(js_name = createBranchedSession)]
    pub fn create_branched_session(
        &mut self,
        leaf_id: JsValue,
        options: JsValue,
    ) -> Result<String, JsValue> {
        let api = Api("createBranchedSession");
        // As pi: no leaf id (`undefined` or `null`) means the current leaf,
        // and an empty path is named by the argument.
        let nullish = leaf_id.is_undefined() || leaf_id.is_null();
        let not_found = || {
            let shown = if leaf_id.is_null() {
                "null"
            } else {
                "undefined"
            };
            api.session(SessionError::NotFound(shown.into()))
        };
        let leaf = match (nullish, self.inner.leaf()) {
            (true, Some(i)) => self.inner.entries()[i].id.clone(),
            (true, None) => return Err(not_found()),
            _ => id_arg(api, "leafId", &leaf_id)?,
        };
        let header = self.new_header(api, &options)?;
        // The copy is the path and the labels on it.
        let mut used = self.inner.branch_path(self.inner.find(&leaf));
        used.extend(self.inner.label_entries());
        self.load(used)?;
        self.inner
            .branched_jsonl(&leaf, &header)
            .map_err(|e| match e {
                SessionError::NotFound(_) if nullish => not_found(),
                e => api.session(e),
            })
    }

    /// Every entry under a new header (pi's `forkFrom`), as JSONL.
    #[wasm_bindgen(js_name = fork)]
    pub fn fork(&mut self, options: JsValue) -> Result<String, JsValue> {
        let header = self.new_header(Api("fork"), &options)?;
        self.load(0..self.inner.entries().len())?;
        Ok(self.inner.forked_jsonl(&header))
    }
}

/// A context method's `leafId`: `undefined` is the session's leaf (`None`),
/// `null` none (`Some(None)`), a string that entry.
fn leaf_arg(api: Api, leaf_id: &JsValue) -> Result<Option<Option<Key>>, JsValue> {
    Ok(if leaf_id.is_undefined() {
        None
    } else if leaf_id.is_null() {
        Some(None)
    } else {
        Some(Some(id_arg(api, "leafId", leaf_id)?))
    })
}

/// Not exported: caches and helpers of the methods above.
impl JsSession {
    /// The context plan at a context method's `leafId`.
    fn plan(&self, api: Api, leaf_id: &JsValue) -> Result<Plan, JsValue> {
        let leaf = leaf_arg(api, leaf_id)?;
        Ok(self.inner.context_plan(leaf.as_ref().map(|l| l.as_ref())))
    }

    /// The messages of `plan`'s `message` entries, from their own cache (so
    /// a rebuild touches no entry twice); the other slots are for
    /// [`messages_from_objects`](super::context) to fill.
    fn plan_messages(&self, plan: &Plan) -> Result<Array, JsValue> {
        for emit in &plan.messages {
            if let Emit::Message(i) = *emit {
                if self.messages.get(i as u32).is_undefined()
                    && !self.inner.entries()[i].is_header()
                {
                    self.messages.set(i as u32, get(&self.entry(i)?, "message"));
                }
            }
        }
        pick(&self.messages, &message_indices(plan), JsValue::UNDEFINED)
    }

    fn of(inner: session::Session) -> JsSession {
        JsSession {
            inner,
            objects: Array::new(),
            messages: Array::new(),
            source: None,
            out: String::new(),
            clock: (f64::NAN, String::new()),
            json: Vec::new(),
            given: GivenLines::default(),
            open_line: None,
            held: None,
        }
    }

    /// Appends a string chunk's text to the core, the lines with lone
    /// surrogates recorded first (see [`Self::track`]).
    fn append_string(&mut self, s: &JsString) {
        if self.open_line.is_some() || !well_formed(s) {
            self.track(s);
        }
        self.inner.append_jsonl(string_text(s).as_bytes(), &JsDates);
        self.forget_retracted();
    }

    /// Drops the objects cached for entries the core took back (a last
    /// line that is JSON only once trimmed, a line having come after it):
    /// their indexes are other entries' now.
    fn forget_retracted(&mut self) {
        if let Some(i) = self.inner.take_retracted() {
            for cache in [&self.objects, &self.messages] {
                if cache.length() > i as u32 {
                    cache.set_length(i as u32);
                }
            }
        }
    }

    /// Records the lines that `s`, text about to be appended to the core,
    /// ends or makes, as given: those with lone surrogates. (Not for a
    /// session read from a source, whose lines before are not counted.)
    fn track(&mut self, s: &JsString) {
        if self.source.is_some() {
            return;
        }
        let line = match self.open_line.take() {
            Some(line) => line,
            None => JsString::from(parse::decode(self.inner.open_line()).as_ref()),
        };
        let last = self
            .given
            .record(&line.concat(s), self.inner.line_count(), false);
        self.open_line = (!well_formed(&last)).then_some(last);
    }

    /// The whole session as JSONL, each line a string brought in as given.
    fn text_as_given(&self) -> Result<JsValue, JsValue> {
        let text = self.text()?;
        let out = self.given.restore(&text, self.open_line.as_ref());
        Ok(match &self.held {
            Some(high) => JsString::from(out).concat(high).into(),
            None => out,
        })
    }

    /// One append, given the host's clock and dates here rather than by each
    /// method; a core error becomes `api`'s.
    fn append(
        &mut self,
        api: Api,
        add: impl FnOnce(&mut session::Session, &str, &dyn DateParser) -> Result<String, SessionError>,
    ) -> Result<JsValue, JsValue> {
        // A new entry's parentId is the leaf's id as its line has it.
        self.load(self.inner.leaf())?;
        // The clock's text is written once per millisecond: appends often
        // come many to the millisecond.
        let ms = Date::now();
        if self.clock.0 != ms {
            self.clock = (ms, now_iso_at(ms));
        }
        let id = add(&mut self.inner, &self.clock.1, &JsDates).map_err(|e| api.session(e))?;
        // The id made a string by JS from two words: the glue's decoding of
        // a returned string (a view, a TextDecoder call, the buffer freed)
        // cost several times more.
        Ok(match id.as_bytes() {
            &[a, b, c, d, e, f, g, h] if id.is_ascii() => super::js::id_text(
                u32::from_le_bytes([a, b, c, d]),
                u32::from_le_bytes([e, f, g, h]),
            ),
            _ => JsValue::from_str(&id),
        })
    }

    /// Entry `i`'s JSON text: in the session, or read from the source.
    fn json_of(&self, i: usize) -> Result<Cow<'_, str>, JsValue> {
        match (self.inner.unloaded(i), &self.source) {
            (Some(range), Some(source)) => {
                Ok(Cow::Owned(source.entry_text(range.start, range.end)?))
            }
            _ => Ok(Cow::Borrowed(self.inner.entry_json(i))),
        }
    }

    /// Brings the text of `list`'s entries from the source into the session,
    /// for the core algorithms that read their fields.
    fn load(&mut self, list: impl IntoIterator<Item = usize>) -> Result<(), JsValue> {
        if self.source.is_none() {
            return Ok(());
        }
        for i in self.inner.unloaded_of(list) {
            let text = self.json_of(i)?.into_owned();
            self.inner.load(i, &text);
        }
        Ok(())
    }

    /// [`Self::load`] of the entries whose messages make the system message at `leaf`.
    fn load_system(&mut self, leaf: Option<Option<&Key>>) -> Result<(), JsValue> {
        if self.source.is_some() {
            let plan = self.inner.context_plan(leaf);
            self.load(plan.messages.iter().map(Emit::entry))?;
        }
        Ok(())
    }

    /// Reads every entry a context at `plan` reads in one batch, so that a
    /// source that fails is an error, not a missing entry.
    fn prefetch(&self, plan: &Plan) -> Result<(), JsValue> {
        if self.source.is_some() {
            let mut list = plan.context.clone();
            for m in &plan.messages {
                list.push(m.entry());
                if let Emit::EditedMessage { edit, .. } | Emit::EditedCustom { edit, .. } = *m {
                    list.push(edit);
                }
            }
            list.extend(plan.thinking_level);
            if let Some(ModelFrom::ModelChange(i) | ModelFrom::Assistant(i)) = plan.model {
                list.push(i);
            }
            let mut list = crate::order::sorted_by_key(list, |&i| i as u64);
            list.dedup();
            self.entries(list)?;
        }
        Ok(())
    }

    /// The whole session as JSONL; from a source, its text read whole.
    fn text(&self) -> Result<String, JsValue> {
        let (Some(source), Some((base, after))) = (&self.source, self.inner.source_text()) else {
            return Ok(self.inner.text().into_owned());
        };
        let mut bytes = Vec::new();
        let mut at = 0;
        while at < base {
            let to = base.min(at + source.piece as u64);
            source.read(at, to, &mut bytes)?;
            at = to;
        }
        let mut text = parse::decode(&bytes).into_owned();
        text.push_str(&after);
        Ok(text)
    }

    #[inline(never)]
    fn entry(&self, i: usize) -> Result<JsValue, JsValue> {
        let cached = self.objects.get(i as u32);
        if !cached.is_undefined() {
            return Ok(cached);
        }
        let parsed = JSON::parse(&self.json_of(i)?)?;
        self.objects.set(i as u32, parsed.clone());
        Ok(parsed)
    }

    fn field(&self, i: usize, name: &str) -> Result<JsValue, JsValue> {
        Ok(get(&self.entry(i)?, name))
    }

    fn entries(&self, list: impl IntoIterator<Item = usize>) -> Result<JsValue, JsValue> {
        self.entries_in(list.into_iter().collect())
    }

    /// [`Self::entries`], one copy for every kind of list (a generic body
    /// was compiled once per caller's iterator).
    fn entries_in(&self, list: Vec<usize>) -> Result<JsValue, JsValue> {
        // Two crossings for the whole list, not two per entry: which are not
        // cached yet (parsed in one batch), then the objects.
        let indices: Vec<u32> = list.iter().map(|&i| i as u32).collect();
        let missing = unset_of(&self.objects, &indices);
        if missing.len() > 1 {
            // Batches of at most 64 MiB of text: a session read from a source
            // may hold more than one JS string can.
            let mut at = 0;
            while at < missing.len() {
                let mut json = String::from("[");
                let mut n = 0;
                while at + n < missing.len() && (n == 0 || json.len() < 64 << 20) {
                    if n > 0 {
                        json.put(",");
                    }
                    json.put(&self.json_of(missing[at + n] as usize)?);
                    n += 1;
                }
                json.put("]");
                let parsed: Array = parse_json(json)?.unchecked_into();
                for (k, &i) in missing[at..at + n].iter().enumerate() {
                    self.objects.set(i, parsed.get(k as u32));
                }
                at += n;
            }
        } else if let Some(&i) = missing.first() {
            self.entry(i as usize)?;
        }
        pick(&self.objects, &indices, JsValue::UNDEFINED).map(JsValue::from)
    }

    /// `{ cwd?, id?, parentSession? }` → a header line; cwd defaults to this session's.
    fn new_header(&self, api: Api, options: &JsValue) -> Result<String, JsValue> {
        let options = if options.is_undefined() {
            Object::new().into()
        } else {
            options.clone()
        };
        if !options.is_object() {
            return Err(api.must_be("options", "an object", &options));
        }
        let cwd = match get(&options, "cwd") {
            v if v.is_undefined() => self.header().map(|h| get(&h, "cwd"))?,
            v => v,
        };
        let id = session_id(api, &get(&options, "id"))?;
        header_line(&id, &cwd, &get(&options, "parentSession"))
    }
}
