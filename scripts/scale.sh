#!/usr/bin/env bash
# Rule-set scale: load time, reload time, memory and per-request cost as the rules grow.
#
#   scripts/scale.sh
#
# The base rule set has 100 domain filters, 2 delegated namespaces and 10 trust policies
# (plus 3 inject rules); it is grown 1x, 10x, 100x and 1000x (1000x = 100 000 filters,
# 2 000 namespaces, 10 000 trust policies), written by bench/gen-rules.sh. For each size:
#   - offline parse: `zoneguard check --rules FILE` on one small manifest (wall time and peak
#     RSS from /usr/bin/time);
#   - start to ready: `zoneguard serve --rules FILE` launched -> /readyz 200, and its RSS then;
#   - reload: the file is replaced (a rename, as a ConfigMap volume update does) with a document
#     of the same size; time until zoneguard_rules_generation changes on /metrics, with
#     --reload-debounce 1ms; peak RSS (VmHWM) after it, when two rule sets briefly coexist;
#   - match cost: a short wrk run (bench/wrk-mix.lua, 8 connections) and the mean time inside
#     the handler from zoneguard_admission_duration_seconds (sum / count), plus wrk's p50.
#     It should stay flat as the rules grow. A failed request (connect, read or write error, timeout,
#     non-2xx) fails the run.
#
# Environment: ZONEGUARD_BIN, SCALE_MULTIPLIERS (default "1 10 100 1000"), SCALE_LOAD_SECONDS
# (default 3), BENCH_KEEP=1. Traffic stays on 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

MULTIPLIERS="${SCALE_MULTIPLIERS:-1 10 100 1000}"
LOAD_SECONDS="${SCALE_LOAD_SECONDS:-3}"
need wrk openssl awk
[[ -x /usr/bin/time ]] || die "/usr/bin/time is required (Debian: apt-get install time)"
bench_init scale
build_zoneguard
W="$BENCH_WORK"
make_cert "$W/tls"
cat >"$W/ingress.yaml" <<'YAML'
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: team-1}
spec:
  rules: [{host: www.team-1.zone1.example.com}]
YAML

printf '%-6s %8s %6s %7s %8s | %9s %9s | %9s %9s | %9s %9s %9s | %9s %9s\n' \
  size filters ns roles "file MiB" "parse ms" "parse MiB" "ready ms" "RSS MiB" \
  "reload ms" "RSS MiB" "HWM MiB" "handler µs" "wrk p50 ms"
port="" probe=""
for m in $MULTIPLIERS; do
  filters=$((100 * m)) namespaces=$((2 * m)) policies=$((10 * m))
  rules="$W/rules-$m.yaml"
  "$BENCH_DIR/gen-rules.sh" "$filters" "$namespaces" "$policies" 3 a >"$rules"
  file_mib="$(awk -v b="$(stat -c %s "$rules")" 'BEGIN { printf "%.1f", b / 1048576 }')"

  # Offline parse (zoneguard check exits 0: the Ingress is admitted).
  /usr/bin/time -f '%e %M' -o "$W/time-$m" "$ZONEGUARD_BIN" check --rules "$rules" "$W/ingress.yaml" >"$W/check-$m.out" 2>&1 ||
    die_showing "$W/check-$m.out" "zoneguard check failed at ${m}x"
  read -r parse_s parse_kib <"$W/time-$m"

  # Start to ready.
  free_port port
  free_port probe
  bg_start "$W/serve-$m.log" "$ZONEGUARD_BIN" serve --rules "$rules" \
    --tls-cert "$W/tls/tls.crt" --tls-key "$W/tls/tls.key" \
    --listen "127.0.0.1:$port" --probe-listen "127.0.0.1:$probe" \
    --reload-debounce 1ms --log-format json --log-level warn
  pid=$BG_PID
  ready_us="$(wait_ready "$pid" "$probe" 120)" || { tail -n 5 "$W/serve-$m.log" >&2; die "not ready at ${m}x"; }
  rss_ready="$(status_kib VmRSS "$pid")"

  # Reload: a document of the same size with another salt, renamed into place.
  "$BENCH_DIR/gen-rules.sh" "$filters" "$namespaces" "$policies" 3 b >"$rules.new"
  reload_us="$(rename_rules_in "$rules.new" "$rules" "$probe")"
  rss_after="$(status_kib VmRSS "$pid")"
  hwm="$(status_kib VmHWM "$pid")"

  # Match cost.
  read -r s0 c0 <<<"$(metric_sum_count "$probe")"
  BENCH_REVIEWS="$BENCH_DIR/reviews" wrk -t1 -c8 -d"${LOAD_SECONDS}s" --timeout 5s \
    -s "$BENCH_DIR/wrk-mix.lua" "https://127.0.0.1:$port" >"$W/wrk-$m.out" 2>&1 || die_showing "$W/wrk-$m.out" "wrk failed"
  read -r s1 c1 <<<"$(metric_sum_count "$probe")"
  line="$(wrk_result "$W/wrk-$m.out")" || exit 2
  errors="$(failed_requests "$line")"
  # A rule set that makes requests fail is a failure of the load, not a figure to report.
  [[ $errors -eq 0 ]] || die "$errors failed requests at ${m}x (connect, read or write errors, timeouts, non-2xx)"
  bg_stop "$pid"

  printf '%-6s %8d %6d %7d %8s | %9.0f %9.1f | %9.1f %9.1f | %9.1f %9.1f %9.1f | %9.1f %9.3f\n' \
    "${m}x" "$filters" "$namespaces" "$policies" "$file_mib" \
    "$(awk -v s="$parse_s" 'BEGIN { print s * 1000 }')" "$(awk -v k="$parse_kib" 'BEGIN { print k / 1024 }')" \
    "$(awk -v u="$ready_us" 'BEGIN { print u / 1000 }')" "$(awk -v k="$rss_ready" 'BEGIN { print k / 1024 }')" \
    "$(awk -v u="$reload_us" 'BEGIN { print u / 1000 }')" "$(awk -v k="$rss_after" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')" \
    "$(awk -v a="$s0" -v b="$s1" -v x="$c0" -v y="$c1" 'BEGIN { print (y > x ? (b - a) / (y - x) * 1e6 : 0) }')" \
    "$(awk -v u="$(result_field "$line" p50_us)" 'BEGIN { print u / 1000 }')"
done
echo "(parse: zoneguard check wall time incl. process start; ready: serve launch -> /readyz 200;"
echo " reload: file renamed -> zoneguard_rules_generation changed; handler: mean time inside the"
echo " admission handler over the mix of bench/wrk-mix.lua; $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
