/* Clover's in-network contention resolution; see clover_resolve.h for the
 * algorithm and the decisions the paper leaves open. */
#include "clover_resolve.h"
#include "roce_pkt.h"
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- tables --- */

/* Load factor at most 0.8: linear probing stays short, and the state per key
 * stays near the paper's 16 bytes (20 with the free slots). */
static size_t slots_for(size_t n) { return n + n / 4 + 1; }

static uint64_t mix64(uint64_t x) /* splitmix64's finaliser */
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static size_t home_slot(uint64_t h, size_t nslots)
{
	return (size_t)(((unsigned __int128)mix64(h) * nslots) >> 64);
}

static size_t next_slot(size_t i, size_t nslots) { return i + 1 == nslots ? 0 : i + 1; }

/* The key's slot, or the free slot where it would go (NULL only if full). */
static nm_rw_key *key_slot(const nm_rw *rw, uint64_t key)
{
	size_t i = home_slot(key, rw->nkey_slots);
	for (size_t n = 0; n < rw->nkey_slots; n++, i = next_slot(i, rw->nkey_slots))
		if (rw->keys[i].key == key || rw->keys[i].key == NM_RW_NO_KEY)
			return &rw->keys[i];
	return NULL;
}

static nm_rw_key *key_find(const nm_rw *rw, uint64_t key)
{
	nm_rw_key *k = key_slot(rw, key);
	return k && k->key == key && key != NM_RW_NO_KEY ? k : NULL;
}

static bool conn_is(const nm_rw_conn *c, uint32_t req, uint32_t resp, uint32_t qpn)
{
	return c->req_ip == req && c->resp_ip == resp && c->qpn == qpn;
}

/* The connection's entry; with insert, a new one if there is room. */
static nm_rw_conn *conn_get(nm_rw *rw, const nm_roce_pkt *pk, bool insert)
{
	uint64_t h = ((uint64_t)pk->src_ip << 32 | pk->dst_ip) ^ mix64(pk->dest_qp);
	size_t i = home_slot(h, rw->nconn_slots);
	for (size_t n = 0; n < rw->nconn_slots; n++, i = next_slot(i, rw->nconn_slots)) {
		nm_rw_conn *c = &rw->conns[i];
		if (c->state != NM_RW_CONN_FREE) {
			if (conn_is(c, pk->src_ip, pk->dst_ip, pk->dest_qp))
				return c;
			continue;
		}
		if (!insert || rw->nconns == rw->cfg.max_conns)
			return NULL;
		rw->nconns++;
		*c = (nm_rw_conn){.req_ip = pk->src_ip, .resp_ip = pk->dst_ip,
				  .qpn = pk->dest_qp & 0xffffff, .state = NM_RW_CONN_IDLE};
		return c;
	}
	return NULL;
}

/* The connection whose CAS a response (memory node -> client) answers: acks
 * carry the client's QPN, which requests never show, so match the IP pair and
 * the PSN (a response repeats its request's PSN). */
static nm_rw_conn *conn_of_response(nm_rw *rw, const nm_roce_pkt *pk)
{
	for (size_t i = 0; i < rw->nconn_slots; i++) {
		nm_rw_conn *c = &rw->conns[i];
		if (c->state == NM_RW_CONN_CAS && c->req_ip == pk->dst_ip &&
		    c->resp_ip == pk->src_ip && c->cas_psn == pk->psn)
			return c;
	}
	return NULL;
}

/* ------------------------------------------------------------ set-up ---- */

void nm_rw_config_default(nm_rw_config *c)
{
	*c = (nm_rw_config){.top_n = 1024, .max_conns = 256, .rewrite = true,
			    .key_off = 8, .next_off = 0};
}

size_t nm_rw_state_bytes(size_t top_n, size_t max_conns)
{
	return sizeof(nm_rw) + slots_for(top_n) * sizeof(nm_rw_key) +
	       slots_for(max_conns) * sizeof(nm_rw_conn);
}

size_t nm_rw_state_bytes_of(const nm_rw *rw)
{
	return sizeof *rw + rw->nkey_slots * sizeof *rw->keys + rw->nconn_slots * sizeof *rw->conns;
}

int nm_rw_init(nm_rw *rw, const nm_rw_config *c)
{
	memset(rw, 0, sizeof *rw);
	if (!c || c->max_conns == 0 || c->top_n > SIZE_MAX / 64 || c->max_conns > SIZE_MAX / 128 ||
	    c->region_hi < c->region_lo)
		return -1;
	rw->cfg = *c;
	rw->nkey_slots = slots_for(c->top_n);
	rw->nconn_slots = slots_for(c->max_conns);
	rw->keys = malloc(rw->nkey_slots * sizeof *rw->keys);
	rw->conns = calloc(rw->nconn_slots, sizeof *rw->conns);
	if (!rw->keys || !rw->conns) {
		nm_rw_free(rw);
		return -1;
	}
	for (size_t i = 0; i < rw->nkey_slots; i++)
		rw->keys[i] = (nm_rw_key){.key = NM_RW_NO_KEY};
	return 0;
}

void nm_rw_free(nm_rw *rw)
{
	free(rw->keys);
	free(rw->conns);
	memset(rw, 0, sizeof *rw);
}

int nm_rw_track(nm_rw *rw, uint64_t key, uint64_t tail_entry_va)
{
	if (key == NM_RW_NO_KEY || !rw->keys)
		return -1;
	nm_rw_key *k = key_slot(rw, key);
	if (!k || (k->key != key && rw->nkeys == rw->cfg.top_n))
		return -1;
	if (k->key != key) {
		k->key = key;
		rw->nkeys++;
	}
	k->tail = tail_entry_va ? tail_entry_va + rw->cfg.next_off : 0;
	return 0;
}

int nm_rw_tail(const nm_rw *rw, uint64_t key, uint64_t *target)
{
	const nm_rw_key *k = rw->keys ? key_find(rw, key) : NULL;
	if (!k)
		return -1;
	if (target)
		*target = k->tail;
	return k->tail != 0;
}

void nm_rw_reset(nm_rw *rw)
{
	for (size_t i = 0; i < rw->nkey_slots; i++)
		rw->keys[i].tail = 0;
	for (size_t i = 0; i < rw->nconn_slots; i++)
		if (rw->conns[i].state != NM_RW_CONN_FREE)
			rw->conns[i].state = NM_RW_CONN_IDLE;
}

const nm_rw_counters *nm_rw_counters_of(const nm_rw *rw) { return &rw->c; }

/* ----------------------------------------------------------- packets ---- */

static bool in_region(const nm_rw *rw, uint64_t va, uint64_t len)
{
	if (!rw->cfg.region_lo && !rw->cfg.region_hi)
		return true;
	return va >= rw->cfg.region_lo && va <= rw->cfg.region_hi && len <= rw->cfg.region_hi - va;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* RDMA WRITE First/Only: a new version is being written; remember it as the
 * connection's outstanding write (the key comes from the version header). */
static void on_write(nm_rw *rw, const nm_roce_pkt *pk, const uint8_t *buf)
{
	size_t ko = rw->cfg.key_off;
	if (pk->payload_len < ko || pk->payload_len - ko < 8 ||
	    !in_region(rw, pk->reth.va, pk->reth.dma_len))
		return;
	uint64_t key = le64(buf + pk->payload_off + ko);
	nm_rw_conn *c = conn_get(rw, pk, true);
	if (!c) {
		rw->c.conn_full++;
		return;
	}
	/* A retransmitted copy of the same WRITE must not forget its CAS. */
	if (c->state >= NM_RW_CONN_WRITTEN && c->key == key && c->new_va == pk->reth.va)
		return;
	c->key = key;
	c->new_va = pk->reth.va;
	c->state = NM_RW_CONN_WRITTEN;
	c->cas_sent = 0;
	rw->c.writes++;
}

/* A retransmitted CAS goes where its first copy went, changing no state. */
static nm_rw_verdict resend_cas(nm_rw *rw, nm_roce_pkt *pk, uint8_t *buf, const nm_rw_conn *c)
{
	rw->c.retransmits++;
	if (pk->atomic.va == c->cas_va)
		return NM_RW_PASS;
	if (!nm_roce_icrc_ok(buf, pk)) {
		rw->c.bad_icrc++;
		return NM_RW_PASS;
	}
	nm_roce_set_atomic_va(buf, pk, c->cas_va);
	return NM_RW_REWRITTEN;
}

/* Marks every other CAS in flight on key as concurrent; whether there was one. */
static bool mark_concurrent(nm_rw *rw, uint64_t key, const nm_rw_conn *self)
{
	bool any = false;
	for (size_t i = 0; i < rw->nconn_slots; i++) {
		nm_rw_conn *c = &rw->conns[i];
		if (c != self && c->state == NM_RW_CONN_CAS && c->tracked && c->key == key) {
			c->alone = 0;
			any = true;
		}
	}
	return any;
}

/* The CAS of the connection's outstanding write on a tracked key. */
static nm_rw_verdict steer_cas(nm_rw *rw, nm_roce_pkt *pk, uint8_t *buf, nm_rw_conn *c, nm_rw_key *k)
{
	uint64_t own = c->new_va + rw->cfg.next_off;
	rw->c.cas_tracked++;
	if (!k->tail) { /* unknown: pass, and learn from the ack if alone */
		c->alone = !mark_concurrent(rw, c->key, c);
		return NM_RW_PASS;
	}
	if (k->tail == own) /* never link a version to itself */
		return NM_RW_PASS;
	nm_rw_verdict v = NM_RW_PASS;
	if (pk->atomic.va != k->tail) {
		rw->c.conflicts++;
		if (!rw->cfg.rewrite)
			return v; /* it will fail, as native Clover's does */
		nm_roce_set_atomic_va(buf, pk, k->tail);
		c->cas_va = k->tail;
		rw->c.redirected++;
		v = NM_RW_REWRITTEN;
	}
	/* The CAS now goes to the tail: the paper's switch updates its tail
	 * before the packet lands, so the next writer is sent behind this one
	 * without waiting for the ack. With rewriting off the same rule keeps
	 * "conflict" meaning the same CASes in both arms. */
	c->at_tail = 1;
	k->tail = own;
	return v;
}

static nm_rw_verdict on_cas(nm_rw *rw, nm_roce_pkt *pk, uint8_t *buf)
{
	rw->c.cas_seen++;
	nm_rw_conn *c = conn_get(rw, pk, false);
	if (!c)
		return NM_RW_PASS;
	/* Before the state check: a copy may come after its ack was seen (the
	 * ack was lost on the way to the client); the responder answers it
	 * from its replay cache, so it must not move the tail again. */
	if (c->cas_sent && pk->psn == c->cas_psn && pk->atomic.swap_add == c->new_va)
		return resend_cas(rw, pk, buf, c);
	if (c->state < NM_RW_CONN_WRITTEN)
		return NM_RW_PASS;
	/* Only the commit of this write: NULL -> w (anything else is not ours). */
	if (pk->atomic.swap_add != c->new_va || pk->atomic.compare != 0 ||
	    !in_region(rw, pk->atomic.va, 8))
		return NM_RW_PASS;
	if (!nm_roce_icrc_ok(buf, pk)) {
		rw->c.bad_icrc++;
		return NM_RW_PASS;
	}
	nm_rw_key *k = key_find(rw, c->key);
	c->state = NM_RW_CONN_CAS;
	c->cas_sent = 1;
	c->cas_psn = pk->psn;
	c->cas_va = pk->atomic.va;
	c->tracked = k != NULL;
	c->at_tail = 0;
	c->alone = 0;
	return k ? steer_cas(rw, pk, buf, c, k) : NM_RW_PASS;
}

/* A successful CAS teaches an unknown tail only if no other CAS on the key
 * was in flight at any time between its issue and its ack: then it executed
 * after every earlier one and before any later one (acks of different QPs
 * can come back in any order, so "the last ack" proves nothing). */
static void learn_tail(nm_rw *rw, nm_rw_key *k, const nm_rw_conn *c)
{
	if (!k->tail && c->alone)
		k->tail = c->new_va + rw->cfg.next_off;
}

static void on_atomic_ack(nm_rw *rw, const nm_roce_pkt *pk, const uint8_t *buf)
{
	nm_rw_conn *c = conn_of_response(rw, pk);
	if (!c)
		return;
	if (!nm_roce_icrc_ok(buf, pk)) {
		rw->c.bad_icrc++;
		return;
	}
	bool ok = pk->atomic_orig == 0; /* the original value was NULL */
	/* A failed write stays outstanding: Clover walks the chain and retries. */
	c->state = ok ? NM_RW_CONN_IDLE : NM_RW_CONN_WRITTEN;
	nm_rw_key *k = c->tracked ? key_find(rw, c->key) : NULL;
	if (!k)
		return;
	if (ok) {
		rw->c.cas_ok++;
		learn_tail(rw, k, c);
		return;
	}
	rw->c.cas_failed++;
	if (c->at_tail) { /* it went to the tail we knew and failed: stale */
		rw->c.stale_tail++;
		k->tail = 0;
	}
}

static void reset_conn(nm_rw *rw, nm_rw_conn *c)
{
	nm_rw_key *k = c->tracked ? key_find(rw, c->key) : NULL;
	if (k) /* the CAS did not land: the tail advanced past it is wrong */
		k->tail = 0;
	c->state = NM_RW_CONN_IDLE;
	c->cas_sent = 0; /* a retransmission passes as the client sent it */
	rw->c.nak_resets++;
}

/* A NAK names the request's PSN (or, for a sequence error, the PSN expected):
 * reset the CAS it answers, or, failing that, every CAS in flight between
 * the two hosts (the NAK's QPN is the client's, which requests never show). */
static void on_nak(nm_rw *rw, const nm_roce_pkt *pk, const uint8_t *buf)
{
	if (!nm_roce_icrc_ok(buf, pk)) {
		rw->c.bad_icrc++;
		return;
	}
	rw->c.naks++;
	nm_rw_conn *c = conn_of_response(rw, pk);
	if (c) {
		reset_conn(rw, c);
		return;
	}
	for (size_t i = 0; i < rw->nconn_slots; i++) {
		c = &rw->conns[i];
		if (c->state == NM_RW_CONN_CAS && c->req_ip == pk->dst_ip && c->resp_ip == pk->src_ip)
			reset_conn(rw, c);
	}
}

static nm_rw_verdict dispatch(nm_rw *rw, nm_roce_pkt *pk, uint8_t *buf)
{
	switch (pk->opcode) {
	case NM_RC_WRITE_FIRST:
	case NM_RC_WRITE_ONLY:
	case NM_RC_WRITE_ONLY_IMM:
		on_write(rw, pk, buf);
		return NM_RW_PASS;
	case NM_RC_CMP_SWAP:
		return on_cas(rw, pk, buf);
	case NM_RC_ATOMIC_ACK:
		on_atomic_ack(rw, pk, buf);
		return NM_RW_PASS;
	case NM_RC_ACK:
		if (nm_roce_syndrome_is_nak(pk->aeth.syndrome))
			on_nak(rw, pk, buf);
		return NM_RW_PASS;
	default:
		return NM_RW_PASS;
	}
}

nm_rw_verdict nm_rw_packet(nm_rw *rw, uint8_t *buf, size_t len)
{
	nm_roce_pkt pk;
	nm_rw_verdict v = NM_RW_PASS;
	rw->c.packets++;
	if (!rw->keys || nm_roce_parse_ipv4(buf, len, &pk))
		rw->c.not_roce++;
	else
		v = dispatch(rw, &pk, buf);
	if (v == NM_RW_REWRITTEN)
		rw->c.rewritten++;
	else
		rw->c.passed++;
	return v;
}
