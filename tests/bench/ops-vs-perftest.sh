#!/bin/bash
# ops-vs-perftest.sh: netmem ops against perftest, 64 B, as a new user runs
# both (each tool's defaults, no NETMEM_* variables), in rounds interleaved in
# one Soft-RoCE boot.
#
#   tests/bench/ops-vs-perftest.sh [--out DIR] [--rounds R] [--lat-iters N] [--bw-iters N]
#                                  [--timeout SEC] [--unpinned]
#
# A benchmark, not a test: it prints ratios, it never asserts timing. One
# call of tests/vm/softroce-run (the host's device if there is one, else a
# throwaway Soft-RoCE VM); inside, R rounds of four pairs, each pair run
# back to back, the tool that goes first alternating between rounds:
#
#   pair        perftest (server and client on this host)   netmem (mpirun -np 2, rank 0 -> 1)
#   read_lat    ib_read_lat  -s 64 -n N    t_typical         ops --op read  -s 64 -n N   lat.p50
#   write_lat   ib_write_lat -s 64 -n N    t_typical         ops --op write -s 64 -n N   lat.p50
#   read_rate   ib_read_bw   -s 64 -n NB   MsgRate           ops --op read  --mode bw -s 64 -n NB  mops
#   write_rate  ib_write_bw  -s 64 -n NB   MsgRate           ops --op write --mode bw -s 64 -n NB  mops
#
# Per pair it prints the median over rounds of the per-round ratio
# netmem/perftest and its spread (min-max): latency goal <= 1.02, rate goal
# >= 0.98. ib_write_lat reports half a WRITE ping-pong, netmem the WRITE's
# completion (its round trip to the target's acknowledgement): not the same
# quantity, so that row is context, not a verdict.
#
# --unpinned adds a third tool, netmem with NETMEM_PIN=none (worker threads
# not pinned, as perftest's are not), run right after netmem in each round:
# a row per tool tells the threads' placement apart from netmem's code.
#
# Output: DIR/ops-vs-perftest-<UTC stamp>/ with raw/ (every output and result
# document), samples.tsv (pair, round, tool, value), settings.txt (what each
# tool used: MTU, outstanding READs, inline size, netmem's clock) and
# table.txt. DIR defaults to results/bench.
set -uo pipefail
here=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd -- "$here/../.." && pwd)
out=results/bench rounds=7 lat_iters=2000 bw_iters=20000 tmo=2400 inner_dir='' unpinned=0
while (($#)); do
	case $1 in
	--out) out=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--lat-iters) lat_iters=${2:?}; shift ;;
	--bw-iters) bw_iters=${2:?}; shift ;;
	--timeout) tmo=${2:?}; shift ;;
	--inner) inner_dir=${2:?}; shift ;;
	--unpinned) unpinned=1 ;;
	-h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ops-vs-perftest.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
for v in rounds lat_iters bw_iters tmo; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "ops-vs-perftest.sh: --${v//_/-} takes a positive integer" >&2; exit 2; }
done
cd "$repo" || exit 2
. tests/bench/lib.sh
PAIRS=(read_lat write_lat read_rate write_rate)

# The pair's perftest command, netmem arguments, and kind (lat or rate).
pair_def() {
	case $1 in
	read_lat) KIND=lat PT=(ib_read_lat -s 64 -n "$lat_iters") NM=(--op read -s 64 -n "$lat_iters") ;;
	write_lat) KIND=lat PT=(ib_write_lat -s 64 -n "$lat_iters") NM=(--op write -s 64 -n "$lat_iters") ;;
	read_rate) KIND=rate PT=(ib_read_bw -s 64 -n "$bw_iters") NM=(--op read --mode bw -s 64 -n "$bw_iters") ;;
	write_rate) KIND=rate PT=(ib_write_bw -s 64 -n "$bw_iters") NM=(--op write --mode bw -s 64 -n "$bw_iters") ;;
	esac
}

# Inside the run: every round, every pair, both tools; one line per sample.
PORT=18900
run_perftest() { # pair round
	local f=$RAW/$1.perftest.$2 v
	PORT=$((PORT + 1))
	if pt_pair "$f" 300 "$PORT" "${PT[@]}" "${DEV[@]}"; then
		if [ "$KIND" = lat ]; then v=$(pt_p50 "$f.txt"); else v=$(pt_mpps "$f.txt"); fi
	fi
	printf '%s\t%s\tperftest\t%s\n' "$1" "$2" "${v:-nan}" >>"$SAMPLES"
}
run_netmem() { # pair round [tool]: tool netmem-unpinned runs with NETMEM_PIN=none
	local tool=${3:-netmem} f=$RAW/$1.${3:-netmem}.$2 v='' q=.mops pin=
	[ "$KIND" = lat ] && q=.lat.p50
	[ "$tool" = netmem-unpinned ] && pin=none
	if NETMEM_PIN=$pin timeout -k 5 300 mpirun -np 2 -x NETMEM_PIN bin/netmem ops "${NM[@]}" "${DEV[@]}" \
		--output "$f.json" --progress=false >"$f.txt" 2>&1; then
		v=$(jq -r ".points[0] | select(.valid) | .metrics$q" "$f.json")
	fi
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$tool" "${v:-nan}" >>"$SAMPLES"
}
run_netmems() { # pair round
	run_netmem "$1" "$2"
	[ "$unpinned" = 1 ] && run_netmem "$1" "$2" netmem-unpinned
	return 0
}
inner() {
	RAW=$inner_dir/raw SAMPLES=$inner_dir/samples.tsv
	mkdir -p "$RAW" && : >"$SAMPLES"
	DEV=(-d "${NETMEM_RDMA_DEVICE:?softroce-run names the device}")
	[ -z "${NETMEM_GID_INDEX:-}" ] || DEV+=(-x "$NETMEM_GID_INDEX")
	local r p
	for ((r = 1; r <= rounds; r++)); do
		for p in "${PAIRS[@]}"; do
			pair_def "$p"
			if ((r % 2)); then run_perftest "$p" "$r"; run_netmems "$p" "$r"; else run_netmems "$p" "$r"; run_perftest "$p" "$r"; fi
		done
		echo "ops-vs-perftest: round $r of $rounds done" >&2
	done
	{
		echo "lane: ${NETMEM_SOFTROCE:-unknown}, device ${DEV[*]}, kernel $(uname -r), $(nproc) CPUs"
		for p in "${PAIRS[@]}"; do
			printf '%s: perftest Mtu %s, outstanding reads %s, max inline %s; ' "$p" \
				"$(pt_setting "$RAW/$p.perftest.1.txt" Mtu)" "$(pt_setting "$RAW/$p.perftest.1.txt" 'Outstand reads')" \
				"$(pt_setting "$RAW/$p.perftest.1.txt" 'Max inline data')"
			jq -r '"netmem inline \(.points[0].effective.inline_size) (inline: \(.points[0].effective.inline)), " +
				"clock \(.meta.runs[0].software.clock.source) (\(.meta.runs[0].software.clock.why))"' \
				"$RAW/$p.netmem.1.json" 2>/dev/null || echo "netmem: no document"
		done
	} >"$inner_dir/settings.txt"
}

# On the host: per pair, the per-round ratios' median and range.
table() {
	local dir=$1
	{
		echo "# Soft-RoCE (emulated in software: ratios only, not hardware numbers); $rounds interleaved rounds in one boot"
		echo "# ratio = netmem / perftest per round; latency: p50 vs t_typical [us], rate: Mpps"
		printf '%-11s %11s %11s %14s %19s %s\n' pair perftest netmem 'median ratio' 'spread (min-max)' goal
		awk -F'\t' '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ v[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } if ($2 > nr) nr = $2
		  if ($3 != "perftest" && !($3 in tseen)) { tseen[$3] = 1; tools[++nt] = $3 } }
		END {
			for (k = 1; k <= np; k++) for (tt = 1; tt <= nt; tt++) {
				p = order[k]; tool = tools[tt]; n = 0; npt = 0; nnm = 0; lo = ""; hi = ""
				for (r = 1; r <= nr; r++) {
					a = v[p, r, "perftest"]; b = v[p, r, tool]
					if (a != "nan" && a != "") pt[++npt] = a
					if (b != "nan" && b != "") nm[++nnm] = b
					if (a == "nan" || b == "nan" || a == "" || b == "" || a <= 0) continue
					q = b / a; ratio[++n] = q
					if (lo == "" || q < lo) lo = q
					if (hi == "" || q > hi) hi = q
				}
				goal = p ~ /lat/ ? "<= 1.02" : ">= 0.98"
				if (p == "write_lat") goal = goal " (not the same quantity)"
				row = nt > 1 ? p "/" tool : p
				if (n == 0) { printf "%-11s %11s %11s %14s %19s %s\n", row, "-", "-", "FAILED", "-", goal; continue }
				printf "%-11s %11.4g %11.4g %14.3f %19s %s (%d rounds)\n", row, median(pt, npt), median(nm, nnm),
					median(ratio, n), sprintf("%.3f-%.3f", lo, hi), goal, n
			}
		}' "$dir/samples.tsv"
		echo
		cat "$dir/settings.txt" 2>/dev/null
	} | tee "$dir/table.txt"
}

if [ -n "$inner_dir" ]; then
	inner
	exit 0
fi
bench_setup ops-vs-perftest "$out"
extra=(); [ "$unpinned" = 1 ] && extra=(--unpinned)
tests/vm/softroce-run --timeout "$tmo" -- bash "$here/ops-vs-perftest.sh" --inner "$dir" --rounds "$rounds" \
	--lat-iters "$lat_iters" --bw-iters "$bw_iters" "${extra[@]}" || { echo "ops-vs-perftest.sh: the run failed (raw outputs: $dir/raw)" >&2; exit 1; }
table "$dir"
