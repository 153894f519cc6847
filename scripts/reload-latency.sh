#!/usr/bin/env bash
# Admission latency while a large rule set reloads: does a reload hold up the requests around it?
#
#   scripts/reload-latency.sh
#
# One `zoneguard serve` on the 1000x rule set of scripts/scale.sh (100 000 domain filters,
# 2 000 delegated namespaces, 10 000 trust policies; bench/gen-rules.sh). Each round drives it
# with wrk (bench/wrk-mix.lua) at a constant offered rate; a third of the way into every round
# but the first, the rules file is replaced by a document of the same size (a rename, as a
# ConfigMap volume update does), and the time until zoneguard_rules_generation changes is the
# reload time. The first round reloads nothing: the latency without a reload, to compare with.
# A failed request (connect, read or write error, timeout, non-2xx) fails the run.
#
# Environment: ZONEGUARD_BIN, RELOAD_MULTIPLIER (default 1000), RELOAD_ROUNDS (default 6, the
# first without a reload), RELOAD_SECONDS (per round, default 6), RELOAD_RATE (requests/s,
# default 400), BENCH_KEEP=1. Traffic stays on 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

MULTIPLIER="${RELOAD_MULTIPLIER:-1000}"
ROUNDS="${RELOAD_ROUNDS:-6}"
SECONDS_PER_ROUND="${RELOAD_SECONDS:-6}"
RATE="${RELOAD_RATE:-400}"
need wrk openssl awk
bench_init reload-latency
build_zoneguard
W="$BENCH_WORK"
make_cert "$W/tls"
# The rules in a directory of their own: zoneguard watches it, and wrk's output is not written there.
mkdir -p "$W/rules"
rules="$W/rules/rules.yaml"
filters=$((100 * MULTIPLIER)) namespaces=$((2 * MULTIPLIER)) policies=$((10 * MULTIPLIER))
for salt in a b; do
  "$BENCH_DIR/gen-rules.sh" "$filters" "$namespaces" "$policies" 3 "$salt" >"$W/rules-$salt.yaml"
done
cp "$W/rules-a.yaml" "$rules"

serve_zoneguard "$W/serve.log" "$ZONEGUARD_BIN" "$rules" "$W/tls/tls.crt" "$W/tls/tls.key" \
  --reload-debounce 1ms --log-level warn
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

printf '%-5s %-7s %9s | %8s %8s %8s %8s %10s\n' \
  round reload "reload ms" requests "p50 ms" "p99 ms" "max ms" "late sends"
worst_max=0 worst_p99=0 quiet_max=0 salt=b
for ((round = 1; round <= ROUNDS; round++)); do
  BENCH_RATE="$RATE" BENCH_REVIEWS="$BENCH_DIR/reviews" wrk -t1 -c4 -d"${SECONDS_PER_ROUND}s" \
    --timeout 5s -s "$BENCH_DIR/wrk-mix.lua" "https://127.0.0.1:$ZG_PORT" >"$W/wrk-$round.out" 2>&1 &
  wrk_pid=$!
  reload_ms="-" what="none"
  if ((round > 1)); then
    sleep "$(awk -v s="$SECONDS_PER_ROUND" 'BEGIN { print s / 3 }')"
    cp "$W/rules-$salt.yaml" "$rules.new"
    reload_us="$(rename_rules_in "$rules.new" "$rules" "$ZG_PROBE")"
    reload_ms=$((reload_us / 1000)) what="${MULTIPLIER}x"
    salt=$([[ $salt == a ]] && echo b || echo a)
  fi
  wait "$wrk_pid" || die_showing "$W/wrk-$round.out" "wrk failed in round $round"
  line="$(wrk_result "$W/wrk-$round.out")" || exit 2
  errors="$(failed_requests "$line")"
  [[ $errors -eq 0 ]] || die "$errors failed requests in round $round (connect, read or write errors, timeouts, non-2xx)"
  p99="$(result_field "$line" p99_us)" max="$(result_field "$line" max_us)"
  if ((round > 1)); then
    ((max > worst_max)) && worst_max=$max
    ((p99 > worst_p99)) && worst_p99=$p99
  else
    quiet_max=$max
  fi
  printf '%-5d %-7s %9s | %8d %8s %8s %8s %10d\n' "$round" "$what" "$reload_ms" \
    "$(result_field "$line" requests)" "$(ms "$(result_field "$line" p50_us)")" "$(ms "$p99")" \
    "$(ms "$max")" "$(result_field "$line" late_sends)"
done
bg_stop "$ZG_PID"
echo "admissions during a ${MULTIPLIER}x reload: worst p99 $(ms "$worst_p99") ms, worst max $(ms "$worst_max") ms; in the round without one: max $(ms "$quiet_max") ms"
echo "(wrk -c4 at $RATE requests/s for ${SECONDS_PER_ROUND} s a round, the reload a third of the way in;"
echo " late sends: requests wrk could not send on schedule; $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
