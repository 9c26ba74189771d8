/* netmem clover's pool sizing (clover_pool.h). */
#include "clover_pool.h"
#include <math.h>

cl_pool_verdict cl_pool_size(const cl_pool_run *r, double *rate, uint64_t *slots)
{
	*rate = 0;
	*slots = r->slots;
	if (r->acked == 0 || r->us == 0)
		return CL_POOL_NO_RATE;
	*rate = (double)r->acked / ((double)r->us * 1e-6);
	if (r->resized >= CL_POOL_RESIZES)
		return CL_POOL_NO_MORE;
	/* Every warm-up operation may be a write; then the timed run's writes. */
	double need = ceil(*rate * r->duration * CL_POOL_MARGIN) + (double)r->warmup + (double)r->batch;
	/* A pool that ran out was too small whatever the estimate says (a rate
	 * measured over a short first run): at least twice as large. */
	need = fmax(need, 2.0 * (double)r->slots);
	uint64_t cap = r->cap && r->cap < CL_POOL_MAX ? r->cap : CL_POOL_MAX;
	*slots = need >= (double)cap ? cap : (uint64_t)need;
	if (*slots <= r->slots) {
		*slots = r->slots;
		return CL_POOL_AT_CAP;
	}
	return CL_POOL_RESIZE;
}
