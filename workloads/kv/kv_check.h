/* netmem kv-check's decision (kv_check.c), which netmem kv also runs on
 * each point's own history at its end (kv.c). */
#ifndef NM_KV_CHECK_H
#define NM_KV_CHECK_H
#include <stddef.h>
#include <stdint.h>

/* The decision on one point's history in memory: texts[0 .. n) are the
 * ranks' lines (the header first). 0 linearizable, 1 not, 2 undecided past
 * KV_CHECK_MAX_STATES; why gets kv-check's line otherwise. tick (or NULL)
 * is called during a long search (kv_lin_check); *states gets the search
 * states of all keys. */
#define KV_CHECK_MAX_STATES 2000000   /* about 0.5 GB of memo at 2,000 operations per key */
int kv_history_check(char *const *texts, int n, void (*tick)(void), uint64_t *states, char *why, size_t len);
#endif
