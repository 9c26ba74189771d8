/* One point's NUMA setup, the same for every experiment that places memory
 * and threads (netmem ops, numa-kv): this rank's placement resolved against
 * its own NIC and nodes, its registered buffer allocated on its node and
 * verified page by page after allocation and after the run, its QP/CQ rings
 * created while the main thread is bound to its home node, the local loads
 * on the ranks that carry them (the load process, server workers), where
 * every working thread ran, and at the end the point's placement record
 * (numa/record.h) and the loads' metrics.
 *
 * A run, on every rank (the calls marked collective end the job through
 * nm_boot_check when any rank fails):
 *
 *     nm_numa_point np;
 *     nm_numa_point_init(&np, dev, base->mem_node, threads);
 *     nm_numa_place_roles(&np, ...);       or nm_numa_place_all, and
 *     nm_numa_need_load(&np, &load);       where the load process runs
 *     if (nm_numa_point_settle(&np, spec, out))        collective
 *             return;                      a skipped point
 *     nm_numa_point_alloc(&np, &mr, len, huge, fill, arg); collective
 *     nm_numa_point_mesh(&np, &mesh, &mesh_cfg);       collective
 *     nm_numa_point_loads_start(&np, &loads);          collective
 *     workers: nm_numa_thread_start(), nm_numa_thread_end()
 *     nm_numa_point_loads_stop(&np);                   collective
 *     placement = nm_numa_point_record(&np, rank, n);  collective
 *     nm_numa_point_load_metrics(&np, metrics);        collective
 *     nm_numa_point_free(&np);
 */
#ifndef NM_NUMA_POINT_H
#define NM_NUMA_POINT_H
#include "cache.h"
#include "hammer.h"
#include "loadproc.h"
#include "mesh.h"
#include "nodes.h"
#include "opt.h"
#include "pages.h"
#include "placement.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What the memory under study goes through on `where` ("every target rank
 * while clients measure"): the independent load process (netmem numa-load)
 * of the paper's section V-C, and the cache state of the buffer when the
 * clients start (section VII, numa/cache.h): options. */
#define NM_OPT_NUMA_LOAD(where)                                                                    \
	{"cache", 0, NM_OPT_ENUM, "warm", 0, 0, NM_CACHE_MODES, NM_OPT_LIST,                       \
	 "cache state of the memory clients access (a target's, the server's), set before they start: warm (every " \
	 "line written back by a thread on the buffer's node) or flush (then flushed out of every " \
	 "cache: clflush; NUMA section VII)"},                                                     \
	{"load-threads", 0, NM_OPT_INT, "0", 0, 4096, NULL, NM_OPT_LIST,                           \
	 "an independent load process (netmem numa-load) on " where ": its threads (NUMA section V-C)"}, \
	{"load-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,                              \
	 "its node: nic, other, a node number, or any (NUMA-agnostic: threads over every core, "    \
	 "buffer interleaved over every node)"},                                                   \
	{"load-buf", 0, NM_OPT_SIZE, "64M", 8, 1ll << 44, NULL, NM_OPT_LIST, "its buffer size"},    \
	{"load-mix", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, NM_OPT_LIST,                             \
	 "its fraction of accesses that store"}

/* The one-sided roles' placement (nm_numa_place_roles): options. */
#define NM_OPT_NUMA_ROLES                                                                          \
	{"buf-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,                                \
	 "NUMA node of each target rank's registered memory, resolved on every rank against its own " \
	 "NIC: nic (the NIC's node), other (the nearest other node), a node number, or any (the "   \
	 "kernel's policy, or --mem-node)"},                                                       \
	{"cpu-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,                                \
	 "NUMA node whose cores run the initiator threads; on ranks that only initiate also the node " \
	 "of their memory and QP/CQ rings: nic, other, a node number, or any"}

/* Server workers (numa/hammer.h), the paper's Fig. 5: options. */
#define NM_OPT_NUMA_WORKERS                                                                        \
	{"server-workers", 0, NM_OPT_INT, "0", 0, 1024, NULL, NM_OPT_LIST,                         \
	 "CPU threads on every target rank hammering the slots clients access, pinned to the "     \
	 "buffer's node, running while clients measure (NUMA Fig. 5)"},                            \
	{"server-op", 0, NM_OPT_ENUM, "mixed", 0, 0, NM_HAMMER_OPS, NM_OPT_LIST,                   \
	 "what server workers do: read, write, mixed (--server-write-ratio stores), cas or faa "    \
	 "(CPU atomics); stores keep the values clients check"},                                   \
	{"server-write-ratio", 0, NM_OPT_DOUBLE, "0.9", 0, 1, NULL, NM_OPT_LIST,                   \
	 "mixed: fraction of server-worker accesses that store"}

typedef struct nm_numa_load {
	int threads;            /* 0: no load process */
	nm_place node;
	int64_t buf;
	double mix;
	nm_cache_mode cache;    /* the buffer's cache state at the start */
} nm_numa_load;

/* Decodes the NM_OPT_NUMA_ROLES options of a point; --mem-node (mem_node
 * >= 0) puts everything on one node and so excludes them. 0, or -1 with err. */
int nm_numa_roles_decode(const json_t *pt, int mem_node, nm_place *buf, nm_place *cpu, char *err, size_t errlen);
/* Decodes the NM_OPT_NUMA_LOAD options of a point: 0, or -1 with err. */
int nm_numa_load_decode(const json_t *pt, nm_numa_load *l, char *err, size_t errlen);
/* The NM_OPT_NUMA_WORKERS options: threads, op and write_ratio. */
nm_hammer_cfg nm_numa_workers_decode(const json_t *pt);

/* What a rank runs beside the measured threads, while they measure. */
typedef struct nm_numa_loads {
	nm_numa_load load;       /* the same on every rank (threads 0: none) */
	nm_hammer_cfg workers;   /* server workers: threads and op the same on every
				  * rank (threads 0: none); node and image are set
				  * here: they store what the area holds when they
				  * start, which keeps clients' checks exact */
	bool here;               /* this rank carries them (it holds the memory under study) */
	uint64_t seed;
} nm_numa_loads;

typedef struct nm_numa_point {
	nm_dev *dev;
	nm_numa_view view;
	nm_nic_numa nic;
	int harness_node;        /* --mem-node, -1 */
	/* This rank's nodes (-1: any), set by the placement rules between init
	 * and settle; settle puts memory, threads and workers that have none on
	 * --mem-node, and QP/CQ rings only when they follow the buffer. */
	int mem_node, qp_node, thread_node, worker_node, load_node;
	char mem_request[64];    /* how the buffer's node was asked for */
	bool one_node;           /* QP/CQ rings follow the buffer (nm_numa_place_all) */
	const char *role;        /* "initiator", "server", ... (the record's) */
	long misplace_at;        /* testing (--inject misplace): >= 0 moves the page
				  * holding this byte of the buffer off its node before
				  * registration; settle refuses it on one node */
	/* the first request this rank could not honour */
	const char *bad;
	char why[512];
	/* what the steps found */
	const nm_mr *mr;
	nm_page_census census[2];
	int misplaced_to;
	char qp_policy[128];
	int nthreads;
	nm_cpu_place *cp;        /* [nthreads] */
	bool *working;           /* [nthreads]: in the record */
	nm_numa_loads loads;
	nm_hammer hammer;
	uint64_t *image;
	nm_loadproc proc;
	json_t *load_result;     /* the load process's final line */
	nm_cache_record cache;   /* the cache pass over the buffer (where loads are) */
	/* the job's verdict (nm_numa_point_record) */
	bool ok;
	char first[600];
} nm_numa_point;

/* Loads this host's view; every node -1. */
void nm_numa_point_init(nm_numa_point *np, nm_dev *dev, int harness_node, int nthreads);
void nm_numa_point_free(nm_numa_point *np);

/* The placement rules, on the rank's own NIC and nodes; then
 * nm_numa_need_load on the rank that runs the load process.
 *
 * One-sided roles (netmem ops): a target's buffer goes to buf (it holds
 * what initiators access), an initiator's threads to cpu, and the memory
 * of a rank that only initiates to cpu too, as the paper's client binds
 * all its resources to one node. QP and CQ rings go with the threads on a
 * rank that initiates (they poll those CQs), else with the buffer (the
 * paper binds the whole server process to the buffer's node); server
 * workers go with the buffer. */
void nm_numa_place_roles(nm_numa_point *np, bool initiator, bool target, const nm_place *buf,
			 const nm_place *cpu);
/* Everything of the rank on one node (numa-kv's sides): its buffer, threads
 * and QP/CQ rings; `what` names the request in a reason. */
void nm_numa_place_all(nm_numa_point *np, const char *key, const char *what, const nm_place *p);

/* Resolves p into *node unless an earlier request failed; a failure is
 * remembered under the option's key (its JSON name) and `what` (how the
 * user wrote it, for the reason). */
void nm_numa_need(nm_numa_point *np, const char *key, const char *what, const nm_place *p,
		  nm_place_need need, int *node);
/* The load process's node (CPUs and memory), when it has threads. */
void nm_numa_need_load(nm_numa_point *np, const nm_numa_load *l);
/* A request this host cannot honour for another reason. */
void nm_numa_refuse(nm_numa_point *np, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Collective: 1 when the point is skipped (rank 0's out says why), 0 to
 * run; a single value no rank can honour ends the job (exit 2). */
int nm_numa_point_settle(nm_numa_point *np, const json_t *spec, json_t *out);

/* What a workload writes into its buffer before registration (buf: the
 * whole mapping, zeroed). */
typedef void (*nm_numa_fill)(void *arg, void *buf);
/* Collective: mr on mem_node, zeroed and then filled (fill may be NULL) by
 * a thread bound to that node (nm_numa_run_on; the calling thread when no
 * node is chosen), registered, its pages counted. */
void nm_numa_point_alloc(nm_numa_point *np, nm_mr *mr, size_t len, bool hugepages, nm_numa_fill fill, void *arg);
/* Collective: nm_mesh_create with the calling thread bound to qp_node. */
void nm_numa_point_mesh(nm_numa_point *np, nm_mesh *mesh, const nm_mesh_cfg *cfg);
/* Collective: on a rank that carries the loads (here), sets the buffer's
 * cache state (l->load.cache), then starts the loads and waits until they
 * run. */
void nm_numa_point_loads_start(nm_numa_point *np, const nm_numa_loads *l);
/* Collective, after every rank's measured threads are done. */
void nm_numa_point_loads_stop(nm_numa_point *np);

/* Worker side, after pinning and after the work: a working thread is
 * meant for thread_node and goes into the record. */
void nm_numa_thread_start(nm_numa_point *np, int index, int cpu, bool working);
void nm_numa_thread_end(nm_numa_point *np, int index);
/* Collective: every rank's worker CPUs by rank at rank 0 (NULL elsewhere). */
json_t *nm_numa_point_cpus(const nm_numa_point *np);

/* Collective, after the run: the buffer's pages counted again, every
 * rank's record gathered; at rank 0 the job's record (NULL elsewhere), and
 * there np->ok and np->first, the first mismatch. */
json_t *nm_numa_point_record(nm_numa_point *np, int rank, int nranks);
/* Rank 0, after the record: checks.placement {ok, first_error?}, and
 * checks.first_error: first (the workload's own first error, or NULL), else
 * the placement's. */
void nm_numa_point_checks(const nm_numa_point *np, json_t *checks, const char *first);
/* Collective: the loads' work summed over ranks; at rank 0 (metrics may be
 * NULL elsewhere) "server_workers" {threads, op, ops, ops_per_sec} and
 * "load" {ops, ops_per_sec}, each when the point has them. */
void nm_numa_point_load_metrics(const nm_numa_point *np, json_t *metrics);
#endif
