/* An MTU as verbs names it (enum ibv_mtu) and in bytes. Header-only: the
 * NIC personalities' interposer (tests/nic/nicprof.c), which links none of
 * the harness, uses the same conversion. */
#ifndef NM_MTU_H
#define NM_MTU_H
#include <infiniband/verbs.h>

/* IBV_MTU_*; 0 for a size that is no MTU */
static inline int nm_mtu_from_bytes(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

static inline int nm_mtu_to_bytes(enum ibv_mtu m) { return 128 << m; }
#endif
