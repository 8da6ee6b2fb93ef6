//! The core's modules import one way only: each module may use modules of
//! lower layers, never its own layer or a higher one.
//!
//! The layers are the table in the crate doc (`src/lib.rs`, under "Layers"),
//! so the doc and this check cannot drift apart. Every file under `src/` is
//! read (a folder `src/m/` belongs to module `m`; `src/tests/`, the
//! cross-module tests, to none); test code (items marked
//! `#[cfg(test)]`), comments and string literals are left out; and every
//! `crate::` path, `use crate::{..}` group and `super::` path that climbs out
//! of its module is resolved to the top-level module it names.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Module name → layer (0 is the bottom).
type Layers = HashMap<String, usize>;

/// An import from a layer a module may not use.
#[derive(Debug, PartialEq)]
struct Violation {
    line: usize,
    path: String,
    target: String,
}

#[test]
fn modules_import_only_from_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(root.join("lib.rs")).expect("src/lib.rs");
    let layers = layers_from_doc(&lib).unwrap_or_else(|e| panic!("src/lib.rs: {e}"));
    let reexports = root_reexports(&lib);
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for file in rust_files(&root) {
        let rel = file.strip_prefix(&root).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if parts.len() == 1 && (parts[0] == "lib.rs" || parts[0] == "main.rs") {
            continue;
        }
        // src/tests/: the crate's cross-module tests, in no layer.
        if parts[0] == "tests" {
            continue;
        }
        let module = module_path(&parts);
        let shown = format!("src/{}", parts.join("/"));
        let Some(&rank) = layers.get(&module[0]) else {
            problems.push(format!(
                "{shown}: module `{}` is in no layer of the table in src/lib.rs",
                module[0]
            ));
            continue;
        };
        seen.push(module[0].clone());
        let source = fs::read_to_string(&file).expect("readable source");
        for v in violations(&module, &source, &layers, &reexports) {
            problems.push(describe(&shown, &module[0], rank, &v, &layers));
        }
    }
    for name in layers.keys() {
        if !seen.contains(name) {
            problems.push(format!(
                "src/lib.rs: the layer table names `{name}`, which has no file under src/"
            ));
        }
    }
    problems.sort();
    assert!(
        problems.is_empty(),
        "imports against the layer order (see \"Layers\" in src/lib.rs):\n{}",
        problems.join("\n")
    );
}

fn describe(file: &str, module: &str, rank: usize, v: &Violation, layers: &Layers) -> String {
    match layers.get(&v.target) {
        Some(&to) => format!(
            "{file}:{}: `{}` imports `{}` from `{}` (layer {to}), but `{module}` is in layer {rank}: \
             a module may use only lower layers",
            v.line, module, v.path, v.target
        ),
        None => format!(
            "{file}:{}: `{}` names `{}`, which is no module of the layer table",
            v.line, module, v.path
        ),
    }
}

/// The module path of a file below `src/`: `a.rs` is `[a]`, `w/mod.rs` is
/// `[w]`, `w/x.rs` is `[w, x]`.
fn module_path(parts: &[String]) -> Vec<String> {
    let mut path: Vec<String> = parts.to_vec();
    let last = path.pop().unwrap();
    if last != "mod.rs" {
        path.push(last.trim_end_matches(".rs").to_owned());
    }
    path
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("readable src/")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The table in the crate doc: in the `text` block after the "Layers"
/// heading, lines `N  a, b, c  what they are`.
fn layers_from_doc(lib: &str) -> Result<Layers, String> {
    let doc: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .map(str::trim)
        .collect();
    let heading = doc
        .iter()
        .position(|l| l.trim_start_matches('#').trim() == "Layers")
        .ok_or("no \"Layers\" heading in the crate doc")?;
    let open = doc[heading..]
        .iter()
        .position(|l| *l == "```text")
        .ok_or("no ```text block after \"Layers\"")?
        + heading;
    let mut layers = Layers::new();
    for line in doc[open + 1..].iter().take_while(|l| **l != "```") {
        let mut words = line.split_whitespace();
        let Some(rank) = words.next().and_then(|w| w.parse::<usize>().ok()) else {
            return Err(format!("a layer line without its number: {line:?}"));
        };
        for word in words {
            let name = word.trim_end_matches(',');
            if layers.insert(name.to_owned(), rank).is_some() {
                return Err(format!("`{name}` is in two layers"));
            }
            if !word.ends_with(',') {
                break;
            }
        }
    }
    if layers.is_empty() {
        return Err("the layer table is empty".into());
    }
    Ok(layers)
}

/// Items the crate root re-exports (`pub use m::Item;`): `crate::Item` is `m`'s.
fn root_reexports(lib: &str) -> HashMap<String, String> {
    let code = strip(lib);
    let mut out = HashMap::new();
    for stmt in code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim().trim_start_matches("crate::");
        if let Some((module, item)) = rest.split_once("::") {
            let item = item.rsplit("::").next().unwrap_or(item).trim();
            out.insert(item.to_owned(), module.trim().to_owned());
        }
    }
    out
}

/// The imports of `source` (the file of module `module`) that break the layers.
fn violations(
    module: &[String],
    source: &str,
    layers: &Layers,
    reexports: &HashMap<String, String>,
) -> Vec<Violation> {
    let code = strip(source);
    let own = &module[0];
    let rank = layers[own];
    let mut out = Vec::new();
    for (at, path) in crate_paths(&code, module.len()) {
        let first = path.split("::").next().unwrap_or("").to_owned();
        let target = if layers.contains_key(&first) {
            first
        } else if let Some(m) = reexports.get(&first) {
            m.clone()
        } else {
            first
        };
        if &target == own {
            continue;
        }
        let allowed = layers.get(&target).is_some_and(|&to| to < rank);
        if !allowed {
            out.push(Violation {
                line: code[..at].matches('\n').count() + 1,
                path: format!("crate::{path}"),
                target,
            });
        }
    }
    out
}

/// Every path below the crate root named in `code` (already stripped), as
/// (offset, path without `crate::`). `file_depth` is how deep the file's
/// module is (`src/a.rs`: 1), which `super::` climbs out of.
fn crate_paths(code: &str, file_depth: usize) -> Vec<(usize, String)> {
    let b = code.as_bytes();
    let mod_depth = inline_mod_depths(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !is_ident(b[i - 1]);
        if word_start && code[i..].starts_with("crate::") && !preceded_by_dollar(b, i) {
            let rest = i + "crate::".len();
            push_paths(code, i, rest, &mut out);
            i = rest;
        } else if word_start && code[i..].starts_with("super::") {
            let mut j = i;
            let mut climbs = 0;
            while code[j..].starts_with("super::") {
                climbs += 1;
                j += "super::".len();
            }
            // Out of the top-level module only when climbing past all of it.
            if climbs >= file_depth + mod_depth[i] {
                push_paths(code, i, j, &mut out);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The paths starting at `from` (just after `crate::`): one, or each of a
/// `{a, b::c}` group.
fn push_paths(code: &str, at: usize, from: usize, out: &mut Vec<(usize, String)>) {
    let rest = code[from..].trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut item = String::new();
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    push_item(at, &item, out);
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        push_item(at, &item, out);
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        push_item(at, &rest[..end], out);
    }
}

fn push_item(at: usize, item: &str, out: &mut Vec<(usize, String)>) {
    let item: String = item.chars().filter(|c| !c.is_whitespace()).collect();
    let item = item.trim_end_matches("::");
    if !item.is_empty() && item != "self" {
        out.push((at, item.to_owned()));
    }
}

/// For each byte offset, how many inline `mod name { .. }` blocks enclose it.
fn inline_mod_depths(code: &str) -> Vec<usize> {
    let b = code.as_bytes();
    let mut depths = vec![0; b.len() + 1];
    // For each open brace: whether it opened a module.
    let mut stack: Vec<bool> = Vec::new();
    let mut depth = 0;
    for (i, &byte) in b.iter().enumerate() {
        depths[i] = depth;
        if byte == b'{' {
            let opens_mod = opens_inline_mod(&code[..i]);
            stack.push(opens_mod);
            depth += usize::from(opens_mod);
        } else if byte == b'}' && stack.pop() == Some(true) {
            depth -= 1;
        }
    }
    depths
}

/// Whether `before` ends in `mod <name>` (so the next `{` opens a module).
fn opens_inline_mod(before: &str) -> bool {
    let mut words = before.split_whitespace().rev();
    let name = words.next().unwrap_or("");
    words.next() == Some("mod") && !name.is_empty() && name.bytes().all(is_ident)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn preceded_by_dollar(b: &[u8], i: usize) -> bool {
    i > 0 && b[i - 1] == b'$'
}

/// `source` with comments, string and character literals and `#[cfg(test)]`
/// items blanked out (newlines kept, so offsets keep their line numbers).
fn strip(source: &str) -> String {
    let code = blank_literals(source);
    blank_test_items(&code)
}

fn blank_literals(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(c.len());
    let blank = |out: &mut Vec<char>, s: &[char]| {
        out.extend(s.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }))
    };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            let mut j = i;
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &c[i..j.min(c.len())]);
            i = j.min(c.len());
        } else if let Some(end) = raw_string_end(&c, i, prev_ident) {
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(c.len());
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), else a lifetime.
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 3..c.len()).find(|&j| c[j] == '\'').map(|j| j + 1)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut out, &c[i..end]);
                    i = end;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// Where a raw string (`r"..."`, `r#"..."#`, `br#"..."#`) starting at `i` ends.
fn raw_string_end(c: &[char], i: usize, prev_ident: bool) -> Option<usize> {
    let start = match c[i] {
        'r' if !prev_ident => i + 1,
        'b' if !prev_ident && c.get(i + 1) == Some(&'r') => i + 2,
        _ => return None,
    };
    let hashes = c[start..].iter().take_while(|&&ch| ch == '#').count();
    if c.get(start + hashes) != Some(&'"') {
        return None;
    }
    let mut j = start + hashes + 1;
    while j < c.len() {
        if c[j] == '"'
            && c[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(c.len())
}

/// Blanks each item marked `#[cfg(test)]`: up to its `;`, or through its
/// `{ .. }` block, whichever comes first.
fn blank_test_items(code: &str) -> String {
    let mut out: Vec<u8> = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start = from + found;
        let b = code.as_bytes();
        let mut j = start + "#[cfg(test)]".len();
        let mut depth = 0usize;
        while j < b.len() {
            match b[j] {
                b';' if depth == 0 => break,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(b.len());
        for byte in &mut out[start..end] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
        from = end;
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).expect("blanking keeps UTF-8")
}

#[cfg(test)]
mod checker {
    use super::*;

    fn layers() -> Layers {
        let lib = "//! ## Layers\n//! ```text\n//! 2  session, diagnostics   top\n\
                   //! 1  tree, context   middle\n//! 0  json   bottom\n//! ```\n";
        layers_from_doc(lib).unwrap()
    }

    fn check(module: &str, source: &str) -> Vec<Violation> {
        let path: Vec<String> = module.split("::").map(str::to_owned).collect();
        let reexports = HashMap::from([("Session".to_owned(), "session".to_owned())]);
        violations(&path, source, &layers(), &reexports)
    }

    fn targets(v: &[Violation]) -> Vec<(usize, &str)> {
        v.iter().map(|v| (v.line, v.target.as_str())).collect()
    }

    #[test]
    fn the_table_is_read_from_the_doc() {
        let l = layers();
        assert_eq!((l["json"], l["context"], l["diagnostics"]), (0, 1, 2));
        assert_eq!(l.len(), 5);
        assert!(layers_from_doc("//! no table\n").is_err());
    }

    #[test]
    fn an_upward_import_is_caught_with_its_line() {
        let source = "use crate::json::Span;\n\nuse crate::session::Session;\n";
        let found = check("tree", source);
        assert_eq!(targets(&found), [(3, "session")]);
        assert_eq!(found[0].path, "crate::session::Session");
        let message = describe("src/tree.rs", "tree", 1, &found[0], &layers());
        assert!(
            message.starts_with(
                "src/tree.rs:3: `tree` imports `crate::session::Session` from `session` (layer 2)"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_same_layer_import_is_caught_and_a_lower_one_passes() {
        let source =
            "fn f() { crate::context::walk(); crate::json::parse(); crate::tree::build(); }";
        assert_eq!(targets(&check("tree", source)), [(1, "context")]);
    }

    #[test]
    fn groups_and_root_reexports_are_resolved() {
        let source =
            "use crate::{json::{self, Span}, diagnostics,\n    tree::Tree};\nuse crate::Session;\n";
        assert_eq!(
            targets(&check("context", source)),
            [(1, "diagnostics"), (1, "tree"), (3, "session")]
        );
    }

    #[test]
    fn tests_comments_and_strings_do_not_count() {
        let source = r##"
// crate::session in a comment
/* crate::session /* nested */ crate::session */
const A: &str = "crate::session";
const B: &str = r#"crate::session "quoted""#;
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { x }
#[cfg(test)]
use crate::session::Session;
#[cfg(test)]
mod tests {
    use crate::session::Session;
    fn g() { let s = "}"; }
}
use crate::diagnostics;
"##;
        assert_eq!(targets(&check("tree", source)), [(15, "diagnostics")]);
    }

    #[test]
    fn super_counts_only_when_it_leaves_the_module() {
        // Inline modules and files below a module folder stay in their module.
        let inline = "mod simd { use super::Block; fn f() { super::super::session::x(); } }";
        assert_eq!(targets(&check("tree", inline)), [(1, "session")]);
        let nested =
            "use super::convert; use super::super::json::Span; use super::super::session::S;";
        assert_eq!(targets(&check("tree::part", nested)), [(1, "session")]);
        // The top layer may use everything else.
        assert!(check("session::part", "use super::super::tree::Tree;").is_empty());
    }
}
