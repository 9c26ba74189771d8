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
#include "verbs.h"
#include <stdbool.h>
#include <sys/types.h>

typedef struct cl_fwd {
	pid_t janitor;       /* 0: this rank changed nothing */
	int undo_fd;         /* the janitor's pipe, write end */
	int changes;
} cl_fwd;

/* Collective. Rank `fwd` is the forwarding host's (it opened no device);
 * on every other host the lowest rank adds the routes. Ends the job with one
 * line naming the rank, host and change when one cannot be made (not root,
 * a route already there, a forwarder with no address on a host's link). */
void cl_fwd_up(cl_fwd *f, const nm_dev *dev, int fwd);
/* Collective: every change undone (the janitor's pipe closed, waited for).
 * A change that could not be undone is said in one line by its rank. */
void cl_fwd_down(cl_fwd *f);
#endif
