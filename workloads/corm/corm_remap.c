/* netmem corm --bench remap (CoRM Fig. 8): what it costs to point one block
 * VA at another physical block while keeping one-sided access, per strategy
 * (corm_remap_bench in corm_bench.h), and the first READ after the remap.
 *
 * One block of --block-size bytes at a block-aligned VA, shown alternately
 * from two memfd files whose words carry their file's tag. Each iteration:
 * mmap(MAP_FIXED) of the other file onto the VA, the strategy's NIC step,
 * then two READs of 64 bytes at the block's start: the first one after the
 * remap (ODP: the NIC faults the new page in) and a second one (steady).
 * Both must return the new file's bytes, else the point is invalid.
 *
 * NIC steps: rereg ibv_rereg_mr(CHANGE_TRANSLATION), keys kept; odp none
 * (the mmap's invalidation is the whole step); odp-prefetch
 * ibv_advise_mr(PREFETCH, FLUSH) over the block; defer, on a device with
 * neither, stands for the fallback that changes keys: ibv_dereg_mr and
 * ibv_reg_mr of the VA (a new rkey every client must learn; labelled as
 * breaking the paper's no-disruption property).
 *
 * Decision where the paper is silent: the READs come from the server's own
 * loopback RC QP on the same device (corm_loop), so the measured first read
 * contains the responder's fault and nothing of another rank's scheduling;
 * the penalty is the first read minus the steady one, where the wire's
 * share cancels. The READs start at the block's start because rxe's ODP
 * ignores in-page offsets (corm_probe.c); on other devices that changes
 * nothing. */
#include "corm_bench.h"
#include "clock.h"
#include "log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define READ_LEN 64u

typedef enum { RL_MMAP, RL_NIC, RL_REMAP, RL_FIRST, RL_STEADY, RL_N } remap_lat;
static const char *const remap_lat_names[RL_N] = {"mmap", "nic_step", "remap", "first_read", "steady_read"};

typedef struct remap_run {
	nm_dev *dev;
	corm_remap strat;
	uint32_t block;
	uint8_t *raw, *va;   /* the reservation, the block-aligned VA in it */
	int fd[2];
	struct ibv_mr *mr;
	corm_loop loop;
	nm_hist lat[RL_N];
	uint64_t reads_ok, reads_wrong, keys_changed;
} remap_run;

static int access_flags(corm_remap s)
{
	return CORM_ACCESS | (s == CORM_STRAT_ODP || s == CORM_STRAT_ODP_PREFETCH ? IBV_ACCESS_ON_DEMAND : 0);
}

/* Word i of file f: (f + 1) << 28 | i, so a READ knows which file it saw. */
static inline uint32_t tag_word(int f, uint32_t i) { return (uint32_t)(f + 1) << 28 | (i & 0x0fffffffu); }

static int make_files(remap_run *r, char *err, size_t errlen)
{
	for (int f = 0; f < 2; f++) {
		r->fd[f] = memfd_create("corm-remap", MFD_CLOEXEC);
		if (r->fd[f] < 0 || ftruncate(r->fd[f], r->block))
			return nm_errf(err, errlen, "memfd of %u bytes: %s", r->block, strerror(errno));
		uint32_t *w = mmap(NULL, r->block, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd[f], 0);
		if (w == MAP_FAILED)
			return nm_errf(err, errlen, "mmap of a memfd: %s", strerror(errno));
		for (uint32_t i = 0; i < r->block / 4; i++)
			w[i] = tag_word(f, i);
		munmap(w, r->block);
	}
	/* a block-aligned VA inside a reservation, as CoRM's heap has */
	r->raw = mmap(NULL, 2 * (size_t)r->block, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->raw == MAP_FAILED) {
		r->raw = NULL;
		return nm_errf(err, errlen, "reserving %u bytes: %s", 2 * r->block, strerror(errno));
	}
	r->va = (uint8_t *)(((uintptr_t)r->raw + r->block - 1) & ~((uintptr_t)r->block - 1));
	if (mmap(r->va, r->block, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd[0], 0) == MAP_FAILED)
		return nm_errf(err, errlen, "mmap(MAP_FIXED): %s", strerror(errno));
	r->mr = ibv_reg_mr(r->dev->pd, r->va, r->block, access_flags(r->strat));
	if (!r->mr)
		return nm_errf(err, errlen, "ibv_reg_mr(%u bytes%s): %s", r->block,
			       access_flags(r->strat) & IBV_ACCESS_ON_DEMAND ? ", ODP" : "", strerror(errno));
	return 0;
}

static int nic_step(remap_run *r, char *err, size_t errlen)
{
	switch (r->strat) {
	case CORM_STRAT_REREG:
		if (ibv_rereg_mr(r->mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, r->va, r->block, CORM_ACCESS))
			return nm_errf(err, errlen, "ibv_rereg_mr: %s", strerror(errno));
		return 0;
	case CORM_STRAT_ODP_PREFETCH: {
		struct ibv_sge sge = {.addr = (uintptr_t)r->va, .length = r->block, .lkey = r->mr->lkey};
		int rc = ibv_advise_mr(r->dev->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		return rc ? nm_errf(err, errlen, "ibv_advise_mr: %s", strerror(rc)) : 0;
	}
	case CORM_STRAT_DEFER: {
		uint32_t old = r->mr->rkey;
		ibv_dereg_mr(r->mr);
		r->mr = ibv_reg_mr(r->dev->pd, r->va, r->block, CORM_ACCESS);
		if (!r->mr)
			return nm_errf(err, errlen, "ibv_reg_mr: %s", strerror(errno));
		r->keys_changed += r->mr->rkey != old;
		return 0;
	}
	default:
		return 0;
	}
}

static void read_check(remap_run *r, int f, remap_lat k, double timeout)
{
	uint64_t t0 = nm_ticks();
	int rc = corm_loop_read(&r->loop, (uintptr_t)r->va, r->mr->rkey, READ_LEN, timeout);
	nm_hist_add(&r->lat[k], nm_ticks_to_ns(nm_ticks() - t0));
	bool ok = rc == 0;
	for (uint32_t i = 0; ok && i < READ_LEN / 4; i++)
		ok = ((const uint32_t *)r->loop.buf)[i] == tag_word(f, i);
	if (ok)
		r->reads_ok++;
	else
		r->reads_wrong++;
}

static int iterate(remap_run *r, uint64_t iters, double timeout, char *err, size_t errlen)
{
	read_check(r, 0, RL_STEADY, timeout); /* the first mapping faulted in */
	for (uint64_t it = 0; it < iters; it++) {
		int f = (int)((it + 1) & 1);
		uint64_t t0 = nm_ticks();
		if (mmap(r->va, r->block, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd[f], 0) == MAP_FAILED)
			return nm_errf(err, errlen, "mmap(MAP_FIXED): %s", strerror(errno));
		uint64_t t1 = nm_ticks();
		if (nic_step(r, err, errlen))
			return -1;
		uint64_t t2 = nm_ticks();
		nm_hist_add(&r->lat[RL_MMAP], nm_ticks_to_ns(t1 - t0));
		nm_hist_add(&r->lat[RL_NIC], nm_ticks_to_ns(t2 - t1));
		nm_hist_add(&r->lat[RL_REMAP], nm_ticks_to_ns(t2 - t0));
		read_check(r, f, RL_FIRST, timeout);
		read_check(r, f, RL_STEADY, timeout);
	}
	return 0;
}

static void remap_close(remap_run *r)
{
	corm_loop_close(&r->loop);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->raw)
		munmap(r->raw, 2 * (size_t)r->block);
	for (int f = 0; f < 2; f++)
		if (r->fd[f] >= 0)
			close(r->fd[f]);
}

void corm_remap_bench(nm_ctx *ctx, const corm_point *p, corm_remap strat, json_t *out)
{
	remap_run r = {.dev = ctx->dev, .strat = strat, .block = p->block_size, .fd = {-1, -1}};
	for (int k = 0; k < RL_N; k++)
		nm_hist_init(&r.lat[k]);
	char err[512] = "";
	int rc = make_files(&r, err, sizeof err);
	if (!rc)
		rc = corm_loop_open(&r.loop, ctx->dev, &ctx->base.qp, READ_LEN, err, sizeof err);
	if (!rc)
		rc = iterate(&r, ctx->base.measure.iters, ctx->base.timeout, err, sizeof err);
	remap_close(&r);

	json_t *m = json_object(), *lat = json_object();
	for (int k = 0; k < RL_N; k++)
		if (r.lat[k].count)
			json_object_set_new(lat, remap_lat_names[k], nm_hist_summary_json(&r.lat[k]));
	json_object_set_new(m, "lat", lat);
	/* Medians in us: what Fig. 8 plots. */
	double first = nm_hist_quantile(&r.lat[RL_FIRST], 0.5) / 1e3, steady = nm_hist_quantile(&r.lat[RL_STEADY], 0.5) / 1e3;
	json_object_set_new(m, "mmap_us", json_real(nm_hist_quantile(&r.lat[RL_MMAP], 0.5) / 1e3));
	json_object_set_new(m, "nic_step_us", json_real(nm_hist_quantile(&r.lat[RL_NIC], 0.5) / 1e3));
	json_object_set_new(m, "remap_us", json_real(nm_hist_quantile(&r.lat[RL_REMAP], 0.5) / 1e3));
	json_object_set_new(m, "first_read_us", json_real(first));
	json_object_set_new(m, "steady_read_us", json_real(steady));
	json_object_set_new(m, "first_read_penalty_us", json_real(first - steady));
	json_object_set_new(out, "metrics", m);
	json_t *c = json_object();
	json_object_set_new(c, "ok", json_boolean(rc == 0));
	if (rc)
		json_object_set_new(c, "first_error", json_string(err));
	json_object_set_new(c, "reads_ok", json_integer((json_int_t)r.reads_ok));
	json_object_set_new(c, "reads_wrong", json_integer((json_int_t)r.reads_wrong));
	json_object_set_new(c, "keys_changed", json_integer((json_int_t)r.keys_changed));
	json_object_set_new(out, "checks", c);
	json_object_set_new(out, "valid", json_boolean(rc == 0 && r.reads_wrong == 0 && r.reads_ok > 0));
}
