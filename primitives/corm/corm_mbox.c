/* CoRM's inter-thread mailboxes (corm_mbox.h). */
#include "corm_mbox.h"
#include <sched.h>

void cmem_mbox_init(cmem_mbox *b)
{
	pthread_mutex_init(&b->mu, NULL);
	b->head = NULL;
	atomic_init(&b->posted, 0);
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

void cmem_msg_wait(cmem_msg *m, cmem_mbox *own)
{
	while (!atomic_load_explicit(&m->done, memory_order_acquire)) {
		if (own)
			cmem_mbox_serve(own);
		sched_yield();
	}
}
