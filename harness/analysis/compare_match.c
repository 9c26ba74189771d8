/* netmem compare: which parameters a document's points are matched on, their
 * one-to-one pairing across the runs, the metric and --per (compare.h).
 * Nothing here depends on the order the runs were named in, but the letters
 * (A, B, ...) the messages give them. */
#include "compare.h"
#include "alloc.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cmp_default_metrics[] = {"mops",     "txns_per_sec", "ops_per_sec", "lat.p50",
					   "lat.mean", "reduction",    "probability", NULL};

#define ABSENT "(absent)"

/* The entries recomputed from the document's points (rundoc.h), never its
 * own summary unchecked. */
static const json_t *summary(const nm_rundoc *doc)
{
	return doc->entries;
}

static char *canon(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : nm_strdup("?");
}

static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

typedef struct scored {
	const char *key;
	double score;
} scored;

static int by_score(const void *a, const void *b)
{
	const scored *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Every parameter of the document's entries, in the order the runs write
 * them (a key's position in the first entry of each run that has it, summed
 * over the runs; ties by name): the harness's option order, whichever run
 * comes first. */
static json_t *key_order(const cmp_doc *d)
{
	json_t *score = json_object();
	for (int r = 0; r < d->nruns; r++) {
		json_t *seen = json_object();
		size_t i;
		json_t *e;
		json_array_foreach(summary(d->docs[r]), i, e) {
			const char *k;
			json_t *v;
			size_t pos = 0;
			json_object_foreach(json_object_get(e, "params"), k, v) {
				if (!json_object_get(seen, k)) {
					json_object_set_new(seen, k, json_true());
					double s = json_real_value(json_object_get(score, k));
					/* a run without the key places it last */
					s += (double)pos - 1000.0;
					json_object_set_new(score, k, json_real(s));
				}
				pos++;
			}
		}
		json_decref(seen);
	}
	size_t n = json_object_size(score), i = 0;
	scored *s = nm_calloc(n ? n : 1, sizeof *s);
	const char *k;
	json_t *v;
	json_object_foreach(score, k, v)
		s[i++] = (scored){k, json_real_value(v)};
	qsort(s, n, sizeof *s, by_score);
	json_t *keys = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(keys, json_string(s[i].key));
	free(s);
	json_decref(score);
	return keys;
}

/* The values (canonical strings, as keys) of key in a run's entries. */
static json_t *value_set(const nm_rundoc *doc, const char *key)
{
	json_t *set = json_object();
	size_t i;
	json_t *e;
	json_array_foreach(summary(doc), i, e) {
		json_t *v = json_object_get(json_object_get(e, "params"), key);
		char *c = v ? canon(v) : nm_strdup(ABSENT);
		json_object_set_new(set, c, json_true());
		free(c);
	}
	return set;
}

static cmp_kind classify_key(const cmp_doc *d, const char *key, bool ignored, char *diff, size_t len,
			     size_t *nvalues)
{
	json_t *sets[CMP_MAX_RUNS] = {0}, *all = json_object();
	bool same = true;
	for (int r = 0; r < d->nruns; r++) {
		sets[r] = value_set(d->docs[r], key);
		same &= json_equal(sets[r], sets[0]);
		json_object_update(all, sets[r]);
	}
	*nvalues = json_object_size(all);
	size_t common = 0;
	const char *v;
	json_t *t;
	json_object_foreach(sets[0], v, t) {
		bool everywhere = true;
		for (int r = 1; r < d->nruns; r++)
			everywhere &= json_object_get(sets[r], v) != NULL;
		common += everywhere;
	}
	diff[0] = '\0';
	for (int r = 0; r < d->nruns && (!same || ignored); r++) {
		cat(diff, len, "%s%c=[", r ? ", " : "", 'A' + r);
		bool first = true;
		json_object_foreach(sets[r], v, t) {
			cat(diff, len, "%s%s", first ? "" : ",", v);
			first = false;
		}
		cat(diff, len, "]");
	}
	for (int r = 0; r < d->nruns; r++)
		json_decref(sets[r]);
	json_decref(all);
	return ignored ? CMP_IGNORED : same ? CMP_SAME : common ? CMP_COMMON : CMP_DISJOINT;
}

void cmp_classify(cmp_doc *d, const json_t *ignore)
{
	d->kinds = json_object();
	d->diffs = json_object();
	d->swept = json_array();
	d->varied = json_array();
	json_t *keys = key_order(d);
	size_t i;
	json_t *k;
	json_array_foreach(keys, i, k) {
		const char *key = json_string_value(k);
		char diff[2048];
		size_t nvalues;
		cmp_kind kind = classify_key(d, key, json_object_get(ignore, key) != NULL, diff, sizeof diff, &nvalues);
		json_object_set_new(d->kinds, key, json_integer(kind));
		if (kind != CMP_SAME)
			json_object_set_new(d->diffs, key, json_string_nocheck(diff));
		if (nvalues > 1)
			json_array_append(kind == CMP_IGNORED ? d->varied : d->swept, k);
	}
	json_decref(keys);
}

/* Does some entry of the run's document have the metric (valid or not)? */
static bool run_has(const nm_rundoc *doc, const char *metric)
{
	size_t i;
	json_t *e;
	json_array_foreach(summary(doc), i, e)
		if (json_is_number(json_object_get(json_object_get(e, "geomean"), metric)))
			return true;
	return false;
}

const char *cmp_pick_metric(const cmp_doc *d, const char *want, cmp_per per)
{
	if (want) {
		for (int r = 0; r < d->nruns; r++)
			if (run_has(d->docs[r], want))
				return want;
		return NULL;
	}
	for (const char *const *m = cmp_default_metrics; *m; m++) {
		if (per != CMP_PER_NONE && !cmp_is_rate(d, *m))
			continue;
		bool all = true;
		for (int r = 0; r < d->nruns && all; r++)
			all = run_has(d->docs[r], *m);
		if (all)
			return *m;
	}
	return NULL;
}

bool cmp_is_rate(const cmp_doc *d, const char *metric)
{
	static const char suffix[] = "_per_sec";
	size_t n = strlen(metric), k = sizeof suffix - 1;
	if (strchr(metric, '.'))
		return false;
	if (n > k && !strcmp(metric + n - k, suffix))
		return true;
	if (metric[0] != 'm' || n < 2)
		return false;
	char unit_rate[256];
	snprintf(unit_rate, sizeof unit_rate, "%s%s", metric + 1, suffix);
	for (int r = 0; r < d->nruns; r++) {
		size_t i;
		json_t *e;
		json_array_foreach(summary(d->docs[r]), i, e)
			if (json_object_get(json_object_get(e, "geomean"), unit_rate))
				return true;
	}
	return false;
}

/* NULL when params.key is a positive whole number, else what it is. */
static const char *not_a_count(const json_t *entry, const char *key)
{
	const json_t *x = json_object_get(json_object_get(entry, "params"), key);
	double n = json_number_value(x);
	if (!x)
		return "no params.%s";
	if (!json_is_number(x) || n < 0 || n != floor(n))
		return "params.%s that is not a count";
	if (n == 0)
		return "params.%s 0 (all of the job's: the count is not in the params)";
	return NULL;
}

char *cmp_per_problem(const cmp_doc *d, cmp_per per)
{
	static const char *const keys[] = {"nodes", "threads"};
	int nkeys = per == CMP_PER_THREAD ? 2 : per == CMP_PER_NODE ? 1 : 0;
	for (int r = 0; r < d->nruns; r++) {
		size_t i;
		json_t *e;
		double v;
		json_array_foreach(summary(d->docs[r]), i, e) {
			if (!nm_entry_metric(e, d->metric, &v))
				continue;
			for (int k = 0; k < nkeys; k++) {
				const char *what = not_a_count(e, keys[k]);
				if (!what)
					continue;
				char label[512], has[128], *line = nm_malloc(1024);
				cmp_label(e, d->swept, label, sizeof label);
				snprintf(has, sizeof has, what, keys[k]);
				snprintf(line, 1024, "--per %s: run %c's point %s has %s; --per %s divides by params.nodes%s",
					 per == CMP_PER_NODE ? "node" : "thread", 'A' + r, label, has,
					 per == CMP_PER_NODE ? "node" : "thread",
					 per == CMP_PER_THREAD ? " x params.threads" : "");
				return line;
			}
		}
	}
	return NULL;
}

double cmp_divisor(const json_t *entry, cmp_per per)
{
	const json_t *p = json_object_get(entry, "params");
	double nodes = json_number_value(json_object_get(p, "nodes"));
	double threads = json_number_value(json_object_get(p, "threads"));
	return per == CMP_PER_NODE ? nodes : per == CMP_PER_THREAD ? nodes * threads : 1;
}

void cmp_label(const json_t *entry, const json_t *keys, char *buf, size_t len)
{
	buf[0] = '\0';
	size_t i;
	json_t *k;
	json_array_foreach(keys, i, k) {
		const json_t *v = json_object_get(json_object_get(entry, "params"), json_string_value(k));
		if (!v)
			continue;
		char *s = canon(v);
		cat(buf, len, "%s%s=%s", buf[0] ? " " : "", json_string_value(k), s);
		free(s);
	}
	for (char *c = buf; *c; c++)
		if (*c == '"')
			*c = '\'';
	if (!buf[0])
		snprintf(buf, len, "(one point)");
}

/* The entry's params without the ignored keys, canonical: what pairs. */
static char *match_key(const json_t *entry, const json_t *ignore)
{
	json_t *p = json_deep_copy(json_object_get(entry, "params"));
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)ignore, k, v)
		json_object_del(p, k);
	char *c = canon(p ? p : json_null());
	json_decref(p);
	return c;
}

static const json_t *first_entry(const cmp_group *g)
{
	for (int r = 0; r < CMP_MAX_RUNS; r++)
		if (g->entries[r])
			return json_array_get(g->entries[r], 0);
	return NULL;
}

/* Absent first, then numbers by value, then strings, then anything else. */
static int value_cmp(const json_t *a, const json_t *b)
{
	int ra = !a ? 0 : json_is_number(a) ? 1 : json_is_string(a) ? 2 : 3;
	int rb = !b ? 0 : json_is_number(b) ? 1 : json_is_string(b) ? 2 : 3;
	if (ra != rb || ra == 0)
		return ra - rb;
	if (ra == 1) {
		double x = json_number_value(a), y = json_number_value(b);
		return x < y ? -1 : x > y;
	}
	if (ra == 2)
		return strcmp(json_string_value(a), json_string_value(b));
	char *x = canon(a), *y = canon(b);
	int c = strcmp(x, y);
	free(x);
	free(y);
	return c;
}

/* In the runs' sweep order (mean position), ties by the swept values. */
static int group_order(const void *a, const void *b, void *swept)
{
	const cmp_group *x = a, *y = b;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	const json_t *px = json_object_get(first_entry(x), "params"), *py = json_object_get(first_entry(y), "params");
	size_t i;
	json_t *k;
	json_array_foreach((json_t *)swept, i, k) {
		int c = value_cmp(json_object_get(px, json_string_value(k)), json_object_get(py, json_string_value(k)));
		if (c)
			return c;
	}
	return strcmp(x->key, y->key);
}

cmp_group *cmp_pair(const cmp_doc *d, const json_t *ignore, size_t *n)
{
	json_t *index = json_object();
	cmp_group *g = NULL;
	size_t cap = 0;
	*n = 0;
	for (int r = 0; r < d->nruns; r++) {
		size_t i;
		json_t *e;
		json_array_foreach(summary(d->docs[r]), i, e) {
			char *key = match_key(e, ignore);
			json_t *gi = json_object_get(index, key);
			size_t at;
			if (gi) {
				at = (size_t)json_integer_value(gi);
				free(key);
			} else {
				if (*n == cap)
					g = nm_realloc(g, (cap = cap ? 2 * cap : 16) * sizeof *g);
				json_object_set_new(index, key, json_integer((json_int_t)*n));
				g[*n] = (cmp_group){.key = key};
				at = (*n)++;
			}
			if (!g[at].entries[r]) {
				g[at].entries[r] = json_array();
				g[at].pos += (double)i;
			}
			json_array_append(g[at].entries[r], e);
		}
	}
	for (size_t i = 0; i < *n; i++) {
		int in = 0;
		for (int r = 0; r < d->nruns; r++)
			in += g[i].entries[r] != NULL;
		g[i].pos /= in;
	}
	if (*n)
		qsort_r(g, *n, sizeof *g, group_order, d->swept);
	json_decref(index);
	return g;
}

void cmp_groups_free(cmp_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].key);
		for (int r = 0; r < CMP_MAX_RUNS; r++)
			json_decref(g[i].entries[r]);
	}
	free(g);
}
