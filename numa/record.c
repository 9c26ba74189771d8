#include "record.h"
#include "boot.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *nm_rank_place_json(int rank, const nm_rank_place *rp, bool *ok, char *first, size_t flen)
{
	char why[600];
	*ok = true;
	first[0] = 0;
#define FAIL(...)                                           \
	do {                                                \
		if (*ok)                                    \
			snprintf(first, flen, __VA_ARGS__); \
		*ok = false;                                \
	} while (0)
	json_t *threads = json_array();
	for (int i = 0; i < rp->nthreads; i++) {
		const nm_cpu_place *cp = &rp->threads[i];
		json_array_append_new(threads, nm_cpu_place_json(cp, rp->thread_ids[i]));
		if (!nm_cpu_place_ok(cp)) {
			char what[64];
			snprintf(what, sizeof what, "rank %d thread %d", rank, rp->thread_ids[i]);
			nm_cpu_place_why(cp, what, why, sizeof why);
			FAIL("%s", why);
		}
	}
	json_t *workers = NULL, *load = NULL;
	if (rp->workers && rp->workers->t) {
		char what[64];
		bool wok = true;
		snprintf(what, sizeof what, "rank %d server worker", rank);
		json_t *tp = nm_hammer_placement(rp->workers, what, &wok, why, sizeof why);
		workers = nm_hammer_json(rp->workers);
		json_object_set_new(workers, "intended",
				    rp->worker_node >= 0 ? json_integer(rp->worker_node) : json_null());
		json_object_set_new(workers, "cpus", tp);
		if (!wok)
			FAIL("%s", why);
	}
	if (rp->load) {
		load = json_deep_copy(json_object_get(rp->load, "placement"));
		json_object_set(load, "request", json_object_get(rp->load, "request"));
		json_object_set(load, "intended", json_object_get(rp->load, "intended"));
		if (!json_is_true(json_object_get(load, "ok")))
			FAIL("rank %d %s", rank, json_string_value(json_object_get(rp->load, "first_error")));
	}
	json_t *cache = NULL;
	if (rp->cache) {
		bool cok;
		cache = nm_cache_json(rp->cache, &cok);
		if (!cok)
			FAIL("rank %d cache pass (--cache %s) ran on cpu %d of node %d, not on node %d", rank,
			     nm_cache_mode_name(rp->cache->mode), rp->cache->cpu, rp->cache->cpu_node, rp->cache->node);
	}
	static const char *const when[2] = {"after allocation", "after the run"};
	for (int k = 0; k < 2; k++)
		if (!nm_census_ok(&rp->census[k])) {
			char what[96];
			snprintf(what, sizeof what, "rank %d buffer %s", rank, when[k]);
			nm_census_why(&rp->census[k], what, why, sizeof why);
			FAIL("%s", why);
		}
#undef FAIL
	json_t *buffer = json_pack("{s:s, s:o, s:I, s:o, s:o, s:b}", "request", rp->mem_request,
				   "intended", rp->mem_node >= 0 ? json_integer(rp->mem_node) : json_null(),
				   "bytes", (json_int_t)rp->mem_bytes, "after_alloc",
				   nm_census_json(&rp->census[0]), "after_run", nm_census_json(&rp->census[1]),
				   "ok", nm_census_ok(&rp->census[0]) && nm_census_ok(&rp->census[1]));
	if (rp->misplaced_to >= 0)
		json_object_set_new(buffer, "injected_page_moved_to", json_integer(rp->misplaced_to));
	json_t *nodes = json_array();
	for (int i = 0; i < rp->view->nnodes; i++)
		json_array_append_new(nodes, json_integer(rp->view->node[i].id));
	json_t *rec = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:{s:o, s:s, s:b}, s:o, s:b, s:o, s:b}",
				"rank", rank, "host", rp->view->hostname, "role", rp->role, "nodes", nodes,
				"nic", nm_nic_numa_json(rp->nic), "buffer", buffer, "qp_cq", "bound_to",
				rp->qp_node >= 0 ? json_integer(rp->qp_node) : json_null(),
				"policy_at_creation", rp->qp_policy ? rp->qp_policy : "", "verified", 0,
				"threads", threads, "virtualized", nm_numa_virtualized(), "not_numa_real",
				nm_numa_unreal_reasons(rp->view, rp->nic, rp->emulated), "ok", *ok);
	if (workers)
		json_object_set_new(rec, "server_workers", workers);
	if (load)
		json_object_set_new(rec, "load", load);
	if (cache)
		json_object_set_new(rec, "cache", cache);
	return rec;
}

json_t *nm_job_place(int rank, int nranks, json_t *mine, const char *mine_first, bool *ok, char *first,
		     size_t flen)
{
	char *txt = json_dumps(mine, JSON_COMPACT);
	json_decref(mine);
	char **all = nm_boot_gather_str(txt, 0);
	char **errs = nm_boot_gather_str(mine_first, 0);
	free(txt);
	if (rank != 0)
		return NULL;
	json_t *ranks = json_array(), *reasons = json_array();
	*ok = true;
	first[0] = 0;
	for (int r = 0; r < nranks; r++) {
		json_t *rec = json_loads(all[r], 0, NULL);
		if (!json_is_true(json_object_get(rec, "ok"))) {
			if (*ok)
				snprintf(first, flen, "%s", errs[r]);
			*ok = false;
		}
		size_t i;
		json_t *why;
		json_array_foreach(json_object_get(rec, "not_numa_real"), i, why) {
			bool seen = false;
			size_t k;
			json_t *x;
			json_array_foreach(reasons, k, x) seen |= json_equal(x, why);
			if (!seen)
				json_array_append(reasons, why);
		}
		json_array_append_new(ranks, rec);
		free(all[r]);
		free(errs[r]);
	}
	free(all);
	free(errs);
	return json_pack("{s:b, s:o, s:b, s:o}", "numa_real", json_array_size(reasons) == 0,
			 "not_numa_real", reasons, "ok", *ok, "ranks", ranks);
}
