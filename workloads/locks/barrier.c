/* netmem barrier: barrier latency vs node count, LOCO's Fig. 1b program
 * (TEST_ITERS times: t0 = now; barrier; t1 = now; record t1 - t0), for
 *   sst  LOCO's SST barrier of Fig. 1a over raw verbs
 *        (primitives/loco/barrier.h)
 *   mpi  MPI_Barrier on a communicator of the same ranks (the baseline; the
 *        only place MPI runs inside a measured loop in this file)
 * with the first --nodes K ranks of the job taking part; the others sit the
 * point out. One process per node as in LOCO; every participant measures.
 *
 * The fence (sst), issued before each episode's push (primitives/loco/barrier.h
 * says what each guarantees): --fence read, the default and LOCO's, its
 * global fence: a zero-length RDMA READ on each QP with WRITEs since the
 * last fence (in back-to-back barriers one per peer, behind the previous
 * pushes), waited for. --fence ack, LOCO's cheaper pair-only fence: waits
 * for the previous pushes' own completions, usually already in, so no round
 * trip. The barrier's exit condition needs neither, and the epoch check
 * (CPU-stored records pulled on other QPs) holds for both.
 *
 * Correctness (a failure marks the point invalid):
 *   epoch    before entering episode k a rank stores the record {k, rank} in
 *            an owned_var of its own (a CPU store); after leaving episode k,
 *            outside the timed section, it RDMA-READs every other
 *            participant's record and requires k <= entered <= k + 1:
 *            below k, it left episode k before that rank entered it; above
 *            k + 1, that rank left episode k + 1 before this one entered it.
 *            The record is 16 bytes, so it travels with its checksum and
 *            the reads that overlap a store are retried (and counted).
 *            Where it runs: after each of --validate barriers (default 100)
 *            that follow the measured loop on every point, unmeasured, with
 *            the same participants, impl and fence; and inside the measured
 *            loop only with --check-every N (after every Nth barrier and the
 *            last; default 0, none), because there it puts K-1 READs between
 *            two timed barriers and adds arrival skew to the next one.
 *   finished every participant adds 1 to an atomic_var hosted by rank 0
 *            (RDMA FAA; rank 0 through its loopback QP) after its loop; rank
 *            0 reads it back and requires exactly K.
 * --inject no-wait breaks the barrier on purpose (rank 0 leaves every episode
 * without waiting for anyone: for sst it skips the spin; for mpi every
 * participant uses MPI_Ibarrier, since a nonblocking collective does not
 * match a blocking one, and rank 0 waits for its requests only after the
 * loop; the others enter each episode only once rank 0 has left it, by a
 * handshake, wait_rank0_ahead), so the epoch check must report violations
 * and the point must come out invalid; the validation phase alone catches
 * it.
 *
 * Decisions the paper leaves open (and what we chose):
 *  - TEST_ITERS is --iters (default 1000). Fig. 1b has no warm-up; we run
 *    --warmup barriers first (the harness's rule: iters/10, at most 1000),
 *    not recorded.
 *  - Statistic: Fig. 1b prints one node's average. We record every
 *    participant's per-iteration latency in one histogram (K x iters
 *    samples; lat.p50 is what the figure plots) and each rank's mean in
 *    lat_mean_by_rank.
 *  - Clock: the harness's nm_ticks (invariant TSC where available) instead
 *    of clock_gettime; both ends on the same core.
 *  - Who calls: the rank's main thread, pinned for the loop to the core its
 *    first worker would get (then unpinned). It has to be the main thread:
 *    the harness initialises MPI as FUNNELED, so only it may call
 *    MPI_Barrier, and the SST barrier runs on the same kind of thread so the
 *    two compare.
 *  - QPs: every participant initiates to every other participant (no
 *    loopback: the SST never writes its own row remotely), plus rank 0 to
 *    itself (the finished counter); sitting-out ranks have none. Two QPs
 *    per pair, in two mesh threads so that each has a CQ of its own: thread
 *    0 carries only the barrier (pushes and fences), thread 1 the checks and
 *    bookkeeping. Keeping the check's READs off the barrier's QP matters: a
 *    READ completing there would also retire the last push, the next fence
 *    would find nothing to do, and the barrier measured would not be Fig.
 *    1a's; the separate CQ lets the ack fence's completions wait there
 *    across the check. The mpi points build the same mesh (the check needs
 *    it); its QPs are idle during MPI_Barrier.
 *  - Start: all ranks leave an MPI barrier right before the loop, and the
 *    measured barriers begin at the harness's common start after the
 *    warm-up (harness/measure.h), which sitting-out ranks join too. Every
 *    participant runs warm-up + iters + validate barriers, so the SST rows
 *    and the MPI communicator's collectives line up.
 *  - Sitting-out ranks wait in the harness's idle barrier (naps growing to
 *    16 ms) for the participants to finish, so they take no CPU from
 *    participants sharing their host, and a participant that stops (a
 *    SIGSTOP, a hung node) ends the job within --timeout, with the line
 *    naming it, as any stalled collective does (harness/boot.h). For that
 *    the participants tell the other ranks they are alive while they loop:
 *    nm_boot_alive between barriers, outside the timed section, at most
 *    every 10 ms, timed by the clock reads the loop makes anyway.
 *  - Spinning: pure spin as Fig. 1a, except that when a host has more
 *    participants than CPUs (a Soft-RoCE VM) the SST spin yields the CPU
 *    every 64 rounds (--yield auto; on/off force it): a pure spin there
 *    keeps the rank it waits for off the CPU for whole scheduler slices.
 *    OpenMPI does the same for its own waits when it knows it is
 *    oversubscribed. effective.yield says which was used.
 *  - MPI transport: MPI_Barrier uses whatever MPI picks. With every
 *    participant on one host (the Soft-RoCE VM) that is shared memory, not
 *    RDMA, so sst vs mpi there is not RDMA vs RDMA; effective.mpi_transport
 *    says so on every mpi point.
 *
 * Memory of each rank, one registered region (same offsets everywhere):
 *   [0, 64)          finished counter (atomic_var, host rank 0)
 *   [64, 192)        registered scratch of the two chans
 *   [192, +64 R)     entered records, one owned_var per rank
 *   [.., +64 K)      the barrier's SST rows
 */
#include "alloc.h"
#include "atomic_var.h"
#include "barrier.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "hosts.h"
#include "log.h"
#include "mesh.h"
#include "owned_var.h"
#include "rdma.h"
#include "stall.h"
#include "topo.h"
#include "workers.h"
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const nm_opt barrier_opts[] = {
	{"impl", 0, NM_OPT_ENUM, "sst,mpi", 0, 0, "sst,mpi", NM_OPT_LIST,
	 "sst: LOCO's SST barrier over RDMA; mpi: MPI_Barrier (baseline)"},
	{"nodes", 0, NM_OPT_INT, "0", 0, 1e6, NULL, NM_OPT_LIST,
	 "ranks taking part: the first K of the job (0: all)"},
	NM_OPT_ITERS("1000", "barriers (LOCO's TEST_ITERS)"),
	NM_OPT_WARMUP("barriers"),
	{"fence", 0, NM_OPT_ENUM, "read", 0, 0, "read,ack", NM_OPT_LIST,
	 "sst: fence before each push: read (LOCO's global fence, a zero-length READ per peer) or "
	 "ack (pair-only: wait for the previous pushes' completions); no effect on mpi"},
	{"validate", 0, NM_OPT_INT, "100", 0, 1e9, NULL, 0,
	 "unmeasured barriers after the measured loop, each followed by the epoch check"},
	{"check-every", 0, NM_OPT_INT, "0", 0, 1e10, NULL, 0,
	 "epoch check inside the measured loop after every Nth barrier and the last (0: none; each "
	 "adds K-1 READs between two timed barriers)"},
	{"yield", 0, NM_OPT_ENUM, "auto", 0, 0, "auto,on,off", 0,
	 "SST spin yields the CPU every 64 rounds (auto: when a host has more participants than CPUs)"},
	NM_OPT_INJECT("none,no-wait",
	 "testing the check: no-wait makes rank 0 leave every barrier without waiting (the point "
	 "must come out invalid)"),
	NM_OPT_END,
};

typedef enum { IMPL_SST, IMPL_MPI } barrier_impl;

/* One point, decoded once. */
typedef struct barrier_point {
	barrier_impl impl;
	int nodes;               /* K, resolved */
	nm_fence_kind fence;
	uint64_t every;          /* check inside the measured loop; 0: none */
	uint64_t validate;       /* checked barriers after it */
	nm_yield_mode yield;
	bool inject;             /* no-wait */
} barrier_point;

static int barrier_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	barrier_point *p = out;
	int64_t k = nm_cfg_int(pt, "nodes");
	*p = (barrier_point){
		.impl = !strcmp(nm_cfg_str(pt, "impl"), "sst") ? IMPL_SST : IMPL_MPI,
		.nodes = k == 0 ? b->nranks : (int)k,
		.fence = !strcmp(nm_cfg_str(pt, "fence"), "ack") ? NM_FENCE_ACK : NM_FENCE_READ,
		.every = (uint64_t)nm_cfg_int(pt, "check_every"),
		.validate = (uint64_t)nm_cfg_int(pt, "validate"),
		.yield = nm_yield_parse(nm_cfg_str(pt, "yield")),
		.inject = !strcmp(nm_cfg_str(pt, "inject"), "no-wait"),
	};
	if (k > b->nranks) {
		snprintf(err, len, "option --nodes: %" PRId64 " ranks cannot take part, the job has %d "
			 "(start it with mpirun -np %" PRId64 ", or use --nodes 0 for all)", k, b->nranks, k);
		return -1;
	}
	if (b->threads != 1) {
		snprintf(err, len, "barrier has one caller per rank (LOCO's single-threaded barrier); "
			 "--threads %d does not apply", b->threads);
		return -1;
	}
	if (p->every == 0 && p->validate == 0) {
		snprintf(err, len, "--validate 0 with --check-every 0 would leave the barrier unchecked: "
			 "give --validate > 0 or --check-every N");
		return -1;
	}
	if (p->inject && p->nodes < 2) {
		snprintf(err, len, "--inject %s needs at least 2 ranks taking part (it breaks the "
			 "barrier between rank 0 and the others)", nm_cfg_str(pt, "inject"));
		return -1;
	}
	return 0;
}

#define OFF_DONE 0
#define OFF_SCRATCH 64
#define OFF_ENTERED 192
#define REC_STRIDE 64
#define YIELD_SPINS 64

/* The tally: entered records checked and violations found, in the measured
 * loop (warm-up included) and in the validation phase; torn reads retried;
 * fences and barriers of the measured loop on the SST path; and (rank 0)
 * the finished counter read back. The meter's errors are all violations. */
enum { C_CHECKED, C_VIOLATIONS, C_VCHECKED, C_VVIOLATIONS, C_TORN, C_FENCES, C_BARRIERS, C_FINISHED, C_N };
static const nm_counter barrier_counters[C_N] = {
	[C_CHECKED] = {"checked", 0}, [C_VIOLATIONS] = {"violations", 0},
	[C_VCHECKED] = {"validation_checked", 0}, [C_VVIOLATIONS] = {"validation_violations", 0},
	[C_TORN] = {"torn_reads_retried", 0}, [C_FENCES] = {"fences", 0}, [C_BARRIERS] = {"barriers", 0},
	[C_FINISHED] = {"finished", 0},
};

/* Where an epoch check runs, and so which counters it adds to. */
typedef enum { PHASE_LOOP, PHASE_VALIDATION } check_phase;

typedef struct rec {
	uint64_t episode;   /* last episode entered */
	uint64_t rank;      /* owner, so a READ of the wrong slot or node shows */
} rec;

typedef struct bjob {
	const barrier_point *p;
	int rank, R, K;
	bool part, sst;
	nm_mr mr;
	nm_mesh mesh;
	nm_poller pl, plc;     /* the two mesh threads' CQs */
	nm_chan cb, cc;        /* barrier (mesh thread 0), checks (mesh thread 1) */
	nm_av done;
	nm_ov *entered;        /* [R] */
	const nm_ov **vs;      /* [K] epoch check: records to pull, */
	void **outs;           /* where they go, */
	rec *recs;             /* and the values */
	nm_barrier bar;
	MPI_Comm sub;
	nm_meter *m;           /* this rank's (participants) */
	uint64_t last;         /* the last episode (validation included) */
	double timeout;        /* --timeout, for the injected fault's handshake */
	uint64_t beat, beat_every;  /* ticks: next nm_boot_alive, and the spacing */
} bjob;

/* After leaving episode k (unmeasured): every other participant must have
 * entered k and not yet left k + 1. */
static void epoch_check(bjob *j, uint64_t k, check_phase phase)
{
	int n = 0;
	for (int p = 0; p < j->K; p++)
		if (p != j->rank) {
			j->vs[n] = &j->entered[p];
			j->outs[n] = &j->recs[p];
			n++;
		}
	uint64_t torn0 = j->cc.torn_retries, errors0 = j->m->err.count;
	nm_ov_pull_many(&j->cc, j->vs, j->outs, n);
	j->m->c[C_TORN] += j->cc.torn_retries - torn0;
	for (int p = 0; p < j->K; p++) {
		if (p == j->rank)
			continue;
		const rec *r = &j->recs[p];
		if (r->rank != (uint64_t)p)
			nm_error_note(&j->m->err, "rank %d: the entered record read from rank %d names rank %" PRIu64,
				      j->rank, p, r->rank);
		else if (r->episode < k)
			nm_error_note(&j->m->err, "rank %d left episode %" PRIu64 " while rank %d had entered only "
				      "episode %" PRIu64, j->rank, k, p, r->episode);
		else if (r->episode > k + 1)
			nm_error_note(&j->m->err, "rank %d entered episode %" PRIu64 " while rank %d had not left "
				      "episode %" PRIu64 " (so rank %d left episode %" PRIu64 " before rank %d "
				      "entered it)", p, r->episode, j->rank, k, p, r->episode - 1, j->rank);
	}
	bool loop = phase == PHASE_LOOP;
	j->m->c[loop ? C_CHECKED : C_VCHECKED] += (uint64_t)n;
	j->m->c[loop ? C_VIOLATIONS : C_VVIOLATIONS] += j->m->err.count - errors0;
}

/* --inject no-wait: the others enter episode k only once rank 0 has
 * entered k + 1, that is left k without waiting and checked it (its epoch
 * check runs before it enters the next episode), so the check sees the
 * fault on every run, whatever the schedule. The last episode has no next
 * to wait for. */
static void wait_rank0_ahead(bjob *j, uint64_t k)
{
	if (k >= j->last)
		return;
	const nm_ov *v = &j->entered[0];
	void *out = &j->recs[0];
	nm_wait w;
	/* progress: rank 0's record moving at all */
	nm_wait_start(&w, (double)nm_now_ns() / 1e9, j->timeout, 0);
	for (;;) {
		nm_ov_pull_many(&j->cc, &v, &out, 1);
		if (j->recs[0].rank == 0 && j->recs[0].episode > k)
			return;
		double now = (double)nm_now_ns() / 1e9;
		if (nm_wait_expired(&w, now, j->recs[0].episode))
			nm_stalled("rank 0's entered record (barrier --inject no-wait)", now - w.t0,
				   "rank 0 last entered episode %" PRIu64 ", this rank waits for it to enter %" PRIu64,
				   j->recs[0].episode, k + 1);
		nm_boot_alive();   /* waiting for rank 0 is not a stall of this rank */
		sched_yield();
	}
}

/* Entering episode k: the record the epoch check reads. */
static void enter(bjob *j, uint64_t k)
{
	if (j->p->inject && j->rank != 0)
		wait_rank0_ahead(j, k);
	rec mine = {.episode = k, .rank = (uint64_t)j->rank};
	nm_ov_store(&j->entered[j->rank], &j->mr, &mine);
}

/* Between barriers, outside the timed section: the other ranks (those
 * sitting out wait in a collective) hear that this one is alive. t: the
 * ticks the loop read last. */
static inline void alive(bjob *j, uint64_t t)
{
	if (t >= j->beat) {
		j->beat = t + j->beat_every;
		nm_boot_alive();
	}
}

/* One episode: the barrier under test. */
static void one_barrier(bjob *j, uint64_t k, MPI_Request *reqs, bool ibarrier)
{
	MPI_Request one;
	if (j->sst)
		nm_barrier_wait(&j->bar, &j->cb);
	else if (ibarrier && j->rank == 0)
		MPI_Ibarrier(j->sub, &reqs[k - 1]);
	else if (ibarrier)
		MPI_Ibarrier(j->sub, &one), MPI_Wait(&one, MPI_STATUS_IGNORE);
	else
		MPI_Barrier(j->sub);
}

/* Warm-up and measured barriers (total), then the validation phase: the
 * same barrier, unmeasured, each followed by the epoch check. */
static void participant_loop(bjob *j)
{
	const barrier_point *p = j->p;
	uint64_t total = j->m->ms->cfg.warmup + j->m->ms->cfg.iters, all = total + p->validate;
	/* Injected fault, mpi: rank 0 does not wait for its barriers. It must
	 * use MPI_Ibarrier, and then so must everyone, because blocking and
	 * nonblocking collectives do not match each other (MPI-3.1 5.12); the
	 * others wait for theirs at once. */
	bool ibarrier = !j->sst && p->inject;
	j->last = all;
	MPI_Request *reqs = ibarrier && j->rank == 0 ? nm_calloc(all, sizeof *reqs) : NULL;
	if (j->sst && p->inject && j->rank == 0)
		j->bar.no_wait = true;
	uint64_t fences0 = j->cb.fences;

	nm_loop lp;
	nm_loop_init(&lp, j->m);
	while (nm_loop_next(&lp)) {
		uint64_t k = lp.i;
		enter(j, k);
		uint64_t t0 = nm_ticks();
		one_barrier(j, k, reqs, ibarrier);
		uint64_t t1 = nm_ticks();
		nm_loop_done(&lp, t0, t1);
		if (p->every && (k % p->every == 0 || k == total))
			epoch_check(j, k, PHASE_LOOP);
		alive(j, t1);
	}
	j->m->c[C_BARRIERS] = total;
	j->m->c[C_FENCES] = j->cb.fences - fences0;
	for (uint64_t k = total + 1; k <= all; k++) {
		enter(j, k);
		one_barrier(j, k, reqs, ibarrier);
		epoch_check(j, k, PHASE_VALIDATION);
		alive(j, nm_ticks());
	}
	if (j->sst)
		nm_chan_fence(&j->cb);   /* place the last pushes before teardown */
	if (reqs)
		MPI_Waitall((int)all, reqs, MPI_STATUSES_IGNORE);
	free(reqs);
}

/* Mesh: participants all-to-all, rank 0 to itself (finished counter). */
static uint8_t *initiates(int R, int K)
{
	uint8_t *m = nm_calloc((size_t)R * R, 1);
	for (int i = 0; i < K; i++)
		for (int p = 0; p < K; p++)
			m[i * R + p] = i != p;
	m[0] = 1;
	return m;
}

/* The registered bytes and the mesh, for the set-up and for netmem
 * preflight (barrier_needs) alike: the records of R ranks, then the SST of
 * K participants. */
static size_t barrier_mr_len(int R, int K)
{
	return (OFF_ENTERED + REC_STRIDE * (size_t)R + nm_barrier_bytes(K) + 4095) & ~(size_t)4095;
}

/* Two mesh threads: the barrier's chan and the finished count's, each on a
 * CQ of its own. */
static nm_mesh_cfg barrier_mesh_cfg(const uint8_t *m, const nm_base *b)
{
	nm_mesh_cfg mc = {.nthreads = 2, .qps = 1, .initiates = m, .qp = b->qp};
	mc.qp.sq_depth = 64;
	return mc;
}

static void barrier_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	const barrier_point *p = point;
	nm_mr_needs(n, barrier_mr_len(nranks, p->nodes), b->hugepages, false);
	uint8_t *m = initiates(nranks, p->nodes);
	nm_mesh_cfg mc = barrier_mesh_cfg(m, b);
	nm_mesh_needs(&mc, rank, nranks, n);
	free(m);
	n->atomics = true;  /* the finished count is an FAA */
}

/* Memory (every variable initialised before any peer can reach it), the
 * mesh and the two chans, each on a mesh thread (a CQ) of its own. */
static void barrier_setup(nm_ctx *ctx, bjob *j)
{
	char err[512];
	int R = j->R;
	size_t off_sst = OFF_ENTERED + REC_STRIDE * (size_t)R, total = barrier_mr_len(R, j->K);
	int failed = nm_mr_alloc(ctx->dev, &j->mr, total, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(j->mr.buf, 0, total);
	nm_av_init(&j->done, &j->mr, OFF_DONE, 0, j->rank, 0);
	j->entered = nm_calloc((size_t)R, sizeof *j->entered);
	for (int r = 0; r < R; r++) {
		rec none = {.episode = 0, .rank = (uint64_t)r};
		nm_ov_init(&j->entered[r], &j->mr, OFF_ENTERED + REC_STRIDE * (size_t)r, sizeof(rec), r, j->rank,
			   &none);
	}
	if (j->part)
		nm_barrier_init(&j->bar, &j->mr, off_sst, j->K, j->rank);
	uint8_t *m = initiates(R, j->K);
	nm_mesh_cfg mc = barrier_mesh_cfg(m, &ctx->base);
	nm_mesh_create(&j->mesh, ctx->dev, &mc, &j->mr);
	free(m);
	nm_poller_init(&j->pl, &j->mesh, 0, ctx->base.timeout);
	nm_poller_init(&j->plc, &j->mesh, 1, ctx->base.timeout);
	uint64_t *scratch = (uint64_t *)((uint8_t *)j->mr.buf + OFF_SCRATCH);
	nm_chan_init(&j->cb, &j->mesh, &j->mr, &j->pl, 0, 0, scratch, (uint32_t)mc.qp.sq_depth);
	nm_chan_init(&j->cc, &j->mesh, &j->mr, &j->plc, 1, 0, scratch + 8, (uint32_t)mc.qp.sq_depth);
	j->cb.fence = j->p->fence;
	j->vs = nm_calloc((size_t)j->K, sizeof *j->vs);
	j->outs = nm_calloc((size_t)j->K, sizeof *j->outs);
	j->recs = nm_calloc((size_t)j->K, sizeof *j->recs);
	if (!j->sst)
		MPI_Comm_split(MPI_COMM_WORLD, j->part ? 0 : MPI_UNDEFINED, j->rank, &j->sub);
}

/* A participant: the loop on the main thread, pinned meanwhile to the core
 * its first worker would get; then the finished count. */
static void participate(bjob *j, int mem_node)
{
	cpu_set_t saved;
	bool have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
	j->m->cpu = nm_topo_pick_cpu(nm_local_rank(), mem_node);
	if (j->m->cpu >= 0 && nm_topo_pin_self(j->m->cpu) != 0)
		j->m->cpu = -1;
	j->beat_every = nm_ns_to_ticks(10 * 1000 * 1000);
	j->beat = nm_ticks() + j->beat_every;
	nm_boot_barrier();
	participant_loop(j);
	if (have_saved)
		pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
	nm_av_faa(&j->cc, &j->done, 1);
	/* Every FAA completed before its rank reached this barrier. */
	nm_boot_barrier();
}

/* A rank that sits out joins the start collectives, then waits for the
 * participants in the idle barrier that ends their loop: asleep, and ending
 * the job if one of them stops (harness/boot.h). */
static void sit_out(nm_measure *ms)
{
	nm_boot_barrier();
	nm_measure_sit_out(ms);
	nm_boot_barrier_idle();
}

/* checks: the epoch check's records and violations, in total and by where
 * they ran; the finished count; the first violation. */
static json_t *checks_json(const bjob *j, const nm_measure *ms, bool epoch_ok, bool finish_ok)
{
	const uint64_t *c = ms->total_c;
	json_t *checks = json_pack(
		"{s:{s:b, s:I, s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}, s:I}, s:{s:i, s:I, s:b}}", "epoch",
		"ok", epoch_ok, "checked", (json_int_t)(c[C_CHECKED] + c[C_VCHECKED]), "violations",
		(json_int_t)ms->errors, "measured_loop", "every", (json_int_t)j->p->every, "checked",
		(json_int_t)c[C_CHECKED], "violations", (json_int_t)c[C_VIOLATIONS], "validation", "barriers",
		(json_int_t)j->p->validate, "checked", (json_int_t)c[C_VCHECKED], "violations",
		(json_int_t)c[C_VVIOLATIONS], "torn_reads_retried", (json_int_t)c[C_TORN], "finished", "expected",
		j->K, "counted", (json_int_t)c[C_FINISHED], "ok", finish_ok);
	if (ms->first_error[0])
		json_object_set_new(checks, "first_error", json_string(ms->first_error));
	return checks;
}

static const char *const fence_said[] = {
	[NM_FENCE_READ] = "read: a zero-length RDMA READ on each QP with WRITEs since the last fence, "
			  "waited for (LOCO's global fence: every earlier WRITE placed at its target)",
	[NM_FENCE_ACK] = "ack: waits for the completions of the WRITEs since the last fence (LOCO's "
			 "pair-only fence: acknowledged, in order on their QP, not necessarily placed)",
};

static json_t *effective_json(nm_ctx *ctx, const bjob *j, const nm_measure *ms, bool yield, json_t *cpus)
{
	const uint64_t *c = ms->total_c;
	int hosts = nm_hosts_distinct(nm_boot_hosts(), j->K);
	json_t *eff = json_pack("{s:i, s:i, s:I, s:b, s:i, s:o}", "nodes", j->K, "ranks", j->R, "warmup",
				(json_int_t)ms->cfg.warmup, "yield", j->sst && yield, "hosts", hosts, "cpus", cpus);
	if (j->sst) {
		json_object_set_new(eff, "fence", json_string(fence_said[j->p->fence]));
		json_object_set_new(eff, "fences_per_barrier", json_real(c[C_BARRIERS] ? (double)c[C_FENCES] /
									 (double)c[C_BARRIERS] : 0));
		json_object_set_new(eff, "transport", json_string(ctx->dev->emulated ? "RDMA over Soft-RoCE (emulated)"
										      : "RDMA"));
	} else {
		json_object_set_new(eff, "mpi_transport",
				    json_string(hosts == 1 ? "shared memory inside one host (not RDMA): every "
							     "participant runs on the same host"
							   : "MPI's inter-node transport (whatever the MPI library "
							     "picked; see meta.runs[].software.mpi)"));
	}
	return eff;
}

static void barrier_result(nm_ctx *ctx, const bjob *j, const nm_measure *ms, bool yield, json_t *out)
{
	const uint64_t *c = ms->total_c;
	bool epoch_ok = ms->errors == 0 && (c[C_CHECKED] + c[C_VCHECKED] > 0 || j->K == 1);
	bool finish_ok = c[C_FINISHED] == (uint64_t)j->K;
	bool ok = epoch_ok && finish_ok && ms->ops == (uint64_t)j->K * ms->cfg.iters;
	json_t *metrics = nm_measure_metrics(ms), *means = json_array(), *cpus = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(ms->per_thread, i, t) {
		json_array_append(means, json_object_get(t, "lat_mean_us"));
		json_array_append(cpus, json_object_get(t, "cpu"));
	}
	json_object_set_new(metrics, "iterations", json_integer((json_int_t)ms->cfg.iters));
	json_object_set_new(metrics, "samples", json_integer((json_int_t)ms->ops));
	json_object_set_new(metrics, "lat_mean_by_rank", means);
	json_object_set_new(out, "valid", json_boolean(ok));
	json_object_set_new(out, "checks", checks_json(j, ms, epoch_ok, finish_ok));
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective", effective_json(ctx, j, ms, yield, cpus));
}

/* What barrier_setup allocated, in reverse order. */
static void barrier_teardown(bjob *j)
{
	if (j->sub != MPI_COMM_NULL)
		MPI_Comm_free(&j->sub);
	free(j->vs);
	free(j->outs);
	free(j->recs);
	nm_chan_free(&j->cb);
	nm_chan_free(&j->cc);
	nm_mesh_destroy(&j->mesh);
	if (j->part)
		nm_barrier_free(&j->bar);
	free(j->entered);
	nm_mr_free(&j->mr);
}

static void barrier_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const barrier_point *p = point;
	bjob j = {.p = p, .rank = ctx->rank, .R = ctx->nranks, .K = p->nodes, .sst = p->impl == IMPL_SST,
		  .sub = MPI_COMM_NULL, .timeout = ctx->base.timeout};
	j.part = j.rank < j.K;
	barrier_setup(ctx, &j);
	bool yield = nm_yield_wanted(j.p->yield, nm_boot_hosts(), j.K, j.rank,
				     (int)sysconf(_SC_NPROCESSORS_ONLN));
	if (j.part && j.sst)
		j.bar.yield_spins = yield ? YIELD_SPINS : 0;

	static const nm_measure_def def = {NULL, barrier_counters, C_N};
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, j.part ? 1 : 0);
	j.m = j.part ? nm_meter_of(ms, 0) : NULL;
	if (j.part)
		participate(&j, ctx->base.mem_node);
	else
		sit_out(ms);
	if (j.rank == 0)
		ms->rank_c[C_FINISHED] = nm_av_load(&j.cc, &j.done);
	nm_measure_gather(ms);
	if (ctx->rank == 0)
		barrier_result(ctx, &j, ms, yield, out);
	nm_measure_free(ms);
	barrier_teardown(&j);
}

static void barrier_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	const json_t *eff = json_object_get(res, "effective");
	const char *valid = nm_point_verdict(res);
#define L(k) json_real_value(json_object_get(lat, k))
	bool sst = !strcmp(nm_cfg_str(pt, "impl"), "sst");
	if (first)
		printf(" %-5s %-5s %6s %12s %12s %16s %12s %16s %12s %8s\n", "impl", "fence", "nodes",
		       "#iterations", "t_min[usec]", "t_typical[usec]", "t_avg[usec]", "99% percentile",
		       "t_max[usec]", "check");
	printf(" %-5s %-5s %6" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT
	       " %12.2f %16.2f %12.2f %16.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "impl"), sst ? nm_cfg_str(pt, "fence") : "-",
	       json_integer_value(json_object_get(eff, "nodes")),
	       json_integer_value(json_object_get(mt, "iterations")), L("min"), L("p50"), L("mean"),
	       L("p99"), L("max"), valid);
#undef L
}

static const nm_experiment barrier_experiment = {
	.name = "barrier",
	.summary = "barrier latency vs nodes: LOCO's SST barrier (RDMA) vs MPI_Barrier",
	.details =
		"LOCO's Fig. 1b program: --iters times t0; barrier; t1, on the first --nodes K\n"
		"ranks (one caller per rank; the others sit the point out). sst is LOCO's\n"
		"Fig. 1a barrier (fence, count++, store and push my SST row, spin on the\n"
		"local rows); --fence read is LOCO's global fence (a zero-length READ per\n"
		"peer), ack its pair-only fence (wait for the previous pushes' completions).\n"
		"mpi is MPI_Barrier on a communicator of the same ranks.\n"
		"Every point checks that no rank leaves episode k before every rank entered\n"
		"it (RDMA READs of per-rank entered records): after each of --validate\n"
		"unmeasured barriers that follow the measured loop, and inside the loop only\n"
		"with --check-every N. A violation marks the point invalid. Inside one host\n"
		"(the Soft-RoCE VM) MPI_Barrier runs over shared memory, not RDMA.\n\n"
		"Examples:\n"
		"  mpirun -np 4 netmem barrier --nodes 2,3,4      both impls at 2, 3 and 4 nodes\n"
		"  mpirun -np 8 netmem barrier --impl sst --fence read,ack -n 10000\n"
		"  mpirun -np 2 netmem barrier --inject no-wait   must come out invalid",
	.opts = barrier_opts,
	.min_ranks = 1,
	.point_size = sizeof(barrier_point),
	.decode = barrier_decode, .needs = barrier_needs,
	.run = barrier_run,
	.report = barrier_report,
};
NM_EXPERIMENT(barrier_experiment)
