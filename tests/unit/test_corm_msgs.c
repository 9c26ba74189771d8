/* CoRM's inter-thread messages (primitives/corm/corm_mbox.h) and the heap's
 * two uses of them: the block collection, in which every serving worker
 * hands over its own blocks (Fig. 15, left), and the lookup of a moved
 * object by the thread that owns its block (thread messaging) against a
 * scan of the block by whichever thread serves the read (Fig. 16). */
#include "corm_heap.h"
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct counted {
	cmem_msg m;
	int runs;
} counted;

static void count_fn(cmem_msg *m) { ((counted *)m)->runs++; }

static void test_mbox(void)
{
	cmem_mbox b;
	cmem_mbox_init(&b);
	counted a = {.m.fn = count_fn}, c = {.m.fn = count_fn};
	CHECK(!cmem_mbox_post(&b, &a.m) && a.runs == 0, "a closed mailbox refuses a post and runs nothing");
	cmem_mbox_open(&b);
	CHECK(cmem_mbox_post(&b, &a.m) && !atomic_load(&a.m.done) && a.runs == 0, "an open one takes it, not yet run");
	cmem_mbox_serve(&b);
	CHECK(atomic_load(&a.m.done) && a.runs == 1, "serving runs it once and marks it done");
	cmem_mbox_serve(&b);
	CHECK(a.runs == 1, "serving again runs nothing more");
	CHECK(cmem_mbox_post(&b, &c.m), "a second post");
	cmem_mbox_close(&b);
	CHECK(atomic_load(&c.m.done) && c.runs == 1, "closing runs what was posted before it closed");
	CHECK(!cmem_mbox_post(&b, &a.m) && a.runs == 1, "and a post after the close is refused");
	cmem_mbox_destroy(&b);
}

/* A server worker: heap thread t serving its mailbox until stopped. */
typedef struct worker {
	cmem_heap *h;
	int t;
	atomic_bool *stop;
	atomic_int *entered;
	pthread_t th;
} worker;

static void *worker_main(void *arg)
{
	worker *w = arg;
	cmem_thread_enter(w->h, w->t);
	atomic_fetch_add(w->entered, 1);
	while (!atomic_load(w->stop)) {
		cmem_serve(w->h, w->t);
		sched_yield();
	}
	cmem_thread_leave(w->h, w->t);
	return NULL;
}

typedef struct server {
	worker w[8];
	int n;
	atomic_bool stop;
	atomic_int entered;
} server;

/* Starts workers for the heap threads in `which` (a bit per thread). */
static void server_start(server *s, cmem_heap *h, unsigned which)
{
	atomic_init(&s->stop, false);
	atomic_init(&s->entered, 0);
	s->n = 0;
	for (int t = 0; t < h->cfg.threads; t++)
		if (which >> t & 1) {
			s->w[s->n] = (worker){.h = h, .t = t, .stop = &s->stop, .entered = &s->entered};
			if (pthread_create(&s->w[s->n].th, NULL, worker_main, &s->w[s->n]))
				abort();
			s->n++;
		}
	while (atomic_load(&s->entered) < s->n)
		sched_yield();
}

static void server_stop(server *s)
{
	atomic_store(&s->stop, true);
	for (int i = 0; i < s->n; i++)
		pthread_join(s->w[i].th, NULL);
}

static int heap(cmem_heap *h, int threads, cmem_find find)
{
	char err[256];
	cmem_heap_cfg c = {.block_size = 4096, .va_blocks = 1024, .threads = threads, .seed = 11, .mode = CORM_REMAP,
			   .find = find};
	return cmem_init(h, &c, err, sizeof err);
}

/* Fig. 15's set-up: one object per thread, each in a block of its own,
 * then one compaction; `serving` says which threads answer messages. */
static void collection(unsigned serving, int want_msgs, const char *what)
{
	enum { T = 4 };
	cmem_heap h;
	if (heap(&h, T, CMEM_FIND_SCAN)) {
		CHECK(0, "heap");
		return;
	}
	server s;
	server_start(&s, &h, serving);
	corm_ptr p[T];
	uint8_t pay[24], out[24];
	for (int t = 0; t < T; t++) {
		corm_payload_fill(pay, sizeof pay, (uint32_t)t, 0);
		cmem_alloc(&h, t, sizeof pay, pay, sizeof pay, &p[t]);
	}
	cmem_compact_stats st;
	char err[256] = "";
	int rc = cmem_compact(&h, cmem_class(&h, sizeof pay), 0.9, 0, &st, err, sizeof err);
	CHECK(rc == 0 && st.collected == T && st.collect_msgs == (uint64_t)want_msgs,
	      "%s: %llu blocks collected (want %d), %llu through messages (want %d)", what,
	      (unsigned long long)st.collected, T, (unsigned long long)st.collect_msgs, want_msgs);
	CHECK(st.merges + st.no_partner >= T - 1 && st.blocks_after == T - st.merges && st.merges >= 1,
	      "%s: %llu of %d blocks merged away (%llu without a partner: ID collisions)", what,
	      (unsigned long long)st.merges, T - 1, (unsigned long long)st.no_partner);
	int ok = 0;
	for (int t = 0; t < T; t++)
		ok += cmem_read(&h, &p[t], out, sizeof out, NULL) == CORM_OK &&
		      corm_payload_check(out, sizeof out, (uint32_t)t) == CORM_PAY_OK;
	CHECK(ok == T, "%s: every object read back after the compaction (%d of %d)", what, ok, T);
	for (int t = 0; t < T; t++)
		cmem_free(&h, &p[t]);
	server_stop(&s);
	CHECK(h.active_blocks == 0, "%s: the heap empty after the frees", what);
	cmem_destroy(&h);
}

/* Fig. 16's lookups: a fragmented class on thread 1 compacted (its blocks
 * are then worker 0's, as the authors' leader adopts them), then every
 * survivor read through its old pointer by this thread, which owns no
 * block: the moved ones are found by a scan, or asked of worker 0. */
static void lookups(cmem_find find)
{
	enum { N = 3000 };
	cmem_heap h;
	if (heap(&h, 2, find)) {
		CHECK(0, "heap");
		return;
	}
	server s;
	server_start(&s, &h, 0x3);
	corm_ptr *p = calloc(N, sizeof *p);
	bool *live = calloc(N, sizeof *live);
	uint8_t pay[24], out[24];
	for (int i = 0; i < N; i++) {
		corm_payload_fill(pay, sizeof pay, (uint32_t)i, 0);
		live[i] = cmem_alloc(&h, 1, sizeof pay, pay, sizeof pay, &p[i]) == CORM_OK;
	}
	srand(3);
	for (int i = 0; i < N; i++)
		if (live[i] && rand() % 4) {
			cmem_free(&h, &p[i]);
			live[i] = false;
		}
	cmem_compact_stats st;
	char err[256] = "";
	CHECK(cmem_compact(&h, -1, 0.9, 0, &st, err, sizeof err) == 0 && st.moved_offset > 0,
	      "%s: the compaction moved %llu objects to another offset", cmem_find_names[find],
	      (unsigned long long)st.moved_offset);
	int ok = 0, want = 0;
	for (int i = 0; i < N; i++) {
		if (!live[i])
			continue;
		want++;
		ok += cmem_read(&h, &p[i], out, sizeof out, NULL) == CORM_OK &&
		      corm_payload_check(out, sizeof out, (uint32_t)i) == CORM_PAY_OK;
	}
	uint64_t by_msg = h.finds_msg, by_scan = h.finds_scan;
	CHECK(ok == want, "%s: every survivor read through its old pointer (%d of %d)", cmem_find_names[find], ok, want);
	if (find == CMEM_FIND_MSG)
		CHECK(by_msg > 0 && by_scan == 0, "msg: moved objects asked of the owner (%llu messages, %llu scans)",
		      (unsigned long long)by_msg, (unsigned long long)by_scan);
	else
		CHECK(by_scan > 0 && by_msg == 0, "scan: moved objects found by scanning (%llu scans, %llu messages)",
		      (unsigned long long)by_scan, (unsigned long long)by_msg);
	server_stop(&s);
	/* the owner gone, a lookup is nobody's to answer: done directly */
	for (int i = 0; i < N; i++)
		if (live[i])
			cmem_free(&h, &p[i]);
	CHECK(h.finds_msg == by_msg && h.active_blocks == 0,
	      "%s: with the owner stopped, no message is sent and the heap empties", cmem_find_names[find]);
	free(p);
	free(live);
	cmem_destroy(&h);
}

int main(void)
{
	test_mbox();
	collection(0xe, 3, "workers 1-3 serving");
	collection(0x6, 2, "worker 3 not serving");
	collection(0x0, 0, "nobody serving");
	lookups(CMEM_FIND_MSG);
	lookups(CMEM_FIND_SCAN);
	return tap_done();
}
