//! A session opened from a source the host holds (a file of any size): its
//! entries are indexed as they are read a piece at a time, and their text
//! stays in the source. An entry's text comes into the session only when an
//! algorithm here reads it ([`Session::load`]); what the host asks for as
//! objects it reads itself, by the entry's range ([`Session::unloaded`]).

use std::ops::Range;

use super::*;
use crate::parse::ReadAt;
use crate::pieces;

/// What a session opened from a source keeps of it.
pub(super) struct Outside {
    /// Byte range of the line of each entry read from the source, while its
    /// text is not loaded (see [`Place`]; none for a later entry).
    ranges: Vec<Place>,
    /// The source's bytes `0..base` are the session's text before its own
    /// lines (a torn last line is in `partial`, not before `base`).
    base: u64,
    /// Whether a `\n` goes between the source's text and the lines after it
    /// (its last line was complete but had none).
    newline: bool,
    /// The JSON whitespace that came after that last line, before its `\n`
    /// (see [`Session::append_jsonl`]).
    space: String,
    /// The lines after the source, in order (spans of `text`, with their `\n`).
    pub(super) after: Vec<Span>,
}

/// Where an entry's line is in the source until its text is loaded, and
/// then where its value is in the session's text (so the session keeps no
/// span of its own for it): two 48-bit offsets in 12 bytes (as words,
/// aligned to 4), where two `u64` took 16 and an `Option<Range<u64>>` 24.
/// Bit 47 of the start says loaded: no source reaches 2^47 bytes (128 TiB),
/// nor a session's text in memory.
#[derive(Clone, Copy)]
struct Place([u32; 3]);

const _: () = assert!(std::mem::size_of::<Place>() == 12);

const LOADED: u64 = 1 << 47;
const OFFSET: u64 = (1 << 48) - 1;

impl Outside {
    /// Forgets the range of entry `i`, the last, if it was read from the
    /// source (see `Session::retract_provisional`); false for a later one.
    pub(super) fn forget_last(&mut self, i: usize) -> bool {
        let from_source = i + 1 == self.ranges.len();
        if from_source {
            self.ranges.pop();
        }
        from_source
    }
}

impl Place {
    fn new(r: &Range<u64>) -> Place {
        let (start, end) = (r.start & OFFSET, r.end & OFFSET);
        Place([
            start as u32,
            (start >> 32 | end << 16) as u32,
            (end >> 16) as u32,
        ])
    }

    fn ends(self) -> (u64, u64) {
        let [a, b, c] = self.0.map(u64::from);
        (a | (b & 0xffff) << 32, b >> 16 | c << 16)
    }

    fn range(self) -> Option<Range<u64>> {
        let (start, end) = self.ends();
        (start & LOADED == 0).then_some(start..end)
    }

    /// Where the value is in the session's text (nowhere yet: an empty span).
    fn span(self) -> Span {
        match self.ends() {
            (start, end) if start & LOADED != 0 => {
                Span::new((start & !LOADED) as usize, end as usize)
            }
            _ => Span::new(0, 0),
        }
    }
}

impl Session {
    /// Opens a current (v3) session from a source of `len` bytes read
    /// `piece` bytes at a time, with the entries, tree and leaf
    /// [`Session::open`] gives its text, but none of the text. `None` for an
    /// older session, which is migrated from its whole text instead.
    pub fn open_source<E>(
        len: u64,
        piece: usize,
        read: &mut ReadAt<'_, E>,
        dates: &dyn DateParser,
    ) -> Result<Option<Session>, E> {
        // As `open`: a last line without `\n` that is not JSON is still
        // being written, and waits for `append_jsonl`.
        let cut = last_newline(len, piece, read)?.map_or(0, |p| p + 1);
        let mut tail = Vec::new();
        read(cut, len, &mut tail)?;
        // (After a final newline the tail is empty: `partial` stays empty and
        // `base` is `len`, as for a whole line.)
        let torn = super::unfinished_from(&tail).is_some();
        // Kept as bytes: a character the writer cut in two is completed by
        // the rest `append_jsonl` brings, not decoded as U+FFFD for good.
        let partial = if torn { tail } else { Vec::new() };
        let base = if torn { cut } else { len };
        let mut session = Session::empty(String::new());
        let mut ranges = Vec::new();
        let mut unique = 0;
        // As `open_split`: the end is trimmed only if nothing but
        // whitespace is held after it.
        let open_ended = !parse::may_be_blank(&partial);
        pieces::read_lines_to(base, open_ended, piece, read, &mut |line| {
            let Ok(value) = line.parsed else { return };
            if !parse::is_kept(line.text, value) {
                return;
            }
            let n = session.entries.len();
            if n == session.entries.capacity() && n >= ESTIMATE_AFTER {
                // The entries to come, from the bytes an entry so far.
                let total = estimate(n, line.range.start, base);
                session.reserve_entries(total);
                session.reserve_tables(total);
                ranges.reserve_exact(total.saturating_sub(n));
            }
            let entry = Entry::from_json(line.text, value, Some(dates), &mut unique);
            ranges.push(Place::new(&line.range));
            session.add(entry, None);
        })?;
        // The last entry is provisional (see `Session::keep_last_line`) if
        // its line is the trimmed text's last and what `trim()` took after
        // it is more than JSON's whitespace.
        let provisional = match ranges.last() {
            Some(place) if !open_ended => more_than_json_space(place.ends().1, base, read)?,
            _ => false,
        };
        session.trim_entries();
        let header = session.header().map(|i| &session.entries[i]);
        if !header.is_some_and(|h| migrate::is_current(std::slice::from_ref(h))) {
            return Ok(None);
        }
        ranges.shrink_to_fit();
        session.outside = Some(Outside {
            ranges,
            base,
            // A last line that is whole JSON but has no `\n` (an empty
            // last part counts as torn: there is none to add).
            newline: !torn,
            space: String::new(),
            after: Vec::new(),
        });
        session.owed_newline = !torn;
        session.provisional = provisional;
        session.partial = parse::LineRuns::holding(partial);
        session.flushed = true;
        session.unique = 1 << 30;
        Ok(Some(session))
    }

    /// Entry `i`'s line in the source, while its text is not in the session.
    pub fn unloaded(&self, i: usize) -> Option<Range<u64>> {
        self.outside.as_ref()?.ranges.get(i)?.range()
    }

    /// The entries among `list` whose text is still in the source.
    pub fn unloaded_of(&self, list: impl IntoIterator<Item = usize>) -> Vec<usize> {
        list.into_iter()
            .filter(|&i| self.unloaded(i).is_some())
            .collect()
    }

    /// Brings entry `i`'s line (read from [`Session::unloaded`]'s range) into
    /// the session, for the algorithms that read its fields.
    pub fn load(&mut self, i: usize, line: &str) {
        if self.unloaded(i).is_none() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(line);
        let span = Span::new(start, self.text.len());
        self.text.push('\n');
        // The value's span, as a whole text's parse gives it: the line less
        // the JSON whitespace around it.
        let span = json::parse(&self.text, span).map_or(span, |v| v.span);
        if let Some(slot) = self.outside.as_mut().and_then(|o| o.ranges.get_mut(i)) {
            *slot = Place::new(&(span.start as u64 | LOADED..span.end as u64));
        }
    }

    /// Where entry `i`'s value is in the session's text (an empty span
    /// while it is not loaded).
    pub(super) fn span(&self, i: usize) -> Span {
        match &self.outside {
            Some(o) => match o.ranges.get(i) {
                Some(place) => place.span(),
                None => self.spans[i - o.ranges.len()],
            },
            None => self.spans[i],
        }
    }

    /// Every entry's [`Session::span`], for the reports that take them as
    /// a slice (made for the call when the session is opened from a source).
    pub(super) fn all_spans(&self) -> Cow<'_, [Span]> {
        match self.outside {
            Some(_) => Cow::Owned((0..self.entries.len()).map(|i| self.span(i)).collect()),
            None => Cow::Borrowed(&self.spans),
        }
    }

    /// For a session opened from a source: how many of its first bytes are
    /// the session's text, and the text that follows them (the lines added
    /// since, and a torn last line).
    pub fn source_text(&self) -> Option<(u64, String)> {
        let o = self.outside.as_ref()?;
        let mut out = String::new();
        if o.newline {
            out.push_str(&o.space);
            out.push('\n');
        }
        for span in &o.after {
            out.push_str(span.of(&self.text));
        }
        out.push_str(&String::from_utf8_lossy(self.partial.held()));
        Some((o.base, out))
    }

    /// Adds `space` to the last line, which [`Session::open`] ended with a
    /// `\n` the file does not have yet.
    pub(super) fn extend_owed_line(&mut self, space: &str) {
        match &mut self.outside {
            Some(o) => o.space.push_str(space),
            None => {
                self.text.pop();
                self.text.push_str(space);
                self.text.push('\n');
            }
        }
    }

    /// Records a line this session now ends with (text `start..` of `text`),
    /// for a session whose text before is the source's.
    pub(super) fn added_line(&mut self, start: usize) {
        let end = self.text.len();
        if let Some(o) = &mut self.outside {
            o.after.push(Span::new(start, end));
        }
    }

    /// The label entries that set a label now (which a branched copy carries).
    pub fn label_entries(&self) -> Vec<usize> {
        self.labels.values().map(|&(_, l)| l).collect()
    }

    /// The entry holding the session's name, if any (see [`Session::name`]).
    pub fn name_entry(&self) -> Option<usize> {
        self.entries
            .iter()
            .rposition(|e| e.kind() == EntryType::SessionInfo)
    }
}

/// How many entries a source's vectors grow by doubling before they are
/// reserved from an estimate (see [`estimate`]).
const ESTIMATE_AFTER: usize = 1024;

/// How many entries a source of `len` bytes holds, when `n` entries took
/// its first `read` bytes: a twentieth more than their rate gives, and at least
/// an eighth more than `n` (so that an estimate too low is made again from
/// more entries, and seldom).
fn estimate(n: usize, read: u64, len: u64) -> usize {
    let rate = len as f64 / read.max(1) as f64;
    let total = (n as f64 * rate * 1.05) as usize;
    total.max(n + n / 8 + 16)
}

/// The offset of the last `\n` in a source of `len` bytes, read backwards
/// in windows that grow from a few KiB (or a smaller piece) to a piece.
fn last_newline<E>(len: u64, piece: usize, read: &mut ReadAt<'_, E>) -> Result<Option<u64>, E> {
    let mut buf = Vec::new();
    let mut end = len;
    let mut window = piece.clamp(1, 4096) as u64;
    while end > 0 {
        let from = end.saturating_sub(window);
        window = (window * 4).min(piece.max(1) as u64);
        buf.clear();
        read(from, end, &mut buf)?;
        if let Some(p) = buf.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(from + p as u64));
        }
        end = from;
    }
    Ok(None)
}

/// Whether the rest of the line at `from` (up to its `\n` or `end`) holds
/// more than JSON's whitespace, read a window at a time.
fn more_than_json_space<E>(mut from: u64, end: u64, read: &mut ReadAt<'_, E>) -> Result<bool, E> {
    let mut buf = Vec::new();
    while from < end {
        buf.clear();
        let to = end.min(from + 256);
        read(from, to, &mut buf)?;
        if let Some(&c) = buf.iter().find(|&&c| !json::is_ws::<true>(c)) {
            return Ok(c != b'\n');
        }
        from = to;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::IsoOnly;

    /// A session opened from `text` in pieces of `piece` bytes, every entry loaded.
    fn open_in_pieces(text: &str, piece: usize) -> Option<Session> {
        let b = text.as_bytes();
        let mut read = |from: u64, to: u64, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&b[from as usize..to as usize]);
            Ok::<(), ()>(())
        };
        let mut s = Session::open_source(b.len() as u64, piece, &mut read, &IsoOnly).unwrap()?;
        for i in 0..s.entries.len() {
            let r = s.unloaded(i).unwrap();
            s.load(i, &text[r.start as usize..r.end as usize]);
        }
        Some(s)
    }

    #[test]
    fn a_place_keeps_48_bit_offsets_and_whether_loaded() {
        // Offsets that use every one of the 47 bits a source may, across
        // the words' borders (32, 48 and 64 bits into the packed place).
        let top = LOADED - 1;
        for (start, end) in [
            (0, 0),
            (0, 1),
            (1, 0x1_0000_0000),
            (0xffff_ffff, 0x1_0000_0001),
            (0x1234_5678_9abc, 0x7edc_ba98_7654),
            (top - 1, top),
            (top, top),
        ] {
            let place = Place::new(&(start..end));
            assert_eq!(place.range(), Some(start..end), "{start:x}..{end:x}");
            assert_eq!(place.span(), Span::new(0, 0));
            let loaded = Place::new(&(start | LOADED..end));
            assert_eq!(loaded.range(), None);
            assert_eq!(loaded.span(), Span::new(start as usize, end as usize));
        }
    }

    #[test]
    fn a_source_opens_as_its_text_does() {
        let head = "\u{feff} {\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";
        let a = "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"é\"}}";
        let b = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}";
        for text in [
            format!("{head}{a}\n \r\n{b}\n"),
            format!("{head}{a}\n{b}"),
            format!("{head}{a}\n{{\"type\":\"mess"),
            format!("{head}{a}\n{b}\n  "),
        ] {
            let whole = Session::open(text.clone(), &IsoOnly).unwrap();
            for piece in [1, 2, 5, 64] {
                let s = open_in_pieces(&text, piece).unwrap();
                // (Debug text: a missing time is NaN, unequal to itself.)
                let facts = |s: &Session| format!("{:?}", s.entries);
                assert_eq!(facts(&s), facts(&whole), "{text:?} in pieces of {piece}");
                assert_eq!(s.leaf, whole.leaf);
                assert_eq!(s.context(None).json, whole.context(None).json);
                let (base, after) = s.source_text().unwrap();
                let rebuilt = format!("{}{after}", &text[..base as usize]);
                assert_eq!(rebuilt, whole.text(), "{text:?} in pieces of {piece}");
            }
        }
        let old = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\"}\n";
        assert!(
            open_in_pieces(old, 3).is_none(),
            "v1 is migrated from its text"
        );
    }
    #[test]
    fn a_source_of_many_entries_opens_and_appends_as_its_text_does() {
        // Past the entries after which the vectors are reserved from an
        // estimate, with entries of other sizes after them than before (an
        // estimate too low at first, then made again), and appends after.
        let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n");
        let mut parent = "null".to_owned();
        for n in 0..5000usize {
            let pad = if n < 1500 {
                "x".repeat(200)
            } else {
                String::new()
            };
            // A branch now and then: parents named before, and again.
            if n % 37 == 36 {
                parent = format!("\"{:08x}\"", n / 2);
            }
            text.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{n:08x}\",\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"{pad}\"}}}}\n"
            ));
            parent = format!("\"{n:08x}\"");
        }
        let mut whole = Session::open(text.clone(), &IsoOnly).unwrap();
        let mut s = open_in_pieces(&text, 4096).unwrap();
        let facts = |s: &Session| format!("{:?}", s.entries);
        assert_eq!(facts(&s), facts(&whole));
        for i in (0..5001).step_by(97) {
            let id = s.entries[i].id.to_string();
            assert_eq!(s.find(&Key::string(&id)), whole.find(&Key::string(&id)));
            let id = &s.entries[i].id;
            assert_eq!(s.children_of(id), whole.children_of(id), "children of {i}");
        }
        assert_eq!(s.context(None).json, whole.context(None).json);
        for n in 0..700 {
            let line = format!(
                "{{\"type\":\"message\",\"id\":\"new{n}\",\"parentId\":\"{:08x}\"}}\n",
                n * 7
            );
            s.append_jsonl(line.as_bytes(), &IsoOnly);
            whole.append_jsonl(line.as_bytes(), &IsoOnly);
        }
        assert_eq!(facts(&s), facts(&whole));
        for i in (0..5701).step_by(13) {
            let id = &s.entries[i].id;
            assert_eq!(s.children_of(id), whole.children_of(id), "children of {i}");
            assert_eq!(s.parent(i), whole.parent(i), "parent of {i}");
        }
        // Spans read from the source's places and from the lines after it.
        assert_eq!(s.context(None).json, whole.context(None).json);
        assert_eq!(s.projection(None), whole.projection(None));
        let sort = crate::tree::NativeSort;
        assert_eq!(s.usage(s.leaf, &sort), whole.usage(whole.leaf, &sort));
        for i in (0..5701).step_by(11) {
            assert_eq!(s.span(i).of(&s.text), whole.span(i).of(&whole.text), "{i}");
        }
    }

    #[test]
    fn an_estimate_is_above_what_was_read() {
        assert_eq!(estimate(1024, 1 << 20, 1 << 20), 1024 + 128 + 16);
        assert!(estimate(1024, 1 << 10, 1 << 30) >= 1024 * 1024);
        assert!(estimate(1024, 0, 1 << 30) > 1024);
    }
}
