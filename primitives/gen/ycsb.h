/* YCSB workload generator: operation mixes, key choosers, traces.
 *
 * Host-only (no RDMA, no MPI, no allocation on the hot path). Every key-value
 * experiment (LOCO Fig. 5, CoRM Figs. 12-14, Clover Figs. 2 and 4) draws its
 * requests through this module, or replays a trace file through it.
 *
 *   ycsb_config c;  ycsb_config_default(&c);   // YCSB workload A defaults
 *   c.records = 1000000; c.seed = 7; c.rank = r; c.thread = t;
 *   ycsb_gen g;  if (ycsb_init(&g, &c, err, sizeof err)) -> bad input, err
 *   for (;;) { ycsb_op op; uint64_t key; ycsb_next(&g, &op, &key); ... }
 *
 * References: YCSB core (brianfrankcooper/YCSB: CoreWorkload, ZipfianGenerator,
 * ScrambledZipfianGenerator, SkewedLatestGenerator, HotspotIntegerGenerator,
 * Utils.fnvhash64), Gray et al. "Quickly Generating Billion-Record Synthetic
 * Databases" (SIGMOD'94), Hormann & Derflinger "Rejection-inversion to generate
 * variates from monotone discrete distributions" (TOMACS 1996; CoRM's zipf.hpp).
 *
 * Decisions the references leave open, or where we differ from them
 * -----------------------------------------------------------------
 * Keys.  The initial key space is 0 .. records-1 (YCSB's insertstart = 0).
 *   Ranks count from 0 = most popular. For `zipfian`, key = rank (YCSB's
 *   ZipfianGenerator; CoRM's rank-1).
 *
 * Distributions (ycsb_dist):
 *   uniform    exact uniform over the initial records (Lemire's multiply-shift
 *              with rejection; YCSB uses Math.abs(nextLong()) % n, which is
 *              very slightly biased).
 *   zipfian    unscrambled, key = rank. For 0 < theta < 1 Gray's method
 *              exactly as YCSB's ZipfianGenerator computes it: zeta(n) summed
 *              i = 1..n in YCSB's order, zeta2theta = zeta(2), alpha =
 *              1/(1-theta), eta = (1 - (2/n)^(1-theta)) / (1 - zeta2theta/zetan),
 *              u in [0,1): u*zetan < 1 -> 0; < 1 + 0.5^theta -> 1; else
 *              (long)(n * (eta*u - eta + 1)^alpha). For theta >= 1 (where
 *              alpha < 0 and Gray's formula is meaningless) rejection-
 *              inversion, whose output is exactly the Zipf pmf.
 *   zipfian-ri rejection-inversion for any theta > 0 (CoRM: theta 0.99, not
 *              scrambled): exact pmf 1/((i+1)^theta * zeta(n, theta)).
 *   scrambled  YCSB's ScrambledZipfianGenerator, which is what YCSB's
 *              CoreWorkload uses for requestdistribution=zipfian: an internal
 *              zipfian over [0, ITEM_COUNT] (ITEM_COUNT + 1 items), key =
 *              fnvhash64(z) % n. ITEM_COUNT follows current YCSB master,
 *              1e16; YCSB's precomputed ZETAN = 26.46902820178302 for theta
 *              0.99 is used as YCSB does, although it is zeta(1e10, 0.99)
 *              (the ITEM_COUNT of older YCSB releases and of YCSB-C/YCSB-cpp;
 *              select it with scramble_items = 1e10). Other thetas: zeta(1e16+1)
 *              by Euler-Maclaurin instead of YCSB's 1e16-term loop. theta >= 1:
 *              rejection-inversion underneath. fnvhash64 is bit-identical to
 *              Java's (FNV-1a 64, low byte first, wrapping multiply,
 *              Math.abs). n is YCSB's: records + expected_new_keys + 1 (YCSB
 *              builds it with max = insertstart + insertcount + expectednewkeys,
 *              max - min + 1 items), and keys not inserted yet are redrawn
 *              (CoreWorkload.nextKeynum). The one hash value Math.abs leaves
 *              negative (Long.MIN_VALUE, which would give YCSB a negative key)
 *              is redrawn too.
 *   latest     YCSB's SkewedLatestGenerator: key = max - zipfian(max items)
 *              where max is the newest key; so with no inserts keys 1..max
 *              are drawn and key 0 never is (YCSB's off-by-one, kept). As keys
 *              are inserted, zetan grows incrementally and eta keeps YCSB's
 *              construction item count (ZipfianGenerator.nextLong, kept).
 *   hotspot    YCSB's HotspotIntegerGenerator: the lowest floor(records *
 *              hot_set) keys are hot and take a fraction hot_ops of the draws,
 *              uniform within the hot and within the cold set. Empty hot set is
 *              an error; an empty cold set means every draw is hot.
 *
 * Theta.  0.99 by default; any theta > 0 (theta <= 0 is an error). Gray's
 *   method for theta < 1, rejection-inversion for theta >= 1 (both for the
 *   zipfian underneath scrambled and latest). Rejection-inversion is CoRM's
 *   zipf.hpp plus the squeeze of Apache Commons' sampler and a table of the
 *   acceptance bounds of ranks < 32; neither changes its output distribution.
 *   zeta(n) is YCSB's loop up to n = 1e7 and Euler-Maclaurin above (YCSB
 *   sums 1e8 terms in over a minute; the two agree to 1e-13).
 *
 * Inserts (workload D, E, custom mixes with insert).  Generators do not share
 *   state. Stream s of S (config nstreams/stream, default 1/0) gives its j-th
 *   insert key records + j*S + s, so streams never collide and S = 1 is YCSB
 *   with one client thread. After an insert the stream considers every key up
 *   to the one it inserted to exist (the other streams insert at the same
 *   pace on average, as YCSB's shared counter would yield); a benchmark must
 *   count a read of a key another stream has not inserted yet as a miss.
 *   latest follows inserts; scrambled's key space is fixed at construction
 *   with expected_new_keys = 2 * insert proportion * operations * S (YCSB's
 *   fudge factor 2) and redraws keys not inserted yet; uniform, zipfian and
 *   hotspot stay on the initial records (YCSB's uniform and hotspot do).
 *
 * Scans (workload E).  Start key from the key chooser; length uniform in
 *   [1, max_scan], max_scan = 100 (YCSB workloade: maxscanlength=100,
 *   scanlengthdistribution=uniform, minscanlength=1). ycsb_scan_len() after a
 *   scan. A scan may run past the last key; the store stops there.
 *
 * Read-modify-write (workload F).  One operation on one key: read it, then
 *   write it (YCSB's READMODIFYWRITE, timed as one operation).
 *
 * Operation choice.  Proportions in YCSB's order read, update, insert, scan,
 *   rmw; they must sum to 1 (within 1e-9; YCSB normalises silently, we refuse).
 *   One 64-bit draw against cumulative thresholds floor(cum * 2^64); a mix with
 *   a single operation draws nothing for it.
 *
 * Streams.  xoshiro256** seeded from splitmix64(seed); rank r applies
 *   long_jump r times (2^192 steps each), thread t applies jump t times (2^128
 *   each). Streams of different (rank, thread) under one seed are therefore
 *   disjoint stretches of one period-2^256 sequence, not merely unlikely to
 *   overlap. rank, thread < 65536 (each jump costs ~256 steps at init).
 *   Doubles in [0,1) take the top 53 bits (the grid of Java's nextDouble).
 *
 * Probabilities (for tests and `netmem ycsb --stats`).  ycsb_zipf_prob gives
 *   the exact probability of each rank for the method the generator uses:
 *   Gray: rank 0 has 1/zetan, rank 1 has 0.5^theta/zetan, and rank i has, in
 *   addition, the measure of { u >= (1 + 0.5^theta)/zetan :
 *   floor(n (eta u - eta + 1)^alpha) = i }, i.e. of u in [ginv(i), ginv(i+1))
 *   with ginv(y) = 1 - (1 - (y/n)^(1-theta))/eta (that region can also reach
 *   ranks 0 and 1). This is not the Zipf pmf beyond rank 1; ycsb_zipf_pmf is
 *   the true pmf 1/((i+1)^theta zeta(n, theta)), what rejection-inversion
 *   produces exactly. Scrambled: P(key) = sum over internal items z with
 *   fnvhash64(z) % n = key of P(z); ycsb_expected_top enumerates z below 2^20
 *   exactly (all of them when the internal count is that small) and spreads
 *   the rest of the mass evenly over the n keys (the spread of that tail
 *   between keys is ~0.3% of a key's probability at n = 1000), then
 *   conditions on key < count as the redraw does. Probabilities are those of
 *   a continuous u; the 2^-53 grid of u changes them by < 1e-15.
 *
 * Traces.  Text, one request per line: `OP KEY`, or `scan KEY LEN` for scans.
 *   OP is a word: read, update, insert, scan, rmw (read-modify-write), or
 *   Clover's numeric form (0 = read, any other number = write, read back as
 *   update). KEY is a decimal unsigned 64-bit integer. Fields are separated by
 *   spaces or tabs; blank lines and lines starting with '#' are ignored. The
 *   writer emits words, or with clover = 1 the numeric form (0/1) that
 *   Clover's harness replays (scans cannot be written that way). A replayed
 *   trace wraps around at its end, as Clover's driver loops over its file. */
#ifndef NM_YCSB_H
#define NM_YCSB_H
#include <stddef.h>
#include <stdint.h>

typedef enum { YCSB_READ, YCSB_UPDATE, YCSB_INSERT, YCSB_SCAN, YCSB_RMW, YCSB_NOPS } ycsb_op;

typedef enum {
	YCSB_UNIFORM,
	YCSB_ZIPFIAN,
	YCSB_ZIPFIAN_RI,
	YCSB_SCRAMBLED,
	YCSB_LATEST,
	YCSB_HOTSPOT,
	YCSB_NDISTS
} ycsb_dist;

/* Proportions indexed by ycsb_op; they sum to 1. */
typedef struct ycsb_mix {
	double p[YCSB_NOPS];
} ycsb_mix;

#define YCSB_THETA 0.99                       /* YCSB's ZIPFIAN_CONSTANT */
#define YCSB_SCRAMBLE_ITEMS 10000000000000000ull /* YCSB's ITEM_COUNT (1e16) */
#define YCSB_SCRAMBLE_ZETAN 26.46902820178302  /* YCSB's ZETAN, used for theta 0.99 */
#define YCSB_MAX_STREAM 65535u                /* rank and thread limit */

typedef struct ycsb_config {
	uint64_t records;     /* initial keys 0 .. records-1 (>= 1) */
	uint64_t operations;  /* operations this stream will issue (sizes scrambled's key space) */
	ycsb_mix mix;
	ycsb_dist dist;
	double theta;         /* > 0; YCSB_THETA by default */
	double hot_set;       /* hotspot: fraction of keys that are hot (YCSB default 0.2) */
	double hot_ops;       /* hotspot: fraction of draws that go to them (0.8) */
	uint32_t max_scan;    /* scan length uniform in [1, max_scan] (100) */
	uint64_t seed;
	uint32_t rank, thread;
	uint32_t nstreams, stream; /* insert-key partition (1, 0) */
	uint64_t scramble_items;   /* scrambled's ITEM_COUNT; 0 = YCSB_SCRAMBLE_ITEMS */
	double zetan;         /* zeta(records, theta) if the caller has it (threads share
				 one computation); 0 = compute. Only used by zipfian. */
} ycsb_config;

/* xoshiro256** */
typedef struct ycsb_rng {
	uint64_t s[4];
} ycsb_rng;

/* A Zipf-like rank generator over `count` items (ranks 0 .. count-1). */
typedef struct ycsb_zipf {
	int ri;            /* 0: Gray (YCSB), 1: rejection-inversion */
	uint64_t items;    /* item count at construction (YCSB's `items`, used for eta) */
	uint64_t count;    /* current item count (YCSB's countforzeta / itemcount) */
	double theta;
	/* Gray */
	double alpha, zetan, zeta2, eta, cut1; /* cut1 = 1 + 0.5^theta */
	/* rejection-inversion (ranks 1..count internally) */
	double h_x1, h_n, squeeze, inv1q; /* inv1q = 1/(1-theta), 0 when theta = 1 */
	double ri_acc[32];                /* H(k + 0.5) - h(k) for k < 32, precomputed */
} ycsb_zipf;

/* The generator of one (seed, rank, thread) stream. Plain data: put it on the
 * stack or in a per-thread struct; fields are private but readable. */
typedef struct ycsb_gen {
	ycsb_config cfg;
	ycsb_rng rng;
	uint64_t cut[YCSB_NOPS]; /* cumulative op thresholds */
	int nops, single_op;     /* single_op: the only op when nops == 1 */
	ycsb_zipf zipf;
	uint64_t count;          /* keys 0 .. count-1 exist (this stream's view) */
	uint64_t next_insert;
	uint64_t span;           /* key space of the chooser (scrambled: YCSB's itemcount) */
	uint64_t mod_m;          /* fast remainder by span for 63-bit numerators */
	int mod_shift;
	uint64_t hot_n, hot_cut;
	uint32_t scan_len;
	const struct ycsb_req *trace;
	size_t trace_n, trace_pos;
} ycsb_gen;

/* One request of a trace. */
typedef struct ycsb_req {
	uint64_t key;
	uint32_t scan_len; /* scans only, else 0 */
	uint8_t op;        /* ycsb_op */
} ycsb_req;

/* ---- configuration and input validation (errors: one line in err) ---- */

/* records 1000, operations 1000, workload A, scrambled, theta 0.99, hotspot
 * 0.2/0.8, max_scan 100, seed 1, rank 0, thread 0, one stream. */
void ycsb_config_default(ycsb_config *c);
/* "a".."f" (either case) set YCSB's proportions and *dist to the workload's
 * request distribution (D: latest; others: scrambled, which is what YCSB's
 * "zipfian" means). "read-only", "write-only" (all updates) and "mixed"
 * (write_ratio updates, the rest reads; write_ratio in [0, 1]) set *dist to
 * zipfian. dist may be NULL. Returns 0, or -1 with a message. */
int ycsb_parse_workload(const char *s, double write_ratio, ycsb_mix *mix, ycsb_dist *dist,
			char *err, size_t errlen);
/* "read=0.9,update=0.1" (ops: read, update, insert, scan, rmw; absent = 0);
 * proportions in [0, 1] summing to 1. */
int ycsb_parse_mix(const char *s, ycsb_mix *mix, char *err, size_t errlen);
/* uniform, zipfian, zipfian-ri, scrambled, latest, hotspot */
int ycsb_parse_dist(const char *s, ycsb_dist *d, char *err, size_t errlen);
/* Checks the proportions: each in [0, 1], sum 1 within 1e-9. */
int ycsb_check_mix(const ycsb_mix *mix, char *err, size_t errlen);
const char *ycsb_op_name(ycsb_op op);   /* "read", ..., "rmw" */
const char *ycsb_dist_name(ycsb_dist d);
/* Word or Clover number -> op; -1 when it is neither. */
int ycsb_parse_op(const char *s, ycsb_op *op);

/* ---- generator ---- */

/* Validates c and builds the stream. O(records) for zipfian/latest when
 * zeta must be summed (YCSB does the same); nothing is allocated. */
int ycsb_init(ycsb_gen *g, const ycsb_config *c, char *err, size_t errlen);
/* Replays reqs[start..] in a loop instead of generating (n >= 1; reqs stays
 * the caller's, not copied): how an experiment takes a trace file in place
 * of the generator (ycsb_trace_load, then this, per thread). */
void ycsb_init_trace(ycsb_gen *g, const ycsb_req *reqs, size_t n, size_t start);
/* The next request. Hot path. */
void ycsb_next(ycsb_gen *g, ycsb_op *op, uint64_t *key);
/* Length of the scan ycsb_next just returned. */
static inline uint32_t ycsb_scan_len(const ycsb_gen *g) { return g->scan_len; }
/* Keys 0 .. ycsb_key_count(g)-1 exist in this stream's view. */
static inline uint64_t ycsb_key_count(const ycsb_gen *g) { return g->count; }
/* One draw of the key chooser alone (no operation, no insert). */
uint64_t ycsb_next_key(ycsb_gen *g);

/* ---- building blocks (exposed for tests and benchmarks) ---- */

void ycsb_rng_seed(ycsb_rng *r, uint64_t seed, uint32_t rank, uint32_t thread);
uint64_t ycsb_rng_next(ycsb_rng *r);
double ycsb_rng_double(ycsb_rng *r);            /* [0, 1), 53 bits */
uint64_t ycsb_rng_below(ycsb_rng *r, uint64_t n); /* exact uniform in [0, n), n >= 1 */
void ycsb_rng_jump(ycsb_rng *r);                /* 2^128 steps */
void ycsb_rng_long_jump(ycsb_rng *r);           /* 2^192 steps */

/* x % span of g's scrambled key space, without a division (x < 2^63). */
uint64_t ycsb_span_mod(const ycsb_gen *g, uint64_t x);

/* YCSB's Utils.fnvhash64 with Java long semantics (result >= 0 except for
 * Long.MIN_VALUE). */
int64_t ycsb_fnvhash64(int64_t val);

/* A keyed bijection of [0, n): rank -> key, for spreading a skewed
 * chooser's hot ranks over the key space without changing how often each
 * rank is drawn (unlike fnvhash64 % n, which merges ranks). A four-round
 * Feistel network over the smallest even number of bits that holds n, cycle-
 * walked back into [0, n) (fewer than 4 steps on average); one `key` gives
 * one permutation, the same on every rank and thread. CoRM's harness draws a
 * rank and indexes its object list, shuffled at load: this is that shuffle
 * without the list. */
uint64_t ycsb_permute(uint64_t rank, uint64_t n, uint64_t key);

/* zeta(n, theta) = sum_{i=1..n} i^-theta: YCSB's loop (same order, glibc's
 * pow) for n <= 1e7; above, 1000 terms plus an Euler-Maclaurin tail to the B6
 * term (truncation < 1e-20; it meets the loop at 1e7 within 1e-13). */
double ycsb_zeta(uint64_t n, double theta);
/* Gray (ri = 0, theta < 1 only) or rejection-inversion (ri = 1) over n items;
 * zetan = 0 computes it (Gray only; RI does not need it). */
void ycsb_zipf_init(ycsb_zipf *z, uint64_t n, double theta, int ri, double zetan);
/* Rank in [0, z->count). */
uint64_t ycsb_zipf_draw(ycsb_zipf *z, ycsb_rng *r);
/* Gray's mapping of one u in [0, 1) to a rank (what ycsb_zipf_draw does). */
uint64_t ycsb_gray_map(const ycsb_zipf *z, double u);
/* The item count grows (YCSB's nextLong(itemcount) with a larger count). */
void ycsb_zipf_grow(ycsb_zipf *z, uint64_t count);
/* Exact probability of rank i for z's method and current state; the
 * rejection-inversion case computes zeta (pass zetan, or 0 to compute). */
double ycsb_zipf_prob(const ycsb_zipf *z, uint64_t i, double zetan);
/* P(rank >= m) under z (zetan as for ycsb_zipf_prob). */
double ycsb_zipf_tail(const ycsb_zipf *z, uint64_t m, double zetan);
/* True Zipf pmf 1/((i+1)^theta * zetan) with zetan = zeta(n, theta). */
double ycsb_zipf_pmf(double zetan, double theta, uint64_t i);

/* Exact probability of `rank` (0 = most likely) for dist over n keys with no
 * inserts: uniform 1/n; zipfian Gray (theta < 1) or pmf; zipfian-ri pmf;
 * latest Gray over n-1 items (rank i = key n-1-i); hotspot with YCSB's
 * defaults 0.2/0.8. O(n) (computes zeta). Scrambled: NAN (ycsb_expected_top).
 * For many ranks, build a ycsb_zipf once and use ycsb_zipf_prob. */
double ycsb_prob(ycsb_dist dist, uint64_t n, double theta, uint64_t rank);

/* The k most likely keys of g's key chooser in its initial state (before any
 * insert), most likely first, with their exact probabilities (scrambled: see
 * the header comment; *exact = 0 when its tail was spread). Returns the number
 * filled (min(k, key count)), or -1 when out of memory. exact may be NULL. */
long ycsb_expected_top(const ycsb_gen *g, size_t k, uint64_t *keys, double *probs, int *exact);
/* Chi-square critical value at p = 0.001 for df degrees of freedom
 * (Wilson-Hilferty; within 1% for df >= 3). */
double ycsb_chi2_crit(int df);

/* ---- traces ---- */

typedef struct ycsb_trace ycsb_trace;
/* "-" reads stdin. NULL with "trace PATH: reason" in err. */
ycsb_trace *ycsb_trace_open(const char *path, char *err, size_t errlen);
/* 1: a request in *r; 0: end of file; -1: malformed line, err says
 * "trace PATH line N: reason". */
int ycsb_trace_next(ycsb_trace *t, ycsb_req *r, char *err, size_t errlen);
void ycsb_trace_close(ycsb_trace *t);
/* Whole file into a malloc'd array (*reqs, free it); 0 or -1 with err. An
 * empty trace is an error. */
int ycsb_trace_load(const char *path, ycsb_req **reqs, size_t *n, char *err, size_t errlen);
/* Formats one line with '\n' into buf; clover = 1 writes 0/1 for read/write.
 * Returns the length, or -1 (scan in clover form, or buf too small). */
int ycsb_trace_format(const ycsb_req *r, int clover, char *buf, size_t len);
#endif
