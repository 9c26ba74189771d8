#!/bin/sh
# netmem lock with LOCO's ticket lock and the MPI passive-target RMA lock on
# real verbs (Soft-RoCE): high contention at 3 ranks, local hand-over
# accounting, LOCO Fig. 4a's program (single lock, 2 and 3 nodes, from the
# quick config), bad input. Every point's counters must equal its
# acquisitions. Sizes are small: FIFO locks crawl under an oversubscribed,
# emulated VM (every hand-off waits for one particular process to run).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup lock

# every acquisition of the measured run (warm-up included) is either a global
# one (a ticket) or a local hand-over; lock statistics describe that run only
SPLIT='all(.points[] | select(.params.lock == "ticket"); .metrics.lock_stats.global_acquires + .metrics.lock_stats.handovers == .metrics.ops_with_warmup)'

# 1. ticket, 3 ranks x 2 threads, one lock and three locks, p_local 0/50/100
nm_run tk 3 --lock ticket -K 1,3 -p 0,50,100 -T 2 -n 10 --warmup 2 --validate 10 --contend 1.0-1.1
check "ticket 3 ranks x 2 threads, K 1,3, p_local 0/50/100: exit 0" [ "$(nm_rc tk)" = 0 ]
check "ticket 3x2: 6 points, all valid (counters == acquisitions)" nm_jq tk '(.points | length) == 6 and all(.points[]; .valid and .checks.mutual_exclusion.ok)'
check "ticket 3x2: 6 threads x 12 measured, x 10 validated acquisitions per point" nm_jq tk 'all(.points[]; .metrics.ops_with_warmup == 72 and .checks.mutual_exclusion.acquisitions == 60 and .checks.mutual_exclusion.validation_acquisitions == 60)'
check "ticket 3x2: global acquisitions + hand-overs == acquisitions" nm_jq tk "$SPLIT"
check "ticket 3x2: rank 1's second thread waits behind its first (scripted): a local hand-over" nm_jq tk '(.points | length) == 6 and all(.points[]; .checks.contention | .waiter_arrived and .stats.handovers == 1 and .stats.global_acquires == 1)'
check "ticket 3x2: hand-overs never exceed handover_max (8) per global acquisition" nm_jq tk 'all(.points[]; .metrics.lock_stats.handovers <= 8 * .metrics.lock_stats.global_acquires)'

# 2. --handover-max 0: every acquisition takes a ticket (2 ranks x 2 threads)
nm_run tk0 2 --lock ticket -K 1 -T 2 -n 10 --warmup 2 --handover-max 0 --validate 10
check "ticket --handover-max 0: valid, no hand-over, one ticket per acquisition" nm_jq tk0 '.points[0].valid and .points[0].metrics.lock_stats.handovers == 0 and .points[0].metrics.lock_stats.global_acquires == 48'

# 3. MPI RMA lock, 3 ranks x 1 thread, one lock and three locks, p_local 0/50/100
#    (the counter section measured: MPI Get/flush/Put under the MPI lock)
nm_run mpi 3 --lock mpi -K 1,3 -p 0,50,100 -T 1 -n 30 --cs counter --validate 10
check "mpi 3 ranks, K 1,3, p_local 0/50/100: exit 0" [ "$(nm_rc mpi)" = 0 ]
check "mpi 3 ranks: 6 points, all valid (counters == acquisitions)" nm_jq mpi '(.points | length) == 6 and all(.points[]; .valid and .checks.mutual_exclusion.acquisitions == 99 + 30)'
check "mpi: summary says the VM's MPI path is shared memory" nm_jq mpi '.points[0].effective.lock_summary | test("shared memory")'

# 4. LOCO Fig. 4a: single lock, one thread per node, 2 and 3 nodes, ticket vs
#    mpi, from the quick config (command-line sizes override it)
$MPI -np 3 $N run configs/quick/loco-fig4a.json -n 30 --validate 10 $Q --output "$tmp/fig4a.json" \
	>"$tmp/fig4a.out" 2>"$tmp/fig4a.err"; echo $? >"$tmp/fig4a.rc"
check "Fig. 4a config, 3 ranks: exit 0" [ "$(nm_rc fig4a)" = 0 ]
check "Fig. 4a: ticket and mpi at nodes 2 and 3, all valid" nm_jq fig4a '(.points | length) == 4 and all(.points[]; .valid) and ([.points[] | "\(.params.lock)/\(.effective.nodes)"] | sort) == ["mpi/2", "mpi/3", "ticket/2", "ticket/3"]'
check "Fig. 4a: nodes x 33 measured, nodes x 10 validated acquisitions" nm_jq fig4a 'all(.points[]; .metrics.ops_with_warmup == 33 * .effective.nodes and .checks.mutual_exclusion.acquisitions == 10 * .effective.nodes)'
check "Fig. 4a: ticket with one thread per rank takes a ticket every time" nm_jq fig4a "$SPLIT and all(.points[] | select(.params.lock == \"ticket\"); .metrics.lock_stats.handovers == 0)"
check "Fig. 4a: netmem table gives one series per lock" sh -c "$N table $tmp/fig4a.json --x nodes --y ops_per_sec --series lock >$tmp/t4a &&
	[ \$(grep -c '^nodes ' $tmp/t4a) = 2 ] && grep -qx 'nodes ticket' $tmp/t4a && grep -qx 'nodes mpi' $tmp/t4a"
# bad input (the MPI lock with -T 2) needs no device: tests/cli/test_bad_input.sh
t_summary
