//! SRV names of NodePort Services, made and judged as external-dns makes them.

use super::*;

#[test]
fn a_nodeport_service_s_srv_names_are_checked_against_the_filters() {
    // The hostname passes; the SRV names external-dns makes of it are refused by an exclusion
    // (cluster) and by the namespace's own filters, with the hostname item as their field.
    let text = r#"
domainFilters: [example.com]
excludeDomains: [_tcp.api.example.com]
namespaces:
  team-a: { domainFilters: [team-a.example.com], excludeDomains: [_udp.dns.team-a.example.com] }
"#;
    let cluster = node_port_service(
        "api",
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
        json!([{"port": 80}]),
    );
    let d = validate_kind(text, "", "Service", "default", &cluster);
    assert_eq!(
        verdicts(&d),
        [(
            HOSTNAME_0.to_string(),
            "_api._tcp.api.example.com".to_string(),
            Reason::HostnameOutsideFilters
        )]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains("SRV record \"_api._tcp.api.example.com\"")
            && message.contains("spec.ports[0]")
            && message.contains("external-dns would skip it"),
        "{message}"
    );
    let delegated = node_port_service(
        "dns",
        json!({"external-dns.alpha.kubernetes.io/hostname": "dns.team-a.example.com"}),
        json!([{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]),
    );
    let d = validate_kind(text, "", "Service", "team-a", &delegated);
    assert_eq!(
        verdicts(&d),
        [(
            HOSTNAME_0.to_string(),
            "_dns._udp.dns.team-a.example.com".to_string(),
            Reason::HostnameNotDelegated
        )]
    );
}

#[test]
fn every_port_of_a_nodeport_service_makes_an_srv_name_per_protocol_even_without_a_node_port() {
    // Offline manifests seldom set nodePort; the API server allocates one for every port.
    // The protocol is lower-cased, TCP by default; two ports of one protocol make one record.
    let svc = node_port_service(
        "api",
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org.",
               "external-dns.alpha.kubernetes.io/internal-hostname": "in.other.org"}),
        json!([{"port": 80}, {"port": 81, "protocol": "TCP"}, {"port": 53, "protocol": "UDP", "nodePort": 30053},
               {"port": 9, "protocol": "SCTP"}]),
    );
    let made = crate::source::extract(&rules(RULES), Kind::Service, "default", &tree(&svc));
    let names: Vec<&str> = made.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "api.other.org.",
            "in.other.org",
            "_api._tcp.api.other.org",
            "_api._udp.api.other.org",
            "_api._sctp.api.other.org",
            "_api._tcp.in.other.org",
            "_api._udp.in.other.org",
            "_api._sctp.in.other.org",
        ]
    );
    // Both hostnames are outside the filters: their SRV names, which fixing them fixes, are
    // not listed again.
    let d = validate_kind(RULES, "", "Service", "default", &svc);
    let values: Vec<&str> = d.violations.iter().map(|v| v.value.as_str()).collect();
    assert_eq!(values, ["api.other.org.", "in.other.org"]);
}

#[test]
fn an_srv_name_refused_for_itself_is_listed_once_for_its_hostname() {
    // `_<63 characters>` is a 64-octet label: every SRV name of the hostname is dropped, and
    // the first says why, naming its port.
    let name = "a".repeat(63);
    let svc = node_port_service(
        &name,
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
        json!([{"port": 80}, {"port": 53, "protocol": "UDP"}]),
    );
    let d = validate_kind(RULES, "", "Service", "default", &svc);
    assert_eq!(d.violations.len(), 1, "{d:?}");
    assert_eq!(d.violations[0].reason, Reason::HostnameInvalid);
    assert!(d.violations[0].message().contains("spec.ports[0]"), "{d:?}");
}

#[test]
fn srv_names_are_made_only_where_external_dns_makes_them() {
    let hostname = json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org"});
    let targeted = json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org",
                          "external-dns.alpha.kubernetes.io/target": "198.51.100.1"});
    let mut load_balancer = node_port_service("api", hostname.clone(), json!([{"port": 80}]));
    load_balancer["spec"]["type"] = json!("LoadBalancer");
    let table = [
        // With a target annotation external-dns publishes the hostname to it: no SRV record.
        (
            "NodePort with a target",
            node_port_service("api", targeted, json!([{"port": 80}])),
        ),
        ("LoadBalancer", load_balancer),
        (
            "NodePort without ports",
            node_port_service("api", hostname, json!([])),
        ),
    ];
    for (case, svc) in table {
        let d = validate_kind(RULES, "", "Service", "default", &svc);
        let values: Vec<&str> = d.violations.iter().map(|v| v.value.as_str()).collect();
        assert_eq!(values, ["api.other.org"], "{case}");
    }
}

#[test]
fn an_srv_name_whose_service_label_is_too_long_is_invalid_and_its_txt_name_takes_srv() {
    let svc = |name: &str| {
        node_port_service(
            name,
            json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
            json!([{"port": 80}]),
        )
    };
    // `_` + 63 = 64 octets: external-dns drops the record.
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(63)));
    assert_eq!(
        reasons(&d),
        [(HOSTNAME_0.to_string(), Reason::HostnameInvalid)]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains("64 octets") && message.contains("Service name of at most 62"),
        "{message}"
    );
    // TXT `srv-_<58>` is 63 octets and fits (`cname-` would not); `srv-_<59>` does not.
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(58)));
    assert!(d.allowed, "{:?}", d.violations);
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(59)));
    assert_eq!(
        reasons(&d),
        [(HOSTNAME_0.to_string(), Reason::HostnameTxtTooLong)]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains(&format!("\"srv-_{}._tcp.api.example.com\"", "a".repeat(59))),
        "{message}"
    );
}
