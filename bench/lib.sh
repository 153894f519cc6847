# Shared helpers for scripts/bench.sh, scripts/soak.sh and scripts/scale.sh (sourced, not run).
# Every process started with bg_start is stopped by bg_cleanup (installed as an EXIT trap by
# bench_init). Traffic stays on 127.0.0.1.
# shellcheck shell=bash

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC2034 # used by the scripts that source this file
BENCH_DIR="$BENCH_ROOT/bench"
# shellcheck disable=SC2034
CLK_TCK="$(getconf CLK_TCK)"
declare -a BG_PIDS=()
declare -a USED_PORTS=()
BENCH_WORK=""
BENCH_NAME="bench"

say() { printf '%s: %s\n' "$BENCH_NAME" "$*" >&2; }
die() { printf '%s: error: %s\n' "$BENCH_NAME" "$*" >&2; exit 2; }

# bench_init NAME: temp dir, cleanup trap.
bench_init() {
  BENCH_NAME="$1"
  BENCH_WORK="$(mktemp -d "${TMPDIR:-/tmp}/zoneguard-$1.XXXXXX")"
  trap bg_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

stop_pid() {
  local pid="$1" _
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

bg_cleanup() {
  local rc=$? i
  for ((i = ${#BG_PIDS[@]} - 1; i >= 0; i--)); do
    stop_pid "${BG_PIDS[i]}"
  done
  if [[ -n "$BENCH_WORK" ]]; then
    if [[ "${BENCH_KEEP:-0}" == 1 || $rc -ne 0 ]]; then
      say "work files kept in $BENCH_WORK"
    else
      rm -rf "$BENCH_WORK"
    fi
  fi
  exit "$rc"
}

# bg_start LOGFILE CMD...: starts CMD in the background; its pid is in BG_PID.
bg_start() {
  local logfile="$1"
  shift
  "$@" >"$logfile" 2>&1 &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# bg_stop PID: stops one process started with bg_start.
bg_stop() {
  local pid="$1" i
  stop_pid "$pid"
  for i in "${!BG_PIDS[@]}"; do
    [[ "${BG_PIDS[i]}" == "$pid" ]] && unset 'BG_PIDS[i]'
  done
  BG_PIDS=("${BG_PIDS[@]}")
}

# free_port VAR: an unused loopback port, below the kernel's ephemeral range (so no outgoing
# connection holds it).
free_port() {
  local p _ low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % (low - 10000)))
    [[ " ${USED_PORTS[*]} " == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      USED_PORTS+=("$p")
      printf -v "$1" '%s' "$p"
      return 0
    fi
  done
  die "no free port found"
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

# now_us: microseconds since the epoch (no fork).
now_us() {
  local t="${EPOCHREALTIME/./}"
  printf '%s' "$((10#$t))"
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

# cpu_ticks PID...: utime + stime of the processes, in clock ticks.
cpu_ticks() {
  local pid total=0 stat rest
  for pid in "$@"; do
    stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
    rest="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $rest
    total=$((total + ${12} + ${13}))
  done
  printf '%s' "$total"
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

# build_zoneguard: sets ZONEGUARD_BIN (a release build unless it is already set).
build_zoneguard() {
  if [[ -z "${ZONEGUARD_BIN:-}" ]]; then
    say "building zoneguard (cargo build --release)"
    (cd "$BENCH_ROOT" && nice -n 5 cargo build --quiet --release --bin zoneguard) || die "cargo build failed"
    ZONEGUARD_BIN="${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/release/zoneguard"
  fi
  [[ -x "$ZONEGUARD_BIN" ]] || die "zoneguard binary not found at $ZONEGUARD_BIN"
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
