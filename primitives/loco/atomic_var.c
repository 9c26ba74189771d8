#include "atomic_var.h"
#include "log.h"

void nm_av_init(nm_av *a, const nm_mr *mr, size_t off, int host, int me, uint64_t initial)
{
	if (off % 8 || off + 8 > mr->len)
		nm_fatal("atomic_var at offset %zu: not 8-aligned or beyond the registered memory "
			 "(%zu bytes)", off, mr->len);
	*a = (nm_av){.host = host, .off = off};
	if (host == me)
		__atomic_store_n((uint64_t *)((uint8_t *)mr->buf + off), initial, __ATOMIC_RELEASE);
}

static uint64_t atomic_op(nm_chan *ch, const nm_av *a, int op, uint64_t compare_add, uint64_t swap)
{
	nm_conn *c = nm_chan_conn(ch, a->host);
	*ch->scratch = 0;
	nm_post_atomic(c, op, ch->scratch, nm_chan_lkey(ch), nm_chan_raddr(ch, a->host, a->off),
		       compare_add, swap, NM_WRID(op, a->host), true);
	nm_chan_wait(ch, 1);
	return __atomic_load_n(ch->scratch, __ATOMIC_ACQUIRE);
}

uint64_t nm_av_faa(nm_chan *ch, const nm_av *a, uint64_t add)
{
	return atomic_op(ch, a, NM_OP_FAA, add, 0);
}

uint64_t nm_av_cas(nm_chan *ch, const nm_av *a, uint64_t expected, uint64_t desired)
{
	return atomic_op(ch, a, NM_OP_CAS, expected, desired);
}

uint64_t nm_av_load(nm_chan *ch, const nm_av *a)
{
	*ch->scratch = 0;
	nm_chan_read_post(ch, a->host, ch->scratch, a->off, 8);
	nm_chan_wait(ch, 1);
	return __atomic_load_n(ch->scratch, __ATOMIC_ACQUIRE);
}
