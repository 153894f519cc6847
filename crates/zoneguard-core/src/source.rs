//! Which hostnames an object asks external-dns to publish, and from which fields.

use crate::annotation::{self, HostnameSource};
use crate::rules::RuleSet;
use crate::seen;
use crate::target;
use crate::tree::Node;
use crate::verdict::{Reason, Violation, Warning};
use std::collections::HashSet;
use std::fmt;

mod compatibility;
mod fqdn;
pub mod shape;
mod skip;
use skip::filtered_out;
pub use skip::{service_type, SkippedBy, DEFAULT_SERVICE_TYPE, INGRESS_CLASS_ANNOTATION};

/// The kinds zoneguard looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ingress,
    Service,
    /// HTTPRoute, GRPCRoute, TLSRoute: `spec.hostnames` and the annotation.
    RouteWithHostnames,
    /// TCPRoute, UDPRoute: the annotation only.
    RouteWithoutHostnames,
    Gateway,
    /// A ListenerSet (Gateway API v1.5+): more listeners for a parent Gateway, read like its own.
    ListenerSet,
    DnsEndpoint,
    ServiceAccount,
}

impl Kind {
    /// Classifies an API group and kind; `None` for kinds zoneguard does not check.
    pub fn of(group: &str, kind: &str) -> Option<Self> {
        match (group, kind) {
            ("networking.k8s.io" | "extensions", "Ingress") => Some(Self::Ingress),
            ("", "Service") => Some(Self::Service),
            ("", "ServiceAccount") => Some(Self::ServiceAccount),
            ("gateway.networking.k8s.io", "HTTPRoute" | "GRPCRoute" | "TLSRoute") => {
                Some(Self::RouteWithHostnames)
            }
            ("gateway.networking.k8s.io", "TCPRoute" | "UDPRoute") => {
                Some(Self::RouteWithoutHostnames)
            }
            ("gateway.networking.k8s.io", "Gateway") => Some(Self::Gateway),
            ("gateway.networking.k8s.io", "ListenerSet") => Some(Self::ListenerSet),
            ("externaldns.k8s.io", "DNSEndpoint") => Some(Self::DnsEndpoint),
            _ => None,
        }
    }

    /// The kind in a message: `Ingress`, `route`, `DNSEndpoint`.
    fn noun(self) -> &'static str {
        match self {
            Self::Ingress => "Ingress",
            Self::Service => "Service",
            Self::RouteWithHostnames | Self::RouteWithoutHostnames => "route",
            Self::Gateway => "Gateway",
            Self::ListenerSet => "ListenerSet",
            Self::DnsEndpoint => "DNSEndpoint",
            Self::ServiceAccount => "ServiceAccount",
        }
    }

    /// external-dns reads this kind's own annotations (`ttl`, `controller`, the hostname
    /// sources): Ingresses, Services and routes; of a Gateway's only `target`, and a
    /// DNSEndpoint's never.
    fn annotated(self) -> bool {
        matches!(
            self,
            Self::Ingress | Self::Service | Self::RouteWithHostnames | Self::RouteWithoutHostnames
        )
    }
}

/// A hostname an object asks for, with the field it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub field: Field,
    /// As written by the user.
    pub raw: String,
    /// As external-dns reads it.
    pub name: String,
    /// An annotation item that had interior spaces (external-dns deletes them).
    pub interior_space: bool,
    /// The record external-dns makes of the name, which decides how the name is judged.
    pub record: Record,
}

/// The record external-dns would make of a candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Record {
    /// An A, AAAA or CNAME record (Ingress, Service).
    #[default]
    Address,
    /// A DNSEndpoint's record, of any type: its name is a DNS name rather than a host name, so
    /// its labels may hold `_` (`_acme-challenge`, `_sip._tcp`, ACM's validation CNAMEs).
    Endpoint,
    /// A name external-dns's Gateway API source reads (routes, Gateway listeners): it drops IP
    /// addresses and names that are not ASCII RFC 1123 host names.
    Gateway,
    /// The SRV record `_<service>._<protocol>.<hostname>` external-dns publishes for
    /// `spec.ports[port]` of a NodePort Service; `raw` and `name` are the SRV name, `field` the
    /// hostname annotation item it is made from.
    Srv { port: usize },
}

/// The field a candidate was written in. Most names pass every check, so the path is kept as
/// its parts and only written out (`Display`) for a violation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    /// `<list>[<index>].<key>`, e.g. `spec.rules[0].host`.
    ListKey {
        list: &'static str,
        index: usize,
        key: &'static str,
    },
    /// `<list>[<index>]`, e.g. `spec.hostnames[1]`.
    ListItem { list: &'static str, index: usize },
    /// `spec.tls[<tls>].hosts[<host>]`.
    TlsHost { tls: usize, host: usize },
    /// Item `<index>` of the comma-separated annotation `<key>`:
    /// `metadata.annotations["<key>"][<index>]`.
    AnnotationItem { key: String, index: usize },
    /// A name the rules' `sources.fqdnTemplate` makes of the object.
    Template,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::ListKey { list, index, key } => write!(f, "{list}[{index}].{key}"),
            Field::ListItem { list, index } => write!(f, "{list}[{index}]"),
            Field::TlsHost { tls, host } => write!(f, "spec.tls[{tls}].hosts[{host}]"),
            Field::AnnotationItem { key, index } => {
                write!(f, "{}[{index}]", annotation::field(key))
            }
            Field::Template => f.write_str(fqdn::FIELD),
        }
    }
}

/// Everything the sources of one object yield.
#[derive(Debug, Default)]
pub struct Extracted {
    pub candidates: Vec<Candidate>,
    pub violations: Vec<Violation>,
    pub warnings: Vec<Warning>,
    /// The filter flag that makes external-dns skip the object whole, if one does: then
    /// nothing of it is judged.
    pub skipped: Option<SkippedBy>,
    /// The record the object's hostnames make (`Record::Gateway` for Gateway API objects).
    record: Record,
    /// Whether the fqdn template names the object when it has no name of its own.
    names: Names,
    /// The candidates' fields and texts, once there are more than [`seen::SCAN`]: a scan of the
    /// candidates themselves finds a repeat while they are few (a [`seen::Seen`] would hold
    /// copies of them).
    index: Option<HashSet<(Field, String)>>,
}

/// Which names [`extract_names`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Names {
    /// Every name external-dns would publish for the object.
    #[default]
    All,
    /// All but the fqdn template's (`sources.fqdnTemplate`): for the mutating webhook's
    /// judgement of injected annotations, which looks only at those annotations' names.
    Own,
}

impl Extracted {
    /// Adds a candidate unless its name is empty or the same field gave the same text before.
    fn push(&mut self, candidate: Candidate) {
        if candidate.name.is_empty() {
            return;
        }
        let new = match &mut self.index {
            Some(index) => index.insert((candidate.field.clone(), candidate.raw.clone())),
            None => !self
                .candidates
                .iter()
                .any(|c| c.field == candidate.field && c.raw == candidate.raw),
        };
        if !new {
            return;
        }
        self.candidates.push(candidate);
        if self.index.is_none() && self.candidates.len() > seen::SCAN {
            let all = self.candidates.iter();
            self.index = Some(all.map(|c| (c.field.clone(), c.raw.clone())).collect());
        }
    }

    /// A name read as written (no list to cut, no spaces to delete).
    fn spec_field(&mut self, field: Field, value: &str) {
        self.push(Candidate {
            field,
            raw: value.to_string(),
            name: value.to_string(),
            interior_space: false,
            record: self.record,
        });
    }

    /// The hostnames of the annotation `<prefix><name>`.
    fn annotation_list(&mut self, object: &Node<'_>, prefix: &str, name: &str) {
        let Some(value) = annotation::get_prefixed(object, prefix, name) else {
            return;
        };
        let key = [prefix, name].concat();
        for item in annotation::split_hostnames(value) {
            self.push(Candidate {
                field: Field::AnnotationItem {
                    key: key.clone(),
                    index: item.index,
                },
                raw: item.raw,
                name: item.name,
                interior_space: item.interior_space,
                record: self.record,
            });
        }
    }
}

/// The hostnames `object` of `kind`, in `namespace`, asks for under `rules`.
pub fn extract(rules: &RuleSet, kind: Kind, namespace: &str, object: &Node<'_>) -> Extracted {
    extract_names(rules, kind, namespace, object, Names::All)
}

/// [`extract`], reading only the `names` asked for.
pub fn extract_names(
    rules: &RuleSet,
    kind: Kind,
    namespace: &str,
    object: &Node<'_>,
    names: Names,
) -> Extracted {
    let mut out = Extracted {
        names,
        ..Extracted::default()
    };
    out.record = match kind {
        Kind::RouteWithHostnames
        | Kind::RouteWithoutHostnames
        | Kind::Gateway
        | Kind::ListenerSet => Record::Gateway,
        Kind::DnsEndpoint => Record::Endpoint,
        Kind::Ingress | Kind::Service | Kind::ServiceAccount => Record::Address,
    };
    if let Some((by, why)) = filtered_out(rules, kind, namespace, object) {
        out.skipped = Some(by);
        let skips = |w| Warning::with_reason(Reason::ExternalDnsSkips, w);
        out.warnings.extend(why.map(skips));
        return out;
    }
    foreign_prefix_warnings(rules, kind, object, &mut out);
    let read = if kind.annotated() {
        let read = ReadPrefixes::of(rules, object, &mut out);
        // Handed to another controller under every prefix: external-dns reads nothing of it.
        if read.iter().next().is_none() {
            return out;
        }
        read
    } else {
        ReadPrefixes::default()
    };
    match kind {
        Kind::Ingress => {
            let unnamed = ingress(rules, read, object, &mut out);
            out.templated(rules, kind, namespace, object, unnamed);
        }
        Kind::Service => service(rules, read, namespace, object, &mut out),
        Kind::RouteWithHostnames | Kind::RouteWithoutHostnames => {
            route(rules, read, kind, namespace, object, &mut out)
        }
        Kind::Gateway | Kind::ListenerSet => strings_at(
            object,
            &["spec", "listeners"],
            "hostname",
            "spec.listeners",
            &mut out,
        ),
        Kind::DnsEndpoint => dns_endpoints(object, &mut out),
        Kind::ServiceAccount => {}
    }
    if kind.annotated() {
        ttl(read, object, &mut out);
    }
    target(rules, kind, read, object, &mut out);
    out
}

/// The annotation prefixes under which an external-dns reads an object: the rules' (at most the
/// two standard ones, [`annotation::prefixes`]) less any whose `controller` annotation hands an
/// Ingress, a Service or a route to another controller, which makes an external-dns reading that
/// prefix skip the object whole (its `IsControllerMismatch`).
#[derive(Debug, Clone, Copy, Default)]
struct ReadPrefixes<'r>([Option<&'r str>; annotation::STANDARD_PREFIXES.len()]);

impl<'r> ReadPrefixes<'r> {
    /// The prefixes `object` is read under, with a warning for each one left out.
    fn of(rules: &'r RuleSet, object: &Node<'_>, out: &mut Extracted) -> Self {
        let mut read = Self::default();
        let mut skipped = Vec::new();
        // Most objects carry no `controller` annotation: one look at the keys settles that.
        let controlled =
            annotation::map(object).is_some_and(|m| m.keys().any(|k| k.ends_with("/controller")));
        for (slot, prefix) in read.0.iter_mut().zip(annotation::prefixes(rules)) {
            let foreign = if controlled {
                annotation::foreign_controller(object, prefix)
            } else {
                None
            };
            match foreign {
                None => *slot = Some(prefix),
                Some(value) => skipped.push((prefix, value)),
            }
        }
        let wholly = read.iter().next().is_none();
        let want = annotation::CONTROLLER_VALUE;
        for (prefix, value) in skipped {
            let field = annotation::field_of(prefix, "controller");
            out.warnings.push(if wholly {
                Warning::with_reason(Reason::ExternalDnsSkips, format!("{field} is {value:?}, not {want:?}: external-dns skips this object and publishes none of its hostnames, so they are not checked; remove the annotation (or set it to {want:?}) if external-dns should publish them"))
            } else {
                Warning::new(format!("{field} is {value:?}, not {want:?}: an external-dns that reads the prefix {prefix:?} skips this object; only the names an external-dns reading the other prefix would publish are checked"))
            });
        }
        read
    }

    fn iter(self) -> impl Iterator<Item = &'r str> {
        self.0.into_iter().flatten()
    }
}

fn items<'n, 'a>(object: &'n Node<'a>, path: &[&str]) -> &'n [Node<'a>] {
    crate::path::at(object, path)
        .and_then(Node::as_array)
        .unwrap_or(&[])
}

/// `<list>[i].<key>` strings, e.g. `spec.listeners[0].hostname`.
fn strings_at(
    object: &Node<'_>,
    path: &[&str],
    key: &'static str,
    list: &'static str,
    out: &mut Extracted,
) {
    for (index, item) in items(object, path).iter().enumerate() {
        if let Some(host) = item.get(key).and_then(Node::as_str) {
            out.spec_field(Field::ListKey { list, index, key }, host);
        }
    }
}

/// A DNSEndpoint's `spec.endpoints[i].dnsName`s. An endpoint with none (empty or missing, which
/// its CRD allows) is a violation: external-dns passes it on with an empty name, which no domain
/// filter matches (so nothing is published, without a word) and no record can have.
fn dns_endpoints(object: &Node<'_>, out: &mut Extracted) {
    let (list, key) = ("spec.endpoints", "dnsName");
    for (index, item) in items(object, &["spec", "endpoints"]).iter().enumerate() {
        let field = Field::ListKey { list, index, key };
        match item.get(key).and_then(Node::as_str) {
            Some(name) if !name.is_empty() => out.spec_field(field, name),
            name => out.violations.push(Violation::whole(
                field.to_string(),
                "",
                Reason::HostnameInvalid,
                format!("{field} is {}: external-dns would pass this endpoint on with no name, for which no DNS record can be made (with domain filters set, it is skipped without a word); give it a dnsName or remove the endpoint", if name.is_some() { "empty" } else { "missing" }),
            )),
        }
    }
}

/// An Ingress's names: its hostname annotations and its hosts; whether an external-dns reading
/// one of the prefixes finds no name of its own in them.
fn ingress(rules: &RuleSet, read: ReadPrefixes, object: &Node<'_>, out: &mut Extracted) -> bool {
    let mut defined = false;
    // Per prefix read: whether its annotation gave a name, and whether it reads the hosts.
    let mut own = [(false, false); annotation::STANDARD_PREFIXES.len()];
    let mut prefixes = 0;
    for (slot, prefix) in own.iter_mut().zip(read.iter()) {
        prefixes += 1;
        let Some(source) = hostname_source(object, prefix, "ingress-hostname-source", out, true)
        else {
            continue;
        };
        defined |= source.defined_hosts();
        let first = out.candidates.len();
        if source.annotation() && !rules.sources.ignore_hostname_annotation {
            out.annotation_list(object, prefix, "hostname");
        }
        *slot = (out.candidates.len() > first, source.defined_hosts());
    }
    let first_host = out.candidates.len();
    if defined && !rules.sources.ignore_ingress_rules_spec {
        strings_at(object, &["spec", "rules"], "host", "spec.rules", out);
    }
    if defined && !rules.sources.ignore_ingress_tls_spec {
        for (i, tls) in items(object, &["spec", "tls"]).iter().enumerate() {
            for (j, host) in tls
                .get("hosts")
                .and_then(Node::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Some(host) = host.as_str() {
                    out.spec_field(Field::TlsHost { tls: i, host: j }, host);
                }
            }
        }
    }
    let hosts = out.candidates.len() > first_host;
    own[..prefixes]
        .iter()
        .any(|&(annotated, reads_hosts)| !(annotated || reads_hosts && hosts))
}

/// A route's names: its hostname annotations, its `spec.hostnames`, and, when it has none (as
/// external-dns reads `spec.hostnames`, whatever the annotations), the template's, which count
/// as defined hosts.
fn route(
    rules: &RuleSet,
    read: ReadPrefixes,
    kind: Kind,
    namespace: &str,
    object: &Node<'_>,
    out: &mut Extracted,
) {
    let mut defined = false;
    for prefix in read.iter() {
        let source = hostname_source(object, prefix, "gateway-hostname-source", out, false)
            .unwrap_or(HostnameSource::Both);
        defined |= source.defined_hosts();
        if source.annotation() && !rules.sources.ignore_hostname_annotation {
            out.annotation_list(object, prefix, "hostname");
        }
    }
    let hostnames = match kind {
        Kind::RouteWithHostnames => items(object, &["spec", "hostnames"]),
        _ => &[],
    };
    if defined {
        for (index, host) in hostnames.iter().enumerate() {
            if let Some(host) = host.as_str() {
                let list = "spec.hostnames";
                out.spec_field(Field::ListItem { list, index }, host);
            }
        }
        out.templated(rules, kind, namespace, object, hostnames.is_empty());
    }
}

/// Reads `<prefix><name>`; a value external-dns does not know is a violation (`fatal`, Ingress:
/// external-dns then publishes nothing) or a warning (routes: it falls back to the default).
fn hostname_source(
    object: &Node<'_>,
    prefix: &str,
    name: &str,
    out: &mut Extracted,
    fatal: bool,
) -> Option<HostnameSource> {
    let value = annotation::get_prefixed(object, prefix, name);
    if let Some(source) = HostnameSource::parse(value) {
        return Some(source);
    }
    let field = annotation::field_of(prefix, name);
    let value = value.unwrap_or_default();
    if fatal {
        out.violations.push(Violation::new(
            field,
            value,
            Reason::AnnotationInvalid,
            "is not a value external-dns knows (defined-hosts-only or annotation-only), so external-dns would publish no DNS record for this Ingress; use one of those or remove the annotation",
        ));
    } else {
        out.warnings.push(Warning::new(format!("{field} {value:?} is not defined-hosts-only or annotation-only; external-dns ignores it and uses both spec.hostnames and the hostname annotation")));
    }
    None
}

/// The `spec` fields that decide whether external-dns reads an Ingress or a Service and whether
/// a Service publishes its hostname annotation; the re-judge of injected annotations
/// (`mutation::annotations_after`) keeps exactly these.
pub const PUBLISHING_SPEC_FIELDS: [&str; 4] =
    ["type", "clusterIP", "ingressClassName", "parentRefs"];

/// A Service's names: its hostname annotations, and (with `sources.compatibility`) the legacy
/// annotations an external-dns falls back on when, under the prefix it reads, the Service
/// yields no name of its own.
fn service(
    rules: &RuleSet,
    read: ReadPrefixes,
    namespace: &str,
    object: &Node<'_>,
    out: &mut Extracted,
) {
    let shape = ServiceShape::of(object);
    let mut unnamed = rules.sources.ignore_hostname_annotation
        || service_hostnames(rules, read, shape, object, out);
    if let Some(mode) = rules.sources.compatibility.filter(|_| unnamed) {
        let first = out.candidates.len();
        compatibility::names(mode, shape.ty, object, out);
        unnamed = out.candidates.len() == first;
    }
    if out.template(rules).is_none() {
        return;
    }
    let targeted = read.iter().any(|p| targeted(object, p));
    if shape.publishes(rules, targeted) {
        let names = out.templated(rules, Kind::Service, namespace, object, unnamed);
        if shape.ty == "NodePort" && !targeted {
            node_port_srv(object, names, out);
        }
    }
}

/// What decides whether external-dns publishes a Service's names at all.
#[derive(Clone, Copy)]
struct ServiceShape<'n> {
    /// [`service_type`].
    ty: &'n str,
    /// `spec.clusterIP` is `None`.
    headless: bool,
}

impl<'n> ServiceShape<'n> {
    fn of(object: &'n Node<'_>) -> Self {
        let cluster_ip = crate::path::at(object, &["spec", "clusterIP"]).and_then(Node::as_str);
        Self {
            ty: service_type(object),
            headless: cluster_ip == Some("None"),
        }
    }

    /// Whether external-dns publishes the Service's names (`targeted`: under a `target`
    /// annotation): it gives a ClusterIP Service's names its cluster IP only with
    /// `--publish-internal-services`, unless it is headless or targeted.
    fn publishes(self, rules: &RuleSet, targeted: bool) -> bool {
        self.ty != "ClusterIP"
            || self.headless
            || targeted
            || rules.sources.publish_internal_services
    }
}

/// Whether the Service's `<prefix>target` annotation names targets.
fn targeted(object: &Node<'_>, prefix: &str) -> bool {
    annotation::get_prefixed(object, prefix, "target").is_some_and(|t| !t.is_empty())
}

/// The hostname annotations of a Service of type `ty` under each prefix `read`; whether one of
/// those prefixes gave no name.
fn service_hostnames(
    rules: &RuleSet,
    read: ReadPrefixes,
    shape: ServiceShape,
    object: &Node<'_>,
    out: &mut Extracted,
) -> bool {
    // Candidates whose hostnames also make SRV records; judged after every hostname.
    let mut with_srv = Vec::new();
    let mut unnamed = false;
    for prefix in read.iter() {
        // With a `target` annotation, external-dns publishes the hostnames to its targets
        // whatever the type, and makes no SRV record.
        let targeted = targeted(object, prefix);
        if annotation::get_prefixed(object, prefix, "hostname").is_some()
            && !shape.publishes(rules, targeted)
        {
            let field = annotation::field_of(prefix, "hostname");
            out.warnings.push(Warning::new(format!("{field} is set on a ClusterIP Service: external-dns publishes it only with --publish-internal-services (or for a LoadBalancer, NodePort or headless Service, or with a target annotation); it is still checked, since changing the type would publish it")));
        }
        let first = out.candidates.len();
        out.annotation_list(object, prefix, "hostname");
        out.annotation_list(object, prefix, "internal-hostname");
        unnamed |= out.candidates.len() == first;
        if shape.ty == "NodePort" && !targeted {
            with_srv.push(first..out.candidates.len());
        }
    }
    for hosts in with_srv {
        node_port_srv(object, hosts, out);
    }
    unnamed
}

/// external-dns's `extractNodePortEndpoints`: for each port with a node port, the SRV record
/// `_<service name>._<protocol, lower-cased, default tcp>.<hostname>`. Every port of a NodePort
/// Service gets a node port (the API server allocates one when the manifest has none), so every
/// port counts; ports of one protocol make one record, named after the first of them. An object
/// without a name (only `generateName`) makes none.
fn node_port_srv(object: &Node<'_>, hosts: std::ops::Range<usize>, out: &mut Extracted) {
    let service = crate::path::at(object, &["metadata", "name"]).and_then(Node::as_str);
    let Some(service) = service.filter(|s| !s.is_empty()) else {
        return;
    };
    let mut protocols: Vec<(usize, String)> = Vec::new();
    for (port, spec) in items(object, &["spec", "ports"]).iter().enumerate() {
        let protocol = spec.get("protocol").and_then(Node::as_str);
        let protocol = protocol.filter(|p| !p.is_empty()).unwrap_or("tcp");
        let protocol = protocol.to_lowercase();
        if !protocols.iter().any(|(_, p)| *p == protocol) {
            protocols.push((port, protocol));
        }
    }
    for host in hosts {
        for &(port, ref protocol) in &protocols {
            let c = &out.candidates[host];
            let hostname = c.name.strip_suffix('.').unwrap_or(&c.name);
            let name = format!("_{service}._{protocol}.{hostname}");
            let field = c.field.clone();
            out.push(Candidate {
                field,
                raw: name.clone(),
                name,
                interior_space: false,
                record: Record::Srv { port },
            });
        }
    }
}

fn ttl(read: ReadPrefixes, object: &Node<'_>, out: &mut Extracted) {
    for prefix in read.iter() {
        let Some(value) = annotation::get_prefixed(object, prefix, "ttl") else {
            continue;
        };
        if let Err(why) = annotation::parse_ttl(value) {
            let field = annotation::field_of(prefix, "ttl");
            out.violations.push(Violation::new(
                field,
                value,
                Reason::AnnotationInvalid,
                format!("is not a TTL external-dns accepts ({why}); external-dns would silently ignore it and use the provider's default TTL: write whole seconds such as \"300\" or a Go duration such as \"5m\""),
            ));
        }
    }
}

/// external-dns's `target` annotation, which it reads on Ingresses, Services, Gateways and
/// ListenerSets (a route's records take its parent's): a value it cannot publish is a violation, as is a CNAME
/// record of one of the object's own hostnames pointing at itself.
fn target(rules: &RuleSet, kind: Kind, read: ReadPrefixes, object: &Node<'_>, out: &mut Extracted) {
    let gateway = matches!(kind, Kind::Gateway | Kind::ListenerSet);
    if !(gateway || matches!(kind, Kind::Ingress | Kind::Service)) {
        return;
    }
    // A Gateway's (or ListenerSet's) annotations are read under every prefix, whatever its
    // `controller`.
    let all = annotation::prefixes(rules).filter(|_| gateway);
    for prefix in read.iter().chain(all) {
        let Some(value) = annotation::get_prefixed(object, prefix, "target") else {
            continue;
        };
        // external-dns reads no target from an empty value.
        if value.is_empty() {
            continue;
        }
        let problem = match target::parse(value) {
            Err(problem) => problem,
            Ok(targets) if !gateway => match own_hostname(&targets, &out.candidates) {
                Some(name) => target::TargetProblem::Loop { name },
                None => continue,
            },
            Ok(_) => continue,
        };
        let field = annotation::field_of(prefix, "target");
        out.violations.push(Violation::new(
            field,
            value,
            Reason::AnnotationInvalid,
            format!("{}; {}", problem.problem(), problem.fix()),
        ));
    }
}

/// The first of the object's address hostnames whose CNAME record `targets` would make point at
/// itself.
fn own_hostname(targets: &target::Targets, candidates: &[Candidate]) -> Option<String> {
    candidates
        .iter()
        .filter(|c| c.record == Record::Address)
        .find(|c| targets.points_at(&c.name))
        .map(|c| c.name.clone())
}

/// Warns about external-dns annotations under a standard prefix the cluster's external-dns does not read.
fn foreign_prefix_warnings(rules: &RuleSet, kind: Kind, object: &Node<'_>, out: &mut Extracted) {
    let Some(configured) = &rules.annotation_prefix else {
        return;
    };
    if kind == Kind::ServiceAccount {
        return;
    }
    let Some(annotations) = annotation::map(object) else {
        return;
    };
    for key in annotations.keys() {
        let foreign = annotation::STANDARD_PREFIXES
            .iter()
            .find(|p| *p != configured && key.starts_with(*p));
        if let Some(p) = foreign {
            let suffix = &key[p.len()..];
            out.warnings.push(Warning::new(format!("{} is ignored: this cluster's external-dns reads the prefix {configured:?}; rename it to \"{configured}{suffix}\"", annotation::field(key))));
        }
    }
}

#[cfg(test)]
mod tests;
