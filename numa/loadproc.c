#include "loadproc.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static json_t *read_line(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	json_t *j = NULL;
	if (getline(&line, &cap, f) > 0)
		j = json_loads(line, 0, NULL);
	free(line);
	return j;
}

static void reap(nm_loadproc *lp)
{
	if (lp->to_child >= 0)
		close(lp->to_child);
	if (lp->from_child)
		fclose(lp->from_child);
	lp->to_child = -1;
	lp->from_child = NULL;
	if (lp->pid > 0) {
		int st;
		while (waitpid(lp->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	lp->pid = 0;
	json_decref(lp->ready);
	lp->ready = NULL;
}

int nm_loadproc_start(nm_loadproc *lp, int threads, int node, int64_t buf_bytes, double write_ratio,
		      uint64_t seed, char *err, size_t errlen)
{
	memset(lp, 0, sizeof *lp);
	lp->to_child = -1;
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
	lp->from_child = fdopen(out[0], "r");
	if (rc != 0 || !lp->from_child) {
		snprintf(err, errlen, "numa-load: cannot start the load process: %s", strerror(rc ? rc : errno));
		if (!lp->from_child)
			close(out[0]);
		if (rc != 0)
			lp->pid = 0;
		reap(lp);
		return -1;
	}
	lp->ready = read_line(lp->from_child);
	if (!json_is_true(json_object_get(lp->ready, "ready"))) {
		snprintf(err, errlen, "numa-load: the load process (%d threads, node %s, %s bytes) did not "
			 "start (its message, if any, is above)", threads, a_node, a_buf);
		reap(lp);
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
	json_t *fin = read_line(lp->from_child);
	int st = 0;
	pid_t pid = lp->pid;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	lp->pid = 0;
	reap(lp);
	if (!json_is_object(fin) || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(err, errlen, "numa-load: the load process ended badly (%s %d)",
			 WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		json_decref(fin);
		return NULL;
	}
	return fin;
}
