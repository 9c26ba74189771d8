#include "log.h"
#include "stall.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_rank = -1;
static void (*abort_fn)(int);

/* Before MPI_Init (an unknown command, a missing config) every rank of an
 * mpirun job would print the same refusal: the launcher's environment says
 * which rank this process will be. */
static int launcher_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r = v && *v ? strtol(v, &end, 10) : -1;
		if (v && *v && !*end && r >= 0 && r <= 1 << 30)
			return (int)r;
	}
	return 0;
}

void nm_log_set_rank(int rank) { log_rank = rank; }
int nm_log_rank(void)
{
	if (log_rank < 0)
		log_rank = launcher_rank();
	return log_rank;
}
void nm_log_set_abort(void (*fn)(int)) { abort_fn = fn; }

size_t nm_escape_ctl(const char *s, char *out, size_t len)
{
	size_t j = 0;
	if (!len)
		return 0;
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
		char esc[5] = {(char)*c, 0};
		if (*c == '\n' || *c == '\r' || *c == '\t')
			snprintf(esc, sizeof esc, "\\%c", *c == '\n' ? 'n' : *c == '\r' ? 'r' : 't');
		else if (*c < 0x20 || *c == 0x7f)
			snprintf(esc, sizeof esc, "\\x%02x", *c);
		size_t n = strlen(esc);
		/* an escape is written whole or not at all */
		if (j + n >= len)
			break;
		memcpy(out + j, esc, n);
		j += n;
	}
	out[j] = 0;
	return j;
}

void nm_log_line(FILE *f, const char *head, const char *msg)
{
	/* each byte escapes to at most 4 */
	size_t n = strlen(msg) * 4 + 1;
	char stack[4096], *buf = n <= sizeof stack ? stack : malloc(n);
	if (!buf) {
		buf = stack;
		n = sizeof stack;
	}
	nm_escape_ctl(msg, buf, n);
	fprintf(f, "%s%s\n", head ? head : "", buf);
	if (buf != stack)
		free(buf);
}

static void vline(FILE *f, const char *head, const char *fmt, va_list ap)
{
	char msg[4096];
	vsnprintf(msg, sizeof msg, fmt, ap);
	nm_log_line(f, head, msg);
}

/* Set by the main thread between points, read by whichever thread stalls:
 * a lock keeps a reader from seeing half a label. */
static pthread_mutex_t where_mu = PTHREAD_MUTEX_INITIALIZER;
static char where_now[NM_WHERE_MAX] = "start";

void nm_log_set_where(const char *label)
{
	pthread_mutex_lock(&where_mu);
	snprintf(where_now, sizeof where_now, "%s", label ? label : "");
	pthread_mutex_unlock(&where_mu);
}

void nm_log_where(char *buf, size_t len)
{
	pthread_mutex_lock(&where_mu);
	snprintf(buf, len, "%s", where_now);
	pthread_mutex_unlock(&where_mu);
}

void nm_stalled(const char *what, double waited, const char *fmt, ...)
{
	char host[256] = "?", where[NM_WHERE_MAX], why[512], line[NM_STALL_LINE];
	gethostname(host, sizeof host);
	host[sizeof host - 1] = 0;
	nm_log_where(where, sizeof where);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	nm_wait_line(line, sizeof line, nm_log_rank(), host, waited, what, where, why);
	nm_log_line(stderr, NULL, line);
	fflush(stderr);
	if (abort_fn)
		abort_fn(NM_EXIT_FAIL);
	_exit(NM_EXIT_FAIL);
}

void nm_usage_error(const char *fmt, ...)
{
	int rank = nm_log_rank();
	if (rank != 0) {
		/* Rank 0 says it (the same input gives every rank the same refusal),
		 * and its exit ends this rank through the launcher. Leaving first
		 * would let the launcher end rank 0 before it printed (a loaded
		 * host starts rank 0 late): so wait for that, bounded. A refusal
		 * only this rank met (its node's own files) is then said here. */
		for (int i = 0; i < NM_USAGE_WAIT_S; i++)
			sleep(1);
	}
	char head[48] = "netmem: ";
	if (rank != 0)
		snprintf(head, sizeof head, "netmem: rank %d: ", rank);
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, head, fmt, ap);
	va_end(ap);
	fflush(stderr);
	/* No MPI_Abort here: every rank exits 2 on its own, so mpirun reports a
	 * plain non-zero exit instead of an abort with a core-dump hint. */
	_exit(NM_EXIT_USAGE);
}

void nm_fatal(const char *fmt, ...)
{
	char host[256] = "?", head[320];
	gethostname(host, sizeof host);
	snprintf(head, sizeof head, "netmem: rank %d (%s): ", nm_log_rank(), host);
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, head, fmt, ap);
	va_end(ap);
	fflush(stderr);
	if (abort_fn)
		abort_fn(NM_EXIT_FAIL);
	_exit(NM_EXIT_FAIL);
}

void nm_note(const char *fmt, ...)
{
	if (nm_log_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "netmem: ", fmt, ap);
	va_end(ap);
}

void nm_warn(const char *fmt, ...)
{
	char head[64];
	snprintf(head, sizeof head, "netmem: warning: rank %d: ", nm_log_rank());
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, head, fmt, ap);
	va_end(ap);
}

int nm_errf(char *err, size_t len, const char *fmt, ...)
{
	if (err && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}
