/* netmem corm's device probe (corm.h): what the NIC can do to keep one-sided
 * access across a remap (ibv_rereg_mr keeping keys, ODP, ibv_advise_mr), and
 * whether an RDMA READ through an ODP MR returns the right bytes, checked
 * with real READs over a loopback RC QP on the server's own device.
 *
 * Why read at all: the capability bits are not the behaviour. rxe's ODP in
 * the 7.x kernels advertises RC READ, and a READ at a page-aligned address
 * returns the right bytes and follows an mmap(MAP_FIXED) remap, but a READ
 * that starts inside a page returns the bytes from the start of that page,
 * and every packet after the first of a multi-packet response does the same
 * (the in-page offset is computed and then not applied when copying out of
 * the faulted page). CoRM's ID check turns such a read into a clean miss,
 * never into foreign bytes; the benches count those misses apart. */
#include "corm.h"
#include <stdio.h>
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *const corm_remap_names[CORM_NSTRATS] = {"auto", "rereg", "odp", "odp-prefetch", "defer"};

/* ---- a loopback RC QP for READs from the server to itself ---- */

int corm_loop_open(corm_loop *l, nm_dev *d, const nm_qp_attr *qa_in, uint32_t len, char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	nm_qp_attr qa = *qa_in;
	qa.sq_depth = 4;
	qa.max_inline = 0;
	l->buf = nm_calloc(1, len);
	l->len = len;
	l->cq = ibv_create_cq(d->ctx, 8, NULL, NULL, 0);
	l->mr = ibv_reg_mr(d->pd, l->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!l->cq || !l->mr) {
		corm_loop_close(l);
		return nm_errf(err, errlen, "loopback QP: CQ or buffer: %s", strerror(errno));
	}
	l->qp = nm_qp_create(d, l->cq, &qa, NULL, err, errlen);
	if (!l->qp) {
		corm_loop_close(l);
		return -1;
	}
	nm_ep ep;
	nm_qp_local_ep(d, l->qp, &ep);
	if (nm_qp_connect(d, l->qp, &qa, &ep, &ep, err, errlen)) {
		corm_loop_close(l);
		return -1;
	}
	return 0;
}

int corm_loop_read(corm_loop *l, uint64_t addr, uint32_t rkey, uint32_t len, double timeout)
{
	if (len > l->len)
		return -1;
	nm_msg_read(l->qp, l->buf, len, l->mr->lkey, addr, rkey, 0, "corm loopback");
	/* a probe's READ may fail: the caller decides, the job goes on */
	struct ibv_wc wc;
	return nm_wait_one(l->cq, &wc, timeout) == 0 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
}

void corm_loop_close(corm_loop *l)
{
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->mr)
		ibv_dereg_mr(l->mr);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	free(l->buf);
	memset(l, 0, sizeof *l);
}

/* ---- capabilities ---- */

/* Word i of a probe page: tag << 24 | i, so a read knows where its bytes
 * came from. */
static void probe_fill(void *va, size_t len, uint32_t tag)
{
	for (size_t i = 0; i < len / 4; i++)
		((uint32_t *)va)[i] = tag << 24 | (uint32_t)i;
}

static bool probe_match(const void *got, uint32_t off, uint32_t len, uint32_t tag)
{
	for (uint32_t i = 0; i < len / 4; i++)
		if (((const uint32_t *)got)[i] != (tag << 24 | (off / 4 + i)))
			return false;
	return true;
}

/* READs through an ODP MR at va (showing fb's page): one inside the page,
 * then one at its start after fa's page is mapped over it. */
static void probe_odp_reads(nm_dev *d, const nm_qp_attr *qa, corm_caps *caps, void *va, size_t pg, int fa)
{
	corm_loop l;
	char err[256];
	struct ibv_mr *mr = ibv_reg_mr(d->pd, va, pg, CORM_ACCESS | IBV_ACCESS_ON_DEMAND);
	if (!mr || corm_loop_open(&l, d, qa, 64, err, sizeof err)) {
		if (mr)
			ibv_dereg_mr(mr);
		return;
	}
	probe_fill(va, pg, 0xb2);
	const uint32_t off = 256, len = 64;
	int rc = corm_loop_read(&l, (uintptr_t)va + off, mr->rkey, len, 10);
	caps->odp_read_offset_ok = rc == 0 && probe_match(l.buf, off, len, 0xb2);
	if (rc == 0 && mmap(va, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fa, 0) != MAP_FAILED) {
		probe_fill(va, pg, 0xa1);
		rc = corm_loop_read(&l, (uintptr_t)va, mr->rkey, len, 10);
		caps->odp_follows_remap = rc == 0 && probe_match(l.buf, 0, len, 0xa1);
		caps->odp_read_checked = rc == 0;
	}
	corm_loop_close(&l);
	ibv_dereg_mr(mr);
}

/* A page of one memfd registered at va, then another memfd's page mapped
 * over it: what a compaction does to a block. */
static void probe_remap(nm_dev *d, const nm_qp_attr *qa, corm_caps *caps)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fa = memfd_create("corm-probe-a", MFD_CLOEXEC), fb = memfd_create("corm-probe-b", MFD_CLOEXEC);
	caps->rereg_errno = caps->advise_errno = EOPNOTSUPP;
	if (fa < 0 || fb < 0 || ftruncate(fa, pg) || ftruncate(fb, pg))
		goto out;
	void *va = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 0);
	if (va == MAP_FAILED)
		goto out;
	memset(va, 1, (size_t)pg);
	struct ibv_mr *mr = ibv_reg_mr(d->pd, va, (size_t)pg, CORM_ACCESS);
	if (mr) {
		mmap(va, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fb, 0);
		errno = 0;
		uint32_t key = mr->rkey;
		int rc = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, va, (size_t)pg, CORM_ACCESS);
		caps->rereg_errno = rc == 0 ? 0 : errno ? errno : EOPNOTSUPP;
		caps->rereg_new_key = rc == 0 && mr->rkey != key;
		ibv_dereg_mr(mr);
	}
	if (caps->odp_rc_read) {
		mr = ibv_reg_mr(d->pd, va, (size_t)pg, CORM_ACCESS | IBV_ACCESS_ON_DEMAND);
		if (mr) {
			struct ibv_sge sge = {.addr = (uintptr_t)va, .length = (uint32_t)pg, .lkey = mr->lkey};
			caps->advise_errno = ibv_advise_mr(d->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
							   IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
			ibv_dereg_mr(mr);
			probe_odp_reads(d, qa, caps, va, (size_t)pg, fa);
		} else {
			caps->odp_rc_read = false;
		}
	}
	munmap(va, (size_t)pg);
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
}

bool corm_strategy_supported(const corm_caps *caps, corm_remap s)
{
	switch (s) {
	case CORM_STRAT_REREG:
		return caps->rereg_errno == 0;
	case CORM_STRAT_ODP:
		return caps->odp_rc_read;
	case CORM_STRAT_ODP_PREFETCH:
		return caps->odp_rc_read && caps->advise_errno == 0;
	case CORM_STRAT_DEFER:
		return true;
	default:
		return false;
	}
}

/* Why auto picked s, for the result document: without ODP (ConnectX-3,
 * Soft-RoCE on older kernels) compaction must still run while clients
 * read, under rereg or else deferred reclamation. */
static void auto_reason(const nm_dev *d, corm_caps *caps, corm_remap s)
{
	char *w = caps->auto_reason;
	size_t n = sizeof caps->auto_reason;
	if (s == CORM_STRAT_ODP_PREFETCH)
		snprintf(w, n, "ODP for RC READ and ibv_advise_mr prefetch (the paper's default)");
	else if (s == CORM_STRAT_ODP)
		snprintf(w, n, "ODP for RC READ; ibv_advise_mr: %s", strerror(caps->advise_errno));
	else if (s == CORM_STRAT_REREG)
		snprintf(w, n, "%s has no ODP for RC READ: ibv_rereg_mr after each remap (a READ meeting it is refused, "
			 "recovered and falls back)", d->name);
	else
		snprintf(w, n, "%s has no ODP for RC READ and ibv_rereg_mr fails (%s): deferred reclamation, reads go on "
			 "while compacting (a moved object's DirectRead misses and falls back to RPC)",
			 d->name, strerror(caps->rereg_errno));
}

int corm_probe(nm_dev *d, const nm_qp_attr *qa, corm_caps *caps, corm_remap want, corm_remap *got, char *err,
	       size_t errlen)
{
	memset(caps, 0, sizeof *caps);
	caps->odp_rc_read = nm_dev_odp_rc(d);
	probe_remap(d, qa, caps);
	if (want == CORM_STRAT_AUTO) {
		/* The paper's default is ODP + prefetch; rereg keeps keys on any
		 * NIC but breaks a QP that reads during it, so it comes after ODP. */
		static const corm_remap order[] = {CORM_STRAT_ODP_PREFETCH, CORM_STRAT_ODP, CORM_STRAT_REREG,
						      CORM_STRAT_DEFER};
		for (size_t i = 0; i < sizeof order / sizeof *order; i++)
			if (corm_strategy_supported(caps, order[i])) {
				*got = order[i];
				auto_reason(d, caps, *got);
				return 0;
			}
	}
	if (!corm_strategy_supported(caps, want))
		return nm_errf(err, errlen,
			       "--strategy %s: %s does not support it (ODP for RC reads: %s, ibv_rereg_mr: %s, "
			       "ibv_advise_mr: %s)",
			       corm_remap_names[want], d->name, caps->odp_rc_read ? "yes" : "no",
			       caps->rereg_errno ? strerror(caps->rereg_errno) : "ok",
			       caps->advise_errno ? strerror(caps->advise_errno) : "ok");
	*got = want;
	return 0;
}
