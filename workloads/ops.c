/* netmem ops: one-sided READ, WRITE, CAS and FAA between ranks.
 *
 * Two modes, with perftest's definitions so the numbers compare:
 *   lat  closed loop, one operation outstanding per thread; the latency of an
 *        operation is post to completion, a full round trip. That is what
 *        ib_read_lat and ib_atomic_lat report (rtt_factor 1). ib_write_lat is
 *        different (half of a WRITE ping-pong), so WRITE latency here is the
 *        completion latency and is not comparable to ib_write_lat.
 *   bw   a window of outstanding operations per thread, one completion
 *        signaled per batch of --cq-mod (perftest's -t and -Q); throughput is
 *        completed operations over the measured interval, and the latency
 *        histogram holds the post-to-completion time of signaled operations.
 *        The warm-up is --warmup operations posted and all completed; the
 *        interval then starts from an empty window, timed from the first
 *        post as perftest does, and counts only completions inside it.
 * Both measure in the point's one interval, shared by every thread of every
 * rank (harness/measure.h).
 *
 * Who talks to whom: every initiator rank's threads open --qp QPs to every
 * target rank (a rank may target itself: loopback through the NIC) and spread
 * operations round-robin over them.
 *
 * Correctness, checked on every run (a failure marks the point invalid):
 *   READ   targets fill their memory with a known pattern; after the run
 *          every local buffer must hold the pattern of the slot it read.
 *   WRITE  each (initiator, thread, QP) writes its own pattern into its own
 *          slot; afterwards the initiator fences, READs the slot back and
 *          compares (READ sees what WRITE wrote).
 *   CAS    each (initiator, thread, QP) owns an 8-byte word and swaps it
 *          k -> k+1 in order; every returned value must be the expected k
 *          (lat mode) and the final word must equal the number of CAS issued.
 *   FAA    all initiators add 1 to one shared word per target; the final
 *          value must equal the total number of FAA aimed at that target, and
 *          the values one QP gets back must increase (lat mode).
 *
 * Memory of each rank, one registered region:
 *   [0, 64)            FAA counter
 *   [64, ...)          CAS words, one per (initiator, thread, QP)
 *   [data, ...)        remote slots, one per (initiator, thread, QP), size each
 *   [local, ...)       per-thread local buffers (never accessed remotely)
 */
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "rng.h"
#include "mesh.h"
#include "rdma.h"
#include "stats.h"
#include "workers.h"
#include "../numa/point.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt ops_opts[] = {
	{"op", 0, NM_OPT_ENUM, "read", 0, 0, "read,write,cas,faa", NM_OPT_LIST, "operation"},
	{"mode", 0, NM_OPT_ENUM, "lat", 0, 0, "lat,bw", NM_OPT_LIST,
	 "lat: one outstanding op, per-op latency; bw: windowed throughput"},
	{"size", 's', NM_OPT_SIZE, "8", 1, 1 << 30, NULL, NM_OPT_LIST,
	 "message size in bytes (READ/WRITE; CAS and FAA are always 8)"},
	{"all", 'a', NM_OPT_ALIAS, NULL, 0, 0, NULL, 0, "sizes 2 to 8 MiB in powers of two (perftest -a)",
	 "size", "2..8M"},
	{"tx-depth", 't', NM_OPT_INT, "0", 0, 65536, NULL, NM_OPT_LIST,
	 "window: outstanding ops per thread (0: 1 in lat mode, 128 in bw mode)"},
	{"cq-mod", 'Q', NM_OPT_INT, "100", 1, 65536, NULL, 0,
	 "bw mode: one signaled completion per N ops (capped at the window)"},
	{"qp", 'q', NM_OPT_INT, "1", 1, 64, NULL, NM_OPT_LIST, "QPs per thread and target"},
	NM_OPT_ITERS("1000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	{"initiators", 0, NM_OPT_STR, "0", 0, 0, NULL, 0, "ranks that issue operations: all, or a list like 0,2"},
	{"targets", 0, NM_OPT_STR, "others", 0, 0, NULL, 0,
	 "ranks whose memory is accessed: others (not initiators), all, self (loopback), or a list"},
	{"interval", 0, NM_OPT_DOUBLE, "0.1", 0.001, 3600, NULL, 0, "throughput sampling interval (s)"},
	{"mr-size", 0, NM_OPT_SIZE, "0", 0, 1ll << 40, NULL, 0,
	 "registered memory per rank (0: just enough for every slot)"},
	NM_OPT_NUMA_ROLES,
	{"packed", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "remote slots adjacent (stride = size) instead of one 64-byte line each: the NUMA paper's "
	 "'disjoint but adjacent addresses' (8 connections x 8 B share one cache line)"},
	NM_OPT_NUMA_WORKERS,
	NM_OPT_NUMA_LOAD("every target rank while clients measure"),
	{"inject", 0, NM_OPT_ENUM, "none", 0, 0, "none,corrupt,rkey,misplace", 0,
	 "testing the checks: corrupt damages data after the run (the point must come out invalid); "
	 "rkey posts with a wrong key (the job must stop, naming rank, peer and operation); "
	 "misplace moves one page of each target's buffer off --buf-node before registration (the "
	 "placement check must mark the point invalid; needs two NUMA nodes)"},
	NM_OPT_END,
};

#define SERIES_CAP 4096
#define CAS_BASE 64

typedef enum { MODE_LAT, MODE_BW } ops_mode;
typedef enum { INJECT_NONE, INJECT_CORRUPT, INJECT_RKEY, INJECT_MISPLACE } ops_inject;

/* Offsets in every rank's region (see the header comment). */
typedef struct layout {
	size_t size;       /* bytes per op */
	size_t slot;       /* size rounded to 64: local buffers */
	size_t stride;     /* distance between remote slots: slot, or size with --packed */
	size_t data;       /* offset of remote slots */
	size_t local;      /* offset of per-thread local areas */
	int nslots;
} layout;

/* One point, decoded once. */
typedef struct ops_point {
	int op;                   /* NM_OP_* */
	ops_mode mode;
	int window, batch, qps;   /* --tx-depth and --cq-mod resolved */
	int inline_size;          /* -I resolved: without it, perftest's default for the mode */
	int nranks;
	uint8_t *matrix;          /* [from * nranks + to]: from initiates to */
	layout l;
	uint64_t interval_ns;
	nm_place buf, cpu;
	nm_hammer_cfg workers;    /* threads, op, write_ratio */
	nm_numa_load load;
	ops_inject inject;
} ops_point;

static int index_of(const char *s, const char *const *names, int n)
{
	int i = 0;
	while (i < n - 1 && strcmp(s, names[i]))
		i++;
	return i;
}

/* Slot of (initiator rank, thread, QP) at any target. */
static int slot_id(int rank, int t, int q, int T, int Q) { return (rank * T + t) * Q + q; }

static void plan(layout *l, const ops_point *p, int64_t size, bool packed, int T)
{
	l->size = p->op >= NM_OP_CAS ? 8 : (size_t)size;
	l->slot = nm_align64(l->size);
	l->nslots = p->nranks * T * p->qps;
	l->stride = packed ? l->size : l->slot;
	l->data = nm_align64(CAS_BASE + 8 * (size_t)l->nslots);
	l->local = nm_align64(l->data + l->stride * (size_t)l->nslots);
}

/* Everything that is a property of the point alone, in the order a user
 * would fix it: ranks, size, memory, placement, window. */
static int ops_check(const json_t *pt, const nm_base *b, ops_point *p, char *err, size_t len)
{
	int64_t size = nm_cfg_int(pt, "size"), mr = nm_cfg_int(pt, "mr_size"), W = nm_cfg_int(pt, "tx_depth");
	const char *is = nm_cfg_str(pt, "initiators"), *ts = nm_cfg_str(pt, "targets");
	int n = p->nranks;
	p->matrix = nm_calloc((size_t)n * (size_t)n, 1);
	int pairs = nm_mesh_pairs(is, ts, n, p->matrix, err, len);
	if (pairs == 0)
		snprintf(err, len, "ops has no target: with %d rank%s, initiators '%s' and targets '%s' "
			 "nobody is accessed; start more ranks (mpirun -np 2) or use --targets self "
			 "for loopback", n, n == 1 ? "" : "s", is, ts);
	if (pairs <= 0)
		return -1;
	if (p->op >= NM_OP_CAS && size != 8) {
		snprintf(err, len, "%s operates on 8 bytes; --size %" PRId64 " applies to read and write "
			 "only (sweep sizes in a separate run)", nm_op_name(p->op), size);
		return -1;
	}
	plan(&p->l, p, size, nm_cfg_bool(pt, "packed"), b->threads);
	if (mr > 0 && p->l.local > (size_t)mr) {
		snprintf(err, len, "--size %" PRId64 " does not fit --mr-size %" PRId64 ": %d writer "
			 "slot(s) of %zu bytes need %zu bytes", size, mr, p->l.nslots, p->l.stride, p->l.local);
		return -1;
	}
	if (nm_numa_roles_decode(pt, b->mem_node, &p->buf, &p->cpu, err, len) ||
	    nm_numa_load_decode(pt, &p->load, err, len))
		return -1;
	if (p->inject == INJECT_MISPLACE && p->buf.kind == NM_PLACE_ANY) {
		snprintf(err, len, "--inject misplace moves a page off the buffer's node: give --buf-node");
		return -1;
	}
	if (p->mode == MODE_LAT && W > 1) {
		snprintf(err, len, "lat mode keeps one operation outstanding; use --mode bw for "
			 "--tx-depth %" PRId64, W);
		return -1;
	}
	return 0;
}

static int ops_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	static const char *const ops[] = {"read", "write", "cas", "faa"}, *const modes[] = {"lat", "bw"};
	static const char *const injects[] = {"none", "corrupt", "rkey", "misplace"};
	ops_point *p = out;
	int W = (int)nm_cfg_int(pt, "tx_depth"), cq_mod = (int)nm_cfg_int(pt, "cq_mod");
	*p = (ops_point){
		.op = NM_OP_READ + index_of(nm_cfg_str(pt, "op"), ops, 4),
		.mode = (ops_mode)index_of(nm_cfg_str(pt, "mode"), modes, 2),
		.qps = (int)nm_cfg_int(pt, "qp"),
		.nranks = b->nranks,
		.interval_ns = (uint64_t)(nm_cfg_double(pt, "interval") * 1e9),
		.workers = nm_numa_workers_decode(pt),
		.inject = (ops_inject)index_of(nm_cfg_str(pt, "inject"), injects, 4),
	};
	p->window = W ? W : p->mode == MODE_BW ? 128 : 1;
	/* perftest inlines only in latency tests, and only WRITEs among ours */
	p->inline_size = !b->inline_default ? b->qp.max_inline
			 : p->mode == MODE_LAT && p->op == NM_OP_WRITE ? NM_INLINE_LAT : 0;
	p->batch = p->mode == MODE_BW ? (cq_mod < p->window ? cq_mod : p->window) : 1;
	return ops_check(pt, b, p, err, len);
}

static void ops_point_free(void *point) { free(((ops_point *)point)->matrix); }

static uint64_t read_owner(int target, int slot) { return ((uint64_t)target << 32) | (uint32_t)slot | 1ull << 62; }
static uint64_t write_owner(int slot) { return (uint64_t)slot | 1ull << 63; }

/* The tally: data checked after the run and those that failed; targets
 * whose FAA counter is wrong. */
enum { C_CHECKED, C_MISMATCHES, C_FAA_WRONG, C_N };
static const nm_counter ops_counters[C_N] = {
	[C_CHECKED] = {"checked", 0}, [C_MISMATCHES] = {"mismatches", 0}, [C_FAA_WRONG] = {"faa_targets_wrong", 0},
};

/* Per connection; aligned so that no two threads' tallies share a line. */
typedef struct conn_state {
	nm_wr wr;                /* the connection's operation, built once (rdma.h) */
	nm_conn *c;
	uint8_t *buf;            /* local buffer for this connection */
	uint64_t raddr;          /* remote slot */
	uint64_t cas_raddr;
	uint64_t cas_seq;        /* next expected value of our CAS word */
	uint64_t faa_last;       /* last FAA value returned (lat mode) */
	uint64_t sent;           /* operations posted: the FAA totals are made of these */
	uint64_t *fifo;          /* post ticks of outstanding signaled batches */
	uint32_t head, tail, mask;
} __attribute__((aligned(64))) conn_state;

/* The throughput series without a division per completion: completions
 * count into the current interval until the clock passes its end; only
 * then is the next interval's index computed. */
typedef struct series_clock {
	uint64_t width, end;     /* ticks */
	size_t i;
	uint64_t pending;
} series_clock;

typedef struct ops_thread {
	conn_state *cs;
	int nconn;
	uint32_t slot;           /* next atomic result slot, 0..W-1 */
	uint8_t *verify;
	uint64_t *results;       /* one word per window entry: atomics' old values */
	nm_series series;
	series_clock sc;
} __attribute__((aligned(64))) ops_thread;

typedef struct ops_job {
	const ops_point *p;
	int op, rank, T, W, batch;   /* the hot paths' copies of the point */
	uint32_t size;
	bool initiator, target;
	int nconn;                   /* per thread */
	size_t thread_area;
	double timeout;
	nm_numa_point np;
	nm_mesh mesh;
	nm_mr mr;
	ops_thread *th;
} ops_job;

#define HOT static inline __attribute__((always_inline))

static __attribute__((noinline)) void series_roll(ops_thread *t, const nm_meter *m, uint64_t now)
{
	series_clock *c = &t->sc;
	if (c->pending)
		nm_series_add(&t->series, (uint64_t)c->i * t->series.width_ns, c->pending);
	c->pending = 0;
	c->i = (size_t)((now - m->start) / c->width);
	c->end = m->start + (c->i + 1) * c->width;
}

HOT void series_add(ops_thread *t, const nm_meter *m, uint64_t now, uint64_t n)
{
	if (now >= t->sc.end)
		series_roll(t, m, now);
	t->sc.pending += n;
}

/* Atomics need a result word per outstanding operation; READ and WRITE
 * none, so they never touch the slot ring. */
HOT uint64_t *next_result(const int op, ops_thread *t, uint32_t W)
{
	if (op != NM_OP_CAS && op != NM_OP_FAA)
		return NULL;
	uint64_t *r = &t->results[t->slot];
	t->slot = t->slot + 1 == W ? 0 : t->slot + 1;
	return r;
}

/* One operation on s. op is a constant in every caller (the loops are
 * instantiated per operation below), so the branches fold away: READ and
 * WRITE post the work request as built, atomics set result and operands. */
HOT void post_op(const int op, conn_state *s, uint64_t *result, uint64_t wr_id, bool signaled)
{
	if (op == NM_OP_CAS) {
		nm_wr_set_atomic(&s->wr, result, s->cas_seq, s->cas_seq + 1);
		s->cas_seq++;
	} else if (op == NM_OP_FAA) {
		s->wr.sge.addr = (uintptr_t)result;
	}
	nm_wr_post(&s->wr, wr_id, signaled);
}

static __attribute__((noinline)) void atomic_wrong(int op, nm_meter *m, conn_state *s, uint64_t got)
{
	if (op == NM_OP_CAS)
		nm_error_note(&m->err, "CAS on rank %d returned %" PRIu64 ", expected %" PRIu64, s->c->peer, got,
			      s->cas_seq - 1);
	else
		nm_error_note(&m->err, "FAA on rank %d returned %" PRIu64 " after %" PRIu64, s->c->peer, got,
			      s->faa_last);
}

/* lat mode's check of an atomic's old value, after the operation's clock
 * has stopped: CAS returns the value it expected, FAA values a QP gets
 * back increase. */
HOT void check_atomic(const int op, nm_meter *m, conn_state *s, uint64_t got)
{
	if (op == NM_OP_CAS && got != s->cas_seq - 1)
		atomic_wrong(op, m, s, got);
	if (op == NM_OP_FAA) {
		if (s->sent > 1 && got <= s->faa_last)
			atomic_wrong(op, m, s, got);
		s->faa_last = got;
	}
}

HOT void run_lat_(const int op, ops_thread *t, nm_meter *m, nm_poller *pl)
{
	struct ibv_wc wc;
	uint64_t *res = t->results;
	int ci = 0;
	nm_loop lp;
	nm_loop_init(&lp, m);
	while (nm_loop_next(&lp)) {
		conn_state *s = &t->cs[ci];
		ci = ci + 1 == t->nconn ? 0 : ci + 1;
		uint64_t t0 = nm_ticks();
		post_op(op, s, res, NM_WRID(op, 0), true);
		nm_poll_wait(pl, &wc, 1);
		uint64_t t1 = nm_ticks();
		s->sent++;
		if (nm_loop_done(&lp, t0, t1))
			series_add(t, m, t1, 1);
		check_atomic(op, m, s, *res);
	}
}

/* n operations on connection ci, the last one signaled: its completion
 * retires the whole batch (RC completes in order). The batch's one clock
 * read is its signaled post's. */
HOT void post_batch(const int op, ops_thread *t, int ci, uint64_t n, uint32_t W)
{
	conn_state *s = &t->cs[ci];
	uint64_t wr_id = NM_WRID(op, ((uint64_t)ci << 32) | n);
	for (uint64_t k = 1; k < n; k++)
		post_op(op, s, next_result(op, t, W), wr_id, false);
	s->fifo[s->tail++ & s->mask] = nm_ticks();
	post_op(op, s, next_result(op, t, W), wr_id, true);
	s->sent += n;
}

/* A signaled completion at now: its batch is counted, timed from the
 * batch's post, and added to the series when measured. Returns its size. */
HOT uint64_t retire(ops_thread *t, nm_meter *m, uint64_t wr_id, uint64_t now)
{
	uint64_t pay = NM_WRID_PAYLOAD(wr_id), n = pay & 0xffffffffu;
	conn_state *s = &t->cs[pay >> 32];
	if (nm_meter_ops(m, s->fifo[s->head++ & s->mask], now, n))
		series_add(t, m, now, n);
	return n;
}

/* From an empty window: keeps it full until count operations are posted or
 * a completion comes past the deadline (ticks, 0: none), then drains it.
 * The clock is read once per batch posted and once per poll that returns
 * completions, never per operation. Returns the last completion's time. */
HOT uint64_t run_window_(const int op, ops_job *j, ops_thread *t, nm_meter *m, nm_poller *pl, uint64_t count,
			 uint64_t deadline)
{
	struct ibv_wc wc[16];
	const uint64_t W = (uint64_t)j->W, batch = (uint64_t)j->batch;
	uint64_t posted = 0, outstanding = 0, last = nm_ticks();
	bool stop = count == 0;
	int ci = 0;
	while (!stop || outstanding > 0) {
		/* Refill the window as completions free it, as perftest does,
		 * rather than waiting for room for a whole batch. */
		while (!stop && outstanding < W) {
			uint64_t n = batch < W - outstanding ? batch : W - outstanding;
			n = n < count - posted ? n : count - posted;
			post_batch(op, t, ci, n, (uint32_t)W);
			ci = ci + 1 == t->nconn ? 0 : ci + 1;
			posted += n;
			outstanding += n;
			stop = posted >= count;
		}
		int got = nm_poll_some(pl, wc, 16);
		if (got == 0)
			continue;
		last = nm_ticks();
		for (int i = 0; i < got; i++)
			outstanding -= retire(t, m, wc[i].wr_id, last);
		stop = stop || (deadline && last >= deadline);
	}
	return last;
}

typedef void (*lat_loop)(ops_thread *, nm_meter *, nm_poller *);
typedef uint64_t (*window_loop)(ops_job *, ops_thread *, nm_meter *, nm_poller *, uint64_t, uint64_t);

/* One copy of each loop per operation, with the operation a constant. */
#define OPS_LOOPS(name, OP)                                                                                  \
	static void lat_##name(ops_thread *t, nm_meter *m, nm_poller *pl) { run_lat_(OP, t, m, pl); }         \
	static uint64_t window_##name(ops_job *j, ops_thread *t, nm_meter *m, nm_poller *pl, uint64_t count, \
				      uint64_t deadline)                                                      \
	{                                                                                                    \
		return run_window_(OP, j, t, m, pl, count, deadline);                                        \
	}
OPS_LOOPS(read, NM_OP_READ)
OPS_LOOPS(write, NM_OP_WRITE)
OPS_LOOPS(cas, NM_OP_CAS)
OPS_LOOPS(faa, NM_OP_FAA)

static const struct {
	lat_loop lat;
	window_loop window;
} ops_loops[] = {
	[NM_OP_READ] = {lat_read, window_read},
	[NM_OP_WRITE] = {lat_write, window_write},
	[NM_OP_CAS] = {lat_cas, window_cas},
	[NM_OP_FAA] = {lat_faa, window_faa},
};

static void run_measured(ops_job *j, ops_thread *t, nm_meter *m, nm_poller *pl)
{
	t->sc = (series_clock){.width = nm_ns_to_ticks(j->p->interval_ns)};
	if (j->p->mode == MODE_LAT) {
		ops_loops[j->op].lat(t, m, pl);
	} else {
		window_loop run = ops_loops[j->op].window;
		run(j, t, m, pl, m->ms->cfg.warmup, 0);
		nm_meter_begin(m);
		uint64_t last = run(j, t, m, pl, m->deadline ? UINT64_MAX : m->ms->cfg.iters, m->deadline);
		nm_meter_end(m, last);
	}
	series_roll(t, m, m->start);   /* the last interval's count into the series */
}

/* The connection's work request (atomics' operands are set per post). */
static void build_wr(ops_job *j, ops_thread *t, conn_state *s)
{
	uint32_t lkey = j->mr.mr->lkey;
	if (j->op == NM_OP_READ || j->op == NM_OP_WRITE)
		nm_wr_rw(&s->wr, s->c, j->op, s->buf, lkey, s->raddr, j->size);
	else
		nm_wr_atomic(&s->wr, s->c, j->op, t->results, lkey, j->op == NM_OP_CAS ? s->cas_raddr : s->c->rmr.addr,
			     1, 0);
}

/* --inject corrupt: one uncounted change per rank, through the same paths a
 * real fault would take, so the checks below must catch it. */
static void inject(ops_job *j, ops_thread *t, nm_poller *pl, int ti)
{
	struct ibv_wc wc;
	conn_state *s = &t->cs[0];
	uint64_t *scratch = t->results;
	uint32_t lkey = j->mr.mr->lkey;
	if (j->p->inject == INJECT_RKEY) {
		s->c->rmr.rkey ^= 0x5a5a;
		build_wr(j, t, s);
		nm_wr_post(&s->wr, NM_WRID(j->op, 0), true);
		nm_poll_wait(pl, &wc, 1);
		nm_fatal("thread %d: a %s with a wrong rkey completed successfully", ti, nm_op_name(j->op));
	}
	switch (j->op) {
	case NM_OP_READ:
		s->buf[0] ^= 0x5a;
		return;
	case NM_OP_WRITE:
		memcpy(t->verify, s->buf, 1);
		t->verify[0] ^= 0x5a;
		nm_post_rw(s->c, NM_OP_WRITE, t->verify, lkey, s->raddr, 1, NM_WRID(NM_OP_WRITE, 0), true);
		break;
	case NM_OP_CAS:
		nm_post_atomic(s->c, NM_OP_CAS, scratch, lkey, s->cas_raddr, s->cas_seq, s->cas_seq + 1,
			       NM_WRID(NM_OP_CAS, 0), true);
		break;
	case NM_OP_FAA:
		nm_post_atomic(s->c, NM_OP_FAA, scratch, lkey, s->c->rmr.addr, 1, 0, NM_WRID(NM_OP_FAA, 0), true);
		break;
	}
	nm_poll_wait(pl, &wc, 1);
}

/* READs 8..size bytes at raddr into the verify buffer. */
static void read_back(ops_job *j, ops_thread *t, nm_poller *pl, conn_state *s, uint64_t raddr, uint32_t len)
{
	struct ibv_wc wc;
	nm_post_rw(s->c, NM_OP_READ, t->verify, j->mr.mr->lkey, raddr, len, NM_WRID(NM_OP_READ, 0), true);
	nm_poll_wait(pl, &wc, 1);
}

/* Unmeasured checks after the loop (see the header comment). */
static void verify(ops_job *j, ops_thread *t, nm_meter *m, nm_poller *pl, int ti)
{
	if ((j->p->inject == INJECT_CORRUPT || j->p->inject == INJECT_RKEY) && ti == 0)
		inject(j, t, pl, ti);
	for (int i = 0; i < t->nconn && j->op != NM_OP_FAA; i++) {
		conn_state *s = &t->cs[i];
		int peer = s->c->peer, slot = slot_id(j->rank, ti, s->c->index, j->T, j->p->qps);
		long off;
		uint64_t v;
		m->c[C_CHECKED]++;
		switch (j->op) {
		case NM_OP_READ:
			if (s->sent && (off = nm_pattern_check(s->buf, j->size, read_owner(peer, slot))) >= 0)
				nm_error_note(&m->err, "READ from rank %d: byte %ld of the buffer differs from the "
					      "target's memory", peer, off);
			break;
		case NM_OP_WRITE:
			nm_fence_wait(pl, s->c);
			memset(t->verify, 0, j->size);
			read_back(j, t, pl, s, s->raddr, j->size);
			if ((off = nm_pattern_check(t->verify, j->size, write_owner(slot))) >= 0)
				nm_error_note(&m->err, "WRITE to rank %d: reading the slot back differs at byte %ld",
					      peer, off);
			break;
		case NM_OP_CAS:
			t->verify[0] = 0xff;
			read_back(j, t, pl, s, s->cas_raddr, 8);
			memcpy(&v, t->verify, 8);
			if (v != s->cas_seq)
				nm_error_note(&m->err, "CAS word on rank %d holds %" PRIu64 " after %" PRIu64
					      " successful swaps", peer, v, s->cas_seq);
			break;
		}
	}
	m->c[C_MISMATCHES] = m->err.count;
}


static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static void thread_setup(nm_worker *w)
{
	ops_job *j = w->arg;
	const layout *l = &j->p->l;
	ops_thread *t = &j->th[w->index];
	int ti = w->index, n = 0;
	if (nm_series_init(&t->series, j->p->interval_ns, SERIES_CAP) != 0)
		nm_fatal("out of memory");
	uint8_t *area = (uint8_t *)j->mr.buf + l->local + j->thread_area * (size_t)ti;
	t->cs = nm_calloc64((size_t)j->nconn + 1, sizeof *t->cs);
	/* a batch holds at least one operation: at most W batches outstanding */
	uint32_t fifo = pow2_at_least((uint32_t)j->W + 2);
	for (int p = 0; p < j->p->nranks; p++)
		for (int q = 0; q < j->p->qps; q++) {
			nm_conn *c = nm_mesh_conn(&j->mesh, ti, p, q);
			if (!c->qp)
				continue;
			conn_state *s = &t->cs[n];
			int slot = slot_id(j->rank, ti, q, j->T, j->p->qps);
			s->c = c;
			s->buf = area + l->slot * (size_t)n;
			s->raddr = c->rmr.addr + l->data + l->stride * (size_t)slot;
			s->cas_raddr = c->rmr.addr + CAS_BASE + 8 * (size_t)slot;
			s->mask = fifo - 1;
			s->fifo = nm_calloc(fifo, sizeof *s->fifo);
			if (j->op == NM_OP_WRITE)
				nm_pattern_fill(s->buf, l->size, write_owner(slot));
			n++;
		}
	t->nconn = n;
	t->verify = area + l->slot * (size_t)n;
	t->results = (uint64_t *)(area + l->slot * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		build_wr(j, t, &t->cs[i]);
	nm_numa_thread_start(&j->np, ti, w->cpu, n > 0);
}

/* Threads without a connection (ranks that only serve) return at once:
 * that does not hold up the common start. */
static void thread_body(nm_worker *w)
{
	ops_job *j = w->arg;
	ops_thread *t = &j->th[w->index];
	if (t->nconn > 0) {
		nm_poller pl;
		nm_poller_init(&pl, &j->mesh, w->index, j->timeout);
		run_measured(j, t, w->meter, &pl);
		nm_numa_thread_end(&j->np, w->index);
		verify(j, t, w->meter, &pl, w->index);
	} else {
		nm_numa_thread_end(&j->np, w->index);
	}
}

/* Where memory, threads and QP/CQ rings go (numa/point.h); 1: skipped. */
static int ops_place(nm_ctx *ctx, ops_job *j, json_t *out)
{
	const ops_point *p = j->p;
	nm_numa_place_roles(&j->np, j->initiator, j->target, &p->buf, &p->cpu);
	if (j->target)
		nm_numa_need_load(&j->np, &p->load);
	j->np.misplace_at = p->inject == INJECT_MISPLACE && j->target ? (long)p->l.data : -1;
	return nm_numa_point_settle(&j->np, ctx->spec, out);
}

/* This rank's memory (with the pattern READ targets serve) and connections.
 * With server workers, WRITE slots start out holding what the clients will
 * write, so the workers' stores (which write the content found here) keep
 * the clients' read-back checks exact (numa/hammer.h). */
static void ops_connect(nm_ctx *ctx, ops_job *j)
{
	const layout *l = &j->p->l;
	/* per thread: one buffer per connection, one to verify into, and a
	 * result word per window entry for atomics */
	j->thread_area = nm_align64(l->slot * (size_t)(j->nconn + 1) + 8 * (size_t)(j->W + 1));
	nm_numa_point_alloc(&j->np, &j->mr, l->local + j->thread_area * (size_t)j->T, ctx->base.hugepages);
	bool read = j->op == NM_OP_READ, write = j->op == NM_OP_WRITE && j->p->workers.threads > 0;
	for (int s = 0; (read || write) && s < l->nslots; s++)
		nm_pattern_fill((uint8_t *)j->mr.buf + l->data + l->stride * (size_t)s, l->size,
			     read ? read_owner(j->rank, s) : write_owner(s));
	nm_mesh_cfg mc = {.nthreads = j->T, .qps = j->p->qps, .initiates = j->p->matrix, .qp = ctx->base.qp};
	mc.qp.sq_depth = j->W + 2 < ctx->dev->attr.max_qp_wr ? j->W + 2 : ctx->dev->attr.max_qp_wr;
	mc.qp.max_inline = j->p->inline_size;
	nm_numa_point_mesh(&j->np, &j->mesh, &mc);
}

/* Local loads on target ranks, running before the clients start and until
 * every rank has finished (the paper's workers and load process run from
 * server start-up). Server workers walk the slots this rank's initiators
 * access (for two ranks and --packed 8 B x 8 connections: exactly one cache
 * line, the paper's 64 B buffer), in whole 8-byte words. */
static void ops_loads(ops_job *j, uint64_t seed)
{
	const ops_point *p = j->p;
	const layout *l = &p->l;
	nm_numa_loads ld = {.load = p->load, .workers = p->workers, .here = j->target, .seed = seed};
	if (j->target && p->workers.threads > 0) {
		int R = p->nranks, first = R, last = -1;
		for (int i = 0; i < R; i++)
			if (p->matrix[i * R + j->rank]) {
				first = first < i ? first : i;
				last = i;
			}
		size_t per_rank = l->stride * (size_t)j->T * (size_t)p->qps;
		size_t lo = ((size_t)first * per_rank) & ~(size_t)7;
		size_t hi = ((size_t)(last + 1) * per_rank + 7) & ~(size_t)7;
		hi = hi < l->local - l->data ? hi : l->local - l->data;
		nm_hammer_cfg *w = &ld.workers;
		w->area = (uint8_t *)j->mr.buf + l->data + lo;
		w->len = hi - lo;
		w->stride = l->stride;
		w->cpu_offset = nm_local_rank() * j->T;
		w->seed = seed;
	}
	nm_numa_point_loads_start(&j->np, &ld);
}

/* FAA: every target's counter must equal the FAAs aimed at it, which are
 * what its initiators' connections posted. Returns the job's total.
 * Collective. */
static uint64_t check_faa(ops_job *j, nm_measure *ms)
{
	int R = j->p->nranks;
	uint64_t *faa = nm_calloc((size_t)R, sizeof *faa), total = 0;
	for (int t = 0; t < j->T; t++)
		for (int i = 0; i < j->th[t].nconn; i++)
			faa[j->th[t].cs[i].c->peer] += j->th[t].cs[i].sent;
	nm_boot_sum_u64_array(faa, (size_t)R);
	uint64_t counter = *(volatile uint64_t *)j->mr.buf;
	if (counter != faa[j->rank]) {
		ms->rank_c[C_FAA_WRONG] = 1;
		nm_error_note(&ms->rank_err, "FAA counter holds %" PRIu64 ", expected %" PRIu64, counter,
			      faa[j->rank]);
	}
	for (int r = 0; r < R; r++)
		total += faa[r];
	free(faa);
	return total;
}

/* The threads' throughput series summed over the job (every rank), as a
 * rate per interval. Collective. */
static json_t *series_json(const ops_job *j)
{
	nm_series s;
	if (nm_series_init(&s, j->p->interval_ns, SERIES_CAP) != 0)
		nm_fatal("out of memory");
	for (int t = 0; t < j->T; t++)
		nm_series_merge(&s, &j->th[t].series);
	nm_boot_sum_u64_array(s.ops, SERIES_CAP);
	s.used = (size_t)nm_boot_max_u64(s.used);
	double width = (double)j->p->interval_ns / 1e9;
	json_t *rates = json_array();
	for (size_t i = 0; i < s.used; i++)
		json_array_append_new(rates, json_real((double)s.ops[i] / width));
	nm_series_free(&s);
	return json_pack("{s:f, s:o}", "interval_s", width, "ops_per_sec", rates);
}

static json_t *ops_checks(const ops_job *j, const nm_measure *ms, uint64_t faa_total, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool data_ok = c[C_MISMATCHES] == 0, faa_ok = c[C_FAA_WRONG] == 0;
	json_t *checks = json_pack("{s:{s:I, s:I, s:b}, s:{s:I, s:b}}", "data", "checked", (json_int_t)c[C_CHECKED],
				   "mismatches", (json_int_t)c[C_MISMATCHES], "ok", data_ok, "measured", "ops",
				   (json_int_t)ms->ops, "ok", ms->ops > 0);
	if (j->op == NM_OP_FAA)
		json_object_set_new(checks, "faa_counters",
				    json_pack("{s:I, s:I, s:b}", "total_added", (json_int_t)faa_total, "targets_wrong",
					      (json_int_t)c[C_FAA_WRONG], "ok", faa_ok));
	nm_numa_point_checks(&j->np, checks, ms->first_error[0] ? ms->first_error : NULL);
	*valid = data_ok && faa_ok && ms->ops > 0 && j->np.ok;
	return checks;
}

/* The point's settings as run: resolved defaults, and the inline threshold
 * requested and granted (rank 0's QPs) with whether WRITEs went inline. */
static json_t *effective_json(const ops_job *j, const nm_measure *ms, json_t *cpus_by_rank)
{
	uint32_t granted = 0;
	for (int t = 0; t < j->T && !granted; t++)
		for (int i = 0; i < j->th[t].nconn; i++)
			granted = j->th[t].cs[i].c->max_inline;
	return json_pack("{s:i, s:i, s:I, s:I, s:i, s:i, s:b, s:o, s:I}", "tx_depth", j->W, "cq_mod", j->batch,
			 "warmup", (json_int_t)ms->cfg.warmup, "size", (json_int_t)j->size, "inline_requested",
			 j->p->inline_size, "inline_size", (int)granted, "inline", j->op == NM_OP_WRITE && j->size <= granted,
			 "cpus", cpus_by_rank, "slot_stride", (json_int_t)j->p->l.stride);
}

/* Collective: the placement record, the tally, the series, the loads and
 * the CPUs; rank 0 fills out. */
static void ops_result(nm_ctx *ctx, ops_job *j, nm_measure *ms, json_t *out)
{
	json_t *placement = nm_numa_point_record(&j->np, ctx->rank, ctx->nranks);
	uint64_t faa_total = j->op == NM_OP_FAA ? check_faa(j, ms) : 0;
	json_t *series = series_json(j), *cpus_by_rank = nm_numa_point_cpus(&j->np);
	nm_measure_gather(ms);
	json_t *metrics = ctx->rank == 0 ? nm_measure_metrics(ms) : NULL;
	nm_numa_point_load_metrics(&j->np, metrics);
	if (ctx->rank != 0) {
		json_decref(series);
		return;
	}
	double rate = ms->seconds > 0 ? (double)ms->ops / ms->seconds : 0, bytes = rate * (double)j->size;
	json_object_set_new(metrics, "ops_with_warmup", json_integer((json_int_t)ms->ops_all));
	json_object_set_new(metrics, "mib_per_sec", json_real(bytes / 1048576.0));
	json_object_set_new(metrics, "gbit_per_sec", json_real(bytes * 8 / 1e9));
	json_object_set_new(metrics, "throughput_series", series);
	bool valid;
	json_object_set_new(out, "checks", ops_checks(j, ms, faa_total, &valid));
	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "placement", placement);
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective", effective_json(j, ms, cpus_by_rank));
}

static void ops_free(ops_job *j)
{
	for (int t = 0; j->th && t < j->T; t++) {
		for (int i = 0; i < j->th[t].nconn; i++)
			free(j->th[t].cs[i].fifo);
		free(j->th[t].cs);
		nm_series_free(&j->th[t].series);
	}
	free(j->th);
	nm_numa_point_free(&j->np);
	nm_mesh_destroy(&j->mesh);
	nm_mr_free(&j->mr);
}

static void ops_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const ops_point *p = point;
	const nm_base *b = &ctx->base;
	int R = p->nranks, me = ctx->rank, targets = 0;
	ops_job j = {.p = p, .op = p->op, .rank = me, .T = b->threads, .W = p->window, .batch = p->batch,
		     .size = (uint32_t)p->l.size, .timeout = b->timeout};
	for (int q = 0; q < R; q++) {
		targets += p->matrix[me * R + q];
		j.target |= p->matrix[q * R + me] != 0;
	}
	j.initiator = targets > 0;
	j.nconn = targets * p->qps;
	nm_numa_point_init(&j.np, ctx->dev, b->mem_node, j.T);
	if (ops_place(ctx, &j, out)) {
		nm_numa_point_free(&j.np);
		return;
	}
	ops_connect(ctx, &j);
	ops_loads(&j, b->seed * 1000003u + (uint64_t)me);

	static const nm_measure_def def = {"ops", ops_counters, C_N};
	nm_measure *ms = nm_measure_new(&b->measure, &def, me, j.T);
	j.th = nm_calloc64((size_t)j.T, sizeof *j.th);
	nm_round rd = {.workers = j.T, .numa_node = j.np.thread_node, .setup = thread_setup, .body = thread_body,
		       .arg = &j, .measure = ms};
	nm_workers_run(&rd);
	/* nm_workers_run returns once every rank's threads are done */
	nm_numa_point_loads_stop(&j.np);
	ops_result(ctx, &j, ms, out);
	nm_measure_free(ms);
	ops_free(&j);
}

static void ops_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	const json_t *eff = json_object_get(res, "effective");
	bool bw = !strcmp(nm_cfg_str(pt, "mode"), "bw");
	if (json_is_string(json_object_get(res, "skipped"))) {
		printf(" %-5s skipped: %s\n", nm_cfg_str(pt, "op"),
		       json_string_value(json_object_get(res, "skipped")));
		return;
	}
	static int last_mode = -1;
	first = first || last_mode != bw;
	last_mode = bw;
	const char *valid = json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID";
#define L(k) json_real_value(json_object_get(lat, k))
	if (bw) {
		if (first)
			printf(" %-5s %10s %12s %7s %9s %18s %14s %8s\n", "op", "#bytes", "#iterations",
			       "window", "threads", "BW average[MiB/s]", "MsgRate[Mpps]", "check");
		printf(" %-5s %10" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT " %7" JSON_INTEGER_FORMAT
		       " %9" PRId64 " %18.2f %14.6f %8s\n",
		       nm_cfg_str(pt, "op"), json_integer_value(json_object_get(eff, "size")),
		       json_integer_value(json_object_get(mt, "ops")),
		       json_integer_value(json_object_get(eff, "tx_depth")), nm_cfg_int(pt, "threads"),
		       json_real_value(json_object_get(mt, "mib_per_sec")),
		       json_real_value(json_object_get(mt, "mops")), valid);
	} else {
		if (first)
			printf(" %-5s %10s %12s %12s %12s %16s %12s %14s %16s %18s %8s\n", "op", "#bytes",
			       "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]",
			       "t_avg[usec]", "t_stdev[usec]", "99% percentile", "99.9% percentile",
			       "check");
		printf(" %-5s %10" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT
		       " %12.2f %12.2f %16.2f %12.2f %14.2f %16.2f %18.2f %8s\n",
		       nm_cfg_str(pt, "op"), json_integer_value(json_object_get(eff, "size")),
		       json_integer_value(json_object_get(mt, "ops")), L("min"), L("max"), L("p50"),
		       L("mean"), L("stdev"), L("p99"), L("p99_9"), valid);
	}
#undef L
}

static const nm_experiment ops_experiment = {
	.name = "ops",
	.summary = "one-sided READ, WRITE, CAS, FAA: latency and throughput (perftest-style)",
	.details =
		"Latency (--mode lat) is post to completion with one operation outstanding, the\n"
		"full round trip that ib_read_lat and ib_atomic_lat report. WRITE latency is\n"
		"completion latency, not ib_write_lat's half ping-pong. Throughput (--mode bw)\n"
		"keeps --tx-depth operations outstanding per thread, signaling every --cq-mod.\n"
		"Every run checks its data: READ contents, WRITE read-back, CAS sequences and\n"
		"exact FAA totals; a failed check marks the point invalid.\n\n"
		"NUMA placement (numa/, Nelson and Palmieri): --buf-node places every target's\n"
		"registered memory, --cpu-node the initiator threads, each resolved per rank\n"
		"against its own NIC (nic, other, a node number, any); move_pages verifies every\n"
		"page after allocation and after the run, and the point's \"placement\" record holds\n"
		"intended and actual nodes (a mismatch marks the point invalid). --server-workers\n"
		"and --load-threads add the paper's local loads on target ranks.\n\n"
		"Examples:\n"
		"  mpirun -np 2 netmem ops --op read -a            READ latency, 2 B..8 MiB\n"
		"  mpirun -np 2 netmem ops --mode bw --op write -s 64 -t 1,8,64,128\n"
		"  mpirun -np 4 netmem ops --op faa --initiators all --targets all -T 2\n"
		"  mpirun -np 2 netmem ops --op read,write -s 64 -T 1,8 --buf-node nic,other --cpu-node nic\n"
		"  mpirun -np 2 netmem ops --mode bw -s 8 --packed -T 8 --buf-node nic,other \\\n"
		"      --server-workers 0,8,48 --server-op mixed",
	.opts = ops_opts, .min_ranks = 1,
	.point_size = sizeof(ops_point), .decode = ops_decode, .point_free = ops_point_free,
	.run = ops_run, .report = ops_report,
};
NM_EXPERIMENT(ops_experiment)
