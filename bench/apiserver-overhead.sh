#!/usr/bin/env bash
# API-server overhead: what zoneguard's webhooks add to a create, and what any webhook adds.
#
#   bench/apiserver-overhead.sh
#
# Starts etcd and kube-apiserver on loopback as tests/e2e/run.sh does (tools from
# scripts/tools.sh, cached), zoneguard serve (release) with the bench rules
# (bench/gen-rules.sh 50 20 200 3) on 127.0.0.1 and bench/nullhook (Go, standard library only: a
# webhook that reads each review and admits it, answering /mutate with the patch zoneguard gives
# the same objects: `zoneguard check` on apiload -sample), then runs bench/apiload (Go, standard library
# only) which creates and deletes APILOAD_N LoadBalancer Services and APILOAD_N Ingresses
# (3 hosts each) in namespace team-1 at APILOAD_CONCURRENCY workers, APILOAD_ROUNDS times each
# way, in turn: without any webhook configuration; with zoneguard's shipped webhook
# configurations (manifests/, only clientConfig changed to the local URL and caBundle); with the
# same configurations pointed at the null webhook. Prints p50/p99 create latency and creates/s of
# the three, pooled over the rounds, and the differences: zoneguard against no webhook (the
# target), the null webhook against no webhook (what any webhook costs here), zoneguard against
# the null webhook (zoneguard's own share). Then where the webhook time goes, per create: for each
# webhook of the two configurations, its calls and the time kube-apiserver spent on them, from
# the API server's own apiserver_admission_webhook_admission_duration_seconds (building the review,
# the call, reading and applying the answer), and how many took over 5 ms; beside them the time
# of zoneguard's own handler, from its zoneguard_admission_duration_seconds.
#
# The webhooks are registered at this machine's host name when it resolves to 127.0.0.1, so that
# the API server calls them over HTTP/1.1 as in a cluster, else at 127.0.0.1, over HTTP/2
# (webhook_host in tests/e2e/lib.sh); the report names the protocol the null webhook saw.
#
# Environment: ZONEGUARD_BIN, ZONEGUARD_TOOLS_DIR, APILOAD_N (default 300), APILOAD_CONCURRENCY
# (default 16), APILOAD_ROUNDS (default 2), APILOAD_NAMESPACE (default team-1, where every object
# gets an injected annotation; in another team-N only the Ingresses do), BENCH_INJECT_CONDITION=1
# (zoneguard keeps the mutating webhook's inject-rules condition, as with
# manifests/inject-conditions: objects no inject rule changes skip /mutate), LOCAL_WEBHOOK_HOST
# (the host in the webhooks' URLs; it must resolve to 127.0.0.1: 127.0.0.1 for HTTP/2 calls),
# BENCH_NULL_PATCH=0 (the null webhook answers with no patch, as before 2026-12-07 11:18 UTC: a
# Service then skips the validating webhook), BENCH_KEEP=1.
# Traffic stays on 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

N="${APILOAD_N:-300}"
CONC="${APILOAD_CONCURRENCY:-16}"
WARMUP=20 # objects of each kind bench/apiload creates first and does not count
ROUNDS="${APILOAD_ROUNDS:-2}"
NS="${APILOAD_NAMESPACE:-team-1}"
[[ "$NS" =~ ^team-([0-9]|1[0-9])$ ]] || { echo "APILOAD_NAMESPACE must be team-0 … team-19 (the bench rules' delegated namespaces), not $NS" >&2; exit 2; }
DOMAIN="$NS.zone${NS#team-}.example.com" # bench/gen-rules.sh: team-N owns team-N.zoneN.example.com (N < 50)
BENCH_NULL_PATCH="${BENCH_NULL_PATCH:-1}"
[[ "$BENCH_NULL_PATCH" =~ ^[01]$ ]] || { echo "BENCH_NULL_PATCH must be 0 or 1, not $BENCH_NULL_PATCH" >&2; exit 2; }
ZG_ARGS=()
[[ "${BENCH_INJECT_CONDITION:-0}" == 1 ]] && ZG_ARGS=(--mutating-webhook-configuration zoneguard)
need openssl curl go awk base64 getent
bench_init apiserver-overhead

WEBHOOK_HOST="$(webhook_host)"
build_zoneguard
W="$BENCH_WORK"

BIN_DIR="$("$BENCH_ROOT/scripts/tools.sh" --print-dir kube etcd)"
KUBECTL="$BIN_DIR/kubectl"
say "building bench/apiload"
(cd "$BENCH_DIR/apiload" && GOFLAGS=-mod=mod go build -o "$W/apiload" .) || die "go build failed"
say "building bench/nullhook"
(cd "$BENCH_DIR/nullhook" && GOFLAGS=-mod=mod go build -o "$W/nullhook" .) || die "go build failed"

# ------------------------------------------- PKI, etcd, kube-apiserver ----
PKI="$W/pki"
cluster_pki bench
webhook_cert webhook "$WEBHOOK_HOST"
ZG_PORT="" ZG_PROBE=""
start_cluster bench 10.0.0.0/16
say "kube-apiserver $("$BIN_DIR/kube-apiserver" --version | awk '{print $2}') up on 127.0.0.1:$API_PORT"
kc create namespace team-1 >/dev/null
[[ "$NS" == team-1 ]] || kc create namespace "$NS" >/dev/null

# ------------------------------------------------------- the two webhooks ----
bench_rules
serve_zoneguard "$W/zoneguard.log" "$ZONEGUARD_BIN" "$BENCH_RULES" "$PKI/webhook.crt" "$PKI/webhook.key" \
  "${ZG_ARGS[@]}" # with the admin kubeconfig start_cluster exported, for the condition
# The null webhook answers /mutate with the patch zoneguard gives apiload's objects (unless
# BENCH_NULL_PATCH=0), so that the API server applies the same patch and makes the same calls
# with either webhook.
NULL_ARGS=()
if [[ "$BENCH_NULL_PATCH" == 1 ]]; then
  "$W/apiload" -sample nullhook-sample -namespace "$NS" -domain "$DOMAIN" >"$W/samples.yaml"
  "$ZONEGUARD_BIN" check --rules "$BENCH_RULES" --output json "$W/samples.yaml" >"$W/patches.json" ||
    [[ $? == 1 ]] || die "zoneguard check could not read apiload's sample objects ($W/patches.json)"
  NULL_ARGS=(-patches "$W/patches.json")
fi
free_port NULL_PORT
bg_start "$W/nullhook.log" "$W/nullhook" -listen "127.0.0.1:$NULL_PORT" -cert "$PKI/webhook.crt" \
  -key "$PKI/webhook.key" "${NULL_ARGS[@]}"
NULL_PID=$BG_PID
wait_https "$NULL_PID" "$NULL_PORT" 10 "$W/nullhook.log"

# The shipped webhook configurations with only clientConfig changed (as tests/e2e/run.sh), once
# for zoneguard and once for the null webhook.
webhook_configurations "https://$WEBHOOK_HOST:$ZG_PORT" "$PKI/ca.crt" "$W/webhooks-zoneguard.yaml"
webhook_configurations "https://$WEBHOOK_HOST:$NULL_PORT" "$PKI/ca.crt" "$W/webhooks-null.yaml"

probe_ingress() {
  kc create --dry-run=server -f - <<YAML 2>&1
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: probe, namespace: team-1}
spec:
  rules: [{host: login.zone2.example.com}]
YAML
}
null_get() { curl -sk "https://127.0.0.1:$NULL_PORT/$1"; } # PATH
null_count() { null_get count; }
null_counts() { null_get "$1" | sort | paste -sd, | sed 's/,/, /g'; } # PATH: "KEY N, KEY N"
# probe_says TEXT: the probe's dry run printed TEXT (kubectl fails when it is denied).
probe_says() {
  local out
  out="$(probe_ingress || true)"
  grep -qF -- "$1" <<<"$out"
}
# The probe Ingress is outside team-1's domains: zoneguard denies it, the null webhook admits it
# and counts it, and without webhooks it is created.
zoneguard_called() { probe_says 'denied the request'; }
# created_with_null COUNTED: the probe was created, and the null webhook counted it (yes) or
# did not (no).
created_with_null() {
  local before counted=no
  before="$(null_count)"
  probe_says 'created (server dry run)' || return 1
  [[ "$(null_count)" != "$before" ]] && counted=yes
  [[ "$counted" == "$1" ]]
}
null_called() { created_with_null yes; }
none_called() { created_with_null no; }
# await CHECK PROBLEM: polls CHECK until it succeeds (dies with PROBLEM after 30 s).
await() {
  local _
  for _ in $(seq 1 100); do
    "$1" && return 0
    sleep 0.3
  done
  die "$2"
}
condition_set() { [[ -n "$(inject_condition)" ]]; }
install_webhooks() { # WHICH: zoneguard or null
  kc apply -f "$W/webhooks-$1.yaml" >/dev/null
  await "$1_called" "the $1 webhooks did not take effect within 30 s"
  # zoneguard puts its condition on whichever configuration is named zoneguard, the null
  # webhook's too: both are measured with the same configuration.
  [[ ${#ZG_ARGS[@]} -eq 0 ]] || await condition_set "zoneguard did not set the inject-rules condition within 30 s"
}
remove_webhooks() { # WHICH
  kc delete -f "$W/webhooks-$1.yaml" --wait=true >/dev/null
  await none_called "the $1 webhooks were still called 30 s after their removal"
}

# ------------------------------------------------ where the webhook time goes ----
# webhook_totals: kube-apiserver's totals so far of the time it spent on each webhook (building
# the review, the call, reading and applying the answer), one line per webhook and step:
# NAME STEP CALLS SECONDS SLOW (STEP admit: mutating, validating; SLOW: the calls that took over
# 5 ms, the histogram's first bucket bound past the p50).
webhook_totals() {
  kc get --raw /metrics | awk '
    /^apiserver_admission_webhook_admission_duration_seconds_(sum|count|bucket)[{]/ {
      match($0, /name="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7)
      match($0, /type="[^"]*"/); k = k " " substr($0, RSTART + 6, RLENGTH - 7)
      if ($1 ~ /_sum[{]/) s[k] += $2
      else if ($1 ~ /_count[{]/) c[k] += $2
      else if ($1 ~ /le="0[.]005"/) fast[k] += $2
    }
    END { for (k in c) print k, c[k], s[k], c[k] - fast[k] }'
}
# record_spent LABEL BEFORE AFTER: appends to webhook-time.txt what each webhook cost between
# two webhook_totals: LABEL NAME STEP CALLS SECONDS SLOW.
record_spent() {
  awk -v l="$1" 'NR == FNR { k = $1 " " $2; c[k] = $3; s[k] = $4; slow[k] = $5; next }
    { k = $1 " " $2 } $3 > c[k] { print l, $1, $2, $3 - c[k], $4 - s[k], $5 - slow[k] }' "$2" "$3" \
    >>"$W/webhook-time.txt"
}

# ----------------------------------------------------------------------- runs ----
load() { # LABEL ROUND
  local handler_before=""
  webhook_totals >"$W/webhooks-before.txt"
  [[ "$1" != zoneguard ]] || handler_before="$(metric_sum_count "$ZG_PROBE")"
  "$W/apiload" -server "https://127.0.0.1:$API_PORT" -ca "$PKI/ca.crt" -cert "$PKI/admin.crt" \
    -key "$PKI/admin.key" -n "$N" -concurrency "$CONC" -prefix "$1-$2" -label "$1" \
    -namespace "$NS" -domain "$DOMAIN" -warmup "$WARMUP" \
    -raw "$W/raw-$1.txt" | tee -a "$W/results.txt" >&2
  webhook_totals >"$W/webhooks-after.txt"
  record_spent "$1" "$W/webhooks-before.txt" "$W/webhooks-after.txt"
  [[ -z "$handler_before" ]] || echo "$handler_before $(metric_sum_count "$ZG_PROBE")" |
    awk '{ print "zoneguard handler -", $4 - $2, $3 - $1, "-" }' >>"$W/webhook-time.txt"
}
say "creating and deleting $N Services + $N Ingresses in $NS at concurrency $CONC, $ROUNDS rounds each way${ZG_ARGS:+, zoneguard keeping the inject-rules condition}"
for ((round = 1; round <= ROUNDS; round++)); do
  load without "$round"
  install_webhooks zoneguard
  load zoneguard "$round"
  remove_webhooks zoneguard
  install_webhooks null
  load null "$round"
  remove_webhooks null
done
zg_calls="$(http_get "$ZG_PROBE" /metrics | awk '$1 ~ /^zoneguard_admission_requests_total/ { n += $2 } END { print n + 0 }')"

pct() { # LABEL P
  sort -n "$W/raw-$1.txt" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(p / 100 * NR + 0.5); if (i < 1) i = 1; printf "%.3f", v[i] / 1000 }'
}
rate() { # LABEL: mean creates/s over the rounds
  awk -v l="$1" '$1 == "RESULT" && $2 == "label=" l { split($6, a, "="); s += a[2]; n++ } END { printf "%.1f", s / n }' "$W/results.txt"
}
delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f", a - b }'; }
row() { # NAME VALUE_WITHOUT VALUE_ZONEGUARD VALUE_NULL
  printf '%-26s %10s %10s %10s %12s %12s %12s\n' "$1" "$2" "$3" "$4" "$(delta "$3" "$2")" \
    "$(delta "$4" "$2")" "$(delta "$3" "$4")"
}
echo
echo "API-server overhead ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, kube-apiserver $("$BIN_DIR/kube-apiserver" --version | awk '{print $2}'))"
echo "$N LoadBalancer Services + $N Ingresses (3 hosts) created and deleted per round, concurrency $CONC, $ROUNDS rounds each way"
echo "zoneguard answered $zg_calls admission requests (validating + mutating webhooks); the null webhook $(null_count)"
echo "webhooks called at https://$WEBHOOK_HOST:<port>; the null webhook's calls by protocol: $(null_counts protocols)"
null_patched="none (BENCH_NULL_PATCH=0)"
[[ "$BENCH_NULL_PATCH" == 0 ]] || null_patched="$(null_counts patched)"
echo "the null webhook's answers with zoneguard's patch, by kind: ${null_patched:-none}"
printf '%-26s %10s %10s %10s %12s %12s %12s\n' "" "without" "zoneguard" "null" "zg-without" "null-without" "zg-null"
row "create p50 ms" "$(pct without 50)" "$(pct zoneguard 50)" "$(pct null 50)"
row "create p99 ms" "$(pct without 99)" "$(pct zoneguard 99)" "$(pct null 99)"
row "creates/s (with deletes)" "$(rate without)" "$(rate zoneguard)" "$(rate null)"
echo "target (reported, not asserted): create p99 overhead < 3 ms: $(delta "$(pct zoneguard 99)" "$(pct without 99)") ms" \
  "(the null webhook: $(delta "$(pct null 99)" "$(pct without 99)") ms)"
echo
echo "Where the webhook time goes, per create (kube-apiserver's apiserver_admission_webhook_admission_duration_seconds:"
echo "building the review, the call, reading and applying the answer; zoneguard's handler from its own metrics)"
awk -v creates=$((2 * (N + WARMUP) * ROUNDS)) '
  { k = $1 " " $2 " " $3; if (!(k in c)) order[++n] = k; c[k] += $4; s[k] += $5; slow[k] += $6
    if (!($1 in seen)) { seen[$1] = 1; labels[++m] = $1 } }
  END {
    printf "%-46s %12s %9s %10s %10s\n", "", "calls/create", "ms/call", "ms/create", "over 5 ms"
    for (i = 1; i <= n; i++) {
      k = order[i]; split(k, f, " ")
      step = f[3] == "admit" ? "mutating" : f[3]
      name = f[2] == "handler" ? "zoneguard: its own handler" : f[1] ": " f[2] " (" step ")"
      printf "%-46s %12.3f %9.3f %10.3f %10s\n", name, c[k] / creates, 1000 * s[k] / c[k],
        1000 * s[k] / creates, f[2] == "handler" ? "" : slow[k]
      if (f[2] != "handler") { t[f[1]] += s[k]; ts[f[1]] += slow[k] }
    }
    for (i = 1; i <= m; i++)
      printf "%-46s %12s %9s %10.3f %10d\n", labels[i] ": every webhook", "", "",
        1000 * t[labels[i]] / creates, ts[labels[i]]
  }' "$W/webhook-time.txt"
