/* YCSB's key probabilities (ycsb.h): what each distribution gives a key
 * rank, the expected top keys of a configured generator and the chi-square
 * critical values that `netmem ycsb --stats` and the unit tests compare
 * draws with. The generator itself is ycsb.c. */
#include "ycsb.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- probabilities ---- */

double ycsb_prob(ycsb_dist dist, uint64_t n, double theta, uint64_t rank)
{
	if (n == 0 || rank >= n || !(theta > 0))
		return dist == YCSB_SCRAMBLED ? NAN : 0;
	ycsb_zipf z;
	switch (dist) {
	case YCSB_UNIFORM:
		return 1.0 / (double)n;
	case YCSB_ZIPFIAN:
	case YCSB_ZIPFIAN_RI:
		ycsb_zipf_init(&z, n, theta, dist == YCSB_ZIPFIAN_RI, 0);
		return ycsb_zipf_prob(&z, rank, 0);
	case YCSB_LATEST:
		ycsb_zipf_init(&z, n - 1, theta, 0, 0);
		return ycsb_zipf_prob(&z, rank, 0);
	case YCSB_HOTSPOT: {
		uint64_t h = (uint64_t)floor((double)n * 0.2);
		if (h == 0)
			return 0;
		if (h >= n)
			return 1.0 / (double)n;
		return rank < h ? 0.8 / (double)h : 0.2 / (double)(n - h);
	}
	default:
		return NAN;
	}
}

typedef struct {
	uint64_t key;
	double p;
} kp;

static int kp_by_key(const void *a, const void *b)
{
	uint64_t x = ((const kp *)a)->key, y = ((const kp *)b)->key;
	return x < y ? -1 : x > y;
}

static int kp_by_p_desc(const void *a, const void *b)
{
	const kp *x = a, *y = b;
	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

#define SCRAMBLE_ENUM (1ull << 20)

static long scrambled_top(const ycsb_gen *g, size_t k, uint64_t *keys, double *probs, int *exact)
{
	const ycsb_zipf *z = &g->zipf;
	uint64_t m = z->count < SCRAMBLE_ENUM ? z->count : SCRAMBLE_ENUM;
	double zetan = z->ri ? ycsb_zeta(z->count, z->theta) : 0;
	kp *a = malloc(m * sizeof *a);
	if (!a)
		return -1;
	size_t na = 0;
	for (uint64_t i = 0; i < m; i++) {
		int64_t h = ycsb_fnvhash64((int64_t)i);
		if (h < 0)
			continue; /* redrawn */
		a[na].key = ycsb_span_mod(g, (uint64_t)h);
		a[na++].p = ycsb_zipf_prob(z, i, zetan);
	}
	double tail = ycsb_zipf_tail(z, m, zetan);
	double per = tail / (double)g->span; /* tail spread evenly over the key space */
	qsort(a, na, sizeof *a, kp_by_key);
	size_t nu = 0;
	double accepted = 0;
	for (size_t i = 0; i < na; i++) {
		if (nu && a[nu - 1].key == a[i].key) {
			a[nu - 1].p += a[i].p;
			continue;
		}
		a[nu++] = a[i];
	}
	size_t nk = 0; /* keys < count, which are the ones returned */
	for (size_t i = 0; i < nu; i++)
		if (a[i].key < g->count) {
			a[nk] = a[i];
			a[nk].p += per;
			accepted += a[i].p;
			nk++;
		}
	accepted += per * (double)(g->count - nk);
	qsort(a, nk, sizeof *a, kp_by_p_desc);
	size_t want = k < g->count ? k : (size_t)g->count, out = 0;
	for (; out < want && out < nk; out++) {
		keys[out] = a[out].key;
		probs[out] = a[out].p / accepted;
	}
	/* keys no enumerated item maps to: tail share only, smallest keys first */
	if (out < want) {
		qsort(a, nk, sizeof *a, kp_by_key);
		size_t j = 0;
		for (uint64_t key = 0; out < want && key < g->count; key++) {
			while (j < nk && a[j].key < key)
				j++;
			if (j < nk && a[j].key == key)
				continue;
			keys[out] = key;
			probs[out++] = per / accepted;
		}
	}
	free(a);
	if (exact)
		*exact = m == z->count;
	return (long)out;
}

long ycsb_expected_top(const ycsb_gen *g, size_t k, uint64_t *keys, double *probs, int *exact)
{
	const ycsb_config *c = &g->cfg;
	uint64_t n = c->records;
	size_t want = k < n ? k : (size_t)n;
	if (exact)
		*exact = 1;
	switch (c->dist) {
	case YCSB_UNIFORM:
		for (size_t i = 0; i < want; i++) {
			keys[i] = i;
			probs[i] = 1.0 / (double)n;
		}
		return (long)want;
	case YCSB_ZIPFIAN:
	case YCSB_ZIPFIAN_RI:
	case YCSB_LATEST: {
		/* the generator's state at init (latest: records-1 items) */
		ycsb_zipf z = g->zipf;
		uint64_t items = c->dist == YCSB_LATEST ? n - 1 : n;
		if (z.count != items) /* grown by inserts: rebuild the initial state */
			ycsb_zipf_init(&z, items, c->theta, c->dist == YCSB_ZIPFIAN_RI, 0);
		double zetan = z.ri ? ycsb_zeta(z.count, c->theta) : 0;
		for (size_t i = 0; i < want; i++) {
			keys[i] = c->dist == YCSB_LATEST ? n - 1 - i : i;
			probs[i] = ycsb_zipf_prob(&z, i, zetan);
		}
		return (long)want;
	}
	case YCSB_HOTSPOT: {
		uint64_t hot = g->hot_n, cold = n - hot;
		double ph = g->hot_cut == UINT64_MAX ? 1 : (double)g->hot_cut * 0x1.0p-64;
		double pk_hot = ph / (double)hot, pk_cold = cold ? (1 - ph) / (double)cold : 0;
		int cold_first = pk_cold > pk_hot;
		for (size_t i = 0; i < want; i++) {
			uint64_t first = cold_first ? cold : hot;
			if (i < first) {
				keys[i] = cold_first ? hot + i : i;
				probs[i] = cold_first ? pk_cold : pk_hot;
			} else {
				keys[i] = cold_first ? i - first : hot + (i - first);
				probs[i] = cold_first ? pk_hot : pk_cold;
			}
		}
		return (long)want;
	}
	case YCSB_SCRAMBLED:
		return scrambled_top(g, k, keys, probs, exact);
	default:
		return 0;
	}
}

double ycsb_chi2_crit(int df)
{
	const double z = 3.090232306167813; /* upper 0.001 quantile of N(0,1) */
	double a = 2.0 / (9.0 * df);
	double b = 1 - a + z * sqrt(a);
	return df * b * b * b;
}

