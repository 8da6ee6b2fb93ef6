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
    std::panic::set_hook(Box::new(report_panic));
    host::install_number_host();
    host::install_random_source();
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// A panic is a bug (errors are thrown as values): `console.error` says
/// where it happened and why, as `panicked at src/x.rs:1:2:` and the message,
/// before the trap becomes the caller's Error (whose `cause` has the stack).
/// Written by hand rather than with `console_error_panic_hook`, whose
/// `Display` of the panic and JS stack lookup cost 2.4 KB of wasm.
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let mut s = String::from("panicked at ");
    if let Some(at) = info.location() {
        s.push_str(at.file());
        for n in [at.line(), at.column()] {
            s.push(':');
            push_decimal(&mut s, n);
        }
    }
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    if let Some(message) = message {
        s.push_str(":\n");
        s.push_str(message);
    }
    console_error(&s);
}

/// `n`'s decimal digits, without core's formatter.
fn push_decimal(s: &mut String, n: u32) {
    if n >= 10 {
        push_decimal(s, n / 10);
    }
    s.push(char::from(b'0' + (n % 10) as u8));
}

/// Where the shadow stack is, for `recover.js`: between calls it is always at
/// the same place, unless an error the engine threw inside the module (a JS
/// stack overflow, memory running out in the glue) unwound its frames, which
/// leaves their part of the shadow stack and their borrows (a `Session`'s
/// included) behind. The wrapper then replaces the instance, as after a trap.
#[wasm_bindgen(js_name = __stackMark, skip_typescript)]
pub fn stack_mark() -> u32 {
    let here = 0u8;
    std::hint::black_box(&here) as *const u8 as usize as u32
}

/// Test builds only (`--features test-trap`): traps, to test the recovery.
#[cfg(feature = "test-trap")]
#[wasm_bindgen(js_name = __forceTrap, skip_typescript)]
pub fn force_trap() {
    panic!("a trap forced by a test");
}
