/* The Scythe-style store of netmem kv (kv_scythe.c, its client threads and
 * its point; kv_scythe_srv.c, its server thread): what both halves share,
 * the job, the RPC's request kinds and reply statuses, and where things
 * are in a node's registered memory (kv_size.h: kv_scythe_layout).
 *
 * A request's payload: [slot << 8 | kind] [key] [object index] [stamp]
 * [record, for an insert or update]; its reply's: [slot << 8 | status]
 * [the object's version] [ticket] [served ticket] [record, for a read].
 * slot names the client's window operation (SC_NO_OP: none). What a
 * request does to its object is kv_scythe_obj.h's. */
#ifndef NM_KV_SCYTHE_H
#define NM_KV_SCYTHE_H
#include "kv_scythe_obj.h"
#include "kv_window.h"
#include <xxhash.h>

#define SC_NO_OP 0xffffffu   /* a request of no window operation (goodbye) */

typedef struct sc_job {
	kv_run *r;
	const kv_point *p;
	int rank, N, T;
	bool update;
	bool yield;                      /* the host is oversubscribed: waits yield (workers.h) */
	double timeout;
	uint64_t epoch_ns;               /* this rank's clock at the job-wide start: stamp 0 */
	nm_mr mr;
	nm_mesh mesh;
	kv_scythe_layout lay;
	kv_win_plan plan;
} sc_job;

static inline uint64_t *sc_obj(const sc_job *j, uint64_t idx) { return (uint64_t *)j->mr.buf + idx * j->lay.obj_words; }
static inline uint64_t sc_obj_raddr(const sc_job *j, int node, uint64_t idx, uint32_t word)
{
	return j->mesh.rmr[node].addr + (idx * j->lay.obj_words + word) * 8;
}
/* Bucket i of ring `ring` in the region at off (of any node: the layout is the same on all). */
static inline size_t sc_ring_off(const sc_job *j, size_t off, size_t ring, uint32_t i)
{
	return off + (ring * j->lay.ring + i) * j->lay.bucket_bytes;
}
static inline uint64_t *sc_local(const sc_job *j, size_t off) { return (uint64_t *)((uint8_t *)j->mr.buf + off); }
static inline size_t sc_bucket_words(const sc_job *j) { return j->lay.bucket_bytes / 8; }
/* In a client rank's memory, the index of the rings between its thread
 * `thread` and node `node`: the buckets it sends there, and the replies
 * node's server writes back. */
static inline size_t sc_client_ring(const sc_job *j, int thread, int node) { return (size_t)thread * (size_t)j->N + (size_t)node; }
static inline uint64_t sc_rec_sum(const sc_job *j, const uint64_t *rec) { return XXH64(rec, 8 * (j->lay.rec_words - 1), 0); }
/* A node's record: key, value words, then their checksum. */
static inline void sc_rec_image(const sc_job *j, uint64_t *rec, uint64_t key, uint32_t writer, uint32_t version)
{
	rec[0] = key;
	kv_value_fill(rec + 1, j->p->load.value_words, key, writer, version);
	rec[j->lay.rec_words - 1] = sc_rec_sum(j, rec);
}

/* The server thread's loop (mesh thread T, worker w): serves every client
 * thread of the job until each has said goodbye. */
void kv_scythe_serve(sc_job *j, nm_worker *w);
#endif
