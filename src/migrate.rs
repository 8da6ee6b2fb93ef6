//! Bringing v1 and v2 sessions to v3, as pi's `migrateToCurrentVersion` does.
//!
//! [`plan`] decides what changes, as a list of [`Edit`]s on entries; the text
//! form applies them by splicing the lines ([`apply_to_text`]), the array form
//! (in the bindings) by setting properties. A file as pi's older versions
//! wrote it is migrated in one pass over its lines instead
//! ([`migrate_in_one_pass`]), with the same result. Two things differ from pi, because
//! pi loses data there: an entry that already has a string id keeps it and its
//! `parentId` (pi re-ids every entry of a header-less file, destroying its
//! branches), and lines that are not entries stay in the text where they were.

use std::convert::Infallible;

use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::ids::{fresh_word, hex, push_hex, Words};
use crate::json::{self, Kind, Member, Span};
use crate::parse::{Line, LineContent, LineReader};
use crate::time::DateParser;

pub mod stream;

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
    /// `entry.parentId = parent` (`None` is null). A string key: an id kept
    /// may hold a lone surrogate, which no `String` can.
    SetParentId {
        entry: usize,
        parent: Option<Key>,
    },
    /// `entry.firstKeptEntryId = id` (`None` is undefined, which JSON drops);
    /// a string key, as for `SetParentId`.
    SetFirstKeptEntryId {
        entry: usize,
        id: Option<Key>,
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
    /// The facts of an entry after this edit, as a parse of the edited text reads them.
    pub fn apply_to(&self, entry: &mut Entry) {
        let text_key = |s: &String| Key::string(s);
        match (self, &mut entry.detail) {
            (Edit::SetVersion { .. }, Detail::Header { version }) => {
                **version = Some(f64::from(CURRENT_VERSION));
            }
            (Edit::SetId { id, .. }, _) => entry.id = text_key(id),
            (Edit::SetParentId { parent, .. }, _) => {
                entry.parent_id = parent.clone().unwrap_or(Key::Null);
            }
            (Edit::SetFirstKeptEntryId { id, .. }, Detail::Compaction { kept, .. }) => {
                kept.id = id.clone().unwrap_or(Key::Undefined)
            }
            (Edit::DeleteFirstKeptEntryIndex { .. }, Detail::Compaction { kept, .. }) => {
                kept.index = None
            }
            (Edit::RenameHookMessage { .. }, Detail::Message { role, .. }) => *role = Role::Custom,
            _ => {}
        }
    }

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
/// Out of line: asked once per file, from some fifteen places.
#[inline(never)]
pub fn declared_version(entries: &[Entry]) -> f64 {
    match entries.iter().find(|e| e.is_header()).map(|e| &e.detail) {
        Some(Detail::Header { version }) => version.unwrap_or(1.0),
        _ => 1.0,
    }
}

/// Whether the session of `entries` is current (v3 or later): no migration
/// changes it.
pub fn is_current(entries: &[Entry]) -> bool {
    declared_version(entries) >= f64::from(CURRENT_VERSION)
}

/// Whether a session whose first line is `line` is current (v3 or later),
/// judged from that line alone: it holds when the line is a header, since the
/// first header decides. `false` means "read the whole file to know".
pub fn first_line_is_current_header(line: &str) -> bool {
    let line = line.trim_start_matches('\u{feff}');
    let Ok(value) = crate::json::parse(line, crate::json::Span::new(0, line.len())) else {
        return false;
    };
    let entry = Entry::from_json(line, &value, None, &mut 0);
    entry.is_header()
        && declared_version(std::slice::from_ref(&entry)) >= f64::from(CURRENT_VERSION)
}

/// The edits that bring `entries` to v3, or `None` when the session is current.
/// `new_id` makes a fresh id not in the set it is given.
pub fn plan(
    entries: &[Entry],
    new_id: &mut dyn FnMut(&crate::ids::Taken) -> String,
) -> Option<Vec<Edit>> {
    infallible(try_plan(entries, &mut |taken| Ok(new_id(taken))))
}

/// [`plan`] with an id source that can fail (a platform without a random
/// source): its first failure ends the plan and is the answer.
pub fn try_plan<E>(
    entries: &[Entry],
    new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
) -> Result<Option<Vec<Edit>>, E> {
    // JS comparisons: NaN is neither >= 3 nor < 2, so such a file is "migrated"
    // by no step at all, and pi still reports a migration.
    if is_current(entries) {
        return Ok(None);
    }
    let version = declared_version(entries);
    let mut edits = Vec::new();
    if version < 2.0 {
        let mut walk = Walk::of(entries);
        for (i, e) in entries.iter().enumerate() {
            walk.step(i, e, new_id, &mut edits)?;
        }
    }
    for (i, e) in entries.iter().enumerate() {
        v2_to_v3(version, i, e, &mut edits);
    }
    Ok(Some(edits))
}

/// The v2 → v3 step of entry `i` of a session declaring `version` (below 3):
/// every header gets version 3, a `hookMessage` role becomes `custom`.
pub fn v2_to_v3(version: f64, i: usize, e: &Entry, edits: &mut Vec<Edit>) {
    // Below 3 here, or NaN, which no JS comparison admits (and `< 3` would
    // only hide that a version of 3 never gets here).
    if version.is_nan() {
        return;
    }
    match (&e.kind(), &e.detail) {
        (EntryType::Session, _) => edits.push(Edit::SetVersion { entry: i }),
        (
            EntryType::Message,
            Detail::Message {
                role: Role::HookMessage,
                ..
            },
        ) => edits.push(Edit::RenameHookMessage { entry: i }),
        _ => {}
    }
}

/// The value of a result that cannot be an error.
fn infallible<T>(result: Result<T, Infallible>) -> T {
    match result {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

/// The v1 → v2 step, one entry at a time in file order. Of the other
/// entries it knows only what the step reads of them: their ids, and which
/// are headers. So a reader that cannot hold a file's entries (see
/// [`stream`]) walks it as [`plan`] walks a whole one.
pub struct Walk {
    taken: crate::ids::Taken,
    /// The id each entry has at this point of the walk: pi reads a later
    /// entry's id (its own, if any) before it is assigned. A string key.
    ids: Vec<Option<Key>>,
    /// Ascending (a file's few headers): a search, not a set with its own
    /// hashing code.
    headers: Vec<usize>,
    prev: Option<Key>,
}

impl Walk {
    /// The walk of `entries`.
    pub fn of(entries: &[Entry]) -> Walk {
        let ids = entries.iter().map(|e| string_id(&e.id)).collect();
        let headers = (0..entries.len())
            .filter(|&i| entries[i].is_header())
            .collect();
        Walk::new(ids, headers)
    }

    /// The walk of a file whose entries have the string ids `ids` (`None`
    /// for one without) and whose headers are the entries `headers`, in
    /// ascending order.
    pub fn new(ids: Vec<Option<Key>>, headers: Vec<usize>) -> Walk {
        // New ids are hex digits: only a valid UTF-8 string can be one.
        let taken = ids
            .iter()
            .flatten()
            .filter_map(|k| k.as_str().map(String::from))
            .collect();
        Walk {
            taken,
            ids,
            headers,
            prev: None,
        }
    }

    /// The edits of entry `i`, `e`, appended to `edits`; `new_id` makes a
    /// fresh id not in the set it is given.
    pub fn step<E>(
        &mut self,
        i: usize,
        e: &Entry,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
        edits: &mut Vec<Edit>,
    ) -> Result<(), E> {
        if e.is_header() || !e.is_object() {
            return Ok(());
        }
        let id = match string_id(&e.id) {
            Some(kept) => {
                if e.parent_id == Key::Undefined {
                    edits.push(Edit::SetParentId {
                        entry: i,
                        parent: self.prev.clone(),
                    });
                }
                kept
            }
            None => {
                let id = new_id(&self.taken)?;
                self.taken.insert(id.clone());
                edits.push(Edit::SetId {
                    entry: i,
                    id: id.clone(),
                });
                edits.push(Edit::SetParentId {
                    entry: i,
                    parent: self.prev.clone(),
                });
                Key::string(&id)
            }
        };
        if let Some(slot) = self.ids.get_mut(i) {
            *slot = Some(id.clone());
        }
        self.prev = Some(id);
        if let Detail::Compaction { kept, .. } = &e.detail {
            let Some(index) = kept.index else {
                return Ok(());
            };
            // `entries[index]`: only an integer in range names an element.
            let target = (index.fract() == 0.0 && index >= 0.0 && index < self.ids.len() as f64)
                .then_some(index as usize);
            if let Some(t) = target.filter(|t| self.headers.binary_search(t).is_err()) {
                edits.push(Edit::SetFirstKeptEntryId {
                    entry: i,
                    id: self.ids[t].clone(),
                });
            }
            edits.push(Edit::DeleteFirstKeptEntryIndex { entry: i });
        }
        Ok(())
    }
}

/// [`plan`] and [`apply_to_text`] in one pass over the lines, for a file of
/// the shape pi's older versions wrote: its header first and no other, no
/// entry with an id of its own, compactions keeping entries before them.
/// Nothing is kept per line but what a later compaction may ask for (each
/// entry's new id), and the usual entry is written without building its
/// edits. `None` when the text is not of that shape or is current: the two
/// steps then give the answer. `draw` gives four random bytes, the new ids
/// being their hex digits (as [`crate::ids::random_id`] makes them).
pub fn migrate_in_one_pass(text: &str, draw: &mut dyn FnMut() -> [u8; 4]) -> Option<String> {
    infallible(try_migrate_in_one_pass(text, &mut || Ok(draw())))
}

/// [`migrate_in_one_pass`] with a source of random bytes that can fail: its
/// first failure ends the migration and is the answer.
pub fn try_migrate_in_one_pass<E>(
    text: &str,
    draw: &mut dyn FnMut() -> Result<[u8; 4], E>,
) -> Result<Option<String>, E> {
    Ok(one_pass(text, draw, None)?.map(|(out, _)| out))
}

/// The entries of the text [`try_migrate_in_one_pass`] writes, read in the
/// same pass: each entry as a parse of the new text gives it (times read with
/// `dates`), and where its value is there. What a tree needs, without reading
/// the new text again.
pub type MigratedEntries = (String, Vec<Entry>, Vec<Span>);

/// [`try_migrate_in_one_pass`], keeping what [`MigratedEntries`] says.
pub fn try_migrate_entries_in_one_pass<E>(
    text: &str,
    draw: &mut dyn FnMut() -> Result<[u8; 4], E>,
    dates: &dyn DateParser,
) -> Result<Option<MigratedEntries>, E> {
    let collect = Collect {
        dates,
        entries: Vec::new(),
        spans: Vec::new(),
    };
    Ok(one_pass(text, draw, Some(collect))?
        .and_then(|(out, c)| c.map(|c| (out, c.entries, c.spans))))
}

/// What the one pass keeps of each entry when asked to (see [`MigratedEntries`]).
struct Collect<'a> {
    dates: &'a dyn DateParser,
    entries: Vec<Entry>,
    spans: Vec<Span>,
}

impl Collect<'_> {
    /// Notes `entry`, with `edits` made to it, at `start..end` of the new text.
    fn note(&mut self, mut entry: Entry, edits: &[Edit], start: usize, end: usize) {
        for edit in edits {
            edit.apply_to(&mut entry);
        }
        self.entries.push(entry);
        self.spans.push(Span::new(start, end));
    }
}

/// The pass behind both: the migrated text, and `collect` with what it noted.
fn one_pass<'a, E>(
    text: &str,
    draw: &mut dyn FnMut() -> Result<[u8; 4], E>,
    mut collect: Option<Collect<'a>>,
) -> Result<Option<(String, Option<Collect<'a>>)>, E> {
    // What a compaction's `firstKeptEntryIndex` may name: each entry so far.
    #[derive(Clone, Copy, PartialEq)]
    enum Kept {
        Header,
        Id(u32),
        NoId,
    }
    let mut reader = LineReader::<true>::new(text);
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 64);
    let mut kept: Vec<Kept> = Vec::new();
    let mut taken = Words::default();
    let (mut to_v2, mut to_v3) = (false, false);
    let mut prev: Option<u32> = None;
    let mut copied = 0;
    let mut unique = 0;
    let mut edits: Vec<Edit> = Vec::new();
    while let Some((_, _, parsed)) = reader.next() {
        if parsed.is_err() || !crate::parse::is_kept(text, &reader.value) {
            continue;
        }
        let value = &reader.value;
        let dates = collect.as_ref().map(|c| c.dates);
        let entry = Entry::from_json(text, value, dates, &mut unique);
        let index = kept.len();
        let renamed = to_v3 && is_hook_message(&entry);
        if entry.is_header() {
            if index > 0 {
                return Ok(None);
            }
            let version = declared_version(std::slice::from_ref(&entry));
            if version >= f64::from(CURRENT_VERSION) {
                return Ok(None);
            }
            // Below 3 here, or NaN: then neither step, as in `plan`.
            (to_v2, to_v3) = (version < 2.0, !version.is_nan());
            if let Key::Hex(id) = entry.id {
                taken.insert(id);
            }
            kept.push(Kept::Header);
        } else if index == 0 {
            // The version is the first header's, wherever it is.
            return Ok(None);
        } else if to_v2 && entry.is_object() {
            if entry.id != Key::Undefined {
                return Ok(None);
            }
            let Some(id) = fresh_word(&mut taken, draw)? else {
                return Ok(None);
            };
            kept.push(Kept::Id(id));
            let parent = prev.replace(id);
            let kept_index = match &entry.detail {
                Detail::Compaction { kept, .. } => kept.index,
                _ => None,
            };
            if kept_index.is_none()
                && !renamed
                && entry.parent_id == Key::Undefined
                && is_compact(value.span, &value.members)
            {
                out.push_str(&text[copied..value.span.start]);
                let start = out.len();
                let object = value.span.of(text);
                append_id_and_parent(object, !value.members.is_empty(), id, parent, &mut out);
                copied = value.span.end;
                if let Some(c) = collect.as_mut() {
                    c.note(entry, &id_edits(index, id, parent), start, out.len());
                }
                continue;
            }
            edits.extend(id_edits(index, id, parent));
            if let Some(at) = kept_index {
                // `entries[index]` with the ids given so far; one not yet
                // reached would need the rest of the file.
                if at.fract() == 0.0 && at >= 0.0 {
                    if at > index as f64 {
                        return Ok(None);
                    }
                    match kept[at as usize] {
                        Kept::Header => {}
                        Kept::Id(id) => edits.push(Edit::SetFirstKeptEntryId {
                            entry: index,
                            id: Some(hex_key(id)),
                        }),
                        Kept::NoId => edits.push(Edit::SetFirstKeptEntryId {
                            entry: index,
                            id: None,
                        }),
                    }
                }
                edits.push(Edit::DeleteFirstKeptEntryIndex { entry: index });
            }
        } else {
            kept.push(Kept::NoId);
        }
        if to_v3 && entry.is_header() {
            edits.push(Edit::SetVersion { entry: index });
        }
        if renamed {
            edits.push(Edit::RenameHookMessage { entry: index });
        }
        if !edits.is_empty() {
            out.push_str(&text[copied..value.span.start]);
            let start = out.len();
            let mine: Vec<&Edit> = edits.iter().collect();
            rewrite_object(text, value.span, &value.members, &mine, &mut out);
            copied = value.span.end;
            if let Some(c) = collect.as_mut() {
                c.note(entry, &edits, start, out.len());
            }
            edits.clear();
        } else if let Some(c) = collect.as_mut() {
            // Copied later as it is, after what lies between.
            let start = out.len() + (value.span.start - copied);
            c.note(entry, &[], start, start + value.span.len());
        }
    }
    if kept.is_empty() {
        return Ok(None);
    }
    out.push_str(&text[copied..]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(Some((out, collect)))
}

/// The string key of the id `id` (its eight hex digits).
fn hex_key(id: u32) -> Key {
    Key::Hex(id)
}

/// `id` if it is a string (one with a lone surrogate too: the v1 step keeps
/// every string id, and `Key::as_str` gives only valid UTF-8 ones).
pub(crate) fn string_id(id: &Key) -> Option<Key> {
    id.is_string().then(|| id.clone())
}

/// The edits that give entry `index` the id `id` and its parent's id.
fn id_edits(index: usize, id: u32, parent: Option<u32>) -> [Edit; 2] {
    [
        Edit::SetId {
            entry: index,
            id: hex(&id.to_be_bytes()),
        },
        Edit::SetParentId {
            entry: index,
            parent: parent.map(hex_key),
        },
    ]
}

/// A compact `object` with `"id"` and `"parentId"` added last: what
/// [`rewrite_object`] writes for those two edits, without building them.
fn append_id_and_parent(
    object: &str,
    has_members: bool,
    id: u32,
    parent: Option<u32>,
    out: &mut String,
) {
    out.push_str(&object[..object.len() - 1]);
    if has_members {
        out.push(',');
    }
    out.push_str("\"id\":\"");
    push_hex(out, &id.to_be_bytes());
    out.push_str("\",\"parentId\":");
    match parent {
        Some(p) => {
            out.push('"');
            push_hex(out, &p.to_be_bytes());
            out.push_str("\"}");
        }
        None => out.push_str("null}"),
    }
}

fn is_hook_message(entry: &Entry) -> bool {
    matches!(
        (&entry.kind(), &entry.detail),
        (
            EntryType::Message,
            Detail::Message {
                role: Role::HookMessage,
                ..
            }
        )
    )
}

/// Applies `edits` to the JSONL `text` whose parsed lines are `lines` (the
/// entries of the plan are their `Value` lines, in order). Every line of the
/// input is in the output in its place; each ends with `\n`.
pub fn apply_to_text(text: &str, lines: &[Line], edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 64);
    apply(text, lines, edits, false, &mut out);
    out
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

fn apply(text: &str, lines: &[Line], edits: &[Edit], place: bool, out: &mut String) -> Vec<Placed> {
    let mut placed = Vec::with_capacity(if place { lines.len() } else { 0 });
    // Each entry's edits together, in the order they were planned (a stable sort).
    let order = crate::order::sorted_by_key(edits.iter().collect(), |e: &&Edit| e.entry() as u64);
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
        // Falsy values are no entries (see `parse::is_kept`): kept as they are.
        let Some(value) = (match &line.content {
            LineContent::Value(value) if crate::parse::is_kept(text, value) => Some(value),
            _ => None,
        }) else {
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
        out.push_str(&text[copied..value.span.start]);
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
    out.push_str(&text[copied..]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    placed
}

/// Writes the object with `members` after `edits`: replaced values stay where
/// their key was, new keys go last in the order pi adds them, deleted keys go.
/// When the object was copied whole with keys appended, returns those new
/// members (at their place in `out`).
pub(crate) fn rewrite_object(
    text: &str,
    span: Span,
    members: &[Member],
    edits: &[&Edit],
    out: &mut String,
) -> Option<Vec<Member>> {
    let mut replace: Vec<(&str, String)> = Vec::new();
    let mut remove: Vec<&str> = Vec::new();
    let mut rename_role = false;
    for e in edits {
        match e {
            Edit::SetVersion { .. } => replace.push(("version", "3".into())),
            Edit::SetId { id, .. } => replace.push(("id", json::stringify(id))),
            Edit::SetParentId { parent, .. } => replace.push((
                "parentId",
                parent.as_ref().map_or_else(|| "null".into(), Key::to_json),
            )),
            Edit::SetFirstKeptEntryId { id: Some(id), .. } => {
                replace.push(("firstKeptEntryId", id.to_json()))
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
        out.push_str(&text[span.start..span.end - 1]);
        let mut first = members.is_empty();
        let mut appended = Vec::with_capacity(replace.len());
        for (name, value) in &replace {
            if !first {
                out.push(',');
            }
            first = false;
            let key = out.len();
            out.push_str(&json::stringify(name));
            let colon = out.len();
            out.push(':');
            out.push_str(value);
            appended.push(Member {
                key: Span::new(key, colon),
                value: Span::new(colon + 1, out.len()),
                kind: Kind::of_first_byte(value.as_bytes()[0]),
            });
        }
        out.push('}');
        return Some(appended);
    }
    out.push('{');
    let mut first = true;
    for (i, m) in members.iter().enumerate() {
        let name_is = |n: &str| json::key_is(text, m.key, n);
        if remove.iter().any(|n| name_is(n)) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        // Replace the value of the last duplicate only: that is the one JSON.parse keeps.
        let replacement = replace
            .iter()
            .find(|(n, _)| name_is(n) && last_of(n) == Some(i));
        match replacement {
            Some((_, v)) => {
                out.push_str(&text[m.key.start..m.value.start]);
                out.push_str(v);
            }
            None if rename_role && name_is("message") && last_of("message") == Some(i) => {
                out.push_str(&text[m.key.start..m.value.start]);
                out.push_str(&renamed_role(text, m.value));
            }
            None => out.push_str(&text[m.key.start..m.value.end]),
        }
    }
    for (name, value) in &replace {
        if last_of(name).is_none() {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&json::stringify(name));
            out.push(':');
            out.push_str(value);
        }
    }
    out.push('}');
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    fn counter() -> impl FnMut(&crate::ids::Taken) -> String {
        let mut n = 0;
        move |taken: &crate::ids::Taken| loop {
            n += 1;
            let id = format!("{n:08x}");
            if !taken.contains(&id) {
                return id;
            }
        }
    }

    /// Draws that count up from 1, giving the ids `counter` gives.
    fn words() -> impl FnMut() -> [u8; 4] {
        let mut n = 0u32;
        move || {
            n += 1;
            n.to_be_bytes()
        }
    }

    /// The two-step migration, checked against the one-pass one where that applies.
    fn migrate(text: &str) -> String {
        let doc = Document::parse(text);
        let out = match plan(&doc.entries, &mut counter()) {
            Some(edits) => apply_to_text(&doc.text, &doc.lines, &edits),
            None => text.to_owned(),
        };
        if let Some(one_pass) = migrate_in_one_pass(text, &mut words()) {
            assert_eq!(one_pass, out, "one pass differs on {text:?}");
        }
        out
    }

    #[test]
    fn one_pass_takes_the_files_older_pi_wrote_and_leaves_the_rest() {
        let header = r#"{"type":"session","id":"00000001","timestamp":"t","cwd":"/"}"#;
        let usual = [
            header,
            r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
            "not json",
            "",
            r#"{"type":"message","message":{"role":"hookMessage"}}"#,
            r#"{ "type": "message" }"#,
            r#"{"type":"message","parentId":"elsewhere"}"#,
            "42",
            r#"{"type":"compaction","firstKeptEntryIndex":1,"tokensBefore":5}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":6}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":0}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":"1"}"#,
            // `42` (no id) and the compaction itself.
            r#"{"type":"compaction","firstKeptEntryIndex":5,"firstKeptEntryId":"old"}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":11}"#,
        ]
        .join("\n");
        let one_pass = migrate_in_one_pass(&usual, &mut words()).expect("taken on");
        assert_eq!(one_pass, migrate(&usual));
        // The header's id is taken: the first new id is the next one.
        assert!(
            one_pass.contains(r#""role":"user","content":"hi"},"id":"00000002","parentId":null}"#)
        );
        let v2 = r#"{"type":"session","version":2}
{"type":"message","id":"x","message":{"role":"hookMessage"}}"#;
        assert_eq!(migrate_in_one_pass(v2, &mut words()).unwrap(), migrate(v2));

        let message = r#"{"type":"message"}"#;
        let not_taken = [
            String::new(),
            "garbage\n".into(),
            // The version is the first header's, and new ids must avoid later ones.
            format!("{message}\n{header}"),
            format!("{header}\n{message}\n{header}"),
            // Ids of their own decide which new ids are free.
            format!("{header}\n{message}\n{{\"type\":\"message\",\"id\":\"00000002\"}}"),
            // An entry not reached yet.
            format!("{header}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":2}}\n{message}"),
            r#"{"type":"session","version":3}"#.into(),
        ];
        for text in &not_taken {
            assert_eq!(migrate_in_one_pass(text, &mut words()), None, "{text:?}");
            migrate(text);
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
    fn a_failing_id_source_ends_the_migration_with_its_error() {
        let v1 = concat!(
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"a"}}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"b"}}"#,
            "\n",
        );
        // The second draw fails: that failure is the answer, and no draw follows.
        let mut calls = 0;
        let mut new_id = |_: &crate::ids::Taken| {
            calls += 1;
            if calls == 2 {
                Err("no source")
            } else {
                Ok(format!("{calls:08x}"))
            }
        };
        let doc = Document::parse(v1);
        assert_eq!(try_plan(&doc.entries, &mut new_id), Err("no source"));
        assert_eq!(calls, 2);
        let mut draws = 0;
        let mut draw = || {
            draws += 1;
            if draws == 2 {
                Err("no source")
            } else {
                Ok([0, 0, 0, draws])
            }
        };
        assert_eq!(try_migrate_in_one_pass(v1, &mut draw), Err("no source"));
        assert_eq!(draws, 2);
        // A current file draws nothing.
        let v3 = r#"{"type":"session","version":3}"#;
        let mut never = |_: &crate::ids::Taken| -> Result<String, ()> { Err(()) };
        assert_eq!(try_plan(&Document::parse(v3).entries, &mut never), Ok(None));
        assert_eq!(
            Document::parse(v3)
                .try_migrated(&crate::time::IsoOnly, &mut never)
                .map(|d| d.text),
            Ok(v3.to_owned())
        );
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

    /// A string id with a lone surrogate escape is a string id: kept, and
    /// the next entry's parent and a compaction's kept entry name it as
    /// written (not its U+FFFD reading, which names nothing).
    #[test]
    fn string_ids_with_lone_surrogates_are_kept() {
        let text = concat!(
            "{\"type\":\"session\",\"id\":\"s\"}\n",
            "{\"type\":\"message\",\"id\":\"k\\ud800\"}\n",
            "{\"type\":\"message\"}\n",
            "{\"type\":\"compaction\",\"firstKeptEntryIndex\":1}\n",
        );
        assert_eq!(
            migrate(text),
            concat!(
                "{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n",
                "{\"type\":\"message\",\"id\":\"k\\ud800\",\"parentId\":null}\n",
                "{\"type\":\"message\",\"id\":\"00000001\",\"parentId\":\"k\\ud800\"}\n",
                "{\"type\":\"compaction\",\"id\":\"00000002\",\"parentId\":\"00000001\",\"firstKeptEntryId\":\"k\\ud800\"}\n",
            )
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
    fn v2_files_take_the_v3_step_only() {
        // pi runs its v1 step below version 2 only: a v2 entry without an
        // id keeps none, and an index stays an index.
        let v2 = concat!(
            r#"{"type":"session","version":2}"#,
            "\n",
            r#"{"type":"message","message":{"role":"hookMessage"}}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":1}"#,
            "\n",
        );
        assert_eq!(
            migrate(v2),
            concat!(
                r#"{"type":"session","version":3}"#,
                "\n",
                r#"{"type":"message","message":{"role":"custom"}}"#,
                "\n",
                r#"{"type":"compaction","firstKeptEntryIndex":1}"#,
                "\n",
            )
        );
    }

    #[test]
    fn an_index_just_past_the_end_or_not_whole_names_nothing() {
        // `entries[2]` of two entries, and `entries[1.5]`, are undefined in
        // pi: the index goes and no id comes.
        let past = concat!(
            r#"{"type":"session","id":"s"}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":2}"#,
            "\n",
        );
        assert_eq!(
            migrate(past).lines().nth(1),
            Some(r#"{"type":"compaction","id":"00000001","parentId":null}"#)
        );
        let half = concat!(
            r#"{"type":"session","id":"s"}"#,
            "\n",
            r#"{"type":"message"}"#,
            "\n",
            r#"{"type":"compaction","firstKeptEntryIndex":1.5}"#,
            "\n",
        );
        let expected = r#"{"type":"compaction","id":"00000002","parentId":"00000001"}"#;
        assert_eq!(migrate(half).lines().nth(2), Some(expected));
        let one_pass = migrate_in_one_pass(half, &mut words()).expect("taken on");
        assert_eq!(one_pass.lines().nth(2), Some(expected));
    }

    #[test]
    fn one_pass_entries_are_a_parse_of_its_text() {
        let v1 = concat!(
            r#"{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
            "\n",
            "not json\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage"}}"#,
            "\n",
            r#"{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":1}"#,
            "\n",
            r#"{"type":"label","timestamp":"2025-01-01T00:00:04.000Z","targetId":"x","label":"l"}"#,
        );
        let mut counting = words();
        let draw = &mut || Ok::<_, Infallible>(counting());
        let (text, entries, spans) = infallible(try_migrate_entries_in_one_pass(
            v1,
            draw,
            &crate::time::IsoOnly,
        ))
        .expect("taken on");
        assert_eq!(text, migrate(v1));
        let doc = Document::parse(&text);
        assert_eq!(entries.len(), 5);
        assert_eq!(entries, doc.entries);
        assert_eq!(spans, doc.spans);
    }

    #[test]
    fn compact_means_members_joined_by_commas_between_braces() {
        for text in [
            "{}",
            r#"{"a":1}"#,
            r#"{"a":1,"b":[1, 2],"c":{ }}"#,
            "{ }",
            r#"{ "a":1}"#,
            r#"{"a" :1}"#,
            r#"{"a": 1}"#,
            r#"{"a":1 }"#,
            r#"{"a":1 ,"b":2}"#,
            r#"{"a":1, "b":2}"#,
            r#"{"a":1,"b":2 }"#,
        ] {
            let span = Span::new(0, text.len());
            let members = json::members(text, span);
            // What the member-by-member rewrite writes for these members.
            let joined: Vec<&str> = members
                .iter()
                .map(|m| &text[m.key.start..m.value.end])
                .collect();
            let rewritten = format!("{{{}}}", joined.join(","));
            let no_space_around_colons = members.iter().all(|m| m.value.start == m.key.end + 1);
            assert_eq!(
                is_compact(span, &members),
                rewritten == text && no_space_around_colons,
                "{text}"
            );
        }
    }

    #[test]
    fn falsy_lines_and_spaced_objects_in_v1_files() {
        // Falsy lines are no entries for pi 1.6's loader: they stay as they
        // are and take no id. A line with spaces is written member by member,
        // and a message's role is renamed only from hookMessage.
        let v1 = concat!(
            r#"{"type":"session","id":"s"}"#,
            "\n",
            "null\n",
            r#"{"type":"message", "message":{"role":"user"}}"#,
            "\n",
            "0\n",
            r#"{"type":"message","message":{"role":"assistant"}}"#,
            "\n",
        );
        assert_eq!(
            migrate(v1),
            concat!(
                r#"{"type":"session","id":"s","version":3}"#,
                "\n",
                "null\n",
                r#"{"type":"message","message":{"role":"user"},"id":"00000001","parentId":null}"#,
                "\n",
                "0\n",
                r#"{"type":"message","message":{"role":"assistant"},"id":"00000002","parentId":"00000001"}"#,
                "\n",
            )
        );
    }

    #[test]
    fn only_the_last_of_duplicate_keys_gets_the_new_value() {
        // JSON.parse keeps the last duplicate, so only its value changes;
        // the other stays as written (no byte is lost that need not be).
        let v1 = "{\"type\":\"session\",\"version\":0,\"version\":1}\n{\"type\":\"message\",\"id\":5,\"id\":6}\n";
        assert_eq!(
            migrate(v1),
            "{\"type\":\"session\",\"version\":0,\"version\":3}\n{\"type\":\"message\",\"id\":5,\"id\":\"00000001\",\"parentId\":null}\n"
        );
    }
}
