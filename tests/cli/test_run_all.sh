#!/bin/sh
# run_all.sh on the host, without verbs: its run directories (stamped, the
# latest link, an interrupted run resumed, a finished one left alone) on the
# part that needs no NIC (--class sim --here: CoRM's simulator, its figures,
# the report), the mpirun lines it generates for odd paths (through a
# stand-in mpirun), and bad options (one line, exit 2). The configs' part
# runs in the VM lanes (tests/integration/test_run_all.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# A tree of its own, so results/ and its latest link are the test's.
for d in bin configs plots tests; do ln -s "$PWD/$d" "$tmp/$d"; done
ln -s "$PWD/run_all.sh" "$tmp/run_all.sh"
mkdir "$tmp/results"
# One simulator document (the cheapest) is enough for the directories.
R="$tmp/run_all.sh --scale check --class sim --only corm-fig7 --here"

$R >"$tmp/1.out" 2>&1; rc=$?
first=$(readlink "$tmp/results/latest")
check "a run: exit 0 ($rc), a stamped directory linked as results/latest ($first)" \
	sh -c "[ $rc = 0 ] && echo '$first' | grep -Eq '^check-[0-9]{8}T[0-9]{6}Z$' && [ -d '$tmp/results/$first' ]"
d=$tmp/results/$first
check "its figures, report and finished mark" sh -c \
	". tests/lib.sh; nm_figure_ok $d/corm-fig7.svg && nm_figure_ok $d/corm-fig7.png && [ -s $d/index.html ] && [ -s $d/report.md ] && [ -e $d/.finished ]"

# Clover's Fig. 3 is computed on the host too: its document (the keys of
# the paper's Sec. 3.1 among them) and its figure.
"$tmp/run_all.sh" --scale check --class sim --only clover-fig3 --here --out "$tmp/c3" >"$tmp/c3.out" 2>&1; rc=$?
check "clover-fig3: the state table's document, with 10K and 100K keys, and its figure ($rc)" sh -c \
	". tests/lib.sh; [ $rc = 0 ] && jq -e '.experiment == \"clover-state\" and ([.summary[].params.keys] | index(10000) and index(100000))' $tmp/c3/clover-fig3.json >/dev/null &&
	 nm_figure_ok $tmp/c3/clover-fig3.png && nm_figure_ok $tmp/c3/clover-fig3.svg"

# Interrupted (no finished mark): the next run continues in it.
rm "$d/.finished"
$R >"$tmp/2.out" 2>&1; rc=$?
check "an interrupted run is resumed in its directory, then finished" sh -c \
	"[ $rc = 0 ] && grep -q 'resuming the interrupted run results/$first' $tmp/2.out &&
	 [ \"\$(readlink $tmp/results/latest)\" = '$first' ] && [ -e $d/.finished ]"

# Finished: left alone, the next run starts another directory.
sleep 1 # a new stamp (seconds)
sum=$(cat "$d"/*.json | cksum)
$R >"$tmp/3.out" 2>&1; rc=$?
second=$(readlink "$tmp/results/latest")
check "a finished run is left alone: the next run gets a new directory ($second)" sh -c \
	"[ $rc = 0 ] && [ '$second' != '$first' ] && [ -e '$tmp/results/$second/.finished' ] &&
	 ! grep -q resuming $tmp/3.out && [ \"\$(cat $d/*.json | cksum)\" = '$sum' ]"

# --no-report: the jobs only, the run stays unfinished.
$R --out "$tmp/part" --no-report >"$tmp/4.out" 2>&1; rc=$?
check "--no-report: documents, no figure, no report, not finished" sh -c \
	"[ $rc = 0 ] && [ -s $tmp/part/corm-fig7.json ] && [ ! -e $tmp/part/corm-fig7.png ] && [ ! -e $tmp/part/report.md ] && [ ! -e $tmp/part/.finished ]"

# A config preflight refused in a lane (preflight-LANE.json in the run
# directory) is named in the report with its reason.
mkdir -p "$tmp/pf"
echo '{"schema": "netmem-preflight/1", "configs": [{"config": "configs/check/ops-bw.json", "verdict": "does_not_fit",
 "reason": "rank 1 on host node2: pins 3.0 GiB of registered memory, above RLIMIT_MEMLOCK 64.0 MiB"}]}' >"$tmp/pf/preflight-plain.json"
$R --out "$tmp/pf" >"$tmp/5.out" 2>&1; rc=$?
check "the report names what preflight refused, with the reason" sh -c \
	"[ $rc = 0 ] && grep -q 'Skipped by preflight' $tmp/pf/report.md && grep -q 'ops-bw.json did not run: rank 1 on host node2: pins 3.0 GiB' $tmp/pf/report.md"

# Paths that hold a quote, blanks and a $(...) reach mpirun and gnuplot as
# they are: the generated scripts quote every word (printf %q). A stand-in
# mpirun writes down its arguments, one a line, a blank line after each
# call; nothing of a path may run as a command (the touch of "ran").
mkdir "$tmp/fake"
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done >>"$NM_FAKE_LOG"; echo >>"$NM_FAKE_LOG"\n' >"$tmp/fake/mpirun"
chmod +x "$tmp/fake/mpirun"
odd="$tmp/it's \$(touch $tmp/ran) \"x\""
printf 'h1 slots=3\nh2 slots=1\n' >"$tmp/hosts 'a'"
PATH="$tmp/fake:$PATH" NM_FAKE_LOG=$tmp/mpirun.log NETMEM_HOSTFILE="$tmp/hosts 'a'" "$tmp/run_all.sh" --scale check \
	--only ops-lat,clover-fig2 --class plain,cluster --here --no-report --preflight --np 3 --out "$odd" \
	--mpirun-args "-x A=it's" >"$tmp/6.out" 2>&1; rc=$?
# arg WORD: the argument after WORD in each call, one a line
arg() { awk -v w="$1" 'p { print; p = 0 } $0 == w { p = 1 }' "$tmp/mpirun.log"; }
check "a run directory with a quote, blanks and \$(...): exit 0 ($rc), nothing of it run" sh -c \
	"[ $rc = 0 ] && [ ! -e '$tmp/ran' ] && [ -s \"\$1/.progress\" ]" - "$odd"
check "... each job's --output and preflight's --results are that directory" sh -c \
	'[ "$(printf "%s\n" "$2/ops-lat.json" "$2/clover-fig2.json")" = "$1" ]' - "$(arg --output)" "$odd"
check "... preflight: --results for both lanes" sh -c '[ "$(printf "%s\n" "$2" "$2")" = "$1" ]' - "$(arg --results)" "$odd"
check "... --np 3, the placed config's hostfile in it, -x A=it's as one word" sh -c \
	'[ "$1" = "$(printf "2\n3\n2\n4")" ] && [ "$2" = "$(printf "%s\n" "$4" "$3/.hosts-clover-fig2")" ] && [ "$5" = "A=it'"'"'s
A=it'"'"'s
A=it'"'"'s
A=it'"'"'s" ]' \
	- "$(arg -np)" "$(arg --hostfile)" "$odd" "$tmp/hosts 'a'" "$(arg -x)"
# with --hostfile (a stand-in make: this tree builds nothing)
printf '#!/bin/sh\n' >"$tmp/fake/make"; chmod +x "$tmp/fake/make"
rm -f "$tmp/mpirun.log"
PATH="$tmp/fake:$PATH" NM_FAKE_LOG=$tmp/mpirun.log "$tmp/run_all.sh" --scale check --hostfile "$tmp/hosts 'a'" \
	--only ops-lat --class plain --no-report --preflight --out "$odd" >"$tmp/6h.out" 2>&1; rc=$?
check "--hostfile with a quote and a blank: exit 0 ($rc), preflight's and the job's --hostfile as given" sh -c \
	'[ "$2" = 0 ] && [ "$1" = "$(printf "%s\n" "$3" "$3")" ]' - "$(arg --hostfile)" "$rc" "$tmp/hosts 'a'"
# more ranks than the hostfile has hosts (one rank a host): a warning that
# names the config and the counts, and the job still runs
rm -f "$tmp/mpirun.log"
PATH="$tmp/fake:$PATH" NM_FAKE_LOG=$tmp/mpirun.log "$tmp/run_all.sh" --scale paper --hostfile "$tmp/hosts 'a'" \
	--only corm-fig12-h4 --class plain --no-report --out "$tmp/few" >"$tmp/few.out" 2>&1; rc=$?
check "5 ranks on a hostfile of 2 hosts: exit 0 ($rc), one warning naming the config and both counts, the job run" sh -c \
	'[ "$1" = 0 ] && [ "$(grep -c "warning: configs/paper/corm-fig12-h4.json runs 5 ranks, one a host, but .* lists 2: ranks will share hosts" "$2")" = 1 ] &&
	 [ "$3" = 5 ]' - "$rc" "$tmp/few.out" "$(arg -np | tail -n 1)"
# figures and the report through gnuplot's shell calls
$R --out "$odd" >"$tmp/7.out" 2>&1; rc=$?
check "figures and report into that directory: exit 0 ($rc), nothing of it run" sh -c \
	". tests/lib.sh; [ $rc = 0 ] && [ ! -e '$tmp/ran' ] && nm_figure_ok \"\$1/corm-fig7.svg\" && [ -s \"\$1/report.md\" ]" - "$odd"

# usage ARGS...: exit 2 and one line on stderr
usage() {
	what=$*
	"$tmp/run_all.sh" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then ok "$what: $(cat "$tmp/err")"; else
		notok "$what: exit $rc, $(head -c 300 "$tmp/err" | tr '\n' '|')"
	fi
}
usage --scale huge
usage --class gpu
usage --here --hostfile /dev/null
usage --scale check --only no-such-config
usage --bogus
usage --scale check --only no-such-config --preflight
# a bad --np: refused before any job (the stand-in mpirun, should one start)
PATH="$tmp/fake:$PATH"; export NM_FAKE_LOG="$tmp/np.log"
H="--scale check --class plain --only ops-lat --here --no-report"
usage $H --np '2; touch '"$tmp/ran2"
usage $H --np 0
usage $H --np 2x
usage $H --np
check "--np '2; touch FILE' ran nothing" test ! -e "$tmp/ran2" -a ! -e "$tmp/np.log"
t_summary
