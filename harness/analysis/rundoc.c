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

/* Is this NIC record Soft-RoCE (or siw), by any sign it carries? */
static bool nic_emulated(const json_t *nic)
{
	const char *drv = json_string_value(json_object_get(nic, "driver"));
	const char *dev = json_string_value(json_object_get(nic, "device"));
	return json_is_true(json_object_get(nic, "emulated")) || (drv && (!strcmp(drv, "rxe") || !strcmp(drv, "siw"))) ||
	       (dev && (!strncmp(dev, "rxe", 3) || !strncmp(dev, "siw", 3)));
}

/* Emulated unless every run names its NICs and none shows a sign of
 * Soft-RoCE: a run without a NIC record proves no hardware. */
static bool runs_emulated(const json_t *runs)
{
	size_t i, k;
	json_t *r, *rank;
	json_array_foreach(runs, i, r) {
		const json_t *ranks = json_object_get(r, "ranks");
		if (json_is_true(json_object_get(r, "emulated")) || json_array_size(ranks) == 0)
			return true;
		json_array_foreach(ranks, k, rank) {
			const json_t *nic = json_object_get(rank, "nic");
			if (!json_is_object(nic) || nic_emulated(nic))
				return true;
		}
	}
	return false;
}

bool nm_doc_emulated(const json_t *doc)
{
	json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	return json_array_size(runs) && runs_emulated(runs);
}

/* Fills the flags a verdict depends on from the document itself. */
static void classify(nm_rundoc *d)
{
	json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs");
	d->simulated = !json_is_array(runs) || json_array_size(runs) == 0;
	d->emulated = !d->simulated && runs_emulated(runs);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(d->doc, "points"), i, p) {
		const json_t *numa_real = json_object_get(json_object_get(p, "placement"), "numa_real");
		d->has_placement |= json_is_boolean(numa_real);
		if (json_is_false(numa_real))
			d->numa_not_real = true;
	}
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
	if (nic_emulated(nic)) {
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
