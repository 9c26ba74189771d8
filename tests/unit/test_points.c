/* Sweep expansion, point keys and axes. */
#include "opt.h"
#include "points.h"
#include "tap.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static json_t *load(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j) {
		printf("# bad test JSON: %s\n", je.text);
		exit(99);
	}
	return j;
}

/* Compact dump of v with keys in their stored order. */
static char dumped[1024];
static const char *dump(const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	snprintf(dumped, sizeof dumped, "%s", s ? s : "(null)");
	free(s);
	return dumped;
}

static void test_order(void)
{
	json_t *spec = load("{\"a\": [1, 2, 3], \"s\": \"x\", \"b\": [\"p\", \"q\"], \"c\": 5}");
	json_t *pts = nm_points_expand(spec);
	CHECK(json_array_size(pts) == 6, "3 x 2 axes give 6 points (%zu)", json_array_size(pts));
	static const char *const want[] = {
		"{\"a\":1,\"s\":\"x\",\"b\":\"p\",\"c\":5}", "{\"a\":1,\"s\":\"x\",\"b\":\"q\",\"c\":5}",
		"{\"a\":2,\"s\":\"x\",\"b\":\"p\",\"c\":5}", "{\"a\":2,\"s\":\"x\",\"b\":\"q\",\"c\":5}",
		"{\"a\":3,\"s\":\"x\",\"b\":\"p\",\"c\":5}", "{\"a\":3,\"s\":\"x\",\"b\":\"q\",\"c\":5}",
	};
	for (size_t i = 0; i < 6; i++)
		CHECK(!strcmp(dump(json_array_get(pts, i)), want[i]),
		      "point %zu is %s (first axis slowest, scalars copied, spec key order)", i, want[i]);

	/* Points must not share values with the spec or each other. */
	json_integer_set(json_object_get(json_array_get(pts, 0), "c"), 99);
	json_integer_set(json_object_get(json_array_get(pts, 0), "a"), 42);
	CHECK(json_integer_value(json_object_get(spec, "c")) == 5 &&
	      json_integer_value(json_object_get(json_array_get(pts, 1), "c")) == 5 &&
	      json_integer_value(json_array_get(json_object_get(spec, "a"), 0)) == 1,
	      "editing a point leaves the spec and other points alone");
	json_decref(pts);
	json_decref(spec);

	/* Reversing the key order reverses which axis varies slowest. */
	spec = load("{\"b\": [\"p\", \"q\"], \"a\": [1, 2, 3]}");
	pts = nm_points_expand(spec);
	CHECK(json_array_size(pts) == 6 && !strcmp(dump(json_array_get(pts, 1)), "{\"b\":\"p\",\"a\":2}") &&
	      !strcmp(dump(json_array_get(pts, 3)), "{\"b\":\"q\",\"a\":1}"),
	      "insertion order, not key names, decides the order");
	json_decref(pts);
	json_decref(spec);
}

static void test_counts(void)
{
	json_t *spec = load("{\"x\": [1, 2], \"y\": [1, 2, 3], \"z\": [1, 2, 3, 4], \"k\": true}");
	json_t *pts = nm_points_expand(spec);
	CHECK(json_array_size(pts) == 24, "2 x 3 x 4 axes give 24 points (%zu)", json_array_size(pts));
	/* Every combination exactly once. */
	int seen[2][3][4] = {{{0}}};
	int ok = 1;
	size_t i;
	json_t *pt;
	json_array_foreach(pts, i, pt) {
		long long x = json_integer_value(json_object_get(pt, "x"));
		long long y = json_integer_value(json_object_get(pt, "y"));
		long long z = json_integer_value(json_object_get(pt, "z"));
		if (x < 1 || x > 2 || y < 1 || y > 3 || z < 1 || z > 4 ||
		    !json_is_true(json_object_get(pt, "k")) || json_object_size(pt) != 4)
			ok = 0;
		else
			seen[x - 1][y - 1][z - 1]++;
	}
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 4; c++)
				if (seen[a][b][c] != 1)
					ok = 0;
	CHECK(ok, "each combination appears once, every value scalar");
	json_decref(pts);
	json_decref(spec);

	spec = load("{\"x\": [1, 2], \"y\": [], \"k\": 1}");
	pts = nm_points_expand(spec);
	CHECK(pts && json_is_array(pts) && json_array_size(pts) == 0, "an empty axis gives no points");
	json_decref(pts);
	json_decref(spec);

	spec = load("{\"x\": 1, \"y\": \"z\"}");
	pts = nm_points_expand(spec);
	CHECK(json_array_size(pts) == 1 && json_equal(json_array_get(pts, 0), spec),
	      "no axes: one point equal to the spec");
	json_decref(pts);
	json_decref(spec);

	spec = load("{\"x\": [7], \"y\": 1}");
	pts = nm_points_expand(spec);
	CHECK(json_array_size(pts) == 1 && !strcmp(dump(json_array_get(pts, 0)), "{\"x\":7,\"y\":1}"),
	      "a one-element axis gives one point with the scalar");
	json_decref(pts);
	json_decref(spec);
}

static const nm_opt table[] = {
	{.name = "size", .type = NM_OPT_SIZE, .def = "8", .min = 1, .flags = NM_OPT_LIST},
	{.name = "iters", .type = NM_OPT_INT, .def = "10", .min = 1},
	{.name = "op", .type = NM_OPT_ENUM, .def = "read", .choices = "read,write", .flags = NM_OPT_LIST},
	NM_OPT_END,
};

static void test_from_parser(void)
{
	const nm_opt *const tables[] = {table, NULL};
	char *argv[] = {"--op", "read,write", "--size", "8,16"};
	char err[256];
	json_t *spec = nm_opt_parse(tables, NULL, NULL, 4, argv, err, sizeof err);
	json_t *pts = spec ? nm_points_expand(spec) : NULL;
	CHECK(json_array_size(pts) == 4 &&
	      !strcmp(dump(json_array_get(pts, 0)), "{\"size\":8,\"iters\":10,\"op\":\"read\"}") &&
	      !strcmp(dump(json_array_get(pts, 1)), "{\"size\":8,\"iters\":10,\"op\":\"write\"}") &&
	      !strcmp(dump(json_array_get(pts, 2)), "{\"size\":16,\"iters\":10,\"op\":\"read\"}"),
	      "parsed spec sweeps in table order, not command-line order");
	json_decref(pts);
	json_decref(spec);
}

static void test_keys(void)
{
	json_t *p1 = load("{\"b\": 2, \"a\": 1, \"s\": \"x\"}");
	json_t *p2 = load("{\"a\": 1, \"s\": \"x\", \"b\": 2}");
	json_t *p3 = load("{\"a\": 1, \"s\": \"x\", \"b\": 3}");
	char *k1 = nm_point_key(p1, 0), *k2 = nm_point_key(p2, 0), *k3 = nm_point_key(p3, 0);
	char *k4 = nm_point_key(p1, 1), *k5 = nm_point_key(p1, 12);
	CHECK(k1 && !strcmp(k1, "{\"a\":1,\"b\":2,\"s\":\"x\"}#0"), "key is sorted compact JSON + #rep (%s)",
	      k1 ? k1 : "NULL");
	CHECK(k1 && k2 && !strcmp(k1, k2), "key does not depend on insertion order");
	CHECK(k1 && k3 && strcmp(k1, k3), "different values, different keys");
	CHECK(k4 && strcmp(k1, k4) && !strcmp(k4 + strlen(k4) - 2, "#1"), "different rep, different key");
	CHECK(k5 && !strcmp(k5 + strlen(k5) - 3, "#12"), "multi-digit rep");
	free(k1), free(k2), free(k3), free(k4), free(k5);
	json_decref(p1), json_decref(p2), json_decref(p3);
}

static void test_axes(void)
{
	json_t *spec = load("{\"size\": [8, 16], \"iters\": 10, \"op\": [\"read\", \"write\"], \"dev\": null}");
	json_t *pts = nm_points_expand(spec);
	json_t *ax = nm_point_axes(spec, json_array_get(pts, 3));
	CHECK(!strcmp(dump(ax), "{\"size\":16,\"op\":\"write\"}"), "axes hold only the swept options (%s)",
	      dumped);
	json_decref(ax);
	json_t *flat = load("{\"iters\": 10}");
	ax = nm_point_axes(flat, json_array_get(pts, 0));
	CHECK(json_is_object(ax) && json_object_size(ax) == 0, "no sweep, empty axes");
	json_decref(ax);
	json_decref(flat);
	json_decref(pts);
	json_decref(spec);
}

/* A sweep is counted before it is expanded: one above NM_POINTS_MAX never
 * allocates its points, and the line says which axis to split it by. */
static void test_sweep_cap(void)
{
	char err[512] = "";
	json_t *spec = load("{\"a\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"tx_depth\": [], \"s\": 1}");
	CHECK(nm_points_count(spec) == 0 && !nm_points_sweep(spec, err, sizeof err) &&
	      strstr(err, "no points"), "an empty axis: no points (%s)", err);
	json_decref(spec);
	json_t *big = json_array(), *mid = json_array();
	for (int i = 0; i < 101; i++)
		json_array_append_new(big, json_integer(i));
	for (int i = 0; i < 100; i++)
		json_array_append_new(mid, json_integer(i));
	spec = json_pack("{s:o, s:O, s:i}", "tx_depth", big, "b", mid, "c", 1);
	err[0] = 0;
	CHECK(nm_points_count(spec) == 10100 && !nm_points_sweep(spec, err, sizeof err) &&
	      strstr(err, "10100 points, above the 10000") && strstr(err, "--tx-depth (101 values)"),
	      "10,100 points refused, naming the longest axis as an option (%s)", err);
	json_object_set_new(spec, "tx_depth", json_integer(1));
	json_t *pts = nm_points_sweep(spec, err, sizeof err);
	CHECK(json_array_size(pts) == 100, "100 points pass");
	json_decref(pts);
	json_decref(mid);
	json_decref(spec);
	/* a product past SIZE_MAX is not wrapped around to a small count */
	spec = json_object();
	for (int k = 0; k < 20; k++) {
		char key[16];
		json_t *ax = json_array();
		for (int i = 0; i < 1000; i++)
			json_array_append_new(ax, json_integer(i));
		snprintf(key, sizeof key, "k%d", k);
		json_object_set_new(spec, key, ax);
	}
	CHECK(nm_points_count(spec) == SIZE_MAX && !nm_points_sweep(spec, err, sizeof err) &&
	      strstr(err, "more than"), "1000^20 points: more than SIZE_MAX, refused (%s)", err);
	json_decref(spec);
}

int main(void)
{
	/* Line-buffered, so a crash still shows the checks before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_order();
	test_counts();
	test_from_parser();
	test_keys();
	test_axes();
	test_sweep_cap();
	return tap_done();
}
