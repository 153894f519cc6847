# syntax=docker/dockerfile:1
#
# zoneguard container image: a static (musl) release build on distroless,
# running as the distroless "nonroot" user (65532), matching the
# securityContext in manifests/base/deployment.yaml (runAsNonRoot,
# readOnlyRootFilesystem: the binary writes nothing to disk).
#
# Nothing in this repository builds or pushes images: the tests run the
# binary directly (tests/e2e/run.sh). To build one:
#
#   docker build -t ghcr.io/zoneguard/zoneguard:0.1.0 .
#
# then set the image in manifests/ (`kustomize edit set image
# ghcr.io/zoneguard/zoneguard=<yours>`) or in the Helm values (image.repository,
# image.tag). Only Cargo.toml, Cargo.lock, src/ and crates/ are copied, so the
# local target/ directory never enters the build.
#
# TLS in the binary must come from rustls (no OpenSSL) for the static build.

ARG RUST_VERSION=1
FROM docker.io/library/rust:${RUST_VERSION}-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
COPY src ./src
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin zoneguard \
 && cp target/release/zoneguard /zoneguard

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /zoneguard /zoneguard
USER 65532:65532
# 8443: webhook HTTPS (--listen); 8080: /healthz, /readyz, /metrics (--probe-listen).
EXPOSE 8443 8080
ENTRYPOINT ["/zoneguard"]
CMD ["serve"]
