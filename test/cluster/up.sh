#!/usr/bin/env bash
# Starts a local Kubernetes control plane on loopback: etcd, kube-apiserver (RBAC, audit log)
# and kube-controller-manager, plus kube-scheduler and kwok (simulated nodes) when built.
# Writes everything under $KUBE_SWEEP_CLUSTER_DIR (default: <repo>/.cluster):
#   kubeconfig        admin kubeconfig (client certificate, group system:masters)
#   env               shell lines: KUBECONFIG, KUBECTL, HELM3, HELM4, ... (source it)
#   audit.log         API server audit log (JSON lines, level Metadata)
#   logs/*.log        one log per process; pids/*.pid one pid file per process
# Starting while it already runs is a no-op. Ports: KUBE_SWEEP_APISERVER_PORT (16443),
# KUBE_SWEEP_ETCD_PORT (23791; the peer port is +10), KUBE_SWEEP_AUTHN_WEBHOOK_PORT (the API
# port + 10000: where the API server sends TokenReviews, served by a test while it runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${KUBE_SWEEP_CLUSTER_DIR:-$repo/.cluster}
api_port=${KUBE_SWEEP_APISERVER_PORT:-16443}
etcd_port=${KUBE_SWEEP_ETCD_PORT:-23791}
etcd_peer_port=$((etcd_port + 10))
authn_webhook_port=${KUBE_SWEEP_AUTHN_WEBHOOK_PORT:-$((api_port + 10000))}
log() { printf '[cluster] %s\n' "$*" >&2; }

alive() { [[ -f "$dir/pids/$1.pid" ]] && kill -0 "$(cat "$dir/pids/$1.pid")" 2>/dev/null; }
api_ready() {
  curl -sf --max-time 3 --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" \
    "https://127.0.0.1:$api_port/readyz" >/dev/null 2>&1
}
if alive kube-apiserver && alive etcd && alive kube-controller-manager && api_ready; then
  log "already running (kubeconfig: $dir/kubeconfig)"
  exit 0
fi
# Half-started or stale: stop what is left, then start clean.
bash "$here/down.sh" >/dev/null 2>&1 || true

mapfile -t bins < <(bash "$here/build.sh")
for b in "${bins[@]}"; do PATH="$b:$PATH"; done
export PATH
source "$here/versions.env"
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}

mkdir -p "$dir/pki" "$dir/logs" "$dir/pids"
rm -rf "$dir/etcd-data" "$dir/audit.log"

# --- PKI (openssl) -------------------------------------------------------------------
pki=$dir/pki
if [[ ! -f "$pki/ca.crt" ]]; then
  log "generating certificates"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kube-sweep-local-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  # client_cert <name> <CN> <O>
  client_cert() {
    openssl req -newkey rsa:2048 -nodes -subj "/O=$3/CN=$2" -keyout "$pki/$1.key" -out "$pki/$1.csr" 2>/dev/null
    openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 3650 \
      -extfile <(printf 'extendedKeyUsage=clientAuth\n') -out "$pki/$1.crt" 2>/dev/null
  }
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$pki/apiserver.key" \
    -out "$pki/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 3650 \
    -extfile <(printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n') \
    -out "$pki/apiserver.crt" 2>/dev/null
  client_cert admin kube-sweep-admin system:masters
  client_cert controller-manager system:kube-controller-manager ""
  client_cert scheduler system:kube-scheduler ""
  client_cert front-proxy front-proxy-client ""
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
fi

# kubeconfig_for <file> <cert name>
kubeconfig_for() {
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: kube-sweep-local
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority-data: $(base64 -w0 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 "$pki/$2.crt")
    client-key-data: $(base64 -w0 "$pki/$2.key")
contexts:
- name: kube-sweep-local
  context: {cluster: kube-sweep-local, user: $2}
current-context: kube-sweep-local
KC
  chmod 600 "$1"
}
kubeconfig_for "$dir/kubeconfig" admin
kubeconfig_for "$dir/controller-manager.kubeconfig" controller-manager
kubeconfig_for "$dir/scheduler.kubeconfig" scheduler

# Webhook token authentication, for tests of tokens that expire (token-refresh.test.ts): a bearer
# token that no other authenticator knows is sent as a TokenReview (v1, not cached) to a server on
# loopback that the test runs while it runs. When nothing listens there, the connection is refused
# and such a token gets its 401 at once (the webhook client does not retry a refused connection).
cat >"$dir/authn-webhook.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: test-token-authenticator
  cluster:
    server: http://127.0.0.1:$authn_webhook_port/authenticate
users:
- name: kube-apiserver
  user: {}
contexts:
- name: webhook
  context: {cluster: test-token-authenticator, user: kube-apiserver}
current-context: webhook
KC

cat >"$dir/audit-policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
YAML

# start <name> <command...>: run detached in its own session, log and pid under $dir. The
# command line (program resolved on PATH) is kept in cmd/<name> (NUL-separated) so that
# restart-apiserver.sh can start the same process again.
start() {
  local name=$1; shift
  mkdir -p "$dir/cmd"
  printf '%s\0' "$(command -v "$1")" "${@:2}" >"$dir/cmd/$name"
  setsid "$@" >"$dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! >"$dir/pids/$name.pid"
}
wait_for() { # <process> <seconds> <command...>: fails at once when the process has died
  local what=$1 seconds=$2; shift 2
  for ((i = 0; i < seconds * 4; i++)); do
    "$@" && return 0
    if [[ -f "$dir/pids/$what.pid" ]] && ! alive "$what"; then
      log "$what exited; last lines of $dir/logs/$what.log:"; tail -5 "$dir/logs/$what.log" >&2; return 1
    fi
    sleep 0.25
  done
  log "timed out after ${seconds}s waiting for $what; see $dir/logs"; return 1
}

log "starting etcd on 127.0.0.1:$etcd_port"
start etcd etcd --name kube-sweep --data-dir "$dir/etcd-data" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "kube-sweep=http://127.0.0.1:$etcd_peer_port" --unsafe-no-fsync --log-level warn
wait_for etcd 30 curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$etcd_port/health"

log "starting kube-apiserver $KUBERNETES_VERSION on https://127.0.0.1:$api_port"
start kube-apiserver kube-apiserver --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --cert-dir "$pki" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --client-ca-file "$pki/ca.crt" --authorization-mode RBAC \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.0.0.0/24 \
  --requestheader-client-ca-file "$pki/ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$pki/front-proxy.crt" --proxy-client-key-file "$pki/front-proxy.key" \
  --audit-policy-file "$dir/audit-policy.yaml" --audit-log-path "$dir/audit.log" --audit-log-format json \
  --authentication-token-webhook-config-file "$dir/authn-webhook.kubeconfig" \
  --authentication-token-webhook-version v1 --authentication-token-webhook-cache-ttl 0s \
  --allow-privileged=true --endpoint-reconciler-type none
wait_for kube-apiserver 90 api_ready

log "starting kube-controller-manager"
start kube-controller-manager kube-controller-manager --kubeconfig "$dir/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$dir/controller-manager.kubeconfig" \
  --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --use-service-account-credentials=true --leader-elect=false --secure-port 0 \
  --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key"

if command -v kube-scheduler >/dev/null && command -v kwok >/dev/null; then
  log "starting kube-scheduler and kwok (simulated nodes)"
  start kube-scheduler kube-scheduler --kubeconfig "$dir/scheduler.kubeconfig" \
    --authentication-kubeconfig "$dir/scheduler.kubeconfig" --authorization-kubeconfig "$dir/scheduler.kubeconfig" \
    --leader-elect=false --secure-port 0
  start kwok kwok --kubeconfig "$dir/kubeconfig" --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --manage-nodes-with-label-selector "" --disregard-status-with-annotation-selector kwok.x-k8s.io/status=custom \
    --cidr 10.0.1.1/24 --node-ip 10.0.1.1 --server-address 127.0.0.1:0
fi

kubectl_bin=$(command -v kubectl)
kc() { "$kubectl_bin" --kubeconfig "$dir/kubeconfig" "$@"; }
# The controller manager is ready when its service-account controller has made the default SA.
wait_for kube-controller-manager 90 \
  bash -c "'$kubectl_bin' --kubeconfig '$dir/kubeconfig' -n default get serviceaccount default >/dev/null 2>&1"

if alive kwok; then
  # One simulated node that kwok manages: pods get scheduled to it and reported Running, and
  # their graceful deletion completes as a kubelet would complete it.
  kc apply -f - >/dev/null <<'NODE'
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {kubernetes.io/hostname: kwok-node-0, kubernetes.io/os: linux, type: kwok}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "1000"}
  capacity: {cpu: "32", memory: 256Gi, pods: "1000"}
NODE
fi

{
  echo "export KUBECONFIG='$dir/kubeconfig'"
  echo "export KUBE_SWEEP_CLUSTER_DIR='$dir'"
  echo "export KUBE_SWEEP_APISERVER_PORT='$api_port'"
  echo "export KUBE_SWEEP_ETCD_PORT='$etcd_port'"
  echo "export KUBE_SWEEP_ETCD_ENDPOINT='http://127.0.0.1:$etcd_port'"
  echo "export KUBE_SWEEP_AUTHN_WEBHOOK_PORT='$authn_webhook_port'"
  echo "export KUBECTL='$kubectl_bin'"
  echo "export HELM4='$cache/bin/helm-$HELM4_VERSION/helm'"
  echo "export HELM3='$cache/bin/helm-$HELM3_VERSION/helm'"
  if alive kwok; then echo "export KUBE_SWEEP_KWOK=1"; fi
  echo "export PATH=\"$(IFS=:; echo "${bins[*]}"):\$PATH\""
} >"$dir/env"
log "ready: export KUBECONFIG=$dir/kubeconfig   (or: source $dir/env)"
