#!/bin/sh
# netmem preflight on real verbs (Soft-RoCE): one job over several check-scale
# configs finds that they fit, and refuses a config too large for the
# guest's device (max_qp), a bw window above its max_qp_wr, one that needs
# ODP on a kernel without it and the NUMA matrix on a guest of one node; a
# kv run of each verbs store creates the QPs and registers the bytes
# preflight predicted for it; a job with
# locked memory lowered and CAP_IPC_LOCK dropped refuses on RLIMIT_MEMLOCK,
# and the run it refused does fail there. Four mpiruns: the integration lane
# is time-limited.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup preflight

# 8 ranks x 256 threads x 64 QPs, everyone to everyone: about 2.1 million QPs
# on the one guest's rxe0, above its max_qp (1048560); never built.
cat >"$tmp/big.json" <<'EOF'
{"experiment": "ops", "ranks": 8,
 "params": {"op": "read", "threads": 256, "qp": 64, "initiators": "all", "targets": "all", "iters": 10}}
EOF
# A bw window the device's send queues cannot hold (a window and 2: above
# rxe's max_qp_wr, 1048576 on Linux 6.1): the job refuses it before its
# first point (test_ops.sh), and preflight says the same.
cat >"$tmp/txd.json" <<'EOF'
{"experiment": "ops", "params": {"op": "read", "mode": "bw", "tx_depth": 1048576, "iters": 10}}
EOF
# One READ slot of 1 MiB per rank: 2 MiB or more registered, above 1 MiB.
cat >"$tmp/mem.json" <<'EOF'
{"experiment": "ops", "params": {"op": "read", "size": 1048576, "iters": 10}}
EOF
# One point of each kv verbs store, -T 2 on 2 ranks: preflight's peak per
# store, and the run's (kv.json) effective.qps_per_node and registered_bytes.
stores="loco sherman scythe"
kvp='"threads": 2, "keys": 1024, "workload": "mixed", "iters": 20, "warmup": 2'
for s in $stores; do
	echo "{\"experiment\": \"kv\", \"ranks\": 2, \"params\": {\"system\": \"$s\", $kvp}}" >"$tmp/kv-$s.json"
done
echo "{\"experiment\": \"kv\", \"ranks\": 2, \"params\": {\"system\": [\"loco\", \"sherman\", \"scythe\"], $kvp}}" >"$tmp/kv-all.json"
fits="ops-lat ops-bw ops-atomic-lat alock-fig1 barrier txn-locks loco-fig7 clover-skew loco-fig5 loco-fig5-fence"
cfgs=""
for c in $fits numa-matrix corm-fig8; do cfgs="$cfgs configs/check/$c.json"; done
for s in $stores; do cfgs="$cfgs $tmp/kv-$s.json"; done

$MPI -np 2 $N preflight --json "$tmp/pf.json" $cfgs "$tmp/big.json" "$tmp/txd.json" >"$tmp/pf.out" 2>"$tmp/pf.err"
echo $? >"$tmp/pf.rc"
check "some configs do not fit: exit 1" [ "$(nm_rc pf)" = 1 ]
for c in $fits; do
	check "$c fits, with an expected time" nm_jq pf ".configs[] | select(.config == \"configs/check/$c.json\") | .verdict == \"fits\" and .expected_seconds > 0"
done
check "every family of these configs declares its needs: none not checked" nm_jq pf 'all(.configs[]; .verdict != "not_checked")'
# loco-fig5 sweeps its node count ("ranks": [2, 3]): the peak is the largest job's
check "loco-fig5: the 3-rank job with LOCO at -T 2 is the peak, 18 QPs a rank (3 mesh threads with the tracker's x 3 ranks, both ends), 54 on the one NIC, one MR, atomics" nm_jq pf '.configs[] | select(.config | endswith("loco-fig5.json")) | .ranks == 3 and .peak.qps_per_rank == 18 and .peak.qps_per_nic == 54 and .peak.mrs_per_rank == 1 and .peak.atomics'
if [ "$(jq -r '.ranks[0].numa_nodes' "$tmp/pf.json" 2>/dev/null)" = 1 ]; then
	check "numa-matrix on one NUMA node: does not fit, naming the two nodes it needs" nm_jq pf '.configs[] | select(.config | endswith("numa-matrix.json")) | .verdict == "does_not_fit" and (.reason | test("needs 2 NUMA nodes")) and .peak.qps_per_rank == 0 and .peak.mrs_per_rank == 0'
else
	check "numa-matrix on two NUMA nodes: fits, with no verbs resources" nm_jq pf '.configs[] | select(.config | endswith("numa-matrix.json")) | .verdict == "fits" and .peak.qps_per_rank == 0 and .peak.mrs_per_rank == 0'
fi
check "too many QPs: does not fit, naming the host and max_qp" nm_jq pf '.configs[] | select(.config | endswith("big.json")) | .verdict == "does_not_fit" and (.reason | test("host .*max_qp"))'
check "too many QPs: the peak is the mesh's (2,097,152 QPs per NIC: 8 ranks x 8 peers x 256 threads x 64 QPs, both ends)" nm_jq pf '.configs[] | select(.config | endswith("big.json")) | .peak.qps_per_nic == 2097152'
check "--tx-depth 1048576: does not fit, naming the option, the device and max_qp_wr, as the job's own refusal does" nm_jq pf '.configs[] | select(.config | endswith("txd.json")) | .verdict == "does_not_fit" and (.reason | test("--tx-depth 1048576 needs send queues of 1048578 entries, rxe0 allows [0-9]+ \\(max_qp_wr\\)"))'
if [ "$(jq -r '.ranks[0].odp_rc' "$tmp/pf.json" 2>/dev/null)" = false ]; then
	check "ODP config on a kernel without ODP: does not fit" nm_jq pf '.configs[] | select(.config | endswith("corm-fig8.json")) | .verdict == "does_not_fit" and (.reason | test("on-demand paging"))'
else
	check "ODP config on a kernel with ODP: fits" nm_jq pf '.configs[] | select(.config | endswith("corm-fig8.json")) | .verdict == "fits"'
fi
check "every rank's limits: device, max_qp, memlock, NUMA, disk, clock" nm_jq pf '(.ranks | length) == 2 and all(.ranks[]; .device == "rxe0" and .max_qp > 0 and .memlock_bytes != null and .numa_nodes >= 1 and .disk_free_bytes > 0 and (.clock_offset_s | fabs) < 0.1)'
check "the clocks agree, and the time model's formula is in the document" nm_jq pf '.clocks_agree and (.time_model.formula | test("reps"))'
check "stdout: a line per config, the refusal in capitals" sh -c "for c in $fits; do grep -q \"configs/check/\$c.json: fits, expected\" $tmp/pf.out || exit 1; done; grep -q 'big.json: DOES NOT FIT' $tmp/pf.out"

# What a kv run of each store creates, against what preflight said.
$MPI -np 2 $N run "$tmp/kv-all.json" $Q --output "$tmp/kv.json" >"$tmp/kv.out" 2>"$tmp/kv.err"
echo $? >"$tmp/kv.rc"
check "kv run of loco, sherman, scythe at -T 2: exit 0, every point valid" nm_rc_jq kv 0 '(.points | length) == 3 and all(.points[]; .valid)'
for s in $stores; do
	said=$(jq -c --arg c "$tmp/kv-$s.json" '.configs[] | select(.config == $c) | [.peak.qps_per_rank, .peak.pinned_bytes_per_rank]' "$tmp/pf.json")
	made=$(jq -c --arg s "$s" '.points[] | select(.params.system == $s) | [.effective.qps_per_node, .effective.registered_bytes]' "$tmp/kv.json")
	check "kv $s: the run's QPs and registered bytes are preflight's ($made, predicted $said)" [ "${said:-none}" = "$made" ]
done

# Locked memory: root holds CAP_IPC_LOCK, which lifts RLIMIT_MEMLOCK; drop
# it, lower the limit to 1 MiB, and the 2 MiB point is refused; its run fails.
lowmem="setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock sh -c"
$lowmem "ulimit -l 1024; exec $MPI -np 2 $N preflight --json $tmp/mem.json.pf $tmp/mem.json" >"$tmp/mem.out" 2>&1
echo $? >"$tmp/memrc"
check "memlock 1 MiB without CAP_IPC_LOCK: nothing fits, exit 2" [ "$(cat "$tmp/memrc")" = 2 ]
check "memlock: the reason names RLIMIT_MEMLOCK and ulimit -l" sh -c "grep -q 'DOES NOT FIT.*RLIMIT_MEMLOCK.*ulimit -l' $tmp/mem.out"
$lowmem "ulimit -l 1024; exec $MPI -np 2 $N run $tmp/mem.json $Q --output $tmp/memrun.json" >"$tmp/memrun.out" 2>&1
check "memlock: the refused config does fail when run under the same limit" [ $? != 0 ]
t_summary
