/* Rank 0's half of `netmem preflight` (preflight.h): every point of a config
 * decoded as the run will decode it, sized by the family's needs hook for
 * every rank of the config's job, and checked against the host that rank
 * will run on. */
#include "preflight.h"
#include "alloc.h"
#include "experiment.h"
#include "points.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pf_eval {
	const nm_experiment *e;
	const nm_pf_hosts *h;
	const json_t *cfg, *spec;
	int C, rpn;              /* ranks of the config's job, ranks per node (0: one per host in turn) */
	uint64_t *hosts;         /* host identity of each of the C ranks, as placed on this job's hosts */
	nm_pf_verdict v;
	char reason[1024];
	nm_needs peak;           /* per rank, over every point */
	uint64_t qps_per_nic;    /* the most one host's ranks create */
	double seconds;
} pf_eval;

static void refuse(pf_eval *ev, const json_t *pt, const char *why)
{
	if (ev->v == NM_PF_NO_FIT)
		return;
	ev->v = NM_PF_NO_FIT;
	json_t *axes = pt ? nm_point_axes(ev->spec, pt) : NULL;
	char *label = axes && json_object_size(axes) ? json_dumps(axes, JSON_COMPACT) : NULL;
	snprintf(ev->reason, sizeof ev->reason, "%s%s%s", why, label ? "; at point " : "", label ? label : "");
	free(label);
	json_decref(axes);
}

/* What the harness itself asks of a host for a point, whichever family
 * runs it: the path MTU (a single one: a swept MTU above the port's is a
 * skipped point, not a failure), the memory's NUMA node, and what the
 * config's lane flags promise ("numa": two nodes, "odp": on-demand paging). */
static void harness_needs(const pf_eval *ev, const nm_base *b, nm_needs *n)
{
	if (!json_is_array(json_object_get(ev->spec, "mtu")))
		n->mtu = b->qp.mtu;
	int nodes = b->mem_node >= 0 ? b->mem_node + 1 : 1;
	if (json_is_true(json_object_get(ev->cfg, "numa")) && nodes < 2)
		nodes = 2;
	n->numa_nodes = n->numa_nodes > nodes ? n->numa_nodes : nodes;
	n->odp |= json_is_true(json_object_get(ev->cfg, "odp"));
}

/* One point on every rank of the config's job: per rank against its host,
 * then per host the sum of its ranks. Fills the time inputs. */
static void point_fit(pf_eval *ev, const json_t *pt, const nm_base *b, const void *decoded, nm_point_time *t)
{
	const nm_pf_hosts *h = ev->h;
	nm_needs *host = nm_calloc((size_t)h->n, sizeof *host);
	int *hranks = nm_calloc((size_t)h->n, sizeof *hranks);
	char why[768], line[900];
	for (int r = 0; r < ev->C; r++) {
		nm_needs n = {0};
		if (ev->e->without_device && ev->e->without_device(ev->spec, r, ev->C)) {
			hranks[nm_needs_host_of(r, h->n, ev->rpn)]++;   /* routes packets, opens no device */
			continue;
		}
		if (ev->e->needs)
			ev->e->needs(decoded, b, r, ev->C, &n);
		harness_needs(ev, b, &n);
		int hi = nm_needs_host_of(r, h->n, ev->rpn);
		if (nm_fit_rank(&n, &h->lim[hi], why, sizeof why) != 0) {
			snprintf(line, sizeof line, "rank %d on %s", r, why);
			refuse(ev, pt, line);
		}
		nm_needs_sum(&host[hi], &n);
		hranks[hi]++;
		nm_needs_max(&ev->peak, &n);
		t->qps = n.qps > t->qps ? n.qps : t->qps;
		t->pinned_bytes = n.pinned_bytes > t->pinned_bytes ? n.pinned_bytes : t->pinned_bytes;
	}
	for (int hi = 0; hi < h->n; hi++) {
		if (hranks[hi] && nm_fit_host(&host[hi], hranks[hi], &h->lim[hi], why, sizeof why) != 0)
			refuse(ev, pt, why);
		ev->qps_per_nic = host[hi].qps > ev->qps_per_nic ? host[hi].qps : ev->qps_per_nic;
	}
	free(host);
	free(hranks);
}

/* Every point decoded as the run decodes it (a point the run would refuse
 * is a config that cannot run), sized, checked and timed. */
static void eval_points(pf_eval *ev, const json_t *points, int reps)
{
	size_t psize = ev->e->point_size ? ev->e->point_size : 1, i;
	void *decoded = nm_calloc(1, psize);
	char err[1024];
	json_t *pt;
	json_array_foreach((json_t *)points, i, pt) {
		nm_base b;
		if (nm_point_decode(ev->e, pt, ev->spec, ev->C, ev->hosts, &b, decoded, err, sizeof err) != 0) {
			refuse(ev, pt, err);
		} else {
			nm_point_time t = {.iters = b.measure.iters, .warmup = b.measure.warmup,
					   .duration = b.measure.duration, .reps = reps};
			point_fit(ev, pt, &b, decoded, &t);
			ev->seconds += nm_point_seconds(&t, ev->h->model);
		}
		/* what a failed decode allocated too */
		if (ev->e->point_free)
			ev->e->point_free(decoded);
		memset(decoded, 0, psize);
	}
	free(decoded);
}

static json_t *peak_json(const pf_eval *ev)
{
	const nm_needs *p = &ev->peak;
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:i}", "qps_per_rank",
			 (json_int_t)p->qps, "qps_per_nic", (json_int_t)ev->qps_per_nic, "cqs_per_rank",
			 (json_int_t)p->cqs, "mrs_per_rank", (json_int_t)p->mrs, "pinned_bytes_per_rank",
			 (json_int_t)p->pinned_bytes, "odp_bytes_per_rank", (json_int_t)p->odp_bytes,
			 "largest_mr_bytes", (json_int_t)p->largest_mr, "sq_depth", (json_int_t)p->sq_depth, "cqe",
			 (json_int_t)p->cqe, "atomics", p->atomics, "odp", p->odp, "numa_nodes", p->numa_nodes);
}

/* A config's "hosts" (config.h): its ranks in all, and the host of rank r. */
static int placed_ranks(const json_t *placed)
{
	size_t i;
	json_t *n;
	int sum = 0;
	json_array_foreach(placed, i, n)
		sum += (int)json_integer_value(n);
	return sum;
}

static int host_placed(const json_t *placed, int r)
{
	size_t i;
	json_t *n;
	json_array_foreach(placed, i, n) {
		r -= (int)json_integer_value(n);
		if (r < 0)
			return (int)i;
	}
	return 0;
}

json_t *nm_preflight_config(const char *path, const json_t *cfg, int np, const nm_pf_hosts *h,
			    nm_pf_verdict *v)
{
	const char *name = json_string_value(json_object_get(cfg, "experiment"));
	const json_t *rj = json_object_get(cfg, "ranks"), *params = json_object_get(cfg, "params");
	/* a list of rank counts is one job per count: the largest must fit */
	int most = 0;
	size_t i;
	json_t *count;
	json_array_foreach(rj, i, count)
		most = json_integer_value(count) > most ? (int)json_integer_value(count) : most;
	pf_eval ev = {.e = nm_experiment_find(name), .h = h, .cfg = cfg, .v = NM_PF_FITS,
		      .C = json_is_integer(rj) ? (int)json_integer_value(rj) : most ? most : np,
		      .rpn = (int)json_integer_value(json_object_get(params, "ranks_per_node"))};
	const nm_opt *tables[] = {ev.e->opts, nm_harness_opts, NULL};
	char err[1024] = "", where[512];
	snprintf(where, sizeof where, "%s: params", path);
	json_t *copy = params ? json_deep_copy(params) : NULL;
	json_t *spec = nm_opt_parse(tables, copy, where, 0, NULL, err, sizeof err), *points = NULL;
	json_decref(copy);
	ev.spec = spec;
	const json_t *placed = json_object_get(cfg, "hosts");
	if (json_is_array(placed))
		ev.C = placed_ranks(placed);
	ev.hosts = nm_calloc((size_t)(ev.C > 0 ? ev.C : 1), sizeof *ev.hosts);
	for (int r = 0; r < ev.C; r++)
		ev.hosts[r] = (uint64_t)(json_is_array(placed) ? host_placed(placed, r) : nm_needs_host_of(r, h->n, ev.rpn)) + 1;
	int reps = spec ? (int)nm_cfg_int(spec, "reps") : 1;
	if (!spec) {
		refuse(&ev, NULL, err);
	} else if (json_is_array(placed) && json_array_size(placed) > (size_t)h->n) {
		snprintf(err, sizeof err, "its \"hosts\" places ranks on %zu hosts, this job has %d: add hosts to the "
			 "hostfile", json_array_size(placed), h->n);
		refuse(&ev, NULL, err);
	} else if (ev.C < ev.e->min_ranks) {
		snprintf(err, sizeof err, "%s needs at least %d ranks, the config's job has %d", name,
			 ev.e->min_ranks, ev.C);
		refuse(&ev, NULL, err);
	} else {
		points = nm_points_sweep(spec, err, sizeof err);
		if (points)
			eval_points(&ev, points, reps);
		else
			refuse(&ev, NULL, err);
		ev.seconds += h->model->start_s;
		ev.seconds *= json_is_array(rj) ? (double)json_array_size(rj) : 1;
	}
	if (ev.v == NM_PF_FITS && !ev.e->needs) {
		ev.v = NM_PF_UNCHECKED;
		snprintf(ev.reason, sizeof ev.reason, "needs not declared: fit not checked (%s has no needs hook)", name);
	}
	*v = ev.v;
	json_t *out = json_pack("{s:s, s:s, s:i, s:s, s:s?, s:I, s:i, s:f, s:o}", "config", path, "experiment", name,
				"ranks", ev.C, "verdict", ev.v == NM_PF_FITS ? "fits" : ev.v == NM_PF_NO_FIT ?
				"does_not_fit" : "not_checked", "reason", ev.reason[0] ? ev.reason : NULL,
				"points", (json_int_t)json_array_size(points), "reps", reps, "expected_seconds",
				ev.seconds, "peak", peak_json(&ev));
	json_decref(points);
	json_decref(spec);
	free(ev.hosts);
	return out;
}
