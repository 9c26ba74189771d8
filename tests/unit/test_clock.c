/* The clock decision (harness/clock.h) from injected calibrations: the TSC
 * when they agree, the system clock with a warning when they do not, and
 * NETMEM_CLOCK forcing either. Then the real clock on this host: whatever
 * it chose, ticks must advance and convert consistently. */
#include "clock.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double tol = NM_CLOCK_TOLERANCE;

static void parse(void)
{
	nm_clock_want w = NM_CLOCK_WANT_TSC;
	CHECK(nm_clock_parse(NULL, &w) == 0 && w == NM_CLOCK_AUTO, "parse: unset is auto");
	CHECK(nm_clock_parse("", &w) == 0 && w == NM_CLOCK_AUTO, "parse: empty is auto");
	CHECK(nm_clock_parse("tsc", &w) == 0 && w == NM_CLOCK_WANT_TSC, "parse: tsc");
	CHECK(nm_clock_parse("system", &w) == 0 && w == NM_CLOCK_WANT_SYSTEM, "parse: system");
	CHECK(nm_clock_parse("clock_gettime", &w) == 0 && w == NM_CLOCK_WANT_SYSTEM,
	      "parse: clock_gettime (the source's name) means system");
	CHECK(nm_clock_parse("hpet", &w) == -1, "parse: anything else is refused");
}

static void auto_agree(void)
{
	const double cal[] = {2.9000, 2.9010, 2.8995};
	nm_clock_choice c;
	nm_clock_decide(NM_CLOCK_AUTO, cal, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_TSC, "auto, calibrations within 0.05%%: the TSC");
	CHECK(c.ticks_per_ns > 2.8995 && c.ticks_per_ns < 2.9010, "auto: the rate is the calibrations' mean (%g)",
	      c.ticks_per_ns);
	CHECK(c.spread > 5e-4 && c.spread < 5.2e-4, "auto: spread is (max - min) / mean (%g)", c.spread);
	CHECK(!c.warn && strstr(c.why, "agree"), "auto, agreeing: no warning, why says they agree");
	CHECK(c.ncal == 3 && c.cal[1] == 2.9010, "the calibrations are kept for the metadata");
}

static void auto_disagree(void)
{
	const double cal[] = {2.90, 2.95, 2.90};
	nm_clock_choice c;
	nm_clock_decide(NM_CLOCK_AUTO, cal, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM && c.ticks_per_ns == 1.0, "auto, 1.7%% apart: the system clock");
	CHECK(c.warn && strstr(c.why, "disagree") && !strchr(c.why, '\n'), "auto, disagreeing: a one-line warning");
	CHECK(c.spread > 0.017 && c.spread < 0.018, "auto, disagreeing: the spread is still recorded");
}

static void at_the_limit(void)
{
	const double in[] = {1.0, 1.0 + 0.9e-3}, out[] = {1.0, 1.0 + 1.1e-3};
	nm_clock_choice a, b;
	nm_clock_decide(NM_CLOCK_AUTO, in, 2, tol, &a);
	nm_clock_decide(NM_CLOCK_AUTO, out, 2, tol, &b);
	CHECK(a.source == NM_CLOCK_TSC && b.source == NM_CLOCK_SYSTEM, "0.09%% apart agrees, 0.11%% does not");
}

static void forced(void)
{
	const double bad[] = {2.90, 3.20, 2.95}, good[] = {2.9, 2.9, 2.9};
	nm_clock_choice c;
	nm_clock_decide(NM_CLOCK_WANT_TSC, bad, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_TSC && c.warn, "NETMEM_CLOCK=tsc with disagreeing calibrations: TSC, warned");
	nm_clock_decide(NM_CLOCK_WANT_TSC, good, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_TSC && !c.warn, "NETMEM_CLOCK=tsc with agreeing calibrations: TSC, silent");
	nm_clock_decide(NM_CLOCK_WANT_SYSTEM, good, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM && !c.warn, "NETMEM_CLOCK=system wins over agreeing calibrations");
	nm_clock_decide(NM_CLOCK_WANT_SYSTEM, NULL, 0, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM && c.spread < 0 && c.ncal == 0, "system without calibrations: no spread");
}

static void no_tsc(void)
{
	const double failed[] = {2.9, 0, 2.9};
	nm_clock_choice c;
	nm_clock_decide(NM_CLOCK_AUTO, NULL, 0, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM && !c.warn, "no TSC (no calibration), auto: system clock, silent");
	nm_clock_decide(NM_CLOCK_AUTO, failed, 3, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM, "a failed calibration (TSC went backwards): system clock");
	nm_clock_decide(NM_CLOCK_WANT_TSC, NULL, 0, tol, &c);
	CHECK(c.source == NM_CLOCK_SYSTEM && c.warn, "NETMEM_CLOCK=tsc without a TSC: system clock, warned");
}

/* The real clock: monotonic, and 10 ms of nanosleep is at least 10 ms. */
static void real_clock(void)
{
	nm_clock_init();
	const nm_clock_choice *c = nm_clock_info();
	uint64_t t0 = nm_ticks();
	struct timespec d = {0, 10 * 1000 * 1000};
	nanosleep(&d, NULL);
	uint64_t ns = nm_ticks_to_ns(nm_ticks() - t0);
	CHECK(ns >= 9900000, "this host (%s, %s): 10 ms of sleep measure %llu ns", nm_clock_source(), c->why,
	      (unsigned long long)ns);
	long long back = (long long)nm_ns_to_ticks(nm_ticks_to_ns(1000000));
	CHECK(llabs(back - 1000000) <= 1, "ticks and ns convert back and forth (%lld)", back);
	CHECK(nm_clock_read_ns() > 0, "the cost of a read is measured (%.1f ns)", nm_clock_read_ns());
	/* A tick taken between two reads of the system clock converts to a
	 * time between them; one 10 ms earlier converts to 10 ms earlier. */
	uint64_t n0 = nm_now_ns(), t = nm_ticks(), n1 = nm_now_ns();
	nanosleep(&d, NULL);
	uint64_t at = nm_clock_ns_at(t);
	CHECK(at + 20000 >= n0 && at <= n1 + 20000, "a tick's clock time lies between the clock's reads around it "
	      "(%lld ns from the first, the reads %llu ns apart)", (long long)(at - n0), (unsigned long long)(n1 - n0));
	uint64_t t10 = nm_ticks() - nm_ns_to_ticks(10000000), now = nm_now_ns(), at10 = nm_clock_ns_at(t10);
	CHECK(llabs((long long)(now - at10) - 10000000) < 1000000, "a tick 10 ms old converts to 10 ms ago (%lld ns)",
	      (long long)(now - at10));
}

int main(void)
{
	parse();
	auto_agree();
	auto_disagree();
	at_the_limit();
	forced();
	no_tsc();
	real_clock();
	return tap_done();
}
