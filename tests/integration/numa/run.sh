#!/bin/sh
# The NUMA integration test on two NUMA nodes: on a host with two nodes and
# Soft-RoCE it runs there, otherwise in the VM with two emulated nodes
# (tests/vm/netmem-vm --numa: cpu 0 on node 0, cpu 1 on node 1), and in the
# same guest run_all.sh's NUMA configs at check scale (test_run_all.sh; into
# NETMEM_CHECK_RUN under make check). Ends with "integration: N passed,
# N failed" over both. The plain integration run (tests/integration/run-all.sh)
# runs test_numa.sh on one node.
cd "$(dirname "$0")/../../.." || exit 1
NETMEM_CHECK_CLASS=numa exec tests/vm/softroce-run --numa --timeout "${NETMEM_VM_TIMEOUT:-1800}" -- \
	tests/integration/run-all.sh tests/integration/test_numa.sh tests/integration/test_run_all.sh
