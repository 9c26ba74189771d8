/* RoCEv2 parsing, ICRC and Clover's in-path CAS redirection
 * (primitives/packet/roce_pkt.c, primitives/packet/clover_resolve.c) on
 * crafted packets.
 *
 * The ICRC is checked three ways: against packets whose ICRC a third party
 * computed (a CNP captured from a ConnectX-4 Lx, and scapy's RoCE test
 * packet), against a bitwise CRC written here in Soft-RoCE's structure
 * (rxe_icrc.c: seed 0xdebb20e3, pseudo header, then the rest, ~crc stored as
 * a little-endian u32), and by which header bits it must and must not cover.
 * Truncated packets are copied into buffers of exactly their length, so
 * AddressSanitizer reports any read past the end. */
#include "tap.h"
#include "clover_resolve.h"
#include "roce_pkt.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ------------------------------------------------ reference ICRC (rxe) -- */

static uint32_t ref_crc32_le(uint32_t crc, const uint8_t *p, size_t n) /* Linux crc32_le */
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

/* rxe_icrc_hdr + rxe_icrc_generate for IPv4 (ip_len: IPv4 total length). */
static uint32_t ref_icrc(const uint8_t *ip, size_t ip_len)
{
	uint8_t ph[40];
	memcpy(ph, ip, sizeof ph);
	ph[8] = 0xff;                     /* ip4h->ttl */
	ph[10] = ph[11] = 0xff;           /* ip4h->check = CSUM_MANGLED_0 */
	ph[1] = 0xff;                     /* ip4h->tos */
	ph[26] = ph[27] = 0xff;           /* udph->check */
	ph[32] |= 0xff;                   /* bth->qpn |= ~BTH_QPN_MASK (top byte) */
	uint32_t crc = 0xdebb20e3;
	crc = ref_crc32_le(crc, ph, sizeof ph);
	crc = ref_crc32_le(crc, ip + 40, ip_len - 4 - 40);
	return ~crc;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* rxe_icrc_check on a little-endian host: the u32 at the end equals ~crc. */
static int rxe_check(const uint8_t *ip, size_t ip_len) { return ref_icrc(ip, ip_len) == le32(ip + ip_len - 4); }

static uint16_t ones_sum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint16_t ip_csum(const uint8_t *ip) { return (uint16_t)~ones_sum(0, ip, 20); }

/* The full UDP checksum of an IPv4 packet (with its checksum field as 0). */
static uint16_t udp_csum(const uint8_t *ip)
{
	size_t ulen = (size_t)ip[24] << 8 | ip[25];
	uint8_t *u = malloc(ulen);
	memcpy(u, ip + 20, ulen);
	u[6] = u[7] = 0;
	uint8_t pseudo[12] = {0};
	memcpy(pseudo, ip + 12, 8);
	pseudo[9] = 17;
	pseudo[10] = (uint8_t)(ulen >> 8);
	pseudo[11] = (uint8_t)ulen;
	uint16_t s = (uint16_t)~ones_sum(ones_sum(0, pseudo, 12), u, ulen);
	free(u);
	return s ? s : 0xffff;
}

/* ------------------------------------------------------ packet builder -- */

enum { CLIENT1 = 0x0a000001, CLIENT2 = 0x0a000002, MN = 0x0a000101, QPN1 = 0x11, QPN2 = 0x12,
       CQPN1 = 0x211, CQPN2 = 0x212 };

typedef struct {
	uint32_t src, dst, qpn, psn;
	uint8_t opcode, pad;
	const uint8_t *ext;
	size_t ext_len;
	const uint8_t *payload;
	size_t payload_len;
	int udp_checksum; /* compute a UDP checksum instead of sending 0 */
} spec;

/* An IPv4 RoCEv2 packet with TOS, TTL, BECN and a valid IPv4 checksum, and
 * an ICRC computed by the reference above (not by the module). */
static size_t build(uint8_t *b, const spec *s)
{
	size_t total = 20 + 8 + 12 + s->ext_len + s->payload_len + s->pad + 4;
	memset(b, 0, total);
	b[0] = 0x45, b[1] = 0x02, nm_be_store(b + 2, 2, total), nm_be_store(b + 4, 2, 0x1234);
	b[6] = 0x40, b[8] = 64, b[9] = 17;
	nm_be_store(b + 12, 4, s->src), nm_be_store(b + 16, 4, s->dst);
	nm_be_store(b + 10, 2, ip_csum(b));
	nm_be_store(b + 20, 2, 0xc123), nm_be_store(b + 22, 2, 4791), nm_be_store(b + 24, 2, total - 20);
	uint8_t *t = b + 28;
	t[0] = s->opcode, t[1] = (uint8_t)(s->pad << 4), t[2] = t[3] = 0xff, t[4] = 0x40; /* BECN */
	nm_be_store(t + 5, 3, s->qpn), t[8] = 0x80, nm_be_store(t + 9, 3, s->psn);
	if (s->ext_len)
		memcpy(t + 12, s->ext, s->ext_len);
	if (s->payload_len)
		memcpy(t + 12 + s->ext_len, s->payload, s->payload_len);
	uint32_t c = ref_icrc(b, total);
	for (int i = 0; i < 4; i++)
		b[total - 4 + i] = (uint8_t)(c >> (8 * i));
	if (s->udp_checksum) /* over the ICRC too; the ICRC masks it */
		nm_be_store(b + 26, 2, udp_csum(b));
	return total;
}

enum { VSIZE = 64 }; /* a Clover-lite version: next 8, key 8, value */

static size_t pkt_write(uint8_t *b, uint32_t src, uint32_t qpn, uint32_t psn, uint8_t op, uint64_t va,
			uint64_t key)
{
	uint8_t reth[16], v[VSIZE];
	nm_be_store(reth, 8, va), nm_be_store(reth + 8, 4, 0xabcd), nm_be_store(reth + 12, 4, VSIZE);
	memset(v, 0x5a, sizeof v);
	memset(v, 0, 8); /* next = NULL */
	for (int i = 0; i < 8; i++)
		v[8 + i] = (uint8_t)(key >> (8 * i)); /* the client's byte order */
	spec s = {src, MN, qpn, psn, op, 0, reth, sizeof reth, v, sizeof v, 0};
	return build(b, &s);
}

static size_t pkt_atomic(uint8_t *b, uint32_t src, uint32_t qpn, uint32_t psn, uint8_t op, uint64_t va,
			 uint64_t swap, uint64_t cmp, int udp_checksum)
{
	uint8_t e[28];
	nm_be_store(e, 8, va), nm_be_store(e + 8, 4, 0xabcd);
	nm_be_store(e + 12, 8, swap), nm_be_store(e + 20, 8, cmp);
	spec s = {src, MN, qpn, psn, op, 0, e, sizeof e, NULL, 0, udp_checksum};
	return build(b, &s);
}

static size_t pkt_cas(uint8_t *b, uint32_t src, uint32_t qpn, uint32_t psn, uint64_t va, uint64_t swap)
{
	return pkt_atomic(b, src, qpn, psn, NM_RC_CMP_SWAP, va, swap, 0, 0);
}

static size_t pkt_atomic_ack(uint8_t *b, uint32_t dst, uint32_t cqpn, uint32_t psn, uint64_t orig)
{
	uint8_t e[12] = {0x00, 0, 0, 7};
	nm_be_store(e + 4, 8, orig);
	spec s = {MN, dst, cqpn, psn, NM_RC_ATOMIC_ACK, 0, e, sizeof e, NULL, 0, 0};
	return build(b, &s);
}

static size_t pkt_ack(uint8_t *b, uint32_t dst, uint32_t cqpn, uint32_t psn, uint8_t syndrome)
{
	uint8_t e[4] = {syndrome, 0x01, 0x02, 0x03};
	spec s = {MN, dst, cqpn, psn, NM_RC_ACK, 0, e, sizeof e, NULL, 0, 0};
	return build(b, &s);
}

static size_t ndiff(const uint8_t *a, const uint8_t *b, size_t n, size_t from, size_t to)
{
	size_t d = 0; /* differing bytes outside [from, to) */
	for (size_t i = 0; i < n; i++)
		d += (i < from || i >= to) && a[i] != b[i];
	return d;
}

/* --------------------------------------------------------------- ICRC --- */

static void test_icrc_vectors(void)
{
	/* A CNP captured on a ConnectX-4 Lx (scapy's test/contrib/roce.uts),
	 * Ethernet header removed: TOS 0xc2, TTL 64, BECN set, UDP csum 0. */
	static const uint8_t cnp[60] = {
		0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
		0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7,
		0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
		0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x82, 0xfd, 0x00, 0x2a};
	nm_roce_pkt pk;
	CHECK(nm_roce_parse_ipv4(cnp, sizeof cnp, &pk) == -1, "a CNP (opcode 0x81, not RC) is not parsed");
	pk = (nm_roce_pkt){.bth_off = 28, .ip_len = 60, .icrc_off = 56};
	CHECK(nm_roce_icrc(cnp, &pk) == 0x2a00fd82, "ICRC of a ConnectX-4 Lx CNP: 0x%08x", nm_roce_icrc(cnp, &pk));
	CHECK(nm_roce_icrc_ok(cnp, &pk) && rxe_check(cnp, sizeof cnp), "its stored ICRC (82 fd 00 2a) checks, module and rxe-style");

	/* scapy's UC SEND_ONLY test packet: TOS 1, UDP checksum 0xaca2 in use,
	 * MigReq, PadCnt 2; scapy computes ICRC 0x78f353f3 (bytes 78 f3 53 f3). */
	uint8_t up[64] = {0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
			  0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0x00, 0x12, 0xb7,
			  0x00, 0x2c, 0xac, 0xa2, 0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
			  0x00, 0xcf, 0x17, 0x10};
	memcpy(up + 40, "F0\x81\x8b\xe2\x89" "5\xd9\x0e\x9a\x95PT\x01\xbe\x88^P\x00\x00", 20);
	pk = (nm_roce_pkt){.bth_off = 28, .ip_len = 64, .icrc_off = 60};
	CHECK(nm_roce_icrc(up, &pk) == 0xf353f378, "ICRC of scapy's UC SEND packet: 0x%08x", nm_roce_icrc(up, &pk));
	nm_roce_icrc_store(up, &pk);
	CHECK(memcmp(up + 60, "\x78\xf3\x53\xf3", 4) == 0 && rxe_check(up, 64), "stored little-endian: 78 f3 53 f3");
	CHECK(ip_csum(up) == 0 && udp_csum(up) == 0xaca2,
	      "test helpers agree with scapy: IPv4 checksum, UDP checksum (over the ICRC too)");

	uint8_t ff[8];
	memset(ff, 0xff, sizeof ff);
	CHECK((~crc32(0, ff, 8) & 0xffffffffu) == 0xdebb20e3, "zlib state after 8 x 0xff is rxe's seed 0xdebb20e3");
}

/* Random packets: the module's ICRC equals the rxe-style one; which bits it
 * covers: TOS, TTL, IPv4 and UDP checksums and BTH byte 4 are masked, every
 * other bit is covered. */
static void test_icrc_random(void)
{
	srand(7);
	int agree = 0, masked_ok = 0, covered_bad = 0, covered_tries = 0, n = 200;
	static const int masked[] = {1, 8, 10, 11, 26, 27, 32};
	for (int i = 0; i < n; i++) {
		uint8_t pl[300], b[400];
		for (size_t j = 0; j < sizeof pl; j++)
			pl[j] = (uint8_t)rand();
		spec s = {(uint32_t)rand(), (uint32_t)rand(), (uint32_t)rand() & 0xffffff,
			  (uint32_t)rand() & 0xffffff, NM_RC_SEND_ONLY, (uint8_t)(rand() & 3), NULL, 0,
			  pl, (size_t)(rand() % 300), i & 1};
		size_t len = build(b, &s);
		nm_roce_pkt pk;
		if (nm_roce_parse_ipv4(b, len, &pk))
			continue;
		agree += nm_roce_icrc(b, &pk) == ref_icrc(b, len) && nm_roce_icrc_ok(b, &pk);
		uint8_t m = b[masked[i % 7]];
		b[masked[i % 7]] ^= 0x5a;
		masked_ok += nm_roce_icrc_ok(b, &pk);
		b[masked[i % 7]] = m;
		size_t at = 28 + (size_t)rand() % (len - 28 - 4); /* BTH .. end of payload */
		if (at == 32)
			at = 33;
		b[at] ^= (uint8_t)(1u << (rand() & 7));
		covered_tries++;
		covered_bad += !nm_roce_icrc_ok(b, &pk);
	}
	CHECK(agree == n, "module ICRC == rxe-style ICRC on %d random packets (%d agree)", n, agree);
	CHECK(masked_ok == n, "changing TOS/TTL/checksums/FECN-BECN keeps the ICRC valid (%d/%d)", masked_ok, n);
	CHECK(covered_bad == covered_tries, "flipping a covered bit breaks it (%d/%d)", covered_bad, covered_tries);
	uint8_t b[100];
	size_t len = pkt_cas(b, CLIENT1, QPN1, 5, 0x1000, 0x2000);
	b[16] ^= 1; /* destination address: covered */
	nm_roce_pkt pk;
	nm_roce_parse_ipv4(b, len, &pk);
	CHECK(!nm_roce_icrc_ok(b, &pk) && !rxe_check(b, len), "the IPv4 addresses are covered");
}

/* ------------------------------------------------------------ parsing --- */

static void test_parse(void)
{
	uint8_t b[200];
	nm_roce_pkt pk;
	size_t len = pkt_write(b, CLIENT1, 0x123456, 0xabcdef, NM_RC_WRITE_ONLY, 0x7f0011223344ULL, 42);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0, "WRITE_ONLY parses");
	CHECK(pk.opcode == 0x0a && pk.dest_qp == 0x123456 && pk.psn == 0xabcdef && pk.ack_req && pk.pkey == 0xffff,
	      "BTH: opcode 0x%x, QP 0x%x, PSN 0x%x, AckReq, P_Key", pk.opcode, pk.dest_qp, pk.psn);
	CHECK(pk.src_ip == CLIENT1 && pk.dst_ip == MN && pk.udp_sport == 0xc123 && pk.ip_len == len, "IPv4/UDP fields");
	CHECK(pk.has == NM_ROCE_HAS_RETH && pk.reth.va == 0x7f0011223344ULL && pk.reth.rkey == 0xabcd &&
	      pk.reth.dma_len == VSIZE, "RETH: VA, R_Key, DMA length");
	CHECK(pk.payload_off == 56 && pk.payload_len == VSIZE && pk.icrc_off == len - 4, "payload and ICRC offsets");

	len = pkt_write(b, CLIENT1, 1, 2, NM_RC_WRITE_FIRST, 0x1000, 42);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.opcode == NM_RC_WRITE_FIRST && pk.reth.va == 0x1000,
	      "WRITE_FIRST carries a RETH");
	len = pkt_atomic(b, CLIENT1, 3, 4, NM_RC_CMP_SWAP, 0x1122334455667788ULL, 0xa1a2a3a4a5a6a7a8ULL,
			 0xb1b2b3b4b5b6b7b8ULL, 0);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.has == NM_ROCE_HAS_ATOMIC &&
	      pk.atomic.va == 0x1122334455667788ULL && pk.atomic.rkey == 0xabcd &&
	      pk.atomic.swap_add == 0xa1a2a3a4a5a6a7a8ULL && pk.atomic.compare == 0xb1b2b3b4b5b6b7b8ULL,
	      "COMPARE_SWAP: AtomicETH VA, R_Key, swap, compare");
	len = pkt_atomic(b, CLIENT1, 3, 4, NM_RC_FETCH_ADD, 0x40, 5, 0, 0);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.opcode == 0x14 && pk.atomic.swap_add == 5, "FETCH_ADD");
	len = pkt_ack(b, CLIENT2, 0x777, 0x100, 0x62);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.has == NM_ROCE_HAS_AETH && pk.aeth.syndrome == 0x62 &&
	      pk.aeth.msn == 0x010203 && pk.dest_qp == 0x777, "ACKNOWLEDGE: AETH syndrome and MSN");
	CHECK(nm_roce_syndrome_is_nak(0x60) && nm_roce_syndrome_is_nak(0x63) && !nm_roce_syndrome_is_nak(0x00) &&
	      !nm_roce_syndrome_is_nak(0x1f) && !nm_roce_syndrome_is_nak(0x20) && !nm_roce_syndrome_is_nak(0x80),
	      "NAK = syndrome 011xxxxx (not ACK, not RNR NAK)");
	len = pkt_atomic_ack(b, CLIENT1, 0x778, 9, 0xfeedfacecafebeefULL);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.has == (NM_ROCE_HAS_AETH | NM_ROCE_HAS_ATOMICACK) &&
	      pk.atomic_orig == 0xfeedfacecafebeefULL && pk.aeth.msn == 7, "ATOMIC_ACKNOWLEDGE: original remote data");
	uint8_t reth[16] = {0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 1, 0, 0, 0x10, 0};
	spec rs = {CLIENT1, MN, 1, 1, NM_RC_READ_REQUEST, 0, reth, 16, NULL, 0, 0};
	len = build(b, &rs);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.reth.va == 0x2000 && pk.reth.dma_len == 0x1000,
	      "READ_REQUEST carries a RETH");
	uint8_t one[3] = {1, 2, 3};
	spec ss = {CLIENT1, MN, 1, 1, NM_RC_SEND_ONLY, 1, NULL, 0, one, 3, 0};
	len = build(b, &ss);
	CHECK(nm_roce_parse_ipv4(b, len, &pk) == 0 && pk.pad == 1 && pk.payload_len == 3, "PadCnt: payload without pad");
	nm_roce_pkt pb;
	len = pkt_cas(b, CLIENT1, 3, 4, 0x99, 0x88);
	CHECK(nm_roce_parse_bth(b + 28, len - 28, &pb) == 0 && pb.atomic.va == 0x99 && pb.atomic.swap_add == 0x88 &&
	      pb.bth_off == 0 && pb.ip_len == 0 && !nm_roce_icrc_ok(b + 28, &pb),
	      "parsing from the BTH (UDP payload) gives the same fields; no ICRC without IP");
	CHECK(strcmp(nm_roce_opcode_name(0x13), "COMPARE_SWAP") == 0 && strcmp(nm_roce_opcode_name(0x15), "?") == 0,
	      "opcode names");
}

/* Each edit must make the packet "not parsed". */
static void test_not_roce(void)
{
	uint8_t b[200], c[200];
	nm_roce_pkt pk;
	size_t len = pkt_cas(b, CLIENT1, 3, 4, 0x99, 0x88);
	struct { int at; uint8_t v; const char *what; } e[] = {
		{0, 0x60, "IPv6"}, {0, 0x46, "IPv4 options"}, {9, 6, "TCP"}, {23, 0xb8, "UDP port 4792"},
		{25, 0x30, "UDP length != IP payload"}, {6, 0x20, "more fragments"}, {7, 0x01, "fragment offset"},
		{28, 0x15, "reserved opcode 0x15"}, {28, 0x24, "UC opcode"}, {28, 0x81, "CNP"},
		{29, 0x01, "TVer 1"}, {29, 0x10, "atomic with pad"}, {3, (uint8_t)(len + 1), "IP length > buffer"},
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		memcpy(c, b, len);
		c[e[i].at] = e[i].v;
		CHECK(nm_roce_parse_ipv4(c, len, &pk) == -1, "not parsed: %s", e[i].what);
	}
	/* A CmpSwap one byte too long (IP and UDP lengths consistent). */
	memcpy(c, b, len);
	c[len] = 0;
	nm_be_store(c + 2, 2, len + 1), nm_be_store(c + 24, 2, len + 1 - 20);
	CHECK(nm_roce_parse_ipv4(c, len + 1, &pk) == -1, "not parsed: CmpSwap with a payload byte");
	CHECK(nm_roce_parse_ipv4(b, len + 0, &pk) == 0 && nm_roce_parse_ipv4(NULL, 10, &pk) == -1,
	      "the unedited packet parses; NULL does not");
}

/* Every prefix of every kind of packet, in a buffer of exactly that size. */
static void test_truncated(void)
{
	uint8_t b[6][200];
	size_t len[6];
	len[0] = pkt_write(b[0], CLIENT1, QPN1, 1, NM_RC_WRITE_ONLY, 0x1000, 1);
	len[1] = pkt_cas(b[1], CLIENT1, QPN1, 2, 0x1000, 0x2000);
	len[2] = pkt_atomic_ack(b[2], CLIENT1, CQPN1, 2, 0);
	len[3] = pkt_ack(b[3], CLIENT1, CQPN1, 2, 0x61);
	len[4] = pkt_write(b[4], CLIENT1, QPN1, 1, NM_RC_WRITE_FIRST, 0x1000, 1);
	len[5] = pkt_atomic(b[5], CLIENT1, QPN1, 1, NM_RC_FETCH_ADD, 0x1000, 1, 0, 0);
	nm_rw_config cfg;
	nm_rw_config_default(&cfg);
	nm_rw rw;
	nm_rw_init(&rw, &cfg);
	nm_rw_track(&rw, 1, 0x5000);
	int parsed = 0, parsed_bth = 0, changed = 0, rewritten = 0, tries = 0;
	for (int k = 0; k < 6; k++)
		for (size_t n = 0; n < len[k]; n++) {
			uint8_t *t = malloc(n ? n : 1);
			memcpy(t, b[k], n);
			nm_roce_pkt pk;
			parsed += nm_roce_parse_ipv4(t, n, &pk) == 0;
			if (n >= 28) /* for ASan: a prefix of a payload may parse, but reads stay inside */
				parsed_bth += nm_roce_parse_bth(t + 28, n - 28, &pk) == 0 && pk.icrc_off + 4 > n - 28;
			rewritten += nm_rw_packet(&rw, t, n) != NM_RW_PASS;
			changed += memcmp(t, b[k], n) != 0;
			tries++;
			free(t);
		}
	CHECK(parsed == 0, "no prefix parses (%d tries)", tries);
	CHECK(parsed_bth == 0, "from the BTH: the ICRC found always lies inside the bytes given");
	CHECK(rewritten == 0 && changed == 0, "every prefix passes unchanged");
	CHECK(rw.c.not_roce == (uint64_t)tries && rw.c.passed == (uint64_t)tries, "and counts as not RoCE (%llu)",
	      (unsigned long long)rw.c.not_roce);
	nm_rw_free(&rw);
}

/* ------------------------------------------------------------ rewrite --- */

enum { KEY = 77, T0 = 0x100000, W1 = 0x200000, W2 = 0x300000, W3 = 0x400000, W4 = 0x500000 };

static nm_rw mk(size_t top_n, bool rewrite)
{
	nm_rw_config cfg;
	nm_rw_config_default(&cfg);
	cfg.top_n = top_n;
	cfg.rewrite = rewrite;
	cfg.max_conns = 8;
	nm_rw rw;
	if (nm_rw_init(&rw, &cfg))
		abort();
	return rw;
}

static uint64_t tail_of(const nm_rw *rw, uint64_t key)
{
	uint64_t t = 0;
	return nm_rw_tail(rw, key, &t) == 1 ? t : 0;
}

/* Feeds one packet built into a scratch buffer; returns the verdict. */
#define FEED(rw, b, expr) nm_rw_packet((rw), (b), (expr))

static void test_redirect(void)
{
	nm_rw rw = mk(4, true);
	CHECK(nm_rw_track(&rw, KEY, T0) == 0 && tail_of(&rw, KEY) == T0, "key tracked with its tail");
	uint8_t b[200], orig[200];
	/* Client 1 writes W1 and CASes the true tail: passes, tail -> W1. */
	CHECK(FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY)) == NM_RW_PASS, "WRITE passes");
	size_t len = pkt_cas(b, CLIENT1, QPN1, 11, T0, W1);
	memcpy(orig, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, orig, len) == 0, "CAS at the tail passes unchanged");
	CHECK(tail_of(&rw, KEY) == W1, "tail advanced to W1 on issue");
	/* Client 2 wrote W2 and CASes the old tail T0: redirected to W1. */
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 50, NM_RC_WRITE_FIRST, W2, KEY));
	len = pkt_cas(b, CLIENT2, QPN2, 51, T0, W2);
	memcpy(orig, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_REWRITTEN, "stale CAS rewritten");
	nm_roce_pkt pk;
	nm_roce_parse_ipv4(b, len, &pk);
	CHECK(pk.atomic.va == W1 && pk.atomic.swap_add == W2 && pk.atomic.compare == 0, "VA now W1; swap, compare kept");
	CHECK(ndiff(b, orig, len, 40, 48) == 4 && memcmp(b + len - 4, orig + len - 4, 4) != 0,
	      "only the VA (bytes 40..47) and the ICRC changed");
	CHECK(memcmp(b, orig, 20) == 0 && ip_csum(b) == 0, "IPv4 header untouched, its checksum valid");
	CHECK(le32(b + len - 4) == ref_icrc(b, len) && rxe_check(b, len) && nm_roce_icrc_ok(b, &pk),
	      "new ICRC == independently computed one; receiver's check passes");
	memcpy(orig + len - 4, b + len - 4, 4);
	CHECK(!rxe_check(orig, len), "the new ICRC does not fit the old VA (it depends on it)");
	CHECK(tail_of(&rw, KEY) == W2, "tail advanced to W2");
	/* Acks: both succeeded; the tail stays W2. */
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 11, 0));
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 51, 0));
	const nm_rw_counters *c = nm_rw_counters_of(&rw);
	CHECK(c->packets == 6 && c->writes == 2 && c->cas_seen == 2 && c->cas_tracked == 2 && c->conflicts == 1 &&
	      c->redirected == 1 && c->rewritten == 1 && c->passed == 5 && c->cas_ok == 2 && c->cas_failed == 0 &&
	      c->stale_tail == 0 && c->not_roce == 0,
	      "counters: 6 packets, 2 writes, 2 CAS, 1 conflict, 1 redirected, 2 ok");
	CHECK(tail_of(&rw, KEY) == W2, "acks leave the advanced tail");
	nm_rw_free(&rw);
}

static void test_udp_checksum(void)
{
	nm_rw rw = mk(4, true);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 1, NM_RC_WRITE_ONLY, W1, KEY));
	size_t len = pkt_atomic(b, CLIENT1, QPN1, 2, NM_RC_CMP_SWAP, 0x123456, W1, 0, 1);
	uint16_t before = (uint16_t)nm_be_load(b + 26, 2);
	CHECK(before && udp_csum(b) == before, "packet sent with a UDP checksum");
	CHECK(FEED(&rw, b, len) == NM_RW_REWRITTEN, "rewritten");
	CHECK(nm_be_load(b + 26, 2) == udp_csum(b) && nm_be_load(b + 26, 2) != before,
	      "UDP checksum updated incrementally == recomputed (0x%04x)", (unsigned)nm_be_load(b + 26, 2));
	CHECK(rxe_check(b, len), "ICRC valid (it masks the UDP checksum)");
	nm_rw_free(&rw);
}

static void test_top_n(void)
{
	nm_rw rw = mk(2, true);
	CHECK(nm_rw_track(&rw, 1, T0) == 0 && nm_rw_track(&rw, 2, T0 + 0x1000) == 0, "two keys tracked (top 2)");
	CHECK(nm_rw_track(&rw, 3, T0) == -1 && nm_rw_tail(&rw, 3, NULL) == -1, "a third is refused");
	CHECK(nm_rw_track(&rw, 2, W3) == 0 && tail_of(&rw, 2) == W3, "a tracked key's tail can be set again");
	CHECK(nm_rw_track(&rw, NM_RW_NO_KEY, 1) == -1, "the reserved key is refused");
	uint8_t b[200], orig[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 1, NM_RC_WRITE_ONLY, W1, 3));
	size_t len = pkt_cas(b, CLIENT1, QPN1, 2, 0x42000, W1);
	memcpy(orig, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, orig, len) == 0, "CAS on key 3 (not in the top 2) unchanged");
	CHECK(rw.c.cas_seen == 1 && rw.c.cas_tracked == 0 && rw.c.conflicts == 0, "seen, not tracked, no conflict");
	/* The same connection's next write is on key 1: now tracked. */
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 3, NM_RC_WRITE_ONLY, W2, 1));
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 4, 0x42000, W2)) == NM_RW_REWRITTEN && tail_of(&rw, 1) == W2,
	      "then a stale CAS on key 1 is redirected");
	nm_rw_free(&rw);
	rw = mk(0, true);
	CHECK(nm_rw_track(&rw, 1, T0) == -1, "top 0 tracks nothing");
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 1, NM_RC_WRITE_ONLY, W1, 1));
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 2, 0x42000, W1)) == NM_RW_PASS, "and rewrites nothing");
	nm_rw_free(&rw);
}

static void test_not_ours(void)
{
	nm_rw rw = mk(4, true);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200];
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 1, 0x42000, W1)) == NM_RW_PASS, "CAS with no write before passes");
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 2, NM_RC_WRITE_ONLY, W1, KEY));
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 3, 0x42000, W2)) == NM_RW_PASS, "CAS swapping another address passes");
	CHECK(FEED(&rw, b, pkt_atomic(b, CLIENT1, QPN1, 4, NM_RC_CMP_SWAP, 0x42000, W1, 5, 0)) == NM_RW_PASS,
	      "CAS comparing non-NULL passes");
	CHECK(FEED(&rw, b, pkt_atomic(b, CLIENT1, QPN1, 5, NM_RC_FETCH_ADD, 0x42000, W1, 0, 0)) == NM_RW_PASS,
	      "FETCH_ADD passes");
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT2, QPN1, 6, 0x42000, W1)) == NM_RW_PASS,
	      "the same QPN from another host is another connection");
	CHECK(rw.c.cas_tracked == 0 && tail_of(&rw, KEY) == T0, "none tracked, tail unchanged");
	/* The version region: writes outside it are not versions. */
	nm_rw_config cfg;
	nm_rw_config_default(&cfg);
	cfg.region_lo = 0x100000, cfg.region_hi = 0x200000;
	nm_rw r2;
	nm_rw_init(&r2, &cfg);
	nm_rw_track(&r2, KEY, T0);
	FEED(&r2, b, pkt_write(b, CLIENT1, QPN1, 1, NM_RC_WRITE_ONLY, 0x300000, KEY));
	CHECK(r2.c.writes == 0, "a WRITE outside the version region is not recorded");
	FEED(&r2, b, pkt_write(b, CLIENT1, QPN1, 2, NM_RC_WRITE_ONLY, 0x180000, KEY));
	CHECK(r2.c.writes == 1 && FEED(&r2, b, pkt_cas(b, CLIENT1, QPN1, 3, 0x100040, 0x180000)) == NM_RW_REWRITTEN,
	      "inside it: recorded, and its stale CAS redirected");
	nm_rw_free(&r2);
	cfg.region_hi = 1;
	CHECK(nm_rw_init(&r2, &cfg) == -1, "region with hi < lo refused");
	cfg = (nm_rw_config){.top_n = 4};
	CHECK(nm_rw_init(&r2, &cfg) == -1, "zero connections refused");
	nm_rw_free(&rw);
}

static void test_nak(void)
{
	nm_rw rw = mk(4, true);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200], orig[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 11, T0, W1));
	CHECK(tail_of(&rw, KEY) == W1, "tail W1 after client 1's CAS");
	FEED(&rw, b, pkt_ack(b, CLIENT1, CQPN1, 11, 0x00));
	CHECK(rw.c.naks == 0 && tail_of(&rw, KEY) == W1, "a plain ACK resets nothing");
	FEED(&rw, b, pkt_ack(b, CLIENT1, CQPN1, 11, 0x20));
	CHECK(rw.c.naks == 0 && tail_of(&rw, KEY) == W1, "an RNR NAK resets nothing");
	FEED(&rw, b, pkt_ack(b, CLIENT2, CQPN2, 11, 0x62));
	CHECK(rw.c.naks == 1 && rw.c.nak_resets == 0 && tail_of(&rw, KEY) == W1, "a NAK to another host resets nothing");
	FEED(&rw, b, pkt_ack(b, CLIENT1, CQPN1, 11, 0x62)); /* remote access error on the CAS */
	CHECK(rw.c.naks == 2 && rw.c.nak_resets == 1, "the NAK of the CAS resets its connection");
	CHECK(nm_rw_tail(&rw, KEY, NULL) == 0, "and the key's tail is unknown");
	/* Unknown tail: a stale CAS passes (Clover's retry handles it)... */
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 20, NM_RC_WRITE_ONLY, W2, KEY));
	size_t len = pkt_cas(b, CLIENT2, QPN2, 21, T0, W2);
	memcpy(orig, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, orig, len) == 0, "unknown tail: CAS passes unchanged");
	/* ...and its success teaches the tail back. */
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 21, 0));
	CHECK(tail_of(&rw, KEY) == W2, "a successful CAS (none other in flight) re-learns the tail");
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 30, NM_RC_WRITE_ONLY, W3, KEY));
	CHECK(FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 31, T0, W3)) == NM_RW_REWRITTEN && tail_of(&rw, KEY) == W3,
	      "redirection resumes");
	/* A NAK whose PSN matches no CAS (sequence error): every CAS in flight
	 * between the two hosts is reset. */
	FEED(&rw, b, pkt_ack(b, CLIENT1, CQPN1, 29, 0x60));
	CHECK(rw.c.nak_resets == 2 && nm_rw_tail(&rw, KEY, NULL) == 0, "a sequence-error NAK resets the host pair");
	nm_rw_reset(&rw);
	CHECK(nm_rw_tail(&rw, KEY, NULL) == 0, "nm_rw_reset: tails unknown, keys still tracked");
	nm_rw_free(&rw);
}

static void test_off(void)
{
	nm_rw rw = mk(4, false);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200], orig[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 11, T0, W1));
	CHECK(tail_of(&rw, KEY) == W1, "rewriting off: a CAS at the tail moves it too (soon-to-be tail)");
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 50, NM_RC_WRITE_ONLY, W2, KEY));
	size_t len = pkt_cas(b, CLIENT2, QPN2, 51, T0, W2);
	memcpy(orig, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, orig, len) == 0, "stale CAS passes unchanged");
	CHECK(rw.c.conflicts == 1 && rw.c.redirected == 0 && rw.c.rewritten == 0, "but counts as a conflict");
	CHECK(tail_of(&rw, KEY) == W1, "and does not move the tail");
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 11, 0));
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 51, W1));
	CHECK(rw.c.cas_ok == 1 && rw.c.cas_failed == 1 && rw.c.stale_tail == 0 && tail_of(&rw, KEY) == W1,
	      "its failure is expected: tail kept, not stale");
	/* Clover's retry: a new CAS (new PSN) for the same write, at the tail. */
	FEED(&rw, b, pkt_cas(b, CLIENT2, QPN2, 52, W1, W2));
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 52, 0));
	CHECK(tail_of(&rw, KEY) == W2 && rw.c.cas_ok == 2 && rw.c.conflicts == 1, "the retry goes to the tail: W2");
	nm_rw_free(&rw);
}

/* An unknown tail is learnt only from a CAS that overlapped no other: with
 * two in flight, acks in either order teach nothing (the later ack may be
 * of the earlier CAS); a lone CAS then teaches its version. */
static void test_learning(void)
{
	for (int order = 0; order < 2; order++) {
		nm_rw rw = mk(4, order == 0);
		nm_rw_track(&rw, KEY, 0);
		uint8_t b[200], orig[200];
		FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY));
		FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 11, T0, W1));
		FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 50, NM_RC_WRITE_ONLY, W2, KEY));
		size_t len = pkt_cas(b, CLIENT2, QPN2, 51, W1, W2); /* it knew W1 */
		memcpy(orig, b, len);
		CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, orig, len) == 0 && rw.c.conflicts == 0,
		      "unknown tail: CASes pass, no conflict counted");
		if (order == 0) {
			FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 11, 0));
			FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 51, 0));
		} else {
			FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 51, 0));
			FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 11, 0));
		}
		CHECK(rw.c.cas_ok == 2 && nm_rw_tail(&rw, KEY, NULL) == 0,
		      "two overlapping CASes, acks %s: nothing learnt", order ? "out of order" : "in order");
		FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 12, NM_RC_WRITE_ONLY, W3, KEY));
		FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 13, W2, W3));
		FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 13, 0));
		CHECK(tail_of(&rw, KEY) == W3, "a lone successful CAS teaches its version (rewriting %s)",
		      order == 0 ? "on" : "off");
		nm_rw_free(&rw);
	}
}

static void test_retransmit_and_corruption(void)
{
	nm_rw rw = mk(4, true);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200], first[200], again[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 11, T0, W1));
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 50, NM_RC_WRITE_ONLY, W2, KEY));
	size_t len = pkt_cas(first, CLIENT2, QPN2, 51, T0, W2);
	memcpy(again, first, len);
	CHECK(FEED(&rw, first, len) == NM_RW_REWRITTEN, "first copy redirected to W1");
	/* Go-back-N retransmits the WRITE and the CAS with the same PSNs. */
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 50, NM_RC_WRITE_ONLY, W2, KEY));
	CHECK(FEED(&rw, again, len) == NM_RW_REWRITTEN && memcmp(again, first, len) == 0,
	      "retransmitted CAS rewritten exactly as the first copy");
	CHECK(rw.c.retransmits == 1 && rw.c.writes == 2 && tail_of(&rw, KEY) == W2,
	      "counted once as a retransmission; tail unchanged (W2, not linked to itself)");
	/* Its ack (failure) is seen, then another copy comes (the ack was lost
	 * after us): the same rewrite, no state change. */
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 51, 0x777000));
	CHECK(rw.c.stale_tail == 1 && nm_rw_tail(&rw, KEY, NULL) == 0, "(its failure drops the tail)");
	nm_rw_track(&rw, KEY, W3);
	pkt_cas(again, CLIENT2, QPN2, 51, T0, W2);
	CHECK(FEED(&rw, again, len) == NM_RW_REWRITTEN && memcmp(again, first, len) == 0 && rw.c.retransmits == 2 &&
	      tail_of(&rw, KEY) == W3, "a copy after the ack: rewritten as the first, tail not moved");
	/* A corrupted stale CAS: no rewrite (the receiver drops it), no state. */
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 12, NM_RC_WRITE_ONLY, W4, KEY));
	len = pkt_cas(b, CLIENT1, QPN1, 13, T0, W4);
	b[len - 1] ^= 0x10;
	memcpy(again, b, len);
	CHECK(FEED(&rw, b, len) == NM_RW_PASS && memcmp(b, again, len) == 0, "CAS with a bad ICRC passes unchanged");
	CHECK(rw.c.bad_icrc == 1 && tail_of(&rw, KEY) == W3, "counted, tail unchanged");
	pkt_cas(b, CLIENT1, QPN1, 13, T0, W4);
	CHECK(FEED(&rw, b, len) == NM_RW_REWRITTEN && tail_of(&rw, KEY) == W4, "its intact retransmission is redirected");
	nm_rw_free(&rw);
}

static void test_stale(void)
{
	nm_rw rw = mk(4, true);
	nm_rw_track(&rw, KEY, T0);
	uint8_t b[200];
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 10, NM_RC_WRITE_ONLY, W1, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 11, 0x999000, W1)); /* redirected to T0 */
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 11, 0xdead000)); /* T0.next was not NULL */
	CHECK(rw.c.cas_failed == 1 && rw.c.stale_tail == 1 && nm_rw_tail(&rw, KEY, NULL) == 0,
	      "a redirected CAS that fails means stale state: counted, tail dropped");
	/* A bad-ICRC ack is ignored. */
	FEED(&rw, b, pkt_write(b, CLIENT2, QPN2, 20, NM_RC_WRITE_ONLY, W2, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT2, QPN2, 21, 0x888000, W2));
	size_t len = pkt_atomic_ack(b, CLIENT2, CQPN2, 21, 0);
	b[len - 2] ^= 1;
	FEED(&rw, b, len);
	CHECK(rw.c.bad_icrc == 1 && rw.c.cas_ok == 0 && nm_rw_tail(&rw, KEY, NULL) == 0, "a corrupt ack teaches nothing");
	/* Client 2's CAS is still in flight; client 1's overlaps it. */
	FEED(&rw, b, pkt_write(b, CLIENT1, QPN1, 30, NM_RC_WRITE_ONLY, W3, KEY));
	FEED(&rw, b, pkt_cas(b, CLIENT1, QPN1, 31, W2, W3));
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT2, CQPN2, 21, 0));
	FEED(&rw, b, pkt_atomic_ack(b, CLIENT1, CQPN1, 31, 0));
	CHECK(rw.c.cas_ok == 2 && nm_rw_tail(&rw, KEY, NULL) == 0, "overlapping CASes teach nothing");
	nm_rw_free(&rw);
}

/* ----------------------------------------------------- state and fuzz --- */

static void test_state_bytes(void)
{
	CHECK(sizeof(nm_rw_key) == 16, "a tracked key is 16 bytes (key + tail, as the paper)");
	CHECK(sizeof(nm_rw_conn) == 40, "a connection is 40 bytes");
	nm_rw_config cfg;
	nm_rw_config_default(&cfg);
	cfg.top_n = 1000, cfg.max_conns = 64;
	nm_rw rw;
	nm_rw_init(&rw, &cfg);
	CHECK(nm_rw_state_bytes_of(&rw) == nm_rw_state_bytes(1000, 64), "formula == the instance's tables (%zu B)",
	      nm_rw_state_bytes_of(&rw));
	nm_rw_free(&rw);
	size_t a = nm_rw_state_bytes(100000, 64), z = nm_rw_state_bytes(0, 64);
	double per = (double)(a - z) / 100000;
	CHECK(per >= 16 && per <= 21, "100k keys: %.2f B per key (16 B + free slots)", per);
	CHECK(nm_rw_state_bytes(8, 64) < nm_rw_state_bytes(9, 64) + 1 && nm_rw_state_bytes(8, 64) > z,
	      "grows with the keys (8 keys: %zu B)", nm_rw_state_bytes(8, 64));
	CHECK(nm_rw_state_bytes(8, 128) - nm_rw_state_bytes(8, 64) >= 64 * sizeof(nm_rw_conn),
	      "and with the connections");
}

/* Random mutations of valid packets: no crash (ASan/UBSan), and a packet is
 * changed only when the verdict says so, and then only VA and checksums. */
static void test_fuzz(void)
{
	nm_rw rw = mk(8, true);
	for (uint64_t k = 0; k < 8; k++)
		nm_rw_track(&rw, k, T0 + k * 0x1000);
	srand(11);
	int bad = 0, rewrites = 0, n = 20000;
	for (int i = 0; i < n; i++) {
		uint8_t b[200], o[200];
		size_t len;
		uint32_t src = rand() & 1 ? CLIENT1 : CLIENT2, q = (uint32_t)(rand() & 3), psn = (uint32_t)rand() & 0xff;
		switch (rand() % 4) {
		case 0: len = pkt_write(b, src, q, psn, NM_RC_WRITE_ONLY, W1 + (uint64_t)(rand() & 3) * 0x100, (uint64_t)(rand() & 15)); break;
		case 1: len = pkt_cas(b, src, q, psn, T0 + (uint64_t)(rand() & 7) * 0x1000, W1 + (uint64_t)(rand() & 3) * 0x100); break;
		case 2: len = pkt_atomic_ack(b, src, q, psn, (uint64_t)(rand() & 1)); break;
		default: len = pkt_ack(b, src, q, psn, (uint8_t)rand()); break;
		}
		if (rand() % 3 == 0)
			b[rand() % len] ^= (uint8_t)(1u << (rand() & 7));
		size_t cut = rand() % 4 == 0 ? (size_t)rand() % len : len;
		uint8_t *t = malloc(cut ? cut : 1);
		memcpy(t, b, cut);
		memcpy(o, b, cut);
		nm_rw_verdict v = nm_rw_packet(&rw, t, cut);
		if (v == NM_RW_REWRITTEN) {
			rewrites++;
			/* VA, ICRC, and the UDP checksum if a mutation made it non-zero */
			bad += ndiff(t, o, cut - 4, 40, 48) - (t[26] != o[26]) - (t[27] != o[27]) != 0 ||
			       !rxe_check(t, cut) || (o[26] == 0 && o[27] == 0 && (t[26] || t[27]));
		} else {
			bad += memcmp(t, o, cut) != 0;
		}
		free(t);
	}
	CHECK(bad == 0, "%d mutated packets: unchanged unless rewritten; rewritten ones valid (%d rewritten)", n,
	      rewrites);
	CHECK(rw.c.passed + rw.c.rewritten == (uint64_t)n && rw.c.rewritten == (uint64_t)rewrites,
	      "verdict counters add up");
	nm_rw_free(&rw);
}

int main(void)
{
	test_icrc_vectors();
	test_icrc_random();
	test_parse();
	test_not_roce();
	test_truncated();
	test_redirect();
	test_udp_checksum();
	test_top_n();
	test_not_ours();
	test_nak();
	test_off();
	test_learning();
	test_retransmit_and_corruption();
	test_stale();
	test_state_bytes();
	test_fuzz();
	return tap_done();
}
