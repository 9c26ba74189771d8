/* The packet path of netmem clover's contention resolution: a process that
 * sits where the clients' RoCEv2 packets really pass (netfilter's NFQUEUE on
 * the memory node's host, or on a Linux host routing between clients and
 * memory nodes) and hands each packet to primitives/packet/clover_resolve.h.
 *
 * `netmem clover-path` is that process (see its --help); netmem clover starts
 * and stops one per point through these calls, with rewriting off or on, so
 * both arms of a comparison cross the same path. */
#ifndef NM_CLOVER_PATH_H
#define NM_CLOVER_PATH_H
#include "clover_resolve.h"
#include "service.h"
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cl_path_cfg {
	int queue;                 /* NFQUEUE number (the netfilter table is named after it) */
	bool rewrite;              /* off: observe and count only */
	bool forward;              /* hook forward (a routing host) rather than local (the memory node's host) */
	size_t conns;              /* client connections tracked at most */
	size_t ntrack;             /* keys tracked (the hottest), with their first tails: */
	const uint64_t *keys, *tails;
	double timeout;            /* seconds to come up */
} cl_path_cfg;

/* The files the suite's side shares with the process (root on both ends) live
 * in a private directory (mkdtemp, mode 0700), never in $TMPDIR itself: a
 * name there can be guessed and a symlink planted at it by any user. */
typedef struct cl_path {
	nm_service svc;
	char dir[1024];            /* the private directory ("": none) */
	char track[1100];          /* dir/track: the keys the process tracks */
	char counters[1100];       /* dir/counters: what the process saw, written when it stops */
	bool running;
} cl_path;

/* What one path process saw: all 64-bit counters, so ranks can sum them
 * as an array (nm_boot_sum_u64_array). */
typedef struct cl_path_stats {
	nm_rw_counters rw;
	uint64_t queue_overruns;   /* batches of packets the kernel dropped at the queue (RC resends them) */
	uint64_t verdict_errors;   /* packets whose verdict could not be given */
} cl_path_stats;
#define CL_PATH_STATS_WORDS (sizeof(cl_path_stats) / sizeof(uint64_t))
_Static_assert(sizeof(cl_path_stats) % sizeof(uint64_t) == 0 && sizeof(nm_rw_counters) == 17 * sizeof(uint64_t),
	       "cl_path_stats must be 64-bit counters only");

/* Starts the path process and waits until its queue and rules are in place.
 * 0, or -1 with one line in err (nothing left running). */
int cl_path_start(cl_path *p, const cl_path_cfg *cfg, char *err, size_t errlen);
/* Stops it (its netfilter rules go with it) and reads its counters into
 * *out. 0, or -1 with one line in err. Idempotent. */
int cl_path_stop(cl_path *p, cl_path_stats *out, char *err, size_t errlen);

/* The stats as a JSON object with one named field per counter. */
json_t *cl_path_stats_json(const cl_path_stats *s);
/* And back: 0, or -1 when a counter is missing or not an integer. */
int cl_path_stats_from_json(const json_t *o, cl_path_stats *s);

/* The process's side: its counters written to path atomically (durable.h).
 * 0 / -1 with errno. */
int cl_path_write_counters(const char *path, const cl_path_stats *s);
/* The suite's side: makes p's private directory under $TMPDIR (or /tmp) and
 * names the files in it. 0 / -1 with errno. */
int cl_path_files_make(cl_path *p);
/* Removes the directory and whatever is in it (a temp file of a killed
 * process included). */
void cl_path_files_remove(cl_path *p);
#endif
