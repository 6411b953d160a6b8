#!/usr/bin/env bash
# Builds the pinned control-plane binaries (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl), Helm 3 and Helm 4, and kwok from the Go module proxy into a cache
# folder outside the repository, one folder per component and version:
#   ${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}/bin/<component>-<version>/<binary>
# A folder that already holds its binaries is reused, so reruns take seconds.
# Prints the bin folders it prepared, one per line, on stdout (logs go to stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local
# shellcheck source=kubernetes-module.sh
source "$here/kubernetes-module.sh"
log() { printf '[build] %s\n' "$*" >&2; }

# --- etcd -------------------------------------------------------------------
etcd_dir="$cache/bin/etcd-$ETCD_VERSION"
if [[ ! -x "$etcd_dir/etcd" ]]; then
  log "building etcd $ETCD_VERSION (go.etcd.io/etcd/server/v3)"
  work=$(mktemp -d)
  mkdir -p "$etcd_dir"
  (cd "$work" && go mod init kube-sweep/build-etcd >/dev/null 2>&1 \
    && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2 \
    && go build -o "$etcd_dir/etcd.tmp" \
      -ldflags "-X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" \
      go.etcd.io/etcd/server/v3 >&2)
  mv "$etcd_dir/etcd.tmp" "$etcd_dir/etcd"
  rm -rf "$work"
fi
echo "$etcd_dir"

# --- Kubernetes -----------------------------------------------------------------
k8s_dir="$cache/bin/kubernetes-$KUBERNETES_VERSION"
k8s_bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
need=0; for b in "${k8s_bins[@]}"; do [[ -x "$k8s_dir/$b" ]] || need=1; done
if (( need )); then
  log "building Kubernetes $KUBERNETES_VERSION (${k8s_bins[*]})"
  work=$(mktemp -d)
  mkdir -p "$k8s_dir"
  k8s_module "$work" "${k8s_bins[@]}"
  k8s_build "$work" "$k8s_dir" "${k8s_bins[@]}"
  rm -rf "$work"
fi
echo "$k8s_dir"

# --- Helm 3 and Helm 4 ------------------------------------------------------------
build_helm() { # <major> <version>
  local major=$1 version=$2 dir="$cache/bin/helm-$2"
  if [[ ! -x "$dir/helm" ]]; then
    log "building Helm $version"
    mkdir -p "$dir"
    # go install pkg@version builds in module mode from Helm's own go.mod (it has no replaces).
    GOBIN="$dir" go install \
      -ldflags "-X helm.sh/helm/v$major/internal/version.version=$version" \
      "helm.sh/helm/v$major/cmd/helm@$version" >&2
  fi
  echo "$dir"
}
build_helm 4 "$HELM4_VERSION"
build_helm 3 "$HELM3_VERSION"

# --- kwok (optional: simulated nodes that run pods) ---------------------------------
kwok_dir="$cache/bin/kwok-$KWOK_VERSION"
if [[ ! -x "$kwok_dir/kwok" && ! -f "$kwok_dir/unavailable" ]]; then
  log "building kwok $KWOK_VERSION"
  mkdir -p "$kwok_dir"
  if GOBIN="$kwok_dir" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" >&2; then :; else
    log "kwok could not be built; the control plane runs without simulated nodes"
    echo "go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION failed" >"$kwok_dir/unavailable"
  fi
fi
[[ -x "$kwok_dir/kwok" ]] && echo "$kwok_dir"
exit 0
