#!/bin/sh
# corm-compact.sh: the time per merged block of CoRM's compaction at 1M and
# 8M objects (75% freed), and the ratio of the two: the pairing is O(n log n)
# or better when the ratio stays near 1 (goal: within 1.5x). Host only, no
# MPI or device: a unit-level driver (tests/bench/corm-compact.c) fills a
# heap of 4 KiB blocks with 24-byte objects, frees 75% at random, compacts
# once and reads every survivor back by its old pointer.
#
#   tests/bench/corm-compact.sh [--out DIR] [--objects "1000000 8000000"]
#
# A benchmark: it reports, never asserts on time (exit 1 only when the
# driver's own check of the survivors failed). About 1 GiB of memory at 8M
# objects. Output: DIR/corm-compact-<UTC stamp>/table.txt (DIR defaults to
# results/bench).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench objects="1000000 8000000"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--objects) objects=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "corm-compact.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
dir="$out/corm-compact-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$dir" || exit 1
make build/bench/corm-compact >/dev/null || { echo "corm-compact.sh: build failed (run make)" >&2; exit 1; }
{
	echo "# CoRM compaction, 4 KiB blocks, 24-byte objects, 75% freed (host, no NIC)"
	# shellcheck disable=SC2086
	build/bench/corm-compact $objects
} | tee "$dir/table.txt"
