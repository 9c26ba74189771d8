#!/bin/sh
# ALock, Fig. 2 of the paper replayed frame by frame on real verbs (Soft-RoCE):
# builds tests/integration/alock_trace.c against the project's objects (make
# must have run) and runs it on 2 ranks. Its TAP lines and summary are ours.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPICC=${MPICC:-mpicc}
objs=$(ls build/harness/*.o build/primitives/*.o build/numa/*.o 2>/dev/null | grep -v '^build/harness/main\.o$')
if [ ! -f build/primitives/alock.o ] || [ -z "$objs" ]; then
	notok "alock trace: build/ objects missing (run make first)"
	t_summary; exit 1
fi
if ! $MPICC -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
	-Wno-missing-field-initializers -O2 -g -pthread -Iharness -Inuma -Iprimitives -Iworkloads \
	-o "$tmp/alock_trace" tests/integration/alock_trace.c $objs \
	-libverbs -lnuma -lhwloc -ljansson -lm -pthread >"$tmp/cc.err" 2>&1; then
	notok "alock trace: does not build: $(head -c 600 "$tmp/cc.err" | tr '\n' '|')"
	t_summary; exit 1
fi
mpirun --oversubscribe --bind-to none -np 2 "$tmp/alock_trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$tmp/out"; then
	echo "not ok - alock trace ended without a summary (exit $rc): $(head -c 600 "$tmp/err" | tr '\n' '|')"
	echo "0 passed, 1 failed"
	exit 1
fi
[ "$rc" -eq 0 ]
