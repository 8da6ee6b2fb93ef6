//! Copies of a session's history: a branch extracted into a file of its
//! own (`createBranchedSession`) and a whole fork.

use super::*;
use crate::entry::IdMap;
use crate::json::Put;

impl Session {
    /// The labels to carry into an extracted branch: (target, label entry), in
    /// the order pi's label map iterates.
    fn labels_in_order(&self) -> Vec<(&Key, usize)> {
        let v: Vec<(&Key, u64, usize)> = self
            .labels
            .iter()
            .map(|(k, &(seq, l))| (k, seq, l))
            .collect();
        crate::order::sorted_by_key(v, |&(_, seq, _)| seq)
            .into_iter()
            .map(|(k, _, l)| (k, l))
            .collect()
    }

    /// A new session holding only the path from the root to `leaf`, as pi's
    /// `createBranchedSession` builds it. `header` is the new header's JSON text.
    ///
    /// Label entries are left out and the rest chained one after the other
    /// (each entry's parent is the previous one kept), so no entry is orphaned;
    /// a compaction whose `firstKeptEntryId` named a label left out names the
    /// next entry kept instead. The labels on the path come last, as new
    /// label entries.
    pub fn branched_jsonl(&self, leaf: &Key, header: &str) -> Result<String, SessionError> {
        // pi walks from a truthy id only: an empty one gives an empty path.
        let start = self
            .find(leaf)
            .filter(|_| leaf.truthy())
            .ok_or_else(|| SessionError::NotFound(leaf.to_string()))?;
        let full = self.branch_path(Some(start));
        let mut out = String::with_capacity(header.len() + 1);
        out.put(header);
        out.put("\n");
        // Label id → the entry kept after it. (The map type of the tree and the
        // context: one copy of its code in the wasm.)
        let mut replaced: IdMap<usize> = IdMap::default();
        let mut waiting: Vec<&Key> = Vec::new();
        let mut previous: Option<String> = Some("null".to_owned());
        let mut path = Vec::with_capacity(full.len());
        for &i in &full {
            let entry = &self.entries[i];
            if entry.kind() == EntryType::Label {
                waiting.push(&entry.id);
                continue;
            }
            let id = self.id_of_entry(i);
            for label in waiting.drain(..) {
                replaced.insert(label, i);
            }
            let mut fields = vec![("parentId", previous.clone())];
            if let Detail::Compaction { kept, .. } = &entry.detail {
                let kept = &kept.id;
                if *kept != entry.id {
                    if let Some(&next) = replaced.get(kept) {
                        fields.push(("firstKeptEntryId", self.id_of_entry(next)));
                    }
                }
            }
            if entry.is_object() {
                out.put(&self.with_fields(i, &fields));
            } else {
                out.put(self.entry_json(i));
            }
            out.put("\n");
            previous = id;
            path.push(i);
        }
        let on_path = crate::entry::index_by_id(path.iter().map(|&i| (i, &self.entries[i])));
        let mut taken: crate::ids::Taken = path
            .iter()
            .filter_map(|&i| self.entries[i].id.as_str().map(String::from))
            .collect();
        // pi: `last?.id || null`: any truthy id (a string with a lone
        // surrogate too, which `as_str` does not give), as JSON text; an empty
        // id gives a root.
        let mut parent = path
            .last()
            .filter(|&&i| self.entries[i].id.truthy())
            .and_then(|&i| self.id_of_entry(i));
        for (target, l) in self.labels_in_order() {
            if !on_path.contains_key(target) {
                continue;
            }
            let id = random_id(&taken)?;
            taken.insert(id.clone());
            let fields = json::members(&self.text, self.span(l));
            let raw = |name: &str| {
                json::get_cold(&self.text, &fields, name).map(|m| m.value.of(&self.text))
            };
            let mut line = format!("{{\"type\":\"label\",\"id\":{}", json::stringify(&id));
            line.put_fmt(format_args!(
                ",\"parentId\":{}",
                parent.as_deref().unwrap_or("null")
            ));
            for name in ["timestamp", "targetId", "label"] {
                if let Some(v) = raw(name) {
                    line.put_fmt(format_args!(",{}:{v}", json::stringify(name)));
                }
            }
            line.put("}");
            out.put(&line);
            out.put("\n");
            parent = Some(json::stringify(&id));
        }
        Ok(out)
    }

    /// Entry `i`'s id as JSON text, or `None` when it has none (JS's undefined).
    fn id_of_entry(&self, i: usize) -> Option<String> {
        let fields = json::members(&self.text, self.span(i));
        json::get_cold(&self.text, &fields, "id").map(|m| m.value.of(&self.text).to_owned())
    }

    /// Entry `i`'s JSON text with `fields` set (JSON text; `None` drops the
    /// key), as `{ ...entry, name: value }` then `JSON.stringify` give it:
    /// a key keeps its place, a new one goes last.
    fn with_fields(&self, i: usize, fields: &[(&str, Option<String>)]) -> String {
        let text = &self.text;
        let members = json::members(text, self.span(i));
        let mut out = String::with_capacity(self.span(i).len() + 16);
        out.put("{");
        let put = |out: &mut String, key: &str, value: &str| {
            if out.len() > 1 {
                out.put(",");
            }
            out.put(key);
            out.put(":");
            out.put(value);
        };
        let mut done = vec![false; fields.len()];
        for m in &members {
            match fields
                .iter()
                .position(|(name, _)| json::key_is(text, m.key, name))
            {
                // Every duplicate of the key gets the value: JSON.parse keeps
                // the first one's place and the last one's value.
                Some(f) => {
                    done[f] = true;
                    if let Some(v) = &fields[f].1 {
                        put(&mut out, m.key.of(text), v);
                    }
                }
                None => put(&mut out, m.key.of(text), m.value.of(text)),
            }
        }
        for ((name, value), done) in fields.iter().zip(done) {
            if let (Some(v), false) = (value, done) {
                put(&mut out, &json::stringify(name), v);
            }
        }
        out.put("}");
        out
    }

    /// All entries but headers, under a new header (pi's `forkFrom`).
    pub fn forked_jsonl(&self, header: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + header.len());
        out.put(header);
        out.put("\n");
        for (i, e) in self.entries.iter().enumerate() {
            if !e.is_header() {
                out.put(self.entry_json(i));
                out.put("\n");
            }
        }
        out
    }
}
