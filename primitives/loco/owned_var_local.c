/* owned_var's local half (owned_var.h): the slot's layout, the checksum,
 * stores and loads of this rank's copy. No verbs call: the unit tests link
 * it. */
#include "alloc.h"
#include "log.h"
#include "owned_var.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static size_t round8(size_t v) { return (v + 7) & ~(size_t)7; }

size_t nm_ov_slot_bytes(uint32_t len) { return len <= 8 ? 8 : round8(len) + 8; }

uint64_t nm_ov_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = FNV_OFFSET;
	for (size_t i = 0; i < round8(len); i++) {
		h ^= i < len ? b[i] : 0;
		h *= FNV_PRIME;
	}
	return h;
}

static uint8_t *slot(const nm_ov *v, const nm_mr *mr) { return (uint8_t *)mr->buf + v->off; }

/* Stores the value word by word (each aligned 8-byte store is untorn), then
 * the checksum after a release fence: a reader that sees the new checksum
 * and old words, or the reverse, sees a mismatch and retries. */
static void put(const nm_ov *v, const nm_mr *mr, const void *val)
{
	uint64_t *w = (uint64_t *)slot(v, mr);
	if (v->len <= 8) {
		uint64_t x = 0;
		memcpy(&x, val, v->len);
		__atomic_store_n(w, x, __ATOMIC_RELEASE);
		return;
	}
	size_t words = round8(v->len) / 8;
	const uint8_t *src = val;
	for (size_t i = 0; i < words; i++) {
		uint64_t x = 0;
		size_t n = v->len - i * 8 < 8 ? v->len - i * 8 : 8;
		memcpy(&x, src + i * 8, n);
		__atomic_store_n(&w[i], x, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w[words], nm_ov_checksum(val, v->len), __ATOMIC_RELEASE);
}

void nm_ov_init(nm_ov *v, const nm_mr *mr, size_t off, uint32_t len, int owner, int me,
		const void *initial)
{
	if (off % 8 || len == 0 || off + nm_ov_slot_bytes(len) > mr->len)
		nm_fatal("owned_var at offset %zu, %u bytes: not 8-aligned, empty or beyond the "
			 "registered memory (%zu bytes)", off, len, mr->len);
	*v = (nm_ov){.off = off, .len = len, .owner = owner, .me = me};
	if (initial) {
		put(v, mr, initial);
	} else {
		uint8_t *zeros = nm_calloc(1, len);
		put(v, mr, zeros);
		free(zeros);
	}
}

void nm_ov_store(const nm_ov *v, const nm_mr *mr, const void *val)
{
	if (__builtin_expect(v->me != v->owner, 0))
		nm_fatal("owned_var at offset %zu: rank %d stores, but rank %d owns it", v->off, v->me,
			 v->owner);
	put(v, mr, val);
}

bool nm_ov_load(const nm_ov *v, const nm_mr *mr, void *out)
{
	const uint64_t *w = (const uint64_t *)slot(v, mr);
	if (v->len <= 8) {
		uint64_t x = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		memcpy(out, &x, v->len);
		return true;
	}
	size_t words = round8(v->len) / 8;
	uint8_t *dst = out;
	uint64_t sum = __atomic_load_n(&w[words], __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < words; i++) {
		uint64_t x = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
		size_t n = v->len - i * 8 < 8 ? v->len - i * 8 : 8;
		memcpy(dst + i * 8, &x, n);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return nm_ov_checksum(out, v->len) == sum;
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bool nm_ov_load_wait(const nm_ov *v, const nm_mr *mr, void *out, double deadline, uint64_t *retries,
		     double *waited)
{
	if (nm_ov_load(v, mr, out))
		return true;
	/* The checksum word moves with every value the writer places: while it
	 * does, the writer is alive and a later load will find a whole one. */
	const uint64_t *sum = (const uint64_t *)(slot(v, mr) + nm_ov_slot_bytes(v->len) - 8);
	uint64_t seen = __atomic_load_n(sum, __ATOMIC_RELAXED);
	double t0 = mono_s(), last = t0;
	for (uint32_t n = 1;; n++) {
		(*retries)++;
		if (nm_ov_load(v, mr, out))
			return true;
		/* the clock every 1024 tries: a tear lasts a WRITE's placement */
		if (n % 1024)
			continue;
		double now = mono_s();
		uint64_t s = __atomic_load_n(sum, __ATOMIC_RELAXED);
		if (s != seen) {
			seen = s;
			last = now;
		} else if (now - last > deadline) {
			*waited = now - t0;
			return false;
		}
	}
}
