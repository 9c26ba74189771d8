/* netmem corm-sim and netmem corm-trace: CoRM's memory experiments without a
 * NIC (CoRM Fig. 7 and Figs. 17-19), on the host.
 *
 * A tool, not a measured job (no MPI, no RDMA device): it drives the model of
 * primitives/corm/corm_model.h, where the decisions the paper leaves open are
 * stated. Four modes:
 *   prob       Fig. 7: the probability that two blocks of a size class and an
 *              occupancy can be merged, for Mesh (offsets) and CoRM-n (IDs),
 *              analytically and, with --mc, by Monte Carlo beside it.
 *   trace      replays an allocation trace and, at --samples points,
 *              compacts a copy of the heap with every strategy.
 *   sweep      Figs. 18-19: for each trace (a file, or the paper's Redis
 *              traces of corm_redis.h) and allocator thread count, the heap
 *              at its moment of highest fragmentation, compacted.
 *   synthetic  Fig. 17: for each size and freed fraction, allocates --objects
 *              objects, frees that fraction at random, compacts.
 * `netmem corm-trace` writes the synthetic traces and the Redis ones as
 * files (the Redis traces are synthesized from the paper's description; the
 * original traces are not public).
 *
 * Trace format: one operation per line, `alloc ID SIZE` or `free ID`; ID is
 * an unsigned 64-bit decimal naming the object (reusable once freed), SIZE
 * the object's bytes (the slot it needs, header included); blank lines and
 * lines starting with '#' are skipped. A line that is no operation stops
 * the run before anything is simulated, an operation the heap's state forbids
 * (freeing an ID that is not live, allocating a live one, an object larger
 * than a block) when it is reached: one line naming the file and line or
 * operation, exit 2.
 *
 * Output: one JSON document. Its "summary" entries ({params, valid,
 * geomean}) have the shape `netmem table` reads (one run per point, so the
 * geometric mean over repetitions is the run's own value); plots/corm_*.gp
 * draw from them. */
#include "corm_model.h"
#include "corm_redis.h"
#include "durable.h"
#include "experiment.h"
#include "log.h"
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64
/* How the Redis traces are labelled wherever they appear. */
#define SYNTHESIZED                                                                                      \
	"synthesized from the CoRM paper's description (Sec. 4.4.3) and Redis 5.0.7's allocations for it; " \
	"the original traces are not public"

static const nm_opt sim_opts[] = {
	{"mode", 'm', NM_OPT_ENUM, "trace", 0, 0, "prob,trace,sweep,synthetic", 0,
	 "prob (Fig. 7), trace (one replay, sampled), sweep (Figs. 18-19), synthetic (Fig. 17)"},
	{"trace", 't', NM_OPT_STR, NULL, 0, 0, NULL, 0, "allocation trace to replay ('-': stdin)"},
	{"redis", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "sweep: the paper's Redis traces t1,t2,t3 (synthesized from its description) in place of --trace"},
	{"redis-scale", 0, NM_OPT_DOUBLE, "1", 1e-6, 1, NULL, 0, "sweep: the Redis traces' key counts times this"},
	{"thread-counts", 0, NM_OPT_STR, "1,2,4,8,16,32", 0, 0, NULL, 0, "sweep: allocator threads, one replay each"},
	{"block-size", 'b', NM_OPT_SIZE, "4k", 0, 1e12, NULL, 0, "block bytes, a power of two (4k .. 64M)"},
	{"id-bits", 0, NM_OPT_STR, "8,12,16", 0, 0, NULL, 0, "CoRM-n strategies: ID bits, 1 .. 24 each"},
	{"hybrid", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "classes with more slots than IDs use CoRM-0 (offsets), not no compaction"},
	{"threads", 'T', NM_OPT_INT, "1", 1, 4096, NULL, 0, "allocator threads (random one per allocation)"},
	{"samples", 0, NM_OPT_INT, "20", 1, 100000, NULL, 0, "trace: compaction snapshots over the trace"},
	{"objects", 'n', NM_OPT_INT, "100000", 1, 1e9, NULL, 0, "synthetic: objects allocated"},
	{"sizes", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "object sizes (synthetic default 64,256,1024,2048; prob default 16,32,..,2048)"},
	{"free", 0, NM_OPT_STR, "0.5,0.75,0.9", 0, 0, NULL, 0, "synthetic: fractions freed, each in [0, 1]"},
	{"occupancy", 0, NM_OPT_STR, "0.1,0.25,0.5,0.75", 0, 0, NULL, 0, "prob: block occupancies, in (0, 1]"},
	{"mc", 0, NM_OPT_INT, "0", 0, 1e9, NULL, 0, "prob: Monte Carlo trials per point (0: none)"},
	{"seed", 's', NM_OPT_INT, "1", 0, 9.2e18, NULL, 0, "random seed"},
	{"output", 'o', NM_OPT_STR, NULL, 0, 0, NULL, 0, "JSON document (default: stdout)"},
	NM_OPT_END,
};
static const nm_opt *const sim_tables[] = {sim_opts, NULL};

static const char sim_details[] =
	"Strategies: none (blocks with a live object), ideal (live objects packed,\n"
	"ceil(live / slots) blocks per class), mesh (merge blocks whose occupied\n"
	"offsets are disjoint), corm-N (merge blocks whose N-bit object IDs are\n"
	"disjoint; classes with more slots than 2^N stay uncompacted, or use the\n"
	"offset rule with --hybrid; (48 - log2 B) + N bits per object are added).\n"
	"\n"
	"Trace format: one operation per line, 'alloc ID SIZE' or 'free ID' (ID an\n"
	"unsigned 64-bit decimal, reusable once freed; SIZE in bytes, at most a\n"
	"block's usable bytes); blank lines and '#' lines are skipped.\n"
	"netmem corm-trace writes synthetic ones.\n"
	"\n"
	"The document's summary entries are what netmem table reads, e.g.\n"
	"  netmem table out.json --x free_pct --y active_mib --series strategy --where size=256\n"
	"Decisions the paper leaves open: primitives/corm/corm_model.h.\n"
	"\n"
	"Examples:\n"
	"  netmem corm-sim --mode prob --mc 20000 -o fig7.json\n"
	"  netmem corm-sim --mode synthetic --sizes 256,2048 --free 0.5,0.9 -o fig17.json\n"
	"  netmem corm-trace -n 10000 --sizes 256 --free 0.75 -o t.trace\n"
	"  netmem corm-sim --trace t.trace -T 8 -o t.json\n"
	"  netmem corm-sim --mode sweep --redis t1,t2,t3 -b 1M --hybrid -o fig19.json\n"
	"\n"
	"sweep: for each trace and thread count, the heap at the operation after\n"
	"which it wastes the most bytes (blocks held minus live slots: the highest\n"
	"fragmentation), compacted with every strategy. The Redis traces are\n"
	"synthesized from the paper's description (Sec. 4.4.3) and the allocations\n"
	"Redis 5.0.7 makes for it; the original traces are not public\n"
	"(primitives/corm/corm_redis.h).\n";

/* ------------------------------------------------------------ lists ---- */

static bool set(const json_t *spec, const char *key)
{
	return !json_is_null(json_object_get(spec, key));
}

/* Parses "a,b,c" of numbers within [lo, hi]; exits 2 naming the option. */
static int parse_list(const char *opt, const char *s, double lo, double hi, double *out)
{
	int n = 0;
	char *dup = strdup(s), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		double v = strtod(t, &end);
		if (errno || end == t || *end || !(v >= lo && v <= hi) || n == MAX_LIST)
			nm_usage_error("corm-sim: --%s takes up to %d numbers in [%g, %g], not '%s'", opt,
				       MAX_LIST, lo, hi, t);
		out[n++] = v;
	}
	free(dup);
	if (!n)
		nm_usage_error("corm-sim: --%s is empty", opt);
	return n;
}

static int pct(double f)
{
	return (int)lround(f * 100);
}

static json_t *entry(json_t *params, json_t *values)
{
	return json_pack("{s:o, s:b, s:o}", "params", params, "valid", 1, "geomean", values);
}

/* --------------------------------------------------------- strategies ---- */

typedef struct strat {
	corm_strategy st;
	int bits;
	char name[32];
} strat;

static int strategies(const json_t *spec, bool hybrid, strat *out)
{
	double bits[MAX_LIST];
	int nb = parse_list("id-bits", nm_cfg_str(spec, "id_bits"), 1, 24, bits), n = 0;
	out[n++] = (strat){CORM_NONE, 0, ""};
	out[n++] = (strat){CORM_IDEAL, 0, ""};
	out[n++] = (strat){CORM_MESH, 0, ""};
	for (int i = 0; i < nb; i++) {
		if (bits[i] != floor(bits[i]))
			nm_usage_error("corm-sim: --id-bits takes integers, not %g", bits[i]);
		out[n++] = (strat){CORM_IDS, (int)bits[i], ""};
	}
	for (int i = 0; i < n; i++)
		corm_strategy_name(out[i].st, out[i].bits, hybrid, out[i].name, sizeof out[i].name);
	return n;
}

/* ------------------------------------------------------------ traces ---- */

/* A trace in memory: corm_ops of corm_redis.h (alloc or free, by ID). */
typedef corm_ops trace;

static void trace_push(trace *t, uint64_t id, uint32_t size)
{
	corm_ops_push(t, id, size);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	*v = x;
	return !errno && !*end;
}

/* One line into t; exits 2 naming path:line when it is not an operation. */
static void parse_line(trace *t, char *line, const char *path, size_t lineno)
{
	char *save = NULL, *op = strtok_r(line, " \t\r\n", &save);
	if (!op || *op == '#')
		return;
	char *a = strtok_r(NULL, " \t\r\n", &save), *b = strtok_r(NULL, " \t\r\n", &save);
	char *extra = strtok_r(NULL, " \t\r\n", &save);
	uint64_t id, size;
	if (!strcmp(op, "alloc")) {
		if (!parse_u64(a, &id) || !parse_u64(b, &size) || extra || size == 0 || size > UINT32_MAX)
			nm_usage_error("corm-sim: %s:%zu: malformed line: want 'alloc ID SIZE' (SIZE 1 .. 2^32-1)",
				       path, lineno);
		trace_push(t, id, (uint32_t)size);
	} else if (!strcmp(op, "free")) {
		if (!parse_u64(a, &id) || b)
			nm_usage_error("corm-sim: %s:%zu: malformed line: want 'free ID'", path, lineno);
		trace_push(t, id, 0);
	} else {
		nm_usage_error("corm-sim: %s:%zu: unknown operation '%s' (alloc or free)", path, lineno, op);
	}
}

static void trace_read(trace *t, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		nm_usage_error("corm-sim: cannot open trace %s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	while (getline(&line, &cap, f) >= 0)
		parse_line(t, line, path, ++lineno);
	free(line);
	if (f != stdin)
		fclose(f);
	if (!t->n)
		nm_usage_error("corm-sim: trace %s holds no operation", path);
}

/* The paper's synthetic trace (CoRM paper, Sec. 4.4.2, Fig. 17): `objects`
 * allocations with sizes drawn uniformly from `sizes`, then a random
 * `fraction` of them freed in random order. IDs are 0 .. objects-1. */
static void trace_synthetic(trace *t, uint64_t objects, const double *sizes, int nsizes,
			    double fraction, uint64_t seed)
{
	uint64_t x = seed ^ 0x5eed;
	srand48((long)(x * 2654435761u));
	for (uint64_t i = 0; i < objects; i++)
		trace_push(t, i, (uint32_t)sizes[nsizes > 1 ? lrand48() % nsizes : 0]);
	uint64_t *perm = malloc(objects * sizeof *perm);
	if (!perm)
		nm_fatal("corm-sim: out of memory");
	for (uint64_t i = 0; i < objects; i++)
		perm[i] = i;
	uint64_t nfree = (uint64_t)llround(fraction * (double)objects);
	for (uint64_t i = 0; i < nfree; i++) { /* partial Fisher-Yates */
		uint64_t j = i + (uint64_t)(drand48() * (double)(objects - i)); /* drand48 < 1 */
		uint64_t tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
		trace_push(t, perm[i], 0);
	}
	free(perm);
}

/* ------------------------------------------------------------ replay ---- */

/* Trace IDs -> heap object indexes (open addressing, never shrinks: an ID
 * freed keeps its entry, whose object is then no longer live). */
typedef struct idmap {
	uint64_t *key;
	int64_t *val;
	size_t cap, n;
} idmap;

static size_t idmap_slot(const idmap *m, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
	while (m->val[i] != -1 && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void idmap_init(idmap *m, size_t cap)
{
	m->cap = cap;
	m->n = 0;
	m->key = calloc(cap, sizeof *m->key);
	m->val = malloc(cap * sizeof *m->val);
	if (!m->key || !m->val)
		nm_fatal("corm-sim: out of memory");
	for (size_t i = 0; i < cap; i++)
		m->val[i] = -1;
}

static int64_t *idmap_at(idmap *m, uint64_t k)
{
	if (2 * (m->n + 1) > m->cap) {
		idmap old = *m;
		idmap_init(m, old.cap * 2);
		for (size_t i = 0; i < old.cap; i++)
			if (old.val[i] != -1) {
				size_t j = idmap_slot(m, old.key[i]);
				m->key[j] = old.key[i];
				m->val[j] = old.val[i];
				m->n++;
			}
		free(old.key), free(old.val);
	}
	size_t i = idmap_slot(m, k);
	if (m->val[i] == -1) {
		m->key[i] = k;
		m->val[i] = -2; /* present, no object yet */
		m->n++;
	}
	return &m->val[i];
}

/* Applies operation i to the heap; exits 2 on an operation the heap's state
 * forbids (the trace is wrong, not the simulator). */
static void apply(corm_heap *h, idmap *m, const corm_op *o, size_t i, const char *path)
{
	int64_t *obj = idmap_at(m, o->id);
	bool live = *obj >= 0 && h->obj_block[*obj] != UINT32_MAX;
	char err[256];
	if (o->size) {
		if (live)
			nm_usage_error("corm-sim: %s: operation %zu allocates ID %" PRIu64 ", which is live",
				       path, i + 1, o->id);
		*obj = corm_heap_alloc(h, o->size, err, sizeof err);
		if (*obj < 0)
			nm_usage_error("corm-sim: %s: operation %zu: %s", path, i + 1, err);
	} else {
		if (!live)
			nm_usage_error("corm-sim: %s: operation %zu frees ID %" PRIu64 ", which is not allocated",
				       path, i + 1, o->id);
		corm_heap_release(h, (uint64_t)*obj);
	}
}

/* ---------------------------------------------------------- snapshots ---- */

typedef struct sim_cfg {
	uint64_t block_size, seed;
	int threads, nstrat;
	bool hybrid;
	strat st[MAX_LIST + 3];
} sim_cfg;

typedef struct snap_checks {
	bool conserved, above_ideal;
} snap_checks;

/* Compacts the heap with every strategy: {strategy: {active_bytes, ...}},
 * and folds the snapshot's checks into ck. */
static json_t *snapshot(const corm_heap *h, const sim_cfg *c, snap_checks *ck, double *active)
{
	json_t *o = json_object();
	double ideal = 0;
	for (int i = 0; i < c->nstrat; i++) {
		corm_result r = corm_compact(h, c->st[i].st, c->st[i].bits, c->hybrid, c->seed + (uint64_t)i);
		active[i] = (double)r.active_bytes;
		if (c->st[i].st == CORM_IDEAL)
			ideal = active[i];
		ck->conserved = ck->conserved && r.conserved;
		json_object_set_new(o, c->st[i].name,
				    json_pack("{s:I, s:I, s:I, s:I, s:b}", "active_bytes", (json_int_t)r.active_bytes,
					      "blocks", (json_int_t)r.blocks, "merges", (json_int_t)r.merges,
					      "overhead_bytes", (json_int_t)r.overhead_bytes, "conserved",
					      r.conserved));
	}
	for (int i = 0; i < c->nstrat; i++) /* block memory only: the ideal charges no overhead */
		ck->above_ideal = ck->above_ideal && active[i] >= ideal;
	return o;
}

/* The bytes the heap holds in blocks but not in live slots: what a compactor
 * could give back. The highest fragmentation the paper reports at is the
 * most of these; a ratio to live bytes would pick the first allocations,
 * when one object holds a whole block. */
static double wasted(const corm_heap *h)
{
	return (double)h->live_blocks * h->cls.block_size - (double)h->live_bytes;
}

/* Summary entries of one snapshot: one per strategy, with `params` (a
 * template, copied) naming the point. */
static void summarise(json_t *summary, const json_t *params, const sim_cfg *c, const double *active)
{
	double none = active[0]; /* strategies() puts none first */
	for (int i = 0; i < c->nstrat; i++) {
		json_t *p = json_deep_copy(params);
		json_object_set_new(p, "strategy", json_string(c->st[i].name));
		json_t *v = json_pack("{s:f, s:f}", "active_mib", active[i] / 1048576.0, "reduction",
				      active[i] > 0 ? none / active[i] : 1.0);
		json_array_append_new(summary, entry(p, v));
	}
}

/* Replays t, compacting a snapshot every `every` operations and at the end;
 * fills doc's summary and samples; returns the index of the peak sample
 * (highest fragmentation: the most bytes wasted, see wasted()). */
static void replay(const trace *t, const char *path, const sim_cfg *c, size_t every, json_t *doc,
		   const json_t *point, snap_checks *ck)
{
	corm_heap h;
	char err[256];
	if (corm_heap_init(&h, c->block_size, c->threads, c->seed, err, sizeof err))
		nm_usage_error("corm-sim: %s", err);
	idmap m;
	idmap_init(&m, 1024);
	json_t *samples = json_array(), *summary = json_object_get(doc, "summary"), *peak = NULL;
	double best = -1, active[MAX_LIST + 3];
	for (size_t i = 0; i < t->n; i++) {
		apply(&h, &m, &t->op[i], i, path);
		if ((i + 1) % every && i + 1 != t->n)
			continue;
		json_t *s = json_pack("{s:I, s:I, s:I, s:o}", "op", (json_int_t)(i + 1), "live_objects",
				      (json_int_t)h.live_objects, "live_bytes", (json_int_t)h.live_bytes,
				      "active", snapshot(&h, c, ck, active));
		json_t *p = json_deep_copy(point);
		json_object_set_new(p, "op", json_integer((json_int_t)(i + 1)));
		summarise(summary, p, c, active);
		json_decref(p);
		double frag = h.live_bytes ? active[0] / (double)h.live_bytes : 0;
		json_object_set_new(s, "fragmentation", json_real(frag));
		json_object_set_new(s, "wasted_bytes", json_real(wasted(&h)));
		json_array_append_new(samples, s);
		if (wasted(&h) > best) {
			best = wasted(&h);
			peak = s;
		}
	}
	json_object_set(doc, "peak", peak ? peak : json_null());
	json_object_set_new(doc, "samples", samples);
	corm_heap_free(&h);
	free(m.key), free(m.val);
}

/* reduction[strategy] = uncompacted bytes / the strategy's, at a sample. */
static json_t *reductions(const json_t *sample)
{
	json_t *r = json_object(), *act = json_object_get(sample, "active"), *v;
	const char *k;
	double none = (double)json_integer_value(json_object_get(json_object_get(act, "none"), "active_bytes"));
	json_object_foreach(act, k, v) {
		double a = (double)json_integer_value(json_object_get(v, "active_bytes"));
		json_object_set_new(r, k, json_real(a > 0 ? none / a : 1.0));
	}
	return r;
}

/* ------------------------------------------------------------- modes ---- */

static void mode_prob(const json_t *spec, const sim_cfg *c, json_t *doc)
{
	double occ[MAX_LIST], sizes[MAX_LIST];
	int no = parse_list("occupancy", nm_cfg_str(spec, "occupancy"), 1e-9, 1, occ);
	int ns = set(spec, "sizes") ? parse_list("sizes", nm_cfg_str(spec, "sizes"), 1, (double)c->block_size, sizes)
				    : parse_list("sizes", "16,32,64,128,256,512,1024,2048", 1, 1e12, sizes);
	uint64_t mc = (uint64_t)nm_cfg_int(spec, "mc");
	json_t *summary = json_object_get(doc, "summary");
	for (int o = 0; o < no; o++)
		for (int z = 0; z < ns; z++) {
			uint64_t s = c->block_size / (uint64_t)sizes[z], b = (uint64_t)llround(occ[o] * (double)s);
			for (int i = 2; i < c->nstrat; i++) { /* mesh and corm-N */
				uint64_t n = c->st[i].st == CORM_MESH ? s : 1ull << c->st[i].bits;
				json_t *v = json_pack("{s:f, s:I, s:I}", "probability", corm_merge_prob(s, n, b, b),
						      "slots", (json_int_t)s, "objects", (json_int_t)b);
				if (mc)
					json_object_set_new(v, "probability_mc",
							    json_real(corm_merge_prob_mc(s, n, b, b, mc, c->seed)));
				json_array_append_new(summary,
						      entry(json_pack("{s:i, s:I, s:s}", "occupancy_pct", pct(occ[o]),
								      "size", (json_int_t)sizes[z], "strategy",
								      c->st[i].name),
							    v));
			}
		}
}

static void mode_trace(const json_t *spec, const sim_cfg *c, json_t *doc, snap_checks *ck)
{
	if (!set(spec, "trace"))
		nm_usage_error("corm-sim: --mode trace needs --trace FILE");
	const char *path = nm_cfg_str(spec, "trace");
	trace t = {0};
	trace_read(&t, path);
	size_t samples = (size_t)nm_cfg_int(spec, "samples"), every = (t.n + samples - 1) / samples;
	json_t *point = json_pack("{s:i}", "threads", c->threads);
	replay(&t, path, c, every, doc, point, ck);
	json_decref(point);
	json_object_set_new(doc, "operations", json_integer((json_int_t)t.n));
	json_t *peak = json_object_get(doc, "peak");
	if (json_is_object(peak))
		json_object_set_new(peak, "reduction", reductions(peak));
	free(t.op);
}

/* ------------------------------------------------------------- sweep ---- */

/* What a replay saw: the operation count after which the heap wasted the
 * most bytes while it held at least `floor` live bytes (the first, on a
 * tie; 0 when it never held them), and the most live bytes it held. */
typedef struct run_peak {
	size_t op;
	uint64_t max_live;
} run_peak;

/* Applies t's first `upto` operations to a fresh heap (c's threads and
 * seed, so two runs make the same heap). */
static run_peak heap_run(corm_heap *h, idmap *m, const trace *t, size_t upto, uint64_t floor_live,
			 const char *path, const sim_cfg *c)
{
	char err[256];
	if (corm_heap_init(h, c->block_size, c->threads, c->seed, err, sizeof err))
		nm_usage_error("corm-sim: %s", err);
	idmap_init(m, 1024);
	run_peak r = {0, 0};
	double most = -1;
	for (size_t i = 0; i < upto; i++) {
		apply(h, m, &t->op[i], i, path);
		if (h->live_bytes > r.max_live)
			r.max_live = h->live_bytes;
		if (h->live_bytes >= floor_live && wasted(h) > most) {
			most = wasted(h);
			r.op = i + 1;
		}
	}
	return r;
}

static void heap_done(corm_heap *h, idmap *m)
{
	corm_heap_free(h);
	free(m->key), free(m->val);
}

/* One point of the sweep: the heap at the trace's moment of highest
 * fragmentation, compacted with every strategy. That moment is the most
 * wasted bytes once the heap holds at least half the trace's largest live
 * set: a heap still filling up (a block per thread and class opened for a
 * few objects) is not yet fragmented, it is empty. A heap cannot be copied
 * cheaply, so the trace is replayed: for the largest live set, for the
 * moment, and up to it. */
static void sweep_point(const trace *t, const char *name, const sim_cfg *c, json_t *doc, snap_checks *ck)
{
	corm_heap h;
	idmap m;
	run_peak first = heap_run(&h, &m, t, t->n, 0, name, c);
	heap_done(&h, &m);
	size_t peak = heap_run(&h, &m, t, t->n, (first.max_live + 1) / 2, name, c).op;
	heap_done(&h, &m);
	heap_run(&h, &m, t, peak, 0, name, c);
	double active[MAX_LIST + 3];
	json_t *act = snapshot(&h, c, ck, active);
	json_t *params = json_pack("{s:s, s:i}", "trace", name, "threads", c->threads);
	summarise(json_object_get(doc, "summary"), params, c, active);
	json_t *run = json_pack("{s:o, s:I, s:I, s:I, s:I, s:f, s:o}", "params", params, "op", (json_int_t)peak,
				"operations", (json_int_t)t->n, "live_objects", (json_int_t)h.live_objects,
				"live_bytes", (json_int_t)h.live_bytes, "wasted_bytes", wasted(&h), "active", act);
	json_object_set_new(run, "reduction", reductions(run));
	json_array_append_new(json_object_get(doc, "runs"), run);
	heap_done(&h, &m);
}

/* The Redis settings a synthesized trace models (corm_redis.h), beyond the
 * paper's key counts and sizes. */
static json_t *redis_model(corm_redis_trace t, double scale)
{
	json_t *m = json_pack("{s:s}", "version", CORM_REDIS_VERSION);
	if (t == CORM_REDIS_T2)
		json_object_update_new(m, json_pack("{s:s, s:I, s:i, s:i}", "maxmemory_policy", "allkeys-lru",
						    "maxmemory_bytes", (json_int_t)llround((double)CORM_REDIS_LRU_BYTES * scale),
						    "maxmemory_samples", CORM_LRU_SAMPLES, "eviction_pool", CORM_LRU_POOL));
	if (t == CORM_REDIS_T3)
		json_object_update_new(m, json_pack("{s:[s,s,s,s,s], s:i, s:i, s:i}", "structures", "hash", "list",
						    "zset", "set", "stream", "structure_bytes", (int)CORM_REDIS_STRUCT_BYTES,
						    "list_max_ziplist_size", CORM_REDIS_LIST_FILL, "stream_node_max_entries",
						    CORM_REDIS_STREAM_NODE_ENTRIES));
	return m;
}

/* The traces a sweep replays: --trace FILE, or the Redis traces named. */
static int sweep_traces(const json_t *spec, int *which)
{
	if (set(spec, "trace") == set(spec, "redis"))
		nm_usage_error("corm-sim: --mode sweep takes either --trace FILE or --redis t1,t2,t3");
	if (set(spec, "trace"))
		return 0;
	int n = 0;
	char *dup = strdup(nm_cfg_str(spec, "redis")), *save = NULL;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = corm_redis_parse(tok);
		if (k < 0 || n == CORM_REDIS_TRACES)
			nm_usage_error("corm-sim: --redis takes up to three of t1, t2, t3, not '%s'", tok);
		which[n++] = k;
	}
	free(dup);
	if (!n)
		nm_usage_error("corm-sim: --redis is empty");
	return n;
}

static void mode_sweep(const json_t *spec, const sim_cfg *c, json_t *doc, snap_checks *ck)
{
	int which[CORM_REDIS_TRACES], nw = sweep_traces(spec, which);
	double thr[MAX_LIST];
	int nt = parse_list("thread-counts", nm_cfg_str(spec, "thread_counts"), 1, 4096, thr);
	double scale = nm_cfg_double(spec, "redis_scale");
	json_t *traces = json_object();
	json_object_set_new(doc, "runs", json_array());
	for (int w = 0; w < (nw ? nw : 1); w++) {
		trace t = {0};
		const char *name = nw ? corm_redis_name(which[w]) : nm_cfg_str(spec, "trace");
		if (nw)
			corm_redis_generate(&t, which[w], c->seed, scale);
		else
			trace_read(&t, name);
		json_t *tr = json_pack("{s:I, s:s}", "operations", (json_int_t)t.n, "source", nw ? SYNTHESIZED : "file");
		if (nw)
			json_object_set_new(tr, "redis", redis_model(which[w], scale));
		json_object_set_new(traces, name, tr);
		for (int i = 0; i < nt; i++) {
			sim_cfg ct = *c;
			if (thr[i] != floor(thr[i]))
				nm_usage_error("corm-sim: --thread-counts takes integers, not %g", thr[i]);
			ct.threads = (int)thr[i];
			sweep_point(&t, name, &ct, doc, ck);
		}
		corm_ops_free(&t);
	}
	json_object_set_new(doc, "traces", traces);
}

static void mode_synthetic(const json_t *spec, const sim_cfg *c, json_t *doc, snap_checks *ck)
{
	double sizes[MAX_LIST], fr[MAX_LIST];
	int ns = parse_list("sizes", set(spec, "sizes") ? nm_cfg_str(spec, "sizes") : "64,256,1024,2048", 1,
			    UINT32_MAX, sizes);
	int nf = parse_list("free", nm_cfg_str(spec, "free"), 0, 1, fr);
	uint64_t objects = (uint64_t)nm_cfg_int(spec, "objects");
	json_t *best = json_object(), *runs = json_array();
	for (int z = 0; z < ns; z++)
		for (int f = 0; f < nf; f++) {
			trace t = {0};
			trace_synthetic(&t, objects, &sizes[z], 1, fr[f], c->seed);
			json_t *sub = json_pack("{s:[]}", "summary");
			/* the block size too: Fig. 17's claims hold for the paper's
			 * 1 MiB blocks, and a smaller scale's 4 KiB ones differ */
			json_t *point = json_pack("{s:I, s:i, s:i, s:I}", "size", (json_int_t)sizes[z], "free_pct",
						  pct(fr[f]), "threads", c->threads, "block_size", (json_int_t)c->block_size);
			replay(&t, "synthetic", c, t.n, sub, point, ck); /* one snapshot: the end */
			json_array_extend(json_object_get(doc, "summary"), json_object_get(sub, "summary"));
			json_t *red = reductions(json_object_get(sub, "peak")), *v;
			const char *k;
			json_object_foreach(red, k, v) /* the best reduction over the sweep */
				if (json_real_value(v) > json_real_value(json_object_get(best, k)))
					json_object_set(best, k, v);
			json_array_append_new(runs, json_pack("{s:o, s:O, s:o}", "params", point, "peak",
							      json_object_get(sub, "peak"), "reduction", red));
			json_decref(sub);
			free(t.op);
		}
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "max_reduction", best);
}

/* -------------------------------------------------------------- main ---- */


static void write_doc(json_t *doc, const json_t *spec)
{
	const char *out = set(spec, "output") ? nm_cfg_str(spec, "output") : NULL;
	int flags = JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10);
	if (!out) {
		if (json_dumpf(doc, stdout, flags) || putchar('\n') == EOF || fflush(stdout))
			nm_fatal("corm-sim: cannot write stdout: %s", strerror(errno));
		return;
	}
	if (nm_write_json_atomic(out, doc, flags) != 0)
		nm_fatal("corm-sim: cannot write %s: %s", out, strerror(errno));
}

static void sim_cfg_read(const json_t *spec, sim_cfg *c)
{
	char err[256];
	corm_classes cls;
	c->block_size = (uint64_t)nm_cfg_int(spec, "block_size");
	if (corm_classes_init(&cls, c->block_size, err, sizeof err))
		nm_usage_error("corm-sim: --block-size: %s", err);
	c->threads = (int)nm_cfg_int(spec, "threads");
	c->seed = (uint64_t)nm_cfg_int(spec, "seed");
	c->hybrid = nm_cfg_bool(spec, "hybrid");
	c->nstrat = strategies(spec, c->hybrid, c->st);
}

static int sim_main(int argc, char **argv)
{
	if (nm_opt_wants_help(argc, argv)) {
		nm_opt_usage(stdout, "netmem corm-sim", "CoRM's memory simulator (Figs. 7, 17-19), no NIC.",
			     sim_tables);
		printf("\n%s", sim_details);
		return 0;
	}
	char err[512];
	json_t *spec = nm_opt_parse(sim_tables, NULL, NULL, argc - 1, argv + 1, err, sizeof err);
	if (!spec)
		nm_usage_error("corm-sim: %s", err);
	sim_cfg c;
	sim_cfg_read(spec, &c);
	const char *mode = nm_cfg_str(spec, "mode");
	json_t *doc = json_pack("{s:s, s:s, s:O, s:[]}", "experiment", "corm-sim", "mode", mode, "params", spec,
				"summary");
	snap_checks ck = {true, true};
	if (!strcmp(mode, "prob"))
		mode_prob(spec, &c, doc);
	else if (!strcmp(mode, "trace"))
		mode_trace(spec, &c, doc, &ck);
	else if (!strcmp(mode, "sweep"))
		mode_sweep(spec, &c, doc, &ck);
	else
		mode_synthetic(spec, &c, doc, &ck);
	json_object_set_new(doc, "checks", json_pack("{s:b, s:b}", "conserved", ck.conserved, "above_ideal",
						     ck.above_ideal));
	json_object_set_new(doc, "valid", json_boolean(ck.conserved && ck.above_ideal));
	write_doc(doc, spec);
	json_decref(doc);
	json_decref(spec);
	return ck.conserved && ck.above_ideal ? 0 : 1;
}

static const nm_experiment corm_sim_exp = {
	.name = "corm-sim",
	.summary = "CoRM's memory simulator: compaction probability, active memory (no NIC)",
	.tool_main = sim_main,
};
NM_EXPERIMENT(corm_sim_exp)

/* ------------------------------------------------------- corm-trace ---- */

static const nm_opt gen_opts[] = {
	{"objects", 'n', NM_OPT_INT, "10000", 1, 1e9, NULL, 0, "objects allocated"},
	{"sizes", 0, NM_OPT_STR, "256", 0, 0, NULL, 0, "object sizes, each allocation one at random"},
	{"free", 0, NM_OPT_DOUBLE, "0.75", 0, 1, NULL, 0, "fraction then freed, at random"},
	{"redis", 0, NM_OPT_ENUM, NULL, 0, 0, "t1,t2,t3", 0,
	 "the paper's Redis trace (Sec. 4.4.3), synthesized from its description, in place of the above"},
	{"redis-scale", 0, NM_OPT_DOUBLE, "1", 1e-6, 1, NULL, 0, "--redis: key counts times this"},
	{"seed", 's', NM_OPT_INT, "1", 0, 9.2e18, NULL, 0, "random seed"},
	{"output", 'o', NM_OPT_STR, NULL, 0, 0, NULL, 0, "trace file (default: stdout)"},
	NM_OPT_END,
};
static const nm_opt *const gen_tables[] = {gen_opts, NULL};

static int gen_main(int argc, char **argv)
{
	if (nm_opt_wants_help(argc, argv)) {
		nm_opt_usage(stdout, "netmem corm-trace",
			     "Writes an allocation trace for netmem corm-sim: CoRM Fig. 17's kind, or a Redis trace of Figs. 18-19.",
			     gen_tables);
		printf("\nFormat: 'alloc ID SIZE' / 'free ID' lines, '#' comments (netmem corm-sim --help).\n");
		return 0;
	}
	char err[512];
	json_t *spec = nm_opt_parse(gen_tables, NULL, NULL, argc - 1, argv + 1, err, sizeof err);
	if (!spec)
		nm_usage_error("corm-trace: %s", err);
	double sizes[MAX_LIST];
	int ns = parse_list("sizes", nm_cfg_str(spec, "sizes"), 1, UINT32_MAX, sizes);
	uint64_t n = (uint64_t)nm_cfg_int(spec, "objects"), seed = (uint64_t)nm_cfg_int(spec, "seed");
	double fr = nm_cfg_double(spec, "free");
	const char *out = set(spec, "output") ? nm_cfg_str(spec, "output") : NULL;
	nm_atomic a = {.fd = -1};
	if (out && nm_atomic_open(&a, out) != 0)
		nm_usage_error("corm-trace: cannot write %s: %s", out, strerror(errno));
	FILE *f = out ? a.f : stdout;
	trace t = {0};
	if (set(spec, "redis")) {
		const char *r = nm_cfg_str(spec, "redis");
		double scale = nm_cfg_double(spec, "redis_scale");
		corm_redis_generate(&t, corm_redis_parse(r), seed, scale);
		fprintf(f, "# netmem corm-trace --redis %s --redis-scale %g --seed %" PRIu64 "\n", r, scale, seed);
		fprintf(f, "# redis-mem-%s, %s\n", r, SYNTHESIZED);
	} else {
		trace_synthetic(&t, n, sizes, ns, fr, seed);
		fprintf(f, "# netmem corm-trace -n %" PRIu64 " --sizes %s --free %g --seed %" PRIu64 "\n", n,
			nm_cfg_str(spec, "sizes"), fr, seed);
	}
	fprintf(f, "# alloc ID SIZE | free ID\n");
	for (size_t i = 0; i < t.n; i++)
		if (t.op[i].size)
			fprintf(f, "alloc %" PRIu64 " %" PRIu32 "\n", t.op[i].id, t.op[i].size);
		else
			fprintf(f, "free %" PRIu64 "\n", t.op[i].id);
	int bad = out ? nm_atomic_commit(&a) : ferror(f) | fflush(f);
	free(t.op);
	if (bad)
		nm_fatal("corm-trace: cannot write %s: %s", out ? out : "stdout", strerror(errno ? errno : EIO));
	json_decref(spec);
	return 0;
}

static const nm_experiment corm_trace_exp = {
	.name = "corm-trace",
	.summary = "synthetic and Redis allocation traces for corm-sim (no NIC)",
	.tool_main = gen_main,
};
NM_EXPERIMENT(corm_trace_exp)
