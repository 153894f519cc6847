# Shared helpers for the benchmark scripts (scripts/bench.sh, soak.sh, scale.sh, reload-latency.sh,
# instructions.sh, pgo-build.sh, image-rehearsal.sh; bench/apiserver-overhead.sh,
# capture-reviews.sh), sourced, not run, on top of tests/e2e/lib.sh (messages, processes,
# ports, PKI, local cluster). Every process started with bg_start is stopped on exit (the traps
# bench_init installs). Traffic stays on 127.0.0.1.
# shellcheck shell=bash

LOG_PREFIX=bench
# shellcheck source=tests/e2e/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/e2e/lib.sh"
BENCH_ROOT="$ZG_ROOT"
# shellcheck disable=SC2034 # used by the scripts that source this file
BENCH_DIR="$BENCH_ROOT/bench"
# shellcheck disable=SC2034
CLK_TCK="$(getconf CLK_TCK)"
BENCH_WORK=""

keep_work() { [[ "${BENCH_KEEP:-0}" == 1 ]]; }

# die_showing FILE MESSAGE: FILE (the output of a tool that failed) on stderr, then die MESSAGE.
die_showing() {
  cat "$1" >&2
  die "${@:2}"
}

# bench_init NAME: temp dir (BENCH_WORK, also LOGS), cleanup traps.
# shellcheck disable=SC2034 # LOG_PREFIX, BENCH_WORK and LOGS are used by tests/e2e/lib.sh and the scripts
bench_init() {
  LOG_PREFIX="$1"
  work_init "$1" "work files"
  BENCH_WORK="$WORK"
  LOGS="$WORK"
}

# http_get PORT PATH: one plain-HTTP GET on 127.0.0.1 without forking (each read gives up
# after 5 s); prints the body, succeeds on status 200.
http_get() {
  local port="$1" path="$2" status line body=""
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
  IFS= read -r -t 5 status <&3 || status=""
  while IFS= read -r -t 5 line <&3; do
    [[ "$line" == $'\r' || -z "$line" ]] && break
  done
  body="$(timeout 5 cat <&3)" || true
  exec 3<&- 3>&-
  printf '%s' "$body"
  [[ "$status" == *" 200 "* ]]
}

# metric_sum_count PORT: "<sum> <count>" of zoneguard's admission duration histogram (its
# handler's time), all endpoints, from the /metrics of its probe PORT.
metric_sum_count() {
  http_get "$1" /metrics | awk '
    $1 ~ /^zoneguard_admission_duration_seconds_sum/ { s += $2 }
    $1 ~ /^zoneguard_admission_duration_seconds_count/ { c += $2 }
    END { printf "%s %s\n", s + 0, c + 0 }'
}

# now_us: microseconds since the epoch (no fork).
now_us() {
  local t="${EPOCHREALTIME/./}"
  printf '%s' "$((10#$t))"
}

# rules_generation PORT: zoneguard_rules_generation from http://127.0.0.1:PORT/metrics.
rules_generation() { http_get "$1" /metrics | awk '$1 == "zoneguard_rules_generation" { print $2 }'; }

# rename_rules_in NEW RULES PORT: renames NEW onto RULES (as a ConfigMap volume update replaces a
# file) and waits, up to 120 s, until zoneguard on probe PORT has a new rules generation; prints
# the microseconds from the rename to the new generation.
rename_rules_in() {
  local new="$1" rules="$2" port="$3" before t0
  before="$(rules_generation "$port")"
  t0="$(now_us)"
  mv "$new" "$rules"
  until [[ "$(rules_generation "$port")" != "$before" ]]; do
    [[ $(now_us) -lt $((t0 + 120000000)) ]] || die "no reload within 120 s"
    sleep 0.002
  done
  printf '%d' $(($(now_us) - t0))
}

# wait_ready PID PORT TIMEOUT_S: polls http://127.0.0.1:PORT/readyz every ~2 ms; prints the
# microseconds waited. Fails when PID exits or the time runs out.
wait_ready() {
  local pid="$1" port="$2" timeout="$3" start deadline
  start="$(now_us)"
  deadline=$((start + timeout * 1000000))
  until http_get "$port" /readyz >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || return 1
    [[ $(now_us) -lt $deadline ]] || return 1
    sleep 0.002
  done
  printf '%s' "$(($(now_us) - start))"
}

# cpu_ticks PID...: user and system time of the processes (utime, stime), in clock ticks: "U S".
cpu_ticks() {
  local pid user=0 system=0 stat rest
  for pid in "$@"; do
    stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
    rest="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $rest
    user=$((user + ${12}))
    system=$((system + ${13}))
  done
  printf '%s %s' "$user" "$system"
}

# status_kib FIELD PID...: sum of a /proc/PID/status field (VmHWM, VmRSS) in KiB.
status_kib() {
  local field="$1" pid total=0 v
  shift
  for pid in "$@"; do
    v="$(awk -v f="$field:" '$1 == f { print $2 }' "/proc/$pid/status" 2>/dev/null)"
    total=$((total + ${v:-0}))
  done
  printf '%s' "$total"
}

# make_cert DIR: a self-signed ECDSA P-256 certificate for 127.0.0.1/localhost in DIR/tls.crt,
# DIR/tls.key.
make_cert() {
  local dir="$1"
  mkdir -p "$dir"
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$dir/tls.key.new" -out "$dir/tls.crt.new" -subj "/CN=127.0.0.1" -days 2 \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2>/dev/null
  mv "$dir/tls.key.new" "$dir/tls.key"
  mv "$dir/tls.crt.new" "$dir/tls.crt"
}

# release_build VAR PATH CARGO-ARGS...: sets VAR to target/release/PATH, built by
# `cargo build --release CARGO-ARGS`, unless VAR is already set.
release_build() {
  local var="$1" path="$2"
  shift 2
  if [[ -z "${!var:-}" ]]; then
    say "building $path (cargo build --release $*)"
    (cd "$BENCH_ROOT" && nice -n 5 cargo build --quiet --release "$@") || die "cargo build failed"
    printf -v "$var" '%s' "${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/release/$path"
  fi
  [[ -x "${!var}" ]] || die "$path not found at ${!var}"
}

# build_zoneguard: sets ZONEGUARD_BIN (a release build unless it is already set).
build_zoneguard() { release_build ZONEGUARD_BIN zoneguard --bin zoneguard; }

# build_floor: sets FLOOR_BIN, zoneguard's HTTP stack with a fixed answer (bench/fixed_answer.rs;
# a release build unless it is already set).
build_floor() { release_build FLOOR_BIN examples/fixed_answer --example fixed_answer; }

# bench_rules: the load benchmark's rules (bench/gen-rules.sh 50 20 200 3: 50 domain filters, 20
# delegated namespaces, 200 trust policies, 3 inject rules) written to BENCH_RULES, in a directory
# of their own under BENCH_WORK: zoneguard watches its rules' directory, and logs or wrk's output
# written beside the rules would wake the watcher.
bench_rules() {
  mkdir -p "$BENCH_WORK/rules"
  BENCH_RULES="$BENCH_WORK/rules/rules.yaml"
  "$BENCH_DIR/gen-rules.sh" 50 20 200 3 >"$BENCH_RULES"
}

# serve_zoneguard LOG BIN RULES CERT KEY [FLAG...]: starts `BIN serve` with those rules and that
# certificate on fresh 127.0.0.1 ports (ZG_PORT: webhook, ZG_PROBE: probes and metrics; JSON log
# lines, then FLAG...) and waits until it is ready; sets ZG_PID. Dies with the log's last lines
# when it is not ready within 30 s.
serve_zoneguard() {
  local log="$1" bin="$2" rules="$3" cert="$4" key="$5"
  shift 5
  free_port ZG_PORT
  free_port ZG_PROBE
  bg_start "$log" "$bin" serve --rules "$rules" --tls-cert "$cert" --tls-key "$key" \
    --listen "127.0.0.1:$ZG_PORT" --probe-listen "127.0.0.1:$ZG_PROBE" --log-format json "$@"
  ZG_PID=$BG_PID
  wait_ready "$ZG_PID" "$ZG_PROBE" 30 >/dev/null || { tail -n 20 "$log" >&2; die "zoneguard did not become ready ($log)"; }
}

# wait_https PID PORT SECONDS LOG...: waits until https://127.0.0.1:PORT/ answers (any status);
# dies, showing the LOG files, when PID exits first or the time runs out.
wait_https() {
  local pid="$1" port="$2" tries=$(($3 * 20))
  shift 3
  until curl -sk -o /dev/null "https://127.0.0.1:$port/"; do
    if ! kill -0 "$pid" 2>/dev/null || ((--tries <= 0)); then
      cat "$@" >&2 2>/dev/null
      die "nothing answers on port $port"
    fi
    sleep 0.05
  done
}

need() {
  local cmd
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null 2>&1 || die "$cmd is required (Debian: apt-get install $cmd)"
  done
}

# tls_of PORT: "TLSv1.3 TLS_AES_256_GCM_SHA384" as an OpenSSL client negotiates it.
tls_of() {
  openssl s_client -connect "127.0.0.1:$1" -brief </dev/null 2>&1 |
    awk -F': ' '/^Protocol version/ { p = $2 } /^Ciphersuite/ { c = $2 } END { print p, c }'
}

# result_field LINE KEY: the value of KEY=... in a wrk RESULT line.
result_field() {
  local line="$1" key="$2" item
  for item in $line; do
    [[ "$item" == "$key="* ]] && { printf '%s' "${item#*=}"; return 0; }
  done
  printf '0'
}

# wrk_result OUT: the RESULT line bench/wrk-mix.lua printed into wrk's output file OUT; without
# one, wrk's whole output and a failure.
wrk_result() {
  grep '^RESULT ' "$1" || die_showing "$1" "wrk printed no RESULT line ($1)"
}

# failed_requests LINE: how many requests of a wrk RESULT line failed: connect, read and write
# errors, timeouts and non-2xx answers.
failed_requests() {
  local n=0 key
  for key in connect_errors read_errors write_errors timeouts non2xx; do
    n=$((n + $(result_field "$1" "$key")))
  done
  printf '%d' "$n"
}

# webhook_configurations BASE-URL CA-FILE OUT: zoneguard's shipped webhook configurations alone
# (no Deployment: the webhook runs here as a process), each clientConfig pointed at BASE-URL
# with CA-FILE as its caBundle (webhook_overlay of tests/e2e/lib.sh), written to OUT.
webhook_configurations() {
  local base="$1" ca="$2" out="$3"
  webhook_overlay "$base" "$(base64 -w0 <"$ca")"
  "$KUBECTL" kustomize "$WORK/overlay" | kind_documents '(Validating|Mutating)WebhookConfiguration' >"$out"
  grep -q "url: $base/" "$out" || die "no webhook configuration with the url $base"
}
