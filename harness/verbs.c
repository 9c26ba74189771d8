#include "verbs.h"
#include "qp_av.h"
#include "path.h"
#include "clock.h"
#include "../numa/mem.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#define SOFTROCE_HINT "no RDMA device found: on a host whose kernel has rdma_rxe run " \
	"'rdma link add rxe0 type rxe netdev <interface>', or run the suite under " \
	"tests/vm/netmem-vm (Soft-RoCE in a VM)"

static bool gid_ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return memcmp(g->raw, prefix, sizeof prefix) == 0;
}

/* RoCE: prefer RoCEv2 with an IPv4-mapped address (routable, and what rxe and
 * most CloudLab RoCE setups use), then any RoCEv2, then any non-zero GID. */
static int pick_roce_gid(nm_dev *d)
{
	int best = -1, best_score = 0;
	for (int i = 0; i < d->port_attr.gid_tbl_len && i < 256; i++) {
		struct ibv_gid_entry e;
		if (ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)i, &e, 0))
			continue;
		static const uint8_t zero[16];
		if (memcmp(e.gid.raw, zero, 16) == 0)
			continue;
		int score = 1;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			score = gid_ipv4_mapped(&e.gid) ? 3 : 2;
		if (score > best_score) {
			best = i;
			best_score = score;
		}
	}
	return best;
}

/* The netdev a Soft-RoCE device runs on ("" for hardware): the interface
 * whose link decides its port state. */
static void rxe_netdev(const char *dev, char *buf, size_t len)
{
	char p[128];
	buf[0] = 0;
	snprintf(p, sizeof p, "/sys/class/infiniband/%s/parent", dev);
	FILE *f = fopen(p, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* An IPv4 address of interface ifname. */
static int if_ipv4(const char *ifname, char *out, size_t len)
{
	struct ifaddrs *ifs = NULL;
	int rc = -1;
	if (!ifname[0] || getifaddrs(&ifs) != 0)
		return -1;
	for (struct ifaddrs *i = ifs; i && rc; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, ifname) &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out, (socklen_t)len))
			rc = 0;
	freeifaddrs(ifs);
	return rc;
}

/* The first network interface sysfs lists under the device's PCI function
 * (an InfiniBand HCA's IPoIB interface, a RoCE NIC's Ethernet one). */
static void dev_pci_netdev(const char *dev, char *buf, size_t len)
{
	char p[160];
	buf[0] = 0;
	snprintf(p, sizeof p, "/sys/class/infiniband/%s/device/net", dev);
	DIR *dir = opendir(p);
	if (!dir)
		return;
	for (struct dirent *e; !buf[0] && (e = readdir(dir));)
		if (e->d_name[0] != '.')
			snprintf(buf, len, "%.*s", IF_NAMESIZE, e->d_name);
	closedir(dir);
}

/* The GID's interface and the prefix length of its IPv4 address there, for
 * the reachability check at connect time (nm_qp_reach). */
static void gid_where(nm_dev *d)
{
	struct ibv_gid_entry e;
	uint32_t ip;
	d->gid_netdev[0] = 0;
	d->gid_prefix = 0;
	if (d->gid_index < 0 ||
	    ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)d->gid_index, &e, 0) != 0)
		return;
	if (e.ndev_ifindex)
		if_indextoname(e.ndev_ifindex, d->gid_netdev);
	if (!d->gid_netdev[0])
		rxe_netdev(d->name, d->gid_netdev, sizeof d->gid_netdev);
	struct ifaddrs *ifs = NULL;
	if (!nm_gid_ipv4(d->gid.raw, &ip) || getifaddrs(&ifs) != 0)
		return;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_netmask && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == ip) {
			uint32_t m = ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
			d->gid_prefix = __builtin_popcount(m);
			break;
		}
	freeifaddrs(ifs);
}

int nm_dev_ipv4(const nm_dev *d, char *out, size_t len)
{
	out[0] = 0;
	if (d->gid_index >= 0 && gid_ipv4_mapped(&d->gid) &&
	    inet_ntop(AF_INET, &d->gid.raw[12], out, (socklen_t)len))
		return 0;
	char ifname[IF_NAMESIZE + 1] = "";
	struct ibv_gid_entry e;
	if (d->gid_index >= 0 &&
	    ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)d->gid_index, &e, 0) == 0 && e.ndev_ifindex)
		if_indextoname(e.ndev_ifindex, ifname);
	if (!ifname[0])
		rxe_netdev(d->name, ifname, sizeof ifname);
	if (!ifname[0])
		dev_pci_netdev(d->name, ifname, sizeof ifname);
	if (if_ipv4(ifname, out, len) == 0)
		return 0;
	out[0] = 0;
	return -1;
}

/* "rxe0 port 1 DOWN on eth0, mlx5_0 port 1 ACTIVE": what a user who sees no
 * active port needs to know. */
static void list_devices(struct ibv_device **list, int n, int port, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++) {
		const char *dn = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_port_attr pa;
		const char *state = "unreadable";
		if (ctx && port >= 1 && port <= UINT8_MAX && ibv_query_port(ctx, (uint8_t)port, &pa) == 0)
			state = ibv_port_state_str(pa.state);
		if (ctx)
			ibv_close_device(ctx);
		char nd[64];
		rxe_netdev(dn, nd, sizeof nd);
		off += (size_t)snprintf(buf + off, len - off, "%s%s port %d %s%s%s", i ? ", " : "", dn,
					port, state, nd[0] ? " on " : "", nd);
	}
}

static bool port_active(struct ibv_context *ctx, int port)
{
	struct ibv_port_attr pa;
	return ibv_query_port(ctx, (uint8_t)port, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
}

/* The non-empty GIDs of a port, "0 fe80::1, 1 ::ffff:10.0.0.1", for a
 * message about a GID index that is not there. */
static void list_gids(nm_dev *d, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < d->port_attr.gid_tbl_len && i < 256 && off < len; i++) {
		struct ibv_gid_entry e;
		static const uint8_t zero[16];
		if (ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)i, &e, 0) ||
		    memcmp(e.gid.raw, zero, 16) == 0)
			continue;
		char s[INET6_ADDRSTRLEN] = "";
		inet_ntop(AF_INET6, e.gid.raw, s, sizeof s);
		off += (size_t)snprintf(buf + off, len - off, "%s%d %s", off ? ", " : "", i, s);
	}
}

/* A forced GID index must name a GID this host has: an empty entry would
 * only fail later, when the QPs cannot connect. */
static int check_gid_index(nm_dev *d, int gid_index, char *err, size_t errlen)
{
	struct ibv_gid_entry e;
	static const uint8_t zero[16];
	if (gid_index < d->port_attr.gid_tbl_len &&
	    ibv_query_gid_ex(d->ctx, (uint32_t)d->port, (uint32_t)gid_index, &e, 0) == 0 &&
	    memcmp(e.gid.raw, zero, 16) != 0)
		return 0;
	char gids[384];
	list_gids(d, gids, sizeof gids);
	snprintf(err, errlen, "GID index %d does not exist on %s port %d here (its GIDs: %s): give -x "
		 "an index every host has ('netmem info' lists them), or leave -x out to use each "
		 "host's RoCEv2 IPv4 GID", gid_index, d->name, d->port, gids[0] ? gids : "none");
	return -1;
}

int nm_dev_open(nm_dev *d, const char *name, int port, int gid_index, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		snprintf(err, errlen, SOFTROCE_HINT);
		if (list)
			ibv_free_device_list(list);
		return -1;
	}
	char names[512];
	list_devices(list, n, port, names, sizeof names);
	struct ibv_context *ctx = NULL;
	for (int i = 0; i < n && !ctx; i++) {
		const char *dn = ibv_get_device_name(list[i]);
		if (name && *name && strcmp(dn, name) != 0)
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			snprintf(err, errlen, "cannot open RDMA device %s: %s", dn, strerror(errno));
			ibv_free_device_list(list);
			return -1;
		}
		if (!(name && *name) && !port_active(ctx, port)) {
			ibv_close_device(ctx); /* first device whose port is up */
			ctx = NULL;
		}
	}
	ibv_free_device_list(list);
	if (!ctx) {
		if (name && *name)
			snprintf(err, errlen, "no RDMA device '%s' (available: %s)", name, names);
		else
			snprintf(err, errlen, "no RDMA device here has port %d ACTIVE (%s): bring the "
				 "link up (for Soft-RoCE, the interface it runs on: ip link set IFACE up), "
				 "or choose a device and port with -d and -i; check 'ibv_devinfo'",
				 port, names);
		return -1;
	}
	d->ctx = ctx;
	snprintf(d->name, sizeof d->name, "%s", ibv_get_device_name(ctx->device));
	d->port = port;
	if (ibv_query_device(ctx, &d->attr)) {
		snprintf(err, errlen, "ibv_query_device(%s): %s", d->name, strerror(errno));
		goto fail;
	}
	if (port < 1 || port > d->attr.phys_port_cnt) {
		snprintf(err, errlen, "device %s has no port %d (ports: 1..%d)", d->name, port,
			 d->attr.phys_port_cnt);
		goto fail;
	}
	if (ibv_query_port(ctx, (uint8_t)port, &d->port_attr)) {
		snprintf(err, errlen, "ibv_query_port(%s, %d): %s", d->name, port, strerror(errno));
		goto fail;
	}
	if (d->port_attr.state != IBV_PORT_ACTIVE) {
		char nd[64];
		rxe_netdev(d->name, nd, sizeof nd);
		snprintf(err, errlen, "port %d of %s is %s, not ACTIVE: bring its link up%s%s%s, or "
			 "choose another device with -d (check 'ibv_devinfo')", port, d->name,
			 ibv_port_state_str(d->port_attr.state), nd[0] ? " (ip link set " : "", nd,
			 nd[0] ? " up)" : "");
		goto fail;
	}
	d->ethernet = d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	d->emulated = strncmp(d->name, "rxe", 3) == 0 || d->attr.vendor_id == 0xffffff;
	if (gid_index >= 0) {
		if (check_gid_index(d, gid_index, err, errlen))
			goto fail;
		if (gid_index >= d->port_attr.gid_tbl_len) {
			snprintf(err, errlen, "GID index %d out of range for %s port %d (table has %d)",
				 gid_index, d->name, port, d->port_attr.gid_tbl_len);
			goto fail;
		}
		d->gid_index = gid_index;
	} else if (d->ethernet) {
		d->gid_index = pick_roce_gid(d);
		if (d->gid_index < 0) {
			snprintf(err, errlen, "%s port %d has no usable GID (is an IP address "
				 "configured on its interface?); force one with -x", d->name, port);
			goto fail;
		}
	} else {
		d->gid_index = -1;
	}
	if (d->gid_index >= 0 && ibv_query_gid(ctx, (uint8_t)port, d->gid_index, &d->gid)) {
		snprintf(err, errlen, "ibv_query_gid(%s, %d, %d): %s", d->name, port, d->gid_index,
			 strerror(errno));
		goto fail;
	}
	gid_where(d);
	d->pd = ibv_alloc_pd(ctx);
	if (!d->pd) {
		snprintf(err, errlen, "ibv_alloc_pd(%s): %s", d->name, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	ibv_close_device(ctx);
	d->ctx = NULL;
	return -1;
}

void nm_dev_close(nm_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof *d);
}

/* RESET -> INIT, every access a peer may use. */
static int qp_init(nm_dev *d, struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)d->port,
		.qp_access_flags = NM_ACCESS_ALL,
	};
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		snprintf(err, errlen, "ibv_modify_qp(INIT) on %s: %s", d->name, strerror(errno));
		return -1;
	}
	return 0;
}

struct ibv_qp *nm_qp_create(nm_dev *d, struct ibv_cq *cq, const nm_qp_attr *a,
			    uint32_t *inline_out, char *err, size_t errlen)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = (uint32_t)a->sq_depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = (uint32_t)(a->max_inline > 0 ? a->max_inline : 0),
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);
	if (!qp && a->max_inline > 0) {
		/* Devices cap inline data differently; fall back to none rather
		 * than fail, and report what we got. */
		ia.cap.max_inline_data = 0;
		qp = ibv_create_qp(d->pd, &ia);
	}
	if (!qp) {
		snprintf(err, errlen, "ibv_create_qp(%s, send queue %d): %s", d->name, a->sq_depth,
			 strerror(errno));
		return NULL;
	}
	/* A device may grant inline space nobody asked for (rxe gives 16
	 * bytes for 0): -I 0 must still mean no inline sends. */
	if (inline_out)
		*inline_out = a->max_inline > 0 ? ia.cap.max_inline_data : 0;
	if (qp_init(d, qp, err, errlen)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

int nm_qp_reconnect(nm_dev *d, struct ibv_qp *qp, const nm_qp_attr *a, const nm_ep *local,
		    const nm_ep *remote, char *err, size_t errlen)
{
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_RESET};
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE)) {
		snprintf(err, errlen, "ibv_modify_qp(RESET) of QP %u on %s: %s", qp->qp_num, d->name, strerror(errno));
		return -1;
	}
	if (qp_init(d, qp, err, errlen))
		return -1;
	return nm_qp_connect(d, qp, a, local, remote, err, errlen);
}

int nm_qp_await_state(struct ibv_qp *qp, enum ibv_qp_state state, int timeout_ms, char *err, size_t errlen)
{
	uint64_t end = nm_now_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr ia;
		if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia)) {
			snprintf(err, errlen, "ibv_query_qp(QP %u): %s", qp->qp_num, strerror(errno));
			return -1;
		}
		if (qa.qp_state == state)
			return 0;
		if (nm_now_ns() >= end)
			return 1;
		sched_yield();
	}
}

void nm_qp_local_ep(nm_dev *d, struct ibv_qp *qp, nm_ep *ep)
{
	memset(ep, 0, sizeof *ep);
	ep->qpn = qp->qp_num;
	/* Every process's lrand48 starts from the same seed, so ranks on one host
	 * gave their QPs the same PSN sequences; an observer in the packet path
	 * (netmem clover-path) that matches responses to requests by host pair
	 * and PSN then mixes up two clients' QPs. The kernel's random source
	 * gives each QP its own. */
	uint32_t r;
	if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
		r = (uint32_t)lrand48() ^ (uint32_t)getpid() ^ (uint32_t)qp->qp_num;
	ep->psn = r & 0xffffff;
	ep->lid = d->port_attr.lid;
	memcpy(ep->gid, d->gid.raw, 16);
	ep->valid = 1;
	ep->active_mtu = (uint8_t)d->port_attr.active_mtu;
	ep->gid_prefix = (uint8_t)(d->gid_prefix > 0 && d->gid_prefix <= 32 ? d->gid_prefix : 0);
}

/* Path MTUs of the QPs connected since the last reset (any thread may
 * reconnect a QP, hence atomics). */
static atomic_int mtu_lo, mtu_hi;

void nm_path_mtu_reset(void)
{
	atomic_store(&mtu_lo, 0);
	atomic_store(&mtu_hi, 0);
}

void nm_path_mtu_range(int *lo, int *hi)
{
	*lo = atomic_load(&mtu_lo);
	*hi = atomic_load(&mtu_hi);
}

static void mtu_seen(int bytes)
{
	int lo = atomic_load(&mtu_lo), hi = atomic_load(&mtu_hi);
	while ((lo == 0 || bytes < lo) && !atomic_compare_exchange_weak(&mtu_lo, &lo, bytes))
		;
	while (bytes > hi && !atomic_compare_exchange_weak(&mtu_hi, &hi, bytes))
		;
}

/* /proc/net/route, read whole (a few lines), or NULL. */
static char *route_table(void)
{
	FILE *f = fopen("/proc/net/route", "r");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *t = malloc(cap);
	for (size_t k; t && (k = fread(t + n, 1, cap - n - 1, f)) > 0;) {
		n += k;
		if (n + 1 == cap) {
			char *bigger = realloc(t, cap * 2);
			if (!bigger) {
				free(t);
				t = NULL;
				break;
			}
			t = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (t)
		t[n] = 0;
	return t;
}

int nm_qp_reach(const nm_dev *d, int me, const nm_ep *local, int peer, const nm_ep *remote, char *err,
		size_t errlen)
{
	nm_gid_end l = {.rank = me, .gid_index = d->gid_index, .gid = local->gid, .prefix = local->gid_prefix,
			.netdev = d->gid_netdev},
		   r = {.rank = peer, .gid_index = -1, .gid = remote->gid, .prefix = remote->gid_prefix};
	if (d->gid_index < 0 || nm_gid_same_subnet(l.gid, l.prefix, r.gid, r.prefix) != 0)
		return 0;
	char *routes = route_table();
	int rc = nm_gid_reach(&l, &r, routes, err, errlen);
	free(routes);
	return rc;
}

static int rd_atomic(nm_dev *d, const nm_qp_attr *a, int devmax)
{
	int v = a->max_rd_atomic > 0 ? a->max_rd_atomic : 16;
	if (v > devmax)
		v = devmax;
	(void)d;
	return v > 0 ? v : 1;
}

int nm_qp_connect(nm_dev *d, struct ibv_qp *qp, const nm_qp_attr *a, const nm_ep *local,
		  const nm_ep *remote, char *err, size_t errlen)
{
	int mine = nm_mtu_to_bytes(d->port_attr.active_mtu),
	    theirs = remote->active_mtu ? nm_mtu_to_bytes((enum ibv_mtu)remote->active_mtu) : 0;
	int bytes = nm_path_mtu(mine, theirs, a->mtu);
	if (bytes == 0) {
		snprintf(err, errlen, "MTU %d exceeds the active MTU of %s (%s port %d: %d, the peer's port: %d)", a->mtu,
			 a->mtu > mine ? "this rank's port" : "the peer's port", d->name, d->port, mine, theirs);
		return -1;
	}
	enum ibv_mtu mtu = (enum ibv_mtu)nm_mtu_from_bytes(bytes);
	mtu_seen(bytes);
	nm_qp_av_in in = {.port = d->port, .gid_index = d->gid_index, .mtu = mtu,
			  .max_dest_rd_atomic = rd_atomic(d, a, d->attr.max_qp_rd_atom), .dest_qpn = remote->qpn,
			  .rq_psn = remote->psn, .dlid = remote->lid, .dgid = remote->gid};
	struct ibv_qp_attr qa;
	int mask = nm_qp_rtr_attr(&in, &qa, err, errlen);
	if (!mask)
		return -1;
	if (ibv_modify_qp(qp, &qa, mask)) {
		snprintf(err, errlen, "ibv_modify_qp(RTR) on %s towards QP %u: %s%s", d->name,
			 remote->qpn, strerror(errno),
			 d->ethernet ? " (RoCE: is the GID index right? see netmem info)" : "");
		return -1;
	}
	memset(&qa, 0, sizeof qa);
	qa.qp_state = IBV_QPS_RTS;
	/* Soft-RoCE under emulation can take longer than 67 ms (14) for a round
	 * trip; a retransmitted atomic is then applied twice. */
	qa.timeout = (uint8_t)(a->timeout >= 0 ? a->timeout : d->emulated ? 20 : 14);
	qa.retry_cnt = (uint8_t)a->retry_cnt;
	qa.rnr_retry = (uint8_t)a->rnr_retry;
	qa.sq_psn = local->psn;
	qa.max_rd_atomic = (uint8_t)rd_atomic(d, a, d->attr.max_qp_init_rd_atom);
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		snprintf(err, errlen, "ibv_modify_qp(RTS) on %s: %s", d->name, strerror(errno));
		return -1;
	}
	return 0;
}

int nm_mr_alloc(nm_dev *d, nm_mr *m, size_t len, bool hugepages, int numa_node,
		char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	m->buf = nm_mem_alloc(len, hugepages, numa_node, &m->alloc_len, err, errlen);
	if (!m->buf)
		return -1;
	m->len = len;
	m->hugepages = hugepages;
	m->numa_node = numa_node;
	return nm_mr_register(d, m, err, errlen);
}

int nm_mr_register(nm_dev *d, nm_mr *m, char *err, size_t errlen)
{
	m->mr = ibv_reg_mr(d->pd, m->buf, m->alloc_len, NM_ACCESS_ALL);
	if (!m->mr) {
		snprintf(err, errlen, "ibv_reg_mr(%zu bytes) on %s: %s%s", m->alloc_len, d->name,
			 strerror(errno),
			 errno == ENOMEM || errno == EPERM ? " (raise 'ulimit -l')" : "");
		nm_mem_free(m->buf, m->alloc_len);
		m->buf = NULL;
		return -1;
	}
	return 0;
}

void nm_mr_free(nm_mr *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	nm_mem_free(m->buf, m->alloc_len);
	memset(m, 0, sizeof *m);
}

/* CAP_IPC_LOCK in the effective set (/proc/self/status's CapEff, bit 14):
 * the kernel lets such a process pin past RLIMIT_MEMLOCK. */
static bool has_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long caps = 0;
	bool found = false;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	return found && (caps >> 14 & 1);
}

bool nm_dev_odp_rc(const nm_dev *d)
{
	struct ibv_device_attr_ex ax;
	memset(&ax, 0, sizeof ax);
	if (ibv_query_device_ex(d->ctx, NULL, &ax))
		return false;
	return (ax.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (ax.odp_caps.per_transport_caps.rc_odp_caps & IBV_ODP_SUPPORT_READ);
}

uint64_t nm_dev_dm_bytes(const nm_dev *d)
{
	struct ibv_device_attr_ex ax;
	memset(&ax, 0, sizeof ax);
	if (ibv_query_device_ex(d->ctx, NULL, &ax))
		return 0;
	return ax.max_dm_size;
}

int nm_dm_alloc(nm_dev *d, nm_dm *m, size_t len, char *err, size_t errlen)
{
	*m = (nm_dm){.len = len};
	struct ibv_alloc_dm_attr at = {.length = len, .log_align_req = 6};
	const char *call = "ibv_alloc_dm";
	int e = 0;
	m->dm = ibv_alloc_dm(d->ctx, &at);
	if (!m->dm) {
		e = errno;
		goto fail;
	}
	/* zeroed from the host: device memory starts with whatever it held */
	void *zero = calloc(1, len);
	e = zero ? ibv_memcpy_to_dm(m->dm, 0, zero, len) : ENOMEM;   /* it returns the errno */
	if (e) {
		free(zero);
		call = "ibv_memcpy_to_dm";
		goto fail;
	}
	free(zero);
	m->mr = ibv_reg_dm_mr(d->pd, m->dm, 0, len, IBV_ACCESS_ZERO_BASED | NM_ACCESS_ALL);
	if (!m->mr) {
		e = errno;
		call = "ibv_reg_dm_mr";
		goto fail;
	}
	return 0;
fail:
	if (m->dm)
		ibv_free_dm(m->dm);
	*m = (nm_dm){0};
	snprintf(err, errlen, "%s: %s of %zu bytes of device memory failed: %s", d->name, call, len,
		 strerror(e ? e : EIO));
	return -1;
}

int nm_dm_read(const nm_dm *m, size_t off, void *dst, size_t len)
{
	return ibv_memcpy_from_dm(dst, m->dm, off, len) ? -1 : 0;
}

void nm_dm_free(nm_dm *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->dm)
		ibv_free_dm(m->dm);
	*m = (nm_dm){0};
}

uint64_t nm_memlock_limit(bool *ipc_lock)
{
	struct rlimit rl;
	*ipc_lock = has_ipc_lock();
	if (*ipc_lock || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

int nm_memlock_check(uint64_t bytes, const char *what, char *err, size_t errlen)
{
	bool cap;
	uint64_t limit = nm_memlock_limit(&cap);
	if (bytes <= limit)
		return 0;
	snprintf(err, errlen,
		 "%s registers %llu bytes of pinned memory, above RLIMIT_MEMLOCK (%llu KiB): raise it with `ulimit -l %llu` "
		 "(KiB) or `ulimit -l unlimited` before the run",
		 what, (unsigned long long)bytes, (unsigned long long)limit >> 10,
		 (unsigned long long)((bytes + 1023) >> 10));
	return -1;
}

void nm_mr_needs(nm_needs *n, size_t len, bool hugepages, bool odp)
{
	uint64_t bytes = nm_mem_alloc_len(len, hugepages);
	nm_needs add = {.mrs = 1, .largest_mr = bytes};
	if (odp)
		add.odp_bytes = bytes;
	else
		add.pinned_bytes = bytes;
	if (hugepages)
		add.hugepage_bytes = bytes;
	nm_needs_sum(n, &add);
}
