/* RC QP attributes towards a peer (harness/qp_av.h). */
#include "qp_av.h"
#include <stdio.h>
#include <string.h>

int nm_qp_rtr_attr(const nm_qp_av_in *in, struct ibv_qp_attr *qa, char *err, size_t errlen)
{
	memset(qa, 0, sizeof *qa);
	if (in->gid_index < 0 && in->dlid == 0) {
		snprintf(err, errlen, "the peer's InfiniBand port has LID 0: no subnet manager has configured it "
			 "(is opensm running? 'ibstat' shows the port's LID)");
		return 0;
	}
	qa->qp_state = IBV_QPS_RTR;
	qa->path_mtu = in->mtu;
	qa->dest_qp_num = in->dest_qpn;
	qa->rq_psn = in->rq_psn;
	qa->max_dest_rd_atomic = (uint8_t)in->max_dest_rd_atomic;
	qa->min_rnr_timer = 12;
	qa->ah_attr.port_num = (uint8_t)in->port;
	if (in->gid_index >= 0) {
		qa->ah_attr.is_global = 1;
		memcpy(qa->ah_attr.grh.dgid.raw, in->dgid, 16);
		qa->ah_attr.grh.sgid_index = (uint8_t)in->gid_index;
		qa->ah_attr.grh.hop_limit = 64;
	} else {
		qa->ah_attr.dlid = in->dlid;
	}
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}
