//! What the model sees at a leaf, as pi's `buildSessionContext` computes it.
//!
//! Walk from the leaf to the root; the last `thinking_level_change` and the last
//! model (a `model_change`, or an assistant message's provider and model) on the
//! path are the settings. Without a compaction on the path every message-like
//! entry is emitted in order. With one, the last compaction's summary comes
//! first, then the entries from its `firstKeptEntryId` up to it, then the
//! entries after it. Unlike pi, which loops forever there, the walk stops at
//! the first entry it meets twice.
//!
//! [`plan`] answers in entry indices; [`render`] writes the answer as JSON
//! text for the JSONL form (one `JSON.parse` then builds it), and the bindings
//! build it from the caller's own objects for the array form.

use std::borrow::Cow;

use crate::entry::{Detail, Entry, EntryType, IdMap, Key, Replacement, Role};
use crate::json::{self, Kind, Member, Span};

/// Which leaf to start from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf<'a> {
    /// The last entry (`leafId` omitted, falsy, or not found).
    Last,
    /// `leafId === null`: before the first entry, so nothing.
    None,
    Id(&'a Key),
}

/// One message of the context and the entry it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The entry's own `message`.
    Message(usize),
    /// `{ role: "custom", customType, content, display, details, timestamp }`.
    Custom(usize),
    /// `{ role: "branchSummary", summary, fromId, timestamp }`.
    BranchSummary(usize),
    /// `{ role: "compactionSummary", summary, tokensBefore, timestamp }`.
    CompactionSummary(usize),
    /// The compaction's `systemMessage`, as stored.
    Checkpoint(usize),
    /// A copy of the entry's `message` whose null or missing `content` becomes
    /// `""` (role `system`) or `[]` (user, assistant, toolResult).
    Filled(usize),
    /// A copy of the entry's `message` whose `content` is the `replacement`
    /// of `edit` (an entry index), a string wrapped as a text block for the
    /// assistant and toolResult roles.
    EditedMessage { entry: usize, edit: usize },
    /// The custom message of the entry, with the `content` of `edit`.
    EditedCustom { entry: usize, edit: usize },
}

impl Emit {
    /// The entry the message comes from.
    pub fn entry(&self) -> usize {
        match *self {
            Emit::Message(i)
            | Emit::Custom(i)
            | Emit::BranchSummary(i)
            | Emit::CompactionSummary(i)
            | Emit::Checkpoint(i)
            | Emit::Filled(i)
            | Emit::EditedMessage { entry: i, .. }
            | Emit::EditedCustom { entry: i, .. } => i,
        }
    }

    /// For a message pi builds from the entry: its `role` and the entry fields
    /// it copies, in pi's key order (a `timestamp` from the entry's time ends it).
    pub fn synthesized(&self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            Emit::Custom(_) | Emit::EditedCustom { .. } => {
                Some(("custom", &["customType", "content", "display", "details"]))
            }
            Emit::BranchSummary(_) => Some(("branchSummary", &["summary", "fromId"])),
            Emit::CompactionSummary(_) => Some(("compactionSummary", &["summary", "tokensBefore"])),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelFrom {
    /// `{ provider: e.provider, modelId: e.modelId }`.
    ModelChange(usize),
    /// `{ provider: e.message.provider, modelId: e.message.model }`.
    Assistant(usize),
}

/// The context as entry indices.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Plan {
    /// Root first.
    pub path: Vec<usize>,
    /// The compaction-aware entries (pi's `buildContextEntries`).
    pub context: Vec<usize>,
    /// `ends[k]`: where the messages of `context[k]` end in `messages` (they
    /// start where those of `context[k - 1]` end).
    pub ends: Vec<usize>,
    pub messages: Vec<Emit>,
    /// The entry whose `thinkingLevel` applies; `None` means "off".
    pub thinking_level: Option<usize>,
    /// `None` means `model: null`.
    pub model: Option<ModelFrom>,
}

impl Plan {
    /// The messages of `context[k]`.
    pub fn messages_of(&self, k: usize) -> &[Emit] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.messages[start..self.ends[k]]
    }
}

/// `id → index` over the entries that are not headers, later duplicates
/// winning: pi's manager holds no header, so none is a leaf or a parent.
pub fn index(entries: &[Entry]) -> IdMap<'_, usize> {
    crate::entry::index_by_id(entries.iter().enumerate().filter(|(_, e)| !e.is_header()))
}

/// The context at `leaf`. `by_id` finds an entry by id (pi's `byId` map:
/// later duplicates win); the default leaf is the last entry that is not a
/// header.
pub fn plan(entries: &[Entry], by_id: &dyn Fn(&Key) -> Option<usize>, leaf: Leaf) -> Plan {
    // The default leaf is the last entry of pi's manager, which holds no header.
    let last = || entries.iter().rposition(|e| !e.is_header());
    let start = match leaf {
        Leaf::None => return Plan::default(),
        Leaf::Id(id) => by_id(id).or_else(last),
        Leaf::Last => last(),
    };
    plan_at(entries, by_id, start)
}

/// [`plan`] from the entry the walk starts at (`None`: there is none). A
/// walk goes from an entry to the one its truthy `parentId` names.
pub fn plan_at(
    entries: &[Entry],
    by_id: &dyn Fn(&Key) -> Option<usize>,
    start: Option<usize>,
) -> Plan {
    let parent = |i: usize| {
        let p: &Key = &entries[i].parent_id;
        if p.truthy() {
            by_id(p)
        } else {
            None
        }
    };
    plan_from(entries, start, &parent)
}

/// The entries from `start` up through `parent`, ending before the first one
/// met twice (so a `parentId` cycle ends the walk). Floyd's cycle finding tells
/// where that is with no memory beyond the path, so a walk costs time in
/// proportion to the path alone, whatever the session's size.
pub fn walk(start: Option<usize>, parent: &dyn Fn(usize) -> Option<usize>) -> Vec<usize> {
    let step = |x: Option<usize>| x.and_then(parent);
    let (mut tortoise, mut hare) = (start, start);
    let cyclic = start.is_some()
        && loop {
            hare = step(step(hare));
            tortoise = step(tortoise);
            if hare.is_none() {
                break false;
            }
            if hare == tortoise {
                break true;
            }
        };
    // Without a cycle the walk runs to the root; with one, it is the entries
    // before the cycle (mu of them) and the cycle itself (lambda).
    let length = if cyclic {
        let (mut t, mut h, mut mu) = (start, hare, 0);
        while t != h {
            t = step(t);
            h = step(h);
            mu += 1;
        }
        let (mut lambda, mut h) = (1, step(t));
        while h != t {
            h = step(h);
            lambda += 1;
        }
        Some(mu + lambda)
    } else {
        None
    };
    let mut path = Vec::new();
    let mut at = start;
    while let Some(i) = at {
        if length.is_some_and(|n| path.len() == n) {
            break;
        }
        path.push(i);
        at = parent(i);
    }
    path
}

/// The context from entry `start` up: `parent(i)` is where the walk goes from
/// `i` (pi: `parentId ? byId.get(parentId) : undefined`). An index that keeps
/// parents resolved makes this cost time in proportion to the path.
pub fn plan_from(
    entries: &[Entry],
    start: Option<usize>,
    parent: &dyn Fn(usize) -> Option<usize>,
) -> Plan {
    let mut path = walk(start, parent);
    path.reverse();

    let mut thinking_level = None;
    let mut model = None;
    let mut compaction = None;
    let mut any_edit = false;
    for &i in &path {
        let e = &entries[i];
        match (e.kind(), &e.detail) {
            (EntryType::ContextEdit, _) => any_edit = true,
            (EntryType::ThinkingLevelChange, _) => thinking_level = Some(i),
            (EntryType::ModelChange, _) => model = Some(ModelFrom::ModelChange(i)),
            (
                EntryType::Message,
                Detail::Message {
                    role: Role::Assistant,
                    ..
                },
            ) => model = Some(ModelFrom::Assistant(i)),
            (EntryType::Compaction, _) => compaction = Some(i),
            _ => {}
        }
    }

    let context = match compaction {
        Some(c) => {
            // pi finds the compaction again by id, among entries of any type.
            let at = path
                .iter()
                .position(|&i| entries[i].id == entries[c].id)
                .unwrap_or(0);
            let first_kept = match &entries[c].detail {
                Detail::Compaction { kept, .. } => &kept.id,
                _ => &Key::Undefined,
            };
            let mut context = vec![c];
            let mut kept = false;
            for &i in &path[..at] {
                kept = kept || entries[i].id == *first_kept;
                if kept && !is_system(&entries[i]) {
                    context.push(i);
                }
            }
            context.extend_from_slice(&path[at + 1..]);
            context
        }
        None => path.clone(),
    };

    // The last edit of each target among the context entries wins; most paths
    // have none, and then no map is built.
    let mut edits: IdMap<usize> = IdMap::default();
    for &i in context.iter().filter(|_| any_edit) {
        if let Detail::ContextEdit { target_id, .. } = &entries[i].detail {
            if entries[i].kind() == EntryType::ContextEdit {
                edits.insert(target_id, i);
            }
        }
    }

    let mut messages = Vec::with_capacity(context.len());
    let mut ends = Vec::with_capacity(context.len());
    for (k, &i) in context.iter().enumerate() {
        // Only the newest compaction (first) speaks; older ones kept in its range do not.
        if !(k > 0 && entries[i].kind() == EntryType::Compaction) {
            let edit = if edits.is_empty() {
                None
            } else {
                edits.get(&entries[i].id).copied()
            };
            emit(entries, i, edit, &mut messages);
        }
        ends.push(messages.len());
    }
    Plan {
        path,
        context,
        ends,
        messages,
        thinking_level,
        model,
    }
}

/// A `message` entry whose message has the role `system`.
fn is_system(e: &Entry) -> bool {
    e.kind() == EntryType::Message
        && matches!(
            e.detail,
            Detail::Message {
                role: Role::System,
                ..
            }
        )
}

/// The messages of entry `i`, under its latest edit if any.
fn emit(entries: &[Entry], i: usize, edit: Option<usize>, out: &mut Vec<Emit>) {
    let e = &entries[i];
    let replacement = edit.and_then(|j| match entries[j].detail {
        Detail::ContextEdit { replacement, .. } => Some(replacement),
        _ => None,
    });
    if replacement == Some(Replacement::Null) {
        return;
    }
    // Without a `replacement` pi throws as it edits; we show the target as it is.
    let edit = edit.filter(|_| replacement != Some(Replacement::Missing));
    match (e.kind(), &e.detail) {
        (EntryType::Message, Detail::Message { role, content }) => {
            let editable = matches!(
                role,
                Role::User | Role::Assistant | Role::ToolResult | Role::Custom
            );
            out.push(match edit {
                Some(edit) if editable => Emit::EditedMessage { entry: i, edit },
                _ if content.is_nullish()
                    && matches!(
                        role,
                        Role::User | Role::Assistant | Role::ToolResult | Role::System
                    ) =>
                {
                    Emit::Filled(i)
                }
                _ => Emit::Message(i),
            });
        }
        (EntryType::CustomMessage, _) => out.push(match edit {
            Some(edit) => Emit::EditedCustom { entry: i, edit },
            None => Emit::Custom(i),
        }),
        (
            EntryType::BranchSummary,
            Detail::BranchSummary {
                has_summary: true, ..
            },
        ) => out.push(Emit::BranchSummary(i)),
        (
            EntryType::Compaction,
            Detail::Compaction {
                has_system_message, ..
            },
        ) => {
            if *has_system_message {
                out.push(Emit::Checkpoint(i));
            }
            out.push(Emit::CompactionSummary(i));
        }
        _ => {}
    }
}

/// Where a rendered value needs JS's help after `JSON.parse`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `messages[i]` itself.
    Message(usize),
    /// `messages[i][field]`.
    MessageField(usize, &'static str),
    ThinkingLevel,
    /// `model[field]`.
    ModelField(&'static str),
}

/// A value JSON cannot carry: written as `null`, set after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fixup {
    /// The key is present with the value `undefined`, as in pi's object.
    Undefined(Slot),
    /// An invalid timestamp: `NaN`.
    NaN(Slot),
    /// In a projection, `entries[entry].messages[index]` is that entry's own
    /// `message`, the same object as in its `sourceEntry` (as in pi).
    Shared { entry: usize, index: usize },
}

/// The context as JSON text plus the few values JSON cannot hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub json: String,
    pub fixups: Vec<Fixup>,
}

/// Writes `plan` as the JSON of pi's `SessionContext`, slicing values from
/// `text` (entry `i`'s value is `spans[i]`), so key order and every value
/// are what `JSON.parse` of the lines gives.
/// `members(i)` gives the members of entry `i`'s object (the parse noted them:
/// finding them again would walk every message a second time).
pub fn render<'t>(
    text: &'t str,
    members: &dyn Fn(usize) -> Cow<'t, [Member]>,
    entries: &[Entry],
    plan: &Plan,
) -> Rendered {
    let mut w = Writer::new(text, members, entries);
    w.out.push_str("{\"messages\":[");
    for (n, emit) in plan.messages.iter().enumerate() {
        if n > 0 {
            w.out.push(',');
        }
        w.message(n, *emit);
    }
    w.out.push(']');
    w.settings(plan);
    w.finish()
}

/// Writes `plan` as the JSON of pi's `buildSessionProjection` result, except
/// that `messages` is `null` and an entry's own `message` is `null` in its
/// messages: the caller links those ([`Fixup::Shared`]), sets `messages` to
/// the entries' messages flattened (the same objects, as pi's are), then
/// applies the other fixups, whose message numbers count in that flat list.
/// `spans[i]` is entry `i`'s value.
pub fn render_projection<'t>(
    text: &'t str,
    spans: &[Span],
    members: &dyn Fn(usize) -> Cow<'t, [Member]>,
    entries: &[Entry],
    plan: &Plan,
) -> Rendered {
    let mut w = Writer::new(text, members, entries);
    w.out.push_str("{\"entries\":[");
    let mut n = 0;
    for (k, &i) in plan.context.iter().enumerate() {
        if k > 0 {
            w.out.push(',');
        }
        w.out.push_str("{\"sourceEntry\":");
        w.out.push_str(spans[i].of(text));
        w.out.push_str(",\"messages\":[");
        for (m, emit) in plan.messages_of(k).iter().enumerate() {
            if m > 0 {
                w.out.push(',');
            }
            if let Emit::Message(_) = emit {
                // Not written twice: the caller links it to the source entry's.
                w.out.push_str("null");
                w.fixups.push(Fixup::Shared { entry: k, index: m });
            } else {
                w.message(n, *emit);
            }
            n += 1;
        }
        w.out.push_str("]}");
    }
    w.out.push_str("],\"messages\":null");
    w.settings(plan);
    w.finish()
}

/// The JSON text `JSON.stringify` writes of the projection `r` (from
/// [`render_projection`]) once linked as the bindings link it: each shared
/// message is its source entry's own `message`, and `messages` is every
/// entry's messages in order. For a caller that forwards text rather than
/// building objects; an `undefined` stays written as `null`.
pub fn projection_text(r: &Rendered) -> String {
    let t = r.json.as_str();
    let top = json::members(t, Span::new(0, t.len()));
    let entries = json::get(t, &top, "entries").map_or(Span::default(), |m| m.value);
    // `render_projection` notes the shared messages in the order they are
    // written, which is the order read below: the next one is the only one
    // to look at (no set, and no hashing code of its own in the module).
    let mut shared = r
        .fixups
        .iter()
        .filter_map(|f| match *f {
            Fixup::Shared { entry, index } => Some((entry, index)),
            _ => None,
        })
        .peekable();
    let mut out = String::with_capacity(2 * t.len());
    let mut flat: Vec<&str> = Vec::new();
    out.push_str("{\"entries\":[");
    for (k, e) in json::elements(t, entries).iter().enumerate() {
        let fields = json::members(t, e.value);
        let source = json::get(t, &fields, "sourceEntry").map_or("null", |m| m.value.of(t));
        let own = json::members(source, Span::new(0, source.len()));
        let own = json::get(source, &own, "message").map_or("null", |m| m.value.of(source));
        let list = json::get(t, &fields, "messages").map_or(Span::default(), |m| m.value);
        if k > 0 {
            out.push(',');
        }
        out.push_str("{\"sourceEntry\":");
        out.push_str(source);
        out.push_str(",\"messages\":[");
        for (m, message) in json::elements(t, list).iter().enumerate() {
            let message = if shared.next_if_eq(&(k, m)).is_some() {
                own
            } else {
                message.value.of(t)
            };
            if m > 0 {
                out.push(',');
            }
            out.push_str(message);
            flat.push(message);
        }
        out.push_str("]}");
    }
    out.push_str("],\"messages\":[");
    out.push_str(&flat.join(","));
    out.push(']');
    // The settings after `"messages":null`, as rendered.
    if let Some(m) = json::get(t, &top, "messages") {
        out.push_str(&t[m.value.end..]);
    } else {
        out.push('}');
    }
    out
}

/// The compaction-aware entries of `plan` as a JSON array of their values.
pub fn render_entries(text: &str, spans: &[Span], plan: &Plan) -> String {
    let mut out = String::from("[");
    for (k, &i) in plan.context.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(spans[i].of(text));
    }
    out.push(']');
    out
}

struct Writer<'a, 't> {
    text: &'t str,
    members: &'a dyn Fn(usize) -> Cow<'t, [Member]>,
    entries: &'a [Entry],
    out: String,
    fixups: Vec<Fixup>,
}

/// What a copied message's `content` becomes.
#[derive(Clone, Copy)]
enum NewContent<'t> {
    /// JSON text.
    Json(&'static str),
    /// A value from the text.
    Raw(&'t str),
    /// A string from the text, wrapped as `[{type:"text",text}]`.
    Wrapped(&'t str),
    /// `undefined`: the key is there, its value is not.
    Undefined,
}

impl<'a, 't> Writer<'a, 't> {
    fn new(
        text: &'t str,
        members: &'a dyn Fn(usize) -> Cow<'t, [Member]>,
        entries: &'a [Entry],
    ) -> Self {
        Writer {
            text,
            members,
            entries,
            out: String::new(),
            fixups: Vec::new(),
        }
    }

    fn finish(self) -> Rendered {
        Rendered {
            json: self.out,
            fixups: self.fixups,
        }
    }

    /// Message `n` of the context.
    fn message(&mut self, n: usize, emit: Emit) {
        let text = self.text;
        let i = emit.entry();
        let m = (self.members)(i);
        match emit {
            Emit::Message(_) => self.value(json::get(text, &m, "message"), Slot::Message(n)),
            Emit::Checkpoint(_) => {
                self.value(json::get(text, &m, "systemMessage"), Slot::Message(n))
            }
            Emit::Filled(_) => {
                let system = matches!(
                    self.entries[i].detail,
                    Detail::Message {
                        role: Role::System,
                        ..
                    }
                );
                let content = NewContent::Json(if system { "\"\"" } else { "[]" });
                self.copy_message(n, &m, content);
            }
            Emit::EditedMessage { edit, .. } => {
                let wrap = matches!(
                    self.entries[i].detail,
                    Detail::Message {
                        role: Role::Assistant | Role::ToolResult,
                        ..
                    }
                );
                let content = self.replacement(edit, wrap);
                self.copy_message(n, &m, content);
            }
            Emit::Custom(_)
            | Emit::EditedCustom { .. }
            | Emit::BranchSummary(_)
            | Emit::CompactionSummary(_) => {
                let Some((role, names)) = emit.synthesized() else {
                    return;
                };
                self.out.push_str("{\"role\":\"");
                self.out.push_str(role);
                self.out.push('"');
                for &name in names {
                    let member = json::get(text, &m, name);
                    if name != "content" {
                        self.field(name, member, Slot::MessageField(n, name));
                        continue;
                    }
                    let content = match emit {
                        Emit::EditedCustom { edit, .. } => self.replacement(edit, false),
                        // `entry.content ?? []`
                        _ => match member {
                            Some(c) if c.kind != Kind::Null => NewContent::Raw(c.value.of(text)),
                            _ => NewContent::Json("[]"),
                        },
                    };
                    self.out.push_str(",\"content\":");
                    self.content(n, content);
                }
                self.time(self.entries[i].time, Slot::MessageField(n, "timestamp"));
                self.out.push('}');
            }
        }
    }

    /// The `content` an edit gives (`replacement.content`, not validated).
    fn replacement(&self, edit: usize, wrap: bool) -> NewContent<'t> {
        let text = self.text;
        let m = (self.members)(edit);
        let content = json::get(text, &m, "replacement")
            .filter(|r| r.kind == Kind::Object)
            .and_then(|r| {
                let fields = json::members(text, r.value);
                json::get(text, &fields, "content").map(|c| (c.kind, c.value.of(text)))
            });
        match content {
            None => NewContent::Undefined,
            Some((Kind::String, raw)) if wrap => NewContent::Wrapped(raw),
            Some((_, raw)) => NewContent::Raw(raw),
        }
    }

    fn content(&mut self, n: usize, content: NewContent) {
        match content {
            NewContent::Json(j) | NewContent::Raw(j) => self.out.push_str(j),
            NewContent::Wrapped(s) => {
                self.out.push_str("[{\"type\":\"text\",\"text\":");
                self.out.push_str(s);
                self.out.push_str("}]");
            }
            NewContent::Undefined => {
                self.out.push_str("null");
                self.fixups
                    .push(Fixup::Undefined(Slot::MessageField(n, "content")));
            }
        }
    }

    /// `{ ...message, content }` of the entry whose members are `m`: `content`
    /// keeps its place, or comes last when the message had none.
    fn copy_message(&mut self, n: usize, m: &[Member], content: NewContent) {
        let text = self.text;
        let fields = json::get(text, m, "message")
            .filter(|v| v.kind == Kind::Object)
            .map(|v| json::members(text, v.value))
            .unwrap_or_default();
        // Every `content` key gets the new value: JSON.parse keeps the first
        // place and the last value, as the spread does.
        let mut had = false;
        self.out.push('{');
        for (k, f) in fields.iter().enumerate() {
            if k > 0 {
                self.out.push(',');
            }
            self.out.push_str(f.key.of(text));
            self.out.push(':');
            if json::key_is(text, f.key, "content") {
                had = true;
                self.content(n, content);
            } else {
                self.out.push_str(f.value.of(text));
            }
        }
        if !had {
            if !fields.is_empty() {
                self.out.push(',');
            }
            self.out.push_str("\"content\":");
            self.content(n, content);
        }
        self.out.push('}');
    }

    /// `thinkingLevel` and `model`, each after a comma, and the closing brace.
    fn settings(&mut self, plan: &Plan) {
        let text = self.text;
        self.out.push_str(",\"thinkingLevel\":");
        match plan.thinking_level {
            Some(i) => {
                let m = (self.members)(i);
                self.value(json::get(text, &m, "thinkingLevel"), Slot::ThinkingLevel);
            }
            None => self.out.push_str("\"off\""),
        }
        self.out.push_str(",\"model\":");
        let (source, provider, model_id) = match plan.model {
            None => (None, "", ""),
            Some(ModelFrom::ModelChange(i)) => (Some((self.members)(i)), "provider", "modelId"),
            Some(ModelFrom::Assistant(i)) => {
                let m = (self.members)(i);
                let msg = json::get(text, &m, "message")
                    .filter(|m| m.kind == Kind::Object)
                    .map(|m| m.value);
                (
                    Some(Cow::Owned(
                        msg.map(|s| json::members(text, s)).unwrap_or_default(),
                    )),
                    "provider",
                    "model",
                )
            }
        };
        match source {
            None => self.out.push_str("null"),
            Some(m) => {
                self.out.push_str("{\"provider\":");
                self.value(json::get(text, &m, provider), Slot::ModelField("provider"));
                self.out.push_str(",\"modelId\":");
                self.value(json::get(text, &m, model_id), Slot::ModelField("modelId"));
                self.out.push('}');
            }
        }
        self.out.push('}');
    }

    fn value(&mut self, member: Option<&Member>, slot: Slot) {
        match member {
            Some(m) => self.out.push_str(m.value.of(self.text)),
            None => {
                self.out.push_str("null");
                self.fixups.push(Fixup::Undefined(slot));
            }
        }
    }

    fn field(&mut self, name: &str, member: Option<&Member>, slot: Slot) {
        self.out.push_str(",\"");
        self.out.push_str(name);
        self.out.push_str("\":");
        self.value(member, slot);
    }

    fn time(&mut self, t: f64, slot: Slot) {
        self.out.push_str(",\"timestamp\":");
        if t.is_nan() {
            self.out.push_str("null");
            self.fixups.push(Fixup::NaN(slot));
        } else {
            // A time value is an integer within ±8.64e15: exact as i64.
            self.out.push_str(&(t as i64).to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    fn context(text: &str, leaf: Option<&str>) -> Rendered {
        let doc = Document::parse(text);
        let by_id = index(&doc.entries);
        let key = leaf.map(Key::string);
        let leaf = key.as_ref().map_or(Leaf::Last, Leaf::Id);
        let p = plan(&doc.entries, &|k| by_id.get(k).copied(), leaf);
        render(&doc.text, &|i| doc.members(i), &doc.entries, &p)
    }

    const TS: &str = "\"timestamp\":\"2025-01-01T00:00:00.000Z\"";

    fn msg(id: &str, parent: &str, role: &str) -> String {
        format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},{TS},\"message\":{{\"role\":\"{role}\",\"content\":\"{id}\",\"provider\":\"p\",\"model\":\"m-{id}\"}}}}\n")
    }

    #[test]
    fn walks_the_branch_of_the_leaf() {
        let text = [
            msg("a", "null", "user"),
            msg("b", "\"a\"", "assistant"),
            msg("c", "\"a\"", "user"),
        ]
        .concat();
        let r = context(&text, None);
        assert_eq!(
            r.json,
            r#"{"messages":[{"role":"user","content":"a","provider":"p","model":"m-a"},{"role":"user","content":"c","provider":"p","model":"m-c"}],"thinkingLevel":"off","model":null}"#
        );
        let r = context(&text, Some("b"));
        assert!(
            r.json
                .ends_with(r#""thinkingLevel":"off","model":{"provider":"p","modelId":"m-b"}}"#),
            "{}",
            r.json
        );
        assert_eq!(context(&text, Some("nope")), context(&text, None));
    }

    #[test]
    fn compaction_emits_summary_kept_and_later_entries() {
        let text = [
            msg("a", "null", "user"),
            msg("b", "\"a\"", "assistant"),
            msg("c", "\"b\"", "user"),
            format!("{{\"type\":\"compaction\",\"id\":\"k\",\"parentId\":\"c\",{TS},\"summary\":\"S\",\"firstKeptEntryId\":\"b\",\"tokensBefore\":7}}\n"),
            format!("{{\"type\":\"thinking_level_change\",\"id\":\"t\",\"parentId\":\"k\",{TS},\"thinkingLevel\":\"high\"}}\n"),
            format!("{{\"type\":\"branch_summary\",\"id\":\"bs\",\"parentId\":\"t\",{TS},\"summary\":\"B\",\"fromId\":\"c\"}}\n"),
            "{\"type\":\"custom_message\",\"id\":\"cm\",\"parentId\":\"bs\",\"timestamp\":\"bad\",\"customType\":\"x\",\"content\":\"hi\",\"display\":true}\n".to_string(),
        ]
        .concat();
        let r = context(&text, None);
        let roles: Vec<&str> = r
            .json
            .match_indices("\"role\":\"")
            .map(|(i, _)| &r.json[i + 8..i + 20])
            .collect();
        assert_eq!(roles.len(), 5, "{}", r.json);
        assert!(r.json.starts_with(r#"{"messages":[{"role":"compactionSummary","summary":"S","tokensBefore":7,"timestamp":1735689600000},{"role":"assistant""#), "{}", r.json);
        assert!(r.json.contains(
            r#"{"role":"branchSummary","summary":"B","fromId":"c","timestamp":1735689600000}"#
        ));
        assert!(r.json.contains(r#"{"role":"custom","customType":"x","content":"hi","display":true,"details":null,"timestamp":null}"#));
        assert!(r
            .json
            .ends_with(r#""thinkingLevel":"high","model":{"provider":"p","modelId":"m-b"}}"#));
        assert_eq!(
            r.fixups,
            [
                Fixup::Undefined(Slot::MessageField(4, "details")),
                Fixup::NaN(Slot::MessageField(4, "timestamp"))
            ]
        );
    }

    #[test]
    fn checkpoints_kept_system_messages_edits_and_null_content() {
        let line = |s: String| s + "\n";
        let text = [
            line(format!("{{\"type\":\"message\",\"id\":\"s1\",\"parentId\":null,{TS},\"message\":{{\"role\":\"system\",\"content\":\"p\"}}}}")),
            line(format!("{{\"type\":\"message\",\"id\":\"u1\",\"parentId\":\"s1\",{TS},\"message\":{{\"role\":\"user\",\"content\":null,\"x\":1}}}}")),
            line(format!("{{\"type\":\"message\",\"id\":\"a1\",\"parentId\":\"u1\",{TS},\"message\":{{\"role\":\"assistant\"}}}}")),
            line(format!("{{\"type\":\"compaction\",\"id\":\"c\",\"parentId\":\"a1\",{TS},\"summary\":\"S\",\"firstKeptEntryId\":\"s1\",\"tokensBefore\":1,\"systemMessage\":{{\"role\":\"system\",\"content\":\"K\"}}}}")),
            line(format!("{{\"type\":\"context_edit\",\"id\":\"e\",\"parentId\":\"c\",{TS},\"targetId\":\"a1\",\"replacement\":{{\"content\":\"E\"}}}}")),
            line(format!("{{\"type\":\"custom_message\",\"id\":\"cm\",\"parentId\":\"e\",{TS},\"customType\":\"t\",\"display\":true,\"details\":0}}")),
        ]
        .concat();
        let r = context(&text, None);
        assert_eq!(
            r.json,
            concat!(
                r#"{"messages":[{"role":"system","content":"K"},"#,
                r#"{"role":"compactionSummary","summary":"S","tokensBefore":1,"timestamp":1735689600000},"#,
                r#"{"role":"user","content":[],"x":1},"#,
                r#"{"role":"assistant","content":[{"type":"text","text":"E"}]},"#,
                r#"{"role":"custom","customType":"t","content":[],"display":true,"details":0,"timestamp":1735689600000}],"#,
                r#""thinkingLevel":"off","model":{"provider":null,"modelId":null}}"#
            )
        );
        let doc = Document::parse(&text);
        let by_id = index(&doc.entries);
        let p = plan(&doc.entries, &|k| by_id.get(k).copied(), Leaf::Last);
        assert_eq!(
            p.context,
            [3, 1, 2, 4, 5],
            "s1 is left out of the kept range"
        );
        assert_eq!(p.ends, [2, 3, 4, 4, 5]);
    }

    #[test]
    fn cycles_and_self_parents_end() {
        let text = [msg("a", "\"b\"", "user"), msg("b", "\"a\"", "user")].concat();
        let r = context(&text, None);
        assert_eq!(r.json.matches("\"role\"").count(), 2);
        let selfish = msg("a", "\"a\"", "user");
        assert_eq!(context(&selfish, None).json.matches("\"role\"").count(), 1);
    }

    #[test]
    fn walks_stop_before_the_first_repeat() {
        // 0 → 1 → 2 → 3 → 4 → 2 (a cycle of three after two entries).
        let parents = [Some(1), Some(2), Some(3), Some(4), Some(2)];
        assert_eq!(walk(Some(0), &|i| parents[i]), [0, 1, 2, 3, 4]);
        assert_eq!(walk(Some(3), &|i| parents[i]), [3, 4, 2]);
        let own = [Some(0)];
        assert_eq!(walk(Some(0), &|i| own[i]), [0]);
        let line = [None, Some(0), Some(1)];
        assert_eq!(walk(Some(2), &|i| line[i]), [2, 1, 0]);
        assert!(walk(None, &|i| line[i]).is_empty());
        // Against a visited set, on every start of random functional graphs.
        let mut seed = 7u64;
        for n in 1..60usize {
            let parents: Vec<Option<usize>> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let r = (seed >> 33) as usize % (n + 2);
                    (r < n).then_some(r)
                })
                .collect();
            for start in 0..n {
                let mut expected = Vec::new();
                let mut at = Some(start);
                while let Some(i) = at {
                    if expected.contains(&i) {
                        break;
                    }
                    expected.push(i);
                    at = parents[i];
                }
                assert_eq!(
                    walk(Some(start), &|i| parents[i]),
                    expected,
                    "{parents:?} from {start}"
                );
            }
        }
    }

    #[test]
    fn null_leaf_is_empty() {
        let doc = Document::parse(&msg("a", "null", "user"));
        let by_id = index(&doc.entries);
        let p = plan(&doc.entries, &|k| by_id.get(k).copied(), Leaf::None);
        assert_eq!(
            render(&doc.text, &|i| doc.members(i), &doc.entries, &p).json,
            r#"{"messages":[],"thinkingLevel":"off","model":null}"#
        );
    }

    /// pi 1.6.0's answers on a session with context edits aimed at every kind
    /// of target, at seven leaves: written by running pi
    /// (`tests/fixtures/pi16-context.mjs`), so Rust users, who get no JS
    /// suite, still have pi as the reference.
    const PI16: &str = include_str!("../tests/fixtures/pi16-context.json");

    /// The value `JSON.stringify` gives of the object a caller builds from
    /// `r`: an `undefined` key is left out, NaN is written `null` (as `r`
    /// has it); in a projection each shared message is the source entry's
    /// own and `messages` is the entries' messages flattened.
    fn as_stringified(r: &Rendered) -> serde_json::Value {
        use serde_json::Value;
        let mut v: Value =
            serde_json::from_str(&r.json).unwrap_or_else(|e| panic!("{e}: {}", r.json));
        let projection = v.get("entries").is_some();
        // Message n of the flat list is messages[m] of entries[k].
        let mut places = Vec::new();
        if projection {
            for fixup in &r.fixups {
                if let Fixup::Shared { entry, index } = *fixup {
                    let own = v["entries"][entry]["sourceEntry"]["message"].clone();
                    v["entries"][entry]["messages"][index] = own;
                }
            }
            for (k, e) in v["entries"].as_array().unwrap().iter().enumerate() {
                places.extend((0..e["messages"].as_array().unwrap().len()).map(|m| (k, m)));
            }
        }
        for fixup in &r.fixups {
            let Fixup::Undefined(slot) = fixup else {
                continue;
            };
            let remove = |o: &mut Value, key: &str| {
                let o = o.as_object_mut().unwrap();
                assert_eq!(o.remove(key), Some(Value::Null), "{key}: {}", r.json);
            };
            match *slot {
                // `undefined` in an array is written `null`.
                Slot::Message(_) => {}
                Slot::MessageField(n, key) if projection => {
                    let (k, m) = places[n];
                    remove(&mut v["entries"][k]["messages"][m], key);
                }
                Slot::MessageField(n, key) => remove(&mut v["messages"][n], key),
                Slot::ThinkingLevel => remove(&mut v, "thinkingLevel"),
                Slot::ModelField(key) => remove(&mut v["model"], key),
            }
        }
        if projection {
            let flat = v["entries"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|e| e["messages"].as_array().unwrap().clone())
                .collect();
            v["messages"] = Value::Array(flat);
        }
        v
    }

    /// `v` with every `null`-valued key left out, at every depth.
    fn without_null_keys(v: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .filter(|(_, x)| !x.is_null())
                    .map(|(k, x)| (k, without_null_keys(x)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.into_iter().map(without_null_keys).collect()),
            v => v,
        }
    }

    #[test]
    fn context_edits_and_compaction_as_pi_16_answers() {
        use serde_json::Value;
        let pi: Value = serde_json::from_str(PI16).unwrap();
        let text = pi["text"].as_str().unwrap();
        let doc = Document::parse(text);
        let by_id = index(&doc.entries);
        let members = |i| doc.members(i);
        let leaves = pi["leaves"].as_object().unwrap();
        assert_eq!(leaves.len(), 7);
        for (leaf, want) in leaves {
            let key = Key::string(leaf);
            let at = if leaf.is_empty() {
                Leaf::Last
            } else {
                Leaf::Id(&key)
            };
            let p = plan(&doc.entries, &|k| by_id.get(k).copied(), at);
            let parse = |v: &Value| -> Value { serde_json::from_str(v.as_str().unwrap()).unwrap() };

            let context = render(&doc.text, &members, &doc.entries, &p);
            assert_eq!(
                as_stringified(&context),
                parse(&want["context"]),
                "context at {leaf:?}: {}",
                context.json
            );

            let projection = render_projection(&doc.text, &doc.spans, &members, &doc.entries, &p);
            assert_eq!(
                as_stringified(&projection),
                parse(&want["projection"]),
                "projection at {leaf:?}: {}",
                projection.json
            );
            // The same as one JSON text (an `undefined` written `null`).
            let as_text: Value = serde_json::from_str(&projection_text(&projection)).unwrap();
            assert_eq!(
                without_null_keys(as_text),
                without_null_keys(parse(&want["projection"])),
                "projection text at {leaf:?}"
            );
            // Each entry's messages are the plan's for it.
            let entries = as_stringified(&projection)["entries"].clone();
            for (k, e) in entries.as_array().unwrap().iter().enumerate() {
                assert_eq!(
                    e["messages"].as_array().unwrap().len(),
                    p.messages_of(k).len()
                );
            }

            let json = render_entries(&doc.text, &doc.spans, &p);
            let entries: Value =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
            let ids: Vec<&Value> = entries
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["id"])
                .collect();
            let want_ids: Vec<&Value> = want["entries"].as_array().unwrap().iter().collect();
            assert_eq!(ids, want_ids, "entries at {leaf:?}");
            let lines: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            for e in entries.as_array().unwrap() {
                assert!(lines.contains(e), "{e} is not a line of the file");
            }
        }
    }
}
