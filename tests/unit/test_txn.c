/* The transfer benchmark's pure parts: account layout and lock mapping
 * (primitives/gen/accounts.h), balance words and their tags, the weighted-sum
 * identity the run checks, and grouping ranks into nodes (harness/hosts.h). */
#include "accounts.h"
#include "hosts.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static void layout(uint64_t n, int homes, int P)
{
	nm_accounts a;
	nm_accounts_init(&a, n, homes, P);
	int bad_home = 0, bad_key = 0, bad_slice = 0, bad_count = 0, bad_number = 0;
	uint64_t total = 0;
	for (int h = 0; h < homes; h++) {
		total += nm_acct_count(&a, h);
		if (nm_acct_count(&a, h) > a.per_home)
			bad_count++;
	}
	for (uint64_t i = 0; i < n; i++) {
		int h = nm_acct_home(&a, i), k = nm_acct_key(&a, i), s = nm_acct_slot(&a, i);
		uint64_t j = nm_acct_index(&a, i);
		if (h < 0 || h >= homes || j >= nm_acct_count(&a, h))
			bad_home++;
		if (nm_acct_number(&a, h, j) != i)
			bad_number++;
		/* the key is in the home's contiguous range of P keys */
		if (k / P != h || s < 0 || s >= P)
			bad_key++;
		/* the account's word lies inside its lock's block (MPI window) */
		uint64_t off = j * 8, base = (uint64_t)s * a.per_lock * 8;
		if (off < base || off + 8 > base + a.per_lock * 8 || off + 8 > nm_acct_bytes(&a))
			bad_slice++;
	}
	CHECK(total == n, "%llu accounts over %d homes, %d locks each: counts add up",
	      (unsigned long long)n, homes, P);
	CHECK(!bad_count && !bad_home && !bad_number,
	      "n=%llu H=%d P=%d: every account has a home and index, number(home, index) inverts them",
	      (unsigned long long)n, homes, P);
	CHECK(!bad_key, "n=%llu H=%d P=%d: keys fall in the home's range", (unsigned long long)n, homes, P);
	CHECK(!bad_slice, "n=%llu H=%d P=%d: each account lies inside its lock's block",
	      (unsigned long long)n, homes, P);
}

int main(void)
{
	layout(1000, 3, 341);
	layout(100000, 3, 341);
	layout(12, 4, 2);
	layout(7, 7, 1);
	layout(2, 1, 341);

	nm_accounts a;
	nm_accounts_init(&a, 100000, 3, 341);
	CHECK(a.per_home == 33334 && a.per_lock == 98, "100000 over 3 homes: 33334 per home, 98 per lock (got %llu, %llu)",
	      (unsigned long long)a.per_home, (unsigned long long)a.per_lock);
	/* every lock of a full home is used */
	int used[341] = {0};
	for (uint64_t j = 0; j < nm_acct_count(&a, 0); j++)
		used[nm_acct_slot(&a, nm_acct_number(&a, 0, j))] = 1;
	int nused = 0;
	for (int s = 0; s < 341; s++)
		nused += used[s];
	CHECK(nused == 341, "home 0 of 100000 accounts uses all 341 locks (%d)", nused);

	/* balance words */
	int64_t vals[] = {0, 1, -1, 1000000, -123456789, NM_ACCT_MAX_BALANCE, -NM_ACCT_MAX_BALANCE};
	int round = 1;
	for (size_t v = 0; v < sizeof vals / sizeof *vals; v++)
		for (uint64_t acct = 0; acct < 50; acct++) {
			int64_t b = 42;
			uint64_t w = nm_acct_encode(acct, vals[v]);
			if (!nm_acct_decode(acct, w, &b) || b != vals[v])
				round = 0;
		}
	CHECK(round, "encode/decode round-trips positive, negative and extreme balances");
	uint64_t other_ok = 0, torn_ok = 0, flip_ok = 0;
	for (uint64_t acct = 0; acct < 20000; acct++) {
		int64_t b;
		uint64_t w = nm_acct_encode(acct, 1000 + (int64_t)acct), w2 = nm_acct_encode(acct, 77);
		other_ok += nm_acct_decode(acct + 1, w, &b);
		torn_ok += nm_acct_decode(acct, (w & 0xffffffffull) | (w2 & ~0xffffffffull), &b);
		flip_ok += nm_acct_decode(acct, w ^ (1ull << (acct % 48)), &b);
	}
	CHECK(other_ok < 5, "a word read as another account's fails its tag (%llu of 20000 pass)",
	      (unsigned long long)other_ok);
	CHECK(torn_ok < 5, "a torn word (halves of two writes) fails its tag (%llu of 20000 pass)",
	      (unsigned long long)torn_ok);
	CHECK(flip_ok < 5, "a flipped balance bit fails its tag (%llu of 20000 pass)",
	      (unsigned long long)flip_ok);
	int64_t b;
	uint64_t zeros = 0;
	for (uint64_t acct = 0; acct < 20000; acct++)
		zeros += nm_acct_decode(acct, 0, &b);
	CHECK(zeros < 5, "never-written (zero) words fail their tag (%llu of 20000 pass)", (unsigned long long)zeros);

	/* weighted-sum identity over random transfers */
	uint64_t n = 1000, ws = 0, expect;
	int64_t *bal = calloc(n, sizeof *bal);
	for (uint64_t i = 0; i < n; i++) {
		bal[i] = 500;
		ws += nm_acct_weight(i) * (uint64_t)bal[i];
	}
	expect = ws;
	uint64_t x = 88172645463325252ull;
	for (int t = 0; t < 100000; t++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		uint64_t from = x % n, to = (x >> 20) % n, amt = 1 + (x >> 40) % 100;
		if (from == to)
			continue;
		bal[from] -= (int64_t)amt;
		bal[to] += (int64_t)amt;
		expect += amt * (nm_acct_weight(to) - nm_acct_weight(from));
	}
	uint64_t got = 0;
	int64_t sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		got += nm_acct_weight(i) * (uint64_t)bal[i];
		sum += bal[i];
	}
	CHECK(got == expect && sum == 500 * (int64_t)n, "weighted sum follows the transfers exactly; plain sum conserved");
	/* a misdirected credit conserves the sum but not the weighted sum */
	bal[1] -= 5;
	bal[2] += 5;  /* the log says 1 -> 3 */
	expect += 5 * (nm_acct_weight(3) - nm_acct_weight(1));
	got = 0;
	for (uint64_t i = 0; i < n; i++)
		got += nm_acct_weight(i) * (uint64_t)bal[i];
	CHECK(got != expect, "a transfer credited to the wrong account breaks the weighted sum");
	CHECK(nm_acct_weight(7) & 1, "weights are odd");
	free(bal);

	/* nodes from hosts */
	char err[256];
	nm_hosts h;
	uint64_t two[] = {1, 1, 1, 2, 2, 2};
	CHECK(nm_hosts_group(two, 6, 0, &h, err, sizeof err) == 0 && h.per_node == 3 && h.nodes == 2 && !h.emulated,
	      "6 ranks on 2 hosts in order: 3 per node, 2 nodes");
	uint64_t mixed[] = {1, 2, 1, 2};
	CHECK(nm_hosts_group(mixed, 4, 0, &h, err, sizeof err) == -1 && strstr(err, "--map-by"),
	      "ranks round-robin over hosts: refused, pointing at --map-by (%s)", err);
	uint64_t uneven[] = {1, 1, 1, 2, 2};
	CHECK(nm_hosts_group(uneven, 5, 0, &h, err, sizeof err) == -1 && strstr(err, "--ranks-per-node"),
	      "uneven ranks per host: refused (%s)", err);
	uint64_t one[] = {9, 9, 9, 9, 9, 9};
	CHECK(nm_hosts_group(one, 6, 0, &h, err, sizeof err) == 0 && h.nodes == 1 && h.per_node == 6,
	      "one host, detected: one node of 6 ranks");
	CHECK(nm_hosts_group(one, 6, 2, &h, err, sizeof err) == 0 && h.nodes == 3 && h.per_node == 2 && h.emulated,
	      "one host, --ranks-per-node 2: 3 emulated nodes");
	CHECK(nm_hosts_group(two, 6, 2, &h, err, sizeof err) == -1,
	      "groups of 2 across hosts 1,1,1,2,2,2 split a node over two hosts: refused");
	CHECK(nm_hosts_group(two, 6, 3, &h, err, sizeof err) == 0 && h.nodes == 2 && !h.emulated,
	      "explicit 3 per node matching the hosts: real nodes");
	CHECK(nm_hosts_group(one, 6, 7, &h, err, sizeof err) == -1, "more ranks per node than ranks: refused");
	uint64_t spread[] = {1, 2, 1, 2};
	CHECK(nm_hosts_group(spread, 4, 2, &h, err, sizeof err) == -1 && strstr(err, "slots=2"),
	      "one slot per host but 2 ranks per node: refused, naming the hostfile's slots (%s)", err);

	/* --yield auto: yield when more ranks share this host than it has CPUs */
	CHECK(nm_yield_parse("on") == NM_YIELD_ON && nm_yield_parse("off") == NM_YIELD_OFF &&
	      nm_yield_parse("auto") == NM_YIELD_AUTO, "yield words parse to their modes");
	CHECK(nm_yield_wanted(NM_YIELD_AUTO, one, 6, 0, 2), "6 ranks on a 2-CPU host: auto yields");
	CHECK(!nm_yield_wanted(NM_YIELD_AUTO, one, 6, 0, 8), "6 ranks on an 8-CPU host: auto spins");
	CHECK(!nm_yield_wanted(NM_YIELD_AUTO, two, 6, 4, 3), "3 ranks per 3-CPU host: auto spins");
	CHECK(nm_yield_wanted(NM_YIELD_AUTO, two, 6, 4, 2), "3 ranks per 2-CPU host: auto yields");
	CHECK(nm_yield_wanted(NM_YIELD_ON, two, 6, 4, 64) && !nm_yield_wanted(NM_YIELD_OFF, one, 6, 0, 1),
	      "on and off override the count");

	/* builds compared at start-up */
	char big[1024];
	const char *names[] = {"node-a", "node-b", "node-c"};
	const char *same[] = {"1234", "1234", "1234"}, *other[] = {"1234", "1234", "abcd"};
	CHECK(nm_build_compare(same, names, 3, big, sizeof big) == 0, "one build on every host: accepted");
	CHECK(nm_build_compare(other, names, 3, big, sizeof big) == -1 && strstr(big, "rank 2 on node-c") &&
	      strstr(big, "(abcd)") && strstr(big, "rank 0 on node-a (1234)") && strstr(big, "same source"),
	      "another build on one host: refused, naming both hosts, both builds and the fix (%s)", big);
	CHECK(nm_build_compare(same, names, 1, big, sizeof big) == 0, "one rank: nothing to compare");
	return tap_done();
}
