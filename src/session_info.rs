//! What pi's session list shows for a file (`buildSessionInfo`).

use crate::document::Document;
use crate::entry::{self, EntryType};
use crate::json;
use crate::time::DateParser;

/// What pi's session list shows for a file, read in one pass.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The header's `id`, as JSON text.
    pub id: String,
    pub cwd: String,
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

/// pi's `buildSessionInfo`: `None` when the first line is not a header.
pub fn session_info(text: &str, dates: &dyn DateParser) -> Option<SessionInfo> {
    let doc = Document::parse_with(text.to_owned(), dates);
    let first = doc.entries.first()?;
    if first.kind != EntryType::Session {
        return None;
    }
    let t = doc.text.as_str();
    let head = json::members(t, doc.spans[0]);
    let raw = |name: &str| json::get(t, &head, name).map(|m| (m.kind, m.value.of(t)));
    let cwd = match raw("cwd") {
        Some((json::Kind::String, v)) => {
            json::as_str(v).map(|s| s.into_owned()).unwrap_or_default()
        }
        _ => String::new(),
    };
    let header_time = match raw("timestamp") {
        Some((json::Kind::String, v)) => {
            Some(crate::time::time_of(Some((json::Kind::String, v)), dates)).filter(|t| !t.is_nan())
        }
        _ => None,
    };
    let mut info = SessionInfo {
        id: raw("id").map_or("null".into(), |(_, v)| v.to_owned()),
        cwd,
        name: None,
        parent_session: raw("parentSession").map(|(_, v)| v.to_owned()),
        created: raw("timestamp").map(|(_, v)| v.to_owned()),
        last_activity: None,
        header_time,
        message_count: 0,
        first_message: String::new(),
    };
    for (i, e) in doc.entries.iter().enumerate() {
        if e.kind == EntryType::SessionInfo {
            info.name = entry::session_name(t, doc.spans[i]);
        }
        if e.kind != EntryType::Message {
            continue;
        }
        info.message_count += 1;
        let fields = json::members(t, doc.spans[i]);
        let Some(msg) = json::get(t, &fields, "message").filter(|m| m.kind == json::Kind::Object)
        else {
            continue;
        };
        let m = json::members(t, msg.value);
        let role = json::get(t, &m, "role")
            .filter(|r| r.kind == json::Kind::String)
            .and_then(|r| json::as_str(r.value.of(t)));
        let Some(content) = json::get(t, &m, "content") else {
            continue;
        };
        let role = role.as_deref().unwrap_or("");
        if role != "user" && role != "assistant" {
            continue;
        }
        // Last activity: the message's numeric timestamp, else the entry's.
        let activity = match json::get(t, &m, "timestamp") {
            Some(ts) if ts.kind == json::Kind::Number => Some(json::number(ts.value.of(t))),
            _ => match json::get(t, &fields, "timestamp") {
                Some(ts) if ts.kind == json::Kind::String => Some(e.time).filter(|x| !x.is_nan()),
                _ => None,
            },
        };
        if let Some(a) = activity {
            info.last_activity = Some(info.last_activity.unwrap_or(0.0).max(a));
        }
        // The text as the inside of a JSON string literal, so that what JS
        // strings hold and Rust strings cannot (lone surrogates) survives.
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
        let text = match content.kind {
            json::Kind::String => inner(content),
            json::Kind::Array => json::elements(t, content.value)
                .iter()
                .filter(|b| b.kind == json::Kind::Object)
                .filter_map(|b| {
                    let f = json::members(t, b.value);
                    let is_text = json::get(t, &f, "type")
                        .is_some_and(|ty| json::key_is(t, ty.value, "text"));
                    is_text.then(|| json::get(t, &f, "text").map(inner).unwrap_or_default())
                })
                .collect::<Vec<_>>()
                .join(" "),
            _ => continue,
        };
        if !text.is_empty() && info.first_message.is_empty() && role == "user" {
            info.first_message = format!("\"{text}\"");
        }
    }
    info.last_activity = info.last_activity.filter(|&a| a > 0.0);
    Some(info)
}
