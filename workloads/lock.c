/* netmem lock: the ALock paper's distributed lock table, for any lock type.
 *
 * K locks are spread over the first N ranks in contiguous key ranges. Every
 * worker thread of those ranks runs a closed loop: pick a key (local with
 * probability p_local, uniform over the own rank's range; otherwise uniform
 * over the other ranks' keys), acquire it, run the critical section, release.
 * One operation = one acquire + critical section + release; its latency goes
 * into a histogram (the CDFs of the paper's Fig. 6) and operations over the
 * measured interval give throughput (Fig. 1, 4, 5). Node counts are swept
 * inside one job with --nodes: ranks beyond N sit the point out.
 *
 * Mutual exclusion is checked on every run: each lock owns a counter on its
 * home rank, and the critical section increments it with a deliberately
 * non-atomic read, then write (through RDMA, or CPU loads and stores where
 * the lock type allows local access), followed by a fence so the write is
 * placed before the release. At the end every counter must equal the number
 * of acquisitions of its lock; otherwise the point is invalid.
 *
 * Decisions the paper leaves open: with fewer locks than ranks (LOCO's single
 * contended lock), lock k lives on rank k and ranks without a lock always
 * take a remote one; critical section empty by default
 * (--cs-ns adds a busy wait between the read and the write); duration or
 * iteration count per thread; warm-up operations excluded; one RC QP per
 * (thread, rank), loopback to the own rank included; keys drawn with a
 * per-thread xorshift generator seeded from (seed, rank, thread). */
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "lock.h"
#include "log.h"
#include "rng.h"
#include "stats.h"
#include "workers.h"
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt lock_opts[] = {
	{"lock", 'L', NM_OPT_ENUM, "alock", 0, 0, "spin,mcs,ticket,alock,mpi", NM_OPT_LIST,
	 "lock type: spin (RDMA CAS), mcs (RDMA MCS), ticket (LOCO), alock, mpi (MPI RMA baseline)"},
	{"locks", 'K', NM_OPT_INT, "20", 1, 1e8, NULL, NM_OPT_LIST, "locks in the table (all ranks together)"},
	{"p-local", 'p', NM_OPT_INT, "50", 0, 100, NULL, NM_OPT_LIST,
	 "percent of operations on a lock homed on the caller's rank"},
	{"nodes", 'N', NM_OPT_INT, "0", 0, 1e6, NULL, NM_OPT_LIST,
	 "ranks taking part: the first N (0: all)"},
	{"local-budget", 0, NM_OPT_INT, "5", 1, 1e6, NULL, NM_OPT_LIST, "ALock local cohort budget"},
	{"remote-budget", 0, NM_OPT_INT, "20", 1, 1e6, NULL, NM_OPT_LIST, "ALock remote cohort budget"},
	{"handover-max", 0, NM_OPT_INT, "8", 0, 1e6, NULL, 0,
	 "ticket lock: local hand-overs between threads before a global release"},
	{"cs-ns", 0, NM_OPT_INT, "0", 0, 1e9, NULL, NM_OPT_LIST, "extra critical-section time (ns)"},
	{"iters", 'n', NM_OPT_INT, "1000", 1, 1e10, NULL, 0, "measured operations per thread"},
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0,
	 "measure for this many seconds instead of --iters"},
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0,
	 "unmeasured operations per thread first (-1: iters/10, at most 1000)"},
	{"inject", 0, NM_OPT_ENUM, "none", 0, 0, "none,race", 0,
	 "testing the check: race lets rank 0 thread 0 skip the lock (the point must come out invalid)"},
	NM_OPT_END,
};

static int participants(const json_t *pt, int nranks)
{
	int n = (int)nm_cfg_int(pt, "nodes");
	return n == 0 ? nranks : n;
}

static int lock_validate(const json_t *pt, int nranks, char *err, size_t len)
{
	const char *name = nm_cfg_str(pt, "lock");
	const nm_lock_type *lt = nm_lock_find(name);
	int n = participants(pt, nranks);
	if (!lt) {
		snprintf(err, len, "lock '%s' is not built into this netmem (available: %s)", name,
			 nm_lock_names());
		return -1;
	}
	if (n > nranks) {
		snprintf(err, len, "--nodes %d asks for more ranks than the job has (%d); start it with "
			 "mpirun -np %d", n, nranks, n);
		return -1;
	}
	if (lt->uses_mpi && nm_cfg_int(pt, "threads") != 1) {
		snprintf(err, len, "the mpi lock runs one thread per rank (MPI is not thread-safe "
			 "here): use -T 1 and more ranks");
		return -1;
	}
	return 0;
}

typedef struct lock_job lock_job;

typedef struct lock_thr {
	lock_job *job;
	nm_lock_thread lt;
	nm_hist hist;
	uint64_t *count;          /* acquisitions per key */
	uint64_t measured, elapsed_ns;
	uint64_t rng;
} lock_thr;

struct lock_job {
	const nm_lock_type *type;
	nm_lock_env env;
	nm_mesh mesh;
	nm_mr mr;
	uint64_t ctr_off;
	lock_thr *th;
	int p_local, key_lo, key_hi;
	uint64_t iters, warmup, cs_ticks, seed;
	double duration;
	bool race;
};

static int pick_key(lock_job *j, lock_thr *t)
{
	int K = j->env.nlocks, own = j->key_hi - j->key_lo;
	uint64_t r = nm_xorshift(&t->rng);
	/* A rank that homes no lock (fewer locks than ranks) always goes remote. */
	bool local = own > 0 && ((int)(r % 100) < j->p_local || own == K);
	uint64_t r2 = nm_xorshift(&t->rng);
	if (local)
		return j->key_lo + (int)(r2 % (uint64_t)own);
	/* uniform over the other ranks' keys: skip over our own range */
	int k = (int)(r2 % (uint64_t)(K - own));
	return k < j->key_lo ? k : k + own;
}

static void spin_ticks(uint64_t ticks)
{
	uint64_t end = nm_ticks() + ticks;
	while (nm_ticks() < end)
		;
}

/* Non-atomic increment of the lock's counter at its home. */
static void critical_section(lock_job *j, lock_thr *t, int key)
{
	nm_lock_env *e = &j->env;
	int home = nm_lock_home(e, key);
	uint64_t off = j->ctr_off + (uint64_t)nm_lock_slot(e, key) * 64;
	if (j->type->cs_get) {
		uint64_t v;
		j->type->cs_get(&t->lt, key, off, &v);
		j->type->cs_wait(&t->lt, key);
		j->type->cs_put(&t->lt, key, off, v + 1);
		return;
	}
	if (home == e->rank && j->type->cpu_local) {
		volatile uint64_t *c = (volatile uint64_t *)((uint8_t *)j->mr.buf + off);
		uint64_t v = *c;
		if (j->cs_ticks)
			spin_ticks(j->cs_ticks);
		*c = v + 1;
		atomic_thread_fence(memory_order_seq_cst);
		return;
	}
	uint64_t addr = e->mesh->rmr[home].addr + off;
	uint64_t v = nm_lock_read64(&t->lt, home, addr);
	if (j->cs_ticks)
		spin_ticks(j->cs_ticks);
	nm_lock_write64(&t->lt, home, addr, v + 1);
	/* The write must be placed before the release becomes visible, which
	 * may travel on another QP (a queue lock's hand-off). */
	nm_lock_fence(&t->lt, home);
}

static void thr_setup(nm_worker *w)
{
	lock_job *j = w->arg;
	lock_thr *t = &j->th[w->index];
	t->job = j;
	t->rng = nm_rng_stream(j->seed, j->env.rank, w->index);
	nm_hist_init(&t->hist);
	t->count = calloc((size_t)j->env.nlocks, sizeof *t->count);
	nm_lock_thread_init(&t->lt, j->type, &j->env, w->index);
}

static void thr_body(nm_worker *w)
{
	lock_job *j = w->arg;
	lock_thr *t = &j->th[w->index];
	bool cheat = j->race && j->env.rank == 0 && w->index == 0;
	uint64_t start = 0, end = 0, n = j->warmup + j->iters;
	for (uint64_t i = 0;; i++) {
		if (i == j->warmup) {
			start = nm_ticks();
			if (j->duration > 0)
				end = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
		}
		if (j->duration > 0 ? (i >= j->warmup && nm_ticks() >= end) : i >= n)
			break;
		int key = pick_key(j, t);
		uint64_t t0 = nm_ticks();
		if (!cheat)
			j->type->acquire(&t->lt, key);
		critical_section(j, t, key);
		if (!cheat)
			j->type->release(&t->lt, key);
		uint64_t t1 = nm_ticks();
		t->count[key]++;
		if (i >= j->warmup) {
			nm_hist_add(&t->hist, nm_ticks_to_ns(t1 - t0));
			t->measured++;
		}
	}
	t->elapsed_ns = nm_ticks_to_ns(nm_ticks() - start);
	if (j->type->thread_fini)
		j->type->thread_fini(&t->lt);
}

static size_t up64(size_t v) { return (v + 63) & ~(size_t)63; }

static void lock_run(nm_ctx *ctx, const json_t *pt, json_t *out)
{
	lock_job j = {0};
	char err[512] = "";
	int R = ctx->nranks, N = participants(pt, R), T = (int)nm_cfg_int(pt, "threads");
	bool in = ctx->rank < N;
	j.type = nm_lock_find(nm_cfg_str(pt, "lock"));
	j.p_local = (int)nm_cfg_int(pt, "p_local");
	j.iters = (uint64_t)nm_cfg_int(pt, "iters");
	j.duration = nm_cfg_double(pt, "duration");
	int64_t wu = nm_cfg_int(pt, "warmup");
	j.warmup = wu >= 0 ? (uint64_t)wu : j.duration > 0 ? 100 : (j.iters / 10 < 1000 ? j.iters / 10 : 1000);
	j.cs_ticks = nm_ns_to_ticks((uint64_t)nm_cfg_int(pt, "cs_ns"));
	j.race = !strcmp(nm_cfg_str(pt, "inject"), "race");
	j.seed = (uint64_t)nm_cfg_int(pt, "seed");

	nm_lock_env *e = &j.env;
	e->rank = in ? ctx->rank : -1;
	e->nranks = N;
	e->nthreads = T;
	e->nlocks = (int)nm_cfg_int(pt, "locks");
	e->local_budget = (int)nm_cfg_int(pt, "local_budget");
	e->remote_budget = (int)nm_cfg_int(pt, "remote_budget");
	e->handover_max = (int)nm_cfg_int(pt, "handover_max");
	e->timeout = nm_cfg_double(pt, "timeout");
	int slots = nm_lock_slots(e);
	e->table_off = 0;
	j.ctr_off = up64((size_t)slots * j.type->lock_bytes);
	e->desc_off = j.ctr_off + (size_t)slots * 64;
	e->scratch_off = up64(e->desc_off + (size_t)T * j.type->desc_bytes);
	size_t total = e->scratch_off + (size_t)T * NM_LOCK_SCRATCH;
	if (in) {
		int per = e->nlocks / N;
		if (per == 0) { /* fewer locks than ranks: rank k homes key k */
			j.key_lo = ctx->rank < e->nlocks ? ctx->rank : 0;
			j.key_hi = ctx->rank < e->nlocks ? ctx->rank + 1 : 0;
		} else {
			j.key_lo = ctx->rank * per;
			j.key_hi = ctx->rank == N - 1 ? e->nlocks : j.key_lo + per;
		}
	}

	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, nm_cfg_bool(pt, "hugepages"),
				 (int)nm_cfg_int(pt, "mem_node"), err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_qp_attr qa = {0};
	nm_point_qp_attr(pt, &qa);
	nm_lock_env_connect(e, j.type, ctx->dev, &j.mesh, &j.mr, &qa);

	j.th = calloc((size_t)T, sizeof *j.th);
	nm_lock_run(e, j.type, T, (int)nm_cfg_int(pt, "mem_node"), thr_setup, thr_body, &j);

	/* Gather: acquisitions per key, totals, histograms. */
	uint64_t *count = calloc((size_t)e->nlocks, sizeof *count);
	uint64_t sums[2 + NM_LOCK_STATS] = {0}, max_elapsed = 0;
	nm_hist h;
	nm_hist_init(&h);
	for (int t = 0; in && t < T; t++) {
		lock_thr *th = &j.th[t];
		for (int k = 0; k < e->nlocks; k++)
			count[k] += th->count[k];
		nm_hist_merge(&h, &th->hist);
		sums[0] += th->measured;
		for (int s = 0; s < NM_LOCK_STATS; s++)
			sums[2 + s] += th->lt.stat[s];
		if (th->elapsed_ns > max_elapsed)
			max_elapsed = th->elapsed_ns;
	}
	nm_boot_sum_u64_array(count, (size_t)e->nlocks);
	/* Each home checks its counters against the acquisitions. */
	uint64_t bad = 0, first_bad = UINT64_MAX, acquisitions = 0;
	for (int k = 0; k < e->nlocks; k++) {
		acquisitions += count[k];
		if (!in || nm_lock_home(e, k) != ctx->rank)
			continue;
		uint64_t v = *(volatile uint64_t *)((uint8_t *)j.mr.buf + j.ctr_off +
						    (size_t)nm_lock_slot(e, k) * 64);
		if (v != count[k]) {
			bad++;
			if (first_bad == UINT64_MAX)
				first_bad = (uint64_t)k;
		}
	}
	sums[1] = bad;
	nm_boot_sum_u64_array(sums, 2 + NM_LOCK_STATS);
	max_elapsed = nm_boot_max_u64(max_elapsed);
	nm_boot_hist_merge(&h);

	if (ctx->rank == 0) {
		double secs = (double)max_elapsed / 1e9, ops_s = secs > 0 ? (double)sums[0] / secs : 0;
		json_t *stats = json_object();
		for (int s = 0; s < NM_LOCK_STATS; s++)
			if (j.type->stat_names[s])
				json_object_set_new(stats, j.type->stat_names[s], json_integer((json_int_t)sums[2 + s]));
		json_t *checks = json_pack("{s:{s:I, s:I, s:I, s:b}}", "mutual_exclusion", "locks",
					   (json_int_t)e->nlocks, "acquisitions", (json_int_t)acquisitions,
					   "counters_wrong", (json_int_t)sums[1], "ok", sums[1] == 0);
		if (bad && first_bad != UINT64_MAX)
			json_object_set_new(json_object_get(checks, "mutual_exclusion"), "first_wrong_lock",
					    json_integer((json_int_t)first_bad));
		json_object_set_new(out, "valid", json_boolean(sums[1] == 0 && sums[0] > 0));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics",
				    json_pack("{s:I, s:f, s:f, s:f, s:o, s:o, s:o}", "ops", (json_int_t)sums[0],
					      "seconds", secs, "ops_per_sec", ops_s, "mops", ops_s / 1e6,
					      "lat", nm_hist_summary_json(&h), "lat_cdf",
					      nm_hist_cdf_json(&h), "lock_stats", stats));
		json_object_set_new(out, "effective",
				    json_pack("{s:i, s:I, s:s}", "nodes", N, "warmup", (json_int_t)j.warmup,
					      "lock_summary", j.type->summary));
	}
	if (j.type->env_fini)
		j.type->env_fini(e);
	for (int t = 0; t < T; t++)
		free(j.th[t].count);
	free(j.th);
	free(count);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
}

static void lock_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	if (first)
		printf(" %-6s %5s %5s %7s %7s %12s %12s %12s %12s %8s\n", "lock", "nodes", "thr", "locks",
		       "p_local", "ops/s", "p50[usec]", "p99[usec]", "max[usec]", "check");
	printf(" %-6s %5" JSON_INTEGER_FORMAT " %5" PRId64 " %7" PRId64 " %7" PRId64
	       " %12.0f %12.2f %12.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "lock"),
	       json_integer_value(json_object_get(json_object_get(res, "effective"), "nodes")),
	       nm_cfg_int(pt, "threads"), nm_cfg_int(pt, "locks"), nm_cfg_int(pt, "p_local"),
	       json_real_value(json_object_get(mt, "ops_per_sec")),
	       json_real_value(json_object_get(lat, "p50")), json_real_value(json_object_get(lat, "p99")),
	       json_real_value(json_object_get(lat, "max")),
	       json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID");
}

static const nm_experiment lock_experiment = {
	.name = "lock",
	.summary = "distributed lock table (ALock paper): throughput and latency of lock+unlock",
	.details =
		"Every thread of the first --nodes ranks loops: pick a key (own rank's range with\n"
		"probability --p-local), acquire, increment the lock's counter non-atomically,\n"
		"release. Counters are checked against acquisitions on every run.\n\n"
		"Examples:\n"
		"  mpirun -np 3 netmem lock --lock spin,mcs,alock -K 20 -p 0,50,100 -T 2\n"
		"  mpirun -np 4 netmem lock --lock ticket,mpi -K 1 -T 1 -N 2,3,4 -D 2",
	.opts = lock_opts,
	.min_ranks = 1,
	.validate = lock_validate,
	.run = lock_run,
	.report = lock_report,
};
NM_EXPERIMENT(lock_experiment)
