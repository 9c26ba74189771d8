/* Message buckets for an RPC over RDMA WRITE: see wring.h. */
#include "wring.h"
#include <stdatomic.h>

/* Words another party writes (the NIC, for a remote sender) are read once
 * each, atomically: the compiler may neither tear nor repeat the read. */
static uint64_t load(const uint64_t *w)
{
	return atomic_load_explicit((const _Atomic uint64_t *)w, memory_order_acquire);
}

void nm_wring_begin(uint64_t *b, uint64_t seq)
{
	b[0] = seq;
	b[1] = 0;
}

uint64_t *nm_wring_add(uint64_t *b, uint32_t words)
{
	uint32_t used = (uint32_t)b[1];
	uint64_t *m = b + 2 + used;
	m[0] = words;
	b[1] = (uint64_t)(nm_wring_count(b) + 1) << 32 | (used + 1 + words);
	return m + 1;
}

uint32_t nm_wring_seal(uint64_t *b)
{
	uint32_t used = (uint32_t)b[1];
	b[2 + used] = b[0];
	return 3 + used;
}

bool nm_wring_arrived(const uint64_t *b, uint64_t seq, size_t cap_words)
{
	if (load(b) != seq)
		return false;
	uint64_t len = load(b + 1);
	size_t used = (uint32_t)len;
	/* a length that does not fit is an older bucket's, or not in yet */
	if (3 + used > cap_words)
		return false;
	return load(b + 2 + used) == seq;
}

const uint64_t *nm_wring_next(const uint64_t *b, const uint64_t *prev, uint32_t *words)
{
	const uint64_t *end = b + 2 + (uint32_t)b[1];
	const uint64_t *h = prev ? prev + prev[-1] : b + 2;   /* the next message's length word */
	if (h >= end)
		return NULL;
	*words = (uint32_t)h[0];
	return h + 1;
}
