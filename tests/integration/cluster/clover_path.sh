# Sourced by test_cluster.sh (its helpers, $A, $B, on_b, $tmp and the run of its section 6a):
# netmem clover with Clover's contention resolution in the packet path. Ranks 0-2 on netmem-a
# (the metadata server and two client ranks), rank 3, the memory node, alone on netmem-b, whose
# netfilter hands every RoCEv2 packet to netmem clover-path (NFQUEUE). YCSB-A over 16 keys at
# Zipf 0.99, so writers race on the hottest tails. Both arms cross the same path; "off" only counts.
section "clover: contention resolution in the packet path"
printf '%s slots=3\n%s slots=1\n' $A $B >"$tmp/clover-hosts"
CMPI="mpirun --hostfile $tmp/clover-hosts --bind-to none"
# The arms are run_all.sh's check-scale Figs. 2 and 4 (section 6a, placed by their "hosts"):
# YCSB-A over 16 keys at Zipf 0.99, 300 operations per thread, rewriting off and on.
for d in clover-fig2 clover-fig4; do
	ln -sf "$NETMEM_CHECK_RUN/$d.json" "$tmp/$d.json"
	jq -c '.points[] | {resolve: .params.resolve, threads: .params.threads, track: .params.track, valid, path: .checks.path,
		m: (.metrics | {cas_per_write, cas_failed, rtts: .rtts.p99, p: (.path.rewrite | {cas_seen, conflicts, redirected, rewritten, stale_tail})})}' \
		"$tmp/$d.json" 2>/dev/null | sed "s/^/# $d: /"
done
# pt DOC RESOLVE SELECTION EXPR: EXPR holds on every point of that arm (and there is one)
pt() { nm_jq "$1" "[.points[] | select(.params.resolve == \"$2\" and $3)] | length > 0 and all(.[]; $4)"; }
check "clover Fig. 2: every point valid, both arms at every thread count" \
	nm_jq clover-fig2 '(.points | length) == 4 and all(.points[]; .valid) and ([.points[].params.resolve] | unique) == ["off", "on"]'
check "clover off: every CAS crossed the path, conflicts counted, none redirected, packets passed unchanged" \
	pt clover-fig2 off '.params.threads == 2' '.checks.path.ok and .metrics.path.rewrite.cas_seen > 0 and .metrics.path.rewrite.conflicts > 0 and .metrics.path.rewrite.redirected == 0 and .metrics.path.rewrite.rewritten == 0'
check "clover off: losing CASes failed and their writers chased the tail" \
	pt clover-fig2 off '.params.threads == 2' '.metrics.cas_failed > 0 and .metrics.write_hops > 0'
check "clover on: conflicts redirected to the tail, ICRC rewritten, no stale tail" \
	pt clover-fig2 on '.params.threads == 2' '.checks.path.ok and .metrics.path.rewrite.redirected > 0 and .metrics.path.rewrite.rewritten >= .metrics.path.rewrite.redirected and .metrics.path.rewrite.stale_tail == 0'
check "clover on: every tracked key's CAS succeeded first time (all keys tracked)" \
	pt clover-fig2 on 'true' '.metrics.cas_per_write == 1 and .metrics.cas_failed == 0'
check "clover on: every acknowledged write is on its chain, no torn or foreign read" \
	pt clover-fig2 on 'true' '.checks.chains.ok and .checks.chains.acked_writes == .checks.chains.chained_versions and .checks.reads.ok'
check "clover Fig. 4, top-1 tracked: valid, other keys pass unchanged and their CASes still fail" \
	pt clover-fig4 on '.params.track == 1' '.valid and .metrics.path.keys_tracked == 1 and .metrics.path.rewrite.cas_tracked < .metrics.path.rewrite.cas_seen and .metrics.cas_failed > 0'
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
