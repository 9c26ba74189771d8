/* ALock: the asymmetric lock of Baran, Nelson-Slivon, Tseng, Palmieri (SPAA
 * '24). Two budgeted MCS queues, one per cohort, whose tails double as the
 * flags of Peterson's algorithm between the two cohort leaders:
 *
 *   remote cohort (threads on other ranks than the lock's home): an MCS queue
 *     on r_tail driven by RDMA only (Alg. 3);
 *   local cohort (threads on the home rank): the same queue on l_tail driven
 *     by CPU atomics only, no loopback at all;
 *   Peterson (Alg. 4) on {l_tail, r_tail, victim}, played only by a thread
 *     that found its queue empty or was passed a budget of 0.
 *
 * Layout (alock.h, Fig. 3): lock 64 B {r_tail @0, l_tail @16, victim @32};
 * per thread 128 B of descriptors in its own rank's registered memory:
 * RemoteDescriptor @0 {budget @0, next @32}, LocalDescriptor @64 {budget @0,
 * next @32}; budget -1 = waiting. Budgets and remote ids are mail (lock.h):
 * a value with its complement, so a poll never takes a partly placed WRITE.
 *
 * Lock(key): local iff nm_lock_home(key) == our rank.
 *   passed = qLock(); if !passed: pLock(); seq_cst fence.
 * qLock, remote: desc = {-1, 0}; prev = swap(r_tail, me) as an rCAS loop
 *   (first guess 0, then the value each failed rCAS returns); prev == 0:
 *   budget = remote_budget, return false. Else RDMA WRITE me into prev's
 *   next, spin on our own budget until >= 0 (written by the predecessor's
 *   RDMA WRITE); budget 0: pReacquire(), budget = remote_budget; return true.
 * qLock, local: the same with CPU atomics: exchange on l_tail, store into
 *   prev->next, spin on budget, local_budget.
 * pLock = pReacquire:
 *   local:  seq_cst store victim = LOCAL, then loop { seq_cst load r_tail ==
 *           0 -> done; seq_cst load victim != LOCAL -> done; pause }.
 *   remote: RDMA WRITE victim = REMOTE, waited for (its completion means it
 *           is placed at the home before anything later on the QP runs);
 *           then loop { one RDMA READ of the whole 64 B lock; l_tail == 0 ->
 *           done; victim != REMOTE -> done; pause }.
 * Unlock(key): seq_cst fence; qUnlock: CAS tail me -> 0 (rCAS for r_tail,
 *   CPU CAS for l_tail; success also leaves Peterson since our cohort's flag
 *   is now clear); on failure spin until the successor has linked itself,
 *   then write budget - 1 into its budget (RDMA WRITE / CPU release store).
 *
 * Atomicity (Table 1: local RMW vs remote CAS is not atomic; every pairing of
 * reads and writes is): r_tail is read-modify-written only by RDMA CAS, all
 * issued to the home's NIC (local threads only load it); l_tail only by CPU
 * atomics on the home (remote threads only RDMA READ it); victim is only ever
 * written, by a CPU store or an RDMA WRITE, which are atomic with respect to
 * each other, and Peterson needs nothing more than the order of those writes.
 * Descriptor fields are written (CPU store or RDMA WRITE) and loaded, never
 * RMW'd. The design relies on aligned 8-byte RDMA WRITEs landing in one piece
 * (Table 1; true on ConnectX and on rxe, whose kernel copies 8 aligned bytes
 * with one store).
 *
 * Memory ordering across hand-offs. The holder's data accesses are finished
 * and placed before it releases: a remote holder's critical-section WRITEs
 * are fenced by the workload (zero-length READ on the QP to the home), a
 * local holder's CPU stores precede its seq_cst fence. Then:
 * - remote -> local (rCAS clears r_tail, or a remote reacquirer's victim
 *   WRITE): the home NIC executes it after the fenced data was placed; the
 *   local waiter's seq_cst load observes it and its later loads see the data.
 * - local -> remote (CPU CAS clears l_tail, or a local reacquirer's seq_cst
 *   victim store): the remote waiter's RDMA READ sees it only after the
 *   holder's earlier stores are visible, so its later READs see the data.
 * - in-cohort hand-offs: release store / acquire load locally; remotely the
 *   fenced data is placed before the hand-off WRITE, even on another QP.
 * - Peterson itself: the local leader's victim store and r_tail load are
 *   separated by seq_cst; the remote leader's r_tail rCAS and victim WRITE
 *   have completed before its first READ of l_tail/victim.
 *
 * Decisions where the paper is silent or ambiguous (Algs. 2 and 4 as its
 * prose in Sec. 5 describes them, checked against the authors' released code
 * and TLA+ specification):
 * - Remote-cohort hand-off between two threads on the same rank (both remote
 *   to the lock): RDMA WRITE through loopback, as the released code does,
 *   in the per-rank QP layout. In the paper's thread-pair layout ALock
 *   connects no QP to its own rank (the paper: it "removes 1/n QPs"; the
 *   released code keeps QPs between co-located threads), so that hand-off
 *   is a CPU store into the successor's descriptor, equally correct.
 * - victim is written by RDMA WRITE (one round trip), not the released code's
 *   rCAS loop, and by a seq_cst store locally (not an exchange): both are
 *   plain writes, see above. Encoding: LOCAL 1, REMOTE 2, initially 0.
 * - The rCAS swap starts from the guess 0 (no READ first): an uncontended
 *   remote Lock is rCAS + WRITE(victim) + READ, Unlock one rCAS (+ WRITE to a
 *   successor). The victim write is never skipped (Sec. 5.1 counts
 *   an uncontended remote acquire as one rCAS and one rRead, leaving it out;
 *   skipping it is not safe in general).
 * - Budget: the first holder of an empty queue (or a reacquirer) gets the full
 *   budget B; each in-cohort pass hands budget - 1; a thread handed 0 calls
 *   pReacquire and resets to B. So at most B consecutive acquisitions by one
 *   cohort without re-competing (B, B-1, ..., 1; the next one reacquires).
 *   local_budget and remote_budget come from the env (--local-budget,
 *   --remote-budget; the paper settles on 5 and 20).
 * - Unlock is CAS-first (Alg. 3 / TLA+), for both cohorts.
 * - A retransmitted rCAS (rxe) answering our own id on enqueue, or 0 on
 *   unlock, already succeeded (as in mcs.c).
 * - Descriptors are reset (budget -1, next 0) before the enqueue, and also
 *   set so at thread_init (Fig. 2 frame 2). Remote descriptor ids are
 *   nm_lock_qid (the mail of (rank + 1) << 16 | thread), never 0; l_tail holds a virtual address.
 * - Fences: seq_cst after Lock and before Unlock, as the paper says.
 * - Waiting: pause, and every 256 polls a sched_yield() and a deadline check
 *   (--timeout without progress ends the job naming lock and step): the VM
 *   runs more threads than vCPUs and a waiter must not starve the holder.
 * - cpu_local: the holder of a lock homed on its own rank accesses data under
 *   the lock with CPU loads and stores (the workload's counter), the point of
 *   ALock; remote holders use RDMA.
 *
 * Counters: reacquires (pReacquire after a budget of 0, both cohorts), remote
 * and local in-cohort hand-offs received, and extra RDMA READs of a remote
 * leader waiting in Peterson (remote spinning, which the paper bounds). */
#include "alock.h"
#include "clock.h"
#include "log.h"
#include <sched.h>
#include <string.h>


static uint64_t rdesc_addr(const nm_lock_env *e, uint64_t id, size_t off)
{
	return nm_lock_desc_addr(e, &nm_alock, nm_lock_qid_rank(id), nm_lock_qid_thread(id)) + NM_ALOCK_RDESC + off;
}

nm_alock_desc *nm_alock_rdesc(const nm_lock_thread *t)
{
	return (nm_alock_desc *)((uint8_t *)nm_lock_desc_local(t->env, &nm_alock, t->thread) + NM_ALOCK_RDESC);
}

nm_alock_desc *nm_alock_ldesc(const nm_lock_thread *t)
{
	return (nm_alock_desc *)((uint8_t *)nm_lock_desc_local(t->env, &nm_alock, t->thread) + NM_ALOCK_LDESC);
}

static nm_alock_obj *local_lock(const nm_lock_thread *t, int key)
{
	nm_alock_obj *a = nm_lock_local(t->env, &nm_alock, key);
	if (!a)
		nm_fatal("alock: local step on lock %d, which is homed on rank %d", key,
			 nm_lock_home(t->env, key));
	return a;
}

static void desc_reset(nm_alock_desc *d)
{
	__atomic_store_n(&d->budget, UINT64_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&d->next, 0, __ATOMIC_RELAXED);
}

static void set_budget(nm_alock_desc *d, int budget)
{
	__atomic_store_n(&d->budget, nm_lock_mail((uint32_t)budget), __ATOMIC_RELAXED);
}

/* A word of another thread's RemoteDescriptor. To a thread of our own rank
 * without a loopback QP (the thread-pair layout connects none for ALock) a
 * CPU store does what the WRITE would: descriptor words are only written
 * and loaded, never read-modify-written, and the holder's data was fenced
 * before its release. */
static void put_rdesc(nm_lock_thread *t, uint64_t id, size_t off, uint64_t value)
{
	const nm_lock_env *e = t->env;
	int r = nm_lock_qid_rank(id);
	uint64_t addr = rdesc_addr(e, id, off);
	if (r == e->rank && !nm_lock_conn(t, r, addr)) {
		uint8_t *d = nm_lock_desc_local(e, &nm_alock, nm_lock_qid_thread(id));
		__atomic_store_n((uint64_t *)(d + NM_ALOCK_RDESC + off), value, __ATOMIC_RELEASE);
		return;
	}
	nm_lock_write64(t, r, addr, value);
}

/* peer: the predecessor's rank (remote cohort), or our own (local cohort). */
static int64_t wait_budget(nm_lock_thread *t, nm_alock_desc *d, int key, int peer)
{
	nm_lock_wait w = {0};
	int64_t b;
	while ((b = nm_alock_budget(d)) < 0)
		nm_lock_pause(t, &w, "alock", key, peer, "own descriptor's budget",
			      __atomic_load_n(&d->budget, __ATOMIC_RELAXED),
			      "for its cohort predecessor to pass the lock");
	return b;
}

/* remote: next is a remote id, written by RDMA (mail, lock.h); local: a
 * descriptor's address, written by one CPU store. */
static uint64_t wait_next(nm_lock_thread *t, nm_alock_desc *d, int key, bool remote)
{
	nm_lock_wait w = {0};
	uint64_t n;
	while ((n = __atomic_load_n(&d->next, __ATOMIC_ACQUIRE)) == 0 || (remote && !nm_lock_mail_ok(n)))
		nm_lock_pause(t, &w, "alock", key, -1, "own descriptor's next", n,
			      "for its cohort successor to link itself");
	return n;
}

/* ---- Peterson (Alg. 4): pLock and pReacquire are the same steps ---- */

void nm_alock_plock_local(nm_lock_thread *t, int key)
{
	nm_alock_obj *a = local_lock(t, key);
	nm_lock_wait w = {0};
	__atomic_store_n(&a->victim, NM_ALOCK_LOCAL_VICTIM, __ATOMIC_SEQ_CST);
	for (;;) {
		if (__atomic_load_n(&a->r_tail, __ATOMIC_SEQ_CST) == 0)
			break;
		if (__atomic_load_n(&a->victim, __ATOMIC_SEQ_CST) != NM_ALOCK_LOCAL_VICTIM)
			break;
		nm_lock_pause(t, &w, "alock", key, -1, "r_tail (remote cohort's tail)",
			      __atomic_load_n(&a->r_tail, __ATOMIC_RELAXED), "in Peterson for the remote cohort");
	}
}

void nm_alock_plock_remote(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t lock = nm_lock_addr(e, &nm_alock, key, 0);
	nm_lock_wait w = {0};
	/* Synchronous: completed, so placed at the home before the READs. */
	nm_lock_write64(t, home, lock + NM_ALOCK_VICTIM, NM_ALOCK_REMOTE_VICTIM);
	for (;;) {
		nm_alock_obj a;
		memcpy(&a, nm_lock_read(t, home, lock, sizeof a), sizeof a);
		if (a.l_tail == 0 || a.victim != NM_ALOCK_REMOTE_VICTIM)
			break;
		t->stat[NM_ALOCK_PETERSON_REREADS]++;
		nm_lock_pause(t, &w, "alock", key, home, "l_tail (local cohort's tail; victim in the low line)",
			      a.l_tail, "in Peterson for the local cohort");
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* ---- cohort queues (Alg. 3 and its local twin) ---- */

bool nm_alock_qlock_remote(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t tail = nm_lock_addr(e, &nm_alock, key, NM_ALOCK_R_TAIL), me = nm_alock_rid(e->rank, t->thread);
	nm_alock_desc *d = nm_alock_rdesc(t);
	desc_reset(d);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t prev = 0, old;
	/* Our own id as the answer: this CAS already succeeded once and a
	 * retransmitted copy ran again (see mcs.c). */
	while ((old = nm_lock_cas(t, home, tail, prev, me)) != prev && old != me)
		prev = old;
	if (prev == 0) {
		set_budget(d, e->remote_budget);
		return false;
	}
	nm_lock_qid_check(t, &nm_alock, key, prev, NM_ALOCK_R_TAIL, "as its predecessor (the tail its swap replaced)");
	put_rdesc(t, prev, NM_ALOCK_NEXT, me);
	if (wait_budget(t, d, key, nm_lock_qid_rank(prev)) == 0) {
		t->stat[NM_ALOCK_REACQUIRES]++;
		nm_alock_plock_remote(t, key);
		set_budget(d, e->remote_budget);
	} else {
		t->stat[NM_ALOCK_REMOTE_HANDOFFS]++;
	}
	return true;
}

bool nm_alock_qlock_local(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	nm_alock_obj *a = local_lock(t, key);
	nm_alock_desc *d = nm_alock_ldesc(t);
	desc_reset(d);
	uint64_t prev = __atomic_exchange_n(&a->l_tail, (uint64_t)(uintptr_t)d, __ATOMIC_SEQ_CST);
	if (prev == 0) {
		set_budget(d, e->local_budget);
		return false;
	}
	__atomic_store_n(&((nm_alock_desc *)(uintptr_t)prev)->next, (uint64_t)(uintptr_t)d, __ATOMIC_RELEASE);
	if (wait_budget(t, d, key, e->rank) == 0) {
		t->stat[NM_ALOCK_REACQUIRES]++;
		nm_alock_plock_local(t, key);
		set_budget(d, e->local_budget);
	} else {
		t->stat[NM_ALOCK_LOCAL_HANDOFFS]++;
	}
	return true;
}

void nm_alock_qunlock_remote(nm_lock_thread *t, int key)
{
	const nm_lock_env *e = t->env;
	int home = nm_lock_home(e, key);
	uint64_t tail = nm_lock_addr(e, &nm_alock, key, NM_ALOCK_R_TAIL), me = nm_alock_rid(e->rank, t->thread);
	uint64_t seen = nm_lock_cas(t, home, tail, me, 0);
	if (seen == me || seen == 0)  /* 0: a re-executed copy of our release (mcs.c) */
		return;
	nm_alock_desc *d = nm_alock_rdesc(t);
	uint64_t next = nm_lock_qid_check(t, &nm_alock, key, wait_next(t, d, key, true), NM_ALOCK_R_TAIL,
					  "as its successor (own remote descriptor's next)");
	put_rdesc(t, next, NM_ALOCK_BUDGET, nm_lock_mail((uint32_t)(nm_alock_budget(d) - 1)));
}

void nm_alock_qunlock_local(nm_lock_thread *t, int key)
{
	nm_alock_obj *a = local_lock(t, key);
	nm_alock_desc *d = nm_alock_ldesc(t);
	uint64_t me = (uint64_t)(uintptr_t)d;
	if (__atomic_compare_exchange_n(&a->l_tail, &me, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	nm_alock_desc *next = (nm_alock_desc *)(uintptr_t)wait_next(t, d, key, false);
	__atomic_store_n(&next->budget, nm_lock_mail((uint32_t)(nm_alock_budget(d) - 1)), __ATOMIC_RELEASE);
}

/* ---- the lock interface (Alg. 2) ---- */

static void alock_acquire(nm_lock_thread *t, int key)
{
	bool local = nm_lock_home(t->env, key) == t->env->rank;
	if (local) {
		if (!nm_alock_qlock_local(t, key))
			nm_alock_plock_local(t, key);
	} else {
		if (!nm_alock_qlock_remote(t, key))
			nm_alock_plock_remote(t, key);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void alock_release(nm_lock_thread *t, int key)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (nm_lock_home(t->env, key) == t->env->rank)
		nm_alock_qunlock_local(t, key);
	else
		nm_alock_qunlock_remote(t, key);
}

static void alock_thread_init(nm_lock_thread *t)
{
	desc_reset(nm_alock_rdesc(t));
	desc_reset(nm_alock_ldesc(t));
}

_Static_assert(sizeof(nm_alock_obj) == 64, "ALock object is one 64 B line");
_Static_assert(sizeof(nm_alock_desc) == 64, "ALock descriptor is 64 B");

const nm_lock_type nm_alock = {
	.name = "alock",
	.order = 4,
	.summary = "ALock: RDMA MCS remote cohort + CPU MCS local cohort, Peterson between them",
	.lock_bytes = 64,
	.desc_bytes = 128,
	.cpu_local = true,
	.no_loopback = true,
	.stat_names = {"reacquires", "remote_handoffs", "local_handoffs", "peterson_rereads"},
	.thread_init = alock_thread_init,
	.acquire = alock_acquire,
	.release = alock_release,
};
NM_LOCK_TYPE(nm_alock)
