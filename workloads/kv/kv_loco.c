/* LOCO's kvstore (LOCO paper, section 6, Fig. 3 and Appendix C), as the
 * `loco` system of netmem kv (kv.h): the paper's design over this suite's
 * verbs layer and primitives (the tracker ringbuffer, the local index).
 *
 * Per node, in registered memory: a slot array, the node's share of the
 * ticket locks, and the tracker's rings. A slot is
 *   [key | value (value-size bytes) | counter << 1 | valid | checksum]
 * with the checksum XXH64 of the words before it. Per node in process
 * memory: the local index (key -> node, slot, counter;
 * primitives/loco/kvindex.h) and the free slots of the node.
 *
 * Operations (the LOCO paper's kvstore, Sec. 6 and Fig. 3; linearization
 * points as its Appendix C):
 *   get     index lookup under the read lock; one RDMA READ of the slot (a
 *           CPU copy when it is on this node); a checksum mismatch is a
 *           torn read and the whole lookup is retried; counter mismatch or
 *           valid unset: not found.
 *   update  ticket lock k mod --locks: RDMA FETCH_AND_ADD on next_ticket,
 *           RDMA READ of now_serving until it is the ticket; index lookup;
 *           the slot WRITE (key, value, counter and valid kept, checksum),
 *           LOCO's fence (a zero-length READ on the same QP) when --fence,
 *           then the release (RDMA WRITE of now_serving = ticket + 1).
 *           Linearizes when the slot is placed.
 *   insert  under the lock: a free slot of this node, written with valid
 *           unset and the slot's counter advanced; this node's index; the
 *           tracker message to every other node; once all have applied it
 *           and acknowledged, valid is set (the linearization point); release.
 *   delete  under the lock: valid unset at the slot's host (linearization),
 *           the tracker message, the acks, the entry removed; the host
 *           frees the slot (its tracker thread, or itself).
 *
 * Windows: each application thread keeps --window operations in flight,
 * each a small state machine advanced by its completions (the work request
 * id names the operation), started and finished on its own. Two operations
 * of one thread on one lock simply hold two tickets.
 *
 * Decisions the paper leaves open:
 * - Slot: 8-byte key, the value, a 32-bit counter with the valid bit, an
 *   XXH64 checksum: 32 bytes for 8-byte values (the paper gives no layout).
 * - Locks: --locks ticket locks (65,536 by default), lock i homed on node
 *   i mod nodes; next_ticket and now_serving side by side, 16 bytes per lock,
 *   taken by every node through the NIC (loopback on the home). No local
 *   hand-over between a node's threads: with a window, a thread's own
 *   operations would have to hand over to each other, and a ticket per
 *   operation orders them already. Waiters poll now_serving by READ.
 * - Values carry the lock's ticket as their version (kv.h): tickets grow in
 *   a key's modification order, so readers can compare any two writers.
 * - Prefill: rank i goes to node i mod nodes, slot i / nodes; every node
 *   builds the same index by computing it (a bulk load, not the tracker;
 *   the paper does not say how it prefilled). Each node has room for its
 *   prefill share plus every key that may still be inserted.
 * - A local slot is read and written with CPU copies, a remote one by RDMA.
 * - The inserter updates its own index before broadcasting (the paper does
 *   not say whether before the broadcast or after the acknowledgements).
 * - Tracker: 256 entries per sender ring; the tracker thread is one more
 *   thread per node, not measured. */
#include "kv.h"
#include "kv_inject.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "kvindex.h"
#include "lock.h"
#include "log.h"
#include "mesh.h"
#include "rdma.h"
#include "tracker.h"
#include "workers.h"
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define LOCK_BYTES 16
#define TRACKER_ENTRIES 256

/* Tracker messages: payload[0] = kind | node << 8. */
enum { MSG_INSERT = 1, MSG_DELETE, MSG_DONE };

typedef struct loco_job {
	kv_run *r;
	const kv_point *p;
	int rank, N, T;
	double timeout;
	nm_mr mr;
	nm_mesh mesh;
	nm_kvindex index;
	nm_tracker tr;
	uint32_t slot_words;
	uint64_t slots;                  /* per node */
	size_t slot_off, lock_off, tracker_off, scratch_off, scratch_per_thread, scratch_per_op;
	pthread_mutex_t free_mu;         /* this node's free slots */
	uint32_t *free;
	uint64_t nfree;
	atomic_int app_done;             /* application threads of this node finished */
	int done_from;                   /* tracker thread: nodes that said they are done */
	kv_thread tracker_kt;            /* the tracker thread's meter (it does not measure) */
	bool emulated;                   /* Soft-RoCE: the idle tracker naps (tracker_idle) */
} loco_job;

typedef enum { S_IDLE, S_LOCK_FAA, S_LOCK_POLL, S_WRITE, S_WITNESS, S_POST_MSG, S_ACKS, S_RELEASE,
	       S_READ } loco_state;

typedef struct loco_op {
	kv_wop w;                        /* first: the window engine's part */
	uint64_t ticket, seq;
	uint32_t lock;
	int home;                        /* the lock's node */
	bool released;                   /* an injected early release happened */
	nm_kvloc loc;
} loco_op;

typedef struct loco_thr {
	kv_win win;                      /* first: the engine hands it to the steps */
	loco_job *j;
	kv_injector inj;
} loco_thr;

/* ---- layout ----------------------------------------------------------------- */

static uint64_t *slot_at(const loco_job *j, uint64_t s)
{
	return (uint64_t *)((uint8_t *)j->mr.buf + j->slot_off + s * j->p->slot_bytes);
}

static uint64_t slot_raddr(const loco_job *j, const nm_kvloc *loc)
{
	return j->mesh.rmr[loc->node].addr + j->slot_off + (uint64_t)loc->slot * j->p->slot_bytes;
}

static uint64_t slot_sum(const loco_job *j, const uint64_t *w) { return XXH64(w, 8 * (j->slot_words - 1), 0); }

/* The image of a slot: key, value, counter/valid, checksum. */
static void slot_image(const loco_job *j, uint64_t *w, uint64_t key, uint32_t writer, uint32_t version,
		       uint32_t counter, bool valid)
{
	w[0] = key;
	kv_value_fill(w + 1, j->p->load.value_words, key, writer, version);
	w[j->slot_words - 2] = (uint64_t)counter << 1 | valid;
	w[j->slot_words - 1] = slot_sum(j, w);
}

static uint32_t slot_counter(const loco_job *j, const uint64_t *w) { return (uint32_t)(w[j->slot_words - 2] >> 1); }
static bool slot_valid(const loco_job *j, const uint64_t *w) { return w[j->slot_words - 2] & 1; }

static size_t loco_layout(loco_job *j)
{
	const kv_point *p = j->p;
	/* the slot image's words: key, value, meta, checksum (slot_bytes may pad) */
	j->slot_words = 3 + p->load.value_words;
	j->slots = (p->load.prefill + (uint64_t)j->N - 1) / (uint64_t)j->N + (p->load.keys - p->load.prefill) + 1;
	uint64_t locks_here = ((uint64_t)p->locks + (uint64_t)j->N - 1) / (uint64_t)j->N;
	j->slot_off = 0;
	j->lock_off = nm_align64(j->slots * p->slot_bytes);
	j->tracker_off = nm_align64(j->lock_off + locks_here * LOCK_BYTES);
	j->scratch_off = j->tracker_off + nm_tracker_bytes(j->N, TRACKER_ENTRIES);
	j->scratch_per_op = kv_win_scratch(2 * (size_t)p->slot_bytes);   /* a slot, and a look (half_look) */
	j->scratch_per_thread = (size_t)p->window * j->scratch_per_op;
	return j->scratch_off + (size_t)(j->T + 1) * j->scratch_per_thread;
}

static uint64_t lock_raddr(const loco_job *j, uint32_t lock, size_t off)
{
	int home = (int)(lock % (uint32_t)j->N);
	return j->mesh.rmr[home].addr + j->lock_off + (size_t)(lock / (uint32_t)j->N) * LOCK_BYTES + off;
}

/* Prefill: rank i at node i mod N, slot i / N; every node indexes them all. */
static void loco_prefill(loco_job *j)
{
	const kv_point *p = j->p;
	uint64_t mine = 0;
	for (uint64_t i = 0; i < p->load.prefill; i++) {
		uint64_t key = kv_key(i);
		nm_kvloc loc = {.slot = (uint32_t)(i / (uint64_t)j->N), .node = (uint16_t)(i % (uint64_t)j->N),
				.counter = 1};
		nm_kvindex_put_unlocked(&j->index, key, &loc);
		if (loc.node == j->rank) {
			slot_image(j, slot_at(j, loc.slot), key, KV_PREFILL_WRITER, 0, 1, true);
			mine++;
		}
	}
	j->free = nm_malloc(j->slots * sizeof *j->free);   /* deletes free prefilled slots too */
	for (uint64_t s = j->slots; s-- > mine;)
		j->free[j->nfree++] = (uint32_t)s;
	pthread_mutex_init(&j->free_mu, NULL);
}

static bool slot_alloc(loco_job *j, uint32_t *s)
{
	pthread_mutex_lock(&j->free_mu);
	bool ok = j->nfree > 0;
	if (ok)
		*s = j->free[--j->nfree];
	pthread_mutex_unlock(&j->free_mu);
	return ok;
}

static void slot_free(loco_job *j, uint32_t s)
{
	pthread_mutex_lock(&j->free_mu);
	j->free[j->nfree++] = s;
	pthread_mutex_unlock(&j->free_mu);
}

/* ---- the operations --------------------------------------------------------- */

static void op_finish(loco_thr *t, loco_op *o)
{
	kv_win_finish(&t->win, &o->w, o->w.kind == KV_GET ? o->w.buf + 1 : NULL);
}

static void lock_take(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	o->lock = (uint32_t)(o->w.key % (uint64_t)j->p->locks);
	o->home = (int)(o->lock % (uint32_t)j->N);
	o->w.state = S_LOCK_FAA;
	kv_win_atomic(&t->win, &o->w, o->home, NM_OP_FAA, lock_raddr(j, o->lock, 0), 1, 0);
	o->w.since = nm_ticks();
}

static void lock_release(loco_thr *t, loco_op *o)
{
	o->w.word[1] = o->ticket + 1;
	o->w.state = S_RELEASE;
	kv_win_write(&t->win, &o->w, o->home, &o->w.word[1], lock_raddr(t->j, o->lock, 8), 8, true);
}

static void get_start(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	o->w.state = S_READ;
	if (!nm_kvindex_get(&j->index, o->w.key, &o->loc)) {
		o->w.found = false;
		op_finish(t, o);
		return;
	}
	if (o->loc.node == j->rank) {
		memcpy(o->w.buf, slot_at(j, o->loc.slot), 8 * j->slot_words);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return;   /* validated by get_check, as a READ's result */
	}
	kv_win_read(&t->win, &o->w, o->loc.node, o->w.buf,
		  slot_raddr(j, &o->loc),
		  8 * j->slot_words);
}

/* A slot read (by READ or CPU copy) is in o->w.buf: retry, miss or value. */
static void get_check(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	bool skip_sum = j->p->inject == KV_INJECT_NO_CHECKSUM;
	while (!skip_sum && o->w.buf[j->slot_words - 1] != slot_sum(j, o->w.buf)) {
		/* torn: the whole lookup again (Appendix C) */
		t->win.kt->meter->c[KV_C_RETRIES]++;
		get_start(t, o);
		if (o->w.state != S_READ || o->w.pending)
			return;   /* finished (gone from the index), or a READ in flight */
	}
	o->w.found = slot_counter(j, o->w.buf) == o->loc.counter && slot_valid(j, o->w.buf) && o->w.buf[0] == o->w.key;
	op_finish(t, o);
}

/* Lock held: finds the key's slot; a key not in the index is a miss, and
 * the lock goes back. */
static bool located(loco_thr *t, loco_op *o)
{
	o->w.found = nm_kvindex_get(&t->j->index, o->w.key, &o->loc);
	if (!o->w.found)
		lock_release(t, o);
	return o->w.found;
}

/* The slot an injected fault writes: copied by CPU on this node; the look
 * back goes past the slot image in the operation's scratch. */
static kv_inj_entry inj_entry(const loco_thr *t, loco_op *o)
{
	const loco_job *j = t->j;
	bool here = o->loc.node == j->rank;
	return (kv_inj_entry){.node = o->loc.node, .raddr = slot_raddr(j, &o->loc),
			      .local = here ? slot_at(j, o->loc.slot) : NULL, .words = j->slot_words,
			      .look = o->w.buf + j->slot_words, .then = S_WRITE};
}

/* Lock held: the update's write. */
static void update_write(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (!located(t, o))
		return;
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, o->loc.counter, true);
	kv_inject fault = kv_inject_now(&t->inj);
	if (fault == KV_INJECT_EARLY_RELEASE) {
		/* the fault: the lock goes before the value lands */
		kv_inj_late_start(&o->w, &o->w.word[0]);
		o->w.word[1] = o->ticket + 1;
		kv_win_write(&t->win, &o->w, o->home, &o->w.word[1], lock_raddr(j, o->lock, 8), 8, true);
		return;
	}
	if (fault == KV_INJECT_NO_CHECKSUM) {
		kv_inj_entry at = inj_entry(t, o);
		kv_inj_half_start(&t->win, &o->w, &at);
		return;
	}
	o->w.state = S_WRITE;
	o->w.since = nm_ticks();
	if (o->loc.node == j->rank) {
		memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->slot_words);
		lock_release(t, o);
		return;
	}
	kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->slot_words, !j->p->fence);
	if (j->p->fence)
		kv_win_fence(&t->win, &o->w, o->loc.node);
	else
		lock_release(t, o);   /* both in flight: the write is not waited for */
}

/* The injected late write, watched by its own thread as a reader would:
 * the slot is read before the write (the next holder's newer value) and
 * after it (the older one this write puts back). Both go through the
 * thread's read check, so a fault that happened is seen for sure rather
 * than only when another reader happens to read at the right moment. */
static void witness_done(loco_thr *t, loco_op *o);

static void witness_read(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	o->w.state = S_WITNESS;
	if (o->loc.node != j->rank) {
		kv_win_read(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->slot_words);
		return;
	}
	memcpy(o->w.buf, slot_at(j, o->loc.slot), 8 * j->slot_words);
	witness_done(t, o);
}

static void witness_done(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (o->w.buf[j->slot_words - 1] == slot_sum(j, o->w.buf) && o->w.buf[0] == o->w.key)
		kv_check(t->win.kt, o->w.key, o->w.buf + 1);
	if (o->released) {
		op_finish(t, o);
		return;
	}
	/* now the late write itself, then the second look */
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, o->loc.counter, true);
	o->released = true;
	o->w.state = S_WRITE;
	if (o->loc.node != j->rank) {
		kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->slot_words, true);
		return;
	}
	memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->slot_words);
	witness_read(t, o);
}

/* The late write is due once the next holder has released too (it wrote
 * a newer value, which this write now overwrites): watch now_serving. */
static void late_step(loco_thr *t, loco_op *o)
{
	if (kv_inj_late_due(&t->win, &o->w, o->w.word[0] >= o->ticket + 2, o->home, &o->w.word[0],
			    lock_raddr(t->j, o->lock, 8)))
		witness_read(t, o);
}

/* Lock held: an insert of a key not in the index (else it is an update). */
static void insert_write(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	o->w.kind = KV_INSERT;
	if (nm_kvindex_get(&j->index, o->w.key, &o->loc)) {
		o->w.kind = KV_UPDATE;
		update_write(t, o);
		return;
	}
	uint32_t s;
	if (!slot_alloc(j, &s)) {
		t->win.kt->meter->c[KV_C_FULL]++;
		o->w.found = false;
		lock_release(t, o);
		return;
	}
	uint64_t *w = slot_at(j, s);
	uint32_t counter = slot_counter(j, w) + 1;
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, counter, false);
	memcpy(w, o->w.buf, 8 * j->slot_words);
	o->loc = (nm_kvloc){.slot = s, .node = (uint16_t)j->rank, .counter = counter};
	nm_kvindex_put(&j->index, o->w.key, &o->loc);
	o->w.found = true;
	o->seq = nm_tracker_reserve(&j->tr);
	o->w.state = S_POST_MSG;
	o->w.since = nm_ticks();
}

/* Lock held: valid unset at the host (the delete linearizes), then the message. */
static void delete_write(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (!located(t, o))
		return;
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, o->loc.counter, false);
	if (o->loc.node == j->rank) {
		memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->slot_words);
	} else {
		uint64_t raddr = slot_raddr(j, &o->loc);
		kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, raddr, 8 * j->slot_words, false);
		kv_win_fence(&t->win, &o->w, o->loc.node);
	}
	o->seq = nm_tracker_reserve(&j->tr);
	o->w.state = S_POST_MSG;
	o->w.since = nm_ticks();
}

static void msg_post(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (o->w.pending || !nm_tracker_can_post(&j->tr, o->seq))
		return;
	int kind = o->w.kind == KV_INSERT ? MSG_INSERT : MSG_DELETE;
	uint64_t msg[NM_TRACKER_WORDS] = {(uint64_t)kind | (uint64_t)o->loc.node << 8, o->w.key, o->loc.slot,
					  o->loc.counter};
	int n = nm_tracker_post(&j->tr, t->win.thread, o->seq, msg, kv_win_wrid(&t->win, &o->w, NM_OP_WRITE));
	kv_win_due(&t->win, &o->w, n);
	o->w.state = S_ACKS;
	o->w.since = nm_ticks();
}

/* Every node applied the message: finish the insert or delete, release. */
static void acks_in(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (o->w.pending || !nm_tracker_acked(&j->tr, o->seq))
		return;
	nm_meter *m = t->win.kt->meter;
	m->c[KV_C_ACK_NS] += nm_ticks_to_ns(nm_ticks() - o->w.since);
	m->c[KV_C_ACKS]++;
	if (o->w.kind == KV_INSERT) {
		uint64_t *w = slot_at(j, o->loc.slot);
		o->w.buf[j->slot_words - 2] |= 1;
		o->w.buf[j->slot_words - 1] = slot_sum(j, o->w.buf);
		memcpy(w, o->w.buf, 8 * j->slot_words);   /* valid set: the insert linearizes */
	} else {
		nm_kvindex_del(&j->index, o->w.key);
		if (o->loc.node == j->rank)
			slot_free(j, o->loc.slot);
	}
	lock_release(t, o);
}

/* The lock is ours: the operation's body. */
static void locked(loco_thr *t, loco_op *o)
{
	switch (o->w.kind) {
	case KV_UPDATE:
		update_write(t, o);
		break;
	case KV_INSERT:
		insert_write(t, o);
		break;
	case KV_DELETE:   /* a toggle (kv.h): delete when present, else insert */
		if (nm_kvindex_get(&t->j->index, o->w.key, &o->loc))
			delete_write(t, o);
		else
			insert_write(t, o);
		break;
	default:
		nm_fatal("kv loco: a get never takes a lock");
	}
}

_Noreturn static void lock_stuck(loco_thr *t, loco_op *o)
{
	nm_fatal("kv loco: thread %d waited %.1f s for lock %u (home rank %d) at ticket %" PRIu64
		 ", now_serving %" PRIu64 " (op %d, key 0x%016" PRIx64 "): a holder never released, or a "
		 "FETCH_AND_ADD ran twice", t->win.thread, t->j->timeout, o->lock, o->home, o->ticket, o->w.word[0],
		 (int)o->w.kind, o->w.key);
}

/* All completions of o are in: the next step. */
static void advance(kv_win *w, kv_wop *wo)
{
	loco_thr *t = (loco_thr *)w;
	loco_op *o = (loco_op *)wo;
	switch (o->w.state) {
	case S_LOCK_FAA:
		o->ticket = o->w.word[0];
		o->w.state = S_LOCK_POLL;
		kv_win_read(&t->win, &o->w, o->home, o->w.word, lock_raddr(t->j, o->lock, 8), 8);
		break;
	case S_LOCK_POLL:
		if (o->w.word[0] == o->ticket) {
			locked(t, o);
			break;
		}
		t->win.kt->meter->c[KV_C_LOCK_RETRIES]++;
		if (kv_win_overdue(w, wo))
			lock_stuck(t, o);
		kv_win_read(&t->win, &o->w, o->home, o->w.word, lock_raddr(t->j, o->lock, 8), 8);
		break;
	case S_WRITE:
		if (o->released)
			witness_read(t, o);   /* an injected late write landed: look again */
		else
			lock_release(t, o);
		break;
	case S_READ:
		get_check(t, o);
		break;
	case S_WITNESS:
		witness_done(t, o);
		break;
	case KV_S_HALF:
	case KV_S_HALF_LOOK: {
		kv_inj_entry at = inj_entry(t, o);
		kv_inj_half_advance(w, wo, &at);
		break;
	}
	case S_RELEASE:
		op_finish(t, o);
		break;
	default:
		break;   /* KV_S_LATE, S_POST_MSG, S_ACKS: stepped by the loop */
	}
}

/* Steps that wait on memory or time, not on a completion. */
static void step(kv_win *w, kv_wop *wo)
{
	loco_thr *t = (loco_thr *)w;
	loco_op *o = (loco_op *)wo;
	switch (o->w.state) {
	case KV_S_HALF: {
		kv_inj_entry at = inj_entry(t, o);
		if (kv_inj_half_step(w, wo, &at))
			lock_release(t, o);   /* a local slot is whole again */
		break;
	}
	case KV_S_LATE:
		late_step(t, o);
		break;
	case S_POST_MSG:
		msg_post(t, o);
		break;
	case S_ACKS:
		acks_in(t, o);
		break;
	default:
		return;
	}
	if ((o->w.state == S_POST_MSG || o->w.state == S_ACKS) && kv_win_overdue(w, wo))
		nm_fatal("kv loco: thread %d waited %.1f s for the tracker acknowledgements of message %" PRIu64
			 " (%s of key 0x%016" PRIx64 "): a node's tracker thread is not applying messages",
			 t->win.thread, t->j->timeout, o->seq, o->w.kind == KV_INSERT ? "insert" : "delete", o->w.key);
}

static void start(kv_win *w, kv_wop *wo)
{
	loco_thr *t = (loco_thr *)w;
	loco_op *o = (loco_op *)wo;
	uint64_t rank;
	o->w.kind = kv_next(t->win.kt, &rank);
	o->w.key = kv_key(rank);
	o->released = false;
	if (o->w.kind == KV_GET)
		get_start(t, o);
	else
		lock_take(t, o);
	if (o->w.state == S_READ && o->w.pending == 0)
		get_check(t, o);   /* a local slot: copied already */
}

static const kv_win_ops loco_steps = {start, advance, step};

/* ---- threads ---------------------------------------------------------------- */

static void tracker_apply(void *arg, int src, const uint64_t *msg)
{
	loco_thr *t = arg;
	loco_job *j = t->j;
	int kind = (int)(msg[0] & 0xff), node = (int)(msg[0] >> 8 & 0xffff);
	nm_kvloc loc = {.node = (uint16_t)node, .slot = (uint32_t)msg[2], .counter = (uint32_t)msg[3]};
	if (kind == MSG_INSERT) {
		nm_kvindex_put(&j->index, msg[1], &loc);
	} else if (kind == MSG_DELETE) {
		nm_kvindex_del(&j->index, msg[1]);
		if (node == j->rank)
			slot_free(j, loc.slot);
	} else if (kind == MSG_DONE) {
		j->done_from++;
		return;
	} else {
		nm_fatal("kv loco: tracker message of unknown kind %d from rank %d", kind, src);
	}
	t->win.kt->meter->c[KV_C_APPLIED]++;
}

/* A tracker with nothing to apply lets the application threads run. On a
 * NIC it only yields (the paper's tracker is a dedicated thread, and a
 * yield returns at once when a core is free). On Soft-RoCE, where every
 * thread of every emulated node shares a VM's few CPUs with rxe itself, it
 * naps once it has been idle for a while (50 us, growing to 800 us while
 * nothing comes, so an insert after a quiet spell waits that much longer): a spinning tracker there took CPU time that the
 * read-only workload's threads, which never need it, lacked. */
static void tracker_idle(loco_job *j, uint32_t idle)
{
	if (j->emulated && idle >= 1024) {
		/* 50 us, doubling with every 1024 idle polls up to 800 us: each
		 * wake-up is an emulated timer interrupt, itself costly */
		uint32_t k = (idle - 1024) / 1024;
		struct timespec d = {0, 50000L << (k < 4 ? k : 4)};
		nanosleep(&d, NULL);
	} else {
		sched_yield();
	}
}

/* The tracker thread: applies the other nodes' messages until every node,
 * this one included, has said its application threads are done. */
static void tracker_body(loco_thr *t)
{
	loco_job *j = t->j;
	nm_meter_skip(t->win.kt->meter);
	uint64_t done_seq = 0;
	bool posted = false;
	uint32_t idle = 0;
	uint64_t t_last = nm_ticks(), limit = nm_ns_to_ticks((uint64_t)(4 * j->timeout * 1e9));
	while (j->done_from < j->N - 1 || !posted || j->tr.own_pending > 0) {
		int n = nm_tracker_poll(&j->tr, t->win.thread, &t->win.pl, tracker_apply, t);
		if (!done_seq && atomic_load(&j->app_done) == j->T)
			done_seq = nm_tracker_reserve(&j->tr);
		if (done_seq && !posted && nm_tracker_can_post(&j->tr, done_seq)) {
			uint64_t msg[NM_TRACKER_WORDS] = {MSG_DONE | (uint64_t)j->rank << 8, 0, 0, 0};
			j->tr.own_pending += nm_tracker_post(&j->tr, t->win.thread, done_seq, msg,
							     NM_WRID(NM_OP_WRITE, NM_TRACKER_OWN));
			posted = true;
		}
		if (n) {
			t_last = nm_ticks();
			idle = 0;
		} else if (++idle % 64 == 0) {
			tracker_idle(j, idle);
		}
		if (!n && nm_ticks() - t_last > limit)
			nm_fatal("kv loco: the tracker thread heard from %d of %d other nodes that they are done, "
				 "and nothing for %.0f s", j->done_from, j->N - 1, 4 * j->timeout);
	}
	nm_tracker_drain(&j->tr, &t->win.pl);
}

/* Application threads are mesh threads 0 .. T-1, the tracker thread T. */
static void thr_setup(nm_worker *w)
{
	loco_job *j = w->arg;
	loco_thr *t = nm_calloc64(1, sizeof *t);
	t->j = j;
	kv_thread *kt = &j->tracker_kt;
	if (w->index < j->T) {
		kt = kv_run_thread(j->r, w);
		kv_injector_init(&t->inj, j->p->inject, j->rank);
	} else {
		kt->meter = w->meter;
	}
	uint8_t *scr = (uint8_t *)j->mr.buf + j->scratch_off + (size_t)w->index * j->scratch_per_thread;
	kv_win_init(&t->win, &loco_steps, j, kt, &j->mesh, j->mr.mr->lkey, w->index,
		    w->index < j->T ? j->p->window : 1, sizeof(loco_op), scr, j->scratch_per_op, j->timeout);
	w->arg = t;
}

static void thr_body(nm_worker *w)
{
	loco_thr *t = w->arg;
	if (t->win.thread < t->j->T) {
		kv_win_body(&t->win);
		atomic_fetch_add(&t->j->app_done, 1);
	} else {
		tracker_body(t);
	}
	kv_win_free(&t->win);
	free(t);
}

/* ---- the point ---------------------------------------------------------------- */

static void loco_connect(loco_job *j, nm_ctx *ctx)
{
	char err[512] = "";
	size_t bytes = loco_layout(j);
	int failed = nm_mr_alloc(ctx->dev, &j->mr, bytes, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(j->mr.buf, 0, bytes);
	nm_kvindex_init(&j->index, j->p->load.keys);
	loco_prefill(j);
	nm_tracker_init(&j->tr, &j->mesh, &j->mr, j->tracker_off, j->rank, j->N, TRACKER_ENTRIES);
	uint8_t *all = nm_malloc((size_t)j->N * (size_t)j->N);
	memset(all, 1, (size_t)j->N * (size_t)j->N);
	nm_mesh_cfg mc = {.nthreads = j->T + 1, .qps = 1, .initiates = all, .qp = ctx->base.qp};
	mc.qp.sq_depth = 2 * j->p->window + 16 + j->N;
	nm_mesh_create(&j->mesh, ctx->dev, &mc, &j->mr);
	free(all);
}

/* After the run, every node checks its slots: checksum, key and value. */
static void loco_scan(loco_job *j, nm_measure *ms)
{
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t s = 0; s < j->slots; s++) {
		const uint64_t *w = slot_at(j, s);
		if (w[0] == 0)
			continue;   /* never used */
		bool ok = w[j->slot_words - 1] == slot_sum(j, w) &&
			  kv_check_value(&c, w[0], w + 1, j->p->load.value_words) == KV_READ_OK;
		if (!ok) {
			if (!ms->rank_c[KV_C_BAD_SLOTS])
				nm_error_note(&ms->rank_err, "slot %" PRIu64 " (key 0x%016" PRIx64 ") fails its %s after the run",
					      s, w[0], w[j->slot_words - 1] == slot_sum(j, w) ? "value check" : "checksum");
			ms->rank_c[KV_C_BAD_SLOTS]++;
		}
	}
	kv_checker_free(&c);
}

static json_t *loco_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	loco_job *j = nm_calloc64(1, sizeof *j);
	*j = (loco_job){.r = r, .p = r->p, .rank = ctx->rank, .N = ctx->nranks, .T = ctx->base.threads,
			.timeout = ctx->base.timeout, .emulated = ctx->dev->emulated};
	loco_connect(j, ctx);
	nm_round rd = {.workers = j->T + 1, .numa_node = ctx->base.mem_node, .setup = thr_setup, .body = thr_body,
		       .arg = j, .measure = r->ms};
	nm_workers_run(&rd);
	loco_scan(j, r->ms);
	json_t *eff = json_pack("{s:i, s:I, s:i, s:i, s:I, s:i}", "slot_bytes", (int)j->p->slot_bytes,
				"slots_per_node", (json_int_t)j->slots, "locks", j->p->locks, "tracker_entries",
				TRACKER_ENTRIES, "index_buckets", (json_int_t)(j->index.mask + 1), "qps_per_node",
				nm_mesh_qp_count(&j->mesh));
	if (j->emulated)
		json_object_set_new(eff, "emulated_change",
				    json_string("the idle tracker thread naps (50 to 800 us) between polls instead of spinning "
						"(the VM's CPUs are shared by every thread and by rxe)"));
	nm_boot_barrier();   /* no peer reads this node's memory any more */
	nm_mesh_destroy(&j->mesh);
	nm_tracker_free(&j->tr);
	nm_kvindex_free(&j->index);
	pthread_mutex_destroy(&j->free_mu);
	free(j->free);
	nm_mr_free(&j->mr);
	free(j);
	return eff;
}

const kv_system kv_loco = {
	.name = "loco",
	.summary = "LOCO's kvstore: slots READ by one RDMA READ via a local index, ticket locks, tracker ringbuffer",
	.global_versions = true,
	.service_threads = 1,
	.run = loco_run,
};
