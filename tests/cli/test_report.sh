#!/bin/sh
# netmem report (host only): the claims table computed from crafted result
# documents and a crafted claims file (one claim per verdict: reproduced,
# above the paper's range, direction only, failed run, no matching points,
# not run, not exercised, a range by NIC part), emulated runs by any sign and
# NUMA claims without placement records marked and never counted as hardware
# reproductions, the self-contained page, and bad input: a bad claims file or
# a document of another schema is one line and exit 2, never a crash.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# doc DIR NAME EXPERIMENT EMULATED SUMMARY [PLACEMENT] [NIC]: a result
# document as the writer leaves it: one run's metadata (a ConnectX-5, or rxe
# when EMULATED is true; NIC, a JSON object, replaces the NIC record), the
# summary and, for each of its entries, the point it summarises (one
# repetition: its metrics the entry's geometric means, nested at the dots;
# PLACEMENT, a JSON object, the placement record of every point).
doc() {
	jq -n --arg exp "$3" --argjson emu "$4" --argjson summary "$5" --argjson placement "${6:-null}" --argjson nic "${7:-null}" '{
		schema: "netmem-result/1", experiment: $exp, spec: {},
		meta: {runs: [{emulated: $emu, nranks: 2, hosts: ["n1", "n2"], command_line: "netmem run x",
			ranks: ((if $nic != null then $nic elif $emu then {device: "rxe0", fw_ver: "0.0.0", link_layer: "Ethernet", link_gbps: 10}
				else {device: "mlx5_0", fw_ver: "16.35.2000", link_layer: "Ethernet", link_gbps: 100, vendor_part_id: 4119, driver: "mlx5_core"} end) as $n |
				[0, 1] | map({rank: ., cpu_model: "EPYC", nic: $n}))}]},
		points: [$summary[] | {key: ((.params | tojson) + "#0"), params, rep: 0, valid,
			metrics: (reduce (.geomean | to_entries[]) as $m ({}; setpath($m.key | split("."); $m.value)))}
			+ (if $placement != null then {placement: $placement} else {} end)],
		summary: $summary}' >"$1/$2.json"
}
e() { # e PARAMS GEOMEAN [VALID]: a summary entry
	echo "{\"params\": $1, \"reps\": 1, \"valid\": ${3:-true}, \"geomean\": $2}"
}
PLACED='{"numa_real": true}'

# The claims these checks evaluate: one per verdict and rule, so that the
# checks do not move when the papers' claims file is edited.
cat >"$tmp/claims.json" <<'EOC'
{"papers": [
 {"id": "alock", "title": "A", "figures": [{"figure": "alock-fig5", "paper_figure": "Fig. 5", "caption": "Throughput for a variety of workloads."}],
  "claims": [
  {"id": "t-repro", "figure": "Fig. 5", "claim": "c", "quote": "up to 29x", "where": "Sec. 1", "experiment": "lock", "documents": "alock-fig5",
   "select": {"nodes": 2, "p_local": 100}, "metric": "ratio_to_mcs", "reduce": "max", "paper_value": 29, "unit": "x",
   "reproduced": {"min": 20, "max": 40}, "direction": {"above": 1}},
  {"id": "t-above", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig5",
   "select": {"nodes": 2, "p_local": 90}, "metric": "ratio_to_mcs", "reduce": "max", "paper_value": 29, "unit": "x",
   "reproduced": {"min": 20, "max": 40}, "direction": {"above": 1}},
  {"id": "t-direction", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig5",
   "select": {"nodes": 2, "p_local": 100}, "metric": "ratio_to_spin", "reduce": "max", "paper_value": 22, "unit": "x",
   "reproduced": {"min": 16, "max": 33}, "direction": {"above": 1}},
  {"id": "t-failed", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig5",
   "select": {"p_local": 100}, "metric": "ratio_to_mcs", "reduce": "max", "paper_value": 29, "unit": "x",
   "reproduced": {"min": 20, "max": 40}, "direction": {"above": 1}},
  {"id": "t-anyof", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig5",
   "select": {"nodes": 2, "p_local": [100, 50]}, "metric": "ratio_to_mcs", "reduce": "mean", "paper_value": 15, "unit": "x",
   "reproduced": {"min": 10, "max": 20}, "direction": {"above": 1}},
  {"id": "t-nomatch", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig5",
   "select": {"p_local": 75}, "metric": "ratio_to_mcs", "reduce": "max", "paper_value": 29, "unit": "x",
   "reproduced": {"min": 20, "max": 40}, "direction": {"above": 1}},
  {"id": "t-notrun", "figure": "Fig. 9", "claim": "c", "quote": "q", "experiment": "lock", "documents": "alock-fig9",
   "metric": "ratio_to_mcs", "reduce": "max", "paper_value": 29, "unit": "x",
   "reproduced": {"min": 20, "max": 40}, "direction": {"above": 1}}]},
 {"id": "loco", "title": "L", "figures": [],
  "claims": [
  {"id": "t-ratio-failed", "figure": "Fig. 4b", "claim": "c", "quote": "q", "experiment": "txn", "documents": "loco-fig4b",
   "metric": "txns_per_sec", "ratio": {"num": {"lock": "ticket"}, "den": {"lock": "mpi"}}, "reduce": "min",
   "paper_value": 3, "unit": "x", "reproduced": {"min": 2, "max": 4}, "direction": {"above": 1}},
  {"id": "t-ratio", "figure": "Fig. 4b", "claim": "c", "quote": "q", "experiment": "txn", "documents": "loco-fig4b",
   "select": {"nodes": 2}, "metric": "txns_per_sec", "ratio": {"num": {"lock": "ticket"}, "den": {"lock": "mpi"}}, "reduce": "min",
   "paper_value": 3, "unit": "x", "reproduced": {"min": 2, "max": 4}, "direction": {"above": 1}}]},
 {"id": "corm", "title": "C", "figures": [],
  "claims": [
  {"id": "t-exercised", "figure": "Fig. 13", "claim": "c", "quote": "q", "experiment": "corm", "documents": "corm-fig13",
   "metric": "conflicts", "reduce": "max", "paper_value": 0, "unit": "", "reproduced": {"min": 0, "max": 0.01},
   "direction": {"below": 1}, "exercised": [{"metric": "conflicts", "min": 0}, {"metric": "shared_ops", "min": 1}]},
  {"id": "t-needs", "figure": "Fig. 16", "claim": "c", "quote": "q", "experiment": "corm", "documents": "corm-fig13",
   "metric": "conflicts", "reduce": "max", "paper_value": null, "unit": "", "direction": {"below": 1}, "needs": "a scalar it reads"},
  {"id": "t-zero", "figure": "Fig. 8", "claim": "c", "quote": "q", "experiment": "corm", "documents": "corm-fig8",
   "metric": "first_read_penalty_us", "reduce": "max", "paper_value": 30, "unit": " us", "reproduced": {"min": 15, "max": 60},
   "direction": {"above": 1}},
  {"id": "t-after", "figure": "Fig. 16", "claim": "c", "quote": "q", "experiment": "corm", "documents": "corm-fig16",
   "metric": "rpc_after_over_before", "reduce": "mean", "paper_value": 0.95, "unit": "x",
   "reproduced": {"min": 0.9375, "max": 0.9625}, "direction": {"below": 1}, "exercised": {"metric": "after_intervals", "min": 1}},
  {"id": "t-minus", "figure": "Fig. 8", "claim": "c", "quote": "q", "experiment": "corm", "documents": "corm-fig8",
   "metric": "first_read_us", "minus": "steady_read_us", "reduce": "mean", "paper_value": 30, "unit": " us",
   "reproduced": {"min": 15, "max": 60}, "direction": {"above": 1}}]},
 {"id": "numa", "title": "N", "figures": [],
  "claims": [
  {"id": "t-bynic", "figure": "Fig. 4", "claim": "c", "quote": "q", "experiment": "ops", "documents": "numa-fig4*",
   "metric": "mops", "ratio": {"num": {"buf_node": "nic"}, "den": {"buf_node": "other"}}, "reduce": "mean",
   "paper_value": 1.75, "unit": "x", "ranges_by_nic": [{"part": "ConnectX-3", "min": 1.7, "max": 1.8}],
   "direction": {"above": 1}}]}]}
EOC
C="--claims $tmp/claims.json"

mkrun() { # mkrun DIR EMULATED
	mkdir -p "$1"
	doc "$1" alock-fig5 lock "$2" "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}'),
		$(e '{"lock":"alock","locks":20,"p_local":50,"nodes":2}' '{"ratio_to_mcs":3,"ratio_to_spin":2}'),
		$(e '{"lock":"alock","locks":20,"p_local":90,"nodes":2}' '{"ratio_to_mcs":60,"ratio_to_spin":2}'),
		$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":3}' '{"ratio_to_mcs":99,"ratio_to_spin":99}' false)]"
	doc "$1" loco-fig4b txn "$2" "[$(e '{"lock":"ticket","nodes":2}' '{"txns_per_sec":100}'),
		$(e '{"lock":"mpi","nodes":2}' '{"txns_per_sec":200}'),
		$(e '{"lock":"ticket","nodes":3}' '{"txns_per_sec":300}'), $(e '{"lock":"mpi","nodes":3}' '{"txns_per_sec":0}')]"
	doc "$1" corm-fig13 corm "$2" "[$(e '{"clients":4}' '{"conflicts":0,"shared_ops":0}')]"
	# a compaction that outlasted its phase: no "after" rate to judge
	doc "$1" corm-fig16 corm "$2" "[$(e '{"find":"msg"}' '{"rpc_during_over_before":0.5,"after_intervals":0}')]"
	doc "$1" corm-fig8 corm "$2" "[$(e '{"strategy":"odp"}' '{"first_read_penalty_us":0,"first_read_us":3,"steady_read_us":5.5}')]"
	# a ConnectX-3 with placement records: its range applies
	doc "$1" numa-fig4 ops "$2" "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.75}'),
		$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}')]" "$PLACED" \
		"$( [ "$2" = true ] && echo null || echo '{"device": "mlx4_0", "vendor_part_id": 4099, "driver": "mlx4_core", "fw_ver": "2.42.5000"}')"
	# a figure file: a minimal SVG
	printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="red"/></svg>\n' \
		>"$1/alock-fig5.svg"
}
# verdict DIR ID TEXT: the claim's stdout line is exactly "claim ID: TEXT"
verdict() {
	line=$(grep "^claim $2:" "$1/out")
	if [ "$line" = "claim $2: $3" ]; then ok "$2: $3"; else notok "$2: want '$3', got '$line'"; fi
}

mkrun "$tmp/hw" false
check "report on a hardware run writes report.md and index.html" sh -c \
	"$N report $tmp/hw $C > $tmp/hw/out && [ -s $tmp/hw/report.md ] && [ -s $tmp/hw/index.html ]"
verdict "$tmp/hw" t-repro "reproduced (measured 30, hardware)"
verdict "$tmp/hw" t-above "above the paper's range (measured 60, hardware)"
verdict "$tmp/hw" t-direction "direction only (measured 5, hardware)"
verdict "$tmp/hw" t-failed "failed run (measured 30, hardware); 1 of 2 points failed; the value is over the valid ones"
verdict "$tmp/hw" t-anyof "reproduced (measured 16.5, hardware)"
verdict "$tmp/hw" t-nomatch 'no matching points; the selection matches no entry: p_local=75 (held: [100,50,90])'
verdict "$tmp/hw" t-notrun "not run"
verdict "$tmp/hw" t-ratio-failed "failed run (measured 0.5, hardware); 1 of 2 points failed; the value is over the valid ones"
verdict "$tmp/hw" t-ratio "not reproduced (measured 0.5, hardware)"
verdict "$tmp/hw" t-exercised "not exercised (measured 0, hardware); shared_ops reached 0, below the 1 the claim needs"
verdict "$tmp/hw" t-needs "not run; not computable yet: needs a scalar it reads"
verdict "$tmp/hw" t-zero "not reproduced (measured 0, hardware)"
verdict "$tmp/hw" t-after "not exercised (hardware); no selected entry exercised it: after_intervals reached 0, below the 1 the claim needs"
verdict "$tmp/hw" t-minus "not reproduced (measured -2.5, hardware)"
verdict "$tmp/hw" t-bynic "reproduced (measured 1.75, hardware)"
check "report.md lists what a claim left out, under its id" sh -c \
	"grep -q '^t-failed: 1 entry left out' $tmp/hw/report.md &&
	 grep -qF '{\"lock\":\"alock\",\"locks\":20,\"nodes\":3,\"p_local\":100}: failed (invalid point)' $tmp/hw/report.md &&
	 grep -qF 'txns_per_sec is 0, and the ratio divides by it' $tmp/hw/report.md"
check "report.md shows each claim's quote and where, and the range" sh -c \
	"grep -q 'up to 29x.* (Sec. 1)' $tmp/hw/report.md && grep -q '29x; range \[20, 40\]' $tmp/hw/report.md &&
	 grep -q 'ConnectX-3: \[1.7, 1.8\]' $tmp/hw/report.md"
check "report.md counts the hardware verdicts apart" \
	grep -q 'Hardware reproductions: 3 reproduced, 1 direction only, 3 not reproduced, of 12 claims computed on hardware (and 1 above the paper.s range, 0 below it, 2 failed runs, 2 not exercised)' "$tmp/hw/report.md"
check "report.md: the figure beside its paper figure and caption, its NIC and point validity" sh -c \
	"grep -q '^### alock-fig5 (paper Fig. 5): Throughput for a variety' $tmp/hw/report.md &&
	 grep -q 'mlx5_0 (part 4119, fw 16.35.2000, Ethernet 100 Gb/s' $tmp/hw/report.md &&
	 grep -q 'Points: 4, valid 3' $tmp/hw/report.md"
check "index.html embeds the figure as a data URI" grep -q 'src="data:image/svg+xml;base64,' $tmp/hw/index.html
check "index.html is self-contained: no script, nothing fetched" sh -c \
	"! grep -Eiq '<script|src=\"(https?:)?//|href=\"(https?:)?//|<link' $tmp/hw/index.html"

# The same claims where the NIC differs.
mkdir -p "$tmp/cx5"
doc "$tmp/cx5" numa-fig4 ops false "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.75}'),
	$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}')]" "$PLACED"
$N report "$tmp/cx5" $C >"$tmp/cx5/out" 2>&1
verdict "$tmp/cx5" t-bynic "direction only (measured 1.75, hardware)"
check "a NIC the claim has no range for: the report says so" grep -q 'none for ConnectX-5: direction only' "$tmp/cx5/report.md"
mkdir -p "$tmp/noplace"
doc "$tmp/noplace" numa-fig4 ops false "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.75}'),
	$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}')]" null '{"device": "mlx4_0", "vendor_part_id": 4099, "driver": "mlx4_core"}'
$N report "$tmp/noplace" $C >"$tmp/noplace/out" 2>&1
verdict "$tmp/noplace" t-bynic "reproduced (measured 1.75, NUMA not verified, not a hardware reproduction)"

mkrun "$tmp/emu" true
check "report on a Soft-RoCE run" sh -c "$N report $tmp/emu $C > $tmp/emu/out"
verdict "$tmp/emu" t-repro "reproduced (measured 30, Soft-RoCE (emulated), not a hardware reproduction)"
check "a Soft-RoCE run counts no hardware reproduction and says SOFT-ROCE (EMULATED)" sh -c \
	"grep -q 'Hardware reproductions: 0 reproduced, 0 direction only, 0 not reproduced, of 0 claims' $tmp/emu/report.md &&
	 grep -q 'SOFT-ROCE (EMULATED)' $tmp/emu/report.md && grep -q 'SOFT-ROCE (EMULATED)' $tmp/emu/index.html"
# Emulated by any sign: an rxe NIC record whose run lacks the flag, a
# siw driver, a run that names no NIC.
for sign in rxe:'{"device": "rxe0", "driver": "rxe", "vendor_part_id": 0}' \
	siw:'{"device": "x0", "driver": "siw"}' none:null; do
	k=${sign%%:*}; mkdir -p "$tmp/sign-$k"
	doc "$tmp/sign-$k" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}')]" null "${sign#*:}"
	[ "$k" = none ] && jq '.meta.runs[0].ranks = []' "$tmp/sign-$k/alock-fig5.json" >"$tmp/x" && mv "$tmp/x" "$tmp/sign-$k/alock-fig5.json"
	$N report "$tmp/sign-$k" $C >"$tmp/sign-$k/out" 2>&1
	if [ "$k" = none ]; then basis="no NIC record"; else basis="Soft-RoCE (emulated)"; fi
	verdict "$tmp/sign-$k" t-repro "reproduced (measured 30, $basis, not a hardware reproduction)"
done
# ... and by every field that can say so: the driver's module name, the
# device's name in any case, siw's or rxe's vendor id under another driver
# name, the flag as 1 or "true" in the NIC record or the run.
for sign in rdma_rxe:'{"device": "roce0", "driver": "rdma_rxe", "vendor_part_id": 0}' \
	RXE:'{"device": "RXE", "driver": "x"}' RXE0:'{"device": "RXE0", "vendor_part_id": 4119}' \
	siw-id:'{"device": "eth_rdma0", "driver": "mlx5_core", "vendor_id": 6450548, "vendor_part_id": 4119}' \
	rxe-id:'{"device": "r0", "driver": "mlx5_core", "vendor_id": 16777215, "vendor_part_id": 4119}' \
	flag-1:'{"device": "mlx5_0", "driver": "mlx5_core", "vendor_part_id": 4119, "emulated": 1}' \
	flag-str:'{"device": "mlx5_0", "driver": "mlx5_core", "vendor_part_id": 4119, "emulated": "true"}' run-flag:run; do
	k=${sign%%:*}; nic=${sign#*:}; mkdir -p "$tmp/sign-$k"
	[ "$nic" = run ] && nic=null
	doc "$tmp/sign-$k" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}')]" null "$nic"
	[ "$k" = run-flag ] && jq '.meta.runs[0].emulated = "true"' "$tmp/sign-$k/alock-fig5.json" >"$tmp/x" && mv "$tmp/x" "$tmp/sign-$k/alock-fig5.json"
	$N report "$tmp/sign-$k" $C >"$tmp/sign-$k/out" 2>&1
	verdict "$tmp/sign-$k" t-repro "reproduced (measured 30, Soft-RoCE (emulated), not a hardware reproduction)"
done

# Documents that contradict themselves, their names or the claim's one NIC:
# each claim reading them is "inconsistent document: WHY", never a value.
# C2 adds claims whose range depends on the server's NIC, on Fig. 5's
# document, and on a simulator's.
jq '.papers[3].claims += [
  {"id": "t-server", "figure": "Fig. 4", "claim": "c", "quote": "q", "experiment": "ops", "documents": "numa-fig4*",
   "metric": "mops", "ratio": {"num": {"buf_node": "nic"}, "den": {"buf_node": "other"}}, "reduce": "mean",
   "paper_value": 1.75, "unit": "x", "ranges_by_nic": [{"part": "ConnectX-3", "min": 1.7, "max": 1.8}, {"part": "ConnectX-4", "min": 2.25, "max": 3.75}],
   "nic_of": "server", "direction": {"above": 1}},
  {"id": "t-fig5", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "ops", "documents": "numa-fig5",
   "select": {"op": "write"}, "metric": "mops", "ratio": {"num": {"buf_node": "other"}, "den": {"buf_node": "nic"}}, "reduce": "mean",
   "paper_value": 3, "unit": "x", "reproduced": {"min": 2.25, "max": 3.75}, "direction": {"above": 1}}]
 | .papers[2].claims += [
  {"id": "t-sim", "figure": "Fig. 7", "claim": "c", "quote": "q", "experiment": "corm-sim", "documents": "corm-fig7",
   "metric": "reduction", "reduce": "max", "paper_value": 2, "unit": "x", "reproduced": {"min": 1.5, "max": 3}, "direction": {"above": 1}}]
 | .papers += [{"id": "clover", "title": "K", "figures": [], "claims": [
  {"id": "t-state", "figure": "Fig. 3", "claim": "c", "quote": "q", "experiment": "clover-state", "documents": "clover-fig3",
   "select": {"keys": 10000}, "metric": "state_bytes", "reduce": "value", "paper_value": 80000, "unit": "bytes",
   "reproduced": {"min": 60000, "max": 100000}}]}]' \
	"$tmp/claims.json" >"$tmp/claims2.json"
C2="--claims $tmp/claims2.json"
CX3='{"device": "mlx4_0", "vendor_part_id": 4099, "driver": "mlx4_core", "fw_ver": "2.42.5000"}'
CX4='{"device": "mlx5_0", "vendor_part_id": 4115, "driver": "mlx5_core", "fw_ver": "12.28.2006"}'
fig4() { # fig4 DIR [NAME] [NIC]: NUMA Fig. 4's two READ entries, placed, ratio 1.75
	doc "$1" "${2:-numa-fig4}" ops false "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.75}'),
		$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}')]" "$PLACED" "${3:-$CX3}"
}
edit() { # edit FILE JQ: the document edited in place
	jq "$2" "$1" >"$tmp/x" && mv "$tmp/x" "$1"
}
case_dir() { # case_dir NAME: a fresh run directory
	rm -rf "$tmp/c-$1"; mkdir -p "$tmp/c-$1"; echo "$tmp/c-$1"
}
# incons DIR ID WHY-PATTERN: the claim is an inconsistent document, and why
incons() {
	line=$(grep "^claim $2:" "$1/out")
	case $line in
	"claim $2: inconsistent document: "*) if echo "$line" | grep -q -- "$3"; then ok "$2 on $(basename "$1"): inconsistent document ($3)"
		else notok "$2 on $(basename "$1"): want the reason '$3', got '$line'"; fi ;;
	*) notok "$2 on $(basename "$1"): want 'inconsistent document: ...$3...', got '$line'" ;;
	esac
}
rep() { $N report "$1" $C2 >"$1/out" 2>&1; }

# The wrong NIC decides: the range is the server's NIC's (rank 1: ops's
# target), not rank 0's, the client's; a claim naming no rank needs every
# rank's NIC to agree; two documents of two NIC generations, or one whose
# runs were on two NICs, are inconsistent.
d=$(case_dir server-nic); fig4 "$d"
edit "$d/numa-fig4.json" --argjson cx4 "$CX4" '.meta.runs[0].ranks[1].nic = $cx4' 2>/dev/null ||
	edit "$d/numa-fig4.json" ".meta.runs[0].ranks[1].nic = $CX4"
rep "$d"
verdict "$d" t-server "direction only (measured 1.75, hardware)"
check "the range by NIC is the server's (ConnectX-4), named in report.md" grep -q 'ConnectX-4 (server): \[2.25, 3.75\]' "$d/report.md"
incons "$d" t-bynic "the ranks' NIC differs: ConnectX-3 (numa-fig4, run 1, rank 0) and ConnectX-4 (numa-fig4, run 1, rank 1)"
d=$(case_dir two-docs); fig4 "$d"; fig4 "$d" numa-fig4b "$CX4"
rep "$d"
incons "$d" t-server "the server NIC differs: ConnectX-3 (numa-fig4, .*) and ConnectX-4 (numa-fig4b"
incons "$d" t-bynic "NIC differs"
d=$(case_dir two-runs); fig4 "$d" numa-fig4 "$CX4"
edit "$d/numa-fig4.json" ".meta.runs += [.meta.runs[0] | .ranks |= map(.nic = $CX3)]"
rep "$d"
incons "$d" t-server "the server NIC differs: ConnectX-4 (numa-fig4, run 1, rank 1) and ConnectX-3 (numa-fig4, run 2, rank 1)"

# The summary is checked against the points: an entry without points
# (reps 0), or marked valid where its only point is invalid, or with a value
# its points do not give.
d=$(case_dir no-points)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}')]"
edit "$d/alock-fig5.json" '.points = [] | .summary[0].reps = 0'
rep "$d"
incons "$d" t-repro 'summary entry {"lock":"alock","locks":20,"nodes":2,"p_local":100} has no points'
d=$(case_dir invalid-point)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}')]"
edit "$d/alock-fig5.json" '.points[0].valid = false'
rep "$d"
incons "$d" t-repro 'says valid true, its points say false'
d=$(case_dir stale-value)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30,"ratio_to_spin":5}')]"
edit "$d/alock-fig5.json" '.points[0].metrics.ratio_to_mcs = 3'
rep "$d"
incons "$d" t-repro 'says ratio_to_mcs = 30, its points give 3'
check "report.md says the document is inconsistent, under it" grep -q 'INCONSISTENT DOCUMENT: summary entry' "$d/report.md"

# Duplicate parameters with conflicting values (22x and 1.5x): never the max.
d=$(case_dir duplicates)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":22}'),
	$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":1.5}')]"
edit "$d/alock-fig5.json" '.points[1].rep = 1 | .points[1].key |= sub("#0$"; "#1")'
rep "$d"
incons "$d" t-repro 'duplicate parameters {"lock":"alock","locks":20,"nodes":2,"p_local":100}'

# The document is not what its name says: numa-fig4.json made by the
# numa-vc config (its command line, or its spec against the suite's
# configs), and a numa-fig5 whose 64 B / 50%-write variant points lie outside
# its spec's sweep.
d=$(case_dir vc-command); fig4 "$d"
edit "$d/numa-fig4.json" '.meta.runs[0].command_line = "bin/netmem run configs/quick/numa-vc.json --output results/q/numa-fig4.json --resume"'
rep "$d"
incons "$d" t-bynic 'numa-fig4 is named after config numa-fig4, but its command line ran config numa-vc'
d=$(case_dir vc-spec); fig4 "$d"
edit "$d/numa-fig4.json" '.spec = {"op": ["read", "write"], "mode": "bw", "size": 8, "buf_node": ["nic", "other"], "load_node": ["any", "nic", "other"], "load_threads": 2, "mtu": 256}
	| .meta.runs[0].command_line = "bin/netmem ops --size 8 --load-node any,nic,other -o numa-fig4.json"'
rep "$d"
incons "$d" t-bynic 'numa-fig4 is not what config numa-fig4 runs: its spec has size = 8, config configs/check/numa-fig4.json has \[8,64\]'
d=$tmp/own-config; mkdir -p "$d"; fig4 "$d" # the control: a document that is its config's
edit "$d/numa-fig4.json" ".spec = $(jq -c .params configs/check/numa-fig4.json)
	| .meta.runs[0].command_line = \"bin/netmem run configs/check/numa-fig4.json --output results/c/numa-fig4.json --resume\""
rep "$d"
verdict "$d" t-bynic "reproduced (measured 1.75, hardware)"
d=$(case_dir fig5-variant)
doc "$d" numa-fig5 ops false "[$(e '{"op":"write","buf_node":"other","size":8,"server_write_ratio":0.9}' '{"mops":1.2}'),
	$(e '{"op":"write","buf_node":"nic","size":8,"server_write_ratio":0.9}' '{"mops":1}'),
	$(e '{"op":"write","buf_node":"other","size":64,"server_write_ratio":0.5}' '{"mops":5}'),
	$(e '{"op":"write","buf_node":"nic","size":64,"server_write_ratio":0.5}' '{"mops":1}')]" "$PLACED"
edit "$d/numa-fig5.json" '.spec = {"op": ["read", "write"], "size": 8, "buf_node": ["nic", "other"], "server_write_ratio": 0.9}'
rep "$d"
incons "$d" t-fig5 'outside its spec.s sweep: size = 64, the spec has 8'

# Bad numbers fail the claim: a negative metric, a null geomean (a
# repetition without the metric) in the selection.
d=$(case_dir negative)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30}'),
	$(e '{"lock":"alock","locks":1000,"p_local":100,"nodes":2}' '{"ratio_to_mcs":-5}')]"
rep "$d"
incons "$d" t-repro 'says ratio_to_mcs = -5, its points give null'
d=$(case_dir sim-negative)
jq -n '{experiment: "corm-sim", mode: "prob", params: {}, summary: [{params: {size: 128}, valid: true, geomean: {reduction: 2}},
	{params: {size: 256}, valid: true, geomean: {reduction: -2}}]}' >"$d/corm-fig7.json"
rep "$d"
incons "$d" t-sim 'corm-fig7 {"size":256}: reduction is negative (-2)'
d=$(case_dir null)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30}'),
	$(e '{"lock":"alock","locks":1000,"p_local":100,"nodes":2}' '{"ratio_to_mcs":null,"ops_per_sec":10}')]"
edit "$d/alock-fig5.json" '.summary[1].reps = 2 | .summary[1].geomean.ops_per_sec = 10
	| .points[1].metrics = {"ops_per_sec": 10} | .points += [.points[1] | .rep = 1 | .key |= sub("#0$"; "#1") | .metrics.ratio_to_mcs = 40]'
rep "$d"
incons "$d" t-repro 'ratio_to_mcs is null'

# "Exercised" holds only when every selected entry reaches the threshold.
d=$(case_dir exercised)
doc "$d" corm-fig13 corm false "[$(e '{"clients":4}' '{"conflicts":0,"shared_ops":5}'), $(e '{"clients":8}' '{"conflicts":0,"shared_ops":0}')]"
rep "$d"
verdict "$d" t-exercised "not exercised (measured 0, hardware); shared_ops reached 0 in some entry used, below the 1 the claim needs"

# Simulation is the experiment's: a lock document without meta is no
# simulation (no NIC record), a simulator's document with a NIC record is.
d=$(case_dir no-meta)
doc "$d" alock-fig5 lock false "[$(e '{"lock":"alock","locks":20,"p_local":100,"nodes":2}' '{"ratio_to_mcs":30}')]"
edit "$d/alock-fig5.json" 'del(.meta)'
rep "$d"
verdict "$d" t-repro "reproduced (measured 30, no NIC record, not a hardware reproduction)"
d=$(case_dir sim-nic)
jq -n '{experiment: "corm-sim", mode: "prob", params: {}, summary: [{params: {size: 128}, valid: true, geomean: {reduction: 2}}],
	meta: {runs: [{emulated: false, nranks: 1, ranks: [{rank: 0, nic: {device: "mlx5_0", vendor_part_id: 4119, driver: "mlx5_core"}}]}]}}' >"$d/corm-fig7.json"
rep "$d"
verdict "$d" t-sim "reproduced (measured 2, simulation)"
d=$(case_dir sim-duplicate)
jq -n '{experiment: "corm-sim", mode: "prob", params: {}, summary: [{params: {size: 128}, valid: true, geomean: {reduction: 2}},
	{params: {size: 128}, valid: true, geomean: {reduction: 9}}]}' >"$d/corm-fig7.json"
rep "$d"
incons "$d" t-sim 'duplicate parameters {"size":128}'
# Clover Fig. 3's document is computed on the host from the packet path's
# tables, as netmem clover-path --state-table writes it (a summary, no points,
# no meta): computed without a NIC, as a simulator's, never hardware and never
# "no NIC record".
d=$(case_dir clover-state)
jq -n '{experiment: "clover-state", mode: "state-table", params: {conns: 64, switch_bytes: 64000000}, valid: true,
	summary: [{params: {keys: 8, conns: 64}, valid: true, geomean: {state_bytes: 3648}},
		{params: {keys: 10000, conns: 64}, valid: true, geomean: {state_bytes: 80000}}]}' >"$d/clover-fig3.json"
rep "$d"
verdict "$d" t-state "reproduced (measured 8e+04, simulation)"
check "clover-state: counted as computed on the host, not hardware, not a missing NIC record" sh -c \
	"grep -q '^Hardware reproductions: 0 reproduced, 0 direction only, 0 not reproduced, of 0 claims computed on hardware' $d/report.md &&
	 grep -q '; 1 computed on the host, by a simulator or from the packet path.s tables (no NIC involved);' $d/report.md &&
	 grep -q '^1 documents are computed on the host' $d/report.md && ! grep -qi 'no NIC record' $d/report.md $d/out &&
	 grep -q 'Hardware: computed from the packet path.s tables (no NIC measured)' $d/report.md"

# Placement is checked entry by entry: a record on one unrelated point
# verifies nothing else.
d=$(case_dir placement)
doc "$d" numa-fig4 ops false "[$(e '{"op":"read","buf_node":"nic","size":8}' '{"mops":1.75}'),
	$(e '{"op":"read","buf_node":"other","size":8}' '{"mops":1.0}'), $(e '{"op":"write","buf_node":"nic","size":8}' '{"mops":1.0}')]" null "$CX3"
edit "$d/numa-fig4.json" '.points[2].placement = {"numa_real": true}'
rep "$d"
verdict "$d" t-bynic "reproduced (measured 1.75, NUMA not verified, not a hardware reproduction)"

# Whatever the input above, no claim of those runs says "reproduced" on hardware.
check "no crafted inconsistent run yields a hardware reproduction" sh -c \
	"! cat $tmp/c-*/out | grep -q '^claim [^:]*: reproduced (measured [^,]*, hardware)'"

# Every figure's title (plots/common.gp) is netmem table --describe: the
# part by name, Soft-RoCE by any sign, and the invalid points it does not draw.
check "figure title: the part by name and the invalid points not drawn" sh -c \
	"$N table $tmp/hw/alock-fig5.json --describe | grep -q 'mlx5_0, ConnectX-5, fw 16.35.2000, .* - 1 of 4 points INVALID, not drawn'"
check "figure title: Soft-RoCE by its NIC record alone" sh -c \
	"$N table $tmp/sign-rxe/alock-fig5.json --describe | grep -q 'SOFT-ROCE (EMULATED)' &&
	 ! $N table $tmp/hw/alock-fig5.json --describe | grep -q 'SOFT-ROCE'"

mkdir -p "$tmp/empty"
check "an empty run: every claim of the papers' file not run" sh -c \
	"$N report $tmp/empty > $tmp/empty/out && grep -q '^claim' $tmp/empty/out && ! grep -v ': not run\(; .*\)\?$' $tmp/empty/out | grep -q '^claim'"
n_claims=$(jq '[.papers[].claims[]] | length' plots/claims.json)
check "every claim of the papers' file has its quote in the report ($n_claims claims)" sh -c \
	"[ \$(grep -c '^claim' $tmp/empty/out) -eq $n_claims ] && [ \$(grep -c '“' $tmp/empty/report.md) -eq $n_claims ] &&
	 ! grep -q '(null)' $tmp/empty/report.md"

# Figures, PNG and SVG, from the same script: those the host can draw without
# a NIC (the CoRM simulator's, and ALock Fig. 5 and Fig. 1 from a crafted
# lock document whose locks differ by orders of magnitude).
if command -v gnuplot >/dev/null 2>&1; then
	f=$tmp/fig; mkdir -p "$f"
	$N corm-sim --mode prob --sizes 128,256 --mc 500 -o "$f/corm-fig7.json" >/dev/null 2>&1
	$N corm-sim --mode synthetic -n 2000 --sizes 64,256 --free 0.5,0.9 -o "$f/corm-fig17.json" >/dev/null 2>&1
	$N corm-sim --mode sweep --redis t1,t3 --redis-scale 0.02 -b 1M --thread-counts 1,4 -o "$f/corm-fig18.json" >/dev/null 2>&1
	$N corm-sim --mode sweep --redis t1,t3 --redis-scale 0.02 -b 1M --thread-counts 1,4 --hybrid -o "$f/corm-fig19.json" >/dev/null 2>&1
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
	for fig in corm-fig7:corm_fig7:corm-fig7 corm-fig17:corm_fig17:corm-fig17 corm-fig18:corm_fig18:corm-fig18 corm-fig19:corm_fig19:corm-fig19 \
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
	check "report on the figures' run embeds all six SVGs" sh -c \
		"$N report $f > $f/out && [ \$(grep -o 'data:image/svg+xml;base64,' $f/index.html | wc -l) -eq 6 ]"
	# LOCO Fig. 5 from crafted kv documents holding every system at windows
	# 3 and 128 (2 and 3 nodes): the paper's series in loco-fig5 (Sec. 7.2),
	# the others in loco-fig5-extra; with window 3 of LOCO and Sherman only
	# (the check scale), loco-fig5-extra says there is none.
	k=$tmp/kvfig; mkdir -p "$k/chk"
	for r in 2 3; do
		jq -n --argjson r "$r" '{schema: "netmem-result/1", experiment: "kv", spec: {}, points: [],
			meta: {runs: [{emulated: true, nranks: $r, ranks: [{nic: {device: "rxe0", fw_ver: "0", link_layer: "Ethernet", link_gbps: 10}}]}]},
			summary: ([{s: "loco", m: 100000}, {s: "sherman", m: 80000}, {s: "scythe", m: 50000}, {s: "redis", m: 3000}] |
				map(. as $s | [3, 128] | map(. as $w | ["uniform", "zipfian"] | map(. as $d | [1, 2] |
				map({params: {system: $s.s, window: $w, workload: "read-only", dist: $d, threads: .}, reps: 1, valid: true,
				     geomean: {ops_per_sec: ($s.m * . * $r * ($w / 3))}})))) | flatten)}' >"$k/loco-fig5.n$r.json"
		jq '.summary |= map(select(.params.window == 3 and (.params.system == "loco" or .params.system == "sherman")))' \
			"$k/loco-fig5.n$r.json" >"$k/chk/loco-fig5.n$r.json"
	done
	# series D GP: the sorted key titles of GP's SVG over D's two documents
	series() {
		gnuplot -e "in='$1/loco-fig5.n2.json $1/loco-fig5.n3.json'; out='$1/$2.svg'" "plots/$2.gp" 2>"$1/$2.log" &&
			! grep -q . "$1/$2.log" && grep -o '>[a-z]* W=[0-9]*<' "$1/$2.svg" | tr -d '<>' | sort -u | tr '\n' ','
	}
	check "LOCO Fig. 5: the paper's series only (LOCO at 3 and 128, Sherman and Scythe at 3, Redis at 128)" \
		test "$(series "$k" loco_fig5)" = "loco W=128,loco W=3,redis W=128,scythe W=3,sherman W=3,"
	check "LOCO Fig. 5's other windows apart (Redis at 3, Sherman and Scythe at 128)" \
		test "$(series "$k" loco_fig5_extra)" = "redis W=3,scythe W=128,sherman W=128,"
	check "LOCO Fig. 5 at the check scale: LOCO and Sherman at 3" \
		test "$(series "$k/chk" loco_fig5)" = "loco W=3,sherman W=3,"
	check "LOCO Fig. 5 at the check scale: the other windows' figure drawn, saying there is none" sh -c \
		"gnuplot -e \"in='$k/chk/loco-fig5.n2.json $k/chk/loco-fig5.n3.json'; out='$k/chk/x.png'\" plots/loco_fig5_extra.gp 2>$k/chk/log &&
		 . tests/lib.sh && nm_figure_ok $k/chk/x.png && ! grep -q . $k/chk/log &&
		 gnuplot -e \"in='$k/chk/loco-fig5.n2.json $k/chk/loco-fig5.n3.json'; out='$k/chk/x.svg'\" plots/loco_fig5_extra.gp &&
		 grep -q 'none: every series of these documents is one the paper draws' $k/chk/x.svg"
else
	skip "figures drawn as PNG and SVG" "no gnuplot"
fi

expect_usage "report without a directory" $N report
expect_usage "report of a missing directory" $N report "$tmp/none"
# bad claims files: one line naming the claim, exit 2, never a crash
bad() { # bad WHAT JQ-EDIT: the test claims with one edit
	jq "$2" "$tmp/claims.json" >"$tmp/bad.json"
	expect_usage "a claims file with $1" $N report "$tmp/hw" --claims "$tmp/bad.json"
}
bad "an unknown reduction" '.papers[0].claims[0].reduce = "median"'
bad "a paper without a title" 'del(.papers[0].title)'
bad "a claim without its quote" 'del(.papers[0].claims[0].quote)'
bad "a numeric claim with one bound" 'del(.papers[0].claims[0].reproduced.max)'
bad "bounds the wrong way round" '.papers[0].claims[0].reproduced = {"min": 40, "max": 20}'
bad "the paper's value outside its bounds" '.papers[0].claims[0].paper_value = 50'
bad "a misspelt key" '.papers[0].claims[0].selct = {}'
bad "a direction every value passes" '.papers[0].claims[0].direction = {"above": 0}'
bad "a range below its own direction" '.papers[0].claims[0].direction = {"above": 25}'
bad "a ranges_by_nic entry without its part" '.papers[3].claims[0].ranges_by_nic[0] |= del(.part)'
bad "a minus beside a ratio" '.papers[1].claims[1].minus = "txns_per_sec"'
bad "an empty minus" '.papers[2].claims[3].minus = ""'
check "a bad claims file's line names the claim" sh -c \
	"jq 'del(.papers[0].claims[1].quote)' $tmp/claims.json > $tmp/bad.json; $N report $tmp/hw --claims $tmp/bad.json 2>&1 | grep -q \"claim 't-above' of paper 'alock'\""
# A config sweeping its rank count ("ranks": [2, 3]) leaves one document per
# count, NAME.n2 and NAME.n3: a claim naming NAME reads both (a ratio pairs
# entries within one document), the figure NAME shows both documents, and
# netmem table tells them apart by "ranks", the job's rank count.
mkdir -p "$tmp/nodes"
for r in 2 3; do
	doc "$tmp/nodes" "kvs.n$r" kv true "[$(e '{"system": "loco", "threads": 1}' "{\"ops_per_sec\": $((r * 300))}"),
		$(e '{"system": "sherman", "threads": 1}' "{\"ops_per_sec\": $((r * r * 100))}")]"
	jq --argjson r "$r" '.meta.runs[0].nranks = $r' "$tmp/nodes/kvs.n$r.json" >"$tmp/x" && mv "$tmp/x" "$tmp/nodes/kvs.n$r.json"
done
cp "$tmp/hw/alock-fig5.svg" "$tmp/nodes/kvs.svg" 2>/dev/null || echo '<svg></svg>' >"$tmp/nodes/kvs.svg"
cat >"$tmp/nodes-claims.json" <<'EOC'
{"papers": [{"id": "loco", "title": "L", "figures": [{"figure": "kvs", "paper_figure": "Fig. 5", "caption": "c"}],
  "claims": [{"id": "t-counts", "figure": "Fig. 5", "claim": "c", "quote": "q", "experiment": "kv", "documents": "kvs",
   "select": {}, "metric": "ops_per_sec", "ratio": {"num": {"system": "loco"}, "den": {"system": "sherman"}},
   "reduce": "min", "paper_value": null, "unit": "x", "direction": {"above": 1}}]}]}
EOC
$N report "$tmp/nodes" --claims "$tmp/nodes-claims.json" >"$tmp/nodes/out" 2>&1
check "a claim naming a config reads each rank count's document (NAME.n2, NAME.n3)" sh -c \
	"grep -q '^claim t-counts: not reproduced (measured 1,' $tmp/nodes/out && grep -q 'kvs.n2, kvs.n3' $tmp/nodes/report.md"
check "the figure shows both documents, each of its config" sh -c \
	"grep -q 'Document kvs.n2.json (experiment kv, config kvs)' $tmp/nodes/report.md &&
	 grep -q 'Document kvs.n3.json (experiment kv, config kvs)' $tmp/nodes/report.md &&
	 ! grep -q 'Other documents' $tmp/nodes/report.md"
check "netmem table: the rank count of each document as \"ranks\"" sh -c \
	"[ \"\$($N table $tmp/nodes/kvs.n2.json $tmp/nodes/kvs.n3.json --values ranks)\" = '2 3' ] &&
	 $N table $tmp/nodes/kvs.n2.json $tmp/nodes/kvs.n3.json --x ranks --y ops_per_sec --series system --where system=loco | grep -qx '3 900'"
# What an experiment derives (harness/experiment.h: derive): netmem corm's
# clients, its -T on every client rank (all but the server), so that CoRM
# Figs. 12 and 13 count 16 and 32 clients on 2 and 4 client hosts (8 each)
# beside 1 to 8 on one; a point naming clients itself keeps its own; the
# local bench's threads are the server's, no clients.
mkdir -p "$tmp/hosts"
doc "$tmp/hosts" cx corm true "[$(e '{"bench": "throughput", "threads": 4}' '{"ops_per_sec": 400}'),
	$(e '{"bench": "throughput", "threads": 8}' '{"ops_per_sec": 800}'), $(e '{"bench": "local", "threads": 2}' '{"ops_per_sec": 5}')]"
doc "$tmp/hosts" cx-h4 corm true "[$(e '{"bench": "throughput", "threads": 8}' '{"ops_per_sec": 3200}')]"
jq '.meta.runs[0].nranks = 5' "$tmp/hosts/cx-h4.json" >"$tmp/x" && mv "$tmp/x" "$tmp/hosts/cx-h4.json"
doc "$tmp/hosts" own corm true "[$(e '{"bench": "throughput", "threads": 8, "clients": 3}' '{"ops_per_sec": 1}')]"
# a skipped point of a bench that derives clients (its entry gets them, so
# must the point whose skip reason the claim reports), and one of the remap
# bench, which derives none
doc "$tmp/hosts" sk corm true "[$(e '{"bench": "throughput", "threads": 2}' '{}'), $(e '{"bench": "remap", "threads": 1}' '{}')]"
jq '.points[].skipped = "no such NIC step here" | .points[].metrics = {}' "$tmp/hosts/sk.json" >"$tmp/x" && mv "$tmp/x" "$tmp/hosts/sk.json"
doc "$tmp/hosts" rm corm true "[$(e '{"bench": "remap", "threads": 1}' '{"nic_step_us": 9}')]"
cat >"$tmp/hosts-claims.json" <<'EOC'
{"papers": [{"id": "corm", "title": "C", "figures": [],
  "claims": [{"id": "t-clients", "figure": "Fig. 12", "claim": "c", "quote": "q", "experiment": "corm", "documents": "cx*",
   "select": {"clients": [8, 32]}, "metric": "ops_per_sec", "reduce": "mean", "paper_value": 2000, "unit": "",
   "reproduced": {"min": 1500, "max": 2500, "stated": "point"}},
  {"id": "t-skip-derived", "figure": "Fig. 12", "claim": "c", "quote": "q", "experiment": "corm", "documents": "sk",
   "select": {"bench": "throughput"}, "metric": "ops_per_sec", "reduce": "mean", "paper_value": 2000, "unit": "",
   "reproduced": {"min": 1500, "max": 2500, "stated": "point"}},
  {"id": "t-skip-remap", "figure": "Fig. 8", "claim": "c", "quote": "q", "experiment": "corm", "documents": "sk",
   "select": {"bench": "remap"}, "metric": "nic_step_us", "reduce": "mean", "paper_value": 9, "unit": "us",
   "reproduced": {"min": 6, "max": 12, "stated": "point"}}]}]}
EOC
$N report "$tmp/hosts" --claims "$tmp/hosts-claims.json" >"$tmp/hosts/out" 2>&1
check "netmem corm's clients: threads x client ranks, across documents (table)" sh -c \
	"[ \"\$($N table $tmp/hosts/cx.json $tmp/hosts/cx-h4.json --values clients)\" = '4 8 32' ] &&
	 $N table $tmp/hosts/cx.json $tmp/hosts/cx-h4.json --x clients --y ops_per_sec | grep -qx '32 3200'"
check "netmem corm's clients in a claim: the mean of 8 clients on one host and 32 on four (2000)" \
	grep -q '^claim t-clients: reproduced (measured 2000,' "$tmp/hosts/out"
check "netmem corm's clients: a point's own kept; none for the local bench" sh -c \
	"[ \"\$($N table $tmp/hosts/own.json --values clients)\" = 3 ] &&
	 [ -z \"\$($N table $tmp/hosts/cx.json --values clients --where bench=local)\" ]"
verdict "$tmp/hosts" t-skip-derived "not exercised (Soft-RoCE (emulated), not a hardware reproduction); every selected point was skipped: no such NIC step here"
verdict "$tmp/hosts" t-skip-remap "not exercised (Soft-RoCE (emulated), not a hardware reproduction); every selected point was skipped: no such NIC step here"
check "netmem corm's clients: none for the remap bench (one loop, not clients)" sh -c \
	"[ \"\$($N table $tmp/hosts/rm.json --values threads --where bench=remap)\" = 1 ] &&
	 [ -z \"\$($N table $tmp/hosts/rm.json --values clients --where bench=remap)\" ]"
mkdir -p "$tmp/schema"
doc "$tmp/schema" alock-fig5 lock false "[]"
jq '.schema = "netmem-result/9"' "$tmp/schema/alock-fig5.json" >"$tmp/x" && mv "$tmp/x" "$tmp/schema/alock-fig5.json"
expect_usage "a document of an unknown schema" $N report "$tmp/schema"
echo '{' >"$tmp/hw/broken.json"
expect_usage "a run with a document that does not parse" $N report "$tmp/hw"
t_summary
