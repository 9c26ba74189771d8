/* The shared core of netmem kv's systems (kv_core.h): keys, values, the read
 * checks, the per-thread request stream and the completion path. */
#include "kv_core.h"
#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "workers.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

const char *const kv_op_names[KV_NOPS] = {"get", "update", "insert", "delete"};
const nm_counter kv_counters[KV_C_N] = {KV_COUNTER_ROWS};

uint64_t kv_key(uint64_t rank)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(rank >> (8 * i));
	uint64_t k = XXH64(b, sizeof b, 0);
	return k && k != UINT64_MAX ? k : 1;   /* 0 and all ones mark empty and deleted index entries */
}

void kv_value_fill(uint64_t *val, uint32_t words, uint64_t key, uint32_t writer, uint32_t version)
{
	uint64_t w = kv_word(key, writer, version);
	for (uint32_t i = 0; i < words; i++)
		val[i] = w;
}

void kv_checker_init(kv_checker *c, uint32_t entries, bool global_versions)
{
	uint32_t n = 1;
	while (n < entries)
		n <<= 1;
	*c = (kv_checker){.seen = nm_calloc(n, sizeof(kv_seen)), .mask = n - 1,
			  .global_versions = global_versions};
}

void kv_checker_free(kv_checker *c)
{
	free(c->seen);
	c->seen = NULL;
}

static kv_verdict fail(kv_checker *c, kv_verdict v, uint64_t key, uint64_t w, const char *what)
{
	if (!c->first[0])
		snprintf(c->first, sizeof c->first, "key 0x%016" PRIx64 ": %s (word 0x%016" PRIx64 ")", key,
			 what, w);
	return v;
}

kv_verdict kv_check_value(kv_checker *c, uint64_t key, const uint64_t *val, uint32_t words)
{
	return kv_check_value_at(c, key, val, words, 0, 0);
}

kv_verdict kv_check_value_at(kv_checker *c, uint64_t key, const uint64_t *val, uint32_t words, uint64_t t0,
			     uint64_t t1)
{
	uint64_t w = val[0];
	for (uint32_t i = 1; i < words; i++)
		if (val[i] != w)
			return fail(c, KV_READ_TORN, key, val[i], "torn value: its words come from different writes");
	if ((uint32_t)(w >> 48) != kv_key_tag(key))
		return fail(c, KV_READ_FOREIGN, key, w, "foreign value: written for another key");
	uint32_t writer = kv_word_writer(w), version = kv_word_version(w);
	kv_seen *s = &c->seen[(key ^ key >> 29) & c->mask];
	bool older = s->key == key && (c->global_versions || s->writer == writer) && version < s->version;
	bool back = older && (!c->overlapping || s->done < t0);
	/* with versions from the key's lock, one version is one write: two
	 * writers claiming it means a write landed outside its lock */
	bool twice = s->key == key && c->global_versions && version == s->version && writer != s->writer;
	if (back || twice) {
		char what[112];
		snprintf(what, sizeof what, "version %s from %u (writer 0x%x) to %u (writer 0x%x)",
			 back ? "went back" : "written twice", s->version, s->writer, version, writer);
		return fail(c, KV_READ_REGRESSED, key, w, what);
	}
	/* an overlapping read's older version is no regression, and must not
	 * hide the newer one from the reads that begin later */
	if (!older)
		*s = (kv_seen){.key = key, .writer = writer, .version = version, .done = t1};
	return KV_READ_OK;
}

int kv_thread_init(kv_thread *t, const kv_load *p, nm_meter *m, int rank, int nranks, int threads,
		   int thread, uint64_t seed, char *err, size_t errlen)
{
	*t = (kv_thread){.l = p, .meter = m, .rank = rank, .thread = thread,
			 .writer = (uint32_t)rank << 8 | (uint32_t)thread};
	ycsb_config c;
	ycsb_config_default(&c);
	c.records = p->prefill;
	c.operations = 1u << 20;
	c.mix = p->mix;
	c.dist = p->dist;
	c.theta = p->theta;
	c.seed = seed;
	c.rank = (uint32_t)rank;
	c.thread = (uint32_t)thread;
	c.nstreams = (uint32_t)(nranks * threads);
	c.stream = (uint32_t)(rank * threads + thread);
	if (ycsb_init(&t->gen, &c, err, errlen))
		return -1;
	kv_checker_init(&t->check, 1u << 16, p->global_versions);
	t->check.overlapping = p->overlapping_reads;
	if (p->history_max)
		t->hist = nm_calloc(p->history_max, sizeof *t->hist);
	return 0;
}

kv_thread *kv_worker_thread(kv_thread *th, const kv_load *l, const nm_ctx *ctx, const nm_worker *w)
{
	kv_thread *t = &th[w->index];
	char err[256];
	if (kv_thread_init(t, l, w->meter, ctx->rank, ctx->nranks, ctx->base.threads, w->index,
			   ctx->base.seed * 1000003u + (uint64_t)ctx->rep, err, sizeof err))
		nm_fatal("kv thread %d: %s", w->index, err);
	return t;
}

void kv_thread_free(kv_thread *t)
{
	kv_checker_free(&t->check);
	free(t->hist);
	t->hist = NULL;
}

kv_opkind kv_next(kv_thread *t, uint64_t *rank)
{
	ycsb_op op;
	ycsb_next(&t->gen, &op, rank);
	switch (op) {
	case YCSB_INSERT:
		if (*rank < t->l->keys)
			return KV_INSERT;
		t->meter->c[KV_C_FULL]++;
		*rank = ycsb_next_key(&t->gen) % t->l->prefill;
		return KV_UPDATE;
	case YCSB_UPDATE:
	case YCSB_RMW:
		if (t->l->delete_ratio > 0 && ycsb_rng_double(&t->gen.rng) < t->l->delete_ratio)
			return KV_DELETE;
		return KV_UPDATE;
	default:
		return KV_GET;
	}
}

static const enum kv_counter op_counter[KV_NOPS] = {KV_C_GETS, KV_C_UPDATES, KV_C_INSERTS, KV_C_DELETES};

static bool kv_check_at(kv_thread *t, uint64_t key, const uint64_t *val, uint64_t t0, uint64_t t1)
{
	static const enum kv_counter bad[] = {[KV_READ_TORN] = KV_C_TORN, [KV_READ_FOREIGN] = KV_C_FOREIGN,
					      [KV_READ_REGRESSED] = KV_C_REGRESSED};
	kv_verdict v = kv_check_value_at(&t->check, key, val, t->l->value_words, t0, t1);
	if (v == KV_READ_OK)
		return true;
	t->meter->c[bad[v]]++;
	nm_error_note(&t->meter->err, "%s", t->check.first);
	return false;
}

bool kv_check(kv_thread *t, uint64_t key, const uint64_t *val) { return kv_check_at(t, key, val, 0, 0); }

bool kv_done(kv_thread *t, kv_opkind op, uint64_t key, const uint64_t *val, bool found, uint64_t t0,
	     uint64_t t1)
{
	nm_meter *m = t->meter;
	bool ok = true;
	m->c[op_counter[op]]++;
	if (!found && (op == KV_GET || op == KV_UPDATE))
		m->c[KV_C_MISSES]++;
	if (op == KV_GET && found)
		ok = kv_check_at(t, key, val, t0, t1);
	if (nm_meter_op(m, t0, t1))
		nm_meter_kind(m, op, nm_ticks_to_ns(t1 - t0));
	kv_history_add(t, op, key, found && val ? val[0] : 0, found, t0, t1);
	return ok;
}

void kv_history_add(kv_thread *t, kv_opkind op, uint64_t key, uint64_t word, bool found, uint64_t t0,
		    uint64_t t1)
{
	if (!t->hist || t->hist_n >= t->l->history_max)
		return;
	/* ticks become one clock of the host here, near t1: a rank's tick rate
	 * errs by a few ppm, which over a whole run would shift one rank's
	 * times against another's and invert operations that did not overlap */
	uint64_t res = nm_clock_ns_at(t1);
	t->hist[t->hist_n++] = (kv_hist_rec){.key = key, .value = word, .invoke = res - nm_ticks_to_ns(t1 - t0),
					     .response = res, .op = (uint8_t)op, .found = found};
}
