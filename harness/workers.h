/* Worker threads: N per rank, each pinned to its own core (hwloc), all
 * released at once after a job-wide barrier so that ranks measure the same
 * interval. Workers never call MPI. */
#ifndef NM_WORKERS_H
#define NM_WORKERS_H
#include <stdatomic.h>

typedef struct nm_worker {
	int index;
	int cpu;       /* OS CPU it is pinned to, -1 if pinning failed */
	void *arg;
} nm_worker;

/* This process's index among the ranks on its host (from the launcher's
 * environment; 0 when unknown), so ranks sharing a host can use distinct cores. */
int nm_local_rank(void);

/* setup(w) runs on every worker before the barrier (allocate, touch memory),
 * body(w) after the release. The calling (main) thread takes part in the
 * job-wide barrier, then waits, ending the job if a worker fails fatally.
 * numa_node >= 0 restricts pinning to that node's cores. Returns the CPU of
 * each worker in cpus[] (size n) when cpus is not NULL. */
void nm_workers_run(int n, int numa_node, void (*setup)(nm_worker *), void (*body)(nm_worker *),
		    void *arg, int *cpus);
/* For a rank that takes no part in a point: the same collective calls as
 * nm_workers_run, with no threads. */
void nm_workers_sit_out(void);
#endif
