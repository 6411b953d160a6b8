#!/usr/bin/env bash
# The Widget operator's container image (test/operator/operator.mjs), built here with no registry
# and no Docker engine: a docker-archive tarball (the `docker save` format) holding one layer,
# a minimal rootfs with the Node 24 binary of scripts/node24.sh, the shared libraries it links
# (as `ldd` lists them) and the script. Nothing else: no shell, no package manager.
#
#   bash test/operator/image.sh                 build (or reuse) it; print the image name
#   bash test/operator/image.sh archive         the same; print the tarball's path
#   bash test/operator/image.sh load <cluster>  the same, then `kind load image-archive` it into
#                                               kind cluster <cluster> (kind from $KIND or PATH);
#                                               print the image name
#
# The image is kube-sweep/widget-operator:<key>, <key> the first 12 hex digits of the SHA-256 of
# the Node version, operator.mjs and this script; the tarball is cached in
# ${KUBE_SWEEP_CACHE:-~/.cache/kube-sweep}/operator-image/widget-operator-<key>.tar. The layer is
# reproducible (sorted names, mtime 0, owner 0). Pods run it with imagePullPolicy: Never
# (test/charts/operator, value `image`). Logs go to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${KUBE_SWEEP_CACHE:-$HOME/.cache/kube-sweep}
mode=${1:-name}
log() { printf '[operator-image] %s\n' "$*" >&2; }

node_bin=$(bash "$repo/scripts/node24.sh")/node
node_version=$("$node_bin" --version)
key=$( { echo "$node_version"; cat "$here/operator.mjs" "$here/image.sh"; } | sha256sum | cut -c1-12)
image=kube-sweep/widget-operator:$key
archive=$cache/operator-image/widget-operator-$key.tar

if [[ ! -s $archive ]]; then
  t0=$(date +%s)
  log "building $image (Node $node_version)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  root=$work/rootfs
  mkdir -p "$root/usr/local/bin" "$root/operator" "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  cp "$node_bin" "$root/usr/local/bin/node"
  cp "$here/operator.mjs" "$root/operator/operator.mjs"
  # The shared libraries and the loader, at the paths the binary asks for.
  while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done < <(ldd "$node_bin" | grep -oE '/[^ ]+' | sort -u)
  printf 'root:x:0:0:root:/:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/layer.tar" .
  layer_sha=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  out=$work/archive
  mkdir -p "$out/$layer_sha"
  mv "$work/layer.tar" "$out/$layer_sha/layer.tar"
  cat >"$work/config.json" <<EOF
{"architecture":"amd64","os":"linux","config":{"User":"65532:65532","Env":["PATH=/usr/local/bin"],"Entrypoint":["/usr/local/bin/node","/operator/operator.mjs"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:$layer_sha"]},"history":[{"created_by":"test/operator/image.sh (Node $node_version + operator.mjs)"}]}
EOF
  config_sha=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$out/$config_sha.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]\n' \
    "$config_sha" "$image" "$layer_sha" >"$out/manifest.json"
  mkdir -p "$(dirname "$archive")"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$out" -cf "$archive.tmp" .
  mv "$archive.tmp" "$archive"
  log "built $archive ($(du -m "$archive" | cut -f1) MB, $(( $(date +%s) - t0 )) s)"
fi

case $mode in
  name) echo "$image" ;;
  archive) echo "$archive" ;;
  load)
    cluster=${2:?usage: image.sh load <kind cluster name>}
    t0=$(date +%s)
    "${KIND:-kind}" load image-archive "$archive" --name "$cluster" >&2
    log "loaded $image into kind cluster $cluster ($(( $(date +%s) - t0 )) s)"
    echo "$image"
    ;;
  *) echo "image.sh: unknown mode '$mode' (name, archive, load <cluster>)" >&2; exit 2 ;;
esac
