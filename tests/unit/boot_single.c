/* The collectives of harness/boot.h for a job of one rank, without MPI: what
 * each of them computes when there is nobody else (a sum over one rank is the
 * value itself). Unit tests link it to exercise harness code that gathers. */
#include "boot.h"
#include "log.h"
#include "stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t host;
static double deadline = 60;
void nm_boot_set_deadline(double seconds)
{
	if (seconds > 0)
		deadline = seconds;
}
double nm_boot_deadline(void) { return deadline; }
void nm_boot_set_where(const char *label) { nm_log_set_where(label); }
/* Nobody else to tell. */
void nm_boot_alive(void) {}
int nm_boot_rank(void) { return 0; }
int nm_boot_size(void) { return 1; }
const uint64_t *nm_boot_hosts(void) { return &host; }
void nm_boot_barrier(void) {}
void nm_boot_barrier_idle(void) {}
void nm_boot_allgather(const void *mine, void *out, size_t len) { memmove(out, mine, len); }
void nm_boot_alltoall(const void *send, void *recv, size_t len) { memmove(recv, send, len); }
void nm_boot_bcast(void *buf, size_t len, int root) { (void)buf, (void)len, (void)root; }
char *nm_boot_bcast_str(const char *s, int root) { (void)root; return strdup(s); }
char **nm_boot_gather_str(const char *s, int root)
{
	(void)root;
	char **out = calloc(1, sizeof *out);
	if (!out || !(out[0] = strdup(s)))
		nm_fatal("out of memory");
	return out;
}
uint64_t nm_boot_sum_u64(uint64_t v) { return v; }
uint64_t nm_boot_max_u64(uint64_t v) { return v; }
void nm_boot_sum_u64_array(uint64_t *v, size_t n) { (void)v, (void)n; }
void nm_boot_hist_merge(struct nm_hist *h) { (void)h; }
int nm_boot_fatal_pending(void) { return 0; }
void nm_boot_abort(int code)
{
	fflush(stdout);
	fflush(stderr);
	_exit(code);
}
/* One rank's verdict is the job's: a failure ends it, as nm_boot_check's. */
void nm_boot_check(const char *msg, int code)
{
	if (msg) {
		fprintf(stderr, "netmem: %s\n", msg);
		exit(code);
	}
}
