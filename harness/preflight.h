/* `netmem preflight` (preflight.c: options, the limits every rank reads, the
 * job; preflight_eval.c: rank 0's verdict for each config). */
#ifndef NM_PREFLIGHT_H
#define NM_PREFLIGHT_H
#include "needs.h"
#include <jansson.h>

/* After nm_boot_init: argv[0] is "preflight". Returns the exit status. */
int nm_preflight_main(int argc, char **argv);
/* `netmem preflight --help` (no MPI). */
void nm_preflight_usage(void);

/* The hosts of the preflight job, in the order of their lowest rank, each
 * with that rank's limits; the time model for their kind of device. */
typedef struct nm_pf_hosts {
	int n;
	const nm_limits *lim;
	const nm_time_model *model;
} nm_pf_hosts;

typedef enum { NM_PF_FITS, NM_PF_NO_FIT, NM_PF_UNCHECKED } nm_pf_verdict;

/* Rank 0, no MPI: the verdict of one parsed config (its schema already
 * checked) for the job it will have: its "ranks" (else np) placed on the
 * hosts as run_all.sh places them. {"config", "experiment", "ranks",
 * "verdict": "fits"|"does_not_fit"|"not_checked", "reason", "points",
 * "reps", "expected_seconds", "peak": {...}}. */
json_t *nm_preflight_config(const char *path, const json_t *cfg, int np, const nm_pf_hosts *h,
			    nm_pf_verdict *v);
#endif
