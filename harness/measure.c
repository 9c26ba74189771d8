#include "measure.h"
#include "alloc.h"
#include "boot.h"
#include "log.h"
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t nm_warmup_default(int64_t warmup, uint64_t iters, double duration)
{
	if (warmup >= 0)
		return (uint64_t)warmup;
	if (duration > 0)
		return 100;
	return iters / 10 < 1000 ? iters / 10 : 1000;
}

void nm_error_note(nm_error *e, const char *fmt, ...)
{
	if (e->count++ != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->first, sizeof e->first, fmt, ap);
	va_end(ap);
}

/* The thread that made the measure is the rank's main thread: the only one
 * allowed to call MPI (boot.h). */
static pthread_t owner;

static nm_hist *hists_new(int n)
{
	if (n <= 0)
		return NULL;
	/* Zeroed by calloc: the buckets of a kind's latencies that no sample
	 * reaches (most of the 224 KiB) stay untouched. */
	nm_hist *h = nm_calloc((size_t)n, sizeof *h);
	for (int k = 0; k < n; k++)
		nm_hist_init_zeroed(&h[k]);
	return h;
}

nm_measure *nm_measure_new(const nm_measure_cfg *cfg, const nm_measure_def *def, int rank, int nthreads)
{
	nm_measure *ms = nm_calloc(1, sizeof *ms);
	ms->cfg = *cfg;
	ms->def = *def;
	ms->rank = rank;
	ms->nthreads = nthreads;
	if (def->ncounters > NM_COUNTERS_MAX)
		nm_fatal("%d counters: at most %d", def->ncounters, NM_COUNTERS_MAX);
	/* 64-byte aligned, as the type asks: each meter on its own cache lines. */
	ms->meter = nm_calloc64((size_t)(nthreads ? nthreads : 1), sizeof *ms->meter);
	for (int t = 0; t < nthreads; t++) {
		ms->meter[t].ms = ms;
		ms->meter[t].thread = t;
		ms->meter[t].cpu = -1;
		nm_hist_init_zeroed(&ms->meter[t].hist);
		ms->meter[t].kind = hists_new(def->nkinds);
	}
	ms->kind = hists_new(def->nkinds);
	for (int c = 0; c < def->ncounters; c++)
		if (def->counters[c].flags & NM_COUNT_MIN) {
			ms->rank_c[c] = UINT64_MAX;
			for (int t = 0; t < nthreads; t++)
				ms->meter[t].c[c] = UINT64_MAX;
		}
	nm_hist_init_zeroed(&ms->hist);
	owner = pthread_self();
	return ms;
}

void nm_measure_free(nm_measure *ms)
{
	if (!ms)
		return;
	json_decref(ms->per_thread);
	for (int t = 0; t < ms->nthreads; t++)
		free(ms->meter[t].kind);
	free(ms->kind);
	free(ms->meter);
	free(ms);
}

/* The job-wide start: every rank's workers have arrived. nm_boot_barrier
 * spins briefly and then naps, so ranks leave it close together without the
 * main thread holding a core that workers still warming up need. */
static void start_interval(nm_measure *ms)
{
	nm_boot_barrier();
	ms->start = nm_ticks();
	ms->deadline = ms->cfg.duration > 0 ? ms->start + nm_ns_to_ticks((uint64_t)(ms->cfg.duration * 1e9)) : 0;
	ms->started = true;
	atomic_store_explicit(&ms->go, 1, memory_order_release);
}

void nm_measure_arrive(nm_meter *m)
{
	if (m->arrived)
		return;
	m->arrived = true;
	atomic_fetch_add(&m->ms->arrived, 1);
}

void nm_measure_poll(nm_measure *ms, int n)
{
	if (ms && !ms->started && atomic_load(&ms->arrived) >= n)
		start_interval(ms);
}

void nm_measure_sit_out(nm_measure *ms)
{
	if (ms && !ms->started)
		start_interval(ms);
}

void nm_meter_begin(nm_meter *m)
{
	nm_measure *ms = m->ms;
	nm_measure_arrive(m);
	if (pthread_equal(pthread_self(), owner)) {
		/* A worker on the main thread (MPI baselines) is its rank's only one. */
		nm_measure_poll(ms, ms->nthreads);
	} else {
		/* Waiting workers spin briefly, then sleep: on an oversubscribed
		 * host the main thread and the workers still warming up need the
		 * cores, and spinning (even with sched_yield) keeps them off. The
		 * naps cost a start skew of tens of microseconds, nothing against a
		 * point's interval. */
		for (uint32_t n = 1; !atomic_load_explicit(&ms->go, memory_order_acquire); n++) {
			if (n < 4096) {
				nm_cpu_relax();
			} else {
				struct timespec d = {0, 20000};
				nanosleep(&d, NULL);
			}
		}
	}
	m->start = ms->start;
	m->deadline = ms->deadline;
	m->measuring = true;
}

void nm_meter_skip(nm_meter *m) { nm_measure_arrive(m); }

void nm_meter_end(nm_meter *m, uint64_t end)
{
	m->end = m->deadline ? m->deadline : end;
	m->measuring = false;
}

/* The warm-up drains before the common start: an operation left in flight
 * there (one holding a lock) could hold up another rank's warm-up. */
void nm_window_run(nm_meter *m, nm_window_phase phase, void *arg)
{
	const nm_measure_cfg *cfg = &m->ms->cfg;
	phase(arg, cfg->warmup, 0);
	nm_meter_begin(m);
	nm_meter_end(m, phase(arg, m->deadline ? UINT64_MAX : cfg->iters, m->deadline));
}

void nm_loop_init(nm_loop *l, nm_meter *m)
{
	*l = (nm_loop){.m = m, .warmup = m->ms->cfg.warmup, .end = m->ms->cfg.warmup + m->ms->cfg.iters};
}

void nm_loop_begin_(nm_loop *l) { nm_meter_begin(l->m); }

/* ---- gathering ---- */

static double meter_seconds(const nm_measure *ms, const nm_meter *m)
{
	if (ms->cfg.duration > 0)
		return ms->cfg.duration;
	return (double)nm_ticks_to_ns(m->end - m->start) / 1e9;
}

/* This rank's per-thread rates, as compact JSON for the gather. */
static char *thread_rates(const nm_measure *ms)
{
	json_t *a = json_array();
	for (int t = 0; t < ms->nthreads; t++) {
		const nm_meter *m = &ms->meter[t];
		if (m->start == 0)
			continue;  /* never measured */
		double s = meter_seconds(ms, m);
		json_t *x = json_object();
		json_object_set_new(x, "rank", json_integer(ms->rank));
		json_object_set_new(x, "thread", json_integer(t));
		json_object_set_new(x, "cpu", json_integer(m->cpu));
		json_object_set_new(x, "ops", json_integer((json_int_t)m->ops));
		json_object_set_new(x, "seconds", json_real(s));
		json_object_set_new(x, "ops_per_sec", json_real(s > 0 ? (double)m->ops / s : 0.0));
		/* a thread's own mean and spread: with one connection per thread,
		 * the paper's per-connection latency (NUMA Fig. 3) */
		json_object_set_new(x, "lat_mean_us", json_real(nm_hist_mean(&m->hist) / 1e3));
		json_object_set_new(x, "lat_stdev_us", json_real(nm_hist_stdev(&m->hist) / 1e3));
		json_array_append_new(a, x);
	}
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

static void first_error_of_rank(const nm_measure *ms, char *buf, size_t len)
{
	buf[0] = 0;
	for (int t = 0; t < ms->nthreads && !buf[0]; t++)
		if (ms->meter[t].err.count)
			snprintf(buf, len, "rank %d thread %d: %s", ms->rank, t, ms->meter[t].err.first);
	if (!buf[0] && ms->rank_err.count)
		snprintf(buf, len, "rank %d: %s", ms->rank, ms->rank_err.first);
}

static uint64_t fold(unsigned flags, uint64_t a, uint64_t b)
{
	if (flags & NM_COUNT_MAX)
		return a > b ? a : b;
	if (flags & NM_COUNT_MIN)
		return a < b ? a : b;
	return a + b;
}

void nm_measure_gather(nm_measure *ms)
{
	enum { G_OPS = NM_COUNTERS_MAX, G_ALL, G_ERRORS, G_N };
	uint64_t sum[G_N] = {0}, longest = 0;
	const int nc = ms->def.ncounters;
	for (int c = 0; c < nc; c++)
		sum[c] = ms->rank_c[c];
	sum[G_ERRORS] = ms->rank_err.count;
	for (int t = 0; t < ms->nthreads; t++) {
		const nm_meter *m = &ms->meter[t];
		for (int c = 0; c < nc; c++)
			sum[c] = fold(ms->def.counters[c].flags, sum[c], m->c[c]);
		sum[G_OPS] += m->ops;
		sum[G_ALL] += m->total;
		sum[G_ERRORS] += m->err.count;
		if (m->start && m->end - m->start > longest)
			longest = m->end - m->start;
		nm_hist_merge(&ms->hist, &m->hist);
		for (int k = 0; k < ms->def.nkinds; k++)
			nm_hist_merge(&ms->kind[k], &m->kind[k]);
	}
	/* Over ranks: max and min as maxima (the minimum of v is the maximum of
	 * its complement), sums in one reduction. */
	for (int c = 0; c < nc; c++) {
		unsigned f = ms->def.counters[c].flags;
		if (f & NM_COUNT_MAX)
			ms->total_c[c] = nm_boot_max_u64(sum[c]), sum[c] = 0;
		else if (f & NM_COUNT_MIN)
			ms->total_c[c] = UINT64_MAX - nm_boot_max_u64(UINT64_MAX - sum[c]), sum[c] = 0;
	}
	nm_boot_sum_u64_array(sum, G_N);
	for (int c = 0; c < nc; c++)
		if (!(ms->def.counters[c].flags & (NM_COUNT_MAX | NM_COUNT_MIN)))
			ms->total_c[c] = sum[c];
	ms->ops = sum[G_OPS];
	ms->ops_all = sum[G_ALL];
	ms->errors = sum[G_ERRORS];
	/* The common interval: the duration, or from the common start to the
	 * last thread's end. */
	longest = nm_boot_max_u64(nm_ticks_to_ns(longest));
	ms->seconds = ms->cfg.duration > 0 ? ms->cfg.duration : (double)longest / 1e9;
	nm_boot_hist_merge(&ms->hist);
	for (int k = 0; k < ms->def.nkinds; k++)
		nm_boot_hist_merge(&ms->kind[k]);

	char mine[320];
	first_error_of_rank(ms, mine, sizeof mine);
	char **errs = nm_boot_gather_str(mine, 0);
	char *rates = thread_rates(ms);
	char **all = nm_boot_gather_str(rates, 0);
	free(rates);
	if (!errs)
		return;
	ms->per_thread = json_array();
	for (int r = 0; r < nm_boot_size(); r++) {
		if (!ms->first_error[0] && errs[r][0])
			snprintf(ms->first_error, sizeof ms->first_error, "%s", errs[r]);
		json_t *a = json_loads(all[r], 0, NULL);
		json_array_extend(ms->per_thread, a);
		json_decref(a);
		free(errs[r]);
		free(all[r]);
	}
	free(errs);
	free(all);
}

/* Min, max and Jain's fairness index, (sum x)^2 / (n sum x^2), of the
 * per-thread rates: 1 when every thread went at the same rate. */
static json_t *fairness(const json_t *per_thread)
{
	double lo = INFINITY, hi = 0, s = 0, s2 = 0;
	size_t i, n = json_array_size(per_thread);
	json_t *x;
	json_array_foreach(per_thread, i, x) {
		double r = json_real_value(json_object_get(x, "ops_per_sec"));
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
		s += r;
		s2 += r * r;
	}
	if (n == 0)
		return json_pack("{s:i}", "threads", 0);
	return json_pack("{s:i, s:f, s:f, s:f}", "threads", (int)n, "min_ops_per_sec", lo, "max_ops_per_sec", hi,
			 "jain_index", s2 > 0 ? s * s / ((double)n * s2) : 1.0);
}

json_t *nm_measure_metrics(const nm_measure *ms)
{
	json_t *m = json_object();
	const char *u = ms->def.unit;
	if (u) {
		char k[64];
		double rate = ms->seconds > 0 ? (double)ms->ops / ms->seconds : 0;
		json_object_set_new(m, u, json_integer((json_int_t)ms->ops));
		json_object_set_new(m, "seconds", json_real(ms->seconds));
		snprintf(k, sizeof k, "%s_per_sec", u);
		json_object_set_new(m, k, json_real(rate));
		snprintf(k, sizeof k, "m%s", u);
		json_object_set_new(m, k, json_real(rate / 1e6));
		/* everything that completed: warm-up, and completions after the
		 * deadline, which are done but outside the interval */
		snprintf(k, sizeof k, "%s_with_warmup", u);
		json_object_set_new(m, k, json_integer((json_int_t)ms->ops_all));
	}
	json_object_set_new(m, "lat", nm_hist_summary_json(&ms->hist));
	json_object_set_new(m, "lat_cdf", nm_hist_cdf_json(&ms->hist));
	for (int c = 0; c < ms->def.ncounters; c++)
		if (ms->def.counters[c].flags & NM_COUNT_METRIC)
			json_object_set_new(m, ms->def.counters[c].name, json_integer((json_int_t)ms->total_c[c]));
	if (ms->per_thread) {
		json_object_set(m, "per_thread", ms->per_thread);
		if (u)
			json_object_set_new(m, "fairness", fairness(ms->per_thread));
	}
	json_t *by = json_object();
	for (int k = 0; k < ms->def.nkinds; k++)
		if (ms->kind[k].count)
			json_object_set_new(by, ms->def.kinds[k], nm_hist_summary_json(&ms->kind[k]));
	if (json_object_size(by))
		json_object_set_new(m, "lat_by_op", by);
	else
		json_decref(by);
	return m;
}
