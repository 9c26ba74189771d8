/* CoRM's server memory (CoRM paper, Secs. 3.1-3.3): blocks of B bytes backed
 * by memfd files, so a block's virtual address can be remapped onto another
 * physical block; size classes; thread-local allocators placing objects at
 * random free slots with random 16-bit IDs unique per block; ID-based
 * pointer correction; ReleasePtr; and compaction: collect sparse blocks of a
 * class, pair blocks whose IDs do not collide, copy, remap the freed block's
 * VA onto the survivor.
 *
 * The NIC is not part of this module: registering a new block VA, and
 * restoring one-sided access after a VA was remapped, go through cmem_nic
 * hooks (workloads/corm/corm_net.c), so the heap is unit-tested on a host
 * without RDMA.
 *
 * Decisions where the paper is silent:
 * - Physical memory: memfd files of 16 MiB (the paper), a physical block is
 *   (file, offset). Virtual memory: one reserved region of `va_blocks`
 *   blocks aligned to B, so base = addr & ~(B-1) and a table indexed by
 *   (VA - region) / B says which physical block a VA shows now.
 * - Locking: a mutex per block guards its slots and metadata on the server
 *   (writes, frees, compaction); remote readers see the header's lock bit.
 *   Server reads take no lock (cmem_read): like a DirectRead they are
 *   consistent through the header (unlocked, same word before and after
 *   the copy), and a per-block reader count keeps a block's VA mapped
 *   while they copy (a release waits for it to drain before PROT_NONE).
 * - Finding a moved object (Sec. 3.2, Fig. 16): the thread that owns the
 *   block looks the ID up in the block's table; any other thread either
 *   scans the block's headers (CMEM_FIND_SCAN, "block scanning", the
 *   authors' default build) or asks the owner through its mailbox
 *   (CMEM_FIND_MSG, "thread messaging"), and a block the compactor holds
 *   is the compactor's to answer for, which it does once the compaction
 *   is over (the paper's long compaction "without breaks").
 * - Collection (Sec. 3.4, Fig. 15): the compactor stands in for worker 0,
 *   as the paper's leader is one of the workers: it takes worker 0's
 *   blocks itself and messages workers 1..T-1, each of which hands over
 *   its own; a worker not serving its mailbox is collected directly.
 *   After the compaction the collected blocks are worker 0's, as the
 *   authors' leader adopts them.
 * - An emptied block is released at once (its physical block back to the
 *   pool, its VAs unmapped); VAs of compacted blocks are released when no
 *   object allocated through them is left (counted per VA, as the paper's
 *   Sec. 3.3 does).
 * - Versions are 8 bits (the authors' header); ID 0 marks a free slot.
 * - Two remap modes: REMAP maps the source VA onto the survivor's memfd
 *   range at once and frees the source's physical block (the NIC keeps up
 *   by ODP or ibv_rereg_mr); DEFER (a device with neither) leaves the
 *   source VA on its old physical block, whose slots are cleared so
 *   DirectReads fail cleanly, keeps that physical block until every object
 *   allocated through that VA has been freed or released, and moves
 *   pointers to the survivor's own VA and rkey when they are corrected. */
#ifndef NM_CORM_HEAP_H
#define NM_CORM_HEAP_H
#include "corm_model.h"
#include "corm_slot.h"
#include "corm_mbox.h"
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cmem_nic {
	void *arg;
	/* A new block VA: register it; *mr is the hook's handle. 0 or -1 with err. */
	int (*reg)(void *arg, void *va, size_t len, void **mr, uint32_t *rkey, char *err, size_t errlen);
	void (*dereg)(void *arg, void *mr);
	/* va now shows another physical block (mmap done): restore the NIC's
	 * view. *mr and *rkey in and out: a device may hand back another key
	 * (ibv_rereg_mr on ConnectX does), which the heap then publishes in
	 * every pointer it corrects. 0, or -1 with err (the compaction stops). */
	int (*remap)(void *arg, void **mr, void *va, size_t len, uint32_t *rkey, char *err, size_t errlen);
} cmem_nic;

typedef enum { CORM_REMAP, CORM_DEFER } cmem_remap_mode;

/* How a thread that does not own a block finds a moved object in it. */
typedef enum { CMEM_FIND_SCAN, CMEM_FIND_MSG, CMEM_NFIND } cmem_find;
extern const char *const cmem_find_names[CMEM_NFIND];

typedef enum {
	CORM_OK,
	CORM_E_NOTFOUND,   /* no such object (freed, or a pointer CoRM never gave) */
	CORM_E_NOMEM,      /* no block could be added */
	CORM_E_TOOBIG,     /* larger than a block holds */
	CORM_E_NIC,        /* registration failed */
	CORM_NSTATUS
} corm_status;
extern const char *const corm_status_names[CORM_NSTATUS];

typedef struct cmem_idmap {
	uint32_t mask;
	uint32_t *e;   /* (id << 16 | slot+1)... see cmem_heap.c */
} cmem_idmap;

typedef struct cmem_block {
	pthread_mutex_t mu;
	bool dead;          /* released: not in the VA table any more (atomic: unlocked readers test it) */
	uint32_t readers;   /* unlocked reads copying from this block now (cmem_read) */
	int cls, owner;     /* owner: thread, or -1 while the compactor holds it */
	int home;           /* thread it came from */
	uint32_t phys;      /* physical block */
	uint32_t vidx;      /* primary VA */
	uint8_t *va;
	uint32_t live, nfree, slots, slot_size;
	uint32_t *free_slots;  /* free slot numbers, any order */
	uint32_t *alias;       /* VA indices showing this block (primary first) */
	uint32_t nalias, alias_cap;
	cmem_idmap ids;
	uint32_t list_pos;  /* position in the owner's list */
} cmem_block;

typedef struct cmem_vblock {
	cmem_block *_Atomic blk;  /* what this VA shows; NULL: free */
	void *mr;
	uint32_t rkey;
	uint32_t live;      /* objects allocated through this VA, still live */
	int64_t pinned;     /* DEFER: the physical block its MR still holds, -1 */
} cmem_vblock;

typedef struct cmem_phys {
	int fd;
	uint64_t off;
	uint32_t pins;      /* DEFER: VAs whose MR still holds it */
	bool used;
} cmem_phys;

typedef struct cmem_tl {
	pthread_mutex_t mu;
	cmem_block **list[CORM_MAX_CLASSES];   /* owned blocks per class */
	uint32_t n[CORM_MAX_CLASSES], cap[CORM_MAX_CLASSES];
	cmem_block *cur[CORM_MAX_CLASSES];
	uint64_t rng;
} cmem_tl;

typedef struct cmem_heap_cfg {
	uint32_t block_size;
	uint32_t va_blocks;     /* VA region size in blocks (and the physical limit) */
	int threads;
	uint64_t seed;
	cmem_remap_mode mode;
	cmem_find find;
	cmem_nic nic;
	/* Seconds a thread waits for another's answer (a moved object's slot, a
	 * share of the collection) while that thread shows no sign of life,
	 * before the job ends naming both (the point's --timeout; 0: 60). */
	double wait_s;
} cmem_heap_cfg;

typedef struct cmem_heap {
	cmem_heap_cfg cfg;
	corm_classes cls;
	int bshift;
	uint8_t *region;
	cmem_vblock *vb;              /* [va_blocks] */
	cmem_block **blocks;          /* [va_blocks] structs by physical index, never freed */
	pthread_mutex_t mu;           /* pool, VA free list, chunks */
	cmem_phys *phys;              /* [va_blocks] */
	uint32_t nphys;               /* physical blocks created so far */
	uint32_t *phys_free, nphys_free;
	uint32_t *va_free, nva_free;
	uint32_t chunk_blocks;
	int *fds, nfds;
	cmem_tl *tl;                  /* [threads] */
	uint64_t active_blocks;       /* physical blocks in use (retired ones included) */
	uint64_t retired_blocks;      /* DEFER: physical blocks kept for old VAs */
	uint64_t live_objects;
	uint64_t reads_locked;        /* cmem_reads that fell back to the block's mutex */
	cmem_mbox *mbox;              /* [threads + 1]: each worker's, then the compactor's */
	/* moved objects found by ID: by the block's owner, by a scan, by a message */
	uint64_t finds_own, finds_scan, finds_msg;
} cmem_heap;

/* 0, or -1 with one line in err (block size not a power of two, ...). */
int cmem_init(cmem_heap *h, const cmem_heap_cfg *cfg, char *err, size_t errlen);
void cmem_destroy(cmem_heap *h);

/* A server worker's thread: it is heap thread t (the owner its blocks
 * name) and serves its mailbox from here on, calling cmem_serve in its
 * loop, until cmem_thread_leave. */
void cmem_thread_enter(cmem_heap *h, int t);
void cmem_thread_leave(cmem_heap *h, int t);
static inline void cmem_serve(cmem_heap *h, int t) { cmem_mbox_serve(&h->mbox[t]); }

/* Bytes the heap registers with the NIC (the reg hook, one block per VA)
 * once each of its threads has allocated `per_thread` objects of `user`
 * bytes: a thread fills its blocks of the class before it takes a new one
 * (cmem_alloc), so ceil(per_thread / slots) blocks each. 0 for a size no
 * class holds. What a job checks against RLIMIT_MEMLOCK before the load. */
uint64_t cmem_reg_bytes(const cmem_heap *h, uint32_t user, uint64_t per_thread);

/* Class for `user` payload bytes, -1 if larger than a block holds. */
int cmem_class(const cmem_heap *h, uint32_t user);
uint32_t cmem_capacity(const cmem_heap *h, int cls);

/* Object operations: p is in/out (pointer correction rewrites its offset
 * hint, or its base and rkey). *version receives the object's version. */
corm_status cmem_alloc(cmem_heap *h, int thread, uint32_t user, const void *data, size_t n, corm_ptr *p);
/* cmem_read takes no lock when the pointer's offset hint finds the object
 * (the usual case), so readers of one hot object never wait on each other
 * or on a preempted lock holder; a miss (a moved object) or a read that
 * keeps overlapping writes falls back to the block's mutex and counts in
 * reads_locked. */
corm_status cmem_read(cmem_heap *h, corm_ptr *p, void *out, size_t n, uint8_t *version);
corm_status cmem_write(cmem_heap *h, corm_ptr *p, const void *data, size_t n, uint8_t *version);
corm_status cmem_free(cmem_heap *h, corm_ptr *p);
corm_status cmem_release(cmem_heap *h, corm_ptr *p);

/* What one compaction did. Times in ns. */
typedef struct cmem_compact_stats {
	uint64_t collected;      /* candidate blocks */
	uint64_t collect_msgs;   /* collection requests answered by other threads */
	uint64_t merges;         /* source blocks merged away */
	uint64_t moved;          /* objects copied */
	uint64_t moved_offset;   /* of which to another offset (indirect pointers) */
	uint64_t no_partner;     /* source blocks left (no room or ID collision) */
	uint64_t remaps;         /* VAs remapped */
	uint64_t keys_changed;   /* of which the NIC handed back a new rkey */
	uint64_t collect_ns, compact_ns, mmap_ns, nic_ns;
	uint64_t blocks_before, blocks_after;
} cmem_compact_stats;

/* Compacts class cls (-1: every class) among blocks at most max_occupancy
 * full, at most max_merges merges (0: no limit). An empty heap is a no-op.
 * 0, or -1 with err (a remap failed: the heap stays consistent, the
 * failing block stays where it was). */
int cmem_compact(cmem_heap *h, int cls, double max_occupancy, uint64_t max_merges,
		      cmem_compact_stats *st, char *err, size_t errlen);

/* Fragmentation of a class: 1 - live / (blocks * slots); 0 when empty. */
double cmem_fragmentation(cmem_heap *h, int cls);
static inline uint64_t cmem_active_bytes(const cmem_heap *h)
{
	return __atomic_load_n(&h->active_blocks, __ATOMIC_RELAXED) * h->cfg.block_size;
}
/* The rkey and address of VA block index v (for the NIC tests). */
static inline cmem_vblock *cmem_va(cmem_heap *h, uint64_t addr)
{
	uint64_t i = (addr - (uint64_t)(uintptr_t)h->region) >> h->bshift;
	return i < h->cfg.va_blocks ? &h->vb[i] : NULL;
}
#endif
