/* Who holds up a collective and shows no sign of life (stall.h). */
#include "stall.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int nm_stall_find(const nm_peer_seen *peers, int nranks, int me, uint64_t seq, double t0,
		  double now, double deadline, int *state)
{
	int absent = 0, silent = 0;
	bool all_in = true;
	for (int p = 0; p < nranks; p++) {
		state[p] = NM_STALL_FINE;
		if (p != me && peers[p].seq < seq)
			all_in = false;
	}
	for (int p = 0; p < nranks; p++) {
		if (p == me)
			continue;
		double since = peers[p].seen > t0 ? peers[p].seen : t0;
		if (now - since <= deadline)
			continue;
		if (peers[p].seq < seq) {
			state[p] = NM_STALL_ABSENT;
			absent++;
		} else if (all_in) {
			state[p] = NM_STALL_SILENT;
			silent++;
		}
	}
	return absent + silent;
}

int nm_stall_reporter(const nm_peer_seen *peers, int nranks, int me, uint64_t seq,
		      const int *state)
{
	for (int p = 0; p < nranks; p++)
		if (p == me || (state[p] == NM_STALL_FINE && peers[p].seq >= seq))
			return p;
	return me;
}

typedef struct {
	char *buf;
	size_t len, used;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
	if (b->used + 1 >= b->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->buf + b->used, b->len - b->used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->used += (size_t)n;
	if (b->used >= b->len)
		b->used = b->len - 1;
}

/* How many ranks a line names before "and N more". */
#define LISTED 8

static void seen_clause(sbuf *b, const nm_peer_seen *p, double now)
{
	double ago = now - p->seen;
	put(b, "last seen %.0f s ago, at %s", ago > 0 ? ago : 0, p->where[0] ? p->where : "?");
}

static const char tail[] = "; ending the job (finished points are saved)";

void nm_stall_line(char *buf, size_t len, int me, const char *const *hosts, double waited,
		   const char *coll, const char *where, const nm_peer_seen *peers, int nranks,
		   const int *state, double now)
{
	if (len == 0)
		return;
	buf[0] = 0;
	/* The tail always fits: long labels shorten what comes before it. */
	size_t room = len > 2 * sizeof tail ? len - (sizeof tail - 1) : len;
	sbuf b = {buf, room, 0};
	int absent = 0, silent = 0;
	for (int p = 0; p < nranks; p++) {
		absent += state[p] == NM_STALL_ABSENT;
		silent += state[p] == NM_STALL_SILENT;
	}
	int kind = absent ? NM_STALL_ABSENT : NM_STALL_SILENT, n = absent ? absent : silent;
	put(&b, "netmem: rank %d (%s) waited %.0f s at %s during %s: ", me, hosts[me], waited, coll,
	    where);
	if (n == 1) {
		for (int p = 0; p < nranks; p++)
			if (state[p] == kind) {
				put(&b, "rank %d (%s) %s (", p, hosts[p],
				    kind == NM_STALL_ABSENT
					    ? "has not arrived and shows no sign of life"
					    : "arrived but has shown no sign of life since");
				seen_clause(&b, &peers[p], now);
				put(&b, ")");
			}
	} else {
		put(&b, "ranks ");
		int listed = 0;
		for (int p = 0; p < nranks && listed < LISTED; p++) {
			if (state[p] != kind)
				continue;
			listed++;
			if (listed > 1)
				put(&b, listed == n ? " and " : ", ");
			put(&b, "%d (%s, ", p, hosts[p]);
			seen_clause(&b, &peers[p], now);
			put(&b, ")");
		}
		if (listed < n)
			put(&b, " and %d more", n - listed);
		put(&b, " %s", kind == NM_STALL_ABSENT ? "have not arrived and show no sign of life"
						       : "arrived but have shown no sign of life since");
	}
	b.len = len;
	put(&b, "%s", tail);
}

void nm_wait_start(nm_wait *w, double now, double deadline, uint64_t mark)
{
	*w = (nm_wait){.t0 = now, .last = now, .looked = now, .deadline = deadline, .mark = mark};
}

bool nm_wait_expired(nm_wait *w, double now, uint64_t mark)
{
	w->last += nm_self_gap(&w->looked, now);
	if (mark != w->mark) {
		w->mark = mark;
		w->last = now;
		return false;
	}
	return now - w->last > w->deadline;
}

void nm_wait_line(char *buf, size_t len, int me, const char *host, double waited, const char *what,
		  const char *where, const char *why)
{
	if (len == 0)
		return;
	buf[0] = 0;
	size_t room = len > 2 * sizeof tail ? len - (sizeof tail - 1) : len;
	sbuf b = {buf, room, 0};
	put(&b, "netmem: rank %d (%s) waited %.0f s at %s during %s: %s", me, host, waited, what,
	    where && where[0] ? where : "?", why);
	b.len = len;
	put(&b, "%s", tail);
}
