/* netmem txn: LOCO's transactional locking benchmark (LOCO paper, section
 * 7.1, Fig. 4b): transfers between accounts under two locks.
 *
 * A bank of --accounts accounts is striped over the workers' homes
 * (primitives/accounts.h); each home's accounts are cut into blocks, one
 * lock per block, --locks-per-thread locks per worker. A transaction picks
 * two distinct accounts uniformly, takes their locks in key order (one lock
 * when both share it), reads both balances, moves a random amount
 * (1..--max-amount) from one to the other, writes both, and releases.
 *
 * Two ways to run the workers of a node, as in the paper:
 *   LOCO style (every verbs lock: ticket, the paper's, or spin, mcs, alock):
 *     one rank per node runs --threads worker threads; balances are read and
 *     written with RDMA READ/WRITE (CPU loads/stores for ALock's local
 *     cohort), and fenced before the release.
 *   MPI style (--lock mpi): one rank per worker, --threads ranks per node,
 *     passive-target MPI locks; a lock's accounts sit in its own window,
 *     read with MPI_Get and written with MPI_Put.
 * Nodes are groups of --ranks-per-node consecutive ranks (mpirun places
 * ranks node by node); one job with T ranks per node runs both styles.
 *
 * Checked on every run (a failure marks the point invalid and the run exits
 * 1): every balance word carries a valid tag (none torn or misplaced), the
 * sum of balances is unchanged, and the weighted sum moved exactly by the
 * committed transfers (accounts.h), which also catches a transfer applied
 * to the wrong accounts or half applied.
 *
 * Decisions the paper leaves open: accounts striped round-robin over the
 * homes, locks over consecutive blocks of a home's accounts (so an MPI
 * window holds whole blocks); "at most 341 locks per thread" read as 341
 * locks per worker thread, homed with its node (the MPI run then has 341
 * windows, one lock per (window, rank), as the paper says); uniform
 * accounts, amount uniform in 1..100, initial balance 1,000,000, overdrafts
 * allowed (every transaction commits); locks in ascending key order, one
 * lock when both accounts share it; a worker holding two locks acts as two
 * lock threads (two queue descriptors, two sets of QPs). Throughput is
 * committed transfers over the longest worker's interval, all workers
 * together. */
#include "accounts.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "hosts.h"
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

static const nm_opt txn_opts[] = {
	{"lock", 'L', NM_OPT_ENUM, "ticket", 0, 0, "spin,mcs,ticket,alock,mpi", NM_OPT_LIST,
	 "lock: ticket (LOCO), mpi (OpenMPI baseline, one rank per worker), spin, mcs, alock"},
	{"accounts", 'A', NM_OPT_INT, "100000", 2, 1e10, NULL, NM_OPT_LIST,
	 "accounts in the bank (paper: 100 million)"},
	{"locks-per-thread", 0, NM_OPT_INT, "341", 1, 1e6, NULL, NM_OPT_LIST,
	 "locks per worker (paper: at most 341, the MPI window limit)"},
	{"nodes", 'N', NM_OPT_INT, "0", 0, 1e6, NULL, NM_OPT_LIST, "nodes taking part: the first N (0: all)"},
	{"ranks-per-node", 0, NM_OPT_INT, "0", 0, 4096, NULL, 0,
	 "ranks on each node, placed in rank order (0: from the host names; on one host, N emulates nodes)"},
	{"balance", 0, NM_OPT_INT, "1000000", 0, 1e12, NULL, 0, "initial balance of every account"},
	{"max-amount", 0, NM_OPT_INT, "100", 1, 1e9, NULL, 0, "a transfer moves 1..max-amount"},
	{"local-budget", 0, NM_OPT_INT, "5", 1, 1e6, NULL, 0, "ALock local cohort budget"},
	{"remote-budget", 0, NM_OPT_INT, "20", 1, 1e6, NULL, 0, "ALock remote cohort budget"},
	{"handover-max", 0, NM_OPT_INT, "8", 0, 1e6, NULL, 0,
	 "ticket lock: local hand-overs between threads before a global release"},
	{"iters", 'n', NM_OPT_INT, "1000", 1, 1e10, NULL, 0, "measured transfers per worker"},
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0,
	 "measure for this many seconds instead of --iters (paper: 20)"},
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0,
	 "unmeasured transfers per worker first (-1: iters/10, at most 1000; 100 with --duration)"},
	{"inject", 0, NM_OPT_ENUM, "none", 0, 0, "none,lost,torn", 0,
	 "testing the checks: lost drops one credit, torn writes one half-updated balance word"},
	NM_OPT_END,
};

static int txn_validate(const json_t *pt, int nranks, char *err, size_t len)
{
	const char *name = nm_cfg_str(pt, "lock");
	const nm_lock_type *lt = nm_lock_find(name);
	int T = (int)nm_cfg_int(pt, "threads"), P = (int)nm_cfg_int(pt, "ranks_per_node");
	int N = (int)nm_cfg_int(pt, "nodes");
	if (!lt) {
		snprintf(err, len, "lock '%s' is not built into this netmem (available: %s)", name,
			 nm_lock_names());
		return -1;
	}
	nm_hosts hg;
	if (nm_hosts_group(nm_boot_hosts(), nranks, P, &hg, err, len) != 0)
		return -1;
	if (N > hg.nodes) {
		if (P > 0)
			snprintf(err, len, "--nodes %d needs %d ranks at --ranks-per-node %d; the job has %d", N,
				 N * P, P, nranks);
		else
			snprintf(err, len, "--nodes %d asks for more nodes than the job has (%d, of %d ranks "
				 "each; --ranks-per-node sets the size)", N, hg.nodes, hg.per_node);
		return -1;
	}
	if (lt->uses_mpi && T > hg.per_node) {
		snprintf(err, len, "--lock mpi runs one rank per worker: -T %d needs --ranks-per-node >= %d "
			 "(it is %d)", T, T, hg.per_node);
		return -1;
	}
	if (lt->uses_mpi && nm_cfg_int(pt, "locks_per_thread") > 341) {
		snprintf(err, len, "--lock mpi has at most 341 windows, one lock per (window, rank): "
			 "--locks-per-thread must be <= 341");
		return -1;
	}
	if ((double)nm_cfg_int(pt, "accounts") * (double)nm_cfg_int(pt, "balance") > 1e18) {
		snprintf(err, len, "--accounts x --balance must stay below 1e18 (sums are 64-bit)");
		return -1;
	}
	return 0;
}

typedef struct txn_job txn_job;

typedef struct txn_thr {
	txn_job *job;
	nm_lock_thread lt[2];     /* [0] takes the lower key, [1] the higher */
	nm_hist hist;
	uint64_t measured, total, same_lock, torn_reads, elapsed_ns;
	uint64_t wdelta;          /* sum of amount * (w(to) - w(from)), mod 2^64 */
	uint64_t rng;
} txn_thr;

struct txn_job {
	const nm_lock_type *type;
	nm_accounts bank;
	nm_lock_env env;
	nm_mesh mesh;
	nm_mr mr;
	uint64_t acct_off;
	int *world;
	txn_thr *th;
	uint64_t iters, warmup, max_amount;
	uint64_t seed;
	double duration;
	int inject;               /* 0 none, 1 lost, 2 torn */
};

/* One side of a transfer: where the account's word is and how to reach it. */
typedef struct side {
	uint64_t acct;
	int key, home;
	uint64_t off;       /* in the home's buffer */
	bool cpu;           /* CPU load/store (ALock's local cohort) */
	nm_conn *conn;      /* RDMA otherwise */
	uint64_t *word;     /* registered scratch for the READ and the WRITE */
	int64_t bal;
} side;

static void side_init(txn_job *j, txn_thr *t, side *s, uint64_t acct, int i)
{
	nm_lock_env *e = &j->env;
	s->acct = acct;
	s->key = nm_acct_key(&j->bank, acct);
	s->home = nm_acct_home(&j->bank, acct);
	s->off = j->acct_off + nm_acct_index(&j->bank, acct) * 8;
	s->cpu = j->type->cpu_local && s->home == e->rank;
	s->conn = j->type->uses_mpi ? NULL : nm_mesh_conn(&j->mesh, t->lt[0].thread, j->world[s->home], 0);
	s->word = &t->lt[0].scratch[16 + i];
}

static uint64_t *local_word(txn_job *j, const side *s)
{
	return (uint64_t *)((uint8_t *)j->mr.buf + s->off);
}

static void wait_n(txn_thr *t, int n)
{
	struct ibv_wc wc[4];
	while (n > 0)
		n -= nm_poll_wait(&t->lt[0].poller, wc, n < 4 ? n : 4);
}

static void read_sides(txn_job *j, txn_thr *t, side *s, int n)
{
	const nm_lock_type *lt = j->type;
	if (lt->cs_get) {
		for (int i = 0; i < n; i++)
			lt->cs_get(&t->lt[i], s[i].key, s[i].off, s[i].word);
		for (int i = 0; i < n; i++)
			if (i == 0 || s[i].key != s[0].key)
				lt->cs_wait(&t->lt[i], s[i].key);
		return;
	}
	int posted = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].cpu) {
			*s[i].word = *(volatile uint64_t *)local_word(j, &s[i]);
			continue;
		}
		nm_post_rw(s[i].conn, NM_OP_READ, s[i].word, j->mr.mr->lkey,
			   s[i].conn->rmr.addr + s[i].off, 8, NM_WRID(NM_OP_READ, i), true);
		posted++;
	}
	wait_n(t, posted);
}

static void write_sides(txn_job *j, txn_thr *t, side *s, int n)
{
	const nm_lock_type *lt = j->type;
	if (lt->cs_put) {
		for (int i = 0; i < n; i++)
			lt->cs_put(&t->lt[i], s[i].key, s[i].off, *s[i].word);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (s[i].cpu) {
			*(volatile uint64_t *)local_word(j, &s[i]) = *s[i].word;
			continue;
		}
		nm_post_rw(s[i].conn, NM_OP_WRITE, s[i].word, j->mr.mr->lkey, s[i].conn->rmr.addr + s[i].off,
			   8, NM_WRID(NM_OP_WRITE, i), false);
	}
	atomic_thread_fence(memory_order_seq_cst);
	/* LOCO's fence before the release: the writes are placed at their homes
	 * before any lock word (on other QPs, possibly) says they may be read.
	 * One fence per QP written; it also retires the unsignaled WRITEs. */
	for (int i = 0; i < n; i++)
		if (!s[i].cpu && (i == 0 || s[0].cpu || s[i].conn != s[0].conn))
			nm_fence_wait(&t->lt[0].poller, s[i].conn);
}

/* The critical section: move amt from s[0] to s[1]. */
static void transfer(txn_job *j, txn_thr *t, side *s, uint64_t amt, int inject)
{
	read_sides(j, t, s, 2);
	for (int i = 0; i < 2; i++)
		if (!nm_acct_decode(s[i].acct, *s[i].word, &s[i].bal)) {
			/* Counted and left as it is: the end-of-run scan reports it. */
			t->torn_reads++;
			return;
		}
	uint64_t old0 = *s[0].word;
	*s[0].word = nm_acct_encode(s[0].acct, s[0].bal - (int64_t)amt);
	*s[1].word = nm_acct_encode(s[1].acct, s[1].bal + (int64_t)amt);
	if (inject == 2) {
		/* half of the new word, half of the old: a torn write */
		uint64_t w = (*s[0].word & 0xffffffffull) | (old0 & ~0xffffffffull);
		int64_t b;
		if (nm_acct_decode(s[0].acct, w, &b))
			w ^= 1ull << 48;
		*s[0].word = w;
	}
	write_sides(j, t, s, inject == 1 ? 1 : 2);
	t->wdelta += amt * (nm_acct_weight(s[1].acct) - nm_acct_weight(s[0].acct));
}

static void thr_setup(nm_worker *w)
{
	txn_job *j = w->arg;
	txn_thr *t = &j->th[w->index];
	t->job = j;
	t->rng = nm_rng_stream(j->seed, j->env.rank, w->index);
	nm_hist_init(&t->hist);
	for (int h = 0; h < 2; h++)
		nm_lock_thread_init(&t->lt[h], j->type, &j->env, 2 * w->index + h);
}

static void thr_body(nm_worker *w)
{
	txn_job *j = w->arg;
	txn_thr *t = &j->th[w->index];
	const nm_lock_type *lt = j->type;
	uint64_t A = j->bank.n, start = 0, end = 0, n = j->warmup + j->iters;
	bool injector = j->inject && j->env.rank == 0 && w->index == 0;
	for (uint64_t i = 0;; i++) {
		if (i == j->warmup) {
			start = nm_ticks();
			if (j->duration > 0)
				end = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
		}
		if (j->duration > 0 ? (i >= j->warmup && nm_ticks() >= end) : i >= n)
			break;
		uint64_t from = nm_xorshift(&t->rng) % A, to = nm_xorshift(&t->rng) % (A - 1);
		if (to >= from)
			to++;
		uint64_t amt = 1 + nm_xorshift(&t->rng) % j->max_amount;
		side s[2];
		side_init(j, t, &s[0], from, 0);
		side_init(j, t, &s[1], to, 1);
		int lo = s[0].key < s[1].key ? s[0].key : s[1].key;
		int hi = s[0].key < s[1].key ? s[1].key : s[0].key;
		uint64_t t0 = nm_ticks();
		lt->acquire(&t->lt[0], lo);
		if (hi != lo)
			lt->acquire(&t->lt[1], hi);
		int inject = injector && i == j->warmup ? j->inject : 0;
		transfer(j, t, s, amt, inject);
		if (hi != lo)
			lt->release(&t->lt[1], hi);
		lt->release(&t->lt[0], lo);
		uint64_t t1 = nm_ticks();
		t->total++;
		t->same_lock += hi == lo;
		if (i >= j->warmup) {
			nm_hist_add(&t->hist, nm_ticks_to_ns(t1 - t0));
			t->measured++;
		}
	}
	t->elapsed_ns = nm_ticks_to_ns(nm_ticks() - start);
	for (int h = 0; h < 2; h++)
		if (lt->thread_fini)
			lt->thread_fini(&t->lt[h]);
}

static size_t up64(size_t v) { return (v + 63) & ~(size_t)63; }

static void txn_run(nm_ctx *ctx, const json_t *pt, json_t *out)
{
	txn_job j = {0};
	char err[512] = "";
	int R = ctx->nranks, T = (int)nm_cfg_int(pt, "threads");
	j.type = nm_lock_find(nm_cfg_str(pt, "lock"));
	bool mpi = j.type->uses_mpi;

	/* Nodes: groups of P consecutive ranks. */
	nm_hosts hg;
	nm_hosts_group(nm_boot_hosts(), R, (int)nm_cfg_int(pt, "ranks_per_node"), &hg, err, sizeof err);
	int N = (int)nm_cfg_int(pt, "nodes");
	if (N == 0)
		N = hg.nodes;  /* txn_validate checked N and T against the nodes */

	/* Participants: LOCO style, the first rank of each node with T threads;
	 * MPI style, the first T ranks of each node with one worker each. */
	int H = mpi ? N * T : N, Tp = mpi ? 1 : T;
	j.world = calloc((size_t)H, sizeof *j.world);
	nm_lock_env *e = &j.env;
	e->rank = -1;
	for (int p = 0; p < H; p++) {
		j.world[p] = mpi ? (p / T) * hg.per_node + p % T : p * hg.per_node;
		if (j.world[p] == ctx->rank)
			e->rank = p;
	}
	bool in = e->rank >= 0;
	int lpt = (int)nm_cfg_int(pt, "locks_per_thread");
	/* No lock without accounts: a small bank gets one lock per account. */
	uint64_t A = (uint64_t)nm_cfg_int(pt, "accounts"), lph = (uint64_t)lpt * (uint64_t)Tp;
	uint64_t per_home = (A + (uint64_t)H - 1) / (uint64_t)H;
	nm_accounts_init(&j.bank, A, H, (int)(lph < per_home ? lph : per_home));

	j.iters = (uint64_t)nm_cfg_int(pt, "iters");
	j.duration = nm_cfg_double(pt, "duration");
	int64_t wu = nm_cfg_int(pt, "warmup");
	j.warmup = wu >= 0 ? (uint64_t)wu : j.duration > 0 ? 100 : (j.iters / 10 < 1000 ? j.iters / 10 : 1000);
	j.max_amount = (uint64_t)nm_cfg_int(pt, "max_amount");
	j.seed = (uint64_t)nm_cfg_int(pt, "seed");
	const char *inj = nm_cfg_str(pt, "inject");
	j.inject = !strcmp(inj, "lost") ? 1 : !strcmp(inj, "torn") ? 2 : 0;

	e->world = j.world;
	e->nranks = H;
	e->nthreads = 2 * Tp;
	e->nlocks = H * j.bank.locks_per_home;
	e->local_budget = (int)nm_cfg_int(pt, "local_budget");
	e->remote_budget = (int)nm_cfg_int(pt, "remote_budget");
	e->handover_max = (int)nm_cfg_int(pt, "handover_max");
	e->timeout = nm_cfg_double(pt, "timeout");
	e->table_off = 0;
	j.acct_off = up64((size_t)j.bank.locks_per_home * j.type->lock_bytes);
	e->desc_off = up64(j.acct_off + nm_acct_bytes(&j.bank));
	e->scratch_off = up64(e->desc_off + (size_t)e->nthreads * j.type->desc_bytes);
	e->mpi_win_off = j.acct_off;
	e->mpi_win_stride = e->mpi_win_len = j.bank.per_lock * 8;
	size_t total = in ? e->scratch_off + (size_t)e->nthreads * NM_LOCK_SCRATCH : 4096;

	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, nm_cfg_bool(pt, "hugepages"),
				 (int)nm_cfg_int(pt, "mem_node"), err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	int64_t init = nm_cfg_int(pt, "balance");
	uint64_t winit = 0, *acct = (uint64_t *)((uint8_t *)j.mr.buf + j.acct_off);
	uint64_t mine = in ? nm_acct_count(&j.bank, e->rank) : 0;
	for (uint64_t x = 0; x < mine; x++) {
		uint64_t i = nm_acct_number(&j.bank, e->rank, x);
		acct[x] = nm_acct_encode(i, init);
		winit += nm_acct_weight(i) * (uint64_t)init;
	}
	nm_qp_attr qa = {0};
	nm_point_qp_attr(pt, &qa);
	nm_lock_env_connect(e, j.type, ctx->dev, &j.mesh, &j.mr, &qa);

	j.th = calloc((size_t)Tp, sizeof *j.th);
	nm_lock_run(e, j.type, Tp, (int)nm_cfg_int(pt, "mem_node"), thr_setup, thr_body, &j);

	/* Each home scans its accounts: tags, sum, weighted sum. */
	enum { S_MEASURED, S_TOTAL, S_SAME, S_TORN_READS, S_WDELTA, S_TORN, S_SUM, S_WMOVED,
	       S_STAT, S_N = S_STAT + NM_LOCK_STATS };
	uint64_t sums[S_N] = {0}, max_elapsed = 0, wfinal = 0, first_torn = UINT64_MAX;
	int64_t sum = 0;
	for (uint64_t x = 0; x < mine; x++) {
		uint64_t i = nm_acct_number(&j.bank, e->rank, x);
		int64_t b;
		if (!nm_acct_decode(i, *(volatile uint64_t *)&acct[x], &b)) {
			sums[S_TORN]++;
			if (first_torn == UINT64_MAX)
				first_torn = i;
			continue;
		}
		sum += b;
		wfinal += nm_acct_weight(i) * (uint64_t)b;
	}
	sums[S_SUM] = (uint64_t)sum;
	sums[S_WMOVED] = wfinal - winit;
	nm_hist h;
	nm_hist_init(&h);
	for (int t = 0; in && t < Tp; t++) {
		txn_thr *th = &j.th[t];
		nm_hist_merge(&h, &th->hist);
		sums[S_MEASURED] += th->measured;
		sums[S_TOTAL] += th->total;
		sums[S_SAME] += th->same_lock;
		sums[S_TORN_READS] += th->torn_reads;
		sums[S_WDELTA] += th->wdelta;
		for (int s = 0; s < NM_LOCK_STATS; s++)
			sums[S_STAT + s] += th->lt[0].stat[s] + th->lt[1].stat[s];
		if (th->elapsed_ns > max_elapsed)
			max_elapsed = th->elapsed_ns;
	}
	nm_boot_sum_u64_array(sums, S_N);
	max_elapsed = nm_boot_max_u64(max_elapsed);
	/* lowest torn account over the ranks: max of its complement */
	first_torn = UINT64_MAX - nm_boot_max_u64(UINT64_MAX - first_torn);
	nm_boot_hist_merge(&h);

	if (ctx->rank == 0) {
		int64_t expect = (int64_t)j.bank.n * init;
		bool sum_ok = sums[S_TORN] == 0 && (int64_t)sums[S_SUM] == expect;
		bool w_ok = sums[S_TORN] == 0 && sums[S_WMOVED] == sums[S_WDELTA];
		bool torn_ok = sums[S_TORN] == 0 && sums[S_TORN_READS] == 0;
		double secs = (double)max_elapsed / 1e9, rate = secs > 0 ? (double)sums[S_MEASURED] / secs : 0;
		json_t *stats = json_object();
		for (int s = 0; s < NM_LOCK_STATS; s++)
			if (j.type->stat_names[s])
				json_object_set_new(stats, j.type->stat_names[s],
						    json_integer((json_int_t)sums[S_STAT + s]));
		json_t *balances = json_pack("{s:I, s:I, s:b}", "torn_words", (json_int_t)sums[S_TORN],
					     "torn_reads", (json_int_t)sums[S_TORN_READS], "ok", torn_ok);
		if (first_torn != UINT64_MAX)
			json_object_set_new(balances, "first_torn_account", json_integer((json_int_t)first_torn));
		json_t *checks = json_pack(
			"{s:{s:I, s:I, s:I, s:b}, s:o, s:{s:I, s:b}}", "conservation", "accounts",
			(json_int_t)j.bank.n, "expected_sum", (json_int_t)expect, "sum", (json_int_t)sums[S_SUM],
			"ok", sum_ok, "balances", balances, "transfers", "committed",
			(json_int_t)sums[S_TOTAL], "weighted_sum_ok", w_ok);
		json_object_set_new(out, "valid", json_boolean(sum_ok && w_ok && torn_ok && sums[S_MEASURED] > 0));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics",
				    json_pack("{s:I, s:f, s:f, s:f, s:I, s:o, s:o, s:o}", "txns",
					      (json_int_t)sums[S_MEASURED], "seconds", secs, "txns_per_sec", rate,
					      "mtxns", rate / 1e6, "same_lock", (json_int_t)sums[S_SAME], "lat",
					      nm_hist_summary_json(&h), "lat_cdf", nm_hist_cdf_json(&h),
					      "lock_stats", stats));
		json_object_set_new(
			out, "effective",
			json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:I, s:i, s:I, s:I, s:s}", "style",
				  mpi ? "mpi" : "loco", "nodes", N, "threads_per_node", T, "workers", H * Tp,
				  "ranks_taking_part", H, "ranks_per_node", hg.per_node, "nodes_emulated",
				  hg.emulated, "locks", (json_int_t)e->nlocks, "locks_per_worker", lpt,
				  "accounts_per_lock", (json_int_t)j.bank.per_lock, "warmup", (json_int_t)j.warmup,
				  "lock_summary", j.type->summary));
	}
	if (j.type->env_fini)
		j.type->env_fini(e);
	free(j.th);
	free(j.world);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
}

static void txn_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	const json_t *ef = json_object_get(res, "effective");
	if (first)
		printf(" %-6s %5s %8s %7s %10s %12s %12s %12s %8s\n", "lock", "nodes", "thr/node", "workers",
		       "accounts", "txns/s", "p50[usec]", "p99[usec]", "check");
	printf(" %-6s %5" JSON_INTEGER_FORMAT " %8" PRId64 " %7" JSON_INTEGER_FORMAT " %10" PRId64
	       " %12.0f %12.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "lock"), json_integer_value(json_object_get(ef, "nodes")),
	       nm_cfg_int(pt, "threads"), json_integer_value(json_object_get(ef, "workers")),
	       nm_cfg_int(pt, "accounts"), json_real_value(json_object_get(mt, "txns_per_sec")),
	       json_real_value(json_object_get(lat, "p50")), json_real_value(json_object_get(lat, "p99")),
	       json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID");
}

static const nm_experiment txn_experiment = {
	.name = "txn",
	.summary = "transfers between accounts under two locks (LOCO Fig. 4b): LOCO style vs MPI RMA",
	.details =
		"Workers move random amounts between two random accounts, each under its lock,\n"
		"taken in key order. -T is workers per node: threads of one rank (verbs locks)\n"
		"or ranks (--lock mpi). Nodes are groups of --ranks-per-node consecutive ranks.\n"
		"Every run checks that no balance is torn and the sum of balances is unchanged.\n\n"
		"Examples:\n"
		"  mpirun -np 16 --map-by ppr:4:node netmem txn --lock ticket,mpi -T 1,2,4 -D 20 --reps 5\n"
		"  mpirun -np 6 netmem txn --ranks-per-node 2 --lock ticket,mpi -T 2 -N 3 -n 200",
	.opts = txn_opts,
	.min_ranks = 1,
	.validate = txn_validate,
	.run = txn_run,
	.report = txn_report,
};
NM_EXPERIMENT(txn_experiment)
