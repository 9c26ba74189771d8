/* netmem: one executable, a subcommand per experiment family. */
#include "boot.h"
#include "clock.h"
#include "config.h"
#include "experiment.h"
#include "alloc.h"
#include "log.h"
#include "meta.h"
#include "nic_counters.h"
#include "points.h"
#include "preflight.h"
#include "progress.h"
#include "result.h"
#include "topo.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *nm_point_verdict(const json_t *res)
{
	return json_is_true(json_object_get(res, "valid")) ? "ok" : "INVALID";
}

static void usage(FILE *out)
{
	fprintf(out,
		"netmem %s - RDMA benchmarks for network-memory research\n\n"
		"Usage: mpirun -np N netmem <command> [options]\n\n"
		"Experiments:\n", NM_VERSION);
	for (size_t i = 0; i < nm_experiment_count(); i++) {
		const nm_experiment *e = nm_experiment_at(i);
		if (!e->tool_main)
			fprintf(out, "  %-10s %s\n", e->name, e->summary);
	}
	fprintf(out, "\nOther commands:\n  %-10s %s\n  %-10s %s\n", "run",
		"run CONFIG.json: a whole sweep inside one mpirun job", "preflight",
		"preflight CONFIG.json...: whether each config fits these hosts, and how long it takes");
	for (size_t i = 0; i < nm_experiment_count(); i++) {
		const nm_experiment *e = nm_experiment_at(i);
		if (e->tool_main)
			fprintf(out, "  %-10s %s\n", e->name, e->summary);
	}
	fprintf(out, "\n`netmem <command> --help` lists a command's options.\n");
}

static void exp_usage(const nm_experiment *e)
{
	const nm_opt *tables[] = {e->opts, nm_harness_opts, NULL};
	char cmd[64];
	snprintf(cmd, sizeof cmd, "netmem %s", e->name);
	nm_opt_usage(stdout, cmd, e->summary, tables);
	if (e->details)
		printf("\n%s\n", e->details);
}


/* Every check after MPI_Init goes through here so the job ends cleanly
 * (finalized, exit 2) with one line from rank 0. */
static void bad_input(const char *msg) { nm_boot_check(msg, NM_EXIT_USAGE); }

/* `netmem run CONFIG.json [flags]`: rank 0 reads the file (ranks need not
 * share a file system) and every rank parses the same text; its schema is
 * harness/config.c's. */
static const nm_experiment *load_config(const char *path, json_t **params, char *err, size_t errlen)
{
	char *text = NULL;
	int ok = 1;
	if (nm_boot_rank() == 0) {
		text = nm_read_text_file(path, err, errlen);
		ok = text != NULL;
	}
	nm_boot_bcast(&ok, sizeof ok, 0);
	if (!ok) {
		bad_input(err);
	}
	char *all = nm_boot_bcast_str(text ? text : "", 0);
	free(text);
	json_t *cfg = nm_config_parse(all, path, err, errlen);
	free(all);
	if (!cfg)
		return NULL;
	const nm_experiment *e = nm_experiment_find(json_string_value(json_object_get(cfg, "experiment")));
	*params = json_object_get(cfg, "params");
	json_incref(*params);
	json_decref(cfg);
	return e;
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = nm_calloc(1, len);
	for (int i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

static json_t *job_meta(nm_dev *dev, const json_t *pt0, int argc, char **argv)
{
	json_t *host = nm_meta_host(dev->ctx, dev->port, dev->gid_index);
	char *mine = json_dumps(host, JSON_COMPACT);
	json_decref(host);
	char **all = nm_boot_gather_str(mine, 0);
	free(mine);
	int emulated = dev->emulated, any_emulated = (int)nm_boot_max_u64((uint64_t)emulated);
	if (nm_boot_rank() != 0)
		return NULL;
	json_t *ranks = json_array(), *hosts = json_array();
	for (int r = 0; r < nm_boot_size(); r++) {
		json_t *h = json_loads(all[r], 0, NULL);
		free(all[r]);
		json_t *hn = json_object_get(h, "hostname");
		bool seen = false;
		size_t i;
		json_t *x;
		json_array_foreach(hosts, i, x) seen |= json_equal(x, hn);
		if (!seen && hn)
			json_array_append(hosts, hn);
		json_object_set_new(h, "rank", json_integer(r));
		json_array_append_new(ranks, h);
	}
	free(all);
	char *cmd = join_argv(argc, argv);
	const char *lane = getenv("NETMEM_SOFTROCE");
	json_t *m = json_pack("{s:o, s:s, s:s, s:i, s:o, s:o, s:b, s:s?}", "software", nm_meta_software(),
			      "command_line", cmd, "started", "", "nranks", nm_boot_size(), "hosts",
			      hosts, "ranks", ranks, "emulated", any_emulated, "softroce_lane", lane);
	char *ts = nm_iso8601_now();
	json_object_set_new(m, "started", json_string(ts));
	free(ts);
	free(cmd);
	if (any_emulated)
		json_object_set_new(m, "timing_note",
				    json_string("Soft-RoCE (rxe) is emulated in software: timings are "
						"for correctness and side-by-side ratios within one run, "
						"not hardware numbers"));
	(void)pt0;
	return m;
}

static void default_output(const char *exp, char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	char ts[32];
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "results/%s-%s.json", exp, ts);
}

/* Collective: the counter deltas of every host's NIC over a point, summed
 * by name, at rank 0 (NULL elsewhere). */
static json_t *point_nic_counters(bool reader, const char *dir, const nm_nic_counters *before)
{
	static nm_nic_counters after;
	char *mine = NULL;
	if (reader) {
		nm_nic_counters_read_dir(dir, &after);
		json_t *d = nm_nic_counters_delta(before, &after);
		mine = json_dumps(d, JSON_COMPACT);
		json_decref(d);
	}
	char **all = nm_boot_gather_str(mine ? mine : "", 0);
	free(mine);
	if (!all)
		return NULL;
	json_t *sum = json_object();
	for (int r = 0; r < nm_boot_size(); r++) {
		json_t *o = *all[r] ? json_loads(all[r], 0, NULL) : NULL;
		if (o)
			nm_nic_counters_merge(sum, o);
		json_decref(o);
		free(all[r]);
	}
	free(all);
	return sum;
}

/* "nic_counters" and, when any of them is a retry counter that moved,
 * "nic_retransmissions": true (takes the reference to nic). */
static void point_add_nic(json_t *rec, json_t *nic)
{
	if (!nic)
		return;
	bool retry = false;
	const char *k;
	json_t *v;
	json_object_foreach(nic, k, v)
		retry |= nm_nic_counter_is_retry(k) && json_integer_value(v) > 0;
	json_object_set_new(rec, "nic_counters", nic);
	json_object_set_new(rec, "nic_retransmissions", json_boolean(retry));
}

static char *point_label(const json_t *spec, const json_t *pt, int rep, int reps)
{
	json_t *axes = nm_point_axes(spec, pt);
	char *s = json_dumps(axes, JSON_COMPACT | JSON_REAL_PRECISION(15));
	json_decref(axes);
	char *out = NULL;
	if (reps > 1) {
		if (asprintf(&out, "%s rep %d/%d", s, rep + 1, reps) < 0)
			out = NULL;
		free(s);
		return out;
	}
	return s;
}

/* One job: a sweep of points run in one mpirun. */
typedef struct job {
	const nm_experiment *e;
	int rank, nranks;
	json_t *spec, *points;
	json_t *run;              /* the NM_OPT_RUN options, out of spec */
	bool resumed;             /* the document existed and is continued */
	size_t npoints;
	int reps;
	nm_base *bases;           /* per point: the harness's options, decoded */
	uint8_t *decoded;         /* per point: the experiment's typed point */
	size_t psize;
	nm_dev dev;
	char *path;
	nm_result res;            /* rank 0 */
	nm_progress prog;
	bool first_row;
	uint64_t invalid, skipped;  /* skipped: points this host cannot honour */
	bool nic_reader;          /* one rank per host reads its NIC's counters */
	char nic_dir[512];
} job;

/* Options into the spec, then every point decoded and checked before the
 * first runs: bad input in the last point of a sweep is found at once, not
 * hours later. Returns the output path asked for ("" for the default). */
static void job_parse(job *j, json_t *config_params, const char *where, int argc, char **argv,
		      char *outpath, size_t outlen, bool *resume, bool *show_progress)
{
	char err[1024] = "";
	const nm_experiment *e = j->e;
	const nm_opt *tables[] = {e->opts, nm_harness_opts, NULL};
	j->spec = nm_opt_parse(tables, config_params, where, argc, argv, err, sizeof err);
	json_decref(config_params);
	if (!j->spec)
		bad_input(err);
	/* How a job is run (NM_OPT_RUN: where it writes, resuming, progress, the
	 * hang timeout; harness_opts.c says why each) is not part of what it
	 * measures: out of the spec, so it is neither in the stored identity of
	 * the sweep nor in the keys of its points, and a resume may change it.
	 * Each run records its own (job_open). */
	j->run = nm_opt_take_run(tables, j->spec);
	nm_boot_set_deadline(nm_cfg_double(j->run, "timeout"));
	nm_boot_set_where("setup");
	if (j->nranks < e->min_ranks) {
		snprintf(err, sizeof err, "%s needs at least %d ranks, this job has %d (start it with "
			 "mpirun -np %d)", e->name, e->min_ranks, j->nranks, e->min_ranks);
		bad_input(err);
	}
	snprintf(outpath, outlen, "%s", nm_cfg_str(j->run, "output"));
	*resume = nm_cfg_bool(j->run, "resume");
	*show_progress = nm_cfg_bool(j->run, "progress");
	j->points = nm_points_sweep(j->spec, err, sizeof err);
	if (!j->points)
		bad_input(err);
	j->npoints = json_array_size(j->points);
	j->reps = (int)nm_cfg_int(j->spec, "reps");
	j->psize = e->point_size ? e->point_size : 1;
	j->bases = nm_calloc(j->npoints, sizeof *j->bases);
	j->decoded = nm_calloc(j->npoints, j->psize);
	size_t i;
	json_t *pt;
	json_array_foreach(j->points, i, pt)
		if (nm_point_decode(e, pt, j->run, j->nranks, NULL, &j->bases[i], j->decoded + i * j->psize, err,
				    sizeof err))
			bad_input(err);
}

/* A job ending early (a failed check, a stopped rank) still leaves a
 * complete document: rank 0 folds the journal of its finished points in. */
static job *exiting_job;
static void fold_on_exit(void)
{
	job *j = exiting_job;
	if (j && j->res.doc && nm_result_save(&j->res) != 0)
		fprintf(stderr, "netmem: the finished points stay in %s (cannot write %s: %s); --resume "
			"folds them in\n", j->res.journal.path, j->path, strerror(errno));
}

/* Collective: every point's needs on this rank against the limits of its
 * own device that a point would otherwise hit in the middle of its measured
 * loop (nm_fit_queue: the send queue's depth, from --tx-depth), before the
 * first point and before the document is written: one line from rank 0,
 * exit 2. netmem preflight reaches the same verdict (nm_fit_rank). */
static void job_device_limits(job *j)
{
	char why[512] = "";
	nm_limits l = {.max_qp_wr = (uint64_t)j->dev.attr.max_qp_wr};
	if (gethostname(l.host, sizeof l.host - 1) != 0)
		snprintf(l.host, sizeof l.host, "rank%d", j->rank);
	snprintf(l.device, sizeof l.device, "%s", j->dev.name);
	for (size_t i = 0; j->dev.ctx && j->e->needs && i < j->npoints && !why[0]; i++) {
		nm_needs n = {0};
		j->e->needs(j->decoded + i * j->psize, &j->bases[i], j->rank, j->nranks, &n);
		if (nm_fit_queue(&n, &l, why, sizeof why) != 0 && j->npoints > 1) {
			char *label = point_label(j->spec, json_array_get(j->points, i), 0, 1);
			size_t k = strlen(why);
			snprintf(why + k, sizeof why - k, " (point %zu of %zu%s%s)", i + 1, j->npoints, label ? ": " : "",
				 label ? label : "");
			free(label);
		}
	}
	bad_input(why[0] ? why : NULL);
}

/* The device, the result document (resumed or new) and this run's metadata. */
static void job_open(job *j, const char *outpath, bool resume, int full_argc, char **full_argv)
{
	char err[1024] = "", def[4096];
	int failed = 0;
	if (j->e->without_device && j->e->without_device(j->spec, j->rank, j->nranks))
		j->dev = (nm_dev){.name = "none", .gid_index = -1};
	else
		failed = nm_dev_open(&j->dev, nm_cfg_str(j->spec, "ib_dev"), (int)nm_cfg_int(j->spec, "ib_port"),
				     (int)nm_cfg_int(j->spec, "gid_index"), err, sizeof err);
	bad_input(failed ? err : NULL);
	job_device_limits(j);
	nm_topo_init();
	if (!*outpath)
		default_output(j->e->name, def, sizeof def);
	j->path = nm_boot_bcast_str(*outpath ? outpath : def, 0);
	if (j->rank == 0)
		failed = nm_result_open(&j->res, j->path, j->e->name, j->spec, resume, err, sizeof err);
	bad_input(j->rank == 0 && failed ? err : NULL);
	int resumed = j->rank == 0 && j->res.resumed;
	nm_boot_bcast(&resumed, sizeof resumed, 0);
	j->resumed = resumed;
	if (j->rank == 0 && (j->res.folded || j->res.torn))
		nm_note("%ld finished point(s) of an interrupted run folded in from %s%s", j->res.folded,
			j->res.journal.path, j->res.torn ? " (its torn last line, a point that never finished, "
			"ignored)" : "");
	if (j->rank == 0) {
		exiting_job = j;
		nm_boot_set_exit_hook(fold_on_exit);
	}
	json_t *meta = job_meta(&j->dev, json_array_get(j->points, 0), full_argc, full_argv);
	if (j->rank == 0) {
		json_t *old = json_object_get(j->res.doc, "meta"), *runs = json_object_get(old, "runs");
		char why[512];
		if (json_array_size(runs) &&
		    nm_meta_same_nics(json_array_get(runs, json_array_size(runs) - 1), meta, why, sizeof why) != 0) {
			snprintf(err, sizeof err, "%s was measured on other hardware (%s): one document holds one NIC's "
				 "numbers; choose another --output", j->path, why);
			json_decref(meta);
			nm_result_close(&j->res);
			failed = 1;
		} else {
			json_t *opts = json_deep_copy(j->run);
			json_object_set_new(opts, "output", json_string(j->path));
			nm_result_add_run(&j->res, meta, opts);
		}
		if (!failed && nm_result_save(&j->res) != 0) {
			snprintf(err, sizeof err, "cannot write %s: %s", j->path, strerror(errno));
			failed = 1;
		}
	}
	bad_input(j->rank == 0 && failed ? err : NULL);
	if (j->dev.emulated)
		nm_note("%s is Soft-RoCE (emulated): timings are for correctness and side-by-side "
			"ratios, not hardware numbers", j->dev.name);
	nm_nic_counters_dir(j->dev.name, j->dev.port, j->nic_dir, sizeof j->nic_dir);
	j->nic_reader = j->dev.ctx != NULL && nm_boot_first_on_host();
}

/* Rank 0: a finished point's record, its row in the table, and the
 * document saved at once (a killed job loses no finished point). */
static void job_record(job *j, const json_t *pt, int rep, const char *key, const char *t0, double secs,
		       json_t *out, json_t *nic)
{
	char *t1 = nm_iso8601_now();
	json_t *rec = json_pack("{s:s, s:O, s:i, s:s, s:s, s:f}", "key", key, "params", pt, "rep", rep,
				"started", t0, "finished", t1, "seconds", secs);
	free(t1);
	json_object_update(rec, out);
	point_add_nic(rec, nic);
	bool retried = json_is_true(json_object_get(rec, "nic_retransmissions"));
	if (json_is_string(json_object_get(rec, "skipped")))
		j->skipped++;
	if (!json_is_true(json_object_get(rec, "valid"))) {
		json_object_set_new(rec, "valid", json_false());
		j->invalid++;
		/* A failed invariant with retries on the wire may be the
		 * transport's (an atomic executed twice), not the algorithm's:
		 * the record says which to suspect. */
		if (retried)
			json_object_set_new(rec, "remark", json_string(
				"the transport retried during this point (nic_counters): a "
				"retransmitted atomic may have executed twice"));
	}
	if (j->e->report) {
		if (j->prog.tty && j->prog.enabled)
			fputs("\r\033[K", stderr);
		j->e->report(pt, rec, j->first_row);
		/* Under the row it belongs to, in every experiment's table. */
		if (retried)
			printf("   retransmitted: true (the NIC counted retransmissions or duplicate "
			       "requests during this point)%s\n",
			       json_is_true(json_object_get(rec, "valid")) ? "" :
			       "; the point failed its checks while the transport retried");
		fflush(stdout);
		j->first_row = false;
	}
	if (nm_result_add_point(&j->res, rec) != 0)
		nm_fatal("cannot record the point in %s: %s", j->res.journal.path, strerror(errno));
}

/* Collective: whether every rank's port can run point i's path MTU. When
 * one cannot, a swept MTU makes the point a skipped one (rank 0 fills out);
 * a single MTU ends the job (exit 2), as a placement the host lacks does. */
static bool mtu_unsupported(job *j, size_t i, json_t *out)
{
	int mtu = j->bases[i].qp.mtu, active = nm_mtu_to_bytes(j->dev.port_attr.active_mtu);
	if (!j->dev.ctx)
		mtu = 0;   /* a rank without a device sends nothing of its own */
	/* the lowest rank that cannot says why (the maximum of nranks - rank) */
	uint64_t lowest = nm_boot_max_u64(mtu > active ? (uint64_t)(j->nranks - j->rank) : 0);
	if (!lowest)
		return false;
	int first = j->nranks - (int)lowest;
	char why[512], *line = NULL;
	if (j->rank == first && asprintf(&line, "path MTU %d exceeds the active MTU %d of %s port %d (rank %d)", mtu,
					 active, j->dev.name, j->dev.port, j->rank) < 0)
		line = NULL;
	char *all = nm_boot_bcast_str(line ? line : "", first);
	free(line);
	snprintf(why, sizeof why, "%s", all);
	free(all);
	if (!json_is_array(json_object_get(j->spec, "mtu")))
		bad_input(why);
	json_object_set_new(out, "valid", json_true());
	json_object_set_new(out, "skipped", json_string(why));
	return true;
}

/* Collective: the path MTU the point's QPs ran at, every rank's, into
 * effective.path_mtu (the smallest; path_mtu_max too when QPs differed). A
 * path MTU is the smaller of its two ports' (verbs.h), so it can be below
 * what a port's own active MTU says. Nothing when no QP was connected. */
static void point_path_mtu(job *j, json_t *out)
{
	int32_t mine[2], *all = nm_calloc((size_t)j->nranks * 2, sizeof *all);
	int lo = 0, hi = 0;
	nm_path_mtu_range(&lo, &hi);
	mine[0] = lo;
	mine[1] = hi;
	nm_boot_allgather(mine, all, sizeof mine);
	lo = hi = 0;
	for (int r = 0; r < j->nranks; r++) {
		if (all[2 * r] > 0 && (lo == 0 || all[2 * r] < lo))
			lo = all[2 * r];
		hi = all[2 * r + 1] > hi ? all[2 * r + 1] : hi;
	}
	free(all);
	if (j->rank != 0 || hi == 0)
		return;
	json_t *eff = json_object_get(out, "effective");
	if (!json_is_object(eff)) {
		eff = json_object();
		json_object_set_new(out, "effective", eff);
	}
	json_object_set_new(eff, "path_mtu", json_integer(lo));
	if (hi != lo)
		json_object_set_new(eff, "path_mtu_max", json_integer(hi));
}

/* One repetition of point i (collective), unless the document holds it. */
static void job_point(job *j, size_t i, int rep)
{
	static nm_nic_counters nic_before;
	json_t *pt = json_array_get(j->points, i);
	char *key = nm_point_key(pt, rep);
	char *label = point_label(j->spec, pt, rep, j->reps), where_now[512];
	snprintf(where_now, sizeof where_now, "point %d/%d %s", (int)i * j->reps + rep + 1,
		 (int)j->npoints * j->reps, label ? label : "");
	nm_boot_set_where(where_now);
	nm_boot_set_deadline(j->bases[i].timeout);
	int skip = j->rank == 0 && nm_result_has(&j->res, key);
	nm_boot_bcast(&skip, sizeof skip, 0);
	if (skip) {
		nm_progress_skip(&j->prog);
		free(label);
		free(key);
		return;
	}
	nm_progress_start(&j->prog, label);
	free(label);
	nm_ctx ctx = {.rank = j->rank, .nranks = j->nranks, .dev = &j->dev, .spec = j->spec, .pt = pt,
		      .base = j->bases[i], .point_index = (int)i, .npoints = (int)j->npoints, .rep = rep,
		      .resumed = j->resumed};
	char *t0 = nm_iso8601_now();
	uint64_t s0 = nm_now_ns();
	json_t *out = json_object();
	if (j->nic_reader)
		nm_nic_counters_read_dir(j->nic_dir, &nic_before);
	nm_boot_barrier();
	nm_path_mtu_reset();
	bool ran = !mtu_unsupported(j, i, out);
	if (ran)
		j->e->run(&ctx, j->decoded + i * j->psize, out);
	nm_boot_barrier();
	if (ran)
		point_path_mtu(j, out);
	json_t *nic = point_nic_counters(j->nic_reader, j->nic_dir, &nic_before);
	double secs = (double)(nm_now_ns() - s0) / 1e9;
	nm_progress_done(&j->prog, secs);
	if (j->rank == 0)
		job_record(j, pt, rep, key, t0, secs, out, nic);
	json_decref(out);
	free(t0);
	free(key);
}

/* The run's end in the document, the closing lines, and everything freed.
 * Returns the job's exit status. */
static int job_finish(job *j)
{
	nm_progress_finish(&j->prog);
	nm_boot_set_where("finishing");
	uint64_t invalid = nm_boot_sum_u64(j->invalid);
	if (j->rank == 0) {
		json_t *runs = json_object_get(json_object_get(j->res.doc, "meta"), "runs");
		char *ts = nm_iso8601_now();
		json_object_set_new(json_array_get(runs, json_array_size(runs) - 1), "finished", json_string(ts));
		free(ts);
		if (j->e->finish)
			j->e->finish(json_object_get(j->res.doc, "points"));
		nm_boot_set_exit_hook(NULL);
		if (nm_result_save(&j->res) != 0)
			nm_fatal("cannot write %s: %s (the finished points are in %s)", j->path, strerror(errno),
				 j->res.journal.path);
		/* One closing line with every count, so a log's last line says it all. */
		fprintf(stderr, "netmem: results in %s: %llu point(s) measured, %llu skipped%s, %llu FAILED "
			"their correctness checks%s\n", j->path, (unsigned long long)j->prog.done - j->skipped,
			(unsigned long long)j->skipped,
			j->skipped ? " (this host cannot honour them: \"skipped\" says why)" : "",
			(unsigned long long)invalid, invalid ? " (\"valid\": false)" : "");
		nm_result_close(&j->res);
	}
	free(j->path);
	for (size_t i = 0; j->e->point_free && i < j->npoints; i++)
		j->e->point_free(j->decoded + i * j->psize);
	free(j->decoded);
	free(j->bases);
	json_decref(j->points);
	json_decref(j->spec);
	json_decref(j->run);
	nm_dev_close(&j->dev);
	nm_topo_fini();
	return invalid ? NM_EXIT_FAIL : 0;
}

static int run_experiment(const nm_experiment *e, json_t *config_params, const char *where,
			  int argc, char **argv, int full_argc, char **full_argv)
{
	job j = {.e = e, .rank = nm_boot_rank(), .nranks = nm_boot_size(), .first_row = true};
	char outpath[4096];
	bool resume, show_progress;
	job_parse(&j, config_params, where, argc, argv, outpath, sizeof outpath, &resume, &show_progress);
	job_open(&j, outpath, resume, full_argc, full_argv);
	nm_progress_init(&j.prog, (int)j.npoints * j.reps, j.rank == 0 && show_progress);
	for (size_t i = 0; i < j.npoints; i++)
		for (int rep = 0; rep < j.reps; rep++)
			job_point(&j, i, rep);
	return job_finish(&j);
}

int main(int argc, char **argv)
{
	/* Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
	 * every writer handles (its temp file removed, the old file kept, one
	 * line), instead of SIGXFSZ killing the process mid-file. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2)
		nm_usage_error("missing command (see netmem --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("netmem %s (%s, build %s)\n", NM_VERSION, NM_GIT, nm_build_id);
		return 0;
	}
	const nm_experiment *e = NULL;
	bool is_run = !strcmp(argv[1], "run"), is_preflight = !strcmp(argv[1], "preflight");
	if (is_preflight) {
		if (nm_opt_wants_help(argc, argv)) {
			nm_preflight_usage();
			return 0;
		}
	} else if (!is_run) {
		e = nm_experiment_find(argv[1]);
		if (!e)
			nm_usage_error("unknown command '%s' (see netmem --help)", argv[1]);
		if (e->tool_main)
			return e->tool_main(argc - 1, argv + 1);
		if (nm_opt_wants_help(argc, argv)) {
			exp_usage(e);
			return 0;
		}
	} else if (argc >= 3 && !strcmp(argv[2], "--check")) {
		if (argc < 4)
			nm_usage_error("run --check: name the config files to check");
		return nm_config_check_main(argc - 3, argv + 3);
	} else if (nm_opt_wants_help(argc, argv)) {
		printf("Usage: mpirun -np N netmem run CONFIG.json [options]\n"
		       "       netmem run --check CONFIG.json...\n\n"
		       "Runs the sweep a config file describes, in one job:\n"
		       "  {\"experiment\": \"ops\", \"description\": \"...\",\n"
		       "   \"params\": {\"op\": [\"read\", \"write\"], \"size\": \"2..4k\", \"reps\": 5}}\n"
		       "\"params\" takes the experiment's options by their long names (with '_' for\n"
		       "'-'); arrays are swept. Options on the command line override the file.\n"
		       "--check lists every problem of each config (keys, plots, the plot scripts\n"
		       "and input configs they name), one line each, then decodes its options and\n"
		       "every point as a run would (for each rank count it runs with; 2 without\n"
		       "\"ranks\"), without starting a job or opening a device; exit 2 when there\n"
		       "is any. A config is a regular file of at most 1 MiB; a sweep has at most\n"
		       "10000 points.\n");
		return 0;
	} else if (argc < 3 || argv[2][0] == '-') {
		nm_usage_error("run: missing CONFIG.json (see netmem run --help)");
	}

	nm_clock_init();
	nm_boot_init(&argc, &argv);
	if (nm_clock_warning())
		nm_note("%s", nm_clock_warning());
	char err[1024] = "";
	json_t *params = NULL;
	int rc;
	if (is_preflight) {
		rc = nm_preflight_main(argc - 1, argv + 1);
	} else if (is_run) {
		e = load_config(argv[2], &params, err, sizeof err);
		if (!e)
			bad_input(err);
		char where[512];
		snprintf(where, sizeof where, "%s: params", argv[2]);
		rc = run_experiment(e, params, where, argc - 3, argv + 3, argc, argv);
	} else {
		rc = run_experiment(e, NULL, NULL, argc - 2, argv + 2, argc, argv);
	}
	nm_boot_finalize();
	return rc;
}
