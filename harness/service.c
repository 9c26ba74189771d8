/* Server processes started and stopped by the suite (service.h). */
#include "clock.h"
#include "service.h"
#include "fds.h"
#include "boot.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the registry --------------------------------------------------------- */

/* What the cleanup needs, in fixed storage so that a signal handler can use
 * it: the pid (claimed by whoever reaps it, with an atomic exchange) and the
 * directory to remove. Slots are taken and filled by the main thread. */
enum { REG_MAX = 256 };
static struct {
	_Atomic pid_t pid;
	char dir[1024];
} reg[REG_MAX];
static atomic_int reg_used;

static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP};
static struct sigaction old_action[sizeof cleanup_signals / sizeof *cleanup_signals];

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Removes dir's files, then dir: raw getdents64 and unlinkat, no malloc, so
 * that a signal handler may call it. Subdirectories are not expected. */
static void rm_dir(const char *dir)
{
	if (!dir[0])
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[4096] __attribute__((aligned(8)));
		long n;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
			for (long off = 0; off < n;) {
				/* struct linux_dirent64: ino(8) off(8) reclen(2) type(1) name */
				unsigned short reclen;
				memcpy(&reclen, buf + off + 16, sizeof reclen);
				const char *name = buf + off + 19;
				if (strcmp(name, ".") && strcmp(name, ".."))
					unlinkat(fd, name, 0);
				off += reclen;
			}
		}
		close(fd);
	}
	rmdir(dir);
}

/* Waits up to about two seconds for pid to be reaped (a SIGKILLed process
 * goes at once unless stuck in the kernel; the bound keeps a signal handler
 * from hanging on one). */
static void reap_bounded(pid_t pid)
{
	for (int i = 0; i < 400; i++) {
		pid_t r = waitpid(pid, NULL, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return;
		nm_nap_ns(5 * 1000000u);
	}
}

void nm_service_kill_all(void)
{
	int saved = errno;
	/* First every SIGKILL, then the waits: the servers die together. */
	for (int i = 0; i < REG_MAX; i++) {
		pid_t pid = atomic_load(&reg[i].pid);
		if (pid > 0)
			kill(pid, SIGKILL);
	}
	for (int i = 0; i < REG_MAX; i++) {
		pid_t pid = atomic_exchange(&reg[i].pid, 0);
		if (pid <= 0)
			continue;
		reap_bounded(pid);
		rm_dir(reg[i].dir);
		atomic_fetch_sub(&reg_used, 1);
	}
	errno = saved;
}

int nm_service_count(void) { return atomic_load(&reg_used); }

/* SIGTERM, SIGINT, SIGHUP: the servers go first, then the signal takes its
 * course (the previous handler, or the default action). */
static void on_signal(int sig)
{
	nm_service_kill_all();
	for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
		if (cleanup_signals[i] != sig)
			continue;
		const struct sigaction *o = &old_action[i];
		if (!(o->sa_flags & SA_SIGINFO) && o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
			o->sa_handler(sig);
			return;
		}
		sigaction(sig, o, NULL);
		raise(sig);
	}
}

static void install_cleanup(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	atexit(nm_service_kill_all);
	nm_boot_on_exit(nm_service_kill_all);
	for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
		struct sigaction sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, &old_action[i]);
	}
}

static int reg_take(const char *dir)
{
	for (int i = 0; i < REG_MAX; i++)
		if (atomic_load(&reg[i].pid) == 0 && !reg[i].dir[0]) {
			snprintf(reg[i].dir, sizeof reg[i].dir, "%s", dir);
			return i;
		}
	return -1;
}

/* The service is gone (reaped by us): its slot and directory go too. Returns
 * false when a cleanup had claimed it already. */
static bool reg_release(nm_service *s)
{
	bool mine = atomic_exchange(&reg[s->slot].pid, 0) > 0;
	if (mine) {
		rm_dir(reg[s->slot].dir);
		atomic_fetch_sub(&reg_used, 1);
	}
	reg[s->slot].dir[0] = 0;
	s->pid = 0;
	return mine;
}

/* ---- starting ------------------------------------------------------------- */

int nm_service_find(const char *bin, char *out, size_t outlen, char *err, size_t errlen)
{
	if (strchr(bin, '/')) {
		if (access(bin, X_OK) == 0) {
			snprintf(out, outlen, "%s", bin);
			return 0;
		}
		snprintf(err, errlen, "%s: %s", bin, errno == ENOENT ? "no such file" : strerror(errno));
		return -1;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(out, outlen, "%.*s/%s", (int)n, n ? p : ".", bin);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	snprintf(err, errlen, "%s: not found in PATH", bin);
	return -1;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void child_exec(char *const argv[], const char *dir, int logfd, int nullfd, pid_t parent)
{
	/* Second line of defence: the kernel kills the server when the thread
	 * that forked it (the rank's main thread) dies, however it dies. The
	 * check closes the window in which the parent died before the prctl. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* SIG_IGN survives exec; the rank ignores SIGPIPE (its clients) and
	 * SIGXFSZ (main: a file-size limit fails a write instead). */
	static const int reset[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGXFSZ};
	for (size_t i = 0; i < sizeof reset / sizeof *reset; i++)
		signal(reset[i], SIG_DFL);
	dup2(nullfd, 0);
	dup2(logfd, 1);
	dup2(logfd, 2);
	/* The rank's sockets and device files stay with the rank. */
	nm_close_fds_from(3, 1024);
	if (chdir(dir) == 0)
		execv(argv[0], argv);
	static const char msg[] = "cannot execute the server (exec failed)\n";
	if (write(2, msg, sizeof msg - 1) < 0)
		_exit(127);
	_exit(127);
}

/* Writes file into dir with mode 0600; a file already there is an error
 * (O_EXCL: nothing planted in advance is followed or reused). */
static int write_private(const char *dir, const nm_service_file *file)
{
	char path[1300];
	snprintf(path, sizeof path, "%s/%s", dir, file->name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	size_t n = strlen(file->text), off = 0;
	while (off < n) {
		ssize_t w = write(fd, file->text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	int saved = errno;
	close(fd);
	errno = saved;
	return off == n ? 0 : -1;
}

int nm_service_start(nm_service *s, const char *tag, const char *name, char *const argv[],
		     const nm_service_file *file, char *err, size_t errlen)
{
	install_cleanup();
	*s = (nm_service){.slot = -1};
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->bin, sizeof s->bin, "%s", argv[0]);
	const char *tmp = getenv("TMPDIR");
	snprintf(s->dir, sizeof s->dir, "%s/%sXXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(s->dir)) {
		snprintf(err, errlen, "%s: cannot make its directory %s: %s", name, s->dir, strerror(errno));
		return -1;
	}
	snprintf(s->log, sizeof s->log, "%s/log", s->dir);
	s->slot = reg_take(s->dir);
	if (s->slot >= 0 && file && write_private(s->dir, file) != 0) {
		snprintf(err, errlen, "%s: cannot write %s/%s: %s", name, s->dir, file->name, strerror(errno));
		rm_dir(s->dir);
		reg[s->slot].dir[0] = 0;
		return -1;
	}
	int logfd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->slot < 0 || logfd < 0 || nullfd < 0) {
		snprintf(err, errlen, "%s: %s", name, s->slot < 0 ? "too many services" : strerror(errno));
		goto fail;
	}
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		child_exec(argv, s->dir, logfd, nullfd, parent);
	if (pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", name, strerror(errno));
		goto fail;
	}
	s->pid = pid;
	atomic_fetch_add(&reg_used, 1);
	atomic_store(&reg[s->slot].pid, pid);
	close(logfd);
	close(nullfd);
	return 0;
fail:
	if (logfd >= 0)
		close(logfd);
	if (nullfd >= 0)
		close(nullfd);
	rm_dir(s->dir);
	if (s->slot >= 0)
		reg[s->slot].dir[0] = 0;
	return -1;
}

/* ---- waiting -------------------------------------------------------------- */

bool nm_port_accepts(const char *host, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return false;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (!ok && errno == EINPROGRESS) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int e = 0;
		socklen_t el = sizeof e;
		ok = poll(&p, 1, 200) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0;
	}
	close(fd);
	return ok;
}

void nm_service_log_tail(const nm_service *s, int lines, char *out, size_t len)
{
	char buf[2048];
	out[0] = 0;
	int fd = open(s->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END), from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof buf - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	/* Back from the end over `lines` line breaks; then join with " | ". */
	ssize_t i = n;
	for (int k = 0; i > 0; i--)
		if (buf[i - 1] == '\n' && ++k == lines)
			break;
	size_t o = 0;
	for (; buf[i] && o + 4 < len; i++) {
		if (buf[i] == '\n') {
			o += (size_t)snprintf(out + o, len - o, " | ");
		} else if (buf[i] != '\r') {
			out[o++] = buf[i];
			out[o] = 0;
		}
	}
}

static void exit_text(int st, char *out, size_t len)
{
	if (WIFEXITED(st))
		snprintf(out, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(out, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(out, len, "stopped");
}

/* Waits until ready(arg) holds, the service exits or the deadline passes;
 * `what` says what it waits for in the messages ("accepting connections on
 * HOST:PORT"). */
static int wait_until(nm_service *s, bool (*ready)(const nm_service *, const void *), const void *arg,
		      const char *what, double timeout, char *err, size_t errlen)
{
	double deadline = now_s() + timeout;
	char tail[600], how[96];
	for (;;) {
		int st = 0;
		if (s->pid > 0 && waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->status = st;
			exit_text(st, how, sizeof how);
			nm_service_log_tail(s, 3, tail, sizeof tail);
			snprintf(err, errlen, "%s (%s) %s before %s; its output ends: %s", s->name, s->bin, how, what,
				 tail[0] ? tail : "(nothing)");
			reg_release(s);
			return -1;
		}
		if (ready(s, arg))
			return 0;
		if (now_s() > deadline) {
			nm_service_log_tail(s, 3, tail, sizeof tail);
			snprintf(err, errlen, "%s (%s) was not %s within %.0f s (--timeout); its output ends: %s", s->name,
				 s->bin, what, timeout, tail[0] ? tail : "(nothing)");
			return -1;
		}
		nm_boot_alive();
		nm_nap_ns(20 * 1000000u);
	}
}

typedef struct host_port {
	const char *host;
	int port;
} host_port;

static bool port_ready(const nm_service *s, const void *arg)
{
	(void)s;
	const host_port *hp = arg;
	return nm_port_accepts(hp->host, hp->port);
}

int nm_service_wait_port(nm_service *s, const char *host, int port, double timeout, char *err, size_t errlen)
{
	char what[320];
	snprintf(what, sizeof what, "accepting connections on %s:%d", host, port);
	host_port hp = {host, port};
	return wait_until(s, port_ready, &hp, what, timeout, err, errlen);
}

static bool file_ready(const nm_service *s, const void *arg)
{
	char path[sizeof s->dir + 256];
	snprintf(path, sizeof path, "%s/%s", s->dir, (const char *)arg);
	return access(path, F_OK) == 0;
}

int nm_service_wait_file(nm_service *s, const char *name, double timeout, char *err, size_t errlen)
{
	char what[320];
	snprintf(what, sizeof what, "ready (no file %s in its directory)", name);
	return wait_until(s, file_ready, name, what, timeout, err, errlen);
}

/* ---- stopping ------------------------------------------------------------- */

void nm_service_term(nm_service *s)
{
	if (s->pid > 0)
		kill(s->pid, SIGTERM);
}

bool nm_service_stop(nm_service *s, double grace)
{
	if (s->pid <= 0)
		return true;
	bool clean = false;
	kill(s->pid, SIGTERM);
	for (double until = now_s() + grace;;) {
		int st = 0;
		pid_t r = waitpid(s->pid, &st, WNOHANG);
		if (r == s->pid) {
			s->status = st;
			clean = true;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;  /* reaped elsewhere (a cleanup) */
		if (now_s() > until) {
			kill(s->pid, SIGKILL);
			while (waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		nm_boot_alive();
		nm_nap_ns(10 * 1000000u);
	}
	reg_release(s);
	return clean;
}
