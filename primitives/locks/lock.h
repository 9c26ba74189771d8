/* One small interface for every distributed lock, so any workload can take
 * any lock: RDMA CAS spinlock, RDMA MCS, LOCO's ticket lock, ALock, and the
 * MPI passive-target RMA lock (the OpenMPI baseline).
 *
 * A lock table holds `nlocks` locks; lock k lives on its home rank in a
 * contiguous key range (rank i owns keys [i*K/N, (i+1)*K/N), the remainder
 * going to the last rank; with K < N, rank k owns key k), at the same offsets in every rank's registered
 * memory (nm_lock_raddr). Each worker thread owns one descriptor of
 * desc_bytes in its own rank's memory (for queue locks) and a scratch area
 * for RDMA results; it holds at most one lock at a time (a worker that
 * holds two locks at once, as a transfer does, uses two lock threads).
 *
 * Atomicity rule (ALock paper, Table 1; true on ConnectX and on rxe): a word
 * is read-modify-written either by RDMA atomics or by CPU atomics, never by
 * both. Locks that take local words "through loopback" use the thread's QP to
 * its own rank. */
#ifndef NM_LOCK_H
#define NM_LOCK_H
#include "clock.h"
#include "mesh.h"
#include "rdma.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define NM_LOCK_STATS 4

/* Which RC QPs a lock table connects.
 * PER_RANK: one QP per (thread, rank), loopback to the own rank included;
 *   every thread reaches a rank's memory through its one QP there.
 * THREAD_PAIR: the ALock paper's layout, one QP per ordered pair of threads
 *   (thread i of rank a to thread j of rank b, i == j and a == b included:
 *   10 nodes x 8 threads give 640 initiating + 640 serving QPs = 1,280 per
 *   NIC). A rank's memory is split among its threads: a descriptor belongs
 *   to its thread, any other 64-byte line to thread (line mod threads), and
 *   a thread reaches a word through its QP to that word's owner. A lock type
 *   marked no_loopback (ALock) connects no QP to its own rank here, the
 *   paper's "removes 1/n of the QPs". */
typedef enum { NM_LOCK_QPS_PER_RANK, NM_LOCK_QPS_THREAD_PAIR } nm_lock_qp_layout;

/* Per rank, shared by its threads, for one lock table. */
struct nm_lock_thread;
typedef struct nm_lock_env {
	nm_mesh *mesh;
	nm_mr *mr;
	int rank, nranks;     /* participant index (-1 on a rank not taking part), and
			       * how many take part */
	const int *world;     /* participant index -> rank in the job (the mesh's
			       * numbering); NULL: the first nranks ranks, in order */
	int nthreads;
	int nlocks;
	uint64_t table_off;   /* lock objects, lock_bytes each, by slot */
	uint64_t desc_off;    /* thread descriptors, desc_bytes each, by thread */
	uint64_t scratch_off; /* per-thread registered scratch, NM_LOCK_SCRATCH each */
	int local_budget, remote_budget; /* ALock cohort budgets (>= 1) */
	int handover_max;     /* ticket lock: local hand-overs before a global release */
	double timeout;
	nm_lock_qp_layout qp_layout;
	const struct nm_lock_type *type;  /* set by nm_lock_env_connect */
	bool emulated;        /* the device is Soft-RoCE (set by nm_lock_env_connect) */
	int qps;              /* QPs on this rank's NIC for the table (set by
			       * nm_lock_env_connect: initiating + serving) */
	void *priv;           /* the lock type's per-rank state */
	void *mpi_comm;       /* MPI baseline: the communicator of the taking-part ranks */
	/* MPI baseline: window w exposes [mpi_win_off + w*mpi_win_stride, +
	 * mpi_win_len) of the registered buffer; mpi_win_len 0: every window
	 * exposes the whole buffer. */
	uint64_t mpi_win_off, mpi_win_stride, mpi_win_len;
	/* Testing only (netmem lock --contend): called by a thread as it starts
	 * to wait inside acquire for a lock someone else holds (the first pause
	 * of a wait, or the ticket lock's first READ that is not its turn), so a
	 * scripted holder can keep the lock until the waiter has arrived. NULL
	 * on every measured run. */
	void (*on_wait)(struct nm_lock_thread *t, int key);
	void *on_wait_arg;
} nm_lock_env;

static inline int nm_lock_world(const nm_lock_env *e, int p)
{
	return e->world ? e->world[p] : p;
}

#define NM_LOCK_SCRATCH 256

/* Per worker thread. */
typedef struct nm_lock_thread {
	nm_lock_env *env;
	int thread;
	nm_poller poller;
	uint64_t *scratch;    /* NM_LOCK_SCRATCH bytes of registered memory */
	void *priv;
	uint64_t stat[NM_LOCK_STATS];  /* counters named by the type's stat_names */
} nm_lock_thread;

typedef struct nm_lock_type {
	const char *name;
	const char *summary;
	int order;            /* place in listings (nm_lock_names): lower first */
	size_t lock_bytes;    /* multiple of 64 */
	size_t desc_bytes;    /* multiple of 64; 0 if unused */
	bool uses_mpi;        /* runs on the main thread only (one thread per rank) */
	bool no_loopback;     /* THREAD_PAIR layout: no QP to the own rank; the
			       * type never takes a word of its own rank by RDMA */
	bool cpu_local;       /* the holder of a lock homed on its own rank may touch
			       * data under the lock with CPU loads/stores (ALock's
			       * local cohort); otherwise data goes through RDMA */
	const char *stat_names[NM_LOCK_STATS];
	/* What the type does differently on an emulated device (Soft-RoCE), and
	 * why; NULL when nothing. Recorded with every such point. */
	const char *emulated_change;
	/* Optional: the type's own facts for a point's "effective", added to eff
	 * on the rank that writes the point (the MPI baseline's transport). */
	void (*effective)(const nm_lock_env *e, json_t *eff);
	/* Per rank (every rank of the job, taking part or not), after memory is
	 * registered and the mesh connected; collective when uses_mpi. 0 or -1
	 * with err filled. */
	int (*env_init)(nm_lock_env *e, char *err, size_t errlen);
	void (*env_fini)(nm_lock_env *e);
	void (*thread_init)(nm_lock_thread *t);
	void (*thread_fini)(nm_lock_thread *t);
	void (*acquire)(nm_lock_thread *t, int key);
	void (*release)(nm_lock_thread *t, int key);
	/* Optional data path under a held lock, for lock types whose data
	 * cannot go through verbs (the MPI baseline); `off` is an offset in the
	 * home's registered buffer. cs_get starts reading the word at off into
	 * *dst, which is valid after cs_wait(key); cs_put writes a word, done
	 * by the lock's release at the latest. */
	void (*cs_get)(nm_lock_thread *t, int key, uint64_t off, uint64_t *dst);
	void (*cs_wait)(nm_lock_thread *t, int key);
	void (*cs_put)(nm_lock_thread *t, int key, uint64_t off, uint64_t val);
} nm_lock_type;

void nm_lock_register(const nm_lock_type *t);
const nm_lock_type *nm_lock_find(const char *name);
/* "spin,mcs,ticket,alock,mpi": names of the registered types, by order. */
const char *nm_lock_names(void);

/* A lock type's statistics by their names: {"cas_retries": N, ...}. */
json_t *nm_lock_stats_json(const nm_lock_type *lt, const uint64_t stat[NM_LOCK_STATS]);

/* The --lock option of a workload: its choices are the registered types. */
#define NM_OPT_LOCK(def, help) \
	{"lock", 'L', NM_OPT_ENUM, def, 0, 0, NULL, NM_OPT_LIST, help, NULL, NULL, nm_lock_names}

#define NM_LOCK_TYPE(var)                                              \
	static void __attribute__((constructor)) nm_lock_reg_##var(void) \
	{                                                              \
		nm_lock_register(&var);                                \
	}

/* Key -> home rank and slot within the home's table. With fewer locks than
 * ranks, lock k lives on rank k and the other ranks home none. */
static inline int nm_lock_home(const nm_lock_env *e, int key)
{
	int per = e->nlocks / e->nranks;
	if (per == 0)
		return key;
	int h = key / per;
	return h < e->nranks ? h : e->nranks - 1;
}
static inline int nm_lock_slot(const nm_lock_env *e, int key)
{
	int per = e->nlocks / e->nranks;
	return per == 0 ? 0 : key - nm_lock_home(e, key) * per;
}
/* Number of slots every rank reserves (the last rank holds the remainder). */
static inline int nm_lock_slots(const nm_lock_env *e)
{
	int per = e->nlocks / e->nranks;
	return per == 0 ? 1 : e->nlocks - (e->nranks - 1) * per;
}
/* Address of byte `off` of lock `key` at its home, for RDMA. */
uint64_t nm_lock_addr(const nm_lock_env *e, const nm_lock_type *lt, int key, size_t off);
/* Local pointer to lock `key` when this rank is its home, else NULL. */
void *nm_lock_local(const nm_lock_env *e, const nm_lock_type *lt, int key);
/* Descriptor of (rank, thread): RDMA address, and local pointer for our own. */
uint64_t nm_lock_desc_addr(const nm_lock_env *e, const nm_lock_type *lt, int rank, int thread);
void *nm_lock_desc_local(const nm_lock_env *e, const nm_lock_type *lt, int thread);

/* Collective over every rank of the job, once e's fields are set: connects
 * the taking-part ranks (e->world, or the first e->nranks) in e->qp_layout,
 * none for a type that goes through MPI, and sets e->qps; then runs the
 * type's env_init. Ends the job with the failing rank's
 * message if either fails. */
/* What nm_lock_env_connect and a registration of `bytes` (nm_mr_alloc)
 * create on `rank` of a job of nranks, for netmem preflight: the same mesh,
 * sized without a device. e is set up as for the connect. */
void nm_lock_env_needs(const nm_lock_env *e, const struct nm_lock_type *lt, const nm_qp_attr *qp, size_t bytes,
		       bool hugepages, int rank, int nranks, nm_needs *n);
void nm_lock_env_connect(nm_lock_env *e, const nm_lock_type *lt, nm_dev *d, nm_mesh *mesh, nm_mr *mr,
			 const nm_qp_attr *qp);

/* Collective: the most QPs the table put on one host's NIC (the ranks of a
 * host share its NIC), what the ALock paper counts against the NIC's QP
 * cache. */
int nm_lock_qps_per_nic(const nm_lock_env *e);

struct nm_round;
/* Collective: one round. A taking-part rank (e->rank >= 0) runs r->workers
 * pinned threads, or, for a type that goes through MPI, one worker on its
 * main thread; the other ranks sit it out (r->workers is not read there).
 * Every rank returns after all are done, waiting asleep. */
void nm_lock_run(const nm_lock_env *e, const nm_lock_type *lt, const struct nm_round *r);

/* Sets up lock thread `thread` of this rank (0 .. e->nthreads-1): its
 * scratch, its CQ's poller, the type's per-thread state. */
void nm_lock_thread_init(nm_lock_thread *t, const nm_lock_type *lt, nm_lock_env *e, int thread);

/* Synchronous one-sided operations for lock code: post one signaled
 * operation on the thread's QP to `rank` (loopback when rank is our own) and
 * wait for it. Results land in the thread's scratch. */
/* The QP through which thread t reaches address raddr of `rank`; NULL when
 * the layout connects none (a no_loopback type and its own rank). */
nm_conn *nm_lock_conn(nm_lock_thread *t, int rank, uint64_t raddr);
uint64_t nm_lock_cas(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t expect, uint64_t swap);
uint64_t nm_lock_faa(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t add);
uint64_t nm_lock_read64(nm_lock_thread *t, int rank, uint64_t raddr);
void nm_lock_write64(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t value);
/* Reads len (<= NM_LOCK_SCRATCH - 64) bytes into the scratch; returns it. */
void *nm_lock_read(nm_lock_thread *t, int rank, uint64_t raddr, uint32_t len);
/* LOCO's fence on the QP that reaches raddr of `rank`: every earlier WRITE
 * on it is placed. */
void nm_lock_fence(nm_lock_thread *t, int rank, uint64_t raddr);

/* Every wait in a lock: pause, and every 256 rounds yield (oversubscribed
 * hosts must let the holder run) and check the deadline env->timeout. Past
 * it the job ends (exit 1, finished points already on disk) with one line
 * naming rank, thread, lock type and key, the lock's home, the peer whose
 * step is awaited (-1: not known, such as a successor not yet linked), the
 * word waited on and its last value, and what was awaited. That line is what
 * tells a lost hand-off from a holder that never released. */
typedef struct nm_lock_wait {
	uint64_t start;
	uint32_t n;
} nm_lock_wait;
void nm_lock_pause(nm_lock_thread *t, nm_lock_wait *w, const char *type, int key, int peer, const char *word,
		   uint64_t value, const char *what);
/* The env's on_wait hook, if set: for waits that do not go through
 * nm_lock_pause (nm_lock_pause calls it on a wait's first pause). */
static inline void nm_lock_waiting(nm_lock_thread *t, int key)
{
	if (t->env->on_wait)
		t->env->on_wait(t, key);
}

/* Mail: a word one thread writes into another's memory by RDMA WRITE and
 * the owner polls with CPU loads (a queue successor's id, a budget passed on).
 * The 32-bit value travels with its complement in the upper half, so that a
 * poll never acts on a WRITE that is only partly placed: Soft-RoCE copies the
 * payload with the kernel's memcpy, which under an emulated CPU may store it
 * byte by byte while the owner reads (seen: a release read its successor's
 * id with only the low byte placed). Whatever order and granularity the
 * bytes land in, every mix of the old word (0 or all ones) and the new one
 * fails the check, and only the finished word passes. A NIC that places 8
 * aligned bytes at once pays one XOR per poll for it. */
static inline uint64_t nm_lock_mail(uint32_t v) { return (uint64_t)v | (uint64_t)(uint32_t)~v << 32; }
static inline bool nm_lock_mail_ok(uint64_t w) { return (uint32_t)(w >> 32) == (uint32_t)~(uint32_t)w; }

/* Queue locks (MCS, ALock's remote cohort) name a waiter by its id, the
 * mail of ((rank + 1) << 16 | thread): never 0, resolved with
 * nm_lock_desc_addr. */
static inline uint64_t nm_lock_qid(int rank, int thread)
{
	return nm_lock_mail(((uint32_t)(rank + 1) << 16) | (uint32_t)thread);
}
static inline int nm_lock_qid_rank(uint64_t id) { return (int)((uint32_t)id >> 16) - 1; }
static inline int nm_lock_qid_thread(uint64_t id) { return (int)(id & 0xffff); }
/* An id read from a tail or a descriptor, checked before it is used as an
 * address: one that names no (rank, thread) of this table ends the job with
 * a dump of the lock's words (read at its home), the thread's own
 * descriptor and the id, instead of an RDMA operation on a peer that does
 * not exist. tail_off: the queue's tail within the lock object. */
void nm_lock_qid_bad(nm_lock_thread *t, const nm_lock_type *lt, int key, uint64_t id, size_t tail_off,
		     const char *where);
static inline uint64_t nm_lock_qid_check(nm_lock_thread *t, const nm_lock_type *lt, int key, uint64_t id,
					 size_t tail_off, const char *where)
{
	int r = nm_lock_qid_rank(id), th = nm_lock_qid_thread(id);
	if (__builtin_expect(r < 0 || r >= t->env->nranks || th >= t->env->nthreads || !nm_lock_mail_ok(id), 0))
		nm_lock_qid_bad(t, lt, key, id, tail_off, where);
	return id;
}

#endif
