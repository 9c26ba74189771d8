#!/bin/sh
# netmem control on real verbs (Soft-RoCE): LOCO's power_controller channel
# (Fig. 7) with a controller and two converter ranks, a stable and an
# unstable controller period in one job; the channel's checks (tags,
# sequence order, sum, final copies) on every point; an injected wrong-slot
# read caught (configs/check/loco-fig7.json and its figure run in
# test_run_all.sh and tests/run-all-check.sh). In an emulated guest the 10 us
# loops miss most deadlines: the test requires that they are counted and
# reported, not that they are met. Runs where an RDMA device exists (inside
# tests/vm/netmem-vm in CI).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup control

# 1. two periods, 4 converters over 2 converter ranks, 0.3 s each
nm_run sweep 3 --converters 4 --period-us 20,80 -D 0.3
check "3 ranks, T = 20 and 80 us: exit 0" [ "$(nm_rc sweep)" = 0 ]
check "sweep: valid document, 2 points, all valid" \
	nm_jq sweep '.schema == "netmem-result/1" and .experiment == "control" and (.points | length) == 2 and all(.points[]; .valid)'
check "sweep: every check ran and held (no violation, both final copies of every converter agree)" \
	nm_jq sweep 'all(.points[]; .checks.ok and .checks.violations == 0 and .checks.v_reads > 0 and .checks.d_reads > 0
		and .checks.final.ok and .checks.final.checked == 8)'
check "sweep: the controller read every converter every iteration" \
	nm_jq sweep 'all(.points[]; .checks.v_reads == 4 * .metrics.missed_deadlines.controller_iterations)'
check "sweep: missed deadlines counted for both loops, with fractions in [0, 1]" \
	nm_jq sweep 'all(.points[]; .metrics.missed_deadlines as $m | $m.controller_iterations > 0 and $m.converter_iterations > 0
		and ($m.controller | type) == "number" and ($m.converters | type) == "number"
		and $m.controller_fraction >= 0 and $m.controller_fraction <= 1 and $m.converter_fraction >= 0 and $m.converter_fraction <= 1)'
check "sweep: staleness of V and d recorded with ordered percentiles" \
	nm_jq sweep 'all(.points[]; .metrics.staleness as $s | $s.v_age.count > 0 and $s.d_age.count > 0
		and $s.v_age.p50 <= $s.v_age.p99 and $s.d_age.p50 <= $s.d_age.p99 and $s.v_age.p99 <= $s.v_age.max)'
check "sweep: a downsampled trace (mean, min, max) and the start-up at full resolution" \
	nm_jq sweep 'all(.points[]; (.metrics.trace | length) > 0 and (.metrics.trace | length) == (.metrics.trace_min | length)
		and (.metrics.trace_max | length) == (.metrics.trace | length) and (.metrics.trace_start | length) > 0
		and ([.metrics.trace_min, .metrics.trace_max] | transpose | all(.[0][1] <= .[1][1])))'
check "sweep: verdict fields present (converged, overshoot, steady-state error; settling only when converged)" \
	nm_jq sweep 'all(.points[]; (.metrics.converged | type) == "boolean" and (.metrics.overshoot_pct | type) == "number"
		and (if .metrics.converged then (.metrics.settling_time_s | type) == "number" else .metrics.settling_time_s == null end))'
check "sweep: model and emulation recorded" \
	nm_jq sweep 'all(.points[]; .effective.converters == 4 and .effective.converter_ranks == 2 and .effective.vref_total == 20
		and .effective.model.kp > 0 and (.effective.transport | test("emulated"))) and .meta.runs[0].emulated == true'
check "sweep: table on stdout, one row per point" sh -c "[ \$(grep -c ' ok\$' $tmp/sweep.out) = 2 ]"

# 2. the controller reads converter 1's slot for converter 0: caught
nm_run inj 3 --converters 4 --inject wrong-slot -D 0.05
check "injected wrong-slot: exit 1, point invalid, tag mismatch named" \
	nm_rc_jq inj 1 '(.points | length) == 1 and (.points[0] | .valid == false and .checks.violations > 0 and (.checks.first_error | test("tag mismatch")))'

t_summary
