/* The RTR attributes of an RC QP (harness/qp_av.h): InfiniBand's LID-routed
 * form, which no lane here can run, beside RoCE's GRH. */
#include "qp_av.h"
#include "tap.h"
#include <string.h>

static const uint8_t peer_gid[16] = {0xfe, 0x80, [8] = 0x02, [9] = 0xc9, [15] = 0x42};
static const int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;

static void test_ib(void)
{
	nm_qp_av_in in = {.port = 2, .gid_index = -1, .mtu = IBV_MTU_4096, .max_dest_rd_atomic = 16,
			  .dest_qpn = 0x1234, .rq_psn = 0xabcde, .dlid = 7, .dgid = peer_gid};
	struct ibv_qp_attr qa;
	char err[256] = "";
	memset(&qa, 0xa5, sizeof qa);
	int mask = nm_qp_rtr_attr(&in, &qa, err, sizeof err);
	CHECK(mask == rtr_mask, "InfiniBand: the RTR mask with the address vector");
	CHECK(qa.ah_attr.is_global == 0, "InfiniBand: no GRH (is_global 0)");
	CHECK(qa.ah_attr.dlid == 7 && qa.ah_attr.port_num == 2, "InfiniBand: the peer's LID, from our port");
	CHECK(qa.ah_attr.sl == 0 && qa.ah_attr.src_path_bits == 0 && qa.ah_attr.static_rate == 0,
	      "InfiniBand: service level 0, no path bits, full rate (nothing left over from the caller's memory)");
	uint8_t zero[16] = {0};
	CHECK(!memcmp(qa.ah_attr.grh.dgid.raw, zero, 16) && qa.ah_attr.grh.hop_limit == 0,
	      "InfiniBand: the GRH left empty");
	CHECK(qa.qp_state == IBV_QPS_RTR && qa.path_mtu == IBV_MTU_4096 && qa.dest_qp_num == 0x1234 &&
		      qa.rq_psn == 0xabcde && qa.max_dest_rd_atomic == 16 && qa.min_rnr_timer == 12,
	      "InfiniBand: RTR, the path MTU, the peer's QP and PSN, its READ depth");
	in.dlid = 0;
	err[0] = 0;
	CHECK(nm_qp_rtr_attr(&in, &qa, err, sizeof err) == 0 && strstr(err, "LID 0") && strstr(err, "subnet manager"),
	      "InfiniBand: a peer port with LID 0 refused, naming the subnet manager");
}

static void test_roce(void)
{
	nm_qp_av_in in = {.port = 1, .gid_index = 3, .mtu = IBV_MTU_1024, .max_dest_rd_atomic = 1,
			  .dest_qpn = 99, .rq_psn = 5, .dlid = 0, .dgid = peer_gid};
	struct ibv_qp_attr qa;
	char err[256] = "";
	int mask = nm_qp_rtr_attr(&in, &qa, err, sizeof err);
	CHECK(mask == rtr_mask, "RoCE: the RTR mask with the address vector");
	CHECK(qa.ah_attr.is_global == 1 && qa.ah_attr.grh.sgid_index == 3 && qa.ah_attr.grh.hop_limit == 64,
	      "RoCE: a GRH from our GID index, hop limit 64");
	CHECK(!memcmp(qa.ah_attr.grh.dgid.raw, peer_gid, 16), "RoCE: to the peer's GID");
	CHECK(qa.ah_attr.dlid == 0 && qa.ah_attr.port_num == 1, "RoCE: no LID (a RoCE port has none), our port");
	in.port = 1;
	in.gid_index = 0;
	in.dlid = 9;
	nm_qp_rtr_attr(&in, &qa, err, sizeof err);
	CHECK(qa.ah_attr.is_global == 1 && qa.ah_attr.dlid == 0,
	      "InfiniBand with -x (a GID index asked): routed by GRH, the LID unused");
}

int main(void)
{
	test_ib();
	test_roce();
	return tap_done();
}
