#!/bin/sh
# make check: unit tests (host, ASan+UBSan), command-line tests (host), then
# the integration tests on real verbs through Soft-RoCE (host rxe if the
# kernel has it, else a throwaway VM), the NUMA lane (two emulated NUMA nodes),
# the ODP lane (a newer Debian kernel whose rxe has on-demand paging) and the
# cluster lane (two guests joined by a link). The plain, NUMA and ODP lanes
# also run run_all.sh's configs of their class at check scale (configs/check)
# into one run directory, which tests/run-all-check.sh then finishes on the
# host (simulator, figures, report) and checks. Ends with "N passed,
# N failed".
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0; skipped=0
. tests/lib.sh   # skipped_of
# A lane's summary line is "N passed, N failed" with ", N skipped" when a
# check could not be made on this host; skips are shown and added up, never
# counted as passes.
tally() { # tally NAME LOGFILE [PREFIX]
	line=$(grep -E "^${3:-}[0-9]+ passed, [0-9]+ failed" "$2" | tail -1 | sed "s/^${3:-}//")
	if [ -z "$line" ]; then
		echo "not ok - $1 produced no summary (crashed or could not start)"
		fail=$((fail + 1))
	else
		pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
		fail=$((fail + $(echo "$line" | cut -d' ' -f3 | tr -d ,)))
		skipped=$((skipped + $(skipped_of "$line")))
		echo "== $1: $line ($(( $(date +%s) - lane_start )) s)"
	fi
}
log=$(mktemp); trap 'rm -f "$log"' EXIT

lane_start=$(date +%s)
echo "== unit tests"
tests/run-unit.sh "$@" >"$log" 2>&1; grep -v '^unit ' "$log" | grep -v '^[0-9]* passed' ; tally unit "$log"

for t in tests/cli/test_*.sh; do
	lane_start=$(date +%s)
	echo "== command-line tests: $t"
	sh "$t" >"$log" 2>&1; grep '^not ok' "$log"; tally "$(basename "$t" .sh)" "$log"
done

if [ "${NETMEM_SKIP_VM:-0}" = 1 ]; then
	echo "== integration tests skipped (NETMEM_SKIP_VM=1)"
else
	# run_all.sh at check scale, split over the VMs below (tests/integration/test_run_all.sh)
	NETMEM_CHECK_RUN=$(mktemp -d); export NETMEM_CHECK_RUN
	lane_start=$(date +%s)
	echo "== integration tests (Soft-RoCE)"
	# Generous limits: the VM runs under emulation; a loaded host is slower.
	tests/vm/softroce-run --timeout 3600 -- tests/integration/run-all.sh 2>&1 | tee "$log" |
		grep -E '^(not ok|# .* s\)$|integration:)|netmem-vm'
	tally integration "$log" "integration: "
	lane_start=$(date +%s)
	echo "== NUMA integration tests (two NUMA nodes)"
	NETMEM_VM_TIMEOUT=1800 tests/integration/numa/run.sh 2>&1 | tee "$log" |
		grep -E '^(not ok|# .* s\)$|integration:)|netmem-vm'
	tally numa "$log" "integration: "
	lane_start=$(date +%s)
	echo "== ODP integration tests (CoRM's remap; a newer Debian kernel in the VM)"
	NETMEM_VM_TIMEOUT=1200 tests/integration/odp/run.sh 2>&1 | tee "$log" |
		grep -E '^(not ok|# .* s\)$|integration:)|netmem-vm'
	tally odp "$log" "integration: "
	lane_start=$(date +%s)
	echo "== run_all.sh at check scale: simulator, figures, report (host; $NETMEM_CHECK_RUN)"
	tests/run-all-check.sh "$NETMEM_CHECK_RUN" >"$log" 2>&1; grep '^not ok' "$log"
	tally run_all "$log"
	# kept for a look when something failed
	if grep -q '^not ok' "$log"; then echo "== kept $NETMEM_CHECK_RUN"; else rm -rf "$NETMEM_CHECK_RUN"; fi
	lane_start=$(date +%s)
	echo "== cluster tests (two Soft-RoCE hosts joined by a link)"
	NETMEM_VM_TIMEOUT=1200 tests/integration/cluster/run.sh 2>&1 | tee "$log" |
		grep -E '^(not ok|[0-9]+ passed)|netmem-(vm|cluster)|^cluster:'
	tally cluster "$log"
fi
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
