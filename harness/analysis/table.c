/* netmem table: turns result documents into whitespace-separated columns
 * that gnuplot reads, one block per series (gnuplot `index`). It reads the
 * "summary" entries, i.e. the geometric mean over repetitions. */
#include "alloc.h"
#include "experiment.h"
#include "log.h"
#include "rundoc.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WHERE 16

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: netmem table FILE.json... --x PARAM --y METRIC [--series PARAM] [--where PARAM=VALUE]...\n"
		"                    [--relative-to PARAM=VALUE] [--mean-over PARAM]\n"
		"       netmem table FILE.json --cdf METRIC [--series PARAM] [--where PARAM=VALUE]...\n"
		"       netmem table FILE.json... --values PARAM [--where PARAM=VALUE]...\n"
		"       netmem table FILE.json... --describe\n\n"
		"Prints one block per series value (blocks separated by two blank lines, for\n"
		"gnuplot's `index`): a header row \"PARAM SERIES-VALUE\" (for gnuplot's\n"
		"columnheader), then rows \"x y\" sorted by x, from the summary entries\n"
		"(geometric means over repetitions) of the given result documents.\n"
		"--cdf prints, per series value, the [value, fraction] pairs of the array metric\n"
		"METRIC (e.g. lat_cdf) of the first valid point that matches.\n"
		"--values prints, on one line, the distinct values of PARAM over the valid, measured\n"
		"(not skipped) summary entries that match (numbers ascending, other values in first-seen order): a\n"
		"figure's panels and series, e.g. ALock Fig. 5's node and lock counts.\n"
		"--describe prints one line naming the hardware behind the documents (the last one's\n"
		"device, part, firmware, link; every one's rank count), marked when it is Soft-RoCE\n"
		"(emulated) and when points\n"
		"are invalid (\"N of M points INVALID, not drawn\"), for figure titles.\n"
		"--relative-to PARAM=VALUE divides each y by the y of the entry whose parameters\n"
		"are the same except PARAM=VALUE (a speedup; entries without one are left out).\n"
		"--mean-over PARAM averages (arithmetic mean) the rows of one series and x that\n"
		"differ only in PARAM, e.g. ALock Fig. 4's speedup averaged over localities.\n"
		"PARAM may be ranks, the job's rank count, where the config has no such parameter:\n"
		"a config sweeping its rank count writes one document per count (NAME.nR.json);\n"
		"and cpu_model, the CPU model of rank 0's host (the document's meta; the server's\n"
		"in netmem corm), so that documents of two clusters drawn together are told apart\n"
		"by their CPU (CoRM Fig. 15's collection, Intel against AMD); and what the\n"
		"experiment derives from a point's parameters and the rank count (netmem corm:\n"
		"clients, the client threads of every client rank). A series value with\n"
		"a blank in it is double-quoted in its header row, one column for gnuplot.\n"
		"METRIC is a dotted path into the metrics, e.g. lat.p50, mops, mib_per_sec.\n"
		"Points marked invalid are left out (a note on stderr says so, and --describe,\n"
		"which every figure's title shows, counts them).\n");
}

/* A parameter as a label and for --where: reals in their shortest form
 * ("0.05", "0"), not jansson's 17 digits ("0.050000000000000003", "0.0"),
 * so a figure's legend and a --where read as the value was written. */
static char *value_str(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_real(v)) {
		char buf[40];
		snprintf(buf, sizeof buf, "%.15g", json_real_value(v));
		return strdup(buf);
	}
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* --where's VALUE against a parameter: the same text, or the same number
 * (a real parameter of 0 matches "0" and "0.0"). */
static bool value_is(const json_t *v, const char *want)
{
	char *s = value_str(v);
	bool ok = s && !strcmp(s, want);
	free(s);
	if (ok || !json_is_number(v))
		return ok;
	char *end;
	double w = strtod(want, &end);
	return end != want && *end == 0 && w == json_number_value(v);
}

typedef struct row {
	double x, y;
	char *series;
	json_t *params;   /* the summary entry's (a reference) */
	json_t *doc;      /* its document, kept alive while rows are */
} row;

static int by_series_x(const void *a, const void *b)
{
	const row *ra = a, *rb = b;
	int c = strcmp(ra->series, rb->series);
	return c ? c : (ra->x > rb->x) - (ra->x < rb->x);
}

static bool matches(json_t *params, const char *const *where, int nwhere);

/* A result document, its entries' params given "ranks", the job's rank count,
 * where the config has no such parameter: a config sweeping its rank count
 * (one node per rank) writes one document per count, and a figure drawing
 * them together tells them apart by it (--x, --series, --where, --values).
 * Likewise "cpu_model", rank 0's host CPU: documents of two clusters drawn
 * together (CoRM Fig. 15's Intel and AMD collection) are told apart by it;
 * and what the experiment derives (nm_params_derive: CoRM's clients). */
static json_t *load_doc(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc)
		nm_usage_error("table: %s: line %d: %s", path, je.line, je.text);
	json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	json_t *run = json_array_get(runs, json_array_size(runs) - 1);
	json_t *nranks = json_object_get(run, "nranks");
	json_t *cpu = json_object_get(json_array_get(json_object_get(run, "ranks"), 0), "cpu_model");
	static const char *const lists[] = {"summary", "points"};
	for (size_t l = 0; l < 2; l++) {
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(doc, lists[l]), i, e) {
			json_t *params = json_object_get(e, "params");
			if (!json_is_object(params))
				continue;
			if (json_is_integer(nranks) && !json_object_get(params, "ranks"))
				json_object_set(params, "ranks", nranks);
			if (json_is_string(cpu) && !json_object_get(params, "cpu_model"))
				json_object_set(params, "cpu_model", cpu);
			nm_params_derive(json_string_value(json_object_get(doc, "experiment")), params,
					 (int)json_integer_value(nranks));
		}
	}
	return doc;
}

/* One block per series value: the CDF array of the first matching valid
 * point (repetition 0 first in document order). */
static int print_cdf(const char *path, const char *metric, const char *series,
		     const char *const *where, int nwhere)
{
	json_t *doc = load_doc(path);
	json_t *seen = json_object();
	size_t i, blocks = 0;
	json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p) {
		json_t *params = json_object_get(p, "params");
		if (!json_is_true(json_object_get(p, "valid")) || !matches(params, where, nwhere))
			continue;
		char *sv = series ? value_str(json_object_get(params, series)) : strdup("all");
		json_t *cdf = json_object_get(json_object_get(p, "metrics"), metric);
		if (sv && json_is_array(cdf) && !json_object_get(seen, sv)) {
			json_object_set_new(seen, sv, json_true());
			printf("%s%s %s\n", blocks++ ? "\n\n" : "", metric, sv);
			size_t k;
			json_t *pair;
			json_array_foreach(cdf, k, pair)
				printf("%.10g %.10g\n", json_number_value(json_array_get(pair, 0)),
				       json_number_value(json_array_get(pair, 1)));
		}
		free(sv);
	}
	if (!blocks)
		fprintf(stderr, "netmem: table: no valid point with '%s' matched\n", metric);
	json_decref(seen);
	json_decref(doc);
	return 0;
}

static bool matches(json_t *params, const char *const *where, int nwhere)
{
	for (int w = 0; w < nwhere; w++) {
		const char *eq = strchr(where[w], '=');
		char key[128];
		snprintf(key, sizeof key, "%.*s", (int)(eq - where[w]), where[w]);
		if (!value_is(json_object_get(params, key), eq + 1))
			return false;
	}
	return true;
}

static int by_number(const void *a, const void *b)
{
	double x = json_number_value(*(json_t *const *)a), y = json_number_value(*(json_t *const *)b);
	return (x > y) - (x < y);
}

/* --values PARAM: the distinct values of PARAM over the valid entries. */
static int print_values(const char *const *files, int nfiles, const char *param, const char *const *where, int nwhere)
{
	json_t *seen = json_array();
	bool numeric = true;
	for (int f = 0; f < nfiles; f++) {
		json_t *doc = load_doc(files[f]);
		size_t i, k;
		json_t *s, *v;
		json_array_foreach(json_object_get(doc, "summary"), i, s) {
			json_t *pv = json_object_get(json_object_get(s, "params"), param);
			/* a skipped point (a placement this host lacks) has nothing to draw */
			if (!pv || !json_is_true(json_object_get(s, "valid")) || !json_object_size(json_object_get(s, "geomean")) ||
			    !matches(json_object_get(s, "params"), where, nwhere))
				continue;
			bool dup = false;
			json_array_foreach(seen, k, v)
				dup |= json_equal(v, pv);
			if (!dup) {
				json_array_append(seen, pv);
				numeric &= json_is_number(pv);
			}
		}
		json_decref(doc);
	}
	size_t n = json_array_size(seen);
	json_t **vals = nm_calloc(n ? n : 1, sizeof *vals);
	for (size_t i = 0; i < n; i++)
		vals[i] = json_array_get(seen, i);
	if (numeric)
		qsort(vals, n, sizeof *vals, by_number);
	for (size_t i = 0; i < n; i++) {
		char *sv = value_str(vals[i]);
		printf("%s%s", i ? " " : "", sv);
		free(sv);
	}
	printf("\n");
	free(vals);
	json_decref(seen);
	return 0;
}

/* Summary entries marked invalid, of all: a figure's title says how many
 * it does not draw, so a failed point is never just a gap. */
static size_t invalid_entries(const json_t *doc, size_t *all)
{
	size_t i, bad = 0;
	json_t *s;
	*all = json_array_size(json_object_get(doc, "summary"));
	json_array_foreach(json_object_get(doc, "summary"), i, s)
		bad += !json_is_true(json_object_get(s, "valid"));
	return bad;
}

/* The job's rank count of each document, distinct, in order ("2, 3": a
 * config sweeping its rank count drawn in one figure). */
static void rank_counts(const char *const *files, int nfiles, char *buf, size_t len)
{
	json_int_t seen[64];
	int nseen = 0;
	buf[0] = '\0';
	for (int f = 0; f < nfiles && nseen < 64; f++) {
		json_t *doc = load_doc(files[f]);
		json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
		json_int_t r = json_integer_value(json_object_get(json_array_get(runs, json_array_size(runs) - 1), "nranks"));
		bool dup = false;
		for (int k = 0; k < nseen; k++)
			dup |= seen[k] == r;
		if (!dup) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, "%s%" JSON_INTEGER_FORMAT, nseen ? ", " : "", r);
			seen[nseen++] = r;
		}
		json_decref(doc);
	}
}

/* The hardware behind the documents: the last one's NIC, every one's rank count. */
static int describe(const char *const *files, int nfiles)
{
	const char *path = files[nfiles - 1];
	char ranks[256];
	rank_counts(files, nfiles, ranks, sizeof ranks);
	json_t *doc = load_doc(path);
	json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	json_t *run = json_array_get(runs, json_array_size(runs) - 1);
	json_t *nic = json_object_get(json_array_get(json_object_get(run, "ranks"), 0), "nic");
	const char *dev = json_string_value(json_object_get(nic, "device"));
	char part[64], bad[96] = "";
	size_t all, invalid = invalid_entries(doc, &all);
	nm_nic_part_name(nic, part, sizeof part);
	if (invalid)
		snprintf(bad, sizeof bad, " - %zu of %zu points INVALID, not drawn", invalid, all);
	printf("%s: %s, %s, fw %s, %s %.0f Gb/s, %s rank(s)%s%s\n",
	       json_string_value(json_object_get(doc, "experiment")), dev ? dev : "?", part,
	       json_string_value(json_object_get(nic, "fw_ver")) ? json_string_value(json_object_get(nic, "fw_ver")) : "?",
	       json_string_value(json_object_get(nic, "link_layer")) ? json_string_value(json_object_get(nic, "link_layer")) : "?",
	       json_number_value(json_object_get(nic, "link_gbps")),
	       ranks, nm_doc_emulated(doc) ? " - SOFT-ROCE (EMULATED): NOT HARDWARE NUMBERS" : "", bad);
	json_decref(doc);
	return 0;
}

/* Every valid summary entry matching --where with a numeric x and y. */
static row *collect(const char *const *files, int nfiles, const char *x, const char *y, const char *series,
		    const char *const *where, int nwhere, size_t *n, size_t *invalid)
{
	size_t cap = 64;
	row *rows = nm_calloc(cap, sizeof *rows);
	for (int f = 0; f < nfiles; f++) {
		json_t *doc = load_doc(files[f]);
		size_t i;
		json_t *s;
		json_array_foreach(json_object_get(doc, "summary"), i, s) {
			json_t *params = json_object_get(s, "params");
			if (!matches(params, where, nwhere))
				continue;
			if (!json_is_true(json_object_get(s, "valid"))) {
				(*invalid)++;
				continue;
			}
			json_t *xv = json_object_get(params, x);
			json_t *yv = json_object_get(json_object_get(s, "geomean"), y);
			if (!json_is_number(xv) || !json_is_number(yv))
				continue;
			if (*n == cap)
				rows = nm_realloc(rows, (cap *= 2) * sizeof *rows);
			char *sv = series ? value_str(json_object_get(params, series)) : NULL;
			rows[(*n)++] = (row){.x = json_number_value(xv), .y = json_number_value(yv),
					     .series = sv ? sv : nm_strdup(series ? "?" : "all"),
					     .params = params, .doc = json_incref(doc)};
		}
		json_decref(doc);
	}
	return rows;
}

static void free_rows(row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].series);
		json_decref(rows[i].doc);
	}
	free(rows);
}

/* Do a and b differ in nothing but `skip`? */
static bool same_params_but(const json_t *a, const json_t *b, const char *skip)
{
	json_t *ca = json_deep_copy(a), *cb = json_deep_copy(b);
	json_object_del(ca, skip);
	json_object_del(cb, skip);
	bool eq = json_equal(ca, cb);
	json_decref(ca);
	json_decref(cb);
	return eq;
}

/* --relative-to PARAM=VALUE: y over the y of the baseline entry; rows with
 * no baseline are dropped. Returns the rows kept. */
static size_t relative_to(row *rows, size_t n, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char param[128];
	snprintf(param, sizeof param, "%.*s", (int)(eq - spec), spec);
	double *base = nm_calloc(n ? n : 1, sizeof *base);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n && base[i] == 0; k++) {
			char *v = value_str(json_object_get(rows[k].params, param));
			if (v && !strcmp(v, eq + 1) && rows[k].y > 0 && same_params_but(rows[i].params, rows[k].params, param))
				base[i] = rows[k].y;
			free(v);
		}
	size_t kept = 0, dropped = 0;
	for (size_t i = 0; i < n; i++) {
		if (base[i] > 0) {
			rows[i].y /= base[i];
			rows[kept++] = rows[i];
		} else {
			free(rows[i].series);
			json_decref(rows[i].doc);
			dropped++;
		}
	}
	if (dropped)
		fprintf(stderr, "netmem: table: left out %zu entr%s without a %s baseline\n", dropped,
			dropped == 1 ? "y" : "ies", spec);
	free(base);
	return kept;
}

/* --mean-over PARAM on rows sorted by series and x: one row per (series, x),
 * the mean of a run of rows that differ only in PARAM. Rows of one (series,
 * x) that differ in another parameter too would be averaged silently into a
 * wrong figure: that is a usage error naming the parameter. */
static size_t mean_rows(row *rows, size_t n, const char *x, const char *param)
{
	size_t out = 0;
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		double sum = rows[i].y;
		while (k < n && rows[k].x == rows[i].x && !strcmp(rows[k].series, rows[i].series)) {
			json_t *a = json_deep_copy(rows[i].params);
			json_object_del(a, x);
			json_t *b = json_deep_copy(rows[k].params);
			json_object_del(b, x);
			bool ok = same_params_but(a, b, param);
			json_decref(a);
			json_decref(b);
			if (!ok)
				nm_usage_error("table: --mean-over %s: rows at %s=%g also differ in another "
					       "parameter; fix it with --where or --series", param, x, rows[i].x);
			sum += rows[k++].y;
		}
		row r = rows[i];
		r.y = sum / (double)(k - i);
		for (size_t d = i + 1; d < k; d++) {
			free(rows[d].series);
			json_decref(rows[d].doc);
		}
		rows[out++] = r;
		i = k;
	}
	return out;
}

static int table_main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i + 1], "--describe"))
			return describe((const char *const *)argv + 1, i);
	const char *x = NULL, *y = NULL, *series = NULL, *cdf = NULL, *where[MAX_WHERE];
	const char *relative = NULL, *mean_over = NULL, *values = NULL;
	const char *files[256];
	int nwhere = 0, nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		bool takes = !strcmp(a, "--x") || !strcmp(a, "--y") || !strcmp(a, "--series") ||
			     !strcmp(a, "--where") || !strcmp(a, "--cdf") || !strcmp(a, "--relative-to") ||
			     !strcmp(a, "--mean-over") || !strcmp(a, "--values");
		if (takes && i + 1 >= argc)
			nm_usage_error("table: %s needs a value", a);
		if (!strcmp(a, "--x"))
			x = argv[++i];
		else if (!strcmp(a, "--y"))
			y = argv[++i];
		else if (!strcmp(a, "--series"))
			series = argv[++i];
		else if (!strcmp(a, "--cdf"))
			cdf = argv[++i];
		else if (!strcmp(a, "--relative-to"))
			relative = argv[++i];
		else if (!strcmp(a, "--mean-over"))
			mean_over = argv[++i];
		else if (!strcmp(a, "--values"))
			values = argv[++i];
		else if (!strcmp(a, "--where")) {
			if (nwhere == MAX_WHERE || !strchr(argv[i + 1], '='))
				nm_usage_error("table: --where takes PARAM=VALUE (at most %d)", MAX_WHERE);
			where[nwhere++] = argv[++i];
		} else if (a[0] == '-')
			nm_usage_error("table: unknown option '%s' (see netmem table --help)", a);
		else if (nfiles < 256)
			files[nfiles++] = a;
	}
	if (cdf && nfiles == 1)
		return print_cdf(files[0], cdf, series, where, nwhere);
	if (values && nfiles > 0)
		return print_values(files, nfiles, values, where, nwhere);
	if (!x || !y || nfiles == 0)
		nm_usage_error("table: needs FILE.json, --x and --y (see netmem table --help)");
	if (relative && !strchr(relative, '='))
		nm_usage_error("table: --relative-to takes PARAM=VALUE");
	size_t n = 0, invalid = 0;
	row *rows = collect(files, nfiles, x, y, series, where, nwhere, &n, &invalid);
	if (relative)
		n = relative_to(rows, n, relative);
	qsort(rows, n, sizeof *rows, by_series_x);
	if (mean_over)
		n = mean_rows(rows, n, x, mean_over);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(rows[i].series, rows[i - 1].series)) {
			if (i)
				printf("\n\n");
			printf(strpbrk(rows[i].series, " \t") ? "%s \"%s\"\n" : "%s %s\n", x, rows[i].series);
		}
		printf("%.10g %.10g\n", rows[i].x, rows[i].y);
	}
	if (invalid)
		fprintf(stderr, "netmem: table: left out %zu invalid point(s)\n", invalid);
	if (n == 0)
		fprintf(stderr, "netmem: table: no rows matched (check --x/--y names and --where)\n");
	free_rows(rows, n);
	return 0;
}

static const nm_experiment table_tool = {
	.name = "table",
	.summary = "extract columns from result documents for plotting",
	.tool_main = table_main,
};
NM_EXPERIMENT(table_tool)
