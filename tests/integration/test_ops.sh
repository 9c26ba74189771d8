#!/bin/sh
# netmem ops on real verbs (Soft-RoCE): every op type over 2 to 4 ranks, data
# checks, exact FAA totals, JSON validity, resume, config files, failure paths.
# Runs where an RDMA device exists (inside tests/vm/netmem-vm in CI).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup ops

# 1. every op, latency mode, 2 ranks: rank 0 -> rank 1 (perftest's shape)
nm_run lat2 2 --op read,write,cas,faa -n 200
check "2 ranks, lat: exit 0" [ "$(nm_rc lat2)" = 0 ]
check "2 ranks, lat: document is valid JSON with schema" nm_jq lat2 '.schema == "netmem-result/1"'
check "2 ranks, lat: 4 points, all valid" nm_jq lat2 '(.points | length) == 4 and all(.points[]; .valid)'
check "2 ranks, lat: 200 measured ops per point" nm_jq lat2 'all(.points[]; .metrics.ops == 200)'
check "2 ranks, lat: percentiles ordered" nm_jq lat2 'all(.points[]; .metrics.lat.min <= .metrics.lat.p50 and .metrics.lat.p50 <= .metrics.lat.p99 and .metrics.lat.p99 <= .metrics.lat.max)'
check "2 ranks, lat: WRITE read back equals what was written" nm_jq lat2 '.points[] | select(.params.op == "write") | .checks.data.checked == 1 and .checks.data.mismatches == 0'
check "2 ranks, lat: metadata names the NIC and marks it emulated" nm_jq lat2 '.meta.runs[0].ranks[0].nic.device != null and .meta.runs[0].emulated == true and (.meta.runs[0].timing_note | test("emulated"))'
check "2 ranks, lat: metadata has versions and command line" nm_jq lat2 '.meta.runs[0].software.rdma_core != null and .meta.runs[0].software.mpi != null and (.meta.runs[0].command_line | test("ops"))'
check "2 ranks, lat: perftest-style table on stdout" grep -q 't_typical' "$tmp/lat2.out"
# the ports' MTUs are equal here: the path MTU is theirs
check "2 ranks, lat: effective.path_mtu is the ports' active MTU" nm_jq lat2 '[.meta.runs[0] | .. | objects | .active_mtu? | numbers] as $m | ($m | length) > 0 and all(.points[]; .effective.path_mtu == ($m | min))'

# 2. every op, windowed, 3 ranks x 2 threads, everyone to everyone (incl. loopback)
nm_run bw3 3 --op read,write,cas,faa --mode bw -t 16 -Q 4 -T 2 --initiators all --targets all -n 400
check "3 ranks x 2 threads, bw, all-to-all: exit 0" [ "$(nm_rc bw3)" = 0 ]
check "3 ranks x 2 threads, bw: all points valid" nm_jq bw3 '(.points | length) == 4 and all(.points[]; .valid)'
check "3 ranks x 2 threads, bw: throughput reported" nm_jq bw3 'all(.points[]; .metrics.ops_per_sec > 0 and .metrics.mib_per_sec > 0)'
check "3 ranks x 2 threads, bw: FAA total exact (6 threads x 440 ops)" nm_jq bw3 '.points[] | select(.params.op == "faa") | .checks.faa_counters.total_added == 2640 and .checks.faa_counters.ok'
check "3 ranks x 2 threads, bw: CAS words equal swaps issued" nm_jq bw3 '.points[] | select(.params.op == "cas") | .checks.data.checked == 18 and .checks.data.mismatches == 0'

# 3. four ranks hammer one FAA counter (contention on one word)
nm_run faa4 4 --op faa --initiators all --targets 0 -n 250 --warmup 0
check "4 ranks on one counter: exact FAA total (1000)" nm_jq faa4 '.points[0].valid and .points[0].checks.faa_counters.total_added == 1000'

# 4. loopback through the NIC on a single rank, several sizes and 2 QPs
nm_run self1 1 --op read,write --targets self -s 8,4k,64k -q 2 -n 50
check "1 rank loopback, sizes and 2 QPs: all valid" nm_jq self1 '(.points | length) == 6 and all(.points[]; .valid)'

# 5. the checks catch damage: every point is recorded invalid and the job
#    fails (one job for the four kinds: the sweep goes on after an invalid point)
nm_run inj 2 --op read,write,cas,faa -n 50 --inject corrupt
for op in read write cas faa; do
	check "injected $op damage: exit 1 and point invalid" nm_rc_jq inj 1 "[.points[] | select(.params.op == \"$op\") | .valid] == [false]"
done

# 6. a failed completion names rank, peer and operation and ends the job
nm_run rkey 2 --op read -n 20 --inject rkey
check "wrong rkey: job fails naming rank, peer and op" sh -c "[ \"$(nm_rc rkey)\" != 0 ] && grep -q 'rank 0 .*READ to rank 1 failed' $tmp/rkey.err"

# 7. resume: finished points are kept and skipped
nm_run res 2 --op read -s 8,16,32 -n 20
jq 'del(.points[2]) | del(.summary[2])' "$tmp/res.json" >"$tmp/cut.json" && mv "$tmp/cut.json" "$tmp/res.json"
$MPI -np 2 $N ops --output "$tmp/res.json" --op read -s 8,16,32 -n 20 --resume >/dev/null 2>"$tmp/res2.err"
check "resume: reruns only the missing point" sh -c "grep -q '1 point(s) run, 2 resumed' $tmp/res2.err && jq -e '(.points | length) == 3 and (.meta.runs | length) == 2' $tmp/res.json"
# what does not change the measurement may differ on a resume: another
# --timeout continues the document, and each run records its own (no
# --progress=false here: the "point(s) run" line is progress's)
jq -c .points "$tmp/res.json" >"$tmp/res-points.before"
$MPI -np 2 $N ops --output "$tmp/res.json" --op read -s 8,16,32 -n 20 --timeout 45 --resume >/dev/null 2>"$tmp/res3.err"
check "resume with another --timeout: accepted, nothing rerun, each run's timeout recorded" sh -c "grep -q '0 point(s) run, 3 resumed' $tmp/res3.err && [ \"\$(jq -c .points $tmp/res.json)\" = \"\$(cat $tmp/res-points.before)\" ] && jq -e '(.meta.runs | length) == 3 and .meta.runs[0].options.timeout == 30 and .meta.runs[2].options.timeout == 45' $tmp/res.json"
expect_usage "existing output without --resume" $MPI -np 2 $N ops $Q --output "$tmp/res.json" --op read -s 8,16,32 -n 20
expect_usage "resume with another configuration" $MPI -np 2 $N ops $Q --output "$tmp/res.json" --op write -n 20 --resume
# one document holds one NIC: the same job resumed on another firmware is refused
jq '.meta.runs[-1].ranks[0].nic.fw_ver = "1.2.3"' "$tmp/res.json" >"$tmp/res-fw.json"
expect_usage "resume on a NIC of other firmware" $MPI -np 2 $N ops $Q --output "$tmp/res-fw.json" --op read -s 8,16,32 -n 20 --resume

# 8. repetitions: summary holds the geometric mean (at a path MTU asked below the ports')
nm_run reps 2 --op read -n 50 --reps 3 --mtu 512
check "3 repetitions: 3 points, one summary entry" nm_jq reps '(.points | length) == 3 and (.summary | length) == 1 and .summary[0].reps == 3 and .summary[0].geomean["lat.p50"] > 0'
check "--mtu 512: effective.path_mtu 512 on every point" nm_jq reps 'all(.points[]; .effective.path_mtu == 512)'

# 9. a whole sweep from a config file
cat >"$tmp/sweep.json" <<JSON
{"experiment": "ops", "description": "small sweep",
 "params": {"op": ["read", "faa"], "mode": ["lat", "bw"], "iters": 100, "output": "$tmp/cfg.json", "progress": false}}
JSON
$MPI -np 2 $N run "$tmp/sweep.json" >/dev/null 2>"$tmp/cfg.err"
check "netmem run CONFIG: 4 points, all valid" jq -e '(.points | length) == 4 and all(.points[]; .valid)' "$tmp/cfg.json"

# 10. device-level bad input, from rank 0 only
NM_USAGE_ERR=$tmp/nodev.err expect_usage "device that does not exist" $MPI -np 2 $N ops -d mlx9_9
check "missing device lists the available ones" grep -q 'available: rxe0' "$tmp/nodev.err"
expect_usage "port that does not exist" $MPI -np 2 $N ops -i 3
# a window the device's send queues cannot hold (a window and 2: above
# rxe's max_qp_wr, 1048576 on Linux 6.1, 16384 before), in the sweep's
# second point: refused before the first point runs
NM_USAGE_ERR=$tmp/txd.err expect_usage "--tx-depth above max_qp_wr" \
	$MPI -np 2 $N ops $Q --output "$tmp/txd.json" --mode bw -t 16,1048576 -n 20
check "--tx-depth above max_qp_wr: the line names the option, max_qp_wr and the device, and no document was written" \
	sh -c "grep -q '^netmem: host .*: --tx-depth 1048576 needs send queues of 1048578 entries, rxe0 allows [0-9]* (max_qp_wr) (point 2 of 2' $tmp/txd.err && ! [ -e $tmp/txd.json ]"
check "netmem info lists the device and its RoCEv2 GID" sh -c "$N info | jq -e '.devices[0].ports[0].gids | map(.type) | index(\"RoCEv2\") != null'"
t_summary
