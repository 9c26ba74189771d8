/* netmem numa-load: the independent memory-hungry process of the NUMA
 * paper's section V-C. It allocates a private buffer, starts threads that
 * load and store random 8-byte words of it (--mix of them stores), and runs
 * until its stdin closes or --duration passes; then it prints its throughput
 * and its verified placement as JSON. `netmem ops --load-threads N` starts
 * one on every target rank for the duration of each point (numa/loadproc.c);
 * it also runs on its own next to any other benchmark.
 *
 * Placement (--node): a node (nic, other or a number) binds the buffer there
 * (mbind, verified page by page with move_pages) and pins the threads to that
 * node's cores; any is the paper's NUMA-agnostic load: threads pinned round
 * robin over every core of the machine (as the authors' load tool: CPU i mod
 * ncpus) and the buffer interleaved over every node (the deterministic form
 * of first-touch by threads spread over all nodes, which is what the authors'
 * tool ends up with). */
#include "experiment.h"
#include "log.h"
#include "opt.h"
#include "../../numa/hammer.h"
#include "../../numa/mem.h"
#include "../../numa/nodes.h"
#include "../../numa/pages.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const nm_opt load_opts[] = {
	{"threads", 'T', NM_OPT_INT, "1", 1, 4096, NULL, 0, "threads (more than cores is allowed)"},
	{"node", 0, NM_OPT_STR, "any", 0, 0, NULL, 0,
	 "nic, other, a node number, or any (threads on every core, buffer interleaved)"},
	{"buf", 0, NM_OPT_SIZE, "64M", 8, 1ll << 44, NULL, 0, "buffer size in bytes"},
	{"mix", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, 0, "fraction of accesses that store"},
	{"seed", 0, NM_OPT_INT, "1", 0, 9.2e18, NULL, 0, "random seed"},
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0,
	 "run this many seconds (0: until stdin closes)"},
	{"ib-dev", 'd', NM_OPT_STR, "", 0, 0, NULL, 0,
	 "RDMA device whose node 'nic' and 'other' refer to (default: the first)"},
	{"lines", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "machine protocol: a ready line once running, the result as one line"},
	NM_OPT_END,
};

static int resolve(const char *req, const char *dev, int *node, char *err, size_t len)
{
	nm_place p;
	if (nm_place_parse(req, &p, "--node", err, len))
		return -1;
	int ndev = 0;
	struct ibv_device **list = p.kind == NM_PLACE_NIC || p.kind == NM_PLACE_OTHER
					   ? ibv_get_device_list(&ndev) : NULL;
	struct ibv_device *d = NULL;
	for (int i = 0; list && i < ndev && !d; i++)
		if (!*dev || !strcmp(dev, ibv_get_device_name(list[i])))
			d = list[i];
	nm_numa_view v;
	nm_numa_view_load(&v, d, NULL);
	if (list)
		ibv_free_device_list(list);
	int n2;
	if (nm_place_resolve(&p, &v, NM_NEED_CPUS, node, "--node", err, len) ||
	    nm_place_resolve(&p, &v, NM_NEED_MEMORY, &n2, "--node", err, len))
		return -1;
	return 0;
}

static void wait_until_stopped(double duration)
{
	uint64_t end = duration > 0 ? (uint64_t)time(NULL) + (uint64_t)duration : 0;
	char buf[256];
	for (;;) {
		struct pollfd p = {.fd = 0, .events = POLLIN};
		int ms = 200;
		if (end && (uint64_t)time(NULL) >= end)
			return;
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0) {
			ssize_t n = read(0, buf, sizeof buf);
			if (n <= 0 && !duration)
				return; /* stdin closed: stop */
			if (n <= 0)
				sleep(1); /* --duration with a closed stdin: just wait */
		}
	}
}

static int numa_load_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			const nm_opt *tables[] = {load_opts, NULL};
			nm_opt_usage(stdout, "netmem numa-load",
				     "independent memory load (NUMA section V-C): random loads and stores "
				     "over a private buffer until stdin closes or --duration passes",
				     tables);
			return 0;
		}
	char err[1024];
	const nm_opt *tables[] = {load_opts, NULL};
	json_t *spec = nm_opt_parse(tables, NULL, NULL, argc - 1, argv + 1, err, sizeof err);
	if (!spec)
		nm_usage_error("numa-load: %s", err);
	int threads = (int)nm_cfg_int(spec, "threads"), node;
	size_t buf = (size_t)nm_cfg_int(spec, "buf");
	double mix = nm_cfg_double(spec, "mix");
	bool lines = nm_cfg_bool(spec, "lines");
	const char *req = nm_cfg_str(spec, "node");
	if (resolve(req, nm_cfg_str(spec, "ib_dev"), &node, err, sizeof err))
		nm_usage_error("numa-load: %s", err);
	size_t alloc_len = 0;
	void *p = node >= 0 ? nm_mem_alloc(buf, false, node, &alloc_len, err, sizeof err)
			    : nm_numa_alloc_interleaved(buf, &alloc_len, err, sizeof err);
	if (!p) {
		fprintf(stderr, "netmem: numa-load: %s\n", err);
		return NM_EXIT_FAIL;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	nm_page_census census[2];
	nm_pages_census(p, alloc_len, page, node, &census[0]);
	nm_hammer h;
	nm_hammer_cfg hc = {.threads = threads, .op = NM_HAMMER_MIXED, .write_ratio = mix, .node = node,
			    .random = true, .area = p, .len = buf, .seed = (uint64_t)nm_cfg_int(spec, "seed")};
	if (nm_hammer_start(&h, &hc, err, sizeof err)) {
		fprintf(stderr, "netmem: numa-load: %s\n", err);
		return NM_EXIT_FAIL;
	}
	if (lines) {
		printf("{\"ready\": true, \"pid\": %d, \"threads\": %d, \"node\": %d}\n", (int)getpid(),
		       threads, node);
		fflush(stdout);
	}
	wait_until_stopped(nm_cfg_double(spec, "duration"));
	nm_hammer_stop(&h);
	nm_pages_census(p, alloc_len, page, node, &census[1]);

	bool ok = true;
	char why[600] = "";
	json_t *tp = nm_hammer_placement(&h, "load thread", &ok, why, sizeof why);
	for (int k = 0; k < 2; k++)
		if (!nm_census_ok(&census[k]) && ok) {
			nm_census_why(&census[k], k ? "load buffer after the run" : "load buffer after allocation",
				      why, sizeof why);
			ok = false;
		}
	json_t *out = nm_hammer_json(&h);
	json_object_set_new(out, "request", json_string(req));
	json_object_set_new(out, "intended", node >= 0 ? json_integer(node) : json_null());
	json_object_set_new(out, "buf_bytes", json_integer((json_int_t)buf));
	json_object_set_new(out, "write_ratio", json_real(mix));
	json_object_set_new(out, "placement",
			    json_pack("{s:{s:s, s:o, s:o}, s:o, s:b}", "buffer", "policy",
				      node >= 0 ? "bind" : "interleave", "after_alloc",
				      nm_census_json(&census[0]), "after_run", nm_census_json(&census[1]),
				      "threads", tp, "ok", ok));
	if (!ok)
		json_object_set_new(out, "first_error", json_string(why));
	char *s = json_dumps(out, lines ? JSON_COMPACT : JSON_INDENT(2));
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(out);
	nm_hammer_free(&h);
	nm_mem_free(p, alloc_len);
	json_decref(spec);
	return 0;
}

static const nm_experiment numa_load_exp = {
	.name = "numa-load",
	.summary = "independent memory load process (NUMA section V-C; started by ops --load-threads)",
	.tool_main = numa_load_main,
};
NM_EXPERIMENT(numa_load_exp)
