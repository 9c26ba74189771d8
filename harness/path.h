/* What a connection between two ends can use, decided from what each end
 * says of itself in the endpoint the ranks exchange (verbs.h's nm_ep): the
 * path MTU, and whether their RoCEv2 GIDs can reach each other. Pure (the
 * caller reads the device, the interface and the route table):
 * tests/unit/test_path.c. */
#ifndef NM_PATH_H
#define NM_PATH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The path MTU of an RC QP, bytes: the smaller of the two ports' active
 * MTUs, or the MTU asked (-m, 0: none) when smaller still. A packet larger
 * than the receiving port's MTU is dropped, so each end's own active MTU
 * alone is wrong when they differ. An end whose MTU is unknown (0) does not
 * count. 0 when the asked MTU exceeds an end's: the caller refuses it. */
int nm_path_mtu(int local_active, int remote_active, int asked);

/* The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), network byte
 * order; false for any other GID. */
bool nm_gid_ipv4(const uint8_t gid[16], uint32_t *ip);

/* Whether two IPv4-mapped GIDs share a subnet: each address lies in the
 * other's subnet, under each end's prefix length where it is known (1..32;
 * 0: unknown). 1 yes, 0 no, -1 cannot tell (a GID not IPv4-mapped, or both
 * prefixes unknown). */
int nm_gid_same_subnet(const uint8_t a[16], int a_prefix, const uint8_t b[16], int b_prefix);

/* From the text of /proc/net/route: the interface of the most specific
 * route to ip (network byte order), and whether it goes through a gateway.
 * false when no route leads there. */
bool nm_route_lookup(const char *table, uint32_t ip, char *ifname, size_t len, bool *gateway);

/* One end of a connection as its rank describes it. */
typedef struct nm_gid_end {
	int rank;
	int gid_index;
	const uint8_t *gid;      /* 16 bytes */
	int prefix;              /* of its IPv4 address on its interface, 0: unknown */
	const char *netdev;      /* the GID's interface ("" unknown): the local end only */
} nm_gid_end;

/* The verdict when `local` connects to `remote`, with the local route table
 * (NULL: none could be read, so it cannot tell): 0 when their GIDs share a subnet, when a route on the
 * local GID's interface leads to the remote address (a routed RoCEv2
 * fabric, or netmem clover --path forward's /32 routes), or when it cannot
 * tell (InfiniBand, IPv6 GIDs, nothing known). -1 with one line in why
 * naming both GIDs: RoCEv2 packets between them would find no path, and
 * their QPs would fail later as "peer unreachable" (retry exceeded). */
int nm_gid_reach(const nm_gid_end *local, const nm_gid_end *remote, const char *route_table, char *why,
		 size_t len);
#endif
