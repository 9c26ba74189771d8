/* The local half of Sherman's HOCL (hocl.h). */
#include "hocl.h"
#include <stdlib.h>

int nm_hocl_init(nm_hocl *h, size_t n, uint32_t max_holders)
{
	*h = (nm_hocl){.n = n, .max_holders = max_holders ? max_holders : 1};
	h->slot = calloc(n ? n : 1, sizeof *h->slot);
	return h->slot ? 0 : -1;
}

void nm_hocl_free(nm_hocl *h)
{
	free(h->slot);
	*h = (nm_hocl){0};
}

uint32_t nm_hocl_enter(nm_hocl *h, size_t i)
{
	return atomic_fetch_add_explicit(&h->slot[i].next, 1, memory_order_relaxed);
}

bool nm_hocl_served(const nm_hocl *h, size_t i, uint32_t t)
{
	return atomic_load_explicit(&h->slot[i].served, memory_order_acquire) == t;
}

bool nm_hocl_begin(nm_hocl *h, size_t i)
{
	nm_hocl_slot *s = &h->slot[i];
	s->hand_time++;
	return s->hand_over;
}

bool nm_hocl_hand_over(nm_hocl *h, size_t i)
{
	nm_hocl_slot *s = &h->slot[i];
	uint32_t next = atomic_load_explicit(&s->next, memory_order_relaxed);
	uint32_t served = atomic_load_explicit(&s->served, memory_order_relaxed);
	/* tickets served+1 .. next-1 wait (wrap-around safe) */
	bool waiter = (uint32_t)(next - served) > 1;
	s->hand_over = waiter && s->hand_time < h->max_holders;
	if (!s->hand_over)
		s->hand_time = 0;
	return s->hand_over;
}

void nm_hocl_leave(nm_hocl *h, size_t i)
{
	atomic_fetch_add_explicit(&h->slot[i].served, 1, memory_order_release);
}

bool nm_hocl_idle(const nm_hocl *h, size_t i)
{
	return atomic_load_explicit(&h->slot[i].next, memory_order_acquire) ==
	       atomic_load_explicit(&h->slot[i].served, memory_order_acquire);
}
