/* netmem clover: Clover's passive key-value store (Tsai, Shan and Zhang,
 * ATC'20, as the in-network contention paper of Grant and Snoeren describes
 * it in Sec. 2: append-only chains, c&s on the tail, chain walking) over raw
 * verbs, with that paper's contention resolution in the packet path
 * (--resolve; the path itself is workloads/clover/clover_path.c, its
 * algorithm primitives/packet/clover_resolve.h).
 *
 * Roles, from the rank layout: rank 0 is the metadata server, the last
 * --memory-nodes ranks are memory nodes, the ranks in between are clients
 * with -T threads each. A memory node's CPU does nothing on the data path:
 * it lays out the chains before the run and walks them after it.
 *
 * This file is the experiment: options and decode, each role's part of a
 * point around the store of clover_store.c (the metadata server of
 * clover_ms.c on rank 0, the packet path on the memory node, the client
 * threads), and the result: checks, metrics and the decisions taken.
 * Defaults from the contention paper's experiments: 1024 keys, YCSB-A (50%
 * updates), Zipf 0.75 (YCSB's unscrambled zipfian). */
#include "clover.h"
#include "clover_path.h"
#include "clover_ms.h"
#include "clover_route.h"
#include "clover_pool.h"
#include "boot.h"
#include "log.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const nm_counter cl_counters[CL_C_N] = {
	KV_COUNTER_ROWS,
	[CL_C_CAS] = {"cas", NM_COUNT_METRIC},
	[CL_C_CAS_FAILED] = {"cas_failed", NM_COUNT_METRIC},
	[CL_C_READ_HOPS] = {"read_hops", NM_COUNT_METRIC},
	[CL_C_WRITE_HOPS] = {"write_hops", NM_COUNT_METRIC},
	[CL_C_RTTS] = {"round_trips", NM_COUNT_METRIC},
	[CL_C_ACKED] = {"acked_writes", NM_COUNT_METRIC},
	[CL_C_CHAINED] = {"chained_versions", NM_COUNT_METRIC},
	[CL_C_SHORTCUTS] = {"shortcut_jumps", NM_COUNT_METRIC},
	[CL_C_EXHAUSTED] = {"pool_exhausted", NM_COUNT_METRIC},
	[CL_C_X_ACKED] = {"acked_before_run_out", 0},
	[CL_C_X_US] = {"us_before_run_out", 0},
};

/* --resolve's values, in options and results (cl_resolve). */
static const char *const cl_resolve_names[] = {"none", "off", "on"};

/* ---- options and decode ------------------------------------------------------ */

static const nm_opt cl_opts[] = {
	{"workload", 'w', NM_OPT_STR, "a", 0, 0, NULL, NM_OPT_LIST,
	 "read-only, mixed (--write-ratio updates), write-only, or a YCSB letter (a: 50% updates, b: 5%, c: 0%)"},
	{"write-ratio", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, NM_OPT_LIST, "updates in the mixed workload"},
	{"dist", 0, NM_OPT_ENUM, "zipfian", 0, 0, "uniform,zipfian,scrambled,latest,hotspot", NM_OPT_LIST,
	 "key distribution (zipfian: YCSB's, unscrambled; rank 0 is the hottest key)"},
	{"theta", 0, NM_OPT_DOUBLE, "0.75", -1e9, 1e9, NULL, NM_OPT_LIST, "Zipf exponent, in (0, 10]"},
	{"keys", 'K', NM_OPT_SIZE, "1024", 0, 1ll << 24, NULL, NM_OPT_LIST, "keys (the paper: 1024)"},
	{"value-size", 's', NM_OPT_SIZE, "8", 8, 4096, NULL, NM_OPT_LIST, "value bytes, a multiple of 8"},
	{"memory-nodes", 'M', NM_OPT_INT, "1", -1e9, 1e9, NULL, 0, "memory nodes: the last ranks (see --roles)"},
	{"roles", 0, NM_OPT_ENUM, "clients-first", 0, 0, "clients-first,memory-first", 0,
	 "the order of the roles after the metadata server (rank 0): clients-first (the clients, then the memory "
	 "nodes) or memory-first (the memory nodes, then the clients: with a config's \"hosts\" the metadata "
	 "server and the memory node share a host, as in the paper's testbed); the forwarding host is the last "
	 "rank either way"},
	{"slots", 0, NM_OPT_SIZE, "0", 0, 1ll << 30, NULL, 0,
	 "version slots per client thread per memory node (0: warm-up + iterations, or 65536 with --duration; "
	 "with --duration a pool that runs out is sized again from the rate reached, once)"},
	{"resolve", 0, NM_OPT_ENUM, "none", 0, 0, "none,off,on", NM_OPT_LIST,
	 "contention resolution in the packet path: none (no path), off (through the path, no rewriting), on"},
	{"track", 0, NM_OPT_SIZE, "0", 0, 1ll << 24, NULL, NM_OPT_LIST,
	 "keys the path tracks and resolves, the hottest first (0: every key)"},
	{"queue", 0, NM_OPT_INT, "4791", 0, 65535, NULL, 0, "the path's NFQUEUE number"},
	{"path", 0, NM_OPT_ENUM, "local", 0, 0, "local,forward", 0,
	 "where the packets meet the path: local (the memory node's host, Soft-RoCE only) or forward (the last "
	 "rank's host, alone there and without an RDMA device, routes between all the others' hosts and runs "
	 "the path; needs root)"},
	{"trace", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "replay this trace instead of --workload (ycsb.h's format, Clover's numeric ops included: 0 read, "
	 "else write; keys below --keys); each thread starts at its own offset and wraps"},
	NM_OPT_ITERS("10000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	NM_OPT_END,
};

static int cl_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cl_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int cl_decode_mix(const json_t *pt, cl_point *c, char *err, size_t len)
{
	kv_load *p = &c->load;
	const char *w = nm_cfg_str(pt, "workload");
	snprintf(c->workload, sizeof c->workload, "%s", w);
	if (ycsb_parse_workload(w, nm_cfg_double(pt, "write_ratio"), &p->mix, NULL, err, len))
		return -1;
	if (p->mix.p[YCSB_SCAN] > 0 || p->mix.p[YCSB_INSERT] > 0)
		return cl_fail(err, len, "--workload %s has scans or inserts; netmem clover runs gets and updates", w);
	if (ycsb_parse_dist(nm_cfg_str(pt, "dist"), &p->dist, err, len))
		return -1;
	if (!(p->theta > 0 && p->theta <= 10))
		return cl_fail(err, len, "--theta %g: the Zipf exponent must be in (0, 10]", p->theta);
	return 0;
}

static cl_resolve resolve_of(const char *s)
{
	for (int i = CL_RESOLVE_NONE; i <= CL_RESOLVE_ON; i++)
		if (!strcmp(s, cl_resolve_names[i]))
			return (cl_resolve)i;
	return CL_RESOLVE_NONE;   /* the option table admits nothing else */
}

/* --path forward: the last rank is the forwarding host's, alone there (its
 * host routes the others' packets and opens no device). */
static bool cl_without_device(const json_t *spec, int rank, int nranks)
{
	return !strcmp(nm_cfg_str(spec, "path"), "forward") && rank == nranks - 1;
}

/* Rank `rank`'s job of a point in a job of N ranks: rank 0 the metadata
 * server, mem_nodes memory nodes and the clients in --roles' order. */
static cl_job cl_job_of(const cl_point *cp, const nm_base *b, int rank, int N)
{
	return (cl_job){.cp = cp, .p = &cp->load, .rank = rank, .N = N, .T = b->threads, .M = cp->mem_nodes,
			.F = cp->forward, .clients = N - 1 - cp->mem_nodes - cp->forward, .timeout = b->timeout,
			.memory_first = cp->memory_first};
}

/* The packet path sees only what crosses its host's IP stack: on the memory
 * node's host (local), rxe hands traffic between its own GIDs over an
 * internal loopback, so a client there would bypass it; a forwarding host
 * sees what crosses between hosts, so a client on the memory node's host
 * would bypass that too. */
static int cl_decode_path(const json_t *pt, cl_point *c, const nm_base *b, char *err, size_t len)
{
	c->resolve = resolve_of(nm_cfg_str(pt, "resolve"));
	c->track = (uint64_t)nm_cfg_int(pt, "track");
	c->queue = (int)nm_cfg_int(pt, "queue");
	const uint64_t *host = b->hosts;
	cl_job roles = cl_job_of(c, b, 0, b->nranks);
	int fwd = b->nranks - 1, mem = first_mem(&roles);
	for (int r = 0; c->forward && r < fwd; r++)
		if (host[r] == host[fwd])
			return cl_fail(err, len, "--path forward: rank %d shares the forwarding host of rank %d (the last); "
				       "that host must hold its rank alone (slots=1, listed last in the hostfile)", r, fwd);
	if (c->resolve == CL_RESOLVE_NONE)
		return 0;
	if (c->track == 0 || c->track > c->load.keys)
		c->track = c->load.keys;
	if (c->mem_nodes != 1)
		return cl_fail(err, len, "--resolve %s runs one packet path, for one memory node (the paper's set-up); "
			       "use --memory-nodes 1", cl_resolve_names[c->resolve]);
	for (int r = first_client(&roles); r < first_client(&roles) + roles.clients; r++)
		if (host[r] == host[mem])
			return cl_fail(err, len, "--resolve %s: client rank %d shares the memory node's host (rank %d); "
				       "its packets would bypass the path (rxe's loopback skips netfilter): keep the clients "
				       "off the memory node's host (a config's \"hosts\", or a hostfile whose memory-node host "
				       "has one slot)",
				       cl_resolve_names[c->resolve], r, mem);
	return 0;
}

/* A trace replaces the generator: gets and updates of existing keys only. */
static int cl_decode_trace(const json_t *pt, cl_point *c, char *err, size_t len)
{
	const json_t *v = json_object_get(pt, "trace");
	if (!json_is_string(v) || !*json_string_value(v))
		return 0;
	if (ycsb_trace_load(json_string_value(v), &c->trace, &c->trace_n, err, len))
		return -1;
	for (size_t i = 0; i < c->trace_n; i++) {
		const ycsb_req *r = &c->trace[i];
		if (r->op == YCSB_SCAN || r->op == YCSB_INSERT)
			return cl_fail(err, len, "--trace %s: request %zu is a %s; netmem clover replays reads and updates",
				       json_string_value(v), i + 1, ycsb_op_name((ycsb_op)r->op));
		if (r->key >= c->load.keys)
			return cl_fail(err, len, "--trace %s: request %zu has key %" PRIu64 ", outside --keys %" PRIu64,
				       json_string_value(v), i + 1, r->key, c->load.keys);
	}
	snprintf(c->workload, sizeof c->workload, "trace");
	return 0;
}

static void cl_point_free(void *point)
{
	cl_point *c = point;
	free(c->trace);
	c->trace = NULL;
}

static int cl_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	cl_point *c = out;
	kv_load *p = &c->load;
	int64_t m = nm_cfg_int(pt, "memory_nodes");
	/* versions are each writer's own sequence: a key's are compared per writer */
	*c = (cl_point){.load = {.theta = nm_cfg_double(pt, "theta"), .keys = (uint64_t)nm_cfg_int(pt, "keys"),
				 .value_size = (uint32_t)nm_cfg_int(pt, "value_size"), .global_versions = false},
			.mem_nodes = (int)m, .slots = (uint64_t)nm_cfg_int(pt, "slots"),
			.forward = !strcmp(nm_cfg_str(pt, "path"), "forward"),
			.memory_first = !strcmp(nm_cfg_str(pt, "roles"), "memory-first")};
	if (cl_decode_mix(pt, c, err, len))
		return -1;
	if (p->keys == 0)
		return cl_fail(err, len, "--keys 0: the store needs at least one key");
	if (m < 1)
		return cl_fail(err, len, "--memory-nodes %" PRId64 ": at least one memory-node rank is needed", m);
	if (b->nranks < 2 + m + c->forward)
		return cl_fail(err, len, "%d ranks: no room for the metadata server (rank 0), %" PRId64
			       " memory node(s) (%s) and a client rank; run at least %" PRId64 " ranks",
			       b->nranks, m, c->memory_first ? "ranks 1 on, --roles memory-first"
			       : c->forward ? "the last ranks but the forwarding host's" : "the last ranks",
			       2 + m + c->forward);
	if (p->value_size % 8)
		return cl_fail(err, len, "--value-size %u is not a multiple of 8", p->value_size);
	p->value_words = p->value_size / 8;
	p->prefill = p->keys;   /* every key has its first version before the run */
	if (c->slots == 0)
		c->slots = b->measure.duration > 0 ? 65536 : b->measure.iters + b->measure.warmup;
	if (cl_decode_trace(pt, c, err, len))
		return -1;
	return cl_decode_path(pt, c, b, err, len);
}

/* ---- the metadata server (rank 0) ------------------------------------------------------ */

/* Every memory node's pool: the version slots after its heads. */
static void cl_ms_up(cl_job *j, cl_ms *ms)
{
	uint64_t *lo = nm_calloc((size_t)j->M, sizeof *lo), *hi = nm_calloc((size_t)j->M, sizeof *hi);
	for (int m = 0; m < j->M; m++) {
		const nm_rmr *r = &j->mesh.rmr[first_mem(j) + m];
		lo[m] = r->addr + part_off(j, m, 0);
		hi[m] = r->addr + part_off(j, m, (uint64_t)j->clients * (uint64_t)j->T);
	}
	cl_ms_cfg c = {.mesh = &j->mesh, .first_client = first_client(j), .clients = j->clients, .threads = j->T,
		       .first_mem = first_mem(j), .mem_nodes = j->M, .pool_lo = lo, .pool_hi = hi,
		       .slot_bytes = j->slot_bytes, .buf = j->mr.buf, .lkey = j->mr.mr->lkey};
	cl_ms_start(ms, &c);
	free(lo);   /* cl_ms_start copied what it needs */
	free(hi);
}

/* ---- the packet path (the memory node's host starts and stops it, or the forwarder's) ---- */

static size_t path_conns(const cl_job *j) { return (size_t)j->clients * (size_t)j->T + 16; }

/* Collective: every rank learns whether the path came up. Its tracked keys
 * start with their first versions as tails (the chains are fresh). */
static void cl_path_up(cl_job *j, cl_path *path, const nm_dev *dev)
{
	const cl_point *cp = j->cp;
	char err[700] = "";
	bool runs_path = cp->forward ? is_fwd(j, j->rank) : is_mem(j, j->rank);
	if (!cp->forward && is_mem(j, j->rank) && !dev->emulated)
		snprintf(err, sizeof err, "clover: --resolve %s puts the packet path on the memory node's host, which "
			 "sees RoCE packets only with Soft-RoCE (a NIC bypasses its host's kernel): on hardware, add a "
			 "host that routes between the others as the last rank and run --path forward "
			 "(workloads/clover/README.md)", cl_resolve_names[cp->resolve]);
	else if (runs_path) {
		uint64_t n = cp->track, *keys = nm_malloc(n * sizeof *keys), *tails = nm_malloc(n * sizeof *tails);
		for (uint64_t r = 0; r < n; r++) {
			keys[r] = kv_key(r);
			tails[r] = cl_head_va(j, r);
		}
		cl_path_cfg pc = {.queue = cp->queue, .rewrite = cp->resolve == CL_RESOLVE_ON, .forward = cp->forward,
				  .conns = path_conns(j),
				  .ntrack = n, .keys = keys, .tails = tails, .timeout = j->timeout};
		cl_path_start(path, &pc, err, sizeof err);
		free(keys);
		free(tails);
	}
	nm_boot_check(err[0] ? err : NULL, NM_EXIT_FAIL);
}

/* Stops the path (memory node) and sums what it saw on every rank. */
static void cl_path_down(cl_job *j, cl_path *path, nm_measure *ms, cl_path_stats *st)
{
	char err[700];
	*st = (cl_path_stats){0};
	if (path->running && cl_path_stop(path, st, err, sizeof err))
		nm_error_note(&ms->rank_err, "%s", err);
	nm_boot_sum_u64_array((uint64_t *)st, CL_PATH_STATS_WORDS);
}

/* Every client CAS crossed the path (a bypass would leave the path's state
 * stale), and, with rewriting on, no CAS the path sent to the tail it knew
 * failed (so none landed on a non-tail). With rewriting off a stale tail
 * only miscounts a conflict; it is reported, not held against the point. */
static json_t *cl_path_check(const cl_path_stats *st, const uint64_t *c, bool rewrite, bool *ok)
{
	const nm_rw_counters *rw = &st->rw;
	uint64_t seen = rw->cas_seen - rw->retransmits;
	*ok = seen == c[CL_C_CAS] && (!rewrite || rw->stale_tail == 0) && st->verdict_errors == 0;
	return json_pack("{s:I, s:I, s:I, s:I, s:b}", "client_cas", (json_int_t)c[CL_C_CAS], "path_cas",
			 (json_int_t)seen, "stale_tail", (json_int_t)rw->stale_tail, "verdict_errors",
			 (json_int_t)st->verdict_errors, "ok", *ok);
}

static json_t *cl_path_metrics(const cl_job *j, const cl_path_stats *st)
{
	json_t *o = cl_path_stats_json(st);
	json_object_set_new(o, "state_bytes", json_integer((json_int_t)nm_rw_state_bytes(j->cp->track, path_conns(j))));
	json_object_set_new(o, "keys_tracked", json_integer((json_int_t)j->cp->track));
	return o;
}

/* Round trips per measured operation over the job's client threads. */
static json_t *cl_rtt_json(cl_job *j)
{
	/* On the heap: a histogram is 224 KiB (stats.h). */
	nm_hist *h = nm_calloc(1, sizeof *h);
	nm_hist_init_zeroed(h);
	for (int t = 0; is_client(j, j->rank) && t < j->T; t++)
		nm_hist_merge(h, &j->rtt[t]);
	nm_boot_hist_merge(h);
	json_t *o = json_pack("{s:f, s:f, s:f, s:I}", "p50", nm_hist_quantile(h, 0.5), "p99", nm_hist_quantile(h, 0.99),
			      "mean", nm_hist_mean(h), "max", (json_int_t)(h->count ? h->max : 0));
	free(h);
	return o;
}


static json_t *cl_checks(const cl_job *j, const nm_measure *ms, const cl_path_stats *st, uint64_t served, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool path_ok = true, rpcs_ok = served == c[KV_C_RPCS];
	json_t *path = j->cp->resolve != CL_RESOLVE_NONE ? cl_path_check(st, c, j->cp->resolve == CL_RESOLVE_ON, &path_ok) : NULL;
	bool reads_ok = c[KV_C_TORN] == 0 && c[KV_C_FOREIGN] == 0 && c[KV_C_REGRESSED] == 0;
	bool chains_ok = c[KV_C_BAD_SLOTS] == 0 && c[CL_C_CHAINED] == c[CL_C_ACKED];
	bool pool_ok = c[CL_C_EXHAUSTED] == 0;
	*valid = reads_ok && chains_ok && path_ok && rpcs_ok && pool_ok && ms->errors == 0 && ms->ops > 0;
	json_t *o = json_pack("{s:{s:I, s:I, s:I, s:b}, s:{s:I, s:I, s:I, s:b}}", "reads", "torn",
			      (json_int_t)c[KV_C_TORN], "foreign", (json_int_t)c[KV_C_FOREIGN], "regressed",
			      (json_int_t)c[KV_C_REGRESSED], "ok", reads_ok, "chains", "bad_chains",
			      (json_int_t)c[KV_C_BAD_SLOTS], "acked_writes", (json_int_t)c[CL_C_ACKED],
			      "chained_versions", (json_int_t)c[CL_C_CHAINED], "ok", chains_ok);
	if (path)
		json_object_set_new(o, "path", path);
	json_object_set_new(o, "rpcs", json_pack("{s:I, s:I, s:b}", "sent", (json_int_t)c[KV_C_RPCS], "served",
						 (json_int_t)served, "ok", rpcs_ok));
	json_object_set_new(o, "pool", json_pack("{s:I, s:I, s:b}", "slots_per_thread", (json_int_t)j->cp->slots,
						 "updates_unwritten", (json_int_t)c[CL_C_EXHAUSTED], "ok", pool_ok));
	if (ms->first_error[0])
		json_object_set_new(o, "first_error", json_string(ms->first_error));
	return o;
}

static void cl_metrics(json_t *mt, const uint64_t *c, json_t *rtt)
{
	double upd = (double)c[KV_C_UPDATES], gets = (double)c[KV_C_GETS], acked = (double)c[CL_C_ACKED];
	json_object_set_new(mt, "cas_per_write", json_real(acked ? (double)c[CL_C_CAS] / acked : 0));
	json_object_set_new(mt, "cas_failures_per_write", json_real(acked ? (double)c[CL_C_CAS_FAILED] / acked : 0));
	json_object_set_new(mt, "hops_per_read", json_real(gets ? (double)c[CL_C_READ_HOPS] / gets : 0));
	json_object_set_new(mt, "hops_per_write", json_real(upd ? (double)c[CL_C_WRITE_HOPS] / upd : 0));
	json_object_set_new(mt, "rtts", rtt);
	json_object_set_new(mt, "metadata_rpcs", json_integer((json_int_t)c[KV_C_RPCS]));
}

/* What the point ran, with the decisions taken (as named fields, not positions). */
static json_t *cl_effective(const cl_job *j, const nm_ctx *ctx)
{
	const kv_load *p = j->p;
	json_t *o = json_object();
	json_object_set_new(o, "workload", json_string(j->cp->workload));
	json_object_set_new(o, "write_ratio", json_real(p->mix.p[YCSB_UPDATE] + p->mix.p[YCSB_RMW]));
	json_object_set_new(o, "theta", json_real(p->theta));
	json_object_set_new(o, "keys", json_integer((json_int_t)p->keys));
	json_object_set_new(o, "value_size", json_integer(p->value_size));
	json_object_set_new(o, "metadata_rank", json_integer(0));
	json_object_set_new(o, "memory_nodes", json_integer(j->M));
	json_object_set_new(o, "roles", json_pack("{s:s, s:i, s:i, s:i, s:i}", "order",
						  j->memory_first ? "memory-first" : "clients-first", "metadata_rank", 0,
						  "first_memory_rank", first_mem(j), "first_client_rank", first_client(j),
						  "forwarding_rank", j->F ? j->N - 1 : -1));
	json_object_set_new(o, "client_ranks", json_integer(j->clients));
	json_object_set_new(o, "threads_per_client", json_integer(ctx->base.threads));
	json_object_set_new(o, "client_threads", json_integer(j->clients * ctx->base.threads));
	json_object_set_new(o, "slots_per_thread", json_integer((json_int_t)j->cp->slots));
	json_object_set_new(o, "resolve", json_string(cl_resolve_names[j->cp->resolve]));
	if (j->cp->resolve != CL_RESOLVE_NONE) {
		json_object_set_new(o, "keys_tracked", json_integer((json_int_t)j->cp->track));
		json_object_set_new(o, "path", json_string(j->F ? "NFQUEUE on the forwarding host (netmem clover-path, "
							    "hook forward), rules and process started and stopped per point"
							  : "NFQUEUE on the memory node's host (netmem clover-path, "
							    "hook local), rules and process started and stopped per point"));
	}
	if (j->F)
		json_object_set_new(o, "forwarding", json_pack("{s:i, s:s}", "rank", j->N - 1, "routes",
							       "per point: a /32 route on every other host to each other host's "
							       "RDMA address via the forwarder (proto 110); on the forwarder, "
							       "IPv4 forwarding on and ICMP redirects off on the RDMA links' "
							       "interfaces only; every setting they move restored at the point's "
							       "end or the rank's death (netmem cleanup if its janitor was "
							       "killed)"));
	json_object_set_new(o, "allocation", json_string("batches of 16 free version slots from the metadata server "
							 "(rank 0) by RPC over SEND/RECV, as Clover's clients get them"));
	json_object_set_new(o, "shortcut", json_string("per key, READ with each get's first READ and jumped to once; "
						       "written by the writer after its CAS succeeds"));
	json_object_set_new(o, "gc", json_string("none (versions are never reused); with --duration a pool that "
						 "ran out is sized again from the rate reached, once"));
	return o;
}

/* ---- the version pool (clover_pool.h) ------------------------------------------------- */

/* What the last run of a point did with its pool, for its result. */
typedef struct cl_pool_note {
	uint64_t first_slots;      /* the pool of the first run */
	double rate;               /* writes per second per client thread before it ran out (the last run's); 0: no resize */
	unsigned resized;          /* how many times the point was sized again */
	cl_pool_verdict last;      /* the last run-out's verdict */
	uint64_t cap;              /* the most slots per thread the memory nodes can register */
} cl_pool_note;

/* Collective: the most slots per client thread every memory node can
 * register (its locked-memory limit, and half its physical memory), from
 * the bytes its heads and shortcuts take. */
static uint64_t cl_pool_cap(const cl_job *j)
{
	uint64_t room = UINT64_MAX;
	if (is_mem(j, j->rank)) {
		int m = mem_index(j, j->rank);
		struct rlimit rl;
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		uint64_t bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : UINT64_MAX;
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < bytes)
			bytes = rl.rlim_cur;
		uint64_t fixed = part_off(j, m, 0), per = (uint64_t)j->clients * (uint64_t)j->T * j->slot_bytes;
		room = bytes > fixed ? (bytes - fixed) / per : 0;
	}
	return UINT64_MAX - nm_boot_max_u64(UINT64_MAX - room);
}

/* After a --duration run whose pool ran out (every rank, from the job-wide
 * counters): the pool to run again with, or 0 with one line saying why not. */
static uint64_t cl_pool_again(const cl_job *j, const nm_measure *ms, cl_pool_note *note)
{
	const uint64_t *c = ms->total_c;
	cl_pool_run run = {.slots = j->cp->slots, .acked = c[CL_C_X_ACKED], .us = c[CL_C_X_US],
			   .duration = j->ctx->base.measure.duration, .warmup = j->ctx->base.measure.warmup,
			   .batch = CL_MS_BATCH, .cap = note->cap, .resized = note->resized};
	uint64_t slots;
	double rate;
	cl_pool_verdict v = cl_pool_size(&run, &rate, &slots);
	note->last = v;
	if (rate > 0)
		note->rate = rate;
	if (v != CL_POOL_RESIZE)
		return 0;
	note->resized++;
	if (j->rank == 0)
		nm_note("clover: the version pool (%" PRIu64 " slots per client thread) ran out at %.0f writes/s per "
			"thread: the point runs again with %" PRIu64 " slots", run.slots, rate, slots);
	return slots;
}

/* Rank 0, the point's last run: its result, and one line when its pool ran out. */
static void cl_result(cl_job *j, nm_measure *ms, const cl_path_stats *pst, uint64_t served, json_t *rtt,
		      const cl_pool_note *note, json_t *out)
{
	bool valid;
	json_t *checks = cl_checks(j, ms, pst, served, &valid), *metrics = nm_measure_metrics(ms);
	cl_metrics(metrics, ms->total_c, rtt);
	if (j->cp->resolve != CL_RESOLVE_NONE)
		json_object_set_new(metrics, "path", cl_path_metrics(j, pst));
	json_t *eff = cl_effective(j, j->ctx);
	json_object_set_new(eff, "pool", json_pack("{s:I, s:I, s:f, s:I, s:i}", "first_slots", (json_int_t)note->first_slots,
						   "slots", (json_int_t)j->cp->slots, "measured_writes_per_s_per_thread",
						   note->rate, "register_cap_slots", (json_int_t)note->cap, "resized",
						   (int)note->resized));
	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "checks", checks);
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective", eff);
	uint64_t lost = ms->total_c[CL_C_EXHAUSTED];
	if (lost)
		nm_note("clover: the version pool (%" PRIu64 " slots per client thread per memory node) ran out: %" PRIu64
			" update(s) left unwritten, the point is invalid (%s)", j->cp->slots, lost,
			j->ctx->base.measure.duration <= 0 ? "raise --slots"
			: note->last == CL_POOL_NO_MORE ? "sized again from its rate twice, it still ran out"
			: note->last == CL_POOL_AT_CAP ? "the memory nodes cannot register a larger pool"
						       : "no write was acknowledged before it ran out");
}

/* netmem preflight: the store of the point's first run (a run whose pool
 * ran out with --duration is run again with a larger one, sized from its
 * rate: that second peak is not known beforehand). The packet path of
 * --resolve creates no verbs objects of its own. */
static void cl_needs_hook(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	cl_job j = cl_job_of(point, b, rank, nranks);
	cl_needs(&j, b, n);
}

/* What carries this rank's traffic, for --path forward: the chosen GID's
 * type decides (cl_fwd_link_of). */
static cl_link cl_link_of(const nm_dev *d)
{
	struct ibv_gid_entry e;
	bool read = d->ctx && d->ethernet && d->gid_index >= 0 &&
		    ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)d->gid_index, &e, 0) == 0;
	return cl_fwd_link_of(d->ctx != NULL, d->ethernet, read ? (int)e.gid_type : -1);
}

/* One run of a point; returns the pool to run it again with (once, with
 * --duration, when its pool ran out), or 0: this run is the point's result. */
static uint64_t cl_run_once(nm_ctx *ctx, const cl_point *cp, cl_pool_note *note, json_t *out)
{
	int T = ctx->base.threads;
	cl_job j = cl_job_of(cp, &ctx->base, ctx->rank, ctx->nranks);
	j.ctx = ctx;
	j.first_alone = getenv("NETMEM_TEST_CLOVER_FIRST_ALONE") != NULL;   /* test-only (clover.h) */
	bool client = is_client(&j, j.rank);
	/* gets and updates timed apart (kv_done), in metrics.lat_by_op */
	static const nm_measure_def def = {"ops", cl_counters, CL_C_N, kv_op_names, KV_NOPS};
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, client ? T : 0);
	j.th = nm_calloc((size_t)T, sizeof(kv_thread));
	j.rtt = nm_calloc((size_t)T, sizeof(nm_hist));
	for (int t = 0; t < T; t++)
		nm_hist_init_zeroed(&j.rtt[t]);
	cl_fwd fwd = {.undo_fd = -1};
	if (cp->forward) {   /* before the QPs: a NIC resolves their next hop when they connect */
		char rdma[64] = "";
		if (ctx->dev->ctx)
			nm_dev_ipv4(ctx->dev, rdma, sizeof rdma);
		cl_fwd_up(&fwd, cl_link_of(ctx->dev), rdma, ctx->dev->name, ctx->nranks - 1);
	}
	cl_setup(&j, ctx);
	cl_path path = {0};
	uint64_t served = 0;   /* the metadata server's ALLOC requests (rank 0) */
	cl_path_stats pst = {0};
	if (cp->resolve != CL_RESOLVE_NONE)
		cl_path_up(&j, &path, ctx->dev);
	if (client) {
		nm_round rd = {.workers = T, .numa_node = ctx->base.mem_node, .setup = cl_thr_setup,
			       .body = cl_thr_body, .arg = &j, .measure = ms};
		nm_workers_run(&rd);
	} else if (j.rank == 0) {
		cl_ms srv;
		cl_ms_up(&j, &srv);
		nm_workers_sit_out(ms);
		cl_ms_join(&srv);
		served = srv.rpcs;
	} else {
		nm_workers_sit_out(ms);   /* memory nodes: passive; the forwarding host: its path */
	}
	if (cp->resolve != CL_RESOLVE_NONE)
		cl_path_down(&j, &path, ms, &pst);
	if (is_mem(&j, j.rank))
		cl_scan(&j, ms);
	nm_measure_gather(ms);
	note->cap = cl_pool_cap(&j);
	uint64_t again = 0;
	if (ctx->base.measure.duration > 0 && ms->total_c[CL_C_EXHAUSTED])
		again = cl_pool_again(&j, ms, note);
	json_t *rtt = cl_rtt_json(&j);
	if (ctx->rank == 0 && !again)
		cl_result(&j, ms, &pst, served, rtt, note, out);
	else
		json_decref(rtt);
	nm_boot_barrier();
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
	if (cp->forward)
		cl_fwd_down(&fwd);
	for (int t = 0; client && t < T; t++)
		kv_thread_free(&j.th[t]);
	free(j.th);
	free(j.rtt);
	nm_measure_free(ms);
	return again;
}

static void cl_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	cl_point cp = *(const cl_point *)point;
	cl_pool_note note = {.first_slots = cp.slots};
	for (uint64_t again; (again = cl_run_once(ctx, &cp, &note, out)) != 0;)
		cp.slots = again;
}

static void cl_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	if (first)
		printf(" %-10s %-8s %5s %-7s %3s %7s %12s %10s %10s %8s %8s %8s\n", "workload", "dist", "theta", "resolve",
		       "thr", "keys", "ops/s", "p50[usec]", "p99[usec]", "cas/wr", "rtt_p99", "check");
	printf(" %-10s %-8s %5.2f %-7s %3" PRId64 " %7" PRId64 " %12.0f %10.2f %10.2f %8.2f %8.0f %8s\n",
	       nm_cfg_str(pt, "workload"), nm_cfg_str(pt, "dist"), nm_cfg_double(pt, "theta"), nm_cfg_str(pt, "resolve"),
	       nm_cfg_int(pt, "threads"),
	       nm_cfg_int(pt, "keys"), json_real_value(json_object_get(mt, "ops_per_sec")),
	       json_real_value(json_object_get(lat, "p50")), json_real_value(json_object_get(lat, "p99")),
	       json_real_value(json_object_get(mt, "cas_per_write")),
	       json_real_value(json_object_get(json_object_get(mt, "rtts"), "p99")),
	       nm_point_verdict(res));
}

static const nm_experiment cl_experiment = {
	.name = "clover",
	.summary = "Clover's passive key-value store (chains of versions, CAS on the tail) under YCSB",
	.details =
		"Rank 0 is the metadata server, the last --memory-nodes ranks are passive memory\n"
		"nodes, the ranks between are clients with -T threads, one request outstanding\n"
		"each. Gets chase a key's chain by RDMA READ; updates WRITE a new version and\n"
		"CAS the tail's next pointer, chasing and retrying when the CAS fails. Every get\n"
		"is checked, and after the run the chains must hold every acknowledged write.\n"
		"Free version slots come from the metadata server in batches, by RPC over\n"
		"SEND/RECV. --resolve off|on sends the clients' packets through\n"
		"netmem clover-path on the memory node's host (Soft-RoCE, clients on\n"
		"other hosts), or with --path forward on the last rank's host, which\n"
		"routes between the others (hardware: the paper's switch); the path\n"
		"redirects losing CASes to the tail when on.\n\n"
		"Example:\n"
		"  mpirun -np 4 netmem clover -T 2 -w a,b,c --dist zipfian --theta 0.75 -K 1024 -D 10",
	.opts = cl_opts,
	.min_ranks = 1,
	.point_size = sizeof(cl_point),
	.point_free = cl_point_free,
	.decode = cl_decode, .needs = cl_needs_hook, .without_device = cl_without_device,
	.run = cl_run_point,
	.report = cl_report,
};

NM_EXPERIMENT(cl_experiment)

/* Registered here, not in clover_route.c, which the unit tests link
 * without the registry. */
static const nm_experiment cl_cleanup = {
	.name = "cleanup",
	.summary = "undo what a clover --path forward job left on this host (its janitor killed)",
	.tool_main = cl_fwd_cleanup_main,
};
NM_EXPERIMENT(cl_cleanup)
