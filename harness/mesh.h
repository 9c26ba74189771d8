/* Connections between ranks: for every (thread, peer, index) that initiates,
 * an RC QP on this rank connected to a passive twin QP on the peer. The peer
 * may be this rank itself: the op then goes through the NIC and back
 * ("loopback"), which is how a lock word on the caller's own node is taken
 * with RDMA atomics. Each thread has its own CQ; passive QPs share one, which
 * one-sided traffic leaves empty: only a rank that serves messages on its
 * passive QPs (netmem clover's metadata server) posts RECVs and polls it.
 * A server whose thread t serves its peers' thread t (netmem corm's RPC
 * workers) has the passive QPs of thread t complete on thread t's CQ instead,
 * so its workers never share a CQ. */
#ifndef NM_MESH_H
#define NM_MESH_H
#include "needs.h"
#include "verbs.h"
#include <stdbool.h>

/* A connected QP's two endpoints: what nm_qp_reconnect needs. */
typedef struct nm_ends {
	nm_ep local, remote;
} nm_ends;

typedef struct nm_conn {
	struct ibv_qp *qp;     /* NULL when this (thread, peer) does not initiate */
	int peer, thread, index;
	nm_rmr rmr;            /* the peer's registered memory */
	uint32_t max_inline;
	nm_ends ends;
} nm_conn;

typedef struct nm_mesh_cfg {
	int nthreads;
	int qps;                   /* QPs per (thread, peer) */
	const uint8_t *initiates;  /* nranks*nranks: [from*nranks + to] != 0 */
	nm_qp_attr qp;
	/* Work requests a rank keeps posted on each of its passive QPs at once
	 * (a server of messages: its RECV and its reply, 2); 0 for one-sided
	 * traffic, which leaves passive QPs idle. Sizes the passive CQ. */
	int passive_wrs;
	/* Passive QPs serving thread t complete on cq[t], not on passive_cq
	 * (which is then NULL): see the header comment. */
	bool passive_on_thread_cq;
} nm_mesh_cfg;

typedef struct nm_mesh {
	nm_dev *dev;
	int rank, nranks, nthreads, qps;
	struct ibv_cq **cq;        /* per thread */
	struct ibv_cq *passive_cq;
	nm_conn *conn;             /* [(t * nranks + peer) * qps + q] */
	struct ibv_qp **passive;   /* [(peer * nthreads + t) * qps + q] */
	nm_ends *passive_ends;     /* the same index */
	nm_rmr *rmr;               /* every rank's registered memory */
	nm_qp_attr qa, passive_qa; /* as the QPs were connected */
} nm_mesh;

/* Who initiates to whom, from two rank sets as users write them: initiators
 * "all" or a list like "0,2"; targets "all", a list, "others" (the ranks
 * that do not initiate) or "self" (each initiator itself: loopback). Fills
 * initiates[from * nranks + to] and returns the number of pairs, or -1 with
 * one line in err naming the option (--initiators, --targets). */
int nm_mesh_pairs(const char *initiators, const char *targets, int nranks, uint8_t *initiates, char *err,
		  size_t errlen);

/* What nm_mesh_create makes on rank `rank` of `nranks` for c, sized in one
 * place: the mesh's own CQs use it, and so does preflight (nm_mesh_needs). */
typedef struct nm_mesh_size {
	int active, passive;   /* QPs initiating, and serving peers */
	int cqs;               /* one per thread, and the passive one unless passive_on_thread_cq */
	int cqe, pcqe;         /* entries of a thread's CQ and of the passive CQ (before the device's cap) */
} nm_mesh_size;
void nm_mesh_plan(const nm_mesh_cfg *c, int rank, int nranks, nm_mesh_size *out);
/* Adds what the mesh of c creates on that rank to its needs (QPs, CQs, the
 * send queue and CQ depths; CQs are capped at the device's max_cqe when
 * created, so their depth never refuses a point). */
void nm_mesh_needs(const nm_mesh_cfg *c, int rank, int nranks, nm_needs *n);

/* Collective over all ranks. Any failure ends the job with the failing
 * rank's message (nm_boot_check). mr may be NULL on a rank that exposes no
 * memory of its own (its peers see an nm_rmr of zeros). */
void nm_mesh_create(nm_mesh *m, nm_dev *d, const nm_mesh_cfg *c, const nm_mr *mr);
void nm_mesh_destroy(nm_mesh *m);

static inline nm_conn *nm_mesh_conn(const nm_mesh *m, int t, int peer, int q)
{
	return &m->conn[((size_t)t * (size_t)m->nranks + (size_t)peer) * (size_t)m->qps + (size_t)q];
}
static inline size_t nm_mesh_passive_index(const nm_mesh *m, int peer, int t, int q)
{
	return ((size_t)peer * (size_t)m->nthreads + (size_t)t) * (size_t)m->qps + (size_t)q;
}
/* A QP of the mesh in the error state (a failed completion breaks both
 * ends) back to RTS towards the same peer, with the first connection's
 * PSNs: thread t's active QP q to peer, or, passive, the one serving peer's
 * thread t, QP q. Both ends must do it before either posts again. 0, or -1
 * with err. */
int nm_mesh_reconnect(nm_mesh *m, int t, int peer, int q, bool passive, char *err, size_t errlen);
/* QPs this rank created: initiating and serving ones. */
int nm_mesh_qp_count(const nm_mesh *m);
/* The connection of thread t owning local QP number qpn, or NULL. */
nm_conn *nm_mesh_find_qpn(const nm_mesh *m, int t, uint32_t qpn);
#endif
