//! The pod identity webhook's two other ServiceAccount annotations, the projected token's
//! lifetime and the regional STS endpoint, read as that webhook reads them: a value it cannot
//! parse is ignored without a word (its log at level 4), so zoneguard says so at apply time.

use super::Findings;
use crate::annotation;
use crate::tree::Node;
use crate::verdict::{Reason, Violation, Warning};

pub const TOKEN_EXPIRATION: &str = "eks.amazonaws.com/token-expiration";
pub const STS_REGIONAL_ENDPOINTS: &str = "eks.amazonaws.com/sts-regional-endpoints";

/// The pod identity webhook raises a shorter lifetime to this (the API server's floor).
const MIN_SECONDS: i64 = 600;
/// The pod identity webhook's default lifetime (its `--token-expiration` flag's default),
/// used when the annotation cannot be read.
const DEFAULT_SECONDS: i64 = 86_400;
/// The longest `expirationSeconds` the API server accepts in a pod's projected token.
const MAX_SECONDS: i64 = 1 << 32;

/// Checks both annotations of a ServiceAccount that names a role.
pub(super) fn check(object: &Node<'_>, out: &mut Findings) {
    if let Some(value) = annotation::get(object, TOKEN_EXPIRATION) {
        token_expiration(value, out);
    }
    if let Some(value) = annotation::get(object, STS_REGIONAL_ENDPOINTS) {
        if go_bool(value).is_none() {
            out.warnings.push(Warning::new(format!("{} {value:?} is not true or false: the pod identity webhook ignores it and uses its own default (its --sts-regional-endpoint flag); write \"true\" or \"false\"", annotation::field(STS_REGIONAL_ENDPOINTS))));
        }
    }
}

/// `eks.amazonaws.com/token-expiration`: an integer number of seconds (Go's `ParseInt`, as
/// the pod identity webhook reads it).
fn token_expiration(value: &str, out: &mut Findings) {
    let field = annotation::field(TOKEN_EXPIRATION);
    let Some(seconds) = annotation::parse_go_int(value) else {
        out.warnings.push(Warning::new(format!("{field} {value:?} is not a whole number of seconds: the pod identity webhook ignores it and the pods' token gets its default lifetime ({DEFAULT_SECONDS} s unless its --token-expiration flag says otherwise); write seconds as digits, e.g. \"3600\"")));
        return;
    };
    if seconds < MIN_SECONDS {
        out.warnings.push(Warning::new(format!("{field} {value:?} is below {MIN_SECONDS} s: the pod identity webhook raises it to {MIN_SECONDS} s, the shortest token lifetime the API server accepts; write {MIN_SECONDS} or more, or remove the annotation for the default of {DEFAULT_SECONDS} s")));
    } else if seconds > MAX_SECONDS {
        let fault = format!("is above 2^32 s: the pod identity webhook puts it in the pods' projected token as it is, and the API server then refuses every pod of this ServiceAccount (\"may not specify a duration larger than 2^32 seconds\"); write at most {MAX_SECONDS}, or remove the annotation for the default of {DEFAULT_SECONDS} s");
        let reason = Reason::AnnotationInvalid;
        out.violations
            .push(Violation::new(field, value, reason, fault));
    }
}

/// Go's `strconv.ParseBool`.
fn go_bool(value: &str) -> Option<bool> {
    match value {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(key: &str, value: &str) -> Findings {
        let object = serde_json::json!({"metadata": {"annotations": {key: value}}});
        let mut out = Findings::default();
        check(&Node::from(&object), &mut out);
        out
    }

    #[test]
    fn token_expirations_the_webhook_uses_as_written_pass_without_a_word() {
        for value in ["600", "3600", "86400", "+7200", "4294967296"] {
            let f = findings(TOKEN_EXPIRATION, value);
            assert!(
                f.violations.is_empty() && f.warnings.is_empty(),
                "{value}: {f:?}"
            );
        }
    }

    #[test]
    fn token_expirations_the_webhook_ignores_are_warned_about() {
        for value in [
            "1h",
            "3600s",
            " 3600",
            "",
            "0x258",
            "1e4",
            "99999999999999999999",
        ] {
            let f = findings(TOKEN_EXPIRATION, value);
            assert!(f.violations.is_empty(), "{value}: {f:?}");
            assert_eq!(f.warnings.len(), 1, "{value}: {f:?}");
            assert!(
                f.warnings[0]
                    .message()
                    .contains("is not a whole number of seconds"),
                "{f:?}"
            );
            assert!(
                f.warnings[0]
                    .message()
                    .contains("its default lifetime (86400 s"),
                "{f:?}"
            );
        }
    }

    #[test]
    fn a_token_expiration_below_ten_minutes_is_warned_about_as_raised() {
        for value in ["599", "0", "-5"] {
            let f = findings(TOKEN_EXPIRATION, value);
            assert!(f.violations.is_empty(), "{value}: {f:?}");
            assert!(
                f.warnings[0].message().contains("raises it to 600 s"),
                "{f:?}"
            );
            assert!(
                f.warnings[0].message().ends_with(
                    "; write 600 or more, or remove the annotation for the default of 86400 s"
                ),
                "{f:?}"
            );
        }
    }

    #[test]
    fn a_token_expiration_the_api_server_refuses_in_pods_is_a_violation() {
        let f = findings(TOKEN_EXPIRATION, "4294967297");
        assert!(f.warnings.is_empty(), "{f:?}");
        let v = &f.violations[0];
        assert_eq!(v.reason, Reason::AnnotationInvalid);
        assert_eq!(
            v.field,
            r#"metadata.annotations["eks.amazonaws.com/token-expiration"]"#
        );
        assert!(v.message().contains("refuses every pod"), "{}", v.message());
    }

    #[test]
    fn sts_regional_endpoints_takes_the_values_go_parses_as_booleans() {
        for value in ["true", "false", "True", "FALSE", "1", "0", "t", "F"] {
            let f = findings(STS_REGIONAL_ENDPOINTS, value);
            assert!(f.warnings.is_empty(), "{value}: {f:?}");
        }
        for value in ["yes", "regional", "", " true", "TRUE "] {
            let f = findings(STS_REGIONAL_ENDPOINTS, value);
            assert!(f.violations.is_empty(), "{value}: {f:?}");
            assert!(
                f.warnings[0].message().contains("is not true or false"),
                "{value}: {f:?}"
            );
        }
    }
}
