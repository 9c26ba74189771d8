#include "clock.h"
#include "workers.h"
#include <stdbool.h>
#include "boot.h"
#include "log.h"
#include "measure.h"
#include "alloc.h"
#include "stall.h"
#include "topo.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	nm_worker w;
	void (*setup)(nm_worker *);
	void (*body)(nm_worker *);
	atomic_int *ready, *go, *done;
	atomic_bool set_up, returned;   /* this worker's own steps, for the join's watch */
	int numa_node;
} slot;

static void *trampoline(void *p)
{
	slot *s = p;
	if (s->w.cpu >= 0 && nm_topo_pin_self(s->w.cpu) != 0)
		s->w.cpu = -1;
	if (s->w.meter)
		s->w.meter->cpu = s->w.cpu;
	if (s->setup)
		s->setup(&s->w);
	atomic_store(&s->set_up, true);
	atomic_fetch_add(s->ready, 1);
	while (!atomic_load_explicit(s->go, memory_order_acquire))
		;
	s->body(&s->w);
	/* A worker that never reached the common start (it has nothing to
	 * measure) must not hold up the others. */
	if (s->w.meter) {
		if (s->w.meter->measuring)
			nm_meter_end(s->w.meter, nm_ticks());
		nm_measure_arrive(s->w.meter);
	}
	atomic_store(&s->returned, true);
	atomic_fetch_add(s->done, 1);
	return NULL;
}

/* The node-local rank the launcher exports (single-threaded ranks pin by
 * it; worker threads use first_core below). */
int nm_local_rank(void)
{
	static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
				     "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return 0;
}

int nm_host_sum(const uint64_t *host, const int *v, int n, int me)
{
	int sum = 0;
	for (int r = 0; r < n; r++)
		if (host[r] == host[me])
			sum += v[r];
	return sum;
}

/* The first core for this rank's n workers: after the workers of the ranks
 * before it on the same host, counting only ranks that run workers in this
 * call (collective: every rank calls nm_workers_run or nm_workers_sit_out).
 * With every rank running n workers this is local rank x n; when some ranks
 * sit out (nodes emulated on one host), the others still get distinct cores. */
static int first_core(int n)
{
	int R = nm_boot_size(), me = nm_boot_rank();
	int *all = nm_calloc((size_t)R, sizeof *all);
	nm_boot_allgather(&n, all, sizeof n);
	int first = nm_host_sum(nm_boot_hosts(), all, me, me);   /* the ranks before me */
	free(all);
	return first;
}

int nm_host_contenders(const uint64_t *host, const int *busy, const cpu_set_t *sets, int n, int me, int *cpus)
{
	int sum = 0;
	cpu_set_t all, both;
	CPU_ZERO(&all);
	for (int r = 0; r < n; r++) {
		CPU_AND(&both, &sets[r], &sets[me]);
		if (host[r] != host[me] || !CPU_COUNT(&both))
			continue;
		sum += busy[r];
		CPU_OR(&all, &all, &sets[r]);
	}
	*cpus = CPU_COUNT(&all);
	return sum;
}

bool nm_host_oversubscribed_on(int busy, const cpu_set_t *set, int *host_busy, int *cpus)
{
	cpu_set_t mine;
	if (set)
		mine = *set;
	else if (sched_getaffinity(0, sizeof mine, &mine) != 0)
		CPU_ZERO(&mine);
	if (!CPU_COUNT(&mine))
		for (int c = 0; c < nm_topo_cores() && c < CPU_SETSIZE; c++)
			CPU_SET(c, &mine);
	int R = nm_boot_size(), n = 0;
	int *all = nm_calloc((size_t)R, sizeof *all);
	cpu_set_t *sets = nm_calloc((size_t)R, sizeof *sets);
	nm_boot_allgather(&busy, all, sizeof busy);
	nm_boot_allgather(&mine, sets, sizeof mine);
	int sum = nm_host_contenders(nm_boot_hosts(), all, sets, R, nm_boot_rank(), &n);
	free(all);
	free(sets);
	if (host_busy)
		*host_busy = sum;
	if (cpus)
		*cpus = n;
	return sum > n;
}

bool nm_host_oversubscribed(int busy, int *host_busy, int *cpus)
{
	return nm_host_oversubscribed_on(busy, NULL, host_busy, cpus);
}

/* NETMEM_PIN=none leaves worker threads where the kernel puts them (no core
 * pinning, no node binding): a diagnostic, for telling the placement of a
 * thread apart from its code when comparing with a tool that does not pin
 * (perftest, by default). The record shows cpu -1 for such threads. */
static bool pinning(void)
{
	static int on = -1;
	if (on < 0) {
		const char *v = getenv("NETMEM_PIN");
		on = !(v && !strcmp(v, "none"));
		if (!on && nm_boot_rank() == 0)
			nm_note("NETMEM_PIN=none: worker threads are not pinned to cores");
	}
	return on;
}

/* The main thread's watch over its workers while it waits for them. It
 * keeps telling the other ranks that this one is alive, so a worker that
 * never returns would hold the job for ever: a worker that has used no CPU
 * for the deadline (--timeout) is blocked (a lock nobody releases, a read
 * nobody answers) and ends the job, naming it. A worker that spins does use
 * CPU: the waits it may spin in carry deadlines of their own (the poller's,
 * a mailbox's, a torn record's). */
typedef struct join_watch {
	int n;
	clockid_t *clk;       /* [n]: each worker's CPU clock */
	bool *have_clk;
	nm_wait *w;           /* [n] */
	double next;          /* when to look again */
	uint64_t looks;
} join_watch;

static double mono_s(void) { return (double)nm_now_ns() / 1e9; }

/* A worker's CPU time in ns (what moves while it runs); a worker whose clock
 * cannot be read counts as moving: it is not judged. */
static uint64_t cpu_ns(const join_watch *jw, int i)
{
	struct timespec t;
	if (!jw->have_clk[i] || clock_gettime(jw->clk[i], &t) != 0)
		return jw->looks;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void join_watch_init(join_watch *jw, const pthread_t *tid, int n)
{
	*jw = (join_watch){.n = n, .clk = nm_calloc((size_t)n, sizeof *jw->clk),
			   .have_clk = nm_calloc((size_t)n, sizeof *jw->have_clk),
			   .w = nm_calloc((size_t)n, sizeof *jw->w)};
	double now = mono_s();
	for (int i = 0; i < n; i++) {
		jw->have_clk[i] = pthread_getcpuclockid(tid[i], &jw->clk[i]) == 0;
		nm_wait_start(&jw->w[i], now, nm_boot_deadline(), cpu_ns(jw, i));
	}
	jw->next = now;
}

static void join_watch_free(join_watch *jw)
{
	free(jw->clk);
	free(jw->have_clk);
	free(jw->w);
}

/* Looks at the workers not yet past `step` (set-up, or their body) a few
 * times a second; ends the job when one of them has been blocked for the
 * deadline. */
static void join_watch_look(join_watch *jw, const slot *s, bool setup)
{
	double now = mono_s();
	if (now < jw->next)
		return;
	double deadline = nm_boot_deadline();
	jw->next = now + (deadline / 8 < 0.25 ? deadline / 8 : 0.25);
	jw->looks++;
	for (int i = 0; i < jw->n; i++) {
		if (atomic_load(setup ? &s[i].set_up : &s[i].returned))
			continue;
		jw->w[i].deadline = deadline;
		if (nm_wait_expired(&jw->w[i], now, cpu_ns(jw, i)))
			nm_stalled("worker threads", now - jw->w[i].t0,
				   "worker thread %d of %d (CPU %d) has not %s and has used no CPU for %.0f s: it is "
				   "blocked", i, jw->n, s[i].w.cpu, setup ? "finished its set-up" : "returned",
				   now - jw->w[i].last);
	}
}

void nm_workers_run(const nm_round *r)
{
	int n = r->workers;
	bool pin = pinning();
	slot *s = nm_calloc((size_t)n, sizeof *s);
	pthread_t *tid = nm_calloc((size_t)n, sizeof *tid);
	atomic_int ready = 0, go = 0, done = 0;
	int first = first_core(n);
	for (int i = 0; i < n; i++) {
		atomic_init(&s[i].set_up, false);
		atomic_init(&s[i].returned, false);
		s[i] = (slot){.w = {.index = i, .cpu = pin ? nm_topo_pick_cpu(first + i, r->numa_node) : -1, .arg = r->arg,
				    .meter = r->measure ? nm_meter_of(r->measure, i) : NULL},
			      .setup = r->setup, .body = r->body, .ready = &ready, .go = &go,
			      .done = &done, .numa_node = r->numa_node};
		if (pthread_create(&tid[i], NULL, trampoline, &s[i]) != 0)
			nm_fatal("cannot start worker thread %d", i);
	}
	join_watch jw;
	join_watch_init(&jw, tid, n);
	while (atomic_load(&ready) < n) {
		if (nm_boot_fatal_pending())
			nm_boot_abort(nm_boot_fatal_pending());
		join_watch_look(&jw, s, true);
		nm_boot_alive();
		nm_nap_ns(100000);
	}
	nm_boot_barrier();
	atomic_store_explicit(&go, 1, memory_order_release);
	/* The main thread sleeps rather than spins: on small machines it would
	 * otherwise take a core from the workers. It also starts the measured
	 * interval (a collective) once every worker has arrived at it; after
	 * that it only waits for the workers to finish, and naps 10 ms (100
	 * wake-ups a second, not 1,000: the end is seen at most 10 ms late). */
	while (atomic_load(&done) < n || (r->measure && !r->measure->started)) {
		if (nm_boot_fatal_pending())
			nm_boot_abort(nm_boot_fatal_pending());
		nm_measure_poll(r->measure, n);
		join_watch_look(&jw, s, false);
		nm_boot_alive();  /* ranks already done wait for us */
		nm_nap_ns(r->measure && !r->measure->started ? 50000 : 10000000);
	}
	join_watch_free(&jw);
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		if (r->cpus)
			r->cpus[i] = s[i].w.cpu;
	}
	/* Ranks finish at different times; whoever is done first waits here
	 * asleep, not spinning in the collectives that follow. */
	nm_boot_barrier_idle();
	free(s);
	free(tid);
}

void nm_workers_sit_out(nm_measure *ms)
{
	first_core(0);
	nm_boot_barrier();       /* the start */
	nm_measure_sit_out(ms);  /* the measured interval's start */
	nm_boot_barrier_idle();  /* the end */
}
