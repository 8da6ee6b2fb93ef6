//! What a session cost: one record per paid request, and totals per file,
//! per path, per branch and across many files.
//!
//! The accounting is pi 1.6's `getSessionStats`: every entry of the file in
//! file order, and of each the usage pi adds up —
//!
//! - an assistant message's `usage` (always: pi reads it even when missing);
//! - a tool result's `usage`, when it has one;
//! - a `usage` entry's `usage` (always; its `kind`, such as `cache_warm`, kept);
//! - a compaction's or a branch summary's `usage` (its summarizer's), when it has one.
//!
//! A record's tokens are `input`, `output`, `cacheRead` and `cacheWrite`, its
//! cost `cost.total`. On a file pi writes, a file's [`Totals`] equal pi's
//! `getSessionStats` tokens and cost: the same numbers added in the same
//! order. Where pi would throw (a usage that is missing) or compute garbage
//! (a string for a number, which JS concatenates), a field that is not a
//! finite number counts as zero here and its record is counted as
//! incomplete ([`Totals::incomplete`]).
//!
//! Across files ([`dedup`]), files linked by their header's `parentSession`
//! (forks and branched copies, which repeat their source's entries under the
//! same ids) form a lineage, and within one an entry (its id and timestamp)
//! is counted once. Files of different lineages are never compared: short
//! random ids collide across a large folder.
//!
//! Dates are bucketed in a time zone the host knows ([`Zone`]): the core holds
//! no time zone database, so the host says what a zone's offset is at an instant.

use std::collections::HashMap;

use crate::context;
use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::ids::IdHash;
use crate::json::{self, Kind, Member, Span};
use crate::order;
use crate::time;
use crate::tree::{self, SiblingSort};

/// What was paid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// An assistant message: the model's reply.
    Assistant,
    /// A tool result that carries usage (a tool that called a model).
    ToolResult,
    /// A `usage` entry, such as a cache warming request.
    Usage,
    /// A compaction's summarizer.
    Compaction,
    /// A branch summary's summarizer.
    BranchSummary,
}

impl RecordKind {
    /// Every kind, in the order [`ByKind`] keeps them.
    pub const ALL: [RecordKind; 5] = [
        RecordKind::Assistant,
        RecordKind::ToolResult,
        RecordKind::Usage,
        RecordKind::Compaction,
        RecordKind::BranchSummary,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The name used in reports: `assistant`, `toolResult`, `usage`,
    /// `compaction`, `branchSummary`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Assistant => "assistant",
            RecordKind::ToolResult => "toolResult",
            RecordKind::Usage => "usage",
            RecordKind::Compaction => "compaction",
            RecordKind::BranchSummary => "branchSummary",
        }
    }
}

/// One paid request.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The index of its entry in the file's entries.
    pub entry: usize,
    /// The entry's id (as `String(id)` would print it).
    pub id: String,
    /// The entry's `timestamp` as written (a string's value; other JSON as text).
    pub timestamp: String,
    /// `new Date(timestamp).getTime()`: milliseconds, NaN when not a date.
    pub time: f64,
    pub kind: RecordKind,
    /// A `usage` entry's own `kind` (`cache_warm`, …).
    pub usage_kind: Option<String>,
    pub provider: Option<String>,
    /// The model that answered: an assistant message's `responseModel`, else its `model`.
    pub model: Option<String>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `cost.total`, in the provider's currency (dollars).
    pub cost: f64,
    /// Some field was missing or not a finite number (counted as 0).
    pub incomplete: bool,
}

impl Record {
    /// Input, output, cache read and cache write, as pi adds them.
    pub fn total_tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// `provider/model`, the model alone, or `None` when the record names none
    /// (compactions, branch summaries and tool results never do).
    pub fn model_key(&self) -> Option<String> {
        match (&self.provider, &self.model) {
            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
            (None, Some(m)) => Some(m.clone()),
            _ => None,
        }
    }
}

/// Tokens and cost added up over records.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
    /// How many records were added.
    pub records: usize,
    /// How many of them were incomplete (a field counted as 0).
    pub incomplete: usize,
}

impl Totals {
    /// Adds one record, field by field as pi's `addUsageToTotals` does.
    #[inline(never)]
    pub fn add(&mut self, r: &Record) {
        self.input += r.input;
        self.output += r.output;
        self.cache_read += r.cache_read;
        self.cache_write += r.cache_write;
        self.cost += r.cost;
        self.records += 1;
        self.incomplete += usize::from(r.incomplete);
    }

    /// Adds other totals.
    #[inline(never)]
    pub fn merge(&mut self, o: &Totals) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.cost += o.cost;
        self.records += o.records;
        self.incomplete += o.incomplete;
    }

    /// pi's `tokens.total`: input + output + cache read + cache write.
    pub fn total_tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// The totals of `records`, added in their order.
    pub fn of<'r>(records: impl IntoIterator<Item = &'r Record>) -> Totals {
        let mut t = Totals::default();
        for r in records {
            t.add(r);
        }
        t
    }
}

/// Totals split by what was paid for: what the summarizers of compactions
/// and branch summaries cost beside the conversation itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ByKind(pub [Totals; 5]);

impl ByKind {
    pub fn add(&mut self, r: &Record) {
        self.0[r.kind.index()].add(r);
    }

    pub fn get(&self, kind: RecordKind) -> &Totals {
        &self.0[kind.index()]
    }

    /// The kinds that have records, with their totals.
    pub fn present(&self) -> impl Iterator<Item = (RecordKind, &Totals)> + '_ {
        RecordKind::ALL
            .into_iter()
            .map(|k| (k, self.get(k)))
            .filter(|(_, t)| t.records > 0)
    }

    /// The split of `records`.
    pub fn of<'r>(records: impl IntoIterator<Item = &'r Record>) -> ByKind {
        let mut b = ByKind::default();
        for r in records {
            b.add(r);
        }
        b
    }
}

/// The header facts that place a file among others.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The session's `id`.
    pub id: Option<String>,
    /// Its working directory: the project.
    pub cwd: Option<String>,
    /// The file it was forked or branched from (a path, as pi writes it).
    pub parent_session: Option<String>,
}

/// The paid requests of a file's entries, in file order. `spans[i]` is where
/// entry `i` is in `text` (as [`crate::document::Document`] keeps them).
pub fn records(text: &str, entries: &[Entry], spans: &[Span]) -> Vec<Record> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(r) = record_of(text, i, e, spans[i]) {
            out.push(r);
        }
    }
    out
}

/// The first header's facts, wherever it is (lines before it, such as
/// oh-my-pi's `title` line, do not hide it); `None` without one.
pub fn header(text: &str, entries: &[Entry], spans: &[Span]) -> Option<Header> {
    let i = entries.iter().position(Entry::is_header)?;
    Some(header_of(text, &json::members(text, spans[i])))
}

fn header_of(text: &str, members: &[Member]) -> Header {
    let [id, cwd, parent] = json::find_all(text, members, ["id", "cwd", "parentSession"])
        .map(|i| i.and_then(|i| string_of(text, &members[i])));
    Header {
        id,
        cwd,
        parent_session: parent,
    }
}

/// A current file's header and paid requests, read in one pass over its
/// lines: each paid entry's fields are found among the members the parse
/// already recorded (its own, and its `message`'s), not by reading the entry
/// again. What [`records`] and [`header`] give for the same text; the text
/// back when the file needs migrating (read it as a document then).
pub fn read(
    text: String,
    dates: &dyn time::DateParser,
) -> Result<(Option<Header>, Vec<Record>), String> {
    let mut unique = 0;
    let mut first: Option<Entry> = None; // the first header
    let mut head = None;
    let mut out = Vec::new();
    let mut n = 0;
    let mut reader = crate::parse::LineReader::<true>::new(&text);
    while let Some((_, _, parsed)) = reader.next() {
        let value = &reader.value;
        if parsed.is_err() || !crate::parse::is_kept(&text, value) {
            continue;
        }
        n += 1;
        if value.kind != Kind::Object {
            continue;
        }
        // Only what the accounting reads: no entry is built for the lines
        // (most of them) that are not paid requests.
        let [ty, id, ts, message] = json::find_all(
            &text,
            &value.members,
            ["type", "id", "timestamp", "message"],
        );
        let ty = ty
            .map(|t| &value.members[t])
            .filter(|t| t.kind == Kind::String)
            .and_then(|t| json::as_str(t.value.of(&text)))
            .map_or(EntryType::Other, |t| EntryType::from_name(&t));
        let members = &value.members;
        let (kind, fields) = match ty {
            EntryType::Session => {
                if first.is_none() {
                    // The first header wherever it is, as `header` finds it (lines
                    // before it, such as omp's title, are entries).
                    head = Some(header_of(&text, members));
                    first = Some(Entry::from_json(&text, value, Some(dates), &mut unique));
                }
                continue;
            }
            EntryType::Usage => (RecordKind::Usage, own_fields(&text, members)),
            EntryType::Compaction => (RecordKind::Compaction, own_fields(&text, members)),
            EntryType::BranchSummary => (RecordKind::BranchSummary, own_fields(&text, members)),
            EntryType::Message => {
                // Its role and the fields a record reads, in one step over
                // the message's members.
                let Some(m) = message.filter(|&m| members[m].kind == Kind::Object) else {
                    continue;
                };
                let [role, fields @ ..] = json::find_members(
                    &text,
                    value.nested_in(m).copied(),
                    ["role", "usage", "provider", "model", "responseModel"],
                );
                let role = role
                    .filter(|r| r.kind == Kind::String)
                    .and_then(|r| json::as_str(r.value.of(&text)))
                    .map_or(Role::Other, |r| Role::from_name(&r));
                let kind = match role {
                    Role::Assistant => RecordKind::Assistant,
                    Role::ToolResult => RecordKind::ToolResult,
                    _ => continue,
                };
                (kind, message_fields(fields))
            }
            _ => continue,
        };
        let mut id_time = || {
            let id = match Key::from_json(&text, id.map(|i| &members[i]), &mut unique) {
                Key::Str(s) => s.into_string(),
                other => other.to_string(),
            };
            let at = ts.map(|t| (members[t].kind, members[t].value.of(&text)));
            (id, time::time_of(at, dates))
        };
        let ts = ts.map(|t| members[t]);
        out.extend(record_from(&text, n - 1, kind, ts, fields, &mut id_time));
    }
    // The first header decides whether a file is current.
    if !crate::migrate::is_current(first.as_slice()) {
        return Err(text);
    }
    Ok((head, out))
}

fn kind_of(e: &Entry) -> Option<RecordKind> {
    Some(match (e.kind(), &e.detail) {
        (EntryType::Usage, _) => RecordKind::Usage,
        (EntryType::Compaction, _) => RecordKind::Compaction,
        (EntryType::BranchSummary, _) => RecordKind::BranchSummary,
        (EntryType::Message, Detail::Message { role, .. }) => match role {
            Role::Assistant => RecordKind::Assistant,
            Role::ToolResult => RecordKind::ToolResult,
            _ => return None,
        },
        _ => return None,
    })
}

fn record_of(text: &str, i: usize, e: &Entry, span: Span) -> Option<Record> {
    let kind = kind_of(e)?;
    // Lists of members and `find_all`, as the other readers of a document
    // find fields (a file that needed migrating: no hot path to inline).
    let members = json::members(text, span);
    let [ts, message, usage, usage_kind, provider, model] = found(
        text,
        &members,
        ["timestamp", "message", "usage", "kind", "provider", "model"],
    );
    let fields = if matches!(kind, RecordKind::Assistant | RecordKind::ToolResult) {
        // A message's usage, provider and model are inside its `message`.
        message_fields(found(
            text,
            &json::members(text, message?.value),
            ["usage", "provider", "model", "responseModel"],
        ))
    } else {
        [usage, usage_kind, provider, model, None]
    };
    record_from(text, i, kind, ts, fields, &mut || {
        (e.id.to_string(), e.time)
    })
}

/// The last of `members` named by each of `names`.
fn found<const N: usize>(text: &str, members: &[Member], names: [&str; N]) -> [Option<Member>; N] {
    json::find_all(text, members, names).map(|i| i.map(|i| members[i]))
}

/// What a record reads of an entry: its `usage`, `kind`, `provider`,
/// `model` and `responseModel` (the last as `JSON.parse` keeps repeated keys).
type Fields = [Option<Member>; 5];

/// The [`Fields`] of a usage entry, a compaction or a branch summary: its own.
fn own_fields(text: &str, members: &[Member]) -> Fields {
    let [usage, kind, provider, model] =
        found(text, members, ["usage", "kind", "provider", "model"]);
    [usage, kind, provider, model, None]
}

/// The [`Fields`] of a message, from its `message`'s `usage`, `provider`,
/// `model` and `responseModel`.
fn message_fields([usage, provider, model, response_model]: [Option<Member>; 4]) -> Fields {
    [usage, None, provider, model, response_model]
}

/// The record of entry `i` (of `kind`), whose `timestamp` is `ts`, from its
/// `fields`; `id_time` gives the entry's id (as `String(id)` prints it) and
/// time, asked only of an entry that is a record. One copy for the
/// current files' pass and the documents' (a `dyn`, out of line): each
/// had its own, some 3 KB of wasm.
#[inline(never)]
fn record_from(
    text: &str,
    i: usize,
    kind: RecordKind,
    ts: Option<Member>,
    fields: Fields,
    id_time: &mut dyn FnMut() -> (String, f64),
) -> Option<Record> {
    let [usage, usage_kind, provider, model, response_model] = fields;
    let truthy = usage.is_some_and(|u| json::truthy(u.kind, u.value.of(text)));
    // pi reads an assistant message's and a usage entry's usage even when it is
    // missing (and throws); the others only when it is there.
    if !truthy
        && matches!(
            kind,
            RecordKind::ToolResult | RecordKind::Compaction | RecordKind::BranchSummary
        )
    {
        return None;
    }
    let named = |m: Option<Member>| m.and_then(|m| string_of(text, &m));
    let (id, time) = id_time();
    let mut r = Record {
        entry: i,
        id,
        timestamp: ts.map_or_else(String::new, |m| {
            string_of(text, &m).unwrap_or_else(|| m.value.of(text).to_owned())
        }),
        time,
        kind,
        usage_kind: if kind == RecordKind::Usage {
            named(usage_kind)
        } else {
            None
        },
        provider: if kind == RecordKind::Assistant || kind == RecordKind::Usage {
            named(provider)
        } else {
            None
        },
        model: if kind == RecordKind::Assistant || kind == RecordKind::Usage {
            named(response_model).or_else(|| named(model))
        } else {
            None
        },
        input: 0.0,
        output: 0.0,
        cache_read: 0.0,
        cache_write: 0.0,
        cost: 0.0,
        incomplete: false,
    };
    // The fields of an object; none of anything else, whose fields are then
    // all missing: each counts as 0 and the record is incomplete.
    let [input, output, read, write, cost] = usage.map_or([None; 5], |u| {
        json::find_in(
            text,
            u.value,
            ["input", "output", "cacheRead", "cacheWrite", "cost"],
        )
    });
    let mut complete = true;
    let mut number = |m: Option<Member>| {
        let n = m
            .filter(|m| m.kind == Kind::Number)
            .map_or(f64::NAN, |m| json::number(m.value.of(text)));
        if n.is_finite() {
            return n;
        }
        complete = false;
        0.0
    };
    r.input = number(input);
    r.output = number(output);
    r.cache_read = number(read);
    r.cache_write = number(write);
    let [total] = cost.map_or([None], |c| json::find_in(text, c.value, ["total"]));
    r.cost = number(total);
    r.incomplete = !complete;
    Some(r)
}

/// A string member's value (lone surrogates replaced); `None` for other kinds.
fn string_of(text: &str, m: &Member) -> Option<String> {
    if m.kind != Kind::String {
        return None;
    }
    match json::decode_string(m.value.of(text))? {
        json::JsString::Utf8(s) => Some(s.into_owned()),
        json::JsString::Utf16(units) => Some(String::from_utf16_lossy(&units)),
    }
}

/// One side of a fork: a child of the fork point and everything under it.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// The child's id.
    pub id: String,
    /// What its subtree cost.
    pub totals: Totals,
    /// How many leaves its subtree has.
    pub leaves: usize,
}

/// An entry with more than one child, and what each side cost after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fork {
    pub id: String,
    pub sides: Vec<Side>,
}

/// A leaf of the tree: what its path cost, and its own part (the entries
/// below the last fork above it, which no other leaf's path shares).
#[derive(Clone, Debug, PartialEq)]
pub struct LeafCost {
    pub id: String,
    pub path: Totals,
    pub own: Totals,
}

/// What one file cost, as a whole and along its tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub header: Option<Header>,
    /// Every paid request, in file order.
    pub records: Vec<Record>,
    /// All of them: what pi's `getSessionStats` reports.
    pub total: Totals,
    /// The same, by kind.
    pub total_by_kind: ByKind,
    /// The leaf the path ends at (the entry index), if any.
    pub leaf: Option<usize>,
    /// The path from the root to `leaf`: what that conversation cost.
    pub path: Totals,
    /// The same, by kind.
    pub path_by_kind: ByKind,
    /// Everything off that path (abandoned branches, orphans).
    pub abandoned: Totals,
    /// Each fork point, in tree order.
    pub forks: Vec<Fork>,
    /// Each leaf, in tree order.
    pub leaves: Vec<LeafCost>,
}

/// Where a path ends: with no `id`, pi's leaf of a file just opened (its
/// last entry); else the last entry with that id (`None` when none has it).
pub fn leaf_of(entries: &[Entry], id: Option<&Key>) -> Option<usize> {
    entries
        .iter()
        .rposition(|e| !e.is_header() && id.is_none_or(|id| e.id == *id))
}

/// What one file cost. `leaf` is where "this conversation" ends (an entry
/// index, see [`leaf_of`]; `None`: before the first entry, an empty path);
/// `sort` orders siblings as pi's tree does (it only orders the forks' sides
/// and the leaves).
pub fn report(
    text: &str,
    entries: &[Entry],
    spans: &[Span],
    leaf: Option<usize>,
    sort: &dyn SiblingSort,
) -> Report {
    let records = records(text, entries, spans);
    let total = Totals::of(&records);
    let mut record_at = vec![None; entries.len()];
    for (k, r) in records.iter().enumerate() {
        record_at[r.entry] = Some(k);
    }
    let own = |i: usize| record_at[i].map(|k| &records[k]);

    // The path, as pi's `getBranch(leaf)` walks it: up by `parentId` through
    // the last entry of each id, ending before the first repeat.
    let by_id = context::index(entries);
    let start = leaf;
    let parent = |i: usize| {
        let p: &Key = &entries[i].parent_id;
        if p.truthy() {
            by_id.get(p).copied()
        } else {
            None
        }
    };
    let mut on_path = context::walk(start, &parent);
    on_path.reverse();
    let path = Totals::of(on_path.iter().filter_map(|&i| own(i)));
    let path_by_kind = ByKind::of(on_path.iter().filter_map(|&i| own(i)));
    let mut in_path = vec![false; entries.len()];
    for &i in &on_path {
        in_path[i] = true;
    }
    let abandoned = Totals::of(records.iter().filter(|r| !in_path[r.entry]));

    // Forks and leaves over pi's tree (each entry one node, cycles cut).
    let t = tree::build(entries, sort);
    let order = t.preorder();
    let n = entries.len();
    let mut sub = vec![Totals::default(); n];
    let mut leaf_count = vec![0usize; n];
    for &i in order.iter().rev() {
        let mut s = Totals::default();
        if let Some(r) = own(i) {
            s.add(r);
        }
        let kids = &t.children[i];
        leaf_count[i] = if kids.is_empty() { 1 } else { 0 };
        for &c in kids {
            s.merge(&sub[c]);
            leaf_count[i] += leaf_count[c];
        }
        sub[i] = s;
    }
    // Root → entry sums, and sums since the last fork, added in path order.
    let mut down = vec![Totals::default(); n];
    let mut since_fork = vec![Totals::default(); n];
    let mut forks = Vec::new();
    let mut leaves = Vec::new();
    for &i in &order {
        let kids = &t.children[i];
        if let Some(r) = own(i) {
            down[i].add(r);
            since_fork[i].add(r);
        }
        for &c in kids {
            down[c] = down[i];
            since_fork[c] = if kids.len() > 1 {
                Totals::default()
            } else {
                since_fork[i]
            };
        }
        if kids.len() > 1 {
            forks.push(Fork {
                id: entries[i].id.to_string(),
                sides: kids
                    .iter()
                    .map(|&c| Side {
                        id: entries[c].id.to_string(),
                        totals: sub[c],
                        leaves: leaf_count[c],
                    })
                    .collect(),
            });
        }
        if kids.is_empty() {
            leaves.push(LeafCost {
                id: entries[i].id.to_string(),
                path: down[i],
                own: since_fork[i],
            });
        }
    }
    Report {
        header: header(text, entries, spans),
        total_by_kind: ByKind::of(&records),
        records,
        total,
        leaf: start,
        path,
        path_by_kind,
        abandoned,
        forks,
        leaves,
    }
}

/// One file among many, as [`dedup`] and [`buckets`] read it.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file's path, as a `parentSession` names it.
    pub path: &'a str,
    pub header: Option<&'a Header>,
    pub records: &'a [Record],
}

/// Which records count across `files`: `counted[f][k]` for record `k` of file `f`.
///
/// Files whose `parentSession` chains meet (a file and its forks and branched
/// copies, and copies of a file that is not among them) form a lineage. Its
/// files are read oldest first (a source before its copies, otherwise by
/// path, so the answer does not depend on the order files were read in), and a record counts unless an earlier file of the same
/// lineage holds an entry with the same id and timestamp. An entry that
/// repeats inside one file counts as often as the file that repeats it most
/// (pi counts a file's every entry).
pub fn dedup(files: &[Source]) -> Vec<Vec<bool>> {
    // One map type (string keys) throughout this module: each other key
    // type would add its own copy of the map's code to the wasm.
    let mut by_path = Counts::default();
    for (i, f) in files.iter().enumerate() {
        *by_path.slot(f.path.to_owned()) = i;
    }
    let parent_of = |i: usize| files[i].header.and_then(|h| h.parent_session.as_deref());
    // Each file's lineage root (a path) and depth below it, each file's
    // found once: a chain is walked up to a file whose root is known, and
    // the files on it take theirs on the way down (a walk from every file
    // to its root was cubic in a long chain of forks: 2,000 files took
    // seconds). The files of a `parentSession` loop are one lineage, rooted
    // at the least of their paths.
    let mut root: Vec<Option<(&str, usize)>> = vec![None; files.len()];
    let mut on_chain = vec![false; files.len()];
    for start in 0..files.len() {
        // Files up from `start` whose root is not known yet, each the
        // parent of the one before; `above` is the root of the last one's
        // parent (a depth of 0 there makes the last one's 1).
        let mut chain = Vec::new();
        let mut at = start;
        let mut above = loop {
            if let Some(r) = root[at] {
                break r;
            }
            let Some(p) = parent_of(at) else {
                // No parent: a root itself.
                root[at] = Some((files[at].path, 0));
                break (files[at].path, 0);
            };
            chain.push(at);
            on_chain[at] = true;
            match by_path.get(p) {
                // A parent that is not among the files roots the lineage.
                None => break (p, 0),
                Some(j) if on_chain[j] => {
                    let from = chain.iter().position(|&c| c == j).unwrap_or(0);
                    let top = chain[from..]
                        .iter()
                        .map(|&c| files[c].path)
                        .min()
                        .unwrap_or(p);
                    for &c in &chain[from..] {
                        root[c] = Some((top, 0));
                        on_chain[c] = false;
                    }
                    chain.truncate(from);
                    break (top, 0);
                }
                Some(j) => at = j,
            }
        };
        for &c in chain.iter().rev() {
            above.1 += 1;
            root[c] = Some(above);
            on_chain[c] = false;
        }
    }
    let root: Vec<(&str, usize)> = root.into_iter().map(|r| r.unwrap_or_default()).collect();
    let order = order::stable_order_by(files.len(), &|a, b| {
        (root[a].1, files[a].path).cmp(&(root[b].1, files[b].path))
    });
    // An entry is its lineage, id and timestamp, in one string: the first
    // two length-prefixed, so no two triples make the same key.
    let key_of = |lineage: &str, r: &Record| {
        format!(
            "{}:{lineage}{}:{}{}",
            lineage.len(),
            r.id.len(),
            r.id,
            r.timestamp
        )
    };
    // A lineage of one file shares no entry with another: every record of
    // it counts, and its keys need not be made (most folders are mostly such).
    let mut sizes = Counts::default();
    for (top, _) in &root {
        // Files per lineage: its first file makes it 1.
        *sizes.slot((*top).to_owned()) += 1;
    }
    let mut seen = Counts::default();
    let mut counted: Vec<Vec<bool>> = files.iter().map(|f| vec![true; f.records.len()]).collect();
    for &f in &order {
        let lineage = root[f].0;
        if sizes.get(lineage).is_some_and(|n| n < 2) {
            continue;
        }
        let mut here = Counts::default();
        for (k, r) in files[f].records.iter().enumerate() {
            let key = key_of(lineage, r);
            let before = seen.get(&key).unwrap_or(0);
            let n = here.slot(key);
            *n += 1;
            counted[f][k] = *n > before;
        }
        for (key, n) in here.0 {
            let s = seen.slot(key);
            *s = (*s).max(n);
        }
    }
    counted
}

/// The one map type of this module: counts or indices by string. Its two
/// operations stay out of line: inlined, each use copied the map's hashing
/// and probing into its caller (several KB of wasm in all).
/// Keyed by the core's id hash, as every other map of the module's layer and
/// below: a map with std's default hasher would link SipHash for it alone.
#[derive(Default)]
struct Counts(HashMap<String, usize, IdHash>);

impl Counts {
    #[inline(never)]
    fn get(&self, key: &str) -> Option<usize> {
        self.0.get(key).copied()
    }

    /// The value of `key`, 0 when it had none.
    #[inline(never)]
    fn slot(&mut self, key: String) -> &mut usize {
        self.0.entry(key).or_insert(0)
    }
}

/// The offset of a time zone from UTC at an instant, which the host knows.
pub trait Zone {
    /// Minutes to add to UTC at `utc_ms` for the zone's wall clock (+60 in Paris in winter).
    fn offset_minutes(&self, utc_ms: f64) -> f64;
}

/// A fixed offset from UTC, in minutes (0 is UTC).
pub struct FixedOffset(pub f64);

impl Zone for FixedOffset {
    fn offset_minutes(&self, _: f64) -> f64 {
        self.0
    }
}

/// What a bucket groups by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// The local date, `YYYY-MM-DD`.
    Day,
    /// The local date of the week's Monday, `YYYY-MM-DD`.
    Week,
    /// `YYYY-MM`.
    Month,
    /// `provider/model` ([`Record::model_key`]); [`NO_MODEL`] for the rest.
    Model,
    /// The session's `cwd`.
    Project,
    /// The session's file path.
    Session,
}

/// The model key of records that name none: summarizers and tool results.
pub const NO_MODEL: &str = "(tools and summaries)";
/// The date key of records whose timestamp is not a date.
pub const NO_DATE: &str = "(no date)";

/// One row of a grouping: its key, its totals, and the same split by model.
#[derive(Clone, Debug, PartialEq)]
pub struct Bucket {
    pub key: String,
    pub totals: Totals,
    /// By [`Record::model_key`], most expensive first.
    pub models: Vec<(String, Totals)>,
}

/// The local date of an instant, `YYYY-MM-DD`, in `zone`; `None` for NaN.
pub fn local_day(utc_ms: f64, zone: &dyn Zone) -> Option<String> {
    let days = local_days(utc_ms, zone)?;
    let (y, m, d) = time::civil_from_days(days);
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

fn local_days(utc_ms: f64, zone: &dyn Zone) -> Option<i64> {
    if !utc_ms.is_finite() {
        return None;
    }
    let local = utc_ms + zone.offset_minutes(utc_ms) * 60_000.0;
    local
        .is_finite()
        .then(|| (local / 86_400_000.0).floor() as i64)
}

/// The key of a record's date bucket.
#[cfg(test)]
fn date_key(utc_ms: f64, by: By, zone: &dyn Zone) -> String {
    date_key_of(local_days(utc_ms, zone), by)
}

/// The key of the date bucket of a local day (days since 1970-01-01).
fn date_key_of(days: Option<i64>, by: By) -> String {
    let Some(days) = days else {
        return NO_DATE.to_owned();
    };
    let (y, m, d) = time::civil_from_days(first_day(days, by));
    match by {
        By::Month => format!("{y:04}-{m:02}"),
        _ => format!("{y:04}-{m:02}-{d:02}"),
    }
}

/// Which days count: local dates `YYYY-MM-DD`, both ends included. A bound
/// that is no such date holds no day.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Range {
    pub since: Option<String>,
    pub until: Option<String>,
}

impl Range {
    fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// The bounds as days since 1970-01-01, compared as numbers: a date's
    /// text sorts wrong once its year has five digits or a sign (JS dates
    /// reach the years ±275760), so `10000-01-01` fell before `2026-01-01`.
    fn days(&self) -> Bounds {
        let day = |s: &Option<String>| match s {
            None => Some(None),
            Some(s) if s.len() == 10 => time::iso_utc(s).map(|ms| Some((ms / 86_400_000.0) as i64)),
            Some(_) => None,
        };
        match (day(&self.since), day(&self.until)) {
            (Some(since), Some(until)) => Bounds::Days(since, until),
            _ => Bounds::Nothing,
        }
    }
}

/// A [`Range`] read as day numbers.
#[derive(Clone, Copy)]
enum Bounds {
    Days(Option<i64>, Option<i64>),
    /// A bound was no date.
    Nothing,
}

impl Bounds {
    fn holds(self, day: Option<i64>) -> bool {
        // Only asked of a range with a bound (`Range::is_all` skips it): a
        // record without a date is in no such range.
        match (self, day) {
            (Bounds::Days(since, until), Some(day)) => {
                since.is_none_or(|s| day >= s) && until.is_none_or(|u| day <= u)
            }
            _ => false,
        }
    }
}

/// The counted records of `files` ([`dedup`]) in `range`, added up in file
/// order as pi adds a file's: the total of [`buckets`]' rows, whatever they
/// group by (adding the rows instead would give a sum that depends on the
/// grouping in its last bits, and differs from pi's `getSessionStats` for
/// one file).
pub fn total(files: &[Source], counted: &[Vec<bool>], zone: &dyn Zone, range: &Range) -> Totals {
    let bounds = range.days();
    let ranged = !range.is_all();
    let mut t = Totals::default();
    for (f, file) in files.iter().enumerate() {
        for (k, r) in file.records.iter().enumerate() {
            if counted[f][k] && (!ranged || bounds.holds(local_days(r.time, zone))) {
                t.add(r);
            }
        }
    }
    t
}

/// The counted records of `files` ([`dedup`]) in `range`, grouped `by`.
/// Dates are buckets in order; other groupings come most expensive first.
pub fn buckets(
    files: &[Source],
    counted: &[Vec<bool>],
    by: By,
    zone: &dyn Zone,
    range: &Range,
) -> Vec<Bucket> {
    let mut rows: Vec<Bucket> = Vec::new();
    let mut at = Counts::default();
    let mut row_of = |key: String, rows: &mut Vec<Bucket>| match at.get(&key) {
        Some(row) => row,
        None => {
            *at.slot(key.clone()) = rows.len();
            rows.push(Bucket {
                key,
                totals: Totals::default(),
                models: Vec::new(),
            });
            rows.len() - 1
        }
    };
    let dated = matches!(by, By::Day | By::Week | By::Month);
    let ranged = !range.is_all();
    let bounds = range.days();
    // The day of each dated row's key, to order the rows by (their text
    // does not sort as the days do past year 9999); no date first.
    let mut row_days: Vec<i64> = Vec::new();
    // Records come in runs of one day and one model: a key is made and
    // looked up only where the run changes, not once per record.
    let mut model: Option<(&Option<String>, &Option<String>, String)> = None;
    let mut last: Option<(Option<i64>, usize)> = None;
    // Where each row's models are: `row:model` → its index in the row's list.
    let mut model_at = Counts::default();
    let mut model_slot: Option<(usize, usize)> = None;
    for (f, file) in files.iter().enumerate() {
        let mut file_row = None;
        for (k, r) in file.records.iter().enumerate() {
            if !counted[f][k] || (ranged && !bounds.holds(local_days(r.time, zone))) {
                continue;
            }
            let same_model = model
                .as_ref()
                .is_some_and(|(p, m, _)| **p == r.provider && **m == r.model);
            if !same_model {
                let name = r.model_key().unwrap_or_else(|| NO_MODEL.to_owned());
                model = Some((&r.provider, &r.model, name));
                model_slot = None;
                if by == By::Model {
                    last = None;
                }
            }
            let name = model.as_ref().map_or("", |(_, _, name)| name.as_str());
            let row = match by {
                _ if dated => {
                    let days = local_days(r.time, zone);
                    match last {
                        Some((d, row)) if d == days => row,
                        _ => {
                            let row = row_of(date_key_of(days, by), &mut rows);
                            if row == row_days.len() {
                                row_days.push(days.map_or(i64::MIN, |d| first_day(d, by)));
                            }
                            last = Some((days, row));
                            row
                        }
                    }
                }
                By::Project | By::Session => *file_row.get_or_insert_with(|| {
                    let key = match by {
                        By::Project => file.header.and_then(|h| h.cwd.clone()).unwrap_or_default(),
                        _ => file.path.to_owned(),
                    };
                    row_of(key, &mut rows)
                }),
                _ => match last {
                    Some((_, row)) => row,
                    None => {
                        let row = row_of(name.to_owned(), &mut rows);
                        last = Some((None, row));
                        row
                    }
                },
            };
            // The row's model: looked up where the run changes, in a map
            // (a scan of the row's models made a row of many models
            // quadratic: 40,000 in a day took seconds).
            let m = match model_slot {
                Some((at_row, m)) if at_row == row => m,
                _ => {
                    let key = format!("{row}:{name}");
                    let m = match model_at.get(&key) {
                        Some(m) => m,
                        None => {
                            rows[row].models.push((name.to_owned(), Totals::default()));
                            *model_at.slot(key) = rows[row].models.len() - 1;
                            rows[row].models.len() - 1
                        }
                    };
                    model_slot = Some((row, m));
                    m
                }
            };
            let row = &mut rows[row];
            row.totals.add(r);
            row.models[m].1.add(r);
        }
    }
    let by_cost = |a: &Totals, b: &Totals| b.cost.total_cmp(&a.cost);
    let rows: Vec<Bucket> = rows
        .into_iter()
        .map(|row| Bucket {
            models: order::sorted_by(row.models, |a, b| {
                by_cost(&a.1, &b.1).then_with(|| a.0.cmp(&b.0))
            }),
            ..row
        })
        .collect();
    if dated {
        let order = order::stable_order_by(rows.len(), &|a, b| row_days[a].cmp(&row_days[b]));
        let mut rows: Vec<Option<Bucket>> = rows.into_iter().map(Some).collect();
        return order.into_iter().filter_map(|i| rows[i].take()).collect();
    }
    order::sorted_by(rows, |a, b| {
        by_cost(&a.totals, &b.totals).then_with(|| a.key.cmp(&b.key))
    })
}

/// The first day of the bucket that local day `days` falls in.
fn first_day(days: i64, by: By) -> i64 {
    match by {
        // 1970-01-01 was a Thursday: Monday is 3 days before it.
        By::Week => days - (days + 3).rem_euclid(7),
        By::Month => {
            let (y, m, _) = time::civil_from_days(days);
            time::days_from_civil(y, m, 1)
        }
        _ => days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::tree::NativeSort;

    fn usage(input: &str, output: u32, read: u32, write: u32, cost: &str) -> String {
        format!(
            r#"{{"input":{input},"output":{output},"cacheRead":{read},"cacheWrite":{write},"totalTokens":0,"cost":{cost}}}"#
        )
    }

    fn entry(id: &str, parent: &str, time: &str, rest: &str) -> String {
        let parent = if parent.is_empty() {
            "null".to_owned()
        } else {
            format!("\"{parent}\"")
        };
        format!(r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-01-{time}Z",{rest}}}"#)
    }

    fn assistant(id: &str, parent: &str, time: &str, model: &str, u: &str) -> String {
        let rest = format!(
            r#""type":"message","message":{{"role":"assistant","content":[],{model},"usage":{u}}}"#
        );
        entry(id, parent, time, &rest)
    }

    fn user(id: &str, parent: &str, time: &str) -> String {
        let rest = r#""type":"message","message":{"role":"user","content":"hi"}"#;
        entry(id, parent, time, rest)
    }

    const ANTHROPIC: &str = r#""provider":"anthropic","model":"claude""#;

    /// A session with a fork at `b` into three sides: `c` (an assistant
    /// message and a cache warming usage entry), `f` (an assistant message,
    /// a compaction with its summarizer's usage, a tool result without usage
    /// and one with a string for a number) and `k` (a branch summary whose
    /// usage has no cost). Costs are powers of two, so sums are exact.
    fn session(parent_session: Option<&str>) -> String {
        let parent = parent_session.map_or(String::new(), |p| format!(r#","parentSession":"{p}""#));
        [
            format!(
                r#"{{"type":"session","version":3,"id":"S","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"{parent}}}"#
            ),
            user("a", "", "05T10:00:00.000"),
            assistant("b", "a", "05T10:00:01.000", ANTHROPIC, &usage("10", 5, 100, 20, r#"{"total":1}"#)),
            user("c", "b", "05T10:00:02.000"),
            assistant(
                "d",
                "c",
                "05T10:00:03.000",
                r#""provider":"anthropic","model":"claude","responseModel":"claude-x""#,
                &usage("1", 1, 0, 0, r#"{"input":1,"total":2}"#),
            ),
            entry(
                "e",
                "d",
                "05T10:00:04.000",
                &format!(
                    r#""type":"usage","kind":"cache_warm",{ANTHROPIC},"usage":{}"#,
                    usage("0", 0, 1000, 0, r#"{"total":8}"#)
                ),
            ),
            user("f", "b", "05T10:01:00.000"),
            assistant(
                "g",
                "f",
                "06T23:30:00.000",
                r#""provider":"openai","model":"gpt""#,
                &usage("2", 3, 0, 0, r#"{"total":4}"#),
            ),
            entry(
                "h",
                "g",
                "07T00:10:00.000",
                &format!(
                    r#""type":"compaction","summary":"s","firstKeptEntryId":"g","tokensBefore":9,"usage":{}"#,
                    usage("50", 10, 0, 0, r#"{"total":16}"#)
                ),
            ),
            entry(
                "i",
                "h",
                "07T00:15:00.000",
                r#""type":"message","message":{"role":"toolResult","toolCallId":"t","content":[]}"#,
            ),
            entry(
                "j",
                "i",
                "07T00:20:00.000",
                &format!(
                    r#""type":"message","message":{{"role":"toolResult","toolCallId":"t","content":[],"usage":{}}}"#,
                    usage("\"7\"", 4, 0, 0, r#"{"total":0.5}"#)
                ),
            ),
            entry(
                "k",
                "b",
                "05T10:02:00.000",
                r#""type":"branch_summary","fromId":"e","summary":"s","usage":{"input":3}"#,
            ),
        ]
        .join("\n")
    }

    fn report_of(text: &str, leaf: context::Leaf) -> Report {
        let doc = Document::parse(text);
        let start = match leaf {
            context::Leaf::None => None,
            context::Leaf::Last => leaf_of(&doc.entries, None),
            context::Leaf::Id(id) => leaf_of(&doc.entries, Some(id)),
        };
        report(&doc.text, &doc.entries, &doc.spans, start, &NativeSort)
    }

    fn costs(t: &Totals) -> (f64, usize, usize) {
        (t.cost, t.records, t.incomplete)
    }

    #[test]
    fn records_follow_pis_accounting() {
        let r = report_of(&session(None), context::Leaf::Last);
        let ids: Vec<(&str, RecordKind)> =
            r.records.iter().map(|r| (r.id.as_str(), r.kind)).collect();
        assert_eq!(
            ids,
            [
                ("b", RecordKind::Assistant),
                ("d", RecordKind::Assistant),
                ("e", RecordKind::Usage),
                ("g", RecordKind::Assistant),
                ("h", RecordKind::Compaction),
                ("j", RecordKind::ToolResult),
                ("k", RecordKind::BranchSummary),
            ],
            "users and a tool result without usage are no records"
        );
        let d = &r.records[1];
        assert_eq!(d.model.as_deref(), Some("claude-x"), "responseModel wins");
        assert_eq!(d.model_key().as_deref(), Some("anthropic/claude-x"));
        let e = &r.records[2];
        assert_eq!(e.usage_kind.as_deref(), Some("cache_warm"));
        assert_eq!(e.timestamp, "2026-01-05T10:00:04.000Z");
        assert_eq!(e.time, 1767607204000.0);
        assert_eq!(r.records[4].model_key(), None);
        // 10+1+0+2+50+0+3, 5+1+0+3+10+4+0, 100+1000, 20; $1+2+8+4+16+0.5+0.
        assert_eq!(
            (
                r.total.input,
                r.total.output,
                r.total.cache_read,
                r.total.cache_write
            ),
            (66.0, 23.0, 1100.0, 20.0)
        );
        assert_eq!(r.total.total_tokens(), 1209.0);
        assert_eq!(
            costs(&r.total),
            (31.5, 7, 2),
            "j (a string) and k (no cost) are incomplete"
        );
        assert!(r.records[5].incomplete && r.records[6].incomplete && !r.records[0].incomplete);
        assert_eq!(
            r.records[5].output, 4.0,
            "the other fields of an incomplete record count"
        );
    }

    #[test]
    fn path_abandoned_forks_and_leaves() {
        let r = report_of(&session(None), context::Leaf::Last);
        // The current leaf is the last entry, k: a → b → k.
        assert_eq!(costs(&r.path), (1.0, 2, 1));
        assert_eq!(costs(&r.abandoned), (30.5, 5, 1));
        // On the path: b (assistant) and k (the branch summary, incomplete).
        let on_path: Vec<(RecordKind, f64, usize)> = r
            .path_by_kind
            .present()
            .map(|(k, t)| (k, t.cost, t.records))
            .collect();
        assert_eq!(
            on_path,
            [
                (RecordKind::Assistant, 1.0, 1),
                (RecordKind::BranchSummary, 0.0, 1)
            ]
        );
        let kinds = r.total_by_kind;
        assert_eq!(kinds.get(RecordKind::Assistant).cost, 7.0);
        assert_eq!(kinds.get(RecordKind::Usage).cost, 8.0);
        assert_eq!(kinds.get(RecordKind::Compaction).cost, 16.0);
        assert_eq!(kinds.get(RecordKind::ToolResult).cost, 0.5);
        assert_eq!(r.forks.len(), 1);
        assert_eq!(r.forks[0].id, "b");
        let sides: Vec<(&str, f64, usize)> = r.forks[0]
            .sides
            .iter()
            .map(|s| (s.id.as_str(), s.totals.cost, s.leaves))
            .collect();
        assert_eq!(sides, [("c", 10.0, 1), ("f", 20.5, 1), ("k", 0.0, 1)]);
        let leaves: Vec<(&str, f64, f64)> = r
            .leaves
            .iter()
            .map(|l| (l.id.as_str(), l.path.cost, l.own.cost))
            .collect();
        assert_eq!(
            leaves,
            [("e", 11.0, 10.0), ("j", 21.5, 20.5), ("k", 1.0, 0.0)]
        );

        let key = Key::Str("e".into());
        let at_e = report_of(&session(None), context::Leaf::Id(&key));
        assert_eq!(costs(&at_e.path), (11.0, 3, 0));
        assert_eq!(costs(&at_e.abandoned), (20.5, 4, 2));
        let none = report_of(&session(None), context::Leaf::None);
        assert_eq!(costs(&none.path), (0.0, 0, 0));
        assert_eq!(costs(&none.abandoned), (31.5, 7, 2));
        assert_eq!(
            r.header,
            Some(Header {
                id: Some("S".into()),
                cwd: Some("/p".into()),
                parent_session: None
            })
        );
    }

    #[test]
    fn missing_usage_and_cycles_never_throw() {
        let text = [
            r#"{"type":"session","version":3,"id":"S","timestamp":"x","cwd":"/p"}"#.to_owned(),
            // An assistant message without usage, a usage entry whose usage is a
            // number, cost.total as a string, a parentId cycle x ↔ y.
            r#"{"type":"message","id":"x","parentId":"y","timestamp":7,"message":{"role":"assistant","content":[]}}"#.to_owned(),
            r#"{"type":"usage","id":"y","parentId":"x","timestamp":"t","kind":"k","usage":5}"#.to_owned(),
            assistant("z", "y", "05T10:00:00.000", ANTHROPIC, &usage("1e400", 2, 0, 0, r#"{"total":"3"}"#)),
        ]
        .join("\n");
        let r = report_of(&text, context::Leaf::Last);
        assert_eq!(r.records.len(), 3);
        assert!(r.records.iter().all(|r| r.incomplete));
        assert_eq!(
            (r.total.output, r.total.cost, r.total.incomplete),
            (2.0, 0.0, 3)
        );
        assert_eq!(
            r.records[0].timestamp, "7",
            "a timestamp that is no string, as written"
        );
        assert_eq!(r.path.records, 3, "the walk stops before the cycle repeats");
    }

    #[test]
    fn the_one_pass_read_gives_what_records_and_header_give() {
        let dup = r#"{"type":"message","id":"q","parentId":null,"timestamp":"2026-01-05T00:00:00Z","message":{"role":"assistant","usage":{"input":1},"model":"a","content":[{"usage":{"input":9}}],"mod\u0065l":"b","usage":{"input":2,"cost":{"total":1}}}}"#;
        let texts = [
            session(Some("/x/a.jsonl")),
            [
                r#"{"type":"session","version":3,"id":"S","timestamp":"x","cwd":"/p"}"#,
                r#"{"type":"message","id":"x","parentId":"y","timestamp":7,"message":{"role":"assistant","content":[]}}"#,
                r#"{"type":"usage","id":"y","parentId":"x","timestamp":"t","kind":"k","usage":5}"#,
                "not json",
                "null",
                dup,
            ]
            .join("\n"),
            // A line before the header: the header still found, the records all the same.
            format!("{dup}\n{}", r#"{"type":"session","version":3,"id":"S","timestamp":"x","cwd":"/p"}"#),
        ];
        for text in texts {
            let doc = Document::parse(&text);
            let want = (
                header(&doc.text, &doc.entries, &doc.spans),
                records(&doc.text, &doc.entries, &doc.spans),
            );
            // As text: a time that is no date is NaN, which equals nothing.
            let got = read(text.clone(), &time::IsoOnly);
            assert_eq!(
                format!("{got:?}"),
                format!("{:?}", Ok::<_, String>(want)),
                "{text}"
            );
        }
        let got = read(texts_last_model(), &time::IsoOnly).unwrap().1;
        assert_eq!(
            got[0].model.as_deref(),
            Some("b"),
            "the last of two keys, one escaped"
        );
        assert_eq!(got[0].input, 2.0);
        let old = r#"{"type":"session","id":"S","timestamp":"x","cwd":"/p"}"#.to_owned();
        assert_eq!(
            read(old.clone(), &time::IsoOnly),
            Err(old),
            "an old file is for migrating"
        );
    }

    fn texts_last_model() -> String {
        [
            r#"{"type":"session","version":3,"id":"S","timestamp":"x","cwd":"/p"}"#,
            r#"{"type":"message","id":"q","parentId":null,"timestamp":"2026-01-05T00:00:00Z","message":{"role":"assistant","usage":{"input":1},"model":"a","mod\u0065l":"b","usage":{"input":2,"cost":{"total":1}}}}"#,
        ]
        .join("\n")
    }

    fn files<'a>(list: &'a [(&'a str, Report)]) -> Vec<Source<'a>> {
        list.iter()
            .map(|(path, r)| Source {
                path,
                header: r.header.as_ref(),
                records: &r.records,
            })
            .collect()
    }

    /// What each source counts, by `counted` (dedup's flags), in dollars.
    pub(super) fn counted_cost(sources: &[Source], counted: &[Vec<bool>]) -> Vec<f64> {
        sources
            .iter()
            .zip(counted)
            .map(|(s, c)| {
                s.records
                    .iter()
                    .zip(c)
                    .filter(|(_, c)| **c)
                    .map(|(r, _)| r.cost)
                    .sum()
            })
            .collect()
    }

    #[test]
    fn lineages_count_each_entry_once() {
        let source = session(None);
        // A branched copy of the path to j plus a new reply ($32), listed before its source.
        let mut copy: Vec<String> = session(Some("/s/a.jsonl"))
            .lines()
            .filter(|l| {
                !["\"c\"", "\"d\"", "\"e\"", "\"k\""]
                    .iter()
                    .any(|id| l.contains(&format!("\"id\":{id}")))
            })
            .map(str::to_owned)
            .collect();
        copy.push(assistant(
            "m",
            "j",
            "08T09:00:00.000",
            ANTHROPIC,
            &usage("1", 1, 0, 0, r#"{"total":32}"#),
        ));
        let copy = copy.join("\n");
        // A fork of the copy, and an unrelated session that repeats b's id and time ($64).
        let fork = copy.replacen(r#""id":"S""#, r#""id":"F","parentSession":"/s/b.jsonl""#, 1);
        let unrelated = [
            r#"{"type":"session","version":3,"id":"U","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/q"}"#.to_owned(),
            assistant("b", "", "05T10:00:01.000", ANTHROPIC, &usage("1", 1, 0, 0, r#"{"total":64}"#)),
        ]
        .join("\n");
        // Two copies of a file that is not among them: one lineage.
        let orphan_a = unrelated.replacen(
            r#""cwd":"/q""#,
            r#""cwd":"/q","parentSession":"/gone.jsonl""#,
            1,
        );
        let list = [
            ("/s/b.jsonl", report_of(&copy, context::Leaf::Last)),
            ("/s/c.jsonl", report_of(&fork, context::Leaf::Last)),
            ("/s/a.jsonl", report_of(&source, context::Leaf::Last)),
            ("/t/u.jsonl", report_of(&unrelated, context::Leaf::Last)),
            ("/t/v.jsonl", report_of(&orphan_a, context::Leaf::Last)),
            ("/t/w.jsonl", report_of(&orphan_a, context::Leaf::Last)),
        ];
        let sources = files(&list);
        let counted = dedup(&sources);
        assert_eq!(
            counted_cost(&sources, &counted),
            [32.0, 0.0, 31.5, 64.0, 64.0, 0.0]
        );
    }

    #[test]
    fn a_file_that_repeats_an_entry_counts_it_as_often() {
        let one = session(None);
        let line = one.lines().nth(2).unwrap().to_owned(); // b, $1
        let twice = format!("{one}\n{line}");
        let copy = format!("{}\n{line}", session(Some("/a")));
        let list = [
            ("/a", report_of(&twice, context::Leaf::Last)),
            ("/b", report_of(&copy, context::Leaf::Last)),
        ];
        assert_eq!(list[0].1.total.cost, 32.5, "pi counts a file's every entry");
        let sources = files(&list);
        assert_eq!(counted_cost(&sources, &dedup(&sources)), [32.5, 0.0]);
    }

    #[test]
    fn buckets_by_date_model_project_and_session() {
        let list = [("/s/a.jsonl", report_of(&session(None), context::Leaf::Last))];
        let sources = files(&list);
        let counted = dedup(&sources);
        let rows = |by, zone: f64, range: &Range| -> Vec<(String, f64)> {
            buckets(&sources, &counted, by, &FixedOffset(zone), range)
                .into_iter()
                .map(|b| (b.key, b.totals.cost))
                .collect()
        };
        let all = Range::default();
        let s = |k: &str, c: f64| (k.to_owned(), c);
        // UTC: b d e k on the 5th, g on the 6th at 23:30, h j on the 7th.
        assert_eq!(
            rows(By::Day, 0.0, &all),
            [
                s("2026-01-05", 11.0),
                s("2026-01-06", 4.0),
                s("2026-01-07", 16.5)
            ]
        );
        // Paris (+1h): g moves to the 7th. New York (-5h): h and j move to the 6th.
        assert_eq!(
            rows(By::Day, 60.0, &all),
            [s("2026-01-05", 11.0), s("2026-01-07", 20.5)]
        );
        assert_eq!(
            rows(By::Day, -300.0, &all),
            [s("2026-01-05", 11.0), s("2026-01-06", 20.5)]
        );
        // 2026-01-05 is a Monday.
        assert_eq!(rows(By::Week, 0.0, &all), [s("2026-01-05", 31.5)]);
        assert_eq!(rows(By::Month, 0.0, &all), [s("2026-01", 31.5)]);
        assert_eq!(
            rows(By::Model, 0.0, &all),
            [
                s(NO_MODEL, 16.5),
                s("anthropic/claude", 9.0),
                s("openai/gpt", 4.0),
                s("anthropic/claude-x", 2.0)
            ]
        );
        assert_eq!(rows(By::Project, 0.0, &all), [s("/p", 31.5)]);
        assert_eq!(rows(By::Session, 0.0, &all), [s("/s/a.jsonl", 31.5)]);
        let range = Range {
            since: Some("2026-01-06".into()),
            until: Some("2026-01-06".into()),
        };
        assert_eq!(rows(By::Model, 0.0, &range), [s("openai/gpt", 4.0)]);
        let day = &buckets(&sources, &counted, By::Day, &FixedOffset(0.0), &all)[0];
        let split: Vec<(&str, f64)> = day
            .models
            .iter()
            .map(|(m, t)| (m.as_str(), t.cost))
            .collect();
        assert_eq!(
            split,
            [
                ("anthropic/claude", 9.0),
                ("anthropic/claude-x", 2.0),
                (NO_MODEL, 0.0)
            ]
        );
    }

    /// One file, "/a", of `records`.
    fn alone(records: &[Record]) -> [Source<'_>; 1] {
        [Source {
            path: "/a",
            header: None,
            records,
        }]
    }

    fn paid(id: &str, time: f64, cost: f64) -> Record {
        Record {
            entry: 0,
            id: id.into(),
            timestamp: String::new(),
            time,
            kind: RecordKind::Assistant,
            usage_kind: None,
            provider: None,
            model: None,
            input: 1.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
            cost,
            incomplete: false,
        }
    }

    #[test]
    fn days_compare_as_days_past_the_year_9999() {
        // 10000-01-01 and 2026-02-01, UTC; as text "10000-…" sorted before "2026-…".
        let records = [
            paid("a", 253_402_300_800_000.0, 1.0),
            paid("b", 1_769_904_000_000.0, 2.0),
        ];
        let sources = alone(&records);
        let counted = dedup(&sources);
        let rows = |by, since: Option<&str>| -> Vec<(String, f64)> {
            let range = Range {
                since: since.map(str::to_owned),
                until: None,
            };
            buckets(&sources, &counted, by, &FixedOffset(0.0), &range)
                .into_iter()
                .map(|b| (b.key, b.totals.cost))
                .collect()
        };
        let s = |k: &str, c: f64| (k.to_owned(), c);
        let both = [s("2026-02-01", 2.0), s("10000-01-01", 1.0)];
        assert_eq!(rows(By::Day, None), both);
        assert_eq!(rows(By::Day, Some("2026-01-01")), both);
        assert_eq!(
            rows(By::Month, Some("2026-01-01")),
            [s("2026-02", 2.0), s("10000-01", 1.0)]
        );
        let range = Range {
            since: Some("2026-01-01".into()),
            until: None,
        };
        assert_eq!(
            total(&sources, &counted, &FixedOffset(0.0), &range).cost,
            3.0
        );
        let bad = Range {
            since: Some("soon".into()),
            until: None,
        };
        assert_eq!(
            rows(By::Day, Some("soon")),
            [],
            "a bound that is no date holds nothing"
        );
        assert_eq!(
            total(&sources, &counted, &FixedOffset(0.0), &bad).records,
            0
        );
        // A bound is a date alone: a whole timestamp is no such date.
        let instant = Range {
            since: Some("2026-01-01T00:00:00.000Z".into()),
            until: None,
        };
        assert_eq!(
            total(&sources, &counted, &FixedOffset(0.0), &instant).records,
            0
        );
        assert_eq!(rows(By::Day, Some("2026-01-01T00:00:00.000Z")), []);
    }

    #[test]
    fn a_record_without_a_date_counts_when_no_range_is_asked() {
        let records = [paid("a", f64::NAN, 1.0), paid("b", 0.0, 2.0)];
        let sources = alone(&records);
        let counted = dedup(&sources);
        let all = Range::default();
        assert_eq!(total(&sources, &counted, &FixedOffset(0.0), &all).cost, 3.0);
        let keys: Vec<(String, f64)> =
            buckets(&sources, &counted, By::Day, &FixedOffset(0.0), &all)
                .into_iter()
                .map(|b| (b.key, b.totals.cost))
                .collect();
        // its own row, beside the dated one
        assert!(keys.contains(&(NO_DATE.to_owned(), 1.0)), "{keys:?}");
        assert!(keys.contains(&("1970-01-01".to_owned(), 2.0)), "{keys:?}");
        // with a bound, it is in no range
        let since = Range {
            since: Some("1970-01-01".into()),
            until: None,
        };
        assert_eq!(
            total(&sources, &counted, &FixedOffset(0.0), &since).cost,
            2.0
        );
    }

    #[test]
    fn a_total_adds_records_in_file_order_not_rows() {
        // 0.7 + 0.1 + 0.2 is 1; the days' rows, 0.9 + 0.1, are 0.9999999999999999.
        let day = 86_400_000.0;
        let records = [
            paid("a", 0.0, 0.7),
            paid("b", day, 0.1),
            paid("c", 0.0, 0.2),
        ];
        let sources = alone(&records);
        let counted = dedup(&sources);
        let all = Range::default();
        assert_eq!(total(&sources, &counted, &FixedOffset(0.0), &all).cost, 1.0);
        assert_eq!(Totals::of(&records).cost, 1.0);
    }

    #[test]
    fn weeks_start_on_monday_and_dates_need_a_time() {
        let zone = FixedOffset(0.0);
        // Sunday 2026-01-04 belongs to the week of Monday 2025-12-29.
        assert_eq!(date_key(1767484800000.0, By::Week, &zone), "2025-12-29");
        assert_eq!(date_key(f64::NAN, By::Day, &zone), NO_DATE);
        assert_eq!(local_day(-1.0, &zone).as_deref(), Some("1969-12-31"));
    }
}

#[cfg(test)]
mod mutant_tests;
