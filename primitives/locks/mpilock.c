/* MPI passive-target RMA lock: the OpenMPI baseline LOCO compares its ticket
 * lock against (LOCO paper, section 7.1, Fig. 4). This is the one lock whose
 * measured path goes through MPI instead of raw verbs.
 *
 *   acquire(k): MPI_Win_lock(MPI_LOCK_EXCLUSIVE, home(k), 0, win(k))
 *   cs_get(k):  MPI_Get of a word under the lock; cs_wait(k): MPI_Win_flush
 *   cs_put(k):  MPI_Put of a word
 *   release(k): MPI_Win_unlock(home(k), win(k))  (completes the Puts at the
 *               target, so it plays the part of the release fence)
 *
 * Windows. env_init (collective over every rank of the job) splits the
 * taking-part ranks into their own communicator (env->mpi_comm, ranked by
 * participant index, so a lock's home is its rank there) and creates over
 * it W = min(slots per home, 341) windows with MPI_Win_create. An MPI lock
 * is one (window, rank) pair, so key k uses window slot(k) mod W at its home:
 * with at most 341 keys per home every key has a lock of its own; beyond
 * that, keys of one home whose slots agree mod 341 share one MPI lock (false
 * conflicts, the limit LOCO ran into: "341 windows ... 341 is the maximum
 * supported", with LOCO capped at 341 locks per thread for fairness).
 * By default every window exposes the rank's whole registered buffer
 * (disp_unit 1), so displacements are the offsets verbs use: the lock
 * table's counters live there. A workload that owns the data layout can
 * give each window its own slice instead (env->mpi_win_off/stride/len; the
 * transfer benchmark puts each lock's accounts in its window, as the paper
 * distributes accounts across windows). Overlapping windows are allowed by
 * MPI; each word is only ever accessed through its key's window. lock_bytes
 * is 64 and unused (the lock state lives inside MPI).
 *
 * Decisions the paper leaves open: MPI_Win_create over existing memory rather
 * than MPI_Win_allocate (the workloads check their data in the verbs buffer);
 * assert 0 on the lock; MPI_Win_flush between Get and Put (the Put depends on
 * the Get's value); no flush after the Put (unlock completes it; Put origin
 * buffers live in per-rank state so they stay valid until then);
 * one worker per rank and MPI_THREAD_FUNNELED (uses_mpi: workloads run it
 * on the main thread only).
 *
 * Not an RDMA number in the Soft-RoCE VM: all ranks share one host there, so
 * OpenMPI 4.1 moves this data through shared memory (osc/rdma on the
 * on-node btl; seen with --mca osc_base_verbose 100), not through rxe. No
 * RDMA path for OpenMPI over rxe0 was found, in one guest or between two
 * (tests/bench/mpi-rdma-probe.sh): pml+osc ucx with UCX_NET_DEVICES=rxe0:1
 * aborts ("UD endpoint ... unhandled timeout error", also with a 150 s UD
 * timeout and the IPv4 GID), UCX_TLS=rc_verbs,self fails in MPI_Init ("no
 * auxiliary transport"), rc_verbs with tcp beside it finds the peer
 * "Destination is unreachable", btl openib fails to initialise (rdmacm CPC
 * unknown to this build). On a ConnectX cluster with UCX and one rank per
 * node it is the paper's OpenMPI-over-RoCE baseline; effective.mpi_transport
 * says which path a point had. */
#include "boot.h"
#include "lock.h"
#include "log.h"
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPI_MAX_WINDOWS 341

typedef struct mpi_env {
	MPI_Comm comm;          /* taking-part ranks; MPI_COMM_NULL on the others */
	int nwin;
	MPI_Win *win;
	uint64_t put_val[8];    /* Put origin buffers, valid until unlock */
	unsigned nput;
	char transport[512];    /* effective.mpi_transport */
	char library[128], pml[128], osc[128], btl[128];
} mpi_env;

static int key_w(const nm_lock_env *e, int key)
{
	const mpi_env *me = e->priv;
	return nm_lock_slot(e, key) % me->nwin;
}

static MPI_Win key_win(const nm_lock_env *e, int key)
{
	const mpi_env *me = e->priv;
	return me->win[key_w(e, key)];
}

/* Displacement of buffer offset `off` in key's window. */
static MPI_Aint key_disp(const nm_lock_env *e, int key, uint64_t off)
{
	if (e->mpi_win_len == 0)
		return (MPI_Aint)off;
	uint64_t base = e->mpi_win_off + (uint64_t)key_w(e, key) * e->mpi_win_stride;
	if (off < base || off + 8 > base + e->mpi_win_len)
		nm_fatal("mpi lock: offset %llu is outside the window of lock %d", (unsigned long long)off, key);
	return (MPI_Aint)(off - base);
}

static int mpi_err(char *err, size_t errlen, const char *what, int rc)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	snprintf(err, errlen, "mpi lock: %s failed: %s", what, msg);
	return -1;
}

static bool spans_hosts(void)
{
	for (int r = 1; r < nm_boot_size(); r++)
		if (nm_boot_hosts()[r] != nm_boot_hosts()[0])
			return true;
	return false;
}

/* The OpenMPI major version of the library in use (0: another MPI). */
static int ompi_major(const char *library)
{
	int major = 0;
	return sscanf(library, "Open MPI v%d", &major) == 1 ? major : 0;
}

/* OpenMPI 4.1 prefers its osc/rdma component for windows, which needs an
 * RDMA-capable BTL between hosts; over TCP it fails at MPI_Win_create with
 * no word on why. Say what to start mpirun with: OpenMPI 4 has osc pt2pt
 * (RMA over its messages), OpenMPI 5 dropped it and its osc rdma runs over
 * the TCP btl instead (checked with 5.0.7). */
static void win_hint(const char *library, char *err, size_t errlen)
{
	size_t n = strlen(err);
	snprintf(err + n, errlen - n, " (the job spans hosts and MPI found no one-sided transport "
		 "between them: start mpirun with %s, RMA over MPI messages and not RDMA, "
		 "or where UCX drives the NIC with --mca pml ucx --mca osc ucx)",
		 ompi_major(library) >= 5 ? "--mca osc rdma --mca btl self,vader,tcp" : "--mca osc pt2pt");
}

/* An MCA selection as OpenMPI holds it (mpirun's --mca, OMPI_MCA_*, the
 * system's openmpi-mca-params.conf): "" when unset or unknown. */
static void mca_value(const char *name, char *out, size_t len)
{
	int idx, count = 0;
	MPI_T_cvar_handle h;
	*out = 0;
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
		return;
	/* a string's count is its buffer's size (2048 in OpenMPI 4.1) */
	char *val = count > 0 && count <= (1 << 20) ? calloc((size_t)count + 1, 1) : NULL;
	if (val && MPI_T_cvar_read(h, val) == MPI_SUCCESS) {
		size_t n = strnlen(val, (size_t)count);
		n = n < len ? n : len - 1;
		memcpy(out, val, n);
		out[n] = 0;
	}
	free(val);
	MPI_T_cvar_handle_free(&h);
}

/* Whether an MCA selection ("a,b", "^a,b" or unset) lets component c in. */
static bool mca_allows(const char *sel, const char *c)
{
	bool exclude = sel[0] == '^';
	char list[160];
	snprintf(list, sizeof list, ",%s,", sel + exclude);
	char want[64];
	snprintf(want, sizeof want, ",%s,", c);
	bool named = strstr(list, want) != NULL;
	return !sel[0] || (exclude ? !named : named);
}

/* What carries the windows, in one line: OpenMPI reports no window's osc
 * component, so the line names what the job's selection lets OpenMPI pick
 * (the paper's baseline is osc ucx over the NIC; section 7.1), and calls
 * every other path what it is. */
static void transport_say(mpi_env *me, bool hosts)
{
	int len = 0, prov;
	MPI_Get_library_version(me->library, &len);
	me->library[strcspn(me->library, ",\n")] = 0;
	if (MPI_T_init_thread(MPI_THREAD_FUNNELED, &prov) == MPI_SUCCESS) {
		mca_value("pml", me->pml, sizeof me->pml);
		mca_value("osc", me->osc, sizeof me->osc);
		mca_value("btl", me->btl, sizeof me->btl);
		MPI_T_finalize();
	}
	const char *ucx_tls = getenv("UCX_TLS");
	bool ucx = mca_allows(me->osc, "ucx") && mca_allows(me->pml, "ucx") && me->osc[0] && me->osc[0] != '^';
	if (!ompi_major(me->library))
		snprintf(me->transport, sizeof me->transport, "%s's choice (not known to be RDMA)", me->library);
	else if (!hosts)
		snprintf(me->transport, sizeof me->transport,
			 "shared memory inside one host (not RDMA): every participant runs on the same host");
	else if (ucx)
		snprintf(me->transport, sizeof me->transport,
			 "UCX (osc ucx over pml ucx, UCX_TLS %s): RDMA where UCX drives the NIC", ucx_tls ? ucx_tls : "unset");
	else if (!strcmp(me->osc, "pt2pt"))
		snprintf(me->transport, sizeof me->transport, "osc pt2pt: RMA over MPI's messages (a fallback, not RDMA)");
	else if (!strcmp(me->osc, "rdma") && me->btl[0] && !mca_allows(me->btl, "openib") && !mca_allows(me->btl, "ofi") &&
		 !mca_allows(me->btl, "uct"))
		snprintf(me->transport, sizeof me->transport,
			 "osc rdma over btl %s: RMA emulated over messages (a fallback, not RDMA)", me->btl);
	else
		snprintf(me->transport, sizeof me->transport,
			 "OpenMPI's choice among osc %s (btl %s): not known to be RDMA", me->osc[0] ? me->osc : "(any)",
			 me->btl[0] ? me->btl : "(any)");
}

static void mpil_effective(const nm_lock_env *e, json_t *eff)
{
	const mpi_env *me = e->priv;
	if (!me || !me->transport[0])
		return;
	json_object_set_new(eff, "mpi_transport", json_string(me->transport));
	json_object_set_new(eff, "mpi_rma", json_pack("{s:s, s:s, s:s, s:s}", "library", me->library, "pml", me->pml,
						      "osc", me->osc, "btl", me->btl));
}

static int mpil_env_init(nm_lock_env *e, char *err, size_t errlen)
{
	mpi_env *me = calloc(1, sizeof *me);
	if (!me) {
		snprintf(err, errlen, "mpi lock: out of memory");
		return -1;
	}
	me->comm = MPI_COMM_NULL;
	e->priv = me;
	e->mpi_comm = &me->comm;
	bool in = e->rank >= 0 && e->rank < e->nranks;
	MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, e->rank, &me->comm);
	if (!in)
		return 0;
	/* Window creation errors come back as codes on our own communicator, so
	 * a failure (e.g. a window limit) is reported through the workload's
	 * collective check instead of aborting the job. */
	MPI_Comm_set_errhandler(me->comm, MPI_ERRORS_RETURN);
	int rc;
	transport_say(me, spans_hosts());
	int slots = nm_lock_slots(e);
	me->nwin = slots < MPI_MAX_WINDOWS ? slots : MPI_MAX_WINDOWS;
	me->win = calloc((size_t)me->nwin, sizeof *me->win);
	if (!me->win) {
		snprintf(err, errlen, "mpi lock: out of memory");
		return -1;
	}
	for (int w = 0; w < me->nwin; w++)
		me->win[w] = MPI_WIN_NULL;
	for (int w = 0; w < me->nwin; w++) {
		void *base = e->mr->buf;
		MPI_Aint len = (MPI_Aint)e->mr->alloc_len;
		if (e->mpi_win_len) {
			base = (uint8_t *)e->mr->buf + e->mpi_win_off + (uint64_t)w * e->mpi_win_stride;
			len = (MPI_Aint)e->mpi_win_len;
		}
		rc = MPI_Win_create(base, len, 1, MPI_INFO_NULL, me->comm, &me->win[w]);
		if (rc != MPI_SUCCESS) {
			char what[64];
			snprintf(what, sizeof what, "MPI_Win_create (window %d of %d)", w + 1, me->nwin);
			mpi_err(err, errlen, what, rc);
			if (spans_hosts())
				win_hint(me->library, err, errlen);
			return -1;
		}
		MPI_Win_set_errhandler(me->win[w], MPI_ERRORS_ARE_FATAL);
		nm_boot_alive();  /* ranks that sit out wait for us */
	}
	return 0;
}

static void mpil_env_fini(nm_lock_env *e)
{
	mpi_env *me = e->priv;
	if (!me)
		return;
	for (int w = 0; me->win && w < me->nwin; w++)
		if (me->win[w] != MPI_WIN_NULL)
			MPI_Win_free(&me->win[w]);
	if (me->comm != MPI_COMM_NULL)
		MPI_Comm_free(&me->comm);
	free(me->win);
	free(me);
	e->priv = NULL;
	e->mpi_comm = NULL;
}

static void mpil_acquire(nm_lock_thread *t, int key)
{
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, nm_lock_home(t->env, key), 0, key_win(t->env, key));
}

static void mpil_release(nm_lock_thread *t, int key)
{
	MPI_Win_unlock(nm_lock_home(t->env, key), key_win(t->env, key));
	/* The round runs on the main thread; ranks that sit out or are done
	 * wait for it in a collective (a clock read unless a message is due). */
	nm_boot_alive();
}

static void mpil_cs_get(nm_lock_thread *t, int key, uint64_t off, uint64_t *dst)
{
	MPI_Get(dst, 1, MPI_UINT64_T, nm_lock_home(t->env, key), key_disp(t->env, key, off), 1,
		MPI_UINT64_T, key_win(t->env, key));
}

static void mpil_cs_wait(nm_lock_thread *t, int key)
{
	MPI_Win_flush(nm_lock_home(t->env, key), key_win(t->env, key));
}

static void mpil_cs_put(nm_lock_thread *t, int key, uint64_t off, uint64_t val)
{
	mpi_env *me = t->env->priv;
	/* A ring of origin buffers: a critical section puts a few words, each
	 * must stay untouched until the unlock that completes it. */
	uint64_t *src = &me->put_val[me->nput++ % 8];
	*src = val;
	MPI_Put(src, 1, MPI_UINT64_T, nm_lock_home(t->env, key), key_disp(t->env, key, off), 1,
		MPI_UINT64_T, key_win(t->env, key));
}

const nm_lock_type nm_mpilock = {
	.name = "mpi",
	.order = 5,
	.summary = "MPI passive-target RMA lock (MPI_Win_lock exclusive; Get, flush, Put; unlock), "
		   "one lock per (window, rank), min(locks per rank, 341) windows; in a one-host VM OpenMPI uses "
		   "shared memory, not RDMA",
	.lock_bytes = 64,
	.uses_mpi = true,
	.env_init = mpil_env_init,
	.env_fini = mpil_env_fini,
	.acquire = mpil_acquire,
	.release = mpil_release,
	.cs_get = mpil_cs_get,
	.cs_wait = mpil_cs_wait,
	.cs_put = mpil_cs_put,
	.effective = mpil_effective,
};
NM_LOCK_TYPE(nm_mpilock)
