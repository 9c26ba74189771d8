/* A config file's schema (configs/<scale>/NAME.json), checked in one place:
 * `netmem run` reads every config through it, and `netmem run --check
 * CONFIG...` lists every problem of each config (its plots included)
 * without starting a job, which is what tests/cli/test_configs.sh calls.
 *
 *   {"experiment": "ops", "description": "...", "ranks": 2, "numa": false,
 *    "odp": false, "hosts": [1, 1], "params": {...},
 *    "plots": [{"script": "ops_latency", "figure": "ops-lat",
 *               "inputs": {"base": "other-config", "in": ["a", "b-*"]}}]}
 *
 * "ranks", "hosts", "numa", "odp" and "plots" are for run_all.sh (how many
 * ranks, on which hosts, which guests, which figures); a job checks them and
 * ignores them. */
#ifndef NM_CONFIG_H
#define NM_CONFIG_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Called once per problem found, with one line that names it. */
typedef void (*nm_config_say)(void *arg, const char *problem);

/* The problems of a parsed config: its keys and their types, the
 * experiment's name (it must name an experiment that runs as a job), and
 * each plot's keys and names. With `files`, also what the plots point at:
 * plots/SCRIPT.gp (from the current directory) and every input's config
 * next to `path` (a trailing * matches any suffix). Returns the count. */
int nm_config_problems(const json_t *cfg, const char *path, bool files, nm_config_say say, void *arg);

/* The most bytes a config file may hold: far above any real config (a few
 * KB), low enough that a wrong file is refused before it fills memory. */
#define NM_CONFIG_MAX_BYTES (1 << 20)
/* The rank count run --check decodes a config without "ranks" or "hosts"
 * for: run_all.sh's default --np. */
#define NM_CONFIG_CHECK_NP 2

/* A config file's whole text (malloc'd), or NULL with "PATH: why" in err:
 * a regular file (not a FIFO or a device, which could block or never end)
 * of at most NM_CONFIG_MAX_BYTES, holding no NUL byte (text after one
 * would be silently ignored). */
char *nm_read_text_file(const char *path, char *err, size_t errlen);
/* A config's text parsed (a key given twice in one object is refused) and
 * its schema checked (without the files its plots name): the config, or
 * NULL with its first problem in err. What `netmem run` and `netmem
 * preflight` read configs with. */
json_t *nm_config_parse(const char *text, const char *path, char *err, size_t errlen);

/* `netmem run --check CONFIG...`: every problem of the schema as "CONFIG:
 * problem" on stdout; a config without one is then decoded as `netmem run`
 * decodes it, without a device (its options, its sweep, every point, for
 * each rank count it runs with: nm_point_decode on the hosts run_all.sh
 * would place its ranks on, one rank per host unless it says otherwise),
 * and its first problem there is listed too. 0 when there is none, 2
 * otherwise. */
int nm_config_check_main(int argc, char **argv);
#endif
