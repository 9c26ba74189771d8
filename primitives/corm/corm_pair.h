/* The candidate queue of CoRM's compaction pairing (CoRM paper, Sec. 3.3;
 * the authors' Compaction()): repeatedly the least utilised block A is
 * taken, and merged into the fullest block B that still has room for A's
 * objects and is compatible (no common ID); B then takes its new place by
 * its new live count, and an A without a partner is parked.
 *
 * Blocks of one class all have the same slot count s, so a live count is
 * an integer in [0, s]: the queue is a bucket per live count (a doubly
 * linked list of items) and a bitmap of the non-empty buckets. Taking A is
 * the lowest set bit, the best fit for A is the highest set bit at or
 * below s - live(A), then the buckets below it while no block there is
 * compatible. Each operation costs O(1) list work plus a bitmap scan of at
 * most s/64 words, so pairing n blocks costs O(n) in place of re-sorting
 * the candidates per merge. Within a bucket the last item put is tried
 * first (the paper orders only by free slots). */
#ifndef NM_CORM_PAIR_H
#define NM_CORM_PAIR_H
#include <stdbool.h>
#include <stdint.h>

#define CORM_PAIR_NONE UINT32_MAX

typedef struct corm_pairq {
	uint32_t slots;     /* live counts go from 0 to slots */
	uint32_t n;         /* items are 0..n-1 */
	uint32_t count;     /* items queued now */
	uint32_t *head;     /* [slots+1]: first item of a bucket, NONE */
	uint32_t *next, *prev, *at; /* [n]: list links, the bucket an item is in (NONE: not queued) */
	uint64_t *bits;     /* non-empty buckets */
} corm_pairq;

/* 0, or -1 when out of memory. Every item starts out of the queue. */
int corm_pairq_init(corm_pairq *q, uint32_t n, uint32_t slots);
void corm_pairq_free(corm_pairq *q);
/* Queues item with live count `live` (at most slots); it must not be queued. */
void corm_pairq_put(corm_pairq *q, uint32_t item, uint32_t live);
/* Takes item out of the queue, if it is queued. */
void corm_pairq_del(corm_pairq *q, uint32_t item);
/* The least utilised item, taken out of the queue; NONE when empty. */
uint32_t corm_pairq_pop_least(corm_pairq *q);
/* The best fit: the fullest queued item with live count at most `most`
 * for which ok(arg, item) holds, trying fuller items first; it stays
 * queued. NONE when there is none. */
uint32_t corm_pairq_best_fit(const corm_pairq *q, uint32_t most, bool (*ok)(void *arg, uint32_t item), void *arg);
#endif
