//! Kubernetes object names: the DNS label rules that namespaces and Services follow.

/// The longest a label may be.
pub const MAX_LABEL: usize = 63;

/// A DNS-1123 label, as a namespace name is: 1 to 63 lower-case letters, digits and '-',
/// starting and ending with a letter or digit.
pub fn is_dns1123_label(name: &str) -> bool {
    is_label(name, |b| b.is_ascii_lowercase() || b.is_ascii_digit())
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

fn is_label(name: &str, first: impl Fn(&u8) -> bool) -> bool {
    let alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = name.as_bytes();
    bytes.len() <= MAX_LABEL
        && bytes.first().is_some_and(first)
        && bytes.last().is_some_and(alphanumeric)
        && bytes.iter().all(|b| alphanumeric(b) || *b == b'-')
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
