#include "info.h"
#include "experiment.h"
#include "clock.h"
#include "log.h"
#include "meta.h"
#include "topo.h"
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <jansson.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("usage: netmem info [-d DEV]\n"
	      "Prints as JSON what a result records about this host: software versions,\n"
	      "CPU and NUMA topology, and each RDMA device with its ports and GIDs.\n"
	      "Needs neither mpirun nor an RDMA device.\n"
	      "\n"
	      "  -d, --device DEV   show only device DEV\n"
	      "  -h, --help         this text\n",
	      out);
}

/* Verbs calls return an errno value, but older providers return -1 and set
 * errno. */
static const char *verr(int rc)
{
	return strerror(rc > 0 ? rc : errno);
}

static json_t *gid_type_str(uint32_t t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return json_string("IB");
	case IBV_GID_TYPE_ROCE_V1: return json_string("RoCEv1");
	case IBV_GID_TYPE_ROCE_V2: return json_string("RoCEv2");
	}
	return json_null();
}

static json_t *port_gids(struct ibv_context *ctx, int port, const struct ibv_port_attr *pa)
{
	static const union ibv_gid zero;
	json_t *gids = json_array();
	for (int i = 0; i < pa->gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		json_t *type;
		int rc = ibv_query_gid_ex(ctx, (uint32_t)port, (uint32_t)i, &e, 0);
		if (rc == ENODATA)
			continue; /* unused table entry */
		if (rc == 0) {
			type = gid_type_str(e.gid_type);
		} else {
			/* Kernels without the GID query ioctl still serve the
			 * GID itself through sysfs, just not its type. */
			if (ibv_query_gid(ctx, (uint8_t)port, i, &e.gid) != 0)
				continue;
			e.ndev_ifindex = 0;
			type = pa->link_layer == IBV_LINK_LAYER_ETHERNET ? json_null() : json_string("IB");
		}
		if (memcmp(&e.gid, &zero, sizeof zero) == 0) {
			json_decref(type);
			continue;
		}
		char s[INET6_ADDRSTRLEN];
		nm_gid_to_str(&e.gid, s, sizeof s);
		json_t *g = json_object();
		json_object_set_new(g, "index", json_integer(i));
		json_object_set_new(g, "gid", json_string(s));
		json_object_set_new(g, "type", type);
		if (nm_gid_is_ipv4_mapped(&e.gid)) {
			char v4[INET_ADDRSTRLEN];
			if (inet_ntop(AF_INET, &e.gid.raw[12], v4, sizeof v4))
				json_object_set_new(g, "ipv4", json_string(v4));
			else
				json_object_set_new(g, "ipv4", json_null());
		} else {
			json_object_set_new(g, "ipv4", json_null());
		}
		/* The netdev tells RoCE users which interface (and so which
		 * address) a GID index stands for. */
		char ifname[IF_NAMESIZE];
		if (e.ndev_ifindex && if_indextoname(e.ndev_ifindex, ifname))
			json_object_set_new(g, "netdev", json_string(ifname));
		else
			json_object_set_new(g, "netdev", json_null());
		json_array_append_new(gids, g);
	}
	return gids;
}

static json_t *device_json(struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);
	struct ibv_context *ctx = ibv_open_device(dev);
	if (!ctx) {
		/* Still list it: a device the user cannot open (permissions,
		 * driver trouble) is exactly what they need to see. */
		json_t *d = json_object();
		json_object_set_new(d, "device", json_string(name ? name : "?"));
		json_object_set_new(d, "error", json_sprintf("cannot open: %s", strerror(errno)));
		return d;
	}
	json_t *d = nm_meta_nic_device(ctx);
	json_t *ports = json_array();
	struct ibv_device_attr a;
	int rc = ibv_query_device(ctx, &a);
	if (rc != 0) {
		json_object_set_new(d, "error", json_sprintf("ibv_query_device: %s", verr(rc)));
	} else {
		for (int p = 1; p <= a.phys_port_cnt; p++) {
			json_t *pj = nm_meta_nic_port(ctx, p);
			struct ibv_port_attr pa;
			rc = ibv_query_port(ctx, (uint8_t)p, &pa);
			json_object_set_new(pj, "gids", rc == 0 ? port_gids(ctx, p, &pa) : json_array());
			json_array_append_new(ports, pj);
		}
	}
	json_object_set_new(d, "ports", ports);
	rc = ibv_close_device(ctx);
	if (rc != 0)
		nm_warn("ibv_close_device(%s): %s", name, verr(rc));
	return d;
}

static int info_main(int argc, char **argv)
{
	const char *want = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "-d") == 0 || strcmp(a, "--device") == 0) {
			if (i + 1 >= argc)
				nm_usage_error("info: option '%s' needs a device name", a);
			want = argv[++i];
		} else if (strncmp(a, "--device=", 9) == 0) {
			want = a + 9;
		} else if (strncmp(a, "-d", 2) == 0) {
			want = a + 2;
		} else if (a[0] == '-') {
			nm_usage_error("info: unknown option '%s' (see netmem info --help)", a);
		} else {
			nm_usage_error("info: unexpected argument '%s' (see netmem info --help)", a);
		}
	}
	if (want && !*want)
		nm_usage_error("info: empty device name");

	int n = 0;
	errno = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list) {
		/* ENOSYS: the kernel has no RDMA stack at all; that is "no
		 * device", not an error, and so is anything else here since
		 * info only reports. */
		if (errno && errno != ENOSYS && errno != ENODEV && errno != ENOENT)
			nm_warn("ibv_get_device_list: %s", strerror(errno));
		n = 0;
	}

	int pick = -1;
	if (want) {
		for (int i = 0; i < n && pick < 0; i++)
			if (strcmp(ibv_get_device_name(list[i]), want) == 0)
				pick = i;
		if (pick < 0) {
			char names[512] = "";
			size_t off = 0;
			for (int i = 0; i < n && off < sizeof names; i++)
				off += (size_t)snprintf(names + off, sizeof names - off, "%s%s",
							i ? ", " : "", ibv_get_device_name(list[i]));
			if (list)
				ibv_free_device_list(list);
			if (n > 0)
				nm_usage_error("no RDMA device '%s' (available: %s)", want, names);
			nm_usage_error("no RDMA device '%s' (none: " NM_SOFT_ROCE_HOWTO ")", want);
		}
	}

	/* The clock entry should show what a run would measure with. */
	nm_clock_init();
	if (nm_clock_warning())
		fprintf(stderr, "netmem: %s\n", nm_clock_warning());
	json_t *root = json_object();
	json_object_set_new(root, "software", nm_meta_software());
	json_t *host = nm_meta_host(NULL, 0, -1);
	json_object_del(host, "nic");
	json_object_set_new(root, "host", host);
	json_t *devs = json_array();
	for (int i = 0; i < n; i++)
		if (pick < 0 || i == pick)
			json_array_append_new(devs, device_json(list[i]));
	json_object_set_new(root, "devices", devs);
	if (n == 0)
		json_object_set_new(root, "soft_roce_hint",
				    json_string("no RDMA device: " NM_SOFT_ROCE_HOWTO));
	if (list)
		ibv_free_device_list(list);

	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	nm_topo_fini();
	if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
		nm_warn("info: cannot write to stdout: %s", strerror(errno));
		return NM_EXIT_FAIL;
	}
	return 0;
}

static const nm_experiment info_tool = {
	.name = "info",
	.summary = "devices, ports, GIDs, NIC NUMA node and CPU topology as JSON",
	.tool_main = info_main,
};
NM_EXPERIMENT(info_tool)
