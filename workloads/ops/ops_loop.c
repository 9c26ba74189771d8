/* netmem ops's measured loops, one copy per operation type, and the
 * unmeasured checks after them (see ops.c's header comment for what is
 * measured and checked). */
#include "ops.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <string.h>

#define HOT static inline __attribute__((always_inline))

/* Out of line and rare (once per --interval): the pending count goes into
 * the interval it was counted in, and the interval of now becomes current. */
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

/* One measured sample of s, timed at d ticks: one operation in lat mode,
 * a signaled batch in bw mode (whose size retire adds to s->ops; in lat
 * mode the samples are the operations). Cheap enough for the loops: called
 * only after the clock reads and only for samples nm_meter_ops counted, it
 * adds two integers into the conn_state line the loop has just written
 * (sent, or the FIFO's head), with no clock read, division or branch of its
 * own; means are taken after the run (ops.c). */
HOT void conn_sample(conn_state *s, uint64_t d)
{
	s->lat_ticks += d;
	s->lat_samples++;
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
		if (nm_loop_done(&lp, t0, t1)) {
			series_add(t, m, t1, 1);
			conn_sample(s, t1 - t0);
		}
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
	uint64_t posted = s->fifo[s->head++ & s->mask];
	if (nm_meter_ops(m, posted, now, n)) {
		series_add(t, m, now, n);
		conn_sample(s, now - posted);
		s->ops += n;
	}
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

/* A windowed loop's arguments, for nm_window_run. */
typedef struct ops_phase {
	ops_job *j;
	ops_thread *t;
	nm_meter *m;
	nm_poller *pl;
} ops_phase;

typedef void (*lat_loop)(ops_thread *, nm_meter *, nm_poller *);

/* One copy of each loop per operation, with the operation a constant. */
#define OPS_LOOPS(name, OP)                                                                                  \
	static void lat_##name(ops_thread *t, nm_meter *m, nm_poller *pl) { run_lat_(OP, t, m, pl); }         \
	static uint64_t window_##name(void *arg, uint64_t count, uint64_t deadline)                          \
	{                                                                                                    \
		ops_phase *a = arg;                                                                          \
		return run_window_(OP, a->j, a->t, a->m, a->pl, count, deadline);                            \
	}
OPS_LOOPS(read, NM_OP_READ)
OPS_LOOPS(write, NM_OP_WRITE)
OPS_LOOPS(cas, NM_OP_CAS)
OPS_LOOPS(faa, NM_OP_FAA)

static const struct {
	lat_loop lat;
	nm_window_phase window;
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
		ops_phase a = {j, t, m, pl};
		nm_window_run(m, ops_loops[j->op].window, &a);
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

void ops_thread_setup(nm_worker *w)
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
void ops_thread_body(nm_worker *w)
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

