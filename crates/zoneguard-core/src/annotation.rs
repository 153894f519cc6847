//! external-dns annotations: prefixes, hostname lists, TTLs and hostname-source values.

use crate::rules::RuleSet;
use crate::tree::{Node, Object};

/// The prefixes external-dns reads by default: ≥ v0.22.0, and older versions / Helm values.
pub const STANDARD_PREFIXES: [&str; 2] = [
    "external-dns.alpha.kubernetes.io/",
    "external-dns.kubernetes.io/",
];

/// The prefixes whose annotations count under these rules.
pub fn prefixes(rules: &RuleSet) -> impl Iterator<Item = &str> {
    let configured = rules.annotation_prefix.as_deref();
    let standard = STANDARD_PREFIXES.iter().copied();
    configured
        .into_iter()
        .chain(standard.filter(move |_| configured.is_none()))
}

/// The value of external-dns's `<prefix>controller` annotation that leaves an object to
/// external-dns; any other value, the empty one included, makes external-dns skip the object.
pub const CONTROLLER_VALUE: &str = "dns-controller";

/// external-dns's `IsControllerMismatch` for an Ingress, a Service or a route: the value of
/// `<prefix>controller` when it is there and names another controller, so that an external-dns
/// reading `prefix` skips the whole object.
pub fn foreign_controller<'n>(object: &'n Node<'_>, prefix: &str) -> Option<&'n str> {
    get_prefixed(object, prefix, "controller").filter(|v| *v != CONTROLLER_VALUE)
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
    /// The item as written, cut where external-dns cuts it: without the spaces at its ends, nor
    /// the white space at the ends of the whole value; interior spaces and any other white space
    /// (a tab after a comma) kept.
    pub raw: String,
    /// The item as external-dns reads it (every ASCII space deleted).
    pub name: String,
    /// The item had a space between non-space characters.
    pub interior_space: bool,
}

/// external-dns's `SplitHostnameAnnotation`: delete ASCII spaces, trim white space, split on `,`.
pub fn split_hostnames(value: &str) -> Vec<ListItem> {
    let cleaned = value.replace(' ', "");
    let cleaned = cleaned.trim();
    // Deleting spaces and trimming keeps every comma, so the items line up with the value's.
    let last = value.bytes().filter(|b| *b == b',').count();
    cleaned
        .split(',')
        .zip(value.split(','))
        .enumerate()
        .map(|(index, (name, raw))| {
            let mut raw = raw.trim_matches(' ');
            if index == 0 {
                raw = raw.trim_start();
            }
            if index == last {
                raw = raw.trim_end();
            }
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
pub(crate) fn parse_go_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.strip_prefix('+').unwrap_or(text).parse().ok()
}

/// Go's `time.ParseDuration(s)`, then `int64(d.Seconds())`: `Seconds` adds the rest over 1e9 in
/// float64, so the rounding at the edges (`2147483647.999999999s` is 2147483648 seconds to Go)
/// is Go's.
fn go_duration_seconds(text: &str) -> Option<i64> {
    let nanos = crate::duration::parse_nanos(text)?;
    let seconds = (nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 / 1e9;
    Some(seconds as i64)
}

/// Go's `strings.ToLower`: each character's simple lower case, so `İ` (U+0130) becomes `i`,
/// where Rust's `to_lowercase` writes `i` and a combining dot.
pub(crate) fn go_to_lower(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{130}' => 'i',
            c => c.to_lowercase().next().unwrap_or(c),
        })
        .collect()
}

/// What a `…-hostname-source` annotation tells external-dns to publish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostnameSource {
    Both,
    DefinedHostsOnly,
    AnnotationOnly,
}

impl HostnameSource {
    /// Parses the value as external-dns compares it (Go's `strings.ToLower`): no annotation is
    /// `Both`; any value but the two, the empty one included, is `None`.
    pub fn parse(value: Option<&str>) -> Option<Self> {
        let Some(value) = value else {
            return Some(Self::Both);
        };
        match go_to_lower(value).as_str() {
            "defined-hosts-only" => Some(Self::DefinedHostsOnly),
            "annotation-only" => Some(Self::AnnotationOnly),
            _ => None,
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
    fn only_a_controller_annotation_naming_another_controller_makes_external_dns_skip() {
        let p = "external-dns.alpha.kubernetes.io/";
        let table = [
            (serde_json::json!({}), None),
            (serde_json::json!({"other.io/controller": "x"}), None),
            (
                serde_json::json!({"external-dns.alpha.kubernetes.io/controller": "dns-controller"}),
                None,
            ),
            (
                serde_json::json!({"external-dns.alpha.kubernetes.io/controller": "nginx"}),
                Some("nginx"),
            ),
            (
                serde_json::json!({"external-dns.alpha.kubernetes.io/controller": ""}),
                Some(""),
            ),
            (
                serde_json::json!({"external-dns.alpha.kubernetes.io/controller": "DNS-Controller"}),
                Some("DNS-Controller"),
            ),
            (
                serde_json::json!({"external-dns.alpha.kubernetes.io/controller": " dns-controller"}),
                Some(" dns-controller"),
            ),
        ];
        for (annotations, want) in table {
            let object = serde_json::json!({"metadata": {"annotations": annotations}});
            assert_eq!(
                foreign_controller(&Node::from(&object), p),
                want,
                "{annotations}"
            );
        }
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
            // Go drops the fraction's digits past 63 bits, and its float64 rounds up to 2.
            ("1.999999999999999999999999999999s", 2),
            ("0.123456789012345678901234567890h", 444),
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
            // Go's float64 seconds round these up to 2147483648.
            "2147483647.999999999s",
            "35791394m7.9999999999s",
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
    fn hostname_list_items_are_shown_as_external_dns_uses_them() {
        // external-dns deletes ASCII spaces, trims the whole value, then splits: a tab after a
        // comma stays in the name, a tab at either end of the value does not.
        let table = [
            (
                "a.example.com,\tb.example.com",
                1,
                "\tb.example.com",
                "\tb.example.com",
            ),
            (
                "\t a.example.com,b.example.com",
                0,
                "a.example.com",
                "a.example.com",
            ),
            (
                "a.example.com,b.example.com \n",
                1,
                "b.example.com",
                "b.example.com",
            ),
            (
                "a.example.com\t,b.example.com",
                0,
                "a.example.com\t",
                "a.example.com\t",
            ),
            (" a b.example.com ", 0, "a b.example.com", "ab.example.com"),
            ("a.example.com\u{a0}", 0, "a.example.com", "a.example.com"),
        ];
        for (value, index, raw, name) in table {
            let items = split_hostnames(value);
            assert_eq!(items[index].raw, raw, "{value:?}");
            assert_eq!(items[index].name, name, "{value:?}");
        }
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

    #[test]
    fn hostname_source_values_are_lower_cased_as_go_does_and_empty_is_invalid() {
        let table = [
            (None, Some(HostnameSource::Both)),
            (Some(""), None),
            (
                Some("DEFINED-HOSTS-ONLY"),
                Some(HostnameSource::DefinedHostsOnly),
            ),
            // Go lower-cases U+0130 to a plain `i`.
            (
                Some("ANNOTAT\u{130}ON-ONLY"),
                Some(HostnameSource::AnnotationOnly),
            ),
            (
                Some("DEF\u{130}NED-HOSTS-ONLY"),
                Some(HostnameSource::DefinedHostsOnly),
            ),
            (Some(" annotation-only"), None),
        ];
        for (value, want) in table {
            assert_eq!(HostnameSource::parse(value), want, "{value:?}");
        }
    }
}
