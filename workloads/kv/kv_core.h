/* The shared core of netmem kv's systems (kv_core.c), which netmem clover's
 * clients run on too: the operations, a client thread's key space and
 * request stream, the key and value encodings, the checks every read goes
 * through, the tally, and the per-operation history. Every operation a
 * system completes goes through kv_done(), which times it, counts it,
 * checks a read's value and records the history.
 *
 * The core knows no system and no subcommand: the entry (kv.c) and the
 * stores use it, never the other way round (tests/cli/test_layering.sh). */
#ifndef NM_KV_CORE_H
#define NM_KV_CORE_H
#include "experiment.h"
#include "measure.h"
#include "workers.h"
#include "ycsb.h"
#include <stdbool.h>
#include <stdint.h>

/* Operations as the store sees them (YCSB's update is KV_UPDATE). */
typedef enum { KV_GET, KV_UPDATE, KV_INSERT, KV_DELETE, KV_NOPS } kv_opkind;
/* Their names in the result (metrics.lat_by_op) and the history. */
extern const char *const kv_op_names[KV_NOPS];

/* What a client thread's request stream and read checks depend on (the
 * point's share that kv_thread reads). */
typedef struct kv_load {
	ycsb_mix mix;
	ycsb_dist dist;
	double theta;
	uint64_t keys;            /* key space: slots in the whole store */
	uint64_t prefill;         /* keys inserted before the run: 0 .. prefill-1 (ranks) */
	uint32_t value_size;      /* bytes, a multiple of 8 */
	uint32_t value_words;
	double delete_ratio;      /* updates that toggle the key (delete, or insert if absent) */
	bool global_versions;     /* versions ordered across writers (a lock's), else per writer */
	bool overlapping_reads;   /* a thread's reads may complete out of issue order (memtier-style
				   * clients, one connection each): see kv_checker */
	uint64_t history_max;     /* operations per thread recorded (--history); 0: none */
} kv_load;

/* ---- keys and values -------------------------------------------------- */

/* The 64-bit key of key rank r (0 = most popular for zipfian): XXH64 of r's
 * eight little-endian bytes, seed 0 (xxHash from libxxhash; the paper used
 * CityHash64, which Debian does not package). Never 0: 0 marks an empty slot. */
uint64_t kv_key(uint64_t rank);
/* 16 bits of the key that every value word carries. */
static inline uint32_t kv_key_tag(uint64_t key)
{
	return (uint32_t)((key ^ key >> 16 ^ key >> 32 ^ key >> 48) & 0xffff);
}

/* A value of n words: every word is tag(16) | writer(16) | version(32), the
 * same in each word, so a value mixing two writes (torn) shows as words that
 * differ. writer = rank << 8 | thread (the prefill writes writer 0xffff,
 * version 0). version: under LOCO and the Sherman-style store the key's
 * lock version (a ticket, or the lock word's count), which grows in the
 * key's modification order, so a reader may compare versions of different
 * writers; under Redis the writer's own sequence, compared per writer. */
#define KV_PREFILL_WRITER 0xffffu
static inline uint64_t kv_word(uint64_t key, uint32_t writer, uint32_t version)
{
	return (uint64_t)kv_key_tag(key) << 48 | (uint64_t)(writer & 0xffff) << 32 | version;
}
void kv_value_fill(uint64_t *val, uint32_t words, uint64_t key, uint32_t writer, uint32_t version);
static inline uint32_t kv_word_writer(uint64_t w) { return (uint32_t)(w >> 32) & 0xffff; }
static inline uint32_t kv_word_version(uint64_t w) { return (uint32_t)w; }

/* ---- checks ------------------------------------------------------------- */

typedef enum { KV_READ_OK, KV_READ_TORN, KV_READ_FOREIGN, KV_READ_REGRESSED } kv_verdict;

/* What one reader thread remembers: the newest (writer, version) it saw of
 * recently read keys, in a direct-mapped table (a key that falls out is no
 * longer compared; regressions seen between close reads are the ones a
 * broken store produces). */
typedef struct kv_seen {
	uint64_t key;
	uint32_t writer, version;
	uint64_t done;            /* when that read completed (ticks; overlapping readers) */
} kv_seen;

/* A thread whose reads complete in issue order (one queue per store node)
 * compares each read with the last one of the key. A thread of many
 * clients (overlapping) compares a read only with reads that completed
 * before it began: two overlapping reads may return versions in either
 * order under linearizability, so that is no regression. */
typedef struct kv_checker {
	kv_seen *seen;
	uint32_t mask;
	bool global_versions;     /* versions ordered across writers (lock versions) */
	bool overlapping;         /* reads of this thread overlap (see above) */
	char first[200];          /* the first failure, in words */
} kv_checker;

void kv_checker_init(kv_checker *c, uint32_t entries, bool global_versions);
void kv_checker_free(kv_checker *c);
/* Checks a value read for key; KV_READ_OK remembers its version. */
kv_verdict kv_check_value(kv_checker *c, uint64_t key, const uint64_t *val, uint32_t words);
/* The same for a read that began at t0 and completed at t1 (ticks): what an
 * overlapping checker needs. */
kv_verdict kv_check_value_at(kv_checker *c, uint64_t key, const uint64_t *val, uint32_t words, uint64_t t0,
			     uint64_t t1);

/* ---- the tally ---------------------------------------------------------- */

enum kv_counter {
	KV_C_GETS, KV_C_UPDATES, KV_C_INSERTS, KV_C_DELETES,  /* completed, every op kind */
	KV_C_MISSES,           /* a get or update that found no key */
	KV_C_RETRIES,          /* reads retried (a torn slot: checksum or lock held) */
	KV_C_FENCES,           /* fences posted */
	KV_C_LOCK_RETRIES,     /* lock attempts that failed (CAS) or polls that waited */
	KV_C_TORN, KV_C_FOREIGN, KV_C_REGRESSED,   /* failed reads */
	KV_C_ACK_NS, KV_C_ACKS,  /* tracker acknowledgement wait of inserts and deletes */
	KV_C_APPLIED,          /* tracker messages applied by this node */
	KV_C_BAD_SLOTS,        /* end-of-run scan: slots whose content fails */
	KV_C_FULL,             /* inserts refused: no free slot */
	KV_C_RPCS,             /* requests to a server (Redis commands) */
	KV_C_HAND_OVERS,       /* locks that came with a local hand-over (Sherman's HOCL) */
	KV_C_ABORTS,           /* transactions that failed validation and ran again (Scythe-style updates) */
	KV_C_N
};
/* The rows of kv_counters, for a family whose counters extend kv's
 * (netmem clover's start at KV_C_N). */
#define KV_COUNTER_ROWS                                                                               \
	[KV_C_GETS] = {"gets", NM_COUNT_METRIC}, [KV_C_UPDATES] = {"updates", NM_COUNT_METRIC},             \
	[KV_C_INSERTS] = {"inserts", NM_COUNT_METRIC}, [KV_C_DELETES] = {"deletes", NM_COUNT_METRIC},       \
	[KV_C_MISSES] = {"misses", NM_COUNT_METRIC}, [KV_C_RETRIES] = {"read_retries", NM_COUNT_METRIC},    \
	[KV_C_FENCES] = {"fences", NM_COUNT_METRIC}, [KV_C_LOCK_RETRIES] = {"lock_retries", NM_COUNT_METRIC}, \
	[KV_C_TORN] = {"torn_reads", 0}, [KV_C_FOREIGN] = {"foreign_reads", 0},                             \
	[KV_C_REGRESSED] = {"regressed_reads", 0}, [KV_C_ACK_NS] = {"ack_ns", 0}, [KV_C_ACKS] = {"acks", 0}, \
	[KV_C_APPLIED] = {"tracker_applied", NM_COUNT_METRIC}, [KV_C_BAD_SLOTS] = {"bad_slots", 0},         \
	[KV_C_FULL] = {"inserts_refused_full", NM_COUNT_METRIC},                                           \
	[KV_C_RPCS] = {"server_requests", NM_COUNT_METRIC},                                                \
	[KV_C_HAND_OVERS] = {"lock_hand_overs", NM_COUNT_METRIC},                                             \
	[KV_C_ABORTS] = {"aborts", NM_COUNT_METRIC}
extern const nm_counter kv_counters[KV_C_N];

/* ---- one client thread ------------------------------------------------- */

/* History of one thread: JSON Lines, one object per completed operation. */
typedef struct kv_hist_rec {
	uint64_t key, value, invoke, response;   /* times in ns of CLOCK_MONOTONIC_RAW (nm_now_ns) */
	uint8_t op;       /* kv_opkind */
	uint8_t found;
} kv_hist_rec;

typedef struct kv_thread {
	const kv_load *l;
	nm_meter *meter;
	int rank, thread;
	uint32_t writer;          /* rank << 8 | thread */
	ycsb_gen gen;
	kv_checker check;
	kv_hist_rec *hist;        /* history, or NULL */
	uint64_t hist_n;
	uint32_t seq;             /* this writer's own sequence (Redis versions) */
} kv_thread;

/* Per thread, before the run: its generator stream (records = prefill,
 * streams = every thread of the job, so inserted keys never collide). */
int kv_thread_init(kv_thread *t, const kv_load *l, nm_meter *m, int rank, int nranks, int threads,
		   int thread, uint64_t seed, char *err, size_t errlen);
/* Worker w's client thread: th[w->index] set up with kv_thread_init for
 * this rank (one stream per (seed, repetition, rank, thread)); a stream
 * that cannot be built ends the job. */
kv_thread *kv_worker_thread(kv_thread *th, const kv_load *l, const nm_ctx *ctx, const nm_worker *w);
void kv_thread_free(kv_thread *t);
/* The next operation of the thread's stream: kind and key rank. Inserts
 * past the key space are turned into updates of an existing key (counted
 * as KV_C_FULL). With --delete-ratio, that fraction of updates comes back
 * as KV_DELETE, which a store runs as a toggle: delete the key if present,
 * else insert it (so deletes and inserts keep the population steady). */
kv_opkind kv_next(kv_thread *t, uint64_t *rank);

/* Checks a value the thread read for key (a get's, or one a writer read
 * under its lock) and counts a failure; false when it failed. */
bool kv_check(kv_thread *t, uint64_t key, const uint64_t *val);
/* An operation completed: t0/t1 in ticks (nm_ticks). For KV_GET, val (words)
 * is the value read and is checked; for a write, the value it wrote (the
 * history records its first word; NULL when unknown); found says whether
 * the key existed (a get or update of a missing key counts as a miss,
 * nothing to check). Returns false when the read failed a check (already
 * counted). */
bool kv_done(kv_thread *t, kv_opkind op, uint64_t key, const uint64_t *val, bool found, uint64_t t0,
	     uint64_t t1);
/* Records in the history only (not timed, counted or checked): a read of
 * key's first value word that is part of another operation (an injected
 * fault's own looks at the entry), so the history shows what it saw. */
void kv_history_add(kv_thread *t, kv_opkind op, uint64_t key, uint64_t word, bool found, uint64_t t0,
		    uint64_t t1);
#endif
