#!/bin/sh
# netmem report (host only): the claims table computed from crafted result
# documents (reproduced, direction only, not reproduced, not run), emulated
# and NUMA-not-real runs marked and never counted as hardware reproductions,
# the self-contained page, and bad input (one line, exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# doc DIR NAME EXPERIMENT EMULATED SUMMARY [POINTS]: a result document with
# one run's metadata (a ConnectX-5, or rxe when EMULATED is true).
doc() {
	jq -n --arg exp "$3" --argjson emu "$4" --argjson summary "$5" --argjson points "${6:-[]}" '{
		schema: "netmem-result/1", experiment: $exp, spec: {},
		meta: {runs: [{emulated: $emu, nranks: 2, hosts: ["n1", "n2"], command_line: "netmem run x",
			ranks: [{cpu_model: "EPYC", nic: (if $emu then {device: "rxe0", fw_ver: "0.0.0", link_layer: "Ethernet", link_gbps: 10}
				else {device: "mlx5_0", fw_ver: "16.35.2000", link_layer: "Ethernet", link_gbps: 100, vendor_part_id: 4119} end)}]}]},
		points: $points, summary: $summary}' >"$1/$2.json"
}
e() { # e PARAMS GEOMEAN [VALID]: a summary entry
	echo "{\"params\": $1, \"reps\": 1, \"valid\": ${3:-true}, \"geomean\": $2}"
}

mkrun() { # mkrun DIR EMULATED
	mkdir -p "$1"
	doc "$1" alock-fig5 lock "$2" "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}'),
		$(e '{"lock":"alock","locks":20,"p_local":50,"nodes":2}' '{"ratio_to_mcs":3,"ratio_to_spin":2}'),
		$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":3}' '{"ratio_to_mcs":99,"ratio_to_spin":99}' false)]"
	doc "$1" loco-fig4b txn "$2" "[$(e '{"lock":"ticket","nodes":2}' '{"txns_per_sec":100}'),
		$(e '{"lock":"mpi","nodes":2}' '{"txns_per_sec":200}'),
		$(e '{"lock":"ticket","nodes":3}' '{"txns_per_sec":300}'), $(e '{"lock":"mpi","nodes":3}' '{"txns_per_sec":100}')]"
	doc "$1" numa-fig4 ops "$2" "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.08}'),
		$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}')]" \
		'[{"params": {}, "valid": true, "placement": {"numa_real": false}}]'
	# a figure file: a minimal SVG
	printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="red"/></svg>\n' \
		>"$1/alock-fig5.svg"
}
claim() { # claim DIR ID: its line on stdout
	grep "^claim $2:" "$1/out"
}

mkrun "$tmp/hw" false
check "report on a hardware run writes report.md and index.html" sh -c \
	"$N report $tmp/hw > $tmp/hw/out && [ -s $tmp/hw/report.md ] && [ -s $tmp/hw/index.html ]"
check "ALock 29x over MCS: measured 30 (the invalid 99 left out) is reproduced" sh -c \
	"grep -q '^claim alock-29x-mcs: reproduced (measured 30, hardware)' $tmp/hw/out"
check "ALock 22x over spin: measured 5 is direction only" sh -c \
	"grep -q '^claim alock-22x-spin: direction only (measured 5, hardware)' $tmp/hw/out"
check "LOCO ahead of MPI: min of the paired ratios (0.5) is not reproduced" sh -c \
	"grep -q '^claim loco-txn-vs-mpi: not reproduced (measured 0.5, hardware)' $tmp/hw/out"
check "Clover claims with no clover document are not run" sh -c \
	"grep -q '^claim clover-resolve-64: not run$' $tmp/hw/out && grep -q 'no clover document' $tmp/hw/report.md"
check "NUMA 5-10%: 1.08 reproduced, but NUMA not real, so not a hardware reproduction" sh -c \
	"grep -q '^claim numa-read-remote: reproduced (measured 1.08, NUMA not real, not a hardware reproduction)' $tmp/hw/out"
check "report.md counts one hardware reproduction, one direction only, one not reproduced" sh -c \
	"grep -q 'Hardware reproductions: 1 reproduced, 1 direction only, 1 not reproduced, of 3 claims computed on hardware. 1 claims computed from Soft-RoCE' $tmp/hw/report.md"
check "report.md: the figure beside its paper figure and caption, its NIC and point validity" sh -c \
	"grep -q '^### alock-fig5 (paper Fig. 5): Throughput for a variety' $tmp/hw/report.md &&
	 grep -q 'mlx5_0 (part 4119, fw 16.35.2000, Ethernet 100 Gb/s' $tmp/hw/report.md &&
	 grep -q 'Points: 0, valid 0' $tmp/hw/report.md"
check "index.html embeds the figure as a data URI" grep -q 'src="data:image/svg+xml;base64,' $tmp/hw/index.html
check "index.html is self-contained: no script, nothing fetched" sh -c \
	"! grep -Eiq '<script|src=\"(https?:)?//|href=\"(https?:)?//|<link' $tmp/hw/index.html"

mkrun "$tmp/emu" true
check "report on a Soft-RoCE run" sh -c "$N report $tmp/emu > $tmp/emu/out"
check "the same 30x on Soft-RoCE is not a hardware reproduction" sh -c \
	"grep -q '^claim alock-29x-mcs: reproduced (measured 30, Soft-RoCE (emulated), not a hardware reproduction)' $tmp/emu/out"
check "a Soft-RoCE run counts no hardware reproduction and says SOFT-ROCE (EMULATED)" sh -c \
	"grep -q 'Hardware reproductions: 0 reproduced, 0 direction only, 0 not reproduced, of 0 claims' $tmp/emu/report.md &&
	 grep -q 'SOFT-ROCE (EMULATED)' $tmp/emu/report.md && grep -q 'SOFT-ROCE (EMULATED)' $tmp/emu/index.html"

mkdir -p "$tmp/empty"
check "an empty run: every claim not run" sh -c \
	"$N report $tmp/empty > $tmp/empty/out && ! grep -v ': not run$' $tmp/empty/out | grep -q '^claim'"

# Figures, PNG and SVG, from the same script: those the host can draw without
# a NIC (the CoRM simulator's, and ALock Fig. 5 and Fig. 1 from a crafted
# lock document whose locks differ by orders of magnitude).
if command -v gnuplot >/dev/null 2>&1; then
	f=$tmp/fig; mkdir -p "$f"
	$N corm-sim --mode prob --sizes 128,256 --mc 500 -o "$f/corm-fig7.json" >/dev/null 2>&1
	$N corm-sim --mode synthetic -n 2000 --sizes 64,256 --free 0.5,0.9 -o "$f/corm-fig17.json" >/dev/null 2>&1
	$N corm-sim --trace tests/data/corm-synthetic.trace --samples 3 -o "$f/corm-fig18.json" >/dev/null 2>&1
	jq -n '{schema: "netmem-result/1", experiment: "lock", spec: {}, points: [],
		meta: {runs: [{emulated: true, nranks: 3, ranks: [{nic: {device: "rxe0", fw_ver: "0", link_layer: "Ethernet", link_gbps: 10}}]}]},
		summary: ([{lock: "alock", m: 400000}, {lock: "mcs", m: 9000}, {lock: "spin", m: 300}] | map(. as $l | [1, 2] | map(. as $t | [50, 100] |
			map({params: {lock: $l.lock, threads: $t, p_local: ., nodes: 2, locks: 20}, reps: 1, valid: true,
			     geomean: {ops_per_sec: ($l.m * $t * (. / 50))}}))) | flatten)}' >"$f/alock-fig5.json"
	# log_y_ok GP IN SVG: gnuplot leaves y on a log scale after GP, and the
	# SVG's y tick labels (10 with a superscript exponent) are at least three
	# consecutive powers of ten (a linear axis repeats or skips exponents)
	log_y_ok() {
		gnuplot -e "in='$2'; out='/dev/null'" "$1" -e "show logscale" 2>&1 | grep -q 'logscaling on .*y' &&
			grep -o 'dy="-[0-9.]*px">[0-9]*<' "$3" | sed 's/.*>\([0-9]*\)</\1/' | sort -un |
			awk 'NR > 1 && $1 != p + 1 { bad = 1 } { p = $1; n++ } END { exit bad || n < 3 }'
	}
	for fig in corm-fig7:corm_fig7:corm-fig7 corm-fig17:corm_fig17:corm-fig17 corm-fig18:corm_fig18:corm-fig18 \
		alock-fig5:alock_fig5:alock-fig5 alock-fig1:alock_fig1:alock-fig5; do
		name=${fig%%:*}; rest=${fig#*:}; gp=${rest%%:*}; src=${rest#*:}
		for ext in png svg; do
			gnuplot -e "in='$f/$src.json'; out='$f/$name.$ext'" "plots/$gp.gp" 2>"$f/gp.log"
			check "plots/$gp.gp draws $name.$ext: non-empty, a valid ${ext}, gnuplot silent" sh -c \
				". tests/lib.sh; nm_figure_ok $f/$name.$ext && ! grep -q . $f/gp.log"
		done
	done
	check "ALock Fig. 5: log y axis (set when the script ends; its SVG's y ticks consecutive powers of ten)" \
		log_y_ok plots/alock_fig5.gp "$f/alock-fig5.json" "$f/alock-fig5.svg"
	check "ALock Fig. 5: integer x ticks (1 and 2 only)" sh -c "! grep -q '>1.5<' $f/alock-fig5.svg"
	check "report on the figures' run embeds all five SVGs" sh -c \
		"$N report $f > $f/out && [ \$(grep -o 'data:image/svg+xml;base64,' $f/index.html | wc -l) -eq 5 ]"
else
	skip "figures drawn as PNG and SVG" "no gnuplot"
fi

expect_usage "report without a directory" $N report
expect_usage "report of a missing directory" $N report "$tmp/none"
echo '{"papers": [{"id": "x", "claims": [{"id": "c", "claim": "c", "experiment": "e", "metric": "m", "reduce": "median"}]}]}' >"$tmp/bad.json"
expect_usage "a claims file with an unknown reduction" $N report "$tmp/hw" --claims "$tmp/bad.json"
echo '{' >"$tmp/hw/broken.json"
expect_usage "a run with a document that does not parse" $N report "$tmp/hw"
# A value of 0 is a measurement (a count that had none): its claim gets a
# verdict, not "not run".
mkdir -p "$tmp/zero"
doc "$tmp/zero" corm-fig8 corm false "[$(e '{"strategy":"odp","block_size":4096}' '{"first_read_penalty_us":0}')]"
check "a measured 0 is evaluated: no first-read penalty after an ODP remap is not reproduced" sh -c \
	"$N report $tmp/zero > $tmp/zero/out && grep -q '^claim corm-first-read-odp: not reproduced (measured 0, hardware)' $tmp/zero/out"
t_summary
