//! external-dns's `target` annotation: the targets it names, and why a list of them cannot be
//! published.
//!
//! external-dns reads the value as it reads a hostname list (spaces deleted, split on `,`, one
//! trailing dot dropped per item) and sorts the items by `endpoint.SuitableType`: an IPv4
//! address makes an A record, an IPv6 address an AAAA record, anything else a CNAME record. Every
//! hostname of the object then gets those records.

use std::net::IpAddr;

use crate::annotation;

/// The targets of a `target` annotation that external-dns can publish.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Targets {
    /// IPv4 and IPv6 addresses (A and AAAA records).
    pub addresses: Vec<String>,
    /// The DNS name of a CNAME (or, to an AWS load balancer, an alias) record; at most one.
    pub name: Option<String>,
}

impl Targets {
    /// Whether a CNAME record of `hostname` would point at `hostname` itself.
    pub fn points_at(&self, hostname: &str) -> bool {
        let hostname = hostname.strip_suffix('.').unwrap_or(hostname);
        self.name
            .as_deref()
            .is_some_and(|name| name.eq_ignore_ascii_case(hostname))
    }
}

/// Why a `target` annotation cannot be published as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetProblem {
    /// Item `index` is empty: a stray comma, or a value of spaces only.
    Empty { index: usize, several: bool },
    /// An item is neither an IP address nor a DNS name.
    NotAnAddress {
        item: String,
        why: String,
        several: bool,
    },
    /// IP addresses beside a DNS name: A or AAAA records beside a CNAME record.
    Mixed { address: String, name: String },
    /// More than one DNS name: one CNAME record holding several names.
    SeveralNames { names: Vec<String> },
    /// The one DNS name is a hostname of the object itself: a CNAME record pointing at itself.
    Loop { name: String },
}

impl TargetProblem {
    /// What is wrong, after the annotation's field and value.
    pub fn problem(&self) -> String {
        match self {
            Self::Empty { index, several: true } => format!("has an empty item [{index}] (a stray comma): external-dns would publish a CNAME record with an empty target, which the DNS provider refuses"),
            Self::Empty { .. } => "names no target: external-dns would publish a CNAME record with an empty target, which the DNS provider refuses".into(),
            Self::NotAnAddress { item, why, several } => {
                let what = if *several { format!("has the item {item:?}, which is") } else { "is".into() };
                format!("{what} neither an IP address nor a DNS name ({why}): external-dns would publish a CNAME record pointing at it")
            }
            Self::Mixed { address, name } => format!("mixes an IP address ({address}) with a DNS name ({name}): external-dns would publish an A or AAAA record and a CNAME record for the same hostname, and a name with a CNAME record can hold no other record, so Route53 refuses the change"),
            Self::SeveralNames { names } => format!("names {} DNS names ({}): external-dns would publish one CNAME record holding them all, and a CNAME record holds a single name, so Route53 refuses the change (an alias record to a load balancer would use the first alone)", names.len(), names.join(", ")),
            Self::Loop { name } => format!("is a hostname of this object: the CNAME record of {name:?} would point at itself, a loop Route53 refuses"),
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> String {
        match self {
            Self::Empty { several: true, .. } => "remove the extra comma".into(),
            Self::Empty { .. } => {
                "write the load balancer's DNS name or IP addresses, or remove the annotation"
                    .into()
            }
            Self::NotAnAddress { item, .. } => match host_of(item) {
                Some(host) => format!("write the host alone: {host}"),
                None => "write the load balancer's DNS name or IP address, such as lb.example.com"
                    .into(),
            },
            Self::Mixed { .. } => "use IP addresses only, or one DNS name alone".into(),
            Self::SeveralNames { .. } => "keep one DNS name, or use IP addresses".into(),
            Self::Loop { .. } => "name the load balancer's DNS name or IP address instead".into(),
        }
    }
}

/// The targets external-dns reads from a non-empty `target` annotation, or why they cannot be
/// published. Items are judged in order; then the mix of their kinds.
pub fn parse(value: &str) -> Result<Targets, TargetProblem> {
    let items = annotation::split_hostnames(value);
    let several = items.len() > 1;
    let mut targets = Targets::default();
    let mut names = Vec::new();
    for item in &items {
        let target = item.name.strip_suffix('.').unwrap_or(&item.name);
        if target.is_empty() {
            let index = item.index;
            return Err(TargetProblem::Empty { index, several });
        }
        if target.parse::<IpAddr>().is_ok() {
            targets.addresses.push(target.to_string());
            continue;
        }
        if let Some(why) = not_a_name(target) {
            let item = item.raw.clone();
            return Err(TargetProblem::NotAnAddress { item, why, several });
        }
        names.push(target.to_string());
    }
    match (targets.addresses.first(), names.as_slice()) {
        (_, [_, _, ..]) => Err(TargetProblem::SeveralNames { names }),
        (Some(address), [name]) => Err(TargetProblem::Mixed {
            address: address.clone(),
            name: name.clone(),
        }),
        _ => {
            targets.name = names.pop();
            Ok(targets)
        }
    }
}

/// Why `target` (not an IP address to Rust) is not a DNS name a CNAME record can point at.
fn not_a_name(target: &str) -> Option<String> {
    if let Some((address, _)) = target.split_once('%') {
        if address.parse::<std::net::Ipv6Addr>().is_ok() {
            // Go's `netip.ParseAddr` takes the zone, and the AAAA record then holds it.
            return Some("an IPv6 address with a zone (%…), which no DNS record can hold".into());
        }
    }
    crate::hostname::syntax_problem(target)
}

/// The host of a URL (`https://lb.example.com/x`) or of `host:port`, when that host is a DNS
/// name or an IP address.
fn host_of(item: &str) -> Option<&str> {
    let rest = item.split_once("://").map_or(item, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let usable = host.parse::<IpAddr>().is_ok() || crate::hostname::syntax_problem(host).is_none();
    (host != item && !host.is_empty() && usable).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(addresses: &[&str], name: Option<&str>) -> Targets {
        Targets {
            addresses: addresses.iter().map(|a| a.to_string()).collect(),
            name: name.map(str::to_string),
        }
    }

    #[test]
    fn targets_external_dns_can_publish_are_read_as_it_reads_them() {
        let table = [
            ("lb.example.com", names(&[], Some("lb.example.com"))),
            ("lb.example.com.", names(&[], Some("lb.example.com"))),
            (" lb.example.com ", names(&[], Some("lb.example.com"))),
            ("1.2.3.4", names(&["1.2.3.4"], None)),
            ("1.2.3.4, 5.6.7.8.", names(&["1.2.3.4", "5.6.7.8"], None)),
            (
                "1.2.3.4,2001:db8::1",
                names(&["1.2.3.4", "2001:db8::1"], None),
            ),
            ("::ffff:1.2.3.4", names(&["::ffff:1.2.3.4"], None)),
            (
                "k8s-shop-abc-123.elb.eu-west-1.amazonaws.com",
                names(&[], Some("k8s-shop-abc-123.elb.eu-west-1.amazonaws.com")),
            ),
        ];
        for (value, want) in table {
            assert_eq!(parse(value), Ok(want), "{value:?}");
        }
    }

    #[test]
    fn targets_that_cannot_be_published_name_their_problem_and_fix() {
        let table = [
            (
                "lb.example.com,",
                "empty item [1] (a stray comma)",
                "remove the extra comma",
            ),
            (
                "a.example.com,,1.2.3.4",
                "empty item [1]",
                "remove the extra comma",
            ),
            ("  ", "names no target", "or remove the annotation"),
            (
                "https://lb.example.com/",
                "neither an IP address nor a DNS name",
                "write the host alone: lb.example.com",
            ),
            (
                "lb.example.com:443",
                "neither an IP address nor a DNS name",
                "write the host alone: lb.example.com",
            ),
            (
                "[2001:db8::1]:443",
                "neither an IP address nor a DNS name",
                "write the host alone: 2001:db8::1",
            ),
            (
                "lb_1.example.com",
                "neither an IP address nor a DNS name",
                "such as lb.example.com",
            ),
            (
                "fe80::1%eth0",
                "an IPv6 address with a zone",
                "such as lb.example.com",
            ),
            (
                "1.2.3.4,lb.example.com",
                "mixes an IP address (1.2.3.4) with a DNS name (lb.example.com)",
                "use IP addresses only",
            ),
            (
                "a.example.com, b.example.com",
                "names 2 DNS names (a.example.com, b.example.com)",
                "keep one DNS name",
            ),
            (
                "1.2.3.4,lb:80",
                "has the item \"lb:80\", which is neither",
                "write the host alone: lb",
            ),
        ];
        for (value, problem, fix) in table {
            let got = parse(value).expect_err(value);
            assert!(
                got.problem().contains(problem),
                "{value:?}: {}",
                got.problem()
            );
            assert!(got.fix().contains(fix), "{value:?}: {}", got.fix());
        }
    }

    #[test]
    fn a_target_points_at_a_hostname_whatever_its_case_and_trailing_dot() {
        let targets = names(&[], Some("App.example.com"));
        assert!(targets.points_at("app.example.com."));
        assert!(!targets.points_at("api.example.com"));
        assert!(!names(&["1.2.3.4"], None).points_at("1.2.3.4"));
    }

    #[test]
    fn ipv4_addresses_with_leading_zeros_are_names_to_rust_as_to_go() {
        // Go's netip.ParseAddr refuses leading zeros, so external-dns makes a CNAME of them.
        assert!("01.2.3.4".parse::<IpAddr>().is_err());
    }
}
