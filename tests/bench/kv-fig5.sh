#!/bin/bash
# kv-fig5.sh: LOCO Fig. 5's orderings side by side in one Soft-RoCE boot:
# LOCO's kvstore at window 3 vs 128, LOCO vs the Sherman- and Scythe-style
# variants under read-only and write-only, uniform and Zipfian keys, the
# fence's cost for LOCO and Sherman, and the Redis baseline.
#
#   tests/bench/kv-fig5.sh [--here] [--out DIR] [--duration S] [--rounds R] [--timeout SEC]
#
# A benchmark, not a test: it prints ops/s and ratios, it never asserts
# timing. 3 nodes (ranks) x 2 threads, 16,384 keys prefilled to 80%. Each
# round runs every point once, in jobs whose order alternates between
# rounds; a ratio is computed within each round (so both sides ran minutes
# apart at most) and reported as the median over rounds with its spread.
# Emulated: only the ratios mean anything, and they are rxe's.
# --here runs on this host's verbs device instead of booting a VM.
#
# Output: DIR/kv-fig5-<UTC stamp>/ with every result document and table.txt.
# DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench duration=1 rounds=5 timeout=3000 here=0
while [ $# -gt 0 ]; do
	case "$1" in
	--here) here=1; shift ;;
	--out) out=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "kv-fig5.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup kv-fig5 "$out"
cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job() { # round name args...
	local r=\$1 n=\$2; shift 2
	mpirun --oversubscribe --bind-to none -np 3 bin/netmem kv -T 2 -K 16384 -D $duration --warmup 50 \
		--progress=false --seed \$r --output "$dir/r\$r-\$n.json" "\$@" >"$dir/r\$r-\$n.out" 2>&1
}
for r in \$(seq 1 $rounds); do
	jobs="stores window fence redis"
	[ \$((r % 2)) = 0 ] && jobs="redis fence window stores"
	for n in \$jobs; do
		case \$n in
		stores) job \$r \$n --system loco,sherman,scythe -w read-only,write-only --dist uniform,zipfian -W 3 ;;
		window) job \$r \$n --system loco -w mixed,write-only --dist uniform -W 3,128 ;;
		fence) job \$r \$n --system loco,sherman -w write-only --dist uniform --fence=1,0 -W 3 ;;
		redis) job \$r \$n --system redis,loco -w mixed --dist uniform -W 3,128 ;;
		esac
	done
done
exit 0
INNER
bench_run kv-fig5.sh "$here" "$timeout"
# Per round: ops/s of each point, keyed by its parameters; then each ratio's
# median and spread over the rounds.
jq -rs --arg rounds "$rounds" '
  def key: "\(.params.system)/\(.params.workload)/\(.params.dist)/W\(.params.window)/f\(.params.fence)";
  def med: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
           else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def r2: . * 100 | round / 100;
  (group_by(.round) | map(map(.points[] | select(.valid) | {key: key, value: .metrics.ops_per_sec}) | from_entries)) as $rs
  | [
     ["LOCO W128 / W3, mixed uniform", "loco/mixed/uniform/W128/ftrue", "loco/mixed/uniform/W3/ftrue", "significant improvement"],
     ["LOCO W128 / W3, write-only uniform", "loco/write-only/uniform/W128/ftrue", "loco/write-only/uniform/W3/ftrue", "significant improvement"],
     ["LOCO / Sherman-style, read-only uniform", "loco/read-only/uniform/W3/ftrue", "sherman/read-only/uniform/W3/ftrue", "> 1"],
     ["LOCO / Sherman-style, read-only zipfian", "loco/read-only/zipfian/W3/ftrue", "sherman/read-only/zipfian/W3/ftrue", "> 1"],
     ["LOCO / Sherman-style, write-only uniform", "loco/write-only/uniform/W3/ftrue", "sherman/write-only/uniform/W3/ftrue", "< 1"],
     ["LOCO / Sherman-style, write-only zipfian", "loco/write-only/zipfian/W3/ftrue", "sherman/write-only/zipfian/W3/ftrue", "> 1"],
     ["LOCO / Scythe-style, read-only uniform", "loco/read-only/uniform/W3/ftrue", "scythe/read-only/uniform/W3/ftrue", "(figure only)"],
     ["LOCO / Scythe-style, read-only zipfian", "loco/read-only/zipfian/W3/ftrue", "scythe/read-only/zipfian/W3/ftrue", "(figure only)"],
     ["LOCO / Scythe-style (inserts), write-only uniform", "loco/write-only/uniform/W3/ftrue", "scythe/write-only/uniform/W3/ftrue", "(figure only)"],
     ["LOCO / Scythe-style (inserts), write-only zipfian", "loco/write-only/zipfian/W3/ftrue", "scythe/write-only/zipfian/W3/ftrue", "(figure only)"],
     ["LOCO fence on / off, write-only", "loco/write-only/uniform/W3/ftrue", "loco/write-only/uniform/W3/ffalse", "0.85 (15% cost)"],
     ["Sherman-style fence on / off, write-only", "sherman/write-only/uniform/W3/ftrue", "sherman/write-only/uniform/W3/ffalse", "0.85 (15% cost)"],
     ["LOCO / Redis, mixed uniform W3", "loco/mixed/uniform/W3/ftrue", "redis/mixed/uniform/W3/ftrue", "(figure only)"],
     ["LOCO / Redis, mixed uniform W128", "loco/mixed/uniform/W128/ftrue", "redis/mixed/uniform/W128/ftrue", "(figure only)"]
    ] as $pairs
  | ["ratio", "median", "min-max", "rounds", "paper"],
    ($pairs[] as $p | [$rs[] | select(.[$p[1]] != null and .[$p[2]] != null) | .[$p[1]] / .[$p[2]]] as $v
     | [$p[0], ($v | med | if . == null then "-" else r2 end),
        (if ($v | length) == 0 then "-" else "\($v | min | r2)-\($v | max | r2)" end), ($v | length), $p[3]]),
    ["", "", "", "", ""],
    ["point (median ops/s over rounds)", "", "", "", ""],
    ([$rs[] | keys[]] | unique[] as $k | [$k, ([$rs[] | .[$k] // empty] | med | floor), "", "", ""])
  | @tsv' < <(for f in "$dir"/r*-*.json; do r=${f##*/r}; r=${r%%-*}; jq --argjson r "$r" '. + {round: $r}' "$f"; done) |
	column -t -s "$(printf '\t')" | tee "$dir/table.txt"
echo "(Soft-RoCE in a VM, 3 ranks x 2 threads on 2 vCPUs: emulated, ratios only; $rounds rounds of $duration s per point. Paper orderings: LOCO paper, Sec. 7.2.)" | tee -a "$dir/table.txt"
