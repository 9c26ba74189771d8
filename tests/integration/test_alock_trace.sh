#!/bin/sh
# ALock, Fig. 2 of the paper replayed frame by frame on real verbs (Soft-RoCE):
# builds tests/integration/alock_trace.c through the Makefile (make
# build/tests/alock_trace, with its flags and the project's objects) and runs
# it on 2 ranks. Its TAP lines and summary are ours.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=build/tests/alock_trace
if ! make --no-print-directory "$T" >"$tmp/make.out" 2>&1; then
	notok "alock trace: make $T failed: $(tail -c 600 "$tmp/make.out" | tr '\n' '|')"
	t_summary; exit 1
fi
mpirun --oversubscribe --bind-to none -np 2 "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$tmp/out"; then
	echo "not ok - alock trace ended without a summary (exit $rc): $(head -c 600 "$tmp/err" | tr '\n' '|')"
	echo "0 passed, 1 failed"
	exit 1
fi
[ "$rc" -eq 0 ]
