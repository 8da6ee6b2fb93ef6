//! Prints the active branch of a session: each message with its role and
//! typed content.
//!
//! `cargo run --example branch -- ~/.pi/agent/sessions/--home-me-project--/FILE.jsonl`

use session_tree::{Block, SessionFile};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: branch FILE.jsonl")?;
    let session = SessionFile::open(&path)?;
    for entry in session.branch(None)? {
        let kind = entry.kind().unwrap_or_default();
        let Some(message) = entry.message() else {
            println!("[{kind}]");
            continue;
        };
        let role = message.role().unwrap_or_default();
        for block in message.content() {
            match block {
                Block::Text(text) => println!("{role}: {text}"),
                Block::Thinking(text) => println!("{role} (thinking): {} chars", text.len()),
                Block::ToolCall {
                    name, arguments, ..
                } => println!("{role} calls {name} {arguments}"),
                Block::Image { mime_type } => println!("{role}: [image {mime_type}]"),
                _ => println!("{role}: [other block]"),
            }
        }
    }
    Ok(())
}
