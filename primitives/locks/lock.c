/* Lock registry and the synchronous verbs helpers every lock uses. */
#include "lock.h"
#include "alloc.h"
#include "boot.h"
#include "log.h"
#include "measure.h"
#include "workers.h"
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 16
static const nm_lock_type *types[MAX_TYPES];
static size_t ntypes;

/* Runs from constructors: kept sorted by order, so listings need no list of
 * their own. */
void nm_lock_register(const nm_lock_type *t)
{
	if (ntypes == MAX_TYPES)
		abort();
	size_t i = ntypes++;
	while (i > 0 && types[i - 1]->order > t->order) {
		types[i] = types[i - 1];
		i--;
	}
	types[i] = t;
}

const nm_lock_type *nm_lock_find(const char *name)
{
	for (size_t i = 0; i < ntypes; i++)
		if (!strcmp(types[i]->name, name))
			return types[i];
	return NULL;
}

const char *nm_lock_names(void)
{
	static char buf[128];
	buf[0] = 0;
	for (size_t i = 0; i < ntypes; i++) {
		if (buf[0])
			strcat(buf, ",");
		strcat(buf, types[i]->name);
	}
	return buf;
}

json_t *nm_lock_stats_json(const nm_lock_type *lt, const uint64_t stat[NM_LOCK_STATS])
{
	json_t *o = json_object();
	for (int s = 0; s < NM_LOCK_STATS; s++)
		if (lt->stat_names[s])
			json_object_set_new(o, lt->stat_names[s], json_integer((json_int_t)stat[s]));
	return o;
}

uint64_t nm_lock_addr(const nm_lock_env *e, const nm_lock_type *lt, int key, size_t off)
{
	return e->mesh->rmr[nm_lock_world(e, nm_lock_home(e, key))].addr + e->table_off +
	       (uint64_t)nm_lock_slot(e, key) * lt->lock_bytes + off;
}

void *nm_lock_local(const nm_lock_env *e, const nm_lock_type *lt, int key)
{
	if (nm_lock_home(e, key) != e->rank)
		return NULL;
	return (uint8_t *)e->mr->buf + e->table_off + (size_t)nm_lock_slot(e, key) * lt->lock_bytes;
}

uint64_t nm_lock_desc_addr(const nm_lock_env *e, const nm_lock_type *lt, int rank, int thread)
{
	return e->mesh->rmr[nm_lock_world(e, rank)].addr + e->desc_off + (uint64_t)thread * lt->desc_bytes;
}

void *nm_lock_desc_local(const nm_lock_env *e, const nm_lock_type *lt, int thread)
{
	return (uint8_t *)e->mr->buf + e->desc_off + (size_t)thread * lt->desc_bytes;
}

static nm_mesh_cfg lock_mesh_cfg(const nm_lock_env *e, const nm_lock_type *lt, const nm_qp_attr *qp, int R,
			     uint8_t *m)
{
	for (int a = 0; a < e->nranks && !lt->uses_mpi; a++)
		for (int b = 0; b < e->nranks; b++)
			m[nm_lock_world(e, a) * R + nm_lock_world(e, b)] = 1;
	bool pair = e->qp_layout == NM_LOCK_QPS_THREAD_PAIR;
	for (int a = 0; a < e->nranks && pair && lt->no_loopback; a++)
		m[nm_lock_world(e, a) * R + nm_lock_world(e, a)] = 0;
	nm_mesh_cfg mc = {.nthreads = e->nthreads, .qps = pair ? e->nthreads : 1, .initiates = m, .qp = *qp};
	mc.qp.sq_depth = 8;  /* a few operations in flight per lock thread, plus fences */
	return mc;
}

void nm_lock_env_needs(const nm_lock_env *e, const nm_lock_type *lt, const nm_qp_attr *qp, size_t bytes,
		       bool hugepages, int rank, int nranks, nm_needs *n)
{
	nm_mr_needs(n, bytes, hugepages, false);
	uint8_t *m = nm_calloc((size_t)nranks * (size_t)nranks, 1);
	nm_mesh_cfg mc = lock_mesh_cfg(e, lt, qp, nranks, m);
	nm_mesh_needs(&mc, rank, nranks, n);
	free(m);
	/* every RDMA lock takes its word with CAS or FAA; the MPI baseline's
	 * atomics are MPI's */
	n->atomics |= !lt->uses_mpi;
}

void nm_lock_env_connect(nm_lock_env *e, const nm_lock_type *lt, nm_dev *d, nm_mesh *mesh, nm_mr *mr,
			 const nm_qp_attr *qp)
{
	char err[512] = "";
	int R = nm_boot_size();
	uint8_t *m = nm_calloc((size_t)R * R, 1);
	nm_mesh_cfg mc = lock_mesh_cfg(e, lt, qp, R, m);
	e->mr = mr;
	e->mesh = mesh;
	e->type = lt;
	e->emulated = d->emulated;
	nm_mesh_create(mesh, d, &mc, mr);
	e->qps = nm_mesh_qp_count(mesh);
	free(m);
	/* After the mesh: lock types may need every rank's memory address. */
	int failed = lt->env_init ? lt->env_init(e, err, sizeof err) : 0;
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	nm_boot_barrier();
}

int nm_lock_qps_per_nic(const nm_lock_env *e)
{
	int R = nm_boot_size(), most = 0;
	int *qps = nm_calloc((size_t)R, sizeof *qps);
	nm_boot_allgather(&e->qps, qps, sizeof *qps);
	const uint64_t *host = nm_boot_hosts();
	for (int r = 0; r < R; r++) {
		int sum = 0;
		for (int o = 0; o < R; o++)
			sum += host[o] == host[r] ? qps[o] : 0;
		most = sum > most ? sum : most;
	}
	free(qps);
	return most;
}

void nm_lock_run(const nm_lock_env *e, const nm_lock_type *lt, const nm_round *r)
{
	bool in = e->rank >= 0;
	if (in && lt->uses_mpi) {
		nm_worker w = {.index = 0, .cpu = -1, .arg = r->arg,
			       .meter = r->measure ? nm_meter_of(r->measure, 0) : NULL};
		r->setup(&w);
		nm_boot_barrier();
		r->body(&w);
		nm_measure_sit_out(r->measure);  /* if the body never reached the start */
	} else if (in) {
		nm_workers_run(r);
	} else if (lt->uses_mpi) {
		nm_boot_barrier(); /* matches the participants' start barrier */
		nm_measure_sit_out(r->measure);
	} else {
		nm_workers_sit_out(r->measure);
	}
	/* Asleep: ranks that are done or sit out must not spin on the cores of
	 * those still working (an MPI lock's windows also outlive every rank's
	 * last operation this way). */
	nm_boot_barrier_idle();
}

void nm_lock_thread_init(nm_lock_thread *t, const nm_lock_type *lt, nm_lock_env *e, int thread)
{
	t->env = e;
	t->thread = thread;
	t->scratch = (uint64_t *)((uint8_t *)e->mr->buf + e->scratch_off + (size_t)thread * NM_LOCK_SCRATCH);
	nm_poller_init(&t->poller, e->mesh, thread, e->timeout);
	if (lt->thread_init)
		lt->thread_init(t);
}

/* THREAD_PAIR: the thread owning byte `off` of a rank's table memory. */
static int owner_thread(const nm_lock_env *e, uint64_t off)
{
	uint64_t desc_end = e->desc_off + (uint64_t)e->nthreads * e->type->desc_bytes;
	if (e->type->desc_bytes && off >= e->desc_off && off < desc_end)
		return (int)((off - e->desc_off) / e->type->desc_bytes);
	return (int)(off / 64 % (uint64_t)e->nthreads);
}

nm_conn *nm_lock_conn(nm_lock_thread *t, int rank, uint64_t raddr)
{
	const nm_lock_env *e = t->env;
	int w = nm_lock_world(e, rank), q = 0;
	if (e->qp_layout == NM_LOCK_QPS_THREAD_PAIR)
		q = owner_thread(e, raddr - e->mesh->rmr[w].addr);
	nm_conn *c = nm_mesh_conn(e->mesh, t->thread, w, q);
	return c->qp ? c : NULL;
}

/* For the synchronous helpers: a lock type asking for a QP its layout did
 * not connect is a bug in the type, named here rather than crashing. */
static nm_conn *conn_for(nm_lock_thread *t, int rank, uint64_t raddr, const char *op)
{
	nm_conn *c = nm_lock_conn(t, rank, raddr);
	if (!c)
		nm_fatal("%s lock: rank %d thread %d has no QP for an RDMA %s to rank %d (%#" PRIx64 ")",
			 t->env->type->name, t->env->rank, t->thread, op, rank, raddr);
	return c;
}

static void wait_one(nm_lock_thread *t)
{
	struct ibv_wc wc;
	nm_poll_wait(&t->poller, &wc, 1);
}

uint64_t nm_lock_cas(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t expect, uint64_t swap)
{
	nm_post_atomic(conn_for(t, rank, raddr, "CAS"), NM_OP_CAS, t->scratch, t->env->mr->mr->lkey, raddr, expect,
		       swap, NM_WRID(NM_OP_CAS, 0), true);
	wait_one(t);
	return t->scratch[0];
}

uint64_t nm_lock_faa(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t add)
{
	nm_post_atomic(conn_for(t, rank, raddr, "FAA"), NM_OP_FAA, t->scratch, t->env->mr->mr->lkey, raddr, add, 0,
		       NM_WRID(NM_OP_FAA, 0), true);
	wait_one(t);
	return t->scratch[0];
}

void *nm_lock_read(nm_lock_thread *t, int rank, uint64_t raddr, uint32_t len)
{
	uint8_t *dst = (uint8_t *)t->scratch + 64;
	nm_post_rw(conn_for(t, rank, raddr, "READ"), NM_OP_READ, dst, t->env->mr->mr->lkey, raddr, len,
		   NM_WRID(NM_OP_READ, 0), true);
	wait_one(t);
	return dst;
}

uint64_t nm_lock_read64(nm_lock_thread *t, int rank, uint64_t raddr)
{
	uint64_t v;
	memcpy(&v, nm_lock_read(t, rank, raddr, 8), 8);
	return v;
}

void nm_lock_write64(nm_lock_thread *t, int rank, uint64_t raddr, uint64_t value)
{
	/* From registered memory, not inline: the value must stay valid until
	 * the NIC has read it, which the wait below guarantees. */
	t->scratch[1] = value;
	nm_post_rw(conn_for(t, rank, raddr, "WRITE"), NM_OP_WRITE, &t->scratch[1], t->env->mr->mr->lkey, raddr, 8,
		   NM_WRID(NM_OP_WRITE, 0), true);
	wait_one(t);
}

void nm_lock_fence(nm_lock_thread *t, int rank, uint64_t raddr)
{
	nm_fence_wait(&t->poller, conn_for(t, rank, raddr, "fence"));
}

/* The lock's 64-byte object and the thread's own descriptor, as words, for
 * a line that ends the job. remote: READ the object at its home too (only
 * where the home is known to answer; a wait that timed out may be on a dead
 * peer, and a READ that hangs would lose the line). */
static void lock_dump(nm_lock_thread *t, int key, bool remote, char *dump, size_t len)
{
	const nm_lock_env *e = t->env;
	const nm_lock_type *lt = e->type;
	int home = nm_lock_home(e, key);
	const uint64_t *words = nm_lock_local(e, lt, key);
	if (!words && remote)
		words = nm_lock_read(t, home, nm_lock_addr(e, lt, key, 0), 64);
	size_t off = (size_t)snprintf(dump, len, "lock words at home rank %d:", home);
	for (int i = 0; i < 8 && off < len; i++)
		off += words ? (size_t)snprintf(dump + off, len - off, " %#" PRIx64, words[i])
			     : (size_t)snprintf(dump + off, len - off, i ? "" : " (remote, not read)");
	const uint64_t *d = lt->desc_bytes ? nm_lock_desc_local(e, lt, t->thread) : NULL;
	for (size_t i = 0; d && i < lt->desc_bytes / 8 && off < len; i++)
		off += (size_t)snprintf(dump + off, len - off, "%s %#" PRIx64, i ? "" : "; own descriptor:", d[i]);
}

void nm_lock_pause(nm_lock_thread *t, nm_lock_wait *w, const char *type, int key, int peer, const char *word,
		   uint64_t value, const char *what)
{
	if (w->n == 0)
		nm_lock_waiting(t, key);
	nm_cpu_relax();
	if ((++w->n & 255) != 0)
		return;
	sched_yield();
	uint64_t now = nm_ticks();
	if (w->start == 0) {
		w->start = now;
	} else if (now - w->start > nm_ns_to_ticks((uint64_t)(t->env->timeout * 1e9))) {
		char dump[512] = "";
		if (t->env->type)
			lock_dump(t, key, false, dump, sizeof dump);
		nm_fatal("%s lock %d (home rank %d): rank %d thread %d waited more than %g s %s; peer rank %d, "
			 "%s = %#" PRIx64 "; %s", type, key, nm_lock_home(t->env, key), t->env->rank, t->thread,
			 t->env->timeout, what, peer, word, value, dump);
	}
}

void nm_lock_qid_bad(nm_lock_thread *t, const nm_lock_type *lt, int key, uint64_t id, size_t tail_off,
		     const char *where)
{
	const nm_lock_env *e = t->env;
	char dump[512];
	lock_dump(t, key, true, dump, sizeof dump);
	nm_fatal("%s lock %d: rank %d thread %d read queue id %#" PRIx64 " %s, which names no thread of "
		 "%d ranks x %d (tail at byte %zu; own id %#" PRIx64 "); %s",
		 lt->name, key, e->rank, t->thread, id, where, e->nranks, e->nthreads, tail_off,
		 nm_lock_qid(e->rank, t->thread), dump);
}
