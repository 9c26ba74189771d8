/* Reading a run directory back (harness/analysis/rundoc.h). */
#include "rundoc.h"
#include "alloc.h"
#include "log.h"
#include "experiment.h"
#include "mesh.h"
#include "result.h"
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <strings.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(((const nm_rundoc *)a)->name, ((const nm_rundoc *)b)->name);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

/* The vendor ids the kernel's soft providers report (rdma-core's rxe,
 * the kernel's siw: 'bmt'), whatever their device or driver is called. */
#define RXE_VENDOR_ID 0xFFFFFFll
#define SIW_VENDOR_ID 0x626d74ll

/* A flag as any writer or editor may spell it: true, 1, "true", "1", "yes". */
static bool truthy(const json_t *v)
{
	const char *s = json_string_value(v);
	return json_is_true(v) || (json_is_integer(v) && json_integer_value(v) != 0) ||
	       (json_is_real(v) && json_real_value(v) != 0) ||
	       (s && (!strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "yes")));
}

static bool soft_vendor(const json_t *v)
{
	long long id = -1;
	const char *s = json_string_value(v);
	if (json_is_integer(v))
		id = json_integer_value(v);
	else if (s) {
		char *end;
		id = strtoll(s, &end, 0);
		if (end == s || *end)
			id = -1;
	}
	return id == RXE_VENDOR_ID || id == SIW_VENDOR_ID;
}

/* Is this NIC record Soft-RoCE (or siw), by any sign it carries: its flag,
 * its driver (rxe, rdma_rxe, siw), its device's name (rxe0, RXE, siw0) or
 * its vendor id? */
bool nm_nic_emulated(const json_t *nic)
{
	const char *drv = json_string_value(json_object_get(nic, "driver"));
	const char *dev = json_string_value(json_object_get(nic, "device"));
	return truthy(json_object_get(nic, "emulated")) || soft_vendor(json_object_get(nic, "vendor_id")) ||
	       (drv && (strcasestr(drv, "rxe") || strcasestr(drv, "siw"))) ||
	       (dev && (!strncasecmp(dev, "rxe", 3) || !strncasecmp(dev, "siw", 3)));
}

/* Sets *soft when any run is flagged or any NIC record shows Soft-RoCE,
 * *unrecorded when a run has no NIC record for some rank. */
static void runs_hardware(const json_t *runs, bool *soft, bool *unrecorded)
{
	size_t i, k;
	json_t *r, *rank;
	json_array_foreach(runs, i, r) {
		const json_t *ranks = json_object_get(r, "ranks");
		*soft |= truthy(json_object_get(r, "emulated"));
		*unrecorded |= json_array_size(ranks) == 0;
		json_array_foreach(ranks, k, rank) {
			const json_t *nic = json_object_get(rank, "nic");
			*unrecorded |= !json_is_object(nic);
			*soft |= json_is_object(nic) && nm_nic_emulated(nic);
		}
	}
}

bool nm_doc_emulated(const json_t *doc)
{
	json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	bool soft = false, unrecorded = false;
	runs_hardware(runs, &soft, &unrecorded);
	return json_array_size(runs) && (soft || unrecorded);
}

/* The experiments computed on the host, with no NIC measured, and what
 * computes them: the CoRM simulator, and Clover Fig. 3's in-network state,
 * sized from the packet path's tables (netmem clover-path --state-table).
 * A summary entry of theirs is its own point, and no NIC record they carry
 * says what measured them. */
static const struct {
	const char *experiment, *by;
} computed[] = {
	{"corm-sim", "simulator"},
	{"clover-state", "computed from the packet path's tables"},
};

const char *nm_experiment_computed_by(const char *experiment)
{
	for (size_t i = 0; experiment && i < sizeof computed / sizeof computed[0]; i++)
		if (!strcmp(experiment, computed[i].experiment))
			return computed[i].by;
	return NULL;
}

bool nm_experiment_simulated(const char *experiment)
{
	return nm_experiment_computed_by(experiment) != NULL;
}

bool nm_experiment_has_server(const char *experiment)
{
	return experiment && (!strcmp(experiment, "ops") || !strcmp(experiment, "numa-kv") || !strcmp(experiment, "corm"));
}

bool nm_rundoc_rank_is(const nm_rundoc *d, const json_t *run, long rank, const char *role)
{
	if (!role || !strcmp(role, "every"))
		return true;
	long n = json_is_integer(json_object_get(run, "nranks")) ? (long)json_integer_value(json_object_get(run, "nranks"))
								  : (long)json_array_size(json_object_get(run, "ranks"));
	const char *exp = d->experiment ? d->experiment : "";
	if (!strcmp(exp, "corm")) /* rank 0 holds CoRM's memory, ranks 1.. are clients */
		return rank == 0;
	if (!strcmp(exp, "numa-kv")) /* the last rank is the server */
		return rank == n - 1;
	if (!strcmp(exp, "ops") && n > 0 && n <= 4096 && rank >= 0 && rank < n) {
		/* the targets: ranks whose memory the initiators access */
		const json_t *spec = json_object_get(d->doc, "spec");
		const char *is = json_string_value(json_object_get(spec, "initiators"));
		const char *ts = json_string_value(json_object_get(spec, "targets"));
		uint8_t *m = nm_calloc((size_t)n * (size_t)n, 1);
		char err[256];
		bool target = false;
		if (nm_mesh_pairs(is ? is : "0", ts ? ts : "others", (int)n, m, err, sizeof err) > 0)
			for (long q = 0; q < n; q++)
				target |= m[q * n + rank] != 0;
		free(m);
		return target;
	}
	return false;
}

bool nm_rundoc_nics_differ(const nm_rundoc *d, char *buf, size_t len)
{
	static const char *const identity[] = {"device", "vendor_part_id", "fw_ver"};
	const json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs");
	const json_t *first = json_array_get(runs, 0);
	for (size_t r = 1; r < json_array_size(runs); r++) {
		const json_t *ranks = json_object_get(json_array_get(runs, r), "ranks");
		for (size_t i = 0; i < json_array_size(ranks); i++)
			for (size_t k = 0; k < sizeof identity / sizeof identity[0]; k++) {
				const json_t *a = json_object_get(json_object_get(json_array_get(json_object_get(first, "ranks"), i), "nic"), identity[k]);
				const json_t *b = json_object_get(json_object_get(json_array_get(ranks, i), "nic"), identity[k]);
				if ((a || b) && !(a && b && nm_json_same_value(a, b))) {
					char *sa = json_dumps(a, JSON_ENCODE_ANY), *sb = json_dumps(b, JSON_ENCODE_ANY);
					snprintf(buf, len, "its runs were on different NICs: rank %zu's %s was %s in run 1, %s in run %zu",
						 i, identity[k], sa ? sa : "absent", sb ? sb : "absent", r + 1);
					free(sa);
					free(sb);
					return true;
				}
			}
	}
	return false;
}

/* ---- what a document says about itself, checked ---- */

static char *canon(const json_t *params)
{
	return json_dumps(params ? params : json_null(), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static bool same_number(const json_t *a, const json_t *b)
{
	if (json_is_null(a) && json_is_null(b))
		return true;
	if (!json_is_number(a) || !json_is_number(b))
		return false;
	double x = json_number_value(a), y = json_number_value(b);
	return x == y || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
}

/* A geometric mean as a message shows it. */
static const char *shown(const json_t *v, char *buf, size_t len)
{
	if (json_is_number(v))
		snprintf(buf, len, "%.6g", json_number_value(v));
	else
		snprintf(buf, len, "%s", !v ? "nothing" : json_is_null(v) ? "null" : "not a number");
	return buf;
}

/* The summary entry against the one its points give: NULL, or why not. */
static char *entry_differs(const json_t *e, const json_t *r, const char *p)
{
	const json_t *ge = json_object_get(e, "geomean"), *gr = json_object_get(r, "geomean");
	const char *key;
	json_t *v;
	if (!json_is_true(json_object_get(e, "valid")) != !json_is_true(json_object_get(r, "valid")))
		return nm_strdupf("summary entry %s says valid %s, its points say %s", p,
				  json_is_true(json_object_get(e, "valid")) ? "true" : "false",
				  json_is_true(json_object_get(r, "valid")) ? "true" : "false");
	if (!same_number(json_object_get(e, "reps"), json_object_get(r, "reps")))
		return nm_strdupf("summary entry %s counts %g repetitions, it has %g points", p,
				  json_number_value(json_object_get(e, "reps")), json_number_value(json_object_get(r, "reps")));
	json_object_foreach((json_t *)ge, key, v)
		if (!same_number(v, json_object_get(gr, key))) {
			char a[32], b[32];
			return nm_strdupf("summary entry %s says %s = %s, its points give %s", p, key, shown(v, a, sizeof a),
					  shown(json_object_get(gr, key), b, sizeof b));
		}
	json_object_foreach((json_t *)gr, key, v)
		if (!json_object_get(ge, key))
			return nm_strdupf("summary entry %s lacks %s, which its points have", p, key);
	return NULL;
}

/* Placement over an entry's points: "placed" when every point carries a
 * placement record, "numa_real" when every one of them says true. */
static void entry_placement(json_t *r, const json_t *points, const char *p)
{
	bool placed = true, real = true;
	size_t i;
	json_t *pt;
	json_array_foreach(points, i, pt) {
		char *c = canon(json_object_get(pt, "params"));
		if (c && !strcmp(c, p)) {
			const json_t *nr = json_object_get(json_object_get(pt, "placement"), "numa_real");
			placed &= json_is_boolean(nr);
			real &= json_is_true(nr);
		}
		free(c);
	}
	json_object_set_new(r, "placed", json_boolean(placed));
	json_object_set_new(r, "numa_real", json_boolean(placed && real));
}

/* Every entry's parameters into seen (canonical), which the caller reads
 * on: the first that repeats is *why, unless something was said before. */
static void params_seen(const json_t *entries, json_t *seen, char **why)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		char *p = canon(json_object_get(e, "params"));
		if (!*why && p && json_object_get(seen, p))
			*why = nm_strdupf("duplicate parameters %s in its summary", p);
		if (p)
			json_object_set_new(seen, p, json_true());
		free(p);
	}
}

/* The summary recomputed from the points into d->entries, and the
 * document's own summary checked against it: NULL, or the first
 * disagreement. */
static char *check_summary(nm_rundoc *d)
{
	const json_t *points = json_object_get(d->doc, "points"), *summary = json_object_get(d->doc, "summary");
	json_t *seen = json_object(), *index = json_object(), *e;
	char *why = NULL;
	size_t i;
	if (d->simulated) { /* a computed document's summary entries are its points */
		d->entries = json_deep_copy(summary);
		params_seen(d->entries, seen, &why);
		json_array_foreach(d->entries, i, e) {
			json_object_set_new(e, "placed", json_false());
			json_object_set_new(e, "numa_real", json_false());
		}
		goto out;
	}
	if (!json_is_array(points)) {
		d->entries = json_array();
		why = json_array_size(summary) ? nm_strdupf("a summary without points") : NULL;
		goto out;
	}
	json_array_foreach(points, i, e) {
		char *p = canon(json_object_get(e, "params"));
		char key[64];
		snprintf(key, sizeof key, "#%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(e, "rep")));
		size_t n = (p ? strlen(p) : 0) + strlen(key) + 1;
		char *k = nm_malloc(n);
		snprintf(k, n, "%s%s", p ? p : "", key);
		if (!why && json_object_get(seen, k))
			why = nm_strdupf("point %s repetition %s appears twice", p ? p : "?", key + 1);
		json_object_set_new(seen, k, json_true());
		free(k);
		free(p);
	}
	d->entries = nm_result_summary(points);
	json_array_foreach(d->entries, i, e) {
		char *p = canon(json_object_get(e, "params"));
		if (p) {
			json_object_set_new(index, p, json_integer((json_int_t)i));
			entry_placement(e, points, p);
		}
		free(p);
	}
	json_object_clear(seen);
	params_seen(summary, seen, &why); /* duplicates first: no entry of theirs can be chosen */
	json_array_foreach(summary, i, e) {
		if (why)
			break;
		char *p = canon(json_object_get(e, "params"));
		const json_t *r = p ? json_object_get(index, p) : NULL;
		if (!p)
			why = nm_strdupf("a summary entry without params");
		else if (!r)
			why = nm_strdupf("summary entry %s has no points", p);
		else
			why = entry_differs(e, json_array_get(d->entries, (size_t)json_integer_value(r)), p);
		free(p);
	}
	json_array_foreach(d->entries, i, e) {
		if (why)
			break;
		char *p = canon(json_object_get(e, "params"));
		if (p && !json_object_get(seen, p))
			why = nm_strdupf("points %s have no summary entry", p);
		free(p);
	}
out:
	json_decref(seen);
	json_decref(index);
	return why;
}

/* The config a command line runs (`netmem run DIR/NAME.json ...`): NAME
 * into buf, or false when it names none. */
static bool command_config(const char *cmd, char *buf, size_t len)
{
	char *copy = nm_strdup(cmd), *save = NULL, *w;
	bool after_run = false, found = false;
	for (w = strtok_r(copy, " \t", &save); w && !found; w = strtok_r(NULL, " \t", &save)) {
		size_t n = strlen(w);
		if (after_run && n > 5 && !strcmp(w + n - 5, ".json")) {
			const char *base = strrchr(w, '/');
			base = base ? base + 1 : w;
			snprintf(buf, len, "%.*s", (int)(strlen(base) - 5), base);
			found = true;
		}
		after_run |= !strcmp(w, "run");
	}
	free(copy);
	return found;
}

/* The spec a config of the suite decodes to (its options, the run options
 * taken out), or NULL when the config is not there or does not decode. */
static json_t *config_spec(const char *path, const char *experiment, json_t **params_out)
{
	json_t *cfg = json_load_file(path, 0, NULL);
	*params_out = json_incref(json_object_get(cfg, "params"));
	const nm_experiment *e = nm_experiment_find(json_string_value(json_object_get(cfg, "experiment")));
	json_t *spec = NULL;
	if (e && !e->tool_main && experiment && !strcmp(e->name, experiment)) {
		const nm_opt *tables[] = {e->opts, nm_harness_opts, NULL};
		char err[512];
		json_t *params = json_object_get(cfg, "params");
		json_t *copy = params ? json_deep_copy(params) : NULL;
		spec = nm_opt_parse(tables, copy, path, 0, NULL, err, sizeof err);
		json_decref(copy);
		if (spec)
			json_decref(nm_opt_take_run(tables, spec));
	} else if (e && experiment && strcmp(e->name, experiment))
		spec = json_pack("{s:s}", "experiment", e->name); /* another experiment's config */
	json_decref(cfg);
	return spec;
}

/* A key the config sets whose value the document's spec and the config's
 * decoded spec give differently (the options the config leaves at their
 * defaults are not compared: a default may change between versions). */
static const char *spec_differs(const json_t *doc_spec, const json_t *cfg_spec, const json_t *cfg_params)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)cfg_params, key, v) {
		const json_t *mine = json_object_get(doc_spec, key), *theirs = json_object_get(cfg_spec, key);
		if (mine && theirs && !nm_json_same_value(mine, theirs))
			return key;
	}
	return NULL;
}

/* Is the document what its name says: the config its command lines ran,
 * its spec that config's (at one of the suite's scales), every point
 * within its spec's sweep? NULL, or why not. */
static char *check_name(const nm_rundoc *d)
{
	char config[256], cmdcfg[256];
	snprintf(config, sizeof config, "%.*s", (int)nm_doc_config_len(d->name), d->name);
	size_t i;
	json_t *r, *pt;
	json_array_foreach(json_object_get(json_object_get(d->doc, "meta"), "runs"), i, r) {
		const char *cmd = json_string_value(json_object_get(r, "command_line"));
		if (cmd && command_config(cmd, cmdcfg, sizeof cmdcfg) && strcmp(cmdcfg, config))
			return nm_strdupf("%s is named after config %s, but its command line ran config %s", d->name, config, cmdcfg);
	}
	const json_t *spec = json_object_get(d->doc, "spec");
	if (json_object_size(spec) == 0)
		return NULL;
	static const char *const scales[] = {"check", "quick", "paper"};
	char first[1400] = "";
	bool found = false, matches = false;
	for (size_t k = 0; k < 3 && !matches; k++) {
		char rel[512], buf[4096 + 600];
		snprintf(rel, sizeof rel, "configs/%s/%s.json", scales[k], config);
		const char *path = nm_suite_file(rel, buf, sizeof buf);
		json_t *cp = NULL, *cs = access(path, R_OK) == 0 ? config_spec(path, d->experiment, &cp) : NULL;
		if (!cs) {
			json_decref(cp);
			continue;
		}
		found = true;
		const char *exp = json_string_value(json_object_get(cs, "experiment"));
		const char *key = exp && json_object_size(cs) == 1 ? NULL : spec_differs(spec, cs, cp);
		if (exp && json_object_size(cs) == 1) {
			if (!first[0])
				snprintf(first, sizeof first, "config %.300s is experiment %.60s, the document %.60s", rel, exp,
					 d->experiment ? d->experiment : "?");
		} else if (key) {
			char *a = json_dumps(json_object_get(spec, key), JSON_ENCODE_ANY | JSON_COMPACT);
			char *b = json_dumps(json_object_get(cs, key), JSON_ENCODE_ANY | JSON_COMPACT);
			if (!first[0])
				snprintf(first, sizeof first, "its spec has %.60s = %.120s, config %.300s has %.120s", key, a ? a : "?",
					 rel, b ? b : "?");
			free(a);
			free(b);
		} else
			matches = true;
		json_decref(cs);
		json_decref(cp);
	}
	if (found && !matches)
		return nm_strdupf("%s is not what config %s runs: %s", d->name, config, first);
	json_array_foreach(json_object_get(d->doc, "points"), i, pt) {
		const char *key;
		json_t *v;
		json_object_foreach(json_object_get(pt, "params"), key, v) {
			const json_t *s = json_object_get(spec, key);
			if (s && !(json_is_array(s) ? nm_json_array_has(s, v) : nm_json_same_value(s, v))) {
				char *p = canon(json_object_get(pt, "params"));
				char *a = json_dumps(s, JSON_ENCODE_ANY | JSON_COMPACT), *b = json_dumps(v, JSON_ENCODE_ANY);
				char *w = nm_strdupf("point %.200s is outside its spec's sweep: %s = %s, the spec has %.100s", p ? p : "?",
						     key, b ? b : "?", a ? a : "?");
				free(p);
				free(a);
				free(b);
				return w;
			}
		}
	}
	return NULL;
}

/* Fills the flags a verdict depends on from the document itself. */
static void classify(nm_rundoc *d)
{
	const char *schema = json_string_value(json_object_get(d->doc, "schema"));
	d->schema = schema ? schema : "none";
	d->experiment = json_string_value(json_object_get(d->doc, "experiment"));
	json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs");
	d->simulated = nm_experiment_simulated(d->experiment);
	bool unrecorded = json_array_size(runs) == 0;
	runs_hardware(runs, &d->soft_roce, &unrecorded);
	d->emulated = !d->simulated && (d->soft_roce || unrecorded);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(d->doc, "points"), i, p)
		if (json_is_false(json_object_get(json_object_get(p, "placement"), "numa_real")))
			d->numa_not_real = true;
	d->inconsistent = check_summary(d);
	if (!d->inconsistent && !d->simulated)
		d->inconsistent = check_name(d);
	/* after the checks, which compare the entries with the points and the
	 * spec; to the points as to the entries, since a reader finds an entry's
	 * points by its params (a skipped point's reason, its placement) */
	json_t *nranks = json_object_get(json_array_get(runs, json_array_size(runs) - 1), "nranks");
	json_t *e;
	json_array_foreach(d->entries, i, e)
		nm_params_derive(d->experiment, json_object_get(e, "params"), (int)json_integer_value(nranks));
	json_array_foreach(json_object_get(d->doc, "points"), i, e)
		nm_params_derive(d->experiment, json_object_get(e, "params"), (int)json_integer_value(nranks));
}

int nm_run_load(const char *dir, nm_run *run, char *err, size_t len)
{
	*run = (nm_run){.dir = nm_strdup(dir)};
	DIR *dh = opendir(dir);
	if (!dh)
		return nm_errf(err, len, "cannot read run directory %s: %s", dir, strerror(errno));
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (!ends_with(e->d_name, ".json"))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		json_error_t je;
		json_t *doc = json_load_file(path, 0, &je);
		if (!doc) {
			closedir(dh);
			return nm_errf(err, len, "%s: line %d: %s", path, je.line, je.text);
		}
		if (!json_is_string(json_object_get(doc, "experiment")) ||
		    !json_is_array(json_object_get(doc, "summary"))) {
			json_decref(doc);
			continue;
		}
		if (run->ndocs == cap)
			run->docs = nm_realloc(run->docs, (cap = cap ? 2 * cap : 16) * sizeof *run->docs);
		const json_t *schema = json_object_get(doc, "schema");
		if (schema && (!json_is_string(schema) || strcmp(json_string_value(schema), NM_RESULT_SCHEMA))) {
			char *s = json_dumps(schema, JSON_ENCODE_ANY);
			nm_errf(err, len, "%s: schema %s is not one this netmem reads (%s): use the netmem that wrote it",
				path, s ? s : "?", NM_RESULT_SCHEMA);
			free(s);
			json_decref(doc);
			closedir(dh);
			return -1;
		}
		nm_rundoc *d = &run->docs[run->ndocs++];
		*d = (nm_rundoc){.name = nm_strdup(e->d_name), .doc = doc};
		d->name[strlen(d->name) - strlen(".json")] = '\0';
		classify(d);
	}
	closedir(dh);
	if (run->ndocs)
		qsort(run->docs, run->ndocs, sizeof *run->docs, by_name);
	return 0;
}

void nm_run_free(nm_run *run)
{
	for (size_t i = 0; i < run->ndocs; i++) {
		free(run->docs[i].name);
		free(run->docs[i].inconsistent);
		json_decref(run->docs[i].entries);
		json_decref(run->docs[i].doc);
	}
	free(run->docs);
	free(run->dir);
	*run = (nm_run){0};
}

const nm_rundoc *nm_run_find(const nm_run *run, const char *name)
{
	for (size_t i = 0; i < run->ndocs; i++)
		if (!strcmp(run->docs[i].name, name))
			return &run->docs[i];
	return NULL;
}

bool nm_name_matches(const char *name, const char *pattern)
{
	if (!pattern)
		return true;
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return !strncmp(name, pattern, n - 1);
	return nm_doc_config_len(name) == n && !strncmp(name, pattern, n);
}

size_t nm_doc_config_len(const char *name)
{
	const char *dot = strrchr(name, '.');
	size_t len = strlen(name);
	if (!dot || dot[1] != 'n' || !dot[2])
		return len;
	for (const char *c = dot + 2; *c; c++)
		if (*c < '0' || *c > '9')
			return len;
	return (size_t)(dot - name);
}

bool nm_json_array_has(const json_t *array, const json_t *v)
{
	size_t i;
	json_t *e;
	json_array_foreach(array, i, e)
		if (nm_json_same_value(e, v))
			return true;
	return false;
}

void nm_params_derive(const char *experiment, json_t *params, int nranks)
{
	const nm_experiment *e = experiment ? nm_experiment_find(experiment) : NULL;
	if (!e || !e->derive || !json_is_object(params) || nranks < 1)
		return;
	json_t *out = json_object(), *v;
	const char *key;
	e->derive(params, nranks, out);
	json_object_foreach(out, key, v)
		if (!json_object_get(params, key))
			json_object_set(params, key, v);
	json_decref(out);
}

bool nm_params_match(const json_t *params, const json_t *select)
{
	const char *key;
	json_t *want;
	json_object_foreach((json_t *)select, key, want) {
		json_t *have = json_object_get(params, key);
		if (!have || !(nm_json_same_value(have, want) || (json_is_array(want) && nm_json_array_has(want, have))))
			return false;
	}
	return true;
}

bool nm_entry_value(const json_t *entry, const char *metric, bool zero_ok, double *v)
{
	if (!json_is_true(json_object_get(entry, "valid")))
		return false;
	json_t *m = json_object_get(json_object_get(entry, "geomean"), metric);
	if (!json_is_number(m) || json_number_value(m) < 0 || (json_number_value(m) == 0 && !zero_ok))
		return false;
	*v = json_number_value(m);
	return true;
}

bool nm_entry_metric(const json_t *entry, const char *metric, double *v)
{
	return nm_entry_value(entry, metric, false, v);
}

const json_t *nm_rundoc_meta(const nm_rundoc *d)
{
	json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs");
	size_t n = json_array_size(runs);
	return n ? json_array_get(runs, n - 1) : NULL;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "?";
}

static const json_t *rank0(const json_t *meta, const char *key)
{
	return json_object_get(json_array_get(json_object_get(meta, "ranks"), 0), key);
}

/* Mellanox's PCI device ids (ibv_devinfo's vendor_part_id), the parts the
 * papers and CloudLab's node types name. */
static const struct {
	long id;
	const char *name;
} mlx_parts[] = {
	{4099, "ConnectX-3"}, {4103, "ConnectX-3 Pro"}, {4113, "Connect-IB"}, {4115, "ConnectX-4"},
	{4117, "ConnectX-4 Lx"}, {4119, "ConnectX-5"}, {4121, "ConnectX-5 Ex"}, {4123, "ConnectX-6"},
	{4125, "ConnectX-6 Dx"}, {4127, "ConnectX-6 Lx"}, {4129, "ConnectX-7"},
};

void nm_nic_part_name(const json_t *nic, char *buf, size_t len)
{
	const json_t *id = json_object_get(nic, "vendor_part_id");
	if (!json_is_object(nic)) {
		snprintf(buf, len, "no NIC record");
		return;
	}
	if (nm_nic_emulated(nic)) {
		snprintf(buf, len, "Soft-RoCE (%s)", str(nic, "driver"));
		return;
	}
	for (size_t i = 0; json_is_integer(id) && i < sizeof mlx_parts / sizeof mlx_parts[0]; i++)
		if (json_integer_value(id) == mlx_parts[i].id) {
			snprintf(buf, len, "%s", mlx_parts[i].name);
			return;
		}
	if (json_is_integer(id))
		snprintf(buf, len, "part %" JSON_INTEGER_FORMAT, json_integer_value(id));
	else
		snprintf(buf, len, "unknown part");
}

void nm_rundoc_part(const nm_rundoc *d, char *buf, size_t len)
{
	const json_t *meta = d ? nm_rundoc_meta(d) : NULL;
	if (!meta)
		snprintf(buf, len, "no NIC");
	else
		nm_nic_part_name(rank0(meta, "nic"), buf, len);
}

void nm_rundoc_nic_label(const nm_rundoc *d, char *buf, size_t len)
{
	const json_t *meta = nm_rundoc_meta(d);
	if (d->simulated || !meta) {
		if (d->simulated)
			snprintf(buf, len, "%s (no NIC)", nm_experiment_computed_by(d->experiment));
		else
			snprintf(buf, len, "no NIC record");
		return;
	}
	const json_t *nic = rank0(meta, "nic");
	snprintf(buf, len, "%s, fw %s, %s %.0f Gb/s%s", str(nic, "device"), str(nic, "fw_ver"),
		 str(nic, "link_layer"), json_number_value(json_object_get(nic, "link_gbps")),
		 d->soft_roce ? ", Soft-RoCE (emulated)" : d->emulated ? ", no NIC record" : "");
}

void nm_rundoc_hardware(const nm_rundoc *d, char *buf, size_t len)
{
	const json_t *meta = nm_rundoc_meta(d);
	if (d->simulated || !meta) {
		if (d->simulated)
			snprintf(buf, len, "%s (no NIC measured)", nm_experiment_computed_by(d->experiment));
		else
			snprintf(buf, len, "NO NIC RECORD (no metadata): not hardware numbers");
		return;
	}
	const json_t *nic = rank0(meta, "nic");
	char hosts[512] = "";
	size_t i;
	json_t *h;
	json_array_foreach(json_object_get(meta, "hosts"), i, h) {
		size_t used = strlen(hosts);
		snprintf(hosts + used, sizeof hosts - used, "%s%s", i ? ", " : "", json_string_value(h) ? json_string_value(h) : "?");
	}
	snprintf(buf, len, "%s (part %" JSON_INTEGER_FORMAT ", fw %s, %s %.0f Gb/s, driver %s); %" JSON_INTEGER_FORMAT
		 " rank(s) on %s; CPU %s; %s%s", str(nic, "device"),
		 json_integer_value(json_object_get(nic, "vendor_part_id")), str(nic, "fw_ver"), str(nic, "link_layer"),
		 json_number_value(json_object_get(nic, "link_gbps")), str(nic, "driver"),
		 json_integer_value(json_object_get(meta, "nranks")), hosts[0] ? hosts : "?",
		 json_string_value(rank0(meta, "cpu_model")) ? json_string_value(rank0(meta, "cpu_model")) : "?",
		 d->soft_roce ? "Soft-RoCE (EMULATED): not hardware numbers" :
		 d->emulated ? "NO NIC RECORD in some run: not hardware numbers" : "hardware",
		 d->numa_not_real ? "; NUMA NOT REAL" : "");
}

nm_point_tally nm_rundoc_tally(const nm_rundoc *d)
{
	nm_point_tally t = {0};
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(d->doc, "points"), i, p) {
		t.points++;
		if (json_object_get(p, "skipped"))
			t.skipped++;
		else if (json_is_true(json_object_get(p, "valid")))
			t.valid++;
		else
			t.invalid++;
	}
	/* A tool's document (corm-sim) has no points: its summary entries are them. */
	if (!json_object_get(d->doc, "points")) {
		json_array_foreach(json_object_get(d->doc, "summary"), i, p) {
			t.points++;
			if (json_is_true(json_object_get(p, "valid")))
				t.valid++;
			else
				t.invalid++;
		}
	}
	return t;
}

const char *nm_suite_file(const char *rel, char *buf, size_t len)
{
	if (access(rel, R_OK) == 0)
		return rel;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return rel;
	exe[n] = '\0';
	snprintf(buf, len, "%s/../%s", dirname(exe), rel);
	return buf;
}
