/* CoRM's inter-thread mailboxes (corm_mbox.h). */
#include "corm_mbox.h"
#include <sched.h>
#include <time.h>

void cmem_mbox_init(cmem_mbox *b)
{
	pthread_mutex_init(&b->mu, NULL);
	b->head = NULL;
	atomic_init(&b->posted, 0);
	atomic_init(&b->beats, 0);
	b->open = false;
}

void cmem_mbox_destroy(cmem_mbox *b) { pthread_mutex_destroy(&b->mu); }

void cmem_mbox_open(cmem_mbox *b)
{
	pthread_mutex_lock(&b->mu);
	b->open = true;
	pthread_mutex_unlock(&b->mu);
}

bool cmem_mbox_post(cmem_mbox *b, cmem_msg *m)
{
	atomic_store_explicit(&m->done, false, memory_order_relaxed);
	pthread_mutex_lock(&b->mu);
	bool open = b->open;
	if (open) {
		m->next = b->head;
		b->head = m;
		atomic_fetch_add_explicit(&b->posted, 1, memory_order_release);
	}
	pthread_mutex_unlock(&b->mu);
	return open;
}

/* Runs the messages taken; the order of a batch does not matter (every
 * message is a request of its own). */
static void run_all(cmem_msg *m)
{
	while (m) {
		cmem_msg *next = m->next;   /* the sender may reuse m once done */
		m->fn(m);
		atomic_store_explicit(&m->done, true, memory_order_release);
		m = next;
	}
}

void cmem_mbox_serve_(cmem_mbox *b)
{
	pthread_mutex_lock(&b->mu);
	cmem_msg *m = b->head;
	b->head = NULL;
	atomic_store_explicit(&b->posted, 0, memory_order_relaxed);
	pthread_mutex_unlock(&b->mu);
	cmem_mbox_beat(b);
	run_all(m);
}

void cmem_mbox_close(cmem_mbox *b)
{
	pthread_mutex_lock(&b->mu);
	b->open = false;
	cmem_msg *m = b->head;
	b->head = NULL;
	atomic_store_explicit(&b->posted, 0, memory_order_relaxed);
	pthread_mutex_unlock(&b->mu);
	run_all(m);
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bool cmem_msg_wait(cmem_msg *m, cmem_mbox *to, cmem_mbox *own, double deadline, double *waited)
{
	/* The clock is read every 256 yields only: answers usually come within
	 * a few, and a deadline is seconds. */
	double t0 = mono_s(), last = t0;
	unsigned seen = atomic_load_explicit(&to->beats, memory_order_relaxed);
	for (uint32_t n = 0; !atomic_load_explicit(&m->done, memory_order_acquire); n++) {
		if (own)
			cmem_mbox_serve(own);
		sched_yield();
		if ((n & 255) != 255)
			continue;
		double now = mono_s();
		unsigned b = atomic_load_explicit(&to->beats, memory_order_relaxed);
		if (b != seen) {
			last = now;
			seen = b;
		} else if (now - last > deadline) {
			*waited = now - t0;
			return false;
		}
	}
	return true;
}
