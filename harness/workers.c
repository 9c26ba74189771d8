#include "workers.h"
#include "boot.h"
#include "log.h"
#include "topo.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	nm_worker w;
	void (*setup)(nm_worker *);
	void (*body)(nm_worker *);
	atomic_int *ready, *go, *done;
	int numa_node;
} slot;

static void *trampoline(void *p)
{
	slot *s = p;
	if (s->w.cpu >= 0 && nm_topo_pin_self(s->w.cpu) != 0)
		s->w.cpu = -1;
	if (s->setup)
		s->setup(&s->w);
	atomic_fetch_add(s->ready, 1);
	while (!atomic_load_explicit(s->go, memory_order_acquire))
		;
	s->body(&s->w);
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

/* The first core for this rank's n workers: after the workers of the ranks
 * before it on the same host, counting only ranks that run workers in this
 * call (collective: every rank calls nm_workers_run or nm_workers_sit_out).
 * With every rank running n workers this is local rank x n; when some ranks
 * sit out (nodes emulated on one host), the others still get distinct cores. */
static int first_core(int n)
{
	int R = nm_boot_size(), me = nm_boot_rank(), first = 0;
	int *all = calloc((size_t)R, sizeof *all);
	if (!all)
		nm_fatal("out of memory");
	nm_boot_allgather(&n, all, sizeof n);
	const uint64_t *host = nm_boot_hosts();
	for (int r = 0; r < me; r++)
		if (host[r] == host[me])
			first += all[r];
	free(all);
	return first;
}

static void nap(long ns)
{
	struct timespec d = {0, ns};
	nanosleep(&d, NULL);
}

void nm_workers_run(int n, int numa_node, void (*setup)(nm_worker *), void (*body)(nm_worker *),
		    void *arg, int *cpus)
{
	slot *s = calloc((size_t)n, sizeof *s);
	pthread_t *tid = calloc((size_t)n, sizeof *tid);
	atomic_int ready = 0, go = 0, done = 0;
	int first = first_core(n);
	if (!s || !tid)
		nm_fatal("out of memory");
	for (int i = 0; i < n; i++) {
		s[i] = (slot){.w = {.index = i, .cpu = nm_topo_pick_cpu(first + i, numa_node), .arg = arg},
			      .setup = setup, .body = body, .ready = &ready, .go = &go,
			      .done = &done, .numa_node = numa_node};
		if (pthread_create(&tid[i], NULL, trampoline, &s[i]) != 0)
			nm_fatal("cannot start worker thread %d", i);
	}
	while (atomic_load(&ready) < n) {
		if (nm_boot_fatal_pending())
			nm_boot_abort(nm_boot_fatal_pending());
		nm_boot_alive();
		nap(100000);
	}
	nm_boot_barrier();
	atomic_store_explicit(&go, 1, memory_order_release);
	/* The main thread sleeps rather than spins: on small machines it would
	 * otherwise take a core from the workers. */
	while (atomic_load(&done) < n) {
		if (nm_boot_fatal_pending())
			nm_boot_abort(nm_boot_fatal_pending());
		nm_boot_alive();  /* ranks already done wait for us */
		nap(1000000);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		if (cpus)
			cpus[i] = s[i].w.cpu;
	}
	/* Ranks finish at different times; whoever is done first waits here
	 * asleep, not spinning in the collectives that follow. */
	nm_boot_barrier_idle();
	free(s);
	free(tid);
}

void nm_workers_sit_out(void)
{
	first_core(0);
	nm_boot_barrier();       /* the start */
	nm_boot_barrier_idle();  /* the end */
}
