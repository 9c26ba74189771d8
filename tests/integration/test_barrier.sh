#!/bin/sh
# netmem barrier on real verbs (Soft-RoCE): LOCO's SST barrier and
# MPI_Barrier at 2, 3 and 4 ranks in one job (ranks beyond --nodes sit out),
# the epoch check inside the measured loop and in the validation phase, an
# injected broken barrier caught by the validation phase alone, the quick
# config (both fences) at its ranks. Runs where an RDMA device exists
# (inside tests/vm/netmem-vm in CI).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup barrier
KK='.effective.nodes * (.effective.nodes - 1)'   # records one epoch check reads, over all participants
# Every barrier after the first fences each of its K-1 QPs once (they all
# carry the previous episode's push), whichever the fence.
FENCED='(.effective.fences_per_barrier * (.effective.warmup + .metrics.iterations) - (.effective.nodes - 1) * (.effective.warmup + .metrics.iterations - 1) | fabs) < 1e-6'

# 1. both impls at 2 and 3 nodes inside one 4-rank job (the other ranks sit
#    out): 40 measured and 5 warm-up barriers per point with the epoch check
#    after every one of them (--check-every 1), then 10 validation barriers,
#    each checked
nm_run sweep 4 --nodes 2,3 -n 40 --warmup 5 --check-every 1 --validate 10
check "4 ranks, nodes 2,3, sst and mpi: exit 0" [ "$(nm_rc sweep)" = 0 ]
check "sweep: valid JSON document with schema" nm_jq sweep '.schema == "netmem-result/1" and .experiment == "barrier"'
check "sweep: 4 points, all valid" nm_jq sweep '(.points | length) == 4 and all(.points[]; .valid)'
check "sweep: every participant measured every barrier (nodes x 40 samples)" \
	nm_jq sweep 'all(.points[]; .metrics.samples == .params.nodes * 40 and .effective.nodes == .params.nodes)'
check "sweep: epoch check after all 45 barriers of the loop and all 10 of the validation phase, no violation" \
	nm_jq sweep "all(.points[]; .checks.epoch as \$e | \$e.ok and \$e.violations == 0 and \$e.measured_loop.every == 1
		and \$e.measured_loop.checked == 45 * $KK and \$e.validation.barriers == 10
		and \$e.validation.checked == 10 * $KK and \$e.checked == 55 * $KK)"
check "sweep: every participant counted itself finished on rank 0's atomic_var" \
	nm_jq sweep 'all(.points[]; .checks.finished.ok and .checks.finished.counted == .params.nodes)'
check "sweep: percentiles ordered, one mean per participant" \
	nm_jq sweep 'all(.points[]; .metrics.lat.min <= .metrics.lat.p50 and .metrics.lat.p50 <= .metrics.lat.p99 and .metrics.lat.p99 <= .metrics.lat.max and (.metrics.lat_mean_by_rank | length) == .params.nodes and (.metrics.lat_cdf | length) > 0)'
check "sweep: SST barrier fences one QP per peer per episode (after the first) with LOCO's READ fence" \
	nm_jq sweep '[.points[] | select(.params.impl == "sst")] | length == 2 and all(.[]; .params.fence == "read" and (.effective.fence | test("^read: a zero-length RDMA READ")) and '"$FENCED"')'
check "sweep: mpi points say MPI_Barrier ran over shared memory, not RDMA, and name no fence" \
	nm_jq sweep 'all(.points[] | select(.params.impl == "mpi"); (.effective.mpi_transport | test("shared memory")) and (.effective | has("fence") | not))'
check "sweep: metadata marks the run emulated" nm_jq sweep '.meta.runs[0].emulated == true'
check "sweep: table on stdout, one row per point" sh -c "grep -q t_typical $tmp/sweep.out && [ \$(grep -c ' ok\$' $tmp/sweep.out) = 4 ]"

# 2. a broken barrier (rank 0 does not wait) is caught with the default
#    settings, where only the validation phase checks: points invalid, exit 1
nm_run inj 2 --inject no-wait -n 30 --warmup 0
check "injected no-wait: exit 1" [ "$(nm_rc inj)" = 1 ]
check "injected no-wait, sst and mpi: both points invalid, violations found by the validation phase" \
	nm_jq inj '(.points | length) == 2 and all(.points[]; .valid == false and .checks.epoch.ok == false and .checks.epoch.measured_loop.checked == 0 and .checks.epoch.validation.violations > 0 and (.checks.first_error | test("left episode|entered episode")))'

# 3. the quick config runs with the ranks it names (what run_all.sh starts),
#    with the paper's settings (nothing but the barrier inside the measured
#    loop, 100 checked validation barriers) and both fences; at all its ranks
#    only (--nodes 0: the sweep above covers fewer), since every point costs
#    seconds in the VM
np=$(sed -n 's/.*"ranks"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' configs/quick/barrier.json)
$MPI -np "${np:-2}" $N run configs/quick/barrier.json $Q --iters 20 --nodes 0 --output "$tmp/cfg.json" >"$tmp/cfg.out" 2>"$tmp/cfg.err"
echo $? >"$tmp/cfg.rc"
check "configs/quick/barrier.json with its ${np:-2} ranks: exit 0, all points valid, both fences" \
	nm_rc_jq cfg 0 '(.points | length) > 0 and all(.points[]; .valid and .effective.nodes == '"${np:-2}"') and ([.points[].params.fence] | unique) == ["ack", "read"]'
check "quick config: no check inside the measured loop, 100 checked validation barriers" \
	nm_jq cfg "all(.points[]; .checks.epoch as \$e | \$e.ok and \$e.measured_loop.every == 0 and \$e.measured_loop.checked == 0
		and \$e.validation.barriers == 100 and \$e.validation.checked == 100 * $KK and \$e.violations == 0)"
check "quick config, fence ack: the pair-only fence waits for one push per peer per episode" \
	nm_jq cfg '[.points[] | select(.params.impl == "sst" and .params.fence == "ack")] | length > 0 and all(.[]; (.effective.fence | test("^ack: waits for the completions")) and '"$FENCED"')'
check "quick config: table rows name the fence of sst points" \
	sh -c "[ \$(grep -c '^ sst   ack .* ok\$' $tmp/cfg.out) -ge 1 ] && [ \$(grep -c '^ mpi   -  .* ok\$' $tmp/cfg.out) -ge 1 ]"
# bad input needs no device: tests/cli (test_cli.sh, test_bad_input.sh)
t_summary
