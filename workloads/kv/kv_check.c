/* netmem kv-check HISTORY: is a `netmem kv --history` file linearizable?
 * Each key is a register of its own (per-key linearizability: the store
 * promises no order across keys), decided by the search of kv_lin.c. A key
 * whose rank is below the header's prefill starts with the prefill's value
 * (writer KV_PREFILL_WRITER, version 0), any other key absent. Times are
 * each rank's CLOCK_MONOTONIC_RAW, so the ranks must share one clock (one
 * host).
 *
 * Exit status: 0 linearizable, 1 not (one line: the key and the
 * operations), 2 bad input (one line). */
#include "kv_check.h"
#include "kv_core.h"
#include "kv_lin.h"
#include "alloc.h"
#include "log.h"
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hrec {
	uint64_t key;
	kv_lin_op op;
	const char *name;   /* the history's op name */
	bool found;
} hrec;

/* One point's history: a header line, then its operations (a job of
 * several points appends one after the other to one file). */
typedef struct history {
	const char *path;
	size_t header_line;
	char system[32];
	uint64_t prefill, max_states;
	void (*tick)(void);        /* kv_lin_check's, for a check inside a job */
	uint64_t states;           /* search states, all keys so far */
	hrec *r;
	size_t n, cap;
	size_t ops, keys, points;  /* checked so far */
	char why[1024];            /* the verdict's line when not linearizable or undecided */
} history;

static bool hex_word(const json_t *v, uint64_t *out)
{
	const char *s = json_string_value(v);
	char *end;
	if (!s || strncmp(s, "0x", 2))
		return false;
	errno = 0;
	*out = strtoull(s + 2, &end, 16);
	return !errno && end != s + 2 && !*end;
}

/* The register's view of a history record (kv_lin.h); false: nothing
 * to check (an insert refused for want of a slot wrote nothing). */
static bool lin_kind(const char *op, bool found, kv_lin_kind *k)
{
	if (!found) {
		*k = KV_LIN_MISS;
		return strcmp(op, "insert") != 0;
	}
	*k = !strcmp(op, "get") ? KV_LIN_READ : !strcmp(op, "update") ? KV_LIN_UPDATE
	     : !strcmp(op, "insert") ? KV_LIN_PUT : KV_LIN_REMOVE;
	return true;
}

static void parse_line(history *h, const json_t *o, const char *path, size_t line)
{
	const char *op = json_string_value(json_object_get(o, "op"));
	const json_t *found = json_object_get(o, "found");
	const json_t *inv = json_object_get(o, "invoke_ns"), *res = json_object_get(o, "response_ns");
	uint64_t key, value;
	if (!op || (strcmp(op, "get") && strcmp(op, "update") && strcmp(op, "insert") && strcmp(op, "delete")))
		nm_usage_error("kv-check: %s:%zu: \"op\" is not get, update, insert or delete", path, line);
	if (!json_is_boolean(found) || !json_is_integer(inv) || !json_is_integer(res) ||
	    !hex_word(json_object_get(o, "key"), &key) || !hex_word(json_object_get(o, "value"), &value))
		nm_usage_error("kv-check: %s:%zu: an operation needs \"key\" and \"value\" (0x and hex digits), "
			       "\"found\", \"invoke_ns\" and \"response_ns\"", path, line);
	if (json_integer_value(res) < json_integer_value(inv) || json_integer_value(inv) < 0)
		nm_usage_error("kv-check: %s:%zu: response_ns is before invoke_ns", path, line);
	kv_lin_kind k;
	if (!lin_kind(op, json_is_true(found), &k))
		return;
	if (h->n == h->cap)
		h->r = nm_realloc(h->r, (h->cap = h->cap ? 2 * h->cap : 4096) * sizeof *h->r);
	h->r[h->n++] = (hrec){.key = key, .name = !strcmp(op, "get") ? "get" : !strcmp(op, "update") ? "update"
							       : !strcmp(op, "insert") ? "insert" : "delete",
			      .found = json_is_true(found),
			      .op = {.invoke = (uint64_t)json_integer_value(inv),
				     .response = (uint64_t)json_integer_value(res), .value = value, .kind = k,
				     .id = line}};
}

static void header(history *h, const json_t *o, size_t line)
{
	const json_t *pf = json_object_get(o, "prefill");
	const char *sys = json_string_value(json_object_get(o, "system"));
	if (!json_is_integer(pf) || json_integer_value(pf) < 0 || !sys)
		nm_usage_error("kv-check: %s:%zu: a history header needs \"system\" and \"prefill\" (N >= 0)", h->path,
			       line);
	h->prefill = (uint64_t)json_integer_value(pf);
	h->header_line = line;
	snprintf(h->system, sizeof h->system, "%s", sys);
}

static int check_segment(history *h);

/* Reads the file, checking each point's history at its end; stops at the
 * first that is not linearizable. */
static int load_and_check(history *h)
{
	FILE *f = fopen(h->path, "r");
	if (!f)
		nm_usage_error("kv-check: cannot read %s: %s", h->path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, no = 0;
	int rc = 0;
	while (!rc && getline(&line, &cap, f) > 0) {
		no++;
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		if (!json_is_object(o))
			nm_usage_error("kv-check: %s:%zu: not a JSON object (%s)", h->path, no, o ? "another value" : je.text);
		if (json_object_get(o, "history")) {
			rc = h->header_line ? check_segment(h) : 0;
			header(h, o, no);
		} else if (!h->header_line) {
			nm_usage_error("kv-check: %s: the first line is not netmem kv's history header "
				       "({\"history\": ..., \"prefill\": N, ...})", h->path);
		} else {
			parse_line(h, o, h->path, no);
		}
		json_decref(o);
	}
	free(line);
	fclose(f);
	if (!h->header_line)
		nm_usage_error("kv-check: %s is empty (no history header)", h->path);
	return rc ? rc : check_segment(h);
}

static int by_key(const void *a, const void *b)
{
	const hrec *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Which of the history's keys the prefill wrote: every key rank below it,
 * hashed, looked up among the (sorted, distinct) keys. */
static bool *prefilled(const uint64_t *keys, size_t nkeys, uint64_t prefill)
{
	bool *pf = nm_calloc(nkeys ? nkeys : 1, 1);
	for (uint64_t r = 0; r < prefill; r++) {
		uint64_t k = kv_key(r);
		const uint64_t *at = bsearch(&k, keys, nkeys, sizeof k, cmp_u64);
		if (at)
			pf[at - keys] = true;
	}
	return pf;
}

static void describe(char *s, size_t len, const hrec *r)
{
	snprintf(s, len, "line %zu (%s%s 0x%016" PRIx64 ", %" PRIu64 "..%" PRIu64 " ns)", r->op.id, r->name,
		 r->found ? "" : " found nothing,", r->op.value, r->op.invoke, r->op.response);
}

/* One key's operations r[0 .. n): 0 linearizable, 1 not (printed). */
static int check_key(history *h, hrec *r, size_t n, bool prefill)
{
	uint64_t key = r[0].key;
	kv_lin_state init = {prefill, prefill ? kv_word(key, KV_PREFILL_WRITER, 0) : 0};
	kv_lin_op *ops = nm_malloc(n * sizeof *ops);
	for (size_t i = 0; i < n; i++) {
		ops[i] = r[i].op;
		ops[i].id = i;
	}
	kv_lin_report rep;
	kv_lin_verdict v = kv_lin_check(ops, n, init, h->max_states, &rep, h->tick);
	h->states += rep.states_seen;
	int rc = 0;
	if (v == KV_LIN_UNDECIDED) {
		snprintf(h->why, sizeof h->why, "kv-check: %s:%zu: key 0x%016" PRIx64 ": undecided after %" PRIu64
			 " search states (--max-states)", h->path, h->header_line, key, rep.states_seen);
		rc = 2;
	} else if (v == KV_LIN_VIOLATION) {
		char stuck[160];
		describe(stuck, sizeof stuck, &r[ops[rep.stuck].id]);
		/* bounded parts: the whole line fits, whatever the path */
		snprintf(h->why, sizeof h->why,
			 "kv-check: %.400s (point of line %zu, %.40s): key 0x%016" PRIx64 " is not linearizable: at best %zu "
			 "of its %zu operations take effect in order, the register then %s 0x%016" PRIx64
			 ", and %s cannot come next", h->path, h->header_line, h->system, key, rep.linearized, n,
			 rep.state.present ? "holding" : "empty", rep.state.value, stuck);
		rc = 1;
	}
	free(ops);
	return rc;
}

static int check_segment(history *h)
{
	qsort(h->r, h->n, sizeof *h->r, by_key);
	uint64_t *keys = nm_malloc((h->n ? h->n : 1) * sizeof *keys);
	size_t nkeys = 0;
	for (size_t i = 0; i < h->n; i++)
		if (!nkeys || keys[nkeys - 1] != h->r[i].key)
			keys[nkeys++] = h->r[i].key;
	bool *pf = prefilled(keys, nkeys, h->prefill);
	int rc = 0;
	for (size_t i = 0, k = 0; i < h->n && !rc; k++) {
		size_t e = i;
		while (e < h->n && h->r[e].key == h->r[i].key)
			e++;
		rc = check_key(h, h->r + i, e - i, pf[k]);
		i = e;
	}
	h->ops += h->n;
	h->keys += nkeys;
	h->points++;
	h->n = 0;
	free(pf);
	free(keys);
	return rc;
}

/* netmem kv --history: the same check on one point's history, as the ranks
 * gathered it (rank order, the header first in texts[0]). */
int kv_history_check(char *const *texts, int n, void (*tick)(void), uint64_t *states, char *why, size_t len)
{
	history h = {.path = "this point's history", .max_states = KV_CHECK_MAX_STATES, .tick = tick};
	size_t no = 0;
	for (int i = 0; i < n; i++) {
		for (char *line = texts[i], *end; line && *line; line = end ? end + 1 : NULL) {
			end = strchr(line, '\n');
			json_error_t je;
			json_t *o = json_loadb(line, end ? (size_t)(end - line) : strlen(line), 0, &je);
			no++;
			if (!json_is_object(o))
				nm_fatal("kv: %s, line %zu: not a JSON object (%s)", h.path, no, je.text);
			if (json_object_get(o, "history"))
				header(&h, o, no);
			else
				parse_line(&h, o, h.path, no);
			json_decref(o);
		}
	}
	int rc = check_segment(&h);
	*states = h.states;
	snprintf(why, len, "%s", rc ? h.why : "");
	free(h.r);
	return rc;
}

static void usage(FILE *out)
{
	fputs("usage: netmem kv-check [--max-states N] HISTORY\n"
	      "Decides whether a `netmem kv --history` file is linearizable, key by key\n"
	      "(a register per key; Wing and Gong's search with memoization). Keys whose\n"
	      "rank is below the header's prefill start with the prefill's value. A file\n"
	      "of several points (a header line each) is checked point by point.\n"
	      "Exit status: 0 linearizable, 1 not (one line naming the key and an\n"
	      "operation that cannot take effect), 2 bad input or undecided.\n", out);
}

static int kv_check_main(int argc, char **argv)
{
	const char *path = NULL;
	uint64_t max_states = KV_CHECK_MAX_STATES;
	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--max-states") && i + 1 < argc) {
			max_states = strtoull(argv[++i], &end, 10);
			if (*end || !max_states)
				nm_usage_error("kv-check: --max-states '%s' is not a positive integer", argv[i]);
		} else if (argv[i][0] == '-' || path) {
			nm_usage_error("kv-check: unexpected argument '%s' (see netmem kv-check --help)", argv[i]);
		} else {
			path = argv[i];
		}
	}
	if (!path)
		nm_usage_error("kv-check: name a history file (netmem kv --history FILE)");
	history h = {.path = path, .max_states = max_states};
	int rc = load_and_check(&h);
	if (rc == 1)
		puts(h.why);
	else if (rc == 2)
		fprintf(stderr, "netmem: %s\n", h.why);
	if (!rc)
		printf("kv-check: %s: %zu point(s), %zu operations on %zu keys, linearizable\n", path, h.points, h.ops,
		       h.keys);
	free(h.r);
	return rc;
}

static const nm_experiment kv_check_tool = {
	.name = "kv-check",
	.summary = "is a `netmem kv --history` file linearizable? (per key, a register each)",
	.tool_main = kv_check_main,
};
NM_EXPERIMENT(kv_check_tool)
