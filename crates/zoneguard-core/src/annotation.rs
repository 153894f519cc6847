//! external-dns annotations: prefixes, hostname lists, TTLs and hostname-source values.

use crate::rules::RuleSet;
use crate::tree::{Node, Object};

/// The prefixes external-dns reads by default: ≥ v0.22.0, and older versions / Helm values.
pub const STANDARD_PREFIXES: [&str; 2] = [
    "external-dns.alpha.kubernetes.io/",
    "external-dns.kubernetes.io/",
];

/// The prefixes whose annotations count under these rules (SPEC §2.1).
pub fn prefixes(rules: &RuleSet) -> impl Iterator<Item = &str> {
    let configured = rules.annotation_prefix.as_deref();
    let standard = STANDARD_PREFIXES.iter().copied();
    configured
        .into_iter()
        .chain(standard.filter(move |_| configured.is_none()))
}

/// `metadata.annotations`, when it is a mapping.
pub fn map<'n, 'a>(object: &'n Node<'a>) -> Option<&'n Object<'a>> {
    crate::path::at(object, &["metadata", "annotations"])?.as_object()
}

/// `metadata.annotations[key]` as a string.
pub fn get<'n>(object: &'n Node<'_>, key: &str) -> Option<&'n str> {
    map(object)?.get(key)?.as_str()
}

/// `metadata.annotations["<prefix><name>"]` as a string, found without building the key.
pub fn get_prefixed<'n>(object: &'n Node<'_>, prefix: &str, name: &str) -> Option<&'n str> {
    let (_, value) = map(object)?
        .iter()
        .find(|(key, _)| key.strip_prefix(prefix) == Some(name))?;
    value.as_str()
}

/// The field path of an annotation.
pub fn field(key: &str) -> String {
    format!("metadata.annotations[{key:?}]")
}

/// The field path of the annotation `<prefix><name>`.
pub fn field_of(prefix: &str, name: &str) -> String {
    field(&format!("{prefix}{name}"))
}

/// One item of a comma-separated hostname annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    pub index: usize,
    /// The item as the user wrote it.
    pub raw: String,
    /// The item as external-dns reads it (every ASCII space deleted).
    pub name: String,
    /// The item had a space between non-space characters.
    pub interior_space: bool,
}

/// external-dns's `SplitHostnameAnnotation`: delete spaces, trim, split on `,`.
pub fn split_hostnames(value: &str) -> Vec<ListItem> {
    let cleaned = value.replace(' ', "");
    let cleaned = cleaned.trim();
    let raws: Vec<&str> = value.split(',').collect();
    cleaned
        .split(',')
        .enumerate()
        .map(|(index, name)| {
            let raw = raws.get(index).copied().unwrap_or(name).trim();
            ListItem {
                index,
                raw: raw.to_string(),
                name: name.to_string(),
                interior_space: raw.contains(' '),
            }
        })
        .collect()
}

/// external-dns's TTL annotation parse: `Ok(seconds)` or why it would be ignored.
pub fn parse_ttl(text: &str) -> Result<i64, &'static str> {
    let seconds = match go_duration_seconds(text) {
        Some(s) => s,
        None => parse_go_int(text)
            .ok_or("it is neither a Go duration (10m, 1h30m) nor a whole number of seconds")?,
    };
    if (1..=i64::from(i32::MAX)).contains(&seconds) {
        Ok(seconds)
    } else {
        Err("it is outside 1..2147483647 seconds")
    }
}

/// `strconv.ParseInt(s, 10, 64)`.
fn parse_go_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.strip_prefix('+').unwrap_or(text).parse().ok()
}

/// Go's `time.ParseDuration(s)` truncated to whole seconds, as `int64(d.Seconds())`.
fn go_duration_seconds(text: &str) -> Option<i64> {
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
    let mut nanos: u128 = 0;
    while !rest.is_empty() {
        let (amount, after) = duration_term(rest)?;
        nanos = nanos.checked_add(amount)?;
        rest = after;
    }
    if nanos > 1u128 << 63 || (!negative && nanos == 1u128 << 63) {
        return None;
    }
    let seconds = i64::try_from(nanos / 1_000_000_000).ok()?;
    Some(if negative { -seconds } else { seconds })
}

/// One `<number><unit>` term in nanoseconds, and the text after it.
fn duration_term(text: &str) -> Option<(u128, &str)> {
    let int_len = text.bytes().take_while(u8::is_ascii_digit).count();
    let (int_part, rest) = text.split_at(int_len);
    let (frac_part, rest) = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            r.split_at(n)
        }
        None => ("", rest),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let unit_len = rest
        .find(|c: char| c == '.' || c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (unit, rest) = rest.split_at(unit_len);
    let scale: u128 = match unit {
        "ns" => 1,
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    };
    let whole: u128 = if int_part.is_empty() {
        0
    } else {
        int_part.parse().ok()?
    };
    let mut amount = whole.checked_mul(scale)?;
    if !frac_part.is_empty() {
        let digits = &frac_part[..frac_part.len().min(30)];
        let frac: u128 = digits.parse().ok()?;
        amount = amount
            .checked_add(frac.checked_mul(scale)? / 10u128.checked_pow(digits.len() as u32)?)?;
    }
    Some((amount, rest))
}

/// What a `…-hostname-source` annotation tells external-dns to publish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostnameSource {
    Both,
    DefinedHostsOnly,
    AnnotationOnly,
}

impl HostnameSource {
    /// Parses the value as external-dns compares it (lower-cased); `None` for any other value.
    pub fn parse(value: Option<&str>) -> Option<Self> {
        match value.map(str::to_lowercase).as_deref() {
            None | Some("") => Some(Self::Both),
            Some("defined-hosts-only") => Some(Self::DefinedHostsOnly),
            Some("annotation-only") => Some(Self::AnnotationOnly),
            Some(_) => None,
        }
    }

    pub fn defined_hosts(self) -> bool {
        self != Self::AnnotationOnly
    }

    pub fn annotation(self) -> bool {
        self != Self::DefinedHostsOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_annotation_is_found_by_prefix_and_name_as_a_string() {
        let object = serde_json::json!({"metadata": {"annotations": {
            "external-dns.alpha.kubernetes.io/hostname": "a.example.com",
            "external-dns.alpha.kubernetes.io/hostnames": "b.example.com",
            "external-dns.alpha.kubernetes.io/ttl": 60,
        }}});
        let object = Node::from(&object);
        let p = STANDARD_PREFIXES[0];
        let table = [
            (p, "hostname", Some("a.example.com")),
            (p, "ttl", None), // not a string
            (p, "host", None),
            (STANDARD_PREFIXES[1], "hostname", None),
        ];
        for (prefix, name, want) in table {
            assert_eq!(get_prefixed(&object, prefix, name), want, "{prefix}{name}");
        }
        assert_eq!(
            get_prefixed(&Node::from(&serde_json::json!({})), p, "hostname"),
            None
        );
    }

    #[test]
    fn the_configured_prefix_replaces_the_standard_ones() {
        let standard = RuleSet::parse("r", "domainFilters: [example.com]").expect("rules");
        let own = RuleSet::parse("r", "domainFilters: [example.com]\nannotationPrefix: x.io/")
            .expect("rules");
        assert_eq!(prefixes(&standard).collect::<Vec<_>>(), STANDARD_PREFIXES);
        assert_eq!(prefixes(&own).collect::<Vec<_>>(), ["x.io/"]);
    }

    #[test]
    fn ttl_values_external_dns_accepts_give_whole_seconds() {
        for (text, want) in [
            ("600", 600),
            ("+60", 60),
            ("10m", 600),
            ("1h30m", 5400),
            ("20.5s", 20),
            (".5m", 30),
            ("2147483647", 2147483647),
            ("1h0.5s", 3600),
            ("1000ms", 1),
        ] {
            assert_eq!(parse_ttl(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn ttl_values_external_dns_silently_ignores_are_errors() {
        for text in [
            "0",
            "500ms",
            "-1",
            "1d",
            " 60",
            "1e3",
            "60S",
            "",
            "2147483648",
            "-5m",
            "1_000",
            "m",
            ".s",
            "9999999999999999999h",
        ] {
            assert!(parse_ttl(text).is_err(), "{text:?} should be refused");
        }
    }

    #[test]
    fn hostname_lists_lose_spaces_and_remember_interior_ones() {
        let items = split_hostnames(" a.example.com, b c.example.com ,,d.example.com ");
        let names: Vec<_> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            ["a.example.com", "bc.example.com", "", "d.example.com"]
        );
        let interior: Vec<_> = items.iter().map(|i| i.interior_space).collect();
        assert_eq!(interior, [false, true, false, false]);
        assert_eq!(items[1].raw, "b c.example.com");
    }

    #[test]
    fn hostname_source_values_compare_lower_cased() {
        assert_eq!(
            HostnameSource::parse(Some("Annotation-Only")),
            Some(HostnameSource::AnnotationOnly)
        );
        assert_eq!(HostnameSource::parse(None), Some(HostnameSource::Both));
        assert_eq!(HostnameSource::parse(Some("annotations-only")), None);
    }
}
