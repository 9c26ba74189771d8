#include "point.h"
#include "alloc.h"
#include "boot.h"
#include "log.h"
#include "mem.h"
#include "record.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nm_numa_load_decode(const json_t *pt, nm_numa_load *l, char *err, size_t errlen)
{
	*l = (nm_numa_load){.threads = (int)nm_cfg_int(pt, "load_threads"), .buf = nm_cfg_int(pt, "load_buf"),
			    .mix = nm_cfg_double(pt, "load_mix"), .cache = nm_cache_mode_of(nm_cfg_str(pt, "cache"))};
	return nm_place_parse(nm_cfg_str(pt, "load_node"), &l->node, "--load-node", err, errlen);
}

int nm_numa_roles_decode(const json_t *pt, int mem_node, nm_place *buf, nm_place *cpu, char *err, size_t errlen)
{
	if (nm_place_parse(nm_cfg_str(pt, "buf_node"), buf, "--buf-node", err, errlen) ||
	    nm_place_parse(nm_cfg_str(pt, "cpu_node"), cpu, "--cpu-node", err, errlen))
		return -1;
	if (mem_node >= 0 && (buf->kind != NM_PLACE_ANY || cpu->kind != NM_PLACE_ANY)) {
		snprintf(err, errlen, "--mem-node places every rank's memory and threads on one node; it "
			 "cannot be combined with --buf-node or --cpu-node (use those alone)");
		return -1;
	}
	return 0;
}

nm_hammer_cfg nm_numa_workers_decode(const json_t *pt)
{
	return (nm_hammer_cfg){.threads = (int)nm_cfg_int(pt, "server_workers"),
			       .op = nm_hammer_op(nm_cfg_str(pt, "server_op")),
			       .write_ratio = nm_cfg_double(pt, "server_write_ratio")};
}

void nm_numa_point_init(nm_numa_point *np, nm_dev *dev, int harness_node, int nthreads)
{
	memset(np, 0, sizeof *np);
	np->dev = dev;
	nm_numa_view_load(&np->view, dev->ctx->device, &np->nic);
	np->harness_node = harness_node;
	np->mem_node = np->qp_node = np->thread_node = np->worker_node = np->load_node = -1;
	np->misplace_at = -1;
	np->misplaced_to = -1;
	np->nthreads = nthreads;
	np->cp = nm_calloc((size_t)(nthreads ? nthreads : 1), sizeof *np->cp);
	np->working = nm_calloc((size_t)(nthreads ? nthreads : 1), sizeof *np->working);
}

void nm_numa_point_free(nm_numa_point *np)
{
	nm_hammer_free(&np->hammer);
	free(np->image);
	np->image = NULL;
	json_decref(np->load_result);
	free(np->cp);
	free(np->working);
	np->load_result = NULL;
	np->cp = NULL;
	np->working = NULL;
}

void nm_numa_need(nm_numa_point *np, const char *key, const char *what, const nm_place *p,
		  nm_place_need need, int *node)
{
	if (!np->bad && nm_place_resolve(p, &np->view, need, node, what, np->why, sizeof np->why))
		np->bad = key;
}

void nm_numa_need_load(nm_numa_point *np, const nm_numa_load *l)
{
	int mem;
	if (l->threads <= 0)
		return;
	nm_numa_need(np, "load_node", "--load-node", &l->node, NM_NEED_CPUS, &np->load_node);
	nm_numa_need(np, "load_node", "--load-node", &l->node, NM_NEED_MEMORY, &mem);
}

void nm_numa_place_roles(nm_numa_point *np, bool initiator, bool target, const nm_place *buf,
			 const nm_place *cpu)
{
	static const nm_place any = {NM_PLACE_ANY, 0};
	int b = -1, c = -1, mem = -1;
	if (target)
		nm_numa_need(np, "buf_node", "--buf-node", buf, NM_NEED_MEMORY, &b);
	if (initiator)
		nm_numa_need(np, "cpu_node", "--cpu-node", cpu, NM_NEED_CPUS, &c);
	if (initiator && !target && c >= 0)
		nm_numa_need(np, "cpu_node", "--cpu-node", cpu, NM_NEED_MEMORY, &mem);
	np->role = initiator && target ? "both" : initiator ? "initiator" : target ? "target" : "idle";
	np->mem_node = target ? b : mem;
	np->thread_node = c;
	np->qp_node = initiator ? c : b;
	np->worker_node = b;
	nm_place_str(target ? buf : initiator ? cpu : &any, np->mem_request, sizeof np->mem_request);
}

void nm_numa_place_all(nm_numa_point *np, const char *key, const char *what, const nm_place *p)
{
	int node = -1, mem;
	nm_numa_need(np, key, what, p, NM_NEED_CPUS, &node);
	nm_numa_need(np, key, what, p, NM_NEED_MEMORY, &mem);
	np->mem_node = np->thread_node = node;
	np->one_node = true;
	nm_place_str(p, np->mem_request, sizeof np->mem_request);
}

void nm_numa_refuse(nm_numa_point *np, const char *key, const char *fmt, ...)
{
	if (np->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(np->why, sizeof np->why, fmt, ap);
	va_end(ap);
	np->bad = key;
}

int nm_numa_point_settle(nm_numa_point *np, const json_t *spec, json_t *out)
{
	if (np->misplace_at >= 0 && np->view.nnodes < 2)
		nm_numa_refuse(np, "inject", "--inject misplace needs a second NUMA node to move a page to "
			       "(%s has one)", np->view.hostname);
	if (nm_placement_unresolved(spec, np->bad, np->why, out))
		return 1;
	int h = np->harness_node;
	if (np->mem_node < 0 && h >= 0) {
		np->mem_node = h;
		snprintf(np->mem_request, sizeof np->mem_request, "--mem-node %d", h);
	}
	if (np->thread_node < 0)
		np->thread_node = h;
	if (np->worker_node < 0)
		np->worker_node = h;
	if (np->one_node)
		np->qp_node = np->mem_node;
	return 0;
}

/* Registration pins the pages, after which they cannot move: the testing
 * hook moves one before it, to the first other node with memory. */
static int misplace(nm_numa_point *np, nm_mr *m, char *err, size_t errlen)
{
	int to = -1;
	for (int i = 0; i < np->view.nnodes && to < 0; i++)
		if (np->view.node[i].id != np->mem_node && np->view.node[i].has_memory)
			to = np->view.node[i].id;
	int got = to >= 0 ? nm_pages_move_one((uint8_t *)m->buf + np->misplace_at, to) : -ENODEV;
	if (got != to) {
		snprintf(err, errlen, "--inject misplace: cannot move a page of the buffer to NUMA node %d: %s",
			 to, got < 0 ? strerror(-got) : "it stayed");
		nm_mem_free(m->buf, m->alloc_len);
		m->buf = NULL;
		return -1;
	}
	np->misplaced_to = to;
	return 0;
}

static size_t page_size(bool huge) { return huge ? (size_t)2 << 20 : (size_t)sysconf(_SC_PAGESIZE); }

/* What the thread on the buffer's node does: map and zero (first touch),
 * then the workload's fill. */
typedef struct alloc_job {
	nm_mr *m;
	int node;
	bool hugepages;
	nm_numa_fill fill;
	void *arg;
	char err[512];
} alloc_job;

static void alloc_fill(void *a)
{
	alloc_job *aj = a;
	nm_mr *m = aj->m;
	m->buf = nm_mem_alloc(m->len, aj->hugepages, aj->node, &m->alloc_len, aj->err, sizeof aj->err);
	if (m->buf && aj->fill)
		aj->fill(aj->arg, m->buf);
}

void nm_numa_point_alloc(nm_numa_point *np, nm_mr *m, size_t len, bool hugepages, nm_numa_fill fill, void *arg)
{
	char err[512] = "";
	memset(m, 0, sizeof *m);
	m->len = len;
	m->hugepages = hugepages;
	m->numa_node = np->mem_node;
	/* Zeroed (first touched) and filled by a thread bound to the buffer's
	 * node, so the lines start out in that node's caches, not dirty in
	 * whichever socket the main thread runs on. Without a node the calling
	 * thread does both, as it always did. */
	alloc_job aj = {.m = m, .node = np->mem_node, .hugepages = hugepages, .fill = fill, .arg = arg};
	if (np->mem_node < 0)
		alloc_fill(&aj);
	else if (nm_numa_run_on(np->mem_node, -1, alloc_fill, &aj, NULL, err, sizeof err) != 0)
		m->buf = NULL;
	if (!m->buf && !err[0])
		snprintf(err, sizeof err, "%s", aj.err);
	int failed = !m->buf || (np->misplace_at >= 0 && misplace(np, m, err, sizeof err)) ||
		     nm_mr_register(np->dev, m, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_pages_census(m->buf, m->alloc_len, page_size(hugepages), np->mem_node, &np->census[0]);
	np->mr = m;
}

/* QP and CQ rings (provider and kernel memory) follow the policy of the
 * thread that creates them. */
void nm_numa_point_mesh(nm_numa_point *np, nm_mesh *mesh, const nm_mesh_cfg *cfg)
{
	char err[256];
	nm_numa_saved saved;
	int failed = nm_numa_bind_thread(np->qp_node, &saved, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_numa_policy_str(np->qp_policy, sizeof np->qp_policy);
	nm_mesh_create(mesh, np->dev, cfg, np->mr);
	nm_numa_unbind_thread(&saved);
}

void nm_numa_point_loads_start(nm_numa_point *np, const nm_numa_loads *l)
{
	char err[512];
	np->loads = *l;
	np->loads.workers.node = np->worker_node;
	const nm_numa_load *ld = &l->load;
	int failed = l->here && ld->threads > 0 &&
		     nm_loadproc_start(&np->proc, ld->threads, np->load_node, ld->buf, ld->mix, l->seed,
				       nm_boot_deadline(), err, sizeof err);
	if (failed && np->proc.timed_out)
		nm_stalled("the load process's ready line", np->proc.waited, "%s", err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_hammer_cfg *w = &np->loads.workers;
	if (l->here && w->threads > 0) {
		np->image = nm_malloc(w->len);
		memcpy(np->image, w->area, w->len);
		w->image = np->image;
	}
	failed = l->here && nm_cache_settle(np->mr->buf, np->mr->alloc_len, np->mem_node, ld->cache, &np->cache,
					    err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	failed = l->here && w->threads > 0 && nm_hammer_start(&np->hammer, w, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
}

void nm_numa_point_loads_stop(nm_numa_point *np)
{
	char err[512];
	nm_hammer_stop(&np->hammer);
	int failed = np->proc.pid > 0 && !(np->load_result = nm_loadproc_stop(&np->proc, err, sizeof err));
	if (failed && np->proc.timed_out)
		nm_stalled("the load process's result", np->proc.waited, "%s", err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
}

void nm_numa_thread_start(nm_numa_point *np, int index, int cpu, bool working)
{
	np->working[index] = working;
	nm_cpu_place_start(&np->cp[index], cpu, working ? np->thread_node : -1);
}

void nm_numa_thread_end(nm_numa_point *np, int index) { nm_cpu_place_end(&np->cp[index]); }

json_t *nm_numa_point_cpus(const nm_numa_point *np)
{
	json_t *mine = json_array();
	for (int t = 0; t < np->nthreads; t++)
		json_array_append_new(mine, json_integer(np->cp[t].cpu));
	json_t *all = nm_boot_gather_json(mine, 0);
	json_decref(mine);
	return all;
}

json_t *nm_numa_point_record(nm_numa_point *np, int rank, int nranks)
{
	const nm_mr *m = np->mr;
	nm_pages_census(m->buf, m->alloc_len, page_size(m->hugepages), np->mem_node, &np->census[1]);
	nm_cpu_place *cps = nm_calloc((size_t)np->nthreads + 1, sizeof *cps);
	int *ids = nm_calloc((size_t)np->nthreads + 1, sizeof *ids), n = 0;
	for (int t = 0; t < np->nthreads; t++)
		if (np->working[t]) {
			cps[n] = np->cp[t];
			ids[n++] = t;
		}
	nm_rank_place rp = {.role = np->role, .view = &np->view, .nic = &np->nic, .emulated = np->dev->emulated,
			    .mem_request = np->mem_request, .mem_node = np->mem_node, .mem_bytes = m->alloc_len,
			    .census = np->census, .misplaced_to = np->misplaced_to, .qp_node = np->qp_node,
			    .qp_policy = np->qp_policy, .threads = cps, .thread_ids = ids, .nthreads = n,
			    .workers = &np->hammer, .worker_node = np->worker_node, .load = np->load_result,
			    .cache = np->cache.done ? &np->cache : NULL};
	bool mine_ok;
	char mine_first[600];
	json_t *mine = nm_rank_place_json(rank, &rp, &mine_ok, mine_first, sizeof mine_first);
	free(cps);
	free(ids);
	np->ok = true;
	np->first[0] = 0;
	return nm_job_place(rank, nranks, mine, mine_first, &np->ok, np->first, sizeof np->first);
}

void nm_numa_point_checks(const nm_numa_point *np, json_t *checks, const char *first)
{
	json_object_set_new(checks, "placement",
			    json_pack("{s:b, s:s?}", "ok", np->ok, "first_error", np->ok ? NULL : np->first));
	if (!first && !np->ok)
		first = np->first;
	if (first)
		json_object_set_new(checks, "first_error", json_string(first));
}

void nm_numa_point_load_metrics(const nm_numa_point *np, json_t *metrics)
{
	enum { W_THREADS, W_OPS, W_RATE, L_OPS, L_RATE, N };
	double secs = nm_hammer_seconds(&np->hammer);
	uint64_t ops = nm_hammer_ops(&np->hammer), v[N] = {
		[W_THREADS] = np->hammer.t ? (uint64_t)np->hammer.c.threads : 0,
		[W_OPS] = ops,
		[W_RATE] = secs > 0 ? (uint64_t)((double)ops / secs) : 0,
		[L_OPS] = (uint64_t)json_integer_value(json_object_get(np->load_result, "ops")),
		[L_RATE] = (uint64_t)json_number_value(json_object_get(np->load_result, "ops_per_sec")),
	};
	nm_boot_sum_u64_array(v, N);
	if (!metrics)
		return;
	if (np->loads.workers.threads > 0)
		json_object_set_new(metrics, "server_workers",
				    json_pack("{s:I, s:s, s:I, s:I}", "threads", (json_int_t)v[W_THREADS], "op",
					      nm_hammer_op_name(np->loads.workers.op), "ops", (json_int_t)v[W_OPS],
					      "ops_per_sec", (json_int_t)v[W_RATE]));
	if (np->loads.load.threads > 0)
		json_object_set_new(metrics, "load", json_pack("{s:I, s:I}", "ops", (json_int_t)v[L_OPS],
							       "ops_per_sec", (json_int_t)v[L_RATE]));
}
