/* netmem corm's client threads (corm_bench.h). Every object's payload
 * checks itself (corm_payload_fill: its key, a stamp, bytes derived from
 * both), and each thread knows the version of each of its objects, so every
 * read is checked: another object's bytes or an older version is `stale`,
 * an object that was never freed but cannot be found is `lost`. */
#include "corm_bench.h"
#include "clock.h"
#include "log.h"
#include "rng.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

const char *const corm_bench_names[CORM_NBENCH] = {"latency", "throughput", "compaction", "remap"};
const char *const corm_read_names[CORM_NREAD] = {"direct", "rpc"};
const char *const corm_lat_names[CORM_NLAT] = {"raw_read", "raw_rpc", "alloc", "free", "read_rpc", "write_rpc",
					       "direct_read", "scan_read", "indirect_read_rpc", "release_ptr"};

/* DirectRead gives up after this many locked or torn copies and lets the
 * caller fall back (the paper leaves the bound open, digest 5.23). */
#define DIRECT_TRIES 1000

static inline uint32_t key_of(const corm_thread *th, uint32_t i)
{
	return (uint32_t)(((uint64_t)(th->rank - 1) * (uint64_t)th->nthreads + (uint64_t)th->thread) * th->p->objects + i);
}

static inline uint32_t payload_len(const corm_thread *th) { return th->p->size; }

/* Checks an accepted copy of object i: 1 good, 0 torn content (retry),
 * -1 stale (counted). */
static int judge(corm_thread *th, uint32_t i, const uint8_t *buf, uint8_t version)
{
	corm_pay_state ps = corm_payload_check(buf, payload_len(th), key_of(th, i));
	if (ps == CORM_PAY_CORRUPT) {
		th->t.torn_content++;
		return 0;
	}
	if (ps == CORM_PAY_FOREIGN || version != th->version[i]) {
		th->t.stale++;
		return -1;
	}
	return 1;
}

typedef enum { GOT_DIRECT, GOT_SCAN, GOT_RPC, GOT_LOST } corm_got;

/* The client's read of object i through pointer p: DirectRead (retried
 * while locked or torn), then ScanRead, then an RPC read; p is corrected
 * on the way. */
static corm_got read_obj(corm_thread *th, uint32_t i, corm_ptr *p, uint8_t *buf, bool direct_first)
{
	corm_conn *c = th->c;
	uint32_t n = payload_len(th);
	for (int tries = 0; direct_first && tries < DIRECT_TRIES; tries++) {
		corm_slot_state st = corm_direct_read(c, p, buf, n);
		if (st == CORM_SLOT_OK) {
			int j = judge(th, i, buf, p->version);
			if (j > 0) {
				th->t.direct_ok++;
				return GOT_DIRECT;
			}
			if (j < 0)
				return GOT_LOST;
			continue;
		}
		if (st == CORM_SLOT_NOT_FOUND)
			break;
		th->t.direct_retry++;
		sched_yield();
	}
	if (direct_first) {
		/* Under the device limit only page-aligned reads can succeed:
		 * the others are counted apart, so direct_miss stays what the
		 * compaction caused. */
		bool dev = th->lim.odp_offset_bug && (p->addr & (th->lim.page - 1));
		if (dev)
			th->t.direct_miss_device++;
		else
			th->t.direct_miss++;
		for (int tries = 0; tries < DIRECT_TRIES; tries++) {
			corm_slot_state st = corm_scan_read(c, p, buf, n);
			if (st == CORM_SLOT_OK) {
				int j = judge(th, i, buf, p->version);
				if (j > 0) {
					th->t.scan_ok++;
					return GOT_SCAN;
				}
				if (j < 0)
					return GOT_LOST;
				continue;
			}
			if (st == CORM_SLOT_NOT_FOUND)
				break;
			sched_yield();
		}
		if (th->lim.odp_offset_bug)
			th->t.scan_miss_device++; /* a block is read in several packets */
		else
			th->t.scan_miss++;
	}
	for (;;) {
		corm_status s = corm_rpc(c, CORM_RPC_READ, p, 0, NULL, 0, buf, n);
		if (s != CORM_OK) {
			th->t.lost++;
			return GOT_LOST;
		}
		int j = judge(th, i, buf, p->version);
		if (j > 0) {
			th->t.rpc_ok++;
			return GOT_RPC;
		}
		if (j < 0)
			return GOT_LOST;
	}
}

void corm_thread_load(corm_thread *th)
{
	uint32_t n = th->p->objects, len = payload_len(th);
	uint8_t *buf = malloc(len);
	th->ptr = calloc(n, sizeof *th->ptr);
	th->orig = calloc(n, sizeof *th->orig);
	th->live = calloc(n, 1);
	th->version = calloc(n, 1);
	if (!buf || !th->ptr || !th->orig || !th->live || !th->version)
		nm_fatal("corm: out of memory for %u pointers", n);
	for (uint32_t i = 0; i < n; i++) {
		corm_payload_fill(buf, len, key_of(th, i), 0);
		if (corm_rpc(th->c, CORM_RPC_ALLOC, &th->ptr[i], len, buf, len, NULL, 0) != CORM_OK) {
			th->t.alloc_fail++;
			continue;
		}
		th->live[i] = 1;
		th->version[i] = th->ptr[i].version;
		th->t.allocated++;
	}
	/* Frees chosen at random: what leaves blocks sparse. */
	uint64_t rng = nm_mix64(th->seed) | 1;
	for (uint32_t i = 0; i < n; i++)
		if (th->live[i] && (double)(nm_xorshift(&rng) >> 11) * 0x1.0p-53 < th->p->free_ratio) {
			corm_ptr q = th->ptr[i];
			if (corm_rpc(th->c, CORM_RPC_FREE, &q, 0, NULL, 0, NULL, 0) == CORM_OK) {
				th->live[i] = 0;
				th->t.freed++;
			}
		}
	memcpy(th->orig, th->ptr, n * sizeof *th->ptr);
	free(buf);
}

static void count_read(corm_thread *th, uint64_t now)
{
	uint64_t k = nm_ticks_to_ns(now - th->t0) / (uint64_t)(th->p->interval * 1e9);
	th->series[k < CORM_SERIES_MAX ? k : CORM_SERIES_MAX - 1]++;
}

void corm_thread_readers(corm_thread *th)
{
	uint32_t n = th->p->objects, len = payload_len(th);
	uint8_t *buf = malloc(len);
	ycsb_config yc;
	ycsb_config_default(&yc);
	yc.records = n;
	yc.dist = th->p->dist;
	yc.theta = th->p->theta;
	yc.seed = th->seed;
	yc.rank = (uint32_t)th->rank;
	yc.thread = (uint32_t)th->thread;
	yc.mix = (ycsb_mix){.p = {[YCSB_READ] = 1}};
	ycsb_gen g;
	char err[256];
	if (ycsb_init(&g, &yc, err, sizeof err))
		nm_fatal("corm: key generator: %s", err);
	uint64_t rng = nm_mix64(th->seed ^ 0x5eed) | 1;
	uint64_t end = th->t0 + nm_ns_to_ticks((uint64_t)(th->duration * 1e9));
	uint32_t seq = 0, stamp = 1;
	bool sequential = th->p->bench == CORM_BENCH_COMPACTION;
	for (uint64_t now = nm_ticks(); now < end; now = nm_ticks()) {
		/* Fig. 16 reads all objects in order; the others draw keys. */
		uint32_t i = sequential ? seq++ % n : (uint32_t)ycsb_next_key(&g);
		if (!th->live[i])
			continue;
		bool write = th->p->write_ratio > 0 && (double)(nm_xorshift(&rng) >> 11) * 0x1.0p-53 < th->p->write_ratio;
		if (write) {
			corm_payload_fill(buf, len, key_of(th, i), stamp++);
			if (corm_rpc(th->c, CORM_RPC_WRITE, &th->ptr[i], 0, buf, len, NULL, 0) == CORM_OK)
				th->version[i] = th->ptr[i].version;
			else
				th->t.lost++;
			th->t.writes++;
		} else {
			read_obj(th, i, &th->ptr[i], buf, th->p->read == CORM_READ_DIRECT);
			th->t.reads++;
		}
		count_read(th, nm_ticks());
	}
	free(buf);
}

void corm_thread_verify(corm_thread *th)
{
	uint8_t *buf = malloc(payload_len(th));
	for (uint32_t i = 0; i < th->p->objects; i++) {
		if (!th->live[i])
			continue;
		corm_ptr q = th->orig[i]; /* the pointer from before any compaction */
		corm_got got = read_obj(th, i, &q, buf, true);
		th->t.verified++;
		th->t.verify_direct += got == GOT_DIRECT;
		th->t.verify_scan += got == GOT_SCAN;
		th->t.verify_rpc += got == GOT_RPC;
		th->ptr[i] = q;
	}
	free(buf);
}

void corm_thread_unload(corm_thread *th)
{
	for (uint32_t i = 0; i < th->p->objects; i++)
		if (th->live[i] && corm_rpc(th->c, CORM_RPC_FREE, &th->ptr[i], 0, NULL, 0, NULL, 0) == CORM_OK) {
			th->live[i] = 0;
			th->t.freed++;
		}
}

static inline void lat_add(corm_thread *th, corm_lat k, uint64_t t0)
{
	nm_hist_add(&th->lat[k], nm_ticks_to_ns(nm_ticks() - t0));
}

/* Fig. 9 and 10: each operation alone, one at a time, on the loaded objects. */
void corm_thread_latency(corm_thread *th)
{
	uint32_t n = th->p->objects, len = payload_len(th);
	uint8_t *buf = malloc(len), *wbuf = malloc(len);
	corm_conn *c = th->c;
	uint32_t live_n = 0, *live = malloc(n * sizeof *live);
	for (uint32_t i = 0; i < n; i++)
		if (th->live[i])
			live[live_n++] = i;
	if (!live_n)
		nm_fatal("corm latency: no object left after the load (--free-ratio 1?)");
	uint32_t stamp = 1;
	for (uint64_t it = 0; it < th->iters; it++) {
		uint32_t i = live[it % live_n];
		corm_ptr *p = &th->ptr[i];
		uint32_t ss = c->cls->size[p->cls];
		uint64_t t0 = nm_ticks();
		corm_raw_read(c, p->addr, p->rkey, ss);
		lat_add(th, CORM_LAT_RAW_READ, t0);
		t0 = nm_ticks();
		corm_rpc(c, CORM_RPC_NOP, NULL, 0, NULL, 0, NULL, 0);
		lat_add(th, CORM_LAT_RAW_RPC, t0);
		corm_ptr fresh;
		corm_payload_fill(wbuf, len, 0xffffffffu, stamp);
		t0 = nm_ticks();
		corm_status s = corm_rpc(c, CORM_RPC_ALLOC, &fresh, len, wbuf, len, NULL, 0);
		lat_add(th, CORM_LAT_ALLOC, t0);
		if (s == CORM_OK) {
			t0 = nm_ticks();
			corm_rpc(c, CORM_RPC_FREE, &fresh, 0, NULL, 0, NULL, 0);
			lat_add(th, CORM_LAT_FREE, t0);
		} else {
			th->t.alloc_fail++;
		}
		t0 = nm_ticks();
		read_obj(th, i, p, buf, false);
		lat_add(th, CORM_LAT_READ_RPC, t0);
		corm_payload_fill(wbuf, len, key_of(th, i), stamp++);
		t0 = nm_ticks();
		if (corm_rpc(c, CORM_RPC_WRITE, p, 0, wbuf, len, NULL, 0) == CORM_OK)
			th->version[i] = p->version;
		lat_add(th, CORM_LAT_WRITE_RPC, t0);
		t0 = nm_ticks();
		read_obj(th, i, p, buf, true);
		lat_add(th, CORM_LAT_DIRECT, t0);
		t0 = nm_ticks();
		if (corm_scan_read(c, p, buf, len) == CORM_SLOT_OK)
			judge(th, i, buf, p->version);
		lat_add(th, CORM_LAT_SCAN, t0);
		/* An indirect pointer as the authors measure it: the right
		 * block, a wrong offset; the RPC read corrects it. */
		corm_ptr ind = *p;
		ind.addr = corm_ptr_base(p, c->block_size) + (corm_ptr_off(p, c->block_size) ? 0 : ss);
		t0 = nm_ticks();
		read_obj(th, i, &ind, buf, false);
		lat_add(th, CORM_LAT_INDIRECT_RPC, t0);
		t0 = nm_ticks();
		corm_rpc(c, CORM_RPC_RELEASE, p, 0, NULL, 0, NULL, 0);
		lat_add(th, CORM_LAT_RELEASE, t0);
		th->t.reads += 4;
		th->t.writes++;
	}
	free(live);
	free(buf);
	free(wbuf);
}
