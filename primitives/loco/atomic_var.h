/* LOCO's atomic_var (paper section 5.1.1): an 8-byte word hosted on one rank
 * (its "official" copy), which every rank, the host included, changes only
 * with RDMA atomics (fetch-and-add, compare-and-swap) and reads with RDMA
 * READ.
 *
 * Why the host goes through the NIC too: RDMA atomics are atomic with
 * respect to other RDMA atomics on the same NIC, not with respect to CPU
 * atomics (IBV_ATOMIC_HCA on ConnectX; rxe executes them in the kernel with
 * plain loads and stores). A host that used a CPU atomic on its own word
 * could lose a concurrent remote update. So the host uses its loopback QP
 * (the mesh must include the pair (host, host)), and no CPU ever writes the
 * word after nm_av_init.
 *
 * Every operation here is synchronous: it posts one signaled request on the
 * chan's QP to the host and waits for it, so the result is known and the
 * update done at the host when the call returns (no fence is needed after
 * an atomic: its completion carries the old value, which the responder only
 * sends after executing it). */
#ifndef NM_ATOMIC_VAR_H
#define NM_ATOMIC_VAR_H
#include "owned_var.h"
#include <stdint.h>

typedef struct nm_av {
	int host;          /* rank holding the word */
	size_t off;        /* offset of the word in the host's registered memory */
} nm_av;

/* Every rank calls it with the same arguments before the mesh is connected
 * (before any RDMA access can reach the word): the host stores `initial`
 * with a CPU store, the only CPU write the word ever sees; off must be
 * 8-aligned. Same offset in every rank's memory (symmetric layout), though
 * only the host's copy is used. */
void nm_av_init(nm_av *a, const nm_mr *mr, size_t off, int host, int me, uint64_t initial);
/* Adds `add` (wrapping); returns the value before. */
uint64_t nm_av_faa(nm_chan *ch, const nm_av *a, uint64_t add);
/* Replaces the value with `desired` if it equals `expected`; returns the
 * value before (the swap happened iff it equals `expected`). */
uint64_t nm_av_cas(nm_chan *ch, const nm_av *a, uint64_t expected, uint64_t desired);
/* The current value, by RDMA READ (8 aligned bytes: not torn). */
uint64_t nm_av_load(nm_chan *ch, const nm_av *a);
#endif
