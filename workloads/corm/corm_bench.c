/* netmem corm's client threads (corm_bench.h). Every object's payload
 * checks itself (corm_payload_fill: its key, a stamp, bytes derived from
 * both), and with --keys own each thread knows the version of each of its
 * objects, so every read is checked: another object's bytes or an older
 * version is `stale`, an object that was never freed but cannot be found is
 * `lost`. With --keys shared other clients write an object too, so a read
 * is checked for its object and content, not its version.
 *
 * What is timed is the read path and nothing after it: the check of whose
 * bytes a read returned (key and version, a few loads) runs on every read
 * once its time is taken; the check of every content byte costs far more
 * than a small READ (a pattern hash per word), so the measured loops run it
 * on one read in CONTENT_EVERY, and the verify phase on every survivor. */
#include "corm_bench.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "rng.h"
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

const char *const corm_bench_names[CORM_NBENCH] = {"latency", "throughput", "compaction", "remap", "local",
						   "collection"};
const char *const corm_read_names[CORM_NREAD] = {"direct", "farm", "raw", "rpc", "both"};
const char *const corm_fallback_names[CORM_NFALLBACK] = {"scan", "rpc"};
const char *const corm_keys_names[CORM_NKEYS] = {"own", "shared"};
const char *const corm_inject_names[CORM_NINJECT] = {"none", "no-id-check", "read-refused", "new-rkey"};
const char *const corm_lat_names[CORM_NLAT] = {"raw_read", "raw_rpc", "alloc", "free", "read_rpc", "write_rpc",
					       "direct_read", "scan_read", "indirect_read_rpc", "release_ptr"};
const nm_counter corm_counters[CORM_C_N] = {
	[CORM_C_ALLOCATED] = {"allocated", NM_COUNT_METRIC},
	[CORM_C_FREED] = {"freed", NM_COUNT_METRIC},
	[CORM_C_ALLOC_FAIL] = {"alloc_fail", NM_COUNT_METRIC},
	[CORM_C_READS] = {"reads", NM_COUNT_METRIC},
	[CORM_C_WRITES] = {"writes", NM_COUNT_METRIC},
	[CORM_C_SHARED_OPS] = {"shared_ops", NM_COUNT_METRIC},
	[CORM_C_DIRECT_OK] = {"direct_ok", NM_COUNT_METRIC},
	[CORM_C_DIRECT_MISS] = {"direct_miss", NM_COUNT_METRIC},
	[CORM_C_DIRECT_RETRY] = {"direct_retry", NM_COUNT_METRIC},
	[CORM_C_DIRECT_FAILED] = {"direct_failed", NM_COUNT_METRIC},
	[CORM_C_DIRECT_MISS_DEVICE] = {"direct_miss_device", NM_COUNT_METRIC},
	[CORM_C_READ_REFUSED] = {"direct_read_refused", NM_COUNT_METRIC},
	[CORM_C_SCAN_OK] = {"scan_ok", NM_COUNT_METRIC},
	[CORM_C_SCAN_MISS] = {"scan_miss", NM_COUNT_METRIC},
	[CORM_C_SCAN_MISS_DEVICE] = {"scan_miss_device", NM_COUNT_METRIC},
	[CORM_C_RPC_OK] = {"rpc_ok", NM_COUNT_METRIC},
	[CORM_C_RKEY_UPDATED] = {"rkey_updated", NM_COUNT_METRIC},
	[CORM_C_LOST] = {"lost", NM_COUNT_METRIC},
	[CORM_C_STALE] = {"stale", NM_COUNT_METRIC},
	[CORM_C_TORN_CONTENT] = {"torn_content", NM_COUNT_METRIC},
	[CORM_C_VERIFIED] = {"verified", NM_COUNT_METRIC},
	[CORM_C_VERIFY_DIRECT] = {"verify_direct", NM_COUNT_METRIC},
	[CORM_C_VERIFY_SCAN] = {"verify_scan", NM_COUNT_METRIC},
	[CORM_C_VERIFY_RPC] = {"verify_rpc", NM_COUNT_METRIC},
	[CORM_C_UNLOADED] = {"unloaded", NM_COUNT_METRIC},
	[CORM_C_LOCAL_BAD] = {"local_bad", NM_COUNT_METRIC},
};

/* DirectRead gives up after this many locked or torn copies and lets the
 * caller fall back (the CoRM paper, Sec. 3.2.3, retries "after a backoff
 * period" and leaves both the backoff and the bound open). */
#define DIRECT_TRIES 1000
/* Measured reads whose every content byte is checked: one in this many. */
#define CONTENT_EVERY 16

static inline uint32_t key_of(const corm_thread *th, uint32_t i)
{
	return (uint32_t)(((uint64_t)(th->rank - 1) * (uint64_t)th->nthreads + (uint64_t)th->thread) * th->p->objects + i);
}

static inline uint32_t payload_len(const corm_thread *th) { return th->p->size; }

typedef enum { JUDGE_GOOD, JUDGE_TORN, JUDGE_STALE } corm_judge;

/* What a read must return: the object's key, and its version where the
 * reader knows it (version < 0: written by other clients too). */
typedef struct corm_want {
	uint32_t key;
	int version;
} corm_want;

static corm_want want_own(const corm_thread *th, uint32_t i)
{
	return (corm_want){key_of(th, i), th->all ? -1 : th->version[i]};
}

/* Checks an accepted copy: whose bytes (key) and which version always,
 * every content byte when `content`. A stale copy is counted. */
static corm_judge judge(corm_thread *th, corm_want w, const uint8_t *buf, uint8_t version, bool content)
{
	uint32_t key;
	memcpy(&key, buf, sizeof key);
	if (key != w.key || (w.version >= 0 && version != w.version)) {
		corm_count(th, CORM_C_STALE);
		if (key != w.key)
			nm_error_note(&th->m->err, "a read of key %u returned key %u's bytes", w.key, key);
		else
			nm_error_note(&th->m->err, "a read of key %u returned version %u, not %d", w.key, version, w.version);
		return JUDGE_STALE;
	}
	if (content && corm_payload_check(buf, payload_len(th), w.key) != CORM_PAY_OK) {
		corm_count(th, CORM_C_TORN_CONTENT);
		return JUDGE_TORN;
	}
	return JUDGE_GOOD;
}

typedef enum { GOT_DIRECT, GOT_SCAN, GOT_RPC, GOT_LOST } corm_got;

typedef enum { TRY_ACCEPTED, TRY_NEXT, TRY_AGAIN, TRY_REFUSED } corm_try;

/* One attempt's result: a copy accepted (judge it), try the next way, or
 * try this way again; refused: the device refused the READ (counted), try
 * the next way. */
static corm_try refused(corm_thread *th)
{
	corm_count(th, CORM_C_READ_REFUSED);
	return TRY_REFUSED;
}

/* --inject read-refused: this DirectRead goes out with a wrong key (the
 * low byte, which an rkey's owner varies between registrations). The
 * thread's first DirectRead is one, so any run that reads directly is
 * refused at least once, however few reads its duration allows. */
static bool refuse_now(corm_thread *th)
{
	return th->p->inject == CORM_INJECT_READ_REFUSED && th->refuse_tick++ % CORM_REFUSE_EVERY == 0;
}

static corm_try one_sided(corm_thread *th, corm_ptr *p, corm_check chk, uint8_t *buf)
{
	corm_ptr wrong;
	corm_ptr *at = p;
	if (refuse_now(th)) {
		wrong = *p;
		wrong.rkey ^= 0x80;
		at = &wrong;
	}
	corm_slot_state st = corm_direct_read(th->c, at, chk, buf, payload_len(th));
	if (st == CORM_SLOT_REFUSED)
		return refused(th);
	p->version = at->version;
	if (st == CORM_SLOT_OK)
		return TRY_ACCEPTED;
	if (st == CORM_SLOT_NOT_FOUND)
		return TRY_NEXT;
	corm_count(th, CORM_C_DIRECT_RETRY);
	sched_yield();
	return TRY_AGAIN;
}

static corm_try scan(corm_thread *th, corm_ptr *p, uint8_t *buf)
{
	corm_slot_state st = corm_scan_read(th->c, p, buf, payload_len(th));
	if (st == CORM_SLOT_REFUSED)
		return refused(th);
	if (st == CORM_SLOT_OK)
		return TRY_ACCEPTED;
	if (st == CORM_SLOT_NOT_FOUND)
		return TRY_NEXT;
	sched_yield();
	return TRY_AGAIN;
}

/* Counts a one-sided miss: under the device limit only page-aligned reads
 * can succeed, and those misses are counted apart, so direct_miss stays
 * what the compaction caused. */
static void count_miss(corm_thread *th, const corm_ptr *p)
{
	bool dev = th->lim.odp_offset_bug && (p->addr & (th->lim.page - 1));
	corm_count(th, dev ? CORM_C_DIRECT_MISS_DEVICE : CORM_C_DIRECT_MISS);
}

/* Up to DIRECT_TRIES attempts one way (a copy found locked or torn is
 * tried again). */
typedef enum { WAY_ONE_SIDED, WAY_SCAN } corm_way;
typedef enum { WAY_GOOD, WAY_NONE, WAY_STALE, WAY_REFUSED } corm_way_result;

static corm_way_result attempts(corm_thread *th, corm_way way, corm_check ck, corm_want w, corm_ptr *p, uint8_t *buf,
				bool content, uint64_t *t1)
{
	for (int tries = 0; tries < DIRECT_TRIES; tries++) {
		corm_try r = way == WAY_SCAN ? scan(th, p, buf) : one_sided(th, p, ck, buf);
		if (r == TRY_NEXT)
			return WAY_NONE;
		if (r == TRY_REFUSED)
			return WAY_REFUSED;
		if (r == TRY_AGAIN) {
			/* the authors' harness would have failed this DirectRead
			 * here and not retried it: Fig. 13 counts it once */
			if (tries == 0 && way == WAY_ONE_SIDED)
				corm_count(th, CORM_C_DIRECT_FAILED);
			continue;
		}
		*t1 = nm_ticks();
		corm_judge j = judge(th, w, buf, p->version, content);
		if (j != JUDGE_TORN)
			return j == JUDGE_GOOD ? WAY_GOOD : WAY_STALE;
	}
	return WAY_NONE;
}

/* The client's read of object w through pointer p on `path`: one-sided
 * (CoRM's DirectRead then falls back to ScanRead), then an RPC read; p is
 * corrected on the way. *t1 is when the accepted copy was in hand, before
 * it is judged. */
static corm_got read_obj(corm_thread *th, corm_want w, corm_ptr *p, uint8_t *buf, corm_read_path path, bool content,
			 uint64_t *t1)
{
	static const corm_check chk[CORM_NREAD] = {[CORM_READ_DIRECT] = CORM_CHECK_ID, [CORM_READ_FARM] = CORM_CHECK_FARM,
						   [CORM_READ_RAW] = CORM_CHECK_NONE};
	corm_check ck = path == CORM_READ_DIRECT && th->p->inject == CORM_INJECT_NO_ID_CHECK ? CORM_CHECK_FARM : chk[path];
	if (path != CORM_READ_RPC) {
		corm_way_result got = attempts(th, WAY_ONE_SIDED, ck, w, p, buf, content, t1);
		if (got == WAY_STALE)
			return GOT_LOST;
		if (got == WAY_GOOD) {
			corm_count(th, CORM_C_DIRECT_OK);
			return GOT_DIRECT;
		}
		if (got == WAY_NONE)
			count_miss(th, p);
	}
	if (path == CORM_READ_DIRECT && th->p->fallback == CORM_FALLBACK_SCAN) {
		corm_way_result got = attempts(th, WAY_SCAN, ck, w, p, buf, content, t1);
		if (got == WAY_STALE)
			return GOT_LOST;
		if (got == WAY_GOOD) {
			corm_count(th, CORM_C_SCAN_OK);
			return GOT_SCAN;
		}
		/* under the device limit a block is read in several packets */
		if (got == WAY_NONE)
			corm_count(th, th->lim.odp_offset_bug ? CORM_C_SCAN_MISS_DEVICE : CORM_C_SCAN_MISS);
	}
	for (;;) {
		uint32_t key = p->rkey;
		corm_status s = corm_rpc(th->c, CORM_RPC_READ, p, 0, NULL, 0, buf, payload_len(th));
		*t1 = nm_ticks();
		if (s == CORM_OK && p->rkey != key)
			corm_count(th, CORM_C_RKEY_UPDATED);
		if (s != CORM_OK) {
			corm_count(th, CORM_C_LOST);
			nm_error_note(&th->m->err, "the RPC read of key %u found no object (%s)", w.key, corm_status_names[s]);
			return GOT_LOST;
		}
		corm_judge j = judge(th, w, buf, p->version, content);
		if (j == JUDGE_GOOD) {
			corm_count(th, CORM_C_RPC_OK);
			return GOT_RPC;
		}
		if (j == JUDGE_STALE)
			return GOT_LOST;
	}
}

/* --live-objects N in all over the C = client ranks x -T threads: N / C
 * live per thread, N / C / (1 - free-ratio) loaded. */
static int from_live(int64_t live, uint64_t clients, corm_point *p, char *err, size_t len)
{
	if ((uint64_t)live % clients)
		return nm_errf(err, len, "--live-objects %" PRId64 ": not a multiple of the %" PRIu64 " client threads", live,
			       clients);
	if (p->free_ratio >= 1)
		return nm_errf(err, len, "--live-objects with --free-ratio 1: nothing would stay live");
	double per = (double)((uint64_t)live / clients), loaded = llround(per / (1 - p->free_ratio));
	if (loaded > (double)CORM_MAX_OBJECTS)
		return nm_errf(err, len, "--live-objects %" PRId64 ": %.0f objects per client thread (at most 2^30)", live,
			       loaded);
	p->objects = (uint32_t)loaded;
	p->frees = (uint32_t)(loaded - per);
	return 0;
}

/* --class-bytes B over the C loading threads: B / slot / C objects each
 * (slots, not payloads: the decision in workloads/corm/README.md), of
 * which --free-ratio are freed as with -K. */
static int from_class_bytes(int64_t bytes, uint64_t loaders, corm_point *p, char *err, size_t len)
{
	uint64_t per = (uint64_t)bytes / p->slot / loaders;
	if (per == 0)
		return nm_errf(err, len, "--class-bytes %" PRId64 ": less than one %u-byte slot (--size %u) for each loading "
			       "thread (%" PRIu64 " of them)", bytes, p->slot, p->size, loaders);
	if (per > CORM_MAX_OBJECTS)
		return nm_errf(err, len, "--class-bytes %" PRId64 ": %" PRIu64 " objects of %u bytes (%u-byte slots) per "
			       "thread, over the 2^30 one thread loads: lower --class-bytes or add threads", bytes, per,
			       p->size, p->slot);
	p->objects = (uint32_t)per;
	p->frees = (uint32_t)llround(p->objects * p->free_ratio);
	return 0;
}

/* The VA blocks the load fills: each heap thread fills its own blocks
 * (the server's worker w serves client thread t of every client rank when
 * t mod W = w; --bench local: one heap thread per loading thread), and
 * the latency bench allocates one more object per thread while it times
 * Alloc. */
static uint64_t load_blocks(const corm_point *p, const nm_base *b)
{
	if (p->bench == CORM_BENCH_COLLECTION)   /* one object, so one block, per worker */
		return p->server_threads;
	uint64_t n = p->objects + (p->bench == CORM_BENCH_LATENCY), slots = p->slots;
	if (p->bench == CORM_BENCH_LOCAL)
		return (uint64_t)b->threads * ((n + slots - 1) / slots);
	uint64_t W = p->server_threads, T = (uint64_t)b->threads, R = (uint64_t)(b->nranks - 1);
	uint64_t q = T / W, r = T % W, big = (q + 1) * R * n, small = q * R * n;
	return r * ((big + slots - 1) / slots) + (W - r) * ((small + slots - 1) / slots);
}

/* What every load must fit: keys of 32 bits over all loading threads, and
 * the heap's VA region (--va-blocks) for its blocks, else a line naming
 * what to change rather than failed allocations mid-run. */
static int load_fits(const corm_point *p, const nm_base *b, char *err, size_t len)
{
	if (p->bench == CORM_BENCH_REMAP)   /* loads nothing */
		return 0;
	/* the collection bench loads no client's objects: -K does not count */
	uint64_t loaders = corm_loaders(p, b->nranks, b->threads), all = loaders * p->objects;
	if (all > UINT32_MAX && p->bench != CORM_BENCH_COLLECTION)
		return nm_errf(err, len, "%" PRIu64 " objects in all (%u per thread x %" PRIu64 " threads): keys are 32 "
			       "bits; lower -K, --live-objects or --class-bytes, or the threads", all, p->objects, loaders);
	uint64_t blocks = load_blocks(p, b);
	if (blocks > p->va_blocks)
		return nm_errf(err, len, "--va-blocks %u: the load takes %" PRIu64 " blocks (%u objects of %u bytes per "
			       "thread, %u to a %u-byte block); %s", p->va_blocks, blocks, p->objects, p->size, p->slots,
			       p->block_size, blocks > (1u << 24) ? "more than --va-blocks' maximum (2^24): load fewer "
			       "objects or raise --block-size" : "raise --va-blocks to that or more");
	return 0;
}

/* The objects each client thread loads and frees: -K and --free-ratio,
 * --live-objects or --class-bytes (which excludes the other two); the
 * server's workers. */
int corm_objects_of(const json_t *pt, const nm_base *b, corm_point *p, char *err, size_t len)
{
	int64_t live = nm_cfg_int(pt, "live_objects"), bytes = nm_cfg_int(pt, "class_bytes");
	int64_t st = nm_cfg_int(pt, "server_threads");
	p->server_threads = (uint32_t)(st ? st : b->threads);
	p->frees = (uint32_t)llround(p->objects * p->free_ratio);
	if (bytes && live)
		return nm_errf(err, len, "--class-bytes and --live-objects both set the object count: give one of them");
	if (bytes && p->objects != CORM_OBJECTS_DEF)
		return nm_errf(err, len, "--class-bytes and -K %u both set the object count: give one of them", p->objects);
	int rc = 0;
	if (bytes)
		rc = from_class_bytes(bytes, corm_loaders(p, b->nranks, b->threads), p, err, len);
	else if (live)
		rc = from_live(live, (uint64_t)(b->nranks - 1) * (uint64_t)b->threads, p, err, len);
	return rc ? rc : load_fits(p, b, err, len);
}

/* Frees exactly p->frees of the thread's objects, chosen at random (a
 * partial Fisher-Yates shuffle): what leaves blocks sparse, and with
 * --live-objects exactly the live count asked for (Fig. 14's fragmented
 * heap: 2N loaded, N freed). */
static void free_random(corm_thread *th)
{
	uint32_t n = th->p->objects, *idx = nm_malloc((size_t)(n ? n : 1) * sizeof *idx);
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	uint64_t rng = nm_mix64(th->seed) | 1;
	for (uint32_t k = 0; k < th->p->frees && k < n; k++) {
		uint32_t j = k + (uint32_t)(nm_xorshift(&rng) % (n - k)), i = idx[j];
		idx[j] = idx[k];
		idx[k] = i;
		corm_ptr q = th->ptr[i];
		if (th->live[i] && corm_rpc(th->c, CORM_RPC_FREE, &q, 0, NULL, 0, NULL, 0) == CORM_OK) {
			th->live[i] = 0;
			corm_count(th, CORM_C_FREED);
		}
	}
	free(idx);
}

void corm_thread_load(corm_thread *th)
{
	uint32_t n = th->p->objects, len = payload_len(th);
	uint8_t *buf = malloc(len);
	th->ptr = calloc(n, sizeof *th->ptr);
	th->orig = calloc(n, sizeof *th->orig);
	th->live = calloc(n, 1);
	th->version = calloc(n, 1);
	if (!buf || !th->ptr || !th->orig || !th->live || !th->version)
		nm_fatal("corm: out of memory for %u pointers", n);
	for (uint32_t i = 0; i < n; i++) {
		corm_payload_fill(buf, len, key_of(th, i), 0);
		corm_status s = corm_rpc(th->c, CORM_RPC_ALLOC, &th->ptr[i], len, buf, len, NULL, 0);
		if (s != CORM_OK) {
			corm_count(th, CORM_C_ALLOC_FAIL);
			nm_error_note(&th->m->err, "the allocation of key %u failed (%s)", key_of(th, i), corm_status_names[s]);
			continue;
		}
		th->live[i] = 1;
		th->version[i] = th->ptr[i].version;
		corm_count(th, CORM_C_ALLOCATED);
	}
	free_random(th);
	memcpy(th->orig, th->ptr, n * sizeof *th->ptr);
	free(buf);
}

void corm_thread_share(corm_thread *th, const corm_ptr *table, uint32_t n)
{
	th->all = nm_malloc((size_t)n * sizeof *th->all);
	memcpy(th->all, table, (size_t)n * sizeof *th->all);
	th->nall = n;
}

/* A measured operation, for the time series (Fig. 16): intervals from the
 * common start of the measured phase, shared by every rank. */
static void count_series(corm_thread *th, uint64_t t1)
{
	nm_series_add(&th->series, nm_ticks_to_ns(t1 - th->m->start), 1);
}

/* Key generator of the throughput bench: CoRM's Zipf or uniform over the
 * thread's objects (Zipf ranks scattered by draw_key). */
static void keys_init(corm_thread *th, ycsb_gen *g)
{
	ycsb_config yc;
	ycsb_config_default(&yc);
	yc.records = th->all ? th->nall : th->p->objects;
	yc.dist = th->p->dist;
	yc.theta = th->p->theta;
	yc.seed = th->seed;
	yc.rank = (uint32_t)th->rank;
	yc.thread = (uint32_t)th->thread;
	yc.mix = (ycsb_mix){.p = {[YCSB_READ] = 1}};
	char err[256];
	if (ycsb_init(g, &yc, err, sizeof err))
		nm_fatal("corm: key generator: %s", err);
}

/* The next key: a Zipf rank goes through the job's one permutation of the
 * objects (ycsb_permute, keyed by the job's seed, the same on every client),
 * so the hot set is spread over the heap as by the authors' harness, which
 * indexes its object list shuffled at load; rank order would be allocation
 * order, the hottest objects packed in a few adjacent blocks. */
static uint32_t draw_key(const corm_thread *th, ycsb_gen *g, uint32_t n)
{
	uint64_t r = ycsb_next_key(g);
	return (uint32_t)(th->p->dist == YCSB_UNIFORM ? r : ycsb_permute(r, n, th->key_seed));
}

/* The objects the measured loop draws from: the thread's own, or with
 * --keys shared every client's, where an object's index is its key. */
static bool drawn_live(const corm_thread *th, uint32_t i) { return th->all ? th->all[i].addr != 0 : th->live[i]; }
static corm_ptr *drawn_ptr(corm_thread *th, uint32_t i) { return th->all ? &th->all[i] : &th->ptr[i]; }
static corm_want drawn_want(const corm_thread *th, uint32_t i)
{
	return th->all ? (corm_want){i, -1} : want_own(th, i);
}

/* An RPC write of drawn object i with a fresh stamp; *t0 and *t1 bracket
 * the RPC alone. */
static void write_obj(corm_thread *th, uint32_t i, uint8_t *buf, uint32_t stamp, uint64_t *t0, uint64_t *t1)
{
	uint32_t len = payload_len(th);
	corm_payload_fill(buf, len, drawn_want(th, i).key, stamp);
	*t0 = nm_ticks();
	corm_status s = corm_rpc(th->c, CORM_RPC_WRITE, drawn_ptr(th, i), 0, buf, len, NULL, 0);
	*t1 = nm_ticks();
	if (s != CORM_OK) {
		corm_count(th, CORM_C_LOST);
		nm_error_note(&th->m->err, "the RPC write of key %u found no object (%s)", drawn_want(th, i).key,
			      corm_status_names[s]);
	} else if (!th->all)
		th->version[i] = th->ptr[i].version;
	corm_count(th, CORM_C_WRITES);
}

void corm_thread_readers(corm_thread *th)
{
	uint32_t n = th->all ? th->nall : th->p->objects, seq = 0, stamp = 1;
	uint32_t own = key_of(th, 0) / th->p->objects;   /* the slice of the shared table this thread loaded */
	uint8_t *buf = malloc(payload_len(th));
	ycsb_gen g;
	keys_init(th, &g);
	uint64_t rng = nm_mix64(th->seed ^ 0x5eed) | 1;
	bool sequential = th->p->bench == CORM_BENCH_COMPACTION, any = false;
	corm_read_path path = corm_thread_path(th->p, th->thread);
	for (uint32_t i = 0; i < n && !any; i++)
		any = drawn_live(th, i);
	nm_loop lp;
	nm_loop_init(&lp, th->m);
	while (any && nm_loop_next(&lp)) {
		/* Fig. 16 reads all objects in order; the others draw keys. */
		uint32_t i;
		do
			i = sequential ? seq++ % n : draw_key(th, &g, n);
		while (!drawn_live(th, i));
		bool write = th->p->write_ratio > 0 && (double)(nm_xorshift(&rng) >> 11) * 0x1.0p-53 < th->p->write_ratio;
		uint64_t t0, t1;
		if (write) {
			write_obj(th, i, buf, stamp++, &t0, &t1);
		} else {
			t0 = nm_ticks();
			read_obj(th, drawn_want(th, i), drawn_ptr(th, i), buf, path, lp.i % CONTENT_EVERY == 0, &t1);
			corm_count(th, CORM_C_READS);
		}
		if (th->all && i / th->p->objects != own)
			corm_count(th, CORM_C_SHARED_OPS);
		if (nm_loop_done(&lp, t0, t1))
			count_series(th, t1);
	}
	if (!any)
		nm_meter_skip(th->m); /* --free-ratio 1: nothing to read */
	free(buf);
}

void corm_thread_verify(corm_thread *th)
{
	uint8_t *buf = malloc(payload_len(th));
	uint64_t t1;
	for (uint32_t i = 0; i < th->p->objects; i++) {
		if (!th->live[i])
			continue;
		corm_ptr q = th->orig[i]; /* the pointer from before any compaction */
		corm_got got = read_obj(th, want_own(th, i), &q, buf, CORM_READ_DIRECT, true, &t1);
		corm_count(th, CORM_C_VERIFIED);
		static const corm_counter via[] = {[GOT_DIRECT] = CORM_C_VERIFY_DIRECT, [GOT_SCAN] = CORM_C_VERIFY_SCAN,
						   [GOT_RPC] = CORM_C_VERIFY_RPC};
		if (got != GOT_LOST)
			corm_count(th, via[got]);
		th->ptr[i] = q;
	}
	free(buf);
}

void corm_thread_unload(corm_thread *th)
{
	for (uint32_t i = 0; i < th->p->objects; i++)
		if (th->live[i] && corm_rpc(th->c, CORM_RPC_FREE, &th->ptr[i], 0, NULL, 0, NULL, 0) == CORM_OK) {
			th->live[i] = 0;
			corm_count(th, CORM_C_UNLOADED);
		}
}

static inline void lat_add(corm_thread *th, bool measured, corm_lat k, uint64_t t0, uint64_t t1)
{
	if (measured)
		nm_meter_kind(th->m, k, nm_ticks_to_ns(t1 - t0));
}

/* The raw baselines, Alloc and Free of a fresh object (Fig. 9). */
static void lat_raw_alloc(corm_thread *th, bool on, const corm_ptr *p, uint8_t *wbuf, uint32_t stamp)
{
	corm_conn *c = th->c;
	uint32_t len = payload_len(th);
	uint64_t t0 = nm_ticks();
	if (corm_raw_read(c, p->addr, p->rkey, c->cls->size[p->cls]))
		corm_count(th, CORM_C_READ_REFUSED); /* no sample: a refusal is not a read's latency */
	else
		lat_add(th, on, CORM_LAT_RAW_READ, t0, nm_ticks());
	t0 = nm_ticks();
	corm_rpc(c, CORM_RPC_NOP, NULL, 0, NULL, 0, NULL, 0);
	lat_add(th, on, CORM_LAT_RAW_RPC, t0, nm_ticks());
	corm_ptr fresh;
	corm_payload_fill(wbuf, len, 0xffffffffu, stamp);
	t0 = nm_ticks();
	corm_status s = corm_rpc(c, CORM_RPC_ALLOC, &fresh, len, wbuf, len, NULL, 0);
	lat_add(th, on, CORM_LAT_ALLOC, t0, nm_ticks());
	if (s != CORM_OK) {
		corm_count(th, CORM_C_ALLOC_FAIL);
		return;
	}
	t0 = nm_ticks();
	corm_rpc(c, CORM_RPC_FREE, &fresh, 0, NULL, 0, NULL, 0);
	lat_add(th, on, CORM_LAT_FREE, t0, nm_ticks());
}

/* An indirect pointer as the authors make one: the right block, a wrong
 * offset (the block's start, or its second slot when the object is at the
 * start). */
static corm_ptr indirect(const corm_conn *c, const corm_ptr *p, uint32_t slot_size)
{
	corm_ptr ind = *p;
	ind.addr = corm_ptr_base(p, c->block_size) + (corm_ptr_off(p, c->block_size) ? 0 : slot_size);
	return ind;
}

/* Object i's reads and write (Figs. 9 and 10). */
static void lat_object(corm_thread *th, bool on, uint32_t i, uint8_t *buf, uint8_t *wbuf, uint32_t stamp)
{
	corm_conn *c = th->c;
	corm_ptr *p = &th->ptr[i];
	uint32_t len = payload_len(th), ss = c->cls->size[p->cls];
	uint64_t t0 = nm_ticks(), t1;
	read_obj(th, want_own(th, i), p, buf, CORM_READ_RPC, true, &t1);
	lat_add(th, on, CORM_LAT_READ_RPC, t0, t1);
	corm_payload_fill(wbuf, len, key_of(th, i), stamp);
	t0 = nm_ticks();
	corm_status s = corm_rpc(c, CORM_RPC_WRITE, p, 0, wbuf, len, NULL, 0);
	lat_add(th, on, CORM_LAT_WRITE_RPC, t0, nm_ticks());
	if (s == CORM_OK)
		th->version[i] = p->version;
	t0 = nm_ticks();
	read_obj(th, want_own(th, i), p, buf, CORM_READ_DIRECT, true, &t1);
	lat_add(th, on, CORM_LAT_DIRECT, t0, t1);
	t0 = nm_ticks();
	corm_slot_state st = corm_scan_read(c, p, buf, len);
	t1 = nm_ticks();
	if (st == CORM_SLOT_OK)
		judge(th, want_own(th, i), buf, p->version, true);
	lat_add(th, on, CORM_LAT_SCAN, t0, t1);
	/* The RPC read corrects an indirect pointer. */
	corm_ptr ind = indirect(c, p, ss);
	t0 = nm_ticks();
	read_obj(th, want_own(th, i), &ind, buf, CORM_READ_RPC, true, &t1);
	lat_add(th, on, CORM_LAT_INDIRECT_RPC, t0, t1);
	/* ReleasePtr as Fig. 10 times it: on an indirect pointer, so that the
	 * server's search for the object is part of it (the read above has
	 * corrected ind: a fresh one) */
	ind = indirect(c, p, ss);
	t0 = nm_ticks();
	s = corm_rpc(c, CORM_RPC_RELEASE, &ind, 0, NULL, 0, NULL, 0);
	lat_add(th, on, CORM_LAT_RELEASE, t0, nm_ticks());
	if (s != CORM_OK) {
		corm_count(th, CORM_C_LOST);
		nm_error_note(&th->m->err, "ReleasePtr of key %u through an indirect pointer found no object (%s)",
			      key_of(th, i), corm_status_names[s]);
	}
	th->m->c[CORM_C_READS] += 3;   /* the RPC, direct and indirect reads */
	corm_count(th, CORM_C_WRITES);
}

/* Fig. 9 and 10: each operation alone, one at a time, on the loaded
 * objects; one iteration of the measured loop is one of each (a "round"),
 * each timed on its own into its histogram. */
void corm_thread_latency(corm_thread *th)
{
	uint32_t n = th->p->objects, len = payload_len(th);
	uint8_t *buf = malloc(len), *wbuf = malloc(len);
	uint32_t live_n = 0, *live = malloc(n * sizeof *live), stamp = 1;
	for (uint32_t i = 0; i < n; i++)
		if (th->live[i])
			live[live_n++] = i;
	if (!live_n)
		nm_fatal("corm latency: no object left after the load (--free-ratio 1?)");
	nm_loop lp;
	nm_loop_init(&lp, th->m);
	while (nm_loop_next(&lp)) {
		bool on = nm_loop_measured(&lp);
		uint32_t i = live[lp.i % live_n];
		uint64_t t0 = nm_ticks();
		lat_raw_alloc(th, on, &th->ptr[i], wbuf, stamp);
		lat_object(th, on, i, buf, wbuf, stamp++);
		nm_loop_done(&lp, t0, nm_ticks());
	}
	free(live);
	free(buf);
	free(wbuf);
}
