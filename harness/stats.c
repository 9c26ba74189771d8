#include "stats.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The bucket layout must reach UINT64_MAX: its top bucket is the last one. */
_Static_assert(NM_HIST_BUCKETS == NM_HIST_LINEAR + (64 - NM_HIST_SUB_BITS - 1) * (1u << NM_HIST_SUB_BITS),
	       "one group of 2^SUB_BITS buckets per power of two from 2^(SUB_BITS+1) to 2^63");
/* The header's promise: a bucket's midpoint within 0.1% of its samples needs
 * a width below 1/500 of its lower bound. */
_Static_assert((1u << NM_HIST_SUB_BITS) >= 500, "buckets narrow enough for 0.1%");

/* The size stats.h states. */
_Static_assert(sizeof(nm_hist) == 229432, "a histogram is 229,432 bytes");

#define SUB (1u << NM_HIST_SUB_BITS)

/* Closed form of the header's layout that needs no branch for the linear part.
 * With S = NM_HIST_SUB_BITS, b = max(floor(log2 v), S) and shift = b - S, the
 * index LINEAR + (b-S-1)*2^S + ((v >> shift) - 2^S) simplifies to
 * shift*2^S + (v >> shift), and for v < LINEAR (shift = 0) that is v itself.
 * OR-ing in bit S both imposes the max(.., S) and keeps clzll's argument
 * non-zero (clzll(0) is undefined). */
static inline size_t hist_index(uint64_t v)
{
	unsigned shift = (63u - NM_HIST_SUB_BITS) - (unsigned)__builtin_clzll(v | SUB);
	return ((size_t)shift << NM_HIST_SUB_BITS) + (size_t)(v >> shift);
}

size_t nm_hist_index(uint64_t v)
{
	return hist_index(v);
}

void nm_hist_bucket_range(size_t idx, uint64_t *lo, uint64_t *hi)
{
	/* An out-of-range index has no bucket; answering with the top one keeps
	 * callers that iterate one past the end from reading garbage. */
	if (idx >= NM_HIST_BUCKETS)
		idx = NM_HIST_BUCKETS - 1;
	/* Inverse of hist_index: idx = shift*2^S + sub with sub in [2^S, 2^(S+1));
	 * the linear range (idx < LINEAR) falls out as shift 0, sub = idx. */
	unsigned shift = idx < NM_HIST_LINEAR ? 0u : (unsigned)(idx >> NM_HIST_SUB_BITS) - 1u;
	uint64_t sub = (uint64_t)idx - ((uint64_t)shift << NM_HIST_SUB_BITS);
	*lo = sub << shift;
	/* lo + (width - 1) rather than (sub + 1) << shift: the latter overflows
	 * for the top bucket, whose hi is UINT64_MAX. */
	*hi = *lo + ((UINT64_C(1) << shift) - 1);
}

void nm_hist_init(nm_hist *h)
{
	memset(h, 0, sizeof *h);
	h->min = UINT64_MAX;
}

void nm_hist_init_zeroed(nm_hist *h)
{
	memset(h, 0, offsetof(nm_hist, bucket));
	h->min = UINT64_MAX;
}

/* Mean and sum of squared deviations from it, from the shifted sums. */
static void moments(const nm_hist *h, double *mean, double *m2)
{
	double n = (double)h->count, m1 = h->s1 / n, q = h->s2 - h->s1 * m1;
	*mean = (double)h->shift + m1;
	/* q can come out a few ulps below zero for (nearly) identical samples. */
	*m2 = q > 0.0 ? q : 0.0;
}

/* Moves the sums' origin to the integer nearest the mean (clamped to
 * [min, max], which also keeps the conversion defined), for n samples of
 * that mean and m2. */
static void recentre(nm_hist *h, double n, double mean, double m2)
{
	uint64_t c = !(mean > (double)h->min) ? h->min : !(mean < (double)h->max) ? h->max : (uint64_t)(mean + 0.5);
	double off = mean - (double)c;
	h->shift = c;
	h->s1 = n * off;
	h->s2 = m2 + n * off * off;
}

/* Out of line: taken log2(count) times in a histogram's life. */
static __attribute__((noinline)) void recentre_self(nm_hist *h)
{
	double mean, m2;
	moments(h, &mean, &m2);
	recentre(h, (double)h->count, mean, m2);
}

void nm_hist_add(nm_hist *h, uint64_t v)
{
	/* Called once per operation inside timed loops: conditional moves for
	 * min/max and a clz-based index keep it free of data-dependent branches,
	 * which latency distributions (mostly one value, rare outliers) would
	 * otherwise mispredict exactly on the interesting samples. The moments
	 * are plain sums of offsets from an origin near the mean, not Welford's
	 * running mean: that one divides by the count on every call, a chain of
	 * about 20 cycles from one call to the next, where these sums are two
	 * independent adds. The origin keeps the sums small (no cancellation
	 * when the spread is small against the mean); moving it to the mean at
	 * every power-of-two count (the first sample, then the mean of 2, 4, 8,
	 * ...) bounds what an outlying early sample costs in precision, for a
	 * branch that is almost never taken. */
	uint64_t n = ++h->count;
	h->sum += v;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	double d = (double)v - (double)h->shift;
	h->s1 += d;
	h->s2 += d * d;
	h->bucket[hist_index(v)]++;
	if (__builtin_expect((n & (n - 1)) == 0, 0))
		recentre_self(h);
}

void nm_hist_merge_head(nm_hist *dst, const nm_hist *src)
{
	if (src->count == 0)
		return;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	if (dst->count == 0) {
		/* Copying keeps merge-into-empty bit-exact instead of going through
		 * the formula's rounding. */
		dst->shift = src->shift;
		dst->s1 = src->s1;
		dst->s2 = src->s2;
	} else {
		/* Chan et al.: combine the two partial moments without revisiting
		 * the samples, then move the origin to the combined mean. */
		double ma, qa, mb, qb;
		moments(dst, &ma, &qa);
		moments(src, &mb, &qb);
		double na = (double)dst->count, nb = (double)src->count, n = na + nb;
		double delta = mb - ma, mean = ma + delta * (nb / n);
		double m2 = qa + qb + delta * delta * (na * nb / n);
		recentre(dst, n, mean, m2);
	}
	dst->count += src->count;
	dst->sum += src->sum;
}

void nm_hist_merge(nm_hist *dst, const nm_hist *src)
{
	if (src->count == 0)
		return;
	/* Only buckets between src's extremes can be non-empty. */
	size_t first = hist_index(src->min), last = hist_index(src->max);
	nm_hist_merge_head(dst, src);
	for (size_t i = first; i <= last; i++)
		dst->bucket[i] += src->bucket[i];
}

/* Bucket midpoint as a double: lo + hi would overflow for the top buckets. */
static double bucket_mid(size_t idx)
{
	uint64_t lo, hi;
	nm_hist_bucket_range(idx, &lo, &hi);
	return (double)lo + (double)(hi - lo) / 2.0;
}

/* The midpoint may lie outside the samples actually seen (e.g. the bucket of
 * the minimum); clamping to the exact extremes can only move it closer. */
static double clamp_to_seen(const nm_hist *h, double x)
{
	double lo = (double)h->min, hi = (double)h->max;
	return x < lo ? lo : x > hi ? hi : x;
}

double nm_hist_quantile(const nm_hist *h, double q)
{
	if (h->count == 0)
		return 0.0;
	/* !(q > 0) also sends NaN here rather than into the rank computation. */
	if (!(q > 0.0))
		return (double)h->min;
	if (q >= 1.0)
		return (double)h->max;
	double kd = ceil(q * (double)h->count);
	uint64_t k = kd < 1.0 ? 1 : kd >= (double)h->count ? h->count : (uint64_t)kd;
	/* The smallest and largest ranks are known exactly; no need to
	 * approximate them by a bucket. */
	if (k == 1)
		return (double)h->min;
	if (k == h->count)
		return (double)h->max;
	/* Only buckets between the extremes can be non-empty. */
	size_t first = hist_index(h->min), last = hist_index(h->max);
	uint64_t cum = 0;
	for (size_t i = first; i <= last; i++) {
		cum += h->bucket[i];
		if (cum >= k)
			return clamp_to_seen(h, bucket_mid(i));
	}
	/* Unreachable when buckets agree with count (not so if the caller edited
	 * the struct); max is the nearest honest answer. */
	return (double)h->max;
}

double nm_hist_mean(const nm_hist *h)
{
	if (h->count == 0)
		return 0.0;
	double m = (double)h->sum / (double)h->count, fm, m2;
	moments(h, &fm, &m2);
	/* The integer sum is exact until it wraps (2^64 ns = 584 years of total
	 * latency, but possible with synthetic or corrupt inputs). A wrapped sum
	 * is off by at least half of the true total, whereas the floating-point
	 * mean is good to ~1e-12, so a gross disagreement identifies the wrap. */
	if (fabs(m - fm) > 1e-6 * fabs(fm))
		return fm;
	return m;
}

double nm_hist_stdev(const nm_hist *h)
{
	if (h->count < 2)
		return 0.0;
	double mean, m2;
	moments(h, &mean, &m2);
	return sqrt(m2 / (double)h->count);
}

static json_t *us_or_null(double ns)
{
	/* json_real rejects non-finite values (returns NULL); null is what the
	 * result file can represent. */
	return isfinite(ns) ? json_real(ns / 1000.0) : json_null();
}

json_t *nm_hist_summary_json(const nm_hist *h)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int empty = h->count == 0;
	/* Empty histograms report null rather than 0: a 0 us latency would be
	 * read as a measurement. */
	struct {
		const char *key;
		double ns;
	} f[] = {
		{"min", (double)h->min},
		{"mean", nm_hist_mean(h)},
		{"stdev", nm_hist_stdev(h)},
		{"p50", nm_hist_quantile(h, 0.50)},
		{"p90", nm_hist_quantile(h, 0.90)},
		{"p99", nm_hist_quantile(h, 0.99)},
		{"p99_9", nm_hist_quantile(h, 0.999)},
		{"max", (double)h->max},
	};
	int bad = json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		bad |= json_object_set_new(o, f[i].key, empty ? json_null() : us_or_null(f[i].ns));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *nm_hist_cdf_json(const nm_hist *h)
{
	json_t *a = json_array();
	if (!a || h->count == 0)
		return a;
	size_t first = hist_index(h->min), last = hist_index(h->max);
	/* Points at grouping 2^g (buckets i >> g together), for every g at once;
	 * the finest g within the cap wins. A group never straddles a power of
	 * two (those start at multiples of 2^S in index space), so at g = S
	 * there is one per power of two: at most NM_HIST_BUCKETS >> S points. */
	_Static_assert((NM_HIST_BUCKETS >> NM_HIST_SUB_BITS) <= NM_HIST_CDF_MAX, "the coarsest grouping fits the cap");
	size_t npts[NM_HIST_SUB_BITS + 1] = {0}, prev[NM_HIST_SUB_BITS + 1];
	for (unsigned g = 0; g <= NM_HIST_SUB_BITS; g++)
		prev[g] = SIZE_MAX;
	for (size_t i = first; i <= last; i++) {
		if (!h->bucket[i])
			continue;
		for (unsigned g = 0; g <= NM_HIST_SUB_BITS; g++)
			if (i >> g != prev[g])
				npts[g]++, prev[g] = i >> g;
	}
	unsigned g = 0;
	while (npts[g] > NM_HIST_CDF_MAX)
		g++;
	uint64_t cum = 0;
	for (size_t i = first; i <= last;) {
		/* The group of i: buckets [i, end) with the same i >> g. */
		size_t end = ((i >> g) + 1) << g, grp = i;
		uint64_t n = 0;
		for (; i < end && i <= last; i++)
			n += h->bucket[i];
		if (!n)
			continue;
		cum += n;
		uint64_t lo, hi, lo2, hi2;
		nm_hist_bucket_range(grp >> g << g, &lo, &hi);
		nm_hist_bucket_range(end - 1, &lo2, &hi2);
		double mid = (double)lo + (double)(hi2 - lo) / 2.0;
		json_t *pt = json_pack("[ff]", clamp_to_seen(h, mid) / 1000.0, (double)cum / (double)h->count);
		if (!pt || json_array_append_new(a, pt)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

double nm_geomean(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	/* Summing logs instead of multiplying: a product of many latencies or
	 * rates overflows or underflows long before the mean does. The sum is
	 * compensated (Neumaier) because exp() turns the absolute error of the
	 * mean log into relative error of the result, and a plain running sum of
	 * same-sign logs loses about log2(n) bits of it. */
	double s = 0.0, c = 0.0;
	bool zero = false;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] >= 0.0) || !isfinite(v[i]))
			return NAN;
		/* A zero (a count of conflicts that had none) makes the mean 0,
		 * the limit of the product's root, not undefined. */
		if (v[i] == 0.0) {
			zero = true;
			continue;
		}
		double x = log(v[i]), t = s + x;
		c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
		s = t;
	}
	return zero ? 0.0 : exp((s + c) / (double)n);
}

int nm_series_init(nm_series *s, uint64_t width_ns, size_t cap)
{
	memset(s, 0, sizeof *s);
	/* nm_series_add divides by width and indexes cap - 1 unchecked. */
	if (width_ns == 0 || cap == 0)
		return -1;
	s->ops = calloc(cap, sizeof *s->ops);
	if (!s->ops)
		return -1;
	s->width_ns = width_ns;
	s->cap = cap;
	return 0;
}

void nm_series_free(nm_series *s)
{
	free(s->ops);
	memset(s, 0, sizeof *s);
}

void nm_series_merge(nm_series *dst, const nm_series *src)
{
	if (dst->cap == 0)
		return;
	/* A too-short dst folds src's tail into its last interval, the same rule
	 * nm_series_add applies, so no operations are lost. */
	for (size_t i = 0; i < src->used; i++) {
		size_t j = i < dst->cap ? i : dst->cap - 1;
		dst->ops[j] += src->ops[i];
	}
	size_t used = src->used < dst->cap ? src->used : dst->cap;
	if (used > dst->used)
		dst->used = used;
}
