/* netmem compare's two halves: compare.c (options, loading, tables, figures)
 * and compare_match.c (which parameters a document's points are matched on,
 * their one-to-one pairing across the runs, the metric and --per). */
#ifndef NM_COMPARE_H
#define NM_COMPARE_H
#include "rundoc.h"
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define CMP_MAX_RUNS 8

typedef enum cmp_per { CMP_PER_NONE, CMP_PER_NODE, CMP_PER_THREAD } cmp_per;

typedef enum cmp_kind {
	CMP_SAME,      /* every run has the same values */
	CMP_COMMON,    /* the runs share some values: matched on, compared on those */
	CMP_DISJOINT,  /* no value common to all runs: refused unless --ignore'd */
	CMP_IGNORED,   /* named with --ignore: left out of the matching */
} cmp_kind;

/* One document name, as every run holds it. */
typedef struct cmp_doc {
	const char *name;
	int nruns;
	const nm_rundoc *docs[CMP_MAX_RUNS];
	const char *dirs[CMP_MAX_RUNS];
	bool shared;          /* every run holds it, of the same experiment */
	const char *metric;   /* what is compared; NULL when not compared */
	char *why;            /* why the document is not compared, or NULL */
	json_t *kinds;        /* parameter -> cmp_kind (integer), in key order */
	json_t *diffs;        /* parameter -> "A=[..], B=[..]" for every kind but SAME */
	json_t *swept;        /* array: the parameters a point's label shows */
	json_t *varied;       /* array: the ignored ones with several values */
} cmp_doc;

/* A set of points of the runs with the same parameters but the ignored ones. */
typedef struct cmp_group {
	char *key;
	json_t *entries[CMP_MAX_RUNS];  /* per run: an array of its summary entries (NULL: none) */
	double pos;                     /* mean position in the runs' summaries */
} cmp_group;

/* The metrics a figure shows when --y is not given, in preference order. */
extern const char *const cmp_default_metrics[];

/* Fills kinds, diffs, swept and varied of d (ignore: the --ignore names, an object). */
void cmp_classify(cmp_doc *d, const json_t *ignore);
/* The metric to compare: want when some run's document has it, else the
 * first default every run's document has (a rate, with per); NULL if none. */
const char *cmp_pick_metric(const cmp_doc *d, const char *want, cmp_per per);
/* Is metric a rate of the whole job: a top-level metric whose name ends in
 * _per_sec, or m<unit> where some entry has <unit>_per_sec (mops)? */
bool cmp_is_rate(const cmp_doc *d, const char *metric);
/* With per: NULL when every point with the metric names its count, else
 * why not (malloc'd, one line naming the run, point and parameter). */
char *cmp_per_problem(const cmp_doc *d, cmp_per per);
/* The divisor of an entry's value under per (1 for CMP_PER_NONE). */
double cmp_divisor(const json_t *entry, cmp_per per);
/* "k=v k=v" of the entry's params for keys (an array); "(one point)" when empty. */
void cmp_label(const json_t *entry, const json_t *keys, char *buf, size_t len);
/* The document's points grouped on their parameters but the ignored ones,
 * in an order that does not depend on the order of the runs. */
cmp_group *cmp_pair(const cmp_doc *d, const json_t *ignore, size_t *n);
void cmp_groups_free(cmp_group *g, size_t n);
#endif
