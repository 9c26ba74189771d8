#!/bin/sh
# NUMA placement on real verbs (Soft-RoCE): netmem ops --buf-node/--cpu-node,
# the move_pages verification, the placement record, bad input and skipped
# sweep points, netmem numa-info, the buffer's cache state (--cache), the
# memcached-like service's server path, the node latency matrix
# (numa-matrix), an MTU sweep with a skipped point, and the host metadata.
#
# It adapts to the guest: in the plain one-node VM (tests/integration/run-all.sh)
# it checks the single-node behaviour (nic is node 0, other and node 1 are
# refused) and SKIPs the rest (the NUMA lane runs it); under `tests/vm/netmem-vm --numa`
# (tests/integration/numa/run.sh: cpu 0 on node 0, cpu 1 on node 1) it checks
# that a buffer placed on node 1 is verified there and that threads run where
# asked, and SKIPs the single-node ones.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup ops

nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 1 ] || nodes=1
# expect_refused "what" PATTERN NAME ARGS...: a placement this guest cannot
# honour, found when the point runs: exit 2 and one error line matching
# PATTERN from rank 0 (the Soft-RoCE note before it is not an error).
expect_refused() {
	what=$1; pat=$2; name=$3; shift 3
	nm_run "$name" 2 "$@"
	errs=$(grep '^netmem:' "$tmp/$name.err" | grep -v 'is Soft-RoCE (emulated)')
	if [ "$(nm_rc "$name")" = 2 ] && [ "$(printf '%s\n' "$errs" | grep -c .)" -eq 1 ] &&
		printf '%s\n' "$errs" | grep -q "$pat"; then
		ok "$what: $errs"
	else
		notok "$what: exit $(nm_rc "$name"): $(head -c 600 "$tmp/$name.err" | tr '\n' '|')"
	fi
}
echo "# guest has $nodes NUMA node(s)"
P='.points[0].placement'

# 1. the view: nodes, the NIC's node (rxe has none: assumed 0), what nic/other mean
$N numa-info >"$tmp/info.json" 2>"$tmp/info.err"
check "numa-info: valid JSON, $nodes node(s)" jq -e ".numa_nodes == $nodes and (.nodes | length) == $nodes" "$tmp/info.json"
check "numa-info: rxe0 has no NUMA node, nic is assumed node 0, not NUMA-real" jq -e '.devices[0].device == "rxe0" and .devices[0].sysfs_numa_node == -1 and .devices[0].assumed and .devices[0].resolves.nic == 0 and .numa_real == false' "$tmp/info.json"
check "numa-info: a one-line summary" jq -e '.summary | test("NUMA node")' "$tmp/info.json"

# 2. nic on every rank: rank 1's buffer on node 0, rank 0's thread on node 0
nm_run nic 2 --op read,write -n 50 --buf-node nic --cpu-node nic
check "buf/cpu nic: exit 0, both points valid" sh -c "[ $(nm_rc nic) = 0 ] && jq -e '(.points | length) == 2 and all(.points[]; .valid and .checks.placement.ok)' $tmp/nic.json"
check "buf/cpu nic: the NIC (rxe, numa_node -1) is taken as node 0 and the JSON says so" nm_jq nic "all($P.ranks[]; .nic.node == 0 and .nic.assumed and .nic.sysfs_numa_node == -1 and (.nic.note | test(\"no NUMA node\")))"
check "buf/cpu nic: target's buffer meant for node 0, every page there after allocation and after the run" nm_jq nic "$P.ranks[1] | .role == \"target\" and .buffer.intended == 0 and .buffer.after_alloc.pages > 0 and .buffer.after_alloc.on_intended == .buffer.after_alloc.pages and .buffer.after_run.ok and .buffer.ok"
check "buf/cpu nic: initiator thread on a node-0 CPU, QP/CQ created bound to node 0" nm_jq nic "$P.ranks[0] | .role == \"initiator\" and .threads[0].intended == 0 and .threads[0].cpu_node == 0 and .threads[0].ok and .qp_cq.bound_to == 0 and (.qp_cq.policy_at_creation | test(\"bind:0\"))"
check "buf/cpu nic: numa_real false, because rxe is emulated" nm_jq nic "$P.numa_real == false and ($P.not_numa_real | map(test(\"emulated\")) | any)"

# A one-node guest (the plain integration lane) runs the one-node checks
# only: the others hold alike on two nodes, where the NUMA lane
# (tests/integration/numa/run.sh) runs this file, so running them here as
# well only doubled their minutes.
N_KV="$MPI -np 2 $N numa-kv $Q"
if [ "$nodes" -eq 1 ]; then
	$N_KV --output "$tmp/kvs.json" --scenario both-local,client-local -n 100 >/dev/null 2>&1; echo $? >"$tmp/kvs.rc"
	check "one node: numa-kv sweep runs both-local and skips client-local" sh -c "[ $(nm_rc kvs) = 0 ] && jq -e '.points[0].valid and (.points[1].skipped | test(\"one NUMA node\"))' $tmp/kvs.json"
	expect_usage "numa-kv: value size not a multiple of 8" $N_KV --value-size 12
	expect_refused "one node: --load-node other" "one NUMA node" load_other -n 20 --load-threads 1 --load-buf 64k --load-node other
	nm_run load_sweep 2 --op read -n 30 --load-threads 1 --load-buf 64k --load-node nic,other
	check "one node: load sweep nic,other runs nic and skips other" nm_jq load_sweep '.points[0].valid and .points[0].metrics.load.ops > 0 and (.points[1].skipped | test("--load-node other"))'

	# 8. one node: other cannot exist
	expect_refused "one node: --buf-node other" "one NUMA node" other_buf -n 20 --buf-node other
	expect_refused "one node: --cpu-node other" "one NUMA node" other_cpu -n 20 --cpu-node other
	nm_run sweep_other 2 --op read -n 30 --buf-node nic,other
	check "one node: sweep nic,other runs nic and skips other" sh -c "[ $(nm_rc sweep_other) = 0 ] && jq -e '.points[0].valid and .points[0].metrics.ops == 30 and (.points[1].skipped | test(\"one NUMA node\")) and (.summary | length) == 2' $tmp/sweep_other.json"
	expect_refused "one node: --inject misplace has nowhere to move a page" "needs a second NUMA node" misplace1 -n 20 --buf-node nic --inject misplace
	check "one node: numa_real false, one node named as a reason" nm_jq nic "$P.not_numa_real | map(test(\"one NUMA node\")) | any"
	for what in "buffer on node 1 verified there (move_pages)" "threads pinned to node 1 run on cpu 1" \
		"sweep nic,other resolves other to node 1" "initiator memory follows --cpu-node" \
		"loopback rank: buffer and threads on different nodes" "misplaced page marks the point invalid" \
		"server workers and load on node 1" "numa-kv client-local and both-remote"; do
		skip "two-node check ($what)" "this guest has one NUMA node; run tests/integration/numa/run.sh"
	done
	skip "checks that hold on any node count (no placement, bad input, a missing node, server workers, load, numa-kv, cache, per-QP latency, numa-matrix, plots, MTU sweep, metadata)" "the NUMA lane runs them on two nodes"
	t_summary
	exit
fi

# 3. no placement asked: reported, never failed
nm_run any 2 --op read -n 50
check "default placement (any): valid, buffer reported with no intended node" nm_jq any ".points[0].valid and $P.ranks[1].buffer.intended == null and $P.ranks[1].buffer.after_alloc.pages > 0 and $P.ok"

# 4. bad input found before any device work: tests/cli/test_bad_input.sh

# 5. a node this guest does not have: exit 2 for one value, a skipped point in a sweep
expect_refused "--buf-node $nodes (no such node)" "NUMA node $nodes does not exist" missing_buf -n 20 --buf-node "$nodes"
expect_refused "--cpu-node $nodes (no such node)" "NUMA node $nodes does not exist" missing_cpu -n 20 --cpu-node "$nodes"
nm_run sweep_missing 2 --op read -n 30 --buf-node "nic,$nodes"
check "sweep over nic,$nodes: exit 0, the missing node's point skipped with the reason" sh -c "[ $(nm_rc sweep_missing) = 0 ] && jq -e '(.points | length) == 2 and .points[0].valid and .points[0].metrics.ops == 30 and (.points[1].skipped | test(\"does not exist\")) and .points[1].placement.skipped_on[0].rank == 1' $tmp/sweep_missing.json"
check "sweep: the skipped point is reported on stdout" grep -q 'skipped' "$tmp/sweep_missing.out"
check "sweep: the job's last line counts the skipped point" sh -c "tail -1 $tmp/sweep_missing.err | grep -q '^netmem: results in .*: 1 point(s) measured, 1 skipped (this host cannot honour them'"

# 6. server workers hammer the slots clients access (Fig. 5): every kind, data checks still exact
nm_run sw 2 --op read,write --mode bw -s 8 --packed -t 8 -n 100 --buf-node nic --server-workers 1 --server-op read,write,mixed,cas,faa
check "server workers: every kind under READ and WRITE clients, 10 points, all valid" sh -c "[ $(nm_rc sw) = 0 ] && jq -e '(.points | length) == 10 and all(.points[]; .valid and .checks.data.mismatches == 0 and .checks.data.checked > 0)' $tmp/sw.json"
check "server workers: they worked, on the one 8 B slot the client uses (packed)" nm_jq sw 'all(.points[]; .metrics.server_workers.ops > 0 and .metrics.server_workers.threads == 1 and .effective.slot_stride == 8 and .placement.ranks[1].server_workers.bytes == 8)'
check "server workers: pinned to the buffer's node (0) on the target rank" nm_jq sw 'all(.points[]; .placement.ranks[1].server_workers | .intended == 0 and .cpus[0].cpu_node == 0 and .cpus[0].ok)'
check "server workers: CPU CAS on the clients' words never failed (values kept)" nm_jq sw '[.points[] | select(.params.server_op == "cas") | .placement.ranks[1].server_workers.cas_failed] == [0, 0]'

# 7. an independent load process on the target (section V-C)
nm_run load 2 --op read -n 100 --load-threads 1 --load-buf 1M --load-node any,nic
check "load process: both points valid, the load worked" sh -c "[ $(nm_rc load) = 0 ] && jq -e '(.points | length) == 2 and all(.points[]; .valid and .metrics.load.ops > 0)' $tmp/load.json"
check "load any: buffer interleaved, threads on any core, nothing to fail" nm_jq load '.points[0].placement.ranks[1].load | .buffer.policy == "interleave" and .intended == null and .ok'
check "load nic: buffer bound to node 0 and every page there, its thread on node 0" nm_jq load '.points[1].placement.ranks[1].load | .buffer.policy == "bind" and .intended == 0 and .buffer.after_alloc.nodes == {"0": .buffer.after_alloc.pages} and .buffer.after_run.ok and .threads[0].cpu_node == 0 and .ok'
check "load: the process is gone after the run" sh -c "! pgrep -f '[n]uma-load --threads' >/dev/null"
check "netmem numa-load on its own: JSON with its placement" sh -c "$N numa-load --threads 1 --buf 64k --node nic --duration 1 </dev/null | jq -e '.ops > 0 and .placement.ok and .intended == 0'"

# the memcached-like service (Fig. 6): GETs verified, PUTs applied exactly once
$N_KV --output "$tmp/kv.json" --scenario both-local -T 2 -n 200 --get-ratio 0.5 >"$tmp/kv.out" 2>"$tmp/kv.err"; echo $? >"$tmp/kv.rc"
check "numa-kv both-local: exit 0, GETs verified, every acknowledged PUT applied, table consistent" sh -c "[ $(nm_rc kv) = 0 ] && jq -e '.points[0] | .valid and .checks.gets.checked > 0 and .checks.gets.mismatches == 0 and .checks.puts.applied > 0 and .checks.puts.acknowledged == .checks.puts.applied and .checks.table.ok and .metrics.ops == 400 and .metrics.ops_per_sec > 0' $tmp/kv.json"
check "numa-kv both-local: server (rank 1) and client (rank 0) on node 0, one server thread, two client threads" nm_jq kv "$P.ok and ($P.ranks[1] | .role == \"server\" and .buffer.intended == 0 and .buffer.ok and (.threads | length) == 1 and .threads[0].cpu_node == 0) and ($P.ranks[0] | .role == \"client\" and (.threads | length) == 2)"
check "numa-kv: a table row on stdout" grep -q 'both-local' "$tmp/kv.out"
# how the service's waits went: server and both client threads are bound to
# node 0 here, three polling threads on its CPUs; each side yields exactly
# when they outnumber those CPUs (the guests' nodes have one vCPU each)
check "numa-kv both-local: each side counted the 3 polling threads on node 0's CPUs, and yields exactly when they outnumber them" \
	nm_jq kv '.points[0].effective.waits | [.client, .server] | all(.busy_threads == 3 and ((.busy_threads > .cpus) == (.wait | startswith("spin, yielding"))))'

check "numa-kv: every GET asked the server thread for its location, which it gave, then read it" nm_jq kv '.points[0].checks.gets | .asked > 0 and .located == .asked and .checked == .asked'

# cache state of the target buffer (section VII): warm and flush recorded per point, on the buffer's node
CN=$([ "$nodes" -ge 2 ] && echo 1 || echo 0)
nm_run cache 2 --op read,write -n 50 --buf-node "$CN" --cache warm,flush
check "--cache warm,flush: 4 points, all valid" sh -c "[ $(nm_rc cache) = 0 ] && jq -e '(.points | length) == 4 and all(.points[]; .valid)' $tmp/cache.json"
check "--cache: the target's pass recorded per point, its mode, every line of the buffer, on node $CN" nm_jq cache "all(.points[]; .placement.ranks[1].cache as \$c | \$c.mode == .params.cache and \$c.intended == $CN and \$c.cpu_node == $CN and \$c.ok and \$c.lines * 64 >= .placement.ranks[1].buffer.bytes) and (.points[0].placement.ranks[0].cache == null)"

# per-connection latency (Fig. 3) with several QPs per thread: metrics.per_qp, in both modes
nm_run qp2 2 --op read -T 2 --qp 2 -n 40 --buf-node nic --cpu-node nic
check "--qp 2, lat: metrics.per_qp, 2 threads x 2 QPs in creation order, ops summing to the point's, positive means" nm_jq qp2 '.points[0] | .valid and (.metrics as $m | $m.per_qp | length == 4 and map([.thread, .qp]) == [[0,0],[0,1],[1,0],[1,1]] and all(.[]; .rank == 0 and .target == 1 and .ops == .samples and .lat_mean_us > 0) and (map(.ops) | add) == $m.ops)'
nm_run qp2bw 2 --op write --mode bw -t 4 -Q 2 --qp 2 -n 40
check "--qp 2, bw: per_qp counts signaled batches as samples, every operation once" nm_jq qp2bw '.points[0] | .valid and (.metrics as $m | $m.per_qp | length == 2 and all(.[]; .samples > 0 and .samples < .ops and .lat_mean_us > 0) and (map(.ops) | add) == $m.ops)'
check "--qp 1, one target: no per_qp (per_thread is per connection)" nm_jq nic 'all(.points[]; .metrics.per_qp == null and (.metrics.per_thread | length) == 1)'

# Fig. 2: the node-to-node latency matrix, and its check
MX="$MPI -np 1 $N numa-matrix $Q"
$MX --output "$tmp/mx.json" --buf 1M -n 20000 --warmup 1000 >"$tmp/mx.out" 2>"$tmp/mx.err"; echo $? >"$tmp/mx.rc"
check "numa-matrix: exit 0, a $nodes x $nodes matrix of positive latencies, every pair checked" sh -c "[ $(nm_rc mx) = 0 ] && jq -e '.points[0] | .valid and (.metrics.matrix_ns | length) == $nodes and all(.metrics.matrix_ns[]; length == $nodes and all(.[]; . > 0)) and .checks.pairs == $nodes * $nodes and .checks.failed == 0' $tmp/mx.json"
check "numa-matrix: each pair's thread on its CPU node, the buffer's pages on the memory node" nm_jq mx 'all(.points[0].effective.pairs[]; .ok and .pages.ok and .pages.nodes == {(.mem_node | tostring): .pages.pages} and .ran_on >= 0)'
check "numa-matrix: the table on stdout" grep -q 'rows CPU node, columns memory node' "$tmp/mx.out"
$MX --output "$tmp/mxbad.json" --buf 1M -n 20000 --inject shortcut >/dev/null 2>&1; echo $? >"$tmp/mxbad.rc"
check "numa-matrix --inject shortcut: exit 1, point invalid, the walk's end named" sh -c "[ $(nm_rc mxbad) = 1 ] && jq -e '.points[0].valid == false and (.points[0].checks.first_error | test(\"not where the chain leads\"))' $tmp/mxbad.json"

# the figures of these experiments, drawn from this test's own documents:
# a PNG, and no series gnuplot found empty
plot_ok() { # SCRIPT DOC
	gnuplot -e "in='$tmp/$2.json'; out='$tmp/$1.png'" "plots/$1.gp" >"$tmp/$1.gplog" 2>&1 && [ -s "$tmp/$1.png" ] &&
		! grep -qiE 'no valid points|all points .* undefined|error' "$tmp/$1.gplog"
}
if command -v gnuplot >/dev/null; then
	check "plots/numa_matrix.gp draws the matrix" plot_ok numa_matrix mx
	check "plots/numa_cache.gp draws warm and flush" plot_ok numa_cache cache
	check "plots/numa_fig3c.gp draws per_qp" plot_ok numa_fig3c qp2
else
	for gp in numa_matrix numa_cache numa_fig3c; do skip "plots/$gp.gp draws" "no gnuplot"; done
fi

# --mtu sweeps inside one job; an MTU above the port's (rxe on dummy0: 1024) is a skipped point
nm_run mtu 2 --op read -n 20 --mtu 256,4096
check "--mtu 256,4096: 256 measured, 4096 skipped with the reason" sh -c "[ $(nm_rc mtu) = 0 ] && jq -e '.points[0].valid and .points[0].metrics.ops == 20 and (.points[1].skipped | test(\"path MTU 4096 exceeds the active MTU\"))' $tmp/mtu.json"
check "--mtu sweep: the job's last line counts the skipped point" sh -c "tail -1 $tmp/mtu.err | grep -q ': 1 point(s) measured, 1 skipped'"
expect_refused "--mtu 4096 alone: exit 2" "path MTU 4096 exceeds" mtu1 -n 20 --mtu 4096
check "metadata: CPU vendor and model, THP, NUMA balancing and DDIO (a state, else unknown) on every rank" nm_jq mtu 'all(.meta.runs[0].ranks[]; (.cpu_vendor | type) == "string" and (.cpu_model | type) == "string" and (.transparent_hugepages.enabled | type) == "string" and .numa_balancing != null and (.ddio.state | IN("enabled", "disabled", "unknown")))'

if [ "$nodes" -ge 2 ]; then
	for what in "--buf-node other refused" "--cpu-node other refused" "sweep nic,other skips other" \
		"--inject misplace refused" "one node named in not_numa_real" "--load-node other refused" \
		"load sweep skips other" "numa-kv sweep skips client-local" "numa-kv value size"; do
		skip "one-node check ($what)" "this guest has $nodes NUMA nodes"
	done
	# 9. node 1: buffer pages and threads where asked, before and after the run
	nm_run n1 2 --op read,write -n 50 --buf-node 1 --cpu-node 1
	check "node 1: exit 0, both points valid" sh -c "[ $(nm_rc n1) = 0 ] && jq -e 'all(.points[]; .valid and .placement.ok)' $tmp/n1.json"
	check "node 1: every page of the target's buffer on node 1 after allocation and after the run" nm_jq n1 "all(.points[]; .placement.ranks[1].buffer | .intended == 1 and .after_alloc.nodes == {\"1\": .after_alloc.pages} and .after_run.nodes == {\"1\": .after_run.pages} and .ok)"
	check "node 1: the initiator thread pinned to cpu 1 (node 1) and ran there" nm_jq n1 "all(.points[]; .placement.ranks[0].threads[0] | .intended == 1 and .cpu == 1 and .cpu_node == 1 and .ran_on == [1, 1] and .ok)"
	check "node 1: QP/CQ rings created bound to node 1 on the initiator" nm_jq n1 "$P.ranks[0].qp_cq.bound_to == 1 and ($P.ranks[0].qp_cq.policy_at_creation | test(\"bind:1\"))"
	check "node 1: effective cpus list agrees" nm_jq n1 '.points[0].effective.cpus[0] == [1]'

	# 10. the paper's two placements in one sweep
	nm_run nicother 2 --op read -n 50 --buf-node nic,other --cpu-node nic
	check "sweep nic,other: both run, buffer on node 0 then node 1" nm_jq nicother '(.points | length) == 2 and all(.points[]; .valid and (.skipped | not)) and .points[0].placement.ranks[1].buffer.after_alloc.nodes == {"0": .points[0].placement.ranks[1].buffer.after_alloc.pages} and .points[1].placement.ranks[1].buffer.after_alloc.nodes == {"1": .points[1].placement.ranks[1].buffer.after_alloc.pages}'
	check "sweep nic,other: the initiator stays on node 0" nm_jq nicother 'all(.points[]; .placement.ranks[0].threads[0].cpu == 0)'

	# 11. an initiator-only rank keeps its memory with its threads
	nm_run split 2 --op write -n 50 --buf-node 1 --cpu-node 0
	check "initiator memory follows --cpu-node (node 0), target's --buf-node (node 1)" nm_jq split "$P.ranks[0].buffer.intended == 0 and $P.ranks[0].buffer.ok and $P.ranks[1].buffer.intended == 1 and $P.ranks[1].buffer.ok and $P.ranks[0].threads[0].cpu == 0 and .points[0].valid"

	# 12. one rank, loopback: buffer on node 1, its thread on node 0
	nm_run self 1 --op read,write --targets self -n 50 --buf-node 1 --cpu-node 0
	check "loopback rank: role both, buffer on node 1, thread on node 0, QP/CQ on node 0" nm_jq self "all(.points[]; .valid and .placement.ranks[0].role == \"both\" and .placement.ranks[0].buffer.intended == 1 and .placement.ranks[0].buffer.ok and .placement.ranks[0].threads[0].cpu_node == 0 and .placement.ranks[0].qp_cq.bound_to == 0)"

	# 13. server workers and the load process follow their nodes
	nm_run local1 2 --op write --mode bw -s 8 --packed -t 8 -n 100 --buf-node 1 --server-workers 1 --load-threads 1 --load-buf 1M --load-node other
	check "node 1: server worker on cpu 1, load (other = node 1) buffer and thread on node 1, point valid" nm_jq local1 "$P.ok and .points[0].valid and ($P.ranks[1] | .server_workers.intended == 1 and .server_workers.cpus[0].cpu == 1 and .load.intended == 1 and .load.buffer.after_alloc.nodes == {\"1\": .load.buffer.after_alloc.pages} and .load.threads[0].cpu == 1)"

	# the paper's scenarios for the memcached-like service, with a load on the NIC's node
	$N_KV --output "$tmp/kv2.json" --scenario client-local,both-remote -n 100 --get-ratio 0.5 --load-threads 1 --load-buf 1M --load-node nic >/dev/null 2>"$tmp/kv2.err"; echo $? >"$tmp/kv2.rc"
	check "numa-kv client-local: client and server alone on their nodes' one vCPU, both spin; both-remote: the two share node 1's, both yield (the load process not counted)" \
		nm_jq kv2 '[.points[].effective.waits | .client, .server | [.busy_threads, .cpus, (.wait | startswith("spin, yielding"))]] == [[1, 1, false], [1, 1, false], [2, 1, true], [2, 1, true]]'
	check "numa-kv client-local: client on node 0, server buffer and thread on node 1; both-remote: both on node 1; load on node 0" sh -c "[ $(nm_rc kv2) = 0 ] && jq -e '(.points | length) == 2 and all(.points[]; .valid and .placement.ok and .placement.ranks[1].load.intended == 0 and .metrics.load.ops > 0) and (.points[0].placement.ranks | .[0].buffer.intended == 0 and .[0].threads[0].cpu == 0 and .[1].buffer.intended == 1 and .[1].buffer.after_alloc.nodes == {\"1\": .[1].buffer.after_alloc.pages} and .[1].threads[0].cpu == 1) and (.points[1].placement.ranks | .[0].buffer.intended == 1 and .[0].threads[0].cpu == 1 and .[1].buffer.intended == 1)' $tmp/kv2.json"

	# 14. the check catches a page off its node
	nm_run misplace 2 --op read -n 30 --buf-node 1 --inject misplace
	check "misplaced page: exit 1, point invalid, the first error names the buffer and the node" sh -c "[ $(nm_rc misplace) = 1 ] && jq -e '.points[0].valid == false and .points[0].checks.placement.ok == false and (.points[0].checks.first_error | test(\"rank 1 buffer after allocation: 1 of [0-9]+ pages are not on the intended node 1\")) and .points[0].placement.ranks[1].buffer.injected_page_moved_to == 0 and .points[0].placement.ranks[1].buffer.after_alloc.nodes[\"0\"] == 1' $tmp/misplace.json"
fi
t_summary
