/* YCSB request traces (ycsb.h): reading a trace file request by request
 * or whole, and writing one request as a line (YCSB's words or Clover's
 * numbers). The generator itself is ycsb.c. */
#include "ycsb.h"
#include "log.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- traces ---- */

struct ycsb_trace {
	FILE *f;
	int own;
	char *path;
	char *line;
	size_t cap;
	unsigned long lineno;
};

ycsb_trace *ycsb_trace_open(const char *path, char *err, size_t errlen)
{
	ycsb_trace *t = calloc(1, sizeof *t);
	if (!t) {
		nm_errf(err, errlen, "trace %s: out of memory", path);
		return NULL;
	}
	if (!strcmp(path, "-")) {
		t->f = stdin;
	} else {
		t->f = fopen(path, "r");
		t->own = 1;
	}
	t->path = strdup(path);
	if (!t->f || !t->path) {
		nm_errf(err, errlen, "trace %s: %s", path, t->f ? "out of memory" : strerror(errno));
		if (t->f && t->own)
			fclose(t->f);
		free(t->path);
		free(t);
		return NULL;
	}
	return t;
}

void ycsb_trace_close(ycsb_trace *t)
{
	if (!t)
		return;
	if (t->own)
		fclose(t->f);
	free(t->path);
	free(t->line);
	free(t);
}

static int parse_u64(const char *s, uint64_t *v)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	uint64_t x = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static char *next_field(char **p)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	char *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	if (*e)
		*e++ = 0;
	*p = e;
	return s;
}

int ycsb_trace_next(ycsb_trace *t, ycsb_req *r, char *err, size_t errlen)
{
	for (;;) {
		errno = 0;
		ssize_t n = getline(&t->line, &t->cap, t->f);
		if (n < 0) {
			if (ferror(t->f))
				return nm_errf(err, errlen, "trace %s line %lu: read error: %s", t->path,
					    t->lineno + 1, strerror(errno ? errno : EIO));
			return 0;
		}
		t->lineno++;
		char *s = t->line;
		if ((size_t)n != strlen(s))
			return nm_errf(err, errlen, "trace %s line %lu: contains a NUL byte (not a text trace)",
				    t->path, t->lineno);
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
			s[--n] = 0;
		char *p = s;
		char *opw = next_field(&p);
		if (!opw || *opw == '#')
			continue;
		ycsb_op op;
		if (ycsb_parse_op(opw, &op))
			return nm_errf(err, errlen,
				    "trace %s line %lu: unknown operation '%.40s' (expected read, update, insert, "
				    "scan, rmw, or Clover's number: 0 = read, other = write)",
				    t->path, t->lineno, opw);
		char *keyw = next_field(&p);
		if (!keyw)
			return nm_errf(err, errlen, "trace %s line %lu: missing the key after '%.40s'", t->path,
				    t->lineno, opw);
		uint64_t key;
		if (parse_u64(keyw, &key))
			return nm_errf(err, errlen, "trace %s line %lu: key '%.40s' is not an unsigned 64-bit integer",
				    t->path, t->lineno, keyw);
		uint64_t len = 0;
		char *lenw = next_field(&p);
		if (op == YCSB_SCAN) {
			if (!lenw)
				return nm_errf(err, errlen, "trace %s line %lu: a scan needs a length: 'scan KEY LEN'",
					    t->path, t->lineno);
			if (parse_u64(lenw, &len) || len == 0 || len > UINT32_MAX)
				return nm_errf(err, errlen,
					    "trace %s line %lu: scan length '%.40s' is not in 1 .. 4294967295",
					    t->path, t->lineno, lenw);
			lenw = next_field(&p);
		}
		if (lenw)
			return nm_errf(err, errlen, "trace %s line %lu: unexpected '%.40s' after the key", t->path,
				    t->lineno, lenw);
		r->op = (uint8_t)op;
		r->key = key;
		r->scan_len = (uint32_t)len;
		return 1;
	}
}

int ycsb_trace_load(const char *path, ycsb_req **reqs, size_t *n, char *err, size_t errlen)
{
	ycsb_trace *t = ycsb_trace_open(path, err, errlen);
	if (!t)
		return -1;
	size_t cap = 1024, len = 0;
	ycsb_req *a = malloc(cap * sizeof *a);
	int rc;
	if (!a) {
		ycsb_trace_close(t);
		return nm_errf(err, errlen, "trace %s: out of memory", path);
	}
	while ((rc = ycsb_trace_next(t, &a[len], err, errlen)) == 1) {
		if (++len == cap) {
			ycsb_req *b = realloc(a, 2 * cap * sizeof *a);
			if (!b) {
				rc = nm_errf(err, errlen, "trace %s: out of memory", path);
				break;
			}
			a = b;
			cap *= 2;
		}
	}
	ycsb_trace_close(t);
	if (rc == 0 && len == 0)
		rc = nm_errf(err, errlen, "trace %s: no requests in the file", path);
	if (rc < 0) {
		free(a);
		return -1;
	}
	*reqs = a;
	*n = len;
	return 0;
}

int ycsb_trace_format(const ycsb_req *r, int clover, char *buf, size_t len)
{
	int n;
	if (clover) {
		if (r->op == YCSB_SCAN)
			return -1;
		n = snprintf(buf, len, "%d %" PRIu64 "\n", r->op == YCSB_READ ? 0 : 1, r->key);
	} else if (r->op == YCSB_SCAN) {
		n = snprintf(buf, len, "scan %" PRIu64 " %" PRIu32 "\n", r->key, r->scan_len);
	} else {
		n = snprintf(buf, len, "%s %" PRIu64 "\n", ycsb_op_name((ycsb_op)r->op), r->key);
	}
	return n < 0 || (size_t)n >= len ? -1 : n;
}
