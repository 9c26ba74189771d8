#!/bin/sh
# run_all.sh on the host, without verbs: its run directories (stamped, the
# latest link, an interrupted run resumed, a finished one left alone) on the
# part that needs no NIC (--class sim --here: CoRM's simulator, its figures,
# the report), and bad options (one line, exit 2). The configs' part runs in
# the VM lanes (tests/integration/test_run_all.sh).
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
t_summary
