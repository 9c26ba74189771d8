/* Deciding, while a collective waits, which ranks hold it up and show no sign
 * of life, and the one line that says so (boot.c). No MPI here.
 *
 * Every rank tells every other rank when it enters a collective (the
 * collective's sequence number) and, while it waits in one or waits for its
 * worker threads, that it is still alive; each message carries what the rank
 * is doing (its "where"). A rank waiting in collective `seq` since t0 gives up
 * on a peer that has not entered it and that it has not heard from for
 * `deadline` seconds, counted from t0 or from the peer's last message,
 * whichever is later. */
#ifndef NM_STALL_H
#define NM_STALL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NM_WHERE_MAX 240   /* bytes of a where label, NUL included */
#define NM_STALL_LINE 1024 /* bytes of the line, NUL included */

typedef struct nm_peer_seen {
	uint64_t seq;               /* last collective it said it entered (0: none) */
	double seen;                /* when it was last heard from (seconds, monotonic) */
	char where[NM_WHERE_MAX];   /* what it said it was doing then */
} nm_peer_seen;

enum {
	NM_STALL_FINE = 0,
	NM_STALL_ABSENT = 1,  /* has not entered the collective and is silent */
	NM_STALL_SILENT = 2,  /* entered it, then went silent while it cannot complete */
};

/* Marks state[p] for every rank p != me, for collective `seq` this rank has
 * waited in since t0: ABSENT when p has not entered it and has been silent
 * for more than deadline seconds. When every rank has entered it and it still
 * has not completed after deadline seconds, ranks silent that long are marked
 * SILENT (they stopped inside it). Returns how many ranks are marked. */
int nm_stall_find(const nm_peer_seen *peers, int nranks, int me, uint64_t seq, double t0,
		  double now, double deadline, int *state);

/* The rank that reports: the lowest-numbered one among those that entered
 * `seq` (me included) and are not marked. */
int nm_stall_reporter(const nm_peer_seen *peers, int nranks, int me, uint64_t seq,
		      const int *state);

/* The line (no newline): "netmem: rank ME (HOST) waited N s at COLL during
 * WHERE: rank P (HOST) has not arrived and shows no sign of life (last seen
 * ...); ending the job (finished points are saved)". hosts[r] names rank r's
 * host. */
void nm_stall_line(char *buf, size_t len, int me, const char *const *hosts, double waited,
		   const char *coll, const char *where, const nm_peer_seen *peers, int nranks,
		   const int *state, double now);

/* A wait outside the collectives: for a worker thread, a child process's
 * line, another thread's answer, a record its writer is rewriting. Such a
 * wait gives up when it has seen no progress for the deadline (the point's
 * --timeout), counted from when it began or from its last sign of progress,
 * whichever is later, and the job ends with one line of the collectives'
 * form (nm_stalled, log.h):
 *   "netmem: rank ME (HOST) waited N s at WHAT during WHERE: WHY; ending
 *    the job (finished points are saved)"
 * Times are seconds on any monotonic clock. The waiting thread looks
 * (nm_wait_expired) more often than every NM_SELF_GAP_S: a longer gap
 * between two looks is time it did not run itself (SIGSTOP, a paused VM, a
 * descheduled vCPU), which is nobody else's silence, so the last sign of
 * progress moves on by the gap. A wait resumed from a stop then judges by
 * the time it ran, as the collectives do (boot.c). */
#define NM_SELF_GAP_S 1.0
/* The gap since *prev (then set to now) when it is at least NM_SELF_GAP_S,
 * the time to forgive; else 0. Shared by nm_wait and the collectives. */
static inline double nm_self_gap(double *prev, double now)
{
	double gap = now - *prev;
	*prev = now;
	return gap >= NM_SELF_GAP_S ? gap : 0;
}
typedef struct nm_wait {
	double t0;        /* the wait began */
	double last;      /* its last sign of progress (>= t0) */
	double looked;    /* the last look */
	double deadline;  /* seconds without progress before it gives up */
	uint64_t mark;    /* what progress looked like then (a count that moves) */
} nm_wait;

void nm_wait_start(nm_wait *w, double now, double deadline, uint64_t mark);
/* Takes in the current mark (a change is progress) and says whether the
 * wait has gone on for more than the deadline without any. */
bool nm_wait_expired(nm_wait *w, double now, uint64_t mark);
void nm_wait_line(char *buf, size_t len, int me, const char *host, double waited, const char *what,
		  const char *where, const char *why);
#endif
