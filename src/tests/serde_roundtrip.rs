//! The `serde` feature's types lose nothing (`cargo test --features serde`).
//!
//! For every entry of a session, reading it into [`FileEntry`] and writing
//! it back gives the JSON value of its line, numbers compared as JS compares
//! them (`1` and `1.0` are one number) and key order aside:
//! - on pi-shaped sessions generated here, with every entry type, message
//!   role and block type, optional fields present or not, and fields the
//!   types do not name, every entry reads as its typed variant;
//! - on the generated sessions of `properties` (numeric ids, missing fields,
//!   messages that are strings, unknown types), an entry either reads and
//!   writes back whole or is refused, never changed;
//! - on the session pi 1.6 answered for (`tests/fixtures/pi16-context.json`).
//!
//! (pi's own files are read back by `tests/rust-consumer`, against the lines
//! pi wrote.)

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::properties::{session_strategy, session_text};
use crate::types::{AgentMessage, ContentBlock, FileEntry};
use crate::SessionFile;

/// `a` and `b` are the same JSON value as `JSON.parse` gives it.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Reads every entry of `text` and writes it back; returns how many read
/// as a typed variant (not `Other`) and the ids of those refused.
fn round_trip(text: &str) -> Result<(usize, Vec<String>), TestCaseError> {
    let session = SessionFile::from_str(text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let (mut typed, mut refused) = (0, Vec::new());
    for entry in session.entries() {
        let line: Value = match serde_json::from_str(entry.json()) {
            Ok(v) => v,
            // serde_json refuses what JSON.parse reads (1e400, lone surrogates).
            Err(_) => continue,
        };
        let owned: FileEntry = match entry.deserialize() {
            Ok(e) => e,
            Err(_) => {
                refused.push(entry.id().unwrap_or_default().into_owned());
                continue;
            }
        };
        if !matches!(owned, FileEntry::Other(_)) {
            typed += 1;
        }
        let back = serde_json::to_value(&owned).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(
            same(&back, &line),
            "{}\nwritten back as\n{}",
            entry.json(),
            back
        );
    }
    Ok((typed, refused))
}

/// A small deterministic source for the shapes below (the strategy draws its seed).
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self) -> bool {
        self.below(2) == 0
    }
    fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
        of[self.below(of.len() as u64) as usize]
    }
    fn text(&mut self) -> String {
        let n = self.below(4);
        (0..n)
            .map(|_| self.pick(&["a", "é", "日本", "🙂", "\"", "\\", "\n", " ", "\u{2028}"]))
            .collect()
    }
    fn number(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.below(100)),
            1 => json!(1_767_225_600_000u64 + self.below(1 << 30)),
            2 => json!(self.below(1_000_000) as f64 / 7.0),
            _ => json!(0.1 + self.below(10) as f64),
        }
    }
    fn any(&mut self) -> Value {
        match self.below(6) {
            0 => Value::Null,
            1 => json!(self.chance()),
            2 => self.number(),
            3 => json!(self.text()),
            4 => json!([self.text(), self.number(), null]),
            _ => json!({ "k": self.text(), "n": { "m": [1, 2.5] } }),
        }
    }
    /// Sets `key` to `value` half the time.
    fn maybe(&mut self, o: &mut Map<String, Value>, key: &str, value: Value) {
        if self.chance() {
            o.insert(key.into(), value);
        }
    }
    /// A field the types do not name, now and then.
    fn extra(&mut self, o: &mut Map<String, Value>) {
        if self.below(3) == 0 {
            let v = self.any();
            o.insert(format!("x{}", self.below(3)), v);
        }
    }
    fn usage(&mut self) -> Value {
        let mut cost = Map::new();
        for k in ["input", "output", "cacheRead", "cacheWrite", "total"] {
            cost.insert(k.into(), self.number());
        }
        self.maybe(&mut cost, "totalFromProvider", json!(true));
        self.extra(&mut cost);
        let mut u = Map::new();
        for k in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
            u.insert(k.into(), self.number());
        }
        let n = self.number();
        self.maybe(&mut u, "cacheWrite1h", n);
        let n = self.number();
        self.maybe(&mut u, "reasoning", n);
        u.insert("cost".into(), Value::Object(cost));
        self.extra(&mut u);
        Value::Object(u)
    }
    fn block(&mut self, kinds: &[&str]) -> Value {
        let mut b = Map::new();
        let kind = self.pick(kinds);
        b.insert("type".into(), json!(kind));
        match kind {
            "text" => {
                b.insert("text".into(), json!(self.text()));
            }
            "thinking" => {
                b.insert("thinking".into(), json!(self.text()));
                let s = json!(self.text());
                self.maybe(&mut b, "thinkingSignature", s);
            }
            "toolCall" => {
                b.insert("id".into(), json!(format!("call_{}", self.below(99))));
                b.insert("name".into(), json!(self.pick(&["bash", "read"])));
                b.insert("arguments".into(), json!({ "command": self.text() }));
            }
            "image" => {
                b.insert("data".into(), json!("aGk="));
                b.insert("mimeType".into(), json!("image/png"));
            }
            _ => {
                b.insert("payload".into(), self.any());
            }
        }
        self.extra(&mut b);
        Value::Object(b)
    }
    fn content(&mut self, kinds: &[&str]) -> Value {
        if self.chance() {
            json!(self.text())
        } else {
            let n = self.below(3);
            Value::Array((0..n).map(|_| self.block(kinds)).collect())
        }
    }
    fn blocks(&mut self, kinds: &[&str]) -> Value {
        let n = self.below(4);
        Value::Array((0..n).map(|_| self.block(kinds)).collect())
    }
    fn message(&mut self) -> Value {
        let mut m = Map::new();
        let role = self.pick(&[
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "system",
            "branchSummary",
            "compactionSummary",
            "futureRole",
        ]);
        m.insert("role".into(), json!(role));
        let ts = self.number();
        self.maybe(&mut m, "timestamp", ts);
        let text = json!(self.text());
        match role {
            "user" => {
                m.insert("content".into(), self.content(&["text", "image"]));
            }
            "assistant" => {
                m.insert(
                    "content".into(),
                    self.blocks(&["text", "thinking", "toolCall", "redacted"]),
                );
                for k in ["api", "provider", "model", "responseId", "stopReason"] {
                    self.maybe(&mut m, k, text.clone());
                }
                let u = self.usage();
                self.maybe(&mut m, "usage", u);
                let n = self.number();
                self.maybe(&mut m, "durationMs", n);
                self.maybe(&mut m, "endTurn", json!(true));
            }
            "toolResult" => {
                m.insert("toolCallId".into(), json!("call_1"));
                m.insert("toolName".into(), json!("bash"));
                m.insert("content".into(), self.blocks(&["text", "image"]));
                let d = self.any();
                self.maybe(&mut m, "details", d);
                self.maybe(&mut m, "isError", json!(false));
                let u = self.usage();
                self.maybe(&mut m, "usage", u);
            }
            "bashExecution" => {
                m.insert("command".into(), text.clone());
                m.insert("output".into(), text);
                let code = if self.chance() {
                    Value::Null
                } else {
                    json!(self.below(3))
                };
                self.maybe(&mut m, "exitCode", code);
                self.maybe(&mut m, "cancelled", json!(false));
                self.maybe(&mut m, "excludeFromContext", json!(true));
            }
            "custom" => {
                m.insert("customType".into(), json!("ext"));
                m.insert("content".into(), self.content(&["text", "image"]));
                self.maybe(&mut m, "display", json!(true));
                let d = self.any();
                self.maybe(&mut m, "details", d);
            }
            "system" => {
                m.insert("content".into(), self.content(&["text"]));
                self.maybe(&mut m, "sections", json!({ "a": text, "b": null }));
                self.maybe(
                    &mut m,
                    "toolsAdded",
                    json!([{ "name": "bash", "description": "run", "parameters": { "type": "object" } }]),
                );
                self.maybe(&mut m, "toolsRemoved", json!([{ "name": "read" }]));
            }
            "branchSummary" => {
                m.insert("summary".into(), text);
                m.insert("fromId".into(), json!("00000001"));
            }
            "compactionSummary" => {
                m.insert("summary".into(), text);
                m.insert("tokensBefore".into(), self.number());
            }
            _ => {
                m.insert("anything".into(), self.any());
            }
        }
        self.extra(&mut m);
        Value::Object(m)
    }
    /// One entry of type `kind`, child of `parent`.
    fn entry(&mut self, kind: &str, id: usize, parent: Option<usize>) -> Value {
        let mut e = Map::new();
        e.insert("type".into(), json!(kind));
        e.insert("id".into(), json!(format!("{id:08x}")));
        e.insert("parentId".into(), json!(parent.map(|p| format!("{p:08x}"))));
        e.insert("timestamp".into(), json!("2026-01-01T00:00:00.000Z"));
        let target = json!(format!("{:08x}", parent.unwrap_or(1)));
        let text = json!(self.text());
        match kind {
            "message" => {
                e.insert("message".into(), self.message());
            }
            "thinking_level_change" => {
                e.insert("thinkingLevel".into(), json!(self.pick(&["off", "high"])));
            }
            "model_change" => {
                e.insert("provider".into(), json!("openai"));
                e.insert("modelId".into(), text);
            }
            "compaction" => {
                e.insert("summary".into(), text);
                e.insert("firstKeptEntryId".into(), target);
                e.insert("tokensBefore".into(), self.number());
                let d = self.any();
                self.maybe(&mut e, "details", d);
                let u = self.usage();
                self.maybe(&mut e, "usage", u);
                self.maybe(&mut e, "fromHook", json!(false));
                let m = json!({ "role": "system", "content": "base", "timestamp": 5 });
                self.maybe(&mut e, "systemMessage", m);
            }
            "branch_summary" => {
                e.insert("fromId".into(), target);
                e.insert("summary".into(), text);
                let d = self.any();
                self.maybe(&mut e, "details", d);
                let u = self.usage();
                self.maybe(&mut e, "usage", u);
            }
            "usage" => {
                e.insert("kind".into(), json!("cache_warm"));
                e.insert("provider".into(), json!("anthropic"));
                e.insert("model".into(), json!("claude"));
                e.insert("usage".into(), self.usage());
                self.maybe(&mut e, "note", text);
            }
            "context_edit" => {
                e.insert("targetId".into(), target);
                let r = if self.chance() {
                    Value::Null
                } else {
                    json!({ "content": self.content(&["text", "image", "thinking", "toolCall"]) })
                };
                e.insert("replacement".into(), r);
            }
            "custom" => {
                e.insert("customType".into(), json!("ext"));
                let d = self.any();
                self.maybe(&mut e, "data", d);
            }
            "custom_message" => {
                e.insert("customType".into(), json!("ext"));
                e.insert("content".into(), self.content(&["text", "image"]));
                e.insert("display".into(), json!(self.chance()));
                let d = self.any();
                self.maybe(&mut e, "details", d);
            }
            "label" => {
                e.insert("targetId".into(), target);
                self.maybe(&mut e, "label", text);
            }
            "session_info" => {
                self.maybe(&mut e, "name", text);
            }
            _ => {
                e.insert("whatever".into(), self.any());
            }
        }
        self.extra(&mut e);
        Value::Object(e)
    }
}

const KINDS: &[&str] = &[
    "message",
    "message",
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "usage",
    "context_edit",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "future_kind",
];

/// A pi-shaped session of `n` entries drawn from `seed`, and how many of its
/// lines are of a type the types know.
fn pi_shaped(seed: u64, n: usize) -> (String, usize) {
    let mut d = Draw(seed | 1);
    let mut header = json!({ "type": "session", "version": 3, "id": "0193f2a4-0000-7000-8000-000000000001",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": d.text() });
    if d.chance() {
        header["parentSession"] = json!("/s/a.jsonl");
    }
    let mut lines = vec![header.to_string()];
    let mut known = 1;
    for i in 0..n {
        let kind = d.pick(KINDS);
        known += usize::from(kind != "future_kind");
        let parent = (i > 0).then(|| d.below(i as u64) as usize + 1);
        lines.push(d.entry(kind, i + 1, parent).to_string());
    }
    (lines.join("\n") + "\n", known)
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pi_shaped_entries_read_typed_and_write_back_whole(seed in any::<u64>(), n in 0usize..40) {
        let (text, known) = pi_shaped(seed, n);
        let (typed, refused) = round_trip(&text)?;
        prop_assert!(refused.is_empty(), "{:?} refused in\n{}", refused, text);
        prop_assert_eq!(typed, known, "{}", text);
    }

    #[test]
    fn generated_entries_write_back_whole_or_are_refused(s in session_strategy()) {
        round_trip(&session_text(&s))?;
    }
}

#[test]
fn the_pi_16_fixture_reads_typed_and_writes_back_whole() {
    let pi: Value =
        serde_json::from_str(include_str!("../../tests/fixtures/pi16-context.json")).unwrap();
    let text = pi["text"].as_str().unwrap();
    let (typed, refused) = round_trip(text).unwrap();
    // The fixture's odd lines, which pi reads but its types do not allow: a
    // tool result without its tool's name, a `null` content, a replacement
    // whose content is a number or missing.
    assert_eq!(refused, ["cn", "t1", "n1", "e10", "e11"]);
    assert_eq!(
        typed + refused.len(),
        SessionFile::from_str(text).unwrap().len()
    );
}

#[test]
fn what_the_types_cannot_hold_is_refused_with_the_field_named() {
    let refused = |line: &str| {
        serde_json::from_str::<FileEntry>(line)
            .unwrap_err()
            .to_string()
    };
    // A null where a string is due would be dropped on the way back.
    let e = refused(
        r#"{"type":"label","id":"l","parentId":null,"timestamp":"t","targetId":"a","label":null}"#,
    );
    assert!(
        e.contains("an entry of type `label`") && e.contains("null"),
        "{e}"
    );
    let e = refused(
        r#"{"type":"model_change","id":"m","parentId":"p","timestamp":"t","provider":"x"}"#,
    );
    assert!(e.contains("modelId"), "{e}");
    // `parentId` must be there (`null` for a root).
    let e = refused(r#"{"type":"custom","id":"c","timestamp":"t","customType":"x"}"#);
    assert!(e.contains("parentId"), "{e}");
}

#[test]
fn unknown_roles_and_blocks_are_kept_as_they_are() {
    let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"redacted","data":"x"},{"type":"text","text":"hi","cache":true}],"timestamp":1.5e12}}"#;
    let FileEntry::Message(m) = serde_json::from_str::<FileEntry>(line).unwrap() else {
        panic!()
    };
    let AgentMessage::Assistant(a) = &m.message else {
        panic!()
    };
    assert!(matches!(&a.content[0], ContentBlock::Other(v) if v["type"] == "redacted"));
    let ContentBlock::Text(t) = &a.content[1] else {
        panic!()
    };
    assert_eq!((t.text.as_str(), &t.extra["cache"]), ("hi", &json!(true)));
    assert_eq!(a.timestamp, Some(1.5e12));
    // Written as JSON.stringify writes the number.
    let back = serde_json::to_string(&FileEntry::Message(m)).unwrap();
    assert!(back.contains(r#""timestamp":1500000000000"#), "{back}");
    let other: FileEntry =
        serde_json::from_str(r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"robot","beep":1}}"#).unwrap();
    let FileEntry::Message(m) = other else {
        panic!()
    };
    assert_eq!(m.message.role(), Some("robot"));
}

#[test]
fn a_lone_surrogate_reads_as_the_replacement_character() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x\ud800y\ud83d\ude42\\ud800"}}"#,
        "\n",
    );
    let session = SessionFile::from_str(text).unwrap();
    let FileEntry::Message(m) = session.leaf().unwrap().deserialize().unwrap() else {
        panic!()
    };
    let AgentMessage::User(u) = m.message else {
        panic!()
    };
    assert_eq!(
        u.content,
        crate::types::Content::Text("x\u{fffd}y🙂\\ud800".into())
    );
}

/// What `entry.type`, `entry.id`, `entry.parentId`, `message.role` and each
/// block's `type` are in JS (each a string, or undefined), for the lines as
/// written.
fn js_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Each block's `type` in a message's content (an array, or a string: none).
fn block_kinds(content: &Value) -> Vec<Option<&str>> {
    content
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().map(|b| js_str(b, "type")).collect())
}

fn kinds_of(blocks: &[ContentBlock]) -> Vec<Option<&str>> {
    blocks.iter().map(ContentBlock::kind).collect()
}

/// The accessors of the typed entries give what JS reads from the line.
#[test]
fn the_accessors_read_what_js_reads_from_the_line() {
    use crate::types::Content;
    let mut kinds = std::collections::BTreeSet::new();
    let mut roles = std::collections::BTreeSet::new();
    let mut blocks = std::collections::BTreeSet::new();
    let mut lines: Vec<String> = (1..60)
        .flat_map(|seed| {
            let (text, _) = pi_shaped(seed, 40);
            text.lines().map(str::to_owned).collect::<Vec<_>>()
        })
        .collect();
    lines.extend(
        [
            r#"{"type":"future","id":"x","parentId":"y"}"#,
            r#"{"type":"future","id":5,"parentId":null}"#,
            r#"{"id":"z"}"#,
            r#"[1]"#,
            r#""message""#,
        ]
        .map(str::to_owned),
    );
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        let entry: FileEntry = serde_json::from_str(line).unwrap();
        let kind = js_str(&v, "type");
        assert_eq!(entry.kind(), kind, "{line}");
        assert_eq!(entry.id(), js_str(&v, "id"), "{line}");
        assert_eq!(entry.parent_id(), js_str(&v, "parentId"), "{line}");
        let typed = !matches!(entry, FileEntry::Other(_));
        let tree_entry = typed && kind != Some("session");
        assert_eq!(entry.base().is_some(), tree_entry, "{line}");
        if let Some(base) = entry.base() {
            assert_eq!(Some(base.id.as_str()), js_str(&v, "id"), "{line}");
            assert_eq!(base.parent_id.as_deref(), js_str(&v, "parentId"), "{line}");
            assert_eq!(Some(base.timestamp.as_str()), js_str(&v, "timestamp"));
        }
        if typed {
            kinds.insert(kind.unwrap().to_owned());
        }
        if let FileEntry::Message(m) = &entry {
            let message = &v["message"];
            assert_eq!(m.message.role(), js_str(message, "role"), "{line}");
            if !matches!(m.message, AgentMessage::Other(_)) {
                roles.insert(js_str(message, "role").unwrap().to_owned());
            }
            let got = match &m.message {
                AgentMessage::User(u) => match &u.content {
                    Content::Blocks(b) => kinds_of(b),
                    Content::Text(_) => Vec::new(),
                },
                AgentMessage::Assistant(a) => kinds_of(&a.content),
                AgentMessage::ToolResult(t) => kinds_of(&t.content),
                _ => continue,
            };
            assert_eq!(got, block_kinds(&message["content"]), "{line}");
            blocks.extend(got.into_iter().flatten().map(str::to_owned));
        }
    }
    // Every entry type, role and block type was among them.
    assert_eq!(kinds.len(), 12, "{kinds:?}");
    assert_eq!(roles.len(), 8, "{roles:?}");
    for block in ["text", "thinking", "toolCall", "image"] {
        assert!(blocks.contains(block), "{block} in {blocks:?}");
    }
}
