/* netmem clover's version pool, sized for a point with --duration.
 *
 * Versions are never reused (workloads/clover/README.md says why), so a
 * point consumes a slot per acknowledged write; at a hardware NIC's rate a
 * fixed pool empties in under a second. With --duration, a point whose pool
 * ran out runs again with a pool sized from its duration and the write
 * rate its client threads reached before it ran out, within what the memory
 * nodes can register; at most CL_POOL_RESIZES times. Pure arithmetic here (unit-tested on the host:
 * tests/unit/test_clover_pool.c); clover.c measures and decides. */
#ifndef NM_CLOVER_POOL_H
#define NM_CLOVER_POOL_H
#include <stdint.h>

/* The pool a run-out point asks for over the writes its rate predicts: the
 * rate is an average over the first run's threads, and a thread's rate
 * varies with contention. */
#define CL_POOL_MARGIN 1.5
/* How many times a point may be sized again. A rate measured before an
 * early run-out covers a fraction of a second: a host whose speed swings
 * (a loaded or emulated one) may then run faster than it predicted, and the
 * second run, which measures over most of its duration, predicts better. */
#define CL_POOL_RESIZES 2
/* The largest pool per client thread per memory node (--slots' own bound). */
#define CL_POOL_MAX (1ull << 30)

typedef struct cl_pool_run {
	uint64_t slots;      /* the pool that ran out: slots per client thread per memory node */
	uint64_t acked;      /* writes acknowledged before each thread's first run-out, summed over threads */
	uint64_t us;         /* microseconds from each thread's first operation to its first run-out, summed */
	double duration;     /* the point's --duration, seconds */
	uint64_t warmup;     /* warm-up operations per thread (before the duration) */
	uint64_t batch;      /* slots a thread may hold unused (one allocation batch per memory node) */
	uint64_t cap;        /* the most slots per thread the memory nodes can register; 0: no bound known */
	unsigned resized;    /* how many times the point was sized again already */
} cl_pool_run;

typedef enum {
	CL_POOL_RESIZE,      /* run again with *slots */
	CL_POOL_NO_RATE,     /* no thread measured a rate (no write acknowledged before the run-out) */
	CL_POOL_AT_CAP,      /* the memory nodes cannot register a larger pool */
	CL_POOL_NO_MORE,     /* sized again CL_POOL_RESIZES times already */
} cl_pool_verdict;

/* The pool for the point's next run: *rate (writes per second per client
 * thread, measured whatever the verdict) and *slots, with the verdict. */
cl_pool_verdict cl_pool_size(const cl_pool_run *r, double *rate, uint64_t *slots);
#endif
