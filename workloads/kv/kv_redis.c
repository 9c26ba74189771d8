/* netmem kv --system redis and redis-pipelined: the Redis baseline of LOCO's
 * Fig. 5, a real Redis Cluster of Debian's redis-server driven through
 * hiredis. Here: the point, and the pipelined client threads; the paper's
 * client (memtier's, --system redis) is in kv_redis_memtier.c, the servers'
 * life cycle in kv_redis_cluster.c.
 *
 * Pipelined clients (--system redis-pipelined, an extra series): each
 * thread has one hiredis connection per instance (every instance of
 * every node), authenticated with the point's secret (kv_redis_cluster.c:
 * rd_connect), and pipelines up to --window commands, all connections
 * together, each started and completed on its own: GET, or SET for updates
 * and inserts. Replies come in order per connection, read without blocking
 * with poll() over the thread's connections. A key is the 16 hex digits of
 * its 64-bit key (kv.h); a value is --value-size bytes of kv_value_fill
 * words (writer rank << 8 | thread, the writer's own sequence as version),
 * sent as binary. A command's latency runs from when it is appended to the
 * connection's buffer (then flushed at once) to when its reply is parsed.
 *
 * Errors: a lost connection, or no reply within --timeout, ends the job with
 * one line naming rank, thread, instance and operation; the servers are
 * killed on the way out. */
#include "kv_redis.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "workers.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---- client threads ---------------------------------------------------------------- */

typedef struct rd_pending {   /* one command in flight */
	uint64_t key, t0;
	uint64_t wrote;           /* a SET's first value word, for the history */
	kv_opkind op;
} rd_pending;

typedef struct rd_conn {
	redisContext *c;
	const rd_inst *in;
	rd_pending *q;            /* FIFO ring of --window */
	uint32_t head, n;
} rd_conn;

typedef struct rd_thread {
	struct rd_job *j;
	kv_thread *kt;
	rd_conn *conn;            /* [n_all] */
	struct pollfd *pfd;
	int *pconn;
	uint64_t *val, *rval;     /* a value to write; a value read */
	int inflight;
	uint64_t hang_ticks;
} rd_thread;

typedef struct rd_job {
	kv_run *r;
	rd_cluster *cl;
	rd_thread *th;            /* [T] */
} rd_job;

static const char *const rd_op_name[KV_NOPS] = {"GET", "SET (update)", "SET (insert)", "DEL"};

static void rd_thread_setup(nm_worker *w)
{
	rd_job *j = w->arg;
	rd_cluster *cl = j->cl;
	rd_thread *t = &j->th[w->index];
	char err[512];
	t->j = j;
	t->kt = kv_run_thread(j->r, w);
	t->conn = nm_calloc((size_t)cl->n_all, sizeof *t->conn);
	t->pfd = nm_calloc((size_t)cl->n_all, sizeof *t->pfd);
	t->pconn = nm_calloc((size_t)cl->n_all, sizeof *t->pconn);
	t->val = nm_calloc(cl->p->load.value_words, sizeof *t->val);
	t->rval = nm_calloc(cl->p->load.value_words, sizeof *t->rval);
	t->hang_ticks = nm_ns_to_ticks((uint64_t)(cl->timeout * 1e9));
	for (int k = 0; k < cl->n_all; k++) {
		rd_conn *c = &t->conn[k];
		c->in = &cl->all[k];
		c->q = nm_calloc((size_t)cl->p->window, sizeof *c->q);
		if (!(c->c = rd_connect(cl, c->in, err, sizeof err)))
			nm_fatal("thread %d: %s", w->index, err);
		/* Non-blocking from here: hiredis then returns on EAGAIN instead of
		 * waiting, and poll() below waits for all connections at once. */
		fcntl(c->c->fd, F_SETFL, fcntl(c->c->fd, F_GETFL) | O_NONBLOCK);
		c->c->flags &= ~REDIS_BLOCK;
	}
}

static _Noreturn void rd_lost(const kv_thread *kt, const rd_conn *c, const char *why)
{
	const rd_pending *o = &c->q[c->head];
	char key[32] = "";
	if (c->n)
		snprintf(key, sizeof key, " of key 0x%016" PRIx64, o->key);
	nm_fatal("thread %d: redis instance %s:%d: %s, with %u command(s) in flight (the oldest a %s%s)",
		 kt->thread, c->in->host, c->in->port, why, c->n, c->n ? rd_op_name[o->op] : "-", key);
}

static void rd_issue(rd_job *j, rd_thread *t, kv_thread *kt)
{
	const kv_point *p = j->cl->p;
	uint64_t krank;
	kv_opkind op = kv_next(kt, &krank);
	uint64_t key = kv_key(krank);
	char ks[RD_KEYLEN];
	rd_key_str(key, ks);
	rd_conn *c = &t->conn[j->cl->owner[rd_slot(ks, RD_KEYLEN)]];
	int rc;
	if (op == KV_GET) {
		rc = redisAppendCommand(c->c, "GET %b", ks, (size_t)RD_KEYLEN);
	} else {
		kv_value_fill(t->val, p->load.value_words, key, kt->writer, ++kt->seq);
		rc = redisAppendCommand(c->c, "SET %b %b", ks, (size_t)RD_KEYLEN, t->val, (size_t)p->load.value_size);
	}
	if (rc != REDIS_OK)
		rd_lost(kt, c, "cannot queue a command (out of memory)");
	c->q[(c->head + c->n++) % (uint32_t)p->window] =
		(rd_pending){.key = key, .t0 = nm_ticks(), .op = op, .wrote = op == KV_GET ? 0 : t->val[0]};
	t->inflight++;
	kt->meter->c[KV_C_RPCS]++;
}

/* A reply to the oldest command of connection c. */
static void rd_complete(rd_job *j, rd_thread *t, kv_thread *kt, rd_conn *c, const redisReply *r)
{
	const kv_point *p = j->cl->p;
	rd_pending o = c->q[c->head];
	c->head = (c->head + 1) % (uint32_t)p->window;
	c->n--;
	t->inflight--;
	uint64_t t1 = nm_ticks();
	const char *bad = NULL;
	if (r->type == REDIS_REPLY_ERROR)
		bad = r->str;  /* MOVED / ASK: the slot map disagrees; anything else: the server failed it */
	else if (o.op == KV_GET && r->type == REDIS_REPLY_NIL)
		kv_done(kt, o.op, o.key, NULL, false, o.t0, t1);
	else if (o.op == KV_GET && r->type == REDIS_REPLY_STRING && r->len == p->load.value_size) {
		memcpy(t->rval, r->str, r->len);
		kv_done(kt, o.op, o.key, t->rval, true, o.t0, t1);
	} else if (o.op != KV_GET && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"))
		kv_done(kt, o.op, o.key, &o.wrote, true, o.t0, t1);
	else
		bad = o.op == KV_GET ? "a value of the wrong type or length" : "a reply other than OK";
	if (bad)
		nm_error_note(&kt->meter->err, "rank %d thread %d: %s of key 0x%016" PRIx64 " on %s:%d: %s",
			      kt->rank, kt->thread, rd_op_name[o.op], o.key, c->in->host, c->in->port, bad);
}

/* Writes what the socket takes now of the connection's queued commands. */
static void rd_flush_conn(kv_thread *kt, rd_conn *c)
{
	int done = 1;
	if (sdslen(c->c->obuf) && redisBufferWrite(c->c, &done) != REDIS_OK)
		rd_lost(kt, c, c->c->errstr[0] ? c->c->errstr : "write failed");
}

static void rd_flush(rd_thread *t, kv_thread *kt, int n)
{
	for (int k = 0; k < n; k++)
		rd_flush_conn(kt, &t->conn[k]);
}

static void rd_read(rd_job *j, rd_thread *t, kv_thread *kt, rd_conn *c)
{
	if (redisBufferRead(c->c) != REDIS_OK)
		rd_lost(kt, c, c->c->errstr[0] ? c->c->errstr : "read failed");
	while (c->n > 0) {
		void *rep = NULL;
		if (redisGetReplyFromReader(c->c, &rep) != REDIS_OK)
			rd_lost(kt, c, c->c->errstr[0] ? c->c->errstr : "protocol error");
		if (!rep)
			break;
		rd_complete(j, t, kt, c, rep);
		freeReplyObject(rep);
	}
}

/* A command that waited longer than --timeout ends the job. */
static void rd_check_hang(rd_thread *t, kv_thread *kt, int n, double timeout)
{
	uint64_t now = nm_ticks();
	for (int k = 0; k < n; k++) {
		const rd_conn *c = &t->conn[k];
		if (c->n && now - c->q[c->head].t0 > t->hang_ticks) {
			char why[96];
			snprintf(why, sizeof why, "no reply within %.0f s (--timeout)", timeout);
			rd_lost(kt, c, why);
		}
	}
}

/* Waits for replies (or room to write) on the connections with work. */
static void rd_wait(rd_job *j, rd_thread *t, kv_thread *kt)
{
	int n = 0;
	for (int k = 0; k < j->cl->n_all; k++) {
		rd_conn *c = &t->conn[k];
		bool out = sdslen(c->c->obuf) > 0;
		if (!c->n && !out)
			continue;
		t->pfd[n] = (struct pollfd){.fd = c->c->fd, .events = (short)(POLLIN | (out ? POLLOUT : 0))};
		t->pconn[n++] = k;
	}
	int got = poll(t->pfd, (nfds_t)n, 100);
	if (got < 0 && errno != EINTR)
		nm_fatal("thread %d: poll over the redis connections: %s", kt->thread, strerror(errno));
	for (int i = 0; got > 0 && i < n; i++) {
		rd_conn *c = &t->conn[t->pconn[i]];
		if (t->pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			rd_read(j, t, kt, c);
		if (t->pfd[i].revents & POLLOUT)
			rd_flush_conn(kt, c);
	}
	rd_check_hang(t, kt, j->cl->n_all, j->cl->timeout);
}

/* Issues `count` operations (stopping early at `deadline`, 0: none) with up
 * to --window in flight, and waits for all of them (nm_window_phase).
 * Returns when the last completed (ticks). */
static uint64_t rd_phase(void *arg, uint64_t count, uint64_t deadline)
{
	rd_thread *t = arg;
	rd_job *j = t->j;
	uint64_t issued = 0;
	int window = j->cl->p->window;
	while (issued < count || t->inflight > 0) {
		if (deadline && issued < count && nm_ticks() >= deadline)
			count = issued;
		while (issued < count && t->inflight < window) {
			rd_issue(j, t, t->kt);
			issued++;
		}
		rd_flush(t, t->kt, j->cl->n_all);
		if (t->inflight > 0)
			rd_wait(j, t, t->kt);
	}
	return nm_ticks();
}

static void rd_thread_body(nm_worker *w)
{
	rd_job *j = w->arg;
	nm_window_run(w->meter, rd_phase, &j->th[w->index]);
}

static void rd_thread_free(rd_thread *t, int n)
{
	for (int k = 0; t->conn && k < n; k++) {
		redisFree(t->conn[k].c);
		free(t->conn[k].q);
	}
	free(t->conn);
	free(t->pfd);
	free(t->pconn);
	free(t->val);
	free(t->rval);
}

/* ---- one point ---------------------------------------------------------------------- */

/* Room for every connection this rank opens: a thread's --window clients
 * (memtier-style) or its one connection (pipelined) to every instance, the
 * main thread's own, and the servers' (children: they inherit the limit
 * and hold every rank's clients). */
static void rd_raise_nofile(const rd_cluster *cl, int T)
{
	rlim_t need = (rlim_t)T * (rlim_t)cl->clients * (rlim_t)cl->n_all;
	rlim_t serve = (rlim_t)cl->maxclients + 64;
	if (serve > need)
		need = serve;
	need += (rlim_t)cl->n_all + 256;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		nm_fatal("redis: getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		nm_fatal("redis: %d thread(s) x %d client(s) x %d instance(s) need %llu open files on this node, above its "
			 "hard limit %llu (ulimit -Hn): raise it (limits.conf, or mpirun under a raised ulimit), or lower "
			 "-T or --window", T, cl->clients, cl->n_all,
			 (unsigned long long)need, (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		nm_fatal("redis: cannot raise the open-file limit to %llu: %s", (unsigned long long)need, strerror(errno));
}

static json_t *kv_redis_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	int T = ctx->base.threads;
	rd_cluster cl = {.p = r->p, .dev = ctx->dev, .rank = ctx->rank, .nranks = ctx->nranks,
			 .n_local = (T + r->p->redis_threads - 1) / r->p->redis_threads,
			 .clients = r->p->system == KV_REDIS ? r->p->window : 1, .timeout = ctx->base.timeout};
	cl.n_all = cl.n_local * cl.nranks;
	if (r->p->system == KV_REDIS && (long)cl.nranks * T * cl.clients > RD_CLIENT_WRITERS)
		nm_usage_error("kv --system redis: %d rank(s) x %d thread(s) x --window %d clients is above the %d "
			       "clients whose writes the checks can tell apart: lower -T or --window",
			       cl.nranks, T, r->p->window, RD_CLIENT_WRITERS);
	/* Every rank's threads connect to every instance; Redis's default of
	 * 10,000 is the floor. */
	cl.maxclients = (long)cl.nranks * T * cl.clients + 4L * cl.nranks + 64;
	if (cl.maxclients < 10000)
		cl.maxclients = 10000;
	rd_raise_nofile(&cl, T);
	cl.srv = nm_calloc((size_t)cl.n_local, sizeof *cl.srv);
	/* A server that dies must not take the rank with it (a write to its
	 * socket): the lost connection is reported instead. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	rd_setup(&cl);
	rd_prefill(&cl);
	nm_boot_barrier();

	if (r->p->system == KV_REDIS) {
		rd_memtier_round(r, &cl);
	} else {
		rd_job j = {.r = r, .cl = &cl, .th = nm_calloc((size_t)T, sizeof(rd_thread))};
		nm_round round = {.workers = T, .numa_node = ctx->base.mem_node, .setup = rd_thread_setup,
				  .body = rd_thread_body, .arg = &j, .measure = r->ms};
		nm_workers_run(&round);
		for (int t = 0; t < T; t++)
			rd_thread_free(&j.th[t], cl.n_all);
		free(j.th);
	}

	uint64_t scanned = nm_boot_sum_u64(rd_scan(&cl, r->ms));
	nm_boot_barrier();  /* nobody stops its servers while another rank still reads them */
	json_t *eff = ctx->rank == 0 ? rd_effective(&cl, scanned) : NULL;
	rd_teardown(&cl);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return eff;
}

const kv_system kv_redis = {
	.name = "redis",
	.summary = "Redis Cluster (redis-server, no replication or persistence) over TCP, driven as memtier "
		   "drives it: --window clients per thread, one command in flight each",
	.global_versions = false,
	.service_threads = 0,
	.run = kv_redis_run,
};

const kv_system kv_redis_pipelined = {
	.name = "redis-pipelined",
	.summary = "the same Redis Cluster, hiredis clients pipelining --window commands per thread over one "
		   "connection per instance (an extra series, not the paper's client)",
	.global_versions = false,
	.service_threads = 0,
	.run = kv_redis_run,
};
