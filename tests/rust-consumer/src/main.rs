//! Four tools over pi sessions, written against session-tree's documented
//! API as the Rust projects that read pi sessions would write them. Each
//! prints one JSON object a line, for consumer.test.mjs to compare with pi.
//!
//! - `usage FOLDER`: each file's totals, then totals per UTC day and model;
//! - `view FILE`: the active branch's messages with typed content;
//! - `monitor FILE CHUNK`: the file read CHUNK bytes at a time as if it were
//!   being written (cut mid-line and mid-character), then the model in use and
//!   the tokens since the last compaction;
//! - `search FOLDER`: every message of every branch (each leaf's path);
//! - `lineage FOLDER`: each file of the listing and the file it was forked from;
//! - `context FILE`: the ids of the entries the context at the leaf is made
//!   of, and its message count.
//! - `typed FILE`: each entry's kind-specific fields, read through `typed()`;
//! - `projection FILE`: the projection at the leaf, its JSON text and, per
//!   entry, the id and roles of the typed messages;
//! - `roundtrip FILE`: each entry read into `types::FileEntry` (feature
//!   `serde`) and written back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use session_tree::types::FileEntry;
use session_tree::{Block, Replacement, SessionFile, TypedEntry};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match args.first().map(String::as_str) {
        Some("usage") => usage(Path::new(&args[1])),
        Some("view") => view(Path::new(&args[1])),
        Some("monitor") => monitor(Path::new(&args[1]), args[2].parse().expect("CHUNK")),
        Some("search") => search(Path::new(&args[1])),
        Some("context") => context(Path::new(&args[1])),
        Some("lineage") => lineage(Path::new(&args[1])),
        Some("typed") => typed(Path::new(&args[1])),
        Some("projection") => projection(Path::new(&args[1])),
        Some("roundtrip") => roundtrip(Path::new(&args[1])),
        _ => Err("usage: rust-consumer usage|view|monitor|search PATH".into()),
    };
    if let Err(e) = run {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn q(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn usage(dir: &Path) -> Result {
    let mut by_day_model: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for path in files(dir)? {
        let report = SessionFile::open(&path)?.usage();
        let t = &report.total;
        println!(
            "{{\"file\":{},\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{},\"cost\":{}}}",
            q(&path.to_string_lossy()),
            t.input,
            t.output,
            t.cache_read,
            t.cache_write,
            t.cost
        );
        for r in &report.records {
            let day = r.timestamp.get(..10).unwrap_or("").to_owned();
            let model = r.model.clone().unwrap_or_default();
            let row = by_day_model.entry((day, model)).or_default();
            row.0 += r.total_tokens();
            row.1 += r.cost;
        }
    }
    for ((day, model), (tokens, cost)) in by_day_model {
        println!(
            "{{\"day\":{},\"model\":{},\"tokens\":{tokens},\"cost\":{cost}}}",
            q(&day),
            q(&model)
        );
    }
    Ok(())
}

fn blocks(m: &session_tree::MessageView<'_>) -> String {
    let kinds: Vec<String> = m
        .content()
        .iter()
        .map(|b| match b {
            Block::Text(_) => q("text"),
            Block::Thinking(_) => q("thinking"),
            Block::ToolCall { name, .. } => q(&format!("toolCall:{name}")),
            Block::Image { .. } => q("image"),
            _ => q("other"),
        })
        .collect();
    format!("[{}]", kinds.join(","))
}

fn view(path: &Path) -> Result {
    let session = SessionFile::open(path)?;
    for entry in session.branch(None)? {
        let Some(m) = entry.message() else { continue };
        println!(
            "{{\"id\":{},\"role\":{},\"text\":{},\"blocks\":{}}}",
            q(&entry.id().unwrap_or_default()),
            q(&m.role().unwrap_or_default()),
            q(&m.text()),
            blocks(&m)
        );
    }
    Ok(())
}

fn monitor(path: &Path, chunk: usize) -> Result {
    let bytes = std::fs::read(path)?;
    let mut session = SessionFile::from_str("")?;
    for piece in bytes.chunks(chunk.max(1)) {
        session.append_bytes(piece);
    }
    let branch = session.branch(None)?;
    let model = branch
        .iter()
        .rev()
        .find_map(|e| {
            let m = e.message()?;
            (m.role().as_deref() == Some("assistant")).then(|| m.model().map(|s| s.into_owned()))?
        })
        .unwrap_or_default();
    let start = branch
        .iter()
        .rposition(|e| e.kind().as_deref() == Some("compaction"))
        .map_or(0, |i| i + 1);
    let tokens: f64 = branch[start..]
        .iter()
        .filter_map(|e| {
            e.message()
                .filter(|m| m.role().as_deref() == Some("assistant"))
        })
        .filter_map(|m| m.usage())
        .map(|u| u.input + u.output + u.cache_read + u.cache_write)
        .fold(0.0, |a, b| a + b);
    println!(
        "{{\"entries\":{},\"model\":{},\"tokensSinceCompaction\":{tokens}}}",
        session.len(),
        q(&model)
    );
    Ok(())
}

fn search(dir: &Path) -> Result {
    for path in files(dir)? {
        let session = SessionFile::open(&path)?;
        let tree = session.tree();
        for node in tree.preorder() {
            if !node.children().is_empty() {
                continue;
            }
            let leaf = node.entry().id().unwrap_or_default().into_owned();
            for entry in session.branch(Some(&leaf))? {
                let Some(m) = entry.message() else { continue };
                println!(
                    "{{\"file\":{},\"leaf\":{},\"id\":{},\"role\":{}}}",
                    q(&path.to_string_lossy()),
                    q(&leaf),
                    q(&entry.id().unwrap_or_default()),
                    q(&m.role().unwrap_or_default())
                );
            }
        }
    }
    Ok(())
}

fn context(path: &Path) -> Result {
    let session = SessionFile::open(path)?;
    let ids: Vec<String> = session
        .context_entries(None)?
        .iter()
        .map(|e| q(&e.id().unwrap_or_default()))
        .collect();
    let messages = session.context(None)?.messages().len();
    println!(
        "{{\"entries\":[{}],\"messages\":{messages}}}",
        ids.join(",")
    );
    Ok(())
}

fn lineage(dir: &Path) -> Result {
    let rows = session_tree::list(dir)?;
    for row in &rows {
        let parent = row
            .parent
            .map_or("null".to_owned(), |p| q(&rows[p].path.to_string_lossy()));
        println!(
            "{{\"file\":{},\"parent\":{parent}}}",
            q(&row.path.to_string_lossy())
        );
    }
    Ok(())
}

fn opt(s: Option<std::borrow::Cow<'_, str>>) -> String {
    s.map_or("null".to_owned(), |s| q(&s))
}

fn num(n: Option<f64>) -> String {
    n.map_or("null".to_owned(), |n| n.to_string())
}

fn typed(path: &Path) -> Result {
    let session = SessionFile::open(path)?;
    for entry in session.entries() {
        let fields = match entry.typed() {
            TypedEntry::Header {
                version,
                cwd,
                parent_session,
                ..
            } => format!(
                "{{\"version\":{},\"cwd\":{},\"parentSession\":{}}}",
                num(version),
                opt(cwd),
                opt(parent_session)
            ),
            TypedEntry::Message(m) => format!(
                "{{\"role\":{},\"blocks\":{}}}",
                opt(m.role()),
                blocks(&m)
            ),
            TypedEntry::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
                usage,
                from_hook,
                system_message,
                ..
            } => format!(
                "{{\"summary\":{},\"firstKeptEntryId\":{},\"tokensBefore\":{},\"output\":{},\"fromHook\":{from_hook},\"system\":{}}}",
                opt(summary),
                opt(first_kept_entry_id),
                num(tokens_before),
                num(usage.map(|u| u.output)),
                system_message.is_some()
            ),
            TypedEntry::BranchSummary {
                from_id,
                summary,
                usage,
                ..
            } => format!(
                "{{\"fromId\":{},\"summary\":{},\"output\":{}}}",
                opt(from_id),
                opt(summary),
                num(usage.map(|u| u.output))
            ),
            TypedEntry::Label {
                target_id, label, ..
            } => format!(
                "{{\"targetId\":{},\"label\":{}}}",
                opt(target_id),
                opt(label)
            ),
            TypedEntry::SessionInfo { name, .. } => format!("{{\"name\":{}}}", opt(name)),
            TypedEntry::ModelChange {
                provider,
                model_id,
                ..
            } => format!(
                "{{\"provider\":{},\"modelId\":{}}}",
                opt(provider),
                opt(model_id)
            ),
            TypedEntry::ThinkingLevelChange { thinking_level, .. } => {
                format!("{{\"thinkingLevel\":{}}}", opt(thinking_level))
            }
            TypedEntry::Custom {
                custom_type, data, ..
            } => format!(
                "{{\"customType\":{},\"data\":{}}}",
                opt(custom_type),
                data.unwrap_or("null")
            ),
            TypedEntry::CustomMessage {
                custom_type,
                content,
                display,
                details,
                ..
            } => format!(
                "{{\"customType\":{},\"text\":{},\"display\":{display},\"details\":{}}}",
                opt(custom_type),
                q(&texts(&content)),
                details.unwrap_or("null")
            ),
            TypedEntry::Usage {
                kind,
                provider,
                model,
                usage,
                note,
                ..
            } => format!(
                "{{\"kind\":{},\"provider\":{},\"model\":{},\"input\":{},\"cost\":{},\"note\":{}}}",
                opt(kind),
                opt(provider),
                opt(model),
                num(usage.map(|u| u.input)),
                num(usage.map(|u| u.cost)),
                opt(note)
            ),
            TypedEntry::ContextEdit {
                target_id,
                replacement,
                ..
            } => format!(
                "{{\"targetId\":{},\"replacement\":{}}}",
                opt(target_id),
                match replacement {
                    Some(Replacement::Remove) => "null".to_owned(),
                    Some(Replacement::Content(c)) => q(&texts(&c)),
                    _ => "\"?\"".to_owned(),
                }
            ),
            _ => "null".to_owned(),
        };
        println!(
            "{{\"type\":{},\"id\":{},\"fields\":{fields}}}",
            opt(entry.kind()),
            opt(entry.id())
        );
    }
    Ok(())
}

/// The text blocks of a content, joined with newlines.
fn texts(blocks: &[Block<'_>]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

fn projection(path: &Path) -> Result {
    let session = SessionFile::open(path)?;
    let projection = session.projection(None)?;
    let entries: Vec<String> = projection
        .entries()
        .iter()
        .map(|e| {
            let roles: Vec<String> = e.messages.iter().map(|m| opt(m.role())).collect();
            format!(
                "{{\"id\":{},\"roles\":[{}]}}",
                opt(e.entry.id()),
                roles.join(",")
            )
        })
        .collect();
    println!(
        "{{\"json\":{},\"entries\":[{}],\"messages\":{},\"thinkingLevel\":{}}}",
        projection.json(),
        entries.join(","),
        projection.messages().len(),
        opt(projection.thinking_level())
    );
    Ok(())
}

fn roundtrip(path: &Path) -> Result {
    let session = SessionFile::open(path)?;
    for entry in session.entries() {
        let owned: FileEntry = entry.deserialize()?;
        let known = !matches!(owned, FileEntry::Other(_));
        println!(
            "{{\"known\":{known},\"json\":{}}}",
            serde_json::to_string(&owned)?
        );
    }
    Ok(())
}
