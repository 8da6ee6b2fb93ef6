//! An entry's preview: the entry cut to the fields a reader names, with long
//! strings cut, written as JSON while its line is read.
//!
//! A viewer that draws a row per entry reads a few fields of each (type,
//! role, the start of the text, a tool's name and path). On a file read a
//! piece at a time ([`crate::index`]) the line is parsed anyway; keeping
//! those fields then spares a second read of the whole file to describe the
//! rows. What the fields are is the reader's rule, not this module's: it is
//! given as paths (`"message.content"`), and the reader's own functions then
//! run on the preview as on the entry.
//!
//! The cut keeps every answer such a function gives from the first
//! [`TEXT_CAP`] characters: a string longer than that keeps its shortest
//! prefix holding [`TEXT_CAP`] UTF-16 units that are not whitespace (JS's
//! `\s`), so its first [`TEXT_CAP`] units, whether it has any text
//! (`trim()`), and its first [`TEXT_CAP`] characters once whitespace runs are
//! collapsed are the whole string's.

use crate::json::{self, Kind, Member, Span, Value};
use crate::scan::is_js_space;

/// How many non-whitespace UTF-16 units a cut string keeps.
pub const TEXT_CAP: usize = 512;

/// The fields a preview keeps, as paths of member names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fields {
    paths: Vec<Vec<String>>,
}

impl Fields {
    /// Fields from dotted paths: `"type"`, `"message.role"`. A path keeps
    /// its last member whole (strings cut); through an array it applies to
    /// each element.
    pub fn new<S: AsRef<str>>(paths: impl IntoIterator<Item = S>) -> Fields {
        Fields {
            paths: paths
                .into_iter()
                .map(|p| p.as_ref().split('.').map(str::to_owned).collect())
                .collect(),
        }
    }
}

/// Appends to `out` the preview of the entry `value` (a line parsed from
/// `text`): an object keeps the members `fields` name; anything else is kept
/// whole, as it is no entry to pick fields from. Strings are cut as the
/// module says; every other value keeps its text.
pub fn write(text: &str, value: &Value, fields: &Fields, out: &mut String) {
    if value.kind != Kind::Object {
        whole(text, value.kind, value.span, out);
        return;
    }
    let paths: Vec<&[String]> = fields.paths.iter().map(Vec::as_slice).collect();
    object(text, &value.members, &paths, out);
}

/// The members of an object that `paths` name, each projected on what is
/// left of its paths.
fn object(text: &str, members: &[Member], paths: &[&[String]], out: &mut String) {
    out.push('{');
    let mut first = true;
    for m in members {
        let rest: Vec<&[String]> = paths
            .iter()
            .filter(|p| json::key_is(text, m.key, &p[0]))
            .map(|p| &p[1..])
            .collect();
        if rest.is_empty() {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        // The key's own text: `JSON.parse` reads it as the entry's key.
        out.push_str(m.key.of(text));
        out.push(':');
        if rest.iter().any(|p| p.is_empty()) {
            whole(text, m.kind, m.value, out);
        } else {
            project(text, m.kind, m.value, &rest, out);
        }
    }
    out.push('}');
}

/// A value on the way down `paths` (none of them empty): an object keeps
/// what they name, an array projects each element, anything else stays.
fn project(text: &str, kind: Kind, span: Span, paths: &[&[String]], out: &mut String) {
    match kind {
        Kind::Object => object(text, &json::members(text, span), paths, out),
        Kind::Array => {
            out.push('[');
            for (k, e) in json::elements(text, span).iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                project(text, e.kind, e.value, paths, out);
            }
            out.push(']');
        }
        _ => whole(text, kind, span, out),
    }
}

/// A value kept whole, its strings cut.
fn whole(text: &str, kind: Kind, span: Span, out: &mut String) {
    match kind {
        Kind::String => out.push_str(&cut(span.of(text))),
        Kind::Object => {
            out.push('{');
            for (k, m) in json::members(text, span).iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(m.key.of(text));
                out.push(':');
                whole(text, m.kind, m.value, out);
            }
            out.push('}');
        }
        Kind::Array => {
            out.push('[');
            for (k, e) in json::elements(text, span).iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                whole(text, e.kind, e.value, out);
            }
            out.push(']');
        }
        _ => out.push_str(span.of(text)),
    }
}

/// A JSON string literal (quotes included) cut as the module says, as a
/// literal: its text up to the cut, escapes as they were, then a quote. A
/// surrogate pair written as two escapes is never split.
pub fn cut(raw: &str) -> std::borrow::Cow<'_, str> {
    // Each UTF-16 unit takes at least a byte: a short literal is kept.
    if raw.len() <= TEXT_CAP + 2 {
        return raw.into();
    }
    let b = raw.as_bytes();
    let mut solid = 0;
    let mut i = 1;
    let end = raw.len() - 1;
    while i < end {
        let (c, units, next) = if b[i] == b'\\' {
            let (unit, next) = escape(b, i);
            if (0xd800..0xdc00).contains(&unit) && b.get(next) == Some(&b'\\') {
                let (low, after) = escape(b, next);
                if (0xdc00..0xe000).contains(&low) {
                    (None, 2, after)
                } else {
                    (char::from_u32(u32::from(unit)), 1, next)
                }
            } else {
                (char::from_u32(u32::from(unit)), 1, next)
            }
        } else {
            let c = raw[i..].chars().next().unwrap_or('\u{fffd}');
            (Some(c), c.len_utf16(), i + c.len_utf8())
        };
        // A lone surrogate (`None` from a lone escape) is not whitespace.
        if !c.is_some_and(is_js_space) {
            solid += units;
        }
        i = next;
        if solid >= TEXT_CAP {
            break;
        }
    }
    if i >= end {
        return raw.into();
    }
    format!("{}\"", &raw[..i]).into()
}

/// The UTF-16 unit of the escape at `b[i]` (a backslash) and where it ends.
fn escape(b: &[u8], i: usize) -> (u16, usize) {
    let unit = match b.get(i + 1) {
        Some(b'u') => {
            let hex = std::str::from_utf8(&b[i + 2..i + 6]).unwrap_or("0");
            return (u16::from_str_radix(hex, 16).unwrap_or(0), i + 6);
        }
        Some(b'n') => b'\n',
        Some(b't') => b'\t',
        Some(b'r') => b'\r',
        Some(b'f') => 0x0c,
        Some(b'b') => 0x08,
        Some(&c) => c,
        None => 0,
    };
    (u16::from(unit), i + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(line: &str, fields: &[&str]) -> String {
        let value = json::parse(line, Span::new(0, line.len())).unwrap();
        let mut out = String::new();
        write(line, &value, &Fields::new(fields), &mut out);
        out
    }

    #[test]
    fn an_entry_keeps_the_fields_named() {
        let line = r#"{"type":"message","id":"a","big":[1,2],"message":{"role":"user","usage":{"x":1},"content":[{"type":"text","text":"hi","extra":1},"s",[{"text":"t","n":2}]]}}"#;
        assert_eq!(
            preview(line, &["type", "message.role", "message.content.text"]),
            r#"{"type":"message","message":{"role":"user","content":[{"text":"hi"},"s",[{"text":"t"}]]}}"#
        );
        assert_eq!(
            preview(line, &["id", "message.content", "message"]),
            r#"{"id":"a","message":{"role":"user","usage":{"x":1},"content":[{"type":"text","text":"hi","extra":1},"s",[{"text":"t","n":2}]]}}"#
        );
        // Not an object where a path goes on: kept as it is.
        assert_eq!(
            preview(r#"{"message":"m","x":null}"#, &["message.role", "x"]),
            r#"{"message":"m","x":null}"#
        );
        // Escaped keys, repeated keys (the last wins in JSON.parse, in both).
        assert_eq!(
            preview(r#"{"t\u0079pe":1,"type":2,"n":1.50e3}"#, &["type", "n"]),
            r#"{"t\u0079pe":1,"type":2,"n":1.50e3}"#
        );
        // A line that is no object is kept whole.
        assert_eq!(preview(r#" [1, {"a":2}] "#, &["type"]), r#"[1,{"a":2}]"#);
    }

    #[test]
    fn long_strings_keep_their_first_text() {
        let short = format!("\"{}\"", "x".repeat(TEXT_CAP));
        assert_eq!(cut(&short), short);
        let long = format!("\"{}\"", "é".repeat(3 * TEXT_CAP));
        assert_eq!(cut(&long), format!("\"{}\"", "é".repeat(TEXT_CAP)));
        // Whitespace is kept but not counted; escapes stay escapes.
        let spaced = format!("\"{}{}\"", " \\n\\u3000".repeat(700), "ab\\\"".repeat(400));
        let kept = format!(
            "\"{}{}ab\"",
            " \\n\\u3000".repeat(700),
            "ab\\\"".repeat(170)
        );
        assert_eq!(cut(&spaced), kept);
        // A pair of escapes is one character: never split.
        let pairs = format!("\"{}\"", "\\ud83d\\ude00".repeat(TEXT_CAP));
        let halves = format!("\"{}\"", "\\ud83d\\ude00".repeat(TEXT_CAP / 2));
        assert_eq!(cut(&pairs), halves);
        let emoji = format!("\"{}\"", "🙂".repeat(TEXT_CAP));
        assert_eq!(cut(&emoji), format!("\"{}\"", "🙂".repeat(TEXT_CAP / 2)));
        // Only whitespace: nothing is solid, the whole string stays.
        let blank = format!("\"{}\"", " ".repeat(5 * TEXT_CAP));
        assert_eq!(cut(&blank), blank);
    }
}
