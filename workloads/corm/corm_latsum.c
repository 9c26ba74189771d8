/* Figs. 9 and 10's differences and orderings of medians
 * (workloads/corm/corm_latsum.h). A difference is at least 0: an
 * operation no slower than the raw RPC adds nothing to it (a negative
 * metric would read as a broken document, not as a fast operation). */
#include "corm_latsum.h"
#include <math.h>

static double median_us(const nm_hist *h) { return nm_hist_quantile(h, 0.5) / 1e3; }

static void extra(const nm_hist *const h[CORM_LS_N], corm_ls_kind k, const char *name, json_t *m)
{
	if (h[k]->count && h[CORM_LS_RAW_RPC]->count)
		json_object_set_new(m, name, json_real(fmax(0, median_us(h[k]) - median_us(h[CORM_LS_RAW_RPC]))));
}

void corm_latency_summary(const nm_hist *const h[CORM_LS_N], json_t *m)
{
	extra(h, CORM_LS_ALLOC, "alloc_extra_us", m);
	extra(h, CORM_LS_FREE, "free_extra_us", m);
	extra(h, CORM_LS_RELEASE, "release_extra_us", m);
	double scan = median_us(h[CORM_LS_SCAN]);
	if (h[CORM_LS_INDIRECT_RPC]->count && h[CORM_LS_SCAN]->count && scan > 0)
		json_object_set_new(m, "rpc_backup_over_scan", json_real(median_us(h[CORM_LS_INDIRECT_RPC]) / scan));
}
