# Sourced by test_cluster.sh (its helpers, $A, $B, on_b, $tmp and the run of its section 6a):
# netmem clover with Clover's contention resolution in the packet path. Ranks 0-2 on netmem-a
# (the metadata server and two client ranks), rank 3, the memory node, alone on netmem-b, whose
# netfilter hands every RoCEv2 packet to netmem clover-path (NFQUEUE). YCSB-A over 16 keys at
# Zipf 0.99, so writers race on the hottest tails. Both arms cross the same path; "off" only counts.
section "clover: contention resolution in the packet path"
printf '%s slots=3\n%s slots=1\n' $A $B >"$tmp/clover-hosts"
CMPI="mpirun --hostfile $tmp/clover-hosts --bind-to none"
# The arms are run_all.sh's check-scale Figs. 2 and 4 (section 6a, placed by their "hosts"):
# YCSB-A over 16 keys at Zipf 0.99, 100 operations per thread, rewriting off and on.
for d in clover-fig2 clover-fig4; do
	ln -sf "$NETMEM_CHECK_RUN/$d.json" "$tmp/$d.json"
	jq -c '.points[] | {resolve: .params.resolve, threads: .params.threads, track: .params.track, valid, path: .checks.path,
		m: (.metrics | {cas_per_write, cas_failed, rtts: .rtts.p99, p: (.path.rewrite | {cas_seen, conflicts, redirected, rewritten, stale_tail})})}' \
		"$tmp/$d.json" 2>/dev/null | sed "s/^/# $d: /"
done
# pt DOC RESOLVE SELECTION EXPR: EXPR holds on every point of that arm (and there is one)
pt() { nm_jq "$1" "[.points[] | select(.params.resolve == \"$2\" and $3)] | length > 0 and all(.[]; $4)"; }
# What holds in every schedule is checked on the figures' points; how many CASes met a stale tail
# there depends on the interleaving: shown above, not asserted (the forced runs below assert it).
check "clover Fig. 2: every point valid, both arms at every thread count" \
	nm_jq clover-fig2 '(.points | length) == 4 and all(.points[]; .valid) and ([.points[].params.resolve] | unique) == ["off", "on"]'
check "clover off: every CAS crossed the path, none redirected, packets passed unchanged" \
	pt clover-fig2 off 'true' '.checks.path.ok and .metrics.path.rewrite.cas_seen > 0 and .metrics.path.rewrite.redirected == 0 and .metrics.path.rewrite.rewritten == 0'
check "clover on: every redirected CAS's ICRC rewritten, no stale tail" \
	pt clover-fig2 on 'true' '.checks.path.ok and .metrics.path.rewrite.rewritten >= .metrics.path.rewrite.redirected and .metrics.path.rewrite.stale_tail == 0'
check "clover on: every tracked key's CAS succeeded first time (all keys tracked)" \
	pt clover-fig2 on 'true' '.metrics.cas_per_write == 1 and .metrics.cas_failed == 0'
check "clover on: every acknowledged write is on its chain, no torn or foreign read" \
	pt clover-fig2 on 'true' '.checks.chains.ok and .checks.chains.acked_writes == .checks.chains.chained_versions and .checks.reads.ok'
check "clover Fig. 4, top-1 tracked: valid, the path tracks one key and other keys' CASes pass untracked" \
	pt clover-fig4 on '.params.track == 1' '.valid and .metrics.path.keys_tracked == 1 and .metrics.path.rewrite.cas_tracked < .metrics.path.rewrite.cas_seen'
# Conflicts forced, not hoped for: one client rank on $A (rank 1, beside the metadata server),
# two threads that only write one key, thread 1 held until thread 0's first update is done
# (NETMEM_TEST_CLOVER_FIRST_ALONE, a test-only hold). Thread 0's first CAS was alone, so the path
# learns the key's tail from its ack; thread 1's cursor is still the head, whose next is no longer
# NULL: its first CAS is on a stale tail in every schedule. Off, it fails and chases; on, the path
# sends it to the tail. Key 1 with only key 0 tracked (--track 1): it passes untracked and fails.
printf '%s slots=2\n%s slots=1\n' $A $B >"$tmp/clover-hosts3"
awk 'BEGIN { for (i = 0; i < 20; i++) print 1, 0 }' >"$tmp/w0.trace"
awk 'BEGIN { for (i = 0; i < 20; i++) print 1, 1 }' >"$tmp/w1.trace"
# every rank reads the trace: the memory node's host gets its own copy at the same path
for f in w0 w1; do on_b "mkdir -p '$tmp' && cat >'$tmp/$f.trace'" <"$tmp/$f.trace"; done
mpi_was=$MPI sub_was=$NM_SUB
MPI="mpirun --hostfile $tmp/clover-hosts3 --bind-to none -x NETMEM_TEST_CLOVER_FIRST_ALONE=1" NM_SUB=clover
nm_run forced-off 3 -T 2 -K 16 --trace "$tmp/w0.trace" -n 10 --warmup 0 --slots 64 --resolve off
nm_run forced-on 3 -T 2 -K 16 --trace "$tmp/w0.trace" -n 10 --warmup 0 --slots 64 --resolve on
nm_run forced-untracked 3 -T 2 -K 16 --trace "$tmp/w1.trace" -n 10 --warmup 0 --slots 64 --resolve on --track 1
MPI=$mpi_was NM_SUB=$sub_was
on_b "rm -rf '$tmp'"
for d in forced-off forced-on forced-untracked; do
	jq -c '.points[0] | {valid, m: (.metrics | {cas_failed, write_hops, p: (.path.rewrite | {cas_seen, cas_tracked, conflicts, redirected, rewritten, stale_tail})})}' \
		"$tmp/$d.json" 2>/dev/null | sed "s/^/# $d: /"
done
check "clover off, a stale tail forced: the path counted the conflict, redirected none, and the CAS failed and chased" \
	nm_rc_jq forced-off 0 '.points[0] | .valid and .metrics.updates == 20 and .metrics.path.rewrite.conflicts >= 1 and .metrics.path.rewrite.redirected == 0 and .metrics.path.rewrite.rewritten == 0 and .metrics.cas_failed >= 1 and .metrics.write_hops >= .metrics.cas_failed'
check "clover on, a stale tail forced: redirected to the tail, ICRC rewritten, no CAS failed, no stale tail" \
	nm_rc_jq forced-on 0 '.points[0] | .valid and .metrics.updates == 20 and .metrics.path.rewrite.redirected >= 1 and .metrics.path.rewrite.rewritten >= .metrics.path.rewrite.redirected and .metrics.path.rewrite.stale_tail == 0 and .metrics.cas_failed == 0 and .checks.chains.acked_writes == 20'
check "clover on, top-1 tracked, an untracked key written by both threads: passed unchanged, its CAS failed" \
	nm_rc_jq forced-untracked 0 '.points[0] | .valid and .metrics.path.keys_tracked == 1 and .metrics.path.rewrite.cas_tracked == 0 and .metrics.path.rewrite.cas_seen > 0 and .metrics.path.rewrite.redirected == 0 and .metrics.cas_failed >= 1'
nm_flush
check "clover: no netfilter table or clover-path process left on $B" \
	sh -c "! $NETMEM_SSH $B 'nft list tables; pgrep -f \"[c]lover-path --queue\"' | grep -q ."
# A path that dies mid-run: its rules go with it (the owned table), the point is marked invalid.
# One remote shell waits for the path's table, then kills the process (SIGKILL: no clean-up of its
# own); the pattern's [c] keeps that shell's own command line from matching.
$CMPI -np 4 $N clover $Q --output "$tmp/cl-kill.json" -T 2 -K 16 -w a -D 20 --resolve on >"$tmp/cl-kill.out" 2>"$tmp/cl-kill.err" &
job=$!
on_b 'for i in $(seq 900); do nft list tables | grep -q netmem_clover && break; sleep 0.1; done; sleep 3; pkill -KILL -f "[c]lover-path --queue"'
wait $job
echo $? >"$tmp/cl-kill.rc"
check "clover: the path killed mid-run: exit 1, the point invalid, its error names clover-path" \
	nm_rc_jq cl-kill 1 '(.points[0].valid | not) and (.points[0].checks.first_error | test("clover-path"))'
check "clover: ... and its netfilter table is gone" sh -c "! $NETMEM_SSH $B 'nft list tables' | grep -q netmem_clover"
expect_line "clover --resolve on with a client on the memory node's host" "shares the memory node's host" \
	mpirun --hostfile "$H" --bind-to none -np 4 $N clover -n 10 --resolve on
# The figures of the path's arms, drawn from these documents (the benchmark draws them at scale).
gnuplot -e "in='$tmp/clover-fig2.json'; out='$tmp/clover-fig2.png'" plots/clover_fig2.gp 2>"$tmp/gp.err"
gnuplot -e "in='$tmp/clover-fig4.json'; out='$tmp/clover-fig4.png'" plots/clover_fig4.gp 2>>"$tmp/gp.err"
check "clover: Figs. 2 and 4 drawn from the path's documents" sh -c "[ -s $tmp/clover-fig2.png ] && [ -s $tmp/clover-fig4.png ]"
