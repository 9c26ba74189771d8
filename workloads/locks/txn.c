/* netmem txn: LOCO's transactional locking benchmark (LOCO paper, section
 * 7.1, Fig. 4b): transfers between accounts under two locks.
 *
 * A bank of --accounts accounts is striped over the workers' homes
 * (primitives/gen/accounts.h); each home's accounts are cut into blocks, one
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
 * committed transfers in the point's one measured interval, all workers
 * together (harness/measure.h). */
#include "accounts.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "hosts.h"
#include "lock.h"
#include "log.h"
#include "rng.h"
#include "workers.h"
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt txn_opts[] = {
	NM_OPT_LOCK("ticket", "lock: ticket (LOCO), mpi (OpenMPI baseline, one rank per worker), spin, mcs, alock"),
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
	NM_OPT_ITERS("1000", "transfers"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("transfers"),
	NM_OPT_INJECT("none,lost,torn",
	 "testing the checks: lost drops one credit, torn writes one half-updated balance word"),
	NM_OPT_END,
};

typedef enum { INJECT_NONE, INJECT_LOST, INJECT_TORN } txn_inject;

/* One point, decoded once. */
typedef struct txn_point {
	const nm_lock_type *type;
	uint64_t accounts, max_amount;
	int64_t balance;
	int locks_per_thread, nodes;   /* nodes resolved (never 0) */
	nm_hosts hosts;                /* the node grouping */
	int local_budget, remote_budget, handover_max;
	txn_inject inject;
} txn_point;

static int txn_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	txn_point *p = out;
	const char *name = nm_cfg_str(pt, "lock");
	int T = b->threads, want_p = (int)nm_cfg_int(pt, "ranks_per_node");
	int64_t N = nm_cfg_int(pt, "nodes");
	const char *inj = nm_cfg_str(pt, "inject");
	*p = (txn_point){
		.type = nm_lock_find(name),
		.accounts = (uint64_t)nm_cfg_int(pt, "accounts"),
		.max_amount = (uint64_t)nm_cfg_int(pt, "max_amount"),
		.balance = nm_cfg_int(pt, "balance"),
		.locks_per_thread = (int)nm_cfg_int(pt, "locks_per_thread"),
		.local_budget = (int)nm_cfg_int(pt, "local_budget"),
		.remote_budget = (int)nm_cfg_int(pt, "remote_budget"),
		.handover_max = (int)nm_cfg_int(pt, "handover_max"),
		.inject = !strcmp(inj, "lost") ? INJECT_LOST : !strcmp(inj, "torn") ? INJECT_TORN : INJECT_NONE,
	};
	if (!p->type) {
		snprintf(err, len, "lock '%s' is not built into this netmem (available: %s)", name,
			 nm_lock_names());
		return -1;
	}
	nm_hosts *hg = &p->hosts;
	if (nm_hosts_group(b->hosts, b->nranks, want_p, hg, err, len) != 0)
		return -1;
	if (N > hg->nodes) {
		if (want_p > 0)
			snprintf(err, len, "--nodes %" PRId64 " needs %" PRId64 " ranks at --ranks-per-node %d; "
				 "the job has %d", N, N * want_p, want_p, b->nranks);
		else
			snprintf(err, len, "--nodes %" PRId64 " asks for more nodes than the job has (%d, of %d "
				 "ranks each; --ranks-per-node sets the size)", N, hg->nodes, hg->per_node);
		return -1;
	}
	p->nodes = N == 0 ? hg->nodes : (int)N;
	if (p->type->uses_mpi && T > hg->per_node) {
		snprintf(err, len, "--lock mpi runs one rank per worker: -T %d needs --ranks-per-node >= %d "
			 "(it is %d)", T, T, hg->per_node);
		return -1;
	}
	if (p->type->uses_mpi && p->locks_per_thread > 341) {
		snprintf(err, len, "--lock mpi has at most 341 windows, one lock per (window, rank): "
			 "--locks-per-thread must be <= 341");
		return -1;
	}
	if ((double)p->accounts * (double)p->balance > 1e18) {
		snprintf(err, len, "--accounts x --balance must stay below 1e18 (sums are 64-bit)");
		return -1;
	}
	return 0;
}

/* The tally (named, never indexed by number): transfers that took one lock,
 * balances found torn inside transfers, the weighted-sum delta of the
 * committed transfers; per home after the run: torn words, the sum of the
 * balances, how far the weighted sum moved, the lowest torn account. */
enum { C_SAME, C_TORN_READS, C_WDELTA, C_TORN, C_SUM, C_WMOVED, C_FIRST_TORN, C_STAT,
       C_N = C_STAT + NM_LOCK_STATS };
static const nm_counter txn_counters[C_N] = {
	[C_SAME] = {"same_lock", NM_COUNT_METRIC},
	[C_TORN_READS] = {"torn_reads", 0},
	[C_WDELTA] = {"weighted_delta", 0},
	[C_TORN] = {"torn_words", 0},
	[C_SUM] = {"sum", 0},
	[C_WMOVED] = {"weighted_moved", 0},
	[C_FIRST_TORN] = {"first_torn_account", NM_COUNT_MIN},
	[C_STAT] = {"stat0", 0}, [C_STAT + 1] = {"stat1", 0}, [C_STAT + 2] = {"stat2", 0},
	[C_STAT + 3] = {"stat3", 0},
};

typedef struct txn_job txn_job;

typedef struct txn_thr {
	nm_lock_thread lt[2];     /* [0] takes the lower key, [1] the higher */
	uint64_t rng;
} txn_thr;

struct txn_job {
	const txn_point *p;
	nm_accounts bank;
	nm_lock_env env;
	nm_mesh mesh;
	nm_mr mr;
	uint64_t acct_off;
	uint64_t winit;           /* weighted sum of this home's accounts at the start */
	int *world;
	txn_thr *th;
	uint64_t seed;
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
	s->cpu = j->p->type->cpu_local && s->home == e->rank;
	s->conn = j->p->type->uses_mpi ? NULL : nm_mesh_conn(&j->mesh, t->lt[0].thread, j->world[s->home], 0);
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
	const nm_lock_type *lt = j->p->type;
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
	const nm_lock_type *lt = j->p->type;
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
static void transfer(txn_job *j, txn_thr *t, nm_meter *m, side *s, uint64_t amt, txn_inject inject)
{
	read_sides(j, t, s, 2);
	for (int i = 0; i < 2; i++)
		if (!nm_acct_decode(s[i].acct, *s[i].word, &s[i].bal)) {
			/* Counted and left as it is: the end-of-run scan reports it. */
			m->c[C_TORN_READS]++;
			return;
		}
	uint64_t old0 = *s[0].word;
	*s[0].word = nm_acct_encode(s[0].acct, s[0].bal - (int64_t)amt);
	*s[1].word = nm_acct_encode(s[1].acct, s[1].bal + (int64_t)amt);
	if (inject == INJECT_TORN) {
		/* half of the new word, half of the old: a torn write */
		uint64_t w = (*s[0].word & 0xffffffffull) | (old0 & ~0xffffffffull);
		int64_t b;
		if (nm_acct_decode(s[0].acct, w, &b))
			w ^= 1ull << 48;
		*s[0].word = w;
	}
	write_sides(j, t, s, inject == INJECT_LOST ? 1 : 2);
	m->c[C_WDELTA] += amt * (nm_acct_weight(s[1].acct) - nm_acct_weight(s[0].acct));
}

static void thr_setup(nm_worker *w)
{
	txn_job *j = w->arg;
	txn_thr *t = &j->th[w->index];
	t->rng = nm_rng_stream(j->seed, j->env.rank, w->index);
	for (int h = 0; h < 2; h++)
		nm_lock_thread_init(&t->lt[h], j->p->type, &j->env, 2 * w->index + h);
}

static void thr_body(nm_worker *w)
{
	txn_job *j = w->arg;
	txn_thr *t = &j->th[w->index];
	const nm_lock_type *lt = j->p->type;
	uint64_t A = j->bank.n;
	bool injector = j->p->inject != INJECT_NONE && j->env.rank == 0 && w->index == 0;
	nm_loop lp;
	nm_loop_init(&lp, w->meter);
	while (nm_loop_next(&lp)) {
		uint64_t from = nm_xorshift(&t->rng) % A, to = nm_xorshift(&t->rng) % (A - 1);
		if (to >= from)
			to++;
		uint64_t amt = 1 + nm_xorshift(&t->rng) % j->p->max_amount;
		side s[2];
		side_init(j, t, &s[0], from, 0);
		side_init(j, t, &s[1], to, 1);
		int lo = s[0].key < s[1].key ? s[0].key : s[1].key;
		int hi = s[0].key < s[1].key ? s[1].key : s[0].key;
		/* the fault goes into the first measured transfer */
		txn_inject inject = injector && lp.i == lp.warmup + 1 ? j->p->inject : INJECT_NONE;
		uint64_t t0 = nm_ticks();
		lt->acquire(&t->lt[0], lo);
		if (hi != lo)
			lt->acquire(&t->lt[1], hi);
		transfer(j, t, w->meter, s, amt, inject);
		if (hi != lo)
			lt->release(&t->lt[1], hi);
		lt->release(&t->lt[0], lo);
		nm_loop_done(&lp, t0, nm_ticks());
		w->meter->c[C_SAME] += hi == lo;
	}
	for (int h = 0; h < 2; h++) {
		for (int s = 0; s < NM_LOCK_STATS; s++)
			w->meter->c[C_STAT + s] += t->lt[h].stat[s];
		if (lt->thread_fini)
			lt->thread_fini(&t->lt[h]);
	}
}

/* Participants: LOCO style, the first rank of each node with T threads; MPI
 * style, the first T ranks of each node with one worker each. Sets the
 * lock environment's participants and returns this rank's index or -1. */
static int txn_participants(txn_job *j, int rank, int T)
{
	const txn_point *p = j->p;
	bool mpi = p->type->uses_mpi;
	int H = mpi ? p->nodes * T : p->nodes, per = p->hosts.per_node, me = -1;
	j->world = nm_calloc((size_t)H, sizeof *j->world);
	for (int i = 0; i < H; i++) {
		j->world[i] = mpi ? (i / T) * per + i % T : i * per;
		if (j->world[i] == rank)
			me = i;
	}
	j->env.world = j->world;
	j->env.nranks = H;
	return me;
}

/* The bank over the H homes and this rank's memory: lock objects, accounts,
 * descriptors, scratch. Returns the bytes to register. */
static size_t txn_layout(txn_job *j, int Tp)
{
	const txn_point *p = j->p;
	nm_lock_env *e = &j->env;
	int H = e->nranks;
	/* No lock without accounts: a small bank gets one lock per account. */
	uint64_t lph = (uint64_t)p->locks_per_thread * (uint64_t)Tp;
	uint64_t per_home = (p->accounts + (uint64_t)H - 1) / (uint64_t)H;
	nm_accounts_init(&j->bank, p->accounts, H, (int)(lph < per_home ? lph : per_home));
	e->nthreads = 2 * Tp;
	e->nlocks = H * j->bank.locks_per_home;
	e->table_off = 0;
	j->acct_off = nm_align64((size_t)j->bank.locks_per_home * p->type->lock_bytes);
	e->desc_off = nm_align64(j->acct_off + nm_acct_bytes(&j->bank));
	e->scratch_off = nm_align64(e->desc_off + (size_t)e->nthreads * p->type->desc_bytes);
	e->mpi_win_off = j->acct_off;
	e->mpi_win_stride = e->mpi_win_len = j->bank.per_lock * 8;
	return e->rank >= 0 ? e->scratch_off + (size_t)e->nthreads * NM_LOCK_SCRATCH : 4096;
}

static uint64_t *txn_accounts(txn_job *j) { return (uint64_t *)((uint8_t *)j->mr.buf + j->acct_off); }

/* This home's accounts at the initial balance; remembers their weighted sum. */
static void txn_fill(txn_job *j)
{
	uint64_t *acct = txn_accounts(j), mine = j->env.rank >= 0 ? nm_acct_count(&j->bank, j->env.rank) : 0;
	for (uint64_t x = 0; x < mine; x++) {
		uint64_t i = nm_acct_number(&j->bank, j->env.rank, x);
		acct[x] = nm_acct_encode(i, j->p->balance);
		j->winit += nm_acct_weight(i) * (uint64_t)j->p->balance;
	}
}

/* Each home scans its accounts after the run: tags, sum, weighted sum. */
static void txn_scan(txn_job *j, nm_measure *ms)
{
	uint64_t *acct = txn_accounts(j), mine = j->env.rank >= 0 ? nm_acct_count(&j->bank, j->env.rank) : 0;
	uint64_t wfinal = 0;
	int64_t sum = 0;
	for (uint64_t x = 0; x < mine; x++) {
		uint64_t i = nm_acct_number(&j->bank, j->env.rank, x);
		int64_t b;
		if (!nm_acct_decode(i, *(volatile uint64_t *)&acct[x], &b)) {
			ms->rank_c[C_TORN]++;
			if (ms->rank_c[C_FIRST_TORN] == UINT64_MAX)
				ms->rank_c[C_FIRST_TORN] = i;
			continue;
		}
		sum += b;
		wfinal += nm_acct_weight(i) * (uint64_t)b;
	}
	ms->rank_c[C_SUM] = (uint64_t)sum;
	ms->rank_c[C_WMOVED] = wfinal - j->winit;
}

static json_t *txn_checks(const txn_job *j, const nm_measure *ms, bool *valid)
{
	const uint64_t *c = ms->total_c;
	int64_t expect = (int64_t)j->bank.n * j->p->balance;
	bool sum_ok = c[C_TORN] == 0 && (int64_t)c[C_SUM] == expect;
	bool w_ok = c[C_TORN] == 0 && c[C_WMOVED] == c[C_WDELTA];
	bool torn_ok = c[C_TORN] == 0 && c[C_TORN_READS] == 0;
	json_t *balances = json_pack("{s:I, s:I, s:b}", "torn_words", (json_int_t)c[C_TORN], "torn_reads",
				     (json_int_t)c[C_TORN_READS], "ok", torn_ok);
	if (c[C_FIRST_TORN] != UINT64_MAX)
		json_object_set_new(balances, "first_torn_account", json_integer((json_int_t)c[C_FIRST_TORN]));
	*valid = sum_ok && w_ok && torn_ok && ms->ops > 0;
	return json_pack("{s:{s:I, s:I, s:I, s:b}, s:o, s:{s:I, s:b}}", "conservation", "accounts",
			 (json_int_t)j->bank.n, "expected_sum", (json_int_t)expect, "sum", (json_int_t)c[C_SUM],
			 "ok", sum_ok, "balances", balances, "transfers", "committed", (json_int_t)ms->ops_all,
			 "weighted_sum_ok", w_ok);
}

static void txn_result(const txn_job *j, const nm_measure *ms, int T, int Tp, json_t *out)
{
	const txn_point *p = j->p;
	bool valid;
	json_t *checks = txn_checks(j, ms, &valid);
	json_t *stats = nm_lock_stats_json(p->type, &ms->total_c[C_STAT]);
	json_t *metrics = nm_measure_metrics(ms);
	json_object_set_new(metrics, "lock_stats", stats);
	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "checks", checks);
	json_object_set_new(out, "metrics", metrics);
	int H = j->env.nranks;
	json_t *eff =
		json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:I, s:i, s:I, s:I, s:s}", "style",
			  p->type->uses_mpi ? "mpi" : "loco", "nodes", p->nodes, "threads_per_node", T, "workers",
			  H * Tp, "ranks_taking_part", H, "ranks_per_node", p->hosts.per_node, "nodes_emulated",
			  p->hosts.emulated, "locks", (json_int_t)j->env.nlocks, "locks_per_worker",
			  p->locks_per_thread, "accounts_per_lock", (json_int_t)j->bank.per_lock, "warmup",
			  (json_int_t)ms->cfg.warmup, "lock_summary", p->type->summary);
	if (p->type->effective)
		p->type->effective(&j->env, eff);
	json_object_set_new(out, "effective", eff);
}

/* The lock environment of `rank` and the bytes it registers: one sizing
 * for the set-up and for netmem preflight (txn_needs). */
static size_t txn_env_init(txn_job *j, const nm_base *b, int rank)
{
	const txn_point *p = j->p;
	nm_lock_env *e = &j->env;
	*e = (nm_lock_env){.local_budget = p->local_budget, .remote_budget = p->remote_budget,
			   .handover_max = p->handover_max, .timeout = b->timeout};
	e->rank = txn_participants(j, rank, b->threads);
	return txn_layout(j, p->type->uses_mpi ? 1 : b->threads);
}

static void txn_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	txn_job j = {.p = point};
	size_t total = txn_env_init(&j, b, rank);
	nm_lock_env_needs(&j.env, j.p->type, &b->qp, total, b->hugepages, rank, nranks, n);
	free(j.world);
}

static void txn_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const txn_point *p = point;
	const nm_base *b = &ctx->base;
	txn_job j = {.p = p, .seed = b->seed};
	char err[512] = "";
	int T = b->threads, Tp = p->type->uses_mpi ? 1 : T;
	nm_lock_env *e = &j.env;
	size_t total = txn_env_init(&j, b, ctx->rank);
	bool in = e->rank >= 0;

	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, b->hugepages, b->mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	txn_fill(&j);
	nm_lock_env_connect(e, p->type, ctx->dev, &j.mesh, &j.mr, &b->qp);

	static const nm_measure_def def = {"txns", txn_counters, C_N};
	nm_measure *ms = nm_measure_new(&b->measure, &def, ctx->rank, in ? Tp : 0);
	j.th = nm_calloc((size_t)Tp, sizeof *j.th);
	nm_round r = {.workers = Tp, .numa_node = b->mem_node, .setup = thr_setup, .body = thr_body, .arg = &j,
		      .measure = ms};
	nm_lock_run(e, p->type, &r);
	txn_scan(&j, ms);
	nm_measure_gather(ms);
	if (ctx->rank == 0)
		txn_result(&j, ms, T, Tp, out);
	nm_measure_free(ms);
	if (p->type->env_fini)
		p->type->env_fini(e);
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
	       nm_point_verdict(res));
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
	.point_size = sizeof(txn_point),
	.decode = txn_decode, .needs = txn_needs,
	.run = txn_run,
	.report = txn_report,
};
NM_EXPERIMENT(txn_experiment)
