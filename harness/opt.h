/* Options, shared by the command line and JSON configs (as in fio, a job file
 * and flags set the same things). Each experiment declares a table of nm_opt;
 * the harness adds its own common options (device, QP attributes, output...).
 *
 * A parsed specification is a JSON object mapping each option's key (its long
 * name with '-' turned into '_') to a value. Options flagged NM_OPT_LIST may
 * hold an array: each array is a sweep axis, and the points of a run are the
 * cartesian product of the axes (see points.h).
 *
 * Value syntax, on the command line and in JSON strings alike:
 *   int/size  "64", "4k", "1M" (size suffixes k, M, G are powers of 1024)
 *   lists     "8,64,4k" or a power-of-two range "2..8M" (LIST options only)
 *   bool      "1/0", "true/false", "yes/no"; a bare flag means true
 *   enum      one of the declared choices; lists allowed for LIST options */
#ifndef NM_OPT_H
#define NM_OPT_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	NM_OPT_INT,    /* int64 within [min, max] */
	NM_OPT_SIZE,   /* like INT, accepts k/M/G suffixes */
	NM_OPT_DOUBLE, /* real within [min, max] */
	NM_OPT_BOOL,
	NM_OPT_STR,
	NM_OPT_ENUM,   /* string from `choices` (comma separated) */
	NM_OPT_ALIAS,  /* flag that sets option `alias_of` to `alias_value` */
} nm_opt_type;

#define NM_OPT_LIST 1u  /* may be swept: a list on the command line, an array in JSON */
/* How a job runs, not what it measures (where it writes, the hang timeout):
 * taken out of the spec (nm_opt_take_run), so it is neither in a document's
 * identity nor in its point keys, and --resume may change it. */
#define NM_OPT_RUN 2u

typedef struct nm_opt {
	const char *name;     /* long name: --name on the command line */
	char shortc;          /* 0 when none */
	nm_opt_type type;
	const char *def;      /* default in command-line syntax; NULL = null (unset) */
	double min, max;      /* bounds for INT/SIZE/DOUBLE (inclusive) */
	const char *choices;  /* ENUM: "read,write,cas,faa" */
	unsigned flags;
	const char *help;
	const char *alias_of, *alias_value;
	/* ENUM whose choices come from a registry (the lock types): called
	 * instead of reading `choices`. */
	const char *(*choices_fn)(void);
} nm_opt;

/* Option tables end with an entry whose name is NULL. */
#define NM_OPT_END {0}
/* --inject: a fault the workload's own checks must catch, so that a test can
 * see them fail; VALUES starts with "none", the default of every real run. */
#define NM_OPT_INJECT(values, help) {"inject", 0, NM_OPT_ENUM, "none", 0, 0, values, 0, help}

/* The JSON key of an option ("tx-depth" -> "tx_depth"), in a static buffer
 * owned by the caller (at least 64 bytes). */
void nm_opt_key(const nm_opt *o, char *key, size_t len);

/* Builds the specification from defaults, then `config_params` (may be NULL;
 * a JSON object, keys checked, `where` names it in errors, e.g. "job.json:
 * params"), then argv (flags only; argv[0] is not skipped: pass argv+1).
 * tables: NULL-terminated array of option tables (experiment's + harness's).
 * On error returns NULL and writes one line into err. */
json_t *nm_opt_parse(const nm_opt *const *tables, json_t *config_params,
		     const char *where, int argc, char **argv, char *err, size_t errlen);

/* Moves the NM_OPT_RUN options out of spec into a new object (keys as in
 * spec), to release. */
json_t *nm_opt_take_run(const nm_opt *const *tables, json_t *spec);

/* Prints usage for the tables. */
void nm_opt_usage(FILE *out, const char *cmd, const char *summary,
		  const nm_opt *const *tables);

/* Typed getters on a point (scalar values); abort on a missing key, which is
 * a programming error, not bad input. */
/* Whether argv[1..] asks for help (-h or --help anywhere). */
bool nm_opt_wants_help(int argc, char **argv);

int64_t nm_cfg_int(const json_t *cfg, const char *key);
double nm_cfg_double(const json_t *cfg, const char *key);
int nm_cfg_bool(const json_t *cfg, const char *key);
const char *nm_cfg_str(const json_t *cfg, const char *key); /* "" when null */

/* Parses a size/int in command-line syntax; 0 on success. */
int nm_parse_size(const char *s, int64_t *out);
#endif
