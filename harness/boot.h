/* MPI bootstrap: the only use of MPI outside baselines. It exchanges endpoint
 * descriptions and coordinates between measurement points; nothing inside a
 * measured loop calls it. Only the main thread calls these functions.
 *
 * No collective here waits forever for a rank that has stopped (SIGSTOP, a
 * hung node): each one waits asleep for the others while they show signs of
 * life (every rank tells the others when it enters a collective, and repeats
 * that while it waits in one or for its worker threads). When a rank has
 * neither arrived nor said anything for the deadline, the lowest-numbered rank
 * that arrived prints one line naming the missing ranks, their hosts and what
 * they were last doing, and the job ends (exit 1). A rank that computes
 * without calling into this module for longer than the deadline while others
 * wait for it (filling a large buffer) counts as stopped: the deadline must
 * exceed such steps. */
#ifndef NM_BOOT_H
#define NM_BOOT_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void nm_boot_init(int *argc, char ***argv);
/* Collective. Also called by nm_boot_check on its way out. */
void nm_boot_finalize(void);
/* How long a collective waits for a rank that has not arrived and shows no
 * sign of life (seconds; 60 until set; the harness sets each point's
 * --timeout). */
void nm_boot_set_deadline(double seconds);
/* That deadline: also how long a wait outside the collectives (a worker
 * thread, a child process, another thread's answer) may see no progress
 * before it ends the job (nm_stalled, log.h). */
double nm_boot_deadline(void);
/* What this rank is doing now, for the line that names a stopped rank (and
 * for nm_stalled's): "setup", "point 3/10 {"size":8}", "finishing". Cut to
 * 239 bytes. */
void nm_boot_set_where(const char *label);
/* Lets the other ranks know this rank is alive, at most every deadline/4
 * (cheap otherwise: a clock read). For loops of the main thread that wait
 * or work without calling a collective; a no-op on other threads. */
void nm_boot_alive(void);
int nm_boot_rank(void);
int nm_boot_size(void);
/* Host identity (nm_host_id) of every rank, by rank. */
const uint64_t *nm_boot_hosts(void);
/* Whether this rank is the lowest of those on its host (one per host does
 * a host's work: reading its NIC's counters, saying what it lacks). */
bool nm_boot_first_on_host(void);
/* Barrier: a short spin (ranks leave at nearly the same time), then naps. */
void nm_boot_barrier(void);
/* Barrier that sleeps between checks instead of spinning in MPI. */
void nm_boot_barrier_idle(void);
/* Every rank contributes len bytes; out receives nranks*len bytes, by rank. */
void nm_boot_allgather(const void *mine, void *out, size_t len);
/* Rank r sends send[p*len..] to rank p; recv[p*len..] holds what p sent. */
void nm_boot_alltoall(const void *send, void *recv, size_t len);
void nm_boot_bcast(void *buf, size_t len, int root);
/* Broadcasts a string from root; returns a malloc'd copy on every rank. */
char *nm_boot_bcast_str(const char *s, int root);
/* Gathers one string per rank at root (array of nranks malloc'd strings
 * there, NULL elsewhere). */
char **nm_boot_gather_str(const char *s, int root);
/* Gathers one JSON value per rank at root: a new array by rank there, NULL
 * elsewhere. */
json_t *nm_boot_gather_json(const json_t *mine, int root);
uint64_t nm_boot_sum_u64(uint64_t v);
uint64_t nm_boot_max_u64(uint64_t v);
void nm_boot_sum_u64_array(uint64_t *v, size_t n);  /* in place, all ranks */
/* Collective: rank 0's *h becomes the exact merge of every rank's histogram
 * (the others keep theirs). The buckets are summed by a reduction, the
 * rest gathered: rank 0 needs two histograms' memory, not one per rank. */
struct nm_hist;
void nm_boot_hist_merge(struct nm_hist *h);
/* Collective error check: if any rank passes a non-NULL message, rank 0
 * prints the lowest failing rank's message (prefixed with its rank when it is
 * not rank 0) and every rank exits with `code`. */
void nm_boot_check(const char *msg, int code);
/* Non-zero once a worker thread reported a fatal error (its exit code). */
int nm_boot_fatal_pending(void);
/* Ends the job from the main thread after a fatal error on any thread. */
_Noreturn void nm_boot_abort(int code);
/* fn runs once on the main thread before the job ends early (nm_boot_check
 * with a failure, nm_boot_abort): rank 0 folds its result journal into the
 * document there. NULL removes it. */
void nm_boot_set_exit_hook(void (*fn)(void));
/* fn runs whenever the job ends early (nm_boot_check with a failure,
 * nm_boot_abort, on whichever thread ends it), before the exit hook, on
 * every rank; unlike the exit hook it stays registered and several may be
 * (up to 8, each once: registering fn again does nothing). For what must not
 * outlive the process, such as the servers harness/service.c starts; fn must
 * be safe to call more than once and from a signal handler's context. */
void nm_boot_on_exit(void (*fn)(void));
#endif
