#!/bin/bash
# ops-hotpath.sh: instructions per operation of netmem ops's measured loops
# against a perftest-style loop, both on a fake verbs provider whose post and
# poll are the same few instructions (tests/bench/ops-hotpath.c). Counted by
# valgrind (callgrind) at N and 2N operations; the difference over N is the
# per-operation count, start-up excluded. Runs on any host: no device, no MPI.
# Both loops read the TSC (NETMEM_CLOCK=tsc), as they do on hardware.
#
#   tests/bench/ops-hotpath.sh [N]      (default 20000)
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-20000}
command -v valgrind >/dev/null || { echo "ops-hotpath.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
make -s build/bench/ops-hotpath || exit 1
count() { # who op mode ops
	NETMEM_CLOCK=tsc valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bench/ops-hotpath "$@" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "# instructions per operation, fake provider (post and poll cost alike for both loops)"
printf '%-6s %-4s %10s %10s %8s\n' op mode netmem perftest-style ratio
for mode in lat bw; do
	for op in read write cas faa; do
		a1=$(count netmem $op $mode "$n") a2=$(count netmem $op $mode $((2 * n)))
		b1=$(count reference $op $mode "$n") b2=$(count reference $op $mode $((2 * n)))
		awk -v op=$op -v m=$mode -v n="$n" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" 'BEGIN {
			a = (a2 - a1) / n; b = (b2 - b1) / n
			printf "%-6s %-4s %10.1f %10.1f %8.2f\n", op, m, a, b, a / b }'
	done
done
