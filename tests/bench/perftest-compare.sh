#!/bin/bash
# perftest-compare.sh: netmem ops against perftest, side by side, on one device in one VM boot.
#
#   tests/bench/perftest-compare.sh [--out DIR] [--iters N] [--bw-iters N] [--runs R] [--quick]
#                                   [--depth D] [--cq-mod Q] [--metrics LIST] [--vm]
#                                   [--netmem-args 'ARGS'] [--timeout SEC] [--boots B]
#
# A benchmark, not a test: it reports numbers and ratios, it never asserts timing. It calls
# tests/vm/softroce-run once (host device if there is one, else a throwaway Soft-RoCE VM) and,
# inside, runs each metric R times per tool, interleaved (P N, N P, P N, ...), so slow drift of
# an emulated device hits both tools alike; it reports the median per tool. With --boots B it
# does all that in B boots one after another and reports each boot's ratio beside the pooled
# one: on Soft-RoCE a boot's ratio moves by a few percent from one boot to the next, more than
# the rounds of one boot can average away (tests/bench/README.md).
#
#   metric      perftest                                   netmem ops (mpirun -np 2, rank 0 -> 1)
#   read_lat8   ib_read_lat -s 8 -n N                      --op read --mode lat -s 8 -n N
#   read_lat64  ib_read_lat -s 64 -n N                     --op read --mode lat -s 64 -n N
#   faa_lat     ib_atomic_lat -A FETCH_AND_ADD -n N        --op faa --mode lat -n N
#   cas_lat     ib_atomic_lat -A CMP_AND_SWAP -n N         --op cas --mode lat -n N
#   write_bw    ib_write_bw -s 64 -t D -Q Q -n NB          --op write --mode bw -s 64 -t D -Q Q -n NB
#   read_bw     ib_read_bw -s 64 -t D -Q Q -n NB           --op read --mode bw -s 64 -t D -Q Q -n NB
#
# Latency: perftest t_typical vs netmem metrics.lat.p50 (target ratio 0.95..1.05), t_avg vs
# lat.mean (same target). Rate: perftest MsgRate [Mpps] vs metrics.mops (target ratio >= 0.95).
# Settings perftest picks by itself are read from its printout and passed to netmem, so both run
# the same QP configuration: MTU (-m), outstanding READ/atomics (--max-rd-atomic, "Outstand
# reads"), WRITE inline threshold (-I, "Max inline data"); netmem also gets --warmup 0 since
# perftest measures from its first operation.
#
# Output: DIR/perftest-compare-<UTC stamp>/ with raw/ (every perftest client and server output,
# every netmem document and console output), commands.txt, samples.jsonl, summary.json and
# table.txt. DIR defaults to results/bench.
#
# Exit status: 0 when every run ran and parsed (targets missed or not), 1 when some run failed
# (its rows say so), 2 on usage errors or missing tools; softroce-run's own codes (124 timeout,
# 125 VM failure) pass through.
set -uo pipefail

readonly PROG=perftest-compare
ALL_METRICS=read_lat8,read_lat64,faa_lat,cas_lat,write_bw,read_bw

die() { echo "$PROG: $*" >&2; exit 2; }
say() { echo "$PROG: $*" >&2; }

usage() {
	cat <<'EOF'
usage: tests/bench/perftest-compare.sh [options]
  --out DIR          output directory (default results/bench); each run makes a subdirectory
  --iters N          latency iterations per run (default 5000)
  --bw-iters N       message-rate iterations per run (default 100000)
  --runs R           interleaved runs per tool and metric, median reported (default 3)
  --quick            smoke run: --runs 1 --iters 300 --bw-iters 3000, 8 B latency only
  --depth D          bw tests: tx depth / window (default 128, perftest's default)
  --cq-mod Q         bw tests: one signaled completion per Q (default 100, perftest's default)
  --metrics LIST     subset of read_lat8,read_lat64,faa_lat,cas_lat,write_bw,read_bw
  --netmem-args STR  extra arguments appended to every netmem ops command (experiments)
  --vm               always use the VM, even where the host has a device
  --timeout SEC      limit for each boot (default: estimated from the options)
  --boots B          repeat the whole run in B boots; report each boot's ratio and the pooled one
  --summarize DIR    rebuild summary.json and table.txt of an earlier run directory
EOF
}

here=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd -- "$here/../.." && pwd)
self=$here/$(basename -- "${BASH_SOURCE[0]}")

out=results/bench iters=5000 bw_iters=100000 runs=3 depth=128 cq_mod=100 quick=0
metrics=$ALL_METRICS netmem_args='' force_vm=0 tmo='' inner=0 run_dir='' summarize=''
iters_set=0 bw_set=0 runs_set=0 metrics_set=0 boots=1
while (($#)); do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift ;;
	--iters) iters=${2:?--iters needs a value}; iters_set=1; shift ;;
	--bw-iters) bw_iters=${2:?--bw-iters needs a value}; bw_set=1; shift ;;
	--runs) runs=${2:?--runs needs a value}; runs_set=1; shift ;;
	--quick) quick=1 ;;
	--depth) depth=${2:?--depth needs a value}; shift ;;
	--cq-mod) cq_mod=${2:?--cq-mod needs a value}; shift ;;
	--metrics) metrics=${2:?--metrics needs a list}; metrics_set=1; shift ;;
	--netmem-args) netmem_args=${2?--netmem-args needs a value}; shift ;;
	--vm) force_vm=1 ;;
	--timeout) tmo=${2:?--timeout needs a value}; shift ;;
	--boots) boots=${2:?--boots needs a value}; shift ;;
	--inner) inner=1 ;;
	--run-dir) run_dir=${2:?}; shift ;;
	--summarize) summarize=${2:?--summarize needs a run directory}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if ((quick)); then
	((runs_set)) || runs=1
	((iters_set)) || iters=300
	((bw_set)) || bw_iters=3000
	((metrics_set)) || metrics=read_lat8,faa_lat,cas_lat,write_bw,read_bw
fi
for v in iters bw_iters runs depth cq_mod boots; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} takes a positive integer"
done
((iters >= 5 && bw_iters >= 5)) || die "perftest needs at least 5 iterations"
[ -z "$tmo" ] || [[ $tmo =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive integer"
IFS=, read -r -a metric_list <<<"$metrics"
for m in "${metric_list[@]}"; do
	[[ ,$ALL_METRICS, == *,"$m",* ]] || die "unknown metric '$m' (known: $ALL_METRICS)"
done

# ---------------------------------------------------------------------------------------------
# Host side: check the tools, make the run directory, boot once.
# ---------------------------------------------------------------------------------------------
host_main() {
	cd "$repo" || exit 2
	[ -x bin/netmem ] || die "bin/netmem is missing: run 'make' first"
	local t
	for t in ib_read_lat ib_atomic_lat ib_write_bw ib_read_bw mpirun jq timeout; do
		command -v "$t" >/dev/null || die "$t not found (apt-get install perftest openmpi-bin jq)"
	done
	mkdir -p -- "$out" || die "cannot create $out"
	out=$(cd -- "$out" && pwd)
	local stamp dir raw
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	dir=$out/perftest-compare-$stamp
	raw=$dir/raw
	((boots == 1)) || raw="$dir/boot-*/raw"
	mkdir -p "$dir" || die "cannot create $dir"
	((boots > 1)) || mkdir -p "$raw" || die "cannot create $raw"
	[[ $dir != *[[:space:]]* ]] || die "output directory '$dir' contains blanks"
	if [ -z "$tmo" ]; then
		# Generous: ~20 s per tool invocation under TCG plus the transfer time at Soft-RoCE
		# speeds (~30 us per latency op, ~10 k READs/s).
		tmo=$((300 + ${#metric_list[@]} * runs * 2 * 20 + runs * 2 * (iters * 4 / 100000 + bw_iters / 5000)))
	fi
	local -a sr=(--timeout "$tmo")
	((force_vm)) && sr+=(--vm)
	say "output: $dir"
	local rc=0 k into=$dir
	for ((k = 1; k <= boots; k++)); do
		if ((boots > 1)); then
			say "boot $k of $boots"
			into=$dir/boot-$k
		fi
		"$repo/tests/vm/softroce-run" "${sr[@]}" -- bash "$self" --inner --run-dir "$into" \
			--iters "$iters" --bw-iters "$bw_iters" --runs "$runs" --depth "$depth" \
			--cq-mod "$cq_mod" --metrics "$metrics" --netmem-args "$netmem_args" || rc=$?
	done
	((boots == 1)) || pool_boots "$dir" || rc=1
	if [ -s "$dir/summary.json" ]; then
		say "summary: $dir/summary.json, table: $dir/table.txt, raw outputs: $raw/"
	else
		say "no summary was written (exit status $rc); raw outputs so far: $raw/"
		((rc != 0)) || rc=1
	fi
	exit "$rc"
}

# ---------------------------------------------------------------------------------------------
# Inner side: runs where verbs work (inside the VM, or on the host), all runs of all metrics.
# ---------------------------------------------------------------------------------------------
RAW='' PORT=18700 FAILED=0 CMDLOG=/dev/null SPID=''
declare -A PT_SET=()  # settings read from perftest's printout, per metric: mtu, outs, inline

# perftest latency table: "t_typical t_avg" of the first result line under the header.
# Columns are found by name in the header (its later headers contain blanks, so only the
# columns before them can be matched by index: t_typical is the 5th, t_avg the 6th).
parse_pt_lat() {
	awk '/t_typical/ { for (i = 1; i <= NF; i++) { if ($i ~ /^t_typical/) ti = i; if ($i ~ /^t_avg/) ai = i }
			   hdr = 1; next }
	     hdr && ti && ai && $1 ~ /^[0-9]+$/ && NF >= ai && $ti ~ /^[0-9.]+$/ && $ai ~ /^[0-9.]+$/ {
			   print $ti, $ai; exit }' "$1"
}

# perftest bandwidth table: MsgRate [Mpps], counted from the end of the line (the header's
# "BW peak[MB/sec]" etc. contain blanks; MsgRate is the last column).
parse_pt_bw() {
	awk '/MsgRate/ { for (i = 1; i <= NF; i++) if ($i ~ /^MsgRate/) back = NF - i; hdr = 1; next }
	     hdr && $1 ~ /^[0-9]+$/ && NF > back { v = $(NF - back); if (v ~ /^[0-9.]+$/) { print v; exit } }' "$1"
}

# A "Name : value" setting from perftest's header block, digits only.
pt_setting() { sed -n "s/^ *$2 *: *\([0-9][0-9]*\).*/\1/p" "$1" | head -n1; }

# Runs one perftest pair: server first, client on 127.0.0.1, a fresh port each time (a killed
# server leaves its port busy). Output of the client in FILE.txt, server in FILE.server.txt.
# Retries once on a fresh port when the client never got to the result table.
pt_pair() {
	local file=$1 pat=$2 tlimit=$3
	shift 3
	local attempt port spid crc src i
	for attempt in 1 2; do
		port=$PORT
		PORT=$((PORT + 1))
		echo "  perftest server: $* -p $port" >>"$CMDLOG"
		timeout -k 5 "$tlimit" "$@" -p "$port" >"$file.server.txt" 2>&1 &
		spid=$!
		SPID=$spid
		# Until the server listens (bounded); without ss, a fixed pause.
		if command -v ss >/dev/null; then
			for ((i = 0; i < 150; i++)); do
				ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
				kill -0 "$spid" 2>/dev/null || break
				sleep 0.1
			done
		else
			sleep 2
		fi
		echo "  perftest client: $* -p $port 127.0.0.1" >>"$CMDLOG"
		crc=0
		timeout -k 5 "$tlimit" "$@" -p "$port" 127.0.0.1 >"$file.txt" 2>&1 || crc=$?
		# The server ends by itself after the handshake at the end; do not let it linger.
		for ((i = 0; i < 150; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$spid" 2>/dev/null
		src=0
		wait "$spid" || src=$?
		SPID=''
		if ((crc == 0)) && grep -q "$pat" "$file.txt"; then
			((src == 0)) || say "note: $(basename "$file") server exited with status $src"
			return 0
		fi
		say "$(basename "$file"): perftest client exited with status $crc (server $src), attempt $attempt"
		[ "$attempt" = 2 ] || mv "$file.txt" "$file.attempt1.txt"
		[ "$attempt" = 2 ] || mv "$file.server.txt" "$file.attempt1.server.txt"
	done
	return 1
}

# One netmem ops job, rank 0 -> rank 1. Document FILE.json, console FILE.txt.
nm_run() {
	local file=$1 tlimit=$2
	shift 2
	local -a cmd=("${MPIRUN[@]}" bin/netmem ops "$@" --output "$file.json" --no-progress)
	echo "  netmem:          ${cmd[*]}" >>"$CMDLOG"
	local rc=0
	timeout -k 5 "$tlimit" "${cmd[@]}" >"$file.txt" 2>&1 || rc=$?
	if ((rc != 0)); then
		say "$(basename "$file"): netmem exited with status $rc (see $file.txt)"
		return 1
	fi
	jq -e '.points[0].valid == true' "$file.json" >/dev/null 2>&1 ||
		{ say "$(basename "$file"): netmem point missing or invalid"; return 1; }
}

# sample ROW TOOL RUN VALUE
sample() {
	jq -cn --arg row "$1" --arg tool "$2" --argjson run "$3" --argjson value "$4" \
		'{row: $row, tool: $tool, run: $run, value: $value}' >>"$RAW/../samples.jsonl"
}
fail() {
	FAILED=1
	jq -cn --arg metric "$1" --arg tool "$2" --argjson run "$3" --arg what "$4" \
		'{metric: $metric, tool: $tool, run: $run, what: $what}' >>"$RAW/../failures.jsonl"
}

# Per metric: perftest binary and arguments, netmem arguments, kind.
metric_def() {
	local m=$1
	PT_ARGS=() NM_ARGS=() KIND=lat
	case $m in
	read_lat8) PT_BIN=ib_read_lat PT_ARGS=(-s 8 -n "$iters") NM_ARGS=(--op read --mode lat -s 8 -n "$iters") ;;
	read_lat64) PT_BIN=ib_read_lat PT_ARGS=(-s 64 -n "$iters") NM_ARGS=(--op read --mode lat -s 64 -n "$iters") ;;
	faa_lat) PT_BIN=ib_atomic_lat PT_ARGS=(-A FETCH_AND_ADD -n "$iters") NM_ARGS=(--op faa --mode lat -n "$iters") ;;
	cas_lat) PT_BIN=ib_atomic_lat PT_ARGS=(-A CMP_AND_SWAP -n "$iters") NM_ARGS=(--op cas --mode lat -n "$iters") ;;
	write_bw)
		KIND=bw PT_BIN=ib_write_bw PT_ARGS=(-s 64 -t "$depth" -Q "$cq_mod" -n "$bw_iters")
		NM_ARGS=(--op write --mode bw -s 64 -t "$depth" -Q "$cq_mod" -n "$bw_iters") ;;
	read_bw)
		KIND=bw PT_BIN=ib_read_bw PT_ARGS=(-s 64 -t "$depth" -Q "$cq_mod" -n "$bw_iters")
		NM_ARGS=(--op read --mode bw -s 64 -t "$depth" -Q "$cq_mod" -n "$bw_iters") ;;
	esac
}

# netmem arguments that mirror what perftest chose by itself (read from its first printout).
matched_args() {
	local m=$1
	MATCH=(--warmup 0)
	[ -z "${PT_SET[$m.mtu]:-}" ] || MATCH+=(-m "${PT_SET[$m.mtu]}")
	case $m in
	write_bw) [ -z "${PT_SET[$m.inline]:-}" ] || MATCH+=(-I "${PT_SET[$m.inline]}") ;;
	*) [ -z "${PT_SET[$m.outs]:-}" ] || MATCH+=(--max-rd-atomic "${PT_SET[$m.outs]}") ;;
	esac
}

run_perftest() { # metric run
	local m=$1 r=$2 f=$RAW/$1.perftest.$2 pat=t_typical tl=600 v typ='' avg=''
	[ "$KIND" = bw ] && pat=MsgRate
	if ! pt_pair "$f" "$pat" "$tl" "$PT_BIN" "${PT_COMMON[@]}" "${PT_ARGS[@]}"; then
		fail "$m" perftest "$r" "$PT_BIN did not complete (see raw/$(basename "$f").txt)"
		return
	fi
	if [ -z "${PT_SET[$m.done]:-}" ]; then
		PT_SET[$m.done]=1
		PT_SET[$m.mtu]=$(pt_setting "$f.txt" Mtu)
		PT_SET[$m.outs]=$(pt_setting "$f.txt" 'Outstand reads')
		PT_SET[$m.inline]=$(pt_setting "$f.txt" 'Max inline data')
		PT_SET[$m.txdepth]=$(pt_setting "$f.txt" 'TX depth')
		PT_SET[$m.cqmod]=$(pt_setting "$f.txt" 'CQ Moderation')
	fi
	if [ "$KIND" = lat ]; then
		# (no process substitution: the VM's /dev has no /dev/fd)
		read -r typ avg <<<"$(parse_pt_lat "$f.txt")"
		if [ -z "${typ:-}" ]; then
			fail "$m" perftest "$r" "no t_typical/t_avg in raw/$(basename "$f").txt"
			return
		fi
		sample "$m.p50" perftest "$r" "$typ"
		sample "$m.mean" perftest "$r" "$avg"
	else
		v=$(parse_pt_bw "$f.txt")
		if [ -z "$v" ]; then
			fail "$m" perftest "$r" "no MsgRate in raw/$(basename "$f").txt"
			return
		fi
		sample "$m.rate" perftest "$r" "$v"
	fi
}

run_netmem() { # metric run
	local m=$1 r=$2 f=$RAW/$1.netmem.$2 p50='' mean='' mops=''
	matched_args "$m"
	# shellcheck disable=SC2086 # --netmem-args is split on purpose
	if ! nm_run "$f" 900 "${NM_ARGS[@]}" "${NM_COMMON[@]}" "${MATCH[@]}" $netmem_args; then
		fail "$m" netmem "$r" "netmem ops failed (see raw/$(basename "$f").txt)"
		return
	fi
	read -r p50 mean mops <<<"$(jq -r '.points[0].metrics | [.lat.p50, .lat.mean, .mops] | @tsv' "$f.json")"
	if [ -z "$mops" ]; then
		fail "$m" netmem "$r" "no metrics in raw/$(basename "$f").json"
		return
	fi
	if [ "$KIND" = lat ]; then
		sample "$m.p50" netmem "$r" "$p50"
		sample "$m.mean" netmem "$r" "$mean"
	else
		sample "$m.rate" netmem "$r" "$mops"
	fi
}

# Row definitions: row id, label, kind (lat: lower is better, two-sided 5% target; rate: higher
# is better, >= 0.95), perftest quantity, netmem quantity.
rows_for() {
	case $1 in
	read_lat8) echo "read_lat8.p50|READ 8 B latency p50 [us]|lat|t_typical|lat.p50"
		echo "read_lat8.mean|READ 8 B latency mean [us]|lat|t_avg|lat.mean" ;;
	read_lat64) echo "read_lat64.p50|READ 64 B latency p50 [us]|lat|t_typical|lat.p50"
		echo "read_lat64.mean|READ 64 B latency mean [us]|lat|t_avg|lat.mean" ;;
	faa_lat) echo "faa_lat.p50|FAA latency p50 [us]|lat|t_typical|lat.p50"
		echo "faa_lat.mean|FAA latency mean [us]|lat|t_avg|lat.mean" ;;
	cas_lat) echo "cas_lat.p50|CAS latency p50 [us]|lat|t_typical|lat.p50"
		echo "cas_lat.mean|CAS latency mean [us]|lat|t_avg|lat.mean" ;;
	write_bw) echo "write_bw.rate|WRITE 64 B msg rate [Mpps]|rate|MsgRate|mops" ;;
	read_bw) echo "read_bw.rate|READ 64 B msg rate [Mpps]|rate|MsgRate|mops" ;;
	esac
}

# Builds summary.json and table.txt of a run directory from context.json, samples.jsonl,
# failures.jsonl and commands.txt, and prints the table. Also reachable as --summarize DIR.
write_summary() {
	local dir=$1 m rowdefs='' nmfile
	[ -s "$dir/context.json" ] || { say "$dir has no context.json"; return 1; }
	for m in $(jq -r '.params.metrics[]' "$dir/context.json"); do rowdefs+=$(rows_for "$m")$'\n'; done
	nmfile=$(find "$dir" -path '*/raw/*' -name '*.netmem.1.json' 2>/dev/null | sort | head -n1)
	touch "$dir/samples.jsonl" "$dir/failures.jsonl" "$dir/commands.txt"
	jq --slurpfile s "$dir/samples.jsonl" --slurpfile f "$dir/failures.jsonl" --arg rows "$rowdefs" \
		--arg commands "$(grep -v '^#' "$dir/commands.txt")" \
		--argjson nm "$(if [ -n "$nmfile" ]; then jq -c '.meta.runs[0].software' "$nmfile"; else echo null; fi)" '
	def median: sort | length as $n | if $n == 0 then null
		elif $n % 2 == 1 then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
	{schema: "netmem-perftest-compare/1"} + . + {
	  netmem_software: $nm,
	  commands: ($commands | split("\n") | map(select(length > 0))),
	  rows: [ $rows | split("\n")[] | select(length > 0) | split("|") as [$id, $lab, $kind, $pq, $nq]
		| ([$s[] | select(.row == $id and .tool == "perftest")] | sort_by(.run) | map(.value)) as $pv
		| ([$s[] | select(.row == $id and .tool == "netmem")] | sort_by(.run) | map(.value)) as $nv
		| ($pv | median) as $pm | ($nv | median) as $nm
		| (if $pm != null and $nm != null and $pm > 0 then $nm / $pm else null end) as $ratio
		| {id: $id, metric: $lab, kind: $kind, perftest_quantity: $pq, netmem_quantity: $nq,
		   perftest: {median: $pm, runs: $pv}, netmem: {median: $nm, runs: $nv},
		   ratio_netmem_over_perftest: $ratio,
		   target: (if $kind == "lat" then "0.95 <= ratio <= 1.05" else "ratio >= 0.95" end),
		   target_met: (if $ratio == null then null
				elif $kind == "lat" then ($ratio >= 0.95 and $ratio <= 1.05)
				else $ratio >= 0.95 end)} ],
	  failures: $f
	}' "$dir/context.json" >"$dir/summary.json.new" || { say "writing summary.json failed"; return 1; }
	mv "$dir/summary.json.new" "$dir/summary.json"
	write_table "$dir"
	echo
	cat "$dir/table.txt"
}

# table.txt from summary.json.
write_table() {
	local dir=$1
	{
		jq -r '"# \(.note)",
		       "# median of \(.params.runs) interleaved run(s) per tool; latency -n \(.params.iters); rate -s 64 -t \(.params.depth) -Q \(.params.cq_mod) -n \(.params.bw_iters)" +
		       (if .params.netmem_extra_args != "" then "; netmem extra args: \(.params.netmem_extra_args)" else "" end)' \
			"$dir/summary.json"
		printf '%-30s %12s %12s %8s  %-10s %s\n' metric perftest netmem ratio target verdict
		jq -r '.rows[] | [.metric, (.perftest.median // "-"), (.netmem.median // "-"),
			(.ratio_netmem_over_perftest // "-"), .kind,
			(if .target_met == null then "FAILED to run" elif .target_met then "target met" else "target MISSED" end)] | @tsv' \
			"$dir/summary.json" |
			awk -F'\t' '{ tgt = $5 == "lat" ? "0.95-1.05" : ">= 0.95"
				pf = $2 == "-" ? "-" : sprintf("%.4g", $2); nf = $3 == "-" ? "-" : sprintf("%.4g", $3)
				rf = $4 == "-" ? "-" : sprintf("%.3f", $4)
				printf "%-30s %12s %12s %8s  %-10s %s\n", $1, pf, nf, rf, tgt, $6 }'
		echo
		if jq -e '.boots' "$dir/summary.json" >/dev/null; then
			echo "# ratio netmem/perftest of each boot's medians, boot 1 first; then their median"
			jq -r '.rows[] | "\(.metric): \(.ratio_per_boot | map(if . == null then "-" else (. * 1000 | round / 1000 | tostring) end) | join(" ")); median \(.ratio_median_of_boots // "-" | if type == "number" then (. * 1000 | round / 1000) else . end)"' \
				"$dir/summary.json"
			echo
		fi
		echo "# per-run values in run order (perftest | netmem)"
		jq -r '.rows[] | "\(.metric): \(.perftest.runs | map(tostring) | join(" ")) | \(.netmem.runs | map(tostring) | join(" "))"' \
			"$dir/summary.json"
		if [ -s "$dir/failures.jsonl" ]; then
			echo
			echo "# FAILED runs"
			jq -r '"\(.metric) \(.tool) run \(.run): \(.what)"' "$dir/failures.jsonl"
		fi
	} >"$dir/table.txt"
}

# With --boots: DIR/boot-K/ each hold a whole run. The pooled summary takes every boot's
# samples (runs numbered on across boots) and adds each boot's own ratio per row; its
# context and command lines are the first boot's that ran.
pool_boots() {
	local dir=$1 k n=0 b f
	: >"$dir/samples.jsonl"
	: >"$dir/failures.jsonl"
	for ((k = 1; k <= boots; k++)); do
		b=$dir/boot-$k
		if [ ! -s "$b/context.json" ]; then
			say "boot $k wrote no context.json: left out of the pooled summary"
			jq -cn --argjson k "$k" '{metric: "all", tool: "boot", run: 0, what: "boot \($k) did not run"}' \
				>>"$dir/failures.jsonl"
			continue
		fi
		n=$((n + 1))
		if ((n == 1)); then
			jq --argjson b "$boots" --argjson r "$runs" \
				'.params.boots = $b | .params.runs_per_boot = $r | .params.runs = $b * $r |
				 .note += "; \($b) boots, the rounds of all boots pooled"' "$b/context.json" >"$dir/context.json"
			cp "$b/commands.txt" "$dir/commands.txt" 2>/dev/null
		fi
		for f in samples failures; do
			jq -c --argjson k "$k" --argjson r "$runs" '.boot = $k | .run = ($k - 1) * $r + .run' \
				"$b/$f.jsonl" >>"$dir/$f.jsonl"
		done
	done
	((n > 0)) || { say "no boot ran"; return 1; }
	write_summary "$dir" >/dev/null || return 1
	local per='[]'
	for ((k = 1; k <= boots; k++)); do
		b=$dir/boot-$k/summary.json
		if [ -s "$b" ]; then
			per=$(jq -c --slurpfile s "$b" --argjson k "$k" \
				'. + [{boot: $k, ratios: ($s[0].rows | map({key: .id, value: .ratio_netmem_over_perftest}) | from_entries)}]' <<<"$per")
		else
			per=$(jq -c --argjson k "$k" '. + [{boot: $k, ratios: {}}]' <<<"$per")
		fi
	done
	jq --argjson per "$per" '
	def median: sort | length as $n | if $n == 0 then null
		elif $n % 2 == 1 then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
	.boots = $per |
	.rows |= map(.id as $id | ([$per[] | .ratios[$id]]) as $r
		| .ratio_per_boot = $r | .ratio_median_of_boots = ([$r[] | select(. != null)] | median))' \
		"$dir/summary.json" >"$dir/summary.json.new" && mv "$dir/summary.json.new" "$dir/summary.json" || return 1
	write_table "$dir"
	echo
	cat "$dir/table.txt"
}

inner_main() {
	cd "$repo" || exit 2
	# An interrupted run must not leave a perftest server holding its port.
	trap '[ -z "$SPID" ] || kill "$SPID" 2>/dev/null' EXIT
	trap 'exit 130' INT TERM HUP
	RAW=$run_dir/raw
	mkdir -p "$RAW" || exit 2
	: >"$run_dir/samples.jsonl"
	: >"$run_dir/failures.jsonl"
	local dev=${NETMEM_RDMA_DEVICE:-} gid=${NETMEM_GID_INDEX:-} lane=${NETMEM_SOFTROCE:-unknown}
	[ -n "$dev" ] || dev=$(ibv_devices 2>/dev/null | awk 'NR > 2 && NF { print $1; exit }')
	[ -n "$dev" ] || { say "no RDMA device"; exit 1; }
	PT_COMMON=(-d "$dev" -i 1)
	NM_COMMON=(-d "$dev" -i 1)
	if [ -n "$gid" ]; then
		PT_COMMON+=(-x "$gid")
		NM_COMMON+=(-x "$gid")
	fi
	MPIRUN=(mpirun --oversubscribe --bind-to none -np 2)
	(($(id -u) == 0)) && MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2)

	local emulated=true header
	[ "$lane" = hardware ] && emulated=false
	if [ "$emulated" = true ]; then
		header="Soft-RoCE ($dev, emulated in software, lane '$lane'): perftest and netmem measured side by side in one run, interleaved - NOT hardware numbers, only the ratios mean something"
	else
		header="hardware device $dev: perftest and netmem measured side by side in one run, interleaved on one host (loopback through the NIC)"
	fi
	jq -n --arg header "$header" --arg dev "$dev" --arg gid "$gid" --arg lane "$lane" \
		--argjson emulated "$emulated" --arg metrics "$metrics" \
		--argjson iters "$iters" --argjson bw_iters "$bw_iters" --argjson runs "$runs" \
		--argjson depth "$depth" --argjson cq_mod "$cq_mod" --arg netmem_args "$netmem_args" \
		--arg perftest "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)" \
		--arg kernel "$(uname -r)" --arg nproc "$(nproc)" '
	{note: $header, emulated: $emulated, softroce_lane: $lane, device: $dev,
	 gid_index: (if $gid == "" then null else ($gid | tonumber) end),
	 system: {kernel: $kernel, cpus: ($nproc | tonumber)}, perftest_version: $perftest,
	 params: {metrics: ($metrics | split(",")), iters: $iters, bw_iters: $bw_iters, runs: $runs,
		  depth: $depth, cq_mod: $cq_mod, size_bw: 64, netmem_extra_args: $netmem_args}}' \
		>"$run_dir/context.json" || exit 1
	say "$header"
	say "device $dev, GID index ${gid:-none}; $runs run(s) per tool; latency -n $iters, rate -n $bw_iters -t $depth -Q $cq_mod"

	# Prime both tools once (binaries and libraries into the page cache, first-QP costs), unrecorded.
	say "priming (not recorded)"
	pt_pair "$RAW/prime.perftest" t_typical 300 ib_read_lat "${PT_COMMON[@]}" -s 8 -n 200 ||
		say "priming perftest failed (continuing)"
	nm_run "$RAW/prime.netmem" 300 --op read --mode lat -s 8 -n 200 "${NM_COMMON[@]}" ||
		say "priming netmem failed (continuing)"
	echo "# exact command lines of run 1 of each metric (later runs differ only in port and file names)" >"$run_dir/commands.txt"

	local m r t0
	for m in "${metric_list[@]}"; do
		metric_def "$m"
		t0=$SECONDS
		echo "$m:" >>"$run_dir/commands.txt"
		for ((r = 1; r <= runs; r++)); do
			CMDLOG=/dev/null
			((r == 1)) && CMDLOG=$run_dir/commands.txt
			# P N, N P, P N, ...: each tool goes first equally often (run 1: perftest first,
			# since netmem copies settings from perftest's printout).
			if ((r % 2)); then
				run_perftest "$m" "$r"
				run_netmem "$m" "$r"
			else
				run_netmem "$m" "$r"
				run_perftest "$m" "$r"
			fi
		done
		CMDLOG=/dev/null
		say "$m: done in $((SECONDS - t0)) s"
	done

	# Settings perftest reported, per metric.
	local settings='{}' key
	for m in "${metric_list[@]}"; do
		for key in mtu outs inline txdepth cqmod; do
			[ -n "${PT_SET[$m.$key]:-}" ] || continue
			settings=$(jq -c --arg m "$m" --arg k "$key" --argjson v "${PT_SET[$m.$key]}" \
				'.[$m][$k] = $v' <<<"$settings")
		done
	done

	jq --argjson s "$settings" '.perftest_settings = $s' "$run_dir/context.json" >"$run_dir/context.json.new" &&
		mv "$run_dir/context.json.new" "$run_dir/context.json"
	write_summary "$run_dir" || exit 1
	return "$FAILED"
}

if [ -n "$summarize" ]; then
	if [ -d "$summarize/boot-1" ]; then
		boots=$(find "$summarize" -maxdepth 1 -name 'boot-*' -type d | wc -l)
		runs=$(jq -r '.params.runs' "$summarize/boot-1/context.json") || exit 1
		pool_boots "$summarize"
	else
		write_summary "$summarize"
	fi
	exit
fi
if ((inner)); then
	[ -n "$run_dir" ] || die "--inner needs --run-dir"
	inner_main
	exit
fi
host_main
