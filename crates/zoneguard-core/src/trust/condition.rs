//! Condition operators (`StringEquals`, `ForAnyValue:StringLike`, `ArnNotLikeIfExists`, …),
//! condition values with policy variables, and the three-valued evaluation of one
//! condition against a request context.

use super::glob::{self, Tok};
use super::policy::Version;
use super::request::{Context, KeyState};
use std::borrow::Cow;
use std::net::IpAddr;

/// How a multi-valued request key is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetQualifier {
    /// No prefix: some request value must match.
    Single,
    /// `ForAnyValue:`; an absent key is false.
    ForAnyValue,
    /// `ForAllValues:`; an absent key is true.
    ForAllValues,
}

/// The comparison an operator makes, before negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    StringEquals,
    StringEqualsIgnoreCase,
    StringLike,
    Numeric(Ordering),
    Date(Ordering),
    Bool,
    Binary,
    Ip,
    /// `ArnEquals` and `ArnLike` behave alike: per-component globs.
    Arn,
    Null,
}

/// The relation a numeric or date operator asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    Equals,
    LessThan,
    LessThanEquals,
    GreaterThan,
    GreaterThanEquals,
}

/// A parsed condition operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    /// As written in the policy.
    pub name: String,
    pub set: SetQualifier,
    pub test: Test,
    /// `StringNotEquals`, `NotIpAddress`, `ArnNotLike`, …: true when no value matches.
    pub negated: bool,
    pub if_exists: bool,
}

const BASES: [(&str, Test, bool); 27] = [
    ("StringEquals", Test::StringEquals, false),
    ("StringNotEquals", Test::StringEquals, true),
    (
        "StringEqualsIgnoreCase",
        Test::StringEqualsIgnoreCase,
        false,
    ),
    (
        "StringNotEqualsIgnoreCase",
        Test::StringEqualsIgnoreCase,
        true,
    ),
    ("StringLike", Test::StringLike, false),
    ("StringNotLike", Test::StringLike, true),
    ("NumericEquals", Test::Numeric(Ordering::Equals), false),
    ("NumericNotEquals", Test::Numeric(Ordering::Equals), true),
    ("NumericLessThan", Test::Numeric(Ordering::LessThan), false),
    (
        "NumericLessThanEquals",
        Test::Numeric(Ordering::LessThanEquals),
        false,
    ),
    (
        "NumericGreaterThan",
        Test::Numeric(Ordering::GreaterThan),
        false,
    ),
    (
        "NumericGreaterThanEquals",
        Test::Numeric(Ordering::GreaterThanEquals),
        false,
    ),
    ("DateEquals", Test::Date(Ordering::Equals), false),
    ("DateNotEquals", Test::Date(Ordering::Equals), true),
    ("DateLessThan", Test::Date(Ordering::LessThan), false),
    (
        "DateLessThanEquals",
        Test::Date(Ordering::LessThanEquals),
        false,
    ),
    ("DateGreaterThan", Test::Date(Ordering::GreaterThan), false),
    (
        "DateGreaterThanEquals",
        Test::Date(Ordering::GreaterThanEquals),
        false,
    ),
    ("Bool", Test::Bool, false),
    ("BinaryEquals", Test::Binary, false),
    ("IpAddress", Test::Ip, false),
    ("NotIpAddress", Test::Ip, true),
    ("ArnEquals", Test::Arn, false),
    ("ArnLike", Test::Arn, false),
    ("ArnNotEquals", Test::Arn, true),
    ("ArnNotLike", Test::Arn, true),
    ("Null", Test::Null, false),
];

impl Operator {
    /// Parses an operator name (case-insensitively); `Err` says what is wrong.
    pub fn parse(name: &str) -> Result<Self, String> {
        let (set, rest) = split_qualifier(name);
        let (base, if_exists) = match strip_suffix_ignore_case(rest, "IfExists") {
            Some(base) => (base, true),
            None => (rest, false),
        };
        let Some((_, test, negated)) = BASES.iter().find(|(b, _, _)| b.eq_ignore_ascii_case(base))
        else {
            let near = crate::suggest::closest(base, BASES.iter().map(|(b, _, _)| *b));
            return Err(match near {
                Some(near) => format!(
                    "unknown condition operator `{name}`; did you mean `{}`?",
                    name.replacen(base, near, 1)
                ),
                None => format!("unknown condition operator `{name}`"),
            });
        };
        if *test == Test::Null && if_exists {
            return Err(format!("`{name}`: Null cannot take IfExists"));
        }
        Ok(Self {
            name: name.to_owned(),
            set,
            test: *test,
            negated: *negated,
            if_exists,
        })
    }
}

fn split_qualifier(name: &str) -> (SetQualifier, &str) {
    let Some((prefix, rest)) = name.split_once(':') else {
        return (SetQualifier::Single, name);
    };
    if prefix.eq_ignore_ascii_case("ForAnyValue") {
        (SetQualifier::ForAnyValue, rest)
    } else if prefix.eq_ignore_ascii_case("ForAllValues") {
        (SetQualifier::ForAllValues, rest)
    } else {
        (SetQualifier::Single, name)
    }
}

fn strip_suffix_ignore_case<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = text.len().checked_sub(suffix.len())?;
    let tail = text.get(cut..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &text[..cut])
}

/// A piece of a condition value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text where `*` and `?` are wildcards for the `…Like` operators.
    Text(String),
    /// `${*}`, `${?}`, `${$}`: a character that is never a wildcard.
    Escaped(char),
    /// `${aws:username}`: a policy variable (Version 2012-10-17 only).
    Variable(String),
}

/// One value of a condition, as written and split into parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub raw: String,
    pub parts: Vec<Part>,
}

impl Value {
    /// Splits `raw` into parts; `${…}` is only special under Version 2012-10-17.
    pub fn new(raw: String, version: Version) -> Self {
        let parts = if version == Version::V2012_10_17 {
            split_variables(&raw)
        } else {
            vec![Part::Text(raw.clone())]
        };
        Self { raw, parts }
    }

    /// The first policy variable, if any.
    pub fn variable(&self) -> Option<&str> {
        self.parts.iter().find_map(|p| match p {
            Part::Variable(v) => Some(v.as_str()),
            _ => None,
        })
    }

    /// The literal text (escapes resolved); `None` when a variable is present. Borrowed when
    /// the value is plain text, as most are.
    pub fn literal(&self) -> Option<Cow<'_, str>> {
        match self.parts.as_slice() {
            [] => return Some(Cow::Borrowed("")),
            [Part::Text(t)] => return Some(Cow::Borrowed(t)),
            _ => {}
        }
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Escaped(c) => out.push(*c),
                Part::Variable(_) => return None,
            }
        }
        Some(Cow::Owned(out))
    }

    /// Whether `text` matches this value as a `…Like` glob (a value with a variable is
    /// reported before it is compared). Plain text, as most values are, is matched in place.
    pub fn like(&self, text: &str) -> bool {
        match self.parts.as_slice() {
            [Part::Text(pattern)] => glob::matches_text(pattern, text),
            _ => glob::matches(&self.glob().unwrap_or_default(), text),
        }
    }

    /// The glob; `None` when a variable is present.
    pub fn glob(&self) -> Option<Vec<Tok>> {
        let mut out = Vec::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.extend(t.chars().map(glob::wild)),
                Part::Escaped(c) => out.push(Tok::Lit(*c)),
                Part::Variable(_) => return None,
            }
        }
        Some(out)
    }
}

fn split_variables(raw: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = raw;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        text.push_str(&rest[..start]);
        let inner = &rest[start + 2..start + 2 + len];
        match inner {
            "*" | "?" | "$" => {
                flush(&mut parts, &mut text);
                parts.push(Part::Escaped(inner.chars().next().unwrap_or('$')));
            }
            _ => {
                flush(&mut parts, &mut text);
                parts.push(Part::Variable(inner.to_owned()));
            }
        }
        rest = &rest[start + 2 + len + 1..];
    }
    text.push_str(rest);
    flush(&mut parts, &mut text);
    parts
}

fn flush(parts: &mut Vec<Part>, text: &mut String) {
    if !text.is_empty() {
        parts.push(Part::Text(std::mem::take(text)));
    }
}

/// One operator applied to one key with its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub operator: Operator,
    /// The key as written (lookups ignore case).
    pub key: String,
    pub values: Vec<Value>,
}

/// Why a condition cannot be decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undecidable {
    /// The key is in the real request, but its value is not known now.
    Key,
    /// A value uses this policy variable.
    Variable(String),
}

/// A three-valued answer: conditions whose inputs are unknown answer `Unknown`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown(Undecidable),
}

impl Truth {
    pub fn from_bool(value: bool) -> Self {
        if value {
            Truth::True
        } else {
            Truth::False
        }
    }

    pub fn negate(self) -> Self {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            unknown => unknown,
        }
    }

    /// Kleene OR: true wins, then unknown.
    pub fn any(items: impl IntoIterator<Item = Truth>) -> Self {
        let mut result = Truth::False;
        for item in items {
            match item {
                Truth::True => return Truth::True,
                Truth::Unknown(u) if result == Truth::False => result = Truth::Unknown(u),
                _ => {}
            }
        }
        result
    }

    /// Kleene AND: false wins, then unknown.
    pub fn all(items: impl IntoIterator<Item = Truth>) -> Self {
        Truth::any(items.into_iter().map(Truth::negate)).negate()
    }
}

impl Condition {
    /// Evaluates the condition against `context`.
    pub fn evaluate(&self, context: &Context) -> Truth {
        match context.lookup(&self.key) {
            KeyState::Unknown => Truth::Unknown(Undecidable::Key),
            KeyState::Absent => Truth::from_bool(self.holds_when_absent()),
            KeyState::Present(values) => self.evaluate_present(values),
        }
    }

    /// The missing-key rules: `Null` tests absence; `…IfExists` (even with
    /// `ForAnyValue:`), `ForAllValues:` and negated operators hold; `ForAnyValue:` and plain
    /// operators do not.
    pub fn holds_when_absent(&self) -> bool {
        let op = &self.operator;
        if op.test == Test::Null {
            return self.values.iter().any(|v| is_true(&v.raw));
        }
        if op.if_exists {
            return true;
        }
        match op.set {
            SetQualifier::ForAllValues => true,
            SetQualifier::ForAnyValue => false,
            SetQualifier::Single => op.if_exists || op.negated,
        }
    }

    fn evaluate_present(&self, request_values: &[String]) -> Truth {
        if self.operator.test == Test::Null {
            return Truth::from_bool(self.values.iter().any(|v| !is_true(&v.raw)));
        }
        let each = request_values.iter().map(|v| self.one_value(v));
        match (self.operator.set, self.operator.negated) {
            (SetQualifier::ForAllValues, _) => Truth::all(each),
            (SetQualifier::ForAnyValue, _) => Truth::any(each),
            (SetQualifier::Single, false) => Truth::any(each),
            (SetQualifier::Single, true) => Truth::all(each),
        }
    }

    /// Whether one request value satisfies the operator (negation applied).
    fn one_value(&self, request_value: &str) -> Truth {
        let test = self.operator.test;
        let matched = Truth::any(self.values.iter().map(|v| compare(test, v, request_value)));
        if self.operator.negated {
            matched.negate()
        } else {
            matched
        }
    }
}

fn is_true(text: &str) -> bool {
    text.eq_ignore_ascii_case("true")
}

/// Whether `request_value` matches one policy value under `test` (before negation).
fn compare(test: Test, policy: &Value, request_value: &str) -> Truth {
    if let Some(variable) = policy.variable() {
        return Truth::Unknown(Undecidable::Variable(variable.to_owned()));
    }
    let literal = policy.literal().unwrap_or_default();
    let result = match test {
        Test::StringEquals | Test::Binary => literal == request_value,
        Test::StringEqualsIgnoreCase => literal.to_lowercase() == request_value.to_lowercase(),
        Test::StringLike => policy.like(request_value),
        Test::Numeric(ordering) => compare_numbers(ordering, &literal, request_value),
        Test::Date(ordering) => compare_dates(ordering, &literal, request_value),
        Test::Bool => is_bool(request_value) && literal.eq_ignore_ascii_case(request_value),
        Test::Ip => ip_in_range(&literal, request_value),
        Test::Arn => arn_matches(&policy.glob().unwrap_or_default(), request_value),
        Test::Null => false,
    };
    Truth::from_bool(result)
}

fn is_bool(text: &str) -> bool {
    text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false")
}

fn ordered<T: PartialOrd>(ordering: Ordering, request: T, policy: T) -> bool {
    match ordering {
        Ordering::Equals => request == policy,
        Ordering::LessThan => request < policy,
        Ordering::LessThanEquals => request <= policy,
        Ordering::GreaterThan => request > policy,
        Ordering::GreaterThanEquals => request >= policy,
    }
}

fn compare_numbers(ordering: Ordering, policy: &str, request: &str) -> bool {
    match (parse_number(policy), parse_number(request)) {
        (Some(p), Some(r)) => ordered(ordering, r, p),
        _ => false,
    }
}

fn compare_dates(ordering: Ordering, policy: &str, request: &str) -> bool {
    match (parse_date(policy), parse_date(request)) {
        (Some(p), Some(r)) => ordered(ordering, r, p),
        _ => false,
    }
}

/// A finite decimal number.
pub fn parse_number(text: &str) -> Option<f64> {
    let ok = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    let value: f64 = if ok { text.parse().ok()? } else { return None };
    value.is_finite().then_some(value)
}

/// Milliseconds since the epoch for ISO 8601 (`2024-01-31`, `2024-01-31T12:00:00Z`,
/// `…+02:00`, fractional seconds) or epoch seconds.
pub fn parse_date(text: &str) -> Option<i128> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<i64>().ok().map(|s| i128::from(s) * 1000);
    }
    let (date, time) = match text.split_once(['T', 't']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let days = parse_ymd(date)?;
    let millis = match time {
        Some(t) => parse_time(t)?,
        None => 0,
    };
    Some(i128::from(days) * 86_400_000 + millis)
}

fn digits(text: &str, len: usize) -> Option<i64> {
    (text.len() == len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

fn parse_ymd(text: &str) -> Option<i64> {
    let mut it = text.split('-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() {
        return None;
    }
    let (y, m, d) = (digits(y, 4)?, digits(m, 2)?, digits(d, 2)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Days since 1970-01-01 (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn parse_time(text: &str) -> Option<i128> {
    let (clock, offset) = split_offset(text)?;
    let mut it = clock.split(':');
    let h = digits(it.next()?, 2)?;
    let m = digits(it.next()?, 2)?;
    let (s, frac) = match it.next() {
        Some(sec) => parse_seconds(sec)?,
        None => (0, 0),
    };
    if it.next().is_some() || h > 24 || m > 59 || s > 60 {
        return None;
    }
    let millis = ((h * 60 + m) * 60 + s) * 1000 + frac;
    Some(i128::from(millis) - i128::from(offset) * 60_000)
}

/// Splits `12:00:00+02:00` into the clock and the offset in minutes.
fn split_offset(text: &str) -> Option<(&str, i64)> {
    if let Some(clock) = text.strip_suffix(['Z', 'z']) {
        return Some((clock, 0));
    }
    let Some(at) = text.rfind(['+', '-']) else {
        return Some((text, 0));
    };
    let (clock, zone) = text.split_at(at);
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let zone = zone[1..].replace(':', "");
    let minutes = digits(&zone, 4)?;
    Some((clock, sign * ((minutes / 100) * 60 + minutes % 100)))
}

fn parse_seconds(text: &str) -> Option<(i64, i64)> {
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, f),
        None => (text, ""),
    };
    let seconds = digits(whole, 2)?;
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let millis = format!("{frac:0<3}")
        .get(..3)
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    Some((seconds, millis))
}

/// An address or CIDR range.
pub fn parse_range(text: &str) -> Option<(IpAddr, u8)> {
    let (addr, bits) = match text.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let addr: IpAddr = addr.parse().ok()?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let bits = match bits {
        Some(b) => b.parse::<u8>().ok().filter(|b| *b <= max)?,
        None => max,
    };
    Some((addr, bits))
}

fn ip_in_range(range: &str, request: &str) -> bool {
    let (Some((network, bits)), Ok(addr)) = (parse_range(range), request.parse::<IpAddr>()) else {
        return false;
    };
    match (network, addr) {
        (IpAddr::V4(n), IpAddr::V4(a)) => prefix_equal(&n.octets(), &a.octets(), bits),
        (IpAddr::V6(n), IpAddr::V6(a)) => prefix_equal(&n.octets(), &a.octets(), bits),
        _ => false,
    }
}

fn prefix_equal(a: &[u8], b: &[u8], bits: u8) -> bool {
    let bits = usize::from(bits);
    let (whole, rest) = (bits / 8, bits % 8);
    if a[..whole] != b[..whole] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    (a[whole] & mask) == (b[whole] & mask)
}

/// ARN globs compare the six `:`-separated components one by one.
fn arn_matches(pattern: &[Tok], request: &str) -> bool {
    let segments: Vec<&[Tok]> = pattern.splitn(6, |t| *t == Tok::Lit(':')).collect();
    let values: Vec<&str> = request.splitn(6, ':').collect();
    segments.len() == 6
        && values.len() == 6
        && segments
            .iter()
            .zip(&values)
            .all(|(p, v)| glob::matches(p, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(op: &str, key: &str, values: &[&str], version: Version) -> Condition {
        Condition {
            operator: Operator::parse(op).expect(op),
            key: key.to_owned(),
            values: values
                .iter()
                .map(|v| Value::new((*v).to_owned(), version))
                .collect(),
        }
    }

    fn context(pairs: &[(&str, &[&str])]) -> Context {
        let mut context = Context::new();
        for (key, values) in pairs {
            context.set(key, values.iter().map(|v| (*v).to_owned()).collect());
        }
        context.mark_unknown("aws:SourceIp");
        context
    }

    type Row<'a> = (
        &'a str,
        &'a [&'a str],
        &'a [(&'a str, &'a [&'a str])],
        Truth,
    );

    fn check(rows: &[Row<'_>]) {
        for (op, values, pairs, expected) in rows {
            let c = condition(op, "k", values, Version::V2012_10_17);
            let got = c.evaluate(&context(pairs));
            assert_eq!(&got, expected, "{op} {values:?} against {pairs:?}");
        }
    }

    const T: Truth = Truth::True;
    const F: Truth = Truth::False;

    #[test]
    fn string_operators_compare_case_sensitively_unless_ignore_case() {
        check(&[
            ("StringEquals", &["abc"], &[("k", &["abc"])], T),
            ("StringEquals", &["abc"], &[("k", &["ABC"])], F),
            ("StringEquals", &["a*"], &[("k", &["abc"])], F),
            ("StringEquals", &["a*"], &[("k", &["a*"])], T),
            ("StringEquals", &["x", "abc"], &[("k", &["abc"])], T),
            ("StringNotEquals", &["abc"], &[("k", &["abc"])], F),
            ("StringNotEquals", &["x", "y"], &[("k", &["abc"])], T),
            ("StringNotEquals", &["x", "abc"], &[("k", &["abc"])], F),
            ("StringEqualsIgnoreCase", &["ABC"], &[("k", &["abc"])], T),
            ("StringNotEqualsIgnoreCase", &["ABC"], &[("k", &["abc"])], F),
            ("StringNotEqualsIgnoreCase", &["ABD"], &[("k", &["abc"])], T),
            ("StringLike", &["a*"], &[("k", &["abc"])], T),
            ("StringLike", &["A*"], &[("k", &["abc"])], F),
            ("StringLike", &["a?c"], &[("k", &["abc"])], T),
            ("StringLike", &["a?c"], &[("k", &["abbc"])], F),
            (
                "StringLike",
                &["*:ns:*"],
                &[("k", &["system:serviceaccount:ns:x/y"])],
                T,
            ),
            ("StringNotLike", &["a*"], &[("k", &["abc"])], F),
            ("StringNotLike", &["b*", "c*"], &[("k", &["abc"])], T),
            ("stringequals", &["abc"], &[("k", &["abc"])], T),
            ("BinaryEquals", &["QmluYXJ5"], &[("k", &["QmluYXJ5"])], T),
        ]);
    }

    #[test]
    fn missing_keys_follow_the_operator_family_rules() {
        check(&[
            ("StringEquals", &["a"], &[], F),
            ("StringLike", &["*"], &[], F),
            ("StringNotEquals", &["a"], &[], T),
            ("StringNotLike", &["a"], &[], T),
            ("StringEqualsIfExists", &["a"], &[], T),
            ("StringLikeIfExists", &["a"], &[], T),
            ("ForAllValues:StringEquals", &["a"], &[], T),
            ("ForAnyValue:StringEquals", &["a"], &[], F),
            ("ForAnyValue:StringNotEquals", &["a"], &[], F),
            ("ForAnyValue:StringEqualsIfExists", &["a"], &[], T),
            ("NumericLessThan", &["5"], &[], F),
            ("NumericNotEquals", &["5"], &[], T),
            ("DateGreaterThan", &["2020-01-01"], &[], F),
            ("DateNotEquals", &["2020-01-01"], &[], T),
            ("Bool", &["true"], &[], F),
            ("BoolIfExists", &["true"], &[], T),
            ("IpAddress", &["10.0.0.0/8"], &[], F),
            ("NotIpAddress", &["10.0.0.0/8"], &[], T),
            ("ArnLike", &["arn:aws:iam::*:role/*"], &[], F),
            ("ArnNotLike", &["arn:aws:iam::*:role/*"], &[], T),
            ("Null", &["true"], &[], T),
            ("Null", &["false"], &[], F),
        ]);
    }

    #[test]
    fn if_exists_on_a_present_key_behaves_like_the_plain_operator() {
        check(&[
            ("StringEqualsIfExists", &["a"], &[("k", &["a"])], T),
            ("StringEqualsIfExists", &["a"], &[("k", &["b"])], F),
            ("StringNotLikeIfExists", &["a*"], &[("k", &["ab"])], F),
            (
                "ArnLikeIfExists",
                &["arn:aws:iam::*:role/x"],
                &[("k", &["arn:aws:iam::1:role/x"])],
                T,
            ),
        ]);
    }

    #[test]
    fn null_tests_presence_of_the_key() {
        check(&[
            ("Null", &["true"], &[("k", &["a"])], F),
            ("Null", &["false"], &[("k", &["a"])], T),
            ("Null", &["TRUE"], &[], T),
        ]);
    }

    #[test]
    fn set_qualifiers_compare_every_or_any_request_value() {
        let two: &[&str] = &["a", "b"];
        check(&[
            ("ForAnyValue:StringEquals", &["b"], &[("k", two)], T),
            ("ForAnyValue:StringEquals", &["c"], &[("k", two)], F),
            (
                "ForAllValues:StringEquals",
                &["a", "b", "c"],
                &[("k", two)],
                T,
            ),
            ("ForAllValues:StringEquals", &["a"], &[("k", two)], F),
            ("ForAllValues:StringLike", &["*"], &[("k", two)], T),
            ("ForAnyValue:StringNotEquals", &["a"], &[("k", two)], T),
            ("ForAllValues:StringNotEquals", &["a"], &[("k", two)], F),
            ("ForAllValues:StringNotEquals", &["c"], &[("k", two)], T),
        ]);
    }

    #[test]
    fn numeric_date_bool_ip_and_arn_operators_compare_their_types() {
        check(&[
            ("NumericEquals", &["10"], &[("k", &["10.0"])], T),
            ("NumericNotEquals", &["10"], &[("k", &["11"])], T),
            ("NumericLessThan", &["10"], &[("k", &["9"])], T),
            ("NumericLessThan", &["10"], &[("k", &["10"])], F),
            ("NumericLessThanEquals", &["10"], &[("k", &["10"])], T),
            ("NumericGreaterThan", &["10"], &[("k", &["11"])], T),
            ("NumericGreaterThanEquals", &["10"], &[("k", &["9"])], F),
            ("NumericEquals", &["10"], &[("k", &["ten"])], F),
            (
                "DateLessThan",
                &["2024-01-01T00:00:00Z"],
                &[("k", &["2023-12-31T23:59:59Z"])],
                T,
            ),
            (
                "DateGreaterThan",
                &["2024-01-01"],
                &[("k", &["2024-01-01T00:00:01Z"])],
                T,
            ),
            (
                "DateEquals",
                &["2024-01-01T02:00:00+02:00"],
                &[("k", &["2024-01-01T00:00:00Z"])],
                T,
            ),
            (
                "DateEquals",
                &["1704067200"],
                &[("k", &["2024-01-01T00:00:00Z"])],
                T,
            ),
            (
                "DateNotEquals",
                &["2024-01-01"],
                &[("k", &["2024-01-02"])],
                T,
            ),
            (
                "DateLessThanEquals",
                &["2024-01-01"],
                &[("k", &["2024-01-01"])],
                T,
            ),
            (
                "DateGreaterThanEquals",
                &["2024-01-02"],
                &[("k", &["2024-01-01"])],
                F,
            ),
            ("Bool", &["true"], &[("k", &["true"])], T),
            ("Bool", &["true"], &[("k", &["false"])], F),
            ("Bool", &["false"], &[("k", &["FALSE"])], T),
            ("IpAddress", &["10.0.0.0/8"], &[("k", &["10.1.2.3"])], T),
            ("IpAddress", &["10.0.0.0/8"], &[("k", &["11.1.2.3"])], F),
            ("IpAddress", &["203.0.113.7"], &[("k", &["203.0.113.7"])], T),
            (
                "IpAddress",
                &["2001:db8::/32"],
                &[("k", &["2001:db8::1"])],
                T,
            ),
            (
                "NotIpAddress",
                &["10.0.0.0/9"],
                &[("k", &["10.200.0.1"])],
                T,
            ),
            (
                "ArnLike",
                &["arn:aws:iam::*:role/dns-*"],
                &[("k", &["arn:aws:iam::111122223333:role/dns-a"])],
                T,
            ),
            (
                "ArnEquals",
                &["arn:aws:iam::111122223333:role/x"],
                &[("k", &["arn:aws:iam::111122223333:role/x"])],
                T,
            ),
            (
                "ArnLike",
                &["arn:aws:iam::*"],
                &[("k", &["arn:aws:iam::111122223333:role/x"])],
                F,
            ),
            (
                "ArnLike",
                &["arn:aws:*:*:*:*"],
                &[("k", &["not-an-arn"])],
                F,
            ),
            (
                "ArnNotEquals",
                &["arn:aws:iam::1:role/x"],
                &[("k", &["arn:aws:iam::1:role/y"])],
                T,
            ),
            (
                "ArnNotLike",
                &["arn:aws:iam::1:role/*"],
                &[("k", &["arn:aws:iam::1:role/y"])],
                F,
            ),
        ]);
    }

    #[test]
    fn unknown_keys_make_the_condition_undecidable_whatever_the_operator() {
        for op in [
            "IpAddress",
            "NotIpAddress",
            "StringEqualsIfExists",
            "Null",
            "ForAllValues:StringLike",
        ] {
            let c = condition(op, "AWS:SourceIP", &["10.0.0.0/8"], Version::V2012_10_17);
            assert_eq!(
                c.evaluate(&context(&[])),
                Truth::Unknown(Undecidable::Key),
                "{op}"
            );
        }
    }

    #[test]
    fn policy_variables_are_undecidable_in_2012_and_literal_in_2008() {
        let ctx = context(&[("k", &["${aws:username}"])]);
        let c = condition(
            "StringEquals",
            "k",
            &["${aws:username}"],
            Version::V2012_10_17,
        );
        assert_eq!(
            c.evaluate(&ctx),
            Truth::Unknown(Undecidable::Variable("aws:username".into()))
        );
        let c = condition(
            "StringEquals",
            "k",
            &["${aws:username}"],
            Version::V2008_10_17,
        );
        assert_eq!(c.evaluate(&ctx), Truth::True);
        // A value that decides the answer wins over an undecidable one.
        let c = condition(
            "StringEquals",
            "k",
            &["${x}", "${aws:username}"],
            Version::V2008_10_17,
        );
        assert_eq!(c.evaluate(&ctx), Truth::True);
        let ctx = context(&[("k", &["a"])]);
        let c = condition("StringLike", "k", &["${x}", "a"], Version::V2012_10_17);
        assert_eq!(c.evaluate(&ctx), Truth::True);
    }

    #[test]
    fn escaped_wildcards_match_only_themselves() {
        let c = condition("StringLike", "k", &["a${*}"], Version::V2012_10_17);
        assert_eq!(c.evaluate(&context(&[("k", &["a*"])])), T);
        assert_eq!(c.evaluate(&context(&[("k", &["ab"])])), F);
        let c = condition("StringEquals", "k", &["${$}{x}${?}"], Version::V2012_10_17);
        assert_eq!(c.evaluate(&context(&[("k", &["${x}?"])])), T);
    }

    #[test]
    fn operator_names_parse_with_qualifiers_and_suffixes() {
        let op = Operator::parse("ForAnyValue:StringNotLikeIfExists").unwrap();
        assert_eq!(
            (op.set, op.test, op.negated, op.if_exists),
            (SetQualifier::ForAnyValue, Test::StringLike, true, true)
        );
        assert!(Operator::parse("StringEqual").is_err());
        let table = [
            ("StringEqual", Some("StringEquals")),
            ("ForAnyValue:stringlikee", Some("ForAnyValue:StringLike")),
            ("StringEqualIfExists", Some("StringEqualsIfExists")),
            ("ArnLikes", Some("ArnLike")),
            ("Whatever", None),
        ];
        for (name, near) in table {
            let e = Operator::parse(name).expect_err(name);
            let hint = near.map(|n| format!("; did you mean `{n}`?"));
            assert_eq!(
                e,
                format!(
                    "unknown condition operator `{name}`{}",
                    hint.unwrap_or_default()
                ),
            );
        }
        assert!(Operator::parse("NullIfExists").is_err());
        assert!(Operator::parse("Maybe:StringEquals").is_err());
        assert!(Operator::parse("").is_err());
    }

    #[test]
    fn kleene_logic_lets_a_decided_answer_win() {
        let u = || Truth::Unknown(Undecidable::Key);
        assert_eq!(Truth::all([T, u(), F]), F);
        assert_eq!(Truth::all([T, u()]), u());
        assert_eq!(Truth::any([F, u(), T]), T);
        assert_eq!(Truth::any([F, u()]), u());
        assert_eq!(Truth::all([]), T);
        assert_eq!(Truth::any([]), F);
    }
}
