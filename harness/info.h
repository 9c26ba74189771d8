/* `netmem info`: what a result document would record about this host, printed
 * without running anything, so a user can check devices, ports and GIDs (and
 * pick -d/-x values) before a run. Needs no MPI and no RDMA device. */
#ifndef NM_INFO_H
#define NM_INFO_H

/* How to get an RDMA device on a machine that has none. */
#define NM_SOFT_ROCE_HOWTO                                                          \
	"load rdma_rxe and run `rdma link add rxe0 type rxe netdev <if>`, or run " \
	"under tests/vm/netmem-vm (Soft-RoCE in a VM)"

/* The command itself registers like any other (NM_EXPERIMENT, a tool that
 * needs no MPI): it returns 0, or 1 if stdout cannot be written; bad usage
 * exits 2. */
#endif
