/* Linearizability of one key's history as a register (netmem kv-check):
 * Wing and Gong's search for an order of the operations that respects
 * real time (an operation that returned before another was invoked comes
 * first) and the register's sequential behaviour, with the memoization of
 * Lowe's variant: a (set of operations linearized, register state) pair
 * seen once is not searched again.
 *
 * The register holds a value word or nothing (the key is absent). */
#ifndef NM_KV_LIN_H
#define NM_KV_LIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	KV_LIN_READ,    /* returned `value`: the register holds it */
	KV_LIN_MISS,    /* found nothing (a get, update or delete of an absent key): the register is empty */
	KV_LIN_PUT,     /* wrote `value` whatever the register held (an insert, a Redis SET) */
	KV_LIN_UPDATE,  /* found the key and wrote `value`: the register held something */
	KV_LIN_REMOVE,  /* found the key and removed it: the register held something, and is empty */
} kv_lin_kind;

typedef struct kv_lin_op {
	uint64_t invoke, response;   /* any clock common to the history's operations */
	uint64_t value;
	kv_lin_kind kind;
	size_t id;                   /* the caller's name for it (a line of the history) */
} kv_lin_op;

typedef struct kv_lin_state {
	bool present;
	uint64_t value;
} kv_lin_state;

typedef enum { KV_LIN_OK, KV_LIN_VIOLATION, KV_LIN_UNDECIDED } kv_lin_verdict;

/* What a violation looks like at the deepest point the search reached: so
 * many operations linearized, the register then, and the operation that
 * had to come next (it returned first among those left) but cannot. */
typedef struct kv_lin_report {
	size_t linearized, total;
	kv_lin_state state;
	size_t stuck;                /* index into ops */
	uint64_t states_seen;        /* distinct pairs in the memo */
	uint64_t steps;              /* operations tried on a register state */
} kv_lin_report;

/* Decides ops[0 .. n) (reordered: sorted by invocation) from init.
 * max_states bounds the memo table (KV_LIN_UNDECIDED past it; 0: no bound).
 * tick, when not NULL, is called every few thousand search steps: a job
 * that checks a point's history in place tells the other ranks it is
 * alive (a search of a hot key can take seconds under emulation). */
kv_lin_verdict kv_lin_check(kv_lin_op *ops, size_t n, kv_lin_state init, uint64_t max_states,
			    kv_lin_report *rep, void (*tick)(void));
#endif
