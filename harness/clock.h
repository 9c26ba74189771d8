/* Time source for measured loops: the TSC scaled by a calibrated rate, else
 * CLOCK_MONOTONIC_RAW. nm_clock_init() must run once before worker threads
 * start.
 *
 * Which one: the TSC whenever repeated calibrations against the system clock
 * agree, whether or not the CPU declares it invariant. Virtual machines often
 * hide the invariant-TSC flags while their TSC runs at a constant rate, and
 * there the system clock can be a system call costing microseconds per read,
 * inside every measured interval; perftest reads the TSC unconditionally. A
 * rate that moves between calibrations (frequency scaling, a migrating
 * guest) is no clock: then the system clock, and one line on stderr says
 * why. NETMEM_CLOCK=tsc or NETMEM_CLOCK=system forces a source. */
#ifndef NM_CLOCK_H
#define NM_CLOCK_H
#include <stdbool.h>
#include <stdint.h>

typedef enum { NM_CLOCK_AUTO, NM_CLOCK_WANT_TSC, NM_CLOCK_WANT_SYSTEM } nm_clock_want;
typedef enum { NM_CLOCK_SYSTEM, NM_CLOCK_TSC } nm_clock_kind;

enum { NM_CLOCK_CALIBRATIONS = 3 };
/* Largest (max - min) / mean of the calibrations that counts as agreement:
 * a 20 ms window read to within a microsecond at each end is good to 1e-4. */
#define NM_CLOCK_TOLERANCE 1e-3

typedef struct nm_clock_choice {
	nm_clock_kind source;
	nm_clock_want want;
	double cal[NM_CLOCK_CALIBRATIONS];  /* TSC ticks per ns, one per calibration; 0: failed */
	int ncal;                            /* calibrations made (0: none, or no TSC) */
	double ticks_per_ns;                 /* of the chosen source (1 for the system clock) */
	double spread;                       /* (max - min) / mean of cal; -1 without calibrations */
	bool warn;                           /* why[] belongs on stderr */
	char why[200];
} nm_clock_choice;

/* NETMEM_CLOCK's value: NULL or "" (auto), "tsc", "system" (also
 * "clock_gettime"). Returns -1 for anything else. */
int nm_clock_parse(const char *value, nm_clock_want *out);
/* The decision from a wish and n calibrations (ticks per ns, <= 0 for a
 * failed one), with no side effect: unit-tested with injected values. */
void nm_clock_decide(nm_clock_want want, const double *cal, int n, double tolerance, nm_clock_choice *out);

/* Reads NETMEM_CLOCK (a bad value is a usage error), calibrates, decides. */
void nm_clock_init(void);
/* The decision nm_clock_init made, and what one nm_ticks() call costs (ns). */
const nm_clock_choice *nm_clock_info(void);
double nm_clock_read_ns(void);
/* The line for stderr when the user should know (a fallback or a forced
 * TSC that did not calibrate well), else NULL. */
const char *nm_clock_warning(void);
/* Wall-clock-free monotonic nanoseconds (CLOCK_MONOTONIC_RAW), for
 * deadlines and the system-clock source. */
uint64_t nm_now_ns(void);

/* Set by nm_clock_init; read on every nm_ticks(). */
extern bool nm_clock_tsc_;

/* Raw ticks: cheap, monotonic per core. Inline: measured loops call it per
 * operation, and a call plus a branch is part of what they measure. */
static inline uint64_t nm_ticks(void)
{
#if defined(__x86_64__)
	if (nm_clock_tsc_)
		return __builtin_ia32_rdtsc();
#endif
	return nm_now_ns();
}
/* Set by nm_clock_init: the chosen source's nanoseconds per tick. */
extern double nm_clock_ns_per_tick_;
/* Convert a tick difference to nanoseconds (inline: once per latency sample). */
static inline uint64_t nm_ticks_to_ns(uint64_t ticks) { return (uint64_t)((double)ticks * nm_clock_ns_per_tick_ + 0.5); }
uint64_t nm_ns_to_ticks(uint64_t ns);
/* CLOCK_MONOTONIC_RAW's nanoseconds at tick t, a recent tick (a history's
 * times: one clock for every process of a host). The clock and the TSC are
 * read together, the tightest of a few tries: a thread preempted between
 * the two reads (a busy host's vCPU is, for milliseconds) would otherwise
 * shift every time it converts by as long. */
uint64_t nm_clock_ns_at(uint64_t t);
/* Sleeps about ns nanoseconds (waits that must leave the core to others). */
void nm_nap_ns(uint64_t ns);
/* "tsc" or "clock_gettime", and the tick rate in Hz, for the metadata. */
const char *nm_clock_source(void);
double nm_clock_hz(void);
/* Whether the CPU declares its TSC invariant (constant_tsc and nonstop_tsc),
 * for the metadata: no longer a condition for using it. */
bool nm_clock_tsc_flags(void);

/* The CPU's spin-wait hint, for loops that poll memory another thread or the
 * NIC will change. */
static inline void nm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}
#endif
