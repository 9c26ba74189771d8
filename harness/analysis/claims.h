/* The papers' headline claims (plots/claims.json) computed from the result
 * documents of one run directory. The file's "about" states the rules; the
 * verdicts below never say more than the data: a failed point, a selection
 * that matches nothing, an emulated NIC or an unexercised path is named. */
#ifndef NM_CLAIMS_H
#define NM_CLAIMS_H
#include "rundoc.h"
#include <jansson.h>
#include <stdbool.h>

/* At most this many "exercised" conditions per claim. */
#define NM_EXERCISED_MAX 4

typedef enum nm_verdict {
	NM_VERDICT_NOT_RUN,        /* the run has no document the claim names */
	NM_VERDICT_NO_MATCH,       /* documents, but no usable entry in the selection */
	NM_VERDICT_INCONSISTENT,   /* a document contradicts itself, its name or the claim's one NIC */
	NM_VERDICT_FAILED,         /* a selected point failed (invalid, or a zero divisor) */
	NM_VERDICT_NOT_EXERCISED,  /* the path the claim is about did not happen */
	NM_VERDICT_NOT_REPRODUCED, /* on the wrong side of the paper's direction */
	NM_VERDICT_DIRECTION_ONLY, /* the paper's direction, outside its range */
	NM_VERDICT_BELOW_RANGE,    /* beyond the paper's range, below it */
	NM_VERDICT_ABOVE_RANGE,    /* beyond the paper's range, above it */
	NM_VERDICT_REPRODUCED,
	NM_VERDICT_COUNT
} nm_verdict;
extern const char *const nm_verdict_names[NM_VERDICT_COUNT];
/* Was a value computed (a verdict other than not run / no matching points /
 * inconsistent document)? */
bool nm_verdict_measured(nm_verdict v);

/* What produced the numbers behind a claim: only hardware counts as a
 * reproduction; the others are marked. */
typedef struct nm_basis {
	bool emulated;        /* Soft-RoCE, or a document with no NIC record */
	bool soft_roce;       /* of them, Soft-RoCE by some sign (else: no NIC record) */
	bool numa_not_real;   /* placement verified, timings not NUMA effects */
	bool numa_unverified; /* a NUMA claim on a document without placement records */
	bool simulated;       /* a document computed on the host (no NIC): a simulator's, the packet path's tables */
} nm_basis;

typedef struct nm_claim_result {
	const json_t *claim;     /* the claim's record in the claims file */
	const char *paper;       /* its paper's id */
	nm_verdict verdict;
	double measured;         /* when nm_verdict_measured(verdict): over the valid entries */
	size_t used;             /* summary entries (or pairs, for a ratio) reduced */
	size_t selected, failed; /* entries the selection matched; of them failed */
	nm_basis basis;
	char documents[256];     /* the documents the entries came from */
	char range[96];          /* the range the verdict used ("[21.8, 43.5]", "ConnectX-3: ...") */
	char note[768];          /* why not run, what failed, what was odd, what is inconsistent */
	char *left_out;          /* entries the claim left out, one "- doc {params}: why" line each, or NULL */
} nm_claim_result;

/* Loads and validates a claims file: known keys, a paper title, every
 * claim's claim, quote, experiment, metric and reduction, both numeric
 * bounds with min < max, meaningful directions. One line naming the claim
 * in err and NULL when it is bad. */
json_t *nm_claims_load(const char *path, char *err, size_t len);
/* Evaluates every claim of every paper against the run; *n results. */
nm_claim_result *nm_claims_evaluate(const json_t *claims, const nm_run *run, size_t *n);
void nm_claims_free(nm_claim_result *res, size_t n);
/* Does the result count as a hardware reproduction? */
bool nm_claim_on_hardware(const nm_claim_result *r);
/* "Soft-RoCE (emulated); NUMA not real", "simulation" or "hardware". */
void nm_basis_describe(const nm_basis *b, char *buf, size_t len);
#endif
