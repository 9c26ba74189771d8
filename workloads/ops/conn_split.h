/* NUMA Fig. 3 per connection in the paper's own terms (Sec. V-A: "The first
 * seven QPs created have lower average latency than the remainder ... a
 * 5000ns differential is observed for 24 QPs and 12000ns for 32 QPs"),
 * computed from a point's per-connection records so that a claim can
 * select it as one metric (workloads/ops/conn_split.c). */
#ifndef NM_CONN_SPLIT_H
#define NM_CONN_SPLIT_H
#include <jansson.h>

/* The connections the paper counts as the first ones. */
#define OPS_SPLIT_FIRST 7

/* From conns (metrics.per_qp, or metrics.per_thread when a thread is one
 * connection: [{rank, thread, target, qp, lat_mean_us}]), rank's
 * connections in creation order (by target, thread, QP), and split after
 * the first OPS_SPLIT_FIRST: {first_mean_ns, later_mean_ns,
 * later_extra_ns}, each group's mean of its connections' mean latencies
 * (each connection counts once, as the paper compares QPs) and how much
 * the later group's exceeds the first's, 0 when it does not. A connection
 * without a positive mean (it measured nothing) is left out of its group;
 * NULL when a group is left empty. */
json_t *ops_conn_split(const json_t *conns, long rank);
#endif
