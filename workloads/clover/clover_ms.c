/* netmem clover's metadata server and its clients' side of the allocation
 * RPC (clover_ms.h). Plain verbs SEND/RECV on the mesh's QPs: a client
 * thread's QP to rank 0 and its passive twin there, one message of each
 * kind in flight per connection (a client thread has one operation
 * outstanding), every call checked. */
#include "clover_ms.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include "rdma.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* wr_id on the server: what completed, and for which connection. */
#define MS_WRID(op, conn) NM_WRID(op, conn)

static int conns(const cl_ms_cfg *c) { return c->clients * c->threads; }
static uint8_t *msg_of(const cl_ms *ms, int i) { return ms->cfg.buf + (size_t)i * CL_MS_MSG_BYTES; }
static int client_rank(const cl_ms *ms, int i) { return ms->cfg.first_client + i / ms->cfg.threads; }
static int client_thread(const cl_ms *ms, int i) { return i % ms->cfg.threads; }

/* Connection i: client rank first_client + i / threads, thread i % threads. */
static struct ibv_qp *passive_qp(const cl_ms *ms, int i)
{
	const nm_mesh *m = ms->cfg.mesh;
	int peer = client_rank(ms, i), t = client_thread(ms, i);
	return m->passive[((size_t)peer * (size_t)m->nthreads + (size_t)t) * (size_t)m->qps];
}

/* ---- the server ------------------------------------------------------------------- */

/* The batch for one ALLOC: up to CL_MS_BATCH slots from the memory node's pool. */
static void grant(cl_ms *ms, uint32_t node, cl_ms_reply *r)
{
	const cl_ms_cfg *c = &ms->cfg;
	int m = (int)node - c->first_mem;
	*r = (cl_ms_reply){0};
	ms->rpcs++;
	if (m < 0 || m >= c->mem_nodes) {
		ms->exhausted++;   /* no such memory node: nothing to give (the client reports it) */
		return;
	}
	while (r->count < CL_MS_BATCH && ms->next[m] + c->slot_bytes <= ms->hi[m]) {
		r->va[r->count++] = ms->next[m];
		ms->next[m] += c->slot_bytes;
	}
	ms->exhausted += r->count == 0;
}

static void reply(cl_ms *ms, int i)
{
	ms->sends[i]++;
	nm_msg_send(passive_qp(ms, i), msg_of(ms, i) + 64, sizeof(cl_ms_reply), ms->cfg.lkey, MS_WRID(NM_OP_SEND, i),
		  "clover: metadata server (rank 0)");
}

static void on_request(cl_ms *ms, int i)
{
	cl_ms_req req;
	memcpy(&req, msg_of(ms, i), sizeof req);
	if (req.kind == CL_MSG_DONE) {
		ms->done++;
		return;
	}
	if (req.kind != CL_MSG_ALLOC)
		nm_fatal("clover: metadata server (rank 0): client rank %d thread %d sent message kind %u",
			 client_rank(ms, i), client_thread(ms, i), req.kind);
	grant(ms, req.node, (cl_ms_reply *)(msg_of(ms, i) + 64));
	/* The next request may come as soon as the client has the reply:
	 * its RECV goes up first. */
	nm_msg_recv(passive_qp(ms, i), msg_of(ms, i), sizeof(cl_ms_req), ms->cfg.lkey, MS_WRID(NM_OP_RECV, i),
		  "clover: metadata server (rank 0)");
	if (ms->sends[i] == 2)
		ms->held[i] = 1;   /* both send entries busy: reply when one completes */
	else
		reply(ms, i);
}

static void on_sent(cl_ms *ms, int i)
{
	ms->sends[i]--;
	if (ms->held[i]) {
		ms->held[i] = 0;
		reply(ms, i);
	}
}

static bool sends_pending(const cl_ms *ms)
{
	for (int i = 0; i < conns(&ms->cfg); i++)
		if (ms->sends[i] || ms->held[i])
			return true;
	return false;
}

/* Polls the passive CQ until every client thread said DONE and every reply
 * went out. An idle server naps (20 us after 1,000 empty polls) so it does
 * not take a core from client threads on the same host; a request then
 * waits at most that long. */
static void *serve(void *arg)
{
	cl_ms *ms = arg;
	struct ibv_cq *cq = ms->cfg.mesh->passive_cq;
	struct ibv_wc wc[16];
	unsigned idle = 0;
	while (ms->done < conns(&ms->cfg) || sends_pending(ms)) {
		int n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			nm_fatal("clover: metadata server (rank 0): ibv_poll_cq failed");
		for (int k = 0; k < n; k++) {
			int i = (int)NM_WRID_PAYLOAD(wc[k].wr_id), op = NM_WRID_OP(wc[k].wr_id);
			if (wc[k].status != IBV_WC_SUCCESS)
				nm_fatal("clover: metadata server (rank 0): %s with client rank %d thread %d failed: %s",
					 nm_op_name(op), client_rank(ms, i), client_thread(ms, i),
					 ibv_wc_status_str(wc[k].status));
			if (op == NM_OP_RECV)
				on_request(ms, i);
			else
				on_sent(ms, i);
		}
		if (n > 0) {
			idle = 0;
		} else if (++idle >= 1000) {
			struct timespec d = {0, 20000};
			nanosleep(&d, NULL);
		}
	}
	return NULL;
}

void cl_ms_start(cl_ms *ms, const cl_ms_cfg *cfg)
{
	*ms = (cl_ms){.cfg = *cfg};
	int n = conns(cfg);
	ms->next = nm_calloc((size_t)cfg->mem_nodes, sizeof *ms->next);
	ms->hi = nm_calloc((size_t)cfg->mem_nodes, sizeof *ms->hi);
	ms->sends = nm_calloc((size_t)n, 1);
	ms->held = nm_calloc((size_t)n, 1);
	for (int m = 0; m < cfg->mem_nodes; m++) {
		ms->next[m] = cfg->pool_lo[m];
		ms->hi[m] = cfg->pool_hi[m];
	}
	ms->cfg.pool_lo = ms->cfg.pool_hi = NULL;   /* the caller's arrays: copied */
	for (int i = 0; i < n; i++)
		nm_msg_recv(passive_qp(ms, i), msg_of(ms, i), sizeof(cl_ms_req), cfg->lkey, MS_WRID(NM_OP_RECV, i),
			  "clover: metadata server (rank 0)");
	int rc = pthread_create(&ms->thread, NULL, serve, ms);
	if (rc)
		nm_fatal("clover: metadata server (rank 0): cannot start its thread: %s", strerror(rc));
}

void cl_ms_join(cl_ms *ms)
{
	pthread_join(ms->thread, NULL);
	free(ms->next);
	free(ms->hi);
	free(ms->sends);
	free(ms->held);
}

/* ---- clients ------------------------------------------------------------------------ */

void cl_ms_ask(nm_conn *c, uint8_t *msg, uint32_t lkey, uint32_t node, uint64_t send_id, uint64_t recv_id)
{
	char who[64];
	snprintf(who, sizeof who, "thread %d, allocation RPC to rank %d", c->thread, c->peer);
	cl_ms_req req = {.kind = CL_MSG_ALLOC, .node = node};
	memcpy(msg, &req, sizeof req);
	nm_msg_recv(c->qp, msg + 64, sizeof(cl_ms_reply), lkey, recv_id, who);
	nm_msg_send(c->qp, msg, sizeof req, lkey, send_id, who);
}

void cl_ms_bye(nm_conn *c, struct ibv_cq *cq, uint8_t *msg, uint32_t lkey, double timeout)
{
	char who[64];
	snprintf(who, sizeof who, "thread %d, DONE to the metadata server (rank %d)", c->thread, c->peer);
	cl_ms_req req = {.kind = CL_MSG_DONE};
	memcpy(msg, &req, sizeof req);
	nm_msg_send(c->qp, msg, sizeof req, lkey, NM_WRID(NM_OP_SEND, 0), who);
	struct ibv_wc wc;
	if (nm_wait_one(cq, &wc, timeout))
		nm_fatal("clover: %s: no completion within %.0f s", who, timeout);
	if (wc.status != IBV_WC_SUCCESS)
		nm_fatal("clover: %s failed: %s", who, ibv_wc_status_str(wc.status));
}
