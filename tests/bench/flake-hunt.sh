#!/bin/bash
# flake-hunt.sh: runs integration test files N times in one Soft-RoCE guest,
# beside a busy loop on the host (as a loaded CI machine would be), and
# counts the failures of each check. A check that fails even once rests on
# luck: it must force what it asserts, or not assert it (tests/README.md).
#
#   tests/bench/flake-hunt.sh [--n N] [--smp V] [--no-load] [--out DIR] [--timeout SEC]
#                             [--kernel K] [--more DIR] [FILE...]
#
# FILE: integration test files (default: the lock, kv, Clover and CoRM
# files: test_alock, test_lock, test_ticket_mpi, test_txn, test_kv,
# test_clover, test_corm). --smp: the guest's vCPUs (default: make check's
# for that lane, 2 for the lock and kv files, see tests/README.md; 1
# otherwise). --no-load: no busy loop. --kernel: the guest's kernel
# (softroce-run's; trixie-backports has the ODP CoRM's remap needs, so that
# test_corm runs all its checks). --more DIR: N more rounds into an earlier
# hunt's DIR (same files), numbered after its last; the table counts all of
# its rounds (a hunt of 20 rounds can be run in parts).
#
# Output: DIR/flake-hunt-<UTC stamp>/ with each run's log (runK-FILE.log)
# and table.txt: one line per check that failed at least once (failures out
# of N), then the totals. DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench n=20 smp="" load=1 timeout="" more=""
files=() vmflags=()
while [ $# -gt 0 ]; do
	case "$1" in
	--n) n=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--no-load) load=0; shift ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--kernel) vmflags=(--kernel "$2"); shift 2 ;;
	--more) more=$2; shift 2 ;;
	-h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
[ -z "$more" ] || [ -f "$more/table.txt" ] || { echo "flake-hunt.sh: --more: '$more' holds no earlier hunt (no table.txt)" >&2; exit 2; }
. tests/bench/lib.sh
bench_setup flake-hunt "$out"
first=1
if [ -n "$more" ]; then
	rmdir "$dir"
	dir=$more
	last=$(ls "$dir" | sed -n 's/^run\([0-9]*\)-.*/\1/p' | sort -n | tail -1)
	first=$(( ${last:-0} + 1 ))
fi
{
	echo 'set -u'
	printf 'for k in $(seq %d %d); do\n' "$first" "$((first + n - 1))"
	for f in "${files[@]}"; do
		printf '\tsh %q >"%s/run$k-%s.log" 2>&1\n' "$f" "$dir" "$(basename "$f" .sh)"
	done
	printf '\techo "flake-hunt: round $k of %d done"\n' "$((first + n - 1))"
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
NETMEM_VM_SMP=$smp bench_run flake-hunt.sh 0 "$timeout" "${vmflags[@]}"
secs=$(( $(date +%s) - start ))
# the earlier parts' lines, read before tee truncates the table
parts=""
[ -z "$more" ] || parts=$(sed -n 's/^\(flake hunt\|  part\): /  part: /p' "$dir/table.txt")
{
	[ -z "$parts" ] || echo "$parts"
	echo "flake hunt: ${#files[@]} file(s) x rounds $first to $((first + n - 1)), guest of $smp vCPU(s)${vmflags[1]:+, kernel ${vmflags[1]}}, $([ "$load" = 1 ] && echo "beside a busy loop" || echo "no load"), $secs s"
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
