/* CoRM's compaction pairing queue (corm_pair.h). */
#include "corm_pair.h"
#include <stdlib.h>

int corm_pairq_init(corm_pairq *q, uint32_t n, uint32_t slots)
{
	*q = (corm_pairq){.slots = slots, .n = n};
	size_t words = slots / 64 + 1;
	q->head = malloc(((size_t)slots + 1) * sizeof *q->head);
	q->next = malloc((n ? n : 1) * sizeof *q->next);
	q->prev = malloc((n ? n : 1) * sizeof *q->prev);
	q->at = malloc((n ? n : 1) * sizeof *q->at);
	q->bits = calloc(words, sizeof *q->bits);
	if (!q->head || !q->next || !q->prev || !q->at || !q->bits) {
		corm_pairq_free(q);
		return -1;
	}
	for (uint32_t b = 0; b <= slots; b++)
		q->head[b] = CORM_PAIR_NONE;
	for (uint32_t i = 0; i < n; i++)
		q->at[i] = CORM_PAIR_NONE;
	return 0;
}

void corm_pairq_free(corm_pairq *q)
{
	free(q->head), free(q->next), free(q->prev), free(q->at), free(q->bits);
	*q = (corm_pairq){0};
}

void corm_pairq_put(corm_pairq *q, uint32_t item, uint32_t live)
{
	uint32_t h = q->head[live];
	q->next[item] = h;
	q->prev[item] = CORM_PAIR_NONE;
	if (h != CORM_PAIR_NONE)
		q->prev[h] = item;
	q->head[live] = item;
	q->at[item] = live;
	q->bits[live / 64] |= 1ull << (live % 64);
	q->count++;
}

void corm_pairq_del(corm_pairq *q, uint32_t item)
{
	uint32_t b = q->at[item];
	if (b == CORM_PAIR_NONE)
		return;
	uint32_t nx = q->next[item], pv = q->prev[item];
	if (pv != CORM_PAIR_NONE)
		q->next[pv] = nx;
	else
		q->head[b] = nx;
	if (nx != CORM_PAIR_NONE)
		q->prev[nx] = pv;
	if (q->head[b] == CORM_PAIR_NONE)
		q->bits[b / 64] &= ~(1ull << (b % 64));
	q->at[item] = CORM_PAIR_NONE;
	q->count--;
}

uint32_t corm_pairq_pop_least(corm_pairq *q)
{
	for (uint32_t w = 0; w <= q->slots / 64; w++)
		if (q->bits[w]) {
			uint32_t item = q->head[w * 64 + (uint32_t)__builtin_ctzll(q->bits[w])];
			corm_pairq_del(q, item);
			return item;
		}
	return CORM_PAIR_NONE;
}

/* The highest non-empty bucket at or below b, NONE. */
static uint32_t highest_at_most(const corm_pairq *q, uint32_t b)
{
	uint32_t w = b / 64;
	uint64_t m = q->bits[w] & (b % 64 == 63 ? ~0ull : (2ull << (b % 64)) - 1);
	for (;;) {
		if (m)
			return w * 64 + 63 - (uint32_t)__builtin_clzll(m);
		if (w == 0)
			return CORM_PAIR_NONE;
		m = q->bits[--w];
	}
}

uint32_t corm_pairq_best_fit(const corm_pairq *q, uint32_t most, bool (*ok)(void *arg, uint32_t item), void *arg)
{
	if (most > q->slots)
		most = q->slots;
	for (uint32_t b = highest_at_most(q, most); b != CORM_PAIR_NONE; b = b ? highest_at_most(q, b - 1) : CORM_PAIR_NONE)
		for (uint32_t i = q->head[b]; i != CORM_PAIR_NONE; i = q->next[i])
			if (ok(arg, i))
				return i;
	return CORM_PAIR_NONE;
}
