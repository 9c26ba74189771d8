/* The faults of --inject, shared by netmem kv's verbs systems: see kv_inject.h. */
#include "kv_window.h"
#include "clock.h"
#include <string.h>

#define KV_INJ_DELAY_NS 300000000ull  /* the longest a late write waits for a newer one */
#define KV_INJ_HALF_NS 5000000ull     /* how long half a value stays written */

void kv_injector_init(kv_injector *in, kv_inject kind, int rank)
{
	*in = (kv_injector){.kind = rank == 0 ? kind : KV_INJECT_NONE};
}

kv_inject kv_inject_now(kv_injector *in)
{
	if (in->kind == KV_INJECT_NONE)
		return KV_INJECT_NONE;
	return ++in->updates % 8 == 0 ? in->kind : KV_INJECT_NONE;
}

/* Key and the first half of the value. */
static uint32_t half_words(const kv_win *w) { return 1 + w->kt->l->value_words / 2; }

/* The half-written entry, read back as a reader skipping the checksum
 * would: checked as the key's value when it holds the key. */
static void half_looked(kv_win *w, kv_wop *o, const kv_inj_entry *e)
{
	if (e->look[0] == o->key)
		kv_check(w->kt, o->key, e->look + 1);
	o->state = KV_S_HALF;   /* the second half once the window has passed */
}

static void half_look(kv_win *w, kv_wop *o, const kv_inj_entry *e)
{
	o->state = KV_S_HALF_LOOK;
	if (!e->local) {
		kv_win_read(w, o, e->node, e->look, e->raddr, 8 * e->words);
		return;
	}
	memcpy(e->look, e->local, 8 * e->words);
	half_looked(w, o, e);
}

/* The entry o writes, from its system (its layout). */
static kv_inj_entry entry(const kv_win *w, kv_wop *o) { return w->ops->inj_entry(w, o); }

void kv_inj_half_start(kv_win *w, kv_wop *o)
{
	kv_inj_entry at = entry(w, o), *e = &at;
	o->state = KV_S_HALF;
	o->since = nm_ticks();
	if (!e->local) {
		kv_win_write(w, o, e->node, o->buf, e->raddr, 8 * half_words(w), true);
		return;
	}
	memcpy(e->local, o->buf, 8 * half_words(w));
	half_look(w, o, e);
}

void kv_inj_half_advance(kv_win *w, kv_wop *o)
{
	kv_inj_entry at = entry(w, o);
	if (o->state == KV_S_HALF)
		half_look(w, o, &at);   /* the first half has landed */
	else
		half_looked(w, o, &at);
}

bool kv_inj_half_step(kv_win *w, kv_wop *o)
{
	if (nm_ticks() - o->since < nm_ns_to_ticks(KV_INJ_HALF_NS))
		return false;
	kv_inj_entry at = entry(w, o), *e = &at;
	uint32_t from = half_words(w);
	o->state = e->then;
	if (e->local) {
		memcpy(e->local + from, o->buf + from, 8 * (e->words - from));
		return true;
	}
	kv_win_write(w, o, e->node, o->buf + from, e->raddr + 8 * from, 8 * (e->words - from), false);
	kv_win_fence(w, o, e->node);
	return false;
}

void kv_inj_late_start(kv_wop *o, uint64_t *watch)
{
	o->since = nm_ticks();
	*watch = 0;
	o->looked = false;
	o->state = KV_S_LATE;
}

void kv_inj_late_look(kv_win *w, kv_wop *o, uint64_t seen, uint64_t t0, bool late)
{
	/* returned: a watch READ was posted after the update returned and has
	 * completed into seen (the first call, on the release's completion,
	 * has nothing to show yet) */
	if (late || (o->returned && !o->looked)) {
		o->looked = true;
		kv_history_add(w->kt, KV_GET, o->key, seen, true, t0, nm_ticks());
	}
}

bool kv_inj_late_due(kv_win *w, kv_wop *o, bool late, int node, uint64_t *watch, uint64_t raddr)
{
	/* the release has completed: a correct update returns here, and so
	 * does this one in the history, its write still to land */
	if (!o->returned)
		o->returned = nm_ticks();
	if (late || nm_ticks() - o->since >= nm_ns_to_ticks(KV_INJ_DELAY_NS))
		return true;
	kv_win_read(w, o, node, watch, raddr, 8);
	return false;
}
