/* The host's memory settings in the metadata: transparent huge pages,
 * automatic NUMA balancing and Intel DDIO. The NUMA study's results depend
 * on all three (the paper's RDMA-remote-beats-RDMA-local inversion is
 * attributed to DDIO), and none of them is stated in the paper.
 *
 * DDIO has no architectural interface. Decisions: on Intel CPUs the
 * IIO_LLC_WAYS register (MSR 0xC8B, Xeon Scalable and later: the LLC ways
 * inbound writes may allocate into) is read through /dev/cpu/0/msr when the
 * msr driver is loaded and the caller may read it (root); a non-zero mask
 * is "enabled", zero "disabled". A root port can still turn allocating
 * writes off in its PCI configuration (what the paper's authors toggled, at
 * a platform-specific register), which is not read: the record says so.
 * Everywhere else (other vendors, no msr driver, no permission) the state is
 * "unknown" with the reason. */
#include "meta.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSR_IIO_LLC_WAYS 0xC8Bu

/* The bracketed choice of a sysfs setting ("always [madvise] never"). */
static json_t *bracketed(const char *path)
{
	char line[256];
	if (nm_meta_read_line(path, line, sizeof line) != 0)
		return json_string("unknown");
	char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
	if (!a || !b)
		return json_string(line);
	*b = 0;
	return json_string(a + 1);
}

static json_t *thp(void)
{
	json_t *t = json_object();
	json_object_set_new(t, "enabled", bracketed("/sys/kernel/mm/transparent_hugepage/enabled"));
	json_object_set_new(t, "defrag", bracketed("/sys/kernel/mm/transparent_hugepage/defrag"));
	return t;
}

/* 0 off, 1 on (2: memory tiering mode on newer kernels); "unknown" when the
 * kernel has no such setting. */
static json_t *numa_balancing(void)
{
	char line[64];
	char *end;
	if (nm_meta_read_line("/proc/sys/kernel/numa_balancing", line, sizeof line) != 0)
		return json_string("unknown");
	long v = strtol(line, &end, 10);
	return end != line ? json_integer(v) : json_string(line);
}

static json_t *ddio_unknown(const char *why)
{
	json_t *d = json_object();
	json_object_set_new(d, "state", json_string("unknown"));
	json_object_set_new(d, "reason", json_string(why));
	return d;
}

static json_t *ddio(const char *vendor)
{
	if (!vendor || strcmp(vendor, "GenuineIntel"))
		return ddio_unknown("DDIO is an Intel Xeon feature; this CPU is not an Intel one (cpu_vendor)");
	int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		char why[160];
		snprintf(why, sizeof why, "cannot read MSR 0xC8B (IIO_LLC_WAYS) through /dev/cpu/0/msr: %s",
			 strerror(errno));
		return ddio_unknown(why);
	}
	uint64_t v = 0;
	ssize_t n = pread(fd, &v, sizeof v, MSR_IIO_LLC_WAYS);
	close(fd);
	if (n != (ssize_t)sizeof v)
		return ddio_unknown("MSR 0xC8B (IIO_LLC_WAYS) does not exist on this CPU (before Xeon Scalable)");
	char mask[24];
	snprintf(mask, sizeof mask, "0x%llx", (unsigned long long)v);
	json_t *d = json_object();
	json_object_set_new(d, "state", json_string(v ? "enabled" : "disabled"));
	json_object_set_new(d, "source", json_string("MSR 0xC8B (IIO_LLC_WAYS)"));
	json_object_set_new(d, "llc_ways_mask", json_string(mask));
	json_object_set_new(d, "note", json_string("a PCIe root port may still disable allocating writes "
						   "in its configuration space, which is not read"));
	return d;
}

void nm_meta_memory(json_t *host, const char *vendor)
{
	json_object_set_new(host, "transparent_hugepages", thp());
	json_object_set_new(host, "numa_balancing", numa_balancing());
	json_object_set_new(host, "ddio", ddio(vendor));
}
