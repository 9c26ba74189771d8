/* Per-point cost of recording finished points in a result document
 * (harness/result.c): a unit-level driver, no MPI, no device. For each
 * sweep length N it opens a new document, saves it (what a job does at its
 * start), records N points shaped like a real `netmem ops` point (metrics
 * with a latency summary, a 64-entry CDF, per-thread rates, a placement
 * record: about 4 KB of JSON each) and saves again (the fold at the end).
 * It prints the cost of one nm_result_add_point: the median and mean wall
 * time over all N points, the mean over the last 100, and the mean CPU time
 * (the work done, without the wait for the disk, whose fsync latency on a
 * shared machine is noisy); then the end save's (the fold's) time. With
 * --rewrite, the same for the former scheme (the whole document and its
 * summary rewritten after every point), which grows with N. A benchmark: it
 * reports, never asserts.
 *
 *   journal-bench DIR N [N...] [--rewrite N...]  */
#include "points.h"
#include "result.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static json_t *metrics(int i)
{
	json_t *cdf = json_array(), *per = json_array();
	for (int k = 0; k < 64; k++)
		json_array_append_new(cdf, json_pack("[f, f]", 1000.0 + 37.0 * k + i, (k + 1) / 64.0));
	for (int t = 0; t < 8; t++)
		json_array_append_new(per, json_pack("{s:i, s:i, s:i, s:I, s:f, s:f, s:f}", "rank", 0, "thread", t, "cpu", t,
						     "ops", (json_int_t)100000, "seconds", 1.5, "ops_per_sec", 66666.6,
						     "lat_mean_us", 14.2 + t));
	return json_pack("{s:I, s:f, s:f, s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f}, s:o, s:o}", "ops",
			 (json_int_t)(800000 + i), "seconds", 1.5, "ops_per_sec", 533333.3 + i, "lat", "min", 900.0,
			 "p50", 1400.0, "p99", 2900.0, "p99_9", 4100.0, "max", 9000.0, "mean", 1500.0, "stdev", 300.0,
			 "lat_cdf", cdf, "per_thread", per);
}

static json_t *placement(void)
{
	json_t *ranks = json_array();
	for (int r = 0; r < 2; r++)
		json_array_append_new(ranks, json_pack("{s:i, s:s, s:s, s:{s:i, s:i, s:{s:i}, s:b}, s:b}", "rank", r,
						       "host", "node1", "role", r ? "target" : "initiator", "buffer",
						       "intended", 0, "pages", 4, "nodes", "0", 4, "ok", 1, "ok", 1));
	return json_pack("{s:b, s:b, s:o}", "numa_real", 1, "ok", 1, "ranks", ranks);
}

static json_t *point(int i)
{
	json_t *params = json_pack("{s:s, s:s, s:i, s:i, s:I}", "op", "read", "mode", "lat", "size", 8,
				   "threads", 1 + i % 8, "iters", (json_int_t)(1000 + i));
	char *key = nm_point_key(params, 0);
	json_t *pt = json_pack("{s:s, s:o, s:i, s:s, s:s, s:f, s:b, s:{s:{s:b}}, s:o, s:o}", "key", key, "params",
			       params, "rep", 0, "started", "2026-01-01T00:00:00Z", "finished", "2026-01-01T00:00:02Z",
			       "seconds", 2.0, "valid", 1, "checks", "data", "ok", 1, "metrics", metrics(i), "placement",
			       placement());
	free(key);
	return pt;
}

/* One sweep of n points; rewrite: save after every point (the former
 * scheme). Prints one row. */
static int sweep(const char *dir, int n, int rewrite)
{
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/%s-%d.json", dir, rewrite ? "rewrite" : "journal", n);
	json_t *spec = json_pack("{s:s}", "op", "read");
	nm_result r;
	if (nm_result_open(&r, path, "ops", spec, false, err, sizeof err) || nm_result_save(&r)) {
		fprintf(stderr, "journal-bench: %s\n", err[0] ? err : path);
		return -1;
	}
	json_decref(spec);
	double total = 0, last100 = 0, cpu = 0, *each = calloc((size_t)n, sizeof *each);
	for (int i = 0; i < n; i++) {
		json_t *pt = point(i); /* built outside the timed part, as the job builds it */
		double t0 = now_s(), c0 = cpu_s();
		int rc = nm_result_add_point(&r, pt) || (rewrite && nm_result_save(&r));
		double dt = now_s() - t0;
		cpu += cpu_s() - c0;
		if (rc) {
			perror("journal-bench: add");
			return -1;
		}
		each[i] = dt;
		total += dt;
		if (i >= n - 100)
			last100 += dt;
	}
	qsort(each, (size_t)n, sizeof *each, cmp_double);
	double median = each[n / 2];
	free(each);
	double t0 = now_s();
	int rc = nm_result_save(&r);
	double fold = now_s() - t0;
	nm_result_close(&r);
	printf("%-8s %7d %12.1f %10.1f %14.1f %10.1f %12.1f\n", rewrite ? "rewrite" : "journal", n, median * 1e6,
	       total / n * 1e6, last100 / (n < 100 ? n : 100) * 1e6, cpu / n * 1e6, fold * 1e3);
	fflush(stdout);
	unlink(path);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: journal-bench DIR N [N...] [--rewrite N...]\n");
		return 2;
	}
	printf("%-8s %7s %12s %10s %14s %10s %12s\n", "scheme", "points", "median us", "mean us",
	       "last-100 us", "cpu us", "end save ms");
	int rewrite = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--rewrite")) {
			rewrite = 1;
			continue;
		}
		int n = atoi(argv[i]);
		if (n < 1 || sweep(argv[1], n, rewrite))
			return 1;
	}
	return 0;
}
