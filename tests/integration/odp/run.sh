#!/bin/sh
# The ODP integration test (tests/integration/test_corm.sh: CoRM's remap
# under on-demand paging) in one VM booting a newer Debian kernel, whose
# rdma_rxe has ODP (tests/vm/README.md, "Newer kernels"); the kernel is
# fetched into the VM cache on first use. The plain integration run
# (tests/integration/run-all.sh, Debian 12's kernel) skips it with the
# reason. In the same guest, run_all.sh's ODP configs at check scale
# (test_run_all.sh; into NETMEM_CHECK_RUN under make check), then the NIC
# personalities (test_nic_profiles.sh, tests/nic/README.md), then any
# test files given as arguments (make check runs test_stall.sh here: it
# mostly waits out timeouts, and this lane ends first). Ends with
# "integration: N passed, N failed" over them all.
cd "$(dirname "$0")/../../.." || exit 1
NETMEM_CHECK_CLASS=odp exec tests/vm/softroce-run --kernel "${NETMEM_ODP_SUITE:-trixie-backports}" \
	--timeout "${NETMEM_VM_TIMEOUT:-1800}" -- tests/integration/run-all.sh tests/integration/test_corm.sh tests/integration/test_run_all.sh \
	tests/integration/test_nic_profiles.sh "$@"
