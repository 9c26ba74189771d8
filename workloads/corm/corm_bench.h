/* netmem corm's client threads (workloads/corm/corm_bench.c) and the server's
 * local reads (workloads/corm/corm_local.c): what each bench does, and the
 * counters they keep in the harness's measure (harness/measure.h). */
#ifndef NM_CORM_BENCH_H
#define NM_CORM_BENCH_H
#include "corm.h"
#include "experiment.h"
#include "measure.h"
#include "stats.h"
#include "ycsb.h"

typedef enum { CORM_BENCH_LATENCY, CORM_BENCH_THROUGHPUT, CORM_BENCH_COMPACTION, CORM_BENCH_REMAP, CORM_BENCH_LOCAL,
	       CORM_BENCH_COLLECTION, CORM_NBENCH } corm_bench;
extern const char *const corm_bench_names[CORM_NBENCH];
/* How a client reads: CoRM's DirectRead (falling back as --fallback
 * says), FaRM's read and a raw READ (Fig. 11's baselines), or an RPC read;
 * BOTH (compaction bench, Fig. 16) gives half the client threads each of
 * DirectRead and RPC, side by side (corm_thread_path). */
typedef enum { CORM_READ_DIRECT, CORM_READ_FARM, CORM_READ_RAW, CORM_READ_RPC, CORM_READ_BOTH, CORM_NREAD } corm_read_path;
extern const char *const corm_read_names[CORM_NREAD];
/* Where a DirectRead that missed its object goes next (Fig. 16): CoRM's
 * ScanRead of the whole block (then RPC), or straight to an RPC read. */
typedef enum { CORM_FALLBACK_SCAN, CORM_FALLBACK_RPC, CORM_NFALLBACK } corm_fallback;
extern const char *const corm_fallback_names[CORM_NFALLBACK];
/* Which objects a client thread reads and writes: only those it allocated
 * (every read's version checked exactly), or every client's (the paper's
 * YCSB clients share the key space: Fig. 13's conflicts need it; a read's
 * object and content are checked, not its version). */
typedef enum { CORM_KEYS_OWN, CORM_KEYS_SHARED, CORM_NKEYS } corm_keys;
extern const char *const corm_keys_names[CORM_NKEYS];

/* Faults a run injects to show its checks catch them: DirectRead without
 * its ID check (stale bytes accepted: the point must be invalid), or one
 * DirectRead in CORM_REFUSE_EVERY, the first included, through a wrong key (the device refuses
 * it, the READ QP is recovered and the read falls back: the point stays
 * valid and counts direct_read_refused), or a new rkey for every remapped
 * VA (the clients must learn it: rkey_updated). */
typedef enum { CORM_INJECT_NONE, CORM_INJECT_NO_ID_CHECK, CORM_INJECT_READ_REFUSED, CORM_INJECT_NEW_RKEY, CORM_NINJECT } corm_inject;
extern const char *const corm_inject_names[CORM_NINJECT];
#define CORM_REFUSE_EVERY 50

/* -K's default: with --class-bytes, -K at it counts as not given. */
#define CORM_OBJECTS_DEF 2000
/* Objects one thread loads at most (-K and the count derived from
 * --live-objects or --class-bytes): the largest CoRM's Fig. 11 could ask,
 * 8 GiB of 8-byte payloads (2^30). */
#define CORM_MAX_OBJECTS (1u << 30)

typedef struct corm_point {
	corm_bench bench;
	corm_remap strategy;
	corm_read_path read;
	corm_fallback fallback;
	cmem_find find;          /* how the server finds a moved object (--find) */
	uint64_t max_merges;     /* the compaction's cap on merged blocks (0: none) */
	corm_keys keys;
	uint32_t block_size, size;
	uint32_t slot, slots;    /* --size's class: slot bytes, slots per block */
	uint32_t objects;        /* loaded per thread (-K, or from --live-objects or --class-bytes) */
	uint32_t frees;          /* of those, freed at random after the load */
	uint32_t server_threads; /* the server's RPC workers (--server-threads, or -T) */
	double free_ratio, write_ratio, theta, compact_at, occupancy, interval;
	ycsb_dist dist;
	uint32_t va_blocks;
	corm_inject inject;
} corm_point;

/* Counts every run reports (summed over threads and ranks by the measure;
 * also under metrics by name). */
typedef enum {
	CORM_C_ALLOCATED,
	CORM_C_FREED,
	CORM_C_ALLOC_FAIL,
	CORM_C_READS,
	CORM_C_WRITES,
	CORM_C_SHARED_OPS,         /* reads and writes of another client thread's object (--keys shared) */
	CORM_C_DIRECT_OK,          /* one-sided reads at the pointer accepted */
	CORM_C_DIRECT_MISS,        /* ... not found there (moved, freed) */
	CORM_C_DIRECT_RETRY,       /* ... found locked or torn: retried */
	CORM_C_DIRECT_FAILED,      /* reads whose first one-sided attempt found it locked or torn (Fig. 13) */
	CORM_C_DIRECT_MISS_DEVICE, /* misses the device limit explains (corm_devlimit) */
	CORM_C_READ_REFUSED,       /* one-sided READs the device refused (a remap met, rereg or ODP): fell back */
	CORM_C_SCAN_OK,
	CORM_C_SCAN_MISS,
	CORM_C_SCAN_MISS_DEVICE,
	CORM_C_RPC_OK,
	CORM_C_RKEY_UPDATED,       /* RPC replies that brought a pointer a new rkey (the server re-keyed its VA) */
	CORM_C_LOST,               /* an object its owner never freed, not found by RPC */
	CORM_C_STALE,              /* accepted bytes of another object or version */
	CORM_C_TORN_CONTENT,       /* stamps agreed, content did not: retried (see README) */
	CORM_C_VERIFIED,           /* survivors read back after the phase */
	CORM_C_VERIFY_DIRECT,
	CORM_C_VERIFY_SCAN,
	CORM_C_VERIFY_RPC,
	CORM_C_UNLOADED,           /* survivors freed at the end */
	CORM_C_LOCAL_BAD,          /* local reads (--bench local) that did not find their object */
	CORM_C_N
} corm_counter;
extern const nm_counter corm_counters[CORM_C_N];

/* A limit of the server's device found by the probe, sent to the clients:
 * with odp_offset_bug a one-sided READ that does not start at a page start
 * (page bytes) returns wrong bytes, and a multi-packet READ is wrong after
 * its first packet, whatever the compaction does. */
typedef struct corm_devlimit {
	uint32_t odp_offset_bug;
	uint32_t page;
	/* The server remaps blocks under registered MRs (rereg, ODP): a READ
	 * that meets a remap may be refused (rxe's ODP gives up on a fault
	 * that races an invalidation; a rereg'd MR is briefly invalid). */
	uint32_t remap_refusals;
} corm_devlimit;

/* Latency kinds of the latency bench. */
typedef enum { CORM_LAT_RAW_READ, CORM_LAT_RAW_RPC, CORM_LAT_ALLOC, CORM_LAT_FREE, CORM_LAT_READ_RPC,
	       CORM_LAT_WRITE_RPC, CORM_LAT_DIRECT, CORM_LAT_SCAN, CORM_LAT_INDIRECT_RPC, CORM_LAT_RELEASE,
	       CORM_NLAT } corm_lat;
extern const char *const corm_lat_names[CORM_NLAT];

#define CORM_SERIES_MAX 4096

typedef struct corm_thread {
	corm_conn *c;
	const corm_point *p;
	nm_meter *m;                         /* its counters, and the measured phase */
	int rank, thread, nthreads;
	uint64_t seed;
	uint64_t key_seed;                   /* the job's permutation of Zipf ranks (the same on every client) */
	corm_devlimit lim;
	nm_series series;                    /* operations completed per --interval */
	corm_ptr *ptr, *orig;                /* current (corrected) and original pointers */
	uint8_t *live;
	uint8_t *version;
	corm_ptr *all;                       /* NULL unless --keys shared: every client's objects by key (0: freed) */
	uint32_t nall;
	uint32_t refuse_tick;                /* --inject read-refused: DirectReads until the next wrong key */
} corm_thread;

static inline void corm_count(corm_thread *th, corm_counter k) { th->m->c[k]++; }

/* The threads that load objects: every client rank's -T threads, or with
 * --bench local the server's own -T. */
static inline uint64_t corm_loaders(const corm_point *p, int nranks, int threads)
{
	return p->bench == CORM_BENCH_LOCAL ? (uint64_t)threads : (uint64_t)(nranks - 1) * (uint64_t)threads;
}

/* Decode: the objects each client thread loads (p->objects) and frees
 * (p->frees) from -K and --free-ratio, from --live-objects over all client
 * threads, or from --class-bytes over the loading threads (p->slot set); the
 * server's workers (p->server_threads). The load must fit the keys (32 bits)
 * and the heap's VA region (--va-blocks). -1 with err on bad input. */
int corm_objects_of(const json_t *pt, const nm_base *b, corm_point *p, char *err, size_t len);
void corm_thread_load(corm_thread *th);       /* allocate, then free free_ratio of them */
/* --keys shared: the client's own copy of every client's pointers, by key,
 * which it corrects as it reads (table: n pointers, address 0 if freed). */
void corm_thread_share(corm_thread *th, const corm_ptr *table, uint32_t n);
void corm_thread_readers(corm_thread *th);    /* the measured read loop (throughput, compaction) */
/* The read path of client thread t: --read, or with BOTH a DirectRead
 * reader for even t and an RPC one for odd t. Odd, so that the RPC reader's
 * worker (t mod workers) is not worker 0, whom the compactor stands in for
 * and who owns the compacted blocks: as in the paper, the RPC client's
 * lookups of moved objects are another thread's to answer. */
static inline corm_read_path corm_thread_path(const corm_point *p, int t)
{
	return p->read != CORM_READ_BOTH ? p->read : t % 2 ? CORM_READ_RPC : CORM_READ_DIRECT;
}
void corm_thread_verify(corm_thread *th);     /* every survivor through its original pointer */
void corm_thread_latency(corm_thread *th);    /* the measured latency loop */
void corm_thread_unload(corm_thread *th);     /* free every survivor */

/* --bench local (Fig. 11, local side), on the server: its -T threads read
 * objects of its own heap with CoRM's check, FaRM's or a plain memcpy. */
void corm_local_bench(nm_ctx *ctx, const corm_point *p, cmem_heap *h, nm_measure *ms);

/* --bench collection (Fig. 15; workloads/corm/corm_collect.c), on the
 * server (h: rank 0's heap, its workers serving; NULL elsewhere): one
 * object per worker, then one compaction, timed as its collection and its
 * compaction, --iters times. Collective; fills out's metrics, checks and
 * valid on rank 0. */
void corm_collection_bench(nm_ctx *ctx, const corm_point *p, cmem_heap *h, json_t *out);

/* --bench remap (Fig. 8; workloads/corm/corm_remap.c). Collective: the
 * server runs it when `run` (false: a skipped point; the other ranks always
 * pass false) and fills out's metrics, checks and valid. */
void corm_remap_bench(nm_ctx *ctx, const corm_point *p, corm_remap strat, bool run, json_t *out);
#endif
