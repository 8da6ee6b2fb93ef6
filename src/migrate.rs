//! Bringing v1 and v2 sessions to v3, as pi's `migrateToCurrentVersion` does.
//!
//! [`plan`] decides what changes, as a list of [`Edit`]s on entries; the text
//! form applies them by splicing the lines ([`apply_to_text`]), the array form
//! (in the bindings) by setting properties. Two things differ from pi, because
//! pi loses data there: an entry that already has a string id keeps it and its
//! `parentId` (pi re-ids every entry of a header-less file, destroying its
//! branches), and lines that are not entries stay in the text where they were.

use std::collections::HashSet;

use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::json::{self, Kind, Member, Span};
use crate::parse::{Line, LineContent};

/// The version this crate writes and migrates to.
pub const CURRENT_VERSION: u32 = 3;

/// One change to one entry (`entry` indexes the parsed entries).
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// `header.version = 3`.
    SetVersion {
        entry: usize,
    },
    SetId {
        entry: usize,
        id: String,
    },
    /// `entry.parentId = parent` (`None` is null).
    SetParentId {
        entry: usize,
        parent: Option<String>,
    },
    /// `entry.firstKeptEntryId = id` (`None` is undefined, which JSON drops).
    SetFirstKeptEntryId {
        entry: usize,
        id: Option<String>,
    },
    DeleteFirstKeptEntryIndex {
        entry: usize,
    },
    /// `entry.message.role = "custom"` (was `hookMessage`).
    RenameHookMessage {
        entry: usize,
    },
}

impl Edit {
    pub fn entry(&self) -> usize {
        match self {
            Edit::SetVersion { entry }
            | Edit::SetId { entry, .. }
            | Edit::SetParentId { entry, .. }
            | Edit::SetFirstKeptEntryId { entry, .. }
            | Edit::DeleteFirstKeptEntryIndex { entry }
            | Edit::RenameHookMessage { entry } => *entry,
        }
    }
}

/// The version a session declares: the first header's `version ?? 1`.
pub fn declared_version(entries: &[Entry]) -> f64 {
    match entries.iter().find(|e| e.is_header()).map(|e| &e.detail) {
        Some(Detail::Header { version: Some(v) }) => *v,
        _ => 1.0,
    }
}

/// Whether a session whose first line is `line` is current (v3 or later),
/// judged from that line alone: it holds when the line is a header, since the
/// first header decides. `false` means "read the whole file to know".
pub fn first_line_is_current_header(line: &str) -> bool {
    let line = line.trim_start_matches('\u{feff}');
    let Ok(value) = crate::json::parse(line, crate::json::Span::new(0, line.len())) else {
        return false;
    };
    let entry = Entry::from_json(line, &value, &crate::time::IsoOnly, &mut 0);
    entry.is_header()
        && declared_version(std::slice::from_ref(&entry)) >= f64::from(CURRENT_VERSION)
}

/// The edits that bring `entries` to v3, or `None` when the session is current.
/// `new_id` makes a fresh id not in the set it is given.
pub fn plan(
    entries: &[Entry],
    new_id: &mut dyn FnMut(&HashSet<String>) -> String,
) -> Option<Vec<Edit>> {
    let version = declared_version(entries);
    // JS comparisons: NaN is neither >= 3 nor < 2, so such a file is "migrated"
    // by no step at all, and pi still reports a migration.
    if version >= f64::from(CURRENT_VERSION) {
        return None;
    }
    let mut edits = Vec::new();
    if version < 2.0 {
        v1_to_v2(entries, new_id, &mut edits);
    }
    if version < 3.0 {
        for (i, e) in entries.iter().enumerate() {
            match (&e.kind, &e.detail) {
                (EntryType::Session, _) => edits.push(Edit::SetVersion { entry: i }),
                (
                    EntryType::Message,
                    Detail::Message {
                        role: Role::HookMessage,
                    },
                ) => edits.push(Edit::RenameHookMessage { entry: i }),
                _ => {}
            }
        }
    }
    Some(edits)
}

fn v1_to_v2(
    entries: &[Entry],
    new_id: &mut dyn FnMut(&HashSet<String>) -> String,
    edits: &mut Vec<Edit>,
) {
    let mut taken: HashSet<String> = entries
        .iter()
        .filter_map(|e| e.id.as_str().map(str::to_owned))
        .collect();
    // The id each entry has at this point of the walk (pi reads a later
    // entry's id before it is assigned).
    let mut ids: Vec<Option<String>> = entries
        .iter()
        .map(|e| e.id.as_str().map(str::to_owned))
        .collect();
    let mut prev: Option<String> = None;
    for (i, e) in entries.iter().enumerate() {
        if e.is_header() || !e.is_object {
            continue;
        }
        let id = match e.id.as_str() {
            Some(kept) => {
                if e.parent_id == Key::Undefined {
                    edits.push(Edit::SetParentId {
                        entry: i,
                        parent: prev.clone(),
                    });
                }
                kept.to_owned()
            }
            None => {
                let id = new_id(&taken);
                taken.insert(id.clone());
                edits.push(Edit::SetId {
                    entry: i,
                    id: id.clone(),
                });
                edits.push(Edit::SetParentId {
                    entry: i,
                    parent: prev.clone(),
                });
                id
            }
        };
        ids[i] = Some(id.clone());
        prev = Some(id);
        if let Detail::Compaction {
            first_kept_entry_index: Some(index),
            ..
        } = e.detail
        {
            // `entries[index]`: only an integer in range names an element.
            let target = (index.fract() == 0.0 && index >= 0.0 && index < entries.len() as f64)
                .then_some(index as usize);
            if let Some(t) = target.filter(|&t| !entries[t].is_header()) {
                edits.push(Edit::SetFirstKeptEntryId {
                    entry: i,
                    id: ids[t].clone(),
                });
            }
            edits.push(Edit::DeleteFirstKeptEntryIndex { entry: i });
        }
    }
}

/// Applies `edits` to the JSONL `text` whose parsed lines are `lines` (the
/// entries of the plan are their `Value` lines, in order). Every line of the
/// input is in the output in its place; each ends with `\n`.
pub fn apply_to_text(text: &str, lines: &[Line], edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 64);
    apply(text, lines, edits, false, &mut out);
    out
}

/// [`apply_to_text`] as pieces: ranges of `text` kept as they are and new
/// text between them. A host holding the original bytes builds the migrated
/// file from these without the whole of it crossing back out of wasm.
pub fn splices(text: &str, lines: &[Line], edits: &[Edit]) -> Splices {
    let mut out = Splices::default();
    apply(text, lines, edits, false, &mut out);
    out
}

/// The migrated text as pieces: `pieces` holds `(new, start, end)` triples,
/// a range of the original text (`new == 0`) or of `inserted` (`new == 1`).
#[derive(Default, Debug)]
pub struct Splices {
    pub pieces: Vec<u32>,
    pub inserted: String,
    len: usize,
}

/// Where a rewrite writes: kept ranges of the original text and new text.
pub trait Sink {
    fn keep(&mut self, text: &str, start: usize, end: usize);
    fn insert(&mut self, s: &str);
    /// The length written so far.
    fn len(&self) -> usize;
    fn ends_with_newline(&self, text: &str) -> bool;
}

impl Sink for String {
    fn keep(&mut self, text: &str, start: usize, end: usize) {
        self.push_str(&text[start..end]);
    }
    fn insert(&mut self, s: &str) {
        self.push_str(s);
    }
    fn len(&self) -> usize {
        String::len(self)
    }
    fn ends_with_newline(&self, _: &str) -> bool {
        self.ends_with('\n')
    }
}

impl Sink for Splices {
    fn keep(&mut self, _: &str, start: usize, end: usize) {
        self.piece(0, start, end);
    }
    fn insert(&mut self, s: &str) {
        let start = self.inserted.len();
        self.inserted.push_str(s);
        self.piece(1, start, self.inserted.len());
    }
    fn len(&self) -> usize {
        self.len
    }
    fn ends_with_newline(&self, text: &str) -> bool {
        match self.pieces.rchunks_exact(3).next() {
            Some(&[new, _, end]) => {
                let from = if new == 0 { text } else { &self.inserted };
                from.as_bytes()[end as usize - 1] == b'\n'
            }
            _ => false,
        }
    }
}

impl Splices {
    fn piece(&mut self, new: u32, start: usize, end: usize) {
        if start == end {
            return;
        }
        self.len += end - start;
        // A piece that continues the last one of its kind extends it.
        if let Some(last) = self.pieces.rchunks_exact_mut(3).next() {
            if last[0] == new && last[2] as usize == start {
                last[2] = end as u32;
                return;
            }
        }
        self.pieces.extend([new, start as u32, end as u32]);
    }
}

/// [`apply_to_text`], turning `lines` into the lines of the result as parsing
/// it would give them: lines that did not change, and members a rewrite only
/// moved, are moved along instead of being read again; any other rewritten
/// line is parsed.
pub fn apply_with_lines(text: &str, mut lines: Vec<Line>, edits: &[Edit]) -> (String, Vec<Line>) {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 64);
    let placed = apply(text, &lines, edits, true, &mut out);
    for (line, place) in lines.iter_mut().zip(placed) {
        let end = line.span.end.wrapping_add_signed(place.after);
        match place.rewritten {
            None => line.shift(place.before),
            Some(Rewritten::Appended(span, appended)) => {
                if let LineContent::Value(value) = &mut line.content {
                    value.shift(span.start as isize - value.span.start as isize);
                    value.span = span;
                    value.members.extend(appended);
                }
                line.span = Span::new(line.span.start.wrapping_add_signed(place.before), end);
            }
            Some(Rewritten::Written(span)) => {
                line.content = match json::parse(&out, span) {
                    Ok(v) => LineContent::Value(v),
                    Err(e) => LineContent::Malformed(e),
                };
                line.span = Span::new(line.span.start.wrapping_add_signed(place.before), end);
            }
        }
    }
    (out, lines)
}

/// Where a line went: how far its start and its end moved, and what became
/// of a line that was rewritten.
struct Placed {
    before: isize,
    after: isize,
    rewritten: Option<Rewritten>,
}

enum Rewritten {
    /// Copied whole with members appended: its new span and the new members.
    Appended(Span, Vec<Member>),
    /// Written member by member, at this span: to be parsed.
    Written(Span),
}

fn apply(
    text: &str,
    lines: &[Line],
    edits: &[Edit],
    place: bool,
    out: &mut impl Sink,
) -> Vec<Placed> {
    let mut placed = Vec::with_capacity(if place { lines.len() } else { 0 });
    // Each entry's edits together, in the order they were planned (a stable sort).
    let mut order: Vec<&Edit> = edits.iter().collect();
    order.sort_by_key(|e| e.entry());
    let mut rest = order.as_slice();
    let mut copied = 0;
    let mut entry = 0;
    for line in lines {
        // How far text not yet copied moves: where it lands minus where it is.
        let unchanged = |len: usize, copied: usize| {
            let by = len as isize - copied as isize;
            Placed {
                before: by,
                after: by,
                rewritten: None,
            }
        };
        let LineContent::Value(value) = &line.content else {
            if place {
                placed.push(unchanged(out.len(), copied));
            }
            continue;
        };
        let n = rest.iter().take_while(|e| e.entry() == entry).count();
        let (mine, later) = rest.split_at(n);
        rest = later;
        entry += 1;
        if mine.is_empty() {
            if place {
                placed.push(unchanged(out.len(), copied));
            }
            continue;
        }
        let before = out.len() as isize - copied as isize;
        out.keep(text, copied, value.span.start);
        let start = out.len();
        let appended = rewrite_object(text, value.span, &value.members, mine, out);
        copied = value.span.end;
        if place {
            let span = Span::new(start, out.len());
            let rewritten = match appended {
                Some(appended) => Rewritten::Appended(span, appended),
                None => Rewritten::Written(span),
            };
            placed.push(Placed {
                before,
                after: out.len() as isize - copied as isize,
                rewritten: Some(rewritten),
            });
        }
    }
    out.keep(text, copied, text.len());
    if out.len() > 0 && !out.ends_with_newline(text) {
        out.insert("\n");
    }
    placed
}

/// Writes the object with `members` after `edits`: replaced values stay where
/// their key was, new keys go last in the order pi adds them, deleted keys go.
/// When the object was copied whole with keys appended, returns those new
/// members (at their place in `out`).
fn rewrite_object(
    text: &str,
    span: Span,
    members: &[Member],
    edits: &[&Edit],
    out: &mut impl Sink,
) -> Option<Vec<Member>> {
    let mut replace: Vec<(&str, String)> = Vec::new();
    let mut remove: Vec<&str> = Vec::new();
    let mut rename_role = false;
    for e in edits {
        match e {
            Edit::SetVersion { .. } => replace.push(("version", "3".into())),
            Edit::SetId { id, .. } => replace.push(("id", json_string(id))),
            Edit::SetParentId { parent, .. } => replace.push((
                "parentId",
                parent.as_deref().map_or_else(|| "null".into(), json_string),
            )),
            Edit::SetFirstKeptEntryId { id: Some(id), .. } => {
                replace.push(("firstKeptEntryId", json_string(id)))
            }
            Edit::SetFirstKeptEntryId { id: None, .. } => remove.push("firstKeptEntryId"),
            Edit::DeleteFirstKeptEntryIndex { .. } => remove.push("firstKeptEntryIndex"),
            Edit::RenameHookMessage { .. } => rename_role = true,
        }
    }
    // Where each name a rewrite can touch last occurs, found in one pass so
    // that an object with many keys costs time linear in its size.
    const TOUCHED: [&str; 5] = ["version", "id", "parentId", "firstKeptEntryId", "message"];
    let last = json::find_all(text, members, TOUCHED);
    let last_of = |name: &str| {
        TOUCHED
            .iter()
            .position(|n| *n == name)
            .and_then(|p| last[p])
    };
    // The common case, a v1 line as pi wrote it getting new keys at its end:
    // the members are already as they would be written, so copy them at once.
    let appends_only =
        remove.is_empty() && !rename_role && replace.iter().all(|(n, _)| last_of(n).is_none());
    if appends_only && is_compact(span, members) {
        out.keep(text, span.start, span.end - 1);
        let mut first = members.is_empty();
        let mut appended = Vec::with_capacity(replace.len());
        for (name, value) in &replace {
            if !first {
                out.insert(",");
            }
            first = false;
            let key = out.len();
            out.insert(&json_string(name));
            let colon = out.len();
            out.insert(":");
            out.insert(value);
            appended.push(Member {
                key: Span::new(key, colon),
                value: Span::new(colon + 1, out.len()),
                kind: Kind::of_first_byte(value.as_bytes()[0]),
            });
        }
        out.insert("}");
        return Some(appended);
    }
    out.insert("{");
    let mut first = true;
    for (i, m) in members.iter().enumerate() {
        let name_is = |n: &str| json::key_is(text, m.key, n);
        if remove.iter().any(|n| name_is(n)) {
            continue;
        }
        if !first {
            out.insert(",");
        }
        first = false;
        // Replace the value of the last duplicate only: that is the one JSON.parse keeps.
        let replacement = replace
            .iter()
            .find(|(n, _)| name_is(n) && last_of(n) == Some(i));
        match replacement {
            Some((_, v)) => {
                out.keep(text, m.key.start, m.value.start);
                out.insert(v);
            }
            None if rename_role && name_is("message") && last_of("message") == Some(i) => {
                out.keep(text, m.key.start, m.value.start);
                out.insert(&renamed_role(text, m.value));
            }
            None => out.keep(text, m.key.start, m.value.end),
        }
    }
    for (name, value) in &replace {
        if last_of(name).is_none() {
            if !first {
                out.insert(",");
            }
            first = false;
            out.insert(&json_string(name));
            out.insert(":");
            out.insert(value);
        }
    }
    out.insert("}");
    None
}

/// Whether an object's text is its members joined by `,` between braces, with
/// no whitespace: exactly what the member-by-member rewrite would write.
fn is_compact(span: Span, members: &[Member]) -> bool {
    let mut at = span.start + 1;
    for (i, m) in members.iter().enumerate() {
        if m.key.start != at + usize::from(i > 0) || m.value.start != m.key.end + 1 {
            return false;
        }
        at = m.value.end;
    }
    at + 1 == span.end
}

/// The message object's text with its `role` set to `"custom"`.
fn renamed_role(text: &str, message: Span) -> String {
    let members = json::members(text, message);
    match members
        .iter()
        .rev()
        .find(|m| json::key_is(text, m.key, "role"))
    {
        Some(role) => format!(
            "{}\"custom\"{}",
            &text[message.start..role.value.start],
            &text[role.value.end..message.end]
        ),
        None => message.of(text).to_owned(),
    }
}

/// A string as `JSON.stringify` writes it (serde_json escapes the same characters the same way).
pub fn json_string(s: &str) -> String {
    // Ids, keys and timestamps rarely need an escape: quote those directly.
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return out;
    }
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Document;

    fn counter() -> impl FnMut(&HashSet<String>) -> String {
        let mut n = 0;
        move |taken: &HashSet<String>| loop {
            n += 1;
            let id = format!("{n:08x}");
            if !taken.contains(&id) {
                return id;
            }
        }
    }

    fn migrate(text: &str) -> String {
        let doc = Document::parse(text);
        match plan(&doc.entries, &mut counter()) {
            Some(edits) => apply_to_text(&doc.text, &doc.lines, &edits),
            None => text.to_owned(),
        }
    }

    #[test]
    fn v1_gets_ids_a_chain_and_kept_entry_ids() {
        let v1 = concat!(
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"hi"}}"#,
            "\n",
            "not json\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"hookMessage"}}"#,
            "\n",
            r#"{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":1,"tokensBefore":5}"#,
            "\n",
        );
        let expected = concat!(
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/","version":3}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"hi"},"id":"00000001","parentId":null}"#,
            "\n",
            "not json\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"custom"},"id":"00000002","parentId":"00000001"}"#,
            "\n",
            r#"{"type":"compaction","timestamp":"t","summary":"s","tokensBefore":5,"id":"00000003","parentId":"00000002","firstKeptEntryId":"00000001"}"#,
            "\n",
        );
        assert_eq!(migrate(v1), expected);
        // Idempotent.
        assert_eq!(migrate(expected), expected);
    }

    #[test]
    fn kept_entry_index_edge_cases() {
        let v1 = concat!(
            r#"{"type":"session","id":"s"}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":0,"firstKeptEntryId":"old"}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":3}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":9}"#,
            "\n",
        );
        let out = migrate(v1);
        let lines: Vec<&str> = out.lines().collect();
        // Pointing at the header: only the index goes.
        assert_eq!(
            lines[1],
            r#"{"type":"compaction","firstKeptEntryId":"old","id":"00000001","parentId":null}"#
        );
        // A later entry has no id yet when pi reads it: the key is dropped.
        assert_eq!(
            lines[2],
            r#"{"type":"compaction","id":"00000002","parentId":"00000001"}"#
        );
        assert_eq!(
            lines[3],
            r#"{"type":"compaction","id":"00000003","parentId":"00000002"}"#
        );
    }

    #[test]
    fn current_files_are_untouched_and_v2_only_renames() {
        let v3 = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\r\n{\"a\":1}";
        assert!(plan(&Document::parse(v3).entries, &mut counter()).is_none());
        let v2 = "{\"type\":\"session\",\"version\":2}\n\n{\"type\":\"message\",\"id\":\"x\",\"parentId\":null,\"message\":{\"role\":\"hookMessage\",\"n\":1}}\r\n";
        assert_eq!(
            migrate(v2),
            "{\"type\":\"session\",\"version\":3}\n\n{\"type\":\"message\",\"id\":\"x\",\"parentId\":null,\"message\":{\"role\":\"custom\",\"n\":1}}\r\n"
        );
    }

    #[test]
    fn existing_ids_are_kept_and_new_ones_avoid_them() {
        let headerless = "{\"type\":\"message\",\"id\":\"00000001\",\"parentId\":null}\n{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"00000001\"}\n{\"type\":\"message\"}\n";
        assert_eq!(
            migrate(headerless),
            "{\"type\":\"message\",\"id\":\"00000001\",\"parentId\":null}\n{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"00000001\"}\n{\"type\":\"message\",\"id\":\"00000002\",\"parentId\":\"b\"}\n"
        );
    }

    #[test]
    fn a_current_header_on_the_first_line_settles_it() {
        assert!(first_line_is_current_header(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}"
        ));
        assert!(first_line_is_current_header(
            "\u{feff}{\"type\":\"session\",\"version\":\"4\"}\r"
        ));
        assert!(!first_line_is_current_header(
            "{\"type\":\"session\",\"version\":2}"
        ));
        assert!(!first_line_is_current_header("{\"type\":\"session\"}"));
        assert!(!first_line_is_current_header(
            "{\"type\":\"message\",\"version\":3}"
        ));
        assert!(!first_line_is_current_header("garbage"));
    }

    #[test]
    fn strings_are_written_as_json_stringify_does() {
        assert_eq!(json_string("a\"\\\n\u{1}é"), "\"a\\\"\\\\\\n\\u0001é\"");
    }
}
