//! The fields of a Kubernetes object that the checks read. The webhook decodes an object's
//! JSON into these alone: an AdmissionReview's object carries much more (an Ingress's
//! `spec.rules[].http`, a Service's ports, `status`, `metadata.managedFields`, kubectl's
//! last-applied-configuration annotation), and building values nobody reads was a quarter of
//! the cost of an Ingress review. A check that reads another field adds it to [`READ`]; the
//! server's tests decide every review fixture on the whole object and on the read fields and
//! expect the same decision.

use serde_json::{Map, Value};

/// Which parts of a JSON value are read.
#[derive(Debug, PartialEq, Eq)]
pub enum Fields {
    /// The value as it is.
    Whole,
    /// Of an object, these keys, each with what is read below it; of an array, this for each
    /// item; any other value as it is.
    Only(&'static [(&'static str, Fields)]),
    /// Of an object, every key, each value whole except the values of these keys, which are
    /// [`Unread`]; of an array, this for each item; any other value as it is.
    AllBut(&'static [&'static str]),
    /// A value no check reads: `null` stands in for it, so its key still counts.
    Unread,
}

use Fields::{AllBut, Only, Unread, Whole};

/// The annotation in which `kubectl apply` keeps the whole object it applied, escaped into one
/// string: often the largest field of a review, and no check reads it (the annotations whose
/// values are read are external-dns's names under a prefix and the IRSA keys), but an inject
/// rule must still see that it is there.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the checks read of an admitted object.
pub static READ: Fields = Only(&[
    ("apiVersion", Whole),
    ("kind", Whole),
    (
        "metadata",
        Only(&[
            // The object's name when the request has none (`generateName`).
            ("name", Whole),
            ("generateName", Whole),
            ("namespace", Whole),
            // external-dns and IRSA annotations; mutation's patch (which keys are there).
            ("annotations", AllBut(&[LAST_APPLIED])),
            // The label of a rule ConfigMap.
            ("labels", Whole),
            // An object being deleted is neither checked nor changed.
            ("deletionTimestamp", Whole),
        ]),
    ),
    // A rule ConfigMap's rules.
    ("data", Whole),
    (
        "spec",
        Only(&[
            // Service: whether external-dns reads and publishes it, and the inject rules'
            // service types; a NodePort Service's SRV names (one a port, of its protocol).
            ("type", Whole),
            ("clusterIP", Whole),
            ("ports", Only(&[("protocol", Whole)])),
            // Ingress: whether external-dns reads it (its class), and its hosts.
            ("ingressClassName", Whole),
            ("rules", Only(&[("host", Whole)])),
            ("tls", Only(&[("hosts", Whole)])),
            // HTTPRoute, GRPCRoute, TLSRoute.
            ("hostnames", Whole),
            // Routes: the Gateways external-dns may publish them through.
            (
                "parentRefs",
                Only(&[
                    ("group", Whole),
                    ("kind", Whole),
                    ("name", Whole),
                    ("namespace", Whole),
                ]),
            ),
            // Gateway, ListenerSet.
            ("listeners", Only(&[("hostname", Whole)])),
            // DNSEndpoint.
            ("endpoints", Only(&[("dnsName", Whole)])),
        ]),
    ),
]);

impl Fields {
    /// What is read below `key` of an object, or `None` when nothing is.
    pub fn below(&self, key: &str) -> Option<&Fields> {
        match self {
            Whole => Some(&Whole),
            Only(keys) => keys.iter().find(|(k, _)| *k == key).map(|(_, f)| f),
            AllBut(unread) if unread.contains(&key) => Some(&Unread),
            AllBut(_) => Some(&Whole),
            Unread => None,
        }
    }

    /// `value` with every part that is not read left out.
    pub fn prune(&self, value: &Value) -> Value {
        match (self, value) {
            (Whole, _) => value.clone(),
            (Unread, _) => Value::Null,
            (Only(_) | AllBut(_), Value::Object(map)) => Value::Object(
                map.iter()
                    .filter_map(|(k, v)| Some((k.clone(), self.below(k)?.prune(v))))
                    .collect::<Map<_, _>>(),
            ),
            (Only(_) | AllBut(_), Value::Array(items)) => {
                Value::Array(items.iter().map(|v| self.prune(v)).collect())
            }
            (Only(_) | AllBut(_), _) => value.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pruning_keeps_the_read_fields_of_each_kind_and_drops_the_rest() {
        let table = [
            (
                json!({"kind": "Ingress", "metadata": {"name": "web", "uid": "1", "managedFields": [{}],
                        "annotations": {"a": "b"}},
                       "spec": {"ingressClassName": "nginx", "rules": [{"host": "a.example.com",
                        "http": {"paths": []}}, {"http": {}}], "tls": [{"hosts": ["a"], "secretName": "s"}]},
                       "status": {"loadBalancer": {}}}),
                json!({"kind": "Ingress", "metadata": {"name": "web", "annotations": {"a": "b"}},
                       "spec": {"ingressClassName": "nginx", "rules": [{"host": "a.example.com"}, {}],
                        "tls": [{"hosts": ["a"]}]}}),
            ),
            (
                json!({"metadata": {"annotations": {LAST_APPLIED: "{\"kind\":\"Ingress\"}",
                        "external-dns.alpha.kubernetes.io/hostname": "a.example.com"}}}),
                json!({"metadata": {"annotations": {LAST_APPLIED: null,
                        "external-dns.alpha.kubernetes.io/hostname": "a.example.com"}}}),
            ),
            (
                json!({"kind": "Service", "spec": {"type": "NodePort", "clusterIP": "None",
                        "ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "nodePort": 30053}],
                        "selector": {"app": "web"}}}),
                json!({"kind": "Service", "spec": {"type": "NodePort", "clusterIP": "None",
                        "ports": [{}, {"protocol": "UDP"}]}}),
            ),
            (
                json!({"kind": "ConfigMap", "metadata": {"labels": {"zoneguard.io/rules": "true"}},
                       "data": {"rules.yaml": "x"}, "binaryData": {"b": "eA=="}}),
                json!({"kind": "ConfigMap", "metadata": {"labels": {"zoneguard.io/rules": "true"}},
                       "data": {"rules.yaml": "x"}}),
            ),
            (
                json!({"spec": {"hostnames": ["a"], "listeners": [{"hostname": "b", "port": 443}],
                        "endpoints": [{"dnsName": "c", "targets": ["1.2.3.4"]}],
                        "parentRefs": [{"name": "gw", "sectionName": "https", "port": 443}]}}),
                json!({"spec": {"hostnames": ["a"], "listeners": [{"hostname": "b"}],
                        "endpoints": [{"dnsName": "c"}], "parentRefs": [{"name": "gw"}]}}),
            ),
        ];
        for (object, want) in table {
            assert_eq!(READ.prune(&object), want, "{object}");
        }
    }

    #[test]
    fn values_of_another_shape_than_expected_are_kept_as_they_are() {
        let table = [
            (json!("text"), json!("text")),
            (json!({"metadata": "text"}), json!({"metadata": "text"})),
            (
                json!({"spec": {"rules": ["a", 1]}}),
                json!({"spec": {"rules": ["a", 1]}}),
            ),
            (json!([{"kind": "x", "other": 1}]), json!([{"kind": "x"}])),
        ];
        for (value, want) in table {
            assert_eq!(READ.prune(&value), want, "{value}");
        }
    }
}
