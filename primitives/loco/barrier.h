/* LOCO's SST barrier (paper section 4.1, Fig. 1a; after Gupta et al. [27]),
 * for one calling thread per rank:
 *
 *     global fence;                 complete all outstanding RDMA (sec. 5.3)
 *     count++;                      private episode counter
 *     sst.store_mine(count);
 *     sst.push_broadcast();         RDMA WRITE of my row to every member
 *     spin until every row's local copy >= count   (my own row included)
 *
 * Episode k ends at a rank once every member's row says it has entered
 * episode k; nobody leaves k before everyone has entered it.
 *
 * Decisions the paper leaves open (and what we chose):
 *  - count is 64-bit (the paper's is `unsigned`); it cannot wrap in any run.
 *  - The SST row is one 8-byte word (so no checksum: aligned 8-byte accesses
 *    are untorn), one row per 64-byte line.
 *  - The fence is nm_chan_fence of the caller's chan, of the chan's kind
 *    (owned_var.h). NM_FENCE_READ, LOCO's: a zero-length RDMA READ on every
 *    QP of the chan with a WRITE posted since its last fence, all in flight
 *    at once, then wait for all. LOCO's global fence covers every thread of
 *    the node; here the barrier's caller is the rank's only thread issuing
 *    RDMA through the chan, so the chan's QPs are the node's. In
 *    back-to-back barriers this is one zero-length READ per peer per
 *    episode (it also retires the previous episode's pushes). Work requests
 *    the caller posts on other chans are not covered: fence those chans
 *    before calling. NM_FENCE_ACK, LOCO's cheaper pair-only fence: the
 *    pushes are signaled and the fence waits for their completions (in
 *    back-to-back barriers usually already in the CQ, so no round trip).
 *  - What the fence is for: release semantics for the caller's earlier
 *    WRITEs. With READ, every WRITE the caller posted through the chan
 *    before the barrier is placed before its row moves, so a peer that
 *    leaves the episode sees that data. With ACK it holds only pairwise: a
 *    WRITE to member p on the barrier's QP to p is placed before the row's
 *    push lands at p, so p sees it when p leaves; a WRITE on another QP, or
 *    its target read by a third rank, may still be unplaced when the peers
 *    leave. The barrier's own guarantee (nobody leaves episode k before
 *    every member entered it) needs neither: a member leaves only after
 *    seeing every row >= k in its own memory, rows only grow, and each
 *    owner's pushes to one peer travel in order on one QP. So ACK suffices
 *    when each member only needs the data written to itself on the
 *    barrier's chan, or when there is none (the benchmark); READ otherwise.
 *  - push_broadcast is asynchronous: nothing waits for the WRITEs inside the
 *    episode (LOCO returns an ack_key that Fig. 1a never queries); the next
 *    episode's fence places (READ) or acknowledges (ACK) them, and the
 *    owner must nm_chan_fence before tearing the QPs down.
 *  - Spinning reads local copies only (no remote READ), in row order, and
 *    restarts from the first row still behind (Fig. 1a restarts from row 0;
 *    same exit condition, fewer loads). No pause instruction and no backoff,
 *    as in Fig. 1a, unless yield_spins is set (see below).
 *  - A wait that sees no row advance for the chan's poller timeout (the job's
 *    --timeout) ends the job naming the rows still behind, as a lost
 *    completion would.
 *  - Members are ranks 0..n-1 (the first n ranks of the job); other ranks
 *    may exist and take no part.
 *  - Not thread safe: one caller per rank (the paper's "single-threaded
 *    barrier"). */
#ifndef NM_BARRIER_H
#define NM_BARRIER_H
#include "sst.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct nm_barrier {
	nm_sst sst;
	uint64_t count;        /* episodes entered by this rank */
	int n, me;
	/* When > 0, the spin calls sched_yield() every this many rounds: for
	 * hosts with more spinning ranks than CPUs (an oversubscribed VM), where
	 * a pure spin can keep the rank it waits for off the CPU for a whole
	 * scheduler slice. 0 (default) spins as Fig. 1a does. */
	uint32_t yield_spins;
	/* Testing only: leave each episode right after the push, without
	 * waiting for anyone (a broken barrier, for showing that an external
	 * check catches it). */
	bool no_wait;
} nm_barrier;

/* Registered bytes the barrier needs at its offset, for n members. */
size_t nm_barrier_bytes(int n);
/* Every member calls it with the same off and n before the mesh is
 * connected (all rows start at 0). off 64-aligned. */
void nm_barrier_init(nm_barrier *b, const nm_mr *mr, size_t off, int n, int me);
void nm_barrier_free(nm_barrier *b);
/* One episode. ch: this rank's chan whose QPs reach every other member. */
void nm_barrier_wait(nm_barrier *b, nm_chan *ch);
#endif
