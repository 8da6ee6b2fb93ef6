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
use std::collections::HashMap;

use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::json::{self, Kind, Member};

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
}

impl Emit {
    /// The entry the message comes from.
    pub fn entry(&self) -> usize {
        match *self {
            Emit::Message(i)
            | Emit::Custom(i)
            | Emit::BranchSummary(i)
            | Emit::CompactionSummary(i) => i,
        }
    }

    /// For a message pi builds from the entry: its `role` and the entry fields
    /// it copies, in pi's key order (a `timestamp` from the entry's time ends it).
    pub fn synthesized(&self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            Emit::Message(_) => None,
            Emit::Custom(_) => Some(("custom", &["customType", "content", "display", "details"])),
            Emit::BranchSummary(_) => Some(("branchSummary", &["summary", "fromId"])),
            Emit::CompactionSummary(_) => Some(("compactionSummary", &["summary", "tokensBefore"])),
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
    pub messages: Vec<Emit>,
    /// The entry whose `thinkingLevel` applies; `None` means "off".
    pub thinking_level: Option<usize>,
    /// `None` means `model: null`.
    pub model: Option<ModelFrom>,
}

/// `id → index` over all entries, later duplicates winning.
pub fn index(entries: &[Entry]) -> HashMap<&Key, usize> {
    crate::entry::index_by_id(entries.iter().enumerate())
}

/// The context at `leaf`. `by_id` finds an entry by id (pi's `byId` map:
/// later duplicates win); the default leaf is the last entry.
pub fn plan(entries: &[Entry], by_id: &dyn Fn(&Key) -> Option<usize>, leaf: Leaf) -> Plan {
    let start = match leaf {
        Leaf::None => return Plan::default(),
        Leaf::Id(id) => by_id(id).or(entries.len().checked_sub(1)),
        Leaf::Last => entries.len().checked_sub(1),
    };
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
    for &i in &path {
        let e = &entries[i];
        match (e.kind, &e.detail) {
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

    let mut messages = Vec::new();
    let mut emit = |i: usize| {
        let e = &entries[i];
        match (e.kind, &e.detail) {
            (EntryType::Message, _) => messages.push(Emit::Message(i)),
            (EntryType::CustomMessage, _) => messages.push(Emit::Custom(i)),
            (
                EntryType::BranchSummary,
                Detail::BranchSummary {
                    has_summary: true, ..
                },
            ) => messages.push(Emit::BranchSummary(i)),
            _ => {}
        }
    };
    match compaction {
        Some(c) => {
            let comp = &entries[c];
            // pi looks the compaction up again by id: with repeated ids, the first one on the path.
            let at = path
                .iter()
                .position(|&i| entries[i].kind == EntryType::Compaction && entries[i].id == comp.id)
                .unwrap_or(0);
            let first_kept = match &comp.detail {
                Detail::Compaction {
                    first_kept_entry_id,
                    ..
                } => first_kept_entry_id.clone(),
                _ => Key::Undefined,
            };
            let mut kept = false;
            for &i in &path[..at] {
                kept = kept || entries[i].id == first_kept;
                if kept {
                    emit(i);
                }
            }
            for &i in &path[at + 1..] {
                emit(i);
            }
            messages.insert(0, Emit::CompactionSummary(c));
        }
        None => path.iter().for_each(|&i| emit(i)),
    }
    Plan {
        path,
        messages,
        thinking_level,
        model,
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
    let mut w = Writer {
        text,
        out: String::new(),
        fixups: Vec::new(),
    };
    let fields = |i: usize| members(i);
    w.out.push_str("{\"messages\":[");
    for (n, emit) in plan.messages.iter().enumerate() {
        if n > 0 {
            w.out.push(',');
        }
        let i = emit.entry();
        let m = fields(i);
        match emit.synthesized() {
            None => w.value(json::get(text, &m, "message"), Slot::Message(n)),
            Some((role, names)) => {
                w.out.push_str("{\"role\":");
                w.out.push_str(&format!("\"{role}\""));
                for &name in names {
                    w.field(name, json::get(text, &m, name), Slot::MessageField(n, name));
                }
                w.time(entries[i].time, Slot::MessageField(n, "timestamp"));
                w.out.push('}');
            }
        }
    }
    w.out.push_str("],\"thinkingLevel\":");
    match plan.thinking_level {
        Some(i) => {
            let m = fields(i);
            w.value(json::get(text, &m, "thinkingLevel"), Slot::ThinkingLevel);
        }
        None => w.out.push_str("\"off\""),
    }
    w.out.push_str(",\"model\":");
    let (source, provider, model_id) = match plan.model {
        None => (None, "", ""),
        Some(ModelFrom::ModelChange(i)) => (Some(fields(i)), "provider", "modelId"),
        Some(ModelFrom::Assistant(i)) => {
            let m = fields(i);
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
        None => w.out.push_str("null"),
        Some(m) => {
            w.out.push('{');
            w.out.push_str("\"provider\":");
            w.value(json::get(text, &m, provider), Slot::ModelField("provider"));
            w.out.push_str(",\"modelId\":");
            w.value(json::get(text, &m, model_id), Slot::ModelField("modelId"));
            w.out.push('}');
        }
    }
    w.out.push('}');
    Rendered {
        json: w.out,
        fixups: w.fixups,
    }
}

struct Writer<'a> {
    text: &'a str,
    out: String,
    fixups: Vec<Fixup>,
}

impl Writer<'_> {
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
        let key = leaf.map(|l| Key::Str(l.into()));
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
}
