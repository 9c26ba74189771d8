/* netmem clover --path forward: routes through a forwarding host, undone by
 * a janitor that outlives the rank (see clover_route.h). Changes are made
 * with iproute2 and /proc/sys, as an administrator would make them by hand,
 * so `ip route` on any host shows exactly what the job added. */
#include "clover_route.h"
#include "alloc.h"
#include "boot.h"
#include "log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The janitor: collects undo commands until its stdin closes, then runs
 * them newest first, each in a subshell (one that exits ends only itself);
 * its exit status counts those that failed. */
static const char janitor_sh[] =
	"u=; while IFS= read -r l; do u=\"$l\n$u\"; done\n"
	"f=0\n"
	"while IFS= read -r l; do [ -z \"$l\" ] || (eval \"$l\") || f=$((f + 1)); done <<EOF\n$u\nEOF\n"
	"exit $f\n";

static void ip_str(uint32_t a, char *out) { inet_ntop(AF_INET, &a, out, INET_ADDRSTRLEN); }

static int prefix_len(uint32_t mask) { return __builtin_popcount(mask); }

/* The IPv4 addresses of this host (loopback aside): all of them, or only
 * the one equal to `only` (when non-zero). */
static void host_addrs(cl_fwd_addrs *a, uint32_t only)
{
	struct ifaddrs *ifs, *i;
	memset(a, 0, sizeof *a);
	if (getifaddrs(&ifs) != 0)
		return;
	for (i = ifs; i && a->n < CL_FWD_ADDRS; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		uint32_t ad = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
		if (only && ad != only)
			continue;
		a->addr[a->n] = ad;
		a->mask[a->n] = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;
		snprintf(a->dev[a->n], IF_NAMESIZE, "%s", i->ifa_name);
		a->n++;
	}
	freeifaddrs(ifs);
}

/* Runs a shell command; its first line of output (stderr included) in out. */
static int sh(const char *cmd, char *out, size_t len)
{
	char full[1024];
	snprintf(full, sizeof full, "%s 2>&1", cmd);
	FILE *p = popen(full, "r");
	out[0] = 0;
	if (!p)
		return snprintf(out, len, "%s", strerror(errno)), -1;
	if (fgets(out, (int)len, p))
		out[strcspn(out, "\n")] = 0;
	char sink[256];
	while (fgets(sink, sizeof sink, p))
		;
	int st = pclose(p);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The janitor in a session of its own, holding nothing of ours but the
 * pipe: the rank's death closes its last writer. */
static int janitor_start(cl_fwd *f)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return close(p[0]), close(p[1]), -1;
	if (pid == 0) {   /* only async-signal-safe calls until exec */
		setsid();
		int null = open("/dev/null", O_RDWR);
		dup2(p[0], 0);
		dup2(null, 1);
		dup2(null, 2);
		if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
			for (int fd = 3; fd < 65536; fd++)
				close(fd);
		execl("/bin/sh", "sh", "-c", janitor_sh, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	f->janitor = pid;
	f->undo_fd = p[1];
	return 0;
}

/* Hands the janitor a change's undo before the change is made: a change
 * the rank dies in the middle of is undone too (an undo of nothing fails
 * harmlessly). */
int cl_fwd_undo_first(cl_fwd *f, const char *undo)
{
	if (!f->janitor && janitor_start(f) != 0)
		return -1;
	size_t n = strlen(undo);
	if (write(f->undo_fd, undo, n) != (ssize_t)n || write(f->undo_fd, "\n", 1) != 1)
		return -1;
	f->changes++;
	return 0;
}

static int proc_write(cl_fwd *f, const char *path, const char *val, char *err, size_t len, const char *host)
{
	char old[32] = "", undo[512];
	FILE *r = fopen(path, "r");
	if (!r || !fgets(old, sizeof old, r)) {
		if (r)
			fclose(r);
		return nm_errf(err, len, "forwarding host %s: cannot read %s: %s", host, path, strerror(errno));
	}
	fclose(r);
	old[strcspn(old, "\n")] = 0;
	if (!strcmp(old, val))
		return 0;
	snprintf(undo, sizeof undo, "echo %s > %s", old, path);
	if (cl_fwd_undo_first(f, undo) != 0)
		return nm_errf(err, len, "forwarding host %s: cannot start the janitor that undoes changes: %s", host,
			       strerror(errno));
	FILE *w = fopen(path, "w");
	if (!w || fprintf(w, "%s\n", val) < 0 || fclose(w) != 0)
		return nm_errf(err, len, "forwarding host %s: cannot set %s to %s: %s (the forwarder layout needs root)",
			       host, path, val, strerror(errno));
	return 0;
}

/* The forwarder: IPv4 forwarding on, ICMP redirects off everywhere. */
static int forwarder_up(cl_fwd *f, const cl_fwd_addrs *mine, const char *host, char *err, size_t len)
{
	char path[128];
	if (proc_write(f, "/proc/sys/net/ipv4/ip_forward", "1", err, len, host) ||
	    proc_write(f, "/proc/sys/net/ipv4/conf/all/send_redirects", "0", err, len, host))
		return -1;
	for (uint32_t i = 0; i < mine->n; i++) {
		snprintf(path, sizeof path, "/proc/sys/net/ipv4/conf/%s/send_redirects", mine->dev[i]);
		if (proc_write(f, path, "0", err, len, host))
			return -1;
	}
	return 0;
}

int cl_fwd_plan(const cl_fwd_addrs *all, const uint64_t *hosts, int R, int fwd, int me, cl_route *out, int max,
		char *err, size_t len)
{
	for (int r = 0; r < me; r++)
		if (r != fwd && hosts[r] == hosts[me])
			return 0;   /* the host's lowest rank routes for it */
	if (me == fwd)
		return 0;
	const cl_fwd_addrs *a = &all[me], *fa = &all[fwd];
	uint32_t via = 0;
	for (uint32_t i = 0; i < fa->n && !via; i++)
		if ((fa->addr[i] & a->mask[0]) == (a->addr[0] & a->mask[0]))
			via = fa->addr[i];
	if (!via) {
		char mine[INET_ADDRSTRLEN];
		ip_str(a->addr[0], mine);
		return nm_errf(err, len, "rank %d: the forwarding host (rank %d) has no address on the link of this host's "
			       "RDMA address %s/%d (%s): give it one there", me, fwd, mine, prefix_len(a->mask[0]),
			       a->dev[0]);
	}
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

/* A host's lowest rank: its planned routes, each undo handed over first. */
static int endpoint_up(cl_fwd *f, const cl_fwd_addrs *all, int fwd, const char *host, char *err, size_t len)
{
	int me = nm_boot_rank(), R = nm_boot_size();
	cl_route *rt = nm_calloc((size_t)R, sizeof *rt);
	char gw[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN], cmd[512], out[256];
	char perr[512] = "";
	int n = cl_fwd_plan(all, nm_boot_hosts(), R, fwd, me, rt, R, perr, sizeof perr), rc = 0;
	if (n < 0)
		rc = nm_errf(err, len, "%s (host %s)", perr, host);
	if (n > 0 && strchr(rt[0].dev, '\''))
		n = rc = nm_errf(err, len, "rank %d (host %s): netdev name %s cannot be quoted", me, host, rt[0].dev);
	for (int i = 0; i < n && !rc; i++) {
		ip_str(rt[i].dst, dst);
		ip_str(rt[i].via, gw);
		snprintf(cmd, sizeof cmd, "ip -4 route del %s/32 via %s dev '%s'", dst, gw, rt[i].dev);
		if (cl_fwd_undo_first(f, cmd) != 0) {
			rc = nm_errf(err, len, "rank %d (host %s): cannot start the janitor that undoes changes: %s", me,
				     host, strerror(errno));
			break;
		}
		snprintf(cmd, sizeof cmd, "ip -4 route add %s/32 via %s dev '%s'", dst, gw, rt[i].dev);
		if (sh(cmd, out, sizeof out) != 0)
			rc = nm_errf(err, len, "rank %d (host %s): `%s` failed: %s%s", me, host, cmd, out,
				     strstr(out, "File exists") ? " (a route to that address is already there: remove it)"
				     : strstr(out, "not permitted") ? " (the forwarder layout needs root)" : "");
	}
	free(rt);
	return rc;
}

void cl_fwd_up(cl_fwd *f, const char *rdma, const char *devname, int fwd)
{
	int me = nm_boot_rank(), R = nm_boot_size();
	char err[768] = "", host[64] = "?";
	gethostname(host, sizeof host - 1);
	*f = (cl_fwd){.undo_fd = -1};
	signal(SIGPIPE, SIG_IGN);   /* a janitor gone early is an error to report, not a death */
	cl_fwd_addrs mine, *all = nm_calloc((size_t)R, sizeof *all);
	host_addrs(&mine, me == fwd ? 0 : rdma ? inet_addr(rdma) : INADDR_NONE);
	if (me != fwd && !rdma)
		nm_errf(err, sizeof err, "rank %d (host %s): %s is InfiniBand: --path forward routes RoCEv2's IP packets "
			"through the forwarding host, and InfiniBand's never cross a host's IP stack", me, host, devname);
	else if (me != fwd && (!*rdma || mine.n == 0))
		nm_errf(err, sizeof err, "rank %d (host %s): %s has no IPv4 address to route (the forwarder layout is "
			"RoCEv2 over IPv4)", me, host, devname);
	nm_boot_allgather(&mine, all, sizeof mine);
	if (!err[0] && me == fwd)
		forwarder_up(f, &mine, host, err, sizeof err);
	else if (!err[0])   /* the plan routes on a host's lowest rank only */
		endpoint_up(f, all, fwd, host, err, sizeof err);
	free(all);
	nm_boot_check(err[0] ? err : NULL, NM_EXIT_FAIL);
}

int cl_fwd_undo_all(cl_fwd *f)
{
	if (!f->janitor)
		return 0;
	close(f->undo_fd);
	int st = 0;
	while (waitpid(f->janitor, &st, 0) < 0 && errno == EINTR)
		;
	*f = (cl_fwd){.undo_fd = -1};
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void cl_fwd_down(cl_fwd *f)
{
	int changes = f->changes, failed = cl_fwd_undo_all(f);
	if (failed)
		nm_warn("clover: rank %d: %d of its %d route and forwarding change(s) could not be undone; "
			"check `ip route` and /proc/sys/net/ipv4 on this host", nm_boot_rank(),
			failed < 0 ? changes : failed, changes);
	nm_boot_barrier();
}
