/* What one merge of CoRM's compaction costs as the heap grows
 * (primitives/corm/corm_heap.c): a unit-level driver, no MPI, no device.
 * For each object count N it fills a heap of 4 KiB blocks with N objects of
 * 24 bytes (32-byte slots) from one thread, frees a random 75%, compacts
 * every class once (blocks at most 90% full, no merge limit) and prints the
 * wall time of the compaction, its merges and the time per merged block.
 * Every survivor is then read by its old pointer and its payload checked,
 * so a compaction that loses or garbles objects is reported, not timed.
 * At the end the ratio of the last N's time per merge to the first's: an
 * O(n log n) pairing keeps it near 1 (log n grows by 1.15x from 1M to 8M),
 * a quadratic one multiplies it by the growth of N. A benchmark: it
 * reports, never asserts on time; exit 1 only when a check failed.
 *
 *   corm-compact N [N...]  */
#include "corm_heap.h"
#include "rng.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FREED_PER_4 3 /* 75% of the objects freed */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One N: 0 and the time per merge in *ns_per_merge, or -1. */
static int run(uint64_t n, double *ns_per_merge)
{
	const uint32_t bs = 4096, size = 24;
	char err[256] = "";
	cmem_heap h;
	cmem_heap_cfg cfg = {.block_size = bs, .threads = 1, .seed = 11, .mode = CORM_REMAP};
	cfg.va_blocks = (uint32_t)(n / 100 + 64); /* 127 slots of 32 B per block, and room */
	if (cmem_init(&h, &cfg, err, sizeof err)) {
		fprintf(stderr, "corm-compact: %s\n", err);
		return -1;
	}
	corm_ptr *p = malloc(n * sizeof *p);
	uint8_t pay[24], out[24];
	if (!p)
		return -1;
	uint64_t rng = 0x9e3779b97f4a7c15ull, live = 0;
	for (uint64_t i = 0; i < n; i++) {
		corm_payload_fill(pay, size, (uint32_t)i, 0);
		if (cmem_alloc(&h, 0, size, pay, size, &p[i]) != CORM_OK) {
			fprintf(stderr, "corm-compact: allocation %llu of %llu failed\n", (unsigned long long)i,
				(unsigned long long)n);
			return -1;
		}
	}
	for (uint64_t i = 0; i < n; i++) {
		if (nm_xorshift(&rng) % 4 < FREED_PER_4) {
			cmem_free(&h, &p[i]);
			p[i].cls = 0xff;
		} else {
			live++;
		}
	}
	uint64_t blocks = h.active_blocks;
	cmem_compact_stats st;
	double t0 = now_s();
	int rc = cmem_compact(&h, -1, 0.9, 0, &st, err, sizeof err);
	double secs = now_s() - t0;
	uint64_t ok = 0;
	for (uint64_t i = 0; i < n; i++)
		if (p[i].cls != 0xff && cmem_read(&h, &p[i], out, size, NULL) == CORM_OK &&
		    corm_payload_check(out, size, (uint32_t)i) == CORM_PAY_OK)
			ok++;
	*ns_per_merge = st.merges ? secs * 1e9 / (double)st.merges : 0;
	printf("%10llu objects  %8llu live  blocks %7llu -> %7llu  merges %7llu  compaction %8.3f s  %8.0f ns/merge"
	       "  survivors read %llu/%llu\n",
	       (unsigned long long)n, (unsigned long long)live, (unsigned long long)blocks,
	       (unsigned long long)h.active_blocks, (unsigned long long)st.merges, secs, *ns_per_merge,
	       (unsigned long long)ok, (unsigned long long)live);
	fflush(stdout);
	cmem_destroy(&h);
	free(p);
	if (rc || ok != live || !st.merges) {
		fprintf(stderr, "corm-compact: %s\n", rc ? err : ok != live ? "a survivor was lost" : "nothing merged");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: corm-compact N [N...]\n");
		return 2;
	}
	double first = 0, last = 0;
	for (int i = 1; i < argc; i++) {
		uint64_t n = strtoull(argv[i], NULL, 10);
		if (n < 1000) {
			fprintf(stderr, "corm-compact: '%s': at least 1000 objects\n", argv[i]);
			return 2;
		}
		if (run(n, &last))
			return 1;
		if (i == 1)
			first = last;
	}
	if (argc > 2)
		printf("time per merge, %s objects against %s: %.2fx\n", argv[argc - 1], argv[1], last / first);
	return 0;
}
