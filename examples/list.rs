//! Lists sessions as pi's session list shows them: name or first message,
//! message count, cwd; forks indented under their sources. A file that
//! cannot be read is a row with its error; it never stops the list.
//!
//! `cargo run --example list -- [FOLDER]` (default: pi's sessions folder)

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = match std::env::args().nth(1) {
        Some(d) => PathBuf::from(d),
        None => session_tree::sessions_dir().ok_or("no home folder: pass a FOLDER")?,
    };
    let rows = session_tree::list(&dir)?;
    // Sources first, each followed by its forks, depth first.
    let mut children = vec![Vec::new(); rows.len()];
    let mut stack = Vec::new();
    for (i, row) in rows.iter().enumerate().rev() {
        match row.parent {
            Some(p) => children[p].push(i),
            None => stack.push((i, 0)),
        }
    }
    let mut shown = vec![false; rows.len()];
    while let Some((i, depth)) = stack.pop() {
        if std::mem::replace(&mut shown[i], true) {
            continue; // a parentSession loop: each file once
        }
        stack.extend(children[i].iter().map(|&c| (c, depth + 1)));
        print_row(&rows[i], depth);
    }
    Ok(())
}

fn print_row(row: &session_tree::Listed, depth: usize) {
    let name = row.path.file_name().unwrap_or_default().to_string_lossy();
    let indent = "  ".repeat(depth);
    match &row.info {
        Ok(Some(info)) => {
            let title = info
                .name
                .clone()
                .unwrap_or_else(|| info.first_message.clone());
            let title: String = title.chars().take(60).collect();
            println!(
                "{indent}{name}  {:>4} messages  {}  {title}",
                info.message_count, info.cwd
            );
        }
        Ok(None) => println!("{indent}{name}  (no session header)"),
        Err(e) => println!("{indent}{name}  error: {e}"),
    }
}
