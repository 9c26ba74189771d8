/* RoCEv2 packets as bytes: parsing of the RC headers and the ICRC.
 *
 * Pure byte code (no verbs, no sockets): the input is an IPv4 packet as
 * netfilter's NFQUEUE or an AF_PACKET socket hands it over (IPv4 header first,
 * no Ethernet header), or, for tests, the UDP payload starting at the BTH.
 * Every length is checked before it is read; a packet this module does not
 * understand is reported as "not parsed" and the caller forwards it unchanged.
 *
 *   nm_roce_pkt pk;
 *   if (nm_roce_parse_ipv4(buf, len, &pk) == 0 && pk.opcode == NM_RC_CMP_SWAP)
 *           ... pk.atomic.va, pk.atomic.compare ...
 *   nm_roce_icrc_ok(buf, &pk)        // the 4 bytes at the end match
 *   nm_roce_icrc_store(buf, &pk)     // recompute them after editing headers
 *
 * Wire formats: InfiniBand Architecture Specification vol. 1 (BTH 9.2, RETH
 * 9.3.3, AtomicETH 9.3.4, AETH 9.3.5, AtomicAckETH 9.3.6, the RC opcodes of
 * table 38), RoCEv2 = annex A17 (UDP destination port 4791, ICRC A17.4).
 *
 * The ICRC.  CRC-32 with the Ethernet polynomial (zlib's crc32(): reflected,
 * initial ~0, final inversion) over 8 bytes of 0xff (the masked LRH of
 * native InfiniBand), then the IPv4 header with TOS, TTL and header checksum
 * set to all ones, the UDP header with its checksum set to all ones, the BTH
 * with its byte 4 (FECN, BECN, 6 reserved bits) set to all ones, then the
 * rest of the packet up to the ICRC. The 32-bit result is stored little-
 * endian (least significant byte first on the wire). This is what Linux's
 * Soft-RoCE does (drivers/infiniband/sw/rxe/rxe_icrc.c: the seed 0xdebb20e3
 * it starts crc32_le from is the CRC state after the 8 bytes of 0xff, and it
 * stores ~crc as a CPU-order u32 on little-endian hosts), and what a
 * ConnectX-4 Lx sends: the unit test checks a captured CNP from one.
 *
 * Decisions the spec leaves to us:
 * - IPv4 only, without options (IHL 5), not fragmented, TVer 0; IPv6 and
 *   anything else is "not parsed" (the suite's RoCEv2 GIDs are IPv4-mapped).
 * - The UDP length must equal the IPv4 payload length; bytes after the IPv4
 *   total length (link padding) are ignored.
 * - RC opcodes only (0x00..0x14, 0x16, 0x17); UC, UD, CNP: "not parsed".
 */
#ifndef NM_ROCE_PKT_H
#define NM_ROCE_PKT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	NM_ROCE_UDP_PORT = 4791,
	NM_ROCE_IP4_LEN = 20,    /* IPv4 header without options */
	NM_ROCE_UDP_LEN = 8,
	NM_ROCE_BTH_LEN = 12,
	NM_ROCE_RETH_LEN = 16,   /* VA 8, R_Key 4, DMA length 4 */
	NM_ROCE_ATOMIC_LEN = 28, /* VA 8, R_Key 4, swap/add 8, compare 8 */
	NM_ROCE_AETH_LEN = 4,    /* syndrome 1, MSN 3 */
	NM_ROCE_ATOMICACK_LEN = 8,
	NM_ROCE_ICRC_LEN = 4,
};

/* RC opcodes (IBA table 38; transport bits 000). */
enum {
	NM_RC_SEND_FIRST = 0x00,
	NM_RC_SEND_MIDDLE = 0x01,
	NM_RC_SEND_LAST = 0x02,
	NM_RC_SEND_LAST_IMM = 0x03,
	NM_RC_SEND_ONLY = 0x04,
	NM_RC_SEND_ONLY_IMM = 0x05,
	NM_RC_WRITE_FIRST = 0x06,
	NM_RC_WRITE_MIDDLE = 0x07,
	NM_RC_WRITE_LAST = 0x08,
	NM_RC_WRITE_LAST_IMM = 0x09,
	NM_RC_WRITE_ONLY = 0x0a,
	NM_RC_WRITE_ONLY_IMM = 0x0b,
	NM_RC_READ_REQUEST = 0x0c,
	NM_RC_READ_RESP_FIRST = 0x0d,
	NM_RC_READ_RESP_MIDDLE = 0x0e,
	NM_RC_READ_RESP_LAST = 0x0f,
	NM_RC_READ_RESP_ONLY = 0x10,
	NM_RC_ACK = 0x11,
	NM_RC_ATOMIC_ACK = 0x12,
	NM_RC_CMP_SWAP = 0x13,
	NM_RC_FETCH_ADD = 0x14,
	NM_RC_SEND_LAST_INV = 0x16,
	NM_RC_SEND_ONLY_INV = 0x17,
};

/* Which extension headers a parsed packet has (nm_roce_pkt.has). */
enum {
	NM_ROCE_HAS_RETH = 1 << 0,
	NM_ROCE_HAS_ATOMIC = 1 << 1,
	NM_ROCE_HAS_AETH = 1 << 2,
	NM_ROCE_HAS_ATOMICACK = 1 << 3,
	NM_ROCE_HAS_IMM = 1 << 4,  /* ImmDt or IETH: 4 bytes, not decoded */
};

typedef struct nm_roce_pkt {
	/* Offsets in the buffer given to the parser. With nm_roce_parse_bth
	 * there is no IP/UDP header: bth_off is 0 and ip_len is 0. */
	size_t bth_off;     /* first byte of the BTH */
	size_t ext_off;     /* first byte after the BTH (RETH, AtomicETH, AETH) */
	size_t payload_off; /* first payload byte */
	size_t payload_len; /* without pad bytes and ICRC */
	size_t icrc_off;    /* the 4 ICRC bytes */
	size_t ip_len;      /* IPv4 total length (the ICRC's last byte + 1) */
	uint32_t src_ip, dst_ip; /* host byte order */
	uint16_t udp_sport, udp_csum;
	/* BTH */
	uint8_t opcode;
	uint8_t pad;      /* PadCnt: 0..3 bytes between payload and ICRC */
	bool ack_req;
	uint16_t pkey;
	uint32_t dest_qp; /* 24 bits */
	uint32_t psn;     /* 24 bits */
	unsigned has;     /* NM_ROCE_HAS_* */
	struct { uint64_t va; uint32_t rkey, dma_len; } reth;
	struct { uint64_t va; uint32_t rkey; uint64_t swap_add, compare; } atomic;
	struct { uint8_t syndrome; uint32_t msn; } aeth;
	uint64_t atomic_orig; /* AtomicAckETH: the remote value before the atomic */
} nm_roce_pkt;

/* An IPv4 packet carrying RoCEv2 RC: 0 and *out filled, or -1 (not RoCEv2
 * RC as this module understands it, or malformed; *out is then undefined). */
int nm_roce_parse_ipv4(const uint8_t *buf, size_t len, nm_roce_pkt *out);

/* The same from the BTH on: buf is the UDP payload (BTH .. ICRC). */
int nm_roce_parse_bth(const uint8_t *buf, size_t len, nm_roce_pkt *out);

/* The ICRC over an IPv4 RoCEv2 packet parsed by nm_roce_parse_ipv4 (the
 * value as a number; on the wire it is stored little-endian). */
uint32_t nm_roce_icrc(const uint8_t *buf, const nm_roce_pkt *pk);
/* The stored ICRC (little-endian at pk->icrc_off). */
uint32_t nm_roce_icrc_stored(const uint8_t *buf, const nm_roce_pkt *pk);
bool nm_roce_icrc_ok(const uint8_t *buf, const nm_roce_pkt *pk);
void nm_roce_icrc_store(uint8_t *buf, const nm_roce_pkt *pk);

/* Replaces the AtomicETH virtual address of a parsed CmpSwap/FetchAdd and
 * fixes what depends on it: the UDP checksum if it is in use (RFC 1624
 * incremental update; RoCEv2 senders normally send 0 = unused) and the ICRC.
 * The IPv4 header is not touched, so its checksum stays right. */
void nm_roce_set_atomic_va(uint8_t *buf, nm_roce_pkt *pk, uint64_t va);

/* AETH syndrome classes (IBA 9.7.5.1.1): bits 7..5 = 000 ACK, 001 RNR NAK,
 * 011 NAK (low 5 bits: 0 PSN sequence error, 1 invalid request, 2 remote
 * access error, 3 remote operational error, 4 invalid RD request). */
static inline bool nm_roce_syndrome_is_nak(uint8_t s) { return (s >> 5) == 3; }

const char *nm_roce_opcode_name(uint8_t opcode);

/* Big-endian loads and stores as the wire uses them (also for tests). */
static inline uint64_t nm_be_load(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}
static inline void nm_be_store(uint8_t *p, int n, uint64_t v)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}
#endif
