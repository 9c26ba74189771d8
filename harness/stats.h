/* Latency statistics with memory independent of run length.
 *
 * nm_hist is a log-bucketed histogram of nanosecond values: values below 128
 * are exact; above, each power-of-two range is split into 64 equal buckets, so
 * a bucket spans at most 1/64 of its lower bound and the value reported for a
 * bucket (its midpoint, clamped to the exact min/max) is within 0.8% of any
 * sample in it. Count, min, max and the sum are exact; the standard deviation
 * comes from Welford's running moments (merged with Chan et al.'s formula),
 * not from the buckets.
 *
 * Percentiles use the nearest-rank definition that perftest uses on its
 * sorted samples: the q-quantile is the smallest recorded value v such that at
 * least ceil(q*n) samples are <= v. */
#ifndef NM_STATS_H
#define NM_STATS_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define NM_HIST_SUB_BITS 6                  /* 64 buckets per power of two */
#define NM_HIST_LINEAR 128                  /* values < 128 are exact */
#define NM_HIST_BUCKETS (NM_HIST_LINEAR + (64 - 7) * 64)

typedef struct nm_hist {
	uint64_t count;
	uint64_t min, max;     /* exact; min = UINT64_MAX when empty */
	uint64_t sum;          /* exact sum of values (ns) */
	double mean, m2;       /* Welford moments */
	uint64_t bucket[NM_HIST_BUCKETS];
} nm_hist;

void nm_hist_init(nm_hist *h);
void nm_hist_add(nm_hist *h, uint64_t v);
/* dst += src (exact for count/min/max/sum/buckets; Chan merge for moments). */
void nm_hist_merge(nm_hist *dst, const nm_hist *src);
/* Bucket index of v, and the [lo, hi] range of values a bucket holds. */
size_t nm_hist_index(uint64_t v);
void nm_hist_bucket_range(size_t idx, uint64_t *lo, uint64_t *hi);
/* q in [0,1]; returns 0 for an empty histogram. */
double nm_hist_quantile(const nm_hist *h, double q);
double nm_hist_mean(const nm_hist *h);
double nm_hist_stdev(const nm_hist *h);   /* population stdev, as perftest */

/* Summary as JSON, values in microseconds (perftest's unit):
 * {"count", "min", "mean", "stdev", "p50", "p90", "p99", "p99_9", "max"}. */
json_t *nm_hist_summary_json(const nm_hist *h);
/* Compact CDF for plots: [[value_us, cumulative_fraction], ...] over the
 * non-empty buckets (at most NM_HIST_BUCKETS points). */
json_t *nm_hist_cdf_json(const nm_hist *h);

/* Geometric mean of n values >= 0 (0 when any is 0); NAN when n == 0 or any
 * value is negative or not finite. */
double nm_geomean(const double *v, size_t n);

/* Per-interval throughput counter: ops completed in each fixed-width interval
 * since start. Intervals beyond cap are folded into the last one. */
typedef struct nm_series {
	uint64_t width_ns;
	size_t cap, used;
	uint64_t *ops;
} nm_series;

int nm_series_init(nm_series *s, uint64_t width_ns, size_t cap);
void nm_series_free(nm_series *s);
static inline void nm_series_add(nm_series *s, uint64_t since_start_ns, uint64_t n)
{
	size_t i = (size_t)(since_start_ns / s->width_ns);
	if (i >= s->cap)
		i = s->cap - 1;
	s->ops[i] += n;
	if (i + 1 > s->used)
		s->used = i + 1;
}
/* dst += src element-wise (same width; dst must have cap >= src->used). */
void nm_series_merge(nm_series *dst, const nm_series *src);
#endif
