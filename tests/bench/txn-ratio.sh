#!/bin/bash
# txn-ratio.sh: LOCO's transfer transactions (Fig. 4b's workload), LOCO
# ticket lock against MPI RMA locks, side by side in one Soft-RoCE VM boot.
#
#   tests/bench/txn-ratio.sh [--out DIR] [--duration S] [--reps R] [--threads LIST] [--timeout SEC]
#
# A benchmark, not a test: it reports throughput and ratios, it never asserts
# timing. Three runs over the same points (3 emulated nodes of 2 ranks on one
# host, --threads workers per node, 100,000 accounts, 341 locks per worker):
#   ticket    netmem txn --lock ticket     (RDMA verbs through rxe)
#   mpi-shm   netmem txn --lock mpi        (OpenMPI's default: shared memory
#                                           on one host, no network at all)
#   mpi-tcp   netmem txn --lock mpi with --mca btl self,tcp --mca osc pt2pt
#             (MPI RMA as messages over the kernel's TCP loopback: a network
#              stack like rxe's, still not the paper's UCX/RoCE path)
# and prints txns/s (geomean over the repetitions) and ticket/mpi ratios.
# All of it is emulated: no number here is a hardware number.
#
# Output: DIR/txn-ratio-<UTC stamp>/ with the three result documents and
# table.txt. DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench duration=1 reps=3 threads=1,2 timeout=1800
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "txn-ratio.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup txn-ratio "$out"
cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --oversubscribe --bind-to none -np 6"
A="txn --ranks-per-node 2 -N 3 -T $threads -A 100000 -D $duration --reps $reps --progress=false"
\$M bin/netmem \$A --lock ticket --output "$dir/ticket.json" >"$dir/ticket.out" 2>&1
\$M bin/netmem \$A --lock mpi --output "$dir/mpi-shm.json" >"$dir/mpi-shm.out" 2>&1
\$M --mca btl self,tcp --mca osc pt2pt bin/netmem \$A --lock mpi --output "$dir/mpi-tcp.json" >"$dir/mpi-tcp.out" 2>&1
exit 0
INNER
tests/vm/softroce-run --timeout "$timeout" -- bash "$inner" || { echo "txn-ratio.sh: the VM run failed" >&2; exit 1; }
rate() { jq -r --argjson t "$2" '.summary[] | select(.params.threads == $t) | .geomean.txns_per_sec // "nan"' "$dir/$1.json" 2>/dev/null; }
{
	echo "# Soft-RoCE VM, 3 emulated nodes of 2 ranks: emulated, not hardware numbers"
	printf "%-8s %12s %12s %12s %14s %14s\n" threads ticket mpi-shm mpi-tcp ticket/shm ticket/tcp
	for t in ${threads//,/ }; do
		a=$(rate ticket "$t") b=$(rate mpi-shm "$t") c=$(rate mpi-tcp "$t")
		awk -v t="$t" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
			printf "%-8s %12.0f %12.0f %12.0f %14.3f %14.3f\n", t, a, b, c, (b > 0 ? a / b : 0), (c > 0 ? a / c : 0) }'
	done
} | tee "$dir/table.txt"
