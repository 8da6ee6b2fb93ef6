//! What is wrong with a session file, said with line numbers.

use crate::document::Document;
use crate::entry::{Detail, Entry, EntryType, IdMap, Key, Replacement, Role};
use crate::parse::{self, Line, LineContent, ReadAt};
use crate::pieces;
use crate::time::DateParser;
use crate::tree::Tree;

/// What kind of problem a [`Diagnostic`] reports. The names (`as_str`) are a
/// stable part of the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// A line `JSON.parse` rejects; pi skips it.
    MalformedLine,
    /// The last line is malformed and the file does not end in a newline:
    /// most likely a writer stopped mid-line.
    TruncatedLastLine,
    /// Valid JSON that is not an object (`42`, `null`, `[]`).
    NotAnObject,
    /// A line with nothing but whitespace; pi skips it.
    BlankLine,
    /// The text starts with a UTF-8 byte order mark. pi 1.6 refuses to open
    /// such a file and leaves it out of its list; session-tree ignores it.
    Bom,
    /// The bytes were not valid UTF-8; the bad sequences read as U+FFFD.
    InvalidUtf8,
    /// No `type: "session"` line at all.
    MissingHeader,
    /// The header is not the first line (pi 1.6 refuses to open the file;
    /// pi's repository reads it).
    MisplacedHeader,
    /// An entry before the header, such as the `title` line oh-my-pi writes
    /// first: kept, and read as pi's repository reads it (an entry of the
    /// file, no part of the session's header).
    BeforeHeader,
    /// A second header; only the first counts.
    DuplicateHeader,
    /// A header version other than 1, 2 or 3.
    UnknownVersion,
    /// An entry without a `type` pi knows.
    UnknownEntryType,
    /// An entry without a string id in a file of version 2 or later.
    MissingId,
    /// An id used by an earlier entry too; lookups find the last one.
    DuplicateId,
    /// A `parentId` that names no entry (or is missing): the entry becomes a root.
    Orphan,
    /// An entry whose `parentId` is its own id.
    SelfParent,
    /// Entries whose `parentId`s form a loop.
    Cycle,
    /// A compaction's `firstKeptEntryId` (or v1 `firstKeptEntryIndex`) names no entry.
    MissingFirstKeptEntry,
    /// A compaction whose kept entry is not on its own path, so nothing is kept.
    KeptEntryOffPath,
    /// A label's `targetId` names no entry.
    MissingLabelTarget,
    /// A branch summary's `fromId` names no entry.
    MissingBranchSource,
    /// A `context_edit`'s `targetId` names no entry.
    MissingEditTarget,
    /// A `context_edit` aimed at an entry pi would not let it edit (only a
    /// `custom_message`, or a user, assistant or tool result message).
    UneditableEditTarget,
    /// A `context_edit` whose target is on no path through the edit, so it
    /// never applies.
    EditTargetOffPath,
    /// A `context_edit` without a `replacement` (pi throws building the
    /// context) or with one that is neither `null` nor `{content}` of a string
    /// or an array (pi passes it through unchecked).
    InvalidEditReplacement,
    /// System messages in a compaction's kept range: the context drops them,
    /// and the compaction has no `systemMessage` checkpoint to stand for them.
    LostSystemMessages,
}

impl Problem {
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::MalformedLine => "malformed-line",
            Problem::TruncatedLastLine => "truncated-last-line",
            Problem::NotAnObject => "not-an-object",
            Problem::BlankLine => "blank-line",
            Problem::Bom => "bom",
            Problem::InvalidUtf8 => "invalid-utf8",
            Problem::MissingHeader => "missing-header",
            Problem::MisplacedHeader => "misplaced-header",
            Problem::BeforeHeader => "before-header",
            Problem::DuplicateHeader => "duplicate-header",
            Problem::UnknownVersion => "unknown-version",
            Problem::UnknownEntryType => "unknown-entry-type",
            Problem::MissingId => "missing-id",
            Problem::DuplicateId => "duplicate-id",
            Problem::Orphan => "orphan",
            Problem::SelfParent => "self-parent",
            Problem::Cycle => "cycle",
            Problem::MissingFirstKeptEntry => "missing-first-kept-entry",
            Problem::KeptEntryOffPath => "kept-entry-off-path",
            Problem::MissingLabelTarget => "missing-label-target",
            Problem::MissingBranchSource => "missing-branch-source",
            Problem::MissingEditTarget => "missing-edit-target",
            Problem::UneditableEditTarget => "uneditable-edit-target",
            Problem::EditTargetOffPath => "edit-target-off-path",
            Problem::InvalidEditReplacement => "invalid-edit-replacement",
            Problem::LostSystemMessages => "lost-system-messages",
        }
    }
}

/// One problem found in a session.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub problem: Problem,
    /// 1-based line in the file, where there is one.
    pub line: Option<usize>,
    /// The id of the entry concerned, where it has one.
    pub entry_id: Option<String>,
    pub message: String,
}

/// Everything wrong with a JSONL session, in line order as far as possible.
/// `invalid_utf8`: whether decoding the bytes replaced anything.
pub fn inspect(doc: &Document, invalid_utf8: bool) -> Vec<Diagnostic> {
    let text = doc.text.as_str();
    let mut out = start_of_file(invalid_utf8, text.starts_with('\u{feff}'));
    // Physical lines: the part after the final newline is not a line.
    let body = text.strip_suffix('\n').unwrap_or(text);
    if !text.is_empty() {
        for (i, line) in body.split('\n').enumerate() {
            if line.trim_matches(crate::scan::is_js_space).is_empty() {
                out.push(blank_line(i + 1));
            }
        }
    }
    let last_number = doc.lines.last().map(|l| l.number);
    for line in &doc.lines {
        let last = Some(line.number) == last_number && !text.ends_with('\n');
        of_line(text, line, last, &mut out);
    }
    out.extend(inspect_entries(&doc.entries, |i| {
        doc.line_numbers.get(i).copied()
    }));
    crate::order::sorted_by_key(out, |x| x.line.unwrap_or(0) as u64)
}

/// [`inspect`] of a text of `len` bytes held elsewhere, read `piece` bytes
/// at a time: the same diagnostics, with the same line numbers, keeping the
/// entries' facts but none of their text.
pub fn inspect_in_pieces<E>(
    len: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    dates: &dyn DateParser,
) -> Result<Vec<Diagnostic>, E> {
    let mut head = Vec::new();
    read(0, len.min(3), &mut head)?;
    let mut last_byte = Vec::new();
    read(len.saturating_sub(1), len, &mut last_byte)?;
    let ends_with_newline = last_byte == b"\n";
    let mut lossy = false;
    let mut blanks = Vec::new();
    let mut lines = Vec::new();
    let mut entries = Vec::new();
    let mut line_numbers = Vec::new();
    let mut unique = 0;
    // The last line handed out: its number, where it ends, whether it is malformed.
    let mut last = (0, 0, false);
    pieces::read_lines(len, piece, read, &mut |l| {
        lossy |= l.lossy;
        // The lines not handed out are the blank ones.
        blanks.extend((last.0 + 1..l.number).map(blank_line));
        last = (l.number, l.range.end, l.parsed.is_err());
        match &l.parsed {
            Ok(value) if parse::is_kept(l.text, value) => {
                entries.push(Entry::from_json(l.text, value, Some(dates), &mut unique));
                line_numbers.push(l.number);
            }
            Ok(value) => lines.push(not_an_object(l.number, value.span.of(l.text))),
            Err(e) => {
                let line = Line {
                    number: l.number,
                    span: l.span,
                    content: LineContent::Malformed(e.clone()),
                };
                of_line(l.text, &line, false, &mut lines);
            }
        }
    })?;
    // The physical lines after the last one handed out: the newlines after
    // it, less a final one (the part after it is not a line).
    if len > 0 {
        let mut newlines = 0;
        let mut buf = Vec::new();
        let mut at = last.1;
        while at < len {
            let to = len.min(at + piece.max(1) as u64);
            buf.clear();
            read(at, to, &mut buf)?;
            newlines += buf.iter().filter(|&&b| b == b'\n').count();
            at = to;
        }
        let count = last.0.max(1) + newlines - usize::from(ends_with_newline);
        blanks.extend((last.0 + 1..=count).map(blank_line));
    }
    if last.2 && !ends_with_newline {
        lines.push(truncated_last_line(last.0));
    }
    let mut out = start_of_file(lossy, head == "\u{feff}".as_bytes());
    out.extend(blanks);
    out.extend(lines);
    out.extend(inspect_entries(&entries, |i| line_numbers.get(i).copied()));
    Ok(crate::order::sorted_by_key(out, |x| {
        x.line.unwrap_or(0) as u64
    }))
}

/// What is said of the file as a whole, before its lines.
fn start_of_file(invalid_utf8: bool, bom: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if invalid_utf8 {
        out.push(invalid_utf8_file());
    }
    if bom {
        out.push(at_line(
            Problem::Bom,
            Some(1),
            "the file starts with a UTF-8 byte order mark (ignored here; pi 1.6 refuses to open the file)".into(),
        ));
    }
    out
}

/// What is said of a file whose bytes are not all UTF-8 (first of all).
pub(crate) fn invalid_utf8_file() -> Diagnostic {
    at_line(
        Problem::InvalidUtf8,
        None,
        "the file is not valid UTF-8; invalid bytes read as U+FFFD".into(),
    )
}

/// The problems of one non-blank line that are not its entry's: a value
/// that is no entry, a malformed line, and (`last`: it ends the file without
/// a newline) a truncated one.
fn of_line(text: &str, line: &Line, last: bool, out: &mut Vec<Diagnostic>) {
    if let LineContent::Value(v) = &line.content {
        // Not among the document's entries, so reported here.
        if !parse::is_kept(text, v) {
            out.push(not_an_object(line.number, v.span.of(text)));
        }
    }
    if let Some(err) = parse::line_error(text, line) {
        out.push(at_line(
            Problem::MalformedLine,
            Some(line.number),
            format!("{err}; the line is skipped"),
        ));
        if last {
            out.push(truncated_last_line(line.number));
        }
    }
}

fn at_line(problem: Problem, line: Option<usize>, message: String) -> Diagnostic {
    Diagnostic {
        problem,
        line,
        entry_id: None,
        message,
    }
}

fn blank_line(number: usize) -> Diagnostic {
    at_line(
        Problem::BlankLine,
        Some(number),
        format!("line {number} is blank"),
    )
}

/// Line `number` is `value` (its JSON text), a value pi skips.
fn not_an_object(number: usize, value: &str) -> Diagnostic {
    at_line(
        Problem::NotAnObject,
        Some(number),
        format!(
            "line {number} is {}, not an object; it is skipped (pi 1.6 skips it when it opens the file)",
            value.trim()
        ),
    )
}

fn truncated_last_line(number: usize) -> Diagnostic {
    at_line(
        Problem::TruncatedLastLine,
        Some(number),
        format!("the last line ({number}) is cut off: malformed and without a final newline"),
    )
}

/// The problems of the entries themselves; `line_of(i)` gives entry `i`'s line.
/// Each check appends to one list, in this order, which is the order callers see.
pub fn inspect_entries(
    entries: &[Entry],
    line_of: impl Fn(usize) -> Option<usize>,
) -> Vec<Diagnostic> {
    let mut r = Report {
        entries,
        line_of: &line_of,
        out: Vec::new(),
    };
    check_headers(&mut r);
    let version = crate::migrate::declared_version(entries);
    let by_id = check_entries(&mut r, version);
    if version >= 2.0 {
        check_parents(&mut r, &by_id);
    }
    let tree = crate::tree::build(entries, &crate::tree::NativeSort);
    check_cycles(&mut r, &tree, &by_id);
    let ancestry = Ancestry::of(&tree, entries);
    for i in 0..entries.len() {
        check_references(&mut r, i, version, &by_id, &ancestry);
    }
    r.out
}

/// The diagnostics found so far, and how to say where an entry is.
struct Report<'e> {
    entries: &'e [Entry],
    line_of: &'e dyn Fn(usize) -> Option<usize>,
    out: Vec<Diagnostic>,
}

impl Report<'_> {
    /// Entry `i` in a message: its line, or its index when it has none.
    /// Out of line: the checks call it in some thirty places, and each
    /// inlined copy held both `format!`s.
    #[inline(never)]
    fn at(&self, i: usize) -> String {
        (self.line_of)(i).map_or_else(|| format!("entry {i}"), |l| format!("line {l}"))
    }

    fn push(&mut self, problem: Problem, i: usize, message: String) {
        let entry_id = match &self.entries[i].id {
            Key::Str(_) | Key::Hex(_) => Some(self.entries[i].id.to_string()),
            _ => None,
        };
        self.out.push(Diagnostic {
            problem,
            line: (self.line_of)(i),
            entry_id,
            message,
        })
    }
}

/// The header: missing, not first, repeated, or of a version pi does not know.
fn check_headers(r: &mut Report) {
    let entries = r.entries;
    let headers: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].is_header())
        .collect();
    match headers.first() {
        None if !entries.is_empty() => {
            r.push(
                Problem::MissingHeader,
                0,
                "no session header (a line with type \"session\") where line 1 should have it"
                    .into(),
            );
        }
        Some(&h) => {
            for i in 0..h {
                r.push(
                    Problem::BeforeHeader,
                    i,
                    format!(
                        "{} comes before the session header on {} (as oh-my-pi's title line does); it is kept, and read as an entry",
                        r.at(i),
                        r.at(h)
                    ),
                );
            }
            if h != 0 {
                r.push(
                    Problem::MisplacedHeader,
                    h,
                    format!(
                        "the session header is on {}, not the first line (pi 1.6 refuses to open the file)",
                        r.at(h)
                    ),
                );
            }
            for &other in &headers[1..] {
                r.push(
                    Problem::DuplicateHeader,
                    other,
                    format!(
                        "a second session header on {}; only the first counts",
                        r.at(other)
                    ),
                );
            }
            let version = match &entries[h].detail {
                Detail::Header { version } => **version,
                _ => None,
            };
            if let Some(v) = version {
                if !(v == 1.0 || v == 2.0 || v == 3.0) {
                    r.push(
                        Problem::UnknownVersion,
                        h,
                        format!(
                            "unknown session version {} on {}",
                            crate::json::number_text(v),
                            r.at(h)
                        ),
                    );
                }
            }
        }
        None => {}
    }
}

/// Whether `e`, found before the first header, is a line of another kind
/// (oh-my-pi's `title`): `before-header` says all there is to say about it.
fn is_foreign(e: &Entry) -> bool {
    e.is_object() && e.kind() == EntryType::Other
}

/// Each entry on its own: not an object, of no known type, without an id, or
/// with an id an earlier entry has. One pass, so that an entry's problems stay
/// together; it returns `id → entry index` (the last one; objects only, no
/// headers), which the later checks look parents and targets up in.
fn check_entries<'e>(r: &mut Report<'e>, version: f64) -> IdMap<'e, usize> {
    let entries = r.entries;
    // The map type the tree and the context use: one copy of its code.
    let mut by_id: IdMap<usize> = IdMap::default();
    // Whether the first header is still to come.
    let mut before_header = entries.iter().any(Entry::is_header);
    for (i, e) in entries.iter().enumerate() {
        if e.is_header() {
            before_header = false;
            continue;
        }
        if before_header && is_foreign(e) {
            // Reported as `before-header`; no entry type or id is expected.
            by_id.insert(&e.id, i);
            continue;
        }
        if !e.is_object() {
            r.push(
                Problem::NotAnObject,
                i,
                format!("{} is JSON but not an object", r.at(i)),
            );
            continue;
        }
        if e.kind() == EntryType::Other {
            r.push(
                Problem::UnknownEntryType,
                i,
                format!("{} has no known entry type", r.at(i)),
            );
        }
        if version >= 2.0 && !e.id.is_string() {
            r.push(
                Problem::MissingId,
                i,
                format!("{} has no string id", r.at(i)),
            );
        }
        if e.id.is_string() {
            if let Some(&first) = by_id.get(&e.id) {
                r.push(
                    Problem::DuplicateId,
                    i,
                    format!(
                        "{} reuses the id of {}; lookups find the later one",
                        r.at(i),
                        r.at(first)
                    ),
                );
            }
        }
        by_id.insert(&e.id, i);
    }
    by_id
}

/// Parents (v2 and later): an entry that is its own parent, has no
/// `parentId`, or names a parent that is not there.
fn check_parents(r: &mut Report, by_id: &IdMap<usize>) {
    let entries = r.entries;
    let mut before_header = entries.iter().any(Entry::is_header);
    for (i, e) in entries.iter().enumerate() {
        if e.is_header() {
            before_header = false;
            continue;
        }
        if !e.is_object() || (before_header && is_foreign(e)) {
            continue;
        }
        if e.parent_id == e.id && e.parent_id != Key::Null {
            r.push(
                Problem::SelfParent,
                i,
                format!("{} is its own parent", r.at(i)),
            );
        } else if e.parent_id == Key::Undefined {
            r.push(
                Problem::Orphan,
                i,
                format!("{} has no parentId; it becomes a root", r.at(i)),
            );
        } else if e.parent_id != Key::Null && !by_id.contains_key(&e.parent_id) {
            r.push(
                Problem::Orphan,
                i,
                format!(
                    "{}: parent {} not found; it becomes a root",
                    r.at(i),
                    show(&e.parent_id)
                ),
            );
        }
    }
}

/// The `parentId` loops the tree had to cut, each named by its ids.
fn check_cycles(r: &mut Report, tree: &Tree, by_id: &IdMap<usize>) {
    let entries = r.entries;
    for &cut in &tree.cycle_cuts {
        // The loop: from the cut, follow parents until back at it.
        let members =
            crate::context::walk(Some(cut), &|i| by_id.get(&entries[i].parent_id).copied());
        let ids: Vec<String> = members
            .iter()
            .rev()
            .map(|&m| show(&entries[m].id))
            .collect();
        r.push(
            Problem::Cycle,
            cut,
            format!(
                "parentId cycle {} → {}; cut at {}",
                ids.join(" → "),
                ids[0],
                r.at(cut)
            ),
        );
    }
}

/// Ancestry in the tree: `a` is on the path of `b` iff
/// `enter[a] <= enter[b] < leave[a]` (times of a depth-first walk). Also
/// `system[i]`, the number of system messages from the root to `i`
/// included, so that a range of a path is counted in constant time.
struct Ancestry {
    enter: Vec<usize>,
    leave: Vec<usize>,
    system: Vec<usize>,
}

impl Ancestry {
    fn of(tree: &Tree, entries: &[Entry]) -> Ancestry {
        let n = entries.len();
        let (mut enter, mut leave) = (vec![0usize; n], vec![0usize; n]);
        let mut system = vec![0usize; n];
        let mut clock = 0;
        let mut stack: Vec<(usize, bool, usize)> =
            tree.roots.iter().rev().map(|&r| (r, false, 0)).collect();
        while let Some((node, done, above)) = stack.pop() {
            if done {
                leave[node] = clock;
                continue;
            }
            enter[node] = clock;
            clock += 1;
            system[node] = above + usize::from(is_system_message(&entries[node]));
            stack.push((node, true, 0));
            let here = system[node];
            stack.extend(tree.children[node].iter().rev().map(|&c| (c, false, here)));
        }
        Ancestry {
            enter,
            leave,
            system,
        }
    }

    fn on_path(&self, a: usize, b: usize) -> bool {
        self.enter[a] <= self.enter[b] && self.enter[b] < self.leave[a]
    }
}

/// What entry `i` refers to besides its parent: a compaction's kept entry, a
/// label's target, a branch summary's source.
fn check_references(
    r: &mut Report,
    i: usize,
    version: f64,
    by_id: &IdMap<usize>,
    ancestry: &Ancestry,
) {
    let e = &r.entries[i];
    match &e.detail {
        // An entry's detail is that of its type: the variant says the kind.
        Detail::Compaction {
            kept,
            has_system_message,
        } => {
            let first_kept_entry_id = &kept.id;
            if version < 2.0 {
                check_kept_index(r, i, kept.index);
            } else if first_kept_entry_id.is_string() {
                check_kept_id(r, i, first_kept_entry_id, by_id, ancestry);
                if !has_system_message {
                    check_lost_system(r, i, first_kept_entry_id, by_id, ancestry);
                }
            }
        }
        Detail::ContextEdit {
            target_id,
            replacement,
        } => {
            check_edit(r, i, target_id, *replacement, by_id, ancestry);
        }
        Detail::Label { target_id, .. } if !by_id.contains_key(&**target_id) => {
            r.push(
                Problem::MissingLabelTarget,
                i,
                format!("{}: label target {} not found", r.at(i), show(target_id)),
            );
        }
        Detail::BranchSummary { from_id, .. } => {
            let root = from_id.as_str().as_deref() == Some("root");
            if from_id.is_string() && !root && !by_id.contains_key(&**from_id) {
                r.push(
                    Problem::MissingBranchSource,
                    i,
                    format!(
                        "{}: branch summary source {} not found",
                        r.at(i),
                        show(from_id)
                    ),
                );
            }
        }
        _ => {}
    }
}

/// A v1 compaction's `firstKeptEntryIndex`: it must name an entry that is not a header.
fn check_kept_index(r: &mut Report, i: usize, index: Option<f64>) {
    let entries = r.entries;
    let n = entries.len();
    if let Some(index) = index {
        let ok = index.fract() == 0.0
            && index >= 0.0
            && (index as usize) < n
            && !entries[index as usize].is_header();
        if !ok {
            r.push(
                Problem::MissingFirstKeptEntry,
                i,
                format!(
                    "{}: firstKeptEntryIndex {} names no entry",
                    r.at(i),
                    crate::json::number_text(index)
                ),
            );
        }
    }
}

/// A compaction's `firstKeptEntryId`: it must name an entry on the compaction's path.
fn check_kept_id(r: &mut Report, i: usize, id: &Key, by_id: &IdMap<usize>, ancestry: &Ancestry) {
    match by_id.get(id) {
        None => r.push(
            Problem::MissingFirstKeptEntry,
            i,
            format!("{}: firstKeptEntryId {} not found", r.at(i), show(id)),
        ),
        Some(&k) if !ancestry.on_path(k, i) => r.push(
            Problem::KeptEntryOffPath,
            i,
            format!(
                "{}: kept entry {} is not on the compaction's path, so nothing before the compaction is kept",
                r.at(i),
                show(id)
            ),
        ),
        Some(_) => {}
    }
}

/// A `message` entry whose role is `system`.
fn is_system_message(e: &Entry) -> bool {
    e.kind() == EntryType::Message
        && matches!(
            e.detail,
            Detail::Message {
                role: Role::System,
                ..
            }
        )
}

/// A compaction without a checkpoint: the system messages of its kept range
/// (from the kept entry up to the compaction) leave the context with nothing
/// in their place.
fn check_lost_system(
    r: &mut Report,
    i: usize,
    id: &Key,
    by_id: &IdMap<usize>,
    ancestry: &Ancestry,
) {
    // (A compaction that keeps itself keeps no range: `k == i` counts none.)
    let Some(&k) = by_id.get(id).filter(|&&k| ancestry.on_path(k, i)) else {
        return;
    };
    let system = &ancestry.system;
    let lost = system[i] - (system[k] - usize::from(is_system_message(&r.entries[k])));
    if lost > 0 {
        let many = if lost == 1 { "message" } else { "messages" };
        r.push(
            Problem::LostSystemMessages,
            i,
            format!(
                "{}: {lost} system {many} between the kept entry {} and the compaction leave the context, and the compaction has no systemMessage checkpoint to keep the prompt",
                r.at(i),
                show(id)
            ),
        );
    }
}

/// A `context_edit`: its replacement, and whether its target is there, is
/// one pi lets an edit change, and is on a path through the edit.
fn check_edit(
    r: &mut Report,
    i: usize,
    target_id: &Key,
    replacement: Replacement,
    by_id: &IdMap<usize>,
    ancestry: &Ancestry,
) {
    if replacement == Replacement::Missing {
        r.push(
            Problem::InvalidEditReplacement,
            i,
            format!(
                "{}: the context edit has no replacement (pi 1.6 throws building a context that applies it)",
                r.at(i)
            ),
        );
    } else if !replacement.is_valid() {
        r.push(
            Problem::InvalidEditReplacement,
            i,
            format!(
                "{}: the context edit's replacement is neither null nor an object with string or array content",
                r.at(i)
            ),
        );
    }
    let Some(&t) = by_id.get(target_id) else {
        r.push(
            Problem::MissingEditTarget,
            i,
            format!(
                "{}: context edit target {} not found",
                r.at(i),
                show(target_id)
            ),
        );
        return;
    };
    let target = &r.entries[t];
    let editable = target.kind() == EntryType::CustomMessage
        || (target.kind() == EntryType::Message
            && matches!(
                target.detail,
                Detail::Message {
                    role: Role::User | Role::Assistant | Role::ToolResult,
                    ..
                }
            ));
    if !editable {
        r.push(
            Problem::UneditableEditTarget,
            i,
            format!(
                "{}: context edit target {} ({}) is not a user, assistant or tool result message or a custom_message, which pi lets an edit change",
                r.at(i),
                show(target_id),
                r.at(t)
            ),
        );
    }
    if !ancestry.on_path(t, i) && !ancestry.on_path(i, t) {
        r.push(
            Problem::EditTargetOffPath,
            i,
            format!(
                "{}: context edit target {} ({}) is on no path through the edit, so the edit never applies",
                r.at(i),
                show(target_id),
                r.at(t)
            ),
        );
    }
}

fn show(k: &Key) -> String {
    match k {
        Key::Str(_) | Key::Hex(_) => format!("\"{k}\""),
        Key::Undefined => "undefined".into(),
        Key::Null => "null".into(),
        Key::Bool(b) => b.to_string(),
        // As JS writes it; Rust's own float formatter is not in the wasm.
        Key::Number(_) => crate::json::number_text(k.as_number().unwrap_or(f64::NAN)),
        Key::Utf16(_) => "(a string with a lone surrogate)".into(),
        Key::Unique(_) => "(an object)".into(),
    }
}
#[cfg(test)]
mod mutant_tests;
#[cfg(test)]
mod tests;
