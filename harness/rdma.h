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

enum nm_op { NM_OP_READ = 1, NM_OP_WRITE, NM_OP_CAS, NM_OP_FAA, NM_OP_FENCE, NM_OP_SEND, NM_OP_RECV };

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
 * is the addend. The old value lands in *result (host byte order). raddr is
 * in the registration rkey names at the peer: another than the one the
 * connection was made with (a device-memory region, say). */
static inline void nm_post_atomic_key(nm_conn *c, int op, uint64_t *result, uint32_t lkey,
				      uint64_t raddr, uint32_t rkey, uint64_t compare_add, uint64_t swap,
				      uint64_t wr_id, bool signaled)
{
	struct ibv_sge sge = {.addr = (uintptr_t)result, .length = 8, .lkey = lkey};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op == NM_OP_CAS ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.wr.atomic = {.remote_addr = raddr, .compare_add = compare_add, .swap = swap, .rkey = rkey},
	};
	nm_post(c, &wr, op);
}

/* The same in the peer's registered memory of the connection (c->rmr). */
static inline void nm_post_atomic(nm_conn *c, int op, uint64_t *result, uint32_t lkey,
				  uint64_t raddr, uint64_t compare_add, uint64_t swap,
				  uint64_t wr_id, bool signaled)
{
	nm_post_atomic_key(c, op, result, lkey, raddr, c->rmr.rkey, compare_add, swap, wr_id, signaled);
}

/* A work request built once per connection, for loops that post the same
 * operation over and over: a post changes only what varies (wr_id and
 * signaling; an atomic's result slot and operands) instead of zeroing and
 * filling a whole WR and SGE per operation. wr.sg_list points at the SGE
 * inside, so an nm_wr must not be copied or moved once built. */
typedef struct nm_wr {
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	nm_conn *c;
	int op;
	unsigned flags;   /* send flags of every post: IBV_SEND_INLINE where it applies */
} nm_wr;

/* READ or WRITE of len bytes between laddr and the peer's raddr (WRITEs up
 * to the QP's inline size go inline, as nm_post_rw sends them). */
void nm_wr_rw(nm_wr *w, nm_conn *c, int op, void *laddr, uint32_t lkey, uint64_t raddr, uint32_t len);
/* CAS or FAA on the peer's raddr, operands as nm_post_atomic's. */
void nm_wr_atomic(nm_wr *w, nm_conn *c, int op, uint64_t *result, uint32_t lkey, uint64_t raddr,
		  uint64_t compare_add, uint64_t swap);

static inline void nm_wr_post(nm_wr *w, uint64_t wr_id, bool signaled)
{
	w->wr.wr_id = wr_id;
	w->wr.send_flags = w->flags | (signaled ? IBV_SEND_SIGNALED : 0);
	nm_post(w->c, &w->wr, w->op);
}

/* The atomic's result slot and operands for its next post. */
static inline void nm_wr_set_atomic(nm_wr *w, uint64_t *result, uint64_t compare_add, uint64_t swap)
{
	w->sge.addr = (uintptr_t)result;
	w->wr.wr.atomic.compare_add = compare_add;
	w->wr.wr.atomic.swap = swap;
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
