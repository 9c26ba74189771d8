#!/bin/sh
# netmem corm-sim and corm-trace (host only, no RDMA): the four modes, the
# shipped trace, the Redis traces (Figs. 18-19), and bad input (one line,
# exit 2).
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

# Figs. 18-19: the Redis traces, synthesized from the paper's description
# IDs below 4 x 50,005 are keys; above, the structures' allocations
check "corm-trace --redis t3: labelled, 50,000 keys of 4 allocations (25,000 deleted) and 5 structures of many small ones" sh -c \
	"$N corm-trace --redis t3 -o $tmp/t3.trace && grep -q '^# redis-mem-t3, synthesized from .*original traces are not public' $tmp/t3.trace &&
	 awk '/^alloc/ && \$2 < 200020 { ka++ } /^free/ && \$2 < 200020 { kf++ }
	      /^alloc/ && \$2 >= 200020 { sa++; if (\$3 > sm) sm = \$3 }
	      END { exit !(ka == 200015 && kf == 100000 && sa > 5000 && sm <= 32768) }' $tmp/t3.trace"
check "corm-trace --redis t1: the same seed, the same trace; another seed, another" sh -c \
	"$N corm-trace --redis t1 --seed 3 -o $tmp/r1 && $N corm-trace --redis t1 --seed 3 -o $tmp/r2 &&
	 $N corm-trace --redis t1 --seed 4 -o $tmp/r3 && cmp -s $tmp/r1 $tmp/r2 && ! cmp -s $tmp/r1 $tmp/r3"
# the trace's live bytes, replayed by awk: never above t2's 100 MiB LRU
check "corm-trace --redis t2 at 10%: never above its 10 MiB share of the LRU, and fills it" sh -c \
	"$N corm-trace --redis t2 --redis-scale 0.1 -o $tmp/t2.trace &&
	 awk '/^alloc/ { s[\$2] = \$3; l += \$3 } /^free/ { l -= s[\$2] } l > m { m = l } END { exit !(m <= 10485760 && m > 10485000) }' $tmp/t2.trace"
check "sweep: the three Redis traces at 1 and 4 threads, valid" sh -c \
	"$N corm-sim --mode sweep --redis t1,t2,t3 --redis-scale 0.02 -b 1M --thread-counts 1,4 -o $tmp/w.json"
check "sweep: a summary entry per trace, thread count and strategy; a run per point with its moment" js $tmp/w.json \
	'.valid and (.summary | length) == 36 and (.runs | length) == 6 and
	 all(.summary[]; (.params | keys) == ["strategy", "threads", "trace"] and (.geomean.active_mib > 0)) and
	 ([.summary[].params.trace] | unique) == ["t1", "t2", "t3"] and ([.summary[].params.threads] | unique) == [1, 4] and
	 all(.runs[]; .op >= 1 and .op <= .operations and .active.none.active_bytes >= .active.ideal.active_bytes) and
	 (.traces.t2.source | test("synthesized from .*not public"))'
check "sweep: more threads, more active memory without compaction (t1)" js $tmp/w.json \
	'[.summary[] | select(.params.trace == "t1" and .params.strategy == "none") | .geomean.active_mib] | .[1] > .[0]'
check "sweep --hybrid: the CoRM series are the hybrid ones" sh -c \
	"$N corm-sim --mode sweep --redis t3 --redis-scale 0.02 -b 1M --thread-counts 1,2 --hybrid -o $tmp/wh.json &&
	 jq -e '[.summary[].params.strategy][0:6] == [\"none\", \"ideal\", \"mesh\", \"corm-8-hybrid\", \"corm-12-hybrid\", \"corm-16-hybrid\"]' $tmp/wh.json >/dev/null"
check "sweep over a trace file: the same numbers as over the same trace generated" sh -c \
	"$N corm-trace --redis t3 --redis-scale 0.02 -o $tmp/t3s.trace &&
	 $N corm-sim --mode sweep --trace $tmp/t3s.trace -b 1M --thread-counts 1,2 --hybrid -o $tmp/wf.json &&
	 [ \"\$(jq -c '[.summary[].geomean, .runs[].operations, .runs[].live_bytes]' $tmp/wf.json)\" = \"\$(jq -c '[.summary[].geomean, .runs[].operations, .runs[].live_bytes]' $tmp/wh.json)\" ]"

# Fig. 17
check "synthetic: two sizes x two fractions" sh -c \
	"$N corm-sim --mode synthetic -n 3000 --sizes 64,256 --free 0.5,0.9 -o $tmp/s.json"
check "synthetic: more freed, more reduction; max_reduction of CoRM-16 > 3" js $tmp/s.json \
	'.runs[1].reduction["corm-16"] > .runs[0].reduction["corm-16"] and .max_reduction["corm-16"] > 3'
check "synthetic: every entry names its block size (Fig. 17's claims select the paper's 1 MiB)" sh -c \
	"$N corm-sim --mode synthetic -n 3000 --sizes 256 --free 0.5 -b 1M -o $tmp/s1m.json &&
	 jq -e 'all(.summary[]; .params.block_size == 1048576)' $tmp/s1m.json >/dev/null &&
	 jq -e 'all(.summary[]; .params.block_size == 4096)' $tmp/s.json >/dev/null"

# the figures, from these documents (no config can run a tool command)
if command -v gnuplot >/dev/null 2>&1; then
	for f in 7:p 17:s 18:w 19:wh; do
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
expect_usage "sweep with both --trace and --redis" $N corm-sim --mode sweep --trace $T --redis t1
expect_usage "sweep with neither" $N corm-sim --mode sweep
expect_usage "an unknown Redis trace" $N corm-sim --mode sweep --redis t1,t9
expect_usage "corm-trace: an unknown Redis trace" $N corm-trace --redis t4
check "the error names the file and line" sh -c \
	"! $N corm-sim --trace $tmp/bad-op.trace 2> $tmp/e; grep -q 'bad-op.trace:2: unknown operation' $tmp/e"
t_summary
