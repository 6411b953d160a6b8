#!/usr/bin/env bash
# Validates every workflow (.github/workflows/*.yml and the examples/) with actionlint, built
# from the Go module proxy at a pinned version and cached under
# ~/.cache/kube-sweep/bin/actionlint-<version>/. actionlint also checks each `uses: ./` step
# against action.yml (input names, required inputs), which is how action.yml is validated.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.7.12
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
bin=$cache/bin/actionlint-$version
if [[ ! -x $bin/actionlint ]]; then
  echo "[actionlint] building github.com/rhysd/actionlint $version" >&2
  mkdir -p "$bin"
  GOBIN=$bin GOFLAGS=-mod=mod go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
fi
# shellcheck and pyflakes integrations are off: they are not installed here.
"$bin/actionlint" -shellcheck= -pyflakes= .github/workflows/*.yml examples/*.yml "$@"
echo "[actionlint] $(ls .github/workflows/*.yml examples/*.yml | wc -l) workflow files OK" >&2
