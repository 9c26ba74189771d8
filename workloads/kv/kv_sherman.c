/* A Sherman-style key-value store, the `sherman` system of netmem kv (kv.h).
 * A variant of this suite built from the design choices the LOCO paper
 * credits for Sherman's results (section 7.2), not Sherman itself (no B+tree,
 * no on-chip lock table, no hierarchical local locks):
 *   - the lock word lives with the data, at the head of each leaf, and is
 *     taken by test-and-set: RDMA CAS 0 -> writer, retried until it succeeds;
 *   - write and release go together on one QP: the entry WRITE and the
 *     release WRITE are posted back to back (RC places them in order), with
 *     LOCO's zero-length READ fence between them when --fence (the paper
 *     added that fence to Sherman, at a 15% cost);
 *   - a lookup READs a whole leaf of --leaf entries and finds the key in it,
 *     where LOCO reads one slot through its local index.
 *
 * Layout: the key space is cut into leaves of --leaf entries; key rank r
 * has entry perm(r) (a fixed permutation of the key space, standing in for
 * a B+tree's order of hashed keys), so leaf perm(r) / leaf, position
 * perm(r) mod leaf, and a client finds a key's leaf without a remote lookup
 * (Sherman's clients cache the internal nodes). Leaf i lives on node i mod
 * nodes. A leaf is [lock word | pad | entries], an entry [key | value |
 * checksum] with the checksum XXH64 of key and value; key 0 is an empty entry.
 *
 * Versions (kv.h): an update first READs its entry under the lock and
 * writes the value's version + 1, so versions grow in the key's
 * modification order. */
#include "kv_window.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct sh_job {
	const kv_point *p;
	int rank, N, T;
	bool cas_release;                /* Soft-RoCE: release by CAS (see release_post) */
	nm_mr mr;
	nm_mesh mesh;
	kv_sherman_layout lay;           /* leaves and entries (kv_size.h) */
	kv_win_plan plan;                /* the registration, scratch and mesh */
	uint64_t perm_bits, perm_mul;    /* the key permutation (perm) */
} sh_job;

typedef enum { S_IDLE, S_LEAF_READ, S_CAS, S_ENTRY_READ, S_FENCED, S_RELEASE, S_LATE_DONE, S_LATE_LOOK } sh_state;

typedef struct sh_op {
	kv_wop w;
	uint64_t leaf, pos;
	int node;
	uint64_t watch_t0;               /* early-release: when the last look at the entry was posted */
} sh_op;

typedef struct sh_thr {
	kv_win win;                      /* first: the engine hands it to the steps; win.sys is the job */
} sh_thr;

static sh_job *job(const sh_thr *t) { return t->win.sys; }

/* ---- layout ----------------------------------------------------------------- */

/* perm: an odd multiplier modulo the next power of two, walked until it
 * falls inside the key space (cycle walking keeps it a bijection). */
static uint64_t perm(const sh_job *j, uint64_t r)
{
	uint64_t mask = (1ull << j->perm_bits) - 1, x = r;
	do
		x = (x * j->perm_mul + 0x9e3779b97f4a7c15ull) & mask;
	while (x >= j->p->load.keys);
	return x;
}

static size_t entry_bytes(const sh_job *j) { return 8 * (size_t)j->lay.entry_words; }
static uint64_t entry_sum(const sh_job *j, const uint64_t *e) { return XXH64(e, 8 * (j->lay.entry_words - 1), 0); }

static size_t leaf_off(const sh_job *j, uint64_t leaf) { return (size_t)(leaf / (uint64_t)j->N) * j->lay.leaf_bytes; }
static uint64_t leaf_raddr(const sh_job *j, int node, uint64_t leaf, size_t off)
{
	return j->mesh.rmr[node].addr + leaf_off(j, leaf) + off;
}
static size_t entry_off(const sh_job *j, uint64_t pos) { return 16 + (size_t)pos * entry_bytes(j); }

static void entry_image(const sh_job *j, uint64_t *e, uint64_t key, uint32_t writer, uint32_t version)
{
	e[0] = key;
	kv_value_fill(e + 1, j->p->load.value_words, key, writer, version);
	e[j->lay.entry_words - 1] = entry_sum(j, e);
}

/* The key permutation over the key space: the bits of its power of two and
 * the odd multiplier (perm). */
static void perm_init(sh_job *j)
{
	j->perm_bits = 1;
	while ((1ull << j->perm_bits) < j->p->load.keys)
		j->perm_bits++;
	j->perm_mul = 0x5851f42d4c957f2dull | 1;
}

/* Prefill: every node writes the entries of its own leaves. */
static void sh_prefill(sh_job *j)
{
	for (uint64_t r = 0; r < j->p->load.prefill; r++) {
		uint64_t x = perm(j, r), leaf = x / (uint64_t)j->p->leaf;
		if ((int)(leaf % (uint64_t)j->N) != j->rank)
			continue;
		uint64_t *e = (uint64_t *)((uint8_t *)j->mr.buf + leaf_off(j, leaf) + entry_off(j, x % (uint64_t)j->p->leaf));
		entry_image(j, e, kv_key(r), KV_PREFILL_WRITER, 0);
	}
}

/* ---- the operations --------------------------------------------------------- */

static void sh_finish(sh_thr *t, sh_op *o, const uint64_t *val) { kv_win_finish(&t->win, &o->w, val); }

static void leaf_read(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	o->w.state = S_LEAF_READ;
	kv_win_read(&t->win, &o->w, o->node, o->w.buf, leaf_raddr(j, o->node, o->leaf, 16),
		    (uint32_t)(j->lay.leaf_bytes - 16));
}

/* The leaf is in buf: find the key among its entries (as a leaf search
 * does), check the entry, retry a torn one. */
static void leaf_check(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	const uint64_t *hit = NULL;
	for (int i = 0; i < j->p->leaf; i++) {
		const uint64_t *e = o->w.buf + (size_t)i * j->lay.entry_words;
		if (e[0] == o->w.key) {
			hit = e;
			break;
		}
	}
	if (hit && j->p->inject != KV_INJECT_NO_CHECKSUM && hit[j->lay.entry_words - 1] != entry_sum(j, hit)) {
		t->win.kt->meter->c[KV_C_RETRIES]++;
		leaf_read(t, o);
		return;
	}
	o->w.found = hit != NULL;
	sh_finish(t, o, hit ? hit + 1 : NULL);
}

static void cas_post(sh_thr *t, sh_op *o)
{
	o->w.state = S_CAS;
	kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, leaf_raddr(job(t), o->node, o->leaf, 0), 0,
		      (uint64_t)t->win.kt->writer + 1);
}

/* The release: an RDMA WRITE of 0 behind the entry's WRITE on the same QP.
 * On Soft-RoCE an RDMA CAS of our id back to 0 instead: rxe stores a failed
 * CAS's loaded word back, so a waiter's failing test-and-set can undo a
 * release WRITE that lands in between and leave the leaf locked by nobody
 * (the spinlock met the same, primitives/locks/spinlock.c). */
static void release_post(sh_thr *t, sh_op *o, int next)
{
	sh_job *j = job(t);
	o->w.state = next;
	uint64_t raddr = leaf_raddr(j, o->node, o->leaf, 0);
	if (j->cas_release) {
		kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, raddr, (uint64_t)t->win.kt->writer + 1, 0);
		return;
	}
	o->w.word[1] = 0;
	kv_win_write(&t->win, &o->w, o->node, &o->w.word[1], raddr, 8, true);
}

/* The entry an injected fault writes: in its leaf, always by RDMA; the
 * look back goes past the leaf in the operation's scratch. */
static kv_inj_entry inj_entry(const kv_win *w, kv_wop *wo)
{
	const sh_job *j = w->sys;
	const sh_op *o = (const sh_op *)wo;
	return (kv_inj_entry){.node = o->node, .raddr = leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos)),
			      .words = j->lay.entry_words, .look = o->w.buf + j->lay.leaf_bytes / 8, .then = S_FENCED};
}

/* Lock held, entry read into buf: write the new entry and release. */
static void entry_write(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	uint64_t *e = o->w.buf, raddr = leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos));
	bool present = e[0] == o->w.key;
	/* what the lock's previous holder left: a whole value of this key,
	 * never older than one this thread saw before */
	if (present && j->p->inject != KV_INJECT_NO_CHECKSUM)
		kv_check(t->win.kt, o->w.key, e + 1);
	if (!present && o->w.kind == KV_UPDATE) {
		release_post(t, o, S_RELEASE);   /* a miss: nothing to write */
		return;
	}
	o->w.found = present || o->w.kind == KV_INSERT;   /* an insert writes either way */
	uint32_t version = present ? kv_word_version(e[1]) + 1 : 1;
	entry_image(j, e, o->w.key, t->win.kt->writer, version);
	o->w.wrote = e[1];
	kv_inject fault = kv_inject_now(&t->win.inj);
	if (fault == KV_INJECT_EARLY_RELEASE) {
		kv_inj_late_start(&o->w, &o->w.word[2]);
		release_post(t, o, KV_S_LATE);   /* the fault: the lock goes first */
		return;
	}
	if (fault == KV_INJECT_NO_CHECKSUM) {
		kv_inj_half_start(&t->win, &o->w);
		return;
	}
	kv_win_write(&t->win, &o->w, o->node, e, raddr, (uint32_t)entry_bytes(j), false);
	if (j->p->fence) {
		o->w.state = S_FENCED;
		kv_win_fence(&t->win, &o->w, o->node);
	} else {
		release_post(t, o, S_RELEASE);   /* write and release posted together */
	}
}

/* The late write, once a later holder has written the entry (with the
 * version this write claims too), or after the longest wait. The look
 * that saw the later holder's value, and one after the late write, go into
 * the history as gets (after the update returned), as a reader's would. */
static void late_step(kv_win *w, kv_wop *wo)
{
	sh_thr *t = (sh_thr *)w;
	sh_op *o = (sh_op *)wo;
	sh_job *j = job(t);
	uint64_t raddr = leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos));
	uint64_t *seen = o->w.word + 2;   /* the entry's first value word */
	bool late = kv_word_version(*seen) >= kv_word_version(o->w.buf[1]) && kv_word_writer(*seen) != t->win.kt->writer;
	kv_inj_late_look(&t->win, &o->w, *seen, o->watch_t0, late);
	o->watch_t0 = nm_ticks();
	if (!kv_inj_late_due(&t->win, &o->w, late, o->node, seen, raddr + 8))
		return;
	o->w.state = S_LATE_DONE;
	kv_win_write(&t->win, &o->w, o->node, o->w.buf, raddr, (uint32_t)entry_bytes(j), true);
}

static void late_look(sh_thr *t, sh_op *o)
{
	const sh_job *j = job(t);
	o->w.state = S_LATE_LOOK;
	o->watch_t0 = nm_ticks();
	kv_win_read(&t->win, &o->w, o->node, o->w.word + 2, leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos) + 8), 8);
}

static void advance(kv_win *w, kv_wop *wo)
{
	sh_thr *t = (sh_thr *)w;
	sh_op *o = (sh_op *)wo;
	switch (o->w.state) {
	case S_LEAF_READ:
		leaf_check(t, o);
		break;
	case S_CAS:
		if (o->w.word[0] != 0) {   /* held: test-and-set again */
			t->win.kt->meter->c[KV_C_LOCK_RETRIES]++;
			if (kv_win_overdue(w, wo))
				nm_fatal("kv sherman: thread %d waited %.1f s for the lock of leaf %" PRIu64
					 " (node %d), held by writer 0x%" PRIx64 " (key 0x%016" PRIx64 ")",
					 w->thread, w->timeout, o->leaf, o->node, o->w.word[0] - 1, o->w.key);
			cas_post(t, o);
			break;
		}
		o->w.state = S_ENTRY_READ;
		kv_win_read(w, wo, o->node, o->w.buf, leaf_raddr(job(t), o->node, o->leaf, entry_off(job(t), o->pos)),
			    (uint32_t)entry_bytes(job(t)));
		break;
	case S_ENTRY_READ:
		entry_write(t, o);
		break;
	case S_FENCED:
		release_post(t, o, S_RELEASE);
		break;
	case S_LATE_DONE:
		late_look(t, o);
		break;
	case S_LATE_LOOK:
		kv_history_add(t->win.kt, KV_GET, o->w.key, o->w.word[2], true, o->watch_t0, nm_ticks());
		sh_finish(t, o, NULL);
		break;
	case S_RELEASE:
		sh_finish(t, o, NULL);
		break;
	}
}

static void start(kv_win *w, kv_wop *wo)
{
	sh_thr *t = (sh_thr *)w;
	sh_op *o = (sh_op *)wo;
	uint64_t rank;
	o->w.kind = kv_next(w->kt, &rank);
	o->w.key = kv_key(rank);
	const sh_job *j = job(t);
	uint64_t x = perm(j, rank);
	o->leaf = x / (uint64_t)j->p->leaf;
	o->pos = x % (uint64_t)j->p->leaf;
	o->node = (int)(o->leaf % (uint64_t)j->N);
	if (o->w.kind == KV_GET)
		leaf_read(t, o);
	else
		cas_post(t, o);
}

/* Every state waits on a completion but the injected ones (the engine steps them). */
static const kv_win_ops sh_steps = {.start = start, .advance = advance, .inj_entry = inj_entry, .late = late_step};

/* ---- threads and the point ---------------------------------------------------- */

/* After the run: every entry of this node's leaves holds a whole value of
 * its own key, and no lock is left held. */
static void sh_scan(void *sys, nm_measure *ms)
{
	const sh_job *j = sys;
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t l = 0; l < j->lay.leaves_here; l++) {
		const uint8_t *leaf = (const uint8_t *)j->mr.buf + (size_t)l * j->lay.leaf_bytes;
		bool bad = *(const uint64_t *)leaf != 0;
		for (int i = 0; i < j->p->leaf; i++) {
			const uint64_t *e = (const uint64_t *)(leaf + entry_off(j, (uint64_t)i));
			if (e[0] != 0 && (e[j->lay.entry_words - 1] != entry_sum(j, e) ||
					  kv_check_value(&c, e[0], e + 1, j->p->load.value_words) != KV_READ_OK))
				bad = true;
		}
		if (bad && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "leaf %" PRIu64 " fails its check after the run (a lock left held, "
				      "or an entry torn or foreign)", l * (uint64_t)j->N + (uint64_t)j->rank);
	}
	kv_checker_free(&c);
}

static json_t *sh_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	sh_job *j = nm_calloc64(1, sizeof *j);
	*j = (sh_job){.p = r->p, .rank = ctx->rank, .N = ctx->nranks, .T = ctx->base.threads,
		      .cas_release = ctx->dev->emulated};
	j->plan = kv_sherman_plan(j->p, j->N, j->T, &j->lay);
	perm_init(j);
	kv_win_mem(ctx, &j->mr, &j->plan);
	sh_prefill(j);
	kv_win_mesh(ctx, &j->mesh, &j->mr, &j->plan);
	kv_win_site site = {.r = r, .ops = &sh_steps, .sys = j, .mesh = &j->mesh, .mr = &j->mr, .plan = &j->plan,
			    .op_size = sizeof(sh_op), .thr_size = sizeof(sh_thr)};
	json_t *eff = json_pack("{s:i, s:I, s:i}", "leaf_entries", j->p->leaf, "leaves", (json_int_t)j->lay.leaves,
				"leaf_bytes", (int)j->lay.leaf_bytes);
	kv_win_created(eff, &j->mesh, &j->mr);
	kv_win_run(&site, sh_scan, eff,
		   j->cas_release ? "release by RDMA CAS (own id -> 0), not a WRITE of 0: Soft-RoCE writes a failed "
				    "CAS's word back, which can undo a concurrent WRITE"
				  : NULL);
	free(j);
	return eff;
}

const kv_system kv_sherman = {
	.name = "sherman",
	.summary = "Sherman-style variant (this suite's): lock word with the data taken by CAS, write and "
		   "release posted together, lookups READ a whole leaf",
	.global_versions = true,
	.service_threads = 0,
	.run = sh_run,
};
