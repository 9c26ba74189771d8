/* LOCO's tracker (LOCO paper, sections 5.4 and 6): a ringbuffer that one node
 * broadcasts small messages on to every other node, with the receivers'
 * acknowledgements coming back, so the sender knows when all of them have
 * applied a message (the kvstore waits for that before an insert
 * linearizes). One tracker per node as writer; every node reads the others'.
 *
 * Memory (the same offsets on every node, inside its registered buffer):
 *   ring[src][entries]  64-byte entries that node src WRITEs into this node
 *   ack[reader]         8-byte words that node `reader` WRITEs into this node:
 *                       the last sequence number it has applied (cumulative)
 *   stage[entries]      this node's own copy of each message while it is sent
 * An entry is {seq, payload[4], checksum}: the receiver takes entry
 * (next mod entries) once its seq is `next` and the checksum (XXH64 of seq
 * and payload) holds, so an entry still being placed, or left from the
 * previous lap, is never applied. Acks travel as mail (lock.h's
 * nm_lock_mail: the 32-bit sequence with its complement), for the same
 * reason: a torn ack is never believed.
 *
 * Senders: any thread of the node. A message gets its sequence number from
 * a counter of the node (nm_tracker_reserve); it may be posted once the
 * slowest receiver has acknowledged the message `entries` earlier
 * (nm_tracker_can_post), as one signaled RDMA WRITE per receiver on the
 * sender's QPs. Receivers apply messages of one sender strictly in
 * sequence order, so messages posted out of order by two threads are
 * applied in order. The receiving side is one thread per node
 * (nm_tracker_poll), the kvstore's tracker thread. */
#ifndef NM_TRACKER_H
#define NM_TRACKER_H
#include "alloc.h"
#include "mesh.h"
#include "rdma.h"
#include "verbs.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define NM_TRACKER_WORDS 4   /* payload words per message */

typedef struct nm_tracker {
	nm_mesh *mesh;
	const nm_mr *mr;
	int rank, nranks;
	uint32_t entries;
	size_t ring_off, ack_off, stage_off, scratch_off;
	_Atomic uint64_t next_seq;   /* sender: the next sequence number (from 1) */
	/* receiver (the tracker thread only) */
	uint64_t *next;              /* [src]: the next sequence to apply */
	uint64_t *acked;             /* [src]: the last sequence acknowledged */
	bool *ack_busy;              /* [src]: an ack WRITE is in flight */
	int own_pending;             /* the receiving thread's own message WRITEs in
				      * flight (it posted them with an id >= nranks;
				      * nm_tracker_poll retires them) */
} nm_tracker;

/* Registered bytes the tracker needs (a multiple of 64): a ring of 64-byte
 * entries per sender, one acknowledgement word per node, the sender's
 * staged entries and a scratch word per node. Inline, so sizing that links no verbs (netmem kv's
 * kv_size.c under its unit test) computes it too. */
static inline size_t nm_tracker_bytes(int nranks, uint32_t entries)
{
	size_t n = (size_t)nranks;
	return n * entries * 64 + nm_align64(n * 8) + (size_t)entries * 64 + nm_align64(n * 8);
}
/* At offset off of mr (zeroed memory), before the mesh connects. */
void nm_tracker_init(nm_tracker *t, nm_mesh *m, const nm_mr *mr, size_t off, int rank, int nranks,
		     uint32_t entries);
void nm_tracker_free(nm_tracker *t);
/* Sender side. */
static inline uint64_t nm_tracker_reserve(nm_tracker *t) { return atomic_fetch_add(&t->next_seq, 1); }
/* Every receiver has applied every message up to seq. */
bool nm_tracker_acked(const nm_tracker *t, uint64_t seq);
static inline bool nm_tracker_can_post(const nm_tracker *t, uint64_t seq)
{
	return seq <= t->entries || nm_tracker_acked(t, seq - t->entries);
}
/* Posts message seq to every other node from mesh thread `thread`, each
 * WRITE signaled with wr_id; returns how many completions to expect. The
 * receiving thread itself may send too (a last message): with
 * NM_WRID(NM_OP_WRITE, NM_TRACKER_OWN), adding the return value to
 * own_pending. */
#define NM_TRACKER_OWN (1u << 20)
int nm_tracker_post(nm_tracker *t, int thread, uint64_t seq, const uint64_t payload[NM_TRACKER_WORDS],
		    uint64_t wr_id);
/* Receiver side, the tracker thread (mesh thread `thread`, its poller p):
 * applies every complete message waiting (apply(arg, src, payload)), writes
 * the acks, and retires their completions. Returns messages applied. */
typedef void (*nm_tracker_apply)(void *arg, int src, const uint64_t payload[NM_TRACKER_WORDS]);
int nm_tracker_poll(nm_tracker *t, int thread, nm_poller *p, nm_tracker_apply apply, void *arg);
/* The tracker thread, at the end: waits for its ack WRITEs in flight. */
void nm_tracker_drain(nm_tracker *t, nm_poller *p);
#endif
