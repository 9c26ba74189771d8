#!/bin/sh
# Runs every tests/integration/test_*.sh, or the test files named as
# arguments (needs an RDMA device: run it under tests/vm/softroce-run), and
# prints each file's count and elapsed time, then "integration: N passed,
# N failed" over all of them.
cd "$(dirname "$0")/../.." || exit 1
[ $# -gt 0 ] || set -- tests/integration/test_*.sh
pass=0; fail=0; skipped=0
ncpu=$(nproc --all)
. tests/lib.sh   # skipped_of
for t in "$@"; do
	echo "# $t"
	out=$(mktemp)
	start=$(date +%s)
	# the seconds the machine's CPUs were not idle over the file: elapsed
	# times the CPUs, less their idle time (/proc/uptime). In a guest, an
	# upper bound on the host CPU it used (a vCPU the host descheduled
	# still looks busy to its guest)
	read -r u0 i0 </proc/uptime
	sh "$t" 2>&1 | tee "$out"
	read -r u1 i1 </proc/uptime
	busy=$(awk -v a="$u0" -v b="$u1" -v i="$i0" -v j="$i1" -v n="$ncpu" \
		'BEGIN { x = (b - a) * n - (j - i); printf "%.0f", x < 0 ? 0 : x }')
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
	if [ -z "$line" ]; then
		echo "not ok - $t ended without a summary"; fail=$((fail + 1))
	else
		pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
		fail=$((fail + $(echo "$line" | cut -d' ' -f3)))
		skipped=$((skipped + $(skipped_of "$line")))
	fi
	# Per-file times show where the lane's minutes go (tests/README.md).
	echo "# $t: ${line:-no summary} ($(( $(date +%s) - start )) s; CPU busy $busy s)"
	rm -f "$out"
done
# A distinct closing line: a run cut short (VM timeout) must not be mistaken
# for the last test file's summary.
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
