/* Nanoseconds per draw of the YCSB generator, per distribution (not a test:
 * `make bench-ycsb` builds it at -O2 without sanitizers and runs it).
 *
 * Each case: one generator, a warm-up, then the best of 5 timed batches of
 * draws, timed in thread CPU time (CLOCK_THREAD_CPUTIME_ID) so that other
 * jobs on a shared host inflate the numbers less. "key" rows time ycsb_next_key (the key chooser
 * alone); "next" rows time ycsb_next (operation choice + key, inserts and scan
 * lengths included), which is what a benchmark's hot path calls. */
#include "ycsb.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile uint64_t sink;

enum { KEY, NEXT, RNG };

static void run(const char *name, const ycsb_config *c, int mode, uint64_t n, const ycsb_req *trace,
		size_t tn)
{
	ycsb_gen g;
	char err[256];
	if (trace) {
		ycsb_init_trace(&g, trace, tn, 0);
	} else if (ycsb_init(&g, c, err, sizeof err)) {
		printf("%-44s init failed: %s\n", name, err);
		return;
	}
	uint64_t acc = 0;
	double best = 1e300;
	for (int rep = -1; rep < 5; rep++) { /* rep -1: warm-up */
		ycsb_gen h = g; /* the same draws every batch (latest: no growth drift) */
		double t0 = now();
		if (mode == KEY) {
			for (uint64_t i = 0; i < n; i++)
				acc += ycsb_next_key(&h);
		} else if (mode == RNG) {
			for (uint64_t i = 0; i < n; i++)
				acc += ycsb_rng_next(&h.rng);
		} else {
			for (uint64_t i = 0; i < n; i++) {
				ycsb_op op;
				uint64_t key;
				ycsb_next(&h, &op, &key);
				acc += key + op;
			}
		}
		double dt = now() - t0;
		if (rep >= 0 && dt < best)
			best = dt;
	}
	sink = acc;
	printf("%-44s %7.1f ns/draw\n", name, best / (double)n * 1e9);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
	uint64_t records = 1000000;
	printf("ycsb-bench: %" PRIu64 " draws per batch, best of 5 (thread CPU time), %" PRIu64 " records\n", n,
	       records);

	static const struct {
		const char *name;
		ycsb_dist d;
		double theta;
		uint64_t records;
	} keys[] = {
		{"key uniform", YCSB_UNIFORM, 0.99, 0},
		{"key zipfian theta 0.99 (Gray, YCSB)", YCSB_ZIPFIAN, 0.99, 0},
		{"key zipfian theta 0.5 (Gray)", YCSB_ZIPFIAN, 0.5, 0},
		{"key zipfian theta 1.2 (rejection-inversion)", YCSB_ZIPFIAN, 1.2, 0},
		{"key zipfian-ri theta 0.99 (CoRM)", YCSB_ZIPFIAN_RI, 0.99, 0},
		{"key zipfian-ri theta 0.99, 2^40 keys", YCSB_ZIPFIAN_RI, 0.99, 1ull << 40},
		{"key scrambled theta 0.99 (YCSB 'zipfian')", YCSB_SCRAMBLED, 0.99, 0},
		{"key scrambled theta 0.75", YCSB_SCRAMBLED, 0.75, 0},
		{"key latest theta 0.99", YCSB_LATEST, 0.99, 0},
		{"key hotspot 0.2/0.8", YCSB_HOTSPOT, 0.99, 0},
	};
	ycsb_config c;
	ycsb_config_default(&c);
	c.records = records;
	c.operations = n;
	run("xoshiro256** alone", &c, RNG, n, NULL, 0);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		ycsb_config_default(&c);
		c.records = keys[i].records ? keys[i].records : records;
		c.operations = n;
		c.dist = keys[i].d;
		c.theta = keys[i].theta;
		run(keys[i].name, &c, KEY, n, NULL, 0);
	}
	const char *w = "abcdef";
	for (int i = 0; i < 6; i++) {
		char name[64], wl[2] = {w[i], 0};
		ycsb_config_default(&c);
		c.records = records;
		c.operations = n;
		ycsb_parse_workload(wl, 0, &c.mix, &c.dist, NULL, 0);
		snprintf(name, sizeof name, "next workload %c (%s)", w[i], ycsb_dist_name(c.dist));
		run(name, &c, NEXT, n, NULL, 0);
	}
	ycsb_config_default(&c);
	c.records = records;
	c.dist = YCSB_ZIPFIAN_RI;
	ycsb_parse_workload("mixed", 0.5, &c.mix, NULL, NULL, 0);
	run("next mixed 50% writes, zipfian-ri (CoRM)", &c, NEXT, n, NULL, 0);

	/* a trace replayed in place of the generator */
	size_t tn = 1000000;
	ycsb_req *t = malloc(tn * sizeof *t);
	ycsb_gen g;
	char err[256];
	ycsb_config_default(&c);
	c.records = records;
	if (!t || ycsb_init(&g, &c, err, sizeof err))
		return 1;
	for (size_t i = 0; i < tn; i++) {
		ycsb_op op;
		ycsb_next(&g, &op, &t[i].key);
		t[i].op = (uint8_t)op;
		t[i].scan_len = 0;
	}
	run("next replaying a 1M-request trace", &c, NEXT, n, t, tn);
	free(t);
	return 0;
}
