/* The pairing queue of CoRM's compaction (primitives/corm/corm_pair.h)
 * against a brute-force reading of the authors' rule: at every step the
 * block taken as A is the least utilised one queued, and its partner B is
 * the fullest queued block with room for A (live(B) <= s - live(A)) that is
 * compatible; with none, A is parked. Compatibility here is disjointness of
 * random bit masks, standing in for disjoint ID sets, and a merged block
 * holds the union, as a compacted block holds both blocks' IDs. */
#include "corm_pair.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

typedef struct sim {
	uint32_t live[600];
	uint64_t mask[600];
	uint32_t a;
} sim;

static bool compatible(void *arg, uint32_t k)
{
	sim *s = arg;
	return (s->mask[s->a] & s->mask[k]) == 0;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

/* One greedy pass over n blocks of `slots` slots, each step checked. */
static void greedy_checked(uint32_t n, uint32_t slots, uint64_t seed)
{
	sim s;
	corm_pairq q;
	bool queued[600] = {0};
	uint64_t x = seed;
	CHECK(corm_pairq_init(&q, n, slots) == 0, "queue of %u blocks of %u slots", n, slots);
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++) {
		s.live[i] = (uint32_t)(rnd(&x) % slots); /* candidates are never full */
		/* a few bits each: collisions happen, as IDs collide in big blocks */
		s.mask[i] = 0;
		for (int b = 0; b < 3; b++)
			s.mask[i] |= 1ull << (rnd(&x) % 64);
		corm_pairq_put(&q, i, s.live[i]);
		queued[i] = true;
		total += s.live[i];
	}
	int wrong_a = 0, wrong_b = 0, merges = 0, parked = 0;
	while (q.count >= 2) {
		uint32_t a = corm_pairq_pop_least(&q);
		for (uint32_t i = 0; i < n; i++)
			wrong_a += queued[i] && i != a && s.live[i] < s.live[a];
		queued[a] = false;
		s.a = a;
		uint32_t b = corm_pairq_best_fit(&q, slots - s.live[a], compatible, &s);
		/* the fullest compatible block with room, by brute force */
		uint32_t want = CORM_PAIR_NONE;
		for (uint32_t i = 0; i < n; i++)
			if (queued[i] && s.live[i] + s.live[a] <= slots && compatible(&s, i) &&
			    (want == CORM_PAIR_NONE || s.live[i] > s.live[want]))
				want = i;
		if (b == CORM_PAIR_NONE || want == CORM_PAIR_NONE) {
			wrong_b += b != want;
			parked += b == CORM_PAIR_NONE;
			continue;
		}
		wrong_b += !queued[b] || s.live[b] != s.live[want] || s.live[b] + s.live[a] > slots || !compatible(&s, b);
		corm_pairq_del(&q, b);
		s.live[b] += s.live[a];
		s.mask[b] |= s.mask[a];
		s.live[a] = 0;
		merges++;
		if (s.live[b] < slots)
			corm_pairq_put(&q, b, s.live[b]);
		else
			queued[b] = false;
	}
	uint64_t after = 0;
	for (uint32_t i = 0; i < n; i++)
		after += s.live[i];
	CHECK(wrong_a == 0, "%u blocks of %u slots: A is always the least utilised (%d wrong)", n, slots, wrong_a);
	CHECK(wrong_b == 0 && merges > 0, "B is always the fullest compatible block with room: %d merges, %d parked, %d wrong",
	      merges, parked, wrong_b);
	CHECK(after == total, "no object lost: %llu live before and after", (unsigned long long)total);
	corm_pairq_free(&q);
}

static bool never(void *arg, uint32_t k) { return false; }
static bool always(void *arg, uint32_t k) { return true; }

static void test_edges(void)
{
	corm_pairq q;
	CHECK(corm_pairq_init(&q, 4, 200) == 0, "queue over two bitmap words and a partial one");
	CHECK(corm_pairq_pop_least(&q) == CORM_PAIR_NONE, "an empty queue has no least block");
	corm_pairq_put(&q, 0, 199);
	corm_pairq_put(&q, 1, 64);
	corm_pairq_put(&q, 2, 63);
	corm_pairq_put(&q, 3, 0);
	CHECK(corm_pairq_best_fit(&q, 500, always, NULL) == 0, "best fit above the slot count is capped at it");
	CHECK(corm_pairq_best_fit(&q, 64, always, NULL) == 1, "best fit at a word's first bucket");
	CHECK(corm_pairq_best_fit(&q, 63, always, NULL) == 2, "best fit at the word below's last bucket");
	CHECK(corm_pairq_best_fit(&q, 200, never, NULL) == CORM_PAIR_NONE, "no compatible block: none");
	corm_pairq_del(&q, 2);
	corm_pairq_del(&q, 2);
	CHECK(q.count == 3 && corm_pairq_best_fit(&q, 63, always, NULL) == 3, "a deleted block is gone, once");
	CHECK(corm_pairq_pop_least(&q) == 3 && corm_pairq_pop_least(&q) == 1 && corm_pairq_pop_least(&q) == 0 &&
	      corm_pairq_pop_least(&q) == CORM_PAIR_NONE && q.count == 0, "blocks come out least utilised first");
	corm_pairq_free(&q);
}

int main(void)
{
	test_edges();
	greedy_checked(600, 127, 7);   /* 4 KiB blocks of 32-byte slots */
	greedy_checked(300, 64, 9);    /* one bitmap word plus the full bucket */
	greedy_checked(500, 1000, 13); /* many buckets, most empty */
	return tap_done();
}
