//! Tests written against mutants of `preview` (docs/mutation-log.md).
//! Each cut is worked by hand from the module's rule: a long string keeps
//! its shortest prefix holding [`TEXT_CAP`] UTF-16 units that are not JS
//! whitespace (`\s`), escapes read as the units they stand for.

use super::tests::preview;
use super::*;

fn quoted(body: &str) -> String {
    format!("\"{body}\"")
}

#[test]
fn a_string_a_little_over_the_cap_is_cut() {
    let long = quoted(&"x".repeat(TEXT_CAP + 88));
    assert_eq!(cut(&long), quoted(&"x".repeat(TEXT_CAP)));
    let just = quoted(&"x".repeat(TEXT_CAP + 1));
    assert_eq!(cut(&just), quoted(&"x".repeat(TEXT_CAP)));
}

#[test]
fn escapes_count_as_the_units_they_stand_for() {
    // \t, \r and \f are whitespace (kept, not counted); \b is not.
    let body = format!("{}{}", "\\t\\r\\f".repeat(200), "\\b".repeat(600));
    let kept = format!("{}{}", "\\t\\r\\f".repeat(200), "\\b".repeat(TEXT_CAP));
    assert_eq!(cut(&quoted(&body)), quoted(&kept));
    // \/ and \\ are one character each; ten spaces are not counted.
    let body = format!(
        "{}{}{}",
        " ".repeat(10),
        "\\/".repeat(300),
        "\\\\".repeat(300)
    );
    let kept = format!(
        "{}{}{}",
        " ".repeat(10),
        "\\/".repeat(300),
        "\\\\".repeat(212)
    );
    assert_eq!(cut(&quoted(&body)), quoted(&kept));
    // \u0020 is a space, \u0041 a letter.
    let body = format!("{}{}", "\\u0020".repeat(100), "\\u0041".repeat(600));
    let kept = format!("{}{}", "\\u0020".repeat(100), "\\u0041".repeat(TEXT_CAP));
    assert_eq!(cut(&quoted(&body)), quoted(&kept));
}

#[test]
fn a_pair_of_escapes_is_never_split_wherever_it_falls() {
    // One letter, then pairs: 1 + 2 × 255 = 511 units, so the 256th pair
    // (units 512 and 513) is kept whole.
    let pair = "\\ud83d\\ude00";
    let body = format!("x{}", pair.repeat(600));
    assert_eq!(
        cut(&quoted(&body)),
        quoted(&format!("x{}", pair.repeat(256)))
    );
}

#[test]
fn only_a_high_escape_starts_a_pair() {
    // A letter as the 512th unit, then a lone low surrogate: the cut falls
    // between them.
    let body = format!(
        "{}\\u0041\\udc00{}",
        "x".repeat(TEXT_CAP - 1),
        "y".repeat(100)
    );
    assert_eq!(
        cut(&quoted(&body)),
        quoted(&format!("{}\\u0041", "x".repeat(TEXT_CAP - 1)))
    );
    // A high surrogate before a letter is alone: one unit, and so is the letter.
    let body = "\\ud800\\u0041".repeat(300);
    assert_eq!(cut(&quoted(&body)), quoted(&"\\ud800\\u0041".repeat(256)));
    let body = "\\ud800x".repeat(300);
    assert_eq!(cut(&quoted(&body)), quoted(&"\\ud800x".repeat(256)));
}

#[test]
fn an_array_member_projects_each_element() {
    // A path through an array member of the entry itself: each element
    // keeps what the rest of the path names.
    assert_eq!(
        preview(r#"{"a":[{"b":1,"c":2},3,{"c":4}],"z":0}"#, &["a.b"]),
        r#"{"a":[{"b":1},3,{}]}"#
    );
}

#[test]
fn long_strings_are_cut_wherever_they_are_kept() {
    let long = "x".repeat(TEXT_CAP + 10);
    let kept = "x".repeat(TEXT_CAP);
    let line = format!(
        r#"{{"s":"{long}","m":{{"t":"{long}","a":[{{"u":"{long}"}}]}},"w":["{long}",{{"v":"{long}"}}]}}"#
    );
    // Kept whole (a top-level member, its array), kept whole below a
    // picked member, and projected: every string is cut alike.
    assert_eq!(
        preview(&line, &["s", "w", "m.t", "m.a.u"]),
        format!(
            r#"{{"s":"{kept}","m":{{"t":"{kept}","a":[{{"u":"{kept}"}}]}},"w":["{kept}",{{"v":"{kept}"}}]}}"#
        )
    );
}
