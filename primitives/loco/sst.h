/* LOCO's SST, shared state table (paper section 5.1.2, after Derecho): one
 * owned_var per member, row r owned by rank r. Each member writes only its
 * own row and reads everyone's rows from its local copies, which the owners
 * keep current by pushing (RDMA WRITE of the owner's row into every other
 * member's copy of that row).
 *
 * Members are ranks 0..n-1 (the first n ranks of the job). Rows sit at the
 * same offsets in every rank's registered memory, one per 64-byte line, so
 * the NIC placing one row never shares a cache line with another row that
 * the CPU spins on. */
#ifndef NM_SST_H
#define NM_SST_H
#include "owned_var.h"

#define NM_SST_ROW_STRIDE(len) ((nm_ov_slot_bytes(len) + 63) & ~(size_t)63)

typedef struct nm_sst {
	nm_ov *rows;      /* [n] */
	int n, me;        /* members; this rank (a member: me < n) */
	uint32_t len;     /* value bytes per row */
} nm_sst;

/* Bytes the table takes at its offset, for n rows of len-byte values. */
size_t nm_sst_bytes(uint32_t len, int n);
/* Every member calls it with the same arguments before the mesh is
 * connected; all rows start as `initial` (NULL = zeros). off 64-aligned. */
void nm_sst_init(nm_sst *s, const nm_mr *mr, size_t off, uint32_t len, int n, int me,
		 const void *initial);
void nm_sst_free(nm_sst *s);
/* My row, local copy only (nobody else sees it before a push). */
void nm_sst_store_mine(const nm_sst *s, const nm_mr *mr, const void *val);
/* RDMA WRITE of my row into every other member's copy of it. Returns when
 * the WRITEs are posted (LOCO's asynchronous push: an ack_key would track
 * them); the next nm_chan_fence on the same chan makes them placed. */
void nm_sst_push_broadcast(nm_chan *ch, const nm_sst *s);
/* Row r from the local copy; retries while the copy is torn (rows > 8
 * bytes, when a push is landing right now). */
void nm_sst_load(const nm_sst *s, const nm_mr *mr, int r, void *out);
static inline uint64_t nm_sst_load_u64(const nm_sst *s, const nm_mr *mr, int r)
{
	return nm_ov_load_u64(&s->rows[r], mr);
}
#endif
