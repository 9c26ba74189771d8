# Sourced by test_cluster.sh (its helpers, $A, $B, on_b and $tmp): netmem kv's Redis baseline
# across the two hosts, and no open door on them. Rank 0's instance on netmem-a, rank 1's on
# netmem-b, one Redis Cluster over the link. While the point runs: the instance answers on the
# address of the interface rxe0 runs on (the link), and there only with the point's secret; not
# on 127.0.0.1 nor on another interface's address of its host. The last probe, with the secret,
# shows that the server still ran when the others were refused.
section "kv --system redis across hosts: bound to the link, a secret required"
IPA=$(getent hosts $A | awk '{ print $1 }') IPB=$(getent hosts $B | awk '{ print $1 }')
ip link add nm-other type dummy && ip addr add 10.78.0.1/24 dev nm-other && ip link set nm-other up
$MPI -np 2 $N kv $Q --system redis -K 4096 --timeout 60 -T 2 -W 8 -D 30 --redis-port 7700 \
	--output "$tmp/redis.json" >"$tmp/redis.out" 2>"$tmp/redis.err" &
job=$!
# Probes (redis_ask.sh) from the moment netmem-a's instance accepts (its secret is in place then).
ask=tests/integration/cluster/redis_ask.sh
$ask 7700 --wait "$IPA"
up=$?
section "kv redis: netmem-a's instance up: $([ $up = 0 ] && echo yes || echo no)"
if [ $up = 0 ]; then
	on_b "cd '$PWD' && $ask 7700 $IPA" >"$tmp/door-b" 2>&1 &
	probe_b=$!
	$ask 7700 127.0.0.1 10.78.0.1 "$IPA" >"$tmp/door" 2>&1
	wait $probe_b
	$ask 7700 --secret "$IPA" >"$tmp/door-secret" 2>&1
	section "kv redis: probed"
	check "redis on $A: no answer on 127.0.0.1 nor on another interface's address (10.78.0.1)" \
		sh -c "grep -qx '127.0.0.1: refused' '$tmp/door' && grep -qx '10.78.0.1: refused' '$tmp/door'"
	check "redis on $A's link address, without the secret: NOAUTH, from $A and from $B" \
		sh -c "grep -q '^$IPA: -NOAUTH' '$tmp/door' && grep -q '^$IPA: -NOAUTH' '$tmp/door-b'"
	check "redis on $A's link address, with the secret: OK, PONG (it ran during the probes)" \
		sh -c "[ \"\$(cat '$tmp/door-secret')\" = '$IPA: +OK
$IPA: +PONG' ]"
else
	notok "netmem-a's redis instance on port 7700 never came up: $(grep '^netmem:' "$tmp/redis.err" | head -2 | tr '\n' '|')"
fi
wait $job; echo $? >"$tmp/redis.rc"
ip link del nm-other
check "kv redis across hosts: exit 0, valid, the scan read the prefill back" \
	nm_rc_jq redis 0 '.points[0] | .valid and .metrics.ops > 0 and .checks.store.ok and .effective.scanned_keys == .effective.prefill'
check "kv redis: one instance per host, each bound to and announcing its link address only" \
	nm_jq redis '.points[0].effective | (.cluster.slot_map | map(split(" ")[0])) == ["'"$IPA"':7700", "'"$IPB"':7700"] and (.binding | test("^[0-9.]+ only .*secret"))'
check "kv redis: ranks on $A and $B" meta_ok redis $A $B
