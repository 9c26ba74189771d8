/* netmem kv: LOCO's key-value store under YCSB (LOCO paper, section 6 and
 * 7.2, Fig. 5), against a Sherman-style variant and a real Redis.
 *
 * Systems (--system, sweepable):
 *   loco     LOCO's kvstore (workloads/kv/kv_loco.c): slots in every node's
 *            registered memory, a local index per node, ticket locks k mod
 *            --locks, a tracker thread per node for index updates; lookups
 *            are one READ, validated by checksum and counter.
 *   sherman  a variant of this suite in the style of Sherman (not Sherman
 *            itself, workloads/kv/kv_sherman.c): Sherman's HOCL (a lock
 *            table per memory node in the NIC's memory where it has some,
 *            taken by RDMA CAS, handed over between a node's threads), the
 *            write and the release in one post, lookups READ a whole leaf
 *            of --leaf entries.
 *   scythe   a variant of this suite in the style of Scythe's MicroDB (not
 *            Scythe itself, workloads/kv/kv_scythe.c): reads and writes are
 *            RPCs over RDMA WRITE to a server thread per node; writes are
 *            inserts (a new version, no lock), or with --scythe-write
 *            update, updates under Scythe's takeout lock.
 *   redis    Debian's redis-server, started by the ranks on their own nodes
 *            (ceil(threads/4) instances per node, no replication, no
 *            persistence), driven through hiredis with --window commands in
 *            flight per thread, keys placed by Redis Cluster's hash slots
 *            (workloads/kv/kv_redis.c).
 *
 * One rank per node, -T application threads per rank; each keeps up to
 * --window operations in flight, each started and completed on its own
 * (kv.h). Keys are ranks of YCSB's generator (primitives/gen/ycsb.h), hashed
 * by XXH64; the store is prefilled with ranks 0 .. prefill-1 (not timed);
 * inserts (YCSB's D, or --mix with insert) take new ranks up to --keys.
 *
 * Checked on every run (kv.h): each value read belongs to its key, is not
 * torn, and no reader sees a key's version go back; the store is scanned
 * after the run. A failure marks the point invalid.
 *
 * Decisions the paper leaves open: "mixed" is 50% updates (--write-ratio;
 * the Sherman paper's write-intensive mix); writes are updates, as the paper
 * says for LOCO, Sherman and Redis; keys are ranks, hashed, and every
 * operation targets a prefilled key (the generator's records are the
 * prefill), so only inserts find absent keys; --keys 10485760 (10 x 2^20
 * key ranks) and --fill 0.8 at paper scale. */
#include "kv.h"
#include "kv_check.h"
#include "kv_history.h"
#include "kv_size.h"
#include "kv_window.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include <xxhash.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const kv_system *const kv_systems[KV_NSYSTEMS] = {&kv_loco, &kv_sherman, &kv_redis, &kv_scythe,
								   &kv_redis_pipelined};

static const nm_opt kv_opts[] = {
	{"system", 0, NM_OPT_ENUM, "loco", 0, 0, "loco,sherman,redis,scythe,redis-pipelined", NM_OPT_LIST,
	 "loco (LOCO's kvstore), sherman (Sherman-style variant of this suite), redis (redis-server, driven as "
	 "memtier drives it: --window clients per thread), scythe (Scythe-style variant of this suite: writes are "
	 "inserts), redis-pipelined (the same servers, --window commands pipelined per thread: an extra series)"},
	{"workload", 'w', NM_OPT_STR, "mixed", 0, 0, NULL, NM_OPT_LIST,
	 "read-only, mixed (--write-ratio updates), write-only, or a YCSB letter a-f"},
	{"write-ratio", 0, NM_OPT_DOUBLE, "0.5", 0, 1, NULL, NM_OPT_LIST, "updates in the mixed workload"},
	{"mix", 0, NM_OPT_STR, "", 0, 0, NULL, 0,
	 "proportions instead of --workload: read=0.9,update=0.05,insert=0.05 (summing to 1)"},
	{"dist", 0, NM_OPT_ENUM, "uniform", 0, 0, "uniform,zipfian,scrambled,latest,hotspot", NM_OPT_LIST,
	 "key distribution (zipfian: YCSB's, unscrambled; rank 0 is the hottest key)"},
	{"theta", 0, NM_OPT_DOUBLE, "0.99", -1e9, 1e9, NULL, NM_OPT_LIST, "Zipf exponent (> 0)"},
	{"keys", 'K', NM_OPT_SIZE, "65536", 1, 1ll << 34, NULL, NM_OPT_LIST,
	 "key space: slots in the whole store (paper: 10M, 10 x 2^20)"},
	{"fill", 0, NM_OPT_DOUBLE, "0.8", 0, 1, NULL, NM_OPT_LIST, "fraction of the key space prefilled"},
	{"prefill", 0, NM_OPT_SIZE, "0", 0, 1ll << 34, NULL, NM_OPT_LIST,
	 "keys prefilled (0: --fill x --keys)"},
	{"value-size", 's', NM_OPT_SIZE, "8", 8, 4096, NULL, NM_OPT_LIST, "value bytes, a multiple of 8"},
	{"slot-bytes", 0, NM_OPT_SIZE, "0", 0, 8192, NULL, 0,
	 "LOCO slot size (0: the smallest that holds the value: key, value, counter/valid, checksum)"},
	{"locks", 0, NM_OPT_INT, "65536", 1, 1 << 26, NULL, NM_OPT_LIST, "LOCO: ticket locks (key k takes k mod locks)"},
	{"window", 'W', NM_OPT_INT, "3", -1e9, 4096, NULL, NM_OPT_LIST,
	 "operations in flight per thread (paper: 3, and 128 for LOCO's large window)"},
	{"fence", 0, NM_OPT_BOOL, "1", 0, 0, NULL, NM_OPT_LIST,
	 "fence between a write and its lock's release (0 measures the fence's cost)"},
	{"delete-ratio", 0, NM_OPT_DOUBLE, "0", 0, 1, NULL, NM_OPT_LIST,
	 "loco: updates that delete the key instead (or insert it when absent): exercises the tracker"},
	{"leaf", 0, NM_OPT_INT, "16", 1, 256, NULL, NM_OPT_LIST, "sherman: entries read by one lookup"},
	{"lock-table", 0, NM_OPT_INT, "32768", 1, 1 << 24, NULL, NM_OPT_LIST,
	 "sherman: lock words per memory node, a leaf takes the one its hash picks (Sherman's kNumOfLock: 32768, "
	 "256 KiB)"},
	{"lock-memory", 0, NM_OPT_ENUM, "auto", 0, 0, "auto,device,host", NM_OPT_LIST,
	 "sherman: where each node's lock table lives: device (the NIC's memory, ibv_alloc_dm, as Sherman's "
	 "on-chip locks; refused on a device without it), host, auto (device where the NIC has room, else host; "
	 "the document says which and why)"},
	{"hand-over", 0, NM_OPT_INT, "8", 1, 1 << 20, NULL, NM_OPT_LIST,
	 "sherman: a node's threads that one remote lock acquisition serves in a row, handed over locally "
	 "(Sherman's kMaxHandOverTime: 8; 1: every holder takes the lock remotely)"},
	{"scythe-write", 0, NM_OPT_ENUM, "insert", 0, 0, "insert,update", NM_OPT_LIST,
	 "scythe: the write path: insert (a new version by one RPC, no lock: what the paper measured, Sec. 7.2) "
	 "or update (MicroDB's read-modify-write: a read by RPC; Scythe's takeout lock by a lock request by RPC, "
	 "the ticket polled by READ; validation by READ, an abort when a write overtook the read; the write by "
	 "RPC; the release by FETCH_AND_ADD)"},
	{"redis-server", 0, NM_OPT_STR, "redis-server", 0, 0, NULL, 0, "redis: the server binary"},
	{"redis-threads", 0, NM_OPT_INT, "4", 1, 128, NULL, 0,
	 "redis: client threads per server instance (paper: 4, so ceil(T/4) instances)"},
	{"redis-port", 0, NM_OPT_INT, "7379", 1024, 65000, NULL, 0, "redis: first port on each node"},
	{"history", 0, NM_OPT_STR, "", 0, 0, NULL, 0,
	 "write every operation into FILE for netmem kv-check (JSON Lines: per point a header, then per "
	 "operation the first value word read or written, its writer and version, invocation and response times)"},
	{"history-max", 0, NM_OPT_INT, "100000", 1, 1e8, NULL, 0, "history: operations per thread at most"},
	NM_OPT_INJECT("none,early-release,no-checksum",
	 "testing the checks: early-release (a lock released before its write lands), "
	 "no-checksum (readers skip the checksum, a writer writes a value in two halves)"),
	NM_OPT_ITERS("10000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	NM_OPT_END,
};

static int kv_decode_mix(const json_t *pt, kv_point *p, char *err, size_t len)
{
	const char *w = nm_cfg_str(pt, "workload"), *mix = nm_cfg_str(pt, "mix"), *dist = nm_cfg_str(pt, "dist");
	snprintf(p->workload, sizeof p->workload, "%s", mix[0] ? "custom" : w);
	if (mix[0]) {
		if (ycsb_parse_mix(mix, &p->load.mix, err, len))
			return -1;
	} else if (ycsb_parse_workload(w, p->write_ratio, &p->load.mix, NULL, err, len)) {
		return -1;
	}
	if (p->load.mix.p[YCSB_SCAN] > 0)
		return nm_errf(err, len, "--workload %s has scans; netmem kv has no range queries", w);
	if (ycsb_parse_dist(dist, &p->load.dist, err, len))
		return -1;
	if (!(p->load.theta > 0) || !isfinite(p->load.theta))
		return nm_errf(err, len, "--theta %g: the Zipf exponent must be > 0", p->load.theta);
	return 0;
}

static int kv_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	kv_point *p = out;
	const char *sys = nm_cfg_str(pt, "system"), *inj = nm_cfg_str(pt, "inject");
	int64_t window = nm_cfg_int(pt, "window");
	*p = (kv_point){
		.system = !strcmp(sys, "sherman") ? KV_SHERMAN : !strcmp(sys, "redis") ? KV_REDIS
			  : !strcmp(sys, "scythe") ? KV_SCYTHE : !strcmp(sys, "redis-pipelined") ? KV_REDIS_PIPELINED
			  : KV_LOCO,
		.write_ratio = nm_cfg_double(pt, "write_ratio"),
		.load = {.theta = nm_cfg_double(pt, "theta"),
			 .keys = (uint64_t)nm_cfg_int(pt, "keys"),
			 .prefill = (uint64_t)nm_cfg_int(pt, "prefill"),
			 .value_size = (uint32_t)nm_cfg_int(pt, "value_size"),
			 .delete_ratio = nm_cfg_double(pt, "delete_ratio")},
		.locks = (int)nm_cfg_int(pt, "locks"),
		.window = (int)window,
		.fence = nm_cfg_bool(pt, "fence"),
		.leaf = (int)nm_cfg_int(pt, "leaf"),
		.lock_table = (int)nm_cfg_int(pt, "lock_table"),
		.hand_over = (int)nm_cfg_int(pt, "hand_over"),
		.lock_memory = !strcmp(nm_cfg_str(pt, "lock_memory"), "device") ? KV_LOCKMEM_DEVICE
			       : !strcmp(nm_cfg_str(pt, "lock_memory"), "host") ? KV_LOCKMEM_HOST : KV_LOCKMEM_AUTO,
		.scythe_write = !strcmp(nm_cfg_str(pt, "scythe_write"), "update") ? KV_SCYTHE_UPDATE : KV_SCYTHE_INSERT,
		.inject = !strcmp(inj, "early-release") ? KV_INJECT_EARLY_RELEASE
			  : !strcmp(inj, "no-checksum") ? KV_INJECT_NO_CHECKSUM : KV_INJECT_NONE,
		.redis_threads = (int)nm_cfg_int(pt, "redis_threads"),
		.redis_port = (int)nm_cfg_int(pt, "redis_port"),
	};
	p->load.global_versions = kv_systems[p->system]->global_versions;
	p->load.overlapping_reads = p->system == KV_REDIS;  /* memtier-style: a connection per client */
	/* A path cut to fit would be another file: the history written, or the
	 * server started, somewhere the command line never named. */
	const char *history = nm_cfg_str(pt, "history"), *server = nm_cfg_str(pt, "redis_server");
	if (strlen(history) >= sizeof p->history)
		return nm_errf(err, len, "--history: a path of %zu bytes (at most %zu)", strlen(history),
			       sizeof p->history - 1);
	if (strlen(server) >= sizeof p->redis_server)
		return nm_errf(err, len, "--redis-server: a path of %zu bytes (at most %zu)", strlen(server),
			       sizeof p->redis_server - 1);
	snprintf(p->history, sizeof p->history, "%s", history);
	if (p->history[0])
		p->load.history_max = (uint64_t)nm_cfg_int(pt, "history_max");
	snprintf(p->redis_server, sizeof p->redis_server, "%s", server);
	if (kv_decode_mix(pt, p, err, len))
		return -1;
	if (window < 1)
		return nm_errf(err, len, "--window %" PRId64 ": at least one operation must be in flight", window);
	if (p->load.value_size % 8)
		return nm_errf(err, len, "--value-size %u is not a multiple of 8", p->load.value_size);
	p->load.value_words = p->load.value_size / 8;
	if (p->load.prefill == 0)
		p->load.prefill = (uint64_t)(nm_cfg_double(pt, "fill") * (double)p->load.keys);
	if (p->load.prefill > p->load.keys)
		return nm_errf(err, len, "--prefill %" PRIu64 " is larger than the key space (--keys %" PRIu64 ")",
			       p->load.prefill, p->load.keys);
	if (p->load.prefill == 0)
		return nm_errf(err, len, "nothing to prefill: --fill x --keys is below one key");
	int64_t slot = nm_cfg_int(pt, "slot_bytes");
	p->slot_bytes = slot ? (uint32_t)slot : 24 + p->load.value_size;
	if (24 + p->load.value_size > p->slot_bytes)
		return nm_errf(err, len, "--value-size %u is larger than a slot of %u bytes (it holds %u value bytes; "
			       "--slot-bytes >= %u)", p->load.value_size, p->slot_bytes, p->slot_bytes - 24,
			       24 + p->load.value_size);
	if (p->inject == KV_INJECT_NO_CHECKSUM && p->load.value_words < 2)
		return nm_errf(err, len, "--inject no-checksum needs --value-size >= 16 (a value in two halves)");
	if (p->load.delete_ratio > 0 && p->system != KV_LOCO)
		return nm_errf(err, len, "--delete-ratio applies to the loco system only");
	if (p->inject != KV_INJECT_NONE && kv_is_redis(p->system))
		return nm_errf(err, len, "--inject applies to the loco, sherman and scythe systems, not redis (no lock to release early)");
	if (kv_is_redis(p->system) && kv_redis_check(p, err, len))
		return -1;
	(void)b;
	return 0;
}

/* netmem preflight: what the point's system registers and connects on
 * `rank`, from the plan its set-up uses (kv_size.h). Redis has nothing to
 * add: its clients reach redis-server over TCP (hiredis) and register no
 * memory; the servers are processes of their own, outside verbs. */
static void kv_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	kv_win_plan pl;
	if (kv_plan_of(point, nranks, b->threads, &pl))
		kv_win_needs(&pl, b, rank, nranks, n);
}

/* ---- the result ---------------------------------------------------------- */

static json_t *kv_checks(const nm_measure *ms, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool reads_ok = c[KV_C_TORN] == 0 && c[KV_C_FOREIGN] == 0 && c[KV_C_REGRESSED] == 0;
	bool store_ok = c[KV_C_BAD_SLOTS] == 0;
	*valid = reads_ok && store_ok && ms->errors == 0 && ms->ops > 0;
	json_t *j = json_pack("{s:{s:I, s:I, s:I, s:b}, s:{s:I, s:b}}", "reads", "torn", (json_int_t)c[KV_C_TORN],
			      "foreign", (json_int_t)c[KV_C_FOREIGN], "regressed", (json_int_t)c[KV_C_REGRESSED],
			      "ok", reads_ok, "store", "bad_slots", (json_int_t)c[KV_C_BAD_SLOTS], "ok", store_ok);
	if (ms->first_error[0])
		json_object_set_new(j, "first_error", json_string(ms->first_error));
	return j;
}

static const char *kv_hash_name(void)
{
	static char s[96];
	unsigned v = XXH_versionNumber();
	snprintf(s, sizeof s, "XXH64 of the key rank, seed 0 (xxHash %u.%u.%u)", v / 10000, v / 100 % 100, v % 100);
	return s;
}

static json_t *kv_effective(const kv_point *p, const nm_ctx *ctx)
{
	static const char *const dists[] = {"uniform", "zipfian", "zipfian-ri", "scrambled", "latest", "hotspot"};
	json_t *mix = json_object();
	for (int i = 0; i < YCSB_NOPS; i++)
		if (p->load.mix.p[i] > 0)
			json_object_set_new(mix, ycsb_op_name((ycsb_op)i), json_real(p->load.mix.p[i]));
	return json_pack("{s:s, s:s, s:o, s:s, s:f, s:i, s:i, s:I, s:I, s:i, s:i, s:b, s:s, s:s}", "system",
			 kv_systems[p->system]->name, "workload", p->workload, "mix", mix, "dist",
			 dists[p->load.dist], "theta", p->load.theta, "nodes", ctx->nranks, "threads_per_node",
			 ctx->base.threads, "keys", (json_int_t)p->load.keys, "prefill", (json_int_t)p->load.prefill,
			 "value_size", (int)p->load.value_size, "window", p->window, "fence", p->fence, "key_hash",
			 kv_hash_name(), "summary",
			 kv_systems[p->system]->summary);
}

/* ---- history -------------------------------------------------------------- */

/* The first line, rank 0's: what a checker needs besides the operations
 * (kv-check: key ranks below prefill start with the prefill's value). */
static size_t kv_history_header(const kv_run *r, char *buf, size_t cap)
{
	const kv_point *p = r->p;
	return (size_t)snprintf(buf, cap,
				"{\"history\":\"netmem kv\",\"system\":\"%s\",\"keys\":%" PRIu64
				",\"prefill\":%" PRIu64 ",\"value_size\":%u,\"prefill_writer\":%u}\n",
				kv_systems[p->system]->name, p->load.keys, p->load.prefill, p->load.value_size,
				KV_PREFILL_WRITER);
}

/* The point's own history check, on rank 0. */
typedef struct kv_hist_check {
	int verdict;        /* kv_history_check's: 0 linearizable, 1 not, 2 undecided */
	uint64_t states;    /* search states, all keys */
	double seconds;     /* the check's time (outside every timed section) */
	char why[400];
} kv_hist_check;

/* Writes the point's history and, on rank 0, checks it as netmem kv-check
 * would (verdict 0 elsewhere), so that the point's own verdict never misses
 * what kv-check finds. The check tells the other ranks this one is alive:
 * they wait for it at the point's end, and a hot key's search can take
 * longer than --timeout under emulation. */
static void kv_history_write(kv_run *r, int nthreads, kv_hist_check *hc)
{
	size_t cap = 1 << 16, used = 0;
	char *buf = nm_malloc(cap);
	if (r->ctx->rank == 0)
		used = kv_history_header(r, buf, cap);
	for (int t = 0; t < nthreads; t++) {
		const kv_thread *th = &r->th[t];
		for (uint64_t i = 0; i < th->hist_n; i++) {
			const kv_hist_rec *h = &th->hist[i];
			if (cap - used < 320)
				buf = nm_realloc(buf, cap *= 2);
			used += (size_t)snprintf(buf + used, cap - used,
						 "{\"rank\":%d,\"thread\":%d,\"op\":\"%s\",\"key\":\"0x%016" PRIx64
						 "\",\"found\":%s,\"value\":\"0x%016" PRIx64 "\",\"writer\":%u,"
						 "\"version\":%u,\"invoke_ns\":%" PRIu64 ",\"response_ns\":%" PRIu64 "}\n",
						 th->rank, th->thread, kv_op_names[h->op], h->key, h->found ? "true" : "false",
						 h->value, kv_word_writer(h->value), kv_word_version(h->value), h->invoke, h->response);
		}
	}
	buf[used] = 0;
	char **all = nm_boot_gather_str(buf, 0);
	free(buf);
	if (!all)
		return;
	size_t len = 0;
	for (int i = 0; i < r->ctx->nranks; i++)
		len += strlen(all[i]);
	char *text = nm_malloc(len + 1), *at = text;
	for (int i = 0; i < r->ctx->nranks; i++) {
		size_t n = strlen(all[i]);
		memcpy(at, all[i], n);
		at += n;
		free(all[i]);
	}
	*at = 0;
	free(all);
	/* the job's first point starts the file, or continues it on a resume */
	static bool started;
	if (kv_history_put(r->p->history, text, r->ctx->resumed, &started) != 0)
		nm_warn("--history %s: cannot write this point's operations: %s", r->p->history, strerror(errno));
	uint64_t t0 = nm_now_ns();
	hc->verdict = kv_history_check(&text, 1, nm_boot_alive, &hc->states, hc->why, sizeof hc->why);
	hc->seconds = (double)(nm_now_ns() - t0) / 1e9;
	free(text);
}

/* ---- one point ------------------------------------------------------------ */

static void kv_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	const kv_point *p = point;
	const kv_system *sys = kv_systems[p->system];
	int T = ctx->base.threads;
	static const nm_measure_def def = {"ops", kv_counters, KV_C_N, kv_op_names, KV_NOPS};
	kv_run r = {.ctx = ctx, .p = p,
		    .ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, T + sys->service_threads),
		    .th = nm_calloc((size_t)T, sizeof(kv_thread))};
	json_t *eff_sys = sys->run(&r);
	nm_measure_gather(r.ms);
	kv_hist_check hc = {0};
	if (p->history[0])
		kv_history_write(&r, T, &hc);
	if (ctx->rank == 0) {
		bool valid;
		json_t *checks = kv_checks(r.ms, &valid);
		if (p->history[0]) {
			static const char *const verdicts[] = {"linearizable", "not linearizable", "undecided"};
			json_t *h = json_pack("{s:b, s:s, s:I, s:f}", "ok", hc.verdict != 1, "verdict",
					      verdicts[hc.verdict], "states", (json_int_t)hc.states, "check_s", hc.seconds);
			if (hc.why[0])
				json_object_set_new(h, "why", json_string(hc.why));
			json_object_set_new(checks, "history", h);
			valid = valid && hc.verdict != 1;
		}
		json_t *metrics = nm_measure_metrics(r.ms);
		const uint64_t *c = r.ms->total_c;
		json_object_set_new(metrics, "retries_per_get",
				    json_real(c[KV_C_GETS] ? (double)c[KV_C_RETRIES] / (double)c[KV_C_GETS] : 0));
		json_object_set_new(metrics, "insert_ack_us",
				    json_real(c[KV_C_ACKS] ? (double)c[KV_C_ACK_NS] / (double)c[KV_C_ACKS] / 1e3 : 0));
		json_t *eff = kv_effective(p, ctx);
		if (eff_sys)
			json_object_update(eff, eff_sys);
		json_decref(eff_sys);
		json_object_set_new(out, "valid", json_boolean(valid));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics", metrics);
		json_object_set_new(out, "effective", eff);
	} else {
		json_decref(eff_sys);
	}
	for (int t = 0; t < T; t++)
		kv_thread_free(&r.th[t]);
	free(r.th);
	nm_measure_free(r.ms);
}

static void kv_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	if (first)
		printf(" %-8s %-10s %-8s %3s %4s %10s %12s %10s %10s %8s\n", "system", "workload", "dist", "thr",
		       "win", "keys", "ops/s", "p50[usec]", "p99[usec]", "check");
	printf(" %-8s %-10s %-8s %3" PRId64 " %4" PRId64 " %10" PRId64 " %12.0f %10.2f %10.2f %8s\n",
	       nm_cfg_str(pt, "system"), nm_cfg_str(pt, "workload"), nm_cfg_str(pt, "dist"),
	       nm_cfg_int(pt, "threads"), nm_cfg_int(pt, "window"), nm_cfg_int(pt, "keys"),
	       json_real_value(json_object_get(mt, "ops_per_sec")), json_real_value(json_object_get(lat, "p50")),
	       json_real_value(json_object_get(lat, "p99")),
	       nm_point_verdict(res));
}

static const nm_experiment kv_experiment = {
	.name = "kv",
	.summary = "key-value stores under YCSB (LOCO Fig. 5): LOCO's kvstore, Sherman- and Scythe-style variants, Redis",
	.details =
		"One rank per node, -T application threads per rank, each with --window\n"
		"operations in flight. Every read is checked (its key, not torn, no version\n"
		"going back) and the store is scanned after the run.\n\n"
		"Examples:\n"
		"  mpirun -np 3 netmem kv --system loco,sherman -T 2 -w read-only,mixed,write-only \\\n"
		"         --dist uniform,zipfian -W 3,128 -D 20 --reps 5\n"
		"  mpirun -np 2 netmem kv --system redis -T 4 -W 128 -D 10",
	.opts = kv_opts,
	.min_ranks = 1,
	.point_size = sizeof(kv_point),
	.decode = kv_decode,
	.needs = kv_needs,
	.run = kv_run_point,
	.report = kv_report,
};
NM_EXPERIMENT(kv_experiment)
