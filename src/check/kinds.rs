//! The kinds zoneguard checks, and a hint when a skipped object's kind looks like a misspelling
//! of one of them (`kind: HTTProute` would otherwise pass as "skipped").

use zoneguard_core::suggest::edit_distance;

/// Every (API group, kind) zoneguard checks, as `zoneguard_core::source::Kind::of` reads them.
const CHECKED: [(&str, &str); 12] = [
    ("networking.k8s.io", "Ingress"),
    ("extensions", "Ingress"),
    ("", "Service"),
    ("", "ServiceAccount"),
    ("gateway.networking.k8s.io", "HTTPRoute"),
    ("gateway.networking.k8s.io", "GRPCRoute"),
    ("gateway.networking.k8s.io", "TLSRoute"),
    ("gateway.networking.k8s.io", "TCPRoute"),
    ("gateway.networking.k8s.io", "UDPRoute"),
    ("gateway.networking.k8s.io", "Gateway"),
    ("gateway.networking.k8s.io", "ListenerSet"),
    ("externaldns.k8s.io", "DNSEndpoint"),
];

/// A warning when the skipped kind `kind` of `group` is a checked kind written in other case
/// (any group), or one edit away from a checked kind of the same group.
pub fn misspelt(group: &str, kind: &str) -> Option<String> {
    let lower = kind.to_ascii_lowercase();
    let one_edit = |other: &str| {
        // The length alone rules out most, and a long kind costs nothing.
        other.chars().count().abs_diff(lower.chars().count()) <= 1
            && edit_distance(other, &lower) <= 1
    };
    let (_, meant) = CHECKED.iter().find(|(g, k)| {
        let other = k.to_ascii_lowercase();
        (*k != kind && other == lower) || (*g == group && one_edit(&other))
    })?;
    Some(format!(
        "kind {kind} is not a kind zoneguard checks; did you mean {meant}?"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoneguard_core::source::Kind;

    #[test]
    fn every_kind_listed_is_one_the_core_checks() {
        for (group, kind) in CHECKED {
            assert!(Kind::of(group, kind).is_some(), "{group}/{kind}");
        }
    }

    #[test]
    fn a_kind_one_edit_or_a_case_away_from_a_checked_one_is_named() {
        let gw = "gateway.networking.k8s.io";
        let table = [
            (gw, "HTTProute", Some("HTTPRoute")),
            (gw, "HTTPRoutes", Some("HTTPRoute")),
            (gw, "HTTPRoue", Some("HTTPRoute")),
            ("networking.k8s.io", "Ingres", Some("Ingress")),
            ("", "service", Some("Service")),
            ("", "Servic", Some("Service")),
            ("example.com", "ingress", Some("Ingress")),
            // Other groups' kinds of the same name are other kinds.
            ("serving.knative.dev", "Service", None),
            ("networking.istio.io", "Gateway", None),
            ("example.com", "Ingres", None),
            ("apps", "Deployment", None),
            ("", "ConfigMap", None),
            (gw, "ReferenceGrant", None),
            (gw, "HTTPRouteX2", None),
        ];
        for (group, kind, want) in table {
            let got = misspelt(group, kind);
            let want = want
                .map(|w| format!("kind {kind} is not a kind zoneguard checks; did you mean {w}?"));
            assert_eq!(got, want, "{group}/{kind}");
        }
    }
}
