/* CoRM's memory model without a NIC: the compaction probability of two
 * blocks (CoRM Fig. 7, Sec. 3.4) and a trace-driven simulator of active
 * memory under no compaction, ideal compaction, Mesh-style and CoRM-n
 * compaction (CoRM Figs. 17-19, Sec. 4.4). Pure: no I/O, no global state;
 * every random draw comes from the caller's seed.
 *
 * Decisions the paper leaves open (Fig. 7's occupancies, Figs. 17-19's
 * sizes, threads and pairing beyond "least utilized first"):
 *
 * Blocks and classes.  A block of B bytes (a power of two, 4 KiB default)
 *   keeps its last 16 bytes for the block header, so `useful` = B - 16 bytes
 *   hold slots. Size classes follow the authors' code: starting at 16 bytes in
 *   steps of 8, every distinct objects-per-block count k = useful / size gets
 *   one class, the largest multiple of 8 with that k (for B = 4 KiB the 43
 *   classes 16, 24, ..., 2040, 4080). A request of SIZE
 *   bytes (slot size: CoRM's 8-byte object header is part of it) goes to the
 *   smallest class >= SIZE; SIZE > useful is an error.
 * Allocation.  T thread-local allocators (default 1); each allocation picks
 *   a thread uniformly at random (the paper: "the thread is selected
 *   randomly"); a thread takes the fullest of its non-full blocks of the class
 *   (the authors' code), else a new block; inside a block the object takes a
 *   uniformly random free slot (Mesh's randomized placement, which CoRM
 *   copies). A free returns the slot to its block; an emptied block is
 *   released, in every strategy.
 * Snapshots.  Compaction is evaluated on a copy of the heap at sample
 *   points; it never feeds back into later allocations (the paper reports
 *   active memory "for a time point when the system had the highest
 *   fragmentation": the most bytes held in blocks but not in live slots,
 *   once the heap holds half its largest live set; workloads/corm/README.md).
 * Candidates and pairing.  Every non-full block of a class, from all threads
 *   (the simulator has no per-thread collection limit). Greedy as in the
 *   authors' Compaction(): repeatedly take the least-utilised block A and merge
 *   it into the first block B, in order of free slots ascending (fullest
 *   first), that has room (live(A) + live(B) <= s) and is compatible; B then
 *   takes its new place; an A without a partner is parked. The same greedy
 *   drives Mesh, whose compatibility is offset disjointness (Mesh's own
 *   SplitMesher is not described in the paper).
 * IDs.  CoRM-n IDs are uniform, distinct per block, over 2^n values. They are
 *   drawn when a snapshot is compacted, block by block: the IDs of the objects
 *   live at a snapshot are, in distribution, exactly those drawn at
 *   allocation (each was drawn distinct from every object live with it, and
 *   frees do not depend on IDs), and drawing them late lets one allocation
 *   run serve every n. A merged block keeps the union of IDs.
 * Applicability.  CoRM-n compacts a class only if s <= 2^n. Vanilla: other
 *   classes are not compacted; hybrid: they use CoRM-0 (the offset rule).
 * Overhead.  CoRM-n charges (48 - log2 B) + n bits per live object (the
 *   original block address of a 48-bit pointer, Table 3: 28 + n for 1 MiB
 *   blocks), CoRM-0 (hybrid classes) the same fixed-width header; Mesh, ideal
 *   and no compaction charge nothing. The header is fixed width, so every
 *   object of a CoRM-n heap pays it, compacted class or not.
 * Ideal.  ceil(live objects / s) blocks per class: live bytes packed into
 *   the class's slots, no fragmentation at all.
 * Fig. 7.  s = floor(B / size) (the paper's own example: "for 16 byte
 *   objects, a 4 KiB block can store 256 objects"), both blocks hold
 *   round(occupancy * s) objects. */
#ifndef NM_CORM_MODEL_H
#define NM_CORM_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ycsb.h"

/* ------------------------------------------------------------ Fig. 7 ---- */

/* p(B1,B2) = C(n - b1, b2) / C(n, b2) if b1 + b2 <= s, else 0: the
 * probability that b2 uniform distinct IDs out of n avoid the b1 IDs of the
 * other block. Mesh: n = s (offsets); CoRM-x: n = 2^x. */
double corm_merge_prob(uint64_t s, uint64_t n, uint64_t b1, uint64_t b2);

/* The same by Monte Carlo: `trials` pairs of random distinct ID sets (n up to
 * 2^24). For the unit test and `netmem corm-sim --mode prob --mc`. */
double corm_merge_prob_mc(uint64_t s, uint64_t n, uint64_t b1, uint64_t b2, uint64_t trials,
			  uint64_t seed);

/* ---------------------------------------------------- size classes ---- */

#define CORM_MAX_CLASSES 2048

typedef struct corm_classes {
	uint32_t block_size, useful;
	int n;
	uint32_t size[CORM_MAX_CLASSES];   /* slot size, ascending */
	uint32_t slots[CORM_MAX_CLASSES];  /* objects per block */
} corm_classes;

/* 0, or -1 with one line in err (block size not a power of two in
 * [4 KiB, 64 MiB]). */
int corm_classes_init(corm_classes *c, uint64_t block_size, char *err, size_t errlen);
/* Class of a request, -1 when it does not fit a block. */
int corm_class_of(const corm_classes *c, uint64_t size);

/* ------------------------------------------------------------- heap ---- */

typedef struct corm_block {
	int cls, thread;
	uint32_t live, nfree;
	uint32_t *free_slots; /* the free slot numbers, in no order (swap-remove) */
	uint32_t *obj;        /* slot -> object index, UINT32_MAX when free */
	uint32_t pos;         /* position in its thread's non-full list, UINT32_MAX if full */
} corm_block;

typedef struct corm_heap {
	corm_classes cls;
	int threads;
	ycsb_rng rng;
	corm_block **blocks;  /* every block ever made; NULL once released */
	size_t nblocks, cap_blocks, live_blocks;
	/* per (thread, class): the non-full blocks */
	uint32_t **nonfull;
	size_t *nonfull_n, *nonfull_cap;
	/* objects: index -> (block, slot); the caller maps its IDs to indexes */
	uint32_t *obj_block, *obj_slot;
	size_t nobj, cap_obj;
	uint64_t live_objects, live_bytes;  /* bytes of the classes' slots */
} corm_heap;

int corm_heap_init(corm_heap *h, uint64_t block_size, int threads, uint64_t seed, char *err,
		   size_t errlen);
void corm_heap_free(corm_heap *h);
/* Allocates an object of `size` bytes; returns its index (>= 0), or -1
 * with one line in err (larger than a block). */
int64_t corm_heap_alloc(corm_heap *h, uint64_t size, char *err, size_t errlen);
/* Frees a live object by index. */
void corm_heap_release(corm_heap *h, uint64_t obj);

/* ------------------------------------------------------- compaction ---- */

typedef enum {
	CORM_NONE,   /* no compaction */
	CORM_IDEAL,  /* ceil(live / s) blocks per class */
	CORM_MESH,   /* merge blocks whose occupied offsets are disjoint */
	CORM_IDS,    /* CoRM-n: merge blocks whose object IDs are disjoint */
} corm_strategy;

typedef struct corm_result {
	uint64_t blocks;          /* blocks after compaction */
	uint64_t merges;          /* blocks merged away */
	uint64_t overhead_bytes;  /* ID/address bits of CoRM, rounded up to bytes */
	uint64_t active_bytes;    /* blocks * B + overhead_bytes */
	bool conserved;           /* every live object is in exactly one block afterwards */
} corm_result;

/* Compacts a copy of the heap with the strategy (id_bits for CORM_IDS;
 * hybrid: classes with s > 2^id_bits use the offset rule instead of staying
 * uncompacted). The heap is not changed. */
corm_result corm_compact(const corm_heap *h, corm_strategy st, int id_bits, bool hybrid,
			 uint64_t seed);

/* The merge rule of both Mesh (keys = occupied offsets) and CoRM (keys =
 * object IDs): two blocks may merge when their strictly ascending key arrays
 * share no key and their objects fit in one block (na + nb <= s). */
bool corm_keys_mergeable(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint64_t s);

/* Human name of a strategy: "none", "ideal", "mesh", "corm-8"... */
void corm_strategy_name(corm_strategy st, int id_bits, bool hybrid, char *buf, size_t len);
#endif
