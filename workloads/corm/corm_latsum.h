/* Figs. 9 and 10 in the paper's own terms (workloads/corm/corm_latsum.c):
 * what Sec. 4.1 states as a difference or an ordering of two operations'
 * medians, computed from the latency bench's histograms so that a claim
 * can select it as one metric. */
#ifndef NM_CORM_LATSUM_H
#define NM_CORM_LATSUM_H
#include "stats.h"
#include <jansson.h>

/* The operation kinds the numbers use (a subset of corm_lat). */
typedef enum { CORM_LS_RAW_RPC, CORM_LS_ALLOC, CORM_LS_FREE, CORM_LS_SCAN, CORM_LS_INDIRECT_RPC, CORM_LS_RELEASE,
	       CORM_LS_N } corm_ls_kind;

/* Sets in m, from the kinds' histograms (ns):
 *   alloc_extra_us, free_extra_us, release_extra_us: the operation's median
 *     minus the raw RPC's, in us, 0 when it is no slower ("Alloc and Free
 *     calls add about 0.5 us to the base RPC call"; "The pointer release
 *     costs about 0.3 us");
 *   rpc_backup_over_scan: the median of an RPC read through an indirect
 *     pointer over that of a ScanRead ("using an RPC call to backup a
 *     failed DirectRead is more expensive than a ScanRead").
 * A number whose kinds lack samples (or a ratio over a zero median) is
 * absent rather than made up. */
void corm_latency_summary(const nm_hist *const h[CORM_LS_N], json_t *m);
#endif
