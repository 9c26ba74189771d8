#include "pages.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif

static long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}

static void tally(nm_page_census *c, int node, size_t off)
{
	if (node < 0) {
		if (c->unknown++ == 0)
			c->unknown_errno = -node;
		if (c->intended >= 0 && c->first_wrong < 0)
			c->first_wrong = (long)off;
		return;
	}
	if (node == c->intended)
		c->on_intended++;
	else if (c->intended >= 0 && c->first_wrong < 0)
		c->first_wrong = (long)off;
	for (int i = 0; i < c->nids; i++)
		if (c->id[i] == node) {
			c->count[i]++;
			return;
		}
	if (c->nids < NM_NUMA_MAX_NODES) {
		c->id[c->nids] = node;
		c->count[c->nids++] = 1;
	}
}

#define BATCH 1024

int nm_pages_census(const void *p, size_t len, size_t page_size, int intended, nm_page_census *c)
{
	memset(c, 0, sizeof *c);
	c->page_size = page_size;
	c->intended = intended;
	c->first_wrong = -1;
	c->pages = (len + page_size - 1) / page_size;
	void *addr[BATCH];
	int status[BATCH];
	for (size_t done = 0; done < c->pages;) {
		size_t n = c->pages - done < BATCH ? c->pages - done : BATCH;
		for (size_t i = 0; i < n; i++) {
			addr[i] = (uint8_t *)(uintptr_t)p + (done + i) * page_size;
			status[i] = -ENOENT;
		}
		if (sys_move_pages(n, addr, NULL, status, 0) != 0) {
			c->query_errno = errno;
			for (size_t i = done; i < c->pages; i++)
				tally(c, -c->query_errno, i * page_size);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			tally(c, status[i], (done + i) * page_size);
		done += n;
	}
	return 0;
}

bool nm_census_ok(const nm_page_census *c)
{
	return c->intended < 0 || (c->on_intended == c->pages && c->unknown == 0);
}

json_t *nm_census_json(const nm_page_census *c)
{
	json_t *nodes = json_object();
	/* in node order */
	int order[NM_NUMA_MAX_NODES];
	for (int i = 0; i < c->nids; i++)
		order[i] = i;
	for (int i = 1; i < c->nids; i++)
		for (int k = i; k > 0 && c->id[order[k]] < c->id[order[k - 1]]; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int i = 0; i < c->nids; i++) {
		char key[16];
		snprintf(key, sizeof key, "%d", c->id[order[i]]);
		json_object_set_new(nodes, key, json_integer((json_int_t)c->count[order[i]]));
	}
	json_t *j = json_pack("{s:I, s:I, s:o, s:I, s:b}", "pages", (json_int_t)c->pages, "page_size",
			      (json_int_t)c->page_size, "nodes", nodes, "unknown", (json_int_t)c->unknown,
			      "ok", nm_census_ok(c));
	if (c->intended >= 0)
		json_object_set_new(j, "on_intended", json_integer((json_int_t)c->on_intended));
	if (c->first_wrong >= 0 && c->intended >= 0)
		json_object_set_new(j, "first_wrong_offset", json_integer(c->first_wrong));
	if (c->unknown)
		json_object_set_new(j, "error", json_string(strerror(c->query_errno ? c->query_errno
										    : c->unknown_errno)));
	return j;
}

void nm_census_why(const nm_page_census *c, const char *what, char *buf, size_t len)
{
	if (c->query_errno) {
		snprintf(buf, len, "%s: move_pages cannot query the pages: %s", what,
			 strerror(c->query_errno));
		return;
	}
	size_t off_node = c->pages - c->on_intended - c->unknown;
	snprintf(buf, len, "%s: %zu of %zu pages are not on the intended node %d (%zu elsewhere, %zu "
		 "unknown%s%s), first at byte %ld", what, c->pages - c->on_intended, c->pages,
		 c->intended, off_node, c->unknown, c->unknown ? ": " : "",
		 c->unknown ? strerror(c->unknown_errno) : "", c->first_wrong);
}

int nm_pages_move_one(void *p, int node)
{
	long page = sysconf(_SC_PAGESIZE);
	void *addr = (void *)((uintptr_t)p & ~(uintptr_t)(page - 1));
	int status = -ENOENT;
	if (sys_move_pages(1, &addr, &node, &status, MPOL_MF_MOVE) < 0)
		return -errno;
	if (status < 0)
		return status;
	if (sys_move_pages(1, &addr, NULL, &status, 0) < 0)
		return -errno;
	return status;
}
