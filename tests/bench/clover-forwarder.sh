#!/bin/bash
# clover-forwarder.sh: Clover's Figs. 2 and 4 (Grant and Snoeren) with the
# packet path on a forwarding host, as on hardware: three Soft-RoCE guests
# (tests/vm/netmem-cluster --forwarder), ranks 0-2 on netmem-a, the memory
# node on netmem-b, rank 4 on netmem-fwd, which opens no RDMA device, routes
# between the other two and runs netmem clover-path --hook forward.
#
#   tests/bench/clover-forwarder.sh [--out DIR] [--iters N] [--timeout SEC]
#
# Nothing routes between netmem-a's and netmem-b's RDMA cards until the job
# adds the routes and turns forwarding on, so a point that runs at all went
# through netmem-fwd; each point's checks.path says every client CAS crossed
# the path. The script checks, and prints PASS or FAIL for each:
#   before     no route between the RDMA cards, netmem-fwd not forwarding
#   fig2       -T 1,2 --resolve off,on --path forward: every point valid,
#              its path check ok and the CASes it counted > 0
#   fig4       -T 2 --resolve on --track 1,8,64 and off: the same
#   after      no route, forwarding, redirect setting, nftables table or
#              state file (/run/netmem) left
#   preflight  the paper's Figs. 2 and 4 on the three guests: fits, or refused
#              for a reason that is not the forwarder's host
#   sigkill    a -D 120 point whose ranks are killed (SIGKILL) once its routes
#              are in (and netmem-fwd forwards on its two RDMA links, not
#              ip_forward): the same, nothing left, on every host
# and the ops/s of off and on per point (emulated: ratios only). Three guests
# boot in about 2 minutes; the whole script takes about 10 (not in make check:
# the lanes' budget).
#
# Output: DIR/clover-forwarder-<UTC stamp>/ with the documents, table.txt and
# the two figures (plots/clover_fig2.gp, clover_fig4.gp).
# Exit status: 0 when every check passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench iters=300 timeout=1800
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "clover-forwarder.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup clover-forwarder "$out"
dir=$(cd "$dir" && pwd)
cat >"$inner" <<INNER
set -u
dir=$dir iters=$iters
INNER
cat >>"$inner" <<'INNER'
printf 'netmem-a slots=3\nnetmem-b slots=1\nnetmem-fwd slots=1\n' >/tmp/fwd-hosts
fails=0
verdict() { # name status detail
	if [ "$2" = 0 ]; then echo "PASS $1 $3"; else echo "FAIL $1 $3"; fails=$((fails + 1)); fi
}
# What the job may leave behind on each host: routes between the RDMA cards,
# forwarding (ip_forward, and how many interfaces forward: the job turns on
# the two RDMA links' only), redirects, the path's table, the state files of
# the changes. One line per host.
links() { $NETMEM_SSH netmem-fwd "cat /proc/sys/net/ipv4/conf/*/forwarding" | grep -c 1; }
state() {
	echo "a: $(ip -4 route show 10.77.2.1/32) $(ls /run/netmem 2>/dev/null)|"
	echo "b: $($NETMEM_SSH netmem-b ip -4 route show 10.77.1.1/32) $($NETMEM_SSH netmem-b ls /run/netmem 2>/dev/null)|"
	echo "fwd: forward=$($NETMEM_SSH netmem-fwd cat /proc/sys/net/ipv4/ip_forward) links=$(links)" \
		"redirects=$($NETMEM_SSH netmem-fwd cat /proc/sys/net/ipv4/conf/all/send_redirects)" \
		"tables=$($NETMEM_SSH netmem-fwd nft list tables | tr '\n' ' ')" \
		"state=$($NETMEM_SSH netmem-fwd ls /run/netmem 2>/dev/null)|"
}
clean='a:  |
b:  |
fwd: forward=0 links=0 redirects=1 tables= state=|'
job() { # name args...
	local n=$1
	shift
	mpirun --hostfile /tmp/fwd-hosts --bind-to none -np 5 bin/netmem clover -K 1024 -w a --theta 0.75 \
		--warmup 20 --progress=false --path forward --output "$dir/$n.json" "$@" >"$dir/$n.out" 2>&1
}
# Every point valid, its path check ok, and the path counted CASes.
points_ok() {
	jq -e '[.points[] | .valid and .checks.path.ok and .checks.path.path_cas > 0] | all and length > 0' "$1" >/dev/null
}

s=$(state)
[ "$s" = "$clean" ] && ! ip -4 route get 10.77.2.1 >/dev/null 2>&1
verdict before $? "(a reaches no 10.77.2.1 by itself: $(ip -4 route get 10.77.2.1 2>&1 | head -1))"

# Preflight on the three hosts, one rank each: the paper's configs (the
# forwarder's rank is left out of the fit) and a check-scale one whose ranks
# all need a device (fits: netmem-fwd has rxe0 here).
printf 'netmem-a slots=1\nnetmem-b slots=1\nnetmem-fwd slots=1\n' >/tmp/fwd-pf-hosts
mpirun --hostfile /tmp/fwd-pf-hosts --bind-to none -np 3 bin/netmem preflight --json "$dir/preflight.json" \
	configs/paper/clover-fig2.json configs/paper/clover-fig4.json >"$dir/preflight.out" 2>&1
jq -e '[.configs[] | .verdict == "fits" or (.reason | test("netmem-fwd") | not)] | all and length == 2' \
	"$dir/preflight.json" >/dev/null
verdict preflight $? "($(grep -E 'clover-fig[24].json' "$dir/preflight.out" | tr '\n' ' '))"

job fig2 -T 1,2 -n "$iters" --resolve off,on
rc=$?
points_ok "$dir/fig2.json" && [ $rc = 0 ]
verdict fig2 $? "(exit $rc; $dir/fig2.out)"
job fig4 -T 2 -n "$iters" --resolve on --track 1,8,64
rc=$?
job fig4off -T 2 -n "$iters" --resolve off
rc2=$?
points_ok "$dir/fig4.json" && points_ok "$dir/fig4off.json" && [ $rc = 0 ] && [ $rc2 = 0 ]
verdict fig4 $? "(exit $rc, $rc2)"
s=$(state)
[ "$s" = "$clean" ]
verdict after $? "($(echo "$s" | tr '\n' ' '))"

# A job killed once its routes are in: the janitors and the path's table
# must undo everything without the ranks.
job sigkill -T 1 -D 120 --resolve on &
jobpid=$!
for i in $(seq 1 180); do
	[ -n "$(ip -4 route show 10.77.2.1/32)" ] && [ "$(links)" = 2 ] && break
	sleep 1
done
sleep 5
during=$(state | tr '\n' ' ')
pkill -KILL -f 'netmem clover ' || true   # netmem-a runs the head, without sshd
for h in netmem-b netmem-fwd; do
	$NETMEM_SSH "$h" pkill -KILL -f "'netmem clover '" || true
done
wait "$jobpid" 2>/dev/null
sleep 3
s=$(state)
[ "$s" = "$clean" ] && [[ $during == *"via 10.77.1.254"* ]] && [[ $during == *"forward=0 links=2"* ]]
verdict sigkill $? "(during: $during; after: $(echo "$s" | tr '\n' ' '))"

{
	printf '%-8s %-8s %3s %6s %12s\n' doc resolve thr track ops_per_sec
	for d in fig2 fig4 fig4off; do
		jq -r --arg d "$d" '.points[] | "\($d) \(.params.resolve) \(.params.threads) \(.params.track) \(.metrics.ops_per_sec|floor)"' \
			"$dir/$d.json" 2>/dev/null | while read -r a b c e f; do printf '%-8s %-8s %3s %6s %12s\n' "$a" "$b" "$c" "$e" "$f"; done
	done
} | tee "$dir/table.txt"
echo "clover-forwarder: $fails check(s) failed (Soft-RoCE, emulated: ratios only)"
exit $((fails > 0))
INNER
tests/vm/netmem-cluster --forwarder --timeout "$timeout" -- bash "$inner"
rc=$?
# The figures, from the documents the forwarder layout produced.
for f in fig2 fig4; do
	[ -s "$dir/$f.json" ] || continue
	gnuplot -e "in='$dir/$f.json'; out='$dir/clover-$f.png'; netmem='bin/netmem'" "plots/clover_$f.gp" \
		2>"$dir/clover-$f.gp.err" || { echo "clover-forwarder.sh: plots/clover_$f.gp failed" >&2; rc=1; }
done
exit $rc
