#!/usr/bin/env bash
# Builds krew (sigs.k8s.io/krew, the kubectl plugin manager) from the Go module proxy into the
# versioned binary cache, and prints the folder that holds `kubectl-krew`:
#   ${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}/bin/krew-<version>/kubectl-krew
# The plugin test (__tests__/integration/kubectl-plugin.test.ts) installs plugins/sweep.yaml with
# it: `kubectl krew install --manifest --archive` validates the manifest with krew's own code
# (pkg/index/validation) before installing. A folder that holds the binary is reused.
set -euo pipefail
KREW_VERSION=${KREW_VERSION:-v0.4.3}
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
dir="$cache/bin/krew-$KREW_VERSION"
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local
if [[ ! -x "$dir/kubectl-krew" ]]; then
  printf '[krew] building sigs.k8s.io/krew %s\n' "$KREW_VERSION" >&2
  mkdir -p "$dir"
  GOBIN="$dir.tmp" go install "sigs.k8s.io/krew/cmd/krew@$KREW_VERSION" >&2
  mv "$dir.tmp/krew" "$dir/kubectl-krew"
  rm -rf "$dir.tmp"
fi
echo "$dir"
