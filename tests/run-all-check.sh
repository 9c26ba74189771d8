#!/bin/sh
# The last step of run_all.sh's end-to-end check (make check): the VM lanes
# ran configs/check's plain, numa, odp and cluster configs into RUN_DIR
# (tests/integration/test_run_all.sh); this runs run_all.sh once more on the
# host for the rest (CoRM's simulator, every figure, the report) and checks
# the finished run directory: every config's document with every point valid,
# every figure the quick scale draws as valid PNG and SVG, the report with
# every paper and every claim that has its documents evaluated, Soft-RoCE
# marked and nothing counted as a hardware reproduction.
#   tests/run-all-check.sh RUN_DIR
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
run=${1:?usage: tests/run-all-check.sh RUN_DIR}

./run_all.sh --scale check --out "$run" --class sim >"$run/run_all-sim.log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "run_all.sh --scale check --class sim (simulator, figures, report): exit 0"; else
	notok "run_all.sh --scale check --class sim: exit $rc: $(grep -E 'failed|FAILED' "$run/run_all-sim.log" | tail -5 | tr '\n' '|')"
fi
check "the run is marked finished" test -e "$run/.finished"

# Every config's document (one per rank count of a "ranks" list), every point valid.
for n in $(nm_docs configs/check/*.json); do
	if jq -e '(.points | length) > 0 and all(.points[]; .valid == true) and .meta.runs[-1].finished != null' \
		"$run/$n.json" >/dev/null 2>&1; then
		ok "$n: document with every point valid"
	else
		notok "$n: $( [ -s "$run/$n.json" ] && echo "invalid or unfinished points" || echo "no document") in $run"
	fi
done

# LOCO Fig. 4b (2 nodes of 2 ranks, 1 and 2 workers each, ticket vs mpi):
# workers = nodes x threads in both styles, one table series per lock.
check "loco-fig4b: workers = nodes x threads in both styles" jq -e \
	'(.points | length) >= 4 and all(.points[]; .effective.workers == .params.nodes * .params.threads)' "$run/loco-fig4b.json"
check "loco-fig4b: netmem table gives ticket and mpi series" sh -c "bin/netmem table $run/loco-fig4b.json --x threads \
	--y txns_per_sec --series lock --where nodes=2 >$run/t4b && [ \$(grep -c '^threads ' $run/t4b) = 2 ] &&
	grep -qx 'threads ticket' $run/t4b && grep -qx 'threads mpi' $run/t4b"

# CoRM Figs. 15 and 16 ran the paper's mechanisms, not a neighbour of them:
# the collection asked the workers through their mailboxes; under thread
# messaging no worker scanned a block, under block scan none sent a message;
# both readers kept a series, and the compaction ended inside the phase.
check "corm-fig15: every measured point collected its blocks by messages to the workers" jq -e \
	'[.points[] | select(.skipped == null)] | length > 0 and all(.[]; .checks.collected_by_messages and
		.checks.collect_messages > 0 and .metrics.collect_us > 0 and .metrics.compact_us > 0)' "$run/corm-fig15.json"
# Whether the compaction ended inside the phase is the host's speed, not
# the code's: it is an observation, and the document must agree with it
# either way ("after" rates exactly when an interval followed the end; a
# claim on them "not exercised" when none did, checked with the claims).
check "corm-fig16: thread messaging (no block scanned), both readers' series, the after phase as long as the compaction left it" jq -e \
	'all(.points[]; .compaction.find == "msg" and .compaction.finds_by_scan == 0 and .compaction.ok and
		(.metrics.series_rpc | map(.[1]) | add) > 0 and (.metrics.series_direct | map(.[1]) | add) > 0 and
		(if .metrics.after_intervals > 0 then .compaction.ended_in_phase and (.metrics.rpc_after_over_before | type) == "number"
		 else .metrics.rpc_after == null end))' \
	"$run/corm-fig16.json"
echo "# corm-fig16 (observation): the compaction ended at $(jq -r '[.points[].compaction.ended_at_s] | map(tostring) | join(", ")' \
	"$run/corm-fig16.json" 2>/dev/null) s of a $(jq -r '.points[0].params.duration' "$run/corm-fig16.json" 2>/dev/null) s phase"
check "corm-fig16-scan: block scan (no message), the RPC reader's rate during the compaction over before computed" jq -e \
	'all(.points[]; .compaction.find == "scan" and .compaction.finds_by_message == 0 and
		(.metrics.rpc_during_over_before | type) == "number" and (.metrics.direct_over_rpc | type) == "number")' \
	"$run/corm-fig16-scan.json"

# Every figure the quick scale draws (configs and the documents computed on
# the host), as PNG and SVG: the check scale leaves none out.
figures=$(for cfg in configs/quick/*.json; do
	jq -r --arg self "$(basename "$cfg" .json)" '.plots // [] | .[] | .figure // $self' "$cfg"
done; echo corm-fig7 corm-fig17 corm-fig18 corm-fig19 clover-fig3)
for fig in $figures; do
	for ext in png svg; do
		check "figure $fig.$ext: non-empty, valid $ext" nm_figure_ok "$run/$fig.$ext"
	done
done

# The report: both files, every paper, every figure of the run in it.
check "report.md and index.html written" test -s "$run/report.md" -a -s "$run/index.html"
jq -r '.papers[].title' plots/claims.json | while read -r title; do
	if grep -qxF "## $title" "$run/report.md" && grep -qF "$title" "$run/index.html"; then
		echo "ok - paper: $title"
	else
		echo "not ok - paper missing from the report: $title"
	fi
done >"$run/papers.tap"
while read -r line; do
	case $line in "ok - "*) ok "${line#ok - }" ;; *) notok "${line#not ok - }" ;; esac
done <"$run/papers.tap"
rm -f "$run/papers.tap"
# Every figure, the two-host ones (Clover Figs. 2 and 4, from the cluster
# lane) included.
missing=$(grep '^Not in this run: ' "$run/report.md" | sed 's/^Not in this run: //; s/\.$//; s/, /\n/g' | tr '\n' ' ')
check "every figure of the report's papers is in the run (missing: ${missing:-none})" test -z "$missing"

# Claims: every claim whose documents the run holds is evaluated (a verdict,
# not "not run", "no matching points" or "failed run": every point of the
# run is valid and every selection names values the configs hold); the run
# is Soft-RoCE, so none counts as a hardware
# reproduction and the computed ones say they are not.
claims=$(bin/netmem report "$run" 2>/dev/null | grep '^claim ')
# verdict_is LINE ERE: the claim's line matches
verdict_is() { printf '%s\n' "$1" | grep -Eq "$2"; }
jq -r '.papers[].claims[] | select(.documents != null) | "\(.id)=\(.documents)"' plots/claims.json >"$run/claim-docs"
while IFS= read -r id; do
	doc=${id#*=}; id=${id%%=*}
	line=$(printf '%s\n' "$claims" | grep "^claim $id:")
	# documents may be a pattern (corm-fig12*): expanded here on purpose,
	# $1 is then a config it names, or the pattern itself when none does
	# shellcheck disable=SC2086
	set -- configs/check/$doc.json
	case " corm-fig7 corm-fig17 corm-fig18 corm-fig19 clover-fig3 " in *" $doc "*) set -- "$run/$doc.json" ;; esac
	if jq -e --arg id "$id" '[.papers[].claims[] | select(.id == $id and .needs != null)] | length > 0' plots/claims.json >/dev/null; then
		check "claim $id: not computable yet (needs)" verdict_is "$line" ': not run; not computable yet: needs '
	elif [ ! -e "$1" ]; then
		check "claim $id: not run (no $doc config at check scale)" verdict_is "$line" ': not run$'
	elif grep -Eqx "$id (check|quick/check)" tests/data/claim-gaps; then
		check "claim $id: no matching points (a known gap of the check scale)" verdict_is "$line" ': no matching points; '
	else
		if verdict_is "$line" \
			': ((reproduced|direction only|not reproduced|above the paper.s range|below the paper.s range|not exercised) \(measured [^,]*, (Soft-RoCE \(emulated\)[^)]*, not a hardware reproduction|simulation)\)(; .*)?|not exercised \((Soft-RoCE \(emulated\)[^)]*, not a hardware reproduction|simulation)\); (every selected point was skipped|no selected entry exercised it): .*)$'; then
			ok "claim $id: ${line#claim $id: }"
		else
			notok "claim $id: ${line#claim $id: }"
			# the entries it left out and why, from the report ("listed below")
			awk -v id="$id" 'index($0, id ": ") == 1 && / left out$/ { f = 1; next }
				f && /^```/ { if (++fence == 2) exit; next }
				f && fence == 1 && NF { i = index($0, "}: "); print "#   " $2 ": " substr($0, i + 3) " (" substr($0, length($2) + 4, 160) "...)" }' \
				"$run/report.md" | head -n 8
		fi
	fi
done <"$run/claim-docs"
check "report.md counts no hardware reproduction" grep -q '^Hardware reproductions: 0 reproduced, 0 direction only, 0 not reproduced, of 0 claims' "$run/report.md"
t_summary
