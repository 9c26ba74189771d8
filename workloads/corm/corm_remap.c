/* netmem corm --bench remap (CoRM Fig. 8): what it costs to point one block
 * VA at another physical block while keeping one-sided access, per strategy
 * (corm_remap_bench in corm_bench.h), and the first READ after the remap.
 *
 * One block of --block-size bytes at a block-aligned VA, shown alternately
 * from two memfd files whose words carry their file's tag. Each iteration:
 * mmap(MAP_FIXED) of the other file onto the VA, the strategy's NIC step,
 * then two READs of 64 bytes at the block's start: the first one after the
 * remap (ODP: the NIC faults the new page in) and a second one (steady).
 * Both must return the new file's bytes, else the point is invalid. The
 * iterations run in the harness's measured loop (warm-up, --iters or
 * --duration): one iteration is one operation, and its parts are timed as
 * the kinds of metrics.lat_by_op, whose medians Fig. 8 plots.
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
#include "workers.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define READ_LEN 64u

typedef enum { RL_MMAP, RL_NIC, RL_REMAP, RL_FIRST, RL_STEADY, RL_N } remap_lat;
static const char *const remap_lat_names[RL_N] = {"mmap", "nic_step", "remap", "first_read", "steady_read"};

/* Every READ is checked, warm-up included; the counts are the point's checks. */
typedef enum { RC_READS_OK, RC_READS_WRONG, RC_KEYS_CHANGED, RC_N } remap_counter;
static const nm_counter remap_counters[RC_N] = {{"reads_ok", 0}, {"reads_wrong", 0}, {"keys_changed", 0}};

typedef struct remap_run {
	nm_dev *dev;
	const nm_qp_attr *qa;
	double timeout;
	corm_remap strat;
	uint32_t block;
	uint8_t *raw, *va;   /* the reservation, the block-aligned VA in it */
	int fd[2];
	struct ibv_mr *mr;
	corm_loop loop;
	bool ready;          /* set up without error */
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

/* The strategy's NIC step after the remap: -1 with err, else 1 when the
 * rkey changed (defer; rereg on a device that re-keys), 0 when it did not. */
static int nic_step(remap_run *r, char *err, size_t errlen)
{
	switch (r->strat) {
	case CORM_STRAT_REREG: {
		/* the READ after it takes r->mr->rkey, the new key if the device gave one */
		uint32_t old = r->mr->rkey;
		if (ibv_rereg_mr(r->mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, r->va, r->block, CORM_ACCESS))
			return nm_errf(err, errlen, "ibv_rereg_mr: %s", strerror(errno));
		return r->mr->rkey != old;
	}
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
		return r->mr->rkey != old;
	}
	default:
		return 0;
	}
}

/* One READ of the block's start, timed into *ns: it must return file f's
 * bytes. A failed READ leaves the loopback QP in error: false, nothing more
 * can be read. */
static bool read_check(remap_run *r, nm_meter *m, int f, remap_lat k, uint64_t it, uint64_t *ns)
{
	uint64_t t0 = nm_ticks();
	int rc = corm_loop_read(&r->loop, (uintptr_t)r->va, r->mr->rkey, READ_LEN, r->timeout);
	*ns = nm_ticks_to_ns(nm_ticks() - t0);
	bool ok = rc == 0;
	for (uint32_t i = 0; ok && i < READ_LEN / 4; i++)
		ok = ((const uint32_t *)r->loop.buf)[i] == tag_word(f, i);
	m->c[ok ? RC_READS_OK : RC_READS_WRONG]++;
	if (!ok)
		nm_error_note(&m->err, "remap %" PRIu64 ": the %s READ %s", it, remap_lat_names[k],
			      rc ? "failed or timed out" : "returned the old file's bytes");
	return rc == 0;
}

/* Before the common start: the files, the MR, the loopback QP, and the
 * first mapping faulted in by one READ. */
static void remap_setup(nm_worker *w)
{
	remap_run *r = w->arg;
	char err[512] = "";
	uint64_t ns;
	if (make_files(r, err, sizeof err) || corm_loop_open(&r->loop, r->dev, r->qa, READ_LEN, err, sizeof err)) {
		nm_error_note(&w->meter->err, "%s", err);
		return;
	}
	r->ready = read_check(r, w->meter, 0, RL_STEADY, 0, &ns);
}

/* One remap onto file f: the mmap, then the strategy's NIC step; their
 * times into ns[RL_MMAP], ns[RL_NIC], ns[RL_REMAP]. -1 with err, else
 * nic_step's 0 or 1. */
static int remap_once(remap_run *r, int f, uint64_t *ns, char *err, size_t errlen)
{
	uint64_t t0 = nm_ticks();
	if (mmap(r->va, r->block, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->fd[f], 0) == MAP_FAILED)
		return nm_errf(err, errlen, "mmap(MAP_FIXED): %s", strerror(errno));
	uint64_t t1 = nm_ticks();
	int rc = nic_step(r, err, errlen);
	uint64_t t2 = nm_ticks();
	ns[RL_MMAP] = nm_ticks_to_ns(t1 - t0);
	ns[RL_NIC] = nm_ticks_to_ns(t2 - t1);
	ns[RL_REMAP] = nm_ticks_to_ns(t2 - t0);
	return rc;
}

/* The measured loop: one iteration is a remap and the two READs after it;
 * its parts are timed as kinds when the iteration is measured. */
static void remap_body(nm_worker *w)
{
	remap_run *r = w->arg;
	nm_meter *m = w->meter;
	char err[512] = "";
	nm_loop lp;
	nm_loop_init(&lp, m);
	while (r->ready && nm_loop_next(&lp)) {
		int f = (int)(lp.i & 1);
		uint64_t ns[RL_N], t0 = nm_ticks();
		int rc = remap_once(r, f, ns, err, sizeof err);
		if (rc < 0)
			nm_error_note(&m->err, "remap %" PRIu64 ": %s", lp.i, err);
		if (rc < 0 || !read_check(r, m, f, RL_FIRST, lp.i, &ns[RL_FIRST]) ||
		    !read_check(r, m, f, RL_STEADY, lp.i, &ns[RL_STEADY])) {
			/* the block or the QP is in no known state: the loop ends here */
			nm_loop_stop(&lp);
			break;
		}
		m->c[RC_KEYS_CHANGED] += (uint64_t)rc;
		if (nm_loop_done(&lp, t0, nm_ticks()))
			for (int k = 0; k < RL_N; k++)
				nm_meter_kind(m, k, ns[k]);
	}
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

/* The median of kind k in us. */
static double median_us(const nm_measure *ms, remap_lat k) { return nm_hist_quantile(&ms->kind[k], 0.5) / 1e3; }

/* Rank 0: the measure's metrics, with the medians Fig. 8 plots; the checks. */
static void remap_result(const nm_measure *ms, json_t *out)
{
	json_t *m = nm_measure_metrics(ms);
	double first = median_us(ms, RL_FIRST), steady = median_us(ms, RL_STEADY);
	json_object_set_new(m, "mmap_us", json_real(median_us(ms, RL_MMAP)));
	json_object_set_new(m, "nic_step_us", json_real(median_us(ms, RL_NIC)));
	json_object_set_new(m, "remap_us", json_real(median_us(ms, RL_REMAP)));
	json_object_set_new(m, "first_read_us", json_real(first));
	json_object_set_new(m, "steady_read_us", json_real(steady));
	json_object_set_new(m, "first_read_penalty_us", json_real(first - steady));
	json_object_set_new(out, "metrics", m);
	const uint64_t *c = ms->total_c;
	json_t *ck = json_object();
	json_object_set_new(ck, "ok", json_boolean(ms->errors == 0));
	if (ms->first_error[0])
		json_object_set_new(ck, "first_error", json_string(ms->first_error));
	for (int k = 0; k < RC_N; k++)
		json_object_set_new(ck, remap_counters[k].name, json_integer((json_int_t)c[k]));
	json_object_set_new(out, "checks", ck);
	json_object_set_new(out, "valid", json_boolean(ms->errors == 0 && c[RC_READS_WRONG] == 0 && c[RC_READS_OK] > 0));
}

void corm_remap_bench(nm_ctx *ctx, const corm_point *p, corm_remap strat, bool run, json_t *out)
{
	static const nm_measure_def def = {"remaps", remap_counters, RC_N, remap_lat_names, RL_N};
	int T = run ? 1 : 0;
	nm_measure *ms = nm_measure_new(&ctx->base.measure, &def, ctx->rank, T);
	remap_run r = {.dev = ctx->dev, .qa = &ctx->base.qp, .timeout = ctx->base.timeout, .strat = strat,
		       .block = p->block_size, .fd = {-1, -1}};
	if (run) {
		nm_round rd = {.workers = 1, .numa_node = ctx->base.mem_node, .setup = remap_setup, .body = remap_body,
			       .arg = &r, .measure = ms};
		nm_workers_run(&rd);
	} else {
		nm_workers_sit_out(ms);
	}
	remap_close(&r);
	nm_measure_gather(ms);
	if (run)
		remap_result(ms, out);
	nm_measure_free(ms);
}
