//! The JS boundary: argument checks, conversions, and delegation to the core.
//!
//! JSONL text goes into the core as a Rust string; what comes back is built
//! with one `JSON.parse` of text the core sliced from the input, so values are
//! exactly what `JSON.parse` makes of the same lines. Entry arrays are read
//! property by property (only the fields the core needs) and answered with the
//! caller's own objects. Every failure is a thrown JS error: nothing here
//! panics, so the module stays usable after any error.
//!
//! - [`error`]: the calling function's name ([`error::Api`]) and the errors it throws;
//! - [`read`]: the one reader of `source` and `options` arguments;
//! - [`convert`]: JS values to core facts and core output to JS values;
//! - [`host`]: what the core asks of the host (dates, sibling sort, clock, random ids);
//! - [`js`]: the JavaScript the bindings call (`helpers.js`);
//! - one file per group of exports: [`parse`] (`parseSession`, `migrate`,
//!   `countEntries`), [`tree`] (`getTree`), [`context`] (`buildSessionContext`,
//!   `buildContextEntries`, `buildSessionProjection`, `currentSystemMessage`),
//!   [`inspect`] (`inspectSession`, `sessionInfo`), [`session`] (`Session`),
//!   [`usage`] (`sessionUsage`).

mod context;
mod convert;
mod error;
mod host;
mod inspect;
mod js;
mod parse;
mod read;
mod session;
mod tree;
mod usage;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
    host::install_number_host();
}

/// Test builds only (`--features test-trap`): traps, to test the recovery.
#[cfg(feature = "test-trap")]
#[wasm_bindgen(js_name = __forceTrap, skip_typescript)]
pub fn force_trap() {
    panic!("a trap forced by a test");
}
