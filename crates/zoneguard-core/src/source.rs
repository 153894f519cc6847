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
    /// An A, AAAA or CNAME record (Ingress, Service, DNSEndpoint).
    #[default]
    Address,
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
    if matches!(
        kind,
        Kind::RouteWithHostnames | Kind::RouteWithoutHostnames | Kind::Gateway
    ) {
        out.record = Record::Gateway;
    }
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
        Kind::Gateway => strings_at(
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

/// external-dns's `target` annotation, which it reads on Ingresses, Services and Gateways (a
/// route's records take its Gateway's): a value it cannot publish is a violation, as is a CNAME
/// record of one of the object's own hostnames pointing at itself.
fn target(rules: &RuleSet, kind: Kind, read: ReadPrefixes, object: &Node<'_>, out: &mut Extracted) {
    let gateway = kind == Kind::Gateway;
    if !(gateway || matches!(kind, Kind::Ingress | Kind::Service)) {
        return;
    }
    // A Gateway's annotations are read under every prefix, whatever its `controller`.
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
mod tests {
    use super::*;

    #[test]
    fn a_field_is_written_as_its_path() {
        let table = [
            (
                Field::ListKey {
                    list: "spec.rules",
                    index: 2,
                    key: "host",
                },
                "spec.rules[2].host",
            ),
            (
                Field::ListItem {
                    list: "spec.hostnames",
                    index: 0,
                },
                "spec.hostnames[0]",
            ),
            (Field::TlsHost { tls: 1, host: 3 }, "spec.tls[1].hosts[3]"),
            (
                Field::AnnotationItem {
                    key: "external-dns.alpha.kubernetes.io/hostname".into(),
                    index: 4,
                },
                r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][4]"#,
            ),
        ];
        for (field, want) in table {
            assert_eq!(field.to_string(), want);
        }
    }

    #[test]
    fn a_nodeport_service_s_srv_names_follow_all_its_hostnames() {
        // SRV names come after every hostname, so a hostname that passed never stands in for
        // an SRV name of the same text (or the reverse).
        let rules = RuleSet::parse("r", "").expect("rules");
        let svc = serde_json::json!({"metadata": {"name": "api", "annotations": {
            "external-dns.alpha.kubernetes.io/hostname": "a.example.com.",
            "external-dns.kubernetes.io/internal-hostname": "b.example.com"}},
            "spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}});
        let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
        let got: Vec<(&str, Record)> = out
            .candidates
            .iter()
            .map(|c| (c.name.as_str(), c.record))
            .collect();
        assert_eq!(
            got,
            [
                ("a.example.com.", Record::Address),
                ("b.example.com", Record::Address),
                ("_api._tcp.a.example.com", Record::Srv { port: 0 }),
                ("_api._udp.a.example.com", Record::Srv { port: 1 }),
                ("_api._tcp.b.example.com", Record::Srv { port: 0 }),
                ("_api._udp.b.example.com", Record::Srv { port: 1 }),
            ]
        );
    }

    #[test]
    fn many_names_are_kept_once_each_as_few_are() {
        // 40 hostnames, one of them twice, and three ports of two protocols: past the point
        // where the extraction indexes its names, each (field, text) is still kept once, and
        // the ports of one protocol make one SRV name.
        let rules = RuleSet::parse("r", "").expect("rules");
        let mut hosts: Vec<String> = (0..40).map(|i| format!("h{i}.example.com")).collect();
        hosts.push("h0.example.com".into());
        let svc = serde_json::json!({"metadata": {"name": "api", "annotations": {
            "external-dns.alpha.kubernetes.io/hostname": hosts.join(",")}},
            "spec": {"type": "NodePort", "ports": [
                {"port": 80}, {"port": 443, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}});
        let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
        let count = |record: Record| out.candidates.iter().filter(|c| c.record == record).count();
        // 41 items (the repeat is another field), 40 + 1 SRV names per protocol.
        assert_eq!(count(Record::Address), 41);
        assert_eq!(count(Record::Srv { port: 0 }), 41);
        assert_eq!(count(Record::Srv { port: 2 }), 41);
        assert_eq!(out.candidates.len(), 41 * 3);
        let mut seen = std::collections::HashSet::new();
        for c in &out.candidates {
            assert!(seen.insert((c.field.clone(), c.raw.clone())), "{c:?} twice");
        }
    }

    #[test]
    fn gateway_api_objects_yield_names_for_the_gateway_source_and_others_address_names() {
        let rules = RuleSet::parse("r", "").expect("rules");
        let annotated = serde_json::json!({"metadata": {"annotations": {
            "external-dns.alpha.kubernetes.io/hostname": "a.example.com"}},
            "spec": {"listeners": [{"hostname": "b.example.com"}]}});
        let table = [
            (Kind::RouteWithHostnames, Record::Gateway),
            (Kind::RouteWithoutHostnames, Record::Gateway),
            (Kind::Gateway, Record::Gateway),
            (Kind::Ingress, Record::Address),
        ];
        for (kind, want) in table {
            let out = extract(&rules, kind, "default", &Node::from(&annotated));
            assert!(!out.candidates.is_empty(), "{kind:?}");
            assert!(out.candidates.iter().all(|c| c.record == want), "{kind:?}");
        }
    }

    /// The names `extract` yields for `object` of `kind`, and its warnings.
    fn names_and_warnings(
        rules: &str,
        kind: Kind,
        object: serde_json::Value,
    ) -> (Vec<String>, Vec<Warning>) {
        let rules = RuleSet::parse("r", rules).expect("rules");
        let out = extract(&rules, kind, "default", &Node::from(&object));
        (
            out.candidates.into_iter().map(|c| c.name).collect(),
            out.warnings,
        )
    }

    /// With `want`, `warnings` is that one warning (`fits` says how the text must hold it),
    /// with the reason code of a skip; without, there is none.
    fn assert_skip_warning(
        what: &str,
        warnings: &[Warning],
        want: Option<&str>,
        fits: fn(&str, &str) -> bool,
    ) {
        match want {
            Some(w) => assert!(
                warnings.len() == 1
                    && fits(&warnings[0].message, w)
                    && warnings[0].reason == Some(Reason::ExternalDnsSkips),
                "{what}: {warnings:?}"
            ),
            None => assert!(warnings.is_empty(), "{what}: {warnings:?}"),
        }
    }

    #[test]
    fn an_ingress_of_a_class_external_dns_does_not_read_is_not_checked() {
        let hostname = "external-dns.alpha.kubernetes.io/hostname";
        let ingress = |class: serde_json::Value, annotations: serde_json::Value| {
            serde_json::json!({"metadata": {"annotations": annotations},
                "spec": {"ingressClassName": class, "rules": [{"host": "r.example.net"}]}})
        };
        let none = serde_json::Value::Null;
        // (what, spec.ingressClassName, annotations, read, the warning it gets when skipped)
        let cases: &[(&str, serde_json::Value, serde_json::Value, bool, Option<&str>)] = &[
            ("a listed class", "public".into(), serde_json::json!({}), true, None),
            ("another class, nothing asked of external-dns", "internal".into(), serde_json::json!({}), false, None),
            ("another class with a hostname annotation", "internal".into(), serde_json::json!({hostname: "a.example.net"}), false,
                Some(r#"spec.ingressClassName is "internal", not a class external-dns reads (sources.ingressClassNames: public, edge): external-dns skips this Ingress"#)),
            ("classes compared as written", "Public".into(), serde_json::json!({}), false, None),
            ("no spec class: the annotation's", none.clone(), serde_json::json!({"kubernetes.io/ingress.class": "edge"}), true, None),
            ("an empty spec class: the annotation's", "".into(), serde_json::json!({"kubernetes.io/ingress.class": "edge"}), true, None),
            ("the spec class wins over the annotation", "internal".into(), serde_json::json!({"kubernetes.io/ingress.class": "public"}), false, None),
            ("no class at all, with a ttl", none.clone(), serde_json::json!({"external-dns.kubernetes.io/ttl": "60"}), false,
                Some("this Ingress names no ingress class (spec.ingressClassName or the kubernetes.io/ingress.class annotation) and external-dns reads only the classes it is told (sources.ingressClassNames: public, edge): external-dns skips this Ingress")),
        ];
        for (what, class, annotations, read, warning) in cases {
            let object = ingress(class.clone(), annotations.clone());
            let rules = "sources: {ingressClassNames: [public, edge]}";
            let (names, warnings) = names_and_warnings(rules, Kind::Ingress, object.clone());
            assert_eq!(!names.is_empty(), *read, "{what}: {names:?}");
            assert_skip_warning(what, &warnings, *warning, |w, p| w.starts_with(p));
            let (names, _) = names_and_warnings("{}", Kind::Ingress, object);
            assert!(
                !names.is_empty(),
                "{what}: without the rule every Ingress is read"
            );
        }
    }

    #[test]
    fn objects_outside_the_one_namespace_external_dns_reads_are_not_checked() {
        let rules = RuleSet::parse(
            "r",
            "sources: {namespace: dns-public, gatewayNamespace: gateways}",
        )
        .expect("rules");
        let object = serde_json::json!({"metadata": {"annotations": {
            "external-dns.alpha.kubernetes.io/ttl": "60"}},
            "spec": {"rules": [{"host": "r.example.net"}], "listeners": [{"hostname": "l.example.net"}],
                     "hostnames": ["h.example.net"]}});
        let object = Node::from(&object);
        // (kind, namespace, read, the warning when skipped)
        let cases = [
            (Kind::Ingress, "dns-public", true, None),
            (
                Kind::Ingress,
                "shop",
                false,
                Some(
                    r#"this Ingress is in the namespace "shop", and external-dns reads only "dns-public" (sources.namespace): external-dns skips this Ingress"#,
                ),
            ),
            (
                Kind::RouteWithHostnames,
                "gateways",
                false,
                Some(
                    r#"this route is in the namespace "gateways", and external-dns reads only "dns-public" (sources.namespace)"#,
                ),
            ),
            (Kind::Gateway, "gateways", true, None),
            (
                Kind::Gateway,
                "dns-public",
                false,
                Some(
                    r#"this Gateway is in the namespace "dns-public", and external-dns reads only "gateways" (sources.gatewayNamespace)"#,
                ),
            ),
        ];
        for (kind, namespace, read, warning) in cases {
            let out = extract(&rules, kind, namespace, &object);
            assert_eq!(!out.candidates.is_empty(), read, "{kind:?} in {namespace}");
            let what = format!("{kind:?} in {namespace}");
            assert_skip_warning(&what, &out.warnings, warning, |w, p| w.starts_with(p));
        }
    }

    #[test]
    fn with_gateway_name_or_namespace_a_route_is_checked_only_through_such_a_parent() {
        let rules = RuleSet::parse(
            "r",
            "sources: {gatewayName: public, gatewayNamespace: gateways}",
        )
        .expect("rules");
        let json = |v: &str| serde_json::from_str::<serde_json::Value>(v).expect("json");
        // (parentRefs, read)
        let cases = [
            (r#"[{"name": "public", "namespace": "gateways"}]"#, true),
            (r#"[{"name": "public"}]"#, false),
            (r#"[{"name": "internal", "namespace": "gateways"}]"#, false),
            (
                r#"[{"name": "internal", "namespace": "gateways"}, {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "public", "namespace": "gateways"}]"#,
                true,
            ),
            (
                r#"[{"kind": "ListenerSet", "name": "team-listeners"}]"#,
                true,
            ),
            (
                r#"[{"group": "", "kind": "Service", "name": "public", "namespace": "gateways"}]"#,
                false,
            ),
            ("[]", false),
        ];
        for (parents, read) in cases {
            let route = serde_json::json!({"metadata": {"annotations": {
                "external-dns.alpha.kubernetes.io/ttl": "60"}},
                "spec": {"hostnames": ["h.example.net"], "parentRefs": json(parents)}});
            let out = extract(
                &rules,
                Kind::RouteWithHostnames,
                "shop",
                &Node::from(&route),
            );
            assert_eq!(!out.candidates.is_empty(), read, "{parents}");
            if !read {
                assert!(
                    out.warnings.len() == 1 && out.warnings[0].message.starts_with(r#"spec.parentRefs names no Gateway external-dns publishes routes through (sources.gatewayName: "public", sources.gatewayNamespace: "gateways"): external-dns skips this route"#),
                    "{parents}: {:?}",
                    out.warnings
                );
            }
        }
        // Without the two flags a route is checked whatever its parents.
        let bare = RuleSet::parse("r", "").expect("rules");
        let route = serde_json::json!({"spec": {"hostnames": ["h.example.net"]}});
        let out = extract(&bare, Kind::RouteWithHostnames, "shop", &Node::from(&route));
        assert_eq!(out.candidates.len(), 1);
    }

    #[test]
    fn objects_external_dns_s_label_and_annotation_filters_do_not_select_are_not_checked() {
        use serde_json::Value as Json;
        let hostname = "external-dns.alpha.kubernetes.io/hostname";
        let rules = r#"sources: {labelFilter: "env in (prod), !legacy", annotationFilter: "team", gatewayLabelFilter: "edge=true"}"#;
        let object = |labels: serde_json::Value, annotations: serde_json::Value| {
            serde_json::json!({"metadata": {"labels": labels, "annotations": annotations},
                "spec": {"rules": [{"host": "r.example.net"}], "hostnames": ["r.example.net"],
                         "listeners": [{"hostname": "l.example.net"}],
                         "endpoints": [{"dnsName": "e.example.net"}]}})
        };
        let prod = serde_json::json!({"env": "prod"});
        let team = serde_json::json!({"team": "web", hostname: "a.example.net"});
        // (what, kind, labels, annotations, read, the warning it gets when skipped)
        type Case<'a> = (&'a str, Kind, Json, Json, bool, Option<&'a str>);
        let cases: &[Case] = &[
            (
                "both met",
                Kind::Ingress,
                prod.clone(),
                team.clone(),
                true,
                None,
            ),
            (
                "a route, both met",
                Kind::RouteWithHostnames,
                prod.clone(),
                team.clone(),
                true,
                None,
            ),
            (
                "a label value not listed",
                Kind::Ingress,
                serde_json::json!({"env": "dev"}),
                team.clone(),
                false,
                Some(
                    r#"metadata.labels do not meet sources.labelFilter "env in (prod), !legacy": env in (prod) does not hold, as the label "env" is "dev": external-dns skips this Ingress"#,
                ),
            ),
            (
                "a label that must be absent",
                Kind::Service,
                serde_json::json!({"env": "prod", "legacy": ""}),
                team.clone(),
                false,
                Some(
                    r#"metadata.labels do not meet sources.labelFilter "env in (prod), !legacy": !legacy does not hold, as the label "legacy" is "": external-dns skips this Service"#,
                ),
            ),
            (
                "no labels at all",
                Kind::RouteWithHostnames,
                serde_json::Value::Null,
                team.clone(),
                false,
                Some(r#"there is no label "env": external-dns skips this route"#),
            ),
            (
                "the annotation filter first",
                Kind::Ingress,
                serde_json::json!({}),
                serde_json::json!({hostname: "a.example.net"}),
                false,
                Some(
                    r#"metadata.annotations do not meet sources.annotationFilter "team": team does not hold, as there is no annotation "team": external-dns skips this Ingress"#,
                ),
            ),
            (
                "unmet and asking nothing of external-dns: silent",
                Kind::Ingress,
                serde_json::json!({}),
                serde_json::json!({}),
                false,
                None,
            ),
            (
                "a DNSEndpoint always asks",
                Kind::DnsEndpoint,
                serde_json::json!({"env": "dev"}),
                serde_json::json!({"team": "x"}),
                false,
                Some(r#"the label "env" is "dev": external-dns skips this DNSEndpoint"#),
            ),
            (
                "a Gateway: only its own label filter",
                Kind::Gateway,
                serde_json::json!({"edge": "true"}),
                serde_json::json!({}),
                true,
                None,
            ),
            (
                "a Gateway the gateway filter leaves out",
                Kind::Gateway,
                prod.clone(),
                team.clone(),
                false,
                Some(
                    r#"metadata.labels do not meet sources.gatewayLabelFilter "edge=true": edge=true does not hold, as there is no label "edge": external-dns skips this Gateway"#,
                ),
            ),
        ];
        for (what, kind, labels, annotations, read, warning) in cases {
            let object = object(labels.clone(), annotations.clone());
            let (names, warnings) = names_and_warnings(rules, *kind, object.clone());
            assert_eq!(!names.is_empty(), *read, "{what}: {names:?}");
            assert_skip_warning(what, &warnings, *warning, |w, p| w.contains(p));
            let (names, _) = names_and_warnings("{}", *kind, object);
            assert!(!names.is_empty(), "{what}: without the filters it is read");
        }
    }

    #[test]
    fn a_service_of_a_type_external_dns_does_not_read_is_not_checked() {
        let service = |ty: serde_json::Value| {
            serde_json::json!({"metadata": {"name": "s", "annotations": {"external-dns.kubernetes.io/hostname": "s.example.net"}},
                "spec": {"type": ty, "ports": [{"port": 80}]}})
        };
        let rules = "sources: {serviceTypeFilter: [LoadBalancer, ClusterIP]}";
        let cases: &[(&str, serde_json::Value, Option<&str>)] = &[
            ("a listed type", "LoadBalancer".into(), None),
            (
                "no type is ClusterIP, as the API server defaults it",
                serde_json::Value::Null,
                None,
            ),
            (
                "an unlisted type",
                "NodePort".into(),
                Some(
                    r#"spec.type is "NodePort", not a type external-dns reads (sources.serviceTypeFilter: LoadBalancer, ClusterIP): external-dns skips this Service"#,
                ),
            ),
            (
                "types compared as written",
                "loadbalancer".into(),
                Some(r#"spec.type is "loadbalancer", not"#),
            ),
        ];
        for (what, ty, warning) in cases {
            let (names, warnings) = names_and_warnings(rules, Kind::Service, service(ty.clone()));
            assert_eq!(names.is_empty(), warning.is_some(), "{what}: {names:?}");
            if let Some(w) = warning {
                assert!(
                    warnings.len() == 1 && warnings[0].message.starts_with(w),
                    "{what}: {warnings:?}"
                );
            }
        }
        let (_, warnings) = names_and_warnings(
            "sources: {serviceTypeFilter: [LoadBalancer]}",
            Kind::Service,
            service(serde_json::Value::Null),
        );
        assert!(
            warnings[0]
                .message
                .starts_with(r#"spec.type is "ClusterIP" (the default), not"#),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_controller_annotation_naming_another_controller_leaves_nothing_to_check() {
        let alpha = "external-dns.alpha.kubernetes.io/";
        let ann = |controller: &str| {
            serde_json::json!({
                format!("{alpha}controller"): controller,
                format!("{alpha}hostname"): "a.example.com",
                format!("{alpha}ttl"): "0",
            })
        };
        let objects = |controller: &str| {
            [
                (
                    Kind::Ingress,
                    serde_json::json!({"metadata": {"annotations": ann(controller)},
                    "spec": {"rules": [{"host": "r.example.com"}], "tls": [{"hosts": ["t.example.com"]}]}}),
                ),
                (
                    Kind::Service,
                    serde_json::json!({"metadata": {"name": "s", "annotations": ann(controller)},
                    "spec": {"type": "NodePort", "ports": [{"port": 80}]}}),
                ),
                (
                    Kind::RouteWithHostnames,
                    serde_json::json!({"metadata": {"annotations": ann(controller)},
                    "spec": {"hostnames": ["h.example.com"]}}),
                ),
                (
                    Kind::RouteWithoutHostnames,
                    serde_json::json!({"metadata": {"annotations": ann(controller)}}),
                ),
            ]
        };
        let rules = format!("annotationPrefix: {alpha}");
        for controller in ["nginx", "", "DNS-Controller", "dns-controller "] {
            for (kind, object) in objects(controller) {
                let rules = RuleSet::parse("r", &rules).expect("rules");
                let out = extract(&rules, kind, "default", &Node::from(&object));
                assert!(
                    out.candidates.is_empty(),
                    "{kind:?} {controller:?}: {:?}",
                    out.candidates
                );
                assert!(
                    out.violations.is_empty(),
                    "{kind:?} {controller:?}: {:?}",
                    out.violations
                );
                let [warning] = &out.warnings[..] else {
                    panic!("{kind:?} {controller:?}: {:?}", out.warnings)
                };
                assert!(
                    warning.message.contains("external-dns skips this object"),
                    "{warning}"
                );
            }
        }
        for (kind, object) in objects("dns-controller") {
            let rules = RuleSet::parse("r", &rules).expect("rules");
            let out = extract(&rules, kind, "default", &Node::from(&object));
            assert!(!out.candidates.is_empty(), "{kind:?}");
            assert!(!out.violations.is_empty(), "{kind:?}: the ttl is judged");
        }
    }

    #[test]
    fn a_controller_annotation_under_one_standard_prefix_leaves_the_other_prefix_s_names() {
        let partly =
            "an external-dns that reads the prefix \"external-dns.alpha.kubernetes.io/\" skips";
        let wholly = "external-dns skips this object";
        let table = [
            // The alpha external-dns skips the object; the other reads the spec and its own annotation.
            (
                serde_json::json!({
                    "external-dns.alpha.kubernetes.io/controller": "other",
                    "external-dns.alpha.kubernetes.io/hostname": "alpha.example.com",
                    "external-dns.kubernetes.io/hostname": "new.example.com"}),
                vec!["new.example.com", "r.example.com"],
                vec![partly],
            ),
            // Both skip it.
            (
                serde_json::json!({
                    "external-dns.alpha.kubernetes.io/controller": "other",
                    "external-dns.kubernetes.io/controller": "",
                    "external-dns.kubernetes.io/hostname": "new.example.com"}),
                vec![],
                vec![wholly, wholly],
            ),
            // A controller annotation under a prefix no external-dns here reads changes nothing.
            (
                serde_json::json!({"other.io/controller": "other"}),
                vec!["r.example.com"],
                vec![],
            ),
        ];
        for (annotations, want, want_warnings) in table {
            let object = serde_json::json!({"metadata": {"annotations": annotations},
                "spec": {"rules": [{"host": "r.example.com"}]}});
            let (mut names, warnings) = names_and_warnings("", Kind::Ingress, object);
            names.sort();
            assert_eq!(names, want, "{annotations}");
            assert_eq!(warnings.len(), want_warnings.len(), "{warnings:?}");
            for (warning, want) in warnings.iter().zip(want_warnings) {
                assert!(warning.message.contains(want), "{warning}");
                // Only an object skipped whole gets the skip's reason code.
                let code = (want == wholly).then_some(Reason::ExternalDnsSkips);
                assert_eq!(warning.reason, code, "{warning}");
            }
        }
    }

    #[test]
    fn gateways_and_dns_endpoints_do_not_heed_the_controller_annotation() {
        // external-dns checks the annotation on routes, not on the Gateway they attach to, and
        // not on DNSEndpoints.
        let annotations =
            serde_json::json!({"external-dns.alpha.kubernetes.io/controller": "other"});
        let table = [
            (
                Kind::Gateway,
                serde_json::json!({"metadata": {"annotations": annotations},
                "spec": {"listeners": [{"hostname": "l.example.com"}]}}),
                "l.example.com",
            ),
            (
                Kind::DnsEndpoint,
                serde_json::json!({"metadata": {"annotations": annotations},
                "spec": {"endpoints": [{"dnsName": "e.example.com"}]}}),
                "e.example.com",
            ),
        ];
        for (kind, object, want) in table {
            let (names, warnings) = names_and_warnings("", kind, object);
            assert_eq!(names, [want], "{kind:?}");
            assert!(warnings.is_empty(), "{kind:?}: {warnings:?}");
        }
    }

    #[test]
    fn a_dns_endpoint_without_a_dns_name_is_a_violation_naming_the_endpoint() {
        let rules = RuleSet::parse("r", "").expect("rules");
        let object = serde_json::json!({"spec": {"endpoints": [
            {"dnsName": "e.example.com"}, {"dnsName": ""}, {"recordType": "A"}]}});
        let out = extract(&rules, Kind::DnsEndpoint, "default", &Node::from(&object));
        let names: Vec<_> = out.candidates.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["e.example.com"]);
        let messages: Vec<String> = out.violations.iter().map(|v| v.message()).collect();
        let found: Vec<_> = out
            .violations
            .iter()
            .zip(&messages)
            .map(|(v, m)| (v.field.as_str(), v.reason, m.split(':').next()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "spec.endpoints[1].dnsName",
                    Reason::HostnameInvalid,
                    Some("spec.endpoints[1].dnsName is empty")
                ),
                (
                    "spec.endpoints[2].dnsName",
                    Reason::HostnameInvalid,
                    Some("spec.endpoints[2].dnsName is missing")
                ),
            ]
        );
    }
}
