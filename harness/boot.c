#include "boot.h"
#include "hosts.h"
#include "log.h"
#include "stats.h"
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int b_rank, b_size;
static pthread_t main_thread;
static atomic_int fatal_code;

/* Only the main thread may call MPI. A worker that hits a fatal error has
 * already printed its message; it records the code and parks, and the main
 * thread, which watches for this while workers run, ends the job. */
static void abort_hook(int code)
{
	if (pthread_equal(pthread_self(), main_thread))
		nm_boot_abort(code);
	atomic_store(&fatal_code, code ? code : NM_EXIT_FAIL);
	for (;;)
		pause();
}

int nm_boot_fatal_pending(void) { return atomic_load(&fatal_code); }

static uint64_t *b_hosts;

void nm_boot_init(int *argc, char ***argv)
{
	int provided;
	/* FUNNELED: worker threads never call MPI; the main thread does all
	 * bootstrap and coordination. */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "netmem: MPI_Init_thread failed\n");
		exit(NM_EXIT_FAIL);
	}
	if (provided < MPI_THREAD_FUNNELED) {
		fprintf(stderr, "netmem: MPI library lacks MPI_THREAD_FUNNELED\n");
		MPI_Abort(MPI_COMM_WORLD, NM_EXIT_FAIL);
	}
	main_thread = pthread_self();
	MPI_Comm_rank(MPI_COMM_WORLD, &b_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b_size);
	nm_log_set_rank(b_rank);
	nm_log_set_abort(abort_hook);
	/* Which host every rank runs on, for experiments that group ranks into
	 * nodes (hosts.h); once, so their checks of a point need no MPI. */
	b_hosts = calloc((size_t)b_size, sizeof *b_hosts);
	uint64_t me = nm_host_id();
	MPI_Allgather(&me, 1, MPI_UINT64_T, b_hosts, 1, MPI_UINT64_T, MPI_COMM_WORLD);
}

const uint64_t *nm_boot_hosts(void) { return b_hosts; }

void nm_boot_finalize(void) { MPI_Finalize(); }
int nm_boot_rank(void) { return b_rank; }
int nm_boot_size(void) { return b_size; }
void nm_boot_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }

/* A barrier that sleeps while it waits: a rank with nothing to do (a target
 * of one-sided operations) must not spin in MPI on a core the measuring
 * threads need. */
void nm_boot_barrier_idle(void)
{
	MPI_Request req;
	int done = 0;
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	while (!done) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done) {
			struct timespec d = {0, 1000000};
			nanosleep(&d, NULL);
		}
	}
}

void nm_boot_allgather(const void *mine, void *out, size_t len)
{
	MPI_Allgather(mine, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, MPI_COMM_WORLD);
}

void nm_boot_alltoall(const void *send, void *recv, size_t len)
{
	MPI_Alltoall(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, MPI_COMM_WORLD);
}

void nm_boot_bcast(void *buf, size_t len, int root)
{
	MPI_Bcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD);
}

char *nm_boot_bcast_str(const char *s, int root)
{
	uint64_t len = b_rank == root ? strlen(s) + 1 : 0;
	MPI_Bcast(&len, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
	char *copy = malloc(len);
	if (!copy)
		nm_fatal("out of memory");
	if (b_rank == root)
		memcpy(copy, s, len);
	MPI_Bcast(copy, (int)len, MPI_CHAR, root, MPI_COMM_WORLD);
	return copy;
}

char **nm_boot_gather_str(const char *s, int root)
{
	int len = (int)strlen(s) + 1;
	int *lens = NULL, *displs = NULL;
	char *all = NULL;
	if (b_rank == root) {
		lens = calloc((size_t)b_size, sizeof *lens);
		displs = calloc((size_t)b_size, sizeof *displs);
		if (!lens || !displs)
			nm_fatal("out of memory");
	}
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, root, MPI_COMM_WORLD);
	size_t total = 0;
	if (b_rank == root) {
		for (int i = 0; i < b_size; i++) {
			displs[i] = (int)total;
			total += (size_t)lens[i];
		}
		all = malloc(total);
		if (!all)
			nm_fatal("out of memory");
	}
	MPI_Gatherv(s, len, MPI_CHAR, all, lens, displs, MPI_CHAR, root, MPI_COMM_WORLD);
	char **out = NULL;
	if (b_rank == root) {
		out = calloc((size_t)b_size, sizeof *out);
		for (int i = 0; i < b_size; i++)
			out[i] = strdup(all + displs[i]);
		free(all);
		free(lens);
		free(displs);
	}
	return out;
}

json_t *nm_boot_gather_json(const json_t *mine, int root)
{
	char *s = json_dumps(mine, JSON_COMPACT | JSON_ENCODE_ANY);
	char **all = nm_boot_gather_str(s, root);
	free(s);
	if (!all)
		return NULL;
	json_t *a = json_array();
	for (int r = 0; r < b_size; r++) {
		json_array_append_new(a, json_loads(all[r], JSON_DECODE_ANY, NULL));
		free(all[r]);
	}
	free(all);
	return a;
}

uint64_t nm_boot_sum_u64(uint64_t v)
{
	uint64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	return r;
}

uint64_t nm_boot_max_u64(uint64_t v)
{
	uint64_t r;
	MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	return r;
}

void nm_boot_sum_u64_array(uint64_t *v, size_t n)
{
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void nm_boot_hist_merge(nm_hist *h)
{
	nm_hist *all = b_rank == 0 ? calloc((size_t)b_size, sizeof *all) : NULL;
	if (b_rank == 0 && !all)
		nm_fatal("out of memory");
	MPI_Gather(h, (int)sizeof *h, MPI_BYTE, all, (int)sizeof *h, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (b_rank != 0)
		return;
	nm_hist_init(h);
	for (int r = 0; r < b_size; r++)
		nm_hist_merge(h, &all[r]);
	free(all);
}

void nm_boot_check(const char *msg, int code)
{
	int mine = msg ? b_rank : b_size, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == b_size)
		return;
	char buf[1024] = "";
	if (first == b_rank)
		snprintf(buf, sizeof buf, "%s", msg);
	MPI_Bcast(buf, sizeof buf, MPI_CHAR, first, MPI_COMM_WORLD);
	if (b_rank == 0) {
		if (first == 0)
			fprintf(stderr, "netmem: %s\n", buf);
		else
			fprintf(stderr, "netmem: rank %d: %s\n", first, buf);
		fflush(stderr);
	}
	/* Finalize so mpirun sees a clean exit with our status, not an abort. */
	MPI_Finalize();
	_exit(code);
}

void nm_boot_abort(int code)
{
	fflush(stdout);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}
