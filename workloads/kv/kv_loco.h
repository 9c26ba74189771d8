/* LOCO's kvstore (netmem kv --system loco), shared between the store's
 * set-up, threads and point (kv_loco.c), its operations (kv_loco_ops.c) and
 * its slots (kv_loco_slots.c): the job, an operation, a thread, and the
 * layout of slots and locks. kv_loco.c calls the other two, kv_loco_ops.c
 * calls kv_loco_slots.c, and never the other way round. */
#ifndef NM_KV_LOCO_H
#define NM_KV_LOCO_H
#include "kv_window.h"
#include "kvindex.h"
#include "mesh.h"
#include "tracker.h"
#include <pthread.h>
#include <stdatomic.h>
#include <xxhash.h>

/* Tracker messages: payload[0] = kind | node << 8. */
enum { MSG_INSERT = 1, MSG_DELETE, MSG_DONE };

typedef struct loco_job {
	kv_run *r;
	const kv_point *p;
	int rank, N, T;
	double timeout;
	nm_mr mr;
	nm_mesh mesh;
	nm_kvindex index;
	nm_tracker tr;
	kv_loco_layout lay;              /* slots, locks, tracker (kv_size.h) */
	kv_win_plan plan;                /* the registration, scratch and mesh */
	pthread_mutex_t free_mu;         /* this node's free slots */
	uint32_t *free;
	uint64_t nfree;
	atomic_int app_done;             /* application threads of this node finished */
	int done_from;                   /* tracker thread: nodes that said they are done */
	kv_thread tracker_kt;            /* the tracker thread's meter (it does not measure) */
	bool emulated;                   /* Soft-RoCE: the idle tracker naps (tracker_idle) */
} loco_job;

typedef struct loco_op {
	kv_wop w;                        /* first: the window engine's part */
	uint64_t ticket, seq;
	uint32_t lock;
	int home;                        /* the lock's node */
	bool released;                   /* an injected early release happened */
	nm_kvloc loc;
} loco_op;

typedef struct loco_thr {
	kv_win win;                      /* first: the engine hands it to the steps */
	loco_job *j;
} loco_thr;

static inline uint64_t *slot_at(const loco_job *j, uint64_t s)
{
	return (uint64_t *)((uint8_t *)j->mr.buf + j->lay.slot_off + s * j->p->slot_bytes);
}

static inline uint64_t slot_raddr(const loco_job *j, const nm_kvloc *loc)
{
	return j->mesh.rmr[loc->node].addr + j->lay.slot_off + (uint64_t)loc->slot * j->p->slot_bytes;
}

static inline uint64_t slot_sum(const loco_job *j, const uint64_t *w) { return XXH64(w, 8 * (j->lay.slot_words - 1), 0); }

/* The image of a slot: key, value, counter/valid, checksum. */
static inline void slot_image(const loco_job *j, uint64_t *w, uint64_t key, uint32_t writer, uint32_t version,
		       uint32_t counter, bool valid)
{
	w[0] = key;
	kv_value_fill(w + 1, j->p->load.value_words, key, writer, version);
	w[j->lay.slot_words - 2] = (uint64_t)counter << 1 | valid;
	w[j->lay.slot_words - 1] = slot_sum(j, w);
}

static inline uint32_t slot_counter(const loco_job *j, const uint64_t *w) { return (uint32_t)(w[j->lay.slot_words - 2] >> 1); }
static inline bool slot_valid(const loco_job *j, const uint64_t *w) { return w[j->lay.slot_words - 2] & 1; }

static inline uint64_t lock_raddr(const loco_job *j, uint32_t lock, size_t off)
{
	int home = (int)(lock % (uint32_t)j->N);
	return j->mesh.rmr[home].addr + j->lay.lock_off + (size_t)(lock / (uint32_t)j->N) * KV_LOCO_LOCK_BYTES + off;
}

/* kv_loco_slots.c. The prefill: rank i at node i mod N, slot i / N; every
 * node indexes them all, and this node's other slots are free. */
void loco_prefill(loco_job *j);
/* This node's free slots (inserts take one, deletes give one back). */
bool loco_slot_alloc(loco_job *j, uint32_t *s);
void loco_slot_free(loco_job *j, uint32_t s);

/* The operations' steps for the window engine (kv_loco_ops.c). */
extern const kv_win_ops loco_steps;
#endif
