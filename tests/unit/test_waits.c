/* Waits outside the collectives end within their deadline, with the line
 * naming rank, host, what was waited for and the point: the workers' join
 * with a blocked worker, the NUMA load process's lines from a silent child,
 * CoRM's mailbox answer from a thread that never serves, and a record that
 * stays torn. Each wait that could hang runs in a child process under a
 * bound, so a wait without a deadline fails its check instead of hanging
 * the suite.
 *
 * The load process is this binary itself: started as "netmem numa-load"
 * (loadproc.c spawns /proc/self/exe), it plays the child NM_TEST_CHILD
 * names. */
#include "boot.h"
#include "corm_mbox.h"
#include "loadproc.h"
#include "log.h"
#include "owned_var.h"
#include "tap.h"
#include "workers.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE 1.0
/* A wait that should end must end well before a hung one would be killed;
 * how soon it ends on a loaded host (a CI machine beside a busy loop, under
 * ASan) is not this test's business: the bounds below only tell "ended"
 * from "hung". A child that should succeed gets a deadline it never meets
 * by accident (its exec alone can take most of a second there). */
#define HANG_S 120.0
#define SLACK_S 30.0
#define GENEROUS 60.0

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&d, NULL);
}

/* What a bounded child did: its exit status (-1: killed at the bound), how
 * long it ran and what it printed on stderr. */
typedef struct outcome {
	int status;
	double secs;
	char err[2048];
} outcome;

/* Runs fn in a child process, killed after `bound` seconds with whatever it
 * started (its process group: a load process it spawned would otherwise
 * hold the stderr pipe open); the child exits with fn's return value unless
 * it ends the job itself first. */
static outcome bounded(int (*fn)(void *), void *arg, double bound)
{
	outcome o = {.status = -1};
	int pfd[2];
	if (pipe(pfd) != 0)
		return o;
	fflush(stdout);
	fflush(stderr);
	double t0 = mono_s();
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(pfd[0]);
		dup2(pfd[1], 2);
		nm_boot_set_where("point 1/1 {\"test\":1}");
		nm_boot_set_deadline(DEADLINE);
		int rc = fn(arg);
		fflush(stderr);
		_exit(rc);
	}
	close(pfd[1]);
	setpgid(pid, pid);   /* whichever of the two runs first */
	int st = 0;
	bool done = false;
	while (!done && mono_s() - t0 < bound) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		done = r == pid;
		if (!done)
			nap_ms(10);
	}
	kill(-pid, SIGKILL);
	if (!done)
		waitpid(pid, &st, 0);
	o.secs = mono_s() - t0;
	size_t n = 0;
	ssize_t k;
	while (n < sizeof o.err - 1 && (k = read(pfd[0], o.err + n, sizeof o.err - 1 - n)) > 0)
		n += (size_t)k;
	while (n > 0 && o.err[n - 1] == '\n')
		n--;
	o.err[n] = 0;
	close(pfd[0]);
	o.status = done && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return o;
}

/* The line of a stalled wait: rank 0, its host, what it waited at, the
 * point, and the common tail. */
static bool stall_line(const outcome *o, const char *what, const char *why)
{
	char host[256] = "?", head[512];
	gethostname(host, sizeof host);
	host[sizeof host - 1] = 0;
	snprintf(head, sizeof head, "netmem: rank 0 (%s) waited ", host);
	return strstr(o->err, head) && strstr(o->err, what) && strstr(o->err, why) &&
	       strstr(o->err, " during point 1/1 {\"test\":1}: ") &&
	       strstr(o->err, "; ending the job (finished points are saved)");
}

/* ---- the workers' join ---- */

static int never_fd[2];   /* nobody writes: a read of it blocks for ever */

static void body_blocked(nm_worker *w)
{
	char c;
	if (w->index == 1)
		while (read(never_fd[0], &c, 1) < 0 && errno == EINTR)
			;
}

/* Busy for three deadlines: spinning, or in short naps; neither is stuck. */
static void body_busy(nm_worker *w)
{
	double until = mono_s() + 3 * DEADLINE;
	while (mono_s() < until)
		if (w->index == 1)
			nap_ms(1);
}

static int run_round(void *body)
{
	nm_round r = {.workers = 2, .numa_node = -1, .body = (void (*)(nm_worker *))body};
	nm_workers_run(&r);
	return 0;
}

static void test_join(void)
{
	if (pipe(never_fd) != 0)
		return;
	outcome o = bounded(run_round, (void *)body_blocked, HANG_S);
	CHECK(o.status == NM_EXIT_FAIL && o.secs < 4 * DEADLINE + SLACK_S,
	      "a worker blocked for good ends the job within the deadline (exit %d after %.1f s)", o.status, o.secs);
	CHECK(stall_line(&o, "at worker threads", "worker thread 1 of 2") && strstr(o.err, "used no CPU"),
	      "... in one line naming the rank, its host, the worker and the point: %s", o.err);
	o = bounded(run_round, (void *)body_busy, HANG_S);
	CHECK(o.status == 0 && !o.err[0],
	      "workers that spin or nap for three deadlines are not stuck (exit %d after %.1f s) %s", o.status, o.secs,
	      o.err);
	close(never_fd[0]);
	close(never_fd[1]);
}

/* ---- the NUMA load process ---- */

/* The child's part (this binary, run as "netmem numa-load ..."). */
static int child_main(void)
{
	const char *mode = getenv("NM_TEST_CHILD");
	if (!mode || !strcmp(mode, "silent")) {
		sleep(600);
		return 0;
	}
	printf("{\"ready\": true}\n");
	fflush(stdout);
	if (!strcmp(mode, "mute-at-stop")) {
		sleep(600);   /* does not notice its stdin close */
		return 0;
	}
	char buf[64];
	while (read(0, buf, sizeof buf) > 0)
		;
	printf("{\"ops\": 7}\n");
	return 0;
}

static int start_child(void *mode)
{
	setenv("NM_TEST_CHILD", mode, 1);
	nm_loadproc lp;
	char err[512];
	double t0 = mono_s();
	int rc = nm_loadproc_start(&lp, 1, -1, 4096, 0, 1, strcmp(mode, "good") ? DEADLINE : GENEROUS, err, sizeof err);
	if (!strcmp(mode, "silent")) {
		/* the child is gone: killed and reaped */
		bool gone = rc != 0 && lp.pid == 0 && (lp.timed_out && lp.waited >= DEADLINE);
		fprintf(stderr, "start: %s (%.1f s)\n", err, mono_s() - t0);
		return gone ? 10 : 11;
	}
	if (rc != 0)
		return 12;
	pid_t pid = lp.pid;
	json_t *fin = nm_loadproc_stop(&lp, err, sizeof err);
	bool reaped = waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD;
	if (!strcmp(mode, "mute-at-stop")) {
		fprintf(stderr, "stop: %s\n", err);
		return !fin && lp.timed_out && reaped ? 20 : 21;
	}
	int ok = json_integer_value(json_object_get(fin, "ops")) == 7 && !lp.timed_out && reaped;
	json_decref(fin);
	return ok ? 30 : 31;
}

static void test_loadproc(void)
{
	outcome o = bounded(start_child, "silent", HANG_S);
	CHECK(o.status == 10 && o.secs < 4 * DEADLINE + SLACK_S,
	      "a load process that prints no ready line is killed after the deadline (exit %d after %.1f s)",
	      o.status, o.secs);
	CHECK(strstr(o.err, "printed no ready line") != NULL, "... and the error says so: %s", o.err);
	o = bounded(start_child, "mute-at-stop", HANG_S);
	CHECK(o.status == 20 && o.secs < 6 * DEADLINE + SLACK_S,
	      "one that never prints its result is killed after the deadline (exit %d after %.1f s): %s", o.status,
	      o.secs, o.err);
	o = bounded(start_child, "good", HANG_S);
	CHECK(o.status == 30, "a well-behaved one: ready, then its result at stop (exit %d) %s", o.status, o.err);
}

/* ---- CoRM's mailbox ---- */

static void noop(cmem_msg *m) { (void)m; }

static int ask_unserved(void *arg)
{
	(void)arg;
	cmem_mbox b;
	cmem_mbox_init(&b);
	cmem_mbox_open(&b);   /* open, but its thread never serves it */
	cmem_msg m = {.fn = noop};
	if (!cmem_mbox_post(&b, &m))
		return 2;
	double waited = 0;
	bool done = cmem_msg_wait(&m, &b, NULL, DEADLINE, &waited);
	return !done && waited >= DEADLINE ? 10 : 11;
}

/* The compactor's way: busy for three deadlines, saying so, then it closes
 * its mailbox, which runs what was posted. */
typedef struct busy_owner {
	cmem_mbox *b;
} busy_owner;

static void *beat_then_close(void *arg)
{
	busy_owner *o = arg;
	for (double until = mono_s() + 3 * DEADLINE; mono_s() < until;) {
		cmem_mbox_beat(o->b);
		nap_ms(20);
	}
	cmem_mbox_close(o->b);
	return NULL;
}

static int ask_busy(void *arg)
{
	(void)arg;
	cmem_mbox b;
	cmem_mbox_init(&b);
	cmem_mbox_open(&b);
	cmem_msg m = {.fn = noop};
	if (!cmem_mbox_post(&b, &m))
		return 2;
	busy_owner o = {&b};
	pthread_t t;
	if (pthread_create(&t, NULL, beat_then_close, &o))
		return 3;
	double waited = 0;
	bool done = cmem_msg_wait(&m, &b, NULL, DEADLINE, &waited);
	pthread_join(t, NULL);
	return done ? 20 : 21;
}

static void test_mbox(void)
{
	outcome o = bounded(ask_unserved, NULL, HANG_S);
	CHECK(o.status == 10 && o.secs < 4 * DEADLINE + SLACK_S,
	      "a wait on a mailbox nobody serves gives up after the deadline (exit %d after %.1f s)", o.status, o.secs);
	o = bounded(ask_busy, NULL, HANG_S);
	CHECK(o.status == 20, "... but not while its owner says it is busy, past the deadline (exit %d after %.1f s)",
	      o.status, o.secs);
}

/* ---- a torn owned_var record ---- */

enum { REC = 24 };
static uint64_t mem[64];

static void rec_init(nm_ov *v, nm_mr *mr)
{
	*mr = (nm_mr){.buf = mem, .len = sizeof mem};
	uint8_t val[REC] = {1, 2, 3};
	nm_ov_init(v, mr, 0, REC, 0, 0, val);
}

static int load_torn(void *arg)
{
	(void)arg;
	nm_ov v;
	nm_mr mr;
	rec_init(&v, &mr);
	mem[0] ^= 1;   /* the value no longer matches its checksum */
	uint8_t out[REC];
	uint64_t retries = 0;
	double waited = 0;
	bool ok = nm_ov_load_wait(&v, &mr, out, DEADLINE, &retries, &waited);
	return !ok && retries > 0 && waited >= DEADLINE ? 10 : 11;
}

/* A writer that keeps placing values (the checksum word moves) for three
 * deadlines, then a whole one. */
static void *writer(void *arg)
{
	nm_ov *v = arg;
	for (double until = mono_s() + 3 * DEADLINE; mono_s() < until;) {
		__atomic_fetch_add(&mem[REC / 8], 1, __ATOMIC_RELAXED);
		nap_ms(20);
	}
	nm_mr mr = {.buf = mem, .len = sizeof mem};
	uint8_t val[REC] = {4, 5, 6};
	nm_ov_store(v, &mr, val);
	return NULL;
}

static int load_rewritten(void *arg)
{
	(void)arg;
	nm_ov v;
	nm_mr mr;
	rec_init(&v, &mr);
	mem[0] ^= 1;
	pthread_t t;
	if (pthread_create(&t, NULL, writer, &v))
		return 2;
	uint8_t out[REC];
	uint64_t retries = 0;
	double waited = 0;
	bool ok = nm_ov_load_wait(&v, &mr, out, DEADLINE, &retries, &waited);
	pthread_join(t, NULL);
	return ok && out[0] == 4 && retries > 0 ? 20 : 21;
}

static void test_torn(void)
{
	outcome o = bounded(load_torn, NULL, HANG_S);
	CHECK(o.status == 10 && o.secs < 4 * DEADLINE + SLACK_S,
	      "a record that stays torn gives up after the deadline (exit %d after %.1f s)", o.status, o.secs);
	o = bounded(load_rewritten, NULL, HANG_S);
	CHECK(o.status == 20,
	      "... but not while its writer keeps placing values, past the deadline (exit %d after %.1f s)", o.status,
	      o.secs);
}

/* ---- nm_stalled ---- */

static int stall_now(void *arg)
{
	(void)arg;
	nm_stalled("a thing", 12.4, "it said nothing for %d s", 12);
}

static void test_stalled(void)
{
	outcome o = bounded(stall_now, NULL, 5);
	CHECK(o.status == NM_EXIT_FAIL && stall_line(&o, "waited 12 s at a thing", ": it said nothing for 12 s;"),
	      "nm_stalled: one line, exit %d: %s", o.status, o.err);
}

/* Which waits yield: the busy threads of the ranks on one host against its
 * CPUs (this process alone: its own count against its CPUs). */
static void test_oversubscribed(void)
{
	const uint64_t host[] = {7, 9, 7, 7};
	const int busy[] = {1, 2, 3, 4};
	CHECK(nm_host_sum(host, busy, 4, 0) == 8 && nm_host_sum(host, busy, 4, 3) == 8 &&
		      nm_host_sum(host, busy, 4, 1) == 2 && nm_host_sum(host, busy, 3, 3) == 4 &&
		      nm_host_sum(host, busy, 0, 0) == 0,
	      "nm_host_sum: the ranks of one host only (8, 8, 2); before rank 3 there, 4; before rank 0, none");
	/* bound threads (numa-kv's placements): only the ranks of one host
	 * whose CPUs overlap count, against the CPUs of them all */
	cpu_set_t sets[5];
	const int on[5][2] = {{0, -1}, {0, -1}, {1, -1}, {0, -1}, {0, 1}};
	for (int r = 0; r < 5; r++) {
		CPU_ZERO(&sets[r]);
		for (int k = 0; k < 2; k++)
			if (on[r][k] >= 0)
				CPU_SET(on[r][k], &sets[r]);
	}
	const uint64_t hosts[] = {7, 7, 7, 9, 7};
	const int nbusy[] = {2, 1, 1, 5, 1};
	int c0, c2, c3, c4, c1;
	int s0 = nm_host_contenders(hosts, nbusy, sets, 4, 0, &c0), s2 = nm_host_contenders(hosts, nbusy, sets, 4, 2, &c2),
	    s3 = nm_host_contenders(hosts, nbusy, sets, 4, 3, &c3), s4 = nm_host_contenders(hosts, nbusy, sets, 5, 4, &c4),
	    s1 = nm_host_contenders(hosts, nbusy, sets, 5, 1, &c1);
	CHECK(s0 == 3 && c0 == 1 && s2 == 1 && c2 == 1 && s3 == 5 && c3 == 1,
	      "nm_host_contenders: two ranks bound to CPU 0 (3 threads on 1 CPU), one to CPU 1 apart (1 on 1), "
	      "another host's rank on its CPU 0 apart (5 on 1): %d/%d %d/%d %d/%d", s0, c0, s2, c2, s3, c3);
	CHECK(s4 == 5 && c4 == 2 && s1 == 4 && c1 == 2,
	      "nm_host_contenders: a rank on CPUs 0-1 meets every rank of its host (5 on 2), and a rank on CPU 0 "
	      "meets it too (4 on 2): %d/%d %d/%d", s4, c4, s1, c1);
	int b = 0, cpus = 0;
	bool over1 = nm_host_oversubscribed(1, &b, &cpus);
	CHECK(b == 1 && cpus >= 1 && !over1, "one busy thread on %d CPU(s): not oversubscribed", cpus);
	bool over = nm_host_oversubscribed(cpus + 1, &b, NULL);
	CHECK(b == cpus + 1 && over, "%d busy threads on %d CPU(s): oversubscribed", b, cpus);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "numa-load"))
		return child_main();
	test_stalled();
	test_join();
	test_loadproc();
	test_mbox();
	test_torn();
	test_oversubscribed();
	return tap_done();
}
