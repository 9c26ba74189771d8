/* The measurement core: what every workload measures the same way, so that a
 * workload is its algorithm and its checks and nothing else.
 *
 * Options. NM_OPT_ITERS, NM_OPT_DURATION and NM_OPT_WARMUP declare --iters,
 * --duration and --warmup; the harness decodes them into nm_base.measure with
 * one warm-up rule (nm_warmup_default).
 *
 * One measured interval per point, shared by every thread of every rank.
 * Each measuring thread runs its warm-up, then arrives at a common start:
 * when every worker of its rank has arrived (or finished, or said it does not
 * measure), the rank's main thread joins a job-wide barrier and releases them
 * together. In duration mode every thread stops at the common deadline,
 * start + duration, and only operations completed by then count; in
 * iteration mode each thread stops after its iterations and the interval
 * ends when the last thread of the job finishes. Throughput is the
 * operations completed in that interval over its length. Each thread's own
 * rate goes into the document as well (metrics.per_thread and
 * metrics.fairness), so a starved thread is visible rather than averaged
 * away.
 *
 * A tally. A workload names its counters once, as an enum and a table of
 * nm_counter indexed by it (workloads/locks/txn.c); every thread counts into
 * its own nm_meter, the rank may add its own totals, and nm_measure_gather
 * folds everything at rank 0 together with the latency histograms, the
 * per-thread rates and the first error any thread or rank recorded. A
 * workload that times operations of several kinds (a get and an update, an
 * alloc and a read) names the kinds too, records each sample with
 * nm_meter_kind, and gets metrics.lat_by_op over the job.
 *
 * A closed measured loop:
 *
 *     nm_loop lp;
 *     nm_loop_init(&lp, w->meter);
 *     while (nm_loop_next(&lp)) {
 *             uint64_t t0 = nm_ticks();
 *             ... one operation ...
 *             nm_loop_done(&lp, t0, nm_ticks());
 *     }
 *
 * A loop that keeps a window of operations in flight runs in phases
 * (nm_window_run): it warms up and drains, waits at the common start, runs
 * the measured phase, and counts completions with nm_meter_ops. */
#ifndef NM_MEASURE_H
#define NM_MEASURE_H
#include "clock.h"
#include "stats.h"
#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Option table entries; `unit` names what one iteration is ("operations"). */
#define NM_OPT_ITERS(def, unit) \
	{"iters", 'n', NM_OPT_INT, def, 1, 1e10, NULL, 0, "measured " unit " per thread"}
#define NM_OPT_DURATION \
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0, \
	 "measure for this many seconds instead of --iters (every thread stops at one common deadline)"}
#define NM_OPT_WARMUP(unit) \
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0, \
	 "unmeasured " unit " per thread first (-1: iters/10, at most 1000; 100 with --duration)"}

typedef struct nm_measure_cfg {
	uint64_t iters;    /* per thread, iteration mode */
	double duration;   /* seconds; > 0 selects duration mode */
	uint64_t warmup;   /* per thread, resolved (never -1) */
} nm_measure_cfg;

/* The one warm-up rule: an explicit --warmup, else 100 operations in
 * duration mode, else a tenth of the iterations, at most 1000. */
uint64_t nm_warmup_default(int64_t warmup, uint64_t iters, double duration);

/* First-error recorder: counts failures and keeps the first one's message. */
typedef struct nm_error {
	uint64_t count;
	char first[256];
} nm_error;
void nm_error_note(nm_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define NM_COUNTERS_MAX 32
#define NM_COUNT_MAX 1u     /* fold by maximum over threads and ranks, not by sum */
#define NM_COUNT_MIN 2u     /* fold by minimum; starts at UINT64_MAX, which means "none" */
#define NM_COUNT_METRIC 4u  /* written into metrics under its name */

typedef struct nm_counter {
	const char *name;
	unsigned flags;
} nm_counter;

/* What a workload measures: the unit of its operations (metrics hold
 * <unit>, <unit>_per_sec and m<unit>: "ops", "ops_per_sec", "mops"), its
 * counters, and the names of the operation kinds it times apart (none:
 * NULL, 0); NULL unit: latency only (no rates). */
typedef struct nm_measure_def {
	const char *unit;
	const nm_counter *counters;
	int ncounters;
	const char *const *kinds;
	int nkinds;
} nm_measure_def;

struct nm_measure;

/* One per worker thread, on its own cache lines. A histogram is 224 KiB
 * (stats.h): a measure holds (threads + 1) x (1 + kinds) of them, e.g. 7.2
 * MiB for 32 threads and no kinds; those of the kinds and the job-wide ones
 * stay untouched, not resident, where no sample lands. */
typedef struct nm_meter {
	struct nm_measure *ms;
	int thread;
	int cpu;                 /* where it ran (-1: unknown), for the record */
	bool arrived;            /* at the common start (or not measuring) */
	bool measuring;
	uint64_t start, deadline, end;   /* ticks; deadline 0: iteration mode */
	uint64_t ops;            /* completed in the measured interval */
	uint64_t total;          /* completed, warm-up and late ones included */
	uint64_t c[NM_COUNTERS_MAX];
	nm_error err;
	nm_hist hist;
	nm_hist *kind;           /* [def.nkinds]: latency per operation kind */
} __attribute__((aligned(64))) nm_meter;

typedef struct nm_measure {
	nm_measure_cfg cfg;
	nm_measure_def def;
	int rank, nthreads;
	nm_meter *meter;                 /* [nthreads] */
	uint64_t rank_c[NM_COUNTERS_MAX];  /* the rank's own counts (not per thread) */
	nm_error rank_err;
	/* the common start */
	atomic_int arrived;
	atomic_int go;
	bool started;
	uint64_t start, deadline;
	/* after nm_measure_gather: job-wide totals on every rank; the rest at
	 * rank 0 only */
	uint64_t total_c[NM_COUNTERS_MAX];
	uint64_t ops, ops_all, errors;
	double seconds;
	nm_hist hist;
	nm_hist *kind;                   /* [def.nkinds], job-wide */
	json_t *per_thread;
	char first_error[320];
} nm_measure;

/* A measure for this rank's n threads (n may be 0: a rank that measures
 * nothing still takes part in the collective calls). */
nm_measure *nm_measure_new(const nm_measure_cfg *cfg, const nm_measure_def *def, int rank, int nthreads);
void nm_measure_free(nm_measure *ms);
static inline nm_meter *nm_meter_of(nm_measure *ms, int thread) { return &ms->meter[thread]; }

/* Thread side. begin: waits at the common start, then measures; skip: this
 * thread does not measure (a server loop); end: stops (end in ticks). */
void nm_meter_begin(nm_meter *m);
void nm_meter_skip(nm_meter *m);
void nm_meter_end(nm_meter *m, uint64_t end);
/* Counts n operations that completed together at t1 (one signaled
 * completion retiring a batch), timed by one that started at t0: measured
 * when inside the interval, one sample in the histogram and n in the rate.
 * Returns whether they were measured. */
static inline bool nm_meter_ops(nm_meter *m, uint64_t t0, uint64_t t1, uint64_t n)
{
	m->total += n;
	if (m->measuring && (m->deadline == 0 || t1 <= m->deadline)) {
		nm_hist_add(&m->hist, nm_ticks_to_ns(t1 - t0));
		m->ops += n;
		return true;
	}
	return false;
}
/* One completed operation that started at t0 and completed at t1. */
static inline bool nm_meter_op(nm_meter *m, uint64_t t0, uint64_t t1) { return nm_meter_ops(m, t0, t1, 1); }
/* A latency sample (ns) of operation kind k (nm_measure_def.kinds); the
 * caller decides whether the operation was measured. */
static inline void nm_meter_kind(nm_meter *m, int k, uint64_t ns) { nm_hist_add(&m->kind[k], ns); }

/* Main-thread side, for the harness's worker rounds (workers.c): arrive
 * marks a worker that finished without arriving; poll starts the interval
 * once all n workers arrived (collective); sit_out is the same collective
 * for a rank without workers. */
void nm_measure_arrive(nm_meter *m);
void nm_measure_poll(nm_measure *ms, int n);
void nm_measure_sit_out(nm_measure *ms);

/* Collective: folds counters, histograms, rates and errors (see above). */
void nm_measure_gather(nm_measure *ms);
/* Rank 0, after gather: {unit, "seconds", unit_per_sec, "m"+unit,
 * unit_with_warmup (every completed operation: warm-up, and completions
 * after the deadline), "lat", "lat_cdf", every NM_COUNT_METRIC counter,
 * "per_thread", "fairness", and "lat_by_op" (each kind with samples; absent
 * when none has any)}. */
json_t *nm_measure_metrics(const nm_measure *ms);

/* A windowed loop's phase: starts up to `count` operations, none after
 * `deadline` (ticks, 0: none), and returns once every operation it started
 * has completed, with the time of the last completion (ticks). */
typedef uint64_t (*nm_window_phase)(void *arg, uint64_t count, uint64_t deadline);
/* A thread's windowed loop over the point's interval: the warm-up phase,
 * the common start, the measured phase (the iterations, or unbounded until
 * the deadline), the meter's end. The phase is called twice per thread, so
 * the loop inside it stays the caller's, with no call through a pointer per
 * operation. */
void nm_window_run(nm_meter *m, nm_window_phase phase, void *arg);

/* The closed loop of the header comment. */
typedef struct nm_loop {
	nm_meter *m;
	uint64_t i, warmup, end;
} nm_loop;

void nm_loop_init(nm_loop *l, nm_meter *m);
void nm_loop_begin_(nm_loop *l);
static inline bool nm_loop_next(nm_loop *l)
{
	if (l->i == l->warmup && !l->m->measuring)
		nm_loop_begin_(l);
	if (l->m->measuring &&
	    (l->m->deadline ? nm_ticks() >= l->m->deadline : l->i >= l->end)) {
		nm_meter_end(l->m, nm_ticks());
		return false;
	}
	l->i++;
	return true;
}
/* The operation of this iteration completed: t0 and t1 in ticks. Returns
 * whether it was measured (warm-up and completions past the deadline are not). */
static inline bool nm_loop_done(nm_loop *l, uint64_t t0, uint64_t t1) { return nm_meter_op(l->m, t0, t1); }
/* The loop ends early (a failed step left nothing to go on from): the
 * interval, if it had begun, ends now; the caller breaks out. */
static inline void nm_loop_stop(nm_loop *l)
{
	if (l->m->measuring)
		nm_meter_end(l->m, nm_ticks());
}
/* Whether the current iteration is measured (not warm-up). */
static inline bool nm_loop_measured(const nm_loop *l) { return l->m->measuring; }
#endif
