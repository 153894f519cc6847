//! The IAM mode's keys: how they read, default, fail and combine.

use super::*;

const IAM_RULES: &str = r#"
irsa:
  source: iam
  checkProvider: true
  cacheTTL: 2m
  negativeCacheTTL: 10s
  callTimeout: 800ms
  accountReaders:
    "444455556666": arn:aws:iam::444455556666:role/zoneguard-reader
  chains:
    - serviceAccount: external-dns/external-dns
      assumes: arn:aws:iam::444455556666:role/external-dns-route53
"#;

#[test]
fn iam_mode_keys_compile() {
    let rules = RuleSet::parse("r", IAM_RULES).unwrap_or_else(|e| panic!("{e:?}"));
    let irsa = &rules.irsa;
    assert_eq!(irsa.source, IrsaSource::Iam);
    assert!(irsa.check_provider);
    assert_eq!(irsa.cache_ttl, Duration::from_secs(120));
    assert_eq!(irsa.negative_cache_ttl, Duration::from_secs(10));
    assert_eq!(irsa.call_timeout, Duration::from_millis(800));
    assert_eq!(
        irsa.account_readers["444455556666"].to_string(),
        "arn:aws:iam::444455556666:role/zoneguard-reader"
    );
    let chains: Vec<&Chain> = irsa.chains_of("external-dns", "external-dns").collect();
    assert_eq!(chains.len(), 1);
    assert_eq!(chains[0].assumes.name, "external-dns-route53");
    assert_eq!(irsa.chains_of("external-dns", "other").count(), 0);
}

#[test]
fn iam_mode_defaults() {
    let rules = RuleSet::parse("r", "").unwrap_or_else(|e| panic!("{e:?}"));
    let irsa = &rules.irsa;
    assert_eq!(irsa.source, IrsaSource::Static);
    assert!(!irsa.check_provider);
    assert_eq!(irsa.cache_ttl, Duration::from_secs(300));
    assert_eq!(irsa.negative_cache_ttl, Duration::from_secs(30));
    assert_eq!(irsa.call_timeout, Duration::from_secs(1));
    assert!(irsa.account_readers.is_empty() && irsa.chains.is_empty());
}

#[test]
fn iam_mode_errors_name_the_key_and_the_line() {
    let table: [(&str, &str, usize, &str); 10] = [
        (
            "irsa:\n  source: live\n",
            "irsa.source",
            2,
            "\"live\" is not a valid source; write one of static, iam",
        ),
        (
            "irsa:\n  accountReaders:\n    \"12\": arn:aws:iam::111122223333:role/r\n",
            "irsa.accountReaders.12",
            3,
            "not an AWS account id",
        ),
        (
            "irsa:\n  accountReaders:\n    \"111122223333\": arn:aws:iam::444455556666:role/r\n",
            "irsa.accountReaders.111122223333",
            3,
            "is in account 444455556666, not 111122223333",
        ),
        (
            "irsa:\n  accountReaders:\n    \"111122223333\": role/r\n",
            "irsa.accountReaders.111122223333",
            3,
            "is not a role ARN",
        ),
        (
            "irsa:\n  chains:\n    - serviceAccount: external-dns\n      assumes: arn:aws:iam::111122223333:role/r\n",
            "irsa.chains[0].serviceAccount",
            3,
            "write \"<namespace>/<name>\"",
        ),
        (
            "irsa:\n  chains:\n    - serviceAccount: a/b\n      assumes: r\n",
            "irsa.chains[0].assumes",
            4,
            "is not a role ARN",
        ),
        ("irsa:\n  cacheTTL: 5\n", "irsa.cacheTTL", 2, "is not a duration"),
        (
            "irsa:\n  callTimeout: 1m\n",
            "irsa.callTimeout",
            2,
            "longer than the maximum 10s",
        ),
        ("irsa:\n  callTimeout: 0s\n", "irsa.callTimeout", 2, "longer than 0s"),
        (
            "irsa:\n  issuer: http://oidc.example/id/A\n",
            "irsa.issuer",
            2,
            "is an https URL (IAM refuses any other scheme), not http://",
        ),
    ];
    for (text, key, line, message) in table {
        let e = one_error(text);
        assert_eq!((e.key.as_str(), e.line), (key, line), "{text:?}: {e}");
        assert!(e.message.contains(message), "{text:?}: {e}");
    }
    let e = one_error("irsa:\n  chains:\n    - serviceAccount: a/b\n      assume: x\n");
    assert!(
        e.message
            .starts_with("unknown key `assume`; did you mean `assumes`?"),
        "{e}"
    );
}

#[test]
fn iam_mode_keys_combine_lists_union_scalars_and_readers_agree() {
    let chain = |sa: &str| {
        format!("irsa: {{chains: [{{serviceAccount: {sa}, assumes: 'arn:aws:iam::111122223333:role/t'}}]}}\n")
    };
    let (a, b) = (chain("a/x"), chain("b/y"));
    let both = [
        RuleSource {
            name: "a",
            text: &a,
        },
        RuleSource {
            name: "b",
            text: &b,
        },
        RuleSource {
            name: "c",
            text: &a,
        },
    ];
    let rules = RuleSet::from_sources(&both).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.irsa.chains.len(), 2);
    let reader = |arn: &str| format!("irsa: {{accountReaders: {{'111122223333': '{arn}'}}}}\n");
    let (r1, r2) = (
        reader("arn:aws:iam::111122223333:role/r1"),
        reader("arn:aws:iam::111122223333:role/r2"),
    );
    let same = [
        RuleSource {
            name: "a",
            text: &r1,
        },
        RuleSource {
            name: "b",
            text: &r1,
        },
    ];
    assert!(RuleSet::from_sources(&same).is_ok());
    let differ = [
        RuleSource {
            name: "a",
            text: &r1,
        },
        RuleSource {
            name: "b",
            text: &r2,
        },
    ];
    let errors = RuleSet::from_sources(&differ).err().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key, "irsa.accountReaders.111122223333");
    let scalars = [
        RuleSource {
            name: "a",
            text: "irsa: {source: iam, cacheTTL: 1m}\n",
        },
        RuleSource {
            name: "b",
            text: "irsa: {source: static, cacheTTL: 1m}\n",
        },
    ];
    let errors = RuleSet::from_sources(&scalars).err().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key, "irsa.source");
}
