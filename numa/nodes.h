/* This host's NUMA topology for placement: nodes (libnuma / sysfs: which
 * exist, their CPUs, whether they have memory, SLIT distances) and the node
 * of each RDMA device, from two sources:
 *   sysfs   /sys/class/infiniband/DEV/device/numa_node, the kernel's answer
 *           for the PCI function (what the paper's authors read);
 *   hwloc   the PCI locality: the non-I/O ancestor of the device's OS object
 *           in an hwloc topology loaded with I/O objects.
 * sysfs wins when it names a node; otherwise hwloc's locality when it is one
 * node; otherwise the NIC has no node (-1: Soft-RoCE and siw have no PCI
 * device, a single-node host reports -1) and `nic` means the lowest node,
 * marked "assumed" (numa/place.h). Only the main thread calls these. */
#ifndef NM_NUMA_NODES_H
#define NM_NUMA_NODES_H
#include "place.h"
#include <infiniband/verbs.h>
#include <jansson.h>
#include <sched.h>
#include <stdbool.h>

typedef struct nm_nic_numa {
	char device[64];
	int sysfs_node;       /* -1 when sysfs says -1 or has no file */
	int hwloc_node;       /* -1 when hwloc places it on no single node */
	int node;             /* what `nic` resolves to */
	bool assumed;         /* node is a default, not the NIC's */
	const char *source;   /* "sysfs", "hwloc", "assumed" */
} nm_nic_numa;

/* Fills v from this host; dev (may be NULL) sets v->nic_node and *nic. */
void nm_numa_view_load(nm_numa_view *v, struct ibv_device *dev, nm_nic_numa *nic);
/* NIC locality of one device. */
void nm_numa_nic(const nm_numa_view *v, struct ibv_device *dev, nm_nic_numa *nic);
/* {"device", "sysfs_numa_node", "hwloc_numa_node", "node", "assumed", "source", "note"?} */
json_t *nm_nic_numa_json(const nm_nic_numa *n);
/* {"hostname", "nodes": [{"node", "cpus": [..], "memory_bytes"}], "distances": [[..]]} */
json_t *nm_numa_view_json(const nm_numa_view *v);
/* The CPU list of a node (OS indexes), count returned; at most max. */
int nm_numa_node_cpus(int node, int *cpus, int max);
/* The same as a CPU set (those below CPU_SETSIZE); their count returned. */
int nm_numa_node_cpuset(int node, cpu_set_t *set);
/* True when /proc/cpuinfo carries the "hypervisor" flag. */
bool nm_numa_virtualized(void);

/* Binds the calling thread's CPUs and memory policy to node (MPOL_BIND), so
 * that what it allocates now (QP and CQ rings the provider or the kernel
 * allocates in this thread's context) lands on node; the previous affinity
 * and policy are saved in *s for nm_numa_unbind_thread. node < 0 does
 * nothing. 0, or -1 with one line in err. */
typedef struct nm_numa_saved {
	bool active;
	cpu_set_t cpus;
	int mode;
	unsigned long mask[NM_NUMA_MAX_ID / (8 * sizeof(unsigned long)) + 1];
} nm_numa_saved;
int nm_numa_bind_thread(int node, nm_numa_saved *s, char *err, size_t errlen);
void nm_numa_unbind_thread(nm_numa_saved *s);
/* Runs fn(arg) on a new thread bound to node (nm_numa_bind_thread) and,
 * when cpu >= 0, pinned to that CPU; waits for it. The caller's own CPU and
 * memory policy stay as they are. *ran_on (if not NULL): the CPU fn ran on
 * at its end. 0, or -1 with one line in err. */
int nm_numa_run_on(int node, int cpu, void (*fn)(void *), void *arg, int *ran_on, char *err, size_t errlen);
/* Memory policy of the calling thread as text ("default", "bind:1", ...). */
void nm_numa_policy_str(char *buf, size_t len);

/* Maps len bytes interleaved over every node that has memory (MPOL_INTERLEAVE),
 * pre-faulted; the NUMA-agnostic load's buffer. NULL with err on failure. */
void *nm_numa_alloc_interleaved(size_t len, size_t *alloc_len, char *err, size_t errlen);
#endif
