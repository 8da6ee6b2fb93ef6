//! Tests written against mutants of `session_info`
//! (docs/mutation-log.md). Each case is pi 1.6's `buildSessionInfo` as
//! /work/shared/PI-CURRENT.md §6 states it, worked by hand.

use super::*;
use crate::time::IsoOnly;

const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/w","parentSession":"/p.jsonl"}"#;
/// `Date.parse("2025-03-01T10:00:00.000Z")` in Node.
const HEADER_MS: f64 = 1_740_823_200_000.0;

fn info(lines: &[&str]) -> SessionInfo {
    session_info(&lines.join("\n"), &IsoOnly).expect("a session")
}

/// A message entry with `message` written out.
fn msg(message: &str) -> String {
    format!(
        r#"{{"type":"message","id":"m","parentId":null,"timestamp":"2025-03-02T00:00:00.000Z","message":{message}}}"#
    )
}

#[test]
fn the_header_gives_id_cwd_parent_and_times() {
    let i = info(&[HEADER]);
    assert_eq!(i.id, "\"s\"");
    assert_eq!(i.cwd, "\"/w\"");
    assert_eq!(i.parent_session.as_deref(), Some("\"/p.jsonl\""));
    assert_eq!(i.created.as_deref(), Some("\"2025-03-01T10:00:00.000Z\""));
    // No message: no activity, and `modified` falls back to the header time.
    assert_eq!((i.last_activity, i.header_time), (None, Some(HEADER_MS)));
    assert_eq!((i.message_count, i.first_message.as_str()), (0, ""));
    // The header time counts only when it is a string that parses.
    let with_ts = |ts: &str| {
        let h = HEADER.replace(r#""2025-03-01T10:00:00.000Z""#, ts);
        info(&[&h])
    };
    let i = with_ts("1740823200000");
    assert_eq!(i.header_time, None);
    assert_eq!(i.created.as_deref(), Some("1740823200000"));
    assert_eq!(with_ts("\"soon\"").header_time, None);
    assert_eq!(with_ts("null").header_time, None);
    // `type` must be the string "session", wherever the key is.
    let not_session = HEADER.replace(r#""type":"session""#, r#""type":["session"]"#);
    assert_eq!(session_info(&not_session, &IsoOnly), None);
    let last_wins = HEADER.replace(r#""type":"session""#, r#""type":"x","type":"session""#);
    assert_eq!(
        session_info(&last_wins, &IsoOnly).map(|i| i.id),
        Some("\"s\"".into())
    );
}

#[test]
fn every_message_counts_but_only_user_and_assistant_give_text_and_time() {
    let system = msg(r#"{"role":"system","content":"rules","timestamp":9000000000000}"#);
    let tool = msg(r#"{"role":"toolResult","content":"out","timestamp":9000000000000}"#);
    let no_content = msg(r#"{"role":"user","timestamp":9000000000000}"#);
    let string_message = msg(r#""just text""#);
    let i = info(&[HEADER, &system, &tool, &no_content, &string_message]);
    assert_eq!(i.message_count, 4);
    assert_eq!((i.first_message.as_str(), i.last_activity), ("", None));
    // Entries of other types count for nothing, objects or not.
    let other = r#"{"type":"model_change","id":"c","parentId":null,"timestamp":"2025-03-03T00:00:00.000Z","message":{"role":"user","content":"no"}}"#;
    let i = info(&[HEADER, other, "42", "[1]", "\"message\"", "true"]);
    assert_eq!((i.message_count, i.first_message.as_str()), (0, ""));
    assert_eq!(i.last_activity, None);
    let typed = other.replace(r#""type":"model_change""#, r#""type":{"a":"message"}"#);
    assert_eq!(info(&[HEADER, &typed]).message_count, 0);
}

#[test]
fn the_first_non_empty_user_text_is_the_first_message() {
    let assistant = msg(r#"{"role":"assistant","content":"from the model"}"#);
    let empty = msg(r#"{"role":"user","content":""}"#);
    let blocks = msg(
        r#"{"role":"user","content":[{"type":"image","text":"no"},"text",{"type":"text","text":"a"},{"type":"text","text":5},{"type":"text"},{"type":"text","text":{}},{"type":"text","text":"b"}]}"#,
    );
    let later = msg(r#"{"role":"user","content":"later"}"#);
    let i = info(&[HEADER, &assistant, &empty, &blocks, &later]);
    // `["a", 5, undefined, {}, "b"].join(" ")` in JS.
    assert_eq!(i.first_message, "\"a 5  [object Object] b\"");
    assert_eq!(i.message_count, 4);
    // The last `role` and `content` of the message are the ones JSON.parse keeps.
    let twice = msg(r#"{"role":"assistant","content":"x","role":"user","content":"y"}"#);
    assert_eq!(info(&[HEADER, &twice]).first_message, "\"y\"");
    // Booleans and null in a text block, as `join` writes them.
    let odd = msg(
        r#"{"role":"user","content":[{"type":"text","text":true},{"type":"text","text":null},{"type":"text","text":false}]}"#,
    );
    assert_eq!(info(&[HEADER, &odd]).first_message, "\"true  false\"");
    // Content neither a string nor an array gives no text (pi throws there and
    // drops the file; see README, differences) and no first message.
    let number = msg(r#"{"role":"user","content":7}"#);
    assert_eq!(info(&[HEADER, &number, &later]).first_message, "\"later\"");
}

#[test]
fn activity_is_the_latest_message_time() {
    // A numeric `message.timestamp` wins; else `new Date(entry.timestamp)`
    // (2025-03-02T00:00:00.000Z is 1740873600000 in Node).
    let numeric = msg(r#"{"role":"user","content":"a","timestamp":1800000000000}"#);
    let earlier = msg(r#"{"role":"assistant","content":"b","timestamp":1700000000000}"#);
    let string_ts = msg(r#"{"role":"assistant","content":"c","timestamp":"1900000000000"}"#);
    assert_eq!(
        info(&[HEADER, &numeric, &earlier]).last_activity,
        Some(1_800_000_000_000.0)
    );
    assert_eq!(
        info(&[HEADER, &earlier, &numeric]).last_activity,
        Some(1_800_000_000_000.0)
    );
    assert_eq!(
        info(&[HEADER, &string_ts]).last_activity,
        Some(1_740_873_600_000.0)
    );
    // A negative time is below the 0 the max starts from: no activity.
    let negative = msg(r#"{"role":"user","content":"a","timestamp":-5}"#);
    assert_eq!(info(&[HEADER, &negative]).last_activity, None);
}

#[test]
fn the_latest_name_wins_and_a_blank_one_clears_it() {
    let name =
        |n: &str| format!(r#"{{"type":"session_info","id":"n","parentId":null,"name":{n}}}"#);
    let (first, second, blank) = (name("\" one \""), name("\"two\""), name("\"  \""));
    assert_eq!(info(&[HEADER, &first]).name.as_deref(), Some("\"one\""));
    assert_eq!(
        info(&[HEADER, &first, &second]).name.as_deref(),
        Some("\"two\"")
    );
    assert_eq!(info(&[HEADER, &first, &blank]).name, None);
    // A session_info entry is no message and gives no activity.
    let i = info(&[HEADER, &first]);
    assert_eq!((i.message_count, i.last_activity), (0, None));
}

#[test]
fn a_line_that_does_not_parse_repeats_nothing() {
    // Skipped lines must not count the line before them again.
    let user = msg(r#"{"role":"user","content":"hi"}"#);
    for bad in ["{", "{\"type\":", "   ", "nul", "0", "\"\"", "false"] {
        let i = info(&[HEADER, &user, bad, bad]);
        assert_eq!(i.message_count, 1, "{bad:?}");
    }
    // A `\r\n` between two messages is one line end, however it is read.
    let text = format!("{HEADER}\r\n{user}\r\n\r\n{user}");
    assert_eq!(
        session_info(&text, &IsoOnly).map(|i| i.message_count),
        Some(2)
    );
    let b = text.as_bytes();
    for piece in [1, 2, 7] {
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let got = session_info_in_pieces(b.len() as u64, piece, &mut read, &IsoOnly).unwrap();
        assert_eq!(got.map(|i| i.message_count), Some(2), "{piece}");
    }
}

#[test]
fn a_piece_size_of_zero_still_reads_the_file() {
    let user = msg(r#"{"role":"user","content":"hi"}"#);
    let text = format!("{HEADER}\n{user}");
    let b = text.as_bytes();
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let got = session_info_in_pieces(b.len() as u64, 0, &mut read, &IsoOnly).unwrap();
    assert_eq!(got, session_info(&text, &IsoOnly));
    assert_eq!(got.map(|i| i.message_count), Some(1));
}

#[test]
fn a_long_file_is_read_a_piece_at_a_time() {
    // 200 messages of up to ~120 bytes each, read 16 bytes at a time: each
    // piece is read into an emptied buffer (the torn line is held apart, by
    // `parse::LineRuns`, whose tests bound it).
    let lines: Vec<String> = (0..200)
        .map(|i| {
            msg(&format!(
                r#"{{"role":"user","content":"{}"}}"#,
                "x".repeat(i % 40)
            ))
        })
        .collect();
    let text = format!("{HEADER}\n{}", lines.join("\r\n"));
    let b = text.as_bytes();
    let mut most = 0;
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        most = most.max(buf.len() + (to - from) as usize);
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), ()>(())
    };
    let got = session_info_in_pieces(b.len() as u64, 16, &mut read, &IsoOnly).unwrap();
    // (The trim reads a window at either end first.)
    assert!(most <= 4096, "a read of {most} bytes");
    assert_eq!(got.map(|i| i.message_count), Some(200));
}

#[test]
fn a_name_is_read_as_pi_reads_it() {
    // `entry.name?.trim() || undefined` (getSessionName, and the list).
    let name = |line: &str| session_name(line, Span::new(0, line.len()));
    let line =
        |n: &str| format!(r#"{{"type":"session_info","id":"n","parentId":null,"name":{n}}}"#);
    assert_eq!(name(&line("\" a b\\n\"")), Some("\"a b\"".into()));
    assert_eq!(name(&line("\"\\u2028\"")), None);
    assert_eq!(name(&line("null")), None);
    assert_eq!(
        name(r#"{"type":"session_info","id":"n","parentId":null}"#),
        None
    );
    // Not a string: pi throws; no name here (README, differences).
    assert_eq!(name(&line("5")), None);
    assert_eq!(name(&line("[\"a\"]")), None);
    let n5 = line("5");
    assert_eq!(info(&[HEADER, &line("\"kept\""), &n5]).name, None);
}
