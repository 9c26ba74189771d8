#include "meta.h"
#include "result.h"
#include "clock.h"
#include "log.h"
#include "topo.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* json_string() rejects invalid UTF-8 (a firmware string could hold any
 * bytes); a null is better than a missing key. */
static json_t *jstr(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;
	return j ? j : json_null();
}

/* rxe reports an unlimited MR size as UINT64_MAX, which json_int_t cannot
 * hold; a real keeps it a number instead of wrapping to -1. */
/* Values past INT64_MAX (rxe reports UINT64_MAX for "no limit") become
 * decimal strings: a real would lose digits, and tools such as jq re-emit it
 * as an integer literal that 64-bit JSON readers reject. */
static json_t *ju64(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	return json_string(buf);
}

/* Verbs calls return an errno value, but older providers return -1 and set
 * errno. */
static const char *verr(int rc)
{
	return strerror(rc > 0 ? rc : errno);
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	size_t i = 0;
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
}

int nm_meta_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	trim(buf);
	return 0;
}

/* ---- GIDs ---- */

int nm_gid_is_ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return memcmp(g->raw, prefix, sizeof prefix) == 0;
}

void nm_gid_to_str(const union ibv_gid *g, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];
	if (!buf || !len)
		return;
	if (!inet_ntop(AF_INET6, g->raw, tmp, sizeof tmp) || strlen(tmp) >= len) {
		buf[0] = '\0';
		return;
	}
	strcpy(buf, tmp);
}

/* ---- NIC ---- */

/* Vendor ids of the software providers (rxe: RXE_VENDOR_ID; siw: "bmt",
 * SIW_VENDOR_ID), whose numbers measure a CPU, not a NIC. */
#define RXE_VENDOR_ID 0xFFFFFFu
#define SIW_VENDOR_ID 0x626d74u

static void ibdev_sysfs(struct ibv_context *ctx, char *buf, size_t len)
{
	const char *p = ctx->device->ibdev_path;
	if (p[0])
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "/sys/class/infiniband/%s", ibv_get_device_name(ctx->device));
}

static int path_exists(const char *dir, const char *leaf, int follow)
{
	char p[PATH_MAX];
	struct stat st;
	if (snprintf(p, sizeof p, "%s/%s", dir, leaf) >= (int)sizeof p)
		return 0;
	return (follow ? stat(p, &st) : lstat(p, &st)) == 0;
}

/* Returns the soft provider's name, or NULL for hardware. A Soft-RoCE device
 * can be given any name by `rdma link add`, so the name is only one hint; the
 * vendor id is set by the kernel driver, and rxe exposes a `parent` attribute
 * (its netdev) while, since it stopped borrowing the netdev's DMA device, it
 * has no `device` link. */
static const char *soft_driver(struct ibv_context *ctx, uint32_t vendor_id, const char *sysfs)
{
	const char *name = ibv_get_device_name(ctx->device);
	if (vendor_id == SIW_VENDOR_ID || strncmp(name, "siw", 3) == 0)
		return "siw";
	if (vendor_id == RXE_VENDOR_ID || strncmp(name, "rxe", 3) == 0)
		return "rxe";
	if (path_exists(sysfs, "parent", 1) && !path_exists(sysfs, "device", 0))
		return "rxe";
	return NULL;
}

static json_t *hw_driver(const char *sysfs)
{
	char link[PATH_MAX], target[PATH_MAX];
	if (snprintf(link, sizeof link, "%s/device/driver", sysfs) >= (int)sizeof link)
		return json_null();
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return json_null();
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	return jstr(base ? base + 1 : target);
}

static int nic_numa_node(const char *sysfs)
{
	char p[PATH_MAX], line[64];
	if (snprintf(p, sizeof p, "%s/device/numa_node", sysfs) >= (int)sizeof p)
		return -1;
	if (nm_meta_read_line(p, line, sizeof line) != 0)
		return -1;
	char *end;
	long v = strtol(line, &end, 10);
	return end != line && v >= -1 && v < INT_MAX ? (int)v : -1;
}

static const char *atomic_cap_str(enum ibv_atomic_cap c)
{
	switch (c) {
	case IBV_ATOMIC_NONE: return "none";
	case IBV_ATOMIC_HCA: return "hca";
	case IBV_ATOMIC_GLOB: return "global";
	}
	return "unknown";
}

json_t *nm_meta_nic_device(struct ibv_context *ctx)
{
	if (!ctx)
		return json_null();
	char sysfs[PATH_MAX];
	ibdev_sysfs(ctx, sysfs, sizeof sysfs);

	json_t *j = json_object();
	json_object_set_new(j, "device", jstr(ibv_get_device_name(ctx->device)));

	struct ibv_device_attr a;
	int rc = ibv_query_device(ctx, &a);
	int have = rc == 0;
	if (!have)
		nm_warn("ibv_query_device(%s): %s", ibv_get_device_name(ctx->device), verr(rc));
	json_object_set_new(j, "vendor_id", have ? json_integer(a.vendor_id) : json_null());
	json_object_set_new(j, "vendor_part_id", have ? json_integer(a.vendor_part_id) : json_null());
	json_object_set_new(j, "hw_ver", have ? json_integer(a.hw_ver) : json_null());
	json_object_set_new(j, "fw_ver", have ? jstr(a.fw_ver) : json_null());
	if (have) {
		uint64_t g = be64toh(a.node_guid);
		char guid[24];
		snprintf(guid, sizeof guid, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
			 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
		json_object_set_new(j, "node_guid", jstr(guid));
	} else {
		json_object_set_new(j, "node_guid", json_null());
	}
	json_object_set_new(j, "numa_node", json_integer(nic_numa_node(sysfs)));

	/* Without the vendor id, the name and sysfs still identify rxe; an
	 * impossible id keeps the vendor test from matching. */
	const char *soft = soft_driver(ctx, have ? a.vendor_id : 0, sysfs);
	json_object_set_new(j, "emulated", json_boolean(soft != NULL));
	/* An old rxe points its device link at the Ethernet NIC underneath; that
	 * NIC's driver is not what moves the bytes. */
	json_object_set_new(j, "driver", soft ? jstr(soft) : hw_driver(sysfs));

	json_object_set_new(j, "max_qp_rd_atom", have ? json_integer(a.max_qp_rd_atom) : json_null());
	json_object_set_new(j, "max_qp_init_rd_atom",
			    have ? json_integer(a.max_qp_init_rd_atom) : json_null());
	json_object_set_new(j, "atomic_cap", have ? jstr(atomic_cap_str(a.atomic_cap)) : json_null());
	json_object_set_new(j, "max_mr_size", have ? ju64(a.max_mr_size) : json_null());
	json_object_set_new(j, "max_qp_wr", have ? json_integer(a.max_qp_wr) : json_null());
	json_object_set_new(j, "max_cqe", have ? json_integer(a.max_cqe) : json_null());
	return j;
}

/* IBTA active_speed codes; FDR10/FDR/EDR are rounded to their nominal
 * 10/14/25 Gb/s lane rates. 0 for codes this table does not know. */
static double lane_gbps(uint8_t speed)
{
	switch (speed) {
	case 1: return 2.5;
	case 2: return 5.0;
	case 4: return 10.0;
	case 8: return 10.0;
	case 16: return 14.0;
	case 32: return 25.0;
	case 64: return 50.0;
	case 128: return 100.0;
	}
	return 0.0;
}

static int width_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return 0;
}

json_t *nm_meta_nic_port(struct ibv_context *ctx, int port)
{
	json_t *j = json_object();
	json_object_set_new(j, "port", json_integer(port));
	struct ibv_port_attr pa;
	int rc = EINVAL;
	if (ctx && port >= 1 && port <= UINT8_MAX)
		rc = ibv_query_port(ctx, (uint8_t)port, &pa);
	if (rc != 0) {
		if (ctx)
			nm_warn("ibv_query_port(%s, %d): %s", ibv_get_device_name(ctx->device), port,
				verr(rc));
		static const char *const keys[] = {"state", "link_layer", "active_mtu",
						   "active_speed_gbps", "active_width", "link_gbps"};
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			json_object_set_new(j, keys[i], json_null());
		return j;
	}
	json_object_set_new(j, "state", jstr(ibv_port_state_str(pa.state)));
	/* Providers that predate the link_layer field leave it unspecified; the
	 * verbs convention is that this means InfiniBand. */
	json_object_set_new(j, "link_layer",
			    jstr(pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand"));
	json_object_set_new(j, "active_mtu",
			    pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096
				    ? json_integer(128 << pa.active_mtu)
				    : json_null());
	double rate = lane_gbps(pa.active_speed);
	int lanes = width_lanes(pa.active_width);
	json_object_set_new(j, "active_speed_gbps", rate > 0 ? json_real(rate) : json_null());
	json_object_set_new(j, "active_width", lanes > 0 ? json_integer(lanes) : json_null());
	json_object_set_new(j, "link_gbps", rate > 0 && lanes > 0 ? json_real(rate * lanes) : json_null());
	return j;
}

json_t *nm_meta_nic(struct ibv_context *ctx, int port, int gid_index)
{
	if (!ctx)
		return json_null();
	json_t *j = nm_meta_nic_device(ctx);
	json_t *p = nm_meta_nic_port(ctx, port);
	json_object_update(j, p);
	json_decref(p);
	json_object_set_new(j, "gid_index", json_integer(gid_index));
	union ibv_gid gid;
	int rc = EINVAL;
	if (gid_index >= 0 && port >= 1 && port <= UINT8_MAX)
		rc = ibv_query_gid(ctx, (uint8_t)port, gid_index, &gid);
	if (rc == 0) {
		char s[INET6_ADDRSTRLEN];
		nm_gid_to_str(&gid, s, sizeof s);
		json_object_set_new(j, "gid", jstr(s));
	} else {
		json_object_set_new(j, "gid", json_null());
	}
	return j;
}

/* ---- host ---- */

/* aarch64 /proc/cpuinfo names the core only by MIDR implementer and part
 * numbers; these are the ones found in servers (the rest print as numbers). */
static const struct {
	unsigned impl, part;
	const char *name;
} arm_parts[] = {
	{0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd08, "Cortex-A72"},  {0x41, 0xd0b, "Cortex-A76"},
	{0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"},
	{0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"}, {0x41, 0xd8e, "Neoverse-N3"},
	{0x43, 0x0af, "ThunderX2"},   {0x46, 0x001, "A64FX"},       {0x48, 0xd01, "Kunpeng-920"},
	{0xc0, 0xac3, "Ampere-1"},    {0xc0, 0xac4, "Ampere-1a"},
};
static const struct {
	unsigned impl;
	const char *name;
} arm_vendors[] = {
	{0x41, "ARM"},  {0x42, "Broadcom"}, {0x43, "Cavium"},   {0x46, "Fujitsu"}, {0x48, "HiSilicon"},
	{0x4e, "NVIDIA"}, {0x50, "APM"},    {0x51, "Qualcomm"}, {0x61, "Apple"},   {0xc0, "Ampere"},
};

static json_t *arm_model(const char *impl_s, const char *part_s)
{
	char *e1, *e2;
	unsigned long impl = strtoul(impl_s, &e1, 0), part = strtoul(part_s, &e2, 0);
	if (e1 == impl_s || e2 == part_s)
		return NULL;
	const char *vendor = NULL, *name = NULL;
	for (size_t i = 0; i < sizeof arm_vendors / sizeof arm_vendors[0]; i++)
		if (arm_vendors[i].impl == impl)
			vendor = arm_vendors[i].name;
	for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
		if (arm_parts[i].impl == impl && arm_parts[i].part == part)
			name = arm_parts[i].name;
	char buf[128];
	if (vendor && name)
		snprintf(buf, sizeof buf, "%s %s", vendor, name);
	else if (vendor)
		snprintf(buf, sizeof buf, "%s part 0x%03lx", vendor, part);
	else
		snprintf(buf, sizeof buf, "implementer 0x%02lx part 0x%03lx", impl, part);
	return jstr(buf);
}

/* The first value of each key that names the CPU vendor or model on some
 * architecture: x86 "vendor_id" and "model name", POWER "cpu", MIPS "cpu
 * model", RISC-V "uarch", aarch64 "CPU implementer" + "CPU part". */
enum { K_MODEL_NAME, K_CPU_MODEL, K_CPU, K_UARCH, K_IMPL, K_PART, K_VENDOR, K_N };
static const char *const cpuinfo_keys[K_N] = {"model name", "cpu model", "cpu", "uarch",
					      "CPU implementer", "CPU part", "vendor_id"};

static void cpuinfo_read(char val[K_N][256])
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		trim(line);
		for (int k = 0; k < K_N; k++) {
			if (!val[k][0] && strcmp(line, cpuinfo_keys[k]) == 0) {
				snprintf(val[k], sizeof val[k], "%s", colon + 1);
				trim(val[k]);
			}
		}
	}
	fclose(f);
}

static json_t *cpu_model(char val[K_N][256])
{
	for (int k = K_MODEL_NAME; k <= K_UARCH; k++)
		if (val[k][0])
			return jstr(val[k]);
	json_t *arm = val[K_IMPL][0] && val[K_PART][0] ? arm_model(val[K_IMPL], val[K_PART]) : NULL;
	return arm ? arm : json_null();
}

/* x86's vendor string (GenuineIntel, AuthenticAMD), else the aarch64
 * implementer's name. */
static json_t *cpu_vendor(char val[K_N][256])
{
	if (val[K_VENDOR][0])
		return jstr(val[K_VENDOR]);
	unsigned long impl = val[K_IMPL][0] ? strtoul(val[K_IMPL], NULL, 0) : 0;
	for (size_t i = 0; impl && i < sizeof arm_vendors / sizeof arm_vendors[0]; i++)
		if (arm_vendors[i].impl == impl)
			return jstr(arm_vendors[i].name);
	return json_null();
}

json_t *nm_meta_host(struct ibv_context *ctx, int port, int gid_index)
{
	json_t *j = json_object();
	char host[256];
	if (gethostname(host, sizeof host) == 0) {
		host[sizeof host - 1] = '\0';
		json_object_set_new(j, "hostname", jstr(host));
	} else {
		json_object_set_new(j, "hostname", json_null());
	}
	struct utsname u;
	if (uname(&u) == 0) {
		char k[4 * sizeof u.release + 4];
		snprintf(k, sizeof k, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		json_object_set_new(j, "kernel", jstr(k));
	} else {
		json_object_set_new(j, "kernel", json_null());
	}
	char cpuinfo[K_N][256] = {{0}};
	cpuinfo_read(cpuinfo);
	json_object_set_new(j, "cpu_vendor", cpu_vendor(cpuinfo));
	json_object_set_new(j, "cpu_model", cpu_model(cpuinfo));
	nm_meta_memory(j, json_string_value(json_object_get(j, "cpu_vendor")));
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	json_object_set_new(j, "cpus", n > 0 ? json_integer(n) : json_null());
	json_object_set_new(j, "numa", nm_topo_json());
	json_object_set_new(j, "nic", nm_meta_nic(ctx, port, gid_index));
	return j;
}

/* ---- software ---- */

/* rdma-core names the library libibverbs.so.1.<abi>.<package version>, so the
 * last two components of the loaded file's real name are the release. */
static int rdma_core_from_path(const char *path, char *out, size_t len)
{
	char *real = realpath(path, NULL);
	if (!real)
		return -1;
	const char *base = strrchr(real, '/');
	base = base ? base + 1 : real;
	static const char stem[] = "libibverbs.so.";
	int rc = -1;
	if (strncmp(base, stem, sizeof stem - 1) == 0) {
		const char *v = base + sizeof stem - 1;
		const char *dots[8];
		int ndots = 0, ok = isdigit((unsigned char)v[0]);
		for (const char *c = v; *c && ok; c++) {
			if (*c == '.') {
				ok = isdigit((unsigned char)c[1]) && ndots < 8;
				if (ok)
					dots[ndots++] = c;
			} else if (!isdigit((unsigned char)*c)) {
				ok = 0;
			}
		}
		/* Fewer than four components is the SONAME, which carries no
		 * release. */
		if (ok && ndots >= 3 && strlen(dots[ndots - 2] + 1) < len) {
			snprintf(out, len, "%s", dots[ndots - 2] + 1);
			rc = 0;
		}
	}
	free(real);
	return rc;
}

static int find_ibverbs(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;
	const char *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	if (base && strncmp(base, "libibverbs.so", 13) == 0) {
		*(const char **)data = name;
		return 1;
	}
	return 0;
}

static json_t *rdma_core_version(void)
{
	char v[64];
	Dl_info info;
	/* In a non-PIE executable the function's address can be the
	 * executable's own PLT stub, so when dladdr names anything but
	 * libibverbs, look the library up among the loaded objects. */
	void *sym = (void *)ibv_get_device_list;
	if (dladdr(sym, &info) && info.dli_fname && rdma_core_from_path(info.dli_fname, v, sizeof v) == 0)
		return jstr(v);
	const char *path = NULL;
	dl_iterate_phdr(find_ibverbs, &path);
	if (path && rdma_core_from_path(path, v, sizeof v) == 0)
		return jstr(v);
	return jstr("unknown");
}

static json_t *mpi_version(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING + 1];
	int len = 0;
	if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
		return jstr("unknown");
	if (len < 0 || len > MPI_MAX_LIBRARY_VERSION_STRING)
		len = MPI_MAX_LIBRARY_VERSION_STRING;
	v[len] = '\0';
	v[strcspn(v, "\r\n")] = '\0';
	trim(v);
	return jstr(v[0] ? v : "unknown");
}

static const char *compiler(void)
{
#if defined(__clang__) || !defined(__GNUC__)
#ifdef __VERSION__
	return __VERSION__; /* clang's already starts with its name */
#else
	return "unknown";
#endif
#else
	return "gcc " __VERSION__;
#endif
}

/* The clock and why it was chosen: a reader can tell a TSC that calibrated
 * well from a forced one, and what each read cost inside measured intervals. */
static json_t *clock_json(void)
{
	const nm_clock_choice *c = nm_clock_info();
	static const char *const wants[] = {[NM_CLOCK_AUTO] = "auto", [NM_CLOCK_WANT_TSC] = "tsc",
					    [NM_CLOCK_WANT_SYSTEM] = "system"};
	json_t *cal = json_array();
	for (int i = 0; i < c->ncal; i++)
		json_array_append_new(cal, json_real(c->cal[i]));
	return json_pack("{s:s, s:f, s:f, s:s, s:o, s:o, s:f, s:s, s:b, s:f, s:s}", "source", nm_clock_source(),
			 "hz", nm_clock_hz(), "ticks_per_ns", c->ticks_per_ns, "reference", "CLOCK_MONOTONIC_RAW",
			 "calibrations", cal, "spread", c->spread >= 0 ? json_real(c->spread) : json_null(),
			 "tolerance", NM_CLOCK_TOLERANCE, "requested", wants[c->want], "tsc_invariant_flags",
			 nm_clock_tsc_flags(), "read_ns", nm_clock_read_ns(), "why", c->why);
}

json_t *nm_meta_software(void)
{
	json_t *j = json_object();
	json_object_set_new(j, "suite", jstr("netmem-bench"));
	json_object_set_new(j, "version", jstr(NM_VERSION));
	json_object_set_new(j, "git_commit", jstr(NM_GIT));
	json_object_set_new(j, "build_id", jstr(nm_build_id));
	json_object_set_new(j, "rdma_core", rdma_core_version());
	json_object_set_new(j, "mpi", mpi_version());
	json_object_set_new(j, "compiler", jstr(compiler()));
	json_object_set_new(j, "clock", clock_json());
	return j;
}

char *nm_iso8601_now(void)
{
	time_t now = time(NULL);
	struct tm tm;
	if (now == (time_t)-1 || !gmtime_r(&now, &tm))
		return NULL;
	char *s = malloc(32);
	if (s && strftime(s, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		free(s);
		s = NULL;
	}
	return s;
}

/* The NIC identity of one rank's record: what must not change within a
 * document (a resumed run on another part, firmware or device would mix two
 * NICs' numbers under one label). */
static const char *const nic_identity[] = {"device", "vendor_part_id", "fw_ver"};

int nm_meta_same_nics(const json_t *old_run, const json_t *new_run, char *why, size_t len)
{
	const json_t *oh = json_object_get(old_run, "hosts"), *nh = json_object_get(new_run, "hosts");
	if (!nm_json_same_value(oh, nh)) {
		char *a = json_dumps(oh, JSON_COMPACT | JSON_ENCODE_ANY), *b = json_dumps(nh, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(why, len, "its hosts were %s, this job's are %s", a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		return -1;
	}
	const json_t *or = json_object_get(old_run, "ranks"), *nr = json_object_get(new_run, "ranks");
	for (size_t i = 0; i < json_array_size(nr); i++)
		for (size_t k = 0; k < sizeof nic_identity / sizeof nic_identity[0]; k++) {
			const json_t *a = json_object_get(json_object_get(json_array_get(or, i), "nic"), nic_identity[k]);
			const json_t *b = json_object_get(json_object_get(json_array_get(nr, i), "nic"), nic_identity[k]);
			if (a && !nm_json_same_value(a, b)) {
				char *sa = json_dumps(a, JSON_ENCODE_ANY), *sb = json_dumps(b, JSON_ENCODE_ANY);
				snprintf(why, len, "rank %zu's NIC %s was %s, is now %s", i, nic_identity[k], sa ? sa : "?",
					 sb ? sb : "?");
				free(sa);
				free(sb);
				return -1;
			}
		}
	return 0;
}
