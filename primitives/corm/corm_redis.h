/* The three Redis memory traces of the CoRM paper (Sec. 4.4.3, Figs. 18 and
 * 19), synthesized from the paper's description: the original traces are
 * not public. Pure: no I/O; every random draw comes from the caller's seed.
 *
 *   t1  default configuration: 10,000 keys, values of 1 .. 16,384 bytes
 *       (uniform, seeded); nothing is freed.
 *   t2  an LRU cache of 100 MiB: 700,000 keys with 150-byte values, then
 *       170,000 keys with 300-byte values; before a key is inserted the
 *       least recently used keys are evicted until it fits (the trace never
 *       reads, so least recently used is least recently inserted).
 *   t3  default configuration: 5 keys holding a 160 KiB data structure
 *       each, then 50,000 keys with 150-byte values, then every second key
 *       of that batch (25,000) deleted.
 *
 * A key is the allocations Redis 5 makes for a string SET (the paper's key
 * of 8 bytes and its value): the dictionary entry (24 bytes), the key's
 * string (8 bytes and a 4-byte string header: 12), the value object (16)
 * and the value's string (its bytes, a 3-byte header below 256 bytes or a
 * 5-byte one, and a terminator); a value of at most 44 bytes is embedded
 * in its object, one allocation of 16 + 3 + len + 1. A data structure of
 * t3 is one allocation of its size (the paper gives no inner layout). The
 * LRU capacity counts these bytes. Object IDs are key * 4 + part. */
#ifndef NM_CORM_REDIS_H
#define NM_CORM_REDIS_H
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
#endif
