/* Clover's in-network contention resolution (Grant and Snoeren,
 * "In-network Contention Resolution for Disaggregated Memory", Secs. 3.1
 * and 3.2; ICRC recomputed as in Sec. 3.3) as a pure packet-rewriting module:
 * RoCEv2 packet bytes in, the same bytes, possibly rewritten, out. No
 * sockets, no verbs: a netfilter queue, an AF_PACKET forwarder or a unit test
 * feeds it packets.
 *
 *   nm_rw_config c;  nm_rw_config_default(&c);  c.top_n = 8;
 *   nm_rw rw;  nm_rw_init(&rw, &c);
 *   nm_rw_track(&rw, key, tail_entry_va);      // each hot key, before clients write
 *   for (each packet) verdict = nm_rw_packet(&rw, buf, len);   // buf edited in place
 *   nm_rw_counters(&rw) ... nm_rw_free(&rw);
 *
 * What Clover's writers send (Clover-lite, this suite's Clover: the chain
 * of that paper's Sec. 2.1): a new version is
 * RDMA-WRITTEN to a free slot w (its header holds `next` at next_off and the
 * key at key_off, written in the client's byte order, little-endian), then a
 * CmpSwap on the tail version's next pointer (address tail + next_off)
 * compares NULL (0) and swaps in w. A CAS that lost a race targets an old
 * tail; it fails and the writer walks the chain and retries.
 *
 * The algorithm, per packet (requests client -> memory node, responses back):
 * - RDMA WRITE First/Only whose payload holds a version header: the
 *   connection's outstanding write becomes (key, w = RETH VA).
 * - CmpSwap on a connection with an outstanding write whose key is tracked:
 *   if its target is not the key's tail, it is a conflict (native Clover: it
 *   fails); with rewriting on, the AtomicETH VA is set to the tail and the
 *   ICRC recomputed, so it succeeds. A CAS that now goes to the tail moves
 *   the tail to w + next_off at once, before the packet lands, as the
 *   paper's switch does ("current or soon-to-be end of the chain"), so the
 *   next writer is sent behind this one without waiting for the ack. With
 *   rewriting off the same rule holds, so "conflict" counts the same CASes
 *   in both arms; a conflicting CAS then passes and does not move the tail.
 * - Atomic ACK of such a CAS: success (original value == NULL) or failure.
 *   A failed CAS that went to the tail we knew means our state was stale
 *   (counted in stale_tail): the key's tail becomes unknown.
 * - NAK: the connection's in-flight CAS is reset and its key's tail becomes
 *   unknown (the paper dumps all state; a NAK only says something about the
 *   keys in flight on that connection, so only those are dropped).
 * - A key whose tail is unknown passes unchanged (Clover's own retry
 *   resolves it) until a successful CAS that overlapped no other CAS on the
 *   key shows the new tail (acks of different QPs return in any order, so
 *   only a CAS alone in flight proves it was the last to land).
 *
 * Decisions the paper leaves open, taken here:
 * - Key of a CAS: a CAS carries no key, so it is the key of the
 *   connection's outstanding write, read from the WRITE's payload at key_off;
 *   the CAS must also swap in that write's address (swap == w) and compare
 *   NULL (NULL is a plain 0 in Clover-lite, so redirecting only the VA is
 *   enough). Anything else (a lock, FetchAdd) passes unchanged.
 * - Connection: requests are identified by (source IP, destination IP,
 *   BTH.DestQP = the memory node's QPN). Acks carry the client's QPN instead,
 *   which requests never show, so an atomic ACK is matched to its CAS by
 *   (IP pair, PSN) with a scan of the connections (acks of tracked CASes and
 *   NAKs only; C is small: one QP per client thread).
 * - Tail stored: the address the next CAS must target (version + next_off).
 * - Top-N keys: a static set, registered by the caller (who knows the
 *   popularity ranks); writes to other keys still set the outstanding write
 *   (so a later CAS is never attributed to an older, tracked write).
 * - Retransmissions: a CAS with the PSN of its connection's last CAS is
 *   sent to the same target as the first copy and changes no state; a CAS
 *   is never redirected onto its own version.
 * - Corruption: a CAS, ACK or NAK with a wrong ICRC changes no state and is
 *   never rewritten (recomputing would launder the corruption); WRITEs are
 *   not checked (a corrupt one is retransmitted before its CAS, and the
 *   retransmission overwrites the outstanding write).
 * - Nothing is dropped: the verdict is PASS or REWRITTEN.
 * Residual risk (the paper's assumption "all operations are successful"): a
 * redirected CAS that fails after the tail advanced past it leaves an
 * orphan version that later redirected CASes can append to. It needs stale
 * state (a CAS on a tracked key that bypassed this module); `stale_tail`
 * counts each such failure, and the experiment's checker must find none.
 */
#ifndef NM_CLOVER_RESOLVE_H
#define NM_CLOVER_RESOLVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { NM_RW_PASS = 0, NM_RW_REWRITTEN = 1 } nm_rw_verdict;

typedef struct nm_rw_config {
	size_t top_n;      /* keys tracked at most */
	size_t max_conns;  /* connections (client QPs) tracked at most */
	bool rewrite;      /* false: observe and count only (the "off" arm, same path) */
	uint32_t key_off;  /* the version's 8-byte key, offset in its WRITE payload */
	uint32_t next_off; /* the version's next pointer, offset from its start */
	uint64_t region_lo, region_hi; /* versions live in [lo, hi); 0, 0 = anywhere */
} nm_rw_config;

typedef struct nm_rw_counters {
	uint64_t packets;     /* handed to nm_rw_packet */
	uint64_t not_roce;    /* not RoCEv2 RC over IPv4, or malformed */
	uint64_t passed, rewritten; /* verdicts: passed + rewritten == packets */
	uint64_t writes;      /* version WRITEs recorded as outstanding */
	uint64_t cas_seen;    /* CmpSwap requests */
	uint64_t cas_tracked; /* attributed to an outstanding write on a tracked key */
	uint64_t conflicts;   /* tracked CASes aimed at a stale tail (they would fail) */
	uint64_t redirected;  /* conflicts whose target was rewritten */
	uint64_t retransmits; /* CASes repeating their connection's last PSN */
	uint64_t cas_ok, cas_failed; /* atomic ACKs of tracked CASes */
	uint64_t stale_tail;  /* a CAS sent to the tail we knew failed: tail dropped */
	uint64_t naks;        /* NAKs seen (responder -> requester) */
	uint64_t nak_resets;  /* in-flight CASes reset by a NAK */
	uint64_t bad_icrc;    /* packets we would act on with a wrong ICRC */
	uint64_t conn_full;   /* writes not recorded: connection table full */
} nm_rw_counters;

/* One tracked key: 16 bytes, as the paper's "key mapping and value (both
 * 64 bits)". tail = the address the next CAS must target, 0 = unknown. */
typedef struct nm_rw_key {
	uint64_t key; /* NM_RW_NO_KEY: free slot */
	uint64_t tail;
} nm_rw_key;
#define NM_RW_NO_KEY UINT64_MAX

/* One client connection: its outstanding write and last CAS (kept after the
 * ack, so a late duplicate of the CAS is recognised by its PSN). */
typedef struct nm_rw_conn {
	uint64_t key;    /* the outstanding version's key */
	uint64_t new_va; /* w: where the outstanding version was written */
	uint64_t cas_va; /* where its last CAS went (after any rewrite) */
	uint32_t req_ip, resp_ip; /* client, memory node */
	uint32_t cas_psn;
	unsigned qpn : 24;       /* memory node's QPN (BTH.DestQP of requests) */
	unsigned state : 2;      /* NM_RW_CONN_* */
	unsigned tracked : 1;    /* the last CAS was on a tracked key */
	unsigned at_tail : 1;    /* ... and was sent to the tail we knew */
	unsigned alone : 1;      /* ... and no other CAS on its key overlapped it */
	unsigned cas_sent : 1;   /* cas_psn/cas_va hold this write's last CAS */
} nm_rw_conn;
enum { NM_RW_CONN_FREE, NM_RW_CONN_IDLE, NM_RW_CONN_WRITTEN, NM_RW_CONN_CAS };

typedef struct nm_rw {
	nm_rw_config cfg;
	nm_rw_key *keys;   /* open addressing, linear probing */
	size_t nkey_slots, nkeys;
	nm_rw_conn *conns; /* open addressing, linear probing, no deletion */
	size_t nconn_slots, nconns;
	nm_rw_counters c;
} nm_rw;

/* top_n 1024, max_conns 256, rewrite on, key_off 8, next_off 0, any region. */
void nm_rw_config_default(nm_rw_config *c);
/* 0, or -1 (bad configuration or out of memory; rw is then empty). */
int nm_rw_init(nm_rw *rw, const nm_rw_config *c);
void nm_rw_free(nm_rw *rw);

/* Tracks key (one of the top N) whose last version starts at tail_entry_va
 * (0 = unknown: learnt from the first successful CAS). Again for a tracked
 * key: sets its tail. 0, or -1 (N keys tracked already, or key NM_RW_NO_KEY). */
int nm_rw_track(nm_rw *rw, uint64_t key, uint64_t tail_entry_va);
/* The address the next CAS on key must target: 1 and *target, 0 if the key
 * is tracked with an unknown tail, -1 if it is not tracked. */
int nm_rw_tail(const nm_rw *rw, uint64_t key, uint64_t *target);
/* Forgets every tail and every outstanding write (the paper's "dump all of
 * its soft state"); tracked keys stay tracked, with unknown tails. */
void nm_rw_reset(nm_rw *rw);

/* One packet (an IPv4 packet, as NFQUEUE gives it), edited in place. */
nm_rw_verdict nm_rw_packet(nm_rw *rw, uint8_t *buf, size_t len);

const nm_rw_counters *nm_rw_counters_of(const nm_rw *rw);

/* Bytes of the module's state for top_n keys and max_conns connections:
 * the tables nm_rw_init allocates (slots * sizeof of the real structures,
 * load factor included) plus the nm_rw itself (Fig. 3 of the paper). */
size_t nm_rw_state_bytes(size_t top_n, size_t max_conns);
/* The same for an initialised instance (equal to the above for its config). */
size_t nm_rw_state_bytes_of(const nm_rw *rw);
#endif
