/* The harness's options, which every experiment's points carry
 * (experiment.h), in a file of their own so the unit tests see the table the
 * suite runs with.
 *
 * NM_OPT_RUN marks what does not change what is measured, so a document may
 * be resumed with another value and each run records its own
 * (meta.runs[].options):
 *   output    where the document goes
 *   resume    whether to continue it
 *   progress  the progress line on stderr
 *   timeout   how long a wait may last before the job is declared hung: a
 *             watchdog, never part of a point that completes (a point that
 *             hits it ends the job unrecorded), and the message that ends
 *             such a job tells the user to raise it
 * Everything else is measured: the device, port and GID (which hardware and
 * path), every QP attribute (the ACK timeout and retry counts included: they
 * shape what a lost packet costs), huge pages and the memory node (where the
 * memory is), threads, reps and seed (what runs). An experiment's own options
 * all stay measured too: its decode reads them from the point, and those
 * that look operational (kv's --redis-port, clover's --queue) name resources
 * a run holds. */
#include "experiment.h"

const nm_opt nm_harness_opts[] = {
	{"ib-dev", 'd', NM_OPT_STR, "", 0, 0, NULL, 0, "RDMA device (default: first with an active port)"},
	{"ib-port", 'i', NM_OPT_INT, "1", 1, 255, NULL, 0, "device port"},
	{"gid-index", 'x', NM_OPT_INT, "-1", -1, 255, NULL, 0,
	 "GID index (default: RoCEv2 IPv4-mapped on Ethernet, LID routing on InfiniBand)"},
	{"mtu", 'm', NM_OPT_INT, "0", 0, 4096, NULL, NM_OPT_LIST,
	 "path MTU: 256..4096 (default: the port's active MTU); in a sweep, an MTU above a port's "
	 "active MTU is a skipped point"},
	{"max-rd-atomic", 0, NM_OPT_INT, "0", 0, 255, NULL, 0,
	 "outstanding READ/atomics per QP (default: device maximum, at most 16; in ops the device "
	 "maximum, as perftest)"},
	{"qp-timeout", 'u', NM_OPT_INT, "-1", -1, 31, NULL, 0,
	 "QP ACK timeout exponent, 4.096 us * 2^N (-1: 14 as perftest; 20 on Soft-RoCE, whose emulated "
	 "round trips can pass 67 ms and which does not execute retried atomics exactly once)"},
	{"retry-cnt", 0, NM_OPT_INT, "7", 0, 7, NULL, 0, "QP transport retry count"},
	{"rnr-retry", 0, NM_OPT_INT, "7", 0, 7, NULL, 0, "QP RNR retry count"},
	{"inline-size", 'I', NM_OPT_INT, "-1", -1, 65536, NULL, 0,
	 "inline threshold for WRITE in bytes (-1: perftest's default, 220 in latency tests and 0 in "
	 "bandwidth tests; the QP may grant less; 0 disables)"},
	{"hugepages", 0, NM_OPT_BOOL, "false", 0, 0, NULL, 0, "back registered memory with 2 MiB huge pages"},
	{"mem-node", 0, NM_OPT_INT, "-1", -1, 1023, NULL, 0,
	 "NUMA node of registered memory (default: the kernel's policy)"},
	{"threads", 'T', NM_OPT_INT, "1", 1, 1024, NULL, NM_OPT_LIST, "worker threads per rank"},
	{"reps", 0, NM_OPT_INT, "1", 1, 1000, NULL, 0,
	 "repetitions of every point; the summary holds their geometric mean"},
	{"output", 0, NM_OPT_STR, "", 0, 0, NULL, NM_OPT_RUN,
	 "result document (default: results/<experiment>-<time>.json)"},
	{"resume", 0, NM_OPT_BOOL, "false", 0, 0, NULL, NM_OPT_RUN,
	 "continue --output, skipping the points it already holds (--timeout and --progress may differ "
	 "from the earlier runs')"},
	{"timeout", 0, NM_OPT_DOUBLE, "30", 0.01, 86400, NULL, NM_OPT_RUN,
	 "seconds without a completion before the job is declared hung; also how long ranks wait "
	 "between points for a rank that shows no sign of life, and any wait inside a rank (a "
	 "blocked worker thread, a silent child process) for progress (longer than any setup "
	 "step, e.g. filling a large buffer)"},
	{"seed", 0, NM_OPT_INT, "1", 0, 9.2e18, NULL, 0, "random seed"},
	{"progress", 0, NM_OPT_BOOL, "true", 0, 0, NULL, NM_OPT_RUN, "show progress on stderr"},
	NM_OPT_END,
};
