//! JSON as `JSON.parse` reads it.
//!
//! A session line means exactly what `JSON.parse` makes of it, so this module
//! never converts values into Rust numbers or strings it cannot hold (`1e400`,
//! lone surrogate escapes, 2^53 + 1). It validates a line against the JSON
//! grammar that `JSON.parse` accepts and records where each member of the
//! top-level object starts and ends. Values stay byte ranges of the source;
//! whoever needs a value as JS sees it hands that range to `JSON.parse`.
//! The other way, [`stringify()`] writes a string as `JSON.stringify` does.

use std::borrow::Cow;
use std::fmt;

use crate::scan::{self, StringFault};

/// A byte range `start..end` in a source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    #[inline]
    pub fn of<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.end).unwrap_or("")
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
    /// The span `by` bytes later (earlier if negative), where text moved.
    pub fn shifted(&self, by: isize) -> Span {
        let at = |x: usize| x.wrapping_add_signed(by);
        Span::new(at(self.start), at(self.end))
    }
}

/// The kind of a JSON value, known from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    True,
    False,
    Null,
}

impl Kind {
    pub fn of_first_byte(b: u8) -> Kind {
        match b {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' => Kind::True,
            b'f' => Kind::False,
            b'n' => Kind::Null,
            _ => Kind::Number,
        }
    }
}

/// One member of an object: its key (raw, quotes included) and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub key: Span,
    pub value: Span,
    pub kind: Kind,
}

/// Why a text is not JSON, and where (a byte offset into the text given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A valid JSON text: its top-level value and, for an object, its members
/// (for an array, its elements, with empty key spans).
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub kind: Kind,
    pub span: Span,
    pub members: Vec<Member>,
    /// Members of objects that are values of top-level members, with the index
    /// of that top-level member (an entry's `message.role` without a second pass).
    pub nested: Vec<(usize, Member)>,
}

impl Default for Value {
    /// An empty object (no members yet): what a line is read into.
    fn default() -> Self {
        Value {
            kind: Kind::Object,
            span: Span::default(),
            members: Vec::new(),
            nested: Vec::new(),
        }
    }
}

impl Value {
    /// Moves the value `by` bytes later in its text (an array's elements keep
    /// their empty key spans, as a parse gives them).
    pub fn shift(&mut self, by: isize) {
        let object = self.kind == Kind::Object;
        self.span = self.span.shifted(by);
        for m in &mut self.members {
            if object {
                m.key = m.key.shifted(by);
            }
            m.value = m.value.shifted(by);
        }
        for (_, m) in &mut self.nested {
            m.key = m.key.shifted(by);
            m.value = m.value.shifted(by);
        }
    }

    /// The members of the object that is the value of `members[index]`.
    pub fn nested_in(&self, index: usize) -> impl Iterator<Item = &Member> + '_ {
        self.nested
            .iter()
            .filter(move |(p, _)| *p == index)
            .map(|(_, m)| m)
    }
}

/// Validates `text[span]` as one JSON text (whitespace allowed around it).
/// Offsets in the result are absolute in `text`.
pub fn parse(text: &str, span: Span) -> Result<Value, SyntaxError> {
    Validator::<true, false>::new(text.as_bytes(), span).run()
}

/// [`parse`] of the line that starts at `text[start]` and ends at the first
/// `\n` or at `end`, found in the same pass (a valid line has no raw `\n`:
/// only whitespace could be one, and a line ends there), into `value`, reusing
/// its vectors: a pass that looks at each line only while it reads it
/// allocates nothing per line. Gives the line's end, or `None` if the line is
/// not one JSON text (`value` is then left empty); its error is then [`parse`]
/// of the line's span, which [`crate::scan::newline`] finds.
pub fn parse_line_into(text: &str, start: usize, end: usize, value: &mut Value) -> Option<usize> {
    let mut v = Validator::<true, true>::new(text.as_bytes(), Span::new(start, end));
    v.members = std::mem::take(&mut value.members);
    v.nested = std::mem::take(&mut value.nested);
    v.members.clear();
    v.nested.clear();
    match v.run() {
        Ok(parsed) => {
            *value = parsed;
            Some(v.i)
        }
        Err(_) => {
            value.members = std::mem::take(&mut v.members);
            value.nested = std::mem::take(&mut v.nested);
            value.members.clear();
            value.nested.clear();
            None
        }
    }
}

/// Whether the line that starts at `b[start]`, as [`parse_line_into`] reads it,
/// is one JSON text (its end if so), recording nothing. `b` may be bytes that
/// are not UTF-8: the answer is the same as for their decoded text, since
/// JSON's structure is ASCII, U+FFFD is as valid inside a string as the bytes
/// it replaces, and invalid outside one either way.
pub fn validate_line(b: &[u8], start: usize, end: usize) -> Option<usize> {
    let mut v = Validator::<false, true>::new(b, Span::new(start, end));
    v.run().ok()?;
    Some(v.i)
}

/// The members of an object value, in source order. `span` must be a valid
/// object (from [`parse`]): it is not validated again, only stepped through.
pub fn members(text: &str, span: Span) -> Vec<Member> {
    items(text.as_bytes(), span, b'{')
}

/// The elements of a valid array value (with empty key spans).
pub fn elements(text: &str, span: Span) -> Vec<Member> {
    items(text.as_bytes(), span, b'[')
}

fn items(b: &[u8], span: Span, open: u8) -> Vec<Member> {
    Items::new(b, span, open).collect()
}

/// The members (or elements) of a valid object (or array) value, one at a
/// time: stepped through, not validated again.
struct Items<'b> {
    b: &'b [u8],
    end: usize,
    open: u8,
    /// The next member's start; `None` once the value's end is reached.
    i: Option<usize>,
}

impl<'b> Items<'b> {
    fn new(b: &'b [u8], span: Span, open: u8) -> Self {
        let i = (b.get(span.start) == Some(&open)).then(|| Self::ws(b, span.start + 1));
        Items {
            b,
            end: span.end,
            open,
            i,
        }
    }

    fn ws(b: &[u8], mut i: usize) -> usize {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
            i += 1;
        }
        i
    }
}

impl Iterator for Items<'_> {
    type Item = Member;

    fn next(&mut self) -> Option<Member> {
        let b = self.b;
        let mut i = self.i.take()?;
        if i >= self.end || matches!(b.get(i), Some(b'}' | b']') | None) {
            return None;
        }
        let mut key = Span::default();
        if self.open == b'{' {
            let start = i;
            i = scan::skip_string(b, i);
            key = Span::new(start, i);
            i = Self::ws(b, Self::ws(b, i) + 1); // past the ':'
        }
        let start = i;
        let &first = b.get(start)?;
        let end = scan::skip_value(b, start);
        i = Self::ws(b, end);
        if b.get(i) == Some(&b',') {
            self.i = Some(Self::ws(b, i + 1));
        }
        Some(Member {
            key,
            value: Span::new(start, end),
            kind: Kind::of_first_byte(first),
        })
    }
}

/// The last member named by each of `names` (as [`find_all`] finds them) of
/// the valid object value at `span`, stepped through once without a list of
/// its members; all `None` for a value that is no object.
pub fn find_in<const N: usize>(text: &str, span: Span, names: [&str; N]) -> [Option<Member>; N] {
    find_members(text, Items::new(text.as_bytes(), span, b'{'), names)
}

/// The last of `members` named by each of `names` (as [`find_all`] finds them).
pub fn find_members<const N: usize>(
    text: &str,
    members: impl IntoIterator<Item = Member>,
    names: [&str; N],
) -> [Option<Member>; N] {
    let mut found = [None; N];
    for m in members {
        for (slot, hit) in found.iter_mut().zip(key_matches(text, m.key, names)) {
            if hit {
                *slot = Some(m);
            }
        }
    }
    found
}

/// The value of the member named `name`; the last one wins, as in `JSON.parse`.
pub fn get<'m>(text: &str, members: &'m [Member], name: &str) -> Option<&'m Member> {
    members.iter().rev().find(|m| key_is(text, m.key, name))
}

/// [`get`] kept out of line, for the cold paths (the system message, branch
/// copies): inlined, each call copied the key comparison into its caller.
#[inline(never)]
pub(crate) fn get_cold<'m>(text: &str, members: &'m [Member], name: &str) -> Option<&'m Member> {
    get(text, members, name)
}

/// `push_str` kept out of line, for the JSON the cold paths write (usage
/// reports, the system message, branch copies): inlined, each call copied the
/// growth check and the copy into its caller.
pub(crate) trait Put {
    fn put(&mut self, s: &str);
    /// `format!` written in place, without a string of its own.
    fn put_fmt(&mut self, args: std::fmt::Arguments<'_>);
}

impl Put for String {
    #[inline(never)]
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }

    #[inline(never)]
    fn put_fmt(&mut self, args: std::fmt::Arguments<'_>) {
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(self, args);
    }
}

/// The index of the last member named by each of `names` (the one [`get`]
/// finds), in one pass over the members: each key is looked at once, not
/// once per name.
pub fn find_all<const N: usize>(
    text: &str,
    members: &[Member],
    names: [&str; N],
) -> [Option<usize>; N] {
    let mut found = [None; N];
    for (i, m) in members.iter().enumerate() {
        for (slot, hit) in found.iter_mut().zip(key_matches(text, m.key, names)) {
            if hit {
                *slot = Some(i);
            }
        }
    }
    found
}

/// Which of `names` the raw key `key` (with quotes) decodes to.
#[inline(always)]
fn key_matches<const N: usize>(text: &str, key: Span, names: [&str; N]) -> [bool; N] {
    let raw = &text.as_bytes()[key.start..key.end];
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
    // A plain loop: keys are short, and `contains` is a call to memchr,
    // which cost more than the comparisons (this runs for every member
    // of every line a one-pass reader reads).
    #[allow(clippy::manual_contains)]
    let escaped = inner.iter().any(|&c| c == b'\\');
    // An escaped key: compared as JSON.parse decodes it.
    let mut hits = [false; N];
    for (hit, name) in hits.iter_mut().zip(names) {
        *hit = if escaped {
            key_is(text, key, name)
        } else {
            same(inner, name.as_bytes())
        };
    }
    hits
}

/// `a == b` for short keys, byte by byte: a call to `memcmp` (what `==`
/// becomes in WebAssembly) cost more than the few comparisons.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether a raw key (with quotes) decodes to `name`.
#[inline]
pub fn key_is(text: &str, key: Span, name: &str) -> bool {
    // An escape is longer than what it stands for, so a key with one is longer
    // than its name: same length means same bytes, shorter means no match.
    let Some(inner_len) = key.len().checked_sub(2) else {
        return false;
    };
    if inner_len < name.len() {
        return false;
    }
    let inner = &text.as_bytes()[key.start + 1..key.end - 1];
    if inner_len == name.len() {
        return inner == name.as_bytes();
    }
    // Longer: only an escape could make it match, and the first byte tells
    // most keys apart without a search for one.
    if name
        .as_bytes()
        .first()
        .is_some_and(|&c| c != inner[0] && inner[0] != b'\\')
    {
        return false;
    }
    // (A longer key without an escape decodes to itself: no match either.)
    matches!(decode_string(key.of(text)), Some(JsString::Utf8(s)) if s == name)
}

/// A decoded JSON string. JS strings may hold lone surrogates, Rust strings may not.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum JsString<'a> {
    Utf8(Cow<'a, str>),
    /// A string with a lone surrogate, as UTF-16 code units.
    Utf16(Vec<u16>),
}

/// Decodes a raw, valid JSON string literal (quotes included).
pub fn decode_string(raw: &str) -> Option<JsString<'_>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    // No `\\` (in a valid literal, nor a `"` nor a control byte either):
    // found many bytes a step, without a call to memchr for a short string.
    if scan::plain_run(inner.as_bytes(), 0, inner.len()) == inner.len() {
        return Some(JsString::Utf8(Cow::Borrowed(inner)));
    }
    let mut units: Vec<u16> = Vec::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let unit = match chars.next()? {
            '"' => 0x22,
            '\\' => 0x5c,
            '/' => 0x2f,
            'b' => 0x08,
            'f' => 0x0c,
            'n' => 0x0a,
            'r' => 0x0d,
            't' => 0x09,
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).ok()?
            }
            _ => return None,
        };
        units.push(unit);
    }
    Some(match String::from_utf16(&units) {
        Ok(s) => JsString::Utf8(Cow::Owned(s)),
        Err(_) => JsString::Utf16(units),
    })
}

/// The decoded string if `raw` is a string literal without lone surrogates.
pub fn as_str(raw: &str) -> Option<Cow<'_, str>> {
    match decode_string(raw)? {
        JsString::Utf8(s) => Some(s),
        JsString::Utf16(_) => None,
    }
}

/// A JSON number literal as the f64 JS gives (`1e400` is Infinity).
pub fn number(raw: &str) -> f64 {
    decimal(raw)
}

/// A decimal literal already checked for its syntax (sign, digits, optional
/// fraction and exponent) as the f64 JS reads it: `own_decimal`'s answer,
/// else the [`NumberHost`]'s.
pub fn decimal(raw: &str) -> f64 {
    own_decimal(raw).unwrap_or_else(|| (number_host().decimal)(raw))
}

/// The decimal literals the core reads without the host (in WebAssembly, a
/// call to JS's `Number`). Integers of up to 19 digits fit a `u64`, whose
/// conversion rounds to the nearest f64 (ties to even), as JS's reading
/// does. Plain fractions go by [`plain_fraction`] (a cost such as
/// `0.012099500000000001`).
fn own_decimal(raw: &str) -> Option<f64> {
    let (negative, digits) = match raw.as_bytes().first() {
        Some(b'-') => (true, &raw[1..]),
        Some(b'+') => (false, &raw[1..]),
        _ => (false, raw),
    };
    let n =
        if !digits.is_empty() && digits.len() <= 19 && digits.bytes().all(|c| c.is_ascii_digit()) {
            digits
                .bytes()
                .fold(0u64, |n, c| n * 10 + u64::from(c - b'0')) as f64
        } else {
            plain_fraction(digits)?
        };
    Some(if negative { -n } else { n })
}

/// `digits.digits` as the f64 JS reads, when its digits make an integer that
/// fits a `u64` and at most 27 of them are after the point; `None` for the
/// host otherwise. Either side of the point may be empty (`Number(".5")`,
/// `Number("5.")`), never both (the syntax is checked). Up to 2^53 with at
/// most 22 after the point, the integer and the power of ten are both exact
/// in f64, so one division rounds the quotient correctly (Clinger's fast
/// path); past that, [`exact_quotient`] rounds it with integers.
fn plain_fraction(s: &str) -> Option<f64> {
    let mut n = 0u64;
    let mut point = None;
    for (i, c) in s.bytes().enumerate() {
        if c == b'.' && point.is_none() {
            point = Some(i);
            continue;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    // The digits after the point.
    let k = s.len() - 1 - point?;
    if k > 27 {
        return None;
    }
    if n <= 1 << 53 && k <= 22 {
        // 10^k for k <= 22 is exact: each product of the loop is.
        let scale = (0..k).fold(1.0f64, |p, _| p * 10.0);
        return Some(n as f64 / scale);
    }
    Some(exact_quotient(n, k as u32))
}

/// `n / 10^k` rounded to the nearest f64, ties to even, for `k <= 27` (so
/// that 5^k < 2^63). `n / 10^k` is `(n * 2^s / 5^k) * 2^-(s + k)`: with `n`
/// shifted to 127 bits the integer quotient has 64 bits or more, which with
/// whether a remainder is left (the sticky bit) round to 53 exactly; the
/// power of two then only moves the exponent (the result stays far above
/// the subnormals).
fn exact_quotient(n: u64, k: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let s = 63 + n.leading_zeros();
    let wide = u128::from(n) << s;
    let five = 5u128.pow(k);
    let q = wide / five;
    // The bits of q past the 53 kept.
    let shift = 75 - q.leading_zeros();
    let kept = (q >> shift) as u64;
    let rest = q & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    // Whether a remainder is left matters only at exactly half (a product of
    // u128 is a call in WebAssembly: made only then).
    let up = rest > half || (rest == half && (kept & 1 == 1 || q * five != wide));
    let m = kept + u64::from(up);
    let e = shift as i32 - s as i32 - k as i32;
    m as f64 * f64::from_bits(((1023 + e) as u64) << 52)
}

/// A number as JS's `String(n)` writes it (and so `JSON.stringify`, when
/// finite): `own_number_text`'s answer, else the [`NumberHost`]'s.
pub fn number_text(n: f64) -> String {
    own_number_text(n).unwrap_or_else(|| (number_host().text)(n))
}

/// The numbers the core writes without the host: NaN, the infinities and the
/// integers below 2^53 in magnitude, whose exact digits are the shortest that
/// read back as them. Past 2^53 they need not be: `String(2 ** 60)` is
/// `1152921504606847000`, not the integer's `1152921504606846976`.
fn own_number_text(n: f64) -> Option<String> {
    if n.is_nan() {
        return Some("NaN".into());
    }
    if n.is_infinite() {
        return Some(
            if n.is_sign_negative() {
                "-Infinity"
            } else {
                "Infinity"
            }
            .into(),
        );
    }
    if n.fract() != 0.0 || n.abs() >= 9_007_199_254_740_992.0 {
        return None;
    }
    let digits = (n.abs() as u64).to_string();
    Some(if n < 0.0 {
        format!("-{digits}")
    } else {
        digits
    })
}

/// `String(n)` of a finite number as ECMAScript's Number::toString defines
/// it, from the shortest digits that read back as `n` (Rust's `{:e}` picks
/// the same ones): plain up to 21 digits before the point and 6 zeros after
/// it, else with an exponent.
#[cfg(not(all(target_arch = "wasm32", feature = "wasm-bindings")))]
fn js_number_text(n: f64) -> String {
    let sci = format!("{:e}", n.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let k = digits.len() as i32;
    // The value is 0.digits × 10^point.
    let point = exponent.parse::<i32>().unwrap_or(0) + 1;
    let sign = if n.is_sign_negative() { "-" } else { "" };
    if (k..=21).contains(&point) {
        let zeros = "0".repeat((point - k) as usize);
        format!("{sign}{digits}{zeros}")
    } else if (1..=21).contains(&point) {
        let (int, fraction) = digits.split_at(point as usize);
        format!("{sign}{int}.{fraction}")
    } else if (-5..=0).contains(&point) {
        let zeros = "0".repeat(point.unsigned_abs() as usize);
        format!("{sign}0.{zeros}{digits}")
    } else {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{sign}{first}{dot}{rest}e{:+}", point - 1)
    }
}

/// Who reads and writes the numbers the core does not settle itself
/// (`own_decimal`, `own_number_text`). Natively, Rust's own parser and
/// formatter (laid out as JS lays numbers out). The WebAssembly bindings install JS's `Number` and `String` at
/// start instead: they are exactly what JS gives, and leaving Rust's float
/// code and tables out of the module saves a tenth of its size.
#[derive(Clone, Copy)]
pub struct NumberHost {
    /// A checked decimal literal as an f64.
    pub decimal: fn(&str) -> f64,
    /// A finite non-integer (or huge) number as text.
    pub text: fn(f64) -> String,
}

static NUMBER_HOST: std::sync::OnceLock<NumberHost> = std::sync::OnceLock::new();

/// Installs the host's number reader and writer; the first call wins.
pub fn set_number_host(host: NumberHost) {
    let _ = NUMBER_HOST.set(host);
}

fn number_host() -> NumberHost {
    NUMBER_HOST.get().copied().unwrap_or(DEFAULT_NUMBER_HOST)
}

#[cfg(not(all(target_arch = "wasm32", feature = "wasm-bindings")))]
const DEFAULT_NUMBER_HOST: NumberHost = NumberHost {
    decimal: |raw| raw.parse::<f64>().unwrap_or(f64::NAN),
    text: js_number_text,
};

// In WebAssembly the bindings' start hook installs the host before any export
// runs; a default that named Rust's float code would link it back in.
#[cfg(all(target_arch = "wasm32", feature = "wasm-bindings"))]
const DEFAULT_NUMBER_HOST: NumberHost = NumberHost {
    decimal: |_| f64::NAN,
    text: |_| String::from("NaN"),
};

/// JS truthiness of a JSON value given as kind and raw text.
pub fn truthy(kind: Kind, raw: &str) -> bool {
    match kind {
        Kind::Object | Kind::Array | Kind::True => true,
        Kind::False | Kind::Null => false,
        Kind::String => raw.len() > 2,
        Kind::Number => {
            let n = number(raw);
            n != 0.0 && !n.is_nan()
        }
    }
}

/// A string as `JSON.stringify` writes it: `"` and `\` escaped, the
/// control characters as `\b \t \n \f \r` or `\u00xx` (lowercase hex).
/// Out of line: the usage reports, the migration and the branch copies call
/// it in some thirty places, each of which held its own copy of the scan
/// (a hot writer appends with [`push_stringified`] instead).
#[inline(never)]
pub fn stringify(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_stringified(&mut out, s);
    out
}

/// [`stringify`], appended to `out`.
pub fn push_stringified(out: &mut String, s: &str) {
    // Ids, keys and timestamps rarely need an escape: quote those directly.
    if !s.bytes().any(|b| matches!(b, 0..=0x1f | b'"' | b'\\')) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    stringify_escaped(out, s);
}

// Out of line: the rare case, kept out of the many callers (and the wasm).
#[cold]
#[inline(never)]
fn stringify_escaped(out: &mut String, s: &str) {
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        plain = i + 1;
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// The containers open around the value being read: whether each is an
/// object. The innermost 64 live in a word; deeper ones (rare) in a vector.
/// The validator's, and the previews' walk over values of any depth.
#[derive(Default)]
pub(crate) struct Stack {
    depth: usize,
    low: u64,
    deep: Vec<bool>,
}

impl Stack {
    #[inline(always)]
    pub(crate) fn push(&mut self, object: bool) {
        if self.depth < 64 {
            let bit = 1u64 << self.depth;
            self.low = if object {
                self.low | bit
            } else {
                self.low & !bit
            };
        } else {
            self.deep.push(object);
        }
        self.depth += 1;
    }

    /// Whether the innermost open container is an object; `None` at the top.
    #[inline(always)]
    pub(crate) fn top(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d <= 64 => Some(self.low >> (d - 1) & 1 != 0),
            _ => self.deep.last().copied(),
        }
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) {
        self.depth -= 1;
        if self.depth >= 64 {
            self.deep.pop();
        }
    }
}

/// The JSON grammar loop. `RECORD` notes members (off when only validity
/// matters); `LINE` reads a line up to its first `\n`, which then ends the
/// text instead of being whitespace.
struct Validator<'a, const RECORD: bool, const LINE: bool> {
    /// The source up to the end of the span: offsets stay absolute.
    b: &'a [u8],
    i: usize,
    stack: Stack,
    members: Vec<Member>,
    nested: Vec<(usize, Member)>,
}

impl<'a, const RECORD: bool, const LINE: bool> Validator<'a, RECORD, LINE> {
    fn new(b: &'a [u8], span: Span) -> Self {
        let end = span.end.min(b.len());
        Validator {
            b: &b[..end],
            i: span.start,
            stack: Stack {
                depth: 0,
                low: 0,
                deep: Vec::new(),
            },
            members: Vec::new(),
            nested: Vec::new(),
        }
    }

    fn err<T>(&self, at: usize, reason: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            offset: at,
            reason: reason.into(),
        })
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Past whitespace. Lines as `JSON.stringify` writes them have none, so
    /// the first byte is looked at here and the loop is out of line: in
    /// WebAssembly each loop entered costs a check of its own, and this runs
    /// some four times a member.
    #[inline(always)]
    fn ws(&mut self) {
        if self.b.get(self.i).is_some_and(|&c| is_ws::<LINE>(c)) {
            self.i = skip_ws::<LINE>(self.b, self.i + 1);
        }
    }

    #[cold]
    fn unexpected<T>(&self, expected: &str) -> Result<T, SyntaxError> {
        if LINE {
            // The caller reads the line's error from its span (the rest of
            // the text is not this line's).
            return self.err(self.i, String::new());
        }
        match self.peek() {
            None => self.err(
                self.i,
                format!("unexpected end of line, expected {expected}"),
            ),
            Some(_) => {
                let rest = std::str::from_utf8(&self.b[self.i..]).unwrap_or("");
                let c = rest.chars().next().unwrap_or('\u{FFFD}');
                self.err(
                    self.i,
                    format!("unexpected {} , expected {expected}", describe(c)).replace(" ,", ","),
                )
            }
        }
    }

    fn run(&mut self) -> Result<Value, SyntaxError> {
        self.ws();
        let start = self.i;
        let kind = match self.peek() {
            Some(b) => Kind::of_first_byte(b),
            None => return self.err(self.i, "empty line: no JSON value"),
        };
        // Members being read at depth 1 and 2: (key, value start).
        let mut pending: [Option<(Span, usize)>; 2] = [None, None];
        let top_end: usize;
        'value: loop {
            match self.peek() {
                Some(b'"') => self.string()?,
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        self.stack.push(true);
                        let key = self.member_key()?;
                        self.begin(&mut pending, key);
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        self.stack.push(false);
                        self.begin(&mut pending, Span::default());
                        continue 'value;
                    }
                }
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                _ => return self.unexpected("a JSON value"),
            }
            // A value is complete: close what it completes.
            loop {
                let value_end = self.i;
                self.ws();
                let Some(object) = self.stack.top() else {
                    top_end = value_end;
                    break 'value;
                };
                if RECORD {
                    let depth = self.stack.depth;
                    if depth <= 2 {
                        if let Some((key, vstart)) = pending[depth - 1].take() {
                            let m = Member {
                                key,
                                value: Span::new(vstart, value_end),
                                kind: Kind::of_first_byte(self.b[vstart]),
                            };
                            if depth == 1 {
                                self.members.push(m);
                            } else {
                                self.nested.push((self.members.len(), m));
                            }
                        }
                    }
                }
                match (object, self.peek()) {
                    (true, Some(b',')) => {
                        self.i += 1;
                        self.ws();
                        let key = self.member_key()?;
                        self.begin(&mut pending, key);
                        continue 'value;
                    }
                    (false, Some(b',')) => {
                        self.i += 1;
                        self.ws();
                        self.begin(&mut pending, Span::default());
                        continue 'value;
                    }
                    (true, Some(b'}')) | (false, Some(b']')) => {
                        self.i += 1;
                        self.stack.pop();
                    }
                    (true, _) => return self.unexpected("',' or '}' after an object member"),
                    _ => return self.unexpected("',' or ']' after an array element"),
                }
            }
        }
        let span = Span::new(start, top_end);
        match self.peek() {
            None => {}
            // A line's end. (A whole text has none here: `ws` read past it.)
            Some(b'\n') => {}
            Some(_) => return self.unexpected("end of line after the JSON value"),
        }
        let members = std::mem::take(&mut self.members);
        let nested = std::mem::take(&mut self.nested);
        Ok(Value {
            kind,
            nested,
            span,
            members,
        })
    }

    /// Notes the start of a member or element whose end is worth recording:
    /// anything at depth 1, and members of objects that are top-level members.
    #[inline(always)]
    fn begin(&self, pending: &mut [Option<(Span, usize)>; 2], key: Span) {
        if !RECORD {
            return;
        }
        match self.stack.depth {
            1 => pending[0] = Some((key, self.i)),
            2 if self.stack.low & 3 == 3 => pending[1] = Some((key, self.i)),
            _ => {}
        }
    }

    /// Reads `"key" :` and the whitespace after it.
    #[inline(always)]
    fn member_key(&mut self) -> Result<Span, SyntaxError> {
        if self.peek() != Some(b'"') {
            return self.unexpected("a string key");
        }
        let start = self.i;
        self.string()?;
        let key = Span::new(start, self.i);
        self.ws();
        if self.peek() != Some(b':') {
            return self.unexpected("':' after an object key");
        }
        self.i += 1;
        self.ws();
        Ok(key)
    }

    #[inline(always)]
    fn string(&mut self) -> Result<(), SyntaxError> {
        match scan::string_body(self.b, self.i + 1, self.b.len()) {
            Ok(after) => {
                self.i = after;
                Ok(())
            }
            Err(fault) => self.string_error(fault),
        }
    }

    #[cold]
    fn string_error(&self, fault: StringFault) -> Result<(), SyntaxError> {
        match fault {
            StringFault::Unterminated => self.err(self.i, "unterminated string"),
            StringFault::Control(at) => self.err(
                at,
                format!("control character U+{:04X} in string", self.b[at]),
            ),
            StringFault::BadEscape(at) => self.err(at, "bad escape in string"),
            StringFault::BadUnicode(at) => {
                self.err(at, "bad \\u escape in string: four hex digits expected")
            }
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        self.i = digits(self.b, from);
        self.i - from
    }

    fn number(&mut self) -> Result<(), SyntaxError> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.unexpected("a digit in number"),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return self.unexpected("a digit after the decimal point");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.unexpected("a digit in the exponent");
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn literal(&mut self, w: &'static [u8]) -> Result<(), SyntaxError> {
        if self.b.get(self.i..self.i + w.len()) == Some(w) {
            self.i += w.len();
            Ok(())
        } else {
            let word = std::str::from_utf8(w).unwrap_or("");
            self.unexpected(&format!("'{word}'"))
        }
    }
}

/// JSON whitespace; a line ends at its `\n`, whitespace only in a whole text
/// (`is_ws::<true>`: the whitespace `JSON.parse` takes within a line).
#[inline(always)]
pub fn is_ws<const LINE: bool>(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r') || (!LINE && c == b'\n')
}

/// Past the whitespace from `b[i]`.
#[inline(never)]
fn skip_ws<const LINE: bool>(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_ws::<LINE>(c)) {
        i += 1;
    }
    i
}

/// Past the digits from `b[i]`, eight a step: a byte is a digit if its xor
/// with `'0'` is below 10 (high nibble 0, and no carry out of the low one
/// when 6 is added).
#[inline(always)]
fn digits(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(&w) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let a = u64::from_le_bytes(w) ^ (ONES * u64::from(b'0'));
        let other = (a | ((a & (ONES * 0x0f)) + ONES * 6)) & (ONES * 0xf0);
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

fn describe(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("character U+{:04X}", c as u32)
    } else {
        format!("'{c}'")
    }
}

#[cfg(test)]
mod mutant_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift64 stream of test inputs from `seed` (never 0).
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn ok(s: &str) -> Value {
        parse(s, Span::new(0, s.len())).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }
    fn bad(s: &str) -> SyntaxError {
        parse(s, Span::new(0, s.len())).expect_err(s)
    }

    #[test]
    fn accepts_what_json_parse_accepts() {
        for s in [
            "0",
            "-0",
            "1e400",
            "-1.5E+3",
            "123456789012345678901234567890",
            "\"\\ud800\"",
            "\"\\uDFFF x\"",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            " \t\r\n{ \"a\" : [ 1 , { } ] }\r",
            "\"\u{2028}\u{2029}\"",
            "{\"__proto__\":{\"x\":1}}",
            "[[[[[[[[[[]]]]]]]]]]",
            "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
        ] {
            ok(s);
        }
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        ok(&deep);
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for s in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "+1",
            "-",
            "1e",
            "1e+",
            "NaN",
            "Infinity",
            "'x'",
            "\"a",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\t\"",
            "\"\u{0}\"",
            "{a:1}",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "[1,]",
            "[1 2]",
            "{} {}",
            "tru",
            "nul",
            "\u{feff}{}",
            "\u{a0}1",
            "{\"a\":1}\u{0}",
            "[",
            "{",
            "{\"a\":",
        ] {
            bad(s);
        }
    }

    #[test]
    fn digits_end_at_the_first_other_byte() {
        for len in 0..20 {
            for at in 0..=len {
                for other in [b'/', b':', b'.', b'e', b' ', 0x00, 0x80, 0xb0, 0x3a, 0xff] {
                    let mut b = vec![b'7'; len];
                    if at < len {
                        b[at] = other;
                    }
                    for from in 0..=at {
                        assert_eq!(digits(&b, from), at, "{b:?} from {from}");
                    }
                }
            }
        }
        for c in 0..=255u8 {
            let b = [c; 9];
            assert_eq!(digits(&b, 0) > 0, c.is_ascii_digit(), "{c}");
        }
    }

    #[test]
    fn plain_fractions_read_as_js_reads_them() {
        // Rust's parser rounds correctly, as JS's does: the fast path must
        // agree with it on every digit count, up to 2^53 and just past it.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        let (mut fast, mut tried) = (0, 0);
        for _ in 0..200_000 {
            let len = (next() % 19 + 1) as usize;
            let digits: String = (0..len)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            let point = (next() % len as u64) as usize;
            let (whole, fraction) = digits.split_at(point.max(1));
            let whole = whole.trim_start_matches('0');
            let whole = if whole.is_empty() { "0" } else { whole };
            if fraction.is_empty() {
                continue;
            }
            let raw = format!("{whole}.{fraction}");
            let want: f64 = raw.parse().unwrap();
            tried += 1;
            fast += usize::from(plain_fraction(&raw).is_some());
            assert_eq!(decimal(&raw).to_bits(), want.to_bits(), "{raw}");
            assert_eq!(decimal(&format!("-{raw}")), -want, "-{raw}");
        }
        assert_eq!(fast, tried, "up to 19 digits, the core reads them all");
        for (raw, fast) in [
            ("0.1", true),
            ("9007199254740.992", true),
            ("9007199254740.993", true),
            ("0.0000000000000000000001", true),
            ("0.00000000000000000000001", true),
            ("0.000000000000000000000000001", true),
            ("0.0000000000000000000000000001", false),
            ("18446744073709551615.", true),
            ("18446744073709551616.", false),
            ("1844674407370955161.5", true),
            ("1844674407370955161.6", false),
            ("1.5e3", false),
            ("12", false),
        ] {
            assert_eq!(plain_fraction(raw).is_some(), fast, "{raw}");
            assert_eq!(decimal(raw), raw.parse::<f64>().unwrap(), "{raw}");
        }
    }

    #[test]
    fn long_fractions_round_as_js_reads_them() {
        // Costs as JS adds them up (0.1 + 0.2 is 0.30000000000000004): 17
        // to 19 digits, past Clinger's fast path, each at the f64 Rust's
        // correctly rounding parser (and so JS's Number) gives.
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for _ in 0..200_000 {
            let len = (next() % 4 + 16) as usize;
            let digits: String = (0..len)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            // At most 27 digits after the point.
            let zeros = "0".repeat((next() % (28 - len as u64)) as usize);
            let point = (next() % len as u64) as usize;
            for raw in [
                format!("0.{zeros}{digits}"),
                format!("{}.{}", &digits[..point], &digits[point..]),
            ] {
                let want: f64 = raw.parse().unwrap();
                assert_eq!(
                    plain_fraction(&raw).map(f64::to_bits),
                    Some(want.to_bits()),
                    "{raw}"
                );
            }
        }
        // Exactly halfway between two f64 (ties go to the even one), and
        // either side of halfway; integers past 2^53 and zeros.
        for raw in [
            "4503599627370496.5",
            "4503599627370497.5",
            "4503599627370496.49",
            "4503599627370496.51",
            "9007199254740993.0",
            "9007199254740995.0",
            "9007199254740993.001",
            "18014398509481986.",
            "18014398509481990.",
            "18014398509481986.1",
            "18014398509481985.9",
            "0.30000000000000004",
            "0.012099500000000001",
            "0.000000000000000000000000000",
        ] {
            let want: f64 = raw.parse().unwrap();
            assert_eq!(
                plain_fraction(raw).map(f64::to_bits),
                Some(want.to_bits()),
                "{raw}"
            );
        }
        for raw in [
            "9007199254740993",
            "18014398509481986",
            "9999999999999999999",
        ] {
            let want: f64 = raw.parse().unwrap();
            assert_eq!(
                own_decimal(raw).map(f64::to_bits),
                Some(want.to_bits()),
                "{raw}"
            );
        }
        assert_eq!(
            own_decimal("18446744073709551615"),
            None,
            "twenty digits: the host's"
        );
        assert_eq!(
            own_decimal("-0.000000000000000000000000").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
    }

    #[test]
    fn errors_say_where_and_why() {
        let e = bad("{\"a\":1 \"b\":2}");
        assert_eq!(e.offset, 7);
        assert!(e.reason.contains("',' or '}'"), "{}", e.reason);
        let e = bad("{\"a\":\"x");
        assert_eq!(e.offset, 5);
        assert_eq!(e.reason, "unterminated string");
    }

    #[test]
    fn records_top_level_members_only() {
        let s = r#"{"type":"message","message":{"role":"user","id":1},"id":"a1","x":[{"id":2}]}"#;
        let v = ok(s);
        let keys: Vec<&str> = v.members.iter().map(|m| m.key.of(s)).collect();
        assert_eq!(keys, ["\"type\"", "\"message\"", "\"id\"", "\"x\""]);
        assert_eq!(get(s, &v.members, "id").unwrap().value.of(s), "\"a1\"");
        let msg = get(s, &v.members, "message").unwrap();
        assert_eq!(msg.kind, Kind::Object);
        let inner = members(s, msg.value);
        assert_eq!(get(s, &inner, "role").unwrap().value.of(s), "\"user\"");
    }

    #[test]
    fn records_array_elements() {
        let s = r#"[ 1, {"a":[2]} ,"x"]"#;
        let v = ok(s);
        let els: Vec<&str> = v.members.iter().map(|m| m.value.of(s)).collect();
        assert_eq!(els, ["1", r#"{"a":[2]}"#, "\"x\""]);
        assert_eq!(v.members[1].kind, Kind::Object);
    }

    #[test]
    fn last_duplicate_key_wins_and_escaped_keys_match() {
        let s = r#"{"id":"a","i\u0064":"b"}"#;
        let v = ok(s);
        assert_eq!(get(s, &v.members, "id").unwrap().value.of(s), "\"b\"");
    }

    #[test]
    fn decodes_strings_like_js() {
        assert_eq!(as_str("\"a\\u00e9\\n\"").as_deref(), Some("aé\n"));
        assert_eq!(as_str("\"\\ud83d\\ude00\"").as_deref(), Some("😀"));
        assert_eq!(
            decode_string("\"\\ud800\""),
            Some(JsString::Utf16(vec![0xd800]))
        );
        assert!(truthy(Kind::String, "\"0\""));
        assert!(!truthy(Kind::String, "\"\""));
        assert!(!truthy(Kind::Number, "-0.0e5"));
        assert!(!truthy(Kind::Number, "1e-400"));
        assert_eq!(number("1e400"), f64::INFINITY);
    }

    #[test]
    fn strings_are_written_as_json_stringify_does() {
        assert_eq!(stringify("a\"\\\n\u{1}é"), "\"a\\\"\\\\\\n\\u0001é\"");
    }

    #[test]
    fn every_control_character_is_escaped_as_serde_json_does() {
        // serde_json writes strings as JSON.stringify does; it is only a test oracle.
        let all: String = (0u8..0x80)
            .map(char::from)
            .chain(['é', '\u{2028}', '😀'])
            .collect();
        for s in [all.as_str(), "plain", "", "\u{7f}\u{1f}"] {
            assert_eq!(stringify(s), serde_json::to_string(s).unwrap());
        }
    }
}
