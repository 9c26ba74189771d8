/* netmem barrier: barrier latency vs node count, LOCO's Fig. 1b program
 * (TEST_ITERS times: t0 = now; barrier; t1 = now; record t1 - t0), for
 *   sst  LOCO's SST barrier of Fig. 1a over raw verbs (primitives/barrier.h)
 *   mpi  MPI_Barrier on a communicator of the same ranks (the baseline; the
 *        only place MPI runs inside a measured loop in this file)
 * with the first --nodes K ranks of the job taking part; the others sit the
 * point out. One process per node as in LOCO; every participant measures.
 *
 * Correctness, checked on every run (a failure marks the point invalid):
 *   epoch    before entering episode k a rank stores the record {k, rank} in
 *            an owned_var of its own (a CPU store); after leaving episode k,
 *            outside the timed section, it RDMA-READs every other
 *            participant's record and requires k <= entered <= k + 1:
 *            below k, it left episode k before that rank entered it; above
 *            k + 1, that rank left episode k + 1 before this one entered it.
 *            The record is 16 bytes, so it travels with its checksum and
 *            the reads that overlap a store are retried (and counted).
 *   finished every participant adds 1 to an atomic_var hosted by rank 0
 *            (RDMA FAA; rank 0 through its loopback QP) after its loop; rank
 *            0 reads it back and requires exactly K.
 * --inject no-wait breaks the barrier on purpose (rank 0 leaves every episode
 * without waiting for anyone: for sst it skips the spin; for mpi every
 * participant uses MPI_Ibarrier, since a nonblocking collective does not
 * match a blocking one, and rank 0 waits for its requests only after the
 * loop), so the epoch check must report violations and the point must come
 * out invalid.
 *
 * Decisions the paper leaves open (and what we chose):
 *  - TEST_ITERS is --iters (default 1000). Fig. 1b has no warm-up; we run
 *    --warmup barriers first (default iters/10, at most 1000), checked but
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
 *  - QPs: one mesh thread; every participant initiates to every other
 *    participant (no loopback: the SST never writes its own row remotely),
 *    plus rank 0 to itself (the finished counter) and to every sitting-out
 *    rank. Two QPs per pair: QP 0 carries only the barrier (pushes and
 *    fences), QP 1 the checks and bookkeeping. Keeping the check's READs off
 *    QP 0 matters: a READ completing on QP 0 would also retire the last
 *    push there, the next fence would find nothing to do, and the barrier
 *    measured would not be Fig. 1a's. The mpi points build the same mesh
 *    (the check needs it); its QPs are idle during MPI_Barrier.
 *  - The check runs after every --check-every'th barrier (default every
 *    one) and after the last. It sits between two timed barriers, so it
 *    adds arrival skew to the next one; it does so for both impls alike.
 *    --check-every N trades coverage for less perturbation.
 *  - Start: all ranks leave an MPI barrier right before the loop; the
 *    warm-up absorbs the skew.
 *  - Sitting-out ranks sleep (1 ms naps) on a release word, an owned_var
 *    that rank 0 pushes when its loop is over, then join the collective
 *    calls that gather results; they take no CPU from participants sharing
 *    their host.
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
 *   [0, 64)          release word (owned_var, owner rank 0)
 *   [64, 128)        finished counter (atomic_var, host rank 0)
 *   [128, 256)       registered scratch of the two chans
 *   [256, +64 R)     entered records, one owned_var per rank
 *   [.., +64 K)      the barrier's SST rows
 */
#include "atomic_var.h"
#include "barrier.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "mesh.h"
#include "owned_var.h"
#include "rdma.h"
#include "stats.h"
#include "topo.h"
#include "workers.h"
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
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
	{"iters", 'n', NM_OPT_INT, "1000", 1, 1e10, NULL, 0, "measured barriers (LOCO's TEST_ITERS)"},
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0,
	 "unmeasured barriers first (-1: iters/10, at most 1000)"},
	{"check-every", 0, NM_OPT_INT, "1", 1, 1e10, NULL, 0,
	 "epoch check after every Nth barrier (and after the last)"},
	{"yield", 0, NM_OPT_ENUM, "auto", 0, 0, "auto,on,off", 0,
	 "SST spin yields the CPU every 64 rounds (auto: when a host has more participants than CPUs)"},
	{"inject", 0, NM_OPT_ENUM, "none", 0, 0, "none,no-wait", 0,
	 "testing the check: no-wait makes rank 0 leave every barrier without waiting (the point "
	 "must come out invalid)"},
	NM_OPT_END,
};

#define OFF_RELEASE 0
#define OFF_DONE 64
#define OFF_SCRATCH 128
#define OFF_ENTERED 256
#define REC_STRIDE 64
#define YIELD_SPINS 64

typedef struct rec {
	uint64_t episode;   /* last episode entered */
	uint64_t rank;      /* owner, so a READ of the wrong slot or node shows */
} rec;

/* What every rank tells the others before and after the loop. */
typedef struct rank_info {
	char host[64];
	int32_t part, cpu;
	uint64_t measured, sum_ns, checked, violations, torn, fences, barriers;
} rank_info;

typedef struct bjob {
	int rank, R, K;
	bool part, sst, inject;
	uint64_t iters, warmup, every;
	nm_mr mr;
	nm_mesh mesh;
	nm_poller pl;
	nm_chan cb, cc;        /* barrier QP 0, check QP 1 */
	nm_ov release;
	nm_av done;
	nm_ov *entered;        /* [R] */
	nm_barrier bar;
	MPI_Comm sub;
	nm_hist hist;
	rank_info me;
	char first_error[320];
} bjob;

static int nodes_of(const json_t *pt, int nranks)
{
	int64_t k = nm_cfg_int(pt, "nodes");
	return k == 0 ? nranks : (int)k;
}

static int barrier_validate(const json_t *pt, int nranks, char *err, size_t len)
{
	int64_t k = nm_cfg_int(pt, "nodes");
	if (k > nranks) {
		snprintf(err, len, "option --nodes: %" PRId64 " ranks cannot take part, the job has %d "
			 "(start it with mpirun -np %" PRId64 ", or use --nodes 0 for all)", k, nranks, k);
		return -1;
	}
	if (nm_cfg_int(pt, "threads") != 1) {
		snprintf(err, len, "barrier has one caller per rank (LOCO's single-threaded barrier); "
			 "--threads %" PRId64 " does not apply", nm_cfg_int(pt, "threads"));
		return -1;
	}
	if (strcmp(nm_cfg_str(pt, "inject"), "none") && nodes_of(pt, nranks) < 2) {
		snprintf(err, len, "--inject %s needs at least 2 ranks taking part (it breaks the "
			 "barrier between rank 0 and the others)", nm_cfg_str(pt, "inject"));
		return -1;
	}
	return 0;
}

static void nap(long ns)
{
	struct timespec d = {0, ns};
	nanosleep(&d, NULL);
}

static void violation(bjob *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(bjob *j, const char *fmt, ...)
{
	if (j->me.violations++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(j->first_error, sizeof j->first_error, fmt, ap);
		va_end(ap);
	}
}

/* After leaving episode k (unmeasured): every other participant must have
 * entered k and not yet left k + 1. */
static void epoch_check(bjob *j, uint64_t k, const nm_ov **vs, void **outs, rec *recs)
{
	int n = 0;
	for (int p = 0; p < j->K; p++)
		if (p != j->rank) {
			vs[n] = &j->entered[p];
			outs[n] = &recs[p];
			n++;
		}
	uint64_t torn0 = j->cc.torn_retries;
	nm_ov_pull_many(&j->cc, vs, outs, n);
	j->me.torn += j->cc.torn_retries - torn0;
	for (int p = 0; p < j->K; p++) {
		if (p == j->rank)
			continue;
		const rec *r = &recs[p];
		j->me.checked++;
		if (r->rank != (uint64_t)p)
			violation(j, "rank %d: the entered record read from rank %d names rank %" PRIu64,
				  j->rank, p, r->rank);
		else if (r->episode < k)
			violation(j, "rank %d left episode %" PRIu64 " while rank %d had entered only "
				  "episode %" PRIu64, j->rank, k, p, r->episode);
		else if (r->episode > k + 1)
			violation(j, "rank %d entered episode %" PRIu64 " while rank %d had not left "
				  "episode %" PRIu64 " (so rank %d left episode %" PRIu64 " before rank "
				  "%d entered it)", p, r->episode, j->rank, k, p, r->episode - 1, j->rank);
	}
}

static void participant_loop(bjob *j)
{
	uint64_t total = j->warmup + j->iters;
	const nm_ov **vs = calloc((size_t)j->K, sizeof *vs);
	void **outs = calloc((size_t)j->K, sizeof *outs);
	rec *recs = calloc((size_t)j->K, sizeof *recs);
	/* Injected fault, mpi: rank 0 does not wait for its barriers. It must
	 * use MPI_Ibarrier, and then so must everyone, because blocking and
	 * nonblocking collectives do not match each other (MPI-3.1 5.12); the
	 * others wait for theirs at once. */
	MPI_Request *reqs = NULL, one;
	bool ibarrier = !j->sst && j->inject;
	if (ibarrier && j->rank == 0)
		reqs = calloc(total, sizeof *reqs);
	if (!vs || !outs || !recs || (ibarrier && j->rank == 0 && !reqs))
		nm_fatal("out of memory");
	if (j->sst && j->inject && j->rank == 0)
		j->bar.no_wait = true;
	uint64_t fences0 = j->cb.fences;

	for (uint64_t k = 1; k <= total; k++) {
		if (j->inject && j->rank != 0) {
			/* The others arrive late, so the rank that does not wait is
			 * certain to leave before they enter: the check must see it. */
			struct timespec late = {0, 5 * 1000 * 1000};
			nanosleep(&late, NULL);
		}
		rec mine = {.episode = k, .rank = (uint64_t)j->rank};
		nm_ov_store(&j->entered[j->rank], &j->mr, &mine);
		uint64_t t0 = nm_ticks();
		if (j->sst)
			nm_barrier_wait(&j->bar, &j->cb);
		else if (ibarrier && j->rank == 0)
			MPI_Ibarrier(j->sub, &reqs[k - 1]);
		else if (ibarrier)
			MPI_Ibarrier(j->sub, &one), MPI_Wait(&one, MPI_STATUS_IGNORE);
		else
			MPI_Barrier(j->sub);
		uint64_t t1 = nm_ticks();
		if (k > j->warmup) {
			uint64_t ns = nm_ticks_to_ns(t1 - t0);
			nm_hist_add(&j->hist, ns);
			j->me.measured++;
			j->me.sum_ns += ns;
		}
		if (k % j->every == 0 || k == total)
			epoch_check(j, k, vs, outs, recs);
	}
	j->me.barriers = total;
	if (j->sst) {
		j->me.fences = j->cb.fences - fences0;
		nm_chan_fence(&j->cb);   /* place the last pushes before teardown */
	}
	if (ibarrier && j->rank == 0)
		MPI_Waitall((int)total, reqs, MPI_STATUSES_IGNORE);
	free(reqs);
	free(vs);
	free(outs);
	free(recs);
}

/* Mesh: participants all-to-all, rank 0 to itself (finished counter) and to
 * every sitting-out rank (release word). */
static uint8_t *initiates(int R, int K)
{
	uint8_t *m = calloc((size_t)R * R, 1);
	if (!m)
		nm_fatal("out of memory");
	for (int i = 0; i < K; i++)
		for (int p = 0; p < K; p++)
			m[i * R + p] = i != p;
	m[0] = 1;
	for (int p = K; p < R; p++)
		m[p] = 1;
	return m;
}

static bool want_yield(const json_t *pt, const rank_info *all, int R, const char *myhost)
{
	const char *y = nm_cfg_str(pt, "yield");
	if (strcmp(y, "auto"))
		return !strcmp(y, "on");
	int here = 0;
	for (int r = 0; r < R; r++)
		here += all[r].part && !strcmp(all[r].host, myhost);
	/* The host's CPUs, not this rank's affinity: a launcher that binds each
	 * rank to its own core leaves one CPU in the mask of each. */
	return here > (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void barrier_run(nm_ctx *ctx, const json_t *pt, json_t *out)
{
	bjob j = {.rank = ctx->rank, .R = ctx->nranks};
	int R = j.R;
	char err[512];
	j.K = nodes_of(pt, R);
	j.part = j.rank < j.K;
	j.sst = !strcmp(nm_cfg_str(pt, "impl"), "sst");
	j.inject = !strcmp(nm_cfg_str(pt, "inject"), "no-wait");
	j.iters = (uint64_t)nm_cfg_int(pt, "iters");
	int64_t wu = nm_cfg_int(pt, "warmup");
	j.warmup = wu >= 0 ? (uint64_t)wu : (j.iters / 10 < 1000 ? j.iters / 10 : 1000);
	j.every = (uint64_t)nm_cfg_int(pt, "check_every");
	j.sub = MPI_COMM_NULL;
	nm_hist_init(&j.hist);
	gethostname(j.me.host, sizeof j.me.host - 1);
	j.me.part = j.part;
	j.me.cpu = -1;

	/* Memory, every variable initialised before any peer can reach it. */
	size_t off_sst = OFF_ENTERED + REC_STRIDE * (size_t)R;
	size_t total = (off_sst + nm_barrier_bytes(j.K) + 4095) & ~(size_t)4095;
	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, nm_cfg_bool(pt, "hugepages"),
				 (int)nm_cfg_int(pt, "mem_node"), err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(j.mr.buf, 0, total);
	nm_ov_init(&j.release, &j.mr, OFF_RELEASE, 8, 0, j.rank, NULL);
	nm_av_init(&j.done, &j.mr, OFF_DONE, 0, j.rank, 0);
	j.entered = calloc((size_t)R, sizeof *j.entered);
	if (!j.entered)
		nm_fatal("out of memory");
	for (int r = 0; r < R; r++) {
		rec none = {.episode = 0, .rank = (uint64_t)r};
		nm_ov_init(&j.entered[r], &j.mr, OFF_ENTERED + REC_STRIDE * (size_t)r, sizeof(rec), r,
			   j.rank, &none);
	}
	if (j.part)
		nm_barrier_init(&j.bar, &j.mr, off_sst, j.K, j.rank);

	uint8_t *m = initiates(R, j.K);
	nm_mesh_cfg mc = {.nthreads = 1, .qps = 2, .initiates = m};
	mc.qp = ctx->base.qp;
	mc.qp.sq_depth = 64;
	nm_mesh_create(&j.mesh, ctx->dev, &mc, &j.mr);
	nm_poller_init(&j.pl, &j.mesh, 0, nm_cfg_double(pt, "timeout"));
	nm_chan_init(&j.cb, &j.mesh, &j.mr, &j.pl, 0, 0, (uint64_t *)((uint8_t *)j.mr.buf + OFF_SCRATCH),
		     (uint32_t)mc.qp.sq_depth);
	nm_chan_init(&j.cc, &j.mesh, &j.mr, &j.pl, 0, 1,
		     (uint64_t *)((uint8_t *)j.mr.buf + OFF_SCRATCH + 64), (uint32_t)mc.qp.sq_depth);
	if (!j.sst)
		MPI_Comm_split(MPI_COMM_WORLD, j.part ? 0 : MPI_UNDEFINED, j.rank, &j.sub);

	rank_info *all = calloc((size_t)R, sizeof *all);
	nm_boot_allgather(&j.me, all, sizeof j.me);
	bool yield = want_yield(pt, all, R, j.me.host);
	if (j.part && j.sst)
		j.bar.yield_spins = yield ? YIELD_SPINS : 0;

	cpu_set_t saved;
	bool have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
	if (j.part) {
		j.me.cpu = nm_topo_pick_cpu(nm_local_rank(), (int)nm_cfg_int(pt, "mem_node"));
		if (j.me.cpu >= 0 && nm_topo_pin_self(j.me.cpu) != 0)
			j.me.cpu = -1;
	}

	nm_boot_barrier();
	if (j.part) {
		participant_loop(&j);
		if (have_saved)
			pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
		nm_av_faa(&j.cc, &j.done, 1);
		if (j.rank == 0 && j.K < R) {
			uint64_t one = 1;
			nm_ov_store(&j.release, &j.mr, &one);
			for (int p = j.K; p < R; p++)
				nm_ov_push(&j.cc, &j.release, p);
			nm_chan_fence(&j.cc);
		}
	} else {
		while (nm_ov_load_u64(&j.release, &j.mr) == 0)
			nap(1000000);
	}

	/* Gather. Every FAA completed before its rank reached this barrier. */
	nm_boot_barrier();
	uint64_t finished = j.rank == 0 ? nm_av_load(&j.cc, &j.done) : 0;
	nm_boot_allgather(&j.me, all, sizeof j.me);
	char **errs = nm_boot_gather_str(j.first_error, 0);
	nm_hist *hists = calloc((size_t)R, sizeof *hists);
	nm_boot_allgather(&j.hist, hists, sizeof j.hist);

	if (ctx->rank == 0) {
		nm_hist h;
		nm_hist_init(&h);
		uint64_t measured = 0, checked = 0, viol = 0, torn = 0, fences = 0, barriers = 0;
		int hosts = 0;
		json_t *means = json_array(), *cpus = json_array();
		const char *first = "";
		for (int r = 0; r < R; r++) {
			nm_hist_merge(&h, &hists[r]);
			if (!*first && errs[r][0])
				first = errs[r];
			if (!all[r].part)
				continue;
			measured += all[r].measured;
			checked += all[r].checked;
			viol += all[r].violations;
			torn += all[r].torn;
			fences += all[r].fences;
			barriers += all[r].barriers;
			json_array_append_new(means, json_real(all[r].measured ? (double)all[r].sum_ns /
								(double)all[r].measured / 1e3 : 0));
			json_array_append_new(cpus, json_integer(all[r].cpu));
			bool seen = false;
			for (int q = 0; q < r && !seen; q++)
				seen = all[q].part && !strcmp(all[q].host, all[r].host);
			hosts += !seen;
		}
		bool epoch_ok = viol == 0 && (checked > 0 || j.K == 1);
		bool finish_ok = finished == (uint64_t)j.K;
		bool ok = epoch_ok && finish_ok && measured == (uint64_t)j.K * j.iters;
		json_t *checks = json_pack(
			"{s:{s:I, s:I, s:I, s:I, s:b}, s:{s:i, s:I, s:b}}",
			"epoch", "checked", (json_int_t)checked, "violations", (json_int_t)viol,
			"every", (json_int_t)j.every, "torn_reads_retried", (json_int_t)torn, "ok", epoch_ok,
			"finished", "expected", j.K, "counted", (json_int_t)finished, "ok", finish_ok);
		if (*first)
			json_object_set_new(checks, "first_error", json_string(first));
		json_t *metrics = json_pack("{s:I, s:I, s:o, s:o, s:o}", "iterations", (json_int_t)j.iters,
					    "samples", (json_int_t)measured, "lat", nm_hist_summary_json(&h),
					    "lat_cdf", nm_hist_cdf_json(&h), "lat_mean_by_rank", means);
		json_t *eff = json_pack("{s:i, s:i, s:I, s:b, s:i, s:o}", "nodes", j.K, "ranks", R,
					"warmup", (json_int_t)j.warmup, "yield", j.sst && yield, "hosts",
					hosts, "cpus", cpus);
		if (j.sst) {
			json_object_set_new(eff, "fences_per_barrier",
					    json_real(barriers ? (double)fences / (double)barriers : 0));
			json_object_set_new(eff, "transport",
					    json_string(ctx->dev->emulated
							? "RDMA over Soft-RoCE (emulated)" : "RDMA"));
		} else {
			json_object_set_new(eff, "mpi_transport",
					    json_string(hosts == 1
							? "shared memory inside one host (not RDMA): "
							  "every participant runs on the same host"
							: "MPI's inter-node transport (whatever the MPI "
							  "library picked; see meta.runs[].software.mpi)"));
		}
		json_object_set_new(out, "valid", json_boolean(ok));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics", metrics);
		json_object_set_new(out, "effective", eff);
		for (int r = 0; r < R; r++)
			free(errs[r]);
		free(errs);
	}
	free(hists);
	free(all);
	if (j.sub != MPI_COMM_NULL)
		MPI_Comm_free(&j.sub);
	if (j.part)
		nm_barrier_free(&j.bar);
	nm_chan_free(&j.cb);
	nm_chan_free(&j.cc);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
	free(j.entered);
	free(m);
}

static void barrier_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	const json_t *eff = json_object_get(res, "effective");
	const char *valid = json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID";
#define L(k) json_real_value(json_object_get(lat, k))
	if (first)
		printf(" %-5s %6s %12s %12s %16s %12s %16s %12s %8s\n", "impl", "nodes", "#iterations",
		       "t_min[usec]", "t_typical[usec]", "t_avg[usec]", "99% percentile", "t_max[usec]",
		       "check");
	printf(" %-5s %6" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT
	       " %12.2f %16.2f %12.2f %16.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "impl"), json_integer_value(json_object_get(eff, "nodes")),
	       json_integer_value(json_object_get(mt, "iterations")), L("min"), L("p50"), L("mean"),
	       L("p99"), L("max"), valid);
#undef L
}

static int barrier_validate_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	(void)out;
	return barrier_validate(pt, b->nranks, err, len);
}

static void barrier_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	(void)point;
	barrier_run(ctx, ctx->pt, out);
}

static const nm_experiment barrier_experiment = {
	.name = "barrier",
	.summary = "barrier latency vs nodes: LOCO's SST barrier (RDMA) vs MPI_Barrier",
	.details =
		"LOCO's Fig. 1b program: --iters times t0; barrier; t1, on the first --nodes K\n"
		"ranks (one caller per rank; the others sit the point out). sst is LOCO's\n"
		"Fig. 1a barrier (global fence, count++, store and push my SST row, spin on\n"
		"the local rows); mpi is MPI_Barrier on a communicator of the same ranks.\n"
		"Every run checks that no rank leaves episode k before every rank entered it\n"
		"(RDMA READs of per-rank entered records between barriers, unmeasured); a\n"
		"violation marks the point invalid. Inside one host (the Soft-RoCE VM)\n"
		"MPI_Barrier runs over shared memory, not RDMA.\n\n"
		"Examples:\n"
		"  mpirun -np 4 netmem barrier --nodes 2,3,4      both impls at 2, 3 and 4 nodes\n"
		"  mpirun -np 8 netmem barrier --impl sst -n 10000\n"
		"  mpirun -np 2 netmem barrier --inject no-wait   must come out invalid",
	.opts = barrier_opts,
	.min_ranks = 1,
	.decode = barrier_validate_decode,
	.run = barrier_run_point,
	.report = barrier_report,
};
NM_EXPERIMENT(barrier_experiment)
