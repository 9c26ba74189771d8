#!/bin/sh
# Runs unit-test binaries (TAP output) and prints "N passed, N failed".
pass=0; fail=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	printf '%s\n' "$out" | grep '^not ok ' | sed "s#^#$(basename "$t"): #"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$(basename "$t"): exited $rc"; printf '%s\n' "$out" | tail -20; f=1
	fi
	echo "unit $(basename "$t"): $p passed, $f failed"
	pass=$((pass + p)); fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
