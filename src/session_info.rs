//! What pi's session list shows for a file (`buildSessionInfo`).
//!
//! pi 1.6 reads a file for its list line by line, as Node's `readline` splits
//! it: a line ends at `\n`, `\r\n` or a lone `\r`. Blank lines, lines
//! `JSON.parse` rejects and lines that parse to a falsy value (`null`,
//! `false`, `0`, `""`) are skipped. The one deliberate difference: the whole
//! text is first trimmed as `String.prototype.trim` does (as pi's
//! `parseSessionEntries`, and so this crate's parse, reads a file), so a BOM or
//! other Unicode whitespace at either end does not hide the session or its
//! last line.
//!
//! Lines before the header (the `title` line oh-my-pi writes first, or any
//! other) are skipped until a `type: "session"` line comes, as pi's
//! repository now reads a file for its list; pi 1.6 leaves such a file out.

use crate::json::Put;
use crate::json::{self, Span};
use crate::time::DateParser;

/// What pi's session list shows for a file, read in one pass.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The header's `id`, as JSON text.
    pub id: String,
    /// The header's `cwd` as a JSON string literal (`""` when not a string).
    pub cwd: String,
    /// The latest `session_info` name, trimmed, as a JSON string literal
    /// (`None`: no name, or cleared).
    pub name: Option<String>,
    /// The header's `parentSession`, as JSON text.
    pub parent_session: Option<String>,
    /// The header's `timestamp`, as JSON text (for `new Date(...)`).
    pub created: Option<String>,
    /// Milliseconds of the last user or assistant activity, if any (> 0).
    pub last_activity: Option<f64>,
    /// The header timestamp in milliseconds, if it is a valid date.
    pub header_time: Option<f64>,
    pub message_count: usize,
    /// The first user message's text as a JSON string literal (empty: none).
    pub first_message: String,
}

/// The lines of `b[start..end]` as `readline` gives them (ends at `\n`,
/// `\r\n` or a lone `\r`), inside a text already trimmed as JS `trim()` does.
/// Every `\n` and `\r` ends a line here: a `\r\n` gives one more, empty line
/// between the two, which no reader keeps (blank lines are no entries).
fn listing_lines(b: &[u8], start: usize, end: usize) -> impl Iterator<Item = Span> + '_ {
    let mut next = Some(start);
    std::iter::from_fn(move || {
        let from = next?;
        let stop = crate::scan::line_break(b, from, end);
        next = (stop < end).then_some(stop + 1);
        Some(Span::new(from, stop))
    })
}

/// The `name` of the `session_info` entry at `span` as pi reads it
/// (`entry.name?.trim() || undefined`): trimmed as JS `trim()` does, as a
/// JSON string literal; `None` when it is not a string or trims to nothing.
pub fn session_name(text: &str, span: Span) -> Option<String> {
    let fields = json::members(text, span);
    let name = json::get(text, &fields, "name").filter(|m| m.kind == json::Kind::String)?;
    trimmed_literal(name.value.of(text))
}

/// A JSON string literal's value trimmed as JS `trim()` does, as a JSON
/// string literal (a lone surrogate kept as its `\u` escape); `None` when
/// nothing is left.
pub fn trimmed_literal(raw: &str) -> Option<String> {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        let t = inner.trim_matches(crate::scan::is_js_space);
        return (!t.is_empty()).then(|| format!("\"{t}\""));
    }
    match json::decode_string(raw)? {
        json::JsString::Utf8(s) => {
            let t = s.trim_matches(crate::scan::is_js_space);
            (!t.is_empty()).then(|| json::stringify(t))
        }
        json::JsString::Utf16(units) => {
            // JS whitespace is all in the BMP and no surrogate: trim by unit.
            let space =
                |u: &u16| char::from_u32(u32::from(*u)).is_some_and(crate::scan::is_js_space);
            let start = units.iter().position(|u| !space(u))?;
            let end = units.iter().rposition(|u| !space(u))? + 1;
            let mut out = String::with_capacity(end - start + 2);
            out.put("\"");
            for c in char::decode_utf16(units[start..end].iter().copied()) {
                match c {
                    Ok(c) => {
                        let mut buf = [0u8; 4];
                        let s = json::stringify(c.encode_utf8(&mut buf));
                        out.put(&s[1..s.len() - 1]);
                    }
                    Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
                }
            }
            out.put("\"");
            Some(out)
        }
    }
}

/// The last of `members` named by each of `names` (as `JSON.parse` keeps the
/// last of repeated keys).
fn last_of<'m, const N: usize>(
    text: &str,
    members: impl Iterator<Item = &'m json::Member>,
    names: [&str; N],
) -> [Option<&'m json::Member>; N] {
    let mut found = [None; N];
    for m in members {
        for (slot, name) in found.iter_mut().zip(names) {
            if json::key_is(text, m.key, name) {
                *slot = Some(m);
            }
        }
    }
    found
}

/// Whether `m` is a string that `JSON.parse` reads as `name`.
fn is_str(text: &str, m: Option<&json::Member>, name: &str) -> bool {
    m.is_some_and(|m| m.kind == json::Kind::String && json::key_is(text, m.value, name))
}

/// pi's `buildSessionInfo`: `None` when no kept line is a header.
///
/// One pass: each line is validated as `JSON.parse` would read it, recording
/// only the spans of its top-level members and of the members of objects
/// among them (an entry's `message.role`), into vectors reused from line to
/// line. Nothing else of a line is decoded; a message's text only while no
/// first user message is known.
pub fn session_info(text: &str, dates: &dyn DateParser) -> Option<SessionInfo> {
    let b = text.as_bytes();
    let start = crate::parse::trim_start(b);
    let end = crate::parse::trim_end(b).max(start);
    let mut fold = Fold::new(dates);
    fold.lines(text, start, end);
    fold.finish()
}

/// [`session_info`] of a text of `len` bytes held elsewhere, read `piece`
/// bytes at a time: only a piece and the line it ends in are held.
///
/// The text is cut into runs of whole lines at `\n` ([`crate::parse::LineRuns`]),
/// and `listing_lines` splits each run at its `\n`s and `\r`s as it splits
/// the whole text: a run ends just before a `\n`, where a line of the whole
/// text ends too (after the `\r` of a `\r\n`, the empty line between them,
/// no entry in either). A lone `\r` does not end a run: lines that end in
/// one are held together until a `\n` comes, as a line with no line end at
/// all is held whole (pi writes `\n`).
pub fn session_info_in_pieces<E>(
    len: u64,
    piece: usize,
    read: &mut crate::parse::ReadAt<'_, E>,
    dates: &dyn DateParser,
) -> Result<Option<SessionInfo>, E> {
    let (start, end, _) = crate::parse::trimmed_range(len, read)?;
    let mut fold = Fold::new(dates);
    crate::parse::read_runs(start, end, piece, read, &mut |run| {
        let text = crate::parse::decode(run);
        fold.lines(&text, 0, text.len());
    })?;
    Ok(fold.finish())
}

/// Where [`Fold`] is in the file.
enum State {
    /// No header yet: kept lines are skipped until one comes.
    Start,
    /// After the first header.
    Listing(SessionInfo),
}

/// [`session_info`] a line at a time.
struct Fold<'d> {
    dates: &'d dyn DateParser,
    state: State,
    value: json::Value,
}

impl<'d> Fold<'d> {
    fn new(dates: &'d dyn DateParser) -> Self {
        Fold {
            dates,
            state: State::Start,
            value: json::Value::default(),
        }
    }

    /// Reads the lines of `t[start..end]`, all inside the trimmed text,
    /// and folds in the valid JSON ones (a blank line is not). pi 1.6 also
    /// skips falsy values (`null`, `false`, `0`, `""`): none is an object,
    /// and a line that is no object adds nothing here either.
    fn lines(&mut self, t: &str, start: usize, end: usize) {
        let mut value = std::mem::take(&mut self.value);
        for span in listing_lines(t.as_bytes(), start, end) {
            if json::parse_line_into(t, span.start, span.end, &mut value).is_some() {
                self.kept(t, &value);
            }
        }
        self.value = value;
    }

    fn finish(self) -> Option<SessionInfo> {
        match self.state {
            State::Listing(mut info) => {
                info.last_activity = info.last_activity.filter(|&a| a > 0.0);
                Some(info)
            }
            State::Start => None,
        }
    }

    fn kept(&mut self, t: &str, value: &json::Value) {
        match &mut self.state {
            State::Start => {
                if let Some(info) = header(t, value, self.dates) {
                    self.state = State::Listing(info);
                }
            }
            State::Listing(info) => entry(t, value, info, self.dates),
        }
    }
}

/// The listing of a session whose header is `value`; `None` when it is not
/// a header.
fn header(t: &str, value: &json::Value, dates: &dyn DateParser) -> Option<SessionInfo> {
    if value.kind != json::Kind::Object {
        return None;
    }
    let [ty, id, cwd, timestamp, parent] = json::find_all(
        t,
        &value.members,
        ["type", "id", "cwd", "timestamp", "parentSession"],
    )
    .map(|i| i.map(|i| &value.members[i]));
    if !is_str(t, ty, "session") {
        return None;
    }
    let raw = |m: Option<&json::Member>| m.map(|m| (m.kind, m.value.of(t)));
    // Strings stay JSON text until JS reads them: a Rust string cannot hold
    // a lone surrogate (`"\ud83d"`), a JS string can.
    let cwd = match raw(cwd) {
        Some((json::Kind::String, v)) => v.to_owned(),
        _ => String::from("\"\""),
    };
    let header_time = match raw(timestamp) {
        Some((json::Kind::String, v)) => {
            Some(crate::time::time_of(Some((json::Kind::String, v)), dates)).filter(|t| !t.is_nan())
        }
        _ => None,
    };
    Some(SessionInfo {
        id: raw(id).map_or("null".into(), |(_, v)| v.to_owned()),
        cwd,
        name: None,
        parent_session: raw(parent).map(|(_, v)| v.to_owned()),
        created: raw(timestamp).map(|(_, v)| v.to_owned()),
        last_activity: None,
        header_time,
        message_count: 0,
        first_message: String::new(),
    })
}

/// What the kept line `value` after the header adds to `info`.
fn entry(t: &str, value: &json::Value, info: &mut SessionInfo, dates: &dyn DateParser) {
    let raw = |m: Option<&json::Member>| m.map(|m| (m.kind, m.value.of(t)));
    if value.kind != json::Kind::Object {
        return;
    }
    let found = json::find_all(t, &value.members, ["type", "timestamp", "name", "message"]);
    let [ty, entry_time, name, _] = found.map(|i| i.map(|i| &value.members[i]));
    let message_at = found[3];
    if is_str(t, ty, "session_info") {
        info.name = name
            .filter(|m| m.kind == json::Kind::String)
            .and_then(|m| trimmed_literal(m.value.of(t)));
        return;
    }
    if !is_str(t, ty, "message") {
        return;
    }
    info.message_count += 1;
    let Some(i) = message_at.filter(|&i| value.members[i].kind == json::Kind::Object) else {
        return;
    };
    let [role, content, msg_time] =
        last_of(t, value.nested_in(i), ["role", "content", "timestamp"]);
    let Some(content) = content else {
        return;
    };
    let user = is_str(t, role, "user");
    if !user && !is_str(t, role, "assistant") {
        return;
    }
    // Last activity: the message's numeric timestamp, else
    // `new Date(entry.timestamp)` of whatever the entry's is (pi 1.6).
    let activity = match msg_time {
        Some(ts) if ts.kind == json::Kind::Number => json::number(ts.value.of(t)),
        _ => crate::time::time_of(raw(entry_time), dates),
    };
    if !activity.is_nan() {
        info.last_activity = Some(info.last_activity.unwrap_or(0.0).max(activity));
    }
    if !user || !info.first_message.is_empty() {
        return;
    }
    if let Some(text) = message_text(t, content) {
        if !text.is_empty() {
            info.first_message = format!("\"{text}\"");
        }
    }
}

/// pi's `extractTextContent` of a message's `content`, as the inside of a
/// JSON string literal, so that what JS strings hold and Rust strings cannot
/// (lone surrogates) survives. `None` when content is neither a string nor
/// an array.
fn message_text(t: &str, content: &json::Member) -> Option<String> {
    let inner = |m: &json::Member| -> String {
        let raw = m.value.of(t);
        match m.kind {
            json::Kind::String => raw[1..raw.len() - 1].to_owned(),
            json::Kind::Number | json::Kind::True | json::Kind::False => raw.to_owned(),
            json::Kind::Object => "[object Object]".to_owned(),
            // `join` writes null and undefined as "" (nested arrays: approximated as "").
            json::Kind::Null | json::Kind::Array => String::new(),
        }
    };
    Some(match content.kind {
        json::Kind::String => inner(content),
        json::Kind::Array => json::elements(t, content.value)
            .iter()
            .filter(|b| b.kind == json::Kind::Object)
            .filter_map(|b| {
                let f = json::members(t, b.value);
                let is_text =
                    json::get(t, &f, "type").is_some_and(|ty| json::key_is(t, ty.value, "text"));
                is_text.then(|| json::get(t, &f, "text").map(inner).unwrap_or_default())
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    })
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::IsoOnly;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/w"}"#;

    fn user(text: &str, entry_ts: &str) -> String {
        format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":{entry_ts},"message":{{"role":"user","content":"{text}"}}}}"#
        )
    }

    fn info(text: &str) -> Option<SessionInfo> {
        session_info(text, &IsoOnly)
    }

    #[test]
    fn in_pieces_as_a_whole() {
        let u = user("h\u{e9}llo \u{1f642}", "\"2025-03-02T00:00:00.000Z\"");
        let name = r#"{"type":"session_info","id":"n","parentId":null,"name":" n "}"#;
        for text in [
            format!("\u{feff}{HEADER}\r\n{u}\r{name}\n\n{u}\u{a0}"),
            format!("null\n{HEADER}\n{u}"),
            format!("[]\n{HEADER}\n{u}"),
            format!("{TITLE}\r\n{u}\n{HEADER}\n{u}"),
            format!("{TITLE}\n{u}"),
            String::new(),
        ] {
            let b = text.as_bytes();
            for piece in [1, 2, 3, 5, 64, 1 << 20] {
                let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                    buf.extend_from_slice(&b[from as usize..to as usize]);
                    Ok::<(), ()>(())
                };
                let got = session_info_in_pieces(b.len() as u64, piece, &mut read, &IsoOnly);
                assert_eq!(got, Ok(info(&text)), "{text:?} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn lines_end_at_lf_crlf_and_a_lone_cr() {
        let u = user("hi", "\"2025-03-02T00:00:00.000Z\"");
        for sep in ["\n", "\r\n", "\r"] {
            let i = info(&format!("{HEADER}{sep}{u}{sep}{u}{sep}")).unwrap();
            assert_eq!(i.message_count, 2, "{sep:?}");
            assert_eq!(i.first_message, "\"hi\"");
        }
    }

    #[test]
    fn falsy_lines_are_skipped_not_fatal() {
        let u = user("after", "\"2025-03-02T00:00:00.000Z\"");
        let i = info(&format!("null\n0\nfalse\n\"\"\n{HEADER}\nnull\n{u}\n")).unwrap();
        assert_eq!((i.id.as_str(), i.message_count), ("\"s\"", 1));
    }

    /// oh-my-pi's first line: a title slot, padded to be rewritten in place.
    const TITLE: &str = r#"{"type":"title","v":1,"title":"Fix it","source":"auto","updatedAt":"2025-03-01T10:00:00.000Z","pad":"    "}"#;

    #[test]
    fn lines_before_the_header_are_skipped_until_it_comes() {
        let u = user("after", "\"2025-03-02T00:00:00.000Z\"");
        let i = info(&format!("{TITLE}\n{HEADER}\n{u}\n")).unwrap();
        assert_eq!((i.id.as_str(), i.cwd.as_str()), ("\"s\"", "\"/w\""));
        assert_eq!(
            (i.message_count, i.first_message.as_str()),
            (1, "\"after\"")
        );
        // Anything before the header is skipped, as pi's repository skips it:
        // a message there is not counted, a non-object does not end the read.
        let before = format!("42\n[]\n{u}\n{TITLE}\n{HEADER}\n");
        let i = info(&before).unwrap();
        assert_eq!((i.id.as_str(), i.message_count), ("\"s\"", 0));
        assert_eq!(i.first_message, "");
        // No header at all: not a session.
        assert_eq!(info(&format!("{TITLE}\n{u}\n")), None);
    }

    #[test]
    fn any_entry_timestamp_counts_for_activity() {
        let at = |ts: &str| {
            info(&format!("{HEADER}\n{}\n", user("x", ts)))
                .unwrap()
                .last_activity
        };
        assert_eq!(at("1800000000000"), Some(1_800_000_000_000.0));
        assert_eq!(
            at("\"2025-03-02T00:00:00.000Z\""),
            Some(1_740_873_600_000.0)
        );
        assert_eq!(at("true"), Some(1.0));
        // null is time 0, which is no activity.
        assert_eq!(at("null"), None);
        assert_eq!(at("\"not a date\""), None);
    }

    #[test]
    fn unicode_whitespace_around_the_text_is_trimmed() {
        // pi 1.6 leaves these out of its list (or drops the last line); we
        // read them as its parseSessionEntries does.
        let u = user("x", "\"2025-03-02T00:00:00.000Z\"");
        for (before, after) in [("\u{feff}", ""), ("\u{a0}", ""), ("\u{2028}", "\u{a0}")] {
            let i = info(&format!("{before}{HEADER}\n{u}{after}")).unwrap();
            assert_eq!(i.message_count, 1, "{before:?} {after:?}");
        }
    }

    #[test]
    fn names_are_trimmed_as_js_does_and_keep_lone_surrogates() {
        let t = |raw: &str| trimmed_literal(raw);
        assert_eq!(t(r#""  a b  ""#), Some(r#""a b""#.into()));
        assert_eq!(t("\"\u{3000}x\u{feff}\""), Some(r#""x""#.into()));
        assert_eq!(t(r#"" 	 ""#), None);
        assert_eq!(t(r#""\n\u0020""#), None);
        assert_eq!(t(r#""\ud83d""#), Some(r#""\ud83d""#.into()));
        assert_eq!(t(r#"" \udc00\t""#), Some(r#""\udc00""#.into()));
        assert_eq!(
            t(r#""\u0020\ud83d \"q\"\n""#),
            Some(r#""\ud83d \"q\"""#.into())
        );
        assert_eq!(t(r#""\ud83d\ude00""#), Some("\"\u{1f600}\"".into()));
    }

    #[test]
    fn string_fields_stay_json_text() {
        let head = r#"{"type":"session","version":3,"id":"\ud83d","timestamp":"2025-03-01T10:00:00.000Z","cwd":"\udc00/w","parentSession":"p\ud800"}"#;
        let name = r#"{"type":"session_info","id":"n","parentId":null,"timestamp":"2025-03-01T10:00:00.000Z","name":" \ud83d "}"#;
        let i = info(&format!("{head}\n{name}\n")).unwrap();
        assert_eq!(i.id, r#""\ud83d""#);
        assert_eq!(i.cwd, r#""\udc00/w""#);
        assert_eq!(i.parent_session.as_deref(), Some(r#""p\ud800""#));
        assert_eq!(i.name.as_deref(), Some(r#""\ud83d""#));
        let i = info(&format!(
            "{}\n",
            HEADER.replace(r#""cwd":"/w""#, r#""cwd":4"#)
        ))
        .unwrap();
        assert_eq!((i.cwd.as_str(), i.name), (r#""""#, None));
    }
}
