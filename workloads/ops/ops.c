/* netmem ops: one-sided READ, WRITE, CAS and FAA between ranks.
 *
 * Two modes, with perftest's definitions so the numbers compare:
 *   lat  closed loop, one operation outstanding per thread; the latency of an
 *        operation is post to completion, a full round trip. That is what
 *        ib_read_lat and ib_atomic_lat report (rtt_factor 1). ib_write_lat is
 *        different (half of a WRITE ping-pong), so WRITE latency here is the
 *        completion latency and is not comparable to ib_write_lat.
 *   bw   a window of outstanding operations per thread, one completion
 *        signaled per batch of --cq-mod (perftest's -t and -Q); throughput is
 *        completed operations over the measured interval, and the latency
 *        histogram holds the post-to-completion time of signaled operations.
 *        The warm-up is --warmup operations posted and all completed; the
 *        interval then starts from an empty window, timed from the first
 *        post as perftest does, and counts only completions inside it.
 * Both measure in the point's one interval, shared by every thread of every
 * rank (harness/measure.h).
 *
 * Who talks to whom: every initiator rank's threads open --qp QPs to every
 * target rank (a rank may target itself: loopback through the NIC) and spread
 * operations round-robin over them.
 *
 * Correctness, checked on every run (a failure marks the point invalid):
 *   READ   targets fill their memory with a known pattern; after the run
 *          every local buffer must hold the pattern of the slot it read.
 *   WRITE  each (initiator, thread, QP) writes its own pattern into its own
 *          slot; afterwards the initiator fences, READs the slot back and
 *          compares (READ sees what WRITE wrote).
 *   CAS    each (initiator, thread, QP) owns an 8-byte word and swaps it
 *          k -> k+1 in order; every returned value must be the expected k
 *          (lat mode) and the final word must equal the number of CAS issued.
 *   FAA    all initiators add 1 to one shared word per target; the final
 *          value must equal the total number of FAA aimed at that target, and
 *          the values one QP gets back must increase (lat mode).
 *
 * Memory of each rank, one registered region:
 *   [0, 64)            FAA counter
 *   [64, ...)          CAS words, one per (initiator, thread, QP)
 *   [data, ...)        remote slots, one per (initiator, thread, QP), size each
 *   [local, ...)       per-thread local buffers (never accessed remotely)
 */
#include "ops.h"
#include "alloc.h"
#include "boot.h"
#include "conn_split.h"
#include "log.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nm_opt ops_opts[] = {
	{"op", 0, NM_OPT_ENUM, "read", 0, 0, "read,write,cas,faa", NM_OPT_LIST, "operation"},
	{"mode", 0, NM_OPT_ENUM, "lat", 0, 0, "lat,bw", NM_OPT_LIST,
	 "lat: one outstanding op, per-op latency; bw: windowed throughput"},
	{"size", 's', NM_OPT_SIZE, "8", 1, 1 << 30, NULL, NM_OPT_LIST,
	 "message size in bytes (READ/WRITE; CAS and FAA are always 8)"},
	{"all", 'a', NM_OPT_ALIAS, NULL, 0, 0, NULL, 0, "sizes 2 to 8 MiB in powers of two (perftest -a)",
	 "size", "2..8M"},
	{"tx-depth", 't', NM_OPT_INT, "0", 0, 1 << 20, NULL, NM_OPT_LIST,
	 "window: outstanding ops per thread (0: 1 in lat mode, 128 in bw mode); the device's max_qp_wr, "
	 "less 2, is the limit, checked before the first point"},
	{"cq-mod", 'Q', NM_OPT_INT, "100", 1, 65536, NULL, 0,
	 "bw mode: one signaled completion per N ops (capped at the window)"},
	{"qp", 'q', NM_OPT_INT, "1", 1, 64, NULL, NM_OPT_LIST, "QPs per thread and target"},
	NM_OPT_ITERS("1000", "operations"),
	NM_OPT_DURATION,
	NM_OPT_WARMUP("operations"),
	{"initiators", 0, NM_OPT_STR, "0", 0, 0, NULL, 0, "ranks that issue operations: all, or a list like 0,2"},
	{"targets", 0, NM_OPT_STR, "others", 0, 0, NULL, 0,
	 "ranks whose memory is accessed: others (not initiators), all, self (loopback), or a list"},
	{"interval", 0, NM_OPT_DOUBLE, "0.1", 0.001, 3600, NULL, 0, "throughput sampling interval (s)"},
	{"mr-size", 0, NM_OPT_SIZE, "0", 0, 1ll << 40, NULL, 0,
	 "registered memory per rank (0: just enough for every slot)"},
	NM_OPT_NUMA_ROLES,
	{"packed", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0,
	 "remote slots adjacent (stride = size) instead of one 64-byte line each: the NUMA paper's "
	 "'disjoint but adjacent addresses' (8 connections x 8 B share one cache line)"},
	NM_OPT_NUMA_WORKERS,
	NM_OPT_NUMA_LOAD("every target rank while clients measure"),
	NM_OPT_INJECT("none,corrupt,rkey,misplace",
	 "testing the checks: corrupt damages data after the run (the point must come out invalid); "
	 "rkey posts with a wrong key (the job must stop, naming rank, peer and operation); "
	 "misplace moves one page of each target's buffer off --buf-node before registration (the "
	 "placement check must mark the point invalid; needs two NUMA nodes)"),
	NM_OPT_END,
};

static int index_of(const char *s, const char *const *names, int n)
{
	int i = 0;
	while (i < n - 1 && strcmp(s, names[i]))
		i++;
	return i;
}

static void plan(layout *l, const ops_point *p, int64_t size, bool packed, int T)
{
	l->size = p->op >= NM_OP_CAS ? 8 : (size_t)size;
	l->slot = nm_align64(l->size);
	l->nslots = p->nranks * T * p->qps;
	l->stride = packed ? l->size : l->slot;
	l->data = nm_align64(CAS_BASE + 8 * (size_t)l->nslots);
	l->local = nm_align64(l->data + l->stride * (size_t)l->nslots);
}

/* Everything that is a property of the point alone, in the order a user
 * would fix it: ranks, size, memory, placement, window. */
static int ops_check(const json_t *pt, const nm_base *b, ops_point *p, char *err, size_t len)
{
	int64_t size = nm_cfg_int(pt, "size"), mr = nm_cfg_int(pt, "mr_size"), W = nm_cfg_int(pt, "tx_depth");
	const char *is = nm_cfg_str(pt, "initiators"), *ts = nm_cfg_str(pt, "targets");
	int n = p->nranks;
	p->matrix = nm_calloc((size_t)n * (size_t)n, 1);
	int pairs = nm_mesh_pairs(is, ts, n, p->matrix, err, len);
	if (pairs == 0)
		snprintf(err, len, "ops has no target: with %d rank%s, initiators '%s' and targets '%s' "
			 "nobody is accessed; start more ranks (mpirun -np 2) or use --targets self "
			 "for loopback", n, n == 1 ? "" : "s", is, ts);
	if (pairs <= 0)
		return -1;
	if (p->op >= NM_OP_CAS && size != 8) {
		snprintf(err, len, "%s operates on 8 bytes; --size %" PRId64 " applies to read and write "
			 "only (sweep sizes in a separate run)", nm_op_name(p->op), size);
		return -1;
	}
	plan(&p->l, p, size, nm_cfg_bool(pt, "packed"), b->threads);
	if (mr > 0 && p->l.local > (size_t)mr) {
		snprintf(err, len, "--size %" PRId64 " does not fit --mr-size %" PRId64 ": %d writer "
			 "slot(s) of %zu bytes need %zu bytes", size, mr, p->l.nslots, p->l.stride, p->l.local);
		return -1;
	}
	if (nm_numa_roles_decode(pt, b->mem_node, &p->buf, &p->cpu, err, len) ||
	    nm_numa_load_decode(pt, &p->load, err, len))
		return -1;
	if (p->inject == INJECT_MISPLACE && p->buf.kind == NM_PLACE_ANY) {
		snprintf(err, len, "--inject misplace moves a page off the buffer's node: give --buf-node");
		return -1;
	}
	if (p->mode == MODE_LAT && W > 1) {
		snprintf(err, len, "lat mode keeps one operation outstanding; use --mode bw for "
			 "--tx-depth %" PRId64, W);
		return -1;
	}
	return 0;
}

static int ops_decode(const json_t *pt, const nm_base *b, void *out, char *err, size_t len)
{
	static const char *const ops[] = {"read", "write", "cas", "faa"}, *const modes[] = {"lat", "bw"};
	static const char *const injects[] = {"none", "corrupt", "rkey", "misplace"};
	ops_point *p = out;
	int W = (int)nm_cfg_int(pt, "tx_depth"), cq_mod = (int)nm_cfg_int(pt, "cq_mod");
	*p = (ops_point){
		.op = NM_OP_READ + index_of(nm_cfg_str(pt, "op"), ops, 4),
		.mode = (ops_mode)index_of(nm_cfg_str(pt, "mode"), modes, 2),
		.qps = (int)nm_cfg_int(pt, "qp"),
		.nranks = b->nranks,
		.interval_ns = (uint64_t)(nm_cfg_double(pt, "interval") * 1e9),
		.workers = nm_numa_workers_decode(pt),
		.inject = (ops_inject)index_of(nm_cfg_str(pt, "inject"), injects, 4),
	};
	p->window = W ? W : p->mode == MODE_BW ? 128 : 1;
	/* perftest inlines only in latency tests, and only WRITEs among ours */
	p->inline_size = !b->inline_default ? b->qp.max_inline
			 : p->mode == MODE_LAT && p->op == NM_OP_WRITE ? NM_INLINE_LAT : 0;
	p->batch = p->mode == MODE_BW ? (cq_mod < p->window ? cq_mod : p->window) : 1;
	return ops_check(pt, b, p, err, len);
}

static void ops_point_free(void *point) { free(((ops_point *)point)->matrix); }

static const nm_counter ops_counters[C_N] = {
	[C_CHECKED] = {"checked", 0}, [C_MISMATCHES] = {"mismatches", 0}, [C_FAA_WRONG] = {"faa_targets_wrong", 0},
};

/* Where memory, threads and QP/CQ rings go (numa/point.h); 1: skipped. */
static int ops_place(nm_ctx *ctx, ops_job *j, json_t *out)
{
	const ops_point *p = j->p;
	nm_numa_place_roles(&j->np, j->initiator, j->target, &p->buf, &p->cpu);
	if (j->target)
		nm_numa_need_load(&j->np, &p->load);
	j->np.misplace_at = p->inject == INJECT_MISPLACE && j->target ? (long)p->l.data : -1;
	return nm_numa_point_settle(&j->np, ctx->spec, out);
}

/* The slots' initial content (nm_numa_fill), written on the buffer's node:
 * the pattern READs check, or with server workers what WRITEs will write. */
static void ops_fill(void *arg, void *buf)
{
	const ops_job *j = arg;
	const layout *l = &j->p->l;
	bool read = j->op == NM_OP_READ, write = j->op == NM_OP_WRITE && j->p->workers.threads > 0;
	for (int s = 0; (read || write) && s < l->nslots; s++)
		nm_pattern_fill((uint8_t *)buf + l->data + l->stride * (size_t)s, l->size,
				read ? read_owner(j->rank, s) : write_owner(s));
}

/* The sizes a point's set-up uses, computed in one place for the set-up
 * and for ops_needs (netmem preflight). Connections of rank `rank` per
 * thread (targets x QPs), and whether it initiates and is a target. */
static int ops_nconn(const ops_point *p, int rank, bool *initiator, bool *target)
{
	int R = p->nranks, targets = 0;
	*target = false;
	for (int q = 0; q < R; q++) {
		targets += p->matrix[rank * R + q];
		*target |= p->matrix[q * R + rank] != 0;
	}
	*initiator = targets > 0;
	return targets * p->qps;
}

/* Per thread: one buffer per connection, one to verify into, and a result
 * word per window entry for atomics. */
static size_t ops_thread_area(const ops_point *p, int nconn)
{
	return nm_align64(p->l.slot * (size_t)(nconn + 1) + 8 * (size_t)(p->window + 1));
}

static size_t ops_mr_len(const ops_point *p, int T, int nconn)
{
	return p->l.local + ops_thread_area(p, nconn) * (size_t)T;
}

/* The mesh before the device's caps (ops_connect applies them). A send
 * queue holds the window and 2 entries of slack; a window that does not
 * fit is refused before the job's first point (ops_needs). */
static nm_mesh_cfg ops_mesh_cfg(const ops_point *p, const nm_base *b)
{
	nm_mesh_cfg mc = {.nthreads = b->threads, .qps = p->qps, .initiates = p->matrix, .qp = b->qp};
	mc.qp.sq_depth = p->window + 2;
	mc.qp.max_inline = p->inline_size;
	return mc;
}

/* This rank's memory (with the pattern READ targets serve) and connections.
 * With server workers, WRITE slots start out holding what the clients will
 * write, so the workers' stores (which write the content found here) keep
 * the clients' read-back checks exact (numa/hammer.h). */
static void ops_connect(nm_ctx *ctx, ops_job *j)
{
	j->thread_area = ops_thread_area(j->p, j->nconn);
	nm_numa_point_alloc(&j->np, &j->mr, ops_mr_len(j->p, j->T, j->nconn), ctx->base.hugepages, ops_fill, j);
	/* A window the send queue cannot hold was refused before the first
	 * point (nm_fit_queue, through ops_needs): a queue capped here would
	 * fail at a post in the middle of the measured loop. */
	nm_mesh_cfg mc = ops_mesh_cfg(j->p, &ctx->base);
	/* Without --max-rd-atomic, perftest's outstanding READs and atomics: the
	 * device's maximum (128 on rxe), not the harness's 16, which would cap
	 * a bw-mode READ window of 128 at 16 in flight. */
	if (mc.qp.max_rd_atomic == 0)
		mc.qp.max_rd_atomic = ctx->dev->attr.max_qp_rd_atom;
	j->max_rd_atomic = mc.qp.max_rd_atomic;
	nm_numa_point_mesh(&j->np, &j->mesh, &mc);
}

/* netmem preflight: what ops_connect will create on `rank`. */
static void ops_needs(const void *point, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	const ops_point *p = point;
	bool initiator, target;
	int nconn = ops_nconn(p, rank, &initiator, &target);
	nm_mr_needs(n, ops_mr_len(p, b->threads, nconn), b->hugepages, false);
	nm_mesh_cfg mc = ops_mesh_cfg(p, b);
	nm_mesh_needs(&mc, rank, nranks, n);
	/* the window is what a user sets: the line names it (nm_fit_queue) */
	if (mc.qp.sq_depth >= (int)n->sq_depth)
		snprintf(n->sq_from, sizeof n->sq_from, "--tx-depth %d", p->window);
	n->atomics |= p->op >= NM_OP_CAS && initiator;
	int a = nm_place_nodes_needed(&p->buf), c = nm_place_nodes_needed(&p->cpu);
	n->numa_nodes = a > c ? a : c;
}

/* Local loads on target ranks, running before the clients start and until
 * every rank has finished (the paper's workers and load process run from
 * server start-up). Server workers walk the slots this rank's initiators
 * access (for two ranks and --packed 8 B x 8 connections: exactly one cache
 * line, the paper's 64 B buffer), in whole 8-byte words. */
static void ops_loads(ops_job *j, uint64_t seed)
{
	const ops_point *p = j->p;
	const layout *l = &p->l;
	nm_numa_loads ld = {.load = p->load, .workers = p->workers, .here = j->target, .seed = seed};
	if (j->target && p->workers.threads > 0) {
		int R = p->nranks, first = R, last = -1;
		for (int i = 0; i < R; i++)
			if (p->matrix[i * R + j->rank]) {
				first = first < i ? first : i;
				last = i;
			}
		size_t per_rank = l->stride * (size_t)j->T * (size_t)p->qps;
		size_t lo = ((size_t)first * per_rank) & ~(size_t)7;
		size_t hi = ((size_t)(last + 1) * per_rank + 7) & ~(size_t)7;
		hi = hi < l->local - l->data ? hi : l->local - l->data;
		nm_hammer_cfg *w = &ld.workers;
		w->area = (uint8_t *)j->mr.buf + l->data + lo;
		w->len = hi - lo;
		w->stride = l->stride;
		w->cpu_offset = nm_local_rank() * j->T;
		w->seed = seed;
	}
	nm_numa_point_loads_start(&j->np, &ld);
}

/* FAA: every target's counter must equal the FAAs aimed at it, which are
 * what its initiators' connections posted. Returns the job's total.
 * Collective. */
static uint64_t check_faa(ops_job *j, nm_measure *ms)
{
	int R = j->p->nranks;
	uint64_t *faa = nm_calloc((size_t)R, sizeof *faa), total = 0;
	for (int t = 0; t < j->T; t++)
		for (int i = 0; i < j->th[t].nconn; i++)
			faa[j->th[t].cs[i].c->peer] += j->th[t].cs[i].sent;
	nm_boot_sum_u64_array(faa, (size_t)R);
	uint64_t counter = *(volatile uint64_t *)j->mr.buf;
	if (counter != faa[j->rank]) {
		ms->rank_c[C_FAA_WRONG] = 1;
		nm_error_note(&ms->rank_err, "FAA counter holds %" PRIu64 ", expected %" PRIu64, counter,
			      faa[j->rank]);
	}
	for (int r = 0; r < R; r++)
		total += faa[r];
	free(faa);
	return total;
}

/* The threads' throughput series summed over the job (every rank), as a
 * rate per interval. Collective. */
static json_t *series_json(const ops_job *j)
{
	nm_series s;
	if (nm_series_init(&s, j->p->interval_ns, SERIES_CAP) != 0)
		nm_fatal("out of memory");
	for (int t = 0; t < j->T; t++)
		nm_series_merge(&s, &j->th[t].series);
	nm_boot_sum_u64_array(s.ops, SERIES_CAP);
	s.used = (size_t)nm_boot_max_u64(s.used);
	double width = (double)j->p->interval_ns / 1e9;
	json_t *rates = json_array();
	for (size_t i = 0; i < s.used; i++)
		json_array_append_new(rates, json_real((double)s.ops[i] / width));
	nm_series_free(&s);
	return json_pack("{s:f, s:o}", "interval_s", width, "ops_per_sec", rates);
}

/* Each connection's measured operations and mean latency, every rank's at
 * rank 0 (NULL elsewhere, and when no thread has more than one connection:
 * then metrics.per_thread is per connection already). Entries of one
 * thread are in the order its connections were created. Collective. */
static json_t *per_qp_json(const ops_job *j)
{
	if (nm_boot_max_u64((uint64_t)j->nconn) < 2)
		return NULL;
	json_t *mine = json_array();
	for (int t = 0; t < j->T; t++)
		for (int i = 0; i < j->th[t].nconn; i++) {
			const conn_state *s = &j->th[t].cs[i];
			double mean_ns = s->lat_samples ? (double)nm_ticks_to_ns(s->lat_ticks) / (double)s->lat_samples : 0;
			uint64_t ops = j->p->mode == MODE_LAT ? s->lat_samples : s->ops;
			json_array_append_new(mine, json_pack("{s:i, s:i, s:i, s:i, s:I, s:I, s:f}", "rank", j->rank,
							      "thread", t, "target", s->c->peer, "qp", s->c->index,
							      "ops", (json_int_t)ops, "samples",
							      (json_int_t)s->lat_samples, "lat_mean_us", mean_ns / 1e3));
		}
	json_t *by_rank = nm_boot_gather_json(mine, 0), *all = by_rank ? json_array() : NULL, *a;
	size_t r;
	json_array_foreach(by_rank, r, a) json_array_extend(all, a);
	json_decref(mine);
	json_decref(by_rank);
	return all;
}

static json_t *ops_checks(const ops_job *j, const nm_measure *ms, uint64_t faa_total, bool *valid)
{
	const uint64_t *c = ms->total_c;
	bool data_ok = c[C_MISMATCHES] == 0, faa_ok = c[C_FAA_WRONG] == 0;
	json_t *checks = json_pack("{s:{s:I, s:I, s:b}, s:{s:I, s:b}}", "data", "checked", (json_int_t)c[C_CHECKED],
				   "mismatches", (json_int_t)c[C_MISMATCHES], "ok", data_ok, "measured", "ops",
				   (json_int_t)ms->ops, "ok", ms->ops > 0);
	if (j->op == NM_OP_FAA)
		json_object_set_new(checks, "faa_counters",
				    json_pack("{s:I, s:I, s:b}", "total_added", (json_int_t)faa_total, "targets_wrong",
					      (json_int_t)c[C_FAA_WRONG], "ok", faa_ok));
	nm_numa_point_checks(&j->np, checks, ms->first_error[0] ? ms->first_error : NULL);
	*valid = data_ok && faa_ok && ms->ops > 0 && j->np.ok;
	return checks;
}

/* The point's settings as run: resolved defaults, and the inline threshold
 * requested and granted (rank 0's QPs) with whether WRITEs went inline. */
static json_t *effective_json(const ops_job *j, const nm_measure *ms, json_t *cpus_by_rank)
{
	uint32_t granted = 0;
	for (int t = 0; t < j->T && !granted; t++)
		for (int i = 0; i < j->th[t].nconn; i++)
			granted = j->th[t].cs[i].c->max_inline;
	return json_pack("{s:i, s:i, s:i, s:I, s:I, s:i, s:i, s:b, s:o, s:I}", "tx_depth", j->W, "cq_mod", j->batch,
			 "max_rd_atomic", j->max_rd_atomic,
			 "warmup", (json_int_t)ms->cfg.warmup, "size", (json_int_t)j->size, "inline_requested",
			 j->p->inline_size, "inline_size", (int)granted, "inline", j->op == NM_OP_WRITE && j->size <= granted,
			 "cpus", cpus_by_rank, "slot_stride", (json_int_t)j->p->l.stride);
}

/* Collective: the placement record, the tally, the series, the loads and
 * the CPUs; rank 0 fills out. */
static void ops_result(nm_ctx *ctx, ops_job *j, nm_measure *ms, json_t *out)
{
	json_t *placement = nm_numa_point_record(&j->np, ctx->rank, ctx->nranks);
	uint64_t faa_total = j->op == NM_OP_FAA ? check_faa(j, ms) : 0;
	json_t *series = series_json(j), *cpus_by_rank = nm_numa_point_cpus(&j->np), *per_qp = per_qp_json(j);
	nm_measure_gather(ms);
	json_t *metrics = ctx->rank == 0 ? nm_measure_metrics(ms) : NULL;
	nm_numa_point_load_metrics(&j->np, metrics);
	if (ctx->rank != 0) {
		json_decref(series);
		return;
	}
	if (per_qp)
		json_object_set_new(metrics, "per_qp", per_qp);
	/* The connections' split as one number a claim can select (NUMA Fig. 3:
	 * rank 0 is the client, as plots/numa_fig3c.gp draws it); per_qp holds
	 * them when a thread has several, else per_thread does. */
	const json_t *conns = json_object_get(metrics, "per_qp");
	json_t *split = ops_conn_split(conns ? conns : json_object_get(metrics, "per_thread"), 0);
	if (split)
		json_object_set_new(metrics, "conn_split", split);
	double rate = ms->seconds > 0 ? (double)ms->ops / ms->seconds : 0, bytes = rate * (double)j->size;
	json_object_set_new(metrics, "ops_with_warmup", json_integer((json_int_t)ms->ops_all));
	json_object_set_new(metrics, "mib_per_sec", json_real(bytes / 1048576.0));
	json_object_set_new(metrics, "gbit_per_sec", json_real(bytes * 8 / 1e9));
	json_object_set_new(metrics, "throughput_series", series);
	bool valid;
	json_object_set_new(out, "checks", ops_checks(j, ms, faa_total, &valid));
	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "placement", placement);
	json_object_set_new(out, "metrics", metrics);
	json_object_set_new(out, "effective", effective_json(j, ms, cpus_by_rank));
}

static void ops_free(ops_job *j)
{
	for (int t = 0; j->th && t < j->T; t++) {
		for (int i = 0; i < j->th[t].nconn; i++)
			free(j->th[t].cs[i].fifo);
		free(j->th[t].cs);
		nm_series_free(&j->th[t].series);
	}
	free(j->th);
	nm_numa_point_free(&j->np);
	nm_mesh_destroy(&j->mesh);
	nm_mr_free(&j->mr);
}

static void ops_run(nm_ctx *ctx, const void *point, json_t *out)
{
	const ops_point *p = point;
	const nm_base *b = &ctx->base;
	int me = ctx->rank;
	ops_job j = {.p = p, .op = p->op, .rank = me, .T = b->threads, .W = p->window, .batch = p->batch,
		     .size = (uint32_t)p->l.size, .timeout = b->timeout};
	j.nconn = ops_nconn(p, me, &j.initiator, &j.target);
	nm_numa_point_init(&j.np, ctx->dev, b->mem_node, j.T);
	if (ops_place(ctx, &j, out)) {
		nm_numa_point_free(&j.np);
		return;
	}
	ops_connect(ctx, &j);
	ops_loads(&j, b->seed * 1000003u + (uint64_t)me);

	static const nm_measure_def def = {"ops", ops_counters, C_N};
	nm_measure *ms = nm_measure_new(&b->measure, &def, me, j.T);
	j.th = nm_calloc64((size_t)j.T, sizeof *j.th);
	nm_round rd = {.workers = j.T, .numa_node = j.np.thread_node, .setup = ops_thread_setup, .body = ops_thread_body,
		       .arg = &j, .measure = ms};
	nm_workers_run(&rd);
	/* nm_workers_run returns once every rank's threads are done */
	nm_numa_point_loads_stop(&j.np);
	ops_result(ctx, &j, ms, out);
	nm_measure_free(ms);
	ops_free(&j);
}

static void ops_report(const json_t *pt, const json_t *res, bool first)
{
	const json_t *mt = json_object_get(res, "metrics"), *lat = json_object_get(mt, "lat");
	const json_t *eff = json_object_get(res, "effective");
	bool bw = !strcmp(nm_cfg_str(pt, "mode"), "bw");
	if (json_is_string(json_object_get(res, "skipped"))) {
		printf(" %-5s skipped: %s\n", nm_cfg_str(pt, "op"),
		       json_string_value(json_object_get(res, "skipped")));
		return;
	}
	static int last_mode = -1;
	first = first || last_mode != bw;
	last_mode = bw;
	const char *valid = nm_point_verdict(res);
#define L(k) json_real_value(json_object_get(lat, k))
	if (bw) {
		if (first)
			printf(" %-5s %10s %12s %7s %9s %18s %14s %8s\n", "op", "#bytes", "#iterations",
			       "window", "threads", "BW average[MiB/s]", "MsgRate[Mpps]", "check");
		printf(" %-5s %10" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT " %7" JSON_INTEGER_FORMAT
		       " %9" PRId64 " %18.2f %14.6f %8s\n",
		       nm_cfg_str(pt, "op"), json_integer_value(json_object_get(eff, "size")),
		       json_integer_value(json_object_get(mt, "ops")),
		       json_integer_value(json_object_get(eff, "tx_depth")), nm_cfg_int(pt, "threads"),
		       json_real_value(json_object_get(mt, "mib_per_sec")),
		       json_real_value(json_object_get(mt, "mops")), valid);
	} else {
		if (first)
			printf(" %-5s %10s %12s %12s %12s %16s %12s %14s %16s %18s %8s\n", "op", "#bytes",
			       "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]",
			       "t_avg[usec]", "t_stdev[usec]", "99% percentile", "99.9% percentile",
			       "check");
		printf(" %-5s %10" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT
		       " %12.2f %12.2f %16.2f %12.2f %14.2f %16.2f %18.2f %8s\n",
		       nm_cfg_str(pt, "op"), json_integer_value(json_object_get(eff, "size")),
		       json_integer_value(json_object_get(mt, "ops")), L("min"), L("max"), L("p50"),
		       L("mean"), L("stdev"), L("p99"), L("p99_9"), valid);
	}
#undef L
}

static const nm_experiment ops_experiment = {
	.name = "ops",
	.summary = "one-sided READ, WRITE, CAS, FAA: latency and throughput (perftest-style)",
	.details =
		"Latency (--mode lat) is post to completion with one operation outstanding, the\n"
		"full round trip that ib_read_lat and ib_atomic_lat report. WRITE latency is\n"
		"completion latency, not ib_write_lat's half ping-pong. Throughput (--mode bw)\n"
		"keeps --tx-depth operations outstanding per thread, signaling every --cq-mod.\n"
		"Every run checks its data: READ contents, WRITE read-back, CAS sequences and\n"
		"exact FAA totals; a failed check marks the point invalid.\n\n"
		"NUMA placement (numa/, Nelson and Palmieri): --buf-node places every target's\n"
		"registered memory, --cpu-node the initiator threads, each resolved per rank\n"
		"against its own NIC (nic, other, a node number, any); move_pages verifies every\n"
		"page after allocation and after the run, and the point's \"placement\" record holds\n"
		"intended and actual nodes (a mismatch marks the point invalid). --server-workers\n"
		"and --load-threads add the paper's local loads on target ranks.\n\n"
		"Examples:\n"
		"  mpirun -np 2 netmem ops --op read -a            READ latency, 2 B..8 MiB\n"
		"  mpirun -np 2 netmem ops --mode bw --op write -s 64 -t 1,8,64,128\n"
		"  mpirun -np 4 netmem ops --op faa --initiators all --targets all -T 2\n"
		"  mpirun -np 2 netmem ops --op read,write -s 64 -T 1,8 --buf-node nic,other --cpu-node nic\n"
		"  mpirun -np 2 netmem ops --mode bw -s 8 --packed -T 8 --buf-node nic,other \\\n"
		"      --server-workers 0,8,48 --server-op mixed",
	.opts = ops_opts, .min_ranks = 1,
	.point_size = sizeof(ops_point), .decode = ops_decode, .point_free = ops_point_free, .needs = ops_needs,
	.run = ops_run, .report = ops_report,
};
NM_EXPERIMENT(ops_experiment)
