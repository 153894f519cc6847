# Shared helpers for tests/e2e/run.sh and, through bench/lib.sh, the benchmarks (sourced, not
# run): messages, background processes that are all stopped on exit (on failure, Ctrl-C and TERM
# too), free loopback ports, waiting, a throw-away PKI, etcd + kube-apiserver on loopback the way
# envtest runs them, and zoneguard's shipped webhook configurations pointed at a local process.
# Traffic stays on 127.0.0.1.
#
# Globals the callers set: LOG_PREFIX (message prefix), LOGS (log dir of `start`), PKI (cert
# dir), BIN_DIR (etcd, kube-apiserver; from scripts/tools.sh), KUBECTL.
# shellcheck shell=bash

ZG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LOG_PREFIX="${LOG_PREFIX:-zoneguard}"
declare -a BG_PIDS=()
declare -a USED_PORTS=()
WORK=""
WORK_WHAT=""

say() { printf '%s: %s\n' "$LOG_PREFIX" "$*" >&2; }
die() { printf '%s: error: %s\n' "$LOG_PREFIX" "$*" >&2; exit 2; }

# ------------------------------------------------------------ processes ----
# keep_work: succeeds when $WORK is to be kept after a successful run (scripts redefine it).
keep_work() { return 1; }

# work_init NAME WHAT: a temp dir in WORK, and the traps that stop every process started with
# bg_start/start on exit and remove WORK (kept, with "WHAT kept in WORK", on failure or when
# keep_work says so).
work_init() {
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/zoneguard-$1.XXXXXX")"
  WORK_WHAT="$2"
  trap on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

on_exit() {
  local rc=$?
  stop_all
  if [[ -n "$WORK" ]]; then
    if [[ $rc -ne 0 ]] || keep_work; then
      say "$WORK_WHAT kept in $WORK"
    else
      rm -rf "$WORK"
    fi
  fi
  exit "$rc"
}

# stop_pid PID: TERM, up to 5 s to exit, then KILL.
stop_pid() {
  local pid="$1" _
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# stop_all: stops every process started with bg_start, the last started first.
stop_all() {
  local i
  for ((i = ${#BG_PIDS[@]} - 1; i >= 0; i--)); do
    stop_pid "${BG_PIDS[i]}"
  done
}

# bg_start LOGFILE CMD...: starts CMD in the background; its pid is in BG_PID.
bg_start() {
  local logfile="$1"
  shift
  "$@" >"$logfile" 2>&1 &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# start NAME CMD...: bg_start with the output in $LOGS/NAME.log.
start() {
  local name="$1"
  shift
  bg_start "$LOGS/$name.log" "$@"
}

# bg_stop PID: stops one process started with bg_start.
bg_stop() {
  local pid="$1" i
  stop_pid "$pid"
  for i in "${!BG_PIDS[@]}"; do
    [[ "${BG_PIDS[i]}" == "$pid" ]] && unset 'BG_PIDS[i]'
  done
  BG_PIDS=("${BG_PIDS[@]}")
}

# wait_until SECONDS PID WHAT CMD...: polls CMD until it succeeds; gives up when PID exits or
# the time runs out, with the last lines of $LOGS/WHAT.log.
wait_until() {
  local timeout="$1" pid="$2" what="$3"
  shift 3
  local deadline=$(($(date +%s) + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "$what exited; last lines of its log:"
      tail -n 20 "$LOGS/$what.log" >&2 || true
      return 1
    fi
    if [[ $(date +%s) -ge $deadline ]]; then
      say "$what not ready after ${timeout}s; last lines of its log:"
      tail -n 20 "$LOGS/$what.log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

# free_port VAR: an unused loopback port, below the kernel's ephemeral range (so no outgoing
# connection holds it).
free_port() {
  local p _ low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % (low - 10000)))
    [[ " ${USED_PORTS[*]} " == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      USED_PORTS+=("$p")
      printf -v "$1" '%s' "$p"
      return 0
    fi
  done
  die "no free port found"
}

# ------------------------------------------------------------------ PKI ----
# cert NAME CN O EXTENSIONS: a key and a certificate in $PKI signed by the CA in ${CA_DIR:-$PKI}
# (ca.crt, ca.key).
cert() {
  local name="$1" cn="$2" org="$3" ext="$4" subj="/CN=$2" ca="${CA_DIR:-$PKI}"
  [[ -n "$org" ]] && subj="/O=$org/CN=$cn"
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subj" 2>/dev/null
  printf '%s\n' "$ext" >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" \
    -CAserial "$PKI/$name.srl" -CAcreateserial -days 2 -extfile "$PKI/$name.ext" \
    -out "$PKI/$name.crt" 2>/dev/null
}

# cluster_pki NAME: in $PKI a CA (CN zoneguard-NAME-ca), the API server's serving certificate,
# an admin client certificate (NAME-admin in system:masters) and the service-account key pair.
cluster_pki() {
  mkdir -p "$PKI"
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -subj "/CN=zoneguard-$1-ca" -days 2 2>/dev/null
  cert apiserver kube-apiserver "" $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
  cert admin "$1-admin" system:masters 'extendedKeyUsage=clientAuth'
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
}

# -------------------------------------------------- etcd, kube-apiserver ----
# kubeconfig FILE USER-YAML: a kubeconfig for the local API server.
kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: $LOG_PREFIX
    cluster:
      server: https://127.0.0.1:$API_PORT
      certificate-authority-data: $(base64 -w0 <"$PKI/ca.crt")
users:
  - name: user
    user:
$2
contexts:
  - name: $LOG_PREFIX
    context: {cluster: $LOG_PREFIX, user: user, namespace: default}
current-context: $LOG_PREFIX
EOF
}

kc() { "$KUBECTL" --request-timeout=40s "$@"; }
# inject_condition: the expression of the `zoneguard-inject-rules` match condition zoneguard keeps
# on its MutatingWebhookConfiguration (--mutating-webhook-configuration); empty when there is none.
inject_condition() {
  kc get mutatingwebhookconfiguration zoneguard \
    -o 'jsonpath={.webhooks[*].matchConditions[?(@.name=="zoneguard-inject-rules")].expression}'
}
# kind_documents KIND-ERE: the YAML documents on stdin whose top-level kind matches KIND-ERE.
kind_documents() {
  awk -v kind="^kind: ($1)\$" '
    function flush() { if (found) printf "---\n%s", doc; doc = ""; found = 0 }
    /^---$/ { flush(); next }
    { doc = doc $0 "\n"; if ($0 ~ kind) found = 1 }
    END { flush() }'
}

# start_cluster NAME SERVICE-CIDR: etcd and kube-apiserver (from $BIN_DIR) on free loopback
# ports (ETCD_PORT, API_PORT; pids ETCD_PID, API_PID; logs etcd.log and kube-apiserver.log in
# $LOGS, data in $WORK) with the certificates from cluster_pki, RBAC and the admission webhook
# plugins; exports KUBECONFIG=$KCFG, an admin kubeconfig. Returns when the API server is ready.
# With AUDIT_LOG set, the API server writes the audit events of writes to Ingresses there (level
# Metadata, which carries the webhooks' audit annotations).
start_cluster() {
  local name="$1" cidr="$2"
  local -a audit=()
  if [[ -n "${AUDIT_LOG:-}" ]]; then
    cat >"$WORK/audit-policy.yaml" <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    verbs: [create, update, patch]
    resources:
      - group: networking.k8s.io
        resources: [ingresses]
  - level: None
POLICY
    audit=(--audit-policy-file "$WORK/audit-policy.yaml" --audit-log-path "$AUDIT_LOG")
  fi
  free_port ETCD_PORT
  free_port ETCD_PEER_PORT
  start etcd "$BIN_DIR/etcd" \
    --name "$name" \
    --data-dir "$WORK/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "$name=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync \
    --log-level warn
  ETCD_PID=$BG_PID
  wait_until 30 "$ETCD_PID" etcd curl -fsS "http://127.0.0.1:$ETCD_PORT/health" || die "etcd did not start"

  free_port API_PORT
  start kube-apiserver "$BIN_DIR/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 \
    --advertise-address 127.0.0.1 \
    --secure-port "$API_PORT" \
    --cert-dir "$WORK/apiserver" \
    --tls-cert-file "$PKI/apiserver.crt" \
    --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" \
    --service-account-signing-key-file "$PKI/sa.key" \
    --authorization-mode RBAC \
    --enable-admission-plugins NamespaceLifecycle,ServiceAccount,Priority,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy \
    --service-cluster-ip-range "$cidr" \
    --allow-privileged=true \
    --profiling=false \
    "${audit[@]}"
  API_PID=$BG_PID

  KCFG="$WORK/admin.kubeconfig"
  kubeconfig "$KCFG" "      client-certificate-data: $(base64 -w0 <"$PKI/admin.crt")
      client-key-data: $(base64 -w0 <"$PKI/admin.key")"
  export KUBECONFIG="$KCFG"

  wait_until 90 "$API_PID" kube-apiserver kc get --raw /readyz || die "kube-apiserver did not start"
  # The bootstrap controllers create the default namespaces and RBAC roles
  # right after /readyz turns true.
  wait_until 30 "$API_PID" kube-apiserver kc get namespace default || die "default namespace missing"
}

# webhook_host: the host the API server is to call a local webhook at. In a cluster it calls a
# webhook behind a Service over HTTP/1.1, and HTTP/2 only to a URL on a loopback host (localhost,
# 127.0.0.1, ::1; k8s.io/apiserver, pkg/util/webhook/client.go). So: LOCAL_WEBHOOK_HOST when set
# (it must resolve to 127.0.0.1), else this machine's host name when it resolves to 127.0.0.1
# (calls over HTTP/1.1 that stay on loopback), else 127.0.0.1 (HTTP/2).
webhook_host() {
  local name="${LOCAL_WEBHOOK_HOST:-}"
  if [[ -n "$name" ]]; then
    [[ "$(resolves_to "$name")" == 127.0.0.1 ]] || die "LOCAL_WEBHOOK_HOST $name does not resolve to 127.0.0.1"
  else
    name="$(uname -n)"
    [[ "$name" != localhost && "$(resolves_to "$name")" == 127.0.0.1 ]] || name=127.0.0.1
  fi
  printf '%s' "$name"
}
resolves_to() { getent ahostsv4 "$1" | awk 'NR == 1 { print $1 }'; }

# webhook_cert NAME HOST: $PKI/NAME.{crt,key}, a serving certificate for a local webhook at HOST
# (and 127.0.0.1 and localhost), signed by the CA in CA_DIR (default $PKI).
webhook_cert() {
  local san="IP:127.0.0.1,DNS:localhost"
  [[ "$2" == 127.0.0.1 || "$2" == localhost ]] || san+=",DNS:$2"
  cert "$1" 127.0.0.1 "" "subjectAltName=$san"$'\nextendedKeyUsage=serverAuth'
}

# ------------------------------------------------------------- webhooks ----
# webhook_overlay BASE-URL CA-BUNDLE: $WORK/overlay/kustomization.yaml, manifests/ with each
# webhook's clientConfig changed to BASE-URL/validate or BASE-URL/mutate and CA-BUNDLE (no
# service). The webhook names are read from the rendered manifests ($WORK/manifests.yaml ->
# $WORK/webhooks.txt), so a new webhook is covered without editing the scripts.
webhook_overlay() {
  local base="$1" bundle="$2" kind cfg hook path
  mkdir -p "$WORK/overlay"
  "$KUBECTL" kustomize "$ZG_ROOT/manifests" >"$WORK/manifests.yaml"
  awk '
    /^kind: / { kind = $2 }
    /^metadata:/ { inmeta = 1; inwh = 0; next }
    /^webhooks:/ { inwh = 1; inmeta = 0; next }
    /^[a-zA-Z]/ { inmeta = 0; inwh = 0 }
    inmeta && /^  name: / { cfg = $2 }
    inwh && /^  name: / { print kind, cfg, $2 }
  ' "$WORK/manifests.yaml" >"$WORK/webhooks.txt"
  [[ -s "$WORK/webhooks.txt" ]] || die "no webhooks found in manifests/"
  {
    printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n'
    printf 'resources:\n  - %s\n' "$(realpath --relative-to="$WORK/overlay" "$ZG_ROOT/manifests")"
    # zoneguard keeps the mutating webhook's inject-rules condition (run.sh starts it with
    # --mutating-webhook-configuration), with the component's RBAC.
    printf 'components:\n  - %s\n' "$(realpath --relative-to="$WORK/overlay" "$ZG_ROOT/manifests/inject-conditions")"
    printf 'patches:\n'
    while read -r kind cfg hook; do
      case "$kind" in
        ValidatingWebhookConfiguration) path=/validate ;;
        MutatingWebhookConfiguration) path=/mutate ;;
        *) die "unexpected webhook kind $kind" ;;
      esac
      cat <<EOF
  - patch: |-
      apiVersion: admissionregistration.k8s.io/v1
      kind: $kind
      metadata:
        name: $cfg
      webhooks:
        - name: $hook
          clientConfig:
            service: null
            url: $base$path
            caBundle: $bundle
EOF
    done <"$WORK/webhooks.txt"
  } >"$WORK/overlay/kustomization.yaml"
}
