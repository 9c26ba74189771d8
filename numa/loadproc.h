/* The independent load of the paper's section V-C as a separate process:
 * `netmem numa-load` (workloads/numa/numa_load.c) started with posix_spawn (no
 * fork of a process holding registered memory), talking over two pipes:
 * it prints one JSON line once its buffer is placed and its threads run,
 * and stops when its stdin closes, printing a final JSON line with its
 * throughput and its verified placement. If the parent dies, the child sees
 * end of file and stops too.
 *
 * No read of the child waits for ever: a child that prints nothing for the
 * deadline (the point's --timeout: placing its buffer is a set-up step the
 * timeout covers) is killed and the call fails with timed_out set, so the
 * caller ends the job naming the wait (nm_stalled). Meanwhile the rank
 * tells the others it is alive (nm_boot_alive): the verdict is its own. */
#ifndef NM_NUMA_LOADPROC_H
#define NM_NUMA_LOADPROC_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct nm_loadproc {
	pid_t pid;
	int to_child;     /* its stdin */
	int from_child;   /* its stdout */
	char *in;         /* what it printed that is not yet a whole line */
	size_t in_len, in_cap;
	json_t *ready;    /* the first line */
	double deadline;  /* seconds of silence before a read gives up */
	bool timed_out;   /* the last call failed because the child was silent */
	double waited;    /* how long that call waited, seconds */
} nm_loadproc;

/* Starts it and waits for its ready line, for at most deadline seconds of
 * silence. node < 0 = NUMA-agnostic (any). 0, or -1 with err (the child's
 * own message is on stderr; timed_out when it said nothing in time). */
int nm_loadproc_start(nm_loadproc *lp, int threads, int node, int64_t buf_bytes, double write_ratio,
		      uint64_t seed, double deadline, char *err, size_t errlen);
/* Stops it; returns its final JSON object (new reference) or NULL with err
 * (timed_out when it printed no final line, or did not exit, in time). */
json_t *nm_loadproc_stop(nm_loadproc *lp, char *err, size_t errlen);
#endif
