/* netmem corm: CoRM's server and clients over raw verbs (workloads/corm/corm.c
 * drives them). Rank 0 is the server: CoRM's memory (primitives/corm/corm_heap.h)
 * and -T worker threads answering RPCs over SEND/RECV; the other ranks are
 * clients, -T threads each with two RC QPs to the server: one for the RPCs,
 * one for the one-sided READs, so a READ the device refuses (which breaks
 * its QP at both ends) is recovered without losing an RPC in flight. MPI
 * only carries the QP endpoints. */
#ifndef NM_CORM_H
#define NM_CORM_H
#include "corm_heap.h"
#include "mesh.h"
#include "verbs.h"
#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

/* How one-sided access survives a remap (CoRM paper, Sec. 3.5 and Fig. 8:
 * ibv_rereg_mr, ODP, ODP + prefetch; DEFER is ours, for a device with
 * neither, such as Soft-RoCE without ODP). */
typedef enum {
	CORM_STRAT_AUTO,
	CORM_STRAT_REREG,          /* ibv_rereg_mr(CHANGE_TRANSLATION), keys kept */
	CORM_STRAT_ODP,            /* ODP MR: the NIC follows the mapping */
	CORM_STRAT_ODP_PREFETCH,   /* ODP + ibv_advise_mr prefetch after a remap */
	CORM_STRAT_DEFER,          /* neither: deferred reclamation (not the paper's) */
	CORM_NSTRATS
} corm_remap;
extern const char *const corm_remap_names[CORM_NSTRATS];

#define CORM_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

/* What the device can do, probed once (workloads/corm/corm_probe.c). */
typedef struct corm_caps {
	bool odp_rc_read;        /* explicit ODP MRs readable over RC */
	int rereg_errno;         /* 0: rereg with a new translation worked */
	bool rereg_new_key;      /* ... and handed back another rkey (the heap publishes it) */
	int advise_errno;        /* 0: ibv_advise_mr prefetch worked */
	/* Real READs through an ODP MR (loopback QP), when odp_rc_read: */
	bool odp_read_checked;   /* both probe READs completed */
	bool odp_read_offset_ok; /* a READ inside a page got that offset's bytes */
	bool odp_follows_remap;  /* a READ after mmap(MAP_FIXED) got the new page */
	char auto_reason[256];   /* --strategy auto: why it picked what it picked */
} corm_caps;

/* Probes (registers a scratch memfd page, remaps it, tries rereg, advise
 * and ODP READs) and resolves `want` (AUTO: ODP + prefetch, else ODP, else
 * rereg, else deferred). 0, or -1 with err when `want` is not supported. */
int corm_probe(nm_dev *d, const nm_qp_attr *qa, corm_caps *caps, corm_remap want, corm_remap *got, char *err,
	       size_t errlen);
bool corm_strategy_supported(const corm_caps *caps, corm_remap s);

/* A loopback RC QP on one device (the probe, the remap bench): READs from
 * the server to its own memory, through the same responder path a client's
 * READ takes. */
typedef struct corm_loop {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t len;
} corm_loop;
int corm_loop_open(corm_loop *l, nm_dev *d, const nm_qp_attr *qa, uint32_t len, char *err, size_t errlen);
/* One signaled READ of len bytes into l->buf; 0, or -1 (failed completion,
 * none within timeout seconds). */
int corm_loop_read(corm_loop *l, uint64_t addr, uint32_t rkey, uint32_t len, double timeout);
void corm_loop_close(corm_loop *l);
/* The heap's NIC hooks for a strategy. */
typedef struct corm_nicctx {
	nm_dev *dev;
	corm_remap strat;
	bool new_key;   /* --inject new-rkey: every remap registers the VA afresh */
} corm_nicctx;
cmem_nic corm_nic_hooks(corm_nicctx *n);

/* ---- RPC over SEND/RECV ---- */
/* RECONNECT: the server takes its end of the caller's READ QP back to RTS
 * (after a refused READ broke it). */
typedef enum { CORM_RPC_ALLOC, CORM_RPC_READ, CORM_RPC_WRITE, CORM_RPC_FREE, CORM_RPC_RELEASE, CORM_RPC_NOP,
	       CORM_RPC_RECONNECT, CORM_NRPC } corm_rpc_op;
extern const char *const corm_rpc_names[CORM_NRPC];

typedef struct corm_msg {
	uint8_t op, status, version, pad;
	uint32_t len;        /* payload bytes that follow */
	uint32_t user;       /* alloc: object size */
	uint32_t pad2;
	corm_ptr ptr;        /* in and out: corrected on the way back */
	uint8_t data[];
} corm_msg;

typedef struct corm_server corm_server;
typedef struct corm_client corm_client;

/* Collective: every rank calls it; rank 0 gets *srv, the others *cli
 * (nthreads clients, two QPs each: the harness's mesh, a star of every
 * client rank's threads to the server). The server runs `workers` RPC
 * workers (0: nthreads; ignored on the clients). msg_max: payload bytes of
 * a message. */
/* What corm_net_setup creates on `rank` of R (the star's QPs and CQs, the
 * server's message buffers or each client thread's), for netmem preflight. */
void corm_net_needs(const nm_qp_attr *qa, int T, int R, int rank, uint32_t msg_max, uint32_t block_size,
		    nm_needs *n);
void corm_net_setup(nm_dev *d, const nm_qp_attr *qa, int nthreads, int workers, uint32_t msg_max, uint32_t block_size,
		    cmem_heap *heap, const corm_classes *cls, corm_server **srv, corm_client **cli);
/* The payload bytes of a message: the capacity of the class `size` falls in. */
uint32_t corm_msg_max(const corm_classes *cls, uint32_t size);
/* Whether the server's pinned registrations fit under RLIMIT_MEMLOCK: the
 * heap's blocks once each heap thread holds per_thread objects of `size`
 * bytes (none under ODP, which pins nothing) and the message buffers of
 * nconn client threads, sized by the code that registers them. 0, or -1
 * with the line naming `ulimit -l` in err. */
int corm_server_memlock(const cmem_heap *h, corm_remap strat, int nconn, uint64_t per_thread, uint32_t size, char *err,
			size_t errlen);
/* Server: starts/stops the worker threads. */
void corm_server_start(corm_server *s);
void corm_server_stop(corm_server *s);
/* Runs fn(arg) on worker 0's thread, from its serving loop, and returns
 * when it is done: the paper's compaction leader is a worker, whose own
 * connections wait while it compacts. false, having run nothing, when
 * worker 0 serves no connection (more workers than client threads never
 * happens for worker 0, but a server without workers would). */
bool corm_server_on_worker0(corm_server *s, void (*fn)(void *), void *arg);
/* How RPC waits and idle server workers wait in this point (a JSON object
 * for the point's effective parameters). */
json_t *corm_server_waits(const corm_server *s);
void corm_server_free(corm_server *s);

/* The mesh's QPs per client thread and server worker. */
enum { CORM_QP_RPC, CORM_QP_READ, CORM_NQP };

/* One client thread's connection. */
typedef struct corm_conn {
	struct ibv_qp *qp;   /* RPCs (SEND/RECV) */
	struct ibv_qp *rqp;  /* one-sided READs; completions on cq too */
	nm_mesh *mesh;       /* the rank's, for nm_mesh_reconnect */
	int thread;
	/* A READ refused with a remote access error is a device limit, not a
	 * failure of the job, while the server remaps blocks under its MRs
	 * (rereg, ODP: corm_devlimit) or a fault is injected; otherwise the
	 * job ends naming the READ. */
	bool refusal_ok;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;        /* [send msg | recv msg | read area (a block)] */
	corm_msg *req, *rep;
	uint8_t *rd;
	uint32_t msg_bytes, block_size;
	double timeout;
	/* the host is oversubscribed (nm_host_oversubscribed): an RPC's wait
	 * yields while idle, so the server worker it waits for gets the CPU */
	bool yield;
	const corm_classes *cls;
} corm_conn;
struct corm_client {
	int n;
	corm_conn *c;
	nm_mesh *mesh;
};
void corm_client_free(corm_client *c);

/* Client operations (one at a time per connection). Status: CORM_OK or a
 * cmem status; DirectRead returns a slot state. */
corm_status corm_rpc(corm_conn *c, corm_rpc_op op, corm_ptr *p, uint32_t user, const void *in, size_t n,
		     void *out, size_t outn);
/* What a one-sided read at the pointer checks: CoRM's DirectRead (ID and
 * line versions), FaRM's read as the authors emulate it (versions, no ID),
 * or nothing (a raw READ: the ideal Mesh-style system of Fig. 11). */
typedef enum { CORM_CHECK_ID, CORM_CHECK_FARM, CORM_CHECK_NONE, CORM_NCHECKS } corm_check;
corm_slot_state corm_direct_read(corm_conn *c, corm_ptr *p, corm_check chk, void *out, size_t n);
/* Reads the pointer's whole block and finds the object by ID; on success
 * the pointer's offset hint is corrected (it becomes direct). */
corm_slot_state corm_scan_read(corm_conn *c, corm_ptr *p, void *out, size_t n);
/* A plain RDMA READ of len bytes into c->rd (a raw-read baseline): 0, or
 * CORM_READ_REFUSED when the device refused it and refusal_ok (the READ
 * QP is back in RTS at both ends when this returns). */
#define CORM_READ_REFUSED 1
int corm_raw_read(corm_conn *c, uint64_t addr, uint32_t rkey, uint32_t len);
#endif
