#include "log.h"
#include "stall.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int log_rank;
static void (*abort_fn)(int);

void nm_log_set_rank(int rank) { log_rank = rank; }
int nm_log_rank(void) { return log_rank; }
void nm_log_set_abort(void (*fn)(int)) { abort_fn = fn; }

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
	nm_wait_line(line, sizeof line, log_rank, host, waited, what, where, why);
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
	if (abort_fn)
		abort_fn(NM_EXIT_FAIL);
	_exit(NM_EXIT_FAIL);
}

void nm_usage_error(const char *fmt, ...)
{
	if (log_rank == 0) {
		va_list ap;
		va_start(ap, fmt);
		fputs("netmem: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
		fflush(stderr);
	}
	/* No MPI_Abort here: every rank exits 2 on its own, so mpirun reports a
	 * plain non-zero exit instead of an abort with a core-dump hint. */
	_exit(NM_EXIT_USAGE);
}

void nm_fatal(const char *fmt, ...)
{
	char host[256] = "?";
	gethostname(host, sizeof host);
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "netmem: rank %d (%s): ", log_rank, host);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
	if (abort_fn)
		abort_fn(NM_EXIT_FAIL);
	_exit(NM_EXIT_FAIL);
}

void nm_note(const char *fmt, ...)
{
	if (log_rank != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("netmem: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void nm_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "netmem: warning: rank %d: ", log_rank);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
