//! The functions external-dns gives its templates (its `source/template/functions.go`), with
//! Go's argument checks: a string parameter given no value or another type is an error.

use gotmpl::{Template, TemplateError, Value};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// external-dns's source names (`source/types`), which `isSource` accepts.
const KNOWN_SOURCES: [&str; 25] = [
    "node",
    "service",
    "ingress",
    "pod",
    "gateway-httproute",
    "gateway-grpcroute",
    "gateway-tlsroute",
    "gateway-tcproute",
    "gateway-udproute",
    "istio-gateway",
    "istio-virtualservice",
    "ambassador-host",
    "contour-httpproxy",
    "gloo-proxy",
    "traefik-proxy",
    "openshift-route",
    "fake",
    "empty",
    "connector",
    "crd",
    "skipper-routegroup",
    "kong-tcpingress",
    "f5-virtualserver",
    "f5-transportserver",
    "unstructured",
];

/// The names of external-dns's functions.
pub(super) const NAMES: [&str; 11] = [
    "contains",
    "trimPrefix",
    "trimSuffix",
    "trim",
    "toLower",
    "replace",
    "isIPv4",
    "isIPv6",
    "isSource",
    "hasKey",
    "fromJson",
];

/// `template` with external-dns's functions, `isSource` bound to `source`.
pub(super) fn with_all(template: Template, source: &'static str) -> Template {
    template
        .func("contains", |a| {
            let [s, sub] = strings::<2>("contains", a)?;
            Ok(Value::Bool(s.contains(sub)))
        })
        .func("trimPrefix", |a| {
            let [s, prefix] = strings::<2>("trimPrefix", a)?;
            Ok(text(s.strip_prefix(prefix).unwrap_or(s)))
        })
        .func("trimSuffix", |a| {
            let [s, suffix] = strings::<2>("trimSuffix", a)?;
            Ok(text(s.strip_suffix(suffix).unwrap_or(s)))
        })
        .func("trim", |a| {
            let [s] = strings::<1>("trim", a)?;
            Ok(text(s.trim()))
        })
        .func("toLower", |a| {
            let [s] = strings::<1>("toLower", a)?;
            Ok(text(&s.to_lowercase()))
        })
        .func("replace", |a| {
            let [old, new, target] = strings::<3>("replace", a)?;
            Ok(text(&target.replace(old, new)))
        })
        .func("isIPv4", |a| {
            let [s] = strings::<1>("isIPv4", a)?;
            Ok(Value::Bool(
                s.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv4()),
            ))
        })
        .func("isIPv6", |a| {
            let [s] = strings::<1>("isIPv6", a)?;
            Ok(Value::Bool(
                s.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6()),
            ))
        })
        .func("isSource", move |a| {
            let [want] = strings::<1>("isSource", a)?;
            if !KNOWN_SOURCES.iter().any(|k| k.eq_ignore_ascii_case(want)) {
                let valid = KNOWN_SOURCES.join(", ");
                return Err(failed(format!(
                    "isSource: unknown source {want:?} (valid: {valid})"
                )));
            }
            Ok(Value::Bool(source.eq_ignore_ascii_case(want)))
        })
        .func("hasKey", |a| match a {
            [Value::Map(m), Value::String(key)] => Ok(Value::Bool(m.contains_key(key))),
            [Value::Nil, Value::String(_)] => Ok(Value::Bool(false)),
            _ => Err(failed("hasKey: expected a map and a string".into())),
        })
        .func("index", index)
        .func("fromJson", |a| {
            let [s] = strings::<1>("fromJson", a)?;
            Ok(serde_json::from_str(s).map_or(Value::Nil, |v| from_json(&v)))
        })
}

/// Go's `index`, but a key missing from a map of strings (labels, annotations, a selector)
/// gives "", that map's zero value, as Go's does for a `map[string]string`.
fn index(args: &[Value]) -> Result<Value, TemplateError> {
    let (first, keys) = args
        .split_first()
        .filter(|(_, keys)| !keys.is_empty())
        .ok_or_else(|| failed("wrong number of args for index: want at least 2".into()))?;
    let mut value = first.clone();
    for key in keys {
        value = match (&value, key) {
            (Value::Map(m), Value::String(k)) if !m.contains_key(k) => {
                let strings = m.values().all(|v| matches!(v, Value::String(_)));
                if strings {
                    text("")
                } else {
                    Value::Nil
                }
            }
            _ => value.index(key)?,
        };
    }
    Ok(value)
}

/// The `N` arguments of `name`, each a string.
fn strings<'a, const N: usize>(
    name: &str,
    args: &'a [Value],
) -> Result<[&'a str; N], TemplateError> {
    if args.len() != N {
        return Err(failed(format!(
            "wrong number of args for {name}: want {N} got {}",
            args.len()
        )));
    }
    let mut out = [""; N];
    for (slot, arg) in out.iter_mut().zip(args) {
        *slot = match arg {
            Value::String(s) => s,
            Value::Nil => return Err(failed(format!("{name}: invalid value; expected string"))),
            other => {
                return Err(failed(format!(
                    "{name}: wrong type for value; expected string; got {}",
                    other.type_name()
                )))
            }
        };
    }
    Ok(out)
}

fn text(s: &str) -> Value {
    Value::String(s.into())
}

fn failed(message: String) -> TemplateError {
    TemplateError::Exec(message)
}

/// A JSON value as Go's `json.Unmarshal` into `any` gives it: numbers are float64.
fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or_default()),
        serde_json::Value::String(s) => text(s),
        serde_json::Value::Array(items) => Value::List(items.iter().map(from_json).collect()),
        serde_json::Value::Object(members) => {
            let map: BTreeMap<Arc<str>, Value> = members
                .iter()
                .map(|(k, v)| (Arc::from(k.as_str()), from_json(v)))
                .collect();
            Value::Map(Arc::new(map))
        }
    }
}
