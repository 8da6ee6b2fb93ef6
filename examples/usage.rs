//! Totals what the sessions of a folder cost, per day and model, as pi 1.6
//! counts each file (`getSessionStats`).
//!
//! `cargo run --example usage -- ~/.pi/agent/sessions`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use session_tree::SessionFile;

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            jsonl_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: usage FOLDER")?;
    let mut files = Vec::new();
    jsonl_files(Path::new(&dir), &mut files)?;
    files.sort();
    // (day, model) -> (tokens, cost)
    let mut table: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for path in &files {
        let session = match SessionFile::open(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        for record in session.usage().records {
            let day = record.timestamp.get(..10).unwrap_or("?").to_owned();
            let model = record.model.clone().unwrap_or_else(|| "?".into());
            let row = table.entry((day, model)).or_default();
            row.0 += record.total_tokens();
            row.1 += record.cost;
        }
    }
    for ((day, model), (tokens, cost)) in &table {
        println!("{day}  {model:<32} {tokens:>12} tokens  ${cost:.4}");
    }
    Ok(())
}
