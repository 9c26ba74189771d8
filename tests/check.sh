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
		echo "== $1: $line ($(( $(date +%s) - lane_start )) s${lane_cpu:+; its guests used $lane_cpu CPU s})"
	fi
}
log=$(mktemp); trap 'rm -f "$log"' EXIT

lane_start=$(date +%s)
echo "== unit tests"
tests/run-unit.sh "$@" >"$log" 2>&1; grep -v '^unit ' "$log" | grep -v '^[0-9]* passed' ; tally unit "$log"

# The VM lanes run in two phases. First the correctness lane (the lock and
# kv files, tests/integration/correctness/run.sh) in a guest of two vCPUs,
# beside nothing but the host's command-line tests, which mostly wait for
# mpirun: its ranks must really run at once, and with another guest beside
# it a vCPU the host deschedules while its thread holds a lock leaves the
# other spinning for the host's time slice (its files took two to four
# times as long, test_txn 187 s against 47 s alone). The ODP lane (one
# vCPU) starts when the command-line tests end. Then two streams: the
# integration lane in a guest of one vCPU; the NUMA lane (two nodes, two
# vCPUs), then the cluster lane (two guests of one vCPU). Each
# lane writes its own log; its progress lines are shown as they come,
# prefixed with the lane's name, and its total is added up below in a
# fixed order.
# vm_lane NAME CMD...: one VM lane into $vmlogs/NAME, its time in NAME.time
vm_lane() {
	name=$1; shift
	s=$(date +%s)
	# NETMEM_TEST_PROFILE (tests/lib.sh's nm_run): a file per lane, as
	# guests side by side would interleave their appends over 9p
	NETMEM_TEST_PROFILE=${NETMEM_TEST_PROFILE:+$NETMEM_TEST_PROFILE.$name} NETMEM_VM_CPU_LOG=$vmlogs/$name.cpu \
		"$@" 2>&1 | tee "$vmlogs/$name" |
		grep --line-buffered -E '^(not ok|# .* s\)$|integration:|[0-9]+ passed)|netmem-(vm|cluster)|^cluster:' |
		sed -u "s/^/[$name] /"
	echo $(( $(date +%s) - s )) >"$vmlogs/$name.time"
}
# guest_cpu NAME: the host CPU seconds lane NAME's guests used (netmem-vm's NETMEM_VM_CPU_LOG)
guest_cpu() { awk '{ c += $2 } END { if (NR) print c }' "$vmlogs/$1.cpu" 2>/dev/null; }
if [ "${NETMEM_SKIP_VM:-0}" = 1 ]; then
	echo "== integration tests skipped (NETMEM_SKIP_VM=1)"
else
	vmlogs=$(mktemp -d); trap 'rm -f "$log"; rm -rf "$vmlogs"' EXIT
	# run_all.sh at check scale, split over the VMs below (tests/integration/test_run_all.sh)
	NETMEM_CHECK_RUN=$(mktemp -d); export NETMEM_CHECK_RUN
	# Generous limits: the VM runs under emulation; a loaded host is slower.
	echo "== VM lanes: correctness (locks and kv, two vCPUs) beside the command-line tests, then ODP (CoRM's remap; a newer Debian kernel); then integration (Soft-RoCE) beside NUMA (two NUMA nodes), then cluster (two Soft-RoCE hosts joined by a link)"
	# Lanes on the host's own verbs (a device, or Soft-RoCE the host can add)
	# would share it, and the first to end removes an added one: one at a time
	# there, as with NETMEM_CHECK_SERIAL=1.
	serial=0
	if [ "${NETMEM_CHECK_SERIAL:-0}" = 1 ] || [ -d /sys/module/rdma_rxe ] ||
		[ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		serial=1
	fi
	# Side by side, each guest gets one vCPU (the NUMA lane's two nodes need
	# two, the correctness lane runs alone with two): with two per guest, four
	# vCPUs share two cores, and a rank that waits for one whose vCPU the host
	# has descheduled spins for the host's time slice; with one, the guest's
	# own scheduler hands the CPU over (measured: the same six test files in
	# two guests side by side took 364 s with two vCPUs each, 215 s with one).
	[ "$serial" = 1 ] || { NETMEM_VM_SMP=${NETMEM_VM_SMP:-1}; export NETMEM_VM_SMP; }
	# the NIC personalities run in the ODP lane (its kernel gives rxe the ODP
	# the ConnectX-4 to -6 profiles report)
	# test_stall mostly waits out its timeouts: in the ODP lane, which ends
	# first, rather than at the end of the integration lane, which ends last
	plain=$(ls tests/integration/test_*.sh | grep -vxF "$(tests/integration/correctness/run.sh --list)" |
		grep -vx -e tests/integration/test_nic_profiles.sh -e tests/integration/test_stall.sh)
	NETMEM_VM_TIMEOUT=1500 vm_lane correctness tests/integration/correctness/run.sh &
	vm_c=$!
fi

for t in tests/cli/test_*.sh; do
	lane_start=$(date +%s)
	echo "== command-line tests: $t"
	sh "$t" >"$log" 2>&1; grep '^not ok' "$log"; tally "$(basename "$t" .sh)" "$log"
done

if [ "${NETMEM_SKIP_VM:-0}" != 1 ]; then
	# The ODP lane (one vCPU) starts as the command-line tests end, over the
	# correctness lane's last minutes and the next phase's first.
	[ "$serial" = 0 ] || wait "$vm_c"
	NETMEM_VM_TIMEOUT=1800 vm_lane odp tests/integration/odp/run.sh tests/integration/test_stall.sh &
	vm_o=$!
	[ "$serial" = 0 ] || wait "$vm_o"
	wait "$vm_c"
	# shellcheck disable=SC2086
	vm_lane integration tests/vm/softroce-run --timeout 3600 -- tests/integration/run-all.sh $plain &
	vm_a=$!
	[ "$serial" = 0 ] || wait "$vm_a"
	{
		NETMEM_VM_TIMEOUT=1800 vm_lane numa tests/integration/numa/run.sh
		NETMEM_VM_TIMEOUT=1200 vm_lane cluster tests/integration/cluster/run.sh
	} &
	vm_b=$!
	wait "$vm_o" "$vm_a" "$vm_b"
	for lane in integration correctness numa odp; do
		lane_start=$(( $(date +%s) - $(cat "$vmlogs/$lane.time" 2>/dev/null || echo 0) ))
		lane_cpu=$(guest_cpu "$lane")
		tally "$lane" "$vmlogs/$lane" "integration: "
	done
	lane_start=$(date +%s) lane_cpu=
	echo "== run_all.sh at check scale: simulator, figures, report (host; $NETMEM_CHECK_RUN)"
	tests/run-all-check.sh "$NETMEM_CHECK_RUN" >"$log" 2>&1
	# each failure with the diagnosis under it ("#   " lines: a claim's left-out entries)
	awk '/^not ok/ { f = 1; n = 8; print; next } f && /^#   / && n-- > 0 { print; next } { f = 0 }' "$log"
	tally run_all "$log"
	# kept for a look when something failed
	# (NETMEM_CHECK_KEEP_RUN=1 keeps it anyway: its documents time every config)
	if grep -q '^not ok' "$log" || [ "${NETMEM_CHECK_KEEP_RUN:-0}" = 1 ]; then echo "== kept $NETMEM_CHECK_RUN"; else rm -rf "$NETMEM_CHECK_RUN"; fi
	lane_start=$(( $(date +%s) - $(cat "$vmlogs/cluster.time" 2>/dev/null || echo 0) ))
	lane_cpu=$(guest_cpu cluster)
	tally cluster "$vmlogs/cluster"
	# a failed lane's log in full: its "not ok" lines were shown, the why is here
	for lane in integration correctness numa odp cluster; do
		grep -q '^not ok' "$vmlogs/$lane" 2>/dev/null && cp "$vmlogs/$lane" "${TMPDIR:-/tmp}/netmem-check-$lane.log" &&
			echo "== kept the $lane lane's log: ${TMPDIR:-/tmp}/netmem-check-$lane.log"
	done
	# and, last, each failure with the diagnosis its test printed under it
	# ("#   " lines), where a reader of the run's tail finds it
	for lane in integration correctness numa odp cluster; do
		awk -v l="$lane" '/^not ok/ { n = 12; f = 1; print "[" l "] " $0; next }
			f && /^#   / && n-- > 0 { print "[" l "] " $0; next } { f = 0 }' "$vmlogs/$lane" 2>/dev/null
	done
fi
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
