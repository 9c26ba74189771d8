/* Config files' schema (config.h): what `netmem run` accepts, and what
 * `netmem run --check` reports, from the same code. */
#include "config.h"
#include "alloc.h"
#include "experiment.h"
#include "log.h"
#include "points.h"
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const top_keys[] = {"experiment", "params", "description", "ranks", "hosts", "numa", "odp", "plots"};
static const char *const plot_keys[] = {"script", "figure", "inputs"};

typedef struct sink {
	nm_config_say say;
	void *arg;
	const char *path;
	int n;
} sink;

static void problem(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(sink *s, const char *fmt, ...)
{
	char msg[1024];
	int off = snprintf(msg, sizeof msg, "%s: ", s->path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + off, sizeof msg - (size_t)off, fmt, ap);
	va_end(ap);
	s->n++;
	s->say(s->arg, msg);
}

static bool known(const char *key, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* A name made of the characters `extra` adds to letters and digits; with
 * `star`, one trailing '*' allowed; with `ident`, not starting with a digit. */
static bool name_ok(const char *s, const char *extra, bool star, bool ident)
{
	if (!*s || (ident && *s >= '0' && *s <= '9'))
		return false;
	for (const char *c = s; *c; c++) {
		bool alnum = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
		if (alnum || strchr(extra, *c))
			continue;
		if (star && *c == '*' && !c[1] && c != s)
			continue;
		return false;
	}
	return true;
}

/* An input names a config next to the file (NAME.json, or NAME* a pattern). */
static void input_exists(sink *s, const char *name)
{
	const char *slash = strrchr(s->path, '/');
	char pat[4096];
	snprintf(pat, sizeof pat, "%.*s%s.json", slash ? (int)(slash - s->path + 1) : 0, s->path, name);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	if (rc == 0)
		globfree(&g);
	else
		problem(s, "input %s names no config in its folder", name);
}

static void check_inputs(sink *s, const json_t *inputs, bool files)
{
	if (!inputs)
		return;
	if (!json_is_object(inputs)) {
		problem(s, "a plot's \"inputs\" is not an object");
		return;
	}
	const char *var;
	json_t *v;
	json_object_foreach((json_t *)inputs, var, v) {
		if (!name_ok(var, "_", false, true))
			problem(s, "input %s is not a gnuplot variable name", var);
		size_t n = json_is_array(v) ? json_array_size(v) : 1;
		for (size_t i = 0; i < n; i++) {
			const json_t *x = json_is_array(v) ? json_array_get(v, i) : v;
			const char *name = json_string_value(x);
			if (!name || !name_ok(name, "._-", true, false))
				problem(s, "an input of %s is not a config name", var);
			else if (files)
				input_exists(s, name);
		}
	}
}

static void check_plot(sink *s, const json_t *pl, bool files)
{
	if (!json_is_object(pl)) {
		problem(s, "a plot is not an object");
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)pl, key, v)
		if (!known(key, plot_keys, sizeof plot_keys / sizeof *plot_keys))
			problem(s, "unknown plot key '%s' (expected script, figure, inputs)", key);
	const char *script = json_string_value(json_object_get(pl, "script"));
	if (!script || !name_ok(script, "_-", false, false)) {
		problem(s, "a plot has no valid \"script\" (the name of a file in plots/, without .gp)");
	} else if (files) {
		char gp[512];
		snprintf(gp, sizeof gp, "plots/%s.gp", script);
		if (access(gp, R_OK))
			problem(s, "no plot script %s", gp);
	}
	const json_t *fig = json_object_get(pl, "figure");
	if (fig && (!json_is_string(fig) || !name_ok(json_string_value(fig), "._-", false, false)))
		problem(s, "a plot has an invalid \"figure\" (letters, digits, '.', '_', '-')");
	check_inputs(s, json_object_get(pl, "inputs"), files);
}

/* "hosts": the ranks each host runs, in rank order ([3, 1]: ranks 0-2 on
 * the first host, rank 3 alone on the second), for a job whose placement is
 * part of the experiment (Clover's memory node alone on its host). Two
 * hosts or more; "ranks", if given, is their sum. */
static void check_hosts(sink *s, const json_t *cfg)
{
	const json_t *hosts = json_object_get(cfg, "hosts"), *ranks = json_object_get(cfg, "ranks"), *h;
	if (!hosts)
		return;
	size_t i;
	json_int_t sum = 0;
	bool ok = json_is_array(hosts) && json_array_size(hosts) >= 2;
	json_array_foreach(hosts, i, h) {
		ok &= json_is_integer(h) && json_integer_value(h) >= 1;
		sum += json_integer_value(h);
	}
	if (!ok)
		problem(s, "\"hosts\" must be a list of two or more positive rank counts, one per host in rank order");
	else if (ranks && !(json_is_integer(ranks) && json_integer_value(ranks) == sum))
		problem(s, "\"ranks\" must be the sum of \"hosts\" (%lld), or left out", (long long)sum);
}

static void check_top(sink *s, const json_t *cfg)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)cfg, key, v)
		if (!known(key, top_keys, sizeof top_keys / sizeof *top_keys))
			problem(s, "unknown top-level key '%s' (expected experiment, params, description, ranks, hosts, "
				   "numa, odp, plots)",
				key);
	static const char *const lanes[] = {"numa", "odp"};
	for (size_t k = 0; k < sizeof lanes / sizeof *lanes; k++) {
		const json_t *lane = json_object_get(cfg, lanes[k]);
		if (lane && !json_is_boolean(lane))
			problem(s, "\"%s\" must be true or false", lanes[k]);
	}
	/* a list sweeps the rank count: run_all.sh runs one job per count */
	const json_t *ranks = json_object_get(cfg, "ranks"), *r;
	size_t i;
	bool ranks_ok = !ranks || (json_is_integer(ranks) && json_integer_value(ranks) >= 1) ||
			(json_is_array(ranks) && json_array_size(ranks) > 0);
	if (json_is_array(ranks))
		json_array_foreach(ranks, i, r) {
			bool again = false;
			for (size_t k = 0; k < i; k++)
				again |= json_equal(json_array_get(ranks, k), r);
			ranks_ok &= json_is_integer(r) && json_integer_value(r) >= 1 && !again;
		}
	if (!ranks_ok)
		problem(s, "\"ranks\" must be a positive integer or a list of distinct ones");
	check_hosts(s, cfg);
	const json_t *params = json_object_get(cfg, "params");
	if (params && !json_is_object(params))
		problem(s, "\"params\" must be an object");
	const json_t *name = json_object_get(cfg, "experiment");
	if (!json_is_string(name)) {
		problem(s, "\"experiment\" must name an experiment, e.g. \"ops\"");
		return;
	}
	const nm_experiment *e = nm_experiment_find(json_string_value(name));
	if (!e || e->tool_main)
		problem(s, "%s '%s' (see netmem --help)", e ? "not an experiment that runs as a job:" : "unknown experiment",
			json_string_value(name));
}

int nm_config_problems(const json_t *cfg, const char *path, bool files, nm_config_say say, void *arg)
{
	sink s = {.say = say, .arg = arg, .path = path};
	if (!json_is_object(cfg)) {
		problem(&s, "the top level must be an object with \"experiment\" and \"params\"");
		return s.n;
	}
	check_top(&s, cfg);
	const json_t *plots = json_object_get(cfg, "plots");
	if (plots && !json_is_array(plots)) {
		problem(&s, "\"plots\" must be a list of objects with a \"script\"");
		return s.n;
	}
	size_t i;
	json_t *pl;
	json_array_foreach((json_t *)plots, i, pl)
		check_plot(&s, pl, files);
	return s.n;
}

static void ignore_line(void *arg, const char *msg)
{
	(void)arg, (void)msg;
}

static void print_line(void *arg, const char *msg)
{
	(void)arg;
	nm_log_line(stdout, NULL, msg);
}

/* Rejecting duplicate keys: with two "iters", jansson would keep the last
 * one without a word, and the config would not run what it reads as. */
static json_t *parse_text(const char *text, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *cfg = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!cfg)
		snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
	return cfg;
}

/* The host of each of a config's nranks ranks, as run_all.sh places them:
 * by its "hosts", else params.ranks_per_node to a host, else one rank per
 * host (what --map-by node gives on a cluster). A check made without the
 * job's hosts assumes the placement that refuses the least. */
static uint64_t *config_hosts(const json_t *cfg, int nranks)
{
	uint64_t *hosts = nm_calloc((size_t)nranks, sizeof *hosts);
	const json_t *placed = json_object_get(cfg, "hosts");
	int rpn = (int)json_integer_value(json_object_get(json_object_get(cfg, "params"), "ranks_per_node"));
	for (int r = 0; r < nranks; r++) {
		uint64_t h = rpn > 0 ? (uint64_t)(r / rpn) : (uint64_t)r;
		if (json_is_array(placed)) {
			size_t i;
			json_t *n;
			int left = r;
			json_array_foreach(placed, i, n) {
				left -= (int)json_integer_value(n);
				if (left < 0)
					break;
			}
			h = i;
		}
		hosts[r] = h + 1;
	}
	return hosts;
}

/* The job of nranks ranks decoded as netmem run decodes it (its options,
 * its sweep, every point), with no device: 0, or -1 with one line in err. */
static int decode_job(const nm_experiment *e, const json_t *cfg, const char *path, int nranks, char *err,
		      size_t errlen)
{
	const nm_opt *tables[] = {e->opts, nm_harness_opts, NULL};
	char where[512];
	snprintf(where, sizeof where, "%s: params", path);
	const json_t *params = json_object_get(cfg, "params");
	json_t *copy = params ? json_deep_copy(params) : NULL;
	json_t *spec = nm_opt_parse(tables, copy, where, 0, NULL, err, errlen), *points = NULL;
	json_decref(copy);
	if (!spec)
		return -1;
	char why[1024];
	int rc = -1;
	if (nranks < e->min_ranks) {
		snprintf(err, errlen, "%s: %s needs at least %d ranks, the config's job has %d", path, e->name,
			 e->min_ranks, nranks);
		goto out;
	}
	points = nm_points_sweep(spec, why, sizeof why);
	if (!points) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	uint64_t *hosts = config_hosts(cfg, nranks);
	size_t psize = e->point_size ? e->point_size : 1, i;
	void *decoded = nm_calloc(1, psize);
	json_t *pt;
	rc = 0;
	json_array_foreach(points, i, pt) {
		nm_base b;
		if (rc == 0 && nm_point_decode(e, pt, spec, nranks, hosts, &b, decoded, why, sizeof why) != 0) {
			json_t *axes = nm_point_axes(spec, pt);
			char *label = json_object_size(axes) ? json_dumps(axes, JSON_COMPACT) : NULL;
			snprintf(err, errlen, "%s: %s%s%s", path, why, label ? "; at point " : "", label ? label : "");
			free(label);
			json_decref(axes);
			rc = -1;
		}
		if (e->point_free)
			e->point_free(decoded);
		memset(decoded, 0, psize);
		if (rc)
			break;
	}
	free(decoded);
	free(hosts);
out:
	json_decref(points);
	json_decref(spec);
	return rc;
}

/* A config with no schema problem decoded for each job it makes: its
 * "hosts" summed, each count of "ranks", else NM_CONFIG_CHECK_NP ranks. */
static int decode_config(const json_t *cfg, const char *path, char *err, size_t errlen)
{
	const nm_experiment *e = nm_experiment_find(json_string_value(json_object_get(cfg, "experiment")));
	const json_t *ranks = json_object_get(cfg, "ranks"), *placed = json_object_get(cfg, "hosts"), *r;
	if (json_is_array(placed)) {
		int sum = 0;
		size_t i;
		json_array_foreach(placed, i, r)
			sum += (int)json_integer_value(r);
		return decode_job(e, cfg, path, sum, err, errlen);
	}
	if (json_is_array(ranks)) {
		size_t i;
		json_array_foreach(ranks, i, r)
			if (decode_job(e, cfg, path, (int)json_integer_value(r), err, errlen))
				return -1;
		return 0;
	}
	return decode_job(e, cfg, path, json_is_integer(ranks) ? (int)json_integer_value(ranks) : NM_CONFIG_CHECK_NP,
			  err, errlen);
}

int nm_config_check_main(int argc, char **argv)
{
	int bad = 0;
	char err[2048];
	/* one list of problems, not one per rank of an mpirun job */
	bool say = nm_log_rank() == 0;
	for (int i = 0; i < argc; i++) {
		char *text = nm_read_text_file(argv[i], err, sizeof err);
		json_t *cfg = text ? parse_text(text, argv[i], err, sizeof err) : NULL;
		free(text);
		if (!cfg) {
			if (say)
				print_line(NULL, err);
			bad++;
			continue;
		}
		int n = nm_config_problems(cfg, argv[i], true, say ? print_line : ignore_line, NULL);
		if (n == 0 && decode_config(cfg, argv[i], err, sizeof err) != 0) {
			if (say)
				print_line(NULL, err);
			n++;
		}
		bad += n;
		json_decref(cfg);
	}
	fflush(stdout);
	return bad ? 2 : 0;
}

char *nm_read_text_file(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it can
	 * be refused */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	/* a FIFO or a device (/dev/zero) would hang or fill memory */
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a config is read from a file)", path);
		goto fail;
	}
	if (st.st_size > NM_CONFIG_MAX_BYTES)
		goto too_big;
	/* one byte over the cap tells a file that grew since fstat */
	buf = nm_calloc(1, NM_CONFIG_MAX_BYTES + 2);
	while (len <= NM_CONFIG_MAX_BYTES) {
		ssize_t n = read(fd, buf + len, NM_CONFIG_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > NM_CONFIG_MAX_BYTES)
		goto too_big;
	/* JSON text holds no NUL; what followed one would go unread */
	const char *nul = memchr(buf, 0, len);
	if (nul) {
		snprintf(err, errlen, "%s: a NUL byte at offset %zu (a config is JSON text)", path, (size_t)(nul - buf));
		goto fail;
	}
	close(fd);
	return buf;
too_big:
	snprintf(err, errlen, "%s: larger than %d bytes (1 MiB), the most a config may hold", path,
		 NM_CONFIG_MAX_BYTES);
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* The first problem nm_config_problems finds becomes the caller's one line. */
typedef struct first_problem {
	char *err;
	size_t len;
} first_problem;

static void keep_first(void *arg, const char *problem)
{
	first_problem *fp = arg;
	if (fp->len) {
		snprintf(fp->err, fp->len, "%s", problem);
		fp->len = 0;
	}
}

json_t *nm_config_parse(const char *text, const char *path, char *err, size_t errlen)
{
	json_t *cfg = parse_text(text, path, err, errlen);
	if (!cfg)
		return NULL;
	first_problem fp = {err, errlen};
	if (nm_config_problems(cfg, path, false, keep_first, &fp)) {
		json_decref(cfg);
		return NULL;
	}
	return cfg;
}
