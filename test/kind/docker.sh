#!/usr/bin/env bash
# A Docker engine as a test service for the real-kind tests (issue 17).
#
#   bash test/kind/docker.sh up      install Debian's docker.io when dockerd is missing, then start
#                                    dockerd (idempotent: an engine that answers is left alone)
#   bash test/kind/docker.sh down    stop the dockerd this script started, by its pid file
#   bash test/kind/docker.sh status  exit 0 when the engine answers `docker info`, 1 otherwise
#   bash test/kind/docker.sh rules   print the DOCKER-USER rules (what the egress test reads)
#
# dockerd runs as root with its own data root and pid file under $KUBE_SWEEP_DOCKER_DIR (default
# /var/lib/kube-sweep/docker) and listens on the default socket (/var/run/docker.sock), so the
# `docker` and `kind` clients need no DOCKER_HOST. Its default OCI runtime is runc-nosysres (the
# wrapper beside this file, copied into the state folder): this machine's capability bounding set
# lacks CAP_SYS_RESOURCE, and privileged containers (kind's nodes) fail without it (see the wrapper).
#
# Egress: `up` creates the Docker network kind uses ("kind", $KUBE_SWEEP_KIND_SUBNET, default
# 172.31.0.0/16, IPv4 only) before kind does, and puts a rule in the DOCKER-USER chain that drops
# what that subnet sends to any address outside it (the host itself and published ports still
# work: those go through INPUT/docker-proxy, not FORWARD). An --internal network would break kind's
# published API port.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=${KUBE_SWEEP_DOCKER_DIR:-/var/lib/kube-sweep/docker}
pidfile=$state/dockerd.pid
logfile=$state/dockerd.log
subnet=${KUBE_SWEEP_KIND_SUBNET:-172.31.0.0/16}
network=${KIND_EXPERIMENTAL_DOCKER_NETWORK:-kind}
log() { printf '[docker] %s\n' "$*" >&2; }

answers() { timeout 10 docker info >/dev/null 2>&1; }

ours_running() { [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

install_engine() {
  command -v dockerd >/dev/null && command -v jq >/dev/null && command -v iptables >/dev/null && return 0
  log "installing docker.io, jq and iptables from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  # policy-rc.d keeps the package from starting the system-wide service: this script owns dockerd.
  local policy=/usr/sbin/policy-rc.d created=0
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; created=1; fi
  apt-get install -y -qq --no-install-recommends docker.io jq iptables >&2
  (( created )) && rm -f "$policy"
  return 0
}

egress_rules() { # (re)writes the DOCKER-USER rules for the kind subnet; idempotent
  iptables -N DOCKER-USER 2>/dev/null || true
  local comment="kube-sweep: kind network stays local"
  while iptables -D DOCKER-USER -s "$subnet" ! -d "$subnet" -m comment --comment "$comment" -j DROP 2>/dev/null; do :; done
  while iptables -D DOCKER-USER -s "$subnet" -m conntrack --ctstate ESTABLISHED,RELATED -m comment --comment "$comment" -j RETURN 2>/dev/null; do :; done
  iptables -I DOCKER-USER 1 -s "$subnet" ! -d "$subnet" -m comment --comment "$comment" -j DROP
  iptables -I DOCKER-USER 1 -s "$subnet" -m conntrack --ctstate ESTABLISHED,RELATED -m comment --comment "$comment" -j RETURN
}

ensure_network() {
  local have
  have=$(docker network inspect "$network" --format '{{range .IPAM.Config}}{{.Subnet}} {{end}}' 2>/dev/null || true)
  if [[ -z $have ]]; then
    log "creating Docker network $network ($subnet)"
    # The bridge name is fixed so the egress rules can be read against it too.
    docker network create --driver bridge --subnet "$subnet" \
      -o com.docker.network.bridge.enable_ip_masquerade=true \
      -o com.docker.network.driver.mtu=1500 "$network" >/dev/null
  elif [[ " $have " != *" $subnet "* ]]; then
    log "Docker network $network exists with subnet(s) '$have', not $subnet: delete it (docker network rm $network) or set KUBE_SWEEP_KIND_SUBNET"
    exit 1
  fi
}

up() {
  install_engine
  mkdir -p "$state"
  install -m 0755 "$here/runc-nosysres" "$state/runc-nosysres"
  if answers; then
    ours_running || log "a Docker engine already answers (not started by this script); using it"
  else
    log "starting dockerd (data root $state/root)"
    # Its containerd is the one dockerd starts itself (state under --exec-root).
    nohup dockerd \
      --data-root "$state/root" --exec-root "$state/exec" --pidfile "$pidfile" \
      --add-runtime "runc-nosysres=$state/runc-nosysres" --default-runtime runc-nosysres \
      --storage-driver overlay2 --ipv6=false \
      >"$logfile" 2>&1 </dev/null &
    local i
    for ((i = 0; i < 120; i++)); do
      answers && break
      if ! kill -0 $! 2>/dev/null; then log "dockerd exited; its log:"; tail -30 "$logfile" >&2; exit 1; fi
      sleep 0.5
    done
    answers || { log "dockerd did not answer within 60 s; log: $logfile"; tail -30 "$logfile" >&2; exit 1; }
  fi
  egress_rules
  ensure_network
  log "Docker engine up ($(docker version --format '{{.Server.Version}}'))"
}

down() {
  if ! ours_running; then log "no dockerd started by this script is running"; rm -f "$pidfile"; return 0; fi
  local pid i
  pid=$(cat "$pidfile")
  log "stopping dockerd (pid $pid)"
  kill "$pid"
  for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then log "dockerd did not stop in 30 s; sending SIGKILL"; kill -9 "$pid" || true; fi
  rm -f "$pidfile"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) answers ;;
  rules) iptables -S DOCKER-USER ;;
  *) echo "usage: $0 up|down|status|rules" >&2; exit 2 ;;
esac
