/* netmem clover's roles by rank (workloads/clover/clover.h): rank 0 the
 * metadata server; clients-first puts the clients next and the memory nodes
 * after them, memory-first the memory nodes right after rank 0 (so that a
 * config's "hosts" can put the metadata server and a memory node on one
 * host); the forwarding host is the last rank either way. Every rank has
 * exactly one role, the clients' partitions number 0.. in rank order, and
 * keys land on memory nodes only. */
#include "clover.h"
#include "tap.h"

/* role of rank r: 'S' server, 'C' client, 'M' memory, 'F' forwarder, '?' none, '!' two */
static char role(const cl_job *j, int r)
{
	int n = (r == 0) + is_client(j, r) + is_mem(j, r) + is_fwd(j, r);
	if (n != 1)
		return n ? '!' : '?';
	return r == 0 ? 'S' : is_client(j, r) ? 'C' : is_mem(j, r) ? 'M' : 'F';
}

static void layout(const char *what, int N, int M, int F, bool memory_first, const char *want)
{
	cl_job j = {.N = N, .M = M, .F = F, .T = 2, .clients = N - 1 - M - F, .memory_first = memory_first};
	char got[16] = "";
	for (int r = 0; r < N; r++)
		got[r] = role(&j, r);
	bool parts = true, keys = true;
	for (int r = 0, k = 0; r < N; r++)
		for (int t = 0; is_client(&j, r) && t < j.T; t++, k++)
			parts &= part_index(&j, r, t) == (uint64_t)k;
	for (uint64_t r = 0; r < 64; r++)
		keys &= is_mem(&j, key_node(&j, r)) && mem_index(&j, key_node(&j, r)) == (int)(r % (uint64_t)M);
	CHECK(!strcmp(got, want) && parts && keys, "%s: %s (want %s), partitions 0.. in rank order, keys on memory nodes",
	      what, got, want);
}

int main(void)
{
	layout("clients-first, 4 ranks", 4, 1, 0, false, "SCCM");
	layout("clients-first, 2 memory nodes, forwarder", 6, 2, 1, false, "SCCMMF");
	layout("memory-first, 4 ranks", 4, 1, 0, true, "SMCC");
	layout("memory-first with a forwarder: the paper's testbed", 5, 1, 1, true, "SMCCF");
	layout("memory-first, 2 memory nodes, forwarder", 7, 2, 1, true, "SMMCCCF");
	return tap_done();
}
