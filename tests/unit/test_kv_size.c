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
 *   objects 4 words; 334 here: 10688 bytes
 *   scratch 1 thread x 128 ops x (64 + 64)
 *   QPs     4 * 128 + 16 = 528 deep */
static void scythe(void)
{
	kv_scythe_layout l;
	const kv_point p = point(KV_SCYTHE, 1000, 800, 128);
	const kv_win_plan pl = kv_scythe_plan(&p, 3, 1, &l);
	bool objs = l.obj_words == 4 && l.objs_here == 334;
	CHECK(objs && pl.bytes == 10688 + 16384 && pl.threads == 1 && pl.sq_depth == 528,
	      "scythe: 334 objects of 4 words here, registers 27072 bytes, 1 mesh thread, 528 deep (%llu, %zu, %d, %d)",
	      (unsigned long long)l.objs_here, pl.bytes, pl.threads, pl.sq_depth);
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
