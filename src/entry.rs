//! What the tree, context and migration need to know about one entry.
//!
//! An entry is whatever a session line parses to. The algorithms read only a
//! handful of its fields (`type`, `id`, `parentId`, `timestamp` and a few per
//! type); [`Entry`] holds those, already interpreted as JS would, and nothing
//! else. It is filled from JSONL text here, or from JS objects by the bindings,
//! so one implementation of the algorithms serves both.

use std::collections::HashMap;

use crate::ids::IdHash;

use crate::json::{self, JsString, Kind, Member, Span};
use crate::time::{self, DateParser};

/// A box of a box: a pointer of one word where a `Box<str>` or `Box<[T]>`
/// is two (pointer and length). A [`Key`] holding one is 8 bytes on wasm32
/// where it was 12; the strings it is used for are rare (pi's ids are
/// [`Key::Hex`]), so the second allocation costs little.
#[derive(PartialEq, Eq, Hash)]
pub struct Thin<T: ?Sized>(Box<Box<T>>);

impl<T: ?Sized> Clone for Thin<T>
where
    Box<T>: Clone,
{
    fn clone(&self) -> Self {
        Thin(self.0.clone())
    }
}

impl<T: ?Sized> std::ops::Deref for Thin<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for Thin<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl From<&str> for Thin<str> {
    fn from(s: &str) -> Self {
        Thin(Box::new(s.into()))
    }
}

impl From<String> for Thin<str> {
    fn from(s: String) -> Self {
        Thin(Box::new(s.into_boxed_str()))
    }
}

impl From<Vec<u16>> for Thin<[u16]> {
    fn from(units: Vec<u16>) -> Self {
        Thin(Box::new(units.into_boxed_slice()))
    }
}

impl Thin<str> {
    pub fn into_string(self) -> String {
        (*self.0).into_string()
    }
}

/// A field value used as a `Map` key or compared with `===`: equal keys are
/// exactly the values JS considers the same (SameValueZero; JSON has no NaN).
#[derive(Debug, PartialEq, Eq)]
pub enum Key {
    Undefined,
    Null,
    Bool(bool),
    /// f64 bits, with -0 stored as +0, boxed: ids are rarely numbers, and
    /// inline the bits made every key, so every entry, 4 bytes longer
    /// (see [`Key::number`], [`Key::as_number`]).
    Number(Box<u64>),
    /// A string, other than eight lowercase hex digits (see [`Key::Hex`]).
    Str(Thin<str>),
    /// A string of eight lowercase hex digits (pi's ids), as the word they
    /// spell: held inline, so an entry's ids and the maps keyed by them
    /// allocate nothing. Canonical: [`Key::string`] makes every such string
    /// this variant, so equal strings are always equal keys.
    Hex(u32),
    /// A string holding a lone surrogate, as UTF-16 code units.
    Utf16(Thin<[u16]>),
    /// An object or array: equal only to itself, so never to another field.
    Unique(u32),
}

/// As derived, but out of line: every map lookup by id held its own copy of
/// each variant's hashing. The call costs a few nanoseconds a lookup.
impl std::hash::Hash for Key {
    #[inline(never)]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Key::Undefined | Key::Null => {}
            Key::Bool(b) => b.hash(state),
            Key::Number(bits) => bits.hash(state),
            Key::Str(s) => s.hash(state),
            Key::Hex(n) => n.hash(state),
            Key::Utf16(units) => units.hash(state),
            Key::Unique(n) => n.hash(state),
        }
    }
}

/// As derived, but out of line: a clone of a string key allocates anyway,
/// and the some thirty places that clone keys each held a copy of every
/// variant's.
impl Clone for Key {
    #[inline(never)]
    fn clone(&self) -> Key {
        match self {
            Key::Undefined => Key::Undefined,
            Key::Null => Key::Null,
            Key::Bool(b) => Key::Bool(*b),
            Key::Number(bits) => Key::Number(bits.clone()),
            Key::Str(s) => Key::Str(s.clone()),
            Key::Hex(n) => Key::Hex(*n),
            Key::Utf16(units) => Key::Utf16(units.clone()),
            Key::Unique(n) => Key::Unique(*n),
        }
    }
}

impl Key {
    pub fn number(n: f64) -> Key {
        Key::Number(Box::new((n + 0.0).to_bits()))
    }

    /// The number, if the value is one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Key::Number(bits) => Some(f64::from_bits(**bits)),
            _ => None,
        }
    }

    /// JS truthiness of the value.
    pub fn truthy(&self) -> bool {
        match self {
            Key::Undefined | Key::Null => false,
            Key::Bool(b) => *b,
            Key::Number(_) => self.as_number().is_some_and(|n| n != 0.0 && !n.is_nan()),
            Key::Str(s) => !s.is_empty(),
            Key::Hex(_) => true,
            Key::Utf16(u) => !u.is_empty(),
            Key::Unique(_) => true,
        }
    }

    /// The value as JSON text, as `JSON.stringify` writes it (objects, which
    /// only ever equal themselves, as `{}`).
    pub fn to_json(&self) -> String {
        match self {
            Key::Undefined | Key::Null => "null".into(),
            Key::Bool(b) => b.to_string(),
            Key::Number(_) => {
                let n = self.as_number().unwrap_or(f64::NAN);
                if n.is_finite() {
                    json::number_text(n)
                } else {
                    "null".into()
                }
            }
            Key::Str(s) => crate::json::stringify(s),
            Key::Hex(n) => format!("\"{}\"", crate::ids::hex(&n.to_be_bytes())),
            Key::Utf16(units) => {
                // Lone surrogates as escapes, the rest as text.
                let mut out = String::from("\"");
                for c in char::decode_utf16(units.iter().copied()) {
                    match c {
                        Ok(c) => {
                            let one = crate::json::stringify(c.encode_utf8(&mut [0; 4]));
                            out.push_str(&one[1..one.len() - 1]);
                        }
                        Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
                    }
                }
                out.push('"');
                out
            }
            Key::Unique(_) => "{}".into(),
        }
    }

    /// Whether the value is a JS string (`typeof v === "string"`), one
    /// holding a lone surrogate included: [`Key::as_str`] gives only the
    /// strings that are valid UTF-8, so it cannot answer this.
    pub fn is_string(&self) -> bool {
        matches!(self, Key::Str(_) | Key::Hex(_) | Key::Utf16(_))
    }

    /// The string, if the value is one that is valid UTF-8.
    pub fn as_str(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Key::Str(s) => Some(std::borrow::Cow::Borrowed(s)),
            Key::Hex(n) => Some(std::borrow::Cow::Owned(crate::ids::hex(&n.to_be_bytes()))),
            _ => None,
        }
    }

    /// The key of the string `s`: [`Key::Hex`] for eight lowercase hex
    /// digits, else [`Key::Str`]. The only way string keys are made.
    pub fn string(s: &str) -> Key {
        match crate::ids::hex_word(s) {
            Some(n) => Key::Hex(n),
            None => Key::Str(Thin::from(s)),
        }
    }

    /// The key of a JSON value in `text`; `unique` numbers objects and arrays.
    pub fn from_json(text: &str, member: Option<&Member>, unique: &mut u32) -> Key {
        let Some(m) = member else {
            return Key::Undefined;
        };
        let raw = m.value.of(text);
        match m.kind {
            Kind::Null => Key::Null,
            Kind::True => Key::Bool(true),
            Kind::False => Key::Bool(false),
            Kind::Number => Key::number(json::number(raw)),
            Kind::String => match json::decode_string(raw) {
                Some(JsString::Utf8(s)) => Key::string(&s),
                Some(JsString::Utf16(u)) => Key::Utf16(u.into()),
                None => Key::Undefined,
            },
            Kind::Object | Kind::Array => {
                *unique += 1;
                Key::Unique(*unique)
            }
        }
    }
}

impl From<&str> for Key {
    /// A string id, as a session file writes ids.
    fn from(s: &str) -> Key {
        Key::string(s)
    }
}

impl std::fmt::Display for Key {
    /// As JS would print it in `Entry ${id} not found`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Undefined => f.write_str("undefined"),
            Key::Str(s) => f.write_str(s),
            Key::Hex(n) => f.write_str(&crate::ids::hex(&n.to_be_bytes())),
            Key::Utf16(u) => f.write_str(&String::from_utf16_lossy(u)),
            Key::Unique(_) => f.write_str("[object Object]"),
            other => f.write_str(&other.to_json()),
        }
    }
}

/// The `type` of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryType {
    Session,
    Message,
    ThinkingLevelChange,
    ModelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    /// Token usage outside a message (pi 1.6); adds no context message.
    Usage,
    /// An edit of another entry's context messages (pi 1.6).
    ContextEdit,
    /// Any other or missing `type`, and lines that are not objects.
    Other,
}

impl EntryType {
    pub fn from_name(name: &str) -> EntryType {
        match name {
            "session" => EntryType::Session,
            "message" => EntryType::Message,
            "thinking_level_change" => EntryType::ThinkingLevelChange,
            "model_change" => EntryType::ModelChange,
            "compaction" => EntryType::Compaction,
            "branch_summary" => EntryType::BranchSummary,
            "custom" => EntryType::Custom,
            "custom_message" => EntryType::CustomMessage,
            "label" => EntryType::Label,
            "session_info" => EntryType::SessionInfo,
            "usage" => EntryType::Usage,
            "context_edit" => EntryType::ContextEdit,
            _ => EntryType::Other,
        }
    }
}

/// The role of a message entry's `message`, as far as the core cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    /// A prompt-state message (pi 1.6), replayed in order.
    System,
    /// An extension's message (what v2's `hookMessage` became).
    Custom,
    /// v2's name for what v3 calls `custom`.
    HookMessage,
    /// Any other role (`bashExecution`, …), or none.
    Other,
    /// `message` is missing or not an object.
    NoMessage,
}

impl Role {
    pub fn from_name(name: &str) -> Role {
        match name {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            "system" => Role::System,
            "custom" => Role::Custom,
            "hookMessage" => Role::HookMessage,
            _ => Role::Other,
        }
    }
}

/// What a `content` member holds, as far as context building cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// No `content` key (or the object holding it is missing).
    Missing,
    Null,
    /// A string.
    Text,
    /// An array (of blocks, not checked further).
    Blocks,
    /// A number, boolean or object.
    Other,
}

impl Content {
    pub fn of_kind(kind: Option<Kind>) -> Content {
        match kind {
            None => Content::Missing,
            Some(Kind::Null) => Content::Null,
            Some(Kind::String) => Content::Text,
            Some(Kind::Array) => Content::Blocks,
            Some(_) => Content::Other,
        }
    }

    /// `null` or missing: what pi 1.6 normalizes per role.
    pub fn is_nullish(self) -> bool {
        matches!(self, Content::Missing | Content::Null)
    }
}

/// A `context_edit`'s `replacement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// No `replacement` key: pi throws a TypeError when the edit applies.
    Missing,
    /// `null`: the target produces no messages.
    Null,
    /// Not an object (a string, number, boolean or array): pi reads its
    /// `content` as `undefined`.
    NotObject,
    /// An object; its `content`. Only [`Content::Text`] and
    /// [`Content::Blocks`] are what pi writes; anything else passes through
    /// unvalidated (`Missing` leaves the key out of the edited message).
    Object(Content),
}

impl Replacement {
    /// A replacement pi itself would write: `null`, or an object whose
    /// `content` is a string or an array.
    pub fn is_valid(self) -> bool {
        matches!(
            self,
            Replacement::Null | Replacement::Object(Content::Text | Content::Blocks)
        )
    }
}

/// The per-type facts, and so the type: an entry keeps no `kind` of its own
/// (see [`Entry::kind`]), nor whether it is an object; both bytes in the
/// entry made it 36 bytes on wasm32, not 32.
#[derive(Clone, Debug, PartialEq)]
pub enum Detail {
    /// A line that parses to something other than an object (`42`, `null`,
    /// `[]`): it stays in place but has no fields.
    NotObject,
    /// An entry of a type with no facts here (never one of the types the
    /// variants below stand for).
    Plain(EntryType),
    /// A header: `version` as JS's `ToNumber` reads it, `None` when missing or null.
    Header { version: Box<Option<f64>> },
    Message {
        role: Role,
        /// The `content` of the message (`Missing` when there is no message).
        content: Content,
    },
    Compaction {
        /// Boxed, as `version` is: compactions and headers are few, and
        /// every entry's `Detail` is as long as its longest variant.
        kept: Box<Kept>,
        /// `systemMessage` is truthy: the checkpoint comes first in the context.
        has_system_message: bool,
    },
    /// The keys boxed, here and below: labels, summaries and edits are
    /// few, and a key inline made every entry 8 bytes longer.
    BranchSummary {
        has_summary: bool,
        from_id: Box<Key>,
    },
    Label {
        target_id: Box<Key>,
        has_label: bool,
    },
    ContextEdit {
        target_id: Box<Key>,
        replacement: Replacement,
    },
}

/// What a compaction keeps: `firstKeptEntryId`, and `firstKeptEntryIndex`
/// when it is a number (v1's, which migration turns into the id).
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    pub id: Key,
    pub index: Option<f64>,
}

/// One entry, as the algorithms see it.
///
/// Packed to 4 on wasm32, where nothing else in it needs 8: aligned to 8 by
/// its `time`, an entry was 40 bytes, not 36. (`time` is read by value only:
/// a reference to it would be misaligned. Clone, Debug and PartialEq are
/// written out, since derived ones on a packed struct need it `Copy`.)
#[cfg_attr(target_pointer_width = "32", repr(Rust, packed(4)))]
pub struct Entry {
    pub id: Key,
    pub parent_id: Key,
    /// `new Date(timestamp).getTime()`.
    pub time: f64,
    pub detail: Detail,
}

impl Clone for Entry {
    fn clone(&self) -> Entry {
        Entry {
            id: self.id.clone(),
            parent_id: self.parent_id.clone(),
            time: self.time,
            detail: self.detail.clone(),
        }
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        let (a, b) = (self.time, other.time);
        self.id == other.id
            && self.parent_id == other.parent_id
            && a == b
            && self.detail == other.detail
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let time = self.time;
        f.debug_struct("Entry")
            .field("kind", &self.kind())
            .field("id", &self.id)
            .field("parent_id", &self.parent_id)
            .field("time", &time)
            .field("detail", &self.detail)
            .finish()
    }
}

// A session holds one per entry: memory grows with entries, not their
// text. (On wasm32: a key is 8 bytes, a detail 8, an entry 32.)
#[cfg(target_pointer_width = "32")]
const _: () = assert!(
    std::mem::size_of::<Key>() <= 8
        && std::mem::size_of::<Detail>() <= 8
        && std::mem::size_of::<Entry>() <= 32
);

impl Entry {
    /// An entry with no fields at all.
    pub fn blank() -> Entry {
        Entry {
            id: Key::Undefined,
            parent_id: Key::Undefined,
            time: f64::NAN,
            detail: Detail::NotObject,
        }
    }

    /// The `type` (read from the detail, which stands for it).
    pub fn kind(&self) -> EntryType {
        match self.detail {
            Detail::NotObject => EntryType::Other,
            Detail::Plain(kind) => kind,
            Detail::Header { .. } => EntryType::Session,
            Detail::Message { .. } => EntryType::Message,
            Detail::Compaction { .. } => EntryType::Compaction,
            Detail::BranchSummary { .. } => EntryType::BranchSummary,
            Detail::Label { .. } => EntryType::Label,
            Detail::ContextEdit { .. } => EntryType::ContextEdit,
        }
    }

    /// False for lines that parse to something other than an object.
    pub fn is_object(&self) -> bool {
        !matches!(self.detail, Detail::NotObject)
    }

    pub fn is_header(&self) -> bool {
        matches!(self.detail, Detail::Header { .. })
    }

    /// Reads the facts of a parsed JSON value in `text`. Without `dates`, the
    /// time is not read (NaN): a pass that never orders entries skips the cost.
    pub fn from_json(
        text: &str,
        value: &json::Value,
        dates: Option<&dyn DateParser>,
        unique: &mut u32,
    ) -> Entry {
        if value.kind != Kind::Object {
            return Entry::blank();
        }
        // Every field read here, found in one pass over the members.
        let found = json::find_all(
            text,
            &value.members,
            [
                "type",
                "id",
                "parentId",
                "timestamp",
                "version",
                "firstKeptEntryId",
                "firstKeptEntryIndex",
                "summary",
                "fromId",
                "targetId",
                "label",
                "message",
                "systemMessage",
                "replacement",
            ],
        );
        let message_index = found[11];
        let replacement_index = found[13];
        let [ty, id, parent_id, timestamp, version, kept_id, kept_index, summary, from_id, target_id, label, _, system_message, _] =
            found.map(|i| i.map(|i| &value.members[i]));
        // `as_str` reads a string literal only: any other `type` is Other.
        let kind = ty
            .and_then(|t| json::as_str(t.value.of(text)))
            .map_or(EntryType::Other, |s| EntryType::from_name(&s));
        let id = Key::from_json(text, id, unique);
        let parent_id = Key::from_json(text, parent_id, unique);
        let time = dates.map_or(f64::NAN, |dates| {
            time::time_of(timestamp.map(|t| (t.kind, t.value.of(text))), dates)
        });
        let detail = match kind {
            EntryType::Session => Detail::Header {
                version: Box::new(version.and_then(|v| version_number(text, v))),
            },
            EntryType::Message => {
                let (role, content) = message_facts(text, value, message_index);
                Detail::Message { role, content }
            }
            EntryType::Compaction => Detail::Compaction {
                kept: Box::new(Kept {
                    id: Key::from_json(text, kept_id, unique),
                    index: kept_index
                        .filter(|i| i.kind == Kind::Number)
                        .map(|i| json::number(i.value.of(text))),
                }),
                has_system_message: is_truthy(text, system_message),
            },
            EntryType::ContextEdit => Detail::ContextEdit {
                target_id: Box::new(Key::from_json(text, target_id, unique)),
                replacement: replacement_of(text, value, replacement_index),
            },
            EntryType::BranchSummary => Detail::BranchSummary {
                has_summary: is_truthy(text, summary),
                from_id: Box::new(Key::from_json(text, from_id, unique)),
            },
            EntryType::Label => Detail::Label {
                target_id: Box::new(Key::from_json(text, target_id, unique)),
                has_label: is_truthy(text, label),
            },
            _ => Detail::Plain(kind),
        };
        Entry {
            id,
            parent_id,
            time,
            detail,
        }
    }
}

fn is_truthy(text: &str, m: Option<&Member>) -> bool {
    m.is_some_and(|m| json::truthy(m.kind, m.value.of(text)))
}

/// The role and content of the entry's `message` member, `members[index]`
/// (the last one of each name, as `JSON.parse` keeps), from the nested
/// members the parse already noted.
pub(crate) fn message_facts(
    text: &str,
    value: &json::Value,
    index: Option<usize>,
) -> (Role, Content) {
    let Some(index) = index.filter(|&i| value.members[i].kind == Kind::Object) else {
        return (Role::NoMessage, Content::Missing);
    };
    let (mut role, mut content) = (None, None);
    for m in value.nested_in(index) {
        if json::key_is(text, m.key, "role") {
            role = Some(m);
        } else if json::key_is(text, m.key, "content") {
            content = Some(m.kind);
        }
    }
    let role = role
        .filter(|r| r.kind == Kind::String)
        .and_then(|r| json::as_str(r.value.of(text)))
        .map_or(Role::Other, |r| Role::from_name(&r));
    (role, Content::of_kind(content))
}

/// What the `replacement` member, `members[index]`, holds.
fn replacement_of(text: &str, value: &json::Value, index: Option<usize>) -> Replacement {
    let Some(index) = index else {
        return Replacement::Missing;
    };
    match value.members[index].kind {
        Kind::Null => Replacement::Null,
        Kind::Object => Replacement::Object(Content::of_kind(
            value
                .nested_in(index)
                .filter(|m| json::key_is(text, m.key, "content"))
                .last()
                .map(|m| m.kind),
        )),
        _ => Replacement::NotObject,
    }
}

/// `header.version ?? 1` compared with numbers: JS's `ToNumber` of the value.
/// `None` stands for a missing or null version (which reads as 1).
pub fn version_number(text: &str, v: &Member) -> Option<f64> {
    to_number(text, v.kind, v.value)
}

fn to_number(text: &str, kind: Kind, span: Span) -> Option<f64> {
    let raw = span.of(text);
    Some(match kind {
        Kind::Null => return None,
        Kind::Number => json::number(raw),
        Kind::True => 1.0,
        Kind::False => 0.0,
        Kind::String => json::as_str(raw).map_or(f64::NAN, |s| string_to_number(&s)),
        Kind::Object => f64::NAN,
        // An array becomes the string of its elements joined with ",".
        Kind::Array => {
            let whole = json::parse(text, span);
            let inner = Span::new(span.start + 1, span.end - 1);
            let inner_text = inner
                .of(text)
                .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
            if inner_text.is_empty() {
                0.0
            } else if whole.is_err() {
                f64::NAN
            } else {
                // One element: its string form read back as a number. Two or more
                // contain a "," and are NaN.
                let start = inner.start
                    + (inner.of(text).len()
                        - inner
                            .of(text)
                            .trim_start_matches([' ', '\t', '\n', '\r'])
                            .len());
                let elem = Span::new(start, start + inner_text.len());
                match json::parse(text, elem) {
                    Ok(e) => match e.kind {
                        Kind::Null => 0.0,
                        Kind::True | Kind::False | Kind::Object => f64::NAN,
                        k => to_number(text, k, e.span).unwrap_or(0.0),
                    },
                    Err(_) => f64::NAN,
                }
            }
        }
    })
}

/// JS's StringToNumber.
pub fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(crate::scan::is_js_space);
    if t.is_empty() {
        return 0.0;
    }
    let radix = |p: &str, r: u32| -> f64 {
        if p.is_empty() || !p.chars().all(|c| c.is_digit(r)) {
            return f64::NAN;
        }
        p.chars().fold(0.0, |n, c| {
            n * f64::from(r) + f64::from(c.to_digit(r).unwrap_or(0))
        })
    };
    if let Some(p) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return radix(p, 16);
    }
    if let Some(p) = t.strip_prefix("0o").or_else(|| t.strip_prefix("0O")) {
        return radix(p, 8);
    }
    if let Some(p) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        return radix(p, 2);
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // StrDecimalLiteral: digits, optional fraction, optional exponent.
    let b = unsigned.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return f64::NAN;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let exp = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return f64::NAN;
        }
        i += exp;
    }
    if i != b.len() {
        return f64::NAN;
    }
    json::decimal(t)
}

/// A map keyed by entry ids (see [`IdHash`]).
pub type IdMap<'a, V> = HashMap<&'a Key, V, IdHash>;

/// `id → entry index`, later duplicates winning, as pi's `Map` does.
pub fn index_by_id<'a>(entries: impl IntoIterator<Item = (usize, &'a Entry)>) -> IdMap<'a, usize> {
    let mut by_id = HashMap::default();
    for (i, e) in entries {
        by_id.insert(&e.id, i);
    }
    by_id
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::IsoOnly;

    fn entry(s: &str) -> Entry {
        let v = json::parse(s, Span::new(0, s.len())).unwrap();
        Entry::from_json(s, &v, Some(&IsoOnly), &mut 0)
    }

    #[test]
    fn reads_the_fields_it_needs() {
        let e = entry(
            r#"{"type":"label","id":"a","parentId":null,"timestamp":"1970-01-01T00:00:01.000Z","targetId":"b","label":"x"}"#,
        );
        assert_eq!(e.kind(), EntryType::Label);
        assert_eq!(e.id, Key::Str("a".into()));
        assert_eq!(e.parent_id, Key::Null);
        assert_eq!(e.time, 1000.0);
        assert_eq!(
            e.detail,
            Detail::Label {
                target_id: Box::new(Key::Str("b".into())),
                has_label: true
            }
        );
        let e = entry(r#"{"type":"message","message":{"role":"hookMessage"}}"#);
        assert_eq!(
            e.detail,
            Detail::Message {
                role: Role::HookMessage,
                content: Content::Missing,
            }
        );
        assert_eq!(e.parent_id, Key::Undefined);
        assert!(!entry("[1]").is_object());
    }

    #[test]
    fn reads_roles_content_edits_and_checkpoints() {
        let facts =
            |message: &str| match entry(&format!("{{\"type\":\"message\",\"message\":{message}}}"))
                .detail
            {
                Detail::Message { role, content } => (role, content),
                _ => unreachable!(),
            };
        assert_eq!(facts(r#"{"role":"user"}"#), (Role::User, Content::Missing));
        assert_eq!(
            facts(r#"{"role":"system","content":null}"#),
            (Role::System, Content::Null)
        );
        assert_eq!(
            facts(r#"{"content":5,"role":"toolResult","content":[]}"#),
            (Role::ToolResult, Content::Blocks)
        );
        assert_eq!(facts("null"), (Role::NoMessage, Content::Missing));
        let edit = |rest: &str| match entry(&format!(
            "{{\"type\":\"context_edit\",\"targetId\":\"t\"{rest}}}"
        ))
        .detail
        {
            Detail::ContextEdit {
                target_id,
                replacement,
            } => {
                assert_eq!(*target_id, Key::Str("t".into()));
                replacement
            }
            _ => unreachable!(),
        };
        assert_eq!(edit(""), Replacement::Missing);
        assert_eq!(edit(r#","replacement":null"#), Replacement::Null);
        assert_eq!(edit(r#","replacement":"x""#), Replacement::NotObject);
        assert_eq!(edit(r#","replacement":[]"#), Replacement::NotObject);
        assert_eq!(
            edit(r#","replacement":{}"#),
            Replacement::Object(Content::Missing)
        );
        assert_eq!(
            edit(r#","replacement":{"content":"s"}"#),
            Replacement::Object(Content::Text)
        );
        assert!(!edit(r#","replacement":{"content":5}"#).is_valid());
        let e = entry(r#"{"type":"compaction","systemMessage":{"role":"system"}}"#);
        assert!(matches!(
            e.detail,
            Detail::Compaction {
                has_system_message: true,
                ..
            }
        ));
        assert_eq!(entry(r#"{"type":"usage"}"#).kind(), EntryType::Usage);
    }

    #[test]
    fn the_type_is_read_from_the_detail() {
        for name in [
            "session",
            "message",
            "thinking_level_change",
            "model_change",
            "compaction",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
            "usage",
            "context_edit",
            "other",
        ] {
            let e = entry(&format!("{{\"type\":\"{name}\"}}"));
            assert_eq!(e.kind(), EntryType::from_name(name), "{name}");
            assert!(e.is_object(), "{name}");
            assert_eq!(e.is_header(), name == "session", "{name}");
        }
        for line in ["{}", r#"{"type":7}"#, "[]", "null"] {
            let e = entry(line);
            assert_eq!(e.kind(), EntryType::Other, "{line}");
            assert_eq!(e.is_object(), line.starts_with('{'), "{line}");
            assert!(!e.is_header());
        }
    }

    #[test]
    fn entries_are_equal_when_every_field_is() {
        // (Equality, clone and debug are written out for the packed entry.)
        let line = r#"{"type":"label","id":"a","parentId":"p","timestamp":"1970-01-01T00:00:01.000Z","targetId":"b","label":"x"}"#;
        let e = entry(line);
        assert_eq!(e.clone(), e);
        for other in [
            line.replace(r#""id":"a""#, r#""id":"c""#),
            line.replace(r#""parentId":"p""#, r#""parentId":"q""#),
            line.replace(":01.000Z", ":02.000Z"),
            line.replace(r#""targetId":"b""#, r#""targetId":"c""#),
            line.replace(r#""type":"label""#, r#""type":"custom""#),
        ] {
            assert_ne!(entry(&other), e, "{other}");
        }
        assert_eq!(
            format!("{e:?}"),
            r#"Entry { kind: Label, id: Str("a"), parent_id: Str("p"), time: 1000.0, detail: Label { target_id: Str("b"), has_label: true } }"#
        );
    }

    #[test]
    fn thin_strings_compare_hash_and_clone_as_their_text() {
        use std::hash::BuildHasher;
        let hash = IdHash::default();
        let (a, b) = (
            Key::from("a-long-id"),
            Key::from(String::from("a-long-id").as_str()),
        );
        assert!(matches!(a, Key::Str(_)));
        assert_eq!(a, b);
        assert_eq!(hash.hash_one(&a), hash.hash_one(&b));
        assert_eq!(a.clone(), a);
        assert_ne!(a, Key::from("a-long-iD"));
        let units = Key::Utf16(vec![0x61, 0xd800].into());
        assert_eq!(units.clone(), units);
        assert_ne!(units, Key::Utf16(vec![0x61, 0xd801].into()));
        assert_eq!(format!("{a:?}"), r#"Str("a-long-id")"#);
        match a {
            Key::Str(s) => assert_eq!(s.into_string(), "a-long-id"),
            _ => unreachable!(),
        }
        let n = Key::number(2.5);
        assert_eq!(n.clone(), n);
        assert_eq!(n.as_number(), Some(2.5));
        assert_eq!(hash.hash_one(&n), hash.hash_one(Key::number(2.5)));
    }

    #[test]
    fn keys_compare_as_js_does() {
        assert_eq!(Key::number(-0.0), Key::number(0.0));
        assert_ne!(Key::Str("1".into()), Key::number(1.0));
        let e = entry(r#"{"id":{},"parentId":{}}"#);
        assert_ne!(e.id, e.parent_id);
    }

    #[test]
    fn only_eight_lowercase_hex_digits_are_held_as_a_word() {
        // (id JSON, held as a word, what JSON.stringify gives back)
        let cases = [
            (r#""0000abcd""#, true, r#""0000abcd""#),
            (r#""\u0030000abcd""#, true, r#""0000abcd""#),
            (r#""00000000""#, true, r#""00000000""#),
            (r#""ffffffff""#, true, r#""ffffffff""#),
            (r#""0000ABCD""#, false, r#""0000ABCD""#),
            (r#""000abcd""#, false, r#""000abcd""#),
            (r#""0000abcd0""#, false, r#""0000abcd0""#),
            (r#""+000abcd""#, false, r#""+000abcd""#),
            (r#"" 000abcd""#, false, r#"" 000abcd""#),
            (r#""0000abc\ud800""#, false, r#""0000abc\ud800""#),
            ("12345678", false, "12345678"),
        ];
        let keys: Vec<Key> = cases
            .iter()
            .map(|(id, hex, back)| {
                let key = entry(&format!("{{\"id\":{id}}}")).id;
                assert_eq!(matches!(key, Key::Hex(_)), *hex, "{id}");
                assert_eq!(key.to_json(), *back, "{id}");
                assert!(key.truthy());
                if let Some(s) = key.as_str() {
                    // The same key however the string was made.
                    assert_eq!(Key::from(&*s), key, "{id}");
                    assert_eq!(key.to_string(), *s);
                }
                key
            })
            .collect();
        // Equal exactly when the strings are: only the escaped form repeats.
        for (a, ka) in keys.iter().enumerate() {
            for (b, kb) in keys.iter().enumerate() {
                assert_eq!(ka == kb, a == b || a + b == 1, "{a} {b}");
            }
        }
    }

    #[test]
    fn versions_read_as_js_to_number() {
        let v = |s: &str| {
            let line = format!("{{\"type\":\"session\",\"version\":{s}}}");
            match entry(&line).detail {
                Detail::Header { version } => *version,
                _ => unreachable!(),
            }
        };
        assert_eq!(v("3"), Some(3.0));
        assert_eq!(v("\" 3 \""), Some(3.0));
        assert_eq!(v("\"0x3\""), Some(3.0));
        assert_eq!(v("\"\""), Some(0.0));
        assert_eq!(v("[3]"), Some(3.0));
        assert_eq!(v("[]"), Some(0.0));
        assert_eq!(v("[[\"2\"]]"), Some(2.0));
        assert!(v("[1,2]").unwrap().is_nan());
        assert!(v("[true]").unwrap().is_nan());
        assert_eq!(v("true"), Some(1.0));
        assert_eq!(v("null"), None);
        assert!(v("\"3a\"").unwrap().is_nan());
        assert!(v("{}").unwrap().is_nan());
    }
}
