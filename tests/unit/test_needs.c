/* netmem preflight's pure half (harness/needs.h) on made-up hosts: each
 * limit refuses a point that exceeds it, naming the host and the limit, and
 * lets one that stays within it pass; several ranks on one NIC add up; the
 * rank-to-host placement follows run_all.sh's; and the time estimate is the
 * documented formula. */
#include "needs.h"
#include "tap.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

static nm_limits host(void)
{
	nm_limits l = {.host = "node1", .device = "mlx5_0", .max_qp = 1000, .max_cq = 100, .max_mr = 50,
		       .max_cqe = 4096, .max_qp_wr = 1024, .max_sge = 30, .max_qp_rd_atom = 16,
		       .max_mr_size = 1ull << 30, .atomics = NM_ATOMIC_HCA, .odp_rc = false, .active_mtu = 1024,
		       .memlock = 64ull << 20, .hugepages_free = 0, .numa_nodes = 1, .nic_node = 0};
	return l;
}

static nm_needs small(void)
{
	nm_needs n = {.qps = 4, .cqs = 2, .mrs = 1, .cqe = 256, .sq_depth = 130, .rd_atomic = 16,
		      .pinned_bytes = 1 << 20, .largest_mr = 1 << 20, .atomics = true, .numa_nodes = 1};
	return n;
}

/* n refused by the rank check, its line naming the host and `limit`. */
static int refused(const nm_needs *n, const char *limit, char *why, size_t len)
{
	nm_limits l = host();
	return nm_fit_rank(n, &l, why, len) != 0 && strstr(why, "node1") && strstr(why, limit);
}

static void rank_limits(void)
{
	char why[512];
	nm_needs n = small();
	nm_limits l = host();
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) == 0, "a small point fits");
	n.pinned_bytes = 65ull << 20;
	CHECK(refused(&n, "RLIMIT_MEMLOCK", why, sizeof why) && strstr(why, "ulimit -l"),
	      "pinned above memlock: refused, says ulimit -l (%s)", why);
	l.memlock = UINT64_MAX;
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) == 0, "unlimited memlock (or CAP_IPC_LOCK): fits");
	n = small();
	n.odp_bytes = 8ull << 30;
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) == 0, "ODP bytes pin nothing: memlock does not count them");
	n = small();
	n.largest_mr = 2ull << 30;
	CHECK(refused(&n, "max_mr_size", why, sizeof why), "an MR above max_mr_size (%s)", why);
	n = small();
	n.sq_depth = 2000;
	CHECK(refused(&n, "max_qp_wr", why, sizeof why), "a send queue above max_qp_wr (%s)", why);
	snprintf(n.sq_from, sizeof n.sq_from, "--tx-depth 1998");
	CHECK(refused(&n, "max_qp_wr", why, sizeof why) && strstr(why, "--tx-depth 1998 needs send queues of 2000 "
								    "entries, mlx5_0 allows 1024"),
	      "... naming the option that set it (%s)", why);
	CHECK(nm_fit_queue(&n, &l, why, sizeof why) != 0 && strstr(why, "--tx-depth 1998"),
	      "the job's own check before its first point says the same (%s)", why);
	n.sq_depth = 1024;
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) == 0 && nm_fit_queue(&n, &l, why, sizeof why) == 0,
	      "a send queue of exactly max_qp_wr fits, in both");
	nm_needs a = small(), b = small();
	b.sq_depth = 4000;
	snprintf(b.sq_from, sizeof b.sq_from, "--tx-depth 3998");
	nm_needs_max(&a, &b);
	CHECK(a.sq_depth == 4000 && !strcmp(a.sq_from, "--tx-depth 3998"), "a config's peak keeps the deepest "
	      "queue's option");
	n = small();
	n.rd_atomic = 17;
	CHECK(refused(&n, "max_qp_rd_atom", why, sizeof why), "outstanding READs above max_qp_rd_atom (%s)", why);
	n = small();
	l = host();
	l.atomics = NM_ATOMIC_NONE;
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) != 0 && strstr(why, "atomic_cap"),
	      "atomics on a device without: refused (%s)", why);
	n.atomics = false;
	CHECK(nm_fit_rank(&n, &l, why, sizeof why) == 0, "no atomics needed: fits there");
	n = small();
	n.odp = true;
	CHECK(refused(&n, "ODP", why, sizeof why), "ODP needed, none: refused (%s)", why);
	n = small();
	n.mtu = 4096;
	CHECK(refused(&n, "MTU", why, sizeof why), "path MTU above the active one (%s)", why);
	n = small();
	n.numa_nodes = 2;
	CHECK(refused(&n, "NUMA", why, sizeof why), "two NUMA nodes on a one-node host (%s)", why);
}

static void host_sums(void)
{
	char why[512];
	nm_limits l = host();
	nm_needs a = small(), b = small(), sum = {0};
	a.qps = 600;
	b.qps = 500;
	b.sq_depth = 900;
	nm_needs_sum(&sum, &a);
	nm_needs_sum(&sum, &b);
	CHECK(sum.qps == 1100 && sum.mrs == 2 && sum.pinned_bytes == 2u << 20 && sum.sq_depth == 900,
	      "sum: objects and bytes add, depths take the largest");
	CHECK(nm_fit_rank(&a, &l, why, sizeof why) == 0 && nm_fit_rank(&b, &l, why, sizeof why) == 0,
	      "each rank alone fits");
	CHECK(nm_fit_host(&sum, 2, &l, why, sizeof why) != 0 && strstr(why, "max_qp") &&
	      strstr(why, "1100") && strstr(why, "node1"), "two ranks on one NIC: 1100 QPs over max_qp 1000 (%s)", why);
	nm_needs m = {0};
	nm_needs_max(&m, &a);
	nm_needs_max(&m, &b);
	CHECK(m.qps == 600 && m.sq_depth == 900 && m.mrs == 1, "max: the peak of each field over points");
	nm_needs mrs = small();
	mrs.mrs = 51;
	CHECK(nm_fit_host(&mrs, 1, &l, why, sizeof why) != 0 && strstr(why, "max_mr"), "MRs over max_mr (%s)",
	      why);
	nm_needs huge = small();
	huge.hugepage_bytes = 2u << 20;
	CHECK(nm_fit_host(&huge, 1, &l, why, sizeof why) != 0 && strstr(why, "huge"),
	      "huge pages without free ones (%s)", why);
	nm_needs cq = small();
	cq.cqs = 101;
	CHECK(nm_fit_host(&cq, 1, &l, why, sizeof why) != 0 && strstr(why, "max_cq"), "CQs over max_cq (%s)",
	      why);
}

static void placement(void)
{
	CHECK(nm_needs_host_of(5, 1, 0) == 0 && nm_needs_host_of(5, 1, 2) == 0, "one host: every rank on it");
	CHECK(nm_needs_host_of(0, 3, 0) == 0 && nm_needs_host_of(1, 3, 0) == 1 && nm_needs_host_of(3, 3, 0) == 0,
	      "--map-by node: round robin");
	CHECK(nm_needs_host_of(1, 2, 2) == 0 && nm_needs_host_of(2, 2, 2) == 1 && nm_needs_host_of(3, 2, 2) == 1,
	      "ranks_per_node 2: consecutive pairs");
}

static void time_estimate(void)
{
	nm_time_model m = {.start_s = 3, .point_s = 0.5, .qp_s = 0.01, .reg_s_per_gib = 1, .op_ns = 1000};
	nm_point_time it = {.iters = 1000, .warmup = 100, .reps = 2, .qps = 10, .pinned_bytes = 1ull << 30};
	/* 2 * (0.5 + 10 * 0.01 + 1 * 1 + 1100 * 1 us) */
	double want = 2 * (0.5 + 0.1 + 1 + 0.0011);
	CHECK(fabs(nm_point_seconds(&it, &m) - want) < 1e-9, "iterations: reps * (setup + (iters + warmup) * op) = %g",
	      nm_point_seconds(&it, &m));
	nm_point_time du = {.iters = 1000, .warmup = 100, .duration = 2, .reps = 1};
	CHECK(fabs(nm_point_seconds(&du, &m) - (0.5 + 2 + 0.0001)) < 1e-9,
	      "duration: setup + duration + warmup * op, iters ignored (%g)", nm_point_seconds(&du, &m));
	du.duration = 0;
	CHECK(fabs(nm_point_seconds(&du, &m) - (0.5 + 0.0011)) < 1e-9, "duration 0: the iterations again (%g)",
	      nm_point_seconds(&du, &m));
	nm_point_time zero = {.iters = 10};
	CHECK(nm_point_seconds(&zero, &m) > 0.5, "reps 0 counts as one");
	CHECK(nm_time_emulated.op_ns > nm_time_hardware.op_ns && nm_time_emulated.start_s >= nm_time_hardware.start_s,
	      "Soft-RoCE's model is slower than hardware's");
	CHECK(nm_time_emulated_hosts.op_ns > nm_time_emulated.op_ns &&
		      nm_time_emulated_hosts.start_s > nm_time_emulated.start_s,
	      "Soft-RoCE across hosts is slower than in one guest");
}

int main(void)
{
	rank_limits();
	host_sums();
	placement();
	time_estimate();
	return tap_done();
}
