#!/bin/sh
# Bad input the experiments refuse while decoding their options, before any
# device is opened: one line from rank 0, exit 2. It needs no RDMA device, so
# it runs on the host (in the emulated guest each mpirun costs seconds); the
# checks of the same experiments on real verbs are in tests/integration.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpirun --oversubscribe --bind-to none"
Q="--progress=false"

# lock (ALock, the MCS and spin locks, LOCO's ticket lock, MPI's)
expect_usage "lock: more nodes than ranks" $MPI -np 2 $N lock $Q --nodes 3
expect_usage "lock: p_local above 100" $MPI -np 2 $N lock $Q -p 101
expect_usage "lock: budget below 1" $MPI -np 2 $N lock $Q --local-budget 0
expect_usage "lock: unknown lock name" $MPI -np 2 $N lock $Q --lock bakery
expect_usage "lock: empty section without validation" $MPI -np 2 $N lock $Q --validate 0
expect_usage "lock: mpi lock with -T 2" $MPI -np 2 $N lock $Q --lock mpi -T 2 -n 10
expect_usage "lock: --contend not HR.HT-WR.WT" $MPI -np 2 $N lock $Q --contend 0.0
expect_usage "lock: --contend one thread as holder and waiter" $MPI -np 2 $N lock $Q --contend 1.0-1.0
expect_usage "lock: --contend naming a rank the point does not run" $MPI -np 2 $N lock $Q --contend 0.0-2.0
expect_usage "lock: --contend naming a thread the point does not run" $MPI -np 2 $N lock $Q -T 2 --contend 0.0-0.2
expect_usage "lock: --contend with the mpi lock" $MPI -np 2 $N lock $Q --lock mpi --contend 0.0-1.0
expect_usage "lock: --inject race and --contend together" $MPI -np 2 $N lock $Q --inject race --contend 0.0-1.0
expect_usage "lock: --inject race with no thread to race with" $MPI -np 1 $N lock $Q -T 1 --inject race

# NUMA placement (ops)
expect_usage "ops: --buf-node with a word that is no placement" $MPI -np 2 $N ops $Q --buf-node nicc
expect_usage "ops: --cpu-node beyond 1023" $MPI -np 2 $N ops $Q --cpu-node 2000
expect_usage "ops: --mem-node together with --buf-node" $MPI -np 2 $N ops $Q --mem-node 0 --buf-node nic
expect_usage "ops: --inject misplace without --buf-node" $MPI -np 2 $N ops $Q --inject misplace

# barrier and txn (LOCO)
expect_usage "barrier: --nodes 5 with 4 ranks" $MPI -np 4 $N barrier $Q --nodes 5 -n 10
expect_usage "txn: more nodes than 6 ranks hold at 2 per node" $MPI -np 6 $N txn $Q --ranks-per-node 2 -N 4 -n 5
expect_usage "txn: mpi with 7 workers per node on 6 ranks (detected: one node of 6)" \
	$MPI -np 6 $N txn $Q --lock mpi -T 7 -n 5

# control (LOCO Fig. 7)
expect_usage "control: a run shorter than 20 controller periods" $MPI -np 2 $N control $Q --period-us 100 -D 0.001
expect_usage "control: --inject wrong-slot with one converter" $MPI -np 2 $N control $Q --inject wrong-slot
expect_usage "control: -T 2 (one loop per rank)" $MPI -np 2 $N control $Q -T 2

# clover (Clover's store; traces in its numeric form)
printf '0 1\n7 2\nscan 3 4\n' >"$tmp/scan.trace"
printf '0 1\nfoo 2\n' >"$tmp/bad.trace"
expect_usage "clover: a trace with an unknown op" $MPI -np 4 $N clover $Q -n 10 --trace "$tmp/bad.trace"
expect_usage "clover: a trace with a scan" $MPI -np 4 $N clover $Q -n 10 --trace "$tmp/scan.trace"
expect_usage "clover: no room for a memory node" $MPI -np 2 $N clover $Q -n 10
expect_usage "clover: zero keys" $MPI -np 4 $N clover $Q -K 0 -n 10
expect_usage "clover: theta out of range" $MPI -np 4 $N clover $Q --theta 0 -n 10
expect_usage "clover: --path forward with the forwarder's host shared" $MPI -np 5 $N clover $Q --path forward -n 10
expect_usage "clover: --path forward without room for the forwarder" $MPI -np 3 $N clover $Q --path forward -n 10
expect_usage "clover: an unknown --path" $MPI -np 4 $N clover $Q --path sideways -n 10
# netmem kv-check (no MPI, no device): a missing or malformed history
expect_usage "kv-check: no file named" $N kv-check
expect_usage "kv-check: a file that is not there" $N kv-check "$tmp/none.jsonl"
printf '{"rank":0,"op":"get"}\n' >"$tmp/nohdr.jsonl"
expect_usage "kv-check: no history header" $N kv-check "$tmp/nohdr.jsonl"
printf '{"history":"netmem kv","system":"loco","prefill":4}\n{"op":"get","key":"0x1","found":true,"value":"zz","invoke_ns":1,"response_ns":2}\n' >"$tmp/badval.jsonl"
expect_usage "kv-check: a value that is not hex" $N kv-check "$tmp/badval.jsonl"
printf '{"history":"netmem kv","system":"loco","prefill":4}\n{"op":"get","key":"0x1","found":true,"value":"0x1","invoke_ns":5,"response_ns":2}\n' >"$tmp/badtime.jsonl"
expect_usage "kv-check: a response before its invocation" $N kv-check "$tmp/badtime.jsonl"
printf '{"history":"netmem kv","system":"loco","prefill":4}\nnot json\n' >"$tmp/notjson.jsonl"
expect_usage "kv-check: a line that is not JSON" $N kv-check "$tmp/notjson.jsonl"
# preflight: its command line and configs are read before any device opens
echo '{"experiment": "nosuch", "params": {}}' >"$tmp/nosuch.json"
expect_usage "preflight: no config named" $MPI -np 2 $N preflight
expect_usage "preflight: unknown option" $MPI -np 2 $N preflight --bogus configs/check/ops-lat.json
expect_usage "preflight: --np 0" $MPI -np 2 $N preflight --np 0 configs/check/ops-lat.json
expect_usage "preflight: a config that does not exist" $MPI -np 2 $N preflight configs/check/ops-lat.json "$tmp/none.json"
expect_usage "preflight: a config naming no experiment" $MPI -np 2 $N preflight "$tmp/nosuch.json"
# netmem run CONFIG and run --check CONFIG: the file is read, parsed and
# every point decoded before any device opens (--check opens none at all).
# expect_check "what" ERE CONFIG: run --check refuses it in one line (on
# stdout, as its list of problems) matching ERE, exit 2; a FIFO or a device
# that hung it fails when the time is up.
expect_check() {
	out=$(timeout 20 $N run --check "$3" 2>&1); rc=$?
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s\n' "$out" | grep -Eq -- "$2"; then
		ok "$1: $out"
	else
		notok "$1: exit $rc: $(printf '%s' "$out" | head -c 600 | tr '\n' '|')"
	fi
}
cfg() { printf '{"experiment": "ops", "params": %s}' "$2" >"$tmp/$1.json"; }
cfg unknown-key '{"iters": 10, "bogus": 1}'
cfg iters-neg '{"iters": -1}'
cfg op-bogus '{"op": "bogus"}'
cfg mtu-1000 '{"mtu": [256, 1000]}'
cfg dup-key '{"iters": 10, "iters": 20}'
expect_check "run --check: an unknown param key (decoded as a run decodes it)" "unknown key 'bogus'" "$tmp/unknown-key.json"
expect_check "run --check: iters -1" "'iters': -1 is below the minimum" "$tmp/iters-neg.json"
expect_check "run --check: an op that is none" "'op': 'bogus' is not one of" "$tmp/op-bogus.json"
expect_check "run --check: a swept MTU of 1000 (each point decoded)" "--mtu: 1000 is not one of .*at point" "$tmp/mtu-1000.json"
expect_check "run --check: a key given twice" "duplicate object key near '\"iters\"'" "$tmp/dup-key.json"
expect_usage_re "run: a key given twice" "duplicate object key near '\"iters\"'" $MPI -np 2 $N run "$tmp/dup-key.json" $Q
printf '{"experiment": "ops", "params": {}}\0GARBAGE' >"$tmp/nul.json"
expect_check "run --check: bytes after a NUL" "a NUL byte at offset 35" "$tmp/nul.json"
expect_usage_re "run: bytes after a NUL" "a NUL byte at offset 35" $MPI -np 2 $N run "$tmp/nul.json" $Q
mkfifo "$tmp/fifo.json"
expect_check "run --check: a FIFO" "fifo.json: not a regular file" "$tmp/fifo.json"
expect_usage_re "run: a FIFO" "fifo.json: not a regular file" timeout 20 $MPI -np 2 $N run "$tmp/fifo.json" $Q
expect_check "run --check: /dev/zero" "^/dev/zero: not a regular file" /dev/zero
{ printf '{"experiment": "ops", "params": {}}'; head -c 1048576 /dev/zero | tr '\0' ' '; } >"$tmp/big.json"
expect_check "run --check: a config above 1 MiB" "larger than 1048576 bytes \(1 MiB\)" "$tmp/big.json"
# 21 sizes x 10 depths x 48 QP counts: 10,080 points
cfg sweep '{"size": "1..1M", "tx_depth": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "qp": "1..32,3,5,6,7,9,10,11,12,13,14,15,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48"}'
expect_check "run --check: a sweep of 10,080 points" "10080 points, above the 10000 .* one per value of --qp \(48 values\)" "$tmp/sweep.json"
expect_usage_re "ops: a sweep of 10,080 points" "10080 points, above the 10000 one job may hold: split it" \
	$MPI -np 2 $N ops $Q --size 1..1M -t 1,2,3,4,5,6,7,8,9,10 --qp 1..32,3,5,6,7,9,10,11,12,13,14,15,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48
# a value's control characters are escaped: the one line stays one line
cfg ctl '{"op": "x\ny\u001b[31m"}'
expect_check "run --check: a newline and an escape in a value" "'op': 'x\\\\ny\\\\x1b\[31m' is not one of" "$tmp/ctl.json"
expect_usage_re "ops: a newline in --op" "--op: 'x\\\\ny' is not one of" $MPI -np 2 $N ops $Q --op "$(printf 'x\ny')"
expect_usage_re "a newline in the command's name" "unknown command 'bo\\\\ngus'" $N "$(printf 'bo\ngus')"
# before MPI_Init, each rank tells from the launcher's environment whether it is rank 0
expect_usage "an unknown command under mpirun: said once" $MPI -np 2 $N bogus
# Forced: rank 0 starts 3 s after rank 1, so rank 1 meets the refusal first.
# Were it to leave at once, mpirun would end rank 0 before it said anything.
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 0 ] && sleep 3\nexec "$@"\n' >"$tmp/late0"
chmod +x "$tmp/late0"
expect_usage_re "an unknown command, rank 0 started last: still said once, by rank 0" "^netmem: unknown command" $MPI -np 2 "$tmp/late0" $N bogus
# A rank other than 0 alone (its launcher's environment, no rank 0): it does
# not leave before the launcher could end it, and then says it itself.
OMPI_COMM_WORLD_RANK=1 $N bogus 2>"$tmp/alone.err" &
alone=$!
sleep 2
check "a rank other than 0 meeting a refusal waits for the launcher (still running after 2 s)" kill -0 "$alone"
kill "$alone" 2>/dev/null; wait "$alone" 2>/dev/null
check "... and has said nothing meanwhile" sh -c "! grep -q . '$tmp/alone.err'"
expect_usage "run without a config under mpirun: said once" $MPI -np 2 $N run
t_summary
