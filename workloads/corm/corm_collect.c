/* netmem corm --bench collection (CoRM Fig. 15): what one compaction costs,
 * as its two phases. Sec. 4.3.1: "Each experiment consists of allocating a
 * single object of 32 bytes on each thread and then triggering the
 * compaction process in order to measure its latencies"; "each thread
 * replies with its only allocated block to the compaction request".
 *
 * One iteration, on the server: every RPC worker gets one object through
 * its own allocator (so a block of its own), then one compaction of that
 * class, timed as its collection (the request to every worker through its
 * mailbox and the last answer, corm_mbox.h) and its compaction (pairing,
 * copies, remaps under the point's strategy); then every object is read
 * back through its pointer from before and freed. The compaction is the
 * measured operation, in the harness's loop (warm-up, --iters); its phases
 * are the kinds of metrics.lat_by_op, whose medians the figure draws: left
 * the collection against the workers, center the compaction against the
 * blocks (one per worker, 4 KiB), right the compaction of one block (two
 * workers) against the block size.
 *
 * Checks, every iteration, warm-up included: every worker handed its block
 * over, through a message (but worker 0's, which the compactor takes
 * itself, standing in for the paper's leader); every object reads back
 * with its own bytes; the heap is empty after the frees. The allocations,
 * reads and frees are outside the timed compaction.
 *
 * Decisions where the paper is silent: the compactor is the server's main
 * thread standing in for worker 0 (the paper's leader is one of the
 * workers), so T workers get T-1 messages; the objects are allocated by
 * the compactor through each worker's allocator rather than by RPCs (the
 * same blocks, without a client round per iteration); two objects whose
 * random IDs collide cannot share a block, so a merge may be missing
 * (counted as blocks_without_partner, not hidden). */
#include "corm_bench.h"
#include "clock.h"
#include "log.h"
#include "workers.h"
#include <inttypes.h>
#include <stdlib.h>

typedef enum { CK_COLLECT, CK_COMPACT, CK_N } coll_kind;
static const char *const coll_kind_names[CK_N] = {"collect", "compact"};

typedef enum {
	CC_COMPACTIONS,
	CC_COLLECTED,      /* blocks handed over */
	CC_MESSAGES,       /* ... by a worker answering its mailbox */
	CC_MERGED,
	CC_NO_PARTNER,     /* blocks left unmerged: an ID collision */
	CC_REMAPS,
	CC_READ_OK,
	CC_READ_BAD,       /* an object not found, or another's bytes */
	CC_NOT_EMPTY,      /* iterations after which the heap kept a block */
	CC_N
} coll_counter;
static const nm_counter coll_counters[CC_N] = {
	[CC_COMPACTIONS] = {"compactions", 0}, [CC_COLLECTED] = {"collected_blocks", 0},
	[CC_MESSAGES] = {"collect_messages", 0}, [CC_MERGED] = {"merged_blocks", 0},
	[CC_NO_PARTNER] = {"blocks_without_partner", 0}, [CC_REMAPS] = {"remapped_vas", 0},
	[CC_READ_OK] = {"reads_ok", 0}, [CC_READ_BAD] = {"reads_bad", 0}, [CC_NOT_EMPTY] = {"heap_not_empty", 0},
};

typedef struct coll_run {
	cmem_heap *h;
	const corm_point *p;
	int workers, cls;
	corm_ptr *ptr;   /* [workers] */
	uint8_t *pay, *out;
} coll_run;

/* One object per worker, each through the worker's own allocator. */
static bool load_one_each(coll_run *r, nm_meter *m, uint64_t it)
{
	for (int t = 0; t < r->workers; t++) {
		corm_payload_fill(r->pay, r->p->size, (uint32_t)t, (uint32_t)it);
		corm_status s = cmem_alloc(r->h, t, r->p->size, r->pay, r->p->size, &r->ptr[t]);
		if (s != CORM_OK) {
			nm_error_note(&m->err, "collection %" PRIu64 ": worker %d's allocation failed (%s)", it, t,
				      corm_status_names[s]);
			return false;
		}
	}
	return true;
}

/* Every object back through its old pointer, then freed: the heap empty. */
static void check_and_free(coll_run *r, nm_meter *m, uint64_t it)
{
	for (int t = 0; t < r->workers; t++) {
		bool ok = cmem_read(r->h, &r->ptr[t], r->out, r->p->size, NULL) == CORM_OK &&
			  corm_payload_check(r->out, r->p->size, (uint32_t)t) == CORM_PAY_OK;
		m->c[ok ? CC_READ_OK : CC_READ_BAD]++;
		if (!ok)
			nm_error_note(&m->err, "collection %" PRIu64 ": worker %d's object did not read back", it, t);
		cmem_free(r->h, &r->ptr[t]);
	}
	if (r->h->live_objects || r->h->active_blocks)
		m->c[CC_NOT_EMPTY]++;
}

static void count_stats(nm_meter *m, const cmem_compact_stats *st)
{
	m->c[CC_COMPACTIONS]++;
	m->c[CC_COLLECTED] += st->collected;
	m->c[CC_MESSAGES] += st->collect_msgs;
	m->c[CC_MERGED] += st->merges;
	m->c[CC_NO_PARTNER] += st->no_partner;
	m->c[CC_REMAPS] += st->remaps;
}

static void coll_body(nm_worker *w)
{
	coll_run *r = w->arg;
	nm_meter *m = w->meter;
	char err[256] = "";
	nm_loop lp;
	nm_loop_init(&lp, m);
	while (nm_loop_next(&lp)) {
		bool ok = load_one_each(r, m, lp.i);
		cmem_compact_stats st = {0};
		uint64_t t0 = nm_ticks();
		int rc = ok ? cmem_compact(r->h, r->cls, r->p->occupancy, 0, &st, err, sizeof err) : -1;
		uint64_t t1 = nm_ticks();
		if (ok && rc)
			nm_error_note(&m->err, "collection %" PRIu64 ": the compaction failed: %s", lp.i, err);
		if (rc) {   /* the heap is in no state to go on from */
			nm_loop_stop(&lp);
			break;
		}
		count_stats(m, &st);
		if (nm_loop_done(&lp, t0, t1)) {
			nm_meter_kind(m, CK_COLLECT, st.collect_ns);
			nm_meter_kind(m, CK_COMPACT, st.compact_ns);
		}
		check_and_free(r, m, lp.i);
	}
}

static double median_us(const nm_measure *ms, coll_kind k) { return nm_hist_quantile(&ms->kind[k], 0.5) / 1e3; }

/* Rank 0: the medians the figure draws, the checks and the verdict. */
static void coll_result(const nm_measure *ms, int workers, json_t *out)
{
	const uint64_t *c = ms->total_c;
	uint64_t n = c[CC_COMPACTIONS];
	json_t *m = nm_measure_metrics(ms);
	json_object_set_new(m, "collect_us", json_real(median_us(ms, CK_COLLECT)));
	json_object_set_new(m, "compact_us", json_real(median_us(ms, CK_COMPACT)));
	json_object_set_new(m, "blocks", json_integer(workers));
	json_object_set_new(m, "merged_per_compaction", json_real(n ? (double)c[CC_MERGED] / (double)n : 0));
	json_object_set_new(out, "metrics", m);
	/* every worker's block collected, all but worker 0's through its mailbox */
	bool collected = n > 0 && c[CC_COLLECTED] == n * (uint64_t)workers,
	     by_msg = c[CC_MESSAGES] == n * (uint64_t)(workers - 1),
	     reads = c[CC_READ_BAD] == 0 && c[CC_READ_OK] == n * (uint64_t)workers;
	json_t *ck = json_object();
	for (int k = 0; k < CC_N; k++)
		json_object_set_new(ck, coll_counters[k].name, json_integer((json_int_t)c[k]));
	json_object_set_new(ck, "every_block_collected", json_boolean(collected));
	json_object_set_new(ck, "collected_by_messages", json_boolean(by_msg));
	if (ms->first_error[0])
		json_object_set_new(ck, "first_error", json_string(ms->first_error));
	json_object_set_new(out, "checks", ck);
	json_object_set_new(out, "valid",
			    json_boolean(ms->errors == 0 && collected && by_msg && reads && c[CC_NOT_EMPTY] == 0));
}

void corm_collection_bench(nm_ctx *ctx, const corm_point *p, cmem_heap *h, json_t *out)
{
	static const nm_measure_def def = {"compactions", coll_counters, CC_N, coll_kind_names, CK_N};
	int T = h ? 1 : 0, W = (int)p->server_threads;
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, T);
	coll_run r = {.h = h, .p = p, .workers = W};
	if (h) {
		r.cls = cmem_class(h, p->size);
		r.ptr = calloc((size_t)W, sizeof *r.ptr);
		r.pay = malloc(p->size);
		r.out = malloc(p->size);
		if (!r.ptr || !r.pay || !r.out)
			nm_fatal("corm: out of memory for the collection bench");
		nm_round rd = {.workers = 1, .numa_node = ctx->base.mem_node, .body = coll_body, .arg = &r, .measure = ms};
		nm_workers_run(&rd);
	} else {
		nm_workers_sit_out(ms);
	}
	nm_measure_gather(ms);
	if (h)
		coll_result(ms, W, out);
	free(r.ptr);
	free(r.pay);
	free(r.out);
	nm_measure_free(ms);
}
