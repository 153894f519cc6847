//! Hostname checks beyond the domain filters (SPEC §2.2): DNS syntax and TXT ownership length.

use crate::rules::TxtRegistry;

/// The longest record type external-dns may write a TXT ownership record for.
const LONGEST_TYPE: &str = "cname";

/// Why a name is not a DNS name external-dns can publish as written.
pub fn syntax_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!("it contains the character {c:?}"));
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '/' | ':' | '@')) {
        return Some(format!(
            "it contains {c:?} (a URL or an address, not a host name)"
        ));
    }
    let trimmed = name.strip_suffix('.').unwrap_or(name);
    let ascii = match to_ascii(trimmed) {
        Ok(a) => a,
        Err(why) => return Some(why),
    };
    if ascii.len() > 253 {
        return Some(format!(
            "it is {} octets long; a DNS name has at most 253",
            ascii.len()
        ));
    }
    ascii
        .split('.')
        .enumerate()
        .find_map(|(i, label)| label_problem(i, label))
}

fn label_problem(index: usize, label: &str) -> Option<String> {
    if label.is_empty() {
        return Some("it has an empty label (two dots in a row, or a dot at an end)".into());
    }
    if label == "*" {
        return (index != 0).then(|| "'*' is allowed only as the whole leftmost label".to_string());
    }
    if label.len() > 63 {
        return Some(format!(
            "its label {label:?} is {} octets long; a label has at most 63",
            label.len()
        ));
    }
    if let Some(c) = label
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return Some(format!(
            "its label {label:?} contains {c:?}; labels hold only letters, digits and '-'"
        ));
    }
    if label.starts_with('-') || label.ends_with('-') {
        return Some(format!("its label {label:?} starts or ends with '-'"));
    }
    None
}

/// UTS-46 ASCII form of a name (labels already ASCII stay as they are, lower-cased).
pub fn to_ascii(name: &str) -> Result<String, String> {
    if name.is_ascii()
        && !name
            .split('.')
            .any(|l| l.len() > 4 && l[..4].eq_ignore_ascii_case("xn--"))
    {
        return Ok(name.to_ascii_lowercase());
    }
    let labels: Result<Vec<String>, String> = name
        .split('.')
        .map(|label| {
            if label == "*" || label.is_empty() {
                return Ok(label.to_string());
            }
            idna::domain_to_ascii(label).map_err(|_| {
                format!("its label {label:?} is not a valid internationalised (IDN) label")
            })
        })
        .collect();
    labels.map(|l| l.join("."))
}

/// The TXT ownership name external-dns would write for `name` (SPEC §7.6), assuming the
/// longest record type, when one of its labels would exceed 63 octets.
pub fn txt_problem(name: &str, registry: &TxtRegistry) -> Option<String> {
    let ascii = to_ascii(name.strip_suffix('.').unwrap_or(name)).ok()?;
    let txt = txt_name(&ascii, registry);
    let first = txt.split('.').find(|l| l.len() > 63)?;
    let over = first.len() - 63;
    Some(format!(
        "external-dns's TXT ownership record for it would be {txt:?}, whose label {first:?} is {} octets (at most 63); the record could not be written and external-dns would not own the name: shorten the first label by {over} or more",
        first.len()
    ))
}

/// external-dns's `toTXTName` for the longest record type.
pub fn txt_name(name: &str, registry: &TxtRegistry) -> String {
    let (first, rest) = match name.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (name, None),
    };
    let typed =
        registry.prefix.contains("%{record_type}") || registry.suffix.contains("%{record_type}");
    let prefix = registry.prefix.replace("%{record_type}", LONGEST_TYPE);
    let suffix = registry.suffix.replace("%{record_type}", LONGEST_TYPE);
    let mut label = if first == "*" && !registry.wildcard_replacement.is_empty() {
        registry.wildcard_replacement.clone()
    } else {
        first.to_string()
    };
    if !typed {
        label = format!("{LONGEST_TYPE}-{label}");
    }
    match rest {
        Some(rest) => format!("{prefix}{label}{suffix}.{rest}"),
        None => format!("{prefix}{label}{suffix}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_have_no_syntax_problem() {
        for name in [
            "example.com",
            "a.example.com.",
            "*.example.com",
            "x-1.example.com",
            "bücher.example.com",
            "xn--bcher-kva.example.com",
            "EXAMPLE.com",
        ] {
            assert_eq!(syntax_problem(name), None, "{name}");
        }
    }

    #[test]
    fn invalid_names_say_what_is_wrong() {
        let table = [
            ("a..example.com", "empty label"),
            ("example.com..", "empty label"),
            ("a.*.example.com", "leftmost"),
            ("a_b.example.com", "'_'"),
            ("-a.example.com", "starts or ends"),
            ("a b.example.com", "' '"),
            ("https://example.com", "':'"),
            ("user@example.com", "'@'"),
            ("", "empty"),
        ];
        for (name, needle) in table {
            let problem = syntax_problem(name).unwrap_or_default();
            assert!(problem.contains(needle), "{name}: {problem}");
        }
        let long_label = format!("{}.example.com", "a".repeat(64));
        assert!(syntax_problem(&long_label)
            .unwrap_or_default()
            .contains("at most 63"));
        let long_name = format!("{}example.com", "abcdefghi.".repeat(25));
        assert!(syntax_problem(&long_name)
            .unwrap_or_default()
            .contains("at most 253"));
    }

    #[test]
    fn txt_names_follow_external_dns_affix_rules() {
        let plain = TxtRegistry::default();
        assert_eq!(txt_name("a.example.com", &plain), "cname-a.example.com");
        let r = TxtRegistry {
            prefix: "p-".into(),
            suffix: "-s".into(),
            wildcard_replacement: "wild".into(),
        };
        assert_eq!(txt_name("*.example.com", &r), "p-cname-wild-s.example.com");
        let typed = TxtRegistry {
            prefix: "%{record_type}.".into(),
            ..Default::default()
        };
        assert_eq!(txt_name("a.example.com", &typed), "cname.a.example.com");
    }

    #[test]
    fn a_first_label_that_leaves_no_room_for_the_txt_prefix_is_reported() {
        let name = format!("{}.example.com", "a".repeat(58));
        assert!(txt_problem(&name, &TxtRegistry::default()).is_some());
        let fits = format!("{}.example.com", "a".repeat(57));
        assert_eq!(txt_problem(&fits, &TxtRegistry::default()), None);
    }
}
