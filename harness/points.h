/* Sweep points: the cartesian product of a specification's array-valued
 * options, in option-table order (the first swept option varies slowest), and
 * the keys that identify a finished point in a result document (for --resume). */
#ifndef NM_POINTS_H
#define NM_POINTS_H
#include <jansson.h>
#include <stddef.h>

/* The most points one sweep may have. A job decodes every point, and keeps
 * it, before the first runs (about 6 KB a point on every rank): 100,000
 * points would cost 610 MB per rank before anything is measured. The
 * largest config under configs/ has a few hundred. */
#define NM_POINTS_MAX 10000

/* Returns a JSON array of point objects (every value scalar); axes with an
 * empty array give no points. */
json_t *nm_points_expand(const json_t *spec);
/* The number of points of spec (the product of its axes' lengths), at most
 * SIZE_MAX. */
size_t nm_points_count(const json_t *spec);
/* The points of a job's sweep (nm_points_expand), or NULL with one line in
 * err when it has none (an empty list) or more than NM_POINTS_MAX (naming
 * its longest axis, by which to split it). What netmem run, run --check and
 * preflight expand a spec with. */
json_t *nm_points_sweep(const json_t *spec, char *err, size_t errlen);
/* Canonical key of (point params, repetition): compact JSON with sorted keys
 * followed by "#rep". Caller frees. */
char *nm_point_key(const json_t *params, int rep);
/* Object holding only the swept (array-valued) options of spec, taken from pt:
 * what distinguishes this point, for reports and plots. */
json_t *nm_point_axes(const json_t *spec, const json_t *pt);
#endif
