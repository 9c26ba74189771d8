/* The three Redis memory traces of the CoRM paper (Sec. 4.4.3, Figs. 18 and
 * 19), synthesized from the paper's description and the allocations Redis
 * 5.0.7 (the version the paper traced) makes for them, 64-bit: the original
 * traces are not public. Pure: no I/O; every random draw comes from the
 * caller's seed.
 *
 *   t1  default configuration: 10,000 keys, values of 1 .. 16,384 bytes
 *       (uniform, seeded); nothing is freed.
 *   t2  an LRU cache of 100 MiB: 700,000 keys with 150-byte values, then
 *       170,000 keys with 300-byte values; before a key is inserted keys are
 *       evicted until it fits, chosen as Redis 5's approximated LRU chooses
 *       them (corm_lru below: 5 keys sampled per eviction, a pool of 16).
 *   t3  default configuration: 5 keys holding a data structure of 160 KiB
 *       each (a hash, a list, a sorted set, a set and a stream, as Redis's
 *       memefficiency test builds them, each of thousands of allocations),
 *       then 50,000 keys with 150-byte values, then every second key of that
 *       batch (25,000) deleted.
 *
 * A key is the allocations Redis 5 makes for a string SET (the paper's key
 * of 8 bytes and its value): the dictionary entry (24 bytes), the key's
 * string (8 bytes, a 1-byte string header and a terminator: 10; sdsdup
 * gives strings below 32 bytes the 1-byte header), the value object
 * (16) and the value's string (its bytes, a 3-byte header below 256 bytes or
 * a 5-byte one, and a terminator); a value of at most 44 bytes is embedded
 * in its object, one allocation of 16 + 3 + len + 1. The LRU capacity counts
 * these bytes. Object IDs are key * 4 + part. A t3 data structure is its
 * key's entry, key string and object, and then every allocation of its
 * encoding (workloads/corm/README.md lists them): structure s (0 .. 4, in
 * the order above) numbers its own allocations base + s + 5 * i, where base
 * is 4 * (the trace's key count), so IDs of different structures never
 * meet. A reallocation is an allocation of the new size under a new ID,
 * then the free of the old one. */
#ifndef NM_CORM_REDIS_H
#define NM_CORM_REDIS_H
#include "ycsb.h"
#include <stddef.h>
#include <stdint.h>

typedef enum {
	CORM_REDIS_T1,
	CORM_REDIS_T2,
	CORM_REDIS_T3,
	CORM_REDIS_TRACES,
} corm_redis_trace;

/* One trace operation: an allocation of `size` bytes, or a free (size 0). */
typedef struct corm_op {
	uint64_t id;
	uint32_t size;
} corm_op;

typedef struct corm_ops {
	corm_op *op;
	size_t n, cap;
} corm_ops;

/* Appends an operation; aborts when out of memory. */
void corm_ops_push(corm_ops *t, uint64_t id, uint32_t size);
void corm_ops_free(corm_ops *t);

/* "t1", "t2", "t3" -> the trace, -1 for another name. */
int corm_redis_parse(const char *name);
const char *corm_redis_name(corm_redis_trace t);

/* Appends trace `t` to ops. `scale` multiplies the key counts and t2's
 * capacity (1: the paper's; smaller for quick tests; t3's data structures
 * stay five). */
void corm_redis_generate(corm_ops *ops, corm_redis_trace t, uint64_t seed, double scale);

/* The bytes of one key with a value of `len` bytes (every allocation above). */
uint64_t corm_redis_key_bytes(uint32_t len);

#define CORM_REDIS_LRU_BYTES (100ull << 20) /* t2's capacity (paper, Sec. 4.4.3) */
#define CORM_REDIS_VERSION "5.0.7"           /* whose allocations the traces make */
#define CORM_REDIS_STRUCTS 5                 /* t3's data structures */
#define CORM_REDIS_STRUCT_BYTES (160u << 10) /* each one's allocations, at least */
#define CORM_REDIS_LIST_FILL 5               /* t3: list-max-ziplist-size, as Redis's test sets it */
#define CORM_REDIS_STREAM_NODE_ENTRIES 5     /* t3: stream-node-max-entries, as Redis's test sets it */

/* Redis 5's approximated LRU (evict.c, allkeys-lru, maxmemory-samples 5):
 * an eviction samples 5 live keys at random into a pool of 16 candidates
 * ordered by idle time, which outlives the eviction (a sample older than
 * the pool's youngest takes its place), and evicts the pool's oldest key
 * still live. A key's idle time is taken when it is sampled, as Redis
 * stores it. The clock advances by one per key added (Redis's is in
 * seconds: a finer clock than Redis's, whose ties would only scatter
 * evictions more). */
enum { CORM_LRU_SAMPLES = 5, CORM_LRU_POOL = 16 };

typedef struct corm_lru {
	uint64_t *live;  /* the live keys, unordered: what a sample draws from */
	uint64_t *at;    /* key -> its index in live */
	uint64_t *added; /* key -> the clock when it was added */
	uint64_t n, keys, clock;
	struct {
		uint64_t key, idle; /* key UINT64_MAX: an empty place */
	} pool[CORM_LRU_POOL];
	ycsb_rng rng;
	uint8_t *sampled; /* when not NULL, sampled[key] is set for every key drawn (for tests) */
} corm_lru;

/* Keys are 0 .. keys-1, each added at most once. Aborts when out of memory. */
void corm_lru_init(corm_lru *l, uint64_t keys, uint64_t seed);
void corm_lru_add(corm_lru *l, uint64_t key);
/* Evicts one key (at least one must be live) and returns it. */
uint64_t corm_lru_evict(corm_lru *l);
void corm_lru_free(corm_lru *l);
#endif
