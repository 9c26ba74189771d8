/* Unit tests for workloads/corm/corm_latsum.c: Figs. 9 and 10's numbers
 * as the paper states them (differences to the raw RPC's median, in us,
 * and the RPC backup's median over the ScanRead's), and no number where a
 * kind has no sample. */
#include "corm_latsum.h"
#include "tap.h"
#include <math.h>

static nm_hist hs[CORM_LS_N];

/* n samples of v ns into kind k */
static void fill(corm_ls_kind k, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		nm_hist_add(&hs[k], v);
}

static double num(const json_t *m, const char *key)
{
	const json_t *v = json_object_get(m, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int main(void)
{
	const nm_hist *const h[CORM_LS_N] = {&hs[0], &hs[1], &hs[2], &hs[3], &hs[4], &hs[5]};
	for (int k = 0; k < CORM_LS_N; k++)
		nm_hist_init(&hs[k]);
	/* exact values below 128 ns keep the arithmetic exact: a raw RPC of
	 * 100 ns, Alloc 120, Free 110, ReleasePtr 103, ScanRead 50, the RPC
	 * backup 75; the median is the middle sample, not the mean */
	fill(CORM_LS_RAW_RPC, 100, 5);
	fill(CORM_LS_RAW_RPC, 127, 2);
	fill(CORM_LS_ALLOC, 120, 3);
	fill(CORM_LS_FREE, 110, 3);
	fill(CORM_LS_RELEASE, 103, 3);
	fill(CORM_LS_SCAN, 50, 3);
	fill(CORM_LS_INDIRECT_RPC, 75, 3);
	json_t *m = json_object();
	corm_latency_summary(h, m);
	CHECK(fabs(num(m, "alloc_extra_us") - 0.020) < 1e-12, "Alloc's median minus the raw RPC's, in us (%g)",
	      num(m, "alloc_extra_us"));
	CHECK(fabs(num(m, "free_extra_us") - 0.010) < 1e-12, "Free's (%g)", num(m, "free_extra_us"));
	CHECK(fabs(num(m, "release_extra_us") - 0.003) < 1e-12, "ReleasePtr's (%g)", num(m, "release_extra_us"));
	CHECK(fabs(num(m, "rpc_backup_over_scan") - 1.5) < 1e-12, "the RPC backup's median over the ScanRead's (%g)",
	      num(m, "rpc_backup_over_scan"));
	/* an operation faster than the raw RPC adds nothing: 0, never negative */
	fill(CORM_LS_FREE, 60, 10);
	json_object_clear(m);
	corm_latency_summary(h, m);
	CHECK(num(m, "free_extra_us") == 0, "a Free faster than the raw RPC adds 0 us (%g)",
	      num(m, "free_extra_us"));
	/* no ScanRead sample: no ratio; no raw RPC: no differences */
	nm_hist_init(&hs[CORM_LS_SCAN]);
	json_object_clear(m);
	corm_latency_summary(h, m);
	CHECK(!json_object_get(m, "rpc_backup_over_scan") && json_object_get(m, "alloc_extra_us"),
	      "without a ScanRead sample the ratio is absent, the differences stay");
	nm_hist_init(&hs[CORM_LS_RAW_RPC]);
	json_object_clear(m);
	corm_latency_summary(h, m);
	CHECK(json_object_size(m) == 0, "without a raw RPC sample nothing is made up (%zu keys)", json_object_size(m));
	/* a zero ScanRead median would divide by zero: absent */
	fill(CORM_LS_SCAN, 0, 3);
	json_object_clear(m);
	corm_latency_summary(h, m);
	CHECK(!json_object_get(m, "rpc_backup_over_scan"), "a zero ScanRead median gives no ratio");
	json_decref(m);
	return tap_done();
}
