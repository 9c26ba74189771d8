/* CoRM's memory model (primitives/corm/corm_model.h): the compaction
 * probability against reference values and against Monte Carlo,
 * the size classes, the merge rules of Mesh and CoRM, and conservation and the
 * ideal bound under compaction of simulated heaps. */
#include "corm_model.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_prob_reference(void)
{
	/* Values computed from the CoRM paper's formula (Sec. 3.4), with
	 * b1 = b2 = round(occupancy * s) and s = 4096 / size. */
	CHECK(fabs(corm_merge_prob(256, 256, 26, 26) - 0.0529) < 5e-4, "Mesh, 16 B at 10%%: 0.0529");
	CHECK(fabs(corm_merge_prob(32, 32, 3, 3) - 0.737) < 1e-3, "Mesh, 128 B at 10%%: 0.737");
	CHECK(fabs(corm_merge_prob(32, 256, 3, 3) - 0.965) < 1e-3, "CoRM-8, 128 B at 10%%: 0.965");
	CHECK(fabs(corm_merge_prob(16, 256, 4, 4) - 0.939) < 1e-3, "CoRM-8, 256 B at 25%%: 0.939");
	CHECK(fabs(corm_merge_prob(256, 65536, 128, 128) - 0.778) < 1e-3, "CoRM-16, 16 B at 50%%: 0.778");
	CHECK(fabs(corm_merge_prob(16, 256, 8, 8) - 0.773) < 1e-3, "CoRM-8, 256 B at 50%%: 0.773");
	double tiny = corm_merge_prob(256, 256, 128, 128);
	CHECK(tiny > 1e-77 && tiny < 1e-75, "Mesh, 16 B at 50%%: 1.7e-76 (no underflow): %g", tiny);
	CHECK(corm_merge_prob(16, 65536, 9, 8) == 0, "objects that do not fit: 0");
	CHECK(corm_merge_prob(16, 16, 0, 5) == 1, "an empty block always merges");
	CHECK(fabs(corm_merge_prob(64, 4096, 10, 20) - corm_merge_prob(64, 4096, 20, 10)) < 1e-12,
	      "symmetric in b1, b2");
}

static void test_prob_monte_carlo(void)
{
	static const struct {
		uint64_t s, n, b1, b2;
	} c[] = {{32, 32, 3, 3}, {16, 256, 8, 8}, {256, 4096, 64, 64}, {64, 65536, 32, 32}, {256, 256, 20, 30}};
	const uint64_t trials = 20000;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		double p = corm_merge_prob(c[i].s, c[i].n, c[i].b1, c[i].b2);
		double q = corm_merge_prob_mc(c[i].s, c[i].n, c[i].b1, c[i].b2, trials, 7 + i);
		double sd = sqrt(p * (1 - p) / (double)trials);
		CHECK(fabs(p - q) <= 5 * sd + 1e-3, "Monte Carlo s=%llu n=%llu b=%llu,%llu: %.4f vs %.4f",
		      (unsigned long long)c[i].s, (unsigned long long)c[i].n, (unsigned long long)c[i].b1,
		      (unsigned long long)c[i].b2, q, p);
	}
}

static void test_classes(void)
{
	corm_classes c;
	char err[128];
	CHECK(corm_classes_init(&c, 4096, err, sizeof err) == 0, "4 KiB blocks");
	CHECK(c.n == 43, "43 classes for 4 KiB blocks (the CoRM authors' size classes): %d", c.n);
	CHECK(c.size[0] == 16 && c.slots[0] == 255, "first class 16 B, 255 slots");
	CHECK(c.size[14] == 128 && c.slots[14] == 31, "class 14: 128 B, 31 slots");
	CHECK(c.size[c.n - 1] == 4080 && c.slots[c.n - 1] == 1, "last class 4080 B, 1 slot");
	CHECK(corm_class_of(&c, 129) == 15 && corm_class_of(&c, 4081) == -1, "lookup, and too large");
	CHECK(corm_classes_init(&c, 6000, err, sizeof err) == -1 && strstr(err, "power of two"),
	      "6000-byte blocks refused: %s", err);
	CHECK(corm_classes_init(&c, 1 << 20, err, sizeof err) == 0 && c.useful == (1u << 20) - 16,
	      "1 MiB blocks");
}

static void test_merge_rules(void)
{
	uint32_t a[] = {1, 5, 9}, b[] = {2, 5, 10}, d[] = {0, 2, 3};
	CHECK(!corm_keys_mergeable(a, 3, b, 3, 16), "a shared key (an ID, or an offset) prevents a merge");
	CHECK(corm_keys_mergeable(a, 3, d, 3, 16), "disjoint keys that fit merge");
	CHECK(!corm_keys_mergeable(a, 3, d, 3, 5), "disjoint keys that do not fit do not");
}

/* A heap with two blocks of a 4-slot class whose offsets collide for sure:
 * Mesh cannot merge them, CoRM-16 almost always can. */
static void test_mesh_vs_ids(void)
{
	corm_heap h;
	char err[128];
	corm_heap_init(&h, 4096, 1, 3, err, sizeof err);
	int64_t o[8];
	for (int i = 0; i < 8; i++) /* 1016-byte class: 4 slots per block, two full blocks */
		o[i] = corm_heap_alloc(&h, 1000, err, sizeof err);
	for (int i = 0; i < 8; i++) /* keep slot-for-slot equal survivors: 2 per block */
		if (i % 4 >= 2)
			corm_heap_release(&h, (uint64_t)o[i]);
	int mesh_ok = 0, corm_ok = 0;
	for (uint64_t seed = 0; seed < 50; seed++) {
		corm_result m = corm_compact(&h, CORM_MESH, 0, false, seed);
		corm_result c = corm_compact(&h, CORM_IDS, 16, false, seed);
		mesh_ok += m.blocks == 1;
		corm_ok += c.blocks == 1;
	}
	corm_result none = corm_compact(&h, CORM_NONE, 0, false, 1);
	CHECK(none.blocks == 2, "two half-full blocks uncompacted");
	/* Offsets are random, so whether Mesh merges depends on them; IDs from
	 * 2^16 collide with probability ~1e-4. Both answers must match the
	 * blocks' actual offsets: recompute. */
	uint32_t k0[4], k1[4], n0 = 0, n1 = 0;
	for (size_t i = 0; i < h.nblocks; i++)
		for (uint32_t s = 0; s < 4; s++)
			if (h.blocks[i] && h.blocks[i]->obj[s] != UINT32_MAX) {
				if (i == 0)
					k0[n0++] = s;
				else
					k1[n1++] = s;
			}
	bool offsets_free = corm_keys_mergeable(k0, n0, k1, n1, 4);
	CHECK(mesh_ok == (offsets_free ? 50 : 0), "Mesh merges exactly when offsets are disjoint (%s)",
	      offsets_free ? "disjoint" : "colliding");
	CHECK(corm_ok >= 49, "CoRM-16 merges regardless of offsets: %d/50", corm_ok);
	corm_result c1 = corm_compact(&h, CORM_IDS, 1, false, 1);
	CHECK(c1.blocks == 2, "CoRM-1 (2 IDs, 4 slots) does not apply to the class: no compaction");
	corm_result c1h = corm_compact(&h, CORM_IDS, 1, true, 1);
	CHECK(c1h.blocks == (offsets_free ? 1u : 2u), "hybrid CoRM-1 falls back to the offset rule");
	corm_heap_free(&h);
}

/* Two blocks of 2 IDs each from a 2-ID space (CoRM-1 on a 2-slot class):
 * their ID sets are {0,1} both, so they never merge. */
static void test_id_collision(void)
{
	corm_heap h;
	char err[128];
	corm_heap_init(&h, 4096, 1, 5, err, sizeof err);
	int64_t o[6];
	for (int i = 0; i < 6; i++) /* 2000-byte class: 2 slots, three blocks */
		o[i] = corm_heap_alloc(&h, 2000, err, sizeof err);
	corm_heap_release(&h, (uint64_t)o[0]);
	corm_heap_release(&h, (uint64_t)o[2]);
	corm_heap_release(&h, (uint64_t)o[4]);
	/* three blocks with one object each: in a 2-ID space any two collide half the time */
	int merged_ever = 0, kept_ever = 0;
	for (uint64_t seed = 0; seed < 64; seed++) {
		corm_result r = corm_compact(&h, CORM_IDS, 1, false, seed);
		merged_ever |= r.blocks < 3;
		kept_ever |= r.blocks == 3;
		CHECK(r.conserved && r.blocks >= 2, "seed %llu: conserved, at least ceil(3/2) blocks",
		      (unsigned long long)seed);
	}
	CHECK(merged_ever && kept_ever, "equal IDs prevent a merge, distinct ones allow it");
	corm_heap_free(&h);
}

/* A random heap: alloc, free most, compact with every strategy. */
static void test_conservation(void)
{
	corm_heap h;
	char err[128];
	corm_heap_init(&h, 4096, 4, 11, err, sizeof err);
	const int n = 30000;
	int64_t *o = malloc(n * sizeof *o);
	srand(3);
	for (int i = 0; i < n; i++)
		o[i] = corm_heap_alloc(&h, (uint64_t)(16 + rand() % 1500), err, sizeof err);
	for (int i = 0; i < n; i++)
		if (rand() % 10 < 8)
			corm_heap_release(&h, (uint64_t)o[i]);
	corm_result ideal = corm_compact(&h, CORM_IDEAL, 0, false, 1);
	corm_result none = corm_compact(&h, CORM_NONE, 0, false, 1);
	CHECK(none.blocks == h.live_blocks, "no compaction counts the non-empty blocks");
	static const struct {
		corm_strategy st;
		int bits;
		bool hybrid;
	} s[] = {{CORM_MESH, 0, false}, {CORM_IDS, 8, false}, {CORM_IDS, 8, true}, {CORM_IDS, 16, false}};
	for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
		corm_result r = corm_compact(&h, s[i].st, s[i].bits, s[i].hybrid, 9);
		char name[32];
		corm_strategy_name(s[i].st, s[i].bits, s[i].hybrid, name, sizeof name);
		CHECK(r.conserved, "%s: every live object in exactly one block afterwards", name);
		CHECK(r.blocks >= ideal.blocks && r.blocks <= none.blocks, "%s: ideal %llu <= %llu <= none %llu",
		      name, (unsigned long long)ideal.blocks, (unsigned long long)r.blocks,
		      (unsigned long long)none.blocks);
		CHECK(r.blocks + r.merges == none.blocks, "%s: blocks + merges = blocks before", name);
		CHECK(r.merges > 0, "%s: a heap 80%% free compacts (%llu merges)", name,
		      (unsigned long long)r.merges);
	}
	corm_result c16 = corm_compact(&h, CORM_IDS, 16, false, 9);
	CHECK(c16.overhead_bytes == (h.live_objects * (36 + 16) + 7) / 8, "CoRM-16 charges 36+16 bits per object");
	free(o);
	corm_heap_free(&h);
}

int main(void)
{
	test_prob_reference();
	test_prob_monte_carlo();
	test_classes();
	test_merge_rules();
	test_mesh_vs_ids();
	test_id_collision();
	test_conservation();
	return tap_done();
}
