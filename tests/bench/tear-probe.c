/* tear-probe: does the device copy an aligned 8-byte word whole? One
 * process, two loopback RC connections on one device: a writer thread
 * WRITEs one of two patterns to a word, over and over, while a reader
 * thread READs the same word; every READ must return one pattern whole.
 * A NIC's DMA never tears an aligned word; rxe copies payloads with the
 * kernel's memcpy, which under an emulator may copy byte by byte
 * (tests/vm/README.md). A diagnostic, not a test: it prints counts.
 *
 *   tear-probe DEVICE GID_INDEX READS
 *
 * Prints "reads N torn T writes W" and exits 0, or 1 when a verbs call
 * fails (with the call named). */
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P1 0x0101010101010101ull
#define P2 0xfefefefefefefefeull

typedef struct conn {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;   /* a posts, b is its loopback peer */
} conn;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint64_t *mem;        /* [0] the word; [8..] the writer's sources; [16] the reader's destination */
static union ibv_gid gid;
static int gid_index;
static atomic_int stop;

static void die(const char *what)
{
	fprintf(stderr, "tear-probe: %s failed\n", what);
	exit(1);
}

static struct ibv_qp *make_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 4, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);
	if (!qp)
		die("ibv_create_qp");
	struct ibv_qp_attr at = {.qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE};
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp(INIT)");
	return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr at = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dest,
				 .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
				 .ah_attr = {.is_global = 1, .port_num = 1,
					     .grh = {.dgid = gid, .sgid_index = (uint8_t)gid_index, .hop_limit = 1}}};
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("ibv_modify_qp(RTR)");
	at = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				  .max_rd_atomic = 1};
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				   IBV_QP_MAX_QP_RD_ATOMIC))
		die("ibv_modify_qp(RTS)");
}

static void make_conn(conn *c)
{
	if (!(c->cq = ibv_create_cq(ctx, 8, NULL, NULL, 0)))
		die("ibv_create_cq");
	c->a = make_qp(c->cq);
	c->b = make_qp(c->cq);
	connect_qp(c->a, c->b->qp_num);
	connect_qp(c->b, c->a->qp_num);
}

/* One signaled op of 8 bytes on c, and its completion. */
static void op(conn *c, enum ibv_wr_opcode opc, uint64_t *local)
{
	struct ibv_sge sge = {.addr = (uintptr_t)local, .length = 8, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = opc, .send_flags = IBV_SEND_SIGNALED,
				 .wr.rdma = {.remote_addr = (uintptr_t)&mem[0], .rkey = mr->rkey}}, *bad;
	struct ibv_wc wc;
	int n;
	if (ibv_post_send(c->a, &wr, &bad))
		die("ibv_post_send");
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) == 0)
		;
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "tear-probe: completion %s\n", n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		exit(1);
	}
}

static conn wc_, rc_;
static uint64_t writes;

static void *writer(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; !atomic_load(&stop); i++, writes++)
		op(&wc_, IBV_WR_RDMA_WRITE, &mem[8 + (i & 1)]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: tear-probe DEVICE GID_INDEX READS\n");
		return 2;
	}
	gid_index = atoi(argv[2]);
	long reads = atol(argv[3]);
	struct ibv_device **l = ibv_get_device_list(NULL);
	for (int i = 0; l && l[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(l[i]), argv[1]))
			ctx = ibv_open_device(l[i]);
	if (!ctx)
		die("opening the device");
	if (ibv_query_gid(ctx, 1, gid_index, &gid))
		die("ibv_query_gid");
	if (!(pd = ibv_alloc_pd(ctx)))
		die("ibv_alloc_pd");
	if (posix_memalign((void **)&mem, 4096, 4096))
		die("posix_memalign");
	memset(mem, 0, 4096);
	mem[0] = P1;
	mem[8] = P1;
	mem[9] = P2;
	if (!(mr = ibv_reg_mr(pd, mem, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)))
		die("ibv_reg_mr");
	make_conn(&wc_);
	make_conn(&rc_);
	pthread_t w;
	if (pthread_create(&w, NULL, writer, NULL))
		die("pthread_create");
	long torn = 0;
	for (long i = 0; i < reads; i++) {
		mem[16] = 0;
		op(&rc_, IBV_WR_RDMA_READ, &mem[16]);
		if (mem[16] != P1 && mem[16] != P2 && torn++ < 5)
			fprintf(stderr, "tear-probe: read %ld returned 0x%016" PRIx64 "\n", i, mem[16]);
	}
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	printf("reads %ld torn %ld writes %" PRIu64 "\n", reads, torn, writes);
	return 0;
}
