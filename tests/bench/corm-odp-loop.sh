#!/bin/bash
# corm-odp-loop.sh: the ODP lane's first point (CoRM's compaction while two
# client threads read, ODP MRs remapped under them) run N times in one boot
# of the ODP guest, to show that it never fails, or how often and how.
#
#   tests/bench/corm-odp-loop.sh [--runs N] [--here] [--out DIR] [--timeout SEC] [-- NETMEM_ARGS...]
#
# A repeatability check, not a timing: each run's exit status, validity and
# the counters that tell a device's limit from the compaction's own misses
# (direct_miss; direct_miss_device, direct_read_refused: READs the device
# refused, their QP recovered and the read fallen back) go in
# DIR/corm-odp-loop-<UTC stamp>/table.txt, with "N of N runs valid" as the
# last line. NETMEM_ARGS replace the point's parameters (the test's by
# default). --here runs on this host's verbs device instead of the ODP VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench runs=20 timeout=3000 here=0
args=(-T 2 -K 400 -s 248 --free-ratio 0.8 -D 1 --compact-at 0.3 --interval 0.1)
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--here) here=1; shift ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--) shift; args=("$@"); break ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "corm-odp-loop.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "corm-odp-loop.sh: --runs takes a positive integer" >&2; exit 2; }
. tests/bench/lib.sh
bench_setup corm-odp-loop "$out"
cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in \$(seq 1 $runs); do
	mpirun --oversubscribe --bind-to none -np 2 bin/netmem corm --progress=false --seed \$r \
		--bench compaction --strategy auto ${args[*]} --output "$dir/r\$r.json" >"$dir/r\$r.out" 2>"$dir/r\$r.err"
	echo \$? >"$dir/r\$r.rc"
done
exit 0
INNER
bench_run corm-odp-loop.sh "$here" "$timeout" --kernel "${NETMEM_ODP_SUITE:-trixie-backports}"
valid=0
{
	printf '%-4s %-4s %-6s %-10s %-11s %-18s %-19s %s\n' run exit valid direct_ok direct_miss direct_miss_device \
		direct_read_refused first_error
	for r in $(seq 1 "$runs"); do
		row=$(jq -r '.points[0] | [(.valid // false), (.metrics.direct_ok // 0), (.metrics.direct_miss // 0),
			(.metrics.direct_miss_device // 0), (.metrics.direct_read_refused // 0)]
			| map(tostring) | join(" ")' "$dir/r$r.json" 2>/dev/null || echo "false - - - -")
		read -r v ok miss dev refused <<<"$row"
		[ "$v" = true ] && valid=$((valid + 1))
		err=$(grep -v -e 'Soft-RoCE (emulated)' -e 'results in' "$dir/r$r.err" 2>/dev/null | grep -m1 -E 'netmem|corm' | cut -c1-160)
		printf '%-4s %-4s %-6s %-10s %-11s %-18s %-19s %s\n' "$r" "$(cat "$dir/r$r.rc")" "$v" "$ok" "$miss" \
			"$dev" "$refused" "$err"
	done
	echo "$valid of $runs runs valid"
} | tee "$dir/table.txt"
