#!/usr/bin/env bash
# Builds krew (sigs.k8s.io/krew, the kubectl plugin manager) and krew-index's manifest validator
# from the Go module proxy into the versioned binary cache, and prints the folder that holds them:
#   ${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}/bin/krew-<version>/{kubectl-krew,validate-krew-manifest}
# The plugin test (__tests__/e2e/kubectl-plugin.test.ts) checks plugins/sweep.yaml with
# validate-krew-manifest (krew's internal/index/validation plus its platform checks) and installs
# it with `kubectl krew install --manifest --archive`. A folder that holds both is reused.
set -euo pipefail
KREW_VERSION=${KREW_VERSION:-v0.4.3}
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
dir="$cache/bin/krew-$KREW_VERSION"
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local
if [[ ! -x "$dir/kubectl-krew" || ! -x "$dir/validate-krew-manifest" ]]; then
  printf '[krew] building sigs.k8s.io/krew %s (krew, validate-krew-manifest)\n' "$KREW_VERSION" >&2
  mkdir -p "$dir"
  GOBIN="$dir.tmp" go install "sigs.k8s.io/krew/cmd/krew@$KREW_VERSION" \
    "sigs.k8s.io/krew/cmd/validate-krew-manifest@$KREW_VERSION" >&2
  mv "$dir.tmp/validate-krew-manifest" "$dir/validate-krew-manifest"
  mv "$dir.tmp/krew" "$dir/kubectl-krew"
  rm -rf "$dir.tmp"
fi
echo "$dir"
