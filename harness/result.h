/* The result document: one JSON file per run (schema in results/README.md).
 * Every finished point is appended, fsync'd, to a journal beside it
 * (PATH.journal), so a crash never loses finished points and recording a
 * point costs the same at the ten-thousandth point as at the first; the
 * document itself is rewritten atomically (temp file, fsync, rename) with
 * its summary when a job starts and ends. --resume folds a journal left by
 * an interrupted job into the document and skips its points. */
#ifndef NM_RESULT_H
#define NM_RESULT_H
#include "durable.h"
#include <jansson.h>
#include <stdbool.h>

#define NM_RESULT_SCHEMA "netmem-result/1"
#define NM_RESULT_JOURNAL_SUFFIX ".journal"

typedef struct nm_result {
	char *path;
	json_t *doc;
	json_t *index;       /* point key -> position in doc.points */
	nm_journal journal;
	bool stale;          /* points added since the summary was computed */
	long folded;         /* points folded in from a journal at open */
	bool resumed;        /* an existing document was opened (--resume) */
	size_t torn;         /* bytes of a torn last journal line ignored at open */
} nm_result;

/* Starts a new document, or with resume loads the existing one (it must be
 * for the same experiment and the same specification), folds its journal in
 * and saves it. Fails (one line in err) when the file exists and resume is
 * false, when it is unreadable or foreign, when a journal line other than
 * the last is damaged, or when a journal exists without its document. */
int nm_result_open(nm_result *r, const char *path, const char *experiment,
		   const json_t *spec, bool resume, char *err, size_t errlen);
/* Appends one run's metadata to meta.runs (steals run), with the run's
 * options (NM_OPT_RUN, opt.h: what may differ between the runs of one
 * document) as its "options" (steals options; NULL: none). */
void nm_result_add_run(nm_result *r, json_t *run, json_t *options);
/* True when a point with this key is already recorded and complete. */
bool nm_result_has(const nm_result *r, const char *key);
/* Records a finished point ({"key", "params", "rep", ..., "metrics"}; steals
 * the reference): one durable journal line, then the point in memory (a
 * point with the same key replaces the old one). The summary waits for
 * nm_result_save. 0 / -1 (errno). */
int nm_result_add_point(nm_result *r, json_t *point);
/* Like json_equal, but numbers compare by value: a document that went
 * through another JSON tool may come back with 0.0 written as 0, and a
 * claim's selector says 100 where a document holds 100.0. */
bool nm_json_same_value(const json_t *a, const json_t *b);
/* The summary the writer derives from points (the layout above): what a
 * reader recomputes to check a document's own summary against. */
json_t *nm_result_summary(const json_t *points);
/* Sets doc[key] = value (steals), e.g. "meta". Does not save. */
void nm_result_set(nm_result *r, const char *key, json_t *value);
/* Computes the summary (geomean over repetitions of each numeric entry of
 * "metrics", per distinct params), writes the document atomically and
 * removes the journal, whose points it now holds. 0 / -1 with errno. */
int nm_result_save(nm_result *r);
void nm_result_close(nm_result *r);
#endif
