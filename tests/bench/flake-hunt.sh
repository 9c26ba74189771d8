#!/bin/bash
# flake-hunt.sh: runs integration test files N times in one Soft-RoCE guest,
# beside a busy loop on the host (as a loaded CI machine would be), and
# counts the failures of each check. A check that fails even once rests on
# luck: it must force what it asserts, or not assert it (tests/README.md).
#
#   tests/bench/flake-hunt.sh [--n N] [--smp V] [--no-load] [--out DIR] [--timeout SEC] [FILE...]
#
# FILE: integration test files (default: the lock, kv, Clover and CoRM
# files: test_alock, test_lock, test_ticket_mpi, test_txn, test_kv,
# test_clover, test_corm). --smp: the guest's vCPUs (default: make check's
# for that lane, 2 for the lock and kv files, see tests/README.md; 1
# otherwise). --no-load: no busy loop.
#
# Output: DIR/flake-hunt-<UTC stamp>/ with each run's log (runK-FILE.log)
# and table.txt: one line per check that failed at least once (failures out
# of N), then the totals. DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench n=20 smp="" load=1 timeout=""
files=()
while [ $# -gt 0 ]; do
	case "$1" in
	--n) n=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--no-load) load=0; shift ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "flake-hunt.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) files+=("$1"); shift ;;
	esac
done
case "$n" in ''|*[!0-9]*|0) echo "flake-hunt.sh: --n takes a whole number above 0" >&2; exit 2 ;; esac
case "$smp" in *[!0-9]*) echo "flake-hunt.sh: --smp takes a vCPU count" >&2; exit 2 ;; esac
[ ${#files[@]} -gt 0 ] || files=(tests/integration/test_alock.sh tests/integration/test_lock.sh
	tests/integration/test_ticket_mpi.sh tests/integration/test_txn.sh tests/integration/test_kv.sh
	tests/integration/test_clover.sh tests/integration/test_corm.sh)
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "flake-hunt.sh: no test file '$f'" >&2; exit 2; }
done
[ -n "$smp" ] || smp=${NETMEM_CORRECTNESS_SMP:-2}
[ -n "$timeout" ] || timeout=$((n * 1800))
. tests/bench/lib.sh
bench_setup flake-hunt "$out"
{
	echo 'set -u'
	printf 'for k in $(seq 1 %d); do\n' "$n"
	for f in "${files[@]}"; do
		printf '\tsh %q >"%s/run$k-%s.log" 2>&1\n' "$f" "$dir" "$(basename "$f" .sh)"
	done
	printf '\techo "flake-hunt: round $k of %d done"\n' "$n"
	echo 'done'
	echo 'exit 0'
} >"$inner"
busy=""
if [ "$load" = 1 ]; then
	yes >/dev/null &
	busy=$!
	trap 'kill "$busy" 2>/dev/null; rm -f "$inner"' EXIT
fi
start=$(date +%s)
NETMEM_VM_SMP=$smp bench_run flake-hunt.sh 0 "$timeout"
secs=$(( $(date +%s) - start ))
{
	echo "flake hunt: ${#files[@]} file(s) x $n round(s), guest of $smp vCPU(s), $([ "$load" = 1 ] && echo "beside a busy loop" || echo "no load"), $secs s"
	for f in "${files[@]}"; do
		b=$(basename "$f" .sh)
		runs=$(ls "$dir"/run*-"$b".log 2>/dev/null | wc -l)
		nosum=$(grep -L -E '^[0-9]+ passed, [0-9]+ failed' "$dir"/run*-"$b".log 2>/dev/null | wc -l)
		fails=$(cat "$dir"/run*-"$b".log 2>/dev/null | grep -c '^not ok')
		echo "$b: $runs run(s), $fails failed check(s) in all, $nosum run(s) without a summary"
		cat "$dir"/run*-"$b".log 2>/dev/null | grep '^not ok' | sed 's/^not ok [0-9]* - //' | cut -c1-150 |
			sort | uniq -c | sort -rn | awk -v n="$runs" '{ c = $1; $1 = ""; printf "  %d/%d %s\n", c, n, $0 }'
	done
} | tee "$dir/table.txt"
