//! Property tests of the AdmissionReview decoder: whatever the body, `review::parse` answers
//! with a review or an error, never a panic; and a body it accepts goes through the core and
//! back into an AdmissionReview answer that echoes its `uid`, written by `to_json` as
//! serde_json writes it.

use super::review::{self, ReviewError};
use proptest::prelude::*;
use serde_json::{json, Value};
use zoneguard_core::admission;
use zoneguard_core::mutation::AddOp;
use zoneguard_core::rules::RuleSet;

const RULES: &str = r#"
domainFilters: [example.com]
namespaces:
  team-a: { domainFilters: [team-a.example.com] }
inject:
  - kinds: [Service]
    serviceTypes: [LoadBalancer]
    annotations:
      external-dns.alpha.kubernetes.io/hostname: "{name}.{namespace}.example.com"
irsa:
  issuer: oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE
  trustPolicies:
    arn:aws:iam::111122223333:role/app: {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE:sub":"system:serviceaccount:team-a:app"}}}]}
"#;

fn rules() -> RuleSet {
    RuleSet::parse("rules.yaml", RULES).expect("the test rules parse")
}

/// A decoded review goes through validate and mutate, and the answers serialize and echo the uid.
fn round_trip(rules: &RuleSet, review: &review::Review) -> Result<(), TestCaseError> {
    let request = review.core_request();
    for decision in [
        admission::validate(rules, &request),
        admission::mutate(rules, &request),
    ] {
        let answer = review::respond(review, &decision, 5);
        let text = serde_json::to_string(&answer).expect("an answer always serializes");
        // The hand-written encoder writes the same bytes as serde_json.
        prop_assert_eq!(answer.to_json(), text.as_bytes());
        let back: Value = serde_json::from_str(&text).expect("and parses back");
        prop_assert_eq!(back["response"]["uid"].as_str(), Some(review.uid.as_str()));
        prop_assert_eq!(back["apiVersion"].as_str(), Some(review::API_VERSION));
        prop_assert_eq!(
            back["response"]["allowed"].as_bool(),
            Some(decision.allowed)
        );
    }
    Ok(())
}

/// Any JSON value, a few levels deep, with keys that often hit the ones the decoder reads or
/// skips (`object.rs`'s tests use it too).
pub(super) fn any_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("apiVersion".to_owned()),
        Just("kind".to_owned()),
        Just("metadata".to_owned()),
        Just("annotations".to_owned()),
        Just("name".to_owned()),
        Just("namespace".to_owned()),
        Just("spec".to_owned()),
        Just("rules".to_owned()),
        Just("host".to_owned()),
        Just("hostnames".to_owned()),
        Just("tls".to_owned()),
        Just("hosts".to_owned()),
        Just("type".to_owned()),
        Just("status".to_owned()),
        Just("managedFields".to_owned()),
        Just("http".to_owned()),
        Just("data".to_owned()),
        Just("listeners".to_owned()),
        Just("hostname".to_owned()),
        Just("external-dns.alpha.kubernetes.io/hostname".to_owned()),
        Just("eks.amazonaws.com/role-arn".to_owned()),
        "[a-z]{1,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        Just(Value::String("shop.example.com".into())),
        Just(Value::String("arn:aws:iam::111122223333:role/app".into())),
        Just(Value::String("LoadBalancer".into())),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `request.kind` values: the checked kinds (right and wrong groups) and others.
fn any_kind() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"group": "networking.k8s.io", "version": "v1", "kind": "Ingress"})),
        Just(json!({"group": "", "version": "v1", "kind": "Service"})),
        Just(json!({"group": "", "version": "v1", "kind": "ServiceAccount"})),
        Just(json!({"group": "", "version": "v1", "kind": "ConfigMap"})),
        Just(json!({"group": "gateway.networking.k8s.io", "version": "v1", "kind": "HTTPRoute"})),
        Just(json!({"group": "gateway.networking.k8s.io", "version": "v1", "kind": "Gateway"})),
        Just(json!({"group": "externaldns.k8s.io", "version": "v1alpha1", "kind": "DNSEndpoint"})),
        Just(json!({"group": "apps", "version": "v1", "kind": "Deployment"})),
        any_json(),
    ]
}

fn any_operation() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("CREATE")),
        Just(json!("UPDATE")),
        Just(json!("DELETE")),
        Just(json!("CONNECT")),
        any_json(),
    ]
}

/// A well-formed envelope around a request whose every field may be absent, wrong or random.
fn envelope() -> impl Strategy<Value = Value> {
    (
        prop::option::of(".{0,40}"),
        prop::option::of(any_kind()),
        prop::option::of(any_operation()),
        prop::option::of(prop_oneof![Just(json!("team-a")), any_json()]),
        prop::option::of(prop_oneof![Just(json!("web")), any_json()]),
        prop::option::of(any_json()),
        prop::option::of(any_json()),
        prop::option::of(prop_oneof![Just(json!("status")), any_json()]),
        prop::option::of(any_json()),
    )
        .prop_map(
            |(uid, kind, operation, namespace, name, object, old_object, sub, dry_run)| {
                let mut request = serde_json::Map::new();
                let fields = [
                    ("uid", uid.map(Value::String)),
                    ("kind", kind),
                    ("operation", operation),
                    ("namespace", namespace),
                    ("name", name),
                    ("object", object),
                    ("oldObject", old_object),
                    ("subResource", sub),
                    ("dryRun", dry_run),
                ];
                for (key, value) in fields {
                    if let Some(value) = value {
                        request.insert(key.to_owned(), value);
                    }
                }
                json!({
                    "apiVersion": review::API_VERSION,
                    "kind": review::KIND,
                    "request": request,
                })
            },
        )
}

/// `value`'s JSON text truncated at `cut`, then with `noise` appended.
fn broken(value: &Value, cut: prop::sample::Index, noise: &[u8]) -> Vec<u8> {
    let text = serde_json::to_vec(value).expect("serializes");
    let mut broken = text[..cut.index(text.len() + 1)].to_vec();
    broken.extend_from_slice(noise);
    broken
}

/// A real Ingress review with its object replaced by a random, object-shaped value.
fn ingress_with_random_object() -> impl Strategy<Value = Value> {
    (
        any_json(),
        prop::collection::vec(".{0,30}", 0..4),
        prop::collection::vec(".{0,30}", 0..3),
    )
        .prop_map(|(spec, hosts, annotations)| {
            let rules: Vec<Value> = hosts.iter().map(|h| json!({"host": h})).collect();
            let annotation = annotations.join(",");
            json!({
                "apiVersion": review::API_VERSION,
                "kind": review::KIND,
                "request": {
                    "uid": "u-1",
                    "kind": {"group": "networking.k8s.io", "version": "v1", "kind": "Ingress"},
                    "operation": "CREATE",
                    "namespace": "team-a",
                    "name": "web",
                    "object": {
                        "metadata": {"name": "web", "annotations": {
                            "external-dns.alpha.kubernetes.io/hostname": annotation,
                            "external-dns.alpha.kubernetes.io/ttl": annotations.first().cloned().unwrap_or_default(),
                        }},
                        "spec": {"rules": rules, "tls": [{"hosts": hosts}], "extra": spec},
                    },
                },
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_patch_is_written_as_serde_json_writes_it(
        ops in proptest::collection::vec(("(?s)[\\x00-\\x7f~/é]{0,30}", any_json()), 1..4)
    ) {
        let patch: Vec<AddOp> = ops.into_iter().map(|(path, value)| AddOp { path, value }).collect();
        prop_assert_eq!(review::patch_json(&patch).0, serde_json::to_vec(&patch).unwrap());
    }

    #[test]
    fn arbitrary_bytes_give_a_review_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let rules = rules();
        if let Ok(review) = review::parse(&bytes) {
            round_trip(&rules, &review)?;
        }
    }

    #[test]
    fn json_text_with_noise_gives_a_review_or_an_error(
        value in envelope(),
        cut in any::<prop::sample::Index>(),
        noise in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        // Malformed JSON must be an error.
        let broken = broken(&value, cut, &noise);
        let rules = rules();
        if let Ok(review) = review::parse(&broken) {
            round_trip(&rules, &review)?;
        }
    }

    #[test]
    fn any_request_shape_gives_a_decision_or_an_error(value in envelope()) {
        let rules = rules();
        let body = serde_json::to_vec(&value).expect("serializes");
        match review::parse(&body) {
            Ok(review) => round_trip(&rules, &review)?,
            Err(ReviewError::InvalidRequest(_) | ReviewError::UnknownOperation(_)) => {}
            Err(other) => prop_assert!(false, "a well-formed envelope gave {other:?}"),
        }
    }

    #[test]
    fn the_one_pass_decode_agrees_with_the_two_step_decode(
        value in envelope(),
        cut in any::<prop::sample::Index>(),
        noise in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let text = serde_json::to_vec(&value).expect("serializes");
        for body in [text, broken(&value, cut, &noise)] {
            prop_assert_eq!(
                format!("{:?}", review::parse(&body)),
                format!("{:?}", review::diagnose(&body))
            );
        }
    }

    #[test]
    fn random_ingress_objects_are_decided_without_panics(value in ingress_with_random_object()) {
        let rules = rules();
        let body = serde_json::to_vec(&value).expect("serializes");
        let review = review::parse(&body).expect("a well-formed Ingress review parses");
        round_trip(&rules, &review)?;
    }

    #[test]
    fn an_envelope_with_another_kind_or_version_is_refused(
        api_version in ".{0,24}",
        kind in ".{0,24}",
    ) {
        let body = serde_json::to_vec(&json!({"apiVersion": api_version, "kind": kind, "request": {}}))
            .expect("serializes");
        let result = review::parse(&body);
        if kind != review::KIND {
            prop_assert_eq!(result.unwrap_err(), ReviewError::WrongKind(kind));
        } else if api_version != review::API_VERSION {
            prop_assert_eq!(result.unwrap_err(), ReviewError::WrongApiVersion(api_version));
        }
    }
}

#[test]
fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
    for depth in [64usize, 1_000, 100_000] {
        let body = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"u","kind":{{"group":"","version":"v1","kind":"Service"}},"operation":"CREATE","object":{}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        // serde_json refuses nesting beyond 128 levels; below that the review parses.
        match review::parse(body.as_bytes()) {
            Ok(review) => assert!(depth < 128 && review.object.is_some()),
            // The envelope only delimits the request; the nesting error comes from either pass.
            Err(ReviewError::Json(why) | ReviewError::InvalidRequest(why)) => {
                assert!(depth >= 128, "{why}")
            }
            Err(other) => panic!("depth {depth}: {other:?}"),
        }
    }
}
