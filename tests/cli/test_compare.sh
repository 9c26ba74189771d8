#!/bin/sh
# netmem compare (host only): two crafted runs of one experiment on different
# NICs (ConnectX-3 and ConnectX-5), with a parameter they do not share and a
# sweep they share in part; and the refusals (exit 2, one line).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

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
}
run "$tmp/cx3" mlx4_0 2.42.5000 56 10 '[8, 64, 4096]' 2
run "$tmp/cx5" mlx5_0 16.35.2000 100 2 '[8, 64, 1024]' 1

# with gnuplot a compare that draws exits 0; without, drawing fails: 1
if command -v gnuplot >/dev/null 2>&1; then drawn=0; else drawn=1; fi
check "compare two runs on different NICs" sh -c "$N compare $tmp/cx3 $tmp/cx5 --out $tmp/out > $tmp/o 2> $tmp/e; [ \$? = $drawn ]"
check "the legend names each run's device, firmware and link" sh -c \
	"grep -q 'run A: mlx4_0, fw 2.42.5000, InfiniBand 56 Gb/s' $tmp/o && grep -q 'run B: mlx5_0, fw 16.35.2000, InfiniBand 100 Gb/s' $tmp/o &&
	 grep -q 'A: mlx4_0, fw 2.42.5000' $tmp/out/ops-lat.dat"
check "the parameters the runs do not share are listed and left out of the matching" sh -c \
	"grep -q 'parameter duration differs: not matched on: A=\[10\], B=\[2\]' $tmp/o &&
	 grep -q 'parameter ib_dev differs: not matched on' $tmp/o"
check "a sweep shared in part is compared on its common values" sh -c \
	"grep -q 'parameter size compared on the values all runs have' $tmp/o && grep -q '2 point(s) matched' $tmp/o"
check "the ratio per point: B over A is 0.5 at every matched size" sh -c \
	"[ \$(grep -c 'B/A 0.500' $tmp/o) -eq 2 ] && grep -q 'size=8 ' $tmp/o && grep -q 'size=64 ' $tmp/o && ! grep -q 'size=4096 ' $tmp/o"
if command -v gnuplot >/dev/null 2>&1; then
	check "the overlay is drawn as PNG and SVG" sh -c \
		". tests/lib.sh; nm_figure_ok $tmp/out/ops-lat.png && nm_figure_ok $tmp/out/ops-lat.svg"
	mkdir -p "$tmp/elsewhere"
	check "drawn from another working directory too (the suite's plot files found beside the binary)" sh -c \
		"cd $tmp/elsewhere && $top/$N compare $tmp/cx3 $tmp/cx5 --out fig >o 2>e &&
		 . $top/tests/lib.sh && nm_figure_ok fig/ops-lat.png && nm_figure_ok fig/ops-lat.svg && ! grep -q failed e"
else
	skip "the overlay is drawn as PNG and SVG" "no gnuplot"
	skip "drawn from another working directory too (the suite's plot files found beside the binary)" "no gnuplot"
fi
mkdir -p "$tmp/fakebin"; printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 1\n' >"$tmp/fakebin/gnuplot"; chmod +x "$tmp/fakebin/gnuplot"
check "a failed drawing is a non-zero exit (1) naming the figure and its log" sh -c \
	"PATH=$tmp/fakebin:\$PATH $N compare $tmp/cx3 $tmp/cx5 --out $tmp/outf >$tmp/of 2>$tmp/ef; [ \$? = 1 ] &&
	 grep -q '^netmem: compare: drawing $tmp/outf/ops-lat.png failed (see $tmp/outf/ops-lat.gnuplot.log' $tmp/ef &&
	 grep -q '2 point(s) matched' $tmp/of"

run "$tmp/old" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/0
expect_usage "runs of different schema versions" $N compare "$tmp/cx5" "$tmp/old" --out "$tmp/out2"
run "$tmp/new1" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/2
run "$tmp/new2" mlx5_0 16.35.2000 100 2 '[8]' 1 netmem-result/2
expect_usage "documents of an unknown schema version, even the same in every run" $N compare "$tmp/new1" "$tmp/new2" --out "$tmp/out2"
check "an unknown schema: the line names the document and the schema" sh -c \
	"$N compare $tmp/new1 $tmp/new2 --out $tmp/out2 2>&1 >/dev/null | grep -q 'ops-lat.json is schema netmem-result/2'"
mkdir -p "$tmp/other"; cp "$tmp/cx5/ops-lat.json" "$tmp/other/ops-bw.json"
expect_usage "runs with no document in common" $N compare "$tmp/cx5" "$tmp/other" --out "$tmp/out2"
run "$tmp/invalid" mlx5_0 16.35.2000 100 2 '[8, 64]' 1
jq '.summary[].valid = false' "$tmp/invalid/ops-lat.json" >"$tmp/d.json" && mv "$tmp/d.json" "$tmp/invalid/ops-lat.json"
expect_usage "runs with no valid point in common" $N compare "$tmp/cx3" "$tmp/invalid" --out "$tmp/out2"
check "a refusal after the tables: the tables and the refusal reach a file" sh -c \
	"$N compare $tmp/cx3 $tmp/invalid --out $tmp/out2 >$tmp/of 2>$tmp/ef; [ \$? = 2 ] &&
	 grep -q '^== ops-lat' $tmp/of && grep -q '^netmem: compare: ' $tmp/ef"
check "... and one file for both" sh -c \
	"$N compare $tmp/cx3 $tmp/invalid --out $tmp/out2 >$tmp/of 2>&1; [ \$? = 2 ] &&
	 grep -q '^== ops-lat' $tmp/of && grep -q '^netmem: compare: ' $tmp/of"
check "... and a pipe" sh -c \
	"$N compare $tmp/cx3 $tmp/invalid --out $tmp/out2 2>&1 | cat >$tmp/of; grep -q '^== ops-lat' $tmp/of && grep -q '^netmem: compare: ' $tmp/of"
expect_usage "one run only" $N compare "$tmp/cx5"
check "--y with a metric no document has: one line naming --y and the metric, exit 2" sh -c \
	"$N compare $tmp/cx3 $tmp/cx5 --out $tmp/out3 --y nosuch_metric >$tmp/o3 2>$tmp/e3; [ \$? = 2 ] &&
	 grep -q '^netmem: compare: --y nosuch_metric: no document the runs share has that metric' $tmp/e3 &&
	 [ \$(grep -c '^netmem:' $tmp/e3) = 1 ]"
t_summary
