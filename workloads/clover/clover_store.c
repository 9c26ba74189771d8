/* netmem clover's store: Clover's chains of versions in the memory nodes'
 * registered memory, the client threads' gets and updates over kv's window
 * engine, and the walk of the chains after the run (clover.c runs it).
 *
 * The store: every key has a chain of versions in its memory node's
 * registered memory, a version being [next (8 B) | key (8 B) | value words],
 * the layout clover_resolve.h expects (next_off 0, key_off 8, NULL = 0, a
 * CAS swaps in the new version's VA). Key rank r lives on memory node
 * r mod M; its first version (the prefill: writer 0xffff, version 0) at
 * index r / M of the node's head area.
 *   get     READ the version at the thread's cursor for the key (and the
 *           key's shortcut, below); while its
 *           next is not NULL, follow it (one READ per hop); a version whose
 *           next is NULL is fresh ("Clients can independently confirm their
 *           reads are fresh by ensuring the value returned has a NULL
 *           next-update pointer").
 *   update  WRITE the new version (next = NULL) to a free slot, wait for its
 *           completion (Clover's replication-1 path), CAS the cursor's next
 *           from NULL to the slot's VA; on failure the CAS returns the next
 *           version: READ next pointers from there to the tail and CAS again.
 * Each client thread has one operation outstanding (kv_window's engine with
 * a window of 1), as the paper's blocking client threads.
 *
 * Values and checks (kv_core.h): a value is kv_value_fill(key, writer, seq) with
 * seq the writer's own sequence (a writer does not know the chain's length
 * when it writes, so versions are ordered per writer, as Redis's in netmem
 * kv); every get is checked (its key, not torn, a writer's versions never
 * seen going back). After the run each memory node walks its chains: every
 * version holds its own key and a whole value, each writer's versions
 * appear in its own order, and the versions on the chains are exactly the
 * acknowledged writes (their job-wide counts must be equal: a version is
 * linked only by the CAS that acknowledges its write).
 *
 * Decisions the paper leaves open, taken here:
 * - Allocation: the metadata server (rank 0, workloads/clover/clover_ms.c)
 *   hands out free version slots in batches of 16 by RPC over SEND/RECV, as
 *   Clover's does; a thread keeps what is left of a batch for its next
 *   updates to that memory node. The RPC is one of the update's round trips.
 * - No garbage collection: versions are never reused, so chains grow for
 *   the whole run and --slots per client thread per memory node sizes the
 *   pool the metadata server hands out; with --duration a point whose pool
 *   ran out runs again with a pool sized from its rate (clover_pool.h).
 *   Reusing a slot safely needs what Clover's pointers and CRCs give it:
 *   a reader or a writer's CAS holding a stale pointer must tell a reused
 *   slot from the version it meant (see the README).
 * - Shortcuts: each key has an 8-byte shortcut in its memory node's memory
 *   naming (nearly) its newest version. A get READs it in parallel with the
 *   version at its cursor and, when that version is not the tail, jumps to
 *   the shortcut once, then follows next pointers (a lagging shortcut costs
 *   hops, never a stale read). After a successful CAS the writer WRITEs the
 *   new version's VA there, inline and unsignaled where the QP allows
 *   (Clover does it from a background thread). A writer whose CAS failed
 *   chases from the version that beat it, not from the shortcut.
 * - A thread's cursor moves forward only (to the version a get found or an
 *   update linked), so its reads of a key never go back in the chain.
 * - A thread whose memory node's pool is used up records an error (the point
 *   is invalid), counts the update (pool_exhausted) and finishes it
 *   unwritten: --slots bounds the writes.
 * - Versions are packed (16 + value bytes), not padded to Clover's 128-byte
 *   slabs, and carry no CRC: a version is written before it is linked and
 *   never rewritten, so a reader cannot see it half written. */
#include "clover.h"
#include "clover_ms.h"
#include "kv_window.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "stall.h"
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the layout -------------------------------------------------------------------- */

static size_t cl_layout(cl_job *j)
{
	j->slot_bytes = CL_VERSION_HDR + j->p->value_size;
	j->scratch_per_op = kv_win_scratch(j->slot_bytes);
	j->part_bytes = j->cp->slots * j->slot_bytes;
	if (j->rank == 0)   /* the metadata server: one message area per client thread */
		return (size_t)j->clients * (size_t)j->T * CL_MS_MSG_BYTES;
	if (!is_mem(j, j->rank))   /* clients: one operation's scratch, then a message area, per thread */
		return (size_t)j->T * (j->scratch_per_op + CL_MS_MSG_BYTES);
	return part_off(j, mem_index(j, j->rank), (uint64_t)j->clients * (uint64_t)j->T);
}

/* The VA of key rank r's shortcut on its memory node. */
static uint64_t shortcut_va(const cl_job *j, uint64_t r)
{
	int m = mem_index(j, key_node(j, r));
	return j->mesh.rmr[key_node(j, r)].addr + heads_bytes(j, m) + (r / (uint64_t)j->M) * 8;
}

uint64_t cl_head_va(const cl_job *j, uint64_t r)
{
	return j->mesh.rmr[key_node(j, r)].addr + (r / (uint64_t)j->M) * j->slot_bytes;
}

static void version_image(const cl_job *j, uint64_t *v, uint64_t key, uint32_t writer, uint32_t version)
{
	v[0] = 0;
	v[1] = key;
	kv_value_fill(v + 2, j->p->value_words, key, writer, version);
}

/* Memory node: every local key's first version, the tail of its chain. */
static void cl_prefill(cl_job *j)
{
	int m = mem_index(j, j->rank);
	for (uint64_t i = 0; i < keys_on(j, m); i++) {
		uint64_t r = i * (uint64_t)j->M + (uint64_t)m;
		version_image(j, (uint64_t *)((uint8_t *)j->mr.buf + i * j->slot_bytes), kv_key(r), KV_PREFILL_WRITER, 0);
		((uint64_t *)((uint8_t *)j->mr.buf + heads_bytes(j, m)))[i] = (uint64_t)(uintptr_t)j->mr.buf + i * j->slot_bytes;
	}
}

/* ---- one client thread ------------------------------------------------------------ */

typedef enum { S_IDLE, S_FIRST, S_READ, S_ALLOC, S_WRITE, S_CAS, S_CHASE, S_SHORTCUT } cl_state;

typedef struct cl_op {
	kv_wop w;
	uint64_t rank, va;   /* key rank; the version being read, or the tail a CAS targets */
	uint64_t slot;       /* an update's new version */
	int node;
	uint32_t rtts;
} cl_op;

typedef struct cl_thr {
	kv_win win;          /* first: the engine hands it back as the thread */
	cl_job *j;
	int t;
	uint64_t *cursor;    /* [keys]: the newest version this thread knows of each key */
	uint64_t (*batch)[CL_MS_BATCH];   /* [M]: free slots from the metadata server, per memory node */
	uint32_t *nfree;     /* [M]: how many of them are left */
	uint8_t *msg;        /* registered: the allocation RPC's request and reply */
	uint64_t first_op;   /* ticks: when the thread started its first operation */
	bool ran_out;        /* the pool was used up once already */
} cl_thr;

static uint64_t *ctr(cl_thr *t) { return t->win.kt->meter->c; }

static void cl_finish(cl_thr *t, cl_op *o, const uint64_t *val)
{
	nm_meter *m = t->win.kt->meter;
	ctr(t)[CL_C_RTTS] += o->rtts;
	if (m->measuring)
		nm_hist_add(&t->j->rtt[t->t], o->rtts);
	kv_win_finish(&t->win, &o->w, val);
	if (t->j->first_alone && t->t == 0)
		atomic_store(&t->j->first_done, 1);
}

/* NETMEM_TEST_CLOVER_FIRST_ALONE: the rank's threads but the first wait
 * here until its first operation is done (clover.h). */
static void wait_first_alone(cl_thr *t)
{
	nm_wait w;
	nm_wait_start(&w, (double)nm_now_ns() / 1e9, t->j->timeout, 0);
	while (!atomic_load(&t->j->first_done)) {
		double now = (double)nm_now_ns() / 1e9;
		if (nm_wait_expired(&w, now, 0))
			nm_stalled("thread 0's first operation (NETMEM_TEST_CLOVER_FIRST_ALONE)", now - w.t0,
				   "rank %d thread %d waits for it to start its own", t->j->rank, t->t);
		sched_yield();
	}
}

static void read_post(cl_thr *t, cl_op *o, cl_state s, void *dst, uint32_t len)
{
	o->w.state = s;
	o->rtts++;
	kv_win_read(&t->win, &o->w, o->node, dst, o->va, len);
}

static void cas_post(cl_thr *t, cl_op *o)
{
	o->w.state = S_CAS;
	o->rtts++;
	ctr(t)[CL_C_CAS]++;
	kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, o->va, 0, o->slot);   /* next_off 0 */
}

/* A get's version is in buf: follow its next, or return its value. */
static void get_step(cl_thr *t, cl_op *o)
{
	const uint64_t *v = o->w.buf;
	if (v[0] != 0) {
		ctr(t)[CL_C_READ_HOPS]++;
		/* Stale at the first hop: jump to the shortcut when it names
		 * another version (it may lag the tail, never pass it). */
		uint64_t sc = o->w.state == S_FIRST ? o->w.word[2] : 0;
		ctr(t)[CL_C_SHORTCUTS] += sc && sc != o->va;
		o->va = sc && sc != o->va ? sc : v[0];
		read_post(t, o, S_READ, o->w.buf, (uint32_t)t->j->slot_bytes);
		return;
	}
	t->cursor[o->rank] = o->va;
	o->w.found = v[1] == o->w.key;
	if (!o->w.found)
		nm_error_note(&t->win.kt->meter->err, "clover: rank %d thread %d get of key 0x%016" PRIx64
			      ": the version at 0x%" PRIx64 " holds key 0x%016" PRIx64, t->win.kt->rank, t->t,
			      o->w.key, o->va, v[1]);
	cl_finish(t, o, v + 2);
}

/* WRITE the new version (next NULL) to a free slot; the CAS waits for its
 * completion, as Clover's writers do. */
static void update_write(cl_thr *t, cl_op *o)
{
	int m = mem_index(t->j, o->node);
	o->slot = t->batch[m][--t->nfree[m]];
	kv_thread *kt = t->win.kt;
	version_image(t->j, o->w.buf, o->w.key, kt->writer, ++kt->seq);
	o->va = t->cursor[o->rank];
	o->w.state = S_WRITE;
	o->rtts++;
	kv_win_write(&t->win, &o->w, o->node, o->w.buf, o->slot, (uint32_t)t->j->slot_bytes, true);
}

/* An update takes a slot from its thread's batch for the key's memory node,
 * or first asks the metadata server for a batch (one round trip). */
static void update_start(cl_thr *t, cl_op *o)
{
	int m = mem_index(t->j, o->node);
	if (t->nfree[m]) {
		update_write(t, o);
		return;
	}
	o->w.state = S_ALLOC;
	o->rtts++;
	ctr(t)[KV_C_RPCS]++;
	kv_win_due(&t->win, &o->w, 2);
	cl_ms_ask(kv_win_conn(&t->win, 0), t->msg, t->win.lkey, (uint32_t)o->node, kv_win_wrid(&t->win, &o->w, NM_OP_SEND),
		  kv_win_wrid(&t->win, &o->w, NM_OP_RECV));
}

/* The metadata server's batch is in: keep it, or give up when the pool is used up. */
static void alloc_done(cl_thr *t, cl_op *o)
{
	const cl_ms_reply *r = cl_ms_reply_of(t->msg);
	int m = mem_index(t->j, o->node);
	if (r->count == 0 || r->count > CL_MS_BATCH) {
		/* The rate so far, for a --duration point's second run (clover_pool.h). */
		ctr(t)[CL_C_EXHAUSTED]++;
		if (!t->ran_out) {
			t->ran_out = true;
			ctr(t)[CL_C_X_ACKED] = ctr(t)[CL_C_ACKED];
			ctr(t)[CL_C_X_US] = nm_ticks_to_ns(nm_ticks() - t->first_op) / 1000;
		}
		nm_error_note(&t->win.kt->meter->err, "clover: rank %d thread %d update of key 0x%016" PRIx64
			      ": the metadata server has no free version slot left on rank %d (raise --slots)",
			      t->win.kt->rank, t->t, o->w.key, o->node);
		cl_finish(t, o, NULL);
		return;
	}
	memcpy(t->batch[m], r->va, r->count * sizeof r->va[0]);
	t->nfree[m] = r->count;
	update_write(t, o);
}

/* After a successful CAS, the key's shortcut names the new version. Clover
 * writes it from a background thread; here it is posted inline and
 * unsignaled (copied at the post, so the operation can end at once), or,
 * on a QP without inline data, signaled and awaited. */
static void shortcut_set(cl_thr *t, cl_op *o)
{
	nm_conn *c = kv_win_conn(&t->win, o->node);
	o->w.word[3] = o->slot;
	if (c->max_inline >= 8) {
		kv_win_write(&t->win, &o->w, o->node, &o->w.word[3], shortcut_va(t->j, o->rank), 8, false);
		cl_finish(t, o, NULL);
		return;
	}
	o->w.state = S_SHORTCUT;
	kv_win_write(&t->win, &o->w, o->node, &o->w.word[3], shortcut_va(t->j, o->rank), 8, true);
}

/* The CAS's answer is in word[0]: NULL, it linked our version; else the
 * version that beat us, from which to chase the new tail. */
static void cas_done(cl_thr *t, cl_op *o)
{
	uint64_t next = o->w.word[0];
	if (next == 0) {
		t->cursor[o->rank] = o->slot;
		ctr(t)[CL_C_ACKED]++;
		o->w.found = true;
		shortcut_set(t, o);
		return;
	}
	ctr(t)[CL_C_CAS_FAILED]++;
	if (kv_win_overdue(&t->win, &o->w))
		nm_fatal("clover: rank %d thread %d update of key 0x%016" PRIx64 " (rank %" PRIu64 ", memory node %d) "
			 "has not linked its version after %.1f s of CAS retries", t->win.kt->rank, t->t, o->w.key,
			 o->rank, o->node, t->win.timeout);
	ctr(t)[CL_C_WRITE_HOPS]++;
	o->va = next;
	read_post(t, o, S_CHASE, &o->w.word[1], 8);
}

/* Chasing after a failed CAS: word[1] is the next pointer of the version at va. */
static void chase_step(cl_thr *t, cl_op *o)
{
	uint64_t next = o->w.word[1];
	if (next == 0) {
		cas_post(t, o);
		return;
	}
	ctr(t)[CL_C_WRITE_HOPS]++;
	o->va = next;
	read_post(t, o, S_CHASE, &o->w.word[1], 8);
}

static void advance(kv_win *w, kv_wop *wo)
{
	cl_thr *t = (cl_thr *)w;
	cl_op *o = (cl_op *)wo;
	switch (o->w.state) {
	case S_FIRST:
	case S_READ:
		get_step(t, o);
		break;
	case S_SHORTCUT:
		cl_finish(t, o, NULL);
		break;
	case S_ALLOC:
		alloc_done(t, o);
		break;
	case S_WRITE:
		cas_post(t, o);
		break;
	case S_CAS:
		cas_done(t, o);
		break;
	case S_CHASE:
		chase_step(t, o);
		break;
	default:
		break;
	}
}

static void step(kv_win *w, kv_wop *wo)
{
	(void)w;
	(void)wo;   /* every state waits on a completion */
}

static void start(kv_win *w, kv_wop *wo)
{
	cl_thr *t = (cl_thr *)w;
	cl_op *o = (cl_op *)wo;
	/* here, not before the body: the threads meet when measuring begins */
	if (!t->first_op && t->j->first_alone && t->t > 0)
		wait_first_alone(t);
	if (!t->first_op)
		t->first_op = nm_ticks();
	o->w.kind = kv_next(w->kt, &o->rank);
	o->w.key = kv_key(o->rank);
	o->node = key_node(t->j, o->rank);
	o->rtts = 0;
	if (o->w.kind == KV_GET) {
		/* The version at the cursor and the key's shortcut, in parallel (one round trip). */
		o->va = t->cursor[o->rank];
		kv_win_read(&t->win, &o->w, o->node, &o->w.word[2], shortcut_va(t->j, o->rank), 8);
		read_post(t, o, S_FIRST, o->w.buf, (uint32_t)t->j->slot_bytes);
	} else {
		o->w.kind = KV_UPDATE;
		update_start(t, o);
	}
}

static const kv_win_ops cl_steps = {start, advance, step};

void cl_thr_setup(nm_worker *w)
{
	cl_job *j = w->arg;
	cl_thr *t = nm_calloc64(1, sizeof *t);
	*t = (cl_thr){.j = j, .t = w->index, .cursor = nm_malloc(j->p->keys * sizeof(uint64_t)),
		      .batch = nm_calloc((size_t)j->M, sizeof *t->batch), .nfree = nm_calloc((size_t)j->M, sizeof *t->nfree),
		      .msg = (uint8_t *)j->mr.buf + (size_t)j->T * j->scratch_per_op + (size_t)w->index * CL_MS_MSG_BYTES};
	kv_thread *kt = kv_worker_thread(j->th, j->p, j->ctx, w);
	if (j->cp->trace) {   /* each client thread of the job at its own offset */
		size_t n = j->cp->trace_n, all = (size_t)j->clients * (size_t)j->T;
		ycsb_init_trace(&kt->gen, j->cp->trace, n, part_index(j, j->rank, w->index) * n / all);
	}
	for (uint64_t k = 0; k < j->p->keys; k++)
		t->cursor[k] = cl_head_va(j, k);
	uint8_t *scr = (uint8_t *)j->mr.buf + (size_t)w->index * j->scratch_per_op;
	kv_win_init(&t->win, &cl_steps, j, kt, &j->mesh, j->mr.mr->lkey, w->index, 1, sizeof(cl_op),
		    scr, j->scratch_per_op, j->timeout);
	w->arg = t;
}

void cl_thr_body(nm_worker *w)
{
	cl_thr *t = w->arg;
	kv_win_body(&t->win);
	cl_ms_bye(kv_win_conn(&t->win, 0), t->j->mesh.cq[t->t], t->msg, t->win.lkey, t->j->timeout);
	kv_win_free(&t->win);
	free(t->cursor);
	free(t->batch);
	free(t->nfree);
	free(t);
}

/* ---- the check after the run (memory nodes) ----------------------------------------- */

/* Writer of a version -> its client thread's index, or -1 when no client thread has that id. */
static int writer_index(const cl_job *j, uint32_t writer)
{
	int rank = (int)(writer >> 8), t = (int)(writer & 0xff);
	return is_client(j, rank) && t < j->T ? (int)part_index(j, rank, t) : -1;
}

/* Walks one key's chain in local memory; returns the versions linked after the first, or -1 after noting a fault. */
static int64_t chain_walk(cl_job *j, nm_measure *ms, uint64_t r, uint32_t *last, kv_checker *c)
{
	int m = mem_index(j, j->rank);
	uint64_t base = j->mesh.rmr[j->rank].addr, lo = part_off(j, m, 0), hi = j->mr.len, key = kv_key(r);
	uint64_t limit = (uint64_t)j->clients * (uint64_t)j->T * j->cp->slots, n = 0;
	const uint64_t *v = (const uint64_t *)((const uint8_t *)j->mr.buf + (r / (uint64_t)j->M) * j->slot_bytes);
	memset(last, 0, sizeof *last * (size_t)j->clients * (size_t)j->T);
	for (;;) {
		const char *bad = NULL;
		c->seen[0].key = 0;   /* versions of different writers are ordered by the chain, not compared here */
		uint32_t wr = kv_word_writer(v[2]);
		int wi = n ? writer_index(j, wr) : 0;
		if (v[1] != key)
			bad = "holds another key";
		else if (kv_check_value(c, key, v + 2, j->p->value_words) != KV_READ_OK)
			bad = "holds a torn or foreign value";
		else if (wi < 0)
			bad = "was written by no client thread";
		else if (n && kv_word_version(v[2]) <= last[wi])
			bad = "comes before an older version of its writer";
		if (bad) {
			nm_error_note(&ms->rank_err, "clover: key 0x%016" PRIx64 " (rank %" PRIu64 "): version %" PRIu64
				      " of its chain %s", key, r, n, bad);
			return -1;
		}
		if (n)
			last[wi] = kv_word_version(v[2]);
		if (v[0] == 0)
			return (int64_t)n;
		uint64_t off = v[0] - base;
		if (v[0] < base || off < lo || off >= hi || (off - lo) % j->slot_bytes || ++n > limit) {
			nm_error_note(&ms->rank_err, "clover: key 0x%016" PRIx64 " (rank %" PRIu64 "): next pointer "
				      "0x%" PRIx64 " after version %" PRIu64 " is no version slot (or the chain loops)",
				      key, r, v[0], n);
			return -1;
		}
		v = (const uint64_t *)((const uint8_t *)j->mr.buf + off);
	}
}

void cl_scan(cl_job *j, nm_measure *ms)
{
	int m = mem_index(j, j->rank);
	uint32_t *last = nm_calloc((size_t)j->clients * (size_t)j->T, sizeof *last);
	kv_checker c;
	kv_checker_init(&c, 1, true);   /* one entry: only torn and foreign values matter here */
	for (uint64_t i = 0; i < keys_on(j, m); i++) {
		int64_t n = chain_walk(j, ms, i * (uint64_t)j->M + (uint64_t)m, last, &c);
		if (n < 0)
			ms->rank_c[KV_C_BAD_SLOTS]++;
		else
			ms->rank_c[CL_C_CHAINED] += (uint64_t)n;
	}
	kv_checker_free(&c);
	free(last);
}

/* ---- the point's memory and QPs -------------------------------------------------- */

/* Clients to the metadata server and to every memory node (pairs: N*N,
 * zeroed): cl_connect's mesh, and cl_needs's. */
static nm_mesh_cfg cl_mesh_cfg(const cl_job *j, const nm_base *b, uint8_t *pairs)
{
	for (int c = first_client(j); c < first_client(j) + j->clients; c++) {
		pairs[c * j->N] = 1;   /* clients to the metadata server, for its RPCs */
		for (int m = first_mem(j); m < first_mem(j) + j->M; m++)
			pairs[c * j->N + m] = 1;   /* and to the memory nodes */
	}
	/* the metadata server keeps a RECV and a reply posted per client QP */
	nm_mesh_cfg mc = {.nthreads = j->T, .qps = 1, .initiates = pairs, .qp = b->qp, .passive_wrs = 2};
	mc.qp.sq_depth = 16;
	return mc;
}

static void cl_connect(cl_job *j, nm_ctx *ctx)
{
	uint8_t *pairs = nm_calloc((size_t)j->N * (size_t)j->N, 1);
	nm_mesh_cfg mc = cl_mesh_cfg(j, &ctx->base, pairs);
	nm_mesh_create(&j->mesh, ctx->dev, &mc, is_fwd(j, j->rank) ? NULL : &j->mr);
	free(pairs);
}

void cl_needs(cl_job *j, const nm_base *b, nm_needs *n)
{
	if (is_fwd(j, j->rank))
		return;   /* routes packets, opens no device */
	nm_mr_needs(n, cl_layout(j), b->hugepages, false);
	uint8_t *pairs = nm_calloc((size_t)j->N * (size_t)j->N, 1);
	nm_mesh_cfg mc = cl_mesh_cfg(j, b, pairs);
	nm_mesh_needs(&mc, j->rank, j->N, n);
	free(pairs);
	n->atomics |= is_client(j, j->rank);   /* a new version is linked in by CAS */
}

void cl_setup(cl_job *j, nm_ctx *ctx)
{
	char err[512] = "";
	size_t bytes = cl_layout(j);
	/* the forwarding host's rank has no device: no memory, no QP, the same collectives */
	int failed = !is_fwd(j, j->rank) &&
		     nm_mr_alloc(ctx->dev, &j->mr, bytes, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	if (!is_fwd(j, j->rank))
		memset(j->mr.buf, 0, bytes);
	if (is_mem(j, j->rank))
		cl_prefill(j);
	cl_connect(j, ctx);
}
