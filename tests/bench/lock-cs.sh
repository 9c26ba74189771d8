#!/bin/bash
# lock-cs.sh: ALock vs spinlock vs MCS at 100% locality, with the paper's
# empty critical section and with the counter section measured, side by side
# in one Soft-RoCE boot (the ALock paper's headline: ALock 22x the spinlock
# and 24x MCS at 100% locality on ConnectX-3).
#
#   tests/bench/lock-cs.sh [--here] [--out DIR] [--duration S] [--reps R] [--layout L] [--timeout SEC]
#
# A benchmark, not a test: it prints ops/s and ratios, it never asserts
# timing. Each repetition is one job over all six points (lock x cs), so the
# locks and sections alternate within a repetition rather than running in
# blocks; 2 ranks x 2 threads, 20 locks, p_local 100. Ratios are geometric
# means over the repetitions, with their spread (lowest and highest of the
# per-repetition ratios). --layout: the QP layout (thread-pair, the paper's,
# by default; per-rank). Emulated: only the ratios mean anything, and
# even they are rxe's (a kernel thread per QP), not a NIC's.
# --here runs on this host's verbs device instead of booting a VM (already
# inside one).
#
# Output: DIR/lock-cs-<UTC stamp>/ with one result document per repetition
# and table.txt. DIR defaults to results/bench.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=results/bench duration=2 reps=3 timeout=2400 here=0 layout=thread-pair
while [ $# -gt 0 ]; do
	case "$1" in
	--here) here=1; shift ;;
	--out) out=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--layout) layout=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "lock-cs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. tests/bench/lib.sh
bench_setup lock-cs "$out"
# -u 20: a 4 s ACK timeout, so that TCG's slow round trips do not retransmit.
cat >"$inner" <<INNER
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in \$(seq 1 $reps); do
	mpirun --oversubscribe --bind-to none -np 2 bin/netmem lock --lock alock,spin,mcs --cs empty,counter \
		-K 20 -p 100 -T 2 -D $duration --qp-layout $layout --validate 50 -u 20 --progress=false --seed \$r \
		--output "$dir/rep\$r.json" >"$dir/rep\$r.out" 2>&1
done
exit 0
INNER
bench_run lock-cs.sh "$here" "$timeout"
# geometric mean of ops/s per (lock, cs) over the repetitions, the ratios of
# those means, and the spread of the ratio within single repetitions
jq -rs '
  def gm: (map(log) | add) / length | exp;
  def ratio($a; $b; $cs): [.[] | [.points[] | select(.valid and .params.cs == $cs)]
     | (map(select(.params.lock == $a)) | .[0].metrics.ops_per_sec) as $x
     | (map(select(.params.lock == $b)) | .[0].metrics.ops_per_sec) as $y
     | select($x != null and $y != null) | $x / $y];
  . as $docs
  | [.[].points[] | select(.valid) | {k: "\(.params.lock)/\(.params.cs)", v: .metrics.ops_per_sec}]
  | group_by(.k) | map({key: .[0].k, value: (map(.v) | gm)}) | from_entries
  | . as $g
  | ["cs", "alock ops/s", "spin ops/s", "mcs ops/s", "alock/spin", "(min-max)", "alock/mcs", "(min-max)"],
    (["empty", "counter"][] as $cs
     | ($docs | ratio("alock"; "spin"; $cs)) as $rs | ($docs | ratio("alock"; "mcs"; $cs)) as $rm
     | [$cs, ($g["alock/\($cs)"] | floor), ($g["spin/\($cs)"] | floor), ($g["mcs/\($cs)"] | floor),
        ($g["alock/\($cs)"] / $g["spin/\($cs)"] * 10 | round / 10),
        "\($rs | min * 10 | round / 10)-\($rs | max * 10 | round / 10)",
        ($g["alock/\($cs)"] / $g["mcs/\($cs)"] * 10 | round / 10),
        "\($rm | min * 10 | round / 10)-\($rm | max * 10 | round / 10)"])
  | @tsv' "$dir"/rep*.json | column -t -s "$(printf '\t')" | tee "$dir/table.txt"
echo "(Soft-RoCE in a VM: emulated; ratios only. QP layout $layout, $reps repetitions of $duration s per point. The paper, ConnectX-3: alock/spin 22x, alock/mcs 24x.)" | tee -a "$dir/table.txt"
