/* Nanoseconds per nm_hist_add, the call every timed operation makes (not a
 * test: `make bench-hist` builds it at -O2 without sanitizers and runs it).
 *
 * The values come from a precomputed ring of 64 Ki samples (so the generator
 * is not timed), in three shapes: "narrow" (latencies around 35 us with a
 * spread of a few percent, what one READ point records), "wide" (log-uniform
 * from 1 us to 10 ms, touching many buckets) and "all" (every magnitude up to
 * 2^64). Each row is the best of 5 batches of N adds (default 100,000,000) in
 * thread CPU time (CLOCK_THREAD_CPUTIME_ID), so other jobs on a shared host
 * inflate it less. The loop's own cost (loading the next value) is included.
 *
 *   hist-bench [N] */
#include "stats.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static double urand(void) { return (double)((rng() >> 11) + 1) * 0x1p-53; }

enum { RING = 1 << 16 };

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ull;
	static uint64_t ring[RING];
	nm_hist *h = malloc(sizeof *h);
	if (!h || n == 0) {
		fprintf(stderr, "usage: hist-bench [N > 0]\n");
		return 2;
	}
	printf("nm_hist: %zu buckets, %zu bytes per histogram\n", (size_t)NM_HIST_BUCKETS, sizeof *h);
	static const char *shape[] = {"narrow (35 us +- 3%)", "wide (1 us .. 10 ms)", "all (0 .. 2^64)"};
	for (int s = 0; s < 3; s++) {
		for (size_t i = 0; i < RING; i++) {
			/* Sum of uniforms: roughly normal, no libm tail cost here. */
			double u = (urand() + urand() + urand() - 1.5) * 0.06;
			ring[i] = s == 0   ? (uint64_t)(35000.0 * (1.0 + u))
				  : s == 1 ? (uint64_t)(1000.0 * pow(10000.0, urand()))
					   : rng() >> (rng() % 64);
		}
		double best = 1e300;
		for (int rep = -1; rep < 5; rep++) { /* rep -1: warm-up */
			nm_hist_init(h);
			double t0 = now();
			for (uint64_t i = 0; i < n; i++)
				nm_hist_add(h, ring[i & (RING - 1)]);
			double dt = now() - t0;
			if (h->count != n)
				return 1;
			if (rep >= 0 && dt < best)
				best = dt;
		}
		printf("%-24s %8.3f ns/add (best of 5 x %llu adds)\n", shape[s], best * 1e9 / (double)n,
		       (unsigned long long)n);
	}
	free(h);
	return 0;
}
