/* netmem ycsb: YCSB request traces and their statistics, on the host.
 *
 * A tool, not a measured job (no MPI, no RDMA device): it drives the
 * generator of primitives/gen/ycsb.h, which the key-value experiments use on
 * their hot path, and writes what it draws as a trace, or checks the draws
 * against the exact probabilities (--stats), or reads a trace back (--replay).
 *
 * Trace format (primitives/gen/ycsb.h has the full statement): one request per
 * line, `OP KEY`, or `scan KEY LEN`; OP is read, update, insert, scan or rmw,
 * or Clover's number (0 = read, anything else = write, read back as update).
 * --format clover writes 0/1, the form Clover's harness replays.
 */
#include "alloc.h"
#include "durable.h"
#include "experiment.h"
#include "log.h"
#include "ycsb.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOLIMIT -1e308

static const nm_opt ycsb_opts[] = {
	{"records", 'r', NM_OPT_INT, "1000", 0, 4.6e18, NULL, 0, "initial keys 0 .. N-1"},
	{"operations", 'n', NM_OPT_INT, "1000", 1, 4.6e18, NULL, 0, "requests to draw"},
	{"workload", 'w', NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "a..f (YCSB core), read-only, write-only, mixed (default: a)"},
	{"write-ratio", 0, NM_OPT_DOUBLE, NULL, 0, 1, NULL, 0,
	 "mixed: fraction of updates, the rest reads (default: 0.5)"},
	{"mix", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "custom mix instead of -w, e.g. read=0.9,update=0.1 (summing to 1)"},
	{"distribution", 'd', NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "uniform, zipfian, zipfian-ri, scrambled, latest, hotspot (below)"},
	{"theta", 0, NM_OPT_DOUBLE, "0.99", NOLIMIT, 0, NULL, 0, "Zipf exponent, > 0"},
	{"hot-set", 0, NM_OPT_DOUBLE, "0.2", NOLIMIT, 0, NULL, 0, "hotspot: fraction of keys that are hot"},
	{"hot-ops", 0, NM_OPT_DOUBLE, "0.8", NOLIMIT, 0, NULL, 0, "hotspot: fraction of requests to them"},
	{"max-scan", 0, NM_OPT_INT, "100", 1, 4294967295.0, NULL, 0, "scan length uniform in 1 .. N"},
	{"seed", 's', NM_OPT_INT, "1", 0, 9.2e18, NULL, 0, "random seed"},
	{"rank", 0, NM_OPT_INT, "0", 0, 0, NULL, 0, "rank whose stream to draw (0 .. 65535)"},
	{"thread", 0, NM_OPT_INT, "0", 0, 0, NULL, 0, "thread whose stream to draw (0 .. 65535)"},
	{"streams", 0, NM_OPT_INT, "1", 1, 4294967295.0, NULL, 0, "streams S inserting into one key space"},
	{"stream", 0, NM_OPT_INT, "0", 0, 4294967295.0, NULL, 0,
	 "this stream s < S: its inserts take keys records + j*S + s"},
	{"scramble-items", 0, NM_OPT_INT, "0", 0, 4.6e18, NULL, 0,
	 "scrambled's internal item count (0: YCSB's 1e16)"},
	{"output", 'o', NM_OPT_STR, NULL, 0, 0, NULL, 0, "trace file (default: stdout, unless --stats)"},
	{"format", 0, NM_OPT_ENUM, "words", 0, 0, "words,clover", 0,
	 "words: 'read 42'; clover: '0 42' (1 = write; no scans)"},
	{"stats", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "print observed vs exact frequencies (no trace unless -o)"},
	{"top", 0, NM_OPT_INT, "10", 1, 1000, NULL, 0, "ranks --stats and --replay show"},
	{"replay", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "check trace STR ('-': stdin), print its mix and hottest keys"},
	NM_OPT_END,
};

static const char ycsb_details[] =
	"Distributions (keys 0 .. records-1; rank 0 is the most popular):\n"
	"  uniform     every key alike\n"
	"  zipfian     key = rank; Gray et al. exactly as YCSB's ZipfianGenerator for\n"
	"              theta < 1, rejection-inversion (exact Zipf) for theta >= 1\n"
	"  zipfian-ri  rejection-inversion for any theta (CoRM's generator)\n"
	"  scrambled   YCSB's ScrambledZipfianGenerator, what YCSB's workloads call\n"
	"              'zipfian': FNV-1a 64 hash of a zipfian over 1e16 items, mod n\n"
	"  latest      YCSB's SkewedLatestGenerator: newest keys hottest (workload d)\n"
	"  hotspot     --hot-ops of the requests go to the lowest --hot-set of keys\n"
	"Default: the workload's (a, b, c, e, f: scrambled; d: latest; read-only,\n"
	"write-only, mixed, --mix: zipfian). --stats compares the observed frequency\n"
	"of the top ranks with the exact probability of the method (chi-square at\n"
	"p = 0.001) and, for Gray's method, with the true Zipf pmf.\n"
	"\n"
	"Trace format: one request per line, 'OP KEY', or 'scan KEY LEN' for a scan;\n"
	"OP is read, update, insert, scan or rmw (read-modify-write of one key), or\n"
	"Clover's number (0 = read, any other = write, read back as update); KEY is\n"
	"an unsigned 64-bit decimal. Blank lines and lines starting with '#' are\n"
	"skipped. Experiments replay a trace in place of the generator, wrapping\n"
	"around at its end.\n"
	"\n"
	"Streams are deterministic for (seed, rank, thread) and disjoint across\n"
	"ranks and threads. Inserts (workloads d, e) take keys records, records+1,\n"
	"...; 'latest' follows them. Definitions and deviations from YCSB:\n"
	"primitives/gen/ycsb.h.\n"
	"\n"
	"Examples:\n"
	"  netmem ycsb -w a -r 100000 -n 1000000 -o a.trace\n"
	"  netmem ycsb -w mixed --write-ratio 0.05 -d zipfian --theta 0.75 -r 1024 --format clover\n"
	"  netmem ycsb -w c -d zipfian -r 1000 -n 1000000 --stats\n"
	"  netmem ycsb --replay a.trace\n";

static const nm_opt *const ycsb_tables[] = {ycsb_opts, NULL};

static void usage(void)
{
	nm_opt_usage(stdout, "netmem ycsb", "Writes YCSB request traces; checks them (--stats, --replay).",
		     ycsb_tables);
	printf("\n%s", ycsb_details);
}

static int is_set(const json_t *spec, const char *key)
{
	const json_t *v = json_object_get(spec, key);
	if (!v)
		nm_fatal("ycsb: no option '%s' (programming error)", key);
	return !json_is_null(v);
}

/* ---------------------------------------------------------------- replay ---- */

typedef struct {
	uint64_t *key, *cnt;
	unsigned char *used;
	size_t cap, n;
} kmap;

static size_t kmap_slot(const kmap *m, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	return (size_t)h & (m->cap - 1);
}

static void kmap_alloc(kmap *m, size_t cap)
{
	m->cap = cap;
	m->n = 0;
	m->key = nm_calloc(cap, sizeof *m->key);
	m->cnt = nm_calloc(cap, sizeof *m->cnt);
	m->used = nm_calloc(cap, 1);
}

static void kmap_free(kmap *m)
{
	free(m->key);
	free(m->cnt);
	free(m->used);
}

static void kmap_add(kmap *m, uint64_t k, uint64_t c)
{
	if (2 * (m->n + 1) > m->cap) {
		kmap old = *m;
		kmap_alloc(m, old.cap * 2);
		for (size_t i = 0; i < old.cap; i++)
			if (old.used[i])
				kmap_add(m, old.key[i], old.cnt[i]);
		kmap_free(&old);
	}
	size_t i = kmap_slot(m, k);
	while (m->used[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->key[i] = k;
		m->n++;
	}
	m->cnt[i] += c;
}

static int replay(const char *path, int top)
{
	char err[512];
	ycsb_trace *t = ycsb_trace_open(path, err, sizeof err);
	if (!t)
		nm_usage_error("ycsb: %s", err);
	uint64_t ops[YCSB_NOPS] = {0}, n = 0, minkey = UINT64_MAX, maxkey = 0, scanlen = 0;
	kmap m;
	kmap_alloc(&m, 1024);
	ycsb_req r;
	int rc;
	while ((rc = ycsb_trace_next(t, &r, err, sizeof err)) == 1) {
		n++;
		ops[r.op]++;
		scanlen += r.scan_len;
		if (r.key < minkey)
			minkey = r.key;
		if (r.key > maxkey)
			maxkey = r.key;
		kmap_add(&m, r.key, 1);
	}
	ycsb_trace_close(t);
	if (rc < 0)
		nm_usage_error("ycsb: %s", err);
	if (n == 0)
		nm_usage_error("ycsb: trace %s: no requests in the file", path);

	printf("trace %s: %" PRIu64 " requests\n", path, n);
	printf("%-10s %12s %10s\n", "operation", "count", "fraction");
	for (int i = 0; i < YCSB_NOPS; i++)
		if (ops[i])
			printf("%-10s %12" PRIu64 " %10.5f\n", ycsb_op_name((ycsb_op)i), ops[i],
			       (double)ops[i] / (double)n);
	if (ops[YCSB_SCAN])
		printf("scan length: mean %.2f\n", (double)scanlen / (double)ops[YCSB_SCAN]);
	printf("keys: %zu distinct, smallest %" PRIu64 ", largest %" PRIu64 "\n", m.n, minkey, maxkey);
	/* hottest keys: a small sorted selection */
	size_t k = (size_t)top < m.n ? (size_t)top : m.n, have = 0;
	uint64_t *tk = nm_calloc(k + 1, sizeof *tk), *tc = nm_calloc(k + 1, sizeof *tc);
	for (size_t i = 0; i < m.cap; i++) {
		if (!m.used[i])
			continue;
		uint64_t c = m.cnt[i], key = m.key[i];
		size_t j;
		if (have < k)
			j = have++;
		else if (k && (c > tc[k - 1] || (c == tc[k - 1] && key < tk[k - 1])))
			j = k - 1;
		else
			continue;
		/* more requests first, then the smaller key */
		while (j > 0 && (tc[j - 1] < c || (tc[j - 1] == c && tk[j - 1] > key))) {
			tc[j] = tc[j - 1];
			tk[j] = tk[j - 1];
			j--;
		}
		tc[j] = c;
		tk[j] = key;
	}
	printf("%-6s %20s %12s %10s\n", "rank", "key", "count", "fraction");
	for (size_t i = 0; i < have; i++)
		printf("%-6zu %20" PRIu64 " %12" PRIu64 " %10.5f\n", i, tk[i], tc[i], (double)tc[i] / (double)n);
	free(tk);
	free(tc);
	kmap_free(&m);
	return 0;
}

/* ---------------------------------------------------------------- stats ---- */

typedef struct {
	uint64_t key;
	size_t idx;
} kidx;

static int kidx_cmp(const void *a, const void *b)
{
	uint64_t x = ((const kidx *)a)->key, y = ((const kidx *)b)->key;
	return x < y ? -1 : x > y;
}

static long kidx_find(const kidx *a, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo].key == key ? (long)a[lo].idx : -1;
}

/* What --stats compares the draws with: the expected top ranks of the
 * initial key space (computed before the first draw), the draws seen at
 * each of them and elsewhere. */
typedef struct top_stats {
	uint64_t *keys, *obs, rest, draws;
	double *prob;
	kidx *idx;      /* keys sorted, for the lookup of a drawn key's rank */
	long n;
	int exact;
} top_stats;

static void stats_init(top_stats *s, ycsb_gen *g, int top)
{
	*s = (top_stats){.exact = 1};
	s->keys = nm_calloc((size_t)top, sizeof *s->keys);
	s->obs = nm_calloc((size_t)top, sizeof *s->obs);
	s->prob = nm_calloc((size_t)top, sizeof *s->prob);
	s->idx = nm_calloc((size_t)top, sizeof *s->idx);
	s->n = ycsb_expected_top(g, (size_t)top, s->keys, s->prob, &s->exact);
	if (s->n < 0)
		nm_fatal("out of memory computing the expected frequencies");
	for (long i = 0; i < s->n; i++)
		s->idx[i] = (kidx){s->keys[i], (size_t)i};
	qsort(s->idx, (size_t)s->n, sizeof *s->idx, kidx_cmp);
}

/* One key draw (inserts are not draws); `before`: the key count before it. */
static void stats_observe(top_stats *s, ycsb_dist dist, uint64_t before, uint64_t key)
{
	s->draws++;
	long j;
	if (dist == YCSB_LATEST) {
		uint64_t rk = before - 1 - key; /* rank relative to the newest key */
		j = rk < (uint64_t)s->n ? (long)rk : -1;
	} else {
		j = kidx_find(s->idx, (size_t)s->n, key);
	}
	if (j >= 0)
		s->obs[j]++;
	else
		s->rest++;
}

static void stats_free(top_stats *s)
{
	free(s->keys);
	free(s->obs);
	free(s->prob);
	free(s->idx);
}

/* The header: the mix observed against the configured one, the draws, and
 * what the expected values stand for. */
static void stats_header(const top_stats *s, const ycsb_config *c, ycsb_gen *g, const char *wname, const uint64_t *ops,
			 uint64_t count0)
{
	printf("# netmem ycsb: workload %s, distribution %s, theta %g, %" PRIu64 " records, %" PRIu64
	       " operations, seed %" PRIu64 ", rank %u, thread %u\n",
	       wname, ycsb_dist_name(c->dist), c->theta, c->records, c->operations, c->seed, c->rank, c->thread);
	printf("%-10s %12s %10s %10s\n", "operation", "count", "observed", "expected");
	for (int i = 0; i < YCSB_NOPS; i++)
		if (ops[i] || c->mix.p[i] > 0)
			printf("%-10s %12" PRIu64 " %10.5f %10.5f\n", ycsb_op_name((ycsb_op)i), ops[i],
			       (double)ops[i] / (double)c->operations, c->mix.p[i]);
	printf("key draws: %" PRIu64 " (inserts excluded)%s\n", s->draws,
	       c->dist == YCSB_LATEST ? "; rank = newest key - key" : "");
	if (ycsb_key_count(g) != count0)
		printf("note: inserts grew the key space from %" PRIu64 " to %" PRIu64
		       " keys; expected values (and keys) are for the initial %" PRIu64 "%s\n",
		       count0, ycsb_key_count(g), count0,
		       c->dist == YCSB_LATEST ? "; YCSB keeps eta of the initial count as latest grows" : "");
	if (!s->exact)
		printf("note: expected values enumerate the internal zipfian's first 2^20 items exactly and "
		       "spread the rest of its mass evenly over the keys\n");
}

/* The top ranks observed against expected (and, for Gray's method, against
 * the true Zipf pmf), then Pearson's chi-square over them and the rest. */
static void stats_report(const top_stats *s, const ycsb_config *c, ycsb_gen *g, const char *wname,
			 const uint64_t *ops, uint64_t count0)
{
	stats_header(s, c, g, wname, ops, count0);
	/* Gray's method: show how far it lies from the true Zipf pmf */
	int gray = (c->dist == YCSB_ZIPFIAN || c->dist == YCSB_LATEST) && c->theta < 1;
	uint64_t pmf_n = c->dist == YCSB_LATEST ? c->records - 1 : c->records;
	double zn = gray ? ycsb_zeta(pmf_n, c->theta) : 0, maxdev = 0;
	printf("%-6s %20s %10s %10s", "rank", "key", "observed", "expected");
	if (gray)
		printf(" %10s %12s", "zipf-pmf", "gray/pmf-1");
	printf("\n");
	double x2 = 0, prest = 1, minexp = INFINITY, draws = (double)s->draws;
	for (long i = 0; i < s->n; i++) {
		double e = s->prob[i] * draws;
		printf("%-6ld %20" PRIu64 " %10.5f %10.5f", i, s->keys[i], s->draws ? (double)s->obs[i] / draws : 0,
		       s->prob[i]);
		if (gray) {
			double pz = ycsb_zipf_pmf(zn, c->theta, (uint64_t)i), d = s->prob[i] / pz - 1;
			printf(" %10.5f %+11.4f%%", pz, 100 * d);
			maxdev = fmax(maxdev, fabs(d));
		}
		printf("\n");
		prest -= s->prob[i];
		if (e > 0) {
			x2 += (s->obs[i] - e) * (s->obs[i] - e) / e;
			minexp = fmin(minexp, e);
		}
	}
	int df = (int)s->n - 1;
	if (prest > 1e-12) {
		double e = prest * draws;
		printf("%-6s %20s %10.5f %10.5f\n", "rest", "", s->draws ? (double)s->rest / draws : 0, prest);
		x2 += (s->rest - e) * (s->rest - e) / e;
		minexp = fmin(minexp, e);
		df++;
	}
	if (gray)
		printf("Gray's method vs the Zipf pmf 1/(i^theta zeta(n, theta)): max |gray/pmf-1| %.4f%% over "
		       "the top %ld ranks (exact for ranks 0 and 1 by construction)\n",
		       100 * maxdev, s->n);
	if (ycsb_key_count(g) != count0)
		printf("chi-square: skipped, the key space grew during the run (the distribution moved)\n");
	else if (s->draws == 0 || df < 1)
		printf("chi-square: not enough cells or draws\n");
	else if (minexp < 5)
		printf("chi-square: skipped, an expected count is %.1f < 5 (draw more operations)\n", minexp);
	else
		printf("chi-square %.2f on %d df, critical %.2f at p = 0.001: %s\n", x2, df, ycsb_chi2_crit(df),
		       x2 < ycsb_chi2_crit(df) ? "consistent" : "NOT consistent");
}

/* ------------------------------------------------------------------ main ---- */

/* The generator's configuration from the options; wname gets the
 * workload's name for the report. Bad input ends the job (exit 2). */
static void read_config(const json_t *spec, ycsb_config *c, char *wname, size_t wlen)
{
	char err[512];
	ycsb_config_default(c);
	const char *wl = is_set(spec, "workload") ? nm_cfg_str(spec, "workload") : NULL;
	ycsb_dist dist = YCSB_ZIPFIAN;
	if (is_set(spec, "mix")) {
		if (wl)
			nm_usage_error("ycsb: --mix and --workload are alternatives; give one");
		if (ycsb_parse_mix(nm_cfg_str(spec, "mix"), &c->mix, err, sizeof err))
			nm_usage_error("ycsb: %s", err);
		snprintf(wname, wlen, "custom");
	} else {
		if (!wl)
			wl = "a";
		int mixed = !strcmp(wl, "mixed");
		if (is_set(spec, "write_ratio") && !mixed)
			nm_usage_error("ycsb: --write-ratio applies to --workload mixed, not '%s'", wl);
		double wr = is_set(spec, "write_ratio") ? nm_cfg_double(spec, "write_ratio") : 0.5;
		if (ycsb_parse_workload(wl, wr, &c->mix, &dist, err, sizeof err))
			nm_usage_error("ycsb: %s", err);
		if (mixed)
			snprintf(wname, wlen, "mixed (write ratio %g)", wr);
		else
			snprintf(wname, wlen, "%s", wl);
	}
	if (is_set(spec, "distribution") && ycsb_parse_dist(nm_cfg_str(spec, "distribution"), &dist, err, sizeof err))
		nm_usage_error("ycsb: %s", err);
	c->dist = dist;
	c->records = (uint64_t)nm_cfg_int(spec, "records");
	c->operations = (uint64_t)nm_cfg_int(spec, "operations");
	c->theta = nm_cfg_double(spec, "theta");
	c->hot_set = nm_cfg_double(spec, "hot_set");
	c->hot_ops = nm_cfg_double(spec, "hot_ops");
	c->max_scan = (uint32_t)nm_cfg_int(spec, "max_scan");
	c->seed = (uint64_t)nm_cfg_int(spec, "seed");
	int64_t rank = nm_cfg_int(spec, "rank"), thread = nm_cfg_int(spec, "thread");
	if (rank > YCSB_MAX_STREAM || thread > YCSB_MAX_STREAM)
		nm_usage_error("ycsb: --rank and --thread must be at most %u", YCSB_MAX_STREAM);
	c->rank = (uint32_t)rank;
	c->thread = (uint32_t)thread;
	c->nstreams = (uint32_t)nm_cfg_int(spec, "streams");
	c->stream = (uint32_t)nm_cfg_int(spec, "stream");
	c->scramble_items = (uint64_t)nm_cfg_int(spec, "scramble_items");
}

/* Where the trace goes: --output (a file, or - for stdout), else stdout
 * unless only --stats was asked for (NULL: no trace). */
static nm_atomic trace_file = {.fd = -1};
static FILE *trace_open(const char **outpath, int stats)
{
	FILE *out = NULL;
	if (*outpath && !strcmp(*outpath, "-")) {
		out = stdout;
	} else if (*outpath) {
		if (nm_atomic_open(&trace_file, *outpath) != 0)
			nm_usage_error("ycsb: cannot write %s: %s", *outpath, strerror(errno));
		out = trace_file.f;
	} else if (!stats) {
		out = stdout;
		*outpath = "stdout";
	}
	if (out)
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	return out;
}

static void trace_close(FILE *out, const char *outpath)
{
	if (!out)
		return;
	if (out == stdout ? fflush(out) || ferror(out) : nm_atomic_commit(&trace_file) != 0)
		nm_fatal("cannot write %s: %s", outpath, strerror(errno));
}

static int ycsb_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
			return 0;
		}
	char err[512];
	json_t *spec = nm_opt_parse(ycsb_tables, NULL, NULL, argc - 1, argv + 1, err, sizeof err);
	if (!spec)
		nm_usage_error("ycsb: %s", err);
	int top = (int)nm_cfg_int(spec, "top");
	if (is_set(spec, "replay")) {
		int rc = replay(nm_cfg_str(spec, "replay"), top);
		json_decref(spec);
		return rc;
	}
	ycsb_config c;
	char wname[96];
	read_config(spec, &c, wname, sizeof wname);
	int clover = !strcmp(nm_cfg_str(spec, "format"), "clover");
	int stats = nm_cfg_bool(spec, "stats");
	const char *outpath = is_set(spec, "output") ? nm_cfg_str(spec, "output") : NULL;
	if (clover && c.mix.p[YCSB_SCAN] > 0)
		nm_usage_error("ycsb: workload %s has scans, which Clover's format (0 = read, 1 = write) cannot "
			       "express; use --format words", wname);
	ycsb_gen g;
	if (ycsb_init(&g, &c, err, sizeof err))
		nm_usage_error("ycsb: %s", err);
	top_stats st;
	if (stats)
		stats_init(&st, &g, top);
	FILE *out = trace_open(&outpath, stats);

	uint64_t ops[YCSB_NOPS] = {0};
	uint64_t count0 = ycsb_key_count(&g);
	char line[80];
	for (uint64_t i = 0; i < c.operations; i++) {
		ycsb_op op;
		uint64_t key, before = ycsb_key_count(&g);
		ycsb_next(&g, &op, &key);
		ops[op]++;
		if (out) {
			ycsb_req r = {.key = key, .op = (uint8_t)op, .scan_len = op == YCSB_SCAN ? ycsb_scan_len(&g) : 0};
			int l = ycsb_trace_format(&r, clover, line, sizeof line);
			if (l < 0 || fwrite(line, 1, (size_t)l, out) != (size_t)l) {
				int e = errno;
				if (out != stdout)
					nm_atomic_abort(&trace_file);
				nm_fatal("cannot write %s: %s", outpath, strerror(e));
			}
		}
		if (stats && op != YCSB_INSERT)
			stats_observe(&st, c.dist, before, key);
	}
	trace_close(out, outpath);
	if (stats) {
		stats_report(&st, &c, &g, wname, ops, count0);
		stats_free(&st);
	}
	json_decref(spec);
	return 0;
}

static const nm_experiment ycsb_exp = {
	.name = "ycsb",
	.summary = "YCSB request traces: write, check against exact probabilities, replay (no RDMA)",
	.tool_main = ycsb_main,
};
NM_EXPERIMENT(ycsb_exp)
