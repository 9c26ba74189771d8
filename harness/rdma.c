#include "rdma.h"
#include "log.h"
#include <stdio.h>
#include <string.h>

const char *nm_op_name(int op)
{
	switch (op) {
	case NM_OP_READ: return "READ";
	case NM_OP_WRITE: return "WRITE";
	case NM_OP_CAS: return "CAS";
	case NM_OP_FAA: return "FAA";
	case NM_OP_FENCE: return "fence (zero-length READ)";
	case NM_OP_SEND: return "SEND";
	case NM_OP_RECV: return "RECV";
	default: return "operation";
	}
}

void nm_post_failed(const nm_conn *c, int op, int rc)
{
	nm_fatal("thread %d: posting %s to rank %d (QP %u) failed: %s", c->thread, nm_op_name(op),
		 c->peer, c->qp->qp_num, strerror(rc));
}

void nm_wr_rw(nm_wr *w, nm_conn *c, int op, void *laddr, uint32_t lkey, uint64_t raddr, uint32_t len)
{
	*w = (nm_wr){.c = c, .op = op};
	w->sge = (struct ibv_sge){.addr = (uintptr_t)laddr, .length = len, .lkey = lkey};
	w->wr = (struct ibv_send_wr){
		.sg_list = &w->sge,
		.num_sge = 1,
		.opcode = op == NM_OP_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.wr.rdma = {.remote_addr = raddr, .rkey = c->rmr.rkey},
	};
	if (op == NM_OP_WRITE && len <= c->max_inline)
		w->flags = IBV_SEND_INLINE;
}

void nm_wr_atomic(nm_wr *w, nm_conn *c, int op, uint64_t *result, uint32_t lkey, uint64_t raddr,
		  uint64_t compare_add, uint64_t swap)
{
	*w = (nm_wr){.c = c, .op = op};
	w->sge = (struct ibv_sge){.addr = (uintptr_t)result, .length = 8, .lkey = lkey};
	w->wr = (struct ibv_send_wr){
		.sg_list = &w->sge,
		.num_sge = 1,
		.opcode = op == NM_OP_CAS ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr.atomic = {.remote_addr = raddr, .compare_add = compare_add, .swap = swap, .rkey = c->rmr.rkey},
	};
}

void nm_poller_init(nm_poller *p, const nm_mesh *m, int thread, double timeout_s)
{
	memset(p, 0, sizeof *p);
	p->cq = m->cq[thread];
	p->mesh = m;
	p->thread = thread;
	p->timeout_ticks = nm_ns_to_ticks((uint64_t)(timeout_s * 1e9));
}

void nm_wc_failed(const nm_poller *p, const struct ibv_wc *wc)
{
	const nm_conn *c = nm_mesh_find_qpn(p->mesh, p->thread, wc->qp_num);
	nm_fatal("thread %d: %s to rank %d failed: %s (status %d, vendor error 0x%x, QP %u)%s",
		 p->thread, nm_op_name(NM_WRID_OP(wc->wr_id)), c ? c->peer : -1,
		 ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, wc->qp_num,
		 wc->status == IBV_WC_RETRY_EXC_ERR ? " - the peer is unreachable or gone" : "");
}

void nm_poll_timeout(const nm_poller *p)
{
	char peers[256] = "";
	size_t off = 0;
	const nm_mesh *m = p->mesh;
	for (int r = 0; r < m->nranks && off < sizeof peers; r++)
		if (nm_mesh_conn(m, p->thread, r, 0)->qp)
			off += (size_t)snprintf(peers + off, sizeof peers - off, "%s%d", off ? "," : "", r);
	nm_fatal("thread %d: no completion for %.1f s from rank(s) %s: a peer hangs or the link "
		 "is down (raise --timeout if the fabric is just slow)",
		 p->thread, (double)nm_ticks_to_ns(p->timeout_ticks) / 1e9, peers);
}

void nm_fence_wait(nm_poller *p, nm_conn *c)
{
	struct ibv_wc wc;
	nm_post_fence(c, NM_WRID(NM_OP_FENCE, 0));
	for (;;) {
		nm_poll_wait(p, &wc, 1);
		if (NM_WRID_OP(wc.wr_id) == NM_OP_FENCE)
			return;
	}
}
