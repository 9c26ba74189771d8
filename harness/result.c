/* Result document layout ("netmem-result/1"); the plotting and report tools
 * read it, so changes need a new schema string:
 *
 * {
 *   "schema": "netmem-result/1",
 *   "experiment": NAME,
 *   "spec": {...},       the full specification; sweep axes are arrays
 *   "meta": {...},       set by the caller (host, device, versions, ...)
 *   "points": [          one entry per finished (params, repetition)
 *     {"key": "<compact sorted params JSON>#<rep>", "params": {...},
 *      "rep": N, "valid": bool, "metrics": {... possibly nested ...}, ...}
 *   ],
 *   "summary": [         one entry per distinct params, in first-seen order
 *     {"params": {...}, "reps": count of points, "valid": all reps valid,
 *      "geomean": {"dotted.path": geometric mean over the reps | null}}
 *   ]
 * }
 *
 * "geomean" has one entry per numeric leaf of "metrics" (nested objects
 * flattened with '.', arrays skipped); it is null when the mean is undefined:
 * the leaf is missing from a repetition, or some repetition's value is
 * negative. A zero in any repetition makes it 0.
 *
 * Finished points go to an append-only journal beside the document
 * (PATH.journal, harness/durable.h), one fsync'd line each, so recording a
 * point costs the point's size, not the document's. The document is
 * rewritten (with its summary) only by nm_result_save: when a job starts
 * (after folding a resumed journal in) and when it ends. Between the two the
 * document on disk holds the points of earlier jobs and the journal holds
 * this job's; --resume folds them. */
#include "result.h"
#include "stats.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- summary ---- */

/* Copies every numeric leaf of m into flat as "a.b.c": real. */
static void flatten(const json_t *m, const char *prefix, json_t *flat)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)m, key, v) {
		size_t n = strlen(prefix) + strlen(key) + 2;
		char *path = malloc(n);
		if (!path)
			return;
		snprintf(path, n, "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_is_object(v))
			flatten(v, path, flat);
		else if (json_is_number(v))
			json_object_set_new(flat, path, json_real(json_number_value(v)));
		free(path);
	}
}

static json_t *geomeans(const json_t *flats)
{
	json_t *geo = json_object();
	size_t nreps = json_array_size(flats), i;
	double *vals = calloc(nreps ? nreps : 1, sizeof *vals);
	json_t *flat;
	if (!geo || !vals) {
		free(vals);
		return geo;
	}
	/* Union of the leaves, in the order they first appear. */
	json_array_foreach(flats, i, flat) {
		const char *path;
		json_t *x;
		json_object_foreach(flat, path, x) {
			if (json_object_get(geo, path))
				continue;
			bool all = true;
			for (size_t r = 0; r < nreps && all; r++) {
				json_t *y = json_object_get(json_array_get(flats, r), path);
				if (y)
					vals[r] = json_real_value(y);
				else
					all = false;
			}
			double g = all ? nm_geomean(vals, nreps) : NAN;
			json_object_set_new(geo, path, isfinite(g) ? json_real(g) : json_null());
		}
	}
	free(vals);
	return geo;
}

static json_t *summarize(const json_t *points)
{
	json_t *summary = json_array();
	json_t *index = json_object();  /* canonical params -> group number */
	json_t *flats = json_array();   /* per group: array of flattened metrics */
	size_t i;
	json_t *pt;
	if (!summary || !index || !flats)
		goto out;
	json_array_foreach(points, i, pt) {
		json_t *params = json_object_get(pt, "params");
		char *canon = json_dumps(params ? params : json_null(),
					 JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		if (!canon)
			continue;
		json_t *gi = json_object_get(index, canon);
		json_t *entry;
		if (!gi) {
			entry = json_object();
			json_object_set_new(entry, "params",
					    params ? json_deep_copy(params) : json_null());
			json_object_set_new(entry, "reps", json_integer(0));
			json_object_set_new(entry, "valid", json_true());
			json_object_set_new(index, canon, json_integer((json_int_t)json_array_size(summary)));
			json_array_append_new(summary, entry);
			json_array_append_new(flats, json_array());
			gi = json_object_get(index, canon);
		}
		free(canon);
		size_t g = (size_t)json_integer_value(gi);
		entry = json_array_get(summary, g);
		json_object_set_new(entry, "reps",
				    json_integer(json_integer_value(json_object_get(entry, "reps")) + 1));
		if (!json_is_true(json_object_get(pt, "valid")))
			json_object_set_new(entry, "valid", json_false());
		json_t *flat = json_object();
		json_t *metrics = json_object_get(pt, "metrics");
		if (json_is_object(metrics))
			flatten(metrics, "", flat);
		json_array_append_new(json_array_get(flats, g), flat);
	}
	json_t *entry;
	json_array_foreach(summary, i, entry)
		json_object_set_new(entry, "geomean", geomeans(json_array_get(flats, i)));
out:
	json_decref(index);
	json_decref(flats);
	return summary;
}

json_t *nm_result_summary(const json_t *points)
{
	return summarize(points);
}

/* ---- document ---- */

bool nm_json_same_value(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!nm_json_same_value(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a) && json_is_object(b)) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		const char *key;
		json_t *v;
		json_object_foreach((json_t *)a, key, v)
			if (!nm_json_same_value(v, json_object_get(b, key)))
				return false;
		return true;
	}
	return a && b && json_equal((json_t *)a, (json_t *)b);
}

/* A key whose value differs between two specs, for the error message. */
static const char *spec_diff(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *v;
	if (!json_is_object(a) || !json_is_object(b))
		return "spec";
	json_object_foreach((json_t *)a, key, v)
		if (!nm_json_same_value(v, json_object_get(b, key)))
			return key;
	json_object_foreach((json_t *)b, key, v)
		if (!json_object_get(a, key))
			return key;
	return "spec";
}

static json_t *new_doc(const char *experiment, const json_t *spec)
{
	json_t *doc = json_object();
	if (!doc)
		return NULL;
	json_object_set_new(doc, "schema", json_string(NM_RESULT_SCHEMA));
	json_object_set_new(doc, "experiment", json_string(experiment ? experiment : ""));
	json_object_set_new(doc, "spec", spec ? json_deep_copy(spec) : json_object());
	json_object_set_new(doc, "meta", json_object());
	json_object_set_new(doc, "points", json_array());
	json_object_set_new(doc, "summary", json_array());
	return doc;
}

static int load_doc(nm_result *r, const char *path, const char *experiment, const json_t *spec,
		    char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc) {
		/* jansson reports line -1 when the file could not be read at all. */
		if (je.line > 0)
			fail(err, errlen, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
		else
			fail(err, errlen, "%s", je.text);
		return -1;
	}
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!json_is_object(doc) || !schema || strcmp(schema, NM_RESULT_SCHEMA)) {
		fail(err, errlen, "%s is not a netmem result (schema '%s', expected '%s')", path,
		     schema ? schema : "none", NM_RESULT_SCHEMA);
		goto bad;
	}
	const char *exp = json_string_value(json_object_get(doc, "experiment"));
	if (!exp || strcmp(exp, experiment ? experiment : "")) {
		fail(err, errlen, "%s holds results of experiment '%s', not '%s'; choose another --output",
		     path, exp ? exp : "none", experiment ? experiment : "");
		goto bad;
	}
	const json_t *stored = json_object_get(doc, "spec");
	if (!stored || !nm_json_same_value(stored, spec)) {
		fail(err, errlen,
		     "%s holds a different configuration (%s differs); choose another --output or run the same configuration",
		     path, spec_diff(stored, spec));
		goto bad;
	}
	if (!json_is_array(json_object_get(doc, "points"))) {
		fail(err, errlen, "%s: \"points\" is not an array", path);
		goto bad;
	}
	r->doc = doc;
	return 0;
bad:
	json_decref(doc);
	return -1;
}

/* Puts a point into the in-memory document: a point run again (same key)
 * replaces the old record, so "reps" in the summary never counts a
 * repetition twice. Constant time: the index maps keys to positions.
 * Steals point. */
static int insert_point(nm_result *r, json_t *point)
{
	json_t *points = json_object_get(r->doc, "points");
	const char *key = json_string_value(json_object_get(point, "key"));
	if (!json_is_object(point) || !json_is_array(points)) {
		json_decref(point);
		errno = EINVAL;
		return -1;
	}
	json_t *at = key ? json_object_get(r->index, key) : NULL;
	if (at) {
		json_array_set_new(points, (size_t)json_integer_value(at), point);
	} else {
		if (key)
			json_object_set_new(r->index, key, json_integer((json_int_t)json_array_size(points)));
		json_array_append_new(points, point);
	}
	r->stale = true;
	return 0;
}

static int replay_one(json_t *rec, void *arg)
{
	nm_result *r = arg;
	if (!json_is_string(json_object_get(rec, "key"))) {
		json_decref(rec);
		return -1;
	}
	return insert_point(r, rec);
}

/* The key -> position index of the loaded points (the last of duplicates). */
static void index_points(nm_result *r)
{
	size_t i;
	json_t *pt;
	json_array_foreach(json_object_get(r->doc, "points"), i, pt) {
		const char *k = json_string_value(json_object_get(pt, "key"));
		if (k)
			json_object_set_new(r->index, k, json_integer((json_int_t)i));
	}
}

/* A journal left by an interrupted job: its points join the document,
 * which is saved at once (so later appends start a fresh journal, never
 * after a torn line). */
static int fold_journal(nm_result *r, char *err, size_t errlen)
{
	char why[1024];
	size_t torn = 0;
	long n = nm_journal_replay(r->journal.path, replay_one, r, &torn, why, sizeof why);
	if (n < 0) {
		fail(err, errlen, "%s", why);
		return -1;
	}
	r->folded = n;
	r->torn = torn;
	if ((n > 0 || torn > 0 || nm_journal_exists(&r->journal)) && nm_result_save(r) != 0) {
		fail(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_existing(nm_result *r, const char *path, const char *experiment, const json_t *spec,
			 bool resume, char *err, size_t errlen)
{
	if (!resume) {
		fail(err, errlen, "%s exists: pass --resume to continue it, or choose another --output", path);
		return -1;
	}
	if (load_doc(r, path, experiment, spec, err, errlen))
		return -1;
	r->resumed = true;
	index_points(r);
	return fold_journal(r, err, errlen);
}

int nm_result_open(nm_result *r, const char *path, const char *experiment, const json_t *spec,
		   bool resume, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->journal.fd = -1;
	if (err && errlen)
		err[0] = 0;
	size_t n = strlen(path) + sizeof NM_RESULT_JOURNAL_SUFFIX;
	char *jpath = malloc(n);
	r->path = strdup(path);
	r->index = json_object();
	if (!jpath || !r->path || !r->index || (snprintf(jpath, n, "%s" NM_RESULT_JOURNAL_SUFFIX, path),
						 nm_journal_init(&r->journal, jpath))) {
		free(jpath);
		fail(err, errlen, "%s: out of memory", path);
		nm_result_close(r);
		return -1;
	}
	free(jpath);
	struct stat st;
	int rc = 0;
	if (stat(path, &st) == 0) {
		rc = open_existing(r, path, experiment, spec, resume, err, errlen);
	} else if (errno != ENOENT) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	} else if (nm_journal_exists(&r->journal)) {
		fail(err, errlen, "%s holds finished points but its document %s is missing; restore the "
		     "document or remove the journal", r->journal.path, path);
		rc = -1;
	} else if (!(r->doc = new_doc(experiment, spec))) {
		fail(err, errlen, "%s: out of memory", path);
		rc = -1;
	}
	if (rc)
		nm_result_close(r);
	return rc;
}

bool nm_result_has(const nm_result *r, const char *key)
{
	return r->doc && key && json_object_get(r->index, key) != NULL;
}

int nm_result_add_point(nm_result *r, json_t *point)
{
	if (!r->doc || !json_is_object(point) || !json_is_string(json_object_get(point, "key"))) {
		json_decref(point);
		errno = EINVAL;
		return -1;
	}
	/* Durable first: a point is finished once its journal line is on disk. */
	if (nm_journal_append(&r->journal, point) != 0) {
		int saved = errno;
		json_decref(point);
		errno = saved;
		return -1;
	}
	return insert_point(r, point);
}

void nm_result_add_run(nm_result *r, json_t *run, json_t *options)
{
	if (options)
		json_object_set_new(run, "options", options);
	json_t *meta = json_object_get(r->doc, "meta"), *runs = json_object_get(meta, "runs");
	if (json_is_array(runs))
		json_array_append_new(runs, run);
	else
		nm_result_set(r, "meta", json_pack("{s:[o]}", "runs", run));
}

void nm_result_set(nm_result *r, const char *key, json_t *value)
{
	if (r->doc)
		json_object_set_new(r->doc, key, value);
	else
		json_decref(value);
}

int nm_result_save(nm_result *r)
{
	if (!r->doc || !r->path) {
		errno = EINVAL;
		return -1;
	}
	json_object_set_new(r->doc, "summary", summarize(json_object_get(r->doc, "points")));
	r->stale = false;
	size_t len;
	char *nl = nm_json_text_line(r->doc, JSON_INDENT(1), &len);
	if (!nl)
		return -1;
	/* The document first, then the journal goes: a kill in between leaves
	 * points in both, and folding them again replaces them by key. */
	int rc = nm_write_atomic(r->path, nl);
	int saved = errno;
	free(nl);
	if (rc == 0)
		rc = nm_journal_remove(&r->journal);
	else
		errno = saved;
	return rc;
}

void nm_result_close(nm_result *r)
{
	json_decref(r->doc);
	json_decref(r->index);
	free(r->path);
	nm_journal_close(&r->journal);
	r->doc = r->index = NULL;
	r->path = NULL;
}
