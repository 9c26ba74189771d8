/* Sweep points: the cartesian product of a specification's array-valued
 * options, in option-table order (the first swept option varies slowest), and
 * the keys that identify a finished point in a result document (for --resume). */
#ifndef NM_POINTS_H
#define NM_POINTS_H
#include <jansson.h>
#include <stddef.h>

/* Returns a JSON array of point objects (every value scalar); axes with an
 * empty array give no points. */
json_t *nm_points_expand(const json_t *spec);
/* Canonical key of (point params, repetition): compact JSON with sorted keys
 * followed by "#rep". Caller frees. */
char *nm_point_key(const json_t *params, int rep);
/* Object holding only the swept (array-valued) options of spec, taken from pt:
 * what distinguishes this point, for reports and plots. */
json_t *nm_point_axes(const json_t *spec, const json_t *pt);
#endif
