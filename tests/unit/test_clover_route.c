/* netmem clover --path forward (workloads/clover/clover_route.h): which
 * routes each host adds for the layouts a reservation has (two subnets
 * joined by the forwarder, one LAN), the refusal when the forwarder is not
 * on a host's link, and the janitor: undoes run newest first, failures
 * counted, and the undo run when the process holding the pipe is killed. */
#include "tap.h"
#include "clover_route.h"
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	static char buf[256];
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
	char err[256] = "";
	int n = cl_fwd_plan(all, hosts, 5, 4, 0, rt, 5, err, sizeof err);
	CHECK(n == 1 && is_route(&rt[0], "10.77.2.1", "10.77.1.254", "eth0"),
	      "host A's lowest rank: the memory node's address via the forwarder's on A's link (%d route(s) %s)", n, err);
	CHECK(cl_fwd_plan(all, hosts, 5, 4, 1, rt, 5, err, sizeof err) == 0 &&
	      cl_fwd_plan(all, hosts, 5, 4, 2, rt, 5, err, sizeof err) == 0, "A's other ranks add nothing");
	n = cl_fwd_plan(all, hosts, 5, 4, 3, rt, 5, err, sizeof err);
	CHECK(n == 1 && is_route(&rt[0], "10.77.1.1", "10.77.2.254", "ens1"),
	      "host B: A's address, once for its three ranks, via the forwarder's address on B's link (%d)", n);
	CHECK(cl_fwd_plan(all, hosts, 5, 4, 4, rt, 5, err, sizeof err) == 0, "the forwarder adds no route");

	all[4].n = 1;   /* the forwarder on A's link only */
	err[0] = 0;
	n = cl_fwd_plan(all, hosts, 5, 4, 3, rt, 5, err, sizeof err);
	CHECK(n == -1 && strstr(err, "rank 3") && strstr(err, "10.77.2.1/24") && strstr(err, "ens1"),
	      "a forwarder with no address on B's link: refused, naming the rank and its address (%s)", err);
}

/* One LAN (a CloudLab experiment network): three hosts and the forwarder on
 * 10.10.1.0/24. Each host routes the two others through it. */
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
	char err[256] = "";
	int n = cl_fwd_plan(all, hosts, 4, 3, 1, rt, 4, err, sizeof err);
	CHECK(n == 2 && is_route(&rt[0], "10.10.1.1", "10.10.1.4", "enp65s0f0") &&
	      is_route(&rt[1], "10.10.1.3", "10.10.1.4", "enp65s0f0"),
	      "one LAN: the two other hosts, via the forwarder's address on the LAN, not its control one (%d)", n);
	CHECK(cl_fwd_plan(all, hosts, 4, 3, 1, rt, 1, err, sizeof err) == -1, "more routes than room: refused");
}

static void janitor(void)
{
	char path[] = "/tmp/netmem-test-janitor-XXXXXX", cmd[128];
	int fd = mkstemp(path);
	close(fd);
	cl_fwd f = {.undo_fd = -1};
	snprintf(cmd, sizeof cmd, "echo first >> %s", path);
	CHECK(cl_fwd_undo_first(&f, cmd) == 0 && f.janitor > 0, "the janitor starts with the first undo");
	snprintf(cmd, sizeof cmd, "echo second >> %s", path);
	cl_fwd_undo_first(&f, cmd);
	CHECK(slurp(path)[0] == 0, "nothing is undone while the pipe is open");
	CHECK(cl_fwd_undo_all(&f) == 0 && !strcmp(slurp(path), "second\nfirst\n"),
	      "at the end, every undo, newest first (%s)", slurp(path));
	CHECK(f.janitor == 0 && cl_fwd_undo_all(&f) == 0, "and once only");

	cl_fwd_undo_first(&f, "false");
	cl_fwd_undo_first(&f, "true");
	cl_fwd_undo_first(&f, "exit 3; false");
	CHECK(cl_fwd_undo_all(&f) == 2, "failed undos are counted (2 of 3), one that exits included");

	/* The holder of the pipe killed: the janitor undoes on its own. */
	truncate(path, 0);
	pid_t child = fork();
	if (child == 0) {
		cl_fwd g = {.undo_fd = -1};
		snprintf(cmd, sizeof cmd, "echo killed >> %s", path);
		cl_fwd_undo_first(&g, cmd);
		raise(SIGKILL);
	}
	int st;
	waitpid(child, &st, 0);
	for (int i = 0; i < 500 && strcmp(slurp(path), "killed\n"); i++)
		usleep(10000);
	CHECK(WIFSIGNALED(st) && !strcmp(slurp(path), "killed\n"),
	      "a process killed by SIGKILL: its janitor still runs the undo (%s)", slurp(path));
	unlink(path);
}

int main(void)
{
	two_subnets();
	one_lan();
	janitor();
	return tap_done();
}
