/* netmem corm --bench local: Fig. 11's local side. The server's -T threads
 * read objects of its own heap in place, as the authors' local benchmark
 * does: CoRM's check (object ID and line versions, then the payload copied
 * out), FaRM's (versions only), or a plain memcpy of the slot (raw: the
 * ideal Mesh-style system). Keys are uniform over every thread's objects,
 * so most reads miss the caches once the heap outgrows them.
 *
 * What is timed is the read and one addition: each read adds the object ID
 * in the header it copied to a sum (which also keeps the compiler from
 * dropping the copy). A local read takes tens of nanoseconds, about what
 * reading the clock and filing a sample cost, so reads are timed in batches
 * of LOCAL_BATCH (metrics.lat is a batch's time; the rate counts reads). After the measured loop, unmeasured, the thread
 * replays its key sequence and compares the sum with the IDs its pointers
 * name (a read of the wrong slot shows), and checks every byte of its own
 * objects through the heap's read by ID. */
#include "corm_bench.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "rng.h"
#include "workers.h"
#include <stdlib.h>
#include <string.h>

typedef struct local_job {
	const corm_point *p;
	cmem_heap *h;
	corm_ptr *ptr;        /* [T * objects]: thread t's objects at t * objects */
	uint64_t seed;
	int T;
} local_job;

static inline uint32_t local_key(const local_job *j, int t, uint32_t i) { return (uint32_t)t * j->p->objects + i; }

static inline void count(nm_worker *w, corm_counter k) { w->meter->c[k]++; }

/* Before the start: thread t allocates its objects with its own allocator. */
static void local_load(nm_worker *w)
{
	local_job *j = w->arg;
	uint32_t len = j->p->size;
	uint8_t *buf = nm_malloc(len);
	for (uint32_t i = 0; i < j->p->objects; i++) {
		uint32_t key = local_key(j, w->index, i);
		corm_payload_fill(buf, len, key, 0);
		if (cmem_alloc(j->h, w->index, len, buf, len, &j->ptr[key]) == CORM_OK)
			count(w, CORM_C_ALLOCATED);
		else
			count(w, CORM_C_ALLOC_FAIL);
	}
	free(buf);
}

#define LOCAL_BATCH 64

static inline uint32_t draw(uint64_t *rng, uint32_t n) { return (uint32_t)(((nm_xorshift(rng) >> 32) * n) >> 32); }

/* One read of the object at p in place; returns the ID of the header it
 * saw, 0 when the check refused it. */
static inline uint16_t read_local(corm_read_path how, const corm_ptr *p, uint32_t ss, uint8_t *out, uint32_t n)
{
	const uint8_t *slot = (const uint8_t *)(uintptr_t)p->addr;
	uint64_t h;
	switch (how) {
	case CORM_READ_DIRECT:
		if (corm_slot_check(slot, p->addr, ss, p->id, out, n, NULL) != CORM_SLOT_OK)
			return 0;
		return p->id;
	case CORM_READ_FARM:
		if (corm_slot_check_farm(slot, p->addr, ss, out, n, NULL) != CORM_SLOT_OK)
			return 0;
		memcpy(&h, slot, sizeof h);
		return corm_h_id(h);
	default:
		memcpy(out, slot, ss);
		memcpy(&h, out, sizeof h);
		return corm_h_id(h);
	}
}

/* After the loop: the key sequence again, and every own object's bytes. */
static void local_verify(nm_worker *w, uint64_t seed, uint64_t reads, uint64_t sum)
{
	local_job *j = w->arg;
	uint32_t total = (uint32_t)j->T * j->p->objects, len = j->p->size;
	uint64_t rng = seed, want = 0;
	for (uint64_t k = 0; k < reads; k++)
		want += j->ptr[draw(&rng, total)].id;
	if (want != sum)
		count(w, CORM_C_LOCAL_BAD);
	uint8_t *buf = nm_malloc(len);
	for (uint32_t i = 0; i < j->p->objects; i++) {
		uint32_t key = local_key(j, w->index, i);
		corm_ptr q = j->ptr[key];
		uint8_t v;
		count(w, CORM_C_VERIFIED);
		if (cmem_read(j->h, &q, buf, len, &v) != CORM_OK)
			count(w, CORM_C_LOST);
		else if (corm_payload_check(buf, len, key) != CORM_PAY_OK)
			count(w, CORM_C_STALE);
		else
			count(w, CORM_C_VERIFY_DIRECT);
	}
	free(buf);
}

static void local_body(nm_worker *w)
{
	local_job *j = w->arg;
	const corm_point *p = j->p;
	uint32_t total = (uint32_t)j->T * p->objects, ss = j->h->cls.size[cmem_class(j->h, p->size)];
	uint8_t *out = nm_malloc(ss);
	uint64_t seed = nm_mix64(j->seed + (uint64_t)w->index) | 1, rng = seed, sum = 0;
	/* The loop counts batches; --iters and --warmup count reads. */
	nm_loop lp;
	nm_loop_init(&lp, w->meter);
	lp.warmup = (lp.warmup + LOCAL_BATCH - 1) / LOCAL_BATCH;
	lp.end = lp.warmup + (w->meter->ms->cfg.iters + LOCAL_BATCH - 1) / LOCAL_BATCH;
	while (nm_loop_next(&lp)) {
		uint64_t t0 = nm_ticks();
		for (int k = 0; k < LOCAL_BATCH; k++)
			sum += read_local(p->read, &j->ptr[draw(&rng, total)], ss, out, p->size);
		nm_meter_ops(w->meter, t0, nm_ticks(), LOCAL_BATCH);
	}
	uint64_t reads = lp.i * LOCAL_BATCH;
	w->meter->c[CORM_C_READS] += reads;
	local_verify(w, seed, reads, sum);
	free(out);
}

void corm_local_bench(nm_ctx *ctx, const corm_point *p, cmem_heap *h, nm_measure *ms)
{
	local_job j = {.p = p, .h = h, .T = ctx->base.threads, .seed = ctx->base.seed,
		       .ptr = nm_calloc((size_t)ctx->base.threads * p->objects, sizeof(corm_ptr))};
	nm_round rd = {.workers = j.T, .numa_node = ctx->base.mem_node, .setup = local_load, .body = local_body,
		       .arg = &j, .measure = ms};
	nm_workers_run(&rd);
	/* Every object back to the heap, so the point ends with it empty. */
	for (size_t k = 0; k < (size_t)j.T * p->objects; k++)
		if (j.ptr[k].id && cmem_free(h, &j.ptr[k]) == CORM_OK)
			ms->rank_c[CORM_C_UNLOADED]++;
	free(j.ptr);
}
