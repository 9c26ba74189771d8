/* Needs against limits, and the time estimate (needs.h). */
#include "needs.h"
#include "log.h"
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Hardware: a ConnectX QP is created and connected in about a millisecond,
 * an operation of a closed loop takes a few microseconds with the
 * harness's bookkeeping. Soft-RoCE, measured at check scale in the VM
 * (2 ranks): a job spends about 10 s outside its points (mpirun, MPI_Init,
 * the device, metadata, the document), a point about 0.3 s of set-up and
 * barriers, an emulated operation tens of microseconds. */
const nm_time_model nm_time_hardware = {.start_s = 3, .point_s = 0.3, .qp_s = 0.002, .reg_s_per_gib = 0.5,
					 .op_ns = 5000};
const nm_time_model nm_time_emulated = {.start_s = 10, .point_s = 0.3, .qp_s = 0.01, .reg_s_per_gib = 2,
					 .op_ns = 60000};
/* Soft-RoCE over several hosts (the cluster of guests): an operation that
 * crosses the link waits for the other guest's CPU, one READ's round trip
 * 0.44 to 0.8 ms in the cluster lane; a job starts over OpenMPI's ssh
 * launcher and wires up across the link (about 20 s), and a point's set-up
 * and barriers cross it too. Measured at check scale on two guests: Clover
 * Figs. 2 and 4 (4 points each, the packet path started per point) took 34
 * and 38 s alone, 3.5 to 4.5 s a point after the start, and 125 and 151 s
 * for both inside make check, beside the other lane's guest; a point's 4 s
 * puts them at 37 s each, within 2x of both. */
const nm_time_model nm_time_emulated_hosts = {.start_s = 20, .point_s = 4, .qp_s = 0.02, .reg_s_per_gib = 2,
					      .op_ns = 600000};

void nm_needs_max(nm_needs *a, const nm_needs *b)
{
	a->qps = MAX(a->qps, b->qps);
	a->cqs = MAX(a->cqs, b->cqs);
	a->mrs = MAX(a->mrs, b->mrs);
	a->cqe = MAX(a->cqe, b->cqe);
	/* the deepest queue's option names it */
	if (b->sq_depth > a->sq_depth || (b->sq_depth == a->sq_depth && !a->sq_from[0]))
		memcpy(a->sq_from, b->sq_from, sizeof a->sq_from);
	a->sq_depth = MAX(a->sq_depth, b->sq_depth);
	a->rd_atomic = MAX(a->rd_atomic, b->rd_atomic);
	a->pinned_bytes = MAX(a->pinned_bytes, b->pinned_bytes);
	a->odp_bytes = MAX(a->odp_bytes, b->odp_bytes);
	a->largest_mr = MAX(a->largest_mr, b->largest_mr);
	a->hugepage_bytes = MAX(a->hugepage_bytes, b->hugepage_bytes);
	a->atomics |= b->atomics;
	a->odp |= b->odp;
	a->numa_nodes = MAX(a->numa_nodes, b->numa_nodes);
	a->mtu = MAX(a->mtu, b->mtu);
}

/* The counts that add up when several ranks share one NIC. */
static const size_t summed[] = {offsetof(nm_needs, qps), offsetof(nm_needs, cqs), offsetof(nm_needs, mrs),
				offsetof(nm_needs, pinned_bytes), offsetof(nm_needs, odp_bytes),
				offsetof(nm_needs, hugepage_bytes)};

void nm_needs_sum(nm_needs *a, const nm_needs *b)
{
	nm_needs s = *a;
	nm_needs_max(&s, b);
	for (size_t i = 0; i < sizeof summed / sizeof *summed; i++) {
		uint64_t x, y;
		memcpy(&x, (const char *)a + summed[i], sizeof x);
		memcpy(&y, (const char *)b + summed[i], sizeof y);
		x += y;
		memcpy((char *)&s + summed[i], &x, sizeof x);
	}
	*a = s;
}

/* A byte count a reader takes in at once: "3.0 GiB", "512 KiB". */
static const char *human(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

int nm_fit_rank(const nm_needs *n, const nm_limits *l, char *why, size_t len)
{
	char a[32], b[32];
	const char *h = l->host;
	if (!l->device[0])
		return nm_errf(why, len, "host %s: no RDMA device could be opened there (netmem preflight says why)", h);
	if (n->pinned_bytes > l->memlock)
		return nm_errf(why, len, "host %s: pins %s of registered memory, above RLIMIT_MEMLOCK %s (raise "
			  "`ulimit -l` to %" PRIu64 " KiB or unlimited, or run with CAP_IPC_LOCK)", h,
			  human(n->pinned_bytes, a, sizeof a), human(l->memlock, b, sizeof b),
			  (n->pinned_bytes + 1023) >> 10);
	if (n->largest_mr > l->max_mr_size)
		return nm_errf(why, len, "host %s: registers %s in one MR, %s allows %s (max_mr_size)", h,
			  human(n->largest_mr, a, sizeof a), l->device, human(l->max_mr_size, b, sizeof b));
	if (nm_fit_queue(n, l, why, len))
		return -1;
	if (n->rd_atomic > l->max_qp_rd_atom)
		return nm_errf(why, len, "host %s: %" PRIu64 " outstanding READ/atomics per QP, %s allows %" PRIu64
			  " (max_qp_rd_atom)", h, n->rd_atomic, l->device, l->max_qp_rd_atom);
	if (n->atomics && l->atomics == NM_ATOMIC_NONE)
		return nm_errf(why, len, "host %s: posts RDMA atomics, %s has none (atomic_cap ATOMIC_NONE)", h, l->device);
	if (n->odp && !l->odp_rc)
		return nm_errf(why, len, "host %s: needs on-demand paging for RC READ and WRITE, %s has none (ODP caps)",
			  h, l->device);
	if (n->mtu > l->active_mtu)
		return nm_errf(why, len, "host %s: path MTU %d above the active MTU %d of %s", h, n->mtu, l->active_mtu,
			  l->device);
	if (n->numa_nodes > l->numa_nodes)
		return nm_errf(why, len, "host %s: needs %d NUMA nodes, has %d", h, n->numa_nodes, l->numa_nodes);
	return 0;
}

int nm_fit_queue(const nm_needs *n, const nm_limits *l, char *why, size_t len)
{
	if (n->sq_depth <= l->max_qp_wr)
		return 0;
	if (n->sq_from[0])
		return nm_errf(why, len, "host %s: %s needs send queues of %" PRIu64 " entries, %s allows %" PRIu64
			       " (max_qp_wr)", l->host, n->sq_from, n->sq_depth, l->device, l->max_qp_wr);
	return nm_errf(why, len, "host %s: a send queue of %" PRIu64 " entries, %s allows %" PRIu64 " (max_qp_wr)",
		       l->host, n->sq_depth, l->device, l->max_qp_wr);
}

int nm_fit_host(const nm_needs *s, int ranks, const nm_limits *l, char *why, size_t len)
{
	char a[32], b[32];
	const char *h = l->host, *d = l->device;
	if (s->qps > l->max_qp)
		return nm_errf(why, len, "host %s: %d rank(s) create %" PRIu64 " QPs on %s, which allows %" PRIu64
			  " (max_qp)", h, ranks, s->qps, d, l->max_qp);
	if (s->cqs > l->max_cq)
		return nm_errf(why, len, "host %s: %d rank(s) create %" PRIu64 " CQs on %s, which allows %" PRIu64
			  " (max_cq)", h, ranks, s->cqs, d, l->max_cq);
	if (s->mrs > l->max_mr)
		return nm_errf(why, len, "host %s: %d rank(s) register %" PRIu64 " MRs on %s, which allows %" PRIu64
			  " (max_mr)", h, ranks, s->mrs, d, l->max_mr);
	if (s->hugepage_bytes > l->hugepages_free)
		return nm_errf(why, len, "host %s: %d rank(s) back %s with huge pages, %s free (vm.nr_hugepages)", h, ranks,
			  human(s->hugepage_bytes, a, sizeof a), human(l->hugepages_free, b, sizeof b));
	return 0;
}

int nm_needs_host_of(int r, int hosts, int ranks_per_node)
{
	if (hosts <= 1)
		return 0;
	return ranks_per_node > 0 ? (r / ranks_per_node) % hosts : r % hosts;
}

double nm_point_seconds(const nm_point_time *p, const nm_time_model *m)
{
	double op = m->op_ns / 1e9;
	double setup = m->point_s + (double)p->qps * m->qp_s +
		       (double)p->pinned_bytes / (double)(1ull << 30) * m->reg_s_per_gib;
	double run = p->duration > 0 ? p->duration + (double)p->warmup * op
				     : (double)(p->iters + p->warmup) * op;
	return (double)(p->reps > 0 ? p->reps : 1) * (setup + run);
}
