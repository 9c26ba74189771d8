/* YCSB workload generator; see ycsb.h for the interface and the decisions. */
#include "ycsb.h"
#include "log.h"
#include "rng.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static const char *const op_names[YCSB_NOPS] = {"read", "update", "insert", "scan", "rmw"};
static const char *const dist_names[YCSB_NDISTS] = {"uniform", "zipfian", "zipfian-ri",
						     "scrambled", "latest", "hotspot"};


const char *ycsb_op_name(ycsb_op op) { return (unsigned)op < YCSB_NOPS ? op_names[op] : "?"; }
const char *ycsb_dist_name(ycsb_dist d) { return (unsigned)d < YCSB_NDISTS ? dist_names[d] : "?"; }

/* ---------------------------------------------------------------- RNG ---- */

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ycsb_rng_next(ycsb_rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static void rng_jump_by(ycsb_rng *r, const uint64_t poly[4])
{
	uint64_t t[4] = {0, 0, 0, 0};
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 64; b++) {
			if (poly[i] & (1ull << b))
				for (int k = 0; k < 4; k++)
					t[k] ^= r->s[k];
			ycsb_rng_next(r);
		}
	memcpy(r->s, t, sizeof t);
}

void ycsb_rng_jump(ycsb_rng *r)
{
	static const uint64_t j[4] = {0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull,
				      0xa9582618e03fc9aaull, 0x39abdc4529b1661cull};
	rng_jump_by(r, j);
}

void ycsb_rng_long_jump(ycsb_rng *r)
{
	static const uint64_t j[4] = {0x76e15d3efefdcbbfull, 0xc5004e441c522fb3ull,
				      0x77710069854ee241ull, 0x39109bb02acbe635ull};
	rng_jump_by(r, j);
}

void ycsb_rng_seed(ycsb_rng *r, uint64_t seed, uint32_t rank, uint32_t thread)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = nm_splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) /* cannot happen with splitmix, but */
		r->s[0] = 1;
	for (uint32_t i = 0; i < rank; i++)
		ycsb_rng_long_jump(r);
	for (uint32_t i = 0; i < thread; i++)
		ycsb_rng_jump(r);
}

double ycsb_rng_double(ycsb_rng *r) { return (double)(ycsb_rng_next(r) >> 11) * 0x1.0p-53; }

/* Lemire, "Fast random integer generation in an interval" (2019): exact. The
 * division happens only when the low product falls below n (probability
 * n / 2^64). */
uint64_t ycsb_rng_below(ycsb_rng *r, uint64_t n)
{
	u128 m = (u128)ycsb_rng_next(r) * n;
	uint64_t l = (uint64_t)m;
	if (l < n) {
		uint64_t t = -n % n;
		while (l < t) {
			m = (u128)ycsb_rng_next(r) * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* ---------------------------------------------------------------- FNV ---- */

int64_t ycsb_fnvhash64(int64_t val)
{
	/* Java: long arithmetic wraps; `val >> 8` is arithmetic, but the sign bits
	 * it shifts in never reach the low byte within 8 rounds, so an unsigned
	 * shift reads the same octets. */
	uint64_t h = 0xCBF29CE484222325ull, v = (uint64_t)val;
	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		v >>= 8;
		h *= 1099511628211ull;
	}
	int64_t s = (int64_t)h;
	/* Math.abs: Long.MIN_VALUE stays negative */
	return s < 0 ? (int64_t)(0 - (uint64_t)s) : s;
}

/* Remainder by d for x < 2^63 without a division (Granlund-Montgomery with
 * N = 63: l = ceil(log2 d), m = ceil(2^(63+l) / d) < 2^64). */
static void mod_init(ycsb_gen *g, uint64_t d)
{
	g->span = d;
	if (d <= 1) {
		g->mod_shift = -1;
		g->mod_m = 0;
		return;
	}
	int l = 64 - __builtin_clzll(d - 1);
	u128 p = (u128)1 << (63 + l);
	g->mod_m = (uint64_t)((p + d - 1) / d);
	g->mod_shift = l - 1;
}

static inline uint64_t mod63(const ycsb_gen *g, uint64_t x)
{
	if (g->mod_shift < 0)
		return 0;
	uint64_t q = (uint64_t)(((u128)x * g->mod_m) >> 64) >> g->mod_shift;
	return x - q * g->span;
}

uint64_t ycsb_span_mod(const ycsb_gen *g, uint64_t x) { return mod63(g, x); }

/* ---------------------------------------------------------------- zeta ---- */

#define ZETA_DIRECT 10000000ull

/* expm1(x)/x and log1p(x)/x, stable near 0 (Hormann-Derflinger helpers). */
static inline double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}
static inline double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double zeta_sum(uint64_t from, uint64_t to, double theta, double sum)
{
	/* YCSB's zetastatic: for (i = st; i < n; i++) sum += 1 / pow(i + 1, theta) */
	for (uint64_t i = from; i < to; i++)
		sum += 1 / pow((double)(i + 1), theta);
	return sum;
}

/* sum_{i=N+1..n} i^-theta by Euler-Maclaurin up to the B6 term. */
static double zeta_tail(double N, double n, double t)
{
	double ln = log(n / N);
	double integral = pow(N, 1 - t) * ln * helper2((1 - t) * ln);
	double f = pow(n, -t) - pow(N, -t);
	double d1 = -t * (pow(n, -t - 1) - pow(N, -t - 1));
	double d3 = -t * (t + 1) * (t + 2) * (pow(n, -t - 3) - pow(N, -t - 3));
	double d5 = -t * (t + 1) * (t + 2) * (t + 3) * (t + 4) * (pow(n, -t - 5) - pow(N, -t - 5));
	return integral + f / 2 + d1 / 12 - d3 / 720 + d5 / 30240;
}

double ycsb_zeta(uint64_t n, double theta)
{
	if (n <= ZETA_DIRECT)
		return zeta_sum(0, n, theta, 0);
	const uint64_t N = 1000;
	return zeta_sum(0, N, theta, 0) + zeta_tail((double)N, (double)n, theta);
}

/* ---------------------------------------------------------------- zipf ---- */

/* Rejection-inversion: H is an integral of the hat h(x) = x^-q. */
static inline double ri_H(double q, double x)
{
	double lx = log(x);
	return helper2((1 - q) * lx) * lx;
}
static inline double ri_Hinv(double q, double x)
{
	double t = x * (1 - q);
	if (t < -1)
		t = -1;
	return exp(helper1(t) * x);
}
static inline double ri_h(double q, double x) { return exp(-q * log(x)); }

#define RI_TAB 32

/* ri_Hinv on the hot path: log1p(t)/t * x = log1p(t) / (1-q) when t is not
 * tiny, which saves the division. */
static inline double ri_Hinv_fast(const ycsb_zipf *z, double x)
{
	double t = x * (1 - z->theta);
	if (t < -1)
		t = -1;
	if (fabs(t) > 1e-8 && z->inv1q != 0)
		return exp(log1p(t) * z->inv1q);
	return exp(helper1(t) * x);
}

static void gray_eta(ycsb_zipf *z)
{
	/* YCSB: eta = (1 - pow(2.0 / items, 1 - theta)) / (1 - zeta2theta / zetan),
	 * with `items` the count at construction even after growth. */
	z->eta = (1 - pow(2.0 / (double)z->items, 1 - z->theta)) / (1 - z->zeta2 / z->zetan);
}

void ycsb_zipf_init(ycsb_zipf *z, uint64_t n, double theta, int ri, double zetan)
{
	memset(z, 0, sizeof *z);
	z->items = z->count = n;
	z->theta = theta;
	z->ri = ri || theta >= 1;
	if (z->ri) {
		z->h_x1 = ri_H(theta, 1.5) - 1;
		z->h_n = ri_H(theta, (double)n + 0.5);
		z->squeeze = 2 - ri_Hinv(theta, ri_H(theta, 2.5) - ri_h(theta, 2));
		z->inv1q = theta == 1 ? 0 : 1 / (1 - theta);
		for (int k = 1; k < RI_TAB; k++)
			z->ri_acc[k] = ri_H(theta, k + 0.5) - ri_h(theta, k);
		return;
	}
	z->zeta2 = zeta_sum(0, 2, theta, 0);
	z->alpha = 1.0 / (1.0 - theta);
	z->zetan = zetan > 0 ? zetan : ycsb_zeta(n, theta);
	z->cut1 = 1.0 + pow(0.5, theta);
	gray_eta(z);
}

uint64_t ycsb_gray_map(const ycsb_zipf *z, double u)
{
	double uz = u * z->zetan;
	if (uz < 1.0)
		return 0;
	if (uz < z->cut1)
		return 1;
	double v = (double)z->count * pow(z->eta * u - z->eta + 1, z->alpha);
	/* YCSB returns (long)v. Deviation: v >= count (rounding at u -> 1, or a
	 * degenerate eta after growth from 1-2 items) is clamped to the last
	 * rank; NaN gives 0 as Java's (long)NaN does. */
	if (!(v > 0))
		return 0;
	if (v >= (double)z->count)
		return z->count ? z->count - 1 : 0;
	return (uint64_t)v;
}

static uint64_t ri_draw(const ycsb_zipf *z, ycsb_rng *r)
{
	const double q = z->theta;
	if (z->count <= 1)
		return 0;
	for (;;) {
		/* u uniform in (h_x1, h_n] */
		double u = z->h_n + ycsb_rng_double(r) * (z->h_x1 - z->h_n);
		double x = ri_Hinv_fast(z, u);
		double kd = floor(x + 0.5);
		if (kd < 1)
			kd = 1;
		else if (kd > (double)z->count)
			kd = (double)z->count;
		if (kd - x <= z->squeeze)
			return (uint64_t)kd - 1;
		double acc = kd < RI_TAB ? z->ri_acc[(int)kd] : ri_H(q, kd + 0.5) - ri_h(q, kd);
		if (u >= acc)
			return (uint64_t)kd - 1;
	}
}

uint64_t ycsb_zipf_draw(ycsb_zipf *z, ycsb_rng *r)
{
	if (z->ri)
		return ri_draw(z, r);
	return ycsb_gray_map(z, ycsb_rng_double(r));
}

void ycsb_zipf_grow(ycsb_zipf *z, uint64_t count)
{
	if (count <= z->count)
		return;
	if (z->ri) {
		z->count = count;
		z->h_n = ri_H(z->theta, (double)count + 0.5);
		return;
	}
	/* YCSB: zetan = zeta(countforzeta, itemcount, theta, zetan), then eta */
	z->zetan = zeta_sum(z->count, count, z->theta, z->zetan);
	z->count = count;
	gray_eta(z);
}

double ycsb_zipf_pmf(double zetan, double theta, uint64_t i)
{
	return 1.0 / (pow((double)i + 1, theta) * zetan);
}

/* (b/n)^c - (a/n)^c for 0 <= a < b, accurate when they are close. */
static double pow_diff(double a, double b, double n, double c)
{
	if (a <= 0)
		return pow(b / n, c);
	return pow(a / n, c) * expm1(c * log1p((b - a) / a));
}

/* Gray: u in [ginv(y), ...) maps to ranks >= y; ginv(y) = 1 - (1 - (y/n)^c)/eta */
static double gray_ginv(const ycsb_zipf *z, double y)
{
	return 1 - (1 - pow(y / (double)z->count, 1 - z->theta)) / z->eta;
}

static double gray_prob(const ycsb_zipf *z, uint64_t i)
{
	uint64_t n = z->count;
	if (n <= 1)
		return i == 0 ? 1 : 0;
	if (i >= n)
		return 0;
	double a0 = fmin(1.0 / z->zetan, 1), a1 = fmin(z->cut1 / z->zetan, 1);
	double p = i == 0 ? a0 : i == 1 ? a1 - a0 : 0;
	if (a1 >= 1)
		return p;
	/* the formula region [a1, 1) */
	if (!(z->eta > 0)) {
		/* degenerate eta: the whole region maps to one rank */
		if (ycsb_gray_map(z, (a1 + 1) / 2) == i)
			p += 1 - a1;
		return p;
	}
	double lo = gray_ginv(z, (double)i);
	double hi = i + 1 >= n ? 1 : gray_ginv(z, (double)i + 1);
	if (hi <= a1)
		return p;
	if (lo >= a1 && i + 1 < n)
		return p + pow_diff((double)i, (double)i + 1, (double)n, 1 - z->theta) / z->eta;
	return p + fmax(0, fmin(hi, 1) - fmax(lo, a1));
}

double ycsb_zipf_prob(const ycsb_zipf *z, uint64_t i, double zetan)
{
	if (!z->ri)
		return gray_prob(z, i);
	if (z->count <= 1)
		return i == 0 ? 1 : 0;
	if (i >= z->count)
		return 0;
	if (!(zetan > 0))
		zetan = ycsb_zeta(z->count, z->theta);
	return ycsb_zipf_pmf(zetan, z->theta, i);
}

double ycsb_zipf_tail(const ycsb_zipf *z, uint64_t m, double zetan)
{
	if (m >= z->count)
		return 0;
	if (z->ri) {
		if (!(zetan > 0))
			zetan = ycsb_zeta(z->count, z->theta);
		return (zetan - ycsb_zeta(m, z->theta)) / zetan;
	}
	if (m < 2 || !(z->eta > 0)) {
		double s = 0;
		for (uint64_t i = 0; i < m; i++)
			s += gray_prob(z, i);
		return fmax(0, 1 - s);
	}
	double a1 = fmin(z->cut1 / z->zetan, 1);
	return fmax(0, 1 - fmax(a1, gray_ginv(z, (double)m)));
}

/* ------------------------------------------------------------ parsing ---- */

static int same_word(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return !*a && !*b;
}

int ycsb_check_mix(const ycsb_mix *mix, char *err, size_t errlen)
{
	double sum = 0;
	for (int i = 0; i < YCSB_NOPS; i++) {
		double p = mix->p[i];
		if (!(p >= 0 && p <= 1))
			return nm_errf(err, errlen, "proportion of %s is %g; proportions must lie in [0, 1]",
				    op_names[i], p);
		sum += p;
	}
	if (fabs(sum - 1) > 1e-9)
		return nm_errf(err, errlen,
			    "operation proportions sum to %.10g, not 1 (read %g, update %g, insert %g, "
			    "scan %g, rmw %g)",
			    sum, mix->p[0], mix->p[1], mix->p[2], mix->p[3], mix->p[4]);
	return 0;
}

int ycsb_parse_workload(const char *s, double write_ratio, ycsb_mix *mix, ycsb_dist *dist,
			char *err, size_t errlen)
{
	/* YCSB workloads/workload[a-f]: read, update, insert, scan, rmw */
	static const double core[6][YCSB_NOPS] = {
		{0.5, 0.5, 0, 0, 0}, {0.95, 0.05, 0, 0, 0}, {1, 0, 0, 0, 0},
		{0.95, 0, 0.05, 0, 0}, {0, 0, 0.05, 0.95, 0}, {0.5, 0, 0, 0, 0.5},
	};
	ycsb_mix m = {{0}};
	ycsb_dist d = YCSB_ZIPFIAN;
	if (!s || !*s)
		return nm_errf(err, errlen, "workload: empty (expected a..f, read-only, write-only or mixed)");
	if (!s[1] && tolower((unsigned char)s[0]) >= 'a' && tolower((unsigned char)s[0]) <= 'f') {
		int w = tolower((unsigned char)s[0]) - 'a';
		memcpy(m.p, core[w], sizeof m.p);
		d = w == 3 ? YCSB_LATEST : YCSB_SCRAMBLED;
	} else if (same_word(s, "read-only")) {
		m.p[YCSB_READ] = 1;
	} else if (same_word(s, "write-only")) {
		m.p[YCSB_UPDATE] = 1;
	} else if (same_word(s, "mixed")) {
		if (!(write_ratio >= 0 && write_ratio <= 1))
			return nm_errf(err, errlen, "workload mixed: write ratio %g is not in [0, 1]", write_ratio);
		m.p[YCSB_UPDATE] = write_ratio;
		m.p[YCSB_READ] = 1 - write_ratio;
	} else {
		return nm_errf(err, errlen,
			    "unknown workload '%s' (expected a, b, c, d, e, f, read-only, write-only or mixed)",
			    s);
	}
	*mix = m;
	if (dist)
		*dist = d;
	return 0;
}

int ycsb_parse_op(const char *s, ycsb_op *op)
{
	for (int i = 0; i < YCSB_NOPS; i++)
		if (!strcmp(s, op_names[i])) {
			*op = (ycsb_op)i;
			return 0;
		}
	/* Clover: an integer, 0 = read, anything else = write */
	const char *p = s + (*s == '-');
	if (!*p)
		return -1;
	int zero = 1;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (*p != '0')
			zero = 0;
	}
	*op = zero ? YCSB_READ : YCSB_UPDATE;
	return 0;
}

int ycsb_parse_mix(const char *s, ycsb_mix *mix, char *err, size_t errlen)
{
	ycsb_mix m = {{0}};
	int seen[YCSB_NOPS] = {0};
	const char *p = s;
	if (!s || !*s)
		return nm_errf(err, errlen, "mix: empty (expected e.g. read=0.9,update=0.1)");
	while (*p) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		if (!eq || eq > comma)
			return nm_errf(err, errlen, "mix '%s': expected OP=PROPORTION pairs like read=0.9,update=0.1", s);
		int op = -1;
		for (int i = 0; i < YCSB_NOPS; i++)
			if (strlen(op_names[i]) == (size_t)(eq - p) && !strncmp(p, op_names[i], (size_t)(eq - p)))
				op = i;
		if (op < 0)
			return nm_errf(err, errlen, "mix '%s': unknown operation '%.*s' (read, update, insert, scan, rmw)",
				    s, (int)(eq - p), p);
		if (seen[op]++)
			return nm_errf(err, errlen, "mix '%s': %s given twice", s, op_names[op]);
		char num[64];
		size_t nl = (size_t)(comma - eq - 1);
		if (nl == 0 || nl >= sizeof num)
			return nm_errf(err, errlen, "mix '%s': bad proportion for %s", s, op_names[op]);
		memcpy(num, eq + 1, nl);
		num[nl] = 0;
		char *end;
		errno = 0;
		double v = strtod(num, &end);
		if (*end || errno || !isfinite(v))
			return nm_errf(err, errlen, "mix '%s': '%s' is not a number", s, num);
		m.p[op] = v;
		p = *comma ? comma + 1 : comma;
	}
	if (ycsb_check_mix(&m, err, errlen))
		return -1;
	*mix = m;
	return 0;
}

int ycsb_parse_dist(const char *s, ycsb_dist *d, char *err, size_t errlen)
{
	for (int i = 0; i < YCSB_NDISTS; i++)
		if (s && same_word(s, dist_names[i])) {
			*d = (ycsb_dist)i;
			return 0;
		}
	return nm_errf(err, errlen,
		    "unknown distribution '%s' (expected uniform, zipfian, zipfian-ri, scrambled, latest or hotspot)",
		    s ? s : "");
}

/* ----------------------------------------------------------- generator ---- */

void ycsb_config_default(ycsb_config *c)
{
	memset(c, 0, sizeof *c);
	c->records = 1000;
	c->operations = 1000;
	ycsb_parse_workload("a", 0, &c->mix, &c->dist, NULL, 0);
	c->theta = YCSB_THETA;
	c->hot_set = 0.2;
	c->hot_ops = 0.8;
	c->max_scan = 100;
	c->seed = 1;
	c->nstreams = 1;
}

static uint64_t frac64(double p)
{
	if (!(p > 0))
		return 0;
	if (p >= 1)
		return UINT64_MAX;
	return (uint64_t)ldexp(p, 64);
}

#define KEY_LIMIT (1ull << 62)

/* One Feistel round's function: the half and the round's key, mixed. */
static uint64_t feistel_f(uint64_t half, uint64_t key, unsigned round, uint64_t mask)
{
	return nm_mix64(half ^ nm_mix64(key + round)) & mask;
}

uint64_t ycsb_permute(uint64_t rank, uint64_t n, uint64_t key)
{
	if (n <= 1)
		return 0;
	unsigned bits = 64 - (unsigned)__builtin_clzll(n - 1); /* n - 1 fits */
	unsigned h = (bits + 1) / 2;
	uint64_t mask = (1ull << h) - 1, x = rank;
	do {
		uint64_t l = x >> h, r = x & mask;
		for (unsigned k = 0; k < 4; k++) {
			uint64_t t = l ^ feistel_f(r, key, k, mask);
			l = r;
			r = t;
		}
		x = l << h | r;
	} while (x >= n);
	return x;
}

int ycsb_init(ycsb_gen *g, const ycsb_config *c, char *err, size_t errlen)
{
	memset(g, 0, sizeof *g);
	if (c->records == 0)
		return nm_errf(err, errlen, "records is 0: the key space is empty (need at least 1 record)");
	if (c->records > KEY_LIMIT)
		return nm_errf(err, errlen, "records %" PRIu64 " is above the limit 2^62", c->records);
	if (ycsb_check_mix(&c->mix, err, errlen))
		return -1;
	if ((unsigned)c->dist >= YCSB_NDISTS)
		return nm_errf(err, errlen, "unknown distribution %d", (int)c->dist);
	if (!(c->theta > 0) || !isfinite(c->theta))
		return nm_errf(err, errlen, "theta %g: the Zipf exponent must be > 0", c->theta);
	if (c->rank > YCSB_MAX_STREAM || c->thread > YCSB_MAX_STREAM)
		return nm_errf(err, errlen, "rank %u / thread %u: each must be at most %u", c->rank, c->thread,
			    YCSB_MAX_STREAM);
	if (c->nstreams == 0 || c->stream >= c->nstreams)
		return nm_errf(err, errlen, "stream %u of %u: need 0 <= stream < streams", c->stream, c->nstreams);
	if (c->mix.p[YCSB_SCAN] > 0 && c->max_scan == 0)
		return nm_errf(err, errlen, "scans need a maximum scan length of at least 1");
	if (c->dist == YCSB_HOTSPOT) {
		if (!(c->hot_set > 0 && c->hot_set <= 1))
			return nm_errf(err, errlen, "hotspot: hot-set fraction %g is not in (0, 1]", c->hot_set);
		if (!(c->hot_ops >= 0 && c->hot_ops <= 1))
			return nm_errf(err, errlen, "hotspot: hot-operation fraction %g is not in [0, 1]", c->hot_ops);
	}
	g->cfg = *c;
	if (!g->cfg.scramble_items)
		g->cfg.scramble_items = YCSB_SCRAMBLE_ITEMS;
	if (g->cfg.scramble_items > KEY_LIMIT)
		return nm_errf(err, errlen, "scramble items %" PRIu64 " is above the limit 2^62",
			    g->cfg.scramble_items);

	ycsb_rng_seed(&g->rng, c->seed, c->rank, c->thread);

	double cum = 0;
	int last = 0;
	for (int i = 0; i < YCSB_NOPS; i++) {
		cum += c->mix.p[i];
		g->cut[i] = frac64(cum);
		if (c->mix.p[i] > 0) {
			last = i;
			g->nops++;
		}
	}
	g->single_op = last; /* the last op with a share: what a draw above every cut gets */

	g->count = c->records;
	g->next_insert = c->records + c->stream;
	switch (c->dist) {
	case YCSB_UNIFORM:
		g->span = c->records;
		break;
	case YCSB_ZIPFIAN:
		ycsb_zipf_init(&g->zipf, c->records, c->theta, 0, c->zetan);
		break;
	case YCSB_ZIPFIAN_RI:
		ycsb_zipf_init(&g->zipf, c->records, c->theta, 1, 0);
		break;
	case YCSB_SCRAMBLED: {
		/* YCSB: new ZipfianGenerator(0, ITEM_COUNT, theta[, ZETAN]) */
		uint64_t items = g->cfg.scramble_items + 1;
		double zetan = c->theta == 0.99 ? YCSB_SCRAMBLE_ZETAN : 0;
		ycsb_zipf_init(&g->zipf, items, c->theta, 0, zetan);
		/* expectednewkeys = (int)(opcount * insertproportion * 2.0) */
		double exp_new = floor((double)c->operations * c->mix.p[YCSB_INSERT] * 2.0) * c->nstreams;
		if (exp_new > (double)KEY_LIMIT)
			return nm_errf(err, errlen, "too many expected inserts for the scrambled key space");
		uint64_t span = c->records + (uint64_t)exp_new + 1;
		if (span > KEY_LIMIT)
			return nm_errf(err, errlen, "scrambled key space above the limit 2^62");
		mod_init(g, span);
		break;
	}
	case YCSB_LATEST:
		/* SkewedLatestGenerator: ZipfianGenerator(basis.lastValue()) items */
		ycsb_zipf_init(&g->zipf, c->records - 1, c->theta, 0, 0);
		break;
	case YCSB_HOTSPOT: {
		double h = floor((double)c->records * c->hot_set);
		if (h < 1)
			return nm_errf(err, errlen,
				    "hotspot: hot set is empty (%" PRIu64 " records x hot-set fraction %g < 1 key)",
				    c->records, c->hot_set);
		g->hot_n = (uint64_t)h;
		if (g->hot_n > c->records)
			g->hot_n = c->records;
		g->hot_cut = (g->hot_n == c->records || c->hot_ops >= 1) ? UINT64_MAX : frac64(c->hot_ops);
		break;
	}
	default:
		break;
	}
	return 0;
}

void ycsb_init_trace(ycsb_gen *g, const ycsb_req *reqs, size_t n, size_t start)
{
	memset(g, 0, sizeof *g);
	g->trace = reqs;
	g->trace_n = n;
	g->trace_pos = n ? start % n : 0;
}

uint64_t ycsb_next_key(ycsb_gen *g)
{
	switch (g->cfg.dist) {
	case YCSB_UNIFORM:
		return ycsb_rng_below(&g->rng, g->span);
	case YCSB_ZIPFIAN:
	case YCSB_ZIPFIAN_RI:
		return ycsb_zipf_draw(&g->zipf, &g->rng);
	case YCSB_SCRAMBLED:
		for (;;) {
			int64_t h = ycsb_fnvhash64((int64_t)ycsb_zipf_draw(&g->zipf, &g->rng));
			if (h < 0) /* Long.MIN_VALUE: YCSB would produce a negative key */
				continue;
			uint64_t k = mod63(g, (uint64_t)h);
			if (k < g->count) /* CoreWorkload.nextKeynum redraws uninserted keys */
				return k;
		}
	case YCSB_LATEST: {
		uint64_t max = g->count - 1;
		return max - ycsb_zipf_draw(&g->zipf, &g->rng);
	}
	case YCSB_HOTSPOT: {
		uint64_t r = ycsb_rng_next(&g->rng);
		if (g->hot_cut == UINT64_MAX || r < g->hot_cut)
			return ycsb_rng_below(&g->rng, g->hot_n);
		return g->hot_n + ycsb_rng_below(&g->rng, g->cfg.records - g->hot_n);
	}
	default:
		return 0;
	}
}

void ycsb_next(ycsb_gen *g, ycsb_op *op, uint64_t *key)
{
	if (g->trace) {
		const ycsb_req *r = &g->trace[g->trace_pos];
		if (++g->trace_pos == g->trace_n)
			g->trace_pos = 0;
		*op = (ycsb_op)r->op;
		*key = r->key;
		g->scan_len = r->scan_len;
		return;
	}
	int o = g->single_op;
	if (g->nops > 1) {
		uint64_t r = ycsb_rng_next(&g->rng);
		for (int i = 0; i < g->single_op; i++)
			if (r < g->cut[i]) {
				o = i;
				break;
			}
	}
	*op = (ycsb_op)o;
	if (o == YCSB_INSERT) {
		uint64_t k = g->next_insert;
		g->next_insert += g->cfg.nstreams;
		*key = k;
		if (k >= g->count) {
			g->count = k + 1;
			if (g->cfg.dist == YCSB_LATEST)
				ycsb_zipf_grow(&g->zipf, g->count - 1);
		}
		return;
	}
	*key = ycsb_next_key(g);
	if (o == YCSB_SCAN)
		g->scan_len = 1 + (uint32_t)ycsb_rng_below(&g->rng, g->cfg.max_scan);
}
