#!/usr/bin/env bash
# Peak memory of `zoneguard serve` judging large AdmissionReviews: the README's **Large reviews**
# figures.
#
#   scripts/large-reviews.sh
#
# Each case starts a fresh server with one worker thread (TOKIO_WORKER_THREADS=1) on the example
# rules (examples/rules.yaml, whose filters refuse *.other.com), posts its review to /validate
# (COPIES of them at once for the last case), checks the answers, and prints the server's peak
# RSS (VmHWM, which counts from the process's start) and the wall time of the posts:
#   annotation   an Ingress of one host with a 7 MB annotation (a few large values);
#   create       an Ingress CREATE of HOSTS hosts, every one refused;
#   update       an UPDATE of that Ingress, the same HOSTS hosts on both sides, so every one is a
#                tolerated violation with its warning;
#   update xN    COPIES of that UPDATE at once (the in-flight body budget judges them in turn).
#
# Environment: ZONEGUARD_BIN (default: a release build), LARGE_HOSTS (default 100000),
# LARGE_ANNOTATION_BYTES (default 7000000), LARGE_COPIES (default 6), BENCH_KEEP=1.
# Traffic stays on 127.0.0.1; every process is stopped on exit.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

HOSTS="${LARGE_HOSTS:-100000}"
ANNOTATION_BYTES="${LARGE_ANNOTATION_BYTES:-7000000}"
COPIES="${LARGE_COPIES:-6}"
need curl openssl python3
bench_init large-reviews
build_zoneguard
W="$BENCH_WORK"
make_cert "$W/tls"
mkdir -p "$W/rules"
cp "$ZG_ROOT/examples/rules.yaml" "$W/rules/rules.yaml"

# The three reviews, written compactly as the API server sends them.
python3 - "$W" "$HOSTS" "$ANNOTATION_BYTES" <<'EOF'
import json, sys
work, hosts, annotation = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def review(operation, annotations, names, old=False):
    obj = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
           "metadata": {"name": "web", "namespace": "default", "annotations": annotations},
           "spec": {"rules": [{"host": n} for n in names]}}
    kind = {"group": "networking.k8s.io", "version": "v1", "kind": "Ingress"}
    request = {"uid": "u-1", "kind": kind,
               "resource": {"group": "networking.k8s.io", "version": "v1", "resource": "ingresses"},
               "name": "web", "namespace": "default", "operation": operation,
               "userInfo": {"username": "bench"}, "object": obj,
               "oldObject": obj if old else None}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": request}, separators=(",", ":"))
refused = [f"h{i}.other.com" for i in range(hosts)]
for name, text in [
    ("annotation", review("CREATE", {"big": "x" * annotation}, ["a.example.com"])),
    ("create", review("CREATE", {}, refused)),
    ("update", review("UPDATE", {}, refused, old=True)),
]:
    with open(f"{work}/{name}.json", "w") as f:
        f.write(text)
EOF

# case NAME FILE COPIES EXPECT: a fresh server, COPIES posts of FILE at once, each answer holding
# EXPECT; prints the table's line.
case_line() {
  local name="$1" file="$2" copies="$3" expect="$4" start end i bytes
  serve_zoneguard "$W/serve-$name.log" "$ZONEGUARD_BIN" "$W/rules/rules.yaml" \
    "$W/tls/tls.crt" "$W/tls/tls.key" --max-body-bytes $((ANNOTATION_BYTES + 1000000)) \
    --request-timeout 120s --log-level warn
  start=$(now_us)
  local -a posts=()
  for ((i = 0; i < copies; i++)); do
    curl -sS --max-time 300 -k -o "$W/answer-$name-$i.json" -H 'Content-Type: application/json' \
      --data-binary "@$file" "https://127.0.0.1:$ZG_PORT/validate" &
    posts+=($!)
  done
  for i in "${posts[@]}"; do wait "$i" || die "a post of the $name review failed"; done
  end=$(now_us)
  for ((i = 0; i < copies; i++)); do
    grep -q -- "$expect" "$W/answer-$name-$i.json" ||
      die_showing "$W/answer-$name-$i.json" "the $name review's answer lacks $expect"
  done
  bytes=$(stat -c %s "$file")
  printf '%-14s %8s %10.1f %12.1f %9.0f %10s\n' "$name" "$copies" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
    "$(awk -v k="$(status_kib VmHWM "$ZG_PID")" 'BEGIN { print k / 1024 }')" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print (b - a) / 1000 }')" \
    "$(awk -v k="$(status_kib VmHWM "$ZG_PID")" -v b="$bytes" 'BEGIN { printf "%.0fx", k * 1024 / b }')"
  bg_stop "$ZG_PID"
}

say "one worker thread; examples/rules.yaml; $HOSTS hosts, a ${ANNOTATION_BYTES}-byte annotation"
printf '%-14s %8s %10s %12s %9s %10s\n' case reviews "body MB" "peak RSS MiB" "wall ms" "RSS/body"
export TOKIO_WORKER_THREADS=1
case_line annotation "$W/annotation.json" 1 '"allowed":true'
case_line create "$W/create.json" 1 '"allowed":false'
case_line update "$W/update.json" 1 'already present before this update'
case_line "update-x$COPIES" "$W/update.json" "$COPIES" 'already present before this update'
