#!/bin/sh
# The ODP integration test (tests/integration/test_corm.sh: CoRM's remap
# under on-demand paging) in one VM booting a newer Debian kernel, whose
# rdma_rxe has ODP (tests/vm/README.md, "Newer kernels"); the kernel is
# fetched into the VM cache on first use. The plain integration run
# (tests/integration/run-all.sh, Debian 12's kernel) skips it with the
# reason. Ends with test_corm.sh's "N passed, N failed".
cd "$(dirname "$0")/../../.." || exit 1
exec tests/vm/softroce-run --kernel "${NETMEM_ODP_SUITE:-trixie-backports}" \
	--timeout "${NETMEM_VM_TIMEOUT:-1200}" -- sh tests/integration/test_corm.sh
