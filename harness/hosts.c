/* Grouping ranks into nodes by host name (hosts.h). */
#include "hosts.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

uint64_t nm_host_id(void)
{
	char name[256] = "";
	gethostname(name, sizeof name - 1);
	uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return h;
}

int nm_hosts_distinct(const uint64_t *host, int n)
{
	int hosts = 0;
	for (int r = 0; r < n; r++) {
		bool seen = false;
		for (int q = 0; q < r && !seen; q++)
			seen = host[q] == host[r];
		hosts += !seen;
	}
	return hosts;
}

int nm_hosts_sharing(const uint64_t *host, int n, int r)
{
	int here = 0;
	for (int q = 0; q < n; q++)
		here += host[q] == host[r];
	return here;
}

nm_yield_mode nm_yield_parse(const char *word)
{
	return !strcmp(word, "on") ? NM_YIELD_ON : !strcmp(word, "off") ? NM_YIELD_OFF : NM_YIELD_AUTO;
}

bool nm_yield_wanted(nm_yield_mode m, const uint64_t *host, int n, int r, int cpus)
{
	if (m != NM_YIELD_AUTO)
		return m == NM_YIELD_ON;
	/* The host's CPUs, not this rank's affinity: a launcher that binds each
	 * rank to its own core leaves one CPU in the mask of each. */
	return nm_hosts_sharing(host, n, r) > cpus;
}

int nm_hosts_group(const uint64_t *host, int nranks, int want, nm_hosts *out, char *err,
		   size_t errlen)
{
	int P = want;
	if (P <= 0) {
		P = 0;
		for (int r = 0; r < nranks; r++)
			P += host[r] == host[0];
		if (nranks % P != 0) {
			snprintf(err, errlen, "%d ranks do not fill nodes of %d ranks each (rank 0's host "
				 "has %d): start the same number of ranks on every node, or give "
				 "--ranks-per-node", nranks, P, P);
			return -1;
		}
	}
	if (P > nranks) {
		snprintf(err, errlen, "--ranks-per-node %d is more than the job's %d ranks", P, nranks);
		return -1;
	}
	out->per_node = P;
	out->nodes = nranks / P;
	out->emulated = false;
	for (int n = 0; n < out->nodes; n++) {
		for (int r = n * P; r < (n + 1) * P; r++)
			if (host[r] != host[n * P]) {
				snprintf(err, errlen, "ranks %d and %d should share node %d but run on different "
					 "hosts: place ranks node by node (mpirun --map-by ppr:%d:node, with "
					 "slots=%d or more per host in the hostfile)", n * P, r, n, P, P);
				return -1;
			}
		for (int m = 0; m < n; m++)
			if (host[m * P] == host[n * P]) {
				if (want <= 0) {
					snprintf(err, errlen, "ranks %d and %d share a host but fall in different "
						 "nodes of %d ranks: place ranks node by node (mpirun "
						 "--map-by ppr:%d:node)", m * P, n * P, P, P);
					return -1;
				}
				out->emulated = true;
			}
	}
	return 0;
}

int nm_build_compare(const char *const *ids, const char *const *hosts, int nranks, char *err,
		     size_t errlen)
{
	for (int r = 1; r < nranks; r++)
		if (strcmp(ids[r], ids[0]) != 0) {
			snprintf(err, errlen, "rank %d on %s runs a different netmem build (%s) from rank 0 on "
				 "%s (%s): build the same source on every host, or run one bin/netmem "
				 "from a shared file system ('netmem --version' shows the build)",
				 r, hosts[r], ids[r], hosts[0], ids[0]);
			return -1;
		}
	return 0;
}
