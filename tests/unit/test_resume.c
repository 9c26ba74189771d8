/* What --resume compares, with the harness's real option table
 * (harness_opts.c): the options that do not change what is measured
 * (NM_OPT_RUN: output, resume, progress, timeout) are taken out of the spec
 * and the point keys, so a document measured with --timeout 30 is continued
 * with --timeout 90 (the message of a poll timeout says to raise it), the
 * finished points recognised, and each run records its own options in
 * meta.runs[]; a measured option that differs (the seed, the QP's ACK
 * timeout) is still refused. Everything happens in a fresh mkdtemp
 * directory. */
#include "experiment.h"
#include "points.h"
#include "result.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const nm_opt exp_opts[] = {
	{"size", 's', NM_OPT_SIZE, "8", 1, 1 << 20, NULL, NM_OPT_LIST, "message size"},
	NM_OPT_END,
};
static const nm_opt *const tables[] = {exp_opts, nm_harness_opts, NULL};

/* The spec of a command line ("-s 8,16 --timeout 90"), its run options
 * taken out into *run, as the harness's job does. */
static json_t *parse(const char *line, json_t **run)
{
	char copy[512], *argv[32], *save = NULL;
	int argc = 0;
	snprintf(copy, sizeof copy, "%s", line);
	for (char *w = strtok_r(copy, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	char err[512];
	json_t *spec = nm_opt_parse(tables, NULL, NULL, argc, argv, err, sizeof err);
	if (!spec) {
		printf("# %s: %s\n", line, err);
		exit(1);
	}
	*run = nm_opt_take_run(tables, spec);
	return spec;
}

static char *first_key(const json_t *spec)
{
	json_t *points = nm_points_expand(spec);
	char *key = nm_point_key(json_array_get(points, 0), 0);
	json_decref(points);
	return key;
}

/* A job on path: opens it (resume or not), records its run and, when
 * point is set, the first point; saves. 0, or -1 with err. */
static int job(const char *path, const char *line, bool point, char *err, size_t errlen)
{
	json_t *run, *spec = parse(line, &run);
	nm_result r;
	int rc = nm_result_open(&r, path, "ops", spec, json_is_true(json_object_get(run, "resume")), err, errlen);
	if (rc == 0) {
		nm_result_add_run(&r, json_pack("{s:s}", "command_line", line), json_deep_copy(run));
		char *key = first_key(spec);
		if (point && !nm_result_has(&r, key))
			rc |= nm_result_add_point(&r, json_pack("{s:s, s:o, s:i, s:b, s:{s:i}}", "key", key, "params",
								json_object(), "rep", 0, "valid", 1, "metrics", "ops", 1));
		free(key);
		rc |= nm_result_save(&r);
		nm_result_close(&r);
	}
	json_decref(spec);
	json_decref(run);
	return rc;
}

int main(void)
{
	char dir[256], path[512], err[1024];
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/nm-resume-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/ops.json", dir);

	json_t *run, *spec = parse("-s 8,16 --timeout 90 --no-progress --output x.json --resume", &run);
	CHECK(json_object_size(run) == 4 && json_real_value(json_object_get(run, "timeout")) == 90 &&
	      json_is_false(json_object_get(run, "progress")) && json_is_true(json_object_get(run, "resume")) &&
	      !strcmp(json_string_value(json_object_get(run, "output")), "x.json"),
	      "the run options taken out: output, resume, progress, timeout");
	static const char *const kept[] = {"seed", "reps", "threads", "ib_dev", "qp_timeout", "retry_cnt", "mtu",
					   "hugepages", "mem_node", "size"};
	bool in_spec = !json_object_get(spec, "timeout") && !json_object_get(spec, "output") &&
		       !json_object_get(spec, "resume") && !json_object_get(spec, "progress");
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
		in_spec &= json_object_get(spec, kept[i]) != NULL;
	CHECK(in_spec, "the measured options stay in the spec (seed, reps, device, QP attributes, ...)");
	char *key = first_key(spec);
	CHECK(key && !strstr(key, "\"timeout\"") && !strstr(key, "\"progress\""), "a point's key holds no run option (%s)", key);
	free(key);
	json_decref(spec);
	json_decref(run);

	CHECK(job(path, "-s 8,16 --timeout 30", true, err, sizeof err) == 0, "a job with --timeout 30 (%s)", err);
	err[0] = 0;
	CHECK(job(path, "-s 8,16 --timeout 90 --no-progress --resume", true, err, sizeof err) == 0,
	      "--resume with --timeout 90 and --no-progress is accepted (%s)", err);
	json_t *doc = json_load_file(path, 0, NULL), *runs = json_object_get(json_object_get(doc, "meta"), "runs");
	CHECK(json_array_size(json_object_get(doc, "points")) == 1, "the finished point recognised, not run again");
	CHECK(json_array_size(runs) == 2 &&
	      json_real_value(json_object_get(json_object_get(json_array_get(runs, 0), "options"), "timeout")) == 30 &&
	      json_real_value(json_object_get(json_object_get(json_array_get(runs, 1), "options"), "timeout")) == 90 &&
	      json_is_false(json_object_get(json_object_get(json_array_get(runs, 1), "options"), "progress")),
	      "each run records its own timeout (30, then 90) in meta.runs[].options");
	CHECK(!json_object_get(json_object_get(doc, "spec"), "timeout"), "the document's spec holds no timeout");
	json_decref(doc);

	err[0] = 0;
	CHECK(job(path, "-s 8,16 --seed 2 --resume", false, err, sizeof err) == -1 && strstr(err, "seed differs"),
	      "--resume with another --seed is refused (%s)", err);
	err[0] = 0;
	CHECK(job(path, "-s 8,16 --qp-timeout 20 --resume", false, err, sizeof err) == -1 &&
	      strstr(err, "qp_timeout differs"), "--resume with another --qp-timeout (measured) is refused (%s)", err);
	err[0] = 0;
	CHECK(job(path, "-s 8,32 --resume", false, err, sizeof err) == -1 && strstr(err, "size differs"),
	      "--resume with another sweep is refused (%s)", err);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
