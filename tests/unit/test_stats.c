/* Unit tests for harness/stats.c: bucket layout, quantiles against exact
 * nearest-rank percentiles of the raw samples (within 0.1%, the header's
 * promise, over distributions from below the exact range to near 2^64),
 * moments, merge, JSON output, geometric mean and the throughput series. */
#include "stats.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64*: fixed seed so failures reproduce; rand() differs by libc. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in (0, 1]: never 0, so log() and pow(u, -a) stay finite. */
static double urand(void)
{
	return (double)((rng() >> 11) + 1) * 0x1p-53;
}

/* The header's promise, independent of the layout's parameters. */
#define TOL 0.001

#define S NM_HIST_SUB_BITS
#define SUB ((uint64_t)1 << S)

/* The header's layout written out literally (log2 by loop, no clz), as an
 * independent reference for nm_hist_index. */
static size_t ref_index(uint64_t v)
{
	if (v < NM_HIST_LINEAR)
		return (size_t)v;
	unsigned b = 0;
	for (uint64_t t = v; t > 1; t >>= 1)
		b++;
	unsigned shift = b - S;
	uint64_t sub = v >> shift;
	return NM_HIST_LINEAR + (size_t)(b - S - 1) * SUB + (size_t)(sub - SUB);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank on sorted samples: the ceil(q*n)-th smallest (1-based). */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	double kd = ceil(q * (double)n);
	size_t k = kd < 1.0 ? 1 : kd > (double)n ? n : (size_t)kd;
	return sorted[k - 1];
}

static double rel_err(double got, double want)
{
	if (want == 0.0)
		return got == 0.0 ? 0.0 : INFINITY;
	return fabs(got - want) / fabs(want);
}

static nm_hist *hist_new(void)
{
	nm_hist *h = malloc(sizeof *h);
	if (!h) {
		perror("malloc");
		exit(1);
	}
	nm_hist_init(h);
	return h;
}

/* ---- bucket layout ------------------------------------------------------ */

static void test_buckets(void)
{
	/* Every small value: in its bucket's range, matches the literal layout,
	 * and indices advance by 0 or 1 (monotone, no skipped buckets). */
	int in_range = 1, matches = 1, monotone = 1, no_gap = 1;
	uint64_t bad_v = 0;
	size_t prev = 0;
	for (uint64_t v = 0; v <= 1000000; v++) {
		size_t i = nm_hist_index(v);
		uint64_t lo, hi;
		nm_hist_bucket_range(i, &lo, &hi);
		if (in_range && !(lo <= v && v <= hi))
			in_range = 0, bad_v = v;
		if (matches && i != ref_index(v))
			matches = 0, bad_v = v;
		if (v > 0 && monotone && i < prev)
			monotone = 0, bad_v = v;
		if (v > 0 && no_gap && i > prev + 1)
			no_gap = 0, bad_v = v;
		prev = i;
	}
	CHECK(in_range, "every v in [0,1e6] lies in its bucket's [lo,hi] (first bad %llu)",
	      (unsigned long long)bad_v);
	CHECK(matches, "index matches the header's formula for v in [0,1e6] (first bad %llu)",
	      (unsigned long long)bad_v);
	CHECK(monotone, "bucket index is non-decreasing in v over [0,1e6]");
	CHECK(no_gap, "bucket index never skips a bucket over [0,1e6]");

	/* Whole bucket table: contiguous cover of [0, UINT64_MAX], exact below
	 * LINEAR, width <= lo/2^S above, index(lo) == index(hi) == i, and the
	 * value a bucket reports (its midpoint) within 0.1% of both ends. */
	int contiguous = 1, exact_small = 1, narrow = 1, roundtrip = 1, mid_ok = 1;
	double worst_mid = 0;
	size_t bad_i = 0;
	uint64_t first_lo, last_hi, phi = 0;
	nm_hist_bucket_range(0, &first_lo, &phi);
	for (size_t i = 0; i < NM_HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		nm_hist_bucket_range(i, &lo, &hi);
		if (i > 0 && contiguous && lo != phi + 1)
			contiguous = 0, bad_i = i;
		if (i < NM_HIST_LINEAR && exact_small && !(lo == i && hi == i))
			exact_small = 0, bad_i = i;
		/* width = hi - lo + 1 <= 2^(63-S), so width * 2^S cannot overflow. */
		if (i >= NM_HIST_LINEAR && narrow && (hi - lo + 1) * SUB > lo)
			narrow = 0, bad_i = i;
		double mid = (double)lo + (double)(hi - lo) / 2.0;
		double e = fmax(rel_err(mid, (double)lo), rel_err(mid, (double)hi));
		if (lo > 0 && e > worst_mid)
			worst_mid = e;
		if (lo > 0 && mid_ok && e > TOL)
			mid_ok = 0, bad_i = i;
		if (roundtrip && (nm_hist_index(lo) != i || nm_hist_index(hi) != i))
			roundtrip = 0, bad_i = i;
		phi = hi;
	}
	last_hi = phi;
	CHECK(first_lo == 0 && contiguous, "buckets tile [0,..] without gaps or overlaps (bad %zu)", bad_i);
	CHECK(last_hi == UINT64_MAX, "last bucket ends at UINT64_MAX");
	CHECK(exact_small, "buckets below %u hold one value each (bad %zu)", NM_HIST_LINEAR, bad_i);
	CHECK(narrow, "relative bucket width <= 1/%llu for every bucket >= %u (bad %zu)", (unsigned long long)SUB,
	      NM_HIST_LINEAR, bad_i);
	CHECK(mid_ok, "every bucket's midpoint is within 0.1%% of its lowest and highest value (worst %.3g%%, bad %zu)",
	      worst_mid * 100, bad_i);
	CHECK(roundtrip, "index(lo) == index(hi) == i for every bucket (bad %zu)", bad_i);

	/* Large values, including every power-of-two boundary. */
	CHECK(nm_hist_index(UINT64_MAX) == NM_HIST_BUCKETS - 1,
	      "UINT64_MAX maps to the last bucket (%zu)", nm_hist_index(UINT64_MAX));
	CHECK(nm_hist_index(UINT64_MAX - 1) == NM_HIST_BUCKETS - 1 &&
		      nm_hist_index(UINT64_C(1) << 63) < NM_HIST_BUCKETS &&
		      nm_hist_index((UINT64_C(1) << 63) - 1) < NM_HIST_BUCKETS,
	      "values near 2^63 and UINT64_MAX map inside the array");
	int pow2_ok = 1;
	for (unsigned b = 0; b < 64; b++) {
		uint64_t p = UINT64_C(1) << b;
		uint64_t vs[3] = {p - 1, p, p + 1};
		for (int j = 0; j < 3; j++) {
			size_t i = nm_hist_index(vs[j]);
			uint64_t lo, hi;
			nm_hist_bucket_range(i < NM_HIST_BUCKETS ? i : 0, &lo, &hi);
			if (i >= NM_HIST_BUCKETS || i != ref_index(vs[j]) || vs[j] < lo || vs[j] > hi)
				pow2_ok = 0;
		}
	}
	CHECK(pow2_ok, "2^b-1, 2^b, 2^b+1 for b<64: in range, in bucket, match formula");
	int rnd_ok = 1;
	for (int k = 0; k < 1000000; k++) {
		uint64_t v = rng() >> (rng() % 64);
		size_t i = nm_hist_index(v);
		uint64_t lo = 0, hi = 0;
		if (i < NM_HIST_BUCKETS)
			nm_hist_bucket_range(i, &lo, &hi);
		if (i >= NM_HIST_BUCKETS || i != ref_index(v) || v < lo || v > hi) {
			rnd_ok = 0;
			break;
		}
	}
	CHECK(rnd_ok, "1e6 random values of all magnitudes: in range, in bucket, match formula");

	nm_hist *h = hist_new();
	nm_hist_add(h, UINT64_MAX);
	nm_hist_add(h, UINT64_MAX - 5);
	nm_hist_add(h, UINT64_MAX);
	CHECK(h->bucket[NM_HIST_BUCKETS - 1] == 3 && h->max == UINT64_MAX && h->min == UINT64_MAX - 5,
	      "adding values near UINT64_MAX lands in the last bucket");
	CHECK(nm_hist_quantile(h, 0.5) == (double)UINT64_MAX,
	      "quantile near UINT64_MAX is clamped to the exact extremes (%g)", nm_hist_quantile(h, 0.5));
	free(h);
}

static int hist_equal_exact(const nm_hist *a, const nm_hist *b)
{
	return a->count == b->count && a->min == b->min && a->max == b->max && a->sum == b->sum &&
	       memcmp(a->bucket, b->bucket, sizeof a->bucket) == 0;
}

/* ---- distributions ------------------------------------------------------ */

/* The last three have sums that can wrap (values up to 2^62 and beyond). */
enum dist {
	UNIFORM, WIDE, LOGUNI, EXPO, LOGNORMAL, BIMODAL, HEAVY, CONSTANT, SMALL, TINY, STRADDLE, POW2, HUGE, NEAR_MAX,
	NDIST
};
static const char *dist_name[NDIST] = {
	"uniform(1us..100us)", "uniform(0..2^40)", "log-uniform(1ns..1000s)", "exponential", "log-normal(35us)",
	"bimodal", "heavy-tail", "constant", "small(<300)", "tiny(<1024)", "straddling 1024..4096",
	"near powers of two", "huge(2^62..2^64)", "near UINT64_MAX"};

/* Standard normal by Box-Muller (one of the pair). */
static double gauss(void)
{
	return sqrt(-2.0 * log(urand())) * cos(6.283185307179586 * urand());
}

static uint64_t draw(enum dist d)
{
	switch (d) {
	case UNIFORM:
		return 1000 + rng() % 99001;              /* [1 us, 100 us] */
	case WIDE:
		return rng() >> 24;                       /* [0, 2^40): 0 to 18 min */
	case LOGUNI:
		return (uint64_t)pow(10.0, 12.0 * urand());
	case EXPO:
		return (uint64_t)(-5000.0 * log(urand())); /* mean 5 us */
	case LOGNORMAL:                                   /* median 35 us, sigma 0.3 */
		return (uint64_t)(35000.0 * exp(0.3 * gauss()));
	case BIMODAL:                                     /* 90% ~2 us, 10% ~50 us */
		return rng() % 10 ? 1900 + rng() % 201 : 48000 + rng() % 4001;
	case HEAVY:                                       /* Pareto, alpha 1.1 */
		return (uint64_t)(1000.0 * pow(urand(), -1.0 / 1.1));
	case CONSTANT:
		return 4242;
	case POW2: {                                      /* 2^b - 3 .. 2^b + 3 */
		uint64_t p = UINT64_C(1) << (10 + rng() % 53);
		return p - 3 + rng() % 7;
	}
	case SMALL:                                       /* inside the exact range */
		return rng() % 300;
	case TINY:
		return rng() % NM_HIST_LINEAR;
	case STRADDLE:                                    /* exact and bucketed */
		return rng() % (4 * NM_HIST_LINEAR);
	case HUGE:
		return rng() | UINT64_C(1) << 62;
	case NEAR_MAX:
		return UINT64_MAX - rng() % (UINT64_C(1) << 56);
	default:
		return 0;
	}
}

/* got against the exact order statistic: equal in the exact range, within
 * 0.1% above it. */
static int close_enough(double got, uint64_t want)
{
	return want < NM_HIST_LINEAR ? got == (double)want : rel_err(got, (double)want) <= TOL;
}

static void test_distribution(enum dist d, size_t n)
{
	const char *name = dist_name[d];
	uint64_t *s = malloc(n * sizeof *s);
	if (!s) {
		perror("malloc");
		exit(1);
	}
	nm_hist *h = hist_new(), *part[3] = {hist_new(), hist_new(), hist_new()};
	uint64_t sum = 0;
	int wrapped = 0;
	long double lsum = 0;
	for (size_t i = 0; i < n; i++) {
		s[i] = draw(d);
		wrapped |= __builtin_add_overflow(sum, s[i], &sum);
		lsum += (long double)s[i];
		nm_hist_add(h, s[i]);
		nm_hist_add(part[rng() % 3], s[i]);
	}
	qsort(s, n, sizeof *s, cmp_u64);

	/* The same samples split three ways at random and merged. */
	for (int p = 1; p < 3; p++)
		nm_hist_merge(part[0], part[p]);
	int same_q = 1;
	for (int k = 0; k <= 1000; k++)
		same_q &= nm_hist_quantile(part[0], k / 1000.0) == nm_hist_quantile(h, k / 1000.0);
	CHECK(hist_equal_exact(part[0], h) && same_q &&
		      rel_err(nm_hist_stdev(part[0]), nm_hist_stdev(h)) < 1e-9,
	      "%s n=%zu: a random three-way split merged equals one histogram of all samples", name, n);
	for (int p = 0; p < 3; p++)
		free(part[p]);

	CHECK(h->count == n && h->sum == sum && h->min == s[0] && h->max == s[n - 1],
	      "%s n=%zu: exact count %llu, sum %llu, min %llu, max %llu", name, n,
	      (unsigned long long)h->count, (unsigned long long)h->sum,
	      (unsigned long long)h->min, (unsigned long long)h->max);

	double mean = nm_hist_mean(h);
	long double lm = lsum / (long double)n;
	if (!wrapped)
		CHECK(mean == (double)sum / (double)n, "%s n=%zu: mean %.6f == sum/n %.6f", name, n, mean,
		      (double)sum / (double)n);
	else
		CHECK(rel_err(mean, (double)lm) < 1e-9, "%s n=%zu: mean %.6g of a wrapped sum from the moments (%.6Lg)",
		      name, n, mean, lm);
	double fm = (double)h->shift + h->s1 / (double)h->count;
	CHECK(rel_err(fm, (double)lm) < 1e-9, "%s n=%zu: floating-point mean %.6f agrees with the exact mean", name, n,
	      fm);

	/* Two-pass population stdev in long double as the reference. */
	long double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += ((long double)s[i] - lm) * ((long double)s[i] - lm);
	double sd_ref = n < 2 ? 0.0 : (double)sqrtl(ss / (long double)n);
	double sd = nm_hist_stdev(h);
	CHECK(rel_err(sd, sd_ref) < 1e-9, "%s n=%zu: stdev %.6f vs two-pass %.6f", name, n, sd, sd_ref);

	static const struct {
		double q;
		const char *label;
	} qs[] = {{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}, {0.999, "p99.9"}};
	for (size_t j = 0; j < sizeof qs / sizeof qs[0]; j++) {
		double got = nm_hist_quantile(h, qs[j].q);
		uint64_t want = exact_quantile(s, n, qs[j].q);
		CHECK(close_enough(got, want), "%s n=%zu: %s %.17g within 0.1%% of exact %llu (%.3g%%)", name, n,
		      qs[j].label, got, (unsigned long long)want, rel_err(got, (double)want) * 100);
	}
	CHECK(nm_hist_quantile(h, 0.0) == (double)s[0] && nm_hist_quantile(h, 1.0) == (double)s[n - 1],
	      "%s n=%zu: q=0 is min and q=1 is max", name, n);

	/* Sweep: q = 0..1 in steps of 0.001, the far tail, and random q. */
	int sweep_ok = 1;
	double bad_q = 0, bad_got = 0, worst = 0;
	uint64_t bad_want = 0;
	for (int k = 0; k <= 3000; k++) {
		double q = k <= 1000 ? k / 1000.0 : k <= 1010 ? 1.0 - pow(10.0, -(k - 1000) / 2.0) : urand();
		double got = nm_hist_quantile(h, q);
		uint64_t want = exact_quantile(s, n, q);
		if (want > 0 && rel_err(got, (double)want) > worst)
			worst = rel_err(got, (double)want);
		if (sweep_ok && !close_enough(got, want))
			sweep_ok = 0, bad_q = q, bad_got = got, bad_want = want;
	}
	CHECK(sweep_ok,
	      "%s n=%zu: 3000 q (0..1 step 0.001, tail, random) within 0.1%%, exact below %u (worst %.3g%%; q=%g: %.17g vs %llu)",
	      name, n, NM_HIST_LINEAR, worst * 100, bad_q, bad_got, (unsigned long long)bad_want);
	free(h);
	free(s);
}

/* Moments when the first sample (their origin) is an outlier, as the first
 * operation of a run can be: the sums are of offsets from it. */
static void test_outlier_first(void)
{
	enum { N = 1000000 };
	nm_hist *h = hist_new();
	uint64_t *s = malloc(N * sizeof *s);
	s[0] = 1000000000; /* 1 s, then ~35 us */
	for (size_t i = 1; i < N; i++)
		s[i] = draw(LOGNORMAL);
	long double lsum = 0, ss = 0;
	for (size_t i = 0; i < N; i++)
		nm_hist_add(h, s[i]), lsum += (long double)s[i];
	long double lm = lsum / N;
	for (size_t i = 0; i < N; i++)
		ss += ((long double)s[i] - lm) * ((long double)s[i] - lm);
	double sd_ref = (double)sqrtl(ss / N), sd = nm_hist_stdev(h);
	CHECK(rel_err(sd, sd_ref) < 1e-9, "an outlying first sample: stdev %.9g vs two-pass %.9g (%.2g)", sd, sd_ref,
	      rel_err(sd, sd_ref));
	free(s);
	free(h);
}

static void test_empty_and_tiny(void)
{
	nm_hist *h = hist_new();
	CHECK(h->count == 0 && h->min == UINT64_MAX && h->max == 0 && h->sum == 0,
	      "init: empty with min = UINT64_MAX");
	nm_hist *z = calloc(1, sizeof *z);
	nm_hist_init_zeroed(z);
	CHECK(memcmp(z, h, sizeof *h) == 0, "init_zeroed on calloc'ed memory equals init");
	free(z);
	CHECK(nm_hist_quantile(h, 0.5) == 0.0 && nm_hist_mean(h) == 0.0 && nm_hist_stdev(h) == 0.0,
	      "empty histogram: quantile, mean, stdev are 0");
	nm_hist_add(h, 777);
	CHECK(nm_hist_stdev(h) == 0.0 && nm_hist_quantile(h, 0.5) == 777.0 && nm_hist_mean(h) == 777.0,
	      "one sample: stdev 0, every quantile is the sample");
	nm_hist_add(h, 100000);
	/* Two samples: nearest rank puts p50 on the smaller one (k = 1). */
	CHECK(nm_hist_quantile(h, 0.5) == 777.0 && nm_hist_quantile(h, 0.51) == 100000.0,
	      "two samples: p50 is the lower, p51 the upper (%.1f, %.1f)",
	      nm_hist_quantile(h, 0.5), nm_hist_quantile(h, 0.51));
	CHECK(nm_hist_quantile(h, NAN) == 777.0 && nm_hist_quantile(h, -1) == 777.0 &&
		      nm_hist_quantile(h, 2) == 100000.0,
	      "q outside [0,1] (or NaN) clamps to min/max");
	free(h);
}

/* ---- merge -------------------------------------------------------------- */

static void test_merge(void)
{
	enum { N = 100000 };
	uint64_t *s = malloc(N * sizeof *s);
	nm_hist *all = hist_new(), *part[4], *m = hist_new();
	for (int p = 0; p < 4; p++)
		part[p] = hist_new();
	for (size_t i = 0; i < N; i++) {
		s[i] = draw((enum dist)(i % POW2)); /* every shape whose sum does not wrap */
		nm_hist_add(all, s[i]);
	}
	/* Sorted, unevenly sized chunks give the parts very different means,
	 * which is where Chan's cross term matters. */
	qsort(s, N, sizeof *s, cmp_u64);
	size_t cut[5] = {0, N / 10, N / 10 + 3, N / 2, N};
	for (int p = 0; p < 4; p++)
		for (size_t i = cut[p]; i < cut[p + 1]; i++)
			nm_hist_add(part[p], s[i]);
	for (int p = 0; p < 4; p++)
		nm_hist_merge(m, part[p]);

	CHECK(hist_equal_exact(m, all), "merge of 4 sorted chunks: buckets, count, min, max, sum identical");
	CHECK(nm_hist_mean(m) == nm_hist_mean(all), "merge of 4 sorted chunks: mean %.9g vs %.9g", nm_hist_mean(m),
	      nm_hist_mean(all));
	CHECK(rel_err(nm_hist_stdev(m), nm_hist_stdev(all)) < 1e-9,
	      "merge of 4 sorted chunks: stdev %.9f vs %.9f", nm_hist_stdev(m), nm_hist_stdev(all));
	int same_q = 1;
	for (int k = 0; k <= 1000; k++)
		same_q &= nm_hist_quantile(m, k / 1000.0) == nm_hist_quantile(all, k / 1000.0);
	CHECK(same_q, "merge of 4 sorted chunks: the same quantiles for q = 0..1 step 0.001");

	/* The MPI merge's way (boot.c): heads merged in order, buckets summed
	 * apart. */
	nm_hist *r = hist_new();
	uint64_t *sum = calloc(NM_HIST_BUCKETS, sizeof *sum);
	for (int p = 0; p < 4; p++) {
		nm_hist_merge_head(r, part[p]);
		for (size_t i = 0; i < NM_HIST_BUCKETS; i++)
			sum[i] += part[p]->bucket[i];
	}
	memcpy(r->bucket, sum, sizeof r->bucket);
	CHECK(hist_equal_exact(r, m) && r->shift == m->shift && r->s1 == m->s1 && r->s2 == m->s2,
	      "heads merged apart plus summed buckets equal nm_hist_merge, bit for bit");
	free(sum);
	free(r);

	/* Random assignment, merged into part[0] instead of an empty histogram. */
	for (int p = 0; p < 4; p++)
		nm_hist_init(part[p]);
	for (size_t i = 0; i < N; i++)
		nm_hist_add(part[rng() % 4], s[N - 1 - i]);
	for (int p = 1; p < 4; p++)
		nm_hist_merge(part[0], part[p]);
	CHECK(hist_equal_exact(part[0], all), "merge of random split: buckets, count, min, max, sum identical");
	CHECK(nm_hist_mean(part[0]) == nm_hist_mean(all) &&
		      rel_err(nm_hist_stdev(part[0]), nm_hist_stdev(all)) < 1e-9,
	      "merge of random split: mean and stdev within 1e-9");

	/* Empty source: bit-for-bit no-op. Empty destination: becomes src. */
	nm_hist *e = hist_new();
	memcpy(m, all, sizeof *m);
	nm_hist_merge(m, e);
	CHECK(memcmp(m, all, sizeof *m) == 0, "merging an empty histogram is a no-op");
	nm_hist_merge(e, all);
	CHECK(memcmp(e, all, sizeof *e) == 0, "merging into an empty histogram copies the source");

	free(e);
	for (int p = 0; p < 4; p++)
		free(part[p]);
	free(m);
	free(all);
	free(s);
}

/* ---- JSON --------------------------------------------------------------- */

static double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_real(v) ? json_real_value(v) : NAN;
}

static void test_summary_json(void)
{
	static const char *keys[] = {"count", "min", "mean", "stdev", "p50",
				     "p90", "p99", "p99_9", "max"};
	nm_hist *h = hist_new();
	nm_hist_add(h, 1000);
	nm_hist_add(h, 2000);
	nm_hist_add(h, 3000);
	json_t *o = nm_hist_summary_json(h);
	CHECK(json_is_object(o), "summary is a JSON object");
	int all_keys = 1;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_object_get(o, keys[i]))
			all_keys = 0;
	CHECK(all_keys && json_object_size(o) == 9, "summary has exactly the 9 documented keys");
	CHECK(json_is_integer(json_object_get(o, "count")) &&
		      json_integer_value(json_object_get(o, "count")) == 3,
	      "summary count is the integer 3");
	int reals = 1;
	for (size_t i = 1; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_is_real(json_object_get(o, keys[i])))
			reals = 0;
	CHECK(reals, "summary statistics are JSON reals");
	CHECK(rel_err(jnum(o, "p50"), 2.0) < 0.01, "1000,2000,3000 ns: p50 %.4f us ~ 2.0", jnum(o, "p50"));
	CHECK(jnum(o, "min") == 1.0 && jnum(o, "max") == 3.0 && jnum(o, "mean") == 2.0,
	      "min/mean/max in us: %.4f %.4f %.4f", jnum(o, "min"), jnum(o, "mean"), jnum(o, "max"));
	CHECK(rel_err(jnum(o, "p90"), 3.0) < 0.01 && rel_err(jnum(o, "p99_9"), 3.0) < 0.01,
	      "p90 and p99_9 are the largest sample: %.4f %.4f", jnum(o, "p90"), jnum(o, "p99_9"));
	CHECK(rel_err(jnum(o, "stdev"), sqrt(2.0 / 3.0)) < 1e-9,
	      "stdev %.6f us is the population stdev sqrt(2/3)", jnum(o, "stdev"));
	json_decref(o);

	nm_hist_init(h);
	o = nm_hist_summary_json(h);
	int nulls = 1;
	for (size_t i = 1; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_is_null(json_object_get(o, keys[i])))
			nulls = 0;
	CHECK(json_is_integer(json_object_get(o, "count")) &&
		      json_integer_value(json_object_get(o, "count")) == 0,
	      "empty summary: count 0");
	CHECK(nulls && json_is_null(json_object_get(o, "p50")), "empty summary: every statistic is null");
	json_decref(o);
	free(h);
}

/* Checks a CDF against the sorted samples: as many points as the finest
 * grouping of 2^g adjacent buckets with at most NM_HIST_CDF_MAX non-empty
 * groups has groups, each at its group's clamped midpoint, with the exact
 * share of samples in its group and below. Returns the grouping. */
static int check_cdf(const char *what, const nm_hist *h, const uint64_t *s, size_t n)
{
	/* The reference grouping, from the samples themselves. */
	unsigned g = 0;
	size_t groups = 0;
	for (;; g++) {
		groups = 0;
		for (size_t j = 0; j < n; j++)
			groups += j == 0 || nm_hist_index(s[j]) >> g != nm_hist_index(s[j - 1]) >> g;
		if (groups <= NM_HIST_CDF_MAX || g == NM_HIST_SUB_BITS)
			break;
	}
	json_t *a = nm_hist_cdf_json(h);
	size_t len = json_array_size(a);
	CHECK(json_is_array(a) && len == groups && len <= NM_HIST_CDF_MAX,
	      "%s: cdf has one point per non-empty group of %u bucket(s) (%zu vs %zu, cap %d)", what, 1u << g, len,
	      groups, NM_HIST_CDF_MAX);
	int shape = 1, mono = 1, frac_ok = 1, val_ok = 1;
	double pv = -1, pf = 0;
	size_t j = 0; /* walks the sorted samples */
	for (size_t k = 0; k < len && k < groups; k++) {
		json_t *pt = json_array_get(a, k);
		if (!json_is_array(pt) || json_array_size(pt) != 2 || !json_is_real(json_array_get(pt, 0)) ||
		    !json_is_real(json_array_get(pt, 1))) {
			shape = 0;
			break;
		}
		double v = json_real_value(json_array_get(pt, 0));
		double f = json_real_value(json_array_get(pt, 1));
		if (!(v > pv && f > pf && f <= 1.0))
			mono = 0;
		/* This point's group is that of the next sample not yet counted. */
		size_t grp = nm_hist_index(s[j]) >> g;
		uint64_t lo, hi, lo2, hi2;
		nm_hist_bucket_range(grp << g, &lo, &hi);
		nm_hist_bucket_range(((grp + 1) << g) - 1, &lo2, &hi2);
		while (j < n && nm_hist_index(s[j]) >> g == grp)
			j++;
		if (f != (double)j / (double)n)
			frac_ok = 0;
		double mid = fmin(fmax((double)lo + (double)(hi2 - lo) / 2, (double)s[0]), (double)s[n - 1]);
		if (v != mid / 1000.0)
			val_ok = 0;
		pv = v;
		pf = f;
	}
	CHECK(shape, "%s: cdf points are [real, real] pairs", what);
	CHECK(mono, "%s: cdf values and fractions strictly increase", what);
	CHECK(frac_ok, "%s: cdf fractions equal the exact share of samples at or below each group", what);
	CHECK(val_ok, "%s: cdf values are the groups' midpoints in us, clamped to min and max", what);
	CHECK(len > 0 && pf == 1.0, "%s: cdf ends at fraction 1.0 (%.17g)", what, pf);
	json_decref(a);
	return (int)g;
}

static void test_cdf_json(void)
{
	enum { N = 20000 };
	nm_hist *h = hist_new();
	uint64_t *s = malloc(N * sizeof *s);
	/* Few buckets: one point per bucket, as before any grouping. */
	for (size_t i = 0; i < N; i++) {
		s[i] = draw(i % 2 ? BIMODAL : CONSTANT) / 8 * 8;
		nm_hist_add(h, s[i]);
	}
	qsort(s, N, sizeof *s, cmp_u64);
	size_t nonempty = 0;
	for (size_t i = 0; i < NM_HIST_BUCKETS; i++)
		nonempty += h->bucket[i] != 0;
	CHECK(nonempty <= NM_HIST_CDF_MAX, "few buckets: %zu non-empty", nonempty);
	CHECK(check_cdf("few buckets", h, s, N) == 0, "few buckets: no grouping");

	/* Many buckets: grouped under the cap, at each width. */
	static const enum dist wide[] = {LOGNORMAL, UNIFORM, LOGUNI, STRADDLE, WIDE, HEAVY};
	for (size_t w = 0; w < sizeof wide / sizeof wide[0]; w++) {
		nm_hist_init(h);
		for (size_t i = 0; i < N; i++) {
			s[i] = draw(wide[w]);
			nm_hist_add(h, s[i]);
		}
		qsort(s, N, sizeof *s, cmp_u64);
		int g = check_cdf(dist_name[wide[w]], h, s, N);
		CHECK(g > 0, "%s: grouped by %d", dist_name[wide[w]], 1 << g);
	}

	nm_hist_init(h);
	json_t *a = nm_hist_cdf_json(h);
	CHECK(json_is_array(a) && json_array_size(a) == 0, "empty histogram: empty cdf");
	json_decref(a);
	free(s);
	free(h);
}

/* ---- geomean and series ------------------------------------------------- */

static void test_geomean(void)
{
	double a[] = {1, 10, 100};
	CHECK(fabs(nm_geomean(a, 3) - 10.0) < 1e-12, "geomean{1,10,100} = %.17g", nm_geomean(a, 3));
	double b[] = {2, 8};
	CHECK(fabs(nm_geomean(b, 2) - 4.0) < 1e-12, "geomean{2,8} = %.17g", nm_geomean(b, 2));
	CHECK(isnan(nm_geomean(NULL, 0)), "geomean{} is NAN");
	double c[] = {1, 0};
	CHECK(nm_geomean(c, 2) == 0.0, "geomean{1,0} is 0 (a zero count is a measurement)");
	double d[] = {1, -4};
	CHECK(isnan(nm_geomean(d, 2)), "geomean with a negative value is NAN");
	double e[] = {1, INFINITY}, f[] = {NAN, 1};
	CHECK(isnan(nm_geomean(e, 2)) && isnan(nm_geomean(f, 2)), "geomean with inf or NaN is NAN");
	/* 1000 values of 1e300: a naive product overflows, the log sum does not. */
	double *g = malloc(1000 * sizeof *g);
	for (int i = 0; i < 1000; i++)
		g[i] = 1e300;
	CHECK(rel_err(nm_geomean(g, 1000), 1e300) < 1e-12, "geomean of 1000 x 1e300 is 1e300");
	free(g);
}

static void test_series(void)
{
	nm_series s, t;
	CHECK(nm_series_init(&s, 100, 0) == -1 && nm_series_init(&s, 0, 4) == -1,
	      "series_init rejects cap 0 and width 0");
	CHECK(nm_series_init(&s, 100, 4) == 0 && s.ops && s.cap == 4 && s.used == 0 && s.width_ns == 100,
	      "series_init allocates cap intervals");
	int zeroed = 1;
	for (size_t i = 0; i < s.cap; i++)
		zeroed &= s.ops[i] == 0;
	CHECK(zeroed, "series starts zeroed");
	nm_series_add(&s, 0, 1);
	nm_series_add(&s, 99, 2);
	nm_series_add(&s, 100, 5);
	CHECK(s.ops[0] == 3 && s.ops[1] == 5 && s.used == 2, "series buckets by width (%llu %llu, used %zu)",
	      (unsigned long long)s.ops[0], (unsigned long long)s.ops[1], s.used);
	nm_series_add(&s, 399, 7);
	nm_series_add(&s, 400, 11);
	nm_series_add(&s, UINT64_MAX, 13);
	CHECK(s.ops[3] == 31 && s.ops[2] == 0 && s.used == 4, "adds beyond cap fold into the last interval (%llu)",
	      (unsigned long long)s.ops[3]);

	CHECK(nm_series_init(&t, 100, 4) == 0, "second series");
	nm_series_add(&t, 250, 100);
	nm_series_merge(&t, &s);
	CHECK(t.ops[0] == 3 && t.ops[1] == 5 && t.ops[2] == 100 && t.ops[3] == 31 && t.used == 4,
	      "series merge sums element-wise and takes the larger used");
	nm_series_free(&s);
	CHECK(s.ops == NULL && s.cap == 0, "series_free releases and clears");

	/* A shorter destination folds the source's tail, losing no operations. */
	CHECK(nm_series_init(&s, 100, 2) == 0, "short series");
	nm_series_merge(&s, &t);
	CHECK(s.ops[0] == 3 && s.ops[1] == 136 && s.used == 2, "merge into a shorter series folds into its last");
	nm_series_free(&s);
	nm_series_free(&t);
}

int main(void)
{
	test_buckets();
	test_empty_and_tiny();
	static const size_t sizes[] = {1, 2, 10, 1000, 100000};
	for (int d = 0; d < NDIST; d++)
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			test_distribution((enum dist)d, sizes[i]);
	test_outlier_first();
	test_merge();
	test_summary_json();
	test_cdf_json();
	test_geomean();
	test_series();
	return tap_done();
}
