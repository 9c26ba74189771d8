#!/bin/sh
# Every file netmem writes replaces the old one whole or not at all
# (harness/durable.h). Under a file-size limit (ulimit -f, a write then fails
# with EFBIG, as on a full disk) corm-sim -o, corm-trace -o, ycsb -o, export
# --csv, report (report.md and index.html as a pair) and preflight --json
# exit non-zero with one line saying what they could not write, the old file
# is intact and no temp file is left beside it. Host only, no device.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=$PWD/bin/netmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OLD='the old file, whole'

# A run directory for export and report: two simulator documents.
mkdir "$tmp/run"
$N corm-sim --mode prob --occupancy 0.25,0.5 --sizes 128,256 --mc 2000 -o "$tmp/run/corm-fig7.json" &&
	$N corm-sim --mode prob --occupancy 0.75 --sizes 64,512 --mc 2000 -o "$tmp/run/corm-fig8.json" ||
	notok "the run directory could not be made"

# The shell's unit of ulimit -f (512 bytes in dash, 1024 in bash).
(trap '' XFSZ; ulimit -f 1; head -c 4096 /dev/zero >"$tmp/unit") 2>/dev/null
unit=$(wc -c <"$tmp/unit")
BLOCKS=1

# limited WHAT FILE... -- CMD...: CMD under a file-size limit of $BLOCKS; each
# FILE held $OLD before. Passes when CMD exits non-zero, its stderr has one
# line and it names the first FILE, each FILE still holds $OLD and the
# directory holds no temp file.
limited() {
	what=$1; shift
	files=
	while [ "$1" != -- ]; do files="$files $1"; shift; done
	shift
	for f in $files; do echo "$OLD" >"$f"; done
	(ulimit -f "$BLOCKS"; "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?
	first=${files# }; first=${first%% *}
	why=
	[ "$rc" != 0 ] || why="exit 0"
	[ "$(wc -l <"$tmp/err")" = 1 ] || why="$why; stderr has $(wc -l <"$tmp/err") lines"
	grep -q "cannot write.*$first" "$tmp/err" || why="$why; stderr does not name $first"
	for f in $files; do [ "$(cat "$f")" = "$OLD" ] || why="$why; $f changed"; done
	temps=$(ls -a "$(dirname "$first")" | grep -c '\.tmp')
	[ "$temps" = 0 ] || why="$why; $temps temp file(s) left"
	if [ -z "$why" ]; then ok "$what: exit $rc, one line, the old file intact, no temp file"; else
		notok "$what:$why: $(head -c 300 "$tmp/err" | tr '\n' '|')"
	fi
	for f in $files; do rm -f "$f"; done
}

limited "corm-sim -o past the limit" "$tmp/sim.json" -- \
	$N corm-sim --mode prob --occupancy 0.25 --sizes 128,256 --mc 2000 -o "$tmp/sim.json"
limited "corm-trace -o past the limit" "$tmp/t.trace" -- $N corm-trace -n 2000 -o "$tmp/t.trace"
limited "ycsb -o past the limit" "$tmp/y.trace" -- $N ycsb -n 5000 -o "$tmp/y.trace"
limited "export --csv past the limit" "$tmp/run.csv" -- $N export "$tmp/run" --csv "$tmp/run.csv"
# The pair: a limit report.md fits under and index.html does not, so a
# report.md written whole must still wait for its twin.
$N report "$tmp/run" >/dev/null
md=$(wc -c <"$tmp/run/report.md"); html=$(wc -c <"$tmp/run/index.html")
BLOCKS=$(((md + html) / 2 / unit))
if [ $((BLOCKS * unit)) -gt "$md" ] && [ $((BLOCKS * unit)) -lt "$html" ]; then
	limited "report with room for report.md only ($BLOCKS blocks): report.md and index.html both left as they were" \
		"$tmp/run/report.md" "$tmp/run/index.html" -- $N report "$tmp/run"
else
	notok "report.md ($md bytes) is not smaller than index.html ($html bytes) by a block"
fi
BLOCKS=1

# preflight runs under MPI, whose runtime needs files of its own: the limit
# is the rank's alone. The host has no device, which preflight says in a
# line of its own; the line about the file is the one checked.
echo "$OLD" >"$tmp/pf.json"
mpirun -np 1 sh -c "ulimit -f 1; exec $N preflight -d nosuchdev0 --json $tmp/pf.json configs/check/*.json" \
	>"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" != 0 ] && [ "$(grep -c "cannot write $tmp/pf.json" "$tmp/err")" = 1 ] &&
	[ "$(cat "$tmp/pf.json")" = "$OLD" ] && [ "$(ls -a "$tmp" | grep -c '\.tmp')" = 0 ]; then
	ok "preflight --json past the limit: exit $rc, one line, the old file intact, no temp file"
else
	notok "preflight --json past the limit: exit $rc: $(head -c 400 "$tmp/err" | tr '\n' '|')"
fi

# Without the limit the same commands replace the old files.
echo "$OLD" >"$tmp/run/report.md"
echo "$OLD" >"$tmp/run.csv"
check "without a limit, export --csv and report replace the old files, no temp file" sh -c \
	"$N export $tmp/run --csv $tmp/run.csv 2>/dev/null && $N report $tmp/run >/dev/null &&
	 head -n 1 $tmp/run.csv | grep -q '^document,experiment,' && grep -q '^# netmem-bench' $tmp/run/report.md &&
	 grep -q '<html' $tmp/run/index.html && [ \$(ls -a $tmp/run $tmp | grep -c '\\.tmp') = 0 ]"
t_summary
