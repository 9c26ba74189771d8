/* netmem clover --path forward (workloads/clover/clover_route.h): which
 * routes each host adds and which interfaces the forwarder forwards on, for
 * the layouts a reservation has (two subnets joined by the forwarder, one
 * LAN beside a control network), the refusal when the forwarder is not on a
 * host's link or a device is not RoCEv2, and the state file: made safely,
 * refused when an earlier job's is there (naming netmem cleanup), its
 * records read back strictly, removed by the janitor when the rank dies and
 * left for netmem cleanup when the janitor dies first.
 *
 * Run with arguments it is also what tests/cli/test_clover_route_ns.sh
 * drives in network namespaces: `cleanup ...` is netmem cleanup (the janitor
 * this binary starts runs it), `forwarder`, `endpoint`, `udp-echo` and
 * `udp-ask` are one host's part of a job and a probe across the forwarder. */
#include "tap.h"
#include "clover_route.h"
#include "log.h"
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void one(cl_fwd_addrs *a, const char *ip, const char *mask, const char *dev)
{
	a->addr[a->n] = inet_addr(ip);
	a->mask[a->n] = inet_addr(mask);
	snprintf(a->dev[a->n], sizeof a->dev[a->n], "%s", dev);
	a->n++;
}

static bool is_route(const cl_route *r, const char *dst, const char *via, const char *dev)
{
	return r->dst == inet_addr(dst) && r->via == inet_addr(via) && !strcmp(r->dev, dev);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

/* The test VM's layout: ranks 0-2 on host A (10.77.1.1/24), the memory node
 * on B (10.77.2.1/24), the forwarder (rank 4) on both links. */
static void two_subnets(void)
{
	cl_fwd_addrs all[5] = {0};
	uint64_t hosts[5] = {1, 1, 1, 2, 3};
	for (int r = 0; r < 3; r++)
		one(&all[r], "10.77.1.1", "255.255.255.0", "eth0");
	one(&all[3], "10.77.2.1", "255.255.255.0", "ens1");
	one(&all[4], "10.77.1.254", "255.255.255.0", "eth0");
	one(&all[4], "10.77.2.254", "255.255.255.0", "eth1");
	cl_route rt[5];
	char err[256] = "", ifs[4][IF_NAMESIZE];
	int n = cl_fwd_plan(all, hosts, 5, 4, 0, rt, 5, err, sizeof err);
	CHECK(n == 1 && is_route(&rt[0], "10.77.2.1", "10.77.1.254", "eth0"),
	      "host A's lowest rank: the memory node's address via the forwarder's on A's link (%d route(s) %s)", n, err);
	CHECK(cl_fwd_plan(all, hosts, 5, 4, 1, rt, 5, err, sizeof err) == 0 &&
	      cl_fwd_plan(all, hosts, 5, 4, 2, rt, 5, err, sizeof err) == 0, "A's other ranks add nothing");
	n = cl_fwd_plan(all, hosts, 5, 4, 3, rt, 5, err, sizeof err);
	CHECK(n == 1 && is_route(&rt[0], "10.77.1.1", "10.77.2.254", "ens1"),
	      "host B: A's address, once for its three ranks, via the forwarder's address on B's link (%d)", n);
	CHECK(cl_fwd_plan(all, hosts, 5, 4, 4, rt, 5, err, sizeof err) == 0, "the forwarder adds no route");
	n = cl_fwd_ifaces(all, 5, 4, ifs, 4);
	CHECK(n == 2 && !strcmp(ifs[0], "eth0") && !strcmp(ifs[1], "eth1"),
	      "the forwarder forwards on both links' interfaces, each once (%d)", n);
	CHECK(cl_fwd_changes_host(hosts, 5, 4, 0) && !cl_fwd_changes_host(hosts, 5, 4, 1) &&
	      cl_fwd_changes_host(hosts, 5, 4, 3) && cl_fwd_changes_host(hosts, 5, 4, 4),
	      "a host's lowest rank and the forwarder change their hosts, no other rank does");

	all[4].n = 1;   /* the forwarder on A's link only */
	err[0] = 0;
	n = cl_fwd_plan(all, hosts, 5, 4, 3, rt, 5, err, sizeof err);
	CHECK(n == -1 && strstr(err, "rank 3") && strstr(err, "10.77.2.1/24") && strstr(err, "ens1"),
	      "a forwarder with no address on B's link: refused, naming the rank and its address (%s)", err);
	n = cl_fwd_ifaces(all, 5, 4, ifs, 4);
	CHECK(n == 1 && !strcmp(ifs[0], "eth0"), "... and it would forward on A's link only (%d)", n);
}

/* One LAN (a CloudLab experiment network): three hosts and the forwarder on
 * 10.10.1.0/24, the forwarder's control network on eno1. Each host routes
 * the two others through it; it forwards on the LAN's interface only. */
static void one_lan(void)
{
	cl_fwd_addrs all[4] = {0};
	uint64_t hosts[4] = {7, 8, 9, 6};
	one(&all[0], "10.10.1.1", "255.255.255.0", "enp65s0f0");
	one(&all[1], "10.10.1.2", "255.255.255.0", "enp65s0f0");
	one(&all[2], "10.10.1.3", "255.255.255.0", "enp65s0f0");
	one(&all[3], "128.110.0.9", "255.255.252.0", "eno1");   /* the control network comes first */
	one(&all[3], "10.10.1.4", "255.255.255.0", "enp65s0f1");
	cl_route rt[4];
	char err[256] = "", ifs[4][IF_NAMESIZE];
	int n = cl_fwd_plan(all, hosts, 4, 3, 1, rt, 4, err, sizeof err);
	CHECK(n == 2 && is_route(&rt[0], "10.10.1.1", "10.10.1.4", "enp65s0f0") &&
	      is_route(&rt[1], "10.10.1.3", "10.10.1.4", "enp65s0f0"),
	      "one LAN: the two other hosts, via the forwarder's address on the LAN, not its control one (%d)", n);
	CHECK(cl_fwd_plan(all, hosts, 4, 3, 1, rt, 1, err, sizeof err) == -1, "more routes than room: refused");
	n = cl_fwd_ifaces(all, 4, 3, ifs, 4);
	CHECK(n == 1 && !strcmp(ifs[0], "enp65s0f1"),
	      "one LAN: forwarding on the LAN's interface only, never the control network's (%d: %s)", n, ifs[0]);
}

/* Only RoCEv2 crosses an IP route: InfiniBand and RoCEv1 are refused in one
 * line naming the rank, host and device. */
static void links(void)
{
	int rc;
	char err[512] = "";
	CHECK(cl_fwd_link_of(true, true, IBV_GID_TYPE_ROCE_V2) == CL_LINK_ROCE_V2 &&
	      cl_fwd_link_of(true, true, IBV_GID_TYPE_ROCE_V1) == CL_LINK_ROCE_V1 &&
	      cl_fwd_link_of(true, true, -1) == CL_LINK_UNKNOWN && cl_fwd_link_of(true, false, IBV_GID_TYPE_IB) == CL_LINK_IB &&
	      cl_fwd_link_of(false, false, -1) == CL_LINK_NONE,
	      "the link from the chosen GID's type: RoCEv2, RoCEv1, unreadable, InfiniBand, no device");
	rc = cl_fwd_link_ok(cl_fwd_link_of(true, true, IBV_GID_TYPE_ROCE_V1), 2, "h2", "mlx4_0", err, sizeof err);
	CHECK(rc == -1 && strstr(err, "RoCEv1"), "a RoCEv1 GID on Ethernet: refused");
	CHECK(cl_fwd_link_ok(CL_LINK_ROCE_V2, 1, "h1", "mlx5_0", err, sizeof err) == 0 &&
	      cl_fwd_link_ok(CL_LINK_NONE, 4, "hf", "", err, sizeof err) == 0,
	      "RoCEv2, and the forwarder without a device: accepted");
	rc = cl_fwd_link_ok(CL_LINK_ROCE_V1, 2, "h2", "mlx4_0", err, sizeof err);
	CHECK(rc == -1 && strstr(err, "rank 2 (host h2)") && strstr(err, "mlx4_0") && strstr(err, "RoCEv1") &&
	      strstr(err, "no IP header") && !strchr(err, '\n'),
	      "RoCEv1: refused in one line, naming the device and why (%s)", err);
	rc = cl_fwd_link_ok(CL_LINK_IB, 0, "h0", "mlx5_1", err, sizeof err);
	CHECK(rc == -1 && strstr(err, "mlx5_1 is InfiniBand"), "InfiniBand: refused (%s)", err);
	rc = cl_fwd_link_ok(CL_LINK_UNKNOWN, 0, "h0", "mlx5_2", err, sizeof err);
	CHECK(rc == -1 && strstr(err, "mlx5_2") && strstr(err, "RoCEv2"), "a GID type that cannot be read: refused (%s)",
	      err);
}

static char sysctl_now[32];   /* net/ipv4/conf/all/forwarding here: a record whose undo writes nothing */

static int wait_gone(const char *path)
{
	for (int i = 0; i < 500 && access(path, F_OK) == 0; i++)
		usleep(10000);
	return access(path, F_OK) != 0;
}

/* The state file: made in a directory only its owner can use, one job at a
 * time, its records undone and the file removed by the janitor; a killed
 * janitor leaves it, the next begin refuses naming netmem cleanup, and
 * netmem cleanup removes it. Without root: every record here finds its
 * setting as it wants it, so its undo writes nothing. */
static void state_file(void)
{
	char dir[] = "/tmp/netmem-test-state-XXXXXX", state[128], err[512] = "", rec[128];
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(state, sizeof state, "%s/%s", dir, CL_FWD_STATE_NAME);
	snprintf(rec, sizeof rec, "undo sysctl net/ipv4/conf/all/forwarding %s", sysctl_now);
	cl_fwd f, g;
	struct stat st;
	int rc = cl_fwd_begin(&f, dir, "h", err, sizeof err);
	CHECK(rc == 0 && f.janitor > 0 && stat(state, &st) == 0 && (st.st_mode & 0777) == 0600,
	      "begin: the state file, 0600, and its janitor (%d %s)", rc, err);
	CHECK(cl_fwd_record(&f, rec) == 0 && cl_fwd_record(&f, "undo route 10.0.0.1 10.0.0.254 eth9") == 0 &&
	      cl_fwd_unrecord(&f) == 0 && f.changes == 1 && strstr(slurp(state), rec) && !strstr(slurp(state), "eth9"),
	      "records appended; the newest dropped (a change that was not made) leaves no trace (%d)", f.changes);
	rc = cl_fwd_begin(&g, dir, "h", err, sizeof err);
	CHECK(rc == NM_EXIT_USAGE && strstr(err, "another job") && !strstr(err, "netmem cleanup"),
	      "a second job while the first runs: refused, exit 2, told to wait (%s)", err);
	CHECK(cl_fwd_end(&f) == 0 && access(state, F_OK) != 0, "the point's end: undone, the state file removed");

	/* The janitor killed: the file stays, the next begin names netmem cleanup. */
	rc = cl_fwd_begin(&f, dir, "h", err, sizeof err);
	if (rc == 0 && f.janitor > 0) {   /* never kill(0): that is this whole process group */
		cl_fwd_record(&f, rec);
		kill(f.janitor, SIGKILL);
	}
	CHECK(rc == 0 && cl_fwd_end(&f) == -1 && access(state, F_OK) == 0,
	      "the janitor SIGKILLed: its end says so and the state file stays (%s)", err);
	rc = cl_fwd_begin(&g, dir, "hostx", err, sizeof err);
	CHECK(rc == NM_EXIT_USAGE && strstr(err, "`netmem cleanup`") && strstr(err, "hostx") && !strchr(err, '\n'),
	      "the next job: refused, exit 2, one line naming the host and netmem cleanup (%s)", err);
	rc = cl_fwd_cleanup_dir(dir, NULL, err, sizeof err);
	CHECK(rc == 0 && access(state, F_OK) != 0, "netmem cleanup undoes it and removes the file (%d %s)", rc, err);
	CHECK(cl_fwd_cleanup_dir(dir, NULL, err, sizeof err) == 0, "netmem cleanup with nothing left: nothing to do");

	/* The rank killed: its janitor undoes on its own and removes the file. */
	pid_t child = fork();
	if (child == 0) {
		cl_fwd h;
		char e2[512];
		if (cl_fwd_begin(&h, dir, "h", e2, sizeof e2) == 0)
			cl_fwd_record(&h, rec);
		raise(SIGKILL);
	}
	int wst;
	waitpid(child, &wst, 0);
	CHECK(WIFSIGNALED(wst) && wait_gone(state), "a rank killed by SIGKILL: its janitor still undoes and removes the file");

	/* A record that is none of ours is not acted on: counted, the file kept. */
	rc = cl_fwd_begin(&f, dir, "h", err, sizeof err);
	cl_fwd_record(&f, "undo sysctl ../../../etc/passwd 1");
	CHECK(rc == 0 && cl_fwd_end(&f) == 1 && access(state, F_OK) == 0,
	      "a record the janitor cannot undo: counted, the file stays");
	rc = cl_fwd_cleanup_dir(dir, NULL, err, sizeof err);
	CHECK(rc == NM_EXIT_FAIL && strstr(err, "could not be undone") && access(state, F_OK) == 0,
	      "... and netmem cleanup says so and keeps it (%s)", err);
	unlink(state);

	/* A symbolic link where the file goes is neither followed nor removed. */
	CHECK(symlink("/etc/hostname", state) == 0, "symlink");
	rc = cl_fwd_cleanup_dir(dir, NULL, err, sizeof err);
	CHECK(rc == NM_EXIT_USAGE && strstr(err, "symbolic link") && access(state, F_OK) == 0,
	      "netmem cleanup on a symbolic link: refused, left alone (%s)", err);
	rc = cl_fwd_begin(&f, dir, "h", err, sizeof err);
	CHECK(rc == NM_EXIT_USAGE, "begin where a symbolic link is: refused (%s)", err);
	unlink(state);

	/* A directory others can use is not trusted. */
	chmod(dir, 0755);
	rc = cl_fwd_begin(&f, dir, "h", err, sizeof err);
	CHECK(rc == NM_EXIT_FAIL && strstr(err, "only its owner"), "begin in a directory others can use: refused (%s)", err);
	rc = cl_fwd_cleanup_dir(dir, NULL, err, sizeof err);
	CHECK(rc == NM_EXIT_USAGE, "netmem cleanup there: refused (%s)", err);
	rmdir(dir);
}

/* The undo reads records strictly: a key outside the forwarder's settings,
 * a device name with a separator, a route without a valid address are not
 * acted on; a last line cut short (a write the rank died in) is skipped. */
static void records(void)
{
	char path[] = "/tmp/netmem-test-records-XXXXXX", text[1024];
	int fd = mkstemp(path);
	snprintf(text, sizeof text,
		 "# header\n"
		 "keep sysctl net/ipv4/conf/all/forwarding %s\n"
		 "undo sysctl net/ipv4/conf/nosuchif0/forwarding 1\n"   /* its interface gone: nothing to restore */
		 "keep lro nosuchif0 1\n"
		 "undo sysctl net/ipv4/conf/all/forwarding %s\n"
		 "undo sysctl net/ipv4/conf/all/forwarding", sysctl_now, sysctl_now);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write %s", path);
	CHECK(cl_fwd_undo_file(fd, NULL) == 0, "well-formed records, a gone interface, a cut last line: nothing fails");
	const char *bad[] = {"undo sysctl net/ipv4/conf/../../../etc/x/forwarding 1\n",
			     "undo sysctl net/ipv4/conf/all/rp_filter 1\n", "keep lro eth0:1 1\n",
			     "undo route 10.0.0.1 10.0.0 eth0\n", "undo route 10.0.0.1 10.0.0.2 a/b\n",
			     "keep route 10.0.0.1 10.0.0.2 eth0\n", "undo sysctl net/ipv4/conf/all/forwarding 1;reboot\n",
			     "rm -rf /\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, bad[i], strlen(bad[i]), 0) == (ssize_t)strlen(bad[i]), "rewrite");
		CHECK(cl_fwd_undo_file(fd, NULL) == 1, "not acted on, counted: %.*s", (int)strlen(bad[i]) - 1, bad[i]);
	}
	close(fd);
	unlink(path);
}

static void host_addrs(void)
{
	cl_fwd_addrs a;
	int rc = cl_fwd_host_addrs(&a, 0);
	bool lo = false;
	for (uint32_t i = 0; i < a.n; i++)
		lo |= (ntohl(a.addr[i]) >> 24) == 127 || strchr(a.dev[i], ':');
	CHECK(rc == 0 && !lo, "this host's addresses: listed, loopback left out, device names only (%u)", a.n);
	rc = cl_fwd_host_addrs(&a, inet_addr("192.0.2.77"));
	CHECK(rc == 0 && a.n == 0, "an address this host does not have: none");
}

/* ---- the namespace test's driver --------------------------------------------------------- */

static int prefix(const char *arg, uint32_t *addr, uint32_t *mask)
{
	char ip[32];
	int len = 32;
	if (sscanf(arg, "%31[0-9.]/%d", ip, &len) < 1 || len < 0 || len > 32)
		return -1;
	*addr = inet_addr(ip);
	*mask = len ? htonl(~0u << (32 - len)) : 0;
	return 0;
}

/* Until standard input closes: the test holds the job's changes in place. */
static void hold(void)
{
	char buf[64];
	while (read(0, buf, sizeof buf) > 0)
		;
}

/* One host's part of a job, as cl_fwd_up runs it once the addresses are
 * gathered: begin (refused: exit 2, one line), the changes (failed: one
 * line, then held, exit 1), held, then cl_fwd_down. */
static int drive(cl_fwd_addrs *all, uint64_t *hosts, int R, int fwd, int me)
{
	char err[768] = "";
	cl_fwd f;
	int rc = cl_fwd_begin(&f, CL_FWD_STATE_DIR, "nshost", err, sizeof err);
	if (rc) {
		fprintf(stderr, "netmem: %s\n", err);
		return rc;
	}
	rc = cl_fwd_apply(&f, all, hosts, R, fwd, me, "nshost", err, sizeof err) ? NM_EXIT_FAIL : 0;
	if (rc)
		fprintf(stderr, "netmem: %s\n", err);
	printf("%s janitor=%d changes=%d dev=%s\n", rc ? "failed" : "up", (int)f.janitor, f.changes, all[me].dev[0]);
	fflush(stdout);
	hold();
	cl_fwd_down(&f);
	return rc;
}

/* forwarder PEER/LEN...: the forwarder, the last rank, between hosts whose
 * RDMA addresses are the PEERs; its own addresses are this namespace's. */
static int forwarder(int argc, char **argv)
{
	int R = argc + 1;
	cl_fwd_addrs *all = calloc((size_t)R, sizeof *all);
	uint64_t *hosts = calloc((size_t)R, sizeof *hosts);
	for (int r = 0; r < argc; r++) {
		if (prefix(argv[r], &all[r].addr[0], &all[r].mask[0]))
			return fprintf(stderr, "bad peer %s\n", argv[r]), 2;
		snprintf(all[r].dev[0], IF_NAMESIZE, "peer%d", r);
		all[r].n = 1;
		hosts[r] = (uint64_t)r + 1;
	}
	hosts[argc] = 1000;
	if (cl_fwd_host_addrs(&all[argc], 0) != 0)
		return perror("cl_fwd_host_addrs"), 1;
	int rc = drive(all, hosts, R, argc, argc);
	free(all);
	free(hosts);
	return rc;
}

/* endpoint MYIP FWDIP/LEN PEERIP...: a host's lowest rank whose RDMA
 * address is MYIP (found on this namespace's interfaces), the forwarder's
 * address on its link FWDIP, the other hosts' RDMA addresses PEERIPs. */
static int endpoint(int argc, char **argv)
{
	if (argc < 3)
		return fprintf(stderr, "endpoint MYIP FWDIP/LEN PEERIP...\n"), 2;
	int R = argc, fwd = R - 1;
	cl_fwd_addrs *all = calloc((size_t)R, sizeof *all);
	uint64_t *hosts = calloc((size_t)R, sizeof *hosts);
	if (cl_fwd_host_addrs(&all[0], inet_addr(argv[0])) != 0 || all[0].n != 1)
		return fprintf(stderr, "%s is on no interface here\n", argv[0]), 1;
	for (int r = 1; r < fwd; r++) {
		all[r].addr[0] = inet_addr(argv[r + 1]);
		all[r].mask[0] = 0xffffffffu;
		snprintf(all[r].dev[0], IF_NAMESIZE, "peer%d", r);
		all[r].n = 1;
	}
	if (prefix(argv[1], &all[fwd].addr[0], &all[fwd].mask[0]))
		return fprintf(stderr, "bad forwarder address %s\n", argv[1]), 2;
	snprintf(all[fwd].dev[0], IF_NAMESIZE, "fwd");
	all[fwd].n = 1;
	for (int r = 0; r < R; r++)
		hosts[r] = (uint64_t)r + 1;
	int rc = drive(all, hosts, R, fwd, 0);
	free(all);
	free(hosts);
	return rc;
}

/* udp-echo PORT: answers datagrams for 20 s. udp-ask IP PORT: 0 when IP
 * answers within 2 s (the packet crossed the forwarder both ways). */
static int udp(bool echo, const char *ip, int port)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = echo ? INADDR_ANY : inet_addr(ip)};
	char buf[64];
	if (s < 0)
		return perror("socket"), 1;
	if (echo) {
		if (bind(s, (struct sockaddr *)&a, sizeof a) != 0)
			return perror("bind"), 1;
		printf("listening\n");
		fflush(stdout);
		for (struct pollfd p = {.fd = s, .events = POLLIN}; poll(&p, 1, 20000) > 0;) {
			struct sockaddr_in from;
			socklen_t fl = sizeof from;
			ssize_t n = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
			if (n > 0 && sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&from, fl) != n)
				return perror("sendto"), 1;
		}
		return 0;
	}
	for (int i = 0; i < 4; i++) {   /* the first may wait for ARP */
		if (sendto(s, "ping", 4, 0, (struct sockaddr *)&a, sizeof a) != 4)
			return perror("sendto"), 1;
		struct pollfd p = {.fd = s, .events = POLLIN};
		if (poll(&p, 1, 500) > 0 && recv(s, buf, sizeof buf, 0) == 4)
			return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "cleanup"))
		return cl_fwd_cleanup_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "forwarder"))
		return forwarder(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "endpoint"))
		return endpoint(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "udp-echo"))
		return udp(true, NULL, atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "udp-ask"))
		return udp(false, argv[2], atoi(argv[3]));
	FILE *f = fopen("/proc/sys/net/ipv4/conf/all/forwarding", "r");
	if (!f || !fgets(sysctl_now, sizeof sysctl_now, f))
		snprintf(sysctl_now, sizeof sysctl_now, "0");
	if (f)
		fclose(f);
	sysctl_now[strcspn(sysctl_now, "\n")] = 0;
	two_subnets();
	one_lan();
	links();
	host_addrs();
	records();
	state_file();
	return tap_done();
}
