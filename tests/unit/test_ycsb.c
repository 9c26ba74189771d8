/* YCSB generator: exact probabilities against observed frequencies (chi-square
 * at fixed seeds, so deterministic), YCSB's formulas against Java-computed
 * vectors, operation mixes, stream determinism and independence, input
 * validation and the trace reader. */
#include "tap.h"
#include "ycsb.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[512];

static int one_line(const char *s) { return s[0] && !strchr(s, '\n'); }

static ycsb_config cfg(ycsb_dist d, uint64_t records, double theta)
{
	ycsb_config c;
	ycsb_config_default(&c);
	ycsb_parse_workload("c", 0, &c.mix, NULL, NULL, 0);
	c.dist = d;
	c.records = records;
	c.theta = theta;
	c.seed = 42;
	return c;
}

/* ---- chi-square of the top keys (rest lumped) against the exact method ---- */

#define TOPK 20

static int find_key(const uint64_t *keys, long n, uint64_t k)
{
	for (long i = 0; i < n; i++)
		if (keys[i] == k)
			return (int)i;
	return -1;
}

/* Draws n keys and compares the counts of the TOPK most likely keys and of
 * everything else with the expected counts. Returns chi2 / critical value. */
static double chi2_ratio(const ycsb_config *c, uint64_t n, const char *what)
{
	ycsb_gen g;
	if (ycsb_init(&g, c, err, sizeof err)) {
		printf("# %s: init failed: %s\n", what, err);
		return INFINITY;
	}
	uint64_t keys[TOPK];
	double p[TOPK];
	int exact = 0;
	long k = ycsb_expected_top(&g, TOPK, keys, p, &exact);
	if (k <= 0)
		return INFINITY;
	uint64_t obs[TOPK + 1] = {0};
	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = ycsb_next_key(&g);
		int j = find_key(keys, k, key);
		obs[j < 0 ? k : j]++;
	}
	double rest = 1, x2 = 0, minexp = INFINITY;
	for (long i = 0; i < k; i++) {
		double e = p[i] * (double)n;
		x2 += (obs[i] - e) * (obs[i] - e) / e;
		rest -= p[i];
		minexp = fmin(minexp, e);
	}
	int df = (int)k - 1;
	if (rest > 1e-12) {
		double e = rest * (double)n;
		x2 += (obs[k] - e) * (obs[k] - e) / e;
		df++;
		minexp = fmin(minexp, e);
	}
	double crit = ycsb_chi2_crit(df);
	printf("# %s: chi2 %.2f on %d df (critical %.2f at p=0.001), top key %" PRIu64
	       " observed %.5f expected %.5f%s, smallest expected count %.0f\n",
	       what, x2, df, crit, keys[0], (double)obs[0] / (double)n, p[0],
	       exact ? "" : " (tail spread)", minexp);
	return minexp >= 5 ? x2 / crit : INFINITY;
}

/* Every key of a small key space is a cell: catches errors the top ranks
 * cannot see (e.g. in the cold set or the tail). Keys of probability 0 must
 * never be drawn. */
static int chi2_all(const ycsb_config *c, uint64_t n, const char *what)
{
	ycsb_gen g;
	if (ycsb_init(&g, c, err, sizeof err))
		return 0;
	size_t m = (size_t)c->records;
	uint64_t *keys = calloc(m, sizeof *keys), *obs = calloc(m, sizeof *obs);
	double *p = calloc(m, sizeof *p);
	long k = ycsb_expected_top(&g, m, keys, p, NULL);
	int ok = k == (long)m;
	uint64_t *idx = calloc(m, sizeof *idx);
	for (long i = 0; ok && i < k; i++)
		idx[keys[i]] = (uint64_t)i;
	for (uint64_t i = 0; ok && i < n; i++)
		obs[idx[ycsb_next_key(&g)]]++;
	double x2 = 0, sum = 0;
	int df = -1;
	for (long i = 0; ok && i < k; i++) {
		double e = p[i] * (double)n;
		sum += p[i];
		if (e == 0) {
			ok &= obs[i] == 0;
			continue;
		}
		x2 += (obs[i] - e) * (obs[i] - e) / e;
		df++;
	}
	ok &= fabs(sum - 1) < 1e-9;
	printf("# %s, all %zu keys: chi2 %.2f on %d df (critical %.2f)\n", what, m, x2, df, ycsb_chi2_crit(df));
	ok &= x2 < ycsb_chi2_crit(df);
	free(keys);
	free(obs);
	free(p);
	free(idx);
	return ok;
}

static void test_chi2_all(void)
{
	static const struct {
		ycsb_dist d;
		double theta, hot_ops;
		uint64_t items;
		const char *what;
	} v[] = {
		{YCSB_UNIFORM, 0.99, 0.8, 0, "uniform"},
		{YCSB_ZIPFIAN, 0.5, 0.8, 0, "zipfian theta 0.5"},
		{YCSB_ZIPFIAN, 0.99, 0.8, 0, "zipfian theta 0.99"},
		{YCSB_ZIPFIAN, 1.2, 0.8, 0, "zipfian theta 1.2"},
		{YCSB_ZIPFIAN_RI, 0.99, 0.8, 0, "zipfian-ri theta 0.99"},
		{YCSB_SCRAMBLED, 0.99, 0.8, 999, "scrambled, 1000 internal items"},
		{YCSB_SCRAMBLED, 1.2, 0.8, 999, "scrambled theta 1.2, 1000 internal items"},
		{YCSB_LATEST, 0.99, 0.8, 0, "latest"},
		{YCSB_HOTSPOT, 0.99, 0.8, 0, "hotspot 0.2/0.8"},
		{YCSB_HOTSPOT, 0.99, 0.1, 0, "hotspot 0.2/0.1"},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ycsb_config c = cfg(v[i].d, 50, v[i].theta);
		c.hot_ops = v[i].hot_ops;
		c.scramble_items = v[i].items;
		c.seed = 1000 + i;
		CHECK(chi2_all(&c, 300000, v[i].what), "%s: every key's frequency matches (50 keys)", v[i].what);
	}
}

static void test_chi2(void)
{
	ycsb_config c = cfg(YCSB_UNIFORM, 1000, 0.99);
	CHECK(chi2_ratio(&c, 400000, "uniform n=1000") < 1, "uniform: top-20 frequencies match 1/n");

	c = cfg(YCSB_ZIPFIAN, 1000, 0.5);
	CHECK(chi2_ratio(&c, 1000000, "zipfian theta=0.5 (Gray)") < 1,
	      "zipfian theta 0.5 (Gray): frequencies match Gray's closed form");
	c = cfg(YCSB_ZIPFIAN, 1000, 0.99);
	CHECK(chi2_ratio(&c, 2000000, "zipfian theta=0.99 (Gray)") < 1,
	      "zipfian theta 0.99 (Gray): frequencies match Gray's closed form");
	c = cfg(YCSB_ZIPFIAN, 100000, 0.99);
	CHECK(chi2_ratio(&c, 1000000, "zipfian theta=0.99 n=1e5 (Gray)") < 1,
	      "zipfian theta 0.99, 1e5 keys (Gray): frequencies match");
	c = cfg(YCSB_ZIPFIAN, 1000, 1.2);
	CHECK(chi2_ratio(&c, 1000000, "zipfian theta=1.2 (rejection-inversion)") < 1,
	      "zipfian theta 1.2 (rejection-inversion): frequencies match the Zipf pmf");
	c = cfg(YCSB_ZIPFIAN_RI, 1000, 0.99);
	CHECK(chi2_ratio(&c, 1000000, "zipfian-ri theta=0.99") < 1,
	      "zipfian-ri theta 0.99 (CoRM's method): frequencies match the Zipf pmf");
	c = cfg(YCSB_ZIPFIAN_RI, 1u << 30, 0.99);
	CHECK(chi2_ratio(&c, 1000000, "zipfian-ri theta=0.99 n=2^30") < 1,
	      "zipfian-ri theta 0.99, 2^30 keys: frequencies match the Zipf pmf");

	c = cfg(YCSB_SCRAMBLED, 1000, 0.99);
	c.scramble_items = 9999; /* 10000 internal items: expected pmf enumerated exactly */
	CHECK(chi2_ratio(&c, 1000000, "scrambled, 1e4 internal items (exact)") < 1,
	      "scrambled over 1e4 internal items: frequencies match the enumerated pmf");
	c = cfg(YCSB_SCRAMBLED, 1000, 0.99);
	CHECK(chi2_ratio(&c, 1000000, "scrambled, YCSB ITEM_COUNT 1e16") < 1,
	      "scrambled as YCSB (1e16 items, ZETAN): frequencies match (2^20 items enumerated)");
	c = cfg(YCSB_SCRAMBLED, 1000, 0.8);
	c.scramble_items = 10000000000ull;
	CHECK(chi2_ratio(&c, 1000000, "scrambled theta=0.8, 1e10 items") < 1,
	      "scrambled theta 0.8 over 1e10 items (Euler-Maclaurin zeta): frequencies match");

	c = cfg(YCSB_LATEST, 1000, 0.99);
	CHECK(chi2_ratio(&c, 1000000, "latest n=1000") < 1,
	      "latest: frequencies of the newest keys match Gray over records-1 items");
	c = cfg(YCSB_HOTSPOT, 1000, 0.99);
	CHECK(chi2_ratio(&c, 400000, "hotspot 0.2/0.8") < 1, "hotspot: hot-key frequencies match");
	c = cfg(YCSB_HOTSPOT, 1000, 0.99);
	c.hot_ops = 0.1;
	CHECK(chi2_ratio(&c, 400000, "hotspot 0.2/0.1") < 1,
	      "hotspot with a cold-heavy split: cold keys ranked first, frequencies match");
}

/* ---- Gray's closed form: exact against the mapping itself ---- */

/* Evaluates ycsb_gray_map on a fine grid of u and compares the share of each
 * rank with the closed form (each rank is an interval of u: the grid is off
 * by at most one point per end). */
static int gray_grid(const ycsb_zipf *z, const char *what)
{
	const uint64_t G = 1u << 20;
	uint64_t n = z->count;
	uint64_t *cnt = calloc(n, sizeof *cnt);
	for (uint64_t j = 0; j < G; j++)
		cnt[ycsb_gray_map(z, ((double)j + 0.5) / (double)G)]++;
	double sum = 0, worst = 0;
	for (uint64_t i = 0; i < n; i++) {
		double p = ycsb_zipf_prob(z, i, 0);
		sum += p;
		worst = fmax(worst, fabs((double)cnt[i] - p * (double)G));
	}
	free(cnt);
	printf("# %s: closed form sums to 1%+.2e, worst grid deviation %.2f points of 2^20\n", what,
	       sum - 1, worst);
	return fabs(sum - 1) < 1e-12 && worst <= 2.0;
}

static void test_gray_closed_form(void)
{
	ycsb_zipf z;
	ycsb_zipf_init(&z, 1000, 0.99, 0, 0);
	CHECK(gray_grid(&z, "n=1000 theta=0.99"), "Gray closed form = measure of u per rank (n 1000, theta 0.99)");
	ycsb_zipf_init(&z, 1000, 0.5, 0, 0);
	CHECK(gray_grid(&z, "n=1000 theta=0.5"), "Gray closed form = measure of u per rank (n 1000, theta 0.5)");
	ycsb_zipf_init(&z, 10, 0.2, 0, 0);
	CHECK(gray_grid(&z, "n=10 theta=0.2"), "Gray closed form = measure of u per rank (n 10, theta 0.2)");
	ycsb_zipf_init(&z, 3, 0.9, 0, 0);
	CHECK(gray_grid(&z, "n=3 theta=0.9"), "Gray closed form, 3 items");
	ycsb_zipf_init(&z, 2, 0.9, 0, 0);
	CHECK(gray_grid(&z, "n=2 theta=0.9"), "Gray closed form, 2 items");
	ycsb_zipf_init(&z, 100, 0.99, 0, 0);
	ycsb_zipf_grow(&z, 180);
	CHECK(gray_grid(&z, "grown 100->180 (YCSB's stale eta)"),
	      "Gray closed form after growth (zetan incremental, eta from the first count)");

	/* Gray vs the true Zipf pmf: equal for ranks 0 and 1, not beyond */
	ycsb_zipf_init(&z, 1000, 0.99, 0, 0);
	double zn = ycsb_zeta(1000, 0.99), dev01 = 0, devmax = 0;
	printf("# theta 0.99, n 1000: rank, Gray's P, Zipf pmf, Gray/pmf - 1\n");
	for (uint64_t i = 0; i < 10; i++) {
		double pg = ycsb_zipf_prob(&z, i, 0), pz = ycsb_zipf_pmf(zn, 0.99, i), d = pg / pz - 1;
		printf("#   %2" PRIu64 "  %.6f  %.6f  %+.4f%%\n", i, pg, pz, 100 * d);
		if (i < 2)
			dev01 = fmax(dev01, fabs(d));
		else
			devmax = fmax(devmax, fabs(d));
	}
	CHECK(dev01 < 1e-12, "Gray is exact for ranks 0 and 1 (|dev| %.1e)", dev01);
	CHECK(devmax > 1e-3, "Gray differs from the Zipf pmf at ranks 2..9 (max |dev| %.2f%%)", 100 * devmax);
	CHECK(fabs(ycsb_prob(YCSB_ZIPFIAN, 1000, 0.99, 5) - ycsb_zipf_prob(&z, 5, 0)) < 1e-15,
	      "ycsb_prob(zipfian) is Gray's closed form");
	CHECK(fabs(ycsb_prob(YCSB_ZIPFIAN, 1000, 1.2, 5) - ycsb_zipf_pmf(ycsb_zeta(1000, 1.2), 1.2, 5)) < 1e-15,
	      "ycsb_prob(zipfian, theta >= 1) is the Zipf pmf");
	ycsb_zipf_init(&z, 999, 0.99, 0, 0);
	CHECK(fabs(ycsb_prob(YCSB_LATEST, 1000, 0.99, 3) - ycsb_zipf_prob(&z, 3, 0)) < 1e-15,
	      "ycsb_prob(latest) is Gray over records-1 items");
}

/* ---- YCSB's formulas: vectors computed with Java (transcribed
 * Utils.fnvhash64 and ZipfianGenerator arithmetic) ---- */

static void test_java_vectors(void)
{
	static const struct {
		int64_t in, out;
	} fnv[] = {
		{0, 6284781860667377211LL},
		{1, 8517097267634966620LL},
		{2, 1820151046732198393LL},
		{255, 8064062821143829734LL},
		{256, 2056600594528442646LL},
		{12345, 1792800413050876852LL},
		{10000000000LL, 1201321332300452516LL},
		{10000000000000000LL, 1698458313664423714LL},
		{-1, 8289690350564177859LL},
		{INT64_MAX, 8289549613075766851LL},
		{INT64_MIN, 6284922598155788219LL},
		{987654321987654321LL, 8234848925555749602LL},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof fnv / sizeof fnv[0]; i++)
		if (ycsb_fnvhash64(fnv[i].in) != fnv[i].out) {
			printf("# fnvhash64(%" PRId64 ") = %" PRId64 ", Java %" PRId64 "\n", fnv[i].in,
			       ycsb_fnvhash64(fnv[i].in), fnv[i].out);
			bad++;
		}
	CHECK(!bad, "fnvhash64 matches Java's Utils.fnvhash64 on 12 vectors");

	static const double us[] = {0.0, 0.01, 0.05, 0.0377, 0.038, 0.06, 0.1,
				    0.25, 0.5, 0.75, 0.9, 0.99, 0.999999};
	static const uint64_t g05[] = {0, 0, 4, 2, 3, 5, 13, 69, 258, 569, 813, 980, 999};
	static const uint64_t g99[] = {0, 0, 0, 0, 0, 0, 0, 3, 22, 151, 471, 927, 999};
	static const uint64_t sz[] = {0, 0, 1, 0, 1, 2, 14, 10271, 243153796, 2288717357679ULL,
				      380400554077785ULL, 7245937806758161ULL, 9999678379364020ULL};
	static const uint64_t sk[] = {144, 144, 610, 144, 610, 213, 650, 373, 91, 14, 102, 472, 314};
	ycsb_zipf z5, z9;
	ycsb_zipf_init(&z5, 1000, 0.5, 0, 0);
	ycsb_zipf_init(&z9, 1000, 0.99, 0, 0);
	CHECK(fabs(z5.zetan / 61.80100876524318 - 1) < 1e-14 && fabs(z9.zetan / 7.728953217284729 - 1) < 1e-14,
	      "zeta(1000) matches YCSB's zetastatic (%.17g, %.17g)", z5.zetan, z9.zetan);
	CHECK(fabs(z9.eta / 0.07480608670689805 - 1) < 1e-13 && fabs(z5.eta / 0.9824155477100374 - 1) < 1e-13,
	      "eta matches YCSB's");
	ycsb_config c = cfg(YCSB_SCRAMBLED, 1000, 0.99);
	ycsb_gen g;
	ycsb_init(&g, &c, err, sizeof err);
	CHECK(fabs(g.zipf.eta / 0.32162575635478435 - 1) < 1e-13 && g.zipf.zetan == 26.46902820178302,
	      "scrambled: internal eta and ZETAN as YCSB's (1e16 + 1 items)");
	int bad5 = 0, bad9 = 0, bads = 0;
	for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
		bad5 += ycsb_gray_map(&z5, us[i]) != g05[i];
		bad9 += ycsb_gray_map(&z9, us[i]) != g99[i];
		uint64_t zz = ycsb_gray_map(&g.zipf, us[i]);
		bads += zz != sz[i] || ycsb_span_mod(&g, (uint64_t)ycsb_fnvhash64((int64_t)zz)) != sk[i];
	}
	CHECK(!bad5 && !bad9, "Gray's mapping of 13 values of u matches Java's (theta 0.5 and 0.99)");
	CHECK(!bads, "scrambled: internal item and key (mod 1001) for 13 values of u match Java's");

	/* growth as YCSB's nextLong(180) after 100 items: zetan incremental, eta
	 * from the construction count */
	ycsb_zipf zg;
	ycsb_zipf_init(&zg, 100, 0.99, 0, 0);
	ycsb_zipf_grow(&zg, 180);
	static const double gu[] = {0.1, 0.25, 0.5, 0.75, 0.9, 0.99};
	static const uint64_t gm[] = {0, 1, 13, 49, 107, 170};
	int badg = fabs(zg.zetan / 5.90956560808872 - 1) > 1e-14 || fabs(zg.eta / 0.051456074473668616 - 1) > 1e-13;
	for (size_t i = 0; i < sizeof gu / sizeof gu[0]; i++)
		badg += ycsb_gray_map(&zg, gu[i]) != gm[i];
	CHECK(!badg, "growth 100 -> 180 items: zetan, eta and mapping match YCSB's nextLong");

	/* the constant: zeta(1e10, 0.99), not zeta(1e16) */
	double z10 = ycsb_zeta(10000000000ull, 0.99), z16 = ycsb_zeta(10000000000000001ull, 0.99);
	printf("# zeta(1e10, 0.99) = %.14f (Euler-Maclaurin), YCSB ZETAN = %.14f, zeta(1e16+1, 0.99) = %.10f\n",
	       z10, YCSB_SCRAMBLE_ZETAN, z16);
	CHECK(fabs(z10 - YCSB_SCRAMBLE_ZETAN) < 1e-9, "YCSB's ZETAN is zeta(1e10, 0.99)");
	/* Euler-Maclaurin continues the direct sum */
	double a = ycsb_zeta(10000000, 0.7), b = ycsb_zeta(10000001, 0.7);
	CHECK(fabs((b - a) / pow(10000001.0, -0.7) - 1) < 1e-5 && fabs(b / (a + pow(10000001.0, -0.7)) - 1) < 1e-12,
	      "zeta: Euler-Maclaurin above 1e7 continues YCSB's sum (rel. %.1e)",
	      fabs(b / (a + pow(10000001.0, -0.7)) - 1));
}

/* ---- building blocks ---- */

static void test_rng(void)
{
	ycsb_rng a, b;
	ycsb_rng_seed(&a, 7, 0, 0);
	ycsb_rng_seed(&b, 7, 0, 0);
	int same = 1;
	for (int i = 0; i < 1000; i++)
		same &= ycsb_rng_next(&a) == ycsb_rng_next(&b);
	CHECK(same, "rng: same (seed, rank, thread), same sequence");

	/* rng_below: exact uniform on a small range */
	ycsb_rng_seed(&a, 3, 0, 0);
	uint64_t cnt[7] = {0};
	const int N = 700000;
	for (int i = 0; i < N; i++)
		cnt[ycsb_rng_below(&a, 7)]++;
	double x2 = 0;
	for (int i = 0; i < 7; i++)
		x2 += (cnt[i] - N / 7.0) * (cnt[i] - N / 7.0) / (N / 7.0);
	CHECK(x2 < ycsb_chi2_crit(6), "rng_below(7): chi2 %.2f < %.2f", x2, ycsb_chi2_crit(6));
	int inr = 1;
	for (int i = 0; i < 100000; i++) {
		double u = ycsb_rng_double(&a);
		inr &= u >= 0 && u < 1;
	}
	CHECK(inr, "rng_double in [0, 1)");
	CHECK(fabs(ycsb_chi2_crit(20) - 45.315) < 0.3 && fabs(ycsb_chi2_crit(10) - 29.588) < 0.3,
	      "chi2 critical values (df 10: %.2f, df 20: %.2f)", ycsb_chi2_crit(10), ycsb_chi2_crit(20));

	/* remainder without division, against % */
	static const uint64_t ds[] = {2, 3, 7, 1000, 1001, 65537, (1ull << 32) + 1, 1ull << 40,
				      (1ull << 61) + 12345, (1ull << 62)};
	int bad = 0;
	ycsb_rng_seed(&a, 11, 0, 0);
	for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		ycsb_config c = cfg(YCSB_SCRAMBLED, ds[i] - 1, 0.99);
		ycsb_gen g;
		if (ycsb_init(&g, &c, err, sizeof err)) {
			bad++;
			continue;
		}
		for (int j = 0; j < 20000; j++) {
			uint64_t x = ycsb_rng_next(&a) >> (j % 64 ? 1 + j % 63 : 1);
			if (j < 4)
				x = (uint64_t[]){0, ds[i] - 1, ds[i], INT64_MAX}[j];
			bad += ycsb_span_mod(&g, x) != x % ds[i];
		}
	}
	CHECK(!bad, "division-free remainder equals %% for 10 divisors x 20000 values");
}

static void test_streams(void)
{
	ycsb_config c = cfg(YCSB_UNIFORM, 1000000000, 0.99);
	ycsb_parse_workload("a", 0, &c.mix, NULL, NULL, 0);
	ycsb_gen g1, g2;
	ycsb_init(&g1, &c, err, sizeof err);
	ycsb_init(&g2, &c, err, sizeof err);
	int same = 1;
	for (int i = 0; i < 10000; i++) {
		ycsb_op o1, o2;
		uint64_t k1, k2;
		ycsb_next(&g1, &o1, &k1);
		ycsb_next(&g2, &o2, &k2);
		same &= o1 == o2 && k1 == k2;
	}
	CHECK(same, "same seed, rank, thread: same request stream");

	struct {
		uint64_t seed;
		uint32_t rank, thread;
		const char *what;
	} v[] = {{42, 0, 1, "another thread"}, {42, 1, 0, "another rank"}, {43, 0, 0, "another seed"},
		 {42, 1, 1, "rank 1 thread 1"}};
	{
		/* rank 1 thread 0 against rank 0 thread 1 */
		ycsb_config d1 = c, d2 = c;
		d1.rank = 1;
		d2.thread = 1;
		ycsb_init(&g1, &d1, err, sizeof err);
		ycsb_init(&g2, &d2, err, sizeof err);
		int eq = 0;
		for (int i = 0; i < 10000; i++)
			eq += ycsb_next_key(&g1) == ycsb_next_key(&g2);
		CHECK(eq < 5, "rank 1 thread 0 and rank 0 thread 1: different streams (%d equal keys)", eq);
	}
	for (size_t t = 0; t < sizeof v / sizeof v[0]; t++) {
		ycsb_config d = c;
		d.seed = v[t].seed;
		d.rank = v[t].rank;
		d.thread = v[t].thread;
		ycsb_init(&g1, &c, err, sizeof err);
		ycsb_init(&g2, &d, err, sizeof err);
		int eq = 0;
		for (int i = 0; i < 10000; i++) {
			ycsb_op o1, o2;
			uint64_t k1, k2;
			ycsb_next(&g1, &o1, &k1);
			ycsb_next(&g2, &o2, &k2);
			eq += k1 == k2;
		}
		CHECK(eq < 5, "%s: a different stream (%d equal keys of 10000)", v[t].what, eq);
	}

	/* low cross-correlation between threads' uniform streams, and no overlap */
	enum { N = 100000 };
	ycsb_rng a, b;
	ycsb_rng_seed(&a, 42, 0, 0);
	ycsb_rng_seed(&b, 42, 0, 1);
	static uint64_t ra[N];
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, lag = 0;
	double prev = 0;
	for (int i = 0; i < N; i++) {
		ra[i] = ycsb_rng_next(&a);
		double x = (double)(ra[i] >> 11) * 0x1.0p-53, y = ycsb_rng_double(&b);
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		lag += (x - 0.5) * (prev - 0.5);
		prev = y;
	}
	double r = (sxy - sx * sy / N) / sqrt((sxx - sx * sx / N) * (syy - sy * sy / N));
	double rl = lag / N * 12; /* var of U(0,1) is 1/12 */
	CHECK(fabs(r) < 4 / sqrt(N) && fabs(rl) < 4 / sqrt(N),
	      "threads 0 and 1: correlation %.4f, lag-1 cross-correlation %.4f (bound %.4f)", r, rl,
	      4 / sqrt(N));
	int hits = 0;
	ycsb_rng_seed(&b, 42, 0, 1);
	for (int i = 0; i < 1000; i++) {
		uint64_t y = ycsb_rng_next(&b);
		for (int j = 0; j < N; j++)
			hits += ra[j] == y;
	}
	CHECK(hits == 0, "thread 1's first 1000 outputs do not occur in thread 0's first 1e5");
}

static void test_mixes(void)
{
	const char *w = "abcdef";
	for (int wi = 0; wi < 6; wi++) {
		char name[2] = {w[wi], 0};
		ycsb_config c;
		ycsb_config_default(&c);
		c.records = 10000;
		c.operations = 200000;
		c.seed = 5;
		ycsb_parse_workload(name, 0, &c.mix, &c.dist, err, sizeof err);
		ycsb_gen g;
		int rc = ycsb_init(&g, &c, err, sizeof err);
		uint64_t cnt[YCSB_NOPS] = {0};
		uint64_t scans = 0, scansum = 0, badscan = 0, badkey = 0;
		const uint64_t N = c.operations;
		for (uint64_t i = 0; i < N && !rc; i++) {
			ycsb_op op;
			uint64_t key;
			ycsb_next(&g, &op, &key);
			cnt[op]++;
			badkey += key >= ycsb_key_count(&g);
			if (op == YCSB_SCAN) {
				uint32_t l = ycsb_scan_len(&g);
				scans++;
				scansum += l;
				badscan += l < 1 || l > 100;
			}
		}
		int ok = !rc;
		double worst = 0;
		for (int o = 0; o < YCSB_NOPS; o++) {
			double p = c.mix.p[o], e = p * (double)N, sd = sqrt((double)N * p * (1 - p));
			if (p == 0)
				ok &= cnt[o] == 0;
			else if (sd > 0) {
				worst = fmax(worst, fabs((double)cnt[o] - e) / sd);
				ok &= fabs((double)cnt[o] - e) <= 5 * sd;
			} else
				ok &= cnt[o] == N;
		}
		CHECK(ok && !badkey, "workload %c (%s): proportions within 5 sd (worst %.2f sd), keys exist", w[wi],
		      ycsb_dist_name(c.dist), worst);
		if (w[wi] == 'e') {
			double mean = (double)scansum / (double)scans, sd = sqrt((100.0 * 100 - 1) / 12 / (double)scans);
			CHECK(!badscan && fabs(mean - 50.5) < 5 * sd, "workload e: scan lengths in [1, 100], mean %.2f", mean);
		}
	}

	ycsb_mix m;
	CHECK(ycsb_parse_workload("mixed", 0.3, &m, NULL, err, sizeof err) == 0 && m.p[YCSB_UPDATE] == 0.3 &&
		      m.p[YCSB_READ] == 0.7,
	      "mixed with write ratio 0.3: 70%% reads, 30%% updates");
	CHECK(ycsb_parse_workload("write-only", 0, &m, NULL, err, sizeof err) == 0 && m.p[YCSB_UPDATE] == 1,
	      "write-only: all updates");
	CHECK(ycsb_parse_mix("read=0.9,update=0.05,rmw=0.05", &m, err, sizeof err) == 0 && m.p[YCSB_RMW] == 0.05,
	      "custom mix parses");
}

static void test_inserts(void)
{
	ycsb_config c;
	ycsb_config_default(&c);
	ycsb_parse_workload("d", 0, &c.mix, &c.dist, NULL, 0);
	c.records = 1000;
	c.operations = 20000;
	ycsb_gen g;
	ycsb_init(&g, &c, err, sizeof err);
	uint64_t next = 1000, bad = 0, newreads = 0, late = 0, inserts = 0;
	for (uint64_t i = 0; i < c.operations; i++) {
		ycsb_op op;
		uint64_t key;
		ycsb_next(&g, &op, &key);
		if (op == YCSB_INSERT) {
			bad += key != next++;
			inserts++;
		} else {
			bad += key >= ycsb_key_count(&g) || key == 0;
			if (i >= c.operations / 2) {
				late++;
				newreads += key >= 1000;
			}
		}
	}
	CHECK(!bad && ycsb_key_count(&g) == 1000 + inserts,
	      "workload d: inserts take keys 1000, 1001, ...; reads only existing keys");
	CHECK(newreads > late / 2, "latest follows inserts: %.0f%% of late reads hit inserted keys",
	      100.0 * (double)newreads / (double)late);

	c.nstreams = 4;
	c.stream = 2;
	ycsb_init(&g, &c, err, sizeof err);
	uint64_t want = 1002;
	bad = 0;
	for (int i = 0; i < 5000; i++) {
		ycsb_op op;
		uint64_t key;
		ycsb_next(&g, &op, &key);
		if (op == YCSB_INSERT) {
			bad += key != want;
			want += 4;
		}
	}
	CHECK(!bad, "stream 2 of 4 inserts keys 1002, 1006, 1010, ...");

	ycsb_config_default(&c);
	ycsb_parse_workload("e", 0, &c.mix, &c.dist, NULL, 0);
	c.records = 500;
	c.operations = 10000;
	ycsb_init(&g, &c, err, sizeof err);
	CHECK(g.span == 500 + 1000 + 1, "workload e: scrambled key space records + 2*inserts*ops + 1 (YCSB)");
	bad = 0;
	for (uint64_t i = 0; i < c.operations; i++) {
		ycsb_op op;
		uint64_t key;
		uint64_t before = ycsb_key_count(&g);
		ycsb_next(&g, &op, &key);
		if (op != YCSB_INSERT)
			bad += key >= before;
	}
	CHECK(!bad, "scrambled redraws keys not inserted yet");
}

static void test_bad_input(void)
{
	ycsb_mix m;
	ycsb_dist d;
	int rc = ycsb_parse_workload("g", 0, &m, &d, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "'g'"), "unknown workload letter: %s", err);
	rc = ycsb_parse_workload("mixed", 1.5, &m, &d, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "1.5"), "write ratio above 1: %s", err);
	rc = ycsb_parse_mix("read=0.5,update=0.4", &m, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "sum to 0.9"), "proportions not summing to 1: %s", err);
	rc = ycsb_parse_mix("read=0.5,upd=0.5", &m, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "'upd'"), "unknown op in a mix: %s", err);
	rc = ycsb_parse_mix("read=1,read=0", &m, err, sizeof err);
	CHECK(rc < 0 && one_line(err), "op given twice: %s", err);
	rc = ycsb_parse_mix("read=-0.5,update=1.5", &m, err, sizeof err);
	CHECK(rc < 0 && one_line(err), "negative proportion: %s", err);
	rc = ycsb_parse_dist("zipf", &d, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "'zipf'"), "unknown distribution: %s", err);

	ycsb_gen g;
	ycsb_config c = cfg(YCSB_ZIPFIAN, 1000, 0);
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "theta"), "theta 0: %s", err);
	c.theta = -0.5;
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "theta"), "theta -0.5: %s", err);
	c = cfg(YCSB_UNIFORM, 0, 0.99);
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "records"), "zero records: %s", err);
	c = cfg(YCSB_HOTSPOT, 4, 0.99);
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "hot set"), "hotspot with an empty hot set: %s", err);
	c = cfg(YCSB_UNIFORM, 10, 0.99);
	c.mix.p[YCSB_READ] = 0.8;
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "sum to"), "init rejects a mix that does not sum to 1: %s", err);
	c = cfg(YCSB_UNIFORM, 10, 0.99);
	c.thread = 70000;
	rc = ycsb_init(&g, &c, err, sizeof err);
	CHECK(rc < 0 && one_line(err), "thread beyond the limit: %s", err);
}

/* ---- traces ---- */

static char *write_tmp(const char *text)
{
	static char path[64];
	strcpy(path, "/tmp/ycsb-trace-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

static void expect_trace_error(const char *text, const char *needle, const char *what)
{
	char *p = write_tmp(text);
	ycsb_req *r = NULL;
	size_t n = 0;
	int rc = p ? ycsb_trace_load(p, &r, &n, err, sizeof err) : 0;
	CHECK(rc < 0 && one_line(err) && strstr(err, needle), "trace with %s: %s", what, err);
	if (p)
		unlink(p);
	free(r);
}

static void test_traces(void)
{
	char *p = write_tmp("# netmem ycsb trace\nread 1\nupdate 2\n\n0 3\n7 4\nscan 5 10\r\nrmw 6\ninsert\t7\n");
	ycsb_req *r = NULL;
	size_t n = 0;
	int rc = ycsb_trace_load(p, &r, &n, err, sizeof err);
	static const uint8_t ops[] = {YCSB_READ, YCSB_UPDATE, YCSB_READ, YCSB_UPDATE, YCSB_SCAN, YCSB_RMW, YCSB_INSERT};
	int ok = rc == 0 && n == 7;
	for (size_t i = 0; ok && i < n; i++)
		ok &= r[i].op == ops[i] && r[i].key == i + 1 && r[i].scan_len == (i == 4 ? 10u : 0u);
	CHECK(ok, "trace reader: words, Clover's numbers, comments, blank lines, CRLF, tabs");
	unlink(p);

	if (ok) {
		ycsb_gen g;
		ycsb_init_trace(&g, r, n, 5);
		ycsb_op op;
		uint64_t key;
		int wrap = 1;
		for (int i = 0; i < 9; i++) {
			ycsb_next(&g, &op, &key);
			wrap &= key == (uint64_t)((5 + i) % 7) + 1;
		}
		CHECK(wrap, "replaying a trace through ycsb_next wraps around");
	}
	free(r);

	expect_trace_error("read 1\nread 2\nraed 3\n", "line 3", "an unknown operation");
	expect_trace_error("read 1\nread 2\nread\n", "line 3", "a missing key");
	expect_trace_error("read 1\nread 2\nread x1\n", "line 3", "a bad key");
	expect_trace_error("read 1\nread 2\nread 99999999999999999999\n", "line 3", "a key beyond 64 bits");
	expect_trace_error("read 1\nread 2\nread -4\n", "line 3", "a negative key");
	expect_trace_error("read 1\nread 2\nscan 5\n", "line 3", "a scan without length");
	expect_trace_error("read 1\nread 2\nscan 5 0\n", "line 3", "a zero scan length");
	expect_trace_error("read 1\nread 2\nread 5 6\n", "line 3", "an extra field");
	expect_trace_error("# only a comment\n\n", "no requests", "no requests");
	rc = ycsb_trace_load("/nonexistent/trace.txt", &r, &n, err, sizeof err);
	CHECK(rc < 0 && one_line(err) && strstr(err, "/nonexistent/trace.txt") && strstr(err, "No such file"),
	      "missing trace file: %s", err);

	/* round trip: generated requests -> text -> reader */
	for (int clover = 0; clover < 2; clover++) {
		ycsb_config c;
		ycsb_config_default(&c);
		ycsb_parse_workload(clover ? "a" : "e", 0, &c.mix, &c.dist, NULL, 0);
		ycsb_gen g;
		ycsb_init(&g, &c, err, sizeof err);
		enum { M = 3000 };
		static ycsb_req want[M];
		size_t cap = (size_t)M * 40, len = 0;
		char *text = malloc(cap);
		int fmt_ok = 1;
		for (int i = 0; i < M; i++) {
			ycsb_op op;
			uint64_t key;
			ycsb_next(&g, &op, &key);
			want[i] = (ycsb_req){.key = key, .op = (uint8_t)op,
					     .scan_len = op == YCSB_SCAN ? ycsb_scan_len(&g) : 0};
			int l = ycsb_trace_format(&want[i], clover, text + len, cap - len);
			fmt_ok &= l > 0;
			len += l > 0 ? (size_t)l : 0;
			if (clover)
				want[i].op = op == YCSB_READ ? YCSB_READ : YCSB_UPDATE;
		}
		p = write_tmp(text);
		free(text);
		rc = ycsb_trace_load(p, &r, &n, err, sizeof err);
		ok = fmt_ok && rc == 0 && n == M;
		for (size_t i = 0; ok && i < n; i++)
			ok &= r[i].op == want[i].op && r[i].key == want[i].key && r[i].scan_len == want[i].scan_len;
		CHECK(ok, "%s trace round trip (3000 requests of workload %s)", clover ? "Clover-form" : "word-form",
		      clover ? "a" : "e");
		free(r);
		unlink(p);
	}
	ycsb_req s = {.key = 1, .op = YCSB_SCAN, .scan_len = 3};
	char buf[64];
	CHECK(ycsb_trace_format(&s, 1, buf, sizeof buf) < 0, "a scan cannot be written in Clover's form");
}

/* ---- the keyed permutation that scatters Zipf ranks (CoRM's keys) ---- */

/* A bijection of [0, n) for sizes around powers of two and odd ones. */
static void test_permute_bijective(void)
{
	static const uint64_t ns[] = {1, 2, 3, 7, 64, 1000, 4097, 100003};
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		uint64_t n = ns[k];
		uint8_t *seen = calloc(n, 1);
		uint64_t bad = 0, dup = 0, fixed = 0;
		for (uint64_t r = 0; r < n; r++) {
			uint64_t x = ycsb_permute(r, n, 7);
			if (x >= n) {
				bad++;
				continue;
			}
			dup += seen[x];
			seen[x] = 1;
			fixed += x == r;
		}
		CHECK(!bad && !dup, "permute n=%" PRIu64 ": a bijection (%" PRIu64 " out of range, %" PRIu64 " twice)", n, bad,
		      dup);
		if (n >= 1000)
			CHECK(fixed < n / 100, "permute n=%" PRIu64 ": scrambles (%" PRIu64 " fixed points)", n, fixed);
		free(seen);
	}
	CHECK(ycsb_permute(5, 1000, 1) != ycsb_permute(5, 1000, 2) || ycsb_permute(6, 1000, 1) != ycsb_permute(6, 1000, 2),
	      "permute: the key selects the permutation");
}

/* The hottest ranks of a Zipf 0.99 over 100,000 objects in blocks of 127
 * (32-byte slots in 4 KiB): unscrambled, rank order is allocation order and
 * the top 127 ranks share one block; scrambled they land in many. */
static void test_permute_spreads_hot_set(void)
{
	enum { N = 100000, PER_BLOCK = 127, HOT = 127 };
	static uint8_t used[N / PER_BLOCK + 1];
	memset(used, 0, sizeof used);
	int blocks = 0;
	for (uint64_t r = 0; r < HOT; r++) {
		uint64_t b = ycsb_permute(r, N, 42) / PER_BLOCK;
		blocks += !used[b];
		used[b] = 1;
	}
	CHECK(blocks >= 100, "permute: the %d hottest ranks land in %d distinct blocks (>= 100)", HOT, blocks);
}

/* Same seed, same ranks: the scrambled key of rank r is drawn exactly as
 * often as rank r is unscrambled, so the rank frequencies are unchanged. */
static void test_permute_keeps_frequencies(void)
{
	enum { N = 5000, DRAWS = 200000 };
	ycsb_config c = cfg(YCSB_ZIPFIAN_RI, N, 0.99);
	ycsb_gen g;
	if (ycsb_init(&g, &c, err, sizeof err)) {
		CHECK(0, "permute: init: %s", err);
		return;
	}
	uint32_t *by_rank = calloc(N, sizeof *by_rank), *by_key = calloc(N, sizeof *by_key);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t r = ycsb_next_key(&g);
		by_rank[r]++;
		by_key[ycsb_permute(r, N, 42)]++;
	}
	int differ = 0;
	for (uint64_t r = 0; r < N; r++)
		differ += by_key[ycsb_permute(r, N, 42)] != by_rank[r];
	CHECK(differ == 0, "permute: every rank's frequency unchanged under the scramble (%d differ)", differ);
	CHECK(by_rank[0] > by_rank[1] && by_rank[1] > by_rank[10], "permute: the draws are skewed (rank 0 %u, 1 %u, 10 %u)",
	      by_rank[0], by_rank[1], by_rank[10]);
	free(by_rank);
	free(by_key);
}

int main(void)
{
	test_java_vectors();
	test_gray_closed_form();
	test_rng();
	test_streams();
	test_mixes();
	test_inserts();
	test_bad_input();
	test_traces();
	test_chi2();
	test_chi2_all();
	test_permute_bijective();
	test_permute_spreads_hot_set();
	test_permute_keeps_frequencies();
	return tap_done();
}
