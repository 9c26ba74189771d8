/* A NIC personality over Soft-RoCE: an LD_PRELOAD library between the suite
 * and libibverbs that makes the rxe device answer and refuse as a given
 * ConnectX generation would (tests/nic/README.md). NETMEM_NIC_PROFILE names
 * the profile (tests/nic/cx3.profile ...). It
 *  - answers queries with the profile's limits and capabilities, each no
 *    larger than what rxe itself has (a limit rxe cannot honour would fail
 *    where the card would not): ibv_query_device, ibv_query_device_ex (ODP,
 *    device memory), ibv_query_port (active MTU);
 *  - refuses what the card would refuse, with the card's errno: a QP above
 *    its limits (EINVAL), an ODP registration on a card without ODP
 *    (EOPNOTSUPP), a device-memory allocation on a card without it
 *    (EOPNOTSUPP), an ODP prefetch there (EOPNOTSUPP);
 *  - performs ibv_rereg_mr(IBV_REREG_MR_CHANGE_TRANSLATION), which rxe
 *    lacks, as the card does: the range registered anew and the old
 *    registration released. "rereg new-key" (mlx5 when it must recreate the
 *    MR): the caller's ibv_mr holds the new keys, and a READ under the old
 *    rkey fails. "rereg keep" (mlx4, and mlx5's in-place update): the
 *    caller's keys stay as they were; rxe cannot re-point a key, so every
 *    process of the job translates a kept key to the registration behind it
 *    when it posts, through a table in a file they share (NETMEM_NIC_KEYS).
 * It cannot imitate InfiniBand's link layer, the card's speed, its firmware
 * or device memory itself (a DM profile reports the size; an allocation
 * still fails, as rxe has none). Every refusal is counted on stderr at exit
 * when NETMEM_NIC_PROFILE_VERBOSE=1. */
#include "mtu.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct profile {
	char name[32];
	int loaded;
	long max_qp_wr, max_sge, max_qp_rd_atom, max_qp_init_rd_atom, max_inline, max_cqe;
	int atomic_cap;     /* enum ibv_atomic_cap */
	int odp;            /* RC ODP for SEND, RECV, WRITE, READ, ATOMIC */
	long dm_size;       /* bytes of device memory; 0: none */
	int active_mtu;     /* bytes */
	int rereg;          /* 1: ibv_rereg_mr changes the keys; 0: the card keeps them */
} profile;

static profile prof;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned long refused_qp, refused_odp, refused_dm, rereg_done;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "nicprof: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void report(void)
{
	if (getenv("NETMEM_NIC_PROFILE_VERBOSE"))
		fprintf(stderr, "nicprof %s: refused %lu QPs, %lu ODP registrations, %lu DM allocations; %lu rereg\n",
			prof.name, refused_qp, refused_odp, refused_dm, rereg_done);
}

/* "key value" lines; '#' starts a comment. Every key is required. */
static void load(void)
{
	const char *path = getenv("NETMEM_NIC_PROFILE");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot read the profile %s", path);
	char line[512], key[64], val[64];
	unsigned seen = 0;
	static const char *const keys[] = {"name", "max_qp_wr", "max_sge", "max_qp_rd_atom", "max_qp_init_rd_atom",
					   "max_inline_data", "max_cqe", "atomic_cap", "odp", "dm_size", "active_mtu",
					   "rereg", NULL};
	while (fgets(line, sizeof line, f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		if (sscanf(line, "%63s %63s", key, val) != 2)
			continue;
		int k = 0;
		while (keys[k] && strcmp(keys[k], key))
			k++;
		if (!keys[k])
			die("unknown key in the profile: %s", key);
		seen |= 1u << k;
		long v = strtol(val, NULL, 0);
		switch (k) {
		case 0: snprintf(prof.name, sizeof prof.name, "%.31s", val); break;
		case 1: prof.max_qp_wr = v; break;
		case 2: prof.max_sge = v; break;
		case 3: prof.max_qp_rd_atom = v; break;
		case 4: prof.max_qp_init_rd_atom = v; break;
		case 5: prof.max_inline = v; break;
		case 6: prof.max_cqe = v; break;
		case 7:
			prof.atomic_cap = !strcmp(val, "none") ? IBV_ATOMIC_NONE : !strcmp(val, "hca") ? IBV_ATOMIC_HCA :
					  !strcmp(val, "glob") ? IBV_ATOMIC_GLOB : -1;
			if (prof.atomic_cap < 0)
				die("atomic_cap must be none, hca or glob, not %s", val);
			break;
		case 8: prof.odp = !strcmp(val, "yes"); break;
		case 9: prof.dm_size = v; break;
		case 10:
			prof.active_mtu = (int)v;
			if (!nm_mtu_from_bytes((int)v))
				die("active_mtu must be 256 to 4096, not %s", val);
			break;
		case 11:
			if (strcmp(val, "new-key") && strcmp(val, "keep"))
				die("rereg must be new-key or keep, not %s", val);
			prof.rereg = !strcmp(val, "new-key");
			break;
		}
	}
	fclose(f);
	for (int k = 0; keys[k]; k++)
		if (!(seen & (1u << k)))
			die("the profile lacks %s", keys[k]);
	prof.loaded = 1;
	atexit(report);
}

static const profile *P(void)
{
	pthread_once(&once, load);
	return prof.loaded ? &prof : NULL;
}

/* A bad profile ends the process as it starts, before any verbs call. */
__attribute__((constructor)) static void nicprof_init(void)
{
	(void)P();
}

static void *next(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);
	if (!f)
		die("libibverbs has no %s", sym);
	return f;
}

static long lmin(long a, long b) { return a < b ? a : b; }

/* The profile's limits over the device's own: never above either. */
static void limit_attr(const profile *p, struct ibv_device_attr *a)
{
	a->max_qp_wr = (int)lmin(a->max_qp_wr, p->max_qp_wr);
	a->max_sge = (int)lmin(a->max_sge, p->max_sge);
	a->max_sge_rd = (int)lmin(a->max_sge_rd, p->max_sge);
	a->max_qp_rd_atom = (int)lmin(a->max_qp_rd_atom, p->max_qp_rd_atom);
	a->max_qp_init_rd_atom = (int)lmin(a->max_qp_init_rd_atom, p->max_qp_init_rd_atom);
	a->max_cqe = (int)lmin(a->max_cqe, p->max_cqe);
	if (p->atomic_cap == IBV_ATOMIC_NONE)
		a->atomic_cap = IBV_ATOMIC_NONE;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	static int (*real)(struct ibv_context *, struct ibv_device_attr *);
	if (!real)
		real = next("ibv_query_device");
	int rc = real(ctx, a);
	if (rc == 0 && P())
		limit_attr(P(), a);
	return rc;
}

/* The provider's own entries, replaced in each context this opens. */
static int (*real_query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t);
static int (*real_query_device_ex)(struct ibv_context *, const struct ibv_query_device_ex_input *,
				   struct ibv_device_attr_ex *, size_t);
static int (*real_advise_mr)(struct ibv_pd *, enum ibv_advise_mr_advice, uint32_t, struct ibv_sge *, uint32_t);

static int my_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *a, size_t len)
{
	int rc = real_query_port(ctx, port, a, len);
	if (rc == 0 && nm_mtu_from_bytes(P()->active_mtu) < (int)a->active_mtu)
		a->active_mtu = (enum ibv_mtu)nm_mtu_from_bytes(P()->active_mtu);
	return rc;
}

static int my_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			      struct ibv_device_attr_ex *a, size_t len)
{
	int rc = real_query_device_ex(ctx, in, a, len);
	if (rc)
		return rc;
	const profile *p = P();
	limit_attr(p, &a->orig_attr);
	if (!p->odp) /* general_caps' IBV_ODP_SUPPORT with the rest */
		memset(&a->odp_caps, 0, sizeof a->odp_caps);
	if (len >= offsetof(struct ibv_device_attr_ex, max_dm_size) + sizeof a->max_dm_size)
		a->max_dm_size = (uint64_t)p->dm_size;
	return 0;
}

static struct ibv_dm *my_alloc_dm(struct ibv_context *ctx, struct ibv_alloc_dm_attr *attr)
{
	(void)ctx;
	(void)attr;
	__atomic_add_fetch(&refused_dm, 1, __ATOMIC_RELAXED);
	errno = EOPNOTSUPP; /* no device memory on the card; none on rxe either */
	return NULL;
}

static int my_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice adv, uint32_t flags, struct ibv_sge *sg,
			uint32_t n)
{
	if (!P()->odp)
		return EOPNOTSUPP;
	return real_advise_mr ? real_advise_mr(pd, adv, flags, sg, n) : EOPNOTSUPP;
}

/* ---- kept keys ("rereg keep") ----
 * A table of kept key -> the key of the registration now behind it, in a
 * file every process of the job maps (one job per file: a key rxe gives
 * out later must not meet an old job's entry). Open addressing; an entry is
 * never removed within a job. */
#define KEYS_N 8192
typedef struct key_slot {
	uint32_t kept, real; /* kept 0: empty */
} key_slot;
static key_slot *keys;

/* Once, as a context opens (never on the posting path); NULL without
 * NETMEM_NIC_KEYS, and then a rereg under "keep" ends the process. */
static key_slot *keys_map(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&mu);
	const char *path = getenv("NETMEM_NIC_KEYS");
	if (!keys && path && *path) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, KEYS_N * sizeof(key_slot)))
			die("cannot open the kept-key table %s", path);
		void *m = mmap(NULL, KEYS_N * sizeof(key_slot), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			die("cannot map the kept-key table %s", path);
		keys = m;
	}
	pthread_mutex_unlock(&mu);
	return keys;
}

static uint32_t key_real(uint32_t k)
{
	for (uint32_t i = 0, h = (k * 2654435761u) % KEYS_N; i < KEYS_N; i++, h = (h + 1) % KEYS_N) {
		uint32_t kept = __atomic_load_n(&keys[h].kept, __ATOMIC_ACQUIRE);
		if (kept == k)
			return __atomic_load_n(&keys[h].real, __ATOMIC_ACQUIRE);
		if (kept == 0)
			return k;
	}
	return k;
}

static void key_set(uint32_t kept, uint32_t real)
{
	if (!keys)
		die("rereg keep needs %s: a file the job's processes share", "NETMEM_NIC_KEYS");
	for (uint32_t i = 0, h = (kept * 2654435761u) % KEYS_N; i < KEYS_N; i++, h = (h + 1) % KEYS_N) {
		uint32_t cur = __atomic_load_n(&keys[h].kept, __ATOMIC_ACQUIRE);
		if (cur == 0) {
			__atomic_store_n(&keys[h].real, real, __ATOMIC_RELEASE);
			if (__atomic_compare_exchange_n(&keys[h].kept, &cur, kept, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return;
		}
		if (cur == kept) {
			__atomic_store_n(&keys[h].real, real, __ATOMIC_RELEASE);
			return;
		}
	}
	die("the kept-key table is full (%s)", "NETMEM_NIC_KEYS");
}

static int (*real_post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);

/* A copy of the chain with every kept key translated: the caller's work
 * requests keep the keys it gave, to post again. */
static int my_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	enum { MAXWR = 64, MAXSGE = 256 };
	struct ibv_send_wr copy[MAXWR], *orig[MAXWR];
	struct ibv_sge sge[MAXSGE];
	int n = 0, ns = 0;
	for (struct ibv_send_wr *w = wr; w; w = w->next) {
		if (n == MAXWR || ns + w->num_sge > MAXSGE)
			return ENOMEM;
		orig[n] = w;
		copy[n] = *w;
		copy[n].sg_list = sge + ns;
		for (int i = 0; i < w->num_sge; i++) {
			sge[ns + i] = w->sg_list[i];
			sge[ns + i].lkey = key_real(w->sg_list[i].lkey);
		}
		ns += w->num_sge;
		switch (w->opcode) {
		case IBV_WR_RDMA_READ:
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			copy[n].wr.rdma.rkey = key_real(w->wr.rdma.rkey);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			copy[n].wr.atomic.rkey = key_real(w->wr.atomic.rkey);
			break;
		default:
			break;
		}
		if (n > 0)
			copy[n - 1].next = &copy[n];
		n++;
	}
	if (n)
		copy[n - 1].next = NULL;
	struct ibv_send_wr *b = NULL;
	int rc = real_post_send(qp, n ? copy : wr, &b);
	if (rc && bad)
		*bad = b ? orig[b - copy] : wr;
	return rc;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	static struct ibv_context *(*real)(struct ibv_device *);
	if (!real)
		real = next("ibv_open_device");
	struct ibv_context *ctx = real(dev);
	struct verbs_context *v = ctx && P() ? verbs_get_ctx(ctx) : NULL;
	if (!v)
		return ctx;
	if (v->query_port && v->query_port != my_query_port) {
		real_query_port = v->query_port;
		v->query_port = my_query_port;
	}
	if (v->query_device_ex && v->query_device_ex != my_query_device_ex) {
		real_query_device_ex = v->query_device_ex;
		v->query_device_ex = my_query_device_ex;
	}
	if (v->advise_mr != my_advise_mr) {
		real_advise_mr = v->advise_mr;
		v->advise_mr = my_advise_mr;
	}
	v->alloc_dm = my_alloc_dm;
	/* kept keys: posts translate them, when the job gave a table */
	if (!P()->rereg && keys_map() && ctx->ops.post_send != my_post_send) {
		real_post_send = ctx->ops.post_send;
		ctx->ops.post_send = my_post_send;
	}
	return ctx;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	static struct ibv_qp *(*real)(struct ibv_pd *, struct ibv_qp_init_attr *);
	if (!real)
		real = next("ibv_create_qp");
	const profile *p = P();
	if (p && (a->cap.max_send_wr > (uint32_t)p->max_qp_wr || a->cap.max_recv_wr > (uint32_t)p->max_qp_wr ||
		  a->cap.max_send_sge > (uint32_t)p->max_sge || a->cap.max_recv_sge > (uint32_t)p->max_sge ||
		  a->cap.max_inline_data > (uint32_t)p->max_inline)) {
		__atomic_add_fetch(&refused_qp, 1, __ATOMIC_RELAXED);
		errno = EINVAL;
		return NULL;
	}
	struct ibv_qp *qp = real(pd, a);
	/* the card answers its own inline size, never more than asked of it */
	if (qp && p && a->cap.max_inline_data > (uint32_t)p->max_inline)
		a->cap.max_inline_data = (uint32_t)p->max_inline;
	return qp;
}

static int odp_refused(int access)
{
	const profile *p = P();
	if (p && !p->odp && (access & IBV_ACCESS_ON_DEMAND)) {
		__atomic_add_fetch(&refused_odp, 1, __ATOMIC_RELAXED);
		errno = EOPNOTSUPP;
		return 1;
	}
	return 0;
}

/* ibv_reg_mr is also verbs.h's macro: the function needs its name in
 * parentheses */
struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	static struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t, int);
	if (!real)
		real = next("ibv_reg_mr");
	return odp_refused(access) ? NULL : real(pd, addr, len, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access)
{
	static struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
	if (!real)
		real = next("ibv_reg_mr_iova2");
	return odp_refused((int)access) ? NULL : real(pd, addr, len, iova, access);
}

/* CHANGE_TRANSLATION (with or without CHANGE_ACCESS): the range registered
 * anew, the caller's ibv_mr given the new registration and the old one
 * released through a scratch ibv_mr, so the old keys are invalid from the
 * return on. Anything else goes to the provider. */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t len, int access)
{
	static int (*real)(struct ibv_mr *, int, struct ibv_pd *, void *, size_t, int);
	static struct ibv_mr *(*reg)(struct ibv_pd *, void *, size_t, int);
	static int (*dereg)(struct ibv_mr *);
	if (!real) {
		real = next("ibv_rereg_mr");
		reg = next("ibv_reg_mr");
		dereg = next("ibv_dereg_mr");
	}
	if (!P() || !(flags & IBV_REREG_MR_CHANGE_TRANSLATION) || (flags & IBV_REREG_MR_CHANGE_PD))
		return real(mr, flags, pd, addr, len, access);
	if (odp_refused(access))
		return IBV_REREG_MR_ERR_INPUT;
	struct ibv_mr *fresh = reg(mr->pd, addr, len, access);
	if (!fresh)
		return IBV_REREG_MR_ERR_CMD;
	/* the provider's record of each registration begins with its ibv_mr:
	 * swapping those hands the caller the new one and fresh the old */
	struct ibv_mr t = *mr;
	*mr = *fresh;
	*fresh = t;
	if (!P()->rereg) { /* the card keeps the keys: the caller's stay, and point here */
		key_set(t.lkey, mr->lkey);
		if (t.rkey != t.lkey)
			key_set(t.rkey, mr->rkey);
		mr->lkey = t.lkey;
		mr->rkey = t.rkey;
	}
	if (dereg(fresh))
		return IBV_REREG_MR_ERR_CMD;
	__atomic_add_fetch(&rereg_done, 1, __ATOMIC_RELAXED);
	return 0;
}
