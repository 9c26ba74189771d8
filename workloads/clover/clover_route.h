/* netmem clover --path forward: the routes that put a forwarding host
 * between every pair of the job's other hosts, as a switch sits between
 * Clover's clients and memory node in Grant and Snoeren's set-up (Sec. 3).
 *
 * Each other host sends to every other host's RDMA address through the
 * forwarder's address on its own link (a /32 route on its RDMA netdev); the
 * forwarder forwards IPv4 and sends no ICMP redirects (which would teach
 * the hosts to go around it). A NIC resolves a QP's next hop when the QP is
 * connected, so the routes must be in place before the point's QPs are.
 *
 * Nothing outlives the point: every change is first handed to a janitor, a
 * shell in a session of its own that reads the changes' undo commands from a
 * pipe and runs them, newest first, when the pipe closes: at the point's end,
 * or when the rank dies however it dies (SIGKILL included). */
#ifndef NM_CLOVER_ROUTE_H
#define NM_CLOVER_ROUTE_H
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CL_FWD_ADDRS 16

/* What a rank brings to the plan: its host's RDMA address, with the netdev
 * and mask it sits on (every rank but the forwarder's, one entry), or all
 * the forwarder's IPv4 addresses. Network byte order. */
typedef struct cl_fwd_addrs {
	uint32_t n, addr[CL_FWD_ADDRS], mask[CL_FWD_ADDRS];
	char dev[CL_FWD_ADDRS][IF_NAMESIZE];
} cl_fwd_addrs;

/* One route a host adds: dst/32 via `via` on `dev`. */
typedef struct cl_route {
	uint32_t dst, via;
	char dev[IF_NAMESIZE];
} cl_route;

typedef struct cl_fwd {
	pid_t janitor;       /* 0: this rank changed nothing */
	int undo_fd;         /* the janitor's pipe, write end */
	int changes;
} cl_fwd;

/* Pure: the routes rank `me` adds (at most `max`), from every rank's
 * addresses and host: on each host but the forwarder's, its lowest rank
 * routes every other such host's RDMA address via the forwarder's address
 * on its own RDMA link. Returns how many, or -1 with one line in err (a
 * forwarder with no address on that link). */
int cl_fwd_plan(const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me, cl_route *out, int max,
		char *err, size_t len);

/* Collective. Rank `fwd` is the forwarding host's (it opened no device);
 * `rdma` is this rank's RDMA IPv4 address ("" on the forwarder, or none;
 * NULL: the device is InfiniBand, whose packets no IP route can redirect).
 * Ends the job with one line naming the rank, host and change when one
 * cannot be made (not root, a route already there, a forwarder with no
 * address on a host's link). */
void cl_fwd_up(cl_fwd *f, const char *rdma, const char *devname, int fwd);
/* Collective: every change undone (the janitor's pipe closed, waited for).
 * A change that could not be undone is said in one line by its rank. */
void cl_fwd_down(cl_fwd *f);

/* The janitor's two ends, for cl_fwd_up and its tests: hand it the undo of
 * a change about to be made (started on first use); 0, or -1 with errno. */
int cl_fwd_undo_first(cl_fwd *f, const char *undo);
/* Runs every undo now (the pipe closed, the janitor waited for): the number
 * that failed, or -1 when the janitor did not end normally. */
int cl_fwd_undo_all(cl_fwd *f);
#endif
