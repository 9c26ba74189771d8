/* netmem kv --history FILE: where each point's operations go (JSON Lines, a
 * header line per point, for netmem kv-check). */
#ifndef NM_KV_HISTORY_H
#define NM_KV_HISTORY_H
#include <stdbool.h>

/* Adds one point's lines to the history file. The job's first point starts
 * the file anew (replaced atomically: a file of an earlier job is not mixed
 * in), unless the job resumes a document: the points that document already
 * holds have their lines in the file, so it is continued. Every later point
 * is appended. A failed append leaves the file as it was (durable.h).
 * *started: false before the job's first point. 0 / -1 with errno. */
int kv_history_put(const char *path, const char *text, bool resumed, bool *started);
#endif
