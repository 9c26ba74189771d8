#!/bin/sh
# Installs the packages the suite needs, only those missing, on Debian or
# Ubuntu (or a distribution whose ID_LIKE names one of them). Needs root (or
# sudo) and the distribution's package registry.
#   tests/deps.sh run   what a cluster node needs to build and run the suite
#                       (make deps-run): no VM, no browser, no test tools
#   tests/deps.sh all   that, and what the tests need (make deps): qemu and
#                       busybox for the Soft-RoCE guests, OpenSSH for the
#                       two-host lane's guests, chromium for the browser test
# An installed Mellanox OFED (ofed_info) keeps its own rdma-core, libibverbs,
# librdmacm and perftest: none of Debian's is installed over them.
# On Ubuntu chromium is a snap, not a package: the browser test then skips
# itself with its reason.
# NETMEM_OS_RELEASE reads another os-release (tests/cli/test_deps.sh).
#
# redis-server is the kv experiment's baseline (started by the ranks, never as
# a service), libevent the event loop of its memtier-style clients; zlib1g-dev
# crc32() for the RoCEv2 ICRC (primitives/packet/roce_pkt.c);
# libnetfilter-queue-dev and nftables: netmem clover-path, Clover's contention
# resolution in the packet path (NFQUEUE).
mode=${1:-all}
case $mode in run | all) ;; *) echo "deps: unknown mode '$mode' (want run or all)" >&2; exit 2 ;; esac

RDMA="rdma-core ibverbs-providers ibverbs-utils libibverbs-dev librdmacm-dev perftest"
RUN="build-essential make pkg-config ca-certificates
     openmpi-bin libopenmpi-dev libnuma-dev numactl libhwloc-dev hwloc libjansson-dev
     gnuplot-nox jq iproute2 kmod
     libhiredis-dev libevent-dev redis-server libxxhash-dev zlib1g-dev libnetfilter-queue-dev nftables"
TESTS="git libxml2-utils qemu-system-x86 busybox-static cpio openssh-client openssh-server"

osr=${NETMEM_OS_RELEASE:-/etc/os-release}
[ -r "$osr" ] || { echo "deps: no $osr: cannot tell the distribution (Debian or Ubuntu wanted)" >&2; exit 2; }
id=$(sed -n 's/^ID=//p' "$osr" | tr -d '"')
like=$(sed -n 's/^ID_LIKE=//p' "$osr" | tr -d '"')
case " $id $like " in
*" ubuntu "*) distro=ubuntu ;;
*" debian "*) distro=debian ;;
*) echo "deps: ${id:-an unnamed distribution} is neither Debian nor Ubuntu: install by hand the equivalents of: $(echo $RDMA $RUN)" >&2
	exit 2 ;;
esac

want=$RUN
if command -v ofed_info >/dev/null 2>&1; then
	echo "deps: Mellanox OFED $(ofed_info -s 2>/dev/null | tr -d ':') is installed: its rdma-core, libibverbs, librdmacm and perftest are kept, none installed over them"
else
	want="$RDMA $want"
fi
if [ "$mode" = all ]; then
	want="$want $TESTS"
	if [ "$distro" = ubuntu ]; then
		echo "deps: chromium is a snap on Ubuntu, not installed here: the browser test (tests/cli/test_report_browser.sh) skips itself"
	else
		want="$want chromium"
	fi
fi

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
echo "deps ($distro, $mode): installing:$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
$SUDO apt-get update -q >"$log" 2>&1 || { tail -5 "$log" >&2; echo "deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing >"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "deps: apt-get install failed" >&2; exit 1; }
