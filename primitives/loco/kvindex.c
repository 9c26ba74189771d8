/* LOCO kvstore's local index: see kvindex.h. */
#include "kvindex.h"
#include "alloc.h"
#include "log.h"
#include <stdlib.h>

void nm_kvindex_init(nm_kvindex *x, uint64_t keys)
{
	uint64_t n = 16;
	while ((double)n * 0.7 < (double)keys)
		n <<= 1;
	*x = (nm_kvindex){.e = nm_calloc(n, sizeof(nm_kvindex_entry)), .mask = n - 1};
	pthread_rwlock_init(&x->lock, NULL);
}

void nm_kvindex_free(nm_kvindex *x)
{
	pthread_rwlock_destroy(&x->lock);
	free(x->e);
	x->e = NULL;
}

/* The bucket holding key, or (put) the first free one on its probe path. */
static nm_kvindex_entry *probe(nm_kvindex *x, uint64_t key, bool for_put)
{
	nm_kvindex_entry *tomb = NULL;
	for (uint64_t i = key & x->mask, n = 0; n <= x->mask; i = (i + 1) & x->mask, n++) {
		nm_kvindex_entry *e = &x->e[i];
		if (e->key == key)
			return e;
		if (e->key == NM_KVINDEX_TOMB && !tomb)
			tomb = e;
		if (e->key == NM_KVINDEX_EMPTY)
			return for_put ? (tomb ? tomb : e) : NULL;
	}
	if (for_put && tomb)
		return tomb;
	if (for_put)
		nm_fatal("kv index full (%llu buckets): more live keys than the key space", (unsigned long long)x->mask + 1);
	return NULL;
}

bool nm_kvindex_get(nm_kvindex *x, uint64_t key, nm_kvloc *loc)
{
	pthread_rwlock_rdlock(&x->lock);
	nm_kvindex_entry *e = probe(x, key, false);
	if (e)
		*loc = e->loc;
	pthread_rwlock_unlock(&x->lock);
	return e != NULL;
}

void nm_kvindex_put_unlocked(nm_kvindex *x, uint64_t key, const nm_kvloc *loc)
{
	nm_kvindex_entry *e = probe(x, key, true);
	if (e->key != key) {
		e->key = key;
		x->used++;
	}
	e->loc = *loc;
}

void nm_kvindex_put(nm_kvindex *x, uint64_t key, const nm_kvloc *loc)
{
	pthread_rwlock_wrlock(&x->lock);
	nm_kvindex_put_unlocked(x, key, loc);
	pthread_rwlock_unlock(&x->lock);
}

bool nm_kvindex_del(nm_kvindex *x, uint64_t key)
{
	pthread_rwlock_wrlock(&x->lock);
	nm_kvindex_entry *e = probe(x, key, false);
	if (e) {
		e->key = NM_KVINDEX_TOMB;
		x->used--;
	}
	pthread_rwlock_unlock(&x->lock);
	return e != NULL;
}
