/* The "placement" record of a result point: per rank, the intended and
 * actual node of its registered buffer (page census after allocation and
 * after the run), of each working thread's CPU, of its QP/CQ rings (the node
 * the creating thread was bound to; the rings themselves cannot be seen from
 * user space), of server workers, of an independent load process and of the
 * pass that set the buffer's cache state (numa/cache.h), plus its
 * NIC's node; and job-wide whether the numbers are NUMA-real. A mismatch
 * anywhere makes the record not ok, and the experiment marks the point
 * invalid. */
#ifndef NM_NUMA_RECORD_H
#define NM_NUMA_RECORD_H
#include "cache.h"
#include "hammer.h"
#include "nodes.h"
#include "pages.h"
#include "placement.h"
#include <jansson.h>

typedef struct nm_rank_place {
	const char *role;               /* "initiator", "target", "both", "client", "server", ... */
	const nm_numa_view *view;
	const nm_nic_numa *nic;
	bool emulated;                  /* the NIC is Soft-RoCE / siw */
	const char *mem_request;        /* e.g. "nic", "--mem-node 1" */
	int mem_node;                   /* intended, -1 = any */
	size_t mem_bytes;
	const nm_page_census *census;   /* [2]: after allocation, after the run */
	int misplaced_to;               /* --inject misplace, -1 */
	int qp_node;                    /* node the QP/CQ creator was bound to, -1 */
	const char *qp_policy;
	const nm_cpu_place *threads;    /* working threads */
	const int *thread_ids;          /* their indexes */
	int nthreads;
	const nm_hammer *workers;       /* server workers, or NULL */
	int worker_node;
	const json_t *load;             /* the load process's final JSON, or NULL */
	const nm_cache_record *cache;   /* the buffer's cache pass, or NULL */
} nm_rank_place;

/* This rank's record; *ok false with the first mismatch in first. */
json_t *nm_rank_place_json(int rank, const nm_rank_place *rp, bool *ok, char *first, size_t flen);
/* Collective: gathers every rank's record (consumes mine) at rank 0 and
 * returns {"numa_real", "not_numa_real": [...], "ok", "ranks": [...]} there
 * (NULL elsewhere), with *ok and first job-wide. */
json_t *nm_job_place(int rank, int nranks, json_t *mine, const char *mine_first, bool *ok, char *first,
		     size_t flen);
#endif
