#!/bin/sh
# The cluster path on two Soft-RoCE hosts. Runs on the head guest of tests/vm/netmem-cluster
# (tests/integration/cluster/run.sh starts it there): OpenMPI launches from a hostfile over ssh,
# ranks on netmem-a and netmem-b each open their own rxe0, and RoCEv2 packets cross the link
# between the two kernels. Checked: netmem info on each host; READ/WRITE/CAS/FAA rank 0 -> rank
# 1 across hosts; the lock table and the barrier with ranks on both hosts; txn with nodes that
# are the hostfile's hosts; run_all.sh --hostfile for two configs, and its cluster configs
# (Clover's Figs. 2 and 4) as make check's run_all part; that every result names both
# hosts and each host's own device and GID; the Redis baseline across hosts, which answers only on
# the link and only with the point's secret; and the first errors a cluster user meets.
# Timings are Soft-RoCE between two emulated machines: correctness only, never hardware numbers.
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib.sh
[ -n "${NETMEM_HOSTFILE:-}" ] && [ -n "${NETMEM_SSH:-}" ] || {
	echo "test_cluster.sh: run it on a cluster of guests: tests/integration/cluster/run.sh" >&2
	exit 2
}
nm_setup ops
H=$NETMEM_HOSTFILE
A=netmem-a B=netmem-b
MPI="mpirun --hostfile $H --map-by node --bind-to none"
# Host names resolve to each host's link address; its RoCEv2 GID is that address, IPv4-mapped.
GA="::ffff:$(getent hosts $A | awk '{ print $1 }')"
GB="::ffff:$(getent hosts $B | awk '{ print $1 }')"
on_b() { $NETMEM_SSH $B "$@"; }
T0=$(date +%s)
# section TITLE: a TAP comment with the time spent so far (for the lane's time, never checked).
section() { echo "# $1 (at $(($(date +%s) - T0)) s)"; }
rxe_count() { cat "/sys/class/infiniband/rxe0/ports/1/hw_counters/$1"; }

# meta_ok NAME HOSTS...: the document's last run names the hosts, rank by rank (ranks map to
# hosts as listed), each with rxe0 and its own host's GID.
meta_ok() {
	doc=$1; shift
	want=$(printf '"%s",' "$@" | sed 's/,$//')
	nm_jq "$doc" '.meta.runs[-1] as $m | ['"$want"'] as $w |
		($m.hosts | sort) == ($w | unique) and ($m.ranks | map(.hostname)) == $w and
		all($m.ranks[]; .nic.device == "rxe0" and .nic.state == "active" and
			.nic.gid == (if .hostname == "'$A'" then "'"$GA"'" else "'"$GB"'" end)) and
		$m.emulated == true and $m.softroce_lane == "vm-cluster" and ($m.timing_note | test("emulated"))'
}
# note_timings NAME: the points' latencies as TAP comments, labelled for what they are.
note_timings() {
	jq -r '.points[] | "#   Soft-RoCE (emulated, two guests): \(.params.op // .params.lock // .params.impl) p50 \(.metrics.lat.p50 // "-") us"' \
		"$tmp/$1.json" 2>/dev/null
}
# expect_line "what" PATTERN cmd...: exit 2 and one "netmem:" line on stderr matching PATTERN.
expect_line() {
	what=$1 pat=$2; shift 2
	"$@" >/dev/null 2>"$tmp/err"; rc=$?
	line=$(grep '^netmem:' "$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$(grep -c '^netmem:' "$tmp/err")" -eq 1 ] && echo "$line" | grep -q -- "$pat"; then
		ok "$what: $line"
	else
		notok "$what: exit $rc: $(head -c 600 "$tmp/err" | tr '\n' '|')"
	fi
}

# 1. netmem info on each host: its own name, rxe0 active, the RoCEv2 GID of its own address
section "1. netmem info on each host"
$N info >"$tmp/info-$A.json" 2>"$tmp/info-$A.err"
on_b "cd '$PWD' && $N info" >"$tmp/info-$B.json" 2>"$tmp/info-$B.err"
for h in $A $B; do
	g=$([ $h = $A ] && echo "$GA" || echo "$GB")
	check "info on $h: its host name, rxe0, RoCE v2 GID $g" jq -e --arg h $h --arg g "$g" \
		'.host.hostname == $h and any(.devices[]; .device == "rxe0" and any(.ports[].gids[]; .gid == $g and (.type | test("v2"))))' \
		"$tmp/info-$h.json"
done

# 2. one-sided operations rank 0 (netmem-a) -> rank 1 (netmem-b), every packet over the link
section "2. one-sided operations across hosts"
before=$(on_b cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts)
nm_run ops 2 --op read,write,cas,faa -s 8 -n 30 --warmup 3
after=$(on_b cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts)
check "ops READ/WRITE/CAS/FAA across hosts: exit 0, 4 points valid" nm_rc_jq ops 0 '(.points | length) == 4 and all(.points[]; .valid)'
check "ops: rank 0 on $A, rank 1 on $B, each with rxe0 and its own GID; labelled Soft-RoCE" meta_ok ops $A $B
check "ops: netmem-b's rxe0 received every request from the link (>= 4 x 33 packets)" [ $((after - before)) -ge 132 ]
check "ops: the NIC counters of both hosts moved" nm_jq ops 'all(.points[]; .nic_counters.sent_pkts > 0 and .nic_counters.rcvd_pkts > 0)'
note_timings ops

# 3. the lock table with ranks on both hosts (0, 2 on netmem-a; 1, 3 on netmem-b)
section "3. the lock table with ranks on both hosts"
NM_SUB=lock
nm_run lock 4 --lock alock -K 8 -p 50 -T 1 -D 1 --warmup 0 --validate 20
check "lock alock, 4 ranks on 2 hosts: exit 0, valid, mutual exclusion held" \
	nm_rc_jq lock 0 '(.points | length) == 1 and all(.points[]; .valid and .checks.mutual_exclusion.ok)'
check "lock: ranks alternate over the hosts, each with its own GID" meta_ok lock $A $B $A $B

# 4. txn with nodes that are the hostfile's hosts (2 ranks per node, as the hostfile's slots).
section "4. txn with nodes that are the hostfile's hosts"
#    MPI windows between hosts need OpenMPI's osc/pt2pt here (no RDMA transport for MPI itself).
NM_SUB=txn
MPI="mpirun --hostfile $H --map-by ppr:2:node --bind-to none --mca osc pt2pt"
nm_run txn 4 --ranks-per-node 2 -N 2 -T 2 --lock ticket,mpi -A 100 -n 5 --warmup 1
check "txn ticket,mpi, 2 nodes of 2 ranks: exit 0, bank conserved" nm_rc_jq txn 0 '(.points | length) == 2 and all(.points[]; .valid and .checks.conservation.ok)'
check "txn: node grouping matches the hostfile (2 real nodes of 2 ranks, not emulated)" \
	nm_jq txn 'all(.points[]; .effective.nodes == 2 and .effective.ranks_per_node == 2 and (.effective.nodes_emulated | not))'
check "txn: ranks 0, 1 on $A and 2, 3 on $B" meta_ok txn $A $A $B $B
check "txn: the MPI point names its transport a fallback, not RDMA (osc pt2pt), and the selection it read" \
	nm_jq txn '.points[] | select(.params.lock == "mpi") | .effective | (.mpi_transport | test("pt2pt.*not RDMA")) and .mpi_rma.osc == "pt2pt" and (.mpi_rma.library | test("Open MPI"))'
check "txn: the ticket point has no MPI transport" nm_jq txn '.points[] | select(.params.lock == "ticket") | .effective | has("mpi_transport") | not'
MPI="mpirun --hostfile $H --map-by ppr:2:node --bind-to none"
nm_run txnwin 4 -N 2 -T 2 --lock mpi -A 100 -n 5 --warmup 1
check "txn --lock mpi without an RMA transport between hosts: fails, saying which mpirun flags fix it" \
	sh -c "[ \$(cat $tmp/txnwin.rc) != 0 ] && grep -q -- '--mca osc pt2pt' $tmp/txnwin.err"
MPI="mpirun --hostfile $H --map-by node --bind-to none"

# 5. the barrier over both hosts
section "5. the barrier over both hosts"
NM_SUB=barrier
nm_run barrier 4 --nodes 4 -n 10 --warmup 2
check "barrier sst,mpi at 4 ranks: exit 0, every epoch check passed" \
	nm_rc_jq barrier 0 '(.points | length) == 2 and all(.points[]; .valid and .checks.epoch.ok and .effective.hosts == 2)'
check "barrier: MPI_Barrier is not counted as shared memory across hosts" \
	nm_jq barrier 'all(.points[] | select(.params.impl == "mpi"); .effective.mpi_transport | test("inter-node"))'
check "barrier: ranks alternate over the hosts" meta_ok barrier $A $B $A $B
note_timings barrier

# 6. run_all.sh from the hostfile, two quick configs (ones bounded by duration or few operations)
section "6. run_all.sh from the hostfile"
./run_all.sh --hostfile "$H" --scale quick --only ops-atomic-lat,alock-fig4 --out "$tmp/ra" >"$tmp/ra.out" 2>&1
echo $? >"$tmp/ra.rc"
check "run_all.sh --hostfile --only ops-atomic-lat,alock-fig4: exit 0" [ "$(cat "$tmp/ra.rc")" = 0 ]
for c in ops-atomic-lat alock-fig4; do
	ln -sf "$tmp/ra/$c.json" "$tmp/ra-$c.json"
	check "run_all.sh $c: all points valid" nm_jq ra-$c '(.points | length) > 0 and all(.points[]; .valid)'
done
check "run_all.sh ops-atomic-lat: one rank per host" meta_ok ra-ops-atomic-lat $A $B
check "run_all.sh alock-fig4: its 3 ranks over both hosts" meta_ok ra-alock-fig4 $A $B $A
check "run_all.sh: both figures drawn" sh -c "[ -s $tmp/ra/ops-atomic-lat.png ] && [ -s $tmp/ra/alock-fig4.png ]"

# 6a. run_all.sh's cluster configs at check scale (Clover's Figs. 2 and 4, the memory node alone
#     on netmem-b), preflight first, into the run make check finishes on the host
#     (tests/run-all-check.sh); their documents are what 6b checks the path on.
section "6a. run_all.sh's cluster configs (preflight, Clover Figs. 2 and 4)"
NETMEM_CHECK_RUN=${NETMEM_CHECK_RUN:-$tmp/check-run}
export NETMEM_CHECK_RUN
NETMEM_CHECK_CLASS=cluster sh tests/integration/test_run_all.sh >"$tmp/ra-cluster.tap" 2>&1
while IFS= read -r line; do
	case $line in
	"ok "*) ok "cluster configs: ${line#ok * - }" ;;
	"not ok "*) notok "cluster configs: ${line#not ok * - }" ;;
	"# "*) echo "$line" ;;
	esac
done <"$tmp/ra-cluster.tap"

# 6b. Clover's contention resolution, in the packet path between the hosts
. tests/integration/cluster/clover_path.sh

# 6c. netmem kv's Redis baseline across hosts: bound to the link, a secret required
. tests/integration/cluster/kv_redis.sh

# 7. what a cluster user meets first: one line that says what to fix, exit 2
section "7. what a cluster user meets first"
printf '%s slots=1\n%s slots=1\n' $A $B >"$tmp/one-slot"
./run_all.sh --hostfile "$tmp/one-slot" --scale quick --only loco-fig4b >/dev/null 2>"$tmp/err"
rc=$?
check "run_all.sh, one slot per host, a config with 2 ranks per node: exit 2, one line naming slots=2" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'slots=2' '$tmp/err'"
expect_line "netmem txn --ranks-per-node 2 with one slot per host" "slots=2" \
	mpirun --hostfile "$tmp/one-slot" --map-by node --bind-to none -np 2 $N txn --ranks-per-node 2 -N 1 -n 5
expect_line "a different netmem build on $B" "rank 1 on $B runs a different netmem build" \
	mpirun --hostfile "$H" --bind-to none -np 1 --host $A $N ops -n 5 : -np 1 --host $B build/tests/netmem-otherbuild ops -n 5
# A second address on netmem-a only: a GID index there that netmem-b lacks.
ip addr add 10.77.0.11/24 dev eth0
idx="" n=0
while [ -z "$idx" ] && [ $n -lt 50 ]; do  # the GID appears asynchronously (5 s at most)
	idx=$(grep -l '^0000:0000:0000:0000:0000:ffff:0a4d:000b$' /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null | head -1)
	idx=${idx##*/} n=$((n + 1))
	[ -n "$idx" ] || sleep 0.1
done
expect_line "-x $idx, a GID index only $A has" "rank 1 ($B): GID index $idx does not exist" $MPI -np 2 $N ops -n 5 -x "${idx:-2}"
ip addr del 10.77.0.11/24 dev eth0
# Last: netmem-b's rxe0 moves to an interface that is down, so no port of it is active.
on_b 'rdma link delete rxe0 && ip link add nm-down type dummy && rdma link add rxe0 type rxe netdev nm-down'
expect_line "$B's device has no active port" "rank 1 ($B): no RDMA device here has port 1 ACTIVE" $MPI -np 2 $N ops -n 5
section "done"
t_summary
