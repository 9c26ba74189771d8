/* Result document: create, add points, summary, resume and its refusals,
 * atomic writes. Everything happens in a fresh mkdtemp directory. */
#include "points.h"
#include "result.h"
#include "tap.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static json_t *load(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j) {
		printf("# bad test JSON: %s\n", je.text);
		exit(99);
	}
	return j;
}

static json_t *mkpoint(const char *params_text, int rep, int valid, const char *metrics_text)
{
	json_t *params = load(params_text);
	char *key = nm_point_key(params, rep);
	json_t *pt = json_pack("{s:s, s:o, s:i, s:b, s:o}", "key", key, "params", params, "rep", rep,
			       "valid", valid, "metrics", load(metrics_text));
	free(key);
	return pt;
}

static char *keyof(const char *params_text, int rep)
{
	json_t *params = load(params_text);
	char *key = nm_point_key(params, rep);
	json_decref(params);
	return key;
}

/* Number of entries in d whose name contains ".tmp.". */
static int temp_files(const char *d)
{
	DIR *dp = opendir(d);
	int n = 0;
	struct dirent *de;
	if (!dp)
		return -1;
	while ((de = readdir(dp)))
		if (strstr(de->d_name, ".tmp."))
			n++;
	closedir(dp);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Number of newline-terminated lines in a file (-1: unreadable). */
static int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int streq(const json_t *v, const char *s)
{
	const char *x = json_string_value(v);
	return x && !strcmp(x, s);
}

static int near(const json_t *v, double want)
{
	return json_is_real(v) && fabs(json_real_value(v) - want) < 1e-9 * fabs(want);
}

#define A "{\"size\": 8, \"iters\": 10}"
#define B "{\"size\": 16, \"iters\": 10}"

static void test_new_and_resume(void)
{
	char path[1024], sub[512], err[2048];
	snprintf(sub, sizeof sub, "%s/sub/deeper", dir);
	snprintf(path, sizeof path, "%s/res.json", sub);
	json_t *spec = load("{\"size\": [8, 16], \"iters\": 10}");
	nm_result r;

	int rc = nm_result_open(&r, path, "read_lat", spec, false, err, sizeof err);
	CHECK(rc == 0, "open a new document (%s)", rc ? err : "");
	if (rc)
		return;
	CHECK(streq(json_object_get(r.doc, "schema"), NM_RESULT_SCHEMA) &&
	      streq(json_object_get(r.doc, "experiment"), "read_lat") &&
	      json_equal(json_object_get(r.doc, "spec"), spec) &&
	      json_is_array(json_object_get(r.doc, "points")),
	      "new document has schema, experiment, spec, points");
	nm_result_set(&r, "meta", json_pack("{s:s}", "host", "node1"));

	rc = nm_result_add_point(&r, mkpoint(A, 0, 1,
		"{\"lat\": {\"p50\": 2, \"max\": 10.0}, \"bw\": 100, \"only0\": 7, \"hist\": [1, 2], \"name\": \"x\","
		" \"zero\": 0, \"flag\": true}"));
	CHECK(rc == 0, "add first point (%s)", rc ? strerror(errno) : "");
	char jpath[1100];
	snprintf(jpath, sizeof jpath, "%s%s", path, NM_RESULT_JOURNAL_SUFFIX);
	CHECK(access(jpath, F_OK) == 0 && access(path, F_OK) != 0,
	      "adding a point appends to the journal (parents created), not to the document");
	rc = nm_result_add_point(&r, mkpoint(A, 1, 0,
		"{\"lat\": {\"p50\": 8, \"max\": 10}, \"bw\": 400, \"zero\": 5, \"only1\": 3}"));
	rc |= nm_result_add_point(&r, mkpoint(B, 0, 1, "{\"lat\": {\"p50\": 3}, \"bw\": 50}"));
	CHECK(rc == 0, "add two more points");
	CHECK(lines(jpath) == 3, "one journal line per point");
	rc = nm_result_save(&r);
	CHECK(rc == 0 && access(path, F_OK) == 0 && access(jpath, F_OK) != 0,
	      "saving writes the document and removes the journal it folded in");
	CHECK(temp_files(sub) == 0, "no temp files left behind after saves");

	json_t *sum = json_object_get(r.doc, "summary");
	CHECK(json_array_size(sum) == 2, "one summary entry per distinct params");
	json_t *sa = json_array_get(sum, 0), *sb = json_array_get(sum, 1);
	json_t *ga = json_object_get(sa, "geomean"), *gb = json_object_get(sb, "geomean");
	json_t *pa = load(A), *pb = load(B);
	CHECK(json_equal(json_object_get(sa, "params"), pa) && json_equal(json_object_get(sb, "params"), pb),
	      "summary in first-appearance order, with params");
	CHECK(json_integer_value(json_object_get(sa, "reps")) == 2 &&
	      json_integer_value(json_object_get(sb, "reps")) == 1, "reps counted");
	CHECK(json_is_false(json_object_get(sa, "valid")), "one invalid rep makes the entry invalid");
	CHECK(json_is_true(json_object_get(sb, "valid")), "all valid reps give valid");
	CHECK(near(json_object_get(ga, "lat.p50"), 4.0), "geomean of 2 and 8 is 4 (nested path)");
	CHECK(near(json_object_get(ga, "lat.max"), 10.0), "geomean of 10.0 and 10 mixes reals and ints");
	CHECK(near(json_object_get(ga, "bw"), 200.0), "geomean of 100 and 400 is 200");
	CHECK(json_is_real(json_object_get(ga, "zero")) && json_real_value(json_object_get(ga, "zero")) == 0.0,
	      "a zero rep gives 0");
	CHECK(json_is_null(json_object_get(ga, "only1")), "a leaf missing from the first rep gives null");
	CHECK(json_is_null(json_object_get(ga, "only0")), "a leaf missing from a later rep gives null");
	CHECK(!json_object_get(ga, "hist") && !json_object_get(ga, "name") && !json_object_get(ga, "flag") &&
	      !json_object_get(ga, "lat"), "arrays, strings, bools and inner objects are not leaves");
	CHECK(near(json_object_get(gb, "lat.p50"), 3.0) && near(json_object_get(gb, "bw"), 50.0),
	      "single rep: geomean is the value");
	CHECK(json_object_size(ga) == 6, "exactly the numeric leaves (%zu)", json_object_size(ga));
	json_decref(pa);
	json_decref(pb);

	/* A point recorded again replaces the old record. */
	rc = nm_result_add_point(&r, mkpoint(B, 0, 1, "{\"lat\": {\"p50\": 5}, \"bw\": 50}"));
	rc |= nm_result_save(&r);
	sum = json_object_get(r.doc, "summary");
	CHECK(rc == 0 && json_array_size(json_object_get(r.doc, "points")) == 3 &&
	      json_integer_value(json_object_get(json_array_get(sum, 1), "reps")) == 1 &&
	      near(json_object_get(json_object_get(json_array_get(sum, 1), "geomean"), "lat.p50"), 5.0),
	      "same key replaces, not duplicates");

	json_t *disk = json_load_file(path, 0, NULL);
	CHECK(disk && json_equal(disk, r.doc), "the file holds the document");
	static const char *const order[] = {"schema", "experiment", "spec", "meta", "points", "summary"};
	size_t i = 0;
	int in_order = disk && json_object_size(disk) == 6;
	const char *key;
	json_t *v;
	json_object_foreach(disk, key, v)
		if (i >= 6 || strcmp(key, order[i++]))
			in_order = 0;
	CHECK(in_order, "top-level keys in documented order");
	json_decref(disk);
	const char *text = slurp(path);
	CHECK(text && text[0] == '{' && text[strlen(text) - 1] == '\n', "file is indented JSON ending in newline");
	nm_result_close(&r);
	CHECK(r.doc == NULL && r.path == NULL, "close clears the handle");

	/* Resume. */
	rc = nm_result_open(&r, path, "read_lat", spec, true, err, sizeof err);
	CHECK(rc == 0, "resume opens the file (%s)", rc ? err : "");
	char *ka0 = keyof(A, 0), *ka1 = keyof(A, 1), *kb0 = keyof(B, 0), *kb1 = keyof(B, 1);
	CHECK(rc == 0 && nm_result_has(&r, ka0) && nm_result_has(&r, ka1) && nm_result_has(&r, kb0),
	      "resumed document has the finished points");
	CHECK(rc == 0 && !nm_result_has(&r, kb1), "and not the unfinished one");
	CHECK(streq(json_object_get(json_object_get(r.doc, "meta"), "host"), "node1"), "meta survives");
	rc = nm_result_add_point(&r, mkpoint(B, 1, 1, "{\"lat\": {\"p50\": 20}, \"bw\": 50}"));
	rc |= nm_result_save(&r);
	CHECK(rc == 0 && nm_result_has(&r, kb1) &&
	      near(json_object_get(json_object_get(json_array_get(json_object_get(r.doc, "summary"), 1),
						   "geomean"), "lat.p50"), 10.0),
	      "a point added after resume joins the summary");
	free(ka0), free(ka1), free(kb0), free(kb1);
	nm_result_close(&r);

	/* Refusals. */
	char want[2048];
	rc = nm_result_open(&r, path, "read_lat", spec, false, err, sizeof err);
	snprintf(want, sizeof want, "%s exists: pass --resume to continue it, or choose another --output", path);
	CHECK(rc == -1 && !strcmp(err, want), "existing file without --resume refused (%s)", err);
	CHECK(r.doc == NULL && r.path == NULL, "failed open leaves an empty handle");
	nm_result_close(&r);

	json_t *other = load("{\"size\": [8, 16], \"iters\": 20}");
	rc = nm_result_open(&r, path, "read_lat", other, true, err, sizeof err);
	snprintf(want, sizeof want,
		 "%s holds a different configuration (iters differs); choose another --output or run the same configuration",
		 path);
	CHECK(rc == -1 && !strcmp(err, want), "different spec refused, naming the key (%s)", err);
	json_decref(other);
	other = load("{\"size\": [8, 16], \"iters\": 10, \"op\": \"read\"}");
	rc = nm_result_open(&r, path, "read_lat", other, true, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "(op differs)"), "an added option is named too (%s)", err);
	json_decref(other);
	rc = nm_result_open(&r, path, "write_lat", spec, true, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "read_lat") && strstr(err, "write_lat"),
	      "different experiment refused (%s)", err);

	json_decref(spec);
}

static void test_bad_files(void)
{
	char path[512], err[512];
	nm_result r;
	json_t *spec = load("{\"iters\": 10}");

	snprintf(path, sizeof path, "%s/bad.json", dir);
	spit(path, "{\n  \"schema\": \"netmem-result/1\",\n  \"points\": ]\n}\n");
	int rc = nm_result_open(&r, path, "x", spec, true, err, sizeof err);
	char want[1024];
	snprintf(want, sizeof want, "%s: line 3 column ", path);
	CHECK(rc == -1 && !strncmp(err, want, strlen(want)), "malformed JSON names file and line (%s)", err);

	snprintf(path, sizeof path, "%s/foreign.json", dir);
	spit(path, "{\"schema\": \"something-else/2\"}");
	rc = nm_result_open(&r, path, "x", spec, true, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "something-else/2") && strstr(err, path), "foreign schema refused (%s)", err);

	snprintf(path, sizeof path, "%s/fresh.json", dir);
	rc = nm_result_open(&r, path, "x", spec, true, err, sizeof err);
	CHECK(rc == 0 && json_array_size(json_object_get(r.doc, "points")) == 0,
	      "resume with no file starts a new document");
	nm_result_close(&r);
	json_decref(spec);
}

static void test_atomic(void)
{
	char path[1024], d[512];
	snprintf(d, sizeof d, "%s/w/x", dir);
	snprintf(path, sizeof path, "%s/y.txt", d);
	CHECK(nm_write_atomic(path, "hello\n") == 0, "write into missing directories");
	const char *t = slurp(path);
	CHECK(t && !strcmp(t, "hello\n"), "content written");
	CHECK(nm_write_atomic(path, "bye\n") == 0 && (t = slurp(path)) && !strcmp(t, "bye\n"),
	      "rewrite replaces the content");
	CHECK(temp_files(d) == 0, "no temp file after success");

	/* Renaming over a directory fails after the temp file was written:
	 * the temp file must be cleaned up and the target left alone. */
	snprintf(path, sizeof path, "%s/adir", d);
	mkdir(path, 0777);
	errno = 0;
	int rc = nm_write_atomic(path, "data");
	struct stat st;
	CHECK(rc == -1 && errno != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode),
	      "failed rename reports an error and leaves the target");
	CHECK(temp_files(d) == 0, "no temp file after a failed rename");

	snprintf(path, sizeof path, "%s/y.txt/z.txt", d);
	errno = 0;
	rc = nm_write_atomic(path, "data");
	CHECK(rc == -1 && errno == ENOTDIR, "a file in the way of the parent fails with ENOTDIR (%s)",
	      strerror(errno));

	snprintf(path, sizeof path, "%s/rel-%ld.txt", dir, (long)getpid());
	char cwd[512];
	CHECK(getcwd(cwd, sizeof cwd) && chdir(dir) == 0 && nm_write_atomic(path + strlen(dir) + 1, "r") == 0 &&
	      chdir(cwd) == 0 && (t = slurp(path)) && !strcmp(t, "r"), "a bare file name writes in the cwd");
}

static void rm_rf(const char *p)
{
	struct stat st;
	if (lstat(p, &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *dp = opendir(p);
		struct dirent *de;
		while (dp && (de = readdir(dp))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char sub[1024];
			snprintf(sub, sizeof sub, "%s/%s", p, de->d_name);
			rm_rf(sub);
		}
		if (dp)
			closedir(dp);
		rmdir(p);
	} else {
		unlink(p);
	}
}

int main(void)
{
	/* Line-buffered, so a crash still shows the checks before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/nm-result-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_new_and_resume();
	test_bad_files();
	test_atomic();
	rm_rf(dir);
	return tap_done();
}
