//! The errors the bindings throw. Each export makes one [`Api`] with its name
//! at the top, and every message it throws starts with that name.

use std::fmt::Display;

use wasm_bindgen::{JsCast, JsValue};

use super::js::is_array;
use crate::session::SessionError;

/// The exported function (or method) a call came in through, named as JS sees it.
#[derive(Clone, Copy)]
pub(super) struct Api(pub &'static str);

// Errors are the cold path: each is built in one `#[cold]` body that takes
// `&dyn Display`, not in a copy inlined into every caller for every message
// type (the module's size, `make build`'s 150 KB target).
impl Api {
    /// `TypeError: <name>: <message>`.
    pub fn type_error(self, message: impl Display) -> JsValue {
        self.type_error_dyn(&message)
    }

    #[cold]
    #[inline(never)]
    fn type_error_dyn(self, message: &dyn Display) -> JsValue {
        js_sys::TypeError::new(&format!("{}: {message}", self.0)).into()
    }

    /// `Error: <name>: <message>`.
    pub fn error(self, message: impl Display) -> JsValue {
        self.error_dyn(&message)
    }

    #[cold]
    #[inline(never)]
    fn error_dyn(self, message: &dyn Display) -> JsValue {
        js_sys::Error::new(&format!("{}: {message}", self.0)).into()
    }

    /// `RangeError: <name>: <message>`.
    pub fn range_error(self, message: impl Display) -> JsValue {
        self.range_error_dyn(&message)
    }

    #[cold]
    #[inline(never)]
    fn range_error_dyn(self, message: &dyn Display) -> JsValue {
        js_sys::RangeError::new(&format!("{}: {message}", self.0)).into()
    }

    /// `TypeError: <name>: <what> must be <expected>, got <what it was>`.
    #[cold]
    #[inline(never)]
    pub fn must_be(self, what: &str, expected: &str, got: &JsValue) -> JsValue {
        self.type_error(format_args!(
            "{what} must be {expected}, got {}",
            describe(got)
        ))
    }

    /// `JSON.stringify` threw on `what`. Its own errors (a `TypeError` for a
    /// cycle or a `BigInt`, a `RangeError` for nesting deeper than its stack)
    /// become the same class of error, named for this function and what it
    /// was given, with the engine's error as its `cause`; anything else was
    /// thrown by the value's own code (a `toJSON`, a getter) and is the
    /// caller's to see as thrown.
    #[cold]
    #[inline(never)]
    pub fn unwritable(self, what: &dyn Display, cause: JsValue) -> JsValue {
        let range = cause.is_instance_of::<js_sys::RangeError>();
        if !range && !cause.is_instance_of::<js_sys::TypeError>() {
            return cause;
        }
        let reason = cause
            .dyn_ref::<js_sys::Error>()
            .map_or_else(String::new, |e| String::from(e.message()));
        let message = format!("{}: {what} cannot be written as JSON ({reason})", self.0);
        let error: js_sys::Error = if range {
            js_sys::RangeError::new(&message).into()
        } else {
            js_sys::TypeError::new(&message).into()
        };
        // `cause` says where in the value it failed (V8 names the property
        // that closes a cycle).
        let _ = js_sys::Reflect::set(&error, &"cause".into(), &cause);
        error.into()
    }

    /// `v` as a string, or [`Api::must_be`] a string.
    #[inline(never)]
    pub fn string(self, what: &str, v: &JsValue) -> Result<String, JsValue> {
        v.as_string()
            .ok_or_else(|| self.must_be(what, "a string", v))
    }

    /// The crypto source failed while new ids were drawn.
    #[cold]
    #[inline(never)]
    pub fn no_random(self, e: getrandom::Error) -> JsValue {
        self.error(format_args!(
            "no cryptographic random source for new ids ({e})"
        ))
    }

    /// A core session error: what pi also refuses is said in pi's own words
    /// (a missing entry, an invalid session id, a refused context edit), a
    /// crypto failure under the function's name.
    #[cold]
    #[inline(never)]
    pub fn session(self, e: SessionError) -> JsValue {
        match e {
            SessionError::Random(_) => self.error(e),
            SessionError::NotFound(_)
            | SessionError::InvalidSessionId
            | SessionError::NotOnBranch(_)
            | SessionError::NotEditable(_)
            | SessionError::InvalidReplacement => js_sys::Error::new(&e.to_string()).into(),
        }
    }
}

/// What a value is, for messages: `null`, `an array`, or its `typeof`.
pub(super) fn describe(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if is_array(v).unwrap_or(false) {
        "an array".into()
    } else {
        v.js_typeof()
            .as_string()
            .unwrap_or_else(|| "unknown".into())
    }
}
