#!/usr/bin/env bash
# Builds the cluster-side tools the end-to-end tests need, from the Go module
# proxy (no release downloads): kube-apiserver and kubectl (k8s.io/kubernetes),
# etcd (go.etcd.io/etcd/server/v3) and helm (helm.sh/helm/v4); and copies the
# CRDs the suite takes unmodified from Go modules (cert-manager's Certificate and
# Issuer, Gateway API's Gateway, GRPCRoute, TLSRoute and experimental TCPRoute, the Prometheus
# Operator's ServiceMonitor) into the cache.
#
# Binaries land in ${ZONEGUARD_TOOLS_DIR:-$HOME/.cache/zoneguard/tools/<k8s-version>}/bin,
# CRDs in .../crds; both are reused when present, so a warm run takes well under a second.
#
# Usage: scripts/tools.sh [--print-dir] [all|kube|etcd|helm|crds]...
#   --print-dir   print only the bin directory (for $(scripts/tools.sh --print-dir));
#                 the CRDs are in its sibling directory crds/
#
# Environment:
#   ZONEGUARD_TOOLS_DIR      cache directory (default above)
#   ZONEGUARD_K8S_VERSION    k8s.io/kubernetes release      (default v1.34.4)
#   ZONEGUARD_ETCD_VERSION   go.etcd.io/etcd/server/v3      (default v3.6.16)
#   ZONEGUARD_HELM_VERSION   helm.sh/helm/v4                (default v4.3.2)
#   ZONEGUARD_CERT_MANAGER_VERSION  github.com/cert-manager/cert-manager (default v1.19.1)
#   ZONEGUARD_GATEWAY_API_VERSION   sigs.k8s.io/gateway-api        (default v1.6.1)
#   ZONEGUARD_PROMETHEUS_OPERATOR_VERSION
#                                   github.com/prometheus-operator/prometheus-operator (default v0.85.0)
#
# Go builds run under `nice -n 10` with -trimpath and stripped symbols: the
# build machine is small and usually compiles Rust at the same time. Each uses a
# scratch Go build and module cache, removed once it is done.
set -euo pipefail

K8S_VERSION="${ZONEGUARD_K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${ZONEGUARD_ETCD_VERSION:-v3.6.16}"
HELM_VERSION="${ZONEGUARD_HELM_VERSION:-v4.3.2}"
CERT_MANAGER_VERSION="${ZONEGUARD_CERT_MANAGER_VERSION:-v1.19.1}"
GATEWAY_API_VERSION="${ZONEGUARD_GATEWAY_API_VERSION:-v1.6.1}"
PROMETHEUS_OPERATOR_VERSION="${ZONEGUARD_PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
TOOLS_DIR="${ZONEGUARD_TOOLS_DIR:-${HOME}/.cache/zoneguard/tools/${K8S_VERSION}}"
BIN_DIR="${TOOLS_DIR}/bin"
CRD_DIR="${TOOLS_DIR}/crds"

# The staging modules (k8s.io/api, k8s.io/apiserver, ...) are published as
# v0.<minor>.<patch> for Kubernetes v1.<minor>.<patch>.
STAGING_VERSION="v0.${K8S_VERSION#v1.}"

# A cold build fills several GB of Go build and module cache that nothing reads once the
# binaries are cached, so each tool builds in a scratch cache under TOOLS_DIR, removed once it
# is built (by gobuild) and on exit: the disk holds one tool's build at a time, not all three.
SCRATCH="$TOOLS_DIR/go-scratch"
export GOCACHE="$SCRATCH/build" GOMODCACHE="$SCRATCH/mod"
drop_scratch() {
  [[ -d "$SCRATCH" ]] || return 0
  go clean -modcache >/dev/null 2>&1 || true
  rm -rf "$SCRATCH"
}
trap drop_scratch EXIT

export GOFLAGS="${GOFLAGS:--buildvcs=false}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export CGO_ENABLED="${CGO_ENABLED:-0}"

log() { printf 'tools: %s\n' "$*" >&2; }
die() { printf 'tools: error: %s\n' "$*" >&2; exit 1; }

print_dir=false
targets=()
for arg in "$@"; do
  case "$arg" in
    --print-dir) print_dir=true ;;
    all|kube|etcd|helm|crds) targets+=("$arg") ;;
    -h|--help) sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$arg' (see --help)" ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(all)

command -v go >/dev/null 2>&1 || die "go is not installed (needed to build the tools from the Go module proxy)"
mkdir -p "$BIN_DIR" "$TOOLS_DIR/src"

gobuild() {
  # gobuild <module dir> <output dir> <extra ldflags> <package>...
  local dir="$1" out="$2" ldflags="-s -w $3" pkg
  shift 3
  # One go build per package: a build of several holds all of them in its work directory at
  # once, while the next one reuses the packages they share from the build cache. No DWARF
  # in the package archives either: the link strips it (-w), and without it the build cache
  # and work directory of a cold build are a fifth smaller.
  for pkg in "$@"; do
    (cd "$dir" && nice -n 10 go build -trimpath -gcflags=all=-dwarf=false -ldflags="$ldflags" -o "$out/" "$pkg")
  done
  drop_scratch
}

# Bump when the way a tool is built changes, so cached builds are redone.
RECIPE=2

# stamp <name> <version>: true when <name> was already built at <version>.
have() {
  local name="$1" version="$2"
  [[ -x "$BIN_DIR/$name" && -f "$BIN_DIR/.$name.version" &&
    "$(cat "$BIN_DIR/.$name.version")" == "$version recipe $RECIPE" ]]
}
stamp() { printf '%s recipe %s\n' "$2" "$RECIPE" >"$BIN_DIR/.$1.version"; }

timed() {
  # timed <label> <command>...: runs the command and logs how long it took.
  local label="$1" start end
  shift
  start=$(date +%s)
  "$@"
  end=$(date +%s)
  log "$label built in $((end - start))s"
  printf '%s %s %ss\n' "$(date -u +%FT%TZ)" "$label" "$((end - start))" >>"$TOOLS_DIR/build-times.log"
}

build_kube() {
  if have kube-apiserver "$K8S_VERSION" && have kubectl "$K8S_VERSION"; then
    return 0
  fi
  local dir="$TOOLS_DIR/src/kubernetes"
  mkdir -p "$dir"
  log "building kube-apiserver and kubectl ${K8S_VERSION} (staging modules ${STAGING_VERSION}); this takes a while when cold"
  # The replace block: k8s.io/kubernetes's own go.mod points every staging
  # module at ./staging/src/...; a dependent module must pin them to the
  # published v0.x.y instead.
  local modfile staging
  modfile="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$modfile" ]] || die "could not download k8s.io/kubernetes@${K8S_VERSION}'s go.mod"
  staging="$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$modfile" | sort -u)"
  [[ -n "$staging" ]] || die "no staging replace directives found in $modfile"
  {
    printf 'module zoneguard.local/kubetools\n\ngo 1.24.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
    local m
    for m in $staging; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done
    printf ')\n'
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'EOF'
//go:build tools

// Package tools pins the commands this throw-away module builds.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF
  (cd "$dir" && nice -n 10 go mod tidy)
  # The version the binaries report (`kubectl version`, /version), as the
  # upstream build sets it; without it they say v0.0.0-master.
  local minor="${K8S_VERSION#v1.}" ldflags="" pkg
  minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=${K8S_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor}"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  timed "kube-apiserver+kubectl ${K8S_VERSION}" \
    gobuild "$dir" "$BIN_DIR" "$ldflags" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl
  stamp kube-apiserver "$K8S_VERSION"
  stamp kubectl "$K8S_VERSION"
}

build_etcd() {
  if have etcd "$ETCD_VERSION"; then
    return 0
  fi
  local dir="$TOOLS_DIR/src/etcd"
  mkdir -p "$dir"
  log "building etcd ${ETCD_VERSION}"
  # etcd's own go.mod files replace their sibling modules with ../ paths, so
  # `go install ...@version` refuses them; a tiny module of our own does not.
  printf 'module zoneguard.local/etcdtools\n\ngo 1.24.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$dir/go.mod"
  cat >"$dir/tools.go" <<'EOF'
//go:build tools

// Package tools pins the commands this throw-away module builds.
package tools

import _ "go.etcd.io/etcd/server/v3"
EOF
  (cd "$dir" && nice -n 10 go mod tidy)
  timed "etcd ${ETCD_VERSION}" gobuild "$dir" "$BIN_DIR/etcd.out" "" go.etcd.io/etcd/server/v3
  # The main package is the module root, so go build names the binary "v3".
  mv -f "$BIN_DIR/etcd.out/"* "$BIN_DIR/etcd"
  rmdir "$BIN_DIR/etcd.out"
  stamp etcd "$ETCD_VERSION"
}

build_helm() {
  if have helm "$HELM_VERSION"; then
    return 0
  fi
  local dir="$TOOLS_DIR/src/helm"
  mkdir -p "$dir"
  log "building helm ${HELM_VERSION}"
  printf 'module zoneguard.local/helmtools\n\ngo 1.24.0\n\nrequire helm.sh/helm/v4 %s\n' "$HELM_VERSION" >"$dir/go.mod"
  cat >"$dir/tools.go" <<'EOF'
//go:build tools

// Package tools pins the commands this throw-away module builds.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
EOF
  (cd "$dir" && nice -n 10 go mod tidy)
  timed "helm ${HELM_VERSION}" \
    gobuild "$dir" "$BIN_DIR" "-X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}" helm.sh/helm/v4/cmd/helm
  stamp helm "$HELM_VERSION"
}

# module_file MODULE@VERSION PATH: copies the file PATH of that Go module into CRD_DIR.
module_file() {
  local dir
  dir="$(cd "$TOOLS_DIR" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$dir/$2" ]] || die "could not download $1 (or it has no $2)"
  cp -f "$dir/$2" "$CRD_DIR/"
}

fetch_crds() {
  local cm="github.com/cert-manager/cert-manager@${CERT_MANAGER_VERSION}"
  local gw="sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION}"
  local po="github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION}"
  # MODULE|PATH of every file copied; the stamp names them, so adding one refreshes the cache.
  local files=(
    "$cm|deploy/crds/cert-manager.io_certificates.yaml"
    "$cm|deploy/crds/cert-manager.io_issuers.yaml"
    "$gw|config/crd/standard/gateway.networking.k8s.io_gateways.yaml"
    "$gw|config/crd/standard/gateway.networking.k8s.io_grpcroutes.yaml"
    "$gw|config/crd/standard/gateway.networking.k8s.io_listenersets.yaml"
    "$gw|config/crd/standard/gateway.networking.k8s.io_tlsroutes.yaml"
    "$gw|config/crd/experimental/gateway.networking.k8s.io_tcproutes.yaml"
    "$gw|config/crd/experimental/gateway.networking.k8s.io_udproutes.yaml"
    "$po|example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
  )
  local version="${files[*]}" file
  if [[ -f "$CRD_DIR/.version" && "$(cat "$CRD_DIR/.version")" == "$version" ]]; then
    return 0
  fi
  log "copying CRDs from the Go modules $cm $gw $po"
  rm -rf "$CRD_DIR"
  mkdir -p "$CRD_DIR"
  for file in "${files[@]}"; do
    module_file "${file%%|*}" "${file#*|}"
  done
  printf '%s\n' "$version" >"$CRD_DIR/.version"
}

start=$(date +%s)
for t in "${targets[@]}"; do
  case "$t" in
    all) build_etcd; build_kube; build_helm; fetch_crds ;;
    kube) build_kube ;;
    etcd) build_etcd ;;
    helm) build_helm ;;
    crds) fetch_crds ;;
  esac
done
end=$(date +%s)

if $print_dir; then
  printf '%s\n' "$BIN_DIR"
else
  log "tools ready in ${BIN_DIR} ($((end - start))s)"
fi
