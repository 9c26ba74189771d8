/* The measurement core (harness/measure.h) on one rank: the warm-up rule, the
 * common measured interval (no thread measures before the slowest one has
 * warmed up; one start for all; a common deadline that excludes late
 * completions), the tally's folds (sum, max, min, rank totals), the first
 * error and the metrics it writes. Collectives come from boot_single.c. */
#include "measure.h"
#include "tap.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void nap_ms(int ms)
{
	struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&d, NULL);
}

static void warmup_rule(void)
{
	CHECK(nm_warmup_default(-1, 1000, 0) == 100, "warm-up: a tenth of the iterations");
	CHECK(nm_warmup_default(-1, 50000, 0) == 1000, "warm-up: at most 1000");
	CHECK(nm_warmup_default(-1, 5, 0) == 0, "warm-up: none for 5 iterations");
	CHECK(nm_warmup_default(-1, 1000, 2.0) == 100, "warm-up: 100 in duration mode");
	CHECK(nm_warmup_default(7, 1000, 2.0) == 7, "warm-up: an explicit value wins");
	CHECK(nm_warmup_default(0, 1000, 0) == 0, "warm-up: explicit 0");
}

static void error_recorder(void)
{
	nm_error e = {0};
	nm_error_note(&e, "first %d", 1);
	nm_error_note(&e, "second %d", 2);
	CHECK(e.count == 2 && !strcmp(e.first, "first 1"), "error recorder keeps the first message and counts all");
}

enum { C_SUM, C_MAX, C_MIN, C_RANK, C_N };
static const nm_counter counters[C_N] = {
	[C_SUM] = {"summed", NM_COUNT_METRIC}, [C_MAX] = {"largest", NM_COUNT_MAX},
	[C_MIN] = {"smallest", NM_COUNT_MIN}, [C_RANK] = {"per_rank", 0},
};

typedef struct arg {
	nm_meter *m;
	int delay_ms;          /* extra warm-up time: arrives late */
	bool skip;             /* does not measure */
	uint64_t warm_end;     /* ticks when its last warm-up operation completed */
	uint64_t first_t0;     /* ticks when its first measured operation started */
	bool measured_early;   /* a measured operation began before the common start */
} arg;

static void *worker(void *p)
{
	arg *a = p;
	if (a->skip) {
		nm_meter_skip(a->m);
		return NULL;
	}
	nm_loop lp;
	nm_loop_init(&lp, a->m);
	while (nm_loop_next(&lp)) {
		if (!nm_loop_measured(&lp) && lp.i == 1)
			nap_ms(a->delay_ms);
		uint64_t t0 = nm_ticks();
		for (volatile int k = 0; k < 2000; k++)
			;
		uint64_t t1 = nm_ticks();
		if (nm_loop_measured(&lp)) {
			if (!a->first_t0)
				a->first_t0 = t0;
			a->measured_early |= t0 < a->m->ms->start;
		} else {
			a->warm_end = t1;
		}
		if (nm_loop_done(&lp, t0, t1) && a->m->kind)
			nm_meter_kind(a->m, 0, nm_ticks_to_ns(t1 - t0)); /* every measured op is a "put" */
	}
	a->m->c[C_SUM] = 10 + (uint64_t)a->m->thread;
	a->m->c[C_MAX] = 100 * (uint64_t)(a->m->thread + 1);
	a->m->c[C_MIN] = 50 - (uint64_t)a->m->thread;
	a->m->c[C_RANK] = 1;
	if (a->m->thread == 1)
		nm_error_note(&a->m->err, "thread one saw %s", "a mismatch");
	return NULL;
}

/* What workers.c does on the main thread: start the interval once every
 * worker arrived, then wait for them. */
static void run_round(nm_measure *ms, arg *a, int n)
{
	pthread_t tid[8];
	for (int t = 0; t < n; t++)
		pthread_create(&tid[t], NULL, worker, &a[t]);
	while (!ms->started) {
		nm_measure_poll(ms, n);
		nap_ms(1);
	}
	for (int t = 0; t < n; t++)
		pthread_join(tid[t], NULL);
}

static void common_interval_iters(void)
{
	nm_measure_cfg cfg = {.iters = 20, .warmup = 5};
	static const char *const kinds[] = {"put", "take"};
	nm_measure_def def = {"txns", counters, C_N, kinds, 2};
	nm_measure *ms = nm_measure_new(&cfg, &def, 0, 4);
	arg a[4] = {{.delay_ms = 0}, {.delay_ms = 30}, {.delay_ms = 60}, {.skip = true}};
	for (int t = 0; t < 4; t++)
		a[t].m = nm_meter_of(ms, t);
	ms->rank_c[C_RANK] = 7;
	ms->rank_c[C_MIN] = 45;
	run_round(ms, a, 4);
	uint64_t last_warm = 0;
	bool same_start = true, early = false, after = true;
	for (int t = 0; t < 3; t++) {
		last_warm = a[t].warm_end > last_warm ? a[t].warm_end : last_warm;
		same_start &= a[t].m->start == ms->start;
		early |= a[t].measured_early;
	}
	for (int t = 0; t < 3; t++)
		after &= a[t].first_t0 >= last_warm;
	CHECK(ms->started && ms->start >= last_warm, "the interval starts after the slowest thread's warm-up");
	CHECK(same_start, "every measuring thread shares one start");
	CHECK(!early && after, "no measured operation starts before the common start");
	CHECK(ms->meter[3].start == 0 && ms->meter[3].ops == 0, "a thread that skips does not hold the start");

	nm_measure_gather(ms);
	CHECK(ms->ops == 60 && ms->ops_all == 75, "iteration mode: 20 measured and 25 done per thread (%llu, %llu)",
	      (unsigned long long)ms->ops, (unsigned long long)ms->ops_all);
	uint64_t longest = 0;
	for (int t = 0; t < 3; t++)
		longest = a[t].m->end - a[t].m->start > longest ? a[t].m->end - a[t].m->start : longest;
	CHECK(ms->seconds > 0 && ms->seconds == (double)nm_ticks_to_ns(longest) / 1e9,
	      "iteration mode: the interval ends with the last thread");
	CHECK(ms->total_c[C_SUM] == 10 + 11 + 12, "sum counter folds over threads");
	CHECK(ms->total_c[C_MAX] == 300, "max counter takes the largest");
	CHECK(ms->total_c[C_MIN] == 45, "min counter takes the smallest, rank totals included");
	CHECK(ms->total_c[C_RANK] == 7 + 3, "rank totals are added to the threads' counts (%llu)",
	      (unsigned long long)ms->total_c[C_RANK]);
	CHECK(ms->errors == 1 && !strcmp(ms->first_error, "rank 0 thread 1: thread one saw a mismatch"),
	      "first error names rank and thread: '%s'", ms->first_error);

	json_t *m = nm_measure_metrics(ms);
	CHECK(json_integer_value(json_object_get(m, "txns")) == 60, "metrics name the unit");
	double rate = json_real_value(json_object_get(m, "txns_per_sec"));
	CHECK(rate > 0 && fabs(rate - 60 / ms->seconds) <= 1e-9 * rate &&
	      fabs(json_real_value(json_object_get(m, "mtxns")) - rate / 1e6) <= 1e-15 * rate &&
	      json_real_value(json_object_get(m, "seconds")) == ms->seconds,
	      "the rate is the measured operations over the interval (%g/s)", rate);
	json_t *lat = json_object_get(m, "lat");
	CHECK(json_integer_value(json_object_get(lat, "count")) == 60 && json_object_get(m, "lat_cdf"),
	      "one latency sample per measured operation, and its CDF");
	CHECK(json_integer_value(json_object_get(m, "summed")) == 33 && !json_object_get(m, "largest"),
	      "only metric counters are written, under their names");
	json_t *by = json_object_get(m, "lat_by_op");
	CHECK(json_object_size(by) == 1 && json_integer_value(json_object_get(json_object_get(by, "put"), "count")) == 60,
	      "lat_by_op: each named kind with samples over every thread (60 puts), none for a kind without");
	json_t *pt = json_object_get(m, "per_thread"), *f = json_object_get(m, "fairness");
	CHECK(json_array_size(pt) == 3, "per-thread rates of the measuring threads (%zu)", json_array_size(pt));
	/* each thread's rate is its own operations over its own interval; Jain's
	 * index and the extremes come from those */
	double s = 0, s2 = 0, lo = INFINITY, hi = 0;
	bool own = true;
	for (size_t i = 0; i < json_array_size(pt); i++) {
		json_t *x = json_array_get(pt, i);
		double r = json_real_value(json_object_get(x, "ops_per_sec"));
		own &= json_integer_value(json_object_get(x, "ops")) == 20 &&
		       fabs(r - 20 / json_real_value(json_object_get(x, "seconds"))) <= 1e-9 * r;
		s += r;
		s2 += r * r;
		lo = fmin(lo, r);
		hi = fmax(hi, r);
	}
	CHECK(own, "per thread: 20 operations over the thread's own interval");
	double jain = json_real_value(json_object_get(f, "jain_index"));
	CHECK(fabs(jain - s * s / (3 * s2)) <= 1e-9 && jain > 0 && jain <= 1.0 + 1e-9 &&
	      json_real_value(json_object_get(f, "min_ops_per_sec")) == lo &&
	      json_real_value(json_object_get(f, "max_ops_per_sec")) == hi,
	      "fairness: Jain's index of the per-thread rates (%g), their minimum and maximum", jain);
	json_decref(m);
	nm_measure_free(ms);
}

static void common_deadline(void)
{
	nm_measure_cfg cfg = {.duration = 0.05, .warmup = 3};
	nm_measure_def def = {"ops", counters, C_N};
	nm_measure *ms = nm_measure_new(&cfg, &def, 0, 2);
	arg a[2] = {{.delay_ms = 0}, {.delay_ms = 20}};
	for (int t = 0; t < 2; t++)
		a[t].m = nm_meter_of(ms, t);
	run_round(ms, a, 2);
	bool at_deadline = true;
	for (int t = 0; t < 2; t++)
		at_deadline &= a[t].m->end == ms->deadline && a[t].m->start == ms->start;
	CHECK(ms->deadline == ms->start + nm_ns_to_ticks(50000000), "duration mode: one deadline, start + duration");
	CHECK(at_deadline, "duration mode: every thread's interval ends at the deadline");
	nm_measure_gather(ms);
	CHECK(ms->seconds == 0.05 && ms->ops > 0, "duration mode: the interval is the duration (%g s, %llu ops)",
	      ms->seconds, (unsigned long long)ms->ops);
	nm_measure_free(ms);

	/* A completion after the deadline is not counted, nor timed. */
	/* Meters on the heap: each holds a 224 KiB histogram. */
	nm_meter *m = aligned_alloc(64, sizeof *m), *w = aligned_alloc(64, sizeof *w);
	if (!m || !w) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(m, 0, sizeof *m);
	memset(w, 0, sizeof *w);
	m->measuring = true;
	m->deadline = 1000;
	nm_hist_init(&m->hist);
	nm_meter_op(m, 900, 999);
	nm_meter_op(m, 900, 1100);
	CHECK(m->ops == 1 && m->total == 2 && m->hist.count == 1, "a late completion counts in total only");
	nm_hist_init(&w->hist);
	nm_meter_op(w, 1, 2);
	CHECK(w->ops == 0 && w->total == 1 && w->hist.count == 0, "a warm-up operation counts in total only");
	free(m);
	free(w);
}

int main(void)
{
	nm_clock_init();
	warmup_rule();
	error_recorder();
	common_interval_iters();
	common_deadline();
	return tap_done();
}
