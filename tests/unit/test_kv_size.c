/* netmem kv's sizing (workloads/kv/kv_size.h) against numbers worked out by
 * hand from each store's layout: the registration's offsets and length, the
 * mesh threads and send queue depth that both the set-up and netmem
 * preflight use; and Redis, which has no verbs plan. */
#include "kv_size.h"
#include "tap.h"
#include <stdbool.h>
#include <string.h>

static kv_point point(kv_system_id sys, uint64_t keys, uint64_t prefill, int window)
{
	kv_point p;
	memset(&p, 0, sizeof p);
	p.system = sys;
	p.load.keys = keys;
	p.load.prefill = prefill;
	p.load.value_size = 8;
	p.load.value_words = 1;
	p.slot_bytes = 32;
	p.locks = 100;
	p.window = window;
	p.leaf = 16;
	p.lock_table = 100;
	return p;
}

/* 2 nodes, -T 2, window 3, 1000 keys of which 800 prefilled, 100 locks:
 *   slots   400 (prefill share) + 200 (insertable) + 1 = 601 of 32 bytes
 *   locks   at align64(601 * 32) = 19264; 50 here of 16 bytes
 *   tracker at align64(19264 + 800) = 20096: 2 rings of 256 x 64 + 64
 *           + 256 x 64 + 64 = 49280 bytes
 *   scratch at 69376: 3 threads (2 + the tracker) x 3 ops x (64 + 64)
 *   QPs     2 * 3 + 16 + 2 nodes = 24 deep */
static void loco(void)
{
	kv_point p = point(KV_LOCO, 1000, 800, 3);
	kv_loco_layout l;
	kv_win_plan pl = kv_loco_plan(&p, 2, 2, &l);
	CHECK(l.slot_words == 4 && l.slots == 601, "loco: 4 words a slot, 601 slots per node (%u, %llu)", l.slot_words,
	      (unsigned long long)l.slots);
	CHECK(l.lock_off == 19264 && l.tracker_off == 20096, "loco: locks at 19264, tracker at 20096 (%zu, %zu)",
	      l.lock_off, l.tracker_off);
	CHECK(pl.scratch_off == 69376 && pl.scratch_per_op == 128 && pl.scratch_per_thread == 384,
	      "loco: scratch at 69376, 128 bytes an operation, 384 a thread (%zu, %zu, %zu)", pl.scratch_off,
	      pl.scratch_per_op, pl.scratch_per_thread);
	CHECK(pl.bytes == 70528, "loco: registers 70528 bytes (%zu)", pl.bytes);
	CHECK(pl.threads == 3 && pl.sq_depth == 24, "loco: 3 mesh threads (the tracker's too), 24 deep (%d, %d)",
	      pl.threads, pl.sq_depth);
}

/* 2 nodes, -T 2, window 3, 1000 keys in leaves of 16, a lock table of 100:
 *   entries 3 words (24 bytes); 63 leaves, 32 here of align64(16 + 16 x 24) = 448
 *   locks   at 32 x 448 = 14336: 100 x 8 = 800 bytes
 *   scratch at align64(15136) = 15168: 2 threads x 3 ops x (align64(448 + 24) + 64 = 576)
 *   QPs     3 * 3 + 16 = 25 deep */
static void sherman(void)
{
	kv_point p = point(KV_SHERMAN, 1000, 800, 3);
	kv_sherman_layout l;
	kv_win_plan pl = kv_sherman_plan(&p, 2, 2, &l);
	CHECK(l.entry_words == 3 && l.leaves == 63 && l.leaves_here == 32 && l.leaf_bytes == 448,
	      "sherman: 3-word entries, 63 leaves, 32 here, 448 bytes a leaf (%u, %llu, %llu, %zu)", l.entry_words,
	      (unsigned long long)l.leaves, (unsigned long long)l.leaves_here, l.leaf_bytes);
	CHECK(l.lock_off == 14336 && l.lock_bytes == 800, "sherman: the lock table at 14336, 800 bytes (%zu, %zu)",
	      l.lock_off, l.lock_bytes);
	CHECK(pl.scratch_off == 15168 && pl.scratch_per_op == 576, "sherman: scratch at 15168, 576 an operation "
	      "(%zu, %zu)", pl.scratch_off, pl.scratch_per_op);
	CHECK(pl.bytes == 18624 && pl.threads == 2 && pl.sq_depth == 25,
	      "sherman: registers 18624 bytes, 2 mesh threads, 25 deep (%zu, %d, %d)", pl.bytes, pl.threads,
	      pl.sq_depth);
}

/* 3 nodes, -T 1, window 128, 1000 keys:
 *   objects   lock (3 words), version, record (key, value, checksum): 7
 *             words; 334 here: 18704 bytes, the rings at align64 = 18752
 *   buckets   3 + 10 x (1 + 7) words (a message: header, key, object,
 *             stamp, record) = 664 bytes, 704 aligned; a ring of 128
 *   rings     3 nodes x 1 thread x 128 x 704 = 270336 bytes each: requests
 *             at 18752, replies at 289088, sent at 559424 and 829760
 *   scratch   at 1100096: 1 thread x 128 ops x (two objects, 112
 *             bytes: a record image and a look; 128 aligned; + 64)
 *   mesh      the client thread and the server thread; QPs max(4 x 128,
 *             1 x 128) + 16 = 528 deep */
static void scythe(void)
{
	kv_scythe_layout l;
	const kv_point p = point(KV_SCYTHE, 1000, 800, 128);
	const kv_win_plan pl = kv_scythe_plan(&p, 3, 1, &l);
	CHECK(l.obj_words == 7 && l.rec_words == 3 && l.objs_here == 334,
	      "scythe: 334 objects of 7 words here, a record of 3 (%llu, %u, %u)", (unsigned long long)l.objs_here,
	      l.obj_words, l.rec_words);
	CHECK(l.ring == 128 && l.msg_words == 7 && l.bucket_bytes == 704,
	      "scythe: rings of 128 buckets of 704 bytes, messages of 7 words (%u, %zu, %u)", l.ring, l.bucket_bytes,
	      l.msg_words);
	CHECK(l.req_off == 18752 && l.rep_off == 289088 && l.out_off == 559424 && l.srv_out_off == 829760,
	      "scythe: rings at 18752, 289088, 559424, 829760 (%zu, %zu, %zu, %zu)", l.req_off, l.rep_off, l.out_off,
	      l.srv_out_off);
	CHECK(pl.scratch_off == 1100096 && pl.scratch_per_op == 192 && pl.bytes == 1124672,
	      "scythe: scratch at 1100096, 192 an operation, registers 1124672 bytes (%zu, %zu, %zu)", pl.scratch_off,
	      pl.scratch_per_op, pl.bytes);
	CHECK(pl.threads == 2 && pl.sq_depth == 528, "scythe: 2 mesh threads (the server's too), 528 deep (%d, %d)",
	      pl.threads, pl.sq_depth);
	/* -T 8 at window 128: the server's QP to a peer carries a reply bucket
	 * per operation of each of its 8 threads */
	const kv_win_plan p8 = kv_scythe_plan(&p, 3, 8, &l);
	CHECK(p8.sq_depth == 8 * 128 + 16 && p8.threads == 9, "scythe -T 8: 1040 deep, 9 mesh threads (%d, %d)",
	      p8.sq_depth, p8.threads);
}

/* kv_plan_of picks the system's plan; Redis has none. */
static void by_system(void)
{
	kv_point p = point(KV_SHERMAN, 1000, 800, 3);
	kv_win_plan pl;
	CHECK(kv_plan_of(&p, 2, 2, &pl) && pl.bytes == 18624, "kv_plan_of: sherman's plan (%zu bytes)", pl.bytes);
	p.system = KV_LOCO;
	CHECK(kv_plan_of(&p, 2, 2, &pl) && pl.bytes == 70528, "kv_plan_of: loco's plan (%zu bytes)", pl.bytes);
	p.system = KV_REDIS;
	CHECK(!kv_plan_of(&p, 2, 2, &pl) && pl.bytes == 0 && pl.threads == 0, "kv_plan_of: redis has no verbs plan");
}

int main(void)
{
	loco();
	sherman();
	scythe();
	by_system();
	return tap_done();
}
