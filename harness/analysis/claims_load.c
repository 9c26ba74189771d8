/* Loading a claims file and refusing a bad one (harness/analysis/claims.h):
 * a claim with no bounds would call every value reproduced, a paper with no
 * title used to crash the report, and a misspelt key would be ignored
 * without a word, so each is one line naming the claim instead. */
#include "claims.h"
#include "log.h"
#include <stdio.h>
#include <string.h>

static const char *const paper_keys[] = {"id", "title", "figures", "claims", NULL};
static const char *const claim_keys[] = {
	"id", "figure", "claim", "quote", "where", "experiment", "documents", "select", "metric", "minus", "reduce",
	"ratio", "paper_value", "unit", "reproduced", "ranges_by_nic", "direction", "exercised", "needs", "nic_of", NULL,
};
const char *const nm_claim_reductions[] = {"max", "min", "mean", "value", NULL};

static const char *unknown_key(const json_t *o, const char *const *known)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)o, key, v) {
		size_t k = 0;
		while (known[k] && strcmp(known[k], key))
			k++;
		if (!known[k])
			return key;
	}
	return NULL;
}

static bool nonempty(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s && s[0];
}

static bool known_reduce(const json_t *claim)
{
	const char *r = json_string_value(json_object_get(claim, "reduce"));
	for (size_t k = 0; r && nm_claim_reductions[k]; k++)
		if (!strcmp(r, nm_claim_reductions[k]))
			return true;
	return false;
}

/* {"min": a, "max": b}: both numbers, a < b, and the paper's value inside. */
static const char *bad_bounds(const json_t *b, const json_t *paper_value)
{
	const json_t *lo = json_object_get(b, "min"), *hi = json_object_get(b, "max");
	if (!json_is_object(b) || !json_is_number(lo) || !json_is_number(hi))
		return "needs both bounds, {\"min\": number, \"max\": number}";
	if (json_number_value(lo) >= json_number_value(hi))
		return "has min not below max";
	if (json_is_number(paper_value) && (json_number_value(paper_value) < json_number_value(lo) ||
					    json_number_value(paper_value) > json_number_value(hi)))
		return "has the paper's value outside its own bounds";
	return NULL;
}

/* A direction any measurement passes (above 0 for a value that cannot be
 * negative) tests nothing; one that contradicts the range is a typo. */
static const char *bad_direction(const json_t *claim)
{
	const json_t *d = json_object_get(claim, "direction"), *r = json_object_get(claim, "reproduced");
	const json_t *above = json_object_get(d, "above"), *below = json_object_get(d, "below");
	if (!d)
		return json_is_null(json_object_get(claim, "paper_value")) ? "is an ordering without a direction" : NULL;
	if (json_object_size(d) != 1 || !(json_is_number(above) || json_is_number(below)))
		return "needs a direction of one key, {\"above\": number} or {\"below\": number}";
	if (above && json_number_value(above) <= 0)
		return "has a direction above 0, which every value passes";
	if (above && json_is_number(json_object_get(r, "min")) &&
	    json_number_value(json_object_get(r, "min")) < json_number_value(above))
		return "has a reproduced range reaching below its direction's 'above'";
	if (below && r && json_number_value(json_object_get(r, "max")) > json_number_value(below))
		return "has a reproduced range reaching above its direction's 'below'";
	return NULL;
}

static const char *bad_ranges_by_nic(const json_t *claim)
{
	const json_t *rs = json_object_get(claim, "ranges_by_nic"), *r;
	size_t i;
	if (!rs)
		return NULL;
	if (!json_is_array(rs) || json_array_size(rs) == 0)
		return "has ranges_by_nic that is not a list of {\"part\", \"min\", \"max\"}";
	json_array_foreach(rs, i, r) {
		if (!nonempty(r, "part"))
			return "has a ranges_by_nic entry without its part";
		const char *why = bad_bounds(r, NULL);
		if (why)
			return why;
	}
	return NULL;
}

/* nic_of names whose NIC a range by NIC depends on: "server" (for an
 * experiment whose server rank the report knows) or "every" rank. */
static const char *bad_nic_of(const json_t *claim)
{
	const json_t *of = json_object_get(claim, "nic_of");
	const char *s = json_string_value(of);
	if (!of)
		return NULL;
	if (!json_object_get(claim, "ranges_by_nic"))
		return "has nic_of without ranges_by_nic";
	if (!s || (strcmp(s, "server") && strcmp(s, "every")))
		return "has nic_of that is neither \"server\" nor \"every\"";
	if (!strcmp(s, "server") && !nm_experiment_has_server(json_string_value(json_object_get(claim, "experiment"))))
		return "has nic_of \"server\" for an experiment without a known server rank (ops, numa-kv, corm)";
	return NULL;
}

static bool bad_condition(const json_t *c)
{
	return !nonempty(c, "metric") || !json_is_number(json_object_get(c, "min")) || json_object_size(c) != 2;
}

/* One condition, or a list of them (all must hold). */
static bool bad_exercised(const json_t *ex)
{
	size_t i;
	const json_t *c;
	if (!json_is_array(ex))
		return bad_condition(ex);
	if (json_array_size(ex) == 0 || json_array_size(ex) > NM_EXERCISED_MAX)
		return true;
	json_array_foreach(ex, i, c)
		if (bad_condition(c))
			return true;
	return false;
}

static const char *bad_claim(const json_t *claim)
{
	const json_t *ratio = json_object_get(claim, "ratio"), *ex = json_object_get(claim, "exercised");
	const char *key = unknown_key(claim, claim_keys);
	static char buf[96];
	if (key) {
		snprintf(buf, sizeof buf, "has an unknown key '%.40s'", key);
		return buf;
	}
	if (!nonempty(claim, "claim") || !nonempty(claim, "quote") || !nonempty(claim, "experiment") ||
	    !nonempty(claim, "metric") || !nonempty(claim, "figure"))
		return "needs claim, quote (the paper's words), figure, experiment and metric";
	if (!known_reduce(claim))
		return "needs reduce: max, min, mean or value";
	if (ratio && (!json_is_object(json_object_get(ratio, "num")) || !json_is_object(json_object_get(ratio, "den"))))
		return "has a ratio without its num and den selections";
	if (json_object_get(claim, "select") && !json_is_object(json_object_get(claim, "select")))
		return "has a select that is not an object";
	if (json_object_get(claim, "minus") && (!nonempty(claim, "minus") || ratio))
		return "has minus that is not a metric's name, or minus with a ratio";
	if (ex && bad_exercised(ex))
		return "has exercised that is not {\"metric\", \"min\"} or a list of at most 4 of them";
	const json_t *pv = json_object_get(claim, "paper_value");
	if (!json_is_null(pv) && !json_is_number(pv))
		return "needs paper_value: a number, or null for an ordering";
	if (json_is_number(pv) && !json_object_get(claim, "ranges_by_nic")) {
		const char *why = bad_bounds(json_object_get(claim, "reproduced"), pv);
		if (why)
			return why;
	}
	const char *why = bad_ranges_by_nic(claim);
	if (!why)
		why = bad_nic_of(claim);
	return why ? why : bad_direction(claim);
}

json_t *nm_claims_load(const char *path, char *err, size_t len)
{
	json_error_t je;
	json_t *c = json_load_file(path, 0, &je), *paper, *claim;
	if (!c) {
		nm_errf(err, len, "%s: line %d: %s", path, je.line, je.text);
		return NULL;
	}
	size_t i, k;
	if (!json_is_array(json_object_get(c, "papers"))) {
		nm_errf(err, len, "%s: not a claims file (want {\"papers\": [{\"id\", \"title\", \"claims\": [...]}]})", path);
		goto bad;
	}
	json_array_foreach(json_object_get(c, "papers"), i, paper) {
		const char *id = json_string_value(json_object_get(paper, "id")), *key = unknown_key(paper, paper_keys);
		if (!json_is_object(paper) || !id || !nonempty(paper, "title") || key ||
		    (json_object_get(paper, "claims") && !json_is_array(json_object_get(paper, "claims")))) {
			nm_errf(err, len, "%s: paper %zu ('%s') needs an id, a title and a list of claims%s%s%s", path,
				i + 1, id ? id : "?", key ? " (unknown key '" : "", key ? key : "", key ? "')" : "");
			goto bad;
		}
		json_array_foreach(json_object_get(paper, "claims"), k, claim) {
			const char *cid = json_string_value(json_object_get(claim, "id"));
			const char *why = json_is_object(claim) && cid ? bad_claim(claim) : "needs an id";
			if (why) {
				nm_errf(err, len, "%s: claim '%s' of paper '%s' %s", path, cid ? cid : "?", id, why);
				goto bad;
			}
		}
	}
	return c;
bad:
	json_decref(c);
	return NULL;
}
