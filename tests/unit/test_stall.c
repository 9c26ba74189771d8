/* Who holds up a collective and shows no sign of life, and the line saying so. */
#include "stall.h"
#include "tap.h"
#include <stdio.h>
#include <string.h>

#define R 4
static nm_peer_seen peers[R];
static int state[R];
static const char *const hosts[R] = {"hostA", "hostB", "hostC", "hostD"};

/* Every rank last heard at time `seen`, in collective `seq`, at "point 1/2". */
static void reset(uint64_t seq, double seen)
{
	for (int p = 0; p < R; p++) {
		peers[p].seq = seq;
		peers[p].seen = seen;
		snprintf(peers[p].where, sizeof peers[p].where, "point 1/2");
	}
}

static void test_find(void)
{
	/* Rank 0 waits in collective 5 since t=100; rank 1 entered it, rank 2
	 * has not and was last heard at t=90, rank 3 has not but spoke at 103. */
	reset(4, 90);
	peers[0].seq = 5;
	peers[1].seq = 5;
	peers[3].seen = 103;
	CHECK(nm_stall_find(peers, R, 0, 5, 100, 104.9, 5, state) == 0,
	      "no one is late before the deadline has passed since the wait began");
	CHECK(nm_stall_find(peers, R, 0, 5, 100, 105.1, 5, state) == 1 && state[2] == NM_STALL_ABSENT &&
		      state[1] == NM_STALL_FINE && state[3] == NM_STALL_FINE,
	      "absent and silent for the deadline since the wait began: rank 2 only");
	CHECK(nm_stall_find(peers, R, 0, 5, 100, 108.1, 5, state) == 2 && state[2] == NM_STALL_ABSENT &&
		      state[3] == NM_STALL_ABSENT,
	      "a rank heard from during the wait gets the deadline from its last message");
	peers[1].seen = 0;
	CHECK(nm_stall_find(peers, R, 0, 5, 100, 105.1, 5, state) == 1 && state[1] == NM_STALL_FINE,
	      "a silent rank that entered is not blamed while others have not");
	CHECK(nm_stall_reporter(peers, R, 0, 5, state) == 0, "the lowest rank that entered reports");
	CHECK(nm_stall_reporter(peers, R, 1, 5, state) == 0, "... also in rank 1's view");

	/* Everyone entered collective 7; rank 2 went quiet at 50, the wait
	 * (on rank 3) began at 60. */
	reset(7, 64);
	peers[2].seen = 50;
	CHECK(nm_stall_find(peers, R, 3, 7, 60, 64.5, 5, state) == 0, "all in, within the deadline: fine");
	CHECK(nm_stall_find(peers, R, 3, 7, 60, 65.5, 5, state) == 1 && state[2] == NM_STALL_SILENT,
	      "all in and still waiting: the rank silent since is blamed");
	CHECK(nm_stall_find(peers, R, 3, 7, 60, 69.5, 5, state) == 4 - 1,
	      "... and every rank silent that long");

	/* The reporter skips absent ranks and ranks that did not arrive. */
	reset(2, 0);
	peers[0].seq = 1;  /* rank 0 has not entered collective 2 */
	nm_stall_find(peers, R, 3, 2, 10, 20, 5, state);
	state[0] = NM_STALL_ABSENT;
	state[1] = NM_STALL_FINE;
	state[2] = NM_STALL_FINE;
	CHECK(nm_stall_reporter(peers, R, 3, 2, state) == 1, "reporter: lowest arrived, not absent");
	peers[1].seq = 1;
	peers[2].seq = 1;
	CHECK(nm_stall_reporter(peers, R, 3, 2, state) == 3, "reporter: me when no lower rank arrived");

	CHECK(nm_stall_find(peers, 1, 0, 9, 0, 1e6, 5, state) == 0, "a job of one rank never stalls");
}

static void test_line(void)
{
	char line[NM_STALL_LINE];
	reset(3, 100);
	snprintf(peers[1].where, sizeof peers[1].where, "point 2/4 {\"size\":16}");
	peers[1].seq = 2;
	int st[R] = {0, NM_STALL_ABSENT, 0, 0};
	nm_stall_line(line, sizeof line, 0, hosts, 5.2, "barrier", "point 2/4 {\"size\":16}", peers, R, st,
		      107);
	const char *want1 = "netmem: rank 0 (hostA) waited 5 s at barrier during point 2/4 {\"size\":16}: "
			    "rank 1 (hostB) has not arrived and shows no sign of life (last seen 7 s ago, "
			    "at point 2/4 {\"size\":16}); ending the job (finished points are saved)";
	CHECK(!strcmp(line, want1), "one absent rank: %s", line);

	int st2[R] = {0, NM_STALL_ABSENT, 0, NM_STALL_ABSENT};
	nm_stall_line(line, sizeof line, 2, hosts, 30, "allgather", "setup", peers, R, st2, 130);
	CHECK(strstr(line, "rank 2 (hostC) waited 30 s at allgather during setup: ranks 1 (hostB, last "
			   "seen 30 s ago, at point 2/4 {\"size\":16}) and 3 (hostD, last seen 30 s ago, "
			   "at point 1/2) have not arrived") != NULL,
	      "two absent ranks: %s", line);

	int st3[R] = {0, 0, NM_STALL_SILENT, 0};
	nm_stall_line(line, sizeof line, 0, hosts, 6, "gather", "finishing", peers, R, st3, 106);
	CHECK(strstr(line, "rank 2 (hostC) arrived but has shown no sign of life since") != NULL,
	      "a rank that stopped inside the collective: %s", line);

	/* Long labels are cut, the end of the line is kept. */
	for (int p = 0; p < R; p++) {
		memset(peers[p].where, 'x', NM_WHERE_MAX - 1);
		peers[p].where[NM_WHERE_MAX - 1] = 0;
	}
	int st4[R] = {0, NM_STALL_ABSENT, NM_STALL_ABSENT, NM_STALL_ABSENT};
	nm_stall_line(line, sizeof line, 0, hosts, 5, "barrier", peers[0].where, peers, R, st4, 100);
	const char *tail = "; ending the job (finished points are saved)";
	size_t n = strlen(line);
	CHECK(n < sizeof line && n > strlen(tail) && !strcmp(line + n - strlen(tail), tail),
	      "a line too long for its buffer keeps its end (%zu bytes)", n);
	char small[8];
	nm_stall_line(small, sizeof small, 0, hosts, 5, "barrier", "setup", peers, R, st, 100);
	CHECK(strlen(small) < sizeof small, "a tiny buffer stays terminated");
}

/* Looks every 0.25 s from START to END: whether any said it expired. */
static bool looks(nm_wait *w, double start, double end, uint64_t mark)
{
	bool e = false;
	for (double t = start; t <= end + 1e-9; t += 0.25)
		e |= nm_wait_expired(w, t, mark);
	return e;
}

/* A wait outside the collectives: the deadline counts from its start or
 * its last sign of progress, and its line has the collectives' form. */
static void test_wait(void)
{
	nm_wait w;
	nm_wait_start(&w, 100, 5, 7);
	CHECK(!looks(&w, 100.25, 104.75, 7), "no progress, within the deadline: still waiting");
	CHECK(looks(&w, 105, 105.25, 7), "no progress past the deadline: it gives up");
	nm_wait_start(&w, 100, 5, 7);
	CHECK(!looks(&w, 100.25, 103, 7) && !looks(&w, 103.25, 107.75, 8), "progress at 103.25 moves the deadline to 108.25");
	CHECK(looks(&w, 108, 108.5, 8) && w.t0 == 100, "... and it gives up past it, the start kept");
	/* The waiting thread itself stopped for 8 s (between the looks at 102
	 * and 110): that is not the other side's silence. */
	nm_wait_start(&w, 100, 5, 7);
	CHECK(!looks(&w, 100.25, 102, 7) && !nm_wait_expired(&w, 110, 7) && !looks(&w, 110.25, 112.75, 7),
	      "a stop of the waiter between two looks does not count: 2 s before it and 2.75 s after, still waiting");
	CHECK(looks(&w, 113, 113.5, 7), "... and it gives up once it has itself run for the deadline without progress");
	nm_wait_start(&w, 100, 5, 7);
	CHECK(!nm_wait_expired(&w, 100.9, 7) && !nm_wait_expired(&w, 101.8, 7) && !nm_wait_expired(&w, 102.7, 7) &&
		      !nm_wait_expired(&w, 103.6, 7) && !nm_wait_expired(&w, 104.5, 7) && nm_wait_expired(&w, 105.4, 7),
	      "looks 0.9 s apart (under the gap of %.0f s) all count: it gives up past the deadline", NM_SELF_GAP_S);
	char line[NM_STALL_LINE];
	nm_wait_line(line, sizeof line, 3, "hostD", 31.4, "worker threads", "point 2/4 {\"size\":16}",
		     "worker thread 1 of 2 (CPU 5) has not returned");
	CHECK(!strcmp(line, "netmem: rank 3 (hostD) waited 31 s at worker threads during point 2/4 {\"size\":16}: "
			    "worker thread 1 of 2 (CPU 5) has not returned; ending the job (finished points are saved)"),
	      "the line: %s", line);
	char big[600];
	memset(big, 'y', sizeof big - 1);
	big[sizeof big - 1] = 0;
	char shortline[300];
	nm_wait_line(shortline, sizeof shortline, 0, "h", 1, "x", "setup", big);
	const char *tail = "; ending the job (finished points are saved)";
	size_t n = strlen(shortline);
	CHECK(n < sizeof shortline && !strcmp(shortline + n - strlen(tail), tail), "a long reason keeps the line's end");
}

int main(void)
{
	test_find();
	test_line();
	test_wait();
	return tap_done();
}
