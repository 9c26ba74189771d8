/* `netmem preflight CONFIG...`: one short job on the allocated nodes that
 * measures nothing. Every rank reads what its host offers (the device's
 * limits, locked memory, huge pages, NUMA nodes, free disk, its clock);
 * rank 0 then sizes every point of every config with the family's own needs
 * hook (needs.h) for the ranks and hosts the config's job will have, and
 * prints per config: fits, does not fit (the first reason, naming the host
 * and the limit), or needs not declared; and the expected wall time.
 * Exit 0 when every config fits or is unchecked, 1 when some do not fit,
 * 2 when none can run (and for bad input: one line from rank 0). */
#include "preflight.h"
#include "boot.h"
#include "clock.h"
#include "config.h"
#include "durable.h"
#include "experiment.h"
#include "alloc.h"
#include "log.h"
#include "meta.h"
#include "points.h"
#include "topo.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Wall clocks further apart than this disagree: documents stamp points with
 * rank 0's clock, and a history merged across hosts needs them close. */
#define NM_CLOCK_AGREE_S 0.1
/* Less free disk than this where results go is reported: a paper-scale
 * run's documents and figures take tens of MiB. */
#define NM_DISK_MIN (256ull << 20)

typedef struct pf_opts {
	int np;                 /* ranks of a config without "ranks" (run_all.sh's --np) */
	const char *json_path;  /* NULL: no document */
	const char *results;    /* where the results go (free disk) */
	const char *dev;
	int port, gid;
	char **configs;
	int nconfigs;
} pf_opts;

void nm_preflight_usage(void)
{
	printf("Usage: mpirun -np N netmem preflight [options] CONFIG.json...\n\n"
	       "Checks, before anything runs, whether each config fits the hosts of this job\n"
	       "(the same mpirun as the run: same hostfile, one rank per host or more) and how\n"
	       "long it will take. Measures nothing. Per config: fits, does not fit (the reason,\n"
	       "naming the host and the limit), or needs not declared (the family does not size\n"
	       "its points: fit not checked); and the expected wall time (harness/README.md,\n"
	       "Preflight).\n\n"
	       "  --np N           ranks of a config without \"ranks\" (default 2, as run_all.sh)\n"
	       "  --json FILE      also write the verdicts and every rank's limits as JSON\n"
	       "  --results DIR    where the results will go, for the free disk (default results)\n"
	       "  -d, --ib-dev DEV -i, --ib-port N  -x, --gid-index N   as for a run\n\n"
	       "Exit 0: every config fits (or is unchecked); 1: some do not fit; 2: none can\n"
	       "run, or bad input.\n");
}

/* "--name value" or "--name=value": the value, advancing *i; NULL if absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);
	if (!strncmp(a, lng, n) && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return NULL;
	return *i + 1 < argc ? argv[++*i] : "";
}

static int int_arg(const char *v, const char *name, int lo, int hi, int *out, char *err, size_t len)
{
	char *end;
	long x = strtol(v, &end, 10);
	if (!*v || *end || x < lo || x > hi) {
		snprintf(err, len, "preflight: option %s takes an integer %d..%d, not '%s'", name, lo, hi, v);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* 0, or -1 with one line in err; argv[0] is "preflight". */
static int parse_opts(int argc, char **argv, pf_opts *o, char *err, size_t len)
{
	*o = (pf_opts){.np = 2, .results = "results", .dev = "", .port = 1, .gid = -1};
	o->configs = nm_calloc((size_t)argc, sizeof *o->configs);
	for (int i = 1; i < argc; i++) {
		const char *v, *arg = argv[i];
		int rc = 0;
		if ((v = opt_value(argc, argv, &i, "--np", NULL)))
			rc = int_arg(v, "--np", 1, 1 << 20, &o->np, err, len);
		else if ((v = opt_value(argc, argv, &i, "--json", NULL)))
			o->json_path = v;
		else if ((v = opt_value(argc, argv, &i, "--results", NULL)))
			o->results = v;
		else if ((v = opt_value(argc, argv, &i, "--ib-dev", "-d")))
			o->dev = v;
		else if ((v = opt_value(argc, argv, &i, "--ib-port", "-i")))
			rc = int_arg(v, "--ib-port", 1, 255, &o->port, err, len);
		else if ((v = opt_value(argc, argv, &i, "--gid-index", "-x")))
			rc = int_arg(v, "--gid-index", -1, 255, &o->gid, err, len);
		else if (argv[i][0] == '-') {
			snprintf(err, len, "preflight: unknown option '%s' (see netmem preflight --help)", argv[i]);
			return -1;
		} else
			o->configs[o->nconfigs++] = argv[i];
		if (rc)
			return -1;
		if (v && !*v) {
			snprintf(err, len, "preflight: option %s needs a value", arg);
			return -1;
		}
	}
	if (o->nconfigs == 0) {
		snprintf(err, len, "preflight: name the config files to check (see netmem preflight --help)");
		return -1;
	}
	return 0;
}

/* Free 2 MiB huge pages, from /proc/meminfo. */
static uint64_t hugepages_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long n = 0, kb = 0, v;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "HugePages_Free: %llu", &v) == 1)
			n = v;
		else if (sscanf(line, "Hugepagesize: %llu kB", &v) == 1)
			kb = v;
	}
	if (f)
		fclose(f);
	return (uint64_t)n * kb * 1024;
}

/* Free bytes on the file system that will hold dir (its closest existing
 * ancestor: the run creates dir). */
static uint64_t disk_free(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", dir);
	struct statvfs sv;
	while (statvfs(p, &sv) != 0) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			return statvfs(slash == p ? "/" : ".", &sv) == 0 ? (uint64_t)sv.f_bavail * sv.f_frsize : 0;
		*slash = 0;
	}
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* This rank's host, as a point's set-up will meet it: the device's limits
 * as nm_dev_open read them (ibv_query_device), its NUMA node as the
 * metadata records it, the locked-memory limit as nm_memlock_check applies
 * it. */
static void read_limits(const nm_dev *d, const char *results, nm_limits *l)
{
	memset(l, 0, sizeof *l);
	l->rank = nm_boot_rank();
	if (gethostname(l->host, sizeof l->host - 1) != 0)
		snprintf(l->host, sizeof l->host, "rank%d", l->rank);
	snprintf(l->device, sizeof l->device, "%s", d->name);
	l->emulated = d->emulated;
	const struct ibv_device_attr *a = &d->attr;
	l->max_qp = (uint64_t)a->max_qp;
	l->max_cq = (uint64_t)a->max_cq;
	l->max_mr = (uint64_t)a->max_mr;
	l->max_cqe = (uint64_t)a->max_cqe;
	l->max_qp_wr = (uint64_t)a->max_qp_wr;
	l->max_sge = (uint64_t)a->max_sge;
	l->max_qp_rd_atom = (uint64_t)a->max_qp_rd_atom;
	l->max_mr_size = a->max_mr_size;
	l->atomics = a->atomic_cap == IBV_ATOMIC_GLOB ? NM_ATOMIC_GLOB
		     : a->atomic_cap == IBV_ATOMIC_HCA ? NM_ATOMIC_HCA : NM_ATOMIC_NONE;
	l->odp_rc = nm_dev_odp_rc(d);
	l->active_mtu = nm_mtu_to_bytes(d->port_attr.active_mtu);
	l->memlock = nm_memlock_limit(&l->ipc_lock);
	l->hugepages_free = hugepages_free();
	l->numa_nodes = nm_topo_numa_nodes();
	json_t *nic = nm_meta_nic_device(d->ctx);
	json_t *node = json_object_get(nic, "numa_node");
	l->nic_node = json_is_integer(node) ? (int)json_integer_value(node) : -1;
	json_decref(nic);
	l->disk_free = disk_free(results);
}

/* A host where no device opens: what it is without one, and why, once. */
static void no_device(nm_limits *l, const char *results, const char *why)
{
	memset(l, 0, sizeof *l);
	l->rank = nm_boot_rank();
	if (gethostname(l->host, sizeof l->host - 1) != 0)
		snprintf(l->host, sizeof l->host, "rank%d", l->rank);
	l->memlock = nm_memlock_limit(&l->ipc_lock);
	l->numa_nodes = nm_topo_numa_nodes();
	l->nic_node = -1;
	l->disk_free = disk_free(results);
	if (nm_boot_first_on_host())   /* one line per host */
		fprintf(stderr, "netmem preflight: host %s (rank %d) has no RDMA device: %s\n", l->host, l->rank, why);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Collective: every rank's wall clock minus rank 0's. Rank 0 sends its time
 * and each rank reads its own on arrival: the offset is exact up to one
 * broadcast's latency (microseconds), far below NM_CLOCK_AGREE_S. The
 * smallest of three tries, in magnitude, discounts a rank that was
 * descheduled in between. */
static double clock_offset(void)
{
	double best = INFINITY;
	for (int i = 0; i < 3; i++) {
		nm_boot_barrier();
		double t0 = wall_s();
		nm_boot_bcast(&t0, sizeof t0, 0);
		double off = wall_s() - t0;
		if (fabs(off) < fabs(best))
			best = off;
	}
	return best;
}

/* Rank 0: every config read and its schema checked, or one line in err
 * (bad input: the job has not started anything). A JSON array. */
static json_t *load_configs(const pf_opts *o, char *err, size_t len)
{
	json_t *all = json_array();
	for (int i = 0; i < o->nconfigs; i++) {
		char *text = nm_read_text_file(o->configs[i], err, len);
		json_t *cfg = text ? nm_config_parse(text, o->configs[i], err, len) : NULL;
		free(text);
		if (!cfg) {
			json_decref(all);
			return NULL;
		}
		json_array_append_new(all, cfg);
	}
	return all;
}

/* The job's hosts in the order of their lowest rank, each with that
 * rank's limits. */
static int group_hosts(const nm_limits *all, int R, nm_limits *hosts)
{
	const uint64_t *id = nm_boot_hosts();
	int n = 0;
	for (int r = 0; r < R; r++) {
		bool seen = false;
		for (int o = 0; o < r && !seen; o++)
			seen = id[o] == id[r];
		if (!seen)
			hosts[n++] = all[r];
	}
	return n;
}

static void fmt_time(double s, char *buf, size_t len)
{
	long t = lround(s);
	if (t < 60)
		snprintf(buf, len, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
	else
		snprintf(buf, len, "%ld h %02ld min", t / 3600, t % 3600 / 60);
}

static json_t *limits_json(const nm_limits *l)
{
	json_t *j = json_pack("{s:i, s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:s, s:b, s:i}", "rank",
			      l->rank, "host", l->host, "device", l->device, "emulated", l->emulated, "max_qp",
			      (json_int_t)l->max_qp, "max_cq", (json_int_t)l->max_cq, "max_mr", (json_int_t)l->max_mr,
			      "max_cqe", (json_int_t)l->max_cqe, "max_qp_wr", (json_int_t)l->max_qp_wr, "max_sge",
			      (json_int_t)l->max_sge, "max_qp_rd_atom", (json_int_t)l->max_qp_rd_atom, "max_mr_size",
			      (double)l->max_mr_size, "atomic_cap", l->atomics == NM_ATOMIC_GLOB ? "glob" :
			      l->atomics == NM_ATOMIC_HCA ? "hca" : "none", "odp_rc", l->odp_rc, "active_mtu",
			      l->active_mtu);
	json_object_set_new(j, "memlock_bytes", l->memlock == UINT64_MAX ? json_string("unlimited")
							       : json_integer((json_int_t)l->memlock));
	json_object_set_new(j, "cap_ipc_lock", json_boolean(l->ipc_lock));
	json_object_set_new(j, "hugepages_free_bytes", json_integer((json_int_t)l->hugepages_free));
	json_object_set_new(j, "numa_nodes", json_integer(l->numa_nodes));
	json_object_set_new(j, "nic_numa_node", json_integer(l->nic_node));
	json_object_set_new(j, "disk_free_bytes", json_integer((json_int_t)l->disk_free));
	json_object_set_new(j, "clock_offset_s", json_real(l->clock_offset_s));
	return j;
}

/* The lines about the hosts themselves: one per host, the clocks, the
 * disk. Returns whether the clocks agree. */
static bool print_hosts(const nm_limits *all, int R, const nm_limits *hosts, int H)
{
	for (int i = 0; i < H; i++) {
		const nm_limits *l = &hosts[i];
		char ml[32];
		if (l->memlock == UINT64_MAX)
			snprintf(ml, sizeof ml, "unlimited%s", l->ipc_lock ? " (CAP_IPC_LOCK)" : "");
		else
			snprintf(ml, sizeof ml, "%" PRIu64 " KiB", l->memlock >> 10);
		if (!l->device[0]) {
			printf("host %s: no RDMA device (a rank that opens none may run there); memlock %s, %d NUMA "
			       "node(s)\n", l->host, ml, l->numa_nodes);
			continue;
		}
		printf("host %s: %s%s, max_qp %" PRIu64 ", max_cq %" PRIu64 ", max_mr %" PRIu64 ", max_qp_wr %" PRIu64
		       ", ODP %s, MTU %d; memlock %s, huge pages free %" PRIu64 " MiB, %d NUMA node(s), NIC on "
		       "node %d\n", l->host, l->device, l->emulated ? " (Soft-RoCE)" : "", l->max_qp, l->max_cq,
		       l->max_mr, l->max_qp_wr, l->odp_rc ? "yes" : "no", l->active_mtu, ml, l->hugepages_free >> 20,
		       l->numa_nodes, l->nic_node);
	}
	double worst = 0;
	for (int r = 0; r < R; r++)
		worst = fabs(all[r].clock_offset_s) > worst ? fabs(all[r].clock_offset_s) : worst;
	bool agree = worst <= NM_CLOCK_AGREE_S;
	printf("clocks: %s (largest offset from rank 0: %.3f ms)\n", agree ? "agree" : "DISAGREE: sync them (chrony, "
	       "ntpd) before the run", worst * 1e3);
	printf("disk: %" PRIu64 " MiB free for results%s\n", all[0].disk_free >> 20,
	       all[0].disk_free < NM_DISK_MIN ? " (LOW: a paper-scale run writes tens of MiB)" : "");
	return agree;
}

/* Rank 0: every verdict printed, the document written; the exit status. */
static int report(const pf_opts *o, const json_t *cfgs, const nm_limits *all, int R)
{
	nm_limits *hosts = nm_calloc((size_t)R, sizeof *hosts);
	int H = group_hosts(all, R, hosts);
	bool emulated = false;
	for (int i = 0; i < H; i++)
		emulated |= hosts[i].emulated;
	const nm_time_model *model = !emulated ? &nm_time_hardware : H > 1 ? &nm_time_emulated_hosts : &nm_time_emulated;
	nm_pf_hosts h = {.n = H, .lim = hosts, .model = model};
	bool agree = print_hosts(all, R, hosts, H);
	json_t *verdicts = json_array();
	int count[3] = {0};
	double total = 0;
	size_t i;
	json_t *cfg;
	json_array_foreach((json_t *)cfgs, i, cfg) {
		nm_pf_verdict v;
		json_t *c = nm_preflight_config(o->configs[i], cfg, o->np, &h, &v);
		count[v]++;
		double secs = json_real_value(json_object_get(c, "expected_seconds"));
		total += v == NM_PF_NO_FIT ? 0 : secs;
		char t[32];
		fmt_time(secs, t, sizeof t);
		const char *reason = json_string_value(json_object_get(c, "reason"));
		printf("%s: %s, expected %s%s%s\n", o->configs[i], v == NM_PF_FITS ? "fits" : v == NM_PF_NO_FIT ?
		       "DOES NOT FIT" : "not checked", t, reason ? ": " : "", reason ? reason : "");
		json_array_append_new(verdicts, c);
	}
	char t[32];
	fmt_time(total, t, sizeof t);
	printf("preflight: %d config(s) fit, %d do not, %d not checked; expected %s for those that may run\n",
	       count[NM_PF_FITS], count[NM_PF_NO_FIT], count[NM_PF_UNCHECKED], t);
	fflush(stdout);
	json_t *ranks = json_array();
	for (int r = 0; r < R; r++)
		json_array_append_new(ranks, limits_json(&all[r]));
	const nm_time_model *m = h.model;
	json_t *doc = json_pack("{s:s, s:o, s:b, s:o, s:f, s:{s:s, s:f, s:f, s:f, s:f, s:f}}", "schema",
				"netmem-preflight/1", "ranks", ranks, "clocks_agree", agree, "configs", verdicts,
				"expected_seconds", total, "time_model", "formula", NM_TIME_FORMULA, "start_s",
				m->start_s, "point_s", m->point_s, "qp_s", m->qp_s, "reg_s_per_gib", m->reg_s_per_gib,
				"op_ns", m->op_ns);
	int rc = count[NM_PF_FITS] + count[NM_PF_UNCHECKED] == 0 ? NM_EXIT_USAGE : count[NM_PF_NO_FIT] ? 1 : 0;
	if (o->json_path && nm_write_json_atomic(o->json_path, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
		fprintf(stderr, "netmem: preflight: cannot write %s: %s\n", o->json_path, strerror(errno));
		rc = NM_EXIT_FAIL;
	}
	json_decref(doc);
	free(hosts);
	return rc;
}

int nm_preflight_main(int argc, char **argv)
{
	char err[1024] = "";
	pf_opts o;
	int rank = nm_boot_rank(), R = nm_boot_size();
	nm_boot_check(parse_opts(argc, argv, &o, err, sizeof err) ? err : NULL, NM_EXIT_USAGE);
	json_t *cfgs = rank == 0 ? load_configs(&o, err, sizeof err) : NULL;
	nm_boot_check(rank == 0 && !cfgs ? err : NULL, NM_EXIT_USAGE);
	/* A host without a usable device (a forwarding host whose NIC has RoCE
	 * off) can still hold a rank that opens none: it is reported, and only
	 * a config that needs a device there is refused. */
	nm_dev d = {0};
	nm_topo_init();
	nm_limits mine, *all = nm_calloc((size_t)R, sizeof *all);
	if (nm_dev_open(&d, o.dev, o.port, o.gid, err, sizeof err) == 0)
		read_limits(&d, o.results, &mine);
	else
		no_device(&mine, o.results, err);
	mine.clock_offset_s = clock_offset();
	nm_boot_allgather(&mine, all, sizeof mine);
	int rc = rank == 0 ? report(&o, cfgs, all, R) : 0;
	nm_boot_bcast(&rc, sizeof rc, 0);
	json_decref(cfgs);
	free(all);
	free(o.configs);
	nm_dev_close(&d);
	nm_topo_fini();
	return rc;
}
