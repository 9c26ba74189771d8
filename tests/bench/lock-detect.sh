#!/bin/bash
# lock-detect.sh: how much of a broken lock the mutual-exclusion check sees
# on guests of one and of two vCPUs. The broken lock is --inject race's
# cheater (rank 0 thread 0 skips the lock on every operation); the scripted
# step loses exactly one increment on every run, whatever the guest, so the
# increments lost beyond that one are what the validation loop caught by
# itself, that is what the check would see of a lock that is really broken.
#
#   tests/bench/lock-detect.sh [--reps R] [--validate N] [--smp "1 2"] [--out DIR] [--timeout SEC]
#
# A benchmark, not a test: one guest per vCPU count, R jobs each, over the
# spinlock, MCS and ALock (3 ranks x 2 threads, one lock, --validate N
# operations per thread). It prints, per vCPU count and lock, in how many
# jobs the loop lost increments of its own and how many in all.
#
# Output: DIR/lock-detect-<UTC stamp>/ with one result document per guest,
# job and lock, and table.txt. DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench reps=5 validate=200 smps="1 2" timeout=2400
while [ $# -gt 0 ]; do
	case "$1" in
	--reps) reps=$2; shift 2 ;;
	--validate) validate=$2; shift 2 ;;
	--smp) smps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "lock-detect.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case "$reps$validate" in *[!0-9]*|"") echo "lock-detect.sh: --reps and --validate take whole numbers" >&2; exit 2 ;; esac
. tests/bench/lib.sh
bench_setup lock-detect "$out"
for smp in $smps; do
	case "$smp" in *[!0-9]*|"") echo "lock-detect.sh: --smp takes vCPU counts" >&2; exit 2 ;; esac
	cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in \$(seq 1 $reps); do
	for lock in spin mcs alock; do
		mpirun --oversubscribe --bind-to none -np 3 bin/netmem lock --lock \$lock -K 1 -T 2 -n 20 \
			--validate $validate --inject race -u 20 --progress=false --seed \$r \
			--output "$dir/smp$smp-\$lock-\$r.json" >"$dir/smp$smp-\$lock-\$r.out" 2>&1
	done
done
exit 0
INNER
	NETMEM_VM_SMP=$smp bench_run lock-detect.sh 0 "$timeout"
done
{
	printf '%-5s %-6s %6s %18s %14s\n' vCPUs lock jobs "loop caught (jobs)" "lost beyond 1"
	for smp in $smps; do
		for lock in spin mcs alock; do
			jq -rs --arg s "$smp" --arg l "$lock" '
			  [.[] | .points[0].checks.mutual_exclusion.lost_increments // 0 | . - 1] as $x
			  | "\($s) \($l) \($x | length) \([$x[] | select(. > 0)] | length) \($x | add)"' \
				"$dir"/smp"$smp"-"$lock"-*.json |
				awk '{ printf "%-5s %-6s %6s %18s %14s\n", $1, $2, $3, $4, $5 }'
		done
	done
} | tee "$dir/table.txt"
