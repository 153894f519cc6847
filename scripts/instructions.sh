#!/usr/bin/env bash
# Instructions per admission, counted by callgrind: figures that do not move with the noise of a
# shared VM (the same binary and inputs give the same count), for comparing two versions of the
# admission path.
#
#   scripts/instructions.sh            # in process: decode -> decide -> encode, per request kind
#   scripts/instructions.sh server     # the whole server under the wrk mix of scripts/bench.sh
#
# In process, each decode-decide-encode case of `cargo bench --bench admission_roundtrip`
# (bench/reviews/, the bench rules) runs for 1 s under callgrind; the figure is the instructions
# of one round trip (the bench's `round_trip` function, inclusive, divided by its calls). Beside
# it, the same for the bench's `skip_json`: serde_json passing over the same body building nothing,
# the least that any serde_json decode of it costs.
# Server: `zoneguard serve` (release, bench rules) runs under callgrind while wrk drives the
# four-request mix of scripts/bench.sh with 4 connections; the figures are per request: the
# admission handler (decode, decide, encode, metrics and log line), its parts, and all the work
# the server did while wrk ran (TLS, HTTP/1.1, the handler, the runtime; each of the 4
# connections' accept and TLS handshake, ~1.2 million instructions, is in it). The profile covers
# only the time wrk ran (callgrind_control zeroes the counts before and dumps them after), so
# start-up and shutdown are not counted, and no figure depends on what the build inlined. The
# stack floor of scripts/bench.sh (bench/fixed_answer.rs) runs the same way after it; the
# difference of the two is what the admission work costs above the HTTP stack.
#
# Environment:
#   ZONEGUARD_BIN          binary for `server` (default: cargo build --release)
#   FLOOR_BIN              the stack floor for `server` (default: cargo build --release --example
#                          fixed_answer)
#   INSTRUCTIONS_DURATION  seconds of wrk load for `server` (default 10)
#
# Needs valgrind (callgrind_annotate comes with it), and for `server` wrk, openssl, curl.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

MODE="${1:-process}"
need valgrind callgrind_annotate callgrind_control
bench_init instructions
W="$BENCH_WORK"

# calls_of FUNCTION TREE: how many times FUNCTION was called, summed over its callers (callgrind
# caller tree: a block's "<" lines are its callers, with their call counts, then its "*" line).
calls_of() {
  awk -v f="$1" '
    index($0, "< ") { n = $0; sub(/.*\(/, "", n); sub(/x\).*/, "", n); gsub(",", "", n); sum += n; next }
    index($0, "*  ") { if (index($0, f " [")) { print sum; exit } }
    { sum = 0 }
  ' "$2"
}

# inclusive FUNCTION PROFILE: inclusive instructions of FUNCTION. (awk reads to the end: an early
# exit would stop callgrind_annotate with SIGPIPE.)
inclusive() {
  callgrind_annotate --inclusive=yes --threshold=100 "$2" 2>/dev/null |
    awk -v f="$1" '!found && index($0, f " [") { n = $1; gsub(",", "", n); print n; found = 1 }'
}

# total PROFILE: all the instructions in PROFILE.
total() { awk '/^totals:/ { print $2 }' "$1"; }

# per TOTAL COUNT: TOTAL / COUNT, or "-" when either is missing (a function the build inlined).
per() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.0f", a / b; else print "-" }'; }

# per_call BIN BENCHMARK FUNCTION: instructions of one call of admission_roundtrip::FUNCTION
# (inclusive), with BENCHMARK run for 1 s under callgrind.
per_call() {
  local bin="$1" bench="$2" fn="admission_roundtrip::$3" out total calls
  out="$W/${bench//\//-}.out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --bench --profile-time 1 \
    "$bench\$" >/dev/null 2>&1 || die "callgrind failed on $bench"
  callgrind_annotate --tree=caller "$out" >"$out.tree" 2>/dev/null
  total="$(inclusive "$fn" "$out")"
  calls="$(calls_of "$fn" "$out.tree")"
  per "$total" "$calls"
}

in_process() {
  local bin case round_trip skip
  say "building the admission_roundtrip bench"
  bin="$(cd "$BENCH_ROOT" && cargo bench --bench admission_roundtrip --no-run 2>&1 |
    awk -F'[()]' '/Executable .*admission_roundtrip/ { print $2 }' | tail -1)"
  [[ -x "$bin" ]] || die "cannot find the admission_roundtrip bench binary"
  printf '%-34s %14s %16s\n' "request (decode-decide-encode)" "instructions" "JSON skip alone"
  local cases skips list
  list="$("$bin" --bench --list 2>/dev/null)"
  cases="$(sed -n 's|^admission_roundtrip/decode-decide-encode/\(.*\): benchmark$|\1|p' <<<"$list")"
  [[ -n "$cases" ]] || die "the bench listed no decode-decide-encode case"
  # The bench passes over each body once, under its first case: the others print no skip figure.
  skips="$(sed -n 's|^admission_roundtrip/skip-json/\(.*\): benchmark$|\1|p' <<<"$list")"
  for case in $cases; do
    round_trip="$(per_call "$bin" "decode-decide-encode/$case" round_trip)"
    skip=""
    if grep -qxF "$case" <<<"$skips"; then
      skip="$(per_call "$bin" "skip-json/$case" skip_json)"
    fi
    printf '%-34s %14s %16s\n' "$case" "$round_trip" "$skip"
  done
}

# callgrind_load OUT PORT CMD...: runs CMD under callgrind, drives it with the bench mix (wrk -c4)
# once PORT answers HTTPS, stops it; sets REQUESTS. OUT is the profile of the time wrk ran.
callgrind_load() {
  local out="$1" port="$2" duration="${INSTRUCTIONS_DURATION:-10}" pid line
  shift 2
  bg_start "$out.log" valgrind --tool=callgrind --callgrind-out-file="$out" "$@"
  pid=$BG_PID
  wait_https "$pid" "$port" 60 "$out.log"
  callgrind_control --zero "$pid" >/dev/null || die "callgrind_control could not reach $1"
  say "wrk -c4 for ${duration}s against $(basename "$1") under callgrind"
  BENCH_REVIEWS="$BENCH_DIR/reviews" wrk -t1 -c4 -d"${duration}s" -s "$BENCH_DIR/wrk-mix.lua" \
    "https://127.0.0.1:$port" >"$out.wrk" 2>&1 || die_showing "$out.wrk" "wrk failed"
  line="$(wrk_result "$out.wrk")" || exit 2
  REQUESTS="$(result_field "$line" requests)"
  callgrind_control --dump "$pid" >/dev/null || die "callgrind_control could not reach $1"
  kill -INT "$pid"
  wait "$pid" 2>/dev/null || true
  # The dump is OUT.1; OUT, written at exit, holds only the shutdown.
  [[ -s "$out.1" ]] || die "callgrind wrote no profile"
  mv "$out.1" "$out"
}

server() {
  local port probe floor_port zg_requests floor_requests zg_task floor_task
  need wrk openssl curl
  build_zoneguard
  build_floor
  bench_rules
  make_cert "$W/tls"
  free_port port
  free_port probe
  free_port floor_port
  callgrind_load "$W/serve.out" "$port" "$ZONEGUARD_BIN" serve --rules "$BENCH_RULES" \
    --tls-cert "$W/tls/tls.crt" --tls-key "$W/tls/tls.key" \
    --listen "127.0.0.1:$port" --probe-listen "127.0.0.1:$probe" --log-format json
  zg_requests=$REQUESTS
  callgrind_load "$W/floor.out" "$floor_port" "$FLOOR_BIN" --listen "127.0.0.1:$floor_port" \
    --tls-cert "$W/tls/tls.crt" --tls-key "$W/tls/tls.key" --rules "$BENCH_RULES"
  floor_requests=$REQUESTS
  printf 'requests: %s (the four-request mix, 4 connections; the stack floor: %s)\n' \
    "$zg_requests" "$floor_requests"
  zg_task="$(per "$(total "$W/serve.out")" "$zg_requests")"
  floor_task="$(per "$(total "$W/floor.out")" "$floor_requests")"
  printf '%-44s %14s\n' "per request" "instructions"
  printf '%-44s %14s\n' "all the work (TLS, HTTP/1.1, handler, runtime)" "$zg_task"
  local name fn
  while IFS='|' read -r name fn; do
    printf '%-44s %14s\n' "$name" "$(per "$(inclusive "$fn" "$W/serve.out")" "$zg_requests")"
  done <<'EOF'
admission handler|zoneguard::serve::routes::Webhook::admit::{{closure}}
  decode the AdmissionReview|zoneguard::serve::review::parse
  validate|zoneguard_core::admission::validate_full
  mutate|zoneguard_core::admission::mutate
  the answer: message or patch|zoneguard::serve::review::respond
  the answer: its JSON|zoneguard::serve::review::ReviewResponse::to_json
  metrics and log line|zoneguard::serve::routes::Webhook::record
EOF
  printf '%-44s %14s\n' "stack floor: all the work (fixed answer)" "$floor_task"
  printf '%-44s %14s\n' "zoneguard above the floor (admission work)" "$(awk -v a="$zg_task" -v b="$floor_task" 'BEGIN { if (a != "-" && b != "-") print a - b; else print "-" }')"
}

case "$MODE" in
  process) in_process ;;
  server) server ;;
  *) die "usage: scripts/instructions.sh [process|server]" ;;
esac
