//! Tests written against mutants of `time` (docs/mutation-log.md).
//! Every expected time is V8's: `Date.parse(s)` or `new Date(v).getTime()`,
//! run in Node 20 and written here as literals.

use super::*;

/// `Date.parse(s)` in Node for ISO forms whose date is a real calendar day.
const V8_DATES: &[(&str, f64)] = &[
    ("2025-12-08T23:59:59.999Z", 1765238399999.0),
    ("2025-12-08T00:00:00.000Z", 1765152000000.0),
    ("2025-12-08T23:00:00Z", 1765234800000.0),
    ("2025-12-08T00:59:00Z", 1765155540000.0),
    ("2025-12-08T00:00:59Z", 1765152059000.0),
    ("2025-12-08T00:00:00.999Z", 1765152000999.0),
    ("1600-02-29", -11670998400000.0),
    ("2000-02-29", 951782400000.0),
    ("2024-02-29", 1709164800000.0),
    ("2023-02-28", 1677542400000.0),
    ("2025-04-30", 1745971200000.0),
    ("2025-06-30", 1751241600000.0),
    ("2025-09-30", 1759190400000.0),
    ("2025-11-30", 1764460800000.0),
    ("2025-01-31", 1738281600000.0),
    ("2025-03-31", 1743379200000.0),
    ("2025-05-31", 1748649600000.0),
    ("2025-07-31", 1753920000000.0),
    ("2025-08-31", 1756598400000.0),
    ("2025-10-31", 1761868800000.0),
    ("2025-12-31", 1767139200000.0),
    ("2025-12-01", 1764547200000.0),
    ("0000-03-01", -62162035200000.0),
    ("0000-01-01", -62167219200000.0),
];

#[test]
fn every_month_end_and_time_of_day_reads_as_v8_reads_it() {
    for &(s, ms) in V8_DATES {
        assert_eq!(iso_utc(s), Some(ms), "{s}");
        assert_eq!(
            time_of(Some((Kind::String, &format!("\"{s}\""))), &IsoOnly),
            ms
        );
        // And back: what toISOString writes for that time is the same instant.
        let back = iso_string(ms).unwrap_or_default();
        assert_eq!(iso_utc(&back), Some(ms), "{s} -> {back}");
    }
}

#[test]
fn only_real_calendar_days_and_times_are_read_here() {
    // These are no day of the Gregorian calendar (1900 and 2100 are not leap
    // years, 2000 is) or no time of day, so they are left to the engine
    // (`None`): wasm/usage.rs relies on that to tell a real `YYYY-MM-DD`.
    for s in [
        "1900-02-29",
        "2100-02-29",
        "2023-02-29",
        "2024-02-30",
        "2025-04-31",
        "2025-06-31",
        "2025-09-31",
        "2025-11-31",
        "2025-01-32",
        "2025-13-01",
        "2025-00-10",
        "2025-01-00",
        "2025-12-08T24:00:00Z",
        "2025-12-08T23:60:00Z",
        "2025-12-08T23:59:60Z",
    ] {
        assert_eq!(iso_utc(s), None, "{s}");
    }
    // Shapes that are not the two exact forms: each separator on its own.
    for s in [
        "2025/12-08",
        "2025-12/08",
        "2025-12-08t22:41:05Z",
        "2025-12-08T22-41:05Z",
        "2025-12-08T22:41-05Z",
        "2025-12-08T22:41:05x306Z",
        "2025-12-08T22:41:05.30Z",
        "2025-12-08T22:41:05.3060Z",
        "2025-12-08T22:41:05.306z",
        "2025-12-08T2a:41:05Z",
        "2025-12-08T22:4a:05Z",
        "2025-12-08T22:41:0aZ",
        "2025-12-08T22:41:05.3a6Z",
        "2025-12-0a",
        "2025-1a-08",
        "202a-12-08",
        "2025-12-08Z",
        "2025-12-8",
        "",
    ] {
        assert_eq!(iso_utc(s), None, "{s}");
    }
}

#[test]
fn time_clip_keeps_the_range_and_drops_the_fraction() {
    // `new Date(v).getTime()` in Node: ±8.64e15 is the last valid time.
    assert_eq!(time_clip(8.64e15), 8.64e15);
    assert_eq!(time_clip(-8.64e15), -8.64e15);
    assert!(time_clip(8.64e15 + 1.0).is_nan());
    assert!(time_clip(-8.64e15 - 1.0).is_nan());
    assert!(time_clip(f64::INFINITY).is_nan());
    assert_eq!(time_clip(1.7), 1.0);
    assert_eq!(time_clip(-1.7), -1.0);
    // `Object.is(new Date(-0.5).getTime(), -0)` is false: the zero is +0.
    assert_eq!(time_clip(-0.5).to_bits(), 0.0f64.to_bits());
    assert_eq!(time_clip(-0.0).to_bits(), 0.0f64.to_bits());
}

#[test]
fn values_of_every_kind_as_new_date_reads_them() {
    let d = IsoOnly;
    let at = |kind, raw: &str| time_of(Some((kind, raw)), &d);
    // `new Date(false)`, `new Date(null)`: 0; `new Date(true)`: 1.
    assert_eq!(at(Kind::False, "false"), 0.0);
    assert_eq!(at(Kind::Null, "null"), 0.0);
    assert_eq!(at(Kind::True, "true"), 1.0);
    assert_eq!(at(Kind::Number, "-1.7"), -1.0);
    assert_eq!(at(Kind::Number, "1765152000000"), 1765152000000.0);
    // A lone surrogate is no date.
    assert!(at(Kind::String, r#""\ud800""#).is_nan());
    // An array of one string reads as that string, whitespace around it or not
    // (`new Date([" 1970-01-02"])` is another matter: V8's legacy parser).
    assert_eq!(at(Kind::Array, "[ \"1970-01-02\"\n]"), 86400000.0);
    assert_eq!(at(Kind::Array, "[\"2000-02-29\"]"), 951782400000.0);
    // Not one string: no ISO form.
    for raw in ["[]", "[1]", "[null]", "[\"x\"]", "{\"a\":\"1970-01-02\"}"] {
        let kind = if raw.starts_with('[') {
            Kind::Array
        } else {
            Kind::Object
        };
        assert!(at(kind, raw).is_nan(), "{raw}");
    }
}

#[test]
fn day_numbers_cover_the_ends_of_eras_and_years() {
    // Day numbers from Node: `d.setUTCFullYear(y, m - 1, day)` on
    // `new Date(0)`, then `d.getTime() / 86400000`.
    for (days, date) in [
        (-719_528, (0, 1, 1)),
        (-719_469, (0, 2, 29)),
        (-719_468, (0, 3, 1)),
        (-135_081, (1600, 2, 29)),
        (11_016, (2000, 2, 29)),
        (11_017, (2000, 3, 1)),
        (11_322, (2000, 12, 31)),
        (10_957, (2000, 1, 1)),
        (-25_508, (1900, 3, 1)),
        (-25_509, (1900, 2, 28)),
        (47_540, (2100, 2, 28)),
        (47_541, (2100, 3, 1)),
        (2_932_896, (9999, 12, 31)),
    ] {
        assert_eq!(civil_from_days(days), date, "{days}");
        assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
    }
}
