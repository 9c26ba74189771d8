/* netmem clover's metadata server: it owns the free version slots of every
 * memory node and hands them to client threads in batches, by RPC over
 * SEND/RECV, as Clover's metadata server does
 * (MITSUME_CLT_CONSUMER_PER_ASK_NUMS: 16 entries per request).
 *
 * The server runs in a thread of rank 0 beside the main thread's collective
 * calls; it serves the passive QPs that every client thread connects to it
 * (harness/mesh.h) and stops once every client thread has said it is done.
 * A client thread keeps the rest of a batch for later updates. */
#ifndef NM_CLOVER_MS_H
#define NM_CLOVER_MS_H
#include "mesh.h"
#include <pthread.h>
#include <stdint.h>

#define CL_MS_BATCH 16
/* Registered bytes for one connection's messages, on either side. */
#define CL_MS_MSG_BYTES 256

typedef enum { CL_MSG_ALLOC = 1, CL_MSG_DONE } cl_msg_kind;

typedef struct cl_ms_req {
	uint32_t kind;     /* cl_msg_kind */
	uint32_t node;     /* ALLOC: the memory node's rank */
} cl_ms_req;

typedef struct cl_ms_reply {
	uint32_t count;    /* slots granted; 0: that memory node's pool is used up */
	uint32_t pad;
	uint64_t va[CL_MS_BATCH];
} cl_ms_reply;

/* The server's view of the job. */
typedef struct cl_ms_cfg {
	nm_mesh *mesh;
	int first_client, clients, threads;   /* client ranks first_client.. and their threads */
	int first_mem, mem_nodes;
	const uint64_t *pool_lo, *pool_hi;    /* [mem_nodes]: each pool's VA range */
	uint64_t slot_bytes;
	uint8_t *buf;                         /* clients * threads * CL_MS_MSG_BYTES, registered */
	uint32_t lkey;
} cl_ms_cfg;

typedef struct cl_ms {
	cl_ms_cfg cfg;
	uint64_t *next, *hi;        /* [mem_nodes]: each pool's next free slot and end */
	uint8_t *sends;             /* [conns]: replies in flight */
	uint8_t *held;              /* [conns]: a reply waits for a send queue entry */
	uint64_t rpcs, exhausted;   /* ALLOC requests served; answered with 0 slots */
	int done;
	pthread_t thread;
} cl_ms;

/* Posts a RECV on every client connection, then serves in a new thread. */
void cl_ms_start(cl_ms *ms, const cl_ms_cfg *cfg);
/* Waits for the server thread (every client thread said DONE). */
void cl_ms_join(cl_ms *ms);

/* Client side, on the thread's connection to rank 0 (msg: its
 * CL_MS_MSG_BYTES of registered memory: the request at 0, the reply at 64).
 * Posts the reply's RECV, then the request (signaled): two completions. */
void cl_ms_ask(nm_conn *c, uint8_t *msg, uint32_t lkey, uint32_t node, uint64_t send_id, uint64_t recv_id);
static inline const cl_ms_reply *cl_ms_reply_of(const uint8_t *msg) { return (const cl_ms_reply *)(msg + 64); }
/* Tells the server this thread is done and waits for the send to complete
 * (polling cq, at most timeout seconds). */
void cl_ms_bye(nm_conn *c, struct ibv_cq *cq, uint8_t *msg, uint32_t lkey, double timeout);
#endif
