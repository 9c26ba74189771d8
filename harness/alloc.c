#include "alloc.h"
#include "log.h"
#include <stdlib.h>
#include <string.h>

void *nm_calloc(size_t n, size_t size)
{
	/* calloc(0, ...) may return NULL legitimately: ask for one element. */
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		nm_fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *nm_calloc64(size_t n, size_t size)
{
	size_t bytes = nm_align64((n ? n : 1) * (size ? size : 1));
	void *p = aligned_alloc(64, bytes);
	if (!p)
		nm_fatal("out of memory (%zu x %zu bytes)", n, size);
	return memset(p, 0, bytes);
}

void *nm_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		nm_fatal("out of memory (%zu bytes)", size);
	return p;
}

char *nm_strdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		nm_fatal("out of memory");
	return p;
}

void *nm_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);
	if (!q && size)
		nm_fatal("out of memory (%zu bytes)", size);
	return q;
}
