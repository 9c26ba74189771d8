#!/bin/sh
# netmem clover (Clover's passive key-value store) on real verbs (Soft-RoCE):
# 4 ranks (rank 0 the metadata server, rank 3 the memory node, ranks 1 and 2
# clients with 2 threads each). YCSB-A over a few keys, so writers race on
# the hot key's tail and CASes fail; then read-only, where no CAS is posted;
# and the bad-input lines.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup clover

# 1. YCSB-A, Zipf 0.75 (the paper's workload) over 8 keys: contention
nm_run hot 4 -T 2 -K 8 -w a --theta 0.75 -n 400 --warmup 20
jq -c '.points[0] | {checks, m: (.metrics | {cas, cas_failed, write_hops, read_hops, shortcut_jumps, metadata_rpcs, rtts})}' "$tmp/hot.json" 2>/dev/null | sed 's/^/# hot: /'
check "hot: exit 0, one valid point" nm_rc_jq hot 0 '(.points | length) == 1 and .points[0].valid'
check "hot: 4 client threads x 400 measured operations" nm_jq hot '.points[0].metrics.ops == 1600'
check "hot: gets and updates both ran" nm_jq hot '.points[0].metrics | .gets > 0 and .updates > 0'
# how often CASes failed, writers chased and readers jumped depends on the
# interleaving: shown, not asserted (section 1b forces a conflict)
jq -r '.points[0].metrics | "# observed (hot): \(.cas_failed) failed CASes, \(.write_hops) write hops, \(.shortcut_jumps) shortcut jumps"' "$tmp/hot.json" 2>/dev/null
check "hot: every acknowledged write is on its key's chain" nm_jq hot '.points[0].checks.chains | .ok and .bad_chains == 0 and .acked_writes == .chained_versions and .acked_writes > 0'
check "hot: no torn, foreign or regressed read" nm_jq hot '.points[0].checks.reads.ok'
check "hot: round trips per op recorded (an update takes at least 2)" nm_jq hot '.points[0].metrics.rtts | .p50 >= 1 and .p99 >= 2 and .max >= .p99'
check "hot: roles recorded" nm_jq hot '.points[0].effective | .metadata_rank == 0 and .memory_nodes == 1 and .client_ranks == 2 and (.allocation | test("metadata server"))'
check "hot: slots came from the metadata server by RPC, every request served" nm_jq hot '.points[0] | .metrics.metadata_rpcs > 0 and .checks.rpcs.ok and .checks.rpcs.served == .metrics.metadata_rpcs'

# 1b. A conflict forced by the workload, not by the schedule: every client
#     thread only writes key 0, and every thread's cursor starts at the key's
#     head. Whoever links first, each other thread's first CAS is on the
#     head's next, no longer NULL by then (or it would have linked first): it
#     fails and chases, in every interleaving. 4 client threads: 3 at least.
awk 'BEGIN { for (i = 0; i < 40; i++) print 1, 0 }' >"$tmp/w0.trace"
nm_run conflict 4 -T 2 -K 8 --trace "$tmp/w0.trace" -n 10 --warmup 0 --slots 64
check "one key written by every thread: valid, every thread but the first linker failed a CAS and chased" \
	nm_rc_jq conflict 0 '.points[0] | .valid and .metrics.updates == 40 and .metrics.cas_failed >= 3 and .metrics.write_hops >= .metrics.cas_failed and .checks.chains.acked_writes == 40'

# 1c. --roles memory-first (the paper's testbed, where the metadata server
#     and the memory node share a host): the memory node is rank 1, the
#     clients ranks 2 and 3; the same contended workload, every check kept.
nm_run mfirst 4 -T 2 -K 8 -w a --theta 0.75 -n 200 --warmup 10 --roles memory-first
check "--roles memory-first: valid, memory node rank 1, clients from rank 2, every acknowledged write on its chain" \
	nm_rc_jq mfirst 0 '.points[0] | .valid and .effective.roles.order == "memory-first" and .effective.roles.first_memory_rank == 1 and .effective.roles.first_client_rank == 2 and .metrics.ops == 800 and .checks.chains.ok and .checks.chains.acked_writes > 0'

# 2. read-only: no CAS, reads find their version at once (nobody writes)
nm_run ro 4 -T 2 -K 64 -w c -n 200 --warmup 10
check "read-only: valid, no CAS, no hop" nm_rc_jq ro 0 '.points[0].valid and .points[0].metrics.cas == 0 and .points[0].metrics.read_hops == 0 and .points[0].metrics.rtts.max == 1'

# 3. a uniform write-heavy mix over more keys, 2 memory nodes (ranks 2, 3), for a duration
#    with a pool far too small (64 slots per thread): it runs out, and the point runs again
#    with a pool sized from the rate it reached, which lasts
nm_run two 4 -T 2 -K 256 -w write-only --dist uniform -M 2 -D 1 --warmup 10 --slots 64
check "two memory nodes, write-only: valid, chains hold every write" nm_rc_jq two 0 '.points[0].valid and .points[0].checks.chains.acked_writes == .points[0].checks.chains.chained_versions and .points[0].effective.client_ranks == 1'
check "-D 1 --slots 64: the pool ran out, was sized again from the rate measured, and lasted" \
	nm_jq two '.points[0] | .effective.pool.first_slots == 64 and .effective.pool.slots > 64 and .effective.pool.slots == .checks.pool.slots_per_thread and .effective.pool.measured_writes_per_s_per_thread > 0 and .effective.pool.resized >= 1 and .effective.pool.resized <= 2 and .checks.pool.ok and .metrics.pool_exhausted == 0'
# how many resizes it took depends on how the guest's speed swung between runs: one line for each
check "-D 1 --slots 64: one line says the pool of 64 ran out and the point runs again, one per resize" \
	sh -c "[ \$(grep -c 'version pool (64 slots per client thread) ran out at .* runs again with' '$tmp/two.err') = 1 ] &&
		[ \$(grep -c 'version pool ([0-9]* slots per client thread) ran out at .* runs again with' '$tmp/two.err') = \$(jq '.points[0].effective.pool.resized' '$tmp/two.json') ]"

# 4. a partition too small: the point is invalid and says why
nm_run full 4 -T 2 -K 8 -w write-only -n 100 --warmup 0 --slots 20
check "--slots too small: exit 1, invalid, the error names the metadata server's pool" nm_rc_jq full 1 '(.points[0].valid | not) and (.points[0].checks.first_error | test("no free version slot"))'
check "--slots too small: the updates left unwritten counted, the pool check failed" nm_jq full '.points[0] | .metrics.pool_exhausted > 0 and .checks.pool.updates_unwritten == .metrics.pool_exhausted and (.checks.pool.ok | not)'
check "--slots too small: one line says the pool ran out and the point is invalid" \
	sh -c "[ \$(grep -c '^netmem: clover: the version pool (20 slots per client thread per memory node) ran out: [0-9]* update(s) left unwritten, the point is invalid (raise --slots)' '$tmp/full.err') = 1 ]"

# 5. a trace in Clover's numeric form (0 read, 1 write) replayed by every thread
awk 'BEGIN { for (i = 0; i < 400; i++) print (i % 3 == 0), (i * 7) % 32 }' >"$tmp/clover.trace"
nm_run tr 4 -T 2 -K 32 --trace "$tmp/clover.trace" -n 150 --warmup 10
check "trace replay: valid, gets and updates in the trace's proportions" nm_rc_jq tr 0 '.points[0] | .valid and .metrics.updates > 0 and .metrics.gets > .metrics.updates'
# bad input needs no device: tests/cli/test_bad_input.sh
t_summary
