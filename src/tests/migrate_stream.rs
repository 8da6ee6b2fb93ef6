//! A migration streamed from a source by piece (`migrate::stream`) against
//! the whole text's (`plan` and `apply_to_text` over a `Document`).

use proptest::prelude::*;

use crate::document::Document;
use crate::migrate::stream::migrate_in_pieces;
use crate::migrate::{apply_to_text, plan};

/// Ids counting up from 1, skipping taken ones: the same ids for the same
/// walk, whichever path asks.
fn counter() -> impl FnMut(&crate::ids::Taken) -> Result<String, String> {
    let mut n = 0u32;
    move |taken: &crate::ids::Taken| loop {
        n += 1;
        let id = format!("{n:08x}");
        if !taken.contains(&id) {
            return Ok(id);
        }
    }
}

/// The whole-text migration of `bytes` (decoded as `TextDecoder` does), or
/// `None` for a current session.
fn whole(bytes: &[u8]) -> Option<Vec<u8>> {
    let doc = Document::parse(&crate::parse::decode(bytes));
    let mut ids = counter();
    let edits = plan(&doc.entries, &mut |taken| ids(taken).unwrap())?;
    Some(apply_to_text(&doc.text, &doc.lines, &edits).into_bytes())
}

/// The migration of `bytes` read `piece` bytes at a time, with the pieces
/// written out; `None` for a current session (then nothing is written).
fn streamed(bytes: &[u8], piece: usize) -> Option<Vec<u8>> {
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&bytes[from as usize..to as usize]);
        Ok::<(), String>(())
    };
    let mut out = Vec::new();
    let mut write = |b: &[u8]| {
        out.extend_from_slice(b);
        Ok(())
    };
    let migrated = migrate_in_pieces(
        bytes.len() as u64,
        piece,
        &mut read,
        &mut counter(),
        &mut write,
    )
    .unwrap();
    if !migrated {
        assert!(out.is_empty(), "a current session writes nothing");
        return None;
    }
    Some(out)
}

fn same_in_all_pieces(bytes: &[u8]) {
    let expected = whole(bytes);
    for piece in [1, 2, 3, 5, 7, 16, 64, 4096, 1 << 20] {
        let got = streamed(bytes, piece);
        assert_eq!(
            got.as_deref().map(String::from_utf8_lossy),
            expected.as_deref().map(String::from_utf8_lossy),
            "{:?} in pieces of {piece}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn in_pieces_the_migration_is_the_whole_texts() {
    let header = r#"{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/é"}"#;
    let texts: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"  \n \n".to_vec(),
        b"garbage".to_vec(),
        // v1: ids, a chain, kept entry ids (backward, forward, header, out of range)
        format!(
            "\u{feff}{header}\n{{\"type\":\"message\",\"message\":{{\"role\":\"user\",\"content\":\"h🙂i\"}}}}\r\n\nnot json\n  {{ \"type\": \"message\" }}  \n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":1,\"tokensBefore\":5}}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":7}}\n{{\"type\":\"message\",\"id\":\"00000002\"}}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":0,\"firstKeptEntryId\":\"old\"}}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":1.5}}\nnull\n0\n[1]\n{{\"type\":\"message\",\"message\":{{\"role\":\"hookMessage\",\"n\":1}}}}\n\n \u{a0}\n"
        )
        .into_bytes(),
        // v1 without a header, and with one further down
        b"{\"type\":\"message\"}\n{\"type\":\"session\",\"version\":1}\n{\"type\":\"message\",\"id\":\"x\"}".to_vec(),
        // v2: only renames and the version
        b"{\"type\":\"session\",\"version\":2}\n\n{\"type\":\"message\",\"id\":\"x\",\"parentId\":null,\"message\":{\"role\":\"hookMessage\",\"n\":1}}\r\n{\"type\":\"session\",\"version\":2}".to_vec(),
        // no step at all (NaN), still a rewrite with a final newline
        b"{\"type\":\"session\",\"version\":\"x\"}\n{\"type\":\"message\"}".to_vec(),
        // current: nothing written
        b"{\"type\":\"session\",\"version\":3}\n{\"type\":\"message\"}".to_vec(),
        b"{\"type\":\"message\"}\n{\"type\":\"session\",\"version\":3}\n".to_vec(),
        // duplicate keys: the last one is the one JSON.parse keeps
        b"{\"type\":\"session\",\"version\":0,\"version\":1}\n{\"type\":\"message\",\"id\":5,\"id\":6}\n".to_vec(),
        // invalid UTF-8 inside and between entries, a torn last line
        b"{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"t\":\"\xff\xe2\x82\"}\n\xf0\x9f\n{\"type\":\"message\",\"t\":\"\xc3\xa9\"}\n{\"type\":\"mess\xc3".to_vec(),
        // a line longer than any piece
        format!("{header}\n{{\"type\":\"message\",\"message\":{{\"content\":\"{}\"}}}}\n", "é\\\"".repeat(3000)).into_bytes(),
    ];
    for bytes in &texts {
        same_in_all_pieces(bytes);
    }
    assert_eq!(streamed(&texts[7], 3), None);
    assert_eq!(streamed(&texts[8], 3), None);
}

#[test]
fn a_current_file_is_read_only_up_to_its_header() {
    let text = format!(
        "{{\"type\":\"session\",\"version\":3}}\n{}",
        "{\"type\":\"message\"}\n".repeat(1000)
    );
    let mut furthest = 0;
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        // The trim reads a window at the end: count the reads after the start.
        if from < 4096 {
            furthest = furthest.max(to);
        }
        buf.extend_from_slice(&text.as_bytes()[from as usize..to as usize]);
        Ok::<(), String>(())
    };
    let mut write = |_: &[u8]| -> Result<(), String> { panic!("nothing is written") };
    let migrated =
        migrate_in_pieces(text.len() as u64, 64, &mut read, &mut counter(), &mut write).unwrap();
    assert!(!migrated);
    assert!(furthest <= 4096, "read up to {furthest}");
}

#[test]
fn the_first_failure_ends_the_migration_and_is_the_answer() {
    let text =
        "{\"type\":\"session\"}\n{\"type\":\"message\"}\n{\"type\":\"message\"}\n".repeat(50);
    let b = text.as_bytes();
    // A read failing at some offset; an id source failing on its second id;
    // a writer failing on its first piece.
    for fail_at in [0, 10, 100, b.len() as u64 - 1] {
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            if (from..to).contains(&fail_at) {
                return Err(format!("read {from}"));
            }
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok(())
        };
        let got = migrate_in_pieces(
            b.len() as u64,
            7,
            &mut read,
            &mut counter(),
            &mut |_| Ok(()),
        );
        assert!(
            matches!(got, Err(ref e) if e.starts_with("read")),
            "{got:?}"
        );
    }
    let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
        buf.extend_from_slice(&b[from as usize..to as usize]);
        Ok::<(), String>(())
    };
    let mut calls = 0;
    let mut ids = |_: &crate::ids::Taken| {
        calls += 1;
        if calls == 2 {
            Err("no ids".to_owned())
        } else {
            Ok(format!("{calls:08x}"))
        }
    };
    let mut writes = 0;
    let got = migrate_in_pieces(b.len() as u64, 5, &mut read, &mut ids, &mut |_| {
        writes += 1;
        Ok(())
    });
    assert_eq!(got, Err("no ids".to_owned()));
    assert_eq!(calls, 2, "no id is drawn after the failure");
    assert_eq!(
        writes, 0,
        "what is before it is less than a piece of output"
    );
    let mut writes = 0;
    let got = migrate_in_pieces(b.len() as u64, 5, &mut read, &mut counter(), &mut |_| {
        writes += 1;
        Err("disk full".to_owned())
    });
    assert_eq!(got, Err("disk full".to_owned()));
    assert_eq!(writes, 1);
}

/// Lines an old file may hold, v1 entries mostly.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just(r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"é🙂"}}"#.to_owned()),
        1 => Just(r#"{"type":"message","message":{"role":"hookMessage"}}"#.to_owned()),
        1 => (0u32..12).prop_map(|i| format!(r#"{{"type":"compaction","firstKeptEntryIndex":{i},"summary":"s"}}"#)),
        1 => (0u32..4).prop_map(|i| format!(r#"{{"type":"message","id":"{i:08x}"}}"#)),
        1 => Just(r#"{"type":"session","id":"s","version":1}"#.to_owned()),
        1 => Just(r#" { "type" : "message" } "#.to_owned()),
        1 => prop_oneof![Just(""), Just("not json"), Just("null"), Just("[1]"), Just("\u{a0}"), Just("{\"a\":\"\\u00e9")]
            .prop_map(str::to_owned),
    ]
}

proptest! {
    #[test]
    fn generated_old_files_migrate_in_pieces_as_whole(
        header in prop_oneof![
            Just(r#"{"type":"session","id":"00000001","timestamp":"t","cwd":"/"}"#),
            Just(r#"{"type":"session","version":2}"#),
            Just(""),
        ],
        lines in prop::collection::vec(line(), 0..20),
        crlf in any::<bool>(),
        last_newline in any::<bool>(),
        piece in 1usize..40,
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("{header}{end}{}", lines.join(end));
        if last_newline {
            text.push('\n');
        }
        prop_assert_eq!(
            streamed(text.as_bytes(), piece).map(String::from_utf8),
            whole(text.as_bytes()).map(String::from_utf8),
            "{:?}", text
        );
    }
}

/// The ids of a migration are those of the words drawn, whichever path
/// gives them: the one pass (which may give up after drawing some, as the
/// bytes path of `migrate` runs it, its words then replayed to the two
/// steps) and the stream give the same text for the same words.
#[test]
fn the_same_words_give_the_same_ids_on_every_path() {
    use crate::ids::{hex, Replay};
    use crate::migrate::try_migrate_in_one_pass;

    /// Words counting up from 1 (collisions come: ids already in the files).
    fn words() -> impl FnMut() -> Result<[u8; 4], String> {
        let mut n = 0u32;
        move || {
            n += 1;
            Ok(n.to_be_bytes())
        }
    }
    fn bytes_path(text: &str) -> String {
        let mut fresh = words();
        let mut replay = Replay::recording();
        let one_pass = try_migrate_in_one_pass(text, &mut || replay.word_from(&mut fresh));
        if let Some(out) = one_pass.unwrap() {
            return out;
        }
        replay.rewind();
        let doc = Document::parse(text);
        let mut id =
            |taken: &crate::ids::Taken| replay.id_from(taken, &mut fresh).map(Option::unwrap);
        let edits = crate::migrate::try_plan(&doc.entries, &mut id)
            .unwrap()
            .unwrap();
        apply_to_text(&doc.text, &doc.lines, &edits)
    }
    fn stream_path(text: &str) -> String {
        let mut fresh = words();
        let mut new_id = |taken: &crate::ids::Taken| loop {
            let id = hex(&fresh()?);
            if !taken.contains(&id) {
                return Ok(id);
            }
        };
        let b = text.as_bytes();
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok(())
        };
        let mut out = Vec::new();
        let mut write = |bytes: &[u8]| {
            out.extend_from_slice(bytes);
            Ok(())
        };
        let streamed =
            migrate_in_pieces::<String>(b.len() as u64, 5, &mut read, &mut new_id, &mut write);
        assert!(streamed.unwrap());
        String::from_utf8(out).unwrap()
    }
    let header = r#"{"type":"session","id":"00000003"}"#;
    let m = r#"{"type":"message"}"#;
    for text in [
        // The one pass takes these on.
        format!("{header}\n{m}\n{m}\n{m}\n"),
        // It gives up after drawing: at a second header, at an entry with
        // an id of its own (which a later word collides with), at a
        // firstKeptEntryIndex ahead.
        format!("{header}\n{m}\n{m}\n{header}\n{m}\n"),
        format!("{header}\n{m}\n{m}\n{{\"type\":\"message\",\"id\":\"00000005\"}}\n{m}\n{m}\n"),
        format!("{header}\n{m}\n{{\"type\":\"compaction\",\"firstKeptEntryIndex\":4}}\n{m}\n{m}\n"),
    ] {
        let bytes = bytes_path(&text);
        assert_eq!(stream_path(&text), bytes, "{text}");
        // (and the words were used: the first new id is the first free word)
        assert!(bytes.contains("\"id\":\"00000001\""), "{bytes}");
    }
}

/// The module's promise of cost: a v1 file is read twice (once for its ids,
/// once to write), a v2 file once and its first piece; each pass also trims
/// the text from windows of 4 KiB at either end (`parse::trimmed_range`).
/// The bytes between the lines (here blank lines, 40 KB of them) come from
/// the piece that held them, not from a read of their own, unless they
/// straddle two pieces.
#[test]
fn old_files_are_read_once_per_pass() {
    const TRIMS: u64 = 4 * 4096;
    let entry = r#"{"type":"message","message":{"role":"user","content":"x"}}"#;
    let gap = "\n".repeat(20);
    for (header, passes, pieces) in [
        (
            r#"{"type":"session","id":"s"}"#,
            2,
            &[1 << 20, 4096, 1000][..],
        ),
        (r#"{"type":"session","version":2}"#, 1, &[4096, 1000][..]),
    ] {
        let mut text = header.to_owned();
        for _ in 0..2000 {
            text.push_str(&gap);
            text.push_str(entry);
        }
        let b = text.as_bytes();
        let len = b.len() as u64;
        for &piece in pieces {
            let mut total = 0u64;
            let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
                total += to - from;
                buf.extend_from_slice(&b[from as usize..to as usize]);
                Ok::<(), String>(())
            };
            let mut out = Vec::new();
            let mut write = |bytes: &[u8]| {
                out.extend_from_slice(bytes);
                Ok(())
            };
            let migrated =
                migrate_in_pieces(len, piece, &mut read, &mut counter(), &mut write).unwrap();
            assert!(migrated);
            assert_eq!(Some(out), whole(b), "{header} in pieces of {piece}");
            // The first pass of a v2 file stops after the piece that holds
            // its header.
            let first = if passes == 1 { piece as u64 } else { 0 };
            let straddling = (len / piece as u64 + 1) * gap.len() as u64;
            assert!(
                total <= passes * len + first + TRIMS + straddling,
                "{header} in pieces of {piece}: {total} bytes read of {len}"
            );
        }
    }
}
