//! Which objects external-dns skips whole because of its filter flags (`--namespace`, the label
//! and annotation filters, `--ingress-class`, `--service-type-filter`), and the warning that
//! says so.

use super::Kind;
use crate::annotation;
use crate::rules::{RuleSet, SourceFlags};
use crate::tree::{Node, Object};

/// The annotation external-dns reads an Ingress's class from when `spec.ingressClassName` is
/// not set.
pub const INGRESS_CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// Which of external-dns's filter flags makes it skip an object whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkippedBy {
    /// `sources.namespace`, or `sources.gatewayNamespace` for a Gateway.
    Namespace,
    /// `sources.annotationFilter`, `labelFilter` or `gatewayLabelFilter`.
    Selector,
    /// `sources.gatewayName` / `gatewayNamespace`, for a route with no such parent.
    GatewayParent,
    /// `sources.ingressClassNames`.
    IngressClass,
    /// `sources.serviceTypeFilter`.
    ServiceType,
}

/// `Some` when one of external-dns's filter flags (`sources.namespace`, `gatewayNamespace`,
/// `annotationFilter`, `labelFilter`, `gatewayLabelFilter`, `ingressClassNames`,
/// `serviceTypeFilter`) makes it skip this object whole, so that nothing of it is judged: which
/// one, and the warning that says so when the object asks external-dns for something: a
/// DNSEndpoint always does, another object when it carries an external-dns annotation, or a
/// Service one of the legacy annotations `sources.compatibility` reads (an Ingress of an
/// internal class with none is skipped silently).
pub(super) fn filtered_out(
    rules: &RuleSet,
    kind: Kind,
    namespace: &str,
    object: &Node<'_>,
) -> Option<(SkippedBy, Option<String>)> {
    let (by, why) = why_skipped(&rules.sources, kind, namespace, object)?;
    let legacy = rules
        .sources
        .compatibility
        .filter(|_| kind == Kind::Service);
    let asks = kind == Kind::DnsEndpoint
        || annotation::map(object).is_some_and(|m| {
            m.keys()
                .any(|k| annotation::prefixes(rules).any(|p| k.starts_with(p)))
        })
        || legacy.is_some_and(|mode| super::compatibility::carries(mode, object));
    let noun = kind.noun();
    Some((by, asks.then(|| format!("{why}: external-dns skips this {noun} and publishes none of its hostnames, so zoneguard does not check them"))))
}

/// The first filter flag that skips `object`, in external-dns's order, and why.
fn why_skipped(
    flags: &SourceFlags,
    kind: Kind,
    namespace: &str,
    object: &Node<'_>,
) -> Option<(SkippedBy, String)> {
    let by = |by: SkippedBy| move |why: String| (by, why);
    namespace_skip(flags, kind, namespace)
        .map(by(SkippedBy::Namespace))
        .or_else(|| selector_skip(flags, kind, object).map(by(SkippedBy::Selector)))
        .or_else(|| parent_skip(flags, kind, namespace, object).map(by(SkippedBy::GatewayParent)))
        .or_else(|| match kind {
            Kind::Ingress => ingress_class_skip(&flags.ingress_class_names, object)
                .map(by(SkippedBy::IngressClass)),
            Kind::Service => {
                service_type_skip(&flags.service_types, object).map(by(SkippedBy::ServiceType))
            }
            _ => None,
        })
}

/// external-dns's `--namespace` (`--gateway-namespace` for Gateways): its informers list one
/// namespace only. The reason when `namespace` is another.
fn namespace_skip(flags: &SourceFlags, kind: Kind, namespace: &str) -> Option<String> {
    let (setting, read) = match kind {
        // external-dns lists ListenerSets in every namespace, whatever its namespace flags.
        Kind::ServiceAccount | Kind::ListenerSet => return None,
        Kind::Gateway => ("sources.gatewayNamespace", &flags.gateway_namespace),
        _ => ("sources.namespace", &flags.namespace),
    };
    let read = read.as_deref().filter(|read| *read != namespace)?;
    Some(format!("this {} is in the namespace {namespace:?}, and external-dns reads only {read:?} ({setting})", kind.noun()))
}

/// external-dns's selector flags, in the order its informers apply them: the annotation filter,
/// then the label filter, for every kind it reads but Gateways, which have their own label
/// filter. The reason when one does not select `object`.
fn selector_skip(flags: &SourceFlags, kind: Kind, object: &Node<'_>) -> Option<String> {
    use Metadata::{Annotations, Labels};
    let filters = match kind {
        // external-dns lists ListenerSets with no selector ("Gateway filters should apply only to
        // Gateways").
        Kind::ServiceAccount | Kind::ListenerSet => [None, None],
        Kind::Gateway => [
            None,
            Some((
                Labels,
                "sources.gatewayLabelFilter",
                &flags.gateway_label_filter,
            )),
        ],
        _ => [
            Some((
                Annotations,
                "sources.annotationFilter",
                &flags.annotation_filter,
            )),
            Some((Labels, "sources.labelFilter", &flags.label_filter)),
        ],
    };
    filters
        .into_iter()
        .flatten()
        .find_map(|(metadata, setting, filter)| {
            let filter = filter.as_ref()?;
            let what = metadata.noun();
            let map = metadata.of(object);
            let (unmet, value) = filter.first_unmet(|k| map?.get(k)?.as_str())?;
            let key = unmet.key();
            let found = value.map_or_else(
                || format!("there is no {what} {key:?}"),
                |v| format!("the {what} {key:?} is {v:?}"),
            );
            Some(format!(
                "metadata.{what}s do not meet {setting} {:?}: {unmet} does not hold, as {found}",
                filter.text()
            ))
        })
}

/// The two string maps of an object's metadata a selector flag reads.
#[derive(Clone, Copy)]
enum Metadata {
    Annotations,
    Labels,
}

impl Metadata {
    fn noun(self) -> &'static str {
        match self {
            Self::Annotations => "annotation",
            Self::Labels => "label",
        }
    }

    fn of<'n, 'a>(self, object: &'n Node<'a>) -> Option<&'n Object<'a>> {
        match self {
            Self::Annotations => annotation::map(object),
            Self::Labels => {
                crate::path::at(object, &["metadata", "labels"]).and_then(Node::as_object)
            }
        }
    }
}

/// The warning about an Ingress that names no class, when external-dns reads `listed`.
fn no_class(listed: &str) -> String {
    format!("this Ingress names no ingress class (spec.ingressClassName or the kubernetes.io/ingress.class annotation) and external-dns reads only the classes it is told ({listed})")
}

/// external-dns's `filterByIngressClass`: `spec.ingressClassName` when set and not empty, else
/// the `kubernetes.io/ingress.class` annotation, must be one of `classes`; the reason when not.
fn ingress_class_skip(classes: &[String], object: &Node<'_>) -> Option<String> {
    if classes.is_empty() {
        return None;
    }
    let listed = format!("sources.ingressClassNames: {}", classes.join(", "));
    let spec = crate::path::at(object, &["spec", "ingressClassName"]).and_then(Node::as_str);
    let (field, class) = match spec.filter(|c| !c.is_empty()) {
        Some(class) => ("spec.ingressClassName".to_string(), class),
        None => match annotation::get(object, INGRESS_CLASS_ANNOTATION) {
            Some(class) => (annotation::field(INGRESS_CLASS_ANNOTATION), class),
            None => return Some(no_class(&listed)),
        },
    };
    (!classes.iter().any(|c| c == class))
        .then(|| format!("{field} is {class:?}, not a class external-dns reads ({listed})"))
}

/// A Service's type as the API server keeps it: `spec.type`, ClusterIP when unset.
pub fn service_type<'n>(object: &'n Node<'_>) -> &'n str {
    crate::path::at(object, &["spec", "type"])
        .and_then(Node::as_str)
        .unwrap_or(DEFAULT_SERVICE_TYPE)
}

/// A Service's type when `spec.type` is not set, as the API server defaults it.
pub const DEFAULT_SERVICE_TYPE: &str = "ClusterIP";

/// external-dns's service type filter: the Service's type ([`service_type`]) must be one of
/// `types`; the reason when not.
fn service_type_skip(types: &[String], object: &Node<'_>) -> Option<String> {
    if types.is_empty() {
        return None;
    }
    let ty = service_type(object);
    let unset = crate::path::at(object, &["spec", "type"])
        .and_then(Node::as_str)
        .is_none();
    let default = if unset { " (the default)" } else { "" };
    (!types.iter().any(|t| t == ty)).then(|| {
        format!(
            "spec.type is {ty:?}{default}, not a type external-dns reads (sources.serviceTypeFilter: {})",
            types.join(", ")
        )
    })
}

const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// With `--gateway-name` or `--gateway-namespace`, external-dns publishes a route only through
/// the parents in its `spec.parentRefs` that are Gateways of that name and namespace (or
/// ListenerSets, whose Gateway is not known here), of group `gateway.networking.k8s.io`. The
/// reason when the route has no such parent. Without those flags a route is judged whatever its
/// parents, though external-dns publishes nothing through a parent of another kind.
fn parent_skip(
    flags: &SourceFlags,
    kind: Kind,
    namespace: &str,
    object: &Node<'_>,
) -> Option<String> {
    let scoped = flags.gateway_name.is_some() || flags.gateway_namespace.is_some();
    if !scoped || !matches!(kind, Kind::RouteWithHostnames | Kind::RouteWithoutHostnames) {
        return None;
    }
    let parents = crate::path::at(object, &["spec", "parentRefs"]).and_then(Node::as_array);
    let read = parents.unwrap_or(&[]).iter().any(|parent| {
        let text = |key, default| ref_field(parent, key, default);
        match text("kind", "Gateway") {
            _ if text("group", GATEWAY_GROUP) != GATEWAY_GROUP => false,
            "ListenerSet" => true,
            "Gateway" => {
                let (name, ns) = (text("name", ""), text("namespace", namespace));
                flags.gateway_name.as_ref().is_none_or(|n| n == name)
                    && flags.gateway_namespace.as_ref().is_none_or(|n| n == ns)
            }
            _ => false,
        }
    });
    if read {
        return None;
    }
    let mut wanted = Vec::new();
    if let Some(name) = &flags.gateway_name {
        wanted.push(format!("sources.gatewayName: {name:?}"));
    }
    if let Some(ns) = &flags.gateway_namespace {
        wanted.push(format!("sources.gatewayNamespace: {ns:?}"));
    }
    Some(format!(
        "spec.parentRefs names no Gateway external-dns publishes routes through ({})",
        wanted.join(", ")
    ))
}

/// A parent reference's `key`, or `default` when it is unset or empty (external-dns's `strVal`).
fn ref_field<'n>(parent: &'n Node<'_>, key: &str, default: &'n str) -> &'n str {
    match parent.get(key).and_then(Node::as_str) {
        Some(value) if !value.is_empty() => value,
        _ => default,
    }
}
