/* netmem numa-kv: a small memcached-like GET/PUT service over raw verbs, for
 * the NUMA paper's Fig. 6 (its RDMA-Memcached + memslap experiment), under
 * the paper's placement scenarios and an optional independent load.
 *
 * Roles: the last rank is the server, every other rank a client host; each
 * client rank runs -T connections, one closed-loop thread and one QP each.
 * The server has one worker thread (the paper: "a single worker thread").
 *
 * Protocol (a request to the server worker, then one-sided data transfer, as
 * the paper's RDMA-Memcached: "the client first exchanges information about
 * the location and size of the value desired key, it then ... RDMA reads the
 * data from the server"):
 *   GET  the client WRITEs {seq, key, GET, -, sum} into its own mailbox in
 *        the server's memory; the server thread, polling the mailboxes, looks
 *        the key up (keys live in buckets of a seeded permutation, so a
 *        client cannot compute the location itself) and WRITEs a reply word
 *        (seq, bucket) into the client's reply word; the client spins on it,
 *        then READs the bucket {version, key, tag, value, sum} at that
 *        location. A bucket read while the server was rewriting it fails its
 *        checksum and is read again (counted as a retry).
 *   PUT  the client WRITEs {seq, key, tag, value, sum} into its mailbox; the
 *        server thread checks the sum (a record still being written is
 *        looked at again later), copies the value into the key's bucket and
 *        WRITEs the reply word; the client spins on it.
 *   Every operation goes through the one server thread, so the service
 *   saturates at a few connections, as the paper's did after four. Both
 *   directions touch both sides' memory: GET reads server memory, PUT has
 *   the server CPU copy between two server buffers, and every reply is the
 *   NIC writing into client memory, so server and client placement both
 *   matter, as in the paper's scenarios.
 *
 * Scenarios (--scenario): both-local (client and server on their NIC's node),
 * client-local (client on its NIC's node, server on the other node), both-remote,
 * and server-local (not in the paper, for symmetry); each side's buffer,
 * threads and QP/CQ rings go to its node, resolved on each rank against its
 * own NIC, and are verified as in netmem ops (numa/record.h).
 *
 * Checks: every GET's bucket, at the location the server gave, must hold the
 * key asked for and a value some PUT (or the preload) wrote for that key: values are a pattern of (key, tag), tag naming the writing
 * connection and its sequence number; the server must apply exactly the PUTs
 * the clients saw acknowledged; after the run every bucket must be
 * consistent.
 *
 * Decisions the paper leaves open (it used OSU RDMA-Memcached and memslap):
 * keys are 3 alphanumeric characters (67 B pairs minus 64 B values), drawn
 * uniformly from --keys (1000 by default; memslap's key count is not given);
 * the value size is 64 B; 90% GETs; one operation outstanding per connection;
 * OSU's PUT has the server READ the value from the client, ours has the
 * client WRITE it to the server (what this suite's issue asks for); the table
 * is preloaded so every GET hits. Throughput counts the operations of every
 * client connection in the point's one measured interval (harness/measure.h);
 * the server thread does not measure. */
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "rng.h"
#include "mesh.h"
#include "rdma.h"
#include "msg.h"
#include "workers.h"
#include "../../numa/point.h"
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt kv_opts[] = {
	{"scenario", 0, NM_OPT_ENUM, "both-local", 0, 0,
	 "both-local,client-local,server-local,both-remote,any", NM_OPT_LIST,
	 "placement: both-local (client and server on their NIC's node), client-local (server on "
	 "the other node), server-local (client on the other node), both-remote, any (no placement)"},
	{"keys", 0, NM_OPT_INT, "1000", 1, 1 << 24, NULL, NM_OPT_LIST, "keys in the table (all preloaded)"},
	{"value-size", 0, NM_OPT_SIZE, "64", 8, 4096, NULL, NM_OPT_LIST, "value bytes (a multiple of 8)"},
	{"get-ratio", 0, NM_OPT_DOUBLE, "0.9", 0, 1, NULL, NM_OPT_LIST, "fraction of GETs"},
	NM_OPT_ITERS("100000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	NM_OPT_NUMA_LOAD("the server"),
	NM_OPT_END,
};

/* Bucket and mailbox record: [0] version or seq, [1] key, [2] tag, [3] key
 * number, value, then the sum of everything before it. A GET request is the
 * header alone (tag GET_TAG; PUT tags are never 0; the last record, seq
 * DONE_SEQ, is a full one) and its sum. A reply word
 * is (seq << REPLY_BITS) | bucket. */
#define HDR 32
#define DONE_SEQ UINT64_MAX
#define GET_TAG 0
#define REPLY_BITS 24
#define REPLY_MASK ((1ull << REPLY_BITS) - 1)
_Static_assert(REPLY_BITS >= 24, "a reply word holds any bucket of --keys (at most 2^24)");

typedef enum { SC_BOTH_LOCAL, SC_CLIENT_LOCAL, SC_SERVER_LOCAL, SC_BOTH_REMOTE, SC_ANY } kv_scenario;
static const char *const scenario_names[] = {"both-local", "client-local", "server-local", "both-remote", "any"};
/* Where each side goes, [scenario][server]. */
static const nm_place_kind scenario_place[][2] = {
	[SC_BOTH_LOCAL] = {NM_PLACE_NIC, NM_PLACE_NIC},     [SC_CLIENT_LOCAL] = {NM_PLACE_NIC, NM_PLACE_OTHER},
	[SC_SERVER_LOCAL] = {NM_PLACE_OTHER, NM_PLACE_NIC}, [SC_BOTH_REMOTE] = {NM_PLACE_OTHER, NM_PLACE_OTHER},
	[SC_ANY] = {NM_PLACE_ANY, NM_PLACE_ANY},
};

/* One point, decoded once. */
typedef struct kv_point {
	kv_scenario scenario;
	nm_place side[2];     /* client, server */
	int keys;
	size_t vsize, rec;    /* value bytes, record bytes (64-aligned) */
	double get_ratio;
	nm_numa_load load;
} kv_point;

static int kv_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	const char *sc = nm_cfg_str(pt, "scenario");
	kv_point *p = out;
	*p = (kv_point){.keys = (int)nm_cfg_int(pt, "keys"), .vsize = (size_t)nm_cfg_int(pt, "value_size"),
			.get_ratio = nm_cfg_double(pt, "get_ratio")};
	while (p->scenario < SC_ANY && strcmp(sc, scenario_names[p->scenario]))
		p->scenario++;
	for (int s = 0; s < 2; s++)
		p->side[s].kind = scenario_place[p->scenario][s];
	p->rec = nm_align64(HDR + p->vsize + 8);
	if (p->vsize % 8) {
		snprintf(err, len, "--value-size %zu is not a multiple of 8", p->vsize);
		return -1;
	}
	if (nm_numa_load_decode(pt, &p->load, err, len))
		return -1;
	if (b->mem_node >= 0 && p->scenario != SC_ANY) {
		snprintf(err, len, "--mem-node cannot be combined with --scenario %s (use --scenario any)", sc);
		return -1;
	}
	return 0;
}

/* The tally: measured GETs and PUTs and their summed latencies; GETs read
 * again and GETs checked (warm-up included) and those that returned a value
 * no PUT wrote; PUTs the clients saw acknowledged and the server applied
 * (warm-up included); errors the server found; GETs the clients asked the
 * server to locate and those it located. */
enum { C_GETS, C_PUTS, C_GET_NS, C_PUT_NS, C_RETRIES, C_CHECKED, C_MISMATCHES, C_ACKED, C_APPLIED,
       C_SERVER_ERRORS, C_ASKED, C_LOOKUPS, C_N };
static const nm_counter kv_counters[C_N] = {
	[C_GETS] = {"gets", NM_COUNT_METRIC}, [C_PUTS] = {"puts", NM_COUNT_METRIC},
	[C_GET_NS] = {"get_ns", 0}, [C_PUT_NS] = {"put_ns", 0},
	[C_RETRIES] = {"get_retries", NM_COUNT_METRIC},
	[C_CHECKED] = {"gets_checked", 0}, [C_MISMATCHES] = {"get_mismatches", 0},
	[C_ACKED] = {"puts_acknowledged", 0}, [C_APPLIED] = {"puts_applied", 0},
	[C_SERVER_ERRORS] = {"server_errors", 0},
	[C_ASKED] = {"gets_asked", 0}, [C_LOOKUPS] = {"gets_located", 0},
};

typedef struct kv_job {
	const kv_point *p;
	nm_numa_point np;
	nm_mesh mesh;
	nm_mr mr;
	int rank, server, T, nconn;
	size_t mbox_off, ack_off;      /* server layout */
	int *bucket_of;                /* server: key -> bucket (a seeded permutation) */
	size_t thread_area;            /* client layout: per thread [get | put | ack] */
	double timeout;
	uint64_t seed;
	bool yield;                    /* waits yield: the node's CPUs are oversubscribed */
	int host_busy, host_cpus;      /* what decided it (nm_host_oversubscribed_on) */
} kv_job;

static uint64_t rec_sum(const uint8_t *r, size_t vsize)
{
	uint64_t h = 0x51ed270b27a3f1c5ull, w;
	for (size_t i = 0; i < HDR + vsize; i += 8) {
		memcpy(&w, r + i, 8);
		h = nm_mix64(h ^ w);
	}
	return h;
}

static uint64_t key_word(int k)
{
	static const char an[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	uint64_t w = 0;
	char s[8] = {0};
	/* 3 alphanumeric characters for up to 62^3 keys, more beyond */
	for (int i = 0, v = k; i < 7 && (i < 3 || v > 0); i++, v /= 62)
		s[i] = an[v % 62];
	memcpy(&w, s, 8);
	return w;
}

/* The pattern of a value: distinct per (key, tag). */
static uint64_t value_owner(int key, uint64_t tag) { return nm_mix64(((uint64_t)key << 40) ^ tag); }

static void put_record(uint8_t *r, size_t vsize, uint64_t seq, int key, uint64_t tag)
{
	uint64_t h[4] = {seq, key_word(key), tag, (uint64_t)key};
	memcpy(r, h, HDR);
	nm_pattern_fill(r + HDR, vsize, value_owner(key, tag));
	uint64_t s = rec_sum(r, vsize);
	memcpy(r + HDR + vsize, &s, 8);
}

/* ---- server ---- */

static uint8_t *bucket(kv_job *j, int k) { return (uint8_t *)j->mr.buf + (size_t)j->bucket_of[k] * j->p->rec; }
static uint8_t *mbox(kv_job *j, int c) { return (uint8_t *)j->mr.buf + j->mbox_off + (size_t)c * j->p->rec; }

/* Keys into buckets (a Fisher-Yates shuffle from the seed), then every
 * key's first value: the server table's fill (nm_numa_fill), on its node. */
static void preload(void *arg, void *buf)
{
	(void)buf; /* bucket() reads it from j->mr, set before the fill */
	kv_job *j = arg;
	int n = j->p->keys;
	j->bucket_of = nm_calloc((size_t)n, sizeof *j->bucket_of);
	uint64_t rng = nm_mix64(j->seed ^ 0x6b76) | 1;
	for (int k = 0; k < n; k++)
		j->bucket_of[k] = k;
	for (int k = n - 1; k > 0; k--) {
		rng = nm_mix64(rng);
		int o = (int)(rng % (uint64_t)(k + 1)), t = j->bucket_of[k];
		j->bucket_of[k] = j->bucket_of[o];
		j->bucket_of[o] = t;
	}
	for (int k = 0; k < n; k++)
		put_record(bucket(j, k), j->p->vsize, 1, k, 0);
}

/* The reply word (seq, bucket) into connection c's reply word. Returns the
 * completions it will produce. */
static int reply(kv_job *j, int c, uint64_t seq, int bucket_no)
{
	int peer = c / j->T, t = c % j->T;
	nm_conn *cn = nm_mesh_conn(&j->mesh, 0, peer, 0);
	uint64_t *src = (uint64_t *)((uint8_t *)j->mr.buf + j->ack_off) + c;
	*src = seq << REPLY_BITS | (uint64_t)bucket_no;
	nm_post_rw(cn, NM_OP_WRITE, src, j->mr.mr->lkey, cn->rmr.addr + (size_t)t * j->thread_area + 2 * j->p->rec,
		   8, NM_WRID(NM_OP_WRITE, c), true);
	return 1;
}

/* A GET from connection c: the key's location. */
static int lookup(kv_job *j, nm_meter *m, int c, const uint64_t h[4])
{
	int key = (int)h[3];
	if (key < 0 || key >= j->p->keys || h[1] != key_word(key)) {
		nm_error_note(&m->err, "connection %d: GET %" PRIu64 " names key %d", c, h[0], key);
		return 0;
	}
	m->c[C_LOOKUPS]++;
	return reply(j, c, h[0], j->bucket_of[key]);
}

/* A complete PUT from connection c: into its bucket, everything but the sum
 * first and the sum last (readers that catch it half-written see a wrong
 * sum and read again), then seq into the client's ack word. Returns the
 * completions it will produce. */
static int apply(kv_job *j, nm_meter *m, int c, const uint8_t *rec)
{
	size_t vs = j->p->vsize;
	uint64_t h[4];
	memcpy(h, rec, HDR);
	int key = (int)h[3];
	if (key < 0 || key >= j->p->keys || h[1] != key_word(key)) {
		nm_error_note(&m->err, "connection %d: PUT %" PRIu64 " names key %d", c, h[0], key);
		return 0;
	}
	uint8_t *b = bucket(j, key);
	uint64_t ver;
	memcpy(&ver, b, 8);
	ver++;
	memcpy(b, &ver, 8);
	memcpy(b + 16, &h[2], 8);
	memcpy(b + HDR, rec + HDR, vs);
	uint64_t s = rec_sum(b, vs);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(b + HDR + vs, &s, 8);
	m->c[C_APPLIED]++;
	return reply(j, c, h[0], j->bucket_of[key]);
}

/* Polls the mailboxes until every connection has sent its last record
 * (DONE_SEQ, a full record); ends the job when no request arrives for
 * --timeout seconds. */
static void serve(kv_job *j, nm_meter *m, nm_poller *pl)
{
	size_t rec = j->p->rec, vs = j->p->vsize;
	uint64_t *last = nm_calloc((size_t)j->nconn, sizeof *last);
	uint8_t *snap = nm_malloc(rec);
	struct ibv_wc wc[16];
	int done = 0, outstanding = 0;
	uint32_t empty = 0;
	uint64_t heard = nm_ticks(), quiet = nm_ns_to_ticks((uint64_t)(j->timeout * 1e9));
	for (uint32_t round = 0; done < j->nconn; round++) {
		/* a client sharing this CPU cannot send while the server spins */
		if (j->yield && ++empty % NM_WAIT_YIELD_POLLS == 0)
			sched_yield();
		if ((round & 1023) == 0 && nm_ticks() - heard > quiet)
			nm_fatal("server: no complete request from %d of %d connection(s) within %.0f s",
				 j->nconn - done, j->nconn, j->timeout);
		for (int c = 0; c < j->nconn; c++) {
			uint64_t seq = *(volatile uint64_t *)mbox(j, c), sum, h[4];
			if (seq == last[c])
				continue;
			memcpy(snap, mbox(j, c), rec);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			memcpy(h, snap, HDR);
			bool get = h[2] == GET_TAG && h[0] != DONE_SEQ;
			size_t body = get ? 0 : vs;
			memcpy(&sum, snap + HDR + body, 8);
			if (h[0] != seq || sum != rec_sum(snap, body))
				continue; /* still being written: look again */
			last[c] = seq;
			heard = nm_ticks();
			empty = 0;
			if (seq == DONE_SEQ)
				done++;
			else if (get)
				outstanding += lookup(j, m, c, h);
			else
				outstanding += apply(j, m, c, snap);
		}
		if (outstanding)
			outstanding -= nm_poll_some(pl, wc, 16);
	}
	while (outstanding > 0)
		outstanding -= nm_poll_wait(pl, wc, 16);
	m->c[C_SERVER_ERRORS] = m->err.count;
	free(last);
	free(snap);
}

/* After the run, on the main thread. */
static void check_table(kv_job *j, nm_measure *ms)
{
	size_t vs = j->p->vsize;
	for (int k = 0; k < j->p->keys; k++) {
		uint8_t *b = bucket(j, k);
		uint64_t sum, h[4];
		memcpy(h, b, HDR);
		memcpy(&sum, b + HDR + vs, 8);
		if (sum != rec_sum(b, vs) || h[1] != key_word(k) || nm_pattern_check(b + HDR, vs, value_owner(k, h[2])) >= 0)
			nm_error_note(&ms->rank_err, "bucket %d is inconsistent after the run", k);
	}
	ms->rank_c[C_SERVER_ERRORS] = ms->rank_err.count;
}

/* ---- client ---- */

typedef struct kv_client {
	kv_job *j;
	nm_meter *m;
	nm_poller pl;
	nm_conn *cn;
	uint8_t *getb, *putb;
	volatile uint64_t *ack;
	int conn;
	uint64_t seq, puts, timeout;   /* seq: requests sent; timeout in ticks */
} kv_client;

/* The record in the PUT buffer into the connection's mailbox (len bytes). */
static void post_mbox(kv_client *cl, size_t len);

/* Waits for the server's reply to seq; returns the bucket it names. */
static int await_reply(kv_client *cl, uint64_t seq, int key)
{
	uint64_t since = nm_ticks(), w;
	for (uint32_t spins = 1; ((w = *cl->ack) >> REPLY_BITS) != seq; spins++) {
		/* the server may need this CPU to answer */
		if (cl->j->yield && spins % NM_WAIT_YIELD_POLLS == 0)
			sched_yield();
		if ((spins & 4095) == 0 && nm_ticks() - since > cl->timeout)
			nm_fatal("connection %d: request %" PRIu64 " for key %d not answered by rank %d within %.0f s",
				 cl->conn, seq, key, cl->j->server, cl->j->timeout);
	}
	return (int)(w & REPLY_MASK);
}

/* GET: ask the server where the key is, then READ that bucket until its
 * sum holds, then check its key and value. */
static void get(kv_client *cl, int key)
{
	const kv_point *p = cl->j->p;
	uint64_t seq = ++cl->seq, sum, h[4] = {seq, key_word(key), GET_TAG, (uint64_t)key};
	memcpy(cl->putb, h, HDR);
	sum = rec_sum(cl->putb, 0);
	memcpy(cl->putb + HDR, &sum, 8);
	post_mbox(cl, HDR + 8);
	int b = await_reply(cl, seq, key);
	uint64_t raddr = cl->cn->rmr.addr + (size_t)b * p->rec;
	struct ibv_wc wc;
	for (int tries = 0;; tries++) {
		nm_post_rw(cl->cn, NM_OP_READ, cl->getb, cl->j->mr.mr->lkey, raddr, (uint32_t)p->rec,
			   NM_WRID(NM_OP_READ, 0), true);
		nm_poll_wait(&cl->pl, &wc, 1);
		memcpy(h, cl->getb, HDR);
		memcpy(&sum, cl->getb + HDR + p->vsize, 8);
		if (sum == rec_sum(cl->getb, p->vsize))
			break;
		cl->m->c[C_RETRIES]++;
		if (tries > 100000)
			nm_fatal("GET of key %d never read a consistent bucket", key);
	}
	cl->m->c[C_CHECKED]++;
	if (h[1] != key_word(key))
		nm_error_note(&cl->m->err, "GET of key %d on rank %d: bucket %d, where the server located it, "
			      "holds another key", key, cl->j->server, b);
	else if (nm_pattern_check(cl->getb + HDR, p->vsize, value_owner(key, h[2])) >= 0)
		nm_error_note(&cl->m->err, "GET of key %d on rank %d returned a value no PUT wrote (tag %" PRIx64 ")",
			      key, cl->j->server, h[2]);
}

static void post_mbox(kv_client *cl, size_t len)
{
	struct ibv_wc wc;
	kv_job *j = cl->j;
	nm_post_rw(cl->cn, NM_OP_WRITE, cl->putb, j->mr.mr->lkey,
		   cl->cn->rmr.addr + j->mbox_off + (size_t)cl->conn * j->p->rec, (uint32_t)len,
		   NM_WRID(NM_OP_WRITE, 0), true);
	nm_poll_wait(&cl->pl, &wc, 1);
}

/* PUT: the record into the mailbox, then wait for the server's ack. */
static void put(kv_client *cl, int key)
{
	kv_job *j = cl->j;
	uint64_t seq = ++cl->seq;
	put_record(cl->putb, j->p->vsize, seq, key, ((uint64_t)(cl->conn + 1) << 32) | seq);
	post_mbox(cl, j->p->rec);
	await_reply(cl, seq, key);
	cl->puts++;
}

static void client(kv_job *j, nm_meter *m, int ti)
{
	uint8_t *area = (uint8_t *)j->mr.buf + (size_t)ti * j->thread_area;
	kv_client cl = {.j = j, .m = m, .cn = nm_mesh_conn(&j->mesh, ti, j->server, 0), .getb = area,
			.putb = area + j->p->rec, .ack = (volatile uint64_t *)(area + 2 * j->p->rec),
			.conn = j->rank * j->T + ti, .timeout = nm_ns_to_ticks((uint64_t)(j->timeout * 1e9))};
	nm_poller_init(&cl.pl, &j->mesh, ti, j->timeout);
	uint64_t rng = nm_mix64(j->seed ^ ((uint64_t)cl.conn << 20)) | 1;
	uint32_t get_thresh = j->p->get_ratio >= 1 ? UINT32_MAX : (uint32_t)(j->p->get_ratio * 4294967296.0);
	nm_loop lp;
	nm_loop_init(&lp, m);
	while (nm_loop_next(&lp)) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int key = (int)((rng >> 20) % (uint64_t)j->p->keys);
		bool is_get = (uint32_t)rng < get_thresh;
		uint64_t t0 = nm_ticks();
		if (is_get)
			get(&cl, key);
		else
			put(&cl, key);
		uint64_t t1 = nm_ticks();
		if (nm_loop_done(&lp, t0, t1)) {
			m->c[is_get ? C_GETS : C_PUTS]++;
			m->c[is_get ? C_GET_NS : C_PUT_NS] += nm_ticks_to_ns(t1 - t0);
		}
	}
	put_record(cl.putb, j->p->vsize, DONE_SEQ, 0, 0);
	post_mbox(&cl, j->p->rec);
	m->c[C_ACKED] = cl.puts;
	m->c[C_ASKED] = cl.seq - cl.puts;
	m->c[C_MISMATCHES] = m->err.count;
}

static bool serves(const kv_job *j, int thread) { return j->rank == j->server && thread == 0; }

static void kv_setup(nm_worker *w)
{
	kv_job *j = w->arg;
	nm_numa_thread_start(&j->np, w->index, w->cpu, j->rank != j->server || serves(j, w->index));
}

static void kv_body(nm_worker *w)
{
	kv_job *j = w->arg;
	if (serves(j, w->index)) {
		nm_poller pl;
		nm_poller_init(&pl, &j->mesh, w->index, j->timeout);
		nm_meter_skip(w->meter);
		serve(j, w->meter, &pl);
	} else if (j->rank != j->server) {
		client(j, w->meter, w->index);
	}
	nm_numa_thread_end(&j->np, w->index);
}

/* ---- the point ---- */

/* This rank's side of the scenario on one node; 1: the point is skipped. */
static int kv_place(nm_ctx *ctx, kv_job *j, json_t *out)
{
	const kv_point *p = j->p;
	bool server = j->rank == j->server;
	char req[16], what[96];
	snprintf(what, sizeof what, "--scenario %s (%s %s)", scenario_names[p->scenario],
		 server ? "server" : "client", nm_place_str(&p->side[server], req, sizeof req));
	nm_numa_place_all(&j->np, "scenario", what, &p->side[server]);
	if (server)
		nm_numa_need_load(&j->np, &p->load);
	j->np.role = server ? "server" : "client";
	return nm_numa_point_settle(&j->np, ctx->spec, out);
}

/* Collective: whether this rank's waits yield. Its polling threads (the
 * server's one, a client's -T) are bound to the scenario's node; where the
 * job's polling threads bound to those CPUs outnumber them (one vCPU per
 * node in a guest, both-local), a waiter spinning holds the CPU the thread
 * it waits for needs for a whole time slice: there the server's mailbox
 * scan and the clients' reply waits yield every NM_WAIT_YIELD_POLLS empty
 * polls. With a CPU per thread, the paper's setup, they only spin. The
 * load process does not wait for anyone and is not counted. */
static void kv_waits(kv_job *j, bool server)
{
	cpu_set_t set;
	const cpu_set_t *on = j->np.thread_node >= 0 && nm_numa_node_cpuset(j->np.thread_node, &set) > 0 ? &set : NULL;
	j->yield = nm_host_oversubscribed_on(server ? 1 : j->T, on, &j->host_busy, &j->host_cpus);
}

/* The server's table, mailboxes and ack sources, or a client's
 * per-connection GET, PUT and ack areas (kv_connect's offsets, and the
 * bytes to register): one sizing for the set-up and for kv_needs. */
static size_t kv_layout(kv_job *j, bool server)
{
	j->mbox_off = (size_t)j->p->keys * j->p->rec;
	j->ack_off = j->mbox_off + (size_t)j->nconn * j->p->rec;
	j->thread_area = 2 * j->p->rec + 64;
	return server ? j->ack_off + 8 * (size_t)j->nconn : j->thread_area * (size_t)j->T;
}

/* Every client to the server and back (m: R*R bytes, zeroed). */
static nm_mesh_cfg kv_mesh_cfg(const kv_job *j, const nm_base *b, int R, bool server, uint8_t *m)
{
	for (int c = 0; c < R - 1; c++)
		m[c * R + j->server] = m[j->server * R + c] = 1;
	nm_mesh_cfg mc = {.nthreads = j->T, .qps = 1, .initiates = m, .qp = b->qp};
	mc.qp.sq_depth = server ? 2 * j->T + 16 : 4;
	return mc;
}

static void kv_connect(nm_ctx *ctx, kv_job *j)
{
	int R = ctx->nranks;
	bool server = j->rank == j->server;
	nm_numa_point_alloc(&j->np, &j->mr, kv_layout(j, server), ctx->base.hugepages, server ? preload : NULL, j);
	uint8_t *m = nm_calloc((size_t)R * R, 1);
	nm_mesh_cfg mc = kv_mesh_cfg(j, &ctx->base, R, server, m);
	nm_numa_point_mesh(&j->np, &j->mesh, &mc);
	free(m);
}

/* The last rank serves; every other rank's threads are clients. */
static kv_job kv_job_of(const void *point, const nm_base *b, int rank, int nranks)
{
	return (kv_job){.p = point, .rank = rank, .server = nranks - 1, .T = b->threads,
			.nconn = (nranks - 1) * b->threads, .timeout = b->timeout};
}

/* netmem preflight: what kv_connect creates on `rank`. */
static void kv_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	kv_job j = kv_job_of(point, b, rank, nranks);
	bool server = rank == j.server;
	nm_mr_needs(n, kv_layout(&j, server), b->hugepages, false);
	uint8_t *m = nm_calloc((size_t)nranks * (size_t)nranks, 1);
	nm_mesh_cfg mc = kv_mesh_cfg(&j, b, nranks, server, m);
	nm_mesh_needs(&mc, rank, nranks, n);
	free(m);
	const kv_point *p = point;
	int a = nm_place_nodes_needed(&p->side[0]), c = nm_place_nodes_needed(&p->side[1]);
	n->numa_nodes = a > c ? a : c;
}

static double mean_us(uint64_t ns, uint64_t n) { return n ? (double)ns / (double)n / 1e3 : 0.0; }

static json_t *kv_checks(const kv_job *j, const nm_measure *ms, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool gets_ok = c[C_MISMATCHES] == 0 && c[C_ASKED] == c[C_LOOKUPS], puts_ok = c[C_ACKED] == c[C_APPLIED];
	bool table_ok = c[C_SERVER_ERRORS] == 0;
	const char *first = ms->first_error[0] ? ms->first_error
			  : !puts_ok ? "the server applied a different number of PUTs than the clients saw acknowledged"
			  : c[C_ASKED] != c[C_LOOKUPS] ? "the server located a different number of GETs than the clients asked"
			  : NULL;
	json_t *checks = json_object();
	json_t *gets = json_object();
	json_object_set_new(gets, "asked", json_integer((json_int_t)c[C_ASKED]));
	json_object_set_new(gets, "located", json_integer((json_int_t)c[C_LOOKUPS]));
	json_object_set_new(gets, "checked", json_integer((json_int_t)c[C_CHECKED]));
	json_object_set_new(gets, "mismatches", json_integer((json_int_t)c[C_MISMATCHES]));
	json_object_set_new(gets, "ok", json_boolean(gets_ok));
	json_object_set_new(checks, "gets", gets);
	json_object_set_new(checks, "puts", json_pack("{s:I, s:I, s:b}", "acknowledged", (json_int_t)c[C_ACKED],
						      "applied", (json_int_t)c[C_APPLIED], "ok", puts_ok));
	json_object_set_new(checks, "table",
			    json_pack("{s:I, s:b}", "server_errors", (json_int_t)c[C_SERVER_ERRORS], "ok", table_ok));
	nm_numa_point_checks(&j->np, checks, first);
	*valid = gets_ok && puts_ok && table_ok && ms->ops > 0 && j->np.ok;
	return checks;
}

/* Collective: how each side waited, {"client": .., "server": ..} on rank 0
 * (the first client rank's and the server's: the other clients are placed
 * as the first), NULL elsewhere. */
static json_t *kv_waits_json(const kv_job *j)
{
	int mine[3] = {j->yield, j->host_busy, j->host_cpus}, *all = nm_calloc((size_t)j->server + 1, sizeof mine);
	nm_boot_allgather(mine, all, sizeof mine);
	json_t *o = NULL;
	if (j->rank == 0) {
		o = json_object();
		for (int side = 0; side < 2; side++) {
			const int *w = all + 3 * (side ? j->server : 0);
			char how[96] = "spin";
			if (w[0])
				snprintf(how, sizeof how, "spin, yielding every %d empty polls (its node's CPUs oversubscribed)",
					 NM_WAIT_YIELD_POLLS);
			json_object_set_new(o, side ? "server" : "client",
					    json_pack("{s:s, s:i, s:i}", "wait", how, "busy_threads", w[1], "cpus", w[2]));
		}
	}
	free(all);
	return o;
}

/* Collective: the placement record, the tally and the loads; rank 0 fills out. */
static void kv_result(nm_ctx *ctx, kv_job *j, nm_measure *ms, json_t *out)
{
	json_t *placement = nm_numa_point_record(&j->np, ctx->rank, ctx->nranks);
	json_t *waits = kv_waits_json(j);
	nm_measure_gather(ms);
	json_t *metrics = ctx->rank == 0 ? nm_measure_metrics(ms) : NULL;
	nm_numa_point_load_metrics(&j->np, metrics);
	if (ctx->rank != 0)
		return;
	const uint64_t *c = ms->total_c;
	json_object_set_new(metrics, "get_lat_mean_us", json_real(mean_us(c[C_GET_NS], c[C_GETS])));
	json_object_set_new(metrics, "put_lat_mean_us", json_real(mean_us(c[C_PUT_NS], c[C_PUTS])));
	bool valid;
	json_object_set_new(out, "checks", kv_checks(j, ms, &valid));
	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "metrics", metrics);
	json_t *eff = json_pack("{s:i, s:i, s:I, s:I}", "connections", j->nconn, "server_rank", j->server,
				"record_bytes", (json_int_t)j->p->rec, "warmup", (json_int_t)ms->cfg.warmup);
	json_object_set_new(eff, "waits", waits);
	json_object_set_new(out, "effective", eff);
	json_object_set_new(out, "placement", placement);
}

static void kv_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics");
	if (first)
		printf(" %-13s %6s %12s %14s %12s %12s %8s\n", "scenario", "conns", "#ops", "ops/s",
		       "GET[usec]", "PUT[usec]", "check");
	if (json_is_string(json_object_get(res, "skipped"))) {
		printf(" %-13s skipped: %s\n", nm_cfg_str(pt, "scenario"),
		       json_string_value(json_object_get(res, "skipped")));
		return;
	}
	printf(" %-13s %6" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT " %14.0f %12.2f %12.2f %8s\n",
	       nm_cfg_str(pt, "scenario"),
	       json_integer_value(json_object_get(json_object_get(res, "effective"), "connections")),
	       json_integer_value(json_object_get(mt, "ops")),
	       json_real_value(json_object_get(mt, "ops_per_sec")),
	       json_real_value(json_object_get(mt, "get_lat_mean_us")),
	       json_real_value(json_object_get(mt, "put_lat_mean_us")),
	       nm_point_verdict(res));
}

static void kv_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const nm_base *b = &ctx->base;
	kv_job j = kv_job_of(point, b, ctx->rank, ctx->nranks);
	j.seed = b->seed * 1000003u + (uint64_t)ctx->rep;
	bool server = ctx->rank == j.server;
	nm_numa_point_init(&j.np, ctx->dev, b->mem_node, j.T);
	if (kv_place(ctx, &j, out)) {
		nm_numa_point_free(&j.np);
		return;
	}
	kv_waits(&j, server);
	kv_connect(ctx, &j);
	nm_numa_loads loads = {.load = j.p->load, .here = server, .seed = j.seed};
	nm_numa_point_loads_start(&j.np, &loads);

	static const nm_measure_def def = {"ops", kv_counters, C_N};
	nm_measure *ms = nm_measure_new(&b->measure, &def, ctx->rank, j.T);
	nm_round rd = {.workers = j.T, .numa_node = j.np.thread_node, .setup = kv_setup, .body = kv_body,
		       .arg = &j, .measure = ms};
	nm_workers_run(&rd);
	/* every rank is done: nm_workers_run ends in a barrier */
	nm_numa_point_loads_stop(&j.np);
	if (server)
		check_table(&j, ms);
	kv_result(ctx, &j, ms, out);
	nm_measure_free(ms);
	nm_numa_point_free(&j.np);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
	free(j.bucket_of);
}

static const nm_experiment kv_experiment = {
	.name = "numa-kv",
	.summary = "memcached-like GET/PUT service over raw verbs under NUMA placements (NUMA Fig. 6)",
	.details =
		"The last rank serves (one worker thread, a preloaded table); every other rank runs\n"
		"-T client connections. A GET asks the server thread for the key's location (a\n"
		"request WRITE into the connection's mailbox, a reply WRITE) and READs the bucket\n"
		"there (checksummed, read again if caught mid-update); a PUT WRITEs the record into\n"
		"the mailbox and waits for the server's reply. Every GET's key and value are verified.\n\n"
		"Examples:\n"
		"  mpirun -np 2 netmem numa-kv --scenario both-local,client-local,both-remote -T 1,4,8\n"
		"  mpirun -np 2 netmem numa-kv -T 8 --load-threads 20 --load-node nic --load-buf 1G",
	.opts = kv_opts, .min_ranks = 2,
	.point_size = sizeof(kv_point), .decode = kv_decode, .needs = kv_needs,
	.run = kv_run, .report = kv_report,
};
NM_EXPERIMENT(kv_experiment)
