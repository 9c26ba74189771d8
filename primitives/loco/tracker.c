/* LOCO's tracker ringbuffer: see tracker.h. */
#include "tracker.h"
#include "alloc.h"
#include "lock.h"
#include "log.h"
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct entry {
	uint64_t seq;
	uint64_t payload[NM_TRACKER_WORDS];
	uint64_t sum;
	uint64_t pad[2];
} entry;
_Static_assert(sizeof(entry) == 64, "a tracker entry is one 64-byte line");

static uint64_t entry_sum(const entry *e) { return XXH64(e, 8 * (1 + NM_TRACKER_WORDS), 0x7e1c); }

void nm_tracker_init(nm_tracker *t, nm_mesh *m, const nm_mr *mr, size_t off, int rank, int nranks,
		     uint32_t entries)
{
	size_t n = (size_t)nranks;
	*t = (nm_tracker){.mesh = m, .mr = mr, .rank = rank, .nranks = nranks, .entries = entries};
	t->ring_off = off;
	t->ack_off = off + n * entries * 64;
	t->stage_off = t->ack_off + nm_align64(n * 8);
	t->scratch_off = t->stage_off + (size_t)entries * 64;
	atomic_init(&t->next_seq, 1);
	t->next = nm_calloc(n, sizeof *t->next);
	t->acked = nm_calloc(n, sizeof *t->acked);
	t->ack_busy = nm_calloc(n, sizeof *t->ack_busy);
	for (size_t i = 0; i < n; i++)
		t->next[i] = 1;
}

void nm_tracker_free(nm_tracker *t)
{
	free(t->next);
	free(t->acked);
	free(t->ack_busy);
}

static uint8_t *at(const nm_tracker *t, size_t off) { return (uint8_t *)t->mr->buf + off; }

bool nm_tracker_acked(const nm_tracker *t, uint64_t seq)
{
	const volatile uint64_t *ack = (const volatile uint64_t *)at(t, t->ack_off);
	for (int r = 0; r < t->nranks; r++) {
		if (r == t->rank)
			continue;
		uint64_t w = ack[r];
		if (w == 0 || !nm_lock_mail_ok(w) || (uint32_t)w < (uint32_t)seq)
			return false;
	}
	return true;
}

int nm_tracker_post(nm_tracker *t, int thread, uint64_t seq, const uint64_t payload[NM_TRACKER_WORDS],
		    uint64_t wr_id)
{
	uint32_t slot = (uint32_t)((seq - 1) % t->entries);
	entry *e = (entry *)at(t, t->stage_off + (size_t)slot * 64);
	e->seq = seq;
	memcpy(e->payload, payload, sizeof e->payload);
	e->sum = entry_sum(e);
	size_t roff = t->ring_off + ((size_t)t->rank * t->entries + slot) * 64;
	int n = 0;
	for (int r = 0; r < t->nranks; r++) {
		if (r == t->rank)
			continue;
		nm_conn *c = nm_mesh_conn(t->mesh, thread, r, 0);
		nm_post_rw(c, NM_OP_WRITE, e, t->mr->mr->lkey, c->rmr.addr + roff, sizeof *e, wr_id, true);
		n++;
	}
	return n;
}

static void ack_post(nm_tracker *t, int thread, int src)
{
	uint64_t *w = (uint64_t *)at(t, t->scratch_off) + src;
	*w = nm_lock_mail((uint32_t)(t->next[src] - 1));
	t->acked[src] = t->next[src] - 1;
	t->ack_busy[src] = true;
	nm_conn *c = nm_mesh_conn(t->mesh, thread, src, 0);
	nm_post_rw(c, NM_OP_WRITE, w, t->mr->mr->lkey, c->rmr.addr + t->ack_off + (size_t)t->rank * 8, 8,
		   NM_WRID(NM_OP_WRITE, (uint64_t)src), true);
}

/* Retires ack WRITEs (and the thread's own message WRITEs); the CQ is
 * polled only while some are in flight, so an idle tracker never looks
 * hung to the poller's deadline. */
static void ack_reap(nm_tracker *t, nm_poller *p)
{
	bool busy = t->own_pending > 0;
	for (int r = 0; r < t->nranks && !busy; r++)
		busy = t->ack_busy[r];
	if (!busy)
		return;
	struct ibv_wc wc[16];
	int n = nm_poll_some(p, wc, 16);
	for (int i = 0; i < n; i++) {
		uint64_t who = NM_WRID_PAYLOAD(wc[i].wr_id);
		if (who < (uint64_t)t->nranks)
			t->ack_busy[who] = false;
		else
			t->own_pending--;
	}
}

int nm_tracker_poll(nm_tracker *t, int thread, nm_poller *p, nm_tracker_apply apply, void *arg)
{
	int applied = 0;
	for (int src = 0; src < t->nranks; src++) {
		if (src == t->rank)
			continue;
		for (;;) {
			uint32_t slot = (uint32_t)((t->next[src] - 1) % t->entries);
			entry e;
			memcpy(&e, at(t, t->ring_off + ((size_t)src * t->entries + slot) * 64), sizeof e);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (e.seq != t->next[src] || e.sum != entry_sum(&e))
				break;
			apply(arg, src, e.payload);
			t->next[src]++;
			applied++;
		}
		if (t->next[src] - 1 > t->acked[src] && !t->ack_busy[src])
			ack_post(t, thread, src);
	}
	ack_reap(t, p);
	return applied;
}

void nm_tracker_drain(nm_tracker *t, nm_poller *p)
{
	for (int src = 0; src < t->nranks; src++)
		while (t->ack_busy[src] || t->own_pending > 0)
			ack_reap(t, p);
}
