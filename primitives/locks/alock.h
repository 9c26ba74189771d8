/* ALock (Baran et al., SPAA '24): layout and the steps of Lock/Unlock, for
 * tests that replay the paper's traces step by step. Workloads use the lock
 * through the generic interface (nm_lock_find("alock")); see alock.c for the
 * algorithm and every decision taken where the paper is silent. */
#ifndef NM_ALOCK_H
#define NM_ALOCK_H
#include "lock.h"
#include <stdbool.h>
#include <stdint.h>

/* victim values: the cohort that yields (0 = nobody has competed yet) */
enum { NM_ALOCK_NO_VICTIM = 0, NM_ALOCK_LOCAL_VICTIM = 1, NM_ALOCK_REMOTE_VICTIM = 2 };

/* One lock, 64 B at its home (Fig. 3): every field 8 B and 8 B aligned. */
typedef struct nm_alock_obj {
	uint64_t r_tail;  /* @0: remote cohort's MCS tail, a descriptor id; only ever
			   * modified by RDMA CAS (local threads only load it) */
	uint64_t pad0;
	uint64_t l_tail;  /* @16: local cohort's MCS tail, the home's virtual address
			   * of a LocalDescriptor; only ever modified by CPU atomics
			   * on the home (remote threads only RDMA READ it) */
	uint64_t pad1;
	uint64_t victim;  /* @32: written (never RMW'd) by CPU store or RDMA WRITE */
	uint64_t pad2[3];
} nm_alock_obj;

/* Remote and local descriptor, 64 B each (Alg. 1). */
typedef struct nm_alock_desc {
	uint64_t budget;  /* @0: the mail (lock.h) of the budget left once the lock
			   * is passed; -1 (all ones, never valid mail) while
			   * waiting; read it with nm_alock_budget */
	uint64_t pad0[3];
	uint64_t next;    /* @32: successor (remote: id; local: address), 0 = none */
	uint64_t pad1[3];
} nm_alock_desc;

#define NM_ALOCK_R_TAIL 0
#define NM_ALOCK_L_TAIL 16
#define NM_ALOCK_VICTIM 32
#define NM_ALOCK_BUDGET 0
#define NM_ALOCK_NEXT 32
/* A thread's 128 descriptor bytes: RemoteDescriptor, then LocalDescriptor. */
#define NM_ALOCK_RDESC 0
#define NM_ALOCK_LDESC 64

enum { NM_ALOCK_REACQUIRES, NM_ALOCK_REMOTE_HANDOFFS, NM_ALOCK_LOCAL_HANDOFFS,
       NM_ALOCK_PETERSON_REREADS };

extern const nm_lock_type nm_alock;

/* Id of (rank, thread)'s RemoteDescriptor as stored in r_tail and next. */
static inline uint64_t nm_alock_rid(int rank, int thread)
{
	return nm_lock_qid(rank, thread);
}
/* A descriptor's budget: -1 while waiting (or while the WRITE passing it is
 * still being placed), else the budget left. */
static inline int64_t nm_alock_budget(const nm_alock_desc *d)
{
	uint64_t w = __atomic_load_n(&d->budget, __ATOMIC_ACQUIRE);
	return nm_lock_mail_ok(w) ? (int64_t)(uint32_t)w : -1;
}
nm_alock_desc *nm_alock_rdesc(const nm_lock_thread *t);
nm_alock_desc *nm_alock_ldesc(const nm_lock_thread *t);

/* Steps of Lock (Alg. 2): qLock (Alg. 3, or its local twin) enqueues and
 * returns true when the cohort lock was passed (after pReacquire when the
 * budget passed was 0); false means the queue was empty and the caller must
 * win pLock (Alg. 4) next. The remote steps are for locks homed elsewhere,
 * the local ones for locks homed on the caller's rank. */
bool nm_alock_qlock_remote(nm_lock_thread *t, int key);
bool nm_alock_qlock_local(nm_lock_thread *t, int key);
void nm_alock_plock_remote(nm_lock_thread *t, int key);
void nm_alock_plock_local(nm_lock_thread *t, int key);
void nm_alock_qunlock_remote(nm_lock_thread *t, int key);
void nm_alock_qunlock_local(nm_lock_thread *t, int key);
#endif
