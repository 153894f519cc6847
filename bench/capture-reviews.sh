#!/usr/bin/env bash
# Records the AdmissionReviews in bench/reviews/ from a real kube-apiserver.
#
#   bench/capture-reviews.sh
#
# Starts etcd and kube-apiserver on loopback as tests/e2e/run.sh does (tools from
# scripts/tools.sh, cached), registers zoneguard's shipped webhook configurations (manifests/,
# only clientConfig changed) pointed at bench/capture.py, which admits everything and keeps each
# request body, applies bench/reviews/objects.yaml with `kubectl apply` (client-side, as a
# developer does), labels the Ingress web once (an UPDATE), and copies the bodies the API
# server sent, byte for byte, to bench/reviews/:
#   ingress-3hosts.json    Ingress team-1/web, 3 hosts, CREATE -> /validate
#   ingress-update.json    the same Ingress when labelled, UPDATE (object and oldObject) -> /validate
#   ingress-denied.json    Ingress team-0/login, outside its delegation, CREATE -> /validate
#   service-lb.json        Service team-1/api, LoadBalancer, CREATE -> /mutate
#   serviceaccount.json    ServiceAccount ns-7/app-7 with a role ARN, CREATE -> /validate
#   httproute.json         HTTPRoute team-1/web, CREATE -> /validate
#   dnsendpoint.json       DNSEndpoint team-1/records, CREATE -> /validate
#
# Environment: ZONEGUARD_TOOLS_DIR (see scripts/tools.sh), BENCH_KEEP=1. Traffic stays on
# 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

need openssl curl python3 base64 awk
bench_init capture-reviews
W="$BENCH_WORK"
REVIEWS="$BENCH_DIR/reviews"

BIN_DIR="$("$BENCH_ROOT/scripts/tools.sh" --print-dir kube etcd)"
KUBECTL="$BIN_DIR/kubectl"
PKI="$W/pki"
cluster_pki capture
cert webhook 127.0.0.1 "" $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
start_cluster capture 10.0.0.0/16
VERSION="$("$BIN_DIR/kube-apiserver" --version | awk '{print $2}')"
say "kube-apiserver $VERSION up on 127.0.0.1:$API_PORT"
kc apply --server-side -f "$BENCH_ROOT/tests/e2e/crds/" >/dev/null
kc wait --for condition=Established --timeout 60s \
  crd/httproutes.gateway.networking.k8s.io crd/dnsendpoints.externaldns.k8s.io >/dev/null
for ns in team-0 team-1 ns-7; do kc create namespace "$ns" >/dev/null; done

free_port CAPTURE_PORT
bg_start "$W/capture.log" python3 "$BENCH_DIR/capture.py" "$CAPTURE_PORT" \
  "$PKI/webhook.crt" "$PKI/webhook.key" "$W/captured"
CAPTURE_PID=$BG_PID
wait_https "$CAPTURE_PID" "$CAPTURE_PORT" 10 "$W/capture.log"
webhook_configurations "https://127.0.0.1:$CAPTURE_PORT" "$PKI/ca.crt" "$W/webhooks.yaml"
kc apply -f "$W/webhooks.yaml" >/dev/null

# The API server takes new webhook configurations up within seconds: dry-run an Ingress until
# its review reaches the capture server.
probe() {
  kc create --dry-run=server -f - >/dev/null 2>&1 <<YAML
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: probe, namespace: team-1}
spec:
  rules: [{host: probe.team-1.zone1.example.com}]
YAML
  [[ -s "$W/captured/validate-ingress-team-1-probe.json" ]]
}
wait_until 30 "$CAPTURE_PID" capture probe || die "the webhooks did not reach the capture server"

# keep PATH KIND NAMESPACE NAME FILE: the review the API server last sent to PATH for the
# object, as bench/reviews/FILE.
keep() {
  local got="$W/captured/$1-$2-$3-$4.json"
  [[ -s "$got" ]] || die "the API server sent no /$1 review of $2 $3/$4"
  cp "$got" "$REVIEWS/$5"
  say "$5: $(wc -c <"$got") bytes, /$1 $2 $3/$4"
}
kc apply -f "$REVIEWS/objects.yaml" >/dev/null
keep validate ingress team-1 web ingress-3hosts.json
keep validate ingress team-0 login ingress-denied.json
keep mutate service team-1 api service-lb.json
keep validate serviceaccount ns-7 app-7 serviceaccount.json
keep validate httproute team-1 web httproute.json
keep validate dnsendpoint team-1 records dnsendpoint.json
kc label ingress web -n team-1 release=2 >/dev/null
keep validate ingress team-1 web ingress-update.json
say "captured from kube-apiserver $VERSION"
