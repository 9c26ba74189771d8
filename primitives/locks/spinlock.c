/* RDMA CAS spinlock, the ALock paper's "Spin" competitor: one 8-byte word,
 * padded to 64 bytes; acquire repeats rCAS(0 -> 1) until it succeeds (no
 * backoff, as in the paper's code), release is an RDMA WRITE of 0. A lock on
 * the caller's own rank goes through the loopback QP: the word is only ever
 * modified by RDMA, never by the CPU.
 *
 * Decisions the paper leaves open: the value swapped in is the holder's
 * identity (rank << 16 | thread) + 1 rather than 1, so a stuck lock names its
 * holder; a pause instruction separates retries.
 *
 * Soft-RoCE only: release by rCAS(own id -> 0) instead of the rWrite. rxe
 * executes a CAS as load, compare, store under its own lock, and stores the
 * loaded value back when the compare fails; an RDMA WRITE takes no such
 * lock. A waiter's failing CAS that loads the word before a release WRITE
 * lands and stores it back after undoes the release: the lock stays held
 * by nobody, in the releaser's name, or in a byte mix of its id and 0 when
 * the WRITE was half placed (both seen: "stuck holding its own releaser's
 * id", and a word 0x10000 under --nodes 2 in test_lock.sh). Through the
 * atomic path the release is ordered with every CAS. A NIC executes
 * WRITEs and atomics on a word coherently (ALock paper, Table 1), so on
 * hardware the release is the paper's rWrite. effective.emulated_change
 * says so on every point it applies to.
 *
 * A retried CAS that the NIC executes twice (rxe can) is covered only in
 * the case the answer shows: our own identity means the first execution
 * already took the lock. A duplicate of an acquiring CAS that executes after
 * our release's WRITE takes the lock again in our name with nobody holding
 * it, and the protocol has no step that can tell: a sequence tag in the
 * swapped word would only let this thread recognise its stale tag at its
 * next acquire, which may never come while everyone else waits. So that
 * case ends the job at the waiters' deadline, naming the lock word (our
 * identity) and the point records nic_retransmissions; on Soft-RoCE the
 * default ACK timeout (-u 20) keeps retries from happening at all. */
#include "lock.h"
#include "log.h"
#include <inttypes.h>

enum { SPIN_RETRIES };

static void spin_acquire(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	extern const nm_lock_type nm_spinlock;
	int home = nm_lock_home(e, key);
	uint64_t addr = nm_lock_addr(e, &nm_spinlock, key, 0);
	uint64_t me = ((uint64_t)e->rank << 16 | (uint64_t)t->thread) + 1;
	uint64_t seen;
	nm_lock_wait w = {0};
	/* Seeing our own identity means we already hold the lock: only we
	 * write it, so an earlier CAS of ours succeeded and this answer comes
	 * from a retransmitted copy executed again (rxe does not execute
	 * retried atomics exactly once). The pause bounds the wait: a holder
	 * that never releases (or a lost release) ends the job naming it. */
	while ((seen = nm_lock_cas(t, home, addr, 0, me)) != 0 && seen != me) {
		t->stat[SPIN_RETRIES]++;
		nm_lock_pause(t, &w, "spin", key, seen ? (int)((seen - 1) >> 16) : -1, "lock word (holder id + 1)",
			      seen, "for the holder to release");
	}
}

static void spin_release(nm_lock_thread *t, int key)
{
	extern const nm_lock_type nm_spinlock;
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t addr = nm_lock_addr(e, &nm_spinlock, key, 0);
	if (!e->emulated) {
		nm_lock_write64(t, home, addr, 0);
		return;
	}
	/* Soft-RoCE: see the file header. 0 is a duplicated copy's answer. */
	uint64_t me = ((uint64_t)e->rank << 16 | (uint64_t)t->thread) + 1;
	uint64_t seen = nm_lock_cas(t, home, addr, me, 0);
	if (seen != me && seen != 0)
		nm_fatal("spin lock %d (home rank %d): rank %d thread %d released it holding word %#" PRIx64
			 " instead of its own id %#" PRIx64, key, home, e->rank, t->thread, seen, me);
}

const nm_lock_type nm_spinlock = {
	.name = "spin",
	.order = 1,
	.summary = "RDMA CAS spinlock (loopback for local locks)",
	.lock_bytes = 64,
	.stat_names = {"cas_retries"},
	.emulated_change = "release by rCAS(own id -> 0), not the paper's rWrite of 0: Soft-RoCE writes "
			   "a failed CAS's word back, which can undo a concurrent WRITE",
	.acquire = spin_acquire,
	.release = spin_release,
};
NM_LOCK_TYPE(nm_spinlock)
