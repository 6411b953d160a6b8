#!/usr/bin/env bash
# Stops exactly the processes that up.sh started (by the pid files under the cluster folder,
# and only when that pid still runs the binary named in its file name). Safe to run twice.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${KUBE_SWEEP_CLUSTER_DIR:-$repo/.cluster}
[[ -d "$dir/pids" ]] || exit 0
stopped=()
for name in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
  f="$dir/pids/$name.pid"
  [[ -f "$f" ]] || continue
  pid=$(cat "$f")
  # Only signal a pid that still runs our binary (a pid can be reused after a reboot).
  if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$name"; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
    stopped+=("$name")
  fi
  rm -f "$f"
done
echo "[cluster] stopped: ${stopped[*]:-nothing was running}" >&2
