/* netmem table: turns result documents into whitespace-separated columns
 * that gnuplot reads, one block per series (gnuplot `index`). It reads the
 * "summary" entries, i.e. the geometric mean over repetitions. */
#include "alloc.h"
#include "experiment.h"
#include "log.h"
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
		"       netmem table FILE.json --cdf METRIC [--series PARAM] [--where PARAM=VALUE]...\n"
		"       netmem table FILE.json --describe\n\n"
		"Prints one block per series value (blocks separated by two blank lines, for\n"
		"gnuplot's `index`): a header row \"PARAM SERIES-VALUE\" (for gnuplot's\n"
		"columnheader), then rows \"x y\" sorted by x, from the summary entries\n"
		"(geometric means over repetitions) of the given result documents.\n"
		"--cdf prints, per series value, the [value, fraction] pairs of the array metric\n"
		"METRIC (e.g. lat_cdf) of the first valid point that matches.\n"
		"--describe prints one line naming the hardware behind a document, marked\n"
		"when it is Soft-RoCE (emulated), for figure titles.\n"
		"METRIC is a dotted path into the metrics, e.g. lat.p50, mops, mib_per_sec.\n"
		"Points marked invalid are left out (a note on stderr says so).\n");
}

static char *value_str(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

typedef struct row {
	double x, y;
	char *series;
} row;

static int by_series_x(const void *a, const void *b)
{
	const row *ra = a, *rb = b;
	int c = strcmp(ra->series, rb->series);
	return c ? c : (ra->x > rb->x) - (ra->x < rb->x);
}

static bool matches(json_t *params, const char *const *where, int nwhere);

/* One block per series value: the CDF array of the first matching valid
 * point (repetition 0 first in document order). */
static int print_cdf(const char *path, const char *metric, const char *series,
		     const char *const *where, int nwhere)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc)
		nm_usage_error("table: %s: line %d: %s", path, je.line, je.text);
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
		char *v = value_str(json_object_get(params, key));
		bool ok = v && !strcmp(v, eq + 1);
		free(v);
		if (!ok)
			return false;
	}
	return true;
}

static int describe(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc)
		nm_usage_error("table: %s: line %d: %s", path, je.line, je.text);
	json_t *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	json_t *run = json_array_get(runs, json_array_size(runs) - 1);
	json_t *nic = json_object_get(json_array_get(json_object_get(run, "ranks"), 0), "nic");
	const char *dev = json_string_value(json_object_get(nic, "device"));
	printf("%s: %s, part %" JSON_INTEGER_FORMAT ", fw %s, %s %.0f Gb/s, %" JSON_INTEGER_FORMAT " rank(s)%s\n",
	       json_string_value(json_object_get(doc, "experiment")), dev ? dev : "?",
	       json_integer_value(json_object_get(nic, "vendor_part_id")),
	       json_string_value(json_object_get(nic, "fw_ver")) ? json_string_value(json_object_get(nic, "fw_ver")) : "?",
	       json_string_value(json_object_get(nic, "link_layer")) ? json_string_value(json_object_get(nic, "link_layer")) : "?",
	       json_number_value(json_object_get(nic, "link_gbps")),
	       json_integer_value(json_object_get(run, "nranks")),
	       json_is_true(json_object_get(run, "emulated")) ? " - SOFT-ROCE (EMULATED): NOT HARDWARE NUMBERS" : "");
	json_decref(doc);
	return 0;
}

static int table_main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i + 1], "--describe"))
			return describe(argv[i]);
	const char *x = NULL, *y = NULL, *series = NULL, *cdf = NULL, *where[MAX_WHERE];
	const char *files[256];
	int nwhere = 0, nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		bool takes = !strcmp(a, "--x") || !strcmp(a, "--y") || !strcmp(a, "--series") ||
			     !strcmp(a, "--where") || !strcmp(a, "--cdf");
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
	if (!x || !y || nfiles == 0)
		nm_usage_error("table: needs FILE.json, --x and --y (see netmem table --help)");
	size_t n = 0, cap = 64, invalid = 0;
	row *rows = nm_calloc(cap, sizeof *rows);
	for (int f = 0; f < nfiles; f++) {
		json_error_t je;
		json_t *doc = json_load_file(files[f], 0, &je);
		if (!doc)
			nm_usage_error("table: %s: line %d: %s", files[f], je.line, je.text);
		size_t i;
		json_t *s;
		json_array_foreach(json_object_get(doc, "summary"), i, s) {
			json_t *params = json_object_get(s, "params");
			bool keep = matches(params, where, nwhere);
			if (!keep)
				continue;
			if (!json_is_true(json_object_get(s, "valid"))) {
				invalid++;
				continue;
			}
			json_t *xv = json_object_get(params, x);
			json_t *yv = json_object_get(json_object_get(s, "geomean"), y);
			if (!json_is_number(xv) || !json_is_number(yv))
				continue;
			if (n == cap)
				rows = realloc(rows, (cap *= 2) * sizeof *rows);
			rows[n].x = json_number_value(xv);
			rows[n].y = json_number_value(yv);
			rows[n].series = series ? value_str(json_object_get(params, series)) : strdup("all");
			if (!rows[n].series)
				rows[n].series = strdup("?");
			n++;
		}
		json_decref(doc);
	}
	qsort(rows, n, sizeof *rows, by_series_x);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(rows[i].series, rows[i - 1].series)) {
			if (i)
				printf("\n\n");
			printf("%s %s\n", x, rows[i].series);
		}
		printf("%.10g %.10g\n", rows[i].x, rows[i].y);
	}
	if (invalid)
		fprintf(stderr, "netmem: table: left out %zu invalid point(s)\n", invalid);
	if (n == 0)
		fprintf(stderr, "netmem: table: no rows matched (check --x/--y names and --where)\n");
	for (size_t i = 0; i < n; i++)
		free(rows[i].series);
	free(rows);
	return 0;
}

static const nm_experiment table_tool = {
	.name = "table",
	.summary = "extract columns from result documents for plotting",
	.tool_main = table_main,
};
NM_EXPERIMENT(table_tool)
