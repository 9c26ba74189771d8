/* The sizing of netmem kv's verbs systems (kv_size.h): what their set-ups
 * lay out and connect, and what netmem preflight predicts from it. */
#include "kv_size.h"
#include "alloc.h"
#include "tracker.h"
#include "wring.h"

static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The client threads' scratch from scratch_off on: window operations each. */
static kv_win_plan scratch_tail(const kv_point *p, size_t scratch_off, size_t op_buf, int threads, int sq_depth)
{
	kv_win_plan pl = {.scratch_off = scratch_off, .scratch_per_op = kv_win_scratch(op_buf),
			  .threads = threads, .sq_depth = sq_depth};
	pl.scratch_per_thread = (size_t)p->window * pl.scratch_per_op;
	pl.bytes = scratch_off + (size_t)threads * pl.scratch_per_thread;
	return pl;
}

kv_win_plan kv_loco_plan(const kv_point *p, int nranks, int threads, kv_loco_layout *l)
{
	uint64_t N = (uint64_t)nranks;
	l->slot_words = 3 + p->load.value_words;
	l->slots = div_up(p->load.prefill, N) + (p->load.keys - p->load.prefill) + 1;
	l->slot_off = 0;
	l->lock_off = nm_align64(l->slots * p->slot_bytes);
	l->tracker_off = nm_align64(l->lock_off + div_up((uint64_t)p->locks, N) * KV_LOCO_LOCK_BYTES);
	size_t scratch_off = l->tracker_off + nm_tracker_bytes(nranks, KV_LOCO_TRACKER_ENTRIES);
	/* an operation's buffer holds a slot and a look (half_look); the
	 * tracker thread is one more mesh thread with scratch; a QP holds two
	 * requests per window operation, 16 spare, and a tracker message to
	 * every node */
	return scratch_tail(p, scratch_off, 2 * (size_t)p->slot_bytes, threads + 1, 2 * p->window + 16 + nranks);
}

kv_win_plan kv_sherman_plan(const kv_point *p, int nranks, int threads, kv_sherman_layout *l)
{
	l->entry_words = 2 + p->load.value_words;
	l->leaves = div_up(p->load.keys, (uint64_t)p->leaf);
	l->leaves_here = div_up(l->leaves, (uint64_t)nranks);
	size_t entry = 8 * (size_t)l->entry_words;
	l->leaf_bytes = nm_align64(16 + (size_t)p->leaf * entry);
	l->lock_off = nm_align64(l->leaves_here * l->leaf_bytes);
	l->lock_bytes = 8 * (size_t)p->lock_table;
	/* a leaf, and a look (half_look); a QP holds three requests per window
	 * operation (an update's write, fence and release go together), 16 spare */
	return scratch_tail(p, nm_align64(l->lock_off + l->lock_bytes), l->leaf_bytes + entry, threads,
			    3 * p->window + 16);
}

kv_win_plan kv_scythe_plan(const kv_point *p, int nranks, int threads, kv_scythe_layout *l)
{
	size_t N = (size_t)nranks, T = (size_t)threads;
	l->rec_words = 2 + p->load.value_words;
	l->obj_words = KV_SC_REC + l->rec_words;
	l->objs_here = div_up(p->load.keys, (uint64_t)nranks);
	l->ring = (uint32_t)p->window;
	/* a request: header, key, object, stamp, record; a reply: header,
	 * version, ticket, served ticket, record */
	l->msg_words = 4 + l->rec_words;
	l->bucket_bytes = nm_align64(8 * nm_wring_bucket_words(KV_SCYTHE_BATCH, l->msg_words));
	size_t rings = N * T * l->ring * l->bucket_bytes;
	l->req_off = nm_align64(l->objs_here * l->obj_words * 8);
	l->rep_off = l->req_off + rings;
	l->out_off = l->rep_off + rings;
	l->srv_out_off = l->out_off + rings;
	/* an operation's record image, and a look (inj_entry); a client QP
	 * holds four requests per window operation, the server's a reply
	 * bucket per operation of every thread of the peer; 16 spare */
	size_t sq = 4 * (size_t)p->window > T * l->ring ? 4 * (size_t)p->window : T * l->ring;
	kv_win_plan pl = scratch_tail(p, l->srv_out_off + rings, 16 * (size_t)l->obj_words, threads, (int)sq + 16);
	pl.threads = threads + 1;
	return pl;
}

bool kv_plan_of(const kv_point *p, int nranks, int threads, kv_win_plan *out)
{
	union {
		kv_loco_layout loco;
		kv_sherman_layout sherman;
		kv_scythe_layout scythe;
	} l;
	*out = (kv_win_plan){0};
	switch (p->system) {
	case KV_LOCO:
		*out = kv_loco_plan(p, nranks, threads, &l.loco);
		return true;
	case KV_SHERMAN:
		*out = kv_sherman_plan(p, nranks, threads, &l.sherman);
		return true;
	case KV_SCYTHE:
		*out = kv_scythe_plan(p, nranks, threads, &l.scythe);
		return true;
	case KV_REDIS:
	case KV_REDIS_PIPELINED:
	case KV_NSYSTEMS:
		break;
	}
	return false;
}
