/* Inter-thread messages of CoRM's server: the block collection (CoRM paper,
 * Sec. 3.4: "the leader broadcasts a collection request to all other
 * threads") and pointer correction by thread messaging (Sec. 3.2: a moved
 * object's offset is asked of the thread that owns its block).
 *
 * A mailbox per thread. The sender's message lives on its own stack, so a
 * post never allocates; the receiving thread runs the message's function
 * from its serving loop and then marks it done, its last touch of the
 * message. A mailbox is open only while its thread serves it: a post to a
 * closed one fails and the sender does the work itself, so a thread that
 * never serves (a worker without a connection, a unit test's caller) never
 * leaves a sender waiting. Closing a mailbox runs what was posted before it
 * closed, so no post is lost between the two.
 *
 * A sender waits for its answer only while the receiver shows signs of life:
 * it serves its mailbox (every batch it takes counts), or, busy elsewhere
 * (the compactor merging blocks), says so with cmem_mbox_beat. A wait that
 * sees neither for its deadline gives up, and the caller ends the job. */
#ifndef NM_CORM_MBOX_H
#define NM_CORM_MBOX_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct cmem_msg {
	struct cmem_msg *next;
	void (*fn)(struct cmem_msg *m);   /* run by the receiving thread */
	atomic_bool done;
} cmem_msg;

typedef struct cmem_mbox {
	pthread_mutex_t mu;
	cmem_msg *head;
	atomic_uint posted;   /* not yet taken: the serving loop's only load when idle */
	atomic_uint beats;    /* batches served and beats: the receiver's signs of life */
	bool open;
} cmem_mbox;

void cmem_mbox_init(cmem_mbox *b);
void cmem_mbox_destroy(cmem_mbox *b);
void cmem_mbox_open(cmem_mbox *b);
/* Closes b and runs whatever was posted to it. */
void cmem_mbox_close(cmem_mbox *b);
/* false when b is closed: nobody will run m, the caller does its work. */
bool cmem_mbox_post(cmem_mbox *b, cmem_msg *m);
void cmem_mbox_serve_(cmem_mbox *b);
/* The serving loop's check: one relaxed load when nothing is posted, so a
 * worker polling its CQs pays next to nothing for being reachable. */
static inline void cmem_mbox_serve(cmem_mbox *b)
{
	if (atomic_load_explicit(&b->posted, memory_order_relaxed))
		cmem_mbox_serve_(b);
}
/* The receiver is alive but not serving (a long step of its own). */
static inline void cmem_mbox_beat(cmem_mbox *b) { atomic_fetch_add_explicit(&b->beats, 1, memory_order_relaxed); }
/* Waits until m, posted to `to`, is done, serving `own` meanwhile (NULL: a
 * thread nobody messages): two threads asking each other never wait for
 * ever. Yields between checks, since the receiver may need this CPU.
 * Returns true once m is done; false when `to` has shown no sign of life
 * for deadline seconds (*waited: how long this wait lasted), and m is then
 * still posted: the caller must end the job, not return while m lives on
 * its stack. */
bool cmem_msg_wait(cmem_msg *m, cmem_mbox *to, cmem_mbox *own, double deadline, double *waited);
#endif
