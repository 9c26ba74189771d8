#include "clock.h"
#include "log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

bool nm_clock_tsc_;
double nm_clock_ns_per_tick_ = 1.0;
static double read_ns;
static nm_clock_choice chosen = {.source = NM_CLOCK_SYSTEM, .ticks_per_ns = 1.0, .spread = -1};

uint64_t nm_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int nm_clock_parse(const char *value, nm_clock_want *out)
{
	if (!value || !value[0])
		*out = NM_CLOCK_AUTO;
	else if (!strcmp(value, "tsc"))
		*out = NM_CLOCK_WANT_TSC;
	else if (!strcmp(value, "system") || !strcmp(value, "clock_gettime"))
		*out = NM_CLOCK_WANT_SYSTEM;
	else
		return -1;
	return 0;
}

/* (max - min) / mean of n calibrations, all > 0; the mean in *mean. */
static double spread_of(const double *cal, int n, double *mean)
{
	double lo = cal[0], hi = cal[0], sum = 0;
	for (int i = 0; i < n; i++) {
		lo = cal[i] < lo ? cal[i] : lo;
		hi = cal[i] > hi ? cal[i] : hi;
		sum += cal[i];
	}
	*mean = sum / n;
	return (hi - lo) / *mean;
}

static void use_system(nm_clock_choice *c)
{
	c->source = NM_CLOCK_SYSTEM;
	c->ticks_per_ns = 1.0;
}

void nm_clock_decide(nm_clock_want want, const double *cal, int n, double tolerance, nm_clock_choice *out)
{
	*out = (nm_clock_choice){.want = want, .spread = -1, .ncal = n < NM_CLOCK_CALIBRATIONS ? n : NM_CLOCK_CALIBRATIONS};
	bool usable = out->ncal > 0;
	for (int i = 0; i < out->ncal; i++) {
		out->cal[i] = cal[i];
		usable = usable && cal[i] > 0;
	}
	double mean = 0;
	if (usable)
		out->spread = spread_of(out->cal, out->ncal, &mean);
	if (want == NM_CLOCK_WANT_SYSTEM || !usable) {
		use_system(out);
		out->warn = want == NM_CLOCK_WANT_TSC;
		snprintf(out->why, sizeof out->why, "%s",
			 want == NM_CLOCK_WANT_SYSTEM ? "NETMEM_CLOCK=system"
			 : out->warn ? "NETMEM_CLOCK=tsc, but this CPU has no TSC that calibrates: timing with "
				       "the system clock"
				     : "no TSC on this CPU");
		return;
	}
	bool agree = out->spread <= tolerance;
	if (want == NM_CLOCK_AUTO && !agree) {
		use_system(out);
		out->warn = true;
		snprintf(out->why, sizeof out->why, "TSC calibrations disagree (spread %.2g, limit %.2g): timing with "
			 "the system clock, whose reads cost more; NETMEM_CLOCK=tsc forces the TSC",
			 out->spread, tolerance);
		return;
	}
	out->source = NM_CLOCK_TSC;
	out->ticks_per_ns = mean;
	out->warn = !agree;
	if (agree)
		snprintf(out->why, sizeof out->why, "%d calibrations agree (spread %.2g, limit %.2g)%s", out->ncal,
			 out->spread, tolerance, want == NM_CLOCK_WANT_TSC ? "; NETMEM_CLOCK=tsc" : "");
	else
		snprintf(out->why, sizeof out->why, "NETMEM_CLOCK=tsc: timing with the TSC although its calibrations "
			 "disagree (spread %.2g, limit %.2g)", out->spread, tolerance);
}

#if defined(__x86_64__)
/* One end of a calibration window: the system clock read between two TSC
 * reads, the tightest of a few tries, so that a preemption between the two
 * clocks (other VMs share the cores) cannot skew the rate. */
static void stamp(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	/* a bracket of a few thousand ticks (a microsecond or two) is a read
	 * nothing came between: stop there */
	for (int i = 0; i < 16 && best > 4096; i++) {
		uint64_t a = __rdtsc(), n = nm_now_ns(), b = __rdtsc();
		if (b > a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

/* TSC ticks per ns over a 20 ms window against CLOCK_MONOTONIC_RAW (not
 * slewed by NTP, and the fallback source); 0 if it went backwards. */
static double calibrate(void)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
	stamp(&t0, &n0);
	struct timespec d = {0, 20 * 1000 * 1000};
	nanosleep(&d, NULL);
	stamp(&t1, &n1);
	return t1 > t0 && n1 > n0 ? (double)(t1 - t0) / (double)(n1 - n0) : 0;
}
#endif

bool nm_clock_tsc_flags(void)
{
#if defined(__x86_64__)
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool ok = false;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5) == 0) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	}
	fclose(f);
	return ok;
#else
	return false;
#endif
}

/* What one nm_ticks() costs with the chosen source, for the record (under
 * emulation a system-clock read can cost microseconds): the fastest of a few
 * batches, so that a preemption during one does not count. */
static double measure_read_ns(void)
{
	enum { BATCHES = 10, READS = 100 };
	uint64_t best = UINT64_MAX, sink = 0;
	for (int b = 0; b < BATCHES; b++) {
		uint64_t n0 = nm_now_ns();
		for (int i = 0; i < READS; i++)
			sink += nm_ticks();
		uint64_t n1 = nm_now_ns();
		best = n1 - n0 < best ? n1 - n0 : best;
	}
	__asm__ __volatile__("" : : "r"(sink));
	return (double)best / READS;
}

void nm_clock_init(void)
{
	const char *value = getenv("NETMEM_CLOCK");
	nm_clock_want want;
	if (nm_clock_parse(value, &want) != 0)
		nm_usage_error("NETMEM_CLOCK=%s: use tsc or system (unset: the TSC when its calibrations agree)", value);
	double cal[NM_CLOCK_CALIBRATIONS] = {0};
	int n = 0;
#if defined(__x86_64__)
	for (; want != NM_CLOCK_WANT_SYSTEM && n < NM_CLOCK_CALIBRATIONS; n++)
		cal[n] = calibrate();
#endif
	nm_clock_decide(want, cal, n, NM_CLOCK_TOLERANCE, &chosen);
	nm_clock_tsc_ = chosen.source == NM_CLOCK_TSC;
	nm_clock_ns_per_tick_ = 1.0 / chosen.ticks_per_ns;
	read_ns = measure_read_ns();
}

const nm_clock_choice *nm_clock_info(void) { return &chosen; }
double nm_clock_read_ns(void) { return read_ns; }
const char *nm_clock_warning(void) { return chosen.warn ? chosen.why : NULL; }
uint64_t nm_clock_ns_at(uint64_t t)
{
#if defined(__x86_64__)
	if (nm_clock_tsc_) {
		uint64_t tsc = 0, ns = 0;
		stamp(&tsc, &ns);
		return tsc >= t ? ns - nm_ticks_to_ns(tsc - t) : ns + nm_ticks_to_ns(t - tsc);
	}
#endif
	return t;   /* the system clock's ticks are its nanoseconds */
}

uint64_t nm_ns_to_ticks(uint64_t ns) { return (uint64_t)((double)ns / nm_clock_ns_per_tick_ + 0.5); }
const char *nm_clock_source(void) { return nm_clock_tsc_ ? "tsc" : "clock_gettime"; }
double nm_clock_hz(void) { return chosen.ticks_per_ns * 1e9; }

void nm_nap_ns(uint64_t ns)
{
	struct timespec d = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	nanosleep(&d, NULL);
}
