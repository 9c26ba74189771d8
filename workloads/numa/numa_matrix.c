/* netmem numa-matrix: memory latency between every pair of NUMA nodes, as
 * the NUMA paper's Fig. 2 table (measured there with Intel's Memory Latency
 * Checker): a thread on a CPU of node i follows a chain of dependent loads
 * through a buffer on node j, each load's address the value of the previous
 * one, so loads cannot overlap and each costs one full memory latency.
 *
 * The chain visits every 64-byte line of the buffer once, in a seeded random
 * order (a single cycle), so hardware prefetchers cannot guess the next line
 * and a buffer larger than the caches (--buf, 256 MiB by default) misses
 * them. The buffer is allocated on node j and the chain written by a thread
 * bound to node j; each measurement first walks --warmup loads unmeasured.
 *
 * Checks, on every pair: the buffer's pages are on node j after the
 * measurement (move_pages), the thread ran on a CPU of node i, and the walk
 * ended at the line the chain's order predicts after exactly that many loads
 * (so every load happened and followed the chain); building the chain also
 * walks it once to confirm a single cycle through every line. --inject
 * shortcut makes one line skip its successor before measuring: the end
 * position then differs and the point must come out invalid.
 *
 * Decisions MLC and the paper leave to us: the latency is the mean over
 * --iters loads (MLC reports the same kind of mean); 4 KiB pages unless
 * --hugepages (then TLB misses are mostly excluded, as with MLC's large
 * pages); only rank 0 measures, its own host (run one rank per host to
 * measure several); nodes without CPUs (rows) or without memory (columns)
 * are null in the matrix. */
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "rng.h"
#include "../../numa/mem.h"
#include "../../numa/nodes.h"
#include "../../numa/pages.h"
#include <inttypes.h>
#include <numa.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE 64

static const nm_opt matrix_opts[] = {
	{"buf", 0, NM_OPT_SIZE, "256M", 4096, 1ll << 40, NULL, NM_OPT_LIST,
	 "buffer per memory node (larger than the last-level cache)"},
	NM_OPT_ITERS("1000000", "dependent loads per pair of nodes"),
	NM_OPT_WARMUP("dependent loads per pair"),
	NM_OPT_INJECT("none,shortcut",
	 "testing the check: shortcut makes one line of each chain skip its successor (the point must "
	 "come out invalid)"),
	NM_OPT_END,
};

typedef enum { INJECT_NONE, INJECT_SHORTCUT } matrix_inject;

typedef struct matrix_point {
	size_t buf;
	uint64_t iters, warmup, seed;
	bool hugepages;
	matrix_inject inject;
} matrix_point;

static int matrix_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	matrix_point *p = out;
	*p = (matrix_point){.buf = (size_t)nm_cfg_int(pt, "buf"), .iters = b->measure.iters,
			    .warmup = b->measure.warmup, .seed = b->seed, .hugepages = b->hugepages,
			    .inject = strcmp(nm_cfg_str(pt, "inject"), "shortcut") ? INJECT_NONE : INJECT_SHORTCUT};
	if (p->buf / LINE < 2) {
		snprintf(err, len, "--buf %zu holds fewer than two 64-byte lines", p->buf);
		return -1;
	}
	return 0;
}

/* The NUMA nodes a matrix needs: a local and a remote one, else it has no
 * off-diagonal entry, no remote latency and no ratio, the figure's point. */
enum { MATRIX_MIN_NODES = 2 };

/* netmem preflight: no verbs resources (the buffers are plain memory, the
 * device is never used); rank 0, the only one that measures, needs two
 * NUMA nodes and, with --hugepages, the huge pages of one buffer (column
 * frees each before the next). */
static void matrix_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	const matrix_point *p = point;
	(void)b;
	(void)nranks;
	if (rank != 0)
		return;
	n->numa_nodes = MATRIX_MIN_NODES;
	if (p->hugepages)
		n->hugepage_bytes = nm_mem_alloc_len(p->buf, true);
}

/* One memory node's buffer and its chain: order[k] is the k-th line visited. */
typedef struct chain {
	uint8_t *base;
	size_t alloc_len, lines;
	uint32_t *order;
	int node;
} chain;

static void **line_at(const chain *c, size_t k) { return (void **)(c->base + (size_t)c->order[k % c->lines] * LINE); }

/* Writes the links (on the memory node's thread) and walks the cycle once. */
typedef struct build_arg {
	chain *c;
	uint64_t seed;
	bool ok;
} build_arg;

static void build(void *a)
{
	build_arg *b = a;
	chain *c = b->c;
	uint64_t rng = nm_mix64(b->seed ^ (uint64_t)c->node) | 1;
	for (size_t k = 0; k < c->lines; k++)
		c->order[k] = (uint32_t)k;
	for (size_t k = c->lines - 1; k > 0; k--) {
		rng = nm_mix64(rng);
		size_t o = rng % (k + 1);
		uint32_t t = c->order[k];
		c->order[k] = c->order[o];
		c->order[o] = t;
	}
	for (size_t k = 0; k < c->lines; k++)
		*line_at(c, k) = line_at(c, k + 1);
	void **p = line_at(c, 0);
	size_t steps = 0;
	do {
		p = *p;
		steps++;
	} while (p != line_at(c, 0) && steps <= c->lines);
	b->ok = steps == c->lines;
}

typedef struct chase_arg {
	const chain *c;
	uint64_t warmup, iters;
	void **end;
	uint64_t ns;
} chase_arg;

static void chase(void *a)
{
	chase_arg *ch = a;
	void **p = line_at(ch->c, 0);
	for (uint64_t i = 0; i < ch->warmup; i++)
		p = *p;
	uint64_t t0 = nm_now_ns();
	for (uint64_t i = 0; i < ch->iters; i++)
		p = *(void **volatile *)p;
	ch->ns = nm_now_ns() - t0;
	ch->end = p;
}

/* The matrix being filled, with the first failed check. */
typedef struct matrix {
	const matrix_point *p;
	nm_numa_view view;
	json_t *rows, *latency, *pairs;
	char first[512];
	int failures;
} matrix;

static void note(matrix *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(matrix *m, const char *fmt, ...)
{
	if (m->failures++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m->first, sizeof m->first, fmt, ap);
		va_end(ap);
	}
}

static int first_cpu(int node)
{
	int cpus[1024];
	return nm_numa_node_cpus(node, cpus, 1024) > 0 ? cpus[0] : -1;
}

/* One memory node: its buffer and chain, then a chase from every CPU node. */
static void column(matrix *m, int jx)
{
	const matrix_point *p = m->p;
	int j = m->view.node[jx].id;
	char err[512];
	chain c = {.node = j};
	c.base = nm_mem_alloc(p->buf, p->hugepages, j, &c.alloc_len, err, sizeof err);
	if (!c.base) {
		note(m, "node %d: %s", j, err);
		return;
	}
	c.lines = p->buf / LINE;
	c.order = nm_calloc(c.lines, sizeof *c.order);
	build_arg b = {.c = &c, .seed = p->seed};
	if (nm_numa_run_on(first_cpu(j) >= 0 ? j : -1, first_cpu(j) >= 0 ? first_cpu(j) : 0, build, &b, NULL, err,
		       sizeof err) || !b.ok)
		note(m, "node %d: the chain is not one cycle through its %zu lines%s%s", j, c.lines, err[0] ? ": " : "",
		     err);
	if (p->inject == INJECT_SHORTCUT)
		*line_at(&c, 1) = line_at(&c, 3);
	for (int ix = 0; ix < m->view.nnodes; ix++) {
		int i = m->view.node[ix].id, cpu = first_cpu(i), ran = -1;
		if (cpu < 0)
			continue;
		chase_arg ch = {.c = &c, .warmup = p->warmup, .iters = p->iters};
		if (nm_numa_run_on(i, cpu, chase, &ch, &ran, err, sizeof err) != 0) {
			note(m, "cpu node %d: %s", i, err);
			continue;
		}
		nm_page_census pc;
		nm_pages_census(c.base, c.alloc_len, p->hugepages ? (size_t)2 << 20 : (size_t)sysconf(_SC_PAGESIZE), j, &pc);
		bool at_end = ch.end == line_at(&c, p->warmup + p->iters), on_node = ran >= 0 && numa_node_of_cpu(ran) == i;
		if (!at_end)
			note(m, "node %d -> %d: after %" PRIu64 " loads the walk is not where the chain leads", i, j,
			     p->warmup + p->iters);
		if (!on_node)
			note(m, "node %d -> %d: the thread pinned to cpu %d ran on cpu %d", i, j, cpu, ran);
		if (!nm_census_ok(&pc)) {
			nm_census_why(&pc, "buffer", err, sizeof err);
			note(m, "node %d -> %d: %s", i, j, err);
		}
		double ns = (double)ch.ns / (double)p->iters;
		json_array_set_new(json_array_get(m->rows, (size_t)ix), (size_t)jx, json_real(ns));
		char ki[16], kj[16];
		snprintf(ki, sizeof ki, "%d", i);
		snprintf(kj, sizeof kj, "%d", j);
		json_object_set_new(json_object_get(m->latency, ki), kj, json_real(ns));
		json_array_append_new(m->pairs, json_pack("{s:i, s:i, s:i, s:i, s:f, s:b, s:o}", "cpu_node", i,
							  "mem_node", j, "cpu", cpu, "ran_on", ran, "ns", ns, "ok",
							  at_end && on_node && nm_census_ok(&pc), "pages",
							  nm_census_json(&pc)));
	}
	free(c.order);
	nm_mem_free(c.base, c.alloc_len);
}

/* Local (diagonal) and remote (off-diagonal) means, and their ratio. */
static void summarize(matrix *m, json_t *metrics)
{
	double l = 0, r = 0;
	int nl = 0, nr = 0;
	for (int i = 0; i < m->view.nnodes; i++)
		for (int jx = 0; jx < m->view.nnodes; jx++) {
			json_t *v = json_array_get(json_array_get(m->rows, (size_t)i), (size_t)jx);
			if (!json_is_real(v))
				continue;
			*(i == jx ? &l : &r) += json_real_value(v);
			(*(i == jx ? &nl : &nr))++;
		}
	if (nl)
		json_object_set_new(metrics, "local_ns", json_real(l / nl));
	if (nr)
		json_object_set_new(metrics, "remote_ns", json_real(r / nr));
	if (nl && nr)
		json_object_set_new(metrics, "remote_over_local", json_real((r / nr) / (l / nl)));
}

static void matrix_run(nm_ctx *ctx, const void *point, json_t *out)
{
	if (ctx->rank != 0)
		return;
	matrix m = {.p = point, .rows = json_array(), .latency = json_object(), .pairs = json_array()};
	nm_numa_view_load(&m.view, NULL, NULL);
	json_t *nodes = json_array();
	for (int i = 0; i < m.view.nnodes; i++) {
		json_t *row = json_array();
		char k[16];
		for (int jx = 0; jx < m.view.nnodes; jx++)
			json_array_append_new(row, json_null());
		json_array_append_new(m.rows, row);
		json_array_append_new(nodes, json_integer(m.view.node[i].id));
		snprintf(k, sizeof k, "%d", m.view.node[i].id);
		json_object_set_new(m.latency, k, json_object());
	}
	for (int jx = 0; jx < m.view.nnodes; jx++)
		if (m.view.node[jx].has_memory)
			column(&m, jx);
	json_t *metrics = json_pack("{s:o, s:o, s:o, s:I}", "nodes", nodes, "matrix_ns", m.rows, "latency_ns",
				    m.latency, "loads", (json_int_t)m.p->iters);
	summarize(&m, metrics);
	bool ok = m.failures == 0 && json_array_size(m.pairs) > 0;
	json_t *checks = json_pack("{s:i, s:i, s:b}", "pairs", (int)json_array_size(m.pairs), "failed", m.failures,
				   "ok", ok);
	if (m.failures)
		json_object_set_new(checks, "first_error", json_string(m.first));
	json_object_set_new(out, "valid", json_boolean(ok));
	json_object_set_new(out, "checks", checks);
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective",
			    json_pack("{s:s, s:I, s:I, s:b, s:o}", "host", m.view.hostname, "lines",
				      (json_int_t)(m.p->buf / LINE), "warmup", (json_int_t)m.p->warmup,
				      "hugepages", m.p->hugepages, "pairs", m.pairs));
}

static void matrix_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *nodes = json_object_get(mt, "nodes");
	size_t i, j;
	json_t *row, *v;
	printf(" memory latency (ns), %s, buffer %" PRId64 " B: rows CPU node, columns memory node (%s)\n",
	       json_string_value(json_object_get(json_object_get(res, "effective"), "host")), nm_cfg_int(pt, "buf"),
	       nm_point_verdict(res));
	printf(" %8s", "");
	json_array_foreach(nodes, i, v) printf(" %8" JSON_INTEGER_FORMAT, json_integer_value(v));
	printf("\n");
	json_array_foreach(json_object_get(mt, "matrix_ns"), i, row) {
		printf(" %8" JSON_INTEGER_FORMAT, json_integer_value(json_array_get(nodes, i)));
		json_array_foreach(row, j, v) {
			if (json_is_real(v))
				printf(" %8.1f", json_real_value(v));
			else
				printf(" %8s", "-");
		}
		printf("\n");
	}
	(void)first;
}

static const nm_experiment matrix_experiment = {
	.name = "numa-matrix",
	.summary = "memory latency between every pair of NUMA nodes, a pointer chase (NUMA Fig. 2)",
	.details =
		"A thread on each node's first CPU follows a chain of dependent loads through a\n"
		"buffer on each node (every 64-byte line once, in a random order), as Intel's Memory\n"
		"Latency Checker measures its latency matrix. Rank 0 measures its own host; the\n"
		"matrix is metrics.matrix_ns (rows: CPU node, columns: memory node). Every pair\n"
		"checks that the walk ended where the chain leads, that the thread ran on its node\n"
		"and that the buffer's pages are on theirs.\n\n"
		"Examples:\n"
		"  mpirun -np 1 netmem numa-matrix\n"
		"  mpirun -np 1 netmem numa-matrix --buf 1G --hugepages -n 10000000",
	.opts = matrix_opts, .min_ranks = 1,
	.point_size = sizeof(matrix_point), .decode = matrix_decode, .needs = matrix_needs,
	.run = matrix_run, .report = matrix_report,
};
NM_EXPERIMENT(matrix_experiment)
