#!/bin/sh
# netmem kv (LOCO Fig. 5) on real verbs (Soft-RoCE): LOCO's kvstore and the
# Sherman- and Scythe-style variants at 3 nodes (ranks) x 2 threads, read-heavy and
# write-heavy, uniform and Zipfian, small and large windows; inserts and
# deletes through the tracker; the fence on and off; the history file; and
# the checks firing on injected faults (a release before the write lands, a
# skipped checksum with a value written in two halves). The Redis baseline
# has its own test (test_kv_redis.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup kv
K="-T 2 -K 2048"

# 1. the verbs stores, read-heavy (YCSB B) and write-only, uniform and Zipfian
nm_run grid 3 $K --system loco,sherman,scythe -w b,write-only --dist uniform,zipfian -n 150 --warmup 20
check "loco,sherman,scythe x b,write-only x uniform,zipfian: exit 0" [ "$(nm_rc grid)" = 0 ]
check "grid: 12 points, all valid" nm_jq grid '(.points | length) == 12 and all(.points[]; .valid)'
check "grid: 6 threads x 150 measured operations per point" nm_jq grid 'all(.points[]; .metrics.ops == 900)'
check "grid: no torn, foreign or regressed read; store scan clean" nm_jq grid 'all(.points[]; .checks.reads.ok and .checks.store.ok)'
check "grid: gets and updates have their own latency" nm_jq grid 'all(.points[] | select(.params.workload == "b" and .params.system != "scythe"); .metrics.lat_by_op.get.count > 0 and .metrics.lat_by_op.update.count > 0)'
check "grid: the Scythe-style store writes by inserts only, each a new version" nm_jq grid '[.points[] | select(.params.system == "scythe")] | length == 4 and all(.[]; .metrics.updates == 0 and .metrics.inserts > 0 and (.effective.write_path | startswith("insert")))'
check "grid: write-only does no get, and misses nothing (keys are prefilled)" nm_jq grid 'all(.points[] | select(.params.workload == "write-only"); .metrics.gets == 0 and .metrics.misses == 0)'
check "grid: every update fenced (fence on by default)" nm_jq grid 'all(.points[] | select(.params.workload == "write-only" and .params.system == "loco"); .metrics.fences > 0 and .metrics.fences <= .metrics.updates)'
check "grid: the Sherman-style lookups read a leaf of 16 entries" nm_jq grid '[.points[] | select(.params.system == "sherman")] | length == 4 and all(.[]; .effective.leaf_entries == 16)'
check "grid: key hash recorded (xxHash)" nm_jq grid 'all(.points[]; .effective.key_hash | test("XXH64"))'

# 2. LOCO's inserts and deletes through the tracker, window 8, hot keys
nm_run churn 3 $K --system loco --dist zipfian --mix read=0.5,update=0.3,insert=0.2 --delete-ratio 0.3 -W 8 -n 200 --warmup 20
check "loco inserts and deletes: exit 0, valid" nm_rc_jq churn 0 '.points[0].valid'
check "churn: inserts and deletes ran, every other node applied them" nm_jq churn '.points[0].metrics | .inserts > 0 and .deletes > 0 and .tracker_applied > 0'
check "churn: insert acknowledgement latency recorded" nm_jq churn '.points[0].metrics.insert_ack_us > 0'
check "churn: the store scan is clean after deletes freed slots" nm_jq churn '.points[0].checks.store.ok'

# 3. the large window and the fence off
nm_run win 3 $K --system loco,sherman -w mixed --dist zipfian -W 128 -n 300 --warmup 10
check "window 128, Zipfian: both valid" nm_jq win '(.points | length) == 2 and all(.points[]; .valid and .effective.window == 128)'
nm_run nofence 3 $K --system loco,sherman -w write-only --fence=0 -n 150 --warmup 10
check "--fence=0: valid, and no fence posted" nm_jq nofence 'all(.points[]; .valid and .metrics.fences == 0 and .effective.fence == false)'

# 4. the history of a short contended run (16 keys, hot ones), both stores
#    in one file (a header line per point): one JSON line per operation,
#    warm-up included, each write's own value; netmem kv-check's verdict
#    on each point. One operation in flight per thread (-W 1): with 3 in
#    flight, a hot key's operations overlap up to 18 deep and its search
#    grows with every subset of them (seen: 803,207 states and 163 s for
#    LOCO's point in a loaded guest, against about 1,200 for the others)
nm_run hist 3 -T 2 -K 16 --system loco,sherman,scythe -w mixed --dist zipfian -n 60 --warmup 5 -W 1 --history "$tmp/h.jsonl"
check "history: 3 points x (a header + 6 threads x 65 operations), one JSON object per line" sh -c "[ \$(wc -l <$tmp/h.jsonl) = 1173 ] && jq -se '(map(select(.history)) | length) == 3 and (map(select(.op)) | length == 1170 and all(.[]; (.op | IN(\"get\",\"update\",\"insert\")) and (.key | test(\"^0x[0-9a-f]{16}$\")) and .response_ns >= .invoke_ns and (.rank | IN(0,1,2))))' $tmp/h.jsonl >/dev/null"
check "history: every point checked its own history (linearizable, point valid)" nm_jq hist '(.points | length) == 3 and all(.points[]; .valid and .checks.history.verdict == "linearizable")'
echo "# the points' own history checks (states, seconds): $(jq -c '[.points[].checks.history | [.states, .check_s]]' "$tmp/hist.json" 2>/dev/null)"
check "history: every write records what it wrote (its writer, a version from 1)" jq -se '[.[] | select((.op == "update" or .op == "insert") and .found)] | length > 0 and all(.[]; .writer == .rank * 256 + .thread and .version >= 1 and .value != "0x0000000000000000")' "$tmp/h.jsonl"
# One file per point (a header line starts each); each correct run's
# history must be linearizable (kv-check exits 0 with one line); the
# injected faults below must not be.
awk -v d="$tmp" '/"history":/ { match($0, /"system":"[a-z]*"/); f = d "/h-" substr($0, RSTART + 10, RLENGTH - 11) ".jsonl" } { print > f }' "$tmp/h.jsonl"
for s in loco sherman scythe; do
	if $N kv-check "$tmp/h-$s.jsonl" >"$tmp/h-$s.chk" 2>&1 && grep -q ', linearizable$' "$tmp/h-$s.chk"; then
		ok "$s history: kv-check finds it linearizable"
	else
		notok "$s history: kv-check finds it linearizable: $(head -c 600 "$tmp/h-$s.chk")"
	fi
done
# A value word is tag(16) | writer(16) | version(32), the tag the XOR of the
# key's four 16-bit groups (kv_key_tag in workloads/kv/kv_core.h); jq has no XOR.
cat >"$tmp/tag.jq" <<'JQ'
def hex: ascii_downcase | explode | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
def bit($x; $i): ($x / pow(2; $i) | floor) % 2;
def xor16($a; $b): reduce range(16) as $i (0; . + (if bit($a; $i) != bit($b; $i) then pow(2; $i) else 0 end));
def tag: .[2:] as $h | reduce ($h[0:4], $h[4:8], $h[8:12], $h[12:16]) as $g (0; xor16(.; $g | hex));
[.[] | select(.op == "get" and .found)] | length > 0 and all(.[]; (.value[2:6] | hex) == (.key | tag))
JQ
check "history: every found get returns a value of its key's tag" jq -se -f "$tmp/tag.jq" "$tmp/h.jsonl"

# A resumed job continues the history file: the document without its last
# point (a job stopped before it), --resume runs that point again and
# appends its history to the file (3 headers before: 4 after; a fresh start
# would leave 1). The same --history path, as a resume must run the same
# configuration (the file's other checks are done). tests/unit/test_kv_history.c
# checks the file handling alone.
jq 'del(.points[2])' "$tmp/hist.json" >"$tmp/hres.json"
nm_run hres 3 -T 2 -K 16 --system loco,sherman,scythe -w mixed --dist zipfian -n 60 --warmup 5 -W 1 --history "$tmp/h.jsonl" --resume
if [ "$(nm_rc hres)" = 0 ] && [ "$(grep -c '"history":"netmem kv"' "$tmp/h.jsonl")" = 4 ]; then
	ok "history on --resume: appended, the earlier points' history kept"
else
	notok "history on --resume: appended, the earlier points' history kept ($(grep -c '"history":"netmem kv"' "$tmp/h.jsonl") headers)"
	nm_diag hres
	# a refused resume names the key that differs: what each side held
	echo "#   spec.history: asked \"$tmp/h.jsonl\", hist.json $(jq -c .spec.history "$tmp/hist.json" 2>&1), hres.json $(jq -c .spec.history "$tmp/hres.json" 2>&1)"
fi

# 5. the checks fire whatever the schedule: a write landing after its lock's
#    release (the writer's own first look after returning sees either the
#    value from before its update or a later writer's, which its late write
#    then overwrites: the point's history check finds it either way), a
#    value written in two halves and read back without checksums
for s in loco sherman scythe; do
	nm_run late$s 3 -T 2 -K 16 --system $s -w mixed --dist zipfian -W 4 -n 400 --warmup 10 --inject early-release --history "$tmp/late$s.jsonl"
	check "$s --inject early-release: invalid, the point's own history check found what kv-check finds" nm_jq late$s '(.points[0].valid | not) and .points[0].checks.history.verdict == "not linearizable" and (.points[0].checks.history.why | test("not linearizable"))'
	check "$s --inject early-release: kv-check exits 1 with one line naming a key" sh -c "$N kv-check $tmp/late$s.jsonl >$tmp/late$s.chk; [ \$? = 1 ] && [ \$(wc -l <$tmp/late$s.chk) = 1 ] && grep -q 'key 0x[0-9a-f]* is not linearizable' $tmp/late$s.chk"
	nm_run torn$s 3 -T 2 -K 16 --system $s -w mixed --dist zipfian -W 4 -n 400 --warmup 10 --value-size 32 --inject no-checksum
	check "$s --inject no-checksum: invalid, torn reads found" nm_jq torn$s '(.points[0].valid | not) and .points[0].checks.reads.torn > 0'
done
check "an invalid point ends the job with exit 1" [ "$(nm_rc lateloco)" = 1 ]

# 6. Sherman's HOCL. One lock word for every leaf (--lock-table 1) and one
#    thread with 4 operations in flight: the window's first pass starts all
#    four before any completion is polled, so three wait on the local lock
#    when the first releases: a hand-over by construction, not by schedule.
#    With --hand-over 1 none may happen. Soft-RoCE has no device memory: auto
#    puts the tables in host memory and says why; device is refused.
nm_run hocl 2 -T 1 -K 64 --system sherman -w write-only --dist zipfian -W 4 -n 300 --warmup 10 --lock-table 1 --hand-over 8,1
check "sherman --lock-table 1: both points valid, store and lock table clean after" nm_jq hocl '(.points | length) == 2 and all(.points[]; .valid and .checks.store.ok)'
check "sherman, 4 in flight on one lock word: locks handed over locally (by construction)" nm_jq hocl '.points[] | select(.params.hand_over == 8) | .metrics.lock_hand_overs > 0'
check "sherman --hand-over 1: no hand-over, every holder takes the lock remotely" nm_jq hocl '.points[] | select(.params.hand_over == 1) | .metrics.lock_hand_overs == 0 and .effective.hand_over == 1'
check "sherman on Soft-RoCE: lock tables in host memory, and why (no device memory)" nm_jq hocl 'all(.points[]; .effective.lock_memory == "host" and .effective.lock_memory_device_nodes == 0 and (.effective.lock_memory_why | test("device memory")) and .effective.lock_table == 1)'
echo "# sherman hand-overs: $(jq -c '[.points[] | {hand_over: .params.hand_over, lock_hand_overs: .metrics.lock_hand_overs, lock_retries: .metrics.lock_retries}]' "$tmp/hocl.json" 2>/dev/null)"
nm_run dm 2 -T 1 -K 64 --system sherman -n 10 --lock-memory device
check "sherman --lock-memory device on Soft-RoCE: exit 2, one line (from rank 0 only) naming the option and the device memory" sh -c "[ \"\$(cat $tmp/dm.rc)\" = 2 ] && [ \$(grep -c -- '--lock-memory device: .*device memory' $tmp/dm.err) = 1 ]"
# 7. The Scythe-style store by RPC over RDMA WRITE (kv_scythe.c): every
#    operation is served by a node's server thread (server_requests counts
#    the requests: one per operation at least); inserts take no lock;
#    --scythe-write update queues on the takeout lock. One thread with 4
#    operations in flight on one key: the window's first pass sends all four
#    lock requests in one bucket, served in order, so at most one is served
#    at once and the others wait for their ticket (each polls it once before
#    the first holder's write is even sent) or are refused: lock retries by
#    construction. Then the injected faults on the update path (the insert
#    path's run in section 5).
nm_run sc 2 -T 1 -K 1 --prefill 1 --system scythe --scythe-write insert,update -w write-only -W 4 -n 200 --warmup 10
check "scythe insert and update on one key: both points valid, every object unlocked and whole after" nm_jq sc '(.points | length) == 2 and all(.points[]; .valid and .checks.store.ok)'
check "scythe: every operation by RPC to a server thread (server_requests >= operations)" nm_jq sc 'all(.points[]; .metrics.server_requests >= .metrics.ops and .effective.server_threads_per_node == 1 and .effective.rpc_batch == 10)'
check "scythe --scythe-write update: updates only, on the takeout lock" nm_jq sc '.points[] | select(.params.scythe_write == "update") | .metrics.updates > 0 and .metrics.inserts == 0 and (.effective.write_path | startswith("update"))'
check "scythe update, 4 in flight on one key: tickets waited for or refused (by construction)" nm_jq sc '.points[] | select(.params.scythe_write == "update") | .metrics.lock_retries > 0'
# The four read the key in one bucket before any of them locks it: whichever
# validates second finds the first one's write (or the first aborted): an
# abort by construction.
check "scythe update: validation under the lock aborted a transaction whose read a write overtook (by construction)" nm_jq sc '.points[] | select(.params.scythe_write == "update") | .metrics.aborts > 0'
check "scythe insert: no lock taken, none waited for" nm_jq sc '.points[] | select(.params.scythe_write == "insert") | .metrics.lock_retries == 0 and .metrics.inserts > 0'
echo "# scythe on one key: $(jq -c '[.points[] | {w: .params.scythe_write, ops: .metrics.ops, requests: .metrics.server_requests, lock_retries: .metrics.lock_retries, read_retries: .metrics.read_retries, aborts: .metrics.aborts}]' "$tmp/sc.json" 2>/dev/null)"
nm_run scl 3 -T 2 -K 16 --system scythe --scythe-write update -w mixed --dist zipfian -W 4 -n 400 --warmup 10 --inject early-release --history "$tmp/scl.jsonl"
check "scythe update --inject early-release: invalid, the point's own history check found it" nm_jq scl '(.points[0].valid | not) and .points[0].checks.history.verdict == "not linearizable"'
nm_run sct 3 -T 2 -K 16 --system scythe --scythe-write update -w mixed --dist zipfian -W 4 -n 400 --warmup 10 --value-size 32 --inject no-checksum
check "scythe update --inject no-checksum: invalid, torn reads found" nm_jq sct '(.points[0].valid | not) and .points[0].checks.reads.torn > 0'
t_summary
