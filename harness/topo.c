#include "topo.h"
#include "log.h"
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Loading takes milliseconds (it walks sysfs), so it happens once under the
 * lock; afterwards readers only need the acquire load to see the loaded
 * topology. A failed load is remembered so the warning is printed once. */
enum { TOPO_UNLOADED = 0, TOPO_LOADED = 1, TOPO_FAILED = -1 };
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int topo_state;
static hwloc_topology_t topo;

int nm_topo_init(void)
{
	int s = atomic_load_explicit(&topo_state, memory_order_acquire);
	if (s != TOPO_UNLOADED)
		return s == TOPO_LOADED ? 0 : -1;
	pthread_mutex_lock(&topo_lock);
	s = atomic_load_explicit(&topo_state, memory_order_relaxed);
	if (s == TOPO_UNLOADED) {
		hwloc_topology_t t;
		s = TOPO_FAILED;
		if (hwloc_topology_init(&t) == 0) {
			if (hwloc_topology_load(t) == 0) {
				topo = t;
				s = TOPO_LOADED;
			} else {
				int e = errno;
				hwloc_topology_destroy(t);
				errno = e;
			}
		}
		if (s == TOPO_FAILED)
			nm_warn("hwloc cannot load the CPU topology (%s); threads will not be pinned",
				strerror(errno));
		atomic_store_explicit(&topo_state, s, memory_order_release);
	}
	pthread_mutex_unlock(&topo_lock);
	return s == TOPO_LOADED ? 0 : -1;
}

static hwloc_topology_t get_topo(void)
{
	return nm_topo_init() == 0 ? topo : NULL;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < INT_MAX ? (int)n : 1;
}

/* Some virtual machines and containers expose PUs without a core level. */
static hwloc_obj_type_t core_type(hwloc_topology_t t)
{
	return hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

int nm_topo_numa_nodes(void)
{
	hwloc_topology_t t = get_topo();
	if (!t)
		return 1;
	int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	return n > 0 ? n : 1;
}

int nm_topo_cores(void)
{
	hwloc_topology_t t = get_topo();
	if (!t)
		return online_cpus();
	int n = hwloc_get_nbobjs_by_type(t, core_type(t));
	return n > 0 ? n : online_cpus();
}

int nm_topo_pick_cpu(int thread_index, int numa_node)
{
	hwloc_topology_t t = get_topo();
	if (!t || thread_index < 0)
		return -1;
	hwloc_const_cpuset_t within = hwloc_topology_get_topology_cpuset(t);
	if (numa_node >= 0) {
		hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t, (unsigned)numa_node);
		if (!node || !node->cpuset || hwloc_bitmap_iszero(node->cpuset))
			return -1;
		within = node->cpuset;
	}
	hwloc_obj_type_t type = core_type(t);
	int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t, within, type);
	if (ncores <= 0)
		return -1;
	hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(t, within, type,
							       (unsigned)(thread_index % ncores));
	if (!core || !core->cpuset)
		return -1;
	/* Once every core has a thread, the next round goes to the SMT siblings
	 * rather than stacking two threads on the same PU. */
	int npus = hwloc_bitmap_weight(core->cpuset);
	if (npus <= 0)
		return -1;
	int sibling = (thread_index / ncores) % npus;
	int pu = hwloc_bitmap_first(core->cpuset);
	while (sibling-- > 0 && pu >= 0)
		pu = hwloc_bitmap_next(core->cpuset, pu);
	return pu;
}

int nm_topo_pin_self(int os_cpu)
{
	hwloc_topology_t t = get_topo();
	if (!t || os_cpu < 0)
		return -1;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return -1;
	int rc = hwloc_bitmap_only(set, (unsigned)os_cpu);
	if (rc == 0)
		rc = hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(set);
	return rc == 0 ? 0 : -1;
}

/* A memory-only node (CXL, HBM) carries the cpuset of the locality it is
 * attached to, so several nodes may contain a PU: the most local one is the
 * one with the fewest PUs. */
static hwloc_obj_t local_node(hwloc_topology_t t, unsigned os_cpu)
{
	hwloc_obj_t best = NULL;
	int best_w = INT_MAX;
	for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); n;
	     n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) {
		if (!n->cpuset || !hwloc_bitmap_isset(n->cpuset, os_cpu))
			continue;
		int w = hwloc_bitmap_weight(n->cpuset);
		if (w >= 0 && w < best_w) {
			best = n;
			best_w = w;
		}
	}
	return best;
}

int nm_topo_cpu_numa_node(int os_cpu)
{
	hwloc_topology_t t = get_topo();
	if (!t || os_cpu < 0 || !hwloc_get_pu_obj_by_os_index(t, (unsigned)os_cpu))
		return -1;
	hwloc_obj_t n = local_node(t, (unsigned)os_cpu);
	return n ? (int)n->os_index : -1;
}

json_t *nm_topo_json(void)
{
	hwloc_topology_t t = get_topo();
	if (!t)
		return json_null();
	json_t *nodes = json_array();
	for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); n;
	     n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) {
		/* List the PUs whose local node this is (as numactl does), so a
		 * memory-only node shows no CPUs rather than its whole locality. */
		json_t *cpus = json_array();
		if (n->cpuset) {
			int pu;
			hwloc_bitmap_foreach_begin(pu, n->cpuset)
			{
				if (local_node(t, (unsigned)pu) == n)
					json_array_append_new(cpus, json_integer(pu));
			}
			hwloc_bitmap_foreach_end();
		}
		json_t *o = json_object();
		json_object_set_new(o, "os_index", json_integer(n->os_index));
		json_object_set_new(o, "memory_bytes",
				    json_integer(n->attr ? (json_int_t)n->attr->numanode.local_memory : 0));
		json_object_set_new(o, "cpus", cpus);
		json_array_append_new(nodes, o);
	}
	json_t *j = json_object();
	json_object_set_new(j, "numa_nodes", nodes);
	json_object_set_new(j, "cores", json_integer(nm_topo_cores()));
	json_object_set_new(j, "pus", json_integer(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU)));
	json_object_set_new(j, "packages", json_integer(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE)));
	return j;
}

void nm_topo_fini(void)
{
	pthread_mutex_lock(&topo_lock);
	if (atomic_load_explicit(&topo_state, memory_order_relaxed) == TOPO_LOADED)
		hwloc_topology_destroy(topo);
	topo = NULL;
	atomic_store_explicit(&topo_state, TOPO_UNLOADED, memory_order_release);
	pthread_mutex_unlock(&topo_lock);
}
