/* RDMA MCS queue lock, the ALock paper's "MCS" competitor (Sec. 6; the
 * details the paper leaves out follow the authors' released code): the
 * original MCS algorithm with its queue in RDMA memory and every operation
 * done by RDMA, regardless of locality ("the competitors use the local RDMA
 * loopback card to perform RDMA operations on local memory").
 *
 * Layout. Lock object, 64 B at the lock's home: the tail word at offset 0,
 * 0 = free (the rest is padding). Descriptor, 64 B per thread in its own
 * rank's registered memory: `locked` at offset 0 (1 = waiting, 0 = the lock
 * was handed over), `next` at offset 32 (the successor's id, 0 = none).
 *
 * Lock:   locked = 1, next = 0 (CPU stores to our own descriptor; nobody else
 *         writes it while we are not queued);
 *         prev = swap(tail, me), emulated with an rCAS loop (verbs have no
 *         remote swap): guess 0, retry with the value the failed rCAS
 *         returned until one succeeds;
 *         if prev != 0: RDMA WRITE of `me` into prev's `next`, then spin on
 *         our own `locked` (atomic loads; the predecessor clears it by RDMA
 *         WRITE).
 * Unlock: rCAS(tail, me -> 0); if it fails a successor exists: spin until
 *         its RDMA WRITE of our `next` has landed, then RDMA WRITE 0 into its
 *         `locked`.
 * The tail is only ever touched by RDMA atomics (loopback when the lock is on
 * our own rank), descriptors only by plain writes and loads, so the rule "a
 * word is RMW'd by RDMA or by the CPU, never both" holds trivially.
 *
 * Decisions the paper leaves open:
 * - Descriptor pointers are ids, not addresses: nm_lock_qid (the mail of
 *   (rank + 1) << 16 | thread), never 0, resolved with nm_lock_desc_addr (every rank's descriptors sit at
 *   the same offset of its region). No ABA issue: a swap that succeeds with
 *   the learned value really replaced the current tail, whatever happened in
 *   between, and a descriptor is re-enqueued only after its owner's unlock.
 * - The hand-off to a successor on our own rank also goes through RDMA
 *   (loopback), as the paper's code does; `locked` is written as 8 bytes.
 * - `next` holds the successor's id as mail (lock.h): the release acts on it
 *   only once the successor's WRITE is wholly placed. `locked` needs no such
 *   guard: 1 -> 0 changes one byte.
 * - Tail at offset 0 (the released code has it at 32; any offset in the 64 B
 *   line is equivalent).
 * - Data under the lock goes through RDMA (cpu_local = false); the workload
 *   fences its critical-section WRITEs before calling unlock, so the
 *   hand-off WRITE (on another QP) cannot overtake them.
 * - A CAS that rxe retransmitted can execute twice and answer the second
 *   execution's value. An acquire swap answering our own id, or a release
 *   answering 0, therefore counts as done: neither value is possible
 *   otherwise. A duplicated release that answers a later waiter's id cannot
 *   be told apart and is not covered (points record nic_retransmissions).
 * - Waiting: pause, and every 256 polls a sched_yield() and a deadline check
 *   (--timeout without progress ends the job naming the lock): the VM runs
 *   more threads than vCPUs and a waiter must not starve the holder; on
 *   dedicated cores the yield returns at once. */
#include "clock.h"
#include "lock.h"
#include "log.h"
#include <sched.h>

extern const nm_lock_type nm_mcs;

enum { MCS_LOCKED = 0, MCS_NEXT = 32 };                 /* descriptor offsets, bytes */
enum { MCS_SWAP_RETRIES, MCS_HANDOFFS, MCS_RELEASE_WAITS };


static uint64_t id_addr(const nm_lock_env *e, uint64_t id, size_t off)
{
	return nm_lock_desc_addr(e, &nm_mcs, nm_lock_qid_rank(id), nm_lock_qid_thread(id)) + off;
}

static void mcs_acquire(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t tail = nm_lock_addr(e, &nm_mcs, key, 0), me = nm_lock_qid(e->rank, t->thread);
	uint64_t *d = nm_lock_desc_local(e, &nm_mcs, t->thread);
	__atomic_store_n(&d[MCS_LOCKED / 8], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&d[MCS_NEXT / 8], 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t prev = 0, old;
	/* An answer of our own id means this CAS (compare = prev) already
	 * succeeded: the tail cannot hold us before we enqueue, so the answer
	 * comes from a retransmitted copy executed again (rxe does not run
	 * retried atomics exactly once). */
	while ((old = nm_lock_cas(t, home, tail, prev, me)) != prev && old != me) {
		prev = old;
		t->stat[MCS_SWAP_RETRIES]++;
	}
	if (prev == 0)
		return;
	nm_lock_qid_check(t, &nm_mcs, key, prev, 0, "as its predecessor (the tail its swap replaced)");
	nm_lock_write64(t, nm_lock_qid_rank(prev), id_addr(e, prev, MCS_NEXT), me);
	nm_lock_wait w = {0};
	while (__atomic_load_n(&d[MCS_LOCKED / 8], __ATOMIC_ACQUIRE) != 0)
		nm_lock_pause(t, &w, "mcs", key, nm_lock_qid_rank(prev), "own descriptor's locked",
			      __atomic_load_n(&d[MCS_LOCKED / 8], __ATOMIC_RELAXED),
			      "for the predecessor to hand the lock over");
	t->stat[MCS_HANDOFFS]++;
}

static void mcs_release(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t tail = nm_lock_addr(e, &nm_mcs, key, 0), me = nm_lock_qid(e->rank, t->thread);
	/* 0 cannot be the tail while we hold the lock: our CAS already ran
	 * once, and this is a retransmitted copy's answer (as in acquire). */
	uint64_t seen = nm_lock_cas(t, home, tail, me, 0);
	if (seen == me || seen == 0)
		return;
	uint64_t *d = nm_lock_desc_local(e, &nm_mcs, t->thread), next;
	nm_lock_wait w = {0};
	if (!nm_lock_mail_ok(__atomic_load_n(&d[MCS_NEXT / 8], __ATOMIC_ACQUIRE)))
		t->stat[MCS_RELEASE_WAITS]++;
	while (!nm_lock_mail_ok(next = __atomic_load_n(&d[MCS_NEXT / 8], __ATOMIC_ACQUIRE)))
		nm_lock_pause(t, &w, "mcs", key, nm_lock_qid_rank(seen), "own descriptor's next (tail seen by the release CAS)",
			      seen, "for the successor to link itself");
	nm_lock_qid_check(t, &nm_mcs, key, next, 0, "as its successor (own descriptor's next)");
	nm_lock_write64(t, nm_lock_qid_rank(next), id_addr(e, next, MCS_LOCKED), 0);
}

const nm_lock_type nm_mcs = {
	.name = "mcs",
	.order = 2,
	.summary = "RDMA MCS queue lock (rCAS-loop swap; loopback for local locks and hand-offs)",
	.lock_bytes = 64,
	.desc_bytes = 64,
	.stat_names = {"swap_cas_retries", "handoffs", "release_waits"},
	.acquire = mcs_acquire,
	.release = mcs_release,
};
NM_LOCK_TYPE(nm_mcs)
