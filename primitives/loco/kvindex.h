/* The local index of LOCO's kvstore (LOCO paper, section 6): on every node, a
 * map from key to where its slot is (node, slot) and the slot's counter at
 * the time the entry was made, behind one reader-writer lock, as the paper's
 * unordered_map under a local reader-writer lock.
 *
 * Open addressing with linear probing over a power-of-two table sized for
 * the whole key space at a load of at most 0.7 (it never grows: the store's
 * key space is fixed), deleted entries left as tombstones. Keys are 64-bit
 * hashes already (kv_key), so the key's low bits pick the bucket. Key 0 marks
 * an empty bucket and UINT64_MAX a tombstone; neither is a valid key. */
#ifndef NM_KVINDEX_H
#define NM_KVINDEX_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define NM_KVINDEX_EMPTY 0ull
#define NM_KVINDEX_TOMB UINT64_MAX

typedef struct nm_kvloc {
	uint32_t slot;
	uint16_t node;
	uint16_t pad;
	uint32_t counter;
} nm_kvloc;

typedef struct nm_kvindex_entry {
	uint64_t key;
	nm_kvloc loc;
	uint32_t pad;
} nm_kvindex_entry;

typedef struct nm_kvindex {
	pthread_rwlock_t lock;
	nm_kvindex_entry *e;
	uint64_t mask;
	uint64_t used;      /* live entries */
} nm_kvindex;

/* For at most `keys` live keys. */
void nm_kvindex_init(nm_kvindex *x, uint64_t keys);
void nm_kvindex_free(nm_kvindex *x);
/* Under the read lock: true with *loc when key is present. */
bool nm_kvindex_get(nm_kvindex *x, uint64_t key, nm_kvloc *loc);
/* Under the write lock: sets (inserts or replaces) key's location. */
void nm_kvindex_put(nm_kvindex *x, uint64_t key, const nm_kvloc *loc);
/* Under the write lock: removes key; false when it was absent. */
bool nm_kvindex_del(nm_kvindex *x, uint64_t key);
/* Without the lock, for the prefill before any thread runs. */
void nm_kvindex_put_unlocked(nm_kvindex *x, uint64_t key, const nm_kvloc *loc);
#endif
