#!/usr/bin/env bash
# Measurement (c) of bench/inventory.ts, the floor: every list as PartialObjectMetadataList
# fetched with curl, all resources at once. Client-certificate auth.
#   curl-floor.sh <server> <pki dir> <out dir> [paged|unpaged] < paths   (one collection path a line)
# paged (the default, measurement (c)): one background chain per resource; the pages of one
#   resource follow each other (limit 500 + continue), one curl process (and TLS handshake) each.
# unpaged (measurement (c'), for comparison only): one curl process fetching every resource
#   without limit, all transfers in parallel over reused connections (curl --parallel).
# Pages are written to <out dir>/<index>-<page>.json; the caller counts the items afterwards.
# The user agent is set because kube-apiserver pretty-prints JSON for user agents starting with
# "curl" (more bytes, more server work); kube-sweep and kubectl get compact JSON.
set -euo pipefail
server=$1 pki=$2 out=$3 mode=${4:-paged}
accept='application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9'
common=(-sS --no-progress-meter --fail-with-body -A kube-sweep-bench-curl --cacert "$pki/ca.crt" --cert "$pki/admin.crt"
  --key "$pki/admin.key" -H "Accept: $accept")

mapfile -t paths
if [[ $mode == unpaged ]]; then
  args=()
  for i in "${!paths[@]}"; do
    [[ -n ${paths[$i]} ]] && args+=(-o "$out/$i-0.json" "$server${paths[$i]}")
  done
  exec curl "${common[@]}" --parallel --parallel-max 100 "${args[@]}"
fi

chain() { # <index> <path>
  local index=$1 path=$2 page=0 token='' file
  while :; do
    file="$out/$index-$page.json"
    curl "${common[@]}" -G --data limit=500 ${token:+--data-urlencode "continue=$token"} -o "$file" "$server$path"
    # The list's metadata comes before its items, so the token is in the first bytes.
    token=$(head -c 4096 "$file" | grep -o '"continue": *"[^"]*"' | head -1 | cut -d'"' -f4 || true)
    [[ -n $token ]] || return 0
    page=$((page + 1))
  done
}

pids=()
for i in "${!paths[@]}"; do
  [[ -n ${paths[$i]} ]] || continue
  chain "$i" "${paths[$i]}" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
