/* Reading a run directory back (harness/analysis/rundoc.h). */
#include "rundoc.h"
#include "alloc.h"
#include "log.h"
#include "result.h"
#include <dirent.h>
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

/* Fills the flags a verdict depends on from the document itself. */
static void classify(nm_rundoc *d)
{
	json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs");
	d->simulated = !json_is_array(runs) || json_array_size(runs) == 0;
	size_t i;
	json_t *r, *p;
	json_array_foreach(runs, i, r)
		if (json_is_true(json_object_get(r, "emulated")))
			d->emulated = true;
	json_array_foreach(json_object_get(d->doc, "points"), i, p)
		if (json_is_false(json_object_get(json_object_get(p, "placement"), "numa_real")))
			d->numa_not_real = true;
	const char *schema = json_string_value(json_object_get(d->doc, "schema"));
	d->schema = schema ? schema : "none";
	d->experiment = json_string_value(json_object_get(d->doc, "experiment"));
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
	return !strcmp(name, pattern);
}

bool nm_params_match(const json_t *params, const json_t *select)
{
	const char *key;
	json_t *want;
	json_object_foreach((json_t *)select, key, want) {
		json_t *have = json_object_get(params, key);
		if (!have || !nm_json_same_value(have, want))
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

void nm_rundoc_nic_label(const nm_rundoc *d, char *buf, size_t len)
{
	const json_t *meta = nm_rundoc_meta(d);
	if (!meta) {
		snprintf(buf, len, "simulator (no NIC)");
		return;
	}
	const json_t *nic = rank0(meta, "nic");
	snprintf(buf, len, "%s, fw %s, %s %.0f Gb/s%s", str(nic, "device"), str(nic, "fw_ver"),
		 str(nic, "link_layer"), json_number_value(json_object_get(nic, "link_gbps")),
		 d->emulated ? ", Soft-RoCE (emulated)" : "");
}

void nm_rundoc_hardware(const nm_rundoc *d, char *buf, size_t len)
{
	const json_t *meta = nm_rundoc_meta(d);
	if (!meta) {
		snprintf(buf, len, "simulator (no NIC, no metadata)");
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
		 d->emulated ? "Soft-RoCE (EMULATED): not hardware numbers" : "hardware",
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
