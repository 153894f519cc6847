//! The names external-dns's `--fqdn-template` (`sources.fqdnTemplate`) gives an Ingress, a
//! Service or a route that has no hostname of its own, or every one of them with
//! `--combine-fqdn-annotation`.

use super::{Candidate, Extracted, Field, Kind};
use crate::rules::RuleSet;
use crate::template::FqdnTemplate;
use crate::tree::Node;
use crate::verdict::{Reason, Violation};
use std::ops::Range;

/// The field a template's names and failures are reported under.
pub const FIELD: &str = "sources.fqdnTemplate";

impl Extracted {
    /// The rules' fqdn template, when this extraction reads its names.
    pub(super) fn template<'r>(&self, rules: &'r RuleSet) -> Option<&'r FqdnTemplate> {
        rules
            .sources
            .fqdn_template
            .as_ref()
            .filter(|_| self.names == super::Names::All)
    }

    /// Adds the names the rules' template makes of `object`, when `unnamed` (some external-dns
    /// reading it finds no name of its own) or the rules combine the template with the
    /// object's own names; the candidates added. A template that fails on the object is a
    /// violation: external-dns then fails its whole sync, for every object.
    pub(super) fn templated(
        &mut self,
        rules: &RuleSet,
        kind: Kind,
        namespace: &str,
        object: &Node<'_>,
        unnamed: bool,
    ) -> Range<usize> {
        let first = self.candidates.len();
        let Some(template) = self.template(rules) else {
            return first..first;
        };
        if !unnamed && !rules.sources.combine_fqdn_annotation {
            return first..first;
        }
        let kind_name = object
            .get("kind")
            .and_then(Node::as_str)
            .unwrap_or_else(|| kind.noun());
        match template.names(kind_name, namespace, object) {
            Ok(names) => {
                for name in names {
                    self.push(Candidate {
                        field: Field::Template,
                        raw: name.clone(),
                        name,
                        interior_space: false,
                        record: self.record,
                    });
                }
            }
            Err(why) => {
                let noun = kind.noun();
                let (why, give) = match missing_reference(template.text(), object, &why) {
                    Some((what, expr)) => (
                        format!(
                            "this {noun} has no {what}, which the template reads as {expr} ({why})"
                        ),
                        format!("give it the {what}, or a hostname of its own"),
                    ),
                    None => (why, "give it a hostname of its own".to_string()),
                };
                self.violations.push(Violation::whole(
                    FIELD,
                    "",
                    Reason::HostnameInvalid,
                    format!("the cluster's fqdn template ({FIELD}, external-dns's --fqdn-template) fails on this {noun}: {why}; external-dns's sync then fails for every object, so no DNS record changes anywhere while this object exists: {give}{}, or ask the platform team to fix the template", if rules.sources.combine_fqdn_annotation { "" } else { " (the template is then not used)" }),
                ));
            }
        }
        first..self.candidates.len()
    }
}

/// The label or annotation the template reads (`.Labels.team`) that `object` lacks, as
/// (`label "team"`, `.Labels.team`), when the template's error is one a missing value gives
/// (a function handed no value: "invalid value", "nil"). The first such reference, in the
/// template's order.
fn missing_reference(template: &str, object: &Node<'_>, error: &str) -> Option<(String, String)> {
    if !(error.contains("invalid value") || error.contains("nil")) {
        return None;
    }
    let metadata = object.get("metadata");
    let mut found: Option<(usize, String, String)> = None;
    for (field, what) in [("Labels", "label"), ("Annotations", "annotation")] {
        let map = metadata.and_then(|m| m.get(&field.to_lowercase()));
        let lead = format!(".{field}.");
        for (at, _) in template.match_indices(&lead) {
            let rest = &template[at + lead.len()..];
            let key_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let key = &rest[..key_len];
            let present = map.and_then(|m| m.get(key)).is_some();
            if key.is_empty() || present || found.as_ref().is_some_and(|(f, _, _)| *f < at) {
                continue;
            }
            found = Some((at, format!("{what} {key:?}"), format!("{lead}{key}")));
        }
    }
    found.map(|(_, what, expr)| (what, expr))
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;
    use crate::source::{extract, Field, Kind};
    use crate::tree::Node;
    use serde_json::{json, Value};

    const TEMPLATE: &str = "fqdnTemplate: '{{.Name}}.{{.Namespace}}.t.example.com'";

    /// The names `object` of `kind` asks for under `sources`, in "team-a", each as
    /// `field name`.
    fn names(sources: &str, kind: Kind, object: Value) -> Vec<String> {
        // A top-level key after `;`.
        let (sources, top) = sources.split_once(';').unwrap_or((sources, ""));
        let rules =
            RuleSet::parse("r", &format!("sources: {{{sources}}}\n{}", top.trim())).expect("rules");
        let out = extract(&rules, kind, "team-a", &Node::from(&object));
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        out.candidates
            .into_iter()
            .map(|c| format!("{} {}", c.field, c.name))
            .collect()
    }

    fn ingress(annotations: Value, spec: Value) -> Value {
        json!({"kind": "Ingress", "metadata": {"name": "web", "annotations": annotations}, "spec": spec})
    }

    #[test]
    fn an_ingress_is_named_by_the_template_when_a_prefix_finds_no_name_of_its_own() {
        let t = "sources.fqdnTemplate web.team-a.t.example.com";
        let host = json!({"rules": [{"host": "h.example.com"}]});
        let alpha = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com"});
        let both = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com",
                          "external-dns.kubernetes.io/hostname": "a.example.com"});
        let annotation_only = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com",
            "external-dns.alpha.kubernetes.io/ingress-hostname-source": "annotation-only"});
        let combined = format!("{TEMPLATE}, combineFqdnAnnotation: true");
        let prefixed = format!("{TEMPLATE}; annotationPrefix: external-dns.alpha.kubernetes.io/");
        let table: [(&str, &str, Value, Value, &[&str]); 7] = [
            ("no name at all", TEMPLATE, json!({}), json!({}), &[t]),
            (
                "a host",
                TEMPLATE,
                json!({}),
                host.clone(),
                &["spec.rules[0].host h.example.com"],
            ),
            (
                "a host, combined",
                &combined,
                json!({}),
                host.clone(),
                &["spec.rules[0].host h.example.com", t],
            ),
            (
                "an annotation under one prefix: the other finds none",
                TEMPLATE,
                alpha.clone(),
                json!({}),
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                    t,
                ],
            ),
            (
                "an annotation under both prefixes",
                TEMPLATE,
                both,
                json!({}),
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                    r#"metadata.annotations["external-dns.kubernetes.io/hostname"][0] a.example.com"#,
                ],
            ),
            (
                "annotation-only with a host: the host is not read, the annotation names it",
                &prefixed,
                annotation_only,
                host,
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                ],
            ),
            (
                "the one prefix read has a name",
                &prefixed,
                alpha,
                json!({}),
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                ],
            ),
        ];
        for (what, sources, annotations, spec, want) in table {
            assert_eq!(
                names(sources, Kind::Ingress, ingress(annotations, spec)),
                want,
                "{what}"
            );
        }
    }

    #[test]
    fn a_service_is_named_by_the_template_only_where_external_dns_publishes_it() {
        let t = "sources.fqdnTemplate api.team-a.t.example.com";
        let service = |spec: Value, annotations: Value| json!({"kind": "Service", "metadata": {"name": "api", "annotations": annotations}, "spec": spec});
        let internal = format!("{TEMPLATE}, publishInternalServices: true");
        let kops = format!("{TEMPLATE}, compatibility: kops-dns-controller");
        let hostname = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com",
                              "external-dns.kubernetes.io/hostname": "a.example.com"});
        let target = json!({"external-dns.alpha.kubernetes.io/target": "lb.example.net"});
        let table: [(&str, &str, Value, Value, usize); 8] = [
            (
                "a LoadBalancer",
                TEMPLATE,
                json!({"type": "LoadBalancer"}),
                json!({}),
                1,
            ),
            (
                "a ClusterIP Service is not published",
                TEMPLATE,
                json!({"type": "ClusterIP", "clusterIP": "10.0.0.1"}),
                json!({}),
                0,
            ),
            (
                "unless headless",
                TEMPLATE,
                json!({"type": "ClusterIP", "clusterIP": "None"}),
                json!({}),
                1,
            ),
            (
                "or with publishInternalServices",
                &internal,
                json!({}),
                json!({}),
                1,
            ),
            ("or with a target", TEMPLATE, json!({}), target, 1),
            (
                "a NodePort also makes an SRV name a port",
                TEMPLATE,
                json!({"type": "NodePort", "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}),
                json!({}),
                3,
            ),
            (
                "a hostname of its own",
                TEMPLATE,
                json!({"type": "LoadBalancer"}),
                hostname,
                2,
            ),
            (
                "a legacy name of its own",
                &kops,
                json!({"type": "LoadBalancer"}),
                json!({"dns.alpha.kubernetes.io/external": "k.example.com"}),
                1,
            ),
        ];
        for (what, sources, spec, annotations, count) in table {
            let got = names(sources, Kind::Service, service(spec, annotations));
            let templated = got
                .iter()
                .filter(|n| n.starts_with("sources.fqdnTemplate"))
                .count();
            let own = got.len() - templated;
            assert_eq!(got.len(), count, "{what}: {got:?}");
            assert!(
                templated == 0 || own == 0 || what.contains("SRV"),
                "{what}: {got:?}"
            );
        }
        let srv = names(
            TEMPLATE,
            Kind::Service,
            service(
                json!({"type": "NodePort", "ports": [{"port": 80}]}),
                json!({}),
            ),
        );
        assert_eq!(
            srv,
            [t, "sources.fqdnTemplate _api._tcp.api.team-a.t.example.com"]
        );
    }

    #[test]
    fn a_route_is_named_by_the_template_when_its_spec_has_no_hostnames() {
        let t = "sources.fqdnTemplate r.team-a.t.example.com";
        let route = |kind: &str, spec: Value, annotations: Value| json!({"kind": kind, "metadata": {"name": "r", "annotations": annotations}, "spec": spec});
        let hostname = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com"});
        let annotation_only = json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com",
            "external-dns.kubernetes.io/hostname": "a.example.com",
            "external-dns.alpha.kubernetes.io/gateway-hostname-source": "annotation-only",
            "external-dns.kubernetes.io/gateway-hostname-source": "annotation-only"});
        let with = Kind::RouteWithHostnames;
        let table: [(&str, Kind, Value, Value, &[&str]); 4] = [
            (
                "no hostnames",
                with,
                route("HTTPRoute", json!({}), json!({})),
                json!(null),
                &[t],
            ),
            (
                "hostnames",
                with,
                route(
                    "HTTPRoute",
                    json!({"hostnames": ["h.example.com"]}),
                    json!({}),
                ),
                json!(null),
                &["spec.hostnames[0] h.example.com"],
            ),
            // external-dns runs the template on spec.hostnames alone: an annotation does not stop it.
            (
                "a TCPRoute with an annotation",
                Kind::RouteWithoutHostnames,
                route("TCPRoute", json!({}), hostname),
                json!(null),
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                    t,
                ],
            ),
            (
                "annotation-only: the template's names are defined hosts",
                with,
                route("HTTPRoute", json!({}), annotation_only),
                json!(null),
                &[
                    r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0] a.example.com"#,
                    r#"metadata.annotations["external-dns.kubernetes.io/hostname"][0] a.example.com"#,
                ],
            ),
        ];
        for (what, kind, object, _, want) in table {
            assert_eq!(names(TEMPLATE, kind, object), want, "{what}");
        }
    }

    #[test]
    fn an_object_handed_to_another_controller_is_not_named_by_the_template_even_combined() {
        let combined = format!("{TEMPLATE}, combineFqdnAnnotation: true");
        let other = json!({"external-dns.alpha.kubernetes.io/controller": "other",
                           "external-dns.kubernetes.io/controller": "other"});
        let service = json!({"kind": "Service", "metadata": {"name": "api", "annotations": other.clone()},
                             "spec": {"type": "LoadBalancer"}});
        let route = json!({"kind": "HTTPRoute", "metadata": {"name": "r", "annotations": other.clone()}, "spec": {}});
        let table = [
            (Kind::Ingress, ingress(other.clone(), json!({}))),
            (Kind::Service, service),
            (Kind::RouteWithHostnames, route),
        ];
        for (kind, object) in table {
            assert!(names(&combined, kind, object).is_empty(), "{kind:?}");
        }
    }

    #[test]
    fn a_failure_from_a_missing_label_or_annotation_names_it_first() {
        let object = json!({"metadata": {"labels": {"team": "a"}, "annotations": {"x": "1"}}});
        let nil = "execution error: toLower: invalid value; expected string";
        let table = [
            ("{{.Labels.team | toLower}}", nil, None),
            (
                "{{.Labels.app | toLower}}",
                nil,
                Some(("label \"app\"", ".Labels.app")),
            ),
            (
                "{{.Annotations.owner | lower}}.{{.Labels.tier | lower}}",
                nil,
                Some(("annotation \"owner\"", ".Annotations.owner")),
            ),
            (
                "{{.Labels.tier}}.{{.Annotations.owner}}",
                "error calling index: nil pointer",
                Some(("label \"tier\"", ".Labels.tier")),
            ),
            (
                "{{.Labels.app | toLower}}",
                "execution error: budget exceeded",
                None,
            ),
            ("{{.Name | toLower}}", nil, None),
        ];
        for (template, error, want) in table {
            let got = super::missing_reference(template, &Node::from(&object), error);
            let want = want.map(|(w, e)| (w.to_string(), e.to_string()));
            assert_eq!(got, want, "{template}");
        }
    }

    #[test]
    fn a_template_that_fails_on_the_object_is_a_violation_naming_the_template() {
        let rules = RuleSet::parse(
            "r",
            "sources: {fqdnTemplate: '{{.Labels.team | toLower}}.example.com'}",
        )
        .expect("rules");
        let ok = ingress(json!({}), json!({}));
        let out = extract(&rules, Kind::Ingress, "team-a", &Node::from(&ok));
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        let v = &out.violations[0];
        assert_eq!(v.field, Field::Template.to_string());
        assert!(
            v.message().contains(
                "fails on this Ingress: this Ingress has no label \"team\", which the template reads as .Labels.team (execution error: toLower: invalid value; expected string)"
            ),
            "{}",
            v.message()
        );
        assert!(
            v.message().contains(": give it the label \"team\", or a hostname of its own (the template is then not used), or ask the platform team to fix the template"),
            "{}",
            v.message()
        );
        assert!(
            v.message()
                .contains("external-dns's sync then fails for every object"),
            "{}",
            v.message()
        );
        let mut labelled = ingress(json!({}), json!({}));
        labelled["metadata"]["labels"] = json!({"team": "Web"});
        let out = extract(&rules, Kind::Ingress, "team-a", &Node::from(&labelled));
        assert!(out.violations.is_empty());
        assert_eq!(out.candidates[0].name, "web.example.com");
    }

    #[test]
    fn the_namespace_of_the_request_stands_in_for_a_missing_one() {
        let mut object = ingress(json!({}), json!({}));
        assert_eq!(
            names(TEMPLATE, Kind::Ingress, object.clone()),
            ["sources.fqdnTemplate web.team-a.t.example.com"]
        );
        object["metadata"]["namespace"] = json!("other");
        assert_eq!(
            names(TEMPLATE, Kind::Ingress, object),
            ["sources.fqdnTemplate web.other.t.example.com"]
        );
    }

    #[test]
    fn asked_for_its_own_names_only_an_object_gets_none_from_the_template() {
        let rules = RuleSet::parse("r", &format!("sources: {{{TEMPLATE}}}")).expect("rules");
        let service = json!({"kind": "Service", "metadata": {"name": "web"},
                             "spec": {"type": "LoadBalancer"}});
        let table = [
            (Kind::Ingress, ingress(json!({}), json!({}))),
            (Kind::Service, service),
        ];
        for (kind, object) in table {
            let object = Node::from(&object);
            let all = extract(&rules, kind, "team-a", &object);
            assert_eq!(all.candidates.len(), 1, "{kind:?}: the template names it");
            let own = crate::source::extract_names(
                &rules,
                kind,
                "team-a",
                &object,
                crate::source::Names::Own,
            );
            assert!(own.candidates.is_empty(), "{kind:?}: {:?}", own.candidates);
        }
    }
}
