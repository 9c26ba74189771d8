#include "mem.h"
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_2M (2u << 20)

size_t nm_mem_alloc_len(size_t len, bool hugepages)
{
	size_t page = hugepages ? HUGE_2M : (size_t)sysconf(_SC_PAGESIZE);
	size_t n = (len + page - 1) / page * page;
	return n ? n : page;
}

void *nm_mem_alloc(size_t len, bool hugepages, int numa_node, size_t *alloc_len,
		   char *err, size_t errlen)
{
	size_t n = nm_mem_alloc_len(len, hugepages);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (hugepages ? MAP_HUGETLB : 0);
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		if (hugepages)
			snprintf(err, errlen, "cannot map %zu bytes of huge pages (%s): reserve "
				 "some with 'sysctl vm.nr_hugepages=N' or drop --hugepages",
				 n, strerror(errno));
		else
			snprintf(err, errlen, "cannot map %zu bytes: %s", n, strerror(errno));
		return NULL;
	}
	if (numa_node >= 0) {
		if (numa_available() < 0 || numa_node > numa_max_node()) {
			snprintf(err, errlen, "NUMA node %d does not exist (this host has %d)",
				 numa_node, numa_available() < 0 ? 1 : numa_max_node() + 1);
			munmap(p, n);
			return NULL;
		}
		unsigned long mask[16] = {0};
		mask[numa_node / (8 * sizeof(unsigned long))] |=
			1ul << (numa_node % (8 * sizeof(unsigned long)));
		/* MPOL_BIND with STRICT+MOVE: pages must land on the node or the
		 * call fails, never silently elsewhere. */
		if (mbind(p, n, MPOL_BIND, mask, sizeof(mask) * 8,
			  MPOL_MF_STRICT | MPOL_MF_MOVE) != 0) {
			snprintf(err, errlen, "cannot bind %zu bytes to NUMA node %d: %s", n,
				 numa_node, strerror(errno));
			munmap(p, n);
			return NULL;
		}
	}
	memset(p, 0, n); /* fault every page in now, on the bound node */
	*alloc_len = n;
	return p;
}

void nm_mem_free(void *p, size_t alloc_len)
{
	if (p)
		munmap(p, alloc_len);
}
