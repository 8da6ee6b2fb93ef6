//! Read, branch and append the sessions of the [pi coding agent]: JSONL files
//! whose entries link by `id`/`parentId` into a tree. This crate reads them
//! exactly as pi 1.6.0 does (parsing, the v1/v2 → v3 migration, the tree,
//! `buildSessionContext`, the usage accounting) without pi's failure modes:
//! no hang on a `parentId` cycle, no lost line, no line dropped for a lone
//! surrogate escape.
//!
//! [pi coding agent]: https://www.npmjs.com/package/@earendil-works/pi-coding-agent
//!
//! # Open a session, walk the active branch
//!
//! [`SessionFile`] opens a session from a path ([`SessionFile::open`], with a
//! size cap), bytes, text or any reader. Entries and messages are borrowed,
//! typed views over the text ([`EntryView`], [`MessageView`], [`Block`]);
//! [`EntryView::typed`] gives what each entry kind carries ([`TypedEntry`]:
//! a compaction's summary, a label's target, a model change's model…).
//!
//! ```
//! use session_tree::{Block, SessionFile};
//!
//! let text = concat!(
//!     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
//!     r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"List the files"}}"#, "\n",
//!     r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Running ls."},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":120,"output":30,"cacheRead":0,"cacheWrite":0,"totalTokens":150,"cost":{"total":0.0012}},"stopReason":"toolUse"}}"#, "\n",
//! );
//! let session = SessionFile::from_str(text)?;
//! for entry in session.branch(None)? {
//!     let Some(message) = entry.message() else { continue };
//!     for block in message.content() {
//!         match block {
//!             Block::Text(t) => println!("{}: {t}", message.role().unwrap_or_default()),
//!             Block::ToolCall { name, arguments, .. } => println!("  calls {name} {arguments}"),
//!             _ => {}
//!         }
//!     }
//! }
//! let reply = session.leaf().unwrap().message().unwrap();
//! assert_eq!(reply.model().as_deref(), Some("claude-sonnet-4-5"));
//! assert_eq!(reply.usage().unwrap().output, 30.0);
//! # Ok::<(), session_tree::Error>(())
//! ```
//!
//! # The context at a leaf, and what the session cost
//!
//! [`SessionFile::context`] is what the model sees at a leaf: typed messages,
//! and the exact JSON text pi's `buildSessionContext` gives, to forward
//! ([`SessionFile::projection`] adds the entry each message comes from).
//! [`SessionFile::usage`] totals every paid request as pi 1.6's
//! `getSessionStats` does, and also per branch, fork and leaf.
//!
//! ```
//! # use session_tree::SessionFile;
//! # let text = concat!(
//! #     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#, "\n",
//! #     r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#, "\n",
//! #     r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}],"model":"m","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.5}}}}"#, "\n",
//! # );
//! let session = SessionFile::from_str(text)?;
//! let context = session.context(Some("a1"))?;
//! assert_eq!(context.messages().len(), 2);
//! assert!(context.json().starts_with(r#"{"messages":[{"role":"user""#));
//!
//! let usage = session.usage();
//! assert_eq!(usage.total.input + usage.total.output, 15.0);
//! assert_eq!(usage.total.cost, 0.5);
//! # Ok::<(), session_tree::Error>(())
//! ```
//!
//! # Tail a live file
//!
//! A session being written grows at its end. [`SessionFile::append_bytes`]
//! takes the new bytes from where the last read stopped, cut anywhere: a
//! half-written line waits for the rest.
//!
//! ```
//! # use session_tree::SessionFile;
//! let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
//! let mut session = SessionFile::from_str(&format!("{header}\n"))?;
//! let line = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi"}}"#;
//! let (first, rest) = line.as_bytes().split_at(40);
//! session.append_bytes(first);
//! assert!(session.leaf().is_none()); // the line is not complete yet
//! session.append_bytes(rest);
//! session.append_bytes(b"\n");
//! assert_eq!(session.leaf().unwrap().id().as_deref(), Some("u1"));
//! # Ok::<(), session_tree::Error>(())
//! ```
//!
//! # List a folder
//!
//! [`sessions_dir`] is where pi keeps sessions (`$PI_CODING_AGENT_DIR` or
//! `~/.pi/agent`, then `sessions/--<cwd>--/`); [`list`] reads every file of a
//! folder, on several threads, into what pi's session list shows ([`Info`]),
//! each fork linked to its source. A bad file is an error on its row.
//!
//! ```no_run
//! for row in session_tree::list(session_tree::sessions_dir().unwrap())? {
//!     match row.info {
//!         Ok(Some(info)) => println!("{}  {} messages  {}", row.path.display(), info.message_count, info.cwd),
//!         Ok(None) => println!("{}  (no header)", row.path.display()),
//!         Err(e) => println!("{e}"),
//!     }
//! }
//! # Ok::<(), session_tree::Error>(())
//! ```
//!
//! The `examples/` folder has these as programs: `cargo run --example branch -- FILE`.
//!
//! # Features
//!
//! By default the crate depends on `getrandom` alone (random ids for
//! migrated entries).
//!
//! - **`serde`** (off by default): the `types` module, owned entries and
//!   messages (`FileEntry`, `AgentMessage`, `ContentBlock`, `Usage`…) with
//!   `Deserialize` and `Serialize`, matching the npm package's TypeScript
//!   types; fields they do not name are kept, so a line read and written back
//!   is the same JSON. It adds `serde` and `serde_json`, and
//!   `EntryView::deserialize` / `MessageView::deserialize` to read a view
//!   into them.
//!
//! ```toml
//! session-tree = { version = "0.1", features = ["serde"] }
//! ```
//!
//! The `wasm-bindings` and `test-trap` cfgs belong to `wasm/`, the workspace
//! member that builds the npm package's WebAssembly from these sources;
//! dependents never compile them. MSRV: Rust 1.85.
//!
//! # How the crate is built
//!
//! The core is plain Rust and storage-agnostic: it works on text the host
//! supplies. Values stay byte ranges of that text (the `json` module) so that
//! what a caller finally gets is what `JSON.parse` makes of the same bytes.
//! The wasm bindings (the `wasm` module) are the only place that knows about
//! JS. The modules below the API are public only for the crate's own tools
//! and are hidden from its documentation: they are not part of its semver
//! surface.
//!
//! ## Layers
//!
//! Modules import one way: each uses only modules of lower layers, never one
//! of its own layer or above (tests may use anything). So each layer can be
//! read, and tested, knowing only what is below it. `tests/layers.rs` reads
//! this table and fails on an import against it.
//!
//! ```text
//! 9  folder                     pi's session folders: the layout, a listing with lineage
//! 8  wasm, file, types          the bindings: JS values in and out; the Rust API (SessionFile, serde types)
//! 7  session                    an open session, appended to in place
//! 6  diagnostics, index, session_info  reports over a whole document; a file's entries as byte ranges
//! 5  document, system, usage    a file read once; the prompt and tools a context gives; what it cost
//! 4  tree, context, migrate     pi's algorithms over the entries
//! 3  entry, pieces              what the algorithms read of one entry; lines read a piece at a time
//! 2  parse, preview, time       JSONL lines as pi splits them; an entry cut to named fields; dates as JS reads them
//! 1  json                       JSON as JSON.parse reads it and JSON.stringify writes strings
//! 0  ascii, ids, order, scan    bytes and ids: fast scans, escapes, hex, random ids, a sort
//! ```
//!
//! `time` reads JSON values, so it sits above `json`.

#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

#[doc(hidden)]
pub mod ascii;
#[doc(hidden)]
pub mod context;
#[doc(hidden)]
pub mod diagnostics;
#[doc(hidden)]
pub mod document;
#[doc(hidden)]
pub mod entry;
#[doc(hidden)]
pub mod ids;
#[doc(hidden)]
pub mod index;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod migrate;
#[doc(hidden)]
pub mod order;
#[doc(hidden)]
pub mod parse;
#[doc(hidden)]
pub mod pieces;
#[doc(hidden)]
pub mod preview;
#[doc(hidden)]
pub mod scan;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod session_info;
#[doc(hidden)]
pub mod system;
#[doc(hidden)]
pub mod time;
#[doc(hidden)]
pub mod tree;
#[doc(hidden)]
pub mod usage;

#[cfg(all(target_arch = "wasm32", feature = "wasm-bindings"))]
mod wasm;

#[cfg(test)]
mod tests;

mod file;
mod folder;
#[cfg(feature = "serde")]
pub mod types;

pub use diagnostics::{Diagnostic, Problem};
pub use file::{
    Block, Context, EntryView, Error, Info, MessageView, Node, OpenOptions, ProjectedEntry,
    Projection, Replacement, SessionFile, Tree, TypedEntry, Usage, DEFAULT_MAX_BYTES,
};
pub use folder::{agent_dir, folder_name, list, project_dir, sessions_dir, Listed};
pub use usage::{ByKind, Record, RecordKind, Report, Totals};

#[doc(hidden)]
pub use document::Document;
#[doc(hidden)]
pub use parse::ParseError;
