/* The RTR attributes of an RC QP towards a peer, from what the two ends say
 * of themselves: pure (no device, no verbs call), so the InfiniBand form,
 * which no lane here can run, is unit-tested beside RoCE's
 * (tests/unit/test_qp_av.c).
 *   InfiniBand without -x: the peer's LID, no GRH (is_global 0); a LID of 0
 *     means no subnet manager has configured the peer's port.
 *   RoCE, or -x on InfiniBand: a GRH to the peer's GID from our GID index;
 *     the LID is not used. */
#ifndef NM_QP_AV_H
#define NM_QP_AV_H
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nm_qp_av_in {
	int port;            /* our port number */
	int gid_index;       /* our GID index; -1: none (InfiniBand, LID routed) */
	enum ibv_mtu mtu;    /* the path MTU */
	int max_dest_rd_atomic;
	uint32_t dest_qpn, rq_psn;
	uint16_t dlid;
	const uint8_t *dgid; /* 16 bytes */
} nm_qp_av_in;

/* Fills *qa for INIT -> RTR and returns its ibv_modify_qp mask, or 0 with
 * one line in err when the peer cannot be addressed. */
int nm_qp_rtr_attr(const nm_qp_av_in *in, struct ibv_qp_attr *qa, char *err, size_t errlen);
#endif
