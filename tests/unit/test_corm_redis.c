/* The Redis traces of primitives/corm/corm_redis.h against the paper's
 * description (CoRM paper, Sec. 4.4.3): key counts, value sizes, t2's LRU
 * capacity never exceeded, t3's 25,000 deletions, every free of a live
 * object, and determinism by seed. */
#include "corm_redis.h"
#include "tap.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What a replay of a trace by ID finds. */
typedef struct shape {
	uint64_t allocs, frees, keys_added, keys_deleted, live, max_live, big, bad;
	uint32_t min_value, max_value; /* the values' allocations (an ID's last part), t1 */
} shape;

enum { PARTS = 4, PART_KEY = 1, PART_VALUE = 3, KEY_BYTES = 12, BIG = 160 << 10 };

static shape measure(const corm_ops *t)
{
	shape s = {.min_value = UINT32_MAX};
	uint64_t top = 0;
	for (size_t i = 0; i < t->n; i++)
		top = t->op[i].id > top ? t->op[i].id : top;
	uint32_t *size = calloc(top + 1, sizeof *size);
	for (size_t i = 0; i < t->n; i++) {
		const corm_op *o = &t->op[i];
		bool key = o->id % PARTS == PART_KEY;
		if (o->size) {
			s.bad += size[o->id] != 0; /* allocated while live */
			size[o->id] = o->size;
			s.allocs++, s.live += o->size;
			s.keys_added += key && o->size == KEY_BYTES;
			s.big += o->size == BIG;
			if (o->id % PARTS == PART_VALUE && o->size != BIG) {
				s.min_value = o->size < s.min_value ? o->size : s.min_value;
				s.max_value = o->size > s.max_value ? o->size : s.max_value;
			}
		} else {
			s.bad += size[o->id] == 0; /* freed while not live */
			s.frees++, s.live -= size[o->id], s.keys_deleted += key;
			size[o->id] = 0;
		}
		s.max_live = s.live > s.max_live ? s.live : s.max_live;
	}
	free(size);
	return s;
}

static shape trace_shape(corm_redis_trace which, uint64_t seed)
{
	corm_ops t = {0};
	corm_redis_generate(&t, which, seed, 1);
	shape s = measure(&t);
	corm_ops_free(&t);
	return s;
}

static void test_t1(void)
{
	shape s = trace_shape(CORM_REDIS_T1, 1);
	CHECK(s.keys_added == 10000 && s.frees == 0 && !s.bad, "t1: 10,000 keys, nothing freed (%llu keys)",
	      (unsigned long long)s.keys_added);
	/* a value of len bytes is len + 1 + a 3 or 5-byte header when not embedded (> 44 bytes) */
	CHECK(s.min_value >= 45 + 4 && s.max_value <= 16384 + 6 && s.max_value > 16000,
	      "t1: values from 1 byte to 16 KiB (separate allocations %u .. %u bytes)", s.min_value, s.max_value);
	CHECK(s.allocs > 3 * 10000 && s.allocs <= 4 * 10000, "t1: three or four allocations a key (%llu)",
	      (unsigned long long)s.allocs);
}

static void test_t2(void)
{
	shape s = trace_shape(CORM_REDIS_T2, 1);
	CHECK(s.keys_added == 870000 && !s.bad, "t2: 700,000 + 170,000 keys (%llu)", (unsigned long long)s.keys_added);
	CHECK(s.max_live <= CORM_REDIS_LRU_BYTES, "t2: never above the LRU's 100 MiB (at most %llu bytes)",
	      (unsigned long long)s.max_live);
	CHECK(s.max_live > CORM_REDIS_LRU_BYTES - 400, "t2: fills the LRU to within one key");
	uint64_t first = corm_redis_key_bytes(150), second = corm_redis_key_bytes(300);
	CHECK(first == 24 + 12 + 16 + 154 && second == 24 + 12 + 16 + 306, "t2: a key's bytes (%llu, %llu)",
	      (unsigned long long)first, (unsigned long long)second);
	/* evictions as an LRU makes them: the oldest first, only until the new
	 * key fits, so the keys left are within one evicted key of the capacity:
	 * 700,000 - 104857600 / 206 of the first batch, then 300-byte keys
	 * evicting 150-byte ones */
	uint64_t evicted = s.keys_deleted;
	CHECK(evicted == 486420 && s.live > CORM_REDIS_LRU_BYTES - first,
	      "t2: %llu keys evicted (486,420), the rest fill the capacity", (unsigned long long)evicted);
}

static void test_t3(void)
{
	shape s = trace_shape(CORM_REDIS_T3, 1);
	CHECK(s.keys_added == 50005 && s.big == 5 && !s.bad, "t3: 5 data structures of 160 KiB and 50,000 keys");
	CHECK(s.keys_deleted == 25000, "t3: 25,000 keys deleted (%llu)", (unsigned long long)s.keys_deleted);
	CHECK(s.live == 5 * (uint64_t)corm_redis_key_bytes(BIG) - 5 * 6 + 25000 * corm_redis_key_bytes(150),
	      "t3: the structures and 25,000 keys stay");
}

static bool same(corm_redis_trace w, uint64_t a, uint64_t b)
{
	corm_ops x = {0}, y = {0};
	corm_redis_generate(&x, w, a, 1);
	corm_redis_generate(&y, w, b, 1);
	bool eq = x.n == y.n && !memcmp(x.op, y.op, x.n * sizeof *x.op);
	corm_ops_free(&x), corm_ops_free(&y);
	return eq;
}

static void test_seed(void)
{
	CHECK(same(CORM_REDIS_T1, 7, 7), "t1: the same seed, the same trace");
	CHECK(!same(CORM_REDIS_T1, 7, 8), "t1: another seed, other value sizes");
	CHECK(corm_redis_parse("t2") == CORM_REDIS_T2 && corm_redis_parse("t4") < 0 &&
	      !strcmp(corm_redis_name(CORM_REDIS_T3), "t3"), "names");
	corm_ops t = {0};
	corm_redis_generate(&t, CORM_REDIS_T3, 1, 0.1);
	shape s = measure(&t);
	corm_ops_free(&t);
	CHECK(s.keys_added == 5005 && s.keys_deleted == 2500, "t3 at a tenth: 5,000 keys, 2,500 deleted");
}

int main(void)
{
	test_t1();
	test_t2();
	test_t3();
	test_seed();
	return tap_done();
}
