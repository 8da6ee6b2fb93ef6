//! Tests written against mutants of `json` (docs/mutation-log.md).
//! The oracles are JSON.parse's grammar and values (serde_json reads the
//! same grammar, bar lone surrogates and its nesting limit of 128) and JS
//! facts written as literals, each with how it was computed in Node.

use super::*;

fn whole(s: &str) -> Span {
    Span::new(0, s.len())
}

fn valid(s: &str) -> bool {
    parse(s, whole(s)).is_ok()
}

#[test]
fn spans_measure_read_and_move() {
    let s = Span::new(2, 5);
    assert_eq!((s.len(), s.is_empty()), (3, false));
    assert!(Span::new(4, 4).is_empty());
    assert_eq!(s.of("abcdefg"), "cde");
    assert_eq!(Span::new(5, 9).of("abcdefg"), "", "out of the text");
    assert_eq!(s.shifted(3), Span::new(5, 8));
    assert_eq!(s.shifted(-2), Span::new(0, 3));
}

#[test]
fn a_value_read_later_in_a_text_is_the_same_value_moved() {
    for s in [
        r#"{"a":1,"m":{"role":"user","x":[1,{"y":2}]},"b":"s"}"#,
        r#"[1, {"a":{"b":2}}, "x"]"#,
        r#""str""#,
        "12",
    ] {
        let pad = "   \n ";
        let padded = format!("{pad}{s}");
        let later = parse(&padded, whole(&padded)).unwrap();
        let mut moved = parse(s, whole(s)).unwrap();
        moved.shift(pad.len() as isize);
        assert_eq!(moved, later, "{s}");
        moved.shift(-(pad.len() as isize));
        assert_eq!(moved, parse(s, whole(s)).unwrap(), "{s}");
    }
}

#[test]
fn nested_members_are_those_of_objects_in_top_level_members() {
    let s = r#"{"a":{"x":1,"y":[2]},"b":3,"c":{"z":{"w":1}},"d":[{"v":1}]}"#;
    let v = parse(s, whole(s)).unwrap();
    let keys = |i: usize| -> Vec<&str> { v.nested_in(i).map(|m| m.key.of(s)).collect() };
    assert_eq!(keys(0), ["\"x\"", "\"y\""]);
    assert_eq!(keys(1), Vec::<&str>::new());
    assert_eq!(keys(2), ["\"z\""]);
    assert_eq!(keys(3), Vec::<&str>::new(), "an array's objects are not");
    assert_eq!(v.nested.len(), 3);
    // A top-level array records its elements, and no members of them.
    let s = r#"[{"a":{"b":1}},{"c":2}]"#;
    let v = parse(s, whole(s)).unwrap();
    assert_eq!(v.members.len(), 2);
    assert!(v.nested.is_empty());
}

#[test]
fn a_line_ends_at_its_first_newline() {
    let text = "{\"a\":1} \r\n[2]\n{x\n\"s\"";
    let mut value = Value::default();
    // Line 1: ends before its `\n`, whitespace included.
    assert_eq!(parse_line_into(text, 0, text.len(), &mut value), Some(9));
    assert_eq!(validate_line(text.as_bytes(), 0, text.len()), Some(9));
    assert_eq!(value.members.len(), 1);
    assert_eq!(value.span, Span::new(0, 7));
    assert_eq!(parse_line_into(text, 10, text.len(), &mut value), Some(13));
    assert_eq!(value.kind, Kind::Array);
    assert_eq!(value.members[0].value.of(text), "2");
    assert_eq!(validate_line(text.as_bytes(), 10, text.len()), Some(13));
    // A line that is not JSON: no end, and nothing left in the value.
    assert_eq!(parse_line_into(text, 14, text.len(), &mut value), None);
    assert!(value.members.is_empty() && value.nested.is_empty());
    assert_eq!(validate_line(text.as_bytes(), 14, text.len()), None);
    // The last line ends with the text.
    assert_eq!(parse_line_into(text, 17, text.len(), &mut value), Some(20));
    assert_eq!(validate_line(text.as_bytes(), 17, text.len()), Some(20));
    // The whole text is not one JSON text: `parse` reads past newlines.
    assert!(!valid(text));
    assert!(valid("{\"a\":\n1}\n"));
    assert_eq!(validate_line(b"{\"a\":\n1}\n", 0, 9), None);
    // Bytes that are not UTF-8 are as valid in a string as U+FFFD.
    assert_eq!(validate_line(b"[\"\xff\xfe\"]", 0, 6), Some(6));
    assert_eq!(validate_line(b"[\xff]", 0, 3), None);
}

#[test]
fn members_and_elements_step_over_json_whitespace() {
    let s = "{ \"a\" :\t1 ,\r\n \"b\" : [ 1 , {\"c\":\"}\"} ] , \"d\":\"x}\" }";
    assert!(valid(s));
    let got: Vec<(&str, &str, Kind)> = members(s, whole(s))
        .iter()
        .map(|m| (m.key.of(s), m.value.of(s), m.kind))
        .collect();
    assert_eq!(
        got,
        [
            ("\"a\"", "1", Kind::Number),
            ("\"b\"", "[ 1 , {\"c\":\"}\"} ]", Kind::Array),
            ("\"d\"", "\"x}\"", Kind::String),
        ]
    );
    let b = members(s, whole(s))[1].value;
    let els: Vec<&str> = elements(s, b).iter().map(|m| m.value.of(s)).collect();
    assert_eq!(els, ["1", "{\"c\":\"}\"}"]);
    assert!(elements(s, b).iter().all(|m| m.key.is_empty()));
    for empty in ["{}", "{ \n}", "[ ]", "[]"] {
        assert!(members(empty, whole(empty)).is_empty(), "{empty}");
        assert!(elements(empty, whole(empty)).is_empty(), "{empty}");
    }
    // The value of a span that is not an object has no members.
    assert!(members("[1]", whole("[1]")).is_empty());
    assert!(elements("{\"a\":1}", whole("{\"a\":1}")).is_empty());
    // A span is read only up to its end.
    let t = "{\"a\":1,\"b\":2}";
    assert_eq!(members(t, Span::new(0, 7)).len(), 1);
}

#[test]
fn keys_match_as_json_parse_decodes_them() {
    let text = r#"{"id":1,"i\u0064":2,"\u0069d":3,"ix":4,"i":5,"idx":6,"\u0069":7,"":8,"\\id":9}"#;
    let v = parse(text, whole(text)).unwrap();
    let matching = |name: &str| -> Vec<usize> {
        v.members
            .iter()
            .enumerate()
            .filter(|(_, m)| key_is(text, m.key, name))
            .map(|(i, _)| i)
            .collect()
    };
    assert_eq!(matching("id"), [0, 1, 2]);
    assert_eq!(matching("i"), [4, 6]);
    assert_eq!(matching(""), [7]);
    assert_eq!(matching("\\id"), [8]);
    assert_eq!(matching("idx"), [5]);
    assert!(!key_is(text, Span::default(), ""));
    // The last of the members with a name is the one JSON.parse keeps.
    assert_eq!(get(text, &v.members, "id").unwrap().value.of(text), "3");
    assert_eq!(get(text, &v.members, "nope"), None);
    assert_eq!(
        find_all(text, &v.members, ["id", "i", "nope", "", "ix"]),
        [Some(2), Some(6), None, Some(7), Some(3)]
    );
    let plain_last = r#"{"i\u0064":1,"id":2}"#;
    let v = parse(plain_last, whole(plain_last)).unwrap();
    assert_eq!(find_all(plain_last, &v.members, ["id"]), [Some(1)]);
    assert_eq!(
        get(plain_last, &v.members, "id")
            .unwrap()
            .value
            .of(plain_last),
        "2"
    );
}

#[test]
fn strings_decode_as_json_parse_decodes_them() {
    for raw in [
        r#""plain""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""a\u00e9\u4e2d\ud83d\ude00z""#,
        r#""\u0000\u001f""#,
        r#""é 😀""#,
        r#""""#,
    ] {
        let expected: String = serde_json::from_str(raw).unwrap();
        assert_eq!(as_str(raw).as_deref(), Some(expected.as_str()), "{raw}");
    }
    // A lone surrogate is a JS string but no Rust one.
    assert_eq!(
        decode_string(r#""a\udc00""#),
        Some(JsString::Utf16(vec![0x61, 0xdc00]))
    );
    assert_eq!(as_str(r#""a\udc00""#), None);
    assert_eq!(decode_string("plain"), None, "no quotes");
    assert_eq!(decode_string("\"x\\q\""), None);
    assert_eq!(decode_string("\"x\\u12g4\""), None);
}

#[test]
fn numbers_read_as_js_reads_them() {
    // Number(...) in Node.
    assert_eq!(number("0"), 0.0);
    assert!(number("-0").is_sign_negative(), "-0 is negative zero");
    assert_eq!(number("-7"), -7.0);
    assert_eq!(number("999999999999999"), 999_999_999_999_999.0);
    assert_eq!(number("123456789012345"), 123_456_789_012_345.0);
    assert_eq!(number("9007199254740993"), 9_007_199_254_740_992.0);
    assert_eq!(number("-12345678901234567"), -12_345_678_901_234_568.0);
    assert_eq!(number("1.5"), 1.5);
    assert_eq!(number("1e2"), 100.0);
    assert_eq!(number("-2.5e-1"), -0.25);
    assert_eq!(decimal("+3"), 3.0);
    assert_eq!(decimal("+0.5"), 0.5);
}

#[test]
fn numbers_are_written_as_js_writes_them() {
    // String(n) in Node.
    for (n, text) in [
        (f64::NAN, "NaN"),
        (f64::INFINITY, "Infinity"),
        (f64::NEG_INFINITY, "-Infinity"),
        (0.0, "0"),
        (-0.0, "0"),
        (5.0, "5"),
        (-5.0, "-5"),
        (1e20, "100000000000000000000"),
        (-123456789.0, "-123456789"),
        (1.5, "1.5"),
        (-0.25, "-0.25"),
    ] {
        assert_eq!(number_text(n), text, "{n}");
    }
}

#[test]
fn truthiness_is_js_truthiness() {
    for (kind, raw, t) in [
        (Kind::Object, "{}", true),
        (Kind::Array, "[]", true),
        (Kind::True, "true", true),
        (Kind::False, "false", false),
        (Kind::Null, "null", false),
        (Kind::String, "\"\"", false),
        (Kind::String, "\"0\"", true),
        (Kind::String, "\" \"", true),
        (Kind::Number, "0", false),
        (Kind::Number, "-0", false),
        (Kind::Number, "0.0e10", false),
        (Kind::Number, "1", true),
        (Kind::Number, "-1", true),
        (Kind::Number, "1e-400", false),
        (Kind::Number, "1e400", true),
        (Kind::Number, "0.1", true),
    ] {
        assert_eq!(truthy(kind, raw), t, "{raw}");
    }
}

#[test]
fn kinds_come_from_the_first_byte() {
    for (s, kind) in [
        ("{}", Kind::Object),
        ("[]", Kind::Array),
        ("\"\"", Kind::String),
        ("true", Kind::True),
        ("false", Kind::False),
        ("null", Kind::Null),
        ("-1", Kind::Number),
        ("7", Kind::Number),
    ] {
        assert_eq!(parse(s, whole(s)).unwrap().kind, kind, "{s}");
    }
}

/// Containers nested `depth` deep, objects and arrays taking turns, each
/// with a member after its child, so that every close must know which kind
/// it closes.
fn alternating(depth: usize, object_first: bool) -> String {
    let mut open = String::new();
    let mut close = Vec::new();
    for d in 0..depth {
        if (d % 2 == 0) == object_first {
            open.push_str("{\"k\":");
            close.push(",\"z\":0}");
        } else {
            open.push('[');
            close.push(",0]");
        }
    }
    close.reverse();
    format!("{open}1{}", close.concat())
}

#[test]
fn nesting_past_sixty_four_levels_closes_each_container_by_its_kind() {
    // serde_json reads the same grammar up to 128 levels deep.
    for depth in [1, 2, 63, 64, 65, 66, 100, 127] {
        for object_first in [true, false] {
            let s = alternating(depth, object_first);
            assert!(serde_json::from_str::<serde_json::Value>(&s).is_ok());
            assert!(valid(&s), "depth {depth}");
            // Each closing bracket swapped for the other kind: invalid.
            for (i, c) in s.char_indices().filter(|(_, c)| *c == '}' || *c == ']') {
                let other = if c == '}' { "]" } else { "}" };
                let bad = format!("{}{other}{}", &s[..i], &s[i + 1..]);
                assert!(
                    serde_json::from_str::<serde_json::Value>(&bad).is_err(),
                    "{bad}"
                );
                assert!(!valid(&bad), "depth {depth}: {} swapped at {i}", c);
            }
        }
    }
    // Deeper than serde_json goes: the same, by the same construction.
    let s = alternating(300, true);
    assert!(valid(&s));
    let cut = s.rfind('}').unwrap();
    assert!(!valid(&format!("{}]{}", &s[..cut], &s[cut + 1..])));
}

#[test]
fn whitespace_is_json_whitespace_only() {
    // JSON.parse allows space, tab, CR and LF around tokens, nothing else.
    for ws in [" ", "\t", "\r", "\n", " \t\r\n "] {
        assert!(
            valid(&format!(
                "{ws}[{ws}1{ws},{ws}{{{ws}\"a\"{ws}:{ws}2{ws}}}{ws}]{ws}"
            )),
            "{ws:?}"
        );
    }
    for not_ws in [
        "\u{b}", "\u{c}", "\u{a0}", "\u{2028}", "\u{feff}", "\u{0}", "\u{1f}",
    ] {
        assert!(!valid(&format!("[{not_ws}1]")), "{not_ws:?}");
    }
}

#[test]
fn errors_point_at_the_first_byte_json_parse_rejects() {
    // Where JSON.parse in Node 20 stops: its "at position N", the unexpected
    // token's place ("[1,]"). (A misspelt literal, "tru", is reported at
    // its start, where V8 names the end of the input.)
    for (s, at) in [
        ("[1,]", 3),
        ("{\"a\" 1}", 5),
        ("{\"a\":1 \"b\":2}", 7),
        ("[1 2]", 3),
        ("{} x", 3),
        ("-", 1),
        ("1.", 2),
        ("1e+", 3),
        ("[01]", 2),
        ("{1:2}", 1),
    ] {
        assert_eq!(parse(s, whole(s)).unwrap_err().offset, at, "{s}");
    }
}

#[test]
fn digits_runs_are_numbers_of_any_length() {
    for n in 1..40 {
        let digits = "9".repeat(n);
        for s in [
            digits.clone(),
            format!("-{digits}"),
            format!("0.{digits}"),
            format!("1e{digits}"),
            format!("{digits}.{digits}E-{digits}"),
        ] {
            assert!(valid(&s), "{s}");
            assert!(!valid(&format!("{s}x")), "{s}x");
            let v = parse(&format!("[{s},{s}]"), whole(&format!("[{s},{s}]"))).unwrap();
            assert_eq!(v.members.len(), 2);
            assert_eq!(v.members[1].value.len(), s.len());
        }
    }
}

#[test]
fn a_syntax_error_reads_as_its_reason() {
    let e = parse("{\"a\" 1}", whole("{\"a\" 1}")).unwrap_err();
    assert!(!e.reason.is_empty());
    assert_eq!(e.to_string(), e.reason);
}

#[test]
fn a_key_of_escaped_backslashes_alone_is_matched_decoded() {
    // `{"\\":1}` has the key `\` (one backslash), as JSON.parse decodes it.
    let text = r#"{"\\":1,"\\\\":2}"#;
    let v = parse(text, whole(text)).unwrap();
    assert_eq!(
        find_all(text, &v.members, ["\\", "\\\\"]),
        [Some(0), Some(1)]
    );
    assert!(key_is(text, v.members[0].key, "\\"));
}

#[test]
fn integers_and_plain_fractions_are_read_without_the_host() {
    // What the core settles itself (in WebAssembly, without a call to JS's
    // Number), each at the value Number(s) gives in Node.
    for (raw, n) in [
        ("7", 7.0),
        ("-7", -7.0),
        ("+3", 3.0),
        ("999999999999999", 999_999_999_999_999.0),
        ("1.5", 1.5),
        ("-0.25", -0.25),
        ("+0.5", 0.5),
        (".5", 0.5),
        ("5.", 5.0),
    ] {
        assert_eq!(own_decimal(raw), Some(n), "{raw}");
        assert_eq!(decimal(raw), n, "{raw}");
    }
    // Twenty digits, an exponent, 28 digits after the point: the host's.
    for raw in [
        "12345678901234567890",
        "1e2",
        "-2.5e-1",
        "0.0000000000000000000000000001",
    ] {
        assert_eq!(own_decimal(raw), None, "{raw}");
    }
    // Number("123456789012345678901234567890") in Node.
    assert_eq!(
        number("123456789012345678901234567890"),
        1.234_567_890_123_456_8e29
    );
    assert_eq!(decimal("1234567890123456"), 1_234_567_890_123_456.0);
}

#[test]
fn numbers_past_2_53_and_past_1e21_are_written_as_js_writes_them() {
    // String(n) in Node: the shortest digits that read back as n, plain up
    // to 21 digits before the point and 6 zeros after it.
    for (n, text) in [
        (2f64.powi(60), "1152921504606847000"),
        (-(2f64.powi(60)), "-1152921504606847000"),
        (9_007_199_254_740_992.0, "9007199254740992"),
        (9_007_199_254_740_991.0, "9007199254740991"),
        (9_007_199_254_740_994.0, "9007199254740994"),
        (1e20, "100000000000000000000"),
        (123_456_789_012_345_680_000.0, "123456789012345680000"),
        (1e21, "1e+21"),
        (-1e21, "-1e+21"),
        (1.5e300, "1.5e+300"),
        (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
        (0.1, "0.1"),
        (12.5, "12.5"),
        (123.456, "123.456"),
        (0.000123, "0.000123"),
        (0.000001, "0.000001"),
        (0.0000015, "0.0000015"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1.23e-18, "1.23e-18"),
        (5e-324, "5e-324"),
    ] {
        assert_eq!(number_text(n), text, "{n:e}");
    }
    // The core writes integers below 2^53 itself; the host the rest.
    assert_eq!(
        own_number_text(-9_007_199_254_740_991.0).as_deref(),
        Some("-9007199254740991")
    );
    assert_eq!(own_number_text(9_007_199_254_740_992.0), None);
    assert_eq!(own_number_text(0.5), None);
}

/// Calls of [`counting_text`], the host [`an_installed_number_host_is_used`] installs.
static HOST_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn counting_decimal(raw: &str) -> f64 {
    HOST_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    (DEFAULT_NUMBER_HOST.decimal)(raw)
}

fn counting_text(n: f64) -> String {
    HOST_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    (DEFAULT_NUMBER_HOST.text)(n)
}

#[test]
fn an_installed_number_host_is_used() {
    // The default host, counted (no other native test installs one; other
    // tests of this process then read through it, with the same answers).
    set_number_host(NumberHost {
        decimal: counting_decimal,
        text: counting_text,
    });
    let before = HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(number("1e400"), f64::INFINITY);
    assert_eq!(number_text(0.5), "0.5");
    assert!(HOST_CALLS.load(std::sync::atomic::Ordering::SeqCst) >= before + 2);
}

#[test]
fn an_unexpected_character_is_quoted_unless_it_is_invisible() {
    // Characters one cannot see (controls, whitespace) by code point.
    for (s, reason) in [
        (
            "[1 x]",
            "unexpected 'x', expected ',' or ']' after an array element",
        ),
        (
            "[\u{a0}1]",
            "unexpected character U+00A0, expected a JSON value",
        ),
        (
            "[\u{7}]",
            "unexpected character U+0007, expected a JSON value",
        ),
        (
            "{\"a\":1}\u{2028}",
            "unexpected character U+2028, expected end of line after the JSON value",
        ),
        (
            "[1",
            "unexpected end of line, expected ',' or ']' after an array element",
        ),
    ] {
        assert_eq!(parse(s, whole(s)).unwrap_err().reason, reason, "{s:?}");
    }
}

#[test]
fn find_in_steps_over_an_object_and_keeps_the_last_of_each_name() {
    // What JSON.parse(text).usage.x gives, for each name: the last member
    // with that name (escaped or not), objects and arrays stepped over whole.
    let text = r#"{"usage": { "input" : 1 , "cost":{"total":2,"x":[{"total":9}]},"input":3,
        "in\u0070ut":4, "cost" : {"total":5} , "output":"6","":[7,{"a":"}"}], "end":true }, "n":0}"#;
    let v = parse(text, whole(text)).unwrap();
    let usage = v.members[0].value;
    let [input, cost, output, empty, end, missing] =
        find_in(text, usage, ["input", "cost", "output", "", "end", "nope"]);
    let of = |m: Option<Member>| m.map(|m| (m.value.of(text), m.kind));
    assert_eq!(of(input), Some(("4", Kind::Number)));
    assert_eq!(of(cost), Some(("{\"total\":5}", Kind::Object)));
    assert_eq!(of(output), Some(("\"6\"", Kind::String)));
    assert_eq!(of(empty), Some(("[7,{\"a\":\"}\"}]", Kind::Array)));
    assert_eq!(of(end), Some(("true", Kind::True)));
    assert_eq!(missing, None);
    assert_eq!(
        find_in(text, cost.unwrap().value, ["total"]).map(of),
        [Some(("5", Kind::Number))]
    );
    // What members lists, the same members.
    let listed = members(text, usage);
    assert_eq!(listed.len(), 8);
    assert_eq!(
        find_members(text, listed.iter().copied(), ["input", "end"]),
        [input, end]
    );
    // No object: nothing found (an array, a string, an empty object).
    for raw in [r#"[{"input":1}]"#, r#""{\"input\":1}""#, "{ }", "5"] {
        assert_eq!(find_in(raw, whole(raw), ["input"]), [None], "{raw}");
    }
}
