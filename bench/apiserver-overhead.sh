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

# ----------------------------------------------------------------------- PKI ----
PKI="$W/pki"
mkdir -p "$PKI"
cert() { # NAME SUBJECT EXTENSIONS: key + certificate signed by $PKI/ca
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$PKI/$1.key" -out "$PKI/$1.csr" -subj "$2" 2>/dev/null
  printf '%s\n' "$3" >"$PKI/$1.ext"
  openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 2 -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>/dev/null
}
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -subj "/CN=zoneguard-bench-ca" -days 2 2>/dev/null
cert apiserver /CN=kube-apiserver $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
cert admin /O=system:masters/CN=bench-admin 'extendedKeyUsage=clientAuth'
cert webhook /CN=127.0.0.1 $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null

# ------------------------------------------------------- etcd, kube-apiserver ----
ETCD_PORT="" ETCD_PEER="" API_PORT="" ZG_PORT="" ZG_PROBE=""
free_port ETCD_PORT
free_port ETCD_PEER
bg_start "$W/etcd.log" "$BIN_DIR/etcd" --name bench --data-dir "$W/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "bench=http://127.0.0.1:$ETCD_PEER" --unsafe-no-fsync --log-level warn
for _ in $(seq 1 150); do curl -fsS "http://127.0.0.1:$ETCD_PORT/health" >/dev/null 2>&1 && break; sleep 0.2; done

free_port API_PORT
bg_start "$W/kube-apiserver.log" "$BIN_DIR/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --secure-port "$API_PORT" --cert-dir "$W/apiserver" \
  --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
  --client-ca-file "$PKI/ca.crt" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --authorization-mode RBAC \
  --enable-admission-plugins NamespaceLifecycle,ServiceAccount,Priority,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy \
  --service-cluster-ip-range 10.0.0.0/16 --allow-privileged=true --profiling=false
API_PID=$BG_PID
KCFG="$W/admin.kubeconfig"
cat >"$KCFG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: bench, cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority-data: $(base64 -w0 <"$PKI/ca.crt")}}]
users: [{name: admin, user: {client-certificate-data: $(base64 -w0 <"$PKI/admin.crt"), client-key-data: $(base64 -w0 <"$PKI/admin.key")}}]
contexts: [{name: bench, context: {cluster: bench, user: admin}}]
current-context: bench
YAML
kc() { "$KUBECTL" --kubeconfig "$KCFG" --request-timeout=40s "$@"; }
for _ in $(seq 1 450); do
  kc get namespace default >/dev/null 2>&1 && break
  kill -0 "$API_PID" 2>/dev/null || { tail -n 20 "$W/kube-apiserver.log" >&2; die "kube-apiserver exited"; }
  sleep 0.2
done
kc get namespace default >/dev/null || die "kube-apiserver did not start"
say "kube-apiserver $("$BIN_DIR/kube-apiserver" --version | awk '{print $2}') up on 127.0.0.1:$API_PORT"
kc create namespace team-1 >/dev/null

# ------------------------------------------------------------------ zoneguard ----
"$BENCH_DIR/gen-rules.sh" 50 20 200 3 >"$W/rules.yaml"
free_port ZG_PORT
free_port ZG_PROBE
bg_start "$W/zoneguard.log" "$ZONEGUARD_BIN" serve --rules "$W/rules.yaml" \
  --tls-cert "$PKI/webhook.crt" --tls-key "$PKI/webhook.key" \
  --listen "127.0.0.1:$ZG_PORT" --probe-listen "127.0.0.1:$ZG_PROBE" --log-format json
ZG_PID=$BG_PID
wait_ready "$ZG_PID" "$ZG_PROBE" 30 >/dev/null || { tail "$W/zoneguard.log" >&2; die "zoneguard not ready"; }

# The shipped webhook configurations with only clientConfig changed (as tests/e2e/run.sh).
"$KUBECTL" kustomize "$BENCH_ROOT/manifests" >"$W/manifests.yaml"
awk '
  /^kind: / { kind = $2 }
  /^metadata:/ { inmeta = 1; inwh = 0; next }
  /^webhooks:/ { inwh = 1; inmeta = 0; next }
  /^[a-zA-Z]/ { inmeta = 0; inwh = 0 }
  inmeta && /^  name: / { cfg = $2 }
  inwh && /^  name: / { print kind, cfg, $2 }
' "$W/manifests.yaml" >"$W/webhooks.txt"
[[ -s "$W/webhooks.txt" ]] || die "no webhooks found in manifests/"
mkdir -p "$W/overlay"
CA_BUNDLE="$(base64 -w0 <"$PKI/ca.crt")"
{
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n'
  printf 'resources:\n  - %s\n' "$(realpath --relative-to="$W/overlay" "$BENCH_ROOT/manifests")"
  printf 'patches:\n'
  while read -r kind cfg hook; do
    case "$kind" in
      ValidatingWebhookConfiguration) path=/validate ;;
      MutatingWebhookConfiguration) path=/mutate ;;
      *) die "unexpected webhook kind $kind" ;;
    esac
    printf '  - patch: |-\n      apiVersion: admissionregistration.k8s.io/v1\n      kind: %s\n      metadata:\n        name: %s\n' "$kind" "$cfg"
    printf '      webhooks:\n        - name: %s\n          clientConfig:\n            service: null\n' "$hook"
    printf '            url: https://127.0.0.1:%s%s\n            caBundle: %s\n' "$ZG_PORT" "$path" "$CA_BUNDLE"
  done <"$W/webhooks.txt"
} >"$W/overlay/kustomization.yaml"
# Keep only the webhook configurations (zoneguard runs here as a process, with file rules).
"$KUBECTL" kustomize "$W/overlay" | awk '
  function flush() { if (doc ~ /\nkind: (Validating|Mutating)WebhookConfiguration\n/) printf "---\n%s", doc; doc = "\n" }
  BEGIN { doc = "\n" }
  /^---$/ { flush(); next }
  { doc = doc $0 "\n" }
  END { flush() }' >"$W/webhooks.yaml"
grep -q "url: https://127.0.0.1:$ZG_PORT/" "$W/webhooks.yaml" || die "no webhook configuration with the local url"

denied_ingress() {
  kc create --dry-run=server -f - <<YAML 2>&1
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: probe, namespace: team-1}
spec:
  rules: [{host: login.zone2.example.com}]
YAML
}
install_webhooks() {
  local out _
  kc apply -f "$W/webhooks.yaml" >/dev/null
  for _ in $(seq 1 100); do
    out="$(denied_ingress || true)"
    grep -q 'denied the request' <<<"$out" && return 0
    sleep 0.3
  done
  die "the webhooks did not take effect within 30 s"
}
remove_webhooks() {
  local out _
  kc delete -f "$W/webhooks.yaml" --wait=true >/dev/null
  for _ in $(seq 1 100); do
    out="$(denied_ingress || true)"
    grep -q 'created (server dry run)' <<<"$out" && return 0
    sleep 0.3
  done
  die "the webhooks were still called 30 s after their removal"
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
