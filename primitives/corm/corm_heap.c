/* CoRM's server memory: blocks, allocator, pointer correction, compaction
 * (cmem_heap.h). Lock order: a thread list's mutex, then one block's mutex
 * (the compactor holds two blocks, and no list), then the heap's mutex. */
#include "corm_heap.h"
#include "corm_pair.h"
#include "log.h"
#include "rng.h"
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *const corm_status_names[CORM_NSTATUS] = {"ok", "not_found", "no_memory", "too_big", "nic"};
const char *const cmem_find_names[CMEM_NFIND] = {"scan", "msg"};

/* The heap thread the calling thread is (cmem_thread_enter), -1 for any
 * other: the owner test of a moved object's lookup. */
static _Thread_local int self_thread = -1;

#define CHUNK_BYTES (16u << 20) /* memfd file size (the paper's 16 MiB) */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);
	if (!p)
		abort();
	return p;
}

/* ---- per-block ID table: open addressing, id << 16 | slot, 0 = empty ---- */

static void ids_reset(cmem_idmap *m, uint32_t slots)
{
	uint32_t size = 16;
	while (size < 2 * slots)
		size <<= 1;
	if (m->mask + 1 != size || !m->e) {
		free(m->e);
		m->e = xcalloc(size, sizeof *m->e);
		m->mask = size - 1;
	} else {
		memset(m->e, 0, size * sizeof *m->e);
	}
}
static inline uint32_t ids_hash(const cmem_idmap *m, uint16_t id) { return (id * 2654435761u >> 7) & m->mask; }
static int64_t ids_find(const cmem_idmap *m, uint16_t id)
{
	for (uint32_t i = ids_hash(m, id);; i = (i + 1) & m->mask) {
		uint32_t e = m->e[i];
		if (!e)
			return -1;
		if (e >> 16 == id)
			return e & 0xffff;
	}
}
static void ids_put(cmem_idmap *m, uint16_t id, uint32_t slot)
{
	uint32_t i = ids_hash(m, id);
	while (m->e[i])
		i = (i + 1) & m->mask;
	m->e[i] = (uint32_t)id << 16 | slot;
}
/* Backward-shift deletion keeps every probe chain unbroken. */
static void ids_del(cmem_idmap *m, uint16_t id)
{
	uint32_t i = ids_hash(m, id);
	while (m->e[i] >> 16 != id)
		i = (i + 1) & m->mask;
	for (uint32_t j = (i + 1) & m->mask; m->e[j]; j = (j + 1) & m->mask) {
		uint32_t k = ids_hash(m, (uint16_t)(m->e[j] >> 16));
		/* entry j may move to i if its home k is not in (i, j] */
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	m->e[i] = 0;
}

/* ---- helpers ---- */

static inline uint64_t *hdr_at(cmem_block *b, uint32_t slot) { return (uint64_t *)(b->va + (size_t)slot * b->slot_size); }
static inline uint64_t hdr_load(cmem_block *b, uint32_t slot) { return __atomic_load_n(hdr_at(b, slot), __ATOMIC_ACQUIRE); }
static inline void hdr_store(cmem_block *b, uint32_t slot, uint64_t v) { __atomic_store_n(hdr_at(b, slot), v, __ATOMIC_RELEASE); }
static inline uint8_t *va_of(const cmem_heap *h, uint32_t v) { return h->region + ((size_t)v << h->bshift); }
static inline uint64_t vabs(const cmem_heap *h, uint32_t v) { return (uint64_t)(uintptr_t)va_of(h, v) >> h->bshift; }
static inline uint32_t vidx_of_abs(const cmem_heap *h, uint64_t oldbase)
{
	return (uint32_t)(oldbase - ((uint64_t)(uintptr_t)h->region >> h->bshift));
}

int cmem_class(const cmem_heap *h, uint32_t user)
{
	for (int c = 0; c < h->cls.n; c++)
		if (corm_slot_capacity(h->cls.size[c]) >= user)
			return c;
	return -1;
}
uint32_t cmem_capacity(const cmem_heap *h, int cls) { return corm_slot_capacity(h->cls.size[cls]); }

/* What block_new hands the reg hook: the whole block at its VA. */
static inline size_t reg_len(const cmem_heap *h) { return h->cfg.block_size; }

uint64_t cmem_reg_bytes(const cmem_heap *h, uint32_t user, uint64_t per_thread)
{
	int c = cmem_class(h, user);
	if (c < 0)
		return 0;
	uint64_t slots = h->cls.slots[c];
	return (uint64_t)h->cfg.threads * ((per_thread + slots - 1) / slots) * reg_len(h);
}

int cmem_init(cmem_heap *h, const cmem_heap_cfg *cfg, char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	h->cfg = *cfg;
	if (corm_classes_init(&h->cls, cfg->block_size, err, errlen))
		return -1;
	if (cfg->threads < 1 || cfg->va_blocks < 2) {
		snprintf(err, errlen, "a heap needs at least one thread and two blocks");
		return -1;
	}
	h->bshift = __builtin_ctz(cfg->block_size);
	size_t len = (size_t)cfg->va_blocks << h->bshift;
	/* Reserve twice the room and keep the block-aligned part. */
	uint8_t *raw = mmap(NULL, len + cfg->block_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		snprintf(err, errlen, "reserving %zu MiB of address space: %s", len >> 20, strerror(errno));
		return -1;
	}
	uintptr_t a = ((uintptr_t)raw + cfg->block_size - 1) & ~(uintptr_t)(cfg->block_size - 1);
	if (a > (uintptr_t)raw)
		munmap(raw, a - (uintptr_t)raw);
	munmap((uint8_t *)a + len, (uintptr_t)raw + cfg->block_size - a);
	h->region = (uint8_t *)a;
	h->vb = xcalloc(cfg->va_blocks, sizeof *h->vb);
	h->blocks = xcalloc(cfg->va_blocks, sizeof *h->blocks);
	h->phys = xcalloc(cfg->va_blocks, sizeof *h->phys);
	h->phys_free = xcalloc(cfg->va_blocks, sizeof *h->phys_free);
	h->va_free = xcalloc(cfg->va_blocks, sizeof *h->va_free);
	for (uint32_t i = 0; i < cfg->va_blocks; i++)
		h->va_free[i] = cfg->va_blocks - 1 - i; /* lowest VA first */
	h->nva_free = cfg->va_blocks;
	h->chunk_blocks = cfg->block_size >= CHUNK_BYTES ? 1 : CHUNK_BYTES / cfg->block_size;
	h->fds = xcalloc(cfg->va_blocks / h->chunk_blocks + 1, sizeof *h->fds);
	pthread_mutex_init(&h->mu, NULL);
	h->mbox = xcalloc((size_t)cfg->threads + 1, sizeof *h->mbox);
	for (int t = 0; t <= cfg->threads; t++)
		cmem_mbox_init(&h->mbox[t]);
	h->tl = xcalloc((size_t)cfg->threads, sizeof *h->tl);
	for (int t = 0; t < cfg->threads; t++) {
		pthread_mutex_init(&h->tl[t].mu, NULL);
		h->tl[t].rng = nm_mix64(cfg->seed * 0x100 + (uint64_t)t) | 1;
	}
	return 0;
}

void cmem_destroy(cmem_heap *h)
{
	for (uint32_t v = 0; v < h->cfg.va_blocks; v++)
		if (h->vb[v].mr && h->cfg.nic.dereg)
			h->cfg.nic.dereg(h->cfg.nic.arg, h->vb[v].mr);
	for (uint32_t i = 0; i < h->cfg.va_blocks; i++)
		if (h->blocks[i]) {
			free(h->blocks[i]->free_slots);
			free(h->blocks[i]->alias);
			free(h->blocks[i]->ids.e);
			pthread_mutex_destroy(&h->blocks[i]->mu);
			free(h->blocks[i]);
		}
	for (int t = 0; t < h->cfg.threads; t++)
		for (int c = 0; c < CORM_MAX_CLASSES; c++)
			free(h->tl[t].list[c]);
	for (int i = 0; i < h->nfds; i++)
		close(h->fds[i]);
	munmap(h->region, (size_t)h->cfg.va_blocks << h->bshift);
	free(h->vb);
	free(h->blocks);
	free(h->phys);
	free(h->phys_free);
	free(h->va_free);
	free(h->fds);
	free(h->tl);
	for (int t = 0; t <= h->cfg.threads; t++)
		cmem_mbox_destroy(&h->mbox[t]);
	free(h->mbox);
	memset(h, 0, sizeof *h);
}

void cmem_thread_enter(cmem_heap *h, int t)
{
	self_thread = t;
	cmem_mbox_open(&h->mbox[t]);
}

void cmem_thread_leave(cmem_heap *h, int t)
{
	cmem_mbox_close(&h->mbox[t]);
	self_thread = -1;
}

/* ---- thread lists (caller holds tl->mu) ---- */

static void list_add(cmem_tl *tl, cmem_block *b)
{
	int c = b->cls;
	if (tl->n[c] == tl->cap[c]) {
		tl->cap[c] = tl->cap[c] ? 2 * tl->cap[c] : 16;
		tl->list[c] = realloc(tl->list[c], tl->cap[c] * sizeof *tl->list[c]);
		if (!tl->list[c])
			abort();
	}
	b->list_pos = tl->n[c];
	tl->list[c][tl->n[c]++] = b;
}
static void list_del(cmem_tl *tl, cmem_block *b)
{
	int c = b->cls;
	cmem_block *last = tl->list[c][--tl->n[c]];
	tl->list[c][b->list_pos] = last;
	last->list_pos = b->list_pos;
	if (tl->cur[c] == b)
		tl->cur[c] = NULL;
}

/* ---- physical blocks and VAs (caller holds h->mu) ---- */

static int phys_get(cmem_heap *h, uint32_t *out, char *err, size_t errlen)
{
	if (h->nphys_free) {
		*out = h->phys_free[--h->nphys_free];
		return 0;
	}
	if (h->nphys == h->cfg.va_blocks) {
		snprintf(err, errlen, "heap full: %u blocks", h->cfg.va_blocks);
		return -1;
	}
	if (h->nphys % h->chunk_blocks == 0) {
		int fd = memfd_create("corm-blocks", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)h->chunk_blocks << h->bshift)) {
			snprintf(err, errlen, "memfd of %u blocks: %s", h->chunk_blocks, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		h->fds[h->nfds++] = fd;
	}
	uint32_t p = h->nphys++;
	h->phys[p] = (cmem_phys){.fd = h->fds[p / h->chunk_blocks], .off = (uint64_t)(p % h->chunk_blocks) << h->bshift};
	*out = p;
	return 0;
}

static void phys_put(cmem_heap *h, uint32_t p)
{
	h->phys[p].used = false;
	h->phys_free[h->nphys_free++] = p;
	h->active_blocks--;
}

static int map_va(cmem_heap *h, uint32_t v, uint32_t p)
{
	void *r = mmap(va_of(h, v), h->cfg.block_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		       h->phys[p].fd, (off_t)h->phys[p].off);
	return r == MAP_FAILED ? -1 : 0;
}

/* Until no unlocked reader (cmem_read) copies from b. A reader holds the
 * count only for one slot copy, so this waits microseconds. */
static void wait_readers(cmem_block *b)
{
	while (__atomic_load_n(&b->readers, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* Gives a VA back: NIC registration gone, address space reserved again. */
static void va_release(cmem_heap *h, cmem_block *b, uint32_t v)
{
	cmem_vblock *vb = &h->vb[v];
	if (vb->mr && h->cfg.nic.dereg)
		h->cfg.nic.dereg(h->cfg.nic.arg, vb->mr);
	vb->mr = NULL;
	/* unpublished first, so no new unlocked reader starts here; those
	 * already copying finish before the VA stops being readable */
	__atomic_store_n(&vb->blk, NULL, __ATOMIC_SEQ_CST);
	wait_readers(b);
	mmap(va_of(h, v), h->cfg.block_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	for (uint32_t i = 0; i < b->nalias; i++)
		if (b->alias[i] == v) {
			b->alias[i] = b->alias[--b->nalias];
			break;
		}
	pthread_mutex_lock(&h->mu);
	if (vb->pinned >= 0 && --h->phys[vb->pinned].pins == 0) {
		phys_put(h, (uint32_t)vb->pinned);
		h->retired_blocks--;
	}
	vb->pinned = -1;
	h->va_free[h->nva_free++] = v;
	pthread_mutex_unlock(&h->mu);
}

static void alias_add(cmem_block *b, uint32_t v)
{
	if (b->nalias == b->alias_cap) {
		b->alias_cap = b->alias_cap ? 2 * b->alias_cap : 4;
		b->alias = realloc(b->alias, b->alias_cap * sizeof *b->alias);
		if (!b->alias)
			abort();
	}
	b->alias[b->nalias++] = v;
}

/* A new block of class c for thread t (caller holds its list). */
static cmem_block *block_new(cmem_heap *h, int t, int c, corm_status *st)
{
	char err[256];
	uint32_t p, v;
	pthread_mutex_lock(&h->mu);
	if (!h->nva_free || phys_get(h, &p, err, sizeof err)) {
		pthread_mutex_unlock(&h->mu);
		*st = CORM_E_NOMEM;
		return NULL;
	}
	v = h->va_free[--h->nva_free];
	h->phys[p].used = true;
	h->phys[p].pins = 0;
	h->active_blocks++;
	if (!h->blocks[p]) {
		h->blocks[p] = xcalloc(1, sizeof(cmem_block));
		pthread_mutex_init(&h->blocks[p]->mu, NULL);
	}
	pthread_mutex_unlock(&h->mu);
	cmem_block *b = h->blocks[p];
	pthread_mutex_lock(&b->mu);
	if (map_va(h, v, p)) {
		pthread_mutex_unlock(&b->mu);
		pthread_mutex_lock(&h->mu);
		phys_put(h, p);
		h->va_free[h->nva_free++] = v;
		pthread_mutex_unlock(&h->mu);
		*st = CORM_E_NOMEM;
		return NULL;
	}
	uint8_t *va = va_of(h, v);
	memset(va, 0, h->cfg.block_size); /* a reused physical block keeps old bytes */
	__atomic_store_n(&b->dead, false, __ATOMIC_SEQ_CST);
	b->cls = c;
	b->owner = b->home = t;
	b->phys = p;
	b->vidx = v;
	b->va = va;
	b->slot_size = h->cls.size[c];
	b->slots = h->cls.slots[c];
	b->live = 0;
	b->nfree = b->slots;
	b->free_slots = realloc(b->free_slots, b->slots * sizeof *b->free_slots);
	if (!b->free_slots)
		abort();
	for (uint32_t i = 0; i < b->slots; i++)
		b->free_slots[i] = i;
	ids_reset(&b->ids, b->slots);
	b->nalias = 0;
	alias_add(b, v);
	cmem_vblock *vb = &h->vb[v];
	vb->live = 0;
	vb->pinned = -1;
	vb->mr = NULL;
	vb->rkey = v + 1; /* without a NIC: any key that names the VA */
	if (h->cfg.nic.reg && h->cfg.nic.reg(h->cfg.nic.arg, va, reg_len(h), &vb->mr, &vb->rkey, err, sizeof err)) {
		__atomic_store_n(&b->dead, true, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&b->mu);
		va_release(h, b, v);
		pthread_mutex_lock(&h->mu);
		phys_put(h, p);
		pthread_mutex_unlock(&h->mu);
		*st = CORM_E_NIC;
		return NULL;
	}
	corm_block_hdr bh = {.cls = (uint32_t)c, .rkey = vb->rkey, .base = (uint64_t)(uintptr_t)va};
	memcpy(va + h->cfg.block_size - CORM_BLOCK_HDR, &bh, sizeof bh);
	__atomic_store_n(&vb->blk, b, __ATOMIC_RELEASE);
	list_add(&h->tl[t], b);
	pthread_mutex_unlock(&b->mu);
	return b;
}

/* Releases an empty block (caller holds its mutex, and its owner's list if
 * it is in one, and has taken it out of that list). */
static void block_release(cmem_heap *h, cmem_block *b)
{
	__atomic_store_n(&b->dead, true, __ATOMIC_SEQ_CST);
	while (b->nalias)
		va_release(h, b, b->alias[b->nalias - 1]);
	pthread_mutex_lock(&h->mu);
	phys_put(h, b->phys);
	pthread_mutex_unlock(&h->mu);
}

static void try_release(cmem_heap *h, cmem_block *b)
{
	int owner = __atomic_load_n(&b->owner, __ATOMIC_ACQUIRE);
	if (owner < 0)
		return; /* the compactor holds it and releases it when empty */
	cmem_tl *tl = &h->tl[owner];
	pthread_mutex_lock(&tl->mu);
	pthread_mutex_lock(&b->mu);
	if (!b->dead && b->live == 0 && b->owner == owner) {
		list_del(tl, b);
		block_release(h, b);
	}
	pthread_mutex_unlock(&b->mu);
	pthread_mutex_unlock(&tl->mu);
}

/* ---- allocation ---- */

static cmem_block *pick_block(cmem_heap *h, int t, int c, corm_status *st)
{
	cmem_tl *tl = &h->tl[t];
	cmem_block *b = tl->cur[c];
	if (b && __atomic_load_n(&b->nfree, __ATOMIC_RELAXED) > 0)
		return b;
	/* The fullest non-full block (the authors' code), else a new one. */
	cmem_block *best = NULL;
	for (uint32_t i = 0; i < tl->n[c]; i++) {
		cmem_block *x = tl->list[c][i];
		uint32_t nf = __atomic_load_n(&x->nfree, __ATOMIC_RELAXED);
		if (nf && (!best || nf < best->nfree))
			best = x;
	}
	if (!best)
		best = block_new(h, t, c, st);
	tl->cur[c] = best;
	return best;
}

corm_status cmem_alloc(cmem_heap *h, int thread, uint32_t user, const void *data, size_t n, corm_ptr *p)
{
	int c = cmem_class(h, user);
	if (c < 0)
		return CORM_E_TOOBIG;
	cmem_tl *tl = &h->tl[thread];
	corm_status st = CORM_OK;
	pthread_mutex_lock(&tl->mu);
	for (;;) {
		cmem_block *b = pick_block(h, thread, c, &st);
		if (!b) {
			pthread_mutex_unlock(&tl->mu);
			return st;
		}
		pthread_mutex_lock(&b->mu);
		if (b->dead || b->nfree == 0 || b->owner != thread) {
			pthread_mutex_unlock(&b->mu);
			tl->cur[c] = NULL;
			continue;
		}
		/* A random free slot (Mesh-style placement) and a random ID not
		 * used in the block. */
		uint32_t k = (uint32_t)(nm_xorshift(&tl->rng) % b->nfree);
		uint32_t slot = b->free_slots[k];
		b->free_slots[k] = b->free_slots[--b->nfree];
		uint16_t id;
		do
			id = (uint16_t)nm_xorshift(&tl->rng);
		while (id == 0 || ids_find(&b->ids, id) >= 0);
		ids_put(&b->ids, id, slot);
		b->live++;
		h->vb[b->vidx].live++;
		uint8_t ver = (uint8_t)(corm_h_version(hdr_load(b, slot)) + 1);
		uint8_t *s = b->va + (size_t)slot * b->slot_size;
		size_t cap = corm_slot_capacity(b->slot_size);
		corm_slot_write(s, (uint64_t)(uintptr_t)s, b->slot_size, ver, data, n < cap ? n : cap);
		hdr_store(b, slot, corm_h_make(ver, id, vabs(h, b->vidx), CORM_H_ALLOC));
		*p = (corm_ptr){.version = ver, .cls = (uint8_t)c, .id = id, .rkey = h->vb[b->vidx].rkey,
				.addr = (uint64_t)(uintptr_t)s};
		__atomic_add_fetch(&h->live_objects, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&b->mu);
		pthread_mutex_unlock(&tl->mu);
		return CORM_OK;
	}
}

/* ---- finding an object (pointer correction) ---- */

/* A moved object's lookup, answered by the block's owner. */
typedef struct find_msg {
	cmem_msg m;
	cmem_block *b;
	uint16_t id;
	int64_t slot;
} find_msg;

static void find_fn(cmem_msg *m)
{
	find_msg *f = (find_msg *)m;
	pthread_mutex_lock(&f->b->mu);
	f->slot = __atomic_load_n(&f->b->dead, __ATOMIC_ACQUIRE) ? -1 : ids_find(&f->b->ids, f->id);
	pthread_mutex_unlock(&f->b->mu);
}

static double wait_s(const cmem_heap *h) { return h->cfg.wait_s > 0 ? h->cfg.wait_s : 60; }

/* "CoRM thread 2", "the compactor" (thread index h->cfg.threads, or -1
 * for a block the compactor holds). */
static void thread_name(const cmem_heap *h, int t, char *buf, size_t len)
{
	if (t < 0 || t == h->cfg.threads)
		snprintf(buf, len, "the compactor");
	else
		snprintf(buf, len, "CoRM thread %d", t);
}

/* Thread `asker` waited for `owner`'s answer, and owner showed no sign of
 * life for the deadline: the message is still posted, on the asker's
 * stack, so the job ends here (nm_stalled) rather than return. */
static _Noreturn void stalled(const cmem_heap *h, int asker, int owner, double waited, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static _Noreturn void stalled(const cmem_heap *h, int asker, int owner, double waited, const char *fmt, ...)
{
	char asked[160], me[48], who[48], what[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(asked, sizeof asked, fmt, ap);
	va_end(ap);
	if (asker < 0)
		snprintf(me, sizeof me, "a thread outside the heap's workers");
	else
		thread_name(h, asker, me, sizeof me);
	thread_name(h, owner, who, sizeof who);
	snprintf(what, sizeof what, "an answer from %s", who);
	nm_stalled(what, waited, "%s asked %s %s; %s has neither served its mailbox nor said it is busy for %.0f s",
		   me, who, asked, who, wait_s(h));
}

/* The slot of object id in b, not at the pointer's hint (caller holds b,
 * and holds it again on return): the owner's table; else a scan of the
 * headers, or the owner's answer to a message, for which b is unlocked
 * while waiting (the answer is checked against b's headers by the caller,
 * as b may change meanwhile). -1: not in b. */
static int64_t find_moved(cmem_heap *h, cmem_block *b, uint16_t id)
{
	int owner = __atomic_load_n(&b->owner, __ATOMIC_ACQUIRE);
	if (owner == self_thread && owner >= 0) {
		__atomic_add_fetch(&h->finds_own, 1, __ATOMIC_RELAXED);
		return ids_find(&b->ids, id);
	}
	if (h->cfg.find == CMEM_FIND_SCAN) {
		__atomic_add_fetch(&h->finds_scan, 1, __ATOMIC_RELAXED);
		for (uint32_t i = 0; i < b->slots; i++) {
			uint64_t hd = hdr_load(b, i);
			if ((hd & CORM_H_ALLOC) && corm_h_id(hd) == id)
				return i;
		}
		return -1;
	}
	find_msg f = {.m.fn = find_fn, .b = b, .id = id};
	cmem_mbox *to = &h->mbox[owner < 0 ? h->cfg.threads : owner];
	pthread_mutex_unlock(&b->mu);
	if (cmem_mbox_post(to, &f.m)) {
		__atomic_add_fetch(&h->finds_msg, 1, __ATOMIC_RELAXED);
		double waited;
		if (!cmem_msg_wait(&f.m, to, self_thread >= 0 ? &h->mbox[self_thread] : NULL, wait_s(h), &waited))
			stalled(h, self_thread, owner, waited, "where object %u of its block moved", (unsigned)id);
	} else {
		find_fn(&f.m);   /* the owner serves no mailbox: the table, as it would */
		__atomic_add_fetch(&h->finds_own, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&b->mu);
	return f.slot;
}

/* Locks the block the pointer's VA shows now and finds the object's slot
 * there: at the offset hint, else by ID (find_moved). NULL when it is not
 * there. */
static cmem_block *find(cmem_heap *h, const corm_ptr *p, uint32_t *slot)
{
	cmem_vblock *vb = cmem_va(h, p->addr);
	if (!vb)
		return NULL;
	for (;;) {
		cmem_block *b = __atomic_load_n(&vb->blk, __ATOMIC_ACQUIRE);
		if (!b)
			return NULL;
		pthread_mutex_lock(&b->mu);
		if (__atomic_load_n(&b->dead, __ATOMIC_ACQUIRE) || __atomic_load_n(&vb->blk, __ATOMIC_ACQUIRE) != b) {
			pthread_mutex_unlock(&b->mu);
			continue;
		}
		uint32_t off = corm_ptr_off(p, h->cfg.block_size);
		if (off % b->slot_size == 0 && off / b->slot_size < b->slots) {
			uint64_t hd = hdr_load(b, off / b->slot_size);
			if ((hd & CORM_H_ALLOC) && corm_h_id(hd) == p->id) {
				*slot = off / b->slot_size;
				return b;
			}
		}
		int64_t s = find_moved(h, b, p->id);
		/* a message's answer: b may have died, moved or lost the object meanwhile */
		if (__atomic_load_n(&b->dead, __ATOMIC_ACQUIRE) || __atomic_load_n(&vb->blk, __ATOMIC_ACQUIRE) != b) {
			pthread_mutex_unlock(&b->mu);
			continue;
		}
		if (s < 0 || !(hdr_load(b, (uint32_t)s) & CORM_H_ALLOC) || corm_h_id(hdr_load(b, (uint32_t)s)) != p->id) {
			pthread_mutex_unlock(&b->mu);
			return NULL;
		}
		*slot = (uint32_t)s;
		return b;
	}
}

/* Moves the object's VA accounting to the block's own VA, and the pointer
 * with it (ReleasePtr); releases the old VA when nothing allocated through
 * it is left. Caller holds b. */
static void release_locked(cmem_heap *h, cmem_block *b, uint32_t slot, corm_ptr *p)
{
	uint64_t hd = hdr_load(b, slot);
	uint32_t old = vidx_of_abs(h, corm_h_oldbase(hd));
	p->addr = (uint64_t)(uintptr_t)(b->va + (size_t)slot * b->slot_size);
	p->rkey = h->vb[b->vidx].rkey;
	if (old == b->vidx)
		return;
	hdr_store(b, slot, (hd & ((1ull << 28) - 1)) | (vabs(h, b->vidx) << 28));
	h->vb[b->vidx].live++;
	if (--h->vb[old].live == 0)
		va_release(h, b, old);
}

/* The pointer after a successful find: offset corrected; under DEFER a
 * pointer through an old VA moves to the block's own VA and rkey (the old
 * VA's NIC view is the retired physical block). The old VA stays counted
 * until the object is freed or released: another holder of the old
 * pointer may still read through it. */
static void correct(cmem_heap *h, cmem_block *b, uint32_t slot, corm_ptr *p)
{
	uint64_t base = corm_ptr_base(p, h->cfg.block_size);
	if (h->cfg.mode == CORM_DEFER && base != (uint64_t)(uintptr_t)b->va) {
		p->addr = (uint64_t)(uintptr_t)(b->va + (size_t)slot * b->slot_size);
		p->rkey = h->vb[b->vidx].rkey;
		return;
	}
	p->addr = base + (uint64_t)slot * b->slot_size;
	/* the VA's key now: a remap may have brought a new one */
	p->rkey = __atomic_load_n(&cmem_va(h, base)->rkey, __ATOMIC_ACQUIRE);
}

/* One copy of the object at the pointer's offset hint in b without the
 * block's mutex (caller holds a reader count on b): the header before and
 * after the copy must be the same unlocked word carrying the ID, as the
 * seqlock the writer's lock bit makes it. 1: read; 0: overlapped a write,
 * try again; -1: not at the hint (moved, freed, another object). */
static int copy_unlocked(cmem_heap *h, cmem_block *b, corm_ptr *p, void *out, size_t n, uint8_t *version)
{
	uint32_t off = corm_ptr_off(p, h->cfg.block_size), ss = b->slot_size;
	if (off % ss != 0 || off / ss >= b->slots)
		return -1;
	uint32_t slot = off / ss;
	uint64_t h1 = hdr_load(b, slot);
	if (!(h1 & CORM_H_ALLOC) || corm_h_id(h1) != p->id)
		return -1;
	if (h1 & CORM_H_LOCK)
		return 0;
	size_t cap = corm_slot_capacity(ss);
	uint8_t *s = b->va + (size_t)slot * ss;
	corm_slot_read(s, (uint64_t)(uintptr_t)s, ss, out, n < cap ? n : cap);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(hdr_at(b, slot), __ATOMIC_RELAXED) != h1)
		return 0;
	correct(h, b, slot, p);
	p->version = corm_h_version(h1);
	if (version)
		*version = p->version;
	return 1;
}

/* CoRM's reads are consistent through versions, not locks (paper, Sec. 3):
 * the server's read follows the DirectRead rule, so every worker serving
 * one hot object costs a shared counter increment, not a mutex that a
 * preempted holder keeps for a scheduler slice. 0 when read, -1 to take
 * the locked path. */
static int read_unlocked(cmem_heap *h, corm_ptr *p, void *out, size_t n, uint8_t *version)
{
	cmem_vblock *vb = cmem_va(h, p->addr);
	cmem_block *b = vb ? __atomic_load_n(&vb->blk, __ATOMIC_ACQUIRE) : NULL;
	if (!b)
		return -1;
	__atomic_add_fetch(&b->readers, 1, __ATOMIC_SEQ_CST);
	int rc = -1;
	/* still published and alive after the count is up: a release that
	 * unpublishes from now on waits for this reader (wait_readers) */
	if (!__atomic_load_n(&b->dead, __ATOMIC_SEQ_CST) && __atomic_load_n(&vb->blk, __ATOMIC_SEQ_CST) == b)
		for (int tries = 0; tries < 4 && rc == -1; tries++) {
			int got = copy_unlocked(h, b, p, out, n, version);
			if (got != 0) {
				rc = got == 1 ? 0 : -1;
				break;
			}
		}
	__atomic_sub_fetch(&b->readers, 1, __ATOMIC_RELEASE);
	return rc;
}

corm_status cmem_read(cmem_heap *h, corm_ptr *p, void *out, size_t n, uint8_t *version)
{
	if (read_unlocked(h, p, out, n, version) == 0)
		return CORM_OK;
	__atomic_add_fetch(&h->reads_locked, 1, __ATOMIC_RELAXED);
	uint32_t slot;
	cmem_block *b = find(h, p, &slot);
	if (!b)
		return CORM_E_NOTFOUND;
	uint8_t *s = b->va + (size_t)slot * b->slot_size;
	uint8_t v = corm_h_version(hdr_load(b, slot));
	size_t cap = corm_slot_capacity(b->slot_size);
	corm_slot_read(s, (uint64_t)(uintptr_t)s, b->slot_size, out, n < cap ? n : cap);
	correct(h, b, slot, p);
	p->version = v;
	if (version)
		*version = v;
	pthread_mutex_unlock(&b->mu);
	return CORM_OK;
}

corm_status cmem_write(cmem_heap *h, corm_ptr *p, const void *data, size_t n, uint8_t *version)
{
	uint32_t slot;
	cmem_block *b = find(h, p, &slot);
	if (!b)
		return CORM_E_NOTFOUND;
	uint8_t *s = b->va + (size_t)slot * b->slot_size;
	uint64_t hd = hdr_load(b, slot);
	uint8_t v = (uint8_t)(corm_h_version(hd) + 1);
	/* Lock with the new version first, so a reader that overlaps the
	 * write sees either the lock or a line version that disagrees. */
	hdr_store(b, slot, (hd & ~(uint64_t)0xff) | v | CORM_H_LOCK);
	/* the lock is visible before any payload byte changes: an unlocked
	 * reader that saw the old header twice saw none of this write */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	size_t cap = corm_slot_capacity(b->slot_size);
	corm_slot_write(s, (uint64_t)(uintptr_t)s, b->slot_size, v, data, n < cap ? n : cap);
	hdr_store(b, slot, (hd & ~(uint64_t)0xff) | v);
	correct(h, b, slot, p);
	p->version = v;
	if (version)
		*version = v;
	pthread_mutex_unlock(&b->mu);
	return CORM_OK;
}

corm_status cmem_free(cmem_heap *h, corm_ptr *p)
{
	uint32_t slot;
	cmem_block *b = find(h, p, &slot);
	if (!b)
		return CORM_E_NOTFOUND;
	uint64_t hd = hdr_load(b, slot);
	uint32_t old = vidx_of_abs(h, corm_h_oldbase(hd));
	correct(h, b, slot, p);
	hdr_store(b, slot, corm_h_version(hd)); /* free: ID 0, version kept */
	ids_del(&b->ids, corm_h_id(hd));
	b->free_slots[b->nfree++] = slot;
	b->live--;
	__atomic_sub_fetch(&h->live_objects, 1, __ATOMIC_RELAXED);
	if (--h->vb[old].live == 0 && old != b->vidx)
		va_release(h, b, old);
	bool empty = b->live == 0;
	pthread_mutex_unlock(&b->mu);
	if (empty)
		try_release(h, b);
	return CORM_OK;
}

corm_status cmem_release(cmem_heap *h, corm_ptr *p)
{
	uint32_t slot;
	cmem_block *b = find(h, p, &slot);
	if (!b)
		return CORM_E_NOTFOUND;
	release_locked(h, b, slot, p);
	p->version = corm_h_version(hdr_load(b, slot));
	pthread_mutex_unlock(&b->mu);
	return CORM_OK;
}

/* ---- compaction ---- */

double cmem_fragmentation(cmem_heap *h, int cls)
{
	uint64_t live = 0, cap = 0;
	for (int t = 0; t < h->cfg.threads; t++) {
		cmem_tl *tl = &h->tl[t];
		pthread_mutex_lock(&tl->mu);
		for (uint32_t i = 0; i < tl->n[cls]; i++) {
			live += __atomic_load_n(&tl->list[cls][i]->live, __ATOMIC_RELAXED);
			cap += tl->list[cls][i]->slots;
		}
		pthread_mutex_unlock(&tl->mu);
	}
	return cap ? 1.0 - (double)live / (double)cap : 0;
}

/* What a collection gathers: the candidate blocks every thread hands over. */
typedef struct collect_ctx {
	cmem_heap *h;
	int c;
	double max_occ;
	pthread_mutex_t mu;
	cmem_block **v;
	uint32_t n, cap;
} collect_ctx;

/* Thread t's part: every block of the class at most max_occ full leaves
 * its list (no new objects go there meanwhile) for the compactor. */
static void collect_thread(collect_ctx *cc, int t)
{
	cmem_tl *tl = &cc->h->tl[t];
	int c = cc->c;
	pthread_mutex_lock(&tl->mu);
	for (uint32_t i = 0; i < tl->n[c];) {
		cmem_block *b = tl->list[c][i];
		pthread_mutex_lock(&b->mu);
		bool take = b->live < b->slots && (double)b->live <= cc->max_occ * b->slots;
		if (take) {
			list_del(tl, b);
			__atomic_store_n(&b->owner, -1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&b->mu);
		if (!take) {
			i++;
			continue;
		}
		pthread_mutex_lock(&cc->mu);
		if (cc->n == cc->cap)
			cc->v = realloc(cc->v, (cc->cap *= 2) * sizeof *cc->v);
		if (!cc->v)
			abort();
		cc->v[cc->n++] = b;
		pthread_mutex_unlock(&cc->mu);
	}
	pthread_mutex_unlock(&tl->mu);
}

typedef struct collect_msg {
	cmem_msg m;
	collect_ctx *cc;
	int t;
} collect_msg;

static void collect_fn(cmem_msg *m)
{
	collect_msg *x = (collect_msg *)m;
	collect_thread(x->cc, x->t);
}

/* The paper's collection: a request to every other worker, each of which
 * answers with its blocks from its own serving loop; the compactor takes
 * worker 0's share itself (the paper's leader is a worker) and waits for
 * the last answer. It serves no lookup meanwhile: it is busy. */
static cmem_block **collect(cmem_heap *h, int c, double max_occ, uint32_t *n, cmem_compact_stats *st)
{
	collect_ctx cc = {.h = h, .c = c, .max_occ = max_occ, .cap = 64};
	pthread_mutex_init(&cc.mu, NULL);
	cc.v = xcalloc(cc.cap, sizeof *cc.v);
	int T = h->cfg.threads;
	collect_msg *msg = xcalloc((size_t)T, sizeof *msg);
	for (int t = 1; t < T; t++) {
		msg[t] = (collect_msg){.m.fn = collect_fn, .cc = &cc, .t = t};
		if (cmem_mbox_post(&h->mbox[t], &msg[t].m)) {
			st->collect_msgs++;
		} else {
			msg[t].m.fn = NULL;   /* not serving: its share directly, nothing to wait for */
			collect_thread(&cc, t);
		}
	}
	collect_thread(&cc, 0);
	for (int t = 1; t < T; t++) {
		double waited;
		if (msg[t].m.fn && !cmem_msg_wait(&msg[t].m, &h->mbox[t], NULL, wait_s(h), &waited))
			stalled(h, T, t, waited, "for its share of the collection of class %d", c);
	}
	free(msg);
	pthread_mutex_destroy(&cc.mu);
	*n = cc.n;
	return cc.v;
}

static bool ids_disjoint(cmem_block *a, cmem_block *b)
{
	for (uint32_t i = 0; i <= a->ids.mask; i++)
		if (a->ids.e[i] && ids_find(&b->ids, (uint16_t)(a->ids.e[i] >> 16)) >= 0)
			return false;
	return true;
}

static void take_free_slot(cmem_block *b, uint32_t slot)
{
	for (uint32_t i = 0; i < b->nfree; i++)
		if (b->free_slots[i] == slot) {
			b->free_slots[i] = b->free_slots[--b->nfree];
			return;
		}
}

/* Copies A's objects into B (both locked): same offset where B's slot is
 * free, else a random free slot (the object keeps its ID; its pointers
 * become indirect). Each source slot is locked first, so a reader through
 * A's VA retries instead of seeing a half copy. */
static void copy_objects(cmem_heap *h, cmem_block *a, cmem_block *b, cmem_compact_stats *st, uint64_t *rng)
{
	size_t cap = corm_slot_capacity(a->slot_size);
	uint8_t *buf = xcalloc(cap, 1);
	for (uint32_t i = 0; i < a->slots; i++) {
		uint64_t hd = hdr_load(a, i);
		if (!(hd & CORM_H_ALLOC))
			continue;
		hdr_store(a, i, hd | CORM_H_LOCK | CORM_H_COMPACT);
		uint32_t j = i;
		if (hdr_load(b, i) & CORM_H_ALLOC) {
			j = b->free_slots[nm_xorshift(rng) % b->nfree];
			st->moved_offset++;
		}
		take_free_slot(b, j);
		uint8_t *src = a->va + (size_t)i * a->slot_size, *dst = b->va + (size_t)j * b->slot_size;
		corm_slot_read(src, (uint64_t)(uintptr_t)src, a->slot_size, buf, cap);
		uint8_t ver = corm_h_version(hd);
		corm_slot_write(dst, (uint64_t)(uintptr_t)dst, b->slot_size, ver, buf, cap);
		hdr_store(b, j, hd & ~(CORM_H_LOCK | CORM_H_COMPACT));
		ids_put(&b->ids, corm_h_id(hd), j);
		b->live++;
		st->moved++;
	}
	free(buf);
}

/* Points every VA of A at B: CPU mapping and NIC view (REMAP), or the VA
 * table only, A's slots cleared and its physical block retired (DEFER). */
static int remap_all(cmem_heap *h, cmem_block *a, cmem_block *b, cmem_compact_stats *st, char *err, size_t errlen)
{
	if (h->cfg.mode == CORM_DEFER) {
		for (uint32_t i = 0; i < a->slots; i++)
			hdr_store(a, i, 0); /* every DirectRead through A now fails cleanly */
		pthread_mutex_lock(&h->mu);
		h->phys[a->phys].pins = a->nalias;
		h->retired_blocks++;
		pthread_mutex_unlock(&h->mu);
	}
	for (uint32_t k = 0; k < a->nalias; k++) {
		uint32_t v = a->alias[k];
		if (h->cfg.mode == CORM_REMAP) {
			uint64_t t0 = now_ns();
			if (map_va(h, v, b->phys)) {
				snprintf(err, errlen, "mmap(MAP_FIXED) of block %u onto %u: %s", v, b->vidx, strerror(errno));
				return -1;
			}
			uint64_t t1 = now_ns();
			st->mmap_ns += t1 - t0;
			uint32_t key = h->vb[v].rkey;
			if (h->cfg.nic.remap &&
			    h->cfg.nic.remap(h->cfg.nic.arg, &h->vb[v].mr, va_of(h, v), h->cfg.block_size, &key, err, errlen))
				return -1;
			if (key != h->vb[v].rkey) {
				/* readers holding the old key are refused by the NIC and
				 * learn this one from the next pointer correction */
				__atomic_store_n(&h->vb[v].rkey, key, __ATOMIC_RELEASE);
				st->keys_changed++;
			}
			st->nic_ns += now_ns() - t1;
		} else if (h->vb[v].pinned < 0) {
			h->vb[v].pinned = a->phys;
		} else {
			/* an older VA already pins another retired block: keep that */
			pthread_mutex_lock(&h->mu);
			h->phys[a->phys].pins--;
			pthread_mutex_unlock(&h->mu);
		}
		__atomic_store_n(&h->vb[v].blk, b, __ATOMIC_RELEASE);
		alias_add(b, v);
		st->remaps++;
	}
	a->nalias = 0;
	__atomic_store_n(&a->dead, true, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&h->mu);
	if (h->cfg.mode == CORM_REMAP)
		phys_put(h, a->phys);
	else if (h->phys[a->phys].pins == 0) {
		phys_put(h, a->phys);
		h->retired_blocks--;
	}
	pthread_mutex_unlock(&h->mu);
	return 0;
}

/* The blocks the compactor kept become worker 0's, whom the compactor
 * stands in for, as the authors' leader adopts the collected blocks (empty
 * ones are released): a moved object in one is then worker 0's to find. */
static void give_back(cmem_heap *h, cmem_block **v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		cmem_block *b = v[i];
		if (!b)
			continue;
		cmem_tl *tl = &h->tl[0];
		pthread_mutex_lock(&tl->mu);
		pthread_mutex_lock(&b->mu);
		if (b->live == 0) {
			block_release(h, b);
		} else {
			b->home = 0;
			__atomic_store_n(&b->owner, 0, __ATOMIC_RELEASE);
			list_add(tl, b);
		}
		pthread_mutex_unlock(&b->mu);
		pthread_mutex_unlock(&tl->mu);
	}
}

/* What the best fit's test needs: B has room for A's objects and no ID in
 * common. A partner found stays locked for the merge. Live counts only fall
 * while the compactor holds the blocks (frees go on, allocations do not),
 * so a bucket read before the lock can only understate B's room. */
typedef struct pair_ctx {
	cmem_block **v;
	cmem_block *a;
} pair_ctx;

static bool partner_ok(void *arg, uint32_t k)
{
	pair_ctx *c = arg;
	cmem_block *b = c->v[k];
	pthread_mutex_lock(&b->mu);
	if (b->nfree >= c->a->live && ids_disjoint(c->a, b))
		return true;
	pthread_mutex_unlock(&b->mu);
	return false;
}

/* Merges A into B and remaps A's VAs; B goes back into the queue by its
 * new live count unless it is full. Both are unlocked on return. */
static int merge(cmem_heap *h, corm_pairq *q, pair_ctx *c, uint32_t ia, uint32_t ib, cmem_compact_stats *st,
		 uint64_t *rng, char *err, size_t errlen)
{
	cmem_block *a = c->a, *b = c->v[ib];
	copy_objects(h, a, b, st, rng);
	int rc = remap_all(h, a, b, st, err, errlen);
	a->live = 0;
	c->v[ia] = NULL;
	st->merges++;
	corm_pairq_del(q, ib);
	if (b->live < b->slots)
		corm_pairq_put(q, ib, b->live);
	pthread_mutex_unlock(&b->mu);
	pthread_mutex_unlock(&a->mu);
	return rc;
}

static int compact_class(cmem_heap *h, int c, double max_occ, uint64_t *budget, cmem_compact_stats *st,
			 char *err, size_t errlen)
{
	uint64_t t0 = now_ns();
	uint32_t n;
	cmem_block **v = collect(h, c, max_occ, &n, st);
	uint64_t t1 = now_ns();
	st->collect_ns += t1 - t0;
	st->collected += n;
	uint64_t rng = nm_mix64(h->cfg.seed ^ (uint64_t)c) | 1;
	int rc = 0;
	corm_pairq q;
	if (corm_pairq_init(&q, n, h->cls.slots[c]))
		abort();
	for (uint32_t i = 0; i < n; i++)
		corm_pairq_put(&q, i, __atomic_load_n(&v[i]->live, __ATOMIC_RELAXED));
	/* Greedy, as the authors' Compaction(): the least utilised block A
	 * goes into the fullest block B that has room and no common ID. */
	while (q.count >= 2 && rc == 0 && *budget) {
		/* lookups waiting on the compactor's mailbox see it is busy, and
		 * so do those waiting on its own worker's, when a worker compacts */
		cmem_mbox_beat(&h->mbox[h->cfg.threads]);
		if (self_thread >= 0)
			cmem_mbox_beat(&h->mbox[self_thread]);
		uint32_t ia = corm_pairq_pop_least(&q);
		pair_ctx pc = {.v = v, .a = v[ia]};
		pthread_mutex_lock(&pc.a->mu);
		if (pc.a->live == 0) {
			pthread_mutex_unlock(&pc.a->mu);
			continue; /* released by give_back */
		}
		uint32_t ib = corm_pairq_best_fit(&q, pc.a->slots - pc.a->live, partner_ok, &pc);
		if (ib == CORM_PAIR_NONE) {
			st->no_partner++; /* parked: back to its thread after the pass */
			pthread_mutex_unlock(&pc.a->mu);
			continue;
		}
		rc = merge(h, &q, &pc, ia, ib, st, &rng, err, errlen);
		(*budget)--;
	}
	corm_pairq_free(&q);
	st->compact_ns += now_ns() - t1;
	give_back(h, v, n);
	free(v);
	return rc;
}

int cmem_compact(cmem_heap *h, int cls, double max_occupancy, uint64_t max_merges, cmem_compact_stats *st,
		      char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	st->blocks_before = __atomic_load_n(&h->active_blocks, __ATOMIC_RELAXED);
	uint64_t budget = max_merges ? max_merges : UINT64_MAX;
	int rc = 0;
	/* lookups of objects in blocks the compactor holds wait here until
	 * the whole compaction is over */
	cmem_mbox_open(&h->mbox[h->cfg.threads]);
	for (int c = cls < 0 ? 0 : cls; c < (cls < 0 ? h->cls.n : cls + 1) && rc == 0; c++)
		rc = compact_class(h, c, max_occupancy, &budget, st, err, errlen);
	cmem_mbox_close(&h->mbox[h->cfg.threads]);
	st->blocks_after = __atomic_load_n(&h->active_blocks, __ATOMIC_RELAXED);
	return rc;
}
