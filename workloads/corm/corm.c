/* netmem corm: CoRM, compactable remote memory whose one-sided reads
 * survive compaction (Taranov, Di Girolamo and Hoefler, "CoRM: Compactable
 * Remote Memory over RDMA", SIGMOD '21).
 *
 * Rank 0 is the server (CoRM's memory, primitives/corm/corm_heap.h, and
 * --server-threads RPC workers, default -T); ranks 1.. are clients with -T threads, two RC QPs each
 * (RPCs and READs, workloads/corm/corm_net.c). Benches (--bench):
 *   latency     Figs. 9/10: raw READ and raw RPC, Alloc, Free, RPC Read and
 *               Write, DirectRead, ScanRead, an RPC read through an indirect
 *               pointer, ReleasePtr; one at a time, --iters each.
 *   throughput  Figs. 11-14: reads (--read direct|rpc) and RPC writes
 *               (--write-ratio) for --duration, keys uniform or Zipf
 *               (CoRM's rejection-inversion, ranks scattered over the
 *               objects by one permutation per job); DirectRead
 *               failures counted.
 *   compaction  Fig. 16: load, free --free-ratio of the objects, then
 *               every client reads its objects in order (--read both: a
 *               DirectRead and an RPC reader side by side) while the
 *               server compacts --compact-at seconds in (--max-merges);
 *               reads per --interval as a time series, and each reader's
 *               rate before, during and after; then every survivor is read
 *               through its pointer from before the compaction.
 *   collection  Fig. 15: one object per server worker, then a compaction,
 *               timed as its collection and its compaction, --iters times
 *               (workloads/corm/corm_collect.c).
 *   remap       Fig. 8: one block remapped per strategy on the server, and
 *               the first READ after each remap, --iters or --duration
 *               (workloads/corm/corm_remap.c).
 * Every bench loads --objects objects of --size bytes per client thread (or
 * --live-objects in all, whatever the client count, or as many as fill
 * --class-bytes of the size's slots, Fig. 11's 8 GiB per size class) and
 * checks every read (corm_bench.c): a lost object or stale bytes make the
 * point invalid. The remap strategy (--strategy) is probed on the device and
 * recorded with what the device supports, including real READs through an
 * ODP MR (workloads/corm/corm_probe.c): a device whose ODP READs ignore the
 * in-page offset (rxe) is named, and the DirectRead misses it explains are
 * counted apart from those the compaction causes.
 *
 * Decisions where the paper is silent: with --keys own each client thread
 * reads and writes only objects it allocated (so it knows every object's
 * version and can check reads exactly); with --keys shared (Figs. 12-14)
 * every thread draws from every client's objects, their pointers exchanged
 * once after the load, and a read is checked for its object and content
 * but not its version; the server's main thread is the compaction leader,
 * standing in for worker 0: it takes worker 0's blocks itself and asks the
 * other workers for theirs through their mailboxes (corm_mbox.h), and the
 * collected blocks are worker 0's afterwards; DirectRead retries a locked
 * or torn copy up to 1000 times, then falls back to ScanRead (or, with
 * --fallback rpc, straight) to an RPC read. */
#include "corm.h"
#include "corm_bench.h"
#include "corm_latsum.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "experiment.h"
#include "log.h"
#include "rng.h"
#include "workers.h"
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -K's default in the table's string form */
#define CORM_STR_(x) #x
#define CORM_STR(x) CORM_STR_(x)

static const nm_opt corm_opts[] = {
	{"bench", 0, NM_OPT_ENUM, "compaction", 0, 0, "latency,throughput,compaction,remap,local,collection", NM_OPT_LIST,
	 "latency (Figs. 9/10), throughput (Figs. 11-14), compaction (Fig. 16: reads before, during and after "
	 "a compaction), remap (Fig. 8: one block remapped per strategy, the first READ after it), local "
	 "(Fig. 11's local side: the server's threads read its memory), collection (Fig. 15: one object per "
	 "server worker, then a compaction, its collection and compaction timed)"},
	{"strategy", 0, NM_OPT_ENUM, "auto", 0, 0, "auto,rereg,odp,odp-prefetch,defer", NM_OPT_LIST,
	 "how one-sided access survives a remap: auto picks odp-prefetch, odp, rereg, then defer (deferred "
	 "reclamation: breaks the paper's no-disruption property)"},
	{"block-size", 'B', NM_OPT_SIZE, "4k", 1, 1ll << 30, NULL, NM_OPT_LIST, "block size (a power of two, 4k .. 64M)"},
	{"size", 's', NM_OPT_SIZE, "24", 8, 1ll << 30, NULL, NM_OPT_LIST, "object payload bytes (>= 8)"},
	{"objects", 'K', NM_OPT_SIZE, CORM_STR(CORM_OBJECTS_DEF), 1, CORM_MAX_OBJECTS, NULL, NM_OPT_LIST,
	 "objects allocated per client thread"},
	{"live-objects", 0, NM_OPT_SIZE, "0", 0, 1ll << 32, NULL, NM_OPT_LIST,
	 "objects live in all after the load and the free, whatever the client count (the paper's object count; "
	 "0: -K per thread): each of C client threads loads N / C / (1 - free-ratio) and frees the excess"},
	{"class-bytes", 0, NM_OPT_SIZE, "0", 0, 1ll << 40, NULL, NM_OPT_LIST,
	 "bytes of --size's class the load fills in all (Fig. 11: 8G per size class; 0: -K), counted in slots "
	 "(the object's header and line versions included): each of the C loading threads (client threads; "
	 "--bench local: the server's) loads class-bytes / slot / C objects, recorded as "
	 "effective.objects_per_thread; excludes -K and --live-objects"},
	{"server-threads", 0, NM_OPT_INT, "0", 0, 1024, NULL, NM_OPT_LIST,
	 "the server's RPC worker threads (the paper: 8), apart from the clients' -T; 0: -T"},
	{"free-ratio", 0, NM_OPT_DOUBLE, "0.8", 0, 1, NULL, NM_OPT_LIST,
	 "fraction of the objects freed after the load (fragmentation; the paper's Fig. 16: 0.75)"},
	{"read", 0, NM_OPT_ENUM, "direct", 0, 0, "direct,farm,raw,rpc,both", NM_OPT_LIST,
	 "how reads go: CoRM's DirectRead, FaRM's read (line versions, no object ID), a raw READ (no check: the "
	 "ideal Mesh-style system) or RPC; both (compaction): even client threads read by DirectRead, odd ones by "
	 "RPC, side by side as Fig. 16's two clients; with --bench local: CoRM's check, FaRM's, or a "
	 "plain memcpy (raw)"},
	{"fallback", 0, NM_OPT_ENUM, "scan", 0, 0, "scan,rpc", NM_OPT_LIST,
	 "where a DirectRead that missed its object goes: scan (ScanRead of its block, then RPC) or rpc (an RPC "
	 "read at once: Fig. 16, bottom)"},
	{"find", 0, NM_OPT_ENUM, "scan", 0, 0, "scan,msg", NM_OPT_LIST,
	 "how a server worker finds a moved object in a block it does not own: scan (it scans the block: the "
	 "authors' default) or msg (it asks the owner through its mailbox, and a block under compaction waits "
	 "for the compaction: Fig. 16, top)"},
	{"max-merges", 0, NM_OPT_SIZE, "0", 0, 1ll << 32, NULL, NM_OPT_LIST,
	 "compaction: stop after this many merged blocks (0: no cap; the authors' code stops after 6,000)"},
	{"keys", 0, NM_OPT_ENUM, "own", 0, 0, "own,shared", NM_OPT_LIST,
	 "throughput and compaction: which objects a client thread reads and writes: own (those it allocated; "
	 "every read's version checked) or shared (every client's, as the paper's YCSB clients: Fig. 13's "
	 "conflicts; a read's object and content checked, not its version)"},
	{"write-ratio", 0, NM_OPT_DOUBLE, "0", 0, 1, NULL, NM_OPT_LIST, "throughput: share of RPC writes"},
	{"dist", 0, NM_OPT_ENUM, "uniform", 0, 0, "uniform,zipfian", NM_OPT_LIST,
	 "key choice (zipfian: CoRM's rejection-inversion, ranks scattered over the objects)"},
	{"theta", 0, NM_OPT_DOUBLE, "0.99", 0.01, 10, NULL, NM_OPT_LIST, "Zipf exponent"},
	{"compact-at", 0, NM_OPT_DOUBLE, "0.5", 0, 3600, NULL, NM_OPT_LIST, "compaction: seconds into the read phase"},
	{"occupancy", 0, NM_OPT_DOUBLE, "0.9", 0, 1, NULL, NM_OPT_LIST,
	 "compaction: blocks at most this full are collected"},
	{"interval", 0, NM_OPT_DOUBLE, "0.05", 0.001, 60, NULL, 0, "time-series interval (s)"},
	NM_OPT_INJECT("none,no-id-check,read-refused,new-rkey",
	 "a fault that the checks must catch: no-id-check makes DirectRead accept whatever object sits at the "
	 "pointer's address (stale reads, the point invalid); read-refused sends one DirectRead in 50 with a "
	 "wrong key (the first one included), which the device refuses (the READ QP recovered, the read falls back, counted as "
	 "direct_read_refused); new-rkey registers every remapped VA afresh, as a NIC whose ibv_rereg_mr hands "
	 "back a new key (reads with the old key are refused, and the RPC fallback brings the new one: "
	 "rkey_updated)"),
	{"va-blocks", 0, NM_OPT_SIZE, "65536", 16, 1ll << 24, NULL, 0, "server address space, in blocks"},
	NM_OPT_ITERS("1000", "operations of each kind (latency), remaps (remap)"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations (a round of every kind with --bench latency, a remap with --bench remap)"),
	NM_OPT_END,
};

static int enum_of(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return 0;
}

/* --block-size and --size: the class the objects go to (p->slot, p->slots). */
static int size_class(const json_t *pt, corm_point *p, char *err, size_t len)
{
	int64_t bs = nm_cfg_int(pt, "block_size"), size = nm_cfg_int(pt, "size");
	corm_classes *cls = nm_malloc(sizeof *cls);
	int rc = corm_classes_init(cls, (uint64_t)bs, err, len);
	if (rc == 0) {
		int c = -1;
		for (int i = 0; i < cls->n && c < 0; i++)
			if (corm_slot_capacity(cls->size[i]) >= size)
				c = i;
		if (c < 0)
			rc = nm_errf(err, len, "--size %" PRId64 ": larger than a block of %" PRId64 " bytes holds (%u)",
				     size, bs, corm_slot_capacity(cls->size[cls->n - 1]));
		else {
			p->slot = cls->size[c];
			p->slots = cls->slots[c];
		}
	} else {
		char tmp[256];
		snprintf(tmp, sizeof tmp, "--block-size: %s", err);
		snprintf(err, len, "%s", tmp);
	}
	free(cls);
	p->block_size = (uint32_t)bs;
	p->size = (uint32_t)size;
	return rc;
}

static int corm_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	corm_point *p = out;
	*p = (corm_point){
		.bench = (corm_bench)enum_of(nm_cfg_str(pt, "bench"), corm_bench_names, CORM_NBENCH),
		.strategy = (corm_remap)enum_of(nm_cfg_str(pt, "strategy"), corm_remap_names, CORM_NSTRATS),
		.read = (corm_read_path)enum_of(nm_cfg_str(pt, "read"), corm_read_names, CORM_NREAD),
		.fallback = (corm_fallback)enum_of(nm_cfg_str(pt, "fallback"), corm_fallback_names, CORM_NFALLBACK),
		.find = (cmem_find)enum_of(nm_cfg_str(pt, "find"), cmem_find_names, CMEM_NFIND),
		.max_merges = (uint64_t)nm_cfg_int(pt, "max_merges"),
		.keys = (corm_keys)enum_of(nm_cfg_str(pt, "keys"), corm_keys_names, CORM_NKEYS),
		.dist = strcmp(nm_cfg_str(pt, "dist"), "zipfian") ? YCSB_UNIFORM : YCSB_ZIPFIAN_RI,
		.free_ratio = nm_cfg_double(pt, "free_ratio"),
		.write_ratio = nm_cfg_double(pt, "write_ratio"),
		.theta = nm_cfg_double(pt, "theta"),
		.compact_at = nm_cfg_double(pt, "compact_at"),
		.occupancy = nm_cfg_double(pt, "occupancy"),
		.interval = nm_cfg_double(pt, "interval"),
		.va_blocks = (uint32_t)nm_cfg_int(pt, "va_blocks"),
		.objects = (uint32_t)nm_cfg_int(pt, "objects"),
		.inject = (corm_inject)enum_of(nm_cfg_str(pt, "inject"), corm_inject_names, CORM_NINJECT),
	};
	if (size_class(pt, p, err, len))
		return -1;
	if (b->nranks < 2)
		return nm_errf(err, len, "netmem corm needs a server rank and at least one client rank (-np >= 2)");
	if (corm_objects_of(pt, b, p, err, len))
		return -1;
	if (p->bench == CORM_BENCH_LOCAL && p->read == CORM_READ_RPC)
		return nm_errf(err, len, "--bench local --read rpc: a local read has no RPC (direct, farm or raw)");
	if (p->read == CORM_READ_BOTH && (p->bench != CORM_BENCH_COMPACTION || b->threads < 2))
		return nm_errf(err, len, "--read both gives half the client threads to each read path: it needs "
			       "--bench compaction and -T 2 or more, not --bench %s with -T %d",
			       corm_bench_names[p->bench], b->threads);
	if (p->bench == CORM_BENCH_COLLECTION &&
	    (uint64_t)(b->nranks - 1) * (uint64_t)b->threads < p->server_threads)
		return nm_errf(err, len, "--bench collection: every server worker answers the collection from its "
			       "serving loop, which needs a client thread of its own: -T %d x %d client rank(s) is "
			       "fewer than --server-threads %u", b->threads, b->nranks - 1, p->server_threads);
	bool readers = p->bench == CORM_BENCH_THROUGHPUT || p->bench == CORM_BENCH_COMPACTION;
	if (readers && !(b->measure.duration > 0))
		return nm_errf(err, len, "--bench %s needs --duration", corm_bench_names[p->bench]);
	if (!readers && p->keys == CORM_KEYS_SHARED)
		return nm_errf(err, len, "--keys shared: only the throughput and compaction benches share objects, not %s",
			       corm_bench_names[p->bench]);
	if (p->inject == CORM_INJECT_NEW_RKEY && (p->strategy == CORM_STRAT_DEFER || p->bench != CORM_BENCH_COMPACTION))
		return nm_errf(err, len, "--inject new-rkey re-keys the blocks a compaction remaps: it needs --bench compaction "
			       "and a strategy that remaps (auto, rereg, odp, odp-prefetch), not %s with %s",
			       corm_bench_names[p->bench], corm_remap_names[p->strategy]);
	return 0;
}

/* ---- one point ---- */

typedef struct corm_run {
	nm_ctx *ctx;
	const corm_point *p;
	nm_measure *ms;
	corm_client *cli;
	corm_thread *th;
	int T;
} corm_run;

static void w_load(nm_worker *w)
{
	corm_run *r = w->arg;
	corm_thread_load(&r->th[w->index]);
}

static void w_phase(nm_worker *w)
{
	corm_run *r = w->arg;
	if (r->p->bench == CORM_BENCH_LATENCY)
		corm_thread_latency(&r->th[w->index]);
	else
		corm_thread_readers(&r->th[w->index]);
}

static void w_verify(nm_worker *w)
{
	corm_run *r = w->arg;
	corm_thread_verify(&r->th[w->index]);
}

static void w_unload(nm_worker *w)
{
	corm_run *r = w->arg;
	corm_thread_unload(&r->th[w->index]);
}

/* One round of the client threads (harness/workers.h): setup before the
 * job-wide start, body after it; measured when ms is given. */
static void clients_round(corm_run *r, void (*setup)(nm_worker *), void (*body)(nm_worker *), nm_measure *ms)
{
	nm_round rd = {.workers = r->T, .numa_node = r->ctx->base.mem_node, .setup = setup, .body = body, .arg = r,
		       .measure = ms};
	nm_workers_run(&rd);
}

static json_t *stats_json(const cmem_compact_stats *s, int rc, const char *err)
{
	json_t *j = json_object();
	json_object_set_new(j, "ok", json_boolean(rc == 0));
	if (rc)
		json_object_set_new(j, "error", json_string(err));
	json_object_set_new(j, "collected_blocks", json_integer((json_int_t)s->collected));
	json_object_set_new(j, "collect_messages", json_integer((json_int_t)s->collect_msgs));
	json_object_set_new(j, "merged_blocks", json_integer((json_int_t)s->merges));
	json_object_set_new(j, "moved_objects", json_integer((json_int_t)s->moved));
	json_object_set_new(j, "moved_to_other_offset", json_integer((json_int_t)s->moved_offset));
	json_object_set_new(j, "blocks_without_partner", json_integer((json_int_t)s->no_partner));
	json_object_set_new(j, "remapped_vas", json_integer((json_int_t)s->remaps));
	json_object_set_new(j, "keys_changed", json_integer((json_int_t)s->keys_changed));
	json_object_set_new(j, "collect_us", json_real((double)s->collect_ns / 1e3));
	json_object_set_new(j, "compact_us", json_real((double)s->compact_ns / 1e3));
	json_object_set_new(j, "mmap_us_per_remap", json_real(s->remaps ? (double)s->mmap_ns / 1e3 / (double)s->remaps : 0));
	json_object_set_new(j, "compact_us_per_merge",
			    json_real(s->merges ? (double)s->compact_ns / 1e3 / (double)s->merges : 0));
	json_object_set_new(j, "nic_us_per_remap", json_real(s->remaps ? (double)s->nic_ns / 1e3 / (double)s->remaps : 0));
	return j;
}

/* What the probe found and which strategy runs, for every bench. */
static json_t *effective_json(const nm_ctx *ctx, const corm_caps *cp, corm_remap strat, const corm_devlimit *lim)
{
	json_t *eff = json_object();
	json_object_set_new(eff, "strategy", json_string(corm_remap_names[strat]));
	json_object_set_new(eff, "strategy_breaks_no_disruption", json_boolean(strat == CORM_STRAT_DEFER));
	json_object_set_new(eff, "device", json_string(ctx->dev->name));
	json_object_set_new(eff, "emulated", json_boolean(ctx->dev->emulated));
	json_object_set_new(eff, "odp_rc_read", json_boolean(cp->odp_rc_read));
	json_object_set_new(eff, "rereg", json_string(cp->rereg_errno ? strerror(cp->rereg_errno) : "ok"));
	json_object_set_new(eff, "rereg_new_key", json_boolean(cp->rereg_new_key));
	if (cp->auto_reason[0])
		json_object_set_new(eff, "strategy_reason", json_string(cp->auto_reason));
	json_object_set_new(eff, "advise_mr", json_string(cp->advise_errno ? strerror(cp->advise_errno) : "ok"));
	if (cp->odp_rc_read) {
		json_object_set_new(eff, "odp_read_probed", json_boolean(cp->odp_read_checked));
		json_object_set_new(eff, "odp_read_offset_ok", json_boolean(cp->odp_read_offset_ok));
		json_object_set_new(eff, "odp_read_follows_remap", json_boolean(cp->odp_follows_remap));
	}
	/* The limit the client tallies separate (corm_probe.c): such misses are
	 * the device's, not the compaction's. */
	json_object_set_new(eff, "device_limit",
			    lim->odp_offset_bug ? json_string("ODP READs ignore the in-page offset: a read not at a page "
							     "start returns that page's first bytes")
					       : json_null());
	return eff;
}

/* The probe on the server, its verdict for the clients (collective). NULL,
 * or why `p->strategy` cannot run here. */
static const char *probe_point(nm_ctx *ctx, const corm_point *p, corm_caps *caps, corm_remap *strat,
			       corm_devlimit *lim, char *err, size_t errlen)
{
	const char *fail = NULL;
	memset(lim, 0, sizeof *lim);
	memset(caps, 0, sizeof *caps);
	*strat = p->strategy;
	if (ctx->rank == 0) {
		fail = corm_probe(ctx->dev, &ctx->base.qp, caps, p->strategy, strat, err, errlen) ? err : NULL;
		bool odp = *strat == CORM_STRAT_ODP || *strat == CORM_STRAT_ODP_PREFETCH;
		lim->odp_offset_bug = odp && caps->odp_read_checked && !caps->odp_read_offset_ok;
		lim->remap_refusals = *strat != CORM_STRAT_DEFER;
		lim->page = (uint32_t)sysconf(_SC_PAGESIZE);
	}
	nm_boot_bcast(lim, sizeof *lim, 0);
	return fail;
}

/* The server's side of the collective set-up every bench with a heap
 * shares: the probe's verdict, then the heap's (rank 0 builds it; the
 * others only take part in the checks). */
typedef struct corm_srv {
	corm_caps caps;
	corm_remap strat;
	corm_devlimit lim;
	corm_nicctx nic;
	cmem_heap *h;   /* rank 0 */
} corm_srv;

/* The heap's sizes, for heap_up and for netmem preflight (corm_needs): its
 * threads (the RPC workers, or the local bench's own threads), and the
 * objects each of them allocates at most. */
static int heap_workers(const corm_point *p, const nm_base *b)
{
	return p->bench == CORM_BENCH_LOCAL ? b->threads : (int)p->server_threads;
}

static uint64_t heap_objects(const corm_point *p, int nranks)
{
	if (p->bench == CORM_BENCH_COLLECTION)
		return 1;   /* one object per worker at a time */
	return p->bench == CORM_BENCH_LOCAL ? p->objects : (uint64_t)(nranks - 1) * p->objects;
}

static bool strat_odp(corm_remap s) { return s == CORM_STRAT_ODP || s == CORM_STRAT_ODP_PREFETCH; }

/* Rank 0's heap at its fullest: a registration per block (cmem_reg_bytes,
 * what the memlock check of heap_up counts), on demand with an ODP
 * strategy. --strategy auto is counted pinned: what it resolves to is the
 * device's probe's, and pinned is the case that can exceed memlock. */
static void heap_needs(const corm_point *p, const nm_base *b, int nranks, const corm_classes *cls, nm_needs *n)
{
	cmem_heap h = {.cfg = {.block_size = p->block_size, .threads = heap_workers(p, b)}, .cls = *cls};
	uint64_t bytes = cmem_reg_bytes(&h, p->size, heap_objects(p, nranks));
	bool odp = strat_odp(p->strategy);
	nm_needs add = {.mrs = bytes / p->block_size, .largest_mr = p->block_size, .odp = odp};
	if (odp)
		add.odp_bytes = bytes;
	else
		add.pinned_bytes = bytes;
	nm_needs_sum(n, &add);
}

/* netmem preflight: the heap and the star on the server (rank 0), each
 * client's buffers and QPs; --bench remap registers one block on the server
 * and READs it over a loopback QP (a strategy the device lacks is a skipped
 * point there, so it needs no ODP). */
static void corm_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	const corm_point *p = point;
	corm_classes *cls = nm_malloc(sizeof *cls);
	char err[256];
	if (corm_classes_init(cls, p->block_size, err, sizeof err) == 0) {
		if (p->bench == CORM_BENCH_REMAP && rank == 0) {
			nm_needs loop = {.qps = 1, .cqs = 1};
			nm_needs_sum(n, &loop);
			nm_mr_needs(n, p->block_size, false, strat_odp(p->strategy));
		} else if (p->bench != CORM_BENCH_REMAP) {
			if (rank == 0)
				heap_needs(p, b, nranks, cls, n);
			if (p->bench != CORM_BENCH_LOCAL)
				corm_net_needs(&b->qp, b->threads, nranks, rank, corm_msg_max(cls, p->size), p->block_size, n);
		}
	}
	free(cls);
}

/* Rank 0, before the load: every object the clients (or, for --bench
 * local, the server's own threads) will allocate fits under RLIMIT_MEMLOCK.
 * NULL, or the line in err. */
static const char *memlock_fits(nm_ctx *ctx, const corm_point *p, const corm_srv *sv, char *err, size_t errlen)
{
	int clients = nm_boot_size() - 1;
	uint64_t per = heap_objects(p, clients + 1);
	return corm_server_memlock(sv->h, sv->strat, clients * ctx->base.threads, per, p->size, err, errlen) ? err : NULL;
}

/* The probe's verdict on the point's strategy (rank 0; NULL elsewhere):
 * NULL, or why it cannot run here (in err). */
static const char *heap_probe(nm_ctx *ctx, const corm_point *p, corm_srv *sv, char *err, size_t errlen)
{
	const char *fail = probe_point(ctx, p, &sv->caps, &sv->strat, &sv->lim, err, errlen);
	if (!fail && p->inject == CORM_INJECT_NEW_RKEY && sv->strat == CORM_STRAT_DEFER) {
		snprintf(err, errlen, "--inject new-rkey: auto resolves to defer here, which remaps nothing (%s)",
			 sv->caps.auto_reason);
		fail = err;
	}
	return fail;
}

/* Rank 0's heap for the probed strategy, and the memlock check
 * (collective: a failure ends the job with its line). */
static void heap_make(nm_ctx *ctx, const corm_point *p, corm_srv *sv)
{
	char err[512] = "";
	const char *fail = NULL;
	if (ctx->rank == 0) {
		sv->nic = (corm_nicctx){.dev = ctx->dev, .strat = sv->strat, .new_key = p->inject == CORM_INJECT_NEW_RKEY};
		sv->h = nm_calloc(1, sizeof *sv->h);
		int workers = heap_workers(p, &ctx->base);
		cmem_heap_cfg hc = {.block_size = p->block_size, .va_blocks = p->va_blocks, .threads = workers,
				    .seed = ctx->base.seed, .mode = sv->strat == CORM_STRAT_DEFER ? CORM_DEFER : CORM_REMAP,
				    .find = p->find, .nic = corm_nic_hooks(&sv->nic), .wait_s = ctx->base.timeout};
		fail = cmem_init(sv->h, &hc, err, sizeof err) ? err : memlock_fits(ctx, p, sv, err, sizeof err);
	}
	nm_boot_check(fail, NM_EXIT_USAGE);
}

/* Probe and heap: a strategy the device lacks ends the job (exit 2). */
static void heap_up(nm_ctx *ctx, const corm_point *p, corm_srv *sv)
{
	char err[512] = "";
	nm_boot_check(heap_probe(ctx, p, sv, err, sizeof err), NM_EXIT_USAGE);
	heap_make(ctx, p, sv);
}

/* The compaction leader: the server's thread that, once the measured phase
 * has started on every rank, notes the memory the load left and (compaction
 * bench) has the class compacted --compact-at seconds in, by worker 0 from
 * its serving loop: the paper's leader is one of the workers (Sec. 3.4), so
 * the connections pinned to it wait while it compacts. */
typedef struct corm_leader {
	cmem_heap *h;
	const corm_point *p;
	nm_measure *ms;
	corm_server *srv;
	bool on_worker0;    /* the compaction ran on worker 0's thread */
	uint64_t active_before, live_before;
	uint64_t done_at;   /* when the compaction ended (ticks) */
	cmem_compact_stats st;
	int rc;
	char err[256];
} corm_leader;

static void leader_compact(void *arg)
{
	corm_leader *l = arg;
	l->rc = cmem_compact(l->h, cmem_class(l->h, l->p->size), l->p->occupancy, l->p->max_merges, &l->st, l->err,
			     sizeof l->err);
}

static void *leader_main(void *arg)
{
	corm_leader *l = arg;
	while (!atomic_load_explicit(&l->ms->go, memory_order_acquire))
		nm_nap_ns(1000000u);
	l->active_before = cmem_active_bytes(l->h);
	l->live_before = l->h->live_objects;
	if (l->p->bench == CORM_BENCH_COMPACTION) {
		uint64_t at = l->ms->start + nm_ns_to_ticks((uint64_t)(l->p->compact_at * 1e9));
		while (nm_ticks() < at)
			nm_nap_ns(1000000u);
		l->on_worker0 = corm_server_on_worker0(l->srv, leader_compact, l);
		if (!l->on_worker0)
			leader_compact(l);
		l->done_at = nm_ticks();
	}
	return NULL;
}

/* The compaction bench's compaction: its stats, how the moved objects
 * were found (by the block's owner, by a scan, by a message), and when it
 * ended: Fig. 16's "after" exists only when it ended inside the phase. */
static json_t *compaction_json(const corm_leader *l, const cmem_heap *h, const corm_point *p)
{
	json_t *j = stats_json(&l->st, l->rc, l->err);
	json_object_set_new(j, "find", json_string(cmem_find_names[p->find]));
	json_object_set_new(j, "finds_by_owner", json_integer((json_int_t)h->finds_own));
	json_object_set_new(j, "finds_by_scan", json_integer((json_int_t)h->finds_scan));
	json_object_set_new(j, "finds_by_message", json_integer((json_int_t)h->finds_msg));
	json_object_set_new(j, "max_merges", json_integer((json_int_t)p->max_merges));
	json_object_set_new(j, "compactor", json_string(l->on_worker0 ? "worker 0" : "server thread"));
	double end = l->done_at ? (double)nm_ticks_to_ns(l->done_at - l->ms->start) / 1e9 : -1;
	json_object_set_new(j, "started_at_s", json_real(p->compact_at));
	json_object_set_new(j, "ended_at_s", json_real(end));
	json_object_set_new(j, "ended_in_phase", json_boolean(end >= 0 && end < l->ms->cfg.duration));
	return j;
}

static json_t *memory_json(const corm_leader *l, uint64_t active_after, uint64_t retired_after,
			   uint64_t active_released, uint64_t active_end, uint64_t live_end)
{
	json_t *mem = json_object();
	json_object_set_new(mem, "live_objects", json_integer((json_int_t)l->live_before));
	json_object_set_new(mem, "active_bytes_before", json_integer((json_int_t)l->active_before));
	json_object_set_new(mem, "active_bytes_after", json_integer((json_int_t)active_after));
	json_object_set_new(mem, "retired_bytes_after", json_integer((json_int_t)retired_after));
	json_object_set_new(mem, "active_bytes_after_release", json_integer((json_int_t)active_released));
	json_object_set_new(mem, "reduction",
			    json_real(active_after ? (double)l->active_before / (double)active_after : 0));
	json_object_set_new(mem, "active_bytes_end", json_integer((json_int_t)active_end));
	json_object_set_new(mem, "live_objects_end", json_integer((json_int_t)live_end));
	return mem;
}

static json_t *heap_effective(const nm_ctx *ctx, const corm_srv *sv, const corm_point *p)
{
	json_t *eff = effective_json(ctx, &sv->caps, sv->strat, &sv->lim);
	int c = cmem_class(sv->h, p->size);
	json_object_set_new(eff, "slot_size", json_integer(sv->h->cls.size[c]));
	json_object_set_new(eff, "slots_per_block", json_integer(sv->h->cls.slots[c]));
	/* the load as decoded: -K, or what --live-objects or --class-bytes made of it */
	uint64_t all = corm_loaders(p, nm_boot_size(), ctx->base.threads) * p->objects;
	json_object_set_new(eff, "objects_per_thread", json_integer(p->objects));
	json_object_set_new(eff, "frees_per_thread", json_integer(p->frees));
	json_object_set_new(eff, "objects_total", json_integer((json_int_t)all));
	json_object_set_new(eff, "slot_bytes_total", json_integer((json_int_t)(all * sv->h->cls.size[c])));
	return eff;
}

/* --keys shared: after the load every client thread gets every client's
 * pointers (one allgather, unmeasured; the server's share is empty), its
 * own copy to correct as it reads. Slice of rank k, thread t, object i is
 * at ((k * T) + t) * objects + i, so rank 1's slice starts at key 0. A
 * freed object goes as address 0. r is NULL on the server. */
static void share_pointers(nm_ctx *ctx, const corm_point *p, corm_run *r)
{
	size_t per = (size_t)ctx->base.threads * p->objects, ranks = (size_t)nm_boot_size();
	corm_ptr *mine = nm_calloc(per, sizeof *mine), *all = nm_calloc(per * ranks, sizeof *all);
	for (int t = 0; r && t < r->T; t++)
		for (uint32_t i = 0; i < p->objects; i++)
			if (r->th[t].live[i])
				mine[(size_t)t * p->objects + i] = r->th[t].ptr[i];
	nm_boot_allgather(mine, all, per * sizeof *mine);
	for (int t = 0; r && t < r->T; t++)
		corm_thread_share(&r->th[t], all + per, (uint32_t)(per * (ranks - 1)));
	free(mine);
	free(all);
}

/* Server side of a point: the heap, the RPC workers, the compaction. The
 * clients' rounds are load + measured phase, verify, unload. */
static void server_point(nm_ctx *ctx, const corm_point *p, nm_measure *ms, json_t *out)
{
	corm_srv sv = {0};
	heap_up(ctx, p, &sv);
	cmem_heap *h = sv.h;
	corm_server *srv;
	corm_client *cli;
	uint32_t msg = corm_msg_max(&h->cls, p->size);
	corm_net_setup(ctx->dev, &ctx->base.qp, ctx->base.threads, (int)p->server_threads, msg, p->block_size, h, &h->cls,
		       &srv, &cli);
	corm_server_start(srv);
	corm_leader l = {.h = h, .p = p, .ms = ms, .srv = srv};
	pthread_t lt;
	if (pthread_create(&lt, NULL, leader_main, &l))
		nm_fatal("corm: cannot start the compaction leader");
	if (p->keys == CORM_KEYS_SHARED) {
		nm_workers_sit_out(NULL);   /* clients load */
		share_pointers(ctx, p, NULL);
	}
	nm_workers_sit_out(ms);     /* clients load (own keys), then the measured phase */
	pthread_join(lt, NULL);
	uint64_t active_after = cmem_active_bytes(h), retired_after = h->retired_blocks * p->block_size;
	nm_workers_sit_out(NULL);   /* clients verify */
	uint64_t active_released = cmem_active_bytes(h);
	nm_workers_sit_out(NULL);   /* clients unload */
	uint64_t live_end = h->live_objects, active_end = cmem_active_bytes(h);
	corm_server_stop(srv);

	json_t *eff = heap_effective(ctx, &sv, p);
	json_object_set_new(eff, "waits", corm_server_waits(srv));
	json_object_set_new(out, "effective", eff);
	json_object_set_new(out, "memory", memory_json(&l, active_after, retired_after, active_released, active_end, live_end));
	if (p->bench == CORM_BENCH_COMPACTION)
		json_object_set_new(out, "compaction", compaction_json(&l, h, p));
	json_object_set_new(out, "server_ok", json_boolean(l.rc == 0 && live_end == 0 && active_end == 0));
	corm_server_free(srv);
	cmem_destroy(h);
	free(h);
}

/* The time series' interval (--interval), in ns. */
static uint64_t series_width_ns(const corm_point *p) { return (uint64_t)(p->interval * 1e9); }

static void client_point(nm_ctx *ctx, const corm_point *p, corm_run *r)
{
	corm_srv sv = {0};
	heap_up(ctx, p, &sv);
	char err[256];
	corm_classes *cls = nm_malloc(sizeof *cls);
	corm_classes_init(cls, p->block_size, err, sizeof err);
	corm_server *srv;
	uint32_t msg = corm_msg_max(cls, p->size);
	corm_net_setup(ctx->dev, &ctx->base.qp, r->T, 0, msg, p->block_size, NULL, cls, &srv, &r->cli);
	for (int t = 0; t < r->T; t++) {
		corm_thread *th = &r->th[t];
		th->c = &r->cli->c[t];
		th->c->timeout = ctx->base.timeout;
		th->p = p;
		th->m = nm_meter_of(r->ms, t);
		th->rank = ctx->rank;
		th->thread = t;
		th->nthreads = r->T;
		th->seed = ctx->base.seed * 1000003u + (uint64_t)ctx->rank * 131u + (uint64_t)t;
		th->key_seed = nm_mix64(ctx->base.seed ^ 0x9e3779b97f4a7c15ull);
		th->lim = sv.lim;
		if (nm_series_init(&th->series, series_width_ns(p), CORM_SERIES_MAX))
			nm_fatal("corm: out of memory for the time series");
		/* a READ with a key the server has replaced is refused like one racing a remap */
		th->c->refusal_ok = sv.lim.remap_refusals || p->inject == CORM_INJECT_READ_REFUSED ||
				    p->inject == CORM_INJECT_NEW_RKEY;
	}
	if (p->keys == CORM_KEYS_SHARED) {
		clients_round(r, NULL, w_load, NULL);
		share_pointers(ctx, p, r);
		clients_round(r, NULL, w_phase, r->ms);
	} else {
		clients_round(r, w_load, w_phase, r->ms);
	}
	clients_round(r, NULL, w_verify, NULL);
	clients_round(r, NULL, w_unload, NULL);
	free(cls);
}

/* --bench local (Fig. 11's local side): the server's own threads read its
 * heap; the other ranks only take part in the collectives. */
static void local_point(nm_ctx *ctx, const corm_point *p, nm_measure *ms, json_t *out)
{
	corm_srv sv = {0};
	heap_up(ctx, p, &sv);
	if (ctx->rank) {
		nm_workers_sit_out(ms);
		return;
	}
	corm_local_bench(ctx, p, sv.h, ms);
	uint64_t live_end = sv.h->live_objects, active_end = cmem_active_bytes(sv.h);
	json_object_set_new(out, "effective", heap_effective(ctx, &sv, p));
	json_object_set_new(out, "server_ok", json_boolean(live_end == 0 && active_end == 0));
	cmem_destroy(sv.h);
	free(sv.h);
}

/* --bench remap (Fig. 8): on the server alone; a strategy this device
 * lacks makes the point a skipped one (a sweep over strategies goes on). */
static void remap_point(nm_ctx *ctx, const corm_point *p, json_t *out)
{
	char err[512] = "";
	corm_caps caps;
	corm_remap strat;
	corm_devlimit lim;
	const char *why = probe_point(ctx, p, &caps, &strat, &lim, err, sizeof err);
	if (ctx->rank == 0) {
		json_object_set_new(out, "effective", effective_json(ctx, &caps, strat, &lim));
		if (why) {
			json_object_set_new(out, "valid", json_true());
			json_object_set_new(out, "skipped", json_string(why));
		}
	}
	corm_remap_bench(ctx, p, strat, ctx->rank == 0 && !why, out);
}

/* --bench collection (Fig. 15): the heap and the star as for the other
 * benches (every server worker needs a client thread's connection to run
 * its serving loop, which answers the collection), then the server's loop
 * of compactions (workloads/corm/corm_collect.c); the clients only hold
 * their connections. */
static void collection_point(nm_ctx *ctx, const corm_point *p, json_t *out)
{
	corm_srv sv = {0};
	char err[512] = "";
	/* a strategy this device lacks is a skipped point: a sweep over
	 * strategies (ConnectX-3 has no ODP) goes on */
	const char *why = heap_probe(ctx, p, &sv, err, sizeof err);
	bool skip = why != NULL;
	nm_boot_bcast(&skip, sizeof skip, 0);
	if (skip) {
		if (ctx->rank == 0) {
			json_object_set_new(out, "effective", effective_json(ctx, &sv.caps, sv.strat, &sv.lim));
			json_object_set_new(out, "valid", json_true());
			json_object_set_new(out, "skipped", json_string(why));
		}
		return;
	}
	heap_make(ctx, p, &sv);
	corm_classes *cls = nm_malloc(sizeof *cls);
	corm_classes_init(cls, p->block_size, err, sizeof err);
	corm_server *srv = NULL;
	corm_client *cli = NULL;
	corm_net_setup(ctx->dev, &ctx->base.qp, ctx->base.threads, (int)p->server_threads, corm_msg_max(cls, p->size),
		       p->block_size, sv.h, ctx->rank ? cls : &sv.h->cls, &srv, &cli);
	if (srv)
		corm_server_start(srv);
	corm_collection_bench(ctx, p, sv.h, out);
	if (srv) {
		corm_server_stop(srv);
		json_object_set_new(out, "effective", heap_effective(ctx, &sv, p));
		corm_server_free(srv);
		cmem_destroy(sv.h);
		free(sv.h);
	}
	if (cli)
		corm_client_free(cli);
	free(cls);
}

/* The verdict on a point's counts (rank 0): nothing lost or stale, every
 * load allocated, every survivor verified and then freed, the heap empty. */
static json_t *checks_json(const corm_point *p, const uint64_t *c, bool server_ok, bool *valid)
{
	json_t *checks = json_object();
	bool remote = p->bench != CORM_BENCH_LOCAL;
	uint64_t verified_ok = c[CORM_C_VERIFY_DIRECT] + c[CORM_C_VERIFY_SCAN] + c[CORM_C_VERIFY_RPC];
	bool all_verified = c[CORM_C_VERIFIED] == verified_ok && c[CORM_C_ALLOCATED] == c[CORM_C_FREED] + c[CORM_C_UNLOADED] &&
			    c[CORM_C_VERIFIED] == c[CORM_C_UNLOADED];
	json_object_set_new(checks, "lost", json_integer((json_int_t)c[CORM_C_LOST]));
	json_object_set_new(checks, "stale", json_integer((json_int_t)c[CORM_C_STALE]));
	json_object_set_new(checks, "alloc_fail", json_integer((json_int_t)c[CORM_C_ALLOC_FAIL]));
	json_object_set_new(checks, "survivors_verified", json_integer((json_int_t)verified_ok));
	if (!remote)
		json_object_set_new(checks, "local_bad", json_integer((json_int_t)c[CORM_C_LOCAL_BAD]));
	json_object_set_new(checks, "heap_empty_at_end", json_boolean(server_ok));
	if (!all_verified)   /* which count disagrees: the verdict names its reason */
		json_object_set_new(checks, "counts_disagree",
				    json_sprintf("allocated %" PRIu64 ", freed %" PRIu64 ", verified %" PRIu64
						 " (%" PRIu64 " read back), unloaded %" PRIu64,
						 c[CORM_C_ALLOCATED], c[CORM_C_FREED], c[CORM_C_VERIFIED], verified_ok,
						 c[CORM_C_UNLOADED]));
	*valid = server_ok && c[CORM_C_LOST] == 0 && c[CORM_C_STALE] == 0 && c[CORM_C_ALLOC_FAIL] == 0 &&
		 c[CORM_C_LOCAL_BAD] == 0 && c[CORM_C_ALLOCATED] > 0 && all_verified;
	return checks;
}

/* Metrics beyond the measure's own (rate, latency, counters, the latency of
 * each operation kind): the DirectRead failure rate, the time series, the
 * memory and the compaction. */
/* The job's time series: all reads, then with --read both the RPC
 * readers' and the DirectRead readers' apart (Fig. 16's two clients). */
enum { SERIES_ALL, SERIES_RPC, SERIES_DIRECT, SERIES_N };
static const char *const series_names[SERIES_N] = {"series", "series_rpc", "series_direct"};

static json_t *series_json(const corm_point *p, const nm_series *s, double secs)
{
	json_t *ts = json_array();
	size_t nint = (size_t)ceil(secs / p->interval);
	for (size_t k = 0; k < nint && k < CORM_SERIES_MAX; k++)
		json_array_append_new(ts, json_pack("[f,f]", (double)k * p->interval, (double)s->ops[k] / p->interval));
	return ts;
}

/* Fig. 16 in numbers, for one reader kind's series: its mean rate before
 * the compaction began, while it ran and after it ended (whole intervals;
 * one that the start or the end falls in counts as during), the ratios to
 * before (null when a phase has no interval), and the longest run of
 * intervals without a read once the compaction began (the paper's "700 ms
 * of unavailability"). Returns the number of intervals after it. */
static size_t phase_metrics(const corm_point *p, const nm_series *s, double secs, double start, double end,
			    const char *who, json_t *m)
{
	enum { BEFORE, DURING, AFTER, NPH };
	static const char *const ph_names[NPH] = {"before", "during", "after"};
	double w = p->interval, sum[NPH] = {0}, rate[NPH];
	size_t cnt[NPH] = {0}, gap = 0, longest = 0, nint = (size_t)floor(secs / w + 1e-9);
	for (size_t k = 0; k < nint && k < CORM_SERIES_MAX; k++) {
		double t0 = (double)k * w, t1 = t0 + w;
		int ph = t1 <= start ? BEFORE : end >= 0 && t0 >= end ? AFTER : DURING;
		sum[ph] += (double)s->ops[k] / w;
		cnt[ph]++;
		gap = ph != BEFORE && s->ops[k] == 0 ? gap + 1 : 0;
		longest = gap > longest ? gap : longest;
	}
	char key[64];
	for (int ph = 0; ph < NPH; ph++) {
		rate[ph] = cnt[ph] ? sum[ph] / (double)cnt[ph] : 0;
		snprintf(key, sizeof key, "%s_%s", who, ph_names[ph]);
		json_object_set_new(m, key, cnt[ph] ? json_real(rate[ph]) : json_null());
	}
	for (int ph = DURING; ph < NPH; ph++) {
		snprintf(key, sizeof key, "%s_%s_over_before", who, ph_names[ph]);
		json_object_set_new(m, key, cnt[ph] && rate[BEFORE] > 0 ? json_real(rate[ph] / rate[BEFORE]) : json_null());
	}
	snprintf(key, sizeof key, "%s_longest_gap_s", who);
	json_object_set_new(m, key, json_real((double)longest * w));
	return cnt[AFTER];
}

/* The phases of each reader kind of a compaction point. */
static void phases(const corm_point *p, const nm_series *series, double secs, const json_t *out, json_t *m)
{
	const json_t *c = json_object_get(out, "compaction");
	if (!c)
		return;
	double start = p->compact_at, end = json_real_value(json_object_get(c, "ended_at_s"));
	size_t after;
	if (p->read == CORM_READ_BOTH) {
		after = phase_metrics(p, &series[SERIES_RPC], secs, start, end, "rpc", m);
		phase_metrics(p, &series[SERIES_DIRECT], secs, start, end, "direct", m);
		/* the paper's "DirectReads provides 1.6x faster performance than
		 * RPC reads", compaction and corrections included */
		uint64_t n[SERIES_N] = {0};
		for (int k = SERIES_RPC; k < SERIES_N; k++)
			for (size_t i = 0; i < CORM_SERIES_MAX; i++)
				n[k] += series[k].ops[i];
		json_object_set_new(m, "direct_over_rpc",
				    n[SERIES_RPC] ? json_real((double)n[SERIES_DIRECT] / (double)n[SERIES_RPC]) : json_null());
	} else {
		after = phase_metrics(p, &series[SERIES_ALL], secs, start, end, corm_read_names[p->read], m);
	}
	/* how many whole intervals the "after" phase holds (the same for every
	 * reader kind): none when the compaction outlasted the phase, which a
	 * slow host can make it do (a claim on "after" then says it was not
	 * exercised) */
	json_object_set_new(m, "after_intervals", json_integer((json_int_t)after));
}

static void corm_metrics(const corm_point *p, const nm_measure *ms, const nm_series *series, const json_t *out,
			 json_t *m)
{
	const uint64_t *c = ms->total_c;
	uint64_t attempts = c[CORM_C_DIRECT_OK] + c[CORM_C_DIRECT_MISS];
	json_object_set_new(m, "direct_read_failure_rate",
			    json_real(attempts ? (double)c[CORM_C_DIRECT_MISS] / (double)attempts : 0));
	/* Fig. 13's "failed DirectReads" (the authors count a copy found
	 * locked or torn and do not retry it): per one-sided read attempt */
	uint64_t tries = attempts + c[CORM_C_DIRECT_RETRY];
	json_object_set_new(m, "direct_read_conflict_rate",
			    json_real(tries ? (double)c[CORM_C_DIRECT_RETRY] / (double)tries : 0));
	/* ... and per request (reads and writes), the paper's "less than 0.1%
	 * of the total request rate" */
	uint64_t ops = c[CORM_C_READS] + c[CORM_C_WRITES];
	json_object_set_new(m, "direct_read_conflicts_per_op",
			    json_real(ops ? (double)c[CORM_C_DIRECT_RETRY] / (double)ops : 0));
	/* Fig. 13 as the authors count: a DirectRead failed once when its
	 * first copy was locked or torn, over all requests */
	json_object_set_new(m, "direct_reads_failed_per_op",
			    json_real(ops ? (double)c[CORM_C_DIRECT_FAILED] / (double)ops : 0));
	double secs = ms->seconds;
	if (p->bench != CORM_BENCH_LATENCY && secs > 0) {
		json_object_set_new(m, "direct_read_failures_per_sec", json_real((double)c[CORM_C_DIRECT_MISS] / secs));
		/* Fig. 13's conflicts: copies found locked or torn (retried) */
		json_object_set_new(m, "direct_read_conflicts_per_sec", json_real((double)c[CORM_C_DIRECT_RETRY] / secs));
		json_object_set_new(m, "direct_reads_failed_per_sec", json_real((double)c[CORM_C_DIRECT_FAILED] / secs));
	}
	if (p->bench == CORM_BENCH_THROUGHPUT || p->bench == CORM_BENCH_COMPACTION)
		for (int k = 0; k < (p->read == CORM_READ_BOTH ? SERIES_N : 1); k++)
			json_object_set_new(m, series_names[k], series_json(p, &series[k], secs));
	if (p->bench == CORM_BENCH_COMPACTION && secs > 0)
		phases(p, series, secs, out, m);
	if (p->bench == CORM_BENCH_LATENCY) {
		/* Sec. 4.1's differences and orderings of medians (Figs. 9, 10) */
		const nm_hist *const h[CORM_LS_N] = {
			[CORM_LS_RAW_RPC] = &ms->kind[CORM_LAT_RAW_RPC], [CORM_LS_ALLOC] = &ms->kind[CORM_LAT_ALLOC],
			[CORM_LS_FREE] = &ms->kind[CORM_LAT_FREE], [CORM_LS_SCAN] = &ms->kind[CORM_LAT_SCAN],
			[CORM_LS_INDIRECT_RPC] = &ms->kind[CORM_LAT_INDIRECT_RPC], [CORM_LS_RELEASE] = &ms->kind[CORM_LAT_RELEASE],
		};
		corm_latency_summary(h, m);
	}
	/* also under metrics, where netmem table finds them (Figs. 15, 17) */
	if (json_object_get(out, "memory"))
		json_object_set(m, "memory", json_object_get(out, "memory"));
	if (json_object_get(out, "compaction"))
		json_object_set(m, "compaction", json_object_get(out, "compaction"));
}

static void corm_run_point(nm_ctx *ctx, const void *point, json_t *out)
{
	const corm_point *p = point;
	if (p->bench == CORM_BENCH_REMAP) {
		remap_point(ctx, p, out);
		return;
	}
	if (p->bench == CORM_BENCH_COLLECTION) {
		collection_point(ctx, p, out);
		return;
	}
	bool local = p->bench == CORM_BENCH_LOCAL;
	int T = local ? (ctx->rank ? 0 : ctx->base.threads) : (ctx->rank ? ctx->base.threads : 0);
	/* the latency bench times each operation kind apart (Figs. 9, 10) */
	nm_measure_def def = {p->bench == CORM_BENCH_LATENCY ? "rounds" : "ops", corm_counters, CORM_C_N, corm_lat_names,
			      CORM_NLAT};
	corm_run r = {.ctx = ctx, .p = p, .T = T, .ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, T)};
	r.th = nm_calloc((size_t)(T ? T : 1), sizeof *r.th);
	if (local)
		local_point(ctx, p, r.ms, out);
	else if (ctx->rank == 0)
		server_point(ctx, p, r.ms, out);
	else
		client_point(ctx, p, &r);

	nm_measure_gather(r.ms);
	/* The time series, summed over the job (and per read path). */
	nm_series series[SERIES_N];
	int nser = p->read == CORM_READ_BOTH ? SERIES_N : 1;
	for (int k = 0; k < nser; k++)
		if (nm_series_init(&series[k], series_width_ns(p), CORM_SERIES_MAX))
			nm_fatal("corm: out of memory for the time series");
	for (int t = 0; t < r.T && !local; t++) {
		nm_series_merge(&series[SERIES_ALL], &r.th[t].series);
		if (nser > 1)
			nm_series_merge(&series[corm_thread_path(p, t) == CORM_READ_RPC ? SERIES_RPC : SERIES_DIRECT],
					&r.th[t].series);
	}
	for (int k = 0; k < nser; k++)
		nm_boot_sum_u64_array(series[k].ops, CORM_SERIES_MAX);
	if (ctx->rank == 0) {
		bool server_ok = json_is_true(json_object_get(out, "server_ok")), valid;
		json_object_del(out, "server_ok");
		json_object_set_new(out, "checks", checks_json(p, r.ms->total_c, server_ok, &valid));
		if (r.ms->first_error[0]) {
			valid = false;
			json_object_set_new(json_object_get(out, "checks"), "first_error", json_string(r.ms->first_error));
		}
		json_object_set_new(out, "valid", json_boolean(valid));
		json_t *m = nm_measure_metrics(r.ms);
		corm_metrics(p, r.ms, series, out, m);
		json_object_set_new(out, "metrics", m);
	}
	for (int k = 0; k < nser; k++)
		nm_series_free(&series[k]);
	for (int t = 0; t < r.T && !local; t++) {
		free(r.th[t].ptr);
		free(r.th[t].orig);
		free(r.th[t].live);
		free(r.th[t].version);
		free(r.th[t].all);
		nm_series_free(&r.th[t].series);
	}
	if (r.cli)
		corm_client_free(r.cli);
	free(r.th);
	nm_measure_free(r.ms);
}

/* --bench remap's rows: its own columns (a job runs one bench kind per
 * row, so a header per kind is enough). */
static void remap_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *m = json_object_get(res, "metrics");
	if (first)
		printf(" %-6s %-12s %8s %10s %10s %12s %12s %8s\n", "bench", "strategy", "block", "mmap[us]", "nic[us]",
		       "1st_read[us]", "penalty[us]", "check");
	if (json_is_string(json_object_get(res, "skipped"))) {
		printf(" %-6s %-12s %8" PRId64 " skipped: %s\n", "remap", nm_cfg_str(pt, "strategy"),
		       nm_cfg_int(pt, "block_size"), json_string_value(json_object_get(res, "skipped")));
		return;
	}
	printf(" %-6s %-12s %8" PRId64 " %10.1f %10.1f %12.1f %12.1f %8s\n", "remap", nm_cfg_str(pt, "strategy"),
	       nm_cfg_int(pt, "block_size"), json_real_value(json_object_get(m, "mmap_us")),
	       json_real_value(json_object_get(m, "nic_step_us")), json_real_value(json_object_get(m, "first_read_us")),
	       json_real_value(json_object_get(m, "first_read_penalty_us")),
	       nm_point_verdict(res));
}

/* --bench collection's rows: Fig. 15's medians. */
static void collection_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *m = json_object_get(res, "metrics");
	if (first)
		printf(" %-10s %-12s %8s %8s %12s %12s %7s %8s\n", "bench", "strategy", "workers", "block", "collect[us]",
		       "compact[us]", "merged", "check");
	printf(" %-10s %-12s %8" PRId64 " %8" PRId64 " %12.1f %12.1f %7.2f %8s\n", "collection",
	       json_string_value(json_object_get(json_object_get(res, "effective"), "strategy")),
	       (int64_t)json_integer_value(json_object_get(m, "blocks")), nm_cfg_int(pt, "block_size"),
	       json_real_value(json_object_get(m, "collect_us")), json_real_value(json_object_get(m, "compact_us")),
	       json_real_value(json_object_get(m, "merged_per_compaction")), nm_point_verdict(res));
}

static void corm_report(const json_t *pt, const json_t *res, bool first)
{
	if (!strcmp(nm_cfg_str(pt, "bench"), "remap")) {
		remap_report(pt, res, first);
		return;
	}
	if (!strcmp(nm_cfg_str(pt, "bench"), "collection")) {
		collection_report(pt, res, first);
		return;
	}
	const json_t *mem = json_object_get(res, "memory"), *m = json_object_get(res, "metrics");
	const json_t *tl = json_object_get(m, "tally");
	if (first)
		printf(" %-10s %-12s %6s %6s %10s %10s %8s %10s %8s\n", "bench", "strategy", "block", "size", "active0[KiB]",
		       "active1[KiB]", "ops/s", "dr_fail", "check");
	printf(" %-10s %-12s %6" PRId64 " %6" PRId64 " %12.0f %12.0f %8.0f %10" PRId64 " %8s\n", nm_cfg_str(pt, "bench"),
	       json_string_value(json_object_get(json_object_get(res, "effective"), "strategy")),
	       nm_cfg_int(pt, "block_size"), nm_cfg_int(pt, "size"),
	       (double)json_integer_value(json_object_get(mem, "active_bytes_before")) / 1024,
	       (double)json_integer_value(json_object_get(mem, "active_bytes_after")) / 1024,
	       json_real_value(json_object_get(m, "ops_per_sec")),
	       (int64_t)json_integer_value(json_object_get(tl, "direct_miss")),
	       nm_point_verdict(res));
}

/* clients: what the paper's Figs. 12 and 13 count, the client threads of
 * every client rank (all but the server), whichever host count carries
 * them; only for the benches whose threads are clients across the network
 * (not local's, the server's, nor remap's and collection's one loop). */
static void corm_derive(const json_t *params, int nranks, json_t *out)
{
	const char *bench = json_string_value(json_object_get(params, "bench"));
	const json_t *T = json_object_get(params, "threads");
	bool clients = bench && (!strcmp(bench, "latency") || !strcmp(bench, "throughput") || !strcmp(bench, "compaction"));
	if (clients && json_is_integer(T) && nranks >= 2)
		json_object_set_new(out, "clients", json_integer(json_integer_value(T) * (nranks - 1)));
}

static const nm_experiment corm_experiment = {
	.name = "corm",
	.summary = "CoRM: compactable remote memory whose one-sided reads survive compaction (Figs. 9-16)",
	.details = "Rank 0 is the server (--server-threads RPC workers, default -T), ranks 1.. are clients with -T "
		   "threads.\n\n"
		   "Examples:\n"
		   "  mpirun -np 2 netmem corm --bench compaction -T 2 -K 5000 --free-ratio 0.8 -D 2\n"
		   "  mpirun -np 2 netmem corm --bench latency -s 24,248,2000 -n 1000\n"
		   "  mpirun -np 2 netmem corm --bench throughput --read direct,rpc --write-ratio 0,0.5 "
		   "--dist uniform,zipfian -D 5\n"
		   "  mpirun -np 2 netmem corm --bench remap --strategy rereg,odp,odp-prefetch,defer -B 4k,1M -n 1000",
	.opts = corm_opts,
	.min_ranks = 2,
	.point_size = sizeof(corm_point),
	.decode = corm_decode, .needs = corm_needs,
	.run = corm_run_point,
	.report = corm_report,
	.derive = corm_derive,
};
NM_EXPERIMENT(corm_experiment)
