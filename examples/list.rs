//! Lists the sessions of a folder as pi's session list shows them: name or
//! first message, message count, cwd. A file that cannot be read is a row
//! with its error; it never stops the list.
//!
//! `cargo run --example list -- ~/.pi/agent/sessions/--home-me-project--`

use session_tree::SessionFile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: list FOLDER")?;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        match SessionFile::open(&path).map(|s| s.info()) {
            Ok(Some(info)) => {
                let title = info.name.unwrap_or(info.first_message);
                let title: String = title.chars().take(60).collect();
                println!(
                    "{name}  {:>4} messages  {}  {title}",
                    info.message_count, info.cwd
                );
            }
            Ok(None) => println!("{name}  (no session header)"),
            Err(e) => println!("{name}  error: {e}"),
        }
    }
    Ok(())
}
