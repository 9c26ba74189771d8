/* A Sherman-style key-value store, the `sherman` system of netmem kv (kv.h).
 * A variant of this suite built from the mechanisms of Sherman's public code
 * (thustorage/Sherman: src/Tree.cpp, include/Common.h) that the LOCO paper
 * credits for its results (section 7.2), not Sherman itself (no B+tree: a
 * client finds a key's leaf without a remote lookup, as Sherman's clients do
 * from their cache of internal nodes):
 *   - HOCL, the hierarchical on-chip lock: each memory node has a table of
 *     --lock-table lock words (Sherman's kNumOfLock, 32768) in the NIC's own
 *     memory where it has room (ibv_alloc_dm; --lock-memory), else in host
 *     memory; a leaf's lock is the word its hash picks on its node, taken by
 *     test-and-set, RDMA CAS 0 -> writer, retried until it succeeds;
 *   - its local half (primitives/locks/hocl.h): a node's threads queue on a
 *     local ticket lock per remote lock word first, and a holder with a
 *     local waiter hands the remote lock over without releasing it, for at
 *     most --hand-over holders in a row (kMaxHandOverTime, 8);
 *   - an update reads the leaf under the lock (lock_and_read_page), writes
 *     back its entry, and the entry's WRITE and the release go in one post
 *     (write_batch: one doorbell, RC places them in order), with LOCO's
 *     zero-length READ fence between them when --fence (the paper added that
 *     fence to Sherman, at a 15% cost): then the release follows the fence;
 *   - a holder that hands over waits for its WRITE to complete first
 *     (Sherman's write_sync), so the next holder's READ sees it;
 *   - a lookup READs a whole leaf of --leaf entries and finds the key in it,
 *     where LOCO reads one slot through its local index.
 *
 * Layout: the key space is cut into leaves of --leaf entries; key rank r
 * has entry perm(r) (a fixed permutation of the key space, standing in for
 * a B+tree's order of hashed keys), so leaf perm(r) / leaf, position
 * perm(r) mod leaf. Leaf i lives on node i mod nodes. A leaf is [header of
 * 16 bytes, unused | entries], an entry [key | value | checksum] with the
 * checksum XXH64 of key and value; key 0 is an empty entry. Leaf i takes
 * lock word XXH64(i) mod --lock-table of its node (Sherman hashes the page
 * address into the table with CityHash64), so leaves may share a lock.
 *
 * Versions (kv.h): an update first READs its entry under the lock and
 * writes the value's version + 1, so versions grow in the key's
 * modification order. */
#include "kv_window.h"
#include "alloc.h"
#include "hocl.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Where a node's lock table is, as every rank sees it (exchanged once). */
typedef struct sh_table {
	uint32_t in_dm;                  /* 1: device memory (zero-based: addresses are offsets) */
	uint32_t rkey;                   /* the device memory's key (host: the node's MR's) */
	uint32_t words;                  /* lock words: --lock-table, or what the device memory holds */
	uint32_t pad;
} sh_table;

typedef struct sh_job {
	const kv_point *p;
	int rank, N, T;
	bool cas_release;                /* Soft-RoCE: release by CAS (see release_post) */
	nm_mr mr;
	nm_mesh mesh;
	kv_sherman_layout lay;           /* leaves, entries and the host lock table (kv_size.h) */
	kv_win_plan plan;                /* the registration, scratch and mesh */
	uint64_t perm_bits, perm_mul;    /* the key permutation (perm) */
	nm_dm dm;                        /* this node's lock table in device memory, when there */
	sh_table *table;                 /* [N] */
	char table_why[512];             /* this node's: why the lock table is where it is */
	nm_hocl local;                   /* [N x lock_table]: this node's local locks */
} sh_job;

typedef enum {
	S_IDLE, S_LEAF_READ, S_LOCAL_WAIT, S_CAS, S_ENTRY_READ, S_FENCED, S_RELEASE, S_LATE_DONE, S_LATE_LOOK
} sh_state;

typedef struct sh_op {
	kv_wop w;
	uint64_t leaf, pos;
	int node;
	uint32_t lock;                   /* the leaf's lock word in its node's table */
	uint32_t ticket;                 /* in the local lock */
	bool local_held;                 /* holds the local lock (release it at the end) */
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

/* Leaf i's lock word in the table of its node (leaf mod N). */
static uint32_t leaf_lock(const sh_job *j, uint64_t leaf)
{
	return (uint32_t)(XXH64(&leaf, sizeof leaf, 0x5348524d) % j->table[leaf % (uint64_t)j->N].words);
}
static uint64_t lock_raddr(const sh_job *j, int node, uint32_t lock)
{
	uint64_t base = j->table[node].in_dm ? 0 : j->mesh.rmr[node].addr + j->lay.lock_off;
	return base + 8 * (uint64_t)lock;
}
static uint32_t lock_rkey(const sh_job *j, int node)
{
	return j->table[node].in_dm ? j->table[node].rkey : j->mesh.rmr[node].rkey;
}
static size_t local_slot(const sh_job *j, const sh_op *o)
{
	return (size_t)o->node * (size_t)j->p->lock_table + o->lock;
}

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

/* READs the leaf's entries into buf, then state: a lookup's (S_LEAF_READ),
 * or an update's under the lock (S_ENTRY_READ, Sherman's lock_and_read_page). */
static void leaf_read(sh_thr *t, sh_op *o, int state)
{
	sh_job *j = job(t);
	o->w.state = state;
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
		leaf_read(t, o, S_LEAF_READ);
		return;
	}
	o->w.found = hit != NULL;
	sh_finish(t, o, hit ? hit + 1 : NULL);
}

/* The value a held lock word holds: the holding node's rank + 1, not its
 * thread's, since a lock handed over locally is released by another thread
 * than the one that took it (Soft-RoCE's release is a CAS of this value). */
static uint64_t lock_owner(const sh_job *j) { return (uint64_t)j->rank + 1; }

static void cas_post(sh_thr *t, sh_op *o)
{
	const sh_job *j = job(t);
	o->w.state = S_CAS;
	kv_win_atomic_at(&t->win, &o->w, o->node, NM_OP_CAS, lock_raddr(j, o->node, o->lock), lock_rkey(j, o->node), 0,
			 lock_owner(j));
}

/* Served by the local lock: the remote lock came with it (a hand-over), or
 * it is taken by CAS now. */
static void local_acquired(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	o->local_held = true;
	if (nm_hocl_begin(&j->local, local_slot(j, o))) {
		t->win.kt->meter->c[KV_C_HAND_OVERS]++;
		leaf_read(t, o, S_ENTRY_READ);
	} else {
		cas_post(t, o);
	}
}

static void local_enter(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	o->ticket = nm_hocl_enter(&j->local, local_slot(j, o));
	o->w.state = S_LOCAL_WAIT;
	if (nm_hocl_served(&j->local, local_slot(j, o), o->ticket))
		local_acquired(t, o);
}

static void local_leave(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	if (o->local_held)
		nm_hocl_leave(&j->local, local_slot(j, o));
	o->local_held = false;
}

/* The lock's release, after len bytes of src are written to the entry when
 * src is not NULL, then state `next` (the release's completion ends the
 * operation: S_RELEASE, or the injected late write: KV_S_LATE). With a local
 * waiter and the bound not reached, the remote lock is handed over: the
 * write alone, and the local lock is left once it has completed (at once
 * when there is nothing to write). Else the write and the remote release in
 * one post: a WRITE of 0, or on Soft-RoCE an RDMA CAS of our id back to 0:
 * rxe stores a failed CAS's loaded word back, so a waiter's failing
 * test-and-set can undo a release WRITE that lands in between and leave the
 * lock held by nobody (the spinlock met the same, primitives/locks/spinlock.c). */
static void release_post(sh_thr *t, sh_op *o, const uint64_t *src, int next)
{
	sh_job *j = job(t);
	uint64_t raddr = leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos));
	uint32_t len = (uint32_t)entry_bytes(j);
	o->w.state = next;
	if (nm_hocl_hand_over(&j->local, local_slot(j, o))) {
		if (src)
			kv_win_write(&t->win, &o->w, o->node, src, raddr, len, true);
		else
			local_leave(t, o);
		return;
	}
	kv_win_write_release(&t->win, &o->w, o->node, src, raddr, src ? len : 0, lock_raddr(j, o->node, o->lock),
			     lock_rkey(j, o->node), j->cas_release ? lock_owner(j) : 0);
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

/* Lock held, leaf read into buf: write the new entry and release. */
static void entry_write(sh_thr *t, sh_op *o)
{
	sh_job *j = job(t);
	uint64_t *e = o->w.buf, raddr = leaf_raddr(j, o->node, o->leaf, entry_off(j, o->pos));
	/* the entry to the head of the buffer, where the injected faults and
	 * the late write take their image from */
	memmove(e, e + o->pos * j->lay.entry_words, entry_bytes(j));
	bool present = e[0] == o->w.key;
	/* what the lock's previous holder left: a whole value of this key,
	 * never older than one this thread saw before */
	if (present && j->p->inject != KV_INJECT_NO_CHECKSUM)
		kv_check(t->win.kt, o->w.key, e + 1);
	if (!present && o->w.kind == KV_UPDATE) {
		release_post(t, o, NULL, S_RELEASE);   /* a miss: nothing to write */
		return;
	}
	o->w.found = present || o->w.kind == KV_INSERT;   /* an insert writes either way */
	uint32_t version = present ? kv_word_version(e[1]) + 1 : 1;
	entry_image(j, e, o->w.key, t->win.kt->writer, version);
	o->w.wrote = e[1];
	kv_inject fault = kv_inject_now(&t->win.inj);
	if (fault == KV_INJECT_EARLY_RELEASE) {
		kv_inj_late_start(&o->w, &o->w.word[2]);
		release_post(t, o, NULL, KV_S_LATE);   /* the fault: the lock goes first */
		return;
	}
	if (fault == KV_INJECT_NO_CHECKSUM) {
		kv_inj_half_start(&t->win, &o->w);
		return;
	}
	if (j->p->fence) {
		kv_win_write(&t->win, &o->w, o->node, e, raddr, (uint32_t)entry_bytes(j), false);
		o->w.state = S_FENCED;
		kv_win_fence(&t->win, &o->w, o->node);
	} else {
		release_post(t, o, e, S_RELEASE);   /* write and release in one post */
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
	local_leave(t, o);   /* the release is done: the local lock goes too */
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
				nm_fatal("kv sherman: thread %d waited %.1f s for lock word %u of node %d (leaf %" PRIu64
					 "), held by node %" PRId64 " (key 0x%016" PRIx64 ")",
					 w->thread, w->timeout, o->lock, o->node, o->leaf, (int64_t)o->w.word[0] - 1, o->w.key);
			cas_post(t, o);
			break;
		}
		leaf_read(t, o, S_ENTRY_READ);
		break;
	case S_ENTRY_READ:
		entry_write(t, o);
		break;
	case S_FENCED:
		release_post(t, o, NULL, S_RELEASE);
		break;
	case S_LATE_DONE:
		late_look(t, o);
		break;
	case S_LATE_LOOK:
		kv_history_add(t->win.kt, KV_GET, o->w.key, o->w.word[2], true, o->watch_t0, nm_ticks());
		sh_finish(t, o, NULL);
		break;
	case S_RELEASE:
		local_leave(t, o);
		sh_finish(t, o, NULL);
		break;
	}
}

/* The states that wait on no completion: the local lock, and a release
 * that handed the lock over with nothing to write (nothing was posted). */
static void step(kv_win *w, kv_wop *wo)
{
	sh_thr *t = (sh_thr *)w;
	sh_op *o = (sh_op *)wo;
	if (o->w.state == S_RELEASE) {
		local_leave(t, o);
		sh_finish(t, o, NULL);
		return;
	}
	if (o->w.state != S_LOCAL_WAIT)
		return;
	sh_job *j = job(t);
	if (nm_hocl_served(&j->local, local_slot(j, o), o->ticket)) {
		local_acquired(t, o);
		return;
	}
	if (kv_win_overdue(w, wo))
		nm_fatal("kv sherman: thread %d waited %.1f s for the local lock of lock word %u of node %d (leaf %" PRIu64
			 ", key 0x%016" PRIx64 ")", w->thread, w->timeout, o->lock, o->node, o->leaf, o->w.key);
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
	o->lock = leaf_lock(j, o->leaf);
	o->local_held = false;
	if (o->w.kind == KV_GET)
		leaf_read(t, o, S_LEAF_READ);
	else
		local_enter(t, o);
}

static const kv_win_ops sh_steps = {.start = start, .advance = advance, .step = step, .inj_entry = inj_entry,
				    .late = late_step};

/* ---- threads and the point ---------------------------------------------------- */

/* After the run: every entry of this node's leaves holds a whole value of
 * its own key, its leaf headers are untouched, no lock word of its table is
 * left held and no local lock has a holder or a waiter. */
static void sh_scan(void *sys, nm_measure *ms)
{
	const sh_job *j = sys;
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t l = 0; l < j->lay.leaves_here; l++) {
		const uint8_t *leaf = (const uint8_t *)j->mr.buf + (size_t)l * j->lay.leaf_bytes;
		bool bad = ((const uint64_t *)leaf)[0] != 0 || ((const uint64_t *)leaf)[1] != 0;
		for (int i = 0; i < j->p->leaf; i++) {
			const uint64_t *e = (const uint64_t *)(leaf + entry_off(j, (uint64_t)i));
			if (e[0] != 0 && (e[j->lay.entry_words - 1] != entry_sum(j, e) ||
					  kv_check_value(&c, e[0], e + 1, j->p->load.value_words) != KV_READ_OK))
				bad = true;
		}
		if (bad && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "leaf %" PRIu64 " fails its check after the run (an entry torn or "
				      "foreign, or its header written)", l * (uint64_t)j->N + (uint64_t)j->rank);
	}
	kv_checker_free(&c);
	const uint64_t *words = (const uint64_t *)((const uint8_t *)j->mr.buf + j->lay.lock_off);
	uint64_t *copy = NULL;
	uint32_t nwords = j->table[j->rank].words;
	if (j->table[j->rank].in_dm) {
		copy = nm_malloc(8 * (size_t)nwords);
		if (nm_dm_read(&j->dm, 0, copy, 8 * (size_t)nwords) && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "the lock table could not be read back from device memory "
				      "(ibv_memcpy_from_dm failed)");
		words = copy;
	}
	for (uint32_t k = 0; k < nwords; k++)
		if (words[k] != 0 && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "lock word %u of this node is held after the run, by node %" PRId64,
				      k, (int64_t)words[k] - 1);
	free(copy);
	for (size_t k = 0; k < j->local.n; k++)
		if (!nm_hocl_idle(&j->local, k) && !ms->rank_c[KV_C_BAD_SLOTS]++)
			nm_error_note(&ms->rank_err, "the local lock of lock word %zu of node %zu is held or waited for "
				      "after the run", k % (size_t)j->p->lock_table, k / (size_t)j->p->lock_table);
}

/* This node's lock table: in the NIC's memory when --lock-memory lets it and
 * the device has some (cut to the words it holds when it holds fewer than
 * --lock-table), else in host memory after the leaves; then every node
 * learns where every table is and how many words it has. --lock-memory
 * device on a device without device memory: one line, exit 2. */
static void tables_open(nm_ctx *ctx, sh_job *j)
{
	char err[640] = "";
	sh_table mine = {.in_dm = 0, .rkey = 0, .words = (uint32_t)j->p->lock_table};
	if (j->p->lock_memory == KV_LOCKMEM_HOST) {
		snprintf(j->table_why, sizeof j->table_why, "--lock-memory host");
	} else {
		uint64_t have = nm_dev_dm_bytes(ctx->dev) / 64 * 64, words = have / 8;
		if (words == 0)
			snprintf(j->table_why, sizeof j->table_why, "%s has no device memory", ctx->dev->name);
		else if (words < mine.words)
			mine.words = (uint32_t)words;
		if (words && nm_dm_alloc(ctx->dev, &j->dm, 8 * (size_t)mine.words, j->table_why, sizeof j->table_why) == 0) {
			mine.in_dm = 1;
			mine.rkey = j->dm.mr->rkey;
			if (mine.words < (uint32_t)j->p->lock_table)
				snprintf(j->table_why, sizeof j->table_why,
					 "%u lock words, not --lock-table %d: all that %s's %" PRIu64
					 " bytes of device memory hold", mine.words, j->p->lock_table, ctx->dev->name, have);
		} else {
			mine.words = (uint32_t)j->p->lock_table;
		}
		if (!mine.in_dm && j->p->lock_memory == KV_LOCKMEM_DEVICE)
			snprintf(err, sizeof err, "kv sherman: --lock-memory device: %s (use --lock-memory host, or auto)",
				 j->table_why);
	}
	nm_boot_check(err[0] ? err : NULL, NM_EXIT_USAGE);
	j->table = nm_calloc((size_t)j->N, sizeof *j->table);
	nm_boot_allgather(&mine, j->table, sizeof mine);
	if (nm_hocl_init(&j->local, (size_t)j->N * (size_t)j->p->lock_table, (uint32_t)j->p->hand_over))
		nm_fatal("kv sherman: no memory for %d x %d local locks", j->N, j->p->lock_table);
}

/* Where the lock tables were, into `effective`: device, host or mixed
 * (nodes differ), how many nodes had them in device memory, rank 0's words
 * and its reason when they are in host memory or fewer than asked. */
static void tables_effective(const sh_job *j, json_t *eff)
{
	int in_dm = 0;
	for (int n = 0; n < j->N; n++)
		in_dm += (int)j->table[n].in_dm;
	json_object_set_new(eff, "lock_memory", json_string(in_dm == j->N ? "device" : in_dm ? "mixed" : "host"));
	json_object_set_new(eff, "lock_memory_device_nodes", json_integer(in_dm));
	if (!j->table[0].in_dm || j->table[0].words < (uint32_t)j->p->lock_table)
		json_object_set_new(eff, "lock_memory_why", json_string(j->table_why));
	json_object_set_new(eff, "lock_table", json_integer(j->table[0].words));
	json_object_set_new(eff, "hand_over", json_integer(j->p->hand_over));
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
	tables_open(ctx, j);
	kv_win_mesh(ctx, &j->mesh, &j->mr, &j->plan);
	kv_win_site site = {.r = r, .ops = &sh_steps, .sys = j, .mesh = &j->mesh, .mr = &j->mr, .plan = &j->plan,
			    .op_size = sizeof(sh_op), .thr_size = sizeof(sh_thr)};
	json_t *eff = json_pack("{s:i, s:I, s:i}", "leaf_entries", j->p->leaf, "leaves", (json_int_t)j->lay.leaves,
				"leaf_bytes", (int)j->lay.leaf_bytes);
	tables_effective(j, eff);
	kv_win_created(eff, &j->mesh, &j->mr);
	kv_win_run(&site, sh_scan, eff,
		   j->cas_release ? "release by RDMA CAS (own id -> 0), not a WRITE of 0: Soft-RoCE writes a failed "
				    "CAS's word back, which can undo a concurrent WRITE"
				  : NULL);
	nm_dm_free(&j->dm);   /* after kv_win_run's barrier: no peer takes its locks any more */
	nm_hocl_free(&j->local);
	free(j->table);
	free(j);
	return eff;
}

const kv_system kv_sherman = {
	.name = "sherman",
	.summary = "Sherman-style variant (this suite's): HOCL (lock tables in device memory where the NIC has "
		   "some, taken by CAS, handed over between a node's threads), write and release in one post, "
		   "lookups READ a whole leaf",
	.global_versions = true,
	.service_threads = 0,
	.run = sh_run,
};
