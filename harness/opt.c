#include "opt.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bounds convention (opt.h leaves it open): `min` always applies, so a table
 * entry that leaves it at 0 rejects negative values; `max` == 0 means "no upper
 * bound", because zero-initialised table entries should not cap anything. */

#define KEY_MAX 128

struct ebuf {
	char *s;
	size_t n;
};

static void fail(struct ebuf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct ebuf *e, const char *fmt, ...)
{
	if (!e->s || !e->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->s, e->n, fmt, ap);
	va_end(ap);
}

void nm_opt_key(const nm_opt *o, char *key, size_t len)
{
	if (!len)
		return;
	size_t i = 0;
	for (; o->name[i] && i + 1 < len; i++)
		key[i] = o->name[i] == '-' ? '_' : o->name[i];
	key[i] = 0;
}

static char norm(char c) { return c == '_' ? '-' : c; }

/* Users write the key form (tx_depth) in JSON and may carry it over to the
 * command line, so both spellings name the same option everywhere. */
static bool same_name(const char *a, size_t alen, const char *b)
{
	for (size_t i = 0; i < alen; i++)
		if (!b[i] || norm(a[i]) != norm(b[i]))
			return false;
	return b[alen] == 0;
}

static const nm_opt *find_long(const nm_opt *const *tables, const char *name, size_t len)
{
	for (size_t t = 0; tables && tables[t]; t++)
		for (const nm_opt *o = tables[t]; o->name; o++)
			if (same_name(name, len, o->name))
				return o;
	return NULL;
}

static const nm_opt *find_short(const nm_opt *const *tables, char c)
{
	for (size_t t = 0; tables && tables[t]; t++)
		for (const nm_opt *o = tables[t]; o->name; o++)
			if (o->shortc && o->shortc == c)
				return o;
	return NULL;
}

/* Optimal string alignment distance: like Levenshtein, but a swap of two
 * adjacent letters ("szie") costs 1, the most common typo. */
static size_t edit_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	if (n >= 64 || m >= 64)
		return (size_t)-1;
	unsigned short d[64][64];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned short)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned short)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = norm(a[i - 1]) != norm(b[j - 1]);
			unsigned v = d[i - 1][j] + 1u;
			if (d[i][j - 1] + 1u < v)
				v = d[i][j - 1] + 1u;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && norm(a[i - 1]) == norm(b[j - 2]) &&
			    norm(a[i - 2]) == norm(b[j - 1]) && d[i - 2][j - 2] + 1u < v)
				v = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned short)v;
		}
	}
	return d[n][m];
}

/* Closest option name within distance 2; a distance as long as the typed name
 * itself would "suggest" unrelated short names, so that is excluded too. */
static const nm_opt *suggest(const nm_opt *const *tables, const char *name, size_t len)
{
	const nm_opt *best = NULL;
	size_t bestd = 3;
	for (size_t t = 0; tables && tables[t]; t++) {
		for (const nm_opt *o = tables[t]; o->name; o++) {
			size_t dist = edit_distance(name, len, o->name);
			if (dist < bestd && dist < len) {
				best = o;
				bestd = dist;
			}
		}
	}
	return best;
}

/* ---- scalar syntax ---- */

int nm_parse_size(const char *s, int64_t *out)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	int64_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		int dig = *s - '0';
		if (v > (INT64_MAX - dig) / 10)
			return -1;
		v = v * 10 + dig;
	}
	unsigned shift = 0;
	switch (*s) {
	case 'k': case 'K': shift = 10; s++; break;
	case 'm': case 'M': shift = 20; s++; break;
	case 'g': case 'G': shift = 30; s++; break;
	default: break;
	}
	if (*s == 'B' || *s == 'b')
		s++;
	if (*s)
		return -1;
	if (v > (INT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static int parse_int(const char *s, int64_t *out)
{
	/* strtoll would skip leading blanks; a value is a whole token. */
	if (!*s || isspace((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	if (!*s || isspace((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(const char *s)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

static const char *opt_choices(const nm_opt *o)
{
	return o->choices_fn ? o->choices_fn() : o->choices;
}

static bool enum_has(const char *choices, const char *s)
{
	size_t n = strlen(s);
	for (const char *p = choices; p && *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !strncmp(p, s, n))
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

/* "read,write" -> "read, write", for messages. */
static void enum_list(const char *choices, char *buf, size_t len)
{
	size_t j = 0;
	for (const char *p = choices ? choices : ""; *p && j + 3 < len; p++) {
		buf[j++] = *p;
		if (*p == ',')
			buf[j++] = ' ';
	}
	buf[j] = 0;
}

static json_t *parse_scalar(const nm_opt *o, const char *s, const char *what, struct ebuf *e)
{
	int64_t i;
	double d;
	int b;
	json_t *v;
	char list[512];

	switch (o->type) {
	case NM_OPT_INT:
		if (parse_int(s, &i) == 0)
			return json_integer(i);
		fail(e, "%s: '%s' is not an integer", what, s);
		return NULL;
	case NM_OPT_SIZE:
		if (nm_parse_size(s, &i) == 0)
			return json_integer(i);
		fail(e, "%s: '%s' is not a size", what, s);
		return NULL;
	case NM_OPT_DOUBLE:
		if (parse_double(s, &d) == 0)
			return json_real(d);
		fail(e, "%s: '%s' is not a number", what, s);
		return NULL;
	case NM_OPT_BOOL:
	case NM_OPT_ALIAS: /* "all": "yes" in a config */
		if ((b = parse_bool(s)) >= 0)
			return json_boolean(b);
		fail(e, "%s: '%s' is not a boolean (true/false, yes/no, 1/0)", what, s);
		return NULL;
	case NM_OPT_STR:
		/* json_string rejects invalid UTF-8, which json_dumps could not write. */
		if ((v = json_string(s)))
			return v;
		fail(e, "%s: '%s' is not valid UTF-8", what, s);
		return NULL;
	case NM_OPT_ENUM:
		if (enum_has(opt_choices(o), s))
			return json_string(s);
		enum_list(opt_choices(o), list, sizeof list);
		fail(e, "%s: '%s' is not one of %s", what, s, list);
		return NULL;
	}
	fail(e, "%s: option of unknown type %d", what, (int)o->type);
	return NULL;
}

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Appends every power of two in "A..B" to arr. elem is modified. */
static int append_range(const nm_opt *o, char *elem, json_t *arr, const char *what,
			struct ebuf *e)
{
	if (o->type != NM_OPT_INT && o->type != NM_OPT_SIZE) {
		fail(e, "%s: '%s': ranges (A..B) are only for integer options", what, elem);
		return -1;
	}
	char *dots = strstr(elem, "..");
	*dots = 0;
	const char *los = elem, *his = dots + 2;
	json_t *lo = parse_scalar(o, los, what, e);
	if (!lo)
		return -1;
	json_t *hi = parse_scalar(o, his, what, e);
	if (!hi) {
		json_decref(lo);
		return -1;
	}
	int64_t a = json_integer_value(lo), b = json_integer_value(hi);
	json_decref(lo);
	json_decref(hi);
	if (!is_pow2(a) || !is_pow2(b)) {
		fail(e, "%s: bad range '%s..%s' (%lld is not a power of two)", what, los, his,
		     (long long)(is_pow2(a) ? b : a));
		return -1;
	}
	if (a > b) {
		fail(e, "%s: bad range '%s..%s' (%lld is above %lld)", what, los, his,
		     (long long)a, (long long)b);
		return -1;
	}
	for (int64_t v = a;; v *= 2) {
		json_array_append_new(arr, json_integer(v));
		if (v == b)
			break;
	}
	return 0;
}

/* A value in command-line syntax: a scalar, or for LIST options a comma list
 * whose elements may be power-of-two ranges. */
static json_t *parse_value(const nm_opt *o, const char *s, const char *what, struct ebuf *e)
{
	bool listy;
	/* A string option's value may legitimately hold commas or dots (a path),
	 * so only a LIST string option splits, and only on commas. */
	if (o->type == NM_OPT_STR)
		listy = (o->flags & NM_OPT_LIST) && strchr(s, ',');
	else
		listy = strchr(s, ',') || strstr(s, "..");
	if (!listy)
		return parse_scalar(o, s, what, e);
	if (!(o->flags & NM_OPT_LIST)) {
		fail(e, "%s takes one value, not a list", what);
		return NULL;
	}
	json_t *arr = json_array();
	char *copy = strdup(s);
	if (!arr || !copy) {
		fail(e, "%s: out of memory", what);
		goto err;
	}
	for (char *p = copy;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = 0;
		if (o->type != NM_OPT_STR && strstr(p, "..")) {
			if (append_range(o, p, arr, what, e))
				goto err;
		} else {
			json_t *v = parse_scalar(o, p, what, e);
			if (!v)
				goto err;
			json_array_append_new(arr, v);
		}
		if (!c)
			break;
		p = c + 1;
	}
	free(copy);
	return arr;
err:
	free(copy);
	json_decref(arr);
	return NULL;
}

static int check_bounds(const nm_opt *o, const json_t *v, const char *what, struct ebuf *e)
{
	if (json_is_array(v)) {
		size_t i;
		const json_t *x;
		json_array_foreach(v, i, x)
			if (check_bounds(o, x, what, e))
				return -1;
		return 0;
	}
	if (o->type == NM_OPT_INT || o->type == NM_OPT_SIZE) {
		if (!json_is_integer(v))
			return 0;
		long long x = (long long)json_integer_value(v);
		if ((double)x < o->min) {
			fail(e, "%s: %lld is below the minimum %.0f", what, x, o->min);
			return -1;
		}
		if (o->max != 0 && (double)x > o->max) {
			fail(e, "%s: %lld is above the maximum %.0f", what, x, o->max);
			return -1;
		}
	} else if (o->type == NM_OPT_DOUBLE) {
		if (!json_is_number(v))
			return 0;
		double x = json_number_value(v);
		if (x < o->min) {
			fail(e, "%s: %g is below the minimum %g", what, x, o->min);
			return -1;
		}
		if (o->max != 0 && x > o->max) {
			fail(e, "%s: %g is above the maximum %g", what, x, o->max);
			return -1;
		}
	}
	return 0;
}

static const char *expected(const nm_opt *o, char *buf, size_t len)
{
	switch (o->type) {
	case NM_OPT_INT: return "an integer";
	case NM_OPT_SIZE: return "a size (e.g. 64, 4k)";
	case NM_OPT_DOUBLE: return "a number";
	case NM_OPT_BOOL: return "true or false";
	case NM_OPT_STR: return "a string";
	case NM_OPT_ENUM: {
		char list[400];
		enum_list(opt_choices(o), list, sizeof list);
		snprintf(buf, len, "one of %s", list);
		return buf;
	}
	case NM_OPT_ALIAS: return "true or false";
	}
	return "a value";
}

/* A config value: JSON scalars where they fit the type, strings in
 * command-line syntax, arrays (flattened one level) for LIST options. */
static json_t *json_value(const nm_opt *o, const json_t *jv, const char *what, struct ebuf *e)
{
	char buf[512];
	if (json_is_string(jv))
		return parse_value(o, json_string_value(jv), what, e);
	if (json_is_array(jv)) {
		if (!(o->flags & NM_OPT_LIST)) {
			fail(e, "%s takes one value, not a list", what);
			return NULL;
		}
		json_t *arr = json_array();
		size_t i;
		const json_t *x;
		json_array_foreach(jv, i, x) {
			json_t *v = NULL;
			if (json_is_array(x) || json_is_object(x) || json_is_null(x))
				fail(e, "%s: element %zu: expected %s", what, i, expected(o, buf, sizeof buf));
			else
				v = json_value(o, x, what, e);
			if (!v) {
				json_decref(arr);
				return NULL;
			}
			if (json_is_array(v))
				json_array_extend(arr, v);
			else
				json_array_append(arr, v);
			json_decref(v);
		}
		return arr;
	}
	/* null means "unset", which only options without a default can be. */
	if (json_is_null(jv) && !o->def)
		return json_null();
	switch (o->type) {
	case NM_OPT_INT:
	case NM_OPT_SIZE:
		if (json_is_integer(jv)) {
			if (o->type == NM_OPT_SIZE && json_integer_value(jv) < 0) {
				fail(e, "%s: %lld is not a size", what, (long long)json_integer_value(jv));
				return NULL;
			}
			return json_integer(json_integer_value(jv));
		}
		/* 4096.0 is an integer to most JSON writers. */
		if (json_is_real(jv)) {
			double d = json_real_value(jv);
			if (d == floor(d) && fabs(d) < 9.2e18 && (o->type == NM_OPT_INT || d >= 0))
				return json_integer((json_int_t)d);
		}
		break;
	case NM_OPT_DOUBLE:
		if (json_is_number(jv))
			return json_real(json_number_value(jv));
		break;
	case NM_OPT_BOOL:
	case NM_OPT_ALIAS:
		if (json_is_boolean(jv))
			return json_boolean(json_is_true(jv));
		if (json_is_integer(jv) && (json_integer_value(jv) == 0 || json_integer_value(jv) == 1))
			return json_boolean(json_integer_value(jv));
		break;
	case NM_OPT_STR:
	case NM_OPT_ENUM:
		break;
	}
	fail(e, "%s: expected %s", what, expected(o, buf, sizeof buf));
	return NULL;
}

/* ---- building the specification ---- */

static int store(json_t *spec, const nm_opt *o, json_t *v, const char *what, struct ebuf *e)
{
	if (!v)
		return -1;
	if (check_bounds(o, v, what, e)) {
		json_decref(v);
		return -1;
	}
	char key[KEY_MAX];
	nm_opt_key(o, key, sizeof key);
	/* The key already exists (from the defaults), so replacing it keeps its
	 * position: the spec stays in table order, which fixes the sweep order. */
	json_object_set_new(spec, key, v);
	return 0;
}

static int apply_alias(const nm_opt *const *tables, json_t *spec, const nm_opt *o, struct ebuf *e)
{
	const nm_opt *t = o->alias_of ? find_long(tables, o->alias_of, strlen(o->alias_of)) : NULL;
	if (!t || t->type == NM_OPT_ALIAS || !o->alias_value) {
		fail(e, "option --%s: aliases unknown option '%s'", o->name,
		     o->alias_of ? o->alias_of : "(null)");
		return -1;
	}
	char what[KEY_MAX + 16];
	snprintf(what, sizeof what, "option --%s", t->name);
	return store(spec, t, parse_value(t, o->alias_value, what, e), what, e);
}

static int build_defaults(const nm_opt *const *tables, json_t *spec, struct ebuf *e)
{
	for (size_t t = 0; tables && tables[t]; t++) {
		for (const nm_opt *o = tables[t]; o->name; o++) {
			if (o->type == NM_OPT_ALIAS)
				continue;
			char key[KEY_MAX], what[KEY_MAX + 32];
			nm_opt_key(o, key, sizeof key);
			if (json_object_get(spec, key)) {
				fail(e, "option --%s is declared twice", o->name);
				return -1;
			}
			if (!o->def) {
				json_object_set_new(spec, key, json_null());
				continue;
			}
			snprintf(what, sizeof what, "option --%s (default)", o->name);
			json_object_set_new(spec, key, json_null());
			if (store(spec, o, parse_value(o, o->def, what, e), what, e))
				return -1;
		}
	}
	return 0;
}

static int apply_config(const nm_opt *const *tables, json_t *spec, json_t *cfg,
			const char *where, struct ebuf *e)
{
	if (!cfg)
		return 0;
	if (!where)
		where = "config";
	if (!json_is_object(cfg)) {
		fail(e, "%s: expected an object of option values", where);
		return -1;
	}
	const char *key;
	json_t *jv;
	json_object_foreach(cfg, key, jv) {
		const nm_opt *o = find_long(tables, key, strlen(key));
		if (!o) {
			const nm_opt *s = suggest(tables, key, strlen(key));
			char sk[KEY_MAX];
			if (s) {
				nm_opt_key(s, sk, sizeof sk);
				fail(e, "%s: unknown key '%s' (did you mean '%s'?)", where, key, sk);
			} else {
				fail(e, "%s: unknown key '%s'", where, key);
			}
			return -1;
		}
		char what[512];
		snprintf(what, sizeof what, "%s: key '%s'", where, key);
		json_t *v = json_value(o, jv, what, e);
		if (!v)
			return -1;
		if (o->type == NM_OPT_ALIAS) {
			bool on = json_is_true(v);
			if (!json_is_boolean(v)) {
				fail(e, "%s: expected true or false", what);
				json_decref(v);
				return -1;
			}
			json_decref(v);
			if (on && apply_alias(tables, spec, o, e))
				return -1;
			continue;
		}
		if (store(spec, o, v, what, e))
			return -1;
	}
	return 0;
}

static int apply_argv(const nm_opt *const *tables, json_t *spec, int argc, char **argv,
		      struct ebuf *e)
{
	char what[KEY_MAX + 16];
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const nm_opt *o;
		const char *val;
		if (a[0] != '-' || a[1] == 0) {
			fail(e, "unexpected argument '%s' (options start with '-' or '--')", a);
			return -1;
		}
		if (a[1] == '-') {
			if (a[2] == 0) {
				if (i + 1 < argc) {
					fail(e, "unexpected argument '%s'", argv[i + 1]);
					return -1;
				}
				break;
			}
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
			val = eq ? eq + 1 : NULL;
			o = find_long(tables, name, nlen);
			if (!o && nlen > 3 && !strncmp(name, "no-", 3)) {
				const nm_opt *neg = find_long(tables, name + 3, nlen - 3);
				if (neg && neg->type == NM_OPT_BOOL) {
					snprintf(what, sizeof what, "option --no-%s", neg->name);
					if (val) {
						fail(e, "%s takes no value", what);
						return -1;
					}
					if (store(spec, neg, json_false(), what, e))
						return -1;
					continue;
				}
			}
			if (!o) {
				const nm_opt *s = suggest(tables, name, nlen);
				if (s)
					fail(e, "unknown option '--%.*s' (did you mean '--%s'?)", (int)nlen,
					     name, s->name);
				else
					fail(e, "unknown option '--%.*s'", (int)nlen, name);
				return -1;
			}
		} else {
			o = find_short(tables, a[1]);
			if (!o) {
				fail(e, "unknown option '-%c'", a[1]);
				return -1;
			}
			val = a[2] ? a + 2 : NULL;
			if (val && *val == '=')
				val++;
		}
		snprintf(what, sizeof what, "option --%s", o->name);
		if (o->type == NM_OPT_ALIAS) {
			if (val) {
				fail(e, "%s takes no value", what);
				return -1;
			}
			if (apply_alias(tables, spec, o, e))
				return -1;
			continue;
		}
		/* A bool never takes the next argument: "--verbose run" would
		 * otherwise swallow whatever follows. */
		if (o->type == NM_OPT_BOOL && !val) {
			if (store(spec, o, json_true(), what, e))
				return -1;
			continue;
		}
		if (!val) {
			/* "-5" may be a (bad) value, but "--iters" is surely the next
			 * option, so the value was forgotten. */
			if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2)) {
				fail(e, "%s needs a value", what);
				return -1;
			}
			val = argv[++i];
		}
		if (store(spec, o, parse_value(o, val, what, e), what, e))
			return -1;
	}
	return 0;
}

json_t *nm_opt_parse(const nm_opt *const *tables, json_t *config_params, const char *where,
		     int argc, char **argv, char *err, size_t errlen)
{
	struct ebuf e = {err, errlen};
	if (err && errlen)
		err[0] = 0;
	json_t *spec = json_object();
	if (!spec) {
		fail(&e, "out of memory");
		return NULL;
	}
	if (build_defaults(tables, spec, &e) || apply_config(tables, spec, config_params, where, &e) ||
	    apply_argv(tables, spec, argc, argv, &e)) {
		json_decref(spec);
		return NULL;
	}
	return spec;
}

/* ---- usage ---- */

static void usage_left(const nm_opt *o, char *buf, size_t len)
{
	char sh[8] = "    ";
	if (o->shortc)
		snprintf(sh, sizeof sh, "-%c, ", o->shortc);
	const char *meta = NULL;
	char choices[256];
	switch (o->type) {
	case NM_OPT_INT: meta = "N"; break;
	case NM_OPT_SIZE: meta = "SIZE"; break;
	case NM_OPT_DOUBLE: meta = "X"; break;
	case NM_OPT_STR: meta = "STR"; break;
	case NM_OPT_ENUM:
		snprintf(choices, sizeof choices, "%s", opt_choices(o) ? opt_choices(o) : "");
		for (char *p = choices; *p; p++)
			if (*p == ',')
				*p = '|';
		meta = choices;
		break;
	case NM_OPT_BOOL:
	case NM_OPT_ALIAS:
		break;
	}
	snprintf(buf, len, "  %s--%s%s%s", sh, o->name, meta ? "=" : "", meta ? meta : "");
}

void nm_opt_usage(FILE *out, const char *cmd, const char *summary, const nm_opt *const *tables)
{
	enum { MAXW = 34 };
	char left[512];
	size_t w = strlen("      --help");
	for (size_t t = 0; tables && tables[t]; t++) {
		for (const nm_opt *o = tables[t]; o->name; o++) {
			usage_left(o, left, sizeof left);
			size_t l = strlen(left);
			if (l > w && l <= MAXW)
				w = l;
		}
	}
	fprintf(out, "Usage: %s [options]\n", cmd ? cmd : "netmem");
	if (summary && *summary)
		fprintf(out, "%s\n", summary);
	fputs("\nOptions:\n", out);
	for (size_t t = 0; tables && tables[t]; t++) {
		if (t > 0 && tables[t]->name)
			fputc('\n', out);
		for (const nm_opt *o = tables[t]; o->name; o++) {
			usage_left(o, left, sizeof left);
			size_t l = strlen(left);
			/* Over-long option names get their help on the next line
			 * rather than pushing every other line to the right. */
			if (l > w)
				fprintf(out, "%s\n%*s", left, (int)(w + 2), "");
			else
				fprintf(out, "%s%*s", left, (int)(w + 2 - l), "");
			fputs(o->help ? o->help : "", out);
			if (o->flags & NM_OPT_LIST)
				fputs(" [list]", out);
			if (o->type == NM_OPT_ALIAS)
				fprintf(out, " (same as --%s=%s)", o->alias_of ? o->alias_of : "?",
					o->alias_value ? o->alias_value : "");
			else if (o->def)
				fprintf(out, " (default: %s)", o->def);
			fputc('\n', out);
		}
	}
	fprintf(out, "%s%*s%s\n", "      --help", (int)(w + 2 - strlen("      --help")), "",
		"print this help and exit");
	fputs("\nSizes take k, M, G suffixes (powers of 1024). Options marked [list] take\n"
	      "a comma list (8,64,4k) or a power-of-two range (2..8M); every combination\n"
	      "of listed values is run. Boolean flags: --flag, --no-flag, --flag=false.\n",
	      out);
}

json_t *nm_opt_take_run(const nm_opt *const *tables, json_t *spec)
{
	json_t *run = json_object();
	char key[64];
	for (size_t t = 0; run && tables && tables[t]; t++)
		for (const nm_opt *o = tables[t]; o->name; o++) {
			if (!(o->flags & NM_OPT_RUN))
				continue;
			nm_opt_key(o, key, sizeof key);
			json_t *v = json_object_get(spec, key);
			if (v) {
				json_object_set(run, key, v);
				json_object_del(spec, key);
			}
		}
	return run;
}

/* ---- getters ---- */

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array (a sweep axis, not one point's value)";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

static const json_t *cfg_get(const json_t *cfg, const char *key, const char *fn)
{
	const json_t *v = json_is_object(cfg) && key ? json_object_get(cfg, key) : NULL;
	if (!v) {
		fprintf(stderr, "netmem: internal error: %s: no option '%s' in the point\n", fn,
			key ? key : "(null)");
		abort();
	}
	return v;
}

static _Noreturn void cfg_type(const char *fn, const char *key, const json_t *v, const char *want)
{
	fprintf(stderr, "netmem: internal error: %s: option '%s' is %s, not %s\n", fn, key,
		type_name(v), want);
	abort();
}

int64_t nm_cfg_int(const json_t *cfg, const char *key)
{
	const json_t *v = cfg_get(cfg, key, "nm_cfg_int");
	if (!json_is_integer(v))
		cfg_type("nm_cfg_int", key, v, "an integer");
	return json_integer_value(v);
}

double nm_cfg_double(const json_t *cfg, const char *key)
{
	const json_t *v = cfg_get(cfg, key, "nm_cfg_double");
	if (!json_is_number(v))
		cfg_type("nm_cfg_double", key, v, "a number");
	return json_number_value(v);
}

int nm_cfg_bool(const json_t *cfg, const char *key)
{
	const json_t *v = cfg_get(cfg, key, "nm_cfg_bool");
	if (!json_is_boolean(v))
		cfg_type("nm_cfg_bool", key, v, "a boolean");
	return json_is_true(v);
}

const char *nm_cfg_str(const json_t *cfg, const char *key)
{
	const json_t *v = cfg_get(cfg, key, "nm_cfg_str");
	if (json_is_null(v))
		return "";
	if (!json_is_string(v))
		cfg_type("nm_cfg_str", key, v, "a string");
	return json_string_value(v);
}

bool nm_opt_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
