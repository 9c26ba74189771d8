/* The papers' headline claims (plots/claims.json) computed from the result
 * documents of one run directory. The file's "about" states the rules; a
 * claim whose experiment or documents the run lacks comes out "not run". */
#ifndef NM_CLAIMS_H
#define NM_CLAIMS_H
#include "rundoc.h"
#include <jansson.h>
#include <stdbool.h>

typedef enum nm_verdict {
	NM_VERDICT_NOT_RUN,
	NM_VERDICT_NOT_REPRODUCED,
	NM_VERDICT_DIRECTION_ONLY,
	NM_VERDICT_REPRODUCED,
	NM_VERDICT_COUNT
} nm_verdict;
extern const char *const nm_verdict_names[NM_VERDICT_COUNT];

/* What produced the numbers behind a claim: only hardware counts as a
 * reproduction; the others are marked. */
typedef struct nm_basis {
	bool emulated;       /* Soft-RoCE */
	bool numa_not_real;  /* placement verified, timings not NUMA effects */
	bool simulated;      /* a simulator's document */
} nm_basis;

typedef struct nm_claim_result {
	const json_t *claim;     /* the claim's record in the claims file */
	const char *paper;       /* its paper's id */
	nm_verdict verdict;
	double measured;         /* when verdict is not NOT_RUN */
	size_t used;             /* summary entries (or pairs, for a ratio) reduced */
	nm_basis basis;
	char documents[256];     /* the documents the entries came from */
	char note[256];          /* why not run, or what was odd */
} nm_claim_result;

/* Loads and checks a claims file: one line in err and -1 when it does not
 * parse or a claim lacks a field or names an unknown reduction. */
json_t *nm_claims_load(const char *path, char *err, size_t len);
/* Evaluates every claim of every paper against the run; *n results. */
nm_claim_result *nm_claims_evaluate(const json_t *claims, const nm_run *run, size_t *n);
/* Does the result count as a hardware reproduction? */
bool nm_claim_on_hardware(const nm_claim_result *r);
/* "Soft-RoCE (emulated); NUMA not real", "simulation" or "hardware". */
void nm_basis_describe(const nm_basis *b, char *buf, size_t len);
#endif
