/* The search of netmem kv-check: see kv_lin.h. */
#include "kv_lin.h"
#include "alloc.h"
#include <stdlib.h>
#include <string.h>

/* The memo: (linearized set, state) pairs, each nw + 2 words in an arena,
 * found through an open-addressed table of arena indices + 1. */
typedef struct memo {
	size_t nw;
	uint64_t *arena, n, cap;   /* entries */
	uint64_t *slot, mask;      /* table: 0 empty, else entry index + 1 */
} memo;

static uint64_t *entry(const memo *m, uint64_t i) { return m->arena + i * (m->nw + 2); }

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_of(const memo *m, const uint64_t *bits, kv_lin_state s)
{
	uint64_t h = s.present ? mix(0x51, s.value) : 0x17;
	for (size_t i = 0; i < m->nw; i++)
		h = mix(h, bits[i]);
	return h ^ h >> 29;
}

static bool same(const memo *m, const uint64_t *e, const uint64_t *bits, kv_lin_state s)
{
	return e[m->nw] == (uint64_t)s.present && e[m->nw + 1] == (s.present ? s.value : 0) &&
	       !memcmp(e, bits, m->nw * 8);
}

static void grow(memo *m)
{
	uint64_t size = (m->mask + 1) * 2;
	free(m->slot);
	m->slot = nm_calloc(size, sizeof *m->slot);
	m->mask = size - 1;
	for (uint64_t i = 0; i < m->n; i++) {
		const uint64_t *e = entry(m, i);
		kv_lin_state s = {.present = e[m->nw] != 0, .value = e[m->nw + 1]};
		uint64_t k = hash_of(m, e, s) & m->mask;
		while (m->slot[k])
			k = (k + 1) & m->mask;
		m->slot[k] = i + 1;
	}
}

/* Adds the pair; false when it was there already. */
static bool memo_add(memo *m, const uint64_t *bits, kv_lin_state s)
{
	if (2 * (m->n + 1) > m->mask + 1)
		grow(m);
	uint64_t k = hash_of(m, bits, s) & m->mask;
	for (; m->slot[k]; k = (k + 1) & m->mask)
		if (same(m, entry(m, m->slot[k] - 1), bits, s))
			return false;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->arena = nm_realloc(m->arena, m->cap * (m->nw + 2) * 8);
	}
	uint64_t *e = entry(m, m->n);
	memcpy(e, bits, m->nw * 8);
	e[m->nw] = s.present;
	e[m->nw + 1] = s.present ? s.value : 0;
	m->slot[k] = ++m->n;
	return true;
}

/* The register's step: false when the operation cannot take effect in s. */
static bool apply(const kv_lin_op *o, kv_lin_state s, kv_lin_state *next)
{
	*next = s;
	switch (o->kind) {
	case KV_LIN_READ:
		return s.present && s.value == o->value;
	case KV_LIN_MISS:
		return !s.present;
	case KV_LIN_PUT:
		*next = (kv_lin_state){true, o->value};
		return true;
	case KV_LIN_UPDATE:
		*next = (kv_lin_state){true, o->value};
		return s.present;
	case KV_LIN_REMOVE:
		*next = (kv_lin_state){false, 0};
		return s.present;
	}
	return false;
}

static int by_invoke(const void *a, const void *b)
{
	const kv_lin_op *x = a, *y = b;
	if (x->invoke != y->invoke)
		return x->invoke < y->invoke ? -1 : 1;
	return x->response < y->response ? -1 : x->response > y->response;
}

#define BIT(b, i) ((b)[(i) / 64] >> ((i) % 64) & 1)

/* The operation not yet linearized that returned first: every operation
 * linearized next must have been invoked by then. */
static size_t first_return(const kv_lin_op *ops, size_t n, const uint64_t *bits)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++)
		if (!BIT(bits, i) && (best == n || ops[i].response < ops[best].response))
			best = i;
	return best;
}

typedef struct frame {
	size_t op;
	kv_lin_state before;
	bool forced;   /* a read taken without a choice: nothing else to try at its level */
} frame;

static bool is_read(const kv_lin_op *o) { return o->kind == KV_LIN_READ || o->kind == KV_LIN_MISS; }

/* The next operation to linearize at this level, from `from` on, or n.
 * A read that the register satisfies now is taken first and alone (*forced):
 * it changes nothing, and every operation left returned after it was
 * invoked, so any order that completes the history still does with the
 * read moved here; the search then branches over writes only. */
static size_t next_op(const kv_lin_op *ops, size_t n, const uint64_t *bits, size_t from, kv_lin_state cur,
		      kv_lin_state *next, bool *forced, uint64_t *steps)
{
	uint64_t by = ops[first_return(ops, n, bits)].response;
	*forced = false;
	for (size_t i = 0; from == 0 && i < n && ops[i].invoke <= by; i++)
		if (!BIT(bits, i) && is_read(&ops[i]) && apply(&ops[i], cur, next)) {
			++*steps;
			*forced = true;
			return i;
		}
	for (size_t i = from; i < n && ops[i].invoke <= by; i++) {
		if (BIT(bits, i) || is_read(&ops[i]))
			continue;
		++*steps;
		if (apply(&ops[i], cur, next))
			return i;
	}
	return n;
}

kv_lin_verdict kv_lin_check(kv_lin_op *ops, size_t n, kv_lin_state init, uint64_t max_states,
			    kv_lin_report *rep, void (*tick)(void))
{
	if (n)
		qsort(ops, n, sizeof *ops, by_invoke);
	memo m = {.nw = (n + 63) / 64 ? (n + 63) / 64 : 1, .slot = nm_calloc(1024, sizeof(uint64_t)), .mask = 1023};
	uint64_t *bits = nm_calloc(m.nw, 8);
	frame *stack = nm_calloc(n ? n : 1, sizeof *stack);
	size_t depth = 0, from = 0;
	kv_lin_state cur = init;
	kv_lin_verdict v = KV_LIN_OK;
	uint64_t steps = 0;
	*rep = (kv_lin_report){.total = n, .state = init, .stuck = first_return(ops, n, bits)};
	for (uint64_t round = 1; depth < n; round++) {
		if (tick && round % 4096 == 0)
			tick();
		kv_lin_state next;
		bool forced, moved = false;
		size_t i;
		while ((i = next_op(ops, n, bits, from, cur, &next, &forced, &steps)) < n) {
			bits[i / 64] |= 1ull << (i % 64);
			if (memo_add(&m, bits, next)) {
				stack[depth++] = (frame){i, cur, forced};
				cur = next;
				from = 0;
				moved = true;
				break;
			}
			bits[i / 64] &= ~(1ull << (i % 64));   /* searched before, in vain */
			if (forced)
				break;
			from = i + 1;
		}
		if (moved && depth > rep->linearized)
			*rep = (kv_lin_report){.linearized = depth, .total = n, .state = cur,
					       .stuck = depth < n ? first_return(ops, n, bits) : 0};
		if (max_states && m.n > max_states) {
			v = KV_LIN_UNDECIDED;
			break;
		}
		if (moved)
			continue;
		/* back to the last level that has another write to try */
		frame f;
		do {
			if (depth == 0) {
				v = KV_LIN_VIOLATION;
				goto out;
			}
			f = stack[--depth];
			bits[f.op / 64] &= ~(1ull << (f.op % 64));
			cur = f.before;
		} while (f.forced);
		from = f.op + 1;
	}
out:
	rep->states_seen = m.n;
	rep->steps = steps;
	free(stack);
	free(bits);
	free(m.arena);
	free(m.slot);
	return v;
}
