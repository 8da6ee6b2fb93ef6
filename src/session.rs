//! A session file read once: its text, its lines, its entries and their index.

use std::collections::{HashMap, HashSet};

use crate::entry::{Entry, Key};
use crate::json::Span;
use crate::migrate::{self, Edit};
use crate::parse::{self, Line, LineContent};
use crate::time::{DateParser, IsoOnly};

/// A parsed JSONL session. `entries[i]` is the i-th line that parsed, which
/// is also the i-th element of what `parseSessionEntries` returns.
pub struct Document {
    pub text: String,
    pub lines: Vec<Line>,
    pub entries: Vec<Entry>,
    /// `spans[i]`: where entry `i`'s JSON value is in `text`.
    pub spans: Vec<Span>,
    /// `line_numbers[i]`: the 1-based line of entry `i`.
    pub line_numbers: Vec<usize>,
}

impl Document {
    /// Parses with the native date fallback (ISO forms only).
    pub fn parse(text: &str) -> Document {
        Document::parse_with(text.to_owned(), &IsoOnly)
    }

    pub fn parse_with(text: String, dates: &dyn DateParser) -> Document {
        let lines = parse::lines(&text);
        let mut unique = 0;
        let mut entries = Vec::with_capacity(lines.len());
        let mut spans = Vec::with_capacity(lines.len());
        let mut line_numbers = Vec::with_capacity(lines.len());
        for line in &lines {
            if let LineContent::Value(v) = &line.content {
                entries.push(Entry::from_json(&text, v, dates, &mut unique));
                spans.push(v.span);
                line_numbers.push(line.number);
            }
        }
        Document {
            text,
            lines,
            entries,
            spans,
            line_numbers,
        }
    }

    /// The migration this session needs (`None`: it is current).
    pub fn migration(
        &self,
        new_id: &mut dyn FnMut(&HashSet<String>) -> String,
    ) -> Option<Vec<Edit>> {
        migrate::plan(&self.entries, new_id)
    }

    /// The session migrated in memory, as pi does when it opens a file.
    pub fn migrated(
        self,
        dates: &dyn DateParser,
        new_id: &mut dyn FnMut(&HashSet<String>) -> String,
    ) -> Document {
        match self.migration(new_id) {
            Some(edits) if !edits.is_empty() => Document::parse_with(
                migrate::apply_to_text(&self.text, &self.lines, &edits),
                dates,
            ),
            _ => self,
        }
    }

    /// The JSON text of the entry values, as one array: `[e0,e1,...]`.
    /// `keep` chooses which entries go in.
    pub fn entries_json(&self, keep: impl Fn(&Entry) -> bool) -> String {
        let mut out = String::with_capacity(self.text.len() + 2);
        out.push('[');
        for (e, span) in self.entries.iter().zip(&self.spans) {
            if keep(e) {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(span.of(&self.text));
            }
        }
        out.push(']');
        out
    }
}

/// `id → entry index`, later duplicates winning, as pi's `Map` does.
pub fn index_by_id<'a>(
    entries: impl IntoIterator<Item = (usize, &'a Entry)>,
) -> HashMap<&'a Key, usize> {
    let mut by_id = HashMap::new();
    for (i, e) in entries {
        by_id.insert(&e.id, i);
    }
    by_id
}

/// A fresh 8-hex-digit id from the platform's cryptographic source, not in `taken`.
pub fn random_id(taken: &HashSet<String>) -> Result<String, getrandom::Error> {
    // Eight hex digits give 2^32 ids; on the rare collision draw again, and
    // grow the id only if a session somehow holds most of that space.
    let mut attempt = 0u32;
    loop {
        let mut bytes = [0u8; 8];
        getrandom::getrandom(&mut bytes)?;
        let len = if attempt < 100 { 4 } else { 8 };
        let id: String = bytes[..len].iter().map(|b| format!("{b:02x}")).collect();
        if !taken.contains(&id) {
            return Ok(id);
        }
        attempt = attempt.saturating_add(1);
    }
}
