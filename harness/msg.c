/* Messages over RC QPs (msg.h). */
#include "msg.h"
#include "clock.h"
#include "log.h"
#include <sched.h>
#include <string.h>

void nm_msg_recv(struct ibv_qp *qp, void *buf, uint32_t len, uint32_t lkey, uint64_t wr_id, const char *who)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = ibv_post_recv(qp, &wr, &bad);
	if (rc)
		nm_fatal("%s: posting a RECV on QP %u failed: %s", who, qp->qp_num, strerror(rc));
}

static void post(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what, const char *who)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(qp, wr, &bad);
	if (rc)
		nm_fatal("%s: posting a %s on QP %u failed: %s", who, what, qp->qp_num, strerror(rc));
}

void nm_msg_send(struct ibv_qp *qp, const void *buf, uint32_t len, uint32_t lkey, uint64_t wr_id, const char *who)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	post(qp, &wr, "SEND", who);
}

void nm_msg_read(struct ibv_qp *qp, void *buf, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		 uint64_t wr_id, const char *who)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				 .send_flags = IBV_SEND_SIGNALED};
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	post(qp, &wr, "READ", who);
}

int nm_wait_one(struct ibv_cq *cq, struct ibv_wc *wc, double timeout)
{
	return nm_wait_one_yield(cq, wc, timeout, false);
}

int nm_wait_one_yield(struct ibv_cq *cq, struct ibv_wc *wc, double timeout, bool yield)
{
	uint64_t deadline = 0;
	for (uint32_t spins = 0;; spins++) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
		if (yield && spins % NM_WAIT_YIELD_POLLS == NM_WAIT_YIELD_POLLS - 1)
			sched_yield();
		/* The clock every 4096 empty polls only: a corm RPC or READ is
		 * timed around this loop, and the deadline is seconds. */
		if ((spins & 4095) == 4095) {
			uint64_t now = nm_ticks();
			if (!deadline)
				deadline = now + nm_ns_to_ticks((uint64_t)(timeout * 1e9));
			else if (now > deadline)
				return -1;
		}
	}
}
