//! session-tree: the session tree of the pi coding agent.
//!
//! A pi session is a JSONL file: a `session` header line, then entries linked
//! by `id`/`parentId` into a tree whose current position is a leaf. This crate
//! reads such files exactly as pi 0.73.1 does (`parseSessionEntries`,
//! `migrateToCurrentVersion`, `SessionManager.getTree`, `buildSessionContext`)
//! without pi's failure modes: no hang on `parentId` cycles, no blow-up on
//! duplicate ids, no lost lines.
//!
//! The core is plain Rust and storage-agnostic: it works on text the host
//! supplies. Values stay byte ranges of that text ([`json`]) so that what a
//! caller finally gets is what `JSON.parse` makes of the same bytes. The wasm
//! bindings (`src/wasm.rs`) are the only place that knows about JS.

pub mod ascii;
pub mod context;
pub mod diagnostics;
pub mod document;
pub mod entry;
pub mod ids;
pub mod json;
pub mod migrate;
pub mod parse;
pub mod scan;
pub mod session;
pub mod session_info;
pub mod time;
pub mod tree;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use document::Document;
pub use parse::ParseError;
