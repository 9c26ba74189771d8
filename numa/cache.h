/* The cache state of a target's registered buffer when clients start (the
 * NUMA paper's section VII: RDMA READs do not allocate in the cache, so a
 * READ of a line that is not cached goes to memory and is about 3% slower).
 *
 *   warm   a thread bound to the buffer's node writes every cache line of the
 *          buffer back with its own content: the lines end up in that node's
 *          caches, as in a server that filled its buffer itself (the
 *          authors' server is bound to the buffer's node as a whole). This
 *          also undoes a fill by a thread elsewhere, whose lines would
 *          otherwise sit dirty in another socket's cache.
 *   flush  the same pass, then every line flushed out of every cache
 *          (clflush on x86, dc civac on aarch64) and a fence: the buffer
 *          is in memory only, as the authors' flushShmemBuf leaves it.
 *
 * Decisions: the state is set once, after the buffer is filled and before
 * the warm-up operations (which then see it first); server workers started
 * afterwards bring lines back into their caches; the whole registered
 * region of the rank is treated, client-private areas included. A buffer
 * with no node (placement any) is treated by an unbound thread. */
#ifndef NM_NUMA_CACHE_H
#define NM_NUMA_CACHE_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum { NM_CACHE_WARM, NM_CACHE_FLUSH } nm_cache_mode;
#define NM_CACHE_MODES "warm,flush"
nm_cache_mode nm_cache_mode_of(const char *name);
const char *nm_cache_mode_name(nm_cache_mode m);

typedef struct nm_cache_record {
	nm_cache_mode mode;
	int node;            /* intended node of the thread, -1: any */
	int cpu, cpu_node;   /* where the pass ran */
	size_t lines;        /* cache lines written (and flushed) */
	double seconds;
	bool done;           /* a pass ran (the rank holds memory under study) */
} nm_cache_record;

/* Runs the pass over [p, p + len) (p 64-byte aligned) on a thread bound to
 * node and waits for it. 0, or -1 with one line in err (no thread, no such node, no flush
 * instruction on this architecture). */
int nm_cache_settle(void *p, size_t len, int node, nm_cache_mode mode, nm_cache_record *rec, char *err,
		    size_t errlen);
/* {"mode", "intended", "cpu", "cpu_node", "lines", "seconds", "ok"}; ok is
 * false when the pass ran off its intended node. */
json_t *nm_cache_json(const nm_cache_record *rec, bool *ok);
#endif
