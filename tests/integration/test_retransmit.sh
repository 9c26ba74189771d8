#!/bin/sh
# Locks under transport retries: an ACK timeout of 8 us (-u 1) makes rxe
# retransmit under the emulated CPU's long round trips, and rxe may then run
# a retried atomic twice. Whatever the retries do to a lock, the job must
# end within its deadline: either every point finishes and those that saw
# retries say so (`retransmitted: true` under the table row, a remark on a
# point that failed its checks), or the job exits 1 with one line naming
# rank, lock and what went wrong, the finished points on disk. A hang (the
# outer timeout) or a crash fails. Whether rxe retries at all is the host's
# schedule: its retransmit timer is at least a jiffy (4 ms), which a quiet
# host answers within, and its loopback passes no netdev a loss could be put
# on. So a retry is an observation (a "# observed" line), and the checks
# of what a retried point says are skipped when none retried.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup lock
OUTER=300   # seconds; the job's own deadline (--timeout) is 15 s per wait

run_retries() {
	name=$1; shift
	timeout -s KILL $OUTER $MPI -np 2 $N lock $Q -u 1 --timeout 15 --output "$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
# A known ending: 0, or 1 with a netmem line naming a rank (a lock's wait,
# a failed completion, an id that names no thread, a duplicated ticket).
ended_well() {
	rc=$(nm_rc "$1")
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 1 ] && grep -Eq '^netmem: rank [0-9]+ .*(waited more than|failed|names no thread|FETCH_AND_ADD twice|no completion)' "$tmp/$1.err"
}
# Retries happened: a point says so, or the failure is the transport's.
provoked() {
	jq -e '[.points[] | select(.nic_retransmissions == true)] | length > 0' "$tmp/$1.json" >/dev/null 2>&1 ||
		grep -Eq 'retry|retransmi|FETCH_AND_ADD twice' "$tmp/$1.err"
}
# honest LOCK WHAT: the document is on disk (written at the job's start,
# whatever happens later) and each finished point is valid, or invalid with
# the remark; a job that ended before its first point finished leaves
# nothing to judge: skipped, not passed.
honest() {
	n=$(jq '.points | length' "$tmp/$1.json" 2>/dev/null)
	if [ -z "$n" ]; then notok "$2 (no readable document)"
	elif [ "$n" = 0 ]; then skip "$2" "no point finished before the job ended (exit $(nm_rc "$1"))"
	elif jq -e 'all(.points[]; .valid or (.nic_retransmissions == true and (.remark // "" | test("retransmi"))))' \
		"$tmp/$1.json" >/dev/null 2>&1; then ok "$2"
	else notok "$2"; fi
}
# marked LOCK WHAT: the table row of a finished point that retried is
# followed by the marker; with no such point there is nothing to judge.
marked() {
	r=$(jq '[.points[] | select(.nic_retransmissions == true)] | length' "$tmp/$1.json" 2>/dev/null)
	if [ -z "$r" ]; then notok "$2 (no readable document)"
	elif [ "$r" = 0 ]; then skip "$2" "no finished point retried"
	elif grep -q 'retransmitted: true' "$tmp/$1.out"; then ok "$2"
	else notok "$2"; fi
}

for lock in spin mcs ticket alock; do
	run_retries "$lock" --lock "$lock" -K 2 -p 50 -T 2 -n 150 --cs counter --validate 30
	check "$lock, ACK timeout 8 us: ended within ${OUTER} s, exit 0 or 1 with a line naming rank and cause (exit $(nm_rc "$lock"))" ended_well "$lock"
	if provoked "$lock"; then echo "# observed: $lock: the transport retried (a point records nic_retransmissions, or the failure names it)"
	else echo "# observed: $lock: no retry this run (the host answered within rxe's timer)"; fi
	honest "$lock" "$lock: finished points are on disk, valid or marked as retried"
	marked "$lock" "$lock: a point that retried is marked 'retransmitted: true' under its row"
done
t_summary
