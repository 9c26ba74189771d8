#!/bin/sh
# Installs the Debian packages the suite, its tests and its Soft-RoCE VM need
# (only those missing). Needs root (or sudo) and Debian's package registry.
# redis-server is the kv experiment's baseline (started by the ranks, never as a
# service), libevent the event loop of its memtier-style clients; openssh-server
# is for the cluster lane's guests (tests/vm/netmem-cluster): they run its sshd
# with a configuration of their own; the host's needs none.
# zlib1g-dev: crc32() for the RoCEv2 ICRC (primitives/packet/roce_pkt.c); libnetfilter-queue-dev and
# nftables: netmem clover-path, Clover's contention resolution in the packet path (NFQUEUE).
PKGS="build-essential make pkg-config git ca-certificates
      rdma-core ibverbs-providers ibverbs-utils libibverbs-dev librdmacm-dev perftest
      openmpi-bin libopenmpi-dev libnuma-dev numactl libhwloc-dev hwloc libjansson-dev
      gnuplot-nox jq libxml2-utils chromium iproute2 qemu-system-x86 busybox-static cpio kmod
      openssh-client openssh-server
      libhiredis-dev libevent-dev redis-server libxxhash-dev zlib1g-dev libnetfilter-queue-dev nftables"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing >/tmp/netmem-deps.log 2>&1 ||
	{ tail -20 /tmp/netmem-deps.log >&2; echo "deps: apt-get install failed" >&2; exit 1; }
