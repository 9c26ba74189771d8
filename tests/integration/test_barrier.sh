#!/bin/sh
# netmem barrier on real verbs (Soft-RoCE): LOCO's SST barrier and
# MPI_Barrier at 2, 3 and 4 ranks in one job (ranks beyond --nodes sit out),
# the epoch check on every run, an injected broken barrier caught by it, the
# quick config at 2 ranks, and bad input. Runs where an RDMA device exists
# (inside tests/vm/netmem-vm in CI).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup barrier

# 1. both impls at 2, 3 and 4 nodes inside one 4-rank job: 40 measured and
#    5 warm-up barriers per point, the epoch check after every one
nm_run sweep 4 --nodes 2,3,4 -n 40 --warmup 5
check "4 ranks, nodes 2,3,4, sst and mpi: exit 0" [ "$(nm_rc sweep)" = 0 ]
check "sweep: valid JSON document with schema" nm_jq sweep '.schema == "netmem-result/1" and .experiment == "barrier"'
check "sweep: 6 points, all valid" nm_jq sweep '(.points | length) == 6 and all(.points[]; .valid)'
check "sweep: every participant measured every barrier (nodes x 40 samples)" \
	nm_jq sweep 'all(.points[]; .metrics.samples == .params.nodes * 40 and .effective.nodes == .params.nodes)'
check "sweep: epoch check ran after every barrier on every participant, no violation" \
	nm_jq sweep 'all(.points[]; .checks.epoch.ok and .checks.epoch.violations == 0 and .checks.epoch.checked == 45 * .params.nodes * (.params.nodes - 1))'
check "sweep: every participant counted itself finished on rank 0's atomic_var" \
	nm_jq sweep 'all(.points[]; .checks.finished.ok and .checks.finished.counted == .params.nodes)'
check "sweep: percentiles ordered, one mean per participant" \
	nm_jq sweep 'all(.points[]; .metrics.lat.min <= .metrics.lat.p50 and .metrics.lat.p50 <= .metrics.lat.p99 and .metrics.lat.p99 <= .metrics.lat.max and (.metrics.lat_mean_by_rank | length) == .params.nodes and (.metrics.lat_cdf | length) > 0)'
check "sweep: SST barrier fences one QP per peer per episode (after the first)" \
	nm_jq sweep 'all(.points[] | select(.params.impl == "sst"); .effective.fences_per_barrier > .params.nodes - 1.1 and .effective.fences_per_barrier <= .params.nodes - 1)'
check "sweep: mpi points say MPI_Barrier ran over shared memory, not RDMA" \
	nm_jq sweep 'all(.points[] | select(.params.impl == "mpi"); .effective.mpi_transport | test("shared memory"))'
check "sweep: metadata marks the run emulated" nm_jq sweep '.meta.runs[0].emulated == true'
check "sweep: table on stdout, one row per point" sh -c "grep -q t_typical $tmp/sweep.out && [ \$(grep -c ' ok\$' $tmp/sweep.out) = 6 ]"

# 2. a broken barrier (rank 0 does not wait) is caught: points invalid, exit 1
nm_run inj 2 --inject no-wait -n 30 --warmup 0
check "injected no-wait: exit 1" [ "$(nm_rc inj)" = 1 ]
check "injected no-wait: both points invalid with epoch violations named" \
	nm_jq inj '(.points | length) == 2 and all(.points[]; .valid == false and .checks.epoch.violations > 0 and (.checks.first_error | test("left episode|entered episode")))'

# 3. the quick config runs with the ranks it names (what run_all.sh starts)
np=$(sed -n 's/.*"ranks"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' configs/quick/barrier.json)
$MPI -np "${np:-2}" $N run configs/quick/barrier.json $Q --iters 20 --output "$tmp/cfg.json" >"$tmp/cfg.out" 2>"$tmp/cfg.err"
echo $? >"$tmp/cfg.rc"
check "configs/quick/barrier.json with its ${np:-2} ranks: exit 0, all points valid" \
	nm_rc_jq cfg 0 '(.points | length) > 0 and all(.points[]; .valid)'

# 4. bad input (more nodes than ranks): one line from rank 0, exit 2
expect_usage "--nodes 5 with 4 ranks" $MPI -np 4 $N barrier --nodes 5 -n 10
t_summary
