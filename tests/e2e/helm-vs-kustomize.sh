#!/usr/bin/env bash
# Renders the Helm chart (charts/zoneguard) and the kustomize manifests
# (manifests/) and fails when they differ: same objects (kind, namespace,
# name) and the same content, apart from the labels Helm adds to every object
# (helm.sh/chart, app.kubernetes.io/managed-by, /instance, /version).
#
# Pairs compared:
#   manifests/               vs  helm template --set namespace.create=true
#   manifests/cert-manager/  vs  helm template --set namespace.create=true,certManager.enabled=true
#   manifests/ with the component manifests/monitoring/
#                            vs  helm template --set namespace.create=true,serviceMonitor.enabled=true
#   manifests/ with the component manifests/network-policy/
#                            vs  helm template --set namespace.create=true,networkPolicy.enabled=true
#   manifests/ with the component manifests/fqdn-template/
#                            vs  helm template --set namespace.create=true,webhook.fqdnTemplate=true
#   manifests/ with the component manifests/inject-conditions/
#                            vs  helm template --set namespace.create=true,webhook.injectConditions=true
#   manifests/iam/           vs  helm template --set namespace.create=true, the overlay's rules as
#                                extraRules.iam and its role ARN as serviceAccount.annotations
#
# Needs helm and kubectl (built by scripts/tools.sh when missing) and python3
# with PyYAML.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if [[ -z "${HELM:-}" || -z "${KUBECTL:-}" ]]; then
  bin_dir="$("$ROOT/scripts/tools.sh" --print-dir kube helm)"
  HELM="${HELM:-$bin_dir/helm}"
  KUBECTL="${KUBECTL:-$bin_dir/kubectl}"
fi
command -v python3 >/dev/null 2>&1 || { echo "helm-vs-kustomize: python3 is required" >&2; exit 2; }
python3 -c 'import yaml' 2>/dev/null || { echo "helm-vs-kustomize: python3 PyYAML is required (apt-get install python3-yaml)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/zoneguard-render.XXXXXX")"
trap 'rm -rf "$work"' EXIT

failed=0
compare() {
  local label="$1" kustomize_dir="$2"
  shift 2
  [[ "$kustomize_dir" == /* ]] || kustomize_dir="$ROOT/$kustomize_dir"
  "$KUBECTL" kustomize "$kustomize_dir" >"$work/kustomize.yaml"
  "$HELM" template zoneguard "$ROOT/charts/zoneguard" --namespace zoneguard "$@" >"$work/helm.yaml"
  if python3 - "$work/kustomize.yaml" "$work/helm.yaml" <<'PY'
import difflib, json, sys, yaml

HELM_LABELS = {"helm.sh/chart", "app.kubernetes.io/managed-by",
               "app.kubernetes.io/instance", "app.kubernetes.io/version"}

def load(path):
    objs = {}
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc:
                continue
            md = doc.setdefault("metadata", {})
            labels = md.get("labels") or {}
            for k in HELM_LABELS:
                labels.pop(k, None)
            if not labels:
                md.pop("labels", None)
            key = (doc.get("apiVersion"), doc.get("kind"), md.get("namespace", ""), md.get("name"))
            if key in objs:
                sys.exit(f"{path}: duplicate object {key}")
            objs[key] = doc
    return objs

k, h = load(sys.argv[1]), load(sys.argv[2])
bad = False
for key in sorted(set(k) | set(h), key=str):
    name = "/".join(x for x in key if x)
    if key not in h:
        print(f"  only in kustomize: {name}"); bad = True; continue
    if key not in k:
        print(f"  only in helm:      {name}"); bad = True; continue
    a = json.dumps(k[key], indent=2, sort_keys=True).splitlines()
    b = json.dumps(h[key], indent=2, sort_keys=True).splitlines()
    if a != b:
        bad = True
        print(f"  differs: {name}")
        for line in difflib.unified_diff(a, b, "kustomize", "helm", lineterm="", n=2):
            print("    " + line)
print(f"  {len(k)} kustomize objects, {len(h)} helm objects")
sys.exit(1 if bad else 0)
PY
  then
    echo "ok   - helm and kustomize agree: $label"
  else
    echo "FAIL - helm and kustomize differ: $label"
    failed=$((failed + 1))
  fi
}

compare "default install" manifests --set namespace.create=true
compare "cert-manager" manifests/cert-manager --set namespace.create=true --set certManager.enabled=true

# compare_component LABEL COMPONENT HELM-VALUE: a user's kustomization that adds the component
# manifests/COMPONENT (kustomize wants relative paths) against the chart with HELM-VALUE=true.
compare_component() {
  local label="$1" component="$2" value="$3" dir="$work/$2" manifests
  mkdir -p "$dir"
  manifests="$(realpath --relative-to="$dir" "$ROOT/manifests")"
  printf 'resources: [%s]\ncomponents: [%s/%s]\n' "$manifests" "$manifests" "$component" \
    >"$dir/kustomization.yaml"
  compare "$label" "$dir" --set namespace.create=true --set "$value=true"
}

compare_component ServiceMonitor monitoring serviceMonitor.enabled
compare_component NetworkPolicy network-policy networkPolicy.enabled
# no match conditions on the hostnames webhook
compare_component "fqdn template" fqdn-template webhook.fqdnTemplate
# zoneguard keeps the mutating webhook's condition
compare_component "inject conditions" inject-conditions webhook.injectConditions

# IAM mode: the overlay's rule ConfigMap zoneguard-rules-iam is the chart's extraRules.iam, and
# its ServiceAccount patch the chart's serviceAccount.annotations.
python3 - "$ROOT/manifests/iam/rules-iam.yaml" >"$work/rules-iam.yaml" <<'PY'
import sys, yaml
sys.stdout.write(yaml.safe_load(open(sys.argv[1]))["data"]["rules.yaml"])
PY
compare "IAM mode" manifests/iam --set namespace.create=true \
  --set-file extraRules.iam="$work/rules-iam.yaml" \
  --set-string 'serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::111122223333:role/zoneguard'

if [[ $failed -gt 0 ]]; then
  exit 1
fi
