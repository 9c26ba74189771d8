/* netmem corm's verbs: the heap's registration hooks, the server's RPC
 * workers and the clients' operations over the harness's mesh (corm.h). The
 * device probe is workloads/corm/corm_probe.c. */
#include "corm.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include "workers.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *const corm_rpc_names[CORM_NRPC] = {"alloc", "read", "write", "free", "release", "nop", "reconnect"};

#define ACCESS CORM_ACCESS

/* ---- the heap's hooks ---- */

static int hook_reg(void *arg, void *va, size_t len, void **mr, uint32_t *rkey, char *err, size_t errlen)
{
	corm_nicctx *n = arg;
	int odp = n->strat == CORM_STRAT_ODP || n->strat == CORM_STRAT_ODP_PREFETCH;
	struct ibv_mr *m = ibv_reg_mr(n->dev->pd, va, len, ACCESS | (odp ? IBV_ACCESS_ON_DEMAND : 0));
	if (!m)
		return nm_errf(err, errlen, "ibv_reg_mr(block, %zu bytes%s): %s", len, odp ? ", ODP" : "", strerror(errno));
	*mr = m;
	*rkey = m->rkey;
	return 0;
}

static void hook_dereg(void *arg, void *mr)
{
	(void)arg;
	ibv_dereg_mr(mr);
}

/* --inject new-rkey: the VA registered afresh (the new MR before the old
 * one goes, so its key differs), as a NIC whose ibv_rereg_mr hands back
 * another key; the heap then publishes it. */
static int new_key(corm_nicctx *n, void **mrp, void *va, size_t len, uint32_t *rkey, char *err, size_t errlen)
{
	int odp = n->strat == CORM_STRAT_ODP || n->strat == CORM_STRAT_ODP_PREFETCH;
	struct ibv_mr *fresh = ibv_reg_mr(n->dev->pd, va, len, ACCESS | (odp ? IBV_ACCESS_ON_DEMAND : 0));
	if (!fresh)
		return nm_errf(err, errlen, "ibv_reg_mr(remapped block, %zu bytes): %s", len, strerror(errno));
	ibv_dereg_mr(*mrp);
	*mrp = fresh;
	*rkey = fresh->rkey;
	return 0;
}

static int hook_remap(void *arg, void **mrp, void *va, size_t len, uint32_t *rkey, char *err, size_t errlen)
{
	corm_nicctx *n = arg;
	struct ibv_mr *m = *mrp;
	if (n->new_key)
		return new_key(n, mrp, va, len, rkey, err, errlen);
	if (n->strat == CORM_STRAT_REREG) {
		if (ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, va, len, ACCESS))
			return nm_errf(err, errlen, "ibv_rereg_mr: %s", strerror(errno));
		*rkey = m->rkey; /* the same on mlx4 and rxe, a new one on ConnectX-4 and later */
	} else if (n->strat == CORM_STRAT_ODP_PREFETCH) {
		struct ibv_sge sge = {.addr = (uintptr_t)va, .length = (uint32_t)len, .lkey = m->lkey};
		int rc = ibv_advise_mr(n->dev->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		if (rc)
			return nm_errf(err, errlen, "ibv_advise_mr: %s", strerror(rc));
	}
	return 0; /* ODP: the mmap's invalidation is enough */
}

cmem_nic corm_nic_hooks(corm_nicctx *n)
{
	return (cmem_nic){.arg = n, .reg = hook_reg, .dereg = hook_dereg, .remap = hook_remap};
}

/* ---- completions ---- */

/* One completion on cq, whatever its status; none within `timeout` seconds
 * ends the job. */
static void poll_wc(struct ibv_cq *cq, struct ibv_wc *wc, double timeout, bool yield, const char *what)
{
	if (nm_wait_one_yield(cq, wc, timeout, yield))
		nm_fatal("corm: no completion for %s from the server (rank 0) within %.0f s", what, timeout);
}

/* One completion; a failed one ends the job. */
static void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, double timeout, bool yield, const char *what)
{
	poll_wc(cq, wc, timeout, yield, what);
	if (wc->status != IBV_WC_SUCCESS)
		nm_fatal("corm: %s to the server (rank 0) failed: %s (status %d, QP %u)", what,
			 ibv_wc_status_str(wc->status), wc->status, wc->qp_num);
}

/* ---- server ---- */

/* Connection i serves client rank peer's thread t, on worker t % workers
 * (the authors pin each client connection to one worker). */
typedef struct srv_conn {
	struct ibv_qp *qp;             /* its RPCs */
	struct ibv_qp *rqp;            /* the client's READs arrive here */
	int peer, thread;
	uint8_t *send, *recv;
} srv_conn;

typedef struct srv_worker {
	corm_server *s;
	int index;
	int ncq;
	struct ibv_cq **cq;            /* the mesh's CQs of threads index, index + workers, ... */
	pthread_t th;
} srv_worker;

struct corm_server {
	nm_mesh *mesh;
	cmem_heap *heap;
	int nworkers, nconn;
	srv_worker *w;
	srv_conn *c;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t msg_bytes;
	bool yield;                 /* idle workers yield (an oversubscribed host) */
	int host_busy, host_cpus;   /* this host's busy-polling threads, and its CPUs */
	int ranks_yielding;         /* ranks whose host is oversubscribed */
	atomic_bool stop;
	atomic_int entered;   /* workers serving (or gone, without a connection) */
	/* a job worker 0 runs from its serving loop (corm_server_on_worker0) */
	void (*task)(void *);
	void *task_arg;
	atomic_int task_state;   /* 0 none, 1 posted, 2 done */
};

/* The server's end of connection i's READ QP back to RTS; the client asks
 * before it resets its own end, so no READ reaches a QP in error. */
static corm_status reconnect_read_qp(corm_server *s, int i)
{
	char err[256];
	srv_conn *c = &s->c[i];
	/* The client heard the NAK; this end enters the error state just after
	 * sending it, and a reset before that would be undone (seen under rxe on
	 * a loaded host: INIT refused with EINVAL). A device that leaves the
	 * responder in RTS is reset after the wait, as before. */
	struct ibv_qp *qp = s->mesh->passive[nm_mesh_passive_index(s->mesh, c->peer, c->thread, CORM_QP_READ)];
	if (nm_qp_await_state(qp, IBV_QPS_ERR, 2000, err, sizeof err) < 0 ||
	    nm_mesh_reconnect(s->mesh, c->thread, c->peer, CORM_QP_READ, true, err, sizeof err)) {
		nm_warn("corm server: connection %d: %s", i, err);
		return CORM_E_NIC;
	}
	return CORM_OK;
}

static uint32_t serve(corm_server *s, int worker, int conn, const corm_msg *q, corm_msg *r)
{
	cmem_heap *h = s->heap;
	uint32_t max = s->msg_bytes - (uint32_t)sizeof(corm_msg);
	corm_status st = CORM_OK;
	*r = (corm_msg){.op = q->op, .ptr = q->ptr};
	switch ((corm_rpc_op)q->op) {
	case CORM_RPC_ALLOC:
		st = cmem_alloc(h, worker, q->user, q->data, q->len < max ? q->len : max, &r->ptr);
		break;
	case CORM_RPC_READ:
		if (r->ptr.cls >= h->cls.n) {
			st = CORM_E_NOTFOUND;
			break;
		}
		r->len = cmem_capacity(h, r->ptr.cls);
		if (r->len > max)
			r->len = max;
		st = cmem_read(h, &r->ptr, r->data, r->len, &r->version);
		break;
	case CORM_RPC_WRITE:
		st = cmem_write(h, &r->ptr, q->data, q->len < max ? q->len : max, &r->version);
		break;
	case CORM_RPC_FREE:
		st = cmem_free(h, &r->ptr);
		break;
	case CORM_RPC_RELEASE:
		st = cmem_release(h, &r->ptr);
		break;
	case CORM_RPC_RECONNECT:
		st = reconnect_read_qp(s, conn);
		break;
	default:
		break;
	}
	r->status = (uint8_t)st;
	if (st != CORM_OK)
		r->len = 0;
	return (uint32_t)sizeof(corm_msg) + r->len;
}

static void *srv_main(void *arg)
{
	srv_worker *w = arg;
	corm_server *s = w->s;
	struct ibv_wc wc[16];
	unsigned idle = 0;
	if (!w->ncq) {   /* more workers than client threads: no connection is pinned to this one */
		atomic_fetch_add(&s->entered, 1);
		return NULL;   /* (its mailbox stays closed: its blocks are collected directly) */
	}
	cmem_thread_enter(s->heap, w->index);
	atomic_fetch_add(&s->entered, 1);
	for (int k = 0; !atomic_load_explicit(&s->stop, memory_order_relaxed); k = (k + 1) % w->ncq) {
		cmem_serve(s->heap, w->index);
		if (w->index == 0 && atomic_load_explicit(&s->task_state, memory_order_acquire) == 1) {
			s->task(s->task_arg);   /* its own connections wait meanwhile */
			atomic_store_explicit(&s->task_state, 2, memory_order_release);
		}
		int n = ibv_poll_cq(w->cq[k], 16, wc);
		if (n < 0)
			nm_fatal("corm server: ibv_poll_cq failed");
		if (n == 0 && s->yield && ++idle % NM_WAIT_YIELD_POLLS == 0)
			sched_yield();
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				nm_fatal("corm server worker %d: %s failed: %s", w->index,
					 wc[i].opcode == IBV_WC_RECV ? "RECV" : "SEND", ibv_wc_status_str(wc[i].status));
			if (wc[i].opcode != IBV_WC_RECV)
				continue;
			srv_conn *c = &s->c[wc[i].wr_id];
			uint32_t len = serve(s, w->index, (int)wc[i].wr_id, (corm_msg *)c->recv, (corm_msg *)c->send);
			/* The client sends its next request only after this reply:
			 * one receive per connection is enough if it is posted
			 * before the reply. */
			nm_msg_recv(c->qp, c->recv, s->msg_bytes, s->mr->lkey, wc[i].wr_id, "corm server");
			nm_msg_send(c->qp, c->send, len, s->mr->lkey, wc[i].wr_id, "corm server");
		}
	}
	cmem_thread_leave(s->heap, w->index);
	return NULL;
}

/* Returns once every worker serves its mailbox, so the first collection
 * reaches them all. */
void corm_server_start(corm_server *s)
{
	atomic_store(&s->stop, false);
	atomic_store(&s->entered, 0);
	for (int i = 0; i < s->nworkers; i++)
		if (pthread_create(&s->w[i].th, NULL, srv_main, &s->w[i]))
			nm_fatal("corm server: pthread_create failed");
	while (atomic_load(&s->entered) < s->nworkers)
		sched_yield();
}

bool corm_server_on_worker0(corm_server *s, void (*fn)(void *), void *arg)
{
	if (s->nworkers < 1 || !s->w[0].ncq)
		return false;   /* worker 0 serves no connection: it has left */
	s->task = fn;
	s->task_arg = arg;
	atomic_store_explicit(&s->task_state, 1, memory_order_release);
	while (atomic_load_explicit(&s->task_state, memory_order_acquire) != 2)
		nm_nap_ns(1000000u);
	atomic_store_explicit(&s->task_state, 0, memory_order_relaxed);
	return true;
}

void corm_server_stop(corm_server *s)
{
	atomic_store(&s->stop, true);
	for (int i = 0; i < s->nworkers; i++)
		pthread_join(s->w[i].th, NULL);
}

void corm_server_free(corm_server *s)
{
	nm_mesh_destroy(s->mesh);
	free(s->mesh);
	ibv_dereg_mr(s->mr);
	free(s->buf);
	free(s->c);
	for (int i = 0; i < s->nworkers; i++)
		free(s->w[i].cq);
	free(s->w);
	free(s);
}

void corm_client_free(corm_client *cl)
{
	nm_mesh_destroy(cl->mesh);
	free(cl->mesh);
	for (int i = 0; i < cl->n; i++) {
		if (cl->c[i].mr)
			ibv_dereg_mr(cl->c[i].mr);
		free(cl->c[i].buf);
	}
	free(cl->c);
	free(cl);
}

/* The harness's mesh as a star: every client rank's thread t has its two
 * QPs (CORM_QP_RPC, CORM_QP_READ) to the server, whose passive ends for
 * thread t complete on the CQ of its worker t. */
static nm_mesh_cfg star_cfg(const nm_qp_attr *qa, int T, int R, uint8_t *to_server)
{
	for (int r = 1; r < R; r++)
		to_server[r * R] = 1;
	/* on the RPC QP a server keeps a RECV and its reply posted */
	nm_mesh_cfg mc = {.nthreads = T, .qps = CORM_NQP, .initiates = to_server, .qp = *qa, .passive_wrs = 2,
			  .passive_on_thread_cq = true};
	return mc;
}

static nm_mesh *star(nm_dev *d, const nm_qp_attr *qa, int T)
{
	int R = nm_boot_size();
	uint8_t *to_server = nm_calloc((size_t)R * (size_t)R, 1);
	nm_mesh_cfg mc = star_cfg(qa, T, R, to_server);
	nm_mesh *m = nm_calloc(1, sizeof *m);
	nm_mesh_create(m, d, &mc, NULL);
	free(to_server);
	return m;
}

/* One message of msg_max payload bytes, padded to a cache line. */
static uint32_t msg_len(uint32_t msg_max) { return (uint32_t)nm_align64(sizeof(corm_msg) + msg_max); }

/* The server's message buffers: a send and a receive message per connection. */
static size_t srv_buf_len(int nconn, uint32_t msg) { return (size_t)(nconn ? nconn : 1) * 2 * msg; }

/* A client thread's buffer: a request, a reply and a block to READ into. */
static size_t cli_buf_len(uint32_t msg, uint32_t block_size) { return 2 * (size_t)msg + block_size; }

uint32_t corm_msg_max(const corm_classes *cls, uint32_t size)
{
	for (int i = 0; i < cls->n; i++)
		if (corm_slot_capacity(cls->size[i]) >= size)
			return corm_slot_capacity(cls->size[i]);
	return 0;
}

int corm_server_memlock(const cmem_heap *h, corm_remap strat, int nconn, uint64_t per_thread, uint32_t size, char *err,
			size_t errlen)
{
	bool odp = strat == CORM_STRAT_ODP || strat == CORM_STRAT_ODP_PREFETCH;
	uint64_t need = (odp ? 0 : cmem_reg_bytes(h, size, per_thread)) +
			srv_buf_len(nconn, msg_len(corm_msg_max(&h->cls, size)));
	char what[160];
	snprintf(what, sizeof what, "corm's server (%d heap threads of %llu objects of %u bytes, strategy %s)",
		 h->cfg.threads, (unsigned long long)per_thread, size, corm_remap_names[strat]);
	return nm_memlock_check(need, what, err, errlen);
}

/* Rank 0: connection i serves client rank 1 + i / T, thread i % T; a RECV
 * posted on each; worker w polls the CQs of client threads w, w + W, ...
 * NULL, or what failed. */
static const char *server_new(corm_server **out, nm_dev *d, nm_mesh *mesh, cmem_heap *heap, int T, int W, uint32_t msg)
{
	corm_server *s = nm_calloc(1, sizeof *s);
	*out = s;
	s->mesh = mesh;
	s->heap = heap;
	s->nworkers = W;
	s->nconn = (mesh->nranks - 1) * T;
	s->msg_bytes = msg;
	s->w = nm_calloc((size_t)W, sizeof *s->w);
	s->c = nm_calloc((size_t)(s->nconn ? s->nconn : 1), sizeof *s->c);
	size_t len = srv_buf_len(s->nconn, msg);
	s->buf = nm_calloc(1, len);
	s->mr = ibv_reg_mr(d->pd, s->buf, len, ACCESS);
	if (!s->mr)
		return "ibv_reg_mr(server buffers) failed";
	for (int w = 0; w < W; w++) {
		s->w[w] = (srv_worker){.s = s, .index = w, .cq = nm_calloc((size_t)(T / W + 1), sizeof(struct ibv_cq *))};
		for (int t = w; t < T; t += W)
			s->w[w].cq[s->w[w].ncq++] = mesh->cq[t];
	}
	for (int i = 0; i < s->nconn; i++) {
		srv_conn *c = &s->c[i];
		c->peer = 1 + i / T;
		c->thread = i % T;
		c->qp = mesh->passive[nm_mesh_passive_index(mesh, c->peer, c->thread, CORM_QP_RPC)];
		c->rqp = mesh->passive[nm_mesh_passive_index(mesh, c->peer, c->thread, CORM_QP_READ)];
		c->send = s->buf + (size_t)i * 2 * msg;
		c->recv = c->send + msg;
		nm_msg_recv(c->qp, c->recv, msg, s->mr->lkey, (uint64_t)i, "corm server");
	}
	return NULL;
}

/* A client rank: thread t's buffers and its two QPs to the server. NULL, or
 * what failed. */
static const char *client_new(corm_client **out, nm_dev *d, nm_mesh *mesh, int T, uint32_t msg, uint32_t block_size,
			      const corm_classes *cls)
{
	corm_client *cl = nm_calloc(1, sizeof *cl);
	*out = cl;
	cl->n = T;
	cl->mesh = mesh;
	cl->c = nm_calloc((size_t)T, sizeof *cl->c);
	for (int t = 0; t < T; t++) {
		corm_conn *c = &cl->c[t];
		size_t len = cli_buf_len(msg, block_size);
		c->buf = nm_calloc(1, len);
		c->req = (corm_msg *)c->buf;
		c->rep = (corm_msg *)(c->buf + msg);
		c->rd = c->buf + 2 * msg;
		c->msg_bytes = msg;
		c->block_size = block_size;
		c->cls = cls;
		c->mesh = mesh;
		c->thread = t;
		c->qp = nm_mesh_conn(mesh, t, 0, CORM_QP_RPC)->qp;
		c->rqp = nm_mesh_conn(mesh, t, 0, CORM_QP_READ)->qp;
		c->cq = mesh->cq[t];
		c->mr = ibv_reg_mr(d->pd, c->buf, len, ACCESS);
		if (!c->mr)
			return "ibv_reg_mr(client buffers) failed";
	}
	return NULL;
}

/* The RPC and READ QPs' attributes: a few requests in flight, messages
 * never inline, RNR retried (a server re-posts its RECV after replying). */
static nm_qp_attr net_qa(const nm_qp_attr *qa_in)
{
	nm_qp_attr qa = *qa_in;
	qa.sq_depth = 8;
	qa.max_inline = 0;
	qa.rnr_retry = 7;
	return qa;
}

void corm_net_needs(const nm_qp_attr *qa_in, int T, int R, int rank, uint32_t msg_max, uint32_t block_size,
		    nm_needs *n)
{
	nm_qp_attr qa = net_qa(qa_in);
	uint8_t *to_server = nm_calloc((size_t)R * (size_t)R, 1);
	nm_mesh_cfg mc = star_cfg(&qa, T, R, to_server);
	nm_mesh_needs(&mc, rank, R, n);
	free(to_server);
	uint32_t msg = msg_len(msg_max);
	if (rank == 0)
		nm_mr_needs(n, srv_buf_len((R - 1) * T, msg), false, false);
	for (int t = 0; rank != 0 && t < T; t++)
		nm_mr_needs(n, cli_buf_len(msg, block_size), false, false);
}

void corm_net_setup(nm_dev *d, const nm_qp_attr *qa_in, int T, int workers, uint32_t msg_max, uint32_t block_size,
		    cmem_heap *heap, const corm_classes *cls, corm_server **srv, corm_client **cli)
{
	nm_qp_attr qa = net_qa(qa_in);
	uint32_t msg = msg_len(msg_max);
	nm_mesh *mesh = star(d, &qa, T);
	*srv = NULL;
	*cli = NULL;
	int W = workers ? workers : T;
	const char *fail = nm_boot_rank() == 0 ? server_new(srv, d, mesh, heap, T, W, msg)
					       : client_new(cli, d, mesh, T, msg, block_size, cls);
	nm_boot_check(fail, NM_EXIT_FAIL);
	/* The server's workers and the client threads busy-poll; where they
	 * outnumber the host's CPUs, RPC waits and idle workers yield. */
	int busy, cpus;
	bool yield = nm_host_oversubscribed(nm_boot_rank() == 0 ? W : T, &busy, &cpus);
	int yielding = (int)nm_boot_sum_u64(yield);
	if (*srv) {
		(*srv)->yield = yield;
		(*srv)->host_busy = busy;
		(*srv)->host_cpus = cpus;
		(*srv)->ranks_yielding = yielding;
	}
	for (int t = 0; *cli && t < (*cli)->n; t++)
		(*cli)->c[t].yield = yield;
	/* the server's RECVs are posted before any client sends */
	nm_boot_barrier();
}

json_t *corm_server_waits(const corm_server *s)
{
	char how[80] = "spin";
	if (s->yield)
		snprintf(how, sizeof how, "spin, yielding every %d empty polls (host oversubscribed)", NM_WAIT_YIELD_POLLS);
	return json_pack("{s:s, s:i, s:i, s:i}", "rpc_wait", how, "host_busy_threads", s->host_busy, "host_cpus", s->host_cpus, "ranks_yielding",
			 s->ranks_yielding);
}

/* ---- client ---- */

corm_status corm_rpc(corm_conn *c, corm_rpc_op op, corm_ptr *p, uint32_t user, const void *in, size_t n, void *out,
		     size_t outn)
{
	struct ibv_wc wc;
	size_t max = c->msg_bytes - sizeof(corm_msg);
	if (n > max)
		n = max;
	*c->req = (corm_msg){.op = (uint8_t)op, .len = (uint32_t)n, .user = user};
	if (p)
		c->req->ptr = *p;
	if (n)
		memcpy(c->req->data, in, n);
	nm_msg_recv(c->qp, c->rep, c->msg_bytes, c->mr->lkey, 1, "corm client");
	nm_msg_send(c->qp, c->req, (uint32_t)(sizeof(corm_msg) + n), c->mr->lkey, 0, "corm client");
	/* the SEND's and the reply's completions, in either order */
	for (int got = 0; got < 2; got++)
		wait_wc(c->cq, &wc, c->timeout, c->yield, corm_rpc_names[op]);
	if (c->rep->status == CORM_OK && p)
		*p = c->rep->ptr;
	if (out && c->rep->status == CORM_OK)
		memcpy(out, c->rep->data, c->rep->len < outn ? c->rep->len : outn);
	return (corm_status)c->rep->status;
}

/* After a refused READ both ends of the READ QP are in error (the
 * responder NAKed it): the server resets its end first, over the RPC QP,
 * then this end, so the next READ meets two QPs in RTS. */
static void recover_read_qp(corm_conn *c)
{
	char err[256];
	/* The refused READ's error completion comes before this end enters the
	 * error state (rxe's completer: the CQE, then the QP error), and a reset
	 * before that is undone: INIT refused with EINVAL (seen under rxe on a
	 * loaded host once RPCs stopped waiting for time slices). As on the
	 * server's end: wait for the error state, then reset. */
	if (nm_qp_await_state(c->rqp, IBV_QPS_ERR, 2000, err, sizeof err) < 0)
		nm_fatal("corm: recovering the READ QP after a refused READ: %s", err);
	if (corm_rpc(c, CORM_RPC_RECONNECT, NULL, 0, NULL, 0, NULL, 0) != CORM_OK)
		nm_fatal("corm: the server (rank 0) could not reset its end of READ QP %u (see its warning)",
			 nm_mesh_conn(c->mesh, c->thread, 0, CORM_QP_READ)->ends.remote.qpn);
	if (nm_mesh_reconnect(c->mesh, c->thread, 0, CORM_QP_READ, false, err, sizeof err))
		nm_fatal("corm: recovering the READ QP after a refused READ: %s", err);
}

int corm_raw_read(corm_conn *c, uint64_t addr, uint32_t rkey, uint32_t len)
{
	struct ibv_wc wc;
	nm_msg_read(c->rqp, c->rd, len, c->mr->lkey, addr, rkey, 2, "corm client");
	poll_wc(c->cq, &wc, c->timeout, false, "RDMA READ");
	if (wc.status == IBV_WC_SUCCESS)
		return 0;
	if (wc.status == IBV_WC_REM_ACCESS_ERR && c->refusal_ok) {
		recover_read_qp(c);
		return CORM_READ_REFUSED;
	}
	nm_fatal("corm: RDMA READ of %u bytes at 0x%" PRIx64 " (rkey 0x%x) from the server (rank 0) failed: %s (status %d)",
		 len, addr, rkey, ibv_wc_status_str(wc.status), wc.status);
}

corm_slot_state corm_direct_read(corm_conn *c, corm_ptr *p, corm_check chk, void *out, size_t n)
{
	uint32_t ss = c->cls->size[p->cls];
	if (corm_raw_read(c, p->addr, p->rkey, ss))
		return CORM_SLOT_REFUSED;
	uint8_t v;
	corm_slot_state st;
	if (chk == CORM_CHECK_ID) {
		st = corm_slot_check(c->rd, p->addr, ss, p->id, out, n, &v);
	} else if (chk == CORM_CHECK_FARM) {
		st = corm_slot_check_farm(c->rd, p->addr, ss, out, n, &v);
	} else {
		/* raw: the bytes as they are (the caller's payload check judges them) */
		uint64_t h;
		memcpy(&h, c->rd, sizeof h);
		v = corm_h_version(h);
		corm_slot_read(c->rd, p->addr, ss, out, n);
		st = CORM_SLOT_OK;
	}
	if (st == CORM_SLOT_OK)
		p->version = v;
	return st;
}

corm_slot_state corm_scan_read(corm_conn *c, corm_ptr *p, void *out, size_t n)
{
	uint64_t base = corm_ptr_base(p, c->block_size);
	uint32_t ss = c->cls->size[p->cls];
	if (corm_raw_read(c, base, p->rkey, c->block_size))
		return CORM_SLOT_REFUSED;
	int64_t off = corm_block_find(c->rd, ss, c->cls->slots[p->cls], p->id);
	if (off < 0)
		return CORM_SLOT_NOT_FOUND;
	uint8_t v;
	corm_slot_state st = corm_slot_check(c->rd + off, base + (uint64_t)off, ss, p->id, out, n, &v);
	if (st == CORM_SLOT_OK) {
		p->addr = base + (uint64_t)off;
		p->version = v;
	}
	return st;
}
