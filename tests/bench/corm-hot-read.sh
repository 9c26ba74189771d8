#!/bin/bash
# corm-hot-read.sh: CoRM's RPC reads of a Zipf-hot object against uniform
# keys (Fig. 12's RPC lines at quick scale), in interleaved rounds in one
# Soft-RoCE VM boot, and the Zipf/uniform throughput ratio per round with its
# median and spread. With --baseline BIN, each round runs BIN too (e.g. a
# netmem built from an older commit), side by side.
#
#   tests/bench/corm-hot-read.sh [--out DIR] [--rounds N] [--baseline BIN] [--timeout SEC]
#
# A benchmark, not a test: it prints rates and ratios, it never asserts
# timing. Each round: 2 client threads sharing 2,000 objects of 24 bytes,
# read:write 100:0 and 50:50, uniform and Zipf 0.99, 1 s per point. All of
# it is emulated: no number here is a hardware number.
#
# Output: DIR/corm-hot-read-<UTC stamp>/ with the documents and table.txt.
# DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench rounds=3 baseline= timeout=1800
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "corm-hot-read.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "corm-hot-read.sh: --baseline $baseline is not an executable" >&2; exit 2; }
. tests/bench/lib.sh
bench_setup corm-hot-read "$out"
cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
A="corm --bench throughput --keys shared --strategy auto --read rpc --write-ratio 0,0.5 --dist uniform,zipfian --theta 0.99 -s 24 -T 2 -K 2000 --free-ratio 0 -D 1 --progress=false"
for r in \$(seq 1 $rounds); do
	for b in this ${baseline:+baseline}; do
		bin=bin/netmem; [ \$b = baseline ] && bin=$baseline
		mpirun --oversubscribe --bind-to none -np 2 \$bin \$A --output "$dir/\$b-\$r.json" >"$dir/\$b-\$r.out" 2>&1 ||
			echo "round \$r (\$b) failed: \$(tail -1 "$dir/\$b-\$r.out")"
	done
done
exit 0
INNER
bench_run corm-hot-read.sh 0 "$timeout"
{
	echo "# Soft-RoCE VM: emulated, not hardware numbers; RPC reads/s (lat p50 us)"
	printf "%-9s %5s %6s %22s %22s %10s\n" binary round writes uniform zipfian zipf/unif
	for f in "$dir"/*-[0-9]*.json; do
		n=${f##*/}; n=${n%.json}
		jq -r --arg b "${n%-*}" --arg r "${n##*-}" '[.summary[] | {w: .params.write_ratio, d: .params.dist,
			v: .geomean.ops_per_sec, p: .geomean["lat.p50"]}] | group_by(.w)[] |
			(map(select(.d == "uniform"))[0]) as $u | (map(select(.d == "zipfian"))[0]) as $z |
			"\($b) \($r) \($u.w) \($u.v) \($u.p) \($z.v) \($z.p)"' "$f"
	done | awk '{ printf "%-9s %5s %6s %12.0f (%7.0f) %12.0f (%7.0f) %10.2f\n", $1, $2, $3, $4, $5, $6, $7, ($4 > 0 ? $6 / $4 : 0) }' |
		tee "$dir/rows.txt"
	# per binary: the median ratio and its range (mawk has no sort: sort(1) does it)
	for b in $(awk '{ print $1 }' "$dir/rows.txt" | sort -u); do
		awk -v b="$b" '$1 == b { print $NF }' "$dir/rows.txt" | sort -g |
			awk -v b="$b" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "# %s: zipf/uniform median %.2f, range %.2f to %.2f over %d pairs\n", b, m, v[1], v[NR], NR }'
	done
} | tee "$dir/table.txt"
