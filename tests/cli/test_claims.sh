#!/bin/sh
# plots/claims.json against the configs and the code (host only). For every
# claim:
# - what the paper says: a quote (its own words) and where it is, neither
#   empty; a claim with a paper value has both bounds, min < max, the paper's
#   value between them, in "reproduced" or per NIC in "ranges_by_nic" (never
#   both; a per-NIC claim has a direction); an ordering (paper value null)
#   has a direction and no range; a direction is one a measurement can fail
#   (never above 0 or less; on a ratio, above 1 or more or below 1 or less)
#   with the paper's value on its side; "exercised" names metrics with a floor
#   above 0; "needs", where given, says what is missing;
# - the metric, and every exercised metric, is one the claim's experiment
#   writes: the table below, each row of which is found in the code that
#   writes the metric (a claim with "needs" is reported skipped instead);
# - its range (reproduced, or each of ranges_by_nic) within the width rule
#   of the claims file's "about", from how the paper states its number
#   (stated, and band for a band), or a width_reason saying why it departs
#   (and a range that fits the rule carries none);
# - the documents: a config of the quick, check and paper scales (paper only
#   for the documents listed below) of the claim's experiment, or a CoRM simulator
#   document of run_all.sh, made here (bin/netmem, run_all.sh's arguments for
#   the paper scale and for the smaller ones, fewer objects);
# - every parameter the selectors (select, ratio num and den) use is a
#   parameter of that config at every scale, swept or fixed; at paper scale
#   every value selected, each of a list's, is among the config's values; at
#   the quick and check scales a scalar must be run and a list ("any of") must
#   have one of its values run, or the claim is a known gap of that scale
#   (listed below, reported skipped; a listed gap that is not one fails).
# Every figure the claims file lists is drawn at those scales. Then the same
# checks on broken claims, each of which must fail for its reason.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
N=bin/netmem
C=plots/claims.json

# The documents of CoRM's simulator, which run_all.sh runs (no config).
tools="corm-fig7 corm-fig17 corm-fig18 corm-fig19 clover-fig3"
# a tool document's experiment, where not the simulator's (run_all.sh's tool_cmd)
toolexp='{"clover-fig3": "clover-state"}'
in_list() { case " $2 " in *" $1 "*) true ;; *) false ;; esac; }
# Documents only the paper scale runs (a load or a sweep the smaller scales
# cannot hold): a claim on one is checked at paper scale alone, and each
# must have a paper config and none at the smaller scales.
paper_only="numa-fig5-variants numa-vc-noload numa-fig6c-noload"
# scales DOC: the config directories a claim on DOC must find it in
scales() { if in_list "$1" "$paper_only"; then echo configs/paper; else echo configs/quick configs/check configs/paper; fi; }
for doc in $paper_only; do
	if [ -r "configs/paper/$doc.json" ] && [ ! -e "configs/quick/$doc.json" ] && [ ! -e "configs/check/$doc.json" ]; then
		ok "$doc: a paper-only document (a paper config, none at the quick and check scales)"
	else notok "$doc: listed as paper only, but its configs are: $(ls configs/*/"$doc".json 2>/dev/null | tr '\n' ' ')"; fi
done

# Claims the smaller scales cannot compute (a value their configs never run),
# ID SCALE: each is reported skipped, and must still be a gap.
gaps=$(grep -v '^#' tests/data/claim-gaps)

# The metrics claims read, per experiment: EXPERIMENT|METRIC|FILE|TEXT, where
# TEXT is what in FILE writes the metric (a summary's geometric means are its
# metrics' numeric leaves, dotted, harness/result.c); every row must be found.
metrics='lock|ops_per_sec|workloads/locks/lock.c|{"ops", lock_counters
lock|ops_per_sec|harness/measure.c|"%s_per_sec"
lock|lat.p99|harness/measure.c|"lat", nm_hist_summary_json
lock|lat.p99|harness/stats.c|{"p99",
lock|lat.mean|harness/measure.c|"lat", nm_hist_summary_json
lock|lat.mean|harness/stats.c|{"mean",
numa-matrix|remote_over_local|workloads/numa/numa_matrix.c|"remote_over_local"
lock|ratio_to_mcs|workloads/locks/lock.c|"ratio_to_%s"
lock|ratio_to_mcs|workloads/locks/lock.c|{"spin", "mcs"}
lock|ratio_to_spin|workloads/locks/lock.c|"ratio_to_%s"
lock|ratio_to_spin|workloads/locks/lock.c|{"spin", "mcs"}
txn|txns_per_sec|workloads/locks/txn.c|{"txns", txn_counters
txn|txns_per_sec|harness/measure.c|"%s_per_sec"
kv|ops_per_sec|workloads/kv/kv.c|{"ops", kv_counters
kv|ops_per_sec|harness/measure.c|"%s_per_sec"
ops|mops|workloads/ops/ops.c|{"ops", ops_counters
ops|mops|harness/measure.c|"m%s"
ops|lat.mean|harness/measure.c|"lat", nm_hist_summary_json
ops|lat.mean|harness/stats.c|{"mean",
ops|conn_split.later_extra_ns|workloads/ops/ops.c|"conn_split", split
ops|conn_split.later_extra_ns|workloads/ops/conn_split.c|"later_extra_ns",
numa-kv|ops_per_sec|workloads/numa/numa_kv.c|{"ops", kv_counters
numa-kv|ops_per_sec|harness/measure.c|"%s_per_sec"
corm|ops_per_sec|workloads/corm/corm.c|"rounds" : "ops"
corm|ops_per_sec|harness/measure.c|"%s_per_sec"
corm|direct_reads_failed_per_op|workloads/corm/corm.c|"direct_reads_failed_per_op"
corm|mmap_us|workloads/corm/corm_remap.c|"mmap_us"
corm|nic_step_us|workloads/corm/corm_remap.c|"nic_step_us"
corm|first_read_us|workloads/corm/corm_remap.c|"first_read_us"
corm|rpc_during_over_before|workloads/corm/corm.c|"%s_%s_over_before"
corm|rpc_during_over_before|workloads/corm/corm.c|{"before", "during", "after"}
corm|rpc_during_over_before|workloads/corm/corm.c|secs, start, end, "rpc", m)
corm|rpc_longest_gap_s|workloads/corm/corm.c|"%s_longest_gap_s"
corm|rpc_longest_gap_s|workloads/corm/corm.c|secs, start, end, "rpc", m)
corm|direct_over_rpc|workloads/corm/corm.c|"direct_over_rpc"
corm|compaction.merged_blocks|workloads/corm/corm.c|json_object_set(m, "compaction"
corm|compaction.merged_blocks|workloads/corm/corm.c|"merged_blocks"
corm|shared_ops|workloads/corm/corm_bench.c|{"shared_ops", NM_COUNT_METRIC}
corm|shared_ops|harness/measure.c|& NM_COUNT_METRIC
corm|writes|workloads/corm/corm_bench.c|{"writes", NM_COUNT_METRIC}
corm|writes|harness/measure.c|& NM_COUNT_METRIC
corm|fairness.threads|harness/measure.c|"fairness", fairness(
corm|fairness.threads|harness/measure.c|"threads", (int)n
corm|steady_read_us|workloads/corm/corm_remap.c|"steady_read_us"
corm|lat_by_op.direct_read.p50|harness/measure.c|"lat_by_op"
corm|lat_by_op.direct_read.p50|workloads/corm/corm_bench.c|"direct_read", "scan_read"
corm|lat_by_op.direct_read.p50|harness/stats.c|{"p50",
corm|lat_by_op.raw_read.p50|harness/measure.c|"lat_by_op"
corm|lat_by_op.raw_read.p50|workloads/corm/corm_bench.c|{"raw_read", "raw_rpc"
corm|alloc_extra_us|workloads/corm/corm_latsum.c|CORM_LS_ALLOC, "alloc_extra_us"
corm|alloc_extra_us|workloads/corm/corm.c|corm_latency_summary(h, m)
corm|free_extra_us|workloads/corm/corm_latsum.c|CORM_LS_FREE, "free_extra_us"
corm|release_extra_us|workloads/corm/corm_latsum.c|CORM_LS_RELEASE, "release_extra_us"
corm|rpc_backup_over_scan|workloads/corm/corm_latsum.c|"rpc_backup_over_scan"
corm|collect_us|workloads/corm/corm_collect.c|"collect_us"
corm|compact_us|workloads/corm/corm_collect.c|"compact_us"
corm|rpc_after_over_before|workloads/corm/corm.c|"%s_%s_over_before"
corm|rpc_after_over_before|workloads/corm/corm.c|{"before", "during", "after"}
corm|rpc_after_over_before|workloads/corm/corm.c|secs, start, end, "rpc", m)
corm|direct_after_over_before|workloads/corm/corm.c|"%s_%s_over_before"
corm|direct_after_over_before|workloads/corm/corm.c|secs, start, end, "direct", m)
corm|after_intervals|workloads/corm/corm.c|"after_intervals"
corm-sim|reduction|workloads/corm/corm_sim.c|"reduction"
corm-sim|active_mib|workloads/corm/corm_sim.c|"active_mib"
corm-sim|probability|workloads/corm/corm_sim.c|"probability"
clover-state|state_bytes|workloads/clover/clover_path.c|"state_bytes"
clover-state|tofino2_share|workloads/clover/clover_path.c|"tofino2_share"
control|ripple_pct|workloads/control/control.c|"ripple_pct"
clover|mops|workloads/clover/clover.c|{"ops", cl_counters
clover|mops|harness/measure.c|"m%s"
clover|rtts.p99|workloads/clover/clover.c|"rtts", rtt
clover|rtts.p99|workloads/clover/clover.c|"p99", nm_hist_quantile(h, 0.99)
clover|fairness.threads|harness/measure.c|"fairness", fairness(
clover|fairness.threads|harness/measure.c|"threads", (int)n'
printf '%s\n' "$metrics" >"$tmp/metrics.txt"
while IFS='|' read -r exp metric file text; do
	if grep -qF -- "$text" "$file"; then ok "metric $exp $metric: $file writes it ($text)"
	else notok "metric $exp $metric: '$text' is not in $file"; fi
done <"$tmp/metrics.txt"
printf '%s\n' "$metrics" | jq -R -s '[split("\n")[] | select(length > 0) | split("|") | {exp: .[0], metric: .[1]}]
	| group_by(.exp) | map({key: .[0].exp, value: (map(.metric) | unique)}) | from_entries' >"$tmp/metrics.json"

# The checks, one jq program over every claim at once (a jq start is costly
# on a loaded host): for each claim, lines "ID<tab>KIND<tab>TEXT", KIND one
# of SCHEMA (a problem of what it states), FAIL (of its documents or
# selection), GAP (TEXT: "SCALE<tab>why"), SKIP (not checked, why) and NEEDS.
cat >"$tmp/check.jq" <<'EOF'
def num: type == "number";
def text: type == "string" and length > 0;
def scalar: type == "string" or type == "number" or type == "boolean";
# a parameter's values: a scalar is a one-value axis; "A..B" every power of
# two between; "4M" a size (harness/opt.c)
def sizeval: capture("^(?<n>[0-9]+)(?<u>[kKmMgG]?)[bB]?$")
	| (.n | tonumber) * ({"": 1, k: 1024, K: 1024, m: 1048576, M: 1048576, g: 1073741824, G: 1073741824}[.u]);
def expand: if type == "string" and test("^[0-9]+[kKmMgG]?[bB]?\\.\\.[0-9]+[kKmMgG]?[bB]?$")
	then (split("..") | map(sizeval)) as $ab | [$ab[0] | recurse(. * 2; . <= $ab[1])]
	elif type == "string" and test("^[0-9]+[kKmMgG]?[bB]?$") then [sizeval] else [.] end;
def runs: [if type == "array" then .[] else . end | expand[] | tostring];
def selectors: [.select, .ratio.num, .ratio.den] | map(objects | to_entries[]) | .[];

# what the claim states
def schema($known):
	. as $c |
	(if (.id | text) and (.claim | text) and (.experiment | text) and (.metric | text) and (.unit | type) == "string" then empty
	 else "want id, claim, experiment, metric and unit" end),
	(if (.quote | text) then empty else "no quote: the paper's own sentence or caption, verbatim" end),
	(if (.where | text) then empty else "no where: the section or figure of the quote" end),
	(if any(("max", "min", "mean", "value"); . == $c.reduce) then empty else "reduce \(.reduce) is not max, min, mean or value" end),
	(if has("ratio") and ((.ratio.num | type) != "object" or (.ratio.den | type) != "object") then "ratio wants num and den selections" else empty end),
	(if (.select // {} | type) != "object" then "select is not an object" else empty end),
	(selectors | select((.value | scalar) or ((.value | type) == "array" and (.value | length) > 0 and all(.value[]; scalar)) | not)
	 | "selector \(.key): want a value or a non-empty list of values"),
	(if has("paper_value") | not then "no paper_value (a number, or null for an ordering)"
	 elif (.paper_value | num) then
		(if has("ranges_by_nic") then
			(if has("reproduced") then "both reproduced and ranges_by_nic: ranges_by_nic replaces reproduced" else empty end),
			(if (.ranges_by_nic | type) != "array" or (.ranges_by_nic | length) == 0 then "ranges_by_nic: want a non-empty list"
			 else (.ranges_by_nic[] | select((.part | text) and (.min | num) and (.max | num) and .min < .max | not)
				| "ranges_by_nic entry \(tojson): want a part and min < max"),
			      (if any(.ranges_by_nic[]; (.min | num) and (.max | num) and .min <= $c.paper_value and $c.paper_value <= .max) then empty
			       else "paper_value \(.paper_value) is in no range of ranges_by_nic" end) end),
			(if has("direction") then empty else "ranges_by_nic without a direction (a NIC no range names gets at most direction only)" end)
		 elif (.reproduced.min | num) and (.reproduced.max | num) then
			(if .reproduced.min < .reproduced.max then empty else "reproduced: min \(.reproduced.min) is not below max \(.reproduced.max)" end),
			(if .reproduced.min <= .paper_value and .paper_value <= .reproduced.max then empty
			 else "paper_value \(.paper_value) is outside reproduced \(.reproduced | tojson)" end)
		 else "reproduced needs both min and max (numbers)" end)
	 elif .paper_value == null then
		(if has("reproduced") or has("ranges_by_nic") then "an ordering (paper_value null) has no range: its direction is its range" else empty end),
		(if has("direction") then empty else "an ordering (paper_value null) needs a direction" end)
	 else "paper_value is neither a number nor null" end),
	(if has("direction") then
		(if (.direction | type) == "object" then .direction | keys else [] end) as $k |
		if ($k != ["above"] and $k != ["below"]) or (.direction[$k[0]] | num | not) then "direction: want {\"above\": v} or {\"below\": v}"
		else .direction[$k[0]] as $v |
			(if $k[0] == "above" and $v <= 0 then "direction above \($v): every measurement of a non-negative metric passes it" else empty end),
			(if .unit == "x" and (($k[0] == "above" and $v < 1) or ($k[0] == "below" and $v > 1))
			 then "direction \($k[0]) \($v) on a ratio: the neutral value of a ratio is 1" else empty end),
			(if (.paper_value | num) and (($k[0] == "above" and .paper_value <= $v) or ($k[0] == "below" and .paper_value >= $v))
			 then "paper_value \(.paper_value) is not on the side of direction \($k[0]) \($v)" else empty end)
		end
	 else empty end),
	(if has("exercised") then
		([.exercised] | flatten) as $e |
		if ($e | length) == 0 then "exercised: empty"
		else ($e[] | select((.metric | text) and (.min | num) and .min > 0 | not) | "exercised \(tojson): want {metric, min > 0}"),
		     ($e[] | .metric | select(text) | select(. as $x | $known | index([$x]) == null)
			| "exercised metric \(.) is not one \($c.experiment) writes (the table in tests/cli/test_claims.sh)")
		end
	 else empty end),
	(if has("needs") then (if (.needs | text) then empty else "needs: empty (say what is missing)" end)
	 elif (.metric | text) and ($known | index([$c.metric])) == null then
		"metric \(.metric) is not one \(.experiment) writes (the table in tests/cli/test_claims.sh)"
	 else empty end),
	(if has("minus") and (has("ratio") or (.minus | text | not) or ($known | index([$c.minus])) == null) then
		"minus \(.minus) is not one \(.experiment) writes, or comes with a ratio"
	 else empty end);

# the selectors against a config's params: "FAIL why" or "GAP why"; with
# $strict every value must be run, else a scalar, or one of a list's
def selection($params; $exp; $where; $strict):
	(if $exp != .experiment then "FAIL \($where) is a \($exp) config, the claim says \(.experiment)" else empty end),
	(selectors as $s | ($params[$s.key]) as $v |
	 if $v == null then "FAIL \($where) has no parameter \($s.key) (the claim selects \($s.key)=\($s.value | tojson))"
	 else ($v | runs) as $have | ([$s.value] | flatten | map(tostring)) as $want | ($want - $have) as $missing |
		if ($missing | length) == 0 then empty
		elif $strict then "FAIL \($where) never runs \($s.key)=\($missing | join(",")) (its values: \($have | join(", ")))"
		elif ($s.value | type) == "array" and ($missing | length) < ($want | length) then empty
		else "GAP \($where) never runs \($s.key)=\($s.value | tojson) (its values: \($have | join(", ")))" end
	 end);

def named($docs): if $docs | endswith("*") then startswith($docs[:-1]) else . == $docs end;
# params of several configs as one: each key's values, of any of them
def merged: map(to_entries[]) | group_by(.key) | map({key: .[0].key, value: (reduce (.[].value | if type == "array" then .[] else . end) as $x ([]; if index([$x]) then . else . + [$x] end))}) | from_entries;

# The width rule of the claims file's "about": each range (reproduced, or an
# entry of ranges_by_nic) says how the paper states its number (stated: "up
# to", "more than", "less than", "point", "band" with band [a, b], "no
# difference"); the range may be no wider than the rule makes of it, give or
# take a twentieth of the rule's width for rounding, unless width_reason says
# why it departs (and then it must depart). On a ratio near 1 (unit x, the
# paper's value between 0 and 2) the rule scales the excess over 1.
def near1($x; $unit): $unit == "x" and $x > 0 and $x < 2;
def scaled($k; $v; $n): if $n then 1 + $k * ($v - 1) else $k * $v end;
def spread($lo; $hi): [$lo, $hi] | [min, max];
# the rule's [min, max] for a range object $r of a claim with unit $unit and paper value $pv
def rule_range($r; $pv; $unit):
	($r.paper_value // $pv) as $x | near1($x; $unit) as $n |
	if $r.stated == "up to" then spread(scaled(0.75; $x; $n); scaled(1.5; $x; $n))
	elif $r.stated == "more than" then (if $n then [$x, $x + 0.5 * ($x - 1 | fabs)] else [$x, 1.5 * $x] end | [min, max])
	elif $r.stated == "less than" then [0, $x]
	elif $r.stated == "point" then spread(scaled(0.75; $x; $n); scaled(1.25; $x; $n))
	elif $r.stated == "band" then
		[([scaled(0.75; $r.band[0]; $n), scaled(1.25; $r.band[0]; $n)] | min), ([scaled(0.75; $r.band[1]; $n), scaled(1.25; $r.band[1]; $n)] | max)]
	elif $r.stated == "no difference" then spread(0.95 * $x; 1.05 * $x)
	else null end;
def fmt: . * 10000 | round / 10000 | tostring;
# "WIDTH<tab>problem" or "WIDTHOK<tab>what held", per range of a claim
def width:
	. as $c |
	if (.paper_value | type) != "number" then empty
	else (if has("ranges_by_nic") then (.ranges_by_nic | arrays | .[] | objects | {r: ., where: "ranges_by_nic \(.part)"})
	      else {r: (.reproduced | objects), where: "reproduced"} end) as $e | $e.r as $r | ($r.paper_value // $c.paper_value) as $x |
		if ($r.stated | type) != "string" then "WIDTH\t\($e.where): no stated (how the paper states its number: up to, more than, less than, point, band, no difference)"
		elif ([$r.stated] | inside(["up to", "more than", "less than", "point", "band", "no difference"]) | not) then "WIDTH\t\($e.where): stated \($r.stated | tojson) is not up to, more than, less than, point, band or no difference"
		elif $r.stated == "band" and (($r.band | type) != "array" or ($r.band | length) != 2 or ($r.band | all(type == "number") | not) or $r.band[0] >= $r.band[1] or $x < $r.band[0] or $x > $r.band[1])
			then "WIDTH\t\($e.where): a band wants band [a, b], a < b, with the paper's value \($x) between"
		elif has("width_reason") then "WIDTH\t\($e.where): width_reason belongs in the range object it explains"
		elif ($r.min | type) != "number" or ($r.max | type) != "number" then empty
		else rule_range($r; $c.paper_value; $c.unit) as $w | (($w[1] - $w[0]) / 20) as $slack |
			($r.min >= $w[0] - $slack and $r.max <= $w[1] + $slack) as $fits |
			"\($e.where) \($r.min | fmt)..\($r.max | fmt), the rule for \($r.stated) \(if $r.stated == "band" then $r.band | map(fmt) | join("-") else $x | fmt end)\(if near1($x; $c.unit) and $r.stated != "less than" and $r.stated != "no difference" then " (on the excess over 1)" else "" end): \($w[0] | fmt)..\($w[1] | fmt)" as $what |
			if ($r.width_reason | type) == "string" and ($r.width_reason | length) > 0 then
				(if $fits then "WIDTH\t\($what), which the range fits: drop its width_reason" else "WIDTHOK\t\($what); departs: \($r.width_reason)" end)
			elif $r | has("width_reason") then "WIDTH\t\($e.where): an empty width_reason (say why the range departs from the rule)"
			elif $fits then "WIDTHOK\t\($what)"
			else "WIDTH\t\($what): wider than the rule, and no width_reason" end
		end
	end;

# the documents and the selection
def problems:
	. as $c | .documents as $docs |
	if ($docs | text | not) then "FAIL\tno \"documents\": nothing says which config it is computed from"
	elif $tools | index([$docs]) then
		if .experiment != ($toolexp[$docs] // "corm-sim") then "FAIL\t\($docs) is run_all.sh's \($toolexp[$docs] // "corm-sim") document (a simulator document, no config), but the claim's experiment is \(.experiment)"
		elif $sims[$docs] == null then "SKIP\tno \($docs) simulator document (bin/netmem not built?)"
		else ("paper", "quick/check") as $sc | $sims[$docs][$sc] as $d |
			(selection($d.params; $c.experiment; "\($docs) (\($sc))"; $sc == "paper") | sub("^GAP "; "GAP\t\($sc)\t") | sub("^FAIL "; "FAIL\t")),
			(if $d.metrics | index([$c.metric]) then empty
			 else "FAIL\t\($docs) (\($sc)) has no metric \($c.metric) (its metrics: \($d.metrics | join(", ")))" end)
		end
	else
		(if $paper_only | index([$docs]) then "paper" else ("quick", "check", "paper") end) as $sc |
		[$cfgs | keys[] | select(startswith("configs/\($sc)/") and (ltrimstr("configs/\($sc)/") | rtrimstr(".json") | named($docs)))] as $files |
		if ($files | length) == 0 then "FAIL\tno config \($docs) in configs/\($sc)"
		else
			# the documents a pattern names run together: a value any of them runs is run
			([$files[] | $cfgs[.].params] | merged) as $params | ([$files[] | $cfgs[.].experiment] | unique) as $exps |
			if ($exps | length) > 1 then "FAIL\t\($files | join(" + ")): configs of \($exps | join(" and "))"
			else selection($params; $exps[0]; ($files | join(" + ")); $sc == "paper") | sub("^GAP "; "GAP\t\($sc)\t") | sub("^FAIL "; "FAIL\t") end
		end
	end;

.papers[].claims[] | . as $c |
	(schema($metrics[.experiment] // []) | "\($c.id)\tSCHEMA\t\(.)"),
	(width | "\($c.id)\t\(.)"),
	(problems | "\($c.id)\t\(.)"),
	(if has("needs") then "\(.id)\tNEEDS\t\(.needs)" else empty end)
EOF

# The configs of every scale: {path: {experiment, params}}, with what the
# experiment derives for the readers of its documents (harness/experiment.h:
# derive): netmem corm's clients, its threads on every client rank (all but
# the server; -T 1 and 2 ranks unless the config says), but for the local bench.
jq -n '[inputs | . as $c | {key: input_filename, value: ({experiment, params} |
	if .experiment == "corm" and ([.params.bench // "compaction"] | flatten | any(. != "local")) then
		.params.clients = [([$c.ranks // 2] | flatten)[] as $r | ([.params.threads // 1] | flatten)[] | . * ($r - 1)]
	else . end)}] | from_entries' configs/*/*.json >"$tmp/cfgs.json"

# The simulator's documents the claims name, as run_all.sh makes them (its
# arguments for the paper scale, the first, and for the smaller ones, the
# last), with fewer objects (1% of the Redis traces' keys): {DOC: {SCALE: {params: {key: [values]},
# metrics: [...]}}}.
echo '{}' >"$tmp/sims.json"
if [ -x "$N" ]; then
	for doc in $tools; do
		jq -e --arg d "$doc" 'any(.papers[].claims[]; .documents == $d)' "$C" >/dev/null || continue
		args=$(sed -n "s/^[[:space:]]*tool_args\[$doc\]=\"\(.*\)\"\$/\1/p" run_all.sh)
		cmd=$(sed -n "s/^[[:space:]]*tool_cmd\[$doc\]=\(.*\)\$/\1/p" run_all.sh)
		[ -n "$args" ] || continue
		for sc in paper quick/check; do
			if [ "$sc" = paper ]; then a=$(printf '%s\n' "$args" | head -n 1); else a=$(printf '%s\n' "$args" | tail -n 1); fi
			# shellcheck disable=SC2046 # the arguments as run_all.sh passes them
			$N "${cmd:-corm-sim}" $(printf '%s' "$a" | sed 's/-n [0-9]*/-n 2000/; s/ --redis-scale [0-9.]*//; s/--redis /--redis-scale 0.01 --redis /') \
				-o "$tmp/sim.json" >/dev/null 2>&1 || continue
			jq --arg doc "$doc" --arg sc "$sc" --slurpfile d "$tmp/sim.json" '.[$doc][$sc] = {
				params: ([$d[0].summary[].params | to_entries[]] | group_by(.key) | map({key: .[0].key, value: (map(.value) | unique)}) | from_entries),
				metrics: ([$d[0].summary[].geomean | keys[]] | unique)}' "$tmp/sims.json" >"$tmp/sims.new" && mv "$tmp/sims.new" "$tmp/sims.json"
		done
	done
fi

# run_checks CLAIMS_FILE OUT: the check's lines for every claim of CLAIMS_FILE
run_checks() {
	jq -r --slurpfile metrics "$tmp/metrics.json" --slurpfile cfgs "$tmp/cfgs.json" --slurpfile sims "$tmp/sims.json" \
		--arg tools "$tools" --arg paper_only "$paper_only" --argjson toolexp "$toolexp" \
		'($metrics[0]) as $metrics | ($cfgs[0]) as $cfgs | ($sims[0]) as $sims |
		 ($tools | split(" ")) as $tools | ($paper_only | split(" ")) as $paper_only | '"$(cat "$tmp/check.jq")" "$1" >"$2" 2>&1 ||
		echo "?	FAIL	jq: $(cat "$2")" >>"$2"
}
run_checks "$C" "$tmp/out"
# gap_listed ID SCALE: is it a known gap?
gap_listed() { printf '%s\n' "$gaps" | grep -qx "$1 $2"; }
# field KIND ID OUT: the TEXT of ID's lines of KIND in OUT, one per line
field() { awk -F '\t' -v k="$1" -v id="$2" '$1 == id && $2 == k { sub(/^[^\t]*\t[^\t]*\t/, ""); print }' "$3"; }

jq -r '.papers[].claims[] | "\(.id)\t\(.documents // "?")"' "$C" >"$tmp/ids"
[ -s "$tmp/ids" ] || notok "$C holds no claim"
if [ -n "$(cut -f1 "$tmp/ids" | sort | uniq -d)" ]; then notok "claim ids are unique: $(cut -f1 "$tmp/ids" | sort | uniq -d | tr '\n' ' ')"
else ok "claim ids are unique"; fi
if grep -q '^?	' "$tmp/out"; then notok "the check ran: $(grep '^?	' "$tmp/out")"; fi
: >"$tmp/gaps.seen"; : >"$tmp/unchecked"
while read -r id docs; do
	p=$(field SCHEMA "$id" "$tmp/out" | tr '\n' ';')
	if [ -z "$p" ]; then ok "claim $id: quote, where, bounds, direction, metric"; else notok "claim $id: $p"; fi
	w=$(field WIDTH "$id" "$tmp/out" | tr '\n' ';')
	if [ -n "$w" ]; then notok "claim $id: width rule: $w"
	else
		w=$(field WIDTHOK "$id" "$tmp/out" | tr '\n' ';')
		[ -z "$w" ] || ok "claim $id: width rule: $w"
	fi
	n=$(field NEEDS "$id" "$tmp/out")
	[ -z "$n" ] || skip "claim $id: its metric" "needs: $n"
	fails=$(field FAIL "$id" "$tmp/out" | tr '\n' ';')
	unlisted=""; gapped=" "
	for sc in $(field GAP "$id" "$tmp/out" | cut -f1 | sort -u); do
		why=$(field GAP "$id" "$tmp/out" | awk -F '\t' -v s="$sc" '$1 == s { print $2 }' | tr '\n' ';')
		echo "$id $sc" >>"$tmp/gaps.seen"
		gapped="$gapped$sc "
		if gap_listed "$id" "$sc"; then skip "claim $id at the $sc scale" "a known gap: $why"
		else unlisted="$unlisted not computable at the $sc scale: $why"; fi
	done
	sk=$(field SKIP "$id" "$tmp/out" | head -n 1)
	if [ -n "$fails$unlisted" ]; then notok "claim $id: $fails$unlisted"
	elif [ -n "$sk" ]; then skip "claim $id: $docs" "$sk"; echo "$id" >>"$tmp/unchecked"
	else
		at=""
		for d in $(scales "$docs"); do in_list "${d#configs/}" "$(echo "$gapped" | tr / " ")" || at="$at ${d#configs/}"; done
		ok "claim $id: selection of $docs at$at"
	fi
done <"$tmp/ids"
# stale_gaps: listed gaps that are not (or no longer) gaps, of the claims checked
stale_gaps() {
	printf '%s\n' "$gaps" | while read -r g; do
		grep -qx "$g" "$tmp/gaps.seen" || grep -qx "${g%% *}" "$tmp/unchecked" || echo "$g"
	done
}
s=$(stale_gaps | tr '\n' ';')
if [ -z "$s" ]; then ok "every listed gap is one"; else notok "listed gaps that are not gaps (remove them): $s"; fi

# Every figure a paper lists is drawn at those scales (the report looks for it).
drawn() { # drawn DIR: the figures a scale's configs draw
	jq -r '(input_filename | sub(".*/"; "") | rtrimstr(".json")) as $self | .plots // [] | .[] | .figure // $self' "$1"/*.json
}
for dir in configs/quick configs/check configs/paper; do drawn "$dir" >"$tmp/${dir#configs/}.figs"; done
for fig in $(jq -r '.papers[].figures[].figure' "$C"); do
	miss=""
	if ! in_list "$fig" "$tools"; then
		for dir in $(scales "$fig"); do grep -qx "$fig" "$tmp/${dir#configs/}.figs" || miss="$miss ${dir#configs/}"; done
	fi
	if [ -z "$miss" ]; then ok "figure $fig is drawn"; else notok "figure $fig is drawn by no config of:$miss"; fi
done

# The checks must catch broken claims, each for its reason: a good claim (on
# alock-fig5, whose configs hold lock, locks and p_local at every scale)
# changed by a jq expression (WHAT|CHANGE|TEXT OF THE PROBLEM), all checked
# in one run.
good='{"id": "good", "claim": "c", "quote": "q", "where": "Sec. 1", "experiment": "lock", "documents": "alock-fig5",
	"select": {"p_local": 100}, "ratio": {"num": {"lock": "alock"}, "den": {"lock": "mcs"}}, "metric": "ops_per_sec",
	"reduce": "max", "paper_value": 2, "unit": "x", "reproduced": {"min": 1.5, "max": 3, "stated": "up to"}, "direction": {"above": 1}}'
cat >"$tmp/bad" <<'EOF'
no documents|del(.documents)|no "documents"
a config no scale has|.documents = "alock-fig9"|no config alock-fig9
another experiment|.experiment = "txn"|is a lock config, the claim says txn
a parameter the config lacks|.select.window = 3|has no parameter window
a value the config never runs|.ratio.den.lock = "ticket"|never runs lock=ticket
a list value the paper config never runs|.select.p_local = [100, 7]|paper/alock-fig5.json never runs p_local=7
a value only the paper config runs, not a listed gap|.select.p_local = 95|quick/alock-fig5.json never runs p_local=95
a simulator document under another experiment|.experiment = "corm" + .documents = "corm-fig17"|simulator document
a two-host figure's claim on another experiment|.documents = "clover-fig2"|is a clover config
no quote|del(.quote)|no quote
an empty where|.where = ""|no where
one bound|del(.reproduced.max)|both min and max
min above max|.reproduced = {"min": 3, "max": 1.5}|is not below max
the paper's value outside its range|.paper_value = 5|outside reproduced
a direction any measurement passes|.unit = "us" + .direction = {"above": 0}|every measurement
a ratio's direction short of 1|.direction = {"above": 0.9}|neutral value of a ratio
the paper's value against its direction|.direction = {"below": 1}|not on the side
an ordering without a direction|.paper_value = null + del(.reproduced) + del(.direction)|needs a direction
an ordering with a range|.paper_value = null|has no range
a metric the experiment does not write|.metric = "lat.p42"|metric lat.p42 is not one lock writes
ranges_by_nic beside reproduced|.ranges_by_nic = [{"part": "ConnectX-3", "min": 1.5, "max": 3}]|replaces reproduced
ranges_by_nic without a direction|del(.reproduced) + del(.direction) + .ranges_by_nic = [{"part": "ConnectX-3", "min": 1.5, "max": 3}]|without a direction
the paper's value in no NIC's range|del(.reproduced) + .ranges_by_nic = [{"part": "ConnectX-3", "min": 3, "max": 4}]|in no range
a NIC range without a part|del(.reproduced) + .ranges_by_nic = [{"min": 1.5, "max": 3}]|want a part
an exercised metric the experiment does not write|.exercised = {"metric": "nope", "min": 1}|exercised metric nope
an exercised floor of 0|.exercised = [{"metric": "ops_per_sec", "min": 0}]|min > 0
an empty needs|.needs = ""|needs: empty
a minus beside a ratio|.minus = "ops_per_sec"|comes with a ratio
a minus the experiment does not write|del(.ratio) + .minus = "nope"|minus nope is not one
an unknown reduction|.reduce = "median"|is not max, min, mean or value
an empty list selected|.select.p_local = []|non-empty list
no stated form of the paper's number|del(.reproduced.stated)|no stated (how the paper states
a stated form the rule does not know|.reproduced.stated = "roughly"|is not up to, more than
a band without its ends|.reproduced.stated = "band"|a band wants band [a, b]
a band that leaves out the paper's value|.reproduced.stated = "band" + .reproduced.band = [2.5, 3]|with the paper's value 2 between
a range wider than its rule|.reproduced.max = 3.5|wider than the rule, and no width_reason
a range reaching below its rule|.reproduced.min = 1.4|reproduced 1.4..3, the rule for up to 2: 1.5..3: wider than the rule
a ratio near 1 judged on its excess over 1|.paper_value = 1.2 + .reproduced = {"min": 1.1, "max": 1.4, "stated": "up to"}|(on the excess over 1): 1.15..1.3: wider than the rule
a point value widened by more than a quarter|.reproduced = {"min": 1.4, "max": 2.6, "stated": "point"}|the rule for point 2: 1.5..2.5: wider
no difference wider than a few percent|.paper_value = 1 + .reproduced = {"min": 0.9, "max": 1.1, "stated": "no difference"} + del(.direction)|the rule for no difference 1: 0.95..1.05: wider
a NIC's range wider than its rule|del(.reproduced) + .ranges_by_nic = [{"part": "ConnectX-3", "min": 1.5, "max": 4, "stated": "up to"}]|ranges_by_nic ConnectX-3 1.5..4, the rule for up to 2: 1.5..3: wider
a NIC's own paper value|del(.reproduced) + .ranges_by_nic = [{"part": "ConnectX-3", "min": 1.5, "max": 3, "paper_value": 1.5, "stated": "point"}]|the rule for point 1.5 (on the excess over 1): 1.375..1.625: wider
a width_reason on a range that fits the rule|.reproduced.width_reason = "because"|which the range fits: drop its width_reason
an empty width_reason|.reproduced.max = 3.5 + .reproduced.width_reason = ""|an empty width_reason
a width_reason outside the range it explains|.width_reason = "because" + .reproduced.max = 3.5|width_reason belongs in the range object
a simulator size never simulated|.experiment = "corm-sim" + .documents = "corm-fig17" + .metric = "reduction" + .select = {"size": 12345} + .ratio = {"num": {"strategy": "corm-16"}, "den": {"strategy": "mesh"}}|never runs size=12345
EOF
# The broken claims, "bad-N" each (" + " in a change is jq's "|"), beside
# the good one, in one claims file.
i=0
printf '%s\n' "$good" | jq -c . >"$tmp/bad.claims"
printf '%s\n' "$good" | jq -c '.id = "good-departs" | .reproduced.max = 3.5 | .reproduced.width_reason = "the paper draws more than it says"' >>"$tmp/bad.claims"
while IFS='|' read -r what change pattern; do
	i=$((i + 1))
	printf '%s' "$good" | jq -c --arg id "bad-$i" "$(printf '%s' "$change" | sed 's/ + / | /g') | .id = \$id" >>"$tmp/bad.claims" ||
		notok "broken claim $i ($what): the change does not apply"
done <"$tmp/bad"
jq -s '{papers: [{id: "bad", claims: .}]}' "$tmp/bad.claims" >"$tmp/bad.json"
run_checks "$tmp/bad.json" "$tmp/bad.out"
# found ID: every line of ID but a skip
found() { awk -F '\t' -v id="$1" '$1 == id && $2 != "SKIP" && $2 != "NEEDS" && ($2 != "WIDTHOK" || id ~ /^good-departs$/)' "$tmp/bad.out"; }
if [ -z "$(found good)" ]; then ok "a good claim passes"; else notok "a good claim fails: $(found good | tr '\n' ';')"; fi
if found good-departs | grep -q '	WIDTHOK	.*departs: the paper draws more than it says' && [ -z "$(found good-departs | grep -v '	WIDTHOK	')" ]; then
	ok "a range wider than its rule passes with its width_reason, which the check reports"
else notok "a range wider than its rule with a width_reason: $(found good-departs | tr '\n' ';')"; fi
i=0
while IFS='|' read -r what change pattern; do
	i=$((i + 1))
	if [ "$what" = "a simulator size never simulated" ] && [ "$(jq 'has("corm-fig17")' "$tmp/sims.json")" != true ]; then
		skip "caught: $what" "no corm-fig17 simulator document (bin/netmem not built, or no claim on it)"
	elif found "bad-$i" | grep -qF -- "$pattern"; then ok "caught: $what"
	else notok "not caught: $what (found: $(found "bad-$i" | tr '\n' ';'))"; fi
done <"$tmp/bad"
# ... and a listed gap that is not one
gaps="$gaps
alock-22x-spin quick"
if stale_gaps | grep -qx 'alock-22x-spin quick'; then ok "caught: a listed gap that is not one"
else notok "not caught: a listed gap that is not one"; fi
t_summary
