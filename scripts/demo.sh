#!/usr/bin/env bash
# The main job on an embedded default: starts the local control plane (building it the first
# time), installs the sample releases from test/charts with Helm 4, and runs the bundled
# action (node dist/index.js) exactly as a GitHub runner does: INPUT_* variables and the
# GITHUB_STEP_SUMMARY / GITHUB_OUTPUT / GITHUB_STATE files, then the post step.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(bash scripts/node24.sh):$PATH"
export PATH
[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash test/cluster/up.sh
# shellcheck source=/dev/null
source .cluster/env

for release in demo-web demo-api; do
  if ! "$HELM4" status "$release" -n demo >/dev/null 2>&1; then
    "$HELM4" install "$release" test/charts/sample -n demo --create-namespace >/dev/null
    echo "[demo] installed release demo/$release"
  fi
done

run_dir=$(mktemp -d)
export RUNNER_TEMP="$run_dir" GITHUB_STEP_SUMMARY="$run_dir/summary.md" GITHUB_OUTPUT="$run_dir/output" \
  GITHUB_STATE="$run_dir/state" INPUT_MODE=inventory INPUT_KUBECONFIG="$KUBECONFIG"
: >"$GITHUB_STEP_SUMMARY"; : >"$GITHUB_OUTPUT"; : >"$GITHUB_STATE"
set +e
node dist/index.js
status=$?
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
