#!/bin/sh
# Runs every tests/integration/test_*.sh (needs an RDMA device: run it under
# tests/vm/softroce-run) and prints "N passed, N failed" over all of them.
cd "$(dirname "$0")/../.." || exit 1
pass=0; fail=0
for t in tests/integration/test_*.sh; do
	echo "# $t"
	out=$(mktemp)
	sh "$t" 2>&1 | tee "$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
	if [ -z "$line" ]; then
		echo "not ok - $t ended without a summary"; fail=$((fail + 1))
	else
		pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
		fail=$((fail + $(echo "$line" | cut -d' ' -f3)))
	fi
	rm -f "$out"
done
# A distinct closing line: a run cut short (VM timeout) must not be mistaken
# for the last test file's summary.
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
