/* netmem kv --system redis, the servers' side: the life cycle of a Redis
 * Cluster of Debian's redis-server for one point (start, form, prefill, the
 * scan after the run, stop); kv_redis.c drives it.
 *
 * Servers. Every rank starts, on its own node, ceil(T / --redis-threads)
 * instances (T = -T, the client threads per node; the paper: one instance
 * per 4 threads, each with 4 I/O threads), as children of the rank
 * (harness/service.c: stopped when the point ends, and killed with the job
 * when anything fails). No replication, no persistence (--save "",
 * --appendonly no), each in a private directory with its own cluster config
 * file. Ports: --redis-port + L x instances + i, L the rank's index among the
 * ranks sharing its host (so that nodes emulated on one host do not
 * collide); the cluster bus takes port + 10000.
 *
 * No open door (the nodes of a testbed have addresses reachable from
 * outside, and the suite runs as root there). A job on one host binds
 * 127.0.0.1; a job over several hosts binds only the address of the
 * interface the experiment's RDMA device uses (nm_dev_ipv4: the RoCE GID's
 * address, else its netdev's or IPoIB interface's) and announces it to the
 * cluster; the cluster bus (port + 10000) binds the same. Every instance
 * requires a secret made for the point (RD_SECRET_BYTES from getrandom on
 * rank 0, broadcast over the MPI bootstrap) that every client sends (AUTH);
 * it reaches the server in a configuration file of mode 0600 in the
 * instance's private directory, never on a command line (ps shows those to
 * every user), and lands in no log line or result. The configuration also
 * removes the commands that reach beyond the key space (rd_disabled: CONFIG
 * writes files as the server's user, MODULE loads code, DEBUG, replication,
 * scripting, persistence). Protected mode stays on.
 *
 * The cluster. The ranks exchange (address, port) of every instance (MPI, at
 * setup only), give instance k of N the hash slots [k*16384/N,
 * (k+1)*16384/N) (CLUSTER ADDSLOTSRANGE), MEET every other instance, and
 * wait until every instance reports cluster_state:ok with all N nodes
 * known. Clients place a key by its hash slot, CRC16 (XMODEM) of the key mod
 * 16384, as the Redis Cluster specification defines it, and send the command
 * to the slot's owner; a MOVED or ASK reply would mean the slot map
 * disagrees with the cluster's and marks the point invalid.
 *
 * Prefill (not timed): rank r SETs key ranks i = r mod nranks, 1000 per
 * pipeline. After the run each rank reads back its prefill keys (a sample
 * of at most 100000 of the job's when the prefill is larger) and checks each
 * value (kv_check_value); failures count as bad slots.
 *
 * Errors: an instance that does not start, join or answer ends the job with
 * one line; the servers are killed on the way out. */
#include "kv_redis.h"
#include "alloc.h"
#include "boot.h"
#include "log.h"
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define RD_BATCH 1000            /* commands per prefill and scan pipeline */
#define RD_SCAN_MAX 100000       /* keys the scan reads back, the job's */
#define RD_STOP_GRACE 5.0        /* seconds between SIGTERM and SIGKILL */

/* ---- hash slots ------------------------------------------------------------ */

/* CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection,
 * as the Redis Cluster specification (cluster-spec, "Keys distribution
 * model", Appendix A) defines it: crc16("123456789") = 0x31c3. Bitwise: the
 * slot is computed once per operation, far from the cost of its round trip. */
static uint16_t rd_crc16(const char *s, size_t n)
{
	uint16_t crc = 0;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)((uint8_t)s[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (uint16_t)(crc << 1 ^ 0x1021) : (uint16_t)(crc << 1);
	}
	return crc;
}

/* The key's slot; a {hash tag} with at least one character hashes alone
 * (the spec's rule; our hex keys have none). */
int rd_slot(const char *key, size_t n)
{
	const char *open = memchr(key, '{', n);
	if (open) {
		size_t at = (size_t)(open - key) + 1;
		const char *close = memchr(key + at, '}', n - at);
		if (close && close > key + at)
			return rd_crc16(key + at, (size_t)(close - key) - at) & (RD_SLOTS - 1);
	}
	return rd_crc16(key, n) & (RD_SLOTS - 1);
}

/* ---- the cluster ----------------------------------------------------------- */

static int rd_slot_lo(int k, int n) { return (int)((int64_t)k * RD_SLOTS / n); }

/* Where this rank's instances go: ports, address, binding. */
static int rd_plan(rd_cluster *cl, char *err, size_t len)
{
	const uint64_t *host = nm_boot_hosts();
	int local = 0;
	for (int r = 0; r < cl->nranks; r++) {
		local += r < cl->rank && host[r] == host[cl->rank];
		cl->multi_host |= host[r] != host[0];
	}
	cl->port0 = cl->p->redis_port + local * cl->n_local;
	int last = cl->port0 + cl->n_local - 1;
	if (last + 10000 > 65535)
		return nm_errf(err, len, "redis: port %d and its cluster bus port %d do not fit (ports above 55535 "
			       "have no bus port): lower --redis-port", last, last + 10000);
	if (!cl->multi_host)
		snprintf(cl->addr, sizeof cl->addr, "127.0.0.1");
	else if (nm_dev_ipv4(cl->dev, cl->addr, sizeof cl->addr) != 0)
		return nm_errf(err, len, "redis: the interface of RDMA device %s has no IPv4 address for the "
			       "other nodes' clients to reach this node's instances (the servers bind that "
			       "interface only): give it one, or choose a device with -d", cl->dev->name);
	for (int i = 0; i < cl->n_local; i++)
		for (int bus = 0; bus <= 10000; bus += 10000)
			if (nm_port_accepts("127.0.0.1", cl->port0 + i + bus) ||
			    nm_port_accepts(cl->addr, cl->port0 + i + bus))
				return nm_errf(err, len, "redis: port %d is taken on this host (something accepts "
					       "connections there; a redis instance needs port and port+10000): "
					       "choose another --redis-port", cl->port0 + i + bus);
	return 0;
}

/* Commands the servers do without: they reach beyond the key space (files,
 * code, other servers, the process). The suite's own use is AUTH, GET, SET,
 * INFO and CLUSTER. All exist in Redis 7, which an unknown name would stop. */
static const char *const rd_disabled[] = {
	"CONFIG", "MODULE", "DEBUG", "SAVE", "BGSAVE", "BGREWRITEAOF", "SHUTDOWN", "REPLICAOF", "SLAVEOF",
	"SYNC", "PSYNC", "FAILOVER", "MIGRATE", "MONITOR", "ACL", "EVAL", "EVALSHA", "EVAL_RO",
	"EVALSHA_RO", "SCRIPT", "FUNCTION", "FCALL", "FCALL_RO"};

/* The per-point secret: rank 0's random bytes, as hex, on every rank. */
static int rd_secret(rd_cluster *cl, char *err, size_t len)
{
	int failed = 0;
	if (cl->rank == 0) {
		static const char hex[] = "0123456789abcdef";
		unsigned char raw[RD_SECRET_BYTES];
		if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
			failed = 1;
		for (int i = 0; i < RD_SECRET_BYTES; i++) {
			cl->secret[2 * i] = hex[raw[i] >> 4];
			cl->secret[2 * i + 1] = hex[raw[i] & 15];
		}
		cl->secret[RD_SECRET_HEX] = 0;
		explicit_bzero(raw, sizeof raw);
	}
	nm_boot_bcast(&failed, sizeof failed, 0);
	if (failed)
		return nm_errf(err, len, "redis: rank 0 could not draw the servers' secret (getrandom)");
	nm_boot_bcast(cl->secret, sizeof cl->secret, 0);
	return 0;
}

/* The servers' configuration file: the secret and the disabled commands. */
static char *rd_conf(const rd_cluster *cl)
{
	size_t cap = 64 + RD_SECRET_HEX, n;
	for (size_t i = 0; i < sizeof rd_disabled / sizeof *rd_disabled; i++)
		cap += 24 + strlen(rd_disabled[i]);
	char *conf = nm_calloc(cap, 1);
	n = (size_t)snprintf(conf, cap, "requirepass %s\nprotected-mode yes\n", cl->secret);
	for (size_t i = 0; i < sizeof rd_disabled / sizeof *rd_disabled; i++)
		n += (size_t)snprintf(conf + n, cap - n, "rename-command %s \"\"\n", rd_disabled[i]);
	return conf;
}

/* Starts this rank's instances and waits until each accepts connections. */
static int rd_start(rd_cluster *cl, char *err, size_t len)
{
	char port[16], io[16], node_timeout[24], maxclients[24];
	snprintf(io, sizeof io, "%d", cl->p->redis_threads);
	snprintf(maxclients, sizeof maxclients, "%ld", cl->maxclients);
	snprintf(node_timeout, sizeof node_timeout, "%.0f", cl->timeout * 1000 < 15000 ? 15000 : cl->timeout * 1000);
	char *conf = rd_conf(cl);
	nm_service_file file = {"redis.conf", conf};
	int rc = 0;
	for (int i = 0; i < cl->n_local && !rc; i++) {
		snprintf(port, sizeof port, "%d", cl->port0 + i);
		/* The file first: redis-server reads its options after it. */
		char *argv[] = {cl->bin, "redis.conf", "--port", port, "--bind", cl->addr, "--save", "",
				"--appendonly", "no", "--cluster-enabled", "yes", "--cluster-config-file",
				"nodes.conf", "--cluster-node-timeout", node_timeout, "--cluster-announce-ip",
				cl->addr, "--io-threads", io, "--io-threads-do-reads", "yes", "--maxclients", maxclients, "--daemonize", "no",
				"--logfile", "", "--dir", ".", NULL};
		char name[64];
		snprintf(name, sizeof name, "redis-server :%d", cl->port0 + i);
		rc = nm_service_start(&cl->srv[i], "netmem-redis-", name, argv, &file, err, len);
	}
	explicit_bzero(conf, strlen(conf));
	free(conf);
	for (int i = 0; i < cl->n_local && !rc; i++)
		rc = nm_service_wait_port(&cl->srv[i], cl->addr, cl->port0 + i, cl->timeout, err, len);
	return rc;
}

/* Every rank's instances, by global index; the slot map. */
static void rd_gather(rd_cluster *cl)
{
	rd_inst *mine = nm_calloc((size_t)cl->n_local, sizeof *mine);
	for (int i = 0; i < cl->n_local; i++) {
		snprintf(mine[i].host, sizeof mine[i].host, "%s", cl->addr);
		mine[i].port = cl->port0 + i;
		mine[i].rank = cl->rank;
	}
	cl->all = nm_calloc((size_t)cl->n_all, sizeof *cl->all);
	nm_boot_allgather(mine, cl->all, (size_t)cl->n_local * sizeof *mine);
	free(mine);
	cl->owner = nm_calloc(RD_SLOTS, sizeof *cl->owner);
	for (int k = 0; k < cl->n_all; k++)
		for (int s = rd_slot_lo(k, cl->n_all); s < rd_slot_lo(k + 1, cl->n_all); s++)
			cl->owner[s] = (uint16_t)k;
}

/* ---- the main thread's connections ------------------------------------------ */

redisContext *rd_connect(const rd_cluster *cl, const rd_inst *in, char *err, size_t len)
{
	struct timeval tv = {(time_t)cl->timeout,
			     (suseconds_t)((cl->timeout - (double)(time_t)cl->timeout) * 1e6)};
	redisContext *c = redisConnectWithTimeout(in->host, in->port, tv);
	if (!c || c->err) {
		nm_errf(err, len, "redis: cannot connect to instance %s:%d (rank %d's): %s", in->host, in->port,
			in->rank, c ? c->errstr : "out of memory");
		redisFree(c);
		return NULL;
	}
	redisSetTimeout(c, tv);  /* a reply that does not come is an error, not a hang */
	redisReply *r = redisCommand(c, "AUTH %s", cl->secret);
	bool ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
	if (!ok)  /* the reply names no secret; the command is not repeated */
		nm_errf(err, len, "redis: instance %s:%d (rank %d's) refused this job's secret: %s", in->host,
			in->port, in->rank, !r ? c->errstr : r->type == REDIS_REPLY_ERROR ? r->str : "no OK");
	freeReplyObject(r);
	if (!ok) {
		redisFree(c);
		return NULL;
	}
	return c;
}

/* One command on a blocking connection: its reply, or NULL with err (an
 * error reply too). */
static redisReply *rd_cmd(rd_cluster *cl, int k, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	redisReply *rep = redisvCommand(cl->adm[k], fmt, ap);
	va_end(ap);
	const rd_inst *in = &cl->all[k];
	if (!rep) {
		nm_errf(err, len, "redis: instance %s:%d: %s: %s", in->host, in->port, fmt, cl->adm[k]->errstr);
	} else if (rep->type == REDIS_REPLY_ERROR) {
		nm_errf(err, len, "redis: instance %s:%d: %s: %s", in->host, in->port, fmt, rep->str);
		freeReplyObject(rep);
		rep = NULL;
	}
	return rep;
}

static int rd_connect_all(rd_cluster *cl, char *err, size_t len)
{
	cl->adm = nm_calloc((size_t)cl->n_all, sizeof *cl->adm);
	for (int k = 0; k < cl->n_all; k++)
		if (!(cl->adm[k] = rd_connect(cl, &cl->all[k], err, len)))
			return -1;
	return 0;
}

/* Our slot function against the server's, on one of our instances. */
static int rd_check_keyslot(rd_cluster *cl, int k, char *err, size_t len)
{
	char key[RD_KEYLEN];
	rd_key_str(kv_key(0), key);
	redisReply *a = rd_cmd(cl, k, err, len, "CLUSTER KEYSLOT %b", key, (size_t)RD_KEYLEN);
	redisReply *b = a ? rd_cmd(cl, k, err, len, "CLUSTER KEYSLOT 123456789") : NULL;
	int rc = 0;
	if (a && b && (a->integer != rd_slot(key, RD_KEYLEN) || b->integer != 0x31c3 % RD_SLOTS))
		rc = nm_errf(err, len, "redis: this suite's hash slot of %.16s is %d, the server's %lld", key,
			     rd_slot(key, RD_KEYLEN), a->integer);
	else if (!a || !b)
		rc = -1;
	freeReplyObject(a);
	freeReplyObject(b);
	return rc;
}

/* This rank's instances take their slots and meet every other instance. */
static int rd_form(rd_cluster *cl, char *err, size_t len)
{
	if (rd_connect_all(cl, err, len))
		return -1;
	for (int i = 0; i < cl->n_local; i++) {
		int k = cl->rank * cl->n_local + i;
		redisReply *r = rd_cmd(cl, k, err, len, "CLUSTER ADDSLOTSRANGE %d %d", rd_slot_lo(k, cl->n_all),
				       rd_slot_lo(k + 1, cl->n_all) - 1);
		if (!r)
			return -1;
		freeReplyObject(r);
		for (int h = 0; h < cl->n_all; h++) {
			if (h == k)
				continue;
			if (!(r = rd_cmd(cl, k, err, len, "CLUSTER MEET %s %d", cl->all[h].host, cl->all[h].port)))
				return -1;
			freeReplyObject(r);
		}
	}
	return rd_check_keyslot(cl, cl->rank * cl->n_local, err, len);
}

/* The value of `field` in an INFO-style reply ("field:value\r\n"). */
static long long rd_info_field(const char *info, const char *field, char *out, size_t len)
{
	size_t n = strlen(field);
	for (const char *s = info; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, field, n) && s[n] == ':') {
			size_t v = strcspn(s + n + 1, "\r\n");
			if (out)
				snprintf(out, len, "%.*s", (int)v, s + n + 1);
			return atoll(s + n + 1);
		}
	if (out && len)
		out[0] = 0;
	return -1;
}

/* Whether instance k sees the whole cluster: state ok, every node, every slot. */
static bool rd_instance_ok(rd_cluster *cl, int k, char *state, size_t slen, char *err, size_t len)
{
	redisReply *r = rd_cmd(cl, k, err, len, "CLUSTER INFO");
	if (!r)
		return false;
	rd_info_field(r->str, "cluster_state", state, slen);
	bool ok = !strcmp(state, "ok") && rd_info_field(r->str, "cluster_known_nodes", NULL, 0) == cl->n_all &&
		  rd_info_field(r->str, "cluster_slots_ok", NULL, 0) == RD_SLOTS;
	freeReplyObject(r);
	return ok;
}

/* Waits until every instance of this rank reports cluster_state:ok. */
static int rd_wait_ok(rd_cluster *cl, char *err, size_t len)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < cl->n_local;) {
		int k = cl->rank * cl->n_local + i;
		char state[32];
		err[0] = 0;
		if (rd_instance_ok(cl, k, state, sizeof state, err, len)) {
			i++;
			continue;
		}
		if (err[0])
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > cl->timeout)
			return nm_errf(err, len, "redis: instance %s:%d: the cluster of %d instances did not form "
				       "within %.0f s (--timeout): cluster_state:%s", cl->all[k].host,
				       cl->all[k].port, cl->n_all, cl->timeout, state);
		nm_boot_alive();
		struct timespec d = {0, 50000000};
		nanosleep(&d, NULL);
	}
	redisReply *r = rd_cmd(cl, cl->rank * cl->n_local, err, len, "INFO server");
	if (!r)
		return -1;
	rd_info_field(r->str, "redis_version", cl->version, sizeof cl->version);
	freeReplyObject(r);
	return 0;
}

/* ---- pipelines of the main thread (prefill, scan) ----------------------------- */

typedef struct rd_pipe {
	rd_cluster *cl;
	uint64_t **keys;          /* [n_all][RD_BATCH]: the keys of the commands in flight */
	uint32_t *n;              /* [n_all] */
	uint32_t total;
	void (*reply)(struct rd_pipe *, int k, uint64_t key, const redisReply *);
	void *arg;
} rd_pipe;

static void rd_pipe_init(rd_pipe *pp, rd_cluster *cl,
			 void (*reply)(rd_pipe *, int, uint64_t, const redisReply *), void *arg)
{
	*pp = (rd_pipe){.cl = cl, .keys = nm_calloc((size_t)cl->n_all, sizeof *pp->keys),
			.n = nm_calloc((size_t)cl->n_all, sizeof *pp->n), .reply = reply, .arg = arg};
	for (int k = 0; k < cl->n_all; k++)
		pp->keys[k] = nm_calloc(RD_BATCH, sizeof **pp->keys);
}

static void rd_pipe_free(rd_pipe *pp)
{
	for (int k = 0; k < pp->cl->n_all; k++)
		free(pp->keys[k]);
	free(pp->keys);
	free(pp->n);
}

/* Reads every reply of the commands in flight. */
static void rd_pipe_drain(rd_pipe *pp, const char *what)
{
	rd_cluster *cl = pp->cl;
	for (int k = 0; k < cl->n_all; k++) {
		for (uint32_t i = 0; i < pp->n[k]; i++) {
			void *rep = NULL;
			if (redisGetReply(cl->adm[k], &rep) != REDIS_OK || !rep)
				nm_fatal("redis %s: instance %s:%d: %s (no reply within --timeout %.0f s, or the "
					 "connection was lost)", what, cl->all[k].host, cl->all[k].port,
					 cl->adm[k]->errstr, cl->timeout);
			pp->reply(pp, k, pp->keys[k][i], rep);
			freeReplyObject(rep);
		}
		pp->n[k] = 0;
	}
	pp->total = 0;
	nm_boot_alive();
}

/* The command was appended to instance k's connection. */
static void rd_pipe_added(rd_pipe *pp, int k, uint64_t key, const char *what)
{
	pp->keys[k][pp->n[k]++] = key;
	if (++pp->total == RD_BATCH)
		rd_pipe_drain(pp, what);
}

static void rd_prefill_reply(rd_pipe *pp, int k, uint64_t key, const redisReply *r)
{
	const rd_inst *in = &pp->cl->all[k];
	if (r->type != REDIS_REPLY_STATUS || strcmp(r->str, "OK"))
		nm_fatal("redis prefill: SET of key 0x%016" PRIx64 " on instance %s:%d answered %s", key, in->host,
			 in->port, r->type == REDIS_REPLY_ERROR ? r->str : "something other than OK");
}

void rd_prefill(rd_cluster *cl)
{
	const kv_point *p = cl->p;
	uint64_t *val = nm_calloc(p->load.value_words, sizeof *val);
	rd_pipe pp;
	rd_pipe_init(&pp, cl, rd_prefill_reply, NULL);
	for (uint64_t i = (uint64_t)cl->rank; i < p->load.prefill; i += (uint64_t)cl->nranks) {
		uint64_t key = kv_key(i);
		char ks[RD_KEYLEN];
		rd_key_str(key, ks);
		int k = cl->owner[rd_slot(ks, RD_KEYLEN)];
		kv_value_fill(val, p->load.value_words, key, KV_PREFILL_WRITER, 0);
		if (redisAppendCommand(cl->adm[k], "SET %b %b", ks, (size_t)RD_KEYLEN, val, (size_t)p->load.value_size))
			nm_fatal("redis prefill: cannot queue a SET for %s:%d: out of memory", cl->all[k].host,
				 cl->all[k].port);
		rd_pipe_added(&pp, k, key, "prefill");
	}
	rd_pipe_drain(&pp, "prefill");
	rd_pipe_free(&pp);
	free(val);
}

/* ---- the scan after the run ----------------------------------------------------- */

typedef struct rd_scan_state {
	kv_checker check;
	uint64_t *val;
	nm_measure *ms;
	uint64_t scanned;
} rd_scan_state;

static void rd_scan_bad(rd_scan_state *s, int rank, uint64_t key, const char *what)
{
	s->ms->rank_c[KV_C_BAD_SLOTS]++;
	nm_error_note(&s->ms->rank_err, "rank %d: scan: key 0x%016" PRIx64 ": %s", rank, key, what);
}

static void rd_scan_reply(rd_pipe *pp, int k, uint64_t key, const redisReply *r)
{
	(void)k;
	rd_scan_state *s = pp->arg;
	const kv_point *p = pp->cl->p;
	s->scanned++;
	if (r->type == REDIS_REPLY_NIL)
		rd_scan_bad(s, pp->cl->rank, key, "a prefilled key is missing");
	else if (r->type != REDIS_REPLY_STRING)
		rd_scan_bad(s, pp->cl->rank, key, r->type == REDIS_REPLY_ERROR ? r->str : "GET answered no string");
	else if (r->len != p->load.value_size)
		rd_scan_bad(s, pp->cl->rank, key, "the value has the wrong length");
	else {
		memcpy(s->val, r->str, r->len);
		if (kv_check_value(&s->check, key, s->val, p->load.value_words) != KV_READ_OK)
			rd_scan_bad(s, pp->cl->rank, key, s->check.first);
	}
}

/* Reads back this rank's prefill keys (every stride-th when the prefill is
 * larger than RD_SCAN_MAX) and checks their values. Returns keys read. */
uint64_t rd_scan(rd_cluster *cl, nm_measure *ms)
{
	const kv_point *p = cl->p;
	uint64_t step = (uint64_t)cl->nranks, stride = (p->load.prefill + RD_SCAN_MAX - 1) / RD_SCAN_MAX;
	rd_scan_state s = {.val = nm_calloc(p->load.value_words, sizeof(uint64_t)), .ms = ms};
	kv_checker_init(&s.check, 1u << 16, false);
	rd_pipe pp;
	rd_pipe_init(&pp, cl, rd_scan_reply, &s);
	for (uint64_t i = (uint64_t)cl->rank; i < p->load.prefill; i += step * stride) {
		uint64_t key = kv_key(i);
		char ks[RD_KEYLEN];
		rd_key_str(key, ks);
		int k = cl->owner[rd_slot(ks, RD_KEYLEN)];
		if (redisAppendCommand(cl->adm[k], "GET %b", ks, (size_t)RD_KEYLEN))
			nm_fatal("redis scan: cannot queue a GET for %s:%d: out of memory", cl->all[k].host,
				 cl->all[k].port);
		rd_pipe_added(&pp, k, key, "scan");
	}
	rd_pipe_drain(&pp, "scan");
	rd_pipe_free(&pp);
	kv_checker_free(&s.check);
	free(s.val);
	return s.scanned;
}

/* ---- one point ---------------------------------------------------------------------- */

static int rd_find(const kv_point *p, char *bin, size_t binlen, char *err, size_t len)
{
	if (nm_service_find(p->redis_server, bin, binlen, err, len) == 0)
		return 0;
	return nm_errf(err, len, "redis: the server binary --redis-server %s is not there (%s); install "
		       "redis-server (Debian: apt-get install redis-server) or name it", p->redis_server,
		       strchr(p->redis_server, '/') ? "no such executable" : "not found in PATH");
}

int kv_redis_check(const kv_point *p, char *err, size_t len)
{
	char bin[PATH_MAX];
	return rd_find(p, bin, sizeof bin, err, len);
}

void rd_setup(rd_cluster *cl)
{
	char err[1024] = "";
	/* Checked at decode already; again here, as the point is about to use it:
	 * one line, exit 2, every rank agreeing (nm_boot_check). */
	int failed = rd_find(cl->p, cl->bin, sizeof cl->bin, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_USAGE);
	failed = rd_plan(cl, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_USAGE);
	failed = rd_secret(cl, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	failed = rd_start(cl, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	rd_gather(cl);
	failed = rd_form(cl, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
	failed = rd_wait_ok(cl, err, sizeof err);
	nm_boot_check(failed ? err : NULL, NM_EXIT_FAIL);
}

/* Stops this rank's instances (all asked at once) and frees the cluster. */
void rd_teardown(rd_cluster *cl)
{
	for (int k = 0; cl->adm && k < cl->n_all; k++)
		redisFree(cl->adm[k]);
	for (int i = 0; i < cl->n_local; i++)
		nm_service_term(&cl->srv[i]);
	for (int i = 0; i < cl->n_local; i++)
		if (!nm_service_stop(&cl->srv[i], RD_STOP_GRACE))
			nm_warn("redis: %s did not stop on SIGTERM within %.0f s: killed", cl->srv[i].name,
				RD_STOP_GRACE);
	explicit_bzero(cl->secret, sizeof cl->secret);
	free(cl->adm);
	free(cl->srv);
	free(cl->all);
	free(cl->owner);
}

json_t *rd_effective(const rd_cluster *cl, uint64_t scanned)
{
	json_t *map = json_array();
	for (int k = 0; k < cl->n_all; k++)
		json_array_append_new(map, json_sprintf("%s:%d %d-%d", cl->all[k].host, cl->all[k].port,
							rd_slot_lo(k, cl->n_all), rd_slot_lo(k + 1, cl->n_all) - 1));
	char binding[224];
	snprintf(binding, sizeof binding, "%s%s; a secret made for the point (requirepass, not recorded); "
		 "CONFIG, MODULE, DEBUG and %zu more commands disabled", cl->addr,
		 cl->multi_host ? " only (the RDMA device's interface; several hosts)" : " (one host)",
		 sizeof rd_disabled / sizeof *rd_disabled - 3);
	bool memtier = cl->p->system == KV_REDIS;
	return json_pack("{s:i, s:i, s:s, s:s, s:{s:i, s:i, s:o}, s:s, s:I, s:s, s:i, s:I}", "instances_per_node",
			 cl->n_local, "io_threads", cl->p->redis_threads, "redis_version", cl->version,
			 "redis_server", cl->bin, "cluster", "instances", cl->n_all, "slots", RD_SLOTS,
			 "slot_map", map, "binding", binding, "scanned_keys", (json_int_t)scanned, "clients",
			 memtier ? "memtier-style: --window clients per thread on one libevent loop, each with a "
				   "connection per instance and one command in flight"
				 : "pipelined: one hiredis connection per instance per thread, --window commands in "
				   "flight per thread",
			 "clients_per_thread", cl->clients, "maxclients", (json_int_t)cl->maxclients);
}
