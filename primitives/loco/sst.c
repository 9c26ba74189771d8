#include "alloc.h"
#include "sst.h"
#include "log.h"
#include <stdlib.h>

size_t nm_sst_bytes(uint32_t len, int n) { return NM_SST_ROW_STRIDE(len) * (size_t)n; }

void nm_sst_init(nm_sst *s, const nm_mr *mr, size_t off, uint32_t len, int n, int me,
		 const void *initial)
{
	if (off % 64 || n < 1 || me < 0 || me >= n)
		nm_fatal("SST at offset %zu with %d rows for rank %d: offset not 64-aligned or the "
			 "rank is not a member", off, n, me);
	s->rows = nm_calloc((size_t)n, sizeof *s->rows);
	s->n = n;
	s->me = me;
	s->len = len;
	for (int r = 0; r < n; r++)
		nm_ov_init(&s->rows[r], mr, off + NM_SST_ROW_STRIDE(len) * (size_t)r, len, r, me, initial);
}

void nm_sst_free(nm_sst *s)
{
	free(s->rows);
	s->rows = NULL;
}

void nm_sst_store_mine(const nm_sst *s, const nm_mr *mr, const void *val)
{
	nm_ov_store(&s->rows[s->me], mr, val);
}

void nm_sst_push_broadcast(nm_chan *ch, const nm_sst *s)
{
	for (int r = 0; r < s->n; r++)
		if (r != s->me)
			nm_ov_push(ch, &s->rows[s->me], r);
}

void nm_sst_load(const nm_sst *s, const nm_mr *mr, int r, void *out)
{
	/* A push of a row > 8 bytes lands in a few microseconds; a copy torn
	 * for this many loads can only be a bug. */
	for (long i = 0; i < 100000000L; i++)
		if (nm_ov_load(&s->rows[r], mr, out))
			return;
	nm_fatal("SST row %d stays torn in the local copy", r);
}
