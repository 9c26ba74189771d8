#!/bin/sh
# journal-overhead.sh: what recording one finished point costs in a result
# document, at 100 and at 10,000 points (harness/result.c's journal), next to
# the former scheme (the whole document rewritten after every point) at 100
# and 1,000 points. Host only, no MPI or device: a unit-level driver
# (tests/bench/journal-bench.c) records points shaped like netmem ops's.
#
#   tests/bench/journal-overhead.sh [--out DIR] [--points "100 10000"] [--rewrite "100 1000"]
#
# The documents go to DIR (default results/bench), so the fsyncs hit the
# file system results are written to; /tmp may be a RAM file system. A
# benchmark: it reports, never asserts. Output: DIR/journal-overhead-<UTC
# stamp>/table.txt.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench points="100 10000" rewrite="100 1000"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--points) points=$2; shift 2 ;;
	--rewrite) rewrite=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "journal-overhead.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup journal-overhead "$out"
make build/bench/journal-bench >/dev/null || exit 1
fs=$(stat -f -c %T "$dir" 2>/dev/null || echo unknown)
{
	echo "# result journal: per-point cost of nm_result_add_point (file system: $fs)"
	# shellcheck disable=SC2086
	build/bench/journal-bench "$dir" $points ${rewrite:+--rewrite $rewrite}
} | tee "$dir/table.txt"
