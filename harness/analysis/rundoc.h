/* A run directory read back: every result document in it (NAME.json), with
 * what the report and compare tools need to know about each: which hardware
 * produced it, whether that hardware was emulated, and how to pick its
 * summary entries. Shared by `netmem report` and `netmem compare`. */
#ifndef NM_RUNDOC_H
#define NM_RUNDOC_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct nm_rundoc {
	char *name;          /* file name without .json */
	json_t *doc;
	const char *experiment;
	const char *schema;  /* "netmem-result/1", or "none" for a tool's document (corm-sim) */
	bool emulated;       /* not hardware: soft_roce, or some run (or the document) names no NIC */
	bool soft_roce;      /* some run or NIC record says Soft-RoCE or siw, by any field */
	bool numa_not_real;  /* some point says placement.numa_real false */
	bool simulated;      /* computed on the host, no NIC measured (nm_experiment_simulated) */
	json_t *entries;     /* the entries a reader may use: the summary recomputed from the
			      * points (each with "placed" and "numa_real", over its points), or
			      * a computed document's own summary */
	char *inconsistent;  /* why the document contradicts itself or its name, or NULL */
} nm_rundoc;

typedef struct nm_run {
	char *dir;
	nm_rundoc *docs;     /* sorted by name */
	size_t ndocs;
} nm_run;

/* Loads every *.json in dir that is a result document (has "experiment"
 * and a "summary" array); other JSON files are passed over. -1 with one
 * line in err when dir cannot be read, a document does not parse or has a
 * schema other than NM_RESULT_SCHEMA. */
int nm_run_load(const char *dir, nm_run *run, char *err, size_t len);
void nm_run_free(nm_run *run);
const nm_rundoc *nm_run_find(const nm_run *run, const char *name);

/* A file of the suite (plots/claims.json, plots/compare.gp): relative to the
 * working directory when there, else beside the binary (BIN/../rel). */
const char *nm_suite_file(const char *rel, char *buf, size_t len);

/* Does a document's name match a claim's "documents" (a name, or a prefix
 * ending in '*'; NULL matches every name)? A name also matches the
 * documents of its config's rank counts (nm_doc_config_len). */
bool nm_name_matches(const char *name, const char *pattern);

/* The length of the config name within a document's name: a config whose
 * "ranks" is a list (run_all.sh: one job per count, e.g. a node sweep)
 * writes NAME.nR.json per count R, so NAME.n3's config is NAME. */
size_t nm_doc_config_len(const char *name);
/* Adds to params what the experiment derives from them for a job of
 * nranks ranks (nm_experiment.derive), where params has no such key. */
void nm_params_derive(const char *experiment, json_t *params, int nranks);
/* Do params hold every key of select with the same value (or, where the
 * selected value is a list, one of its values)? */
bool nm_params_match(const json_t *params, const json_t *select);
/* Does array hold a value equal to v? */
bool nm_json_array_has(const json_t *array, const json_t *v);
/* The summary entry's geometric mean of a dotted metric path, when valid,
 * numeric and positive (or zero, with zero_ok); else false. */
bool nm_entry_value(const json_t *entry, const char *metric, bool zero_ok, double *v);
/* nm_entry_value without zero: what a ratio may divide by. */
bool nm_entry_metric(const json_t *entry, const char *metric, double *v);

/* The last run's metadata (meta.runs[-1]), or NULL. */
const json_t *nm_rundoc_meta(const nm_rundoc *d);
/* One line naming the hardware: device, part, firmware, link, hosts, CPU,
 * and "Soft-RoCE (emulated)" or "simulator (no NIC measured)" where so. */
void nm_rundoc_hardware(const nm_rundoc *d, char *buf, size_t len);
/* Is a document with runs emulated: any run flagged, any NIC record of
 * rxe or siw (by driver, device name, vendor id or its own flag), or a run
 * with no NIC record? */
bool nm_doc_emulated(const json_t *doc);
/* Is this NIC record Soft-RoCE or siw, by any field that can say so? */
bool nm_nic_emulated(const json_t *nic);
/* Is the experiment computed on the host, a simulator's or from the packet
 * path's tables (no NIC measured, whatever its metadata)? */
bool nm_experiment_simulated(const char *experiment);
/* What computes such an experiment ("simulator", "computed from the packet
 * path's tables"), or NULL for one measured on a NIC. */
const char *nm_experiment_computed_by(const char *experiment);
/* Does rank `rank` of a run of the document play `role` ("server": the
 * ranks whose memory the experiment serves; "every": all)? */
bool nm_rundoc_rank_is(const nm_rundoc *d, const json_t *run, long rank, const char *role);
/* Were the document's runs on different NICs (a rank's device, part or
 * firmware changed from one run to another)? Why into buf. */
bool nm_rundoc_nics_differ(const nm_rundoc *d, char *buf, size_t len);
/* Is there a known server rank for the experiment? */
bool nm_experiment_has_server(const char *experiment);
/* A NIC record's part: "ConnectX-5", "Soft-RoCE (rxe)", "part 4242". */
void nm_nic_part_name(const json_t *nic, char *buf, size_t len);
/* The part of the NIC of the document's last run ("no NIC" for a tool's). */
void nm_rundoc_part(const nm_rundoc *d, char *buf, size_t len);
/* The same for a legend: device, firmware, link only. */
void nm_rundoc_nic_label(const nm_rundoc *d, char *buf, size_t len);
/* Points in the document: all, valid, invalid, skipped. */
typedef struct nm_point_tally {
	size_t points, valid, invalid, skipped;
} nm_point_tally;
nm_point_tally nm_rundoc_tally(const nm_rundoc *d);
#endif
