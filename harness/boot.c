#include "clock.h"
#include "boot.h"
#include "hosts.h"
#include "log.h"
#include "meta.h"
#include "stall.h"
#include "stats.h"
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
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
static char (*b_names)[72];       /* host name of every rank */
static const char **b_name_of;

/* Liveness (stall.h). Every collective runs nonblocking on c_comm and is
 * completed by a loop that also takes in small state messages on l_comm:
 * entering collective n, a rank tells every peer "entered n, doing <where>";
 * while it waits, in a collective or for its worker threads (nm_boot_alive),
 * it repeats that every deadline/4. A peer that has neither entered the
 * collective nor said anything for the deadline has stopped: the job ends
 * with one line naming it. Each rank keeps one receive posted per peer and at
 * most one send in flight per peer (a newer state follows when it is done). */
enum { TAG_STATE = 1, TAG_VERDICT = 2 };
typedef struct {
	uint64_t seq;
	char where[NM_WHERE_MAX];
} state_msg;

static MPI_Comm c_comm = MPI_COMM_NULL, l_comm = MPI_COMM_NULL;
static bool live;    /* liveness messages flow: more than one rank, set up */
static bool quiet;   /* finalizing: no more state messages go out */
static bool delegated;  /* we asked another rank to report a stall */
static double b_deadline = 60, last_sent, last_poll;
static uint64_t b_seq;  /* collectives entered */
static char b_where[NM_WHERE_MAX] = "start";
static nm_peer_seen *peers;
static int *stall_state, *done_idx;
static MPI_Request *rreq;  /* [p]: next state from p; [b_size]: a verdict from anyone */
static state_msg *rbuf;
static char vbuf[NM_STALL_LINE];
static MPI_Request *sreq;  /* [p]: state message in flight to p */
static state_msg *sbuf;
static bool *resend;
static uint64_t *nsent, *nrecv;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "netmem: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, NM_EXIT_FAIL);
	}
	return p;
}

static void post_state_recv(int p)
{
	MPI_Irecv(&rbuf[p], (int)sizeof rbuf[p], MPI_BYTE, p, TAG_STATE, l_comm, &rreq[p]);
}

static void post_verdict_recv(void)
{
	MPI_Irecv(vbuf, (int)sizeof vbuf, MPI_CHAR, MPI_ANY_SOURCE, TAG_VERDICT, l_comm, &rreq[b_size]);
}

static void live_init(void)
{
	int R = b_size;
	peers = zalloc((size_t)R, sizeof *peers);
	stall_state = zalloc((size_t)R, sizeof *stall_state);
	done_idx = zalloc((size_t)R + 1, sizeof *done_idx);
	rreq = zalloc((size_t)R + 1, sizeof *rreq);
	rbuf = zalloc((size_t)R, sizeof *rbuf);
	sreq = zalloc((size_t)R, sizeof *sreq);
	sbuf = zalloc((size_t)R, sizeof *sbuf);
	resend = zalloc((size_t)R, sizeof *resend);
	nsent = zalloc((size_t)R, sizeof *nsent);
	nrecv = zalloc((size_t)R, sizeof *nrecv);
	double t = now_s();
	for (int p = 0; p < R; p++) {
		peers[p].seen = t;
		snprintf(peers[p].where, sizeof peers[p].where, "%s", b_where);
		rreq[p] = sreq[p] = MPI_REQUEST_NULL;
	}
	rreq[R] = MPI_REQUEST_NULL;
	last_sent = last_poll = t;
	if (R < 2)
		return;
	for (int p = 0; p < R; p++)
		if (p != b_rank)
			post_state_recv(p);
	post_verdict_recv();
	live = true;
}

static void send_state(int p)
{
	sbuf[p].seq = b_seq;
	memcpy(sbuf[p].where, b_where, sizeof b_where);
	MPI_Isend(&sbuf[p], (int)sizeof sbuf[p], MPI_BYTE, p, TAG_STATE, l_comm, &sreq[p]);
	nsent[p]++;
	resend[p] = false;
}

/* Completes state messages in flight; sends the newer state they held up. */
static void progress_sends(void)
{
	for (int p = 0; p < b_size; p++) {
		if (sreq[p] != MPI_REQUEST_NULL) {
			int done = 0;
			MPI_Test(&sreq[p], &done, MPI_STATUS_IGNORE);
		}
		if (sreq[p] == MPI_REQUEST_NULL && resend[p] && !quiet)
			send_state(p);
	}
}

/* Tells every peer which collective this rank entered last and what it does. */
static void tell_all(void)
{
	for (int p = 0; p < b_size; p++)
		if (p != b_rank)
			resend[p] = true;
	progress_sends();
	last_sent = now_s();
}

/* Another rank found a stall and asks us, the reporter, to say so. */
static void verdict_received(void)
{
	if (delegated) {  /* we asked someone else: they report */
		post_verdict_recv();
		return;
	}
	vbuf[sizeof vbuf - 1] = 0;
	fprintf(stderr, "%s\n", vbuf);
	nm_boot_abort(NM_EXIT_FAIL);
}

/* Takes in what peers said. */
static void poll_peers(void)
{
	double t = now_s();
	last_poll = t;
	for (;;) {
		int n = 0;
		MPI_Testsome(b_size + 1, rreq, &n, done_idx, MPI_STATUSES_IGNORE);
		if (n == MPI_UNDEFINED || n <= 0)
			break;
		for (int k = 0; k < n; k++) {
			int p = done_idx[k];
			if (p == b_size) {
				verdict_received();
				continue;
			}
			peers[p].seq = rbuf[p].seq;
			peers[p].seen = t;
			memcpy(peers[p].where, rbuf[p].where, sizeof peers[p].where);
			peers[p].where[sizeof peers[p].where - 1] = 0;
			nrecv[p]++;
			post_state_recv(p);
		}
	}
	progress_sends();
}

static double beat_interval(void) { return b_deadline / 4; }

/* A wait's loop naps at most 16 ms: a longer gap between two of its looks
 * is time this rank did not run (SIGSTOP, a paused VM, a host that
 * descheduled it). Nobody else can be blamed for it, so the wait's start
 * and every peer's last sign move on by the gap: a rank woken from a stop
 * judges its peers by time it ran (one stopped rank ends the job through
 * the others, which ran; all stopped and resumed together, it goes on).
 * Returns the new start of the wait. */
static double skip_own_gap(double *prev, double t, double t0)
{
	double gap = nm_self_gap(prev, t);
	if (gap == 0)
		return t0;
	for (int p = 0; p < b_size; p++)
		peers[p].seen += gap;
	return t0 + gap;
}

/* Waiting in collective b_seq (`coll`) since t0: if peers hold it up and show
 * no sign of life, the lowest rank that arrived prints one line and ends the
 * job. Another rank that notices first hands it its line; if that rank does
 * not end the job within a few seconds, it prints the line itself. */
static void stall_check(double t0, double t, const char *coll)
{
	if (t - t0 <= b_deadline)
		return;
	peers[b_rank].seq = b_seq;
	if (nm_stall_find(peers, b_size, b_rank, b_seq, t0, t, b_deadline, stall_state) == 0)
		return;
	char line[NM_STALL_LINE];
	nm_stall_line(line, sizeof line, b_rank, b_name_of, t - t0, coll, b_where, peers, b_size,
		      stall_state, t);
	int rep = nm_stall_reporter(peers, b_size, b_rank, b_seq, stall_state);
	if (rep != b_rank) {
		delegated = true;
		MPI_Request r;
		MPI_Isend(line, (int)strlen(line) + 1, MPI_CHAR, rep, TAG_VERDICT, l_comm, &r);
		for (double until = t + 3; now_s() < until;) {
			int done;
			MPI_Test(&r, &done, MPI_STATUS_IGNORE);
			poll_peers();
			nm_nap_ns(1000000);
		}
	}
	fprintf(stderr, "%s\n", line);
	nm_boot_abort(NM_EXIT_FAIL);
}

static void coll_enter(void)
{
	b_seq++;
	if (live && !quiet)
		tell_all();
}

/* Completes a collective: tests it, at first in a short spin (a barrier
 * before measuring should release every rank at nearly the same time), then
 * napping 50 us growing to 1 ms, so a rank with nothing to do leaves the cores
 * to the measuring threads. `idle` naps 1 ms from the start, growing to 16 ms:
 * a rank idle for a whole measured interval (the target of netmem ops) then
 * wakes about 60 times a second, not 1,000, which on a small or emulated host
 * is CPU the measuring threads and the NIC's software get back; the wait ends
 * at most 16 ms late, against intervals of seconds. */
#define IDLE_NAP_MAX_NS 16000000L
static void coll_wait(MPI_Request *req, const char *coll, bool idle)
{
	double t0 = now_s(), spin_until = idle ? t0 : t0 + 200e-6, prev = t0;
	long ns = idle ? 1000000 : 50000, cap = idle ? IDLE_NAP_MAX_NS : 1000000;
	for (;;) {
		int done = 0;
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		int fatal = nm_boot_fatal_pending();
		if (fatal)
			nm_boot_abort(fatal);
		double t = now_s();
		if (live) {
			t0 = skip_own_gap(&prev, t, t0);
			poll_peers();
			if (!quiet && t - last_sent >= beat_interval())
				tell_all();
			stall_check(t0, t, coll);
		}
		if (t < spin_until)
			continue;
		nm_nap_ns(ns);
		if (ns < cap)
			ns = ns * 2 < cap ? ns * 2 : cap;
	}
}

void nm_boot_set_deadline(double seconds)
{
	if (seconds > 0)
		b_deadline = seconds;
}

double nm_boot_deadline(void) { return b_deadline; }

void nm_boot_set_where(const char *label)
{
	snprintf(b_where, sizeof b_where, "%s", label ? label : "");
	nm_log_set_where(b_where);
}

void nm_boot_alive(void)
{
	if (!live || quiet || !pthread_equal(pthread_self(), main_thread))
		return;
	double t = now_s();
	if (t - last_poll >= 0.01)
		poll_peers();
	if (t - last_sent >= beat_interval())
		tell_all();
}

/* Every rank runs the same build, or the job stops at once with one line:
 * ranks of different builds would exchange descriptors of different layouts
 * and fail later in ways that do not name the cause. */
static void check_builds(void)
{
	enum { ID_LEN = 64 };
	char mine[ID_LEN] = "";
	snprintf(mine, sizeof mine, "%s", nm_build_id);
	char (*all)[ID_LEN] = zalloc((size_t)b_size, sizeof *all);
	const char **ids = zalloc((size_t)b_size, sizeof *ids);
	MPI_Allgather(mine, ID_LEN, MPI_CHAR, all, ID_LEN, MPI_CHAR, c_comm);
	for (int r = 0; r < b_size; r++) {
		all[r][ID_LEN - 1] = 0;
		ids[r] = all[r];
	}
	char err[1024];
	int bad = nm_build_compare(ids, b_name_of, b_size, err, sizeof err);
	free(ids);
	free(all);
	nm_boot_check(bad ? err : NULL, NM_EXIT_USAGE);
}

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
	/* Collectives and liveness messages each on their own communicator,
	 * apart from what workloads do on MPI_COMM_WORLD. */
	MPI_Comm_dup(MPI_COMM_WORLD, &c_comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &l_comm);
	/* Which host every rank runs on, for experiments that group ranks into
	 * nodes (hosts.h); once, so their checks of a point need no MPI. The
	 * names are for messages. */
	b_hosts = zalloc((size_t)b_size, sizeof *b_hosts);
	uint64_t me = nm_host_id();
	MPI_Allgather(&me, 1, MPI_UINT64_T, b_hosts, 1, MPI_UINT64_T, c_comm);
	char name[sizeof *b_names] = "";
	gethostname(name, sizeof name - 1);
	b_names = zalloc((size_t)b_size, sizeof *b_names);
	MPI_Allgather(name, (int)sizeof name, MPI_CHAR, b_names, (int)sizeof name, MPI_CHAR, c_comm);
	b_name_of = zalloc((size_t)b_size, sizeof *b_name_of);
	for (int r = 0; r < b_size; r++) {
		b_names[r][sizeof *b_names - 1] = 0;
		b_name_of[r] = b_names[r];
	}
	live_init();
	check_builds();
}

const uint64_t *nm_boot_hosts(void) { return b_hosts; }

bool nm_boot_first_on_host(void)
{
	for (int r = 0; r < b_rank; r++)
		if (b_hosts[r] == b_hosts[b_rank])
			return false;
	return true;
}

/* Ends MPI cleanly: a last collective in which every rank says how many
 * state messages it sent to each other one; each takes in all of its own,
 * then withdraws its posted receives. */
void nm_boot_finalize(void)
{
	if (live) {
		coll_enter();
		double t0 = now_s(), prev = t0;
		for (;;) {
			bool busy = false;
			progress_sends();
			for (int p = 0; p < b_size; p++)
				busy |= sreq[p] != MPI_REQUEST_NULL || resend[p];
			if (!busy)
				break;
			double t = now_s();
			t0 = skip_own_gap(&prev, t, t0);
			poll_peers();
			stall_check(t0, t, "finalize");
			nm_nap_ns(50000);
		}
		quiet = true;
		uint64_t *theirs = zalloc((size_t)b_size, sizeof *theirs);
		MPI_Request r;
		MPI_Ialltoall(nsent, 1, MPI_UINT64_T, theirs, 1, MPI_UINT64_T, c_comm, &r);
		coll_wait(&r, "finalize", true);
		/* Every rank sent its last message before the alltoall; they are
		 * on their way. The bound only guards against the unforeseen. */
		for (double until = now_s() + b_deadline; now_s() < until;) {
			bool all = true;
			for (int p = 0; p < b_size; p++)
				all &= nrecv[p] >= theirs[p];
			if (all)
				break;
			poll_peers();
			nm_nap_ns(50000);
		}
		for (int i = 0; i <= b_size; i++)
			if (rreq[i] != MPI_REQUEST_NULL) {
				MPI_Cancel(&rreq[i]);
				MPI_Wait(&rreq[i], MPI_STATUS_IGNORE);
			}
		free(theirs);
		live = false;
	}
	if (c_comm != MPI_COMM_NULL)
		MPI_Comm_free(&c_comm);
	if (l_comm != MPI_COMM_NULL)
		MPI_Comm_free(&l_comm);
	MPI_Finalize();
}

int nm_boot_rank(void) { return b_rank; }
int nm_boot_size(void) { return b_size; }

void nm_boot_barrier(void)
{
	MPI_Request r;
	coll_enter();
	MPI_Ibarrier(c_comm, &r);
	coll_wait(&r, "barrier", false);
}

void nm_boot_barrier_idle(void)
{
	MPI_Request r;
	coll_enter();
	MPI_Ibarrier(c_comm, &r);
	coll_wait(&r, "barrier", true);
}

void nm_boot_allgather(const void *mine, void *out, size_t len)
{
	MPI_Request r;
	coll_enter();
	MPI_Iallgather(mine, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, c_comm, &r);
	coll_wait(&r, "allgather", false);
}

void nm_boot_alltoall(const void *send, void *recv, size_t len)
{
	MPI_Request r;
	coll_enter();
	MPI_Ialltoall(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, c_comm, &r);
	coll_wait(&r, "alltoall", false);
}

void nm_boot_bcast(void *buf, size_t len, int root)
{
	MPI_Request r;
	coll_enter();
	MPI_Ibcast(buf, (int)len, MPI_BYTE, root, c_comm, &r);
	coll_wait(&r, "bcast", false);
}

char *nm_boot_bcast_str(const char *s, int root)
{
	MPI_Request r;
	uint64_t len = b_rank == root ? strlen(s) + 1 : 0;
	coll_enter();
	MPI_Ibcast(&len, 1, MPI_UINT64_T, root, c_comm, &r);
	coll_wait(&r, "bcast", false);
	char *copy = malloc(len);
	if (!copy)
		nm_fatal("out of memory");
	if (b_rank == root)
		memcpy(copy, s, len);
	MPI_Ibcast(copy, (int)len, MPI_CHAR, root, c_comm, &r);
	coll_wait(&r, "bcast", false);
	return copy;
}

char **nm_boot_gather_str(const char *s, int root)
{
	MPI_Request r;
	int len = (int)strlen(s) + 1;
	int *lens = NULL, *displs = NULL;
	char *all = NULL;
	if (b_rank == root) {
		lens = calloc((size_t)b_size, sizeof *lens);
		displs = calloc((size_t)b_size, sizeof *displs);
		if (!lens || !displs)
			nm_fatal("out of memory");
	}
	coll_enter();
	MPI_Igather(&len, 1, MPI_INT, lens, 1, MPI_INT, root, c_comm, &r);
	coll_wait(&r, "gather", false);
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
	MPI_Igatherv(s, len, MPI_CHAR, all, lens, displs, MPI_CHAR, root, c_comm, &r);
	coll_wait(&r, "gather", false);
	char **out = NULL;
	if (b_rank == root) {
		out = calloc((size_t)b_size, sizeof *out);
		if (!out)
			nm_fatal("out of memory");
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

static void allreduce(void *in, void *out, int n, MPI_Datatype t, MPI_Op op)
{
	MPI_Request r;
	coll_enter();
	MPI_Iallreduce(in, out, n, t, op, c_comm, &r);
	coll_wait(&r, "allreduce", false);
}

uint64_t nm_boot_sum_u64(uint64_t v)
{
	uint64_t r;
	allreduce(&v, &r, 1, MPI_UINT64_T, MPI_SUM);
	return r;
}

uint64_t nm_boot_max_u64(uint64_t v)
{
	uint64_t r;
	allreduce(&v, &r, 1, MPI_UINT64_T, MPI_MAX);
	return r;
}

void nm_boot_sum_u64_array(uint64_t *v, size_t n)
{
	allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM);
}

void nm_boot_hist_merge(nm_hist *h)
{
	/* The buckets (224 KiB) are summed by a reduction, so rank 0 holds the
	 * sum and one scratch histogram whatever the job's size, rather than
	 * every rank's copy; the heads (count, extremes, moments) are gathered
	 * and merged in rank order. */
	enum { HEAD = offsetof(nm_hist, bucket) };
	MPI_Request r;
	unsigned char *heads = NULL;
	uint64_t *sum = NULL;
	nm_hist *one = NULL;
	if (b_rank == 0) {
		heads = malloc((size_t)b_size * HEAD);
		sum = malloc(sizeof h->bucket);
		one = malloc(sizeof *one);
		if (!heads || !sum || !one)
			nm_fatal("out of memory");
	}
	coll_enter();
	MPI_Igather(h, HEAD, MPI_BYTE, heads, HEAD, MPI_BYTE, 0, c_comm, &r);
	coll_wait(&r, "gather", false);
	MPI_Ireduce(h->bucket, sum, NM_HIST_BUCKETS, MPI_UINT64_T, MPI_SUM, 0, c_comm, &r);
	coll_wait(&r, "reduce", false);
	if (b_rank != 0)
		return;
	nm_hist_init(h);
	for (int r0 = 0; r0 < b_size; r0++) {
		memcpy(one, heads + (size_t)r0 * HEAD, HEAD);
		nm_hist_merge_head(h, one);
	}
	memcpy(h->bucket, sum, sizeof h->bucket);
	free(one);
	free(sum);
	free(heads);
}

static void (*exit_hook)(void);

void nm_boot_set_exit_hook(void (*fn)(void)) { exit_hook = fn; }

/* Cleanups of the early end (boot.h); atomics, as any thread may run them. */
enum { ON_EXIT_MAX = 8 };
static void (*_Atomic on_exit_fns[ON_EXIT_MAX])(void);

void nm_boot_on_exit(void (*fn)(void))
{
	for (int i = 0; i < ON_EXIT_MAX; i++) {
		void (*cur)(void) = NULL;
		if (atomic_compare_exchange_strong(&on_exit_fns[i], &cur, fn) || cur == fn)
			return;
	}
	nm_fatal("nm_boot_on_exit: more than %d cleanups", ON_EXIT_MAX);
}

static void run_on_exit(void)
{
	for (int i = 0; i < ON_EXIT_MAX; i++) {
		void (*fn)(void) = atomic_load(&on_exit_fns[i]);
		if (fn)
			fn();
	}
}

/* The hook once, on the main thread: it may itself fail and end the job. */
static void run_exit_hook(void)
{
	void (*fn)(void) = exit_hook;
	exit_hook = NULL;
	if (fn && pthread_equal(pthread_self(), main_thread))
		fn();
}

void nm_boot_check(const char *msg, int code)
{
	MPI_Request r;
	int mine = msg ? b_rank : b_size, first;
	coll_enter();
	MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c_comm, &r);
	coll_wait(&r, "allreduce", false);
	if (first == b_size)
		return;
	char buf[1024] = "";
	if (first == b_rank)
		snprintf(buf, sizeof buf, "%s", msg);
	MPI_Ibcast(buf, sizeof buf, MPI_CHAR, first, c_comm, &r);
	coll_wait(&r, "bcast", false);
	if (b_rank == 0) {
		char head[128] = "netmem: ";
		if (first != 0)  /* on a cluster, the host is what to look at */
			snprintf(head, sizeof head, "netmem: rank %d (%s): ", first, b_name_of[first]);
		nm_log_line(stderr, head, buf);
		fflush(stderr);
	}
	run_on_exit();
	run_exit_hook();
	/* Finalize so mpirun sees a clean exit with our status, not an abort. */
	nm_boot_finalize();
	_exit(code);
}

void nm_boot_abort(int code)
{
	run_on_exit();
	run_exit_hook();
	fflush(stdout);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}
