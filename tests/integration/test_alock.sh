#!/bin/sh
# Lock-specific checks for the RDMA MCS lock and ALock on Soft-RoCE, through
# `netmem lock`: mutual exclusion under contention (3 ranks x 2 threads, 3
# and 20 locks, p_local 0/50/100, one lock with long critical sections),
# budget exhaustion (pReacquire on every hand-off), the race check with ALock's
# CPU-local critical sections, single-rank runs. The paper's Fig. 2 trace is
# test_alock_trace.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup lock
# -u 20: a 4 s ACK timeout instead of 67 ms. Under TCG, round trips beyond
# 67 ms make rxe retransmit, and rxe does not execute retried RDMA atomics
# exactly once (a spinlock was seen stuck holding its own releaser's id with
# the duplicate_request counter rising); with -u 20 no retransmissions occur.
Q="$Q -u 20"
# Every check that a concurrent event happened (a hand-off, a Peterson
# re-read, a reacquire, a caught race) reads checks.contention or checks.race:
# the scripted step before the validation phase (--contend HR.HT-WR.WT,
# --inject race) holds lock 0 until the other party has arrived, so the
# event happens whatever the schedule. The measured run's own statistics are
# only checked for what can never happen.
pt() { echo "(.points[] | select(.params.lock == \"$1\" and .params.locks == $2 and .params.p_local == $3))"; }

# 1. contention: 3 ranks x 2 threads, 3 and 20 locks, every locality, 110 ops
#    per thread with the counter section measured, then 20 validation ops
nm_run grid 3 --lock mcs,alock -K 3,20 -p 0,50,100 -T 2 -n 100 --cs counter --validate 20 --contend 1.0-1.1
check "mcs+alock, 3 ranks x 2 threads, -K 3,20, p_local 0/50/100: exit 0" [ "$(nm_rc grid)" = 0 ]
check "mcs+alock grid: 12 points, all valid, counters equal 660 + 120 acquisitions" nm_jq grid '(.points | length) == 12 and all(.points[]; .valid and .checks.mutual_exclusion.ok and .checks.mutual_exclusion.acquisitions == 780 and .checks.mutual_exclusion.validation_acquisitions == 120 and .metrics.ops == 600)'
check "alock points carry their ratio to the MCS point with the same parameters (mcs: exactly 1)" nm_jq grid 'all(.points[] | select(.params.lock == "alock"); .metrics.ratio_to_mcs > 0 and (.metrics | has("ratio_to_spin") | not)) and all(.points[] | select(.params.lock == "mcs"); .metrics.ratio_to_mcs == 1)'
check "mcs: stats named (swap_cas_retries, handoffs, release_waits)" nm_jq grid 'all(.points[] | select(.params.lock == "mcs"); .metrics.lock_stats | has("swap_cas_retries") and has("handoffs") and has("release_waits"))'
check "mcs, rank 1's threads on lock 0, one holding until the other waits: the queue hands it over" nm_jq grid '[.points[] | select(.params.lock == "mcs")] | length == 6 and all(.[]; .checks.contention | .waiter_arrived and .holder == "1.0" and .waiter == "1.1" and .stats.handoffs == 1)'
check "alock: stats named (reacquires, remote/local handoffs, peterson_rereads)" nm_jq grid 'all(.points[] | select(.params.lock == "alock"); .metrics.lock_stats | has("reacquires") and has("remote_handoffs") and has("local_handoffs") and has("peterson_rereads"))'
check "alock, p_local 100: no remote cohort (no remote hand-offs, no RDMA Peterson reads)" nm_jq grid "[$(pt alock 3 100), $(pt alock 20 100)] | all(.metrics.lock_stats.remote_handoffs == 0 and .metrics.lock_stats.peterson_rereads == 0)"
check "alock, p_local 0: no local cohort (no local hand-offs)" nm_jq grid "[$(pt alock 3 0), $(pt alock 20 0)] | all(.metrics.lock_stats.local_handoffs == 0)"
check "alock, rank 1's threads on rank 0's lock 0: the remote cohort hands it over (budget 20 left)" nm_jq grid '[.points[] | select(.params.lock == "alock")] | length == 6 and all(.[]; .checks.contention | .waiter_arrived and .stats.remote_handoffs == 1 and .stats.local_handoffs == 0 and .stats.reacquires == 0)'

# 2. one lock, 20 us critical sections: maximal overlap, both cohorts on rank 0's lock
nm_run long 3 --lock mcs,alock -K 1 -p 50 -T 2 -n 60 --cs-ns 20000 --cs counter --validate 20 --contend 0.0-1.0
check "one lock, --cs-ns 20000, mcs+alock: exit 0, both points valid" nm_rc_jq long 0 '(.points | length) == 2 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 396 + 120)'
check "one lock, alock, rank 0 holding while rank 1 comes: the cohorts met in Peterson (remote leader re-read the lock)" nm_jq long "$(pt alock 1 50) | .checks.contention | .waiter_arrived and .stats.peterson_rereads >= 1"
check "one lock, mcs, rank 0 holding while rank 1 comes: the queue hands it over" nm_jq long "$(pt mcs 1 50) | .checks.contention | .waiter_arrived and .stats.handoffs == 1"

# 3. budgets of 1: every in-cohort pass hands 0, so the successor must pReacquire
nm_run budget 3 --lock alock -K 1,3 -p 50 -T 2 -n 80 --cs-ns 5000 --local-budget 1 --remote-budget 1 --validate 40 --contend 1.0-1.1
check "alock, budgets 1/1: exit 0, points valid (empty measured section, 240 validated)" nm_rc_jq budget 0 '(.points | length) == 2 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 240)'
check "alock, budgets 1/1: the step's successor was passed 0 and reacquired; no budget-carrying hand-off anywhere" nm_jq budget '(.points | length) == 2 and all(.points[]; .checks.contention.waiter_arrived and .checks.contention.stats.reacquires == 1 and .checks.contention.stats.remote_handoffs == 0 and .metrics.lock_stats.remote_handoffs == 0 and .metrics.lock_stats.local_handoffs == 0)'

# 4. the mutual-exclusion check also catches a cheater when the home's holders
#    use CPU stores (empty measured section): the step overlaps the cheater
#    (rank 0 thread 0) with rank 0 thread 1 holding lock 0, so an increment
#    is lost whatever the schedule
nm_run race 3 --lock alock -K 1 -T 2 -n 20 --inject race --validate 20
check "alock, a thread skipping the lock: exit 1, counters wrong, point invalid" nm_rc_jq race 1 '.points[0].valid == false and .points[0].checks.mutual_exclusion.counters_wrong == 1 and .points[0].checks.race.holder == "0.1"'
# the same with the honest holder on another rank (one thread per rank)
nm_run race1 2 --lock alock -K 1 -T 1 -n 20 --inject race --validate 20
check "alock, one thread per rank, the cheater against rank 1: exit 1, counters wrong" nm_rc_jq race1 1 '.points[0].valid == false and .points[0].checks.mutual_exclusion.counters_wrong == 1 and .points[0].checks.race.holder == "1.0"'

# 5. one rank (everything local: ALock never touches the NIC) and two ranks
nm_run one 1 --lock mcs,alock -K 20,1 -p 100 -T 2 -n 200 --cs counter --validate 30 --contend 0.0-0.1
check "1 rank x 2 threads, -K 20,1: mcs+alock valid" nm_jq one '(.points | length) == 4 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 440 + 60)'
check "1 rank x 2 threads: alock's local cohort hands lock 0 over, mcs's queue too" nm_jq one '(.points | length) == 4 and all(.points[]; .checks.contention.waiter_arrived) and all(.points[] | select(.params.lock == "alock"); .checks.contention.stats | .local_handoffs == 1 and .remote_handoffs == 0 and .peterson_rereads == 0) and all(.points[] | select(.params.lock == "mcs"); .checks.contention.stats.handoffs == 1)'
nm_run two 2 --lock mcs,alock -K 2 -p 0,50 -T 2 -n 100 --validate 50
check "2 ranks x 2 threads, -K 2, p_local 0/50: mcs+alock valid (empty section, 200 validated)" nm_jq two '(.points | length) == 4 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 200)'

# 6. the ALock paper's QP layout: one QP per pair of threads (ALock: none to
#    its own rank), counted on the one NIC the VM's ranks share: 3 ranks x
#    2 threads, initiating + serving = 2 x 2 x (2 x 3) per rank for spin/MCS,
#    2 x 2 x (2 x 2) for ALock; the per-rank layout 2 x (2 x 3) per rank
nm_run pair 3 --lock spin,mcs,alock -K 3 -p 50 -T 2 -n 60 --qp-layout per-rank,thread-pair --validate 30
check "qp layouts x spin/mcs/alock, 3 ranks x 2 threads: exit 0, 6 points valid" nm_rc_jq pair 0 '(.points | length) == 6 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 180)'
check "per-rank layout: 36 QPs on the NIC for every lock" nm_jq pair 'all(.points[] | select(.params.qp_layout == "per-rank"); .effective.qp_layout == "per-rank" and .effective.qps_per_nic == 36)'
check "thread-pair layout: 72 QPs for spin and mcs, 48 for alock (no loopback)" nm_jq pair 'all(.points[] | select(.params.qp_layout == "thread-pair"); .effective.qps_per_nic == (if .params.lock == "alock" then 48 else 72 end))'
t_summary
