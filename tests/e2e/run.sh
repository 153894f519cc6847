#!/usr/bin/env bash
# End-to-end tests: zoneguard behind a real kube-apiserver, driven by kubectl.
#
# What it does:
#   1. builds (or reuses) etcd, kube-apiserver, kubectl and helm with
#      scripts/tools.sh, and the zoneguard binary with cargo;
#   2. starts etcd and kube-apiserver on loopback ports the way envtest does
#      (throw-away CA, admin client certificate, generated service-account
#      signing key, RBAC, the admission webhook plugins), data in a temp dir;
#   3. checks every shipped object against the API server
#      (`kubectl apply -k manifests/ --dry-run=server`, the same for the
#      cert-manager overlay against cert-manager's own CRDs, taken from its Go
#      module, and for `helm template`, with the ServiceMonitor against the
#      Prometheus Operator's CRD) and that Helm and kustomize render the same
#      objects;
#   4. installs manifests/ with the inject-conditions component through a
#      kustomize overlay generated in the temp dir that otherwise changes only
#      the webhooks' clientConfig (url of the local zoneguard + caBundle), and
#      runs `zoneguard serve` as an ordinary process with the zoneguard
#      ServiceAccount's token (so the shipped RBAC is what it runs with);
#   5. runs the cases through kubectl, printing `ok`/`FAIL` per case and a
#      final `N passed, M failed`; exits non-zero on any failure.
# Every process it starts is stopped on exit, on failure too.
#
# Environment:
#   ZONEGUARD_BIN          zoneguard binary (default: cargo build, then
#                          ${CARGO_TARGET_DIR:-target}/debug/zoneguard)
#   ZONEGUARD_TOOLS_DIR    tool cache (see scripts/tools.sh)
#   ZONEGUARD_E2E_KEEP=1   keep the temp dir (logs, kubeconfig) after the run
#   ZONEGUARD_E2E_RELOAD_TIMEOUT  seconds to wait for a rule edit (default 30)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E="$ROOT/tests/e2e"
RELOAD_TIMEOUT="${ZONEGUARD_E2E_RELOAD_TIMEOUT:-30}"

LOG_PREFIX=e2e
# shellcheck source=tests/e2e/lib.sh
source "$E2E/lib.sh"

for cmd in openssl curl base64 awk; do
  command -v "$cmd" >/dev/null 2>&1 || die "$cmd is required"
done

started=$(date +%s)

# ---------------------------------------------------------------- tools ----
BIN_DIR="$("$ROOT/scripts/tools.sh" --print-dir kube etcd helm crds)"
MODULE_CRDS="$(dirname "$BIN_DIR")/crds" # unmodified CRDs from Go modules (scripts/tools.sh)
APISERVER="$BIN_DIR/kube-apiserver"
KUBECTL="$BIN_DIR/kubectl"
HELM="$BIN_DIR/helm"

if [[ -z "${ZONEGUARD_BIN:-}" ]]; then
  say "building zoneguard (cargo build)"
  (cd "$ROOT" && cargo build --quiet --bin zoneguard) || die "cargo build failed"
  ZONEGUARD_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/zoneguard"
fi
[[ -x "$ZONEGUARD_BIN" ]] || die "zoneguard binary not found at $ZONEGUARD_BIN (set ZONEGUARD_BIN)"

# ------------------------------------------------------- process control ----
# Every process started with `start` (tests/e2e/lib.sh) is stopped on exit.
passed=0
failed=0
SERVE_PID=""
keep_work() { [[ "${ZONEGUARD_E2E_KEEP:-0}" == 1 || $failed -gt 0 ]]; }
work_init e2e "logs and kubeconfig"
LOGS="$WORK/logs"
mkdir -p "$LOGS"
WEBHOOK_PORT="" PROBE_PORT=""

# ---------------------------------------------------------- certificates ----
PKI="$WORK/pki"
cluster_pki e2e

# ------------------------------------------------ etcd, kube-apiserver ----
AUDIT_LOG="$LOGS/audit.log" start_cluster e2e 10.0.0.0/24
say "kube-apiserver $("$APISERVER" --version | awk '{print $2}') up on 127.0.0.1:$API_PORT ($(($(date +%s) - started))s)"

# --------------------------------------------------------------- results ----
report() {
  local name="$1" why="$2" out="$3"
  if [[ -z "$why" ]]; then
    passed=$((passed + 1))
    printf 'ok   - %s\n' "$name"
  else
    failed=$((failed + 1))
    printf 'FAIL - %s: %s\n' "$name" "$why"
    printf '%s\n' "$out" | sed -e 's/^/       | /' | head -n 15
  fi
}

# check NAME ok|fail [TEXT...] -- CMD...: runs CMD (stdin is passed on) and
# wants exit status 0 (ok) or non-zero (fail) and every TEXT in its output
# (a TEXT starting with "re:" is an extended regular expression; one starting
# with "not:" must not appear).
check() {
  local name="$1" want="$2"
  shift 2
  local -a texts=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do
    texts+=("$1")
    shift
  done
  [[ $# -gt 0 ]] && shift
  local out rc=0 why="" t
  out="$("$@" 2>&1)" || rc=$?
  case "$want" in
    ok) [[ $rc -eq 0 ]] || why="exit status $rc, want 0" ;;
    fail) [[ $rc -ne 0 ]] || why="exit status 0, want non-zero" ;;
  esac
  for t in "${texts[@]}"; do
    if [[ "$t" == re:* ]]; then
      grep -qE -- "${t#re:}" <<<"$out" || why="${why:+$why; }output does not match '${t#re:}'"
    elif [[ "$t" == not:* ]]; then
      ! grep -qF -- "${t#not:}" <<<"$out" || why="${why:+$why; }output contains '${t#not:}'"
    else
      grep -qF -- "$t" <<<"$out" || why="${why:+$why; }output lacks '$t'"
    fi
  done
  report "$name" "$why" "$out"
}

# check_eq NAME WANT CMD...: CMD must succeed and print exactly WANT.
check_eq() {
  local name="$1" want="$2"
  shift 2
  local out rc=0 why=""
  out="$("$@" 2>&1)" || rc=$?
  if [[ $rc -ne 0 ]]; then
    why="exit status $rc"
  elif [[ "$out" != "$want" ]]; then
    why="got '$out', want '$want'"
  fi
  report "$name" "$why" "$out"
}

# eventually SECONDS CMD...: retries CMD until it succeeds.
eventually() {
  local timeout="$1"
  shift
  local deadline=$(($(date +%s) + timeout))
  until "$@" >/dev/null 2>&1; do
    [[ $(date +%s) -lt $deadline ]] || return 1
    sleep 0.5
  done
}

# takes_effect NAME WHY CMD...: the case NAME passes when zoneguard serves and CMD comes true
# within RELOAD_TIMEOUT (a live change applied without a restart); else it fails with WHY and
# CMD's output.
takes_effect() {
  local name="$1" why="$2"
  shift 2
  if $SERVE_UP && eventually "$RELOAD_TIMEOUT" "$@"; then
    report "$name" "" ""
  else
    report "$name" "$why after ${RELOAD_TIMEOUT}s" "$("$@" 2>&1)"
  fi
}

# quiet CMD...: a setup step; its output goes to the log.
quiet() { "$@" >>"$LOGS/setup.log" 2>&1; }

# ------------------------------------------------ CRDs and shipped objects ----
quiet kc apply --server-side -f "$E2E/crds/" -f "$MODULE_CRDS/" ||
  die "installing the CRDs failed (see $LOGS/setup.log)"
quiet kc wait --for condition=Established --timeout 60s \
  crd/httproutes.gateway.networking.k8s.io crd/grpcroutes.gateway.networking.k8s.io \
  crd/tlsroutes.gateway.networking.k8s.io crd/gateways.gateway.networking.k8s.io \
  crd/listenersets.gateway.networking.k8s.io \
  crd/tcproutes.gateway.networking.k8s.io crd/udproutes.gateway.networking.k8s.io \
  crd/dnsendpoints.externaldns.k8s.io \
  crd/certificates.cert-manager.io crd/issuers.cert-manager.io \
  crd/servicemonitors.monitoring.coreos.com || die "CRDs not established"
# The namespace first: a server-side dry run does not create it for the
# namespaced objects that follow.
quiet kc apply -f "$ROOT/manifests/base/namespace.yaml" || die "creating namespace zoneguard failed"

echo "# shipped objects against the API server"
check "kubectl apply -k manifests/ --dry-run=server" ok "not:Warning" -- \
  kc apply -k "$ROOT/manifests" --dry-run=server
check "kubectl apply -k manifests/cert-manager/ --dry-run=server" ok "not:Warning" \
  "certificate.cert-manager.io/zoneguard-serving-cert created (server dry run)" -- \
  kc apply -k "$ROOT/manifests/cert-manager" --dry-run=server
helm_dry_run() { # helm_dry_run [HELM-FLAG...]
  "$HELM" template zoneguard "$ROOT/charts/zoneguard" --namespace zoneguard --set namespace.create=true "$@" |
    kc apply --dry-run=server -f -
}
check "helm template | kubectl apply --dry-run=server" ok "not:Warning" -- helm_dry_run
check "helm template --set certManager.enabled=true | kubectl apply --dry-run=server" ok "not:Warning" \
  "issuer.cert-manager.io/zoneguard-selfsigned created (server dry run)" -- \
  helm_dry_run --set certManager.enabled=true
check "helm template --set serviceMonitor.enabled=true | kubectl apply --dry-run=server" ok "not:Warning" \
  "servicemonitor.monitoring.coreos.com/zoneguard created (server dry run)" -- \
  helm_dry_run --set serviceMonitor.enabled=true
check "helm template --set networkPolicy.enabled=true | kubectl apply --dry-run=server" ok "not:Warning" \
  "networkpolicy.networking.k8s.io/zoneguard created (server dry run)" -- \
  helm_dry_run --set networkPolicy.enabled=true \
  --set-json 'networkPolicy.webhookFrom=[{"ipBlock":{"cidr":"10.0.0.0/8"}}]'
check "helm template --set webhook.injectConditions=true | kubectl apply --dry-run=server" ok "not:Warning" \
  "clusterrole.rbac.authorization.k8s.io/zoneguard-inject-conditions created (server dry run)" -- \
  helm_dry_run --set webhook.injectConditions=true
sa_role_arn() { # the role ARN the chart's serviceAccount.annotations put on zoneguard's ServiceAccount
  "$HELM" template zoneguard "$ROOT/charts/zoneguard" --namespace zoneguard --show-only templates/serviceaccount.yaml \
    --set-string 'serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::111122223333:role/zoneguard' |
    kc create --dry-run=client -o 'jsonpath={.metadata.annotations.eks\.amazonaws\.com/role-arn}' -f -
}
check_eq "helm template --set-string serviceAccount.annotations… annotates zoneguard's ServiceAccount" \
  "arn:aws:iam::111122223333:role/zoneguard" sa_role_arn
check "helm template with a misspelt value fails on the values schema" fail \
  "additional properties 'serviceAcount' not allowed" -- helm_dry_run --set serviceAcount.annotations.x=y
helm_vs_kustomize() { HELM="$HELM" KUBECTL="$KUBECTL" "$E2E/helm-vs-kustomize.sh"; }
check "helm template and kubectl kustomize render the same objects" ok -- helm_vs_kustomize

# -------------------------------------------------- zoneguard and webhooks ----
echo "# certificates and install"
CERTS="$WORK/webhook-certs"
mkdir -p "$CERTS"
free_port WEBHOOK_PORT
free_port PROBE_PORT
# Where the API server calls zoneguard: over HTTP/1.1, as in a cluster, where this
# machine allows (webhook_host in tests/e2e/lib.sh).
WEBHOOK_HOST="$(webhook_host)"
say "the API server calls zoneguard at https://$WEBHOOK_HOST:<port>"

# The CA and caBundle come from `zoneguard certs`. Its serving certificate
# names zoneguard.zoneguard.svc, but the API server calls this local process
# at https://$WEBHOOK_HOST:<port>, so a serving certificate for that host is
# signed with the CA that `zoneguard certs` wrote: the caBundle under test is
# still its own.
make_webhook_certs() {
  local sans f ca_crt="$CERTS/ca.crt" serving_crt="$CERTS/tls.crt"
  if ! "$ZONEGUARD_BIN" certs --service zoneguard --namespace zoneguard --out "$CERTS" \
    >"$LOGS/certs.out" 2>"$LOGS/certs.log"; then
    CERTS_PROBLEM="zoneguard certs failed: $(head -n 3 "$LOGS/certs.log")"
    return 1
  fi
  for f in ca.crt tls.crt tls.key; do
    if [[ ! -f "$CERTS/$f" ]]; then
      CERTS_PROBLEM="zoneguard certs did not write ca.crt, tls.crt and tls.key: $(ls "$CERTS")"
      return 1
    fi
  done
  CA_BUNDLE="$(tail -n 1 "$LOGS/certs.out")"
  if [[ "$CA_BUNDLE" != "$(base64 -w0 <"$ca_crt")" ]]; then
    CERTS_PROBLEM="the caBundle zoneguard certs printed is not base64 of ca.crt"
    return 1
  fi
  if ! openssl verify -CAfile "$ca_crt" "$serving_crt" >/dev/null 2>&1; then
    CERTS_PROBLEM="tls.crt does not verify against ca.crt"
    return 1
  fi
  sans="$(openssl x509 -in "$serving_crt" -noout -ext subjectAltName 2>/dev/null || true)"
  if ! grep -q 'DNS:zoneguard.zoneguard.svc' <<<"$sans"; then
    CERTS_PROBLEM="tls.crt does not name zoneguard.zoneguard.svc ($sans)"
    return 1
  fi
  say "signing a serving certificate for $WEBHOOK_HOST with the CA from zoneguard certs"
  CA_DIR="$CERTS" webhook_cert webhook-loopback "$WEBHOOK_HOST"
  TLS_CRT="$PKI/webhook-loopback.crt" TLS_KEY="$PKI/webhook-loopback.key"
}
CERTS_PROBLEM=""
CA_BUNDLE=""
if make_webhook_certs; then
  report "zoneguard certs writes a CA, a serving certificate and the caBundle" "" ""
else
  report "zoneguard certs writes a CA, a serving certificate and the caBundle" "$CERTS_PROBLEM" \
    "$(cat "$LOGS/certs.log" 2>/dev/null)"
  say "NOTE: using an openssl CA and certificate for the webhook instead"
  webhook_cert webhook "$WEBHOOK_HOST"
  TLS_CRT="$PKI/webhook.crt" TLS_KEY="$PKI/webhook.key"
  CA_BUNDLE="$(base64 -w0 <"$PKI/ca.crt")"
fi

# The overlay: manifests/ with each webhook's clientConfig pointing at the
# local process (webhook_overlay in tests/e2e/lib.sh).
OVERLAY="$WORK/overlay"
webhook_overlay "https://$WEBHOOK_HOST:$WEBHOOK_PORT" "$CA_BUNDLE"
"$KUBECTL" kustomize "$OVERLAY" >"$WORK/installed.yaml"
hooks=$(wc -l <"$WORK/webhooks.txt")
urls=$(grep -c "url: https://$WEBHOOK_HOST:$WEBHOOK_PORT/" "$WORK/installed.yaml" || true)
[[ "$hooks" -eq "$urls" ]] || die "overlay left $((hooks - urls)) webhook(s) without the local url"
if grep -qE '^ +service:$' <(awk '/^webhooks:/,0' "$WORK/installed.yaml"); then
  die "overlay left a service reference in a webhook clientConfig"
fi
quiet kc apply -k "$OVERLAY" || die "installing the manifests failed (see $LOGS/setup.log)"

rules_configmap() { # rules_configmap NAME RULES-YAML
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: zoneguard\n' "$1"
  printf '  labels:\n    zoneguard.io/rules: "true"\ndata:\n  rules.yaml: |\n'
  printf '%s\n' "$2" | sed -e 's/^/    /'
}
apply() { kc apply -f - "$@"; }
# rule_configmap_added WHAT NAME RULES-YAML: the case "a rule ConfigMap WHAT is accepted", which
# creates the rule ConfigMap NAME; rule_configmap_deleted WHAT NAME: the case that deletes it.
rule_configmap_added() {
  check "a rule ConfigMap $1 is accepted" ok "configmap/$2 created" -- apply < <(rules_configmap "$2" "$3")
}
rule_configmap_deleted() {
  check "the $1 rule ConfigMap deleted" ok "deleted" -- kc delete configmap "$2" --namespace zoneguard
}
# The shipped rule ConfigMap is an empty starter; the cases below run on the suite's own rules,
# put in its place as a platform team would edit it.
quiet apply < <(rules_configmap zoneguard-rules "$(<"$ROOT/tests/e2e/rules.yaml")") ||
  die "applying the suite's rules (tests/e2e/rules.yaml) failed"

# zoneguard talks to the API server as its own ServiceAccount, with the
# shipped Role: the RBAC is tested along with everything else.
token="$(kc create token zoneguard --namespace zoneguard --duration 2h)" || die "kubectl create token failed"
ZG_KCFG="$WORK/zoneguard.kubeconfig"
kubeconfig "$ZG_KCFG" "      token: $token"

# moto's IAM/STS server stands in for AWS (scripts/moto.sh installs it), serving the account the
# suite's rules (tests/e2e/rules.yaml) allow; zoneguard reads live trust policies from it for `irsa.source: iam`.
MOTO_SERVER="$("$ROOT/scripts/moto.sh")" || die "scripts/moto.sh failed"
MOTO_PY="$(dirname "$MOTO_SERVER")/python"
free_port MOTO_PORT
start moto env MOTO_ACCOUNT_ID=111122223333 "$MOTO_SERVER" -H 127.0.0.1 -p "$MOTO_PORT"
wait_until 60 "$BG_PID" moto curl -fsS -o /dev/null "http://127.0.0.1:$MOTO_PORT/moto-api/" ||
  die "moto did not start (see $LOGS/moto.log)"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1

# launch_zoneguard RULES-ARGS...: starts `zoneguard serve` in the background.
launch_zoneguard() {
  start zoneguard env KUBECONFIG="$ZG_KCFG" POD_NAME=zoneguard-e2e-pod "$ZONEGUARD_BIN" serve \
    --aws-endpoint-url "http://127.0.0.1:$MOTO_PORT" \
    --listen "127.0.0.1:$WEBHOOK_PORT" \
    --probe-listen "127.0.0.1:$PROBE_PORT" \
    --tls-cert "$TLS_CRT" --tls-key "$TLS_KEY" \
    --mutating-webhook-configuration zoneguard \
    "$@"
  SERVE_PID=$BG_PID
}
readyz() { curl -fsS "http://127.0.0.1:$PROBE_PORT/readyz"; }
# start_zoneguard RULES-ARGS...: starts `zoneguard serve` and waits for /readyz.
start_zoneguard() {
  launch_zoneguard "$@"
  wait_until 60 "$SERVE_PID" zoneguard readyz
}
SERVE_UP=true
echo "# zoneguard serve"
if start_zoneguard --rules-namespace zoneguard; then
  report "zoneguard serve ready with rules from ConfigMaps" "" ""
  RULES_FROM="configmap"
else
  report "zoneguard serve ready with rules from ConfigMaps" "not ready (see $LOGS/zoneguard.log)" \
    "$(tail -n 5 "$LOGS/zoneguard.log" 2>/dev/null)"
  # Fall back to the same rules as a file, so the admission cases still run;
  # the rule ConfigMap cases below then fail, as they should.
  stop_pid "$SERVE_PID"
  mv "$LOGS/zoneguard.log" "$LOGS/zoneguard-configmaps.log"
  kc get configmap zoneguard-rules --namespace zoneguard -o 'jsonpath={.data.rules\.yaml}' >"$WORK/rules.yaml"
  if start_zoneguard --rules "$WORK/rules.yaml"; then
    RULES_FROM="file"
    say "NOTE: zoneguard serve runs with --rules $WORK/rules.yaml (ConfigMap rules unavailable)"
  else
    SERVE_UP=false
    say "zoneguard serve is not ready: the webhook cases below are expected to fail"
  fi
fi
$SERVE_UP && say "zoneguard serve ready on 127.0.0.1:$WEBHOOK_PORT, rules from $RULES_FROM ($(($(date +%s) - started))s since start)"

for ns in team-a team-b external-dns; do
  quiet kc create namespace "$ns" || true
done

# ------------------------------------------------------------- manifests ----
ingress() { # ingress NAMESPACE NAME HOST [TLS-HOST...]
  local ns="$1" name="$2" host="$3" t
  shift 3
  cat <<EOF
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: $name
  namespace: $ns
spec:
  rules:
    - host: $host
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service: {name: web, port: {number: 80}}
EOF
  if [[ $# -gt 0 ]]; then
    printf '  tls:\n    - secretName: %s-tls\n      hosts:\n' "$name"
    for t in "$@"; do printf '        - %s\n' "$t"; done
  fi
}
service() { # service NAMESPACE NAME TYPE [ANNOTATION=VALUE...]
  local ns="$1" name="$2" type="$3" a
  shift 3
  printf 'apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\n' "$name" "$ns"
  if [[ $# -gt 0 ]]; then
    printf '  annotations:\n'
    for a in "$@"; do printf '    %s: "%s"\n' "${a%%=*}" "${a#*=}"; done
  fi
  printf 'spec:\n  type: %s\n  selector: {app: %s}\n  ports:\n    - {port: 80, targetPort: 8080}\n' "$type" "$name"
}
serviceaccount() { # serviceaccount NAMESPACE NAME [ROLE-ARN]
  printf 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\n  namespace: %s\n' "$2" "$1"
  [[ -n "${3:-}" ]] && printf '  annotations:\n    eks.amazonaws.com/role-arn: "%s"\n' "$3"
  return 0
}
route() { # route KIND NAMESPACE NAME HOST: an HTTPRoute, GRPCRoute or TLSRoute (all v1)
  cat <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: $1
metadata:
  name: $3
  namespace: $2
spec:
  parentRefs:
    - name: public
  hostnames: ["$4"]
  rules:
    - backendRefs:
        - {name: web, port: 443}
EOF
}
gateway() { # gateway NAMESPACE NAME HOST: a Gateway with one HTTP listener for HOST
  cat <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: $2
  namespace: $1
spec:
  gatewayClassName: public
  listeners:
    - {name: http, protocol: HTTP, port: 80, hostname: "$3"}
EOF
}
listenerset() { # listenerset NAMESPACE NAME HOST: a ListenerSet adding one HTTP listener for HOST to the Gateway gw
  cat <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: $2
  namespace: $1
spec:
  parentRef: {name: gw, namespace: default}
  listeners:
    - {name: http, protocol: HTTP, port: 80, hostname: "$3"}
EOF
}
l4route() { # l4route KIND NAMESPACE NAME [HOST]: a TCPRoute or UDPRoute (they have no hostnames), HOST in the hostname annotation
  printf 'apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: %s\nmetadata:\n  name: %s\n  namespace: %s\n' "$1" "$3" "$2"
  [[ -n "${4:-}" ]] && printf '  annotations:\n    external-dns.alpha.kubernetes.io/hostname: "%s"\n' "$4"
  printf 'spec:\n  parentRefs:\n    - name: public\n  rules:\n    - backendRefs:\n        - {name: backend, port: 5353}\n'
}
dnsendpoint() { # dnsendpoint NAMESPACE NAME DNSNAME
  cat <<EOF
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: $2
  namespace: $1
spec:
  endpoints:
    - dnsName: $3
      recordType: A
      recordTTL: 300
      targets: [192.0.2.10]
EOF
}
get_annotation() { # get_annotation KIND NAMESPACE NAME KEY
  kc get "$1" "$3" --namespace "$2" -o "jsonpath={.metadata.annotations.${4//./\\.}}"
}

DENIED='admission webhook "hostnames.zoneguard.io" denied the request'
SA_DENIED='admission webhook "serviceaccounts.zoneguard.io" denied the request'
RULES_DENIED='admission webhook "rules.zoneguard.io" denied the request'
ROLE=arn:aws:iam::111122223333:role/external-dns
P=external-dns.alpha.kubernetes.io

admitted_dry() { apply --dry-run=server < <(ingress default "$1" "$2"); }
denied_dry() { ! admitted_dry "$@"; }

# Ready must mean the rules are in force; wait until they visibly are, so a
# slow first load cannot turn into flaky cases below.
if $SERVE_UP && ! eventually "$RELOAD_TIMEOUT" denied_dry probe probe.example.net; then
  say "WARNING: zoneguard is ready but probe.example.net is still admitted: rules not in force"
fi

# ------------------------------------------------------------------ cases ----
echo "# hostnames"
check "Ingress inside the filters admitted" ok "ingress.networking.k8s.io/web created" -- \
  apply < <(ingress default web web.example.com web.example.com)
check "Ingress outside the filters rejected with the message" fail \
  "Error from server (Forbidden)" "$DENIED" "shop.example.net" "spec.rules[0].host" -- \
  apply < <(ingress default shop shop.example.net)
# The audit log's event of that create carries the reason code, under the webhook's name.
check "the API server's audit event of the refused create names the reason" ok \
  '"hostnames.zoneguard.io/reasons":"hostname-outside-filters"' -- \
  grep -h '"name":"shop"' "$LOGS/audit.log"
check "Ingress TLS host outside the filters rejected" fail \
  "$DENIED" "other.example.net" "spec.tls[0].hosts[1]" -- \
  apply < <(ingress default web2 web2.example.com web2.example.com other.example.net)
check "Ingress under an excluded domain rejected" fail "$DENIED" "db.internal.example.com" -- \
  apply < <(ingress default db db.internal.example.com)
quiet apply < <(service default plain ClusterIP) || true
check "kubectl annotate Service outside the filters rejected (UPDATE)" fail \
  "$DENIED" "plain.example.net" -- \
  kc annotate service plain "$P/hostname=plain.example.net"
check_eq "rejected annotation is not stored" "" get_annotation service default plain "$P/hostname"
check "a Service left to another DNS controller admitted, with a warning saying external-dns skips it" \
  ok "service/elsewhere created" "external-dns skips this object" -- \
  apply < <(service default elsewhere LoadBalancer "$P/controller=other" \
    "external-dns.kubernetes.io/controller=other" "$P/hostname=elsewhere.example.net")
check "a Service whose target annotation mixes an IP address and a DNS name rejected" fail \
  "$DENIED" "$P/target" "mixes an IP address (192.0.2.7) with a DNS name (lb.example.com)" -- \
  apply --dry-run=server < <(service default mixed LoadBalancer "$P/hostname=mixed.example.com" \
    "$P/target=192.0.2.7,lb.example.com")
check "an Ingress whose target annotation is a URL rejected, told the host to write" fail \
  "$DENIED" "write the host alone: lb.example.com" -- \
  apply --dry-run=server < <(ingress default url url.example.com |
    sed "s|^  namespace: default$|&\n  annotations: {$P/target: 'https://lb.example.com/'}|")

echo "# injected annotations"
# zoneguard keeps the mutating webhook's `zoneguard-inject-rules` condition in step with the
# inject rules (manifests/inject-conditions), so /mutate sees only what a rule may change.
condition_has() { [[ "$(inject_condition)" == *"$1"* ]]; }
mutate_requests() { # the /mutate requests zoneguard answered
  curl -fsS "http://127.0.0.1:$PROBE_PORT/metrics" |
    awk '/^zoneguard_admission_requests_total\{.*endpoint="mutate"/ { n += $NF } END { print n + 0 }'
}
takes_effect "the mutating webhook carries the inject rules' condition" "no such condition" \
  condition_has 'request.kind.kind in ["Service"] && (request.kind.kind != "Service" || ((has(object.spec) && has(object.spec.type)) ? object.spec.type : "ClusterIP") in ["LoadBalancer"])'
before=$(mutate_requests)
check "a ClusterIP Service no inject rule selects admitted" ok "service/no-inject created" -- \
  apply < <(service default no-inject ClusterIP)
check_eq "the API server did not send it to /mutate" "$before" mutate_requests
# zoneguard writes the condition again whenever a webhook lacks it.
condition_back() { condition_has 'request.kind.kind in ["Service"]'; }
check "the condition removed by hand" ok "patched" -- kc patch mutatingwebhookconfiguration zoneguard \
  --type=json -p '[{"op":"remove","path":"/webhooks/0/matchConditions"}]'
takes_effect "zoneguard writes the removed condition again" "no condition" condition_back
# The configuration as installed (no server-set fields, no condition), to create it again.
kc get mutatingwebhookconfiguration zoneguard -o json | python3 -c '
import json, sys
c = json.load(sys.stdin)
c["metadata"] = {"name": c["metadata"]["name"], "labels": c["metadata"].get("labels", {})}
for w in c["webhooks"]:
    w.pop("matchConditions", None)
json.dump(c, sys.stdout)' >"$WORK/mutating.json"
check "the MutatingWebhookConfiguration deleted" ok "deleted" -- \
  kc delete mutatingwebhookconfiguration zoneguard
check "and created again as installed, without the condition" ok "created" -- kc create -f "$WORK/mutating.json"
takes_effect "zoneguard writes the condition on the new configuration" "no condition" condition_back
# `kubectl apply` of the configuration as installed does not name the condition, so leaves it.
kind_documents MutatingWebhookConfiguration <"$WORK/installed.yaml" >"$WORK/mutating-installed.yaml"
mutating_generation() { kc get mutatingwebhookconfiguration zoneguard -o 'jsonpath={.metadata.generation}'; }
generation=$(mutating_generation)
check "kubectl apply of the MutatingWebhookConfiguration as installed" ok "mutatingwebhookconfiguration" -- \
  kc apply -f "$WORK/mutating-installed.yaml"
check_eq "leaves its webhooks as they were (generation unchanged)" "$generation" mutating_generation
check "and the condition in place" ok -- condition_back
check "LoadBalancer Service admitted" ok "service/lb created" -- apply < <(service default lb LoadBalancer)
mutate_grew() { [[ $(mutate_requests) -gt $before ]]; }
check "the API server sent the LoadBalancer Service to /mutate" ok -- mutate_grew
check_eq "LoadBalancer Service gets the injected hostname" "lb.default.example.com" \
  get_annotation service default lb "$P/hostname"
check_eq "LoadBalancer Service gets the injected ttl" "60" get_annotation service default lb "$P/ttl"
check "LoadBalancer Service with its own hostname admitted" ok -- \
  apply < <(service default lb-own LoadBalancer "$P/hostname=shop.example.com")
check_eq "user-set hostname annotation is not overwritten" "shop.example.com" \
  get_annotation service default lb-own "$P/hostname"
check_eq "ttl still injected beside the user's hostname" "60" get_annotation service default lb-own "$P/ttl"
check "applying the same LoadBalancer Service again is unchanged" ok "service/lb unchanged" -- \
  apply < <(service default lb LoadBalancer)
check "NodePort Service with a hostname admitted (its SRV names fit)" ok "service/np created" -- \
  apply < <(service default np NodePort external-dns.alpha.kubernetes.io/hostname=np.example.com)
# A Service name of 63 characters makes an SRV name whose first label, `_<name>`, has 64.
LONG_SVC="web-$(printf 'x%.0s' {1..59})"
check "NodePort Service whose SRV name has a label over 63 octets rejected" fail "$DENIED" \
  "_$LONG_SVC._tcp.np.example.com" "spec.ports[0]" -- \
  apply < <(service default "$LONG_SVC" NodePort external-dns.alpha.kubernetes.io/hostname=np.example.com)

# An inject rule whose value the rules refuse: 60 characters make `cname-<name>`, the TXT
# record's first label, longer than 63 octets. The Service exists with its own hostname first.
FIN_SVC=payments-settlement-reconciliation-worker-public-endpoint-v4
held_service() {
  service default "$FIN_SVC" LoadBalancer "$P/hostname=pay.example.com" |
    sed -e 's/^metadata:$/metadata:\n  finalizers: [example.com\/hold]/'
}
check "a LoadBalancer Service with its own hostname and a finalizer admitted" ok "created" -- \
  apply < <(held_service)
check "removing its hostname admits the update without injecting the refused name" ok \
  "Warning:" "(not injected; the update is admitted without it)" -- \
  kc annotate service "$FIN_SVC" "$P/hostname-"
check "the refused name was not written" ok "not:$FIN_SVC.default.example.com" -- \
  kc get service "$FIN_SVC" -o 'jsonpath={.metadata.annotations}'
check "the Service is deleted (held by its finalizer)" ok "deleted" -- \
  kc delete service "$FIN_SVC" --wait=false
check "its finalizer is removed: an object being deleted is never checked" ok "patched" "not:Warning" -- \
  kc patch service "$FIN_SVC" --type=merge -p '{"metadata":{"finalizers":null}}'
service_gone() { ! kc get service "$FIN_SVC" >/dev/null 2>&1; }
check "and the Service is gone" ok -- eventually 10 service_gone

echo "# IRSA ServiceAccounts"
check "ServiceAccount with a mismatched role ARN rejected with the nearest miss" fail \
  "$SA_DENIED" "system:serviceaccount:external-dns:external-dns" "system:serviceaccount:team-a:external-dns" -- \
  apply < <(serviceaccount team-a external-dns "$ROLE")
check "ServiceAccount with a matching role ARN admitted" ok "serviceaccount/external-dns created" -- \
  apply < <(serviceaccount external-dns external-dns "$ROLE")
check "a token lifetime the pod identity webhook ignores admitted with a warning" ok \
  "Warning:" "is not a whole number of seconds" -- \
  kc annotate serviceaccount external-dns --namespace external-dns eks.amazonaws.com/token-expiration=1h
check "a token lifetime the API server refuses in pods rejected" fail "$SA_DENIED" "above 2^32 s" -- \
  kc annotate serviceaccount external-dns --namespace external-dns --overwrite \
  eks.amazonaws.com/token-expiration=5000000000
check "ServiceAccount with a malformed role ARN rejected" fail "$SA_DENIED" "arn:aws:iam::1234:role/x" -- \
  apply < <(serviceaccount default broken arn:aws:iam::1234:role/x)
check "ServiceAccount without a role ARN admitted" ok "serviceaccount/plain created" -- \
  apply < <(serviceaccount default plain)

# A ServiceAccount admitted while its role's trust policy was unknown (unknownRole: warn); the
# policy, added later, does not admit it. Its next update keeps it, with the nearest miss as a
# warning: that text has two lines, and the API server drops a warning with a newline.
LEGACY_ROLE=arn:aws:iam::111122223333:role/legacy
LEGACY_ISSUER=oidc.eks.ap-northeast-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B716D3041E
check "a ServiceAccount whose role's trust policy is unknown admitted with a warning" ok \
  "Warning:" "zoneguard does not know this role's trust policy" -- \
  apply < <(serviceaccount team-a legacy "$LEGACY_ROLE")
rule_configmap_added "with the legacy role's trust policy" zoneguard-rules-legacy \
  "irsa: {trustPolicies: {\"$LEGACY_ROLE\": {Version: \"2012-10-17\", Statement: [{Effect: Allow, Principal: {Federated: \"arn:aws:iam::111122223333:oidc-provider/$LEGACY_ISSUER\"}, Action: \"sts:AssumeRoleWithWebIdentity\", Condition: {StringEquals: {\"$LEGACY_ISSUER:sub\": \"system:serviceaccount:other:app\"}}}]}}}"
legacy_refused() { ! apply --dry-run=server < <(serviceaccount team-a fresh "$LEGACY_ROLE") >/dev/null 2>&1; }
takes_effect "the legacy role's trust policy takes effect" "a new ServiceAccount was still admitted" legacy_refused
check "its next update is admitted, the two-line nearest miss passed on as one warning" ok \
  "Warning:" "already present before this update" \
  'which must match IAM (or use a role that trusts `system:serviceaccount:team-a:legacy`): {"Effect"' -- \
  kc label serviceaccount legacy --namespace team-a touched=yes
rule_configmap_deleted "legacy role's" zoneguard-rules-legacy

echo "# IRSA with live IAM (moto)"
ISSUER=oidc.eks.ap-northeast-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B716D3041E
LIVE_ROLE=arn:aws:iam::111122223333:role/e2e-live
create_live_role() {
  "$MOTO_PY" - "http://127.0.0.1:$MOTO_PORT" "$ISSUER" <<'PY'
import json, sys, boto3
endpoint, issuer = sys.argv[1], sys.argv[2]
iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1")
trust = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow",
    "Principal": {"Federated": f"arn:aws:iam::111122223333:oidc-provider/{issuer}"},
    "Action": "sts:AssumeRoleWithWebIdentity",
    "Condition": {"StringEquals": {f"{issuer}:sub": "system:serviceaccount:iam-e2e:app",
                                   f"{issuer}:aud": "sts.amazonaws.com"}}}]}
iam.create_role(RoleName="e2e-live", AssumeRolePolicyDocument=json.dumps(trust))
PY
}
quiet kc create namespace iam-e2e || true
check "a role is created in the local IAM endpoint" ok -- create_live_role
check "a rule ConfigMap turning on live IAM lookups is accepted" ok "configmap/zoneguard-rules-iam created" -- \
  apply < <(rules_configmap zoneguard-rules-iam 'irsa: {source: iam}')
live_refuses() { ! apply --dry-run=server < <(serviceaccount iam-e2e other "$LIVE_ROLE") >/dev/null 2>&1; }
takes_effect "the live IAM rules take effect without a restart" \
  "a ServiceAccount the live trust policy refuses was still admitted" live_refuses
check "ServiceAccount admitted by the role's live trust policy" ok "serviceaccount/app created" -- \
  apply < <(serviceaccount iam-e2e app "$LIVE_ROLE")
check "ServiceAccount refused by the role's live trust policy, with the nearest miss" fail \
  "$SA_DENIED" "system:serviceaccount:iam-e2e:app" "system:serviceaccount:iam-e2e:other" -- \
  apply < <(serviceaccount iam-e2e other "$LIVE_ROLE")
check "a role that IAM does not have is refused" fail "$SA_DENIED" "does not exist" -- \
  apply < <(serviceaccount iam-e2e ghost arn:aws:iam::111122223333:role/e2e-missing)
quiet kc delete configmap zoneguard-rules-iam --namespace zoneguard || true

echo "# namespace delegation"
check "team-a may use its delegated subdomain" ok "ingress.networking.k8s.io/app created" -- \
  apply < <(ingress team-a app app.team-a.example.com)
check "team-a may not claim login.example.com" fail "$DENIED" "login.example.com" -- \
  apply < <(ingress team-a login login.example.com)
check "team-b may not use team-a's subdomain" fail "$DENIED" "app.team-a.example.com" -- \
  apply < <(ingress team-b app app.team-a.example.com)

echo "# Gateway API and DNSEndpoint"
for kind in HTTPRoute GRPCRoute TLSRoute; do
  singular="${kind,,}"
  check "$kind inside the filters admitted" ok "$singular.gateway.networking.k8s.io/route created" -- \
    apply < <(route "$kind" default route route.example.com)
  check "$kind outside the filters rejected" fail "$DENIED" "route.example.net" "spec.hostnames[0]" -- \
    apply < <(route "$kind" default route2 route.example.net)
done
check "Gateway listener inside the filters admitted" ok "gateway.gateway.networking.k8s.io/gw created" -- \
  apply < <(gateway default gw gw.example.com)
check "Gateway listener outside the filters rejected" fail "$DENIED" "gw.example.net" \
  "spec.listeners[0].hostname" -- apply < <(gateway default gw2 gw.example.net)
check "ListenerSet listener inside the filters admitted" ok "listenerset.gateway.networking.k8s.io/ls created" -- \
  apply < <(listenerset default ls ls.example.com)
check "ListenerSet listener outside the filters rejected" fail "$DENIED" "ls.example.net" \
  "spec.listeners[0].hostname" -- apply < <(listenerset default ls2 ls.example.net)
check "ListenerSet listener outside its namespace's domains rejected" fail "$DENIED" "ls.team-b.example.com" \
  "outside this namespace's domains" -- apply < <(listenerset team-a ls3 ls.team-b.example.com)
for kind in TCPRoute UDPRoute; do
  singular="${kind,,}"
  check "$kind hostname annotation inside the filters admitted" ok \
    "$singular.gateway.networking.k8s.io/l4 created" -- apply < <(l4route "$kind" default l4 l4.example.com)
  check "$kind hostname annotation outside the filters rejected" fail "$DENIED" "l4.example.net" \
    'metadata.annotations["external-dns.alpha.kubernetes.io/hostname"]' -- \
    apply < <(l4route "$kind" default l4-out l4.example.net)
done
check "DNSEndpoint inside the filters admitted" ok "dnsendpoint.externaldns.k8s.io/ep created" -- \
  apply < <(dnsendpoint default ep ep.example.com)
check "DNSEndpoint outside the filters rejected" fail "$DENIED" "ep.example.net" -- \
  apply < <(dnsendpoint default ep2 ep.example.net)
check "DNSEndpoint of an underscore record (a DNS-01 challenge) admitted" ok \
  "dnsendpoint.externaldns.k8s.io/acme created" -- \
  apply < <(dnsendpoint default acme _acme-challenge.ep.example.com)

echo "# excluded namespaces"
check "kube-system not affected: Ingress outside the filters admitted" ok -- \
  apply < <(ingress kube-system evil evil.example.net)
check "kube-system not affected: ServiceAccount with a foreign role admitted" ok -- \
  apply < <(serviceaccount kube-system foreign arn:aws:iam::999999999999:role/other)
quiet apply < <(service kube-system lb LoadBalancer) || true
check_eq "kube-system not affected: LoadBalancer Service gets no injected hostname" "" \
  get_annotation service kube-system lb "$P/hostname"

echo "# server-side dry run"
check "dry run outside the filters gets the same denial" fail "$DENIED" "dry.example.net" "spec.rules[0].host" -- \
  apply --dry-run=server < <(ingress default dry dry.example.net)
check "dry run inside the filters admitted" ok "(server dry run)" -- \
  apply --dry-run=server < <(ingress default dry dry.example.com)
check "dry run created nothing" fail "NotFound" -- kc get ingress dry --namespace default

echo "# rule ConfigMaps"
check "a second rule ConfigMap is accepted" ok "configmap/zoneguard-rules-extra created" -- \
  apply < <(rules_configmap zoneguard-rules-extra 'domainFilters: [example.org]')
takes_effect "a new rule ConfigMap takes effect without a restart" \
  "www.example.org still refused" admitted_dry www www.example.org
check "an Ingress under the new rule ConfigMap's domain created" ok \
  "ingress.networking.k8s.io/site created" -- apply < <(ingress default site site.example.org)
check "rule ConfigMap edited" ok "configmap/zoneguard-rules-extra configured" -- \
  apply < <(rules_configmap zoneguard-rules-extra 'domainFilters: [example.io]')
io_in_org_out() { admitted_dry www www.example.io && denied_dry www www.example.org; }
takes_effect "a rule ConfigMap edit takes effect without a restart" \
  "example.io not admitted or example.org not refused" io_in_org_out
check "a rule ConfigMap edit with a domain filter written as a pattern is admitted with a warning at its line" ok \
  "configmap/zoneguard-rules-extra configured (server dry run)" "Warning:" \
  'data["rules.yaml"] line 1: domainFilters[0]: "*.example.io" is a domain, not a pattern' -- \
  apply --dry-run=server < <(rules_configmap zoneguard-rules-extra 'domainFilters: ["*.example.io"]')
# The README's audit: zoneguard check on the rule ConfigMaps and the objects the cluster holds.
audit() {
  kc get configmaps --namespace zoneguard --selector zoneguard.io/rules=true -o yaml \
    >"$WORK/rules-in-force.yaml" &&
    kc get ingresses,services,serviceaccounts -A -o yaml \
      --field-selector metadata.namespace!=kube-system,metadata.namespace!=zoneguard |
    "$ZONEGUARD_BIN" check --rules "$WORK/rules-in-force.yaml" -
}
check "zoneguard check on the cluster's rule ConfigMaps finds the Ingress the edit left outside" fail \
  "Ingress default/site: DENIED" '"site.example.org" is outside' "[hostname-outside-filters]" \
  "Ingress default/web: admitted" "not:zoneguard check:" "not:kube-system" "not: zoneguard/" -- audit
# A stream of JSON objects, one after another (as `jq '.items[]'` writes them): kubectl applies
# each, and zoneguard check reads each, with the same verdicts.
json_stream() { local h; for h in "$@"; do kc create --dry-run=client -o json -f - < <(ingress default "${h%%.*}" "$h"); done; }
json_stream jsa.example.com jsb.example.net >"$WORK/stream.json"
check "kubectl applies a stream of JSON objects: the first admitted, the second denied" fail \
  "ingress.networking.k8s.io/jsa created (server dry run)" "$DENIED" "jsb.example.net" -- \
  kc apply --dry-run=server -f "$WORK/stream.json"
check "zoneguard check reads the same stream with the same verdicts" fail \
  "Ingress default/jsa: admitted" "Ingress default/jsb: DENIED" "2 checked: 1 admitted, 1 denied" -- \
  "$ZONEGUARD_BIN" check --rules "$WORK/rules-in-force.yaml" "$WORK/stream.json"
# class_ingress NAME HOST CLASS [KEY=VALUE]: `ingress default NAME HOST` of that ingress class,
# with the annotation KEY=VALUE.
class_ingress() {
  local ann=""
  [[ -n "${4:-}" ]] && ann="  annotations: {\"${4%%=*}\": \"${4#*=}\"}"
  ingress default "$1" "$2" |
    sed -e "s/^spec:$/spec:\n  ingressClassName: $3/" -e "${ann:+s|^  namespace: default$|&\n$ann|}"
}
class_admitted() { apply --dry-run=server < <(class_ingress "$@"); }
class_denied() { ! class_admitted "$@"; }
rule_configmap_added "naming the ingress classes and Service types external-dns reads" \
  zoneguard-rules-classes 'sources: {ingressClassNames: [public], serviceTypeFilter: [LoadBalancer]}'
takes_effect "an Ingress of a class external-dns does not read is admitted unchecked" \
  "intranet.corp.internal still refused" class_admitted intranet intranet.corp.internal internal
check "an Ingress of the class external-dns reads is still checked" fail "$DENIED" "pub.corp.internal" -- \
  class_admitted pub pub.corp.internal public
check "an annotated Ingress of another class admitted with a warning that external-dns skips it" ok \
  "Warning:" 'spec.ingressClassName is "internal", not a class external-dns reads' \
  "external-dns skips this Ingress" -- \
  class_admitted noted noted.corp.internal internal external-dns.alpha.kubernetes.io/ttl=60
check "a NodePort Service, of a type external-dns does not read, admitted with a warning" ok \
  "Warning:" 'spec.type is "NodePort", not a type external-dns reads' "external-dns skips this Service" -- \
  apply --dry-run=server < <(service default skipped NodePort external-dns.alpha.kubernetes.io/hostname=np.example.net)
rule_configmap_deleted "ingress class" zoneguard-rules-classes
takes_effect "with it deleted, an Ingress of any class is checked again" \
  "intranet.corp.internal still admitted" class_denied intranet intranet.corp.internal internal
# labelled_ingress NAME HOST LABELS [ANNOTATIONS]: `ingress default NAME HOST` with those labels
# and annotations, each a YAML flow mapping.
labelled_ingress() {
  ingress default "$1" "$2" | sed -e "s|^  namespace: default$|&\n  labels: $3${4:+\n  annotations: $4}|"
}
labelled_admitted() { apply --dry-run=server < <(labelled_ingress "$@"); }
labelled_denied() { ! labelled_admitted "$@"; }
rule_configmap_added "with external-dns's label and annotation filters" zoneguard-rules-selectors \
  "sources: {labelFilter: 'dns in (public)', annotationFilter: '!example.com/no-dns'}"
takes_effect "an Ingress external-dns's label filter leaves out is admitted unchecked" \
  "private.corp.internal still refused" labelled_admitted private private.corp.internal '{dns: private}'
check "an Ingress the label filter selects is still checked" fail "$DENIED" "pub2.corp.internal" -- \
  labelled_admitted pub2 pub2.corp.internal '{dns: public}'
check "an Ingress that asks for DNS but opts out by the annotation filter is admitted with a warning" ok \
  "Warning:" 'metadata.annotations do not meet sources.annotationFilter "!example.com/no-dns"' \
  "external-dns skips this Ingress" -- labelled_admitted optout optout.corp.internal '{dns: public}' \
  '{example.com/no-dns: "yes", external-dns.alpha.kubernetes.io/ttl: "60"}'
rule_configmap_deleted selector zoneguard-rules-selectors
takes_effect "with it deleted, an Ingress of any labels is checked again" \
  "private.corp.internal still admitted" labelled_denied private private.corp.internal '{dns: private}'
rule_configmap_added "naming the one namespace external-dns reads" zoneguard-rules-namespace \
  "sources: {namespace: dns-public}"
takes_effect "an Ingress in another namespace is admitted unchecked" \
  "elsewhere.corp.internal still refused" labelled_admitted elsewhere elsewhere.corp.internal '{}'
rule_configmap_deleted namespace zoneguard-rules-namespace
takes_effect "with it deleted, an Ingress in any namespace is checked again" \
  "elsewhere.corp.internal still admitted" labelled_denied elsewhere elsewhere.corp.internal '{}'
kops_service() { apply --dry-run=server < <(service default legacy LoadBalancer dns.alpha.kubernetes.io/external=legacy.corp.internal); }
kops_refused() { ! kops_service; }
rule_configmap_added "with external-dns's --compatibility=kops-dns-controller" zoneguard-rules-compat \
  "sources: {compatibility: kops-dns-controller}"
takes_effect "a LoadBalancer Service whose kops annotation names a host outside the filters is refused" \
  "legacy.corp.internal still admitted" kops_refused
check "the refusal names the kops annotation" fail "$DENIED" \
  'metadata.annotations["dns.alpha.kubernetes.io/external"][0] "legacy.corp.internal"' -- kops_service
rule_configmap_deleted compatibility zoneguard-rules-compat
takes_effect "with it deleted, the kops annotation is not read" "legacy.corp.internal still refused" kops_service
public_route() { apply --dry-run=server < <(route HTTPRoute default viapublic viapublic.corp.internal); }
public_route_refused() { ! public_route; }
rule_configmap_added "naming the one Gateway external-dns publishes routes through" \
  zoneguard-rules-gateway "sources: {gatewayName: internal}"
takes_effect "an HTTPRoute attached only to another Gateway is admitted unchecked" \
  "viapublic.corp.internal still refused" public_route
rule_configmap_deleted Gateway zoneguard-rules-gateway
takes_effect "with it deleted, the HTTPRoute is checked again" \
  "viapublic.corp.internal still admitted" public_route_refused
# An Ingress and an HTTPRoute with no hostname of their own: the fqdn template names them.
unnamed_ingress() {
  apply --dry-run=server <<EOF
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: unnamed, namespace: default}
spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}
EOF
}
unnamed_route() {
  apply --dry-run=server <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: unnamed, namespace: default}
spec: {parentRefs: [{name: public}]}
EOF
}
unnamed_refused() { local out; out="$(unnamed_ingress 2>&1)"; [[ $out == *'"unnamed.default.corp.internal"'* ]]; }
check "an Ingress with no hostname is admitted while no fqdn template is set" ok -- unnamed_ingress
rule_configmap_added "with external-dns's fqdn template" zoneguard-rules-template \
  "sources: {fqdnTemplate: '{{.Name}}.{{.Namespace}}.corp.internal'}"
takes_effect "the name the template makes of an Ingress with none is checked" \
  "unnamed.default.corp.internal still admitted" unnamed_refused
check "the refusal names the template's name and the setting" fail "$DENIED" \
  "the name \"unnamed.default.corp.internal\" that the cluster's fqdn template (sources.fqdnTemplate) makes of this object" -- \
  unnamed_ingress
check "an HTTPRoute with no hostnames is checked on the template's name" fail "$DENIED" \
  '"unnamed.default.corp.internal"' -- unnamed_route
rule_configmap_deleted "fqdn template" zoneguard-rules-template
takes_effect "with it deleted, the Ingress with no hostname is admitted again" \
  "unnamed.default.corp.internal still refused" unnamed_ingress
# An inject rule added live: the mutating webhook's condition follows it, and then back.
ingress_ttl() {
  apply --dry-run=server -o "jsonpath={.metadata.annotations.${P//./\\.}/ttl}" \
    < <(ingress default ttl ttl.example.com)
}
ingress_ttl_is_300() { [[ "$(ingress_ttl)" == 300 ]]; }
condition_without_ingress() { condition_has '["Service"]' && ! condition_has '"Ingress"'; }
# A custom resource written with `annotations: null`: the condition must still hold (CEL's
# has() is true for a null value, and `k in null` would be an error).
null_annotated_route_ttl() {
  kc create --dry-run=server -o "jsonpath={.metadata.annotations.${P//./\\.}/ttl}" -f - <<'EOF'
{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
 "metadata": {"name": "nullann", "namespace": "default", "annotations": null},
 "spec": {"hostnames": ["nullann.example.com"], "parentRefs": [{"name": "public"}]}}
EOF
}
rule_configmap_added "with an inject rule for Ingresses and HTTPRoutes" zoneguard-rules-inject \
  "inject: [{kinds: [Ingress, HTTPRoute], namespaces: [default], annotations: {$P/ttl: '300'}}]"
takes_effect "the mutating webhook's condition follows the added inject rule" \
  "the condition does not name Ingresses" condition_has 'request.kind.kind in ["Ingress", "HTTPRoute"] && request.namespace in ["default"]'
takes_effect "an Ingress gets the annotation the added rule injects" "no ttl of 300" ingress_ttl_is_300
check_eq "an HTTPRoute written with annotations: null gets it too" "300" null_annotated_route_ttl
rule_configmap_deleted "inject" zoneguard-rules-inject
takes_effect "with it deleted, the condition no longer names Ingresses" \
  "the condition still names Ingresses" condition_without_ingress
check_eq "and an Ingress gets no ttl" "" ingress_ttl
# Many inject rules: the condition near its cap (64 KiB) is one the API server accepts and
# evaluates; over the cap it is `true` and every object is sent again.
bulk_rules() { # bulk_rules N: N inject rules for Ingresses, each in its own namespace, the last in default
  local i ns
  echo "inject:"
  for ((i = 0; i < $1; i++)); do
    ns="bulk-$i"
    [[ $i -eq $(($1 - 1)) ]] && ns=default
    printf '  - {kinds: [Ingress], namespaces: [%s], annotations: {zoneguard.io/bulk-%d: "%d"}}\n' "$ns" "$i" "$i"
  done
}
bulk_condition_is() { # bulk_condition_is LAST MIN-LENGTH: names bulk-LAST and is at least that long
  local c
  c="$(inject_condition)"
  [[ "$c" == *"\"zoneguard.io/bulk-$1\""* && ${#c} -ge $2 ]]
}
ingress_bulk() { # ingress_bulk N: the value /mutate gives an Ingress in default for the rule bulk-N
  apply --dry-run=server -o "jsonpath={.metadata.annotations.zoneguard\.io/bulk-$1}" \
    < <(ingress default bulk bulk.example.com)
}
condition_is_true() { [[ "$(inject_condition)" == true ]]; }
rule_configmap_added "with 300 inject rules" zoneguard-rules-bulk "$(bulk_rules 300)"
takes_effect "the condition of 300 inject rules (62 176 characters) is accepted by the API server" \
  "no such condition" bulk_condition_is 299 60000
check_eq "and an Ingress the last rule selects gets its annotation through it" "299" ingress_bulk 299
check "with 400 inject rules" ok "configmap/zoneguard-rules-bulk configured" -- \
  apply < <(rules_configmap zoneguard-rules-bulk "$(bulk_rules 400)")
takes_effect "the condition over 64 KiB is true instead" "not true" condition_is_true
check_eq "and an Ingress the last rule selects still gets its annotation" "399" ingress_bulk 399
rule_configmap_deleted "bulk inject" zoneguard-rules-bulk
takes_effect "with it deleted, the condition no longer names Ingresses" \
  "the condition still names Ingresses" condition_without_ingress
check "rule ConfigMap with a template external-dns would refuse is refused" fail "$RULES_DENIED" \
  "sources.fqdnTemplate" 'function "lower" not defined' -- \
  apply < <(rules_configmap zoneguard-rules-bad "sources: {fqdnTemplate: '{{lower .Name}}.example.com'}")
check "rule ConfigMap with a label filter external-dns would refuse is refused" fail "$RULES_DENIED" \
  "sources.labelFilter" "is not a selector external-dns accepts" -- \
  apply < <(rules_configmap zoneguard-rules-bad "sources: {labelFilter: 'env in (prod'}")
check "rule ConfigMap with a bad regex refused" fail "$RULES_DENIED" "regexDomainFilter" -- \
  apply < <(rules_configmap zoneguard-rules-bad 'regexDomainFilter: "(unclosed"')
check "rule ConfigMap with an unknown key and a bad value refused, both told at their lines" fail \
  "$RULES_DENIED" 'line 1: domainFilter: unknown key' 'line 2: enforcement: "block" is not' -- \
  apply < <(rules_configmap zoneguard-rules-bad 'domainFilter: [example.com]
enforcement: block')
check "rule ConfigMap with a misshapen key and a bad regex refused, both told in one apply" fail \
  "$RULES_DENIED" 'line 1: namespaces.team-a: must be a mapping' \
  'line 2: regexDomainFilter: "(unclosed" is not a valid regular expression' -- \
  apply < <(rules_configmap zoneguard-rules-bad 'namespaces: {team-a: [x]}
regexDomainFilter: "(unclosed"')
check "rule ConfigMap with a bad trust policy refused" fail "$RULES_DENIED" "$ROLE" -- \
  apply < <(rules_configmap zoneguard-rules-bad "irsa:
  trustPolicies:
    $ROLE: '{\"Statement\": '")
check "rule ConfigMap conflicting with another one refused" fail \
  "$RULES_DENIED" "re:zoneguard-rules([^-]|$)" "zoneguard-rules-bad" -- \
  apply < <(rules_configmap zoneguard-rules-bad 'enforcement: warn')
check "refused rule ConfigMaps were not stored" fail "NotFound" -- \
  kc get configmap zoneguard-rules-bad --namespace zoneguard
check "rules in force after refused edits" ok -- admitted_dry www2 www2.example.com

echo "# deleting every rule ConfigMap"
check "every rule ConfigMap deleted" ok "deleted" -- \
  kc delete configmap --namespace zoneguard --selector zoneguard.io/rules=true
sleep 2 # let the watcher see the deletions
check "with no rule ConfigMaps left, the last rules stay in force" fail "$DENIED" "gone.example.net" -- \
  apply --dry-run=server < <(ingress default gone gone.example.net)

echo "# zoneguard down"
if [[ -n "$SERVE_PID" ]]; then
  stop_pid "$SERVE_PID"
fi
check "with zoneguard stopped, a guarded write fails with a clear error (failurePolicy Fail)" fail \
  'failed calling webhook "hostnames.zoneguard.io"' -- \
  apply < <(ingress default down down.example.com)
check "with zoneguard stopped, kube-system objects still apply" ok "ingress.networking.k8s.io/down created" -- \
  apply < <(ingress kube-system down down.example.com)
check "with zoneguard stopped, a Service without external-dns annotations applies" ok -- \
  apply < <(service default down ClusterIP)
check "with zoneguard stopped, a UDPRoute without external-dns annotations applies" ok \
  "udproute.gateway.networking.k8s.io/down created" -- apply < <(l4route UDPRoute default down)
check "with zoneguard stopped, an annotated UDPRoute fails with a clear error" fail \
  'failed calling webhook "hostnames.zoneguard.io"' -- apply < <(l4route UDPRoute default down2 down.example.com)
check "with zoneguard stopped, a ServiceAccount without a role ARN applies" ok -- \
  apply < <(serviceaccount default down)
check "with zoneguard stopped, rule ConfigMaps can still be repaired" ok -- \
  apply < <(rules_configmap zoneguard-rules-extra 'domainFilters: [example.io, example.net]')

echo "# a broken rule edit made while zoneguard was down"
check "with zoneguard stopped, a broken rule edit goes through (failurePolicy Ignore)" ok -- \
  apply < <(rules_configmap zoneguard-rules-extra 'regexDomainFilter: "(unclosed"')
mv "$LOGS/zoneguard.log" "$LOGS/zoneguard-first.log"
launch_zoneguard --rules-namespace zoneguard
sleep 5
if ! kill -0 "$SERVE_PID" 2>/dev/null; then
  report "zoneguard started with only a broken rule ConfigMap runs but is not ready" \
    "the process exited" "$(tail -n 5 "$LOGS/zoneguard.log")"
elif readyz >/dev/null 2>&1; then
  report "zoneguard started with only a broken rule ConfigMap runs but is not ready" \
    "/readyz answered ready without a valid rule set" "$(tail -n 5 "$LOGS/zoneguard.log")"
else
  report "zoneguard started with only a broken rule ConfigMap runs but is not ready" "" ""
fi
check "the broken rule ConfigMap gets a Warning Event naming the problem" ok "Warning" "regexDomainFilter" -- \
  kc get events --namespace zoneguard --field-selector involvedObject.name=zoneguard-rules-extra
check "the Event names the pod that recorded it (POD_NAME)" ok "zoneguard-e2e-pod" -- \
  kc get events --namespace zoneguard --field-selector involvedObject.name=zoneguard-rules-extra \
  -o 'jsonpath={.items[*].reportingInstance}'
quiet apply < <(rules_configmap zoneguard-rules-extra 'domainFilters: [example.com]') || true
if eventually "$RELOAD_TIMEOUT" readyz; then
  report "repairing the rule ConfigMap makes zoneguard ready without a restart" "" ""
else
  report "repairing the rule ConfigMap makes zoneguard ready without a restart" \
    "not ready after ${RELOAD_TIMEOUT}s" "$(tail -n 5 "$LOGS/zoneguard.log")"
fi

say "finished in $(($(date +%s) - started))s"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
