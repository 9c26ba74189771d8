/* Message buckets for an RPC over RDMA WRITE, after Scythe's rrpc (its
 * Rocket's rings, src/rrpc/ring_buf.h and rocket.cc): a sender batches
 * messages into a bucket and puts the whole bucket into the receiver's ring
 * with one WRITE; the receiver polls the bucket's header and footer, runs
 * every message in it, and answers the same way into a ring of the sender.
 * No SEND or RECV: the receiver's CPU finds a request by polling memory.
 *
 * A bucket, in 64-bit words:
 *   [seq] [count << 32 | words] [message]... [seq]
 * a message [payload words] [payload...]. seq counts the ring's buckets
 * from 1; a ring of n buckets puts bucket seq at index (seq - 1) % n.
 * The receiver takes a bucket once its first word and the word past its
 * messages both hold the seq it waits for (Scythe polls a tag and a
 * footer): a WRITE still landing, or the ring's older bucket, shows another
 * seq in one of them. This rests on the NIC placing a WRITE's first and last
 * words after the ones between, as Scythe's does.
 *
 * Pure: no verbs (tests/unit/test_wring.c). Flow control is the caller's:
 * in request-reply use, a sender with at most n requests in flight never
 * reuses a bucket its receiver has not taken (each bucket holds one). */
#ifndef NM_WRING_H
#define NM_WRING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Words of a bucket for up to max_msgs messages of up to msg_words
 * payload words each. */
static inline size_t nm_wring_bucket_words(uint32_t max_msgs, uint32_t msg_words)
{
	return 3 + (size_t)max_msgs * (1 + msg_words);
}
/* Index of bucket seq (from 1) in a ring of n. */
static inline uint32_t nm_wring_index(uint64_t seq, uint32_t n) { return (uint32_t)((seq - 1) % n); }

/* An empty bucket seq at b. */
void nm_wring_begin(uint64_t *b, uint64_t seq);
/* Messages in b. */
static inline uint32_t nm_wring_count(const uint64_t *b) { return (uint32_t)(b[1] >> 32); }
/* Appends a message of `words` payload words: where to write them. The
 * caller keeps within the bucket's size (nm_wring_bucket_words). */
uint64_t *nm_wring_add(uint64_t *b, uint32_t words);
/* Writes the footer: the bucket's length in words, what goes on the wire. */
uint32_t nm_wring_seal(uint64_t *b);

/* Whether bucket seq has landed whole at b, a slot of cap_words words that
 * the sender writes: its header and its footer both say seq. */
bool nm_wring_arrived(const uint64_t *b, uint64_t seq, size_t cap_words);
/* The messages of a bucket that arrived: the first with prev NULL, then
 * each after prev; NULL after the last. *words: its payload's words. */
const uint64_t *nm_wring_next(const uint64_t *b, const uint64_t *prev, uint32_t *words);
#endif
