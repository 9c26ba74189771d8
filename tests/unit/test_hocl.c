/* Sherman's local lock table (primitives/locks/hocl.h): who takes the
 * remote lock and who gets it handed over, in forced orders of tickets, the
 * bound on holders in a row, tickets across the 32-bit wrap; then threads
 * that take one slot many times over a stand-in for the remote lock, which
 * checks on every acquisition that a holder told the remote lock came with
 * the slot finds it held, and one told to take it finds it free. */
#include "hocl.h"
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

/* One holder, nobody waiting: takes the lock remotely and releases it remotely. */
static void alone(void)
{
	nm_hocl h;
	CHECK(nm_hocl_init(&h, 4, 8) == 0, "init: 4 slots");
	uint32_t t = nm_hocl_enter(&h, 2);
	CHECK(t == 0 && nm_hocl_served(&h, 2, t) && !nm_hocl_idle(&h, 2), "alone: ticket 0 is served at once");
	CHECK(!nm_hocl_begin(&h, 2), "alone: the remote lock does not come with the slot");
	CHECK(!nm_hocl_hand_over(&h, 2), "alone: nobody waits, so no hand-over");
	nm_hocl_leave(&h, 2);
	CHECK(nm_hocl_idle(&h, 2) && nm_hocl_idle(&h, 0), "alone: the slot is idle after, the others untouched");
	nm_hocl_free(&h);
}

/* Three queued holders: the first takes the lock remotely and hands it to
 * the second, the second to the third, the third releases it remotely. */
static void chain(void)
{
	nm_hocl h;
	nm_hocl_init(&h, 1, 8);
	uint32_t a = nm_hocl_enter(&h, 0), b = nm_hocl_enter(&h, 0), c = nm_hocl_enter(&h, 0);
	CHECK(nm_hocl_served(&h, 0, a) && !nm_hocl_served(&h, 0, b) && !nm_hocl_served(&h, 0, c),
	      "chain: only the first ticket is served");
	CHECK(!nm_hocl_begin(&h, 0) && nm_hocl_hand_over(&h, 0), "chain: the first takes it and hands it over");
	nm_hocl_leave(&h, 0);
	CHECK(nm_hocl_served(&h, 0, b) && nm_hocl_begin(&h, 0), "chain: the second is served, the lock came with it");
	CHECK(nm_hocl_hand_over(&h, 0), "chain: the second hands it to the third");
	nm_hocl_leave(&h, 0);
	CHECK(nm_hocl_served(&h, 0, c) && nm_hocl_begin(&h, 0), "chain: the third has it handed over");
	CHECK(!nm_hocl_hand_over(&h, 0), "chain: the third, with nobody waiting, releases it remotely");
	nm_hocl_leave(&h, 0);
	CHECK(nm_hocl_idle(&h, 0), "chain: idle after");
	/* the next holder after a remote release takes the lock again */
	nm_hocl_enter(&h, 0);
	CHECK(!nm_hocl_begin(&h, 0), "chain: after a remote release the next holder takes it remotely");
	nm_hocl_hand_over(&h, 0);
	nm_hocl_leave(&h, 0);
	nm_hocl_free(&h);
}

/* Five queued, at most 3 holders in a row: holders 1-3 share one remote
 * acquisition, the 3rd releases remotely although 4 and 5 wait, 4 takes it
 * again and hands it to 5. With a bound of 1 nobody ever hands over. */
static void bound(void)
{
	nm_hocl h;
	nm_hocl_init(&h, 1, 3);
	for (int i = 0; i < 5; i++)
		nm_hocl_enter(&h, 0);
	bool came[5], handed[5];
	for (int i = 0; i < 5; i++) {
		came[i] = nm_hocl_begin(&h, 0);
		handed[i] = nm_hocl_hand_over(&h, 0);
		nm_hocl_leave(&h, 0);
	}
	CHECK(!came[0] && came[1] && came[2] && !came[3] && came[4],
	      "bound 3: holders 1 and 4 take the lock remotely, 2, 3 and 5 have it handed over");
	CHECK(handed[0] && handed[1] && !handed[2] && handed[3] && !handed[4],
	      "bound 3: the 3rd releases remotely though two wait; the 4th hands over, the 5th releases");
	nm_hocl_free(&h);
	nm_hocl_init(&h, 1, 1);
	nm_hocl_enter(&h, 0);
	nm_hocl_enter(&h, 0);
	bool any = nm_hocl_begin(&h, 0) | nm_hocl_hand_over(&h, 0);
	nm_hocl_leave(&h, 0);
	any |= nm_hocl_begin(&h, 0) | nm_hocl_hand_over(&h, 0);
	nm_hocl_leave(&h, 0);
	CHECK(!any && nm_hocl_idle(&h, 0), "bound 1: no hand-over, every holder takes the lock remotely");
	nm_hocl_free(&h);
}

/* Tickets that wrap past 2^32 - 1 keep their order and the waiter count. */
static void wrap(void)
{
	nm_hocl h;
	nm_hocl_init(&h, 1, 8);
	atomic_store(&h.slot[0].next, UINT32_MAX);
	atomic_store(&h.slot[0].served, UINT32_MAX);
	uint32_t a = nm_hocl_enter(&h, 0), b = nm_hocl_enter(&h, 0);
	CHECK(a == UINT32_MAX && b == 0 && nm_hocl_served(&h, 0, a) && !nm_hocl_served(&h, 0, b),
	      "wrap: tickets 2^32-1 and 0, the first served");
	nm_hocl_begin(&h, 0);
	CHECK(nm_hocl_hand_over(&h, 0), "wrap: the waiter behind the wrap is seen");
	nm_hocl_leave(&h, 0);
	CHECK(nm_hocl_served(&h, 0, b) && nm_hocl_begin(&h, 0) && !nm_hocl_hand_over(&h, 0),
	      "wrap: ticket 0 is served with the lock handed over, and nobody waits behind it");
	nm_hocl_leave(&h, 0);
	CHECK(nm_hocl_idle(&h, 0), "wrap: idle after");
	nm_hocl_free(&h);
}

/* Threads on one slot, each acquisition checked against a stand-in for the
 * remote lock (an atomic word: 1 held). */
enum { THREADS = 4, ROUNDS = 20000 };
static nm_hocl shared;
static _Atomic int remote;
static _Atomic long wrong, handed;
static long counter;

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		uint32_t t = nm_hocl_enter(&shared, 0);
		while (!nm_hocl_served(&shared, 0, t))
			sched_yield();   /* more threads than CPUs: let the holder run */
		if (nm_hocl_begin(&shared, 0)) {
			handed++;
			if (atomic_load(&remote) != 1)
				wrong++;
		} else {
			int free_ = 0;
			if (!atomic_compare_exchange_strong(&remote, &free_, 1))
				wrong++;
		}
		counter++;   /* the slot alone guards it */
		if (!nm_hocl_hand_over(&shared, 0))
			atomic_store(&remote, 0);
		nm_hocl_leave(&shared, 0);
	}
	return NULL;
}

static void threads(void)
{
	nm_hocl_init(&shared, 1, 8);
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK(wrong == 0, "threads: every holder found the remote lock as the slot said (%ld wrong)", (long)wrong);
	CHECK(counter == (long)THREADS * ROUNDS, "threads: no lost update under the slot (%ld of %ld)", counter,
	      (long)THREADS * ROUNDS);
	CHECK(nm_hocl_idle(&shared, 0) && atomic_load(&remote) == 0, "threads: slot idle and remote lock free after");
	printf("# threads: %ld of %ld acquisitions had the lock handed over (an observation)\n", (long)handed,
	       (long)THREADS * ROUNDS);
	nm_hocl_free(&shared);
}

int main(void)
{
	alone();
	chain();
	bound();
	wrap();
	threads();
	return tap_done();
}
