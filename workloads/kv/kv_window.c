/* The window engine of netmem kv (kv_window.h): the loop that keeps a
 * thread's operations in flight and steps them, and a verbs system's point
 * (its memory, mesh and round of threads). The operations' posting is
 * kv_win_post.c. */
#include "kv_window.h"
#include "alloc.h"
#include "boot.h"
#include "clock.h"
#include "workers.h"
#include <stdlib.h>
#include <string.h>

/* All completions o waited for are in: the half-written entry's next step
 * (kv_inject.c), or the system's. An early release's completion in
 * KV_S_LATE leaves it to step. */
static void advance(kv_win *w, kv_wop *o)
{
	if (o->state == KV_S_HALF || o->state == KV_S_HALF_LOOK)
		kv_inj_half_advance(w, o);
	else if (o->state != KV_S_LATE)
		w->ops->advance(w, o);
}

/* o waits on memory or time. A half-written entry copied whole by CPU (a
 * local one) waits for nothing more: its system goes on from e->then at once,
 * as after the fence of a remote one. KV_S_HALF_LOOK is never stepped: its
 * READ is in flight, or a local look is done already. */
static void step(kv_win *w, kv_wop *o)
{
	switch (o->state) {
	case KV_S_HALF:
		if (kv_inj_half_step(w, o))
			w->ops->advance(w, o);
		break;
	case KV_S_HALF_LOOK:
		break;
	case KV_S_LATE:
		w->ops->late(w, o);
		break;
	default:
		if (w->ops->step)
			w->ops->step(w, o);
	}
}

void kv_win_reap(kv_win *w)
{
	struct ibv_wc wc[16];
	int n = w->outstanding ? nm_poll_some(&w->pl, wc, 16) : 0;
	for (int i = 0; i < n; i++) {
		uint64_t k = NM_WRID_PAYLOAD(wc[i].wr_id);
		w->outstanding--;
		if (k >= (uint64_t)w->window) {   /* the system's own (kv_win_sys_wrid) */
			w->ops->sys_done(w, (uint32_t)(k - (uint64_t)w->window));
			continue;
		}
		kv_wop *o = kv_win_op(w, (int)k);
		if (--o->pending == 0)
			advance(w, o);
	}
}

/* Starts `issue` more operations (until the deadline, if any) and returns
 * when all are done (nm_window_phase). */
static uint64_t run_ops(void *arg, uint64_t issue, uint64_t deadline)
{
	kv_win *w = arg;
	int busy;
	do {
		busy = 0;
		bool more = issue > 0 && (deadline == 0 || nm_ticks() < deadline);
		for (int i = 0; i < w->window; i++) {
			kv_wop *o = kv_win_op(w, i);
			if (o->state == 0 && more) {
				issue--;
				more = issue > 0;
				o->found = false;
				o->pending = 0;
				o->wrote = o->returned = 0;
				o->t0 = o->since = nm_ticks();
				w->ops->start(w, o);
			} else if (o->state != 0 && o->pending == 0) {
				step(w, o);
			}
			busy += o->state != 0;
		}
		if (w->ops->poll)
			w->ops->poll(w);
		kv_win_reap(w);
	} while (busy > 0 || (issue > 0 && (deadline == 0 || nm_ticks() < deadline)));
	return nm_ticks();
}

void kv_win_body(kv_win *w) { nm_window_run(w->kt->meter, run_ops, w); }

void kv_win_mem(nm_ctx *ctx, nm_mr *mr, const kv_win_plan *pl)
{
	char err[512] = "";
	int failed = nm_mr_alloc(ctx->dev, mr, pl->bytes, ctx->base.hugepages, ctx->base.mem_node, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	memset(mr->buf, 0, pl->bytes);
}

/* Every rank to every rank, itself included (all: n*n bytes to fill): the
 * one mesh configuration of kv_win_mesh and kv_win_needs. */
static nm_mesh_cfg mesh_cfg(const kv_win_plan *pl, const nm_base *b, int nranks, uint8_t *all)
{
	memset(all, 1, (size_t)nranks * (size_t)nranks);
	nm_mesh_cfg mc = {.nthreads = pl->threads, .qps = 1, .initiates = all, .qp = b->qp};
	mc.qp.sq_depth = pl->sq_depth;
	return mc;
}

void kv_win_mesh(nm_ctx *ctx, nm_mesh *mesh, nm_mr *mr, const kv_win_plan *pl)
{
	uint8_t *all = nm_malloc((size_t)ctx->nranks * (size_t)ctx->nranks);
	nm_mesh_cfg mc = mesh_cfg(pl, &ctx->base, ctx->nranks, all);
	nm_mesh_create(mesh, ctx->dev, &mc, mr);
	free(all);
}

void kv_win_created(json_t *effective, const nm_mesh *mesh, const nm_mr *mr)
{
	json_object_set_new(effective, "qps_per_node", json_integer(nm_mesh_qp_count(mesh)));
	json_object_set_new(effective, "registered_bytes", json_integer((json_int_t)mr->mr->length));
}

void kv_win_needs(const kv_win_plan *pl, const nm_base *b, int rank, int nranks, nm_needs *n)
{
	nm_mr_needs(n, pl->bytes, b->hugepages, false);
	uint8_t *all = nm_malloc((size_t)nranks * (size_t)nranks);
	nm_mesh_cfg mc = mesh_cfg(pl, b, nranks, all);
	nm_mesh_needs(&mc, rank, nranks, n);
	free(all);
	n->atomics = true;   /* LOCO's tickets (FAA), the other stores' lock words (CAS) */
}

/* nm_round setup of a site's worker (w->arg: the site): its kv_thread,
 * injector and window. */
static void worker_setup(nm_worker *w)
{
	const kv_win_site *s = w->arg;
	kv_win *win = nm_calloc64(1, s->thr_size);
	const kv_point *p = s->r->p;
	kv_thread *kt = kv_run_thread(s->r, w);
	uint8_t *scr = (uint8_t *)s->mr->buf + s->plan->scratch_off + (size_t)w->index * s->plan->scratch_per_thread;
	kv_win_init(win, s->ops, s->sys, kt, s->mesh, s->mr->mr->lkey, w->index, p->window, s->op_size, scr,
		    s->plan->scratch_per_op, s->r->ctx->base.timeout);
	kv_injector_init(&win->inj, p->inject, s->r->ctx->rank);
	w->arg = win;
}

static void worker_body(nm_worker *w)
{
	kv_win *win = w->arg;
	kv_win_body(win);
	kv_win_free(win);
	free(win);
}

json_t *kv_win_run(kv_win_site *s, void (*scan)(void *sys, nm_measure *ms), json_t *effective,
		   const char *emulated_change)
{
	kv_run *r = s->r;
	nm_round rd = {.workers = s->mesh->nthreads, .numa_node = r->ctx->base.mem_node, .setup = worker_setup,
		       .body = worker_body, .arg = s, .measure = r->ms};
	nm_workers_run(&rd);
	scan(s->sys, r->ms);
	if (emulated_change)
		json_object_set_new(effective, "emulated_change", json_string(emulated_change));
	nm_boot_barrier();   /* no peer reads this node's memory any more */
	nm_mesh_destroy(s->mesh);
	nm_mr_free(s->mr);
	return effective;
}
