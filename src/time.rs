//! Timestamps as JS reads them: `new Date(value).getTime()`.
//!
//! pi turns entry timestamps into numbers with `new Date(ts).getTime()` (for
//! summary messages) and sorts tree children by it. The canonical form pi writes,
//! `Date.prototype.toISOString()` output, is settled here; any other string goes
//! to a [`DateParser`], which in the wasm build is JS's own `Date.parse`, so
//! every other form (local times, legacy formats) gets exactly JS's answer.

use crate::json::{self, Kind};

/// Parses what the core cannot settle on its own.
pub trait DateParser {
    /// `Date.parse(s)`: milliseconds since the epoch, or NaN.
    fn parse(&self, s: &str) -> f64;
    /// `new Date(v).getTime()` for a JSON array or object given as its source text.
    fn parse_json(&self, raw: &str) -> f64;
}

/// The native fallback: the ISO 8601 forms JS reads as UTC, NaN for the rest.
pub struct IsoOnly;

impl DateParser for IsoOnly {
    fn parse(&self, s: &str) -> f64 {
        iso_utc(s).unwrap_or(f64::NAN)
    }
    fn parse_json(&self, raw: &str) -> f64 {
        // An object reads as "[object Object]", no date. An array's primitive
        // value is its elements joined with ",": a one-element array of a
        // string reads as that string; `as_str` reads only a quoted string,
        // and anything else is no ISO date.
        let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
            return f64::NAN;
        };
        let inner = inner.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        json::as_str(inner).map_or(f64::NAN, |s| self.parse(&s))
    }
}

/// `new Date(v).getTime()` for a JSON value (`None` when the key is missing).
pub fn time_of(value: Option<(Kind, &str)>, dates: &dyn DateParser) -> f64 {
    let Some((kind, raw)) = value else {
        return f64::NAN;
    };
    match kind {
        Kind::Null | Kind::False => 0.0,
        Kind::True => 1.0,
        Kind::Number => time_clip(json::number(raw)),
        Kind::String => match json::as_str(raw) {
            Some(s) => iso_utc(&s).unwrap_or_else(|| dates.parse(&s)),
            // A lone surrogate never forms a date.
            None => f64::NAN,
        },
        Kind::Array | Kind::Object => dates.parse_json(raw),
    }
}

/// ECMAScript TimeClip.
pub fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > 8.64e15 {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}

/// The exact ISO forms that need no time zone: `YYYY-MM-DDTHH:mm:ss(.sss)Z`
/// and `YYYY-MM-DD`. Anything else returns `None` and goes to JS.
pub fn iso_utc(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            Some(part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0);
    if b.len() > 10 {
        let ok_shape =
            b.get(10) == Some(&b'T') && b.get(13) == Some(&b':') && b.get(16) == Some(&b':');
        if !ok_shape || b.last() != Some(&b'Z') {
            return None;
        }
        h = num(11..13)?;
        mi = num(14..16)?;
        sec = num(17..19)?;
        match b.len() {
            20 => {}
            24 if b[19] == b'.' => ms = num(20..23)?,
            _ => return None,
        }
        if h > 23 || mi > 59 || sec > 59 {
            return None;
        }
    }
    let days = days_from_civil(year, month, day);
    Some((((days * 24 + h) * 60 + mi) * 60 + sec) as f64 * 1000.0 + ms as f64)
}

/// `new Date(ms).toISOString()` for the years it writes with four digits
/// (0 to 9999); `None` for the rest (JS writes those with a sign and six).
pub fn iso_string(ms: f64) -> Option<String> {
    let ms = time_clip(ms);
    if ms.is_nan() {
        return None;
    }
    let ms = ms as i64;
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    let (h, mi, sec, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    // Digit by digit rather than by `format!`: a new entry's timestamp is
    // written on every append.
    let mut out = String::with_capacity(24);
    for (value, width, then) in [
        (y, 4, '-'),
        (m, 2, '-'),
        (d, 2, 'T'),
        (h, 2, ':'),
        (mi, 2, ':'),
        (sec, 2, '.'),
        (milli, 3, 'Z'),
    ] {
        for place in (0..width).rev() {
            let digit = value / 10i64.pow(place) % 10;
            out.push(char::from(b'0' + digit as u8));
        }
        out.push(then);
    }
    Some(out)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The date `(year, month, day)` of a day number (days since 1970-01-01),
/// in the proleptic Gregorian calendar: the inverse of [`days_from_civil`].
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_strings_as_to_iso_string_writes_them() {
        // Expected values from `new Date(ms).toISOString()` in Node.
        assert_eq!(iso_string(0.0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(
            iso_string(1765233665306.0).as_deref(),
            Some("2025-12-08T22:41:05.306Z")
        );
        assert_eq!(
            iso_string(-1.0).as_deref(),
            Some("1969-12-31T23:59:59.999Z")
        );
        assert_eq!(
            iso_string(951782400000.0).as_deref(),
            Some("2000-02-29T00:00:00.000Z")
        );
        assert_eq!(
            iso_string(-62167219200000.0).as_deref(),
            Some("0000-01-01T00:00:00.000Z")
        );
        assert_eq!(
            iso_string(253402300799999.0).as_deref(),
            Some("9999-12-31T23:59:59.999Z")
        );
        // JS writes these with a sign and six digits: left to it.
        assert_eq!(iso_string(253402300800000.0), None);
        assert_eq!(iso_string(-62167219200001.0), None);
        assert_eq!(iso_string(f64::NAN), None);
        // Every time of a few days round-trips through the parser.
        for ms in (1709164800000i64..1709424000000).step_by(3_601_017) {
            let s = iso_string(ms as f64).unwrap_or_default();
            assert_eq!(iso_utc(&s), Some(ms as f64), "{s}");
        }
    }

    #[test]
    fn canonical_iso_strings() {
        // Values checked with `new Date(s).getTime()` in Node.
        assert_eq!(iso_utc("2025-12-08T22:41:05.306Z"), Some(1765233665306.0));
        assert_eq!(iso_utc("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(iso_utc("2024-02-29T12:00:00Z"), Some(1709208000000.0));
        assert_eq!(iso_utc("1969-12-31"), Some(-86400000.0));
        assert_eq!(iso_utc("2023-02-29T00:00:00.000Z"), None);
        assert_eq!(
            iso_utc("2025-12-08T22:41:05.306"),
            None,
            "local time needs JS"
        );
        assert_eq!(iso_utc("2025-12-08 22:41:05Z"), None);
    }

    #[test]
    fn day_numbers_and_dates_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        // 2024-02-29 is day 19782 (1709164800000 ms / 86400000).
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        for d in [-800_000, -1, 0, 59, 10_956, 19_782, 2_932_896] {
            let (y, m, day) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, day), d);
        }
    }

    #[test]
    fn values_of_other_kinds() {
        let d = IsoOnly;
        assert!(time_of(None, &d).is_nan());
        assert_eq!(time_of(Some((Kind::Null, "null")), &d), 0.0);
        assert_eq!(time_of(Some((Kind::True, "true")), &d), 1.0);
        assert_eq!(time_of(Some((Kind::Number, "1.9")), &d), 1.0);
        assert!(time_of(Some((Kind::Number, "9e15")), &d).is_nan());
        assert!(time_of(Some((Kind::String, "\"nope\"")), &d).is_nan());
        assert_eq!(
            time_of(Some((Kind::Array, "[\"1970-01-02\"]")), &d),
            86400000.0
        );
        assert!(time_of(Some((Kind::Object, "{}")), &d).is_nan());
    }
}
