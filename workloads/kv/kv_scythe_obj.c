/* An object's requests in the Scythe-style store: see kv_scythe_obj.h. */
#include "kv_scythe_obj.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* The served ticket, which holders move by RDMA: read once, whole. */
static uint64_t served_of(uint64_t *obj)
{
	return atomic_load_explicit((_Atomic uint64_t *)(obj + KV_SC_UPPER), memory_order_acquire);
}

uint32_t kv_scythe_serve_obj(uint64_t *obj, uint32_t rec_words, const uint64_t *req, uint64_t *reply)
{
	uint64_t status = RP_OK, ticket = 0, served = 0;
	bool data = false;
	switch (req[0] & 0xff) {
	case RQ_READ:
		/* a held or queued lock answers "locked", with no data */
		if (obj[KV_SC_LOWER] != served_of(obj))
			status = RP_LOCKED;
		else
			data = true;
		break;
	case RQ_INSERT:
	case RQ_UPDATE:
		/* the newest in wins, whatever its stamp (alloc_insert links it in) */
		memcpy(obj + KV_SC_REC, req + 4, 8 * (size_t)rec_words);
		obj[KV_SC_VERSION] = req[3];
		break;
	case RQ_QUEUE:
		/* TakeoutLock::Lock: refused when older than the newest queued
		 * stamp, or when more than KV_SC_QUEUE_MAX hold or wait */
		served = served_of(obj);
		if (req[3] < obj[KV_SC_QUEUED] || obj[KV_SC_LOWER] - served > KV_SC_QUEUE_MAX) {
			status = RP_REFUSED;
			break;
		}
		obj[KV_SC_QUEUED] = req[3];
		ticket = obj[KV_SC_LOWER];
		atomic_store_explicit((_Atomic uint64_t *)(obj + KV_SC_LOWER), ticket + 1, memory_order_release);
		status = RP_GRANTED;
		break;
	}
	reply[0] = (req[0] & ~(uint64_t)0xff) | status;
	reply[1] = obj[KV_SC_VERSION];
	reply[2] = ticket;
	reply[3] = served;
	if (!data)
		return 4;
	memcpy(reply + 4, obj + KV_SC_REC, 8 * (size_t)rec_words);
	return 4 + rec_words;
}
