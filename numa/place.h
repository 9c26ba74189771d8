/* Placement requests and their resolution against one host's NUMA topology.
 * Pure logic (no libnuma, no hwloc, no syscalls): the caller describes the
 * host in an nm_numa_view (numa/nodes.c fills one from hwloc and sysfs), so
 * the rules below are unit-tested on any machine.
 *
 * A request is one of
 *   any     no placement: the kernel's policy, threads on any core
 *   nic     the NUMA node the RDMA NIC is attached to (PCI locality)
 *   other   the node nearest to the NIC's node that is not the NIC's node
 *   N       NUMA node N (its OS index, as numactl and sysfs number them)
 *
 * Decisions (the paper has two-socket machines only):
 *   - A NIC without a NUMA node (sysfs numa_node -1: Soft-RoCE, siw, a VM
 *     without vNUMA, or a single-node host) is taken to be on the lowest
 *     node (node 0 on every Linux machine); the resolution says "assumed".
 *   - On more than two nodes, `other` is the nearest node by SLIT distance
 *     (ties: the lowest index) among the nodes that can hold the request:
 *     nodes with memory for buffers, nodes with CPUs for threads. The paper's
 *     RDMA-remote is one QPI hop away; the nearest node is that hop.
 *   - `other` on a one-node host, a node that does not exist, or a node
 *     without memory (buffers) / without CPUs (threads) cannot be resolved:
 *     the caller reports it (exit 2, or a skipped point in a sweep). */
#ifndef NM_NUMA_PLACE_H
#define NM_NUMA_PLACE_H
#include <stdbool.h>
#include <stddef.h>

#define NM_NUMA_MAX_NODES 64
#define NM_NUMA_MAX_ID 1023

typedef enum { NM_PLACE_ANY, NM_PLACE_NIC, NM_PLACE_OTHER, NM_PLACE_NODE } nm_place_kind;

typedef struct nm_place {
	nm_place_kind kind;
	int node;             /* NM_PLACE_NODE only */
} nm_place;
/* The NUMA nodes a host needs for a placement to be honoured: 2 for
 * "other" (a node that is not the NIC's), node + 1 for a node number. */
static inline int nm_place_nodes_needed(const nm_place *p)
{
	return p->kind == NM_PLACE_OTHER ? 2 : p->kind == NM_PLACE_NODE ? p->node + 1 : 1;
}

typedef struct nm_numa_node {
	int id;               /* OS index */
	int ncpus;            /* PUs whose local node this is */
	bool has_memory;
} nm_numa_node;

typedef struct nm_numa_view {
	int nnodes;                            /* >= 1 */
	nm_numa_node node[NM_NUMA_MAX_NODES];  /* by increasing id */
	/* SLIT distances by position in node[] (10 = local); 0 = unknown */
	int dist[NM_NUMA_MAX_NODES][NM_NUMA_MAX_NODES];
	int nic_node;         /* the NIC's node, -1 when the system does not say */
	char hostname[64];
} nm_numa_view;

/* What a placement needs from its node. */
typedef enum { NM_NEED_MEMORY, NM_NEED_CPUS } nm_place_need;

/* "any", "nic", "other" or a node number 0..NM_NUMA_MAX_ID. 0, or -1 with
 * one line in err naming `what` (e.g. "--buf-node"). */
int nm_place_parse(const char *s, nm_place *p, const char *what, char *err, size_t errlen);
/* Canonical text of a request ("any", "nic", "other", "3"); static storage
 * per call site is not needed: writes into buf. */
const char *nm_place_str(const nm_place *p, char *buf, size_t len);

/* Position of node id in v->node[], or -1. */
int nm_view_index(const nm_numa_view *v, int id);
/* The node `nic` means: v->nic_node when known and present, else the lowest
 * node (*assumed set). */
int nm_view_nic_node(const nm_numa_view *v, bool *assumed);

/* Resolves p on v. Returns 0 and sets *node (-1 for any), or -1 with the
 * reason in why (one line naming `what` and the host). */
int nm_place_resolve(const nm_place *p, const nm_numa_view *v, nm_place_need need, int *node,
		     const char *what, char *why, size_t whylen);
#endif
