/* Connections between ranks (mesh.h): the QPs, their CQs, the exchange of
 * endpoints, and a broken QP's way back to RTS. */
#include "alloc.h"
#include "mesh.h"
#include "boot.h"
#include "log.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "all" or a comma list into set[n]. */
static int rank_set(const char *s, int n, uint8_t *set, const char *what, char *err, size_t len)
{
	bool all = !strcmp(s, "all");
	memset(set, all, (size_t)n);
	for (const char *p = s; *p && !all;) {
		char *end;
		long r = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || r < 0) {
			snprintf(err, len, "option --%s: '%s' is not 'all' or a list of ranks like 0,2", what, s);
			return -1;
		}
		if (r >= n) {
			snprintf(err, len, "option --%s: rank %ld does not exist (the job has %d rank%s)", what,
				 r, n, n == 1 ? "" : "s");
			return -1;
		}
		set[r] = 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int nm_mesh_pairs(const char *initiators, const char *targets, int n, uint8_t *initiates, char *err,
		  size_t errlen)
{
	uint8_t *ini = nm_calloc((size_t)n, 1), *tgt = nm_calloc((size_t)n, 1);
	bool self = !strcmp(targets, "self"), others = !strcmp(targets, "others");
	int rc = rank_set(initiators, n, ini, "initiators", err, errlen), pairs = 0;
	if (!rc && !self && !others)
		rc = rank_set(targets, n, tgt, "targets", err, errlen);
	memset(initiates, 0, (size_t)n * (size_t)n);
	for (int i = 0; !rc && i < n; i++)
		for (int t = 0; ini[i] && t < n; t++)
			if (self ? t == i : others ? !ini[t] : tgt[t])
				pairs += initiates[i * n + t] = 1;
	free(ini);
	free(tgt);
	return rc ? -1 : pairs;
}

void nm_mesh_plan(const nm_mesh_cfg *c, int me, int R, nm_mesh_size *out)
{
	int T = c->nthreads, Q = c->qps, out_peers = 0, in_peers = 0;
	for (int p = 0; p < R; p++) {
		out_peers += c->initiates[me * R + p] != 0;
		in_peers += c->initiates[p * R + me] != 0;
	}
	/* Passive QPs carry no work of their own unless the workload serves
	 * messages on them (c->passive_wrs per QP). */
	out->active = out_peers * T * Q;
	out->passive = in_peers * T * Q;
	out->cqs = T + !c->passive_on_thread_cq;
	out->cqe = c->qp.sq_depth * (out_peers ? out_peers : 1) * Q;
	out->pcqe = 16 + c->passive_wrs * in_peers * (c->passive_on_thread_cq ? 1 : T) * Q;
	if (c->passive_on_thread_cq)
		out->cqe += out->pcqe;
}

void nm_mesh_needs(const nm_mesh_cfg *c, int rank, int nranks, nm_needs *n)
{
	nm_mesh_size s;
	nm_mesh_plan(c, rank, nranks, &s);
	nm_needs add = {.qps = (uint64_t)(s.active + s.passive), .cqs = (uint64_t)s.cqs,
			.cqe = (uint64_t)(s.cqe > s.pcqe ? s.cqe : s.pcqe), .sq_depth = (uint64_t)c->qp.sq_depth,
			.rd_atomic = (uint64_t)c->qp.max_rd_atomic};
	nm_needs_sum(n, &add);
}

/* Each thread's CQ, and the passive CQ (or room on the threads' CQs for
 * the passive QPs). NULL, or what failed in err. */
static const char *make_cqs(nm_mesh *m, nm_dev *d, const nm_mesh_cfg *c, char *err, size_t errlen)
{
	int T = m->nthreads;
	nm_mesh_size s;
	nm_mesh_plan(c, m->rank, m->nranks, &s);
	if (!d->ctx) {   /* a rank without a device (nm_experiment.without_device) */
		if (s.active + s.passive == 0)
			return NULL;
		snprintf(err, errlen, "rank %d has no RDMA device but the mesh gives it %d QP(s)", m->rank,
			 s.active + s.passive);
		return err;
	}
	int cqe = s.cqe > d->attr.max_cqe ? d->attr.max_cqe : s.cqe;
	int pcqe = s.pcqe > d->attr.max_cqe ? d->attr.max_cqe : s.pcqe;
	for (int t = 0; t < T; t++) {
		m->cq[t] = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);
		if (!m->cq[t]) {
			snprintf(err, errlen, "ibv_create_cq(%d entries) on %s failed", cqe, d->name);
			return err;
		}
	}
	if (!c->passive_on_thread_cq && !(m->passive_cq = ibv_create_cq(d->ctx, pcqe, NULL, NULL, 0))) {
		snprintf(err, errlen, "ibv_create_cq(passive, %d entries) on %s failed", pcqe, d->name);
		return err;
	}
	return NULL;
}

/* This rank's QPs towards peer p and serving p, their endpoints into eps:
 * for each (t, q), the active QP's at 2 (t Q + q), the passive one's next. */
static const char *make_qps(nm_mesh *m, const nm_mesh_cfg *c, int p, nm_ep *eps, char *err, size_t errlen)
{
	int R = m->nranks, me = m->rank, T = m->nthreads, Q = m->qps;
	for (int t = 0; t < T; t++)
		for (int q = 0; q < Q; q++) {
			size_t k = ((size_t)t * Q + q) * 2;
			if (c->initiates[me * R + p]) {
				nm_conn *cn = nm_mesh_conn(m, t, p, q);
				cn->qp = nm_qp_create(m->dev, m->cq[t], &m->qa, &cn->max_inline, err, errlen);
				if (!cn->qp)
					return err;
				cn->peer = p;
				cn->thread = t;
				cn->index = q;
				nm_qp_local_ep(m->dev, cn->qp, &eps[k]);
			}
			if (c->initiates[p * R + me]) {
				size_t i = nm_mesh_passive_index(m, p, t, q);
				struct ibv_cq *cq = c->passive_on_thread_cq ? m->cq[t] : m->passive_cq;
				m->passive[i] = nm_qp_create(m->dev, cq, &m->passive_qa, NULL, err, errlen);
				if (!m->passive[i])
					return err;
				nm_qp_local_ep(m->dev, m->passive[i], &eps[k + 1]);
			}
		}
	return NULL;
}

/* Connects the QPs of make_qps towards p: ours (leps) and p's (reps). */
static const char *connect_qps(nm_mesh *m, int p, const nm_ep *leps, const nm_ep *reps, char *err, size_t errlen)
{
	for (int t = 0; t < m->nthreads; t++)
		for (int q = 0; q < m->qps; q++) {
			size_t k = ((size_t)t * m->qps + q) * 2, i = nm_mesh_passive_index(m, p, t, q);
			nm_conn *cn = nm_mesh_conn(m, t, p, q);
			/* our active QP pairs with the peer's passive one, and
			 * our passive QP with the peer's active one */
			if (cn->qp) {
				cn->rmr = m->rmr[p];
				cn->ends = (nm_ends){leps[k], reps[k + 1]};
				if (nm_qp_connect(m->dev, cn->qp, &m->qa, &leps[k], &reps[k + 1], err, errlen))
					return err;
			}
			if (m->passive[i]) {
				m->passive_ends[i] = (nm_ends){leps[k + 1], reps[k]};
				if (nm_qp_connect(m->dev, m->passive[i], &m->passive_qa, &leps[k + 1], &reps[k], err,
						  errlen))
					return err;
			}
		}
	return NULL;
}

/* Whether this rank's GID reaches peer p's, judged once per peer from any
 * pair of endpoints the two exchanged (every QP of a rank carries the same
 * GID). NULL, or the line in err. */
static const char *unreachable(nm_mesh *m, int p, const nm_ep *leps, const nm_ep *reps, char *err, size_t errlen)
{
	if (p == m->rank)
		return NULL;
	for (size_t k = 0; k < (size_t)2 * m->nthreads * m->qps; k++)
		if (leps[k].valid && reps[k ^ 1].valid)
			return nm_qp_reach(m->dev, m->rank, &leps[k], p, &reps[k ^ 1], err, errlen) ? err : NULL;
	return NULL;
}

void nm_mesh_create(nm_mesh *m, nm_dev *d, const nm_mesh_cfg *c, const nm_mr *mr)
{
	char err[512] = "";
	int R = nm_boot_size(), me = nm_boot_rank(), T = c->nthreads, Q = c->qps;
	memset(m, 0, sizeof *m);
	m->dev = d;
	m->rank = me;
	m->nranks = R;
	m->nthreads = T;
	m->qps = Q;
	m->cq = nm_calloc((size_t)T, sizeof *m->cq);
	m->conn = nm_calloc((size_t)T * R * Q, sizeof *m->conn);
	m->passive = nm_calloc((size_t)R * T * Q, sizeof *m->passive);
	m->passive_ends = nm_calloc((size_t)R * T * Q, sizeof *m->passive_ends);
	m->rmr = nm_calloc((size_t)R, sizeof *m->rmr);
	m->qa = c->qp;
	m->passive_qa = c->qp;
	m->passive_qa.sq_depth = 2;   /* a server's reply may be posted before the last one's completion is reaped */
	m->passive_qa.max_inline = 0;
	const char *fail = make_cqs(m, d, c, err, sizeof err);

	/* What rank `me` sends to each peer p: its memory, then the endpoints
	 * of its QPs towards p and serving p. */
	size_t nep = (size_t)2 * T * Q;
	size_t block = sizeof(nm_rmr) + nep * sizeof(nm_ep);
	uint8_t *send = nm_calloc((size_t)R, block), *recv = nm_calloc((size_t)R, block);
	nm_ep *local = nm_calloc((size_t)R * nep, sizeof(nm_ep));
	nm_rmr mine = {0};
	if (mr)
		mine = (nm_rmr){.addr = (uintptr_t)mr->buf, .len = mr->len, .rkey = mr->mr->rkey};
	for (int p = 0; p < R && !fail; p++) {
		memcpy(send + (size_t)p * block, &mine, sizeof mine);
		nm_ep *eps = (nm_ep *)(send + (size_t)p * block + sizeof(nm_rmr));
		fail = make_qps(m, c, p, eps, err, sizeof err);
		memcpy(local + (size_t)p * nep, eps, nep * sizeof(nm_ep));
	}
	nm_boot_check(fail, NM_EXIT_FAIL);
	nm_boot_alltoall(send, recv, block);
	/* GIDs that cannot reach each other are the hosts' set-up, not a
	 * failure of this run: said in one line before any QP connects (exit 2),
	 * not later as a retry-exceeded completion. */
	for (int p = 0; p < R && !fail; p++)
		fail = unreachable(m, p, local + (size_t)p * nep, (const nm_ep *)(recv + (size_t)p * block + sizeof(nm_rmr)),
				   err, sizeof err);
	nm_boot_check(fail, NM_EXIT_USAGE);
	for (int p = 0; p < R && !fail; p++) {
		memcpy(&m->rmr[p], recv + (size_t)p * block, sizeof(nm_rmr));
		fail = connect_qps(m, p, local + (size_t)p * nep, (const nm_ep *)(recv + (size_t)p * block + sizeof(nm_rmr)),
				   err, sizeof err);
	}
	free(send);
	free(recv);
	free(local);
	nm_boot_check(fail, NM_EXIT_FAIL);
	/* Every QP must be in RTS on both sides before anyone posts. */
	nm_boot_barrier();
}

int nm_mesh_reconnect(nm_mesh *m, int t, int peer, int q, bool passive, char *err, size_t errlen)
{
	if (passive) {
		size_t i = nm_mesh_passive_index(m, peer, t, q);
		return nm_qp_reconnect(m->dev, m->passive[i], &m->passive_qa, &m->passive_ends[i].local,
				       &m->passive_ends[i].remote, err, errlen);
	}
	nm_conn *cn = nm_mesh_conn(m, t, peer, q);
	return nm_qp_reconnect(m->dev, cn->qp, &m->qa, &cn->ends.local, &cn->ends.remote, err, errlen);
}

int nm_mesh_qp_count(const nm_mesh *m)
{
	size_t n = (size_t)m->nthreads * m->nranks * m->qps;
	int count = 0;
	for (size_t i = 0; i < n; i++)
		count += (m->conn[i].qp != NULL) + (m->passive[i] != NULL);
	return count;
}

nm_conn *nm_mesh_find_qpn(const nm_mesh *m, int t, uint32_t qpn)
{
	for (int p = 0; p < m->nranks; p++)
		for (int q = 0; q < m->qps; q++) {
			nm_conn *c = nm_mesh_conn(m, t, p, q);
			if (c->qp && c->qp->qp_num == qpn)
				return c;
		}
	return NULL;
}

void nm_mesh_destroy(nm_mesh *m)
{
	size_t n = (size_t)m->nthreads * m->nranks * m->qps;
	for (size_t i = 0; m->conn && i < n; i++)
		if (m->conn[i].qp)
			ibv_destroy_qp(m->conn[i].qp);
	for (size_t i = 0; m->passive && i < n; i++)
		if (m->passive[i])
			ibv_destroy_qp(m->passive[i]);
	for (int t = 0; m->cq && t < m->nthreads; t++)
		if (m->cq[t])
			ibv_destroy_cq(m->cq[t]);
	if (m->passive_cq)
		ibv_destroy_cq(m->passive_cq);
	free(m->conn);
	free(m->passive);
	free(m->passive_ends);
	free(m->cq);
	free(m->rmr);
	memset(m, 0, sizeof *m);
}
