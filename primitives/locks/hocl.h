/* The local half of Sherman's hierarchical on-chip lock (HOCL; Sherman's
 * Tree.cpp, acquire_local_lock, can_hand_over, releases_local_lock): the
 * threads of one node queue for a remote lock on a local ticket lock first,
 * so at most one of them contends for it over the network, and a holder
 * that sees a local waiter hands the remote lock straight to it, without
 * releasing it remotely, up to a bound of holders in a row (Sherman's
 * kMaxHandOverTime, 8), so the other nodes are not starved.
 *
 * A table of n slots, one per remote lock this node may take (Sherman: one
 * per lock word of every memory node): a ticket lock of two words, the
 * next ticket and the one served now (Sherman packs both in one 64-bit word,
 * whose low half carries into the high one after 2^32 tickets; two words
 * wrap apart). Only the holder changes the served word, so it reads a
 * consistent pair. hand_over and hand_time are read and written by the
 * slot's holder only; the served word's release and acquire order them
 * between holders. Host memory and CPU atomics only: the remote lock itself is the
 * caller's. Pure: no verbs, unit-tested in tests/unit/test_hocl.c. */
#ifndef NM_HOCL_H
#define NM_HOCL_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nm_hocl_slot {
	_Atomic uint32_t next;    /* the next ticket to hand out */
	_Atomic uint32_t served;  /* the ticket that holds the slot */
	bool hand_over;           /* the remote lock passes to the next local holder */
	uint32_t hand_time;       /* local holders in a row on one remote acquisition */
} nm_hocl_slot;

typedef struct nm_hocl {
	nm_hocl_slot *slot;
	size_t n;
	uint32_t max_holders;     /* holders one remote acquisition serves, at most (>= 1) */
} nm_hocl;

/* n zeroed slots; max_holders 1 means no hand-over. 0, or -1 (no memory). */
int nm_hocl_init(nm_hocl *h, size_t n, uint32_t max_holders);
void nm_hocl_free(nm_hocl *h);

/* Queues for slot i: the caller's ticket. */
uint32_t nm_hocl_enter(nm_hocl *h, size_t i);
/* Whether ticket t holds slot i now (the wait polls this). */
bool nm_hocl_served(const nm_hocl *h, size_t i, uint32_t t);
/* The new holder's first step: counts it among the holders in a row and
 * says whether the remote lock came with the slot (handed over), so the
 * holder must not take it again. */
bool nm_hocl_begin(nm_hocl *h, size_t i);
/* At the holder's release: whether it hands the remote lock to the next
 * local holder (someone waits and the bound is not reached) and so must not
 * release it remotely. When not, the count of holders in a row restarts. */
bool nm_hocl_hand_over(nm_hocl *h, size_t i);
/* Serves the next ticket. */
void nm_hocl_leave(nm_hocl *h, size_t i);
/* Nobody holds or waits for slot i (after a run: every slot must be). */
bool nm_hocl_idle(const nm_hocl *h, size_t i);
#endif
