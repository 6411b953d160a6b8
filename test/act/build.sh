#!/usr/bin/env bash
# Builds nektos/act (an independent GitHub Actions runner, github.com/nektos/act) from the Go
# module proxy into the versioned binary cache, and prints the path of the binary:
#   ${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}/bin/act-<version>/act
# .ci/run uses it to run .github/workflows/e2e.yml and examples/*.yml on this host
# (-P ubuntu-latest=-self-hosted; see __tests__/act/ and docs/development.md). A folder that holds
# the binary is reused.
set -euo pipefail
ACT_VERSION=${ACT_VERSION:-v0.2.89}
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
dir="$cache/bin/act-$ACT_VERSION"
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local
if [[ ! -x "$dir/act" ]]; then
  printf '[act] building github.com/nektos/act %s\n' "$ACT_VERSION" >&2
  started=$(date +%s)
  rm -rf "$dir.tmp"
  GOBIN="$dir.tmp" go install "github.com/nektos/act@$ACT_VERSION" >&2
  mkdir -p "$dir"
  mv "$dir.tmp/act" "$dir/act"
  rm -rf "$dir.tmp"
  printf '[act] built in %ss\n' "$(( $(date +%s) - started ))" >&2
fi
echo "$dir/act"
