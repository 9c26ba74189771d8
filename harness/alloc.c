#include "alloc.h"
#include "log.h"
#include <stdarg.h>
#include <stdio.h>
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

char *nm_strdupf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		nm_fatal("cannot format a message (%s)", fmt);
	char *p = nm_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *nm_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);
	if (!q && size)
		nm_fatal("out of memory (%zu bytes)", size);
	return q;
}
