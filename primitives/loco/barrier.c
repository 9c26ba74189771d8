#include "barrier.h"
#include "clock.h"
#include "log.h"
#include <sched.h>
#include <stdio.h>

size_t nm_barrier_bytes(int n) { return nm_sst_bytes(8, n); }

void nm_barrier_init(nm_barrier *b, const nm_mr *mr, size_t off, int n, int me)
{
	*b = (nm_barrier){.n = n, .me = me};
	nm_sst_init(&b->sst, mr, off, 8, n, me, NULL);
}

void nm_barrier_free(nm_barrier *b) { nm_sst_free(&b->sst); }

static _Noreturn void hung(const nm_barrier *b, const nm_chan *ch)
{
	char rows[256] = "";
	size_t off = 0;
	for (int r = 0; r < b->n && off < sizeof rows; r++) {
		uint64_t v = nm_sst_load_u64(&b->sst, ch->mr, r);
		if (v < b->count)
			off += (size_t)snprintf(rows + off, sizeof rows - off, "%s%d (at %llu)",
						off ? ", " : "", r, (unsigned long long)v);
	}
	nm_fatal("barrier episode %llu: no progress for %.1f s; still waiting for rank(s) %s",
		 (unsigned long long)b->count,
		 (double)nm_ticks_to_ns(ch->poller->timeout_ticks) / 1e9, rows);
}

void nm_barrier_wait(nm_barrier *b, nm_chan *ch)
{
	const nm_mr *mr = ch->mr;
	nm_chan_fence(ch);
	b->count++;
	nm_sst_store_mine(&b->sst, mr, &b->count);
	nm_sst_push_broadcast(ch, &b->sst);
	if (b->no_wait)
		return;
	/* Rows only grow, so a row seen at >= count stays there: resume from
	 * the first row still behind. The clock is read every 4096 rounds only
	 * (the deadline is seconds; this loop is the latency path). */
	int r = 0;
	uint32_t rounds = 0, yields = 0;
	uint64_t since = 0;
	while (r < b->n) {
		if (nm_sst_load_u64(&b->sst, mr, r) >= b->count) {
			r++;
			since = 0;
			continue;
		}
		if (b->yield_spins && ++yields >= b->yield_spins) {
			yields = 0;
			sched_yield();
		}
		if (++rounds == 4096) {
			rounds = 0;
			uint64_t now = nm_ticks();
			if (since == 0)
				since = now;
			else if (now - since > ch->poller->timeout_ticks)
				hung(b, ch);
		}
	}
}
