#!/bin/sh
# netmem lock (distributed lock table) on Soft-RoCE: the workload itself, the
# mutual-exclusion check and node sweeps. Lock-specific checks live
# in test_alock.sh and test_ticket_mpi.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup lock

# spinlock, 3 ranks x 2 threads, high contention, every locality, with the
# paper's empty section and with the counter section measured
# (a spinlock is unfair: bound contended runs by time, not by operations)
nm_run spin 3 --lock spin -K 3 -p 0,50,100 -T 2 -D 1 --warmup 0 --cs empty,counter --validate 50 --contend 0.0-1.0
check "spin, 3 ranks x 2 threads, 3 locks, p_local 0/50/100, cs empty/counter: exit 0" [ "$(nm_rc spin)" = 0 ]
check "spin: 6 points, all valid, 6 threads x 50 validation acquisitions each" nm_jq spin '(.points | length) == 6 and all(.points[]; .valid and .checks.mutual_exclusion.ok and .checks.mutual_exclusion.validation_acquisitions == 300)'
# empty section: only the validation phase touches the counters
check "spin, cs empty: counters count the validation phase only" nm_jq spin 'all(.points[] | select(.params.cs == "empty"); .checks.mutual_exclusion.measured_cs == "empty" and .checks.mutual_exclusion.acquisitions == 300)'
# counter section: the measured run's acquisitions too (ops counts what
# completed inside the common interval; an acquisition that completed after
# the deadline is in ops_with_warmup only)
check "spin, cs counter: counters equal measured + validation acquisitions" nm_jq spin 'all(.points[] | select(.params.cs == "counter"); .checks.mutual_exclusion.measured_cs == "counter" and .checks.mutual_exclusion.acquisitions == .metrics.ops_with_warmup + 300 and .metrics.ops <= .metrics.ops_with_warmup and .metrics.ops_with_warmup <= .metrics.ops + 6)'
check "spin: rank 1 comes while rank 0 holds lock 0 (scripted): its CAS fails and retries" nm_jq spin '(.points | length) == 6 and all(.points[]; .checks.contention.waiter_arrived and .checks.contention.stats.cas_retries >= 1)'

check "spin on Soft-RoCE: every point records the changed release (rCAS, not rWrite)" nm_jq spin 'all(.points[]; .effective.emulated_change | test("rCAS"))'
check "spin: latency and throughput reported" nm_jq spin 'all(.points[]; .metrics.ops > 0 and .metrics.ops_per_sec > 0 and .metrics.lat.p50 > 0 and (.metrics.lat_cdf | length) > 0)'

# one lock contended by every rank (fewer locks than ranks), node sweep in one job
nm_run one 3 --lock spin -K 1 -N 2,3 -T 1 -D 1 --warmup 0
check "single lock, --nodes 2,3 in one job: valid, nodes recorded" nm_jq one '(.points | length) == 2 and all(.points[]; .valid) and ([.points[].effective.nodes] == [2, 3])'

# the check catches a thread that skips the lock, with the default empty
# measured section (the validation phase finds it)
nm_run race 3 --lock spin -K 1 -T 2 -D 1 --warmup 0 --inject race
check "a thread skipping the lock, cs empty: exit 1, counters wrong, point invalid" sh -c "[ \"$(nm_rc race)\" = 1 ] && jq -e '.points[0].valid == false and .points[0].checks.mutual_exclusion.measured_cs == \"empty\" and .points[0].checks.mutual_exclusion.counters_wrong == 1' $tmp/race.json"
# bad input needs no device: tests/cli/test_bad_input.sh
t_summary
