#include "points.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Iteration relies on jansson (>= 2.8) walking objects in insertion order,
 * and on json_object_set keeping a replaced key in place; nm_opt_parse inserts
 * keys in option-table order, so that is the sweep order. */

json_t *nm_points_expand(const json_t *spec)
{
	json_t *points = json_array();
	if (!points || !json_is_object(spec))
		return points;

	size_t naxes = 0, total = 1;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)spec, key, v) {
		if (!json_is_array(v))
			continue;
		size_t n = json_array_size(v);
		if (n == 0)
			return points;
		if (total > SIZE_MAX / n) {
			json_decref(points);
			return NULL;
		}
		total *= n;
		naxes++;
	}

	/* stride[i] = product of the sizes of the axes after axis i, so the
	 * first axis varies slowest. */
	size_t *stride = calloc(naxes ? naxes : 1, sizeof *stride);
	if (!stride) {
		json_decref(points);
		return NULL;
	}
	size_t ax = 0;
	json_object_foreach((json_t *)spec, key, v)
		if (json_is_array(v))
			stride[ax++] = json_array_size(v);
	for (size_t s = 1, i = naxes; i-- > 0;) {
		size_t n = stride[i];
		stride[i] = s;
		s *= n;
	}

	for (size_t p = 0; p < total; p++) {
		json_t *pt = json_object();
		if (!pt) {
			free(stride);
			json_decref(points);
			return NULL;
		}
		ax = 0;
		json_object_foreach((json_t *)spec, key, v) {
			json_t *val;
			if (json_is_array(v)) {
				val = json_array_get(v, (p / stride[ax]) % json_array_size(v));
				ax++;
			} else {
				val = v;
			}
			/* Copies, so a caller editing one point cannot change
			 * the spec or the other points. */
			json_object_set_new(pt, key, json_deep_copy(val));
		}
		json_array_append_new(points, pt);
	}
	free(stride);
	return points;
}

size_t nm_points_count(const json_t *spec)
{
	size_t total = 1;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)spec, key, v) {
		size_t n = json_is_array(v) ? json_array_size(v) : 1;
		if (n && total > SIZE_MAX / n)
			return SIZE_MAX;
		total *= n;
	}
	return total;
}

json_t *nm_points_sweep(const json_t *spec, char *err, size_t errlen)
{
	size_t n = nm_points_count(spec);
	if (n == 0) {
		snprintf(err, errlen, "the sweep has no points (an option was given an empty list)");
		return NULL;
	}
	if (n > NM_POINTS_MAX) {
		const char *key, *longest = "";
		json_t *v;
		size_t most = 0;
		json_object_foreach((json_t *)spec, key, v)
			if (json_is_array(v) && json_array_size(v) > most) {
				most = json_array_size(v);
				longest = key;
			}
		char opt[128];
		size_t i = 0;
		for (; longest[i] && i + 1 < sizeof opt; i++)
			opt[i] = longest[i] == '_' ? '-' : longest[i];
		opt[i] = 0;
		snprintf(err, errlen, "the sweep has %s%zu points, above the %d one job may hold: split it into "
			 "several configs or runs, e.g. one per value of --%s (%zu values)",
			 n == SIZE_MAX ? "more than " : "", n, NM_POINTS_MAX, opt, most);
		return NULL;
	}
	json_t *points = nm_points_expand(spec);
	if (!points)
		snprintf(err, errlen, "out of memory expanding the sweep (%zu points)", n);
	return points;
}

char *nm_point_key(const json_t *params, int rep)
{
	char *js = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!js)
		return NULL;
	size_t n = strlen(js) + 16;
	char *key = malloc(n);
	if (key)
		snprintf(key, n, "%s#%d", js, rep);
	free(js);
	return key;
}

json_t *nm_point_axes(const json_t *spec, const json_t *pt)
{
	json_t *axes = json_object();
	if (!axes || !json_is_object(spec))
		return axes;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)spec, key, v) {
		if (!json_is_array(v))
			continue;
		json_t *x = json_object_get(pt, key);
		if (x)
			json_object_set_new(axes, key, json_deep_copy(x));
	}
	return axes;
}
