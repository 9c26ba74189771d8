/* netmem corm's client threads (workloads/corm_bench.c): what each bench
 * does on a client, and the tallies they return to workloads/corm.c. */
#ifndef NM_CORM_BENCH_H
#define NM_CORM_BENCH_H
#include "corm.h"
#include "experiment.h"
#include "stats.h"
#include "ycsb.h"

typedef enum { CORM_BENCH_LATENCY, CORM_BENCH_THROUGHPUT, CORM_BENCH_COMPACTION, CORM_BENCH_REMAP, CORM_NBENCH } corm_bench;
extern const char *const corm_bench_names[CORM_NBENCH];
typedef enum { CORM_READ_DIRECT, CORM_READ_RPC, CORM_NREAD } corm_read_path;
extern const char *const corm_read_names[CORM_NREAD];

typedef struct corm_point {
	corm_bench bench;
	corm_remap strategy;
	corm_read_path read;
	uint32_t block_size, size, objects;
	double free_ratio, write_ratio, theta, compact_at, occupancy, interval;
	ycsb_dist dist;
	uint32_t va_blocks;
	bool inject_no_id_check;
} corm_point;

/* Counts every run reports (summed over client threads and ranks; kept a
 * struct of u64 so it travels as an array). */
typedef struct corm_tally {
	uint64_t allocated, freed, alloc_fail;
	uint64_t reads, writes;
	uint64_t direct_ok, direct_miss, direct_retry;   /* miss: not found; retry: locked/torn */
	uint64_t direct_miss_device;  /* misses the device limit explains (corm_devlimit) */
	uint64_t scan_ok, scan_miss, rpc_ok;
	uint64_t scan_miss_device;
	uint64_t lost;          /* an object its owner never freed, not found by RPC */
	uint64_t stale;         /* accepted bytes of another object or version */
	uint64_t torn_content;  /* stamps agreed, content did not: retried (see README) */
	uint64_t verified;      /* survivors read back after compaction */
	uint64_t verify_direct, verify_scan, verify_rpc;
} corm_tally;

/* A limit of the server's device found by the probe, sent to the clients:
 * with odp_offset_bug a one-sided READ that does not start at a page start
 * (page bytes) returns wrong bytes, and a multi-packet READ is wrong after
 * its first packet, whatever the compaction does. */
typedef struct corm_devlimit {
	uint32_t odp_offset_bug;
	uint32_t page;
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
	int rank, thread, nthreads;
	uint64_t seed, iters;
	double duration;
	corm_devlimit lim;
	corm_tally t;
	nm_hist lat[CORM_NLAT];
	uint64_t series[CORM_SERIES_MAX];   /* reads completed per interval */
	corm_ptr *ptr, *orig;                /* current (corrected) and original pointers */
	uint8_t *live;
	uint8_t *version;
	uint64_t t0;                         /* the phase's start (ticks), shared */
	void (*body)(struct corm_thread *);  /* what the thread runs in this phase */
} corm_thread;

void corm_thread_load(corm_thread *th);       /* allocate, then free free_ratio of them */
void corm_thread_readers(corm_thread *th);    /* read loop for `duration` (compaction, throughput) */
void corm_thread_verify(corm_thread *th);     /* every survivor through its original pointer */
void corm_thread_latency(corm_thread *th);    /* the latency bench */
void corm_thread_unload(corm_thread *th);     /* free every survivor */

/* --bench remap on the server (workloads/corm_remap.c): fills out's
 * metrics, checks and valid. */
void corm_remap_bench(nm_ctx *ctx, const corm_point *p, corm_remap strat, json_t *out);
#endif
