/* netmem compare RUN_A RUN_B ...: the same experiments from several runs
 * (a ConnectX-3 and a ConnectX-5 cluster, say) side by side. For every
 * document name all runs hold, its summary entries are matched on the
 * parameters the runs share, a table of each run's value over the first
 * run's is printed, and one figure per experiment overlays the runs, each
 * labelled by its NIC. Parameters whose values the runs do not share
 * (a duration, a device name) are left out of the matching and listed. */
#include "alloc.h"
#include "experiment.h"
#include "log.h"
#include "result.h"
#include "rundoc.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMP_MAX_RUNS 8

/* The metric a figure shows when --y is not given: the first of these the
 * document has. */
static const char *const preferred_metrics[] = {"mops", "txns_per_sec", "ops_per_sec", "lat.p50", "lat.mean",
						"reduction", "probability"};

typedef enum key_kind {
	KEY_SAME,      /* every run has the same values */
	KEY_COMMON,    /* some values shared: compared on those */
	KEY_IGNORED,   /* no value shared by all runs: left out of the matching */
} key_kind;
static const char *const key_kind_names[] = {
	[KEY_SAME] = "same", [KEY_COMMON] = "compared on the values all runs have", [KEY_IGNORED] = "differs: not matched on",
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: netmem compare RUN_A RUN_B [RUN...] [--out DIR] [--y METRIC]\n\n"
		"For every result document all runs hold (same name, same experiment), matches\n"
		"the summary entries on the parameters the runs share and prints, per matched\n"
		"point, each run's value of METRIC (default: the first of mops, txns_per_sec,\n"
		"ops_per_sec, lat.p50, lat.mean, reduction, probability the document has) and its\n"
		"ratio to the first run's. Parameters with no value common to all runs (a\n"
		"duration, a device) are left out of the matching and listed. Draws DIR/NAME.png\n"
		"and DIR/NAME.svg (default DIR: compare), one line per run, labelled by the run's\n"
		"NIC (device, firmware, link), from any working directory. Runs of different\n"
		"schema versions, or of a schema other than " NM_RESULT_SCHEMA " (a tool's document\n"
		"without one, corm-sim's, is read), or with no document or point in common, are\n"
		"refused with one line (exit 2), after the tables printed so far;\n"
		"a figure that could not be drawn (see DIR/NAME.gnuplot.log) makes the exit\n"
		"status 1.\n");
}

static char *canon(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : nm_strdup("?");
}

/* The set of values (canonical strings, as object keys) of key in a document's entries. */
static json_t *value_set(const nm_rundoc *d, const char *key)
{
	json_t *set = json_object();
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(d->doc, "summary"), i, e) {
		json_t *v = json_object_get(json_object_get(e, "params"), key);
		char *c = canon(v ? v : json_null());
		json_object_set_new(set, c, json_true());
		free(c);
	}
	return set;
}

static key_kind classify_key(const nm_rundoc *const *docs, int nruns, const char *key, char *diff, size_t len)
{
	json_t *sets[CMP_MAX_RUNS];
	bool same = true;
	for (int r = 0; r < nruns; r++) {
		sets[r] = value_set(docs[r], key);
		same &= json_equal(sets[r], sets[0]);
	}
	size_t common = 0;
	const char *v;
	json_t *t;
	json_object_foreach(sets[0], v, t) {
		bool all = true;
		for (int r = 1; r < nruns; r++)
			all &= json_object_get(sets[r], v) != NULL;
		common += all;
	}
	diff[0] = '\0';
	for (int r = 0; r < nruns && !same; r++) {
		size_t used = strlen(diff);
		snprintf(diff + used, len - used, "%s%c=[", r ? ", " : "", 'A' + r);
		bool first = true;
		json_object_foreach(sets[r], v, t) {
			used = strlen(diff);
			snprintf(diff + used, len - used, "%s%s", first ? "" : ",", v);
			first = false;
		}
		used = strlen(diff);
		snprintf(diff + used, len - used, "]");
	}
	for (int r = 0; r < nruns; r++)
		json_decref(sets[r]);
	return same ? KEY_SAME : common ? KEY_COMMON : KEY_IGNORED;
}

/* The entry's params without the ignored keys, canonical: what matches. */
static char *match_key(const json_t *entry, const json_t *ignored)
{
	json_t *p = json_deep_copy(json_object_get(entry, "params"));
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)ignored, k, v)
		json_object_del(p, k);
	char *c = canon(p);
	json_decref(p);
	return c;
}

static const json_t *find_entry(const nm_rundoc *d, const char *key, const json_t *ignored, size_t *count)
{
	const json_t *hit = NULL;
	size_t i;
	json_t *e;
	*count = 0;
	json_array_foreach(json_object_get(d->doc, "summary"), i, e) {
		char *c = match_key(e, ignored);
		if (!strcmp(c, key)) {
			hit = e;
			(*count)++;
		}
		free(c);
	}
	return hit;
}

/* --y when some entry of the document has it, else the first preferred
 * metric one has; NULL when none. */
static const char *pick_metric(const nm_rundoc *d, const char *want)
{
	size_t i, n = want ? 1 : sizeof preferred_metrics / sizeof *preferred_metrics;
	json_t *e;
	for (size_t m = 0; m < n; m++)
		json_array_foreach(json_object_get(d->doc, "summary"), i, e) {
			double v;
			const char *name = want ? want : preferred_metrics[m];
			if (nm_entry_metric(e, name, &v))
				return name;
		}
	return NULL;
}

/* The label of a matched point: its swept (non-SAME) parameters. */
static void point_label(const json_t *entry, const json_t *swept, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)swept, k, v) {
		char *s = canon(json_object_get(json_object_get(entry, "params"), k));
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", k, s);
		free(s);
	}
	for (char *c = buf; *c; c++)
		if (*c == '"')
			*c = '\'';
	if (!buf[0])
		snprintf(buf, len, "(one point)");
}

/* Bad input: stdout's tables first (a file or a pipe too), then one line, exit 2. */
static _Noreturn void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void refuse(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout);
	nm_usage_error("compare: %s", msg);
}

typedef struct cmp_opts {
	const char *out, *metric;
	char plot[PATH_MAX + 32], term[PATH_MAX + 32];
	bool failed;  /* a figure could not be drawn */
} cmp_opts;

/* gnuplot's single-quoted string of s ('' for a quote). */
static void gp_quote(char *buf, size_t len, const char *s)
{
	size_t j = 0;
	for (; *s && j + 3 < len; s++) {
		if (*s == '\'')
			buf[j++] = '\'';
		buf[j++] = *s;
	}
	buf[j] = '\0';
}

/* Runs gnuplot on script with the variables set, its output into log;
 * true when it exited 0. */
static bool gnuplot(const char *script, const char *vars, const char *log, bool append)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("gnuplot", "gnuplot", "-e", vars, script, (char *)NULL);
		dprintf(STDERR_FILENO, "netmem compare: cannot run gnuplot: %s\n", strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Draws the document's figures; false when one failed. */
static bool draw(const cmp_opts *o, const char *name, const char *metric, const char *dat, const char *exp)
{
	static const char *const ext[] = {"png", "svg"};
	char log[PATH_MAX], q[5][2 * PATH_MAX], title[1024];
	bool ok = true;
	snprintf(log, sizeof log, "%s/%s.gnuplot.log", o->out, name);
	snprintf(title, sizeof title, "%s (%s): %s by run", name, exp, metric);
	gp_quote(q[0], sizeof q[0], dat);
	gp_quote(q[2], sizeof q[2], title);
	gp_quote(q[3], sizeof q[3], metric);
	gp_quote(q[4], sizeof q[4], o->term);
	for (int k = 0; k < 2; k++) {
		char out[PATH_MAX], vars[12 * PATH_MAX];
		snprintf(out, sizeof out, "%s/%s.%s", o->out, name, ext[k]);
		gp_quote(q[1], sizeof q[1], out);
		snprintf(vars, sizeof vars, "in='%s'; out='%s'; ttl='%s'; ylab='%s'; termgp='%s'", q[0], q[1], q[2], q[3],
			 q[4]);
		if (gnuplot(o->plot, vars, log, k > 0)) {
			printf("figure %s\n", out);
		} else {
			fflush(stdout);
			fprintf(stderr, "netmem: compare: drawing %s failed (see %s)\n", out, log);
			ok = false;
		}
	}
	return ok;
}

/* One document name held by every run: 1 when some point matched, 0 when
 * none did, -1 when the document has no metric to compare (not --y's). */
static int compare_doc(cmp_opts *o, const nm_rundoc *const *docs, int nruns, const char *const *labels)
{
	const char *metric = pick_metric(docs[0], o->metric);
	if (!metric)
		return -1;
	json_t *keys = json_object(), *ignored = json_object(), *swept = json_object();
	for (int r = 0; r < nruns; r++) {
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(docs[r]->doc, "summary"), i, e)
			json_object_update(keys, json_object_get(e, "params"));
	}
	printf("== %s (experiment %s): %s, each run over A\n", docs[0]->name, docs[0]->experiment, metric);
	for (int r = 0; r < nruns; r++)
		printf("   run %c: %s\n", 'A' + r, labels[r]);
	const char *k;
	json_t *v;
	json_object_foreach(keys, k, v) {
		char diff[1024];
		key_kind kind = classify_key(docs, nruns, k, diff, sizeof diff);
		if (kind == KEY_IGNORED)
			json_object_set_new(ignored, k, json_true());
		if (kind != KEY_SAME)
			printf("   parameter %s %s: %s\n", k, key_kind_names[kind], diff);
		json_t *set = value_set(docs[0], k);
		if (kind != KEY_IGNORED && json_object_size(set) > 1)
			json_object_set_new(swept, k, json_true());
		json_decref(set);
	}
	char dat[PATH_MAX];
	snprintf(dat, sizeof dat, "%s/%s.dat", o->out, docs[0]->name);
	FILE *f = fopen(dat, "w");
	if (!f)
		refuse("cannot write %s: %s", dat, strerror(errno));
	/* rows[r]: run r's block of the data file, built as the points match */
	char *rows[CMP_MAX_RUNS] = {0};
	size_t lens[CMP_MAX_RUNS] = {0}, matched = 0, i;
	FILE *blocks[CMP_MAX_RUNS];
	for (int r = 0; r < nruns; r++)
		blocks[r] = open_memstream(&rows[r], &lens[r]);
	json_t *e;
	json_array_foreach(json_object_get(docs[0]->doc, "summary"), i, e) {
		double val[CMP_MAX_RUNS];
		if (!nm_entry_metric(e, metric, &val[0]))
			continue;
		char *key = match_key(e, ignored);
		bool all = true;
		for (int r = 1; r < nruns && all; r++) {
			size_t count;
			const json_t *m = find_entry(docs[r], key, ignored, &count);
			all = count == 1 && nm_entry_metric(m, metric, &val[r]);
		}
		free(key);
		if (!all)
			continue;
		char label[512];
		point_label(e, swept, label, sizeof label);
		printf("   %-60s A %-10.4g", label, val[0]);
		for (int r = 1; r < nruns; r++)
			printf(" %c %-10.4g %c/A %.3f", 'A' + r, val[r], 'A' + r, val[r] / val[0]);
		printf("\n");
		for (int r = 0; r < nruns; r++)
			fprintf(blocks[r], "%zu %.10g \"%s\"\n", matched, val[r], label);
		matched++;
	}
	for (int r = 0; r < nruns; r++) {
		fclose(blocks[r]);
		fprintf(f, "%s\"point\" \"%c: %s\"\n%s", r ? "\n\n" : "", 'A' + r, labels[r], rows[r]);
		free(rows[r]);
	}
	fclose(f);
	printf("   %zu point(s) matched\n", matched);
	if (matched && !draw(o, docs[0]->name, metric, dat, docs[0]->experiment))
		o->failed = true;
	json_decref(keys);
	json_decref(ignored);
	json_decref(swept);
	return matched > 0;
}

/* Documents of another schema are refused, and so are runs that disagree on one. */
static void check_schemas(const nm_run *runs, const char *const *dirs, int nruns)
{
	for (int r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].ndocs; i++) {
			const nm_rundoc *d = &runs[r].docs[i];
			const json_t *s = json_object_get(d->doc, "schema");
			if (s && (!json_is_string(s) || strcmp(json_string_value(s), NM_RESULT_SCHEMA)))
				refuse("%s/%s.json is schema %s; this netmem reads %s (and tool documents without a "
				       "schema): compare it with the netmem that wrote it", dirs[r], d->name,
				       json_is_string(s) ? json_string_value(s) : "(not a string)", NM_RESULT_SCHEMA);
			for (int q = 0; q < r; q++) {
				const nm_rundoc *e = nm_run_find(&runs[q], d->name);
				if (e && strcmp(e->schema, d->schema))
					refuse("%s/%s.json is schema %s but %s/%s.json is %s: runs of different schema "
					       "versions cannot be compared", dirs[q], e->name, e->schema, dirs[r], d->name,
					       d->schema);
			}
		}
}

static int compare_main(int argc, char **argv)
{
	cmp_opts o = {.out = "compare"};
	const char *dirs[CMP_MAX_RUNS];
	int nruns = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if ((!strcmp(a, "--out") || !strcmp(a, "--y")) && i + 1 >= argc)
			refuse("%s needs a value", a);
		if (!strcmp(a, "--out"))
			o.out = argv[++i];
		else if (!strcmp(a, "--y"))
			o.metric = argv[++i];
		else if (a[0] == '-')
			refuse("unknown option '%s' (see netmem compare --help)", a);
		else if (nruns == CMP_MAX_RUNS)
			refuse("at most %d runs", CMP_MAX_RUNS);
		else
			dirs[nruns++] = a;
	}
	if (nruns < 2)
		refuse("needs two or more run directories (see netmem compare --help)");
	nm_run runs[CMP_MAX_RUNS];
	char err[512];
	for (int r = 0; r < nruns; r++)
		if (nm_run_load(dirs[r], &runs[r], err, sizeof err) != 0)
			refuse("%s", err);
	check_schemas(runs, dirs, nruns);
	/* Documents every run holds, checked before anything is written. */
	int shared = 0;
	for (size_t i = 0; i < runs[0].ndocs; i++) {
		const nm_rundoc *d0 = &runs[0].docs[i];
		bool all = true;
		for (int r = 1; r < nruns && all; r++) {
			const nm_rundoc *d = nm_run_find(&runs[r], d0->name);
			all = d && d->experiment && d0->experiment && !strcmp(d->experiment, d0->experiment);
		}
		shared += all;
	}
	if (!shared)
		refuse("%s and the other runs hold no result document in common", dirs[0]);
	if (mkdir(o.out, 0777) != 0 && errno != EEXIST)
		refuse("cannot create %s: %s", o.out, strerror(errno));
	char where[PATH_MAX + 32];
	snprintf(o.plot, sizeof o.plot, "%s", nm_suite_file("plots/compare.gp", where, sizeof where));
	snprintf(o.term, sizeof o.term, "%s", nm_suite_file("plots/term.gp", where, sizeof where));
	int matched = 0;
	int with_metric = 0;
	for (size_t i = 0; i < runs[0].ndocs; i++) {
		const nm_rundoc *docs[CMP_MAX_RUNS];
		char label_buf[CMP_MAX_RUNS][512];
		const char *labels[CMP_MAX_RUNS];
		bool all = true;
		for (int r = 0; r < nruns && all; r++) {
			docs[r] = nm_run_find(&runs[r], runs[0].docs[i].name);
			all = docs[r] && !strcmp(docs[r]->experiment, runs[0].docs[i].experiment);
			if (all) {
				nm_rundoc_nic_label(docs[r], label_buf[r], sizeof label_buf[r]);
				labels[r] = label_buf[r];
			}
		}
		if (!all)
			continue;
		int got = compare_doc(&o, docs, nruns, labels);
		if (got < 0)
			continue;
		with_metric++;
		matched += got;
	}
	for (int r = 0; r < nruns; r++)
		nm_run_free(&runs[r]);
	if (!with_metric && o.metric)
		refuse("--y %s: no document the runs share has that metric (a key of summary[].geomean, "
			       "e.g. ops_per_sec or lat.p50)", o.metric);
	if (!with_metric)
		refuse("the documents the runs share have none of the metrics compare draws by default; "
			       "name one with --y");
	if (!matched)
		refuse("the runs hold no valid point with the same parameters (see the parameters listed above)");
	return o.failed ? NM_EXIT_FAIL : 0;
}

static const nm_experiment compare_tool = {
	.name = "compare",
	.summary = "overlay the same experiments from several runs (NICs side by side), ratios per point",
	.tool_main = compare_main,
};
NM_EXPERIMENT(compare_tool)
