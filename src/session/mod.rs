//! An open session, appended to in place, as pi's `SessionManager` keeps one.

use crate::json::Put;
use std::borrow::Cow;
use std::collections::HashMap;

use crate::document::{Document, Entries};
use crate::entry::{message_facts, Detail, Entry, EntryType, Key, Role};
use crate::ids::{random_id, random_id_where, IdHash};
use crate::json::{self, Span};
use crate::migrate;
use crate::parse;
use crate::time::DateParser;

/// A session failure the host should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// No entry has this id (pi's message: `Entry <id> not found`).
    NotFound(String),
    /// The platform has no cryptographic random source for ids.
    Random(String),
    /// A session id given by the caller that pi would refuse.
    InvalidSessionId,
    /// A context edit's target is not on the path from the root to the leaf.
    NotOnBranch(String),
    /// A context edit's target gives the model no content it could edit.
    NotEditable(String),
    /// A context edit's replacement is neither `null` nor `{ content }` with
    /// string or array content.
    InvalidReplacement,
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::NotFound(id) => write!(f, "Entry {id} not found"),
            SessionError::Random(e) => {
                write!(f, "no cryptographic random source for new ids ({e})")
            }
            SessionError::InvalidSessionId => f.write_str(crate::ids::INVALID_SESSION_ID),
            SessionError::NotOnBranch(id) => write!(f, "Entry {id} is not on the active branch"),
            SessionError::NotEditable(id) => {
                write!(f, "Entry {id} does not contribute editable model content")
            }
            SessionError::InvalidReplacement => {
                f.write_str("Context edit replacement must be null or contain string/array content")
            }
        }
    }
}

impl std::error::Error for SessionError {}

impl From<getrandom::Error> for SessionError {
    fn from(e: getrandom::Error) -> Self {
        SessionError::Random(e.to_string())
    }
}

/// A field of a new entry: its JSON text, or `None` for JS `undefined`
/// (which `JSON.stringify` leaves out).
pub type Json<'a> = Option<&'a str>;

/// The first line of a new session file, as pi writes it: `type`, `version`,
/// `id`, `timestamp`, then `cwd` and `parentSession` (JSON texts; `None` leaves
/// the key out, as `JSON.stringify` does for `undefined`).
pub fn header_line(id: &str, timestamp: &str, cwd: Json<'_>, parent_session: Json<'_>) -> String {
    let mut line = format!(
        "{{\"type\":\"session\",\"version\":{},\"id\":{},\"timestamp\":{}",
        migrate::CURRENT_VERSION,
        json::stringify(id),
        json::stringify(timestamp)
    );
    for (key, value) in [("cwd", cwd), ("parentSession", parent_session)] {
        if let Some(value) = value {
            line.put_fmt(format_args!(",\"{key}\":{value}"));
        }
    }
    line.put("}");
    line
}

/// The end of a chain of children (see [`Session::next_child`]), or no entry.
/// (Entry numbers are `u32`: a session of 4 billion entries would need
/// hundreds of GB for its entries alone.)
const NO_CHILD: u32 = u32::MAX;

/// The entries that share a parentId.
#[derive(Clone, Copy)]
struct Group {
    /// The last entry with that parentId; the others are chained from it
    /// by [`Session::next_child`], newest first ([`Session::children_of`]
    /// reverses them). Chained oldest first, a group held the first entry
    /// too: 4 bytes for nearly every entry.
    newest: u32,
    /// The entry that has that id now (the last one; [`NO_CHILD`]: none). An
    /// entry with an id that children name re-points all of them by one
    /// write: resolving each child again made a file whose entries repeat
    /// one id quadratic.
    target: u32,
}

// One for nearly every entry (an entry's parentId is most often the entry
// before it, named by no one else).
const _: () = assert!(std::mem::size_of::<Group>() == 8);

/// An open session, indexed once, appended to in place.
///
/// It behaves as pi's `SessionManager` (an in-memory one: the host stores the
/// bytes). The text is kept as it is, every line with `\n`; entries are the
/// lines that parse, and the indexes answer `getEntry`, `getChildren`, labels
/// and context walks without rescanning the file.
pub struct Session {
    text: String,
    entries: Vec<Entry>,
    /// Where each entry's value is in `text` (see [`Session::span`]); for a
    /// session opened from a source, of the entries after the source's
    /// only (those are in its `ranges`): 8 bytes an entry saved.
    spans: Vec<Span>,
    /// id → the last entry with it (headers are not in it), the id read
    /// from the entry (see [`table`]). The id tables hash with [`IdHash`]:
    /// SipHash was over a tenth of opening a large file.
    by_id: Table,
    /// `parent_group[i]`: the [`Group`] of entry `i`'s parentId
    /// ([`NO_CHILD`]: a header), whose `target` is where a walk goes from
    /// `i`, so walks need no lookups.
    parent_group: Vec<u32>,
    /// One per distinct parentId, in the order first met.
    groups: Vec<Group>,
    /// parentId → its group, the parentId read from the group's first entry.
    /// (A vector per parent was an allocation for nearly every append.)
    children: Table,
    /// `next_child[i]`: the entry before entry `i` with its parentId
    /// ([`NO_CHILD`]: none).
    next_child: Vec<u32>,
    /// targetId → (order of first setting, label entry), as pi's label `Map` keeps them.
    labels: HashMap<Key, (u64, usize), IdHash>,
    label_seq: u64,
    leaf: Option<usize>,
    /// Lines this session appended that the host has not taken yet.
    pending: Vec<Span>,
    /// Whether any entry is a user or assistant message: what a new session
    /// waits for before the host stores anything (pi's `_hasConversation`).
    has_conversation: bool,
    /// Whether the host has been handed the session's lines up to now: true
    /// for an opened file, and for a new one once it holds a conversation.
    flushed: bool,
    /// The unfinished last line of what `append_jsonl` was given (bytes: a
    /// chunk may also end inside a UTF-8 character).
    partial: parse::LineRuns,
    /// The text's last line was whole JSON without its `\n` when the
    /// session was opened (a writer between the line and its newline): the
    /// first `\n` [`Session::append_jsonl`] brings ends that line, and the
    /// JSON whitespace before it belongs to it.
    owed_newline: bool,
    /// The last entry is the text's last line, which is JSON only once
    /// its end is trimmed as JS trims it (see [`Session::keep_last_line`]):
    /// a line that comes after it takes it back.
    provisional: bool,
    /// The index of the entry taken back last, until the host asks
    /// ([`Session::take_retracted`]): what it keeps by index from there on
    /// is another entry's.
    retracted: Option<usize>,
    /// Whether bytes taken in were not UTF-8 (read as U+FFFD).
    invalid_utf8: bool,
    migrated: bool,
    unique: u32,
    /// What a session opened from a source keeps of it (see [`source`]).
    outside: Option<source::Outside>,
    /// The last entry this session appended and its id as JSON: the next
    /// append's `parentId`, without reading that line's members again.
    appended: Option<(usize, String)>,
    /// The parsed value of the last line indexed, whose vectors the next
    /// line is read into.
    scratch: json::Value,
    /// The timestamp (its JSON text) of the last line appended and its time.
    clock: Option<(String, f64)>,
}

/// Where the last line of a file's bytes starts when it is not JSON (yet):
/// a writer may still be adding to it, and it waits for
/// [`Session::append_jsonl`]. After a final newline the empty rest is no JSON
/// either: splitting it off takes nothing.
fn unfinished_from(b: &[u8]) -> Option<usize> {
    let cut = b.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
    let tail = parse::decode(b.get(cut..).unwrap_or_default());
    json::parse(&tail, Span::new(0, tail.len()))
        .is_err()
        .then_some(cut)
}

/// Whether `b` is only JSON's whitespace within a line (what `JSON.parse`
/// takes around a value).
fn only_json_space(b: &[u8]) -> bool {
    b.iter().all(|&c| json::is_ws::<true>(c))
}

/// Puts JSON text `v` into a line: its line breaks, which in valid JSON can
/// only be whitespace between tokens (a string holds them escaped), become
/// spaces. A value pretty-printed by its caller would otherwise end the
/// line early, and the file would lose the entry when read again.
fn put_on_one_line(line: &mut String, v: &str) {
    if !v.contains(['\n', '\r']) {
        line.put(v);
        return;
    }
    line.extend(
        v.chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c }),
    );
}

impl Session {
    /// Opens a session: parses, migrates in memory, indexes. A last line
    /// without a newline that is not valid JSON is taken to be still being
    /// written: it waits for [`Session::append_jsonl`] to complete it.
    pub fn open(mut text: String, dates: &dyn DateParser) -> Result<Session, SessionError> {
        // (After a newline, which is never inside a character, the cut is
        // on a character boundary.)
        let partial = unfinished_from(text.as_bytes())
            .map(|cut| text.split_off(cut).into_bytes())
            .unwrap_or_default();
        Session::open_split(text, partial, dates)
    }

    /// [`Session::open`] of the text `bytes` decode to, except that an
    /// unfinished last line is kept as its bytes: a writer may have stopped
    /// inside a character, whose rest [`Session::append_jsonl`] then brings.
    /// (Decoded on its own, the cut character would be U+FFFD for good.)
    pub fn open_bytes(mut bytes: Vec<u8>, dates: &dyn DateParser) -> Result<Session, SessionError> {
        let partial = unfinished_from(&bytes)
            .map(|cut| bytes.split_off(cut))
            .unwrap_or_default();
        // `\n` is never inside a UTF-8 sequence: the lines before the cut
        // decode as they would in the whole text.
        let (text, invalid) = parse::into_text(bytes);
        let mut session = Session::open_split(text, partial, dates)?;
        session.invalid_utf8 = invalid;
        Ok(session)
    }

    /// Opens the whole lines of `text`, holding `partial` as the unfinished
    /// line that follows them.
    fn open_split(
        text: String,
        partial: Vec<u8>,
        dates: &dyn DateParser,
    ) -> Result<Session, SessionError> {
        // pi's `parseSessionEntries` trims the whole text: the end of these
        // lines only when nothing but whitespace is held after them. A last
        // line ending in U+2028 (or NBSP…) is then JSON; with more after
        // it, it is in the middle and malformed, as in the whole file.
        let open_ended = !parse::may_be_blank(&partial);
        let parse = |text: String| {
            if open_ended {
                Document::parse_open_ended(text, dates)
            } else {
                Document::parse_with(text, dates)
            }
        };
        // A current file (most are) is read in the one pass that keeps its
        // entries and spans only: a Document also keeps each line's members,
        // which only a migration reads (a copy and two allocations a line,
        // a tenth of opening a large session).
        let read = if open_ended {
            Entries::read_open_ended(text, dates)
        } else {
            Entries::read(text, dates)
        };
        let (entries, migrated) = match read {
            Ok(entries) => (entries, false),
            Err(text) => {
                let doc = parse(text);
                let edits = doc.try_migration(&mut random_id)?;
                let migrated = edits.is_some();
                let doc = match edits {
                    Some(edits) => parse(migrate::apply_to_text(&doc.text, &doc.lines, &edits)),
                    None => doc,
                };
                (Entries::from(doc), migrated)
            }
        };
        let mut text = entries.text;
        let owed_newline = !text.is_empty() && !text.ends_with('\n');
        if owed_newline {
            text.push('\n');
        }
        let mut session = Session::empty(text);
        session.owed_newline = owed_newline;
        session.migrated = migrated;
        session.partial = parse::LineRuns::holding(partial);
        // The host has the file already: every new line is its to store at once.
        session.flushed = true;
        session.reserve_entries(entries.entries.len());
        session.reserve_tables(entries.entries.len());
        session.spans.reserve_exact(entries.entries.len());
        for (entry, span) in entries.entries.into_iter().zip(entries.spans) {
            session.add(entry, Some(span));
        }
        session.trim_entries();
        session.unique = 1 << 30;
        if !open_ended {
            // Its last line, if an entry only as the trimmed text's last.
            session.keep_last_line(dates);
        }
        Ok(session)
    }

    /// A new session whose first line is `header` (its JSON text), held
    /// back from the host until the first user or assistant message, as pi does.
    pub fn create(header: &str, dates: &dyn DateParser) -> Session {
        let mut session = Session::empty(String::new());
        session.push_line(header, dates, true);
        session
    }

    fn empty(text: String) -> Session {
        Session {
            text,
            entries: Vec::new(),
            spans: Vec::new(),
            by_id: Table::new(),
            parent_group: Vec::new(),
            groups: Vec::new(),
            children: Table::new(),
            next_child: Vec::new(),
            labels: HashMap::default(),
            label_seq: 0,
            leaf: None,
            pending: Vec::new(),
            has_conversation: false,
            flushed: false,
            partial: parse::LineRuns::default(),
            owed_newline: false,
            provisional: false,
            retracted: None,
            invalid_utf8: false,
            migrated: false,
            unique: 0,
            outside: None,
            appended: None,
            scratch: json::Value::default(),
            clock: None,
        }
    }

    /// Room for `n` entries in all in every vector that holds one slot an
    /// entry (and a group: there are at most as many), made once: grown by doubling, a vector is up to twice its entries,
    /// and wasm memory keeps the high-water mark of the old buffers freed
    /// on the way (5,000,000 entries sat in vectors of 8,388,608).
    fn reserve_entries(&mut self, n: usize) {
        let more = n.saturating_sub(self.entries.len());
        self.entries.reserve_exact(more);
        self.parent_group.reserve_exact(more);
        self.next_child.reserve_exact(more);
        self.groups
            .reserve_exact(n.saturating_sub(self.groups.len()));
    }

    /// Room for `n` entries in the id and children tables, when an open
    /// knows or estimates how many come (an append grows them by doubling:
    /// growing them by an eighth would hash every id again each time).
    fn reserve_tables(&mut self, n: usize) {
        let entries = &self.entries;
        self.by_id.reserve(n, &|k: u32| &entries[k as usize].id);
        let groups = &self.groups;
        let parent_of = |g: u32| &entries[groups[g as usize].newest as usize].parent_id;
        self.children.reserve(n, &parent_of);
    }

    /// The vectors' capacity trimmed to their entries, once an open has
    /// read them all: what an estimate reserved beyond goes back.
    fn trim_entries(&mut self) {
        self.entries.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.parent_group.shrink_to_fit();
        self.next_child.shrink_to_fit();
        self.groups.shrink_to_fit();
    }

    /// Indexes entry `entry` found at `span` of the text (`None`: in the
    /// source the session is opened from).
    fn add(&mut self, entry: Entry, span: Option<Span>) {
        let i = self.entries.len();
        if i == self.entries.capacity() {
            // Past a few thousand entries, by an eighth: a session opened
            // with its vectors full does not double them all for one append.
            // (A groups vector never fills first: it is reserved as far.)
            self.reserve_entries(if i < 4096 { (2 * i).max(16) } else { i + i / 8 });
        }
        let n = i as u32;
        self.parent_group.push(NO_CHILD);
        self.next_child.push(NO_CHILD);
        self.entries.push(entry);
        if let Some(span) = span {
            if self.spans.len() == self.spans.capacity() {
                let n = self.spans.len();
                self.spans
                    .reserve_exact(if n < 4096 { n.max(16) } else { n / 8 });
            }
            self.spans.push(span);
        }
        let entry = &self.entries[i];
        if !entry.is_header() {
            let entries = &self.entries;
            let id_of = |k: u32| &entries[k as usize].id;
            self.by_id.insert(n, &id_of);
            let groups = &mut self.groups;
            let parent_of = |g: u32| &entries[groups[g as usize].newest as usize].parent_id;
            self.parent_group[i] = match self.children.get(&entry.parent_id, &parent_of) {
                Some(g) => {
                    let group = &mut groups[g as usize];
                    self.next_child[i] = group.newest;
                    group.newest = n;
                    g
                }
                None => {
                    let target = if entry.parent_id.truthy() {
                        self.by_id.get(&entry.parent_id, &id_of)
                    } else {
                        None
                    };
                    let g = groups.len() as u32;
                    groups.push(Group {
                        newest: n,
                        target: target.unwrap_or(NO_CHILD),
                    });
                    let groups = &self.groups;
                    let parent_of = |g: u32| &entries[groups[g as usize].newest as usize].parent_id;
                    self.children.insert(g, &parent_of);
                    g
                }
            };
            // Entries that name this id as parent now find this entry.
            if entry.id.truthy() {
                let groups = &self.groups;
                let parent_of = |g: u32| &entries[groups[g as usize].newest as usize].parent_id;
                if let Some(g) = self.children.get(&entry.id, &parent_of) {
                    self.groups[g as usize].target = n;
                }
            }
            self.leaf = Some(i);
            if let (
                EntryType::Label,
                Detail::Label {
                    target_id,
                    has_label,
                },
            ) = (entry.kind(), &entry.detail)
            {
                if *has_label {
                    let seq = self.label_seq;
                    let slot = self.labels.entry((**target_id).clone()).or_insert((seq, i));
                    slot.1 = i;
                    self.label_seq += 1;
                } else {
                    self.labels.remove(target_id);
                }
            }
            if let Detail::Message {
                role: Role::User | Role::Assistant,
                ..
            } = entry.detail
            {
                self.has_conversation = true;
            }
        }
    }

    /// Appends one line of JSON to the text and indexes it if it parses.
    fn push_line(&mut self, line: &str, dates: &dyn DateParser, own: bool) {
        let start = self.text.len();
        self.text.push_str(line);
        self.index_line(start, dates, own, None);
    }

    /// Ends the line of JSON that `text[start..]` holds and indexes it if it
    /// parses. `written`: the line is one [`Session::append_as`] wrote, of
    /// that kind, its `id` the member at that index (then `parentId` and
    /// `timestamp`), whose facts need no lookup by name.
    fn index_line(
        &mut self,
        start: usize,
        dates: &dyn DateParser,
        own: bool,
        written: Option<(EntryType, usize)>,
    ) {
        let end = self.text.len();
        self.text.push('\n');
        self.added_line(start);
        // A line after the one opened without its newline: a newline that
        // comes now ends no line of the file's but this one.
        self.owed_newline = false;
        let span = Span::new(start, end);
        if own {
            self.pending.push(span);
            // The session's own line goes under it: it is the session's.
            self.provisional = false;
        }
        // Read into the vectors of the last line read: a line with no newline
        // in it (every line appended, every line of a chunk) parses as
        // `json::parse` reads it; anything else is read by `json::parse`.
        let mut value = std::mem::take(&mut self.scratch);
        if json::parse_line_into(&self.text, start, end, &mut value) != Some(end) {
            match json::parse(&self.text, span) {
                Ok(v) => value = v,
                Err(_) => {
                    self.scratch = value;
                    return;
                }
            }
        }
        // A falsy line (`null`, `0`, ...) stays in the text but is no entry, as
        // when the same text is opened.
        if parse::is_kept(&self.text, &value) {
            let entry = written
                .and_then(|(kind, at)| self.written_entry(&value, kind, at, dates))
                .unwrap_or_else(|| {
                    Entry::from_json(&self.text, &value, Some(dates), &mut self.unique)
                });
            self.add(entry, Some(value.span));
        }
        self.scratch = value;
    }

    /// What [`Entry::from_json`] reads from a line [`Session::append_as`]
    /// wrote (`value`, its members `type`, the head, `id` at `at`,
    /// `parentId`, `timestamp`, the tail), for the kinds whose facts are
    /// those members and the message: found by place, not by name (the
    /// fourteen names compared with every member were a tenth of an
    /// append). `None` for the other kinds, which `from_json` reads.
    fn written_entry(
        &mut self,
        value: &json::Value,
        kind: EntryType,
        at: usize,
        dates: &dyn DateParser,
    ) -> Option<Entry> {
        let text = &self.text;
        let [id, parent_id, timestamp] = [at, at + 1, at + 2].map(|i| value.members.get(i));
        debug_assert!(
            [
                (id, "id"),
                (parent_id, "parentId"),
                (timestamp, "timestamp")
            ]
            .iter()
            .all(|(m, name)| m.is_some_and(|m| json::key_is(text, m.key, name))),
            "members out of place in a written line"
        );
        let detail = match kind {
            // The message, if given, is the only member after the timestamp.
            EntryType::Message => {
                let message = value.members.get(at + 3);
                debug_assert!(message.is_none_or(|m| json::key_is(text, m.key, "message")));
                let (role, content) = message_facts(text, value, message.map(|_| at + 3));
                Detail::Message { role, content }
            }
            EntryType::ThinkingLevelChange
            | EntryType::ModelChange
            | EntryType::Custom
            | EntryType::CustomMessage
            | EntryType::SessionInfo
            | EntryType::Usage => Detail::Plain(kind),
            _ => return None,
        };
        // Most appends come within the millisecond of the one before: the
        // same timestamp, read once.
        let stamp = timestamp?;
        let raw = stamp.value.of(text);
        let time = match &self.clock {
            Some((last, time)) if last == raw => *time,
            _ => {
                let time = crate::time::time_of(Some((stamp.kind, raw)), dates);
                self.clock = Some((raw.to_owned(), time));
                time
            }
        };
        Some(Entry {
            id: Key::from_json(text, id, &mut self.unique),
            parent_id: Key::from_json(text, parent_id, &mut self.unique),
            time,
            detail,
        })
    }

    /// Writes and indexes a new entry `{type, ...head, id, parentId, timestamp, ...tail}`
    /// as a child of the leaf, and makes it the leaf. Returns its id.
    fn append(
        &mut self,
        kind: &str,
        head: &[(&str, Json)],
        tail: &[(&str, Json)],
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let id = self.new_id()?;
        self.append_as(&id, kind, head, tail, now, dates);
        Ok(id)
    }

    /// A fresh entry id, unlike every id in the session.
    fn new_id(&self) -> Result<String, SessionError> {
        Ok(random_id_where(&|id| {
            self.find(&Key::string(id)).is_some()
        })?)
    }

    /// [`Session::append`] with the id chosen already.
    fn append_as(
        &mut self,
        id: &str,
        kind: &str,
        head: &[(&str, Json)],
        tail: &[(&str, Json)],
        now: &str,
        dates: &dyn DateParser,
    ) {
        // The leaf is most often the entry this session appended last, whose
        // id is kept as JSON: written from there, with no copy made.
        let last = self.appended.take();
        let parent_json = match (&last, self.leaf) {
            (Some((at, json)), Some(p)) if *at == p => Some(Cow::Borrowed(json.as_str())),
            // pi writes `parentId: leafId`, which `JSON.stringify` leaves
            // out when the leaf has no id (a torn or hand-written last line)
            (_, Some(p)) if matches!(self.entries[p].id, Key::Undefined) => None,
            (_, leaf) => Some(Cow::Owned(
                leaf.map_or_else(|| "null".to_owned(), |p| self.id_json(p)),
            )),
        };
        // Written straight into the text: no line of its own to allocate.
        let start = self.text.len();
        let line = &mut self.text;
        line.put("{\"type\":");
        json::push_stringified(line, kind);
        let field = |line: &mut String, k: &str, v: Json| {
            if let Some(v) = v {
                line.put(",");
                json::push_stringified(line, k);
                line.put(":");
                put_on_one_line(line, v);
            }
        };
        for (k, v) in head {
            field(line, k, *v);
        }
        line.put(",\"id\":");
        json::push_stringified(line, id);
        field(line, "parentId", parent_json.as_deref());
        line.put(",\"timestamp\":");
        json::push_stringified(line, now);
        for (k, v) in tail {
            field(line, k, *v);
        }
        line.put("}");
        // `written_entry` finds the members by place, `parentId` among them:
        // a line without one is read by name instead
        let placed = parent_json.is_some();
        drop(parent_json);
        let at = self.entries.len();
        let written = placed.then(|| {
            (
                EntryType::from_name(kind),
                1 + head.iter().filter(|(_, v)| v.is_some()).count(),
            )
        });
        self.index_line(start, dates, true, written);
        // Cached only for a line that became entry `at` (a line of this
        // writer always parses; the check keeps a stale id from ever naming
        // another entry), in the buffer of the id it replaces.
        if self.entries.len() > at {
            let mut json = last.map(|(_, json)| json).unwrap_or_default();
            json.clear();
            json::push_stringified(&mut json, id);
            self.appended = Some((at, json));
        }
    }

    /// Entry `i`'s id as JSON text, exactly as its line has it.
    fn id_json(&self, i: usize) -> String {
        if let Some((last, id)) = &self.appended {
            if *last == i {
                return id.clone();
            }
        }
        let fields = json::members(&self.text, self.span(i));
        json::get(&self.text, &fields, "id")
            .map_or_else(|| "null".to_owned(), |m| m.value.of(&self.text).to_owned())
    }

    pub fn append_message(
        &mut self,
        message: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        self.append("message", &[], &[("message", message)], now, dates)
    }

    pub fn append_thinking_level_change(
        &mut self,
        level: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        self.append(
            "thinking_level_change",
            &[],
            &[("thinkingLevel", level)],
            now,
            dates,
        )
    }

    pub fn append_model_change(
        &mut self,
        provider: Json,
        model_id: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        self.append(
            "model_change",
            &[],
            &[("provider", provider), ("modelId", model_id)],
            now,
            dates,
        )
    }

    /// `first_kept_entry_id`: `None` for pi's `null` or `undefined`, which
    /// names the compaction itself (nothing before it is kept).
    #[allow(clippy::too_many_arguments)]
    pub fn append_compaction(
        &mut self,
        summary: Json,
        first_kept_entry_id: Option<Json>,
        tokens_before: Json,
        details: Json,
        from_hook: Json,
        usage: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        // The prompt and tools the model has at the leaf, stamped with the
        // compaction's own time: the next context starts from them.
        let checkpoint = self.current_system(None).map(|sys| {
            let ms = crate::time::iso_utc(now).unwrap_or_else(|| dates.parse(now));
            crate::system::restamp(&sys, ms)
        });
        let id = self.new_id()?;
        let own = json::stringify(&id);
        let tail = [
            ("summary", summary),
            (
                "firstKeptEntryId",
                first_kept_entry_id.unwrap_or(Some(&own)),
            ),
            ("tokensBefore", tokens_before),
            ("details", details),
            ("usage", usage),
            ("fromHook", from_hook),
            ("systemMessage", checkpoint.as_deref()),
        ];
        self.append_as(&id, "compaction", &[], &tail, now, dates);
        Ok(id)
    }

    /// A `usage` entry (tokens and cost spent outside the context); `note`
    /// only when the caller's was truthy.
    #[allow(clippy::too_many_arguments)]
    pub fn append_usage(
        &mut self,
        kind: Json,
        provider: Json,
        model: Json,
        usage: Json,
        note: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let tail = [
            ("kind", kind),
            ("provider", provider),
            ("model", model),
            ("usage", usage),
            ("note", note),
        ];
        self.append("usage", &[], &tail, now, dates)
    }

    pub fn append_custom_entry(
        &mut self,
        custom_type: Json,
        data: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        self.append(
            "custom",
            &[("customType", custom_type), ("data", data)],
            &[],
            now,
            dates,
        )
    }

    /// `name` with each run of `\r`/`\n` made one space, then trimmed as JS's
    /// `trim()` does: a name stays on one line.
    pub fn append_session_info(
        &mut self,
        name: &str,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let mut folded = String::with_capacity(name.len());
        let mut in_run = false;
        for c in name.chars() {
            let newline = matches!(c, '\r' | '\n');
            if !newline {
                folded.push(c);
            } else if !in_run {
                folded.put(" ");
            }
            in_run = newline;
        }
        let name = json::stringify(folded.trim_matches(crate::scan::is_js_space));
        self.append_session_info_literal(&name, now, dates)
    }

    /// [`Self::append_session_info`] of a name already folded and trimmed,
    /// given as a JSON string literal (for a name Rust cannot hold: a lone
    /// surrogate, as its `\u` escape).
    pub fn append_session_info_literal(
        &mut self,
        name: &str,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        self.append("session_info", &[], &[("name", Some(name))], now, dates)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: Json,
        content: Json,
        display: Json,
        details: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let head = [
            ("customType", custom_type),
            ("content", content),
            ("display", display),
            ("details", details),
        ];
        self.append("custom_message", &head, &[], now, dates)
    }

    /// Sets (a truthy `label`) or clears the label of `target_id`.
    pub fn append_label_change(
        &mut self,
        target_id: &Key,
        label: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let Some(target) = self.find(target_id) else {
            return Err(SessionError::NotFound(target_id.to_string()));
        };
        let target = self.id_json(target);
        self.append(
            "label",
            &[],
            &[("targetId", Some(&target)), ("label", label)],
            now,
            dates,
        )
    }

    /// Moves the leaf to `id`: the next entry starts a branch there.
    pub fn branch(&mut self, id: &Key) -> Result<(), SessionError> {
        match self.find(id) {
            Some(i) => {
                self.leaf = Some(i);
                Ok(())
            }
            None => Err(SessionError::NotFound(id.to_string())),
        }
    }

    /// Moves the leaf before the first entry: the next entry is a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Branches at `from` (`None`: the root) and records a summary of the
    /// path left behind; its `fromId` is the leaf before the call (the end of
    /// that path), or `"root"` when there was none.
    #[allow(clippy::too_many_arguments)]
    pub fn branch_with_summary(
        &mut self,
        from: Option<&Key>,
        summary: Json,
        details: Json,
        from_hook: Json,
        usage: Json,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        // Read before the leaf moves. An id-less leaf reads as pi's undefined.
        let from_id = self
            .leaf
            .map(|i| self.id_json(i))
            .filter(|id| id != "null")
            .unwrap_or_else(|| "\"root\"".to_owned());
        match from {
            Some(id) => self.branch(id)?,
            None => self.reset_leaf(),
        }
        let tail = [
            ("fromId", Some(from_id.as_str())),
            ("summary", summary),
            ("details", details),
            ("usage", usage),
            ("fromHook", from_hook),
        ];
        self.append("branch_summary", &[], &tail, now, dates)
    }

    /// A `context_edit` of `target_id`, checked as pi checks it (the caller
    /// has checked the replacement: `replacement` is its JSON text, and
    /// `string_content` that of its `content` when that is a string). A string
    /// aimed at an assistant or tool result is stored as one text block, as
    /// those messages hold blocks.
    pub fn append_context_edit(
        &mut self,
        target_id: &Key,
        replacement: Json,
        string_content: Option<&str>,
        now: &str,
        dates: &dyn DateParser,
    ) -> Result<String, SessionError> {
        let Some(target) = self.find(target_id) else {
            return Err(SessionError::NotFound(target_id.to_string()));
        };
        let on_branch = self
            .branch_path(self.leaf)
            .into_iter()
            .any(|i| self.entries[i].id == *target_id);
        if !on_branch {
            return Err(SessionError::NotOnBranch(target_id.to_string()));
        }
        let Some(blocks) = self.editable(target) else {
            return Err(SessionError::NotEditable(target_id.to_string()));
        };
        let wrapped = match string_content {
            Some(text) if blocks => Some(format!(
                "{{\"content\":[{{\"type\":\"text\",\"text\":{text}}}]}}"
            )),
            _ => None,
        };
        let target_json = target_id.to_json();
        let tail = [
            ("targetId", Some(target_json.as_str())),
            ("replacement", wrapped.as_deref().or(replacement)),
        ];
        self.append("context_edit", &[], &tail, now, dates)
    }

    /// Whether entry `i` gives the model content a context edit may replace:
    /// `Some(true)` for assistant and tool-result messages (whose content is
    /// blocks), `Some(false)` for user messages and custom messages.
    fn editable(&self, i: usize) -> Option<bool> {
        match (self.entries[i].kind(), &self.entries[i].detail) {
            (EntryType::CustomMessage, _) => Some(false),
            (EntryType::Message, Detail::Message { role, .. }) => match role {
                Role::User => Some(false),
                Role::Assistant | Role::ToolResult => Some(true),
                _ => None,
            },
            _ => None,
        }
    }

    /// Ingests lines another writer appended to the same file. A chunk may end
    /// mid-line: the rest waits for the next chunk.
    pub fn append_jsonl(&mut self, chunk: &[u8], dates: &dyn DateParser) {
        let Some(chunk) = self.pay_newline(chunk) else {
            return;
        };
        let mut partial = std::mem::take(&mut self.partial);
        partial.push(chunk, &mut |run| self.append_run(run, dates));
        self.partial = partial;
        if !self.partial.may_be_blank() {
            // A line is being written after it.
            self.retract_provisional();
        }
        self.keep_last_line(dates);
    }

    /// Makes the text's last line an entry if it is JSON once its end is
    /// trimmed as JS trims (U+2028, NBSP…: whitespace `JSON.parse` refuses),
    /// as pi's `parseSessionEntries` trims the whole text, and as
    /// [`Session::open`] of the text reads it; only when nothing but
    /// whitespace (so far) is held after it. Each line was read on its own,
    /// as if more followed. Such an entry is provisional: a line that comes
    /// after it takes it back ([`Session::retract_provisional`]), as a read
    /// of the whole text then finds it in the middle, malformed.
    fn keep_last_line(&mut self, dates: &dyn DateParser) {
        if !self.partial.may_be_blank() {
            return;
        }
        let Some(line) = self.trimmed_last_line() else {
            return;
        };
        if self.spans.last().is_some_and(|s| s.start >= line.start) {
            // An entry already: the open read the text so.
            self.provisional = true;
            return;
        }
        let Ok(value) = json::parse(&self.text, line) else {
            return;
        };
        if parse::is_kept(&self.text, &value) {
            let entry = Entry::from_json(&self.text, &value, Some(dates), &mut self.unique);
            self.add(entry, Some(value.span));
            self.provisional = true;
        }
    }

    /// The text's last line that is not blank, up to the whitespace JS's
    /// `trim()` takes from its end, if that is more than JSON's own (else
    /// the line was read as it is: most often, the text ends in `}\n`).
    /// For a session opened from a source, only among the lines after it.
    fn trimmed_last_line(&self) -> Option<Span> {
        let b = self.text.as_bytes();
        let (start, end, line_end) = match &self.outside {
            Some(o) => {
                let line = o.after.iter().rev().find_map(|s| {
                    let line = &b[s.start..s.end.saturating_sub(1).max(s.start)];
                    (!parse::may_be_blank(line)).then_some((s.start, line))
                })?;
                let (start, line) = line;
                (start, start + parse::trim_end(line), start + line.len())
            }
            None => {
                let end = parse::trim_end(b);
                let line_end = crate::scan::newline(b, end).min(b.len());
                // (The start last: finding it reads the whole line.)
                if end == 0 || only_json_space(&b[end..line_end]) {
                    return None;
                }
                let start = b[..end]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                (start, end, line_end)
            }
        };
        (start < end && !only_json_space(&b[end..line_end])).then(|| Span::new(start, end))
    }

    /// Takes back a [`Session::provisional`] entry, a line having come
    /// after it: the indexes are made again without it (rare: a line that
    /// ends in U+2028 or the like, followed by another; linear in the
    /// entries). Its line stays in the text, malformed.
    fn retract_provisional(&mut self) {
        if !std::mem::take(&mut self.provisional) {
            return;
        }
        let mut entries = std::mem::take(&mut self.entries);
        entries.pop();
        let i = entries.len();
        self.retracted = Some(self.retracted.map_or(i, |r| r.min(i)));
        if !self.outside.as_mut().is_some_and(|o| o.forget_last(i)) {
            self.spans.pop();
        }
        let spans = std::mem::take(&mut self.spans);
        // A leaf the host moved elsewhere (`branch`, `reset_leaf`) stays.
        let moved = (self.leaf != Some(i)).then_some(self.leaf);
        self.by_id = Table::new();
        self.children = Table::new();
        self.parent_group.clear();
        self.next_child.clear();
        self.groups.clear();
        self.labels.clear();
        self.label_seq = 0;
        self.leaf = None;
        self.has_conversation = false;
        self.reserve_entries(entries.len());
        for entry in entries {
            self.add(entry, None);
        }
        self.spans = spans;
        if let Some(leaf) = moved {
            self.leaf = leaf;
        }
    }

    /// The index from which entries were taken back since the last call
    /// (see [`Session::keep_last_line`]): a host that keeps anything by
    /// entry index drops it from there. At most one entry is taken back
    /// at a time, but its index may be another's since.
    pub fn take_retracted(&mut self) -> Option<usize> {
        self.retracted.take()
    }

    /// The start of `chunk` that ends the line [`Session::owed_newline`]
    /// stands for, taken; what follows it (`None`: nothing yet). Without
    /// this, the `\n` that ends that line would add a blank line to the
    /// text, and every later line number would be one off the file's.
    fn pay_newline<'c>(&mut self, chunk: &'c [u8]) -> Option<&'c [u8]> {
        if !self.owed_newline || chunk.is_empty() {
            return Some(chunk);
        }
        let space = chunk
            .iter()
            .take_while(|&&c| json::is_ws::<true>(c))
            .count();
        let next = chunk.get(space).copied();
        if next.is_some_and(|c| c != b'\n') {
            // More than whitespace on that line: it was not the whole line
            // after all. What was read stays; the rest is a line of its own.
            self.owed_newline = false;
            return Some(chunk);
        }
        // (ASCII whitespace: the text stays UTF-8.)
        let space = std::str::from_utf8(&chunk[..space]).unwrap_or_default();
        self.extend_owed_line(space);
        next?; // all whitespace so far: the newline is still to come
        self.owed_newline = false;
        Some(&chunk[space.len() + 1..])
    }

    /// Appends a run of whole lines (see [`parse::LineRuns`]).
    fn append_run(&mut self, run: &[u8], dates: &dyn DateParser) {
        // Cut at `\n`, which is in no UTF-8 sequence: the run decodes as it
        // would in the whole text, even a character split across chunks.
        let run = parse::decode(run);
        if matches!(run, Cow::Owned(_)) {
            self.invalid_utf8 = true;
        }
        for line in run.split('\n') {
            // The same rule as for whole files: blank lines and what JSON.parse
            // rejects are kept in the text but are no entries.
            if line.trim_matches(crate::scan::is_js_space).is_empty() {
                let start = self.text.len();
                self.text.push_str(line);
                self.text.push('\n');
                self.added_line(start);
                continue;
            }
            self.retract_provisional();
            self.push_line(line, dates, false);
        }
    }

    /// The lines appended since the last call, ready to be appended to the
    /// host's storage. A new session hands out nothing until it holds a user
    /// or assistant message (pi writes no file before that), then everything
    /// held back, the header included; an opened one hands out each new line.
    pub fn take_pending_lines(&mut self) -> Vec<String> {
        let spans = self.take_pending();
        spans.iter().map(|s| s.of(&self.text).to_owned()).collect()
    }

    /// [`Session::take_pending_lines`] as one text, each line ending in
    /// `\n`: the bytes a host appends to its file, in one piece.
    pub fn take_pending_text(&mut self) -> String {
        let mut out = String::new();
        self.take_pending_into(&mut out);
        out
    }

    /// [`Session::take_pending_text`] into `out` (emptied first), so that a
    /// host taking the lines after each append reuses one buffer.
    pub fn take_pending_into(&mut self, out: &mut String) {
        out.clear();
        if !self.hand_out() {
            return;
        }
        for span in self.pending.drain(..) {
            out.push_str(span.of(&self.text));
            out.push('\n');
        }
    }

    /// Where the lines to hand out are, taken (see [`Session::take_pending_lines`]).
    fn take_pending(&mut self) -> Vec<Span> {
        if !self.hand_out() {
            return Vec::new();
        }
        std::mem::take(&mut self.pending)
    }

    /// Whether the pending lines are the host's to take now (a new session
    /// holds them back until its first user or assistant message).
    fn hand_out(&mut self) -> bool {
        if !self.flushed {
            if !self.has_conversation {
                return false;
            }
            self.flushed = true;
        }
        true
    }

    /// The whole file, every line ending in `\n` but an unfinished last one.
    /// (A session opened from a source has [`Session::source_text`] instead.)
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        debug_assert!(self.outside.is_none(), "the text is in the source");
        if self.partial.held().is_empty() {
            std::borrow::Cow::Borrowed(&self.text)
        } else {
            std::borrow::Cow::Owned(format!(
                "{}{}",
                self.text,
                String::from_utf8_lossy(self.partial.held())
            ))
        }
    }

    /// How many lines the text has that end in `\n` (the unfinished line
    /// [`Session::open_line`] is not one). The text before a source's end
    /// is not counted: it is in the source.
    pub fn line_count(&self) -> usize {
        self.text.bytes().filter(|&b| b == b'\n').count()
    }

    /// The unfinished line the text ends with: what came after the last
    /// `\n` (bytes, which may end inside a UTF-8 character).
    pub fn open_line(&self) -> &[u8] {
        self.partial.held()
    }

    /// Whether any byte taken in, the unfinished last line included, was
    /// not UTF-8 (what the text reads as U+FFFD).
    pub fn invalid_utf8(&self) -> bool {
        self.invalid_utf8 || !crate::scan::is_utf8(self.partial.held())
    }

    /// Whether opening migrated the text (the host may want to store `text()`).
    pub fn migrated(&self) -> bool {
        self.migrated
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The JSON text of entry `i`.
    pub fn entry_json(&self, i: usize) -> &str {
        debug_assert!(self.unloaded(i).is_none(), "entry {i} is in the source");
        self.span(i).of(&self.text)
    }

    pub fn header(&self) -> Option<usize> {
        self.entries.iter().position(Entry::is_header)
    }

    pub fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    /// The entry pi's `getLeafEntry` gives, and `getBranch()` starts from:
    /// the leaf's, looked up by its id only when that id is truthy
    /// (`leafId ? byId.get(leafId) : undefined`), so a leaf whose `id` is
    /// missing, `""`, `0`, `null` or `false` has none.
    pub fn leaf_entry(&self) -> Option<usize> {
        self.leaf.filter(|&i| self.entries[i].id.truthy())
    }

    /// Where pi's `getBranch(fromId)` starts: the entry with `id`, none for
    /// a falsy `id` (`startId ? byId.get(startId) : undefined`).
    pub fn branch_start(&self, id: &Key) -> Option<usize> {
        if id.truthy() {
            self.find(id)
        } else {
            None
        }
    }

    /// How many distinct ids the entries have (pi's `getEntryCount`): a
    /// repeated id counts once.
    pub fn entry_count(&self) -> usize {
        self.by_id.len()
    }

    pub fn find(&self, id: &Key) -> Option<usize> {
        let entries = &self.entries;
        self.by_id
            .get(id, &|k| &entries[k as usize].id)
            .map(|k| k as usize)
    }

    /// The entry a walk goes to from entry `i`: the last entry with its
    /// parentId, if any.
    fn parent(&self, i: usize) -> Option<usize> {
        let group = *self.parent_group.get(i)?;
        let target = self.groups.get(group as usize)?.target;
        (target != NO_CHILD).then_some(target as usize)
    }

    /// The entries whose parent is `id`, in file order (for repeated ids, the
    /// last entry with each id, as pi's map holds them).
    pub fn children_of(&self, id: &Key) -> Vec<usize> {
        let mut out = Vec::new();
        let (entries, groups) = (&self.entries, &self.groups);
        let parent_of = |g: u32| &entries[groups[g as usize].newest as usize].parent_id;
        let mut k = self
            .children
            .get(id, &parent_of)
            .map_or(NO_CHILD, |g| groups[g as usize].newest);
        while k != NO_CHILD {
            let i = k as usize;
            if self.find(&entries[i].id) == Some(i) {
                out.push(i);
            }
            k = self.next_child[i];
        }
        out.reverse();
        out
    }

    /// The label entry labelling `id`, if any.
    pub fn label_of(&self, id: &Key) -> Option<usize> {
        self.labels.get(id).map(|&(_, l)| l)
    }

    /// From the root to `from` (`None`: the leaf), stopping at a repeated entry.
    pub fn branch_path(&self, from: Option<usize>) -> Vec<usize> {
        let mut path = crate::context::walk(from, &|i| self.parent(i));
        path.reverse();
        path
    }

    /// The context at `leaf` (the session's own leaf by default), as JSON text.
    pub fn context(&self, leaf: Option<Option<&Key>>) -> crate::context::Rendered {
        let plan = self.context_plan(leaf);
        let members = |i: usize| Cow::Owned(json::members(&self.text, self.span(i)));
        crate::context::render(&self.text, &members, &self.entries, &plan)
    }

    /// Each context entry at `leaf` (as for [`Session::context`]) with the
    /// messages it gives: pi's `buildSessionProjection`, as JSON text (see
    /// [`crate::context::projection_text`]).
    pub fn projection(&self, leaf: Option<Option<&Key>>) -> String {
        let plan = self.context_plan(leaf);
        let members = |i: usize| Cow::Owned(json::members(&self.text, self.span(i)));
        let rendered = crate::context::render_projection(
            &self.text,
            &self.all_spans(),
            &members,
            &self.entries,
            &plan,
        );
        crate::context::projection_text(&rendered)
    }

    /// The context at `leaf` (the session's own leaf by default), as entry indices.
    pub fn context_plan(&self, leaf: Option<Option<&Key>>) -> crate::context::Plan {
        // pi's methods walk `getEntries()`, which has no header.
        let last = self.entries.iter().rposition(|e| !e.is_header());
        let start = match leaf {
            // pi passes its leafId, the leaf's id as a value: `null` is no
            // leaf (an empty path), another falsy id the last entry
            None => match self.leaf.map(|i| (i, &self.entries[i].id)) {
                Some((_, Key::Null)) | None => None,
                Some((_, id)) if !id.truthy() => last,
                Some((i, _)) => Some(i),
            },
            Some(None) => None,
            // pi: a falsy leafId means the last entry.
            Some(Some(id)) if !id.truthy() => last,
            Some(Some(id)) => self.find(id).or(last),
        };
        crate::context::plan_from(&self.entries, start, &|i| self.parent(i))
    }

    /// The prompt and tools in force at `leaf` (as for [`Session::context`]):
    /// pi-ai's `getCurrentSystemMessage` over the context there, as JSON
    /// text; `None` where pi gives `undefined`.
    pub fn current_system(&self, leaf: Option<Option<&Key>>) -> Option<String> {
        let plan = self.context_plan(leaf);
        let members = |i: usize| Cow::Owned(json::members(&self.text, self.span(i)));
        crate::system::current(&self.text, &members, &plan)
    }

    /// What the session cost, its path ending at entry `leaf` (see
    /// [`crate::usage::report`]).
    pub fn usage(
        &self,
        leaf: Option<usize>,
        sort: &dyn crate::tree::SiblingSort,
    ) -> crate::usage::Report {
        crate::usage::report(&self.text, &self.entries, &self.all_spans(), leaf, sort)
    }

    /// The tree of all entries, as `getTree` builds it.
    pub fn tree(&self, sort: &dyn crate::tree::SiblingSort) -> crate::tree::Tree {
        crate::tree::build(&self.entries, sort)
    }

    /// The name from the latest `session_info` entry (trimmed; empty is
    /// none), as a JSON string literal: it may hold a lone surrogate.
    pub fn name(&self) -> Option<String> {
        let i = self.name_entry()?;
        crate::session_info::session_name(&self.text, self.span(i))
    }
}

mod branch;
#[cfg(test)]
mod mutant_tests;
mod source;
mod table;
#[cfg(test)]
mod tests;

use table::Table;
