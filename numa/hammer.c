#include "hammer.h"
#include "rng.h"
#include "clock.h"
#include "topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const op_names[] = {"read", "write", "mixed", "cas", "faa"};

int nm_hammer_op(const char *name)
{
	for (int i = 0; i < 5; i++)
		if (!strcmp(name, op_names[i]))
			return i;
	return -1;
}

const char *nm_hammer_op_name(int op) { return op >= 0 && op < 5 ? op_names[op] : "?"; }

#define BURST 256

static void *hammer_main(void *arg)
{
	nm_hammer_thread *t = arg;
	nm_hammer *h = t->h;
	const nm_hammer_cfg *c = &h->c;
	int cpu = nm_topo_pick_cpu(c->cpu_offset + t->index, c->node);
	if (cpu >= 0 && nm_topo_pin_self(cpu) != 0)
		cpu = -1;
	nm_cpu_place_start(&t->cp, cpu, c->node);
	volatile uint64_t *w = c->area;
	const uint64_t *img = c->image;
	size_t n = c->len / 8, i = c->stride ? (size_t)t->index * (c->stride / 8) % n : 0;
	uint64_t s = c->seed * 0x9e3779b97f4a7c15ull + (uint64_t)t->index * 0xbf58476d1ce4e5b9ull + 1;
	uint32_t thresh = c->write_ratio >= 1 ? UINT32_MAX : (uint32_t)(c->write_ratio * 4294967296.0);
	uint64_t ops = 0, sink = 0, cas_failed = 0;
	int op = c->op;
	atomic_fetch_add(&h->ready, 1);
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		for (int k = 0; k < BURST; k++) {
			uint64_t r = 0;
			if (c->random || op == NM_HAMMER_MIXED)
				r = nm_xorshift(&s);
			if (c->random)
				i = (size_t)((r >> 17) % n);
			volatile uint64_t *p = &w[i];
			uint64_t v = img ? img[i] : r;
			switch (op) {
			case NM_HAMMER_READ:
				sink += *p;
				break;
			case NM_HAMMER_WRITE:
				*p = v;
				break;
			case NM_HAMMER_MIXED:
				if ((uint32_t)r < thresh)
					*p = v;
				else
					sink += *p;
				break;
			case NM_HAMMER_CAS: {
				uint64_t expect = v;
				if (!__atomic_compare_exchange_n((uint64_t *)(uintptr_t)p, &expect, v, false,
								 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
					cas_failed++;
				break;
			}
			case NM_HAMMER_FAA:
				sink += __atomic_fetch_add((uint64_t *)(uintptr_t)p, img ? 0 : 1, __ATOMIC_SEQ_CST);
				break;
			}
			if (!c->random && ++i == n)
				i = 0;
		}
		ops += BURST;
	}
	t->ops = ops;
	t->sink = sink;
	t->cas_failed = cas_failed;
	nm_cpu_place_end(&t->cp);
	return NULL;
}

int nm_hammer_start(nm_hammer *h, const nm_hammer_cfg *cfg, char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	h->c = *cfg;
	if (cfg->threads <= 0)
		return 0;
	if (cfg->len < 8 || ((uintptr_t)cfg->area & 7)) {
		snprintf(err, errlen, "hammer: the area must hold at least one aligned 8-byte word");
		return -1;
	}
	h->t = calloc((size_t)cfg->threads, sizeof *h->t);
	if (!h->t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* cores they can spread over, for the "oversubscribed" note */
	h->ncores = 0;
	for (int i = 0; i < 4096; i++) {
		int cpu = nm_topo_pick_cpu(i, cfg->node);
		if (cpu < 0 || (i > 0 && cpu == nm_topo_pick_cpu(0, cfg->node)))
			break;
		h->ncores++;
	}
	for (int i = 0; i < cfg->threads; i++) {
		h->t[i].h = h;
		h->t[i].index = i;
		if (pthread_create(&h->t[i].tid, NULL, hammer_main, &h->t[i]) != 0) {
			snprintf(err, errlen, "cannot start load thread %d", i);
			atomic_store(&h->stop, 1);
			for (int k = 0; k < i; k++)
				pthread_join(h->t[k].tid, NULL);
			free(h->t);
			h->t = NULL;
			return -1;
		}
	}
	while (atomic_load(&h->ready) < cfg->threads) {
		struct timespec d = {0, 200000};
		nanosleep(&d, NULL);
	}
	h->start_ns = nm_now_ns();
	return 0;
}

void nm_hammer_stop(nm_hammer *h)
{
	if (!h->t)
		return;
	h->stop_ns = nm_now_ns();
	atomic_store(&h->stop, 1);
	for (int i = 0; i < h->c.threads; i++)
		pthread_join(h->t[i].tid, NULL);
}

uint64_t nm_hammer_ops(const nm_hammer *h)
{
	uint64_t s = 0;
	for (int i = 0; h->t && i < h->c.threads; i++)
		s += h->t[i].ops;
	return s;
}

double nm_hammer_seconds(const nm_hammer *h)
{
	return h->t && h->stop_ns > h->start_ns ? (double)(h->stop_ns - h->start_ns) / 1e9 : 0;
}

json_t *nm_hammer_json(const nm_hammer *h)
{
	uint64_t ops = nm_hammer_ops(h), cas = 0;
	for (int i = 0; h->t && i < h->c.threads; i++)
		cas += h->t[i].cas_failed;
	double secs = nm_hammer_seconds(h);
	json_t *j = json_pack("{s:i, s:s, s:I, s:f, s:f, s:b}", "threads", h->c.threads, "op",
			      nm_hammer_op_name(h->c.op), "ops", (json_int_t)ops, "seconds", secs,
			      "ops_per_sec", secs > 0 ? (double)ops / secs : 0.0, "oversubscribed",
			      h->c.threads > h->ncores);
	json_object_set_new(j, "bytes", json_integer((json_int_t)(h->c.len / 8 * 8)));
	if (h->c.op == NM_HAMMER_MIXED)
		json_object_set_new(j, "write_ratio", json_real(h->c.write_ratio));
	if (h->c.op == NM_HAMMER_CAS)
		json_object_set_new(j, "cas_failed", json_integer((json_int_t)cas));
	return j;
}

json_t *nm_hammer_placement(const nm_hammer *h, const char *what, bool *ok, char *why, size_t len)
{
	json_t *a = json_array();
	for (int i = 0; h->t && i < h->c.threads; i++) {
		json_array_append_new(a, nm_cpu_place_json(&h->t[i].cp, i));
		if (!nm_cpu_place_ok(&h->t[i].cp) && *ok) {
			char w[96];
			snprintf(w, sizeof w, "%s %d", what, i);
			nm_cpu_place_why(&h->t[i].cp, w, why, len);
			*ok = false;
		}
	}
	return a;
}

void nm_hammer_free(nm_hammer *h)
{
	free(h->t);
	h->t = NULL;
}
