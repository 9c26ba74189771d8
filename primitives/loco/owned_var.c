#include "alloc.h"
#include "owned_var.h"
#include "log.h"
#include <stdlib.h>
#include <string.h>

/* ---- nm_chan ------------------------------------------------------------ */

void nm_chan_init(nm_chan *ch, nm_mesh *m, const nm_mr *mr, nm_poller *p, int thread, int q,
		  uint64_t *scratch, uint32_t sq_depth)
{
	memset(ch, 0, sizeof *ch);
	ch->mesh = m;
	ch->mr = mr;
	ch->poller = p;
	ch->thread = thread;
	ch->q = q;
	ch->scratch = scratch;
	ch->sq_depth = sq_depth < 4 ? 4 : sq_depth;
	ch->dirty = nm_calloc((size_t)m->nranks, sizeof *ch->dirty);
	ch->unsignaled = nm_calloc((size_t)m->nranks, sizeof *ch->unsignaled);
	ch->acks = nm_calloc((size_t)m->nranks, sizeof *ch->acks);
}

void nm_chan_free(nm_chan *ch)
{
	free(ch->dirty);
	free(ch->unsignaled);
	free(ch->acks);
	ch->dirty = NULL;
	ch->unsignaled = NULL;
	ch->acks = NULL;
}

nm_conn *nm_chan_conn(nm_chan *ch, int peer)
{
	nm_conn *c = nm_mesh_conn(ch->mesh, ch->thread, peer, ch->q);
	if (__builtin_expect(!c->qp, 0))
		nm_fatal("thread %d: no QP %d to rank %d in the mesh (its initiates matrix leaves "
			 "the pair out%s)", ch->thread, ch->q, peer,
			 peer == ch->mesh->rank ? "; a word hosted here needs the loopback QP" : "");
	return c;
}

/* wr_id payload of a WRITE whose completion an ack fence awaits. */
#define ACK_DUE (1ull << 59)

/* The peer travels in the wr_id so that a completion retires the right
 * QP's unsignaled requests; an awaited acknowledgement is counted off
 * wherever it turns up, so a READ waited for between two ack fences does
 * not take it for its own completion. Returns completions not of that kind. */
static int reap(nm_chan *ch, int max)
{
	struct ibv_wc wc[16];
	int got = nm_poll_wait(ch->poller, wc, max < 16 ? max : 16), own = got;
	for (int i = 0; i < got; i++) {
		uint64_t payload = NM_WRID_PAYLOAD(wc[i].wr_id), peer = payload & ~ACK_DUE;
		if (peer >= (uint64_t)ch->mesh->nranks)
			continue;
		ch->unsignaled[peer] = 0;
		if (payload & ACK_DUE) {
			ch->acks[peer]--;
			ch->acks_due--;
			own--;
		}
	}
	return own;
}

void nm_chan_wait(nm_chan *ch, int n)
{
	while (n > 0)
		n -= reap(ch, n + (int)ch->acks_due);
}

void nm_chan_write_async(nm_chan *ch, int peer, const void *laddr, size_t roff, uint32_t len)
{
	nm_conn *c = nm_chan_conn(ch, peer);
	uint64_t raddr = nm_chan_raddr(ch, peer, roff);
	if (ch->fence == NM_FENCE_ACK) {
		/* Every WRITE signaled, so the fence can wait for its own ack;
		 * half a send queue due fences first, which bounds SQ and CQ. */
		if (ch->acks[peer] + 1 >= ch->sq_depth / 2)
			nm_chan_fence(ch);
		ch->dirty[peer] = 1;
		nm_post_rw(c, NM_OP_WRITE, (void *)laddr, nm_chan_lkey(ch), raddr, len,
			   NM_WRID(NM_OP_WRITE, (uint64_t)peer | ACK_DUE), true);
		ch->acks[peer]++;
		ch->acks_due++;
		return;
	}
	/* Unsignaled requests hold their send-queue entries until a later
	 * completion on the QP: every sq_depth/2 of them, signal one and wait,
	 * which leaves room for a fence and a READ at any time. */
	bool sig = ch->unsignaled[peer] + 1 >= ch->sq_depth / 2;
	nm_post_rw(c, NM_OP_WRITE, (void *)laddr, nm_chan_lkey(ch), raddr, len, NM_WRID(NM_OP_WRITE, peer), sig);
	ch->dirty[peer] = 1;
	if (sig)
		nm_chan_wait(ch, 1);
	else
		ch->unsignaled[peer]++;
}

void nm_chan_read_post(nm_chan *ch, int peer, void *laddr, size_t roff, uint32_t len)
{
	nm_post_rw(nm_chan_conn(ch, peer), NM_OP_READ, laddr, nm_chan_lkey(ch),
		   nm_chan_raddr(ch, peer, roff), len, NM_WRID(NM_OP_READ, peer), true);
}

void nm_chan_fence(nm_chan *ch)
{
	int n = 0;
	for (int p = 0; p < ch->mesh->nranks; p++)
		if (ch->dirty[p]) {
			if (ch->fence == NM_FENCE_READ)
				nm_post_fence(nm_chan_conn(ch, p), NM_WRID(NM_OP_FENCE, p));
			ch->dirty[p] = 0;
			n++;
		}
	ch->fences += (uint64_t)n;
	if (ch->fence == NM_FENCE_READ)
		nm_chan_wait(ch, n);
	while (ch->acks_due > 0)
		reap(ch, (int)ch->acks_due);
}

/* ---- owned_var: pushes and pulls (the local half: owned_var_local.c) ---- */

static uint8_t *slot(const nm_ov *v, const nm_mr *mr) { return (uint8_t *)mr->buf + v->off; }

void nm_ov_push(nm_chan *ch, const nm_ov *v, int peer)
{
	if (__builtin_expect(v->me != v->owner, 0))
		nm_fatal("owned_var at offset %zu: rank %d pushes, but rank %d owns it", v->off, v->me,
			 v->owner);
	uint32_t bytes = (uint32_t)nm_ov_slot_bytes(v->len);
	nm_conn *c = nm_chan_conn(ch, peer);
	if (bytes <= 8 || bytes <= c->max_inline) {
		nm_chan_write_async(ch, peer, slot(v, ch->mr), v->off, bytes);
		return;
	}
	nm_post_rw(c, NM_OP_WRITE, slot(v, ch->mr), nm_chan_lkey(ch), nm_chan_raddr(ch, peer, v->off),
		   bytes, NM_WRID(NM_OP_WRITE, peer), true);
	ch->dirty[peer] = 1;   /* completion at the requester is not placement */
	nm_chan_wait(ch, 1);
}

/* A torn copy is pulled again; a value that stays torn for this many
 * attempts means the owner died in the middle of a store. */
#define PULL_ATTEMPTS 1000000

void nm_ov_pull_many(nm_chan *ch, const nm_ov *const *vs, void *const *outs, int n)
{
	int pending = n;
	uint8_t *done = nm_calloc((size_t)n, 1);
	for (long attempt = 0; pending > 0; attempt++) {
		if (attempt == PULL_ATTEMPTS)
			nm_fatal("owned_var pull: a copy stayed torn for %d READs (its owner stopped "
				 "in the middle of a store?)", PULL_ATTEMPTS);
		int posted = 0;
		for (int i = 0; i < n; i++) {
			const nm_ov *v = vs[i];
			if (done[i] || v->owner == v->me)
				continue;
			nm_chan_read_post(ch, v->owner, slot(v, ch->mr), v->off,
					  (uint32_t)nm_ov_slot_bytes(v->len));
			posted++;
		}
		nm_chan_wait(ch, posted);
		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			if (nm_ov_load(vs[i], ch->mr, outs[i])) {
				done[i] = 1;
				pending--;
			} else {
				ch->torn_retries++;
			}
		}
	}
	free(done);
}

void nm_ov_pull(nm_chan *ch, const nm_ov *v, void *out)
{
	const nm_ov *vs[1] = {v};
	void *outs[1] = {out};
	nm_ov_pull_many(ch, vs, outs, 1);
}
