/* Unit tests for workloads/ops/conn_split.c: NUMA Fig. 3's split of the
 * connections as the paper states it (Sec. V-A: the first seven created
 * against the rest, a differential in ns), in creation order whatever the
 * order of the records, over rank 0's connections only, never negative,
 * and no number where a group has nothing measured. */
#include "conn_split.h"
#include "tap.h"
#include <math.h>

static double num(const json_t *m, const char *key)
{
	const json_t *v = json_object_get(m, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool near(double a, double b) { return fabs(a - b) < 1e-9 * fmax(1, fabs(b)); }

/* per_thread's record of a thread that is one connection */
static json_t *thread_rec(int rank, int thread, double us)
{
	return json_pack("{s:i, s:i, s:f}", "rank", rank, "thread", thread, "lat_mean_us", us);
}

/* per_qp's record */
static json_t *qp_rec(int thread, int target, int qp, double us)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:f}", "rank", 0, "thread", thread, "target", target, "qp", qp,
			 "lat_mean_us", us);
}

int main(void)
{
	/* eight threads, each one connection, listed last first, and the
	 * server's (rank 1) slow records beside them: the first seven at 2 us,
	 * the eighth at 7 us */
	json_t *a = json_array(), *s;
	for (int t = 7; t >= 0; t--) {
		json_array_append_new(a, thread_rec(0, t, t == 7 ? 7.0 : 2.0));
		json_array_append_new(a, thread_rec(1, t, 1000.0));
	}
	s = ops_conn_split(a, 0);
	CHECK(s && near(num(s, "first_mean_ns"), 2000) && near(num(s, "later_mean_ns"), 7000) &&
	      near(num(s, "later_extra_ns"), 5000),
	      "8 connections: the first seven's mean 2000 ns, the eighth's 7000, a 5000 ns differential (%g, %g, %g)",
	      num(s, "first_mean_ns"), num(s, "later_mean_ns"), num(s, "later_extra_ns"));
	json_decref(s);

	/* each connection counts once: the later group of two at 4 and 6 us
	 * averages 5 us, whatever either measured */
	json_array_append_new(a, thread_rec(0, 8, 4.0));
	json_array_set_new(a, 0, thread_rec(0, 7, 6.0));
	s = ops_conn_split(a, 0);
	CHECK(s && near(num(s, "later_mean_ns"), 5000) && near(num(s, "later_extra_ns"), 3000),
	      "two later connections at 4 and 6 us: their mean 5000 ns, 3000 over the first seven (%g, %g)",
	      num(s, "later_mean_ns"), num(s, "later_extra_ns"));
	json_decref(s);

	/* a first-seven connection that measured nothing (mean 0) is left out
	 * of its group, not counted as a 0 ns connection */
	json_array_append_new(a, thread_rec(0, 3, 0.0));
	json_array_remove(a, 2 * (7 - 3)); /* thread 3's record at 2 us */
	s = ops_conn_split(a, 0);
	CHECK(s && near(num(s, "first_mean_ns"), 2000), "a connection without a mean is left out of the first seven (%g)",
	      num(s, "first_mean_ns"));
	json_decref(s);
	json_decref(a);

	/* later connections faster than the first seven: the excess is 0,
	 * never negative; the means say by how much */
	a = json_array();
	for (int t = 0; t < 10; t++)
		json_array_append_new(a, thread_rec(0, t, t < 7 ? 3.0 : 2.5));
	s = ops_conn_split(a, 0);
	CHECK(s && num(s, "later_extra_ns") == 0 && near(num(s, "later_mean_ns"), 2500) &&
	      near(num(s, "first_mean_ns"), 3000),
	      "later connections 500 ns faster: no excess (0, not -500), the means as measured (%g)",
	      num(s, "later_extra_ns"));
	json_decref(s);
	json_decref(a);

	/* seven connections or fewer: no later group, no number */
	a = json_array();
	for (int t = 0; t < 7; t++)
		json_array_append_new(a, thread_rec(0, t, 2.0 + t));
	s = ops_conn_split(a, 0);
	CHECK(!s, "seven connections: no split");
	/* an eighth that measured nothing: still no later group */
	json_array_append_new(a, thread_rec(0, 7, 0.0));
	s = ops_conn_split(a, 0);
	CHECK(!s, "an eighth connection without a mean: no split");
	/* another rank's connections are not rank 0's */
	s = ops_conn_split(a, 1);
	CHECK(!s, "rank 1 has no connection here: no split");
	json_decref(a);
	a = json_array();
	CHECK(!ops_conn_split(NULL, 0) && !ops_conn_split(a, 0), "no records: no split");
	json_decref(a);

	/* per_qp: a rank makes its QPs by target, then thread, then QP
	 * (nm_mesh_create). Three threads, one QP each, to three targets:
	 * the eighth and ninth created are target 3's threads 1 and 2 (by
	 * thread first they would be thread 2's to targets 2 and 3), listed
	 * here by thread as a gather across threads would */
	a = json_array();
	for (int t = 0; t < 3; t++)
		for (int target = 1; target <= 3; target++)
			json_array_append_new(a, qp_rec(t, target, 0, target == 3 && t >= 1 ? 14.0 : 2.0));
	s = ops_conn_split(a, 0);
	CHECK(s && near(num(s, "first_mean_ns"), 2000) && near(num(s, "later_extra_ns"), 12000),
	      "per QP, three targets: the later group is target 3's threads 1 and 2, 12000 ns over (%g, %g)",
	      num(s, "first_mean_ns"), num(s, "later_extra_ns"));
	json_decref(s);
	json_decref(a);
	/* two threads, five QPs each, one target, listed QP first: the
	 * eighth to tenth created are thread 1's QPs 2 to 4 */
	a = json_array();
	for (int q = 4; q >= 0; q--)
		for (int t = 0; t < 2; t++)
			json_array_append_new(a, qp_rec(t, 1, q, t == 1 && q >= 2 ? 14.0 : 2.0));
	s = ops_conn_split(a, 0);
	CHECK(s && near(num(s, "first_mean_ns"), 2000) && near(num(s, "later_extra_ns"), 12000),
	      "per QP, five QPs a thread: the later group is thread 1's QPs 2 to 4, 12000 ns over (%g, %g)",
	      num(s, "first_mean_ns"), num(s, "later_extra_ns"));
	json_decref(s);
	json_decref(a);
	return tap_done();
}
