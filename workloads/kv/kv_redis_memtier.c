/* netmem kv --system redis: the client threads, as memtier_benchmark drives
 * Redis in LOCO's Fig. 5 (Sec. 7.2: "a single Memtier instance with threads
 * equal to the thread count, and 128 clients per thread").
 *
 * Each thread runs --window clients (the paper's 128, which it matches to
 * LOCO's large window) on one event loop (hiredis's asynchronous API on
 * libevent, as memtier runs on libevent). A client has a connection to every
 * instance of the cluster (memtier's cluster mode) and one command in flight
 * (memtier's default pipeline of 1): when its reply arrives, the client
 * sends its next operation to the instance that owns the next key. So a
 * thread has at most --window operations in flight, each started and
 * completed on its own: the paper's "window size".
 *
 * Where memtier differs, and why this keeps one in flight per client:
 * memtier's cluster mode keeps a pipeline of 1 per connection of a client,
 * and queues a key generated for another shard on that shard's connection,
 * so one of its clients can have up to one command per instance in flight.
 * The paper counts 128 clients as a window of 128 operations per thread;
 * one in flight per client is that window.
 *
 * Each client is a writer of its own (RD_CLIENT_WRITER): its writes are
 * one at a time, so its versions (the thread's sequence) grow in the order
 * they land. A thread's reads overlap (kv_load.overlapping_reads): each is
 * compared only with the reads that completed before it began.
 *
 * A command's latency runs from when it is queued on its connection to when
 * its reply is parsed, as in the pipelined series (kv_redis.c). A lost
 * connection, or a reply that does not come within --timeout, ends the job
 * with one line naming rank, thread, instance and operation. */
#include "kv_redis.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "workers.h"
#include <event2/event.h>
#include <hiredis/adapters/libevent.h>
#include <hiredis/async.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mt_client {
	struct mt_thread *t;
	redisAsyncContext **ac;   /* [n_all]: one connection per instance */
	uint32_t writer;          /* this client's writer id (the values it writes carry it) */
	bool busy;                /* a command in flight */
	int inst;                 /* its instance */
	kv_opkind op;
	uint64_t key, t0, wrote;
} mt_client;

typedef struct mt_thread {
	const rd_cluster *cl;
	kv_thread *kt;
	struct event_base *base;
	struct event *tick;       /* the hang check, every 100 ms */
	mt_client *c;             /* [window] */
	redisAsyncContext **ac;   /* [window * n_all] */
	int nac, authed, inflight;
	bool closing;             /* the contexts are being freed: NULL replies are expected */
	uint64_t *val, *rval;
	uint64_t issued, count, deadline, hang_ticks;
} mt_thread;

typedef struct mt_job {
	kv_run *r;
	const rd_cluster *cl;
	mt_thread *th;            /* [T] */
} mt_job;

static const char *const mt_op_name[KV_NOPS] = {"GET", "SET (update)", "SET (insert)", "DEL"};

static const rd_inst *mt_inst_of(const mt_thread *t, const redisAsyncContext *ac)
{
	for (int k = 0; k < t->nac; k++)
		if (t->ac[k] == ac)
			return &t->cl->all[k % t->cl->n_all];
	return NULL;
}

static _Noreturn void mt_lost(const mt_thread *t, const rd_inst *in, const mt_client *c, const char *why)
{
	char what[96] = "no command in flight";
	if (c && c->busy)
		snprintf(what, sizeof what, "a %s of key 0x%016" PRIx64 " in flight", mt_op_name[c->op], c->key);
	nm_fatal("thread %d: redis instance %s:%d: %s, with %s (%d command(s) in flight on the thread)",
		 t->kt ? t->kt->thread : -1, in ? in->host : "?", in ? in->port : 0, why, what, t->inflight);
}

static void mt_disconnected(const redisAsyncContext *ac, int status)
{
	mt_thread *t = ac->data;
	if (t->closing)
		return;
	mt_lost(t, mt_inst_of(t, ac), NULL,
		status == REDIS_OK ? "the server closed the connection" : ac->errstr[0] ? ac->errstr : "connection lost");
}

static void mt_auth_done(redisAsyncContext *ac, void *reply, void *priv)
{
	mt_thread *t = priv;
	const redisReply *r = reply;
	if (!r || t->closing)
		return;
	if (r->type != REDIS_REPLY_STATUS || strcmp(r->str, "OK"))  /* the reply names no secret */
		mt_lost(t, mt_inst_of(t, ac), NULL, r->type == REDIS_REPLY_ERROR ? r->str : "AUTH answered other than OK");
	t->authed++;
}

static void mt_reply(redisAsyncContext *ac, void *reply, void *priv);

static void mt_issue(mt_thread *t, mt_client *c)
{
	const kv_point *p = t->cl->p;
	kv_thread *kt = t->kt;
	uint64_t krank;
	kv_opkind op = kv_next(kt, &krank);
	uint64_t key = kv_key(krank);
	char ks[RD_KEYLEN];
	rd_key_str(key, ks);
	int inst = t->cl->owner[rd_slot(ks, RD_KEYLEN)];
	*c = (mt_client){.t = t, .ac = c->ac, .writer = c->writer, .busy = true, .inst = inst, .op = op, .key = key};
	int rc;
	c->t0 = nm_ticks();
	if (op == KV_GET) {
		rc = redisAsyncCommand(c->ac[inst], mt_reply, c, "GET %b", ks, (size_t)RD_KEYLEN);
	} else {
		kv_value_fill(t->val, p->load.value_words, key, c->writer, ++kt->seq);
		c->wrote = t->val[0];
		rc = redisAsyncCommand(c->ac[inst], mt_reply, c, "SET %b %b", ks, (size_t)RD_KEYLEN, t->val,
				       (size_t)p->load.value_size);
	}
	if (rc != REDIS_OK)
		mt_lost(t, &t->cl->all[inst], c, "cannot queue a command (the connection is closing)");
	t->inflight++;
	t->issued++;
	kt->meter->c[KV_C_RPCS]++;
}

/* The reply to client c's command; then c sends its next operation. */
static void mt_reply(redisAsyncContext *ac, void *reply, void *priv)
{
	mt_client *c = priv;
	mt_thread *t = c->t;
	const redisReply *r = reply;
	(void)ac;
	if (!r || t->closing)
		return;  /* the context is going away: its disconnect callback says why */
	uint64_t t1 = nm_ticks();
	const kv_point *p = t->cl->p;
	kv_thread *kt = t->kt;
	const char *bad = NULL;
	c->busy = false;
	t->inflight--;
	if (r->type == REDIS_REPLY_ERROR)
		bad = r->str;  /* MOVED / ASK: the slot map disagrees; anything else: the server failed it */
	else if (c->op == KV_GET && r->type == REDIS_REPLY_NIL)
		kv_done(kt, c->op, c->key, NULL, false, c->t0, t1);
	else if (c->op == KV_GET && r->type == REDIS_REPLY_STRING && r->len == p->load.value_size) {
		memcpy(t->rval, r->str, r->len);
		kv_done(kt, c->op, c->key, t->rval, true, c->t0, t1);
	} else if (c->op != KV_GET && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"))
		kv_done(kt, c->op, c->key, &c->wrote, true, c->t0, t1);
	else
		bad = c->op == KV_GET ? "a value of the wrong type or length" : "a reply other than OK";
	if (bad) {
		const rd_inst *in = &t->cl->all[c->inst];
		nm_error_note(&kt->meter->err, "rank %d thread %d: %s of key 0x%016" PRIx64 " on %s:%d: %s",
			      kt->rank, kt->thread, mt_op_name[c->op], c->key, in->host, in->port, bad);
	}
	if (t->deadline && t->issued < t->count && t1 >= t->deadline)
		t->count = t->issued;
	if (t->issued < t->count)
		mt_issue(t, c);
}

/* A command that waited longer than --timeout ends the job. */
static void mt_tick(evutil_socket_t fd, short what, void *arg)
{
	mt_thread *t = arg;
	(void)fd;
	(void)what;
	uint64_t now = nm_ticks();
	int W = t->cl->p->window;
	for (int i = 0; i < W; i++) {
		const mt_client *c = &t->c[i];
		if (c->busy && now - c->t0 > t->hang_ticks) {
			char why[96];
			snprintf(why, sizeof why, "no reply within %.0f s (--timeout)", t->cl->timeout);
			mt_lost(t, &t->cl->all[c->inst], c, why);
		}
	}
}

static void mt_thread_setup(nm_worker *w)
{
	mt_job *j = w->arg;
	const rd_cluster *cl = j->cl;
	mt_thread *t = &j->th[w->index];
	int W = cl->p->window;
	t->cl = cl;
	t->kt = kv_run_thread(j->r, w);
	t->hang_ticks = nm_ns_to_ticks((uint64_t)(cl->timeout * 1e9));
	t->val = nm_calloc(cl->p->load.value_words, sizeof *t->val);
	t->rval = nm_calloc(cl->p->load.value_words, sizeof *t->rval);
	if (!(t->base = event_base_new()))
		nm_fatal("thread %d: cannot create an event loop (libevent)", w->index);
	t->tick = event_new(t->base, -1, EV_PERSIST, mt_tick, t);
	struct timeval every = {0, 100000};
	if (!t->tick || event_add(t->tick, &every))
		nm_fatal("thread %d: cannot add the event loop's timer (libevent)", w->index);
	t->c = nm_calloc((size_t)W, sizeof *t->c);
	t->nac = W * cl->n_all;
	t->ac = nm_calloc((size_t)t->nac, sizeof *t->ac);
	for (int i = 0; i < W; i++) {
		t->c[i].t = t;
		t->c[i].writer = RD_CLIENT_WRITER(t->kt->rank, j->r->ctx->base.threads, w->index, W, i);
		t->c[i].ac = &t->ac[(size_t)i * (size_t)cl->n_all];
		for (int k = 0; k < cl->n_all; k++) {
			const rd_inst *in = &cl->all[k];
			redisAsyncContext *ac = redisAsyncConnect(in->host, in->port);
			if (!ac || ac->err)
				nm_fatal("thread %d: redis: cannot connect client %d to instance %s:%d (rank %d's): %s",
					 w->index, i, in->host, in->port, in->rank, ac ? ac->errstr : "out of memory");
			t->c[i].ac[k] = ac;
			ac->data = t;
			if (redisLibeventAttach(ac, t->base) != REDIS_OK ||
			    redisAsyncSetDisconnectCallback(ac, mt_disconnected) != REDIS_OK ||
			    redisAsyncCommand(ac, mt_auth_done, t, "AUTH %s", cl->secret) != REDIS_OK)
				nm_fatal("thread %d: redis: cannot set up client %d's connection to %s:%d", w->index, i,
					 in->host, in->port);
		}
	}
	/* Every connection authenticated before the round starts (not timed). */
	uint64_t until = nm_ticks() + t->hang_ticks;
	while (t->authed < t->nac) {
		event_base_loop(t->base, EVLOOP_ONCE);
		if (t->authed < t->nac && nm_ticks() > until)
			nm_fatal("thread %d: redis: %d of %d connections authenticated within %.0f s (--timeout)",
				 w->index, t->authed, t->nac, cl->timeout);
	}
}

/* Issues `count` operations (stopping early at `deadline`, 0: none), one in
 * flight per client, and waits for all of them (nm_window_phase). */
static uint64_t mt_phase(void *arg, uint64_t count, uint64_t deadline)
{
	mt_thread *t = arg;
	int W = t->cl->p->window;
	t->issued = 0;
	t->count = count;
	t->deadline = deadline;
	for (int i = 0; i < W && t->issued < t->count; i++)
		mt_issue(t, &t->c[i]);
	while (t->inflight > 0)
		if (event_base_loop(t->base, EVLOOP_ONCE) < 0)
			nm_fatal("thread %d: the event loop failed (libevent)", t->kt->thread);
	return nm_ticks();
}

static void mt_thread_body(nm_worker *w)
{
	mt_job *j = w->arg;
	nm_window_run(w->meter, mt_phase, &j->th[w->index]);
}

static void mt_thread_free(mt_thread *t)
{
	t->closing = true;
	for (int k = 0; t->ac && k < t->nac; k++)
		if (t->ac[k])
			redisAsyncFree(t->ac[k]);
	if (t->tick)
		event_free(t->tick);
	if (t->base)
		event_base_free(t->base);
	free(t->ac);
	free(t->c);
	free(t->val);
	free(t->rval);
}

void rd_memtier_round(kv_run *r, const rd_cluster *cl)
{
	int T = r->ctx->base.threads;
	mt_job j = {.r = r, .cl = cl, .th = nm_calloc((size_t)T, sizeof(mt_thread))};
	nm_round round = {.workers = T, .numa_node = r->ctx->base.mem_node, .setup = mt_thread_setup,
			  .body = mt_thread_body, .arg = &j, .measure = r->ms};
	nm_workers_run(&round);
	for (int t = 0; t < T; t++)
		mt_thread_free(&j.th[t]);
	free(j.th);
}
