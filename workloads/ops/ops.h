/* netmem ops, shared between the experiment (ops.c: options, points, set-up,
 * checks across ranks, the result) and its measured loops (ops_loop.c). */
#ifndef NM_OPS_H
#define NM_OPS_H
#include "experiment.h"
#include "mesh.h"
#include "rdma.h"
#include "rng.h"
#include "stats.h"
#include "workers.h"
#include "../../numa/point.h"

#define SERIES_CAP 4096
#define CAS_BASE 64

typedef enum { MODE_LAT, MODE_BW } ops_mode;
typedef enum { INJECT_NONE, INJECT_CORRUPT, INJECT_RKEY, INJECT_MISPLACE } ops_inject;

/* Offsets in every rank's region (see the header comment of ops.c). */
typedef struct layout {
	size_t size;       /* bytes per op */
	size_t slot;       /* size rounded to 64: local buffers */
	size_t stride;     /* distance between remote slots: slot, or size with --packed */
	size_t data;       /* offset of remote slots */
	size_t local;      /* offset of per-thread local areas */
	int nslots;
} layout;

/* One point, decoded once. */
typedef struct ops_point {
	int op;                   /* NM_OP_* */
	ops_mode mode;
	int window, batch, qps;   /* --tx-depth and --cq-mod resolved */
	int inline_size;          /* -I resolved: without it, perftest's default for the mode */
	int nranks;
	uint8_t *matrix;          /* [from * nranks + to]: from initiates to */
	layout l;
	uint64_t interval_ns;
	nm_place buf, cpu;
	nm_hammer_cfg workers;    /* threads, op, write_ratio */
	nm_numa_load load;
	ops_inject inject;
} ops_point;

/* Slot of (initiator rank, thread, QP) at any target. */
static inline int slot_id(int rank, int t, int q, int T, int Q) { return (rank * T + t) * Q + q; }

static inline uint64_t read_owner(int target, int slot) { return ((uint64_t)target << 32) | (uint32_t)slot | 1ull << 62; }
static inline uint64_t write_owner(int slot) { return (uint64_t)slot | 1ull << 63; }

/* The tally: data checked after the run and those that failed; targets
 * whose FAA counter is wrong. */
enum { C_CHECKED, C_MISMATCHES, C_FAA_WRONG, C_N };
/* Per connection; aligned so that no two threads' tallies share a line. */
typedef struct conn_state {
	nm_wr wr;                /* the connection's operation, built once (rdma.h) */
	nm_conn *c;
	uint8_t *buf;            /* local buffer for this connection */
	uint64_t raddr;          /* remote slot */
	uint64_t cas_raddr;
	uint64_t cas_seq;        /* next expected value of our CAS word */
	uint64_t faa_last;       /* last FAA value returned (lat mode) */
	uint64_t sent;           /* operations posted: the FAA totals are made of these */
	uint64_t *fifo;          /* post ticks of outstanding signaled batches */
	uint32_t head, tail, mask;
	/* measured samples only (metrics.per_qp): their summed latency in
	 * ticks, their number (one per operation in lat mode, one per signaled
	 * batch in bw mode) and, in bw mode, the operations they retired */
	uint64_t lat_ticks, lat_samples, ops;
} __attribute__((aligned(64))) conn_state;

/* The throughput series without a division per completion: completions
 * count into the current interval until the clock passes its end; only
 * then is the next interval's index computed. */
typedef struct series_clock {
	uint64_t width, end;     /* ticks */
	size_t i;
	uint64_t pending;
} series_clock;

typedef struct ops_thread {
	conn_state *cs;
	int nconn;
	uint32_t slot;           /* next atomic result slot, 0..W-1 */
	uint8_t *verify;
	uint64_t *results;       /* one word per window entry: atomics' old values */
	nm_series series;
	series_clock sc;
} __attribute__((aligned(64))) ops_thread;

typedef struct ops_job {
	const ops_point *p;
	int op, rank, T, W, batch;   /* the hot paths' copies of the point */
	uint32_t size;
	bool initiator, target;
	int nconn;                   /* per thread */
	int max_rd_atomic;           /* outstanding READs/atomics per QP, as requested */
	size_t thread_area;
	double timeout;
	nm_numa_point np;
	nm_mesh mesh;
	nm_mr mr;
	ops_thread *th;
} ops_job;

/* The worker round's entry points (ops_loop.c): a thread's connections and
 * work requests, then its measured loop and the unmeasured checks. */
void ops_thread_setup(nm_worker *w);
void ops_thread_body(nm_worker *w);
#endif
