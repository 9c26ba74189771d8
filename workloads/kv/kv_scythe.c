/* A Scythe-style key-value store, the `scythe` system of netmem kv (kv.h):
 * a variant of this suite after the MicroDB benchmark of Scythe (PDS-Lab's
 * public code; the LOCO paper's Fig. 5 runs it with a window of 3 and
 * measures inserts as its write path), not Scythe itself (no transactions,
 * no RPC server, no multi-version chain, no coroutines). What it keeps:
 *   - an object per key with its lock word beside it (Scythe's takeout lock
 *     lives in the object header); an insert claims it for the time of its
 *     write only (Scythe locks nothing else for a new object);
 *   - versions are timestamps from a clock (Scythe's TSO stands in rdtsc,
 *     here CLOCK_MONOTONIC_RAW in 16 ns steps from a start rank 0 gives), and a
 *     version older than the object's is not installed (its insert takes
 *     effect before the newer one: a newest-version-wins write);
 *   - an OCC read: one READ of header and record; a held lock aborts the
 *     read (Scythe's early abort on a locked object) and it is retried, a
 *     torn record (checksum) too.
 * Every write of the workload runs as such an insert (the paper: "we use
 * the performance of insertion operations as an upper bound on write
 * performance"), counted and recorded as an insert.
 *
 * Layout: key rank r is object r / nodes on node r mod nodes; an object is
 * [header | key | value | checksum], the header the version (stamp) << 1 |
 * held, the checksum XXH64 of key and value. */
#include "kv_window.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define SC_STAMP_NS 16   /* one version step: 2^32 of them last 68 s */

typedef struct sc_job {
	const kv_point *p;
	int rank, N, T;
	bool cas_release;                /* Soft-RoCE: release by CAS (kv_sherman.c says why) */
	uint64_t epoch_ns;               /* rank 0's clock at the start: stamp 0 */
	nm_mr mr;
	nm_mesh mesh;
	kv_scythe_layout lay;            /* objects (kv_size.h) */
	kv_win_plan plan;                /* the registration, scratch and mesh */
} sc_job;

typedef enum { S_IDLE, S_READ, S_HDR, S_CAS, S_FENCED, S_RELEASE, S_LATE_DONE } sc_state;

typedef struct sc_op {
	kv_wop w;
	uint64_t idx, seen;              /* object index on its node; the header last seen */
	uint32_t stamp;
	int node;
} sc_op;

typedef struct sc_thr {
	kv_win win;                      /* first: the engine hands it to the steps; win.sys is the job */
	uint32_t last_stamp;
} sc_thr;

static sc_job *job(const sc_thr *t) { return t->win.sys; }

static uint64_t obj_raddr(const sc_job *j, int node, uint64_t idx, uint32_t word)
{
	return j->mesh.rmr[node].addr + (idx * j->lay.obj_words + word) * 8;
}
static uint64_t rec_sum(const sc_job *j, const uint64_t *rec) { return XXH64(rec, 8 * (j->lay.obj_words - 2), 0); }

/* A record [key | value | checksum] of this version. */
static void rec_image(const sc_job *j, uint64_t *rec, uint64_t key, uint32_t writer, uint32_t stamp)
{
	rec[0] = key;
	kv_value_fill(rec + 1, j->p->load.value_words, key, writer, stamp);
	rec[j->lay.obj_words - 2] = rec_sum(j, rec);
}

/* The TSO: this thread's clock reading in steps, after its last one (two
 * writes of one thread never share a version). */
static uint32_t stamp_next(sc_thr *t)
{
	uint64_t s = (nm_now_ns() - job(t)->epoch_ns) / SC_STAMP_NS;
	t->last_stamp = s > t->last_stamp ? (uint32_t)s : t->last_stamp + 1;
	return t->last_stamp;
}

/* ---- the operations --------------------------------------------------------- */

static void get_post(sc_thr *t, sc_op *o)
{
	o->w.state = S_READ;
	kv_win_read(&t->win, &o->w, o->node, o->w.buf, obj_raddr(job(t), o->node, o->idx, 0), 8 * job(t)->lay.obj_words);
}

/* The object is in buf: a held lock or a torn record aborts the read. */
static void get_check(sc_thr *t, sc_op *o)
{
	const sc_job *j = job(t);
	const uint64_t *rec = o->w.buf + 1;
	bool skip = j->p->inject == KV_INJECT_NO_CHECKSUM;
	if (!skip && ((o->w.buf[0] & 1) || rec[j->lay.obj_words - 2] != rec_sum(j, rec))) {
		t->win.kt->meter->c[KV_C_RETRIES]++;
		get_post(t, o);
		return;
	}
	o->w.found = rec[0] == o->w.key;
	kv_win_finish(&t->win, &o->w, o->w.found ? rec + 1 : NULL);
}

static void hdr_read(sc_thr *t, sc_op *o)
{
	o->w.state = S_HDR;
	kv_win_read(&t->win, &o->w, o->node, o->w.word, obj_raddr(job(t), o->node, o->idx, 0), 8);
}

static void release_post(sc_thr *t, sc_op *o, int next)
{
	uint64_t raddr = obj_raddr(job(t), o->node, o->idx, 0), held = (uint64_t)o->stamp << 1 | 1;
	o->w.state = next;
	if (job(t)->cas_release) {
		kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, raddr, held, held - 1);
		return;
	}
	o->w.word[1] = held - 1;
	kv_win_write(&t->win, &o->w, o->node, &o->w.word[1], raddr, 8, true);
}

static kv_inj_entry inj_entry(const kv_win *w, kv_wop *wo)
{
	const sc_job *j = w->sys;
	const sc_op *o = (const sc_op *)wo;
	return (kv_inj_entry){.node = o->node, .raddr = obj_raddr(j, o->node, o->idx, 1), .words = j->lay.obj_words - 1,
			      .look = o->w.buf + j->lay.obj_words, .then = S_FENCED};
}

/* The header o->seen was read (or returned by a failed CAS): claim it, wait,
 * or give way to a newer version. */
static void claim(sc_thr *t, sc_op *o)
{
	if (o->seen & 1) {
		t->win.kt->meter->c[KV_C_LOCK_RETRIES]++;
		if (kv_win_overdue(&t->win, &o->w))
			nm_fatal("kv scythe: thread %d waited %.1f s for object %" PRIu64 " of node %d (key 0x%016" PRIx64
				 "): its lock was never released", t->win.thread, t->win.timeout, o->idx, o->node, o->w.key);
		hdr_read(t, o);
		return;
	}
	if ((uint32_t)(o->seen >> 1) >= o->stamp) {
		kv_win_finish(&t->win, &o->w, NULL);   /* a newer version is in: this one takes effect before it */
		return;
	}
	o->w.state = S_CAS;
	kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, obj_raddr(job(t), o->node, o->idx, 0), o->seen,
		      (uint64_t)o->stamp << 1 | 1);
}

/* Claimed: write the record, then release with the new version. */
static void rec_write(sc_thr *t, sc_op *o)
{
	sc_job *j = job(t);
	kv_inject fault = kv_inject_now(&t->win.inj);
	if (fault == KV_INJECT_EARLY_RELEASE) {
		kv_inj_late_start(&o->w, &o->w.word[2]);
		release_post(t, o, KV_S_LATE);
		return;
	}
	if (fault == KV_INJECT_NO_CHECKSUM) {
		kv_inj_half_start(&t->win, &o->w);
		return;
	}
	kv_win_write(&t->win, &o->w, o->node, o->w.buf, obj_raddr(j, o->node, o->idx, 1), 8 * (j->lay.obj_words - 1), false);
	if (j->p->fence) {
		o->w.state = S_FENCED;
		kv_win_fence(&t->win, &o->w, o->node);
	} else {
		release_post(t, o, S_RELEASE);
	}
}

/* early-release: the record goes in once a later writer's version is
 * there (or after the longest wait); the look that saw it, and one after,
 * go into the history as gets. */
static void late_step(kv_win *w, kv_wop *wo)
{
	sc_thr *t = (sc_thr *)w;
	sc_op *o = (sc_op *)wo;
	uint64_t *seen = o->w.word + 2;
	bool late = kv_word_version(*seen) > o->stamp && kv_word_writer(*seen) != t->win.kt->writer;
	kv_inj_late_look(&t->win, &o->w, *seen, o->seen, late);
	o->seen = nm_ticks();
	if (!kv_inj_late_due(&t->win, &o->w, late, o->node, seen, obj_raddr(job(t), o->node, o->idx, 2)))
		return;
	o->w.state = S_LATE_DONE;
	kv_win_write(&t->win, &o->w, o->node, o->w.buf, obj_raddr(job(t), o->node, o->idx, 1),
		     8 * (job(t)->lay.obj_words - 1), true);
}

static void advance(kv_win *w, kv_wop *wo)
{
	sc_thr *t = (sc_thr *)w;
	sc_op *o = (sc_op *)wo;
	switch (o->w.state) {
	case S_READ:
		get_check(t, o);
		break;
	case S_HDR:
		o->seen = o->w.word[0];
		claim(t, o);
		break;
	case S_CAS:
		if (o->w.word[0] != o->seen) {   /* changed under us: look at what is there now */
			o->seen = o->w.word[0];
			claim(t, o);
		} else {
			rec_write(t, o);
		}
		break;
	case S_FENCED:
		release_post(t, o, S_RELEASE);
		break;
	case S_LATE_DONE:
		o->seen = nm_ticks();
		o->w.state = S_RELEASE;   /* a last look at the value, for the history */
		o->w.word[2] = 0;
		kv_win_read(w, wo, o->node, o->w.word + 2, obj_raddr(job(t), o->node, o->idx, 2), 8);
		break;
	case S_RELEASE:
		if (o->w.word[2] && o->w.returned)
			kv_history_add(w->kt, KV_GET, o->w.key, o->w.word[2], true, o->seen, nm_ticks());
		kv_win_finish(w, wo, NULL);
		break;
	}
}

static void start(kv_win *w, kv_wop *wo)
{
	sc_thr *t = (sc_thr *)w;
	sc_op *o = (sc_op *)wo;
	uint64_t rank;
	o->w.kind = kv_next(w->kt, &rank);
	o->w.key = kv_key(rank);
	o->node = (int)(rank % (uint64_t)job(t)->N);
	o->idx = rank / (uint64_t)job(t)->N;
	o->w.word[2] = 0;
	if (o->w.kind == KV_GET) {
		get_post(t, o);
		return;
	}
	o->w.kind = KV_INSERT;   /* the write path: an insert of a new version */
	o->w.found = true;
	o->stamp = stamp_next(t);
	rec_image(job(t), o->w.buf, o->w.key, w->kt->writer, o->stamp);
	o->w.wrote = o->w.buf[1];
	hdr_read(t, o);
}

/* Every state waits on a completion but the injected ones (the engine steps them). */
static const kv_win_ops sc_steps = {.start = start, .advance = advance, .inj_entry = inj_entry, .late = late_step};

/* ---- threads and the point ---------------------------------------------------- */

/* After the run: every object of this node is released and holds a whole
 * value of its own key whose version is the header's. */
static void sc_scan(void *sys, nm_measure *ms)
{
	const sc_job *j = sys;
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t i = 0; i < j->lay.objs_here; i++) {
		const uint64_t *o = (const uint64_t *)j->mr.buf + i * j->lay.obj_words;
		if (o[1] == 0)
			continue;
		bool bad = (o[0] & 1) || o[j->lay.obj_words - 1] != rec_sum(j, o + 1) ||
			   kv_check_value(&c, o[1], o + 2, j->p->load.value_words) != KV_READ_OK ||
			   kv_word_version(o[2]) != (uint32_t)(o[0] >> 1);
		if (bad && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "object %" PRIu64 " of rank %d fails its check after the run (its "
				      "lock held, its record torn or foreign, or a version other than its header's)", i,
				      j->rank);
	}
	kv_checker_free(&c);
}

static json_t *sc_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	sc_job *j = nm_calloc64(1, sizeof *j);
	*j = (sc_job){.p = r->p, .rank = ctx->rank, .N = ctx->nranks, .T = ctx->base.threads,
		      .cas_release = ctx->dev->emulated};
	j->plan = kv_scythe_plan(j->p, j->N, j->T, &j->lay);
	kv_win_mem(ctx, &j->mr, &j->plan);
	for (uint64_t rank = (uint64_t)j->rank; rank < j->p->load.prefill; rank += (uint64_t)j->N)
		rec_image(j, (uint64_t *)j->mr.buf + rank / (uint64_t)j->N * j->lay.obj_words + 1, kv_key(rank),
			  KV_PREFILL_WRITER, 0);
	kv_win_mesh(ctx, &j->mesh, &j->mr, &j->plan);
	j->epoch_ns = nm_now_ns();
	nm_boot_bcast(&j->epoch_ns, sizeof j->epoch_ns, 0);
	kv_win_site site = {.r = r, .ops = &sc_steps, .sys = j, .mesh = &j->mesh, .mr = &j->mr, .plan = &j->plan,
			    .op_size = sizeof(sc_op), .thr_size = sizeof(sc_thr)};
	json_t *eff = json_pack("{s:s, s:i}", "write_path", "insert (a new version, newest wins)",
				"object_bytes", (int)(8 * j->lay.obj_words));
	kv_win_created(eff, &j->mesh, &j->mr);
	kv_win_run(&site, sc_scan, eff,
		   j->cas_release ? "release by RDMA CAS, not a WRITE: Soft-RoCE writes a failed CAS's word back, "
				    "which can undo a concurrent WRITE"
				  : NULL);
	free(j);
	return eff;
}

const kv_system kv_scythe = {
	.name = "scythe",
	.summary = "Scythe-style variant (this suite's): writes are inserts of a timestamped version (newest wins) "
		   "under the object's lock word, reads one READ aborted while the object is locked",
	.global_versions = true,
	.service_threads = 0,
	.run = sc_run,
};
