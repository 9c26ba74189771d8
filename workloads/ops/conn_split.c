/* NUMA Fig. 3's split of the connections (workloads/ops/conn_split.h).
 * The excess is at least 0: later connections no slower than the first
 * seven add nothing (a negative metric would read as a broken document,
 * not as a fast connection). */
#include "conn_split.h"
#include "alloc.h"
#include <math.h>
#include <stdlib.h>

typedef struct conn {
	long target, thread, qp;
	double mean_ns;
} conn;

static long field(const json_t *c, const char *key)
{
	const json_t *v = json_object_get(c, key);
	return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}

/* Creation order: nm_mesh_create makes a rank's QPs by peer, then thread,
 * then QP. */
static int by_creation(const void *a, const void *b)
{
	const conn *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->qp > y->qp) - (x->qp < y->qp);
}

json_t *ops_conn_split(const json_t *conns, long rank)
{
	conn *cs = nm_calloc(json_array_size(conns), sizeof *cs);
	size_t n = 0, i, k[2] = {0, 0};
	double sum[2] = {0, 0};
	json_t *c;
	json_array_foreach(conns, i, c) {
		if (!json_is_integer(json_object_get(c, "rank")) || field(c, "rank") != rank)
			continue;
		const json_t *us = json_object_get(c, "lat_mean_us");
		cs[n++] = (conn){.target = field(c, "target"), .thread = field(c, "thread"), .qp = field(c, "qp"),
				 .mean_ns = json_is_number(us) ? json_number_value(us) * 1e3 : NAN};
	}
	qsort(cs, n, sizeof *cs, by_creation);
	for (i = 0; i < n; i++)
		if (cs[i].mean_ns > 0 && isfinite(cs[i].mean_ns)) {
			int g = i >= OPS_SPLIT_FIRST;
			sum[g] += cs[i].mean_ns;
			k[g]++;
		}
	free(cs);
	if (!k[0] || !k[1])
		return NULL;
	double first = sum[0] / (double)k[0], later = sum[1] / (double)k[1];
	return json_pack("{s:f, s:f, s:f}", "first_mean_ns", first, "later_mean_ns", later, "later_extra_ns",
			 fmax(0, later - first));
}
