//! Go's `time.ParseDuration`, which external-dns reads the `ttl` annotation with and which
//! zoneguard's own duration settings (rules, `serve` flags) follow.

use std::time::Duration;

/// The largest magnitude Go's parser accepts before its final sign check, in nanoseconds.
const LIMIT: u64 = 1 << 63;

/// `time.ParseDuration(text)` in nanoseconds, step for step: `[-+]` then one or more
/// `<number>[.<fraction>]<unit>` terms (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), or `0`; `None`
/// where Go returns an error (no unit, unknown unit, out of the int64 range). A fraction goes
/// through float64 as Go's does, so rounding at the edges is Go's.
pub fn parse_nanos(text: &str) -> Option<i64> {
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let (nanos, after) = term(rest)?;
        total = total.checked_add(nanos).filter(|&t| t <= LIMIT)?;
        rest = after;
    }
    if negative {
        0i64.checked_sub_unsigned(total)
    } else {
        i64::try_from(total).ok()
    }
}

/// A Go duration that is not negative, as a [`Duration`].
pub fn parse(text: &str) -> Option<Duration> {
    let nanos = u64::try_from(parse_nanos(text)?).ok()?;
    Some(Duration::from_nanos(nanos))
}

/// One `<number><unit>` term in nanoseconds, and the text after it.
fn term(text: &str) -> Option<(u64, &str)> {
    let (whole, rest) = leading_int(text)?;
    let pre = rest.len() != text.len();
    let (fraction, scale, rest, post) = match rest.strip_prefix('.') {
        Some(r) => {
            let (f, scale, after) = leading_fraction(r);
            (f, scale, after, after.len() != r.len())
        }
        None => (0, 1.0, rest, false),
    };
    if !pre && !post {
        return None;
    }
    let unit_len = rest
        .find(|c: char| c == '.' || c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (unit, rest) = rest.split_at(unit_len);
    let unit: u64 = match unit {
        "ns" => 1,
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    };
    if whole > LIMIT / unit {
        return None;
    }
    let mut nanos = whole * unit;
    if fraction > 0 {
        // As Go: float64 keeps a fraction of an hour nanosecond-accurate.
        nanos += (fraction as f64 * (unit as f64 / scale)) as u64;
        if nanos > LIMIT {
            return None;
        }
    }
    Some((nanos, rest))
}

/// Go's `leadingInt`: the digits at the start as a number, `None` past 1<<63.
fn leading_int(text: &str) -> Option<(u64, &str)> {
    let len = text.bytes().take_while(u8::is_ascii_digit).count();
    let mut x: u64 = 0;
    for digit in text[..len].bytes() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(digit - b'0');
        if x > LIMIT {
            return None;
        }
    }
    Some((x, &text[len..]))
}

/// Go's `leadingFraction`: the digits at the start as a numerator and its power of ten; the
/// digits past what fits in 63 bits are consumed and ignored.
fn leading_fraction(text: &str) -> (u64, f64, &str) {
    let len = text.bytes().take_while(u8::is_ascii_digit).count();
    let (mut x, mut scale, mut overflow) = (0u64, 1.0f64, false);
    for digit in text[..len].bytes() {
        if overflow {
            continue;
        }
        if x > (LIMIT - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(digit - b'0');
        if y > LIMIT {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &text[len..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse_to_go_s_nanoseconds() {
        let rows = [
            ("0", Some(0)),
            ("-0", Some(0)),
            ("500ms", Some(500_000_000)),
            ("1m30s", Some(90_000_000_000)),
            ("+5m", Some(300_000_000_000)),
            ("-1s", Some(-1_000_000_000)),
            ("1.5s", Some(1_500_000_000)),
            (".5s", Some(500_000_000)),
            ("5.s", Some(5_000_000_000)),
            ("3us", Some(3_000)),
            ("3µs", Some(3_000)),
            ("1h0.5m", Some(3_630_000_000_000)),
            ("9223372036854775807ns", Some(i64::MAX)),
            ("-9223372036854775808ns", Some(i64::MIN)),
            ("9223372036854775808ns", None),
            ("2562048h", None),
            ("", None),
            ("5", None),
            ("1d", None),
            ("s", None),
            (".s", None),
            (" 5s", None),
            ("5s ", None),
            ("1e3s", None),
        ];
        for (text, want) in rows {
            assert_eq!(parse_nanos(text), want, "{text:?}");
        }
    }

    #[test]
    fn only_durations_that_are_not_negative_become_a_duration() {
        assert_eq!(parse("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse("-1s"), None);
        assert_eq!(parse("5"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_is_refused_without_a_panic(text in "\\PC{0,24}") {
            let _ = parse_nanos(&text);
        }

        #[test]
        fn whole_terms_add_up(terms in proptest::collection::vec((0u64..100_000, 0usize..6), 1..5)) {
            const UNITS: [(&str, u64); 6] = [
                ("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000),
                ("m", 60_000_000_000), ("h", 3_600_000_000_000),
            ];
            let text: String = terms.iter().map(|(n, u)| format!("{n}{}", UNITS[*u].0)).collect();
            let want: u64 = terms.iter().map(|(n, u)| n * UNITS[*u].1).sum();
            proptest::prop_assert_eq!(parse_nanos(&text), i64::try_from(want).ok());
        }
    }
}
