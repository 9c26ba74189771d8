#!/bin/sh
# A rank that stops ends the job: a 2-rank READ sweep, rank 1 (the target)
# SIGSTOPped once the first point is on disk (a line in the document's
# journal). Rank 0 keeps reading (one-sided operations need no target CPU),
# finishes its point and then waits for rank 1 at most --timeout seconds: one
# line names rank 1, its host and where it was, the job exits non-zero, the
# finished points are folded into the document, and --resume completes the
# sweep. Then a barrier point with --nodes 1: the rank that sits it out waits
# for the one participant in a collective, and a participant that stops
# there ends the job the same way, while one that only loops long does not.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
nm_setup ops

host=$(hostname)
DUR=2 TMO=5 NPT=8
SWEEP="--op read -s 8..1k -D $DUR --timeout $TMO"
doc=$tmp/stall.json
now() { cut -d' ' -f1 /proc/uptime; }
# The pids of the job's ranks with this OMPI_COMM_WORLD_RANK (not mpirun's);
# DOC: the job's --output (default: the ops sweep's).
rank_pids() {
	for p in $(pgrep -f -- "--output ${2:-$doc}"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
	done
}
# Sets r0 and r1 to the pids of the job ($job) writing DOC once both exist
# (at most 150 s).
find_ranks() {
	r0= r1=; _i=0
	while [ $_i -lt 300 ] && { [ -z "$r0" ] || [ -z "$r1" ]; } && kill -0 $job 2>/dev/null; do
		sleep 0.5; _i=$((_i + 1))
		r0=$(rank_pids 0 "$1") r1=$(rank_pids 1 "$1")
	done
}
# CPU seconds a process has used (user + system).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Bounded: a job that ignores the stop is killed after 300 s (exit 124).
# Points last DUR s each, so the sweep outlasts the (slow, emulated) polling.
timeout -k 5 300 $MPI -np 2 $N ops $Q --output "$doc" $SWEEP >"$tmp/stall.out" 2>"$tmp/stall.err" &
job=$!
find_ranks "$doc"
i=0
# finished points go to the journal first (harness/result.h)
while [ $i -lt 600 ] && ! [ -s "$doc.journal" ]; do
	sleep 0.2; i=$((i + 1))
done
check "first point on disk (its journal line), rank 1 found (pid ${r1:-none})" \
	sh -c "[ -n '$r1' ] && head -1 $doc.journal | jq -e '.valid'"
t0=$(now)
[ -n "$r1" ] && kill -STOP $r1
wait $job
rc=$?
t1=$(now)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
# Rank 0 may finish the point it is in (DUR s) before it waits TMO s; the
# rest is slack for an emulated VM.
check "the job ends $secs s after the stop (limit $DUR + $TMO + 30 s)" \
	awk -v s="$secs" -v l=$((DUR + TMO + 30)) 'BEGIN { exit !(s <= l) }'
check "exit status non-zero, not the test's timeout (exit $rc)" sh -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]"
line=$(grep 'no sign of life' "$tmp/stall.err" | head -1)
n=$(grep -c 'no sign of life' "$tmp/stall.err")
check "exactly one line about it ($n): $line" [ "$n" -eq 1 ]
check "it names rank 1, its host and what it was doing" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^netmem: rank 0 ($host) waited [0-9]* s at .* during point .*: rank 1 ($host) .* (last seen .* at point [0-9]*/$NPT '" sh "$line"
# It gave up TMO s after it began to wait or last heard from rank 1,
# whichever was later.
waited=$(printf '%s\n' "$line" | sed -n 's/.* waited \([0-9]*\) s at .*/\1/p')
ago=$(printf '%s\n' "$line" | sed -n 's/.*last seen \([0-9]*\) s ago.*/\1/p')
quiet=$(( ${waited:-0} < ${ago:-0} ? ${waited:-0} : ${ago:-0} ))
check "rank 0 gave up after the timeout, give or take a second (waited ${waited:-?} s, last seen ${ago:-?} s ago)" \
	sh -c "[ $quiet -ge $TMO ] && [ $quiet -le $((TMO + 1)) ]"
check "the finished points are folded into the document, valid, the sweep cut short" \
	sh -c "jq -e '(.points | length) >= 1 and (.points | length) < $NPT and all(.points[]; .valid) and (.summary | length) == (.points | length)' $doc && ! [ -e $doc.journal ]"
for p in $r0 $r1; do kill -CONT "$p" 2>/dev/null; done
sleep 1
left=
for p in $r0 $r1; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
check "no rank left behind${left:+ (pids$left)}" [ -z "$left" ]
for p in $left; do kill -KILL "$p" 2>/dev/null; done

# --resume completes the sweep.
$MPI -np 2 $N ops $Q --output "$doc" $SWEEP --resume >/dev/null 2>"$tmp/resume.err"
rc=$?
check "--resume after the stop: exit 0 and all $NPT points valid (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && jq -e '(.points | length) == $NPT and all(.points[]; .valid)' $doc"

# A rank woken from a stop judges its peers by the time it ran: both ranks
# stopped for longer than the timeout, rank 1 resumed first and rank 0 a
# second later (as a paused VM resumes). Rank 1, awake alone, must not end
# the job for rank 0's silence while it was itself stopped; the sweep
# finishes. (mpirun wakes a stopped rank with SIGCONT as it ends a job: the
# stopped rank 1 above then said "rank 0 shows no sign of life" too.)
pdoc=$tmp/pause.json
timeout -k 5 300 $MPI -np 2 $N ops $Q --output "$pdoc" --op read -s 8..32 -D $DUR --timeout $TMO \
	>"$tmp/pause.out" 2>"$tmp/pause.err" &
job=$!
find_ranks "$pdoc"
i=0
while [ $i -lt 600 ] && ! [ -s "$pdoc.journal" ] && kill -0 $job 2>/dev/null; do
	sleep 0.2; i=$((i + 1))
done
[ -n "$r0" ] && [ -n "$r1" ] && kill -STOP $r0 $r1
sleep $((TMO + 3))
# the stop took: both ranks still stopped ("T") when rank 1 is woken
states=$(for p in $r0 $r1; do awk '{ printf "%s", $3 }' "/proc/$p/stat" 2>/dev/null; done)
[ -n "$r1" ] && kill -CONT $r1
sleep 1
[ -n "$r0" ] && kill -CONT $r0
wait $job
rc=$?
f=$T_FAIL
check "both ranks stopped $((TMO + 3)) s (timeout $TMO), rank 1 resumed 1 s before rank 0: the sweep finished, exit $rc, no stall line" \
	sh -c "[ -n '$r1' ] && [ '$states' = TT ] && [ $rc -eq 0 ] && ! grep -q 'no sign of life' $tmp/pause.err && jq -e '(.points | length) == 3 and all(.points[]; .valid)' $pdoc"
[ $T_FAIL -eq $f ] || { echo "$rc" >"$tmp/pause.rc"; echo "#   ranks found: 0 ${r0:-none}, 1 ${r1:-none}, their states before the wake-up: ${states:-none}"; nm_diag pause; }
for p in $r0 $r1; do kill -CONT "$p" 2>/dev/null; done

# The barrier's sit-out. Rank 0 runs the SST barrier alone (--nodes 1) for
# far longer than this test lasts; rank 1 sits the point out in a collective.
bdoc=$tmp/bar.json
timeout -k 5 300 $MPI -np 2 $N barrier $Q --output "$bdoc" --impl sst --nodes 1 -n 2000000000 --validate 1 \
	--timeout $TMO >"$tmp/bar.out" 2>"$tmp/bar.err" &
job=$!
find_ranks "$bdoc"
# In its loop rank 0 spins: two half-second looks with 0.4 s of CPU each.
busy=0 i=0 c0=0
while [ $i -lt 240 ] && [ $busy -lt 2 ] && [ -n "$r0" ] && kill -0 $job 2>/dev/null; do
	a=$(cpu_s "$r0"); sleep 0.5; b=$(cpu_s "$r0"); i=$((i + 1))
	if awk -v a="$a" -v b="$b" 'BEGIN { exit !(b - a >= 0.4) }'; then busy=$((busy + 1)); else busy=0; fi
	c0=$b
done
# It then loops longer than the timeout: were it silent meanwhile, rank 1
# would end the job for it.
i=0
while [ $i -lt 240 ] && [ -n "$r0" ] && kill -0 $job 2>/dev/null &&
	awk -v a="$c0" -v b="$(cpu_s "$r0")" -v t=$((TMO + 2)) 'BEGIN { exit !(b - a < t) }'; do
	sleep 0.5; i=$((i + 1))
done
looped=$(awk -v a="$c0" -v b="$(cpu_s "${r0:-0}")" 'BEGIN { printf "%.1f", b - a }')
check "barrier --nodes 1: rank 0 (pid ${r0:-none}) in its loop for $looped CPU s (over $TMO + 2), the job still running" \
	sh -c "[ -n '$r0' ] && [ -n '$r1' ] && kill -0 $job && awk -v l=$looped -v t=$((TMO + 2)) 'BEGIN { exit !(l >= t) }'"
t0=$(now)
[ -n "$r0" ] && kill -STOP $r0
wait $job
rc=$?
secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
check "barrier: stopping the participant ends the job $secs s later (limit $TMO + 30 s)" \
	awk -v s="$secs" -v l=$((TMO + 30)) 'BEGIN { exit !(s <= l) }'
check "barrier: exit status non-zero, not the test's timeout (exit $rc)" sh -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]"
line=$(grep 'no sign of life' "$tmp/bar.err")
n=$(grep -c 'no sign of life' "$tmp/bar.err")
check "barrier: one line, from the rank that sat out, naming rank 0, its host and the point ($n): $line" \
	sh -c "[ $n -eq 1 ] && printf '%s\n' \"\$1\" | grep -q '^netmem: rank 1 ($host) waited [0-9]* s at barrier during point 1/1 .*: rank 0 ($host) has not arrived and shows no sign of life (last seen [0-9]* s ago, at point 1/1 '" sh "$line"
for p in $r0 $r1; do kill -CONT "$p" 2>/dev/null; done
sleep 1
left=
for p in $r0 $r1; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
check "barrier: no rank left behind${left:+ (pids$left)}" [ -z "$left" ]
for p in $left; do kill -KILL "$p" 2>/dev/null; done
t_summary
