/* netmem compare RUN_A RUN_B ...: the same experiments from several runs
 * (a ConnectX-3 and a ConnectX-5 cluster, say) side by side. For every
 * document name all runs hold, its summary entries are paired one to one on
 * their parameters (compare_match.c), a table of each run's value over the
 * first run's is printed, and one figure per experiment overlays the runs,
 * each labelled by its NIC. A parameter with no value common to the runs (a
 * duration, a device name, a node count) is refused unless the user names
 * it with --ignore; what is not compared is listed with the reason. */
#include "alloc.h"
#include "compare.h"
#include "durable.h"
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

typedef struct cmp_opts {
	const char *out, *metric;
	json_t *ignore;  /* the --ignore names (object) */
	cmp_per per;
	char plot[PATH_MAX + 32], term[PATH_MAX + 32];
} cmp_opts;

static const char *const per_names[] = {[CMP_PER_NONE] = "", [CMP_PER_NODE] = "node", [CMP_PER_THREAD] = "thread"};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: netmem compare RUN_A RUN_B [RUN...] [--out DIR] [--y METRIC]\n"
		"                      [--ignore PARAM[,PARAM...]] [--per node|thread]\n\n"
		"For every result document all runs hold (same name, same experiment), pairs\n"
		"the summary entries one to one on their parameters and prints, per point, each\n"
		"run's value of METRIC (default: the first of mops, txns_per_sec, ops_per_sec,\n"
		"lat.p50, lat.mean, reduction, probability every run's document has) and its\n"
		"ratio to the first run's. A parameter whose runs share some values (a sweep\n"
		"longer on one cluster) is compared on those. A parameter with no value common\n"
		"to all runs (a duration, a device, a node count) is refused (exit 2, a line per\n"
		"parameter with its values per run) unless named with --ignore (repeatable, or a\n"
		"comma list); a point that would then pair with several of another run is\n"
		"dropped. Points one run lacks, invalid ones, and documents not compared are\n"
		"listed with the reason. Rows follow the runs' sweep order, whatever the order\n"
		"of the arguments. Each document's entries are recomputed from its points; a\n"
		"document that contradicts itself (a summary its points do not give, duplicate\n"
		"parameters, a spec that is not its config's, runs on different NICs) is not\n"
		"compared: \"inconsistent document in RUN: WHY\".\n\n"
		"--per node divides a rate by the point's params.nodes, --per thread by\n"
		"params.nodes x params.threads (threads per node), so that clusters of different\n"
		"sizes compare. A rate is a top-level metric whose name ends in _per_sec\n"
		"(ops_per_sec, txns_per_sec, gbit_per_sec) or m<unit> beside <unit>_per_sec\n"
		"(mops); a nested one (fairness.min_ops_per_sec) is not. With --per the default\n"
		"METRIC is the first of those defaults that is a rate; a document whose points\n"
		"lack the parameter is not compared (and said so).\n\n"
		"Draws DIR/NAME.png and DIR/NAME.svg (default DIR: compare; from any working\n"
		"directory), one line per run, labelled by the run's NIC (device, firmware,\n"
		"link); and a document whose paper figure sets hosts side by side also as the\n"
		"paper draws it, DIR/NAME-paper.png and .svg (corm-fig15, with --y collect_us:\n"
		"Fig. 15's collection against the workers, one line per host CPU). Exit status\n"
		"1 when a figure could not be drawn (see\n"
		"DIR/NAME.gnuplot.log); 2 when the input is refused: a document of a schema\n"
		"other than " NM_RESULT_SCHEMA " (a tool's document without one, corm-sim's, is\n"
		"read), runs with no document or valid point in common; else 0.\n");
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

static void add_ignore(cmp_opts *o, const char *list)
{
	char *copy = nm_strdup(list), *save = NULL;
	if (!list[0] || list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		refuse("--ignore %s: give parameter names, e.g. --ignore nodes or --ignore nodes,duration", list);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		json_object_set_new(o->ignore, name, json_true());
	free(copy);
}

static int parse_args(int argc, char **argv, cmp_opts *o, const char **dirs)
{
	int nruns = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool valued = !strcmp(a, "--out") || !strcmp(a, "--y") || !strcmp(a, "--ignore") || !strcmp(a, "--per");
		if (valued && i + 1 >= argc)
			refuse("%s needs a value (see netmem compare --help)", a);
		if (!strcmp(a, "--out"))
			o->out = argv[++i];
		else if (!strcmp(a, "--y"))
			o->metric = argv[++i];
		else if (!strcmp(a, "--ignore"))
			add_ignore(o, argv[++i]);
		else if (!strcmp(a, "--per")) {
			const char *p = argv[++i];
			if (strcmp(p, "node") && strcmp(p, "thread"))
				refuse("--per %s: give --per node or --per thread", p);
			o->per = !strcmp(p, "node") ? CMP_PER_NODE : CMP_PER_THREAD;
		} else if (a[0] == '-')
			refuse("unknown option '%s' (see netmem compare --help)", a);
		else if (nruns == CMP_MAX_RUNS)
			refuse("at most %d runs", CMP_MAX_RUNS);
		else
			dirs[nruns++] = a;
	}
	if (nruns < 2)
		refuse("needs two or more run directories (see netmem compare --help)");
	return nruns;
}

/* Runs that disagree on a document's schema (a tool's document against a
 * result of the same name) are refused; nm_run_load already refused a schema
 * this netmem does not read. */
static void check_schemas(const nm_run *runs, const char *const *dirs, int nruns)
{
	for (int r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].ndocs; i++) {
			const nm_rundoc *d = &runs[r].docs[i];
			for (int q = 0; q < r; q++) {
				const nm_rundoc *e = nm_run_find(&runs[q], d->name);
				if (e && strcmp(e->schema, d->schema))
					refuse("%s/%s.json is schema %s but %s/%s.json is %s: runs of different schema "
					       "versions cannot be compared", dirs[q], e->name, e->schema, dirs[r], d->name,
					       d->schema);
			}
		}
}

static void letters(char *buf, size_t len, const bool *which, int n)
{
	buf[0] = '\0';
	for (int r = 0; r < n; r++)
		if (which[r]) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, "%s%c", used ? ", " : "", 'A' + r);
		}
}

/* What is compared of one document name, and why not when it is not. */
static void plan_doc(const cmp_opts *o, const nm_run *runs, const char *const *dirs, int nruns, const char *name,
		     cmp_doc *d)
{
	*d = (cmp_doc){.name = name, .nruns = nruns};
	bool has[CMP_MAX_RUNS], lacks[CMP_MAX_RUNS], same_exp = true, all = true;
	char in[64], out[64], exps[1024] = "";
	const nm_rundoc *some = NULL;
	for (int r = 0; r < nruns; r++) {
		d->dirs[r] = dirs[r];
		d->docs[r] = nm_run_find(&runs[r], name);
		has[r] = d->docs[r] != NULL;
		lacks[r] = !has[r];
		all &= has[r];
		if (has[r] && some && strcmp(some->experiment, d->docs[r]->experiment))
			same_exp = false;
		some = some ? some : d->docs[r];
		if (has[r]) {
			size_t used = strlen(exps);
			snprintf(exps + used, sizeof exps - used, "%s%s in %c", used ? ", " : "", d->docs[r]->experiment,
				 'A' + r);
		}
	}
	letters(in, sizeof in, has, nruns);
	letters(out, sizeof out, lacks, nruns);
	if (!all) {
		d->why = nm_strdupf("only in %s (none in %s)", in, out);
		return;
	}
	if (!same_exp) {
		d->why = nm_strdupf("experiment %s", exps);
		return;
	}
	for (int r = 0; r < nruns; r++) {
		char nics[512];
		if (d->docs[r]->inconsistent) {
			d->why = nm_strdupf("inconsistent document in %c: %s", 'A' + r, d->docs[r]->inconsistent);
			return;
		}
		if (nm_rundoc_nics_differ(d->docs[r], nics, sizeof nics)) {
			d->why = nm_strdupf("inconsistent document in %c: %s", 'A' + r, nics);
			return;
		}
	}
	d->shared = true;
	cmp_classify(d, o->ignore);
	d->metric = cmp_pick_metric(d, o->metric, o->per);
	if (!d->metric && o->metric)
		d->why = nm_strdupf("no run's document has %s (--y)", o->metric);
	else if (!d->metric)
		d->why = nm_strdupf("it has none of the %s compare draws by default (%s) in every run; name one with --y",
				    o->per ? "rates" : "metrics",
				    o->per ? "mops, txns_per_sec, ops_per_sec"
					   : "mops, txns_per_sec, ops_per_sec, lat.p50, lat.mean, reduction, probability");
	else if (o->per && !cmp_is_rate(d, d->metric))
		d->why = nm_strdupf("--per %s divides rates, and %s is not one here (a rate: a top-level metric ending "
				    "in _per_sec, or m<unit> beside <unit>_per_sec such as mops)", per_names[o->per], d->metric);
	else if (o->per)
		d->why = cmp_per_problem(d, o->per);
}

static void free_doc(cmp_doc *d)
{
	free(d->why);
	json_decref(d->kinds);
	json_decref(d->diffs);
	json_decref(d->swept);
	json_decref(d->varied);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A line per parameter with no value common to all runs in a document that
 * is compared, and exit 2; nothing when there is none. */
static void refuse_disjoint(const cmp_doc *docs, size_t n)
{
	json_t *seen = json_object();  /* parameter -> [its values, the documents...] */
	for (size_t i = 0; i < n; i++) {
		const char *k;
		json_t *v;
		if (docs[i].why)
			continue;
		json_object_foreach(docs[i].kinds, k, v) {
			if (json_integer_value(v) != CMP_DISJOINT)
				continue;
			json_t *s = json_object_get(seen, k);
			if (!s) {
				s = json_array();
				json_array_append(s, json_object_get(docs[i].diffs, k));
				json_object_set_new(seen, k, s);
			}
			json_array_append_new(s, json_string(docs[i].name));
		}
	}
	size_t nk = json_object_size(seen), j = 0;
	if (!nk) {
		json_decref(seen);
		return;
	}
	const char **keys = nm_calloc(nk, sizeof *keys), *k;
	json_t *v;
	json_object_foreach(seen, k, v)
		keys[j++] = k;
	qsort(keys, nk, sizeof *keys, by_str);
	char line[4096];
	fflush(stdout);
	for (j = 0; j < nk; j++) {
		json_t *s = json_object_get(seen, keys[j]);
		size_t more = json_array_size(s) - 2;
		char others[64] = "";
		if (more)
			snprintf(others, sizeof others, "; and %zu more document%s", more, more > 1 ? "s" : "");
		if (j)
			fprintf(stderr, "netmem: compare: %s\n", line);
		snprintf(line, sizeof line,
			 "parameter %s has no value common to all runs (in %s: %s%s), so no point pairs on it; "
			 "name it with --ignore %s to compare across it", keys[j], json_string_value(json_array_get(s, 1)),
			 json_string_value(json_array_get(s, 0)), others, keys[j]);
	}
	refuse("%s", line);
}

/* --ignore of a parameter no document the runs share has is a typo. */
static void check_ignored(const cmp_opts *o, const cmp_doc *docs, size_t n)
{
	json_t *known = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_update(known, docs[i].kinds);
	const char *k;
	json_t *v;
	json_object_foreach(o->ignore, k, v) {
		if (json_object_get(known, k))
			continue;
		char list[512] = "";
		const char *p;
		json_t *t;
		json_object_foreach(known, p, t) {
			size_t used = strlen(list);
			snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", p);
		}
		refuse("--ignore %s: no document the runs share has a parameter %s (they have: %s)", k, k,
		       list[0] ? list : "none");
	}
	json_decref(known);
}

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
		int fd = open(log, O_WRONLY | O_CREAT | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC), 0666);
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
static bool draw(const cmp_opts *o, const cmp_doc *d, const char *dat, const char *ylab)
{
	static const char *const ext[] = {"png", "svg"};
	char log[PATH_MAX], q[5][2 * PATH_MAX], title[1024];
	bool ok = true;
	snprintf(log, sizeof log, "%s/%s.gnuplot.log", o->out, d->name);
	snprintf(title, sizeof title, "%s (%s): %s by run", d->name, d->docs[0]->experiment, ylab);
	gp_quote(q[0], sizeof q[0], dat);
	gp_quote(q[2], sizeof q[2], title);
	gp_quote(q[3], sizeof q[3], ylab);
	gp_quote(q[4], sizeof q[4], o->term);
	for (int k = 0; k < 2; k++) {
		char out[PATH_MAX], vars[12 * PATH_MAX];
		snprintf(out, sizeof out, "%s/%s.%s", o->out, d->name, ext[k]);
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

/* s as one shell word: double-quoted (a gnuplot single-quoted string
 * holds it as it is), \ " $ ` escaped */
static void sh_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (strchr("\\\"$`", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* gnuplot's single-quoted string of s, of any length (a quote doubled) */
static char *gp_quoted(const char *s)
{
	char *buf = nm_calloc(2 * strlen(s) + 1, 1), *b = buf;
	for (; *s; s++) {
		if (*s == '\'')
			*b++ = '\'';
		*b++ = *s;
	}
	return buf;
}

/* A document whose paper figure sets hosts side by side has a script of
 * its own, plots/NAME_compare.gp (NAME's dashes as underscores: CoRM Fig.
 * 15's collection, one line per host CPU, the paper's Intel against AMD),
 * drawn over every run's document as DIR/NAME-paper.png and .svg; its
 * variables: in (the documents, shell words), out, netmem (this binary, a
 * shell word), termgp. True when there is none or it drew. */
static bool draw_paper(const cmp_opts *o, const cmp_doc *d)
{
	char rel[PATH_MAX], where[PATH_MAX + 32], exe[PATH_MAX] = "netmem", log[PATH_MAX];
	snprintf(rel, sizeof rel, "plots/%s_compare.gp", d->name);
	for (char *c = rel + strlen("plots/"); *c; c++)
		*c = *c == '-' ? '_' : *c;
	const char *script = nm_suite_file(rel, where, sizeof where);
	if (access(script, R_OK) != 0)
		return true;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0)
		exe[n] = '\0';
	char *in = NULL, *bin = NULL;
	size_t inlen = 0, binlen = 0;
	FILE *f = open_memstream(&in, &inlen);
	for (int r = 0; r < d->nruns; r++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s.json", d->dirs[r], d->name);
		if (r)
			fputc(' ', f);
		sh_quote(f, path);
	}
	fclose(f);
	f = open_memstream(&bin, &binlen);
	sh_quote(f, exe);
	fclose(f);
	char *qin = gp_quoted(in), *qbin = gp_quoted(bin), *qterm = gp_quoted(o->term);
	snprintf(log, sizeof log, "%s/%s-paper.gnuplot.log", o->out, d->name);
	bool ok = true;
	static const char *const ext[] = {"png", "svg"};
	for (int k = 0; k < 2; k++) {
		char out[PATH_MAX];
		snprintf(out, sizeof out, "%s/%s-paper.%s", o->out, d->name, ext[k]);
		char *qout = gp_quoted(out), *vars = NULL;
		size_t vlen = 0;
		f = open_memstream(&vars, &vlen);
		fprintf(f, "in='%s'; out='%s'; netmem='%s'; termgp='%s'", qin, qout, qbin, qterm);
		fclose(f);
		if (gnuplot(script, vars, log, k > 0)) {
			printf("figure %s\n", out);
		} else {
			fflush(stdout);
			fprintf(stderr, "netmem: compare: drawing %s failed (see %s)\n", out, log);
			ok = false;
		}
		free(vars);
		free(qout);
	}
	free(qin), free(qbin), free(qterm), free(in), free(bin);
	return ok;
}

/* A group of points: true with each run's value in val when it pairs one
 * point of every run with the metric, else prints why it is dropped. */
static bool group_row(const cmp_doc *d, const cmp_group *g, cmp_per per, const char *label, double *val)
{
	bool none[CMP_MAX_RUNS] = {0}, some[CMP_MAX_RUNS] = {0}, invalid[CMP_MAX_RUNS] = {0}, nometric[CMP_MAX_RUNS] = {0};
	bool lacking = false, several = false, bad = false, worse = false;
	for (int r = 0; r < d->nruns; r++) {
		size_t n = json_array_size(g->entries[r]);
		none[r] = n == 0;
		some[r] = n > 0;
		lacking |= n == 0;
		several |= n > 1;
	}
	char a[64], b[64];
	if (lacking) {
		letters(a, sizeof a, some, d->nruns);
		letters(b, sizeof b, none, d->nruns);
		printf("   dropped %s: only in %s (none in %s)\n", label, a, b);
		return false;
	}
	if (several) {
		printf("   dropped %s: pairs several points (they differ only in ignored parameters):", label);
		for (int r = 0; r < d->nruns; r++) {
			size_t i;
			json_t *e;
			printf("%s %c ", r ? ";" : "", 'A' + r);
			json_array_foreach(g->entries[r], i, e) {
				char which[512];
				cmp_label(e, d->varied, which, sizeof which);
				printf("%s%s", i ? " | " : "", which);
			}
		}
		printf("\n");
		return false;
	}
	for (int r = 0; r < d->nruns; r++) {
		const json_t *e = json_array_get(g->entries[r], 0);
		if (nm_entry_metric(e, d->metric, &val[r]))
			val[r] /= cmp_divisor(e, per);
		else if (!json_is_true(json_object_get(e, "valid")))
			bad = invalid[r] = true;
		else
			worse = nometric[r] = true;
	}
	if (!bad && !worse)
		return true;
	letters(a, sizeof a, invalid, d->nruns);
	letters(b, sizeof b, nometric, d->nruns);
	printf("   dropped %s: ", label);
	if (bad)
		printf("not valid in %s%s", a, worse ? "; " : "");
	if (worse)
		printf("no positive %s in %s", d->metric, b);
	printf("\n");
	return false;
}

static void print_header(const cmp_doc *d, const char *ylab)
{
	static const char *const kind_names[] = {
		[CMP_COMMON] = "compared on the values all runs have",
		[CMP_IGNORED] = "ignored (--ignore)",
		[CMP_DISJOINT] = "has no value common to all runs",
	};
	printf("== %s (experiment %s): %s, each run over A\n", d->name, d->docs[0]->experiment, ylab);
	for (int r = 0; r < d->nruns; r++) {
		char nic[512];
		nm_rundoc_nic_label(d->docs[r], nic, sizeof nic);
		printf("   run %c: %s\n", 'A' + r, nic);
	}
	const char *k;
	json_t *v;
	json_object_foreach(d->diffs, k, v)
		printf("   parameter %s %s: %s\n", k, kind_names[json_integer_value(json_object_get(d->kinds, k))],
		       json_string_value(v));
}

/* One compared document: its table, data file and figures. Returns the
 * number of points matched; *failed is set when a figure failed. */
static size_t compare_doc(const cmp_opts *o, const cmp_doc *d, bool *failed)
{
	char ylab[512], dat[PATH_MAX];
	snprintf(ylab, sizeof ylab, "%s%s%s", d->metric, o->per ? " per " : "", per_names[o->per]);
	print_header(d, ylab);
	snprintf(dat, sizeof dat, "%s/%s.dat", o->out, d->name);
	nm_atomic a;
	if (nm_atomic_open(&a, dat) != 0)
		refuse("cannot write %s: %s", dat, strerror(errno));
	FILE *f = a.f;
	/* rows[r]: run r's block of the data file, built as the points pair */
	char *rows[CMP_MAX_RUNS] = {0};
	size_t lens[CMP_MAX_RUNS] = {0}, matched = 0, n;
	FILE *blocks[CMP_MAX_RUNS];
	for (int r = 0; r < d->nruns; r++)
		blocks[r] = open_memstream(&rows[r], &lens[r]);
	cmp_group *g = cmp_pair(d, o->ignore, &n);
	for (size_t i = 0; i < n; i++) {
		double val[CMP_MAX_RUNS];
		char label[512];
		const json_t *any = NULL;
		for (int r = 0; r < d->nruns && !any; r++)
			any = json_array_get(g[i].entries[r], 0);
		cmp_label(any, d->swept, label, sizeof label);
		if (!group_row(d, &g[i], o->per, label, val))
			continue;
		printf("   %-60s A %-10.4g", label, val[0]);
		for (int r = 1; r < d->nruns; r++)
			printf(" %c %-10.4g %c/A %.3f", 'A' + r, val[r], 'A' + r, val[r] / val[0]);
		printf("\n");
		for (int r = 0; r < d->nruns; r++)
			fprintf(blocks[r], "%zu %.10g \"%s\"\n", matched, val[r], label);
		matched++;
	}
	cmp_groups_free(g, n);
	for (int r = 0; r < d->nruns; r++) {
		char nic[512];
		nm_rundoc_nic_label(d->docs[r], nic, sizeof nic);
		fclose(blocks[r]);
		fprintf(f, "%s\"point\" \"%c: %s\"\n%s", r ? "\n\n" : "", 'A' + r, nic, rows[r]);
		free(rows[r]);
	}
	if (nm_atomic_commit(&a) != 0)
		nm_fatal("compare: cannot write %s: %s", dat, strerror(errno));
	printf("   %zu point(s) matched\n", matched);
	if (matched && !draw(o, d, dat, ylab))
		*failed = true;
	return matched;
}

/* Every document name of every run, sorted (each run's list is). */
static const char **all_names(const nm_run *runs, int nruns, size_t *n)
{
	json_t *seen = json_object();
	for (int r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].ndocs; i++)
			json_object_set_new(seen, runs[r].docs[i].name, json_true());
	const char **names = nm_calloc(json_object_size(seen) + 1, sizeof *names);
	*n = 0;
	for (int r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].ndocs; i++)
			if (json_object_get(seen, runs[r].docs[i].name)) {
				names[(*n)++] = runs[r].docs[i].name;
				json_object_del(seen, runs[r].docs[i].name);
			}
	qsort(names, *n, sizeof *names, by_str);
	json_decref(seen);
	return names;
}

/* The tables, then what refuses the whole comparison; the exit status. */
static int compare_all(cmp_opts *o, const cmp_doc *docs, size_t n)
{
	size_t with_metric = 0, compared = 0, matched = 0;
	const cmp_doc *first_dropped = NULL;
	bool failed = false;
	if (mkdir(o->out, 0777) != 0 && errno != EEXIST)
		refuse("cannot create %s: %s", o->out, strerror(errno));
	char where[PATH_MAX + 32];
	snprintf(o->plot, sizeof o->plot, "%s", nm_suite_file("plots/compare.gp", where, sizeof where));
	snprintf(o->term, sizeof o->term, "%s", nm_suite_file("plots/term.gp", where, sizeof where));
	for (size_t i = 0; i < n; i++) {
		const cmp_doc *d = &docs[i];
		with_metric += d->metric != NULL;
		if (d->why) {
			printf("== %s: not compared: %s\n", d->name, d->why);
			if (d->shared && d->metric && !first_dropped)
				first_dropped = d;
			continue;
		}
		compared++;
		matched += compare_doc(o, d, &failed);
		if (!draw_paper(o, d))
			failed = true;
	}
	if (!with_metric && o->metric)
		refuse("--y %s: no document the runs share has that metric (a key of summary[].geomean, e.g. "
		       "ops_per_sec or lat.p50)", o->metric);
	if (!with_metric && o->per)
		refuse("--per %s: the documents the runs share have none of the rates compare draws by default (mops, "
		       "txns_per_sec, ops_per_sec); name one with --y", per_names[o->per]);
	if (!with_metric)
		refuse("the documents the runs share have none of the metrics compare draws by default; name one with --y");
	if (!compared && first_dropped)
		refuse("no document could be compared: %s: %s", first_dropped->name, first_dropped->why);
	if (!matched)
		refuse("the runs hold no valid point with the same parameters (see the points listed above)");
	return failed ? NM_EXIT_FAIL : 0;
}

static int compare_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	cmp_opts o = {.out = "compare", .ignore = json_object()};
	const char *dirs[CMP_MAX_RUNS];
	int nruns = parse_args(argc, argv, &o, dirs);
	nm_run runs[CMP_MAX_RUNS];
	char err[512];
	for (int r = 0; r < nruns; r++)
		if (nm_run_load(dirs[r], &runs[r], err, sizeof err) != 0)
			refuse("%s", err);
	check_schemas(runs, dirs, nruns);
	size_t n, shared = 0;
	const char **names = all_names(runs, nruns, &n);
	cmp_doc *docs = nm_calloc(n ? n : 1, sizeof *docs);
	for (size_t i = 0; i < n; i++) {
		plan_doc(&o, runs, dirs, nruns, names[i], &docs[i]);
		shared += docs[i].shared;
	}
	if (!shared)
		refuse("%s and the other runs hold no result document in common", dirs[0]);
	check_ignored(&o, docs, n);
	refuse_disjoint(docs, n);
	int status = compare_all(&o, docs, n);
	for (size_t i = 0; i < n; i++)
		free_doc(&docs[i]);
	free(docs);
	free(names);
	for (int r = 0; r < nruns; r++)
		nm_run_free(&runs[r]);
	json_decref(o.ignore);
	return status;
}

static const nm_experiment compare_tool = {
	.name = "compare",
	.summary = "overlay the same experiments from several runs (NICs side by side), ratios per point",
	.tool_main = compare_main,
};
NM_EXPERIMENT(compare_tool)
