//! The prompt and tools in force at a point of the context, as pi-ai's
//! `getCurrentSystemMessage` replays them from the `system` messages.
//!
//! Each system message appends its text to the prompt (texts joined by a
//! blank line), patches `sections` by name (`null` removes one) and removes,
//! then adds, tools by name. The first timestamp that is not null or missing
//! is the result's. With no timestamp at all and no tools there is no
//! result, as in pi.
//!
//! pi throws a TypeError where a value has a shape it cannot read (content
//! that is neither a string nor an array, a `null` block or tool, a tool list
//! that is not iterable). A file never makes this replay fail: such a value
//! adds nothing.
//!
//! Values stay slices of the text, so the result is JSON text whose values
//! are what `JSON.parse` makes of the same bytes.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::context::{Emit, Plan};
use crate::entry::Key;
use crate::ids::IdHash;
use crate::json::Put;
use crate::json::{self, Kind, Member, Span};

/// One message of the context, for the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// Where the message's value is in the text.
    pub span: Span,
    /// The content is `""` whatever the text says (pi normalized a null or
    /// missing content of a system message).
    pub empty_content: bool,
}

/// The replay over the messages of `plan` (see [`crate::context::plan`]), as
/// JSON text; `None` where pi gives `undefined`. `members(i)` gives the
/// members of entry `i`, as for [`crate::context::render`].
pub fn current<'t>(
    text: &'t str,
    members: &dyn Fn(usize) -> Cow<'t, [Member]>,
    plan: &Plan,
) -> Option<String> {
    let mut messages = Vec::new();
    for emit in &plan.messages {
        let (name, empty_content) = match *emit {
            Emit::Message(_) => ("message", false),
            Emit::Filled(_) => ("message", true),
            Emit::Checkpoint(_) => ("systemMessage", false),
            // Edited copies keep their role, and only non-system roles are edited;
            // synthesized messages have roles of their own.
            _ => continue,
        };
        let m = members(emit.entry());
        if let Some(v) = json::get_cold(text, &m, name) {
            messages.push(Message {
                span: v.value,
                empty_content,
            });
        }
    }
    replay(text, &messages)
}

/// The replay over `messages` (values in `text`, any role: only `system`
/// ones count), as JSON text; `None` where pi gives `undefined`.
pub fn replay(text: &str, messages: &[Message]) -> Option<String> {
    let mut texts: Vec<String> = Vec::new();
    let mut sections = Ordered::default();
    let mut tools = Ordered::default();
    let mut timestamp: Option<Member> = None;
    let mut unique = 0;
    for message in messages {
        if !message.span.of(text).starts_with('{') {
            continue;
        }
        let fields = &json::members(text, message.span);
        let role = json::get_cold(text, fields, "role");
        if !role.is_some_and(|r| {
            r.kind == Kind::String && json::as_str(r.value.of(text)).as_deref() == Some("system")
        }) {
            continue;
        }
        // `timestamp ??= message.timestamp`
        if timestamp.is_none_or(|t| t.kind == Kind::Null) {
            timestamp = json::get_cold(text, fields, "timestamp").copied();
        }
        let body = if message.empty_content {
            String::new()
        } else {
            json::get_cold(text, fields, "content")
                .map_or_else(String::new, |c| content_text(text, c))
        };
        if !body.is_empty() {
            texts.push(body);
        }
        if let Some(s) = json::get_cold(text, fields, "sections") {
            for (name, value) in entries_of(text, s) {
                if value.kind == Kind::Null {
                    sections.remove(&name);
                } else {
                    sections.set(name, value.value.of(text));
                }
            }
        }
        if let Some(removed) = json::get_cold(text, fields, "toolsRemoved") {
            for tool in tool_list(text, removed) {
                if let Some(name) = tool_name(text, tool, &mut unique) {
                    tools.remove(&name);
                }
            }
        }
        if let Some(added) = json::get_cold(text, fields, "toolsAdded") {
            for tool in tool_list(text, added) {
                if let Some(name) = tool_name(text, tool, &mut unique) {
                    tools.set(name, tool.value.of(text));
                }
            }
        }
    }
    if timestamp.is_none() && tools.is_empty() {
        return None;
    }
    let mut out = String::from("{\"role\":\"system\",\"content\":\"");
    out.put(&texts.join("\\n\\n"));
    out.put("\"");
    if !sections.is_empty() {
        // In JS key order, as Object.fromEntries makes it and JSON.stringify
        // writes it: array-index names first, ascending, then the others.
        let names = crate::order::sorted_by_key(sections.values().collect(), |(name, _)| {
            array_index(name).map_or(1 << 32, u64::from)
        });
        out.put(",\"sections\":{");
        for (k, (name, value)) in names.into_iter().enumerate() {
            if k > 0 {
                out.put(",");
            }
            out.put(&name.to_json());
            out.put(":");
            out.put(value);
        }
        out.put("}");
    }
    if !tools.is_empty() {
        out.put(",\"toolsAdded\":[");
        for (k, (_, tool)) in tools.values().enumerate() {
            if k > 0 {
                out.put(",");
            }
            out.put(tool);
        }
        out.put("]");
    }
    out.put(",\"timestamp\":");
    match timestamp {
        Some(t) if t.kind != Kind::Null => out.put(t.value.of(text)),
        _ => out.put("0"),
    }
    out.put("}");
    Some(out)
}

/// A result of [`replay`] with its timestamp replaced by `time` (as pi's
/// `appendCompaction` stamps the checkpoint it stores: `{...sys, timestamp}`,
/// the key staying last).
pub fn restamp(json: &str, time: f64) -> String {
    // The timestamp is the result's last member, after every other value.
    let at = json.rfind(",\"timestamp\":").unwrap_or(json.len());
    let mut out = json[..at].to_owned();
    out.put(",\"timestamp\":");
    out.put(&Key::number(time).to_json());
    out.put("}");
    out
}

/// The name as an array index (`"0"` to `"4294967294"`, no leading zero).
fn array_index(name: &Key) -> Option<u32> {
    let s = name.as_str()?;
    let n: u32 = s.parse().ok()?;
    (n != u32::MAX && n.to_string() == s).then_some(n)
}

/// A `Map` by key: insertion order, a re-set key keeps its place.
#[derive(Default)]
struct Ordered<'t> {
    slots: Vec<Option<(Key, &'t str)>>,
    /// The map type of the session's ids: one copy of its code in the wasm.
    at: HashMap<Key, usize, IdHash>,
}

impl<'t> Ordered<'t> {
    fn set(&mut self, key: Key, value: &'t str) {
        match self.at.get(&key) {
            Some(&k) => self.slots[k] = Some((key, value)),
            None => {
                self.at.insert(key.clone(), self.slots.len());
                self.slots.push(Some((key, value)));
            }
        }
    }

    fn remove(&mut self, key: &Key) {
        if let Some(k) = self.at.remove(key) {
            self.slots[k] = None;
        }
    }

    fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    fn values(&self) -> impl Iterator<Item = &(Key, &'t str)> {
        self.slots.iter().flatten()
    }
}

/// `contentText(content)` as the escaped body of a JSON string: a string
/// as is, the `text` of an array's `type: "text"` blocks joined by a newline.
/// Anything else (pi throws) reads as no text.
fn content_text(text: &str, content: &Member) -> String {
    let raw = content.value.of(text);
    match content.kind {
        Kind::String => raw[1..raw.len() - 1].to_owned(),
        Kind::Array => {
            let mut parts = Vec::new();
            for block in json::elements(text, content.value) {
                if block.kind != Kind::Object {
                    // A string or number has no `type`; null throws in pi: skipped.
                    continue;
                }
                let fields = json::members(text, block.value);
                let is_text = json::get_cold(text, &fields, "type").is_some_and(|t| {
                    t.kind == Kind::String
                        && json::as_str(t.value.of(text)).as_deref() == Some("text")
                });
                if is_text {
                    parts.push(
                        json::get_cold(text, &fields, "text")
                            .map_or_else(String::new, |t| join_text(text, t)),
                    );
                }
            }
            parts.join("\\n")
        }
        _ => String::new(),
    }
}

/// How `Array.prototype.join` writes one value, as an escaped JSON string body.
fn join_text(text: &str, value: &Member) -> String {
    let raw = value.value.of(text);
    match value.kind {
        Kind::String => raw[1..raw.len() - 1].to_owned(),
        Kind::Null => String::new(),
        Kind::True => "true".into(),
        Kind::False => "false".into(),
        Kind::Number => match json::number(raw) {
            // A number too big for a double is JS's `Infinity` (JSON has no NaN).
            n if n.is_infinite() && n.is_sign_negative() => "-Infinity".into(),
            n if n.is_infinite() => "Infinity".into(),
            n => Key::number(n).to_json(),
        },
        Kind::Object => "[object Object]".into(),
        // An array's own join (nested arrays are rare enough to read as empty).
        Kind::Array => String::new(),
    }
}

/// `Object.entries(sections ?? {})`: an object's members (a repeated name in
/// the place of its first, with its last value), an array's elements by index.
fn entries_of(text: &str, sections: &Member) -> Vec<(Key, Member)> {
    match sections.kind {
        Kind::Object => {
            let mut out: Vec<(Key, Member)> = Vec::new();
            let mut at: HashMap<Key, usize, IdHash> = HashMap::default();
            for m in json::members(text, sections.value) {
                let name = string_key(m.key.of(text));
                match at.get(&name) {
                    Some(&k) => out[k].1 = m,
                    None => {
                        at.insert(name.clone(), out.len());
                        out.push((name, m));
                    }
                }
            }
            out
        }
        Kind::Array => json::elements(text, sections.value)
            .into_iter()
            .enumerate()
            .map(|(k, m)| (Key::string(&k.to_string()), m))
            .collect(),
        // A string's characters would be entries too; no session writes one.
        _ => Vec::new(),
    }
}

/// A JSON string as a [`Key`].
fn string_key(raw: &str) -> Key {
    match json::decode_string(raw) {
        Some(json::JsString::Utf8(s)) => Key::string(&s),
        Some(json::JsString::Utf16(u)) => Key::Utf16(u.into()),
        None => Key::string(raw),
    }
}

/// The tools of `toolsAdded`/`toolsRemoved`: an array's elements; `null`
/// is none, and so is anything else (which pi cannot iterate).
fn tool_list(text: &str, list: &Member) -> Vec<Member> {
    match list.kind {
        Kind::Array => json::elements(text, list.value),
        _ => Vec::new(),
    }
}

/// `tool.name` as a map key: `None` for a `null` tool (pi throws there).
fn tool_name(text: &str, tool: Member, unique: &mut u32) -> Option<Key> {
    match tool.kind {
        Kind::Null => None,
        Kind::Object => {
            let fields = json::members(text, tool.value);
            Some(Key::from_json(
                text,
                json::get_cold(text, &fields, "name"),
                unique,
            ))
        }
        _ => Some(Key::Undefined),
    }
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// The replay over JSON values, one per line.
    pub(super) fn replay_lines(lines: &[&str]) -> Option<String> {
        let text = lines.join("\n");
        let mut messages = Vec::new();
        let mut start = 0;
        for l in lines {
            messages.push(Message {
                span: Span::new(start, start + l.len()),
                empty_content: false,
            });
            start += l.len() + 1;
        }
        replay(&text, &messages)
    }

    #[test]
    fn no_timestamp_and_no_tools_is_undefined() {
        assert_eq!(replay_lines(&[]), None);
        assert_eq!(replay_lines(&[r#"{"role":"system","content":"x"}"#]), None);
        assert_eq!(
            replay_lines(&[
                r#"{"role":"system","content":"x","timestamp":null}"#,
                r#"{"role":"system","content":"y"}"#
            ]),
            None
        );
        assert_eq!(
            replay_lines(&[r#"{"role":"system","content":"x","timestamp":null}"#]).as_deref(),
            Some(r#"{"role":"system","content":"x","timestamp":0}"#)
        );
        assert_eq!(
            replay_lines(&[r#"{"role":"system","content":"","timestamp":5}"#]).as_deref(),
            Some(r#"{"role":"system","content":"","timestamp":5}"#)
        );
        assert_eq!(
            replay_lines(&[r#"{"role":"system","toolsAdded":[{"name":"t"}]}"#]).as_deref(),
            Some(r#"{"role":"system","content":"","toolsAdded":[{"name":"t"}],"timestamp":0}"#)
        );
    }

    #[test]
    fn texts_sections_and_tools_replay_in_order() {
        let got = replay_lines(&[
            r#"{"role":"user","content":"not me","timestamp":1}"#,
            r#"{"role":"system","content":"base","sections":{"a":"A","b":"B"},"toolsAdded":[{"name":"r","v":1}],"timestamp":null}"#,
            r#"{"role":"system","content":[{"type":"text","text":"x"},{"type":"image"},{"type":"text"}],"sections":{"a":null,"c":"C"},"timestamp":7}"#,
            r#"{"role":"system","content":"","sections":{"a":"again"},"toolsRemoved":[{"name":"r"}],"toolsAdded":[{"name":"w"},{"name":"r","v":2}],"timestamp":9}"#,
            r#"{"role":"system","content":5,"toolsAdded":[null,{"name":"w","v":3}]}"#,
        ]);
        assert_eq!(
            got.as_deref(),
            Some(
                r#"{"role":"system","content":"base\n\nx\n","sections":{"b":"B","c":"C","a":"again"},"toolsAdded":[{"name":"w","v":3},{"name":"r","v":2}],"timestamp":7}"#
            )
        );
    }

    #[test]
    fn sections_come_in_js_key_order() {
        let got = replay_lines(&[
            r#"{"role":"system","sections":{"b":"1","10":"x","a":"2","2":"y","01":"z","4294967295":"big"},"timestamp":1}"#,
        ]);
        assert_eq!(
            got.as_deref(),
            Some(
                r#"{"role":"system","content":"","sections":{"2":"y","10":"x","b":"1","a":"2","01":"z","4294967295":"big"},"timestamp":1}"#
            )
        );
    }

    #[test]
    fn restamping_replaces_the_last_member() {
        let json =
            replay_lines(&[r#"{"role":"system","content":"x","timestamp":{"timestamp":1}}"#])
                .unwrap();
        assert_eq!(
            restamp(&json, 1795168800000.0),
            r#"{"role":"system","content":"x","timestamp":1795168800000}"#
        );
    }

    #[test]
    fn a_repeated_section_name_keeps_its_first_place_and_last_value() {
        let got = replay_lines(&[
            r#"{"role":"system","sections":{"a":"1","b":"2"},"timestamp":1}"#,
            r#"{"role":"system","sections":{"a":null,"a":"3"}}"#,
        ]);
        assert_eq!(
            got.as_deref(),
            Some(r#"{"role":"system","content":"","sections":{"a":"3","b":"2"},"timestamp":1}"#)
        );
    }
}
