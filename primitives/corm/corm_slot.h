/* CoRM's object layout in remote memory (CoRM paper, Secs. 3, 3.1, 3.2.3,
 * bit widths from the authors' code): the 8-byte
 * object header, the per-cache-line versions inside a slot, the 16-byte block
 * header at the end of a block, the 128-bit client pointer, and the check a
 * reader runs on a copy of a slot (after an RDMA READ, or on the server).
 * Pure: no I/O, no global state; shared by the server heap and the client.
 *
 * Slot: [header 8 B | payload ...], slots 8-byte aligned inside a block that
 * is aligned to its size. At every absolute 64-byte boundary strictly inside
 * the slot the first byte is a copy of the header's version (the header
 * covers the first, partial line), as in FaRM and the authors' code. A reader
 * accepts a copy when the header is unlocked, carries the expected ID, and
 * every line's version byte equals the header's. */
#ifndef NM_CORM_SLOT_H
#define NM_CORM_SLOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Object header, one 64-bit word updated with atomic stores/CAS:
 * version:8 | lock:1 | allocated:1 | compaction:1 | pad:1 | id:16 | oldbase:36
 * oldbase = the VA of the block the object was allocated in >> log2(block).
 * ID 0 is never handed out: a free slot has ID 0. */
#define CORM_H_LOCK (1ull << 8)
#define CORM_H_ALLOC (1ull << 9)
#define CORM_H_COMPACT (1ull << 10)
static inline uint8_t corm_h_version(uint64_t h) { return (uint8_t)h; }
static inline uint16_t corm_h_id(uint64_t h) { return (uint16_t)(h >> 12); }
static inline uint64_t corm_h_oldbase(uint64_t h) { return h >> 28; }
static inline uint64_t corm_h_make(uint8_t version, uint16_t id, uint64_t oldbase, uint64_t flags)
{
	return (uint64_t)version | flags | ((uint64_t)id << 12) | (oldbase << 28);
}

/* Block header in the last 16 bytes of every block. Because it lives in the
 * physical block, reading it through a VA that was remapped onto another
 * block gives that block's primary base and rkey. */
typedef struct corm_block_hdr {
	uint32_t cls;     /* size class */
	uint32_t rkey;    /* rkey of the block's primary VA */
	uint64_t base;    /* primary VA */
} corm_block_hdr;
#define CORM_BLOCK_HDR 16u

/* The client's 128-bit pointer (CoRM paper, Sec. 3; the authors' layout):
 * word 0 version:8 | class:8 | id:16 | rkey:32, word 1 the address (block
 * VA + offset hint). */
typedef struct corm_ptr {
	uint8_t version, cls;
	uint16_t id;
	uint32_t rkey;
	uint64_t addr;
} corm_ptr;
_Static_assert(sizeof(corm_ptr) == 16, "a CoRM pointer is 128 bits");

static inline uint64_t corm_ptr_base(const corm_ptr *p, uint32_t block) { return p->addr & ~(uint64_t)(block - 1); }
static inline uint32_t corm_ptr_off(const corm_ptr *p, uint32_t block) { return (uint32_t)(p->addr & (block - 1)); }

/* Payload bytes a slot of `slot` bytes holds wherever it starts (8-aligned):
 * the authors' rule, slot - 8 for slots that tile a cache line, else minus
 * one byte per line the slot can touch. */
uint32_t corm_slot_capacity(uint32_t slot);

/* Writes n payload bytes into slot (its first byte at absolute address
 * `addr`, for the line boundaries) and stamps `version` at every line start
 * inside it up to its end. The header is the caller's. */
void corm_slot_write(uint8_t *slot, uint64_t addr, uint32_t slot_size, uint8_t version, const void *src,
		     size_t n);
/* Copies n payload bytes out of a slot image whose first byte was at addr. */
void corm_slot_read(const uint8_t *slot, uint64_t addr, uint32_t slot_size, void *dst, size_t n);

typedef enum {
	CORM_SLOT_OK,
	CORM_SLOT_NOT_FOUND,  /* another ID (moved, freed, stale offset hint) */
	CORM_SLOT_LOCKED,     /* a writer or the compactor holds it: retry */
	CORM_SLOT_TORN,       /* line versions disagree: retry */
	CORM_SLOT_REFUSED,    /* the device refused the READ: no image (corm.h) */
	CORM_SLOT_NSTATES
} corm_slot_state;
extern const char *const corm_slot_state_names[CORM_SLOT_NSTATES];

/* The reader's check of a slot image (first byte at remote address addr):
 * on OK copies n payload bytes into out (may be NULL) and the version into
 * *version. */
corm_slot_state corm_slot_check(const uint8_t *img, uint64_t addr, uint32_t slot_size, uint16_t id, void *out,
				size_t n, uint8_t *version);
/* FaRM's check, as the CoRM authors emulate FaRM (CoRM paper, Sec. 4.2,
 * footnote 2; their code): allocated,
 * unlocked, every line's version equal to the header's, and no object ID:
 * whatever object sits at the address is accepted. */
corm_slot_state corm_slot_check_farm(const uint8_t *img, uint64_t addr, uint32_t slot_size, void *out, size_t n,
				     uint8_t *version);

/* Offset of the slot holding `id` in a whole-block image (ScanRead, the
 * server's search), or -1. Only allocated slots count. */
int64_t corm_block_find(const uint8_t *blk, uint32_t slot_size, uint32_t slots, uint16_t id);

/* Benchmark payloads that check themselves: [u32 key][u32 stamp] then bytes
 * derived from (key, stamp), so a reader knows whose bytes it got without a
 * copy of what was written. n >= 8. */
void corm_payload_fill(uint8_t *buf, size_t n, uint32_t key, uint32_t stamp);
typedef enum { CORM_PAY_OK, CORM_PAY_FOREIGN, CORM_PAY_CORRUPT } corm_pay_state;
corm_pay_state corm_payload_check(const uint8_t *buf, size_t n, uint32_t key);
#endif
