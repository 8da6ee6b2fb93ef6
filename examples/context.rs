//! Prints what the model sees at a leaf (the current one by default): the
//! messages of pi's `buildSessionContext`, and its exact JSON with `--json`.
//!
//! `cargo run --example context -- FILE.jsonl [LEAF_ID] [--json]`

use session_tree::SessionFile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let mut rest = args.iter().filter(|a| *a != "--json");
    let path = rest
        .next()
        .ok_or("usage: context FILE.jsonl [LEAF_ID] [--json]")?;
    let leaf = rest.next().map(String::as_str);
    let session = SessionFile::open(path)?;
    let context = session.context(leaf)?;
    if json {
        println!("{}", context.json());
        return Ok(());
    }
    for message in context.messages() {
        let text = message.text();
        let first = text.lines().next().unwrap_or("");
        println!("{:>17}  {first}", message.role().unwrap_or_default());
    }
    println!(
        "thinking level: {}",
        context.thinking_level().unwrap_or_default()
    );
    Ok(())
}
