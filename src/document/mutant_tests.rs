//! Tests written against mutants of `document` that `cargo test` did not
//! catch (docs/mutation-log.md).

use super::*;

#[test]
fn an_old_session_migrated_in_one_pass_reads_as_its_migration() {
    // A v1 session (no ids): pi migrates it to v3 on load. The one pass gives
    // the text of the migration and that text's entries, as a document reads them.
    let v1 = concat!(
        r#"{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":"yo"}}"#,
    );
    let mut n = 0u32;
    let mut draw = || {
        n += 1;
        Ok::<_, Infallible>(n.to_be_bytes())
    };
    let Ok(Some(got)) = Entries::migrated_in_one_pass(v1, &mut draw, &IsoOnly) else {
        panic!("a v1 session is migrated");
    };
    assert!(got.text.contains(r#""version":3"#), "{}", got.text);
    assert!(
        got.text.contains(r#""id":"00000001","parentId":null"#),
        "{}",
        got.text
    );
    assert!(
        got.text
            .contains(r#""id":"00000002","parentId":"00000001""#),
        "{}",
        got.text
    );
    let doc = Document::parse(&got.text);
    assert_eq!(got.entries, doc.entries);
    assert_eq!(got.spans, doc.spans);
    // A current session needs no migration.
    let v3 = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
    assert!(matches!(
        Entries::migrated_in_one_pass(v3, &mut draw, &IsoOnly),
        Ok(None)
    ));
}

#[test]
fn an_old_session_needs_a_migration_and_gets_it() {
    // pi migrates a v1 file (no ids) to v3 when it opens it: ids, parentIds
    // in file order, `"version":3` in the header. A v3 file needs none.
    let v1 = concat!(
        r#"{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":"yo"}}"#,
    );
    let mut n = 0u32;
    let mut new_id = |_: &crate::ids::Taken| {
        n += 1;
        format!("{n:08x}")
    };
    let doc = Document::parse(v1);
    assert!(doc.migration(&mut new_id).is_some_and(|e| !e.is_empty()));
    let planned = doc.try_migration(&mut |_| Ok::<_, ()>("x".to_owned()));
    assert!(matches!(planned, Ok(Some(e)) if !e.is_empty()));
    let migrated = doc.migrated(&IsoOnly, &mut new_id);
    assert!(
        migrated.text.contains(r#""version":3"#),
        "{}",
        migrated.text
    );
    assert!(
        migrated.text.contains(r#""id":"00000003","parentId":null"#),
        "{}",
        migrated.text
    );
    assert!(
        migrated
            .text
            .contains(r#""id":"00000004","parentId":"00000003""#),
        "{}",
        migrated.text
    );
    assert_eq!(migrated.entries, Document::parse(&migrated.text).entries);

    let v3 = Document::parse(&migrated.text);
    assert_eq!(v3.migration(&mut new_id), None);
    assert!(matches!(v3.try_migration(&mut |_| Err(())), Ok(None)));
}
