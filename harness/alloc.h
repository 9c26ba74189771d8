/* Allocation that cannot fail quietly, and the alignment every memory layout
 * in the suite uses. Out of memory is a runtime failure: the job ends with a
 * line naming the rank (nm_fatal), never a NULL dereference later. */
#ifndef NM_ALLOC_H
#define NM_ALLOC_H
#include <stddef.h>

void *nm_calloc(size_t n, size_t size);
void *nm_malloc(size_t size);
char *nm_strdup(const char *s);
/* A formatted string on the heap, whatever its length (a message a caller
 * keeps, such as why a document was refused). free() it. */
char *nm_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *nm_realloc(void *p, size_t size);
/* Zeroed and 64-byte aligned (calloc guarantees 16): per-thread state that
 * neighbouring threads write must not share a cache line. free() it. */
void *nm_calloc64(size_t n, size_t size);

/* v rounded up to a multiple of 64 (a cache line, and RDMA-friendly). */
static inline size_t nm_align64(size_t v) { return (v + 63) & ~(size_t)63; }
#endif
