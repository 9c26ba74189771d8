/* The independent load of the paper's section V-C as a separate process:
 * `netmem numa-load` (workloads/numa/numa_load.c) started with posix_spawn (no
 * fork of a process holding registered memory), talking over two pipes:
 * it prints one JSON line once its buffer is placed and its threads run,
 * and stops when its stdin closes, printing a final JSON line with its
 * throughput and its verified placement. If the parent dies, the child sees
 * end of file and stops too. */
#ifndef NM_NUMA_LOADPROC_H
#define NM_NUMA_LOADPROC_H
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct nm_loadproc {
	pid_t pid;
	int to_child;     /* its stdin */
	FILE *from_child; /* its stdout */
	json_t *ready;    /* the first line */
} nm_loadproc;

/* Starts it and waits for its ready line. node < 0 = NUMA-agnostic (any).
 * 0, or -1 with err (the child's own message is on stderr). */
int nm_loadproc_start(nm_loadproc *lp, int threads, int node, int64_t buf_bytes, double write_ratio,
		      uint64_t seed, char *err, size_t errlen);
/* Stops it; returns its final JSON object (new reference) or NULL with err. */
json_t *nm_loadproc_stop(nm_loadproc *lp, char *err, size_t errlen);
#endif
