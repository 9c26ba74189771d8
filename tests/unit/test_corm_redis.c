/* The Redis traces of primitives/corm/corm_redis.h against the paper's
 * description (CoRM paper, Sec. 4.4.3): key counts, value sizes, t2's LRU
 * capacity never exceeded and its evictions sampled as Redis 5 samples
 * them, t3's structures of many small allocations and its 25,000
 * deletions, every free of a live object, and determinism by seed. */
#include "corm_redis.h"
#include "tap.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What a replay of a trace by ID finds. */
typedef struct shape {
	uint64_t allocs, frees, keys_added, keys_deleted, live, max_live, bad;
	uint32_t min_value, max_value; /* the values' allocations (an ID's last part), t1 */
	uint64_t top;                  /* the largest ID */
} shape;

enum { PARTS = 4, PART_ENTRY = 0, PART_KEY = 1, PART_VALUE = 3, KEY_BYTES = 10 };

static uint64_t top_id(const corm_ops *t)
{
	uint64_t top = 0;
	for (size_t i = 0; i < t->n; i++)
		top = t->op[i].id > top ? t->op[i].id : top;
	return top;
}

/* keys: the trace's key count (IDs from 4 * keys are t3's structures) */
static shape measure(const corm_ops *t, uint64_t keys)
{
	shape s = {.min_value = UINT32_MAX, .top = top_id(t)};
	uint32_t *size = calloc(s.top + 1, sizeof *size);
	for (size_t i = 0; i < t->n; i++) {
		const corm_op *o = &t->op[i];
		bool key = o->id < keys * PARTS && o->id % PARTS == PART_KEY;
		if (o->size) {
			s.bad += size[o->id] != 0; /* allocated while live */
			size[o->id] = o->size;
			s.allocs++, s.live += o->size;
			s.keys_added += key && o->size == KEY_BYTES;
			if (o->id < keys * PARTS && o->id % PARTS == PART_VALUE) {
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

static shape trace_shape(corm_redis_trace which, uint64_t seed, uint64_t keys)
{
	corm_ops t = {0};
	corm_redis_generate(&t, which, seed, 1);
	shape s = measure(&t, keys);
	corm_ops_free(&t);
	return s;
}

static void test_t1(void)
{
	shape s = trace_shape(CORM_REDIS_T1, 1, 10000);
	CHECK(s.keys_added == 10000 && s.frees == 0 && !s.bad, "t1: 10,000 keys, nothing freed (%llu keys)",
	      (unsigned long long)s.keys_added);
	/* a value of len bytes is len + 1 + a 3 or 5-byte header when not embedded (> 44 bytes) */
	CHECK(s.min_value >= 45 + 4 && s.max_value <= 16384 + 6 && s.max_value > 16000,
	      "t1: values from 1 byte to 16 KiB (separate allocations %u .. %u bytes)", s.min_value, s.max_value);
	CHECK(s.allocs > 3 * 10000 && s.allocs <= 4 * 10000, "t1: three or four allocations a key (%llu)",
	      (unsigned long long)s.allocs);
}

/* t2's evictions in trace order: the keys whose entries are freed. */
static uint64_t *evicted_keys(const corm_ops *t, uint64_t *n)
{
	uint64_t *key = malloc(t->n * sizeof *key);
	*n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!t->op[i].size && t->op[i].id % PARTS == PART_ENTRY)
			key[(*n)++] = t->op[i].id / PARTS;
	return key;
}

static void test_t2(void)
{
	shape s = trace_shape(CORM_REDIS_T2, 1, 870000);
	CHECK(s.keys_added == 870000 && !s.bad, "t2: 700,000 + 170,000 keys (%llu)", (unsigned long long)s.keys_added);
	CHECK(s.max_live <= CORM_REDIS_LRU_BYTES, "t2: never above the LRU's 100 MiB (at most %llu bytes)",
	      (unsigned long long)s.max_live);
	uint64_t first = corm_redis_key_bytes(150), second = corm_redis_key_bytes(300);
	CHECK(s.live > CORM_REDIS_LRU_BYTES - second, "t2: the keys left fill the capacity to within one key");
	CHECK(first == 24 + 10 + 16 + 154 && second == 24 + 10 + 16 + 306, "t2: a key's bytes (%llu, %llu)",
	      (unsigned long long)first, (unsigned long long)second);
	/* 700,000 - 104857600 / 204 of the first batch at least, then the
	 * second's keys evict one 150-byte key or more each, or one of their own */
	uint64_t evicted = s.keys_deleted;
	CHECK(evicted >= 700000 - 104857600 / 204 + 170000 && evicted < 700000 - 104857600 / 204 + 2 * 170000,
	      "t2: %llu keys evicted, about one per key of the second batch after the first's excess",
	      (unsigned long long)evicted);
}

/* Redis's sampled LRU: not insertion order, every victim sampled, and
 * still least recently used in the main (random eviction would take the
 * oldest fifth of the keys a fifth of the time). */
static void test_lru(void)
{
	enum { KEYS = 20000, CAP = 10000 };
	corm_lru l;
	corm_lru_init(&l, KEYS, 3);
	uint8_t *sampled = calloc(KEYS, 1);
	l.sampled = sampled;
	uint64_t out_of_order = 0, unsampled = 0, old = 0, last = 0, evictions = 0;
	for (uint64_t k = 0; k < KEYS; k++) {
		if (l.n == CAP) {
			uint64_t v = corm_lru_evict(&l);
			out_of_order += evictions && v < last;
			unsampled += !sampled[v];
			old += v < k - CAP + CAP / 5; /* among the oldest fifth of the live keys */
			last = v, evictions++;
		}
		corm_lru_add(&l, k);
	}
	CHECK(evictions == KEYS - CAP && l.n == CAP, "lru: one eviction per key past the capacity");
	CHECK(out_of_order > evictions / 10, "lru: evictions out of insertion order (%llu of %llu)",
	      (unsigned long long)out_of_order, (unsigned long long)evictions);
	CHECK(!unsampled, "lru: every evicted key was among the sampled (%llu not)", (unsigned long long)unsampled);
	CHECK(old > evictions * 9 / 10, "lru: %llu of %llu evicted keys from the oldest fifth", (unsigned long long)old,
	      (unsigned long long)evictions);
	corm_lru_free(&l);
	free(sampled);

	corm_ops t = {0};
	corm_redis_generate(&t, CORM_REDIS_T2, 5, 0.05);
	uint64_t n, *v = evicted_keys(&t, &n), inv = 0;
	for (uint64_t i = 1; i < n; i++)
		inv += v[i] < v[i - 1];
	CHECK(n > 1000 && inv > n / 10, "t2: evictions out of insertion order (%llu of %llu)", (unsigned long long)inv,
	      (unsigned long long)n);
	free(v);
	corm_ops_free(&t);
}

/* t3's structures: structure s's allocations are base + s + 5i. */
static void test_t3(void)
{
	shape s = trace_shape(CORM_REDIS_T3, 1, 50005);
	CHECK(s.keys_added == 50005 && !s.bad, "t3: 5 data structures and 50,000 keys (%llu)",
	      (unsigned long long)s.keys_added);
	CHECK(s.keys_deleted == 25000, "t3: 25,000 keys deleted (%llu)", (unsigned long long)s.keys_deleted);

	corm_ops t = {0};
	corm_redis_generate(&t, CORM_REDIS_T3, 1, 1);
	const uint64_t base = 50005 * PARTS;
	uint32_t *size = calloc(top_id(&t) + 1, sizeof *size);
	uint64_t bytes[CORM_REDIS_STRUCTS] = {0}, allocs[CORM_REDIS_STRUCTS] = {0}, largest[CORM_REDIS_STRUCTS] = {0};
	uint64_t obj[CORM_REDIS_STRUCTS] = {0};
	for (size_t i = 0; i < t.n; i++) {
		const corm_op *o = &t.op[i];
		if (o->size)
			size[o->id] = o->size;
		if (o->id < CORM_REDIS_STRUCTS * PARTS && o->id % PARTS == 2) /* a structure's value object */
			obj[o->id / PARTS] += o->size;
		if (o->id < base)
			continue;
		int st = (int)((o->id - base) % CORM_REDIS_STRUCTS);
		bytes[st] += o->size ? o->size : 0;
		bytes[st] -= o->size ? 0 : size[o->id];
		allocs[st] += o->size ? 1 : 0;
		allocs[st] -= o->size ? 0 : 1;
		largest[st] = o->size > largest[st] ? o->size : largest[st];
		size[o->id] = o->size ? o->size : 0;
	}
	static const char *const kind[CORM_REDIS_STRUCTS] = {"hash", "list", "zset", "set", "stream"};
	for (int st = 0; st < CORM_REDIS_STRUCTS; st++) {
		uint64_t total = bytes[st] + obj[st];
		CHECK(total >= CORM_REDIS_STRUCT_BYTES && total < CORM_REDIS_STRUCT_BYTES + 2048,
		      "t3: the %s holds 160 KiB (%llu bytes)", kind[st], (unsigned long long)total);
		CHECK(allocs[st] >= 1000 && largest[st] <= 32768,
		      "t3: the %s is %llu live allocations, the largest %llu bytes", kind[st],
		      (unsigned long long)allocs[st], (unsigned long long)largest[st]);
	}
	free(size);
	corm_ops_free(&t);
}

static bool same(corm_redis_trace w, uint64_t a, uint64_t b, double scale)
{
	corm_ops x = {0}, y = {0};
	corm_redis_generate(&x, w, a, scale);
	corm_redis_generate(&y, w, b, scale);
	bool eq = x.n == y.n && !memcmp(x.op, y.op, x.n * sizeof *x.op);
	corm_ops_free(&x), corm_ops_free(&y);
	return eq;
}

static void test_seed(void)
{
	CHECK(same(CORM_REDIS_T1, 7, 7, 1), "t1: the same seed, the same trace");
	CHECK(!same(CORM_REDIS_T1, 7, 8, 1), "t1: another seed, other value sizes");
	CHECK(same(CORM_REDIS_T2, 7, 7, 0.05) && !same(CORM_REDIS_T2, 7, 8, 0.05),
	      "t2: the same seed, the same evictions; another, others");
	CHECK(same(CORM_REDIS_T3, 7, 7, 0.05) && !same(CORM_REDIS_T3, 7, 8, 0.05),
	      "t3: the same seed, the same skiplist levels; another, others");
	CHECK(corm_redis_parse("t2") == CORM_REDIS_T2 && corm_redis_parse("t4") < 0 &&
	      !strcmp(corm_redis_name(CORM_REDIS_T3), "t3"), "names");
	corm_ops t = {0};
	corm_redis_generate(&t, CORM_REDIS_T3, 1, 0.1);
	shape s = measure(&t, 5005);
	corm_ops_free(&t);
	CHECK(s.keys_added == 5005 && s.keys_deleted == 2500 && !s.bad, "t3 at a tenth: 5,000 keys, 2,500 deleted");
}

int main(void)
{
	test_t1();
	test_t2();
	test_lru();
	test_t3();
	test_seed();
	return tap_done();
}
