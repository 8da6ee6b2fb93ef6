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
use crate::scan::{self, is_js_space};

/// How many non-whitespace UTF-16 units a cut string keeps.
pub const TEXT_CAP: usize = 512;

/// The fields a preview keeps, as paths of member names, and how many
/// non-whitespace UTF-16 units a cut string keeps ([`TEXT_CAP`] unless
/// [`Fields::with_cap`] says otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct Fields {
    top: Level,
    cap: usize,
}

impl Default for Fields {
    /// No fields.
    fn default() -> Self {
        Fields::new::<&str>([])
    }
}

/// The paths below one member, as a tree: the names under it, each once,
/// with what is below that; `whole` when a path ends at it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Level {
    whole: bool,
    next: Vec<(String, Level)>,
}

impl Fields {
    /// Fields from dotted paths: `"type"`, `"message.role"`. A path keeps
    /// its last member whole (strings cut); through an array it applies to
    /// each element.
    pub fn new<S: AsRef<str>>(paths: impl IntoIterator<Item = S>) -> Fields {
        let mut top = Level::default();
        for path in paths {
            let mut at = &mut top;
            for name in path.as_ref().split('.') {
                let k = match at.next.iter().position(|(n, _)| n == name) {
                    Some(k) => k,
                    None => {
                        at.next.push((name.to_owned(), Level::default()));
                        at.next.len() - 1
                    }
                };
                at = &mut at.next[k].1;
            }
            at.whole = true;
        }
        Fields { top, cap: TEXT_CAP }
    }

    /// The same fields, their strings cut after `cap` (at least 1)
    /// non-whitespace UTF-16 units: a reader that reads less of them than
    /// [`TEXT_CAP`] keeps less.
    pub fn with_cap(self, cap: usize) -> Fields {
        Fields {
            cap: cap.max(1),
            ..self
        }
    }
}

/// What a pass that reads every entry writes of each besides its facts
/// (see [`crate::index::Index::read_with_preview_to`]): the preview of
/// `fields` of each, the [`Picked`] preview's line of each, or neither. Its
/// texts end once they pass `part` bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted<'a> {
    pub fields: Option<&'a Fields>,
    pub picked: Option<&'a Picked>,
    pub part: usize,
}

/// A text of such a pass, handed over as soon as it is complete: a JSON
/// array of previews, or lines of [`Picked`] previews.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Previews(String),
    Picked(String),
}

/// A second preview, of the entries a condition picks only, written as a
/// line of JSON text per entry (an empty line for the others): a reader that
/// needs more fields of a few kinds of entries (a message's content, of a
/// user's and an assistant's) than of all gets them in the same pass, and
/// keeps them as text until it reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picked {
    fields: Fields,
    /// Each a path and the strings its value may be: all must hold.
    when: Vec<(Vec<String>, Vec<String>)>,
}

impl Picked {
    /// The preview of `fields` of the entries whose string at each path of
    /// `when` (a dotted path, as [`Fields::new`] takes) is one of its values.
    pub fn new<S: AsRef<str>>(
        fields: Fields,
        when: impl IntoIterator<Item = (S, Vec<S>)>,
    ) -> Picked {
        Picked {
            fields,
            when: when
                .into_iter()
                .map(|(path, values)| {
                    (
                        path.as_ref().split('.').map(str::to_owned).collect(),
                        values.iter().map(|v| v.as_ref().to_owned()).collect(),
                    )
                })
                .collect(),
        }
    }

    /// Whether the entry `value` (a line parsed from `text`) is picked: at
    /// each path, the value `JSON.parse` gives (the last of repeated keys) is
    /// a string equal to one of the path's values.
    pub fn picks(&self, text: &str, value: &Value) -> bool {
        self.when.iter().all(|(path, values)| {
            string_at(text, value, path)
                .and_then(json::as_str)
                .is_some_and(|s| values.iter().any(|v| *v == *s))
        })
    }

    /// Appends the entry's line: its preview if it is picked, then `\n` (a
    /// preview's JSON has no raw line break).
    pub fn write_line(&self, text: &str, value: &Value, out: &mut String) {
        if self.picks(text, value) {
            write(text, value, &self.fields, out);
        }
        out.push('\n');
    }
}

/// The raw text of the string at `path` of the object `value`, if there is
/// one: the first two levels from the parse, deeper ones stepped through.
fn string_at<'t>(text: &'t str, value: &Value, path: &[String]) -> Option<&'t str> {
    if value.kind != Kind::Object {
        return None;
    }
    let (first, rest) = path.split_first()?;
    let top = value
        .members
        .iter()
        .rposition(|m| json::key_is(text, m.key, first))?;
    let mut at = value.members[top];
    if let Some((second, deeper)) = rest.split_first() {
        at = *value
            .nested_in(top)
            .filter(|m| json::key_is(text, m.key, second))
            .last()?;
        for key in deeper {
            if at.kind != Kind::Object {
                return None;
            }
            at = json::get(text, &json::members(text, at.value), key).copied()?;
        }
    }
    (at.kind == Kind::String).then(|| at.value.of(text))
}

/// Appends to `out` the preview of the entry `value` (a line parsed from
/// `text`): an object keeps the members `fields` name; anything else is kept
/// whole, as it is no entry to pick fields from. Strings are cut as the
/// module says; every other value keeps its text.
///
/// The parse's members (two levels) are used as they are; deeper values are
/// walked once, each long string scanned to its end once: a preview costs
/// about one more look at the entry's text.
pub fn write(text: &str, value: &Value, fields: &Fields, out: &mut String) {
    let cap = fields.cap;
    if value.kind != Kind::Object {
        whole(text, value.span.start, cap, out);
        return;
    }
    out.push('{');
    let mut first = true;
    for (k, m) in value.members.iter().enumerate() {
        let Some(level) = picked(text, m, &fields.top) else {
            continue;
        };
        member(text, m, &mut first, out);
        if level.whole {
            whole(text, m.value.start, cap, out);
        } else if m.kind == Kind::Object {
            // The parse has this object's members already.
            out.push('{');
            let mut first = true;
            for n in value.nested_in(k) {
                if let Some(next) = picked(text, n, level) {
                    member(text, n, &mut first, out);
                    if next.whole {
                        whole(text, n.value.start, cap, out);
                    } else {
                        project(text, n.value.start, next, cap, out);
                    }
                }
            }
            out.push('}');
        } else {
            // An array's elements are not in the parse (it keeps the members
            // of objects only): walked, as anything else is.
            project(text, m.value.start, level, cap, out);
        }
    }
    out.push('}');
}

/// What is below member `m` of the paths at `level`, if a path names it.
fn picked<'l>(text: &str, m: &Member, level: &'l Level) -> Option<&'l Level> {
    level
        .next
        .iter()
        .find(|(name, _)| json::key_is(text, m.key, name))
        .map(|(_, below)| below)
}

/// Writes `"key":` (the key's own text: `JSON.parse` reads it as the entry's).
fn member(text: &str, m: &Member, first: &mut bool, out: &mut String) {
    if !*first {
        out.push(',');
    }
    *first = false;
    out.push_str(m.key.of(text));
    out.push(':');
}

/// JSON whitespace from `b[i]` on: where it ends.
fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The valid value at `text[i]` on the way down the paths below `level`
/// (none of which ends there): an object keeps what they name, an array
/// projects each element, anything else is kept whole. Returns where the
/// value ends.
///
/// A loop over a stack of the open objects and arrays, not a recursion: an
/// array's elements stay at its level, so arrays nested a million deep (which
/// `JSON.parse` reads) must not take a frame each.
fn project(text: &str, i: usize, level: &Level, cap: usize, out: &mut String) -> usize {
    /// An object or array being written: the paths at its level, and whether
    /// a member or element has been written yet.
    struct Open<'l> {
        level: &'l Level,
        object: bool,
        first: bool,
    }
    let b = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let (mut at, mut level) = (i, level);
    loop {
        // A value to project at `level` starts at `at`.
        match b[at] {
            c @ (b'{' | b'[') => {
                out.push(c as char);
                let object = c == b'{';
                open.push(Open {
                    level,
                    object,
                    first: true,
                });
                at = ws(b, at + 1);
            }
            _ => {
                at = whole(text, at, cap, out);
                if open.is_empty() {
                    return at;
                }
                at = after_comma(b, at);
            }
        }
        // Inside the innermost open value: close what ends, skip what no path
        // names, until the next value to project.
        loop {
            let Some(top) = open.last_mut() else {
                return at;
            };
            if matches!(b[at], b'}' | b']') {
                out.push(b[at] as char);
                open.pop();
                at += 1;
                if !open.is_empty() {
                    at = after_comma(b, at);
                }
                continue;
            }
            if !top.object {
                if !top.first {
                    out.push(',');
                }
                top.first = false;
                level = top.level;
                break;
            }
            let key_end = scan::skip_string(b, at);
            let start = ws(b, ws(b, key_end) + 1);
            let m = Member {
                key: Span::new(at, key_end),
                value: Span::new(start, start),
                kind: Kind::of_first_byte(b[start]),
            };
            match picked(text, &m, top.level) {
                Some(next) => {
                    member(text, &m, &mut top.first, out);
                    if next.whole {
                        at = after_comma(b, whole(text, start, cap, out));
                    } else {
                        (at, level) = (start, next);
                        break;
                    }
                }
                None => at = after_comma(b, scan::skip_value(b, start)),
            }
        }
    }
}

/// Past the whitespace and the comma, if any, after a value that ends at
/// `b[i]`: where the next member or element, or the closing bracket, starts.
fn after_comma(b: &[u8], i: usize) -> usize {
    let at = ws(b, i);
    if b[at] == b',' {
        ws(b, at + 1)
    } else {
        at
    }
}

/// The valid value at `text[i]`, kept whole with its strings cut, walked
/// once. Returns where it ends.
///
/// Whole means the value's own text without its whitespace, each string
/// that is not a key cut: one pass over the tokens, with a stack of which
/// open values are objects (a key is a string after `{` or after a comma in
/// an object), so nesting of any depth takes no frames.
fn whole(text: &str, i: usize, cap: usize, out: &mut String) -> usize {
    let b = text.as_bytes();
    let mut objects = json::Stack::default();
    let mut at = i;
    let mut key = false;
    loop {
        at = ws(b, at);
        match b[at] {
            b'"' => {
                let end = scan::skip_string(b, at);
                if key {
                    out.push_str(&text[at..end]);
                } else {
                    out.push_str(&cut_to(&text[at..end], cap));
                }
                at = end;
            }
            c @ (b'{' | b'[') => {
                out.push(c as char);
                objects.push(c == b'{');
                key = c == b'{';
                at += 1;
                continue;
            }
            c @ (b',' | b':') => {
                out.push(c as char);
                key = c == b',' && objects.top() == Some(true);
                at += 1;
                continue;
            }
            c @ (b'}' | b']') => {
                out.push(c as char);
                objects.pop();
                at += 1;
            }
            _ => {
                let end = scan::skip_value(b, at);
                out.push_str(&text[at..end]);
                at = end;
            }
        }
        // A value (or a key) has ended.
        key = false;
        if objects.top().is_none() {
            return at;
        }
    }
}

/// A JSON string literal (quotes included) cut as the module says, as a
/// literal: its text up to the cut, escapes as they were, then a quote. A
/// surrogate pair written as two escapes is never split.
pub fn cut(raw: &str) -> std::borrow::Cow<'_, str> {
    cut_to(raw, TEXT_CAP)
}

/// [`cut`] after `cap` non-whitespace UTF-16 units.
pub fn cut_to(raw: &str, cap: usize) -> std::borrow::Cow<'_, str> {
    // The text between the quotes.
    let body = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    // Each UTF-16 unit takes at least a byte: a short literal is kept.
    if body.len() <= cap {
        return raw.into();
    }
    let b = body.as_bytes();
    let mut solid = 0;
    let mut i = 0;
    while i < b.len() {
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
            let c = body[i..].chars().next().unwrap_or('\u{fffd}');
            (Some(c), c.len_utf16(), i + c.len_utf8())
        };
        // A lone surrogate (`None` from a lone escape) is not whitespace.
        if !c.is_some_and(is_js_space) {
            solid += units;
        }
        i = next;
        if solid >= cap {
            break;
        }
    }
    if i >= b.len() {
        return raw.into();
    }
    format!("\"{}\"", &body[..i]).into()
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

    /// `line`'s preview of `fields`.
    pub(super) fn preview(line: &str, fields: &[&str]) -> String {
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
        // JSON whitespace anywhere, at every depth; escaped keys deep down.
        let spaced = " { \"m\" : { \"c\" : [ { \"t\" : \"x\" , \"u\" : [ 1 , { \"v\" : [ ] } ] } , 2 , [ ] , { } ] , \"d\" : { \"e\" : { \"f\\u0067\" : true , \"h\" : null } } } , \"n\" : -1.5e+3 } ";
        assert_eq!(
            preview(spaced, &["m.c", "n"]),
            r#"{"m":{"c":[{"t":"x","u":[1,{"v":[]}]},2,[],{}]},"n":-1.5e+3}"#
        );
        assert_eq!(
            preview(spaced, &["m.c.u.v", "m.c.t", "m.d.e.fg", "m.d.x"]),
            r#"{"m":{"c":[{"t":"x","u":[1,{"v":[]}]},2,[],{}],"d":{"e":{"f\u0067":true}}}}"#
        );
    }

    #[test]
    fn values_nested_deep_take_no_stack() {
        // JSON.parse reads them (a million deep too); a preview is written
        // without a frame a level.
        let depth = 200_000;
        let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let objects = format!(
            "{}\"{}\"{}",
            r#"{"a":"#.repeat(depth),
            "x".repeat(600),
            "}".repeat(depth)
        );
        let cut_objects = format!(
            "{}\"{}\"{}",
            r#"{"a":"#.repeat(depth),
            "x".repeat(TEXT_CAP),
            "}".repeat(depth)
        );
        for (value, kept) in [(&arrays, &arrays), (&objects, &cut_objects)] {
            let line = format!(
                r#"{{"type":"m","message":{{"content":{value},"d":{value}}},"d":{value}}}"#
            );
            // Kept whole, at each level the parse has and below.
            assert_eq!(
                preview(&line, &["message.content", "d"]),
                format!(r#"{{"message":{{"content":{kept}}},"d":{kept}}}"#)
            );
            // Walked down a path: arrays keep their elements, objects what it names.
            let walked = if value == &arrays {
                arrays.as_str()
            } else {
                "{}"
            };
            assert_eq!(
                preview(&line, &["message.content.b", "type"]),
                format!(r#"{{"type":"m","message":{{"content":{walked}}}}}"#)
            );
        }
    }

    #[test]
    fn a_whole_value_cuts_its_strings_not_its_keys_at_every_depth() {
        // Objects and arrays alternate down to `depth`; each holds a long string
        // before and after its nested value, and each object's nested value and
        // last string sit under long keys that follow a comma. Keys (`K`) stay
        // whole, strings (`v`) are cut, wherever a comma puts them and however
        // deep, also after the levels below have closed.
        let key = format!("\"{}\"", "K".repeat(TEXT_CAP + 10));
        let long = format!("\"{}\"", "v".repeat(TEXT_CAP + 10));
        let kept = format!("\"{}\"", "v".repeat(TEXT_CAP));
        fn nest(d: usize, key: &str, long: &str) -> String {
            if d == 0 {
                return long.to_owned();
            }
            let inner = nest(d - 1, key, long);
            if d % 2 == 1 {
                format!("{{\"a\":{long},{key}:{inner},{key}:{long}}}")
            } else {
                format!("[{long},{inner},{long}]")
            }
        }
        // Siblings of both kinds at one depth: an array after an object there
        // must not read as an object (nor the other way round).
        let siblings = format!("[{{{key}:{long}}},[{long},{long}],{{\"a\":{long},{key}:{long}}}]");
        let line = format!(r#"{{"type":"m","d":{siblings}}}"#);
        assert_eq!(
            preview(&line, &["d"]),
            format!(r#"{{"d":{}}}"#, siblings.replace(&long, &kept))
        );
        for depth in [1, 2, 63, 64, 65, 66, 130] {
            let value = nest(depth, &key, &long);
            let line = format!(r#"{{"type":"m","d":{value}}}"#);
            let expected = value.replace(&long, &kept);
            assert_eq!(
                preview(&line, &["d"]),
                format!(r#"{{"d":{expected}}}"#),
                "depth {depth}"
            );
        }
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

#[cfg(test)]
mod picked_tests {
    use super::*;

    fn picked() -> Picked {
        Picked::new(
            Fields::new(["id", "message.content"]),
            [
                ("type", vec!["message"]),
                ("message.role", vec!["user", "assistant"]),
            ],
        )
    }

    fn line_of(line: &str, p: &Picked) -> String {
        let value = json::parse(line, Span::new(0, line.len())).unwrap();
        let mut out = String::new();
        p.write_line(line, &value, &mut out);
        out
    }

    #[test]
    fn an_entry_every_path_picks_gives_its_preview_on_a_line() {
        let p = picked();
        let user =
            r#"{"type":"message","id":"a","message":{"role":"user","content":"hi","usage":1}}"#;
        assert_eq!(
            line_of(user, &p),
            "{\"id\":\"a\",\"message\":{\"content\":\"hi\"}}\n"
        );
        let assistant =
            r#"{"message":{"content":[{"type":"text"}],"role":"assistant"},"type":"message"}"#;
        assert_eq!(
            line_of(assistant, &p),
            "{\"message\":{\"content\":[{\"type\":\"text\"}]}}\n"
        );
        // Escapes are read as JSON.parse reads them.
        let escaped = r#"{"typ\u0065":"m\u0065ssage","message":{"\u0072ole":"us\u0065r"}}"#;
        assert_eq!(line_of(escaped, &p), "{\"message\":{}}\n");
    }

    #[test]
    fn any_other_entry_is_an_empty_line() {
        let p = picked();
        for line in [
            // a path's value among none of its strings, or no string
            r#"{"type":"message","message":{"role":"toolResult","content":"x"}}"#,
            r#"{"type":"custom","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","message":{"role":["user"],"content":"x"}}"#,
            r#"{"type":"message","message":{"role":1}}"#,
            // a path missing, or through something that is no object
            r#"{"type":"message"}"#,
            r#"{"type":"message","message":"user"}"#,
            r#"{"message":{"role":"user"}}"#,
            // no object at all
            r#"["message"]"#,
            r#""message""#,
            // repeated keys: the last one is JSON.parse's
            r#"{"type":"message","type":"label","message":{"role":"user"}}"#,
            r#"{"type":"message","message":{"role":"user","role":"toolResult"}}"#,
            r#"{"type":"message","message":{"role":"user"},"message":{"role":"bash"}}"#,
        ] {
            assert_eq!(line_of(line, &p), "\n", "{line}");
        }
        // ... and the last one picks too (the preview keeps both, as JSON.parse reads it).
        let last = r#"{"type":"label","type":"message","message":{"role":"x"},"message":{"role":"x","role":"user"}}"#;
        assert_eq!(line_of(last, &p), "{\"message\":{},\"message\":{}}\n");
    }

    #[test]
    fn a_cap_of_its_own_cuts_the_strings_of_a_preview_shorter() {
        let fields = Fields::new(["a", "b.c", "d"]).with_cap(3);
        let line = r#"{"a":"x y\nzw","b":{"c":["  abcd",{"e":"abcd"}]},"d":"ab","f":"abcdef"}"#;
        let value = json::parse(line, Span::new(0, line.len())).unwrap();
        let mut out = String::new();
        write(line, &value, &fields, &mut out);
        assert_eq!(
            out,
            r#"{"a":"x y\nz","b":{"c":["  abc",{"e":"abc"}]},"d":"ab"}"#
        );
        assert_eq!(cut_to("\"abcd\"", 4), "\"abcd\"");
        assert_eq!(cut_to("\"abcde\"", 4), "\"abcd\"");
        // At least one unit is kept.
        assert_eq!(
            Fields::new(["a"]).with_cap(0),
            Fields::new(["a"]).with_cap(1)
        );
        assert_eq!(cut_to("\" ab\"", 1), "\" a\"");
        // The default: no fields, the module's cap.
        assert_eq!(
            Fields::default(),
            Fields::new::<&str>([]).with_cap(TEXT_CAP)
        );
    }

    #[test]
    fn a_path_past_two_levels_is_stepped_through() {
        let p = Picked::new(
            Fields::new(["id"]),
            [("a.b.c", vec!["x"]), ("a.b.d.e", vec!["y", "z"])],
        );
        let yes = r#"{"id":1,"a":{"b":{"c":"x","d":{"e":"z"}}}}"#;
        assert_eq!(line_of(yes, &p), "{\"id\":1}\n");
        for no in [
            r#"{"id":1,"a":{"b":{"c":"x","d":{"e":"w"}}}}"#,
            r#"{"id":1,"a":{"b":{"c":"x","c":"q","d":{"e":"z"}}}}"#,
            r#"{"id":1,"a":{"b":{"c":"x","d":["z"]}}}"#,
            r#"{"id":1,"a":{"b":"x"}}"#,
        ] {
            assert_eq!(line_of(no, &p), "\n", "{no}");
        }
        // With no condition, every object is picked.
        let all = Picked::new(Fields::new(["id"]), Vec::<(&str, Vec<&str>)>::new());
        assert_eq!(line_of(r#"{"id":2,"x":3}"#, &all), "{\"id\":2}\n");
    }
}

#[cfg(test)]
mod mutant_tests;
