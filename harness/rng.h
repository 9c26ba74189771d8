/* Small, fast, reproducible randomness for measured loops: splitmix64 to mix
 * a value (seeding, pattern words, hashes) and xorshift64* for per-thread
 * streams. Not for anything cryptographic. */
#ifndef NM_RNG_H
#define NM_RNG_H
#include <stdint.h>

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

/* A never-zero stream state, distinct per (seed, rank, thread). */
static inline uint64_t nm_rng_stream(uint64_t seed, int rank, int thread)
{
	return nm_mix64(seed ^ ((uint64_t)rank << 32) ^ ((uint64_t)thread << 16)) | 1;
}
#endif
