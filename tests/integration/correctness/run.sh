#!/bin/sh
# The correctness lane: the lock and kv test files, whose mutual-exclusion
# and read checks need threads that really run at once, in a guest of two
# vCPUs (NETMEM_CORRECTNESS_SMP, default 2). On one vCPU a broken lock is
# caught only when the guest preempts a holder inside its few-instruction
# critical section: ALock's CPU-local section never was in
# tests/bench/lock-detect.sh's runs (tests/README.md). Every check that a
# concurrent event happened is forced by a handshake in these files; the
# vCPUs give the checks of what must never happen their power.
#   tests/integration/correctness/run.sh          run them (under make check)
#   tests/integration/correctness/run.sh --list   the files, one per line
# Ends with "integration: N passed, N failed".
cd "$(dirname "$0")/../../.." || exit 1
files="tests/integration/test_words.sh tests/integration/test_alock.sh tests/integration/test_lock.sh tests/integration/test_ticket_mpi.sh
tests/integration/test_txn.sh tests/integration/test_kv.sh"
if [ "${1:-}" = --list ]; then
	printf '%s\n' $files
	exit 0
fi
NETMEM_VM_SMP=${NETMEM_CORRECTNESS_SMP:-2} exec tests/vm/softroce-run --timeout "${NETMEM_VM_TIMEOUT:-1500}" -- \
	tests/integration/run-all.sh $files
