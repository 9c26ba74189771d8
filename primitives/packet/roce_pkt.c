/* RoCEv2 RC parsing and ICRC; see roce_pkt.h for the formats and decisions. */
#include "roce_pkt.h"
#include <string.h>
#include <zlib.h>

/* Per RC opcode: its name and the extension headers after the BTH, in wire
 * order RETH, AtomicETH, AETH, AtomicAckETH, ImmDt/IETH (IBA table 38). */
struct op_info {
	const char *name;
	unsigned has;
	bool payload; /* may carry payload bytes (and pad) */
};

#define R NM_ROCE_HAS_RETH
#define A NM_ROCE_HAS_ATOMIC
#define K NM_ROCE_HAS_AETH
#define Q NM_ROCE_HAS_ATOMICACK
#define I NM_ROCE_HAS_IMM
static const struct op_info ops[0x18] = {
	[NM_RC_SEND_FIRST] = {"SEND_FIRST", 0, true},
	[NM_RC_SEND_MIDDLE] = {"SEND_MIDDLE", 0, true},
	[NM_RC_SEND_LAST] = {"SEND_LAST", 0, true},
	[NM_RC_SEND_LAST_IMM] = {"SEND_LAST_IMM", I, true},
	[NM_RC_SEND_ONLY] = {"SEND_ONLY", 0, true},
	[NM_RC_SEND_ONLY_IMM] = {"SEND_ONLY_IMM", I, true},
	[NM_RC_WRITE_FIRST] = {"RDMA_WRITE_FIRST", R, true},
	[NM_RC_WRITE_MIDDLE] = {"RDMA_WRITE_MIDDLE", 0, true},
	[NM_RC_WRITE_LAST] = {"RDMA_WRITE_LAST", 0, true},
	[NM_RC_WRITE_LAST_IMM] = {"RDMA_WRITE_LAST_IMM", I, true},
	[NM_RC_WRITE_ONLY] = {"RDMA_WRITE_ONLY", R, true},
	[NM_RC_WRITE_ONLY_IMM] = {"RDMA_WRITE_ONLY_IMM", R | I, true},
	[NM_RC_READ_REQUEST] = {"RDMA_READ_REQUEST", R, false},
	[NM_RC_READ_RESP_FIRST] = {"RDMA_READ_RESPONSE_FIRST", K, true},
	[NM_RC_READ_RESP_MIDDLE] = {"RDMA_READ_RESPONSE_MIDDLE", 0, true},
	[NM_RC_READ_RESP_LAST] = {"RDMA_READ_RESPONSE_LAST", K, true},
	[NM_RC_READ_RESP_ONLY] = {"RDMA_READ_RESPONSE_ONLY", K, true},
	[NM_RC_ACK] = {"ACKNOWLEDGE", K, false},
	[NM_RC_ATOMIC_ACK] = {"ATOMIC_ACKNOWLEDGE", K | Q, false},
	[NM_RC_CMP_SWAP] = {"COMPARE_SWAP", A, false},
	[NM_RC_FETCH_ADD] = {"FETCH_ADD", A, false},
	[NM_RC_SEND_LAST_INV] = {"SEND_LAST_INV", I, true},
	[NM_RC_SEND_ONLY_INV] = {"SEND_ONLY_INV", I, true},
};
#undef R
#undef A
#undef K
#undef Q
#undef I

static const struct op_info *op_lookup(uint8_t opcode)
{
	if (opcode >= sizeof ops / sizeof ops[0] || !ops[opcode].name)
		return NULL;
	return &ops[opcode];
}

const char *nm_roce_opcode_name(uint8_t opcode)
{
	const struct op_info *o = op_lookup(opcode);
	return o ? o->name : "?";
}

static size_t ext_len(unsigned has)
{
	return (has & NM_ROCE_HAS_RETH ? NM_ROCE_RETH_LEN : 0) +
	       (has & NM_ROCE_HAS_ATOMIC ? NM_ROCE_ATOMIC_LEN : 0) +
	       (has & NM_ROCE_HAS_AETH ? NM_ROCE_AETH_LEN : 0) +
	       (has & NM_ROCE_HAS_ATOMICACK ? NM_ROCE_ATOMICACK_LEN : 0) +
	       (has & NM_ROCE_HAS_IMM ? 4 : 0);
}

/* Decodes the extension headers at p (their total length was checked). */
static void parse_ext(const uint8_t *p, nm_roce_pkt *pk)
{
	if (pk->has & NM_ROCE_HAS_RETH) {
		pk->reth.va = nm_be_load(p, 8);
		pk->reth.rkey = (uint32_t)nm_be_load(p + 8, 4);
		pk->reth.dma_len = (uint32_t)nm_be_load(p + 12, 4);
		p += NM_ROCE_RETH_LEN;
	}
	if (pk->has & NM_ROCE_HAS_ATOMIC) {
		pk->atomic.va = nm_be_load(p, 8);
		pk->atomic.rkey = (uint32_t)nm_be_load(p + 8, 4);
		pk->atomic.swap_add = nm_be_load(p + 12, 8);
		pk->atomic.compare = nm_be_load(p + 20, 8);
		p += NM_ROCE_ATOMIC_LEN;
	}
	if (pk->has & NM_ROCE_HAS_AETH) {
		pk->aeth.syndrome = p[0];
		pk->aeth.msn = (uint32_t)nm_be_load(p + 1, 3);
		p += NM_ROCE_AETH_LEN;
	}
	if (pk->has & NM_ROCE_HAS_ATOMICACK)
		pk->atomic_orig = nm_be_load(p, 8);
}

/* BTH and what follows, in buf[off, end): end is one past the ICRC. */
static int parse_transport(const uint8_t *buf, size_t off, size_t end, nm_roce_pkt *pk)
{
	if (end < off || end - off < NM_ROCE_BTH_LEN + NM_ROCE_ICRC_LEN)
		return -1;
	const uint8_t *b = buf + off;
	const struct op_info *o = op_lookup(b[0]);
	if (!o || (b[1] & 0x0f) != 0) /* unknown opcode, or TVer != 0 */
		return -1;
	pk->opcode = b[0];
	pk->pad = (b[1] >> 4) & 3;
	pk->pkey = (uint16_t)nm_be_load(b + 2, 2);
	pk->dest_qp = (uint32_t)nm_be_load(b + 5, 3);
	pk->ack_req = b[8] >> 7;
	pk->psn = (uint32_t)nm_be_load(b + 9, 3);
	pk->has = o->has;
	pk->bth_off = off;
	pk->ext_off = off + NM_ROCE_BTH_LEN;
	pk->payload_off = pk->ext_off + ext_len(o->has);
	size_t tail = (size_t)pk->pad + NM_ROCE_ICRC_LEN;
	if (pk->payload_off > end || end - pk->payload_off < tail)
		return -1;
	pk->payload_len = end - pk->payload_off - tail;
	/* Atomics, READ requests and ACKs carry no payload: bytes there mean
	 * the packet is not what its opcode says, so it is not ours to edit. */
	if (!o->payload && (pk->payload_len || pk->pad))
		return -1;
	pk->icrc_off = end - NM_ROCE_ICRC_LEN;
	parse_ext(buf + pk->ext_off, pk);
	return 0;
}

int nm_roce_parse_bth(const uint8_t *buf, size_t len, nm_roce_pkt *out)
{
	memset(out, 0, sizeof *out);
	if (!buf)
		return -1;
	return parse_transport(buf, 0, len, out);
}

enum { UDP_OFF = NM_ROCE_IP4_LEN, BTH_OFF = NM_ROCE_IP4_LEN + NM_ROCE_UDP_LEN };

int nm_roce_parse_ipv4(const uint8_t *buf, size_t len, nm_roce_pkt *out)
{
	memset(out, 0, sizeof *out);
	if (!buf || len < BTH_OFF)
		return -1;
	if (buf[0] != 0x45) /* version 4, IHL 5: no options */
		return -1;
	size_t total = (size_t)nm_be_load(buf + 2, 2);
	if (total > len || total < BTH_OFF)
		return -1;
	if ((nm_be_load(buf + 6, 2) & 0x3fff) != 0 || buf[9] != 17) /* fragment, not UDP */
		return -1;
	const uint8_t *u = buf + UDP_OFF;
	if (nm_be_load(u + 2, 2) != NM_ROCE_UDP_PORT || nm_be_load(u + 4, 2) != total - UDP_OFF)
		return -1;
	out->src_ip = (uint32_t)nm_be_load(buf + 12, 4);
	out->dst_ip = (uint32_t)nm_be_load(buf + 16, 4);
	out->udp_sport = (uint16_t)nm_be_load(u, 2);
	out->udp_csum = (uint16_t)nm_be_load(u + 6, 2);
	out->ip_len = total;
	return parse_transport(buf, BTH_OFF, total, out);
}

/* ---------------------------------------------------------------- ICRC -- */

uint32_t nm_roce_icrc(const uint8_t *buf, const nm_roce_pkt *pk)
{
	static const uint8_t lrh[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	if (pk->ip_len == 0 || pk->bth_off != BTH_OFF)
		return 0; /* no IPv4/UDP header to cover: not computable */
	/* The pseudo header: IPv4 + UDP + BTH with the fields that routers and
	 * switches may change (TOS, TTL, checksums, FECN/BECN) set to ones. */
	uint8_t ph[BTH_OFF + NM_ROCE_BTH_LEN];
	memcpy(ph, buf, sizeof ph);
	ph[1] = 0xff;                    /* TOS (DSCP, ECN) */
	ph[8] = 0xff;                    /* TTL */
	ph[10] = ph[11] = 0xff;          /* IPv4 header checksum */
	ph[UDP_OFF + 6] = ph[UDP_OFF + 7] = 0xff; /* UDP checksum */
	ph[BTH_OFF + 4] = 0xff;          /* FECN, BECN, resv6 */
	uLong c = crc32(0L, Z_NULL, 0);
	c = crc32(c, lrh, sizeof lrh);
	c = crc32(c, ph, sizeof ph);
	c = crc32(c, buf + sizeof ph, (uInt)(pk->icrc_off - sizeof ph));
	return (uint32_t)c;
}

uint32_t nm_roce_icrc_stored(const uint8_t *buf, const nm_roce_pkt *pk)
{
	const uint8_t *p = buf + pk->icrc_off;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool nm_roce_icrc_ok(const uint8_t *buf, const nm_roce_pkt *pk)
{
	return pk->ip_len && nm_roce_icrc(buf, pk) == nm_roce_icrc_stored(buf, pk);
}

void nm_roce_icrc_store(uint8_t *buf, const nm_roce_pkt *pk)
{
	uint32_t c = nm_roce_icrc(buf, pk);
	uint8_t *p = buf + pk->icrc_off;
	for (int i = 0; i < 4; i++, c >>= 8)
		p[i] = (uint8_t)c;
}

/* RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), byte by byte: a byte at an even
 * distance from the UDP header is the high half of its 16-bit word. */
static uint32_t csum_delta(uint32_t s, size_t at, const uint8_t *old, const uint8_t *new, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int shift = (at + i - UDP_OFF) % 2 ? 0 : 8;
		s += (uint16_t)~((uint32_t)old[i] << shift);
		s += (uint32_t)new[i] << shift;
	}
	return s;
}

static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	uint16_t r = (uint16_t)~s;
	return r ? r : 0xffff; /* UDP sends a computed 0 as all ones (RFC 768) */
}

/* The UDP checksum covers the ICRC too, so it is updated for both edits. */
void nm_roce_set_atomic_va(uint8_t *buf, nm_roce_pkt *pk, uint64_t va)
{
	uint8_t *p = buf + pk->ext_off, old_va[8], old_icrc[4];
	memcpy(old_va, p, 8);
	nm_be_store(p, 8, va);
	pk->atomic.va = va;
	if (pk->ip_len == 0)
		return;
	memcpy(old_icrc, buf + pk->icrc_off, 4);
	nm_roce_icrc_store(buf, pk);
	if (pk->udp_csum) { /* 0: the sender did not compute one */
		uint32_t s = (uint16_t)~pk->udp_csum;
		s = csum_delta(s, pk->ext_off, old_va, p, 8);
		s = csum_delta(s, pk->icrc_off, old_icrc, buf + pk->icrc_off, 4);
		pk->udp_csum = csum_fold(s);
		nm_be_store(buf + UDP_OFF + 6, 2, pk->udp_csum);
	}
}
