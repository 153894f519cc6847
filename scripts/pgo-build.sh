#!/usr/bin/env bash
# shellcheck disable=SC2153 # ZG_PORT and ZG_PID are set by serve_zoneguard
# Profile-guided build of `zoneguard`: the release binary, optimised with a profile of the
# admission work it does under load. Prints the optimised binary's path as its last line.
#
#   scripts/pgo-build.sh
#   ZONEGUARD_BIN="$(scripts/pgo-build.sh | tail -n1)" scripts/bench.sh
#
# 1. builds an instrumented release binary (`-Cprofile-generate`);
# 2. runs it on 127.0.0.1 with rules from bench/gen-rules.sh, with one runtime worker thread
#    (TOKIO_WORKER_THREADS=1: what a pod with a 1-CPU limit gets, and the load bench's pinned
#    server), so the profile sees the runtime's single-worker paths; drives it with wrk for
#    PGO_DURATION seconds over the training mix, each review sent to /validate and to /mutate
#    (allowed, denied, mutated, unchecked and malformed requests), then stops it with SIGTERM so
#    it writes its profile. The default reviews are every one of tests/fixtures/reviews and those
#    of bench/reviews that scripts/bench.sh does not send (the Ingress UPDATE, the HTTPRoute, the
#    DNSEndpoint), so the load benchmark measures a profile that never saw its requests;
# 3. merges the raw profiles with llvm-profdata;
# 4. builds the release binary again with `-Cprofile-use`.
#
# Both builds pass `--target <host>` so the flags reach zoneguard and its dependencies but not
# build scripts and proc macros. Output: target/pgo/use/<host>/release/zoneguard (CARGO_TARGET_DIR
# moves `target`), the profile it was built with beside it in target/pgo. The release profile
# (fat LTO) is the one of Cargo.toml.
#
# Environment:
#   PGO_DURATION    seconds of training load (default 20)
#   PGO_REVIEWS     the training reviews: files, relative to the project root or absolute
#                   (e.g. reviews recorded from your own cluster; default: see 2.)
#   LLVM_PROFDATA   llvm-profdata to use (default: rustup's llvm-tools component, the LLVM of
#                   the toolchain's rustc; else the newest llvm-profdata-N on PATH, then
#                   llvm-profdata; one older than LLVM 19 is refused up front). rustc 1.95
#                   is built on LLVM 22; Debian 12's llvm-19 reads its raw profiles and writes an
#                   indexed profile that rustc reads.
#   BENCH_KEEP=1    keep the temp dir (the merged profile, the server's and wrk's logs)
#
# Needs wrk, openssl, curl and llvm-profdata (`rustup component add llvm-tools`, or Debian:
# apt-get install wrk llvm-19). The Dockerfile's build stage runs this script.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"
LOG_PREFIX=pgo # the checks before bench_init speak as this script too

DURATION="${PGO_DURATION:-20}"
need wrk openssl curl cargo rustc
HOST="$(rustc -vV | awk '/^host:/ { print $2 }')"
RUSTUP_PROFDATA="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata"
[[ -x "$RUSTUP_PROFDATA" ]] || RUSTUP_PROFDATA=""
# The oldest LLVM whose llvm-profdata reads rustc's raw profiles (found with rustc 1.95).
PROFDATA_MIN_LLVM=19
# The newest versioned llvm-profdata on PATH (Debian's llvm-N), else the unversioned one.
debian_profdata() {
  local newest
  newest="$(compgen -c llvm-profdata- | sort -u -t- -k3,3n | tail -n1)" || true
  command -v "${newest:-llvm-profdata}" || true
}
PROFDATA="${LLVM_PROFDATA:-${RUSTUP_PROFDATA:-$(debian_profdata)}}"
[[ -n "$PROFDATA" && -x "$PROFDATA" ]] ||
  die "llvm-profdata is required (rustup component add llvm-tools; Debian: apt-get install llvm-19)"
# An older LLVM cannot read the raw profiles of rustc's LLVM ("unsupported instrumentation
# profile format version" after the whole instrumented build and training): refuse it up front.
if [[ "$PROFDATA" != "$RUSTUP_PROFDATA" ]]; then
  PROFDATA_MAJOR="$("$PROFDATA" merge --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -n1)"
  [[ -n "$PROFDATA_MAJOR" && "$PROFDATA_MAJOR" -ge "$PROFDATA_MIN_LLVM" ]] ||
    die "$PROFDATA is LLVM ${PROFDATA_MAJOR:-of an unknown version}; the raw profiles of rustc $(rustc -V | awk '{ print $2 }') need llvm-profdata $PROFDATA_MIN_LLVM or later (Debian: apt-get install llvm-19; or rustup component add llvm-tools; or LLVM_PROFDATA=<path>)"
fi
bench_init pgo
W="$BENCH_WORK"
TARGET_ROOT="${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/pgo"

# pgo_cargo_build PHASE RUSTFLAGS: the release zoneguard built into $TARGET_ROOT/PHASE.
pgo_cargo_build() {
  say "building zoneguard ($1: RUSTFLAGS=$2)"
  (cd "$BENCH_ROOT" && CARGO_TARGET_DIR="$TARGET_ROOT/$1" RUSTFLAGS="$2" nice -n 5 \
    cargo build --quiet --locked --release --target "$HOST" --bin zoneguard) || die "cargo build failed"
  printf '%s' "$TARGET_ROOT/$1/$HOST/release/zoneguard"
}

DEFAULT_REVIEWS="tests/fixtures/reviews/*.json bench/reviews/ingress-update.json
  bench/reviews/httproute.json bench/reviews/dnsendpoint.json"

# training_mix: BENCH_MIX items (absolute paths, under BENCH_REVIEWS=/) for bench/wrk-mix.lua.
training_mix() {
  local file endpoint
  # shellcheck disable=SC2086 # PGO_REVIEWS is a list of files
  for file in ${PGO_REVIEWS:-$DEFAULT_REVIEWS}; do
    [[ "$file" == *.expected.json ]] && continue
    [[ -f "$file" ]] || die "no training review $file"
    file="$(realpath "$file")"
    for endpoint in /validate /mutate; do printf '%s=%s ' "$endpoint" "$file"; done
  done
}

# The raw profiles' directory is part of RUSTFLAGS, so it stays the same from run to run and an
# unchanged tree reuses the instrumented build.
RAW_DIR="$TARGET_ROOT/raw"
mkdir -p "$RAW_DIR"
rm -f "$RAW_DIR"/*.profraw
INSTRUMENTED="$(pgo_cargo_build generate "-Cprofile-generate=$RAW_DIR")"
bench_rules
make_cert "$W/tls"
# One worker, as a pod limited to 1 CPU runs it (see 2. above).
TOKIO_WORKER_THREADS=1 serve_zoneguard "$W/server.log" "$INSTRUMENTED" "$BENCH_RULES" "$W/tls/tls.crt" "$W/tls/tls.key"

MIX="$(cd "$BENCH_ROOT" && training_mix)"
say "training: wrk for ${DURATION}s over $(wc -w <<<"$MIX") requests, round robin"
(BENCH_REVIEWS=/ BENCH_MIX="$MIX" \
  wrk -t2 -c16 -d"${DURATION}s" -s "$BENCH_DIR/wrk-mix.lua" "https://127.0.0.1:$ZG_PORT") >"$W/wrk.log" 2>&1 ||
  die_showing "$W/wrk.log" "wrk failed"
grep -E "requests in|RESULT" "$W/wrk.log" >&2 || true
bg_stop "$ZG_PID"

shopt -s nullglob
RAW=("$RAW_DIR"/*.profraw)
((${#RAW[@]} > 0)) || die "the instrumented zoneguard wrote no profile"
"$PROFDATA" merge -o "$W/zoneguard.profdata" "${RAW[@]}" || die "llvm-profdata merge failed"
# Named after its content: a new profile changes RUSTFLAGS, so cargo rebuilds with it. Earlier
# profiles (~20 MB each) are removed: only the RUSTFLAGS of the build they went into named them.
PROFILE="$TARGET_ROOT/zoneguard-$(sha256sum "$W/zoneguard.profdata" | cut -c1-16).profdata"
rm -f "$TARGET_ROOT"/zoneguard-*.profdata
cp "$W/zoneguard.profdata" "$PROFILE"
pgo_cargo_build use "-Cprofile-use=$PROFILE"
echo
