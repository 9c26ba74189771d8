/* The window engine of netmem kv's verbs systems (LOCO, the Sherman- and
 * Scythe-style stores; netmem clover's store too): a thread keeps up to
 * --window operations in flight, each a small state machine of the
 * system's, started and finished on its own (the paper's window, "not a
 * batch size"). The engine owns the loop, the completions
 * (a work request's id names its operation), the posting helpers that count
 * what each operation still waits for, and the measured interval; a system
 * provides three steps:
 *   start    begin a new operation (kv_next gives its kind and key)
 *   advance  every completion the operation waited for is in: next step
 *   step     the operation waits on memory or time, not on a completion
 *            (a tracker acknowledgement): look again
 * and, for a system that injects faults (kv_inject.h), where an operation's
 * entry lives (inj_entry) and its late write (late): the engine keeps each
 * thread's injector and steps the injected states (below 0) itself, the
 * half-written entry's the same for every system.
 * An operation ends with kv_win_finish, which times, counts and checks it.
 * A system of one window per mesh thread hands the engine its site and runs
 * its point with kv_win_run (threads, scan, teardown).
 *
 * Two files: kv_win_post.c (the window's slots, the posting helpers, an
 * operation's end), which kv_inject.c posts through, and kv_window.c (the
 * loop, which steps the injected states, and a point's memory, mesh and
 * round), so the calls run kv_window.c -> kv_inject.c -> kv_win_post.c. */
#ifndef NM_KV_WINDOW_H
#define NM_KV_WINDOW_H
#include "kv.h"
#include "kv_inject.h"
#include "kv_size.h"
#include "mesh.h"
#include "rdma.h"

/* The part of every system's operation the engine knows; systems put it
 * first in their own operation struct. */
typedef struct kv_wop {
	int state;                /* 0: idle; the system's states are > 0, kv_inject's < 0 */
	kv_opkind kind;
	bool found;
	int pending;              /* signaled completions still due */
	uint64_t key, t0, since;  /* since: when the current wait began (ticks) */
	uint64_t *buf;            /* registered scratch of the operation */
	uint64_t *word;           /* registered 16 bytes: atomic results, lock words */
	uint64_t wrote;           /* a write's first value word, for the history */
	uint64_t returned;        /* when the operation returned to its caller, if before its
				   * end (an injected early release: the write lands later); 0: at the end */
	bool looked;              /* an injected late write: its first look after returning is
				   * in the history (kv_inj_late_look) */
} kv_wop;

typedef struct kv_win_ops {
	void (*start)(kv_win *w, kv_wop *o);
	void (*advance)(kv_win *w, kv_wop *o);
	void (*step)(kv_win *w, kv_wop *o);      /* NULL: every state waits on a completion */
	/* Injected faults (kv_inject.h), NULL for a system that injects none:
	 * the entry o's update writes (kv_inj_half_start), and KV_S_LATE with
	 * nothing in flight (kv_inj_late_due, then the system's late write).
	 * advance and step see only the system's own states. */
	kv_inj_entry (*inj_entry)(const kv_win *w, kv_wop *o);
	void (*late)(kv_win *w, kv_wop *o);
	/* NULL for a system whose operations wait on completions only. Once per
	 * pass of the loop, after its starts and steps: a system whose
	 * operations wait on memory a peer writes (the Scythe-style store's
	 * RPC replies) looks there and advances them, and posts what its
	 * operations queued in the pass (batched requests). */
	void (*poll)(kv_win *w);
	/* A completion of a request the system posted for no one operation
	 * (kv_win_sys_wrid: a bucket of batched requests), k as it was named. */
	void (*sys_done)(kv_win *w, uint32_t k);
} kv_win_ops;

struct kv_win {
	const kv_win_ops *ops;
	void *sys;                /* the system's per-rank state */
	kv_thread *kt;
	nm_mesh *mesh;
	uint32_t lkey;
	int thread;               /* mesh thread */
	nm_poller pl;
	int window, outstanding;
	size_t op_size;
	uint8_t *opv;             /* window operations of op_size bytes */
	double timeout;
	kv_injector inj;          /* this thread's faults (none unless set: kv_win_init zeroes it) */
};

/* Operation i of the window. */
static inline kv_wop *kv_win_op(kv_win *w, int i) { return (kv_wop *)(w->opv + (size_t)i * w->op_size); }

/* ---- the window and its operations' posting (kv_win_post.c) -------------- */

/* scratch: window x scratch_per_op bytes of registered memory; each
 * operation's buf starts its share and word is its last 64 bytes. */
void kv_win_init(kv_win *w, const kv_win_ops *ops, void *sys, kv_thread *kt, nm_mesh *mesh, uint32_t lkey,
		 int thread, int window, size_t op_size, uint8_t *scratch, size_t scratch_per_op, double timeout);
void kv_win_free(kv_win *w);

/* Posting for operation o; signaled requests count in o->pending. */
nm_conn *kv_win_conn(kv_win *w, int node);
void kv_win_read(kv_win *w, kv_wop *o, int node, void *dst, uint64_t raddr, uint32_t len);
void kv_win_write(kv_win *w, kv_wop *o, int node, const void *src, uint64_t raddr, uint32_t len, bool signaled);
void kv_win_fence(kv_win *w, kv_wop *o, int node);
void kv_win_atomic(kv_win *w, kv_wop *o, int node, int op, uint64_t raddr, uint64_t compare_add, uint64_t swap);
/* An atomic on a word of another registration at the node (rkey: Sherman's
 * lock table in device memory); the result lands in o->word[0]. */
void kv_win_atomic_at(kv_win *w, kv_wop *o, int node, int op, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
		      uint64_t swap);
/* A lock's release, behind len bytes of src written to raddr when src is not
 * NULL, in one post (a chain of two requests, one doorbell: Sherman's
 * write_batch of the page and the unlock): a WRITE of 0 to the lock word at
 * lock_raddr under lock_rkey, or, when owner is not 0, a CAS of owner back
 * to 0 (result in o->word[0]). Only the release is signaled; the RC QP
 * places the write before it. */
void kv_win_write_release(kv_win *w, kv_wop *o, int node, const void *src, uint64_t raddr, uint32_t len,
			  uint64_t lock_raddr, uint32_t lock_rkey, uint64_t owner);
/* For requests a system posts itself (a tracker broadcast): the id that
 * names o, and n more completions o waits for. */
uint64_t kv_win_wrid(kv_win *w, kv_wop *o, int op);
/* o's place in the window, 0 to window - 1 (an RPC's reply slot). */
uint32_t kv_win_index(const kv_win *w, const kv_wop *o);
void kv_win_due(kv_win *w, kv_wop *o, int n);
/* For a signaled request the system posts for no one operation: the id
 * that hands its completion to the system's sys_done with k, counted
 * among the window's outstanding completions. */
uint64_t kv_win_sys_wrid(kv_win *w, int op, uint32_t k);
/* The operation is done (val: the value words read, for a get; a write's
 * value is o->wrote). */
void kv_win_finish(kv_win *w, kv_wop *o, const uint64_t *val);
/* Seconds since o->since exceed the job's --timeout. */
bool kv_win_overdue(const kv_win *w, const kv_wop *o);

/* ---- a verbs system's point and the loop (kv_window.c) -------------------- */

/* A verbs system's point, as its plan (kv_size.h) says: pl->bytes of
 * registered memory, zeroed (a failure ends the job, one line); then, once
 * the system has prefilled it, the all-to-all mesh of pl->threads threads
 * (one QP each per peer), pl->sq_depth deep; after the run and a barrier,
 * both gone (kv_win_run). */
void kv_win_mem(nm_ctx *ctx, nm_mr *mr, const kv_win_plan *pl);
void kv_win_mesh(nm_ctx *ctx, nm_mesh *mesh, nm_mr *mr, const kv_win_plan *pl);
/* What the point created on this rank, into its `effective` settings:
 * qps_per_node (the mesh's QPs, both ends) and registered_bytes (the
 * device's length of the registration), which netmem preflight predicts. */
void kv_win_created(json_t *effective, const nm_mesh *mesh, const nm_mr *mr);
/* netmem preflight: what kv_win_mem and kv_win_mesh create for pl on rank
 * `rank` of nranks, added to n (the same registration and mesh
 * configuration), and the RDMA atomics every verbs system's locks post. */
void kv_win_needs(const kv_win_plan *pl, const nm_base *b, int rank, int nranks, nm_needs *n);

/* The part of a verbs system's per-rank state its client threads are made
 * from (kv_win_run): one per mesh thread, each a zeroed state of thr_size
 * bytes that begins with its kv_win (sys: the window's sys, which the
 * system's steps read their job from), over its share of scratch, with
 * the point's --inject. */
typedef struct kv_win_site {
	kv_run *r;
	const kv_win_ops *ops;
	void *sys;
	nm_mesh *mesh;
	nm_mr *mr;
	const kv_win_plan *plan;   /* where each thread's scratch is */
	size_t op_size, thr_size;
} kv_win_site;
/* The measured round of the site's threads; then scan(sys) checks this
 * node's memory, emulated_change (what the system did differently on this
 * device, NULL: nothing) goes into `effective`, and after
 * a barrier (no peer reads this node's memory any more) mesh and memory
 * are gone. Returns effective, the point's effective settings. */
json_t *kv_win_run(kv_win_site *s, void (*scan)(void *sys, nm_measure *ms), json_t *effective,
		   const char *emulated_change);

/* Polls the thread's CQ once: each completion goes to its operation (advanced
 * once all it waited for are in) or to the system's sys_done. */
void kv_win_reap(kv_win *w);

/* The measured run of one application thread (nm_window_run): warm-up
 * operations, drained before the common start, then the measured ones. */
void kv_win_body(kv_win *w);

#endif
