/* Which ranks make up a node. mpirun places ranks node by node (--map-by
 * slot, or ppr:P:node), so node n holds ranks [n*P, (n+1)*P). Experiments
 * that compare threads in one rank with one rank per worker (LOCO's
 * transactions against MPI) need to know P. On one host, nodes can be
 * emulated by naming P: groups of P ranks then stand for nodes. */
#ifndef NM_HOSTS_H
#define NM_HOSTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nm_hosts {
	int per_node;   /* P */
	int nodes;      /* whole groups of P ranks */
	bool emulated;  /* two groups share a host: nodes are stand-ins */
} nm_hosts;

/* host[r] identifies rank r's host (a hash of its name). want > 0 asks for
 * groups of `want` ranks; 0 takes P from the hosts (ranks on rank 0's host).
 * Returns 0, or -1 with one line in err. */
int nm_hosts_group(const uint64_t *host, int nranks, int want, nm_hosts *out, char *err,
		   size_t errlen);
/* Among ranks 0..n-1: how many distinct hosts they run on, and how many of
 * them share rank r's host. */
int nm_hosts_distinct(const uint64_t *host, int n);
int nm_hosts_sharing(const uint64_t *host, int n, int r);
/* The ranks' build identifiers (build/build_id.c, a hash of the sources) and host names, by
 * rank: 0 when every rank runs rank 0's build, else -1 with one line in err naming the first
 * rank that differs, both hosts and what to do. */
int nm_build_compare(const char *const *ids, const char *const *hosts, int nranks, char *err,
		     size_t errlen);
/* A hash of this machine's host name. */
uint64_t nm_host_id(void);

/* --yield of the experiments whose ranks spin on remote memory (LOCO's
 * barrier, the control loop): a spinning rank that shares a CPU with the
 * rank it waits for delays it by a whole time slice, so `auto` yields when
 * more of the job's first n ranks share rank r's host than it has CPUs. */
typedef enum { NM_YIELD_AUTO, NM_YIELD_ON, NM_YIELD_OFF } nm_yield_mode;
nm_yield_mode nm_yield_parse(const char *word);  /* "auto", "on", "off" */
bool nm_yield_wanted(nm_yield_mode m, const uint64_t *host, int n, int r, int cpus);
#endif
