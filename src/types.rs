//! Owned entries and messages with `serde`'s `Deserialize` and `Serialize`
//! (feature `serde`): the TypeScript types of the npm package's `index.d.ts`
//! as Rust types, for programs that want their own copy of an entry, to
//! store, send or build one.
//!
//! Nothing is lost between a line and these types: every field the types do
//! not name is kept in the `extra` map of its object and written back, an
//! entry `type`, message `role` or block `type` they do not know is kept
//! whole as `Other`, and integers up to 2^53 are written as `JSON.stringify`
//! writes them (`1767225600000`, not `1767225600000.0`); other numbers are
//! written as `serde_json` writes a float, the same value in other digits
//! where JS differs (`1e+20` for JS's `100000000000000000000`). So
//! deserializing a line and serializing the result gives the same JSON value
//! (key order aside).
//!
//! What the types cannot hold is an error, never a silent change: a known
//! field with a value of another type (a `null` where a string is due
//! included), or a lone surrogate escape (`"\ud800"`, which `serde_json`
//! refuses; [`crate::EntryView::deserialize`] replaces it with U+FFFD, as the
//! views' lossy decode does). The borrowed views ([`crate::EntryView`]) read
//! every line, whatever its shape.
//!
//! Fields that pi always writes but older or hand-made files may lack (a
//! message's `timestamp`, an assistant message's `usage`) are `Option`s. A
//! number field that holds `null` reads as NaN and is written back as
//! `null`, as `JSON.stringify` writes NaN.
//!
//! ```
//! use session_tree::types::{AgentMessage, Content, FileEntry};
//!
//! let line = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1767225601000,"mood":"curious"}}"#;
//! let entry: FileEntry = serde_json::from_str(line)?;
//! let FileEntry::Message(m) = &entry else { panic!() };
//! let AgentMessage::User(user) = &m.message else { panic!() };
//! assert_eq!(user.content, Content::Text("Hi".into()));
//! assert_eq!(user.extra["mood"], "curious"); // a field the type does not name
//! assert_eq!(serde_json::to_string(&entry)?.len(), line.len());
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fields of an object that its type does not name, in key order.
pub type Extra = Map<String, Value>;

// --- entries -------------------------------------------------------------------

/// Any line of a session file: the header or one of the eleven entry types
/// (`index.d.ts`'s `FileEntry`), or an entry of a type these types do not know.
// Unboxed variants, so that a match reads as the TypeScript union does; an
// entry is one line, and a message's strings are on the heap anyway.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FileEntry {
    /// `type: "session"`, the first line.
    Session(SessionHeader),
    /// `type: "message"`.
    Message(MessageEntry),
    /// `type: "thinking_level_change"`.
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `type: "model_change"`.
    ModelChange(ModelChangeEntry),
    /// `type: "compaction"`.
    Compaction(CompactionEntry),
    /// `type: "branch_summary"`.
    BranchSummary(BranchSummaryEntry),
    /// `type: "usage"` (pi 1.6).
    Usage(UsageEntry),
    /// `type: "context_edit"` (pi 1.6).
    ContextEdit(ContextEditEntry),
    /// `type: "custom"`.
    Custom(CustomEntry),
    /// `type: "custom_message"`.
    CustomMessage(CustomMessageEntry),
    /// `type: "label"`.
    Label(LabelEntry),
    /// `type: "session_info"`.
    SessionInfo(SessionInfoEntry),
    /// Any other `type` (or none, or a line that is not an object): as it is.
    Other(Value),
}

impl FileEntry {
    /// The `type` this entry is written with.
    pub fn kind(&self) -> Option<&str> {
        self.tag()
    }

    /// The fields every tree entry has; `None` for the header and unknown types.
    pub fn base(&self) -> Option<&EntryBase> {
        match self {
            FileEntry::Message(e) => Some(&e.base),
            FileEntry::ThinkingLevelChange(e) => Some(&e.base),
            FileEntry::ModelChange(e) => Some(&e.base),
            FileEntry::Compaction(e) => Some(&e.base),
            FileEntry::BranchSummary(e) => Some(&e.base),
            FileEntry::Usage(e) => Some(&e.base),
            FileEntry::ContextEdit(e) => Some(&e.base),
            FileEntry::Custom(e) => Some(&e.base),
            FileEntry::CustomMessage(e) => Some(&e.base),
            FileEntry::Label(e) => Some(&e.base),
            FileEntry::SessionInfo(e) => Some(&e.base),
            FileEntry::Session(_) | FileEntry::Other(_) => None,
        }
    }

    /// The entry's `id` (the session id for the header; a string `id` of an unknown type).
    pub fn id(&self) -> Option<&str> {
        match self {
            FileEntry::Session(h) => Some(&h.id),
            FileEntry::Other(o) => o.get("id").and_then(Value::as_str),
            _ => self.base().map(|b| b.id.as_str()),
        }
    }

    /// The entry's `parentId`: `None` for a root, the header, or an unknown
    /// entry without a string `parentId`.
    pub fn parent_id(&self) -> Option<&str> {
        match self {
            FileEntry::Other(o) => o.get("parentId").and_then(Value::as_str),
            _ => self.base().and_then(|b| b.parent_id.as_deref()),
        }
    }
}

/// The first line of a session file (`SessionHeader`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionHeader {
    /// The format version; absent means 1. The current version is 3.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub version: Option<f64>,
    /// The session's UUID.
    pub id: String,
    /// When the session was created (ISO 8601).
    pub timestamp: String,
    /// The session's working directory.
    pub cwd: String,
    /// The session file this one was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub parent_session: Option<String>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The fields every entry of the tree has (`SessionEntryBase`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EntryBase {
    /// The entry's id (8 hex digits in files pi writes).
    pub id: String,
    /// Its parent's id; `None` (`null`) for a root.
    #[serde(with = "nullable")]
    pub parent_id: Option<String>,
    /// When it was written (ISO 8601).
    pub timestamp: String,
}

/// A conversation message (`SessionMessageEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MessageEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The message.
    pub message: AgentMessage,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The thinking level changed (`ThinkingLevelChangeEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThinkingLevelChangeEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// `off`, `low`, `high`…
    pub thinking_level: String,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The model changed (`ModelChangeEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelChangeEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The provider (`anthropic`, `openai`…).
    pub provider: String,
    /// The model's id at that provider.
    pub model_id: String,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Earlier context was summarized (`CompactionEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompactionEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The summary the model sees instead of what it replaces.
    pub summary: String,
    /// The first entry on the path still sent after the summary.
    pub first_kept_entry_id: String,
    /// The context's size in tokens before the compaction.
    #[serde(with = "num")]
    pub tokens_before: f64,
    /// Implementation- or extension-specific data.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub details: Option<Value>,
    /// What producing the summary cost.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub usage: Option<Usage>,
    /// Whether an extension produced the compaction.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub from_hook: Option<bool>,
    /// The system prompt and tools at the compaction (pi 1.6).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub system_message: Option<AgentMessage>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A summary of a branch left behind (`BranchSummaryEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BranchSummaryEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The entry the abandoned branch ended at (older files: the entry
    /// branched from); `"root"` for none.
    pub from_id: String,
    /// The summary.
    pub summary: String,
    /// Implementation- or extension-specific data.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub details: Option<Value>,
    /// What producing the summary cost.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub usage: Option<Usage>,
    /// Whether an extension produced the summary.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub from_hook: Option<bool>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Tokens used outside a message, such as to keep a cache warm (`UsageEntry`, pi 1.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UsageEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// What the usage was for (`cache_warm`…).
    pub kind: String,
    /// The provider billed.
    pub provider: String,
    /// The model used.
    pub model: String,
    /// The tokens and their cost.
    pub usage: Usage,
    /// A qualifier for display.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub note: Option<String>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Changes what the model sees of an earlier entry (`ContextEditEntry`, pi 1.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextEditEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The entry edited.
    pub target_id: String,
    /// `None` (`null`) leaves the target out of the context; otherwise
    /// its content replaces the target's.
    #[serde(with = "nullable")]
    pub replacement: Option<Replacement>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What a [`ContextEditEntry`] puts in place of its target's content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Replacement {
    /// The new content.
    pub content: Content,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Extension state, never part of the context (`CustomEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The extension's name for it.
    pub custom_type: String,
    /// The extension's data (`Some(Value::Null)` for `null`).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub data: Option<Value>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A message injected by an extension (`CustomMessageEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomMessageEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The extension's name for it.
    pub custom_type: String,
    /// What the model sees.
    pub content: Content,
    /// Whether pi's TUI shows it.
    pub display: bool,
    /// Extension data, not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub details: Option<Value>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Sets (or, empty or absent, clears) the label of an entry (`LabelEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LabelEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The entry labelled.
    pub target_id: String,
    /// The label.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub label: Option<String>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Session metadata such as its name (`SessionInfoEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionInfoEntry {
    /// `id`, `parentId`, `timestamp`.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The session's display name.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub name: Option<String>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

// --- messages ------------------------------------------------------------------

/// Any message of a session or a context (`AgentMessage`), by its `role`.
// Unboxed variants, so that a match reads as the TypeScript union does; an
// entry is one line, and a message's strings are on the heap anyway.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AgentMessage {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
    /// `role: "bashExecution"`.
    BashExecution(BashExecutionMessage),
    /// `role: "custom"`.
    Custom(CustomMessage),
    /// `role: "branchSummary"` (made by the context for a branch summary).
    BranchSummary(BranchSummaryMessage),
    /// `role: "compactionSummary"` (made by the context for a compaction).
    CompactionSummary(CompactionSummaryMessage),
    /// `role: "system"` (pi 1.6).
    System(SystemMessage),
    /// Any other `role` (or none, or a message that is not an object): as it is.
    Other(Value),
}

impl AgentMessage {
    /// The `role` this message is written with.
    pub fn role(&self) -> Option<&str> {
        self.tag()
    }
}

/// A prompt typed by the user (`UserMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UserMessage {
    /// The prompt: text, or text and image blocks.
    pub content: Content,
    /// Unix time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A model's response (`AssistantMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AssistantMessage {
    /// Text, thinking and tool call blocks.
    pub content: Vec<ContentBlock>,
    /// The API spoken (`anthropic-messages`…).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub api: Option<String>,
    /// The provider (`anthropic`, `openai`…).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub provider: Option<String>,
    /// The model asked for.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub model: Option<String>,
    /// The model that answered, when the provider names it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub response_model: Option<String>,
    /// The provider's id of the response.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub response_id: Option<String>,
    /// The thinking level pi asked for.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub thinking_level: Option<String>,
    /// The provider's own name for the effort level it used.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub provider_thinking_level: Option<String>,
    /// Tokens and cost.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub usage: Option<Usage>,
    /// `stop`, `length`, `toolUse`, `error`, `aborted`, `pending`, `deferred`…
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub stop_reason: Option<String>,
    /// How to fetch a deferred response later.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub deferred: Option<Value>,
    /// What went wrong (`stopReason: "error"`).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub error_message: Option<String>,
    /// The stop reason as the provider gave it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub raw_stop_reason: Option<String>,
    /// Whether the provider said the model ended its turn.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub end_turn: Option<bool>,
    /// Unix time in milliseconds when the request started.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Milliseconds from `timestamp` to the end of the response.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub duration_ms: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of a tool call (`ToolResultMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultMessage {
    /// The id of the call answered.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Text and image blocks.
    pub content: Vec<ContentBlock>,
    /// Tool-specific data, not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub details: Option<Value>,
    /// What the tool itself used.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub usage: Option<Usage>,
    /// The calls the tool made to other tools.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub nested_calls: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub is_error: Option<bool>,
    /// Unix time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// How long the tool ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub duration_ms: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A shell command the user ran with `!` (`BashExecutionMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BashExecutionMessage {
    /// The command line.
    pub command: String,
    /// What it printed.
    pub output: String,
    /// Its exit code; NaN for `null` (a process ended by a signal).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub exit_code: Option<f64>,
    /// Whether it was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub cancelled: Option<bool>,
    /// Whether the output was truncated.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub truncated: Option<bool>,
    /// Where the whole output was saved.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub full_output_path: Option<String>,
    /// True for `!!` commands, which the model never sees.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub exclude_from_context: Option<bool>,
    /// Unix time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A message injected by an extension (`CustomMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CustomMessage {
    /// The extension's name for it.
    pub custom_type: String,
    /// What the model sees.
    pub content: Content,
    /// Whether pi's TUI shows it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub display: Option<bool>,
    /// Extension data, not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub details: Option<Value>,
    /// Unix time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A branch summary as the context gives it (`BranchSummaryMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BranchSummaryMessage {
    /// The summary.
    pub summary: String,
    /// The entry the abandoned branch ended at.
    pub from_id: String,
    /// Unix time in milliseconds (NaN for `null`: an unreadable entry timestamp).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A compaction's summary as the context gives it (`CompactionSummaryMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompactionSummaryMessage {
    /// The summary.
    pub summary: String,
    /// The context's size in tokens before the compaction.
    #[serde(with = "num")]
    pub tokens_before: f64,
    /// Unix time in milliseconds (NaN for `null`: an unreadable entry timestamp).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The system prompt and tools from here on (`SystemMessage`, pi 1.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SystemMessage {
    /// The base prompt (first message) or instructions added to it.
    pub content: Content,
    /// Named prompt sections, set or (with `null`) removed by name.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub sections: Option<Map<String, Value>>,
    /// Tools that become available here.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub tools_added: Option<Vec<ToolDeclaration>>,
    /// Tools that stop being available here (`{name}` objects).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub tools_removed: Option<Vec<Value>>,
    /// Unix time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub timestamp: Option<f64>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool as the model is told about it (`ToolDeclaration`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDeclaration {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub parameters: Option<Value>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

// --- content -------------------------------------------------------------------

/// A message's content: a string, or blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

/// One block of a message's content, by its `type`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `type: "text"`.
    Text(TextContent),
    /// `type: "thinking"`.
    Thinking(ThinkingContent),
    /// `type: "toolCall"`.
    ToolCall(ToolCall),
    /// `type: "image"`.
    Image(ImageContent),
    /// Any other block: as it is.
    Other(Value),
}

impl ContentBlock {
    /// The `type` this block is written with.
    pub fn kind(&self) -> Option<&str> {
        self.tag()
    }
}

/// A block of text (`TextContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The model's reasoning (`ThinkingContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ThinkingContent {
    /// The reasoning text.
    pub thinking: String,
    /// Fields the type does not name (such as a signature).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool call the model asked for (`ToolCall`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id, which its result names.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments (an object in files pi writes).
    pub arguments: Value,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An image, base64 encoded (`ImageContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// Base64 data, without a `data:` prefix.
    pub data: String,
    /// `image/png`…
    pub mime_type: String,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Token counts and cost of a request (`Usage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens.
    #[serde(with = "num")]
    pub input: f64,
    /// Output tokens.
    #[serde(with = "num")]
    pub output: f64,
    /// Tokens read from the cache.
    #[serde(with = "num")]
    pub cache_read: f64,
    /// Tokens written to the cache.
    #[serde(with = "num")]
    pub cache_write: f64,
    /// The part of `cacheWrite` kept for an hour, where the provider says.
    #[serde(
        rename = "cacheWrite1h",
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_num"
    )]
    pub cache_write_1h: Option<f64>,
    /// Reasoning tokens (a part of `output`), where the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_num")]
    pub reasoning: Option<f64>,
    /// `totalTokens` as written.
    #[serde(with = "num")]
    pub total_tokens: f64,
    /// The cost in dollars.
    pub cost: Cost,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The cost of a request in dollars (`Usage.cost`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Cost {
    /// For the input tokens.
    #[serde(with = "num")]
    pub input: f64,
    /// For the output tokens.
    #[serde(with = "num")]
    pub output: f64,
    /// For the tokens read from the cache.
    #[serde(with = "num")]
    pub cache_read: f64,
    /// For the tokens written to the cache.
    #[serde(with = "num")]
    pub cache_write: f64,
    /// In all.
    #[serde(with = "num")]
    pub total: f64,
    /// Whether `total` is what the provider billed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub total_from_provider: Option<bool>,
    /// Fields the type does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

// --- the tagged unions ------------------------------------------------------------

/// `map` (its `tag` key removed) read as `T`; an error names what was read.
fn variant<T: DeserializeOwned, E: de::Error>(
    mut map: Map<String, Value>,
    tag: &str,
    what: &str,
) -> Result<T, E> {
    let name = map.remove(tag);
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        let name = name.as_ref().and_then(Value::as_str).unwrap_or_default();
        E::custom(format_args!("{what} `{name}`: {e}"))
    })
}

/// Writes `inner`'s fields after `tag: name`.
fn tagged<S: Serializer, T: Serialize>(
    s: S,
    tag: &'static str,
    name: &'static str,
    inner: &T,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    // Through a map of the inner value's own fields: `inner` is a struct with
    // a flattened `extra`, so it writes as a map.
    let Value::Object(fields) = serde_json::to_value(inner).map_err(serde::ser::Error::custom)?
    else {
        return Err(serde::ser::Error::custom("a variant is an object"));
    };
    let mut map = s.serialize_map(Some(fields.len() + 1))?;
    map.serialize_entry(tag, name)?;
    for (k, v) in &fields {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

/// The serde impls of a union tagged by `$tag`: each `$name` reads as its
/// variant's struct (an error names the union and the tag), anything else
/// (another tag, none, a value that is not an object) as `Other`, whole.
macro_rules! tagged_union {
    ($union:ident, $tag:literal, $what:literal, { $($variant:ident => $name:literal,)* }) => {
        impl $union {
            fn tag(&self) -> Option<&str> {
                match self {
                    $($union::$variant(_) => Some($name),)*
                    $union::Other(v) => v.get($tag).and_then(Value::as_str),
                }
            }
        }

        impl<'de> Deserialize<'de> for $union {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let map = match Value::deserialize(d)? {
                    Value::Object(map) => map,
                    other => return Ok($union::Other(other)),
                };
                Ok(match map.get($tag).and_then(Value::as_str) {
                    $(Some($name) => $union::$variant(variant(map, $tag, $what)?),)*
                    _ => $union::Other(Value::Object(map)),
                })
            }
        }

        impl Serialize for $union {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $($union::$variant(v) => tagged(s, $tag, $name, v),)*
                    $union::Other(v) => v.serialize(s),
                }
            }
        }
    };
}

tagged_union!(FileEntry, "type", "an entry of type", {
    Session => "session",
    Message => "message",
    ThinkingLevelChange => "thinking_level_change",
    ModelChange => "model_change",
    Compaction => "compaction",
    BranchSummary => "branch_summary",
    Usage => "usage",
    ContextEdit => "context_edit",
    Custom => "custom",
    CustomMessage => "custom_message",
    Label => "label",
    SessionInfo => "session_info",
});

tagged_union!(AgentMessage, "role", "a message of role", {
    User => "user",
    Assistant => "assistant",
    ToolResult => "toolResult",
    BashExecution => "bashExecution",
    Custom => "custom",
    BranchSummary => "branchSummary",
    CompactionSummary => "compactionSummary",
    System => "system",
});

tagged_union!(ContentBlock, "type", "a content block of type", {
    Text => "text",
    Thinking => "thinking",
    ToolCall => "toolCall",
    Image => "image",
});

// --- field codecs ----------------------------------------------------------------

/// A number as JS holds it: `null` reads as NaN; written as `JSON.stringify`
/// writes it where the two agree (an integer up to 2^53 without `.0`, NaN and
/// infinities as `null`), otherwise as `serde_json` writes the same f64.
mod num {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
        const SAFE: f64 = 9_007_199_254_740_992.0; // 2^53
        if !n.is_finite() {
            s.serialize_none()
        } else if n.fract() == 0.0 && n.abs() <= SAFE {
            s.serialize_i64(*n as i64)
        } else {
            s.serialize_f64(*n)
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// An optional [`num`]: absent is `None`.
mod opt_num {
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(n: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match n {
            Some(n) => super::num::serialize(n, s),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        super::num::deserialize(d).map(Some)
    }
}

/// An optional field: absent is `None`, and `null` is not absent. For a
/// [`serde_json::Value`] it is `Some(Value::Null)`; for any other type an
/// error (so a `null` is never dropped on the way back).
mod present {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer, T: Serialize>(
        v: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        T::deserialize(d).map(Some)
    }
}

/// A field that must be there and may be `null` (`parentId`, `replacement`).
mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer, T: Serialize>(
        v: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        Option::<T>::deserialize(d)
    }
}

#[cfg(test)]
mod mutant_tests;
