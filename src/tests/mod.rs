//! Tests across the whole core, in no layer (tests may use any module).
//! They live in the crate, not in `tests/`, because they drive internals
//! that are not part of the public API.

mod line_runs;
mod migrate_stream;
mod properties;
#[cfg(feature = "serde")]
mod serde_roundtrip;
