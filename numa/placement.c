#include "placement.h"
#include "boot.h"
#include "log.h"
#include "topo.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nm_cpu_place_start(nm_cpu_place *p, int pinned_cpu, int intended)
{
	p->intended = intended;
	p->cpu = pinned_cpu;
	p->cpu_node = pinned_cpu >= 0 ? nm_topo_cpu_numa_node(pinned_cpu) : -1;
	p->ran_start = sched_getcpu();
	p->ran_start_node = p->ran_start >= 0 ? nm_topo_cpu_numa_node(p->ran_start) : -1;
	p->ran_end = p->ran_start;
	p->ran_end_node = p->ran_start_node;
}

void nm_cpu_place_end(nm_cpu_place *p)
{
	p->ran_end = sched_getcpu();
	p->ran_end_node = p->ran_end >= 0 ? nm_topo_cpu_numa_node(p->ran_end) : -1;
}

bool nm_cpu_place_ok(const nm_cpu_place *p)
{
	if (p->intended < 0)
		return true;
	return p->cpu >= 0 && p->cpu_node == p->intended && p->ran_start_node == p->intended &&
	       p->ran_end_node == p->intended;
}

json_t *nm_cpu_place_json(const nm_cpu_place *p, int index)
{
	return json_pack("{s:i, s:o, s:i, s:i, s:[i,i], s:[i,i], s:b}", "thread", index, "intended",
			 p->intended >= 0 ? json_integer(p->intended) : json_null(), "cpu", p->cpu,
			 "cpu_node", p->cpu_node, "ran_on", p->ran_start, p->ran_end, "ran_on_nodes",
			 p->ran_start_node, p->ran_end_node, "ok", nm_cpu_place_ok(p));
}

void nm_cpu_place_why(const nm_cpu_place *p, const char *what, char *buf, size_t len)
{
	if (p->cpu < 0)
		snprintf(buf, len, "%s: could not be pinned to a CPU of NUMA node %d", what, p->intended);
	else
		snprintf(buf, len, "%s: meant for NUMA node %d, pinned to CPU %d (node %d), ran on CPU %d "
			 "(node %d) and CPU %d (node %d)", what, p->intended, p->cpu, p->cpu_node,
			 p->ran_start, p->ran_start_node, p->ran_end, p->ran_end_node);
}

json_t *nm_numa_unreal_reasons(const nm_numa_view *v, const nm_nic_numa *nic, bool emulated)
{
	json_t *r = json_array();
	if (emulated)
		json_array_append_new(r, json_string("the NIC is emulated in software (Soft-RoCE/siw): "
						     "no PCIe path, so no NUMA effect on RDMA is measured"));
	if (v->nnodes < 2)
		json_array_append_new(r, json_string("the host has one NUMA node"));
	else if (nic->assumed)
		json_array_append_new(r, json_string("the NIC reports no NUMA node, so 'nic' is an "
						     "assumption (node 0)"));
	return r;
}

int nm_placement_unresolved(const json_t *spec, const char *key, const char *why, json_t *out)
{
	bool failed = key != NULL;
	bool swept = failed && json_is_array(json_object_get(spec, key));
	uint64_t nfail = nm_boot_sum_u64(failed), nfixed = nm_boot_sum_u64(failed && !swept);
	if (nfail == 0)
		return 0;
	/* one value for the whole job that cannot work: bad input */
	nm_boot_check(nfixed && failed && !swept ? why : NULL, NM_EXIT_USAGE);
	char **all = nm_boot_gather_str(failed ? why : "", 0);
	if (all) {
		json_t *on = json_array();
		const char *first = NULL;
		for (int r = 0; r < nm_boot_size(); r++) {
			if (*all[r]) {
				json_array_append_new(on, json_pack("{s:i, s:s}", "rank", r, "reason", all[r]));
				if (!first)
					first = all[r];
			}
		}
		char msg[1200];
		snprintf(msg, sizeof msg, "%s", first ? first : "placement cannot be resolved");
		json_object_set_new(out, "valid", json_true());
		json_object_set_new(out, "skipped", json_string(msg));
		json_object_set_new(out, "placement", json_pack("{s:o}", "skipped_on", on));
		for (int r = 0; r < nm_boot_size(); r++)
			free(all[r]);
		free(all);
	}
	return 1;
}
