/* CoRM's Redis traces, synthesized from the paper's description
 * (corm_redis.h states what each holds and how a key maps to allocations). */
#include "corm_redis.h"
#include "ycsb.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The paper's numbers (Sec. 4.4.3). */
enum {
	T1_KEYS = 10000,
	T1_VALUE_MAX = 16384,
	T2_FIRST_KEYS = 700000,
	T2_FIRST_VALUE = 150,
	T2_SECOND_KEYS = 170000,
	T2_SECOND_VALUE = 300,
	T3_STRUCTS = 5,
	T3_STRUCT_BYTES = 160 << 10,
	T3_KEYS = 50000,
	T3_VALUE = 150,
};

/* Redis 5's allocations for one string key (corm_redis.h). */
enum {
	ENTRY_BYTES = 24,     /* dictEntry: key, value, next */
	KEY_BYTES = 8 + 4,    /* the paper's 8-byte key as a string: 3-byte header, terminator */
	OBJ_BYTES = 16,       /* the value's object header */
	EMBSTR_MAX = 44,      /* values up to this many bytes live inside their object */
	SDS8_MAX = 255,       /* strings shorter than 256 bytes take the 3-byte header */
	SDS8_HDR = 3,
	SDS16_HDR = 5,
};

/* The allocations of a key, numbered: its object IDs are key * PARTS + part. */
typedef enum { PART_ENTRY, PART_KEY, PART_OBJ, PART_VALUE, PARTS } key_part;

void corm_ops_push(corm_ops *t, uint64_t id, uint32_t size)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->op = realloc(t->op, t->cap * sizeof *t->op);
		if (!t->op)
			abort();
	}
	t->op[t->n++] = (corm_op){id, size};
}

void corm_ops_free(corm_ops *t)
{
	free(t->op);
	memset(t, 0, sizeof *t);
}

static const char *const names[CORM_REDIS_TRACES] = {"t1", "t2", "t3"};

int corm_redis_parse(const char *name)
{
	for (int i = 0; i < CORM_REDIS_TRACES; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *corm_redis_name(corm_redis_trace t)
{
	return names[t];
}

/* The bytes of a value's allocation(s) beyond the object header: a string
 * with its header and terminator, embedded or not. */
static uint32_t value_bytes(uint32_t len)
{
	return (len <= SDS8_MAX ? SDS8_HDR : SDS16_HDR) + len + 1;
}

uint64_t corm_redis_key_bytes(uint32_t len)
{
	if (len <= EMBSTR_MAX) /* one allocation: object and string */
		return ENTRY_BYTES + KEY_BYTES + OBJ_BYTES + SDS8_HDR + len + 1;
	return ENTRY_BYTES + KEY_BYTES + OBJ_BYTES + value_bytes(len);
}

/* SET key value: the command's key and value objects, then the entry that
 * links them into the dictionary. `body` is the value's allocation (its
 * string, or a whole data structure). */
static void key_add(corm_ops *t, uint64_t key, uint32_t len, uint32_t body)
{
	uint64_t id = key * PARTS;
	corm_ops_push(t, id + PART_KEY, KEY_BYTES);
	if (len <= EMBSTR_MAX) {
		corm_ops_push(t, id + PART_OBJ, OBJ_BYTES + body);
	} else {
		corm_ops_push(t, id + PART_OBJ, OBJ_BYTES);
		corm_ops_push(t, id + PART_VALUE, body);
	}
	corm_ops_push(t, id + PART_ENTRY, ENTRY_BYTES);
}

/* DEL key (or an eviction): the entry, the key, the value. */
static void key_del(corm_ops *t, uint64_t key, uint32_t len)
{
	uint64_t id = key * PARTS;
	corm_ops_push(t, id + PART_ENTRY, 0);
	corm_ops_push(t, id + PART_KEY, 0);
	corm_ops_push(t, id + PART_OBJ, 0);
	if (len > EMBSTR_MAX)
		corm_ops_push(t, id + PART_VALUE, 0);
}

static uint64_t scaled(uint64_t n, double scale)
{
	uint64_t k = (uint64_t)llround((double)n * scale);
	return k ? k : 1;
}

static void gen_t1(corm_ops *t, uint64_t seed, double scale)
{
	ycsb_rng rng;
	ycsb_rng_seed(&rng, seed, 0, 0);
	uint64_t keys = scaled(T1_KEYS, scale);
	for (uint64_t k = 0; k < keys; k++) {
		uint32_t len = 1 + (uint32_t)ycsb_rng_below(&rng, T1_VALUE_MAX);
		key_add(t, k, len, len <= EMBSTR_MAX ? SDS8_HDR + len + 1 : value_bytes(len));
	}
}

/* t2: the second batch's keys follow the first's; the live keys are always
 * the contiguous range [oldest, next), so eviction is a counter. */
static void gen_t2(corm_ops *t, uint64_t seed, double scale)
{
	(void)seed; /* nothing random: the paper gives every size */
	const uint64_t n1 = scaled(T2_FIRST_KEYS, scale), n = n1 + scaled(T2_SECOND_KEYS, scale);
	const uint64_t cap = (uint64_t)llround((double)CORM_REDIS_LRU_BYTES * scale);
	uint64_t live = 0, oldest = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint32_t len = k < n1 ? T2_FIRST_VALUE : T2_SECOND_VALUE;
		uint64_t need = corm_redis_key_bytes(len);
		while (live + need > cap && oldest < k) {
			uint32_t old = oldest < n1 ? T2_FIRST_VALUE : T2_SECOND_VALUE;
			key_del(t, oldest++, old);
			live -= corm_redis_key_bytes(old);
		}
		key_add(t, k, len, value_bytes(len));
		live += need;
	}
}

static void gen_t3(corm_ops *t, uint64_t seed, double scale)
{
	(void)seed;
	for (uint64_t k = 0; k < T3_STRUCTS; k++)
		key_add(t, k, T3_STRUCT_BYTES, T3_STRUCT_BYTES);
	uint64_t n = scaled(T3_KEYS, scale);
	for (uint64_t k = 0; k < n; k++)
		key_add(t, T3_STRUCTS + k, T3_VALUE, value_bytes(T3_VALUE));
	/* Every second key of the batch: the paper does not say which half;
	 * interleaved deletions leave every block of the batch half full, the
	 * fragmentation the test provokes. */
	for (uint64_t k = 0; k < n; k += 2)
		key_del(t, T3_STRUCTS + k, T3_VALUE);
}

void corm_redis_generate(corm_ops *ops, corm_redis_trace t, uint64_t seed, double scale)
{
	static void (*const gen[CORM_REDIS_TRACES])(corm_ops *, uint64_t, double) = {gen_t1, gen_t2, gen_t3};
	gen[t](ops, seed, scale);
}
