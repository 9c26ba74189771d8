/* Latency statistics with memory independent of run length.
 *
 * nm_hist: a log-bucketed histogram of nanosecond values at HdrHistogram's 3
 * significant digits. Exact: count, min, max, sum, and every percentile below
 * 1024 ns. Within 0.1% of the exact order statistic: every percentile above,
 * over the whole uint64_t range (each power of two is split into 512 buckets;
 * a bucket reports its midpoint, clamped to min/max, within 1/1024 of every
 * sample it holds). The standard deviation comes from double-precision sums
 * of offsets from an origin near the mean, not from the buckets. Memory:
 * 28,672 buckets of 8 bytes, 224 KiB (229,432 bytes) per histogram.
 *
 * Percentiles use the nearest-rank definition that perftest uses on its
 * sorted samples: the q-quantile is the smallest recorded value v such that at
 * least ceil(q*n) samples are <= v. */
#ifndef NM_STATS_H
#define NM_STATS_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* One flat array over the whole uint64_t range rather than a capped range
 * with an overflow bucket (2^40 ns would save 96 KiB, but a percentile
 * above it would have no bound) or two levels (a pointer chase, or an allocation, on
 * the timed path): 224 KiB stays below what a histogram per thread and per
 * operation kind can afford, and nm_hist_add stays one clz, two shifts and
 * an increment. The MPI merge sums buckets in a reduction (boot.c), so rank
 * 0 holds two histograms whatever the number of ranks. */
#define NM_HIST_SUB_BITS 9                                  /* 512 buckets per power of two */
#define NM_HIST_LINEAR (2u << NM_HIST_SUB_BITS)             /* values < 1024 are exact */
#define NM_HIST_BUCKETS (NM_HIST_LINEAR + ((64u - NM_HIST_SUB_BITS - 1u) << NM_HIST_SUB_BITS))
/* At most this many points in nm_hist_cdf_json's output. */
#define NM_HIST_CDF_MAX 256

typedef struct nm_hist {
	uint64_t count;
	uint64_t min, max;     /* exact; min = UINT64_MAX when empty */
	uint64_t sum;          /* exact sum of values (ns) */
	uint64_t shift;        /* the moments' origin, near the mean */
	double s1, s2;         /* sums of (v - shift) and (v - shift)^2 */
	uint64_t bucket[NM_HIST_BUCKETS];
} nm_hist;

void nm_hist_init(nm_hist *h);
/* The same for memory already zeroed (calloc): writes the header alone, so
 * buckets no sample reaches are never touched and, in a large allocation,
 * never made resident. */
void nm_hist_init_zeroed(nm_hist *h);
void nm_hist_add(nm_hist *h, uint64_t v);
/* dst += src (exact for count/min/max/sum/buckets; Chan et al.'s formula for
 * the moments). */
void nm_hist_merge(nm_hist *dst, const nm_hist *src);
/* The same for everything but the buckets, which a caller sums elsewhere (an
 * MPI reduction); src's buckets are not read. */
void nm_hist_merge_head(nm_hist *dst, const nm_hist *src);
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
/* Compact CDF for plots: [[value_us, cumulative_fraction], ...], one point
 * per non-empty bucket, or, when more than NM_HIST_CDF_MAX are non-empty, per
 * non-empty group of 2, 4, ... adjacent buckets (the finest grouping that
 * fits; whole powers of two at worst, at most 56 points). A point's value is
 * its group's midpoint clamped to min/max; its fraction, exact, counts the
 * samples in its group and below. */
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
