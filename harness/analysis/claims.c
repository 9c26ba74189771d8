/* Computing the papers' claims from a run's documents
 * (harness/analysis/claims.h). Every entry a claim's selection matches is
 * accounted for: used, failed (invalid, or a zero it would divide by) or
 * left out with the reason, so a failed point can never vanish into a
 * "reproduced". */
#include "claims.h"
#include "alloc.h"
#include "log.h"
#include "result.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const nm_verdict_names[NM_VERDICT_COUNT] = {
	[NM_VERDICT_NOT_RUN] = "not run",
	[NM_VERDICT_NO_MATCH] = "no matching points",
	[NM_VERDICT_INCONSISTENT] = "inconsistent document",
	[NM_VERDICT_FAILED] = "failed run",
	[NM_VERDICT_NOT_EXERCISED] = "not exercised",
	[NM_VERDICT_NOT_REPRODUCED] = "not reproduced",
	[NM_VERDICT_DIRECTION_ONLY] = "direction only",
	[NM_VERDICT_BELOW_RANGE] = "below the paper's range",
	[NM_VERDICT_ABOVE_RANGE] = "above the paper's range",
	[NM_VERDICT_REPRODUCED] = "reproduced",
};

bool nm_verdict_measured(nm_verdict v)
{
	return v != NM_VERDICT_NOT_RUN && v != NM_VERDICT_NO_MATCH && v != NM_VERDICT_INCONSISTENT;
}

typedef enum reduce_kind { REDUCE_MAX, REDUCE_MIN, REDUCE_MEAN, REDUCE_VALUE } reduce_kind;
extern const char *const nm_claim_reductions[]; /* claims_load.c, in reduce_kind's order */

static reduce_kind reduce_of(const json_t *claim)
{
	const char *r = json_string_value(json_object_get(claim, "reduce"));
	int k = 0;
	while (r && nm_claim_reductions[k] && strcmp(r, nm_claim_reductions[k]))
		k++;
	return (reduce_kind)k;
}

/* The values a claim reduces, gathered over the run's documents, and
 * what happened to every entry the selection matched. */
typedef struct gathered {
	double *v;
	size_t n, cap;
	size_t selected, failed, skipped, unexercised;
	char skip_why[200];      /* the first skipped point's reason */
	char unex_why[200];      /* the first entry without the metric that an "exercised" condition explains */
	double exercised[NM_EXERCISED_MAX]; /* the least value of each "exercised" metric */
	size_t ex_missing[NM_EXERCISED_MAX]; /* used entries without it */
	nm_basis basis;
	char docs[256];
	char inconsistent[600];  /* the first inconsistency the claim met, or "" */
	const nm_rundoc *used_docs[64]; /* the documents values came from: their NICs pick the range */
	size_t nused_docs;
	char *left;              /* "- doc {params}: why" lines */
	size_t left_len;
} gathered;

static void push(gathered *g, double v)
{
	if (g->n == g->cap)
		g->v = nm_realloc(g->v, (g->cap = g->cap ? 2 * g->cap : 32) * sizeof *g->v);
	g->v[g->n++] = v;
}

static void leave(gathered *g, const nm_rundoc *d, const json_t *params, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void leave(gathered *g, const nm_rundoc *d, const json_t *params, const char *fmt, ...)
{
	char why[256], *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	size_t add = strlen(d->name) + (p ? strlen(p) : 2) + strlen(why) + 8;
	g->left = nm_realloc(g->left, g->left_len + add + 1);
	g->left_len += (size_t)snprintf(g->left + g->left_len, add + 1, "- %s %s: %s\n", d->name, p ? p : "{}", why);
	free(p);
}

static void inconsistent(gathered *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void inconsistent(gathered *g, const char *fmt, ...)
{
	if (g->inconsistent[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->inconsistent, sizeof g->inconsistent, fmt, ap);
	va_end(ap);
}

static void note_doc(gathered *g, const nm_rundoc *d)
{
	size_t used = strlen(g->docs);
	snprintf(g->docs + used, sizeof g->docs - used, "%s%s", used ? ", " : "", d->name);
	g->basis.emulated |= d->emulated;
	g->basis.soft_roce |= d->soft_roce;
	g->basis.simulated |= d->simulated;
	if (g->nused_docs < sizeof g->used_docs / sizeof g->used_docs[0])
		g->used_docs[g->nused_docs++] = d;
}

/* A NUMA claim's placement, entry by entry: every point of every entry it
 * uses must carry a placement record, and say the NUMA is real. */
static void note_placement(gathered *g, const nm_rundoc *d, const json_t *e, bool numa_claim)
{
	if (!numa_claim || d->simulated)
		return;
	if (!json_is_true(json_object_get(e, "placed")))
		g->basis.numa_unverified = true;
	else if (!json_is_true(json_object_get(e, "numa_real")))
		g->basis.numa_not_real = true;
}

/* Do a and b have equal values for every key but those of the selection? */
static bool paired(const json_t *a, const json_t *b, const json_t *sel)
{
	json_t *ca = json_deep_copy(a), *cb = json_deep_copy(b);
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)sel, key, v) {
		json_object_del(ca, key);
		json_object_del(cb, key);
	}
	bool eq = nm_json_same_value(ca, cb);
	json_decref(ca);
	json_decref(cb);
	return eq;
}

static json_t *merged(const json_t *a, const json_t *b)
{
	json_t *m = a ? json_deep_copy(a) : json_object();
	json_object_update(m, (json_t *)b);
	return m;
}

static const json_t *params_of(const json_t *e)
{
	return json_object_get(e, "params");
}

/* A claim's "exercised" conditions, one object or a list of them: the
 * k-th, or NULL past the last. */
static const json_t *exercised_cond(const json_t *claim, size_t k)
{
	const json_t *ex = json_object_get(claim, "exercised");
	return json_is_array(ex) ? json_array_get(ex, k) : k == 0 ? ex : NULL;
}

/* Every used entry counts: the least value of each condition's metric,
 * and how many entries lack it. */
static void note_exercised(const json_t *claim, const json_t *e, gathered *g)
{
	const json_t *c;
	double v;
	for (size_t k = 0; k < NM_EXERCISED_MAX && (c = exercised_cond(claim, k)); k++) {
		if (g->n == 1) /* the first used entry */
			g->exercised[k] = INFINITY;
		if (!nm_entry_value(e, json_string_value(json_object_get(c, "metric")), true, &v))
			g->ex_missing[k]++;
		else if (v < g->exercised[k])
			g->exercised[k] = v;
	}
}

/* An entry without the claim's metric that an "exercised" condition
 * explains (its metric below the floor: Fig. 16's "after" has no interval
 * when the compaction outlasted the phase): true, with why in buf. */
static bool entry_unexercised(const json_t *claim, const json_t *e, char *buf, size_t len)
{
	const json_t *c;
	double v;
	for (size_t k = 0; k < NM_EXERCISED_MAX && (c = exercised_cond(claim, k)); k++) {
		const char *metric = json_string_value(json_object_get(c, "metric"));
		double min = json_number_value(json_object_get(c, "min"));
		if (nm_entry_value(e, metric, true, &v) && v < min) {
			snprintf(buf, len, "%s reached %.4g, below the %.4g the claim needs", metric, v, min);
			return true;
		}
	}
	return false;
}

/* The first "exercised" condition some used entry did not reach, or -1. */
static int unexercised(const json_t *claim, const gathered *g)
{
	const json_t *c;
	for (size_t k = 0; k < NM_EXERCISED_MAX && (c = exercised_cond(claim, k)); k++)
		if (g->ex_missing[k] || g->exercised[k] < json_number_value(json_object_get(c, "min")))
			return (int)k;
	return -1;
}

/* A metric in a selected entry that no verdict may stand on: present but
 * null, not a number, negative or not finite. Why, into buf, or NULL. */
static const char *bad_number(const json_t *e, const char *metric, char *buf, size_t len)
{
	const json_t *m = json_object_get(json_object_get(e, "geomean"), metric);
	if (!m)
		return NULL;
	if (json_is_null(m))
		snprintf(buf, len, "%s is null (a repetition lacks it, or a value is negative or not finite)", metric);
	else if (!json_is_number(m))
		snprintf(buf, len, "%s is not a number", metric);
	else if (!isfinite(json_number_value(m)))
		snprintf(buf, len, "%s is not finite", metric);
	else if (json_number_value(m) < 0)
		snprintf(buf, len, "%s is negative (%g)", metric, json_number_value(m));
	else
		return NULL;
	return buf;
}

static void bad_entry(gathered *g, const nm_rundoc *d, const json_t *e, const char *why)
{
	char *p = json_dumps(json_object_get(e, "params"), JSON_COMPACT | JSON_SORT_KEYS);
	inconsistent(g, "%s %.200s: %s", d->name, p ? p : "{}", why);
	free(p);
}

/* Why the points of a summary entry were skipped (a path this device
 * lacks), or NULL when they were measured. */
static const char *skipped_reason(const nm_rundoc *d, const json_t *params)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(d->doc, "points"), i, p)
		if (nm_json_same_value(params_of(p), params) && json_is_string(json_object_get(p, "skipped")))
			return json_string_value(json_object_get(p, "skipped"));
	return NULL;
}

/* One entry of a plain claim: its metric (less its "minus" metric, for a
 * difference such as a penalty: each side is a mean of positive values, the
 * difference may be negative, which a mean over signed repetitions could not
 * say), or why it is left out. */
static void gather_value(const json_t *claim, const nm_rundoc *d, const json_t *e, gathered *g, bool numa_claim)
{
	const char *metric = json_string_value(json_object_get(claim, "metric"));
	const char *minus = json_string_value(json_object_get(claim, "minus"));
	double v, w = 0;
	char why[160];
	g->selected++;
	if (bad_number(e, metric, why, sizeof why) || (minus && bad_number(e, minus, why, sizeof why)))
		bad_entry(g, d, e, why);
	if (!json_is_true(json_object_get(e, "valid"))) {
		g->failed++;
		leave(g, d, params_of(e), "failed (invalid point)");
	} else if (!nm_entry_value(e, metric, true, &v) || (minus && !nm_entry_value(e, minus, true, &w))) {
		const char *skip = skipped_reason(d, params_of(e));
		if (skip) {
			if (!g->skipped++)
				snprintf(g->skip_why, sizeof g->skip_why, "%s", skip);
			leave(g, d, params_of(e), "skipped: %s", skip);
		} else if (entry_unexercised(claim, e, why, sizeof why)) {
			if (!g->unexercised++)
				snprintf(g->unex_why, sizeof g->unex_why, "%s", why);
			leave(g, d, params_of(e), "not exercised: %s", why);
		} else
			leave(g, d, params_of(e), "no %s%s%s in its summary", metric, minus ? " or " : "", minus ? minus : "");
	} else {
		push(g, v - w);
		note_exercised(claim, e, g);
		note_placement(g, d, e, numa_claim);
	}
}

/* One numerator entry of a ratio: num over its one den partner, or why not. */
static void gather_ratio(const json_t *claim, const nm_rundoc *d, const json_t *e, const json_t *den,
			 const json_t *keys, gathered *g, bool numa_claim)
{
	const char *metric = json_string_value(json_object_get(claim, "metric"));
	json_t *summary = d->entries, *f, *partner = NULL;
	char why[160];
	size_t k, partners = 0;
	json_array_foreach(summary, k, f)
		if (nm_params_match(params_of(f), den) && paired(params_of(e), params_of(f), keys)) {
			partners++;
			partner = f;
		}
	double a, b;
	g->selected++;
	if (bad_number(e, metric, why, sizeof why))
		bad_entry(g, d, e, why);
	if (partners == 1 && bad_number(partner, metric, why, sizeof why))
		bad_entry(g, d, partner, why);
	if (partners == 0)
		leave(g, d, params_of(e), "no denominator entry with the same other parameters");
	else if (partners > 1)
		leave(g, d, params_of(e), "%zu denominator entries pair with it; the selection must pick one", partners);
	else if (!json_is_true(json_object_get(e, "valid")) || !json_is_true(json_object_get(partner, "valid"))) {
		g->failed++;
		leave(g, d, params_of(e), "failed (the %s point is invalid)",
		      json_is_true(json_object_get(e, "valid")) ? "denominator's" : "numerator's");
	} else if (!nm_entry_value(e, metric, true, &a) || !nm_entry_value(partner, metric, true, &b))
		leave(g, d, params_of(e), "no %s in its or its partner's summary", metric);
	else if (b == 0) {
		g->failed++;
		leave(g, d, params_of(partner), "failed (%s is 0, and the ratio divides by it)", metric);
	} else {
		push(g, a / b);
		note_exercised(claim, e, g);
		note_placement(g, d, e, numa_claim);
		note_placement(g, d, partner, numa_claim);
	}
}

static void gather_doc(const json_t *claim, const nm_rundoc *d, gathered *g, bool numa_claim)
{
	const json_t *select = json_object_get(claim, "select"), *ratio = json_object_get(claim, "ratio");
	json_t *summary = d->entries, *e;
	size_t selected = g->selected, i;
	if (d->inconsistent)
		inconsistent(g, "%s", d->inconsistent);
	json_t *num = merged(select, json_object_get(ratio, "num"));
	json_t *den = merged(select, json_object_get(ratio, "den"));
	json_t *keys = merged(json_object_get(ratio, "num"), json_object_get(ratio, "den"));
	json_array_foreach(summary, i, e) {
		if (!nm_params_match(params_of(e), num))
			continue;
		if (ratio)
			gather_ratio(claim, d, e, den, keys, g, numa_claim);
		else
			gather_value(claim, d, e, g, numa_claim);
	}
	json_decref(num);
	json_decref(den);
	json_decref(keys);
	if (g->selected > selected) /* what a verdict stands on, even one of skipped points */
		note_doc(g, d);
}

static double reduce(reduce_kind kind, const double *v, size_t n)
{
	double r = v[0];
	for (size_t i = 1; i < n; i++) {
		if (kind == REDUCE_MAX)
			r = fmax(r, v[i]);
		else if (kind == REDUCE_MIN)
			r = fmin(r, v[i]);
		else
			r += v[i];
	}
	return kind == REDUCE_MEAN ? r / (double)n : r;
}

/* The part of the NIC a claim's range depends on: that of the ranks its
 * nic_of names ("server"; by default every rank), over every run of every
 * document the values came from. They must agree: else the claim's
 * inconsistency names two of them. */
static bool claim_part(const json_t *claim, gathered *g, char *part, size_t len)
{
	const char *role = json_string_value(json_object_get(claim, "nic_of"));
	char where[160] = "";
	part[0] = '\0';
	for (size_t i = 0; i < g->nused_docs; i++) {
		const nm_rundoc *d = g->used_docs[i];
		json_t *runs = json_object_get(json_object_get(d->doc, "meta"), "runs"), *r, *rank;
		size_t k, j;
		char p[64];
		if (d->simulated || json_array_size(runs) == 0) {
			snprintf(p, sizeof p, "%s", d->simulated ? "no NIC (simulation)" : "no NIC record");
			if (part[0] && strcmp(part, p)) {
				inconsistent(g, "the %s NIC differs: %s (%s) and %s (%s)", role ? role : "ranks'", part, where, p, d->name);
				return false;
			}
			snprintf(part, len, "%s", p);
			snprintf(where, sizeof where, "%s", d->name);
			continue;
		}
		json_array_foreach(runs, k, r) {
			bool any = false;
			json_array_foreach(json_object_get(r, "ranks"), j, rank) {
				const json_t *id = json_object_get(rank, "rank");
				long rk = json_is_integer(id) ? (long)json_integer_value(id) : (long)j;
				if (!nm_rundoc_rank_is(d, r, rk, role))
					continue;
				any = true;
				nm_nic_part_name(json_object_get(rank, "nic"), p, sizeof p);
				if (part[0] && strcmp(part, p)) {
					inconsistent(g, "the %s NIC differs: %s (%s) and %s (%s, run %zu, rank %ld)",
						     role ? role : "ranks'", part, where, p, d->name, k + 1, rk);
					return false;
				}
				snprintf(part, len, "%s", p);
				snprintf(where, sizeof where, "%s, run %zu, rank %ld", d->name, k + 1, rk);
			}
			if (!any) {
				snprintf(p, sizeof p, "no NIC record");
				if (part[0] && strcmp(part, p)) {
					inconsistent(g, "the %s NIC differs: %s (%s) and %s (%s, run %zu)", role ? role : "ranks'",
						     part, where, p, d->name, k + 1);
					return false;
				}
				snprintf(part, len, "%s", p);
				snprintf(where, sizeof where, "%s, run %zu", d->name, k + 1);
			}
		}
	}
	if (!part[0])
		snprintf(part, len, "no NIC record");
	return true;
}

/* The reproduced range for the NIC the claim depends on: ranges_by_nic's
 * entry whose part that NIC's part name contains, else the claim's own,
 * else NULL (a range only some NIC generations have: direction only
 * elsewhere). *ok false when the NICs differ (the claim is inconsistent). */
static const json_t *range_for(const json_t *claim, gathered *g, char *desc, size_t len, bool *ok)
{
	const json_t *rs = json_object_get(claim, "ranges_by_nic"), *r;
	char part[64];
	size_t i;
	*ok = true;
	if (!rs) {
		r = json_object_get(claim, "reproduced");
		if (r)
			snprintf(desc, len, "[%.3g, %.3g]", json_number_value(json_object_get(r, "min")),
				 json_number_value(json_object_get(r, "max")));
		return r;
	}
	if (!(*ok = claim_part(claim, g, part, sizeof part)))
		return NULL;
	const char *role = json_string_value(json_object_get(claim, "nic_of"));
	json_array_foreach(rs, i, r)
		if (strstr(part, json_string_value(json_object_get(r, "part")))) {
			snprintf(desc, len, "%s%s: [%.3g, %.3g]", json_string_value(json_object_get(r, "part")),
				 role && !strcmp(role, "server") ? " (server)" : "",
				 json_number_value(json_object_get(r, "min")), json_number_value(json_object_get(r, "max")));
			return r;
		}
	snprintf(desc, len, "none for %s: direction only", part);
	return NULL;
}

static bool on_side(const json_t *dir, double x)
{
	const json_t *above = json_object_get(dir, "above"), *below = json_object_get(dir, "below");
	return (!above || x > json_number_value(above)) && (!below || x < json_number_value(below));
}

static nm_verdict verdict_of(const json_t *claim, const json_t *range, double x)
{
	const json_t *dir = json_object_get(claim, "direction");
	if (!range) /* an ordering, or no range for this NIC */
		return !on_side(dir, x) ? NM_VERDICT_NOT_REPRODUCED :
		       json_is_null(json_object_get(claim, "paper_value")) ? NM_VERDICT_REPRODUCED :
									     NM_VERDICT_DIRECTION_ONLY;
	double lo = json_number_value(json_object_get(range, "min")), hi = json_number_value(json_object_get(range, "max"));
	if (x >= lo && x <= hi)
		return NM_VERDICT_REPRODUCED;
	if (!on_side(dir, x))
		return NM_VERDICT_NOT_REPRODUCED;
	/* beyond the far bound on the paper's side: not the paper's number either */
	if (x > hi && !json_object_get(dir, "below"))
		return NM_VERDICT_ABOVE_RANGE;
	if (x < lo && !json_object_get(dir, "above"))
		return NM_VERDICT_BELOW_RANGE;
	return NM_VERDICT_DIRECTION_ONLY;
}

/* Where a selection matches nothing: each selected key against the values
 * the claim's documents hold for it. */
static void describe_miss(const json_t *claim, const nm_run *run, char *buf, size_t len)
{
	json_t *sel = merged(json_object_get(claim, "select"), json_object_get(json_object_get(claim, "ratio"), "num"));
	const char *exp = json_string_value(json_object_get(claim, "experiment"));
	const char *docs = json_string_value(json_object_get(claim, "documents")), *key;
	json_t *want;
	size_t used = (size_t)snprintf(buf, len, "the selection matches no entry:"), nkeys = 0;
	json_object_foreach(sel, key, want) {
		json_t *held = json_array();
		for (size_t i = 0; i < run->ndocs; i++) {
			const nm_rundoc *d = &run->docs[i];
			size_t k;
			json_t *e;
			if (d->experiment && !strcmp(d->experiment, exp) && nm_name_matches(d->name, docs))
				json_array_foreach(d->entries, k, e) {
					json_t *v = json_object_get(params_of(e), key);
					if (v && !nm_json_array_has(held, v))
						json_array_append(held, v);
				}
		}
		char *w = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT), *h = json_dumps(held, JSON_COMPACT);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s %s=%s (held: %s)", nkeys++ ? ";" : "", key, w ? w : "?",
						 json_array_size(held) ? h : "absent");
		free(w);
		free(h);
		json_decref(held);
	}
	json_decref(sel);
}

/* Settles the verdict once the values are gathered. */
static void judge(const json_t *claim, const nm_run *run, gathered *g, nm_claim_result *res)
{
	reduce_kind kind = reduce_of(claim);
	int k;
	bool nics_agree = true;
	const json_t *range = NULL;
	if (g->n)
		res->measured = reduce(kind, g->v, g->n);
	res->used = g->n;
	if (g->n && !g->inconsistent[0])
		range = range_for(claim, g, res->range, sizeof res->range, &nics_agree);
	if (g->inconsistent[0] || !nics_agree || (g->n && !isfinite(res->measured))) {
		res->verdict = NM_VERDICT_INCONSISTENT;
		res->used = 0;
		snprintf(res->note, sizeof res->note, "%s", g->inconsistent[0] ? g->inconsistent : "a value that is not finite");
	} else if (g->failed) {
		res->verdict = NM_VERDICT_FAILED;
		snprintf(res->note, sizeof res->note, "%zu of %zu points failed%s", g->failed, g->selected,
			 g->n ? "; the value is over the valid ones" : "; no valid one");
	} else if (g->n == 0 && g->selected && g->skipped == g->selected) {
		res->verdict = NM_VERDICT_NOT_EXERCISED;
		snprintf(res->note, sizeof res->note, "every selected point was skipped: %s", g->skip_why);
	} else if (g->n == 0 && g->selected && g->skipped + g->unexercised == g->selected) {
		res->verdict = NM_VERDICT_NOT_EXERCISED;
		snprintf(res->note, sizeof res->note, "no selected entry exercised it: %s", g->unex_why);
	} else if (g->n == 0) {
		res->verdict = NM_VERDICT_NO_MATCH;
		if (g->selected)
			snprintf(res->note, sizeof res->note, "%zu entries selected, none usable (listed below)", g->selected);
		else
			describe_miss(claim, run, res->note, sizeof res->note);
	} else if (kind == REDUCE_VALUE && g->n != 1) {
		res->verdict = NM_VERDICT_NO_MATCH;
		snprintf(res->note, sizeof res->note, "%zu entries match; the selection must pick one", g->n);
	} else if ((k = unexercised(claim, g)) >= 0) {
		const json_t *c = exercised_cond(claim, (size_t)k);
		res->verdict = NM_VERDICT_NOT_EXERCISED;
		if (g->ex_missing[k])
			snprintf(res->note, sizeof res->note, "%s is absent from %zu of the %zu entries used",
				 json_string_value(json_object_get(c, "metric")), g->ex_missing[k], g->n);
		else
			snprintf(res->note, sizeof res->note, "%s reached %.4g%s, below the %.4g the claim needs",
				 json_string_value(json_object_get(c, "metric")), g->exercised[k],
				 g->n > 1 ? " in some entry used" : "", json_number_value(json_object_get(c, "min")));
	} else {
		res->verdict = verdict_of(claim, range, res->measured);
	}
}

static void evaluate(const json_t *claim, const nm_run *run, nm_claim_result *res)
{
	const char *exp = json_string_value(json_object_get(claim, "experiment"));
	const char *docs = json_string_value(json_object_get(claim, "documents"));
	bool numa_claim = res->paper && !strcmp(res->paper, "numa");
	gathered g = {0};
	size_t ndocs = 0;
	for (size_t i = 0; i < run->ndocs; i++) {
		const nm_rundoc *d = &run->docs[i];
		if (!d->experiment || strcmp(d->experiment, exp) || !nm_name_matches(d->name, docs))
			continue;
		ndocs++;
		gather_doc(claim, d, &g, numa_claim);
	}
	const char *needs = json_string_value(json_object_get(claim, "needs"));
	if (needs) {
		/* the suite cannot compute it yet, whatever the run holds */
		res->verdict = NM_VERDICT_NOT_RUN;
		snprintf(res->note, sizeof res->note, "not computable yet: needs %s", needs);
	} else if (ndocs == 0) {
		res->verdict = NM_VERDICT_NOT_RUN;
		snprintf(res->note, sizeof res->note, "no %s document%s%s in the run", exp, docs ? " " : "",
			 docs ? docs : "");
	} else {
		judge(claim, run, &g, res);
	}
	res->selected = g.selected;
	res->failed = g.failed;
	res->basis = g.basis;
	res->left_out = g.left;
	snprintf(res->documents, sizeof res->documents, "%s", g.docs);
	free(g.v);
}

nm_claim_result *nm_claims_evaluate(const json_t *claims, const nm_run *run, size_t *n)
{
	size_t cap = 0, i, k;
	json_t *paper, *claim;
	*n = 0;
	nm_claim_result *out = NULL;
	json_array_foreach(json_object_get(claims, "papers"), i, paper)
		json_array_foreach(json_object_get(paper, "claims"), k, claim) {
			if (*n == cap)
				out = nm_realloc(out, (cap = cap ? 2 * cap : 16) * sizeof *out);
			nm_claim_result *r = &out[(*n)++];
			*r = (nm_claim_result){.claim = claim, .paper = json_string_value(json_object_get(paper, "id"))};
			evaluate(claim, run, r);
		}
	return out;
}

void nm_claims_free(nm_claim_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(res[i].left_out);
	free(res);
}

bool nm_claim_on_hardware(const nm_claim_result *r)
{
	return nm_verdict_measured(r->verdict) && !r->basis.emulated && !r->basis.numa_not_real &&
	       !r->basis.numa_unverified && !r->basis.simulated;
}

void nm_basis_describe(const nm_basis *b, char *buf, size_t len)
{
	if (b->simulated)
		snprintf(buf, len, "simulation");
	else if (b->emulated)
		snprintf(buf, len, "%s%s", b->soft_roce ? "Soft-RoCE (emulated)" : "no NIC record", b->numa_not_real ? "; NUMA not real" :
							    b->numa_unverified ? "; NUMA not verified" : "");
	else if (b->numa_not_real)
		snprintf(buf, len, "NUMA not real");
	else if (b->numa_unverified)
		snprintf(buf, len, "NUMA not verified");
	else
		snprintf(buf, len, "hardware");
}
