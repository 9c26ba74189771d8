/* netmem clover --path forward: the routes that put a forwarding host
 * between every pair of the job's other hosts, as a switch sits between
 * Clover's clients and memory node in Grant and Snoeren's set-up (Sec. 3).
 *
 * Each other host sends to every other host's RDMA address through the
 * forwarder's address on its own link (a /32 route on its RDMA netdev); the
 * forwarder forwards IPv4 on those links' interfaces only and sends no ICMP
 * redirects (which would teach the hosts to go around it). A NIC resolves a
 * QP's next hop when the QP is connected, so the routes must be in place
 * before the point's QPs are.
 *
 * Nothing outlives the point: each host that changes anything first creates
 * its state file (CL_FWD_STATE), a list of what it is about to change and of
 * every setting such a change may move as a side effect, each written before
 * the change. A janitor (`netmem cleanup --janitor`, in a session of its own,
 * holding the file's lock) undoes the list when its pipe from the rank
 * closes: at the point's end, or when the rank dies however it dies (SIGKILL
 * included). A janitor that is itself killed leaves the file behind: the next
 * job on that host refuses to start until `netmem cleanup` has undone it. */
#ifndef NM_CLOVER_ROUTE_H
#define NM_CLOVER_ROUTE_H
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CL_FWD_ADDRS 16
/* Root's, on a tmpfs: the changes it lists (routes, sysctls, LRO) do not
 * survive a reboot either, and neither does the file. */
#define CL_FWD_STATE_DIR "/run/netmem"
#define CL_FWD_STATE_NAME "forward.state"
#define CL_FWD_STATE CL_FWD_STATE_DIR "/" CL_FWD_STATE_NAME
/* The routing protocol number the job's routes carry, so that an undo
 * deletes only a route this job added, never an equal one someone else's. */
#define CL_FWD_RTPROTO 110

/* What a rank brings to the plan: its host's RDMA address, with the netdev
 * and mask it sits on (every rank but the forwarder's, one entry), or all
 * the forwarder's IPv4 addresses. Network byte order; dev is the device's
 * name, never an address label such as eth0:1. */
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
	int undo_fd;         /* the janitor's pipe, write end: its closing is the signal */
	int state_fd;        /* the state file, appended to; -1: none */
	off_t last;          /* its length before the newest record */
	int changes;
	char state[128];     /* its path */
} cl_fwd;

/* What carries a rank's RDMA traffic, as --path forward needs to know. */
typedef enum cl_link {
	CL_LINK_NONE,      /* no device: the forwarding host's rank */
	CL_LINK_IB,        /* InfiniBand: LID-routed */
	CL_LINK_ROCE_V1,   /* Ethernet frames without an IP header */
	CL_LINK_ROCE_V2,   /* UDP/IP */
	CL_LINK_UNKNOWN,   /* RoCE whose GID type could not be read */
} cl_link;

/* Pure: the link of a rank with a device or none, on Ethernet or not, whose
 * chosen GID has type `gid_type` (enum ibv_gid_type; -1: unreadable). */
cl_link cl_fwd_link_of(bool has_dev, bool ethernet, int gid_type);
/* Pure: 0 when --path forward can route rank `me`'s traffic over `link`
 * (RoCEv2, or the forwarder's none), else -1 with one line in err. */
int cl_fwd_link_ok(cl_link link, int me, const char *host, const char *devname, char *err, size_t len);

/* Pure: the routes rank `me` adds (at most `max`), from every rank's
 * addresses and host: on each host but the forwarder's, its lowest rank
 * routes every other such host's RDMA address via the forwarder's address
 * on its own RDMA link. Returns how many, or -1 with one line in err (a
 * forwarder with no address on that link). */
int cl_fwd_plan(const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me, cl_route *out, int max,
		char *err, size_t len);
/* Pure: the forwarder's interfaces that carry the experiment (those holding
 * its address on some other host's RDMA link, each once, at most `max`):
 * the only ones it forwards on. Returns how many. */
int cl_fwd_ifaces(const cl_fwd_addrs *all, int R, int fwd, char (*out)[IF_NAMESIZE], int max);

/* This host's IPv4 addresses (loopback aside), each with its device's name:
 * all of them, or only the one equal to `only` (when non-zero). 0, or -1
 * with errno. */
int cl_fwd_host_addrs(cl_fwd_addrs *a, uint32_t only);

/* Collective. Rank `fwd` is the forwarding host's (it opened no device);
 * `rdma` is this rank's RDMA IPv4 address ("" on the forwarder, or none).
 * Ends the job with one line naming the rank, host and change when one
 * cannot be made (not root, a route already there, a forwarder with no
 * address on a host's link, a device that is not RoCEv2), and with exit
 * status 2 when a host holds an earlier job's changes (run netmem cleanup). */
void cl_fwd_up(cl_fwd *f, cl_link link, const char *rdma, const char *devname, int fwd);
/* Collective: every change undone (the janitor's pipe closed, waited for).
 * A change that could not be undone is said in one line by its rank. */
void cl_fwd_down(cl_fwd *f);

/* The parts of cl_fwd_up a host runs, for it and its tests. */
/* Whether rank `me` changes anything on its host (the forwarder, or a
 * host's lowest rank with routes to add). */
bool cl_fwd_changes_host(const uint64_t *hosts, int R, int fwd, int me);
/* Creates the state file `dir`/forward.state (the directory 0700 if it is
 * missing), locks it and starts the janitor. 0; NM_EXIT_USAGE with one line
 * when the file is there already (an earlier job's, whose janitor was killed:
 * the line names netmem cleanup; or a job's that runs now); NM_EXIT_FAIL with
 * one line otherwise (not root, an unsafe directory). */
int cl_fwd_begin(cl_fwd *f, const char *dir, const char *host, char *err, size_t len);
/* Makes rank `me`'s changes, each recorded first (cl_fwd_begin before).
 * 0, or -1 with one line in err. */
int cl_fwd_apply(cl_fwd *f, const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me,
		 const char *host, char *err, size_t len);
/* Appends one record before its change / drops the newest (a change that
 * was not made after all). 0, or -1 with errno. */
int cl_fwd_record(cl_fwd *f, const char *rec);
int cl_fwd_unrecord(cl_fwd *f);
/* The janitor's end: its pipe closed, waited for. The number of records it
 * could not undo, or -1 when it did not end normally (killed: the state file
 * stays for netmem cleanup). */
int cl_fwd_end(cl_fwd *f);

/* Undoes the state file open on fd (locked by the caller): its undo records
 * newest first, then every recorded setting back to its value before the
 * job, until they hold. Says what it did on `say` (NULL: nothing). Returns
 * the number of records it could not undo or parse. */
int cl_fwd_undo_file(int fd, FILE *say);
/* `netmem cleanup` on `dir`: undoes and removes its state file. 0 (also
 * when there is none), NM_EXIT_FAIL with one line in err when something
 * could not be undone or a job holds the file, NM_EXIT_USAGE when the file
 * cannot be trusted or read (not root). */
int cl_fwd_cleanup_dir(const char *dir, FILE *say, char *err, size_t len);
/* `netmem cleanup [--janitor]` (argv[0] "cleanup"). */
int cl_fwd_cleanup_main(int argc, char **argv);
#endif
