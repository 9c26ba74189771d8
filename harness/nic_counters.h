/* The NIC's own counters (sysfs hw_counters: retransmissions, sequence
 * errors, duplicate requests, RNR NAKs, ...) read around every point, so a
 * result says whether the transport had to retry while it was measured. On
 * Soft-RoCE this matters for correctness too: a retransmitted atomic may be
 * executed twice. The counters belong to the device, not to the job: other
 * traffic on the same NIC shows up in them. */
#ifndef NM_NIC_COUNTERS_H
#define NM_NIC_COUNTERS_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define NM_NIC_MAX_COUNTERS 128

typedef struct nm_nic_counters {
	int n;
	char name[NM_NIC_MAX_COUNTERS][48];
	uint64_t val[NM_NIC_MAX_COUNTERS];
} nm_nic_counters;

/* Reads every counter file in dir (one integer each); none when dir is
 * missing or unreadable. */
void nm_nic_counters_read_dir(const char *dir, nm_nic_counters *c);
/* The hw_counters directory of a device's port. */
void nm_nic_counters_dir(const char *dev, int port, char *out, size_t len);
/* {name: after - before} for the counters that moved (counters that went
 * backwards, i.e. were reset, are left out). */
json_t *nm_nic_counters_delta(const nm_nic_counters *before, const nm_nic_counters *after);
/* Adds the integer members of `add` into `sum` (name by name). */
void nm_nic_counters_merge(json_t *sum, const json_t *add);
/* True for counters that mean the transport retransmitted or saw a request
 * twice (names from mlx5, rxe and others). */
bool nm_nic_counter_is_retry(const char *name);
#endif
