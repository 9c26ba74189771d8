#!/bin/sh
# tests/bench/perftest-compare.sh's pooling over boots (host only, no
# device): --summarize on crafted boot directories with known samples gives
# each boot's ratio, their median and the pooled ratio; a boot that did not
# run is named and left out; a bad --boots is a usage error (exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
S=tests/bench/perftest-compare.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# boot DIR PERFTEST NETMEM: a finished run of 3 rounds of read_lat8 whose p50
# and mean are PERFTEST and NETMEM in every round.
boot() {
	mkdir -p "$1/raw"
	jq -n '{note: "crafted", emulated: true, params: {metrics: ["read_lat8"], iters: 5000, bw_iters: 100000,
		runs: 3, depth: 128, cq_mod: 100, size_bw: 64, netmem_extra_args: ""}}' >"$1/context.json"
	: >"$1/samples.jsonl"
	for r in 1 2 3; do
		for row in p50 mean; do
			printf '{"row":"read_lat8.%s","tool":"perftest","run":%s,"value":%s}\n' "$row" "$r" "$2"
			printf '{"row":"read_lat8.%s","tool":"netmem","run":%s,"value":%s}\n' "$row" "$r" "$3"
		done >>"$1/samples.jsonl"
	done
	: >"$1/failures.jsonl"
	echo "read_lat8:" >"$1/commands.txt"
	bash "$S" --summarize "$1" >/dev/null 2>&1
}

d=$tmp/pool
boot "$d/boot-1" 10 11
boot "$d/boot-2" 20 19
check "a boot's own summary: ratio 1.1" \
	jq -e '(.rows[] | select(.id == "read_lat8.p50") | .ratio_netmem_over_perftest) - 1.1 | fabs < 1e-9' "$d/boot-1/summary.json"
bash "$S" --summarize "$d" >"$tmp/pool.out" 2>&1
check "pooled summary: exit 0" [ $? -eq 0 ]
P='.rows[] | select(.id == "read_lat8.p50")'
check "each boot's ratio, boot 1 first (1.1, 0.95)" \
	jq -e "$P | (.ratio_per_boot[0] - 1.1 | fabs < 1e-9) and (.ratio_per_boot[1] - 0.95 | fabs < 1e-9)" "$d/summary.json"
check "median of the boots' ratios (1.025)" \
	jq -e "$P | .ratio_median_of_boots - 1.025 | fabs < 1e-9" "$d/summary.json"
check "pooled ratio over all rounds (medians 15 and 15: 1)" \
	jq -e "$P | (.ratio_netmem_over_perftest - 1 | fabs < 1e-9) and (.perftest.runs | length) == 6" "$d/summary.json"
check "runs numbered on across boots, parameters say so" \
	jq -e '.params.boots == 2 and .params.runs == 6 and .params.runs_per_boot == 3 and
		([.boots[].boot] == [1, 2])' "$d/summary.json"
check "table: the per-boot line" grep -q 'READ 8 B latency p50 \[us\]: 1.1 0.95; median 1.025' "$d/table.txt"

# a third boot that never wrote its context: named, left out of every median
mkdir -p "$d/boot-3"
bash "$S" --summarize "$d" >"$tmp/pool3.out" 2>&1
check "a boot that did not run is a failure of the pooled summary" \
	jq -e '[.failures[] | select(.what == "boot 3 did not run")] | length == 1' "$d/summary.json"
check "its ratio is null and the median is the other two's" \
	jq -e "$P | .ratio_per_boot[2] == null and (.ratio_median_of_boots - 1.025 | fabs < 1e-9)" "$d/summary.json"
check "table: '-' for it" grep -q 'p50 \[us\]: 1.1 0.95 -; median 1.025' "$d/table.txt"

for bad in 0 x -1; do
	bash "$S" --boots "$bad" >"$tmp/bad.out" 2>&1
	rc=$?
	check "--boots $bad: exit 2, one line naming the option" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/bad.out') -eq 1 ] && grep -q -- '--boots' '$tmp/bad.out'"
done
t_summary
