#!/usr/bin/env bash
# Soak: zoneguard at a steady rate for a long time, with a rules reload and a certificate
# rotation every interval.
#
#   scripts/soak.sh                      # 10 minutes
#   SOAK_DURATION=120 scripts/soak.sh    # 2 minutes
#
# zoneguard serve runs in release mode with the bench rules (bench/gen-rules.sh 50 20 200 3)
# and its serving certificate in a directory laid out as a Kubernetes Secret volume
# (tls.crt -> ..data/tls.crt, ..data -> ..<timestamp>). wrk drives the four-request mix of
# bench/wrk-mix.lua at a fixed rate (SOAK_RATE requests/s on an even schedule), in back-to-back
# runs of SOAK_INTERVAL seconds. Halfway through each run the rules file is replaced (rename)
# by one with another salt, and a new certificate is swapped in (..data symlink swap, as the
# kubelet does). After each run it checks that the rules generation
# went up and that a new connection is served the new certificate (curl --cacert <new cert>).
# Prints per interval: requests, rate, p50/p99/p99.9, failed requests, RSS; then totals and
# RSS at the start and the end. Exits non-zero if a request failed or a reload or rotation did
# not take.
#
# Environment: ZONEGUARD_BIN, SOAK_DURATION (s, default 600), SOAK_INTERVAL (s, default 60),
# SOAK_CONNECTIONS (default 8), SOAK_RATE (requests/s, default 1000), BENCH_KEEP=1.
# Traffic stays on 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

DURATION="${SOAK_DURATION:-600}"
INTERVAL="${SOAK_INTERVAL:-60}"
CONNS="${SOAK_CONNECTIONS:-8}"
RATE="${SOAK_RATE:-1000}"
need wrk openssl curl awk
[[ $INTERVAL -ge 4 ]] || die "SOAK_INTERVAL must be at least 4 seconds"
ROUNDS=$(((DURATION + INTERVAL - 1) / INTERVAL))
bench_init soak
build_zoneguard
W="$BENCH_WORK"

# Secret-volume layout: SECRET/..<n>/{tls.crt,tls.key}, SECRET/..data -> ..<n>, links beside.
SECRET="$W/secret"
mkdir -p "$SECRET"
rotate_cert() { # N
  local n="$1"
  make_cert "$SECRET/..v$n"
  ln -sfn "..v$n" "$SECRET/..data_tmp"
  mv -T "$SECRET/..data_tmp" "$SECRET/..data"
  if [[ ! -L "$SECRET/tls.crt" ]]; then
    ln -s ..data/tls.crt "$SECRET/tls.crt"
    ln -s ..data/tls.key "$SECRET/tls.key"
  fi
  if [[ $n -gt 1 ]]; then rm -rf "$SECRET/..v$((n - 1))"; fi
}
rotate_rules() { # N
  "$BENCH_DIR/gen-rules.sh" 50 20 200 3 "soak-$1" >"$W/rules.yaml.new"
  mv "$W/rules.yaml.new" "$W/rules.yaml"
}
rotate_cert 1
rotate_rules 1

ZG_PORT="" ZG_PROBE=""
serve_zoneguard "$W/serve.log" "$ZONEGUARD_BIN" "$W/rules.yaml" "$SECRET/tls.crt" "$SECRET/tls.key" --log-level warn
RSS_READY="$(status_kib VmRSS "$ZG_PID")"

metric() { # NAME-AND-LABELS: the value of one sample on /metrics (0 when absent)
  http_get "$ZG_PROBE" /metrics | awk -v m="$1" '$1 == m { v = $2 } END { print v + 0 }'
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }

say "$ROUNDS x ${INTERVAL}s, $CONNS connections, $RATE requests/s; reload + rotation every ${INTERVAL}s"
printf '%-5s %9s %8s %8s %8s %8s %7s %8s %5s %12s\n' round requests "req/s" "p50 ms" "p99 ms" "p99.9 ms" failed "RSS MiB" gen "cert reloads"
TOTAL=0 FAILED=0 PROBLEMS=0 RSS_FIRST=""
for ((round = 1; round <= ROUNDS; round++)); do
  gen_before="$(metric zoneguard_rules_generation)"
  BENCH_REVIEWS="$BENCH_DIR/reviews" BENCH_RATE="$RATE" \
    bg_start "$W/wrk-$round.out" wrk -t1 -c"$CONNS" -d"${INTERVAL}s" --timeout 5s \
    -s "$BENCH_DIR/wrk-mix.lua" "https://127.0.0.1:$ZG_PORT"
  wrk_pid=$BG_PID
  sleep $((INTERVAL / 2))
  rotate_rules $((round + 1))
  rotate_cert $((round + 1))
  wait "$wrk_pid" || die_showing "$W/wrk-$round.out" "wrk failed"
  bg_stop "$wrk_pid"

  line="$(wrk_result "$W/wrk-$round.out")" || exit 2
  reqs="$(result_field "$line" requests)"
  failed="$(failed_requests "$line")"
  TOTAL=$((TOTAL + reqs))
  FAILED=$((FAILED + failed))
  rss="$(status_kib VmRSS "$ZG_PID")"
  [[ -n "$RSS_FIRST" ]] || RSS_FIRST="$rss"
  gen="$(metric zoneguard_rules_generation)"
  ok_reloads="$(metric 'zoneguard_tls_certificate_reloads_total{result="success"}')"
  err_reloads="$(metric 'zoneguard_tls_certificate_reloads_total{result="error"}')"
  if [[ "$gen" == "$gen_before" ]]; then
    say "round $round: the rules were not reloaded (generation $gen)"
    PROBLEMS=$((PROBLEMS + 1))
  fi
  if ! curl -s --fail -o /dev/null --cacert "$SECRET/tls.crt" -H 'content-type: application/json' \
    --data-binary "@$BENCH_DIR/reviews/ingress-3hosts.json" "https://127.0.0.1:$ZG_PORT/validate"; then
    say "round $round: a new connection is not served the new certificate"
    PROBLEMS=$((PROBLEMS + 1))
  fi
  printf '%-5s %9d %8.0f %8s %8s %8s %7d %8s %5s %12s\n' "$round" "$reqs" \
    "$(awk -v n="$reqs" -v d="$(result_field "$line" duration_us)" 'BEGIN { print n / (d / 1e6) }')" \
    "$(ms "$(result_field "$line" p50_us)")" "$(ms "$(result_field "$line" p99_us)")" \
    "$(ms "$(result_field "$line" p999_us)")" "$failed" "$(mib "$rss")" "$gen" "${ok_reloads} ok/${err_reloads} err"
done
RSS_END="$(status_kib VmRSS "$ZG_PID")"
HWM="$(status_kib VmHWM "$ZG_PID")"
echo
echo "soak: $ROUNDS x ${INTERVAL}s ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs)"
echo "requests: $TOTAL, failed: $FAILED"
echo "RSS: $(mib "$RSS_READY") MiB when ready, $(mib "$RSS_FIRST") MiB after the first interval, $(mib "$RSS_END") MiB at the end (peak $(mib "$HWM") MiB)"
echo "rules reloads and certificate rotations that did not take: $PROBLEMS"
[[ $FAILED -eq 0 && $PROBLEMS -eq 0 ]]
