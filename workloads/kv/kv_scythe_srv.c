/* The server thread of the Scythe-style store (kv_scythe.h): one per node,
 * it polls the rings its clients write their request buckets into (one ring
 * per client rank and thread), serves each request on this node's objects
 * as Scythe's read_service, write_service and queuing_service do, and
 * answers a bucket with one bucket WRITE into the client's ring. */
#include "kv_scythe.h"
#include "wring.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct sc_server {
	sc_job *j;
	nm_poller pl;
	uint64_t *next;                  /* [N*T] the request bucket each ring waits for */
	uint64_t *written;               /* [N*T] reply bucket WRITEs completed */
	uint64_t inflight;               /* WRITEs posted, not completed: the CQ is polled only then */
	uint64_t *reply;                 /* one reply's words, before it goes into its bucket */
	int byes;
} sc_server;

static void srv_reap(sc_server *s)
{
	struct ibv_wc wc[16];
	int n = s->inflight ? nm_poll_some(&s->pl, wc, 16) : 0;
	for (int i = 0; i < n; i++)
		s->written[NM_WRID_PAYLOAD(wc[i].wr_id)]++;
	s->inflight -= (uint64_t)n;
}

/* Bucket seq of ring c (client rank c / T, thread c % T) has arrived: the
 * replies, in one bucket of the same seq into the client's ring. */
static void serve_bucket(sc_server *s, size_t c, const uint64_t *req, uint64_t seq)
{
	sc_job *j = s->j;
	uint32_t R = j->lay.ring;
	int peer = (int)(c / (size_t)j->T), thread = (int)(c % (size_t)j->T);
	/* the send slot is free once its last WRITE has completed */
	while (s->written[c] + R < seq)
		srv_reap(s);
	uint64_t *b = sc_local(j, sc_ring_off(j, j->lay.srv_out_off, c, nm_wring_index(seq, R)));
	nm_wring_begin(b, seq);
	uint32_t words;
	for (const uint64_t *m = nm_wring_next(req, NULL, &words); m; m = nm_wring_next(req, m, &words)) {
		uint32_t kind = (uint32_t)(m[0] & 0xff);
		if (kind == RQ_BYE) {
			s->byes++;
			memcpy(nm_wring_add(b, 4), (uint64_t[4]){(m[0] & ~(uint64_t)0xff) | RP_OK, 0, 0, 0}, 32);
			continue;
		}
		if (kind < RQ_READ || kind > RQ_UPDATE || m[2] >= j->lay.objs_here)
			nm_fatal("kv scythe: rank %d's server thread got a request it cannot serve (kind %u, object %" PRIu64
				 " of %" PRIu64 ") from rank %d thread %d", j->rank, kind, m[2], j->lay.objs_here, peer, thread);
		uint32_t n = kv_scythe_serve_obj(sc_obj(j, m[2]), j->lay.rec_words, m, s->reply);
		memcpy(nm_wring_add(b, n), s->reply, 8 * (size_t)n);
	}
	uint32_t len = nm_wring_seal(b);
	size_t rep = sc_client_ring(j, thread, j->rank);
	uint64_t raddr = j->mesh.rmr[peer].addr + sc_ring_off(j, j->lay.rep_off, rep, nm_wring_index(seq, R));
	nm_post_rw(nm_mesh_conn(&j->mesh, j->T, peer, 0), NM_OP_WRITE, b, j->mr.mr->lkey, raddr, 8 * len,
		   NM_WRID(NM_OP_WRITE, c), true);
	s->inflight++;
}

void kv_scythe_serve(sc_job *j, nm_worker *w)
{
	size_t C = (size_t)j->N * (size_t)j->T;
	sc_server s = {.j = j, .next = nm_calloc(C, 8), .written = nm_calloc(C, 8),
		       .reply = nm_calloc(j->lay.msg_words, 8)};
	nm_poller_init(&s.pl, &j->mesh, j->T, j->timeout);
	nm_meter_skip(w->meter);
	for (size_t c = 0; c < C; c++)
		s.next[c] = 1;
	uint32_t idle = 0;
	uint64_t t_last = nm_ticks(), limit = nm_ns_to_ticks((uint64_t)(4 * j->timeout * 1e9));
	while (s.byes < (int)C) {
		int n = 0;
		for (size_t c = 0; c < C; c++) {
			const uint64_t *req = sc_local(j, sc_ring_off(j, j->lay.req_off, c, nm_wring_index(s.next[c], j->lay.ring)));
			if (nm_wring_arrived(req, s.next[c], sc_bucket_words(j))) {
				serve_bucket(&s, c, req, s.next[c]);
				s.next[c]++;
				n++;
			}
		}
		srv_reap(&s);
		if (n) {
			t_last = nm_ticks();
			idle = 0;
		} else if (++idle % NM_WAIT_YIELD_POLLS == 0) {
			/* every operation waits for this thread: it never sleeps,
			 * but lets the client threads run where CPUs are short */
			sched_yield();
		}
		if (!n && nm_ticks() - t_last > limit)
			nm_fatal("kv scythe: rank %d's server thread heard goodbye from %d of %zu client threads, and no "
				 "request for %.0f s", j->rank, s.byes, C, 4 * j->timeout);
	}
	while (s.inflight > 0)
		srv_reap(&s);
	free(s.next);
	free(s.written);
	free(s.reply);
}

