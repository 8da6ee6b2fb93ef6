//! An open session, appended to in place, as pi's `SessionManager` keeps one.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::document::Document;
use crate::entry::{Detail, Entry, EntryType, Key, Role};
use crate::ids::{random_id, random_id_where};
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
            line.push_str(&format!(",\"{key}\":{value}"));
        }
    }
    line.push('}');
    line
}

/// `message` (a JSON object) with its `timestamp` set to `ms`, in its place,
/// written as pi's `JSON.stringify({ ...message, timestamp })` writes it:
/// `sections` is a JS object there, whose integer-like names come first.
fn restamp(message: &str, ms: f64) -> String {
    let stamp = if ms.is_finite() {
        format!("{ms}")
    } else {
        "null".to_owned()
    };
    let members = json::members(message, Span::new(0, message.len()));
    // (span of `message` to replace, its new text), in text order.
    let mut edits: Vec<(Span, String)> = Vec::new();
    if let Some(s) = json::get(message, &members, "sections") {
        if s.kind == json::Kind::Object {
            edits.push((s.value, js_key_order(message, s.value)));
        }
    }
    match json::get(message, &members, "timestamp") {
        Some(t) => edits.push((t.value, stamp)),
        None => {
            let end = message.trim_end().len() - 1;
            let comma = if members.is_empty() { "" } else { "," };
            edits.push((Span::new(end, end), format!("{comma}\"timestamp\":{stamp}")));
        }
    }
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(message.len() + 16);
    let mut at = 0;
    for (span, text) in edits {
        out.push_str(&message[at..span.start]);
        out.push_str(&text);
        at = span.end;
    }
    out.push_str(&message[at..]);
    out
}

/// The JSON object at `span` with its members in JS's own key order: names
/// that are array indices first, ascending, then the others as they come.
fn js_key_order(text: &str, span: Span) -> String {
    let members = json::members(text, span);
    let index = |m: &json::Member| {
        let name = json::as_str(m.key.of(text))?;
        let canonical = name == "0" || !name.starts_with('0');
        let n: u64 = name.parse().ok().filter(|_| canonical)?;
        (name.bytes().all(|b| b.is_ascii_digit()) && n < u64::from(u32::MAX)).then_some(n)
    };
    let mut order: Vec<(Option<u64>, usize)> = members
        .iter()
        .enumerate()
        .map(|(k, m)| (index(m), k))
        .collect();
    // Stable: indices ascending, then the rest in place.
    order.sort_by_key(|&(n, k)| (n.is_none(), n.unwrap_or(0), k));
    let mut out = String::from("{");
    for (j, (_, k)) in order.into_iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        let m = &members[k];
        out.push_str(m.key.of(text));
        out.push(':');
        out.push_str(m.value.of(text));
    }
    out.push('}');
    out
}

/// An open session, indexed once, appended to in place.
///
/// It behaves as pi's `SessionManager` (an in-memory one: the host stores the
/// bytes). The text is kept as it is, every line with `\n`; entries are the
/// lines that parse, and the indexes answer `getEntry`, `getChildren`, labels
/// and context walks without rescanning the file.
pub struct Session {
    text: String,
    entries: Vec<Entry>,
    spans: Vec<Span>,
    /// id → the last entry with it (headers are not in it).
    by_id: HashMap<Key, usize>,
    /// `parent[i]`: the entry a walk goes to from `i`, kept resolved as
    /// entries arrive, so walks need no lookups.
    parent: Vec<Option<usize>>,
    /// parentId → entries with that parentId, in file order.
    children: HashMap<Key, Vec<usize>>,
    /// targetId → (order of first setting, label entry), as pi's label `Map` keeps them.
    labels: HashMap<Key, (u64, usize)>,
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
    partial: Vec<u8>,
    migrated: bool,
    unique: u32,
}

impl Session {
    /// Opens a session: parses, migrates in memory, indexes. A last line
    /// without a newline that is not valid JSON is taken to be still being
    /// written: it waits for [`Session::append_jsonl`] to complete it.
    pub fn open(mut text: String, dates: &dyn DateParser) -> Result<Session, SessionError> {
        let cut = text.rfind('\n').map_or(0, |p| p + 1);
        let unfinished =
            cut < text.len() && json::parse(&text, Span::new(cut, text.len())).is_err();
        let partial = if unfinished {
            text.split_off(cut).into_bytes()
        } else {
            Vec::new()
        };
        let doc = Document::parse_with(text, dates);
        let edits = doc.try_migration(&mut random_id)?;
        let migrated = edits.is_some();
        let doc = match edits {
            Some(edits) if !edits.is_empty() => {
                Document::parse_with(migrate::apply_to_text(&doc.text, &doc.lines, &edits), dates)
            }
            _ => doc,
        };
        // The session keeps entries and spans; the lines can go before it grows.
        drop(doc.lines);
        let mut text = doc.text;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let mut session = Session::empty(text);
        session.migrated = migrated;
        session.partial = partial;
        // The host has the file already: every new line is its to store at once.
        session.flushed = true;
        for (entry, span) in doc.entries.into_iter().zip(doc.spans) {
            session.add(entry, span);
        }
        session.unique = 1 << 30;
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
            by_id: HashMap::new(),
            parent: Vec::new(),
            children: HashMap::new(),
            labels: HashMap::new(),
            label_seq: 0,
            leaf: None,
            pending: Vec::new(),
            has_conversation: false,
            flushed: false,
            partial: Vec::new(),
            migrated: false,
            unique: 0,
        }
    }

    /// Indexes entry `entry` found at `span` of the text.
    fn add(&mut self, entry: Entry, span: Span) {
        let i = self.entries.len();
        self.parent.push(None);
        if !entry.is_header() {
            self.by_id.insert(entry.id.clone(), i);
            self.children
                .entry(entry.parent_id.clone())
                .or_default()
                .push(i);
            if entry.parent_id.truthy() {
                self.parent[i] = self.by_id.get(&entry.parent_id).copied();
            }
            // Entries that name this id as parent now find this entry.
            if entry.id.truthy() {
                if let Some(kids) = self.children.get(&entry.id) {
                    for &k in kids {
                        self.parent[k] = Some(i);
                    }
                }
            }
            self.leaf = Some(i);
            if let (
                EntryType::Label,
                Detail::Label {
                    target_id,
                    has_label,
                },
            ) = (entry.kind, &entry.detail)
            {
                if *has_label {
                    let seq = self.label_seq;
                    let slot = self.labels.entry(target_id.clone()).or_insert((seq, i));
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
        self.entries.push(entry);
        self.spans.push(span);
    }

    /// Appends one line of JSON to the text and indexes it if it parses.
    fn push_line(&mut self, line: &str, dates: &dyn DateParser, own: bool) -> Option<usize> {
        let start = self.text.len();
        self.text.push_str(line);
        let end = self.text.len();
        self.text.push('\n');
        let span = Span::new(start, end);
        if own {
            self.pending.push(span);
        }
        // A falsy line (`null`, `0`, ...) stays in the text but is no entry, as
        // when the same text is opened.
        let value = json::parse(&self.text, span)
            .ok()
            .filter(|v| parse::is_kept(&self.text, v))?;
        let entry = Entry::from_json(&self.text, &value, Some(dates), &mut self.unique);
        self.add(entry, value.span);
        Some(self.entries.len() - 1)
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
            self.by_id.contains_key(&Key::Str(id.into()))
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
        let mut line = String::with_capacity(64 + now.len());
        line.push_str("{\"type\":");
        line.push_str(&json::stringify(kind));
        let field = |line: &mut String, k: &str, v: Json| {
            if let Some(v) = v {
                line.push(',');
                line.push_str(&json::stringify(k));
                line.push(':');
                line.push_str(v);
            }
        };
        for (k, v) in head {
            field(&mut line, k, *v);
        }
        field(&mut line, "id", Some(&json::stringify(id)));
        let parent_json = self
            .leaf
            .map_or_else(|| "null".to_owned(), |p| self.id_json(p));
        field(&mut line, "parentId", Some(&parent_json));
        field(&mut line, "timestamp", Some(&json::stringify(now)));
        for (k, v) in tail {
            field(&mut line, k, *v);
        }
        line.push('}');
        self.push_line(&line, dates, true);
    }

    /// Entry `i`'s id as JSON text, exactly as its line has it.
    fn id_json(&self, i: usize) -> String {
        let fields = json::members(&self.text, self.spans[i]);
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
            restamp(&sys, ms)
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
                folded.push(' ');
            }
            in_run = newline;
        }
        let name = json::stringify(folded.trim_matches(crate::scan::is_js_space));
        self.append("session_info", &[], &[("name", Some(&name))], now, dates)
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
        let Some(&target) = self.by_id.get(target_id) else {
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
        match self.by_id.get(id) {
            Some(&i) => {
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
        match (self.entries[i].kind, &self.entries[i].detail) {
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
        self.partial.extend_from_slice(chunk);
        let Some(last_newline) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let complete: Vec<u8> = self.partial.drain(..=last_newline).collect();
        let complete = parse::decode(&complete);
        for line in complete.split_terminator('\n') {
            // The same rule as for whole files: blank lines and what JSON.parse
            // rejects are kept in the text but are no entries.
            if line.trim_matches(crate::scan::is_js_space).is_empty() {
                self.text.push_str(line);
                self.text.push('\n');
                continue;
            }
            self.push_line(line, dates, false);
        }
    }

    /// The lines appended since the last call, ready to be appended to the
    /// host's storage. A new session hands out nothing until it holds a user
    /// or assistant message (pi writes no file before that), then everything
    /// held back, the header included; an opened one hands out each new line.
    pub fn take_pending_lines(&mut self) -> Vec<String> {
        if !self.flushed {
            if !self.has_conversation {
                return Vec::new();
            }
            self.flushed = true;
        }
        self.pending
            .drain(..)
            .map(|s| s.of(&self.text).to_owned())
            .collect()
    }

    /// The whole file, every line ending in `\n` but an unfinished last one.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        if self.partial.is_empty() {
            std::borrow::Cow::Borrowed(&self.text)
        } else {
            std::borrow::Cow::Owned(format!(
                "{}{}",
                self.text,
                String::from_utf8_lossy(&self.partial)
            ))
        }
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
        self.spans[i].of(&self.text)
    }

    pub fn header(&self) -> Option<usize> {
        self.entries.iter().position(Entry::is_header)
    }

    pub fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    /// How many distinct ids the entries have (pi's `getEntryCount`): a
    /// repeated id counts once.
    pub fn entry_count(&self) -> usize {
        self.by_id.len()
    }

    pub fn find(&self, id: &Key) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The entries whose parent is `id`, in file order (for repeated ids, the
    /// last entry with each id, as pi's map holds them).
    pub fn children_of(&self, id: &Key) -> Vec<usize> {
        let winners = |&&i: &&usize| self.by_id.get(&self.entries[i].id) == Some(&i);
        self.children
            .get(id)
            .map_or_else(Vec::new, |c| c.iter().filter(winners).copied().collect())
    }

    /// The label entry labelling `id`, if any.
    pub fn label_of(&self, id: &Key) -> Option<usize> {
        self.labels.get(id).map(|&(_, l)| l)
    }

    /// From the root to `from` (`None`: the leaf), stopping at a repeated entry.
    pub fn branch_path(&self, from: Option<usize>) -> Vec<usize> {
        let mut path = crate::context::walk(from, &|i| self.parent[i]);
        path.reverse();
        path
    }

    /// The context at `leaf` (the session's own leaf by default), as JSON text.
    pub fn context(&self, leaf: Option<Option<&Key>>) -> crate::context::Rendered {
        let plan = self.context_plan(leaf);
        let members = |i: usize| Cow::Owned(json::members(&self.text, self.spans[i]));
        crate::context::render(&self.text, &members, &self.entries, &plan)
    }

    /// The context at `leaf` (the session's own leaf by default), as entry indices.
    pub fn context_plan(&self, leaf: Option<Option<&Key>>) -> crate::context::Plan {
        // pi's methods walk `getEntries()`, which has no header.
        let last = self.entries.iter().rposition(|e| !e.is_header());
        let start = match leaf {
            None => self.leaf,
            Some(None) => None,
            // pi: a falsy leafId means the last entry.
            Some(Some(id)) if !id.truthy() => last,
            Some(Some(id)) => self.find(id).or(last),
        };
        crate::context::plan_from(&self.entries, start, &|i| self.parent[i])
    }

    /// The prompt and tools in force at `leaf` (as for [`Session::context`]):
    /// pi-ai's `getCurrentSystemMessage` over the context there, as JSON
    /// text; `None` where pi gives `undefined`.
    pub fn current_system(&self, leaf: Option<Option<&Key>>) -> Option<String> {
        let plan = self.context_plan(leaf);
        let members = |i: usize| Cow::Owned(json::members(&self.text, self.spans[i]));
        crate::system::current(&self.text, &members, &plan)
    }

    /// The tree of all entries, as `getTree` builds it.
    pub fn tree(&self, sort: &dyn crate::tree::SiblingSort) -> crate::tree::Tree {
        crate::tree::build(&self.entries, sort)
    }

    /// The name from the latest `session_info` entry (trimmed; empty is none).
    pub fn name(&self) -> Option<String> {
        let i = self
            .entries
            .iter()
            .rposition(|e| e.kind == EntryType::SessionInfo)?;
        crate::entry::session_name(&self.text, self.spans[i])
    }

    /// The labels to carry into an extracted branch: (target, label entry), in
    /// the order pi's label map iterates.
    fn labels_in_order(&self) -> Vec<(&Key, usize)> {
        let mut v: Vec<(&Key, u64, usize)> = self
            .labels
            .iter()
            .map(|(k, &(seq, l))| (k, seq, l))
            .collect();
        v.sort_by_key(|&(_, seq, _)| seq);
        v.into_iter().map(|(k, _, l)| (k, l)).collect()
    }

    /// A new session holding only the path from the root to `leaf`, as pi's
    /// `createBranchedSession` builds it. `header` is the new header's JSON text.
    ///
    /// Label entries are left out and the rest chained one after the other
    /// (each entry's parent is the previous one kept), so no entry is orphaned;
    /// a compaction whose `firstKeptEntryId` named a label left out names the
    /// next entry kept instead. The labels on the path come last, as new
    /// label entries.
    pub fn branched_jsonl(&self, leaf: &Key, header: &str) -> Result<String, SessionError> {
        // pi walks from a truthy id only: an empty one gives an empty path.
        let start = self
            .find(leaf)
            .filter(|_| leaf.truthy())
            .ok_or_else(|| SessionError::NotFound(leaf.to_string()))?;
        let full = self.branch_path(Some(start));
        let mut out = String::with_capacity(header.len() + 1);
        out.push_str(header);
        out.push('\n');
        // Label id → the id (JSON text, None: none) of the entry kept after it.
        let mut replaced: HashMap<&Key, Option<String>> = HashMap::new();
        let mut waiting: Vec<&Key> = Vec::new();
        let mut previous: Option<String> = Some("null".to_owned());
        let mut path = Vec::with_capacity(full.len());
        for &i in &full {
            let entry = &self.entries[i];
            if entry.kind == EntryType::Label {
                waiting.push(&entry.id);
                continue;
            }
            let id = self.id_of_entry(i);
            for label in waiting.drain(..) {
                replaced.insert(label, id.clone());
            }
            let mut fields = vec![("parentId", previous.clone())];
            if let Detail::Compaction {
                first_kept_entry_id: kept,
                ..
            } = &entry.detail
            {
                if *kept != entry.id {
                    if let Some(next) = replaced.get(kept) {
                        fields.push(("firstKeptEntryId", next.clone()));
                    }
                }
            }
            if entry.is_object {
                out.push_str(&self.with_fields(i, &fields));
            } else {
                out.push_str(self.entry_json(i));
            }
            out.push('\n');
            previous = id;
            path.push(i);
        }
        let on_path: HashSet<&Key> = path.iter().map(|&i| &self.entries[i].id).collect();
        let mut taken: HashSet<String> = path
            .iter()
            .filter_map(|&i| self.entries[i].id.as_str().map(str::to_owned))
            .collect();
        // pi: `last?.id || null`, so an empty id gives a root too.
        let mut parent = path
            .last()
            .and_then(|&i| self.entries[i].id.as_str().map(str::to_owned))
            .filter(|id| !id.is_empty());
        for (target, l) in self.labels_in_order() {
            if !on_path.contains(target) {
                continue;
            }
            let id = random_id(&taken)?;
            taken.insert(id.clone());
            let fields = json::members(&self.text, self.spans[l]);
            let raw =
                |name: &str| json::get(&self.text, &fields, name).map(|m| m.value.of(&self.text));
            let mut line = format!("{{\"type\":\"label\",\"id\":{}", json::stringify(&id));
            line.push_str(&format!(
                ",\"parentId\":{}",
                parent.as_deref().map_or("null".into(), json::stringify)
            ));
            for name in ["timestamp", "targetId", "label"] {
                if let Some(v) = raw(name) {
                    line.push_str(&format!(",{}:{v}", json::stringify(name)));
                }
            }
            line.push('}');
            out.push_str(&line);
            out.push('\n');
            parent = Some(id);
        }
        Ok(out)
    }

    /// Entry `i`'s id as JSON text, or `None` when it has none (JS's undefined).
    fn id_of_entry(&self, i: usize) -> Option<String> {
        let fields = json::members(&self.text, self.spans[i]);
        json::get(&self.text, &fields, "id").map(|m| m.value.of(&self.text).to_owned())
    }

    /// Entry `i`'s JSON text with `fields` set (JSON text; `None` drops the
    /// key), as `{ ...entry, name: value }` then `JSON.stringify` give it:
    /// a key keeps its place, a new one goes last.
    fn with_fields(&self, i: usize, fields: &[(&str, Option<String>)]) -> String {
        let text = &self.text;
        let members = json::members(text, self.spans[i]);
        let mut out = String::with_capacity(self.spans[i].len() + 16);
        out.push('{');
        let put = |out: &mut String, key: &str, value: &str| {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(key);
            out.push(':');
            out.push_str(value);
        };
        let mut done = vec![false; fields.len()];
        for m in &members {
            match fields
                .iter()
                .position(|(name, _)| json::key_is(text, m.key, name))
            {
                // Every duplicate of the key gets the value: JSON.parse keeps
                // the first one's place and the last one's value.
                Some(f) => {
                    done[f] = true;
                    if let Some(v) = &fields[f].1 {
                        put(&mut out, m.key.of(text), v);
                    }
                }
                None => put(&mut out, m.key.of(text), m.value.of(text)),
            }
        }
        for ((name, value), done) in fields.iter().zip(done) {
            if let (Some(v), false) = (value, done) {
                put(&mut out, &json::stringify(name), v);
            }
        }
        out.push('}');
        out
    }

    /// All entries but headers, under a new header (pi's `forkFrom`).
    pub fn forked_jsonl(&self, header: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + header.len());
        out.push_str(header);
        out.push('\n');
        for (i, e) in self.entries.iter().enumerate() {
            if !e.is_header() {
                out.push_str(self.entry_json(i));
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::IsoOnly;

    const NOW: &str = "2025-01-01T00:00:00.000Z";

    fn k(id: &str) -> Key {
        Key::Str(id.into())
    }

    fn user(s: &mut Session, text: &str) -> String {
        s.append_message(
            Some(&format!("{{\"role\":\"user\",\"content\":\"{text}\"}}")),
            NOW,
            &IsoOnly,
        )
        .unwrap()
    }

    #[test]
    fn appends_branches_and_hands_out_lines() {
        let mut s = Session::create(
            r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
            &IsoOnly,
        );
        let a = user(&mut s, "a");
        assert_eq!(
            s.take_pending_lines().len(),
            2,
            "the header and the user message"
        );
        let b = s
            .append_message(
                Some(r#"{"role":"assistant","provider":"p","model":"m"}"#),
                NOW,
                &IsoOnly,
            )
            .unwrap();
        let (a_key, b_key) = (k(&a), k(&b));
        assert_eq!(s.take_pending_lines().len(), 1);
        s.branch(&a_key).unwrap();
        let c = user(&mut s, "c");
        assert_eq!(s.children_of(&a_key).len(), 2);
        assert_eq!(s.branch_path(s.leaf()).len(), 2);
        assert_eq!(
            s.take_pending_lines(),
            [format!(
                r#"{{"type":"message","id":"{c}","parentId":"{a}","timestamp":"{NOW}","message":{{"role":"user","content":"c"}}}}"#
            )]
        );
        assert_eq!(
            s.branch(&Key::Str("zz".into())),
            Err(SessionError::NotFound("zz".into()))
        );
        let ctx = s.context(Some(Some(&b_key)));
        assert!(
            ctx.json
                .ends_with(r#""model":{"provider":"p","modelId":"m"}}"#),
            "{}",
            ctx.json
        );
    }

    #[test]
    fn labels_keep_pi_map_order_and_branch_copies_carry_them() {
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n";
        let mut s = Session::open(text.into(), &IsoOnly).unwrap();
        s.append_label_change(&k("a"), Some("\"x\""), NOW, &IsoOnly)
            .unwrap();
        assert_eq!(
            s.label_of(&k("a"))
                .map(|l| s.entry_json(l).contains("\"x\"")),
            Some(true)
        );
        let copy = s.branched_jsonl(&k("a"), "{\"type\":\"session\"}").unwrap();
        let lines: Vec<&str> = copy.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[2].starts_with("{\"type\":\"label\",\"id\":\"")
                && lines[2].contains("\"parentId\":\"a\",\"timestamp\":"),
            "{}",
            lines[2]
        );
        s.append_label_change(&k("a"), None, NOW, &IsoOnly).unwrap();
        assert_eq!(s.label_of(&k("a")), None);
    }

    #[test]
    fn tailing_handles_partial_lines_and_characters() {
        let mut s = Session::open(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".into(),
            &IsoOnly,
        )
        .unwrap();
        let line = "{\"type\":\"message\",\"id\":\"é\",\"parentId\":null}\n".as_bytes();
        let cut = line.iter().position(|&b| b == 0xc3).unwrap() + 1;
        s.append_jsonl(&line[..cut], &IsoOnly);
        assert_eq!(s.leaf(), None);
        s.append_jsonl(&line[cut..], &IsoOnly);
        assert_eq!(s.find(&k("é")), Some(1));
    }

    #[test]
    fn tailing_skips_falsy_lines_as_opening_does() {
        let header = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";
        let entry = "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n";
        let mut tailed = Session::open(header.into(), &IsoOnly).unwrap();
        tailed.append_jsonl(entry.as_bytes(), &IsoOnly);
        tailed.append_jsonl(b"null\n0\n", &IsoOnly);
        let opened = Session::open(format!("{header}{entry}null\n0\n"), &IsoOnly).unwrap();
        assert_eq!(tailed.entries().len(), opened.entries().len());
        assert_eq!(tailed.leaf(), tailed.find(&k("a")));
        assert_eq!(tailed.text(), opened.text());
    }

    fn session() -> Session {
        Session::create(
            r#"{"type":"session","version":3,"id":"s","cwd":"/"}"#,
            &IsoOnly,
        )
    }

    fn line(s: &Session, id: &str) -> String {
        s.entry_json(s.find(&k(id)).unwrap()).to_owned()
    }

    #[test]
    fn a_user_message_releases_the_held_lines() {
        let mut s = session();
        s.append_model_change(Some("\"p\""), Some("\"m\""), NOW, &IsoOnly)
            .unwrap();
        assert!(s.take_pending_lines().is_empty());
        user(&mut s, "a");
        assert_eq!(s.take_pending_lines().len(), 3);
        s.append_thinking_level_change(Some("\"low\""), NOW, &IsoOnly)
            .unwrap();
        assert_eq!(s.take_pending_lines().len(), 1);
    }

    #[test]
    fn session_names_fold_line_breaks() {
        let mut s = session();
        let id = s
            .append_session_info("  a\r\nb\n\nc\rd \n", NOW, &IsoOnly)
            .unwrap();
        assert!(line(&s, &id).ends_with(r#""name":"a b c d"}"#));
        let id = s.append_session_info("x \n\ty", NOW, &IsoOnly).unwrap();
        assert!(line(&s, &id).ends_with(r#""name":"x  \ty"}"#));
    }

    #[test]
    fn a_compaction_without_a_kept_entry_names_itself() {
        let mut s = session();
        let a = user(&mut s, "a");
        let c = s
            .append_compaction(
                Some("\"s\""),
                None,
                Some("1"),
                None,
                None,
                Some("{}"),
                NOW,
                &IsoOnly,
            )
            .unwrap();
        assert_eq!(
            line(&s, &c),
            format!(
                r#"{{"type":"compaction","id":"{c}","parentId":"{a}","timestamp":"{NOW}","summary":"s","firstKeptEntryId":"{c}","tokensBefore":1,"usage":{{}}}}"#
            )
        );
        let c = s
            .append_compaction(
                Some("\"s\""),
                Some(Some("\"\"")),
                None,
                None,
                Some("true"),
                None,
                NOW,
                &IsoOnly,
            )
            .unwrap();
        assert!(line(&s, &c).ends_with(r#""firstKeptEntryId":"","fromHook":true}"#));
    }

    #[test]
    fn compactions_checkpoint_the_prompt_at_the_leaf() {
        let mut s = session();
        let sys = |s: &mut Session, m: &str| s.append_message(Some(m), NOW, &IsoOnly).unwrap();
        sys(
            &mut s,
            r#"{"role":"system","content":"base","sections":{"a":"1","b":"2"},"toolsAdded":[{"name":"read"}],"timestamp":5}"#,
        );
        let u = user(&mut s, "q");
        let c1 = s
            .append_compaction(
                Some("\"s\""),
                Some(Some(&format!("\"{u}\""))),
                None,
                None,
                None,
                None,
                NOW,
                &IsoOnly,
            )
            .unwrap();
        // 2025-01-01T00:00:00.000Z in milliseconds replaces the replayed timestamp.
        assert!(line(&s, &c1).ends_with(
            r#""systemMessage":{"role":"system","content":"base","sections":{"a":"1","b":"2"},"toolsAdded":[{"name":"read"}],"timestamp":1735689600000}}"#
        ), "{}", line(&s, &c1));
        sys(
            &mut s,
            r#"{"role":"system","content":[{"type":"text","text":"more"}],"sections":{"a":null},"toolsRemoved":[{"name":"read"}]}"#,
        );
        let c2 = s
            .append_compaction(Some("\"t\""), None, None, None, None, None, NOW, &IsoOnly)
            .unwrap();
        // Chained: the first checkpoint, then the new message; the prompt grows, sections patch.
        assert!(line(&s, &c2).ends_with(
            r#""systemMessage":{"role":"system","content":"base\n\nmore","sections":{"b":"2"},"timestamp":1735689600000}}"#
        ), "{}", line(&s, &c2));
        let mut bare = session();
        user(&mut bare, "q");
        let c = bare
            .append_compaction(None, None, None, None, None, None, NOW, &IsoOnly)
            .unwrap();
        assert!(
            !line(&bare, &c).contains("systemMessage"),
            "no system state, no checkpoint"
        );
        assert_eq!(
            restamp(r#"{"role":"system"}"#, 7.0),
            r#"{"role":"system","timestamp":7}"#
        );
    }

    #[test]
    fn branch_summaries_name_the_leaf_they_leave() {
        let mut s = session();
        let a = user(&mut s, "a");
        let b = user(&mut s, "b");
        let x = s
            .branch_with_summary(Some(&k(&a)), Some("\"s\""), None, None, None, NOW, &IsoOnly)
            .unwrap();
        assert!(line(&s, &x).contains(&format!(
            r#""parentId":"{a}","timestamp":"{NOW}","fromId":"{b}""#
        )));
        s.reset_leaf();
        let y = s
            .branch_with_summary(None, Some("\"s\""), None, None, None, NOW, &IsoOnly)
            .unwrap();
        assert!(line(&s, &y).contains(r#""fromId":"root""#));
        assert_eq!(
            s.branch_with_summary(Some(&k("zz")), None, None, None, None, NOW, &IsoOnly),
            Err(SessionError::NotFound("zz".into()))
        );
        assert_eq!(s.leaf(), s.find(&k(&y)), "a refused call moves nothing");
    }

    #[test]
    fn context_edits_are_checked_in_pi_order() {
        let text = concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
            "{\"type\":\"message\",\"id\":\"u\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"q\"}}\n",
            "{\"type\":\"message\",\"id\":\"a\",\"parentId\":\"u\",\"message\":{\"role\":\"assistant\",\"content\":[]}}\n",
            "{\"type\":\"message\",\"id\":\"s1\",\"parentId\":\"a\",\"message\":{\"role\":\"system\",\"content\":\"p\"}}\n",
            "{\"type\":\"message\",\"id\":\"off\",\"parentId\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"q\"}}\n",
        );
        let mut s = Session::open(text.into(), &IsoOnly).unwrap();
        s.branch(&k("s1")).unwrap();
        let edit = |s: &mut Session, id: &str, r: &str, text: Option<&str>| {
            s.append_context_edit(&k(id), Some(r), text, NOW, &IsoOnly)
        };
        assert_eq!(
            edit(&mut s, "zz", "null", None),
            Err(SessionError::NotFound("zz".into()))
        );
        assert_eq!(
            edit(&mut s, "off", "null", None),
            Err(SessionError::NotOnBranch("off".into()))
        );
        assert_eq!(
            edit(&mut s, "s1", "null", None),
            Err(SessionError::NotEditable("s1".into()))
        );
        let id = edit(&mut s, "a", r#"{"content":"x"}"#, Some("\"x\"")).unwrap();
        assert!(line(&s, &id).ends_with(
            r#""targetId":"a","replacement":{"content":[{"type":"text","text":"x"}]}}"#
        ));
        let id = edit(&mut s, "u", r#"{"content":"x","more":1}"#, Some("\"x\"")).unwrap();
        assert!(
            line(&s, &id).ends_with(r#""targetId":"u","replacement":{"content":"x","more":1}}"#)
        );
        assert_eq!(
            edit(&mut s, &id, "null", None),
            Err(SessionError::NotEditable(id.clone()))
        );
    }

    #[test]
    fn branched_sessions_chain_around_labels_and_remap_kept_ids() {
        // u0, L1, a0, L2, L3, C(firstKeptEntryId = L2), u1.
        let text = concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
            "{\"type\":\"message\",\"id\":\"u0\",\"parentId\":null,\"message\":{}}\n",
            "{\"type\":\"label\",\"id\":\"L1\",\"parentId\":\"u0\",\"targetId\":\"u0\",\"label\":\"first\"}\n",
            "{\"type\":\"message\",\"id\":\"a0\",\"parentId\":\"L1\",\"message\":{}}\n",
            "{\"type\":\"label\",\"id\":\"L2\",\"parentId\":\"a0\",\"targetId\":\"a0\",\"label\":\"second\"}\n",
            "{\"type\":\"label\",\"id\":\"L3\",\"parentId\":\"L2\",\"targetId\":\"u0\"}\n",
            "{\"type\":\"compaction\",\"id\":\"C\",\"parentId\":\"L3\",\"summary\":\"s\",\"firstKeptEntryId\":\"L2\",\"tokensBefore\":1}\n",
            "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":\"C\",\"parentId\":\"C\",\"message\":{}}\n",
        );
        let s = Session::open(text.into(), &IsoOnly).unwrap();
        let out = s.branched_jsonl(&k("u1"), "{}").unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            r#"{"type":"message","id":"u0","parentId":null,"message":{}}"#
        );
        assert_eq!(
            lines[2],
            r#"{"type":"message","id":"a0","parentId":"u0","message":{}}"#
        );
        assert_eq!(
            lines[3],
            r#"{"type":"compaction","id":"C","parentId":"a0","summary":"s","firstKeptEntryId":"C","tokensBefore":1}"#
        );
        assert_eq!(
            lines[4],
            r#"{"type":"message","id":"u1","parentId":"C","parentId":"C","message":{}}"#
        );
        assert!(lines[5].contains(r#""parentId":"u1","targetId":"a0","label":"second""#));
        assert_eq!(lines.len(), 6);
        assert_eq!(
            s.branched_jsonl(&k(""), "{}"),
            Err(SessionError::NotFound(String::new()))
        );
    }

    #[test]
    fn header_lines_leave_out_what_has_no_json() {
        assert_eq!(
            header_line("a\"b", NOW, Some("\"/w\""), None),
            r#"{"type":"session","version":3,"id":"a\"b","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#
        );
        assert_eq!(
            header_line("s", NOW, None, Some("\"/p.jsonl\"")),
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","parentSession":"/p.jsonl"}"#
        );
    }
}
