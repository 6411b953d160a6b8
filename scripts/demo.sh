#!/usr/bin/env bash
# The main job on an embedded default: starts the local control plane (building it the first
# time), installs the sample releases from test/charts with Helm 4, and runs the bundled
# action (node dist/index.js) exactly as a GitHub runner does: INPUT_* variables and the
# GITHUB_STEP_SUMMARY / GITHUB_OUTPUT / GITHUB_STATE files, then the post step.
# DEMO_MODE=plan shows the plan and changes nothing (default: teardown of namespaces demo-*).
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(bash scripts/node24.sh):$PATH"
export PATH
[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash test/cluster/up.sh
# shellcheck source=/dev/null
source .cluster/env

# Sample environment: an operator (CRD, webhook, Deployment) in demo-operator, an app that
# uses its custom resources in demo-app, and a plain web release beside it.
group=demo.kube-sweep.test
if ! "$HELM4" status operator -n demo-operator >/dev/null 2>&1; then
  "$HELM4" install operator test/charts/operator -n demo-operator --create-namespace --set group=$group >/dev/null
  echo "[demo] installed release demo-operator/operator"
  "$KUBECTL" wait --for condition=established --timeout 60s crd/widgets.$group >/dev/null
fi
for i in 1 2 3 4 5; do
  "$HELM4" status app -n demo-app >/dev/null 2>&1 && break
  # finalizer=false: no operator process runs in the demo to remove a finalizer.
  "$HELM4" install app test/charts/app -n demo-app --create-namespace --set group=$group --set finalizer=false >/dev/null \
    && echo "[demo] installed release demo-app/app" && break
  sleep 1
done
if ! "$HELM4" status web -n demo-app >/dev/null 2>&1; then
  "$HELM4" install web test/charts/sample -n demo-app >/dev/null
  echo "[demo] installed release demo-app/web"
fi

run_dir=$(mktemp -d)
export RUNNER_TEMP="$run_dir" GITHUB_STEP_SUMMARY="$run_dir/summary.md" GITHUB_OUTPUT="$run_dir/output" \
  GITHUB_STATE="$run_dir/state" INPUT_MODE="${DEMO_MODE:-teardown}" INPUT_NAMESPACES="demo-*" \
  INPUT_KUBECONFIG="$KUBECONFIG" INPUT_HELM="$HELM4"
: >"$GITHUB_STEP_SUMMARY"; : >"$GITHUB_OUTPUT"; : >"$GITHUB_STATE"
set +e
# Inputs with a dash reach the action as INPUT_<NAME-WITH-DASH>, which only env(1) can set.
# A runner consumes ::add-mask:: commands (they register secrets) and never shows them; so does this.
env "INPUT_STAGE-TIMEOUT=2m" node dist/index.js | grep -v '^::add-mask::'
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
while IFS= read -r kv; do export "STATE_${kv%%=*}=${kv#*=}"; done < <(read_file_commands "$GITHUB_STATE")
node dist/post/index.js

echo
echo "----- job summary ($GITHUB_STEP_SUMMARY) -----"
cat "$GITHUB_STEP_SUMMARY"
echo "----- outputs ($GITHUB_OUTPUT) -----"
read_file_commands "$GITHUB_OUTPUT"
echo
echo "JSON report: $run_dir/kube-sweep-report.json"
exit $status
