/* Small, fast, reproducible randomness for measured loops: splitmix64 to mix
 * a value (seeding, pattern words, hashes) and xorshift64* for per-thread
 * streams. Not for anything cryptographic. */
#ifndef NM_RNG_H
#define NM_RNG_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t nm_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* splitmix64 as a generator: the next value of the sequence that state
 * walks (seeding larger generators, as xoshiro's authors advise). */
static inline uint64_t nm_splitmix64(uint64_t *state)
{
	uint64_t x = *state;
	*state += 0x9e3779b97f4a7c15ull;
	return nm_mix64(x);
}

/* xorshift64*: the state must never be 0. */
static inline uint64_t nm_xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Pattern words: distinct per (owner, word index) and cheap to regenerate,
 * so checking data needs no copy of what was written. */
static inline uint64_t nm_pattern_word(uint64_t owner, size_t i) { return nm_mix64(owner * 0x100000001b3ull + i); }

static inline void nm_pattern_fill(void *p, size_t len, uint64_t owner)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_pattern_word(owner, i / 8);
		memcpy((uint8_t *)p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* Offset of the first word that differs from the pattern, or -1. */
static inline long nm_pattern_check(const void *p, size_t len, uint64_t owner)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = nm_pattern_word(owner, i / 8);
		if (memcmp((const uint8_t *)p + i, &w, len - i < 8 ? len - i : 8) != 0)
			return (long)i;
	}
	return -1;
}

/* A never-zero stream state, distinct per (seed, rank, thread). */
static inline uint64_t nm_rng_stream(uint64_t seed, int rank, int thread)
{
	return nm_mix64(seed ^ ((uint64_t)rank << 32) ^ ((uint64_t)thread << 16)) | 1;
}
#endif
