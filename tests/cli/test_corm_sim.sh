#!/bin/sh
# netmem corm-sim and corm-trace (host only, no RDMA): the three modes, the
# shipped trace, and bad input (one line, exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
T=tests/data/corm-synthetic.trace
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Output goes to files with `&&` before it is read (never through a pipe, whose
# status would be the reader's).
js() { jq -e "$2" "$1" >/dev/null; }

check "netmem corm-sim --help exits 0 and documents the trace format" sh -c \
	"$N corm-sim --help > $tmp/h && grep -q \"'alloc ID SIZE' or 'free ID'\" $tmp/h"
check "netmem --help lists corm-sim and corm-trace" sh -c \
	"$N --help > $tmp/h && grep -q '^  corm-sim ' $tmp/h && grep -q '^  corm-trace ' $tmp/h"

# Fig. 7
check "prob: analytical and Monte Carlo side by side" sh -c \
	"$N corm-sim --mode prob --occupancy 0.25 --sizes 128,256 --mc 4000 -o $tmp/p.json"
check "prob: CoRM-8 beats Mesh at 256 B, 25% (0.939 vs 0.272), Monte Carlo within 0.03" js $tmp/p.json \
	'[.summary[] | select(.params.size == 256)] as $s
	 | ($s[] | select(.params.strategy == "corm-8") | .geomean.probability > 0.93) and
	   ($s[] | select(.params.strategy == "mesh") | .geomean.probability < 0.28) and
	   all(.summary[]; (.geomean.probability - .geomean.probability_mc) | fabs < 0.03)'
check "netmem table reads the prob document" sh -c \
	"$N table $tmp/p.json --x size --y probability --series strategy > $tmp/tb && grep -q corm-16 $tmp/tb"

# the shipped trace (Figs. 18-19)
check "trace: the shipped synthetic trace replays, valid" sh -c \
	"$N corm-sim --trace $T --samples 5 -T 2 -o $tmp/t.json"
check "trace: conserved, never below ideal, a peak with reductions" js $tmp/t.json \
	'.valid and .checks.conserved and .checks.above_ideal and
	 .peak.reduction.ideal >= .peak.reduction["corm-16"] and .peak.reduction["corm-16"] > 1'
check "trace: 5 samples, 6 strategies each" js $tmp/t.json '(.samples | length) == 5 and (.summary | length) == 30'
check "trace from stdin" sh -c "$N corm-sim --trace - --samples 1 < $T > $tmp/t2.json"

# Fig. 17
check "synthetic: two sizes x two fractions" sh -c \
	"$N corm-sim --mode synthetic -n 3000 --sizes 64,256 --free 0.5,0.9 -o $tmp/s.json"
check "synthetic: more freed, more reduction; max_reduction of CoRM-16 > 3" js $tmp/s.json \
	'.runs[1].reduction["corm-16"] > .runs[0].reduction["corm-16"] and .max_reduction["corm-16"] > 3'

# the figures, from these documents (no config can run a tool command)
if command -v gnuplot >/dev/null 2>&1; then
	for f in 7:p 17:s 18:t; do
		check "plots/corm_fig${f%:*}.gp draws" sh -c \
			"gnuplot -e \"in='$tmp/${f#*:}.json'; out='$tmp/f.png'\" plots/corm_fig${f%:*}.gp 2> $tmp/gp &&
			 [ -s $tmp/f.png ] && ! grep -q . $tmp/gp && rm $tmp/f.png"
	done
else
	skip "plots/corm_fig*.gp draw" "no gnuplot"
fi

# corm-trace
check "corm-trace writes alloc then free lines" sh -c \
	"$N corm-trace -n 100 --sizes 64,128 --free 0.5 -o $tmp/g.trace && [ \$(grep -c '^alloc ' $tmp/g.trace) -eq 100 ] &&
	 [ \$(grep -c '^free ' $tmp/g.trace) -eq 50 ]"
check "the same seed writes the same trace" sh -c \
	"$N corm-trace -n 100 --sizes 64,128 --free 0.5 > $tmp/g2.trace && cmp -s $tmp/g.trace $tmp/g2.trace"

# bad input: one line, exit 2
printf 'alloc 1 64\nrealloc 1 128\n' > $tmp/bad-op.trace
printf 'alloc 1 64\nalloc 2\n' > $tmp/bad-line.trace
printf 'alloc 1 64\nfree 7\n' > $tmp/bad-free.trace
printf 'alloc 1 64\nalloc 1 64\n' > $tmp/bad-twice.trace
printf 'alloc 1 5000\n' > $tmp/bad-big.trace
expect_usage "unknown trace operation" $N corm-sim --trace $tmp/bad-op.trace
expect_usage "malformed line (alloc without SIZE)" $N corm-sim --trace $tmp/bad-line.trace
expect_usage "free of an ID never allocated" $N corm-sim --trace $tmp/bad-free.trace
expect_usage "an ID allocated twice" $N corm-sim --trace $tmp/bad-twice.trace
expect_usage "an object larger than a block" $N corm-sim --trace $tmp/bad-big.trace
expect_usage "block size not a power of two" $N corm-sim --trace $T --block-size 6000
expect_usage "trace mode without --trace" $N corm-sim
expect_usage "a missing trace file" $N corm-sim --trace $tmp/none.trace
expect_usage "--id-bits out of range" $N corm-sim --mode prob --id-bits 8,40
expect_usage "--free outside [0, 1]" $N corm-sim --mode synthetic --free 1.5
expect_usage "unknown mode" $N corm-sim --mode fig99
check "the error names the file and line" sh -c \
	"! $N corm-sim --trace $tmp/bad-op.trace 2> $tmp/e; grep -q 'bad-op.trace:2: unknown operation' $tmp/e"
t_summary
