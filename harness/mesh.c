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

void nm_mesh_create(nm_mesh *m, nm_dev *d, const nm_mesh_cfg *c, const nm_mr *mr)
{
	char err[512] = "";
	const char *fail = NULL;
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
	m->rmr = nm_calloc((size_t)R, sizeof *m->rmr);

	int out_peers = 0;
	for (int p = 0; p < R; p++)
		out_peers += c->initiates[me * R + p] != 0;
	int cqe = c->qp.sq_depth * (out_peers ? out_peers : 1) * Q;
	if (cqe > d->attr.max_cqe)
		cqe = d->attr.max_cqe;
	for (int t = 0; t < T && !fail; t++) {
		m->cq[t] = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);
		if (!m->cq[t]) {
			snprintf(err, sizeof err, "ibv_create_cq(%d entries) on %s failed", cqe, d->name);
			fail = err;
		}
	}
	/* Passive QPs carry no work of their own unless the workload serves
	 * messages on them (c->passive_wrs per QP). */
	int in_peers = 0;
	for (int p = 0; p < R; p++)
		in_peers += c->initiates[p * R + me] != 0;
	int pcqe = 16 + c->passive_wrs * in_peers * T * Q;
	if (pcqe > d->attr.max_cqe)
		pcqe = d->attr.max_cqe;
	if (!fail && !(m->passive_cq = ibv_create_cq(d->ctx, pcqe, NULL, NULL, 0))) {
		snprintf(err, sizeof err, "ibv_create_cq(passive, %d entries) on %s failed", pcqe, d->name);
		fail = err;
	}

	/* What rank `me` sends to each peer p: its memory, then for each (t, q)
	 * the endpoint of its active QP towards p and of its passive QP
	 * serving p. */
	size_t nep = (size_t)2 * T * Q;
	size_t block = sizeof(nm_rmr) + nep * sizeof(nm_ep);
	uint8_t *send = nm_calloc((size_t)R, block), *recv = nm_calloc((size_t)R, block);
	nm_ep *local = nm_calloc((size_t)R * nep, sizeof(nm_ep));
	nm_rmr mine = {.addr = (uintptr_t)mr->buf, .len = mr->len, .rkey = mr->mr->rkey};
	nm_qp_attr passive_attr = c->qp;
	passive_attr.sq_depth = 2;   /* a server's reply may be posted before the last one's completion is reaped */
	passive_attr.max_inline = 0;

	for (int p = 0; p < R && !fail; p++) {
		memcpy(send + (size_t)p * block, &mine, sizeof mine);
		nm_ep *eps = (nm_ep *)(send + (size_t)p * block + sizeof(nm_rmr));
		for (int t = 0; t < T && !fail; t++)
			for (int q = 0; q < Q && !fail; q++) {
				size_t k = ((size_t)t * Q + q) * 2;
				if (c->initiates[me * R + p]) {
					nm_conn *cn = nm_mesh_conn(m, t, p, q);
					cn->qp = nm_qp_create(d, m->cq[t], &c->qp, &cn->max_inline, err,
							      sizeof err);
					if (!cn->qp) {
						fail = err;
						break;
					}
					cn->peer = p;
					cn->thread = t;
					cn->index = q;
					nm_qp_local_ep(d, cn->qp, &eps[k]);
				}
				if (c->initiates[p * R + me]) {
					struct ibv_qp **pq = &m->passive[((size_t)p * T + t) * Q + q];
					*pq = nm_qp_create(d, m->passive_cq, &passive_attr, NULL, err,
							   sizeof err);
					if (!*pq) {
						fail = err;
						break;
					}
					nm_qp_local_ep(d, *pq, &eps[k + 1]);
				}
			}
		memcpy(local + (size_t)p * nep, eps, nep * sizeof(nm_ep));
	}
	nm_boot_check(fail, NM_EXIT_FAIL);
	nm_boot_alltoall(send, recv, block);

	for (int p = 0; p < R && !fail; p++) {
		memcpy(&m->rmr[p], recv + (size_t)p * block, sizeof(nm_rmr));
		const nm_ep *reps = (const nm_ep *)(recv + (size_t)p * block + sizeof(nm_rmr));
		const nm_ep *leps = local + (size_t)p * nep;
		for (int t = 0; t < T && !fail; t++)
			for (int q = 0; q < Q && !fail; q++) {
				size_t k = ((size_t)t * Q + q) * 2;
				nm_conn *cn = nm_mesh_conn(m, t, p, q);
				/* our active QP pairs with the peer's passive one, and
				 * our passive QP with the peer's active one */
				if (cn->qp) {
					cn->rmr = m->rmr[p];
					if (nm_qp_connect(d, cn->qp, &c->qp, &leps[k], &reps[k + 1], err,
							  sizeof err))
						fail = err;
				}
				struct ibv_qp *pq = m->passive[((size_t)p * T + t) * Q + q];
				if (pq && !fail &&
				    nm_qp_connect(d, pq, &passive_attr, &leps[k + 1], &reps[k], err,
						  sizeof err))
					fail = err;
			}
	}
	free(send);
	free(recv);
	free(local);
	nm_boot_check(fail, NM_EXIT_FAIL);
	/* Every QP must be in RTS on both sides before anyone posts. */
	nm_boot_barrier();
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
	free(m->cq);
	free(m->rmr);
	memset(m, 0, sizeof *m);
}
