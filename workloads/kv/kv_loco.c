/* LOCO's kvstore (LOCO paper, section 6, Fig. 3 and Appendix C), as the
 * `loco` system of netmem kv (kv.h): the paper's design over this suite's
 * verbs layer and primitives (the tracker ringbuffer, the local index).
 *
 * Per node, in registered memory: a slot array, the node's share of the
 * ticket locks, and the tracker's rings. A slot is
 *   [key | value (value-size bytes) | counter << 1 | valid | checksum]
 * with the checksum XXH64 of the words before it. Per node in process
 * memory: the local index (key -> node, slot, counter;
 * primitives/loco/kvindex.h) and the free slots of the node.
 *
 * Its operations are kv_loco_ops.c, the prefill and the free slots
 * kv_loco_slots.c; here: the tracker thread, the application threads and
 * the point.
 *
 * Decisions the paper leaves open:
 * - Slot: 8-byte key, the value, a 32-bit counter with the valid bit, an
 *   XXH64 checksum: 32 bytes for 8-byte values (the paper gives no layout).
 * - Locks: --locks ticket locks (65,536 by default), lock i homed on node
 *   i mod nodes; next_ticket and now_serving side by side, 16 bytes per lock,
 *   taken by every node through the NIC (loopback on the home). No local
 *   hand-over between a node's threads: with a window, a thread's own
 *   operations would have to hand over to each other, and a ticket per
 *   operation orders them already. Waiters poll now_serving by READ.
 * - Values carry the lock's ticket as their version (kv.h): tickets grow in
 *   a key's modification order, so readers can compare any two writers.
 * - Prefill: rank i goes to node i mod nodes, slot i / nodes; every node
 *   builds the same index by computing it (a bulk load, not the tracker;
 *   the paper does not say how it prefilled). Each node has room for its
 *   prefill share plus every key that may still be inserted.
 * - A local slot is read and written with CPU copies, a remote one by RDMA.
 * - The inserter updates its own index before broadcasting (the paper does
 *   not say whether before the broadcast or after the acknowledgements).
 * - Tracker: 256 entries per sender ring; the tracker thread is one more
 *   thread per node, not measured. */
#include "kv_loco.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "lock.h"
#include "log.h"
#include "rdma.h"
#include "workers.h"
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- threads ---------------------------------------------------------------- */

static void tracker_apply(void *arg, int src, const uint64_t *msg)
{
	loco_thr *t = arg;
	loco_job *j = t->j;
	int kind = (int)(msg[0] & 0xff), node = (int)(msg[0] >> 8 & 0xffff);
	nm_kvloc loc = {.node = (uint16_t)node, .slot = (uint32_t)msg[2], .counter = (uint32_t)msg[3]};
	if (kind == MSG_INSERT) {
		nm_kvindex_put(&j->index, msg[1], &loc);
	} else if (kind == MSG_DELETE) {
		nm_kvindex_del(&j->index, msg[1]);
		if (node == j->rank)
			loco_slot_free(j, loc.slot);
	} else if (kind == MSG_DONE) {
		j->done_from++;
		return;
	} else {
		nm_fatal("kv loco: tracker message of unknown kind %d from rank %d", kind, src);
	}
	t->win.kt->meter->c[KV_C_APPLIED]++;
}

/* A tracker with nothing to apply lets the application threads run. On a
 * NIC it only yields (the paper's tracker is a dedicated thread, and a
 * yield returns at once when a core is free). On Soft-RoCE, where every
 * thread of every emulated node shares a VM's few CPUs with rxe itself, it
 * naps once it has been idle for a while (50 us, growing to 800 us while
 * nothing comes, so an insert after a quiet spell waits that much longer): a spinning tracker there took CPU time that the
 * read-only workload's threads, which never need it, lacked. */
static void tracker_idle(loco_job *j, uint32_t idle)
{
	if (j->emulated && idle >= 1024) {
		/* 50 us, doubling with every 1024 idle polls up to 800 us: each
		 * wake-up is an emulated timer interrupt, itself costly */
		uint32_t k = (idle - 1024) / 1024;
		struct timespec d = {0, 50000L << (k < 4 ? k : 4)};
		nanosleep(&d, NULL);
	} else {
		sched_yield();
	}
}

/* The tracker thread: applies the other nodes' messages until every node,
 * this one included, has said its application threads are done. */
static void tracker_body(loco_thr *t)
{
	loco_job *j = t->j;
	nm_meter_skip(t->win.kt->meter);
	uint64_t done_seq = 0;
	bool posted = false;
	uint32_t idle = 0;
	uint64_t t_last = nm_ticks(), limit = nm_ns_to_ticks((uint64_t)(4 * j->timeout * 1e9));
	while (j->done_from < j->N - 1 || !posted || j->tr.own_pending > 0) {
		int n = nm_tracker_poll(&j->tr, t->win.thread, &t->win.pl, tracker_apply, t);
		if (!done_seq && atomic_load(&j->app_done) == j->T)
			done_seq = nm_tracker_reserve(&j->tr);
		if (done_seq && !posted && nm_tracker_can_post(&j->tr, done_seq)) {
			uint64_t msg[NM_TRACKER_WORDS] = {MSG_DONE | (uint64_t)j->rank << 8, 0, 0, 0};
			j->tr.own_pending += nm_tracker_post(&j->tr, t->win.thread, done_seq, msg,
							     NM_WRID(NM_OP_WRITE, NM_TRACKER_OWN));
			posted = true;
		}
		if (n) {
			t_last = nm_ticks();
			idle = 0;
		} else if (++idle % 64 == 0) {
			tracker_idle(j, idle);
		}
		if (!n && nm_ticks() - t_last > limit)
			nm_fatal("kv loco: the tracker thread heard from %d of %d other nodes that they are done, "
				 "and nothing for %.0f s", j->done_from, j->N - 1, 4 * j->timeout);
	}
	nm_tracker_drain(&j->tr, &t->win.pl);
}

/* Application threads are mesh threads 0 .. T-1, the tracker thread T. */
static void thr_setup(nm_worker *w)
{
	loco_job *j = w->arg;
	loco_thr *t = nm_calloc64(1, sizeof *t);
	t->j = j;
	bool app = w->index < j->T;
	kv_thread *kt = &j->tracker_kt;
	if (app)
		kt = kv_run_thread(j->r, w);
	else
		kt->meter = w->meter;
	uint8_t *scr = (uint8_t *)j->mr.buf + j->plan.scratch_off + (size_t)w->index * j->plan.scratch_per_thread;
	kv_win_init(&t->win, &loco_steps, j, kt, &j->mesh, j->mr.mr->lkey, w->index, app ? j->p->window : 1,
		    sizeof(loco_op), scr, j->plan.scratch_per_op, j->timeout);
	if (app)   /* the tracker thread injects nothing (kv_win_init left it none) */
		kv_injector_init(&t->win.inj, j->p->inject, j->rank);
	w->arg = t;
}

static void thr_body(nm_worker *w)
{
	loco_thr *t = w->arg;
	if (t->win.thread < t->j->T) {
		kv_win_body(&t->win);
		atomic_fetch_add(&t->j->app_done, 1);
	} else {
		tracker_body(t);
	}
	kv_win_free(&t->win);
	free(t);
}

/* ---- the point ---------------------------------------------------------------- */

static void loco_connect(loco_job *j, nm_ctx *ctx)
{
	j->plan = kv_loco_plan(j->p, j->N, j->T, &j->lay);
	kv_win_mem(ctx, &j->mr, &j->plan);
	nm_kvindex_init(&j->index, j->p->load.keys);
	loco_prefill(j);
	nm_tracker_init(&j->tr, &j->mesh, &j->mr, j->lay.tracker_off, j->rank, j->N, KV_LOCO_TRACKER_ENTRIES);
	kv_win_mesh(ctx, &j->mesh, &j->mr, &j->plan);   /* -T threads and the tracker thread */
}

/* After the run, every node checks its slots: checksum, key and value. */
static void loco_scan(loco_job *j, nm_measure *ms)
{
	kv_checker c;
	kv_checker_init(&c, 1, false);
	for (uint64_t s = 0; s < j->lay.slots; s++) {
		const uint64_t *w = slot_at(j, s);
		if (w[0] == 0)
			continue;   /* never used */
		bool ok = w[j->lay.slot_words - 1] == slot_sum(j, w) &&
			  kv_check_value(&c, w[0], w + 1, j->p->load.value_words) == KV_READ_OK;
		if (!ok) {
			if (!ms->rank_c[KV_C_BAD_SLOTS])
				nm_error_note(&ms->rank_err, "slot %" PRIu64 " (key 0x%016" PRIx64 ") fails its %s after the run",
					      s, w[0], w[j->lay.slot_words - 1] == slot_sum(j, w) ? "value check" : "checksum");
			ms->rank_c[KV_C_BAD_SLOTS]++;
		}
	}
	kv_checker_free(&c);
}

static json_t *loco_run(kv_run *r)
{
	nm_ctx *ctx = r->ctx;
	loco_job *j = nm_calloc64(1, sizeof *j);
	*j = (loco_job){.r = r, .p = r->p, .rank = ctx->rank, .N = ctx->nranks, .T = ctx->base.threads,
			.timeout = ctx->base.timeout, .emulated = ctx->dev->emulated};
	loco_connect(j, ctx);
	nm_round rd = {.workers = j->T + 1, .numa_node = ctx->base.mem_node, .setup = thr_setup, .body = thr_body,
		       .arg = j, .measure = r->ms};
	nm_workers_run(&rd);
	loco_scan(j, r->ms);
	json_t *eff = json_pack("{s:i, s:I, s:i, s:i, s:I}", "slot_bytes", (int)j->p->slot_bytes,
				"slots_per_node", (json_int_t)j->lay.slots, "locks", j->p->locks, "tracker_entries",
				KV_LOCO_TRACKER_ENTRIES, "index_buckets", (json_int_t)(j->index.mask + 1));
	kv_win_created(eff, &j->mesh, &j->mr);
	if (j->emulated)
		json_object_set_new(eff, "emulated_change",
				    json_string("the idle tracker thread naps (50 to 800 us) between polls instead of spinning "
						"(the VM's CPUs are shared by every thread and by rxe)"));
	nm_boot_barrier();   /* no peer reads this node's memory any more */
	nm_mesh_destroy(&j->mesh);
	nm_tracker_free(&j->tr);
	nm_kvindex_free(&j->index);
	pthread_mutex_destroy(&j->free_mu);
	free(j->free);
	nm_mr_free(&j->mr);
	free(j);
	return eff;
}

const kv_system kv_loco = {
	.name = "loco",
	.summary = "LOCO's kvstore: slots READ by one RDMA READ via a local index, ticket locks, tracker ringbuffer",
	.global_versions = true,
	.service_threads = 1,
	.run = loco_run,
};
