/* CoRM's Redis traces, synthesized from the paper's description
 * (corm_redis.h states what each holds and how a key maps to allocations). */
#include "corm_redis.h"
#include "ycsb.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The paper's numbers (Sec. 4.4.3). */
enum {
	T1_KEYS = 10000,
	T1_VALUE_MAX = 16384,
	T2_FIRST_KEYS = 700000,
	T2_FIRST_VALUE = 150,
	T2_SECOND_KEYS = 170000,
	T2_SECOND_VALUE = 300,
	T3_KEYS = 50000,
	T3_VALUE = 150,
};

/* Redis 5's allocations for one string key (corm_redis.h). */
enum {
	ENTRY_BYTES = 24,      /* dictEntry: key, value, next */
	KEY_BYTES = 1 + 8 + 1, /* the paper's 8-byte key as dbAdd copies it: a 1-byte header below 32 bytes, terminator */
	OBJ_BYTES = 16,        /* the value's object header */
	EMBSTR_MAX = 44,       /* values up to this many bytes live inside their object */
	SDS8_MAX = 255,        /* strings shorter than 256 bytes take the 3-byte header */
	SDS8_HDR = 3,
	SDS16_HDR = 5,
};

/* The allocations of a key, numbered: its object IDs are key * PARTS + part. */
typedef enum { PART_ENTRY, PART_KEY, PART_OBJ, PART_VALUE, PARTS } key_part;

void corm_ops_push(corm_ops *t, uint64_t id, uint32_t size)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->op = realloc(t->op, t->cap * sizeof *t->op);
		if (!t->op)
			abort();
	}
	t->op[t->n++] = (corm_op){id, size};
}

void corm_ops_free(corm_ops *t)
{
	free(t->op);
	memset(t, 0, sizeof *t);
}

static const char *const names[CORM_REDIS_TRACES] = {"t1", "t2", "t3"};

int corm_redis_parse(const char *name)
{
	for (int i = 0; i < CORM_REDIS_TRACES; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *corm_redis_name(corm_redis_trace t)
{
	return names[t];
}

/* The bytes of a value's allocation(s) beyond the object header: a string
 * with its header and terminator, embedded or not. */
static uint32_t value_bytes(uint32_t len)
{
	return (len <= SDS8_MAX ? SDS8_HDR : SDS16_HDR) + len + 1;
}

uint64_t corm_redis_key_bytes(uint32_t len)
{
	if (len <= EMBSTR_MAX) /* one allocation: object and string */
		return ENTRY_BYTES + KEY_BYTES + OBJ_BYTES + SDS8_HDR + len + 1;
	return ENTRY_BYTES + KEY_BYTES + OBJ_BYTES + value_bytes(len);
}

/* SET key value: the command's key and value objects, then the entry that
 * links them into the dictionary. `body` is the value's string. */
static void key_add(corm_ops *t, uint64_t key, uint32_t len, uint32_t body)
{
	uint64_t id = key * PARTS;
	corm_ops_push(t, id + PART_KEY, KEY_BYTES);
	if (len <= EMBSTR_MAX) {
		corm_ops_push(t, id + PART_OBJ, OBJ_BYTES + body);
	} else {
		corm_ops_push(t, id + PART_OBJ, OBJ_BYTES);
		corm_ops_push(t, id + PART_VALUE, body);
	}
	corm_ops_push(t, id + PART_ENTRY, ENTRY_BYTES);
}

/* DEL key (or an eviction): the entry, the key, the value. */
static void key_del(corm_ops *t, uint64_t key, uint32_t len)
{
	uint64_t id = key * PARTS;
	corm_ops_push(t, id + PART_ENTRY, 0);
	corm_ops_push(t, id + PART_KEY, 0);
	corm_ops_push(t, id + PART_OBJ, 0);
	if (len > EMBSTR_MAX)
		corm_ops_push(t, id + PART_VALUE, 0);
}

static uint64_t scaled(uint64_t n, double scale)
{
	uint64_t k = (uint64_t)llround((double)n * scale);
	return k ? k : 1;
}

static void gen_t1(corm_ops *t, uint64_t seed, double scale)
{
	ycsb_rng rng;
	ycsb_rng_seed(&rng, seed, 0, 0);
	uint64_t keys = scaled(T1_KEYS, scale);
	for (uint64_t k = 0; k < keys; k++) {
		uint32_t len = 1 + (uint32_t)ycsb_rng_below(&rng, T1_VALUE_MAX);
		key_add(t, k, len, len <= EMBSTR_MAX ? SDS8_HDR + len + 1 : value_bytes(len));
	}
}

/* ------------------------------------------------------------- t2 ---- */

void corm_lru_init(corm_lru *l, uint64_t keys, uint64_t seed)
{
	memset(l, 0, sizeof *l);
	l->keys = keys;
	l->live = malloc(keys * sizeof *l->live);
	l->at = malloc(keys * sizeof *l->at);
	l->added = malloc(keys * sizeof *l->added);
	if (!l->live || !l->at || !l->added)
		abort();
	for (int k = 0; k < CORM_LRU_POOL; k++)
		l->pool[k].key = UINT64_MAX;
	ycsb_rng_seed(&l->rng, seed, 0, 1);
}

void corm_lru_free(corm_lru *l)
{
	free(l->live), free(l->at), free(l->added);
	memset(l, 0, sizeof *l);
}

void corm_lru_add(corm_lru *l, uint64_t key)
{
	l->at[key] = l->n;
	l->live[l->n++] = key;
	l->added[key] = l->clock++;
}

static bool lru_live(const corm_lru *l, uint64_t key)
{
	return l->at[key] < l->n && l->live[l->at[key]] == key;
}

static void lru_swap(corm_lru *l, uint64_t i, uint64_t j)
{
	uint64_t a = l->live[i], b = l->live[j];
	l->live[i] = b, l->at[b] = i;
	l->live[j] = a, l->at[a] = j;
}

/* evictionPoolPopulate: the pool is ordered by idle time, ascending; a
 * sample goes before the first entry idler than it; with the pool full, a
 * sample idler than the first entry pushes it out, any other is dropped.
 * dictGetSomeKeys returns distinct keys from scattered buckets: here
 * distinct keys drawn uniformly. */
static void lru_populate(corm_lru *l)
{
	uint64_t count = l->n < CORM_LRU_SAMPLES ? l->n : CORM_LRU_SAMPLES;
	for (uint64_t j = 0; j < count; j++) {
		lru_swap(l, j, j + ycsb_rng_below(&l->rng, l->n - j)); /* a partial shuffle: distinct draws */
		uint64_t key = l->live[j], idle = l->clock - l->added[key];
		if (l->sampled)
			l->sampled[key] = 1;
		int k = 0;
		while (k < CORM_LRU_POOL && l->pool[k].key != UINT64_MAX && l->pool[k].idle < idle)
			k++;
		if (k == 0 && l->pool[CORM_LRU_POOL - 1].key != UINT64_MAX)
			continue;
		if (k < CORM_LRU_POOL && l->pool[k].key == UINT64_MAX) {
			/* an empty place */
		} else if (l->pool[CORM_LRU_POOL - 1].key == UINT64_MAX) {
			memmove(l->pool + k + 1, l->pool + k, sizeof l->pool[0] * (size_t)(CORM_LRU_POOL - k - 1));
		} else {
			k--;
			memmove(l->pool, l->pool + 1, sizeof l->pool[0] * (size_t)k);
		}
		l->pool[k].key = key;
		l->pool[k].idle = idle;
	}
}

/* freeMemoryIfNeeded's choice: populate, then the idlest entry still live,
 * taking every entry it passes out of the pool (an evicted key sampled
 * twice is a ghost there). */
uint64_t corm_lru_evict(corm_lru *l)
{
	for (;;) {
		lru_populate(l);
		for (int k = CORM_LRU_POOL - 1; k >= 0; k--) {
			uint64_t key = l->pool[k].key;
			if (key == UINT64_MAX)
				continue;
			l->pool[k].key = UINT64_MAX;
			if (!lru_live(l, key))
				continue;
			uint64_t i = l->at[key];
			lru_swap(l, i, l->n - 1);
			l->n--;
			return key;
		}
	}
}

/* t2: the second batch's keys follow the first's. Evictions as Redis makes
 * them before each command: until the new key fits. */
static void gen_t2(corm_ops *t, uint64_t seed, double scale)
{
	const uint64_t n1 = scaled(T2_FIRST_KEYS, scale), n = n1 + scaled(T2_SECOND_KEYS, scale);
	const uint64_t cap = (uint64_t)llround((double)CORM_REDIS_LRU_BYTES * scale);
	corm_lru lru;
	corm_lru_init(&lru, n, seed);
	uint64_t live = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint32_t len = k < n1 ? T2_FIRST_VALUE : T2_SECOND_VALUE;
		uint64_t need = corm_redis_key_bytes(len);
		while (live + need > cap && lru.n) {
			uint64_t old = corm_lru_evict(&lru);
			uint32_t olen = old < n1 ? T2_FIRST_VALUE : T2_SECOND_VALUE;
			key_del(t, old, olen);
			live -= corm_redis_key_bytes(olen);
		}
		key_add(t, k, len, value_bytes(len));
		corm_lru_add(&lru, k);
		live += need;
	}
	corm_lru_free(&lru);
}

/* ------------------------------------------------------------- t3 ---- */

/* Redis 5.0.7's structures, 64-bit, as its memefficiency test fills them
 * ("Active defrag big keys": list-max-ziplist-size 5, stream-node-max-entries
 * 5; item j of each: HSET bighash j "asdfasdfasdf j", LPUSH biglist, ZADD
 * bigzset j and SADD bigset "asdfasdfasdf j", XADD bigstream * item 1 value
 * a, the five interleaved). workloads/corm/README.md says what is left out. */
enum {
	SDS5_HDR = 1,         /* sdsdup's header below 32 bytes (+ a terminator) */
	DICT_BYTES = 96,      /* dict: type, privdata, two tables of 32, rehashidx, iterators */
	DICT_INIT = 4,        /* DICT_HT_INITIAL_SIZE */
	BUCKET_BYTES = 8,     /* a table's slot: a dictEntry pointer */
	ZSET_BYTES = 16,      /* zset: dict, zsl */
	ZSL_BYTES = 32,       /* zskiplist: header, tail, length, level */
	ZSL_NODE_BYTES = 24,  /* zskiplistNode: ele, score, backward; then its levels */
	ZSL_LEVEL_BYTES = 16, /* forward, span */
	ZSL_MAXLEVEL = 64,    /* the header node has them all */
	QUICKLIST_BYTES = 40, /* head, tail, count, len, fill:16 compress:16 */
	QL_NODE_BYTES = 32,   /* prev, next, zl, sz, bit fields */
	ZL_EMPTY = 11,        /* ziplist: zlbytes, zltail, zllen, end */
	STREAM_BYTES = 40,    /* rax, length, last_id, cgroups */
	RAX_BYTES = 24,       /* head, numele, numnodes */
	LP_EMPTY = 7,         /* listpack: total bytes, count, end */
};

typedef enum { ST_HASH, ST_LIST, ST_ZSET, ST_SET, ST_STREAM } st_kind;

/* A dict's bucket tables: ht[0] and, while rehashing, ht[1]. */
typedef struct dict_m {
	uint64_t table, old; /* IDs */
	uint64_t size, old_size, used, rehash_left;
} dict_m;

typedef struct big {
	st_kind kind;
	uint64_t next, bytes, items; /* the next ID's index, its live bytes */
	dict_m dict;
	uint64_t head, head_bytes, head_count;   /* list: head node's ziplist; stream: last listpack */
	uint64_t branch, branch_bytes, children; /* stream: the rax node the new keys hang from */
	uint64_t upper, upper_bytes, upper_children;
} big;

typedef struct t3gen {
	corm_ops *t;
	uint64_t base;
	ycsb_rng rng;
} t3gen;

static uint64_t big_alloc(t3gen *g, big *b, uint64_t size)
{
	uint64_t id = g->base + (uint64_t)b->kind + CORM_REDIS_STRUCTS * b->next++;
	corm_ops_push(g->t, id, (uint32_t)size);
	b->bytes += size;
	return id;
}

static void big_free(t3gen *g, big *b, uint64_t id, uint64_t size)
{
	corm_ops_push(g->t, id, 0);
	b->bytes -= size;
}

/* zrealloc moving the block: the new one, the copy, the old one freed. */
static uint64_t big_realloc(t3gen *g, big *b, uint64_t id, uint64_t old, uint64_t size)
{
	uint64_t nid = big_alloc(g, b, size);
	big_free(g, b, id, old);
	return nid;
}

static uint64_t sds5(uint64_t len)
{
	return SDS5_HDR + len + 1;
}

static uint64_t digits(uint64_t j)
{
	uint64_t d = 1;
	for (; j >= 10; j /= 10)
		d++;
	return d;
}

/* "asdfasdfasdf j": Tcl's concat joins with a space */
static uint64_t item_len(uint64_t j)
{
	return 13 + digits(j);
}

/* One dictAdd with `steps` rehash steps in the command (its dictFind's and
 * dictAdd's own): each moves one bucket of the old table, and the old table
 * is freed once its non-empty buckets have moved. A table of S buckets
 * expands when it holds S entries, which leave S (1 - 1/e) buckets
 * non-empty, in expectation. Expansion (to twice the entries, the next
 * power of two) waits while a rehash runs. Then the entry. */
static void dict_add(t3gen *g, big *b, int steps)
{
	dict_m *d = &b->dict;
	if (d->old_size) {
		d->rehash_left = d->rehash_left > (uint64_t)steps ? d->rehash_left - (uint64_t)steps : 0;
		if (!d->rehash_left) {
			big_free(g, b, d->old, d->old_size * BUCKET_BYTES);
			d->old_size = 0;
		}
	}
	if (!d->size) {
		d->size = DICT_INIT;
		d->table = big_alloc(g, b, d->size * BUCKET_BYTES);
	} else if (!d->old_size && d->used >= d->size) {
		d->old = d->table, d->old_size = d->size;
		d->rehash_left = (uint64_t)ceil((double)d->size * (1 - exp(-1)));
		d->size *= 2;
		d->table = big_alloc(g, b, d->size * BUCKET_BYTES);
	}
	d->used++;
	big_alloc(g, b, ENTRY_BYTES);
}

/* zslRandomLevel: p = 1/4 from 1, at most 64 */
static uint64_t zsl_level(ycsb_rng *r)
{
	uint64_t level = 1;
	while ((double)(ycsb_rng_next(r) & 0xFFFF) < 0.25 * 0xFFFF && level < ZSL_MAXLEVEL)
		level++;
	return level;
}

/* A rax node: header, its bytes (one per child, or a compressed run),
 * padding to a pointer, the child pointers, and the value pointer of a key. */
static uint64_t rax_node(uint64_t children, uint64_t chars, bool data)
{
	uint64_t n = 4 + chars;
	n += (8 - n % 8) % 8;
	return n + 8 * children + (data ? 8 : 0);
}

/* The rax of a stream: one 16-byte key per listpack, its first entry's ID
 * (big-endian milliseconds, then the sequence). XADD * here opens at most
 * one listpack per millisecond, so consecutive keys differ in the
 * milliseconds' low byte: a node branching on that byte (up to 256
 * children, grown by a reallocation per child) under one branching on the
 * byte before it, each child a compressed node of the 8 sequence bytes
 * leading to the leaf holding the listpack. The shared prefix above them
 * is the head node, compressed once. */
static void rax_insert(t3gen *g, big *b)
{
	if (b->children % 256 == 0) { /* a new low byte node, one more child above */
		if (!b->upper) {
			b->upper_bytes = rax_node(1, 1, false);
			b->upper = big_alloc(g, b, b->upper_bytes);
		} else {
			uint64_t size = rax_node(b->upper_children + 1, b->upper_children + 1, false);
			b->upper = big_realloc(g, b, b->upper, b->upper_bytes, size);
			b->upper_bytes = size;
		}
		b->upper_children++;
		b->branch_bytes = rax_node(1, 1, false);
		b->branch = big_alloc(g, b, b->branch_bytes);
		b->children = 1;
	} else {
		b->children++;
		uint64_t size = rax_node(b->children, b->children, false);
		b->branch = big_realloc(g, b, b->branch, b->branch_bytes, size);
		b->branch_bytes = size;
	}
	/* raxCompressNode: the empty child, its leaf, then the child grown to
	 * the 8 bytes; the leaf grown for its value */
	uint64_t child = big_alloc(g, b, rax_node(0, 0, false));
	uint64_t leaf = big_alloc(g, b, rax_node(0, 0, false));
	big_realloc(g, b, child, rax_node(0, 0, false), rax_node(1, 8, false));
	big_realloc(g, b, leaf, rax_node(0, 0, false), rax_node(0, 0, true));
}

/* A listpack's elements: an encoding byte, the data, a back length; a
 * small integer is 2 bytes. A stream node's master entry: count, deleted,
 * field count, "item", "value", terminator. An entry with the master's
 * fields: flags, ms and seq differences, "1" (an integer), "a", lp-count. */
static const uint64_t lp_master[] = {2, 2, 2, 1 + 4 + 1, 1 + 5 + 1, 2};
static const uint64_t lp_entry[] = {2, 2, 2, 2, 1 + 1 + 1, 2};

/* lpAppend of an element of `bytes` (encoding, data, back length) to the
 * stream's last listpack */
static void lp_append(t3gen *g, big *b, uint64_t bytes)
{
	b->head = big_realloc(g, b, b->head, b->head_bytes, b->head_bytes + bytes);
	b->head_bytes += bytes;
}

/* The command that creates structure b's key: its value object and the
 * encoding's header, then dbAdd's key string and entry. */
static void big_create(t3gen *g, big *b, corm_ops *t, uint64_t key)
{
	uint64_t id = key * PARTS;
	corm_ops_push(t, id + PART_OBJ, OBJ_BYTES);
	b->bytes += OBJ_BYTES;
	switch (b->kind) {
	case ST_HASH:
	case ST_SET:
		big_alloc(g, b, DICT_BYTES);
		break;
	case ST_ZSET:
		big_alloc(g, b, ZSET_BYTES);
		big_alloc(g, b, DICT_BYTES);
		big_alloc(g, b, ZSL_BYTES);
		big_alloc(g, b, ZSL_NODE_BYTES + ZSL_MAXLEVEL * ZSL_LEVEL_BYTES);
		break;
	case ST_LIST:
		big_alloc(g, b, QUICKLIST_BYTES);
		break;
	case ST_STREAM:
		big_alloc(g, b, STREAM_BYTES);
		big_alloc(g, b, RAX_BYTES);
		big_alloc(g, b, rax_node(1, 6, false)); /* the head: the keys' shared 6 bytes, compressed */
		break;
	}
	corm_ops_push(t, id + PART_KEY, KEY_BYTES);
	corm_ops_push(t, id + PART_ENTRY, ENTRY_BYTES);
}

/* Item j of structure b. */
static void big_item(t3gen *g, big *b, uint64_t j)
{
	uint64_t len = item_len(j);
	switch (b->kind) {
	case ST_HASH: /* hashTypeSet: dictFind, the field and value copied, dictAdd */
		big_alloc(g, b, sds5(digits(j)));
		big_alloc(g, b, sds5(len));
		dict_add(g, b, 2);
		break;
	case ST_SET: /* setTypeAdd: dictAdd(sdsdup(member)) */
		big_alloc(g, b, sds5(len));
		dict_add(g, b, 1);
		break;
	case ST_ZSET: /* zsetAdd: dictFind, then the member, zslInsert's node, dictAdd */
		big_alloc(g, b, sds5(len));
		big_alloc(g, b, ZSL_NODE_BYTES + zsl_level(&g->rng) * ZSL_LEVEL_BYTES);
		dict_add(g, b, 2);
		break;
	case ST_LIST: /* quicklistPushHead: a full head node gets a new node before it */
		if (!b->head_count || b->head_count == CORM_REDIS_LIST_FILL) {
			big_alloc(g, b, QL_NODE_BYTES);
			b->head = big_alloc(g, b, ZL_EMPTY);
			b->head_bytes = ZL_EMPTY, b->head_count = 0;
		}
		/* an entry: its previous entry's length (1 byte), encoding (1), bytes */
		b->head = big_realloc(g, b, b->head, b->head_bytes, b->head_bytes + 2 + len);
		b->head_bytes += 2 + len, b->head_count++;
		break;
	case ST_STREAM: /* streamAppendItem */
		if (!b->head_count || b->head_count == CORM_REDIS_STREAM_NODE_ENTRIES) {
			b->head = big_alloc(g, b, LP_EMPTY);
			b->head_bytes = LP_EMPTY, b->head_count = 0;
			for (size_t i = 0; i < sizeof lp_master / sizeof *lp_master; i++)
				lp_append(g, b, lp_master[i]);
			rax_insert(g, b);
		} /* else the count grows in place */
		for (size_t i = 0; i < sizeof lp_entry / sizeof *lp_entry; i++)
			lp_append(g, b, lp_entry[i]);
		b->head_count++;
		break;
	}
	b->items++;
}

/* The five structures, item by item in turn, each until its allocations
 * reach 160 KiB: the paper's size (Redis's test adds 10,000 items to each). */
static void gen_structs(corm_ops *t, uint64_t seed, uint64_t base)
{
	t3gen g = {.t = t, .base = base};
	ycsb_rng_seed(&g.rng, seed, 0, 2);
	big b[CORM_REDIS_STRUCTS];
	bool full[CORM_REDIS_STRUCTS] = {0};
	for (int s = 0; s < CORM_REDIS_STRUCTS; s++)
		b[s] = (big){.kind = (st_kind)s};
	for (uint64_t j = 0, open = CORM_REDIS_STRUCTS; open; j++)
		for (int s = 0; s < CORM_REDIS_STRUCTS; s++) {
			if (full[s])
				continue;
			if (!j)
				big_create(&g, &b[s], t, (uint64_t)s);
			big_item(&g, &b[s], j);
			if (b[s].bytes >= CORM_REDIS_STRUCT_BYTES)
				full[s] = true, open--;
		}
}

static void gen_t3(corm_ops *t, uint64_t seed, double scale)
{
	uint64_t n = scaled(T3_KEYS, scale);
	gen_structs(t, seed, (CORM_REDIS_STRUCTS + n) * PARTS);
	for (uint64_t k = 0; k < n; k++)
		key_add(t, CORM_REDIS_STRUCTS + k, T3_VALUE, value_bytes(T3_VALUE));
	/* Every second key of the batch, as Redis's test deletes them; the
	 * paper does not say which half. */
	for (uint64_t k = 0; k < n; k += 2)
		key_del(t, CORM_REDIS_STRUCTS + k, T3_VALUE);
}

void corm_redis_generate(corm_ops *ops, corm_redis_trace t, uint64_t seed, double scale)
{
	static void (*const gen[CORM_REDIS_TRACES])(corm_ops *, uint64_t, double) = {gen_t1, gen_t2, gen_t3};
	gen[t](ops, seed, scale);
}
