/* A window's operations and what they post (kv_window.h): the window's
 * slots, the posting helpers that count what each operation still waits
 * for, and an operation's end. The injected faults (kv_inject.c) post
 * through these as the systems do, and the engine's loop (kv_window.c)
 * steps the injected states, so these sit below both. */
#include "kv_window.h"
#include "alloc.h"
#include "clock.h"
#include <stdlib.h>

void kv_win_init(kv_win *w, const kv_win_ops *ops, void *sys, kv_thread *kt, nm_mesh *mesh, uint32_t lkey,
		 int thread, int window, size_t op_size, uint8_t *scratch, size_t scratch_per_op, double timeout)
{
	*w = (kv_win){.ops = ops, .sys = sys, .kt = kt, .mesh = mesh, .lkey = lkey, .thread = thread,
		      .window = window, .op_size = op_size, .opv = nm_calloc((size_t)window, op_size),
		      .timeout = timeout};
	nm_poller_init(&w->pl, mesh, thread, timeout);
	for (int i = 0; i < window; i++) {
		kv_wop *o = kv_win_op(w, i);
		o->buf = (uint64_t *)(scratch + (size_t)i * scratch_per_op);
		o->word = (uint64_t *)(scratch + (size_t)(i + 1) * scratch_per_op - 64);
	}
}

void kv_win_free(kv_win *w)
{
	free(w->opv);
	w->opv = NULL;
}

nm_conn *kv_win_conn(kv_win *w, int node) { return nm_mesh_conn(w->mesh, w->thread, node, 0); }

uint32_t kv_win_index(const kv_win *w, const kv_wop *o)
{
	return (uint32_t)(((const uint8_t *)o - w->opv) / w->op_size);
}

uint64_t kv_win_wrid(kv_win *w, kv_wop *o, int op) { return NM_WRID(op, kv_win_index(w, o)); }

void kv_win_due(kv_win *w, kv_wop *o, int n)
{
	o->pending += n;
	w->outstanding += n;
}

uint64_t kv_win_sys_wrid(kv_win *w, int op, uint32_t k)
{
	w->outstanding++;
	return NM_WRID(op, (uint64_t)w->window + k);
}

static uint64_t wrid(kv_win *w, kv_wop *o, int op) { return kv_win_wrid(w, o, op); }
static void due(kv_win *w, kv_wop *o) { kv_win_due(w, o, 1); }

void kv_win_read(kv_win *w, kv_wop *o, int node, void *dst, uint64_t raddr, uint32_t len)
{
	nm_post_rw(kv_win_conn(w, node), NM_OP_READ, dst, w->lkey, raddr, len, wrid(w, o, NM_OP_READ), true);
	due(w, o);
}

void kv_win_write(kv_win *w, kv_wop *o, int node, const void *src, uint64_t raddr, uint32_t len, bool signaled)
{
	nm_post_rw(kv_win_conn(w, node), NM_OP_WRITE, (void *)src, w->lkey, raddr, len, wrid(w, o, NM_OP_WRITE),
		   signaled);
	if (signaled)
		due(w, o);
}

void kv_win_fence(kv_win *w, kv_wop *o, int node)
{
	nm_post_fence(kv_win_conn(w, node), wrid(w, o, NM_OP_FENCE));
	due(w, o);
	w->kt->meter->c[KV_C_FENCES]++;
}

void kv_win_atomic(kv_win *w, kv_wop *o, int node, int op, uint64_t raddr, uint64_t compare_add, uint64_t swap)
{
	kv_win_atomic_at(w, o, node, op, raddr, kv_win_conn(w, node)->rmr.rkey, compare_add, swap);
}

void kv_win_atomic_at(kv_win *w, kv_wop *o, int node, int op, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
		      uint64_t swap)
{
	nm_post_atomic_key(kv_win_conn(w, node), op, o->word, w->lkey, raddr, rkey, compare_add, swap, wrid(w, o, op),
			   true);
	due(w, o);
}

void kv_win_write_release(kv_win *w, kv_wop *o, int node, const void *src, uint64_t raddr, uint32_t len,
			  uint64_t lock_raddr, uint32_t lock_rkey, uint64_t owner)
{
	nm_conn *c = kv_win_conn(w, node);
	struct ibv_sge sge[2] = {{.addr = (uintptr_t)src, .length = len, .lkey = w->lkey},
				 {.addr = (uintptr_t)(o->word + 1), .length = 8, .lkey = w->lkey}};
	struct ibv_send_wr wr[2] = {
		{.wr_id = wrid(w, o, NM_OP_WRITE), .sg_list = &sge[0], .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		 .send_flags = len <= c->max_inline ? IBV_SEND_INLINE : 0,
		 .wr.rdma = {.remote_addr = raddr, .rkey = c->rmr.rkey}, .next = &wr[1]},
		{.sg_list = &sge[1], .num_sge = 1, .send_flags = IBV_SEND_SIGNALED},
	};
	if (owner) {
		wr[1].wr_id = wrid(w, o, NM_OP_CAS);
		wr[1].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		sge[1].addr = (uintptr_t)o->word;
		wr[1].wr.atomic.remote_addr = lock_raddr;
		wr[1].wr.atomic.compare_add = owner;
		wr[1].wr.atomic.swap = 0;
		wr[1].wr.atomic.rkey = lock_rkey;
	} else {
		o->word[1] = 0;
		wr[1].wr_id = wrid(w, o, NM_OP_WRITE);
		wr[1].opcode = IBV_WR_RDMA_WRITE;
		wr[1].send_flags |= 8 <= c->max_inline ? IBV_SEND_INLINE : 0;
		wr[1].wr.rdma.remote_addr = lock_raddr;
		wr[1].wr.rdma.rkey = lock_rkey;
	}
	nm_post(c, src ? &wr[0] : &wr[1], owner ? NM_OP_CAS : NM_OP_WRITE);
	due(w, o);
}

void kv_win_finish(kv_win *w, kv_wop *o, const uint64_t *val)
{
	kv_done(w->kt, o->kind, o->key, o->kind == KV_GET ? val : &o->wrote, o->found, o->t0,
		o->returned ? o->returned : nm_ticks());
	o->state = 0;
}

bool kv_win_overdue(const kv_win *w, const kv_wop *o)
{
	return nm_ticks_to_ns(nm_ticks() - o->since) > (uint64_t)(w->timeout * 1e9);
}
