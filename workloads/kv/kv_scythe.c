/* A Scythe-style key-value store, the `scythe` system of netmem kv (kv.h):
 * a variant of this suite after Scythe's public code (PDS-Lab's; the LOCO
 * paper's Fig. 5 runs its MicroDB with a window of 3 and measures inserts as
 * its write path), not Scythe itself (no transactions, no version chain, no
 * coroutines). Its paths are Scythe's one-operation transactions:
 *   - a read is an RPC (OCC::Read, read_service in COLD mode): the
 *     object's server thread answers with the record, or "locked" while the
 *     object's takeout lock is held or queued for, and the read is retried;
 *     a read-only transaction has nothing to validate (OCC::Commit);
 *   - an insert is one RPC (a WRITE request with create): the server
 *     installs the record as the object's newest version, last one in wins
 *     (alloc_insert), and takes no lock ("newly created objects need no
 *     lock", OCC::lock);
 *   - an update (--scythe-write update; the paper measured inserts) is
 *     MicroDB's read-modify-write TxUpdate: a read by RPC, then it queues
 *     on the object's takeout lock by RPC (queuing_service: a ticket, or a
 *     refusal when the stamp is older than the newest queued one or more
 *     than 3 wait), waits for its ticket by one-sided READs of the served
 *     ticket (poll_lock), validates by one one-sided READ of the header
 *     (OCC::validate: a newer version since the read aborts it: release,
 *     read again), writes by RPC (a WRITE request without create), and
 *     releases by one-sided FETCH_AND_ADD of the served ticket.
 * The RPC is Scythe's rrpc (wring.h): requests batched into buckets of up
 * to 10, each put into the server's ring by one RDMA WRITE, polled by the
 * server thread, answered by one WRITE into the client's ring. One server
 * thread per node (mesh thread T) serves every client thread of every
 * node, this one's included; it stops once every client thread of the job
 * has said goodbye.
 *
 * Versions: a write's value carries the writer's own sequence (kv_core.h,
 * per writer: the server installs in arrival order, as Scythe does). Its
 * stamp (Scythe's TSO reads rdtsc, each host its own; here
 * CLOCK_MONOTONIC_RAW in 16 ns steps from a barrier all ranks leave
 * together, 64 bits) is the object's version and what the takeout lock
 * orders queued requests by.
 *
 * Layout (kv_size.h): key rank r is object r / nodes on node r mod nodes. */
#include "kv_scythe.h"
#include "wring.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include "workers.h"
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#define SC_STAMP_NS 16       /* one stamp step */

static const char *const rq_names[] = {"?", "read", "insert", "lock request", "update", "goodbye"};

typedef enum {
	S_IDLE, S_GET, S_INSERT, S_QUEUE, S_POLL, S_UPDATE, S_RELEASE, S_WRITTEN, S_LATE_RPC, S_UREAD, S_LAST_LOOK,
	S_VALIDATE, S_ABORTED
} sc_state;

typedef struct sc_op {
	kv_wop w;
	uint64_t idx;                    /* object index on its node */
	uint64_t stamp;
	int node;
	uint64_t ticket;                 /* update: the takeout lock's ticket */
	uint64_t read_version;           /* update: the value word its read saw (writer and sequence: unique
					  * to a write), validated under the lock */
	const uint64_t *reply;           /* the reply being handled (in the ring) */
	uint64_t first_seen, look_t0;    /* early-release: the first value word watched */
} sc_op;

/* One client thread's requests to one node. */
typedef struct sc_out {
	uint64_t *stage;                 /* messages queued, not yet sent: [words][payload]... */
	uint32_t staged, staged_words;
	uint64_t next_seq;               /* the next bucket's (from 1) */
	uint64_t replied;                /* buckets whose reply has been handled */
	uint64_t written;                /* bucket WRITEs completed: their slots are free */
} sc_out;

typedef struct sc_thr {
	kv_win win;                      /* first: the engine hands it to the steps; win.sys is the job */
	uint64_t last_stamp;
	sc_out *out;                     /* [N] */
	uint32_t passes, byes, idle;
} sc_thr;

static sc_job *job(const sc_thr *t) { return t->win.sys; }
static sc_thr *thr(kv_win *w) { return (sc_thr *)w; }
static sc_op *op(kv_wop *o) { return (sc_op *)o; }

/* The TSO: this thread's clock reading in steps, after its last one. */
static uint64_t stamp_next(sc_thr *t)
{
	uint64_t s = (nm_now_ns() - job(t)->epoch_ns) / SC_STAMP_NS;
	t->last_stamp = s > t->last_stamp ? s : t->last_stamp + 1;
	return t->last_stamp;
}

/* ---- the client's side of the RPC ---------------------------------------- */

/* Queues a request of o (NULL: of no operation) to node: its payload,
 * whose first 4 words are filled here; the caller writes the rest. */
static uint64_t *request(sc_thr *t, sc_op *o, int node, int kind, uint32_t words)
{
	sc_out *q = &t->out[node];
	uint64_t *m = q->stage + q->staged_words;
	m[0] = words;
	q->staged++;
	q->staged_words += 1 + words;
	uint32_t slot = o ? kv_win_index(&t->win, &o->w) : SC_NO_OP;
	m[1] = (uint64_t)slot << 8 | (uint64_t)kind;
	m[2] = o ? o->w.key : 0;
	m[3] = o ? o->idx : 0;
	m[4] = o ? o->stamp : 0;
	if (o) {
		t->win.kt->meter->c[KV_C_RPCS]++;
		o->w.since = nm_ticks();
	}
	return m + 1;
}

static void send_read(sc_thr *t, sc_op *o, int state)
{
	o->w.state = state;
	request(t, o, o->node, RQ_READ, 4);
}

/* An insert or an update of the record image in o->w.buf. */
static void send_write(sc_thr *t, sc_op *o, int kind, int state)
{
	uint32_t rw = job(t)->lay.rec_words;
	o->w.state = state;
	memcpy(request(t, o, o->node, kind, 4 + rw) + 4, o->w.buf, 8 * rw);
}

static void send_queue(sc_thr *t, sc_op *o)
{
	o->w.state = S_QUEUE;
	o->stamp = stamp_next(t);
	request(t, o, o->node, RQ_QUEUE, 4);
}

/* Posts what is queued for node, in buckets of up to KV_SCYTHE_BATCH, as
 * far as the ring and the send slots allow (the rest waits for a reply or
 * a completion). */
static void flush(sc_thr *t, int node)
{
	sc_job *j = job(t);
	sc_out *q = &t->out[node];
	uint32_t R = j->lay.ring;
	size_t ring = sc_client_ring(j, t->win.thread, node);
	while (q->staged > 0 && q->next_seq - q->replied <= R && q->next_seq - q->written <= R) {
		uint64_t seq = q->next_seq++;
		size_t out = sc_ring_off(j, j->lay.out_off, ring, nm_wring_index(seq, R));
		uint64_t *b = sc_local(j, out);
		nm_wring_begin(b, seq);
		uint32_t n = q->staged < KV_SCYTHE_BATCH ? q->staged : KV_SCYTHE_BATCH, used = 0;
		for (uint32_t i = 0; i < n; i++) {
			const uint64_t *m = q->stage + used;
			memcpy(nm_wring_add(b, (uint32_t)m[0]), m + 1, 8 * m[0]);
			used += 1 + (uint32_t)m[0];
		}
		uint32_t len = nm_wring_seal(b);
		memmove(q->stage, q->stage + used, 8 * (size_t)(q->staged_words - used));
		q->staged -= n;
		q->staged_words -= used;
		/* into node's ring of requests from (this rank, this thread) */
		size_t rr = (size_t)j->rank * (size_t)j->T + (size_t)t->win.thread;
		uint64_t raddr = j->mesh.rmr[node].addr + sc_ring_off(j, j->lay.req_off, rr, nm_wring_index(seq, R));
		nm_conn *c = kv_win_conn(&t->win, node);
		nm_post_rw(c, NM_OP_WRITE, b, j->mr.mr->lkey, raddr, 8 * len,
			   kv_win_sys_wrid(&t->win, NM_OP_WRITE, (uint32_t)node), true);
	}
}

static void advance(kv_win *w, kv_wop *wo);

/* Node's replies that have arrived, in order: each to its operation.
 * Returns how many buckets. */
static int replies(sc_thr *t, int node)
{
	sc_job *j = job(t);
	sc_out *q = &t->out[node];
	size_t ring = sc_client_ring(j, t->win.thread, node);
	int n = 0;
	for (; q->replied + 1 < q->next_seq; n++) {
		uint64_t seq = q->replied + 1;
		const uint64_t *b = sc_local(j, sc_ring_off(j, j->lay.rep_off, ring, nm_wring_index(seq, j->lay.ring)));
		if (!nm_wring_arrived(b, seq, sc_bucket_words(j)))
			break;
		uint32_t words;
		for (const uint64_t *m = nm_wring_next(b, NULL, &words); m; m = nm_wring_next(b, m, &words)) {
			uint32_t slot = (uint32_t)(m[0] >> 8);
			if (slot == SC_NO_OP) {
				t->byes++;
				continue;
			}
			sc_op *o = op(kv_win_op(&t->win, (int)slot));
			o->reply = m;
			advance(&t->win, &o->w);
			o->reply = NULL;
		}
		q->replied = seq;
	}
	return n;
}

/* An operation that waits for a reply longer than --timeout ends the job. */
static void overdue(sc_thr *t)
{
	for (int i = 0; i < t->win.window; i++) {
		sc_op *o = op(kv_win_op(&t->win, i));
		static const int rpc_kind[] = {[S_GET] = RQ_READ, [S_INSERT] = RQ_INSERT, [S_QUEUE] = RQ_QUEUE,
					       [S_UPDATE] = RQ_UPDATE, [S_LATE_RPC] = RQ_INSERT, [S_UREAD] = RQ_READ};
		int s = o->w.state;
		if (s <= 0 || s > S_UREAD || !rpc_kind[s] || !kv_win_overdue(&t->win, &o->w))
			continue;
		nm_fatal("kv scythe: rank %d thread %d waited %.1f s for rank %d's answer to its %s of key 0x%016" PRIx64
			 " (object %" PRIu64 "): rank %d's server thread stopped answering", job(t)->rank, t->win.thread,
			 t->win.timeout, o->node, rq_names[rpc_kind[s]], o->w.key, o->idx, o->node);
	}
}

/* The engine's poll, once per pass: replies in, then what the pass queued
 * out. On an oversubscribed host a thread that found no reply yields now
 * and then: the server thread it waits for may need its CPU. */
static void poll(kv_win *w)
{
	sc_thr *t = thr(w);
	int got = 0;
	for (int n = 0; n < job(t)->N; n++)
		got += replies(t, n);
	for (int n = 0; n < job(t)->N; n++)
		flush(t, n);
	if (++t->passes % 1024 == 0)
		overdue(t);
	if (got)
		t->idle = 0;
	else if (job(t)->yield && ++t->idle % NM_WAIT_YIELD_POLLS == 0)
		sched_yield();
}

static void sys_done(kv_win *w, uint32_t node) { thr(w)->out[node].written++; }

/* ---- the operations ----------------------------------------------------- */

static kv_inj_entry inj_entry(const kv_win *w, kv_wop *wo)
{
	const sc_job *j = w->sys;
	const sc_op *o = (const sc_op *)wo;
	return (kv_inj_entry){.node = o->node, .raddr = sc_obj_raddr(j, o->node, o->idx, KV_SC_REC),
			      .words = j->lay.rec_words, .look = o->w.buf + j->lay.rec_words, .then = S_WRITTEN};
}

static void release_post(sc_thr *t, sc_op *o, int next)
{
	o->w.state = next;
	kv_win_atomic(&t->win, &o->w, o->node, NM_OP_FAA, sc_obj_raddr(job(t), o->node, o->idx, KV_SC_UPPER), 1, 0);
}

/* The write, once allowed (an insert at once; an update holding its ticket). */
static void write_now(sc_thr *t, sc_op *o)
{
	switch (kv_inject_now(&t->win.inj)) {
	case KV_INJECT_EARLY_RELEASE:
		/* returns now (an update: once its lock is released); the write goes later */
		kv_inj_late_start(&o->w, &o->w.word[2]);
		o->first_seen = 0;
		o->look_t0 = nm_ticks();
		if (job(t)->update)
			release_post(t, o, KV_S_LATE);
		return;
	case KV_INJECT_NO_CHECKSUM:
		kv_inj_half_start(&t->win, &o->w);   /* one-sided, in two halves, into S_WRITTEN */
		return;
	default:
		send_write(t, o, job(t)->update ? RQ_UPDATE : RQ_INSERT, job(t)->update ? S_UPDATE : S_INSERT);
	}
}

static void poll_ticket(sc_thr *t, sc_op *o)
{
	o->w.state = S_POLL;
	kv_win_read(&t->win, &o->w, o->node, o->w.word, sc_obj_raddr(job(t), o->node, o->idx, KV_SC_UPPER), 8);
}

/* Holding the lock: OCC::validate's one-sided READ of the object's header.
 * Scythe compares its latest-version pointer, unique to a version; here
 * the header and the record's first value word, whose writer and sequence
 * are unique to a write (stamps of two writers may be equal). */
static void validate(sc_thr *t, sc_op *o)
{
	const sc_job *j = job(t);
	o->w.state = S_VALIDATE;
	kv_win_read(&t->win, &o->w, o->node, o->w.buf + 2 * j->lay.rec_words, sc_obj_raddr(j, o->node, o->idx, 0),
		    8 * (KV_SC_REC + 2));
}

/* A read's reply: the record, or locked (read again). */
static void got_read(sc_thr *t, sc_op *o)
{
	const sc_job *j = job(t);
	const uint64_t *m = o->reply, *rec = m + 4;
	bool skip = j->p->inject == KV_INJECT_NO_CHECKSUM;
	if ((m[0] & 0xff) == RP_LOCKED || (!skip && rec[j->lay.rec_words - 1] != sc_rec_sum(j, rec))) {
		t->win.kt->meter->c[KV_C_RETRIES]++;
		send_read(t, o, S_GET);
		return;
	}
	o->w.found = rec[0] == o->w.key;
	kv_win_finish(&t->win, &o->w, o->w.found ? rec + 1 : NULL);
}

/* A lock request's reply: a ticket (served now, or to wait for), or refused (ask again). */
static void got_queue(sc_thr *t, sc_op *o)
{
	const uint64_t *m = o->reply;
	if ((m[0] & 0xff) == RP_REFUSED) {
		t->win.kt->meter->c[KV_C_LOCK_RETRIES]++;
		send_queue(t, o);
		return;
	}
	o->ticket = m[2];
	if (m[3] == o->ticket)
		validate(t, o);
	else
		poll_ticket(t, o);
}

/* An update's read (Scythe's TxUpdate reads, then writes): the version
 * it saw, or locked (read again); then the lock request. */
static void got_uread(sc_thr *t, sc_op *o)
{
	if ((o->reply[0] & 0xff) == RP_LOCKED) {
		t->win.kt->meter->c[KV_C_RETRIES]++;
		send_read(t, o, S_UREAD);
		return;
	}
	o->read_version = o->reply[4 + 1];
	send_queue(t, o);
}

static void advance(kv_win *w, kv_wop *wo)
{
	sc_thr *t = thr(w);
	sc_op *o = op(wo);
	switch (o->w.state) {
	case S_GET:
		got_read(t, o);
		break;
	case S_QUEUE:
		got_queue(t, o);
		break;
	case S_UREAD:
		got_uread(t, o);
		break;
	case S_VALIDATE: {
		/* a newer version since the read: abort (release, then read again) */
		const uint64_t *hdr = o->w.buf + 2 * job(t)->lay.rec_words;
		if (hdr[KV_SC_REC + 1] != o->read_version) {
			t->win.kt->meter->c[KV_C_ABORTS]++;
			release_post(t, o, S_ABORTED);
			break;
		}
		o->stamp = stamp_next(t);   /* the commit stamp, the version it installs */
		write_now(t, o);
		break;
	}
	case S_ABORTED:
		send_read(t, o, S_UREAD);
		break;
	case S_POLL:
		if (o->w.word[0] == o->ticket) {
			validate(t, o);
			break;
		}
		t->win.kt->meter->c[KV_C_LOCK_RETRIES]++;
		if (kv_win_overdue(w, wo))
			nm_fatal("kv scythe: rank %d thread %d waited %.1f s for ticket %" PRIu64 " of object %" PRIu64
				 " on rank %d (key 0x%016" PRIx64 "), served %" PRIu64 ": a holder never released it",
				 job(t)->rank, w->thread, w->timeout, o->ticket, o->idx, o->node, o->w.key, o->w.word[0]);
		poll_ticket(t, o);
		break;
	case S_UPDATE:
		release_post(t, o, S_RELEASE);
		break;
	case S_WRITTEN:   /* the injected half-write's rest is in */
		if (job(t)->update) {
			release_post(t, o, S_RELEASE);
			break;
		}
		kv_win_finish(w, wo, NULL);
		break;
	case S_LATE_RPC:   /* the late write is in: one last look at the value */
		o->look_t0 = nm_ticks();
		o->w.state = S_LAST_LOOK;
		o->w.word[2] = 0;
		kv_win_read(w, wo, o->node, o->w.word + 2, sc_obj_raddr(job(t), o->node, o->idx, KV_SC_REC + 1), 8);
		break;
	case S_LAST_LOOK:
		kv_history_add(w->kt, KV_GET, o->w.key, o->w.word[2], true, o->look_t0, nm_ticks());
		kv_win_finish(w, wo, NULL);
		break;
	case S_INSERT:
	case S_RELEASE:
		kv_win_finish(w, wo, NULL);
		break;
	}
}

/* early-release: the write goes in once another writer's value has
 * replaced the one first seen (or after the longest wait); the looks, one
 * at least after the operation returned, go into the history as gets. */
static void late_step(kv_win *w, kv_wop *wo)
{
	sc_thr *t = thr(w);
	sc_op *o = op(wo);
	uint64_t seen = o->w.word[2];
	if (seen && !o->first_seen)
		o->first_seen = seen;
	bool late = seen && seen != o->first_seen && kv_word_writer(seen) != (w->kt->writer & 0xffff);
	kv_inj_late_look(w, wo, seen, o->look_t0, late);
	o->look_t0 = nm_ticks();
	if (!kv_inj_late_due(w, wo, late, o->node, o->w.word + 2, sc_obj_raddr(job(t), o->node, o->idx, KV_SC_REC + 1)))
		return;
	send_write(t, o, job(t)->update ? RQ_UPDATE : RQ_INSERT, S_LATE_RPC);
}

static void start(kv_win *w, kv_wop *wo)
{
	sc_thr *t = thr(w);
	sc_op *o = op(wo);
	sc_job *j = job(t);
	uint64_t rank;
	o->w.kind = kv_next(w->kt, &rank);
	o->w.key = kv_key(rank);
	o->node = (int)(rank % (uint64_t)j->N);
	o->idx = rank / (uint64_t)j->N;
	o->stamp = 0;
	if (o->w.kind == KV_GET) {
		send_read(t, o, S_GET);
		return;
	}
	o->w.kind = j->update ? KV_UPDATE : KV_INSERT;
	o->w.found = true;
	sc_rec_image(j, o->w.buf, o->w.key, w->kt->writer, ++w->kt->seq);
	o->w.wrote = o->w.buf[1];
	if (j->update) {
		send_read(t, o, S_UREAD);
		return;
	}
	o->stamp = stamp_next(t);
	write_now(t, o);
}

static const kv_win_ops sc_steps = {.start = start, .advance = advance, .inj_entry = inj_entry, .late = late_step,
				    .poll = poll, .sys_done = sys_done};

/* ---- threads and the point ------------------------------------------------ */

/* After the measured run: goodbye to every node's server, and every bucket
 * WRITE completed. */
static void goodbye(sc_thr *t)
{
	sc_job *j = job(t);
	for (int n = 0; n < j->N; n++)
		request(t, NULL, n, RQ_BYE, 4);
	uint64_t t0 = nm_ticks();
	while (t->byes < (uint32_t)j->N || t->win.outstanding > 0) {
		poll(&t->win);
		kv_win_reap(&t->win);
		if (nm_ticks_to_ns(nm_ticks() - t0) > (uint64_t)(j->timeout * 1e9))
			nm_fatal("kv scythe: rank %d thread %d said goodbye to %d nodes and heard back from %u in %.1f s",
				 j->rank, t->win.thread, j->N, t->byes, j->timeout);
	}
}

/* A worker: a client thread (mesh threads 0 .. T-1), or the server (T). */
typedef struct sc_worker {
	sc_job *j;
	sc_thr *t;                       /* NULL: the server thread */
} sc_worker;

static void thr_setup(nm_worker *w)
{
	sc_job *j = w->arg;
	sc_worker *sw = nm_calloc(1, sizeof *sw);
	sw->j = j;
	w->arg = sw;
	if (w->index == j->T)
		return;
	sc_thr *t = sw->t = nm_calloc64(1, sizeof *t);
	kv_thread *kt = kv_run_thread(j->r, w);
	uint8_t *scr = (uint8_t *)j->mr.buf + j->plan.scratch_off + (size_t)w->index * j->plan.scratch_per_thread;
	kv_win_init(&t->win, &sc_steps, j, kt, &j->mesh, j->mr.mr->lkey, w->index, j->p->window, sizeof(sc_op), scr,
		    j->plan.scratch_per_op, j->timeout);
	kv_injector_init(&t->win.inj, j->p->inject, j->rank);
	t->out = nm_calloc((size_t)j->N, sizeof *t->out);
	for (int n = 0; n < j->N; n++) {
		t->out[n].stage = nm_calloc((size_t)j->p->window + 1, 8 * (1 + (size_t)j->lay.msg_words));
		t->out[n].next_seq = 1;
	}
}

static void thr_body(nm_worker *w)
{
	sc_worker *sw = w->arg;
	sc_thr *t = sw->t;
	if (!t) {
		kv_scythe_serve(sw->j, w);
	} else {
		kv_win_body(&t->win);
		goodbye(t);
		for (int n = 0; n < sw->j->N; n++)
			free(t->out[n].stage);
		free(t->out);
		kv_win_free(&t->win);
		free(t);
	}
	free(sw);
}

/* After the run: every object of this node is unlocked (its tickets all
 * served) and holds a whole value of its own key. */
static void sc_scan(const sc_job *j, nm_measure *ms)
{
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t i = 0; i < j->lay.objs_here; i++) {
		const uint64_t *o = sc_obj(j, i), *rec = o + KV_SC_REC;
		bool held = o[KV_SC_LOWER] != o[KV_SC_UPPER];
		if (!held && rec[0] == 0)
			continue;
		bool bad = held || rec[j->lay.rec_words - 1] != sc_rec_sum(j, rec) ||
			   kv_check_value(&c, rec[0], rec + 1, j->p->load.value_words) != KV_READ_OK;
		if (bad && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "object %" PRIu64 " of rank %d fails its check after the run (%s)", i,
				      j->rank, held ? "its takeout lock is still held or queued for" : "its record is torn or foreign");
	}
	kv_checker_free(&c);
}

static void prefill(sc_job *j)
{
	for (uint64_t rank = (uint64_t)j->rank; rank < j->p->load.prefill; rank += (uint64_t)j->N) {
		sc_rec_image(j, sc_obj(j, rank / (uint64_t)j->N) + KV_SC_REC, kv_key(rank), KV_PREFILL_WRITER, 0);
	}
}

static json_t *sc_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	sc_job *j = nm_calloc64(1, sizeof *j);
	*j = (sc_job){.r = r, .p = r->p, .rank = ctx->rank, .N = ctx->nranks, .T = ctx->base.threads,
		      .update = r->p->scythe_write == KV_SCYTHE_UPDATE,
		      .timeout = ctx->base.timeout};
	j->plan = kv_scythe_plan(j->p, j->N, j->T, &j->lay);
	kv_win_mem(ctx, &j->mr, &j->plan);
	prefill(j);
	kv_win_mesh(ctx, &j->mesh, &j->mr, &j->plan);   /* -T client threads and the server thread */
	int busy, cpus;
	j->yield = nm_host_oversubscribed(j->T + 1, &busy, &cpus);
	/* Each rank's clock from the moment all leave one barrier: hosts' raw
	 * clocks count from their own boot, and a host whose stamps always
	 * lagged would have its lock requests refused for good */
	nm_boot_barrier();
	j->epoch_ns = nm_now_ns();
	nm_round rd = {.workers = j->T + 1, .numa_node = ctx->base.mem_node, .setup = thr_setup, .body = thr_body,
		       .arg = j, .measure = r->ms};
	nm_workers_run(&rd);
	sc_scan(j, r->ms);
	json_t *eff = json_pack("{s:s, s:s, s:i, s:i, s:i}", "write_path",
				j->update ? "update (MicroDB's read-modify-write: a read by RPC; the takeout lock by a queue "
					    "RPC, its ticket polled by READ; validation by READ; the write by RPC; the release "
					    "by FETCH_AND_ADD)"
					  : "insert (a new version by one RPC, no lock)",
				"read_path", "RPC (COLD: locked objects answer no data; the read is retried)",
				"rpc_batch", KV_SCYTHE_BATCH, "server_threads_per_node", 1, "object_bytes",
				(int)(8 * j->lay.obj_words));
	char how[96] = "spin";
	if (j->yield)
		snprintf(how, sizeof how, "spin, yielding every %d empty polls (host oversubscribed: %d busy threads, %d CPUs)",
			 NM_WAIT_YIELD_POLLS, busy, cpus);
	json_object_set_new(eff, "rpc_wait", json_string(how));
	json_object_set_new(eff, "server_idle", json_string("spin, yielding every 64 empty polls (it never sleeps: every "
							    "operation waits for it)"));
	kv_win_created(eff, &j->mesh, &j->mr);
	nm_boot_barrier();   /* no peer writes into this node's memory any more */
	nm_mesh_destroy(&j->mesh);
	nm_mr_free(&j->mr);
	free(j);
	return eff;
}

const kv_system kv_scythe = {
	.name = "scythe",
	.summary = "Scythe-style variant (this suite's, after Scythe's code): reads and writes by RPC over RDMA WRITE "
		   "to a server thread per node (batched, polled), inserts by default (no lock), updates on Scythe's "
		   "takeout lock",
	.global_versions = false,
	.service_threads = 1,
	.run = sc_run,
};
