#!/bin/sh
# netmem kv --system redis (LOCO Fig. 5's Redis baseline): two ranks on the
# VM's one host each start their redis-server instances, the instances form
# one Redis Cluster, memtier-style hiredis clients (--window per thread, one
# command in flight each) send GETs and SETs; --system redis-pipelined
# pipelines them instead. Checked: the
# points are valid with every operation counted; the servers and their
# directories are gone after a run; a missing redis-server is one line and
# exit 2; a server killed mid-point (a lost connection) and a rank killed
# mid-point end the job and leave no server behind; and no open door: a
# connection without the point's secret is refused, CONFIG, MODULE and DEBUG
# are gone, the secret is in a file of mode 0600 and nowhere on a command
# line, in a log line or in the result.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup kv
if ! command -v redis-server >/dev/null 2>&1; then
	skip "netmem kv --system redis" "redis-server is not installed (apt-get install redis-server)"
	t_summary; exit
fi
RD="--system redis --timeout 60"
# Server processes and directories the suite started, now.
servers() { pgrep -x redis-server | wc -l; }
dirs() { ls -d "${TMPDIR:-/tmp}"/netmem-redis-* 2>/dev/null | wc -l; }
none_left() { [ "$(servers)" = 0 ] && [ "$(dirs)" = 0 ]; }
# The configuration file of the server on PORT (in its working directory).
conf_of() { echo "/proc/$(pgrep -f "redis-server .*:$1" | head -1)/cwd/redis.conf"; }
# The secret of the server on PORT, from its configuration (root reads it).
secret_of() { sed -n 's/^requirepass //p' "$(conf_of "$1")" 2>/dev/null; }
# redis-cli with the secret of the server on PORT, through the environment
# (not on the command line): rcli PORT ARGS...
rcli() { REDISCLI_AUTH=$(secret_of "$1") redis-cli --no-auth-warning -p "$@"; }
# A job left running while the test probes it (4 and 5) runs at the lowest
# priority: its clients and servers keep the guest's CPUs busy by design,
# and at equal priority every probe (a process start each) waited for them.
BG="nice -n 19"
# Waits (at most 60 s) until the cluster on PORT reports ok, then N seconds.
wait_cluster() {
	for _ in $(seq 120); do
		rcli "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && { sleep "$2"; return 0; }
		sleep 0.5
	done
	return 1
}

# 1. two ranks, two threads each, one instance per rank (4 client threads
#    per instance, the paper's ratio): a two-instance cluster, mixed workload
#    on 32 keys (contended), with its history, which kv-check must find
#    linearizable
check "no redis-server running before the tests" none_left
nm_run mixed 2 $RD -K 32 -T 2 -W 8 -n 2000 --warmup 100 --history "$tmp/rh.jsonl"
check "2 ranks x 2 threads, mixed: exit 0" [ "$(nm_rc mixed)" = 0 ]
check "mixed: valid, 8000 measured operations, gets and updates" nm_jq mixed '.points[0] | .valid and .metrics.ops == 8000 and .metrics.gets > 0 and .metrics.updates > 0 and .metrics.ops_per_sec > 0'
check "mixed: a two-instance cluster, one per node, all 16384 slots, Redis 7" nm_jq mixed '.points[0].effective | .instances_per_node == 1 and .cluster.instances == 2 and .cluster.slots == 16384 and (.cluster.slot_map | length) == 2 and (.redis_version | startswith("7")) and (.binding | startswith("127.0.0.1") and test("secret"))'
check "mixed: one server request per operation (warm-up included), no read failed, the scan read the prefill" nm_jq mixed '.points[0] | .metrics.server_requests == .metrics.ops_with_warmup and .checks.reads.ok and .checks.store.ok and .effective.scanned_keys == .effective.prefill'
check "mixed: memtier's clients: 8 per thread (--window), one command in flight each" nm_jq mixed '.points[0].effective | .clients_per_thread == 8 and (.clients | startswith("memtier-style")) and .maxclients >= 10000'
check "mixed: every server stopped and its directory removed" none_left
# a memtier-style client writes as a writer of its own: 32768 + its index in
# the job (rank x 2 threads + thread) x 8 clients + client
check "mixed: every SET recorded with what it wrote (its client's writer, the thread's sequence from 1)" sh -c "jq -se '[.[] | select(.op == \"update\")] | length > 0 and all(.[]; .writer >= 32768 and ((.writer - 32768) / 8 | floor) == .rank * 2 + .thread and .version >= 1)' $tmp/rh.jsonl >/dev/null"
if $N kv-check "$tmp/rh.jsonl" >"$tmp/rh.chk" 2>&1 && grep -q ', linearizable$' "$tmp/rh.chk"; then
	ok "mixed: kv-check finds the history linearizable"
else
	notok "mixed: kv-check finds the history linearizable: $(head -c 600 "$tmp/rh.chk")"
fi

# 2. two instances per rank (--redis-threads 1), duration mode, two points
#    in one job (the servers of the first stopped, new ones for the second)
nm_run rw 2 $RD -K 4096 -T 2 --redis-threads 1 -W 4 -w read-only,write-only -D 1
check "read-only,write-only, 2 instances per rank, -D 1: exit 0, both valid, 4 instances each" nm_rc_jq rw 0 '(.points | length) == 2 and all(.points[]; .valid and .metrics.ops > 0 and .effective.instances_per_node == 2 and .effective.cluster.instances == 4)'
check "read-only: only gets, none missed; write-only: only updates" nm_jq rw '(.points[] | select(.params.workload == "read-only") | .metrics.updates == 0 and .metrics.misses == 0 and .metrics.gets > 0) and (.points[] | select(.params.workload == "write-only") | .metrics.gets == 0 and .metrics.updates > 0)'
check "read-only,write-only: every server stopped and its directory removed" none_left

# 2b. the pipelined client, an extra series: one connection per instance
#     per thread, --window commands in flight on it
nm_run pipe 2 --system redis-pipelined --timeout 60 -K 1024 -T 2 -W 8 -n 500 --warmup 50
check "redis-pipelined: exit 0, valid, 2000 operations, one connection per instance per thread" nm_rc_jq pipe 0 '.points[0] | .valid and .metrics.ops == 2000 and .params.system == "redis-pipelined" and .effective.clients_per_thread == 1 and (.effective.clients | startswith("pipelined"))'
check "redis-pipelined: every server stopped and its directory removed" none_left

# 3. the binary missing: one line, exit 2, nothing started
expect_usage "--redis-server /nonexistent" $MPI -np 2 $N kv $Q $RD -n 100 --redis-server /nonexistent
check "--redis-server /nonexistent: nothing left behind" none_left

# 4. a server killed mid-point: the lost connection ends the job (exit 1) with
#    one line naming the instance; every other server stopped as well. -D 300
#    only bounds the job (the kill ends it): under emulation the probes before
#    the kill take tens of seconds.
# The servers start through a wrapper that keeps the arguments they were
# given (redis-server rewrites its process title, so ps alone would not show them).
printf '#!/bin/sh\necho "$@" >>"%s/argv"\nexec redis-server "$@"\n' "$tmp" >"$tmp/redis-wrap"
chmod +x "$tmp/redis-wrap"
$BG $MPI -np 2 $N kv $Q $RD -T 2 -W 8 -D 300 --redis-port 7500 --redis-server "$tmp/redis-wrap" --output "$tmp/lost.json" \
	>"$tmp/lost.out" 2>"$tmp/lost.err" &
job=$!
if wait_cluster 7500 4; then
	# No open door, while the servers run (the last probe, with the secret,
	# shows that they still did). Each probe's answer in $tmp/door.NAME.
	secret=$(secret_of 7500)
	rcs() { REDISCLI_AUTH=$secret redis-cli --no-auth-warning -p "$@"; }
	redis-cli -p 7500 get k >"$tmp/door.none" 2>&1
	REDISCLI_AUTH=0123456789abcdef redis-cli --no-auth-warning -p 7500 get k >"$tmp/door.wrong" 2>&1
	rcs 7500 config get dir >"$tmp/door.config" 2>&1
	rcs 7500 module list >"$tmp/door.module" 2>&1
	rcs 7500 debug sleep 0 >"$tmp/door.debug" 2>&1
	rcs 7500 bgsave >"$tmp/door.bgsave" 2>&1
	rcs 7500 eval 'return 1' 0 >"$tmp/door.eval" 2>&1
	rcs 7500 ping >"$tmp/door.ping" 2>&1
	ps -eo args >"$tmp/ps"
	check "the server's configuration file: mode 0600, a 48-digit secret" \
		sh -c "[ \$(stat -c %a '$(conf_of 7500)') = 600 ] && echo '$secret' | grep -qxE '[0-9a-f]{48}'"
	check "no open door: without the secret, NOAUTH; with a wrong one, WRONGPASS" \
		sh -c "grep -q NOAUTH '$tmp/door.none' && grep -q WRONGPASS '$tmp/door.wrong'"
	check "no open door: CONFIG, MODULE, DEBUG, BGSAVE, EVAL unknown commands, with the secret" \
		sh -c "[ \$(cat '$tmp'/door.config '$tmp'/door.module '$tmp'/door.debug '$tmp'/door.bgsave '$tmp'/door.eval | grep -c 'unknown command') = 5 ]"
	check "no open door: the server answered PONG with the secret, after all that" grep -qx PONG "$tmp/door.ping"
	# memtier's shape, seen by a server: every client of every thread of
	# both ranks holds a connection to it (2 x 2 x 8), beside the ranks' own
	rcs 7500 info clients >"$tmp/clients" 2>&1
	check "memtier-style clients: the instance holds 2 ranks x 2 threads x 8 clients' connections" \
		sh -c "[ \$(sed -n 's/^connected_clients:\([0-9]*\).*/\1/p' '$tmp/clients') -ge 32 ]"
	check "no open door: the secret on no command line (the servers' arguments, ps)" \
		sh -c "[ -n '$secret' ] && [ \$(wc -l <'$tmp/argv') = 2 ] && ! cat '$tmp/argv' '$tmp/ps' | grep -qF '$secret'"
	kill -9 "$(pgrep -f 'redis-server .*:7500' | head -1)" 2>/dev/null
	wait "$job"; echo $? >"$tmp/lost.rc"
	check "a server killed mid-point: exit 1" [ "$(nm_rc lost)" = 1 ]
	[ "$(nm_rc lost)" = 1 ] || nm_diag lost
	check "a server killed mid-point: the line names the instance" grep -qE '^netmem: rank [01] .*redis (prefill: )?instance 127.0.0.1:7500' "$tmp/lost.err"
	grep -qE '^netmem: rank [01] .*redis (prefill: )?instance 127.0.0.1:7500' "$tmp/lost.err" || nm_diag lost
	check "a server killed mid-point: no server left, no directory" none_left
	check "no open door: the secret in no log line and not in the result" \
		sh -c "[ -n '$secret' ] && ! cat '$tmp/lost.out' '$tmp/lost.err' '$tmp/lost.json' 2>/dev/null | grep -qF '$secret'"
else
	kill "$job"; wait "$job"
	notok "the cluster on port 7500 never formed: $(grep '^netmem:' "$tmp/lost.err" | head -2 | tr '\n' '|')"
fi

# 5. a rank killed (SIGKILL) mid-point: its servers die with it (parent-death
#    signal); mpirun ends the other rank, which stops its own
$BG $MPI -np 2 $N kv $Q $RD -T 2 -W 8 -D 60 --redis-port 7600 --output "$tmp/kill.json" \
	>"$tmp/kill.out" 2>"$tmp/kill.err" &
job=$!
if wait_cluster 7600 4; then
	kill -9 "$(pgrep -x netmem | tail -1)" 2>/dev/null
	wait "$job"; echo $? >"$tmp/kill.rc"
	check "a rank killed mid-point: the job fails" [ "$(nm_rc kill)" != 0 ]
	sleep 1
	check "a rank killed mid-point: no redis-server left" [ "$(servers)" = 0 ]
	check "a rank killed mid-point: at most the killed rank's one directory left" [ "$(dirs)" -le 1 ]
else
	kill "$job"; wait "$job"
	notok "the cluster on port 7600 never formed: $(grep '^netmem:' "$tmp/kill.err" | head -2 | tr '\n' '|')"
fi
# A SIGKILLed rank cannot remove its servers' directories: the test does.
rm -rf "${TMPDIR:-/tmp}"/netmem-redis-*
t_summary
