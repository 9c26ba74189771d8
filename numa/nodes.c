#include "nodes.h"
#include <errno.h>
#include <hwloc.h>
#include <hwloc/openfabrics-verbs.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MASK_BITS (8 * sizeof(unsigned long) * (NM_NUMA_MAX_ID / (8 * sizeof(unsigned long)) + 1))

int nm_numa_node_cpus(int node, int *cpus, int max)
{
	char path[96], line[4096];
	snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
	FILE *f = fopen(path, "r");
	if (!f) {
		/* no sysfs node directory: a kernel without NUMA; node 0 has every CPU */
		if (node != 0)
			return 0;
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		int k = 0;
		for (long c = 0; c < n && k < max; c++)
			cpus[k++] = (int)c;
		return k;
	}
	int k = 0;
	if (fgets(line, sizeof line, f)) {
		/* "0-3,8,10-11" */
		for (char *p = line; *p && *p != '\n' && k < max;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;
			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (long c = a; c <= b && k < max; c++)
				cpus[k++] = (int)c;
			p = *end == ',' ? end + 1 : end;
		}
	}
	fclose(f);
	return k;
}

int nm_numa_node_cpuset(int node, cpu_set_t *set)
{
	int cpus[1024], n = nm_numa_node_cpus(node, cpus, 1024);
	CPU_ZERO(set);
	for (int i = 0; i < n; i++)
		if (cpus[i] < CPU_SETSIZE)
			CPU_SET(cpus[i], set);
	return CPU_COUNT(set);
}

static int sysfs_nic_node(struct ibv_device *dev)
{
	char path[PATH_MAX], line[32];
	if (snprintf(path, sizeof path, "%s/device/numa_node", dev->ibdev_path) >= (int)sizeof path)
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int v = -1;
	if (!fgets(line, sizeof line, f) || sscanf(line, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v >= 0 ? v : -1;
}

/* An hwloc topology with I/O objects, loaded on first use. */
static hwloc_topology_t io_topo;
static int io_state; /* 0 unloaded, 1 loaded, -1 failed */

static hwloc_topology_t get_io_topo(void)
{
	if (io_state == 0) {
		io_state = -1;
		if (hwloc_topology_init(&io_topo) == 0) {
			hwloc_topology_set_io_types_filter(io_topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
			if (hwloc_topology_load(io_topo) == 0)
				io_state = 1;
			else
				hwloc_topology_destroy(io_topo);
		}
	}
	return io_state == 1 ? io_topo : NULL;
}

static int hwloc_nic_node(struct ibv_device *dev)
{
	hwloc_topology_t t = get_io_topo();
	if (!t)
		return -1;
	hwloc_obj_t os = hwloc_ibv_get_device_osdev_by_name(t, ibv_get_device_name(dev));
	if (!os)
		return -1;
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, os);
	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	/* a whole one-node machine is no locality either; the caller then
	 * assumes the lowest node, which is the same node */
	return hwloc_bitmap_first(anc->nodeset);
}

void nm_numa_nic(const nm_numa_view *v, struct ibv_device *dev, nm_nic_numa *nic)
{
	memset(nic, 0, sizeof *nic);
	snprintf(nic->device, sizeof nic->device, "%s", dev ? ibv_get_device_name(dev) : "");
	nic->sysfs_node = dev ? sysfs_nic_node(dev) : -1;
	nic->hwloc_node = dev ? hwloc_nic_node(dev) : -1;
	nm_numa_view tmp = *v;
	tmp.nic_node = nic->sysfs_node >= 0 ? nic->sysfs_node : nic->hwloc_node;
	nic->node = nm_view_nic_node(&tmp, &nic->assumed);
	nic->source = nic->assumed ? "assumed" : nic->sysfs_node >= 0 ? "sysfs" : "hwloc";
}

void nm_numa_view_load(nm_numa_view *v, struct ibv_device *dev, nm_nic_numa *nic)
{
	memset(v, 0, sizeof *v);
	if (gethostname(v->hostname, sizeof v->hostname - 1) != 0)
		v->hostname[0] = 0;
	int cpus[1024];
	if (numa_available() < 0) {
		v->nnodes = 1;
		v->node[0] = (nm_numa_node){.id = 0, .ncpus = nm_numa_node_cpus(0, cpus, 1024),
					    .has_memory = true};
		v->dist[0][0] = 10;
	} else {
		for (int id = 0; id <= numa_max_node() && v->nnodes < NM_NUMA_MAX_NODES; id++) {
			if (!numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)id))
				continue;
			long long free_b = 0;
			v->node[v->nnodes++] = (nm_numa_node){
				.id = id, .ncpus = nm_numa_node_cpus(id, cpus, 1024),
				.has_memory = numa_node_size64(id, &free_b) > 0};
		}
		if (v->nnodes == 0) {
			v->nnodes = 1;
			v->node[0] = (nm_numa_node){.id = 0, .ncpus = nm_numa_node_cpus(0, cpus, 1024),
						    .has_memory = true};
		}
		for (int i = 0; i < v->nnodes; i++)
			for (int k = 0; k < v->nnodes; k++)
				v->dist[i][k] = numa_distance(v->node[i].id, v->node[k].id);
	}
	v->nic_node = -1;
	if (dev) {
		nm_nic_numa n;
		nm_numa_nic(v, dev, &n);
		v->nic_node = n.assumed ? -1 : n.node;
		if (nic)
			*nic = n;
	} else if (nic) {
		nm_numa_nic(v, NULL, nic);
	}
}

json_t *nm_nic_numa_json(const nm_nic_numa *n)
{
	json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:b, s:s}", "device", n->device, "sysfs_numa_node",
			      n->sysfs_node, "hwloc_numa_node", n->hwloc_node, "node", n->node,
			      "assumed", n->assumed, "source", n->source);
	if (n->assumed)
		json_object_set_new(j, "note", json_string(
			"the NIC reports no NUMA node (sysfs numa_node -1 and no single-node PCI "
			"locality: a software device such as Soft-RoCE, a VM, or a one-node host); "
			"'nic' is taken as the lowest node"));
	return j;
}

json_t *nm_numa_view_json(const nm_numa_view *v)
{
	json_t *nodes = json_array(), *dist = json_array();
	int cpus[1024];
	for (int i = 0; i < v->nnodes; i++) {
		int n = nm_numa_node_cpus(v->node[i].id, cpus, 1024);
		json_t *cl = json_array(), *row = json_array();
		for (int k = 0; k < n; k++)
			json_array_append_new(cl, json_integer(cpus[k]));
		long long mem = numa_available() < 0 ? 0 : numa_node_size64(v->node[i].id, NULL);
		json_array_append_new(nodes, json_pack("{s:i, s:o, s:I}", "node", v->node[i].id, "cpus", cl,
						       "memory_bytes", (json_int_t)(mem > 0 ? mem : 0)));
		for (int k = 0; k < v->nnodes; k++)
			json_array_append_new(row, json_integer(v->dist[i][k]));
		json_array_append_new(dist, row);
	}
	return json_pack("{s:s, s:o, s:o}", "hostname", v->hostname, "nodes", nodes, "distances", dist);
}

bool nm_numa_virtualized(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool hv = false;
	while (!hv && fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			hv = true;
	fclose(f);
	return hv;
}

int nm_numa_bind_thread(int node, nm_numa_saved *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (node < 0)
		return 0;
	cpu_set_t set;
	if (nm_numa_node_cpuset(node, &set) <= 0) {
		snprintf(err, errlen, "NUMA node %d has no CPUs to run on", node);
		return -1;
	}
	if (sched_getaffinity(0, sizeof s->cpus, &s->cpus) != 0 ||
	    get_mempolicy(&s->mode, s->mask, MASK_BITS, NULL, 0) != 0) {
		snprintf(err, errlen, "cannot read this thread's affinity or memory policy: %s",
			 strerror(errno));
		return -1;
	}
	unsigned long mask[sizeof s->mask / sizeof *s->mask] = {0};
	mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		snprintf(err, errlen, "cannot run on NUMA node %d: %s", node, strerror(errno));
		return -1;
	}
	if (set_mempolicy(MPOL_BIND, mask, MASK_BITS) != 0) {
		snprintf(err, errlen, "cannot bind memory to NUMA node %d: %s", node, strerror(errno));
		sched_setaffinity(0, sizeof s->cpus, &s->cpus);
		return -1;
	}
	s->active = true;
	return 0;
}

void nm_numa_unbind_thread(nm_numa_saved *s)
{
	if (!s->active)
		return;
	set_mempolicy(s->mode, s->mode == MPOL_DEFAULT ? NULL : s->mask,
		      s->mode == MPOL_DEFAULT ? 0 : MASK_BITS);
	sched_setaffinity(0, sizeof s->cpus, &s->cpus);
	s->active = false;
}

void nm_numa_policy_str(char *buf, size_t len)
{
	int mode = -1;
	unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))] = {0};
	if (get_mempolicy(&mode, mask, MASK_BITS, NULL, 0) != 0) {
		snprintf(buf, len, "unknown");
		return;
	}
	const char *name = mode == MPOL_DEFAULT ? "default" : mode == MPOL_BIND ? "bind"
			 : mode == MPOL_PREFERRED ? "preferred" : mode == MPOL_INTERLEAVE ? "interleave"
			 : "other";
	size_t off = (size_t)snprintf(buf, len, "%s", name);
	char sep = ':';
	for (int b = 0; b <= NM_NUMA_MAX_ID && off < len; b++)
		if (mask[b / (8 * sizeof(unsigned long))] & (1ul << (b % (8 * sizeof(unsigned long))))) {
			if (mode == MPOL_DEFAULT)
				break;
			off += (size_t)snprintf(buf + off, len - off, "%c%d", sep, b);
			sep = ',';
		}
}

void *nm_numa_alloc_interleaved(size_t len, size_t *alloc_len, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page * page;
	if (n == 0)
		n = page;
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %zu bytes: %s", n, strerror(errno));
		return NULL;
	}
	if (numa_available() >= 0) {
		unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))] = {0};
		for (int id = 0; id <= numa_max_node(); id++)
			if (numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)id) &&
			    numa_node_size64(id, NULL) > 0)
				mask[id / (8 * sizeof(unsigned long))] |= 1ul << (id % (8 * sizeof(unsigned long)));
		if (mbind(p, n, MPOL_INTERLEAVE, mask, MASK_BITS, 0) != 0) {
			snprintf(err, errlen, "cannot interleave %zu bytes over the NUMA nodes: %s", n,
				 strerror(errno));
			munmap(p, n);
			return NULL;
		}
	}
	memset(p, 0, n);
	*alloc_len = n;
	return p;
}

typedef struct run_on {
	int node, cpu, ran_on, rc;
	void (*fn)(void *);
	void *arg;
	char err[256];
} run_on;

static void *run_on_main(void *a)
{
	run_on *r = a;
	nm_numa_saved saved;
	if (nm_numa_bind_thread(r->node, &saved, r->err, sizeof r->err) != 0) {
		r->rc = -1;
		return NULL;
	}
	cpu_set_t one;
	CPU_ZERO(&one);
	if (r->cpu >= 0)
		CPU_SET(r->cpu, &one);
	if (r->cpu >= 0 && sched_setaffinity(0, sizeof one, &one) != 0) {
		snprintf(r->err, sizeof r->err, "cannot pin a thread to cpu %d", r->cpu);
		r->rc = -1;
	} else {
		r->fn(r->arg);
		r->ran_on = sched_getcpu();
	}
	nm_numa_unbind_thread(&saved);
	return NULL;
}

int nm_numa_run_on(int node, int cpu, void (*fn)(void *), void *arg, int *ran_on, char *err, size_t errlen)
{
	run_on r = {.node = node, .cpu = cpu, .ran_on = -1, .fn = fn, .arg = arg};
	pthread_t t;
	if (pthread_create(&t, NULL, run_on_main, &r) != 0) {
		snprintf(err, errlen, "cannot start a thread");
		return -1;
	}
	pthread_join(t, NULL);
	if (ran_on)
		*ran_on = r.ran_on;
	if (r.rc)
		snprintf(err, errlen, "%s", r.err);
	return r.rc;
}
