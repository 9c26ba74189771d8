/* Instructions per operation of netmem ops's measured loops against a
 * perftest-style loop, with a fake verbs provider whose post and poll cost
 * the same for both: what the loops themselves add per operation, apart from
 * the device. Not a test; run through tests/bench/ops-hotpath.sh, which
 * counts instructions with valgrind at two run lengths and divides the
 * difference by the difference in operations.
 *
 *   ops-hotpath netmem|reference read|write|cas|faa lat|bw N
 *
 * The reference loops are perftest's shape as its source describes it:
 * latency, one clock read, post and spin on the CQ per iteration; bandwidth,
 * a clock read per post into an array, the signaled flag toggled by a
 * modulo of the post count, completions polled 16 at a time. */
#include "../../workloads/ops/ops_loop.c"
#include <stdio.h>
#include <stdlib.h>

/* ---- the fake provider: completions of signaled WRs, in order ---- */
enum { RING = 1 << 16 };
static struct {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	uint64_t ring[RING];
	unsigned head, tail;
	uint64_t faa;
} F;

static int fake_post(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	for (; wr; wr = wr->next) {
		uint64_t *result = (uint64_t *)(uintptr_t)wr->sg_list->addr;
		if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			*result = F.faa++;
		else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			*result = wr->wr.atomic.compare_add;
		if (wr->send_flags & IBV_SEND_SIGNALED)
			F.ring[F.tail++ & (RING - 1)] = wr->wr_id;
	}
	return 0;
}

static int fake_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i = 0;
	for (; i < n && F.head != F.tail; i++)
		wc[i] = (struct ibv_wc){.wr_id = F.ring[F.head++ & (RING - 1)], .status = IBV_WC_SUCCESS};
	return i;
}

/* The few harness calls ops_loop.c makes outside the loops measured here. */
void nm_numa_thread_start(nm_numa_point *np, int index, int cpu, bool working) {}
void nm_numa_thread_end(nm_numa_point *np, int index) {}
nm_conn *nm_mesh_find_qpn(const nm_mesh *m, int t, uint32_t qpn) { return NULL; }

/* ---- perftest's shape ---- */
static void ref_lat(struct ibv_send_wr *wr, uint64_t *tstamp, uint64_t n)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	for (uint64_t i = 0; i < n; i++) {
		tstamp[i] = nm_ticks();
		if (ibv_post_send(&F.qp, wr, &bad))
			exit(1);
		int ne;
		do
			ne = ibv_poll_cq(&F.cq, 1, &wc);
		while (ne == 0);
		if (ne < 0 || wc.status != IBV_WC_SUCCESS)
			exit(1);
	}
}

static void ref_bw(struct ibv_send_wr *wr, uint64_t *tposted, uint64_t *tdone, uint64_t n, uint64_t tx, uint64_t cq_mod)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc[16];
	uint64_t scnt = 0, ccnt = 0;
	while (scnt < n || ccnt < n) {
		while (scnt < n && scnt - ccnt < tx) {
			if (scnt % cq_mod == 0 && cq_mod > 1)
				wr->send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
			tposted[scnt] = nm_ticks();
			if (ibv_post_send(&F.qp, wr, &bad))
				exit(1);
			scnt++;
			if (scnt % cq_mod == cq_mod - 1 || scnt == n - 1)
				wr->send_flags |= IBV_SEND_SIGNALED;
		}
		int ne = ibv_poll_cq(&F.cq, 16, wc);
		for (int i = 0; i < ne; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				exit(1);
			ccnt += cq_mod;
			if (ccnt > n)
				ccnt = n;
			tdone[ccnt - 1] = nm_ticks();
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: ops-hotpath netmem|reference read|write|cas|faa lat|bw N\n");
		return 2;
	}
	static const char *const ops[] = {"read", "write", "cas", "faa"};
	int op = NM_OP_READ;
	for (int i = 0; i < 4; i++)
		if (!strcmp(argv[2], ops[i]))
			op = NM_OP_READ + i;
	bool bw = !strcmp(argv[3], "bw");
	uint64_t n = strtoull(argv[4], NULL, 10);
	nm_clock_init();
	F.ctx.ops.post_send = fake_post;
	F.ctx.ops.poll_cq = fake_poll;
	F.qp.context = F.cq.context = &F.ctx;

	static uint8_t mem[1 << 16] __attribute__((aligned(64)));
	struct ibv_mr mr = {.lkey = 1};
	nm_conn c = {.qp = &F.qp, .peer = 1, .rmr = {.addr = 4096, .rkey = 2}, .max_inline = bw ? 0 : 220};
	struct ibv_cq *cqs[1] = {&F.cq};
	nm_mesh mesh = {.cq = cqs, .nranks = 2, .nthreads = 1, .qps = 1, .conn = &c};
	ops_point p = {.op = op, .mode = bw ? MODE_BW : MODE_LAT, .window = bw ? 128 : 1, .batch = bw ? 100 : 1,
		       .interval_ns = 100000000};
	ops_job j = {.p = &p, .op = op, .T = 1, .W = p.window, .batch = p.batch, .size = op >= NM_OP_CAS ? 8 : 64,
		     .mr = {.buf = mem, .mr = &mr}};
	conn_state *s = nm_calloc64(1, sizeof *s);
	ops_thread *t = nm_calloc64(1, sizeof *t);
	*s = (conn_state){.c = &c, .buf = mem, .raddr = 8192, .cas_raddr = 64, .mask = 255};
	s->fifo = nm_calloc(256, sizeof *s->fifo);
	*t = (ops_thread){.cs = s, .nconn = 1, .verify = mem + 256, .results = (uint64_t *)(mem + 1024)};
	nm_series_init(&t->series, p.interval_ns, SERIES_CAP);
	build_wr(&j, t, s);

	if (!strcmp(argv[1], "netmem")) {
		nm_measure_cfg cfg = {.iters = n, .warmup = 0};
		static const nm_measure_def def = {"ops", NULL, 0};
		nm_measure *ms = nm_measure_new(&cfg, &def, 0, 1);
		nm_poller pl;
		nm_poller_init(&pl, &mesh, 0, 30);
		run_measured(&j, t, nm_meter_of(ms, 0), &pl);
		printf("netmem %s %s: %" PRIu64 " ops measured\n", argv[2], argv[3], nm_meter_of(ms, 0)->ops);
	} else {
		uint64_t *a = nm_calloc(n + 1, 8), *b = nm_calloc(n + 1, 8);
		s->wr.wr.send_flags = IBV_SEND_SIGNALED | s->wr.flags;
		if (bw)
			ref_bw(&s->wr.wr, a, b, n, 128, 100);
		else
			ref_lat(&s->wr.wr, a, n);
		printf("reference %s %s: %" PRIu64 " ops\n", argv[2], argv[3], n);
	}
	return 0;
}
