/* CPU threads that hammer a buffer until told to stop: the paper's local
 * loads. Two uses:
 *
 * Server workers (section V-D, Fig. 5): threads on a target rank, pinned to
 * the cores of the registered buffer's node, walking the words that clients
 * READ and WRITE (sequentially from a per-thread offset, as the authors'
 * workers do) with loads, stores, a read/write mix, CAS or FAA. Stores write
 * `image`, the content the clients' checks expect (the data pattern), CAS
 * swaps a word for itself and FAA adds 0: the cache line is really written or
 * locked (it ends Modified in the worker's cache and the NIC's DMA has to
 * snoop it, which is the effect under study) while the content stays what the
 * checks expect, so client READs and WRITEs are still verified exactly. The
 * price: with a writing worker, a client WRITE that never landed would go
 * unnoticed (its slot already holds the pattern); misdirected or torn writes
 * are still caught.
 *
 * Independent load (section V-C): the threads of a separate process
 * (netmem numa-load) doing random 8-byte loads and stores of random values
 * over a private buffer, `write_ratio` of them stores.
 *
 * Decisions: workers check the stop flag every 256 accesses and do not read
 * the clock per access (the authors' workers call clock_gettime per access,
 * which throttles them); ops counted are accesses; threads are pinned with
 * hwloc (harness/topo.c: distinct cores first, then SMT siblings, then
 * stacking), which the paper leaves open; more threads than cores is allowed
 * and recorded (oversubscribed). */
#ifndef NM_NUMA_HAMMER_H
#define NM_NUMA_HAMMER_H
#include "placement.h"
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { NM_HAMMER_READ, NM_HAMMER_WRITE, NM_HAMMER_MIXED, NM_HAMMER_CAS, NM_HAMMER_FAA };
#define NM_HAMMER_OPS "read,write,mixed,cas,faa"
int nm_hammer_op(const char *name);        /* -1 if unknown */
const char *nm_hammer_op_name(int op);

typedef struct nm_hammer_cfg {
	int threads;
	int op;                 /* NM_HAMMER_* */
	double write_ratio;     /* MIXED: fraction of stores */
	int node;               /* pin to this node's cores; -1 = any core */
	int cpu_offset;         /* first index handed to nm_topo_pick_cpu */
	bool random;            /* random words (load) or sequential (workers) */
	void *area;             /* 8-byte aligned */
	size_t len;             /* bytes; whole words are used */
	const uint64_t *image;  /* stores write image[word]; NULL: random values */
	size_t stride;          /* sequential: thread i starts at byte i*stride */
	uint64_t seed;
} nm_hammer_cfg;

typedef struct nm_hammer_thread {
	struct nm_hammer *h;
	int index;
	pthread_t tid;
	uint64_t ops, sink, cas_failed;
	nm_cpu_place cp;
} nm_hammer_thread;

typedef struct nm_hammer {
	nm_hammer_cfg c;
	nm_hammer_thread *t;
	atomic_int ready, stop;
	uint64_t start_ns, stop_ns;
	int ncores;             /* cores of the node (or machine) they share */
} nm_hammer;

/* Starts the threads and returns once every one is pinned and running.
 * cfg.threads == 0 starts nothing. 0, or -1 with err. */
int nm_hammer_start(nm_hammer *h, const nm_hammer_cfg *cfg, char *err, size_t errlen);
/* Stops and joins them (no-op when none were started). */
void nm_hammer_stop(nm_hammer *h);
uint64_t nm_hammer_ops(const nm_hammer *h);
double nm_hammer_seconds(const nm_hammer *h);
/* {"threads", "op", "write_ratio"?, "ops", "seconds", "ops_per_sec",
 *  "cas_failed"?, "oversubscribed"} */
json_t *nm_hammer_json(const nm_hammer *h);
/* Array of every thread's nm_cpu_place_json; *ok false (and why) on a
 * mismatch with the intended node. */
json_t *nm_hammer_placement(const nm_hammer *h, const char *what, bool *ok, char *why, size_t len);
void nm_hammer_free(nm_hammer *h);
#endif
