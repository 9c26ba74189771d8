/* CPU and NUMA topology (hwloc), for pinning worker threads and for the
 * metadata. The topology is loaded once; every query is read-only afterwards,
 * which hwloc allows from any number of threads. Queries made before
 * nm_topo_init() load it on first use; if loading fails they fall back to
 * "one node, sysconf CPUs, no pinning" so a benchmark still runs unpinned. */
#ifndef NM_TOPO_H
#define NM_TOPO_H
#include <jansson.h>

/* 0 on success (also when already loaded), -1 if hwloc cannot load. */
int nm_topo_init(void);
/* Number of NUMA nodes, >= 1. */
int nm_topo_numa_nodes(void);
/* Number of cores (PUs if hwloc sees no cores), >= 1. */
int nm_topo_cores(void);
/* OS index of the PU worker thread `thread_index` should run on: threads go
 * to distinct cores (first PU of each, in topology order), wrapping when
 * there are more threads than cores. numa_node >= 0 restricts the choice to
 * the cores local to that node (OS index); a CPU-less node counts the cores
 * of the locality hwloc attaches it to. -1 if the node does not exist, has no
 * local cores, thread_index < 0, or the topology is unavailable. */
int nm_topo_pick_cpu(int thread_index, int numa_node);
/* Bind the calling thread to PU os_cpu. 0 / -1. */
int nm_topo_pin_self(int os_cpu);
/* OS index of the NUMA node most local to PU os_cpu (the one with the
 * smallest locality containing it), -1 if unknown. */
int nm_topo_cpu_numa_node(int os_cpu);
/* {"numa_nodes": [{"os_index", "memory_bytes", "cpus": [PU os indexes]}],
 *  "cores", "pus", "packages"}; JSON null if the topology is unavailable.
 * New reference. */
json_t *nm_topo_json(void);
/* Release the topology; a later query loads it again. Call only when no other
 * thread uses the topology. */
void nm_topo_fini(void);
#endif
