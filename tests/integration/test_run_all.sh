#!/bin/sh
# run_all.sh end to end at check scale (configs/check), the part that needs
# verbs: one class of configs (NETMEM_CHECK_CLASS: plain, the default, numa,
# odp, or cluster in the cluster of guests), run by run_all.sh itself with --here --no-report into
# NETMEM_CHECK_RUN (a directory shared by the lanes of make check, whose last
# step, tests/run-all-check.sh, draws the figures, writes the
# report and checks the whole run directory; without it, a directory of its
# own), after run_all.sh's --preflight over the class. Checks that preflight
# refused none, that every config of the class left its document with every
# point valid, and (plain class) that rerunning a finished config runs nothing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
class=${NETMEM_CHECK_CLASS:-plain}
out=${NETMEM_CHECK_RUN:-}
if [ -z "$out" ]; then
	out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
log=$out/run_all-$class.log

# The configs of this class, by run_all.sh's rule ("hosts" first, then
# "numa", then "odp"); one jq for all (a jq start costs about a second in the guest).
names=$(jq -r --arg class "$class" 'select((if .hosts != null then "cluster" elif .numa == true then "numa"
	elif .odp == true then "odp" else "plain" end) == $class) | input_filename | sub(".*/"; "") | sub("\\.json$"; "")' \
	configs/check/*.json)
[ -n "$names" ] || notok "configs/check has no $class config"

# --preflight: one netmem preflight job over the class's configs first, in
# this guest; none may be refused (each must run below), and its expected
# time is set beside the lane's.
t0=$(date +%s)
./run_all.sh --scale check --out "$out" --class "$class" --here --no-report --preflight >"$log" 2>&1
rc=$?
took=$(($(date +%s) - t0))
if [ "$rc" = 0 ]; then ok "run_all.sh --scale check --class $class: exit 0"; else
	notok "run_all.sh --scale check --class $class: exit $rc: $(grep -v '^run_all.sh: [0-9]*/' "$log" | tail -5 | tr '\n' '|')"
fi
pf=$out/preflight-$class.json
if jq -e 'all(.configs[]; .verdict != "does_not_fit") and (.configs | length) > 0' "$pf" >/dev/null 2>&1; then
	ok "preflight: no $class config refused in this guest ($(jq -r '[.configs[] | .verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$pf"))"
	echo "# preflight expected $(jq -r '.expected_seconds | floor' "$pf") s for the $class configs (the lane, preflight and build check included: $took s)"
	# The lock table records the QPs its mesh made per NIC: preflight's
	# prediction (the same nm_mesh_plan) must be that number.
	compared=0
	for n in $names; do
		[ -s "$out/$n.json" ] && jq -e '[.points[] | .effective.qps_per_nic // empty] | length > 0' "$out/$n.json" >/dev/null 2>&1 || continue
		made=$(jq '[.points[] | .effective.qps_per_nic] | max' "$out/$n.json")
		said=$(jq --arg c "configs/check/$n.json" '.configs[] | select(.config == $c) | .peak.qps_per_nic' "$pf")
		check "$n: preflight predicted the QPs per NIC the run made ($said, $made)" [ "$said" = "$made" ]
		compared=$((compared + 1))
	done
	# the lock table's configs are plain: there, the comparison must happen
	[ "$class" != plain ] || [ "$compared" -gt 0 ] ||
		notok "preflight's QPs per NIC compared with no run: no plain config recorded effective.qps_per_nic"
else
	notok "preflight: $class configs refused or no document: $(jq -c '[.configs[] | select(.verdict == "does_not_fit") | {config, reason}]' "$pf" 2>&1 | head -c 600)"
fi

# their documents: one per rank count of a config whose "ranks" is a list
set --
for n in $names; do set -- "$@" "configs/check/$n.json"; done
docs=$([ $# = 0 ] || nm_docs "$@")
# Each document's verdict, one jq for all: every point valid (skipped
# points, a placement or strategy the guest lacks, are valid), one summary
# entry per parameter set, the run finished; else the first invalid points.
verdicts=$(cd "$out" && for n in $docs; do [ -s "$n.json" ] && echo "$n.json"; done |
	xargs -r jq -c '{doc: (input_filename | sub("\\.json$"; "")), n: (.points | length),
		good: ((.points | length) > 0 and all(.points[]; .valid == true) and (.summary | length) > 0 and
		       .meta.runs[-1].finished != null),
		bad: ([.points[] | select(.valid != true) | .params] | .[:3])}' 2>&1)
for n in $docs; do
	v=$(printf '%s\n' "$verdicts" | grep -F "{\"doc\":\"$n\"," | head -1)
	if [ -n "$v" ] && case $v in *'"good":true'*) true ;; *) false ;; esac && [ ! -e "$out/$n.json.journal" ]; then
		ok "$n: document written, $(printf '%s' "$v" | sed 's/.*"n":\([0-9]*\).*/\1/') point(s), every one valid"
	else
		notok "$n: ${v:-no document, or one jq could not read: $(printf "%s" "$verdicts" | grep -v "^{" | head -1)}"
	fi
done

# Rerunning a finished config resumes every point and measures none.
if [ "$class" = plain ]; then
	before=$(jq -c '[(.points | length), (.meta.runs | length)]' "$out/ops-lat.json" 2>/dev/null)
	./run_all.sh --scale check --out "$out" --class plain --only ops-lat --here --no-report >"$log.rerun" 2>&1
	rc=$?
	after=$(jq -c '[(.points | length), (.meta.runs | length)]' "$out/ops-lat.json" 2>/dev/null)
	# the same points, one more run recorded (resume appends to meta.runs)
	expect=$(echo "$before" | jq -c '[.[0], .[1] + 1]' 2>/dev/null)
	if [ "$rc" = 0 ] && [ -n "$before" ] && [ "$after" = "$expect" ] && grep -q ' 0 point(s) run' "$log.rerun"; then
		ok "rerunning a finished config: nothing measured again ($before -> $after points, runs)"
	else
		notok "rerunning a finished config: exit $rc, [points, runs] $before -> $after: $(tail -3 "$log.rerun" | tr '\n' '|')"
	fi
	rm -f "$log.rerun"
fi
t_summary
