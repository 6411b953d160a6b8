#!/usr/bin/env bash
# The main job on an embedded default. Starts a fresh local control plane of its own (built the
# first time; folder .cluster-demo, API server on 127.0.0.1:16543, so it never touches the
# test cluster), builds the demo environment with Helm 4 (scripts/demo-env.sh: an operator
# with a CRD, a webhook and a Deployment; an app that uses its custom resources; a web
# release; a release with hook objects and one with a kept object) and breaks it the way
# people do (the operator uninstalled before its resources; a namespace force-finalized
# through /finalize). Then it runs the bundled action (node dist/index.js) exactly as a GitHub
# runner does: INPUT_* variables and the GITHUB_STEP_SUMMARY / GITHUB_OUTPUT / GITHUB_STATE
# files, then the post step; prints the verdict and the summary, and says where they are.
#   DEMO_ENV=clean    the operator, app, web and keeper releases (no hooks release, no finalizer
#                     on the Widgets), nothing broken: the verdict should be clean
#   DEMO_MODE=plan    show the plan only (also: scan); default teardown of namespaces demo-*
#   DEMO_CLUSTER=kind the same on a REAL kind cluster instead of the local control plane: starts
#                     the Docker engine (test/kind/docker.sh up), builds or reuses kind and its
#                     node image (test/kind/build.sh), creates kind cluster kube-sweep-demo (deleted
#                     first when it exists), loads the operator image (test/operator/image.sh) and
#                     builds the environment with the operator running as a real pod; the action
#                     then runs with `cluster: kind` on that cluster (reused, so its post step
#                     keeps it). Delete it with: kind delete cluster --name kube-sweep-demo
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(bash scripts/node24.sh):$PATH"
export PATH
[[ -d node_modules ]] || npm ci --no-audit --no-fund
run_dir=$(mktemp -d)
kind_inputs=()
if [[ ${DEMO_CLUSTER:-local} == kind ]]; then
  kind_name=kube-sweep-demo
  bash test/kind/docker.sh up
  node_image=$(bash test/kind/build.sh image)
  PATH="$(bash test/kind/build.sh bins):$PATH"
  # shellcheck source=/dev/null
  source test/kind/versions.env
  bin_dirs=$(bash test/cluster/build.sh)
  KUBECTL=$(grep '/kubernetes-' <<<"$bin_dirs")/kubectl
  HELM4=$(grep '/helm-v4' <<<"$bin_dirs")/helm
  kind delete cluster --name "$kind_name" >/dev/null 2>&1 || true
  kind create cluster --name "$kind_name" --config test/kind/cluster.yaml --image "$node_image" --wait 4m
  export KUBECONFIG=$run_dir/kind.kubeconfig
  kind get kubeconfig --name "$kind_name" >"$KUBECONFIG"
  operator_image=$(KIND=kind bash test/operator/image.sh load "$kind_name")
  HELM=$HELM4 KUBECTL=$KUBECTL OPERATOR_IMAGE=$operator_image WEB_IMAGE=registry.k8s.io/pause:$PAUSE_VERSION \
    bash scripts/demo-env.sh "${DEMO_ENV:-broken}" demo
  kind_inputs=(INPUT_CLUSTER=kind "INPUT_KIND-CLUSTER-NAME=$kind_name")
  cluster_hint="export KUBECONFIG=$KUBECONFIG   (delete it: kind delete cluster --name $kind_name)"
else
  export KUBE_SWEEP_CLUSTER_DIR=${KUBE_SWEEP_CLUSTER_DIR:-$PWD/.cluster-demo}
  export KUBE_SWEEP_APISERVER_PORT=${KUBE_SWEEP_APISERVER_PORT:-16543} KUBE_SWEEP_ETCD_PORT=${KUBE_SWEEP_ETCD_PORT:-23891}
  # A fresh control plane every run (up.sh starts from empty etcd data).
  bash test/cluster/down.sh >/dev/null 2>&1 || true
  bash test/cluster/up.sh
  # shellcheck source=/dev/null
  source "$KUBE_SWEEP_CLUSTER_DIR/env"
  HELM=$HELM4 KUBECTL=$KUBECTL bash scripts/demo-env.sh "${DEMO_ENV:-broken}" demo
  export INPUT_KUBECONFIG="$KUBECONFIG"
  cluster_hint="export KUBECONFIG=$KUBECONFIG   (stop it: KUBE_SWEEP_CLUSTER_DIR=$KUBE_SWEEP_CLUSTER_DIR bash test/cluster/down.sh)"
fi

export RUNNER_TEMP="$run_dir" GITHUB_STEP_SUMMARY="$run_dir/summary.md" GITHUB_OUTPUT="$run_dir/output" \
  GITHUB_STATE="$run_dir/state" INPUT_MODE="${DEMO_MODE:-teardown}" INPUT_NAMESPACES="demo-*" \
  INPUT_HELM="$HELM4"
: >"$GITHUB_STEP_SUMMARY"; : >"$GITHUB_OUTPUT"; : >"$GITHUB_STATE"
set +e
# Inputs with a dash reach the action as INPUT_<NAME-WITH-DASH>, which only env(1) can set.
# Shows the log as a runner shows it: workflow commands are consumed, not printed (::add-mask::
# registers a secret, ::debug:: shows only with step debug logging on, ::endgroup:: closes a
# group); a group is its title, an annotation its kind and message (with %0A, %0D, %25 decoded).
as_runner_shows() {
  sed -u -E \
    -e '/^::(add-mask|debug|endgroup)::/d' \
    -e 's/^::group::(.*)$/▸ \1/' \
    -e 's/^::error[^:]*::/Error: /' -e 's/^::warning[^:]*::/Warning: /' -e 's/^::notice[^:]*::/Notice: /' \
    -e 's/%0A/\n/g' -e 's/%0D//g' -e 's/%25/%/g'
}
env "INPUT_STAGE-TIMEOUT=30s" "${kind_inputs[@]}" node dist/index.js | as_runner_shows
status=${PIPESTATUS[0]}
set -e
# read_file_commands FILE: prints NAME=VALUE for each `NAME<<DELIMITER ... DELIMITER` entry
# (the format @actions/core writes to GITHUB_OUTPUT and GITHUB_STATE).
read_file_commands() {
  local line key delim value l
  while IFS= read -r line; do
    if [[ "$line" =~ ^([A-Za-z0-9_-]+)\<\<(.+)$ ]]; then
      key=${BASH_REMATCH[1]}; delim=${BASH_REMATCH[2]}; value=""
      while IFS= read -r l && [[ "$l" != "$delim" ]]; do value+="$l"; done
      printf '%s=%s\n' "$key" "$value"
    fi
  done <"$1"
}
# The post step gets the state the main step saved, as the runner hands it over (STATE_*).
# Names with a dash (kind-cluster-name) are not shell identifiers: env(1) passes them.
state_env=()
while IFS= read -r kv; do state_env+=("STATE_${kv%%=*}=${kv#*=}"); done < <(read_file_commands "$GITHUB_STATE")
env "${state_env[@]}" node dist/post/index.js | as_runner_shows

echo
echo "----- job summary ($GITHUB_STEP_SUMMARY) -----"
cat "$GITHUB_STEP_SUMMARY"
echo "----- outputs ($GITHUB_OUTPUT) -----"
read_file_commands "$GITHUB_OUTPUT"
verdict=$(read_file_commands "$GITHUB_OUTPUT" | sed -n 's/^verdict=//p')
echo
echo "verdict:      ${verdict:-none} (the step exited $status: 0 passes the job, 1 fails it, 2 could not run)"
echo "job summary:  $GITHUB_STEP_SUMMARY"
echo "JSON report:  $run_dir/kube-sweep-report.json"
echo "the cluster:  $cluster_hint"
# The demo itself succeeded when the action ran and judged; exit 2 means it could not run.
[[ $status -eq 2 || -z "$verdict" ]] && exit 1
exit 0
