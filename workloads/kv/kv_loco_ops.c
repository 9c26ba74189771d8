/* LOCO's kvstore, its operations: each a small state machine of the window
 * engine (kv_window.h), advanced by its completions; the store around them is
 * kv_loco.c.
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
 * of one thread on one lock simply hold two tickets. */
#include "kv_loco.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <string.h>

typedef enum { S_IDLE, S_LOCK_FAA, S_LOCK_POLL, S_WRITE, S_WITNESS, S_POST_MSG, S_ACKS, S_RELEASE,
	       S_READ } loco_state;

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
		memcpy(o->w.buf, slot_at(j, o->loc.slot), 8 * j->lay.slot_words);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return;   /* validated by get_check, as a READ's result */
	}
	kv_win_read(&t->win, &o->w, o->loc.node, o->w.buf,
		  slot_raddr(j, &o->loc),
		  8 * j->lay.slot_words);
}

/* A slot read (by READ or CPU copy) is in o->w.buf: retry, miss or value. */
static void get_check(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	bool skip_sum = j->p->inject == KV_INJECT_NO_CHECKSUM;
	while (!skip_sum && o->w.buf[j->lay.slot_words - 1] != slot_sum(j, o->w.buf)) {
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
static kv_inj_entry inj_entry(const kv_win *w, kv_wop *wo)
{
	const loco_job *j = w->sys;
	const loco_op *o = (const loco_op *)wo;
	bool here = o->loc.node == j->rank;
	return (kv_inj_entry){.node = o->loc.node, .raddr = slot_raddr(j, &o->loc),
			      .local = here ? slot_at(j, o->loc.slot) : NULL, .words = j->lay.slot_words,
			      .look = o->w.buf + j->lay.slot_words, .then = S_WRITE};
}

/* Lock held: the update's write. */
static void update_write(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (!located(t, o))
		return;
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, o->loc.counter, true);
	o->w.wrote = o->w.buf[1];
	kv_inject fault = kv_inject_now(&t->win.inj);
	if (fault == KV_INJECT_EARLY_RELEASE) {
		/* the fault: the lock goes before the value lands */
		kv_inj_late_start(&o->w, &o->w.word[0]);
		o->w.word[1] = o->ticket + 1;
		kv_win_write(&t->win, &o->w, o->home, &o->w.word[1], lock_raddr(j, o->lock, 8), 8, true);
		return;
	}
	if (fault == KV_INJECT_NO_CHECKSUM) {
		kv_inj_half_start(&t->win, &o->w);
		return;
	}
	o->w.state = S_WRITE;
	o->w.since = nm_ticks();
	if (o->loc.node == j->rank) {
		memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->lay.slot_words);
		lock_release(t, o);
		return;
	}
	kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->lay.slot_words, !j->p->fence);
	if (j->p->fence)
		kv_win_fence(&t->win, &o->w, o->loc.node);
	else
		lock_release(t, o);   /* both in flight: the write is not waited for */
}

/* The injected late write, watched by its own thread as a reader would:
 * the slot is read before the write (the next holder's newer value) and
 * after it (the older one this write puts back). Both go through the
 * thread's read check and into the history as gets (after the update
 * returned), so a fault that happened is seen for sure rather than only
 * when another reader happens to read at the right moment. */
static void witness_done(loco_thr *t, loco_op *o);

static void witness_read(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	o->w.state = S_WITNESS;
	o->w.since = nm_ticks();
	if (o->loc.node != j->rank) {
		kv_win_read(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->lay.slot_words);
		return;
	}
	memcpy(o->w.buf, slot_at(j, o->loc.slot), 8 * j->lay.slot_words);
	witness_done(t, o);
}

static void witness_done(loco_thr *t, loco_op *o)
{
	loco_job *j = t->j;
	if (o->w.buf[j->lay.slot_words - 1] == slot_sum(j, o->w.buf) && o->w.buf[0] == o->w.key) {
		kv_check(t->win.kt, o->w.key, o->w.buf + 1);
		kv_history_add(t->win.kt, KV_GET, o->w.key, o->w.buf[1], true, o->w.since, nm_ticks());
	}
	if (o->released) {
		op_finish(t, o);
		return;
	}
	/* now the late write itself, then the second look */
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, o->loc.counter, true);
	o->released = true;
	o->w.state = S_WRITE;
	if (o->loc.node != j->rank) {
		kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, slot_raddr(j, &o->loc), 8 * j->lay.slot_words, true);
		return;
	}
	memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->lay.slot_words);
	witness_read(t, o);
}

/* The late write is due once the next holder has released too (it wrote
 * a newer value, which this write now overwrites): watch now_serving. */
static void late_step(kv_win *w, kv_wop *wo)
{
	loco_thr *t = (loco_thr *)w;
	loco_op *o = (loco_op *)wo;
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
	if (!loco_slot_alloc(j, &s)) {
		t->win.kt->meter->c[KV_C_FULL]++;
		o->w.found = false;
		lock_release(t, o);
		return;
	}
	uint64_t *w = slot_at(j, s);
	uint32_t counter = slot_counter(j, w) + 1;
	slot_image(j, o->w.buf, o->w.key, t->win.kt->writer, (uint32_t)o->ticket + 1, counter, false);
	o->w.wrote = o->w.buf[1];
	memcpy(w, o->w.buf, 8 * j->lay.slot_words);
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
	o->w.wrote = o->w.buf[1];
	if (o->loc.node == j->rank) {
		memcpy(slot_at(j, o->loc.slot), o->w.buf, 8 * j->lay.slot_words);
	} else {
		uint64_t raddr = slot_raddr(j, &o->loc);
		kv_win_write(&t->win, &o->w, o->loc.node, o->w.buf, raddr, 8 * j->lay.slot_words, false);
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
		o->w.buf[j->lay.slot_words - 2] |= 1;
		o->w.buf[j->lay.slot_words - 1] = slot_sum(j, o->w.buf);
		memcpy(w, o->w.buf, 8 * j->lay.slot_words);   /* valid set: the insert linearizes */
	} else {
		nm_kvindex_del(&j->index, o->w.key);
		if (o->loc.node == j->rank)
			loco_slot_free(j, o->loc.slot);
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
	case S_RELEASE:
		op_finish(t, o);
		break;
	default:
		break;   /* S_POST_MSG, S_ACKS: stepped by the loop */
	}
}

/* Steps that wait on memory or time, not on a completion. */
static void step(kv_win *w, kv_wop *wo)
{
	loco_thr *t = (loco_thr *)w;
	loco_op *o = (loco_op *)wo;
	switch (o->w.state) {
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

const kv_win_ops loco_steps = {.start = start, .advance = advance, .step = step, .inj_entry = inj_entry,
			       .late = late_step};
