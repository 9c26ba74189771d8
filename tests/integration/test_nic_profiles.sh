#!/bin/sh
# A reservation rehearsed: the suite on Soft-RoCE wearing each ConnectX
# generation's personality (tests/nic/README.md: the profiles, and the
# LD_PRELOAD interposer that answers and refuses as the card does). Under
# each profile: ibv_devinfo shows the card's limits and capabilities;
# preflight's verdicts on small configs of every family and on a send queue
# between the card's limit and rxe's hold against the runs (every point of a
# config that fits is valid, or skipped with the device's reason (every
# family under cx3 and cx5, ops under cx4 and cx6); the queue
# the card cannot hold is refused before any point); CoRM's rereg strategy,
# which rxe alone lacks, runs end to end under cx3 and cx5: the clients read
# with the new rkey, nothing reads a freed block, and a READ refused under
# the old rkey is recovered and counted. Runs in the ODP lane: its kernel
# gives rxe the ODP the ConnectX-4 to -6 profiles report.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup run
# NETMEM_NICPROF_LIB: another build of the interposer, e.g. one broken on
# purpose, to see these checks fail (tests/README.md)
lib=${NETMEM_NICPROF_LIB:-$PWD/build/tests/libnicprof.so}
[ -e "$lib" ] || make -s build/tests/libnicprof.so >/dev/null 2>&1
dev=${NETMEM_RDMA_DEVICE:-$(nm_rdma_device)}
rxe_odp=no
ibv_devinfo -v -d "$dev" 2>/dev/null | sed -n '/rc_odp_caps/,/_odp_caps/p' | grep -q SUPPORT_READ && rxe_odp=yes
rxe_wr=$(ibv_devinfo -v -d "$dev" | sed -n 's/^[[:space:]]*max_qp_wr:[[:space:]]*//p')
BASE_MPI=$MPI

# A bw window of 20,000 (send queues of 20,002): above ConnectX-3's
# max_qp_wr (16,351), within ConnectX-4 to -6's (32,768) and rxe's.
cat >"$tmp/txd.json" <<'EOF'
{"experiment": "ops", "params": {"op": "read", "mode": "bw", "tx_depth": 20000, "iters": 40, "warmup": 0}}
EOF
families="ops-lat ops-atomic-lat alock-fig1 barrier txn-locks loco-fig5-fence loco-fig7 clover-skew"

# prof_val PROFILE KEY: the profile's value
prof_val() { sed -n "s/^$2[[:space:]]\{1,\}\([^[:space:]#]*\).*/\1/p" "tests/nic/$1.profile"; }

for p in cx3 cx4 cx5 cx6; do
	env="LD_PRELOAD=$lib NETMEM_NIC_PROFILE=$PWD/tests/nic/$p.profile"
	odp=$(prof_val $p odp)
	wr=$(prof_val $p max_qp_wr)
	[ "$wr" -lt "$rxe_wr" ] || wr=$rxe_wr
	if [ "$odp" = yes ] && [ "$rxe_odp" = no ]; then
		skip "$p: the runs" "the profile reports ODP, which rxe on kernel $(uname -r) lacks (the ODP lane's kernel has it)"
		continue
	fi
	env $env ibv_devinfo -v -d "$dev" >"$tmp/$p.devinfo" 2>&1
	check "$p: ibv_devinfo shows the card's max_qp_wr ($wr) and max_qp_rd_atom ($(prof_val $p max_qp_rd_atom))" sh -c \
		"grep -Eq '^[[:space:]]*max_qp_wr:[[:space:]]*$wr\$' $tmp/$p.devinfo &&
		 grep -Eq '^[[:space:]]*max_qp_rd_atom:[[:space:]]*$(prof_val $p max_qp_rd_atom)\$' $tmp/$p.devinfo"
	if [ "$odp" = yes ]; then
		check "$p: ODP for RC READ reported" sh -c "sed -n '/rc_odp_caps/,/_odp_caps/p' $tmp/$p.devinfo | grep -q SUPPORT_READ"
	else
		check "$p: no ODP reported" sh -c "! sed -n '/rc_odp_caps/,/_odp_caps/p' $tmp/$p.devinfo | grep -q SUPPORT_"
	fi
	MPI="$BASE_MPI -x LD_PRELOAD=$lib -x NETMEM_NIC_PROFILE=$PWD/tests/nic/$p.profile"

	# preflight over every family's config, the ODP one and the deep queue
	cfgs="$tmp/txd.json configs/check/corm-fig8.json"
	for c in $families; do cfgs="$cfgs configs/check/$c.json"; done
	$MPI -np 2 $N preflight --json "$tmp/pf-$p.json" $cfgs >"$tmp/pf-$p.out" 2>"$tmp/pf-$p.err"
	verdict() { jq -r --arg c "$1" '.configs[] | select(.config == $c) | .verdict' "$tmp/pf-$p.json" 2>/dev/null; }
	check "$p: preflight sees the card's max_qp_wr and ODP" sh -c "jq -e '.ranks[0].max_qp_wr == $wr and .ranks[0].odp_rc == $( [ "$odp" = yes ] && echo true || echo false)' $tmp/pf-$p.json"
	if [ "$p" = cx3 ]; then
		check "cx3: the 20,002-entry send queue does not fit (max_qp_wr 16351), and the ODP config does not" sh -c \
			"[ '$(verdict "$tmp/txd.json")' = does_not_fit ] && [ '$(verdict configs/check/corm-fig8.json)' = does_not_fit ]"
	else
		check "$p: the 20,002-entry send queue fits, and the ODP config" sh -c \
			"[ '$(verdict "$tmp/txd.json")' = fits ] && [ '$(verdict configs/check/corm-fig8.json)' = fits ]"
	fi
	# the deep queue: refused before its first point where preflight said so, valid where it fits
	$MPI -np 2 $N run "$tmp/txd.json" $Q --output "$tmp/txd-$p.json" >"$tmp/txd-$p.out" 2>"$tmp/txd-$p.err"
	rc=$?
	if [ "$(verdict "$tmp/txd.json")" = fits ]; then
		check "$p: the deep queue runs as preflight said: exit 0, valid" sh -c \
			"[ $rc = 0 ] && jq -e 'all(.points[]; .valid)' $tmp/txd-$p.json"
	else
		check "$p: the deep queue refused as preflight said: exit 2, naming max_qp_wr, no document" sh -c \
			"[ $rc = 2 ] && grep -q 'allows $wr (max_qp_wr)' $tmp/txd-$p.err && ! [ -e $tmp/txd-$p.json ]"
	fi
	# one small config per family: fits, and every point valid or skipped
	# with the reason. Under cx3 (no ODP, kept keys, the smallest limits)
	# and cx5 (ODP, new keys) every family; under cx4 and cx6, whose answers
	# differ from cx5's only in the values checked above, ops alone (a lane
	# under a loaded host must stay inside its time).
	run_families=$families
	case $p in cx4 | cx6) run_families="ops-lat ops-atomic-lat" ;; esac
	for c in $run_families; do
		v=$(verdict "configs/check/$c.json")
		$MPI -np "$(jq -r '.ranks // 2 | if type == "array" then .[0] else . end' configs/check/$c.json)" $N run \
			"configs/check/$c.json" $Q --output "$tmp/$c-$p.json" >"$tmp/$c-$p.out" 2>"$tmp/$c-$p.err"
		rc=$?
		if [ "$v" = fits ] && [ $rc = 0 ] && jq -e '(.points | length) > 0 and
			all(.points[]; .valid or (.skipped | type) == "string")' "$tmp/$c-$p.json" >/dev/null 2>&1; then
			ok "$p: $c: preflight said it fits; exit 0, every point valid or skipped with the reason"
		else
			notok "$p: $c: preflight '$v', exit $rc: $(grep '^netmem' "$tmp/$c-$p.err" | tail -2 | tr '\n' '|')"
			echo "$rc" >"$tmp/$c-$p.rc"
			nm_diag "$c-$p"
		fi
	done
done

# Sherman's lock tables in device memory (loco-fig5-fence's sherman points):
# cx3 has none, so auto keeps them in host memory and says so; cx5 offers
# 128 KiB, so the table is cut to its 16,384 words and allocated, which
# fails as on rxe (EOPNOTSUPP): host memory again, naming the failed call.
check "cx3: sherman's lock tables in host memory: the device has no device memory" \
	jq -e '[.points[] | select(.params.system == "sherman")] | length > 0 and all(.[]; .effective.lock_memory == "host" and (.effective.lock_memory_why | test("has no device memory")))' "$tmp/loco-fig5-fence-cx3.json"
check "cx5: sherman asked the device for the 16,384 lock words its 128 KiB hold; refused, host memory, the call named" \
	jq -e '[.points[] | select(.params.system == "sherman")] | length > 0 and all(.[]; .effective.lock_memory == "host" and .effective.lock_table == 32768 and (.effective.lock_memory_why | test("ibv_alloc_dm of 131072 bytes .*failed")))' "$tmp/loco-fig5-fence-cx5.json"

# CoRM's rereg strategy end to end (the paper's ConnectX-3 path; rxe alone
# has no ibv_rereg_mr): the remap bench, then a compaction while a client
# reads. cx3 keeps the keys, as mlx4 does: the client's old rkey must reach
# the new block. cx5 re-keys, as mlx5 recreating an MR does: the client's
# READs under an old rkey are refused, recovered, and its pointers get the
# new key. Each job its own kept-key table (tests/nic/nicprof.c).
NM_SUB=corm
for p in cx3 cx5; do
	mpi_for() { MPI="$BASE_MPI -x LD_PRELOAD=$lib -x NETMEM_NIC_PROFILE=$PWD/tests/nic/$p.profile -x NETMEM_NIC_KEYS=$tmp/keys-$1"; }
	if [ "$p" = cx3 ]; then keys=kept; newkey=false; else keys=new; newkey=true; fi
	mpi_for "remap-$p"
	nm_run "remap-$p" 2 --bench remap --strategy rereg -n 20
	check "$p: remap bench under rereg: exit 0, valid, keys $keys on every remap, every READ after it the new block" \
		nm_rc_jq "remap-$p" 0 ".points[0] | .valid and .skipped == null and .effective.rereg_new_key == $newkey and
			(.checks.keys_changed == if $newkey then .metrics.remaps_with_warmup else 0 end) and .checks.reads_wrong == 0 and .checks.reads_ok > 0"
	mpi_for "compact-$p"
	nm_run "compact-$p" 2 --bench compaction --strategy rereg --read direct -T 1 -K 300 -s 24 --free-ratio 0.75 -D 1.2 \
		--compact-at 0.2 --interval 0.1
	check "$p: compaction under rereg while a client reads: valid, blocks merged, keys $keys, no stale or lost object" \
		nm_rc_jq "compact-$p" 0 ".points[0] | .valid and .effective.strategy == \"rereg\" and .effective.rereg_new_key == $newkey and
			.compaction.merged_blocks > 0 and (.compaction.keys_changed > 0) == $newkey and .checks.lost == 0 and .checks.stale == 0"
	if [ "$p" = cx3 ]; then
		# A READ racing a block's rereg may be refused, as on the card: the
		# kept key points to the new registration before the old one goes,
		# so at most one READ in flight per client thread per rereg (-T 1),
		# in every schedule. A kept key that stopped working would refuse
		# every READ of a moved object from then on.
		check "cx3: the client read on with its old keys: no pointer re-keyed, at most one READ refused per re-registered block ($(jq -r '.points[0] | "\(.metrics.direct_read_refused) refused, \(.compaction.remapped_vas) blocks"' "$tmp/compact-$p.json" 2>/dev/null))" \
			nm_jq "compact-$p" '.points[0] | .metrics.rkey_updated == 0 and .metrics.direct_ok > 0 and
				.metrics.direct_read_refused <= .compaction.remapped_vas'
		continue
	fi
	# Every live object is read again once the compaction has ended, when at
	# least 300 reads (the objects loaded) followed it: then a READ under an
	# old key is met in every schedule. Fewer (a slow host) is an observation.
	after=$(jq -r '.points[0] as $p | [$p.metrics.series[] | select(.[0] >= $p.compaction.ended_at_s) | .[1] * $p.params.interval]
		| add // 0 | floor' "$tmp/compact-$p.json" 2>/dev/null)
	if [ "${after:-0}" -lt 300 ]; then
		skip "$p: the client met the new keys" "only ${after:-0} reads followed the compaction (300 make it certain)"
	else
		check "$p: the client met the new keys ($after reads after the compaction): READs under an old rkey refused and recovered, pointers given the new key" \
			nm_jq "compact-$p" '.points[0].metrics | .direct_read_refused > 0 and .rkey_updated > 0'
	fi
done
t_summary
