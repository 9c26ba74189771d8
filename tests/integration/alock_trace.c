/* Replays Fig. 2 of the ALock paper (SPAA '24) on real verbs, frame by frame,
 * and its mirror image. Two ranks (nodes n1 = rank 0, n2 = rank 1), one lock
 * per rank (l1 = key 0 on rank 0, l2 = key 1 on rank 1), one thread per rank
 * (t1 on rank 0, t2 on rank 1). MPI barriers separate the frames; after each
 * frame the rank that can see the state checks it (rank 1 reads l2 with CPU
 * loads: it is l2's home) and rank 0 prints one TAP line per check, then
 * "N passed, N failed".
 *
 *   (1) one lock and one thread per node        (2) RD and LD: budget -1, next NULL
 *   (3) t1 rCAS-swaps RD(t1) into empty r_tail   (4) t1: victim = REMOTE, l_tail NULL -> in
 *   (5) t1 in CS; t2 swaps LD(t2) into l_tail    (6) t2: victim = LOCAL, waits (r_tail set)
 *   (7) t1 unlocks: rCAS r_tail -> NULL          (8) t2 leaves Peterson, enters the CS
 *
 * Mirror: t2 holds l2 (local); t1 must wait in Peterson (victim = REMOTE,
 * re-reading l2 by RDMA) until t2 unlocks, then enters.
 *
 * Built and run by tests/integration/test_alock_trace.sh (mpirun -np 2). */
#include "alock.h"
#include "boot.h"
#include "clock.h"
#include "lock.h"
#include "log.h"
#include "mesh.h"
#include "rdma.h"
#include "verbs.h"
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, npass, nfail, ntest;

/* Collective: the check made on rank `who` is printed by rank 0. */
static void __attribute__((format(printf, 3, 4))) report(int who, int ok, const char *fmt, ...)
{
	char msg[480] = "";
	if (rank == who) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
	}
	nm_boot_bcast(&ok, sizeof ok, who);
	nm_boot_bcast(msg, sizeof msg, who);
	ntest++;
	if (ok)
		npass++;
	else
		nfail++;
	if (rank == 0) {
		printf("%s %d - %s\n", ok ? "ok" : "not ok", ntest, msg);
		fflush(stdout);
	}
}

static void nap_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&d, NULL);
}

static uint64_t ld64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* Polls until cond() or `ms` elapsed; returns cond(). */
#define WAIT_UNTIL(cond, ms)                                                       \
	({                                                                         \
		uint64_t end_ = nm_now_ns() + (uint64_t)(ms) * 1000000ull;         \
		while (!(cond) && nm_now_ns() < end_)                              \
			nap_ms(1);                                                 \
		(cond);                                                            \
	})

static const nm_lock_type *AL;
static nm_lock_thread th;
static atomic_int entered;
static int key_l2 = 1;

static void *t2_peterson(void *arg)
{
	nm_alock_plock_local(&th, key_l2);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	atomic_store(&entered, 1);
	return NULL;
}

static void *t1_acquire(void *arg)
{
	AL->acquire(&th, key_l2);
	atomic_store(&entered, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	nm_clock_init();
	nm_boot_init(&argc, &argv);
	rank = nm_boot_rank();
	int R = nm_boot_size();
	if (R != 2) {
		if (rank == 0)
			printf("not ok 1 - the trace needs exactly 2 ranks (got %d)\n0 passed, 1 failed\n", R);
		nm_boot_finalize();
		return 1;
	}
	AL = nm_lock_find("alock");
	char err[512] = "";
	nm_dev dev;
	const char *devname = getenv("NETMEM_RDMA_DEVICE");
	int failed = nm_dev_open(&dev, devname ? devname : "", 1, -1, err, sizeof err);
	nm_boot_check(failed ? err : NULL, 1);
	nm_boot_check(AL ? NULL : "alock is not linked in", 1);

	/* The lock workload's layout: table, counters, descriptors, scratch. */
	nm_lock_env e = {.rank = rank, .nranks = 2, .nthreads = 1, .nlocks = 2,
			 .local_budget = 5, .remote_budget = 20, .handover_max = 8, .timeout = 20};
	size_t slots = (size_t)nm_lock_slots(&e);
	uint64_t ctr_off = slots * AL->lock_bytes;
	e.table_off = 0;
	e.desc_off = ctr_off + slots * 64;
	e.scratch_off = e.desc_off + AL->desc_bytes;
	nm_mr mr;
	failed = nm_mr_alloc(&dev, &mr, e.scratch_off + NM_LOCK_SCRATCH, false, -1, err, sizeof err);
	nm_boot_check(failed ? err : NULL, 1);
	nm_mesh mesh;
	uint8_t all[4] = {1, 1, 1, 1};
	/* ACK timeout 4 s: no retransmissions under TCG (rxe does not replay
	 * retried atomics exactly once; see test_alock.sh). */
	nm_mesh_cfg mc = {.nthreads = 1, .qps = 1, .initiates = all,
			  .qp = {.timeout = 20, .retry_cnt = 7, .rnr_retry = 7, .max_inline = 64, .sq_depth = 8}};
	nm_mesh_create(&mesh, &dev, &mc, &mr);
	e.mesh = &mesh;
	e.type = AL;
	e.mr = &mr;
	th = (nm_lock_thread){.env = &e, .thread = 0,
			      .scratch = (uint64_t *)((uint8_t *)mr.buf + e.scratch_off)};
	nm_poller_init(&th.poller, &mesh, 0, e.timeout);
	/* Only rank 1 can see l2; rank 0 points at a dummy (checks are
	 * evaluated everywhere, reported from the observing rank). */
	static nm_alock_obj dummy;
	nm_alock_obj *l2 = rank == 1 ? nm_lock_local(&e, AL, key_l2) : &dummy;
	nm_alock_desc *rd = nm_alock_rdesc(&th), *ld = nm_alock_ldesc(&th);
	uint64_t *ctr = (uint64_t *)((uint8_t *)mr.buf + ctr_off); /* l2's counter, on rank 1 */
	const uint64_t rd_t1 = nm_alock_rid(0, 0);
	nm_boot_barrier();

	/* (1) */
	report(0, nm_lock_home(&e, 0) == 0 && nm_lock_home(&e, 1) == 1 && AL->lock_bytes == 64,
	       "(1) two nodes, l1 homed on rank 0 and l2 on rank 1, one thread each; ALock is 64 B");
	report(1, l2 && ld64(&l2->r_tail) == 0 && ld64(&l2->l_tail) == 0 && ld64(&l2->victim) == 0,
	       "(1) l2 starts unlocked: r_tail = l_tail = NULL, victim = 0");

	/* (2) */
	if (AL->thread_init)
		AL->thread_init(&th);
	nm_boot_barrier();
	for (int r = 0; r < 2; r++)
		report(r, nm_alock_budget(rd) == -1 && rd->next == 0 && nm_alock_budget(ld) == -1 && ld->next == 0,
		       "(2) t%d's RD and LD hold budget -1 and next NULL (RD %" PRId64 "/%#" PRIx64
		       ", LD %" PRId64 "/%#" PRIx64 ")", r + 1, nm_alock_budget(rd), rd->next, nm_alock_budget(ld), ld->next);

	/* (3) t1 locks l2, a remote access: qLock on the remote cohort. */
	bool passed = true;
	if (rank == 0)
		passed = nm_alock_qlock_remote(&th, key_l2);
	nm_boot_barrier();
	report(0, !passed && nm_alock_budget(rd) == 20,
	       "(3) t1's rCAS swaps RD(t1) into the empty l2.r_tail: not passed, budget = remote budget (%" PRId64 ")",
	       nm_alock_budget(rd));
	report(1, ld64(&l2->r_tail) == rd_t1 && ld64(&l2->l_tail) == 0 && ld64(&l2->victim) == 0,
	       "(3) l2.r_tail = RD(t1) (%#" PRIx64 "), l_tail NULL, victim untouched (%" PRIu64 ")",
	       ld64(&l2->r_tail), ld64(&l2->victim));

	/* (4) t1 plays Peterson: victim = REMOTE, l_tail NULL -> acquired at once. */
	uint64_t t0 = nm_now_ns();
	if (rank == 0) {
		nm_alock_plock_remote(&th, key_l2);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	uint64_t dt = nm_now_ns() - t0;
	nm_boot_barrier();
	report(1, ld64(&l2->victim) == NM_ALOCK_REMOTE_VICTIM,
	       "(4) t1 set l2.victim = REMOTE (%" PRIu64 ") by RDMA WRITE", ld64(&l2->victim));
	report(0, th.stat[NM_ALOCK_PETERSON_REREADS] == 0,
	       "(4) t1 left Peterson on its first READ (l_tail NULL) after %.1f ms: t1 holds l2", dt / 1e6);

	/* (5) t1 in its critical section (the workload's counter, by RDMA); t2
	 * locks l2, a local access: qLock on the local cohort. */
	if (rank == 0) {
		uint64_t a = mesh.rmr[1].addr + ctr_off;
		uint64_t v = nm_lock_read64(&th, 1, a);
		nm_lock_write64(&th, 1, a, v + 1);
		nm_lock_fence(&th, 1, a);
	} else {
		passed = nm_alock_qlock_local(&th, key_l2);
	}
	nm_boot_barrier();
	report(1, !passed && ld64(&l2->l_tail) == (uint64_t)(uintptr_t)ld && nm_alock_budget(ld) == 5,
	       "(5) t2 swaps LD(t2) into the empty l2.l_tail (%#" PRIx64 "): not passed, budget = local budget (%" PRId64 ")",
	       ld64(&l2->l_tail), nm_alock_budget(ld));

	/* (6) t2 plays Peterson and must wait: victim = LOCAL, r_tail set. */
	pthread_t pt;
	int got_victim = 0, early = 0;
	if (rank == 1) {
		pthread_create(&pt, NULL, t2_peterson, NULL);
		got_victim = WAIT_UNTIL(ld64(&l2->victim) == NM_ALOCK_LOCAL_VICTIM, 10000);
		nap_ms(500);
		early = atomic_load(&entered);
	}
	nm_boot_barrier();
	report(1, got_victim && ld64(&l2->r_tail) == rd_t1 && ld64(&l2->l_tail) == (uint64_t)(uintptr_t)ld,
	       "(6) t2 set l2.victim = LOCAL (%" PRIu64 "); r_tail = RD(t1) and l_tail = LD(t2) both set",
	       ld64(&l2->victim));
	report(1, !early, "(6) t2 is blocked in Peterson: not entered 500 ms later (victim LOCAL, r_tail locked)");

	/* (7) t1 unlocks: rCAS r_tail RD(t1) -> NULL. */
	if (rank == 0)
		AL->release(&th, key_l2);
	nm_boot_barrier();
	report(1, ld64(&l2->r_tail) == 0, "(7) t1's unlock rCAS cleared l2.r_tail (%#" PRIx64 ")", ld64(&l2->r_tail));

	/* (8) t2 leaves Peterson and enters; t1's critical-section write is visible. */
	int in = 0;
	uint64_t seen = 0;
	if (rank == 1) {
		in = WAIT_UNTIL(atomic_load(&entered), 10000);
		pthread_join(pt, NULL);
		seen = *(volatile uint64_t *)ctr;
		*(volatile uint64_t *)ctr = seen + 1;
	}
	nm_boot_barrier();
	report(1, in && nm_alock_budget(ld) == 5, "(8) t2 left Peterson once r_tail was NULL and entered with budget %" PRId64,
	       nm_alock_budget(ld));
	report(1, seen == 1, "(8) t2's critical section sees t1's RDMA write of the counter (%" PRIu64 ")", seen);
	if (rank == 1)
		AL->release(&th, key_l2);
	nm_boot_barrier();
	report(1, ld64(&l2->r_tail) == 0 && ld64(&l2->l_tail) == 0 && ld64(&l2->victim) == NM_ALOCK_LOCAL_VICTIM,
	       "(8) after t2's unlock l2 is free: r_tail = l_tail = NULL (victim stays LOCAL)");

	/* Mirror: t2 holds l2 (local path, whole Lock); t1's Lock must wait. */
	atomic_store(&entered, 0);
	if (rank == 1)
		AL->acquire(&th, key_l2);
	nm_boot_barrier();
	report(1, ld64(&l2->l_tail) == (uint64_t)(uintptr_t)ld && ld64(&l2->victim) == NM_ALOCK_LOCAL_VICTIM,
	       "mirror: t2 locks l2 with CPU atomics only: l_tail = LD(t2), victim = LOCAL");
	if (rank == 0)
		pthread_create(&pt, NULL, t1_acquire, NULL);
	int waiting = 0;
	if (rank == 1)
		waiting = WAIT_UNTIL(ld64(&l2->victim) == NM_ALOCK_REMOTE_VICTIM && ld64(&l2->r_tail) == rd_t1, 10000);
	nm_boot_barrier();
	report(1, waiting, "mirror: t1 swapped RD(t1) into r_tail and set victim = REMOTE");
	if (rank == 0) {
		nap_ms(500);
		early = atomic_load(&entered);
	}
	nm_boot_barrier();
	report(0, !early, "mirror: t1 is blocked in Peterson: not entered 500 ms later (l_tail set, victim REMOTE)");
	if (rank == 1) {
		*(volatile uint64_t *)ctr += 1; /* t2's critical section: 3 */
		AL->release(&th, key_l2);
	}
	nm_boot_barrier();
	uint64_t v = 0;
	if (rank == 0) {
		in = WAIT_UNTIL(atomic_load(&entered), 10000);
		pthread_join(pt, NULL);
		v = nm_lock_read64(&th, 1, mesh.rmr[1].addr + ctr_off);
	}
	report(0, in && th.stat[NM_ALOCK_PETERSON_REREADS] > 0,
	       "mirror: after t2's unlock (l_tail NULL) t1 entered, having re-read l2 %" PRIu64 " times",
	       th.stat[NM_ALOCK_PETERSON_REREADS]);
	report(0, v == 3, "mirror: t1's critical section sees t2's CPU write of the counter (%" PRIu64 ")", v);
	if (rank == 0)
		AL->release(&th, key_l2);
	nm_boot_barrier();
	report(1, ld64(&l2->r_tail) == 0 && ld64(&l2->l_tail) == 0 && ld64(&l2->victim) == NM_ALOCK_REMOTE_VICTIM,
	       "mirror: after t1's unlock l2 is free: r_tail = l_tail = NULL (victim stays REMOTE)");

	if (rank == 0)
		printf("%d passed, %d failed\n", npass, nfail);
	nm_boot_barrier();
	nm_mesh_destroy(&mesh);
	nm_mr_free(&mr);
	nm_dev_close(&dev);
	nm_boot_finalize();
	return nfail ? 1 : 0;
}
