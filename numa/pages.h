/* Where the pages of a buffer are: move_pages(2) in query mode (nodes =
 * NULL), which reports the node of every resident page without moving it.
 * Raw system calls only (no libnuma), so the unit tests run it on the host.
 *
 * Decisions: a page whose node cannot be read (status < 0: not resident, or
 * a mapping the kernel cannot report) is not "confirmed" on the intended node,
 * so it fails the check like a page on the wrong node; a buffer with no
 * intended node (placement `any`) is reported, never failed. Pages are
 * queried at the mapping's page size (2 MiB with --hugepages). */
#ifndef NM_NUMA_PAGES_H
#define NM_NUMA_PAGES_H
#include "place.h"
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct nm_page_census {
	size_t pages, page_size;
	size_t on_intended;       /* pages on the intended node (0 when none intended) */
	size_t unknown;           /* status < 0 */
	int unknown_errno;        /* -status of the first unknown page */
	int nids;                 /* distinct nodes seen */
	int id[NM_NUMA_MAX_NODES];
	size_t count[NM_NUMA_MAX_NODES];
	long first_wrong;         /* byte offset of the first page not on the intended node, -1 */
	int intended;             /* -1: none */
	int query_errno;          /* move_pages itself failed (then every page is unknown) */
} nm_page_census;

/* Queries every page of [p, p+len) (p page aligned). Returns 0, or -1 when
 * move_pages failed as a whole (c->query_errno; all pages unknown). */
int nm_pages_census(const void *p, size_t len, size_t page_size, int intended, nm_page_census *c);
/* Every page on the intended node (true when nothing was intended). */
bool nm_census_ok(const nm_page_census *c);
/* {"pages", "page_size", "nodes": {"ID": pages, ...}, "unknown", "on_intended",
 *  "ok"} plus "first_wrong_offset" and "error" when relevant. New reference. */
json_t *nm_census_json(const nm_page_census *c);
/* One line describing a failed census, for first_error. */
void nm_census_why(const nm_page_census *c, const char *what, char *buf, size_t len);

/* Moves the page holding p to node (move_pages, MPOL_MF_MOVE). Returns the
 * page's node afterwards, or -errno. Testing aid (--inject misplace). */
int nm_pages_move_one(void *p, int node);
#endif
