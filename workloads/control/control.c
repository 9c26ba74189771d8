/* netmem control: LOCO's power_controller channel (Appendix B, Fig. 7), a
 * real-time simulation of a distributed DC/DC converter system controlled
 * over network memory. Rank 0 is the controller; the converters are spread
 * over the other ranks (--converters N, default one per rank as in the
 * paper). The channel is two arrays of owned_vars: duty cycle d_i (owner:
 * the controller) and output voltage V_i (owner: converter i's rank).
 *
 *   converter i, every --conv-period-us (10 us, the paper's): integrate its
 *     averaged model (control_model.h) from its previous step to now with
 *     the duty cycle it held, read its latest d_i, store V_i and push it to
 *     the controller (RDMA WRITE);
 *   controller, every --period-us T: read every latest V_i, sum them (the
 *     system's output as the paper defines it), one PI step on the mean
 *     error, store every new d_i and push it to its converter's rank.
 *
 * Loops run on wall-clock deadlines: iteration k belongs to the slot
 * start + k P. An iteration that starts a whole period or more after its
 * slot counts the slots it skipped as missed deadlines and runs for the
 * current slot; a converter then integrates over the whole gap, so the
 * simulated time stays the wall-clock time and is never stretched. How
 * late each iteration started goes into a histogram per loop kind.
 *
 * Staleness: every message carries its writer's time (ns since the common
 * start, on the writer's clock); the reader records now - that time for
 * every V_i the controller uses and every d_i a converter uses. On one host
 * the clock is shared; across hosts the ranks' common start is a barrier's
 * exit, so ages carry its skew (microseconds).
 *
 * Correctness (a failure marks the point invalid):
 *   tag      every message holds a hash of its kind, converter index, sequence
 *            number, time and value; a reader that finds a message whose hash
 *            does not match (a wrong slot, another converter's value, bytes
 *            no writer stored together) records a violation;
 *   order    the sequence numbers a reader sees never go backwards;
 *   sum      the output the controller computed equals its inputs summed
 *            again in the opposite order (to rounding);
 *   final    after the loops and a fence, every converter's rank reads the
 *            controller's copies of its V_i and requires the last value it
 *            wrote, and its own copy of d_i must be the controller's last.
 * --inject wrong-slot makes the controller read converter 1's slot for
 * converter 0, which the tag check must catch.
 *
 * Memory of each rank, one registered region (same offsets everywhere):
 *   [0, 64)               registered scratch of the chan
 *   [64, +64 N)           d_i, owner rank 0
 *   [.., +64 N)           V_i, owner converter i's rank
 *   [.., +64 N)           the final check's read-back area */
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "control_model.h"
#include "experiment.h"
#include "hosts.h"
#include "log.h"
#include "mesh.h"
#include "owned_var.h"
#include "rdma.h"
#include "topo.h"
#include "workers.h"
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const nm_opt control_opts[] = {
	{"period-us", 0, NM_OPT_DOUBLE, "10", 1, 1e6, NULL, NM_OPT_LIST,
	 "controller loop period T in microseconds (the paper sweeps it; stable up to 40 us)"},
	{"converters", 0, NM_OPT_INT, "0", 0, 100000, NULL, NM_OPT_LIST,
	 "converters, spread round-robin over ranks 1.. (0: one per rank, the paper's layout)"},
	{"conv-period-us", 0, NM_OPT_DOUBLE, "10", 1, 1e6, NULL, 0,
	 "converter loop period in microseconds (the paper's: 10)"},
	{"duration", 'D', NM_OPT_DOUBLE, "1", 0.001, 86400, NULL, 0,
	 "seconds of simulated (= wall-clock) time per point (the paper's: 5)"},
	{"trace-points", 0, NM_OPT_INT, "1000", 10, 1e6, NULL, 0,
	 "buckets of the downsampled output trace (mean, min and max per bucket)"},
	{"yield", 0, NM_OPT_ENUM, "auto", 0, 0, "auto,on,off", 0,
	 "waiting for a slot yields the CPU (auto: when a host has more ranks than CPUs)"},
	NM_OPT_INJECT("none,wrong-slot",
	 "testing the check: wrong-slot makes the controller read converter 1's V for converter 0 "
	 "(the point must come out invalid)"),
	NM_OPT_END,
};


typedef struct control_point {
	double period, conv_period, duration;   /* s */
	int converters;                        /* N, resolved */
	int trace_points;
	nm_yield_mode yield;
	bool inject;
} control_point;

static int control_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	control_point *p = out;
	int64_t n = nm_cfg_int(pt, "converters");
	*p = (control_point){
		.period = nm_cfg_double(pt, "period_us") * 1e-6,
		.conv_period = nm_cfg_double(pt, "conv_period_us") * 1e-6,
		.duration = nm_cfg_double(pt, "duration"),
		.converters = n == 0 ? b->nranks - 1 : (int)n,
		.trace_points = (int)nm_cfg_int(pt, "trace_points"),
		.yield = nm_yield_parse(nm_cfg_str(pt, "yield")),
		.inject = !strcmp(nm_cfg_str(pt, "inject"), "wrong-slot"),
	};
	if (b->nranks < 2) {
		snprintf(err, len, "control needs a controller and at least one converter rank: start it "
			 "with mpirun -np 2 or more (the paper: 21, one controller and 20 converters)");
		return -1;
	}
	if (b->threads != 1) {
		snprintf(err, len, "control runs one loop per rank (the main thread); --threads %d does not "
			 "apply", b->threads);
		return -1;
	}
	if (p->inject && p->converters < 2) {
		snprintf(err, len, "--inject wrong-slot needs at least 2 converters (it reads another "
			 "converter's slot)");
		return -1;
	}
	if (p->duration < 20 * p->period) {
		snprintf(err, len, "--duration %g s holds fewer than 20 controller periods of %g us", p->duration,
			 p->period * 1e6);
		return -1;
	}
	return 0;
}

/* A message of the channel: what an owned_var holds (32 bytes, so it
 * travels with LOCO's checksum and torn copies are retried). */
typedef struct ctl_msg {
	uint64_t seq;     /* the writer's iteration; 0: the initial value */
	uint64_t t_ns;    /* when it was written, ns since the common start */
	double val;       /* d_i or V_i */
	uint64_t tag;
} ctl_msg;

enum { KIND_D = 1, KIND_V = 2 };

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static uint64_t msg_tag(int kind, int idx, const ctl_msg *m)
{
	uint64_t bits;
	memcpy(&bits, &m->val, sizeof bits);
	return mix(mix(mix(mix((uint64_t)kind << 32 | (uint32_t)idx, m->seq), m->t_ns), bits), 0x10c0);
}

#define OFF_SCRATCH 0
#define OFF_D 64
#define STRIDE 64

/* Counters; the meter's errors are all violations of the checks. */
enum {
	C_CTL_ITERS, C_CTL_MISSED, C_CONV_ITERS, C_CONV_MISSED, C_V_READS, C_D_READS, C_TORN, C_FINAL, C_N
};
static const nm_counter control_counters[C_N] = {
	[C_CTL_ITERS] = {"controller_iterations", 0}, [C_CTL_MISSED] = {"controller_missed", 0},
	[C_CONV_ITERS] = {"converter_iterations", 0}, [C_CONV_MISSED] = {"converter_missed", 0},
	[C_V_READS] = {"v_reads", 0}, [C_D_READS] = {"d_reads", 0}, [C_TORN] = {"torn_reads_retried", 0},
	[C_FINAL] = {"final_checked", 0},
};
enum { K_V_AGE, K_D_AGE, K_CTL_LATE, K_CONV_LATE, K_N };
static const char *const control_kinds[K_N] = {"v_age", "d_age", "controller_late", "converter_late"};

typedef struct cjob {
	const control_point *p;
	const ctl_params *mp;
	int rank, R, N;
	bool yield;
	double timeout;        /* --timeout: how long a record may stay torn */
	nm_mr mr;
	nm_mesh mesh;
	nm_poller pl;
	nm_chan ch;
	nm_ov *d, *v;          /* [N] */
	size_t off_v, off_back;
	nm_meter *m;
	uint64_t start;        /* ticks, the common start */
	/* controller's samples */
	double *tr_t, *tr_v;
	size_t tr_n, tr_cap;
} cjob;

static int owner_of(const cjob *j, int i) { return 1 + i % (j->R - 1); }

static uint64_t since_ns(const cjob *j, uint64_t now) { return nm_ticks_to_ns(now - j->start); }

/* A record that stays torn ends the job: retrying it for ever would hold
 * the loop, and the rank with it, while its main thread keeps telling the
 * others that it is alive. */
static void load_msg(cjob *j, const nm_ov *v, ctl_msg *out)
{
	double waited;
	if (!nm_ov_load_wait(v, &j->mr, out, j->timeout, &j->m->c[C_TORN], &waited))
		nm_stalled("a torn record", waited, "the copy of the %zu-byte record at offset %zu, written by rank %d, "
			   "has stayed torn (value and checksum disagree, no new value placed) for %.0f s: its "
			   "writer stopped in the middle of a push", (size_t)v->len, v->off, v->owner, j->timeout);
}

/* Reads one message and checks it against what was last seen. */
static bool read_checked(cjob *j, const nm_ov *slot, int kind, int idx, uint64_t *last, ctl_msg *msg)
{
	load_msg(j, slot, msg);
	if (msg->tag != msg_tag(kind, idx, msg)) {
		nm_error_note(&j->m->err, "rank %d: %s of converter %d (seq %" PRIu64 ") is not a value its writer "
			      "stored there (tag mismatch)", j->rank, kind == KIND_V ? "V" : "d", idx, msg->seq);
		return false;
	}
	if (msg->seq < *last)
		nm_error_note(&j->m->err, "rank %d: %s of converter %d went back from seq %" PRIu64 " to %" PRIu64,
			      j->rank, kind == KIND_V ? "V" : "d", idx, *last, msg->seq);
	*last = msg->seq;
	return true;
}

static void publish(cjob *j, nm_ov *slot, int kind, int idx, uint64_t seq, double val, int peer)
{
	ctl_msg msg = {.seq = seq, .t_ns = since_ns(j, nm_ticks()), .val = val};
	msg.tag = msg_tag(kind, idx, &msg);
	nm_ov_store(slot, &j->mr, &msg);
	nm_ov_push(&j->ch, slot, peer);
}

/* Waits for the slot's tick; returns the slots skipped (missed deadlines)
 * past it, or -1 when the run is over. */
static int64_t wait_slot(cjob *j, uint64_t *slot, uint64_t period, uint64_t end)
{
	if (*slot >= end)
		return -1;
	uint64_t now;
	while ((now = nm_ticks()) < *slot) {
		if (j->yield)
			sched_yield();
		else
			nm_cpu_relax();
	}
	if (now >= end)
		return -1;
	uint64_t behind = (now - *slot) / period;
	*slot += behind * period;
	return (int64_t)behind;
}

static void controller_loop(cjob *j)
{
	const ctl_params *mp = j->mp;
	int N = j->N;
	double *d = nm_calloc((size_t)N, sizeof *d), *vals = nm_calloc((size_t)N, sizeof *vals);
	uint64_t *last = nm_calloc((size_t)N, sizeof *last), seq = 0;
	ctl_pi pi = {0};
	uint64_t period = nm_ns_to_ticks((uint64_t)llround(j->p->period * 1e9));
	nm_meter *m = j->m;
	uint64_t slot = j->start, end = m->deadline;
	for (;;) {
		int64_t behind = wait_slot(j, &slot, period, end);
		if (behind < 0)
			break;
		uint64_t t0 = nm_ticks();
		m->c[C_CTL_MISSED] += (uint64_t)behind;
		nm_meter_kind(m, K_CTL_LATE, nm_ticks_to_ns(t0 - slot));
		double sum = 0;
		for (int i = 0; i < N; i++) {
			int from = j->p->inject && i == 0 ? 1 : i;
			ctl_msg msg;
			if (read_checked(j, &j->v[from], KIND_V, i, &last[i], &msg) && msg.seq > 0) {
				uint64_t now = since_ns(j, nm_ticks());
				nm_meter_kind(m, K_V_AGE, now > msg.t_ns ? now - msg.t_ns : 0);
			}
			vals[i] = msg.val;
			sum += vals[i];
			m->c[C_V_READS]++;
		}
		double again = 0;
		for (int i = N - 1; i >= 0; i--)
			again += vals[i];
		if (fabs(again - sum) > 1e-9 * fmax(1, fabs(sum)))
			nm_error_note(&m->err, "controller: output %.17g is not the sum of its inputs (%.17g)", sum, again);
		double delta = ctl_pi_delta(mp, &pi, sum, N, j->p->period);
		seq++;
		for (int i = 0; i < N; i++) {
			d[i] = ctl_clamp_duty(d[i] + delta);
			publish(j, &j->d[i], KIND_D, i, seq, d[i], owner_of(j, i));
		}
		if (j->tr_n < j->tr_cap) {
			j->tr_t[j->tr_n] = (double)since_ns(j, t0) * 1e-9;
			j->tr_v[j->tr_n++] = sum;
		}
		m->c[C_CTL_ITERS]++;
		nm_meter_op(m, t0, nm_ticks());
		slot += period;
	}
	nm_meter_end(m, nm_ticks());
	free(d);
	free(vals);
	free(last);
}

static void converter_loop(cjob *j)
{
	const ctl_params *mp = j->mp;
	int N = j->N, mine = 0;
	int *idx = nm_calloc((size_t)N, sizeof *idx);
	for (int i = 0; i < N; i++)
		if (owner_of(j, i) == j->rank)
			idx[mine++] = i;
	ctl_conv *c = nm_calloc((size_t)N, sizeof *c);
	double *held = nm_calloc((size_t)N, sizeof *held);
	uint64_t *last = nm_calloc((size_t)N, sizeof *last);
	uint64_t period = nm_ns_to_ticks((uint64_t)llround(j->p->conv_period * 1e9));
	nm_meter *m = j->m;
	uint64_t slot = j->start, end = m->deadline, k = 0, kprev = 0;
	bool first = true;
	for (;;) {
		int64_t behind = wait_slot(j, &slot, period, end);
		if (behind < 0)
			break;
		uint64_t t0 = nm_ticks();
		k += (uint64_t)behind;
		m->c[C_CONV_MISSED] += (uint64_t)behind;
		nm_meter_kind(m, K_CONV_LATE, nm_ticks_to_ns(t0 - slot));
		/* Simulated time is wall-clock time: after missed slots the
		 * converter integrates over the whole gap with the duty cycle it
		 * held, rather than stretching its clock. */
		double dt = first ? 0 : (double)(k - kprev) * j->p->conv_period;
		for (int s = 0; s < mine; s++) {
			int i = idx[s];
			ctl_conv_advance(mp, &c[i], held[i], dt);
			ctl_msg msg;
			if (read_checked(j, &j->d[i], KIND_D, i, &last[i], &msg)) {
				if (msg.seq > 0) {
					uint64_t now = since_ns(j, nm_ticks());
					nm_meter_kind(m, K_D_AGE, now > msg.t_ns ? now - msg.t_ns : 0);
				}
				held[i] = ctl_clamp_duty(msg.val);
			}
			m->c[C_D_READS]++;
			publish(j, &j->v[i], KIND_V, i, k + 1, c[i].v, 0);
		}
		first = false;
		kprev = k;
		m->c[C_CONV_ITERS]++;
		nm_meter_op(m, t0, nm_ticks());
		k++;
		slot += period;
	}
	nm_meter_end(m, nm_ticks());
	free(idx);
	free(c);
	free(held);
	free(last);
}

/* After both loops and their fences: the controller's copy of every V_i
 * this rank owns is the last one it wrote, and this rank's copy of d_i is
 * the controller's last. */
static void final_check(cjob *j)
{
	for (int i = 0; i < j->N; i++) {
		if (owner_of(j, i) != j->rank)
			continue;
		uint8_t *back = (uint8_t *)j->mr.buf + j->off_back + STRIDE * (size_t)i;
		size_t bytes = nm_ov_slot_bytes(sizeof(ctl_msg));
		nm_chan_read_post(&j->ch, 0, back, j->v[i].off, (uint32_t)bytes);
		nm_chan_wait(&j->ch, 1);
		if (memcmp(back, (uint8_t *)j->mr.buf + j->v[i].off, bytes))
			nm_error_note(&j->m->err, "converter %d: the controller's copy of V is not the last value "
				      "rank %d wrote", i, j->rank);
		nm_chan_read_post(&j->ch, 0, back, j->d[i].off, (uint32_t)bytes);
		nm_chan_wait(&j->ch, 1);
		if (memcmp(back, (uint8_t *)j->mr.buf + j->d[i].off, bytes))
			nm_error_note(&j->m->err, "converter %d: rank %d's copy of d is not the controller's last",
				      i, j->rank);
		j->m->c[C_FINAL] += 2;
	}
}

/* The offsets of d, V and the read-back copies for N converters, and the
 * bytes to register: one sizing for control_setup and control_needs. */
static size_t control_layout(cjob *j)
{
	j->off_v = OFF_D + STRIDE * (size_t)j->N;
	j->off_back = j->off_v + STRIDE * (size_t)j->N;
	return (j->off_back + STRIDE * (size_t)j->N + 4095) & ~(size_t)4095;
}

/* The controller talks to every converter rank and back; nobody else. */
static nm_mesh_cfg control_mesh_cfg(int R, const nm_base *b, uint8_t *ini)
{
	for (int r = 1; r < R; r++)
		ini[r] = ini[r * R] = 1;
	nm_mesh_cfg mc = {.nthreads = 1, .qps = 1, .initiates = ini, .qp = b->qp};
	mc.qp.sq_depth = 128;
	return mc;
}

static void control_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	const control_point *p = point;
	cjob j = {.N = p->converters};
	nm_mr_needs(n, control_layout(&j), b->hugepages, false);
	uint8_t *ini = nm_calloc((size_t)nranks * (size_t)nranks, 1);
	nm_mesh_cfg mc = control_mesh_cfg(nranks, b, ini);
	nm_mesh_needs(&mc, rank, nranks, n);
	free(ini);
}

static void control_setup(nm_ctx *ctx, cjob *j)
{
	char err[512];
	int N = j->N;
	size_t total = control_layout(j);
	int failed = nm_mr_alloc(ctx->dev, &j->mr, total, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(j->mr.buf, 0, total);
	j->d = nm_calloc((size_t)N, sizeof *j->d);
	j->v = nm_calloc((size_t)N, sizeof *j->v);
	for (int i = 0; i < N; i++) {
		ctl_msg none = {0};
		none.tag = msg_tag(KIND_D, i, &none);
		nm_ov_init(&j->d[i], &j->mr, OFF_D + STRIDE * (size_t)i, sizeof(ctl_msg), 0, j->rank, &none);
		none.tag = msg_tag(KIND_V, i, &none);
		nm_ov_init(&j->v[i], &j->mr, j->off_v + STRIDE * (size_t)i, sizeof(ctl_msg), owner_of(j, i), j->rank,
			   &none);
	}
	uint8_t *ini = nm_calloc((size_t)j->R * j->R, 1);
	nm_mesh_cfg mc = control_mesh_cfg(j->R, &ctx->base, ini);
	nm_mesh_create(&j->mesh, ctx->dev, &mc, &j->mr);
	free(ini);
	nm_poller_init(&j->pl, &j->mesh, 0, ctx->base.timeout);
	nm_chan_init(&j->ch, &j->mesh, &j->mr, &j->pl, 0, 0, (uint64_t *)((uint8_t *)j->mr.buf + OFF_SCRATCH),
		     (uint32_t)mc.qp.sq_depth);
}

/* [[t, y], ...] of the samples' mean, minimum and maximum per bucket of
 * the run, so an oscillation faster than a bucket shows as its envelope. */
static void downsample(const cjob *j, json_t *metrics)
{
	int B = j->p->trace_points;
	double w = j->p->duration / B;
	json_t *mean = json_array(), *lo = json_array(), *hi = json_array();
	size_t k = 0;
	for (int b = 0; b < B && k < j->tr_n; b++) {
		double s = 0, mn = INFINITY, mx = -INFINITY;
		size_t n = 0;
		for (; k < j->tr_n && j->tr_t[k] < (b + 1) * w; k++, n++) {
			s += j->tr_v[k];
			mn = fmin(mn, j->tr_v[k]);
			mx = fmax(mx, j->tr_v[k]);
		}
		if (!n)
			continue;
		double t = (b + 0.5) * w;
		json_array_append_new(mean, json_pack("[f, f]", t, s / (double)n));
		json_array_append_new(lo, json_pack("[f, f]", t, mn));
		json_array_append_new(hi, json_pack("[f, f]", t, mx));
	}
	json_object_set_new(metrics, "trace", mean);
	json_object_set_new(metrics, "trace_min", lo);
	json_object_set_new(metrics, "trace_max", hi);
	/* The start-up transient at the controller's own resolution: the paper
	 * notes that the unstable periods' transients are too brief to see on
	 * a 5 s axis. */
	json_t *st = json_array();
	for (size_t i = 0; i < j->tr_n && j->tr_t[i] < 0.02 && i < 4000; i++)
		json_array_append_new(st, json_pack("[f, f]", j->tr_t[i], j->tr_v[i]));
	json_object_set_new(metrics, "trace_start", st);
}

static json_t *age_json(const nm_measure *ms, int k)
{
	return nm_hist_summary_json(&ms->kind[k]);
}

static void control_result(nm_ctx *ctx, const cjob *j, const nm_measure *ms, json_t *out)
{
	const uint64_t *c = ms->total_c;
	const ctl_params *mp = j->mp;
	double vref = mp->vref * j->N;
	ctl_verdict v;
	ctl_judge(j->tr_t, j->tr_v, j->tr_n, j->p->duration, vref, &v);
	bool final_ok = c[C_FINAL] == 2 * (uint64_t)j->N;
	bool ok = ms->errors == 0 && final_ok && c[C_CTL_ITERS] > 0 && c[C_CONV_ITERS] > 0;
	json_t *metrics = nm_measure_metrics(ms);
	json_object_set_new(metrics, "converged", json_boolean(v.converged));
	json_object_set_new(metrics, "settling_time_s", v.converged ? json_real(v.settling) : json_null());
	json_object_set_new(metrics, "overshoot_pct", json_real(v.overshoot));
	json_object_set_new(metrics, "steady_state_error_pct", isfinite(v.sse) ? json_real(v.sse) : json_null());
	json_object_set_new(metrics, "ripple_pct", isfinite(v.ripple) ? json_real(v.ripple) : json_null());
	double ctl_slots = (double)(c[C_CTL_ITERS] + c[C_CTL_MISSED]);
	double conv_slots = (double)(c[C_CONV_ITERS] + c[C_CONV_MISSED]);
	json_object_set_new(metrics, "missed_deadlines",
			    json_pack("{s:I, s:I, s:f, s:I, s:I, s:f}", "controller", (json_int_t)c[C_CTL_MISSED],
				      "controller_iterations", (json_int_t)c[C_CTL_ITERS], "controller_fraction",
				      ctl_slots > 0 ? (double)c[C_CTL_MISSED] / ctl_slots : 0.0, "converters",
				      (json_int_t)c[C_CONV_MISSED], "converter_iterations", (json_int_t)c[C_CONV_ITERS],
				      "converter_fraction", conv_slots > 0 ? (double)c[C_CONV_MISSED] / conv_slots : 0.0));
	json_object_set_new(metrics, "staleness",
			    json_pack("{s:o, s:o, s:o, s:o}", "v_age", age_json(ms, K_V_AGE), "d_age",
				      age_json(ms, K_D_AGE), "controller_late", age_json(ms, K_CTL_LATE),
				      "converter_late", age_json(ms, K_CONV_LATE)));
	json_object_set_new(metrics, "v_age_cdf", nm_hist_cdf_json(&ms->kind[K_V_AGE]));
	downsample(j, metrics);
	json_t *checks = json_pack("{s:b, s:I, s:I, s:I, s:{s:b, s:I, s:i}}", "ok", ok, "violations",
				   (json_int_t)ms->errors, "v_reads", (json_int_t)c[C_V_READS], "d_reads",
				   (json_int_t)c[C_D_READS], "final", "ok", final_ok, "checked",
				   (json_int_t)c[C_FINAL], "expected", 2 * j->N);
	json_object_set_new(checks, "torn_reads_retried", json_integer((json_int_t)c[C_TORN]));
	if (ms->first_error[0])
		json_object_set_new(checks, "first_error", json_string(ms->first_error));
	json_t *eff = json_pack("{s:i, s:i, s:f, s:f, s:f, s:b, s:s}", "converters", j->N, "converter_ranks", j->R - 1,
				"vref_total", vref, "period_us", j->p->period * 1e6, "conv_period_us",
				j->p->conv_period * 1e6, "yield", j->yield, "deadlines",
				"wall clock: an iteration a period or more behind its slot counts the slots it "
				"skipped as missed and runs for the current one (never stretched)");
	json_object_set_new(eff, "model",
			    json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "plant",
				      "averaged buck converter: L di/dt = d Vin - v, C dv/dt = i - v/R", "vin", mp->vin,
				      "l", mp->l, "c", mp->c, "r", mp->r, "vref_per_converter", mp->vref, "kp", mp->kp,
				      "ki", mp->ki));
	if (ctx->dev->emulated)
		json_object_set_new(eff, "transport", json_string("RDMA over Soft-RoCE (emulated): the loops "
								  "share CPUs with the NIC, missed deadlines expected"));
	json_object_set_new(out, "valid", json_boolean(ok));
	json_object_set_new(out, "checks", checks);
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective", eff);
}

/* What control_setup and control_run allocated, in reverse order. */
static void control_teardown(cjob *j)
{
	free(j->tr_t);
	free(j->tr_v);
	nm_chan_free(&j->ch);
	nm_mesh_destroy(&j->mesh);
	free(j->d);
	free(j->v);
	nm_mr_free(&j->mr);
}

static void control_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const control_point *p = point;
	cjob j = {.p = p, .mp = &ctl_default_params, .rank = ctx->rank, .R = ctx->nranks, .N = p->converters,
		  .timeout = ctx->base.timeout};
	control_setup(ctx, &j);
	j.yield = nm_yield_wanted(j.p->yield, nm_boot_hosts(), j.R, j.rank,
				  (int)sysconf(_SC_NPROCESSORS_ONLN));
	if (j.rank == 0) {
		j.tr_cap = (size_t)(p->duration / p->period) + 16;
		j.tr_t = nm_calloc(j.tr_cap, sizeof *j.tr_t);
		j.tr_v = nm_calloc(j.tr_cap, sizeof *j.tr_v);
	}
	static const nm_measure_def def = {"iterations", control_counters, C_N, control_kinds, K_N};
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, 1);
	j.m = nm_meter_of(ms, 0);

	cpu_set_t saved;
	bool have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
	j.m->cpu = nm_topo_pick_cpu(nm_local_rank(), ctx->base.mem_node);
	if (j.m->cpu >= 0 && nm_topo_pin_self(j.m->cpu) != 0)
		j.m->cpu = -1;
	nm_boot_barrier();
	nm_meter_begin(j.m);
	j.start = j.m->start;
	if (j.rank == 0)
		controller_loop(&j);
	else
		converter_loop(&j);
	if (have_saved)
		pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
	nm_chan_fence(&j.ch);   /* every push placed before anyone checks */
	nm_boot_barrier();
	if (j.rank != 0)
		final_check(&j);
	nm_boot_barrier();
	nm_measure_gather(ms);
	if (ctx->rank == 0)
		control_result(ctx, &j, ms, out);
	nm_measure_free(ms);
	control_teardown(&j);
}

static void control_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *md = json_object_get(mt, "missed_deadlines");
	const json_t *st = json_object_get(mt, "staleness");
	const char *valid = nm_point_verdict(res);
#define NUM(o, k) json_number_value(json_object_get(o, k))
#define AGE(k, q) NUM(json_object_get(st, k), q)
	if (first)
		printf(" %7s %5s %9s %12s %10s %9s %10s %10s %12s %12s %12s %8s\n", "T[us]", "conv", "converged",
		       "settling[ms]", "overshoot%", "error%", "ctl_missed", "conv_missed", "V_age_p50[us]",
		       "V_age_p99[us]", "d_age_p99[us]", "check");
	const json_t *s = json_object_get(mt, "settling_time_s");
	printf(" %7.1f %5" JSON_INTEGER_FORMAT " %9s %12.2f %10.1f %9.3f %10.4f %10.4f %12.2f %12.2f %12.2f %8s\n",
	       nm_cfg_double(pt, "period_us"), json_integer_value(json_object_get(json_object_get(res, "effective"), "converters")),
	       json_is_true(json_object_get(mt, "converged")) ? "yes" : "no", json_is_number(s) ? NUM(mt, "settling_time_s") * 1e3 : NAN,
	       NUM(mt, "overshoot_pct"), NUM(mt, "steady_state_error_pct"), NUM(md, "controller_fraction"),
	       NUM(md, "converter_fraction"), AGE("v_age", "p50"), AGE("v_age", "p99"), AGE("d_age", "p99"), valid);
#undef NUM
#undef AGE
}

static const nm_experiment control_experiment = {
	.name = "control",
	.summary = "LOCO Fig. 7: DC/DC converters controlled over network memory, output vs controller period",
	.details =
		"LOCO's power_controller channel (Appendix B): rank 0 is the controller, the\n"
		"converters are spread over the other ranks. Duty cycles d_i (owner: the\n"
		"controller) and output voltages V_i (owner: the converter) are owned_vars\n"
		"pushed by RDMA WRITE. Converters step every --conv-period-us (10), the\n"
		"controller every --period-us T; both on wall-clock deadlines (missed ones\n"
		"counted). Each point records the system output (the sum of the V_i the\n"
		"controller saw), settling time, overshoot, steady-state error, convergence,\n"
		"missed deadlines and the staleness of every V_i and d_i used. The model and\n"
		"its gains: workloads/control/README.md. With no link delay it is stable up to\n"
		"T = 40 us and oscillates from 48 us.\n\n"
		"Examples:\n"
		"  mpirun -np 21 netmem control --period-us 10,20,30,40,50,60,70,80 -D 5\n"
		"  mpirun -np 3 netmem control --converters 20 --period-us 20,60 -D 0.5\n"
		"  mpirun -np 3 netmem control --inject wrong-slot -D 0.1   must come out invalid",
	.opts = control_opts,
	.min_ranks = 2,
	.point_size = sizeof(control_point),
	.decode = control_decode, .needs = control_needs,
	.run = control_run,
	.report = control_report,
};
NM_EXPERIMENT(control_experiment)
