//! The properties each fuzz target checks, shared by the targets in fuzz_targets/ and by the
//! regression test tests/prop_fuzz_regressions.rs, which replays fuzz/seeds/ and
//! fuzz/regressions/ in the normal `cargo test` run. The including crate provides
//! `crate::review` (src/serve/review.rs).

use serde_json::json;
use std::sync::OnceLock;
use zoneguard_core::admission::{self, Operation, Request};
use zoneguard_core::arn::RoleArn;
use zoneguard_core::filter::{normalize_name, DomainFilter, FilterSpec};
use zoneguard_core::hostname;
use zoneguard_core::mutation::condition;
use zoneguard_core::rules::{RuleSet, RuleSource, TxtRegistry};
use zoneguard_core::selector::Selector;
use zoneguard_core::template::FqdnTemplate;
use zoneguard_core::tree::Node;
use zoneguard_core::trust::{evaluate_web_identity, TrustPolicy, WebIdentity};

/// The rules review_decode decides with: every kind of check switched on.
const FUZZ_RULES: &str = include_str!("rules.yaml");

fn fuzz_rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::parse("rules.yaml", FUZZ_RULES).expect("fuzz rules parse"))
}

/// Any bytes into the server's AdmissionReview decoder give a review or an error; an accepted
/// review goes through validate and mutate and back into an answer that echoes its uid.
pub fn review_decode(data: &[u8]) {
    let Ok(review) = crate::review::parse(data) else {
        return;
    };
    let rules = fuzz_rules();
    let request = review.core_request();
    for decision in [
        admission::validate(rules, &request),
        admission::mutate(rules, &request),
    ] {
        let answer = crate::review::respond(&review, &decision, 5);
        let text = serde_json::to_string(&answer).expect("an answer serializes");
        assert!(text.contains(&serde_json::to_string(&review.uid).expect("uid")));
    }
}

/// Any text gives a rule set or errors; a rule set that parses makes a mutating-webhook condition
/// within its cap and decides a few fixed objects.
pub fn rules_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let other = "domainFilters: [example.com]\nnamespaces:\n  team-a: { domainFilters: [team-a.example.com] }\n";
    let _ = RuleSet::from_sources(&[
        RuleSource {
            name: "a.yaml",
            text,
        },
        RuleSource {
            name: "b.yaml",
            text: other,
        },
    ]);
    let Ok(rules) = RuleSet::parse("rules.yaml", text) else {
        return;
    };
    let condition = condition::expression(&rules.inject);
    assert!(!condition.is_empty() && condition.len() <= condition::MAX_LEN);
    let ingress = json!({
        "metadata": {"name": "web", "annotations": {
            "external-dns.alpha.kubernetes.io/hostname": "a.example.com,b.team-a.example.com",
            "external-dns.kubernetes.io/ttl": "60"
        }},
        "spec": {"rules": [{"host": "shop.example.com"}], "tls": [{"hosts": ["*.example.com"]}]}
    });
    let sa = json!({"metadata": {"name": "app", "annotations": {
        "eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/app"
    }}});
    let service = json!({"metadata": {"name": "api"}, "spec": {"type": "LoadBalancer"}});
    for (group, kind, object) in [
        ("networking.k8s.io", "Ingress", &ingress),
        ("", "ServiceAccount", &sa),
        ("", "Service", &service),
    ] {
        let object = Node::from(object);
        let request = Request {
            operation: Operation::Create,
            group,
            version: "v1",
            kind,
            namespace: "team-a",
            name: "web",
            object: Some(&object),
            old_object: None,
            sub_resource: None,
        };
        let _ = admission::validate(&rules, &request);
        let _ = admission::mutate(&rules, &request);
    }
}

/// Arbitrary filters (plain and regex) and names: compiling, matching, explaining and the
/// hostname syntax checks never panic, and `matches` agrees with `explain`.
///
/// Input: lines. Line 1 is the name; the others are filters: `+x` include, `-x` exclude,
/// `~x` the include regex, `!x` the exclusion regex.
pub fn hostname_match(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let name = lines.next().unwrap_or("");
    let mut spec = FilterSpec::default();
    for line in lines {
        let cut = line.char_indices().nth(1).map_or(line.len(), |(i, _)| i);
        let (tag, rest) = line.split_at(cut);
        match tag {
            "+" => spec.include.push(rest.to_owned()),
            "-" => spec.exclude.push(rest.to_owned()),
            "~" => spec.regex_include = rest.to_owned(),
            "!" => spec.regex_exclude = rest.to_owned(),
            _ => {}
        }
    }
    let _ = normalize_name(name);
    let _ = hostname::syntax_problem(name);
    let _ = hostname::to_ascii(name);
    let registry = TxtRegistry {
        prefix: "%{record_type}-".into(),
        suffix: String::new(),
        wildcard_replacement: "star".into(),
    };
    let _ = hostname::txt_problem(name, &registry);
    let _ = hostname::gateway_drop(name);
    let _ = hostname::srv_syntax_problem(name);
    let _ = hostname::srv_txt_problem(name, &registry);
    if let Ok(filter) = DomainFilter::new(&spec) {
        let matched = filter.matches(name);
        assert_eq!(
            matched,
            filter.explain(name).is_match(),
            "matches and explain disagree on {name:?}"
        );
    }
}

/// Any document text gives a trust policy or an error; a policy that parses is evaluated for
/// a few web identities.
pub fn trust_eval(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(policy) = TrustPolicy::from_document(text) else {
        return;
    };
    for statement in policy.statements() {
        let _ = statement.describe();
    }
    let role = RoleArn::parse("arn:aws:iam::111122223333:role/app").expect("role ARN");
    for issuer in [
        "oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE",
        "https://oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE",
    ] {
        for (namespace, service_account, audience) in [
            ("team-a", "app", "sts.amazonaws.com"),
            ("kube-system", "external-dns", "sts.amazonaws.com"),
            ("", "", ""),
            ("ns*", "?", "sts.amazonaws.com"),
        ] {
            let who = WebIdentity {
                role: &role,
                issuer,
                namespace,
                service_account,
                audience,
            };
            let _ = evaluate_web_identity(&policy, &who);
        }
    }
}

/// Any text as a label or annotation filter gives a selector or an error. What the set-based
/// reading accepts, `labels.Parse`'s accepts too; each requirement, written back as a selector,
/// parses to itself; matching never panics.
///
/// Input: lines. Line 1 is the selector; the others are `key=value` labels (a line without `=`
/// is a key with the empty value).
pub fn selector_match(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let selector = lines.next().unwrap_or("");
    let labels: Vec<(&str, &str)> = lines
        .map(|l| l.split_once('=').unwrap_or((l, "")))
        .collect();
    let lookup = |k: &str| {
        labels
            .iter()
            .rev()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| *v)
    };
    let labels_parsed = Selector::parse_labels(selector);
    let set_based = Selector::parse_set_based(selector);
    assert!(
        set_based.is_err() || labels_parsed.is_ok(),
        "{selector:?}: the set-based reading accepts what labels.Parse refuses"
    );
    for parsed in [labels_parsed, set_based].into_iter().flatten() {
        let matched = parsed.matches(lookup);
        assert_eq!(matched, parsed.first_unmet(lookup).is_none());
        for r in parsed.requirements() {
            let again = Selector::parse_labels(&r.to_string())
                .unwrap_or_else(|e| panic!("{r} (of {selector:?}) does not parse again: {e}"));
            assert_eq!(
                again.requirements(),
                std::slice::from_ref(r),
                "{r} (of {selector:?})"
            );
            assert_eq!(r.matches(lookup(r.key())), again.matches(lookup));
        }
    }
}

/// Any text as an fqdn template gives a template or an error; a template run on an object
/// (of each kind) gives names or an error: each name not empty and without a comma, sorted and
/// once, all of them within the output cap.
///
/// Input: the template, then optionally a line `---` and the object as JSON (a fixed object
/// when that is absent or not JSON).
pub fn fqdn_template(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, object) = text.split_once("\n---\n").unwrap_or((text, ""));
    let object: serde_json::Value = serde_json::from_str(object).unwrap_or_else(|_| {
        serde_json::json!({"metadata": {"name": "web", "namespace": "team-a",
            "labels": {"team": "pay"}, "annotations": {"names": "[\"a\",\"b\"]"}},
            "spec": {"rules": [{"host": "a.example.com"}], "hostnames": ["r.example.com"]}})
    });
    let Ok(Some(parsed)) = FqdnTemplate::parse(&[template.to_string()]) else {
        return;
    };
    for kind in ["Ingress", "Service", "HTTPRoute"] {
        let Ok(names) = parsed.names(kind, "team-a", &Node::from(&object)) else {
            continue;
        };
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "{names:?}: sorted, each once"
        );
        assert!(names.iter().map(String::len).sum::<usize>() <= 1 << 20);
        for name in &names {
            assert!(!name.is_empty() && !name.contains(','), "{name:?}");
        }
    }
}
