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
/// (any group), one edit away from a checked kind of the same group, or a checked kind under
/// another of the checked kinds' API groups (`apiVersion: v1` on an Ingress), which serves no
/// such kind.
pub fn misspelt(group: &str, kind: &str) -> Option<String> {
    misnamed(group, kind).or_else(|| misgrouped(group, kind))
}

fn misnamed(group: &str, kind: &str) -> Option<String> {
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

/// A checked kind's name under an API group of the checked kinds that serves no such kind:
/// the API server refuses the object, and zoneguard would pass it as skipped.
fn misgrouped(group: &str, kind: &str) -> Option<String> {
    if !CHECKED.iter().any(|(g, _)| *g == group) {
        return None; // another project's kind of the same name (Knative's Service, Istio's Gateway)
    }
    let (meant, _) = CHECKED.iter().find(|(g, k)| *k == kind && *g != group)?;
    let named = |g: &str| match g {
        "" => "the core API group (apiVersion: v1)".to_string(),
        g => format!("the API group {g}"),
    };
    Some(format!(
        "kind {kind} is not served in {}, so the API server refuses this object, and zoneguard did not check it; {kind} is in {}",
        named(group),
        named(meant)
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

    #[test]
    fn a_checked_kind_under_another_checked_kind_s_api_group_is_named() {
        let table = [
            ("", "Ingress", Some("the API group networking.k8s.io")),
            (
                "networking.k8s.io",
                "Service",
                Some("the core API group (apiVersion: v1)"),
            ),
            (
                "gateway.networking.k8s.io",
                "DNSEndpoint",
                Some("the API group externaldns.k8s.io"),
            ),
            ("serving.knative.dev", "Service", None),
            ("networking.istio.io", "Gateway", None),
        ];
        for (group, kind, want) in table {
            let got = misgrouped(group, kind);
            assert_eq!(got.is_some(), want.is_some(), "{group}/{kind}: {got:?}");
            if let (Some(got), Some(want)) = (got, want) {
                assert!(got.ends_with(&format!("{kind} is in {want}")), "{got}");
            }
        }
    }
}
