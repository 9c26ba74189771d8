/* netmem clover-path: Clover's contention resolution (Grant and Snoeren,
 * Sec. 3; their prototype, Sec. 3.3, is a DPDK software switch) where RoCEv2
 * packets really pass. There is no programmable switch here; netfilter's
 * NFQUEUE hands every RoCEv2 packet (UDP port 4791) of this host to this
 * process, which runs it through the pure rewrite module
 * (primitives/packet/clover_resolve.h) and sends it on, edited or not.
 * Nothing is dropped by choice.
 *
 * Where it must run (see workloads/clover/README.md, "Where the path runs"):
 * - Soft-RoCE: on the memory node's host, hook `local` (input: the clients'
 *   requests; output: the memory node's responses). The clients must be on
 *   other hosts: rxe delivers traffic between its own GIDs through an
 *   internal loopback that bypasses netfilter.
 * - Hardware RoCE: the NIC bypasses its host's kernel, so the process runs
 *   on a Linux host that routes between the clients and the memory nodes,
 *   hook `forward` (netmem clover --path forward makes that host a rank of
 *   the job and sets its routes: clover_route.h).
 *
 * Its rules cannot outlive it: they are one nftables table with the `owner`
 * flag, created through an `nft -i` child that reads its commands from a
 * pipe. The kernel deletes an owned table when the netlink socket that made
 * it closes, that is when nft exits, and nft exits when the pipe's writer,
 * this process, is gone, however it ended (SIGKILL included). A table of
 * the same name owned by another process makes the start fail, so two
 * instances never share a queue.
 *
 * The process writes the file `ready` in its working directory once its
 * queue is bound and its rules are listed by nft, and its counters (JSON)
 * to --counters when SIGTERM or SIGINT stops it.
 *
 * netmem clover uses cl_path_start/stop (clover_path.h) to run one per
 * point, with rewriting off or on, so both arms cross the same path. */
#include "clover_path.h"
#include "durable.h"
#include "experiment.h"
#include "kv_core.h"
#include "log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROCE_PORT 4791

/* ---- the process: rules ------------------------------------------------------------ */

typedef enum { HOOK_LOCAL, HOOK_FORWARD } path_hook;
static const char *const hook_names[] = {"local", "forward"};

static void table_name(char *out, size_t len, int queue) { snprintf(out, len, "netmem_clover_q%d", queue); }

/* Starts `nft -i` with the table's commands on its stdin; the pipe stays
 * open for the process's lifetime (see the file header). */
static FILE *rules_install(int queue, path_hook hook)
{
	char t[64];
	table_name(t, sizeof t, queue);
	FILE *nft = popen("exec nft -i >/dev/null", "w");
	if (!nft)
		return NULL;
	fprintf(nft, "add table inet %s { flags owner; }\n", t);
	static const char *const chains[][2] = {{"in", "input"}, {"out", "output"}, {"through", "forward"}};
	for (size_t i = 0; i < 3; i++) {
		if ((hook == HOOK_FORWARD) != (i == 2))
			continue;
		fprintf(nft, "add chain inet %s %s { type filter hook %s priority 0; }\n", t, chains[i][0], chains[i][1]);
		fprintf(nft, "add rule inet %s %s udp dport %d queue num %d\n", t, chains[i][0], ROCE_PORT, queue);
	}
	fflush(nft);
	return nft;
}

/* The queue rules nft lists in our table (2 for local, 1 for forward when in place). */
static int rules_listed(int queue)
{
	char t[64], cmd[160], line[256];
	table_name(t, sizeof t, queue);
	snprintf(cmd, sizeof cmd, "nft list table inet %s 2>/dev/null", t);
	FILE *f = popen(cmd, "r");
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, "queue") != NULL;
	if (f)
		pclose(f);
	return n;
}

/* ---- the process: packets ---------------------------------------------------------- */

typedef struct path_run {
	nm_rw rw;
	cl_path_stats st;   /* st.rw is filled at the end */
} path_run;

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
	(void)msg;
	path_run *pr = data;
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint32_t id = ph ? ntohl(ph->packet_id) : 0;
	unsigned char *buf;
	int len = nfq_get_payload(nfa, &buf);
	bool edited = len > 0 && nm_rw_packet(&pr->rw, buf, (size_t)len) == NM_RW_REWRITTEN;
	if (nfq_set_verdict(qh, id, NF_ACCEPT, edited ? (uint32_t)len : 0, edited ? buf : NULL) < 0)
		pr->st.verdict_errors++;
	return 0;
}

static volatile sig_atomic_t stop_requested;
static void on_stop(int sig) { (void)sig; stop_requested = 1; }

static int write_counters(const char *path, const path_run *pr)
{
	cl_path_stats st = pr->st;
	st.rw = pr->rw.c;
	return cl_path_write_counters(path, &st);
}

/* Tracked keys from FILE: "KEY TAIL" per line, hex, TAIL 0 = unknown. */
static int track_file(nm_rw *rw, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		nm_usage_error("clover-path: cannot read --track %s: %s", path, strerror(errno));
	uint64_t key, tail;
	int n = 0, rc;
	while ((rc = fscanf(f, "%" SCNx64 " %" SCNx64, &key, &tail)) == 2) {
		if (nm_rw_track(rw, key, tail))
			nm_usage_error("clover-path: --track %s: more keys than --top-max, or a reserved key", path);
		n++;
	}
	bool bad = rc != EOF;
	fclose(f);
	if (bad)
		nm_usage_error("clover-path: --track %s: line %d is not 'KEY TAIL' in hex", path, n + 1);
	return n;
}

static const nm_opt path_opts[] = {
	{"queue", 'q', NM_OPT_INT, "4791", 0, 65535, NULL, 0, "NFQUEUE number (the netfilter table is netmem_clover_qN)"},
	{"hook", 0, NM_OPT_ENUM, "local", 0, 0, "local,forward", 0,
	 "local: this host's input and output (Soft-RoCE memory node); forward: a routing host between clients and memory nodes"},
	{"rewrite", 0, NM_OPT_BOOL, "1", 0, 0, NULL, 0, "rewrite losing CASes (0: observe and count only)"},
	{"track", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0, "tracked keys and their first tails: a file of 'KEY TAIL' hex lines"},
	{"top", 0, NM_OPT_INT, "0", 0, 1 << 24, NULL, 0,
	 "without --track: track netmem clover's N hottest keys (ranks 0..N-1), tails learnt from the traffic"},
	{"top-max", 0, NM_OPT_INT, "1024", 1, 1 << 24, NULL, 0, "tracked keys at most (the in-path state's size)"},
	{"conns", 0, NM_OPT_INT, "256", 1, 1 << 20, NULL, 0, "client connections tracked at most"},
	{"counters", 0, NM_OPT_STR, NULL, 0, 0, NULL, 0, "write the counters (JSON) to this file when stopped"},
	{"state-table", 0, NM_OPT_SIZE, NULL, 1, 1ll << 30, NULL, NM_OPT_LIST,
	 "print the path's state in bytes for these tracked-key counts (with --conns connections) and exit "
	 "(Fig. 3; no queue, no root)"},
	{"output", 'o', NM_OPT_STR, NULL, 0, 0, NULL, 0,
	 "with --state-table: also write the table as a result document (experiment clover-state) to this file"},
	NM_OPT_END,
};
static const nm_opt *const path_tables[] = {path_opts, NULL};

static bool opt_set(const json_t *spec, const char *key) { return !json_is_null(json_object_get(spec, key)); }

static void path_init(path_run *pr, const json_t *spec)
{
	nm_rw_config c;
	nm_rw_config_default(&c);
	c.rewrite = nm_cfg_bool(spec, "rewrite");
	c.top_n = (size_t)nm_cfg_int(spec, "top_max");
	c.max_conns = (size_t)nm_cfg_int(spec, "conns");
	if (nm_rw_init(&pr->rw, &c))
		nm_fatal("clover-path: the rewrite module's tables (%zu keys, %zu connections) could not be allocated",
			 c.top_n, c.max_conns);
	if (opt_set(spec, "track")) {
		track_file(&pr->rw, nm_cfg_str(spec, "track"));
		return;
	}
	int64_t top = nm_cfg_int(spec, "top");
	if ((size_t)top > c.top_n)
		nm_usage_error("clover-path: --top %" PRId64 " is more than --top-max %zu", top, c.top_n);
	for (int64_t r = 0; r < top; r++)
		nm_rw_track(&pr->rw, kv_key((uint64_t)r), 0);
}

/* The paper's switch: "2.5% of the available memory (64 MB) on a Barefoot
 * Tofino 2" for 100K keys of 16 bytes, so decimal megabytes. */
#define TOFINO2_BYTES 64e6

/* One key count's entry of the state table's document. */
static json_t *state_entry(size_t keys, size_t conns)
{
	size_t b = nm_rw_state_bytes(keys, conns);
	return json_pack("{s:{s:I, s:I}, s:b, s:{s:I, s:f, s:f}}", "params", "keys", (json_int_t)keys, "conns",
			 (json_int_t)conns, "valid", 1, "geomean", "state_bytes", (json_int_t)b, "bytes_per_key",
			 (double)b / (double)keys, "tofino2_share", (double)b / TOFINO2_BYTES);
}

/* Fig. 3: the bytes of the module's real tables (nm_rw_state_bytes), per
 * key count; with --output, also as a document netmem report reads (no
 * NIC: computed from the tables' sizes, as the simulator's documents). */
static int state_table(const json_t *spec)
{
	const json_t *v = json_object_get(spec, "state_table");
	size_t conns = (size_t)nm_cfg_int(spec, "conns"), i;
	const json_t *k;
	json_t *counts = json_is_array(v) ? json_incref((json_t *)v) : json_pack("[O]", v), *summary = json_array();
	printf("# keys_tracked state_bytes (connections: %zu; netmem clover-path's tables, primitives/packet/clover_resolve.h)\n",
	       conns);
	json_array_foreach(counts, i, k) {
		size_t keys = (size_t)json_integer_value(k);
		printf("%zu %zu\n", keys, nm_rw_state_bytes(keys, conns));
		json_array_append_new(summary, state_entry(keys, conns));
	}
	json_decref(counts);
	if (opt_set(spec, "output")) {
		json_t *doc = json_pack("{s:s, s:s, s:{s:I, s:f}, s:b, s:o}", "experiment", "clover-state", "mode",
					"state-table", "params", "conns", (json_int_t)conns, "switch_bytes", TOFINO2_BYTES,
					"valid", 1, "summary", summary);
		summary = NULL;
		if (!doc)
			nm_fatal("clover-path: out of memory for the state table's document");
		if (nm_write_json_atomic(nm_cfg_str(spec, "output"), doc, JSON_INDENT(1)))
			nm_fatal("clover-path: cannot write %s: %s", nm_cfg_str(spec, "output"), strerror(errno));
		json_decref(doc);
	}
	json_decref(summary);
	return 0;
}

static int path_main(int argc, char **argv)
{
	if (nm_opt_wants_help(argc, argv)) {
		nm_opt_usage(stdout, "netmem clover-path",
			     "Clover's contention resolution in the packet path (NFQUEUE; needs root).", path_tables);
		printf("\nRuns until SIGTERM or SIGINT. netmem clover --resolve off|on starts one per point\n"
		       "on the memory node's host (--hook local), or with --path forward on the forwarding\n"
		       "host that routes between the others (--hook forward).\n");
		return 0;
	}
	char err[512];
	json_t *spec = nm_opt_parse(path_tables, NULL, NULL, argc - 1, argv + 1, err, sizeof err);
	if (!spec)
		nm_usage_error("clover-path: %s", err);
	if (opt_set(spec, "state_table")) {
		int rc = state_table(spec);
		json_decref(spec);
		return rc;
	}
	int queue = (int)nm_cfg_int(spec, "queue");
	path_hook hook = strcmp(nm_cfg_str(spec, "hook"), "forward") ? HOOK_LOCAL : HOOK_FORWARD;
	path_run pr = {0};
	path_init(&pr, spec);

	struct nfq_handle *h = nfq_open();
	if (!h)
		nm_fatal("clover-path: nfq_open failed: %s (root, and the nfnetlink_queue module, are needed)",
			 strerror(errno));
	struct nfq_q_handle *qh = nfq_create_queue(h, (uint16_t)queue, on_packet, &pr);
	if (!qh)
		nm_fatal("clover-path: cannot bind NFQUEUE %d: %s (another process holds it?)", queue, strerror(errno));
	if (nfq_set_mode(qh, NFQNL_COPY_PACKET, 0xffff) < 0)
		nm_fatal("clover-path: NFQUEUE %d: cannot ask for whole packets", queue);
	nfq_set_queue_maxlen(qh, 8192);
	nfnl_rcvbufsiz(nfq_nfnlh(h), 8u << 20);

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	FILE *nft = rules_install(queue, hook);
	int want = hook == HOOK_LOCAL ? 2 : 1, got = 0;
	for (int i = 0; nft && i < 250 && (got = rules_listed(queue)) < want; i++)
		usleep(20000);
	if (got < want)
		nm_fatal("clover-path: the nftables rules for queue %d are not in place (nft missing, no nf_tables, "
			 "or a table netmem_clover_q%d owned by another process)", queue, queue);
	FILE *ready = fopen("ready", "w");
	if (ready)
		fclose(ready);
	fprintf(stderr, "clover-path: queue %d, hook %s, rewrite %s, %zu keys tracked\n", queue, hook_names[hook],
		pr.rw.cfg.rewrite ? "on" : "off", pr.rw.nkeys);

	static char buf[0xffff + 4096] __attribute__((aligned(8)));
	int fd = nfq_fd(h);
	while (!stop_requested) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 100) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n < 0 && errno == ENOBUFS) {
			pr.st.queue_overruns++;   /* the kernel dropped queued packets; RC retransmits them */
			continue;
		}
		if (n < 0 && errno != EINTR)
			nm_fatal("clover-path: reading NFQUEUE %d: %s", queue, strerror(errno));
		if (n > 0)
			nfq_handle_packet(h, buf, (int)n);
	}
	int rc = 0;
	if (opt_set(spec, "counters") && write_counters(nm_cfg_str(spec, "counters"), &pr)) {
		fprintf(stderr, "clover-path: cannot write %s\n", nm_cfg_str(spec, "counters"));
		rc = 1;
	}
	pclose(nft);   /* nft exits on EOF: the kernel deletes the owned table */
	nfq_destroy_queue(qh);
	nfq_close(h);
	nm_rw_free(&pr.rw);
	json_decref(spec);
	return rc;
}

static const nm_experiment path_exp = {
	.name = "clover-path",
	.summary = "Clover's contention resolution in the packet path (NFQUEUE), started by netmem clover",
	.tool_main = path_main,
};
NM_EXPERIMENT(path_exp)

/* ---- the suite's side: one process per point ---------------------------------------- */

static int write_track(const char *path, const cl_path_cfg *cfg)
{
	nm_atomic a;
	if (nm_atomic_open(&a, path) != 0)
		return -1;
	for (size_t i = 0; i < cfg->ntrack; i++)
		fprintf(a.f, "%" PRIx64 " %" PRIx64 "\n", cfg->keys[i], cfg->tails[i]);
	return nm_atomic_commit(&a);
}

int cl_path_start(cl_path *p, const cl_path_cfg *cfg, char *err, size_t errlen)
{
	char self[PATH_MAX], q[16], conns[24], topmax[24];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	*p = (cl_path){0};
	if (n <= 0) {
		snprintf(err, errlen, "clover: cannot find this executable (/proc/self/exe) to start clover-path");
		return -1;
	}
	self[n] = 0;
	if (cl_path_files_make(p) || write_track(p->track, cfg)) {
		snprintf(err, errlen, "clover: cannot write clover-path's files under $TMPDIR: %s", strerror(errno));
		cl_path_files_remove(p);
		return -1;
	}
	snprintf(q, sizeof q, "%d", cfg->queue);
	snprintf(conns, sizeof conns, "%zu", cfg->conns);
	snprintf(topmax, sizeof topmax, "%zu", cfg->ntrack ? cfg->ntrack : 1);
	char *const argv[] = {self, "clover-path", "--queue", q, cfg->rewrite ? "--rewrite=1" : "--rewrite=0", "--hook",
			      cfg->forward ? "forward" : "local", "--track",
			      p->track, "--top-max", topmax, "--conns", conns, "--counters", p->counters, NULL};
	char name[64];
	snprintf(name, sizeof name, "clover-path queue %d", cfg->queue);
	int rc = nm_service_start(&p->svc, "clover-path", name, argv, NULL, err, errlen);
	if (!rc)
		rc = nm_service_wait_file(&p->svc, "ready", cfg->timeout, err, errlen);
	if (rc) {
		nm_service_stop(&p->svc, 1.0);
		cl_path_files_remove(p);
		return -1;
	}
	p->running = true;
	return 0;
}

int cl_path_stop(cl_path *p, cl_path_stats *out, char *err, size_t errlen)
{
	if (!p->running)
		return 0;
	p->running = false;
	bool clean = nm_service_stop(&p->svc, 5.0);
	json_error_t je;
	json_t *o = json_load_file(p->counters, 0, &je);
	cl_path_files_remove(p);
	int rc = o && !cl_path_stats_from_json(o, out) ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "clover: clover-path %s and left no counters (%s)",
			 clean ? "stopped" : "had to be killed", je.text);
	json_decref(o);
	return rc;
}
