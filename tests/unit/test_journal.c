/* The journal of finished points (harness/durable.h, harness/result.h):
 * appends, the fold into the document, resuming after a simulated kill (the
 * document never rewritten, the last journal line torn at every possible
 * byte), a kill between the document's rewrite and the journal's removal,
 * and the refusals (a damaged line before the last, a journal without its
 * document). A "kill" here is closing the handle without saving: what a
 * killed job leaves on disk. Everything happens in a fresh mkdtemp
 * directory. */
#include "durable.h"
#include "points.h"
#include "result.h"
#include "tap.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static const char *const EXP = "ops";

static json_t *spec(void) { return json_pack("{s:[i,i,i], s:i}", "size", 8, 16, 32, "iters", 10); }

/* Point number i of a sweep: its own params and a metric equal to i + 1. */
static json_t *point(int i)
{
	json_t *params = json_pack("{s:i, s:i}", "size", 8 << (i % 3), "iters", 10 + i);
	char *key = nm_point_key(params, 0);
	json_t *pt = json_pack("{s:s, s:o, s:i, s:b, s:{s:i}}", "key", key, "params", params, "rep", 0, "valid", 1,
			       "metrics", "ops", i + 1);
	free(key);
	return pt;
}

static char *key_of(int i)
{
	json_t *pt = point(i);
	char *k = strdup(json_string_value(json_object_get(pt, "key")));
	json_decref(pt);
	return k;
}

static void paths(const char *name, char *doc, char *jn, size_t len)
{
	snprintf(doc, len, "%s/%s.json", dir, name);
	snprintf(jn, len, "%s/%s.json%s", dir, name, NM_RESULT_JOURNAL_SUFFIX);
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static size_t disk_points(const char *path)
{
	json_t *d = json_load_file(path, 0, NULL);
	size_t n = json_array_size(json_object_get(d, "points"));
	json_decref(d);
	return n;
}

/* A job that records points 0..n-1 and is killed (no save after the start). */
static int killed_job(const char *doc, int n)
{
	nm_result r;
	char err[512];
	json_t *sp = spec();
	int rc = nm_result_open(&r, doc, EXP, sp, false, err, sizeof err);
	json_decref(sp);
	rc |= nm_result_save(&r); /* what a job does at its start */
	for (int i = 0; i < n && rc == 0; i++)
		rc |= nm_result_add_point(&r, point(i));
	nm_result_close(&r);
	return rc;
}

/* Resumes doc; the number of points it then holds (-1: refused, err set). */
static long resume(const char *doc, nm_result *r, char *err, size_t len)
{
	json_t *sp = spec();
	int rc = nm_result_open(r, doc, EXP, sp, true, err, len);
	json_decref(sp);
	return rc ? -1 : (long)json_array_size(json_object_get(r->doc, "points"));
}

static bool holds_all(const nm_result *r, int n)
{
	for (int i = 0; i < n; i++) {
		char *k = key_of(i);
		bool has = nm_result_has(r, k);
		free(k);
		if (!has)
			return false;
	}
	return true;
}

static void test_append_and_fold(void)
{
	char doc[512], jn[600], err[512];
	paths("fold", doc, jn, sizeof doc);
	CHECK(killed_job(doc, 5) == 0, "a job records 5 points, then is killed");
	CHECK(disk_points(doc) == 0 && file_size(jn) > 0, "the document on disk has none of them, the journal all");
	nm_result r;
	long n = resume(doc, &r, err, sizeof err);
	CHECK(n == 5 && holds_all(&r, 5) && r.folded == 5 && r.torn == 0,
	      "resume folds the 5 points in (%ld, %s)", n, n < 0 ? err : "");
	CHECK(disk_points(doc) == 5 && file_size(jn) < 0, "and saves them into the document, the journal removed");
	json_t *sum = json_object_get(r.doc, "summary");
	CHECK(json_array_size(sum) == 5 &&
	      fabs(json_real_value(json_object_get(json_object_get(json_array_get(sum, 4), "geomean"), "ops")) - 5.0) < 1e-9,
	      "the summary covers the folded points");
	int rc = nm_result_add_point(&r, point(5));
	CHECK(rc == 0 && file_size(jn) > 0 && disk_points(doc) == 5, "a new point after resume goes to a new journal");
	nm_result_close(&r);
	n = resume(doc, &r, err, sizeof err);
	CHECK(n == 6 && holds_all(&r, 6), "a second kill and resume: 6 points (%ld)", n);
	nm_result_close(&r);
}

/* Every truncation of the last line: the other points all come back, the
 * torn one is not claimed, and the point can be recorded again. */
static void test_torn_last_line(void)
{
	char doc[512], jn[600], err[512];
	paths("torn", doc, jn, sizeof doc);
	int bad = 0, cases = 0;
	long full = 0, last_len = 0;
	if (killed_job(doc, 4) != 0)
		bad++;
	char *j = NULL;
	FILE *f = fopen(jn, "rb");
	if (f) {
		full = file_size(jn);
		j = malloc((size_t)full + 1);
		if (fread(j, 1, (size_t)full, f) != (size_t)full)
			bad++;
		fclose(f);
		j[full] = 0;
		char *prev = j + full - 1;
		while (prev > j && prev[-1] != '\n')
			prev--;
		last_len = (j + full) - prev;
	}
	char *k3 = key_of(3);
	/* cut = bytes of the last line kept: 0 (a kill before it) .. all but
	 * its newline */
	for (long cut = 0; j && cut < last_len; cut++, cases++) {
		FILE *w = fopen(jn, "wb");
		if (!w || fwrite(j, 1, (size_t)(full - last_len + cut), w) != (size_t)(full - last_len + cut))
			bad++;
		if (w)
			fclose(w);
		nm_result r;
		long n = resume(doc, &r, err, sizeof err);
		if (n != 3 || !holds_all(&r, 3) || nm_result_has(&r, k3) || r.torn != (size_t)cut ||
		    disk_points(doc) != 3 || file_size(jn) >= 0) {
			printf("# cut %ld: %ld points (%s), torn %zu\n", cut, n, n < 0 ? err : "", r.torn);
			bad++;
		}
		if (n >= 0 && nm_result_add_point(&r, point(3)) != 0)
			bad++;
		nm_result_close(&r);
		n = resume(doc, &r, err, sizeof err);
		if (n != 4 || !holds_all(&r, 4))
			bad++;
		nm_result_close(&r);
		/* back to the killed state: a document with none of them */
		unlink(doc);
		if (killed_job(doc, 0) != 0)
			bad++;
	}
	free(k3);
	free(j);
	CHECK(cases > 10 && bad == 0, "a last line torn at each of its %d lengths: 3 points kept, the 4th "
	      "not claimed, recorded again after resume (%d failures)", cases, bad);
}

static void test_kill_during_save(void)
{
	char doc[512], jn[600], err[512], saved[700];
	paths("midsave", doc, jn, sizeof doc);
	snprintf(saved, sizeof saved, "%s.copy", jn);
	nm_result r;
	json_t *sp = spec();
	int rc = nm_result_open(&r, doc, EXP, sp, false, err, sizeof err);
	json_decref(sp);
	for (int i = 0; i < 3 && rc == 0; i++)
		rc |= nm_result_add_point(&r, point(i));
	/* the journal as it was before the final save removed it */
	rc |= link(jn, saved);
	rc |= nm_result_save(&r);
	nm_result_close(&r);
	rc |= rename(saved, jn);
	long n = resume(doc, &r, err, sizeof err);
	CHECK(rc == 0 && n == 3 && holds_all(&r, 3),
	      "killed after the document's rewrite, before the journal's removal: 3 points, not 6 (%ld)", n);
	nm_result_close(&r);
}

static void test_refusals(void)
{
	char doc[512], jn[600], err[512];
	paths("damaged", doc, jn, sizeof doc);
	killed_job(doc, 3);
	/* damage the middle line */
	FILE *f = fopen(jn, "r+b");
	char line[4096];
	if (f && fgets(line, sizeof line, f)) {
		fseek(f, (long)strlen(line) + 2, SEEK_SET);
		fputs("#garbage#", f);
	}
	if (f)
		fclose(f);
	nm_result r;
	long n = resume(doc, &r, err, sizeof err);
	CHECK(n == -1 && strstr(err, "line 2 is damaged") && strstr(err, jn),
	      "a damaged line before the last is refused, naming file and line (%s)", err);
	CHECK(file_size(jn) > 0, "and the journal is kept");
	nm_result_close(&r);

	paths("orphan", doc, jn, sizeof doc);
	killed_job(doc, 2);
	unlink(doc);
	json_t *sp = spec();
	int rc = nm_result_open(&r, doc, EXP, sp, true, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "document") && strstr(err, "missing"),
	      "a journal without its document is refused (%s)", err);
	rc = nm_result_open(&r, doc, EXP, sp, false, err, sizeof err);
	CHECK(rc == -1, "also without --resume (%s)", err);
	json_decref(sp);

	paths("foreign", doc, jn, sizeof doc);
	killed_job(doc, 0);
	f = fopen(jn, "w");
	if (f) {
		fputs("{\"no_key\": 1}\n", f);
		fclose(f);
	}
	n = resume(doc, &r, err, sizeof err);
	CHECK(n == -1 && strstr(err, "line 1"), "a line that is no point record is refused (%s)", err);
	nm_result_close(&r);
}

static int count_cb(json_t *rec, void *arg)
{
	(*(int *)arg)++;
	json_decref(rec);
	return 0;
}

static void test_replay(void)
{
	char p[512], err[256];
	snprintf(p, sizeof p, "%s/plain.journal", dir);
	nm_journal j;
	int rc = nm_journal_init(&j, p);
	CHECK(rc == 0 && !nm_journal_exists(&j), "a named journal has no file yet");
	json_t *a = json_pack("{s:i}", "a", 1), *b = json_pack("[s]", "line\nbreak");
	rc = nm_journal_append(&j, a) | nm_journal_append(&j, b);
	CHECK(rc == 0 && nm_journal_exists(&j), "two appends");
	int seen = 0;
	size_t torn = 99;
	long n = nm_journal_replay(p, count_cb, &seen, &torn, err, sizeof err);
	CHECK(n == 2 && seen == 2 && torn == 0, "replay: 2 records, a newline inside a string escaped (%ld)", n);
	FILE *f = fopen(p, "a");
	if (f) {
		fputs("{\"complete\": true}", f); /* whole, but its newline never written */
		fclose(f);
	}
	n = nm_journal_replay(p, count_cb, &seen, &torn, err, sizeof err);
	CHECK(n == 2 && torn == strlen("{\"complete\": true}"),
	      "a last line without its newline is an interrupted append, not a record");
	rc = nm_journal_remove(&j);
	n = nm_journal_replay(p, count_cb, &seen, &torn, err, sizeof err);
	CHECK(rc == 0 && !nm_journal_exists(&j) && n == 0, "removed: nothing to replay");
	CHECK(nm_journal_remove(&j) == 0, "removing a missing journal is fine");
	json_decref(a);
	json_decref(b);
	nm_journal_close(&j);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/nm-journal-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_append_and_fold();
	test_torn_last_line();
	test_kill_during_save();
	test_refusals();
	test_replay();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
