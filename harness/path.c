/* A connection's path MTU and its GIDs' reachability (path.h). */
#include "path.h"
#include "log.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nm_path_mtu(int local_active, int remote_active, int asked)
{
	int m = local_active;
	if (remote_active > 0 && (m <= 0 || remote_active < m))
		m = remote_active;
	if (asked > 0) {
		if (m > 0 && asked > m)
			return 0;
		m = asked;
	}
	return m;
}

bool nm_gid_ipv4(const uint8_t gid[16], uint32_t *ip)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(gid, prefix, sizeof prefix) != 0)
		return false;
	memcpy(ip, gid + 12, 4);
	return true;
}

/* The netmask of a prefix length, network byte order. */
static uint32_t mask_of(int prefix)
{
	return htonl(prefix >= 32 ? 0xffffffffu : prefix <= 0 ? 0 : ~(0xffffffffu >> prefix));
}

int nm_gid_same_subnet(const uint8_t a[16], int a_prefix, const uint8_t b[16], int b_prefix)
{
	uint32_t x, y;
	if (!nm_gid_ipv4(a, &x) || !nm_gid_ipv4(b, &y))
		return -1;
	bool known = false, same = true;
	const int prefixes[2] = {a_prefix, b_prefix};
	for (int i = 0; i < 2; i++)
		if (prefixes[i] >= 1 && prefixes[i] <= 32) {
			known = true;
			same &= ((x ^ y) & mask_of(prefixes[i])) == 0;
		}
	return known ? same : -1;
}

/* /proc/net/route's flags */
#define RT_UP 0x1
#define RT_GATEWAY 0x2
#define RT_REJECT 0x200

bool nm_route_lookup(const char *table, uint32_t ip, char *ifname, size_t len, bool *gateway)
{
	int best = -1;
	unsigned long best_metric = 0;
	bool reject = false;
	const char *line = table;
	/* the first line is the header */
	for (line = line ? strchr(line, '\n') : NULL; line && *line; line = strchr(line, '\n')) {
		line++;
		char dev[64];
		unsigned long dst, gw, flags, refcnt, use, metric, mask;
		if (sscanf(line, "%63s %lx %lx %lx %lu %lu %lu %lx", dev, &dst, &gw, &flags, &refcnt, &use, &metric,
			   &mask) != 8)
			continue;
		/* The table prints each address as the number whose bytes in
		 * this host's memory are the address: compare as stored. */
		uint32_t d = (uint32_t)dst, m = (uint32_t)mask;
		if (!(flags & RT_UP) || (ip & m) != d)
			continue;
		int bits = __builtin_popcount(m);
		if (bits > best || (bits == best && metric < best_metric)) {
			best = bits;
			best_metric = metric;
			snprintf(ifname, len, "%s", dev);
			*gateway = (flags & RT_GATEWAY) != 0;
			reject = (flags & RT_REJECT) != 0;   /* "unreachable": the best route leads nowhere */
		}
	}
	return best >= 0 && !reject;
}

int nm_gid_reach(const nm_gid_end *local, const nm_gid_end *remote, const char *route_table, char *why,
		 size_t len)
{
	int same = nm_gid_same_subnet(local->gid, local->prefix, remote->gid, remote->prefix);
	if (same != 0)
		return 0;
	uint32_t rip = 0;
	nm_gid_ipv4(remote->gid, &rip);
	char dev[64] = "";
	bool gw = false;
	const char *nd = local->netdev && local->netdev[0] ? local->netdev : NULL;
	/* A route on the GID's own interface reaches the peer through a
	 * router; any other (the default route of a management network) sends
	 * the packets where the RDMA network is not. */
	if (!route_table)
		return 0;   /* no route table to tell: the QPs will say */
	if (nm_route_lookup(route_table, rip, dev, sizeof dev, &gw) && (!nd || !strcmp(dev, nd)))
		return 0;
	char lg[INET6_ADDRSTRLEN], rg[INET6_ADDRSTRLEN], la[INET_ADDRSTRLEN], ra[INET_ADDRSTRLEN];
	inet_ntop(AF_INET6, local->gid, lg, sizeof lg);
	inet_ntop(AF_INET6, remote->gid, rg, sizeof rg);
	inet_ntop(AF_INET, local->gid + 12, la, sizeof la);
	inet_ntop(AF_INET, remote->gid + 12, ra, sizeof ra);
	char lp[16] = "", rp[16] = "", li[16] = "", ri[16] = "";
	if (local->gid_index >= 0)
		snprintf(li, sizeof li, " %d", local->gid_index);
	if (remote->gid_index >= 0)
		snprintf(ri, sizeof ri, " %d", remote->gid_index);
	if (local->prefix > 0)
		snprintf(lp, sizeof lp, "/%d", local->prefix);
	if (remote->prefix > 0)
		snprintf(rp, sizeof rp, "/%d", remote->prefix);
	char route[160];
	if (dev[0])
		snprintf(route, sizeof route, "the route to %s leaves through %s, not %s", ra, dev, nd ? nd : "?");
	else
		snprintf(route, sizeof route, "no route leads to %s", ra);
	return nm_errf(why, len,
			    "rank %d's GID%s (%s, %s%s%s%s) and rank %d's GID%s (%s, %s%s) share no subnet and %s: "
			    "RoCEv2 packets between them find no path (their QPs would fail as 'peer unreachable'); "
			    "give -x a GID index whose addresses share a subnet on every host ('netmem info' lists "
			    "them), or route between the subnets",
			    local->rank, li, lg, la, lp, nd ? " on " : "", nd ? nd : "", remote->rank, ri, rg, ra, rp,
			    route);
}
