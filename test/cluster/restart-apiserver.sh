#!/usr/bin/env bash
# Restarts the kube-apiserver that up.sh started, with the same command line (cmd/kube-apiserver),
# for fault tests: stops it (SIGTERM, SIGKILL after 10 s), keeps it down for DOWN seconds, starts
# it again and waits until /readyz answers. Only the pid in pids/kube-apiserver.pid is signalled,
# and only when it still runs kube-apiserver. etcd and the other processes are left alone.
#   usage: restart-apiserver.sh [DOWN seconds, default 0]
# Honours KUBE_SWEEP_CLUSTER_DIR (default <repo>/.cluster); the port is read from the saved
# command line, so it restarts the control plane of that folder only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${KUBE_SWEEP_CLUSTER_DIR:-$repo/.cluster}
down=${1:-0}
log() { printf '[cluster] %s\n' "$*" >&2; }

[[ -f "$dir/cmd/kube-apiserver" ]] || { log "no $dir/cmd/kube-apiserver: start the cluster with up.sh first"; exit 1; }
mapfile -d '' cmd <"$dir/cmd/kube-apiserver"
port=""
for ((i = 0; i < ${#cmd[@]}; i++)); do [[ "${cmd[$i]}" == --secure-port ]] && port=${cmd[$((i + 1))]}; done

pidfile=$dir/pids/kube-apiserver.pid
if [[ -f "$pidfile" ]]; then
  pid=$(cat "$pidfile")
  if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- kube-apiserver; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
    log "kube-apiserver (pid $pid) stopped"
  fi
fi
sleep "$down"
setsid "${cmd[@]}" >>"$dir/logs/kube-apiserver.log" 2>&1 </dev/null &
echo $! >"$pidfile"
pki=$dir/pki
for _ in $(seq 1 360); do
  if curl -sf --max-time 3 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
    log "kube-apiserver ready again on port $port"
    exit 0
  fi
  kill -0 "$(cat "$pidfile")" 2>/dev/null || { log "kube-apiserver exited; see $dir/logs/kube-apiserver.log"; exit 1; }
  sleep 0.25
done
log "kube-apiserver not ready after 90 s; see $dir/logs/kube-apiserver.log"
exit 1
