/* The faults --inject puts into netmem kv's verbs systems (LOCO's kvstore,
 * the Sherman- and Scythe-style stores), one protocol for all, so that the
 * checks must mark the point invalid:
 *   no-checksum    a writer writes an entry in two halves, KV_INJ_HALF_NS
 *                  apart, and reads the half-written entry back as a reader
 *                  that skips the checksum would: torn on every run, not only
 *                  when another reader happens to read inside the window;
 *   early-release  a writer releases the lock before its write and writes
 *                  once a later holder has written (or after the longest
 *                  wait), putting its older value over a newer one.
 * Every 8th update of rank 0's application threads. The system says where
 * its entry lives (its window ops' inj_entry, its layout) and posts its own
 * release and late write; this module owns the choice, the timing and the
 * half-written entry's steps, in states below 0 so that they never meet a
 * system's. The window engine (kv_window.h) keeps each thread's injector
 * and steps these states itself, so a system's own steps never see them:
 * KV_S_LATE goes to the system's late (its watched word, its late write). */
#ifndef NM_KV_INJECT_H
#define NM_KV_INJECT_H
#include "kv.h"

/* The engine's types (kv_window.h, which includes this header: a thread's
 * state holds its injector). */
typedef struct kv_win kv_win;
typedef struct kv_wop kv_wop;

enum { KV_S_HALF = -1, KV_S_HALF_LOOK = -2, KV_S_LATE = -3 };

/* One application thread's faults. */
typedef struct kv_injector {
	kv_inject kind;           /* KV_INJECT_NONE: this thread injects nothing */
	uint64_t updates;
} kv_injector;

void kv_injector_init(kv_injector *in, kv_inject kind, int rank);
/* The fault this update carries: the thread's kind on every 8th update, else none. */
kv_inject kv_inject_now(kv_injector *in);

/* Where the system keeps the entry an update writes: [key | value | the
 * system's words (counter, checksum)]. */
typedef struct kv_inj_entry {
	int node;                 /* the entry's node */
	uint64_t raddr;           /* its address there */
	uint64_t *local;          /* the entry itself when the system copies it by CPU, else NULL */
	uint32_t words;           /* the entry's words */
	uint64_t *look;           /* scratch of `words` words, past the operation's image in buf */
	int then;                 /* the system's state once the rest is written and fenced */
} kv_inj_entry;

/* no-checksum, at the entry the system's inj_entry gives. o->buf holds the
 * entry's whole image: its first half (key and half the value) now, then
 * the look back (state KV_S_HALF). */
void kv_inj_half_start(kv_win *w, kv_wop *o);
/* A completion of KV_S_HALF (the half landed: look) or KV_S_HALF_LOOK (check it). */
void kv_inj_half_advance(kv_win *w, kv_wop *o);
/* KV_S_HALF with nothing in flight: once the half has stood KV_INJ_HALF_NS,
 * the rest, and state e->then. A remote rest is written and fenced (the
 * fence completes into e->then); true when it was copied already (a local
 * entry): nothing is in flight, and the engine advances o at once. */
bool kv_inj_half_step(kv_win *w, kv_wop *o);

/* early-release. Before the system posts its release: state KV_S_LATE,
 * *watch (a word the system reads to see later holders) cleared. */
void kv_inj_late_start(kv_wop *o, uint64_t *watch);
/* A completed watch READ of the entry's value word (seen, posted at t0):
 * into the history as a get when it shows a later writer (late), and the
 * first one after the update returned whatever it shows. That look makes
 * the fault visible to the history check for sure: it sees either the
 * value from before the update, although the update has returned, or a
 * later writer's value, which the late write then puts the older one over. */
void kv_inj_late_look(kv_win *w, kv_wop *o, uint64_t seen, uint64_t t0, bool late);
/* KV_S_LATE with nothing in flight (the release has completed: the
 * operation's return in the history, o->returned): true once the late write is due (late:
 * the system's reading of *watch, or the longest wait has passed); else
 * the 8-byte watched word at (node, raddr) is read into *watch again. */
bool kv_inj_late_due(kv_win *w, kv_wop *o, bool late, int node, uint64_t *watch, uint64_t raddr);
#endif
