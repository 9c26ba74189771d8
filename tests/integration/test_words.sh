#!/bin/sh
# The device copies an aligned 8-byte word whole, as a NIC's DMA does: READs
# racing WRITEs of two patterns to one word each return one pattern whole
# (tests/bench/tear-probe.c, two threads on two loopback connections). The
# checks that read lock words, tickets and version pointers while others
# write them rest on it. In the correctness lane (two vCPUs): with ERMS in
# the guest's CPU, Debian 12's rxe copied them byte by byte and 1 READ in
# 1,500 to 5,500 returned parts of both (tests/vm/README.md); the guest's
# CPU has none (NETMEM_VM_CPU_MODEL=max brings it back, to see this fail).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup run
probe=build/bench/tear-probe
[ -x "$probe" ] || make -s "$probe" >/dev/null 2>&1
dev=${NETMEM_RDMA_DEVICE:-$(nm_rdma_device)}
echo "# vCPUs: $(nproc); CPU flags: $(grep -m1 -o -w -e erms -e fsrm /proc/cpuinfo | sort -u | tr '\n' ' ')"
"$probe" "$dev" "${NETMEM_GID_INDEX:-1}" 50000 >"$tmp/probe.out" 2>"$tmp/probe.err"
echo "# $(cat "$tmp/probe.out")"
check "50,000 READs racing WRITEs of one aligned word: each returned one pattern whole" \
	grep -Eq '^reads 50000 torn 0 writes [1-9]' "$tmp/probe.out"
[ ! -s "$tmp/probe.err" ] || sed 's/^/#   /' "$tmp/probe.err" | head -n 6
t_summary
