#!/bin/sh
# netmem clover --path forward's changes to real hosts, in network
# namespaces of their own (nothing of this host's network is touched): the
# forwarder (this test's namespace: links fa, fb and a control link ctl0)
# between host a (10.77.1.1 on va) and host b (10.77.2.1 on vb, a labelled
# alias vb:1), and host c on the control link. Each host's part of a job is
# tests/unit/test_clover_route.c's driver, which runs the same functions
# cl_fwd_up does once the ranks' addresses are gathered; netmem cleanup is
# bin/netmem's. /run is a tmpfs of the test's own mount namespace, so the
# state files (/run/netmem) are the test's, one directory per host.
#
# Checks: forwarding on the RDMA links' interfaces only (a packet crosses
# from a to b and back; the control interface and ip_forward stay 0, and c's
# packet is not forwarded); every setting as before the job afterwards, the
# kernel's side effects included; a route that was there survives; a killed
# janitor leaves the state file, the next job refuses naming netmem cleanup,
# which restores everything; a labelled alias on either side. Needs root,
# unshare, nsenter and iproute2; skipped without them.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=build/tests/test_clover_route
N=bin/netmem

if [ -z "${NM_ROUTE_NS:-}" ]; then
	why=
	if [ "$(id -u)" != 0 ]; then why="needs root (network namespaces)"
	elif ! command -v ip >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1; then why="needs iproute2 and nsenter"
	elif ! unshare -nm true 2>/dev/null; then why="unshare -nm is not permitted here"
	fi
	if [ -z "$why" ] && ! make -s bin/netmem "$T" >/dev/null 2>&1; then
		notok "build bin/netmem and $T"; t_summary; exit
	fi
	if [ -n "$why" ]; then
		skip "--path forward's changes in network namespaces" "$why"
		t_summary; exit
	fi
	NM_ROUTE_NS=1 exec unshare -nm sh "$0" "$@"
fi

# ---- inside the namespaces -------------------------------------------------------------
tmp=$(mktemp -d)
trap 'for p in $(cat "$tmp"/*.pid 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
mount -t tmpfs -o mode=755 tmpfs /run || { notok "a tmpfs on /run in the test's mount namespace"; t_summary; exit; }
S=/run/netmem/forward.state
P=/proc/sys/net/ipv4/conf

setup() {
	ip netns add a && ip netns add b && ip netns add c || return 1
	ip link add fa type veth peer name va netns a || return 1
	ip link add fb type veth peer name vb netns b || return 1
	ip link add ctl0 type veth peer name ctl1 netns c || return 1
	ip addr add 10.77.1.254/24 dev fa
	ip addr add 10.77.2.254/24 dev fb label fb:1   # the forwarder's address on b's link: a labelled alias
	ip addr add 192.0.2.1/24 dev ctl0
	ip -n a addr add 10.77.1.1/24 dev va
	ip -n b addr add 10.77.2.1/24 dev vb label vb:1   # b's RDMA address: a labelled alias
	ip -n c addr add 192.0.2.2/24 dev ctl1
	for d in lo fa fb ctl0; do ip link set "$d" up || return 1; done
	for n in a:va b:vb c:ctl1; do ip -n "${n%:*}" link set lo up && ip -n "${n%:*}" link set "${n#*:}" up || return 1; done
	# c and b could reach each other only if the forwarder forwarded what
	# arrives on its control interface
	ip -n c route add 10.77.2.0/24 via 192.0.2.1 && ip -n b route add 192.0.2.0/24 via 10.77.2.254 || return 1
	# this host's settings, as an administrator may have left them: not
	# forwarding, redirects accepted nowhere
	echo 0 >$P/all/forwarding && echo 0 >$P/all/accept_redirects && echo 1 >$P/all/send_redirects || return 1
	for d in fa fb ctl0; do echo 0 >$P/$d/forwarding && echo 1 >$P/$d/send_redirects || return 1; done
	mkdir -m 700 /run/hosts /run/hosts/a /run/hosts/b
}
if ! setup 2>"$tmp/setup.err"; then
	skip "--path forward's changes in network namespaces" "cannot build them: $(head -1 "$tmp/setup.err")"
	t_summary; exit
fi

# on HOST CMD...: CMD in host a's or b's network namespace, its /run/netmem that host's own
on() {
	h=$1; shift
	mkdir -p -m 700 /run/netmem
	unshare -m sh -c 'mount --bind "/run/hosts/$0" /run/netmem && exec nsenter --net="/run/netns/$0" "$@"' "$h" "$@"
}
# The forwarder's settings the job may touch, one line.
fwdstate() {
	for k in all/forwarding all/accept_redirects all/send_redirects default/forwarding default/accept_redirects \
		fa/forwarding fa/send_redirects fb/forwarding fb/send_redirects ctl0/forwarding ctl0/send_redirects \
		ctl0/accept_redirects; do
		printf '%s=%s ' "$k" "$(cat $P/$k)"
	done
}
# start NAME FD HOST ARGS...: one host's part of a job (HOST f: the forwarder),
# held by a pipe on FD until stop NAME FD; waits for its "up" or "failed" line.
start() {
	name=$1 fd=$2 host=$3; shift 3
	rm -f "$tmp/$name.ctl"; mkfifo "$tmp/$name.ctl"
	# without the others' pipes (exec: a redirection on a function call
	# keeps a copy): each must close when its own holder lets go
	(
		exec 5>&- 6>&- 7>&- <"$tmp/$name.ctl" >"$tmp/$name.out" 2>"$tmp/$name.err"
		if [ "$host" = f ]; then exec "$T" "$@"; else on "$host" "$T" "$@"; fi
	) &
	echo $! >"$tmp/$name.pid"
	eval "exec $fd>\"\$tmp/\$name.ctl\""
	# bounds, not schedules: generous for a loaded host (make check runs
	# this beside two guests)
	for i in $(seq 1 1200); do
		grep -qE '^(up|failed)' "$tmp/$name.out" 2>/dev/null && return 0
		kill -0 "$(cat "$tmp/$name.pid")" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# stop NAME FD: lets it end (cl_fwd_down); its exit status in $tmp/NAME.rc
stop() {
	eval "exec $2>&-"
	wait "$(cat "$tmp/$1.pid")"; echo $? >"$tmp/$1.rc"
	rm -f "$tmp/$1.pid"
}
# janitor_of NAME: its janitor's pid ("none" when it has none: never kill 0,
# the whole process group)
janitor_of() { j=$(sed -n 's/.*janitor=\([1-9][0-9]*\).*/\1/p' "$tmp/$1.out"); echo "${j:-none}"; }
until_gone() { for i in $(seq 1 1200); do [ -e "$1" ] || return 0; sleep 0.1; done; return 1; }
FWD="forwarder 10.77.1.1/24 10.77.2.1/24"
# same WHAT: every forwarder setting as before the job, and no state file
same() {
	now=$(fwdstate)
	if [ "$now" = "$before" ] && [ ! -e $S ]; then ok "$1"; else notok "$1: $now (before: $before); $(ls $S 2>&1)"; fi
}

before=$(fwdstate)

# ---- a job: forwarding on the RDMA links only, routes on both hosts, all undone ----------
if ! start F 5 f $FWD || ! grep -q '^up' "$tmp/F.out"; then
	notok "the forwarder's changes: $(cat "$tmp/F.out" "$tmp/F.err" | tr '\n' '|')"
fi
check "forwarding on both RDMA links' interfaces (fb's address a labelled alias, fb:1, turned on as fb)" \
	sh -c "[ \$(cat $P/fa/forwarding) = 1 ] && [ \$(cat $P/fb/forwarding) = 1 ]"
check "the control interface does not forward, and ip_forward stays 0" \
	sh -c "[ \$(cat $P/ctl0/forwarding) = 0 ] && [ \$(cat /proc/sys/net/ipv4/ip_forward) = 0 ] && [ \$(cat $P/default/forwarding) = 0 ]"
check "redirects off on all and the RDMA links, the control interface's left alone" \
	sh -c "[ \$(cat $P/all/send_redirects)\$(cat $P/fa/send_redirects)\$(cat $P/fb/send_redirects)\$(cat $P/ctl0/send_redirects) = 0001 ]"
check "the state file: 0600 in a 0700 /run/netmem, the changes recorded by device name" \
	sh -c "[ \$(stat -c %a /run/netmem) = 700 ] && [ \$(stat -c %a $S) = 600 ] &&
		grep -qx 'undo sysctl net/ipv4/conf/fb/forwarding 0' $S && grep -qx 'keep sysctl net/ipv4/conf/all/accept_redirects 0' $S"

start A 6 a endpoint 10.77.1.1 10.77.1.254/24 10.77.2.1
start B 7 b endpoint 10.77.2.1 10.77.2.254/24 10.77.1.1
check "host a: its route to b via the forwarder, marked proto 110" \
	sh -c "ip -n a -4 route show 10.77.2.1/32 | grep -q 'via 10.77.1.254 dev va proto 110'"
check "host b, whose RDMA address is a labelled alias (vb:1): its route on the device, vb" \
	sh -c "grep -q '^up.*dev=vb\$' $tmp/B.out && ip -n b -4 route show 10.77.1.1/32 | grep -q 'via 10.77.2.254 dev vb proto 110'"
(exec 5>&- 6>&- 7>&-; exec nsenter --net=/run/netns/b "$T" udp-echo 4791 >"$tmp/echo.out" 2>&1) &
echo $! >"$tmp/echo.pid"
for i in $(seq 1 600); do grep -q listening "$tmp/echo.out" && break; sleep 0.1; done
check "a's packet to b crosses the forwarder, and b's answer comes back (forwarding in both directions)" \
	nsenter --net=/run/netns/a "$T" udp-ask 10.77.2.1 4791
if nsenter --net=/run/netns/c "$T" udp-ask 10.77.2.1 4791; then
	notok "c's packet, arriving on the control interface, was forwarded"
else
	ok "c's packet, arriving on the control interface, is not forwarded"
fi
kill "$(cat "$tmp/echo.pid")" 2>/dev/null; rm -f "$tmp/echo.pid"

# Something turns ip_forward on behind the job's back: the kernel then turns
# every interface's forwarding on, and putting it back to 0 resets
# all/accept_redirects to 1. The undo must leave each as it was before.
echo 1 >/proc/sys/net/ipv4/ip_forward
stop A 6; stop B 7; stop F 5
check "the job ends cleanly on all three hosts" sh -c "[ \$(cat $tmp/A.rc)\$(cat $tmp/B.rc)\$(cat $tmp/F.rc) = 000 ] && ! grep -q . $tmp/F.err"
after=$(fwdstate)
if [ "$after" = "$before" ]; then
	ok "every forwarder setting as before the job, side effects included (all/accept_redirects 0, ip_forward 0)"
else
	notok "forwarder settings: before: $before; after: $after"
fi
check "the routes gone from a and b" sh -c "[ -z \"\$(ip -n a -4 route show 10.77.2.1/32)\$(ip -n b -4 route show 10.77.1.1/32)\" ]"
check "no state file left on any host" sh -c "[ ! -e $S ] && [ ! -e /run/hosts/a/forward.state ] && [ ! -e /run/hosts/b/forward.state ]"

# ---- a route that was there before the job ---------------------------------------------
ip -n a route add 10.77.2.1/32 via 10.77.1.254 dev va
start A2 6 a endpoint 10.77.1.1 10.77.1.254/24 10.77.2.1
check "a route already there: the job refuses, naming it" sh -c "grep -q '^failed' $tmp/A2.out && grep -q 'File exists.*already there' $tmp/A2.err"
check "... and hands over no undo for it (the state file records no route)" sh -c "! grep -q '^undo route' /run/hosts/a/forward.state"
stop A2 6
check "... and the route survives the job's undo" sh -c "[ \$(cat $tmp/A2.rc) = 1 ] &&
	ip -n a -4 route show 10.77.2.1/32 | grep -q 'via 10.77.1.254 dev va' && [ ! -e /run/hosts/a/forward.state ]"
ip -n a route del 10.77.2.1/32

# ---- the janitor killed ----------------------------------------------------------------
start F2 5 f $FWD
j=$(janitor_of F2)
kill -KILL "$j"
stop F2 5
check "the janitor SIGKILLed: the rank says so, naming netmem cleanup" \
	sh -c "grep -q 'janitor .* was killed.*netmem cleanup' $tmp/F2.err"
check "... and the host keeps forwarding, its state file left" sh -c "[ \$(cat $P/fa/forwarding) = 1 ] && [ -e $S ]"
NM_USAGE_ERR=$tmp/next.err expect_usage "the next job on that host refuses" "$T" $FWD </dev/null
check "... in one line naming netmem cleanup" grep -q '`netmem cleanup`' "$tmp/next.err"
$N cleanup >"$tmp/cleanup.out" 2>&1; rc=$?
check "netmem cleanup: exit 0, says what it undid" sh -c "[ $rc = 0 ] && grep -q 'net/ipv4/conf/fa/forwarding: 1 -> 0' $tmp/cleanup.out"
same "... every setting as before the job, the state file removed"
check "netmem cleanup again: nothing to undo, exit 0" sh -c "$N cleanup | grep -q 'nothing to undo'"

# netmem cleanup leaves a running job's changes to its janitor.
start F3 5 f $FWD
$N cleanup >"$tmp/busy.out" 2>&1; rc=$?
check "netmem cleanup while a job's janitor holds the file: refused (exit 1), nothing undone" \
	sh -c "[ $rc = 1 ] && grep -q 'janitor holds' $tmp/busy.out && [ \$(cat $P/fa/forwarding) = 1 ] && [ -e $S ]"
stop F3 5
same "... the job's own undo then"

# SIGTERM (a session's cleanup) makes the janitor undo at once; the rank
# SIGKILLed, its janitor undoes. Each janitor is held 1 s before it installs
# its handlers (NETMEM_TEST_JANITOR_LATE_MS), where a loaded host once
# delayed it: the SIGTERM lands there, and must wait, blocked since the
# fork, rather than kill it with the changes in place.
NETMEM_TEST_JANITOR_LATE_MS=1000; export NETMEM_TEST_JANITOR_LATE_MS
start F4 5 f $FWD
kill -TERM "$(janitor_of F4)"
until_gone $S
same "the janitor SIGTERMed as it starts: it undoes once its handlers are in, and removes the state file"
stop F4 5

start F5 5 f $FWD
kill -KILL "$(cat "$tmp/F5.pid")"
until_gone $S
same "the forwarder's rank SIGKILLed: its janitor undoes everything"
stop F5 5 2>/dev/null
unset NETMEM_TEST_JANITOR_LATE_MS

t_summary
