/* LOCO's owned_var (paper section 5.1.1): a single-writer, multi-reader
 * register. Every rank's registered memory holds a copy of the variable at
 * the same offset (symmetric layout); the copy on the owner is the
 * authoritative one. Readers get a new value either by a pull (RDMA READ of
 * the owner's copy into their own copy) or by a push from the owner (RDMA
 * WRITE of the owner's copy into a reader's copy), as the channel built on
 * top chooses.
 *
 * Atomicity, as in LOCO:
 *   len <= 8   the value sits alone in an 8-byte aligned word; aligned 8-byte
 *              accesses by the CPU and by the NIC are not torn, so no extra
 *              mechanism is needed.
 *   len > 8    the value is followed by a checksum: 64-bit FNV-1a over the
 *              value bytes (padded with zeros to a multiple of 8). A reader
 *              that sees value and checksum disagree (a torn copy: an RDMA
 *              READ that overlapped the owner's stores, or a CPU load that
 *              overlapped an incoming WRITE) retries. FNV-1a: no tables, a
 *              few cycles per byte, and any change of the value bytes changes
 *              the hash except with probability about 2^-64; this is tear
 *              detection, not protection against an adversary.
 *
 * This file also holds nm_chan, the small bundle every primitive here uses
 * to reach peers from one thread (QPs of one mesh thread, its completion
 * poller, a registered scratch word, and the bookkeeping LOCO's fence
 * needs). */
#ifndef NM_OWNED_VAR_H
#define NM_OWNED_VAR_H
#include "mesh.h"
#include "rdma.h"
#include "verbs.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- nm_chan: one thread's way to its peers ---------------------------- */

/* Everything a primitive needs from the harness, for one calling thread.
 *
 * Completion discipline: every signaled work request is waited for by the
 * call that posted it, so the thread's CQ is empty between calls; WRITEs
 * that nobody waits for (pushes) are posted unsignaled and retired by the
 * next signaled request on the same QP (a fence, a READ, an atomic): on an
 * RC QP a completion implies that every earlier request completed. Two
 * chans may share a mesh thread (and so a CQ) when they use different QP
 * indexes, as long as one thread uses them one call at a time. The
 * exception is a chan with NM_FENCE_ACK: its pushes are signaled and their
 * completions stay in the CQ until its next fence, so it needs a mesh
 * thread (a CQ) of its own.
 *
 * Fences (LOCO section 5.3 names three scopes: pair-only, thread-only and
 * global). nm_chan_fence implements two of LOCO's mechanisms:
 *   NM_FENCE_READ  a zero-length RDMA READ on every QP with a WRITE since
 *                  the last fence, all in flight together, then wait for
 *                  them. A READ completes only after every earlier WRITE on
 *                  its QP is placed at the target (RC ordering), so
 *                  afterwards every earlier WRITE of the chan is visible in
 *                  the target's memory, to its CPU and to any QP. Over all
 *                  of a thread's QPs this is LOCO's thread-only fence; with
 *                  one calling thread per rank, its global fence. It costs a
 *                  round trip per dirty QP.
 *   NM_FENCE_ACK   wait for the completions (the responder's
 *                  acknowledgements) of the earlier WRITEs themselves: LOCO's
 *                  pair-only fence, "waiting on an ack_key", applied to every
 *                  dirty pair. An acknowledged WRITE has reached the target
 *                  NIC and will be placed before any later request on the
 *                  same QP takes effect there, but it may not be placed yet
 *                  (LOCO sec. 2.2: placement may follow completion): its
 *                  data is not guaranteed visible to the target's CPU, nor
 *                  ordered with requests on other QPs. It costs no extra
 *                  request; when the acknowledgements are already in, it is
 *                  a poll of the CQ. */
typedef enum { NM_FENCE_READ, NM_FENCE_ACK } nm_fence_kind;

typedef struct nm_chan {
	nm_mesh *mesh;
	const nm_mr *mr;          /* this rank's registered memory */
	nm_poller *poller;        /* the mesh thread's CQ; its timeout bounds spins too */
	int thread, q;            /* mesh thread and QP index used */
	uint64_t *scratch;        /* 8 bytes of registered memory, 8-aligned (atomic results) */
	uint32_t sq_depth;        /* send queue entries of the mesh's QPs */
	uint8_t *dirty;           /* [peer]: a WRITE was posted since the last fence */
	uint32_t *unsignaled;     /* [peer]: unsignaled requests not yet retired */
	nm_fence_kind fence;      /* what nm_chan_fence does (NM_FENCE_READ after init) */
	uint32_t *acks;           /* [peer], NM_FENCE_ACK: WRITE completions still due */
	uint32_t acks_due;        /* their sum */
	uint64_t torn_retries;    /* checksum mismatches seen (owned_var > 8 bytes) */
	uint64_t fences;          /* QPs fenced by nm_chan_fence (READs posted, or acks awaited) */
} nm_chan;

/* scratch must lie inside mr. sq_depth: what nm_mesh_cfg.qp.sq_depth was.
 * The fence is NM_FENCE_READ; set ch->fence before the first WRITE to
 * change it. */
void nm_chan_init(nm_chan *ch, nm_mesh *m, const nm_mr *mr, nm_poller *p, int thread, int q,
		  uint64_t *scratch, uint32_t sq_depth);
void nm_chan_free(nm_chan *ch);
/* The QP towards `peer` (peer may be this rank: loopback); fatal when the
 * mesh has none (its initiates matrix does not include the pair). */
nm_conn *nm_chan_conn(nm_chan *ch, int peer);
/* RDMA address of byte `off` of `peer`'s registered memory. */
static inline uint64_t nm_chan_raddr(const nm_chan *ch, int peer, size_t off)
{
	return ch->mesh->rmr[peer].addr + off;
}
static inline uint32_t nm_chan_lkey(const nm_chan *ch) { return ch->mr->mr->lkey; }
/* Polls until n completions of this chan's requests have arrived (WRITE
 * completions an ack fence awaits are counted off on the way, not in n). */
void nm_chan_wait(nm_chan *ch, int n);
/* Posts an RDMA WRITE that nobody waits for now, marks the QP dirty for the
 * next fence, and keeps the send queue from overflowing (NM_FENCE_READ:
 * every sq_depth/2 such WRITEs one is signaled and waited for;
 * NM_FENCE_ACK: every WRITE is signaled, and sq_depth/2 of them due on one
 * QP fence the chan first). */
void nm_chan_write_async(nm_chan *ch, int peer, const void *laddr, size_t raddr_off, uint32_t len);
/* Posts a signaled RDMA READ of len bytes of `peer`'s memory at roff into
 * laddr (registered); the caller waits with nm_chan_wait. */
void nm_chan_read_post(nm_chan *ch, int peer, void *laddr, size_t roff, uint32_t len);
/* LOCO's fence over this chan, of the chan's kind (see nm_fence_kind
 * above): READ places every earlier WRITE of the chan at its target; ACK
 * waits until each is acknowledged. With a single calling thread per rank
 * and one chan, READ is LOCO's global fence; a rank with several calling
 * threads would have to fence every thread's chan. */
void nm_chan_fence(nm_chan *ch);

/* ---- owned_var ---------------------------------------------------------- */

typedef struct nm_ov {
	size_t off;        /* offset of the slot in every rank's registered memory */
	uint32_t len;      /* value bytes */
	int owner;         /* rank that writes it */
	int me;            /* this rank */
} nm_ov;

/* Bytes of a slot for a value of len bytes (8-aligned): 8 when len <= 8,
 * else len rounded up to 8 plus the 8-byte checksum. */
size_t nm_ov_slot_bytes(uint32_t len);
/* 64-bit FNV-1a of len bytes, zero-padded to a multiple of 8. */
uint64_t nm_ov_checksum(const void *p, size_t len);

/* Every rank calls this for every owned_var with the same arguments, before
 * any peer can access its memory (before the mesh is connected): it writes
 * `initial` (len bytes, NULL = zeros) with a valid checksum into this
 * rank's copy, so a copy that has never been pushed to reads as `initial`.
 * off must be 8-aligned and mr must hold the slot. */
void nm_ov_init(nm_ov *v, const nm_mr *mr, size_t off, uint32_t len, int owner, int me,
		const void *initial);
/* Owner only: stores a new value into its own (authoritative) copy. */
void nm_ov_store(const nm_ov *v, const nm_mr *mr, const void *val);
/* Reads this rank's copy (the owner's own value, or the last value pushed or
 * pulled). Returns false when the copy is torn (len > 8 only): it is being
 * overwritten right now; the caller retries or pulls again. */
bool nm_ov_load(const nm_ov *v, const nm_mr *mr, void *out);
/* nm_ov_load, retried while the copy is torn. A copy stays torn only while
 * a WRITE of it is being placed; one that stays torn with its checksum word
 * unchanged for `deadline` seconds was left half-written (its writer stopped
 * in the middle of a push). true with the value in *out; false then, with
 * *waited the seconds spent. *retries counts the torn loads either way. */
bool nm_ov_load_wait(const nm_ov *v, const nm_mr *mr, void *out, double deadline, uint64_t *retries,
		     double *waited);
/* Fast path for len <= 8 values that are uint64_t. */
static inline uint64_t nm_ov_load_u64(const nm_ov *v, const nm_mr *mr)
{
	return __atomic_load_n((const uint64_t *)((const uint8_t *)mr->buf + v->off), __ATOMIC_ACQUIRE);
}
/* Owner only: pushes its copy into `peer`'s copy with an RDMA WRITE. Values
 * <= 8 bytes, and larger ones that fit the QP's inline size (copied at post
 * time), are posted without waiting: a later fence (nm_chan_fence) makes
 * them visible for sure. Larger values wait for the WRITE's completion,
 * because the NIC reads the owner's copy after the post returns and a
 * later store must not tear it. */
void nm_ov_push(nm_chan *ch, const nm_ov *v, int peer);
/* Non-owner: RDMA READ of the owner's copy into this rank's copy, retried
 * until the checksum matches (len > 8); then the value is in *out. */
void nm_ov_pull(nm_chan *ch, const nm_ov *v, void *out);
/* The same for several variables at once: all READs in flight together,
 * then torn ones are pulled again. outs[i] receives vs[i]'s value. */
void nm_ov_pull_many(nm_chan *ch, const nm_ov *const *vs, void *const *outs, int n);
#endif
