/* CoRM's slot layout and reader check (corm_slot.h). */
#include "corm_slot.h"
#include "rng.h"
#include <string.h>

const char *const corm_slot_state_names[CORM_SLOT_NSTATES] = {"ok", "not_found", "locked", "torn", "refused"};

uint32_t corm_slot_capacity(uint32_t slot)
{
	if (slot <= 8)
		return 0;
	if (slot <= 64 && 64 % slot == 0)
		return slot - 8;
	uint32_t lines = (slot + 63) / 64;
	return slot > 8 + lines ? slot - 8 - lines : 0;
}

/* Walks the payload bytes of a slot: position p (from the slot start) is a
 * payload byte unless it is a line start. */
static inline bool line_start(uint64_t addr, uint32_t p) { return ((addr + p) & 63) == 0; }
/* Where the run of payload bytes from offset p ends: the next line start, or the slot's end. */
static inline uint32_t run_end(uint64_t addr, uint32_t p, uint32_t slot_size)
{
	uint32_t next = (uint32_t)(((addr + p + 63) & ~(uint64_t)63) - addr);
	return next < slot_size ? next : slot_size;
}

void corm_slot_write(uint8_t *slot, uint64_t addr, uint32_t slot_size, uint8_t version, const void *src, size_t n)
{
	const uint8_t *s = src;
	uint32_t p = 8;
	/* Runs of bytes between line starts, one memcpy each. */
	while (p < slot_size) {
		if (line_start(addr, p)) {
			slot[p++] = version;
			continue;
		}
		uint32_t next = run_end(addr, p, slot_size);
		size_t k = next - p;
		if (k > n)
			k = n;
		if (k) {
			memcpy(slot + p, s, k);
			s += k;
			n -= k;
		}
		p = next; /* bytes past the payload keep what they had */
	}
}

void corm_slot_read(const uint8_t *slot, uint64_t addr, uint32_t slot_size, void *dst, size_t n)
{
	uint8_t *d = dst;
	uint32_t p = 8;
	while (p < slot_size && n) {
		if (line_start(addr, p)) {
			p++;
			continue;
		}
		uint32_t next = run_end(addr, p, slot_size);
		size_t k = next - p;
		if (k > n)
			k = n;
		memcpy(d, slot + p, k);
		d += k;
		n -= k;
		p = next;
	}
}

/* Both checks: want_id < 0 skips the ID comparison (FaRM). */
static inline corm_slot_state check(const uint8_t *img, uint64_t addr, uint32_t slot_size, int32_t want_id,
				    void *out, size_t n, uint8_t *version)
{
	uint64_t h;
	memcpy(&h, img, 8);
	if (!(h & CORM_H_ALLOC) || (want_id >= 0 && corm_h_id(h) != (uint16_t)want_id))
		return CORM_SLOT_NOT_FOUND;
	if (h & (CORM_H_LOCK | CORM_H_COMPACT))
		return CORM_SLOT_LOCKED;
	uint8_t v = corm_h_version(h);
	for (uint32_t p = (uint32_t)((64 - (addr & 63)) & 63); p < slot_size; p += 64)
		if (p >= 8 && img[p] != v)
			return CORM_SLOT_TORN;
	if (out)
		corm_slot_read(img, addr, slot_size, out, n);
	if (version)
		*version = v;
	return CORM_SLOT_OK;
}

corm_slot_state corm_slot_check(const uint8_t *img, uint64_t addr, uint32_t slot_size, uint16_t id, void *out,
				size_t n, uint8_t *version)
{
	return check(img, addr, slot_size, id, out, n, version);
}

corm_slot_state corm_slot_check_farm(const uint8_t *img, uint64_t addr, uint32_t slot_size, void *out, size_t n,
				     uint8_t *version)
{
	return check(img, addr, slot_size, -1, out, n, version);
}

int64_t corm_block_find(const uint8_t *blk, uint32_t slot_size, uint32_t slots, uint16_t id)
{
	for (uint32_t i = 0; i < slots; i++) {
		uint64_t h;
		memcpy(&h, blk + (size_t)i * slot_size, 8);
		if ((h & CORM_H_ALLOC) && corm_h_id(h) == id)
			return (int64_t)i * slot_size;
	}
	return -1;
}

/* Payload bytes from 8 on are the words of nm_pattern_word(key:stamp),
 * little end first, whole words at a time (a byte-wise hash would make the
 * check cost microseconds on a 2 KB object). */
static inline void pattern_bytes(uint64_t seed, size_t i, uint8_t out[8])
{
	uint64_t w = nm_pattern_word(seed, i / 8);
	for (int b = 0; b < 8; b++)
		out[b] = (uint8_t)(w >> (8 * b));
}

void corm_payload_fill(uint8_t *buf, size_t n, uint32_t key, uint32_t stamp)
{
	memcpy(buf, &key, 4);
	memcpy(buf + 4, &stamp, 4);
	uint64_t seed = ((uint64_t)key << 32) | stamp;
	uint8_t w[8];
	for (size_t i = 8; i < n; i += 8) {
		pattern_bytes(seed, i, w);
		memcpy(buf + i, w, n - i < 8 ? n - i : 8);
	}
}

corm_pay_state corm_payload_check(const uint8_t *buf, size_t n, uint32_t key)
{
	uint32_t k, stamp;
	memcpy(&k, buf, 4);
	memcpy(&stamp, buf + 4, 4);
	if (k != key)
		return CORM_PAY_FOREIGN;
	uint64_t seed = ((uint64_t)key << 32) | stamp;
	uint8_t w[8];
	for (size_t i = 8; i < n; i += 8) {
		pattern_bytes(seed, i, w);
		if (memcmp(buf + i, w, n - i < 8 ? n - i : 8))
			return CORM_PAY_CORRUPT;
	}
	return CORM_PAY_OK;
}
