//! Follows a session file as an agent writes it, printing each new entry and
//! the tokens used since the last compaction. Reads only what was appended,
//! from the last offset; a read that ends mid-line waits for the rest.
//!
//! `cargo run --example tail -- FILE.jsonl [--once]` (`--once`: stop at the end)

use std::io::{Read, Seek, SeekFrom};
use std::time::Duration;

use session_tree::SessionFile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: tail FILE.jsonl [--once]")?;
    let once = args.iter().any(|a| a == "--once");
    // The first read opens the file (an old v1/v2 file is migrated then;
    // lines taken in later are not), the next ones take what was appended.
    let mut session: Option<SessionFile> = None;
    let mut offset = 0u64;
    let mut seen = 0;
    loop {
        let mut file = std::fs::File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut chunk = Vec::new();
        file.read_to_end(&mut chunk)?;
        offset += chunk.len() as u64;
        let session = match &mut session {
            Some(s) => {
                s.append_bytes(&chunk);
                s
            }
            None => session.insert(SessionFile::from_bytes(&chunk)?),
        };
        let entries: Vec<_> = session.entries().collect();
        for entry in &entries[seen..] {
            let kind = entry.kind().unwrap_or_default();
            let id = entry.id().unwrap_or_default();
            println!("{kind} {id}");
        }
        seen = entries.len();
        // Tokens since the last compaction on the current branch.
        let branch = session.branch(None)?;
        let start = branch
            .iter()
            .rposition(|e| e.kind().as_deref() == Some("compaction"))
            .map_or(0, |i| i + 1);
        let tokens: f64 = branch[start..]
            .iter()
            .filter_map(|e| e.message().and_then(|m| m.usage()))
            .map(|u| u.input + u.output + u.cache_read + u.cache_write)
            .fold(0.0, |a, b| a + b);
        println!("tokens since the last compaction: {tokens}");
        if once {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
