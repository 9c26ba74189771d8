/* LOCO's ticket lock (LOCO paper, section 5.4): the classic ticket lock over
 * network memory, plus mutual exclusion and fast hand-over between the
 * threads of one rank (cohort style).
 *
 * Global part, per lock, on the lock's home rank (the lock object):
 *   next_ticket  @0  atomic_var: acquire takes a ticket with RDMA FETCH_AND_ADD
 *   now_serving  @8  atomic_var: the holder of ticket t is served when it equals t
 * Both words are only ever touched by the NIC: FAA and READ from every rank,
 * the home included (through its loopback QP), and the holder's RDMA WRITE on
 * release. No CPU atomic ever touches them (lock.h's atomicity rule); the
 * only CPU access is the zeroing before the mesh exists.
 *
 * Local part, per (rank, lock), in process memory (env->priv): a CPU ticket
 * lock (local_next / local_serving) that orders the rank's threads, a flag
 * saying the rank holds the global lock, the global ticket it holds, and the
 * count of consecutive local hand-overs.
 *
 *   acquire(k): take a local ticket, wait for it (CPU spin); if the rank
 *               already holds the global lock (handed over), done. Otherwise
 *               t = rFAA(next_ticket, 1); rREAD(now_serving) until == t.
 *   release(k): if a local thread holds a later local ticket and fewer than
 *               env->handover_max hand-overs happened in a row: keep the
 *               global lock, pass it on by advancing local_serving. Otherwise
 *               rWRITE(now_serving, t + 1), then advance local_serving.
 *
 * Decisions the paper leaves open (and why):
 * - Placement: both words in the lock's own 64-byte object, same cache line
 *   (lock_bytes 64). Only the home's NIC touches them, so there is no CPU
 *   cache line bouncing between cores to avoid by splitting them, and a
 *   second line per lock would double the table (ALock-style tables hold
 *   many locks). Same line also lets one READ fetch both if a later variant
 *   wants the queue length (next_ticket - now_serving).
 * - Waiting: poll now_serving with 8-byte RDMA READs, a pause between
 *   polls, and after 16 unsuccessful polls sched_yield between polls
 *   (spin-then-yield; with a core per thread sched_yield returns at once, in
 *   an oversubscribed VM it lets the holder or the next in line run). No
 *   push notification and no proportional backoff: LOCO names neither, and
 *   the backoff of the classic ticket lock it cites ([41], Mellor-Crummey &
 *   Scott: pause proportional to ticket - now_serving) did not help in the
 *   Soft-RoCE VM (tried: pause of 0.5 and 1 x (distance x last READ's
 *   latency) per poll cut the READs 2-4x, throughput unchanged within the
 *   VM's noise), because there the cost is scheduling the one process whose
 *   turn it is, not poll traffic.
 * - Release: RDMA WRITE of ticket+1 (only the holder writes now_serving, so
 *   a WRITE is enough; an FAA would cost an atomic for nothing). The WRITE
 *   waits for its completion, like every lock helper.
 * - Release fence: none of the lock's own. LOCO lets the caller choose the
 *   fence scope of a release; in this interface the caller fences its
 *   critical-section data itself (workloads/locks/lock.c fences towards the
 *   counter's home before calling release). Our WRITE of now_serving travels
 *   on the same QP as anything the caller wrote to the home, and WRITEs on
 *   one RC QP are placed in order. A local hand-over needs no RDMA at all:
 *   the caller's fence made its data visible before release was called.
 * - Local lock: a FIFO CPU ticket lock per (rank, lock) (fair among local
 *   threads; all-zero is its initial state), on process memory only. A
 *   waiter spins with pause 256 times, then yields between checks.
 * - Hand-over rule: hand over only when a local thread is already waiting
 *   (holds a later local ticket) and the count of consecutive hand-overs is
 *   below env->handover_max (netmem lock --handover-max, default 8; 0 turns
 *   hand-over off). The global acquisition that starts a run resets the
 *   count. Reaching the limit releases globally even with local waiters,
 *   so remote ranks queued on next_ticket get their turn.
 * - The rank's threads share one global ticket per lock: a thread that
 *   receives the lock by hand-over releases the ticket taken by the first
 *   one (the global lock belongs to the rank, not to a thread).
 * - Per-(rank, lock) local state is one 64-byte line per key, for all
 *   env->nlocks keys (threads take remote locks too); calloc's lazy zero
 *   pages keep untouched entries free for large tables.
 * - Hang check: a waiter whose now_serving has not moved for --timeout
 *   seconds ends the job naming the lock, its home and both values (a dead
 *   or stuck holder would otherwise spin everyone forever).
 * - A retried FAA: rxe can run a retransmitted atomic twice. Then a ticket
 *   is drawn that nobody holds, and no protocol step can tell which rank
 *   should release it, so the lock cannot recover; it can only say so at
 *   once. A rank holds at most one ticket per lock, so a drawn ticket
 *   nranks or more ahead of now_serving (a compare on each poll, seen on
 *   two polls) proves the duplicate: the job ends naming it rather
 *   than waiting out --timeout.
 *
 * Statistics (summed over threads and ranks): global_acquires (tickets
 * taken), handovers (acquisitions by local hand-over), serving_polls (READs
 * of now_serving that were not our turn), handover_limit (global releases
 * forced by handover_max while a local thread was waiting). */
#include "lock.h"
#include "clock.h"
#include "log.h"
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { ST_GLOBAL, ST_HANDOVER, ST_POLLS, ST_LIMIT };

#define NEXT_OFF 0
#define SERVING_OFF 8
/* Spin-then-yield thresholds: local spins, then failed global polls. */
#define LOCAL_SPINS 256
#define GLOBAL_POLLS 16

typedef struct ticket_local {
	_Atomic uint64_t next;      /* local tickets handed out */
	_Atomic uint64_t serving;   /* local ticket now holding the lock */
	/* Below: only the local holder reads or writes them. */
	uint64_t global_ticket;     /* valid while held */
	uint32_t handovers;         /* consecutive hand-overs in this global tenure */
	bool held;                  /* this rank holds the global lock */
	char pad[64 - 2 * sizeof(uint64_t) - sizeof(uint64_t) - sizeof(uint32_t) - sizeof(bool)];
} ticket_local;
_Static_assert(sizeof(ticket_local) == 64, "one cache line per lock");

typedef struct ticket_env {
	void *raw;              /* calloc'd, for free */
	ticket_local *lk;       /* nlocks entries, 64-byte aligned */
} ticket_env;

extern const nm_lock_type nm_ticketlock;

static int ticket_env_init(nm_lock_env *e, char *err, size_t errlen)
{
	ticket_env *te = calloc(1, sizeof *te);
	size_t n = (size_t)e->nlocks;
	if (te)
		te->raw = calloc(n + 1, sizeof(ticket_local));
	if (!te || !te->raw) {
		snprintf(err, errlen, "ticket lock: no memory for the local state of %zu locks", n);
		free(te);
		return -1;
	}
	te->lk = (ticket_local *)(((uintptr_t)te->raw + 63) & ~(uintptr_t)63);
	e->priv = te;
	return 0;
}

static void ticket_env_fini(nm_lock_env *e)
{
	ticket_env *te = e->priv;
	if (te) {
		free(te->raw);
		free(te);
	}
	e->priv = NULL;
}

static void ticket_acquire(nm_lock_thread *t, int key)
{
	nm_lock_env *e = t->env;
	ticket_local *l = &((ticket_env *)e->priv)->lk[key];

	/* Local FIFO: one thread of this rank at a time past this point. */
	uint64_t mine = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);
	nm_lock_wait w = {0};
	uint64_t ls;
	while ((ls = atomic_load_explicit(&l->serving, memory_order_acquire)) != mine)
		nm_lock_pause(t, &w, "ticket", key, e->rank, "local now_serving",
			      ls, mine == ls + 1 ? "for the local holder to pass on" : "for earlier local tickets");
	if (l->held) { /* the previous local holder kept the global lock for us */
		t->stat[ST_HANDOVER]++;
		return;
	}

	int home = nm_lock_home(e, key);
	uint64_t tk = nm_lock_faa(t, home, nm_lock_addr(e, &nm_ticketlock, key, NEXT_OFF), 1);
	uint64_t serving_addr = nm_lock_addr(e, &nm_ticketlock, key, SERVING_OFF);
	uint64_t seen = UINT64_MAX, since = 0, far = 0, limit = nm_ns_to_ticks((uint64_t)(e->timeout * 1e9));
	for (uint32_t polls = 0;;) {
		uint64_t s = nm_lock_read64(t, home, serving_addr);
		if (s == tk)
			break;
		if (seen == UINT64_MAX)
			nm_lock_waiting(t, key);
		/* Each rank holds at most one ticket of a lock, so ours is
		 * fewer than nranks ahead of now_serving. Further ahead, the
		 * home's NIC ran a retried FETCH_AND_ADD twice: the ticket
		 * in between has no holder and would stop every rank. Two
		 * READs must show it: one may meet a WRITE half placed. */
		if (tk - s >= (uint64_t)e->nranks && ++far == 2)
			nm_fatal("ticket lock %d (home rank %d): rank %d thread %d drew ticket %" PRIu64
				 " with now_serving %" PRIu64 ", more than the %d ranks apart that can queue: "
				 "the NIC executed a retried FETCH_AND_ADD twice (see nic_retransmissions); "
				 "a ticket without holder would hang the lock", key, home, e->rank, t->thread, tk,
				 s, e->nranks);
		t->stat[ST_POLLS]++;
		/* Hang check: now_serving must keep moving while we queue. */
		uint64_t now = nm_ticks();
		if (s != seen) {
			seen = s;
			since = now;
		} else if (now - since > limit) {
			nm_fatal("ticket lock %d (home rank %d): rank %d thread %d waited more than %g s "
				 "for its turn; peer rank %d, now_serving = %" PRIu64 " (stuck), own ticket %" PRIu64,
				 key, home, e->rank, t->thread, e->timeout, home, s, tk);
		}
		if (polls < GLOBAL_POLLS) {
			polls++;
			nm_cpu_relax();
		} else {
			sched_yield();
		}
	}
	t->stat[ST_GLOBAL]++;
	l->global_ticket = tk;
	l->handovers = 0;
	l->held = true;
}

static void ticket_release(nm_lock_thread *t, int key)
{
	nm_lock_env *e = t->env;
	ticket_local *l = &((ticket_env *)e->priv)->lk[key];
	uint64_t mine = atomic_load_explicit(&l->serving, memory_order_relaxed);
	/* A later local ticket was taken: that thread is waiting for us. */
	bool waiting = atomic_load_explicit(&l->next, memory_order_relaxed) != mine + 1;

	if (waiting && (int)l->handovers < e->handover_max) {
		l->handovers++;
	} else {
		if (waiting)
			t->stat[ST_LIMIT]++;
		l->held = false;
		nm_lock_write64(t, nm_lock_home(e, key), nm_lock_addr(e, &nm_ticketlock, key, SERVING_OFF),
				l->global_ticket + 1);
	}
	atomic_store_explicit(&l->serving, mine + 1, memory_order_release);
}

const nm_lock_type nm_ticketlock = {
	.name = "ticket",
	.order = 3,
	.summary = "LOCO ticket lock: rFAA next_ticket, rREAD-poll now_serving, rWRITE release "
		   "(loopback for local locks); FIFO local hand-over between a rank's threads, "
		   "at most --handover-max in a row",
	.lock_bytes = 64,
	.stat_names = {"global_acquires", "handovers", "serving_polls", "handover_limit"},
	.env_init = ticket_env_init,
	.env_fini = ticket_env_fini,
	.acquire = ticket_acquire,
	.release = ticket_release,
};
NM_LOCK_TYPE(nm_ticketlock)
