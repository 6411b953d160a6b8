#!/usr/bin/env bash
# Builds (or reuses) everything the real-kind tests need, offline, cached by version (issue 17):
#
#   bash test/kind/build.sh bins    kind, containerd, crictl, kubeadm/kubelet/kube-proxy, pause into
#                                   ${KUBE_SWEEP_CACHE:-~/.cache/kube-sweep}/bin/<component>-<version>/;
#                                   prints kind's bin folder on stdout
#   bash test/kind/build.sh [image] the above, then the kind node image; prints its name on stdout
#                                   (needs a Docker engine: bash test/kind/docker.sh up)
#
# The node image is tagged kube-sweep/kind-node:<kubernetes version>-<key>, where <key> hashes every
# pinned version and every file of the recipe, so a changed recipe builds a new image and an
# existing one is reused. A built image is also saved to $cache/kind-node/<tag>.tar, so a fresh
# Docker data root loads it instead of rebuilding. Logs go to stderr, with the seconds each step took.
#
# What is in the image and why: docs/kind.md. Binaries: the control-plane components and etcd come
# from test/cluster/build.sh (run first, cached); the rest is built here from the Go module proxy;
# the rootfs is Debian (mmdebstrap, from the host's apt sources), with runc and the CNI plugins
# from Debian packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../cluster/versions.env
source "$repo/test/cluster/versions.env"
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=../cluster/kubernetes-module.sh
source "$repo/test/cluster/kubernetes-module.sh"
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local
log() { printf '[kind-build] %s\n' "$*" >&2; }
t0=$(date +%s)
took() { log "$1 ($(( $(date +%s) - t0 )) s)"; t0=$(date +%s); }
mode=${1:-image}

# --- Debian rootfs tarballs (mmdebstrap; mostly download and unpack, so they are made in the
# background while the Go builds use the CPU) ----------------------------------------------------
# shellcheck source=/dev/null
. /etc/os-release
suite=${KUBE_SWEEP_NODE_SUITE:-${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}}
# Packages of the node rootfs: kind's base image list (images/base/Dockerfile) less what a single
# node on local disk does not use (nfs, iscsi, fuse-overlayfs), plus runc, CNI plugins and dbus.
node_packages=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,socat,runc,containernetworking-plugins
# kube-proxy's image: what its iptables mode runs.
proxy_packages=iptables,nftables,conntrack,ipset,kmod

apt_sources=/etc/apt/sources.list.d/debian.sources
[[ -f $apt_sources ]] || apt_sources=/etc/apt/sources.list
rootfs() { # <cache name> <variant> <packages>: prints the path of a cached mmdebstrap tarball
  local out=$cache/kind-node/$1-$suite-$(echo "$2 $3" | sha256sum | cut -c1-12).tar start
  if [[ ! -f $out ]]; then
    start=$(date +%s)
    mkdir -p "$cache/kind-node"
    log "mmdebstrap $suite ($2: $3)"
    mmdebstrap --quiet --variant="$2" --include="$3" \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      "$suite" "${out%.tar}.part.tar" "$apt_sources" </dev/null >&2
    mv "${out%.tar}.part.tar" "$out"
    log "rootfs $1 made ($(( $(date +%s) - start )) s)"
  fi
  echo "$out"
}

key=$( { cat "$repo/test/cluster/versions.env" "$here/versions.env" "$here/build.sh" "$here/runc-nosysres"
         echo "$suite $node_packages $proxy_packages"
         (cd "$here/node" && find . -type f | LC_ALL=C sort | xargs cat); } | sha256sum | cut -c1-12)
image=kube-sweep/kind-node:$KUBERNETES_VERSION-$key
saved=$cache/kind-node/$KUBERNETES_VERSION-$key.tar
mkdir -p "$cache/kind-node"

rootfs_jobs=()
have_image() { docker image inspect "$image" >/dev/null 2>&1 || [[ -f $saved ]]; }
if [[ $mode == image ]]; then
  docker info >/dev/null 2>&1 || { log "no Docker engine answers: run 'bash test/kind/docker.sh up' first"; exit 1; }
fi
if [[ $mode == image ]] && ! have_image; then
  if ! command -v mmdebstrap >/dev/null; then
    log "installing mmdebstrap from Debian"
    apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >&2
  fi
  rootfs node-rootfs minbase "$node_packages" >/dev/null & rootfs_jobs=($!)
  rootfs kube-proxy-rootfs essential "$proxy_packages" >/dev/null & rootfs_jobs+=($!)
fi

# --- binaries ------------------------------------------------------------------------
k8s_cp_dir=$(bash "$repo/test/cluster/build.sh" | grep "/kubernetes-$KUBERNETES_VERSION\$")
etcd_dir=$cache/bin/etcd-$ETCD_VERSION
took "control-plane binaries and etcd ready (test/cluster/build.sh)"

kind_dir=$cache/bin/kind-$KIND_VERSION
if [[ ! -x $kind_dir/kind ]]; then
  log "building kind $KIND_VERSION"
  GOBIN="$kind_dir" go install "sigs.k8s.io/kind@$KIND_VERSION" >&2
  took "kind built"
fi

ctr_dir=$cache/bin/containerd-$CONTAINERD_VERSION
if [[ ! -x $ctr_dir/containerd || ! -x $ctr_dir/containerd-shim-runc-v2 || ! -x $ctr_dir/ctr ]]; then
  log "building containerd $CONTAINERD_VERSION"
  mod=github.com/containerd/containerd/v2
  # The build tags kind's base image uses: no optional snapshotters.
  GOBIN="$ctr_dir" go install -tags "no_aufs no_zfs no_btrfs no_devmapper" \
    -ldflags "-X $mod/version.Version=$CONTAINERD_VERSION" \
    "$mod/cmd/containerd@$CONTAINERD_VERSION" "$mod/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
    "$mod/cmd/ctr@$CONTAINERD_VERSION" >&2
  took "containerd built"
fi

crictl_dir=$cache/bin/crictl-$CRICTL_VERSION
if [[ ! -x $crictl_dir/crictl ]]; then
  log "building crictl $CRICTL_VERSION"
  GOBIN="$crictl_dir" go install \
    -ldflags "-X sigs.k8s.io/cri-tools/pkg/version.Version=${CRICTL_VERSION#v}" \
    "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION" >&2
  took "crictl built"
fi

node_dir=$cache/bin/kubernetes-node-$KUBERNETES_VERSION
node_bins=(kubeadm kubelet kube-proxy)
need=0; for b in "${node_bins[@]}"; do [[ -x $node_dir/$b ]] || need=1; done
if (( need )); then
  log "building Kubernetes $KUBERNETES_VERSION node binaries (${node_bins[*]})"
  work=$(mktemp -d)
  k8s_module "$work" "${node_bins[@]}"
  k8s_build "$work" "$node_dir" "${node_bins[@]}"
  rm -rf "$work"
  took "node binaries built"
fi

k8s_src=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | jq -r .Dir)
pause_dir=$cache/bin/pause-$PAUSE_VERSION
if [[ ! -x $pause_dir/pause ]]; then
  log "compiling pause $PAUSE_VERSION (build/pause/linux/pause.c of k8s.io/kubernetes $KUBERNETES_VERSION)"
  mkdir -p "$pause_dir"
  gcc -Os -Wall -Werror -static -DVERSION="v$PAUSE_VERSION" -o "$pause_dir/pause.tmp" "$k8s_src/build/pause/linux/pause.c"
  mv "$pause_dir/pause.tmp" "$pause_dir/pause"
fi

if [[ $mode == bins ]]; then echo "$kind_dir"; exit 0; fi
[[ $mode == image ]] || { echo "usage: $0 [bins|image]" >&2; exit 2; }

# --- node image ------------------------------------------------------------------------
if docker image inspect "$image" >/dev/null 2>&1; then
  log "node image $image exists"
  echo "$image"; exit 0
fi
if [[ -f $saved ]]; then
  log "loading node image $image from $saved"
  docker load -i "$saved" >&2
  took "node image loaded"
  echo "$image"; exit 0
fi

for job in "${rootfs_jobs[@]}"; do wait "$job" || { log "mmdebstrap failed (its output is above)"; exit 1; }; done
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp "$here/node/Dockerfile" "$here/node/setup.sh" "$ctx/"
ln "$(rootfs node-rootfs minbase "$node_packages")" "$ctx/rootfs.tar" 2>/dev/null \
  || cp "$(rootfs node-rootfs minbase "$node_packages")" "$ctx/rootfs.tar"
proxy_rootfs=$(rootfs kube-proxy-rootfs essential "$proxy_packages")

# kind's base files from its module (the node contract: entrypoint, units, /kind/bin), then ours.
kind_src=$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | jq -r .Dir)
cp -r "$kind_src/images/base/files" "$ctx/files"
chmod -R u+w "$ctx/files"
rm -f "$ctx/files/etc/systemd/system/containerd-fuse-overlayfs.service"
cp -r "$here/node/files/." "$ctx/files/"
sed -i "s/@PAUSE_VERSION@/$PAUSE_VERSION/" "$ctx/files/etc/containerd/config.toml"
install -D -m 0755 "$here/runc-nosysres" "$ctx/files/usr/local/bin/runc-nosysres"
find "$ctx/files" -type d -exec chmod 0755 {} +
find "$ctx/files" -type f -exec chmod 0644 {} +
chmod 0755 "$ctx"/files/usr/local/bin/* "$ctx"/files/kind/bin/*
echo "$KUBERNETES_VERSION" >"$ctx/files/kind/version"

mkdir -p "$ctx/bin/usr/bin" "$ctx/bin/usr/local/bin" "$ctx/images"
install -m 0755 "$node_dir/kubeadm" "$node_dir/kubelet" "$k8s_cp_dir/kubectl" "$ctx/bin/usr/bin/"
install -m 0755 "$ctr_dir/containerd" "$ctr_dir/containerd-shim-runc-v2" "$ctr_dir/ctr" \
  "$crictl_dir/crictl" "$ctx/bin/usr/local/bin/"

# Component images: one static binary on a minimal rootfs each (kube-proxy: on a Debian rootfs with
# iptables), named as kubeadm v1.37 names them (`kubeadm config images list`), etcd by its own
# version (cluster.yaml sets etcd.local.imageTag to it). Made with `docker import`, saved as
# archives for the node's containerd, and untagged from the host engine again.
component_image() { # <image> <base tar or -> <binary> [entrypoint]
  local name=$1 base=$2 bin=$3 entry=${4:-} dir tar file
  dir=$(mktemp -d "$ctx/img.XXXX")
  mkdir -p "$dir/usr/local/bin" "$dir/etc" "$dir/tmp" "$dir/var/run"
  chmod 1777 "$dir/tmp"
  install -m 0755 "$bin" "$dir/usr/local/bin/"
  if [[ $base == - ]]; then
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n' >"$dir/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\n' >"$dir/etc/group"
    echo 'hosts: files dns' >"$dir/etc/nsswitch.conf"
    tar=$dir.tar
    tar -C "$dir" --owner=0 --group=0 --numeric-owner -cf "$tar" .
  else
    tar=$dir.tar
    cp "$base" "$tar"
    tar -C "$dir" --owner=0 --group=0 --numeric-owner -rf "$tar" "./usr/local/bin/$(basename "$bin")"
  fi
  local changes=(--change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin')
  [[ -n $entry ]] && changes+=(--change "ENTRYPOINT $entry")
  docker import "${changes[@]}" "$tar" "$name" >/dev/null
  file=$ctx/images/$(basename "${name%%:*}").tar
  docker save -o "$file" "$name"
  docker rmi "$name" >/dev/null
  rm -rf "$dir" "$tar"
}
reg=registry.k8s.io
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  component_image "$reg/$c:$KUBERNETES_VERSION" - "$k8s_cp_dir/$c"
done
component_image "$reg/kube-proxy:$KUBERNETES_VERSION" "$proxy_rootfs" "$node_dir/kube-proxy"
component_image "$reg/etcd:$ETCD_VERSION" - "$etcd_dir/etcd"
component_image "$reg/pause:$PAUSE_VERSION" - "$pause_dir/pause" '["/usr/local/bin/pause"]'
took "component images made"

log "building node image $image"
DOCKER_BUILDKIT=0 docker build --quiet --tag "$image" \
  --label "io.kube-sweep.kubernetes=$KUBERNETES_VERSION" --label "io.kube-sweep.etcd=$ETCD_VERSION" \
  --label "io.kube-sweep.containerd=$CONTAINERD_VERSION" --label "io.kube-sweep.kind=$KIND_VERSION" \
  "$ctx" >&2
docker image prune --force --filter label=io.kube-sweep.stage=node-image-preload >/dev/null
took "node image built"
# Keep one node image: older tags and their saved archives go (an image a container still uses stays).
for old in $(docker images --format '{{.Repository}}:{{.Tag}}' kube-sweep/kind-node); do
  [[ $old == "$image" ]] || docker rmi "$old" >/dev/null 2>&1 || true
done
rm -f "$cache"/kind-node/v*.tar
docker save -o "$saved.tmp" "$image" && mv "$saved.tmp" "$saved"
took "node image saved to $saved"
echo "$image"
