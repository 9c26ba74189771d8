/* Placement records for experiments: where a thread runs (intended node,
 * pinned CPU, the CPU it was seen on at the start and at the end of the run),
 * whether a job's NUMA numbers are real, and the collective decision for a
 * placement that cannot be resolved (exit 2 for a single value, a skipped
 * point when the user swept that option).
 *
 * "numa_real" is false when any rank's NIC is emulated (Soft-RoCE, siw: the
 * data never crosses a PCIe link, so no NUMA effect is measured), when a
 * rank's host has one NUMA node (nothing to compare), or when a NIC reports
 * no NUMA node (so `nic` is an assumption). A virtual machine is noted
 * ("virtualized") but is not by itself a reason: a VM pinned to host nodes
 * with a passed-through NIC measures real NUMA effects. */
#ifndef NM_NUMA_PLACEMENT_H
#define NM_NUMA_PLACEMENT_H
#include "nodes.h"
#include "place.h"
#include <jansson.h>
#include <stdbool.h>

typedef struct nm_cpu_place {
	int intended;          /* node, -1 = any */
	int cpu;               /* the CPU it was pinned to, -1 = not pinned */
	int cpu_node;          /* node of cpu */
	int ran_start, ran_end;             /* sched_getcpu() */
	int ran_start_node, ran_end_node;
} nm_cpu_place;

/* Call from the thread itself after pinning (start) and after its work (end). */
void nm_cpu_place_start(nm_cpu_place *p, int pinned_cpu, int intended);
void nm_cpu_place_end(nm_cpu_place *p);
bool nm_cpu_place_ok(const nm_cpu_place *p);
/* {"thread": index, "intended", "cpu", "cpu_node", "ran_on": [start, end],
 *  "ran_on_nodes": [..], "ok"}; intended is null for any. */
json_t *nm_cpu_place_json(const nm_cpu_place *p, int index);
void nm_cpu_place_why(const nm_cpu_place *p, const char *what, char *buf, size_t len);

/* Reasons this rank's numbers are not NUMA-real (JSON array of strings,
 * empty when real). */
json_t *nm_numa_unreal_reasons(const nm_numa_view *v, const nm_nic_numa *nic, bool emulated);

/* Collective (every rank calls it once per point). key: the option whose
 * value this rank could not resolve (NULL when it resolved everything), why:
 * the reason. When every rank resolved: returns 0. When a failing option is
 * not swept in spec (one value for the whole job): ends the job with exit
 * status 2 and the lowest failing rank's reason. Otherwise the point is
 * skipped: rank 0 fills out with {"valid": true, "skipped": reason,
 * "placement": {"skipped_on": [{"rank", "reason"}]}} and every rank returns 1. */
int nm_placement_unresolved(const json_t *spec, const char *key, const char *why, json_t *out);
#endif
