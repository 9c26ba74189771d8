/* Worker threads: N per rank, each pinned to its own core (hwloc), all
 * released at once after a job-wide barrier so that ranks measure the same
 * interval. Workers never call MPI. */
#ifndef NM_WORKERS_H
#define NM_WORKERS_H
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct nm_measure;
struct nm_meter;

typedef struct nm_worker {
	int index;
	int cpu;       /* OS CPU it is pinned to, -1 if pinning failed */
	void *arg;
	struct nm_meter *meter;  /* this worker's meter in a measured round, else NULL */
} nm_worker;

/* One round of workers on every rank (collective). */
typedef struct nm_round {
	int workers;              /* threads on this rank */
	int numa_node;            /* >= 0: pin to that node's cores */
	void (*setup)(nm_worker *);   /* before the job-wide start (allocate, touch memory) */
	void (*body)(nm_worker *);
	void *arg;
	struct nm_measure *measure;   /* a measured round (measure.h), or NULL */
	int *cpus;                /* out, optional: the CPU of each worker */
} nm_round;

/* This process's index among the ranks on its host (from the launcher's
 * environment; 0 when unknown), so ranks sharing a host can use distinct cores. */
int nm_local_rank(void);

/* Whether the threads that busy-poll on the ranks of this job sharing this
 * rank's host (busy: this rank's own) outnumber the CPUs this rank may run on
 * (collective). There a waiter that spins holds the CPU the thread it waits
 * for needs (one vCPU: for a whole time slice), so a wait for another
 * process's answer yields when idle, as Open MPI's yield_when_idle does when
 * oversubscribed; with a CPU per thread, the papers' setups, it only spins.
 * *host_busy and *cpus, when not NULL, get the two counts. */
bool nm_host_oversubscribed(int busy, int *host_busy, int *cpus);
/* The same for busy threads bound to the CPUs in *set (NULL: this rank's
 * own affinity, as above): the busy threads of this host's ranks whose sets
 * share a CPU with *set, against the CPUs of all those sets. Threads a
 * placement binds to one NUMA node contend there, not over the whole host. */
bool nm_host_oversubscribed_on(int busy, const cpu_set_t *set, int *host_busy, int *cpus);
/* Its pure part: the sum of busy[r] over the ranks r < n on host[me]'s host
 * whose sets[r] share a CPU with sets[me]; *cpus: the CPUs of their union. */
int nm_host_contenders(const uint64_t *host, const int *busy, const cpu_set_t *sets, int n, int me, int *cpus);
/* The sum of v[r] over the ranks r < n on host[me]'s host (n = me: the
 * ranks before me there; the pure part). */
int nm_host_sum(const uint64_t *host, const int *v, int n, int me);

/* setup(w) runs on every worker before the barrier, body(w) after the
 * release. The calling (main) thread takes part in the job-wide barrier,
 * starts the common measured interval once every worker has arrived at it
 * (measure.h), then waits asleep, ending the job if a worker fails fatally. */
void nm_workers_run(const nm_round *r);
/* For a rank that takes no part in a round: the same collective calls as
 * nm_workers_run, with no threads (ms: the round's measure, or NULL). */
void nm_workers_sit_out(struct nm_measure *ms);
#endif
