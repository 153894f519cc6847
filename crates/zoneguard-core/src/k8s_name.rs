//! Kubernetes object names: the DNS label rules that namespaces and Services follow.

/// The longest a label may be.
pub const MAX_LABEL: usize = 63;

/// A DNS-1123 label, as a namespace name is: 1 to 63 lower-case letters, digits and '-',
/// starting and ending with a letter or digit.
pub fn is_dns1123_label(name: &str) -> bool {
    is_label(name, is_lower_alphanumeric)
}

/// A DNS-1035 label, as a Service name is: a DNS-1123 label that starts with a letter.
pub fn is_dns1035_label(name: &str) -> bool {
    is_label(name, u8::is_ascii_lowercase)
}

/// A label value, as `kubernetes.io/ingress.class` holds and external-dns's `--ingress-class`
/// must be: empty, or 1 to 63 letters, digits, '-', '_' and '.', starting and ending with a
/// letter or digit.
pub fn is_label_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.is_empty()
        || (bytes.len() <= MAX_LABEL
            && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')))
}

/// A DNS-1123 subdomain, as a label key's prefix is: at most 253 octets of dot-separated
/// lower-case alphanumerics with inner dashes. As in apimachinery, no label length is checked.
pub fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && name
            .split('.')
            .all(|label| is_label_shaped(label, is_lower_alphanumeric))
}

/// A qualified name, as a label or annotation key is: an optional DNS-1123 subdomain prefix
/// and '/', then a name of 1 to 63 letters, digits, '-', '_' and '.', starting and ending with
/// a letter or digit (apimachinery's `IsQualifiedName`).
pub fn is_qualified_name(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        None => (None, key),
        Some((prefix, name)) => (Some(prefix), name),
    };
    !name.is_empty()
        && is_label_value(name)
        && prefix.is_none_or(|p| !p.is_empty() && is_dns1123_subdomain(p))
}

fn is_label(name: &str, first: impl Fn(&u8) -> bool) -> bool {
    name.len() <= MAX_LABEL && is_label_shaped(name, first)
}

/// Lower-case letters, digits and inner '-', at least one, the first one passing `first`; of
/// any length.
fn is_label_shaped(name: &str, first: impl Fn(&u8) -> bool) -> bool {
    let bytes = name.as_bytes();
    bytes.first().is_some_and(first)
        && bytes.last().is_some_and(is_lower_alphanumeric)
        && bytes.iter().all(|b| is_lower_alphanumeric(b) || *b == b'-')
}

fn is_lower_alphanumeric(b: &u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_lower_case_alphanumerics_and_inner_dashes_and_1035_starts_with_a_letter() {
        let long = "a".repeat(63);
        let too_long = "a".repeat(64);
        let table: &[(&str, bool, bool)] = &[
            ("zoneguard", true, true),
            ("zone-guard-2", true, true),
            ("2fast", true, false),
            ("0", true, false),
            (&long, true, true),
            (&too_long, false, false),
            ("", false, false),
            ("Zoneguard", false, false),
            ("zone_guard", false, false),
            ("zone.guard", false, false),
            ("-zoneguard", false, false),
            ("zoneguard-", false, false),
            ("zöneguard", false, false),
        ];
        for (name, dns1123, dns1035) in table {
            assert_eq!(is_dns1123_label(name), *dns1123, "{name:?}");
            assert_eq!(is_dns1035_label(name), *dns1035, "{name:?}");
        }
    }

    #[test]
    fn qualified_names_are_a_name_with_an_optional_subdomain_prefix() {
        let long_name = format!("example.com/{}", "a".repeat(64));
        let long_prefix = format!("{}/a", vec!["a".repeat(63); 4].join("."));
        // apimachinery bounds the prefix, not its labels.
        let long_label_prefix = format!("{}.com/a", "a".repeat(64));
        let table: &[(&str, bool)] = &[
            ("team", true),
            ("App.Name_v2", true),
            ("example.com/team", true),
            ("external-dns.alpha.kubernetes.io/hostname", true),
            ("", false),
            ("example.com/", false),
            ("/team", false),
            ("a/b/c", false),
            ("Example.com/team", false),
            ("-example.com/team", false),
            ("example-.com/team", false),
            ("example..com/team", false),
            ("example.com/-team", false),
            ("team_", false),
            ("te am", false),
            (&long_name, false),
            (&long_prefix, false),
            (&long_label_prefix, true),
        ];
        for (key, want) in table {
            assert_eq!(is_qualified_name(key), *want, "{key:?}");
        }
    }

    #[test]
    fn label_values_may_be_empty_or_mix_case_dots_and_underscores_inside() {
        let long = "A".repeat(63);
        let too_long = "A".repeat(64);
        let table: &[(&str, bool)] = &[
            ("", true),
            ("nginx", true),
            ("Public_Nginx.v2", true),
            ("2", true),
            (&long, true),
            (&too_long, false),
            ("-nginx", false),
            ("nginx.", false),
            ("ng inx", false),
            ("ngïnx", false),
            ("a/b", false),
        ];
        for (value, want) in table {
            assert_eq!(is_label_value(value), *want, "{value:?}");
        }
    }
}
