/* What one rank of a point will ask of its host (nm_needs), what a host
 * offers (nm_limits), the verdict of one against the other, and a job's
 * expected wall time: the pure half of `netmem preflight` (harness/
 * preflight.c reads the limits and runs the hooks). No MPI, no verbs calls:
 * unit-tested with made-up hosts (tests/unit/test_needs.c).
 *
 * A family declares its needs through nm_experiment.needs, computed by the
 * same sizing functions its set-up calls (the mesh's nm_mesh_plan, the
 * family's layout), so the prediction cannot drift from what runs. */
#ifndef NM_NEEDS_H
#define NM_NEEDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Peak resources of one rank during one point (every point builds and
 * frees its own, so a config's peak is its largest point's). */
typedef struct nm_needs {
	uint64_t qps, cqs, mrs;    /* objects this rank creates on its NIC */
	uint64_t cqe;              /* entries of its largest CQ */
	uint64_t sq_depth;         /* send queue entries of its deepest QP */
	char sq_from[48];          /* the option that sets that depth ("--tx-depth 20000"), for the line; "" */
	uint64_t rd_atomic;        /* outstanding READ/atomics asked per QP (0: the device's maximum) */
	uint64_t pinned_bytes;     /* registered and pinned: counts against RLIMIT_MEMLOCK */
	uint64_t odp_bytes;        /* registered on demand (pins nothing) */
	uint64_t largest_mr;       /* bytes of its largest registration */
	uint64_t hugepage_bytes;   /* backed by 2 MiB huge pages (registered, or plain memory) */
	bool atomics;              /* posts RDMA atomics (CAS/FAA) */
	bool odp;                  /* needs on-demand paging for RC READ/WRITE */
	int numa_nodes;            /* NUMA nodes the point needs on this host (>= 1) */
	int mtu;                   /* path MTU asked, bytes (0: the port's active MTU) */
} nm_needs;

/* What a host offers, read once per rank by preflight. */
typedef enum { NM_ATOMIC_NONE, NM_ATOMIC_HCA, NM_ATOMIC_GLOB } nm_atomic_cap;

typedef struct nm_limits {
	char host[64], device[64];
	int rank;
	bool emulated;
	uint64_t max_qp, max_cq, max_mr, max_cqe, max_qp_wr, max_sge, max_qp_rd_atom;
	uint64_t max_mr_size;
	nm_atomic_cap atomics;
	bool odp_rc;               /* ODP for RC READ and WRITE (general caps and RC caps) */
	int active_mtu;            /* bytes */
	uint64_t memlock;          /* bytes; UINT64_MAX: unlimited, or CAP_IPC_LOCK held */
	bool ipc_lock;
	uint64_t hugepages_free;   /* bytes of free 2 MiB huge pages */
	int numa_nodes, nic_node;  /* nic_node -1: unknown */
	uint64_t disk_free;        /* bytes free where the results go (rank 0's matter) */
	double clock_offset_s;     /* wall clock minus rank 0's, bounded by a round trip */
} nm_limits;

/* The largest of each field of a and b into a (a config's peak over its
 * points). */
void nm_needs_max(nm_needs *a, const nm_needs *b);
/* What several ranks on one NIC create together: objects and memory add up,
 * depths and flags take the largest. */
void nm_needs_sum(nm_needs *a, const nm_needs *b);

/* One rank's needs against its host: the limits a process has on its own
 * (locked memory, MR size, depths, atomics, ODP, MTU, NUMA). 0 when they
 * fit, else -1 with one line in why naming the host, the limit and both
 * numbers. */
int nm_fit_rank(const nm_needs *n, const nm_limits *l, char *why, size_t len);
/* The part of nm_fit_rank a job also checks itself, on every rank against
 * its own device, before its first point (a point that exceeds it would
 * otherwise fail inside its measured loop, at a post): the send queue's
 * depth against max_qp_wr. Only l->host, l->device and l->max_qp_wr are
 * read. 0, or -1 with the line. */
int nm_fit_queue(const nm_needs *n, const nm_limits *l, char *why, size_t len);
/* The needs of every rank a host runs, summed (nm_needs_sum), against its
 * device's object counts and its free huge pages: 0, or -1 with why. */
int nm_fit_host(const nm_needs *sum, int ranks, const nm_limits *l, char *why, size_t len);

/* The host index config rank r runs on when its job places ranks as
 * run_all.sh does: `--map-by node` (round robin over hosts) or, with
 * params.ranks_per_node P, `--map-by ppr:P:node` (P consecutive ranks per
 * host). hosts >= 1; ranks_per_node 0 when not set. */
int nm_needs_host_of(int r, int hosts, int ranks_per_node);

/* Expected wall time, the formula every estimate uses (harness/README.md, "Preflight"):
 *
 *   job    = start + sum over points of reps * (setup + run)
 *   setup  = point_setup + qps * qp_setup + pinned GiB * reg_per_gib
 *   run    = duration + warmup * op        with --duration
 *          = (iters + warmup) * op         otherwise
 *
 * where op is one measured operation of one thread on this kind of device.
 * At check scale set-up dominates; at paper scale duration does (most paper
 * points run for --duration), so one op time per device kind is enough.
 * Constants for hardware and for Soft-RoCE in needs.c. */
typedef struct nm_time_model {
	double start_s;       /* mpirun, MPI_Init, device open, metadata */
	double point_s;       /* barriers, placement, result record per point */
	double qp_s;          /* create + connect one QP (both ends) */
	double reg_s_per_gib; /* pinning registered memory */
	double op_ns;         /* one measured operation of one thread */
} nm_time_model;

/* The formula above in one line, for the preflight document. */
#define NM_TIME_FORMULA                                                                          \
	"start + sum over points of reps * (point + qps * qp + pinned_gib * reg_per_gib + run); "   \
	"run = duration + warmup * op with --duration, else (iters + warmup) * op"

/* Hardware; Soft-RoCE on one host; Soft-RoCE over several hosts. */
extern const nm_time_model nm_time_hardware, nm_time_emulated, nm_time_emulated_hosts;

typedef struct nm_point_time {
	uint64_t iters, warmup;  /* per thread */
	double duration;         /* > 0: duration mode */
	int reps;
	uint64_t qps;            /* the most any rank creates */
	uint64_t pinned_bytes;   /* the most any rank pins */
} nm_point_time;

/* Seconds for one point, all its repetitions (setup + run each). */
double nm_point_seconds(const nm_point_time *p, const nm_time_model *m);
#endif
