/* netmem kv --system redis, shared between the servers' side
 * (kv_redis_cluster.c: a Redis Cluster's life cycle for one point) and the
 * clients' (kv_redis.c: the client threads, the point). */
#ifndef NM_KV_REDIS_H
#define NM_KV_REDIS_H
#include "kv.h"
#include "service.h"
#include <hiredis/hiredis.h>
#include <limits.h>
#include <stdint.h>

#define RD_SLOTS 16384

/* A key as Redis sees it: its 16 hex digits. */
#define RD_KEYLEN 16
static inline void rd_key_str(uint64_t key, char out[RD_KEYLEN])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = RD_KEYLEN - 1; i >= 0; i--, key >>= 4)
		out[i] = hex[key & 15];
}

/* Key's hash slot, as the Redis Cluster specification computes it. */
int rd_slot(const char *key, size_t n);

typedef struct rd_inst {      /* exchanged between ranks: fixed layout */
	char host[64];
	int32_t port;
	int32_t rank;
} rd_inst;

/* The per-point secret the servers require (requirepass) and the clients
 * send (AUTH): hex of RD_SECRET_BYTES random bytes. */
#define RD_SECRET_BYTES 24
#define RD_SECRET_HEX (2 * RD_SECRET_BYTES)

typedef struct rd_cluster {
	const kv_point *p;
	const nm_dev *dev;        /* the experiment's device: its interface is the one bound */
	int rank, nranks, n_local, n_all;
	int clients;              /* connections per thread to each instance: --window clients
				   * (memtier-style), or the pipelined thread's one */
	long maxclients;          /* the servers' connection limit: every client's, and the ranks' own */
	double timeout;
	bool multi_host;
	char bin[PATH_MAX];
	char addr[64];            /* this node's address as the others reach it */
	int port0;                /* this rank's first port */
	rd_inst *all;             /* [n_all], instance k = rank * n_local + i */
	uint16_t *owner;          /* [RD_SLOTS]: the instance that owns the slot */
	nm_service *srv;          /* [n_local] */
	redisContext **adm;       /* [n_all]: the main thread's connections */
	char version[32];
	char secret[RD_SECRET_HEX + 1];
} rd_cluster;

/* A blocking connection to instance in, authenticated with the cluster's
 * secret, whose replies time out after timeout seconds; or NULL with err. */
redisContext *rd_connect(const rd_cluster *cl, const rd_inst *in, char *err, size_t len);
/* Collective, the cluster's life cycle around a point: its instances up and
 * joined (any failure ends the job, one line), the prefill (not timed), the
 * read-back after the run (keys read on this rank), the servers stopped. */
void rd_setup(rd_cluster *cl);
void rd_prefill(rd_cluster *cl);
uint64_t rd_scan(rd_cluster *cl, nm_measure *ms);
void rd_teardown(rd_cluster *cl);
/* Rank 0: the cluster as run, for the result's "effective". */
json_t *rd_effective(const rd_cluster *cl, uint64_t scanned);
/* A memtier-style client's writer id (kv_word): the top bit, then the
 * client's index in the job (rank, thread, client), so that every client
 * writes as a writer of its own; RD_CLIENT_WRITERS clients at most. */
#define RD_CLIENT_WRITERS 0x7fff
#define RD_CLIENT_WRITER(rank, T, thread, W, client) \
	(0x8000u | (uint32_t)(((rank) * (T) + (thread)) * (W) + (client)))
/* The client threads as memtier drives Redis (kv_redis_memtier.c): --window
 * clients per thread, one command in flight each. */
void rd_memtier_round(kv_run *r, const rd_cluster *cl);
#endif
