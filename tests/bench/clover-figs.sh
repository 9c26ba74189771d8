#!/bin/bash
# clover-figs.sh: Clover's write-contention collapse and contention resolution
# in the packet path (Grant and Snoeren, Figs. 2-4), side by side in one boot
# of two Soft-RoCE guests (tests/vm/netmem-cluster).
#
#   tests/bench/clover-figs.sh [--out DIR] [--rounds R] [--iters N] [--timeout SEC]
#
# A benchmark, not a test: it prints ratios, it never asserts timing. Ranks
# 0-2 on netmem-a (the metadata server and two client ranks), rank 3, the
# memory node, alone on netmem-b, whose netfilter hands every RoCEv2 packet
# to netmem clover-path. 1,024 keys, YCSB-A, Zipf 0.75 unless the job varies
# it. Each round runs these jobs once, in an order that alternates between
# rounds; a ratio is computed within a round and reported as the median over
# rounds with its spread (min-max):
#   fig2      -T 1,2,4 (2-8 client threads), --resolve none,off,on
#   fig4      -T 4, --resolve on --track 1,2,4,8,16,64,1024, and off
#   collapse  -T 1,2,4, 0%, 5% and 50% writes, no path (Clover as it is)
#   skew      -T 4, Zipf 0.5, 0.75, 0.99, --resolve off,on
# Then it draws the figures (plots/clover_*.gp) from round 1's documents and
# Fig. 3 from the path's own tables.
#
# Output: DIR/clover-figs-<UTC stamp>/ with every document, the figures and
# table.txt. DIR defaults to results/bench. Emulated: ratios only.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench rounds=3 iters=200 timeout=5400
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "clover-figs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup clover-figs "$out"
dir=$(cd "$dir" && pwd)
cat >"$inner" <<INNER
set -u
printf 'netmem-a slots=3\nnetmem-b slots=1\n' >/tmp/clover-hosts
job() { # round name args...
	local r=\$1 n=\$2; shift 2
	mpirun --hostfile /tmp/clover-hosts --bind-to none -np 4 bin/netmem clover -K 1024 -n $iters --warmup 20 \
		--progress=false --seed \$r --output "$dir/r\$r-\$n.json" "\$@" >"$dir/r\$r-\$n.out" 2>&1
}
for r in \$(seq 1 $rounds); do
	jobs="fig2 fig4 collapse skew"
	[ \$((r % 2)) = 0 ] && jobs="skew collapse fig4 fig2"
	for n in \$jobs; do
		case \$n in
		fig2) job \$r \$n -T 1,2,4 -w a --theta 0.75 --resolve none,off,on ;;
		fig4) job \$r \$n -T 4 -w a --theta 0.75 --resolve on --track 1,2,4,8,16,64,1024 ;;
		collapse) job \$r \$n -T 1,2,4 -w mixed --write-ratio 0,0.05,0.5 --theta 0.75 ;;
		skew) job \$r \$n -T 4 -w a --theta 0.5,0.75,0.99 --resolve off,on ;;
		esac
		# fig4's off reference: the same point with rewriting off
		[ \$n = fig4 ] && job \$r fig4off -T 4 -w a --theta 0.75 --resolve off
	done
done
exit 0
INNER
# A run cut short (the timeout) still leaves its finished jobs' documents: tabulate those.
tests/vm/netmem-cluster --timeout "$timeout" -- bash "$inner" ||
	echo "clover-figs.sh: the cluster run failed or timed out; tabulating the jobs that finished" >&2
for f in "$dir"/r*-*.json; do
	jq -e '.points | length > 0' "$f" >/dev/null 2>&1 || { echo "clover-figs.sh: $f is incomplete: left out" >&2; mv "$f" "$f.incomplete"; }
done
N=bin/netmem
for f in fig2 fig4 collapse skew; do
	gnuplot -e "in='$dir/r1-$f.json'; out='$dir/clover-$f.png'; netmem='$N'" "plots/clover_$f.gp" 2>"$dir/clover-$f.gp.err" ||
		echo "clover-figs.sh: plots/clover_$f.gp failed (see $dir/clover-$f.gp.err)" >&2
done
gnuplot -e "out='$dir/clover-fig3.png'; netmem='$N'" plots/clover_fig3.gp 2>"$dir/clover-fig3.gp.err" ||
	echo "clover-figs.sh: plots/clover_fig3.gp failed" >&2
# Per round: each point's throughput, p99 round trips and validity, keyed by its parameters.
jq -rs --arg rounds "$rounds" '
  def key: "\(.job)/T\(.params.threads)/w\(.params.write_ratio)/\(.params.workload)/th\(.params.theta)/\(.params.resolve)/k\(.params.track)";
  def med: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
           else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def r2: . * 100 | round / 100;
  def ratios($num; $den): [ .[] | select(.[$num] != null and .[$den] != null) | .[$num] / .[$den] ];
  def row($name; $v; $paper): [$name, ($v | med | if . == null then "-" else r2 end),
        (if ($v | length) == 0 then "-" else "\($v | min | r2)-\($v | max | r2)" end), ($v | length), $paper];
  (group_by(.round) | map(map(. as $d | .points[] | select(.valid) | {key: ($d + {params: .params} | key), value: .metrics.ops_per_sec}) | from_entries)) as $rs
  | (group_by(.round) | map(map(. as $d | .points[] | select(.valid) | {key: ($d + {params: .params} | key), value: .metrics.rtts.p99}) | from_entries)) as $rtt
  | [.[] | .points[] | select(.valid | not)] as $bad
  | ["ratio", "median", "min-max", "rounds", "paper"],
    row("on / off, 8 client threads (Fig. 2)"; $rs | ratios("fig2/T4/w0.5/a/th0.75/on/k0"; "fig2/T4/w0.5/a/th0.75/off/k0"); "1.42 at 64 threads"),
    row("on / off, 4 client threads"; $rs | ratios("fig2/T2/w0.5/a/th0.75/on/k0"; "fig2/T2/w0.5/a/th0.75/off/k0"); "-"),
    row("on / off, 2 client threads"; $rs | ratios("fig2/T1/w0.5/a/th0.75/on/k0"; "fig2/T1/w0.5/a/th0.75/off/k0"); "-"),
    row("off / none: the path'"'"'s own cost, 8 threads"; $rs | ratios("fig2/T4/w0.5/a/th0.75/off/k0"; "fig2/T4/w0.5/a/th0.75/none/k0"); "-"),
    row("top-8 tracked / off, 8 threads (Fig. 4)"; $rs | ratios("fig4/T4/w0.5/a/th0.75/on/k8"; "fig4off/T4/w0.5/a/th0.75/off/k0"); "1.3"),
    row("top-1 tracked / off, 8 threads"; $rs | ratios("fig4/T4/w0.5/a/th0.75/on/k1"; "fig4off/T4/w0.5/a/th0.75/off/k0"); "-"),
    row("all 1024 tracked / off, 8 threads"; $rs | ratios("fig4/T4/w0.5/a/th0.75/on/k1024"; "fig4off/T4/w0.5/a/th0.75/off/k0"); "1.42"),
    row("0% / 50% writes, 8 threads (collapse)"; $rs | ratios("collapse/T4/w0/mixed/th0.75/none/k0"; "collapse/T4/w0.5/mixed/th0.75/none/k0"); "> 4"),
    row("0% / 50% writes, 2 threads"; $rs | ratios("collapse/T1/w0/mixed/th0.75/none/k0"; "collapse/T1/w0.5/mixed/th0.75/none/k0"); "-"),
    row("p99 round trips, 5% writes, 8 threads"; [$rtt[] | .["collapse/T4/w0.05/mixed/th0.75/none/k0"] // empty]; "5"),
    row("on / off at Zipf 0.99, 8 threads (skew)"; $rs | ratios("skew/T4/w0.5/a/th0.99/on/k0"; "skew/T4/w0.5/a/th0.99/off/k0"); "-"),
    row("on / off at Zipf 0.5, 8 threads"; $rs | ratios("skew/T4/w0.5/a/th0.5/on/k0"; "skew/T4/w0.5/a/th0.5/off/k0"); "-"),
    ["invalid points", ($bad | length), "", "", ""]
  | @tsv' < <(for f in "$dir"/r*-*.json; do b=${f##*/r}; r=${b%%-*}; n=${b#*-}; n=${n%.json}
	jq --argjson r "$r" --arg n "$n" '. + {round: $r, job: $n}' "$f"; done) |
	column -t -s "$(printf '\t')" | tee "$dir/table.txt"
echo "(Soft-RoCE, two guests on one 2-core machine: emulated, ratios only; client threads = 2 ranks x -T; $rounds rounds of $iters operations per thread per point. Paper: Grant and Snoeren, Sec. 4.)" | tee -a "$dir/table.txt"
