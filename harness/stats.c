#include "stats.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The bucket layout must reach UINT64_MAX: its top bucket is the last one. */
_Static_assert(NM_HIST_BUCKETS == NM_HIST_LINEAR + (64 - 7) * 64,
	       "one 64-bucket group per power of two from 2^7 to 2^63");

/* Closed form of the header's layout that needs no branch for the linear part.
 * With b = max(floor(log2 v), 6) and shift = b - 6, the header's index
 * 128 + (b-7)*64 + ((v >> shift) - 64) simplifies to shift*64 + (v >> shift),
 * and for v < 128 (shift = 0) that is v itself. OR-ing in bit 6 both imposes
 * the max(.., 6) and keeps clzll's argument non-zero (clzll(0) is undefined). */
static inline size_t hist_index(uint64_t v)
{
	unsigned shift = 57u - (unsigned)__builtin_clzll(v | 64u);
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
	/* Inverse of hist_index: idx = shift*64 + sub with sub in [64, 127]; the
	 * linear range (idx < 128) falls out as shift 0, sub = idx. */
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

void nm_hist_add(nm_hist *h, uint64_t v)
{
	/* Called once per operation inside timed loops: conditional moves for
	 * min/max and a clz-based index keep it free of data-dependent branches,
	 * which latency distributions (mostly one value, rare outliers) would
	 * otherwise mispredict exactly on the interesting samples. */
	h->count++;
	h->sum += v;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	double x = (double)v;
	double d = x - h->mean;
	h->mean += d / (double)h->count;
	h->m2 += d * (x - h->mean);
	h->bucket[hist_index(v)]++;
}

void nm_hist_merge(nm_hist *dst, const nm_hist *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0) {
		/* Copying the moments keeps merge-into-empty bit-exact instead of
		 * going through the formula's rounding. */
		dst->mean = src->mean;
		dst->m2 = src->m2;
	} else {
		/* Chan et al.: combine the two partial moments without revisiting
		 * the samples. */
		double na = (double)dst->count, nb = (double)src->count, n = na + nb;
		double delta = src->mean - dst->mean;
		dst->mean += delta * (nb / n);
		dst->m2 += src->m2 + delta * delta * (na * nb / n);
	}
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (size_t i = 0; i < NM_HIST_BUCKETS; i++)
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
	double m = (double)h->sum / (double)h->count;
	/* The integer sum is exact until it wraps (2^64 ns = 584 years of total
	 * latency, but possible with synthetic or corrupt inputs). A wrapped sum
	 * is off by at least half of the true total, whereas Welford's mean is
	 * good to ~1e-12, so a gross disagreement identifies the wrap. */
	if (fabs(m - h->mean) > 1e-6 * fabs(h->mean))
		return h->mean;
	return m;
}

double nm_hist_stdev(const nm_hist *h)
{
	if (h->count < 2)
		return 0.0;
	/* m2 can come out a few ulps below zero after merges of identical data. */
	double var = h->m2 / (double)h->count;
	return var > 0.0 ? sqrt(var) : 0.0;
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
	uint64_t cum = 0;
	for (size_t i = first; i <= last; i++) {
		if (!h->bucket[i])
			continue;
		cum += h->bucket[i];
		json_t *pt = json_pack("[ff]", clamp_to_seen(h, bucket_mid(i)) / 1000.0,
				       (double)cum / (double)h->count);
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
