//! A session migrated from a source the host holds, a piece at a time, to a
//! sink: an old file of any size upgrades in memory that grows with its
//! number of entries, not with its text.
//!
//! The steps are the ones [`super::plan`] takes, entry by entry (the rule
//! lives there). The v1 step needs two facts of the whole file before its
//! first edit: the ids the file already has (a new id avoids them all, later
//! ones included) and each entry's id for a `firstKeptEntryIndex` that names
//! a later entry. So a v1 file is read twice: once for those facts (a string
//! per entry that has an id, which pi's v1 files do not), once to write.
//! A v2 file, or one whose version is none of the steps' (NaN), needs only
//! its first header, so its first read stops there; a current file is not
//! written at all.
//!
//! The output is what [`super::apply_to_text`] writes for the whole text:
//! every byte between the entries as it is (decoded as `TextDecoder` decodes
//! it), each entry with edits rewritten, and a final `\n`. Given the same
//! ids from `new_id`, the two are the same bytes.

use std::cell::RefCell;

use super::{declared_version, rewrite_object, v2_to_v3, Edit, Walk, CURRENT_VERSION};
use crate::entry::{Entry, Key};
use crate::parse::{self, ReadAt};
use crate::pieces::{self, SourceLine};

/// Why a read stopped: the first pass has what it needs, or something failed.
enum Halt<E> {
    Enough,
    Failed(E),
}

/// What the first pass learns of the file.
struct Facts {
    /// The first header's version (`version ?? 1`); 1 without a header.
    version: f64,
    /// For the v1 step: each entry's string id, and which entries are headers
    /// (ascending).
    ids: Vec<Option<Key>>,
    headers: Vec<usize>,
}

/// Migrates the text of `len` bytes that `read` gives, reading `piece` bytes
/// at a time, and hands the migrated text to `write` in order, in pieces of
/// about `piece` bytes (at least 64 KiB). `new_id` makes a fresh id not in
/// the set it is given. Returns `false`, having written nothing, when the
/// session is current (v3 or later): the source is then its own migration.
/// The first failure of `read`, `new_id` or `write` ends the migration and is
/// the answer.
pub fn migrate_in_pieces<E>(
    len: u64,
    piece: usize,
    read: &mut ReadAt<'_, E>,
    new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
    write: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<bool, E> {
    let Some(facts) = facts(len, piece, read)? else {
        return Ok(false);
    };
    let out = Out {
        text: String::new(),
        flush_at: piece.max(1 << 16),
        written: false,
        last: None,
    };
    let mut pass = Pass {
        version: facts.version,
        walk: (facts.version < 2.0).then(|| Walk::new(facts.ids, facts.headers)),
        entry: 0,
        unique: 0,
        copied: 0,
        seen: None,
        out,
        edits: Vec::new(),
    };
    let failure: RefCell<Option<E>> = RefCell::new(None);
    let read = RefCell::new(read);
    let piece_seen: RefCell<(u64, Vec<u8>)> = RefCell::new((0, Vec::new()));
    {
        let mut reader = |from: u64, to: u64, buf: &mut Vec<u8>| -> Result<(), E> {
            if let Some(e) = failure.borrow_mut().take() {
                return Err(e);
            }
            let start = buf.len();
            (read.borrow_mut())(from, to, buf)?;
            // Kept for the bytes between lines, which mostly lie in it.
            let mut seen = piece_seen.borrow_mut();
            seen.0 = from;
            seen.1.clear();
            seen.1.extend_from_slice(&buf[start..]);
            Ok(())
        };
        let mut visit = |line: &SourceLine<'_>| {
            if failure.borrow().is_some() {
                return;
            }
            let mut between = |from: u64, to: u64, out: &mut Vec<u8>| {
                let seen = piece_seen.borrow();
                let end = seen.0 + seen.1.len() as u64;
                if seen.0 <= from && to <= end {
                    out.extend_from_slice(
                        &seen.1[(from - seen.0) as usize..(to - seen.0) as usize],
                    );
                    Ok(())
                } else {
                    drop(seen);
                    (read.borrow_mut())(from, to, out)
                }
            };
            if let Err(e) = pass.line(line, &mut between, new_id, write) {
                *failure.borrow_mut() = Some(e);
            }
        };
        pieces::read_lines(len, piece, &mut reader, &mut visit)?;
    }
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    let read = read.into_inner();
    pass.gap(len, &mut |from, to, out| read(from, to, out), write)?;
    pass.out.finish(write)?;
    Ok(true)
}

/// The first pass: the version, and for a v1 file the ids; `None` for a
/// current session. It stops at the first header unless the file is v1.
fn facts<E>(len: u64, piece: usize, read: &mut ReadAt<'_, E>) -> Result<Option<Facts>, E> {
    let mut facts = Facts {
        version: 1.0,
        ids: Vec::new(),
        headers: Vec::new(),
    };
    let mut header_seen = false;
    let enough = std::cell::Cell::new(false);
    let mut unique = 0;
    let mut reader = |from: u64, to: u64, buf: &mut Vec<u8>| {
        if enough.get() {
            return Err(Halt::Enough);
        }
        read(from, to, buf).map_err(Halt::Failed)
    };
    let mut visit = |line: &SourceLine<'_>| {
        let Ok(value) = line.parsed else { return };
        if enough.get() || !parse::is_kept(line.text, value) {
            return;
        }
        let entry = Entry::from_json(line.text, value, None, &mut unique);
        if entry.is_header() {
            facts.headers.push(facts.ids.len());
            if !header_seen {
                header_seen = true;
                facts.version = declared_version(std::slice::from_ref(&entry));
                // Only the v1 step reads more than the first header (a NaN
                // version takes no step at all).
                enough.set(facts.version >= 2.0 || facts.version.is_nan());
            }
        }
        facts.ids.push(super::string_id(&entry.id));
    };
    match pieces::read_lines(len, piece, &mut reader, &mut visit) {
        Ok(()) | Err(Halt::Enough) => {}
        Err(Halt::Failed(e)) => return Err(e),
    }
    if facts.version >= f64::from(CURRENT_VERSION) {
        return Ok(None);
    }
    Ok(Some(facts))
}

/// The second pass, line by line.
struct Pass {
    version: f64,
    /// The v1 step, for a file below version 2.
    walk: Option<Walk>,
    /// The index of the next entry.
    entry: usize,
    unique: u32,
    /// The source's bytes before this offset are in the output.
    copied: u64,
    /// Where the last line handed out started (a line comes once).
    seen: Option<u64>,
    out: Out,
    edits: Vec<Edit>,
}

impl Pass {
    fn line<E>(
        &mut self,
        line: &SourceLine<'_>,
        read: &mut ReadAt<'_, E>,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
        write: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert!(self.seen.is_none_or(|s| s < line.range.start));
        self.seen = Some(line.range.start);
        self.gap(line.range.start, read, write)?;
        let text = line.text;
        let whole = line.span.of(text);
        self.copied = line.range.end;
        let value = match line.parsed {
            Ok(value) if parse::is_kept(text, value) => value,
            _ => return self.out.push(whole, write),
        };
        let i = self.entry;
        self.entry += 1;
        let entry = Entry::from_json(text, value, None, &mut self.unique);
        self.edits.clear();
        if let Some(walk) = &mut self.walk {
            walk.step(i, &entry, new_id, &mut self.edits)?;
        }
        v2_to_v3(self.version, i, &entry, &mut self.edits);
        if self.edits.is_empty() {
            return self.out.push(whole, write);
        }
        let mine: Vec<&Edit> = self.edits.iter().collect();
        self.out
            .text
            .push_str(&text[line.span.start..value.span.start]);
        rewrite_object(text, value.span, &value.members, &mine, &mut self.out.text);
        self.out.push(&text[value.span.end..line.span.end], write)
    }

    /// Copies the source's bytes from where the output stopped to `to`: the
    /// newlines, blank lines and trimmed ends between the lines (whitespace,
    /// so valid UTF-8 as it is), read a piece at a time.
    fn gap<E>(
        &mut self,
        to: u64,
        read: &mut ReadAt<'_, E>,
        write: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut buf = Vec::new();
        while self.copied < to {
            let end = to.min(self.copied + self.out.flush_at as u64);
            buf.clear();
            read(self.copied, end, &mut buf)?;
            self.copied = end;
            self.out.push(&parse::decode(&buf), write)?;
        }
        Ok(())
    }
}

/// The output, handed on a piece at a time.
struct Out {
    text: String,
    flush_at: usize,
    /// Whether any byte went out, and the last one.
    written: bool,
    last: Option<u8>,
}

impl Out {
    fn push<E>(&mut self, s: &str, write: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        self.text.push_str(s);
        if self.text.len() >= self.flush_at {
            self.flush(write)?;
        }
        Ok(())
    }

    fn flush<E>(&mut self, write: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        if let Some(&b) = self.text.as_bytes().last() {
            self.written = true;
            self.last = Some(b);
            write(self.text.as_bytes())?;
            self.text.clear();
        }
        Ok(())
    }

    /// The end: every line ends with `\n`, as in [`super::apply_to_text`].
    fn finish<E>(mut self, write: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        self.flush(write)?;
        if self.written && self.last != Some(b'\n') {
            write(b"\n")?;
        }
        Ok(())
    }
}
