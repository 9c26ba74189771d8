/* netmem kv: what the entry (workloads/kv/kv.c) and the key-value systems
 * of LOCO's Fig. 5 share: the decoded point and the system interface, over
 * the shared core (kv_core.h: keys, values, checks, tally, history).
 *
 * A system (LOCO kvstore, the Sherman- and Scythe-style variants, the Redis baseline) is
 * one kv_system: it sets up its store, prefills it, and runs its client
 * threads, each keeping up to --window operations in flight; every
 * operation it completes goes through kv_done() (kv_core.h). */
#ifndef NM_KV_H
#define NM_KV_H
#include "kv_core.h"
#include "experiment.h"
#include "workers.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum { KV_LOCO, KV_SHERMAN, KV_REDIS, KV_SCYTHE, KV_REDIS_PIPELINED, KV_NSYSTEMS } kv_system_id;
/* Either Redis series: the same servers, two clients. */
static inline bool kv_is_redis(kv_system_id s) { return s == KV_REDIS || s == KV_REDIS_PIPELINED; }

/* Testing the checks: a fault put in on purpose must mark the point invalid. */
typedef enum {
	KV_INJECT_NONE,
	KV_INJECT_EARLY_RELEASE, /* a writer releases the key's lock before its WRITE lands */
	KV_INJECT_NO_CHECKSUM,   /* readers skip the checksum; a writer writes a value in two halves */
} kv_inject;

/* The Scythe-style store's write path (--scythe-write). */
typedef enum { KV_SCYTHE_INSERT, KV_SCYTHE_UPDATE } kv_scythe_write;

/* Where Sherman-style's lock tables live (--lock-memory). */
typedef enum { KV_LOCKMEM_AUTO, KV_LOCKMEM_DEVICE, KV_LOCKMEM_HOST } kv_lockmem;

typedef struct kv_point {
	kv_system_id system;
	char workload[32];        /* as given: read-only, mixed, write-only, a..f */
	double write_ratio;
	kv_load load;
	uint32_t slot_bytes;      /* LOCO: key, value, counter/valid, checksum */
	int locks;                /* LOCO: ticket locks, key k takes lock k mod locks */
	int window;               /* operations in flight per thread */
	bool fence;               /* LOCO and Sherman-style: fence between write and release */
	int leaf;                 /* Sherman-style: entries per leaf (one READ per lookup) */
	int lock_table;           /* Sherman-style: lock words per memory node */
	int hand_over;            /* Sherman-style: local holders per remote acquisition, at most */
	kv_lockmem lock_memory;   /* Sherman-style: where the lock tables live */
	kv_scythe_write scythe_write;  /* Scythe-style: inserts (the paper's) or updates */
	kv_inject inject;
	char history[256];        /* --history FILE, "" when none */
	char redis_server[256];   /* the redis-server binary */
	int redis_threads;        /* client threads per Redis instance (the paper: 4) */
	int redis_port;           /* first port of this node's instances */
} kv_point;

/* ---- a system ------------------------------------------------------------ */

typedef struct kv_run {
	nm_ctx *ctx;
	const kv_point *p;
	nm_measure *ms;
	kv_thread *th;            /* [threads] of this rank */
} kv_run;

typedef struct kv_system {
	const char *name;
	const char *summary;
	bool global_versions;     /* kv_load.global_versions of its points */
	int service_threads;      /* threads per rank besides -T that do not measure */
	/* Runs one point on every rank (collective): set up, prefill (not
	 * timed), run the threads in one measured round (nm_workers_run with
	 * r->ms), scan the store, fill ms->rank_c, and return the system's own
	 * part of the result's "effective" object (rank 0; may be NULL). */
	json_t *(*run)(kv_run *r);
} kv_system;

/* A worker's application thread of this point (kv_worker_thread). */
static inline kv_thread *kv_run_thread(kv_run *r, const nm_worker *w)
{
	return kv_worker_thread(r->th, &r->p->load, r->ctx, w);
}

extern const kv_system kv_loco, kv_sherman, kv_redis, kv_scythe, kv_redis_pipelined;
/* Redis: whether --redis-server is an executable on this node (decode runs
 * it on every rank, so a node without it stops the job before anything
 * starts: one line, exit 2). 0, or -1 with one line in err. */
int kv_redis_check(const kv_point *p, char *err, size_t len);
#endif
