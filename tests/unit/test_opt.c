/* Option parsing: defaults, command-line forms, JSON configs, errors, getters
 * and usage text, against a small sample option table. */
#include "opt.h"
#include "tap.h"
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const nm_opt sample[] = {
	{.name = "iters", .shortc = 'n', .type = NM_OPT_INT, .def = "1000", .min = 1, .max = 1000000,
	 .help = "iterations per point"},
	{.name = "size", .shortc = 's', .type = NM_OPT_SIZE, .def = "8", .min = 1, .max = 1 << 30,
	 .flags = NM_OPT_LIST, .help = "message size"},
	{.name = "op", .shortc = 'o', .type = NM_OPT_ENUM, .def = "read", .choices = "read,write,cas,faa",
	 .flags = NM_OPT_LIST, .help = "operation"},
	{.name = "verbose", .shortc = 'v', .type = NM_OPT_BOOL, .def = "false", .help = "chatty"},
	{.name = "device", .shortc = 'd', .type = NM_OPT_STR, .def = NULL, .help = "RDMA device"},
	{.name = "rate", .shortc = 'r', .type = NM_OPT_DOUBLE, .def = "0.5", .min = 0, .max = 1,
	 .help = "fraction"},
	{.name = "all", .shortc = 'a', .type = NM_OPT_ALIAS, .alias_of = "size", .alias_value = "2..8",
	 .help = "all sizes"},
	NM_OPT_END,
};

/* Stands in for the harness's table: a second table, a dashed name, and a
 * LIST default that is already a list. */
static const nm_opt common[] = {
	{.name = "tx-depth", .type = NM_OPT_INT, .def = "128", .min = 1, .help = "send queue depth"},
	{.name = "batch", .type = NM_OPT_INT, .def = "1,4", .min = 1, .flags = NM_OPT_LIST,
	 .help = "posts per doorbell"},
	{.name = "output", .type = NM_OPT_STR, .def = "results/out.json", .help = "result file"},
	NM_OPT_END,
};

static const nm_opt *const tables[] = {sample, common, NULL};

static char err[512];

static json_t *vparse(const char *cfg_text, va_list ap)
{
	char *argv[32];
	int argc = 0;
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 32;)
		argv[argc++] = (char *)a;
	json_t *cfg = NULL;
	if (cfg_text) {
		json_error_t je;
		cfg = json_loads(cfg_text, JSON_DECODE_ANY, &je);
		if (!cfg) {
			printf("# bad test JSON: %s\n", je.text);
			exit(99);
		}
	}
	strcpy(err, "(unset)");
	json_t *spec = nm_opt_parse(tables, cfg, "job.json: params", argc, argv, err, sizeof err);
	json_decref(cfg);
	return spec;
}

/* parse(config text or NULL, "--flag", "value", ..., NULL) */
static json_t *parse(const char *cfg_text, ...)
{
	va_list ap;
	va_start(ap, cfg_text);
	json_t *spec = vparse(cfg_text, ap);
	va_end(ap);
	return spec;
}

static long long geti(const json_t *spec, const char *key)
{
	const json_t *v = json_object_get(spec, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -999;
}

static const char *gets_(const json_t *spec, const char *key)
{
	const char *s = json_string_value(json_object_get(spec, key));
	return s ? s : "(not a string)";
}

/* The value of key, compact, for comparing arrays in one go. */
static char dumped[512];
static const char *dump(const json_t *spec, const char *key)
{
	json_t *v = spec ? json_object_get(spec, key) : NULL;
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	snprintf(dumped, sizeof dumped, "%s", s ? s : "(missing)");
	free(s);
	return dumped;
}

/* Expects success; returns key's value as compact JSON. */
static const char *val(const char *key, const char *cfg_text, ...)
{
	va_list ap;
	va_start(ap, cfg_text);
	json_t *spec = vparse(cfg_text, ap);
	va_end(ap);
	if (!spec)
		printf("# unexpected error: %s\n", err);
	dump(spec, key);
	json_decref(spec);
	return dumped;
}
#define VAL(key, ...) val(key, __VA_ARGS__, NULL)

/* Expects failure with exactly this message. */
#define FAILS(msg, ...) do {                                                   \
	json_t *s_ = parse(__VA_ARGS__, NULL);                                 \
	CHECK(!s_ && !strcmp(err, msg), "error \"%s\" (got \"%s\")", msg,       \
	      s_ ? "success" : err);                                           \
	json_decref(s_);                                                       \
} while (0)

/* Expects failure with a message containing this text. */
#define FAILS_WITH(text, ...) do {                                             \
	json_t *s_ = parse(__VA_ARGS__, NULL);                                 \
	CHECK(!s_ && strstr(err, text), "error mentions \"%s\" (got \"%s\")",   \
	      text, s_ ? "success" : err);                                     \
	json_decref(s_);                                                       \
} while (0)

static void test_defaults(void)
{
	json_t *s = parse(NULL, NULL);
	CHECK(s != NULL, "defaults parse (%s)", s ? "" : err);
	if (!s)
		return;
	CHECK(geti(s, "iters") == 1000, "int default");
	CHECK(geti(s, "size") == 8, "size default");
	CHECK(!strcmp(gets_(s, "op"), "read"), "enum default");
	CHECK(json_is_false(json_object_get(s, "verbose")), "bool default false");
	CHECK(json_is_null(json_object_get(s, "device")), "NULL default is JSON null");
	CHECK(json_is_real(json_object_get(s, "rate")) &&
	      json_real_value(json_object_get(s, "rate")) == 0.5, "double default is a real");
	CHECK(geti(s, "tx_depth") == 128, "dashed name stored under key tx_depth");
	CHECK(!strcmp(dump(s, "batch"), "[1,4]"), "LIST default with comma is an array");
	CHECK(!strcmp(gets_(s, "output"), "results/out.json"), "string default");
	CHECK(json_object_get(s, "all") == NULL, "aliases have no key of their own");

	/* Sweep order follows key order, which must be table order. */
	static const char *const order[] = {"iters", "size", "op", "verbose", "device",
					    "rate", "tx_depth", "batch", "output"};
	size_t i = 0;
	int in_order = json_object_size(s) == 9;
	const char *key;
	json_t *v;
	json_object_foreach(s, key, v) {
		if (i >= 9 || strcmp(key, order[i]))
			in_order = 0;
		i++;
	}
	CHECK(in_order, "spec keys in option-table order");
	CHECK(!strcmp(err, ""), "err cleared on success");
	json_decref(s);

	/* Overriding a value keeps its position. */
	s = parse(NULL, "--output", "x.json", "--iters", "3", NULL);
	key = NULL;
	void *it = s ? json_object_iter(s) : NULL;
	key = it ? json_object_iter_key(it) : "";
	CHECK(!strcmp(key, "iters"), "overridden key keeps its place");
	json_decref(s);

	char k[64];
	nm_opt_key(&common[0], k, sizeof k);
	CHECK(!strcmp(k, "tx_depth"), "nm_opt_key turns '-' into '_'");
	nm_opt_key(&common[0], k, 4);
	CHECK(!strcmp(k, "tx_"), "nm_opt_key truncates to the buffer");
}

static void test_cli_forms(void)
{
	CHECK(!strcmp(VAL("iters", NULL, "--iters", "5"), "5"), "--name value");
	CHECK(!strcmp(VAL("iters", NULL, "--iters=6"), "6"), "--name=value");
	CHECK(!strcmp(VAL("iters", NULL, "-n7"), "7"), "-xvalue");
	CHECK(!strcmp(VAL("iters", NULL, "-n", "8"), "8"), "-x value");
	CHECK(!strcmp(VAL("iters", NULL, "-n=9"), "9"), "-x=value");
	CHECK(!strcmp(VAL("tx_depth", NULL, "--tx-depth", "4"), "4"), "dashed long name");
	CHECK(!strcmp(VAL("tx_depth", NULL, "--tx_depth", "5"), "5"), "key spelling on the command line");
	CHECK(!strcmp(VAL("verbose", NULL, "--verbose"), "true"), "bare --flag is true");
	CHECK(!strcmp(VAL("verbose", NULL, "-v"), "true"), "bare -x is true");
	CHECK(!strcmp(VAL("verbose", NULL, "--verbose", "--no-verbose"), "false"), "--no-flag is false");
	CHECK(!strcmp(VAL("verbose", NULL, "--verbose=no"), "false"), "--flag=no");
	CHECK(!strcmp(VAL("verbose", NULL, "--verbose=1"), "true"), "--flag=1");
	CHECK(!strcmp(VAL("iters", NULL, "--verbose", "--iters", "3"), "3"),
	      "a bare flag does not swallow the next option");
	CHECK(!strcmp(VAL("size", NULL, "-a"), "[2,4,8]"), "alias sets its option");
	CHECK(!strcmp(VAL("size", NULL, "--all"), "[2,4,8]"), "alias by long name");
	CHECK(!strcmp(VAL("size", NULL, "-a", "--size", "64"), "64"), "later flag overrides alias");
	CHECK(!strcmp(VAL("size", NULL, "--size", "64", "-a"), "[2,4,8]"), "later alias overrides flag");
	CHECK(!strcmp(VAL("iters", NULL, "--iters", "5", "--iters", "9"), "9"), "later flag wins");
	CHECK(!strcmp(VAL("device", NULL, "-d", "mlx5_0"), "\"mlx5_0\""), "string value");
	CHECK(!strcmp(VAL("output", NULL, "--output", "a,b..c.json"), "\"a,b..c.json\""),
	      "non-list string keeps commas and dots");
	CHECK(!strcmp(VAL("rate", NULL, "--rate", "0.25"), "0.25"), "double value");
	CHECK(!strcmp(VAL("op", NULL, "--op", "cas"), "\"cas\""), "enum value");
	CHECK(!strcmp(VAL("iters", NULL, "--"), "1000"), "a final -- is accepted");
}

static void test_sizes(void)
{
	int64_t v = -1;
	CHECK(nm_parse_size("64", &v) == 0 && v == 64, "plain size");
	CHECK(nm_parse_size("4k", &v) == 0 && v == 4096, "4k");
	CHECK(nm_parse_size("4K", &v) == 0 && v == 4096, "4K");
	CHECK(nm_parse_size("4kB", &v) == 0 && v == 4096, "4kB");
	CHECK(nm_parse_size("64B", &v) == 0 && v == 64, "64B");
	CHECK(nm_parse_size("1M", &v) == 0 && v == 1048576, "1M");
	CHECK(nm_parse_size("2g", &v) == 0 && v == 2147483648LL, "2g");
	CHECK(nm_parse_size("0", &v) == 0 && v == 0, "0 parses (bounds are separate)");
	CHECK(nm_parse_size("9223372036854775807", &v) == 0 && v == INT64_MAX, "INT64_MAX");
	v = 7;
	CHECK(nm_parse_size("9223372036854775808", &v) != 0 && v == 7, "overflow in digits rejected");
	CHECK(nm_parse_size("8589934592G", &v) != 0, "overflow in suffix rejected");
	CHECK(nm_parse_size("-5", &v) != 0, "negative rejected");
	CHECK(nm_parse_size("", &v) != 0, "empty rejected");
	CHECK(nm_parse_size("k", &v) != 0, "suffix alone rejected");
	CHECK(nm_parse_size("4kk", &v) != 0, "double suffix rejected");
	CHECK(nm_parse_size("4x", &v) != 0, "unknown suffix rejected");
	CHECK(nm_parse_size(" 4", &v) != 0, "leading blank rejected");
	CHECK(nm_parse_size("4 ", &v) != 0, "trailing blank rejected");

	CHECK(!strcmp(VAL("size", NULL, "--size", "4k"), "4096"), "--size 4k");
	CHECK(!strcmp(VAL("size", NULL, "-s1M"), "1048576"), "-s1M");
}

static void test_lists(void)
{
	CHECK(!strcmp(VAL("size", NULL, "--size", "2..16"), "[2,4,8,16]"), "range 2..16");
	CHECK(!strcmp(VAL("size", NULL, "--size", "8,64,4k"), "[8,64,4096]"), "comma list with suffix");
	CHECK(!strcmp(VAL("size", NULL, "--size", "1k..4k,1"), "[1024,2048,4096,1]"),
	      "ranges inside a list");
	CHECK(!strcmp(VAL("size", NULL, "--size", "4..4"), "[4]"), "one-element range");
	CHECK(!strcmp(VAL("op", NULL, "--op", "read,cas"), "[\"read\",\"cas\"]"), "enum list");
	json_t *s = parse(NULL, "--size", "2..8M", NULL);
	CHECK(s && json_array_size(json_object_get(s, "size")) == 23 &&
	      json_integer_value(json_array_get(json_object_get(s, "size"), 22)) == 8388608,
	      "2..8M has 23 powers of two ending at 8M");
	json_decref(s);
}

static void test_cli_errors(void)
{
	FAILS("unknown option '--szie' (did you mean '--size'?)", NULL, "--szie", "4");
	FAILS("unknown option '--szie' (did you mean '--size'?)", NULL, "--szie=4");
	FAILS("unknown option '--iter' (did you mean '--iters'?)", NULL, "--iter", "4");
	FAILS("unknown option '--vrebse' (did you mean '--verbose'?)", NULL, "--vrebse");
	FAILS("unknown option '--frobnicate'", NULL, "--frobnicate");
	/* Two edits would turn "ab" into "op": too far for so short a name. */
	FAILS("unknown option '--ab'", NULL, "--ab");
	FAILS("unknown option '-z'", NULL, "-z");
	FAILS("option --size needs a value", NULL, "--size");
	FAILS("option --size needs a value", NULL, "--size", "--iters", "4");
	FAILS("option --size needs a value", NULL, "-s");
	FAILS("option --iters: 'abc' is not an integer", NULL, "--iters", "abc");
	FAILS("option --iters: '12x' is not an integer", NULL, "--iters=12x");
	FAILS("option --size: '-5' is not a size", NULL, "--size", "-5");
	FAILS("option --size: '4q' is not a size", NULL, "-s4q");
	FAILS("option --iters: 0 is below the minimum 1", NULL, "--iters", "0");
	FAILS("option --iters: -3 is below the minimum 1", NULL, "--iters", "-3");
	FAILS("option --iters: 2000000 is above the maximum 1000000", NULL, "--iters", "2000000");
	FAILS("option --size: 2147483648 is above the maximum 1073741824", NULL, "--size", "2G");
	FAILS("option --size: 0 is below the minimum 1", NULL, "--size", "8,0");
	FAILS("option --rate: 1.5 is above the maximum 1", NULL, "--rate", "1.5");
	FAILS("option --rate: 'fast' is not a number", NULL, "--rate", "fast");
	FAILS("option --op: 'raed' is not one of read, write, cas, faa", NULL, "--op", "raed");
	FAILS("option --op: 'raed' is not one of read, write, cas, faa", NULL, "--op", "read,raed");
	FAILS("option --iters takes one value, not a list", NULL, "--iters", "1,2");
	FAILS("option --iters takes one value, not a list", NULL, "--iters", "2..8");
	FAILS("option --verbose: 'maybe' is not a boolean (true/false, yes/no, 1/0)", NULL,
	      "--verbose=maybe");
	FAILS("option --all takes no value", NULL, "--all=1");
	FAILS("option --no-verbose takes no value", NULL, "--no-verbose=1");
	FAILS("unknown option '--no-iters'", NULL, "--no-iters");
	FAILS_WITH("unexpected argument 'foo'", NULL, "--iters", "5", "foo");
	FAILS_WITH("unexpected argument 'bar'", NULL, "--", "bar");
	FAILS_WITH("unexpected argument '-'", NULL, "-");
	FAILS("option --size: bad range '3..16' (3 is not a power of two)", NULL, "--size", "3..16");
	FAILS("option --size: bad range '2..12' (12 is not a power of two)", NULL, "--size", "2..12");
	FAILS("option --size: bad range '16..2' (16 is above 2)", NULL, "--size", "16..2");
	FAILS("option --size: '' is not a size", NULL, "--size", "2..");
	FAILS("option --size: '' is not a size", NULL, "--size", "8,,16");
	FAILS_WITH("only for integer options", NULL, "--op", "read..write");
}

static void test_config(void)
{
	FAILS("job.json: params: unknown key 'szie' (did you mean 'size'?)", "{\"szie\": 4}");
	FAILS("job.json: params: unknown key 'zzzzzzz'", "{\"zzzzzzz\": 4}");
	FAILS("job.json: params: key 'size': expected a size (e.g. 64, 4k)", "{\"size\": true}");
	FAILS("job.json: params: key 'size': expected a size (e.g. 64, 4k)", "{\"size\": {}}");
	FAILS("job.json: params: key 'size': -8 is not a size", "{\"size\": -8}");
	FAILS("job.json: params: key 'iters': expected an integer", "{\"iters\": 1.5}");
	FAILS("job.json: params: key 'iters': 'x' is not an integer", "{\"iters\": \"x\"}");
	FAILS("job.json: params: key 'iters': expected an integer", "{\"iters\": null}");
	FAILS("job.json: params: key 'iters' takes one value, not a list", "{\"iters\": [1, 2]}");
	FAILS("job.json: params: key 'iters' takes one value, not a list", "{\"iters\": \"1,2\"}");
	FAILS("job.json: params: key 'op': expected one of read, write, cas, faa", "{\"op\": 3}");
	FAILS("job.json: params: key 'op': 'raed' is not one of read, write, cas, faa",
	      "{\"op\": [\"read\", \"raed\"]}");
	FAILS("job.json: params: key 'device': expected a string", "{\"device\": 5}");
	FAILS("job.json: params: key 'verbose': expected true or false", "{\"verbose\": 2}");
	FAILS("job.json: params: key 'rate': expected a number", "{\"rate\": false}");
	FAILS("job.json: params: key 'iters': 0 is below the minimum 1", "{\"iters\": 0}");
	FAILS("job.json: params: key 'size': 0 is below the minimum 1", "{\"size\": [8, 0]}");
	FAILS("job.json: params: key 'size': element 0: expected a size (e.g. 64, 4k)",
	      "{\"size\": [[8]]}");
	FAILS("job.json: params: expected an object of option values", "[1]");

	CHECK(!strcmp(VAL("size", "{\"size\": \"4k\"}"), "4096"), "config string with suffix");
	json_t *s = parse("{\"size\": \"2..8M\"}", NULL);
	CHECK(s && json_array_size(json_object_get(s, "size")) == 23, "config string range");
	json_decref(s);
	CHECK(!strcmp(VAL("size", "{\"size\": [64, \"1k\", \"2..4\"]}"), "[64,1024,2,4]"),
	      "config array, elements in any syntax");
	CHECK(!strcmp(VAL("size", "{\"size\": []}"), "[]"), "empty array is an empty axis");
	CHECK(!strcmp(VAL("iters", "{\"iters\": 4.0}"), "4"), "integral real for an int");
	CHECK(!strcmp(VAL("rate", "{\"rate\": 1}"), "1.0"), "integer for a double becomes a real");
	CHECK(!strcmp(VAL("verbose", "{\"verbose\": \"yes\"}"), "true"), "bool from string");
	CHECK(!strcmp(VAL("verbose", "{\"verbose\": 1}"), "true"), "bool from 1");
	CHECK(!strcmp(VAL("verbose", "{\"verbose\": true}"), "true"), "bool from true");
	CHECK(!strcmp(VAL("device", "{\"device\": null}"), "null"), "null for an option without default");
	CHECK(!strcmp(VAL("tx_depth", "{\"tx-depth\": 7}"), "7"), "dashed key in config");
	CHECK(!strcmp(VAL("size", "{\"all\": true}"), "[2,4,8]"), "alias in config");
	CHECK(!strcmp(VAL("size", "{\"all\": false}"), "8"), "alias false does nothing");
	CHECK(!strcmp(VAL("op", "{\"op\": [\"read\", \"faa\"]}"), "[\"read\",\"faa\"]"), "enum array");

	CHECK(!strcmp(VAL("iters", "{\"iters\": 5}"), "5"), "config sets a value");
	CHECK(!strcmp(VAL("iters", "{\"iters\": 5}", "--iters", "7"), "7"), "command line overrides config");
	CHECK(!strcmp(VAL("size", "{\"size\": [1, 2]}", "-a"), "[2,4,8]"), "alias on the command line overrides config");

	json_t *cfg = json_object();
	s = nm_opt_parse(tables, cfg, NULL, 0, NULL, err, sizeof err);
	CHECK(s != NULL, "empty config, no argv");
	json_decref(s);
	json_decref(cfg);
	cfg = json_pack("{s:i}", "szie", 4);
	s = nm_opt_parse(tables, cfg, NULL, 0, NULL, err, sizeof err);
	CHECK(!s && !strcmp(err, "config: unknown key 'szie' (did you mean 'size'?)"),
	      "where defaults to 'config' (%s)", err);
	json_decref(cfg);
	json_decref(s);
}

/* Runs fn in a child; true when the child died of SIGABRT after writing
 * something naming `key` to stderr. */
static int aborts_naming(void (*fn)(const json_t *), const json_t *spec, const char *key)
{
	int pfd[2];
	if (pipe(pfd))
		return 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		fn(spec);
		_exit(0);
	}
	close(pfd[1]);
	char buf[512] = "";
	size_t n = 0;
	ssize_t r;
	while (n + 1 < sizeof buf && (r = read(pfd[0], buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(pfd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && strstr(buf, key) != NULL;
}

static void get_missing(const json_t *s) { (void)nm_cfg_int(s, "no_such_key"); }
static void get_int_of_enum(const json_t *s) { (void)nm_cfg_int(s, "op"); }
static void get_int_of_axis(const json_t *s) { (void)nm_cfg_int(s, "batch"); }
static void get_double_of_str(const json_t *s) { (void)nm_cfg_double(s, "output"); }
static void get_bool_of_int(const json_t *s) { (void)nm_cfg_bool(s, "iters"); }
static void get_str_of_int(const json_t *s) { (void)nm_cfg_str(s, "iters"); }
static void get_int_ok(const json_t *s) { (void)nm_cfg_int(s, "iters"); }

static void test_getters(void)
{
	json_t *s = parse(NULL, "--device", "mlx5_0", NULL);
	CHECK(s != NULL, "spec for getters");
	if (!s)
		return;
	CHECK(nm_cfg_int(s, "iters") == 1000, "nm_cfg_int");
	CHECK(nm_cfg_double(s, "rate") == 0.5, "nm_cfg_double on a real");
	CHECK(nm_cfg_double(s, "iters") == 1000.0, "nm_cfg_double accepts an integer");
	CHECK(nm_cfg_bool(s, "verbose") == 0, "nm_cfg_bool");
	CHECK(!strcmp(nm_cfg_str(s, "device"), "mlx5_0"), "nm_cfg_str");
	CHECK(!strcmp(nm_cfg_str(s, "op"), "read"), "nm_cfg_str on an enum");
	json_decref(s);
	s = parse(NULL, NULL);
	CHECK(!strcmp(nm_cfg_str(s, "device"), ""), "nm_cfg_str gives \"\" for null");
	CHECK(aborts_naming(get_missing, s, "no_such_key"), "missing key aborts naming it");
	CHECK(aborts_naming(get_int_of_enum, s, "op"), "wrong type aborts naming the key");
	CHECK(aborts_naming(get_int_of_axis, s, "batch"), "an array (sweep axis) is not an int");
	CHECK(aborts_naming(get_double_of_str, s, "output"), "nm_cfg_double on a string aborts");
	CHECK(aborts_naming(get_bool_of_int, s, "iters"), "nm_cfg_bool on an int aborts");
	CHECK(aborts_naming(get_str_of_int, s, "iters"), "nm_cfg_str on an int aborts");
	CHECK(!aborts_naming(get_int_ok, s, "iters"), "a good getter does not abort");
	json_decref(s);
}

/* Column where `text` starts on the line that contains it, or -1. */
static long column_of(const char *buf, const char *text)
{
	const char *p = strstr(buf, text);
	if (!p)
		return -1;
	const char *bol = p;
	while (bol > buf && bol[-1] != '\n')
		bol--;
	return (long)(p - bol);
}

static void test_usage(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	nm_opt_usage(f, "netmem sample", "Measures sample things.", tables);
	fclose(f);
	CHECK(!strncmp(buf, "Usage: netmem sample [options]\n", 31), "usage line");
	CHECK(strstr(buf, "\nMeasures sample things.\n") != NULL, "summary");
	CHECK(strstr(buf, "  -s, --size=SIZE ") != NULL, "short and long form with metavar");
	CHECK(strstr(buf, "      --tx-depth=N ") != NULL, "long-only option indented like the others");
	CHECK(strstr(buf, "message size [list] (default: 8)\n") != NULL, "list marker and default");
	CHECK(strstr(buf, "iterations per point (default: 1000)\n") != NULL, "default shown");
	CHECK(strstr(buf, "iterations per point [list]") == NULL, "non-list not marked");
	CHECK(strstr(buf, "--op=read|write|cas|faa") != NULL, "enum choices as metavar");
	CHECK(strstr(buf, "  -v, --verbose ") != NULL, "bool has no metavar");
	CHECK(strstr(buf, "all sizes (same as --size=2..8)") != NULL, "alias explained");
	CHECK(strstr(buf, "RDMA device\n") != NULL, "no default shown for NULL default");
	long c1 = column_of(buf, "iterations per point"), c2 = column_of(buf, "message size");
	long c3 = column_of(buf, "send queue depth");
	CHECK(c1 > 0 && c1 == c2 && c2 == c3, "help texts aligned (%ld %ld %ld)", c1, c2, c3);
	free(buf);
}

/* An ENUM whose choices come from a registry (the lock types): parsing,
 * errors and usage all read the function, not a copy of the list. */
static const char *registry_names(void) { return "spin,mcs,ticket"; }
static const nm_opt from_registry[] = {
	{.name = "lock", .shortc = 'L', .type = NM_OPT_ENUM, .def = "mcs", .flags = NM_OPT_LIST,
	 .help = "lock type", .choices_fn = registry_names},
	NM_OPT_END,
};

static void test_choices_fn(void)
{
	const nm_opt *const t[] = {from_registry, NULL};
	char *argv[] = {"--lock", "spin,ticket"};
	json_t *s = nm_opt_parse(t, NULL, NULL, 2, argv, err, sizeof err);
	CHECK(s && json_array_size(json_object_get(s, "lock")) == 2, "registry enum: a list of registered names");
	json_decref(s);
	char *bad[] = {"--lock", "bakery"};
	s = nm_opt_parse(t, NULL, NULL, 2, bad, err, sizeof err);
	CHECK(!s && strstr(err, "'bakery' is not one of spin, mcs, ticket"), "registry enum: error lists the registry (%s)",
	      err);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	nm_opt_usage(f, "netmem x", "x", t);
	fclose(f);
	CHECK(strstr(buf, "--lock=spin|mcs|ticket") != NULL, "registry enum: usage lists the registry");
	free(buf);
}

int main(void)
{
	/* Line-buffered, so a crash still shows the checks before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_defaults();
	test_cli_forms();
	test_sizes();
	test_lists();
	test_cli_errors();
	test_config();
	test_getters();
	test_usage();
	test_choices_fn();
	return tap_done();
}
