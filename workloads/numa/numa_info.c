/* netmem numa-info: the NUMA view placement works from, as JSON, without MPI
 * or a job: the nodes (their CPUs, memory, SLIT distances), each RDMA
 * device's node from sysfs and from hwloc's PCI locality, what `nic` and
 * `other` resolve to for it, whether numbers measured here are NUMA-real,
 * and one sentence that says it plainly (also on a single-node machine). */
#include "experiment.h"
#include "log.h"
#include "../../numa/nodes.h"
#include "../../numa/placement.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numa_info_main(int argc, char **argv)
{
	const char *want = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("Usage: netmem numa-info [-d DEVICE]\n\n"
			       "Prints this host's NUMA nodes (CPUs, memory, distances), the NUMA node of\n"
			       "each RDMA device (sysfs numa_node and hwloc PCI locality), what the\n"
			       "placements nic and other (--buf-node, --cpu-node, --load-node) resolve to,\n"
			       "and whether timings measured here are NUMA-real. JSON on stdout.\n");
			return 0;
		}
		if ((!strcmp(argv[i], "-d") || !strcmp(argv[i], "--ib-dev")) && i + 1 < argc)
			want = argv[++i];
		else
			nm_usage_error("numa-info: unknown argument '%s' (see netmem numa-info --help)", argv[i]);
	}
	nm_numa_view v;
	nm_numa_view_load(&v, NULL, NULL);
	int ndev = 0;
	struct ibv_device **list = ibv_get_device_list(&ndev);
	json_t *devs = json_array();
	char line[1024] = "";
	bool found = !want, real_any = false;
	for (int i = 0; list && i < ndev; i++) {
		const char *name = ibv_get_device_name(list[i]);
		if (want && strcmp(want, name))
			continue;
		found = true;
		nm_nic_numa nic;
		nm_numa_nic(&v, list[i], &nic);
		bool soft = !strncmp(name, "rxe", 3) || !strncmp(name, "siw", 3) || strstr(name, "_rxe");
		json_t *d = nm_nic_numa_json(&nic), *res = json_object();
		nm_numa_view vv = v;
		vv.nic_node = nic.assumed ? -1 : nic.node;
		static const char *const req[] = {"nic", "other"};
		for (int k = 0; k < 2; k++) {
			nm_place p;
			char why[512], e[128];
			int node;
			nm_place_parse(req[k], &p, "placement", e, sizeof e);
			if (nm_place_resolve(&p, &vv, NM_NEED_MEMORY, &node, req[k], why, sizeof why) == 0)
				json_object_set_new(res, req[k], json_integer(node));
			else
				json_object_set_new(res, req[k], json_string(why));
		}
		json_object_set_new(d, "resolves", res);
		json_t *unreal = nm_numa_unreal_reasons(&v, &nic, soft);
		json_object_set_new(d, "numa_real", json_boolean(json_array_size(unreal) == 0));
		json_object_set_new(d, "not_numa_real", unreal);
		real_any |= json_array_size(unreal) == 0;
		json_array_append_new(devs, d);
		if (!*line) {
			if (v.nnodes < 2)
				snprintf(line, sizeof line, "one NUMA node (%d): %s and every thread are local to "
					 "each other; 'nic' and 'any' mean node %d, 'other' and other node numbers "
					 "cannot be honoured here (exit 2, or a skipped point in a sweep)",
					 v.node[0].id, name, v.node[0].id);
			else {
				json_t *o = json_object_get(res, "other");
				char other[600];
				if (json_is_integer(o))
					snprintf(other, sizeof other, "%" JSON_INTEGER_FORMAT, json_integer_value(o));
				else
					snprintf(other, sizeof other, "none (%s)", json_string_value(o));
				snprintf(line, sizeof line, "%d NUMA nodes; %s is on node %d (%s), 'other' is "
					 "node %s", v.nnodes, name, nic.node,
					 nic.assumed ? "assumed: the device reports no node" : nic.source, other);
			}
		}
	}
	if (list)
		ibv_free_device_list(list);
	if (!found)
		nm_usage_error("numa-info: no RDMA device '%s'", want);
	if (!*line)
		snprintf(line, sizeof line, "%d NUMA node%s and no RDMA device%s", v.nnodes,
			 v.nnodes == 1 ? "" : "s", v.nnodes == 1 ? ": every placement is node 0" : "");
	json_t *out = nm_numa_view_json(&v);
	json_object_set_new(out, "numa_nodes", json_integer(v.nnodes));
	json_object_set_new(out, "single_node", json_boolean(v.nnodes < 2));
	json_object_set_new(out, "virtualized", json_boolean(nm_numa_virtualized()));
	json_object_set_new(out, "devices", devs);
	json_object_set_new(out, "numa_real", json_boolean(real_any));
	json_object_set_new(out, "summary", json_string(line));
	char *s = json_dumps(out, JSON_INDENT(2));
	printf("%s\n", s);
	free(s);
	json_decref(out);
	return 0;
}

static const nm_experiment numa_info_exp = {
	.name = "numa-info",
	.summary = "NUMA nodes, each RDMA device's node, what nic/other resolve to (JSON, no job)",
	.tool_main = numa_info_main,
};
NM_EXPERIMENT(numa_info_exp)
