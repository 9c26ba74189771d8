/* netmem lock: the ALock paper's distributed lock table, for any lock type.
 *
 * K locks are spread over the first N ranks in contiguous key ranges. Every
 * worker thread of those ranks runs a closed loop: pick a key (local with
 * probability p_local, uniform over the own rank's range; otherwise uniform
 * over the other ranks' keys), acquire it, run the critical section, release.
 * One operation = one acquire + critical section + release; its latency goes
 * into a histogram (the CDFs of the paper's Fig. 6) and operations over the
 * measured interval give throughput (Fig. 1, 4, 5). Node counts are swept
 * inside one job with --nodes: ranks beyond N sit the point out.
 *
 * The measured operation is the paper's: lock + unlock with nothing inside
 * (--cs empty, the default; --cs-ns puts a busy wait under the lock). So that
 * an empty section still proves mutual exclusion, every point ends with an
 * unmeasured validation phase (--validate operations per thread, same keys,
 * locality and contention): there the critical section increments the lock's
 * counter on its home with a deliberately non-atomic read, then write
 * (through RDMA, or CPU loads and stores where the lock type allows local
 * access), followed by a fence so the write is placed before the release.
 * Two holders at once lose an increment, so every counter must equal the
 * acquisitions of its lock counted by the threads; otherwise the point is
 * invalid. --cs counter runs that same section inside the measured loop too
 * (what this benchmark measured before, a READ + WRITE + fence per remote
 * operation); the check then covers both phases.
 *
 * Decisions the paper leaves open: with fewer locks than ranks (LOCO's single
 * contended lock), lock k lives on rank k and ranks without a lock always
 * take a remote one; --cs-ns busy-waits under the lock (between the read and
 * the write of the counter section); duration or
 * iteration count per thread, warm-up excluded, one measured interval for
 * every thread (harness/measure.h); one RC QP per
 * (thread, rank), loopback to the own rank included, unless --qp-layout
 * thread-pair asks for the paper's layout (primitives/locks/lock.h; the QPs on
 * the busiest NIC go into effective.qps_per_nic); keys drawn with a
 * per-thread xorshift generator seeded from (seed, rank, thread). */
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "lock.h"
#include "log.h"
#include "rng.h"
#include "workers.h"
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt lock_opts[] = {
	NM_OPT_LOCK("alock", "lock type: spin (RDMA CAS), mcs (RDMA MCS), ticket (LOCO), alock, mpi (MPI RMA baseline)"),
	{"locks", 'K', NM_OPT_INT, "20", 1, 1e8, NULL, NM_OPT_LIST, "locks in the table (all ranks together)"},
	{"p-local", 'p', NM_OPT_INT, "50", 0, 100, NULL, NM_OPT_LIST,
	 "percent of operations on a lock homed on the caller's rank"},
	{"nodes", 'N', NM_OPT_INT, "0", 0, 1e6, NULL, NM_OPT_LIST,
	 "ranks taking part: the first N (0: all)"},
	{"local-budget", 0, NM_OPT_INT, "5", 1, 1e6, NULL, NM_OPT_LIST, "ALock local cohort budget"},
	{"remote-budget", 0, NM_OPT_INT, "20", 1, 1e6, NULL, NM_OPT_LIST, "ALock remote cohort budget"},
	{"handover-max", 0, NM_OPT_INT, "8", 0, 1e6, NULL, 0,
	 "ticket lock: local hand-overs between threads before a global release"},
	{"qp-layout", 0, NM_OPT_ENUM, "per-rank", 0, 0, "per-rank,thread-pair", NM_OPT_LIST,
	 "RC QPs: one per (thread, rank), or the ALock paper's one per pair of threads (ALock "
	 "then connects none to its own rank)"},
	{"cs", 0, NM_OPT_ENUM, "empty", 0, 0, "empty,counter", NM_OPT_LIST,
	 "measured critical section: empty (the paper's lock + unlock) or counter (the checked "
	 "non-atomic increment, RDMA READ + WRITE + fence for remote holders)"},
	{"cs-ns", 0, NM_OPT_INT, "0", 0, 1e9, NULL, NM_OPT_LIST, "extra critical-section time (ns)"},
	{"validate", 0, NM_OPT_INT, "100", 0, 1e9, NULL, 0,
	 "unmeasured operations per thread with the counter section after the measured run, "
	 "checking mutual exclusion (0 only with --cs counter)"},
	NM_OPT_ITERS("1000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	NM_OPT_INJECT("none,race",
	 "testing the check: race lets rank 0 thread 0 skip the lock in both phases, and before the "
	 "validation phase overlaps it with a holder of lock 0 by a handshake (the point must come out "
	 "invalid)"),
	{"contend", 0, NM_OPT_STR, "none", 0, 0, NULL, 0,
	 "testing the lock's contended path: HR.HT-WR.WT, before the validation phase rank HR's "
	 "thread HT holds lock 0 until rank WR's thread WT has started to wait for it; the step's "
	 "lock statistics go into checks.contention"},
	NM_OPT_END,
};

typedef enum { INJECT_NONE, INJECT_RACE } lock_inject;
typedef enum { CS_EMPTY, CS_COUNTER } lock_cs;

/* One point, decoded once. */
typedef struct lock_point {
	const nm_lock_type *type;
	int locks, p_local, nodes;   /* nodes: ranks taking part, resolved */
	int local_budget, remote_budget, handover_max;
	uint64_t cs_ns, validate;
	lock_cs cs;
	lock_inject inject;
	nm_lock_qp_layout qp_layout;
	/* The scripted step before the validation phase (lock_step): who holds
	 * lock 0 and who waits for it (--contend), or who holds it while the
	 * cheater overlaps (--inject race); rank -1: no step. */
	struct { int rank, thread; } holder, waiter;
} lock_point;

/* --contend: "none" or "HR.HT-WR.WT". */
static int parse_contend(const char *s, lock_point *p)
{
	char end;
	if (!strcmp(s, "none"))
		return 0;
	if (sscanf(s, "%d.%d-%d.%d%c", &p->holder.rank, &p->holder.thread, &p->waiter.rank, &p->waiter.thread,
		   &end) != 4 || p->holder.rank < 0 || p->holder.thread < 0 || p->waiter.rank < 0 ||
	    p->waiter.thread < 0)
		return -1;
	return 0;
}

static int lock_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	lock_point *p = out;
	const char *name = nm_cfg_str(pt, "lock");
	int64_t n = nm_cfg_int(pt, "nodes");
	*p = (lock_point){
		.type = nm_lock_find(name),
		.locks = (int)nm_cfg_int(pt, "locks"),
		.p_local = (int)nm_cfg_int(pt, "p_local"),
		.nodes = n == 0 ? b->nranks : (int)n,
		.local_budget = (int)nm_cfg_int(pt, "local_budget"),
		.remote_budget = (int)nm_cfg_int(pt, "remote_budget"),
		.handover_max = (int)nm_cfg_int(pt, "handover_max"),
		.cs_ns = (uint64_t)nm_cfg_int(pt, "cs_ns"),
		.validate = (uint64_t)nm_cfg_int(pt, "validate"),
		.cs = !strcmp(nm_cfg_str(pt, "cs"), "counter") ? CS_COUNTER : CS_EMPTY,
		.inject = !strcmp(nm_cfg_str(pt, "inject"), "race") ? INJECT_RACE : INJECT_NONE,
		.qp_layout = !strcmp(nm_cfg_str(pt, "qp_layout"), "thread-pair") ? NM_LOCK_QPS_THREAD_PAIR
										  : NM_LOCK_QPS_PER_RANK,
		.holder = {-1, -1},
		.waiter = {-1, -1},
	};
	const char *contend = nm_cfg_str(pt, "contend");
	if (parse_contend(contend, p) < 0) {
		snprintf(err, len, "--contend '%s': give none or HR.HT-WR.WT (holder's rank.thread, then "
			 "waiter's), e.g. 0.0-1.0", contend);
		return -1;
	}
	if (!p->type) {
		snprintf(err, len, "lock '%s' is not built into this netmem (available: %s)", name,
			 nm_lock_names());
		return -1;
	}
	if (p->cs == CS_EMPTY && p->validate == 0) {
		snprintf(err, len, "--validate 0 with --cs empty would leave mutual exclusion unchecked: "
			 "give --validate > 0 or --cs counter");
		return -1;
	}
	if (p->nodes > b->nranks) {
		snprintf(err, len, "--nodes %d asks for more ranks than the job has (%d); start it with "
			 "mpirun -np %d", p->nodes, b->nranks, p->nodes);
		return -1;
	}
	if (p->type->uses_mpi && b->threads != 1) {
		snprintf(err, len, "the mpi lock runs one thread per rank (MPI is not thread-safe "
			 "here): use -T 1 and more ranks");
		return -1;
	}
	if (p->inject == INJECT_RACE && p->holder.rank >= 0) {
		snprintf(err, len, "--inject race scripts its own step before the validation phase: "
			 "leave out --contend");
		return -1;
	}
	if (p->inject == INJECT_RACE) {
		/* The cheater is rank 0 thread 0; the honest holder a thread of
		 * its own rank where there is one, else rank 1's first. */
		p->holder.rank = b->threads > 1 ? 0 : 1;
		p->holder.thread = b->threads > 1 ? 1 : 0;
		p->waiter.rank = p->waiter.thread = 0;
		if (p->holder.rank >= p->nodes) {
			snprintf(err, len, "--inject race needs a thread to race with: -T 2 or more, or "
				 "two ranks taking part");
			return -1;
		}
	}
	if (p->holder.rank >= 0) {
		const char *what = p->inject == INJECT_RACE ? "--inject race" : "--contend";
		if (p->type->uses_mpi) {
			snprintf(err, len, "%s with --lock mpi: the MPI lock waits inside MPI, where no "
				 "step can be scripted; use another lock type", what);
			return -1;
		}
		if (p->holder.rank >= p->nodes || p->waiter.rank >= p->nodes || p->holder.thread >= b->threads ||
		    p->waiter.thread >= b->threads) {
			snprintf(err, len, "--contend %s names a thread the point does not run (%d ranks take "
				 "part, %d threads each)", contend, p->nodes, b->threads);
			return -1;
		}
		if (p->holder.rank == p->waiter.rank && p->holder.thread == p->waiter.thread) {
			snprintf(err, len, "--contend %s: the holder and the waiter must be two threads",
				 contend);
			return -1;
		}
	}
	return 0;
}

/* The tally: lock statistics (named by the lock type), the counters that
 * disagree with their acquisitions, and the lowest such lock. */
enum { C_STAT, C_WRONG = C_STAT + NM_LOCK_STATS, C_FIRST_WRONG, C_LOST, C_N };
static const nm_counter lock_counters[C_N] = {
	[C_STAT] = {"stat0", 0}, [C_STAT + 1] = {"stat1", 0}, [C_STAT + 2] = {"stat2", 0},
	[C_STAT + 3] = {"stat3", 0}, [C_WRONG] = {"counters_wrong", 0},
	[C_FIRST_WRONG] = {"first_wrong_lock", NM_COUNT_MIN}, [C_LOST] = {"lost_increments", 0},
};

typedef struct lock_job lock_job;

typedef struct lock_thr {
	nm_lock_thread lt;
	uint64_t *count;          /* acquisitions per key with the counter section */
	uint64_t validated;       /* operations of the validation phase */
	uint64_t rng;
} lock_thr;

struct lock_job {
	const lock_point *p;
	nm_lock_env env;
	nm_mesh mesh;
	nm_mr mr;
	uint64_t ctr_off;
	uint64_t step_off;        /* the scripted step's flags (lock_step), one line */
	_Atomic bool step_arrived; /* the waiter's on_wait hook fired */
	int qps_per_nic;
	lock_thr *th;
	int key_lo, key_hi;
	uint64_t cs_ticks, seed;
};

static int pick_key(lock_job *j, lock_thr *t)
{
	int K = j->env.nlocks, own = j->key_hi - j->key_lo;
	uint64_t r = nm_xorshift(&t->rng);
	/* A rank that homes no lock (fewer locks than ranks) always goes remote. */
	bool local = own > 0 && ((int)(r % 100) < j->p->p_local || own == K);
	uint64_t r2 = nm_xorshift(&t->rng);
	if (local)
		return j->key_lo + (int)(r2 % (uint64_t)own);
	/* uniform over the other ranks' keys: skip over our own range */
	int k = (int)(r2 % (uint64_t)(K - own));
	return k < j->key_lo ? k : k + own;
}

static void spin_ticks(uint64_t ticks)
{
	uint64_t end = nm_ticks() + ticks;
	while (nm_ticks() < end)
		;
}

/* The two halves of the counter section for verbs lock types: the read of
 * the lock's counter at its home, and the write of the incremented value
 * (lock_step's cheater runs between them). */
static uint64_t cs_read(lock_job *j, lock_thr *t, int key)
{
	nm_lock_env *e = &j->env;
	int home = nm_lock_home(e, key);
	uint64_t off = j->ctr_off + (uint64_t)nm_lock_slot(e, key) * 64;
	if (home == e->rank && j->p->type->cpu_local)
		return *(volatile uint64_t *)((uint8_t *)j->mr.buf + off);
	return nm_lock_read64(&t->lt, home, e->mesh->rmr[nm_lock_world(e, home)].addr + off);
}

static void cs_write(lock_job *j, lock_thr *t, int key, uint64_t v)
{
	nm_lock_env *e = &j->env;
	int home = nm_lock_home(e, key);
	uint64_t off = j->ctr_off + (uint64_t)nm_lock_slot(e, key) * 64;
	if (home == e->rank && j->p->type->cpu_local) {
		*(volatile uint64_t *)((uint8_t *)j->mr.buf + off) = v;
		atomic_thread_fence(memory_order_seq_cst);
		return;
	}
	uint64_t addr = e->mesh->rmr[nm_lock_world(e, home)].addr + off;
	nm_lock_write64(&t->lt, home, addr, v);
	/* The write must be placed before the release becomes visible, which
	 * may travel on another QP (a queue lock's hand-off). */
	nm_lock_fence(&t->lt, home, addr);
}

/* Non-atomic increment of the lock's counter at its home. */
static void critical_section(lock_job *j, lock_thr *t, int key)
{
	const nm_lock_type *lt = j->p->type;
	if (lt->cs_get) {
		uint64_t v, off = j->ctr_off + (uint64_t)nm_lock_slot(&j->env, key) * 64;
		lt->cs_get(&t->lt, key, off, &v);
		lt->cs_wait(&t->lt, key);
		lt->cs_put(&t->lt, key, off, v + 1);
		return;
	}
	uint64_t v = cs_read(j, t, key);
	if (j->cs_ticks)
		spin_ticks(j->cs_ticks);
	cs_write(j, t, key, v + 1);
}

static void thr_setup(nm_worker *w)
{
	lock_job *j = w->arg;
	lock_thr *t = &j->th[w->index];
	t->rng = nm_rng_stream(j->seed, j->env.rank, w->index);
	t->count = nm_calloc((size_t)j->env.nlocks, sizeof *t->count);
	nm_lock_thread_init(&t->lt, j->p->type, &j->env, w->index);
}

/* One operation: lock, the section, unlock. A cheating thread (--inject
 * race) skips the lock but not the section. */
static void lock_op(lock_job *j, lock_thr *t, int key, bool cheat, bool counter)
{
	const nm_lock_type *lt = j->p->type;
	if (!cheat)
		lt->acquire(&t->lt, key);
	if (counter)
		critical_section(j, t, key);
	else if (j->cs_ticks)
		spin_ticks(j->cs_ticks);
	if (!cheat)
		lt->release(&t->lt, key);
	if (counter)
		t->count[key]++;
}

static bool cheats(const lock_job *j, const nm_worker *w)
{
	return j->p->inject == INJECT_RACE && j->env.rank == 0 && w->index == 0;
}

static void thr_body(nm_worker *w)
{
	lock_job *j = w->arg;
	lock_thr *t = &j->th[w->index];
	bool cheat = cheats(j, w), counter = j->p->cs == CS_COUNTER;
	nm_loop lp;
	nm_loop_init(&lp, w->meter);
	while (nm_loop_next(&lp)) {
		int key = pick_key(j, t);
		uint64_t t0 = nm_ticks();
		lock_op(j, t, key, cheat, counter);
		nm_loop_done(&lp, t0, nm_ticks());
	}
	/* The lock's statistics describe the measured run only. */
	for (int s = 0; s < NM_LOCK_STATS; s++)
		w->meter->c[C_STAT + s] = t->lt.stat[s];
}

static void thr_nosetup(nm_worker *w) { (void)w; }

/* The validation phase: an unmeasured round of the same loop with the
 * counter section, so that an empty measured section still has its lock's
 * mutual exclusion checked on this point's keys, locality and contention. */
static void thr_validate(nm_worker *w)
{
	lock_job *j = w->arg;
	lock_thr *t = &j->th[w->index];
	const nm_lock_type *lt = j->p->type;
	bool cheat = cheats(j, w);
	for (uint64_t i = 0; i < j->p->validate; i++)
		lock_op(j, t, pick_key(j, t), cheat, true);
	t->validated = j->p->validate;
	if (lt->thread_fini)
		lt->thread_fini(&t->lt);
}

/* ---- the scripted step (--contend, --inject race) ----
 *
 * A check that a concurrent event happened must not depend on the schedule:
 * one thread (the holder) takes lock 0 and keeps it until the other (the
 * waiter, or the cheater) has arrived where the check needs it, each party
 * held by a flag in the holder's rank's step line:
 *   word 0: the holder has the lock (and, for a race, has read the counter);
 *   word 1: the other party has arrived (the waiter started to wait inside
 *           acquire; the cheater has written its increment).
 * --contend: the waiter then gets the lock and releases it, so the step runs
 * the lock's contended path (a queue hand-off, Peterson, a failed CAS...)
 * for sure; its statistics are reported as checks.contention.
 * --inject race: the cheater reads and writes the counter between the
 * holder's read and write, so one increment is lost for sure and the
 * counter check must fail. The step runs after the measured round, outside
 * it. */
enum { STEP_HELD, STEP_ARRIVED };

static uint64_t *step_word(lock_job *j, int word)
{
	return (uint64_t *)((uint8_t *)j->mr.buf + j->step_off) + word;
}

static void step_signal(lock_job *j, lock_thr *t, int word)
{
	nm_lock_env *e = &j->env;
	int r = j->p->holder.rank;
	if (r == e->rank) {
		__atomic_store_n(step_word(j, word), 1, __ATOMIC_SEQ_CST);
		return;
	}
	nm_lock_write64(&t->lt, r, e->mesh->rmr[nm_lock_world(e, r)].addr + j->step_off + 8 * (uint64_t)word, 1);
}

static void step_wait(lock_job *j, lock_thr *t, int word, const char *what)
{
	nm_lock_env *e = &j->env;
	int r = j->p->holder.rank;
	uint64_t addr = e->mesh->rmr[nm_lock_world(e, r)].addr + j->step_off + 8 * (uint64_t)word;
	nm_lock_wait w = {.n = 1};  /* not a wait for the lock: no on_wait */
	for (;;) {
		uint64_t v = r == e->rank ? __atomic_load_n(step_word(j, word), __ATOMIC_SEQ_CST)
					  : nm_lock_read64(&t->lt, r, addr);
		if (v)
			return;
		nm_lock_pause(&t->lt, &w, "scripted step on", 0, r, "the step's flag", v, what);
	}
}

static void step_on_wait(nm_lock_thread *lt, int key)
{
	lock_job *j = lt->env->on_wait_arg;
	const lock_point *p = j->p;
	if (key != 0 || lt->env->rank != p->waiter.rank || lt->thread != p->waiter.thread ||
	    atomic_exchange(&j->step_arrived, true))
		return;
	step_signal(j, (lock_thr *)lt, STEP_ARRIVED);
}

static void thr_step(nm_worker *w)
{
	lock_job *j = w->arg;
	const lock_point *p = j->p;
	lock_thr *t = &j->th[w->index];
	const nm_lock_type *lt = p->type;
	int r = j->env.rank, i = w->index;
	bool holder = r == p->holder.rank && i == p->holder.thread, other = r == p->waiter.rank && i == p->waiter.thread;
	if (p->inject == INJECT_RACE) {
		if (holder) {
			lt->acquire(&t->lt, 0);
			uint64_t v = cs_read(j, t, 0);
			step_signal(j, t, STEP_HELD);
			step_wait(j, t, STEP_ARRIVED, "for the cheater to write the counter");
			cs_write(j, t, 0, v + 1);
			lt->release(&t->lt, 0);
			t->count[0]++;
		} else if (other) {
			step_wait(j, t, STEP_HELD, "for the holder to read the counter");
			cs_write(j, t, 0, cs_read(j, t, 0) + 1);
			step_signal(j, t, STEP_ARRIVED);
			t->count[0]++;
		}
	} else if (holder) {
		lt->acquire(&t->lt, 0);
		step_signal(j, t, STEP_HELD);
		step_wait(j, t, STEP_ARRIVED, "for the waiter to start waiting for lock 0");
		lt->release(&t->lt, 0);
	} else if (other) {
		step_wait(j, t, STEP_HELD, "for the holder to take lock 0");
		lt->acquire(&t->lt, 0);
		lt->release(&t->lt, 0);
	}
}

/* Runs the step; every rank returns the step's lock statistics summed over
 * the job, and whether the waiter arrived. */
static bool lock_step(lock_job *j, int T, int numa_node, uint64_t stats[NM_LOCK_STATS])
{
	nm_lock_env *e = &j->env;
	uint64_t before[NM_LOCK_STATS] = {0};
	for (int t = 0; e->rank >= 0 && t < T; t++)
		for (int s = 0; s < NM_LOCK_STATS; s++)
			before[s] += j->th[t].lt.stat[s];
	e->on_wait = j->p->inject == INJECT_RACE ? NULL : step_on_wait;
	e->on_wait_arg = j;
	nm_round st = {.workers = T, .numa_node = numa_node, .setup = thr_nosetup, .body = thr_step, .arg = j};
	nm_lock_run(e, j->p->type, &st);
	e->on_wait = NULL;
	for (int s = 0; s < NM_LOCK_STATS; s++) {
		uint64_t after = 0;
		for (int t = 0; e->rank >= 0 && t < T; t++)
			after += j->th[t].lt.stat[s];
		stats[s] = after - before[s];
	}
	nm_boot_sum_u64_array(stats, NM_LOCK_STATS);
	return nm_boot_sum_u64(atomic_load(&j->step_arrived)) > 0;
}

/* The lock table's memory: lock objects, counters, descriptors, scratch;
 * and this rank's key range. */
static size_t lock_layout(lock_job *j, int rank, int T)
{
	nm_lock_env *e = &j->env;
	const lock_point *p = j->p;
	int slots = nm_lock_slots(e);
	e->table_off = 0;
	j->ctr_off = nm_align64((size_t)slots * p->type->lock_bytes);
	j->step_off = j->ctr_off + (size_t)slots * 64;
	e->desc_off = j->step_off + 64;
	e->scratch_off = nm_align64(e->desc_off + (size_t)T * p->type->desc_bytes);
	if (rank >= 0) {
		int per = p->locks / p->nodes;
		if (per == 0) { /* fewer locks than ranks: rank k homes key k */
			j->key_lo = rank < p->locks ? rank : 0;
			j->key_hi = rank < p->locks ? rank + 1 : 0;
		} else {
			j->key_lo = rank * per;
			j->key_hi = rank == p->nodes - 1 ? p->locks : j->key_lo + per;
		}
	}
	return e->scratch_off + (size_t)T * NM_LOCK_SCRATCH;
}

/* The lock environment of `rank` and the bytes it registers: the set-up's
 * and netmem preflight's (lock_needs) one sizing. */
static size_t lock_env_init(lock_job *j, const nm_base *b, int rank)
{
	const lock_point *p = j->p;
	bool in = rank < p->nodes;
	j->env = (nm_lock_env){.rank = in ? rank : -1, .nranks = p->nodes, .nthreads = b->threads,
			       .nlocks = p->locks, .local_budget = p->local_budget,
			       .remote_budget = p->remote_budget, .handover_max = p->handover_max,
			       .timeout = b->timeout, .qp_layout = p->qp_layout};
	return lock_layout(j, j->env.rank, b->threads);
}

static void lock_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	lock_job j = {.p = point};
	size_t total = lock_env_init(&j, b, rank);
	nm_lock_env_needs(&j.env, j.p->type, &b->qp, total, b->hugepages, rank, nranks, n);
}

/* Each home compares its counters with the acquisitions of its locks, summed
 * over every thread of every rank. */
static void check_counters(lock_job *j, nm_measure *ms, int T, uint64_t *acquisitions, uint64_t *validated)
{
	nm_lock_env *e = &j->env;
	uint64_t *count = nm_calloc((size_t)e->nlocks, sizeof *count);
	*validated = 0;
	for (int t = 0; e->rank >= 0 && t < T; t++) {
		for (int k = 0; k < e->nlocks; k++)
			count[k] += j->th[t].count[k];
		*validated += j->th[t].validated;
	}
	*validated = nm_boot_sum_u64(*validated);
	nm_boot_sum_u64_array(count, (size_t)e->nlocks);
	*acquisitions = 0;
	for (int k = 0; k < e->nlocks; k++) {
		*acquisitions += count[k];
		if (e->rank < 0 || nm_lock_home(e, k) != e->rank)
			continue;
		uint64_t v = *(volatile uint64_t *)((uint8_t *)j->mr.buf + j->ctr_off +
						    (size_t)nm_lock_slot(e, k) * 64);
		if (v != count[k]) {
			ms->rank_c[C_WRONG]++;
			/* two holders at once lose increments (the difference, either way) */
			ms->rank_c[C_LOST] += count[k] > v ? count[k] - v : v - count[k];
			if (ms->rank_c[C_FIRST_WRONG] == UINT64_MAX)
				ms->rank_c[C_FIRST_WRONG] = (uint64_t)k;
		}
	}
	free(count);
}

static void lock_result(const lock_job *j, const nm_measure *ms, uint64_t acquisitions, uint64_t validated,
			json_t *out)
{
	const nm_lock_type *lt = j->p->type;
	uint64_t wrong = ms->total_c[C_WRONG];
	json_t *stats = nm_lock_stats_json(lt, &ms->total_c[C_STAT]);
	/* acquisitions: every one made with the counter section (the
	 * validation phase, and the measured run with --cs counter). */
	json_t *me = json_pack("{s:i, s:I, s:I, s:s, s:I, s:b}", "locks", j->env.nlocks, "acquisitions",
			       (json_int_t)acquisitions, "validation_acquisitions", (json_int_t)validated,
			       "measured_cs", j->p->cs == CS_COUNTER ? "counter" : "empty",
			       "counters_wrong", (json_int_t)wrong, "ok", wrong == 0);
	if (wrong) {
		json_object_set_new(me, "first_wrong_lock", json_integer((json_int_t)ms->total_c[C_FIRST_WRONG]));
		json_object_set_new(me, "lost_increments", json_integer((json_int_t)ms->total_c[C_LOST]));
	}
	json_t *metrics = nm_measure_metrics(ms);
	json_object_set_new(metrics, "lock_stats", stats);
	json_object_set_new(out, "valid", json_boolean(wrong == 0 && ms->ops > 0));
	json_object_set_new(out, "checks", json_pack("{s:o}", "mutual_exclusion", me));
	json_object_set_new(out, "metrics", metrics);
	json_t *eff = json_object();
	json_object_set_new(eff, "nodes", json_integer(j->p->nodes));
	json_object_set_new(eff, "warmup", json_integer((json_int_t)ms->cfg.warmup));
	json_object_set_new(eff, "cs", json_string(j->p->cs == CS_COUNTER ? "counter" : "empty"));
	json_object_set_new(eff, "qp_layout", json_string(j->p->qp_layout == NM_LOCK_QPS_THREAD_PAIR ? "thread-pair"
												 : "per-rank"));
	json_object_set_new(eff, "qps_per_nic", json_integer(j->qps_per_nic));
	json_object_set_new(eff, "lock_summary", json_string(lt->summary));
	if (j->env.emulated && lt->emulated_change)
		json_object_set_new(eff, "emulated_change", json_string(lt->emulated_change));
	if (lt->effective)
		lt->effective(&j->env, eff);
	json_object_set_new(out, "effective", eff);
}

/* checks.contention (--contend) or checks.race (--inject race): who held,
 * who came, and (contention) the lock statistics of the step alone. A
 * contention step whose waiter never arrived cannot end here (the holder
 * waits for it until --timeout), but the record says so either way. */
static void step_result(const lock_job *j, bool arrived, const uint64_t *stats, json_t *out)
{
	const lock_point *p = j->p;
	char holder[32], other[32];
	snprintf(holder, sizeof holder, "%d.%d", p->holder.rank, p->holder.thread);
	snprintf(other, sizeof other, "%d.%d", p->waiter.rank, p->waiter.thread);
	json_t *checks = json_object_get(out, "checks");
	if (p->inject == INJECT_RACE) {
		json_object_set_new(checks, "race", json_pack("{s:s, s:s, s:i, s:s}", "holder", holder, "cheater",
								  other, "lock", 0, "overlap",
								  "the cheater read and wrote the counter between "
								  "the holder's read and write"));
		return;
	}
	json_object_set_new(checks, "contention",
			    json_pack("{s:s, s:s, s:i, s:b, s:o}", "holder", holder, "waiter", other, "lock", 0,
				      "waiter_arrived", arrived, "stats", nm_lock_stats_json(p->type, stats)));
}

static void lock_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const lock_point *p = point;
	const nm_base *b = &ctx->base;
	lock_job j = {.p = p, .seed = b->seed, .cs_ticks = nm_ns_to_ticks(p->cs_ns)};
	char err[512] = "";
	int T = b->threads;
	bool in = ctx->rank < p->nodes;
	nm_lock_env *e = &j.env;
	size_t total = lock_env_init(&j, b, ctx->rank);

	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, b->hugepages, b->mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_lock_env_connect(e, p->type, ctx->dev, &j.mesh, &j.mr, &b->qp);
	j.qps_per_nic = nm_lock_qps_per_nic(e);

	static const nm_measure_def def = {"ops", lock_counters, C_N};
	nm_measure *ms = nm_measure_new(&b->measure, &def, ctx->rank, in ? T : 0);
	j.th = nm_calloc((size_t)T, sizeof *j.th);
	nm_round r = {.workers = T, .numa_node = b->mem_node, .setup = thr_setup, .body = thr_body, .arg = &j,
		      .measure = ms};
	nm_lock_run(e, p->type, &r);
	uint64_t step_stats[NM_LOCK_STATS] = {0};
	bool arrived = p->holder.rank >= 0 && lock_step(&j, T, b->mem_node, step_stats);
	/* Unmeasured: no meters, so the interval measured above is untouched. */
	nm_round v = {.workers = T, .numa_node = b->mem_node, .setup = thr_nosetup, .body = thr_validate,
		      .arg = &j};
	nm_lock_run(e, p->type, &v);

	uint64_t acquisitions, validated;
	check_counters(&j, ms, in ? T : 0, &acquisitions, &validated);
	nm_measure_gather(ms);
	if (ctx->rank == 0) {
		lock_result(&j, ms, acquisitions, validated, out);
		if (p->holder.rank >= 0)
			step_result(&j, arrived, step_stats, out);
	}
	nm_measure_free(ms);
	if (p->type->env_fini)
		p->type->env_fini(e);
	for (int t = 0; t < T; t++)
		free(j.th[t].count);
	free(j.th);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
}

static void lock_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	if (first)
		printf(" %-6s %5s %5s %7s %7s %12s %12s %12s %12s %8s\n", "lock", "nodes", "thr", "locks",
		       "p_local", "ops/s", "p50[usec]", "p99[usec]", "max[usec]", "check");
	printf(" %-6s %5" JSON_INTEGER_FORMAT " %5" PRId64 " %7" PRId64 " %7" PRId64
	       " %12.0f %12.2f %12.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "lock"),
	       json_integer_value(json_object_get(json_object_get(res, "effective"), "nodes")),
	       nm_cfg_int(pt, "threads"), nm_cfg_int(pt, "locks"), nm_cfg_int(pt, "p_local"),
	       json_real_value(json_object_get(mt, "ops_per_sec")),
	       json_real_value(json_object_get(lat, "p50")), json_real_value(json_object_get(lat, "p99")),
	       json_real_value(json_object_get(lat, "max")),
	       nm_point_verdict(res));
}

/* The papers headline ratios ("ALock up to 29x"): a point whose sweep also ran
 * the spinlock or MCS with every other parameter equal (same repetition)
 * gets metrics.ratio_to_spin / ratio_to_mcs, its ops/s over theirs. Only
 * valid points take part. */
static bool same_but_lock(const json_t *a, const json_t *b)
{
	if (json_integer_value(json_object_get(a, "rep")) != json_integer_value(json_object_get(b, "rep")))
		return false;
	json_t *pa = json_deep_copy(json_object_get(a, "params")), *pb = json_deep_copy(json_object_get(b, "params"));
	json_object_del(pa, "lock");
	json_object_del(pb, "lock");
	bool eq = json_equal(pa, pb);
	json_decref(pa);
	json_decref(pb);
	return eq;
}

static void lock_finish(json_t *points)
{
	static const char *const base[] = {"spin", "mcs"};
	size_t i, k;
	json_t *p, *q;
	json_array_foreach(points, i, p) {
		json_t *mt = json_object_get(p, "metrics");
		double mine = json_real_value(json_object_get(mt, "ops_per_sec"));
		if (!json_is_true(json_object_get(p, "valid")) || !mt || mine <= 0)
			continue;
		for (size_t b = 0; b < sizeof base / sizeof *base; b++) {
			char name[32];
			snprintf(name, sizeof name, "ratio_to_%s", base[b]);
			json_array_foreach(points, k, q) {
				const char *ql = json_string_value(json_object_get(json_object_get(q, "params"), "lock"));
				double theirs = json_real_value(json_object_get(json_object_get(q, "metrics"), "ops_per_sec"));
				if (ql && !strcmp(ql, base[b]) && json_is_true(json_object_get(q, "valid")) &&
				    theirs > 0 && same_but_lock(p, q)) {
					json_object_set_new(mt, name, json_real(mine / theirs));
					break;
				}
			}
		}
	}
}

static const nm_experiment lock_experiment = {
	.name = "lock",
	.summary = "distributed lock table (ALock paper): throughput and latency of lock+unlock",
	.details =
		"Every thread of the first --nodes ranks loops: pick a key (own rank's range with\n"
		"probability --p-local), acquire, release (--cs counter: increment the lock's\n"
		"counter non-atomically in between). An unmeasured validation phase with the\n"
		"counter section (--validate operations per thread) follows on every point; its\n"
		"counters must equal the acquisitions, or the point is invalid.\n\n"
		"Examples:\n"
		"  mpirun -np 3 netmem lock --lock spin,mcs,alock -K 20 -p 0,50,100 -T 2\n"
		"  mpirun -np 4 netmem lock --lock ticket,mpi -K 1 -T 1 -N 2,3,4 -D 2",
	.opts = lock_opts,
	.min_ranks = 1,
	.point_size = sizeof(lock_point),
	.decode = lock_decode, .needs = lock_needs,
	.run = lock_run,
	.report = lock_report,
	.finish = lock_finish,
};
NM_EXPERIMENT(lock_experiment)
