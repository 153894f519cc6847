#!/usr/bin/env bash
# Rehearses the Dockerfile's build stage on this host, for machines without a container runtime:
# copies into an empty directory exactly the files the Dockerfile's COPY lines name, builds there
# as its RUN command does, and checks the binary: it runs `zoneguard check` on the examples, and
# it needs no shared library that gcr.io/distroless/cc-debian12 lacks. A COPY list that misses a
# file the build needs fails here.
#
#   scripts/image-rehearsal.sh             # PGO=1, as the image: scripts/pgo-build.sh (~20 min cold)
#   PGO=0 scripts/image-rehearsal.sh       # the plain release build (~7 min cold)
#
# Environment: PGO (default 1), PGO_DURATION (default 5 here; the image trains 20 s),
# BENCH_KEEP=1 keeps the directory. Not rehearsed: the base image, apt-get and rustup.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/lib.sh"

bench_init image-rehearsal
CTX="$BENCH_WORK/context"
mkdir -p "$CTX"

# copy_context: each `COPY SRC... DEST` of the Dockerfile (not `COPY --from`), relative to the
# project root, into $CTX as the build's WORKDIR would hold it.
copy_context() {
  local line words dest src
  while read -r line; do
    read -r -a words <<<"$line"
    dest="${words[-1]}"
    for src in "${words[@]:1:${#words[@]}-2}"; do
      [[ -e "$BENCH_ROOT/$src" ]] || die "the Dockerfile copies $src, which does not exist"
      # DEST/ is a directory to copy into; DEST without the slash is the copy's own name.
      if [[ "$dest" == */ ]]; then mkdir -p "$CTX/$dest"; else mkdir -p "$(dirname "$CTX/$dest")"; fi
      cp -r "$BENCH_ROOT/$src" "$CTX/$dest"
    done
  done < <(grep -E '^COPY [^-]' "$BENCH_ROOT/Dockerfile")
}

copy_context
say "build context: $(cd "$CTX" && find . -type f | wc -l) files"
if [[ "${PGO:-1}" != 0 ]]; then
  BIN="$(cd "$CTX" && PGO_DURATION="${PGO_DURATION:-5}" CARGO_TARGET_DIR="$CTX/target" \
    scripts/pgo-build.sh | tail -n1)"
else
  (cd "$CTX" && CARGO_TARGET_DIR="$CTX/target" cargo build --quiet --release --locked --bin zoneguard)
  BIN="$CTX/target/release/zoneguard"
fi
[[ -x "$BIN" ]] || die "the build made no binary"

# What distroless/cc-debian12 holds: glibc's libraries and libgcc_s.
extra="$(ldd "$BIN" | awk '{ print $1 }' |
  grep -Ev '^(linux-vdso\.so\.1|/lib[^ ]*/ld-linux[^ ]*|libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1)$' || true)"
[[ -z "$extra" ]] || die "the binary needs libraries distroless/cc lacks: $extra"
status=0
summary="$(cd "$BENCH_ROOT" && "$BIN" check --rules examples/rules.yaml examples/manifests | tail -n1)" ||
  status=$?
[[ "$status" == 1 && "$summary" == "5 checked: 3 admitted, 2 denied; 0 skipped" ]] ||
  die "zoneguard check on the examples: exit $status, \"$summary\""
say "ok: $BIN ($(du -h "$BIN" | cut -f1)); check on the examples: $summary"
