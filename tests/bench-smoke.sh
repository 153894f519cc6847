#!/usr/bin/env bash
# Smoke run of the benchmark scripts: each of scripts/bench.sh, scripts/soak.sh, scripts/scale.sh,
# bench/apiserver-overhead.sh, scripts/reload-latency.sh, scripts/instructions.sh (its server
# mode) and scripts/large-reviews.sh once, end to end, with its smallest settings and the debug
# builds, so that a change that breaks one of them (a flag its servers no longer accept, a
# missing tool, a table it no longer prints) fails the test suite instead of the next benchmark.
#
#   tests/bench-smoke.sh                    # all seven
#   tests/bench-smoke.sh bench soak         # some of them: bench soak scale overhead reload
#                                           # instructions large
#
# A script passes when it exits 0 and its output holds the lines of its figures table (checked
# by pattern). No figure is asserted: debug builds are slow, and the figures are the benchmarks'
# business. The settings:
#   bench     1 round, 1 s per run, no warm-up, 8 connections (plus its 5 starts to ready),
#             pinned to CPUs 0 and 1 as in a real run unless the machine has one CPU;
#   soak      one 4 s interval at 100 requests/s, with one rules reload and one certificate
#             rotation (it exits non-zero if a request failed or either did not take);
#   scale     the 1x rule set only, 1 s of load;
#   overhead  10 Services + 10 Ingresses, 1 round each way, concurrency 2 (etcd and
#             kube-apiserver from scripts/tools.sh, as the end-to-end suite);
#   reload    the 1x rule set, 2 rounds of 2 s at 100 requests/s (one reload);
#   instructions  `server` mode: zoneguard and the stack floor under callgrind, 2 s of the bench
#             mix each (valgrind);
#   large     1 000 hosts, a 100 000-byte annotation, 2 UPDATEs at once.
# Each script stops every process it started (on failure and on TERM too); each runs under a
# time limit (BENCH_SMOKE_TIMEOUT seconds, default 300), and its whole output is shown when it
# fails. Traffic stays on 127.0.0.1.
#
# Environment:
#   ZONEGUARD_BIN         zoneguard binary (default: cargo build, debug)
#   FLOOR_BIN             the load benchmark's stack floor (default: cargo build --example
#                         fixed_answer, debug)
#   ZONEGUARD_TOOLS_DIR   tool cache (see scripts/tools.sh)
#   BENCH_SMOKE_TIMEOUT   seconds each script may take (default 300)
set -euo pipefail

LOG_PREFIX=bench-smoke
# shellcheck source=tests/e2e/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/e2e/lib.sh"
ROOT="$ZG_ROOT"
TIMEOUT="${BENCH_SMOKE_TIMEOUT:-300}"

# build: the debug builds of zoneguard and the stack floor, unless both are given.
build() {
  if [[ -z "${ZONEGUARD_BIN:-}" || -z "${FLOOR_BIN:-}" ]]; then
    say "building zoneguard and the stack floor (cargo build, debug)"
    (cd "$ROOT" && cargo build --quiet --locked --bin zoneguard --example fixed_answer) || die "cargo build failed"
  fi
  local debug="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
  export ZONEGUARD_BIN="${ZONEGUARD_BIN:-$debug/zoneguard}"
  export FLOOR_BIN="${FLOOR_BIN:-$debug/examples/fixed_answer}"
  [[ -x "$ZONEGUARD_BIN" ]] || die "zoneguard binary not found at $ZONEGUARD_BIN"
  [[ -x "$FLOOR_BIN" ]] || die "stack floor not found at $FLOOR_BIN"
}

# run NAME SCRIPT PATTERN... -- VAR=VALUE...: runs SCRIPT (a path, then its arguments, split at
# spaces) with those settings; fails naming SCRIPT when it exits non-zero or its output lacks a
# line matching one of the PATTERNs (grep -E).
run() {
  local name="$1" script="$2" log="$WORK/$1.log" start rc=0 pattern
  shift 2
  local -a patterns=()
  while [[ "$1" != -- ]]; do patterns+=("$1"); shift; done
  shift
  say "$script ($*)"
  start=$(date +%s)
  local -a command
  read -ra command <<<"$script"
  bg_start "$log" env BENCH_KEEP=0 "$@" timeout "$TIMEOUT" "$ROOT/${command[0]}" "${command[@]:1}"
  wait "$BG_PID" || rc=$?
  bg_stop "$BG_PID"
  if [[ $rc -ne 0 ]]; then
    cat "$log" >&2
    fail "$script exited $rc$([[ $rc -ne 124 ]] || echo " (time limit of ${TIMEOUT}s)")"
  fi
  for pattern in "${patterns[@]}"; do
    grep -qE -- "$pattern" "$log" || { cat "$log" >&2; fail "$script printed no line matching /$pattern/"; }
  done
  grep -E -- "$(IFS='|'; echo "${patterns[*]}")" "$log" | sed 's/^/    /' >&2
  say "$script: ok in $(($(date +%s) - start)) s"
}

fail() { die "FAIL: $*"; }

smoke_bench() {
  run bench scripts/bench.sh \
    '^start to ready with file rules: median ' \
    '^requests/s +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+$' \
    '^failed requests +0 +0 +0' \
    '^zoneguard/nginx requests/s by round: [0-9.]+$' \
    '^  throughput >= 0\.8x nginx at c=8: [0-9.]+x' \
    '^  p99 < 2 ms at half the maximum rate: ' \
    -- BENCH_ROUNDS=1 BENCH_DURATION=1 BENCH_WARMUP=0 BENCH_CONCURRENCY=8 \
    BENCH_PIN="$(($(nproc) >= 2 ? 1 : 0))" # its pinning needs CPUs 0 and 1
}

smoke_soak() {
  run soak scripts/soak.sh \
    '^1 +[0-9]+ ' \
    '^requests: [1-9][0-9]*, failed: 0$' \
    '^rules reloads and certificate rotations that did not take: 0$' \
    -- SOAK_DURATION=4 SOAK_INTERVAL=4 SOAK_RATE=100 SOAK_CONNECTIONS=2
}

smoke_scale() {
  run scale scripts/scale.sh \
    '^size +filters ' \
    '^1x +100 +2 +10 +[0-9.]+ \| +[0-9]+ +[0-9.]+ \| +[0-9.]+ +[0-9.]+ \| +[0-9.]+ ' \
    -- SCALE_MULTIPLIERS=1 SCALE_LOAD_SECONDS=1
}

smoke_overhead() {
  run overhead bench/apiserver-overhead.sh \
    '^zoneguard answered [1-9][0-9]* admission requests' \
    "^webhooks called at https://[^ ]+; the null webhook's calls by protocol: HTTP/(1\\.1|2\\.0) [1-9]" \
    "^the null webhook's answers with zoneguard's patch, by kind: Ingress [1-9][0-9]*, Service [1-9][0-9]*\$" \
    '^create p99 ms +[0-9.]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ +[-+][0-9.]+ +[-+][0-9.]+$' \
    '^target \(reported, not asserted\): create p99 overhead < 3 ms: [-+][0-9.]+ ms' \
    '^zoneguard: annotations\.zoneguard\.io \(mutating\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' \
    '^null: hostnames\.zoneguard\.io \(validating\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' \
    '^zoneguard: its own handler +[0-9.]+ +[0-9.]+ +[0-9.]+ *$' \
    '^zoneguard: every webhook +[0-9.]+ +[0-9]+$' \
    -- APILOAD_N=10 APILOAD_ROUNDS=1 APILOAD_CONCURRENCY=2
}

smoke_reload() {
  run reload scripts/reload-latency.sh \
    '^2 +1x +[0-9]+ \| +[1-9][0-9]* ' \
    '^admissions during a 1x reload: worst p99 [0-9.]+ ms, worst max [0-9.]+ ms' \
    -- RELOAD_MULTIPLIER=1 RELOAD_ROUNDS=2 RELOAD_SECONDS=2 RELOAD_RATE=100
}

smoke_instructions() {
  run instructions "scripts/instructions.sh server" \
    '^requests: [1-9][0-9]* \(the four-request mix' \
    '^admission handler +[0-9]+$' \
    '^  decode the AdmissionReview +[0-9]+$' \
    '^stack floor: all the work \(fixed answer\) +[0-9]+$' \
    '^zoneguard above the floor \(admission work\) +-?[0-9]+$' \
    -- INSTRUCTIONS_DURATION=2
}

smoke_large() {
  local row='+[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+x$'
  run large scripts/large-reviews.sh \
    "^annotation $row" "^create $row" "^update $row" "^update-x2 $row" \
    -- LARGE_HOSTS=1000 LARGE_ANNOTATION_BYTES=100000 LARGE_COPIES=2
}

main() {
  local which=("$@") name started
  ((${#which[@]})) || which=(bench soak scale overhead reload instructions large)
  for name in "${which[@]}"; do
    [[ "$name" =~ ^(bench|soak|scale|overhead|reload|instructions|large)$ ]] || die "no smoke named $name (bench, soak, scale, overhead, reload, instructions, large)"
  done
  work_init bench-smoke "logs"
  build
  started=$(date +%s)
  for name in "${which[@]}"; do "smoke_$name"; done
  say "${which[*]}: all passed in $(($(date +%s) - started)) s"
}

main "$@"
