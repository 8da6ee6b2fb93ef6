//! `parseSession`, `migrate` and `countEntries`: JSONL read line by line.

use js_sys::{JsString, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{entries_of, get, key_value, parse_values, set};
use super::error::Api;
use super::host::JsDates;
use super::js::{copy_bytes, is_bytes, is_thenable, well_formed};
use super::read::{append_bytes, bytes_of, function_option, Accept, GivenLines, Reader, Source};
use crate::document::Document;
use crate::ids;
use crate::migrate::{self, Edit};
use crate::parse;

/// Parses JSONL as pi's `parseSessionEntries` does: blank and malformed lines
/// are skipped, or with `{ strict: true }` the first malformed line throws.
#[wasm_bindgen(js_name = parseSession, skip_typescript)]
pub fn parse_session(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let reader = Reader::new(Api("parseSession"), &options)?;
    let strict = reader.options.strict.unwrap_or(false);
    let text = match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => text,
        Source::Entries(array) => return Ok(array.slice(0, array.length()).into()),
    };
    let (spans, first_error) = parse::value_spans(&text);
    if let Some(mut e) = first_error.filter(|_| strict) {
        // Told of the line as a string gave it (lone surrogates).
        if let Some(s) = source.dyn_ref::<JsString>() {
            (e.column, e.reason) = GivenLines::of(s).error(e.line, e.column, &e.reason);
        }
        let err = js_sys::SyntaxError::new(&format!("parseSession: {e}"));
        set(&err, "line", &JsValue::from(e.line as u32))?;
        set(&err, "column", &JsValue::from(e.column as u32))?;
        return Err(err.into());
    }
    Ok(parse_values(&text, &spans).into())
}

/// Migrates to v3. An entry array is changed in place (returns whether anything
/// was migrated); JSONL comes back migrated in the form it came in: a string as
/// a string, bytes as bytes (which a host stores without a decode and an
/// encode). A current file comes back unchanged.
#[wasm_bindgen(js_name = migrate, skip_typescript)]
pub fn migrate(source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let api = Api("migrate");
    let reader = Reader::new(api, &options)?;
    let no_random = |e| api.no_random(e);
    let pieces = reader.pieces(&source)?;
    if let Some(write) = function_option(api, &options, "write")? {
        // Streamed: read a piece at a time, written out as it is made.
        let Some(pieces) = pieces else {
            return Err(api.must_be("source", "a byte source (with options.write)", &source));
        };
        let mut read = |from, to, buf: &mut Vec<u8>| pieces.read(from, to, buf);
        let mut new_id = |taken: &ids::Taken| ids::random_id(taken).map_err(no_random);
        // A write that returns a promise has not written yet: the pieces
        // after it would go out before it lands, or be lost if it fails.
        let mut sink = |bytes: &[u8]| {
            let returned = write.call1(&JsValue::UNDEFINED, &Uint8Array::from(bytes))?;
            if is_thenable(&returned)? {
                return Err(api.type_error(
                    "options.write must have written its bytes when it returns, got a Promise (use a synchronous write such as fs.writeSync)",
                ));
            }
            Ok(())
        };
        let migrated = migrate::stream::migrate_in_pieces(
            pieces.size,
            pieces.piece,
            &mut read,
            &mut new_id,
            &mut sink,
        )?;
        return Ok(migrated.into());
    }
    // Otherwise a byte source is migrated as its bytes, read whole.
    let source = match pieces {
        Some(pieces) => Uint8Array::from(&pieces.read_whole(&reader)?[..]).into(),
        None => source,
    };
    if let Some(current) = current_text(&reader, &source)? {
        return Ok(current);
    }
    match reader.source(&source, Accept::ANY)?.source {
        Source::Text(text) => {
            // The same form as the source: a string, or UTF-8 bytes.
            let same_form = |out: String| -> JsValue {
                match source.dyn_ref::<JsString>() {
                    // A migration keeps every line in its place; the lines
                    // it kept come back as the string had them.
                    Some(s) if !well_formed(s) => {
                        let mut given = GivenLines::default();
                        given.record(s, 0, true);
                        given.restore(&out, None)
                    }
                    Some(_) => out.into(),
                    None => Uint8Array::from(out.as_bytes()).into(),
                }
            };
            // Words the one pass drew before giving up are the two steps'
            // first: the ids are those of the words drawn, whichever pass
            // gives them (as a migration streamed from a source gives them).
            let mut words = ids::Replay::recording();
            let one_pass = migrate::try_migrate_in_one_pass(&text, &mut || words.word());
            if let Some(out) = one_pass.map_err(no_random)? {
                return Ok(same_form(out));
            }
            words.rewind();
            let doc = Document::parse_with(text, &JsDates);
            let edits = doc
                .try_migration(&mut |taken| words.id(taken))
                .map_err(no_random)?;
            Ok(match edits {
                Some(edits) => same_form(migrate::apply_to_text(&doc.text, &doc.lines, &edits)),
                // A string comes back as the very same string; bytes as a copy
                // of themselves, even bytes that are not UTF-8.
                None if source.is_string() => source,
                None => copy_bytes(&source)?.into(),
            })
        }
        Source::Entries(array) => {
            let entries = entries_of(&array);
            let edits = migrate::try_plan(&entries, &mut ids::random_id).map_err(no_random)?;
            let Some(edits) = edits else {
                return Ok(false.into());
            };
            for edit in &edits {
                apply_edit(&array.get(edit.entry() as u32), edit)?;
            }
            Ok(true.into())
        }
    }
}

/// One migration edit, made on the caller's entry object.
fn apply_edit(target: &JsValue, edit: &Edit) -> Result<(), JsValue> {
    match edit {
        Edit::SetVersion { .. } => set(target, "version", &3.into()),
        Edit::SetId { id, .. } => set(target, "id", &id.into()),
        Edit::SetParentId { parent, .. } => set(
            target,
            "parentId",
            &parent.as_ref().map_or(JsValue::NULL, key_value),
        ),
        Edit::SetFirstKeptEntryId { id, .. } => set(
            target,
            "firstKeptEntryId",
            &id.as_ref().map_or(JsValue::UNDEFINED, key_value),
        ),
        Edit::DeleteFirstKeptEntryIndex { .. } => Reflect::delete_property(
            target.unchecked_ref::<Object>(),
            &"firstKeptEntryIndex".into(),
        )
        .map(drop),
        Edit::RenameHookMessage { .. } => set(&get(target, "message"), "role", &"custom".into()),
    }
}

/// A current (v3) session as it is, when its first line says so: the common
/// case of `migrate` needs no parsing and, for bytes, no copy into wasm.
fn current_text(reader: &Reader, source: &JsValue) -> Result<Option<JsValue>, JsValue> {
    // The first line, read from at most this much of the start.
    const HEAD: u32 = 1 << 16;
    let first_line = if let Some(s) = source.dyn_ref::<JsString>() {
        reader.check_string(s)?;
        let end = s.index_of("\n", 0);
        if end < 0 {
            return Ok(None);
        }
        String::from(s.slice(0, end as u32))
    } else if is_bytes(source)? {
        let bytes: &Uint8Array = source.unchecked_ref();
        reader.check_bytes(bytes)?;
        let head = bytes_of(&bytes.subarray(0, bytes.length().min(HEAD)));
        match head.iter().position(|&b| b == b'\n') {
            Some(end) => parse::decode(&head[..end]).into_owned(),
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    if !migrate::first_line_is_current_header(&first_line) {
        return Ok(None);
    }
    // The string itself, or a copy of the bytes as they are (even bytes that
    // are not UTF-8 come back untouched: a current file is not rewritten).
    Ok(Some(match source.is_string() {
        true => source.clone(),
        false => copy_bytes(source)?.into(),
    }))
}

/// How many lines of the text `JSON.parse` accepts (`parseSession(source).length`),
/// without building any of them.
#[wasm_bindgen(js_name = countEntries, skip_typescript)]
pub fn count_entries(source: JsValue, options: JsValue) -> Result<u32, JsValue> {
    let reader = Reader::new(Api("countEntries"), &options)?;
    if let Some(pieces) = reader.pieces(&source)? {
        let mut read = |from, to, buf: &mut Vec<u8>| pieces.read(from, to, buf);
        return Ok(parse::count_values_in_pieces(pieces.size, pieces.piece, &mut read)? as u32);
    }
    Ok(if is_bytes(&source)? {
        // Bytes are counted as they come: no decoding pass, no text.
        let bytes: &Uint8Array = source.unchecked_ref();
        reader.check_bytes(bytes)?;
        // In pieces that stay in cache from their copy to their scan.
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            append_bytes(buf, &bytes.subarray(from as u32, to as u32));
            Ok::<(), JsValue>(())
        };
        parse::count_values_in_pieces(u64::from(bytes.length()), 1 << 20, &mut read)? as u32
    } else {
        match reader.source(&source, Accept::ANY)?.source {
            Source::Text(text) => parse::count_values(&text) as u32,
            Source::Entries(array) => array.length(),
        }
    })
}
