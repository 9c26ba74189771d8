/* netmem numa-kv: a small memcached-like GET/PUT service over raw verbs, for
 * the NUMA paper's Fig. 6 (its RDMA-Memcached + memslap experiment), under
 * the paper's placement scenarios and an optional independent load.
 *
 * Roles: the last rank is the server, every other rank a client host; each
 * client rank runs -T connections, one closed-loop thread and one QP each.
 * The server has one worker thread (the paper: "a single worker thread").
 *
 * Protocol (one-sided GET, PUT by WRITE plus notification):
 *   GET  the client READs the key's bucket straight from the server's table
 *        {version, key, tag, value, sum}; a bucket read while the server was
 *        rewriting it fails its checksum and is read again (counted as a
 *        retry). The CPU of the server is not involved.
 *   PUT  the client WRITEs {seq, key, tag, value, sum} into its own mailbox
 *        in the server's memory; the server thread, polling the mailboxes,
 *        checks the sum (a record still being written is looked at again
 *        later), copies the value into the bucket and WRITEs seq into the
 *        client's ack word; the client spins on that word.
 *   Both directions touch both sides' memory: GET reads server memory, PUT
 *   has the server CPU copy between two server buffers and the NIC write into
 *   client memory, so server and client placement both matter, as in the
 *   paper's scenarios.
 *
 * Scenarios (--scenario): both-local (client and server on their NIC's node),
 * client-local (client on its NIC's node, server on the other node), both-remote,
 * and server-local (not in the paper, for symmetry); each side's buffer,
 * threads and QP/CQ rings go to its node, resolved on each rank against its
 * own NIC, and are verified as in netmem ops (numa/record.h).
 *
 * Checks: every GET's value must be the value some PUT (or the preload) wrote
 * for that key: values are a pattern of (key, tag), tag naming the writing
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
 * is preloaded so every GET hits. */
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "rng.h"
#include "mesh.h"
#include "rdma.h"
#include "stats.h"
#include "workers.h"
#include "../numa/loadproc.h"
#include "../numa/mem.h"
#include "../numa/nodes.h"
#include "../numa/pages.h"
#include "../numa/placement.h"
#include "../numa/record.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const nm_opt kv_opts[] = {
	{"scenario", 0, NM_OPT_ENUM, "both-local", 0, 0,
	 "both-local,client-local,server-local,both-remote,any", NM_OPT_LIST,
	 "placement: both-local (client and server on their NIC's node), client-local (server on "
	 "the other node), server-local (client on the other node), both-remote, any (no placement)"},
	{"keys", 0, NM_OPT_INT, "1000", 1, 1 << 24, NULL, NM_OPT_LIST, "keys in the table (all preloaded)"},
	{"value-size", 0, NM_OPT_SIZE, "64", 8, 4096, NULL, NM_OPT_LIST, "value bytes (a multiple of 8)"},
	{"get-ratio", 0, NM_OPT_DOUBLE, "0.9", 0, 1, NULL, NM_OPT_LIST, "fraction of GETs"},
	{"iters", 'n', NM_OPT_INT, "100000", 1, 1e10, NULL, 0, "measured operations per connection"},
	{"duration", 'D', NM_OPT_DOUBLE, "0", 0, 86400, NULL, 0,
	 "measure for this many seconds instead of --iters"},
	{"warmup", 0, NM_OPT_INT, "-1", -1, 1e9, NULL, 0,
	 "unmeasured operations per connection first (-1: iters/10, at most 1000)"},
	{"load-threads", 0, NM_OPT_INT, "0", 0, 4096, NULL, NM_OPT_LIST,
	 "an independent load process (netmem numa-load) on the server: its threads"},
	{"load-node", 0, NM_OPT_STR, "any", 0, 0, NULL, NM_OPT_LIST,
	 "its node: nic, other, a node number, or any (NUMA-agnostic)"},
	{"load-buf", 0, NM_OPT_SIZE, "64M", 8, 1ll << 44, NULL, NM_OPT_LIST, "its buffer size"},
	{"load-mix", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, NM_OPT_LIST, "its fraction of stores"},
	NM_OPT_END,
};

/* Bucket and mailbox record: [0] version or seq, [1] key, [2] tag, [3] pad,
 * value, then the sum of everything before it. */
#define HDR 32
#define DONE_SEQ UINT64_MAX

typedef struct kv_job kv_job;

typedef struct kv_thread {
	kv_job *job;
	nm_hist hist;
	uint64_t measured, gets, puts, retries, checked, mismatches, get_ns, put_ns, elapsed_ns;
	uint64_t acked;          /* PUTs acknowledged, warm-up included */
	char first_error[256];
	nm_cpu_place cp;
} kv_thread;

struct kv_job {
	nm_mesh mesh;
	nm_mr mr;
	int rank, nranks, server, T, nconn, keys;
	size_t vsize, rec;             /* value bytes, record bytes (64-aligned) */
	size_t mbox_off, ack_off;      /* server layout */
	size_t thread_area;            /* client layout: per thread [get | put | ack] */
	double get_ratio, timeout;
	uint64_t iters, warmup, seed;
	double duration;
	kv_thread *th;
	/* server */
	uint64_t applied, server_mismatches;
	char server_error[256];
	/* placement */
	int node, load_node, load_threads;
	int64_t load_buf;
	double load_mix;
	nm_numa_view view;
	nm_nic_numa nic;
	nm_page_census census[2];
	char qp_policy[128], request[64];
	nm_loadproc load;
	json_t *load_result;
};

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

static void fill_value(uint8_t *v, size_t len, int key, uint64_t tag)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_mix64(((uint64_t)key << 40) ^ tag ^ (i * 0x100000001b3ull));
		memcpy(v + i, &w, 8);
	}
}

static bool value_ok(const uint8_t *v, size_t len, int key, uint64_t tag)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_mix64(((uint64_t)key << 40) ^ tag ^ (i * 0x100000001b3ull)), x;
		memcpy(&x, v + i, 8);
		if (x != w)
			return false;
	}
	return true;
}

static void put_record(uint8_t *r, size_t vsize, uint64_t seq, int key, uint64_t tag)
{
	uint64_t h[4] = {seq, key_word(key), tag, (uint64_t)key};
	memcpy(r, h, HDR);
	fill_value(r + HDR, vsize, key, tag);
	uint64_t s = rec_sum(r, vsize);
	memcpy(r + HDR + vsize, &s, 8);
}

static const char *scenario_req(const char *sc, bool server)
{
	if (!strcmp(sc, "both-local"))
		return "nic";
	if (!strcmp(sc, "both-remote"))
		return "other";
	if (!strcmp(sc, "client-local"))
		return server ? "other" : "nic";
	if (!strcmp(sc, "server-local"))
		return server ? "nic" : "other";
	return "any";
}

static int kv_validate(const json_t *pt, int nranks, char *err, size_t len)
{
	if (nm_cfg_int(pt, "value_size") % 8) {
		snprintf(err, len, "--value-size %" PRId64 " is not a multiple of 8",
			 nm_cfg_int(pt, "value_size"));
		return -1;
	}
	nm_place p;
	if (nm_place_parse(nm_cfg_str(pt, "load_node"), &p, "--load-node", err, len))
		return -1;
	if (nm_cfg_int(pt, "mem_node") >= 0 && strcmp(nm_cfg_str(pt, "scenario"), "any")) {
		snprintf(err, len, "--mem-node cannot be combined with --scenario %s (use --scenario any)",
			 nm_cfg_str(pt, "scenario"));
		return -1;
	}
	(void)nranks;
	return 0;
}

/* ---- server ---- */

static uint8_t *bucket(kv_job *j, int k) { return (uint8_t *)j->mr.buf + (size_t)k * j->rec; }
static uint8_t *mbox(kv_job *j, int c) { return (uint8_t *)j->mr.buf + j->mbox_off + (size_t)c * j->rec; }

static void server_error(kv_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void server_error(kv_job *j, const char *fmt, ...)
{
	if (j->server_mismatches++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(j->server_error, sizeof j->server_error, fmt, ap);
		va_end(ap);
	}
}

static void preload(kv_job *j)
{
	for (int k = 0; k < j->keys; k++)
		put_record(bucket(j, k), j->vsize, 1, k, 0);
}

static void serve(kv_job *j, nm_poller *pl)
{
	uint64_t *last = calloc((size_t)j->nconn, sizeof *last);
	uint8_t *snap = malloc(j->rec);
	struct ibv_wc wc[16];
	int done = 0, outstanding = 0;
	while (done < j->nconn) {
		for (int c = 0; c < j->nconn; c++) {
			uint8_t *m = mbox(j, c);
			uint64_t seq = *(volatile uint64_t *)m;
			if (seq == last[c])
				continue;
			memcpy(snap, m, j->rec);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			uint64_t sum, h[4];
			memcpy(&sum, snap + HDR + j->vsize, 8);
			memcpy(h, snap, HDR);
			if (h[0] != seq || sum != rec_sum(snap, j->vsize))
				continue; /* still being written: look again */
			last[c] = seq;
			if (seq == DONE_SEQ) {
				done++;
				continue;
			}
			int key = (int)h[3];
			if (key < 0 || key >= j->keys || h[1] != key_word(key)) {
				server_error(j, "connection %d: PUT %" PRIu64 " names key %d", c, seq, key);
				continue;
			}
			/* apply: everything but the sum, then the sum (readers that
			 * catch it half-written see a wrong sum and read again) */
			uint8_t *b = bucket(j, key);
			uint64_t ver;
			memcpy(&ver, b, 8);
			ver++;
			memcpy(b, &ver, 8);
			memcpy(b + 16, &h[2], 8);
			memcpy(b + HDR, snap + HDR, j->vsize);
			uint64_t s = rec_sum(b, j->vsize);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			memcpy(b + HDR + j->vsize, &s, 8);
			j->applied++;
			/* acknowledge: seq into the client's ack word */
			int peer = c / j->T, t = c % j->T;
			nm_conn *cn = nm_mesh_conn(&j->mesh, 0, peer, 0);
			uint64_t *src = (uint64_t *)((uint8_t *)j->mr.buf + j->ack_off) + c;
			*src = seq;
			nm_post_rw(cn, NM_OP_WRITE, src, j->mr.mr->lkey,
				   cn->rmr.addr + (size_t)t * j->thread_area + 2 * j->rec, 8,
				   NM_WRID(NM_OP_WRITE, c), true);
			outstanding++;
		}
		if (outstanding)
			outstanding -= nm_poll_some(pl, wc, 16);
	}
	while (outstanding > 0)
		outstanding -= nm_poll_wait(pl, wc, 16);
	free(last);
	free(snap);
}

static void check_table(kv_job *j)
{
	for (int k = 0; k < j->keys; k++) {
		uint8_t *b = bucket(j, k);
		uint64_t sum, h[4];
		memcpy(h, b, HDR);
		memcpy(&sum, b + HDR + j->vsize, 8);
		if (sum != rec_sum(b, j->vsize) || h[1] != key_word(k) || !value_ok(b + HDR, j->vsize, k, h[2]))
			server_error(j, "bucket %d is inconsistent after the run", k);
	}
}

/* ---- client ---- */

static void mismatch(kv_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(kv_thread *t, const char *fmt, ...)
{
	if (t->mismatches++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->first_error, sizeof t->first_error, fmt, ap);
		va_end(ap);
	}
}

static void client(kv_job *j, kv_thread *t, int ti, nm_poller *pl)
{
	nm_conn *cn = nm_mesh_conn(&j->mesh, ti, j->server, 0);
	uint8_t *area = (uint8_t *)j->mr.buf + (size_t)ti * j->thread_area;
	uint8_t *getb = area, *putb = area + j->rec;
	volatile uint64_t *ack = (volatile uint64_t *)(area + 2 * j->rec);
	int conn = j->rank * j->T + ti;
	uint64_t rng = nm_mix64(j->seed ^ ((uint64_t)conn << 20)) | 1, seq = 0, start = 0, end_ticks = 0;
	uint32_t get_thresh = j->get_ratio >= 1 ? UINT32_MAX : (uint32_t)(j->get_ratio * 4294967296.0);
	uint64_t timeout = nm_ns_to_ticks((uint64_t)(j->timeout * 1e9));
	struct ibv_wc wc;
	for (uint64_t i = 0;; i++) {
		if (i == j->warmup) {
			start = nm_ticks();
			if (j->duration > 0)
				end_ticks = start + nm_ns_to_ticks((uint64_t)(j->duration * 1e9));
		}
		if (j->duration > 0 ? (i >= j->warmup && nm_ticks() >= end_ticks) : i >= j->warmup + j->iters)
			break;
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int key = (int)((rng >> 20) % (uint64_t)j->keys);
		bool get = (uint32_t)rng < get_thresh;
		uint64_t t0 = nm_ticks();
		if (get) {
			uint64_t raddr = cn->rmr.addr + (size_t)key * j->rec, sum, h[4];
			for (int tries = 0;; tries++) {
				nm_post_rw(cn, NM_OP_READ, getb, j->mr.mr->lkey, raddr, (uint32_t)j->rec,
					   NM_WRID(NM_OP_READ, 0), true);
				nm_poll_wait(pl, &wc, 1);
				memcpy(h, getb, HDR);
				memcpy(&sum, getb + HDR + j->vsize, 8);
				if (sum == rec_sum(getb, j->vsize))
					break;
				t->retries++;
				if (tries > 100000)
					nm_fatal("GET of key %d never read a consistent bucket", key);
			}
			t->checked++;
			if (h[1] != key_word(key) || !value_ok(getb + HDR, j->vsize, key, h[2]))
				mismatch(t, "GET of key %d on rank %d returned a value no PUT wrote (tag %" PRIx64 ")",
					 key, j->server, h[2]);
		} else {
			seq++;
			put_record(putb, j->vsize, seq, key, ((uint64_t)(conn + 1) << 32) | seq);
			nm_post_rw(cn, NM_OP_WRITE, putb, j->mr.mr->lkey,
				   cn->rmr.addr + j->mbox_off + (size_t)conn * j->rec, (uint32_t)j->rec,
				   NM_WRID(NM_OP_WRITE, 0), true);
			nm_poll_wait(pl, &wc, 1);
			uint64_t since = nm_ticks();
			for (uint32_t spins = 0; *ack != seq; spins++)
				if ((spins & 4095) == 0 && nm_ticks() - since > timeout)
					nm_fatal("connection %d: PUT %" PRIu64 " of key %d not acknowledged by "
						 "rank %d within %.0f s", conn, seq, key, j->server, j->timeout);
		}
		uint64_t ns = nm_ticks_to_ns(nm_ticks() - t0);
		if (i >= j->warmup) {
			nm_hist_add(&t->hist, ns);
			t->measured++;
			if (get) {
				t->gets++;
				t->get_ns += ns;
			} else {
				t->puts++;
				t->put_ns += ns;
			}
		}
	}
	t->elapsed_ns = nm_ticks_to_ns(nm_ticks() - start);
	put_record(putb, j->vsize, DONE_SEQ, 0, 0);
	nm_post_rw(cn, NM_OP_WRITE, putb, j->mr.mr->lkey, cn->rmr.addr + j->mbox_off + (size_t)conn * j->rec,
		   (uint32_t)j->rec, NM_WRID(NM_OP_WRITE, 0), true);
	nm_poll_wait(pl, &wc, 1);
	t->acked = seq;
}

static void kv_setup(nm_worker *w)
{
	kv_job *j = w->arg;
	kv_thread *t = &j->th[w->index];
	t->job = j;
	nm_hist_init(&t->hist);
	bool active = j->rank == j->server ? w->index == 0 : true;
	nm_cpu_place_start(&t->cp, w->cpu, active ? j->node : -1);
}

static void kv_body(nm_worker *w)
{
	kv_job *j = w->arg;
	kv_thread *t = &j->th[w->index];
	if (j->rank == j->server && w->index != 0) {
		nm_cpu_place_end(&t->cp);
		return;
	}
	nm_poller pl;
	nm_poller_init(&pl, &j->mesh, w->index, j->timeout);
	if (j->rank == j->server)
		serve(j, &pl);
	else
		client(j, t, w->index, &pl);
	nm_cpu_place_end(&t->cp);
}

/* Resolves this rank's node for the scenario; 1 = skipped point. */
static int kv_place(nm_ctx *ctx, const json_t *pt, kv_job *j, json_t *out)
{
	char why[512] = "", e[256];
	const char *bad = NULL, *req = scenario_req(nm_cfg_str(pt, "scenario"), j->rank == j->server);
	nm_place p;
	nm_place_parse(req, &p, "--scenario", e, sizeof e);
	nm_numa_view_load(&j->view, ctx->dev->ctx->device, &j->nic);
	j->node = j->load_node = -1;
	char what[96];
	snprintf(what, sizeof what, "--scenario %s (%s %s)", nm_cfg_str(pt, "scenario"),
		 j->rank == j->server ? "server" : "client", req);
	int n2;
	if (nm_place_resolve(&p, &j->view, NM_NEED_CPUS, &j->node, what, why, sizeof why) ||
	    nm_place_resolve(&p, &j->view, NM_NEED_MEMORY, &n2, what, why, sizeof why))
		bad = "scenario";
	if (!bad && j->rank == j->server && j->load_threads > 0) {
		nm_place lp;
		nm_place_parse(nm_cfg_str(pt, "load_node"), &lp, "--load-node", e, sizeof e);
		if (nm_place_resolve(&lp, &j->view, NM_NEED_CPUS, &j->load_node, "--load-node", why,
				     sizeof why) ||
		    nm_place_resolve(&lp, &j->view, NM_NEED_MEMORY, &n2, "--load-node", why, sizeof why))
			bad = "load_node";
	}
	if (nm_placement_unresolved(ctx->spec, bad, why, out))
		return 1;
	snprintf(j->request, sizeof j->request, "%s", req);
	int harness_node = (int)nm_cfg_int(pt, "mem_node");
	if (j->node < 0 && harness_node >= 0) {
		j->node = harness_node;
		snprintf(j->request, sizeof j->request, "--mem-node %d", harness_node);
	}
	return 0;
}

static void kv_run(nm_ctx *ctx, const json_t *pt, json_t *out)
{
	kv_job j = {.rank = ctx->rank, .nranks = ctx->nranks, .server = ctx->nranks - 1};
	int R = ctx->nranks;
	char err[512];
	j.T = (int)nm_cfg_int(pt, "threads");
	j.nconn = (R - 1) * j.T;
	j.keys = (int)nm_cfg_int(pt, "keys");
	j.vsize = (size_t)nm_cfg_int(pt, "value_size");
	j.rec = (HDR + j.vsize + 8 + 63) & ~(size_t)63;
	j.get_ratio = nm_cfg_double(pt, "get_ratio");
	j.iters = (uint64_t)nm_cfg_int(pt, "iters");
	j.duration = nm_cfg_double(pt, "duration");
	int64_t wu = nm_cfg_int(pt, "warmup");
	j.warmup = wu >= 0 ? (uint64_t)wu : j.duration > 0 ? 100 : (j.iters / 10 < 1000 ? j.iters / 10 : 1000);
	j.timeout = nm_cfg_double(pt, "timeout");
	j.seed = (uint64_t)nm_cfg_int(pt, "seed") * 1000003u + (uint64_t)ctx->rep;
	j.load_threads = (int)nm_cfg_int(pt, "load_threads");
	j.load_buf = nm_cfg_int(pt, "load_buf");
	j.load_mix = nm_cfg_double(pt, "load_mix");
	if (kv_place(ctx, pt, &j, out))
		return;
	bool server = ctx->rank == j.server;

	/* memory: the server's table, mailboxes and ack sources; a client's
	 * per-connection GET, PUT and ack areas */
	j.mbox_off = (size_t)j.keys * j.rec;
	j.ack_off = j.mbox_off + (size_t)j.nconn * j.rec;
	j.thread_area = 2 * j.rec + 64;
	size_t total = server ? j.ack_off + 8 * (size_t)j.nconn : j.thread_area * (size_t)j.T;
	bool huge = nm_cfg_bool(pt, "hugepages");
	int failed = nm_mr_alloc(ctx->dev, &j.mr, total, huge, j.node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	size_t page = huge ? (size_t)2 << 20 : (size_t)sysconf(_SC_PAGESIZE);
	nm_pages_census(j.mr.buf, j.mr.alloc_len, page, j.node, &j.census[0]);
	if (server)
		preload(&j);

	uint8_t *m = calloc((size_t)R * R, 1);
	for (int c = 0; c < R - 1; c++)
		m[c * R + j.server] = m[j.server * R + c] = 1;
	nm_mesh_cfg mc = {.nthreads = j.T, .qps = 1, .initiates = m};
	mc.qp = ctx->base.qp;
	mc.qp.sq_depth = server ? 2 * j.T + 16 : 4;
	nm_numa_saved saved;
	failed = nm_numa_bind_thread(j.node, &saved, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_numa_policy_str(j.qp_policy, sizeof j.qp_policy);
	nm_mesh_create(&j.mesh, ctx->dev, &mc, &j.mr);
	nm_numa_unbind_thread(&saved);

	failed = server && j.load_threads > 0 &&
		 nm_loadproc_start(&j.load, j.load_threads, j.load_node, j.load_buf, j.load_mix, j.seed,
				   err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	j.th = calloc((size_t)j.T, sizeof *j.th);
	nm_round rd = {.workers = j.T, .numa_node = j.node, .setup = kv_setup, .body = kv_body, .arg = &j};
	nm_workers_run(&rd);
	if (j.load_threads > 0) { /* every rank is done: nm_workers_run ends in a barrier */
		failed = j.load.pid > 0 && !(j.load_result = nm_loadproc_stop(&j.load, err, sizeof err));
		nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	}
	if (server)
		check_table(&j);
	nm_pages_census(j.mr.buf, j.mr.alloc_len, page, j.node, &j.census[1]);

	/* placement record */
	nm_cpu_place *cps = calloc((size_t)j.T, sizeof *cps);
	int *ids = calloc((size_t)j.T, sizeof *ids), nact = server ? 1 : j.T;
	for (int t = 0; t < nact; t++) {
		cps[t] = j.th[t].cp;
		ids[t] = t;
	}
	nm_rank_place rp = {.role = server ? "server" : "client", .view = &j.view, .nic = &j.nic,
			    .emulated = ctx->dev->emulated, .mem_request = j.request, .mem_node = j.node,
			    .mem_bytes = j.mr.alloc_len, .census = j.census, .misplaced_to = -1,
			    .qp_node = j.node, .qp_policy = j.qp_policy, .threads = cps, .thread_ids = ids,
			    .nthreads = nact, .load = j.load_result};
	bool mine_ok, place_ok = true;
	char mine_first[600], place_err[600] = "";
	json_t *mine = nm_rank_place_json(ctx->rank, &rp, &mine_ok, mine_first, sizeof mine_first);
	json_t *placement = nm_job_place(ctx->rank, R, mine, mine_first, &place_ok, place_err,
					 sizeof place_err);
	free(cps);
	free(ids);

	/* gather counts and latencies */
	nm_hist h;
	nm_hist_init(&h);
	uint64_t v[13] = {0}, max_el = 0;
	char first[320] = "";
	for (int t = 0; !server && t < j.T; t++) {
		kv_thread *th = &j.th[t];
		nm_hist_merge(&h, &th->hist);
		v[0] += th->measured, v[1] += th->gets, v[2] += th->puts, v[3] += th->retries;
		v[4] += th->checked, v[5] += th->mismatches, v[6] += th->get_ns, v[7] += th->put_ns;
		v[8] += th->acked;
		if (th->elapsed_ns > max_el)
			max_el = th->elapsed_ns;
		if (th->mismatches && !*first)
			snprintf(first, sizeof first, "rank %d connection %d: %s", ctx->rank, t, th->first_error);
	}
	v[9] = j.applied;
	v[10] = j.server_mismatches;
	v[11] = (uint64_t)json_integer_value(json_object_get(j.load_result, "ops"));
	v[12] = (uint64_t)json_number_value(json_object_get(j.load_result, "ops_per_sec"));
	if (server && j.server_mismatches)
		snprintf(first, sizeof first, "server (rank %d): %s", ctx->rank, j.server_error);
	nm_boot_sum_u64_array(v, 13);
	max_el = nm_boot_max_u64(max_el);
	char **errs = nm_boot_gather_str(first, 0);
	nm_boot_hist_merge(&h);
	if (ctx->rank == 0) {
		const char *fe = "";
		for (int r = 0; r < R && !*fe; r++)
			fe = errs[r];
		if (!*fe && v[8] != v[9])
			fe = "the server applied a different number of PUTs than the clients saw acknowledged";
		if (!*fe && !place_ok)
			fe = place_err;
		bool ok = v[5] == 0 && v[10] == 0 && v[8] == v[9] && v[0] > 0 && place_ok;
		double secs = (double)max_el / 1e9, ops_s = secs > 0 ? (double)v[0] / secs : 0;
		json_t *checks = json_pack("{s:{s:I, s:I, s:b}, s:{s:I, s:I, s:b}, s:{s:I, s:b}, s:{s:b, s:s?}}",
					   "gets", "checked", (json_int_t)v[4], "mismatches", (json_int_t)v[5],
					   "ok", v[5] == 0, "puts", "acknowledged", (json_int_t)v[8], "applied",
					   (json_int_t)v[9], "ok", v[8] == v[9], "table", "server_errors",
					   (json_int_t)v[10], "ok", v[10] == 0, "placement", "ok", place_ok,
					   "first_error", place_ok ? NULL : place_err);
		if (*fe)
			json_object_set_new(checks, "first_error", json_string(fe));
		json_t *metrics = json_pack(
			"{s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:f, s:f, s:o}", "ops", (json_int_t)v[0], "gets",
			(json_int_t)v[1], "puts", (json_int_t)v[2], "seconds", secs, "ops_per_sec", ops_s, "mops",
			ops_s / 1e6, "get_retries", (json_int_t)v[3], "get_lat_mean_us",
			v[1] ? (double)v[6] / (double)v[1] / 1e3 : 0.0, "put_lat_mean_us",
			v[2] ? (double)v[7] / (double)v[2] / 1e3 : 0.0, "lat", nm_hist_summary_json(&h));
		if (j.load_threads > 0)
			json_object_set_new(metrics, "load", json_pack("{s:I, s:I}", "ops", (json_int_t)v[11],
								       "ops_per_sec", (json_int_t)v[12]));
		json_object_set_new(out, "valid", json_boolean(ok));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics", metrics);
		json_object_set_new(out, "effective",
				    json_pack("{s:i, s:i, s:I, s:I}", "connections", j.nconn, "server_rank",
					      j.server, "record_bytes", (json_int_t)j.rec, "warmup",
					      (json_int_t)j.warmup));
		json_object_set_new(out, "placement", placement);
		for (int r = 0; r < R; r++)
			free(errs[r]);
		free(errs);
	}
	json_decref(j.load_result);
	free(j.th);
	free(m);
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
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
	       json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID");
}

static int kv_validate_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	(void)out;
	return kv_validate(pt, b->nranks, err, len);
}

static void kv_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	(void)point;
	kv_run(ctx, ctx->pt, out);
}

static const nm_experiment kv_experiment = {
	.name = "numa-kv",
	.summary = "memcached-like GET/PUT service over raw verbs under NUMA placements (NUMA Fig. 6)",
	.details =
		"The last rank serves (one worker thread, a preloaded table); every other rank runs\n"
		"-T client connections. GET is one RDMA READ of the key's bucket (checksummed, read\n"
		"again if caught mid-update); PUT WRITEs the record into the connection's mailbox\n"
		"and waits for the server's acknowledgement WRITE. Every GET's value is verified.\n\n"
		"Examples:\n"
		"  mpirun -np 2 netmem numa-kv --scenario both-local,client-local,both-remote -T 1,4,8\n"
		"  mpirun -np 2 netmem numa-kv -T 8 --load-threads 20 --load-node nic --load-buf 1G",
	.opts = kv_opts,
	.min_ranks = 2,
	.decode = kv_validate_decode,
	.run = kv_run_point,
	.report = kv_report,
};
NM_EXPERIMENT(kv_experiment)
