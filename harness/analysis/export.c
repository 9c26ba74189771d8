/* netmem export RUN_DIR [--csv FILE]: every summary entry of every result
 * document in a run directory as one tidy CSV table, one row per entry, for
 * the user's own analysis (pandas, R, a spreadsheet).
 *
 * Columns, in this order:
 *   document, experiment, valid, reps, emulated, nic_device, nic_part_id,
 *   nic_firmware, host_count      fixed
 *   every parameter               union over the documents, sorted by name
 *   every metric                  union over the documents, sorted by name
 * A metric is a key of the entry's "geomean" (a dotted path such as lat.p50):
 * the geometric mean over the entry's repetitions, the only statistic a
 * summary entry holds (per-repetition values stay in the document's points).
 * The entries are those the report reads: the summary recomputed from the
 * document's points (harness/analysis/rundoc.c), never the stored one as
 * it stands, and a document whose stored summary its points contradict (or
 * that contradicts its name) is refused, one line naming it and why, exit
 * 2: a row of a table has no place to say that its numbers are not the
 * document's, and a table of the rest would look complete. The report
 * names the same document and reason; move it out of the directory to
 * export the rest.
 * A cell is empty where a document lacks the parameter or metric, or where
 * the mean is undefined (null). A name that would repeat an earlier column
 * gets a prefix: "param." for a parameter named like a fixed column,
 * "metric." for a metric named like a fixed column or a parameter.
 * Fields are quoted as RFC 4180 says (a field holding a comma, a double quote,
 * CR or LF is put in double quotes, its quotes doubled); lines end in LF. */
#include "alloc.h"
#include "experiment.h"
#include "log.h"
#include "result.h"
#include "rundoc.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fixed_cols[] = {"document", "experiment", "valid", "reps", "emulated",
					 "nic_device", "nic_part_id", "nic_firmware", "host_count"};
#define NFIXED (sizeof fixed_cols / sizeof fixed_cols[0])

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: netmem export RUN_DIR [--csv FILE]\n\n"
		"Writes every summary entry of every result document in RUN_DIR as one CSV\n"
		"table (to stdout, or to FILE with --csv FILE), one row per entry, with a header\n"
		"row. Columns: document, experiment, valid, reps, emulated (Soft-RoCE: an rxe or\n"
		"siw driver or device, a run marked emulated, or no NIC record, as in the CoRM\n"
		"simulator's documents), nic_device, nic_part_id, nic_firmware, host_count (from\n"
		"the last run's metadata, rank 0's NIC); then every parameter (the union over the\n"
		"documents, sorted by name); then every metric (sorted by name): the entry's\n"
		"geometric mean over its repetitions of each dotted metric path (lat.p50, mops).\n"
		"A cell is empty where a document lacks the parameter or metric, or the mean is\n"
		"undefined. A parameter named like a fixed column is written param.NAME, a metric\n"
		"named like a fixed column or a parameter metric.NAME. Fields are quoted as RFC\n"
		"4180 says; lines end in LF. The entries are recomputed from each document's\n"
		"points, as netmem report reads them. No such directory, no result document, a\n"
		"document that does not parse or of an unknown schema version, or one that\n"
		"contradicts itself (its stored summary not what its points give, duplicate\n"
		"parameters) or its name (another config's command line or spec), which the\n"
		"report calls an inconsistent document: one line naming it and why, exit 2.\n");
}

/* One field, quoted when it holds a comma, a quote, CR or LF. */
static void put_field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A JSON value as a cell: strings as they are, reals in their shortest form
 * that reads back to the same double, booleans as true/false, null as
 * nothing, arrays and objects as compact JSON. Returns NULL for empty. */
static char *cell_text(const json_t *v)
{
	char buf[64];
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return nm_strdup(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return nm_strdup(buf);
	}
	if (json_is_real(v)) {
		double x = json_real_value(v);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, x);
			if (strtod(buf, NULL) == x)
				break;
		}
		return nm_strdup(buf);
	}
	if (json_is_boolean(v))
		return nm_strdup(json_is_true(v) ? "true" : "false");
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : nm_strdup("?");
}

static void put_value(FILE *f, const json_t *v)
{
	char *s = cell_text(v);
	put_field(f, s, false);
	free(s);
}

/* A summary entry's metric: geomean is flat already (result.c writes each
 * numeric leaf under its dotted path); a number, or null for an undefined
 * mean, else NULL. */
static const json_t *metric_of(const json_t *geomean, const char *key)
{
	const json_t *v = json_object_get(geomean, key);
	return json_is_number(v) || json_is_null(v) ? v : NULL;
}

/* What a document's rows share: the fixed columns after valid and reps. */
typedef struct doc_cells {
	bool emulated;
	const json_t *device, *part, *firmware;
	json_t *hosts;  /* owned */
} doc_cells;

static doc_cells doc_cells_of(const nm_rundoc *d)
{
	const json_t *meta = nm_rundoc_meta(d);
	const json_t *nic = json_object_get(json_array_get(json_object_get(meta, "ranks"), 0), "nic");
	json_t *hosts = json_object_get(meta, "hosts");
	return (doc_cells){
		/* rundoc's rule (any Soft-RoCE sign, or no NIC record), and a
		 * simulator's document names no NIC either */
		.emulated = d->emulated || d->simulated,
		.device = json_object_get(nic, "device"),
		.part = json_object_get(nic, "vendor_part_id"),
		.firmware = json_object_get(nic, "fw_ver"),
		.hosts = json_is_array(hosts) ? json_integer((json_int_t)json_array_size(hosts)) : NULL,
	};
}

/* The columns after the fixed ones: names sorted, and each one's header. */
typedef struct col_set {
	char **keys;     /* the name in the document */
	char **headers;  /* the header: the name, or prefixed when it repeats one */
	size_t n;
} col_set;

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_fixed(const char *name)
{
	for (size_t i = 0; i < NFIXED; i++)
		if (!strcmp(name, fixed_cols[i]))
			return true;
	return false;
}

/* Sorted column set from a union (object keys); names that are taken
 * (fixed columns, or a key of taken_too) get prefix. */
static col_set col_set_of(const json_t *u, const char *prefix, const json_t *taken_too)
{
	col_set c = {.keys = nm_calloc(json_object_size(u) + 1, sizeof(char *))};
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)u, key, v)
		c.keys[c.n++] = nm_strdup(key);
	qsort(c.keys, c.n, sizeof *c.keys, by_str);
	c.headers = nm_calloc(c.n + 1, sizeof(char *));
	for (size_t i = 0; i < c.n; i++) {
		bool taken = is_fixed(c.keys[i]) || (taken_too && json_object_get(taken_too, c.keys[i]));
		size_t len = strlen(prefix) + strlen(c.keys[i]) + 1;
		c.headers[i] = nm_malloc(len);
		snprintf(c.headers[i], len, "%s%s", taken ? prefix : "", c.keys[i]);
	}
	return c;
}

static void col_set_free(col_set *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->keys[i]);
		free(c->headers[i]);
	}
	free(c->keys);
	free(c->headers);
}

/* Writes the table; returns the number of rows. */
static size_t write_csv(FILE *f, const nm_run *run)
{
	json_t *pu = json_object(), *mu = json_object();
	size_t i, j, rows = 0;
	json_t *e;
	for (i = 0; i < run->ndocs; i++)
		json_array_foreach(run->docs[i].entries, j, e) {
			if (json_is_object(json_object_get(e, "params")))
				json_object_update(pu, json_object_get(e, "params"));
			const char *key;
			json_t *v, *g = json_object_get(e, "geomean");
			json_object_foreach(g, key, v)
				if (metric_of(g, key))
					json_object_set(mu, key, v);
		}
	col_set params = col_set_of(pu, "param.", NULL);
	col_set metrics = col_set_of(mu, "metric.", pu);
	for (i = 0; i < NFIXED; i++)
		put_field(f, fixed_cols[i], i == 0);
	for (i = 0; i < params.n; i++)
		put_field(f, params.headers[i], false);
	for (i = 0; i < metrics.n; i++)
		put_field(f, metrics.headers[i], false);
	fputc('\n', f);
	for (i = 0; i < run->ndocs; i++) {
		const nm_rundoc *d = &run->docs[i];
		doc_cells dc = doc_cells_of(d);
		json_array_foreach(d->entries, j, e) {
			put_field(f, d->name, true);
			put_field(f, d->experiment, false);
			put_value(f, json_object_get(e, "valid"));
			put_value(f, json_object_get(e, "reps"));
			put_field(f, dc.emulated ? "true" : "false", false);
			put_value(f, dc.device);
			put_value(f, dc.part);
			put_value(f, dc.firmware);
			put_value(f, dc.hosts);
			for (size_t k = 0; k < params.n; k++)
				put_value(f, json_object_get(json_object_get(e, "params"), params.keys[k]));
			for (size_t k = 0; k < metrics.n; k++)
				put_value(f, metric_of(json_object_get(e, "geomean"), metrics.keys[k]));
			fputc('\n', f);
			rows++;
		}
		json_decref(dc.hosts);
	}
	col_set_free(&params);
	col_set_free(&metrics);
	json_decref(pu);
	json_decref(mu);
	return rows;
}

static int export_main(int argc, char **argv)
{
	const char *dir = NULL, *csv = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--csv")) {
			if (i + 1 >= argc)
				nm_usage_error("export: --csv needs a file name");
			csv = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			nm_usage_error("export: unknown option '%s' (see netmem export --help)", a);
		} else if (dir) {
			nm_usage_error("export: one run directory only ('%s' and '%s' given)", dir, a);
		} else {
			dir = a;
		}
	}
	if (!dir)
		nm_usage_error("export: name a run directory (see netmem export --help)");
	nm_run run;
	char err[1024];
	if (nm_run_load(dir, &run, err, sizeof err) != 0)
		nm_usage_error("export: %s", err);
	if (!run.ndocs)
		nm_usage_error("export: %s holds no result document (NAME.json with \"experiment\" and \"summary\")", dir);
	for (size_t i = 0; i < run.ndocs; i++)
		if (run.docs[i].inconsistent)
			nm_usage_error("export: %s/%s.json: inconsistent document: %s", dir, run.docs[i].name,
				       run.docs[i].inconsistent);
	bool to_stdout = !csv || !strcmp(csv, "-");
	nm_atomic a;
	if (!to_stdout && nm_atomic_open(&a, csv) != 0)
		nm_usage_error("export: cannot write %s: %s", csv, strerror(errno));
	FILE *f = to_stdout ? stdout : a.f;
	size_t rows = write_csv(f, &run);
	size_t ndocs = run.ndocs;
	nm_run_free(&run);
	if (to_stdout ? fflush(f) != 0 || ferror(f) : nm_atomic_commit(&a) != 0) {
		fprintf(stderr, "netmem: export: cannot write %s: %s\n", to_stdout ? "stdout" : csv,
			strerror(errno ? errno : EIO));
		return NM_EXIT_FAIL;
	}
	if (!to_stdout)
		nm_note("export: %zu row(s) from %zu document(s) written to %s", rows, ndocs, csv);
	return 0;
}

static const nm_experiment export_tool = {
	.name = "export",
	.summary = "one tidy CSV of a run directory's summary entries, for your own analysis",
	.tool_main = export_main,
};
NM_EXPERIMENT(export_tool)
