#!/bin/sh
# Which OpenMPI transport carries the MPI lock baseline (LOCO Figs. 4a, 4b)
# over the RDMA device between two hosts: each candidate runs a small
# `netmem txn --lock mpi` across the hostfile's hosts with OpenMPI's
# selection logged, and the table says what ran, what OpenMPI chose and the
# first error. Run it on a cluster's head node, or between two Soft-RoCE
# guests:
#   tests/vm/netmem-cluster -- sh tests/bench/mpi-rdma-probe.sh [OUT_DIR]
# Candidates: UCX's pml and osc over rc_verbs (with ud_verbs, or TCP, for
# UCX's wire-up), OpenMPI's osc/rdma over the libfabric btl (verbs;ofi_rxm),
# osc/rdma over the openib btl, and osc/pt2pt over TCP (the fallback, not
# RDMA).
cd "$(dirname "$0")/../.." || exit 1
out=${1:-$(mktemp -d)}
mkdir -p "$out"
H=${NETMEM_HOSTFILE:?run on a cluster head: NETMEM_HOSTFILE names the hosts}
dev=${NETMEM_RDMA_DEVICE:-rxe0}
base="mpirun --hostfile $H --map-by ppr:1:node --bind-to none -np 2"
job="bin/netmem txn -N 2 -T 1 --lock mpi -A 100 -n 20 --warmup 2 --progress=false"
{
	echo "# ucx_info -v / -d (transports on $dev)"
	ucx_info -v 2>&1 | head -3
	ucx_info -d 2>&1 | grep -E 'Transport|Device' | sort | uniq -c
	echo "# libfabric providers"
	fi_info -l 2>&1 | head -20
} >"$out/env.txt" 2>&1
try() { # try NAME MCA-ARGS...
	name=$1; shift
	start=$(date +%s)
	$base "$@" --mca pml_base_verbose 10 --mca osc_base_verbose 10 --mca btl_base_verbose 10 \
		$job --output "$out/$name.json" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	pml=$(grep -ohE 'select: component [a-z0-9]+ selected|selected (pml|osc) component [a-z0-9]+|pml_ucx.c.*|osc_ucx' \
		"$out/$name.err" | head -2 | tr '\n' ' ')
	err=$(grep -vE 'mca:|select:|base/' "$out/$name.err" | grep -iE 'error|fail|abort|unable|not ' | head -1 | cut -c1-160)
	valid=$(jq -r '[.points[].valid] | all' "$out/$name.json" 2>/dev/null)
	printf '%-14s exit %-3s valid %-5s %3s s  %s | %s\n' "$name" "$rc" "${valid:-none}" "$(($(date +%s) - start))" \
		"${pml:-?}" "${err:-}"
}
{
	try ucx-rc-ud --mca pml ucx --mca osc ucx -x UCX_NET_DEVICES="$dev:1" -x UCX_TLS=rc_verbs,ud_verbs,self
	try ucx-rc-tcp --mca pml ucx --mca osc ucx -x UCX_NET_DEVICES="$dev:1,lo" -x UCX_TLS=rc_verbs,tcp,self
	try ucx-default --mca pml ucx --mca osc ucx
	try ofi-verbs --mca pml ob1 --mca btl self,ofi --mca osc rdma --mca btl_ofi_provider_include 'verbs;ofi_rxm' \
		-x FI_VERBS_IFACE= -x FI_PROVIDER='verbs;ofi_rxm'
	try openib --mca pml ob1 --mca btl self,openib --mca osc rdma --mca btl_openib_cpc_include rdmacm \
		--mca btl_openib_allow_ib 1
	try pt2pt-tcp --mca pml ob1 --mca btl self,tcp --mca osc pt2pt
} | tee "$out/table.txt"
echo "# details in $out"
