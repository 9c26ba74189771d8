/* What a rank of netmem kv's verbs systems (LOCO, the Sherman- and
 * Scythe-style stores) registers and connects for a point, sized in one
 * place: each system's set-up lays its memory out and builds its mesh from
 * these plans, and netmem preflight sizes the same point from them
 * (kv_win_needs), so the prediction is what runs. Pure: no device, no MPI
 * (tests/unit/test_kv_size.c checks them against hand-computed numbers). */
#ifndef NM_KV_SIZE_H
#define NM_KV_SIZE_H
#include "kv.h"
#include "kv_scythe_obj.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Scratch bytes per operation for a buffer of buf_bytes: the buffer, then
 * 64 bytes for atomic results and lock words (kv_window.h). */
static inline size_t kv_win_scratch(size_t buf_bytes) { return ((buf_bytes + 63) & ~(size_t)63) + 64; }

/* One rank's registration and mesh: a single MR of `bytes` whose tail is
 * every mesh thread's scratch (scratch_per_thread from scratch_off, one
 * operation's share scratch_per_op), and an all-to-all mesh, self included
 * (a node's own locks go through its NIC), of `threads` threads with one QP
 * per peer, each `sq_depth` deep. */
typedef struct kv_win_plan {
	size_t bytes;
	size_t scratch_off, scratch_per_op, scratch_per_thread;
	int threads;
	int sq_depth;
} kv_win_plan;

/* LOCO: per node a slot array, its share of the ticket locks, the
 * tracker's rings, then scratch for the application threads and the
 * tracker thread (one more mesh thread). */
typedef struct kv_loco_layout {
	uint32_t slot_words;   /* the slot image's words: key, value, meta, checksum (slot_bytes may pad) */
	uint64_t slots;        /* per node: its prefill share and every key still insertable, + 1 */
	size_t slot_off, lock_off, tracker_off;
} kv_loco_layout;
/* Lock words and tracker ring entries, as LOCO's set-up uses them. */
#define KV_LOCO_LOCK_BYTES 16
#define KV_LOCO_TRACKER_ENTRIES 256
kv_win_plan kv_loco_plan(const kv_point *p, int nranks, int threads, kv_loco_layout *l);

/* Sherman-style: leaves of --leaf entries behind a 16-byte header, dealt
 * round robin over the nodes, then the node's lock table in host memory
 * (--lock-table words; used when it is not in the NIC's memory). */
typedef struct kv_sherman_layout {
	uint32_t entry_words;  /* key, value, checksum */
	uint64_t leaves, leaves_here;
	size_t leaf_bytes;     /* header, then the entries; 64-byte aligned */
	size_t lock_off, lock_bytes;
} kv_sherman_layout;
kv_win_plan kv_sherman_plan(const kv_point *p, int nranks, int threads, kv_sherman_layout *l);

/* Scythe-style: objects dealt round robin, each its takeout lock (tickets
 * issued, ticket served, the newest queued stamp), its version stamp and
 * its record (key, value, checksum); then the RPC's rings (wring.h): every
 * node's requests to this one, a ring per (client rank, thread), and the
 * replies to this node's threads, a ring per (thread, server node), each
 * of `ring` buckets (one per operation in flight); then the buckets being
 * sent, the client threads' to each node and the server thread's to each
 * (rank, thread); then the client threads' scratch. The server thread is
 * mesh thread T (its QPs carry the replies). */
typedef struct kv_scythe_layout {
	uint32_t obj_words, rec_words;
	uint64_t objs_here;
	uint32_t ring, msg_words;
	size_t bucket_bytes;
	size_t req_off, rep_off, out_off, srv_out_off;
} kv_scythe_layout;
/* Scythe's batch: a bucket flushes at 10 requests (its Rocket's batching). */
#define KV_SCYTHE_BATCH 10
kv_win_plan kv_scythe_plan(const kv_point *p, int nranks, int threads, kv_scythe_layout *l);

/* The plan of p's system on each rank of nranks with -T threads; false
 * (and a zero plan) for Redis, whose data path is TCP to redis-server
 * through hiredis: it registers no memory and creates no QP. */
bool kv_plan_of(const kv_point *p, int nranks, int threads, kv_win_plan *out);
#endif
