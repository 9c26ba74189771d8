/* The engine interface: what a file under workloads/ provides to become a
 * `netmem <name>` subcommand. The harness owns parsing, sweeps, repetitions,
 * device setup, metadata, progress and the result document; an experiment
 * only declares its options and runs one point.
 *
 * A workload registers itself with NM_EXPERIMENT(var) at file scope, so adding
 * an experiment means adding one file; the harness is not touched. */
#ifndef NM_EXPERIMENT_H
#define NM_EXPERIMENT_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include "measure.h"
#include "needs.h"
#include "opt.h"
#include "verbs.h"

/* The harness's options of one point, decoded once for every experiment. */
typedef struct nm_base {
	int nranks;
	/* Host identity of every rank of the job (nranks entries): the job's
	 * own (nm_boot_hosts), or under netmem preflight the hosts the
	 * config's ranks will be placed on. Decode reads placement here. */
	const uint64_t *hosts;
	int threads;             /* -T: worker threads per rank */
	uint64_t seed;
	double timeout;          /* seconds without progress before a wait gives up */
	int mem_node;            /* --mem-node, -1: the kernel's policy */
	bool hugepages;
	nm_qp_attr qp;           /* QP attributes (sq_depth is the workload's) */
	bool inline_default;     /* no -I: qp.max_inline is NM_INLINE_LAT, a bandwidth test uses 0 */
	nm_measure_cfg measure;  /* --iters, --duration, --warmup where declared */
} nm_base;

typedef struct nm_ctx {
	int rank, nranks;
	nm_dev *dev;          /* opened once per job */
	const json_t *spec;   /* whole specification (sweep axes as arrays) */
	const json_t *pt;     /* this point's parameters */
	nm_base base;         /* and the harness's options among them, decoded */
	int point_index, npoints, rep;
	bool resumed;         /* the job continues a document (--resume found one): a file
			       * the job's points add to is continued, not started anew */
} nm_ctx;

typedef struct nm_experiment {
	const char *name;
	const char *summary;   /* one line for `netmem --help` */
	const char *details;   /* paragraph after the option list, may be NULL */
	const nm_opt *opts;
	int min_ranks;
	/* The workload's typed point: decode reads one point's options once
	 * into a struct of point_size bytes (enums for modes, resolved
	 * defaults) and checks it; all ranks reach the same verdict. It writes
	 * one line into err and returns -1 when the point cannot run. The
	 * harness decodes every point before the first runs and hands the same
	 * struct to run. point_free, optional, releases what decode allocated. */
	size_t point_size;
	int (*decode)(const json_t *pt, const nm_base *base, void *point, char *err, size_t errlen);
	void (*point_free)(void *point);
	/* Optional: what rank `rank` of a job of `nranks` will create for a
	 * decoded point at its peak (QPs, CQs, MRs, registered bytes, depths,
	 * atomics, ODP), added into out, which starts zeroed. Pure: no device,
	 * no MPI. It must size through the same functions the point's set-up
	 * calls (nm_mesh_needs with the set-up's nm_mesh_cfg, nm_mr_needs with
	 * its lengths), so `netmem preflight` predicts what will run. A family
	 * without it is reported as "needs not declared", never as fitting. */
	void (*needs)(const void *point, const nm_base *base, int rank, int nranks, nm_needs *out);
	/* Runs one point on every rank (collective). Rank 0 fills `out` with
	 * {"valid": bool, "checks": {...}, "metrics": {...}}; other ranks may
	 * leave it empty. A correctness failure is reported through "valid",
	 * never by aborting, so the point is still recorded. */
	void (*run)(nm_ctx *ctx, const void *point, json_t *out);
	/* Prints a human-readable row for a finished point on stdout (rank 0);
	 * `first` is set for the first row printed in this job. May be NULL. */
	void (*report)(const json_t *pt, const json_t *res, bool first);
	/* Optional, rank 0, once after the last point of a job, before the
	 * document is saved: may add fields that compare points with each
	 * other (the lock table's ratios to the spinlock and MCS) to the
	 * records of `points`, the document's whole array (resumed points
	 * included). */
	void (*finish)(json_t *points);
	/* A command that is not a measured job (no MPI, no device), such as a
	 * trace generator: when set, `netmem <name> ARGS` calls it with argv
	 * starting at the command name and exits with its return value; the
	 * fields above other than name and summary are unused. */
	int (*tool_main)(int argc, char **argv);
	/* Optional: whether rank `rank` of the job runs without an RDMA device
	 * (a host that only routes the others' packets, such as the forwarding
	 * host of netmem clover --path forward). The harness opens none there:
	 * ctx->dev->ctx is NULL, the rank's metadata has no NIC, and it may
	 * join collectives (nm_mesh_create with no QP of its own, no MR) but
	 * create no verbs object. Decided from the whole spec, before any point. */
	bool (*without_device)(const json_t *spec, int rank, int nranks);
	/* Optional: parameters a figure or a claim may select on that a
	 * point's own do not name, derived from them and its job's rank count
	 * into out; the readers of result documents (netmem table, report,
	 * compare) add those a point does not name itself. netmem corm:
	 * clients, the client threads of every client rank, which the paper's
	 * axes count. */
	void (*derive)(const json_t *params, int nranks, json_t *out);
} nm_experiment;

void nm_experiment_register(const nm_experiment *e);
const nm_experiment *nm_experiment_find(const char *name);
/* Iteration over registered experiments (sorted by name). */
size_t nm_experiment_count(void);
const nm_experiment *nm_experiment_at(size_t i);

#define NM_EXPERIMENT(var)                                                \
	static void __attribute__((constructor)) nm_register_##var(void)  \
	{                                                                 \
		nm_experiment_register(&var);                             \
	}
#endif

/* Harness options every experiment's points carry (device, QP attributes,
 * threads, output...; harness_opts.c). */
extern const nm_opt nm_harness_opts[];
/* Decodes them (and --iters/--duration/--warmup where the experiment
 * declares them) from a point; the NM_OPT_RUN ones (the timeout) from run,
 * which holds them (a spec, or what nm_opt_take_run took out of it). */
void nm_base_decode(const json_t *pt, const json_t *run, int nranks, nm_base *b);
/* One point as every job decodes it before its first point runs (netmem
 * run, run --check, preflight): the harness's options (nm_base_decode; the
 * ranks' hosts from `hosts` when not NULL, else the job's own), the path
 * MTU, then the experiment's decode. 0, or -1 with one line in err; what a
 * failed decode allocated is e->point_free's to release either way. */
int nm_point_decode(const nm_experiment *e, const json_t *pt, const json_t *run, int nranks, const uint64_t *hosts,
		    nm_base *b, void *point, char *err, size_t errlen);
/* The verdict word of a point's stdout row (the report hook): "ok", or
 * "INVALID" when a check failed; every family prints the same word. */
const char *nm_point_verdict(const json_t *res);
