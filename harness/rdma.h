/* One-sided operations and completion polling for measured loops. Posting is
 * inline and allocation-free. A failed post or completion, or no completion
 * within the deadline, ends the job with a message naming rank, thread, peer
 * and operation (nm_fatal), because a half-failed run measures nothing. */
#ifndef NM_RDMA_H
#define NM_RDMA_H
#include "clock.h"
#include "log.h"
#include "mesh.h"
#include <stdbool.h>
#include <stdint.h>

enum nm_op { NM_OP_READ = 1, NM_OP_WRITE, NM_OP_CAS, NM_OP_FAA, NM_OP_FENCE };

const char *nm_op_name(int op);

/* wr_id: operation in the top 4 bits, caller's payload in the low 60. */
#define NM_WRID(op, payload) (((uint64_t)(op) << 60) | ((uint64_t)(payload) & ((1ull << 60) - 1)))
#define NM_WRID_OP(id) ((int)((id) >> 60))
#define NM_WRID_PAYLOAD(id) ((id) & ((1ull << 60) - 1))

_Noreturn void nm_post_failed(const nm_conn *c, int op, int rc);

static inline void nm_post(nm_conn *c, struct ibv_send_wr *wr, int op)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(c->qp, wr, &bad);
	if (__builtin_expect(rc != 0, 0))
		nm_post_failed(c, op, rc);
}

static inline void nm_post_rw(nm_conn *c, int op, void *laddr, uint32_t lkey, uint64_t raddr,
			      uint32_t len, uint64_t wr_id, bool signaled)
{
	struct ibv_sge sge = {.addr = (uintptr_t)laddr, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op == NM_OP_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.wr.rdma = {.remote_addr = raddr, .rkey = c->rmr.rkey},
	};
	if (op == NM_OP_WRITE && len <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	nm_post(c, &wr, op);
}

/* CAS: compare_add is the expected value, swap the new one. FAA: compare_add
 * is the addend. The old value lands in *result (host byte order). */
static inline void nm_post_atomic(nm_conn *c, int op, uint64_t *result, uint32_t lkey,
				  uint64_t raddr, uint64_t compare_add, uint64_t swap,
				  uint64_t wr_id, bool signaled)
{
	struct ibv_sge sge = {.addr = (uintptr_t)result, .length = 8, .lkey = lkey};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op == NM_OP_CAS ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.wr.atomic = {.remote_addr = raddr, .compare_add = compare_add, .swap = swap,
			      .rkey = c->rmr.rkey},
	};
	nm_post(c, &wr, op);
}

/* LOCO's fence: a zero-length READ. It completes only after every earlier
 * WRITE on the QP has been placed at the target (a READ may not pass a WRITE
 * on an RC QP), so remote visibility is known when it completes. */
static inline void nm_post_fence(nm_conn *c, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = NULL,
		.num_sge = 0,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {.remote_addr = c->rmr.addr, .rkey = c->rmr.rkey},
	};
	nm_post(c, &wr, NM_OP_FENCE);
}

/* Polls one thread's CQ. */
typedef struct nm_poller {
	struct ibv_cq *cq;
	const nm_mesh *mesh;
	int thread;
	uint64_t timeout_ticks;   /* no progress for this long = hang */
	uint64_t last_progress;
	uint32_t idle;
} nm_poller;

void nm_poller_init(nm_poller *p, const nm_mesh *m, int thread, double timeout_s);
_Noreturn void nm_wc_failed(const nm_poller *p, const struct ibv_wc *wc);
_Noreturn void nm_poll_timeout(const nm_poller *p);

/* Returns 0..max completions, all successful; never blocks. */
static inline int nm_poll_some(nm_poller *p, struct ibv_wc *wc, int max)
{
	int n = ibv_poll_cq(p->cq, max, wc);
	if (__builtin_expect(n < 0, 0))
		nm_fatal("ibv_poll_cq failed on thread %d", p->thread);
	if (n > 0) {
		for (int i = 0; i < n; i++)
			if (__builtin_expect(wc[i].status != IBV_WC_SUCCESS, 0))
				nm_wc_failed(p, &wc[i]);
		p->idle = 0;
		p->last_progress = 0;  /* the deadline counts from the last completion */
		return n;
	}
	/* Read the clock only every 4096 empty polls: the deadline is seconds,
	 * and the empty-poll loop is the latency-critical path. */
	if (++p->idle == 4096) {
		p->idle = 0;
		uint64_t now = nm_ticks();
		if (p->last_progress == 0)
			p->last_progress = now;
		else if (now - p->last_progress > p->timeout_ticks)
			nm_poll_timeout(p);
	}
	return 0;
}

/* Spins until at least one completion; returns how many. */
static inline int nm_poll_wait(nm_poller *p, struct ibv_wc *wc, int max)
{
	int n;
	while ((n = nm_poll_some(p, wc, max)) == 0)
		;
	return n;
}

/* Posts a fence on c and waits for it: every earlier WRITE on c is visible. */
void nm_fence_wait(nm_poller *p, nm_conn *c);
#endif
