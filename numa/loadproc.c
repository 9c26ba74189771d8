#include "loadproc.h"
#include "boot.h"
#include "stall.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits are sliced this finely: the rank stays alive for its peers and
 * notices the deadline at most this late. */
#define SLICE_MS 100

/* One line from the child, parsed; NULL at end of file, on a read error or
 * when it printed nothing (no byte) for lp->deadline seconds (timed_out).
 * Reads the pipe itself, not through stdio, so a wait can be bounded. */
static json_t *read_line(nm_loadproc *lp)
{
	nm_wait w;
	uint64_t got = 0;
	nm_wait_start(&w, mono_s(), lp->deadline, got);
	lp->timed_out = false;
	for (;;) {
		char *nl = lp->in_len ? memchr(lp->in, '\n', lp->in_len) : NULL;
		if (nl) {
			*nl = 0;
			json_t *j = json_loads(lp->in, 0, NULL);
			size_t used = (size_t)(nl - lp->in) + 1;
			memmove(lp->in, lp->in + used, lp->in_len - used);
			lp->in_len -= used;
			return j;
		}
		double now = mono_s();
		if (nm_wait_expired(&w, now, got)) {
			lp->timed_out = true;
			lp->waited = now - w.t0;
			return NULL;
		}
		nm_boot_alive();
		struct pollfd p = {.fd = lp->from_child, .events = POLLIN};
		int r = poll(&p, 1, SLICE_MS);
		if (r < 0 && errno != EINTR)
			return NULL;
		if (r <= 0)
			continue;
		if (lp->in_cap - lp->in_len < 4096) {
			size_t cap = lp->in_cap ? lp->in_cap * 2 : 8192;
			char *in = realloc(lp->in, cap);
			if (!in)
				return NULL;
			lp->in = in;
			lp->in_cap = cap;
		}
		/* one byte short of the buffer: room for the terminator above */
		ssize_t n = read(lp->from_child, lp->in + lp->in_len, lp->in_cap - lp->in_len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		lp->in_len += (size_t)n;
		got += (uint64_t)n;
	}
}

/* Waits for the child to exit, at most lp->deadline seconds; then it is
 * killed. Returns its status, and whether it had to be killed. */
static int wait_child(nm_loadproc *lp, bool *killed)
{
	int st = 0;
	*killed = false;
	for (double until = mono_s() + lp->deadline;;) {
		pid_t r = waitpid(lp->pid, &st, WNOHANG);
		if (r == lp->pid || (r < 0 && errno != EINTR))
			return st;
		if (mono_s() > until)
			break;
		nm_boot_alive();
		struct timespec d = {0, 10 * 1000 * 1000};
		nanosleep(&d, NULL);
	}
	*killed = true;
	kill(lp->pid, SIGKILL);
	while (waitpid(lp->pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Closes the pipes and ends the child: it stops at end of file on its stdin;
 * one that does not within the deadline is killed. */
static void reap(nm_loadproc *lp)
{
	if (lp->to_child >= 0)
		close(lp->to_child);
	if (lp->from_child >= 0)
		close(lp->from_child);
	lp->to_child = lp->from_child = -1;
	if (lp->pid > 0) {
		bool killed;
		wait_child(lp, &killed);
	}
	lp->pid = 0;
	free(lp->in);
	lp->in = NULL;
	lp->in_len = lp->in_cap = 0;
	json_decref(lp->ready);
	lp->ready = NULL;
}

int nm_loadproc_start(nm_loadproc *lp, int threads, int node, int64_t buf_bytes, double write_ratio,
		      uint64_t seed, double deadline, char *err, size_t errlen)
{
	memset(lp, 0, sizeof *lp);
	lp->to_child = lp->from_child = -1;
	lp->deadline = deadline > 0 ? deadline : 60;
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "numa-load: pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(out, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "numa-load: pipe: %s", strerror(errno));
		close(in[0]);
		close(in[1]);
		return -1;
	}
	char a_threads[32], a_node[32], a_buf[32], a_mix[32], a_seed[32];
	snprintf(a_threads, sizeof a_threads, "%d", threads);
	if (node >= 0)
		snprintf(a_node, sizeof a_node, "%d", node);
	else
		snprintf(a_node, sizeof a_node, "any");
	snprintf(a_buf, sizeof a_buf, "%" PRId64, buf_bytes);
	snprintf(a_mix, sizeof a_mix, "%.17g", write_ratio);
	snprintf(a_seed, sizeof a_seed, "%" PRIu64, seed);
	char *argv[] = {"netmem", "numa-load", "--threads", a_threads, "--node", a_node, "--buf", a_buf,
			"--mix", a_mix, "--seed", a_seed, "--lines", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	int rc = posix_spawn(&lp->pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	lp->to_child = in[1];
	lp->from_child = out[0];
	if (rc != 0) {
		snprintf(err, errlen, "numa-load: cannot start the load process: %s", strerror(rc));
		lp->pid = 0;
		reap(lp);
		return -1;
	}
	lp->ready = read_line(lp);
	if (!json_is_true(json_object_get(lp->ready, "ready"))) {
		pid_t pid = lp->pid;
		bool silent = lp->timed_out;
		double waited = lp->waited;
		if (silent) {
			/* it will not stop at end of file in time either */
			kill(pid, SIGKILL);
			snprintf(err, errlen, "the load process (pid %d: %d threads, node %s, %s bytes) printed no "
				 "ready line for %.0f s; it was killed", (int)pid, threads, a_node, a_buf, waited);
		} else {
			snprintf(err, errlen, "numa-load: the load process (%d threads, node %s, %s bytes) did "
				 "not start (its message, if any, is above)", threads, a_node, a_buf);
		}
		reap(lp);
		lp->timed_out = silent;
		lp->waited = waited;
		return -1;
	}
	return 0;
}

json_t *nm_loadproc_stop(nm_loadproc *lp, char *err, size_t errlen)
{
	if (lp->pid <= 0)
		return NULL;
	close(lp->to_child);
	lp->to_child = -1;
	json_t *fin = read_line(lp);
	bool silent = lp->timed_out, killed = false;
	double waited = lp->waited;
	pid_t pid = lp->pid;
	if (silent)
		kill(pid, SIGKILL);
	int st = wait_child(lp, &killed);
	lp->pid = 0;
	reap(lp);
	lp->timed_out = silent || killed;
	lp->waited = silent ? waited : lp->deadline;
	if (lp->timed_out) {
		snprintf(err, errlen, "the load process (pid %d) %s for %.0f s after it was told to stop; it was "
			 "killed", (int)pid, silent ? "printed no result" : "did not exit", lp->waited);
		json_decref(fin);
		return NULL;
	}
	if (!json_is_object(fin) || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(err, errlen, "numa-load: the load process ended badly (%s %d)",
			 WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		json_decref(fin);
		return NULL;
	}
	return fin;
}
