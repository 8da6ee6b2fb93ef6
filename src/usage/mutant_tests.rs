//! Tests written against mutants of `usage` (docs/mutation-log.md).
//! Each expectation is pi 1.6's `getSessionStats` accounting (the module
//! docs) worked by hand from the input: token counts and costs are distinct
//! powers of two, so a sum tells which records were counted.

use super::tests::counted_cost;
use super::*;
// Test code, which may use its own layer: tests/layers.rs leaves out what is
// marked so (it reads this file as `usage` itself).
#[cfg(test)]
use crate::document::Document;
use crate::tree::NativeSort;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"S","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

/// A usage object: input, output, cache read, cache write and `cost.total`.
fn u(input: u32, output: u32, read: u32, write: u32, cost: u32) -> String {
    format!(
        r#"{{"input":{input},"output":{output},"cacheRead":{read},"cacheWrite":{write},"cost":{{"total":{cost}}}}}"#
    )
}

/// An entry line: `rest` holds its type and fields.
fn line(id: &str, parent: Option<&str>, rest: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-01-05T10:00:00.000Z",{rest}}}"#)
}

/// An assistant message with `fields` (provider, model, usage) in its message.
fn answer(id: &str, parent: Option<&str>, fields: &str) -> String {
    line(
        id,
        parent,
        &format!(r#""type":"message","message":{{"role":"assistant","content":[],{fields}}}"#),
    )
}

fn question(id: &str, parent: Option<&str>) -> String {
    line(
        id,
        parent,
        r#""type":"message","message":{"role":"user","content":"q"}"#,
    )
}

fn doc(lines: &[String]) -> Document {
    let mut all = vec![HEADER.to_owned()];
    all.extend(lines.iter().cloned());
    Document::parse(&all.join("\n"))
}

fn recs(lines: &[String]) -> Vec<Record> {
    let d = doc(lines);
    records(&d.text, &d.entries, &d.spans)
}

fn report_at_last(lines: &[String]) -> Report {
    let d = doc(lines);
    let leaf = leaf_of(&d.entries, None);
    report(&d.text, &d.entries, &d.spans, leaf, &NativeSort)
}

/// Every field of totals, `total_tokens` last.
fn all(t: &Totals) -> (f64, f64, f64, f64, f64, usize, usize, f64) {
    (
        t.input,
        t.output,
        t.cache_read,
        t.cache_write,
        t.cost,
        t.records,
        t.incomplete,
        t.total_tokens(),
    )
}

#[test]
fn kinds_have_the_names_of_reports() {
    let names: Vec<&str> = RecordKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "assistant",
            "toolResult",
            "usage",
            "compaction",
            "branchSummary"
        ]
    );
}

#[test]
fn a_record_adds_its_four_token_counts_and_names_its_model() {
    let r = recs(&[
        answer(
            "a",
            None,
            &format!(
                r#""provider":"p","model":"m","usage":{}"#,
                u(1, 2, 4, 8, 16)
            ),
        ),
        answer(
            "b",
            Some("a"),
            &format!(r#""model":"m","usage":{}"#, u(1, 0, 0, 0, 0)),
        ),
        answer(
            "c",
            Some("b"),
            &format!(r#""provider":"p","usage":{}"#, u(1, 0, 0, 0, 0)),
        ),
    ]);
    assert_eq!(r.len(), 3);
    // 1 + 2 + 4 + 8: pi's input + output + cacheRead + cacheWrite.
    assert_eq!(r[0].total_tokens(), 15.0);
    assert_eq!(r[0].model_key().as_deref(), Some("p/m"));
    assert_eq!(
        r[1].model_key().as_deref(),
        Some("m"),
        "a model without provider"
    );
    assert_eq!(
        r[2].model_key(),
        None,
        "a provider without model names none"
    );
}

#[test]
fn a_sides_totals_add_its_whole_subtree() {
    // a → b → c → e on one side of the fork at a, d on the other. e is a
    // usage entry whose usage is a number: a record, incomplete, all zero.
    let r = report_at_last(&[
        question("a", None),
        answer("b", Some("a"), &format!(r#""usage":{}"#, u(1, 2, 4, 8, 16))),
        answer(
            "c",
            Some("b"),
            &format!(r#""usage":{}"#, u(16, 32, 64, 128, 256)),
        ),
        line("e", Some("c"), r#""type":"usage","kind":"k","usage":5"#),
        question("d", Some("a")),
    ]);
    assert_eq!(r.forks.len(), 1);
    let sides = &r.forks[0].sides;
    assert_eq!(sides.len(), 2);
    assert_eq!(sides[0].id, "b");
    // 1+16, 2+32, 4+64, 8+128, $16+256; 17+34+68+136 tokens.
    assert_eq!(
        all(&sides[0].totals),
        (17.0, 34.0, 68.0, 136.0, 272.0, 3, 1, 255.0)
    );
    assert_eq!(sides[1].id, "d");
    assert_eq!(all(&sides[1].totals), (0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0.0));
    assert_eq!((sides[0].leaves, sides[1].leaves), (1, 1));
}

/// A file's header and records, as `dedup` reads them.
type Read = (Option<Header>, Vec<Record>);

fn file(parent_session: Option<&str>, lines: &[String]) -> Read {
    let header = match parent_session {
        Some(p) => HEADER.replace(
            r#""cwd":"/p""#,
            &format!(r#""cwd":"/p","parentSession":"{p}""#),
        ),
        None => HEADER.to_owned(),
    };
    let mut all = vec![header];
    all.extend(lines.iter().cloned());
    let d = Document::parse(&all.join("\n"));
    (
        super::header(&d.text, &d.entries, &d.spans),
        records(&d.text, &d.entries, &d.spans),
    )
}

fn paid(id: &str, parent: Option<&str>, cost: u32) -> String {
    answer(id, parent, &format!(r#""usage":{}"#, u(0, 0, 0, 0, cost)))
}

/// What each file counts, by `dedup`, of `files` (path, file).
fn counted(files: &[(&str, Read)]) -> Vec<f64> {
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, (h, r))| Source {
            path,
            header: h.as_ref(),
            records: r,
        })
        .collect();
    let counted = dedup(&sources);
    for (s, c) in sources.iter().zip(&counted) {
        assert_eq!(s.records.len(), c.len());
    }
    counted_cost(&sources, &counted)
}

#[test]
fn a_lineage_is_read_from_its_source_down_whatever_the_paths() {
    // A source ($1, $2), its branched copy (the same two and $4) and a fork
    // of the copy (the same three and $8): their paths sort the other way.
    let source = file(None, &[paid("x", None, 1), paid("y", Some("x"), 2)]);
    let copy_lines = [
        paid("x", None, 1),
        paid("y", Some("x"), 2),
        paid("z", Some("y"), 4),
    ];
    let copy = file(Some("/z/source.jsonl"), &copy_lines);
    let mut fork_lines = copy_lines.to_vec();
    fork_lines.push(paid("w", Some("z"), 8));
    let fork = file(Some("/m/copy.jsonl"), &fork_lines);
    let list = [
        ("/a/fork.jsonl", fork),
        ("/m/copy.jsonl", copy),
        ("/z/source.jsonl", source),
    ];
    // Each entry once, in the oldest file that has it: w; z; x and y.
    assert_eq!(counted(&list), [8.0, 4.0, 3.0]);
}

#[test]
fn a_file_that_names_itself_as_parent_is_a_lineage_of_its_own() {
    let own = file(Some("/s/self.jsonl"), &[paid("x", None, 16)]);
    let other = file(None, &[paid("x", None, 1)]);
    let list = [("/s/self.jsonl", own), ("/s/other.jsonl", other)];
    assert_eq!(counted(&list), [16.0, 1.0]);
}

#[test]
fn files_that_name_each_other_are_one_lineage() {
    // a names b and b names a (a hand-edited header): their chains meet, so
    // the entry both hold counts once, in the least path; a fork of b too.
    let a = file(
        Some("/s/b.jsonl"),
        &[paid("x", None, 1), paid("y", Some("x"), 2)],
    );
    let b = file(
        Some("/s/a.jsonl"),
        &[paid("x", None, 1), paid("z", Some("x"), 4)],
    );
    let c = file(
        Some("/s/b.jsonl"),
        &[paid("x", None, 1), paid("w", Some("x"), 8)],
    );
    let list = [("/s/c.jsonl", c), ("/s/b.jsonl", b), ("/s/a.jsonl", a)];
    assert_eq!(counted(&list), [8.0, 4.0, 3.0]);
}

#[test]
fn a_fork_of_a_file_in_a_loop_stays_below_the_loop() {
    // a and b name each other; x forks a and holds a's entry again. The
    // loop is the lineage's top, so its least path counts the shared entry,
    // though x's path sorts first.
    let a = file(Some("/s/b.jsonl"), &[paid("e", None, 1)]);
    let b = file(Some("/s/a.jsonl"), &[paid("e", None, 1)]);
    let x = file(
        Some("/s/a.jsonl"),
        &[paid("e", None, 1), paid("w", Some("e"), 8)],
    );
    let list = [("/s/0x.jsonl", x), ("/s/a.jsonl", a), ("/s/b.jsonl", b)];
    assert_eq!(counted(&list), [8.0, 1.0, 0.0]);
}

#[test]
fn a_long_chain_of_forks_counts_each_entry_once() {
    // File i forks file i - 1 and repeats its entries, adding one of $1:
    // listed newest first, each counts its own entry only.
    let n = 120;
    let mut lines = Vec::new();
    let mut list = Vec::new();
    for i in 0..n {
        let parent = (i > 0).then(|| format!("e{}", i - 1));
        lines.push(paid(&format!("e{i}"), parent.as_deref(), 1));
        let parent_path = (i > 0).then(|| format!("/f/{:04}.jsonl", i - 1));
        list.push((
            format!("/f/{i:04}.jsonl"),
            file(parent_path.as_deref(), &lines),
        ));
    }
    list.reverse();
    let list: Vec<(&str, Read)> = list.iter().map(|(p, r)| (p.as_str(), r.clone())).collect();
    assert_eq!(counted(&list), vec![1.0; n]);
}

/// An assistant message of `cost` at `timestamp` (JSON), by `provider/model`.
fn paid_at(id: &str, timestamp: &str, model: &str, cost: u32) -> String {
    let (p, m) = model.split_once('/').unwrap_or(("", model));
    let named = if p.is_empty() {
        format!(r#""model":"{m}""#)
    } else {
        format!(r#""provider":"{p}","model":"{m}""#)
    };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":{timestamp},"message":{{"role":"assistant","content":[],{named},"usage":{}}}}}"#,
        u(0, 0, 0, 0, cost)
    )
}

/// The rows of `files` (path, cwd, lines) grouped `by`, in UTC.
fn rows(files: &[(&str, &str, Vec<String>)], by: By, range: &Range) -> Vec<(String, f64)> {
    let read: Vec<Read> = files
        .iter()
        .map(|(_, cwd, lines)| {
            let head = HEADER.replace(r#""cwd":"/p""#, &format!(r#""cwd":"{cwd}""#));
            let mut all = vec![head];
            all.extend(lines.iter().cloned());
            let d = Document::parse(&all.join("\n"));
            (
                super::header(&d.text, &d.entries, &d.spans),
                records(&d.text, &d.entries, &d.spans),
            )
        })
        .collect();
    let sources: Vec<Source> = files
        .iter()
        .zip(&read)
        .map(|((path, _, _), (h, r))| Source {
            path,
            header: h.as_ref(),
            records: r,
        })
        .collect();
    let counted = dedup(&sources);
    buckets(&sources, &counted, by, &FixedOffset(0.0), range)
        .into_iter()
        .map(|b| (b.key, b.totals.cost))
        .collect()
}

fn row(key: &str, cost: f64) -> (String, f64) {
    (key.to_owned(), cost)
}

#[test]
fn a_range_with_one_end_bounds_that_end_only() {
    let day = |d: &str| format!("\"2026-01-{d}T12:00:00.000Z\"");
    let files = [(
        "/s/a.jsonl",
        "/p",
        vec![
            paid_at("a", &day("04"), "m", 1),
            paid_at("b", &day("05"), "m", 2),
            paid_at("c", &day("06"), "m", 4),
            paid_at("d", "\"soon\"", "m", 8),
        ],
    )];
    let since = Range {
        since: Some("2026-01-05".into()),
        until: None,
    };
    assert_eq!(
        rows(&files, By::Day, &since),
        [row("2026-01-05", 2.0), row("2026-01-06", 4.0)]
    );
    let until = Range {
        since: None,
        until: Some("2026-01-05".into()),
    };
    assert_eq!(
        rows(&files, By::Day, &until),
        [row("2026-01-04", 1.0), row("2026-01-05", 2.0)]
    );
    // No range: every record, the one without a date under its own key
    // ("(" sorts before digits).
    assert_eq!(
        rows(&files, By::Day, &Range::default()),
        [
            row(NO_DATE, 8.0),
            row("2026-01-04", 1.0),
            row("2026-01-05", 2.0),
            row("2026-01-06", 4.0)
        ]
    );
}

#[test]
fn one_model_of_two_providers_is_two_models() {
    let at = "\"2026-01-05T12:00:00.000Z\"";
    let files = [
        (
            "/s/a.jsonl",
            "/p",
            vec![
                paid_at("a", at, "a/x", 1),
                paid_at("b", at, "b/x", 2),
                paid_at("c", at, "x", 4),
            ],
        ),
        ("/s/b.jsonl", "/q", vec![paid_at("d", at, "a/x", 8)]),
    ];
    // Most expensive first: a/x $1 + $8, x $4, b/x $2.
    assert_eq!(
        rows(&files, By::Model, &Range::default()),
        [row("a/x", 9.0), row("x", 4.0), row("b/x", 2.0)]
    );
}

#[test]
fn a_rows_models_come_most_expensive_first_then_by_name() {
    let at = "\"2026-01-05T12:00:00.000Z\"";
    let files = [(
        "/s/a.jsonl",
        "/p",
        vec![
            paid_at("a", at, "p/cheap", 1),
            paid_at("b", at, "p/dear", 4),
            paid_at("c", at, "p/zed", 2),
            paid_at("d", at, "p/abc", 2),
        ],
    )];
    let read: Vec<Read> = files
        .iter()
        .map(|(_, _, lines)| file(None, lines))
        .collect();
    let sources: Vec<Source> = read
        .iter()
        .map(|(h, r)| Source {
            path: "/s/a.jsonl",
            header: h.as_ref(),
            records: r,
        })
        .collect();
    let counted = dedup(&sources);
    let day = buckets(
        &sources,
        &counted,
        By::Day,
        &FixedOffset(0.0),
        &Range::default(),
    );
    assert_eq!(day.len(), 1);
    let models: Vec<(&str, f64)> = day[0]
        .models
        .iter()
        .map(|(m, t)| (m.as_str(), t.cost))
        .collect();
    // $4, then the two of $2 by name, then $1.
    assert_eq!(
        models,
        [
            ("p/dear", 4.0),
            ("p/abc", 2.0),
            ("p/zed", 2.0),
            ("p/cheap", 1.0)
        ]
    );
    assert_eq!(day[0].totals.cost, 9.0);
}
