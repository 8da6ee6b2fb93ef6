//! The crate's public surface is designed, not leaked: this test holds it.
//!
//! The documented API is what the crate root shows: its `pub use` items that
//! are not `#[doc(hidden)]`, the public items of the facade modules
//! (`src/file.rs`, `src/folder.rs`) that define them, and the `types` module
//! of the `serde` feature (`src/types.rs`) (with the core's usage
//! and diagnostics types, which the root re-exports by name). Every `pub mod` of the root is
//! `#[doc(hidden)]`: the core's modules stay reachable for the crate's own
//! tools, outside the semver surface. The listing below is derived from the
//! sources and compared with `tests/public-api.txt`; a change to the API
//! must change that file too, in the same commit, on purpose.
//!
//! (`cargo public-api` needs nightly rustdoc JSON; this reads the two files
//! that define the surface, which a new public module or item must touch.)

use std::fs;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `pub` lines of a source file, outside comments and `#[cfg(test)]` modules,
/// each with the `doc(hidden)` attribute that precedes it, if any.
fn pub_items(source: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut hidden = false;
    let mut impl_of: Option<String> = None;
    let mut cfg_test = false;
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let mut t = line.trim().to_owned();
        // A `pub use a::{..};` over several lines is one item.
        if t.starts_with("pub use") {
            while !t.ends_with(';') {
                let Some(next) = lines.next() else { break };
                t.push(' ');
                t.push_str(next.trim());
            }
        }
        let t = t.as_str();
        if t.starts_with("#[cfg(test)]") {
            cfg_test = true;
            continue;
        }
        if cfg_test && !t.starts_with("#[") {
            if t.ends_with(';') {
                cfg_test = false; // `mod tests;`: the file goes on
                continue;
            }
            break; // an inline test module closes the file
        }
        if t.starts_with("//") {
            continue;
        }
        if t.starts_with("#[doc(hidden)]") {
            hidden = true;
            continue;
        }
        if t.starts_with("#[") {
            continue;
        }
        if line.starts_with("impl") {
            // `impl<'a> EntryView<'a> {`: methods are listed as `EntryView::fn ..`;
            // a trait impl (`impl Display for Error`) is listed whole.
            let mut head = t.trim_start_matches("impl").trim_end_matches('{').trim();
            if head.starts_with('<') {
                head = head[head.find('>').map_or(0, |i| i + 1)..].trim();
            }
            if head.contains(" for ") {
                out.push((false, format!("impl {head}")));
            }
            let ty = head.rsplit(" for ").next().unwrap_or(head);
            impl_of = Some(ty.split('<').next().unwrap_or(ty).trim().to_owned());
            continue;
        }
        if line.starts_with('}') {
            impl_of = None;
        }
        if let Some(rest) = t.strip_prefix("pub ") {
            let sig = if rest.starts_with("use ") {
                rest.trim_end_matches(';')
            } else {
                rest.split(['{', '(', ';', '='])
                    .next()
                    .unwrap_or(rest)
                    .trim()
            };
            let item = match (&impl_of, line.starts_with(' ')) {
                (Some(owner), true) => format!("{owner}::{sig}"),
                _ => sig.to_owned(),
            };
            // Fields of public structs and variants' fields are part of the type.
            out.push((hidden, item));
        }
        hidden = false;
    }
    out
}

fn listing() -> String {
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let file = fs::read_to_string(root().join("src/file.rs")).unwrap();
    let folder = fs::read_to_string(root().join("src/folder.rs")).unwrap();
    let types = fs::read_to_string(root().join("src/types.rs")).unwrap();
    let mut lines = Vec::new();
    for (hidden, item) in pub_items(&lib) {
        if item.starts_with("mod ") {
            assert!(
                hidden || item == "mod types",
                "src/lib.rs: `pub {item}` must be #[doc(hidden)] (or pub(crate)): the API is the root's re-exports \
                 (and `types`, the serde feature's module)"
            );
            continue;
        }
        if !hidden {
            lines.push(format!(
                "lib.rs: pub {}",
                item.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
    }
    // The facade modules; their trait impls (Display, Error, Default) are API too.
    for (name, source) in [
        ("file.rs", &file),
        ("folder.rs", &folder),
        ("types.rs", &types),
    ] {
        for (hidden, item) in pub_items(source) {
            if !hidden {
                let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
                lines.push(format!("{name}: {item}"));
            }
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn the_public_api_is_the_listed_one() {
    let expected_path = root().join("tests/public-api.txt");
    let got = listing();
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        fs::write(&expected_path, &got).unwrap();
    }
    let expected = fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        got == expected,
        "the public API changed. If on purpose, run `UPDATE_PUBLIC_API=1 cargo test --test public_api` \
         and commit tests/public-api.txt. Now:\n{got}"
    );
}

#[test]
fn no_internal_module_is_documented() {
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let shown: Vec<String> = pub_items(&lib)
        .into_iter()
        .filter(|(hidden, item)| !hidden && item.starts_with("mod ") && item != "mod types")
        .map(|(_, item)| item)
        .collect();
    assert!(shown.is_empty(), "public modules: {shown:?}");
    for internal in [
        "scan", "ascii", "ids", "order", "json", "parse", "pieces", "index",
    ] {
        let line = format!("pub mod {internal};");
        let at = lib.find(&line).unwrap_or_else(|| panic!("{line}"));
        assert!(
            lib[..at].trim_end().ends_with("#[doc(hidden)]"),
            "{internal} is documented"
        );
    }
}
