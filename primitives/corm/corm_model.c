/* CoRM's memory model: compaction probability, size classes, a simulated
 * heap and its compaction under four strategies. Decisions: corm_model.h. */
#include "corm_model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOSLOT UINT32_MAX

/* ------------------------------------------------------------- rng ---- */

/* The suite's xoshiro256** (primitives/gen/ycsb.h), seeded from
 * splitmix64(seed) as one stream: reproducible across platforms. */
static void rng_seed(ycsb_rng *r, uint64_t seed) { ycsb_rng_seed(r, seed, 0, 0); }

/* ------------------------------------------------------------ Fig. 7 ---- */

double corm_merge_prob(uint64_t s, uint64_t n, uint64_t b1, uint64_t b2)
{
	if (b1 + b2 > s || b1 + b2 > n)
		return 0;
	/* Product form in logs: C(n-b1,b2)/C(n,b2) = prod (n-b1-i)/(n-i), whose
	 * terms underflow a plain product long before the result does. */
	double lp = 0;
	for (uint64_t i = 0; i < b2; i++)
		lp += log((double)(n - b1 - i)) - log((double)(n - i));
	return exp(lp);
}

/* Draws k distinct values below n into out, marking them in bits. */
static void draw_distinct(ycsb_rng *rng, uint64_t n, uint64_t k, uint64_t *bits, uint32_t *out)
{
	for (uint64_t i = 0; i < k; i++) {
		uint64_t v;
		do
			v = ycsb_rng_below(rng, n);
		while (bits[v / 64] >> (v % 64) & 1);
		bits[v / 64] |= 1ull << (v % 64);
		out[i] = (uint32_t)v;
	}
}

static void clear_marks(uint64_t *bits, const uint32_t *v, uint64_t k)
{
	for (uint64_t i = 0; i < k; i++)
		bits[v[i] / 64] &= ~(1ull << (v[i] % 64));
}

double corm_merge_prob_mc(uint64_t s, uint64_t n, uint64_t b1, uint64_t b2, uint64_t trials,
			  uint64_t seed)
{
	if (b1 + b2 > s || b1 + b2 > n || n > (1u << 24) || trials == 0)
		return 0;
	ycsb_rng rng;
	uint64_t ok = 0;
	rng_seed(&rng, seed);
	uint64_t *a = calloc(n / 64 + 1, 8), *b = calloc(n / 64 + 1, 8);
	uint32_t *va = malloc((b1 + 1) * 4), *vb = malloc((b2 + 1) * 4);
	if (!a || !b || !va || !vb)
		abort();
	for (uint64_t t = 0; t < trials; t++) {
		draw_distinct(&rng, n, b1, a, va);
		draw_distinct(&rng, n, b2, b, vb);
		uint64_t hit = 0;
		for (uint64_t i = 0; i < b2 && !hit; i++)
			hit = a[vb[i] / 64] >> (vb[i] % 64) & 1;
		ok += !hit;
		clear_marks(a, va, b1);
		clear_marks(b, vb, b2);
	}
	free(a), free(b), free(va), free(vb);
	return (double)ok / (double)trials;
}

/* ---------------------------------------------------- size classes ---- */

int corm_classes_init(corm_classes *c, uint64_t block_size, char *err, size_t errlen)
{
	if (block_size < 4096 || block_size > (64u << 20) || (block_size & (block_size - 1))) {
		snprintf(err, errlen, "block size %llu is not a power of two in 4 KiB .. 64 MiB",
			 (unsigned long long)block_size);
		return -1;
	}
	memset(c, 0, sizeof *c);
	c->block_size = (uint32_t)block_size;
	c->useful = c->block_size - 16; /* the block header's 16 bytes */
	uint32_t prev_k = 0;
	for (uint32_t size = 16; size <= c->useful && c->n < CORM_MAX_CLASSES; size += 8) {
		uint32_t k = c->useful / size;
		if (k == prev_k)
			continue;
		prev_k = k;
		/* The largest multiple of 8 that still fits k objects: it wastes
		 * nothing more than `size` does and serves more requests. */
		c->size[c->n] = c->useful / k / 8 * 8;
		c->slots[c->n] = k;
		c->n++;
		size = c->size[c->n - 1];
	}
	return 0;
}

int corm_class_of(const corm_classes *c, uint64_t size)
{
	int lo = 0, hi = c->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (c->size[mid] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n ? lo : -1;
}

/* ------------------------------------------------------------- heap ---- */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

int corm_heap_init(corm_heap *h, uint64_t block_size, int threads, uint64_t seed, char *err,
		   size_t errlen)
{
	memset(h, 0, sizeof *h);
	if (corm_classes_init(&h->cls, block_size, err, errlen))
		return -1;
	if (threads < 1) {
		snprintf(err, errlen, "threads must be at least 1");
		return -1;
	}
	h->threads = threads;
	rng_seed(&h->rng, seed);
	size_t lists = (size_t)threads * (size_t)h->cls.n;
	h->nonfull = calloc(lists, sizeof *h->nonfull);
	h->nonfull_n = calloc(lists, sizeof *h->nonfull_n);
	h->nonfull_cap = calloc(lists, sizeof *h->nonfull_cap);
	if (!h->nonfull || !h->nonfull_n || !h->nonfull_cap)
		abort();
	return 0;
}

static void block_free(corm_block *b)
{
	if (b) {
		free(b->free_slots);
		free(b->obj);
		free(b);
	}
}

void corm_heap_free(corm_heap *h)
{
	for (size_t i = 0; i < h->nblocks; i++)
		block_free(h->blocks[i]);
	size_t lists = (size_t)h->threads * (size_t)h->cls.n;
	for (size_t i = 0; i < lists && h->nonfull; i++)
		free(h->nonfull[i]);
	free(h->blocks), free(h->nonfull), free(h->nonfull_n), free(h->nonfull_cap);
	free(h->obj_block), free(h->obj_slot);
	memset(h, 0, sizeof *h);
}

static size_t list_of(const corm_heap *h, int thread, int cls)
{
	return (size_t)thread * (size_t)h->cls.n + (size_t)cls;
}

static void nonfull_add(corm_heap *h, uint32_t bi)
{
	corm_block *b = h->blocks[bi];
	size_t l = list_of(h, b->thread, b->cls);
	if (h->nonfull_n[l] == h->nonfull_cap[l]) {
		h->nonfull_cap[l] = h->nonfull_cap[l] ? 2 * h->nonfull_cap[l] : 8;
		h->nonfull[l] = xrealloc(h->nonfull[l], h->nonfull_cap[l] * sizeof **h->nonfull);
	}
	b->pos = (uint32_t)h->nonfull_n[l];
	h->nonfull[l][h->nonfull_n[l]++] = bi;
}

static void nonfull_remove(corm_heap *h, uint32_t bi)
{
	corm_block *b = h->blocks[bi];
	size_t l = list_of(h, b->thread, b->cls);
	uint32_t last = h->nonfull[l][--h->nonfull_n[l]];
	h->nonfull[l][b->pos] = last;
	h->blocks[last]->pos = b->pos;
	b->pos = NOSLOT;
}

static uint32_t block_new(corm_heap *h, int thread, int cls)
{
	uint32_t s = h->cls.slots[cls];
	corm_block *b = calloc(1, sizeof *b);
	if (!b)
		abort();
	b->cls = cls;
	b->thread = thread;
	b->nfree = s;
	b->free_slots = xrealloc(NULL, s * sizeof *b->free_slots);
	b->obj = xrealloc(NULL, s * sizeof *b->obj);
	for (uint32_t i = 0; i < s; i++) {
		b->free_slots[i] = i;
		b->obj[i] = NOSLOT;
	}
	if (h->nblocks == h->cap_blocks) {
		h->cap_blocks = h->cap_blocks ? 2 * h->cap_blocks : 64;
		h->blocks = xrealloc(h->blocks, h->cap_blocks * sizeof *h->blocks);
	}
	h->blocks[h->nblocks] = b;
	h->live_blocks++;
	nonfull_add(h, (uint32_t)h->nblocks);
	return (uint32_t)h->nblocks++;
}

/* The thread's fullest non-full block of the class (the authors' allocator
 * takes the head of a set ordered by free slots), or a new one. A linear
 * scan: the lists are short unless a trace frees without reallocating. */
static uint32_t block_for(corm_heap *h, int thread, int cls)
{
	size_t l = list_of(h, thread, cls);
	if (!h->nonfull_n[l])
		return block_new(h, thread, cls);
	uint32_t best = h->nonfull[l][0];
	for (size_t i = 1; i < h->nonfull_n[l]; i++) {
		uint32_t bi = h->nonfull[l][i];
		if (h->blocks[bi]->nfree < h->blocks[best]->nfree)
			best = bi;
	}
	return best;
}

static void obj_grow(corm_heap *h)
{
	if (h->nobj < h->cap_obj)
		return;
	h->cap_obj = h->cap_obj ? 2 * h->cap_obj : 1024;
	h->obj_block = xrealloc(h->obj_block, h->cap_obj * sizeof *h->obj_block);
	h->obj_slot = xrealloc(h->obj_slot, h->cap_obj * sizeof *h->obj_slot);
}

int64_t corm_heap_alloc(corm_heap *h, uint64_t size, char *err, size_t errlen)
{
	int cls = corm_class_of(&h->cls, size);
	if (cls < 0) {
		snprintf(err, errlen, "object of %llu bytes is larger than a block's %u usable bytes",
			 (unsigned long long)size, h->cls.useful);
		return -1;
	}
	if (h->nobj >= NOSLOT) {
		snprintf(err, errlen, "more than %u allocations", NOSLOT - 1);
		return -1;
	}
	int thread = (int)ycsb_rng_below(&h->rng, (uint64_t)h->threads);
	uint32_t bi = block_for(h, thread, cls);
	corm_block *b = h->blocks[bi];
	uint32_t k = (uint32_t)ycsb_rng_below(&h->rng, b->nfree); /* a random free offset */
	uint32_t slot = b->free_slots[k];
	b->free_slots[k] = b->free_slots[--b->nfree];
	b->live++;
	if (!b->nfree)
		nonfull_remove(h, bi);
	obj_grow(h);
	b->obj[slot] = (uint32_t)h->nobj;
	h->obj_block[h->nobj] = bi;
	h->obj_slot[h->nobj] = slot;
	h->live_objects++;
	h->live_bytes += h->cls.size[cls];
	return (int64_t)h->nobj++;
}

void corm_heap_release(corm_heap *h, uint64_t obj)
{
	uint32_t bi = h->obj_block[obj], slot = h->obj_slot[obj];
	corm_block *b = h->blocks[bi];
	b->obj[slot] = NOSLOT;
	b->free_slots[b->nfree++] = slot;
	b->live--;
	h->obj_block[obj] = NOSLOT;
	h->live_objects--;
	h->live_bytes -= h->cls.size[b->cls];
	if (b->nfree == 1)
		nonfull_add(h, bi);
	if (!b->live) { /* an empty block goes back to the system in every strategy */
		nonfull_remove(h, bi);
		block_free(b);
		h->blocks[bi] = NULL;
		h->live_blocks--;
	}
}

/* ------------------------------------------------------- compaction ---- */

bool corm_keys_mergeable(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint64_t s)
{
	if (na + nb > s)
		return false;
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (a[i] == b[j])
			return false;
		if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return true;
}

/* A block as the compactor sees it: its keys (offsets or IDs, ascending)
 * and the objects it holds, so conservation can be checked at the end. */
typedef struct cand {
	uint32_t *keys, *objs;
	uint32_t n;
} cand;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Fills c from block b: offsets (Mesh) or fresh distinct IDs below 2^bits
 * (CoRM; see corm_model.h on why they are drawn here). */
static void cand_fill(cand *c, const corm_block *b, uint32_t s, int bits, ycsb_rng *rng,
		      uint64_t *marks)
{
	c->n = 0;
	c->keys = xrealloc(NULL, b->live * sizeof *c->keys);
	c->objs = xrealloc(NULL, b->live * sizeof *c->objs);
	for (uint32_t slot = 0; slot < s; slot++)
		if (b->obj[slot] != NOSLOT) {
			c->keys[c->n] = slot;
			c->objs[c->n++] = b->obj[slot];
		}
	if (bits > 0) {
		draw_distinct(rng, 1ull << bits, c->n, marks, c->keys);
		clear_marks(marks, c->keys, c->n);
		qsort(c->keys, c->n, sizeof *c->keys, cmp_u32);
	}
}

/* b absorbs a: keys merged in order, objects appended. */
static void cand_merge(cand *b, cand *a)
{
	uint32_t *k = xrealloc(NULL, (size_t)(a->n + b->n) * sizeof *k);
	uint32_t i = 0, j = 0, n = 0;
	while (i < a->n || j < b->n)
		k[n++] = (j >= b->n || (i < a->n && a->keys[i] < b->keys[j])) ? a->keys[i++] : b->keys[j++];
	free(b->keys);
	b->keys = k;
	b->objs = xrealloc(b->objs, (size_t)(a->n + b->n) * sizeof *b->objs);
	memcpy(b->objs + b->n, a->objs, a->n * sizeof *a->objs);
	b->n += a->n;
	free(a->keys), free(a->objs);
	a->keys = a->objs = NULL;
	a->n = 0;
}

static int by_live_desc(const void *x, const void *y)
{
	const cand *a = *(cand *const *)x, *b = *(cand *const *)y;
	return (a->n < b->n) - (a->n > b->n);
}

/* Moves q[j] toward the front until the array is again ordered by live
 * objects, descending (its count only grew). */
static void resort_up(cand **q, size_t j)
{
	cand *c = q[j];
	while (j > 0 && q[j - 1]->n < c->n) {
		q[j] = q[j - 1];
		j--;
	}
	q[j] = c;
}

/* The greedy pairing of the authors' Compaction() over candidates q (all
 * non-full, sorted fullest first); returns the blocks merged away. */
static uint64_t greedy(cand **q, size_t nq, uint32_t s)
{
	uint64_t merges = 0;
	while (nq >= 2) {
		cand *a = q[--nq]; /* the least utilised */
		size_t lo = 0, hi = nq;
		while (lo < hi) { /* the first with room for a */
			size_t mid = (lo + hi) / 2;
			if (q[mid]->n + a->n > s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < nq; j++) {
			if (!corm_keys_mergeable(a->keys, a->n, q[j]->keys, q[j]->n, s))
				continue;
			cand_merge(q[j], a);
			merges++;
			if (q[j]->n == s) { /* full: no longer a candidate */
				memmove(q + j, q + j + 1, (nq - j - 1) * sizeof *q);
				nq--;
			} else {
				resort_up(q, j);
			}
			break;
		}
	}
	return merges;
}

typedef struct cls_out {
	uint64_t blocks, merges;
	bool conserved;
} cls_out;

/* Checks that every live object of the class is in exactly one candidate
 * (or in a full block, which the compactor never touches). */
static bool conserved(const corm_heap *h, int cls, cand *cs, size_t n, uint32_t *seen)
{
	uint64_t want = 0, got = 0;
	bool ok = true;
	for (size_t i = 0; i < h->nblocks; i++) {
		const corm_block *b = h->blocks[i];
		if (b && b->cls == cls)
			want += b->live;
		if (b && b->cls == cls && !b->nfree)
			got += b->live;
	}
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < cs[i].n; k++) {
			uint32_t o = cs[i].objs[k];
			ok = ok && h->obj_block[o] != NOSLOT && h->blocks[h->obj_block[o]]->cls == cls &&
			     seen[o]++ == 0;
			got++;
		}
	for (size_t i = 0; i < n; i++) /* leave seen zeroed for the next class */
		for (uint32_t k = 0; k < cs[i].n; k++)
			seen[cs[i].objs[k]] = 0;
	return ok && got == want;
}

/* Compacts one class: keys from offsets (bits 0) or from bits-bit IDs. */
static cls_out compact_class(const corm_heap *h, int cls, int bits, ycsb_rng *rng,
			     uint64_t *marks, uint32_t *seen)
{
	uint32_t s = h->cls.slots[cls];
	cls_out out = {0, 0, true};
	size_t n = 0;
	for (size_t i = 0; i < h->nblocks; i++)
		if (h->blocks[i] && h->blocks[i]->cls == cls) {
			out.blocks++;
			n += h->blocks[i]->nfree > 0;
		}
	cand *cs = xrealloc(NULL, n * sizeof *cs);
	cand **q = xrealloc(NULL, n * sizeof *q);
	size_t k = 0;
	for (size_t i = 0; i < h->nblocks; i++) {
		const corm_block *b = h->blocks[i];
		if (b && b->cls == cls && b->nfree) {
			cand_fill(&cs[k], b, s, bits, rng, marks);
			q[k] = &cs[k];
			k++;
		}
	}
	qsort(q, n, sizeof *q, by_live_desc);
	out.merges = greedy(q, n, s);
	out.blocks -= out.merges;
	out.conserved = conserved(h, cls, cs, n, seen);
	for (size_t i = 0; i < n; i++)
		free(cs[i].keys), free(cs[i].objs);
	free(cs), free(q);
	return out;
}

static uint64_t class_blocks(const corm_heap *h, int cls)
{
	uint64_t n = 0;
	for (size_t i = 0; i < h->nblocks; i++)
		n += h->blocks[i] && h->blocks[i]->cls == cls;
	return n;
}

static uint64_t class_live(const corm_heap *h, int cls)
{
	uint64_t n = 0;
	for (size_t i = 0; i < h->nblocks; i++)
		if (h->blocks[i] && h->blocks[i]->cls == cls)
			n += h->blocks[i]->live;
	return n;
}

static int log2u(uint64_t x)
{
	int l = 0;
	while (x >>= 1)
		l++;
	return l;
}

/* The key bits a strategy uses in a class: 0 = offsets, -1 = not compacted. */
static int class_bits(const corm_heap *h, int cls, corm_strategy st, int id_bits, bool hybrid)
{
	if (st == CORM_MESH)
		return 0;
	if ((uint64_t)h->cls.slots[cls] <= (1ull << id_bits))
		return id_bits;
	return hybrid ? 0 : -1;
}

corm_result corm_compact(const corm_heap *h, corm_strategy st, int id_bits, bool hybrid,
			 uint64_t seed)
{
	corm_result r = {0, 0, 0, 0, true};
	ycsb_rng rng;
	rng_seed(&rng, seed);
	uint64_t *marks = st == CORM_IDS ? calloc((1ull << id_bits) / 64 + 1, 8) : NULL;
	uint32_t *seen = calloc(h->nobj + 1, sizeof *seen);
	if ((st == CORM_IDS && !marks) || !seen)
		abort();
	for (int c = 0; c < h->cls.n; c++) {
		int bits = class_bits(h, c, st, id_bits, hybrid);
		if (st == CORM_NONE || (st == CORM_IDS && bits < 0)) {
			r.blocks += class_blocks(h, c);
		} else if (st == CORM_IDEAL) {
			uint64_t s = h->cls.slots[c];
			r.blocks += (class_live(h, c) + s - 1) / s;
		} else {
			cls_out o = compact_class(h, c, bits, &rng, marks, seen);
			r.blocks += o.blocks;
			r.merges += o.merges;
			r.conserved = r.conserved && o.conserved;
		}
	}
	if (st == CORM_IDS) /* the original block address, then the ID (Table 3) */
		r.overhead_bytes = (h->live_objects * (uint64_t)(48 - log2u(h->cls.block_size) + id_bits) + 7) / 8;
	r.active_bytes = r.blocks * h->cls.block_size + r.overhead_bytes;
	free(marks), free(seen);
	return r;
}

void corm_strategy_name(corm_strategy st, int id_bits, bool hybrid, char *buf, size_t len)
{
	static const char *const names[] = {"none", "ideal", "mesh"};
	if (st == CORM_IDS)
		snprintf(buf, len, "corm-%d%s", id_bits, hybrid ? "-hybrid" : "");
	else
		snprintf(buf, len, "%s", names[st]);
}
