/* The result document: one JSON file per run, rewritten atomically (temp file,
 * fsync, rename) after every completed point, so a crash never loses finished
 * points and --resume can skip them. Schema in results/README.md. */
#ifndef NM_RESULT_H
#define NM_RESULT_H
#include <jansson.h>
#include <stdbool.h>

#define NM_RESULT_SCHEMA "netmem-result/1"

typedef struct nm_result {
	char *path;
	json_t *doc;
} nm_result;

/* Starts a new document, or with resume loads the existing one (it must be
 * for the same experiment and the same specification). Fails (one line in
 * err) when the file exists and resume is false, or is unreadable/foreign. */
int nm_result_open(nm_result *r, const char *path, const char *experiment,
		   const json_t *spec, bool resume, char *err, size_t errlen);
/* True when a point with this key is already recorded and complete. */
bool nm_result_has(const nm_result *r, const char *key);
/* Appends a finished point ({"key", "params", "rep", ..., "metrics"}); steals
 * the reference. Recomputes the summary (geomean over repetitions of each
 * numeric entry of "metrics", per distinct params) and saves. 0 / -1 (errno). */
int nm_result_add_point(nm_result *r, json_t *point);
/* Sets doc[key] = value (steals), e.g. "meta". Does not save. */
void nm_result_set(nm_result *r, const char *key, json_t *value);
/* Atomic save. 0 / -1 with errno. */
int nm_result_save(nm_result *r);
void nm_result_close(nm_result *r);

/* Writes text to path atomically (temp file in the same directory, fsync,
 * rename). Creates missing parent directories. 0 / -1 with errno. */
int nm_write_atomic(const char *path, const char *text);
#endif
