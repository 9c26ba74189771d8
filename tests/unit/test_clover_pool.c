/* netmem clover's version pool for a --duration point that ran out
 * (workloads/clover/clover_pool.h): the rate it measured, the pool it asks
 * for, the bound of what the memory nodes can register, and the cases where
 * another run cannot help or is not allowed. */
#include "tap.h"
#include "clover_pool.h"
#include <math.h>

/* A ConnectX-like first run: 65,536 slots used up after 0.3 s by a thread
 * acknowledging 200,000 writes a second (4 threads, summed). */
static cl_pool_run fast(void)
{
	return (cl_pool_run){.slots = 65536, .acked = 4 * 60000, .us = 4 * 300000, .duration = 10, .warmup = 100,
			     .batch = 16, .cap = 0};
}

int main(void)
{
	double rate;
	uint64_t slots;
	cl_pool_run r = fast();
	cl_pool_verdict v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_RESIZE, "a pool that ran out at 200k writes/s: resized");
	CHECK(fabs(rate - 200000) < 1e-6, "the rate is the threads' acknowledged writes over their time (%.0f/s)", rate);
	CHECK(slots == (uint64_t)ceil(200000 * 10 * CL_POOL_MARGIN) + 100 + 16,
	      "the pool covers duration x rate x margin, the warm-up and one batch (%llu)", (unsigned long long)slots);

	r.cap = 1000000;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_RESIZE && slots == 1000000, "within what the memory nodes can register: the cap (%llu)",
	      (unsigned long long)slots);

	r.cap = 65536;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_AT_CAP && slots == 65536, "a cap no larger than the pool that ran out: no second run");

	r = fast();
	r.acked = 0;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_NO_RATE && slots == 65536 && rate == 0, "no write acknowledged before the run-out: no rate");
	r = fast();
	r.us = 0;
	CHECK(cl_pool_size(&r, &rate, &slots) == CL_POOL_NO_RATE, "no time measured: no rate");

	/* A run-out late in a short run predicts less than the pool had: the
	 * pool still doubles, since it was too small. */
	r = (cl_pool_run){.slots = 1000, .acked = 990, .us = 1000000, .duration = 0.5, .warmup = 0, .batch = 16};
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_RESIZE && slots == 2000, "an estimate below the pool that ran out: twice the pool (%llu)",
	      (unsigned long long)slots);

	/* A host faster in the second run than the first predicted: sized
	 * again from the second run's rate, then no more. */
	r = fast();
	r.resized = 1;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_RESIZE && slots > r.slots, "run out once more after a resize: sized again (%llu)",
	      (unsigned long long)slots);
	r.resized = CL_POOL_RESIZES;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_NO_MORE && slots == r.slots && fabs(rate - 200000) < 1e-6,
	      "sized again %d times already: no more runs, the rate still measured", CL_POOL_RESIZES);

	r = fast();
	r.duration = 1e9;
	v = cl_pool_size(&r, &rate, &slots);
	CHECK(v == CL_POOL_RESIZE && slots == CL_POOL_MAX, "never above --slots' own bound");
	return tap_done();
}
