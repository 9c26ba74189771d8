/* Buffer allocation with placement: huge pages on request, memory bound to a
 * NUMA node on request, page-aligned and pre-faulted so registration and the
 * first measured access do not pay for page faults. */
#ifndef NM_NUMA_MEM_H
#define NM_NUMA_MEM_H
#include <stdbool.h>
#include <stddef.h>

/* What nm_mem_alloc maps for len bytes: whole pages (2 MiB ones with
 * hugepages), at least one. Preflight counts registered memory with it. */
size_t nm_mem_alloc_len(size_t len, bool hugepages);
/* Returns the mapping (length rounded up into *alloc_len) or NULL with one
 * line in err. numa_node < 0 = the kernel's default policy. */
void *nm_mem_alloc(size_t len, bool hugepages, int numa_node, size_t *alloc_len,
		   char *err, size_t errlen);
void nm_mem_free(void *p, size_t alloc_len);
#endif
