/* Computing the papers' claims from a run's documents
 * (harness/analysis/claims.h). */
#include "claims.h"
#include "alloc.h"
#include "log.h"
#include "result.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const nm_verdict_names[NM_VERDICT_COUNT] = {
	[NM_VERDICT_NOT_RUN] = "not run",
	[NM_VERDICT_NOT_REPRODUCED] = "not reproduced",
	[NM_VERDICT_DIRECTION_ONLY] = "direction only",
	[NM_VERDICT_REPRODUCED] = "reproduced",
};

typedef enum reduce_kind { REDUCE_MAX, REDUCE_MIN, REDUCE_MEAN, REDUCE_VALUE, REDUCE_COUNT } reduce_kind;
static const char *const reduce_names[REDUCE_COUNT] = {
	[REDUCE_MAX] = "max", [REDUCE_MIN] = "min", [REDUCE_MEAN] = "mean", [REDUCE_VALUE] = "value",
};

static int reduce_of(const json_t *claim)
{
	const char *r = json_string_value(json_object_get(claim, "reduce"));
	for (int k = 0; r && k < REDUCE_COUNT; k++)
		if (!strcmp(r, reduce_names[k]))
			return k;
	return -1;
}

json_t *nm_claims_load(const char *path, char *err, size_t len)
{
	json_error_t je;
	json_t *c = json_load_file(path, 0, &je);
	if (!c) {
		nm_errf(err, len, "%s: line %d: %s", path, je.line, je.text);
		return NULL;
	}
	size_t i, k;
	json_t *paper, *claim;
	if (!json_is_array(json_object_get(c, "papers")))
		goto bad;
	json_array_foreach(json_object_get(c, "papers"), i, paper) {
		if (!json_is_string(json_object_get(paper, "id")))
			goto bad;
		json_array_foreach(json_object_get(paper, "claims"), k, claim) {
			const json_t *ratio = json_object_get(claim, "ratio");
			const char *id = json_string_value(json_object_get(claim, "id"));
			if (!id || !json_is_string(json_object_get(claim, "claim")) ||
			    !json_is_string(json_object_get(claim, "experiment")) ||
			    !json_is_string(json_object_get(claim, "metric")) || reduce_of(claim) < 0 ||
			    (ratio && (!json_is_object(json_object_get(ratio, "num")) ||
				       !json_is_object(json_object_get(ratio, "den"))))) {
				nm_errf(err, len, "%s: claim '%s' needs claim, experiment, metric, reduce (max, min, mean "
					"or value) and, with ratio, its num and den selections", path, id ? id : "?");
				json_decref(c);
				return NULL;
			}
		}
	}
	return c;
bad:
	nm_errf(err, len, "%s: not a claims file (want {\"papers\": [{\"id\", \"claims\": [...]}]})", path);
	json_decref(c);
	return NULL;
}

/* The values a claim reduces, gathered over the run's documents. */
typedef struct gathered {
	double *v;
	size_t n, cap;
	nm_basis basis;
	char docs[256];
	size_t ambiguous;  /* ratio: num entries with several den partners */
} gathered;

static void push(gathered *g, double v)
{
	if (g->n == g->cap)
		g->v = nm_realloc(g->v, (g->cap = g->cap ? 2 * g->cap : 32) * sizeof *g->v);
	g->v[g->n++] = v;
}

static void note_doc(gathered *g, const nm_rundoc *d)
{
	size_t used = strlen(g->docs);
	snprintf(g->docs + used, sizeof g->docs - used, "%s%s", used ? ", " : "", d->name);
	g->basis.emulated |= d->emulated;
	g->basis.numa_not_real |= d->numa_not_real;
	g->basis.simulated |= d->simulated;
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
	json_t *m = json_deep_copy(a);
	json_object_update(m, (json_t *)b);
	return m;
}

/* One document's contribution: the metric of every selected valid entry,
 * or, with a ratio, num over den for every num entry with a partner. */
static void gather_doc(const json_t *claim, const nm_rundoc *d, gathered *g)
{
	const char *metric = json_string_value(json_object_get(claim, "metric"));
	const json_t *select = json_object_get(claim, "select");
	const json_t *ratio = json_object_get(claim, "ratio");
	json_t *summary = json_object_get(d->doc, "summary");
	size_t before = g->n, i, k;
	json_t *e, *f;
	if (!ratio) {
		json_array_foreach(summary, i, e) {
			double v;
			/* a value may be 0 (a count that had none, such as CoRM's
			 * conflicts, is a measurement); a ratio's sides may not */
			if (nm_params_match(json_object_get(e, "params"), select) && nm_entry_value(e, metric, true, &v))
				push(g, v);
		}
	} else {
		json_t *num = merged(select, json_object_get(ratio, "num"));
		json_t *den = merged(select, json_object_get(ratio, "den"));
		json_t *keys = merged(json_object_get(ratio, "num"), json_object_get(ratio, "den"));
		json_array_foreach(summary, i, e) {
			double a, b;
			if (!nm_params_match(json_object_get(e, "params"), num) || !nm_entry_metric(e, metric, &a))
				continue;
			size_t partners = 0;
			double r = 0;
			json_array_foreach(summary, k, f)
				if (nm_params_match(json_object_get(f, "params"), den) &&
				    paired(json_object_get(e, "params"), json_object_get(f, "params"), keys) &&
				    nm_entry_metric(f, metric, &b)) {
					partners++;
					r = a / b;
				}
			if (partners == 1)
				push(g, r);
			else if (partners > 1)
				g->ambiguous++;
		}
		json_decref(num);
		json_decref(den);
		json_decref(keys);
	}
	if (g->n > before)
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

/* Is x inside the bounds {"min", "max"} (either may be absent)? With
 * `above`/`below` keys: on that side (strictly) of the value. */
static bool within(const json_t *range, double x)
{
	json_t *lo = json_object_get(range, "min"), *hi = json_object_get(range, "max");
	json_t *above = json_object_get(range, "above"), *below = json_object_get(range, "below");
	return (!json_is_number(lo) || x >= json_number_value(lo)) && (!json_is_number(hi) || x <= json_number_value(hi)) &&
	       (!json_is_number(above) || x > json_number_value(above)) &&
	       (!json_is_number(below) || x < json_number_value(below));
}

static nm_verdict verdict_of(const json_t *claim, double x)
{
	const json_t *repro = json_object_get(claim, "reproduced");
	const json_t *dir = json_object_get(claim, "direction");
	/* An ordering (no paper value) is reproduced when its direction holds. */
	if (json_is_null(json_object_get(claim, "paper_value")) || !repro)
		return within(dir, x) ? NM_VERDICT_REPRODUCED : NM_VERDICT_NOT_REPRODUCED;
	if (within(repro, x))
		return NM_VERDICT_REPRODUCED;
	return dir && within(dir, x) ? NM_VERDICT_DIRECTION_ONLY : NM_VERDICT_NOT_REPRODUCED;
}

static void evaluate(const json_t *claim, const nm_run *run, nm_claim_result *res)
{
	const char *exp = json_string_value(json_object_get(claim, "experiment"));
	const char *docs = json_string_value(json_object_get(claim, "documents"));
	gathered g = {0};
	size_t ndocs = 0;
	for (size_t i = 0; i < run->ndocs; i++) {
		const nm_rundoc *d = &run->docs[i];
		if (!d->experiment || strcmp(d->experiment, exp) || !nm_name_matches(d->name, docs))
			continue;
		ndocs++;
		gather_doc(claim, d, &g);
	}
	res->basis = g.basis;
	snprintf(res->documents, sizeof res->documents, "%s", g.docs);
	reduce_kind kind = (reduce_kind)reduce_of(claim);
	if (ndocs == 0)
		snprintf(res->note, sizeof res->note, "no %s document%s%s in the run", exp, docs ? " " : "", docs ? docs : "");
	else if (g.n == 0)
		snprintf(res->note, sizeof res->note, "no valid entry matches the selection (%zu %s document%s)", ndocs, exp,
			 ndocs == 1 ? "" : "s");
	else if (kind == REDUCE_VALUE && g.n != 1)
		snprintf(res->note, sizeof res->note, "%zu entries match; the selection must pick one", g.n);
	else {
		res->measured = reduce(kind, g.v, g.n);
		res->used = g.n;
		res->verdict = verdict_of(claim, res->measured);
		if (g.ambiguous)
			snprintf(res->note, sizeof res->note, "%zu entr%s with several partners left out", g.ambiguous,
				 g.ambiguous == 1 ? "y" : "ies");
	}
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

bool nm_claim_on_hardware(const nm_claim_result *r)
{
	return r->verdict != NM_VERDICT_NOT_RUN && !r->basis.emulated && !r->basis.numa_not_real && !r->basis.simulated;
}

void nm_basis_describe(const nm_basis *b, char *buf, size_t len)
{
	if (b->simulated)
		snprintf(buf, len, "simulation");
	else if (b->emulated)
		snprintf(buf, len, "Soft-RoCE (emulated)%s", b->numa_not_real ? "; NUMA not real" : "");
	else if (b->numa_not_real)
		snprintf(buf, len, "NUMA not real");
	else
		snprintf(buf, len, "hardware");
}
