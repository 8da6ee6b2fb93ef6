//! session-tree: the session tree of the pi coding agent.
//!
//! A pi session is a JSONL file: a `session` header line, then entries linked
//! by `id`/`parentId` into a tree whose current position is a leaf. This crate
//! reads such files exactly as pi 1.6.0 does (`parseSessionEntries`,
//! `migrateToCurrentVersion`, `SessionManager.getTree`, `buildSessionContext`)
//! without pi's failure modes: no hang on `parentId` cycles, no blow-up on
//! duplicate ids, no lost lines.
//!
//! The core is plain Rust and storage-agnostic: it works on text the host
//! supplies. Values stay byte ranges of that text ([`json`]) so that what a
//! caller finally gets is what `JSON.parse` makes of the same bytes. The wasm
//! bindings (the `wasm` module) are the only place that knows about JS.
//!
//! ## Layers
//!
//! Modules import one way: each uses only modules of lower layers, never one
//! of its own layer or above (tests may use anything). So each layer can be
//! read, and tested, knowing only what is below it. `tests/layers.rs` reads
//! this table and fails on an import against it.
//!
//! ```text
//! 8  wasm                       the bindings: JS values in and out, the exports
//! 7  session                    an open session, appended to in place
//! 6  diagnostics, index, session_info  reports over a whole document; a file's entries as byte ranges
//! 5  document, system, usage    a file read once; the prompt and tools a context gives; what it cost
//! 4  tree, context, migrate     pi's algorithms over the entries
//! 3  entry, pieces              what the algorithms read of one entry; lines read a piece at a time
//! 2  parse, time                JSONL lines as pi splits them; dates as JS reads them
//! 1  json                       JSON as JSON.parse reads it and JSON.stringify writes strings
//! 0  ascii, ids, order, scan    bytes and ids: fast scans, escapes, hex, random ids, a sort
//! ```
//!
//! `time` reads JSON values, so it sits above `json`.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod ascii;
pub mod context;
pub mod diagnostics;
pub mod document;
pub mod entry;
pub mod ids;
pub mod index;
pub mod json;
pub mod migrate;
pub mod order;
pub mod parse;
pub mod pieces;
pub mod scan;
pub mod session;
pub mod session_info;
pub mod system;
pub mod time;
pub mod tree;
pub mod usage;

#[cfg(all(target_arch = "wasm32", feature = "wasm-bindings"))]
mod wasm;

#[cfg(test)]
mod tests;

pub use document::Document;
pub use parse::ParseError;
