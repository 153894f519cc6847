//! An object as Go's text/template sees the typed Kubernetes struct external-dns runs its
//! templates on: Go's field names, the fields of `ObjectMeta` and `TypeMeta` promoted to the
//! top, the maps (labels, annotations, a Service's selector) keyed as written, and the fields
//! templates use most present with Go's zero value when the object leaves them out. Only the
//! fields the webhook decodes ([`READ`]) are there, so that a template names an object alike
//! in the webhook and in `zoneguard check`.

use crate::fields::{Fields, READ};
use crate::tree::Node;
use gotmpl::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

type Map = BTreeMap<Arc<str>, Value>;

/// JSON names whose Go field name is not the name with its first letter upper-cased.
const GO_NAMES: [(&str, &str); 14] = [
    ("apiVersion", "APIVersion"),
    ("clientIP", "ClientIP"),
    ("clusterIP", "ClusterIP"),
    ("clusterIPs", "ClusterIPs"),
    ("externalIPs", "ExternalIPs"),
    ("http", "HTTP"),
    ("ip", "IP"),
    ("ipFamilies", "IPFamilies"),
    ("ipFamilyPolicy", "IPFamilyPolicy"),
    ("ipMode", "IPMode"),
    ("loadBalancerIP", "LoadBalancerIP"),
    ("podIPs", "PodIPs"),
    ("tls", "TLS"),
    ("uid", "UID"),
];

/// `ObjectMeta`'s string fields, "" when unset.
const META_STRINGS: [&str; 4] = ["Name", "GenerateName", "Namespace", "ResourceVersion"];

/// Which fields at the top of the object a template reads: `None` when it may read any (it
/// uses `.` itself somewhere, e.g. `{{template "t" .}}`), else their Go names. The view is
/// built only as far as they need it: most templates read a name and a namespace, and building
/// the rest (labels, annotations, the spec) would cost more than running the template.
pub(super) type Roots = Option<Vec<String>>;

/// The object as external-dns's template sees it, as far as `roots` reads it. `kind` is the
/// object's kind; its `TypeMeta` is what external-dns sets from client-go's scheme
/// (`networking.k8s.io/v1` for an Ingress, `v1` for a Service), and for Gateway API types,
/// which that scheme lacks, the type's name and no API version. `namespace` stands in for a
/// missing `metadata.namespace`.
pub(super) fn value(kind: &str, namespace: &str, object: &Node<'_>, roots: &Roots) -> Value {
    let wants = |name: &str| roots.as_ref().is_none_or(|r| r.iter().any(|n| n == name));
    let api_version = match kind {
        "Ingress" => "networking.k8s.io/v1",
        "Service" => "v1",
        _ => "",
    };
    let type_meta = Map::from([
        ("Kind".into(), text(kind)),
        ("APIVersion".into(), text(api_version)),
    ]);
    let whole_meta = wants("ObjectMeta");
    let wants_member = |json: &str| {
        whole_meta
            || roots
                .as_ref()
                .is_none_or(|r| r.iter().any(|go| is_go_name_of(go, json)))
    };
    let wants_field = |go: &str| whole_meta || wants(go);
    let meta = object_meta(object, kind, namespace, &wants_member, &wants_field);
    let mut top: Map = type_meta
        .iter()
        .chain(&meta)
        .filter(|(k, _)| wants(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if wants("TypeMeta") {
        top.insert("TypeMeta".into(), Value::Map(Arc::new(type_meta)));
    }
    if whole_meta {
        top.insert("ObjectMeta".into(), Value::Map(Arc::new(meta)));
    }
    for key in ["spec", "status"] {
        let name = go_name(key);
        if wants(&name) {
            let fields = members(object, key, kind, &|_| true);
            top.insert(name.into(), Value::Map(Arc::new(fields)));
        }
    }
    Value::Map(Arc::new(top))
}

/// The object's `ObjectMeta`, the members whose JSON name `wants_member` takes: with Go's zero
/// value for the fields templates read most that `wants_field` takes (by Go name), and
/// `namespace` for a missing namespace.
fn object_meta(
    object: &Node<'_>,
    kind: &str,
    namespace: &str,
    wants_member: &dyn Fn(&str) -> bool,
    wants: &dyn Fn(&str) -> bool,
) -> Map {
    let mut meta = members(object, "metadata", kind, wants_member);
    let maps = ["Labels", "Annotations"];
    for field in META_STRINGS.iter().chain(&maps).filter(|f| wants(f)) {
        meta.entry((*field).into())
            .or_insert_with(|| match maps.contains(field) {
                true => Value::Map(Arc::default()),
                false => text(""),
            });
    }
    if matches!(meta.get("Namespace"), Some(Value::String(s)) if s.is_empty()) {
        meta.insert("Namespace".into(), text(namespace));
    }
    meta
}

/// The members of the struct at `object.<key>` whose JSON name `keep` takes, of those the
/// webhook decodes.
fn members(object: &Node<'_>, key: &str, kind: &str, keep: &dyn Fn(&str) -> bool) -> Map {
    match (object.get(key), READ.below(key)) {
        (Some(Node::Object(m)), Some(fields)) => {
            let kept = m.iter().filter(|(k, _)| keep(k));
            struct_fields(kept, fields, &[key], kind)
        }
        _ => Map::new(),
    }
}

/// Whether `go` is the Go field name of the JSON member `json` ([`go_name`] without building it).
fn is_go_name_of(go: &str, json: &str) -> bool {
    if let Some((_, name)) = GO_NAMES.iter().find(|(j, _)| *j == json) {
        return *name == go;
    }
    let mut json_chars = json.chars();
    let mut go_chars = go.chars();
    match (json_chars.next(), go_chars.next()) {
        (Some(j), Some(g)) => j.to_uppercase().eq(std::iter::once(g)) && json_chars.eq(go_chars),
        _ => false,
    }
}

/// A struct's members under Go's field names, of those `fields` reads; `path` is where the
/// struct is, for the maps in it.
fn struct_fields<'n, 'a: 'n>(
    members: impl Iterator<Item = (&'n str, &'n Node<'a>)>,
    fields: &Fields,
    path: &[&str],
    kind: &str,
) -> Map {
    members
        .filter_map(|(key, node)| {
            let below = fields.below(key).filter(|f| **f != Fields::Unread)?;
            let mut inner = path.to_vec();
            inner.push(key);
            let value = if is_map(&inner, kind) {
                map_of(node, below)
            } else {
                convert(node, below, &inner, kind)
            };
            Some((Arc::from(go_name(key).as_str()), value))
        })
        .collect()
}

/// Whether the field at `path` is a Go map, whose keys stay as written.
fn is_map(path: &[&str], kind: &str) -> bool {
    matches!(
        (kind, path),
        (_, ["metadata", "labels" | "annotations"]) | ("Service", ["spec", "selector"])
    )
}

/// A Go map: its keys as written, of those `fields` reads.
fn map_of(node: &Node<'_>, fields: &Fields) -> Value {
    let Node::Object(m) = node else {
        return Value::Nil;
    };
    let entries = m.iter().filter_map(|(k, v)| {
        let below = fields.below(k).filter(|f| **f != Fields::Unread)?;
        Some((Arc::from(k), convert(v, below, &[], "")))
    });
    Value::Map(Arc::new(entries.collect()))
}

fn convert(node: &Node<'_>, fields: &Fields, path: &[&str], kind: &str) -> Value {
    match node {
        Node::Null => Value::Nil,
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .or_else(|| n.as_u64().map(Value::Uint))
            .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or_default())),
        Node::String(s) => text(s),
        // A list's items are structs of the list's path.
        Node::Array(items) => Value::List(
            items
                .iter()
                .map(|i| convert(i, fields, path, kind))
                .collect(),
        ),
        Node::Object(m) => Value::Map(Arc::new(struct_fields(m.iter(), fields, path, kind))),
    }
}

/// The Go field name of the JSON member `key`.
fn go_name(key: &str) -> String {
    if let Some((_, go)) = GO_NAMES.iter().find(|(json, _)| *json == key) {
        return (*go).to_string();
    }
    let mut chars = key.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn text(s: &str) -> Value {
    Value::String(s.into())
}
