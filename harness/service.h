/* Real server processes a workload starts and stops (redis-server for
 * netmem kv's Redis baseline): the suite starts them, waits until they
 * accept connections, stops them when the point ends, and cleans them up
 * even when the point or the job fails.
 *
 * Each service runs in a private directory made for it (mkdtemp under
 * $TMPDIR or /tmp), its working directory, which holds its log (stdout and
 * stderr) and whatever files it writes; stopping it removes the directory.
 *
 * Nothing outlives the job: every running service is in a registry that is
 * emptied (SIGKILL, reaped, directories removed) on every way out of the
 * process the suite controls: the job's early end (nm_boot_on_exit: a
 * collective error check, nm_fatal on any thread, a stalled rank), exit()
 * (atexit), and SIGTERM, SIGINT and SIGHUP (mpirun ends the other ranks of an
 * aborted job with SIGTERM). A rank killed with SIGKILL runs none of these:
 * the child was started with PR_SET_PDEATHSIG = SIGKILL, so the kernel kills
 * it with its parent (only its directory stays behind then).
 *
 * Start, wait and stop are for the main thread; nm_service_kill_all may run
 * anywhere, signal handlers included. */
#ifndef NM_SERVICE_H
#define NM_SERVICE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct nm_service {
	pid_t pid;               /* 0: not running */
	int slot;                /* in the registry */
	char name[64];           /* for messages: "redis-server :7379" */
	char bin[PATH_MAX];      /* the executable, resolved */
	char dir[1024];          /* its private directory (working directory) */
	char log[1040];          /* dir/log: its stdout and stderr */
	int status;              /* wait status once it exited */
} nm_service;

/* The executable `bin` names: a path (with a '/'), or searched in $PATH.
 * Returns 0 with the path in out, or -1 with one line in err. */
int nm_service_find(const char *bin, char *out, size_t outlen, char *err, size_t errlen);

/* A file the service reads at start (its configuration), written into its
 * directory before it starts, readable by this user only (mode 0600, in a
 * directory of mode 0700): what must not appear on a command line, which
 * every user of the host can read (ps). */
typedef struct nm_service_file {
	const char *name;        /* relative to the directory */
	const char *text;
} nm_service_file;

/* Starts argv (argv[0]: the executable's path, as nm_service_find gives it)
 * in a new private directory whose name starts with `tag`, with `file` there
 * first (NULL: none); `name` is for messages. Returns 0, or -1 with one line
 * in err (nothing left running). */
int nm_service_start(nm_service *s, const char *tag, const char *name, char *const argv[],
		     const nm_service_file *file, char *err, size_t errlen);

/* Waits until host:port accepts a TCP connection, at most timeout seconds.
 * Returns 0, or -1 with one line in err naming the executable, the port and
 * the last lines of its log (it exited, or the deadline passed). */
int nm_service_wait_port(nm_service *s, const char *host, int port, double timeout, char *err, size_t errlen);

/* Waits until the service creates the file `name` in its directory (its
 * working directory), its way of saying it is ready, at most timeout
 * seconds. Returns 0, or -1 with one line in err as nm_service_wait_port. */
int nm_service_wait_file(nm_service *s, const char *name, double timeout, char *err, size_t errlen);

/* Whether something already accepts connections on host:port. */
bool nm_port_accepts(const char *host, int port);

/* The last lines of the service's log, joined by " | ", at most len bytes. */
void nm_service_log_tail(const nm_service *s, int lines, char *out, size_t len);

/* Asks it to stop (SIGTERM) without waiting: stop several at once, then
 * nm_service_stop each. */
void nm_service_term(nm_service *s);
/* SIGTERM, then SIGKILL after `grace` seconds; reaps it and removes its
 * directory. Returns whether it stopped on SIGTERM. Idempotent. */
bool nm_service_stop(nm_service *s, double grace);

/* Every registered service: SIGKILL, reaped (briefly), directories removed.
 * Async-signal-safe. */
void nm_service_kill_all(void);
/* Services running now (the registry's count). */
int nm_service_count(void);
#endif
