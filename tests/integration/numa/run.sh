#!/bin/sh
# The NUMA integration test on two NUMA nodes: on a host with two nodes and
# Soft-RoCE it runs there, otherwise in the VM with two emulated nodes
# (tests/vm/netmem-vm --numa: cpu 0 on node 0, cpu 1 on node 1). Ends with
# test_numa.sh's "N passed, N failed". The plain integration run
# (tests/integration/run-all.sh) runs the same test on one node.
cd "$(dirname "$0")/../../.." || exit 1
exec tests/vm/softroce-run --numa --timeout "${NETMEM_VM_TIMEOUT:-1800}" -- sh tests/integration/test_numa.sh
