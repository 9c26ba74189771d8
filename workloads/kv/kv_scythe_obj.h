/* One object of the Scythe-style store (kv_scythe.h) and the requests its
 * server thread serves on it, as Scythe's services answer them: a read
 * (read_service, COLD mode), an insert or an update (write_service), a
 * lock request (queuing_service on the object's TakeoutLock). Pure: the
 * object is memory, the request and the reply words (kv_scythe.h has their
 * layout); unit-tested in tests/unit/test_kv_scythe.c.
 *
 * An object: [tickets issued (lower)] [ticket served (upper)] [the newest
 * queued stamp] [version stamp] [record: key, value, checksum]. The server's
 * CPU alone writes lower, the queued stamp, the version and the record;
 * the served ticket moves only by the holders' RDMA FETCH_AND_ADD, which
 * the server only reads (primitives/README.md: a word is updated by RDMA
 * atomics or by CPU atomics, never both). */
#ifndef NM_KV_SCYTHE_OBJ_H
#define NM_KV_SCYTHE_OBJ_H
#include <stdint.h>

/* Requests, and the replies' statuses. */
enum { RQ_READ = 1, RQ_INSERT, RQ_QUEUE, RQ_UPDATE, RQ_BYE };
enum { RP_OK = 1, RP_LOCKED, RP_GRANTED, RP_REFUSED };
/* The object's words before the record. */
enum { KV_SC_LOWER, KV_SC_UPPER, KV_SC_QUEUED, KV_SC_VERSION, KV_SC_REC };
/* Scythe's COLD mode refuses a lock request while more than this many hold
 * or wait for the lock (kColdWatermark). */
#define KV_SC_QUEUE_MAX 3

/* Serves request req (payload: [slot << 8 | kind] [key] [object] [stamp]
 * [record]; kind RQ_READ, RQ_INSERT, RQ_UPDATE or RQ_QUEUE) on obj, whose
 * record is rec_words long, into reply ([slot << 8 | status] [version]
 * [ticket] [served ticket] [record, for a read answered RP_OK]). Returns
 * the reply's words. */
uint32_t kv_scythe_serve_obj(uint64_t *obj, uint32_t rec_words, const uint64_t *req, uint64_t *reply);
#endif
