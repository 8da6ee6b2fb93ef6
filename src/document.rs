//! A session file read once: its text, its lines, its entries and their index.

use std::borrow::Cow;
use std::convert::Infallible;

use crate::entry::Entry;
use crate::json::{self, Span};
use crate::migrate::{self, Edit};
use crate::parse::{self, Line, LineContent};
use crate::time::{DateParser, IsoOnly};

/// A parsed JSONL session. `entries[i]` is the i-th line that parsed to a
/// truthy value: the i-th entry pi 1.6's file loader gives (it skips `null`,
/// `false`, `0` and `""` lines, which `parseSessionEntries` keeps).
pub struct Document {
    pub text: String,
    /// Its non-blank lines; of the members nested in a value's members, only
    /// those named `role` or `content` are kept (see [`Document::parse_with`]).
    pub lines: Vec<Line>,
    pub entries: Vec<Entry>,
    /// `spans[i]`: where entry `i`'s JSON value is in `text`.
    pub spans: Vec<Span>,
    /// `line_numbers[i]`: the 1-based line of entry `i`.
    pub line_numbers: Vec<usize>,
    /// `value_lines[i]`: the index in `lines` of entry `i`'s line.
    value_lines: Vec<usize>,
}

/// A current session's entries and where each is in its text: what its tree
/// needs, read in one pass that keeps nothing else of its lines (a
/// [`Document`] keeps each line's members too, for a context or a migration).
pub struct Entries {
    pub text: String,
    pub entries: Vec<Entry>,
    /// `spans[i]`: where entry `i`'s JSON value is in `text`.
    pub spans: Vec<Span>,
}

impl From<Document> for Entries {
    fn from(doc: Document) -> Entries {
        Entries {
            text: doc.text,
            entries: doc.entries,
            spans: doc.spans,
        }
    }
}

impl Entries {
    /// The entries of `text`, as [`Document::parse_with`] reads them; or the
    /// text back when the session needs migrating (its entries then change:
    /// read it as a [`Document`]).
    pub fn read(text: String, dates: &dyn DateParser) -> Result<Entries, String> {
        Entries::read_lines(text, dates, false)
    }

    /// [`Entries::read`] of the whole lines before an unfinished one: the
    /// end is not trimmed (see [`parse::LineReader::open_ended`]).
    pub fn read_open_ended(text: String, dates: &dyn DateParser) -> Result<Entries, String> {
        Entries::read_lines(text, dates, true)
    }

    fn read_lines(
        text: String,
        dates: &dyn DateParser,
        open_ended: bool,
    ) -> Result<Entries, String> {
        let mut unique = 0;
        let mut entries = Vec::new();
        let mut spans = Vec::new();
        let mut reader = if open_ended {
            parse::LineReader::<true>::open_ended(&text)
        } else {
            parse::LineReader::<true>::new(&text)
        };
        while let Some((_, _, parsed)) = reader.next() {
            let value = &reader.value;
            if parsed.is_ok() && parse::is_kept(&text, value) {
                entries.push(Entry::from_json(&text, value, Some(dates), &mut unique));
                spans.push(value.span);
            }
        }
        if !migrate::is_current(&entries) {
            return Err(text);
        }
        Ok(Entries {
            text,
            entries,
            spans,
        })
    }

    /// An old session of the shape pi's older versions wrote, migrated in one
    /// pass that reads its entries as they come out (see
    /// [`migrate::try_migrate_entries_in_one_pass`]); `None` for any other.
    pub fn migrated_in_one_pass<E>(
        text: &str,
        draw: &mut dyn FnMut() -> Result<[u8; 4], E>,
        dates: &dyn DateParser,
    ) -> Result<Option<Entries>, E> {
        Ok(
            migrate::try_migrate_entries_in_one_pass(text, draw, dates)?.map(
                |(text, entries, spans)| Entries {
                    text,
                    entries,
                    spans,
                },
            ),
        )
    }
}

impl Document {
    /// Parses with the native date fallback (ISO forms only).
    pub fn parse(text: &str) -> Document {
        Document::parse_with(text.to_owned(), &IsoOnly)
    }

    /// Each line's value is kept with what the document reads again later
    /// (its members, and the `role`s and `content`s that entry facts read from nested
    /// objects), not all that [`parse::LineReader`] records: on a large session that
    /// halves the memory the lines take.
    pub fn parse_with(text: String, dates: &dyn DateParser) -> Document {
        Document::parse_lines(text, dates, false)
    }

    /// [`Document::parse_with`] of the whole lines before an unfinished one:
    /// the end is not trimmed (see [`parse::LineReader::open_ended`]).
    pub fn parse_open_ended(text: String, dates: &dyn DateParser) -> Document {
        Document::parse_lines(text, dates, true)
    }

    fn parse_lines(text: String, dates: &dyn DateParser, open_ended: bool) -> Document {
        let mut lines = Vec::new();
        let mut reader = if open_ended {
            parse::LineReader::<true>::open_ended(&text)
        } else {
            parse::LineReader::<true>::new(&text)
        };
        while let Some((number, span, parsed)) = reader.next() {
            let content = match parsed {
                Ok(()) => {
                    let value = &reader.value;
                    LineContent::Value(json::Value {
                        kind: value.kind,
                        span: value.span,
                        members: value.members.clone(),
                        nested: value
                            .nested
                            .iter()
                            .filter(|(_, m)| {
                                json::key_is(&text, m.key, "role")
                                    || json::key_is(&text, m.key, "content")
                            })
                            .copied()
                            .collect(),
                    })
                }
                Err(e) => LineContent::Malformed(e),
            };
            lines.push(Line {
                number,
                span,
                content,
            });
        }
        Document::from_lines(text, lines, dates)
    }

    /// The document of `text` whose lines are known (as [`Document::parse_with`]
    /// keeps them, or carried over by a migration).
    fn from_lines(text: String, lines: Vec<Line>, dates: &dyn DateParser) -> Document {
        let mut unique = 0;
        let mut entries = Vec::with_capacity(lines.len());
        let mut spans = Vec::with_capacity(lines.len());
        let mut line_numbers = Vec::with_capacity(lines.len());
        let mut value_lines = Vec::with_capacity(lines.len());
        for (k, line) in lines.iter().enumerate() {
            if let LineContent::Value(v) = &line.content {
                if !parse::is_kept(&text, v) {
                    continue;
                }
                entries.push(Entry::from_json(&text, v, Some(dates), &mut unique));
                spans.push(v.span);
                line_numbers.push(line.number);
                value_lines.push(k);
            }
        }
        Document {
            text,
            lines,
            entries,
            spans,
            line_numbers,
            value_lines,
        }
    }

    /// The members of entry `i`'s object, as the parse noted them.
    pub fn members(&self, i: usize) -> Cow<'_, [json::Member]> {
        match &self.lines[self.value_lines[i]].content {
            LineContent::Value(v) => Cow::Borrowed(&v.members),
            LineContent::Malformed(_) => Cow::Owned(Vec::new()),
        }
    }

    /// The migration this session needs (`None`: it is current).
    pub fn migration(
        &self,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> String,
    ) -> Option<Vec<Edit>> {
        migrate::plan(&self.entries, new_id)
    }

    /// [`Document::migration`] with an id source that can fail.
    pub fn try_migration<E>(
        &self,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
    ) -> Result<Option<Vec<Edit>>, E> {
        migrate::try_plan(&self.entries, new_id)
    }

    /// The session migrated in memory, as pi does when it opens a file.
    pub fn migrated(
        self,
        dates: &dyn DateParser,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> String,
    ) -> Document {
        match self.try_migrated(dates, &mut |taken| Ok::<_, Infallible>(new_id(taken))) {
            Ok(doc) => doc,
            Err(never) => match never {},
        }
    }

    /// [`Document::migrated`] with an id source that can fail: its first
    /// failure is the answer.
    pub fn try_migrated<E>(
        self,
        dates: &dyn DateParser,
        new_id: &mut dyn FnMut(&crate::ids::Taken) -> Result<String, E>,
    ) -> Result<Document, E> {
        // No edits (if a plan ever had none) apply as the same document.
        Ok(match self.try_migration(new_id)? {
            Some(edits) => {
                let (text, lines) = migrate::apply_with_lines(&self.text, self.lines, &edits);
                Document::from_lines(text, lines, dates)
            }
            _ => self,
        })
    }
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_a_document_reads_them() {
        let text = concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
            "null\n0\nfalse\n\"\"\n",
            "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\r\n",
            "{broken\n\n",
            "\"text\"\n[1]\n",
            "{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":\"l\"}  \n",
        );
        let doc = Document::parse(text);
        let read = Entries::read(text.to_owned(), &IsoOnly).ok().unwrap();
        assert_eq!(
            read.entries.len(),
            5,
            "the falsy lines and the broken one are no entries"
        );
        assert_eq!(format!("{:?}", read.entries), format!("{:?}", doc.entries));
        assert_eq!(read.spans, doc.spans);
        assert_eq!(read.text, text);
        // A session that needs migrating comes back as it was.
        for old in [
            "{\"type\":\"session\",\"id\":\"s\"}\n",
            "{\"type\":\"session\",\"version\":2}\n",
        ] {
            assert_eq!(Entries::read(old.to_owned(), &IsoOnly).err().unwrap(), old);
        }
    }
}
