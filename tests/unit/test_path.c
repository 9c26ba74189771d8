/* A connection's path MTU and whether two RoCEv2 GIDs reach each other
 * (harness/path.h), on made-up ports, addresses and route tables. */
#include "path.h"
#include "tap.h"
#include <arpa/inet.h>
#include <string.h>

/* ::ffff:a.b.c.d */
static void gid(const char *ip, uint8_t out[16])
{
	memset(out, 0, 16);
	out[10] = out[11] = 0xff;
	inet_pton(AF_INET, ip, out + 12);
}

/* An address as /proc/net/route prints it: the number whose bytes in this
 * host's memory are the address. */
static unsigned hex(const char *ip)
{
	uint32_t a;
	inet_pton(AF_INET, ip, &a);
	return a;
}

static void test_mtu(void)
{
	CHECK(nm_path_mtu(4096, 1024, 0) == 1024 && nm_path_mtu(1024, 4096, 0) == 1024,
	      "two ports' active MTUs: the smaller, seen from either end");
	CHECK(nm_path_mtu(4096, 4096, 0) == 4096, "equal ports: their MTU");
	CHECK(nm_path_mtu(4096, 4096, 2048) == 2048 && nm_path_mtu(4096, 2048, 1024) == 1024,
	      "an MTU asked below both: the one asked");
	CHECK(nm_path_mtu(4096, 1024, 2048) == 0 && nm_path_mtu(1024, 4096, 2048) == 0,
	      "an MTU asked above either end's: refused (0)");
	CHECK(nm_path_mtu(2048, 0, 0) == 2048, "a peer that did not say: this end's");
}

static void test_subnet(void)
{
	uint8_t a[16], b[16], c[16], v6[16] = {0xfe, 0x80, [15] = 1};
	gid("10.0.1.1", a);
	gid("10.0.1.7", b);
	gid("10.0.2.7", c);
	CHECK(nm_gid_same_subnet(a, 24, b, 24) == 1, "10.0.1.1/24 and 10.0.1.7/24 share a subnet");
	CHECK(nm_gid_same_subnet(a, 24, c, 24) == 0, "10.0.1.1/24 and 10.0.2.7/24 do not");
	CHECK(nm_gid_same_subnet(a, 16, c, 0) == 1, "one prefix known (/16): judged by it");
	CHECK(nm_gid_same_subnet(a, 16, c, 24) == 0, "10.0.2.7/24 does not hold 10.0.1.1: no, whatever /16 says");
	CHECK(nm_gid_same_subnet(a, 0, c, 0) == -1, "no prefix known: cannot tell");
	CHECK(nm_gid_same_subnet(a, 24, v6, 64) == -1, "a GID that is not IPv4-mapped: cannot tell");
	uint32_t ip;
	CHECK(nm_gid_ipv4(c, &ip) && ip == hex("10.0.2.7") && !nm_gid_ipv4(v6, &ip), "the IPv4 of a mapped GID only");
}

static void test_route(void)
{
	char t[1024], dev[32];
	bool gw;
	snprintf(t, sizeof t,
		 "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		 "eth0\t00000000\t%08X\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
		 "eth1\t%08X\t00000000\t0001\t0\t0\t0\t%08X\t0\t0\t0\n"
		 "eth1\t%08X\t%08X\t0007\t0\t0\t0\tFFFFFFFF\t0\t0\t0\n"
		 "eth1\t%08X\t00000000\t0201\t0\t0\t0\t%08X\t0\t0\t0\n",
		 hex("192.168.0.1"), hex("10.0.1.0"), hex("255.255.255.0"), hex("10.0.2.7"), hex("10.0.1.254"),
		 hex("10.0.9.0"), hex("255.255.255.0"));
	CHECK(nm_route_lookup(t, hex("10.0.1.9"), dev, sizeof dev, &gw) && !strcmp(dev, "eth1") && !gw,
	      "on-link: the subnet's route, no gateway");
	CHECK(nm_route_lookup(t, hex("10.0.2.7"), dev, sizeof dev, &gw) && !strcmp(dev, "eth1") && gw,
	      "a /32 host route beats the default, through its gateway");
	CHECK(nm_route_lookup(t, hex("10.0.3.9"), dev, sizeof dev, &gw) && !strcmp(dev, "eth0") && gw,
	      "anything else: the default route");
	CHECK(!nm_route_lookup(t, hex("10.0.9.3"), dev, sizeof dev, &gw), "an unreachable route leads nowhere");
	CHECK(!nm_route_lookup("Iface\tDestination\n", hex("10.0.3.9"), dev, sizeof dev, &gw), "an empty table: none");

	uint8_t a[16], b[16], c[16], d[16];
	gid("10.0.1.1", a);
	gid("10.0.1.7", b);
	gid("10.0.2.7", c);
	gid("10.0.3.9", d);
	nm_gid_end l = {.rank = 0, .gid_index = 3, .gid = a, .prefix = 24, .netdev = "eth1"};
	nm_gid_end r = {.rank = 1, .gid_index = -1, .gid = b, .prefix = 24};
	char why[1024];
	CHECK(nm_gid_reach(&l, &r, t, why, sizeof why) == 0, "one subnet: reachable");
	r.gid = c;
	CHECK(nm_gid_reach(&l, &r, t, why, sizeof why) == 0,
	      "another subnet behind a route on the GID's interface (a router, or clover --path forward): reachable");
	r.gid = d;
	r.prefix = 24;
	CHECK(nm_gid_reach(&l, &r, t, why, sizeof why) == -1 &&
		      strstr(why, "rank 0's GID 3 (::ffff:10.0.1.1, 10.0.1.1/24 on eth1) and rank 1's GID (::ffff:10.0.3.9, "
				  "10.0.3.9/24) share no subnet and the route to 10.0.3.9 leaves through eth0, not eth1") &&
		      !strchr(why, '\n'),
	      "another subnet reached only by the default route of another interface: one line, both GIDs: %s", why);
	const char *no_default = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
	CHECK(nm_gid_reach(&l, &r, no_default, why, sizeof why) == -1 && strstr(why, "no route leads to 10.0.3.9"),
	      "no route at all: %s", why);
	CHECK(nm_gid_reach(&l, &r, NULL, why, sizeof why) == 0, "no route table to read: cannot tell, so no verdict");
	uint8_t v6[16] = {0xfe, 0x80, [15] = 1};
	r.gid = v6;
	CHECK(nm_gid_reach(&l, &r, no_default, why, sizeof why) == 0, "an IPv6 GID: cannot tell, so no verdict");
}

int main(void)
{
	test_mtu();
	test_subnet();
	test_route();
	return tap_done();
}
