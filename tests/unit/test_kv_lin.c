/* netmem kv-check's search (workloads/kv/kv_lin.c) on crafted one-key
 * histories: sequential and concurrent ones that are linearizable, and ones
 * that are not (a stale read, a read of a value overwritten before it
 * began, a write that lands after its own return, a miss of a present key),
 * plus a history too wide to decide within a small state bound, and the
 * search's two economies (the memo, reads taken without branching). */
#include "kv_lin.h"
#include "tap.h"
#include <stdlib.h>

#define R(i, r, v) {.invoke = (i), .response = (r), .value = (v), .kind = KV_LIN_READ}
#define W(i, r, v) {.invoke = (i), .response = (r), .value = (v), .kind = KV_LIN_UPDATE}
#define P(i, r, v) {.invoke = (i), .response = (r), .value = (v), .kind = KV_LIN_PUT}
#define M(i, r) {.invoke = (i), .response = (r), .kind = KV_LIN_MISS}
#define D(i, r) {.invoke = (i), .response = (r), .kind = KV_LIN_REMOVE}

static const kv_lin_state init1 = {true, 1}, empty = {false, 0};

static kv_lin_verdict check(kv_lin_op *ops, size_t n, kv_lin_state init, kv_lin_report *rep)
{
	for (size_t i = 0; i < n; i++)
		ops[i].id = i;
	return kv_lin_check(ops, n, init, 0, rep, NULL);
}

static void test_linearizable(void)
{
	kv_lin_report rep;
	kv_lin_op seq[] = {R(0, 1, 1), W(2, 3, 2), R(4, 5, 2), W(6, 7, 3), R(8, 9, 3)};
	CHECK(check(seq, 5, init1, &rep) == KV_LIN_OK && rep.linearized == 5, "a sequential history is linearizable");
	/* a read overlapping a write may see either value; two overlapping
	 * writes may take effect in either order */
	kv_lin_op conc[] = {W(0, 10, 2), R(1, 3, 1), R(2, 9, 2), W(5, 20, 3), R(11, 12, 3), R(13, 14, 3)};
	CHECK(check(conc, 6, init1, &rep) == KV_LIN_OK, "concurrent overlapping writes and reads: linearizable");
	kv_lin_op order[] = {W(0, 10, 2), W(1, 9, 3), R(11, 12, 2)};
	CHECK(check(order, 3, init1, &rep) == KV_LIN_OK, "two overlapping writes, the later-invoked first");
	/* written out of invocation order: listed late, invoked early */
	kv_lin_op shuffled[] = {R(8, 9, 3), W(6, 7, 3), R(0, 1, 1), W(2, 3, 2), R(4, 5, 2)};
	CHECK(check(shuffled, 5, init1, &rep) == KV_LIN_OK, "listed out of order: sorted, linearizable");
	kv_lin_op ins[] = {M(0, 1), P(2, 5, 7), R(3, 4, 7), D(6, 7), M(8, 9)};
	CHECK(check(ins, 5, empty, &rep) == KV_LIN_OK, "insert, read inside it, delete, miss: linearizable");
	CHECK(check(NULL, 0, init1, &rep) == KV_LIN_OK, "no operation: linearizable");
}

static void test_violations(void)
{
	kv_lin_report rep;
	kv_lin_op stale[] = {W(0, 1, 2), R(2, 3, 1)};
	CHECK(check(stale, 2, init1, &rep) == KV_LIN_VIOLATION, "a stale read after a completed write: not linearizable");
	CHECK(rep.linearized == 1 && rep.state.present && rep.state.value == 2 && stale[rep.stuck].kind == KV_LIN_READ,
	      "the report: one operation in order, the register 2, the stale read stuck");
	/* reads may not go back: 1 then 2 then 1 again, all after the write */
	kv_lin_op back[] = {W(0, 10, 2), R(1, 2, 2), R(3, 4, 1)};
	CHECK(check(back, 3, init1, &rep) == KV_LIN_VIOLATION, "a read sees the new value, a later one the old");
	/* the early-release shape: A returns, B writes, a look sees B's, then A's lands */
	kv_lin_op early[] = {W(0, 2, 10), W(1, 5, 20), R(6, 7, 20), R(8, 9, 10)};
	CHECK(check(early, 4, init1, &rep) == KV_LIN_VIOLATION, "a write landing after its return and a newer write");
	kv_lin_op miss[] = {M(0, 1)};
	CHECK(check(miss, 1, init1, &rep) == KV_LIN_VIOLATION, "a miss of a prefilled key");
	kv_lin_op never[] = {W(0, 1, 2), R(0, 5, 9)};
	CHECK(check(never, 2, init1, &rep) == KV_LIN_VIOLATION, "a read of a value nobody wrote");
	kv_lin_op gone[] = {D(0, 1), R(2, 3, 1)};
	CHECK(check(gone, 2, init1, &rep) == KV_LIN_VIOLATION, "a read of a deleted key");
	kv_lin_op upd[] = {W(0, 1, 5)};
	CHECK(check(upd, 1, empty, &rep) == KV_LIN_VIOLATION, "an update that found an absent key");
}

/* Many concurrent writes and a read of a value none wrote: the search must
 * visit many states; a small bound leaves it undecided, none decides it. */
static uint64_t ticks;
static void count_tick(void) { ticks++; }

static void test_bound(void)
{
	enum { N = 10 };
	kv_lin_op ops[N + 1];
	for (int i = 0; i < N; i++)
		ops[i] = (kv_lin_op)W(0, 100, (uint64_t)i + 2);
	ops[N] = (kv_lin_op)R(50, 60, 1000);
	kv_lin_report rep;
	CHECK(check(ops, N + 1, init1, &rep) == KV_LIN_VIOLATION && rep.states_seen > 1000,
	      "10 concurrent writes and an impossible read: violation, after %llu states",
	      (unsigned long long)rep.states_seen);
	/* without the memo the search would try every order of the writes (10!) */
	CHECK(rep.steps < 200000, "the memo prunes: %llu steps", (unsigned long long)rep.steps);
	for (int i = 0; i <= N; i++)
		ops[i].id = (size_t)i;
	CHECK(kv_lin_check(ops, N + 1, init1, 100, &rep, NULL) == KV_LIN_UNDECIDED, "a bound of 100 states: undecided");
	/* a job checking a point's history in place is kept alive by the tick */
	for (int i = 0; i <= N; i++)
		ops[i].id = (size_t)i;
	ticks = 0;
	CHECK(kv_lin_check(ops, N + 1, init1, 0, &rep, count_tick) == KV_LIN_VIOLATION &&
		      ticks >= rep.states_seen / 4096 / 2 && ticks > 0,
	      "a long search calls its tick: %llu times over %llu states", (unsigned long long)ticks, (unsigned long long)rep.states_seen);
	/* 12 concurrent writes, each read once (reads invoked later): a read the
	 * register satisfies is taken without branching, so the writes are not
	 * tried in every order before the reads */
	kv_lin_op wr[24];
	for (int i = 0; i < 12; i++) {
		wr[i] = (kv_lin_op)W(0, 100, (uint64_t)i + 2);
		wr[12 + i] = (kv_lin_op)R(50, 150, (uint64_t)(11 - i) + 2);
	}
	CHECK(check(wr, 24, init1, &rep) == KV_LIN_OK && rep.steps < 2000,
	      "12 concurrent writes each read once: linearizable in %llu steps", (unsigned long long)rep.steps);
	/* the memo keeps a wide linearizable history cheap */
	kv_lin_op many[200];
	for (int i = 0; i < 200; i++)
		many[i] = i % 2 ? (kv_lin_op)R(i * 10, i * 10 + 25, 0) : (kv_lin_op)W(i * 10, i * 10 + 25, 0);
	for (int i = 0; i < 200; i++)
		many[i].value = 7;
	CHECK(check(many, 200, init1, &rep) == KV_LIN_OK && rep.states_seen < 20000,
	      "200 overlapping operations of one value: linearizable in %llu states",
	      (unsigned long long)rep.states_seen);
}

int main(void)
{
	test_linearizable();
	test_violations();
	test_bound();
	return tap_done();
}
