#!/bin/sh
# The two-host Soft-RoCE lane: builds netmem (and a copy with another build identifier, for
# the mixed-build check), boots two guests joined by a link (tests/vm/netmem-cluster) and runs
# test_cluster.sh on the head. Ends with its "N passed, N failed".
cd "$(dirname "$0")/../../.." || exit 1
make -s all build/tests/netmem-otherbuild >/dev/null || { echo "cluster: build failed"; exit 1; }
exec tests/vm/netmem-cluster --timeout "${NETMEM_VM_TIMEOUT:-1200}" -- sh tests/integration/cluster/test_cluster.sh
