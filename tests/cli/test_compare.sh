#!/bin/sh
# netmem compare (host only): two crafted runs of one experiment on different
# NICs (ConnectX-3 and ConnectX-5), with parameters they do not share and a
# sweep they share in part; clusters of different sizes (one-to-one pairing,
# --ignore, --per); what is dropped and why; and the refusals (exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# with gnuplot a compare that draws exits 0; without, drawing fails: 1
if command -v gnuplot >/dev/null 2>&1; then drawn=0; else drawn=1; fi

# pts FILE: the document's points as the writer has them for its summary
# (one repetition per entry, its metrics the geometric means nested at the
# dots), so that the entries compare recomputes are the summary's.
pts() {
	jq '.points = [.summary[] | {key: ((.params | tojson) + "#0"), params, rep: 0, valid,
		metrics: (reduce (.geomean | to_entries[]) as $m ({}; setpath($m.key | split("."); $m.value)))}]' "$1" >"$1.tmp" &&
		mv "$1.tmp" "$1"
}
# run DIR DEVICE FW GBPS DURATION SIZES SCALE [SCHEMA]: an ops-lat document,
# one entry per size, lat.p50 = size * SCALE.
run() {
	mkdir -p "$1"
	jq -n --arg dev "$2" --arg fw "$3" --argjson gbps "$4" --argjson dur "$5" --argjson sizes "$6" \
		--argjson k "$7" --arg schema "${8:-netmem-result/1}" '{
		schema: $schema, experiment: "ops", spec: {},
		meta: {runs: [{emulated: false, nranks: 2, hosts: ["a", "b"],
			ranks: [{nic: {device: $dev, fw_ver: $fw, link_layer: "InfiniBand", link_gbps: $gbps}}]}]},
		points: [],
		summary: [$sizes[] | {params: {op: "read", size: ., duration: $dur, ib_dev: $dev}, reps: 1, valid: true,
			geomean: {"lat.p50": (. * $k)}}]}' >"$1/ops-lat.json"
	pts "$1/ops-lat.json"
}
# lockrun DIR NODES THREADS RATE [DURATION]: a lock document, one entry per
# (nodes, threads) in that order; every thread does RATE ops/s, so
# ops_per_sec = RATE * nodes * threads (mops the same in millions).
lockrun() {
	mkdir -p "$1"
	jq -n --argjson nodes "$2" --argjson threads "$3" --argjson k "$4" --argjson dur "${5:-1}" '{
		schema: "netmem-result/1", experiment: "lock", spec: {},
		meta: {runs: [{emulated: false, nranks: 20, hosts: ["a"],
			ranks: [{nic: {device: "mlx5_0", fw_ver: "1", link_layer: "InfiniBand", link_gbps: 100}}]}]},
		points: [],
		summary: [$nodes[] as $n | $threads[] as $t | {params: {lock: "ticket", nodes: $n, threads: $t, duration: $dur},
			reps: 1, valid: true,
			geomean: {ops_per_sec: ($k * $n * $t), mops: ($k * $n * $t / 1e6), seconds: 1, "lat.p50": 3,
				"fairness.min_ops_per_sec": $k}}]}' >"$1/lock.json"
	pts "$1/lock.json"
}

run "$tmp/cx3" mlx4_0 2.42.5000 56 10 '[8, 64, 4096]' 2
run "$tmp/cx5" mlx5_0 16.35.2000 100 2 '[8, 64, 1024]' 1
IGN="--ignore duration,ib_dev"

check "compare two runs on different NICs" sh -c "$N compare $tmp/cx3 $tmp/cx5 $IGN --out $tmp/out > $tmp/o 2> $tmp/e; [ \$? = $drawn ]"
check "the legend names each run's device, firmware and link" sh -c \
	"grep -q 'run A: mlx4_0, fw 2.42.5000, InfiniBand 56 Gb/s' $tmp/o && grep -q 'run B: mlx5_0, fw 16.35.2000, InfiniBand 100 Gb/s' $tmp/o &&
	 grep -q 'A: mlx4_0, fw 2.42.5000' $tmp/out/ops-lat.dat"
check "the parameters named with --ignore are listed with their values per run and left out of the matching" sh -c \
	"grep -q 'parameter duration ignored (--ignore): A=\[10\], B=\[2\]' $tmp/o &&
	 grep -q 'parameter ib_dev ignored (--ignore)' $tmp/o"
check "a sweep shared in part is compared on its common values" sh -c \
	"grep -q 'parameter size compared on the values all runs have' $tmp/o && grep -q '2 point(s) matched' $tmp/o"
check "the ratio per point: B over A is 0.5 at every matched size" sh -c \
	"[ \$(grep -c 'B/A 0.500' $tmp/o) -eq 2 ] && grep -q 'size=8 ' $tmp/o && grep -q 'size=64 ' $tmp/o && ! grep -q '^   size=4096 ' $tmp/o"
check "the points one run lacks are listed as dropped, one line each, with the reason" sh -c \
	"grep -q '^   dropped size=4096: only in A (none in B)' $tmp/o && grep -q '^   dropped size=1024: only in B (none in A)' $tmp/o &&
	 [ \$(grep -c '^   dropped' $tmp/o) = 2 ]"
if command -v gnuplot >/dev/null 2>&1; then
	check "the overlay is drawn as PNG and SVG" sh -c \
		". tests/lib.sh; nm_figure_ok $tmp/out/ops-lat.png && nm_figure_ok $tmp/out/ops-lat.svg"
	mkdir -p "$tmp/elsewhere"
	check "drawn from another working directory too (the suite's plot files found beside the binary)" sh -c \
		"cd $tmp/elsewhere && $top/$N compare $tmp/cx3 $tmp/cx5 $IGN --out fig >o 2>e &&
		 . $top/tests/lib.sh && nm_figure_ok fig/ops-lat.png && nm_figure_ok fig/ops-lat.svg && ! grep -q failed e"
else
	skip "the overlay is drawn as PNG and SVG" "no gnuplot"
	skip "drawn from another working directory too (the suite's plot files found beside the binary)" "no gnuplot"
fi
mkdir -p "$tmp/fakebin"; printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 1\n' >"$tmp/fakebin/gnuplot"; chmod +x "$tmp/fakebin/gnuplot"
check "a failed drawing is a non-zero exit (1) naming the figure and its log" sh -c \
	"PATH=$tmp/fakebin:\$PATH $N compare $tmp/cx3 $tmp/cx5 $IGN --out $tmp/outf >$tmp/of 2>$tmp/ef; [ \$? = 1 ] &&
	 grep -q '^netmem: compare: drawing $tmp/outf/ops-lat.png failed (see $tmp/outf/ops-lat.gnuplot.log' $tmp/ef &&
	 grep -q '2 point(s) matched' $tmp/of"

# Parameters with no value in common are refused unless named.
check "a parameter with no value common to the runs is refused: one line per parameter, its values per run, exit 2" sh -c \
	"$N compare $tmp/cx3 $tmp/cx5 --out $tmp/o1 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && ! grep -qv '^netmem: compare: ' $tmp/e &&
	 [ \$(wc -l <$tmp/e) = 2 ] && grep -q 'parameter duration has no value common to all runs (in ops-lat: A=\[10\], B=\[2\]).*--ignore duration' $tmp/e &&
	 grep -q 'parameter ib_dev has no value common to all runs (in ops-lat: A=\[\"mlx4_0\"\], B=\[\"mlx5_0\"\]).*--ignore ib_dev' $tmp/e"
lockrun "$tmp/big" '[5, 10, 20]' '[1]' 100
lockrun "$tmp/small" '[2]' '[1]' 100
for order in "big small" "small big"; do
	set -- $order
	check "nodes 5,10,20 against nodes 2 ($1 first): refused, naming nodes and its values, exit 2" sh -c \
		"$N compare $tmp/$1 $tmp/$2 --out $tmp/o2 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && [ \$(wc -l <$tmp/e) = 1 ] &&
		 grep -q '^netmem: compare: parameter nodes has no value common to all runs (in lock: A=\[.*\], B=\[.*\]).*--ignore nodes' $tmp/e &&
		 grep -q '5,10,20' $tmp/e && ! grep -q 'matched' $tmp/o"
	check "with --ignore nodes ($1 first): three points that would pair with one are dropped as ambiguous, exit 2" sh -c \
		"$N compare $tmp/$1 $tmp/$2 --ignore nodes --out $tmp/o2 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && grep -q '^netmem: compare: ' $tmp/e &&
		 grep -q '^   dropped (one point): pairs several points (they differ only in ignored parameters): ' $tmp/o &&
		 grep -q 'nodes=5 | nodes=10 | nodes=20' $tmp/o && ! grep -q '^   (one point)' $tmp/o &&
		 grep -q '0 point(s) matched' $tmp/o"
done
lockrun "$tmp/eight" '[8]' '[1, 2, 4]' 100 1
lockrun "$tmp/two" '[2]' '[4, 2, 1]' 200 3
check "two parameters with no common value: two lines, exit 2" sh -c \
	"$N compare $tmp/eight $tmp/two --out $tmp/o3 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && [ \$(grep -c '^netmem: compare: parameter' $tmp/e) = 2 ] &&
	 grep -q 'parameter duration' $tmp/e && grep -q 'parameter nodes' $tmp/e"
check "--ignore names one of them: the other is still refused" sh -c \
	"$N compare $tmp/eight $tmp/two --ignore nodes --out $tmp/o3 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && [ \$(wc -l <$tmp/e) = 1 ] &&
	 grep -q 'parameter duration' $tmp/e"
check "--ignore as a comma list: one to one, three points" sh -c \
	"$N compare $tmp/eight $tmp/two --ignore nodes,duration --out $tmp/o3 >$tmp/oab 2>$tmp/e; [ \$? = $drawn ] &&
	 grep -q '3 point(s) matched' $tmp/oab && [ \$(grep -c 'B/A 0.500' $tmp/oab) = 3 ]"
check "--ignore repeated, arguments swapped: the same rows in the same order" sh -c \
	"$N compare $tmp/two $tmp/eight --ignore nodes --ignore duration --out $tmp/o3 >$tmp/oba 2>$tmp/e; [ \$? = $drawn ] &&
	 grep -q '3 point(s) matched' $tmp/oba && [ \$(grep -c 'B/A 2.000' $tmp/oba) = 3 ] &&
	 [ \"\$(awk '/^   [a-z_]+=/ { print \$1 }' $tmp/oab)\" = \"\$(awk '/^   [a-z_]+=/ { print \$1 }' $tmp/oba)\" ] &&
	 [ \"\$(awk '/^   [a-z_]+=/ { print \$1 }' $tmp/oab | tr '\n' ' ')\" = 'threads=1 threads=2 threads=4 ' ]"
expect_usage "--ignore of a parameter no document has" $N compare "$tmp/eight" "$tmp/two" --ignore nodez --out "$tmp/o3"

# --per node|thread: rates of clusters of different sizes
lockrun "$tmp/four" '[4]' '[2]' 100
lockrun "$tmp/pair" '[2]' '[1]' 150
check "--per node divides the rate by the point's nodes: 800/4 against 300/2, B/A 0.750" sh -c \
	"$N compare $tmp/four $tmp/pair --ignore nodes,threads --per node --out $tmp/o4 >$tmp/o 2>$tmp/e; [ \$? = $drawn ] &&
	 grep -q 'mops per node' $tmp/o && grep -q 'A 0.0002  *B 0.00015  *B/A 0.750' $tmp/o"
check "--per thread divides by nodes x threads: 800/8 against 300/2, B/A 1.500" sh -c \
	"$N compare $tmp/four $tmp/pair --ignore nodes,threads --per thread --y ops_per_sec --out $tmp/o4 >$tmp/o 2>$tmp/e; [ \$? = $drawn ] &&
	 grep -q 'ops_per_sec per thread' $tmp/o && grep -q 'A 100  *B 150  *B/A 1.500' $tmp/o"
jq '.summary[].params |= del(.threads)' "$tmp/pair/lock.json" >"$tmp/d.json" && mkdir -p "$tmp/nothreads" && mv "$tmp/d.json" "$tmp/nothreads/lock.json" &&
	pts "$tmp/nothreads/lock.json"
expect_usage "--per thread on points without threads" $N compare "$tmp/four" "$tmp/nothreads" --ignore nodes,threads --per thread --out "$tmp/o4"
check "--per thread on points without threads: the error names the parameter" sh -c \
	"$N compare $tmp/four $tmp/nothreads --ignore nodes,threads --per thread --out $tmp/o4 2>&1 >/dev/null | grep -q 'no params.threads'"
expect_usage "--per with a metric that is not a rate (a nested one, per thread already)" $N compare "$tmp/four" "$tmp/pair" --ignore nodes,threads --per node --y fairness.min_ops_per_sec --out "$tmp/o4"
expect_usage "--per with a metric that is not a rate (seconds)" $N compare "$tmp/four" "$tmp/pair" --ignore nodes,threads --per node --y seconds --out "$tmp/o4"
check "--per on documents without a rate: one line saying so, exit 2" sh -c \
	"$N compare $tmp/cx3 $tmp/cx5 $IGN --per node --out $tmp/o4 >$tmp/o 2>$tmp/e; [ \$? = 2 ] && [ \$(wc -l <$tmp/e) = 1 ] &&
	 grep -q '^netmem: compare: --per node: the documents the runs share have none of the rates' $tmp/e"
expect_usage "--per with neither node nor thread" $N compare "$tmp/four" "$tmp/pair" --per rank --out "$tmp/o4"

# What is dropped is listed with the reason.
run "$tmp/half" mlx5_0 16.35.2000 100 2 '[8, 64]' 1
jq '.summary[1].valid = false' "$tmp/half/ops-lat.json" >"$tmp/d.json" && mv "$tmp/d.json" "$tmp/half/ops-lat.json" && pts "$tmp/half/ops-lat.json"
for r in cx3 half; do
	jq '.summary = [{params: {x: 1}, reps: 1, valid: true, geomean: {foo: 1}}] | .experiment = "odd"' \
		"$tmp/$r/ops-lat.json" >"$tmp/$r/odd.json" && pts "$tmp/$r/odd.json"
done
cp "$tmp/cx3/ops-lat.json" "$tmp/cx3/ops-extra.json"
check "an invalid point, a document with no default metric, a document one run lacks: each listed, with the reason" sh -c \
	"$N compare $tmp/cx3 $tmp/half $IGN --out $tmp/o5 >$tmp/o 2>$tmp/e; [ \$? = $drawn ] &&
	 grep -q '^   dropped size=64: not valid in B' $tmp/o &&
	 grep -q '^== odd: not compared: it has none of the metrics compare draws by default' $tmp/o &&
	 grep -q '^== ops-extra: not compared: only in A (none in B)' $tmp/o && grep -q '1 point(s) matched' $tmp/o"

# A document that contradicts itself is not compared, and says why: a
# summary entry its points do not give (the value compare would show), and
# a document whose runs were on two NICs (its legend would name one).
mkdir -p "$tmp/stale" "$tmp/tworuns"
cp "$tmp/cx5/ops-lat.json" "$tmp/stale/ops-lat.json"
jq '.summary[0].geomean."lat.p50" = 99' "$tmp/cx5/ops-lat.json" >"$tmp/stale/ops-lat.json"
jq '.meta.runs += [.meta.runs[0] | .ranks[0].nic.device = "mlx4_0" | .ranks[0].nic.fw_ver = "2.42.5000"]' "$tmp/cx5/ops-lat.json" >"$tmp/tworuns/ops-lat.json"
for r in stale tworuns; do cp "$tmp/cx3/ops-extra.json" "$tmp/$r/ops-extra.json"; done
check "a summary entry its points do not give: not compared, the reason named" sh -c \
	"$N compare $tmp/cx3 $tmp/stale $IGN --out $tmp/o6 >$tmp/o 2>$tmp/e;
	 grep -q '^== ops-lat: not compared: inconsistent document in B: summary entry .* says lat.p50 = 99, its points give 8' $tmp/o &&
	 ! grep -q '^== ops-lat (experiment' $tmp/o"
check "a document whose runs were on two NICs: not compared, the reason named" sh -c \
	"$N compare $tmp/cx3 $tmp/tworuns $IGN --out $tmp/o6 >$tmp/o 2>$tmp/e;
	 grep -q '^== ops-lat: not compared: inconsistent document in B: its runs were on different NICs' $tmp/o &&
	 ! grep -q '^== ops-lat (experiment' $tmp/o"
mkdir -p "$tmp/rxe"
jq '.meta.runs[0].ranks[0].nic += {device: "RXE0", vendor_id: 16777215}' "$tmp/cx5/ops-lat.json" >"$tmp/rxe/ops-lat.json"
check "Soft-RoCE by its vendor id or a device name in capitals: the legend says so" sh -c \
	"$N compare $tmp/cx3 $tmp/rxe $IGN --out $tmp/o7 >$tmp/o 2>$tmp/e; grep -q 'run B: RXE0, .*Soft-RoCE (emulated)' $tmp/o"

# Refusals
run "$tmp/old" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/0
expect_usage "runs of different schema versions" $N compare "$tmp/cx5" "$tmp/old" --out "$tmp/out2"
run "$tmp/new1" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/2
run "$tmp/new2" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/2
expect_usage "documents of an unknown schema version, even the same in every run" $N compare "$tmp/new1" "$tmp/new2" --out "$tmp/out2"
check "an unknown schema: the line names the document and the schema" sh -c \
	"$N compare $tmp/new1 $tmp/new2 --out $tmp/out2 2>&1 >/dev/null | grep 'ops-lat.json' | grep -q 'netmem-result/2'"
mkdir -p "$tmp/other"; cp "$tmp/cx5/ops-lat.json" "$tmp/other/ops-bw.json"
expect_usage "runs with no document in common" $N compare "$tmp/cx5" "$tmp/other" --out "$tmp/out2"
run "$tmp/invalid" mlx5_0 16.35.2000 100 2 '[8, 64]' 1
jq '.summary[].valid = false' "$tmp/invalid/ops-lat.json" >"$tmp/d.json" && mv "$tmp/d.json" "$tmp/invalid/ops-lat.json" && pts "$tmp/invalid/ops-lat.json"
expect_usage "runs with no valid point in common" $N compare "$tmp/cx5" "$tmp/invalid" --out "$tmp/out2"
check "a refusal after the tables: the tables and the refusal reach a file" sh -c \
	"$N compare $tmp/cx5 $tmp/invalid --out $tmp/out2 >$tmp/of 2>$tmp/ef; [ \$? = 2 ] &&
	 grep -q '^== ops-lat' $tmp/of && grep -q 'dropped size=8: not valid in B' $tmp/of && grep -q '^netmem: compare: ' $tmp/ef"
check "... and one file for both" sh -c \
	"$N compare $tmp/cx5 $tmp/invalid --out $tmp/out2 >$tmp/of 2>&1; [ \$? = 2 ] &&
	 grep -q '^== ops-lat' $tmp/of && grep -q '^netmem: compare: ' $tmp/of"
check "... and a pipe" sh -c \
	"$N compare $tmp/cx5 $tmp/invalid --out $tmp/out2 2>&1 | cat >$tmp/of; grep -q '^== ops-lat' $tmp/of && grep -q '^netmem: compare: ' $tmp/of"
expect_usage "one run only" $N compare "$tmp/cx5"
check "--y with a metric no document has: one line naming --y and the metric, exit 2" sh -c \
	"$N compare $tmp/cx5 $tmp/half --out $tmp/out3 --y nosuch_metric >$tmp/oy 2>$tmp/ey; [ \$? = 2 ] &&
	 grep -q '^netmem: compare: --y nosuch_metric: no document the runs share has that metric' $tmp/ey &&
	 [ \$(grep -c '^netmem:' $tmp/ey) = 1 ]"

# Clover Fig. 3's document (experiment clover-state: a summary computed on the
# host from the packet path's tables, no points, no meta) is compared as a
# simulator's is: labelled by what computed it, never "no NIC record" and
# never an inconsistent document.
for r in sa sb; do
	mkdir -p "$tmp/$r"
	jq -n '{experiment: "clover-state", mode: "state-table", params: {conns: 64, switch_bytes: 64000000}, valid: true,
		summary: [{params: {keys: 8, conns: 64}, valid: true, geomean: {state_bytes: 3648}},
			{params: {keys: 10000, conns: 64}, valid: true, geomean: {state_bytes: 80000}}]}' >"$tmp/$r/clover-fig3.json"
done
check "clover-state: compared, each run computed from the packet path's tables (no NIC)" sh -c \
	"$N compare $tmp/sa $tmp/sb --y state_bytes --out $tmp/outs >$tmp/os 2>$tmp/es; [ \$? = $drawn ] &&
	 [ \$(grep -c '^   run [AB]: computed from the packet path.s tables (no NIC)\$' $tmp/os) = 2 ] &&
	 [ \$(grep -c 'B/A 1.000' $tmp/os) = 2 ] && ! grep -qi 'no NIC record\\|inconsistent' $tmp/os $tmp/es"
# CoRM Fig. 15's left panel is the paper's Intel cluster against its AMD
# one: the block collection per host CPU (rank 0's cpu_model, the server's),
# averaged over the remap strategies. A run's figure draws its own CPU;
# compare of two runs draws the paper's panel, a line per CPU.
# f15 DIR CPU K: a corm-fig15 document, collect_us = K x threads (+1 under rereg)
f15() {
	mkdir -p "$1"
	jq -n --arg cpu "$2" --argjson k "$3" '{
		schema: "netmem-result/1", experiment: "corm", spec: {},
		meta: {runs: [{emulated: false, nranks: 2, hosts: ["a", "b"],
			ranks: [{cpu_model: $cpu, nic: {device: "mlx5_0", fw_ver: "16.35.2000", link_layer: "InfiniBand", link_gbps: 100}},
				{cpu_model: "a client CPU", nic: {device: "mlx5_0", fw_ver: "16.35.2000", link_layer: "InfiniBand", link_gbps: 100}}]}]},
		points: [],
		summary: [["rereg", "odp-prefetch", "defer"][] as $s | [2, 4, 8, 16][] as $t | [4096, 65536][] as $b |
			{params: {bench: "collection", strategy: $s, threads: $t, block_size: $b}, reps: 1, valid: true,
			 geomean: {collect_us: ($k * $t + (if $s == "rereg" then 1 else 0 end)), compact_us: ($t * 10)}}]}' >"$1/corm-fig15.json"
	pts "$1/corm-fig15.json"
}
XEON='Intel(R) Xeon(R) CPU E5-2630 v3 @ 2.40GHz' EPYC='AMD EPYC 7742 64-Core Processor'
f15 "$tmp/xeon" "$XEON" 3
f15 "$tmp/epyc" "$EPYC" 5
check "table --series cpu_model: rank 0's CPU, one quoted header column, the mean over the strategies" sh -c \
	"$N table $tmp/xeon/corm-fig15.json --x threads --y collect_us --series cpu_model --mean-over strategy --where block_size=4096 >$tmp/t15 &&
	 [ \"\$(head -1 $tmp/t15)\" = 'threads \"$XEON\"' ] && grep -qx '2 6.333333333' $tmp/t15 && [ \$(wc -l <$tmp/t15) = 5 ]"
if command -v gnuplot >/dev/null 2>&1; then
	check "a run's Fig. 15: the collection's line is its host CPU" sh -c \
		"gnuplot -e \"in='$tmp/xeon/corm-fig15.json'; out='$tmp/xeon/f.svg'\" plots/corm_fig15.gp 2>$tmp/xeon/log &&
		 ! grep -q . $tmp/xeon/log && . tests/lib.sh && nm_figure_ok $tmp/xeon/f.svg && grep -qF '>$XEON<' $tmp/xeon/f.svg"
	check "compare of two clusters: Fig. 15's panel, one line per host CPU, as corm-fig15-paper" sh -c \
		"$N compare $tmp/xeon $tmp/epyc --y collect_us --out $tmp/o15 >$tmp/o 2>$tmp/e &&
		 grep -qx 'figure $tmp/o15/corm-fig15-paper.png' $tmp/o && grep -qx 'figure $tmp/o15/corm-fig15-paper.svg' $tmp/o &&
		 . tests/lib.sh && nm_figure_ok $tmp/o15/corm-fig15-paper.png && nm_figure_ok $tmp/o15/corm-fig15-paper.svg &&
		 grep -qF '>$XEON<' $tmp/o15/corm-fig15-paper.svg && grep -qF '>$EPYC<' $tmp/o15/corm-fig15-paper.svg &&
		 ! grep -q '>rereg<' $tmp/o15/corm-fig15-paper.svg"
	mkdir -p "$tmp/elsewhere15"
	check "... from another working directory too" sh -c \
		"cd $tmp/elsewhere15 && $top/$N compare $tmp/xeon $tmp/epyc --y collect_us --out fig >o 2>e &&
		 . $top/tests/lib.sh && nm_figure_ok fig/corm-fig15-paper.svg && grep -qF '>$EPYC<' fig/corm-fig15-paper.svg"
else
	skip "a run's Fig. 15: the collection's line is its host CPU" "no gnuplot"
	skip "compare of two clusters: Fig. 15's panel, one line per host CPU, as corm-fig15-paper" "no gnuplot"
	skip "... from another working directory too" "no gnuplot"
fi
t_summary
