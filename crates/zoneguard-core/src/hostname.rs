//! Hostname checks beyond the domain filters: DNS syntax, the names external-dns's
//! Gateway API source drops, SRV names and TXT ownership length.

use crate::rules::TxtRegistry;

/// The longest record type external-dns may write a TXT ownership record for.
const LONGEST_TYPE: &str = "cname";

/// The record type of a NodePort Service's SRV records, as external-dns writes it in TXT names.
const SRV_TYPE: &str = "srv";

/// Which characters a name's labels may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Labels {
    /// A host name's (RFC 1123): letters, digits and `-`.
    Host,
    /// Any DNS record's, as a DNSEndpoint names them: `_` too (`_acme-challenge`, `_dmarc`,
    /// `_sip._tcp`, ACM's validation CNAMEs), which external-dns publishes as written.
    Record,
}

impl Labels {
    fn allows(self, b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'-' || (b == b'_' && self == Self::Record)
    }

    fn described(self) -> &'static str {
        match self {
            Self::Host => "letters, digits and '-'",
            Self::Record => "letters, digits, '-' and '_'",
        }
    }
}

/// Why a name is not a host name external-dns can publish as written.
pub fn syntax_problem(name: &str) -> Option<String> {
    syntax_problem_of(name, Labels::Host)
}

/// Why a DNSEndpoint's name is not a DNS name external-dns can publish as written: as
/// [`syntax_problem`], but its labels may hold `_`.
pub fn record_syntax_problem(name: &str) -> Option<String> {
    syntax_problem_of(name, Labels::Record)
}

fn syntax_problem_of(name: &str, labels: Labels) -> Option<String> {
    if plain_valid(name, labels) {
        return None;
    }
    explain_syntax(name, labels)
}

/// The common case without allocating: an ASCII name (one trailing dot allowed) that
/// [`explain_syntax`] would accept without converting an IDN label. False means "ask
/// [`explain_syntax`]", not "invalid".
fn plain_valid(name: &str, allowed: Labels) -> bool {
    let trimmed = name.strip_suffix('.').unwrap_or(name);
    if trimmed.is_empty() || trimmed.len() > 253 {
        return false;
    }
    let labels = trimmed.as_bytes().split(|b| *b == b'.');
    labels.enumerate().all(|(i, bytes)| {
        if bytes == b"*" {
            return i == 0;
        }
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes.iter().all(|b| allowed.allows(*b))
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
            && !is_ace(bytes)
    })
}

/// An IDN label in its ASCII (Punycode) form, which only the full checks convert.
fn is_ace(label: &[u8]) -> bool {
    label.len() > 4 && label[..4].eq_ignore_ascii_case(b"xn--")
}

fn explain_syntax(name: &str, labels: Labels) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!("it contains the character {c:?}"));
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '/' | ':' | '@')) {
        return Some(format!(
            "it contains {c:?} (a URL or an address, not a host name)"
        ));
    }
    let trimmed = name.strip_suffix('.').unwrap_or(name);
    let ascii = match to_ascii(trimmed) {
        Ok(a) => a,
        Err(why) => return Some(why),
    };
    if ascii.len() > 253 {
        return Some(format!(
            "it is {} octets long; a DNS name has at most 253",
            ascii.len()
        ));
    }
    ascii
        .split('.')
        .enumerate()
        .find_map(|(i, label)| label_problem(i, label, labels))
}

fn label_problem(index: usize, label: &str, allowed: Labels) -> Option<String> {
    if label.is_empty() {
        return Some("it has an empty label (two dots in a row, or a dot at an end)".into());
    }
    if label == "*" {
        return (index != 0).then(|| "'*' is allowed only as the whole leftmost label".to_string());
    }
    if label.len() > 63 {
        return Some(format!(
            "its label {label:?} is {} octets long; a label has at most 63",
            label.len()
        ));
    }
    if let Some(c) = label
        .chars()
        .find(|c| !u8::try_from(*c).is_ok_and(|b| allowed.allows(b)))
    {
        return Some(format!(
            "its label {label:?} contains {c:?}; labels hold only {}",
            allowed.described()
        ));
    }
    if label.starts_with('-') || label.ends_with('-') {
        return Some(format!("its label {label:?} starts or ends with '-'"));
    }
    None
}

/// Why external-dns's Gateway API source (`gwHost`) drops a route or listener hostname.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatewayDrop {
    /// An IPv4 or IPv6 address.
    IpAddress,
    /// Not ASCII (an IDN written in Unicode).
    NotAscii,
    /// ASCII, but not an RFC 1123 name after one leading `*.`.
    NotRfc1123,
}

/// external-dns v0.22.0's `gwHost`: the empty name (any host) passes; an IP address, or a name
/// that is not an ASCII RFC 1123 domain once one leading `*.` is removed, is dropped.
pub fn gateway_drop(name: &str) -> Option<GatewayDrop> {
    if name.is_empty() {
        return None;
    }
    if name.parse::<std::net::IpAddr>().is_ok() {
        return Some(GatewayDrop::IpAddress);
    }
    if is_dns1123_domain(name.strip_prefix("*.").unwrap_or(name)) {
        return None;
    }
    Some(if name.is_ascii() {
        GatewayDrop::NotRfc1123
    } else {
        GatewayDrop::NotAscii
    })
}

/// external-dns's `isDNS1123Domain`: 1..255 octets of labels cut at each `.` (so one trailing
/// dot passes).
fn is_dns1123_domain(name: &str) -> bool {
    if name.is_empty() || name.len() > 255 {
        return false;
    }
    let mut rest = name;
    while !rest.is_empty() {
        let (label, after) = rest.split_once('.').unwrap_or((rest, ""));
        if !is_dns1123_label(label.as_bytes()) {
            return false;
        }
        rest = after;
    }
    true
}

/// external-dns's `isDNS1123Label`: 1..63 ASCII letters, digits and interior `-`.
fn is_dns1123_label(label: &[u8]) -> bool {
    let (Some(first), Some(last)) = (label.first(), label.last()) else {
        return false;
    };
    label.len() <= 63
        && first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && label
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
}

/// Why the SRV name `_<service>._<protocol>.<host>` of a NodePort Service is not one external-dns
/// can publish, and the fix. Its first two labels may start with `_`; the host is judged as any
/// hostname.
pub fn srv_syntax_problem(name: &str) -> Option<(String, &'static str)> {
    let (service, rest) = name.split_once('.').unwrap_or((name, ""));
    let (protocol, host) = rest.split_once('.').unwrap_or((rest, ""));
    if let Some(problem) = service_label_problem(service) {
        return Some((problem, "use a Service name of at most 62 characters"));
    }
    if let Some(problem) = service_label_problem(protocol) {
        return Some((problem, "use the port protocol TCP, UDP or SCTP"));
    }
    let fix = "correct the hostname";
    if let Some(problem) = syntax_problem(host) {
        return Some((problem, fix));
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    let host_len = if host.is_ascii() {
        host.len()
    } else {
        to_ascii(host).map_or(0, |a| a.len())
    };
    let len = service.len() + protocol.len() + 2 + host_len;
    (len > 253).then(|| {
        let problem = format!("it is {len} octets long; a DNS name has at most 253");
        (problem, "use a shorter hostname")
    })
}

/// An SRV service label: `_` and an RFC 1123 label, at most 63 octets in all.
fn service_label_problem(label: &str) -> Option<String> {
    let bytes = label.as_bytes();
    if bytes.len() > 63 {
        return Some(format!(
            "its label {label:?} is {} octets long; a label has at most 63",
            bytes.len()
        ));
    }
    match label.strip_prefix('_') {
        Some(rest) if is_dns1123_label(rest.as_bytes()) => None,
        Some(rest) => Some(label_problem(1, rest, Labels::Host).unwrap_or_else(|| {
            format!("its label {label:?} is not '_' followed by letters, digits and '-'")
        })),
        None => Some(format!("its label {label:?} does not start with '_'")),
    }
}

/// UTS-46 ASCII form of a name (labels already ASCII stay as they are, lower-cased).
pub fn to_ascii(name: &str) -> Result<String, String> {
    if name.is_ascii() && !name.split('.').any(|l| is_ace(l.as_bytes())) {
        return Ok(name.to_ascii_lowercase());
    }
    let labels: Result<Vec<String>, String> = name
        .split('.')
        .map(|label| {
            if label == "*" || label.is_empty() {
                return Ok(label.to_string());
            }
            idna::domain_to_ascii(label).map_err(|_| {
                format!("its label {label:?} is not a valid internationalised (IDN) label")
            })
        })
        .collect();
    labels.map(|l| l.join("."))
}

/// A TXT ownership name with a label over 63 octets: what is wrong, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxtProblem {
    pub problem: String,
    pub fix: String,
}

/// `problem: fix`.
impl std::fmt::Display for TxtProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.problem, self.fix)
    }
}

/// The TXT ownership name external-dns would write for `name`, assuming the
/// longest record type, when one of its labels would exceed 63 octets.
pub fn txt_problem(name: &str, registry: &TxtRegistry) -> Option<TxtProblem> {
    txt_problem_as(name, registry, LONGEST_TYPE)
}

/// [`txt_problem`] for the SRV name of a NodePort Service, whose TXT name has the type `srv`.
pub fn srv_txt_problem(name: &str, registry: &TxtRegistry) -> Option<TxtProblem> {
    txt_problem_as(name, registry, SRV_TYPE)
}

fn txt_problem_as(name: &str, registry: &TxtRegistry, record_type: &str) -> Option<TxtProblem> {
    if txt_surely_fits(name, registry, record_type) {
        return None;
    }
    explain_txt(name, registry, record_type)
}

fn explain_txt(name: &str, registry: &TxtRegistry, record_type: &str) -> Option<TxtProblem> {
    let ascii = to_ascii(name.strip_suffix('.').unwrap_or(name)).ok()?;
    let txt = txt_name_as(&ascii, registry, record_type);
    let first = txt.split('.').find(|l| l.len() > 63)?;
    let over = first.len() - 63;
    let service = ascii
        .split('.')
        .next()
        .and_then(|l| l.strip_prefix('_'))
        .filter(|s| record_type == SRV_TYPE && first.contains(&format!("_{s}")));
    let fix = match service {
        Some(service) => srv_txt_fix(service, over, registry),
        None => format!("shorten the first label by {over} or more"),
    };
    Some(TxtProblem {
        problem: format!(
            "external-dns's TXT ownership record for it would be {txt:?}, whose label {first:?} is {} octets (at most 63); the record could not be written and external-dns would not own the name",
            first.len()
        ),
        fix,
    })
}

/// The fix for an SRV name's TXT label that is `over` octets too long: the label is made of the
/// Service's name (`_<service>`), so that name is what its owner can shorten.
fn srv_txt_fix(service: &str, over: usize, registry: &TxtRegistry) -> String {
    let affixes = match (registry.prefix.is_empty(), registry.suffix.is_empty()) {
        (false, true) => Some("txtPrefix"),
        (true, false) => Some("txtSuffix"),
        (false, false) => Some("txtPrefix or txtSuffix"),
        (true, true) => None,
    };
    let characters = if over == 1 { "character" } else { "characters" };
    match affixes {
        Some(a) if over >= service.len() => {
            format!("ask the platform team for a shorter {a} (no Service name is short enough)")
        }
        Some(a) => format!(
            "shorten the Service name by {over} {characters} or more (or ask the platform team for a shorter {a})"
        ),
        None => format!("shorten the Service name by {over} {characters} or more"),
    }
}

/// True when no label of the TXT name can exceed 63 octets, judged from lengths alone: an
/// ASCII name without IDN labels keeps its length in ASCII form, and without
/// `%{record_type}` the first TXT label lies within `prefix + "<type>-" + label + suffix`.
/// False means "build the name and look", not "too long".
fn txt_surely_fits(name: &str, registry: &TxtRegistry, record_type: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    if !name.is_ascii() || registry.prefix.contains('%') || registry.suffix.contains('%') {
        return false;
    }
    let mut labels = name.as_bytes().split(|b| *b == b'.');
    let first = labels.next().unwrap_or_default();
    let first_len = if first == b"*" && !registry.wildcard_replacement.is_empty() {
        registry.wildcard_replacement.len()
    } else {
        first.len()
    };
    let affixes = registry.prefix.len() + record_type.len() + 1 + registry.suffix.len();
    affixes + first_len <= 63 && !is_ace(first) && labels.all(|l| l.len() <= 63 && !is_ace(l))
}

/// external-dns's `toTXTName` for the longest record type.
pub fn txt_name(name: &str, registry: &TxtRegistry) -> String {
    txt_name_as(name, registry, LONGEST_TYPE)
}

/// external-dns's `toTXTName` (registry/mapper `AffixNameMapper.ToTXTName`) for `record_type`.
fn txt_name_as(name: &str, registry: &TxtRegistry, record_type: &str) -> String {
    let (first, rest) = match name.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (name, None),
    };
    let typed =
        registry.prefix.contains("%{record_type}") || registry.suffix.contains("%{record_type}");
    let prefix = registry.prefix.replace("%{record_type}", record_type);
    let suffix = registry.suffix.replace("%{record_type}", record_type);
    let mut label = if first == "*" && !registry.wildcard_replacement.is_empty() {
        registry.wildcard_replacement.clone()
    } else {
        first.to_string()
    };
    if !typed {
        label = format!("{record_type}-{label}");
    }
    match rest {
        Some(rest) => format!("{prefix}{label}{suffix}.{rest}"),
        None => format!("{prefix}{label}{suffix}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Names close to the edges the fast paths judge: label lengths around 63, `*`, `-`,
    /// `xn--`, upper case, a trailing dot, and a few bytes that are never valid.
    fn edgy_name() -> impl Strategy<Value = String> {
        let label = prop_oneof![
            "[a-z0-9]{1,3}",
            "[a-zA-Z0-9-]{0,8}",
            "[a-z]{55,66}",
            Just("*".to_string()),
            "xn--[a-z0-9-]{0,10}",
            "[a-z_ /:@é]{1,4}",
        ];
        (prop::collection::vec(label, 1..6), any::<bool>())
            .prop_map(|(labels, dot)| labels.join(".") + if dot { "." } else { "" })
    }

    fn edgy_registry() -> impl Strategy<Value = TxtRegistry> {
        let affix = prop_oneof![
            Just(String::new()),
            "[a-z-]{0,12}",
            "[a-z]{0,4}\\.",
            Just("%{record_type}-".to_string()),
        ];
        (
            affix.clone(),
            affix,
            prop_oneof![Just(String::new()), "[a-z]{1,70}"],
        )
            .prop_map(|(prefix, suffix, wildcard_replacement)| TxtRegistry {
                prefix,
                suffix,
                wildcard_replacement,
            })
    }

    proptest! {
        #[test]
        fn the_syntax_fast_path_only_accepts_what_the_full_check_accepts(name in edgy_name()) {
            for labels in [Labels::Host, Labels::Record] {
                if plain_valid(&name, labels) {
                    prop_assert_eq!(explain_syntax(&name, labels), None);
                }
            }
        }

        #[test]
        fn the_txt_fast_path_only_passes_what_the_full_check_passes(
            name in edgy_name(),
            registry in edgy_registry(),
        ) {
            for record_type in [LONGEST_TYPE, SRV_TYPE] {
                if txt_surely_fits(&name, &registry, record_type) {
                    prop_assert_eq!(explain_txt(&name, &registry, record_type), None);
                }
            }
        }
    }

    #[test]
    fn ordinary_names_take_the_fast_paths() {
        let plain = TxtRegistry::default();
        for name in [
            "www.team-1.zone1.example.com",
            "*.example.com",
            "A-1.Example.COM.",
        ] {
            assert!(plain_valid(name, Labels::Host), "{name}");
            assert!(txt_surely_fits(name, &plain, LONGEST_TYPE), "{name}");
        }
        for name in [
            "xn--bcher-kva.example.com",
            "bücher.example.com",
            "a_b.example.com",
        ] {
            assert!(!plain_valid(name, Labels::Host), "{name}");
        }
        assert!(plain_valid("_acme-challenge.example.com", Labels::Record));
    }

    #[test]
    fn a_dns_endpoint_s_names_may_hold_underscores_and_are_otherwise_judged_as_host_names() {
        for name in [
            "_acme-challenge.example.com",
            "_sip._tcp.example.com",
            "selector1._domainkey.example.com.",
            "_3a1b2c.www.example.com",
            "a_b.example.com",
            "*._tcp.example.com",
            "_bücher.example.com",
        ] {
            assert_eq!(record_syntax_problem(name), None, "{name}");
            assert!(syntax_problem(name).is_some(), "{name} is not a host name");
        }
        let table = [
            ("_a.example.com:443", "contains ':'"),
            ("_a..example.com", "empty label"),
            ("-_a.example.com", "starts or ends with '-'"),
            ("_a b.example.com", "contains the character ' '"),
            (
                "a!.example.com",
                "labels hold only letters, digits, '-' and '_'",
            ),
            (
                "a._*.example.com",
                "labels hold only letters, digits, '-' and '_'",
            ),
        ];
        for (name, want) in table {
            let got = record_syntax_problem(name).unwrap_or_default();
            assert!(got.contains(want), "{name}: {got:?} should say {want:?}");
        }
    }

    #[test]
    fn valid_names_have_no_syntax_problem() {
        for name in [
            "example.com",
            "a.example.com.",
            "*.example.com",
            "x-1.example.com",
            "bücher.example.com",
            "xn--bcher-kva.example.com",
            "EXAMPLE.com",
        ] {
            assert_eq!(syntax_problem(name), None, "{name}");
        }
    }

    #[test]
    fn invalid_names_say_what_is_wrong() {
        let table = [
            ("a..example.com", "empty label"),
            ("example.com..", "empty label"),
            ("a.*.example.com", "leftmost"),
            ("a_b.example.com", "'_'"),
            ("-a.example.com", "starts or ends"),
            ("a b.example.com", "' '"),
            ("https://example.com", "':'"),
            ("user@example.com", "'@'"),
            ("", "empty"),
        ];
        for (name, needle) in table {
            let problem = syntax_problem(name).unwrap_or_default();
            assert!(problem.contains(needle), "{name}: {problem}");
        }
        let long_label = format!("{}.example.com", "a".repeat(64));
        assert!(syntax_problem(&long_label)
            .unwrap_or_default()
            .contains("at most 63"));
        let long_name = format!("{}example.com", "abcdefghi.".repeat(25));
        assert!(syntax_problem(&long_name)
            .unwrap_or_default()
            .contains("at most 253"));
    }

    #[test]
    fn txt_names_follow_external_dns_affix_rules() {
        let plain = TxtRegistry::default();
        assert_eq!(txt_name("a.example.com", &plain), "cname-a.example.com");
        let r = TxtRegistry {
            prefix: "p-".into(),
            suffix: "-s".into(),
            wildcard_replacement: "wild".into(),
        };
        assert_eq!(txt_name("*.example.com", &r), "p-cname-wild-s.example.com");
        let typed = TxtRegistry {
            prefix: "%{record_type}.".into(),
            ..Default::default()
        };
        assert_eq!(txt_name("a.example.com", &typed), "cname.a.example.com");
    }

    #[test]
    fn a_first_label_that_leaves_no_room_for_the_txt_prefix_is_reported() {
        let name = format!("{}.example.com", "a".repeat(58));
        assert!(txt_problem(&name, &TxtRegistry::default()).is_some());
        let fits = format!("{}.example.com", "a".repeat(57));
        assert_eq!(txt_problem(&fits, &TxtRegistry::default()), None);
    }

    #[test]
    fn gateway_hosts_are_judged_as_external_dns_s_gw_host_judges_them() {
        use GatewayDrop::*;
        let table = [
            ("", None),
            ("a.example.com", None),
            ("A.Example.COM.", None),
            ("*.example.com", None),
            ("xn--bcher-kva.example.com", None),
            ("01.2.3.4", None),
            ("192.0.2.10", Some(IpAddress)),
            ("2001:db8::1", Some(IpAddress)),
            ("bücher.example.com", Some(NotAscii)),
            ("*", Some(NotRfc1123)),
            ("*.", Some(NotRfc1123)),
            ("a.*.example.com", Some(NotRfc1123)),
            ("a_b.example.com", Some(NotRfc1123)),
            ("a.example.com..", Some(NotRfc1123)),
            ("-a.example.com", Some(NotRfc1123)),
        ];
        for (name, want) in table {
            assert_eq!(gateway_drop(name), want, "{name:?}");
        }
        let long = format!("{}.example.com", "a".repeat(64));
        assert_eq!(gateway_drop(&long), Some(NotRfc1123));
    }

    #[test]
    fn srv_names_may_start_with_two_underscore_labels_and_nothing_else() {
        for name in [
            "_api._tcp.api.example.com",
            "_a-1._udp.bücher.example.com",
            "_api._tcp.*.example.com",
        ] {
            assert_eq!(srv_syntax_problem(name), None, "{name}");
        }
        let table = [
            (
                format!("_{}._tcp.a.example.com", "a".repeat(63)),
                "Service name",
            ),
            ("_a_b._tcp.a.example.com".to_string(), "Service name"),
            ("_api._t cp.a.example.com".to_string(), "protocol"),
            ("_api._tcp.a_b.example.com".to_string(), "hostname"),
            ("_api._tcp._x.example.com".to_string(), "hostname"),
            (
                format!("_api._tcp.{}example.com", "abcdefghi.".repeat(24)),
                "shorter hostname",
            ),
        ];
        for (name, fix) in table {
            let (_, got) = srv_syntax_problem(&name).unwrap_or_default();
            assert!(got.contains(fix), "{name}: {got}");
        }
    }

    #[test]
    fn an_srv_name_s_txt_name_takes_the_srv_type() {
        let plain = TxtRegistry::default();
        let typed = TxtRegistry {
            prefix: "%{record_type}-".into(),
            ..Default::default()
        };
        let name = "_api._tcp.a.example.com";
        assert_eq!(
            txt_name_as(name, &plain, SRV_TYPE),
            "srv-_api._tcp.a.example.com"
        );
        assert_eq!(
            txt_name_as(name, &typed, SRV_TYPE),
            "srv-_api._tcp.a.example.com"
        );
        let fits = format!("_{}._tcp.a.example.com", "a".repeat(58));
        assert_eq!(srv_txt_problem(&fits, &plain), None);
        assert!(txt_problem(&fits, &plain).is_some());
        let over = format!("_{}._tcp.a.example.com", "a".repeat(59));
        assert!(srv_txt_problem(&over, &plain).is_some_and(|why| why.to_string().contains("srv-_")));
    }

    #[test]
    fn a_too_long_srv_txt_label_asks_for_a_shorter_service_name() {
        let registry = |prefix: &str, suffix: &str| TxtRegistry {
            prefix: prefix.into(),
            suffix: suffix.into(),
            ..Default::default()
        };
        let srv = |len| format!("_{}._tcp.np.example.com", "s".repeat(len));
        let table = [
            (srv(59), registry("", ""), "shorten the Service name by 1 character or more"),
            (
                srv(40),
                registry("extdns-owner-record-prefix-", ""),
                "shorten the Service name by 9 characters or more (or ask the platform team for a shorter txtPrefix)",
            ),
            (
                srv(40),
                registry("", "-a-rather-long-txt-suffix"),
                "shorten the Service name by 7 characters or more (or ask the platform team for a shorter txtSuffix)",
            ),
            (
                srv(3),
                registry(&"p".repeat(60), ""),
                "ask the platform team for a shorter txtPrefix (no Service name is short enough)",
            ),
        ];
        for (name, registry, fix) in table {
            let why = srv_txt_problem(&name, &registry)
                .expect("too long")
                .to_string();
            assert!(why.ends_with(&format!(": {fix}")), "{name}: {why}");
        }
        let address = format!("{}.example.com", "a".repeat(60));
        let why = txt_problem(&address, &TxtRegistry::default())
            .expect("too long")
            .to_string();
        assert!(
            why.ends_with(": shorten the first label by 3 or more"),
            "{why}"
        );
    }
}
