/* The Scythe-style store's object (workloads/kv/kv_scythe_obj.h): what its
 * server answers, in orders forced here, as Scythe's services do. Reads
 * return the record while nobody holds or waits for the takeout lock, and
 * "locked" with no data otherwise; an insert takes no lock and the newest
 * in wins, whatever its stamp; lock requests take tickets in order, the
 * first served at once, until more than 3 hold or wait, and one older than
 * the newest queued stamp is refused; holders' releases (the served
 * ticket's FETCH_AND_ADD, done by hand here) hand the lock on. */
#include "kv_scythe_obj.h"
#include "tap.h"
#include <string.h>

enum { RW = 3, SLOT = 5 };

static uint64_t obj[KV_SC_REC + RW];

/* A request of kind on obj's object 7 with stamp, record {key, v, v}. */
static uint32_t ask(int kind, uint64_t stamp, uint64_t v, uint64_t *reply)
{
	uint64_t req[4 + RW] = {(uint64_t)SLOT << 8 | (uint64_t)kind, 0xabc, 7, stamp, 0xabc, v, v};
	return kv_scythe_serve_obj(obj, RW, req, reply);
}
static uint64_t status(const uint64_t *r) { return r[0] & 0xff; }

static void reads_and_inserts(void)
{
	uint64_t r[4 + RW];
	memset(obj, 0, sizeof obj);
	CHECK(ask(RQ_INSERT, 100, 1, r) == 4 && status(r) == RP_OK && r[0] >> 8 == SLOT,
	      "insert: OK, 4 words, the slot echoed");
	CHECK(obj[KV_SC_LOWER] == 0 && obj[KV_SC_VERSION] == 100 && obj[KV_SC_REC + 1] == 1,
	      "insert: no lock taken, the record and its stamp in");
	ask(RQ_INSERT, 90, 2, r);
	CHECK(obj[KV_SC_VERSION] == 90 && obj[KV_SC_REC + 1] == 2, "an insert with an older stamp: the newest in wins");
	CHECK(ask(RQ_READ, 0, 0, r) == 4 + RW && status(r) == RP_OK && r[1] == 90 && r[4] == 0xabc && r[5] == 2,
	      "read of a free object: OK, its version and record");
}

static void takeout_lock(void)
{
	uint64_t r[4 + RW];
	memset(obj, 0, sizeof obj);
	ask(RQ_QUEUE, 10, 0, r);
	CHECK(status(r) == RP_GRANTED && r[2] == 0 && r[3] == 0, "the first lock request: ticket 0, served at once");
	ask(RQ_QUEUE, 11, 0, r);
	CHECK(status(r) == RP_GRANTED && r[2] == 1 && r[3] == 0, "the second: ticket 1, to wait for");
	CHECK(ask(RQ_READ, 0, 0, r) == 4 && status(r) == RP_LOCKED, "a read while the lock is held: locked, no data");
	ask(RQ_QUEUE, 9, 0, r);
	CHECK(status(r) == RP_REFUSED && obj[KV_SC_LOWER] == 2, "a request older than the newest queued stamp: refused, no ticket");
	ask(RQ_QUEUE, 12, 0, r);
	ask(RQ_QUEUE, 13, 0, r);
	CHECK(status(r) == RP_GRANTED && r[2] == 3, "third and fourth requests: tickets 2 and 3 (4 hold or wait)");
	ask(RQ_QUEUE, 14, 0, r);
	CHECK(status(r) == RP_REFUSED && obj[KV_SC_LOWER] == 4, "a fifth while 4 hold or wait: refused (Scythe's bound of 3 waiting)");
	CHECK(ask(RQ_UPDATE, 10, 5, r) == 4 && status(r) == RP_OK && obj[KV_SC_REC + 1] == 5, "the holder's update: installed");
	obj[KV_SC_UPPER]++;   /* the holder's release: FETCH_AND_ADD of the served ticket */
	CHECK(ask(RQ_READ, 0, 0, r) == 4 && status(r) == RP_LOCKED, "ticket 1 served, 2 and 3 waiting: reads still locked");
	ask(RQ_QUEUE, 15, 0, r);
	CHECK(status(r) == RP_GRANTED && r[2] == 4 && r[3] == 1, "room again after a release: ticket 4, served 1");
	obj[KV_SC_UPPER] += 4;
	CHECK(ask(RQ_READ, 0, 0, r) == 4 + RW && status(r) == RP_OK && r[5] == 5, "every ticket served: reads see the update");
}

int main(void)
{
	reads_and_inserts();
	takeout_lock();
	return tap_done();
}
