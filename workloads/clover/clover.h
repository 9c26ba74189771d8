/* netmem clover, shared between the experiment (clover.c: options, roles,
 * the metadata server and the packet path around a point, the result) and
 * its store (clover_store.c: chains, client threads, the walk after the run). */
#ifndef NM_CLOVER_H
#define NM_CLOVER_H
#include "kv_core.h"
#include "alloc.h"
#include "mesh.h"
#include "rdma.h"
#include "stats.h"
#include "workers.h"

/* Counters: netmem kv's (kv_done counts into them), then Clover's own. */
enum {
	CL_C_CAS = KV_C_N,  /* CAS attempts of updates */
	CL_C_CAS_FAILED,    /* ... that found a non-NULL next (lost a race or a stale cursor) */
	CL_C_READ_HOPS,     /* READs of gets beyond the first (chain chasing) */
	CL_C_WRITE_HOPS,    /* READs of updates chasing a new tail after a failed CAS */
	CL_C_RTTS,          /* round trips of every operation, warm-up included */
	CL_C_ACKED,         /* updates whose CAS succeeded, warm-up included */
	CL_C_CHAINED,       /* memory nodes: versions found on the chains after the run */
	CL_C_SHORTCUTS,     /* gets that jumped to the key's shortcut */
	CL_C_EXHAUSTED,     /* updates left unwritten: the metadata server's pool was used up */
	CL_C_X_ACKED,       /* per thread: updates acknowledged before its first run-out (clover_pool.h) */
	CL_C_X_US,          /* per thread: microseconds from its first operation to its first run-out */
	CL_C_N
};
_Static_assert(CL_C_N <= NM_COUNTERS_MAX, "clover: too many counters");

/* Where the clients' packets go: straight to the memory node, or through
 * the packet path (workloads/clover/clover_path.c) with rewriting off or on. */
typedef enum { CL_RESOLVE_NONE, CL_RESOLVE_OFF, CL_RESOLVE_ON } cl_resolve;

typedef struct cl_point {
	kv_load load;         /* keys, mix, distribution, value size: what kv's client threads read */
	char workload[32];    /* as given, or "trace" */
	int mem_nodes;        /* the last ranks */
	uint64_t slots;       /* version slots per client thread per memory node */
	cl_resolve resolve;
	uint64_t track;       /* keys the path tracks: the hottest (ranks 0..track-1) */
	int queue;            /* the path's NFQUEUE */
	bool forward;         /* --path forward: the last rank is a forwarding host's, the path runs there */
	bool memory_first;    /* --roles memory-first: the memory nodes right after rank 0, then the clients */
	ycsb_req *trace;      /* --trace: the requests every thread replays, or NULL */
	size_t trace_n;
} cl_point;

#define CL_VERSION_HDR 16   /* next, key */

/* One point on one rank. */
typedef struct cl_job {
	nm_ctx *ctx;
	const cl_point *cp;
	const kv_load *p;
	kv_thread *th;                /* [T]: kv's client threads */
	int rank, N, T, M, clients;   /* clients: client ranks */
	bool memory_first;            /* the memory nodes before the clients (--roles) */
	int F;                        /* 1: the last rank is the forwarding host's (--path forward) */
	double timeout;
	nm_mr mr;
	nm_mesh mesh;
	size_t slot_bytes, part_bytes, scratch_per_op;
	nm_hist *rtt;                 /* [T]: round trips per measured operation */
	/* test-only (NETMEM_TEST_CLOVER_FIRST_ALONE): thread 0 of each client
	 * rank finishes its first operation before the rank's other threads
	 * start, so that the packet path learns the key's tail from a CAS that
	 * was alone and every later writer's first CAS is on a stale tail, in
	 * every schedule (tests/integration/cluster/clover_path.sh) */
	bool first_alone;
	_Atomic int first_done;
} cl_job;

/* Ranks: 0 the metadata server, then the clients, then the memory nodes,
 * then (--path forward) the forwarding host's; with --roles memory-first
 * the memory nodes come before the clients, so that "hosts" can put the
 * metadata server and a memory node on one host (the testbed of Grant and
 * Snoeren, Sec. 4: one server is both). */
static inline int first_client(const cl_job *j) { return j->memory_first ? 1 + j->M : 1; }
static inline int first_mem(const cl_job *j) { return j->memory_first ? 1 : j->N - j->F - j->M; }
static inline bool is_fwd(const cl_job *j, int rank) { return j->F && rank == j->N - 1; }
static inline bool is_mem(const cl_job *j, int rank) { return rank >= first_mem(j) && rank < first_mem(j) + j->M; }
/* A memory node's index among the memory nodes (0 .. M-1), from its rank. */
static inline int mem_index(const cl_job *j, int rank) { return rank - first_mem(j); }
static inline bool is_client(const cl_job *j, int rank)
{
	return rank >= first_client(j) && rank < first_client(j) + j->clients;
}
static inline int key_node(const cl_job *j, uint64_t r) { return first_mem(j) + (int)(r % (uint64_t)j->M); }
static inline uint64_t keys_on(const cl_job *j, int m)
{
	return j->p->keys / (uint64_t)j->M + ((uint64_t)m < j->p->keys % (uint64_t)j->M);
}
/* Client thread t of client rank c: its partition index on every memory node. */
static inline uint64_t part_index(const cl_job *j, int rank, int t)
{
	return (uint64_t)(rank - first_client(j)) * (uint64_t)j->T + (uint64_t)t;
}

/* A memory node's memory: the first versions of its keys (the heads), then
 * the pool of version slots the metadata server hands out (--slots per
 * client thread of the job). */
static inline size_t heads_bytes(const cl_job *j, int m) { return nm_align64(keys_on(j, m) * j->slot_bytes); }
/* Then each key's shortcut: 8 bytes holding the VA of (nearly) its newest version. */
static inline size_t shortcuts_bytes(const cl_job *j, int m) { return nm_align64(keys_on(j, m) * 8); }
static inline size_t part_off(const cl_job *j, int m, uint64_t part)
{
	return heads_bytes(j, m) + shortcuts_bytes(j, m) + part * j->part_bytes;
}

/* The point's store on this rank (collective): registered memory laid out
 * for its role, a memory node's chains prefilled, the QPs. */
void cl_setup(cl_job *j, nm_ctx *ctx);
/* What cl_setup creates on j->rank, for netmem preflight (j as cl_job_of
 * makes it, without a context). */
void cl_needs(cl_job *j, const nm_base *b, nm_needs *n);
/* The VA of key rank r's first version on its memory node. */
uint64_t cl_head_va(const cl_job *j, uint64_t r);
/* The client threads' worker round: -T threads, one operation in flight each. */
void cl_thr_setup(nm_worker *w);
void cl_thr_body(nm_worker *w);
/* Memory node, after the run: walks its chains into ms (KV_C_BAD_SLOTS, CL_C_CHAINED). */
void cl_scan(cl_job *j, nm_measure *ms);
#endif
