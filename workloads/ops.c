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
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "rng.h"
#include "mesh.h"
#include "rdma.h"
#include "stats.h"
#include "workers.h"
#include "../numa/hammer.h"
#include "../numa/loadproc.h"
#include "../numa/mem.h"
#include "../numa/nodes.h"
#include "../numa/pages.h"
#include "../numa/placement.h"
#include "../numa/record.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	{"iters", 'n', NM_OPT_INT, "1000", 1, 1e10, NULL, 0, "measured operations per thread"},
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0,
	 "measure for this many seconds instead of --iters"},
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0,
	 "unmeasured ops per thread first (-1: iters/10, at most 1000)"},
	{"initiators", 0, NM_OPT_STR, "0", 0, 0, NULL, 0, "ranks that issue operations: all, or a list like 0,2"},
	{"targets", 0, NM_OPT_STR, "others", 0, 0, NULL, 0,
	 "ranks whose memory is accessed: others (not initiators), all, self (loopback), or a list"},
	{"interval", 0, NM_OPT_DOUBLE, "0.1", 0.001, 3600, NULL, 0, "throughput sampling interval (s)"},
	{"mr-size", 0, NM_OPT_SIZE, "0", 0, 1ll << 40, NULL, 0,
	 "registered memory per rank (0: just enough for every slot)"},
	{"buf-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,
	 "NUMA node of each target rank's registered memory, resolved on every rank against its own "
	 "NIC: nic (the NIC's node), other (the nearest other node), a node number, or any (the "
	 "kernel's policy, or --mem-node)"},
	{"cpu-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,
	 "NUMA node whose cores run the initiator threads; on ranks that only initiate also the node "
	 "of their memory and QP/CQ rings: nic, other, a node number, or any"},
	{"packed", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "remote slots adjacent (stride = size) instead of one 64-byte line each: the NUMA paper's "
	 "'disjoint but adjacent addresses' (8 connections x 8 B share one cache line)"},
	{"server-workers", 0, NM_OPT_INT, "0", 0, 1024, NULL, NM_OPT_LIST,
	 "CPU threads on every target rank hammering the slots clients access, pinned to the "
	 "buffer's node, running while clients measure (NUMA Fig. 5)"},
	{"server-op", 0, NM_OPT_ENUM, "mixed", 0, 0, NM_HAMMER_OPS, NM_OPT_LIST,
	 "what server workers do: read, write, mixed (--server-write-ratio stores), cas or faa "
	 "(CPU atomics); stores keep the values clients check"},
	{"server-write-ratio", 0, NM_OPT_DOUBLE, "0.9", 0, 1, NULL, NM_OPT_LIST,
	 "mixed: fraction of server-worker accesses that store"},
	{"load-threads", 0, NM_OPT_INT, "0", 0, 4096, NULL, NM_OPT_LIST,
	 "an independent load process (netmem numa-load) on every target rank while clients "
	 "measure: its threads (NUMA section V-C)"},
	{"load-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,
	 "its node: nic, other, a node number, or any (NUMA-agnostic: threads over every core, "
	 "buffer interleaved over every node)"},
	{"load-buf", 0, NM_OPT_SIZE, "64M", 8, 1ll << 44, NULL, NM_OPT_LIST, "its buffer size"},
	{"load-mix", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, NM_OPT_LIST,
	 "its fraction of accesses that store"},
	{"inject", 0, NM_OPT_ENUM, "none", 0, 0, "none,corrupt,rkey,misplace", 0,
	 "testing the checks: corrupt damages data after the run (the point must come out invalid); "
	 "rkey posts with a wrong key (the job must stop, naming rank, peer and operation); "
	 "misplace moves one page of each target's buffer off --buf-node before registration (the "
	 "placement check must mark the point invalid; needs two NUMA nodes)"},
	NM_OPT_END,
};

#define SERIES_CAP 4096
#define CAS_BASE 64

static int op_code(const char *s)
{
	return !strcmp(s, "read") ? NM_OP_READ : !strcmp(s, "write") ? NM_OP_WRITE
	     : !strcmp(s, "cas") ? NM_OP_CAS : NM_OP_FAA;
}

static size_t align64(size_t v) { return (v + 63) & ~(size_t)63; }

/* Rank sets: "all", "others", "self" or a comma list. Writes the matrix
 * initiates[from * n + to]; returns -1 with a message on bad input. */
static int parse_list(const char *s, int n, uint8_t *set, const char *what, char *err, size_t len)
{
	memset(set, 0, (size_t)n);
	if (!strcmp(s, "all")) {
		memset(set, 1, (size_t)n);
		return 0;
	}
	const char *p = s;
	while (*p) {
		char *end;
		long r = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || r < 0) {
			snprintf(err, len, "option --%s: '%s' is not 'all' or a list of ranks like 0,2", what, s);
			return -1;
		}
		if (r >= n) {
			snprintf(err, len, "option --%s: rank %ld does not exist (the job has %d rank%s)", what,
				 r, n, n == 1 ? "" : "s");
			return -1;
		}
		set[r] = 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int build_matrix(const json_t *pt, int n, uint8_t *m, char *err, size_t len)
{
	uint8_t *ini = calloc((size_t)n, 1), *tgt = calloc((size_t)n, 1);
	const char *ts = nm_cfg_str(pt, "targets");
	int rc = parse_list(nm_cfg_str(pt, "initiators"), n, ini, "initiators", err, len);
	bool self = !strcmp(ts, "self"), others = !strcmp(ts, "others");
	if (!rc && !self && !others)
		rc = parse_list(ts, n, tgt, "targets", err, len);
	if (!rc && others)
		for (int r = 0; r < n; r++)
			tgt[r] = !ini[r];
	memset(m, 0, (size_t)n * n);
	int pairs = 0;
	for (int i = 0; !rc && i < n; i++)
		for (int t = 0; ini[i] && t < n; t++)
			if (self ? t == i : tgt[t]) {
				m[i * n + t] = 1;
				pairs++;
			}
	if (!rc && !pairs)
		snprintf(err, len, "ops has no target: with %d rank%s, initiators '%s' and targets '%s' "
			 "nobody is accessed; start more ranks (mpirun -np 2) or use --targets self "
			 "for loopback", n, n == 1 ? "" : "s", nm_cfg_str(pt, "initiators"), ts), rc = -1;
	free(ini);
	free(tgt);
	return rc;
}

typedef struct layout {
	size_t size;       /* bytes per op */
	size_t slot;       /* size rounded to 64: local buffers */
	size_t stride;     /* distance between remote slots: slot, or size with --packed */
	size_t data;       /* offset of remote slots */
	size_t local;      /* offset of per-thread local areas */
	size_t thread_area;
	size_t total;
	int nslots;
} layout;

/* Slot of (initiator rank, thread, QP) at any target. */
static int slot_id(int rank, int t, int q, int T, int Q) { return (rank * T + t) * Q + q; }

static void plan(layout *l, const json_t *pt, int nranks, int nconn)
{
	int T = (int)nm_cfg_int(pt, "threads"), Q = (int)nm_cfg_int(pt, "qp");
	int W = (int)nm_cfg_int(pt, "tx_depth");
	bool atomic = op_code(nm_cfg_str(pt, "op")) >= NM_OP_CAS;
	l->size = atomic ? 8 : (size_t)nm_cfg_int(pt, "size");
	l->slot = align64(l->size);
	l->nslots = nranks * T * Q;
	l->stride = nm_cfg_bool(pt, "packed") ? l->size : l->slot;
	l->data = align64(CAS_BASE + 8 * (size_t)l->nslots);
	l->local = align64(l->data + l->stride * (size_t)l->nslots);
	/* per thread: one buffer per connection, one to verify into, and a
	 * result word per window entry for atomics */
	l->thread_area = align64(l->slot * (size_t)(nconn + 1) + 8 * (size_t)(W + 1));
	l->total = l->local + l->thread_area * (size_t)T;
}

static int ops_validate(const json_t *pt, int nranks, char *err, size_t len)
{
	uint8_t *m = calloc((size_t)nranks * nranks, 1);
	int rc = build_matrix(pt, nranks, m, err, len);
	free(m);
	if (rc)
		return rc;
	const char *op = nm_cfg_str(pt, "op");
	int64_t size = nm_cfg_int(pt, "size");
	if ((!strcmp(op, "cas") || !strcmp(op, "faa")) && size != 8) {
		snprintf(err, len, "%s operates on 8 bytes; --size %" PRId64 " applies to read and write "
			 "only (sweep sizes in a separate run)", op, size);
		return -1;
	}
	int64_t mr = nm_cfg_int(pt, "mr_size");
	if (mr > 0) {
		layout l;
		plan(&l, pt, nranks, nranks * (int)nm_cfg_int(pt, "qp"));
		if (l.local > (size_t)mr) {
			snprintf(err, len, "--size %" PRId64 " does not fit --mr-size %" PRId64 ": %d writer "
				 "slot(s) of %zu bytes need %zu bytes", size, mr, l.nslots, l.stride, l.local);
			return -1;
		}
	}
	nm_place bp, cp, lp;
	if (nm_place_parse(nm_cfg_str(pt, "buf_node"), &bp, "--buf-node", err, len) ||
	    nm_place_parse(nm_cfg_str(pt, "cpu_node"), &cp, "--cpu-node", err, len) ||
	    nm_place_parse(nm_cfg_str(pt, "load_node"), &lp, "--load-node", err, len))
		return -1;
	if (nm_cfg_int(pt, "mem_node") >= 0 && (bp.kind != NM_PLACE_ANY || cp.kind != NM_PLACE_ANY)) {
		snprintf(err, len, "--mem-node places every rank's memory and threads on one node; it "
			 "cannot be combined with --buf-node or --cpu-node (use those alone)");
		return -1;
	}
	if (!strcmp(nm_cfg_str(pt, "inject"), "misplace") && bp.kind == NM_PLACE_ANY) {
		snprintf(err, len, "--inject misplace moves a page off the buffer's node: give --buf-node");
		return -1;
	}
	if (!strcmp(nm_cfg_str(pt, "mode"), "lat") && nm_cfg_int(pt, "tx_depth") > 1) {
		snprintf(err, len, "lat mode keeps one operation outstanding; use --mode bw for "
			 "--tx-depth %" PRId64, nm_cfg_int(pt, "tx_depth"));
		return -1;
	}
	return 0;
}

/* Pattern words: distinct per (owner, word index), cheap to regenerate. */
static void fill_pattern(uint8_t *p, size_t len, uint64_t owner)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_mix64(owner * 0x100000001b3ull + i / 8);
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* Offset of the first mismatch against the pattern, or -1. */
static long check_pattern(const uint8_t *p, size_t len, uint64_t owner)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_mix64(owner * 0x100000001b3ull + i / 8);
		if (memcmp(p + i, &w, len - i < 8 ? len - i : 8) != 0)
			return (long)i;
	}
	return -1;
}

static uint64_t read_owner(int target, int slot) { return ((uint64_t)target << 32) | (uint32_t)slot | 1ull << 62; }
static uint64_t write_owner(int slot) { return (uint64_t)slot | 1ull << 63; }

typedef struct conn_state {
	nm_conn *c;
	uint8_t *buf;            /* local buffer for this connection */
	uint64_t raddr;          /* remote slot */
	uint64_t cas_raddr;
	uint64_t cas_seq;        /* next expected value of our CAS word */
	uint64_t faa_last;       /* last FAA value returned (lat mode) */
	uint64_t sent;
	uint64_t *fifo;          /* post ticks of outstanding signaled batches */
	uint32_t head, tail, cap;
} conn_state;

typedef struct ops_job ops_job;

typedef struct ops_thread {
	ops_job *job;
	nm_hist hist;
	nm_series series;
	conn_state *cs;
	int nconn;
	uint8_t *verify;
	uint64_t *results;
	uint64_t measured, total, elapsed_ns;
	uint64_t checked, mismatches;
	char first_error[256];
	nm_cpu_place cp;        /* where it ran (placement record) */
} ops_thread;

struct ops_job {
	const json_t *pt;
	nm_mesh mesh;
	nm_mr mr;
	layout l;
	int op, T, Q, W, batch, rank, nranks;
	bool bw;
	int inject;   /* 0 none, 1 corrupt, 2 wrong rkey */
	uint64_t iters, warmup;
	double duration, timeout;
	uint64_t interval_ns;
	ops_thread *th;
	uint64_t *faa_sent;      /* [thread][target] */
	/* placement (numa/): this rank's roles, requests and resolved nodes
	 * (-1 = any), and the page census of its buffer after allocation and
	 * after the run */
	bool initiator, target;
	int buf_node, cpu_node, mem_node, home_node, thread_node;
	char mem_request[64];
	nm_numa_view view;
	nm_nic_numa nic;
	nm_page_census census[2];
	char qp_policy[128];
	int misplaced_to;        /* --inject misplace: node the moved page went to */
	/* local loads on target ranks (numa/hammer.h, numa/loadproc.h) */
	int server_workers, server_op, worker_node;
	double server_ratio;
	nm_hammer hammer;
	int load_threads, load_node;
	int64_t load_buf;
	double load_mix;
	nm_loadproc load;
	json_t *load_result;
};

static void mismatch(ops_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(ops_thread *t, const char *fmt, ...)
{
	if (t->mismatches++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->first_error, sizeof t->first_error, fmt, ap);
		va_end(ap);
	}
}

static void post_one(ops_job *j, ops_thread *t, conn_state *s, uint64_t *result, uint64_t wr_id,
		     bool signaled)
{
	switch (j->op) {
	case NM_OP_READ:
	case NM_OP_WRITE:
		nm_post_rw(s->c, j->op, s->buf, j->mr.mr->lkey, s->raddr, (uint32_t)j->l.size, wr_id,
			   signaled);
		break;
	case NM_OP_CAS:
		nm_post_atomic(s->c, NM_OP_CAS, result, j->mr.mr->lkey, s->cas_raddr, s->cas_seq,
			       s->cas_seq + 1, wr_id, signaled);
		s->cas_seq++;
		break;
	case NM_OP_FAA:
		nm_post_atomic(s->c, NM_OP_FAA, result, j->mr.mr->lkey, s->c->rmr.addr, 1, 0, wr_id,
			       signaled);
		j->faa_sent[(size_t)t->job->nranks * (size_t)(t - j->th) + (size_t)s->c->peer]++;
		break;
	}
	s->sent++;
}

static void run_lat(ops_job *j, ops_thread *t, nm_poller *pl)
{
	struct ibv_wc wc;
	uint64_t n = j->warmup + j->iters, start = 0, end_ticks = 0;
	uint64_t *res = t->results;
	for (uint64_t i = 0;; i++) {
		if (i == j->warmup) {
			start = nm_ticks();
			if (j->duration > 0)
				end_ticks = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
		}
		if (j->duration > 0 ? (i >= j->warmup && nm_ticks() >= end_ticks) : i >= n)
			break;
		conn_state *s = &t->cs[i % (uint64_t)t->nconn];
		uint64_t expect = s->cas_seq;
		uint64_t t0 = nm_ticks();
		post_one(j, t, s, res, NM_WRID(j->op, 0), true);
		nm_poll_wait(pl, &wc, 1);
		uint64_t t1 = nm_ticks();
		if (i >= j->warmup) {
			nm_hist_add(&t->hist, nm_ticks_to_ns(t1 - t0));
			nm_series_add(&t->series, nm_ticks_to_ns(t1 - start), 1);
			t->measured++;
		}
		t->total++;
		if (j->op == NM_OP_CAS && *res != expect)
			mismatch(t, "CAS on rank %d returned %" PRIu64 ", expected %" PRIu64, s->c->peer,
				 *res, expect);
		if (j->op == NM_OP_FAA) {
			if (s->sent > 1 && *res <= s->faa_last)
				mismatch(t, "FAA on rank %d returned %" PRIu64 " after %" PRIu64, s->c->peer,
					 *res, s->faa_last);
			s->faa_last = *res;
		}
	}
	t->elapsed_ns = nm_ticks_to_ns(nm_ticks() - start);
}

/* Windowed: post batches of j->batch ops on one connection, the last one
 * signaled; its completion retires the whole batch (RC completes in order). */
static void run_bw(ops_job *j, ops_thread *t, nm_poller *pl)
{
	struct ibv_wc wc[16];
	uint64_t total = j->warmup + j->iters, posted = 0, done = 0, outstanding = 0;
	uint64_t start = 0, end_ticks = 0, last = 0, measured_from = 0;
	bool measuring = j->warmup == 0, stop = false;
	size_t rr = 0;
	if (measuring) {
		start = nm_ticks();
		if (j->duration > 0)
			end_ticks = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
	}
	while (!stop || outstanding > 0) {
		/* Refill the window as completions free it, as perftest does,
		 * rather than waiting for room for a whole batch. */
		while (!stop && outstanding < (uint64_t)j->W) {
			uint64_t n = (uint64_t)j->batch;
			if (n > (uint64_t)j->W - outstanding)
				n = (uint64_t)j->W - outstanding;
			if (j->duration <= 0 && total - posted < n)
				n = total - posted;
			conn_state *s = &t->cs[rr++ % (size_t)t->nconn];
			for (uint64_t k = 0; k < n; k++) {
				bool sig = k + 1 == n;
				uint64_t idx = (posted + k) % (uint64_t)j->W;
				if (sig)
					s->fifo[s->tail++ % s->cap] = nm_ticks();
				post_one(j, t, s, &t->results[idx],
					 NM_WRID(j->op, ((uint64_t)(s - t->cs) << 32) | n), sig);
			}
			posted += n;
			outstanding += n;
			if (j->duration <= 0 ? posted >= total
					     : measuring && nm_ticks() >= end_ticks)
				stop = true;
		}
		int got = nm_poll_some(pl, wc, 16);
		if (got == 0)
			continue;
		uint64_t now = nm_ticks();
		for (int i = 0; i < got; i++) {
			uint64_t pay = NM_WRID_PAYLOAD(wc[i].wr_id), n = pay & 0xffffffffu;
			conn_state *s = &t->cs[pay >> 32];
			uint64_t posted_at = s->fifo[s->head++ % s->cap];
			outstanding -= n;
			done += n;
			if (measuring) {
				nm_hist_add(&t->hist, nm_ticks_to_ns(now - posted_at));
				nm_series_add(&t->series, nm_ticks_to_ns(now - start), n);
			} else if (done >= j->warmup) {
				/* The measured interval starts at the completion that ends
				 * the warm-up, even when later ones arrive in the same poll. */
				measuring = true;
				start = now;
				measured_from = done;
				if (j->duration > 0)
					end_ticks = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
			}
		}
		last = now;
	}
	t->total = done;
	t->measured = done - measured_from;
	t->elapsed_ns = nm_ticks_to_ns(last - start);
}

/* --inject corrupt: one uncounted change per rank, through the same paths a
 * real fault would take, so the checks below must catch it. */
static void inject(ops_job *j, ops_thread *t, nm_poller *pl)
{
	struct ibv_wc wc;
	conn_state *s = &t->cs[0];
	uint64_t *scratch = t->results;
	if (j->inject == 2) {
		s->c->rmr.rkey ^= 0x5a5a;
		post_one(j, t, s, scratch, NM_WRID(j->op, 0), true);
		nm_poll_wait(pl, &wc, 1);
		nm_fatal("thread %d: a %s with a wrong rkey completed successfully", (int)(t - j->th),
			 nm_op_name(j->op));
	}
	switch (j->op) {
	case NM_OP_READ:
		s->buf[0] ^= 0x5a;
		return;
	case NM_OP_WRITE:
		memcpy(t->verify, s->buf, 1);
		t->verify[0] ^= 0x5a;
		nm_post_rw(s->c, NM_OP_WRITE, t->verify, j->mr.mr->lkey, s->raddr, 1,
			   NM_WRID(NM_OP_WRITE, 0), true);
		break;
	case NM_OP_CAS:
		nm_post_atomic(s->c, NM_OP_CAS, scratch, j->mr.mr->lkey, s->cas_raddr, s->cas_seq,
			       s->cas_seq + 1, NM_WRID(NM_OP_CAS, 0), true);
		break;
	case NM_OP_FAA:
		nm_post_atomic(s->c, NM_OP_FAA, scratch, j->mr.mr->lkey, s->c->rmr.addr, 1, 0,
			       NM_WRID(NM_OP_FAA, 0), true);
		break;
	}
	nm_poll_wait(pl, &wc, 1);
}

/* Unmeasured checks after the loop (see the header comment). */
static void verify(ops_job *j, ops_thread *t, nm_poller *pl)
{
	struct ibv_wc wc;
	int ti = (int)(t - j->th);
	if ((j->inject == 1 || j->inject == 2) && ti == 0)
		inject(j, t, pl);
	for (int i = 0; i < t->nconn; i++) {
		conn_state *s = &t->cs[i];
		int peer = s->c->peer, slot = slot_id(j->rank, ti, s->c->index, j->T, j->Q);
		long off;
		switch (j->op) {
		case NM_OP_READ:
			t->checked++;
			if (s->sent && (off = check_pattern(s->buf, j->l.size, read_owner(peer, slot))) >= 0)
				mismatch(t, "READ from rank %d: byte %ld of the buffer differs from the "
					 "target's memory", peer, off);
			break;
		case NM_OP_WRITE:
			nm_fence_wait(pl, s->c);
			memset(t->verify, 0, j->l.size);
			nm_post_rw(s->c, NM_OP_READ, t->verify, j->mr.mr->lkey, s->raddr,
				   (uint32_t)j->l.size, NM_WRID(NM_OP_READ, 0), true);
			nm_poll_wait(pl, &wc, 1);
			t->checked++;
			if ((off = check_pattern(t->verify, j->l.size, write_owner(slot))) >= 0)
				mismatch(t, "WRITE to rank %d: reading the slot back differs at byte %ld",
					 peer, off);
			break;
		case NM_OP_CAS:
			t->verify[0] = 0xff;
			nm_post_rw(s->c, NM_OP_READ, t->verify, j->mr.mr->lkey, s->cas_raddr, 8,
				   NM_WRID(NM_OP_READ, 0), true);
			nm_poll_wait(pl, &wc, 1);
			t->checked++;
			uint64_t v;
			memcpy(&v, t->verify, 8);
			if (v != s->cas_seq)
				mismatch(t, "CAS word on rank %d holds %" PRIu64 " after %" PRIu64
					 " successful swaps", peer, v, s->cas_seq);
			break;
		}
	}
}

static void thread_setup(nm_worker *w)
{
	ops_job *j = w->arg;
	ops_thread *t = &j->th[w->index];
	int ti = w->index, n = 0;
	t->job = j;
	nm_hist_init(&t->hist);
	if (nm_series_init(&t->series, j->interval_ns, SERIES_CAP) != 0)
		nm_fatal("out of memory");
	uint8_t *area = (uint8_t *)j->mr.buf + j->l.local + j->l.thread_area * (size_t)ti;
	t->cs = calloc((size_t)j->nranks * (size_t)j->Q, sizeof *t->cs);
	for (int p = 0; p < j->nranks; p++)
		for (int q = 0; q < j->Q; q++) {
			nm_conn *c = nm_mesh_conn(&j->mesh, ti, p, q);
			if (!c->qp)
				continue;
			conn_state *s = &t->cs[n];
			int slot = slot_id(j->rank, ti, q, j->T, j->Q);
			s->c = c;
			s->buf = area + j->l.slot * (size_t)n;
			s->raddr = c->rmr.addr + j->l.data + j->l.stride * (size_t)slot;
			s->cas_raddr = c->rmr.addr + CAS_BASE + 8 * (size_t)slot;
			s->cap = (uint32_t)j->W + 2;
			s->fifo = calloc(s->cap, sizeof *s->fifo);
			if (j->op == NM_OP_WRITE)
				fill_pattern(s->buf, j->l.size, write_owner(slot));
			n++;
		}
	t->nconn = n;
	t->verify = area + j->l.slot * (size_t)n;
	t->results = (uint64_t *)(area + j->l.slot * (size_t)(n + 1));
	nm_cpu_place_start(&t->cp, w->cpu, n ? j->thread_node : -1);
}

static void thread_body(nm_worker *w)
{
	ops_job *j = w->arg;
	ops_thread *t = &j->th[w->index];
	if (t->nconn == 0) {
		nm_cpu_place_end(&t->cp);
		return;
	}
	nm_poller pl;
	nm_poller_init(&pl, &j->mesh, w->index, j->timeout);
	if (j->bw)
		run_bw(j, t, &pl);
	else
		run_lat(j, t, &pl);
	nm_cpu_place_end(&t->cp);
	verify(j, t, &pl);
}

/* ---- placement (numa/): where memory, threads and QP/CQ rings go ---- */

/* Resolves this rank's placement against its own NIC and nodes. Returns 1
 * when the point is skipped (a swept value this host cannot honour; out is
 * filled on rank 0), 0 to run; a single value that cannot be honoured ends
 * the job with exit 2. Collective.
 *
 * Who gets which node: a target rank's registered memory goes to --buf-node
 * (it holds what initiators READ and WRITE); initiator threads run on
 * --cpu-node; a rank that only initiates keeps its memory (the local
 * source/sink buffers) on --cpu-node too, as the paper's client binds all its
 * resources to one node. QP and CQ rings are created while the main thread
 * is bound to the rank's home node: --cpu-node on ranks that initiate (their
 * threads poll those CQs), --buf-node on ranks that are only targets (the
 * paper binds the whole server process to the buffer's node). */
static int ops_place(nm_ctx *ctx, const json_t *pt, ops_job *j, json_t *out)
{
	char why[512] = "", e[256];
	const char *bad = NULL;
	nm_place bp, cp;
	nm_place_parse(nm_cfg_str(pt, "buf_node"), &bp, "--buf-node", e, sizeof e); /* validated */
	nm_place_parse(nm_cfg_str(pt, "cpu_node"), &cp, "--cpu-node", e, sizeof e);
	nm_numa_view_load(&j->view, ctx->dev->ctx->device, &j->nic);
	j->buf_node = j->cpu_node = j->mem_node = j->home_node = j->thread_node = -1;
	j->load_node = j->worker_node = -1;
	j->misplaced_to = -1;
	int harness_node = (int)nm_cfg_int(pt, "mem_node");
	if (j->target && nm_place_resolve(&bp, &j->view, NM_NEED_MEMORY, &j->buf_node, "--buf-node",
					  why, sizeof why))
		bad = "buf_node";
	if (!bad && j->initiator &&
	    nm_place_resolve(&cp, &j->view, NM_NEED_CPUS, &j->cpu_node, "--cpu-node", why, sizeof why))
		bad = "cpu_node";
	if (!bad && j->initiator && !j->target && j->cpu_node >= 0 &&
	    nm_place_resolve(&cp, &j->view, NM_NEED_MEMORY, &j->mem_node, "--cpu-node", why, sizeof why))
		bad = "cpu_node";
	if (!bad && j->target && j->load_threads > 0) {
		nm_place lp;
		int n2;
		nm_place_parse(nm_cfg_str(pt, "load_node"), &lp, "--load-node", e, sizeof e);
		if (nm_place_resolve(&lp, &j->view, NM_NEED_CPUS, &j->load_node, "--load-node", why,
				     sizeof why) ||
		    nm_place_resolve(&lp, &j->view, NM_NEED_MEMORY, &n2, "--load-node", why, sizeof why))
			bad = "load_node";
	}
	if (!bad && j->inject == 3 && j->target && j->view.nnodes < 2) {
		snprintf(why, sizeof why, "--inject misplace needs a second NUMA node to move a page to "
			 "(%s has one)", j->view.hostname);
		bad = "inject";
	}
	if (nm_placement_unresolved(ctx->spec, bad, why, out))
		return 1;
	if (j->target)
		j->mem_node = j->buf_node;
	snprintf(j->mem_request, sizeof j->mem_request, "%s",
		 j->target ? nm_cfg_str(pt, "buf_node") : j->initiator ? nm_cfg_str(pt, "cpu_node") : "any");
	if (j->mem_node < 0 && harness_node >= 0) {
		j->mem_node = harness_node;
		snprintf(j->mem_request, sizeof j->mem_request, "--mem-node %d", harness_node);
	}
	j->thread_node = j->cpu_node >= 0 ? j->cpu_node : harness_node;
	j->home_node = j->initiator ? j->cpu_node : j->buf_node;
	j->worker_node = j->buf_node >= 0 ? j->buf_node : harness_node;
	return 0;
}

static size_t page_size(bool huge) { return huge ? (size_t)2 << 20 : (size_t)sysconf(_SC_PAGESIZE); }

/* nm_mr_alloc with a hook between placement and registration (registration
 * pins the pages, after which they cannot move): --inject misplace moves the
 * page under the first remote slot to another node there. */
static int ops_mr_alloc(ops_job *j, nm_dev *d, bool huge, char *err, size_t errlen)
{
	nm_mr *m = &j->mr;
	memset(m, 0, sizeof *m);
	m->buf = nm_mem_alloc(j->l.total, huge, j->mem_node, &m->alloc_len, err, errlen);
	if (!m->buf)
		return -1;
	m->len = j->l.total;
	m->hugepages = huge;
	m->numa_node = j->mem_node;
	if (j->inject == 3 && j->target) {
		int to = -1;
		for (int i = 0; i < j->view.nnodes && to < 0; i++)
			if (j->view.node[i].id != j->mem_node && j->view.node[i].has_memory)
				to = j->view.node[i].id;
		int got = to >= 0 ? nm_pages_move_one((uint8_t *)m->buf + j->l.data, to) : -ENODEV;
		if (got != to) {
			snprintf(err, errlen, "--inject misplace: cannot move a page of the buffer to NUMA "
				 "node %d: %s", to, got < 0 ? strerror(-got) : "it stayed");
			nm_mem_free(m->buf, m->alloc_len);
			m->buf = NULL;
			return -1;
		}
		j->misplaced_to = to;
	}
	m->mr = ibv_reg_mr(d->pd, m->buf, m->alloc_len, NM_ACCESS_ALL);
	if (!m->mr) {
		snprintf(err, errlen, "ibv_reg_mr(%zu bytes) on %s: %s%s", m->alloc_len, d->name,
			 strerror(errno), errno == ENOMEM || errno == EPERM ? " (raise 'ulimit -l')" : "");
		nm_mem_free(m->buf, m->alloc_len);
		m->buf = NULL;
		return -1;
	}
	nm_pages_census(m->buf, m->alloc_len, page_size(huge), j->mem_node, &j->census[0]);
	return 0;
}

static const char *role_name(const ops_job *j)
{
	return j->initiator && j->target ? "both" : j->initiator ? "initiator" : j->target ? "target" : "idle";
}

/* Every rank's placement record, gathered at rank 0 (numa/record.h). */
static json_t *job_placement(nm_ctx *ctx, ops_job *j, bool *ok, char *first, size_t flen)
{
	nm_cpu_place *cps = calloc((size_t)j->T, sizeof *cps);
	int *ids = calloc((size_t)j->T, sizeof *ids), n = 0;
	for (int t = 0; t < j->T; t++)
		if (j->th[t].nconn) {
			cps[n] = j->th[t].cp;
			ids[n++] = t;
		}
	nm_rank_place rp = {.role = role_name(j), .view = &j->view, .nic = &j->nic,
			    .emulated = ctx->dev->emulated, .mem_request = j->mem_request,
			    .mem_node = j->mem_node, .mem_bytes = j->mr.alloc_len, .census = j->census,
			    .misplaced_to = j->misplaced_to, .qp_node = j->home_node,
			    .qp_policy = j->qp_policy, .threads = cps, .thread_ids = ids, .nthreads = n,
			    .workers = &j->hammer, .worker_node = j->worker_node, .load = j->load_result};
	bool mine_ok;
	char mine_first[600];
	json_t *mine = nm_rank_place_json(ctx->rank, &rp, &mine_ok, mine_first, sizeof mine_first);
	free(cps);
	free(ids);
	return nm_job_place(ctx->rank, ctx->nranks, mine, mine_first, ok, first, flen);
}

static void ops_run(nm_ctx *ctx, const json_t *pt, json_t *out)
{
	ops_job j = {.pt = pt, .rank = ctx->rank, .nranks = ctx->nranks};
	int R = ctx->nranks;
	char err[512];
	uint8_t *m = calloc((size_t)R * R, 1);
	build_matrix(pt, R, m, err, sizeof err); /* validated already */
	j.op = op_code(nm_cfg_str(pt, "op"));
	j.bw = !strcmp(nm_cfg_str(pt, "mode"), "bw");
	j.inject = !strcmp(nm_cfg_str(pt, "inject"), "corrupt") ? 1
		 : !strcmp(nm_cfg_str(pt, "inject"), "rkey") ? 2
		 : !strcmp(nm_cfg_str(pt, "inject"), "misplace") ? 3 : 0;
	j.T = (int)nm_cfg_int(pt, "threads");
	j.Q = (int)nm_cfg_int(pt, "qp");
	j.W = (int)nm_cfg_int(pt, "tx_depth");
	if (j.W == 0)
		j.W = j.bw ? 128 : 1;
	j.batch = j.bw ? (int)nm_cfg_int(pt, "cq_mod") : 1;
	if (j.batch > j.W)
		j.batch = j.W;
	j.iters = (uint64_t)nm_cfg_int(pt, "iters");
	j.duration = nm_cfg_double(pt, "duration");
	int64_t wu = nm_cfg_int(pt, "warmup");
	j.warmup = wu >= 0 ? (uint64_t)wu : j.duration > 0 ? 100 : (j.iters / 10 < 1000 ? j.iters / 10 : 1000);
	j.timeout = nm_cfg_double(pt, "timeout");
	j.interval_ns = (uint64_t)(nm_cfg_double(pt, "interval") * 1e9);
	j.server_workers = (int)nm_cfg_int(pt, "server_workers");
	j.server_op = nm_hammer_op(nm_cfg_str(pt, "server_op"));
	j.server_ratio = nm_cfg_double(pt, "server_write_ratio");
	j.load_threads = (int)nm_cfg_int(pt, "load_threads");
	j.load_buf = nm_cfg_int(pt, "load_buf");
	j.load_mix = nm_cfg_double(pt, "load_mix");
	int targets = 0;
	for (int p = 0; p < R; p++) {
		targets += m[ctx->rank * R + p];
		j.target |= m[p * R + ctx->rank] != 0;
	}
	j.initiator = targets > 0;
	if (ops_place(ctx, pt, &j, out)) {
		free(m);
		return;
	}
	json_t *ptw = json_deep_copy(pt);
	json_object_set_new(ptw, "tx_depth", json_integer(j.W));
	plan(&j.l, ptw, R, targets * j.Q);
	json_decref(ptw);

	/* Memory, pattern for READ targets, then connections. */
	bool huge = nm_cfg_bool(pt, "hugepages");
	int failed = ops_mr_alloc(&j, ctx->dev, huge, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	if (j.op == NM_OP_READ)
		for (int s = 0; s < j.l.nslots; s++)
			fill_pattern((uint8_t *)j.mr.buf + j.l.data + j.l.stride * (size_t)s, j.l.size,
				     read_owner(ctx->rank, s));
	/* With server workers, WRITE slots start out holding what the clients
	 * will write, so the workers' stores (which write the content found
	 * here) keep the clients' read-back checks exact (numa/hammer.h). */
	if (j.op == NM_OP_WRITE && j.server_workers > 0)
		for (int s = 0; s < j.l.nslots; s++)
			fill_pattern((uint8_t *)j.mr.buf + j.l.data + j.l.stride * (size_t)s, j.l.size,
				     write_owner(s));
	nm_mesh_cfg mc = {.nthreads = j.T, .qps = j.Q, .initiates = m};
	mc.qp = ctx->base.qp;
	mc.qp.sq_depth = j.W + 2;
	if (mc.qp.sq_depth > ctx->dev->attr.max_qp_wr)
		mc.qp.sq_depth = ctx->dev->attr.max_qp_wr;
	/* QP and CQ rings (provider and kernel memory) follow the policy of the
	 * thread that creates them: bind it to the rank's home node meanwhile. */
	nm_numa_saved saved;
	failed = nm_numa_bind_thread(j.home_node, &saved, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_numa_policy_str(j.qp_policy, sizeof j.qp_policy);
	nm_mesh_create(&j.mesh, ctx->dev, &mc, &j.mr);
	nm_numa_unbind_thread(&saved);

	/* Local loads on target ranks, running before the clients start and
	 * until every rank has finished (the paper's workers and load process
	 * run from server start-up). */
	uint64_t seed = (uint64_t)nm_cfg_int(pt, "seed") * 1000003u + (uint64_t)ctx->rank;
	failed = j.target && j.load_threads > 0 &&
		 nm_loadproc_start(&j.load, j.load_threads, j.load_node, j.load_buf, j.load_mix, seed,
				   err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	uint64_t *image = NULL;
	failed = 0;
	if (j.target && j.server_workers > 0) {
		/* the slots this rank's initiators access (for two ranks and
		 * --packed 8 B x 8 connections: exactly one cache line, the
		 * paper's 64 B buffer), in whole 8-byte words */
		int first = R, last = -1;
		for (int i = 0; i < R; i++)
			if (m[i * R + ctx->rank]) {
				first = first < i ? first : i;
				last = i;
			}
		size_t per_rank = j.l.stride * (size_t)j.T * (size_t)j.Q;
		size_t lo = ((size_t)first * per_rank) & ~(size_t)7;
		size_t hi = ((size_t)(last + 1) * per_rank + 7) & ~(size_t)7;
		if (hi > j.l.local - j.l.data)
			hi = j.l.local - j.l.data;
		size_t len = hi - lo;
		uint8_t *area = (uint8_t *)j.mr.buf + j.l.data + lo;
		image = malloc(len);
		memcpy(image, area, len);
		nm_hammer_cfg hc = {.threads = j.server_workers, .op = j.server_op,
				    .write_ratio = j.server_ratio, .node = j.worker_node,
				    .cpu_offset = nm_local_rank() * j.T, .random = false,
				    .area = area, .len = len, .image = image,
				    .stride = j.l.stride, .seed = seed};
		failed = nm_hammer_start(&j.hammer, &hc, err, sizeof err);
	}
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);

	j.th = calloc((size_t)j.T, sizeof *j.th);
	j.faa_sent = calloc((size_t)j.T * R, sizeof *j.faa_sent);
	int *cpus = calloc((size_t)j.T, sizeof *cpus);
	nm_round rd = {.workers = j.T, .numa_node = j.thread_node, .setup = thread_setup, .body = thread_body,
		       .arg = &j, .cpus = cpus};
	nm_workers_run(&rd);
	/* nm_workers_run returns once every rank's threads are done */
	if (j.server_workers > 0 || j.load_threads > 0) {
		nm_hammer_stop(&j.hammer);
		if (j.load.pid > 0 && !(j.load_result = nm_loadproc_stop(&j.load, err, sizeof err)))
			failed = 1;
		nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	}
	free(image);
	nm_pages_census(j.mr.buf, j.mr.alloc_len, page_size(huge), j.mem_node, &j.census[1]);
	/* server workers' and load's work, summed over target ranks */
	double sw_secs = nm_hammer_seconds(&j.hammer);
	uint64_t local_load[5] = {
		nm_hammer_ops(&j.hammer),
		sw_secs > 0 ? (uint64_t)((double)nm_hammer_ops(&j.hammer) / sw_secs) : 0,
		(uint64_t)json_integer_value(json_object_get(j.load_result, "ops")),
		(uint64_t)json_number_value(json_object_get(j.load_result, "ops_per_sec")),
		j.target ? (uint64_t)j.server_workers : 0,
	};
	nm_boot_sum_u64_array(local_load, 5);
	bool place_ok = true;
	char place_err[600];
	json_t *placement = job_placement(ctx, &j, &place_ok, place_err, sizeof place_err);

	/* Gather: counts, FAA totals per target, histograms, series. */
	nm_hist h;
	nm_hist_init(&h);
	nm_series series;
	nm_series_init(&series, j.interval_ns, SERIES_CAP);
	uint64_t sums[4] = {0}, max_elapsed = 0, *faa = calloc((size_t)R, sizeof *faa);
	char first_error[320] = "";
	for (int t = 0; t < j.T; t++) {
		ops_thread *th = &j.th[t];
		nm_hist_merge(&h, &th->hist);
		nm_series_merge(&series, &th->series);
		sums[0] += th->measured;
		sums[1] += th->total;
		sums[2] += th->checked;
		sums[3] += th->mismatches;
		if (th->elapsed_ns > max_elapsed)
			max_elapsed = th->elapsed_ns;
		if (th->mismatches && !*first_error)
			snprintf(first_error, sizeof first_error, "rank %d thread %d: %s", ctx->rank, t,
				 th->first_error);
		for (int p = 0; p < R; p++)
			faa[p] += j.faa_sent[(size_t)t * R + p];
	}
	nm_boot_sum_u64_array(sums, 4);
	nm_boot_sum_u64_array(faa, (size_t)R);
	max_elapsed = nm_boot_max_u64(max_elapsed);
	uint64_t counter = *(volatile uint64_t *)j.mr.buf;
	uint64_t faa_bad = j.op == NM_OP_FAA && counter != faa[ctx->rank];
	if (faa_bad && !*first_error)
		snprintf(first_error, sizeof first_error, "rank %d: FAA counter holds %" PRIu64
			 ", expected %" PRIu64, ctx->rank, counter, faa[ctx->rank]);
	faa_bad = nm_boot_sum_u64(faa_bad);
	uint64_t faa_total = 0;
	for (int p = 0; p < R; p++)
		faa_total += faa[p];
	nm_boot_sum_u64_array(series.ops, SERIES_CAP);
	series.used = (size_t)nm_boot_max_u64(series.used);
	char **errs = nm_boot_gather_str(first_error, 0);
	nm_boot_hist_merge(&h);
	uint32_t granted_inline = 0;
	for (int t = 0; t < j.T && !granted_inline; t++)
		for (int i = 0; i < j.th[t].nconn; i++)
			granted_inline = j.th[t].cs[i].c->max_inline;
	json_t *cpu_json = json_array();
	for (int t = 0; t < j.T; t++)
		json_array_append_new(cpu_json, json_integer(cpus[t]));
	char *cpu_str = json_dumps(cpu_json, JSON_COMPACT);
	char **cpu_all = nm_boot_gather_str(cpu_str, 0);
	free(cpu_str);
	json_decref(cpu_json);

	if (ctx->rank == 0) {
		double secs = (double)max_elapsed / 1e9;
		double ops_s = secs > 0 ? (double)sums[0] / secs : 0;
		bool ok = sums[3] == 0 && !faa_bad && sums[0] > 0 && place_ok;
		const char *first = "";
		for (int r = 0; r < R && !*first; r++)
			first = errs[r];
		if (!*first && !place_ok)
			first = place_err;
		json_t *checks = json_pack("{s:{s:I, s:I, s:b}, s:{s:I, s:b}}", "data", "checked",
					   (json_int_t)sums[2], "mismatches", (json_int_t)sums[3], "ok",
					   sums[3] == 0, "measured", "ops", (json_int_t)sums[0], "ok",
					   sums[0] > 0);
		if (j.op == NM_OP_FAA)
			json_object_set_new(checks, "faa_counters",
					    json_pack("{s:I, s:I, s:b}", "total_added", (json_int_t)faa_total,
						      "targets_wrong", (json_int_t)faa_bad, "ok", !faa_bad));
		json_object_set_new(checks, "placement",
				    json_pack("{s:b, s:s?}", "ok", place_ok, "first_error",
					      place_ok ? NULL : place_err));
		if (*first)
			json_object_set_new(checks, "first_error", json_string(first));
		json_t *ser = json_array();
		for (size_t i = 0; i < series.used; i++)
			json_array_append_new(ser, json_real((double)series.ops[i] /
							     ((double)j.interval_ns / 1e9)));
		json_t *cpus_by_rank = json_array();
		for (int r = 0; r < R; r++) {
			json_array_append_new(cpus_by_rank, json_loads(cpu_all[r], 0, NULL));
			free(cpu_all[r]);
		}
		json_t *metrics = json_pack(
			"{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:{s:f, s:o}}",
			"ops", (json_int_t)sums[0], "ops_with_warmup", (json_int_t)sums[1],
			"seconds", secs, "ops_per_sec", ops_s, "mops", ops_s / 1e6,
			"mib_per_sec", ops_s * (double)j.l.size / 1048576.0,
			"gbit_per_sec", ops_s * (double)j.l.size * 8 / 1e9,
			"lat", nm_hist_summary_json(&h), "lat_cdf", nm_hist_cdf_json(&h),
			"throughput_series", "interval_s", (double)j.interval_ns / 1e9,
			"ops_per_sec", ser);
		if (j.server_workers > 0)
			json_object_set_new(metrics, "server_workers",
					    json_pack("{s:I, s:s, s:I, s:I}", "threads", (json_int_t)local_load[4],
						      "op", nm_hammer_op_name(j.server_op), "ops",
						      (json_int_t)local_load[0], "ops_per_sec",
						      (json_int_t)local_load[1]));
		if (j.load_threads > 0)
			json_object_set_new(metrics, "load",
					    json_pack("{s:I, s:I}", "ops", (json_int_t)local_load[2],
						      "ops_per_sec", (json_int_t)local_load[3]));
		json_object_set_new(out, "valid", json_boolean(ok));
		json_object_set_new(out, "placement", placement);
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics", metrics);
		json_object_set_new(out, "effective",
				    json_pack("{s:i, s:i, s:I, s:I, s:i, s:o}", "tx_depth", j.W, "cq_mod",
					      j.batch, "warmup", (json_int_t)j.warmup, "size",
					      (json_int_t)j.l.size, "inline_size",
					      (int)granted_inline, "cpus",
					      cpus_by_rank));
		json_object_set_new(json_object_get(out, "effective"), "slot_stride",
				    json_integer((json_int_t)j.l.stride));
		for (int r = 0; r < R; r++)
			free(errs[r]);
		free(errs);
		free(cpu_all);
	}
	for (int t = 0; t < j.T; t++) {
		for (int i = 0; i < j.th[t].nconn; i++)
			free(j.th[t].cs[i].fifo);
		free(j.th[t].cs);
		nm_series_free(&j.th[t].series);
	}
	nm_series_free(&series);
	nm_hammer_free(&j.hammer);
	json_decref(j.load_result);
	free(j.th);
	free(j.faa_sent);
	free(faa);
	free(cpus);
	free(m);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
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

static int ops_validate_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	(void)out;
	return ops_validate(pt, b->nranks, err, len);
}

static void ops_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	(void)point;
	ops_run(ctx, ctx->pt, out);
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
	.opts = ops_opts,
	.min_ranks = 1,
	.decode = ops_validate_decode,
	.run = ops_run_point,
	.report = ops_report,
};
NM_EXPERIMENT(ops_experiment)
