#!/bin/sh
# Runs once inside the node image build (node/Dockerfile), as kind's images/base/Dockerfile does
# after installing its packages: trims systemd units that make no sense in a container, enables
# containerd and kubelet, writes containerd's base runtime spec. Removed from the image after.
set -eux
find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete
rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/*
rm -f /lib/systemd/system/local-fs.target.wants/*
rm -f /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl*
rm -f /lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >>/etc/systemd/journald.conf
ln -sf /usr/lib/systemd/systemd /sbin/init
systemctl enable kubelet.service containerd.service undo-mount-hacks.service
systemctl mask systemd-binfmt.service
mkdir -p /etc/kubernetes/manifests /opt/cni
# Debian's containernetworking-plugins installs into /usr/lib/cni; containerd looks in /opt/cni/bin.
ln -sfn /usr/lib/cni /opt/cni/bin
ctr oci spec \
  | jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
  | jq 'del(.process.rlimits)' >/etc/containerd/cri-base.json
containerd --version
runc --version
kubelet --version
# Static pods and pods keep what apt left out: nothing. Clean apt lists and caches.
rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/*.log /var/log/apt
