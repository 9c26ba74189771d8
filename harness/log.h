/* Error reporting. Bad input is the user's to fix: one line, exit 2, printed by
 * rank 0 only (every rank sees the same input and reaches the same verdict).
 * Runtime failures (failed completion, hang) name rank, peer and operation and
 * end the whole job through the abort hook, which boot.c points at MPI_Abort. */
#ifndef NM_LOG_H
#define NM_LOG_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define NM_EXIT_USAGE 2
#define NM_EXIT_FAIL 1

void nm_log_set_rank(int rank);
/* This process's rank: the job's once set, before that the one the
 * launcher's environment gives (Open MPI, PMIx, PMI), else 0. */
int nm_log_rank(void);
/* Called by nm_fatal after printing; must not return. Default: exit(code). */
void nm_log_set_abort(void (*fn)(int code));

/* s with its control characters written as \n, \r, \t or \xHH, so that a
 * value echoed back (a path, a key, an option's word) cannot split a line or
 * drive the terminal; cut at len - 1 bytes, never inside an escape. Returns
 * the length written. */
size_t nm_escape_ctl(const char *s, char *out, size_t len);
/* head, then msg escaped (nm_escape_ctl), then a newline: every line of
 * these functions and of a refused job (nm_boot_check) is written by it. */
void nm_log_line(FILE *f, const char *head, const char *msg);

/* Bad input: rank 0 prints "netmem: <msg>" and every rank exits 2. Another
 * rank first waits up to NM_USAGE_WAIT_S for the launcher to end it (rank
 * 0's exit does), then says its own "netmem: rank N: <msg>". */
#define NM_USAGE_WAIT_S 30
_Noreturn void nm_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runtime failure on this rank: always printed (prefixed with rank and host), then abort. */
_Noreturn void nm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What this rank is doing now ("setup", "point 3/10 {...}"), for the lines
 * that name it; boot.c keeps it current (nm_boot_set_where). */
void nm_log_set_where(const char *label);
/* A copy of it into buf. */
void nm_log_where(char *buf, size_t len);
/* A wait outside the collectives saw no progress for its deadline
 * (stall.h's nm_wait): prints the one line naming this rank, its host,
 * what it waited at, what it was doing and why (fmt), then ends the job as
 * nm_fatal does. Any thread. */
_Noreturn void nm_stalled(const char *what, double waited, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Informational line on stderr from rank 0 only. */
void nm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning from any rank, prefixed with its rank. */
void nm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one-line error of a check that returns -1 (decoders, parsers): formats
 * into err (when err and len are non-zero) and returns -1. */
int nm_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
