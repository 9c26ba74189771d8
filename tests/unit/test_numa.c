/* numa/: placement requests and their resolution (pure logic, on made-up
 * topologies), and the move_pages page census on this host's memory. The
 * numa/ sources are included directly: they need no libnuma or hwloc. */
#include "tap.h"
#include "../../numa/pages.c"
#include "../../numa/place.c"
#include <sys/mman.h>

static nm_numa_view view(int n, const int *ids, const int *ncpus, const bool *mem, int nic)
{
	nm_numa_view v;
	memset(&v, 0, sizeof v);
	snprintf(v.hostname, sizeof v.hostname, "testhost");
	v.nnodes = n;
	for (int i = 0; i < n; i++)
		v.node[i] = (nm_numa_node){.id = ids[i], .ncpus = ncpus[i], .has_memory = mem[i]};
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			v.dist[i][k] = i == k ? 10 : 20;
	v.nic_node = nic;
	return v;
}

static int resolve(const char *req, const nm_numa_view *v, nm_place_need need, char *why)
{
	nm_place p;
	char err[256];
	int node = -2;
	if (nm_place_parse(req, &p, "--buf-node", err, sizeof err))
		return -100;
	if (nm_place_resolve(&p, v, need, &node, "--buf-node", why, 512))
		return -99;
	return node;
}

static void test_parse(void)
{
	nm_place p;
	char err[256], buf[16];
	CHECK(nm_place_parse("any", &p, "--x", err, sizeof err) == 0 && p.kind == NM_PLACE_ANY, "any parses");
	CHECK(nm_place_parse("nic", &p, "--x", err, sizeof err) == 0 && p.kind == NM_PLACE_NIC, "nic parses");
	CHECK(nm_place_parse("other", &p, "--x", err, sizeof err) == 0 && p.kind == NM_PLACE_OTHER,
	      "other parses");
	CHECK(nm_place_parse("0", &p, "--x", err, sizeof err) == 0 && p.kind == NM_PLACE_NODE && p.node == 0,
	      "0 parses as node 0");
	CHECK(nm_place_parse("1023", &p, "--x", err, sizeof err) == 0 && p.node == 1023, "1023 parses");
	static const char *const bad[] = {"1024", "-1", "nicc", "", "1x", "+1", " 1", "NIC"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(nm_place_parse(bad[i], &p, "--buf-node", err, sizeof err) == -1 &&
			      strstr(err, "--buf-node") && strstr(err, "nic, other, any"),
		      "'%s' is rejected with a message naming the option (%s)", bad[i], err);
	nm_place_parse("7", &p, "--x", err, sizeof err);
	CHECK(!strcmp(nm_place_str(&p, buf, sizeof buf), "7"), "node 7 prints as 7");
	nm_place_parse("other", &p, "--x", err, sizeof err);
	CHECK(!strcmp(nm_place_str(&p, buf, sizeof buf), "other"), "other prints as other");
}

static void test_single_node(void)
{
	int ids[] = {0}, cpus[] = {2};
	bool mem[] = {true};
	nm_numa_view v = view(1, ids, cpus, mem, -1);
	char why[512] = "";
	bool assumed;
	CHECK(nm_view_nic_node(&v, &assumed) == 0 && assumed, "NIC without a node: nic is node 0, assumed");
	CHECK(resolve("nic", &v, NM_NEED_MEMORY, why) == 0, "one node: nic resolves to 0");
	CHECK(resolve("any", &v, NM_NEED_MEMORY, why) == -1, "any resolves to no node (-1)");
	CHECK(resolve("0", &v, NM_NEED_CPUS, why) == 0, "node 0 resolves");
	CHECK(resolve("other", &v, NM_NEED_MEMORY, why) == -99 && strstr(why, "one NUMA node") &&
		      strstr(why, "testhost"),
	      "one node: other cannot be resolved (%s)", why);
	CHECK(resolve("1", &v, NM_NEED_MEMORY, why) == -99 && strstr(why, "does not exist") &&
		      strstr(why, "1 node: 0"),
	      "one node: node 1 does not exist (%s)", why);
}

static void test_two_nodes(void)
{
	int ids[] = {0, 1}, cpus[] = {1, 1};
	bool mem[] = {true, true};
	nm_numa_view v = view(2, ids, cpus, mem, 1);
	char why[512] = "";
	CHECK(resolve("nic", &v, NM_NEED_MEMORY, why) == 1, "NIC on node 1: nic is 1");
	CHECK(resolve("other", &v, NM_NEED_MEMORY, why) == 0, "NIC on node 1: other is 0");
	CHECK(resolve("other", &v, NM_NEED_CPUS, why) == 0, "other for threads is 0 too");
	v.nic_node = -1;
	CHECK(resolve("nic", &v, NM_NEED_MEMORY, why) == 0, "NIC without a node: nic is 0");
	CHECK(resolve("other", &v, NM_NEED_MEMORY, why) == 1, "NIC without a node: other is 1");
	v.nic_node = 5;
	bool assumed;
	CHECK(nm_view_nic_node(&v, &assumed) == 0 && assumed, "a NIC node that is not in the view is ignored");
	CHECK(resolve("2", &v, NM_NEED_MEMORY, why) == -99 && strstr(why, "2 nodes: 0,1"),
	      "node 2 does not exist (%s)", why);
}

static void test_many_nodes(void)
{
	/* node 2 is memory-only (CXL-like), node 3 is nearest to the NIC's node 0 */
	int ids[] = {0, 1, 2, 3}, cpus[] = {4, 4, 0, 4};
	bool mem[] = {true, true, true, false};
	nm_numa_view v = view(4, ids, cpus, mem, 0);
	v.dist[0][1] = 21;
	v.dist[0][2] = 14;
	v.dist[0][3] = 12;
	char why[512] = "";
	CHECK(resolve("other", &v, NM_NEED_MEMORY, why) == 2,
	      "other for memory: the nearest node with memory (2; 3 has none)");
	CHECK(resolve("other", &v, NM_NEED_CPUS, why) == 3, "other for threads: the nearest node with CPUs (3)");
	CHECK(resolve("2", &v, NM_NEED_CPUS, why) == -99 && strstr(why, "no CPUs"),
	      "threads on a CPU-less node: refused (%s)", why);
	CHECK(resolve("3", &v, NM_NEED_MEMORY, why) == -99 && strstr(why, "no memory"),
	      "memory on a memory-less node: refused (%s)", why);
	v.dist[0][1] = v.dist[0][2] = v.dist[0][3] = 20;
	CHECK(resolve("other", &v, NM_NEED_MEMORY, why) == 1, "equal distances: the lowest other node");
	/* sparse node ids */
	int sid[] = {0, 4}, sc[] = {1, 1};
	bool sm[] = {true, true};
	nm_numa_view s = view(2, sid, sc, sm, 4);
	CHECK(resolve("other", &s, NM_NEED_MEMORY, why) == 0 && resolve("nic", &s, NM_NEED_MEMORY, why) == 4,
	      "sparse node ids: nic 4, other 0");
}

static void test_census(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 8;
	uint8_t *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		CHECK(0, "mmap for the census test");
		return;
	}
	nm_page_census c;
	nm_pages_census(p, n * page, page, -1, &c);
	CHECK(c.pages == 8 && c.unknown == 8 && nm_census_ok(&c),
	      "untouched pages: 8 unknown, fine when nothing is intended");
	memset(p, 1, n * page);
	int rc = nm_pages_census(p, n * page, page, -1, &c);
	CHECK(rc == 0 && c.unknown == 0 && c.nids == 1 && c.count[0] == 8, "touched pages: all 8 on one node");
	int node = c.id[0];
	nm_pages_census(p, n * page, page, node, &c);
	CHECK(nm_census_ok(&c) && c.on_intended == 8 && c.first_wrong == -1,
	      "intended = their node: confirmed");
	json_t *j = nm_census_json(&c);
	char key[16];
	snprintf(key, sizeof key, "%d", node);
	CHECK(json_integer_value(json_object_get(json_object_get(j, "nodes"), key)) == 8 &&
		      json_is_true(json_object_get(j, "ok")) &&
		      json_integer_value(json_object_get(j, "on_intended")) == 8,
	      "census JSON: nodes, on_intended, ok");
	json_decref(j);
	nm_pages_census(p, n * page, page, node + 1, &c);
	char why[512];
	nm_census_why(&c, "buffer", why, sizeof why);
	CHECK(!nm_census_ok(&c) && c.on_intended == 0 && c.first_wrong == 0 && strstr(why, "8 of 8 pages"),
	      "intended another node: every page fails (%s)", why);
	munmap(p + 4 * page, page); /* a hole: move_pages reports it as not present */
	memset(p, 1, 4 * page);
	nm_pages_census(p, 4 * page, page, node, &c);
	CHECK(nm_census_ok(&c), "the first 4 pages are still fine");
	CHECK(nm_pages_move_one(p, node) == node, "moving a page to its own node keeps it there");
	munmap(p, 4 * page);
	munmap(p + 5 * page, 3 * page);
}

int main(void)
{
	test_parse();
	test_single_node();
	test_two_nodes();
	test_many_nodes();
	test_census();
	return tap_done();
}
