# syntax=docker/dockerfile:1
#
# zoneguard container image: the profile-guided release build that scripts/bench.sh measures,
# on distroless/cc (glibc), running as the distroless "nonroot" user (65532), matching the
# securityContext in manifests/base/deployment.yaml (runAsNonRoot, readOnlyRootFilesystem: the
# binary writes nothing to disk).
#
# Nothing in this repository builds or pushes images: the tests run the binary directly
# (tests/e2e/run.sh). To build one:
#
#   docker build -t ghcr.io/zoneguard/zoneguard:0.1.0 .
#   docker build --build-arg PGO=0 -t zoneguard:dev .   # plain release build, about half the time
#
# then set the image in manifests/ (`kustomize edit set image
# ghcr.io/zoneguard/zoneguard=<yours>`) or in the Helm values (image.repository, image.tag).
#
# Unless PGO=0, the build stage runs scripts/pgo-build.sh: an instrumented release
# build serves the training reviews on 127.0.0.1 under wrk for PGO_DURATION seconds, and the
# release build is made again with that profile (README, "Profile-guided build"). llvm-profdata
# comes from rustup's llvm-tools, the LLVM of the image's rustc. Only the files that needs are
# copied, so the local target/ directory never enters the build.
#
# scripts/image-rehearsal.sh rehearses this build stage on a host without a container runtime.
#
# TLS in the binary comes from rustls with aws-lc-rs, compiled in by the C compiler of the build
# stage (no OpenSSL at run time).

ARG RUST_VERSION=1
FROM docker.io/library/rust:${RUST_VERSION}-bookworm AS build
ARG PGO=1
ARG PGO_DURATION=20
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk openssl curl \
 && rm -rf /var/lib/apt/lists/* \
 && rustup component add llvm-tools
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
COPY src ./src
COPY benches ./benches
COPY bench ./bench
COPY scripts/pgo-build.sh ./scripts/
COPY tests/e2e/lib.sh ./tests/e2e/
COPY tests/fixtures/reviews ./tests/fixtures/reviews
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    if [ "$PGO" != 0 ]; then \
      PGO_DURATION="$PGO_DURATION" scripts/pgo-build.sh >/tmp/pgo.out \
      && cp "$(tail -n1 /tmp/pgo.out)" /zoneguard; \
    else \
      cargo build --release --locked --bin zoneguard && cp target/release/zoneguard /zoneguard; \
    fi

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /zoneguard /zoneguard
USER 65532:65532
# 8443: webhook HTTPS (--listen); 8080: /healthz, /readyz, /metrics (--probe-listen).
EXPOSE 8443 8080
ENTRYPOINT ["/zoneguard"]
CMD ["serve"]
