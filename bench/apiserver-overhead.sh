#!/usr/bin/env bash
# API-server overhead: what zoneguard's webhooks add to a create.
#
#   bench/apiserver-overhead.sh
#
# Starts etcd and kube-apiserver on loopback as tests/e2e/run.sh does (tools from
# scripts/tools.sh, cached), zoneguard serve (release) with the bench rules
# (bench/gen-rules.sh 50 20 200 3) on 127.0.0.1, then runs bench/apiload (Go, standard library
# only) which creates and deletes APILOAD_N LoadBalancer Services and APILOAD_N Ingresses
# (3 hosts each) in namespace team-1 at APILOAD_CONCURRENCY workers: alternately without any
# webhook configuration and with zoneguard's shipped webhook configurations (manifests/,
# only clientConfig changed to the local URL and caBundle), APILOAD_ROUNDS times each. Prints
# p50/p99 create latency and creates/s of both, pooled over the rounds, and the difference.
#
# Environment: ZONEGUARD_BIN, ZONEGUARD_TOOLS_DIR, APILOAD_N (default 300), APILOAD_CONCURRENCY
# (default 16), APILOAD_ROUNDS (default 2), BENCH_KEEP=1. Traffic stays on 127.0.0.1; every
# process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

N="${APILOAD_N:-300}"
CONC="${APILOAD_CONCURRENCY:-16}"
ROUNDS="${APILOAD_ROUNDS:-2}"
need openssl curl go awk base64
bench_init apiserver-overhead
build_zoneguard
W="$BENCH_WORK"

BIN_DIR="$("$BENCH_ROOT/scripts/tools.sh" --print-dir kube etcd)"
KUBECTL="$BIN_DIR/kubectl"
say "building bench/apiload"
(cd "$BENCH_DIR/apiload" && GOFLAGS=-mod=mod go build -o "$W/apiload" .) || die "go build failed"

# ------------------------------------------- PKI, etcd, kube-apiserver ----
PKI="$W/pki"
cluster_pki bench
cert webhook 127.0.0.1 "" $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
ZG_PORT="" ZG_PROBE=""
start_cluster bench 10.0.0.0/16
say "kube-apiserver $("$BIN_DIR/kube-apiserver" --version | awk '{print $2}') up on 127.0.0.1:$API_PORT"
kc create namespace team-1 >/dev/null

# ------------------------------------------------------------------ zoneguard ----
bench_rules
serve_zoneguard "$W/zoneguard.log" "$ZONEGUARD_BIN" "$BENCH_RULES" "$PKI/webhook.crt" "$PKI/webhook.key"

# The shipped webhook configurations with only clientConfig changed (as tests/e2e/run.sh).
webhook_configurations "https://127.0.0.1:$ZG_PORT" "$PKI/ca.crt" "$W/webhooks.yaml"

denied_ingress() {
  kc create --dry-run=server -f - <<YAML 2>&1
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: probe, namespace: team-1}
spec:
  rules: [{host: login.zone2.example.com}]
YAML
}
# await_probe TEXT PROBLEM: polls the probe Ingress's dry run until its output has TEXT (dies
# with PROBLEM after 30 s).
await_probe() {
  local out _
  for _ in $(seq 1 100); do
    out="$(denied_ingress || true)"
    grep -qF -- "$1" <<<"$out" && return 0
    sleep 0.3
  done
  die "$2"
}
install_webhooks() {
  kc apply -f "$W/webhooks.yaml" >/dev/null
  await_probe 'denied the request' "the webhooks did not take effect within 30 s"
}
remove_webhooks() {
  kc delete -f "$W/webhooks.yaml" --wait=true >/dev/null
  await_probe 'created (server dry run)' "the webhooks were still called 30 s after their removal"
}

# ----------------------------------------------------------------------- runs ----
load() { # LABEL ROUND
  "$W/apiload" -server "https://127.0.0.1:$API_PORT" -ca "$PKI/ca.crt" -cert "$PKI/admin.crt" \
    -key "$PKI/admin.key" -n "$N" -concurrency "$CONC" -prefix "$1-$2" -label "$1" \
    -raw "$W/raw-$1.txt" | tee -a "$W/results.txt" >&2
}
say "creating and deleting $N Services + $N Ingresses at concurrency $CONC, $ROUNDS rounds each way"
for ((round = 1; round <= ROUNDS; round++)); do
  load without "$round"
  install_webhooks
  load with "$round"
  remove_webhooks
done
zg_calls="$(http_get "$ZG_PROBE" /metrics | awk '$1 ~ /^zoneguard_admission_requests_total/ { n += $2 } END { print n + 0 }')"

pct() { # FILE P
  sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(p / 100 * NR + 0.5); if (i < 1) i = 1; printf "%.3f", v[i] / 1000 }'
}
rate() { # LABEL: mean creates/s over the rounds
  awk -v l="$1" '$1 == "RESULT" && $2 == "label=" l { split($6, a, "="); s += a[2]; n++ } END { printf "%.1f", s / n }' "$W/results.txt"
}
P50_WITHOUT="$(pct "$W/raw-without.txt" 50)" P99_WITHOUT="$(pct "$W/raw-without.txt" 99)"
P50_WITH="$(pct "$W/raw-with.txt" 50)" P99_WITH="$(pct "$W/raw-with.txt" 99)"
RATE_WITHOUT="$(rate without)" RATE_WITH="$(rate with)"
delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f", a - b }'; }
echo
echo "API-server overhead ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, kube-apiserver $("$BIN_DIR/kube-apiserver" --version | awk '{print $2}'))"
echo "$N LoadBalancer Services + $N Ingresses (3 hosts) created and deleted per round, concurrency $CONC, $ROUNDS rounds each way"
echo "zoneguard answered $zg_calls admission requests (validating + mutating webhooks)"
printf '%-26s %12s %12s %12s\n' "" "without" "with" "difference"
printf '%-26s %12s %12s %12s\n' "create p50 ms" "$P50_WITHOUT" "$P50_WITH" "$(delta "$P50_WITH" "$P50_WITHOUT")"
printf '%-26s %12s %12s %12s\n' "create p99 ms" "$P99_WITHOUT" "$P99_WITH" "$(delta "$P99_WITH" "$P99_WITHOUT")"
printf '%-26s %12s %12s %12s\n' "creates/s (with deletes)" "$RATE_WITHOUT" "$RATE_WITH" "$(delta "$RATE_WITH" "$RATE_WITHOUT")"
echo "target (reported, not asserted): create p99 overhead < 3 ms: $(delta "$P99_WITH" "$P99_WITHOUT") ms"
