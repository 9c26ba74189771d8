/* The cache state of a target's buffer before clients start (cache.h). */
#include "cache.h"
#include "nodes.h"
#include "clock.h"
#include <numa.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LINE 64

nm_cache_mode nm_cache_mode_of(const char *name) { return strcmp(name, "flush") ? NM_CACHE_WARM : NM_CACHE_FLUSH; }
const char *nm_cache_mode_name(nm_cache_mode m) { return m == NM_CACHE_FLUSH ? "flush" : "warm"; }

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_FLUSH 1
static inline void flush_line(const void *p) { __builtin_ia32_clflush(p); }
static inline void flush_fence(void) { __builtin_ia32_mfence(); }
#elif defined(__aarch64__)
#define HAVE_FLUSH 1
static inline void flush_line(const void *p) { __asm__ volatile("dc civac, %0" ::"r"(p) : "memory"); }
static inline void flush_fence(void) { __asm__ volatile("dsb ish" ::: "memory"); }
#else
#define HAVE_FLUSH 0
static inline void flush_line(const void *p) { (void)p; }
static inline void flush_fence(void) {}
#endif

typedef struct pass {
	uint8_t *p;
	size_t len;
	nm_cache_mode mode;
	nm_cache_record *rec;
} pass;

static void run_pass(void *arg)
{
	pass *ps = arg;
	nm_cache_record *r = ps->rec;
	uint64_t t0 = nm_now_ns();
	r->cpu = sched_getcpu();
	/* One word per line, read and written back through a volatile pointer:
	 * the line is fetched and ends Modified in this core's caches; the
	 * content does not change. */
	size_t lines = 0;
	for (size_t off = 0; off + 8 <= ps->len; off += LINE, lines++) {
		volatile uint64_t *w = (volatile uint64_t *)(ps->p + off);
		*w = *w;
	}
	if (ps->mode == NM_CACHE_FLUSH) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		for (size_t off = 0; off < ps->len; off += LINE)
			flush_line(ps->p + off);
		flush_fence();
	}
	r->lines = lines;
	r->seconds = (double)(nm_now_ns() - t0) / 1e9;
	r->cpu_node = numa_available() < 0 ? 0 : numa_node_of_cpu(r->cpu);
}

int nm_cache_settle(void *p, size_t len, int node, nm_cache_mode mode, nm_cache_record *rec, char *err,
		    size_t errlen)
{
	*rec = (nm_cache_record){.mode = mode, .node = node, .cpu = -1, .cpu_node = -1};
	if (mode == NM_CACHE_FLUSH && !HAVE_FLUSH) {
		snprintf(err, errlen, "--cache flush: this architecture has no cache-line flush this suite "
			 "knows (clflush on x86, dc civac on aarch64)");
		return -1;
	}
	/* The pass runs on its own thread: binding the caller would change the
	 * CPU and memory policy of a thread that owns other state. */
	pass ps = {.p = p, .len = len, .mode = mode, .rec = rec};
	char why[256];
	if (nm_numa_run_on(node, -1, run_pass, &ps, NULL, why, sizeof why) != 0) {
		snprintf(err, errlen, "--cache %s: %s", nm_cache_mode_name(mode), why);
		return -1;
	}
	rec->done = true;
	return 0;
}

json_t *nm_cache_json(const nm_cache_record *r, bool *ok)
{
	*ok = r->node < 0 || r->cpu_node == r->node;
	json_t *j = json_object();
	json_object_set_new(j, "mode", json_string(nm_cache_mode_name(r->mode)));
	json_object_set_new(j, "intended", r->node >= 0 ? json_integer(r->node) : json_null());
	json_object_set_new(j, "cpu", json_integer(r->cpu));
	json_object_set_new(j, "cpu_node", json_integer(r->cpu_node));
	json_object_set_new(j, "lines", json_integer((json_int_t)r->lines));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "ok", json_boolean(*ok));
	return j;
}
