/* netmem clover --path forward: routes through a forwarding host, recorded
 * in a state file and undone by a janitor that outlives the rank, or by
 * `netmem cleanup` (see clover_route.h). Routes are made with iproute2 and
 * settings through /proc/sys, as an administrator would make them by hand,
 * so `ip route` on any host shows exactly what the job added (proto 110). */
#include "clover_route.h"
#include "alloc.h"
#include "boot.h"
#include "fds.h"
#include "log.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>   /* enum ibv_gid_type only: nothing is linked */
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void ip_str(uint32_t a, char *out) { inet_ntop(AF_INET, &a, out, INET_ADDRSTRLEN); }

static int prefix_len(uint32_t mask) { return __builtin_popcount(mask); }

/* A name the kernel would accept for a netdev (dev_valid_name): what a
 * record read back from a state file must hold before it reaches a path
 * under /proc/sys or an ip command. */
static bool name_ok(const char *s)
{
	size_t n = strnlen(s, IF_NAMESIZE);
	if (n == 0 || n == IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

/* ---- the pure part: which device, which routes, which interfaces ---------------------- */

/* Only RoCEv2's UDP/IP packets follow an IP route through the forwarding
 * host: InfiniBand's are LID-routed, RoCEv1's are Ethernet frames of their
 * own type without an IP header. The chosen GID's type decides, not the
 * device's: a RoCE NIC lists GIDs of both kinds and -x may pick either. */
cl_link cl_fwd_link_of(bool has_dev, bool ethernet, int gid_type)
{
	if (!has_dev)
		return CL_LINK_NONE;
	if (!ethernet)
		return CL_LINK_IB;
	return gid_type == IBV_GID_TYPE_ROCE_V2 ? CL_LINK_ROCE_V2
	       : gid_type == IBV_GID_TYPE_ROCE_V1 ? CL_LINK_ROCE_V1 : CL_LINK_UNKNOWN;
}

int cl_fwd_link_ok(cl_link link, int me, const char *host, const char *devname, char *err, size_t len)
{
	switch (link) {
	case CL_LINK_NONE:
	case CL_LINK_ROCE_V2:
		return 0;
	case CL_LINK_IB:
		return nm_errf(err, len, "rank %d (host %s): %s is InfiniBand: --path forward routes RoCEv2's IP "
			       "packets through the forwarding host, and InfiniBand's never cross a host's IP stack", me,
			       host, devname);
	case CL_LINK_ROCE_V1:
		return nm_errf(err, len, "rank %d (host %s): %s's GID is RoCEv1: --path forward routes RoCEv2's IP "
			       "packets through the forwarding host, and RoCEv1's carry no IP header (Ethernet frames "
			       "that no host routes): pick a RoCEv2 GID with -x (netmem info lists their types)", me,
			       host, devname);
	case CL_LINK_UNKNOWN:
		break;
	}
	return nm_errf(err, len, "rank %d (host %s): the type of %s's GID (RoCEv1 or RoCEv2) cannot be read: "
		       "--path forward routes RoCEv2's IP packets only", me, host, devname);
}

/* The forwarder's address on rank r's RDMA link: its index among the
 * forwarder's addresses, or -1. */
static int via_of(const cl_fwd_addrs *all, int fwd, int r)
{
	const cl_fwd_addrs *a = &all[r], *fa = &all[fwd];
	for (uint32_t i = 0; a->n && i < fa->n; i++)
		if ((fa->addr[i] & a->mask[0]) == (a->addr[0] & a->mask[0]))
			return (int)i;
	return -1;
}

int cl_fwd_plan(const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me, cl_route *out, int max,
		char *err, size_t len)
{
	for (int r = 0; r < me; r++)
		if (r != fwd && hosts[r] == hosts[me])
			return 0;   /* the host's lowest rank routes for it */
	if (me == fwd)
		return 0;
	const cl_fwd_addrs *a = &all[me];
	int vi = via_of(all, fwd, me);
	if (vi < 0) {
		char mine[INET_ADDRSTRLEN];
		ip_str(a->addr[0], mine);
		return nm_errf(err, len, "rank %d: the forwarding host (rank %d) has no address on the link of this host's "
			       "RDMA address %s/%d (%s): give it one there", me, fwd, mine, prefix_len(a->mask[0]),
			       a->dev[0]);
	}
	uint32_t via = all[fwd].addr[vi];
	int n = 0;
	for (int y = 0; y < R; y++) {
		bool seen = y == fwd || hosts[y] == hosts[me];
		for (int z = 0; z < y && !seen; z++)
			seen = z != fwd && hosts[z] == hosts[y];
		if (seen)
			continue;
		if (n == max)
			return nm_errf(err, len, "rank %d: more than %d hosts to route to", me, max);
		out[n] = (cl_route){.dst = all[y].addr[0], .via = via};
		snprintf(out[n].dev, sizeof out[n].dev, "%s", a->dev[0]);
		n++;
	}
	return n;
}

int cl_fwd_ifaces(const cl_fwd_addrs *all, int R, int fwd, char (*out)[IF_NAMESIZE], int max)
{
	int n = 0;
	for (int r = 0; r < R; r++) {
		int vi = r == fwd ? -1 : via_of(all, fwd, r);
		if (vi < 0)
			continue;
		const char *dev = all[fwd].dev[vi];
		bool seen = false;
		for (int i = 0; i < n && !seen; i++)
			seen = !strcmp(out[i], dev);
		if (!seen && n < max)
			snprintf(out[n++], IF_NAMESIZE, "%s", dev);
	}
	return n;
}

bool cl_fwd_changes_host(const uint64_t *hosts, int R, int fwd, int me)
{
	if (me == fwd)
		return true;
	for (int r = 0; r < me; r++)
		if (r != fwd && hosts[r] == hosts[me])
			return false;
	for (int y = 0; y < R; y++)
		if (y != fwd && hosts[y] != hosts[me])
			return true;   /* a host to route to */
	return false;
}

/* ---- this host: its addresses, commands, settings ------------------------------------- */

/* Whether device `name` is a loopback (ioctl, as ifconfig asks). */
static bool is_loopback(int s, const char *name)
{
	struct ifreq r = {0};
	snprintf(r.ifr_name, sizeof r.ifr_name, "%s", name);
	return ioctl(s, SIOCGIFFLAGS, &r) == 0 && (r.ifr_flags & IFF_LOOPBACK);
}

/* Through rtnetlink rather than getifaddrs: getifaddrs names an address by
 * its label, and a labelled alias (`ip addr add ... label eth0:1`) would
 * give eth0:1, which no route, sysctl or ioctl knows; the kernel's address
 * message carries the device's index, whose name is the device's. */
int cl_fwd_host_addrs(cl_fwd_addrs *a, uint32_t only)
{
	memset(a, 0, sizeof *a);
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int q = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg m;
	} req = {.h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)), .nlmsg_type = RTM_GETADDR,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1},
		 .m = {.ifa_family = AF_INET}};
	int rc = s < 0 || q < 0 || send(s, &req, req.h.nlmsg_len, 0) < 0 ? -1 : 0;
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (bool done = rc != 0; !done;) {
		ssize_t got = recv(s, buf, sizeof buf, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -1 : (errno = EPROTO, -1);
			break;
		}
		int left = (int)got;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; !done && NLMSG_OK(h, (unsigned)left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
			} else if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				errno = -e->error;
				rc = -1;
				done = true;
			} else if (h->nlmsg_type == RTM_NEWADDR) {
				const struct ifaddrmsg *m = NLMSG_DATA(h);
				uint32_t local = 0, addr = 0;
				bool has_local = false, has_addr = false;
				int alen = (int)IFA_PAYLOAD(h);
				for (struct rtattr *at = IFA_RTA(m); RTA_OK(at, alen); at = RTA_NEXT(at, alen)) {
					if (RTA_PAYLOAD(at) != 4)
						continue;
					/* IFA_ADDRESS is the peer's on a point-to-point link; IFA_LOCAL ours */
					if (at->rta_type == IFA_LOCAL)
						memcpy(&local, RTA_DATA(at), 4), has_local = true;
					else if (at->rta_type == IFA_ADDRESS)
						memcpy(&addr, RTA_DATA(at), 4), has_addr = true;
				}
				char dev[IF_NAMESIZE];
				uint32_t ad = has_local ? local : addr;
				if (m->ifa_family != AF_INET || !(has_local || has_addr) || (only && ad != only) ||
				    a->n == CL_FWD_ADDRS || !if_indextoname(m->ifa_index, dev) || is_loopback(q, dev))
					continue;
				a->addr[a->n] = ad;
				a->mask[a->n] = m->ifa_prefixlen ? htonl(~0u << (32 - m->ifa_prefixlen)) : 0;
				snprintf(a->dev[a->n], IF_NAMESIZE, "%s", dev);
				a->n++;
			}
		}
	}
	int e = errno;
	if (s >= 0)
		close(s);
	if (q >= 0)
		close(q);
	errno = e;
	return rc;
}

/* Runs argv[0] from PATH with argv, without a shell (nothing to quote); the
 * first line of its output, stderr included, in out. 0 when it exits 0. */
static int run(char *const argv[], char *out, size_t len)
{
	int p[2];
	out[0] = 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return snprintf(out, len, "%s", strerror(errno)), -1;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int e = posix_spawn_file_actions_init(&fa);
	if (!e)
		e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!e)
		e = posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	if (!e)
		e = posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	if (!e)
		e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e) {
		close(p[0]);
		return snprintf(out, len, "cannot run %s: %s", argv[0], strerror(e)), -1;
	}
	FILE *r = fdopen(p[0], "r");
	if (!r)
		close(p[0]);
	if (r && fgets(out, (int)len, r))
		out[strcspn(out, "\n")] = 0;
	char sink[256];
	while (r && fgets(sink, sizeof sink, r))
		;
	if (r)
		fclose(r);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* A setting under /proc/sys by its key (net/ipv4/conf/eth0/forwarding):
 * 0, or -1 with errno (ENOENT: the interface is gone). */
static int sysctl_get(const char *key, char *val, size_t len)
{
	char path[160];
	snprintf(path, sizeof path, "/proc/sys/%s", key);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, val, len - 1);
	int e = errno;
	close(fd);
	if (n <= 0)
		return errno = n < 0 ? e : EIO, -1;
	val[n] = 0;
	val[strcspn(val, "\n")] = 0;
	return 0;
}

static int sysctl_set(const char *key, const char *val)
{
	char path[160];
	snprintf(path, sizeof path, "/proc/sys/%s", key);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(val);
	int rc = write(fd, val, n) == (ssize_t)n ? 0 : -1, e = errno;
	if (close(fd) != 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}

/* Large receive offload, which the kernel turns off on an interface (and
 * the devices under it) when forwarding goes on there (dev_disable_lro):
 * ethtool's legacy flags ioctl, so no ethtool binary is needed. 0 or 1, or
 * -1 with errno (EOPNOTSUPP: the driver has no LRO; ENODEV: gone). */
static int lro_ioctl(const char *dev, int set)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct ethtool_value v = {.cmd = ETHTOOL_GFLAGS};
	struct ifreq r = {0};
	snprintf(r.ifr_name, sizeof r.ifr_name, "%s", dev);
	r.ifr_data = (void *)&v;
	int rc = ioctl(s, SIOCETHTOOL, &r);
	if (rc == 0 && set >= 0) {
		/* SFLAGS sets every legacy flag at once: change LRO's bit only */
		v.cmd = ETHTOOL_SFLAGS;
		v.data = set ? v.data | ETH_FLAG_LRO : v.data & ~(uint32_t)ETH_FLAG_LRO;
		rc = ioctl(s, SIOCETHTOOL, &r);
	}
	int e = errno;
	close(s);
	errno = e;
	return rc != 0 ? -1 : set >= 0 ? 0 : !!(v.data & ETH_FLAG_LRO);
}
static int lro_get(const char *dev) { return lro_ioctl(dev, -1); }
static int lro_set(const char *dev, bool on) { return lro_ioctl(dev, on); }

/* ---- the state file and the janitor --------------------------------------------------- */

/* The janitor in a session of its own, holding nothing of ours but the pipe
 * (its closing, at the point's end or the rank's death, says "undo") and the
 * state file on descriptor 3, whose lock it holds while it lives: it is this
 * executable (netmem cleanup --janitor), started now, while the rank's
 * binary is certainly the one that made the records. */
static int janitor_start(cl_fwd *f, int state)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	char *const argv[] = {"netmem", "cleanup", "--janitor", f->state, NULL};
	/* The janitor starts with its stop signals blocked (a mask survives fork
	 * and exec; a pending signal waits), and unblocks them once its handlers
	 * are in: a SIGTERM that comes as soon as the rank says "up" makes it
	 * undo, where the default action would kill it with the changes in place
	 * (seen on a loaded host, tests/cli/test_clover_route_ns.sh). */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	pid_t pid = fork();
	if (pid != 0)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return errno = e, -1;
	}
	if (pid == 0) {   /* only async-signal-safe calls until exec */
		setsid();
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* out of the way of 0-3 first: any of them may be one of these */
		int in = fcntl(p[0], F_DUPFD_CLOEXEC, 10), st = fcntl(state, F_DUPFD_CLOEXEC, 10),
		    nl = fcntl(null, F_DUPFD_CLOEXEC, 10);
		if (null < 0 || in < 0 || st < 0 || nl < 0 || dup2(in, 0) < 0 || dup2(nl, 1) < 0 || dup2(nl, 2) < 0 ||
		    dup2(st, 3) < 0)
			_exit(127);
		nm_close_fds_from(4, 65536);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[0]);
	f->janitor = pid;
	f->undo_fd = p[1];
	return 0;
}

/* Why begin fails on a file that is there: a job that runs now holds its
 * lock; an earlier one's janitor, killed, holds nothing. */
static int held(const char *path, const char *host, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool busy = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	if (fd >= 0)
		close(fd);
	if (busy)
		nm_errf(err, len, "host %s: another job's --path forward changes are in place there now (its janitor "
			"holds %s): wait for that job to end", host, path);
	else
		nm_errf(err, len, "host %s holds routes and forwarding settings an earlier --path forward job did not "
			"undo (its janitor was killed, or an undo failed; %s lists them): run `netmem cleanup` there "
			"as root, then start again", host, path);
	return NM_EXIT_USAGE;
}

int cl_fwd_begin(cl_fwd *f, const char *dir, const char *host, char *err, size_t len)
{
	*f = (cl_fwd){.undo_fd = -1, .state_fd = -1};
	snprintf(f->state, sizeof f->state, "%s/%s", dir, CL_FWD_STATE_NAME);
	struct stat st;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return nm_errf(err, len, "host %s: cannot create %s: %s (the forwarder layout needs root)", host, dir,
			       strerror(errno)), NM_EXIT_FAIL;
	/* what is in it is run as root's undo: only root may have put it there */
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return nm_errf(err, len, "host %s: %s is not a directory only its owner, this user, can use: remove it",
			       host, dir), NM_EXIT_FAIL;
	/* Made whole under a name of its own, then linked into place: a
	 * `netmem cleanup` never sees it before its lock and header, and link
	 * fails, whatever is there, when the name is taken. */
	char tmp[192], head[320], when[32] = "";
	snprintf(tmp, sizeof tmp, "%s/.%s.%ld", dir, CL_FWD_STATE_NAME, (long)getpid());
	if (unlink(tmp) != 0 && errno != ENOENT)   /* a leftover of a killed process that had our pid */
		return nm_errf(err, len, "host %s: cannot remove %s: %s", host, tmp, strerror(errno)), NM_EXIT_FAIL;
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return nm_errf(err, len, "host %s: cannot create %s: %s (the forwarder layout needs root)", host, tmp,
			       strerror(errno)), NM_EXIT_FAIL;
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	int n = snprintf(head, sizeof head, "# netmem clover --path forward: what pid %ld changed on host %s from %s; "
			 "its janitor undoes it at the point's end, else run netmem cleanup as root\n",
			 (long)getpid(), host, when);
	int rc = 0;
	if (flock(fd, LOCK_EX) != 0 || write(fd, head, (size_t)n) != n)
		rc = nm_errf(err, len, "host %s: cannot write %s: %s", host, tmp, strerror(errno));
	else if (janitor_start(f, fd) != 0)
		rc = nm_errf(err, len, "host %s: cannot start the janitor that undoes changes: %s", host, strerror(errno));
	else if (link(tmp, f->state) != 0) {
		int e = errno;
		cl_fwd_end(f);   /* its janitor finds nothing to undo, and leaves the other's file */
		rc = e == EEXIST ? held(f->state, host, err, len)
				 : nm_errf(err, len, "host %s: cannot create %s: %s", host, f->state, strerror(e));
	}
	unlink(tmp);
	if (rc) {
		if (f->janitor)
			cl_fwd_end(f);
		close(fd);
		return rc == NM_EXIT_USAGE ? rc : NM_EXIT_FAIL;
	}
	f->state_fd = fd;
	return 0;
}

int cl_fwd_record(cl_fwd *f, const char *rec)
{
	char line[256];
	struct stat st;
	int n = snprintf(line, sizeof line, "%s\n", rec);
	if (f->state_fd < 0)
		return errno = EBADF, -1;
	if (n >= (int)sizeof line || strchr(rec, '\n'))
		return errno = EINVAL, -1;
	if (fstat(f->state_fd, &st) != 0)
		return -1;
	/* a write cut short leaves a line without its newline, which the undo
	 * ignores: it describes a change not made yet */
	if (write(f->state_fd, line, (size_t)n) != n)
		return errno = errno ? errno : EIO, -1;
	f->last = st.st_size;
	f->changes += !strncmp(rec, "undo ", 5);
	return 0;
}

int cl_fwd_unrecord(cl_fwd *f)
{
	char last[8] = "";
	if (pread(f->state_fd, last, 5, f->last) == 5 && !strncmp(last, "undo ", 5))
		f->changes--;
	return ftruncate(f->state_fd, f->last);
}

int cl_fwd_end(cl_fwd *f)
{
	int st = 0, rc = 0;
	if (f->janitor) {
		close(f->undo_fd);
		while (waitpid(f->janitor, &st, 0) < 0 && errno == EINTR)
			;
		/* above 100: it did not get to undo (127: it could not start) */
		rc = WIFEXITED(st) && WEXITSTATUS(st) <= 100 ? WEXITSTATUS(st) : -1;
	}
	if (f->state_fd >= 0)
		close(f->state_fd);   /* after the janitor: the lock lives until both let go */
	char state[sizeof f->state];
	memcpy(state, f->state, sizeof state);
	*f = (cl_fwd){.undo_fd = -1, .state_fd = -1};
	memcpy(f->state, state, sizeof state);
	return rc;
}

/* ---- the changes ---------------------------------------------------------------------- */

static const char *const conf_keys[] = {"forwarding", "accept_redirects", "send_redirects"};

/* Before the forwarder's first change, the value of every setting one of
 * its changes, or the undo of one, may move as the kernel's side effect
 * (devinet.c: writing conf/all/forwarding sets every interface's and
 * default's and resets all/accept_redirects; forwarding on an interface
 * turns LRO off on it and the devices under it): the undo puts back each
 * that differs then, whatever moved it. `all` first: restoring it moves
 * the others. */
static int record_before(cl_fwd *f, const char *host, char *err, size_t len)
{
	char rec[200], key[128], val[32];
	DIR *d = opendir("/proc/sys/net/ipv4/conf");
	if (!d)
		return nm_errf(err, len, "forwarding host %s: cannot list /proc/sys/net/ipv4/conf: %s", host,
			       strerror(errno));
	const char *firsts[] = {"all", "default"};
	struct dirent *e = NULL;
	for (int i = 0; i < 2 || (e = readdir(d)); i++) {
		const char *name = i < 2 ? firsts[i] : e->d_name;
		if (i >= 2 && (!strcmp(name, "all") || !strcmp(name, "default") || !name_ok(name)))
			continue;
		for (size_t k = 0; k < sizeof conf_keys / sizeof *conf_keys; k++) {
			snprintf(key, sizeof key, "net/ipv4/conf/%.*s/%s", IF_NAMESIZE, name, conf_keys[k]);
			if (sysctl_get(key, val, sizeof val) != 0)
				continue;   /* an interface that went away meanwhile */
			snprintf(rec, sizeof rec, "keep sysctl %s %s", key, val);
			if (cl_fwd_record(f, rec) != 0) {
				closedir(d);
				return nm_errf(err, len, "forwarding host %s: cannot write %s: %s", host, f->state,
					       strerror(errno));
			}
		}
	}
	closedir(d);
	struct if_nameindex *ni = if_nameindex();
	if (!ni)
		return nm_errf(err, len, "forwarding host %s: cannot list its interfaces: %s", host, strerror(errno));
	int rc = 0;
	for (struct if_nameindex *i = ni; i->if_index && !rc; i++) {
		int on = name_ok(i->if_name) ? lro_get(i->if_name) : -1;
		snprintf(rec, sizeof rec, "keep lro %s %d", i->if_name, on);
		if (on >= 0 && cl_fwd_record(f, rec) != 0)
			rc = nm_errf(err, len, "forwarding host %s: cannot write %s: %s", host, f->state, strerror(errno));
	}
	if_freenameindex(ni);
	return rc;
}

/* One setting changed, its undo recorded first: a change the rank dies in
 * the middle of is undone too (undoing a change not made finds the value
 * as it was and leaves it). */
static int set_recorded(cl_fwd *f, const char *key, const char *val, const char *host, char *err, size_t len)
{
	char old[32], rec[200];
	if (sysctl_get(key, old, sizeof old) != 0)
		return nm_errf(err, len, "forwarding host %s: cannot read /proc/sys/%s: %s", host, key, strerror(errno));
	if (!strcmp(old, val))
		return 0;
	snprintf(rec, sizeof rec, "undo sysctl %s %s", key, old);
	if (cl_fwd_record(f, rec) != 0)
		return nm_errf(err, len, "forwarding host %s: cannot write %s: %s", host, f->state, strerror(errno));
	if (sysctl_set(key, val) != 0)
		return nm_errf(err, len, "forwarding host %s: cannot set /proc/sys/%s to %s: %s (the forwarder layout "
			       "needs root)", host, key, val, strerror(errno));
	return 0;
}

/* The forwarder: IPv4 forwarding on the experiment's interfaces only, and no
 * ICMP redirects from them.
 *
 * Not ip_forward: that is conf/all/forwarding, whose write sets every
 * interface's, the control network's too, and resets all/accept_redirects.
 * IPv4 asks only the interface a packet arrives on whether to forward it
 * (ip_route_input_slow: IN_DEV_FORWARD(in_dev)); the interface it leaves by
 * is not asked. A packet from host A to host B arrives on the forwarder's
 * interface on A's link, B's answer on the one on B's link, so both
 * directions need forwarding on each interface that holds the forwarder's
 * address on some host's RDMA link, and no other: a packet that arrives on
 * the control network is still not forwarded. On one LAN that is one
 * interface, in and out.
 *
 * Redirects: the kernel sends one when a packet leaves by the interface it
 * came in on (one LAN), if all's or the interface's send_redirects is on
 * (IN_DEV_TX_REDIRECTS ORs them), so both go to 0; all's matters only where
 * packets are forwarded, on the experiment's interfaces. */
static int forwarder_up(cl_fwd *f, const cl_fwd_addrs *all, int R, int fwd, const char *host, char *err, size_t len)
{
	char ifs[CL_FWD_ADDRS][IF_NAMESIZE], key[96];
	int n = cl_fwd_ifaces(all, R, fwd, ifs, CL_FWD_ADDRS);
	if (record_before(f, host, err, len) ||
	    set_recorded(f, "net/ipv4/conf/all/send_redirects", "0", host, err, len))
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "net/ipv4/conf/%.*s/send_redirects", IF_NAMESIZE, ifs[i]);
		if (set_recorded(f, key, "0", host, err, len))
			return -1;
		snprintf(key, sizeof key, "net/ipv4/conf/%.*s/forwarding", IF_NAMESIZE, ifs[i]);
		if (set_recorded(f, key, "1", host, err, len))
			return -1;
	}
	return 0;
}

/* A host's lowest rank: its planned routes, each recorded first. */
static int routes_up(cl_fwd *f, const cl_route *rt, int n, int me, const char *host, char *err, size_t len)
{
	char gw[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN], dst32[24], rec[200], out[256], proto[8];
	snprintf(proto, sizeof proto, "%d", CL_FWD_RTPROTO);
	for (int i = 0; i < n; i++) {
		ip_str(rt[i].dst, dst);
		ip_str(rt[i].via, gw);
		snprintf(dst32, sizeof dst32, "%s/32", dst);
		snprintf(rec, sizeof rec, "undo route %s %s %s", dst, gw, rt[i].dev);
		if (!name_ok(rt[i].dev))
			return nm_errf(err, len, "rank %d (host %s): %s is not a netdev name", me, host, rt[i].dev);
		if (cl_fwd_record(f, rec) != 0)
			return nm_errf(err, len, "rank %d (host %s): cannot write %s: %s", me, host, f->state,
				       strerror(errno));
		char *const argv[] = {"ip", "-4", "route", "add", dst32, "via", gw, "dev", (char *)rt[i].dev, "proto",
				      proto, NULL};
		if (run(argv, out, sizeof out) == 0)
			continue;
		/* Nothing was added: its record goes, so that neither the janitor
		 * nor netmem cleanup deletes a route that was there before (the
		 * undo names proto 110 too, which such a route does not carry). */
		int dropped = cl_fwd_unrecord(f);
		return nm_errf(err, len, "rank %d (host %s): `ip -4 route add %s via %s dev %s proto %s` failed: %s%s%s",
			       me, host, dst32, gw, rt[i].dev, proto, out,
			       strstr(out, "File exists") ? " (a route to that address is already there: remove it)"
			       : strstr(out, "not permitted") ? " (the forwarder layout needs root)" : "",
			       dropped ? "; its record could not be dropped from the state file" : "");
	}
	return 0;
}

int cl_fwd_apply(cl_fwd *f, const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me,
		 const char *host, char *err, size_t len)
{
	if (me == fwd)
		return forwarder_up(f, all, R, fwd, host, err, len);
	cl_route *rt = nm_calloc((size_t)R, sizeof *rt);
	char perr[512] = "";
	int n = cl_fwd_plan(all, hosts, R, fwd, me, rt, R, perr, sizeof perr), rc = 0;
	if (n < 0)
		rc = nm_errf(err, len, "%s (host %s)", perr, host);
	else
		rc = routes_up(f, rt, n, me, host, err, len);
	free(rt);
	return rc;
}

void cl_fwd_up(cl_fwd *f, cl_link link, const char *rdma, const char *devname, int fwd)
{
	int me = nm_boot_rank(), R = nm_boot_size();
	char err[768] = "", host[64] = "?";
	gethostname(host, sizeof host - 1);
	*f = (cl_fwd){.undo_fd = -1, .state_fd = -1};
	cl_fwd_addrs mine = {0}, *all = nm_calloc((size_t)R, sizeof *all);
	bool routable = cl_fwd_link_ok(link, me, host, devname, err, sizeof err) == 0;
	if (routable && me != fwd && (!rdma || !*rdma))
		nm_errf(err, sizeof err, "rank %d (host %s): %s has no IPv4 address to route (the forwarder layout is "
			"RoCEv2 over IPv4)", me, host, devname);
	else if (routable && cl_fwd_host_addrs(&mine, me == fwd ? 0 : inet_addr(rdma)) != 0)
		nm_errf(err, sizeof err, "rank %d (host %s): cannot list this host's IPv4 addresses: %s", me, host,
			strerror(errno));
	else if (routable && me != fwd && mine.n == 0)
		nm_errf(err, sizeof err, "rank %d (host %s): %s's address %s is on no interface of this host", me, host,
			devname, rdma);
	nm_boot_allgather(&mine, all, sizeof mine);
	nm_boot_check(err[0] ? err : NULL, NM_EXIT_FAIL);
	/* Every host's state file before any host's change: a host that holds
	 * an earlier job's ends the job before anything is touched anywhere. */
	int rc = cl_fwd_changes_host(nm_boot_hosts(), R, fwd, me) ? cl_fwd_begin(f, CL_FWD_STATE_DIR, host, err,
										     sizeof err) : 0;
	nm_boot_check(rc == NM_EXIT_USAGE ? err : NULL, NM_EXIT_USAGE);
	if (!rc && f->janitor && cl_fwd_apply(f, all, nm_boot_hosts(), R, fwd, me, host, err, sizeof err) != 0)
		rc = NM_EXIT_FAIL;
	free(all);
	nm_boot_check(rc ? err : NULL, NM_EXIT_FAIL);
}

void cl_fwd_down(cl_fwd *f)
{
	char host[64] = "?", state[sizeof f->state];
	gethostname(host, sizeof host - 1);
	memcpy(state, f->state, sizeof state);
	int changes = f->changes, failed = cl_fwd_end(f);
	if (failed < 0)
		nm_warn("clover: the janitor that undoes this host's %d route and forwarding change(s) was killed, so "
			"they stay: run `netmem cleanup` on %s as root (%s lists them)", changes, host, state);
	else if (failed)
		nm_warn("clover: %d record(s) of this host's %d route and forwarding change(s) could not be undone; "
			"%s keeps them: see `netmem cleanup` on %s", failed, changes, state, host);
	nm_boot_barrier();
}

/* ---- the undo: the janitor's and netmem cleanup's ------------------------------------- */

typedef struct rec {
	bool undo;           /* an undo record, else a setting's value before the job */
	enum { R_SYSCTL, R_LRO, R_ROUTE } what;
	char key[128];       /* sysctl key, LRO's device, route's device */
	char val[32];        /* sysctl value, LRO 0/1, route's gateway */
	char dst[INET_ADDRSTRLEN];
} rec;

static bool int_ok(const char *s)
{
	s += *s == '-';
	size_t n = strspn(s, "0123456789");
	return n > 0 && n < 11 && !s[n];
}

/* A key the forwarder records: net/ipv4/conf/IF/(forwarding|...). */
static bool key_ok(const char *key)
{
	static const char pre[] = "net/ipv4/conf/";
	if (strncmp(key, pre, sizeof pre - 1))
		return false;
	const char *name = key + sizeof pre - 1, *slash = strchr(name, '/');
	char dev[IF_NAMESIZE + 1];
	if (!slash || slash - name > IF_NAMESIZE)
		return false;
	snprintf(dev, sizeof dev, "%.*s", (int)(slash - name), name);
	for (size_t k = 0; k < sizeof conf_keys / sizeof *conf_keys; k++)
		if (!strcmp(slash + 1, conf_keys[k]))
			return name_ok(dev);
	return false;
}

static bool ip_ok(const char *s)
{
	struct in_addr a;
	return inet_pton(AF_INET, s, &a) == 1;
}

/* One line of the state file: 0, or -1 when it is none of the records the
 * forwarder and the routes write (then it is not acted on). */
static int parse_rec(char *line, rec *r)
{
	char *save = NULL, *f[6] = {0};
	int n = 0;
	for (char *t = strtok_r(line, " \t", &save); t && n < 6; t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	*r = (rec){0};
	if (n < 4 || (strcmp(f[0], "undo") && strcmp(f[0], "keep")))
		return -1;
	r->undo = !strcmp(f[0], "undo");
	if (!strcmp(f[1], "sysctl") && n == 4 && key_ok(f[2]) && int_ok(f[3]) && strlen(f[3]) < sizeof r->val)
		r->what = R_SYSCTL;
	else if (!strcmp(f[1], "lro") && !r->undo && n == 4 && name_ok(f[2]) && (!strcmp(f[3], "0") || !strcmp(f[3], "1")))
		r->what = R_LRO;
	else if (!strcmp(f[1], "route") && r->undo && n == 5 && ip_ok(f[2]) && ip_ok(f[3]) && name_ok(f[4]))
		r->what = R_ROUTE;
	else
		return -1;
	snprintf(r->key, sizeof r->key, "%s", r->what == R_ROUTE ? f[4] : f[2]);
	snprintf(r->val, sizeof r->val, "%s", f[3]);
	if (r->what == R_ROUTE)
		snprintf(r->dst, sizeof r->dst, "%s", f[2]);
	return 0;
}

static bool gone(int e) { return e == ENOENT || e == ENODEV || e == ENXIO; }

/* A setting back to r->val when it is not: 0 (also when its interface is
 * gone: nothing left to restore), 1 when it was set, -1 on failure. */
static int restore(const rec *r, FILE *say)
{
	char cur[32];
	if (r->what == R_LRO) {
		int on = lro_get(r->key);
		if (on < 0)
			return gone(errno) ? 0 : -1;
		if (on == atoi(r->val))
			return 0;
		if (lro_set(r->key, atoi(r->val)) != 0)
			return -1;
		if (say)
			fprintf(say, "netmem cleanup: LRO of %s: %s -> %s\n", r->key, on ? "on" : "off",
				atoi(r->val) ? "on" : "off");
		return 1;
	}
	if (sysctl_get(r->key, cur, sizeof cur) != 0)
		return gone(errno) ? 0 : -1;
	if (!strcmp(cur, r->val))
		return 0;
	if (sysctl_set(r->key, r->val) != 0)
		return -1;
	if (say)
		fprintf(say, "netmem cleanup: %s: %s -> %s\n", r->key, cur, r->val);
	return 1;
}

/* A route this job added, deleted: only one with its proto (an equal route
 * of someone else's carries another). One that is not there, or whose
 * device is gone, was never added or went already: nothing to undo. */
static int unroute(const rec *r, FILE *say)
{
	char dst32[24], proto[8], out[256];
	snprintf(dst32, sizeof dst32, "%s/32", r->dst);
	snprintf(proto, sizeof proto, "%d", CL_FWD_RTPROTO);
	char *const argv[] = {"ip", "-4", "route", "del", dst32, "via", (char *)r->val, "dev", (char *)r->key, "proto",
			      proto, NULL};
	if (run(argv, out, sizeof out) == 0) {
		if (say)
			fprintf(say, "netmem cleanup: route %s via %s dev %s deleted\n", dst32, r->val, r->key);
		return 0;
	}
	if (strstr(out, "No such process") || strstr(out, "Cannot find device") || strstr(out, "No such device"))
		return 0;
	if (say)
		fprintf(say, "netmem cleanup: route %s via %s dev %s: cannot delete it: %s\n", dst32, r->val, r->key, out);
	return -1;
}

int cl_fwd_undo_file(int fd, FILE *say)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size > (1 << 24))
		return 1;
	size_t size = (size_t)st.st_size;
	char *text = nm_malloc(size + 1);
	size_t got = 0;
	/* pread: the janitor's descriptor shares its offset with the rank's appends */
	while (got < size) {
		ssize_t n = pread(fd, text + got, size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	text[got] = 0;
	int failed = 0, n = 0, cap = 64, lineno = 0;
	rec *rs = nm_malloc((size_t)cap * sizeof *rs);
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = 0;   /* a last line without its newline was cut short: a change not made yet */
		lineno++;
		if (!line[strspn(line, " \t")] || line[0] == '#')
			continue;
		if (n == cap)
			rs = nm_realloc(rs, (size_t)(cap *= 2) * sizeof *rs);
		char copy[256];
		snprintf(copy, sizeof copy, "%s", line);
		if (parse_rec(copy, &rs[n]) == 0) {
			n++;
		} else {
			failed++;
			if (say)
				fprintf(say, "netmem cleanup: line %d is no record of this suite's, left as it is: %.200s\n",
					lineno, line);
		}
	}
	/* The job's own changes, newest first. */
	for (int i = n - 1; i >= 0; i--) {
		if (!rs[i].undo)
			continue;
		int rc = rs[i].what == R_ROUTE ? unroute(&rs[i], say) : restore(&rs[i], say);
		if (rc < 0) {
			failed++;
			if (say && rs[i].what != R_ROUTE)
				fprintf(say, "netmem cleanup: %s: cannot set it back to %s: %s\n", rs[i].key, rs[i].val,
					strerror(errno));
		}
	}
	/* Then every setting as it was before the job, side effects of the
	 * changes and of their undoing included, until a pass moves nothing:
	 * putting all/forwarding back moves every interface's forwarding and
	 * all/accept_redirects, which the next pass puts back in turn. */
	for (int pass = 0; pass < 4; pass++) {
		int moved = 0;
		for (int i = 0; i < n; i++)
			if (!rs[i].undo)
				moved += restore(&rs[i], say) > 0;
		if (!moved)
			break;
	}
	for (int i = 0; i < n; i++)
		if (!rs[i].undo && restore(&rs[i], NULL) != 0) {
			failed++;
			if (say)
				fprintf(say, "netmem cleanup: %s%s: cannot set it back to %s\n", rs[i].what == R_LRO ? "LRO of " : "",
					rs[i].key, rs[i].val);
		}
	free(rs);
	free(text);
	return failed;
}

/* Removes `path` when it is still the file open on fd (not one a later job
 * made): 0, also when it is not; -1 when it cannot be removed. */
static int unlink_same(const char *path, int fd)
{
	struct stat a, b;
	if (fstat(fd, &a) != 0 || lstat(path, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return 0;
	return unlink(path);
}

int cl_fwd_cleanup_dir(const char *dir, FILE *say, char *err, size_t len)
{
	char path[192];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, CL_FWD_STATE_NAME);
	if (lstat(dir, &st) != 0) {
		if (errno != ENOENT)
			return nm_errf(err, len, "cannot read %s: %s", dir, strerror(errno)), NM_EXIT_USAGE;
		if (say)
			fprintf(say, "netmem cleanup: nothing to undo (no %s)\n", path);
		return 0;
	}
	if (geteuid() != 0 && (st.st_uid != geteuid() || access(dir, R_OK | X_OK) != 0))
		return nm_errf(err, len, "%s is root's: run netmem cleanup as root", dir), NM_EXIT_USAGE;
	/* its records are acted on as root: only root may have written them */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return nm_errf(err, len, "%s is not a directory only its owner, this user, can use: its contents are not "
			       "acted on", dir), NM_EXIT_USAGE;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (say)
			fprintf(say, "netmem cleanup: nothing to undo (no %s)\n", path);
		return 0;
	}
	if (fd < 0)
		return nm_errf(err, len, "cannot open %s: %s", path,
			       errno == ELOOP ? "it is a symbolic link" : strerror(errno)), NM_EXIT_USAGE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return nm_errf(err, len, "%s is not a regular file only its owner, this user, can write: not acted on",
			       path), NM_EXIT_USAGE;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		close(fd);
		if (e == EWOULDBLOCK)
			return nm_errf(err, len, "a running job's janitor holds %s: it undoes those changes itself when "
				       "that job's point ends", path), NM_EXIT_FAIL;
		return nm_errf(err, len, "cannot lock %s: %s", path, strerror(e)), NM_EXIT_FAIL;
	}
	int failed = cl_fwd_undo_file(fd, say), rc = 0;
	if (failed)
		rc = nm_errf(err, len, "%d record(s) of %s could not be undone (said above); it stays", failed, path);
	else if (unlink_same(path, fd) != 0)
		rc = nm_errf(err, len, "cannot remove %s: %s", path, strerror(errno));
	else if (say)
		fprintf(say, "netmem cleanup: every change undone; %s removed\n", path);
	close(fd);
	return rc ? NM_EXIT_FAIL : 0;
}

static volatile sig_atomic_t janitor_stop;
static void on_stop(int sig) { (void)sig, janitor_stop = 1; }

/* The janitor: waits for its pipe from the rank to close, then undoes the
 * state file on descriptor 3 (whose lock it holds) and removes it when all
 * of it is undone. SIGTERM (a session's cleanup), SIGINT or SIGHUP: undo at
 * once, before the SIGKILL that usually follows. Its exit status is the
 * number of records it could not undo (at most 100). */
static int janitor(const char *path)
{
	struct stat st;
	if (fstat(3, &st) != 0 || !S_ISREG(st.st_mode))
		nm_usage_error("cleanup --janitor: no state file is open on descriptor 3 (a job starts its janitor "
			       "itself; to undo a killed one's changes, run netmem cleanup)");
	/* test-only: hold here, before the handlers, as a loaded host may
	 * (tests/cli/test_clover_route_ns.sh signals it during this) */
	const char *late = getenv("NETMEM_TEST_JANITOR_LATE_MS");
	if (late)
		usleep((useconds_t)strtoul(late, NULL, 10) * 1000u);
	struct sigaction sa = {.sa_handler = on_stop};   /* no SA_RESTART: read returns */
	sigset_t set;
	sigemptyset(&set);
	const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);   /* janitor_start blocked them: one pending is taken now */
	char buf[256];
	while (!janitor_stop) {
		ssize_t n = read(0, buf, sizeof buf);
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	int failed = cl_fwd_undo_file(3, stdout);
	if (!failed && unlink_same(path, 3) != 0)
		failed = 1;
	return failed > 100 ? 100 : failed;
}

static void cleanup_usage(void)
{
	printf("Usage: netmem cleanup\n\n"
	       "Undoes what a `netmem clover --path forward` job changed on this host when its\n"
	       "janitor, which undoes it at each point's end, was killed first: the routes\n"
	       "the job added (proto %d), the forwarding host's per-interface forwarding and\n"
	       "ICMP redirect settings, and every setting those changes moved in turn\n"
	       "(conf/all/accept_redirects, other interfaces' forwarding, LRO), each back to\n"
	       "its value before the job, as %s lists them. It says\n"
	       "what it undid and removes the file once everything is undone. Run it as root\n"
	       "on each host a job names: until then a --path forward job refuses to start\n"
	       "there. A file a running job's janitor still holds is left to it.\n\n"
	       "Exit status: 0 when nothing is left to undo, 1 when something could not be\n"
	       "undone (the file stays), 2 on bad input or without root.\n\n"
	       "  -h, --help          this text\n"
	       "      --janitor FILE  what a job's janitor runs (netmem clover starts it): wait\n"
	       "                      until standard input closes, then undo the state file\n"
	       "                      open on descriptor 3 and remove FILE if it is that file\n",
	       CL_FWD_RTPROTO, CL_FWD_STATE);
}

int cl_fwd_cleanup_main(int argc, char **argv)
{
	const char *jpath = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cleanup_usage();
			return 0;
		} else if (!strcmp(argv[i], "--janitor") && i + 1 < argc) {
			jpath = argv[++i];
		} else if (!strcmp(argv[i], "--janitor")) {
			nm_usage_error("cleanup: --janitor needs the state file's path (see netmem cleanup --help)");
		} else {
			nm_usage_error("cleanup: unexpected argument '%s' (see netmem cleanup --help)", argv[i]);
		}
	}
	if (jpath)
		return janitor(jpath);
	char err[512] = "";
	int rc = cl_fwd_cleanup_dir(CL_FWD_STATE_DIR, stdout, err, sizeof err);
	fflush(stdout);
	if (rc == NM_EXIT_USAGE)
		nm_usage_error("cleanup: %s", err);
	if (rc)
		fprintf(stderr, "netmem: cleanup: %s\n", err);
	return rc;
}
