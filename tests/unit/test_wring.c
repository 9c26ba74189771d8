/* The buckets of the RPC over RDMA WRITE (primitives/rpc/wring.h): what a
 * sender seals is what the receiver reads back, message by message; a
 * bucket is taken only when both its header and its footer say its seq,
 * whichever of them is still missing, or stale from the ring's last lap;
 * a length that runs past the slot is not followed. */
#include "wring.h"
#include "tap.h"
#include <string.h>

enum { MSGS = 4, WORDS = 5 };

static void round_trip(void)
{
	uint64_t b[16 * 8], r[16 * 8];
	size_t cap = nm_wring_bucket_words(MSGS, WORDS);
	CHECK(cap == 3 + 4 * 6, "a bucket of 4 messages of 5 words: 27 words (%zu)", cap);
	nm_wring_begin(b, 7);
	CHECK(nm_wring_count(b) == 0, "begin: empty");
	for (uint32_t i = 0; i < 3; i++) {
		uint64_t *m = nm_wring_add(b, i + 1);
		for (uint32_t k = 0; k <= i; k++)
			m[k] = 100 * i + k;
	}
	uint32_t len = nm_wring_seal(b);
	CHECK(nm_wring_count(b) == 3 && len == 3 + (2 + 3 + 4), "three messages of 1, 2, 3 words: 12 words on the wire (%u)", len);
	memset(r, 0xee, sizeof r);
	memcpy(r, b, 8 * len);
	CHECK(nm_wring_arrived(r, 7, cap), "the whole bucket has arrived");
	CHECK(!nm_wring_arrived(r, 8, cap), "it is not bucket 8");
	uint32_t i = 0, words;
	bool same = true;
	for (const uint64_t *m = nm_wring_next(r, NULL, &words); m; m = nm_wring_next(r, m, &words), i++) {
		same = same && words == i + 1;
		for (uint32_t k = 0; same && k < words; k++)
			same = m[k] == 100 * i + k;
	}
	CHECK(same && i == 3, "read back: 3 messages, each its own words (%u)", i);
	nm_wring_begin(b, 9);
	len = nm_wring_seal(b);
	memcpy(r, b, 8 * len);
	CHECK(len == 3 && nm_wring_arrived(r, 9, cap) && !nm_wring_next(r, NULL, &words), "an empty bucket arrives with no message");
}

/* A bucket landing word by word, in any order of its first and last
 * words: taken only when both are in. */
static void partial(void)
{
	uint64_t b[64], r[64];
	size_t cap = nm_wring_bucket_words(MSGS, WORDS);
	/* the ring's last lap left bucket 3 here (a ring of 2: bucket 5 takes its slot) */
	nm_wring_begin(b, 3);
	for (int i = 0; i < 4; i++)
		nm_wring_add(b, WORDS)[0] = 3;
	nm_wring_seal(b);
	memcpy(r, b, sizeof r);
	nm_wring_begin(b, 5);
	nm_wring_add(b, 2)[1] = 55;
	uint32_t len = nm_wring_seal(b);
	CHECK(nm_wring_index(5, 2) == nm_wring_index(3, 2), "buckets 3 and 5 share a slot of a ring of 2");
	CHECK(!nm_wring_arrived(r, 5, cap), "nothing of bucket 5 in: not arrived");
	r[len - 1] = b[len - 1];
	CHECK(!nm_wring_arrived(r, 5, cap), "its footer in, the header still bucket 3's: not arrived");
	memcpy(r, b, 8 * len);
	r[len - 1] = 3;
	CHECK(!nm_wring_arrived(r, 5, cap), "its header in, the footer not yet: not arrived");
	r[len - 1] = 5;
	CHECK(nm_wring_arrived(r, 5, cap), "both in: arrived");
	uint32_t words;
	const uint64_t *m = nm_wring_next(r, NULL, &words);
	CHECK(m && words == 2 && m[1] == 55 && !nm_wring_next(r, m, &words), "its one message, as sent");
	/* a header of the new seq over an older length that runs past the slot */
	r[0] = 5;
	r[1] = (uint64_t)1 << 32 | 1000;
	CHECK(!nm_wring_arrived(r, 5, cap), "a length past the slot is not followed");
}

int main(void)
{
	round_trip();
	partial();
	return tap_done();
}
