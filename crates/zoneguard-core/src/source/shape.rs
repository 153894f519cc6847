//! The shapes of the fields the sources read. A field of the wrong JSON type (`spec.rules` a
//! mapping, a `host` a number) is refused by the API server's schema before any webhook sees
//! the object, but `zoneguard check` meets it in a file, where the sources, which read only
//! what has the right shape, would skip its names without a word.

use super::Kind;
use crate::rules::path::{KeyPath, Seg};
use crate::tree::Node;

/// What a field must be; `null` counts as absent, as Kubernetes reads it.
enum Want {
    Text,
    /// A string, one of these.
    OneOf(&'static [&'static str]),
    List(&'static Want),
    Fields(&'static [(&'static str, Want)]),
}

use Want::{Fields, List, OneOf, Text};

/// The fields each kind's source reads, beyond the metadata (`zoneguard check` checks the
/// annotations apart).
fn wanted(kind: Kind) -> Option<&'static Want> {
    const INGRESS: Want = Fields(&[(
        "spec",
        Fields(&[
            ("ingressClassName", Text),
            ("rules", List(&Fields(&[("host", Text)]))),
            ("tls", List(&Fields(&[("hosts", List(&Text))]))),
        ]),
    )]);
    const SERVICE: Want = Fields(&[(
        "spec",
        Fields(&[
            ("type", Text),
            ("clusterIP", Text),
            (
                "ports",
                List(&Fields(&[("protocol", OneOf(&["TCP", "UDP", "SCTP"]))])),
            ),
        ]),
    )]);
    const ROUTE: Want = Fields(&[(
        "spec",
        Fields(&[("hostnames", List(&Text)), ("parentRefs", List(&PARENT))]),
    )]);
    const ROUTE_WITHOUT_HOSTNAMES: Want =
        Fields(&[("spec", Fields(&[("parentRefs", List(&PARENT))]))]);
    const PARENT: Want = Fields(&[("name", Text), ("namespace", Text), ("kind", Text)]);
    const GATEWAY: Want = Fields(&[(
        "spec",
        Fields(&[("listeners", List(&Fields(&[("hostname", Text)])))]),
    )]);
    const DNS_ENDPOINT: Want = Fields(&[(
        "spec",
        Fields(&[("endpoints", List(&Fields(&[("dnsName", Text)])))]),
    )]);
    match kind {
        Kind::Ingress => Some(&INGRESS),
        Kind::Service => Some(&SERVICE),
        Kind::RouteWithHostnames => Some(&ROUTE),
        Kind::RouteWithoutHostnames => Some(&ROUTE_WITHOUT_HOSTNAMES),
        Kind::Gateway | Kind::ListenerSet => Some(&GATEWAY),
        Kind::DnsEndpoint => Some(&DNS_ENDPOINT),
        Kind::ServiceAccount => None,
    }
}

/// A field of the wrong shape: where it is, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field, from the object's top (empty: the object itself).
    pub path: KeyPath,
    /// e.g. `spec.rules is a mapping, not a list; Kubernetes would refuse the object, …`.
    pub message: String,
}

/// The first field of `object` (of `kind`) that the sources read and that has the wrong shape.
pub fn problem(kind: Kind, object: &Node<'_>) -> Option<Problem> {
    let want = wanted(kind)?;
    let mut path = KeyPath::root();
    let wrong = mismatch(want, object, &mut path)?;
    let shown = if path.0.is_empty() {
        "the object".to_owned()
    } else {
        path.to_string()
    };
    let message = format!(
        "{shown} is {wrong}; Kubernetes would refuse the object, and zoneguard cannot read the names in it"
    );
    Some(Problem { path, message })
}

/// Where `node` (at `path`) first differs from `want`: `path` is left at that field, and what
/// is wrong returned (`a mapping, not a list`).
fn mismatch(want: &Want, node: &Node<'_>, path: &mut KeyPath) -> Option<String> {
    let wrong = |what: &str| Some(format!("{}, not {what}", described(node)));
    match (want, node) {
        (_, Node::Null) | (Text, Node::String(_)) => None,
        (Text, _) => wrong("a string"),
        (OneOf(values), Node::String(text)) if values.contains(&text.as_ref()) => None,
        (OneOf(values), _) => wrong(&format!("one of {}", values.join(", "))),
        (List(item), Node::Array(items)) => items.iter().enumerate().find_map(|(i, node)| {
            path.0.push(Seg::Index(i));
            let found = mismatch(item, node, path);
            if found.is_none() {
                path.0.pop();
            }
            found
        }),
        (List(_), _) => wrong("a list"),
        (Fields(fields), Node::Object(_)) => fields.iter().find_map(|(key, want)| {
            let node = node.get(key)?;
            path.0.push(Seg::Key((*key).to_owned()));
            let found = mismatch(want, node, path);
            if found.is_none() {
                path.0.pop();
            }
            found
        }),
        (Fields(_), _) => wrong("a mapping"),
    }
}

/// A value as a message shows it: scalars as written, collections by their kind.
fn described(node: &Node<'_>) -> String {
    match node {
        Node::Array(_) => "a list".to_owned(),
        Node::Object(_) => "a mapping".to_owned(),
        other => other.to_value().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_the_wrong_shape_are_named_with_their_path() {
        let table = [
            (
                Kind::Ingress,
                r#"{"spec": {"rules": {"host": "a.other.org"}}}"#,
                Some("spec.rules is a mapping, not a list"),
            ),
            (
                Kind::Ingress,
                r#"{"spec": {"rules": [{"host": 5}]}}"#,
                Some("spec.rules[0].host is 5, not a string"),
            ),
            (
                Kind::Ingress,
                r#"{"spec": {"tls": [{"hosts": "a.other.org"}]}}"#,
                Some(r#"spec.tls[0].hosts is "a.other.org", not a list"#),
            ),
            (
                Kind::Ingress,
                r#"{"spec": {"tls": [{"hosts": ["a", ["b"]]}]}}"#,
                Some("spec.tls[0].hosts[1] is a list, not a string"),
            ),
            (
                Kind::Ingress,
                r#"{"spec": ["x"]}"#,
                Some("spec is a list, not a mapping"),
            ),
            (
                Kind::Service,
                r#"{"spec": {"type": true}}"#,
                Some("spec.type is true, not a string"),
            ),
            (
                Kind::RouteWithHostnames,
                r#"{"spec": {"hostnames": "a.example.com"}}"#,
                Some(r#"spec.hostnames is "a.example.com", not a list"#),
            ),
            (
                Kind::RouteWithoutHostnames,
                r#"{"spec": {"parentRefs": [{"name": 1}]}}"#,
                Some("spec.parentRefs[0].name is 1, not a string"),
            ),
            (
                Kind::Gateway,
                r#"{"spec": {"listeners": [{"hostname": {}}]}}"#,
                Some("spec.listeners[0].hostname is a mapping, not a string"),
            ),
            (
                Kind::DnsEndpoint,
                r#"{"spec": {"endpoints": [{"dnsName": 1.5}]}}"#,
                Some("spec.endpoints[0].dnsName is 1.5, not a string"),
            ),
            (
                Kind::Ingress,
                r#"{"spec": {"rules": [{"host": "a.example.com"}, {"http": {}}], "tls": null}}"#,
                None,
            ),
            (
                Kind::Ingress,
                r#"{"spec": {"rules": [{"host": null}]}, "status": 5}"#,
                None,
            ),
            (Kind::ServiceAccount, r#"{"spec": 5}"#, None),
            (
                Kind::Service,
                r#"{"spec": {"ports": [{"protocol": "TCP"}, {"protocol": "tcp"}]}}"#,
                Some(r#"spec.ports[1].protocol is "tcp", not one of TCP, UDP, SCTP"#),
            ),
            (
                Kind::Service,
                r#"{"spec": {"ports": [{"protocol": "SCTP"}, {"port": 80}]}}"#,
                None,
            ),
        ];
        for (kind, json, want) in table {
            let value: serde_json::Value = serde_json::from_str(json).expect("json");
            let found = problem(kind, &Node::from(&value));
            let first = found
                .as_ref()
                .map(|p| p.message.split(';').next().unwrap_or_default());
            assert_eq!(first, want, "{kind:?} {json}");
            if let Some(found) = &found {
                let path = found.path.to_string();
                assert!(
                    found.message.starts_with(&path),
                    "{path}: {}",
                    found.message
                );
            }
        }
    }

    #[test]
    fn the_message_says_what_follows() {
        let value = serde_json::json!({"spec": {"rules": {}}});
        let found = problem(Kind::Ingress, &Node::from(&value)).expect("a problem");
        assert_eq!(found.path, KeyPath::root().key("spec").key("rules"));
        let found = found.message;
        assert!(
            found.ends_with(
                "Kubernetes would refuse the object, and zoneguard cannot read the names in it"
            ),
            "{found}"
        );
    }
}
