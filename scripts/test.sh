#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, lints, unit and integration tests
# (the differential test against external-dns's Go code included), then the end-to-end
# suite against a real kube-apiserver, etcd and kubectl built from source, then one short run
# of each benchmark script on the debug builds (tests/bench-smoke.sh: no figure asserted).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "the fuzz targets compile (fuzz/, its own crate and lock file; no sanitizer, no run)"
cargo check --manifest-path fuzz/Cargo.toml --locked --bins

step "the benchmarks' Go programs: gofmt and go vet (bench/apiload, bench/nullhook)"
for dir in bench/apiload bench/nullhook; do
  unformatted="$(gofmt -l "$dir")"
  [[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
  (cd "$dir" && GOFLAGS=-mod=mod go vet .)
done

step "cargo test (unit, integration, differential)"
cargo test --workspace --locked

if [[ "${ZONEGUARD_SKIP_E2E:-}" == "1" ]]; then
  step "end-to-end suite and benchmark scripts' smoke run NOT run (ZONEGUARD_SKIP_E2E=1)"
  exit 0
fi
step "end-to-end suite (kube-apiserver + etcd + kubectl + zoneguard serve)"
cargo build --locked
ZONEGUARD_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/zoneguard" tests/e2e/run.sh

step "benchmark scripts, smoke run (bench, soak, scale, API-server overhead, reload latency, instructions; debug builds, no figure asserted)"
ZONEGUARD_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/zoneguard" tests/bench-smoke.sh
