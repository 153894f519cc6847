//! The generic request a trust policy is evaluated against: an action, a principal, and
//! the request context (condition keys and their values).
//!
//! `sts:AssumeRoleWithWebIdentity` (IRSA) builds one of these; so can `sts:AssumeRole` for
//! role chains (an `AWS` principal naming a role session, a role or an account).

use std::collections::BTreeMap;

/// The principal types of IAM's `Principal` element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrincipalKind {
    Aws,
    Federated,
    Service,
    CanonicalUser,
}

impl PrincipalKind {
    /// The key that names this kind in a policy (`AWS`, `Federated`, …).
    pub fn policy_key(self) -> &'static str {
        match self {
            PrincipalKind::Aws => "AWS",
            PrincipalKind::Federated => "Federated",
            PrincipalKind::Service => "Service",
            PrincipalKind::CanonicalUser => "CanonicalUser",
        }
    }

    /// Parses a policy key; exact spelling, as IAM requires.
    pub fn from_policy_key(key: &str) -> Option<Self> {
        match key {
            "AWS" => Some(PrincipalKind::Aws),
            "Federated" => Some(PrincipalKind::Federated),
            "Service" => Some(PrincipalKind::Service),
            "CanonicalUser" => Some(PrincipalKind::CanonicalUser),
            _ => None,
        }
    }
}

/// Who makes the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestPrincipal {
    pub kind: PrincipalKind,
    /// An OIDC provider ARN (`Federated`), a role or role-session ARN, account root or
    /// account id (`AWS`), a service name (`Service`).
    pub id: String,
}

/// What the request context says about one condition key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState<'a> {
    /// The key is present with these values (never empty).
    Present(&'a [String]),
    /// The key is not in the request.
    Absent,
    /// The key is in the real request, but its value is not known when evaluating.
    Unknown,
}

/// Condition keys and values. Key names are case-insensitive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    values: BTreeMap<String, Vec<String>>,
    unknown_exact: Vec<String>,
    unknown_prefixes: Vec<String>,
    /// Which of the keys of [`UNKNOWN_STS_KEYS`] and [`UNKNOWN_STS_PREFIXES`] are unknown (a
    /// flag, not 25 lower-cased copies per request).
    sts_keys: StsCall,
}

/// The STS call a context is for, which decides the keys it carries with values zoneguard
/// cannot know.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum StsCall {
    /// None: only the keys marked one by one.
    #[default]
    Unmarked,
    /// `AssumeRoleWithWebIdentity`, which is not signed: the keys only a request signed with
    /// temporary credentials ([`SIGNED_ONLY_KEYS`]) are absent.
    WebIdentity,
    /// A signed call (`AssumeRole` in a role chain).
    Signed,
}

impl Context {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a key's values (an empty list removes it).
    pub fn set(&mut self, key: &str, values: Vec<String>) -> &mut Self {
        let key = key.to_lowercase();
        if values.is_empty() {
            self.values.remove(&key);
        } else {
            self.values.insert(key, values);
        }
        self
    }

    /// Marks a key whose value exists at request time but is unknown now.
    pub fn mark_unknown(&mut self, key: &str) -> &mut Self {
        self.unknown_exact.push(key.to_lowercase());
        self
    }

    /// Marks every key that starts with `prefix` (e.g. `aws:RequestTag/`) as unknown.
    pub fn mark_unknown_prefix(&mut self, prefix: &str) -> &mut Self {
        self.unknown_prefixes.push(prefix.to_lowercase());
        self
    }

    /// Marks the global keys that signed STS requests carry with values zoneguard cannot know
    /// (source address, time, transport, tags, session names, the token's issue time, …).
    pub fn mark_sts_request_keys_unknown(&mut self) -> &mut Self {
        self.sts_keys = StsCall::Signed;
        self
    }

    /// Marks the global keys that an `AssumeRoleWithWebIdentity` request carries with values
    /// zoneguard cannot know: those of [`Self::mark_sts_request_keys_unknown`] but the keys only
    /// a request signed with temporary credentials or made through a service carries
    /// (`aws:TokenIssueTime`, `aws:CalledVia…`), which the unsigned call from a pod lacks.
    pub fn mark_web_identity_request_keys_unknown(&mut self) -> &mut Self {
        self.sts_keys = StsCall::WebIdentity;
        self
    }

    pub fn lookup(&self, key: &str) -> KeyState<'_> {
        let key = key.to_lowercase();
        if let Some(values) = self.values.get(&key) {
            return KeyState::Present(values);
        }
        let unknown = self.unknown_exact.contains(&key)
            || self.unknown_prefixes.iter().any(|p| key.starts_with(p))
            || self.sts_keys.carries_unknown(&key);
        if unknown {
            KeyState::Unknown
        } else {
            KeyState::Absent
        }
    }
}

const UNKNOWN_STS_KEYS: [&str; 23] = [
    "aws:SourceIp",
    "aws:SourceVpc",
    "aws:SourceVpce",
    "aws:VpcSourceIp",
    "aws:UserAgent",
    "aws:Referer",
    "aws:CurrentTime",
    "aws:EpochTime",
    "aws:SecureTransport",
    "aws:RequestedRegion",
    "aws:TagKeys",
    "aws:TokenIssueTime",
    "aws:CalledVia",
    "aws:CalledViaFirst",
    "aws:CalledViaLast",
    "aws:ViaAWSService",
    "aws:ResourceAccount",
    "aws:ResourceOrgID",
    "aws:ResourceOrgPaths",
    "aws:SourceIdentity",
    "sts:RoleSessionName",
    "sts:TransitiveTagKeys",
    "sts:SourceIdentity",
];

const UNKNOWN_STS_PREFIXES: [&str; 2] = ["aws:RequestTag/", "aws:ResourceTag/"];

/// The keys of [`UNKNOWN_STS_KEYS`] that only a request signed with temporary credentials
/// (`aws:TokenIssueTime`) or made by a service on the caller's behalf (`aws:CalledVia…`) carries.
const SIGNED_ONLY_KEYS: [&str; 4] = [
    "aws:TokenIssueTime",
    "aws:CalledVia",
    "aws:CalledViaFirst",
    "aws:CalledViaLast",
];

impl StsCall {
    /// True when the lower-cased `key` is in the request with a value zoneguard cannot know.
    fn carries_unknown(self, key: &str) -> bool {
        match self {
            Self::Unmarked => false,
            Self::Signed => is_sts_request_key(key),
            Self::WebIdentity => {
                is_sts_request_key(key)
                    && !SIGNED_ONLY_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
            }
        }
    }
}

/// True when the lower-cased `key` is one of the keys every STS request carries. The lists
/// are ASCII, so comparing without ASCII case is comparing with their lower-case form.
fn is_sts_request_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    UNKNOWN_STS_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
        || UNKNOWN_STS_PREFIXES
            .iter()
            .any(|p| bytes.len() >= p.len() && bytes[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

/// One request to evaluate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// E.g. `sts:AssumeRoleWithWebIdentity`.
    pub action: String,
    pub principal: RequestPrincipal,
    pub context: Context,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_keys_are_case_insensitive_and_classified() {
        let mut context = Context::new();
        context
            .set("Issuer:Sub", vec!["x".into()])
            .mark_sts_request_keys_unknown();
        assert_eq!(
            context.lookup("issuer:sub"),
            KeyState::Present(&["x".to_owned()])
        );
        assert_eq!(context.lookup("AWS:SOURCEIP"), KeyState::Unknown);
        assert_eq!(context.lookup("aws:RequestTag/team"), KeyState::Unknown);
        assert_eq!(context.lookup("AWS:RESOURCETAG/x"), KeyState::Unknown);
        // U+212A KELVIN SIGN lower-cases to an ASCII 'k', as every key is folded here.
        assert_eq!(context.lookup("aws:Tag\u{212A}eys"), KeyState::Unknown);
        assert_eq!(context.lookup("aws:PrincipalArn"), KeyState::Absent);
        assert_eq!(Context::new().lookup("aws:SourceIp"), KeyState::Absent);
        context.set("issuer:sub", vec![]);
        assert_eq!(context.lookup("issuer:sub"), KeyState::Absent);
    }

    #[test]
    fn the_unsigned_web_identity_call_lacks_the_keys_only_signed_calls_carry() {
        let mut signed = Context::new();
        signed.mark_sts_request_keys_unknown();
        let mut web = Context::new();
        web.mark_web_identity_request_keys_unknown();
        for key in ["aws:TokenIssueTime", "AWS:CALLEDVIA", "aws:CalledViaLast"] {
            assert_eq!(signed.lookup(key), KeyState::Unknown, "{key}");
            assert_eq!(web.lookup(key), KeyState::Absent, "{key}");
        }
        for key in ["aws:SourceIp", "aws:RequestTag/team", "sts:RoleSessionName"] {
            assert_eq!(web.lookup(key), KeyState::Unknown, "{key}");
        }
    }
}
