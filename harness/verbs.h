/* The verbs layer: one device per job, a protection domain, memory regions
 * and RC queue pairs taken through INIT -> RTR -> RTS, in the plain style of
 * rdma-core's rc_pingpong: every call checked, every failure named. */
#ifndef NM_VERBS_H
#define NM_VERBS_H
#include "mtu.h"
#include "needs.h"
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nm_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	char name[64];
	int port;
	int gid_index;        /* -1: LID routing (InfiniBand without -x) */
	union ibv_gid gid;
	/* The interface the GID belongs to, and the prefix length of its IPv4
	 * address there (IPv4-mapped RoCEv2 GIDs; "" and 0 when unknown): what
	 * a peer's GID is checked against when connecting (path.h). */
	char gid_netdev[IF_NAMESIZE + 1];
	int gid_prefix;
	bool ethernet;        /* RoCE: GRH required */
	bool emulated;        /* Soft-RoCE (rxe): timings are not hardware numbers */
} nm_dev;

/* Opens `name` (NULL or "" = the first device with an active port), checks
 * the port and picks the GID: on Ethernet the RoCEv2 IPv4-mapped entry unless
 * gid_index >= 0 forces one; on InfiniBand LID routing unless forced.
 * Returns 0, or writes one line into err (bad input: unknown device with the
 * list of those that exist, no device at all with how to get Soft-RoCE, port
 * down or out of range). */
int nm_dev_open(nm_dev *d, const char *name, int port, int gid_index, char *err, size_t errlen);
void nm_dev_close(nm_dev *d);
/* Whether the device pages on demand for RC READs (ibv_query_device_ex's ODP
 * caps): what CoRM's ODP strategies and their preflight check need. */
bool nm_dev_odp_rc(const nm_dev *d);
/* The IPv4 address of the interface the experiment's traffic uses: on RoCE
 * the chosen GID's own address when it is IPv4-mapped, else an address of
 * the GID's netdev; on InfiniBand an address of the device's IPoIB
 * interface. For a TCP service that must answer on that network only.
 * Returns 0, or -1 when that interface has no IPv4 address (out: ""). */
int nm_dev_ipv4(const nm_dev *d, char *out, size_t len);

/* perftest's inline threshold for WRITE latency tests (DEF_INLINE_WRITE);
 * its bandwidth tests use none. */
#define NM_INLINE_LAT 220

/* QP attributes a user may set (perftest flags where they exist). */
typedef struct nm_qp_attr {
	int mtu;            /* bytes; 0 = the port's active MTU */
	int max_rd_atomic;  /* outstanding READ/atomics per QP; 0 = device max (<= 16) */
	int timeout;        /* local ACK timeout exponent (4.096 us * 2^t) */
	int retry_cnt;
	int rnr_retry;
	int max_inline;     /* requested inline threshold; the QP may give less */
	int sq_depth;       /* send queue entries */
} nm_qp_attr;

/* What a peer needs to connect to one of our QPs, and what it needs to know
 * of our port to choose the path with us: its active MTU (the path MTU is
 * the smaller end's) and the prefix length of our GID's IPv4 address. */
typedef struct nm_ep {
	uint32_t qpn, psn;
	uint16_t lid;
	uint8_t gid[16];
	uint8_t valid;
	uint8_t active_mtu;   /* enum ibv_mtu of our port */
	uint8_t gid_prefix;   /* 1..32, 0: unknown */
	uint8_t pad[3];
} nm_ep;

/* Creates an RC QP on send/recv CQs (no receive queue use: one-sided only)
 * and takes it to INIT. *inline_out receives the inline size obtained. */
struct ibv_qp *nm_qp_create(nm_dev *d, struct ibv_cq *cq, const nm_qp_attr *a,
			    uint32_t *inline_out, char *err, size_t errlen);
void nm_qp_local_ep(nm_dev *d, struct ibv_qp *qp, nm_ep *ep);
/* INIT -> RTR -> RTS towards the remote endpoint, at the smaller of the two
 * ports' active MTUs (or a->mtu when smaller still). */
int nm_qp_connect(nm_dev *d, struct ibv_qp *qp, const nm_qp_attr *a, const nm_ep *local,
		  const nm_ep *remote, char *err, size_t errlen);
/* Whether this rank (me) can reach rank `peer`'s GID, from their endpoint:
 * path.h's nm_gid_reach with this host's route table. 0, or -1 with one
 * line naming both GIDs. */
int nm_qp_reach(const nm_dev *d, int me, const nm_ep *local, int peer, const nm_ep *remote, char *err,
		size_t errlen);
/* The path MTUs (bytes) of the QPs connected since the last reset, the
 * smallest and the largest (0, 0: none), for the point's record. */
void nm_path_mtu_reset(void);
void nm_path_mtu_range(int *lo, int *hi);
/* A QP in the error state (after a failed completion) back to RTS towards
 * the same endpoint: RESET -> INIT -> RTR -> RTS, with the PSNs of the first
 * connection. Both ends must do it before either posts again. */
int nm_qp_reconnect(nm_dev *d, struct ibv_qp *qp, const nm_qp_attr *a, const nm_ep *local,
		    const nm_ep *remote, char *err, size_t errlen);
/* Waits (polling ibv_query_qp) until the QP is in the given state, at most
 * timeout_ms: 0 when it is, 1 when the time ran out, -1 (err filled) when
 * the query failed. A responder that refused a request NAKs it before it
 * moves its QP to the error state (IBA 9.9.2; rxe does the two in one task,
 * in that order), so the requester can hear of the refusal first: resetting
 * the responder's end before it got there would leave it in error again. */
int nm_qp_await_state(struct ibv_qp *qp, enum ibv_qp_state state, int timeout_ms, char *err, size_t errlen);

/* Registered memory: buffer placed by numa/mem.c (huge pages, NUMA node). */
typedef struct nm_mr {
	void *buf;
	size_t len, alloc_len;
	struct ibv_mr *mr;
	bool hugepages;
	int numa_node;
} nm_mr;

#define NM_ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)

/* Whether `bytes` of pinned registrations fit under RLIMIT_MEMLOCK, checked
 * before a job registers them so a point that would exceed it stops at once
 * rather than fail midway. 0 when they fit (or the limit is unlimited, or
 * the process holds CAP_IPC_LOCK, which the kernel exempts); -1 with one
 * line naming `ulimit -l` and the bytes needed. `what` says what registers
 * them. ODP registrations pin nothing and do not count. */
int nm_memlock_check(uint64_t bytes, const char *what, char *err, size_t errlen);

/* The locked-memory limit a registration meets: RLIMIT_MEMLOCK's soft limit
 * in bytes, UINT64_MAX when unlimited or when the process holds
 * CAP_IPC_LOCK (*ipc_lock then true). What nm_memlock_check compares with. */
uint64_t nm_memlock_limit(bool *ipc_lock);
/* Adds one nm_mr_alloc of len bytes to a rank's needs: an MR of the length
 * nm_mr_alloc maps (whole pages, 2 MiB ones with hugepages), pinned, or on
 * demand with odp. */
void nm_mr_needs(nm_needs *n, size_t len, bool hugepages, bool odp);

int nm_mr_alloc(nm_dev *d, nm_mr *m, size_t len, bool hugepages, int numa_node,
		char *err, size_t errlen);
/* The second half of nm_mr_alloc, for a buffer the caller placed itself
 * (buf, len, alloc_len, hugepages, numa_node set): pages may still move
 * before this call, never after it. On failure the buffer is freed. */
int nm_mr_register(nm_dev *d, nm_mr *m, char *err, size_t errlen);
void nm_mr_free(nm_mr *m);

/* Device memory: a region of the NIC's own memory (ibv_alloc_dm, mlx5's
 * MEMIC on ConnectX-5 and later: 256 KiB there), registered zero-based, so
 * a peer's remote address is an offset into it. Atomics on it complete in
 * the NIC without a trip over PCIe to host memory (Sherman's lock table).
 * The CPU reaches it only through copies (ibv_memcpy_to_dm/_from_dm). */
typedef struct nm_dm {
	struct ibv_dm *dm;
	struct ibv_mr *mr;
	size_t len;
} nm_dm;
/* Bytes of device memory the device offers (ibv_query_device_ex's
 * max_dm_size), 0 when it has none or does not say. */
uint64_t nm_dev_dm_bytes(const nm_dev *d);
/* len bytes of device memory, zeroed and registered for remote READ, WRITE
 * and atomics (zero-based). Returns 0, or -1 with one line in err naming the
 * device, the bytes and the call that failed with its errno (a device that
 * has none: EOPNOTSUPP); nothing is left allocated then. */
int nm_dm_alloc(nm_dev *d, nm_dm *m, size_t len, char *err, size_t errlen);
/* Copies len bytes at offset off of the device memory into dst: 0, or -1. */
int nm_dm_read(const nm_dm *m, size_t off, void *dst, size_t len);
void nm_dm_free(nm_dm *m);

/* Where a peer's registered memory is. */
typedef struct nm_rmr {
	uint64_t addr, len;
	uint32_t rkey;
	uint32_t pad;
} nm_rmr;

#endif
