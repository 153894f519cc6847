//! The Service annotations of the tools external-dns's `--compatibility` stands in for (its
//! `compatibility.go`): read only when a Service yields no name of its own.

use super::{Extracted, Field};
use crate::rules::Compatibility;
use crate::tree::Node;

const MATE: &str = "zalando.org/dnsname";
const MOLECULE: &str = "domainName";
const KOPS_EXTERNAL: &str = "dns.alpha.kubernetes.io/external";
const KOPS_INTERNAL: &str = "dns.alpha.kubernetes.io/internal";

/// The legacy names `mode` reads from a Service of type `ty`: the ones external-dns publishes
/// once the Service has its targets (a load balancer's address; nodes for kops's NodePort).
pub(super) fn names(mode: Compatibility, ty: &str, object: &Node<'_>, out: &mut Extracted) {
    let get = |key: &str| crate::annotation::get(object, key);
    match (mode, ty) {
        (Compatibility::Mate, "LoadBalancer") => {
            if let Some(name) = get(MATE) {
                out.legacy(MATE, name, false);
            }
        }
        (Compatibility::Molecule, "LoadBalancer") => {
            let labels = crate::path::at(object, &["metadata", "labels", "dns"]);
            if labels.and_then(Node::as_str) == Some("route53") {
                if let Some(names) = get(MOLECULE) {
                    out.legacy(MOLECULE, names, true);
                }
            }
        }
        (Compatibility::KopsDnsController, "LoadBalancer" | "NodePort") => {
            let (external, internal) = (get(KOPS_EXTERNAL), get(KOPS_INTERNAL));
            // A NodePort Service with both is published under neither.
            if ty == "NodePort" && external.is_some() && internal.is_some() {
                return;
            }
            for (key, names) in [(KOPS_EXTERNAL, external), (KOPS_INTERNAL, internal)] {
                if let Some(names) = names {
                    out.legacy(key, names, true);
                }
            }
        }
        _ => {}
    }
}

/// Whether `object` carries one of the annotations `mode` reads, whatever its type and
/// labels: it then asks external-dns for names.
pub(super) fn carries(mode: Compatibility, object: &Node<'_>) -> bool {
    let keys: &[&str] = match mode {
        Compatibility::Mate => &[MATE],
        Compatibility::Molecule => &[MOLECULE],
        Compatibility::KopsDnsController => &[KOPS_EXTERNAL, KOPS_INTERNAL],
    };
    keys.iter()
        .any(|key| crate::annotation::get(object, key).is_some())
}

impl Extracted {
    /// The names of the legacy annotation `key`: the whole value, or with `split` its ASCII
    /// spaces deleted and the rest cut at commas (no trimming, unlike external-dns's own
    /// hostname annotation).
    fn legacy(&mut self, key: &str, value: &str, split: bool) {
        let item = |index| Field::AnnotationItem {
            key: key.to_string(),
            index,
        };
        if !split {
            return self.spec_field(item(0), value);
        }
        for (index, name) in value.replace(' ', "").split(',').enumerate() {
            self.spec_field(item(index), name);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;
    use crate::source::{extract, Kind};
    use crate::tree::Node;
    use serde_json::{json, Value};

    /// The names checked on a Service of `ty` with `labels` and `annotations` under `mode`.
    fn names(mode: &str, ty: &str, labels: Value, annotations: Value) -> Vec<String> {
        let text = format!("sources: {{compatibility: {mode}}}");
        let rules = RuleSet::parse("r", &text).expect("rules");
        let svc = json!({"metadata": {"name": "s", "labels": labels, "annotations": annotations},
                         "spec": {"type": ty, "ports": [{"port": 80}]}});
        let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
        out.candidates
            .into_iter()
            .filter(|c| !c.name.starts_with('_'))
            .map(|c| format!("{} {}", c.field, c.name))
            .collect()
    }

    #[test]
    fn each_mode_reads_its_tool_s_annotations_as_external_dns_does() {
        let mate = json!({"zalando.org/dnsname": "m.example.com"});
        let molecule = json!({"domainName": " a.example.com , b.example.com"});
        let route53 = json!({"dns": "route53"});
        let ext = "dns.alpha.kubernetes.io/external";
        let int = "dns.alpha.kubernetes.io/internal";
        let kops = json!({ext: "k1.example.com,k2.example.com", int: "ki.example.com"});
        let m = |k: &str, i: usize, n: &str| format!(r#"metadata.annotations["{k}"][{i}] {n}"#);
        // (mode, type, labels, annotations, names)
        let cases: Vec<(&str, &str, Value, Value, Vec<String>)> = vec![
            (
                "mate",
                "LoadBalancer",
                json!({}),
                mate.clone(),
                vec![m("zalando.org/dnsname", 0, "m.example.com")],
            ),
            ("mate", "NodePort", json!({}), mate.clone(), vec![]),
            (
                "molecule",
                "LoadBalancer",
                route53.clone(),
                molecule.clone(),
                vec![
                    m("domainName", 0, "a.example.com"),
                    m("domainName", 1, "b.example.com"),
                ],
            ),
            (
                "molecule",
                "LoadBalancer",
                json!({}),
                molecule.clone(),
                vec![],
            ),
            (
                "kops-dns-controller",
                "LoadBalancer",
                json!({}),
                kops.clone(),
                vec![
                    m(ext, 0, "k1.example.com"),
                    m(ext, 1, "k2.example.com"),
                    m(int, 0, "ki.example.com"),
                ],
            ),
            (
                "kops-dns-controller",
                "NodePort",
                json!({}),
                kops.clone(),
                vec![],
            ),
            (
                "kops-dns-controller",
                "NodePort",
                json!({}),
                json!({int: "ki.example.com"}),
                vec![m(int, 0, "ki.example.com")],
            ),
            (
                "kops-dns-controller",
                "ClusterIP",
                json!({}),
                kops.clone(),
                vec![],
            ),
            ("mate", "LoadBalancer", json!({}), kops.clone(), vec![]),
        ];
        for (mode, ty, labels, annotations, want) in cases {
            assert_eq!(
                names(mode, ty, labels, annotations.clone()),
                want,
                "{mode} {ty} {annotations}"
            );
        }
    }

    #[test]
    fn legacy_names_are_read_only_where_a_prefix_gives_the_service_no_name_of_its_own() {
        let kops = "dns.alpha.kubernetes.io/external";
        let legacy = |annotations: Value| {
            names(
                "kops-dns-controller",
                "LoadBalancer",
                json!({}),
                annotations,
            )
            .iter()
            .any(|n| n.contains("k.example.com"))
        };
        let alpha = "external-dns.alpha.kubernetes.io/hostname";
        let new = "external-dns.kubernetes.io/hostname";
        assert!(legacy(json!({kops: "k.example.com"})));
        // The external-dns reading the other prefix finds no name and falls back.
        assert!(legacy(
            json!({kops: "k.example.com", alpha: "h.example.com"})
        ));
        assert!(!legacy(
            json!({kops: "k.example.com", alpha: "h.example.com", new: "h.example.com"})
        ));
        // A Service handed to another controller is skipped whole.
        let other = json!({kops: "k.example.com", "external-dns.alpha.kubernetes.io/controller": "x",
                           "external-dns.kubernetes.io/controller": "x"});
        assert!(!legacy(other));
    }

    #[test]
    fn a_filtered_out_service_with_only_a_legacy_annotation_is_warned_about_under_its_mode() {
        let svc = json!({"metadata": {"name": "s", "annotations": {"zalando.org/dnsname": "m.example.com"}},
                         "spec": {"type": "LoadBalancer"}});
        let table = [
            ("{compatibility: mate, labelFilter: expose}", 1),
            (
                "{compatibility: kops-dns-controller, labelFilter: expose}",
                0,
            ),
            ("{labelFilter: expose}", 0),
        ];
        for (sources, want) in table {
            let rules = RuleSet::parse("r", &format!("sources: {sources}")).expect("rules");
            let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
            assert!(out.candidates.is_empty(), "{sources}: skipped whole");
            assert_eq!(out.warnings.len(), want, "{sources}: {:?}", out.warnings);
        }
    }
}
