/* LOCO's kvstore, a node's slots (kv_loco.h; the layout: kv_size.c): the
 * prefill's placement, and the free slots inserts take and deletes give
 * back. The operations (kv_loco_ops.c) and the store's threads and point
 * (kv_loco.c) call these; nothing here calls either. */
#include "kv_loco.h"
#include "alloc.h"

void loco_prefill(loco_job *j)
{
	const kv_point *p = j->p;
	uint64_t mine = 0;
	for (uint64_t i = 0; i < p->load.prefill; i++) {
		uint64_t key = kv_key(i);
		nm_kvloc loc = {.slot = (uint32_t)(i / (uint64_t)j->N), .node = (uint16_t)(i % (uint64_t)j->N),
				.counter = 1};
		nm_kvindex_put_unlocked(&j->index, key, &loc);
		if (loc.node == j->rank) {
			slot_image(j, slot_at(j, loc.slot), key, KV_PREFILL_WRITER, 0, 1, true);
			mine++;
		}
	}
	j->free = nm_malloc(j->lay.slots * sizeof *j->free);   /* deletes free prefilled slots too */
	for (uint64_t s = j->lay.slots; s-- > mine;)
		j->free[j->nfree++] = (uint32_t)s;
	pthread_mutex_init(&j->free_mu, NULL);
}

bool loco_slot_alloc(loco_job *j, uint32_t *s)
{
	pthread_mutex_lock(&j->free_mu);
	bool ok = j->nfree > 0;
	if (ok)
		*s = j->free[--j->nfree];
	pthread_mutex_unlock(&j->free_mu);
	return ok;
}

void loco_slot_free(loco_job *j, uint32_t s)
{
	pthread_mutex_lock(&j->free_mu);
	j->free[j->nfree++] = s;
	pthread_mutex_unlock(&j->free_mu);
}
