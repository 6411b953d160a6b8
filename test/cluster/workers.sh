#!/usr/bin/env bash
# One local control plane per jest worker, so that integration test files run in parallel without
# seeing each other's objects (a clean-cluster test must not find another file's fault):
#   bash test/cluster/workers.sh up N     start N control planes (a no-op for each one already up)
#   bash test/cluster/workers.sh down N   stop them
# Worker 1 uses the ordinary one (test/cluster/up.sh: $KUBE_SWEEP_CLUSTER_DIR, default <repo>/.cluster,
# and its ports); worker k >= 2 uses the folder "<that>-w<k>" on the ports + 1000 * (k - 1), which
# stay clear of the second control plane that fleet tests start (API + 10, etcd + 20 and + 30) and
# of the TokenReview webhook (API + 10000). test/jest/worker-cluster.mjs points worker k's tests at
# folder k by reading its env file; jest runs as many workers as KUBE_SWEEP_TEST_CLUSTERS says.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
verb=${1:?usage: workers.sh up|down N}
count=${2:?usage: workers.sh up|down N}
base_dir=${KUBE_SWEEP_CLUSTER_DIR:-$repo/.cluster}
api=${KUBE_SWEEP_APISERVER_PORT:-16443}
etcd=${KUBE_SWEEP_ETCD_PORT:-23791}
pids=()
for ((k = 1; k <= count; k++)); do
  if ((k == 1)); then dir=$base_dir; else dir="$base_dir-w$k"; fi
  offset=$((1000 * (k - 1)))
  (
    export KUBE_SWEEP_CLUSTER_DIR=$dir KUBE_SWEEP_APISERVER_PORT=$((api + offset)) KUBE_SWEEP_ETCD_PORT=$((etcd + offset))
    unset KUBE_SWEEP_AUTHN_WEBHOOK_PORT
    bash "$here/$verb.sh"
  ) &
  pids+=($!)
  # up.sh builds the binaries on first use: let the first one finish that alone.
  if ((k == 1)) && [[ $verb == up ]]; then wait "${pids[0]}"; fi
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit "$status"
