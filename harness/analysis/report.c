/* netmem report RUN_DIR: one page that says what a run reproduced. Writes
 * RUN_DIR/report.md and RUN_DIR/index.html (self-contained): per paper, each
 * figure of the run beside the paper figure it regenerates, the document it
 * was drawn from (sweep, command, hardware, point validity), and the claims
 * table (harness/analysis/claims.h) with a verdict per claim. Emulated
 * (Soft-RoCE), "NUMA not real" and simulated numbers are marked and never
 * counted as hardware reproductions. */
#include "alloc.h"
#include "claims.h"
#include "durable.h"
#include "experiment.h"
#include "log.h"
#include "report_out.h"
#include "rundoc.h"
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CLAIM_COLS 9

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: netmem report RUN_DIR [--claims FILE]\n\n"
		"Writes RUN_DIR/report.md and RUN_DIR/index.html (self-contained: figures embedded,\n"
		"no network, no script): per paper, every figure of the run (FIGURE.svg, else\n"
		"FIGURE.png) beside the paper figure and caption it regenerates, the document it\n"
		"was drawn from (sweep, command line, NIC and host, valid points), and the claims\n"
		"table: each claim of --claims (default plots/claims.json) computed from the run's\n"
		"result documents, with the measured and the paper's value and range, the\n"
		"paper's own words, and a verdict: reproduced, direction only, above or below the\n"
		"paper's range, not reproduced, failed run (a selected point failed: never\n"
		"reproduced), not exercised, no matching points (the document is there, the\n"
		"selection matches nothing: listed against the values it holds), not run (no\n"
		"such document), inconsistent document: WHY (no value trusted: a summary entry\n"
		"its points do not give, duplicate parameters, a document that is not what its\n"
		"config name says, a null, negative or non-finite metric in the selection, or\n"
		"NICs that differ where the claim's range depends on one). Every entry a claim\n"
		"uses is recomputed from the document's points. Entries a claim left out are\n"
		"listed under the table. Claims\n"
		"computed from Soft-RoCE (any sign of it in any run's NIC records: flag, driver,\n"
		"device name, vendor id), documents with no NIC record, \"NUMA not real\" or\n"
		"\"NUMA not verified\" entries (placement checked point by point), or a\n"
		"simulator's experiment are\n"
		"marked and never count as hardware reproductions. A bad claims file or a\n"
		"document of another schema: one line, exit 2.\n");
}

static bool file_in(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, R_OK) == 0;
}

/* The document a figure was drawn from: the one named like the figure, else
 * the longest document name the figure's name starts with (numa-fig3a from
 * numa-fig3). */
static const nm_rundoc *figure_doc(const nm_run *run, const char *figure)
{
	const nm_rundoc *best = NULL;
	for (size_t i = 0; i < run->ndocs; i++) {
		const char *n = run->docs[i].name;
		size_t k = strlen(n);
		if (!strncmp(figure, n, k) && (figure[k] == '\0' || figure[k] == '-' || figure[k] == '_' ||
					       (figure[k] >= 'a' && figure[k] <= 'z' && figure[k + 1] == '\0')) &&
		    (!best || k > strlen(best->name)))
			best = &run->docs[i];
	}
	return best;
}

static const char *verdict_class(const nm_claim_result *r)
{
	switch (r->verdict) {
	case NM_VERDICT_NOT_RUN:
	case NM_VERDICT_NO_MATCH:
		return "not-run";
	case NM_VERDICT_REPRODUCED:
		return "reproduced";
	case NM_VERDICT_DIRECTION_ONLY:
		return "direction-only";
	case NM_VERDICT_FAILED:
	case NM_VERDICT_NOT_EXERCISED:
	case NM_VERDICT_INCONSISTENT:
		return "failed";
	default:
		return "not-reproduced";
	}
}

static void claim_row(nm_out *o, const nm_claim_result *r)
{
	const json_t *c = r->claim;
	const char *unit = json_string_value(json_object_get(c, "unit"));
	char measured[96], paper[160], verdict[640], basis[96], cls[64], where[300], quote[1200];
	bool hw = nm_claim_on_hardware(r), computed = nm_verdict_measured(r->verdict) && r->used;
	if (!computed)
		snprintf(measured, sizeof measured, "-");
	else
		snprintf(measured, sizeof measured, "%.3g%s (%s of %zu)", r->measured, unit ? unit : "",
			 json_string_value(json_object_get(c, "reduce")), r->used);
	json_t *pv = json_object_get(c, "paper_value");
	if (json_is_number(pv))
		snprintf(paper, sizeof paper, "%.3g%s%s%s", json_number_value(pv), unit ? unit : "", r->range[0] ? "; range " : "",
			 r->range);
	else
		snprintf(paper, sizeof paper, "(ordering)");
	snprintf(verdict, sizeof verdict, "%s%s%s%s", nm_verdict_names[r->verdict],
		 !nm_verdict_measured(r->verdict) || hw ? "" :
		 r->basis.simulated ? " (simulation)" : " (not a hardware reproduction)", r->note[0] ? ": " : "", r->note);
	if (!nm_verdict_measured(r->verdict))
		snprintf(basis, sizeof basis, "-");
	else
		nm_basis_describe(&r->basis, basis, sizeof basis);
	snprintf(where, sizeof where, "%s", r->documents[0] ? r->documents : "-");
	snprintf(cls, sizeof cls, "%s%s", verdict_class(r), nm_verdict_measured(r->verdict) && !hw ? " emulated" : "");
	snprintf(quote, sizeof quote, "\u201c%s\u201d (%s)", json_string_value(json_object_get(c, "quote")),
		 json_string_value(json_object_get(c, "where")) ? json_string_value(json_object_get(c, "where")) : "");
	char claim[512];
	snprintf(claim, sizeof claim, "%s [%s]", json_string_value(json_object_get(c, "claim")),
		 json_string_value(json_object_get(c, "id")));
	const char *cells[CLAIM_COLS] = {r->paper, json_string_value(json_object_get(c, "figure")), claim, measured,
					 paper, verdict, quote, basis, where};
	nm_out_row(o, cls, cells, CLAIM_COLS);
}

/* Every entry a claim left out, under the claim's id (at most 40 lines
 * each: a run where a whole sweep failed says so in its count). */
static void left_out_section(nm_out *o, const nm_claim_result *res, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		const char *l = res[i].left_out;
		if (!l)
			continue;
		if (!any)
			nm_out_heading(o, 3, "Entries the claims left out");
		any = true;
		size_t lines = 0, cut = 0;
		for (const char *p = l; *p; p++)
			if (*p == '\n' && ++lines == 40)
				cut = (size_t)(p - l) + 1;
		char head[256];
		snprintf(head, sizeof head, "%s: %zu entr%s left out", json_string_value(json_object_get(res[i].claim, "id")),
			 lines, lines == 1 ? "y" : "ies");
		nm_out_para(o, head);
		if (cut) {
			char *text = nm_strdup(l);
			snprintf(text + cut, strlen(l) + 1 - cut, "... and %zu more\n", lines - 40);
			nm_out_pre(o, text);
			free(text);
		} else
			nm_out_pre(o, l);
	}
}

static void claims_section(nm_out *o, const nm_claim_result *res, size_t n)
{
	size_t hw[NM_VERDICT_COUNT] = {0}, marked = 0, sim = 0, unrun = 0, on_hw = 0, bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (res[i].verdict == NM_VERDICT_INCONSISTENT)
			bad++;
		else if (!nm_verdict_measured(res[i].verdict))
			unrun++;
		else if (nm_claim_on_hardware(&res[i]))
			on_hw++, hw[res[i].verdict]++;
		else if (res[i].basis.simulated && !res[i].basis.emulated)
			sim++;
		else
			marked++;
	}
	nm_out_heading(o, 2, "Claims");
	char line[1024];
	snprintf(line, sizeof line,
		 "Hardware reproductions: %zu reproduced, %zu direction only, %zu not reproduced, of %zu claims "
		 "computed on hardware (and %zu above the paper's range, %zu below it, %zu failed runs, %zu not "
		 "exercised). %zu claims computed from Soft-RoCE, NUMA-not-real or NUMA-not-verified documents "
		 "(not hardware reproductions); %zu computed on the host, by a simulator or from the packet path's "
		 "tables (no NIC involved); %zu not run or with no matching points; %zu on an inconsistent document "
		 "(no value trusted).",
		 hw[NM_VERDICT_REPRODUCED], hw[NM_VERDICT_DIRECTION_ONLY], hw[NM_VERDICT_NOT_REPRODUCED], on_hw,
		 hw[NM_VERDICT_ABOVE_RANGE], hw[NM_VERDICT_BELOW_RANGE], hw[NM_VERDICT_FAILED], hw[NM_VERDICT_NOT_EXERCISED],
		 marked, sim, unrun, bad);
	nm_out_para(o, line);
	static const char *const head[CLAIM_COLS] = {"paper", "figure", "claim", "measured", "paper value",
						      "verdict", "the paper's words", "basis", "documents"};
	nm_out_table(o, head, CLAIM_COLS);
	for (size_t i = 0; i < n; i++)
		claim_row(o, &res[i]);
	nm_out_table_end(o);
	left_out_section(o, res, n);
}

/* The sweep of a document: its array-valued options. */
static void sweep_text(const nm_rundoc *d, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(d->doc, "spec"), key, v) {
		if (!json_is_array(v))
			continue;
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s = %s", used ? "; " : "", key, s ? s : "?");
		free(s);
	}
	json_t *params = json_object_get(d->doc, "params");  /* a tool's document */
	if (!buf[0] && json_is_object(params)) {
		char *s = json_dumps(params, JSON_COMPACT);
		snprintf(buf, len, "%s", s ? s : "");
		free(s);
	}
}

static void document_block(nm_out *o, const nm_rundoc *d)
{
	char text[4096], hw[1024], sweep[2048];
	nm_point_tally t = nm_rundoc_tally(d);
	nm_rundoc_hardware(d, hw, sizeof hw);
	sweep_text(d, sweep, sizeof sweep);
	const json_t *meta = nm_rundoc_meta(d);
	const char *cmd = json_string_value(json_object_get(meta, "command_line"));
	snprintf(text, sizeof text, "Document %s.json (experiment %s, config %.*s). Points: %zu, valid %zu, invalid %zu, "
		 "skipped %zu%s. Hardware: %s.", d->name, d->experiment, (int)nm_doc_config_len(d->name), d->name, t.points,
		 t.valid, t.invalid, t.skipped,
		 t.invalid ? " (INVALID POINTS: left out of the figure)" : "", hw);
	nm_out_para(o, text);
	if (d->inconsistent) {
		snprintf(text, sizeof text, "INCONSISTENT DOCUMENT: %s.", d->inconsistent);
		nm_out_para(o, text);
	}
	snprintf(text, sizeof text, "sweep: %s%s%s", sweep[0] ? sweep : "(one point)", cmd ? "\ncommand: " : "",
		 cmd ? cmd : "");
	nm_out_pre(o, text);
}

/* FIGURE.svg, else FIGURE.png, when the run has one (name into buf). */
static const char *figure_file(const char *dir, const char *figure, char *buf, size_t len, bool prefer_svg)
{
	static const char *const ext[2] = {".svg", ".png"};
	for (int k = 0; k < 2; k++) {
		snprintf(buf, len, "%s%s", figure, ext[prefer_svg ? k : 1 - k]);
		if (file_in(dir, buf))
			return buf;
	}
	return NULL;
}

static void paper_section(nm_out *o, const nm_run *run, const json_t *paper, json_t *drawn, json_t *shown_docs)
{
	nm_out_heading(o, 2, json_string_value(json_object_get(paper, "title")));
	size_t i;
	json_t *fig;
	char missing[1024] = "";
	json_array_foreach(json_object_get(paper, "figures"), i, fig) {
		const char *name = json_string_value(json_object_get(fig, "figure"));
		char file[512], head[1024];
		if (!name || !figure_file(run->dir, name, file, sizeof file, o->kind == NM_OUT_HTML)) {
			size_t used = strlen(missing);
			snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", name ? name : "?");
			continue;
		}
		json_object_set_new(drawn, name, json_true());
		snprintf(head, sizeof head, "%s (paper %s): %s", name, json_string_value(json_object_get(fig, "paper_figure")),
			 json_string_value(json_object_get(fig, "caption")));
		nm_out_heading(o, 3, head);
		nm_out_figure(o, file, name);
		/* a config sweeping its rank count drew the figure from one document per count */
		size_t counts = 0;
		for (size_t k = 0; k < run->ndocs; k++) {
			const nm_rundoc *c = &run->docs[k];
			if (strcmp(c->name, name) && nm_name_matches(c->name, name)) {
				document_block(o, c);
				json_object_set_new(shown_docs, c->name, json_true());
				counts++;
			}
		}
		const nm_rundoc *d = counts ? NULL : figure_doc(run, name);
		if (d) {
			document_block(o, d);
			json_object_set_new(shown_docs, d->name, json_true());
		} else if (!counts)
			nm_out_para(o, "No document of this run is named after this figure.");
	}
	if (missing[0]) {
		char line[1200];
		snprintf(line, sizeof line, "Not in this run: %s.", missing);
		nm_out_para(o, line);
	}
}

/* Figures and documents of the run that no paper lists. */
static void others_section(nm_out *o, const nm_run *run, json_t *drawn, json_t *shown_docs)
{
	bool heading = false;
	for (size_t i = 0; i < run->ndocs; i++) {
		const nm_rundoc *d = &run->docs[i];
		if (json_object_get(shown_docs, d->name))
			continue;
		if (!heading) {
			nm_out_heading(o, 2, "Other documents and figures");
			heading = true;
		}
		char file[512];
		nm_out_heading(o, 3, d->name);
		if (!json_object_get(drawn, d->name) && figure_file(run->dir, d->name, file, sizeof file, o->kind == NM_OUT_HTML))
			nm_out_figure(o, file, d->name);
		document_block(o, d);
	}
}

static void header(nm_out *o, const nm_run *run)
{
	char line[2048], stamp[64];
	time_t now = time(NULL);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	size_t emulated = 0, numa = 0, sim = 0, unrecorded = 0, bad = 0;
	for (size_t i = 0; i < run->ndocs; i++) {
		emulated += run->docs[i].soft_roce && !run->docs[i].simulated;
		unrecorded += run->docs[i].emulated && !run->docs[i].soft_roce;
		bad += run->docs[i].inconsistent != NULL;
		numa += run->docs[i].numa_not_real;
		sim += run->docs[i].simulated;
	}
	snprintf(line, sizeof line, "Run directory %s: %zu result documents; report written %s by netmem %s.", run->dir,
		 run->ndocs, stamp, NM_VERSION);
	nm_out_para(o, line);
	if (emulated) {
		snprintf(line, sizeof line, "SOFT-ROCE (EMULATED): %zu of the documents were measured on Soft-RoCE, software "
			 "emulation of RDMA. Their timings are not hardware numbers; claims computed from them are "
			 "marked and do not count as reproductions.", emulated);
		nm_out_para(o, line);
	}
	if (unrecorded) {
		snprintf(line, sizeof line, "NO NIC RECORD: %zu of the documents name no NIC for some run or rank; claims "
			 "computed from them are marked and do not count as reproductions.", unrecorded);
		nm_out_para(o, line);
	}
	if (bad) {
		snprintf(line, sizeof line, "INCONSISTENT DOCUMENTS: %zu of the documents contradict themselves or their "
			 "names (each said under it); no claim trusts a value of theirs.", bad);
		nm_out_para(o, line);
	}
	if (numa) {
		snprintf(line, sizeof line, "NUMA NOT REAL: %zu documents ran where placement is verified but timings are "
			 "no NUMA effect (emulated nodes, one node, or an emulated NIC).", numa);
		nm_out_para(o, line);
	}
	if (sim) {
		snprintf(line, sizeof line,
			 "%zu documents are computed on the host, by a simulator or from the packet path's tables (no NIC).", sim);
		nm_out_para(o, line);
	}
}

/* The configs `netmem preflight` refused before the run (run_all.sh left
 * them out): each with the reason, so a figure missing from the report
 * says why it is missing. preflight-LANE.json, one per lane. */
static void preflight_section(nm_out *o, const nm_run *run)
{
	char pat[4096], line[1400];
	snprintf(pat, sizeof pat, "%s/preflight-*.json", run->dir);
	glob_t g;
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	bool heading = false;
	for (size_t f = 0; f < g.gl_pathc; f++) {
		json_t *doc = json_load_file(g.gl_pathv[f], 0, NULL), *c;
		size_t i;
		json_array_foreach(json_object_get(doc, "configs"), i, c) {
			const char *v = json_string_value(json_object_get(c, "verdict"));
			const char *why = json_string_value(json_object_get(c, "reason"));
			if (!v || strcmp(v, "does_not_fit"))
				continue;
			if (!heading)
				nm_out_heading(o, 2, "Skipped by preflight");
			heading = true;
			snprintf(line, sizeof line, "%s did not run: %s", json_string_value(json_object_get(c, "config")),
				 why ? why : "(no reason recorded)");
			nm_out_para(o, line);
		}
		json_decref(doc);
	}
	globfree(&g);
}

static void write_report(nm_out *o, const nm_run *run, const json_t *claims, const nm_claim_result *res, size_t n)
{
	nm_out_begin(o, "netmem-bench reproduction report");
	header(o, run);
	claims_section(o, res, n);
	preflight_section(o, run);
	json_t *drawn = json_object(), *shown = json_object();
	size_t i;
	json_t *paper;
	json_array_foreach(json_object_get(claims, "papers"), i, paper)
		paper_section(o, run, paper, drawn, shown);
	others_section(o, run, drawn, shown);
	json_decref(drawn);
	json_decref(shown);
	nm_out_end(o);
}

/* report.md and index.html say the same: both are written whole before
 * either replaces its old self, and a failed write replaces neither. */
static void write_files(const nm_run *run, const json_t *claims, const nm_claim_result *res, size_t n)
{
	static const char *const names[] = {"report.md", "index.html"};
	static const nm_out_kind kinds[] = {NM_OUT_MARKDOWN, NM_OUT_HTML};
	char path[2][4096];
	nm_atomic a[2], *both[] = {&a[0], &a[1]};
	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof path[i], "%s/%s", run->dir, names[i]);
		if (nm_atomic_open(&a[i], path[i]) != 0) {
			int e = errno;
			if (i)
				nm_atomic_abort(&a[0]);
			nm_fatal("report: cannot write %s: %s", path[i], strerror(e));
		}
	}
	for (int i = 0; i < 2; i++) {
		nm_out o = {.f = a[i].f, .kind = kinds[i], .dir = run->dir};
		write_report(&o, run, claims, res, n);
	}
	if (nm_atomic_commit_all(both, 2) != 0)
		nm_fatal("report: cannot write %s and %s (both left as they were): %s", path[0], path[1],
			 strerror(errno));
	printf("%s\n%s\n", path[0], path[1]);
}

/* One line per claim on stdout: "claim ID: VERDICT (measured X, BASIS)",
 * then what failed or matched nothing. */
static void print_claim(const nm_claim_result *r)
{
	char basis[96];
	printf("claim %s: %s", json_string_value(json_object_get(r->claim, "id")), nm_verdict_names[r->verdict]);
	if (nm_verdict_measured(r->verdict)) {
		nm_basis_describe(&r->basis, basis, sizeof basis);
		if (r->used)
			printf(" (measured %.4g, ", r->measured);
		else
			printf(" ("); /* every point skipped: what it ran on still says what it is */
		printf("%s%s)", basis, nm_claim_on_hardware(r) || r->basis.simulated ? "" : ", not a hardware reproduction");
	}
	if (r->verdict == NM_VERDICT_INCONSISTENT)
		printf(": %s", r->note);
	else if (r->verdict == NM_VERDICT_FAILED || r->verdict == NM_VERDICT_NO_MATCH ||
		 r->verdict == NM_VERDICT_NOT_EXERCISED || json_object_get(r->claim, "needs"))
		printf("; %s", r->note);
	printf("\n");
}

static int report_main(int argc, char **argv)
{
	const char *dir = NULL, *claims_path = NULL;
	char buf[PATH_MAX + 32], err[512];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--claims")) {
			if (i + 1 >= argc)
				nm_usage_error("report: --claims needs a file");
			claims_path = argv[++i];
		} else if (argv[i][0] == '-')
			nm_usage_error("report: unknown option '%s' (see netmem report --help)", argv[i]);
		else if (dir)
			nm_usage_error("report: one run directory, not '%s' and '%s'", dir, argv[i]);
		else
			dir = argv[i];
	}
	if (!dir)
		nm_usage_error("report: needs a run directory (see netmem report --help)");
	json_t *claims = nm_claims_load(claims_path ? claims_path : nm_suite_file("plots/claims.json", buf, sizeof buf), err, sizeof err);
	if (!claims)
		nm_usage_error("report: %s", err);
	nm_run run;
	if (nm_run_load(dir, &run, err, sizeof err) != 0)
		nm_usage_error("report: %s", err);
	size_t n;
	nm_claim_result *res = nm_claims_evaluate(claims, &run, &n);
	write_files(&run, claims, res, n);
	for (size_t i = 0; i < n; i++)
		print_claim(&res[i]);
	nm_claims_free(res, n);
	nm_run_free(&run);
	json_decref(claims);
	return 0;
}

static const nm_experiment report_tool = {
	.name = "report",
	.summary = "write a run directory's reproduction report (report.md, index.html)",
	.tool_main = report_main,
};
NM_EXPERIMENT(report_tool)
