# Sourced by test_cluster.sh (its helpers, $A, $B, on_b and $tmp): netmem kv's Redis baseline
# across the two hosts, and no open door on them. Rank 0's instance on netmem-a, rank 1's on
# netmem-b, one Redis Cluster over the link. While the point runs: the instance answers on the
# address of the interface rxe0 runs on (the link), and there only with the point's secret; not
# on 127.0.0.1 nor on another interface's address of its host. The last probe, with the secret,
# shows that the server still ran when the others were refused.
section "kv --system redis across hosts: bound to the link, a secret required"
IPA=$(getent hosts $A | awk '{ print $1 }') IPB=$(getent hosts $B | awk '{ print $1 }')
ip link add nm-other type dummy && ip addr add 10.78.0.1/24 dev nm-other && ip link set nm-other up
$MPI -np 2 $N kv $Q --system redis -K 4096 --timeout 60 -T 2 -W 8 -D 10 --redis-port 7700 \
	--output "$tmp/redis.json" >"$tmp/redis.out" 2>"$tmp/redis.err" &
job=$!
rd_secret() { sed -n 's/^requirepass //p' "/proc/$(pgrep -f 'redis-server .*:7700' | head -1)/cwd/redis.conf" 2>/dev/null; }
formed=no
for _ in $(seq 240); do
	REDISCLI_AUTH=$(rd_secret) redis-cli --no-auth-warning -h "$IPA" -p 7700 cluster info 2>/dev/null |
		grep -q '^cluster_state:ok' && { formed=yes; break; }
	sleep 0.5
done
if [ $formed = yes ]; then
	for h in 127.0.0.1 10.78.0.1 "$IPA"; do redis-cli -h "$h" -p 7700 ping >"$tmp/door-$h" 2>&1; done
	on_b "redis-cli -h $IPA -p 7700 ping" >"$tmp/door-b" 2>&1
	REDISCLI_AUTH=$(rd_secret) redis-cli --no-auth-warning -h "$IPA" -p 7700 ping >"$tmp/door-secret" 2>&1
	check "redis on $A: no answer on 127.0.0.1 nor on another interface's address (10.78.0.1)" \
		sh -c "grep -q 'Connection refused' '$tmp/door-127.0.0.1' && grep -q 'Connection refused' '$tmp/door-10.78.0.1'"
	check "redis on $A's link address, without the secret: NOAUTH, from $A and from $B" \
		sh -c "grep -q NOAUTH '$tmp/door-$IPA' && grep -q NOAUTH '$tmp/door-b'"
	check "redis on $A's link address, with the secret: PONG (it ran during the probes)" grep -qx PONG "$tmp/door-secret"
else
	notok "the redis cluster on port 7700 never formed: $(grep '^netmem:' "$tmp/redis.err" | head -2 | tr '\n' '|')"
fi
wait $job; echo $? >"$tmp/redis.rc"
ip link del nm-other
check "kv redis across hosts: exit 0, valid, the scan read the prefill back" \
	nm_rc_jq redis 0 '.points[0] | .valid and .metrics.ops > 0 and .checks.store.ok and .effective.scanned_keys == .effective.prefill'
check "kv redis: one instance per host, each bound to and announcing its link address only" \
	nm_jq redis '.points[0].effective | (.cluster.slot_map | map(split(" ")[0])) == ["'"$IPA"':7700", "'"$IPB"':7700"] and (.binding | test("^[0-9.]+ only .*secret"))'
check "kv redis: ranks on $A and $B" meta_ok redis $A $B
