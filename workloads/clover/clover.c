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
 * The store: every key has a chain of versions in its memory node's
 * registered memory, a version being [next (8 B) | key (8 B) | value words],
 * the layout clover_resolve.h expects (next_off 0, key_off 8, NULL = 0, a
 * CAS swaps in the new version's VA). Key rank r lives on memory node
 * r mod M; its first version (the prefill: writer 0xffff, version 0) at
 * index r / M of the node's head area.
 *   get     READ the version at the thread's cursor for the key (and the
 *           key's shortcut, below); while its
 *           next is not NULL, follow it (one READ per hop); a version whose
 *           next is NULL is fresh ("Clients can independently confirm their
 *           reads are fresh by ensuring the value returned has a NULL
 *           next-update pointer").
 *   update  WRITE the new version (next = NULL) to a free slot, wait for its
 *           completion (Clover's replication-1 path), CAS the cursor's next
 *           from NULL to the slot's VA; on failure the CAS returns the next
 *           version: READ next pointers from there to the tail and CAS again.
 * Each client thread has one operation outstanding (kv_window's engine with
 * a window of 1), as the paper's blocking client threads.
 *
 * Values and checks (kv.h): a value is kv_value_fill(key, writer, seq) with
 * seq the writer's own sequence (a writer does not know the chain's length
 * when it writes, so versions are ordered per writer, as Redis's in netmem
 * kv); every get is checked (its key, not torn, a writer's versions never
 * seen going back). After the run each memory node walks its chains: every
 * version holds its own key and a whole value, each writer's versions
 * appear in its own order, and the versions on the chains are exactly the
 * acknowledged writes (their job-wide counts must be equal: a version is
 * linked only by the CAS that acknowledges its write).
 *
 * Decisions the paper leaves open, taken here:
 * - Allocation: the metadata server (rank 0, workloads/clover/clover_ms.c)
 *   hands out free version slots in batches of 16 by RPC over SEND/RECV, as
 *   Clover's does; a thread keeps what is left of a batch for its next
 *   updates to that memory node. The RPC is one of the update's round trips.
 * - No garbage collection: versions are never reused, so chains grow for
 *   the whole run and --slots per client thread per memory node sizes the
 *   pool the metadata server hands out.
 * - Shortcuts: each key has an 8-byte shortcut in its memory node's memory
 *   naming (nearly) its newest version. A get READs it in parallel with the
 *   version at its cursor and, when that version is not the tail, jumps to
 *   the shortcut once, then follows next pointers (a lagging shortcut costs
 *   hops, never a stale read). After a successful CAS the writer WRITEs the
 *   new version's VA there, inline and unsignaled where the QP allows
 *   (Clover does it from a background thread). A writer whose CAS failed
 *   chases from the version that beat it, not from the shortcut.
 * - A thread's cursor moves forward only (to the version a get found or an
 *   update linked), so its reads of a key never go back in the chain.
 * - A thread whose memory node's pool is used up records an error (the point
 *   is invalid) and finishes the update unwritten: --slots bounds the writes.
 * - Versions are packed (16 + value bytes), not padded to Clover's 128-byte
 *   slabs, and carry no CRC: a version is written before it is linked and
 *   never rewritten, so a reader cannot see it half written.
 * - Defaults from the contention paper's experiments: 1024 keys, YCSB-A
 *   (50% updates), Zipf 0.75 (YCSB's unscrambled zipfian). */
#include "kv.h"
#include "kv_window.h"
#include "clover_path.h"
#include "clover_ms.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "workers.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Counters: netmem kv's (kv_done counts into them), then Clover's own. */
enum {
	CL_C_CAS = KV_C_N,  /* CAS attempts of updates */
	CL_C_CAS_FAILED,    /* ... that found a non-NULL next (lost a race or a stale cursor) */
	CL_C_READ_HOPS,     /* READs of gets beyond the first (chain chasing) */
	CL_C_WRITE_HOPS,    /* READs of updates chasing a new tail after a failed CAS */
	CL_C_RTTS,          /* round trips of every operation, warm-up included */
	CL_C_ACKED,         /* updates whose CAS succeeded, warm-up included */
	CL_C_CHAINED,       /* memory nodes: versions found on the chains after the run */
	CL_C_SHORTCUTS,     /* gets that jumped to the key's shortcut */
	CL_C_N
};
_Static_assert(CL_C_N <= NM_COUNTERS_MAX, "clover: too many counters");

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
};

/* Where the clients' packets go: straight to the memory node, or through
 * the packet path (workloads/clover/clover_path.c) with rewriting off or on. */
typedef enum { CL_RESOLVE_NONE, CL_RESOLVE_OFF, CL_RESOLVE_ON } cl_resolve;
static const char *const cl_resolve_names[] = {"none", "off", "on"};

typedef struct cl_point {
	kv_load load;         /* keys, mix, distribution, value size: what kv's client threads read */
	char workload[32];    /* as given, or "trace" */
	int mem_nodes;        /* the last ranks */
	uint64_t slots;       /* version slots per client thread per memory node */
	cl_resolve resolve;
	uint64_t track;       /* keys the path tracks: the hottest (ranks 0..track-1) */
	int queue;            /* the path's NFQUEUE */
	ycsb_req *trace;      /* --trace: the requests every thread replays, or NULL */
	size_t trace_n;
} cl_point;

#define CL_VERSION_HDR 16   /* next, key */

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
	{"memory-nodes", 'M', NM_OPT_INT, "1", -1e9, 1e9, NULL, 0, "memory nodes: the last ranks"},
	{"slots", 0, NM_OPT_SIZE, "0", 0, 1ll << 30, NULL, 0,
	 "version slots per client thread per memory node (0: warm-up + iterations, or 65536 with --duration)"},
	{"resolve", 0, NM_OPT_ENUM, "none", 0, 0, "none,off,on", NM_OPT_LIST,
	 "contention resolution in the packet path: none (no path), off (through the path, no rewriting), on"},
	{"track", 0, NM_OPT_SIZE, "0", 0, 1ll << 24, NULL, NM_OPT_LIST,
	 "keys the path tracks and resolves, the hottest first (0: every key)"},
	{"queue", 0, NM_OPT_INT, "4791", 0, 65535, NULL, 0, "the path's NFQUEUE number"},
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

/* The packet path runs on the memory node's host and sees only what crosses
 * that host's IP stack: rxe hands traffic between its own GIDs over an
 * internal loopback, so a client on the memory node's host would bypass it. */
static int cl_decode_path(const json_t *pt, cl_point *c, const nm_base *b, char *err, size_t len)
{
	c->resolve = resolve_of(nm_cfg_str(pt, "resolve"));
	c->track = (uint64_t)nm_cfg_int(pt, "track");
	c->queue = (int)nm_cfg_int(pt, "queue");
	if (c->resolve == CL_RESOLVE_NONE)
		return 0;
	if (c->track == 0 || c->track > c->load.keys)
		c->track = c->load.keys;
	if (c->mem_nodes != 1)
		return cl_fail(err, len, "--resolve %s runs one packet path, for one memory node (the paper's set-up); "
			       "use --memory-nodes 1", cl_resolve_names[c->resolve]);
	const uint64_t *host = nm_boot_hosts();
	int mem = b->nranks - 1;
	for (int r = 1; r < mem; r++)
		if (host[r] == host[mem])
			return cl_fail(err, len, "--resolve %s: client rank %d shares the memory node's host (rank %d); "
				       "its packets would bypass the path (rxe's loopback skips netfilter): put the memory "
				       "node on a host of its own (a hostfile with slots=1 for its host, listed last)",
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
			.mem_nodes = (int)m, .slots = (uint64_t)nm_cfg_int(pt, "slots")};
	if (cl_decode_mix(pt, c, err, len))
		return -1;
	if (p->keys == 0)
		return cl_fail(err, len, "--keys 0: the store needs at least one key");
	if (m < 1)
		return cl_fail(err, len, "--memory-nodes %" PRId64 ": at least one memory-node rank is needed", m);
	if (b->nranks < 2 + m)
		return cl_fail(err, len, "%d ranks: no room for the metadata server (rank 0), %" PRId64
			       " memory node(s) (the last ranks) and a client rank; run at least %" PRId64 " ranks",
			       b->nranks, m, 2 + m);
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

/* ---- the job and its layout ----------------------------------------------------- */

typedef struct cl_job {
	nm_ctx *ctx;
	const cl_point *cp;
	const kv_load *p;
	kv_thread *th;                /* [T]: kv's client threads */
	int rank, N, T, M, clients;   /* clients: client ranks */
	double timeout;
	nm_mr mr;
	nm_mesh mesh;
	size_t slot_bytes, part_bytes, scratch_per_op;
	nm_hist *rtt;                 /* [T]: round trips per measured operation */
} cl_job;

static bool is_mem(const cl_job *j, int rank) { return rank >= j->N - j->M; }
/* A memory node's index among the memory nodes (0 .. M-1), from its rank. */
static int mem_index(const cl_job *j, int rank) { return rank - (j->N - j->M); }
static bool is_client(const cl_job *j, int rank) { return rank > 0 && !is_mem(j, rank); }
static int key_node(const cl_job *j, uint64_t r) { return j->N - j->M + (int)(r % (uint64_t)j->M); }
static uint64_t keys_on(const cl_job *j, int m)
{
	return j->p->keys / (uint64_t)j->M + ((uint64_t)m < j->p->keys % (uint64_t)j->M);
}
/* Client thread t of client rank c: its partition index on every memory node. */
static uint64_t part_index(const cl_job *j, int rank, int t) { return (uint64_t)(rank - 1) * (uint64_t)j->T + (uint64_t)t; }

/* A memory node's memory: the first versions of its keys (the heads), then
 * the pool of version slots the metadata server hands out (--slots per
 * client thread of the job). */
static size_t heads_bytes(const cl_job *j, int m) { return nm_align64(keys_on(j, m) * j->slot_bytes); }
/* Then each key's shortcut: 8 bytes holding the VA of (nearly) its newest version. */
static size_t shortcuts_bytes(const cl_job *j, int m) { return nm_align64(keys_on(j, m) * 8); }
static size_t part_off(const cl_job *j, int m, uint64_t part)
{
	return heads_bytes(j, m) + shortcuts_bytes(j, m) + part * j->part_bytes;
}

static size_t cl_layout(cl_job *j)
{
	j->slot_bytes = CL_VERSION_HDR + j->p->value_size;
	j->scratch_per_op = kv_win_scratch(j->slot_bytes);
	j->part_bytes = j->cp->slots * j->slot_bytes;
	if (j->rank == 0)   /* the metadata server: one message area per client thread */
		return (size_t)j->clients * (size_t)j->T * CL_MS_MSG_BYTES;
	if (!is_mem(j, j->rank))   /* clients: one operation's scratch, then a message area, per thread */
		return (size_t)j->T * (j->scratch_per_op + CL_MS_MSG_BYTES);
	return part_off(j, mem_index(j, j->rank), (uint64_t)j->clients * (uint64_t)j->T);
}

/* The VA of key rank r's shortcut on its memory node. */
static uint64_t shortcut_va(const cl_job *j, uint64_t r)
{
	int m = mem_index(j, key_node(j, r));
	return j->mesh.rmr[key_node(j, r)].addr + heads_bytes(j, m) + (r / (uint64_t)j->M) * 8;
}

/* The VA of key rank r's first version on its memory node. */
static uint64_t head_va(const cl_job *j, uint64_t r)
{
	return j->mesh.rmr[key_node(j, r)].addr + (r / (uint64_t)j->M) * j->slot_bytes;
}

static void version_image(const cl_job *j, uint64_t *v, uint64_t key, uint32_t writer, uint32_t version)
{
	v[0] = 0;
	v[1] = key;
	kv_value_fill(v + 2, j->p->value_words, key, writer, version);
}

/* Memory node: every local key's first version, the tail of its chain. */
static void cl_prefill(cl_job *j)
{
	int m = mem_index(j, j->rank);
	for (uint64_t i = 0; i < keys_on(j, m); i++) {
		uint64_t r = i * (uint64_t)j->M + (uint64_t)m;
		version_image(j, (uint64_t *)((uint8_t *)j->mr.buf + i * j->slot_bytes), kv_key(r), KV_PREFILL_WRITER, 0);
		((uint64_t *)((uint8_t *)j->mr.buf + heads_bytes(j, m)))[i] = (uint64_t)(uintptr_t)j->mr.buf + i * j->slot_bytes;
	}
}

/* ---- one client thread ------------------------------------------------------------ */

typedef enum { S_IDLE, S_FIRST, S_READ, S_ALLOC, S_WRITE, S_CAS, S_CHASE, S_SHORTCUT } cl_state;

typedef struct cl_op {
	kv_wop w;
	uint64_t rank, va;   /* key rank; the version being read, or the tail a CAS targets */
	uint64_t slot;       /* an update's new version */
	int node;
	uint32_t rtts;
} cl_op;

typedef struct cl_thr {
	kv_win win;          /* first: the engine hands it back as the thread */
	cl_job *j;
	int t;
	uint64_t *cursor;    /* [keys]: the newest version this thread knows of each key */
	uint64_t (*batch)[CL_MS_BATCH];   /* [M]: free slots from the metadata server, per memory node */
	uint32_t *nfree;     /* [M]: how many of them are left */
	uint8_t *msg;        /* registered: the allocation RPC's request and reply */
} cl_thr;

static uint64_t *ctr(cl_thr *t) { return t->win.kt->meter->c; }

static void cl_finish(cl_thr *t, cl_op *o, const uint64_t *val)
{
	nm_meter *m = t->win.kt->meter;
	ctr(t)[CL_C_RTTS] += o->rtts;
	if (m->measuring)
		nm_hist_add(&t->j->rtt[t->t], o->rtts);
	kv_win_finish(&t->win, &o->w, val);
}

static void read_post(cl_thr *t, cl_op *o, cl_state s, void *dst, uint32_t len)
{
	o->w.state = s;
	o->rtts++;
	kv_win_read(&t->win, &o->w, o->node, dst, o->va, len);
}

static void cas_post(cl_thr *t, cl_op *o)
{
	o->w.state = S_CAS;
	o->rtts++;
	ctr(t)[CL_C_CAS]++;
	kv_win_atomic(&t->win, &o->w, o->node, NM_OP_CAS, o->va, 0, o->slot);   /* next_off 0 */
}

/* A get's version is in buf: follow its next, or return its value. */
static void get_step(cl_thr *t, cl_op *o)
{
	const uint64_t *v = o->w.buf;
	if (v[0] != 0) {
		ctr(t)[CL_C_READ_HOPS]++;
		/* Stale at the first hop: jump to the shortcut when it names
		 * another version (it may lag the tail, never pass it). */
		uint64_t sc = o->w.state == S_FIRST ? o->w.word[2] : 0;
		ctr(t)[CL_C_SHORTCUTS] += sc && sc != o->va;
		o->va = sc && sc != o->va ? sc : v[0];
		read_post(t, o, S_READ, o->w.buf, (uint32_t)t->j->slot_bytes);
		return;
	}
	t->cursor[o->rank] = o->va;
	o->w.found = v[1] == o->w.key;
	if (!o->w.found)
		nm_error_note(&t->win.kt->meter->err, "clover: rank %d thread %d get of key 0x%016" PRIx64
			      ": the version at 0x%" PRIx64 " holds key 0x%016" PRIx64, t->win.kt->rank, t->t,
			      o->w.key, o->va, v[1]);
	cl_finish(t, o, v + 2);
}

/* WRITE the new version (next NULL) to a free slot; the CAS waits for its
 * completion, as Clover's writers do. */
static void update_write(cl_thr *t, cl_op *o)
{
	int m = mem_index(t->j, o->node);
	o->slot = t->batch[m][--t->nfree[m]];
	kv_thread *kt = t->win.kt;
	version_image(t->j, o->w.buf, o->w.key, kt->writer, ++kt->seq);
	o->va = t->cursor[o->rank];
	o->w.state = S_WRITE;
	o->rtts++;
	kv_win_write(&t->win, &o->w, o->node, o->w.buf, o->slot, (uint32_t)t->j->slot_bytes, true);
}

/* An update takes a slot from its thread's batch for the key's memory node,
 * or first asks the metadata server for a batch (one round trip). */
static void update_start(cl_thr *t, cl_op *o)
{
	int m = mem_index(t->j, o->node);
	if (t->nfree[m]) {
		update_write(t, o);
		return;
	}
	o->w.state = S_ALLOC;
	o->rtts++;
	ctr(t)[KV_C_RPCS]++;
	kv_win_due(&t->win, &o->w, 2);
	cl_ms_ask(kv_win_conn(&t->win, 0), t->msg, t->win.lkey, (uint32_t)o->node, kv_win_wrid(&t->win, &o->w, NM_OP_SEND),
		  kv_win_wrid(&t->win, &o->w, NM_OP_RECV));
}

/* The metadata server's batch is in: keep it, or give up when the pool is used up. */
static void alloc_done(cl_thr *t, cl_op *o)
{
	const cl_ms_reply *r = cl_ms_reply_of(t->msg);
	int m = mem_index(t->j, o->node);
	if (r->count == 0 || r->count > CL_MS_BATCH) {
		nm_error_note(&t->win.kt->meter->err, "clover: rank %d thread %d update of key 0x%016" PRIx64
			      ": the metadata server has no free version slot left on rank %d (raise --slots)",
			      t->win.kt->rank, t->t, o->w.key, o->node);
		cl_finish(t, o, NULL);
		return;
	}
	memcpy(t->batch[m], r->va, r->count * sizeof r->va[0]);
	t->nfree[m] = r->count;
	update_write(t, o);
}

/* After a successful CAS, the key's shortcut names the new version. Clover
 * writes it from a background thread; here it is posted inline and
 * unsignaled (copied at the post, so the operation can end at once), or,
 * on a QP without inline data, signaled and awaited. */
static void shortcut_set(cl_thr *t, cl_op *o)
{
	nm_conn *c = kv_win_conn(&t->win, o->node);
	o->w.word[3] = o->slot;
	if (c->max_inline >= 8) {
		kv_win_write(&t->win, &o->w, o->node, &o->w.word[3], shortcut_va(t->j, o->rank), 8, false);
		cl_finish(t, o, NULL);
		return;
	}
	o->w.state = S_SHORTCUT;
	kv_win_write(&t->win, &o->w, o->node, &o->w.word[3], shortcut_va(t->j, o->rank), 8, true);
}

/* The CAS's answer is in word[0]: NULL, it linked our version; else the
 * version that beat us, from which to chase the new tail. */
static void cas_done(cl_thr *t, cl_op *o)
{
	uint64_t next = o->w.word[0];
	if (next == 0) {
		t->cursor[o->rank] = o->slot;
		ctr(t)[CL_C_ACKED]++;
		o->w.found = true;
		shortcut_set(t, o);
		return;
	}
	ctr(t)[CL_C_CAS_FAILED]++;
	if (kv_win_overdue(&t->win, &o->w))
		nm_fatal("clover: rank %d thread %d update of key 0x%016" PRIx64 " (rank %" PRIu64 ", memory node %d) "
			 "has not linked its version after %.1f s of CAS retries", t->win.kt->rank, t->t, o->w.key,
			 o->rank, o->node, t->win.timeout);
	ctr(t)[CL_C_WRITE_HOPS]++;
	o->va = next;
	read_post(t, o, S_CHASE, &o->w.word[1], 8);
}

/* Chasing after a failed CAS: word[1] is the next pointer of the version at va. */
static void chase_step(cl_thr *t, cl_op *o)
{
	uint64_t next = o->w.word[1];
	if (next == 0) {
		cas_post(t, o);
		return;
	}
	ctr(t)[CL_C_WRITE_HOPS]++;
	o->va = next;
	read_post(t, o, S_CHASE, &o->w.word[1], 8);
}

static void advance(kv_win *w, kv_wop *wo)
{
	cl_thr *t = (cl_thr *)w;
	cl_op *o = (cl_op *)wo;
	switch (o->w.state) {
	case S_FIRST:
	case S_READ:
		get_step(t, o);
		break;
	case S_SHORTCUT:
		cl_finish(t, o, NULL);
		break;
	case S_ALLOC:
		alloc_done(t, o);
		break;
	case S_WRITE:
		cas_post(t, o);
		break;
	case S_CAS:
		cas_done(t, o);
		break;
	case S_CHASE:
		chase_step(t, o);
		break;
	default:
		break;
	}
}

static void step(kv_win *w, kv_wop *wo)
{
	(void)w;
	(void)wo;   /* every state waits on a completion */
}

static void start(kv_win *w, kv_wop *wo)
{
	cl_thr *t = (cl_thr *)w;
	cl_op *o = (cl_op *)wo;
	o->w.kind = kv_next(w->kt, &o->rank);
	o->w.key = kv_key(o->rank);
	o->node = key_node(t->j, o->rank);
	o->rtts = 0;
	if (o->w.kind == KV_GET) {
		/* The version at the cursor and the key's shortcut, in parallel (one round trip). */
		o->va = t->cursor[o->rank];
		kv_win_read(&t->win, &o->w, o->node, &o->w.word[2], shortcut_va(t->j, o->rank), 8);
		read_post(t, o, S_FIRST, o->w.buf, (uint32_t)t->j->slot_bytes);
	} else {
		o->w.kind = KV_UPDATE;
		update_start(t, o);
	}
}

static const kv_win_ops cl_steps = {start, advance, step};

static void cl_thr_setup(nm_worker *w)
{
	cl_job *j = w->arg;
	cl_thr *t = nm_calloc64(1, sizeof *t);
	*t = (cl_thr){.j = j, .t = w->index, .cursor = nm_malloc(j->p->keys * sizeof(uint64_t)),
		      .batch = nm_calloc((size_t)j->M, sizeof *t->batch), .nfree = nm_calloc((size_t)j->M, sizeof *t->nfree),
		      .msg = (uint8_t *)j->mr.buf + (size_t)j->T * j->scratch_per_op + (size_t)w->index * CL_MS_MSG_BYTES};
	kv_thread *kt = kv_worker_thread(j->th, j->p, j->ctx, w);
	if (j->cp->trace) {   /* each client thread of the job at its own offset */
		size_t n = j->cp->trace_n, all = (size_t)j->clients * (size_t)j->T;
		ycsb_init_trace(&kt->gen, j->cp->trace, n, part_index(j, j->rank, w->index) * n / all);
	}
	for (uint64_t k = 0; k < j->p->keys; k++)
		t->cursor[k] = head_va(j, k);
	uint8_t *scr = (uint8_t *)j->mr.buf + (size_t)w->index * j->scratch_per_op;
	kv_win_init(&t->win, &cl_steps, j, kt, &j->mesh, j->mr.mr->lkey, w->index, 1, sizeof(cl_op),
		    scr, j->scratch_per_op, j->timeout);
	w->arg = t;
}

static void cl_thr_body(nm_worker *w)
{
	cl_thr *t = w->arg;
	kv_win_body(&t->win);
	cl_ms_bye(kv_win_conn(&t->win, 0), t->j->mesh.cq[t->t], t->msg, t->win.lkey, t->j->timeout);
	kv_win_free(&t->win);
	free(t->cursor);
	free(t->batch);
	free(t->nfree);
	free(t);
}

/* ---- the check after the run (memory nodes) ----------------------------------------- */

/* Writer of a version -> its client thread's index, or -1 when no client thread has that id. */
static int writer_index(const cl_job *j, uint32_t writer)
{
	int rank = (int)(writer >> 8), t = (int)(writer & 0xff);
	return is_client(j, rank) && t < j->T ? (int)part_index(j, rank, t) : -1;
}

/* Walks one key's chain in local memory; returns the versions linked after the first, or -1 after noting a fault. */
static int64_t chain_walk(cl_job *j, nm_measure *ms, uint64_t r, uint32_t *last, kv_checker *c)
{
	int m = mem_index(j, j->rank);
	uint64_t base = j->mesh.rmr[j->rank].addr, lo = part_off(j, m, 0), hi = j->mr.len, key = kv_key(r);
	uint64_t limit = (uint64_t)j->clients * (uint64_t)j->T * j->cp->slots, n = 0;
	const uint64_t *v = (const uint64_t *)((const uint8_t *)j->mr.buf + (r / (uint64_t)j->M) * j->slot_bytes);
	memset(last, 0, sizeof *last * (size_t)j->clients * (size_t)j->T);
	for (;;) {
		const char *bad = NULL;
		c->seen[0].key = 0;   /* versions of different writers are ordered by the chain, not compared here */
		uint32_t wr = kv_word_writer(v[2]);
		int wi = n ? writer_index(j, wr) : 0;
		if (v[1] != key)
			bad = "holds another key";
		else if (kv_check_value(c, key, v + 2, j->p->value_words) != KV_READ_OK)
			bad = "holds a torn or foreign value";
		else if (wi < 0)
			bad = "was written by no client thread";
		else if (n && kv_word_version(v[2]) <= last[wi])
			bad = "comes before an older version of its writer";
		if (bad) {
			nm_error_note(&ms->rank_err, "clover: key 0x%016" PRIx64 " (rank %" PRIu64 "): version %" PRIu64
				      " of its chain %s", key, r, n, bad);
			return -1;
		}
		if (n)
			last[wi] = kv_word_version(v[2]);
		if (v[0] == 0)
			return (int64_t)n;
		uint64_t off = v[0] - base;
		if (v[0] < base || off < lo || off >= hi || (off - lo) % j->slot_bytes || ++n > limit) {
			nm_error_note(&ms->rank_err, "clover: key 0x%016" PRIx64 " (rank %" PRIu64 "): next pointer "
				      "0x%" PRIx64 " after version %" PRIu64 " is no version slot (or the chain loops)",
				      key, r, v[0], n);
			return -1;
		}
		v = (const uint64_t *)((const uint8_t *)j->mr.buf + off);
	}
}

static void cl_scan(cl_job *j, nm_measure *ms)
{
	int m = mem_index(j, j->rank);
	uint32_t *last = nm_calloc((size_t)j->clients * (size_t)j->T, sizeof *last);
	kv_checker c;
	kv_checker_init(&c, 1, true);   /* one entry: only torn and foreign values matter here */
	for (uint64_t i = 0; i < keys_on(j, m); i++) {
		int64_t n = chain_walk(j, ms, i * (uint64_t)j->M + (uint64_t)m, last, &c);
		if (n < 0)
			ms->rank_c[KV_C_BAD_SLOTS]++;
		else
			ms->rank_c[CL_C_CHAINED] += (uint64_t)n;
	}
	kv_checker_free(&c);
	free(last);
}

/* ---- one point ------------------------------------------------------------------- */

static void cl_connect(cl_job *j, nm_ctx *ctx)
{
	uint8_t *pairs = nm_calloc((size_t)j->N * (size_t)j->N, 1);
	for (int c = 1; c < j->N - j->M; c++) {
		pairs[c * j->N] = 1;   /* clients to the metadata server, for its RPCs */
		for (int m = j->N - j->M; m < j->N; m++)
			pairs[c * j->N + m] = 1;   /* and to the memory nodes */
	}
	/* the metadata server keeps a RECV and a reply posted per client QP */
	nm_mesh_cfg mc = {.nthreads = j->T, .qps = 1, .initiates = pairs, .qp = ctx->base.qp, .passive_wrs = 2};
	mc.qp.sq_depth = 16;
	nm_mesh_create(&j->mesh, ctx->dev, &mc, &j->mr);
	free(pairs);
}

static void cl_setup(cl_job *j, nm_ctx *ctx)
{
	char err[512] = "";
	size_t bytes = cl_layout(j);
	int failed = nm_mr_alloc(ctx->dev, &j->mr, bytes, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(j->mr.buf, 0, bytes);
	if (is_mem(j, j->rank))
		cl_prefill(j);
	cl_connect(j, ctx);
}

/* ---- the metadata server (rank 0) ------------------------------------------------------ */

/* Every memory node's pool: the version slots after its heads. */
static void cl_ms_up(cl_job *j, cl_ms *ms)
{
	uint64_t *lo = nm_calloc((size_t)j->M, sizeof *lo), *hi = nm_calloc((size_t)j->M, sizeof *hi);
	for (int m = 0; m < j->M; m++) {
		const nm_rmr *r = &j->mesh.rmr[j->N - j->M + m];
		lo[m] = r->addr + part_off(j, m, 0);
		hi[m] = r->addr + part_off(j, m, (uint64_t)j->clients * (uint64_t)j->T);
	}
	cl_ms_cfg c = {.mesh = &j->mesh, .first_client = 1, .clients = j->clients, .threads = j->T,
		       .first_mem = j->N - j->M, .mem_nodes = j->M, .pool_lo = lo, .pool_hi = hi,
		       .slot_bytes = j->slot_bytes, .buf = j->mr.buf, .lkey = j->mr.mr->lkey};
	cl_ms_start(ms, &c);
	free(lo);   /* cl_ms_start copied what it needs */
	free(hi);
}

/* ---- the packet path (the memory node starts and stops it) --------------------------- */

static size_t path_conns(const cl_job *j) { return (size_t)j->clients * (size_t)j->T + 16; }

/* Collective: every rank learns whether the path came up. Its tracked keys
 * start with their first versions as tails (the chains are fresh). */
static void cl_path_up(cl_job *j, cl_path *path, const nm_dev *dev)
{
	const cl_point *cp = j->cp;
	char err[700] = "";
	if (is_mem(j, j->rank) && !dev->emulated)
		snprintf(err, sizeof err, "clover: --resolve %s puts the packet path on the memory node's host, which "
			 "sees RoCE packets only with Soft-RoCE (a NIC bypasses its host's kernel): on hardware, run "
			 "netmem clover-path --hook forward on a host that routes between clients and memory node "
			 "(README, netmem clover)", cl_resolve_names[cp->resolve]);
	else if (is_mem(j, j->rank)) {
		uint64_t n = cp->track, *keys = nm_malloc(n * sizeof *keys), *tails = nm_malloc(n * sizeof *tails);
		for (uint64_t r = 0; r < n; r++) {
			keys[r] = kv_key(r);
			tails[r] = head_va(j, r);
		}
		cl_path_cfg pc = {.queue = cp->queue, .rewrite = cp->resolve == CL_RESOLVE_ON, .conns = path_conns(j),
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
	nm_hist h;
	nm_hist_init(&h);
	for (int t = 0; is_client(j, j->rank) && t < j->T; t++)
		nm_hist_merge(&h, &j->rtt[t]);
	nm_boot_hist_merge(&h);
	return json_pack("{s:f, s:f, s:f, s:I}", "p50", nm_hist_quantile(&h, 0.5), "p99", nm_hist_quantile(&h, 0.99),
			 "mean", nm_hist_mean(&h), "max", (json_int_t)(h.count ? h.max : 0));
}


static json_t *cl_checks(const cl_job *j, const nm_measure *ms, const cl_path_stats *st, uint64_t served, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool path_ok = true, rpcs_ok = served == c[KV_C_RPCS];
	json_t *path = j->cp->resolve != CL_RESOLVE_NONE ? cl_path_check(st, c, j->cp->resolve == CL_RESOLVE_ON, &path_ok) : NULL;
	bool reads_ok = c[KV_C_TORN] == 0 && c[KV_C_FOREIGN] == 0 && c[KV_C_REGRESSED] == 0;
	bool chains_ok = c[KV_C_BAD_SLOTS] == 0 && c[CL_C_CHAINED] == c[CL_C_ACKED];
	*valid = reads_ok && chains_ok && path_ok && rpcs_ok && ms->errors == 0 && ms->ops > 0;
	json_t *o = json_pack("{s:{s:I, s:I, s:I, s:b}, s:{s:I, s:I, s:I, s:b}}", "reads", "torn",
			      (json_int_t)c[KV_C_TORN], "foreign", (json_int_t)c[KV_C_FOREIGN], "regressed",
			      (json_int_t)c[KV_C_REGRESSED], "ok", reads_ok, "chains", "bad_chains",
			      (json_int_t)c[KV_C_BAD_SLOTS], "acked_writes", (json_int_t)c[CL_C_ACKED],
			      "chained_versions", (json_int_t)c[CL_C_CHAINED], "ok", chains_ok);
	if (path)
		json_object_set_new(o, "path", path);
	json_object_set_new(o, "rpcs", json_pack("{s:I, s:I, s:b}", "sent", (json_int_t)c[KV_C_RPCS], "served",
						 (json_int_t)served, "ok", rpcs_ok));
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
	json_object_set_new(o, "client_ranks", json_integer(j->clients));
	json_object_set_new(o, "threads_per_client", json_integer(ctx->base.threads));
	json_object_set_new(o, "client_threads", json_integer(j->clients * ctx->base.threads));
	json_object_set_new(o, "slots_per_thread", json_integer((json_int_t)j->cp->slots));
	json_object_set_new(o, "resolve", json_string(cl_resolve_names[j->cp->resolve]));
	if (j->cp->resolve != CL_RESOLVE_NONE) {
		json_object_set_new(o, "keys_tracked", json_integer((json_int_t)j->cp->track));
		json_object_set_new(o, "path", json_string("NFQUEUE on the memory node's host (netmem clover-path, "
							    "hook local), rules and process started and stopped per point"));
	}
	json_object_set_new(o, "allocation", json_string("batches of 16 free version slots from the metadata server "
							 "(rank 0) by RPC over SEND/RECV, as Clover's clients get them"));
	json_object_set_new(o, "shortcut", json_string("per key, READ with each get's first READ and jumped to once; "
						       "written by the writer after its CAS succeeds"));
	json_object_set_new(o, "gc", json_string("none (versions are never reused)"));
	return o;
}

static void cl_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	const cl_point *cp = point;
	int T = ctx->base.threads;
	cl_job j = {.ctx = ctx, .cp = cp, .p = &cp->load, .rank = ctx->rank, .N = ctx->nranks, .T = T, .M = cp->mem_nodes,
		    .clients = ctx->nranks - 1 - cp->mem_nodes, .timeout = ctx->base.timeout};
	bool client = is_client(&j, j.rank);
	/* gets and updates timed apart (kv_done), in metrics.lat_by_op */
	static const nm_measure_def def = {"ops", cl_counters, CL_C_N, kv_op_names, KV_NOPS};
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, client ? T : 0);
	j.th = nm_calloc((size_t)T, sizeof(kv_thread));
	j.rtt = nm_calloc((size_t)T, sizeof(nm_hist));
	for (int t = 0; t < T; t++)
		nm_hist_init(&j.rtt[t]);
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
		nm_workers_sit_out(ms);   /* memory nodes: passive */
	}
	if (cp->resolve != CL_RESOLVE_NONE)
		cl_path_down(&j, &path, ms, &pst);
	if (is_mem(&j, j.rank))
		cl_scan(&j, ms);
	nm_measure_gather(ms);
	json_t *rtt = cl_rtt_json(&j);
	if (ctx->rank == 0) {
		bool valid;
		json_t *checks = cl_checks(&j, ms, &pst, served, &valid), *metrics = nm_measure_metrics(ms);
		cl_metrics(metrics, ms->total_c, rtt);
		if (cp->resolve != CL_RESOLVE_NONE)
			json_object_set_new(metrics, "path", cl_path_metrics(&j, &pst));
		json_object_set_new(out, "valid", json_boolean(valid));
		json_object_set_new(out, "checks", checks);
		json_object_set_new(out, "metrics", metrics);
		json_object_set_new(out, "effective", cl_effective(&j, ctx));
	} else {
		json_decref(rtt);
	}
	nm_boot_barrier();
	nm_mesh_destroy(&j.mesh);
	nm_mr_free(&j.mr);
	for (int t = 0; client && t < T; t++)
		kv_thread_free(&j.th[t]);
	free(j.th);
	free(j.rtt);
	nm_measure_free(ms);
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
	       json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID");
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
		"other hosts), which redirects losing CASes to the tail when on.\n\n"
		"Example:\n"
		"  mpirun -np 4 netmem clover -T 2 -w a,b,c --dist zipfian --theta 0.75 -K 1024 -D 10",
	.opts = cl_opts,
	.min_ranks = 1,
	.point_size = sizeof(cl_point),
	.point_free = cl_point_free,
	.decode = cl_decode,
	.run = cl_run_point,
	.report = cl_report,
};

NM_EXPERIMENT(cl_experiment)
