//! The crate's API for Rust programs: a session opened from text, bytes, a
//! path or a reader, read through typed views, and appended to.
//!
//! Everything here delegates to the core modules below (`session`, `context`,
//! `usage`, `diagnostics`, `session_info`); it only chooses the native hosts
//! (ISO dates, insertion sort) and turns indices and JSON text into views.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::diagnostics::{self, Diagnostic};
use crate::document::Document;
use crate::entry::Key;
use crate::json::{self, JsString, Kind, Member, Span};
use crate::session::{Session, SessionError};
use crate::session_info;
use crate::time::IsoOnly;
use crate::tree::NativeSort;
use crate::usage::Report;

/// The size cap of [`SessionFile::open`] and [`SessionFile::from_reader`]
/// when no other is given: 512 MiB, about what a JS engine can hold as one string.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// Options for opening a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    /// Refuse inputs longer than this many bytes ([`Error::TooLarge`]).
    pub max_bytes: u64,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// What can go wrong opening or reading a session. Each error names its file
/// (when there is one) and, where it applies, the entry.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    Io {
        /// The file, when the input was a path.
        path: Option<PathBuf>,
        /// What the system said.
        source: std::io::Error,
    },
    /// The input is longer than [`OpenOptions::max_bytes`].
    TooLarge {
        /// The file, when the input was a path.
        path: Option<PathBuf>,
        /// The cap that was passed.
        max_bytes: u64,
    },
    /// No entry has this id.
    UnknownId(String),
    /// A value to append is not the JSON it must be (a message is an object).
    InvalidJson(String),
    /// The session could not be opened (a v1/v2 file whose migration needed a random id failed).
    Session(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |p: &Option<PathBuf>| match p {
            Some(p) => format!("{}: ", p.display()),
            None => String::new(),
        };
        match self {
            Error::Io { path, source } => write!(f, "{}{source}", at(path)),
            Error::TooLarge { path, max_bytes } => {
                write!(
                    f,
                    "{}the session is larger than the {max_bytes}-byte cap",
                    at(path)
                )
            }
            Error::UnknownId(id) => write!(f, "Entry {id} not found"),
            Error::InvalidJson(why) => f.write_str(why),
            Error::Session(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn session_error(e: SessionError) -> Error {
    Error::Session(e.to_string())
}

/// An open pi session: its lines parsed, v1/v2 migrated to v3 in memory, its
/// entries indexed. Reading never changes the file; [`SessionFile::append_bytes`]
/// takes more of it as it grows.
///
/// ```
/// use session_tree::SessionFile;
///
/// let text = concat!(
///     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
///     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#, "\n",
/// );
/// let session = SessionFile::from_str(text)?;
/// let leaf = session.leaf().unwrap();
/// assert_eq!(leaf.id().as_deref(), Some("a1"));
/// assert_eq!(leaf.message().unwrap().text(), "Hi");
/// # Ok::<(), session_tree::Error>(())
/// ```
pub struct SessionFile {
    session: Session,
}

impl fmt::Debug for SessionFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionFile")
            .field("entries", &self.session.entries().len())
            .field("migrated", &self.session.migrated())
            .finish()
    }
}

impl SessionFile {
    /// Opens the JSONL text of a session.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<SessionFile, Error> {
        Ok(SessionFile {
            session: Session::open(text.to_owned(), &IsoOnly).map_err(session_error)?,
        })
    }

    /// Opens a session's bytes. Invalid UTF-8 is replaced as `TextDecoder`
    /// does (pi reads files so), and [`SessionFile::diagnostics`] reports it.
    pub fn from_bytes(bytes: &[u8]) -> Result<SessionFile, Error> {
        Self::from_vec(bytes.to_vec())
    }

    /// [`SessionFile::from_bytes`] of bytes already owned. An unfinished last
    /// line stays bytes: a read that stopped inside a character is completed
    /// by the rest [`SessionFile::append_bytes`] brings.
    fn from_vec(bytes: Vec<u8>) -> Result<SessionFile, Error> {
        Ok(SessionFile {
            session: Session::open_bytes(bytes, &IsoOnly).map_err(session_error)?,
        })
    }

    /// Reads a session file, refusing one over [`DEFAULT_MAX_BYTES`].
    pub fn open(path: impl AsRef<Path>) -> Result<SessionFile, Error> {
        Self::open_with(path, &OpenOptions::default())
    }

    /// Reads a session file with `options`.
    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<SessionFile, Error> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: Some(path.to_owned()),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let bytes = read_capped(file, options.max_bytes).map_err(|e| match e {
            Capped::Io(source) => io(source),
            Capped::TooLarge => Error::TooLarge {
                path: Some(path.to_owned()),
                max_bytes: options.max_bytes,
            },
        })?;
        Self::from_vec(bytes)
    }

    /// Reads a session from any reader (a socket, a decompressor) with `options`.
    pub fn from_reader(reader: impl Read, options: &OpenOptions) -> Result<SessionFile, Error> {
        let bytes = read_capped(reader, options.max_bytes).map_err(|e| match e {
            Capped::Io(source) => Error::Io { path: None, source },
            Capped::TooLarge => Error::TooLarge {
                path: None,
                max_bytes: options.max_bytes,
            },
        })?;
        Self::from_vec(bytes)
    }

    /// Every entry in file order, the header first when there is one.
    pub fn entries(&self) -> impl Iterator<Item = EntryView<'_>> + '_ {
        (0..self.session.entries().len()).map(move |i| self.view(i))
    }

    /// The number of entries (lines that parsed), the header included.
    pub fn len(&self) -> usize {
        self.session.entries().len()
    }

    /// Whether the session has no entries at all (not even a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The session header (`type: "session"`), if the file has one.
    pub fn header(&self) -> Option<EntryView<'_>> {
        self.session.header().map(|i| self.view(i))
    }

    /// The entry with this id (the last one, if several share it).
    pub fn entry(&self, id: &str) -> Option<EntryView<'_>> {
        self.session.find(&Key::from(id)).map(|i| self.view(i))
    }

    /// The current leaf: where pi would continue the conversation.
    pub fn leaf(&self) -> Option<EntryView<'_>> {
        self.session.leaf().map(|i| self.view(i))
    }

    /// The branch from the root to `leaf` (the current leaf when `None`), root first.
    pub fn branch(&self, leaf: Option<&str>) -> Result<Vec<EntryView<'_>>, Error> {
        let from = self.leaf_index(leaf)?;
        Ok(self
            .session
            .branch_path(from)
            .into_iter()
            .map(|i| self.view(i))
            .collect())
    }

    /// The tree of all entries, as pi's `getTree` builds it: roots and each
    /// entry's children in pi's order, a `parentId` cycle cut at one entry.
    #[doc(alias = "getTree")]
    pub fn tree(&self) -> Tree<'_> {
        Tree {
            file: self,
            tree: self.session.tree(&NativeSort),
        }
    }

    /// What the model sees at `leaf` (the current leaf when `None`): pi's
    /// `buildSessionContext`.
    ///
    /// ```
    /// # use session_tree::SessionFile;
    /// let text = concat!(
    ///     r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
    ///     r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#, "\n",
    /// );
    /// let session = SessionFile::from_str(text)?;
    /// let at_leaf = session.context(None)?;
    /// assert_eq!(at_leaf.messages()[0].text(), "Hi");
    /// assert_eq!(at_leaf, session.context(Some("u"))?);
    /// # Ok::<(), session_tree::Error>(())
    /// ```
    #[doc(alias = "buildSessionContext")]
    pub fn context(&self, leaf: Option<&str>) -> Result<Context, Error> {
        let key = leaf.map(Key::from);
        if let Some(k) = &key {
            self.session
                .find(k)
                .ok_or_else(|| Error::UnknownId(k.to_string()))?;
        }
        let rendered = self.session.context(key.as_ref().map(Some));
        Ok(Context {
            json: rendered.json,
        })
    }

    /// The entries the context at `leaf` is made of (the current leaf when
    /// `None`), compaction-aware: pi's `buildContextEntries`, the
    /// `sourceEntry`s of its `buildSessionProjection`.
    #[doc(alias = "buildContextEntries")]
    pub fn context_entries(&self, leaf: Option<&str>) -> Result<Vec<EntryView<'_>>, Error> {
        let key = leaf.map(Key::from);
        if let Some(k) = &key {
            self.session
                .find(k)
                .ok_or_else(|| Error::UnknownId(k.to_string()))?;
        }
        let plan = self.session.context_plan(key.as_ref().map(Some));
        Ok(plan.context.iter().map(|&i| self.view(i)).collect())
    }

    /// Each entry the context at `leaf` is made of (the current leaf when
    /// `None`) with the messages it gives the model: pi's
    /// `buildSessionProjection`.
    ///
    /// ```
    /// # use session_tree::SessionFile;
    /// let text = concat!(
    ///     r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
    ///     r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#, "\n",
    ///     r#"{"type":"label","id":"l","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","targetId":"u","label":"start"}"#, "\n",
    /// );
    /// let session = SessionFile::from_str(text)?;
    /// let projection = session.projection(None)?;
    /// let entries = projection.entries();
    /// assert_eq!(entries.len(), 2);
    /// assert_eq!(entries[0].entry.id().as_deref(), Some("u"));
    /// assert_eq!(entries[0].messages[0].text(), "Hi");
    /// assert!(entries[1].messages.is_empty()); // a label gives the model nothing
    /// assert_eq!(projection.messages().len(), 1);
    /// # Ok::<(), session_tree::Error>(())
    /// ```
    #[doc(alias = "buildSessionProjection")]
    pub fn projection(&self, leaf: Option<&str>) -> Result<Projection, Error> {
        let key = leaf.map(Key::from);
        if let Some(k) = &key {
            self.session
                .find(k)
                .ok_or_else(|| Error::UnknownId(k.to_string()))?;
        }
        Ok(Projection {
            json: self.session.projection(key.as_ref().map(Some)),
        })
    }

    /// The system prompt in force at `leaf` (the current leaf when `None`),
    /// as pi's `currentSystemMessage` gives it: the message's JSON text.
    #[doc(alias = "currentSystemMessage")]
    pub fn system_message(&self, leaf: Option<&str>) -> Result<Option<String>, Error> {
        let key = leaf.map(Key::from);
        if let Some(k) = &key {
            self.session
                .find(k)
                .ok_or_else(|| Error::UnknownId(k.to_string()))?;
        }
        Ok(self.session.current_system(key.as_ref().map(Some)))
    }

    /// Everything wrong with the session, in line order: broken lines,
    /// dangling parents, cycles, duplicate ids.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let doc = Document::parse_with(self.session.text().into_owned(), &IsoOnly);
        diagnostics::inspect(&doc, self.session.invalid_utf8())
    }

    /// What pi's session list shows: id, cwd, name, dates, message count,
    /// first message. `None` when the file has no header.
    #[doc(alias = "buildSessionInfo")]
    pub fn info(&self) -> Option<Info> {
        let info = session_info::session_info(&self.session.text(), &IsoOnly)?;
        let text = |raw: &str| lossy(raw).into_owned();
        Some(Info {
            id: text(&info.id),
            cwd: text(&info.cwd),
            name: info.name.as_deref().map(text),
            parent_session: info.parent_session.as_deref().map(text),
            created: info.created.as_deref().map(text),
            last_activity_ms: info.last_activity,
            message_count: info.message_count,
            first_message: if info.first_message.is_empty() {
                String::new()
            } else {
                text(&info.first_message)
            },
        })
    }

    /// What the session cost: every paid request, the file's totals (pi 1.6's
    /// `getSessionStats`), the current branch's, and each fork's and leaf's.
    #[doc(alias = "getSessionStats")]
    pub fn usage(&self) -> Report {
        self.session.usage(self.session.leaf(), &NativeSort)
    }

    /// Whether the file was v1 or v2 and is read migrated to v3.
    pub fn migrated(&self) -> bool {
        self.session.migrated()
    }

    /// The session's JSONL text as read: migrated to v3 when it was older
    /// (what pi writes back when it migrates a file), lines appended included.
    #[doc(alias = "migrate")]
    pub fn to_jsonl(&self) -> Cow<'_, str> {
        self.session.text()
    }

    /// A new session for a project folder, as pi starts one: a header with a
    /// fresh time-ordered id and the current time. Nothing is handed out by
    /// [`SessionFile::take_pending_lines`] until the first message (pi writes
    /// no file before that).
    pub fn create(cwd: &str) -> Result<SessionFile, Error> {
        let ms = now_ms();
        let id = crate::ids::uuid_v7(ms as u64).map_err(|e| Error::Session(e.to_string()))?;
        let header = crate::session::header_line(&id, &iso(ms), Some(&json::stringify(cwd)), None);
        Ok(SessionFile {
            session: Session::create(&header, &IsoOnly),
        })
    }

    /// Appends a message (its JSON object text, such as
    /// `{"role":"user","content":"Hi","timestamp":1767225600000}`) as a child
    /// of the leaf, stamped now; returns the new entry's id. The line is then
    /// in [`SessionFile::take_pending_lines`], for the host to store.
    pub fn append_message(&mut self, message: &str) -> Result<String, Error> {
        let object = json::parse(message, Span::new(0, message.len()))
            .ok()
            .filter(|v| v.kind == Kind::Object);
        if object.is_none() {
            return Err(Error::InvalidJson(format!(
                "a message must be a JSON object: {}",
                message.chars().take(80).collect::<String>()
            )));
        }
        self.session
            .append_message(Some(message), &iso(now_ms()), &IsoOnly)
            .map_err(session_error)
            .map(|id| lossy(&id).into_owned())
    }

    /// Moves the leaf to the entry `id`: the next message starts a branch there.
    pub fn set_leaf(&mut self, id: &str) -> Result<(), Error> {
        self.session
            .branch(&Key::from(id))
            .map_err(|_| Error::UnknownId(id.to_owned()))
    }

    /// Takes more of a live file, from where the last read ended: `chunk`
    /// may end anywhere, even inside a line or a UTF-8 character; the rest
    /// waits for the next chunk. New entries join the tree at once.
    /// Lines taken in are not migrated (a v1 migration needs the whole
    /// file): open a file's first bytes with [`SessionFile::from_bytes`],
    /// which migrates an old one, rather than appending them to an empty
    /// session. A last line that is JSON only once JS's `trim()` takes its
    /// end (U+2028, NBSP…) is an entry while it is the last, as pi's
    /// `parseSessionEntries` reads the text so far; a line after it takes
    /// it back, so an entry's index may then name the entry after it.
    pub fn append_bytes(&mut self, chunk: &[u8]) {
        self.session.append_jsonl(chunk, &IsoOnly);
    }

    /// The lines this session wrote since the last call
    /// ([`SessionFile::append_message`]), for the host to append to its file.
    /// Lines taken in by [`SessionFile::append_bytes`] are the file's already
    /// and are not handed out again.
    pub fn take_pending_lines(&mut self) -> Vec<String> {
        self.session.take_pending_lines()
    }

    fn leaf_index(&self, leaf: Option<&str>) -> Result<Option<usize>, Error> {
        match leaf {
            None => Ok(self.session.leaf()),
            Some(id) => self
                .session
                .find(&Key::from(id))
                .map(Some)
                .ok_or_else(|| Error::UnknownId(id.to_owned())),
        }
    }

    fn view(&self, i: usize) -> EntryView<'_> {
        EntryView::new(self.session.entry_json(i))
    }
}

/// Milliseconds since the epoch, now.
fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

/// `new Date(ms).toISOString()`.
fn iso(ms: f64) -> String {
    let ms = ms as i64;
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = crate::time::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

enum Capped {
    Io(std::io::Error),
    TooLarge,
}

fn read_capped(reader: impl Read, max: u64) -> Result<Vec<u8>, Capped> {
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    if bytes.len() as u64 > max {
        return Err(Capped::TooLarge);
    }
    Ok(bytes)
}

/// A JSON string literal decoded; a lone surrogate becomes U+FFFD.
fn lossy(raw: &str) -> Cow<'_, str> {
    match json::decode_string(raw) {
        Some(JsString::Utf8(s)) => s,
        Some(JsString::Utf16(units)) => Cow::Owned(String::from_utf16_lossy(&units)),
        None => Cow::Borrowed(raw),
    }
}

/// What pi's session list shows for a file, strings decoded (a lone
/// surrogate in a name or message becomes U+FFFD).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Info {
    /// The header's `id`.
    pub id: String,
    /// The header's `cwd` (empty when it is not a string).
    pub cwd: String,
    /// The latest `session_info` name, trimmed; `None` when unnamed or cleared.
    pub name: Option<String>,
    /// The header's `parentSession`: the file this one was forked from.
    pub parent_session: Option<String>,
    /// The header's `timestamp`.
    pub created: Option<String>,
    /// Milliseconds since the epoch of the last user or assistant message.
    pub last_activity_ms: Option<f64>,
    /// How many messages the file holds.
    pub message_count: usize,
    /// The first user message's text (empty: none).
    pub first_message: String,
}

/// The tree of a session ([`SessionFile::tree`]).
pub struct Tree<'a> {
    file: &'a SessionFile,
    tree: crate::tree::Tree,
}

impl fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tree")
            .field("roots", &self.tree.roots.len())
            .finish()
    }
}

impl<'a> Tree<'a> {
    /// The roots, in pi's order.
    pub fn roots(&self) -> Vec<Node<'_, 'a>> {
        self.tree.roots.iter().map(|&i| self.node(i)).collect()
    }

    /// Every node, depth first (a parent before its children), without recursion.
    pub fn preorder(&self) -> Vec<Node<'_, 'a>> {
        self.tree
            .preorder()
            .into_iter()
            .map(|i| self.node(i))
            .collect()
    }

    fn node(&self, i: usize) -> Node<'_, 'a> {
        Node { tree: self, i }
    }
}

/// One entry in a [`Tree`].
#[derive(Clone, Copy)]
pub struct Node<'t, 'a> {
    tree: &'t Tree<'a>,
    i: usize,
}

impl fmt::Debug for Node<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Node").field(&self.entry().id()).finish()
    }
}

impl<'t, 'a> Node<'t, 'a> {
    /// The node's entry.
    pub fn entry(&self) -> EntryView<'a> {
        self.tree.file.view(self.i)
    }

    /// Its children, in pi's order (oldest first).
    pub fn children(&self) -> Vec<Node<'t, 'a>> {
        self.tree.tree.children[self.i]
            .iter()
            .map(|&i| Node { tree: self.tree, i })
            .collect()
    }

    /// The label set on this entry, if any (pi's `label` entries; the latest wins).
    pub fn label(&self) -> Option<String> {
        let l = self.tree.tree.label.get(self.i).copied().flatten()?;
        let v = self.tree.file.view(l);
        v.str("label").map(Cow::into_owned)
    }
}

/// What the model sees at a leaf ([`SessionFile::context`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    json: String,
}

impl Context {
    /// The JSON text of pi's `SessionContext`
    /// (`{"messages":[...],"thinkingLevel":...,"model":...}`), to forward as
    /// is: every value sliced from the file's own text, so it is what
    /// `JSON.stringify` writes of pi's result, except that a key pi leaves
    /// `undefined` (which `JSON.stringify` omits) is written as `null`.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The messages, in order, as typed views over [`Context::json`].
    pub fn messages(&self) -> Vec<MessageView<'_>> {
        messages_of(&Object::new(&self.json, Span::new(0, self.json.len())))
    }

    /// The thinking level in force (`"off"` when none was set).
    pub fn thinking_level(&self) -> Option<Cow<'_, str>> {
        Object::new(&self.json, Span::new(0, self.json.len())).str("thinkingLevel")
    }

    /// The model in force, as its JSON object text (`{"provider":..,"modelId":..}`).
    pub fn model_json(&self) -> Option<&str> {
        Object::new(&self.json, Span::new(0, self.json.len())).object("model")
    }
}

/// The object messages of `o`'s `messages` array, as views.
fn messages_of<'a>(o: &Object<'a>) -> Vec<MessageView<'a>> {
    let Some(list) = o.member("messages").filter(|m| m.kind == Kind::Array) else {
        return Vec::new();
    };
    json::elements(o.text, list.value)
        .into_iter()
        .filter(|m| m.kind == Kind::Object)
        .map(|m| MessageView::new(o.text, m.value))
        .collect()
}

/// The context at a leaf with the entry each message comes from
/// ([`SessionFile::projection`]): pi's `buildSessionProjection`.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    json: String,
}

/// One entry of a [`Projection`] and the messages it gives the model (after
/// its latest context edit; none for most entry types).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProjectedEntry<'a> {
    /// The entry (pi's `sourceEntry`).
    pub entry: EntryView<'a>,
    /// Its messages, in order.
    pub messages: Vec<MessageView<'a>>,
}

impl Projection {
    /// The JSON text of pi's `SessionProjection`
    /// (`{"entries":[{"sourceEntry":..,"messages":[..]}..],"messages":[..],"thinkingLevel":..,"model":..}`),
    /// as `JSON.stringify` writes pi's result, every value sliced from the
    /// file's text; a key pi leaves `undefined` is written as `null` (as in
    /// [`Context::json`]).
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The context entries in order, each with its messages.
    pub fn entries(&self) -> Vec<ProjectedEntry<'_>> {
        let top = Object::new(&self.json, Span::new(0, self.json.len()));
        let Some(list) = top.member("entries") else {
            return Vec::new();
        };
        json::elements(&self.json, list.value)
            .into_iter()
            .filter(|e| e.kind == Kind::Object)
            .filter_map(|e| {
                let e = Object::new(&self.json, e.value);
                let source = e.member("sourceEntry").filter(|m| m.kind == Kind::Object)?;
                Some(ProjectedEntry {
                    entry: EntryView {
                        object: Object::new(&self.json, source.value),
                    },
                    messages: messages_of(&e),
                })
            })
            .collect()
    }

    /// Every entry's messages in order: the context's messages.
    pub fn messages(&self) -> Vec<MessageView<'_>> {
        messages_of(&Object::new(&self.json, Span::new(0, self.json.len())))
    }

    /// The thinking level in force (`"off"` when none was set).
    pub fn thinking_level(&self) -> Option<Cow<'_, str>> {
        Object::new(&self.json, Span::new(0, self.json.len())).str("thinkingLevel")
    }

    /// The model in force, as its JSON object text (`{"provider":..,"modelId":..}`).
    pub fn model_json(&self) -> Option<&str> {
        Object::new(&self.json, Span::new(0, self.json.len())).object("model")
    }
}

/// An object of the file's JSON, borrowed: its text and its top-level members.
#[derive(Clone)]
struct Object<'a> {
    text: &'a str,
    span: Span,
    members: Vec<Member>,
}

impl<'a> Object<'a> {
    fn new(text: &'a str, span: Span) -> Self {
        Object {
            text,
            span,
            members: json::members(text, span),
        }
    }

    fn raw(&self, name: &str) -> Option<&'a str> {
        json::get(self.text, &self.members, name).map(|m| m.value.of(self.text))
    }

    fn member(&self, name: &str) -> Option<Member> {
        json::get(self.text, &self.members, name).cloned()
    }

    fn str(&self, name: &str) -> Option<Cow<'a, str>> {
        let m = self.member(name).filter(|m| m.kind == Kind::String)?;
        Some(lossy(m.value.of(self.text)))
    }

    /// A finite number member (a JSON number too large for a double is not).
    fn number(&self, name: &str) -> Option<f64> {
        let m = self.member(name).filter(|m| m.kind == Kind::Number)?;
        Some(json::number(m.value.of(self.text))).filter(|n| n.is_finite())
    }

    /// A member that is `true` or `false`.
    fn bool(&self, name: &str) -> Option<bool> {
        match self.member(name)?.kind {
            Kind::True => Some(true),
            Kind::False => Some(false),
            _ => None,
        }
    }

    /// An object member's JSON text.
    fn object(&self, name: &str) -> Option<&'a str> {
        self.member(name)
            .filter(|m| m.kind == Kind::Object)
            .map(|m| m.value.of(self.text))
    }

    /// A member's content blocks: a string is one text block.
    fn blocks(&self, name: &str) -> Option<Vec<Block<'a>>> {
        let c = self.member(name)?;
        let text = self.text;
        match c.kind {
            Kind::String => Some(vec![Block::Text(lossy(c.value.of(text)))]),
            Kind::Array => Some(
                json::elements(text, c.value)
                    .into_iter()
                    .map(|b| Block::read(text, &b))
                    .collect(),
            ),
            _ => None,
        }
    }

    fn usage(&self) -> Option<Usage> {
        self.member("usage")
            .filter(|m| m.kind == Kind::Object)
            .map(|m| Usage::read(self.text, m.value))
    }
}

/// One entry of a session, borrowed from its text: `type`, `id`,
/// `parentId`, `timestamp`, and typed access to what each kind carries.
/// Strings are decoded on demand; [`EntryView::json`] keeps the raw line.
#[derive(Clone)]
pub struct EntryView<'a> {
    object: Object<'a>,
}

impl fmt::Debug for EntryView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntryView")
            .field("type", &self.kind())
            .field("id", &self.id())
            .finish()
    }
}

impl<'a> EntryView<'a> {
    fn new(raw: &'a str) -> Self {
        EntryView {
            object: Object::new(raw, Span::new(0, raw.len())),
        }
    }

    /// The entry's JSON text, exactly as in the file (migrated when the file was).
    pub fn json(&self) -> &'a str {
        self.object.span.of(self.object.text)
    }

    /// Its `type`: `"session"`, `"message"`, `"compaction"`, `"branch_summary"`,
    /// `"label"`, `"session_info"`, `"model_change"`, `"thinking_level_change"`,
    /// `"custom"`, `"custom_message"`, `"usage"`, `"context_edit"`…
    pub fn kind(&self) -> Option<Cow<'a, str>> {
        self.object.str("type")
    }

    /// Its `id` (a string id; numbers and other values come as their JSON text).
    pub fn id(&self) -> Option<Cow<'a, str>> {
        self.string_or_raw("id")
    }

    /// Its `parentId`; `None` for a root (`null`) or a header.
    pub fn parent_id(&self) -> Option<Cow<'a, str>> {
        // JSON `null`, not the string "null", which is an id like any other.
        let m = self.object.member("parentId")?;
        if m.kind == Kind::Null {
            return None;
        }
        self.string_or_raw("parentId")
    }

    /// Its `timestamp`, as written (ISO 8601 in files pi writes).
    pub fn timestamp(&self) -> Option<Cow<'a, str>> {
        self.object.str("timestamp")
    }

    /// Any top-level field as a string, decoded (a lone surrogate becomes U+FFFD).
    pub fn str(&self, field: &str) -> Option<Cow<'a, str>> {
        self.object.str(field)
    }

    /// Any top-level field's raw JSON text (lossless, lone surrogates included).
    pub fn raw(&self, field: &str) -> Option<&'a str> {
        self.object.raw(field)
    }

    /// The message of a `message` entry (or a `custom_message`'s content as a message).
    pub fn message(&self) -> Option<MessageView<'a>> {
        let m = self
            .object
            .member("message")
            .filter(|m| m.kind == Kind::Object)?;
        Some(MessageView::new(self.object.text, m.value))
    }

    /// A compaction's or branch summary's `summary`.
    pub fn summary(&self) -> Option<Cow<'a, str>> {
        self.object.str("summary")
    }

    /// A `usage` entry's (or compaction's / summary's) token counts.
    pub fn usage(&self) -> Option<Usage> {
        self.object.usage()
    }

    /// What this entry's kind carries, typed: a compaction's summary and
    /// kept entry, a label's target, a model change's model… Strings are
    /// decoded (a lone surrogate becomes U+FFFD; [`EntryView::raw`] has the
    /// exact text); a field that is missing or of another type is `None`.
    ///
    /// ```
    /// use session_tree::{SessionFile, TypedEntry};
    ///
    /// let text = concat!(
    ///     r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
    ///     r#"{"type":"model_change","id":"m","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","provider":"openai","modelId":"gpt-5"}"#, "\n",
    ///     r#"{"type":"label","id":"l","parentId":"m","timestamp":"2026-01-01T00:00:02.000Z","targetId":"m","label":"switch"}"#, "\n",
    /// );
    /// let session = SessionFile::from_str(text)?;
    /// for entry in session.entries() {
    ///     match entry.typed() {
    ///         TypedEntry::Header { cwd, .. } => assert_eq!(cwd.as_deref(), Some("/w")),
    ///         TypedEntry::ModelChange { model_id, .. } => assert_eq!(model_id.as_deref(), Some("gpt-5")),
    ///         TypedEntry::Label { target_id, label, .. } => {
    ///             assert_eq!((target_id.as_deref(), label.as_deref()), (Some("m"), Some("switch")))
    ///         }
    ///         other => panic!("{other:?}"),
    ///     }
    /// }
    /// # Ok::<(), session_tree::Error>(())
    /// ```
    pub fn typed(&self) -> TypedEntry<'a> {
        let o = &self.object;
        let s = |k: &str| o.str(k);
        let raw = |k: &str| o.raw(k);
        match self.kind().as_deref() {
            Some("session") => TypedEntry::Header {
                version: o.number("version"),
                cwd: s("cwd"),
                parent_session: s("parentSession"),
            },
            Some("message") => match self.message() {
                Some(m) => TypedEntry::Message(m),
                None => TypedEntry::Other,
            },
            Some("compaction") => TypedEntry::Compaction {
                summary: s("summary"),
                first_kept_entry_id: s("firstKeptEntryId"),
                tokens_before: o.number("tokensBefore"),
                details: raw("details"),
                usage: o.usage(),
                from_hook: o.bool("fromHook").unwrap_or(false),
                system_message: o
                    .member("systemMessage")
                    .filter(|m| m.kind == Kind::Object)
                    .map(|m| MessageView::new(o.text, m.value)),
            },
            Some("branch_summary") => TypedEntry::BranchSummary {
                from_id: s("fromId"),
                summary: s("summary"),
                details: raw("details"),
                usage: o.usage(),
                from_hook: o.bool("fromHook").unwrap_or(false),
            },
            Some("label") => TypedEntry::Label {
                target_id: s("targetId"),
                label: s("label"),
            },
            Some("session_info") => TypedEntry::SessionInfo { name: s("name") },
            Some("model_change") => TypedEntry::ModelChange {
                provider: s("provider"),
                model_id: s("modelId"),
            },
            Some("thinking_level_change") => TypedEntry::ThinkingLevelChange {
                thinking_level: s("thinkingLevel"),
            },
            Some("custom") => TypedEntry::Custom {
                custom_type: s("customType"),
                data: raw("data"),
            },
            Some("custom_message") => TypedEntry::CustomMessage {
                custom_type: s("customType"),
                content: o.blocks("content").unwrap_or_default(),
                display: o.bool("display").unwrap_or(false),
                details: raw("details"),
            },
            Some("usage") => TypedEntry::Usage {
                kind: s("kind"),
                provider: s("provider"),
                model: s("model"),
                usage: o.usage(),
                note: s("note"),
            },
            Some("context_edit") => TypedEntry::ContextEdit {
                target_id: s("targetId"),
                replacement: o.member("replacement").and_then(|m| match m.kind {
                    Kind::Null => Some(Replacement::Remove),
                    Kind::Object => Object::new(o.text, m.value)
                        .blocks("content")
                        .map(Replacement::Content),
                    _ => None,
                }),
            },
            _ => TypedEntry::Other,
        }
    }

    /// The entry as an owned value of the `types` module (feature
    /// `serde`), usually [`crate::types::FileEntry`]. A lone surrogate
    /// escape, which `serde_json` refuses, is read as U+FFFD, as the
    /// views' strings are.
    ///
    /// ```
    /// use session_tree::{types::FileEntry, SessionFile};
    ///
    /// let text = concat!(
    ///     r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
    ///     r#"{"type":"session_info","id":"i","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","name":"x\ud800"}"#, "\n",
    /// );
    /// let session = SessionFile::from_str(text)?;
    /// let FileEntry::SessionInfo(info) = session.leaf().unwrap().deserialize()? else { panic!() };
    /// assert_eq!(info.name.as_deref(), Some("x\u{fffd}"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "serde")]
    pub fn deserialize<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&without_lone_surrogates(self.json()))
    }

    fn string_or_raw(&self, field: &str) -> Option<Cow<'a, str>> {
        let m = self.object.member(field)?;
        let raw = m.value.of(self.object.text);
        Some(if m.kind == Kind::String {
            lossy(raw)
        } else {
            Cow::Borrowed(raw)
        })
    }
}

/// A message (user, assistant, tool result, custom…), borrowed.
#[derive(Clone)]
pub struct MessageView<'a> {
    object: Object<'a>,
}

impl fmt::Debug for MessageView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageView")
            .field("role", &self.role())
            .finish()
    }
}

impl<'a> MessageView<'a> {
    fn new(text: &'a str, span: Span) -> Self {
        MessageView {
            object: Object::new(text, span),
        }
    }

    /// The message's JSON text.
    pub fn json(&self) -> &'a str {
        self.object.span.of(self.object.text)
    }

    /// `user`, `assistant`, `toolResult`, `bashExecution`, `custom`,
    /// `branchSummary`, `compactionSummary`…
    pub fn role(&self) -> Option<Cow<'a, str>> {
        self.object.str("role")
    }

    /// The content blocks; a string `content` is one text block.
    pub fn content(&self) -> Vec<Block<'a>> {
        self.object.blocks("content").unwrap_or_default()
    }

    /// The text blocks joined with newlines (what a viewer shows for the message).
    pub fn text(&self) -> String {
        let texts: Vec<Cow<'a, str>> = self
            .content()
            .into_iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// An assistant message's token counts and cost.
    pub fn usage(&self) -> Option<Usage> {
        self.object.usage()
    }

    /// The provider of an assistant message (`anthropic`, `openai`…).
    pub fn provider(&self) -> Option<Cow<'a, str>> {
        self.object.str("provider")
    }

    /// The model of an assistant message.
    pub fn model(&self) -> Option<Cow<'a, str>> {
        self.object.str("model")
    }

    /// Why an assistant message stopped (`stop`, `toolUse`, `length`, `error`, `aborted`).
    pub fn stop_reason(&self) -> Option<Cow<'a, str>> {
        self.object.str("stopReason")
    }

    /// Any field as its raw JSON text.
    pub fn raw(&self, field: &str) -> Option<&'a str> {
        self.object.raw(field)
    }

    /// The message as an owned value of the `types` module (feature
    /// `serde`), usually [`crate::types::AgentMessage`]; a lone surrogate
    /// escape is read as U+FFFD.
    #[cfg(feature = "serde")]
    pub fn deserialize<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&without_lone_surrogates(self.json()))
    }
}

/// JSON text with each lone surrogate escape (`\ud800` not in a pair)
/// written `\ufffd`, the character a lossy decode gives it.
#[cfg(feature = "serde")]
fn without_lone_surrogates(json: &str) -> Cow<'_, str> {
    let b = json.as_bytes();
    let unit = |i: usize| -> Option<u16> {
        let hex = b.get(i..i + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i) else {
            i += 2; // another escape: `\\`, `\"`…
            continue;
        };
        let high = (0xd800..0xdc00).contains(&u);
        let paired = high && unit(i + 6).is_some_and(|l| (0xdc00..0xe000).contains(&l));
        if paired {
            i += 12;
        } else if (0xd800..0xe000).contains(&u) {
            out.push_str(&json[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

/// What an entry's kind carries ([`EntryView::typed`]), borrowed from the
/// text. The common fields (`id`, `parentId`, `timestamp`) are on the view.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum TypedEntry<'a> {
    /// The session header (`type: "session"`).
    #[non_exhaustive]
    Header {
        /// The format version; `None` (version 1) when absent.
        version: Option<f64>,
        /// The working directory.
        cwd: Option<Cow<'a, str>>,
        /// The file this session was forked from.
        parent_session: Option<Cow<'a, str>>,
    },
    /// A conversation message.
    Message(MessageView<'a>),
    /// Earlier context summarized (`compaction`).
    #[non_exhaustive]
    Compaction {
        /// The summary.
        summary: Option<Cow<'a, str>>,
        /// The first entry still sent after the summary.
        first_kept_entry_id: Option<Cow<'a, str>>,
        /// The context's size in tokens before.
        tokens_before: Option<f64>,
        /// `details`, as JSON text.
        details: Option<&'a str>,
        /// What producing the summary cost.
        usage: Option<Usage>,
        /// Whether an extension made it.
        from_hook: bool,
        /// The system prompt and tools at the compaction (pi 1.6).
        system_message: Option<MessageView<'a>>,
    },
    /// A summary of a branch left behind (`branch_summary`).
    #[non_exhaustive]
    BranchSummary {
        /// The entry the abandoned branch ended at (`"root"`: none).
        from_id: Option<Cow<'a, str>>,
        /// The summary.
        summary: Option<Cow<'a, str>>,
        /// `details`, as JSON text.
        details: Option<&'a str>,
        /// What producing the summary cost.
        usage: Option<Usage>,
        /// Whether an extension made it.
        from_hook: bool,
    },
    /// Sets or (empty, absent) clears an entry's label (`label`).
    #[non_exhaustive]
    Label {
        /// The entry labelled.
        target_id: Option<Cow<'a, str>>,
        /// The label.
        label: Option<Cow<'a, str>>,
    },
    /// Session metadata (`session_info`).
    #[non_exhaustive]
    SessionInfo {
        /// The display name, as written (the session's name is the latest
        /// one, trimmed: [`Info::name`]).
        name: Option<Cow<'a, str>>,
    },
    /// The model changed (`model_change`).
    #[non_exhaustive]
    ModelChange {
        /// The provider.
        provider: Option<Cow<'a, str>>,
        /// The model's id.
        model_id: Option<Cow<'a, str>>,
    },
    /// The thinking level changed (`thinking_level_change`).
    #[non_exhaustive]
    ThinkingLevelChange {
        /// The new level.
        thinking_level: Option<Cow<'a, str>>,
    },
    /// Extension state (`custom`).
    #[non_exhaustive]
    Custom {
        /// The extension's name for it.
        custom_type: Option<Cow<'a, str>>,
        /// `data`, as JSON text.
        data: Option<&'a str>,
    },
    /// A message injected by an extension (`custom_message`).
    #[non_exhaustive]
    CustomMessage {
        /// The extension's name for it.
        custom_type: Option<Cow<'a, str>>,
        /// What the model sees (a string content is one text block).
        content: Vec<Block<'a>>,
        /// Whether pi's TUI shows it.
        display: bool,
        /// `details`, as JSON text.
        details: Option<&'a str>,
    },
    /// Tokens used outside a message (`usage`, pi 1.6).
    #[non_exhaustive]
    Usage {
        /// What they were for (`cache_warm`…).
        kind: Option<Cow<'a, str>>,
        /// The provider.
        provider: Option<Cow<'a, str>>,
        /// The model.
        model: Option<Cow<'a, str>>,
        /// The tokens and cost.
        usage: Option<Usage>,
        /// A qualifier for display.
        note: Option<Cow<'a, str>>,
    },
    /// Changes what the model sees of an earlier entry (`context_edit`, pi 1.6).
    #[non_exhaustive]
    ContextEdit {
        /// The entry edited.
        target_id: Option<Cow<'a, str>>,
        /// What takes its place; `None` when the `replacement` is missing or
        /// neither `null` nor an object with a string or array `content`.
        replacement: Option<Replacement<'a>>,
    },
    /// Any other `type` (or a `message` entry whose message is not an object).
    Other,
}

/// What a `context_edit` puts in place of its target's content.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Replacement<'a> {
    /// `null`: the target is left out of the context.
    Remove,
    /// This content instead of the target's.
    Content(Vec<Block<'a>>),
}

/// One block of a message's content.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Block<'a> {
    /// `{"type":"text","text":..}` (or a string content).
    Text(Cow<'a, str>),
    /// `{"type":"thinking","thinking":..}`.
    Thinking(Cow<'a, str>),
    /// `{"type":"toolCall",..}`: the call's id, the tool's name, and its
    /// arguments as raw JSON text.
    ToolCall {
        /// The call's id, which its tool result names.
        id: Cow<'a, str>,
        /// The tool.
        name: Cow<'a, str>,
        /// The arguments' JSON text (`{}` when absent).
        arguments: &'a str,
    },
    /// `{"type":"image",..}`: its MIME type (the data stays in the JSON).
    Image {
        /// `image/png`…
        mime_type: Cow<'a, str>,
    },
    /// Any other block, as its JSON text.
    Other(&'a str),
}

impl<'a> Block<'a> {
    fn read(text: &'a str, m: &Member) -> Block<'a> {
        let raw = m.value.of(text);
        if m.kind != Kind::Object {
            return Block::Other(raw);
        }
        let o = Object::new(text, m.value);
        let s = |k: &str| o.str(k).unwrap_or(Cow::Borrowed(""));
        match o.str("type").as_deref() {
            Some("text") => Block::Text(s("text")),
            Some("thinking") => Block::Thinking(s("thinking")),
            Some("toolCall") => Block::ToolCall {
                id: s("id"),
                name: s("name"),
                arguments: o.raw("arguments").unwrap_or("{}"),
            },
            Some("image") => Block::Image {
                mime_type: s("mimeType"),
            },
            _ => Block::Other(raw),
        }
    }
}

/// Token counts and cost of one request. A field that is not a finite
/// number reads as 0 (as the usage accounting counts it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Tokens read from the cache.
    pub cache_read: f64,
    /// Tokens written to the cache.
    pub cache_write: f64,
    /// `totalTokens` as written.
    pub total_tokens: f64,
    /// `cost.total`, in dollars.
    pub cost: f64,
}

impl Usage {
    fn read(text: &str, span: Span) -> Usage {
        let o = Object::new(text, span);
        let n = |o: &Object, k: &str| {
            o.member(k)
                .filter(|m| m.kind == Kind::Number)
                .map(|m| json::number(m.value.of(text)))
                .filter(|v| v.is_finite())
                .unwrap_or(0.0)
        };
        let cost = o
            .member("cost")
            .filter(|m| m.kind == Kind::Object)
            .map(|m| n(&Object::new(text, m.value), "total"))
            .unwrap_or(0.0);
        Usage {
            input: n(&o, "input"),
            output: n(&o, "output"),
            cache_read: n(&o, "cacheRead"),
            cache_write: n(&o, "cacheWrite"),
            total_tokens: n(&o, "totalTokens"),
            cost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_writes_what_to_iso_string_writes() {
        assert_eq!(iso(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_767_225_600_123.0), "2026-01-01T00:00:00.123Z");
        assert_eq!(
            crate::time::iso_utc(&iso(951_782_400_999.0)),
            Some(951_782_400_999.0)
        );
    }

    #[test]
    fn a_created_session_hands_out_its_lines_from_the_first_message() {
        let mut s = SessionFile::create("/w").unwrap();
        assert!(s.take_pending_lines().is_empty());
        let id = s
            .append_message(r#"{"role":"user","content":"Hi","timestamp":1}"#)
            .unwrap();
        let lines = s.take_pending_lines();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with(r#"{"type":"session","version":3,"id":""#));
        assert!(lines[0].contains(r#""cwd":"/w""#));
        assert!(lines[1].contains(&format!(r#""id":"{id}""#)));
        assert_eq!(s.leaf().unwrap().id().as_deref(), Some(id.as_str()));
        assert!(matches!(
            s.append_message("[1]"),
            Err(Error::InvalidJson(_))
        ));
        assert!(matches!(s.set_leaf("nope"), Err(Error::UnknownId(_))));
        // A second message, then a branch back at the first.
        let second = s
            .append_message(r#"{"role":"assistant","content":[]}"#)
            .unwrap();
        s.set_leaf(&id).unwrap();
        let third = s
            .append_message(r#"{"role":"user","content":"Again"}"#)
            .unwrap();
        let tree = s.tree();
        let children: Vec<String> = tree.roots()[0]
            .children()
            .iter()
            .map(|n| n.entry().id().unwrap().into_owned())
            .collect();
        assert_eq!(children, [second, third]);
    }

    #[test]
    fn a_size_cap_refuses_a_longer_input_and_keeps_an_equal_one() {
        let text = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n";
        let cap = |n| OpenOptions { max_bytes: n };
        let len = text.len() as u64;
        assert!(SessionFile::from_reader(&text[..], &cap(len)).is_ok());
        assert!(matches!(
            SessionFile::from_reader(&text[..], &cap(len - 1)),
            Err(Error::TooLarge { max_bytes, .. }) if max_bytes == len - 1
        ));
        let missing = SessionFile::open("/nonexistent/x.jsonl").unwrap_err();
        assert!(
            missing.to_string().starts_with("/nonexistent/x.jsonl: "),
            "{missing}"
        );
    }

    #[test]
    fn typed_views_read_each_kind_and_give_none_for_a_field_of_another_type() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w","parentSession":"/p.jsonl"}"#,
            "\n",
            r#"{"type":"compaction","id":"c","parentId":null,"timestamp":"t","summary":"s\ud800","firstKeptEntryId":7,"tokensBefore":12,"details":{"a":[1]},"fromHook":true,"systemMessage":{"role":"system","content":"P"}}"#,
            "\n",
            r#"{"type":"context_edit","id":"e1","parentId":"c","timestamp":"t","targetId":"c","replacement":null}"#,
            "\n",
            r#"{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"t","targetId":"c","replacement":{"content":"new"}}"#,
            "\n",
            r#"{"type":"context_edit","id":"e3","parentId":"e2","timestamp":"t","targetId":"c","replacement":{"content":5}}"#,
            "\n",
            r#"{"type":"usage","id":"u","parentId":"e3","timestamp":"t","kind":"cache_warm","provider":"p","model":"m","usage":{"input":3,"output":1,"cost":{"total":0.25}}}"#,
            "\n",
            r#"{"type":"custom_message","id":"cm","parentId":"u","timestamp":"t","customType":"x","content":[{"type":"text","text":"hi"}],"display":"yes"}"#,
            "\n",
            r#"{"type":"message","id":"m","parentId":"cm","timestamp":"t","message":"not an object"}"#,
            "\n",
        );
        let s = SessionFile::from_str(text).unwrap();
        let typed: Vec<TypedEntry> = s.entries().map(|e| e.typed()).collect();
        assert!(
            matches!(&typed[0], TypedEntry::Header { version: Some(v), parent_session: Some(p), .. }
            if *v == 3.0 && p == "/p.jsonl")
        );
        let TypedEntry::Compaction {
            summary,
            first_kept_entry_id,
            tokens_before,
            details,
            from_hook,
            system_message,
            usage,
        } = &typed[1]
        else {
            panic!("{:?}", typed[1])
        };
        assert_eq!(summary.as_deref(), Some("s\u{fffd}"));
        assert_eq!(first_kept_entry_id, &None); // a number, not an id pi writes
        assert_eq!(
            (*tokens_before, *details, *from_hook),
            (Some(12.0), Some(r#"{"a":[1]}"#), true)
        );
        assert_eq!(system_message.as_ref().unwrap().text(), "P");
        assert!(usage.is_none());
        let replacement = |i: usize| match &typed[i] {
            TypedEntry::ContextEdit { replacement, .. } => replacement.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(replacement(2), Some(Replacement::Remove));
        assert_eq!(
            replacement(3),
            Some(Replacement::Content(vec![Block::Text("new".into())]))
        );
        assert_eq!(replacement(4), None);
        let TypedEntry::Usage { kind, usage, .. } = &typed[5] else {
            panic!()
        };
        assert_eq!(kind.as_deref(), Some("cache_warm"));
        assert_eq!(usage.map(|u| (u.input, u.cost)), Some((3.0, 0.25)));
        assert!(
            matches!(&typed[6], TypedEntry::CustomMessage { content, display: false, details: None, .. }
            if content == &[Block::Text("hi".into())])
        );
        assert!(matches!(typed[7], TypedEntry::Other));
        assert!(matches!(
            s.projection(Some("nope")),
            Err(Error::UnknownId(_))
        ));
    }

    /// A session whose one message's content holds a lone surrogate escape.
    pub(super) const LONE_SURROGATE: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x\ud800y"}}"#,
        "\n",
    );

    #[test]
    fn a_lone_surrogate_stays_in_the_raw_json_and_decodes_lossily() {
        let s = SessionFile::from_str(LONE_SURROGATE).unwrap();
        let m = s.leaf().unwrap().message().unwrap();
        assert_eq!(m.text(), "x\u{fffd}y");
        assert_eq!(m.raw("content"), Some(r#""x\ud800y""#));
        assert_eq!(s.len(), 2);
    }
}

#[cfg(test)]
mod mutant_tests;
