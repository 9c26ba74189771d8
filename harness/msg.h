/* Messages over RC QPs, for the workloads that serve requests (corm's RPCs,
 * clover's metadata server) and for one-off READs outside a mesh: a SEND or
 * a RECV of one registered buffer, one signaled READ, and the wait for one
 * completion with a deadline. A post that fails ends the job naming `who`;
 * the wait hands back the completion whatever its status, so the caller
 * decides what a failed one means (a device limit, or the end of the job). */
#ifndef NM_MSG_H
#define NM_MSG_H
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

void nm_msg_recv(struct ibv_qp *qp, void *buf, uint32_t len, uint32_t lkey, uint64_t wr_id, const char *who);
void nm_msg_send(struct ibv_qp *qp, const void *buf, uint32_t len, uint32_t lkey, uint64_t wr_id, const char *who);
void nm_msg_read(struct ibv_qp *qp, void *buf, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		 uint64_t wr_id, const char *who);

/* Waits up to `timeout` seconds for one completion on cq: 0 with *wc filled
 * (any status), -1 when none came or the poll failed. */
int nm_wait_one(struct ibv_cq *cq, struct ibv_wc *wc, double timeout);
/* The same; with yield, for an answer another thread on an oversubscribed
 * host gives (workers.h: nm_host_oversubscribed), the CPU is yielded every
 * NM_WAIT_YIELD_POLLS empty polls. */
#define NM_WAIT_YIELD_POLLS 64
int nm_wait_one_yield(struct ibv_cq *cq, struct ibv_wc *wc, double timeout, bool yield);
#endif
